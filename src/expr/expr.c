/* expr.c - the expression DAG: arena, hash-consing, simplifying builders, symbolic
 * differentiation, reference evaluation and printing (see expr.h).
 *
 * The arena is one growable array of nh_expr_node. Hash-consing uses an open-addressing
 * table of node ids keyed on (kind, a, b, k, bits of c); derivatives are memoised in a
 * second table keyed on (node, var). Both tables are kept at most half full.
 *
 * Printed grammar (what nh_expr_print emits and parse.c reads back):
 *   expr  := term (('+' | '-') term)*        left-associative
 *   term  := unary (('*' | '/') unary)*      left-associative
 *   unary := '-' unary | power
 *   power := atom ('^' unary)?               right-associative, tighter than unary minus
 *   atom  := number | name | name "'" | func '(' expr (',' expr)* ')' | '(' expr ')' */
#include "expr/expr.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct memo_entry {
  int node, var, res; /* node = -1: empty */
} memo_entry;

struct nh_expr_pool {
  nh_expr_node *nodes;
  int count, cap;
  int *table; /* hash-consing: node ids, -1 empty */
  size_t table_cap;
  memo_entry *memo; /* derivatives */
  size_t memo_cap, memo_count;
};

/* ---- pool ---------------------------------------------------------------------------- */

nh_expr_pool *nh_expr_pool_create(void) {
  nh_expr_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->cap = 64;
  p->table_cap = 128;
  p->nodes = malloc((size_t)p->cap * sizeof *p->nodes);
  p->table = malloc(p->table_cap * sizeof *p->table);
  if (!p->nodes || !p->table) {
    nh_expr_pool_destroy(p);
    return NULL;
  }
  for (size_t i = 0; i < p->table_cap; i++) p->table[i] = -1;
  return p;
}

void nh_expr_pool_destroy(nh_expr_pool *pool) {
  if (!pool) return;
  free(pool->nodes);
  free(pool->table);
  free(pool->memo);
  free(pool);
}

int nh_expr_count(const nh_expr_pool *pool) { return pool->count; }

const nh_expr_node *nh_expr_get(const nh_expr_pool *pool, int id) {
  return id >= 0 && id < pool->count ? &pool->nodes[id] : NULL;
}

/* ---- hash-consing -------------------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 33);
}

static uint64_t node_hash(const nh_expr_node *n) {
  uint64_t bits;
  memcpy(&bits, &n->c, sizeof bits);
  uint64_t h = mix(0, (uint64_t)n->kind);
  h = mix(h, (uint64_t)(uint32_t)n->a);
  h = mix(h, (uint64_t)(uint32_t)n->b);
  h = mix(h, (uint64_t)(uint32_t)n->k);
  return mix(h, bits);
}

static int node_equal(const nh_expr_node *x, const nh_expr_node *y) {
  return x->kind == y->kind && x->a == y->a && x->b == y->b && x->k == y->k &&
         memcmp(&x->c, &y->c, sizeof x->c) == 0;
}

/* double the hash table and reinsert every node */
static int table_grow(nh_expr_pool *p) {
  size_t cap = p->table_cap * 2;
  int *t = malloc(cap * sizeof *t);
  if (!t) return -1;
  for (size_t i = 0; i < cap; i++) t[i] = -1;
  for (int id = 0; id < p->count; id++) {
    size_t i = (size_t)node_hash(&p->nodes[id]) & (cap - 1);
    while (t[i] >= 0) i = (i + 1) & (cap - 1);
    t[i] = id;
  }
  free(p->table);
  p->table = t;
  p->table_cap = cap;
  return 0;
}

/* the id of node n, adding it when it is new */
static int intern(nh_expr_pool *p, nh_expr_node n) {
  size_t mask = p->table_cap - 1;
  size_t i = (size_t)node_hash(&n) & mask;
  for (; p->table[i] >= 0; i = (i + 1) & mask)
    if (node_equal(&p->nodes[p->table[i]], &n)) return p->table[i];
  if (p->count == INT32_MAX / 2) return -1;
  if (p->count == p->cap) {
    nh_expr_node *nodes = realloc(p->nodes, (size_t)p->cap * 2 * sizeof *nodes);
    if (!nodes) return -1;
    p->nodes = nodes;
    p->cap *= 2;
  }
  int id = p->count++;
  p->nodes[id] = n;
  p->table[i] = id;
  if ((size_t)p->count * 2 > p->table_cap && table_grow(p) != 0) {
    p->count--; /* keep the table consistent: forget the node */
    p->table[i] = -1;
    return -1;
  }
  return id;
}

static nh_expr_node blank(int kind) {
  nh_expr_node n = {kind, -1, -1, 0, 0.0};
  return n;
}

/* ---- builders ------------------------------------------------------------------------ */

int nh_expr_const(nh_expr_pool *pool, double c) {
  nh_expr_node n = blank(NH_EX_CONST);
  n.c = c;
  return intern(pool, n);
}

int nh_expr_var(nh_expr_pool *pool, int index) {
  if (index < 0) return -1;
  nh_expr_node n = blank(NH_EX_VAR);
  n.k = index;
  return intern(pool, n);
}

int nh_expr_is_const(const nh_expr_pool *pool, int e, double *value) {
  if (e < 0 || e >= pool->count || pool->nodes[e].kind != NH_EX_CONST) return 0;
  if (value) *value = pool->nodes[e].c;
  return 1;
}

static int valid(const nh_expr_pool *p, int id) { return id >= 0 && id < p->count; }
static int kind_of(const nh_expr_pool *p, int id) { return p->nodes[id].kind; }
static int is_value(const nh_expr_pool *p, int id, double v) {
  return kind_of(p, id) == NH_EX_CONST && p->nodes[id].c == v;
}

int nh_expr_unary(nh_expr_pool *pool, int kind, int a) {
  if (!valid(pool, a) || !nh_expr_kind_is_unary(kind) || kind == NH_EX_POWI) return -1;
  /* constant folding */
  if (kind_of(pool, a) == NH_EX_CONST)
    return nh_expr_const(pool, nh_expr_op(kind, pool->nodes[a].c, 0.0, 0));
  /* --x = x;  -(c*x) = (-c)*x */
  if (kind == NH_EX_NEG && kind_of(pool, a) == NH_EX_NEG) return pool->nodes[a].a;
  if (kind == NH_EX_NEG && kind_of(pool, a) == NH_EX_MUL && kind_of(pool, pool->nodes[a].a) == NH_EX_CONST)
    return nh_expr_mul(pool, nh_expr_const(pool, -pool->nodes[pool->nodes[a].a].c), pool->nodes[a].b);
  nh_expr_node n = blank(kind);
  n.a = a;
  return intern(pool, n);
}

int nh_expr_neg(nh_expr_pool *pool, int a) { return nh_expr_unary(pool, NH_EX_NEG, a); }

int nh_expr_powi(nh_expr_pool *pool, int a, int n) {
  if (!valid(pool, a)) return -1;
  if (n > NH_EXPR_POWI_MAX || n < -NH_EXPR_POWI_MAX) /* a general power */
    return nh_expr_pow(pool, a, nh_expr_const(pool, (double)n));
  if (n == 0) return nh_expr_const(pool, 1.0); /* x^0 = 1 */
  if (n == 1) return a;                        /* x^1 = x */
  if (kind_of(pool, a) == NH_EX_CONST)
    return nh_expr_const(pool, nh_expr_powi_eval(pool->nodes[a].c, n));
  if (is_value(pool, a, 1.0)) return a;
  nh_expr_node node = blank(NH_EX_POWI);
  node.a = a;
  node.k = n;
  return intern(pool, node);
}

int nh_expr_add(nh_expr_pool *pool, int a, int b) {
  if (!valid(pool, a) || !valid(pool, b)) return -1;
  if (kind_of(pool, a) == NH_EX_CONST && kind_of(pool, b) == NH_EX_CONST)
    return nh_expr_const(pool, pool->nodes[a].c + pool->nodes[b].c);
  if (is_value(pool, a, 0.0)) return b; /* 0 + x */
  if (is_value(pool, b, 0.0)) return a; /* x + 0 */
  /* x + (-y) = x - y, (-x) + y = y - x: exact in floating point */
  if (kind_of(pool, b) == NH_EX_NEG) return nh_expr_sub(pool, a, pool->nodes[b].a);
  if (kind_of(pool, a) == NH_EX_NEG) return nh_expr_sub(pool, b, pool->nodes[a].a);
  nh_expr_node n = blank(NH_EX_ADD);
  n.a = a < b ? a : b; /* canonical order */
  n.b = a < b ? b : a;
  return intern(pool, n);
}

int nh_expr_sub(nh_expr_pool *pool, int a, int b) {
  if (!valid(pool, a) || !valid(pool, b)) return -1;
  if (kind_of(pool, a) == NH_EX_CONST && kind_of(pool, b) == NH_EX_CONST)
    return nh_expr_const(pool, pool->nodes[a].c - pool->nodes[b].c);
  if (a == b) return nh_expr_const(pool, 0.0);      /* x - x */
  if (is_value(pool, b, 0.0)) return a;              /* x - 0 */
  if (is_value(pool, a, 0.0)) return nh_expr_neg(pool, b); /* 0 - x */
  if (kind_of(pool, b) == NH_EX_NEG) return nh_expr_add(pool, a, pool->nodes[b].a); /* x--y */
  nh_expr_node n = blank(NH_EX_SUB);
  n.a = a;
  n.b = b;
  return intern(pool, n);
}

/* a constant, a product with a constant factor (which products keep first, see below), or a
 * sum or difference of such terms (at most `depth` levels deep) */
static int const_factor_depth(const nh_expr_pool *p, int id, int depth) {
  int k = kind_of(p, id);
  if (k == NH_EX_CONST || (k == NH_EX_MUL && kind_of(p, p->nodes[id].a) == NH_EX_CONST)) return 1;
  if ((k == NH_EX_ADD || k == NH_EX_SUB) && depth > 0)
    return const_factor_depth(p, p->nodes[id].a, depth - 1) &&
           const_factor_depth(p, p->nodes[id].b, depth - 1);
  return 0;
}
static int const_factor(const nh_expr_pool *p, int id) { return const_factor_depth(p, id, 6); }

int nh_expr_mul(nh_expr_pool *pool, int a, int b) {
  if (!valid(pool, a) || !valid(pool, b)) return -1;
  if (kind_of(pool, a) == NH_EX_CONST && kind_of(pool, b) == NH_EX_CONST)
    return nh_expr_const(pool, pool->nodes[a].c * pool->nodes[b].c);
  if (is_value(pool, a, 0.0) || is_value(pool, b, 0.0)) return nh_expr_const(pool, 0.0);
  if (is_value(pool, a, 1.0)) return b;
  if (is_value(pool, b, 1.0)) return a;
  if (is_value(pool, a, -1.0)) return nh_expr_neg(pool, b);
  if (is_value(pool, b, -1.0)) return nh_expr_neg(pool, a);
  /* constant factors gather at the top of a product: c1*(c2*x) = (c1 c2)*x, c*(-x) = (-c)*x,
   * x*(c*y) = c*(x*y); and c*(c2*u + c3*w) = (c c2)*u + (c c3)*w when both terms carry a
   * constant factor. Derivatives produce such chains (1/2*(2*x) is x). */
  if (kind_of(pool, b) == NH_EX_CONST) {
    int t = a;
    a = b, b = t;
  }
  if (kind_of(pool, a) == NH_EX_CONST) {
    double c = pool->nodes[a].c;
    const nh_expr_node nb = pool->nodes[b];
    if (nb.kind == NH_EX_MUL && kind_of(pool, nb.a) == NH_EX_CONST)
      return nh_expr_mul(pool, nh_expr_const(pool, c * pool->nodes[nb.a].c), nb.b);
    if (nb.kind == NH_EX_NEG) return nh_expr_mul(pool, nh_expr_const(pool, -c), nb.a);
    if ((nb.kind == NH_EX_ADD || nb.kind == NH_EX_SUB) && const_factor(pool, nb.a) &&
        const_factor(pool, nb.b)) {
      int u = nh_expr_mul(pool, a, nb.a), w = nh_expr_mul(pool, a, nb.b);
      return nb.kind == NH_EX_ADD ? nh_expr_add(pool, u, w) : nh_expr_sub(pool, u, w);
    }
  } else {
    const nh_expr_node na = pool->nodes[a], nb = pool->nodes[b];
    /* x*(-y) = -(x*y), (-x)*y = -(x*y): the sign moves up to meet constant factors */
    if (nb.kind == NH_EX_NEG) return nh_expr_neg(pool, nh_expr_mul(pool, a, nb.a));
    if (na.kind == NH_EX_NEG) return nh_expr_neg(pool, nh_expr_mul(pool, na.a, b));
    if (nb.kind == NH_EX_MUL && kind_of(pool, nb.a) == NH_EX_CONST)
      return nh_expr_mul(pool, nb.a, nh_expr_mul(pool, a, nb.b));
    if (na.kind == NH_EX_MUL && kind_of(pool, na.a) == NH_EX_CONST)
      return nh_expr_mul(pool, na.a, nh_expr_mul(pool, na.b, b));
  }
  nh_expr_node n = blank(NH_EX_MUL);
  /* canonical order: a constant factor first (the rules above rely on it), else by id */
  int first = kind_of(pool, a) == NH_EX_CONST || (kind_of(pool, b) != NH_EX_CONST && a < b);
  n.a = first ? a : b;
  n.b = first ? b : a;
  return intern(pool, n);
}

int nh_expr_div(nh_expr_pool *pool, int a, int b) {
  if (!valid(pool, a) || !valid(pool, b)) return -1;
  if (kind_of(pool, a) == NH_EX_CONST && kind_of(pool, b) == NH_EX_CONST)
    return nh_expr_const(pool, pool->nodes[a].c / pool->nodes[b].c);
  if (is_value(pool, a, 0.0)) return nh_expr_const(pool, 0.0); /* 0 / x */
  if (is_value(pool, b, 1.0)) return a;                        /* x / 1 */
  nh_expr_node n = blank(NH_EX_DIV);
  n.a = a;
  n.b = b;
  return intern(pool, n);
}

int nh_expr_pow(nh_expr_pool *pool, int a, int b) {
  if (!valid(pool, a) || !valid(pool, b)) return -1;
  double e;
  if (nh_expr_is_const(pool, b, &e) && e == floor(e) && fabs(e) <= NH_EXPR_POWI_MAX)
    return nh_expr_powi(pool, a, (int)e); /* integer exponent (also x^0, x^1) */
  if (kind_of(pool, a) == NH_EX_CONST && kind_of(pool, b) == NH_EX_CONST)
    return nh_expr_const(pool, pow(pool->nodes[a].c, pool->nodes[b].c));
  if (is_value(pool, a, 1.0)) return a; /* 1^x = 1 */
  nh_expr_node n = blank(NH_EX_POW);
  n.a = a;
  n.b = b;
  return intern(pool, n);
}

static int atan2_make(nh_expr_pool *pool, int a, int b) {
  if (!valid(pool, a) || !valid(pool, b)) return -1;
  if (kind_of(pool, a) == NH_EX_CONST && kind_of(pool, b) == NH_EX_CONST)
    return nh_expr_const(pool, atan2(pool->nodes[a].c, pool->nodes[b].c));
  nh_expr_node n = blank(NH_EX_ATAN2);
  n.a = a;
  n.b = b;
  return intern(pool, n);
}

int nh_expr_make(nh_expr_pool *pool, int kind, int a, int b, int k) {
  switch (kind) {
  case NH_EX_ADD: return nh_expr_add(pool, a, b);
  case NH_EX_SUB: return nh_expr_sub(pool, a, b);
  case NH_EX_MUL: return nh_expr_mul(pool, a, b);
  case NH_EX_DIV: return nh_expr_div(pool, a, b);
  case NH_EX_POW: return nh_expr_pow(pool, a, b);
  case NH_EX_ATAN2: return atan2_make(pool, a, b);
  case NH_EX_POWI: return nh_expr_powi(pool, a, k);
  default: return nh_expr_unary(pool, kind, a);
  }
}

/* ---- differentiation ------------------------------------------------------------------ */

static size_t memo_slot(const nh_expr_pool *p, int node, int var) {
  uint64_t h = mix(mix(1, (uint64_t)(uint32_t)node), (uint64_t)(uint32_t)var);
  size_t mask = p->memo_cap - 1, i = (size_t)h & mask;
  while (p->memo[i].node >= 0 && !(p->memo[i].node == node && p->memo[i].var == var))
    i = (i + 1) & mask;
  return i;
}

/* remember d node / d var = res; -1 when out of memory */
static int memo_put(nh_expr_pool *p, int node, int var, int res) {
  if ((p->memo_count + 1) * 2 > p->memo_cap) {
    size_t cap = p->memo_cap ? p->memo_cap * 2 : 256;
    memo_entry *old = p->memo, *m = malloc(cap * sizeof *m);
    if (!m) return -1;
    for (size_t i = 0; i < cap; i++) m[i].node = -1;
    size_t old_cap = p->memo_cap;
    p->memo = m;
    p->memo_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
      if (old[i].node >= 0) p->memo[memo_slot(p, old[i].node, old[i].var)] = old[i];
    free(old);
  }
  size_t i = memo_slot(p, node, var);
  if (p->memo[i].node < 0) p->memo_count++;
  p->memo[i].node = node;
  p->memo[i].var = var;
  p->memo[i].res = res;
  return 0;
}

/* the derivative rule of one node, given the node's fields (copied: the arena may move) */
static int diff_rule(nh_expr_pool *p, int e, nh_expr_node n, int var) {
  int a = n.a, b = n.b;
  int da = a >= 0 ? nh_expr_diff(p, a, var) : -1;
  int db = b >= 0 ? nh_expr_diff(p, b, var) : -1;
  int one = nh_expr_const(p, 1.0);
  switch (n.kind) {
  case NH_EX_CONST: return nh_expr_const(p, 0.0);
  case NH_EX_VAR: return nh_expr_const(p, n.k == var ? 1.0 : 0.0);
  case NH_EX_ADD: return nh_expr_add(p, da, db);
  case NH_EX_SUB: return nh_expr_sub(p, da, db);
  case NH_EX_MUL: return nh_expr_add(p, nh_expr_mul(p, da, b), nh_expr_mul(p, a, db));
  case NH_EX_DIV: /* (a' - (a/b) b') / b */
    return nh_expr_div(p, nh_expr_sub(p, da, nh_expr_mul(p, e, db)), b);
  case NH_EX_POW:
    if (kind_of(p, b) == NH_EX_CONST) /* c a^(c-1) a' */
      return nh_expr_mul(
          p, nh_expr_mul(p, b, nh_expr_pow(p, a, nh_expr_const(p, p->nodes[b].c - 1.0))), da);
    /* a^b (b' log a + b a'/a) */
    return nh_expr_mul(p, e,
                       nh_expr_add(p, nh_expr_mul(p, db, nh_expr_unary(p, NH_EX_LOG, a)),
                                   nh_expr_div(p, nh_expr_mul(p, b, da), a)));
  case NH_EX_ATAN2: /* (x y' - y x') / (x^2 + y^2), y = a, x = b */
    return nh_expr_div(p, nh_expr_sub(p, nh_expr_mul(p, b, da), nh_expr_mul(p, a, db)),
                       nh_expr_add(p, nh_expr_powi(p, a, 2), nh_expr_powi(p, b, 2)));
  case NH_EX_NEG: return nh_expr_neg(p, da);
  case NH_EX_POWI: { /* k a^(k-1) a' */
    int k = nh_expr_const(p, (double)n.k);
    return nh_expr_mul(p, nh_expr_mul(p, k, nh_expr_powi(p, a, n.k - 1)), da);
  }
  case NH_EX_SIN: return nh_expr_mul(p, nh_expr_unary(p, NH_EX_COS, a), da);
  case NH_EX_COS: return nh_expr_neg(p, nh_expr_mul(p, nh_expr_unary(p, NH_EX_SIN, a), da));
  case NH_EX_TAN: /* (1 + tan^2) a' */
    return nh_expr_mul(p, nh_expr_add(p, one, nh_expr_powi(p, e, 2)), da);
  case NH_EX_ASIN: /* a' / sqrt(1 - a^2) */
  case NH_EX_ACOS: {
    int d = nh_expr_div(p, da,
                        nh_expr_unary(p, NH_EX_SQRT, nh_expr_sub(p, one, nh_expr_powi(p, a, 2))));
    return n.kind == NH_EX_ASIN ? d : nh_expr_neg(p, d);
  }
  case NH_EX_ATAN: return nh_expr_div(p, da, nh_expr_add(p, one, nh_expr_powi(p, a, 2)));
  case NH_EX_SINH: return nh_expr_mul(p, nh_expr_unary(p, NH_EX_COSH, a), da);
  case NH_EX_COSH: return nh_expr_mul(p, nh_expr_unary(p, NH_EX_SINH, a), da);
  case NH_EX_TANH: return nh_expr_mul(p, nh_expr_sub(p, one, nh_expr_powi(p, e, 2)), da);
  case NH_EX_EXP: return nh_expr_mul(p, e, da);
  case NH_EX_LOG: return nh_expr_div(p, da, a);
  case NH_EX_SQRT: return nh_expr_div(p, da, nh_expr_mul(p, nh_expr_const(p, 2.0), e));
  case NH_EX_ABS: return nh_expr_mul(p, nh_expr_unary(p, NH_EX_SIGN, a), da);
  case NH_EX_SIGN: return nh_expr_const(p, 0.0); /* almost everywhere */
  default: return -1;
  }
}

/* the memoised derivative of e, or -1 when not yet known */
static int memo_get(const nh_expr_pool *p, int e, int var) {
  if (!p->memo_cap) return -1;
  size_t i = memo_slot(p, e, var);
  return p->memo[i].node >= 0 ? p->memo[i].res : -1;
}

/* one node whose children are differentiated (leaves, memoised) */
static int diff_one(nh_expr_pool *pool, int e, int var) {
  nh_expr_node n = pool->nodes[e];
  /* leaves need no memo */
  if (n.kind == NH_EX_CONST) return nh_expr_const(pool, 0.0);
  if (n.kind == NH_EX_VAR) return nh_expr_const(pool, n.k == var ? 1.0 : 0.0);
  int r = memo_get(pool, e, var);
  if (r >= 0) return r;
  r = diff_rule(pool, e, n, var);
  if (r < 0 || memo_put(pool, e, var, r) != 0) return -1;
  return r;
}

/* Without recursion over the DAG depth: the operator nodes below e whose derivative is not
 * memoised are collected with an explicit stack and differentiated in increasing id order,
 * children first, so diff_rule's calls on children only hit leaves or the memo. */
int nh_expr_diff(nh_expr_pool *pool, int e, int var) {
  if (!valid(pool, e) || var < 0) return -1;
  int kind = pool->nodes[e].kind;
  if (kind == NH_EX_CONST || kind == NH_EX_VAR) return diff_one(pool, e, var);
  int r = memo_get(pool, e, var);
  if (r >= 0) return r;
  unsigned char *todo = calloc((size_t)e + 1, 1);
  int *stack = malloc(((size_t)e + 1) * sizeof *stack);
  if (!todo || !stack) {
    free(todo);
    free(stack);
    return -1;
  }
  int sp = 0;
  todo[e] = 1;
  stack[sp++] = e;
  while (sp) {
    const nh_expr_node *n = &pool->nodes[stack[--sp]];
    int ch[2] = {n->a, n->b};
    for (int j = 0; j < 2; j++) {
      int c = ch[j];
      if (c < 0 || todo[c]) continue;
      int ck = pool->nodes[c].kind;
      if (ck == NH_EX_CONST || ck == NH_EX_VAR || memo_get(pool, c, var) >= 0) continue;
      todo[c] = 1;
      stack[sp++] = c;
    }
  }
  free(stack);
  for (int i = 0; i <= e && r != -2; i++)
    if (todo[i] && (r = diff_one(pool, i, var)) < 0) r = -2;
  free(todo);
  return r < 0 ? -1 : r;
}

/* ---- evaluation and counting ---------------------------------------------------------- */

double nh_expr_eval(const nh_expr_pool *pool, int e, const double *vars) {
  if (!valid(pool, e)) return NAN;
  const nh_expr_node *n = &pool->nodes[e];
  switch (n->kind) {
  case NH_EX_CONST: return n->c;
  case NH_EX_VAR: return vars[n->k];
  default: {
    double a = nh_expr_eval(pool, n->a, vars);
    double b = n->b >= 0 ? nh_expr_eval(pool, n->b, vars) : 0.0;
    return nh_expr_op(n->kind, a, b, n->k);
  }
  }
}

int nh_expr_uses_vars(const nh_expr_pool *pool, int e, int lo, int hi) {
  if (!valid(pool, e)) return -1;
  unsigned char *seen = calloc((size_t)e + 1, 1);
  int *stack = malloc(((size_t)e + 1) * sizeof *stack);
  int found = 0, sp = 0;
  if (!seen || !stack) found = -1;
  /* depth-first walk over the DAG, each node once */
  if (found == 0) {
    seen[e] = 1;
    stack[sp++] = e;
  }
  while (sp && !found) {
    const nh_expr_node *n = &pool->nodes[stack[--sp]];
    if (n->kind == NH_EX_VAR && n->k >= lo && n->k < hi) found = 1;
    int ch[2] = {n->a, n->b};
    for (int j = 0; j < 2; j++)
      if (ch[j] >= 0 && !seen[ch[j]]) seen[ch[j]] = 1, stack[sp++] = ch[j];
  }
  free(seen);
  free(stack);
  return found;
}

long nh_expr_tree_ops(const nh_expr_pool *pool, int e) {
  if (!valid(pool, e)) return 0;
  const nh_expr_node *n = &pool->nodes[e];
  if (n->kind == NH_EX_CONST || n->kind == NH_EX_VAR) return 0;
  return 1 + nh_expr_tree_ops(pool, n->a) + (n->b >= 0 ? nh_expr_tree_ops(pool, n->b) : 0);
}

/* ---- function table ------------------------------------------------------------------ */

static const struct {
  const char *name;
  int kind, arity;
} funcs[] = {
    {"sin", NH_EX_SIN, 1},   {"cos", NH_EX_COS, 1},   {"tan", NH_EX_TAN, 1},
    {"asin", NH_EX_ASIN, 1}, {"acos", NH_EX_ACOS, 1}, {"atan", NH_EX_ATAN, 1},
    {"atan2", NH_EX_ATAN2, 2}, {"sinh", NH_EX_SINH, 1}, {"cosh", NH_EX_COSH, 1},
    {"tanh", NH_EX_TANH, 1}, {"exp", NH_EX_EXP, 1},   {"log", NH_EX_LOG, 1},
    {"sqrt", NH_EX_SQRT, 1}, {"abs", NH_EX_ABS, 1},
};

int nh_expr_func_find(const char *name, size_t len, int *arity) {
  for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
    if (strlen(funcs[i].name) == len && memcmp(funcs[i].name, name, len) == 0) {
      if (arity) *arity = funcs[i].arity;
      return funcs[i].kind;
    }
  return -1;
}

const char *nh_expr_kind_name(int kind) {
  static const char *const ops[] = {"const", "var", "+", "-", "*", "/", "^"};
  if (kind >= NH_EX_CONST && kind <= NH_EX_POW) return ops[kind];
  if (kind == NH_EX_NEG) return "-";
  if (kind == NH_EX_POWI) return "^";
  if (kind == NH_EX_SIGN) return "sign";
  for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
    if (funcs[i].kind == kind) return funcs[i].name;
  return "?";
}

/* ---- printing ------------------------------------------------------------------------ */

/* A DAG that shares subexpressions can print exponentially long (let a2 = a1*a1, ...), and
 * nest as deep as its chains: the text is cut, and ends in "...", after this many characters
 * or below this depth of nesting. */
#define PRINT_MAX_CHARS 65536
#define PRINT_MAX_DEPTH 2000

typedef struct out_buf {
  char *buf;
  size_t size, len;
  int depth, cut;
} out_buf;

static void put(out_buf *o, const char *s, size_t n) {
  for (size_t i = 0; i < n && !o->cut; i++, o->len++) {
    if (o->len >= PRINT_MAX_CHARS) {
      o->cut = 1;
      break;
    }
    if (o->len + 1 < o->size) o->buf[o->len] = s[i];
  }
}
static void puts_(out_buf *o, const char *s) { put(o, s, strlen(s)); }

/* precedence levels of printed forms: sum 1, product 2, unary minus 3, power 4, atom 5 */
static int level(const nh_expr_pool *p, int e) {
  const nh_expr_node *n = &p->nodes[e];
  switch (n->kind) {
  case NH_EX_CONST: return !isfinite(n->c) ? 5 : signbit(n->c) ? 3 : 5;
  case NH_EX_ADD:
  case NH_EX_SUB: return 1;
  case NH_EX_MUL:
  case NH_EX_DIV: return 2;
  case NH_EX_NEG: return 3;
  case NH_EX_POW:
  case NH_EX_POWI: return 4;
  default: return 5;
  }
}

static void print_node(const nh_expr_pool *p, int e, const char *const *names, out_buf *o);

/* print e, in parentheses when its level is below min */
static void print_at(const nh_expr_pool *p, int e, int min, const char *const *names,
                     out_buf *o) {
  int paren = level(p, e) < min;
  if (paren) puts_(o, "(");
  print_node(p, e, names, o);
  if (paren) puts_(o, ")");
}

/* the shortest %.*g form that reads back to the same double */
static void print_number(double c, out_buf *o) {
  char s[40];
  if (!isfinite(c)) { /* no literal: a quotient that folds back to it */
    puts_(o, isnan(c) ? "(0/0)" : c > 0 ? "(1/0)" : "(-1/0)");
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(s, sizeof s, "%.*g", prec, c);
    if (strtod(s, NULL) == c) break;
  }
  puts_(o, s);
}

static void print_node_at(const nh_expr_pool *p, int e, const char *const *names, out_buf *o);

static void print_node(const nh_expr_pool *p, int e, const char *const *names, out_buf *o) {
  if (o->cut) return;
  if (o->depth >= PRINT_MAX_DEPTH) {
    o->cut = 1;
    return;
  }
  o->depth++;
  print_node_at(p, e, names, o);
  o->depth--;
}

static void print_node_at(const nh_expr_pool *p, int e, const char *const *names, out_buf *o) {
  const nh_expr_node *n = &p->nodes[e];
  char s[32];
  switch (n->kind) {
  case NH_EX_CONST: print_number(n->c, o); return;
  case NH_EX_VAR:
    if (names) {
      puts_(o, names[n->k]);
    } else {
      snprintf(s, sizeof s, "v%d", n->k);
      puts_(o, s);
    }
    return;
  case NH_EX_ADD:
  case NH_EX_SUB: /* the right operand of a sum is a product or tighter: a - (b + c) */
    print_at(p, n->a, 1, names, o);
    puts_(o, n->kind == NH_EX_ADD ? " + " : " - ");
    print_at(p, n->b, 2, names, o);
    return;
  case NH_EX_MUL:
  case NH_EX_DIV:
    print_at(p, n->a, 2, names, o);
    puts_(o, n->kind == NH_EX_MUL ? "*" : "/");
    print_at(p, n->b, 3, names, o);
    return;
  case NH_EX_NEG: /* -(a*b) keeps its parentheses: it is a different node from (-a)*b */
    puts_(o, "-");
    print_at(p, n->a, 3, names, o);
    return;
  case NH_EX_POW:
    print_at(p, n->a, 5, names, o);
    puts_(o, "^");
    print_at(p, n->b, 3, names, o);
    return;
  case NH_EX_POWI:
    print_at(p, n->a, 5, names, o);
    snprintf(s, sizeof s, "^%d", n->k);
    puts_(o, s);
    return;
  case NH_EX_ATAN2:
    puts_(o, "atan2(");
    print_at(p, n->a, 0, names, o);
    puts_(o, ", ");
    print_at(p, n->b, 0, names, o);
    puts_(o, ")");
    return;
  default:
    puts_(o, nh_expr_kind_name(n->kind));
    puts_(o, "(");
    print_at(p, n->a, 0, names, o);
    puts_(o, ")");
    return;
  }
}

size_t nh_expr_print(const nh_expr_pool *pool, int e, const char *const *names, char *buf,
                     size_t size) {
  out_buf o = {buf, size, 0, 0, 0};
  if (!valid(pool, e))
    puts_(&o, "<invalid>");
  else
    print_node(pool, e, names, &o);
  for (const char *d = "..."; o.cut && *d; d++, o.len++) /* past the cut */
    if (o.len + 1 < size) buf[o.len] = *d;
  if (size) buf[o.len < size ? o.len : size - 1] = '\0';
  return o.len;
}
