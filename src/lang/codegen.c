/* codegen.c - C for a model file's evaluators, compiled by the system compiler and loaded.
 *
 * Each evaluator group (mf.h) is compiled to a tape first; the tape's instructions become
 * one C statement each ("const double sK = sA * sB;"), in the tape's order, calling the same
 * functions (the C library's, and the same binary powering for integer powers), so the
 * compiled code gives the tape's numbers. Constants are written as hexadecimal floats (exact).
 * The code grows with the structure: groups only an absent evaluator reads are not emitted,
 * the derivative tensors store their structural non-zeros at their places after clearing the
 * output, mostly-zero groups likewise, and many constant outputs come from a table.
 *
 * The source is hashed (FNV-1a, 64 bits, with the compiler and its flags); the shared object
 * nholo-HASH.so in the cache directory is reused when present, else compiled to a temporary
 * name and renamed into place (atomic, so concurrent loads are safe). The compiler's output
 * goes to nholo-HASH.log beside it. The compiler runs within a budget of time and memory
 * (nh_load_opts.cc_time_limit, cc_memory_limit; codegen_cc.c); a model past it is recorded
 * in nholo-HASH.budget. Nothing here prints. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang/mf.h"
#include "expr/tape.h"
#include "expr/text.h"
#include "base/msg.h"
#include "nholo/status.h"

/* flags of the compiled evaluators: optimised, IEEE semantics kept (no contraction) */
static const char *const cc_flags[] = {"-std=c99", "-O2", "-fPIC", "-shared", "-ffp-contract=off",
                                       "-w"};
#define N_CC_FLAGS (sizeof cc_flags / sizeof cc_flags[0])

/* ---- emission ------------------------------------------------------------------------------- */

static const char *c_func(int kind) {
  switch (kind) {
  case NH_EX_POW: return "pow";
  case NH_EX_ATAN2: return "atan2";
  case NH_EX_SIN: return "sin";
  case NH_EX_COS: return "cos";
  case NH_EX_TAN: return "tan";
  case NH_EX_ASIN: return "asin";
  case NH_EX_ACOS: return "acos";
  case NH_EX_ATAN: return "atan";
  case NH_EX_SINH: return "sinh";
  case NH_EX_COSH: return "cosh";
  case NH_EX_TANH: return "tanh";
  case NH_EX_EXP: return "exp";
  case NH_EX_LOG: return "log";
  case NH_EX_SQRT: return "sqrt";
  case NH_EX_ABS: return "fabs";
  default: return NULL;
  }
}

static void emit_const(nh_text *b, double c) {
  if (isnan(c)) nh_text_printf(b, "NAN");
  else if (isinf(c)) nh_text_printf(b, c > 0 ? "INFINITY" : "(-INFINITY)");
  else nh_text_printf(b, "%a", c);
}

/* output i of t is the constant +0.0 (a structural zero: the same bits at every argument) */
static int out_is_zero(const nh_tape *t, int i) {
  int kind, a, bb, k;
  double c;
  nh_tape_ins(t, nh_tape_out_slot(t, i), &kind, &a, &bb, &k, &c);
  return kind == NH_EX_CONST && c == 0.0 && !signbit(c);
}

/* a dense group with at least this many structural zeros clears its output with memset and
 * stores only the rest (smaller groups store every entry) */
#define MF_MEMSET_ZEROS 64
/* a group with at least this many constant outputs (other than +0) stores them from a table
 * in a loop: thousands of separate stores cost the compiler more than linear time (its
 * dead-store and alias analyses), while straight-line arithmetic costs it linear time */
#define MF_TABLE_MIN 64

/* instruction i of t as C: "const double sK = ...;" */
static int emit_ins(nh_text *b, const nh_tape *t, int i) {
  int kind, a, bb, k;
  double c;
  nh_tape_ins(t, i, &kind, &a, &bb, &k, &c);
  nh_text_printf(b, "  const double s%d = ", i);
  const char *fn = c_func(kind);
  switch (kind) {
  case NH_EX_CONST: emit_const(b, c); break;
  case NH_EX_VAR: nh_text_printf(b, "x[%d]", k); break;
  case NH_EX_ADD: nh_text_printf(b, "s%d + s%d", a, bb); break;
  case NH_EX_SUB: nh_text_printf(b, "s%d - s%d", a, bb); break;
  case NH_EX_MUL: nh_text_printf(b, "s%d * s%d", a, bb); break;
  case NH_EX_DIV: nh_text_printf(b, "s%d / s%d", a, bb); break;
  case NH_EX_NEG: nh_text_printf(b, "-s%d", a); break;
  case NH_EX_POWI: nh_text_printf(b, "nh_powi(s%d, %d)", a, k); break;
  case NH_EX_SIGN: nh_text_printf(b, "(double)((s%d > 0.0) - (s%d < 0.0))", a, a); break;
  default:
    if (!fn) return NH_ERR_UNSUPPORTED;
    if (nh_expr_kind_is_binary(kind)) nh_text_printf(b, "%s(s%d, s%d)", fn, a, bb);
    else nh_text_printf(b, "%s(s%d)", fn, a);
  }
  nh_text_printf(b, ";\n");
  return 0;
}

/* output i of t is a constant other than +0 (*c: its value) */
static int out_const(const nh_tape *t, int i, double *c) {
  int kind, a, bb, k;
  nh_tape_ins(t, nh_tape_out_slot(t, i), &kind, &a, &bb, &k, c);
  return kind == NH_EX_CONST && !(*c == 0.0 && !signbit(*c));
}

/* the constant outputs into o (the first split; index: a sparse group's places) from a table,
 * when there are MF_TABLE_MIN of them; 1 when emitted */
static int emit_const_table(nh_text *b, const nh_tape *t, int split, const int *index) {
  int nc = 0;
  double c;
  for (int i = 0; i < split; i++) nc += out_const(t, i, &c);
  if (nc < MF_TABLE_MIN) return 0;
  nh_text_printf(b, "  static const int ci[%d] = {", nc);
  for (int i = 0, k = 0; i < split; i++)
    if (out_const(t, i, &c)) nh_text_printf(b, "%s%d", !k ? "\n    " : k % 16 ? ", " : ",\n    ", index ? index[i] : i), k++;
  nh_text_printf(b, "};\n  static const double cv[%d] = {", nc);
  for (int i = 0, k = 0; i < split; i++)
    if (out_const(t, i, &c)) nh_text_printf(b, "%s", !k ? "\n    " : k % 8 ? ", " : ",\n    "), emit_const(b, c), k++;
  nh_text_printf(b, "};\n  for (int k = 0; k < %d; k++) o[ci[k]] = cv[k];\n", nc);
  return 1;
}

/* static int NAME(x, o, o2): outputs [0, split) into o, the rest into o2; a sparse group's
 * outputs at their places of index (the rest zero). With sparse_fill, the code is NAME_s,
 * which skips the stores of structural zeros, and NAME stores those and calls it. */
static int emit_group(nh_text *b, const mf *m, int ev, int split, int sparse_fill, int *ids) {
  int n = mf_group_size(m, ev);
  const int *index = mf_group_index(m, ev);
  const long dense = mf_group_dense(m, ev);
  const char *sym = mf_group_symbol(ev);
  if (!mf_group_used(m, ev) || (n == 0 && !index)) return 0;
  nh_tape *t = NULL;
  int nz = 0;
  if (n > 0) {
    mf_group_outputs(m, ev, ids);
    if (!(t = nh_tape_create(m->pool, n, ids))) return NH_ERR_NOMEM;
  }
  for (int i = 0; i < n && !index; i++) nz += out_is_zero(t, i);
  int nzo = 0; /* the structural zeros a sparse fill leaves out: those of o (o2 is written whole) */
  for (int i = 0; i < split && i < n && sparse_fill; i++) nzo += out_is_zero(t, i);
  const int clear = index || (!sparse_fill && nz >= MF_MEMSET_ZEROS); /* memset, then the non-zeros */
  nh_text_printf(b, "\nstatic int %s%s(const double *restrict x, double *restrict o, double *restrict o2) {\n"
             "  (void)x, (void)o2;\n", sym, sparse_fill ? "_s" : "");
  if (index && dense > 0) nh_text_printf(b, "  nh_zero(o, sizeof(double) * %ld);\n", dense);
  else if (clear) {
    if (split > 0) nh_text_printf(b, "  nh_zero(o, sizeof(double) * %d);\n", split);
    if (n > split) nh_text_printf(b, "  nh_zero(o2, sizeof(double) * %d);\n", n - split);
  }
  for (int i = 0; t && i < nh_tape_nslots(t); i++)
    if (emit_ins(b, t, i)) {
      nh_tape_destroy(t);
      return NH_ERR_UNSUPPORTED;
    }
  double c;
  const int table = t && emit_const_table(b, t, index ? n : split, index);
  for (int i = 0; i < n; i++) {
    if (((sparse_fill && i < split) || clear) && out_is_zero(t, i)) continue;
    if (table && (index || i < split) && out_const(t, i, &c)) continue;
    if (index) nh_text_printf(b, "  o[%d] = s%d;\n", index[i], nh_tape_out_slot(t, i));
    else if (i < split) nh_text_printf(b, "  o[%d] = s%d;\n", i, nh_tape_out_slot(t, i));
    else nh_text_printf(b, "  o2[%d] = s%d;\n", i - split, nh_tape_out_slot(t, i));
  }
  nh_text_printf(b, "  return 0;\n}\n");
  if (sparse_fill) { /* the dense form: the structural zeros, then the rest */
    nh_text_printf(b, "\nstatic int %s(const double *restrict x, double *restrict o, double *restrict o2) {\n", sym);
    if (nzo >= MF_MEMSET_ZEROS) nh_text_printf(b, "  nh_zero(o, sizeof(double) * %d);\n", split);
    for (int i = 0; i < split && i < n && nzo < MF_MEMSET_ZEROS; i++)
      if (out_is_zero(t, i)) nh_text_printf(b, "  o[%d] = 0.0;\n", i);
    nh_text_printf(b, "  return %s_s(x, o, o2);\n}\n", sym);
  }
  nh_tape_destroy(t);
  return 0;
}

/* the exported evaluators (signatures of nholo/model.h), dispatching to the groups as the
 * tape evaluators of evaluators.c do; each named MF_SYMBOL(its field of nh_model_def) */
static void emit_evaluators(nh_text *b, const mf *m) {
  const int nq = m->nq;
  /* pack copies element by element: a vector load of q or v, written by the caller's scalar
   * stores just before, would wait for them (no store forwarding: a 1.16x stall on the sleigh) */
  nh_text_printf(b, "\n#define NQ %d\n"
             "#if defined(__GNUC__) && !defined(__clang__)\n"
             "__attribute__((optimize(\"no-tree-vectorize\", \"no-tree-slp-vectorize\")))\n"
             "#endif\n"
             "static void pack(const double *q, const double *v, double t, double *x) {\n"
             "  for (int i = 0; i < NQ; i++) x[i] = q[i], x[NQ + i] = v ? v[i] : 0.0;\n"
             "  x[2 * NQ] = t;\n}\n", nq);
  if (m->nmon && m->mon_lambda) /* at (t, x, lambda): the caller passes lambda as u */
    nh_text_printf(b, "int " MF_SYMBOL(monitor) "(double t, const double *x, double *o, void *u) {\n"
               "  double xt[2 * NQ + 1 + %d];\n  pack(x, x + NQ, t, xt);\n"
               "  for (int k = 0; k < %d; k++) xt[2 * NQ + 1 + k] = ((const double *)u)[k];\n"
               "  return nh_mf_mon(xt, o, 0);\n}\n", m->nc, m->nc);
  else if (m->nmon) /* the monitors at (t, x): x = (q, v), or an almost-Poisson state */
    nh_text_printf(b, "int " MF_SYMBOL(monitor) "(double t, const double *x, double *o, void *u) {\n"
               "  double xt[2 * NQ + 1];\n  (void)u;\n  pack(x, %s, t, xt);\n  return nh_mf_mon(xt, o, 0);\n}\n",
               m->poisson ? "0" : "x + NQ");
  if (m->ngap) /* the gaps (of q, or of an almost-Poisson state) */
    nh_text_printf(b, "int " MF_SYMBOL(gap) "(const double *q, double *g, double *dg, void *u) {\n  (void)u;\n"
               "  if (g && dg) return nh_mf_gdg(q, g, dg);\n"
               "  if (g) return nh_mf_g(q, g, 0);\n"
               "  return dg ? nh_mf_dg(q, dg, 0) : 0;\n}\n");
  if (m->poisson) { /* H and grad H, Pi, the Hessian, T = d(Pi g)/dx */
    nh_text_printf(b, "int " MF_SYMBOL(hamiltonian) "(const double *x, double *H, double *dH, void *u) {\n  (void)u;\n"
               "  if (H && dH) return nh_mf_hdh(x, H, dH);\n"
               "  if (H) return nh_mf_ham(x, H, 0);\n"
               "  return dH ? nh_mf_dh(x, dH, 0) : 0;\n}\n");
    nh_text_printf(b, "int " MF_SYMBOL(poisson) "(const double *x, double *o, void *u) {\n  (void)u;\n  return nh_mf_pi(x, o, 0);\n}\n");
    nh_text_printf(b, "int " MF_SYMBOL(hamiltonian_hess) "(const double *x, double *o, void *u) {\n  (void)u;\n  return nh_mf_hs(x, o, 0);\n}\n");
    nh_text_printf(b, "int " MF_SYMBOL(poisson_jac) "(const double *x, const double *g, double *o, void *u) {\n"
               "  double xg[2 * NQ + 1];\n  (void)u;\n  pack(x, g, 0.0, xg);\n  return nh_mf_pt(xg, o, 0);\n}\n");
    /* the sparse-fill variants (structural zeros unwritten) */
    nh_text_printf(b, "int " MF_SYMBOL(poisson_sparse) "(const double *x, double *o, void *u) {\n  (void)u;\n  return nh_mf_pi_s(x, o, 0);\n}\n");
    nh_text_printf(b, "int " MF_SYMBOL(hamiltonian_hess_sparse) "(const double *x, double *o, void *u) {\n  (void)u;\n  return nh_mf_hs_s(x, o, 0);\n}\n");
    nh_text_printf(b, "int " MF_SYMBOL(poisson_jac_sparse) "(const double *x, const double *g, double *o, void *u) {\n"
               "  double xg[2 * NQ + 1];\n  (void)u;\n  pack(x, g, 0.0, xg);\n  return nh_mf_pt_s(xg, o, 0);\n}\n");
    return;
  }
  nh_text_printf(b, "int " MF_SYMBOL(mass) "(const double *q, double *M, void *u) {\n"
             "  (void)u;\n  return nh_mf_mass(q, M, 0);\n}\n");
  nh_text_printf(b, "int " MF_SYMBOL(mass_sparse) "(const double *q, double *M, void *u) {\n"
             "  (void)u;\n  return nh_mf_mass_s(q, M, 0);\n}\n");
  if (mf_provides(m, MF_FN_potential))
    nh_text_printf(b, "int " MF_SYMBOL(potential) "(const double *q, double *V, double *dV, void *u) {\n  (void)u;\n"
               "  if (V && dV) return nh_mf_vdv(q, V, dV);\n"
               "  if (V) return nh_mf_v(q, V, 0);\n"
               "  return dV ? nh_mf_dv(q, dV, 0) : 0;\n}\n");
  if (mf_provides(m, MF_FN_coriolis))
    nh_text_printf(b, "int " MF_SYMBOL(coriolis) "(const double *q, const double *v, double *c, void *u) {\n"
               "  double x[2 * NQ + 1];\n  (void)u;\n  pack(q, v, 0.0, x);\n  return nh_mf_cor(x, c, 0);\n}\n");
  if (!mf_provides(m, MF_FN_force)) goto derivs;
  nh_text_printf(b, "int " MF_SYMBOL(force) "(double t, const double *q, const double *v, double *f, void *u) {\n"
             "  double x[2 * NQ + 1];\n  (void)u;\n  pack(q, v, t, x);\n  return nh_mf_force(x, f, 0);\n}\n");
  nh_text_printf(b, "int " MF_SYMBOL(force_jac) "(double t, const double *q, const double *v, double *dq, double *dv, void *u) {\n"
             "  double x[2 * NQ + 1];\n  (void)u;\n  pack(q, v, t, x);\n"
             "  if (dq) nh_mf_dfdq(x, dq, 0);\n  if (dv) nh_mf_dfdv(x, dv, 0);\n  return 0;\n}\n");
derivs:
  nh_text_printf(b, "int " MF_SYMBOL(mass_deriv) "(const double *q, double *o, void *u) {\n  (void)u;\n  return nh_mf_dm(q, o, 0);\n}\n");
  nh_text_printf(b, "int " MF_SYMBOL(potential_hess) "(const double *q, double *o, void *u) {\n  (void)u;\n  return nh_mf_h(q, o, 0);\n}\n");
  if (m->has_d2M)
    nh_text_printf(b, "int " MF_SYMBOL(mass_deriv2) "(const double *q, double *o, void *u) {\n  (void)u;\n  return nh_mf_d2m(q, o, 0);\n}\n");
  if (m->nc) {
    nh_text_printf(b, "int " MF_SYMBOL(constraint) "(const double *q, const double *v, double *A, double *Adv, void *u) {\n"
               "  double x[2 * NQ + 1];\n  (void)u;\n"
               "  if (!Adv) return A ? nh_mf_a(q, A, 0) : 0;\n"
               "  pack(q, v, 0.0, x);\n"
               "  return A ? nh_mf_aadv(x, A, Adv) : nh_mf_adv(x, Adv, 0);\n}\n");
    nh_text_printf(b, "int " MF_SYMBOL(constraint_sparse) "(const double *q, const double *v, double *A, double *Adv, void *u) {\n"
               "  double x[2 * NQ + 1];\n  (void)u;\n"
               "  if (!Adv) return A ? nh_mf_a_s(q, A, 0) : 0;\n"
               "  pack(q, v, 0.0, x);\n"
               "  return A ? nh_mf_aadv_s(x, A, Adv) : nh_mf_adv(x, Adv, 0);\n}\n");
    nh_text_printf(b, "int " MF_SYMBOL(constraint_deriv) "(const double *q, double *o, void *u) {\n  (void)u;\n  return nh_mf_da(q, o, 0);\n}\n");
  }
  if (m->phi)
    nh_text_printf(b, "int " MF_SYMBOL(holonomic) "(const double *q, double *o, void *u) {\n  (void)u;\n  return nh_mf_phi(q, o, 0);\n}\n");
}

char *mf_codegen_source(const mf *m) {
  nh_text b = {NULL, 0, 0, 0};
  nh_text_printf(&b, "/* generated by nholo from model '%s' (%d coordinates); do not edit */\n"
              "#include <math.h>\n#include <string.h>\n\n"
              "/* x^n by binary powering: the same operations as the library's tapes */\n"
              "static double nh_powi(double x, int n) {\n"
              "  unsigned m = n < 0 ? 0u - (unsigned)n : (unsigned)n;\n"
              "  double r = 1.0, p = x;\n"
              "  while (m) {\n"
              "    if (m & 1u) r *= p;\n"
              "    m >>= 1;\n"
              "    if (m) p *= p;\n"
              "  }\n"
              "  return n < 0 ? 1.0 / r : r;\n"
              "}\n"
              "/* memset through a pointer the compiler cannot see through: its dead-store analysis\n"
              " * of one memset against thousands of stores costs it more than linear time */\n"
              "static void *(*const volatile nh_zero_fn)(void *, int, size_t) = memset;\n"
              "static void nh_zero(void *o, size_t n) { nh_zero_fn(o, 0, n); }\n"
              , m->name, m->nq);  int cap = 1;
  for (int ev = 0; ev < MF_EV_COUNT; ev++)
    if (mf_group_size(m, ev) > cap) cap = mf_group_size(m, ev);
  int *ids = malloc(sizeof(int) * (size_t)cap);
  int rc = ids ? 0 : NH_ERR_NOMEM;
  for (int ev = 0; ev < MF_EV_COUNT && !rc; ev++) {
    /* the pair groups split their outputs between two arrays */
    int split = ev == MF_EV_VDV || ev == MF_EV_HDH ? 1
                : ev == MF_EV_AADV                 ? m->nc * m->nq
                : ev == MF_EV_GDG                  ? m->ngap
                                                   : mf_group_size(m, ev);
    int sparse_fill = ev == MF_EV_PI || ev == MF_EV_HS || ev == MF_EV_PT ||
                      (!m->poisson && (ev == MF_EV_MASS || ev == MF_EV_A || ev == MF_EV_AADV));
    rc = emit_group(&b, m, ev, split, sparse_fill, ids);
  }
  free(ids);
  if (!rc) emit_evaluators(&b, m);
  if (!rc) mf_codegen_gni(&b, m);
  if (rc || b.nomem) {
    free(b.s);
    return NULL;
  }
  return b.s;
}

/* ---- cache, compiler, loader --------------------------------------------------------------- */

static uint64_t fnv1a(uint64_t h, const char *s) {
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return h;
}

/* mkdir -p */
static int make_dirs(const char *path) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static void cache_dir(const nh_load_opts *o, char *out, size_t size) {
  const char *env;
  if (o->cache_dir) snprintf(out, size, "%s", o->cache_dir);
  else if ((env = getenv("NHOLO_CACHE_DIR")) && *env) snprintf(out, size, "%s", env);
  else if ((env = getenv("XDG_CACHE_HOME")) && *env) snprintf(out, size, "%s/nholo", env);
  else if ((env = getenv("HOME")) && *env) snprintf(out, size, "%s/.cache/nholo", env);
  else snprintf(out, size, "/tmp/nholo-cache");
}

/* the record of a model whose compiler passed its budget ("time SECONDS PID" or "memory MIB
 * PID": the limit passed, the process that saw it): MF_CC_OVER_TIME or MF_CC_OVER_MEMORY with
 * the reason when the limits of o are no larger (said as remembered unless this process wrote
 * it: `check` loads twice), else 0 (compile) */
static int budget_recorded(const char *path, const nh_load_opts *o, char *why, size_t why_size) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char kind[16], where[4200] = "";
  double lim;
  long pid = 0;
  const int n = fscanf(f, "%15s %lf %ld", kind, &lim, &pid);
  fclose(f);
  if (n < 2) return 0;
  if (pid != (long)getpid()) snprintf(where, sizeof where, " on this model (remembered in %s)", path);
  if (strcmp(kind, "time") == 0 && o->cc_time_limit > 0.0 && o->cc_time_limit <= lim) {
    nh_set_msg(why, why_size, "the C compiler exceeded its time limit (%g s)%s", lim, where);
    return MF_CC_OVER_TIME;
  }
  if (strcmp(kind, "memory") == 0 && o->cc_memory_limit > 0.0 && o->cc_memory_limit <= lim) {
    nh_set_msg(why, why_size, "the C compiler exceeded its memory limit (%g MiB)%s", lim, where);
    return MF_CC_OVER_MEMORY;
  }
  return 0;
}

/* remember that the compiler passed a limit (written in work, renamed into place) */
static void budget_record(const char *path, const char *work, int over, const nh_load_opts *o) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s/budget", work);
  FILE *f = fopen(tmp, "w");
  if (!f) return;
  const int ok = fprintf(f, "%s %.17g %ld\n", over == MF_CC_OVER_TIME ? "time" : "memory",
                         over == MF_CC_OVER_TIME ? o->cc_time_limit : o->cc_memory_limit, (long)getpid()) > 0;
  if (fclose(f) == 0 && ok) rename(tmp, path);
}

/* remove the work directory of a compile and whatever is in it (the source, the object, the
 * compiler's temporaries after it was killed) */
static void remove_work(const char *work) {
  DIR *d = opendir(work);
  struct dirent *e;
  char path[4400];
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
      snprintf(path, sizeof path, "%s/%s", work, e->d_name);
      remove(path);
    }
  if (d) closedir(d);
  rmdir(work);
}

/* Compile src with cc into so (renamed into place), in a private work directory of dir that is
 * the compiler's TMPDIR and is removed afterwards, within o's budget (codegen_cc.c); the
 * compiler's output goes to the log nholo-HASH.log (removed when the compile was cut short).
 * NH_OK, or mf_cc_run's outcome with the reason in why; a budget passed is recorded. */
static int compile_model(const char *cc, const char *src, const char *dir, unsigned long long h, const char *so,
                         const nh_load_opts *o, char *why, size_t why_size) {
  char work[4096], csrc[4200], tmp_so[4200], log[4096], budget[4096];
  snprintf(work, sizeof work, "%s/nholo-%016llx.XXXXXX", dir, h);
  snprintf(log, sizeof log, "%s/nholo-%016llx.log", dir, h);
  snprintf(budget, sizeof budget, "%s/nholo-%016llx.budget", dir, h);
  if (!mkdtemp(work)) {
    nh_set_msg(why, why_size, "cannot create a work directory in %s (%s)", dir, strerror(errno));
    return NH_ERR_UNSUPPORTED;
  }
  snprintf(csrc, sizeof csrc, "%s/model.c", work);
  snprintf(tmp_so, sizeof tmp_so, "%s/model.so", work);
  FILE *f = fopen(csrc, "w");
  int written = f && fputs(src, f) >= 0;
  if (f && fclose(f) != 0) written = 0;
  int rc = NH_ERR_UNSUPPORTED;
  if (!written) {
    nh_set_msg(why, why_size, "cannot write %s", csrc);
  } else {
    const mf_cc_job job = {cc, cc_flags, (int)N_CC_FLAGS, csrc, tmp_so, log, work, o->cc_time_limit, o->cc_memory_limit,
                           o->cancel};
    rc = mf_cc_run(&job, why, why_size);
    if (rc == NH_OK && rename(tmp_so, so) != 0) {
      nh_set_msg(why, why_size, "cannot move the compiled model into %s", so);
      rc = NH_ERR_UNSUPPORTED;
    }
    if (rc == MF_CC_OVER_TIME || rc == MF_CC_OVER_MEMORY) budget_record(budget, work, rc, o);
    if (rc == MF_CC_OVER_TIME || rc == MF_CC_OVER_MEMORY || rc == NH_INTERRUPTED) remove(log);
  }
  remove_work(work);
  return rc;
}

/* *slot = the function named name in handle; -1 with a reason when it is missing */
static int lookup(void *handle, const char *name, void *slot, const char *so, char *why, size_t why_size) {
  void *sym = dlsym(handle, name);
  if (!sym) {
    nh_set_msg(why, why_size, "%s lacks %s (a stale cache file? remove it)", so, name);
    return -1;
  }
  /* POSIX: dlsym's object pointer converts to the function pointer it names */
  memcpy(slot, &sym, sizeof sym);
  return 0;
}

int mf_codegen_load(const mf *m, mf_fns *fns, void **dl, char *why, size_t why_size) {
  *dl = NULL;
  memset(fns, 0, sizeof *fns);
  const char *cc = m->opts->cc ? m->opts->cc : getenv("CC");
  if (!cc || !*cc) cc = "cc";
  char *src = mf_codegen_source(m);
  if (!src) {
    nh_set_msg(why, why_size, "out of memory generating C");
    return NH_ERR_UNSUPPORTED;
  }
  uint64_t h = fnv1a(0xcbf29ce484222325ULL, src);
  h = fnv1a(h, cc);
  for (size_t i = 0; i < N_CC_FLAGS; i++) h = fnv1a(h, cc_flags[i]);
  char dir[3072], so[4096];
  cache_dir(m->opts, dir, sizeof dir);
  snprintf(so, sizeof so, "%s/nholo-%016llx.so", dir, (unsigned long long)h);
  int rc = NH_ERR_UNSUPPORTED;
  if (access(so, R_OK) != 0) {
    char budget[4096];
    snprintf(budget, sizeof budget, "%s/nholo-%016llx.budget", dir, (unsigned long long)h);
    if (make_dirs(dir) != 0) {
      nh_set_msg(why, why_size, "cannot create the cache directory %s (%s)", dir, strerror(errno));
      goto done;
    }
    if ((rc = budget_recorded(budget, m->opts, why, why_size)) != 0 ||
        (rc = compile_model(cc, src, dir, (unsigned long long)h, so, m->opts, why, why_size)) != NH_OK)
      goto done;
    rc = NH_ERR_UNSUPPORTED;
  }
  void *handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *e = dlerror();
    nh_set_msg(why, why_size, "cannot load %s (%s)", so, e ? e : "dlopen failed");
    goto done;
  }
  /* every evaluator m provides, by its symbol (the list of nholo/evaluators.h) */
#define X(name, type, exact)                                                                 \
  if (mf_provides(m, MF_FN_##name) && lookup(handle, MF_SYMBOL(name), &fns->name, so, why, why_size)) \
    goto unload;
  NH_EVALUATOR_LIST(X)
#undef X
  *dl = handle;
  rc = NH_OK;
done:
  free(src);
  return rc;
unload:
  dlclose(handle);
  memset(fns, 0, sizeof *fns);
  goto done;
}

void mf_codegen_unload(void *dl) {
  if (dl) dlclose(dl);
}
