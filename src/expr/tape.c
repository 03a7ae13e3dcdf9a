/* tape.c - linear tapes compiled from expression DAGs (see tape.h).
 *
 * Compilation marks the nodes reachable from the outputs (an explicit stack, no
 * recursion), then numbers the marked nodes: constants first, then variable loads, then the
 * operations in increasing id order (children have smaller ids than parents, so that order
 * is topological). Slot i holds instruction i's result;
 * operands name slots. Unary instructions repeat their operand as b so evaluation never
 * reads an unset slot. */
#include "expr/tape.h"

#include <stdlib.h>

typedef struct tape_ins {
  int kind;
  int a, b; /* operand slots */
  int k;    /* variable index (VAR) or exponent (POWI) */
  double c; /* value (CONST) */
} tape_ins;

struct nh_tape {
  int nins, nout, nvars, nops;
  int nconst, nvarslot; /* slots [0, nconst) are constants, then nvarslot variable loads */
  tape_ins *ins;
  int *out_slot;
  double *cval; /* (nconst) the constants, copied in at each evaluation */
  int *var_k;   /* (nvarslot) the variable index loaded into slot nconst + j */
};

nh_tape *nh_tape_create(const nh_expr_pool *pool, int nout, const int *outputs) {
  int count = nh_expr_count(pool);
  if (nout < 0 || (nout > 0 && !outputs)) return NULL;
  for (int i = 0; i < nout; i++)
    if (!nh_expr_get(pool, outputs[i])) return NULL;
  int *slot = malloc(((size_t)count + 1) * sizeof *slot);  /* node id -> slot, -1 unmarked */
  int *stack = malloc(((size_t)count + 1) * sizeof *stack); /* each node pushed at most once */
  nh_tape *t = calloc(1, sizeof *t);
  if (!slot || !stack || !t) goto fail;
  /* mark the reachable nodes */
  for (int i = 0; i < count; i++) slot[i] = -1;
  int sp = 0;
  for (int i = 0; i < nout; i++)
    if (slot[outputs[i]] == -1) slot[outputs[i]] = -2, stack[sp++] = outputs[i];
  while (sp) {
    const nh_expr_node *n = nh_expr_get(pool, stack[--sp]);
    int ch[2] = {n->a, n->b};
    for (int j = 0; j < 2; j++)
      if (ch[j] >= 0 && slot[ch[j]] == -1) slot[ch[j]] = -2, stack[sp++] = ch[j];
  }
  /* number them: constants, then variable loads, then the operations in id (= topological)
   * order, so an evaluation copies the first two groups and runs only the third */
  int nins = 0;
  for (int pass = 0; pass < 3; pass++)
    for (int i = 0; i < count; i++) {
      if (slot[i] != -2) continue;
      int k = nh_expr_get(pool, i)->kind;
      if ((pass == 0 && k == NH_EX_CONST) || (pass == 1 && k == NH_EX_VAR) ||
          (pass == 2 && k != NH_EX_CONST && k != NH_EX_VAR))
        slot[i] = nins++;
    }
  t->ins = malloc(((size_t)nins + 1) * sizeof *t->ins);
  t->out_slot = malloc(((size_t)nout + 1) * sizeof *t->out_slot);
  if (!t->ins || !t->out_slot) goto fail;
  for (int i = 0; i < count; i++) {
    if (slot[i] < 0) continue;
    const nh_expr_node *n = nh_expr_get(pool, i);
    tape_ins *in = &t->ins[slot[i]];
    in->kind = n->kind;
    in->a = n->a >= 0 ? slot[n->a] : 0;
    in->b = n->b >= 0 ? slot[n->b] : in->a;
    in->k = n->k;
    in->c = n->c;
    if (n->kind == NH_EX_VAR && n->k + 1 > t->nvars) t->nvars = n->k + 1;
    if (n->kind != NH_EX_VAR && n->kind != NH_EX_CONST) t->nops++;
  }
  for (int i = 0; i < nout; i++) t->out_slot[i] = slot[outputs[i]];
  t->nins = nins;
  for (int i = 0; i < nins; i++) {
    if (t->ins[i].kind == NH_EX_CONST) t->nconst++;
    else if (t->ins[i].kind == NH_EX_VAR) t->nvarslot++;
  }
  t->cval = malloc(sizeof(double) * (size_t)(t->nconst + 1));
  t->var_k = malloc(sizeof(int) * (size_t)(t->nvarslot + 1));
  if (!t->cval || !t->var_k) goto fail;
  for (int i = 0; i < t->nconst; i++) t->cval[i] = t->ins[i].c;
  for (int j = 0; j < t->nvarslot; j++) t->var_k[j] = t->ins[t->nconst + j].k;
  t->nout = nout;
  free(slot);
  free(stack);
  return t;
fail:
  free(slot);
  free(stack);
  nh_tape_destroy(t);
  return NULL;
}

void nh_tape_destroy(nh_tape *tape) {
  if (!tape) return;
  free(tape->ins);
  free(tape->out_slot);
  free(tape->cval);
  free(tape->var_k);
  free(tape);
}

int nh_tape_nslots(const nh_tape *tape) { return tape->nins; }
int nh_tape_noutputs(const nh_tape *tape) { return tape->nout; }
int nh_tape_nvars(const nh_tape *tape) { return tape->nvars; }
int nh_tape_op_count(const nh_tape *tape) { return tape->nops; }

void nh_tape_ins(const nh_tape *tape, int i, int *kind, int *a, int *b, int *k, double *c) {
  const tape_ins *in = &tape->ins[i];
  *kind = in->kind, *a = in->a, *b = in->b, *k = in->k, *c = in->c;
}
int nh_tape_out_slot(const nh_tape *tape, int i) { return tape->out_slot[i]; }

void nh_tape_eval(const nh_tape *tape, const double *vars, double *slots, double *outputs) {
  /* locals and restrict: the stores to slots cannot change the tape, so nothing is reloaded */
  const tape_ins *restrict in = tape->ins;
  const int nc = tape->nconst, nv = tape->nvarslot, first = nc + nv, nins = tape->nins;
  const int nout = tape->nout;
  const double *restrict cval = tape->cval;
  const int *restrict vk = tape->var_k, *restrict os = tape->out_slot;
  double *restrict sl = slots;
  /* constants and variables in, then one pass over the operations */
  for (int i = 0; i < nc; i++) sl[i] = cval[i];
  for (int j = 0; j < nv; j++) sl[nc + j] = vars[vk[j]];
  for (int i = first; i < nins; i++) {
    const tape_ins *p = &in[i];
    switch (p->kind) { /* the common operations inline, the rest through nh_expr_op */
    case NH_EX_ADD: sl[i] = sl[p->a] + sl[p->b]; break;
    case NH_EX_SUB: sl[i] = sl[p->a] - sl[p->b]; break;
    case NH_EX_MUL: sl[i] = sl[p->a] * sl[p->b]; break;
    case NH_EX_NEG: sl[i] = -sl[p->a]; break;
    case NH_EX_POWI: /* squares are the common case; x*x is what binary powering computes */
      sl[i] = p->k == 2 ? sl[p->a] * sl[p->a] : nh_expr_powi_eval(sl[p->a], p->k);
      break;
    default: sl[i] = nh_expr_op(p->kind, sl[p->a], sl[p->b], p->k); break;
    }
  }
  for (int i = 0; i < nout; i++) outputs[i] = sl[os[i]];
}
