/* expr.h - expression DAG with hash-consing, simplification at construction and exact
 * symbolic differentiation; the engine under model files (issue 3). Private to the library.
 *
 * Nodes live in an nh_expr_pool (a growable arena, no global state) and are named by int
 * ids, never by pointers, so the pool may grow with realloc. Children always have smaller
 * ids than their parents, so increasing id order is a topological order.
 *
 * Every builder returns a node id >= 0, or -1 when memory ran out (or an argument was
 * invalid); a -1 child makes the builder return -1, so a chain of builds needs one check at
 * its end. Building the same node twice returns the same id; commutative operands (+ and *)
 * are ordered by id, so a+b and b+a are one node. Construction folds constants and removes
 * neutral elements: x+0, x-0, 0-x = -x, x-x = 0, x*1, x*0 = 0, x*(-1) = -x, x/1, 0/x = 0,
 * x^1, x^0 = 1, 1^x = 1, --x = x, x+(-y) = x-y, x-(-y) = x+y. Integer exponents with
 * |n| <= NH_EXPR_POWI_MAX become NH_EX_POWI nodes (evaluated by repeated multiplication). */
#ifndef NH_EXPR_H
#define NH_EXPR_H

#include <math.h>
#include <stddef.h>

/* Largest |n| for which x^n is stored as an integer power. */
#define NH_EXPR_POWI_MAX 64

typedef enum nh_expr_kind {
  NH_EX_CONST, /* c */
  NH_EX_VAR,   /* vars[k] */
  /* binary: a op b */
  NH_EX_ADD,
  NH_EX_SUB,
  NH_EX_MUL,
  NH_EX_DIV,
  NH_EX_POW,   /* a^b, general (b not a small integer constant) */
  NH_EX_ATAN2, /* atan2(a, b) = atan2(y, x) */
  /* unary: op(a) */
  NH_EX_NEG,
  NH_EX_POWI, /* a^k, k a small integer */
  NH_EX_SIN,
  NH_EX_COS,
  NH_EX_TAN,
  NH_EX_ASIN,
  NH_EX_ACOS,
  NH_EX_ATAN,
  NH_EX_SINH,
  NH_EX_COSH,
  NH_EX_TANH,
  NH_EX_EXP,
  NH_EX_LOG,
  NH_EX_SQRT,
  NH_EX_ABS,
  NH_EX_SIGN, /* -1, 0, 1 (the derivative of abs); not a language function */
  NH_EX_KIND_COUNT
} nh_expr_kind;

/* One node. a and b are child ids (-1 when absent); k is the variable index (VAR) or the
 * exponent (POWI); c is the value (CONST). */
typedef struct nh_expr_node {
  int kind;
  int a, b;
  int k;
  double c;
} nh_expr_node;

typedef struct nh_expr_pool nh_expr_pool;

static inline int nh_expr_kind_is_binary(int kind) {
  return kind >= NH_EX_ADD && kind <= NH_EX_ATAN2;
}
static inline int nh_expr_kind_is_unary(int kind) {
  return kind >= NH_EX_NEG && kind < NH_EX_KIND_COUNT;
}

/* x^n by binary powering; n < 0 gives 1/x^|n|. Shared by folding, evaluation and tapes. */
static inline double nh_expr_powi_eval(double x, int n) {
  unsigned m = n < 0 ? 0u - (unsigned)n : (unsigned)n;
  double r = 1.0, p = x;
  while (m) {
    if (m & 1u) r *= p;
    m >>= 1;
    if (m) p *= p;
  }
  return n < 0 ? 1.0 / r : r;
}

/* Apply an operator (not CONST or VAR) to values; b is ignored by unary kinds. The one
 * definition of every operation: constant folding, nh_expr_eval and tapes all call it, so
 * they agree bit for bit. */
static inline double nh_expr_op(int kind, double a, double b, int k) {
  switch (kind) {
  case NH_EX_ADD: return a + b;
  case NH_EX_SUB: return a - b;
  case NH_EX_MUL: return a * b;
  case NH_EX_DIV: return a / b;
  case NH_EX_POW: return pow(a, b);
  case NH_EX_ATAN2: return atan2(a, b);
  case NH_EX_NEG: return -a;
  case NH_EX_POWI: return nh_expr_powi_eval(a, k);
  case NH_EX_SIN: return sin(a);
  case NH_EX_COS: return cos(a);
  case NH_EX_TAN: return tan(a);
  case NH_EX_ASIN: return asin(a);
  case NH_EX_ACOS: return acos(a);
  case NH_EX_ATAN: return atan(a);
  case NH_EX_SINH: return sinh(a);
  case NH_EX_COSH: return cosh(a);
  case NH_EX_TANH: return tanh(a);
  case NH_EX_EXP: return exp(a);
  case NH_EX_LOG: return log(a);
  case NH_EX_SQRT: return sqrt(a);
  case NH_EX_ABS: return fabs(a);
  case NH_EX_SIGN: return (double)((a > 0.0) - (a < 0.0));
  default: return NAN;
  }
}

/* ---- pool ---------------------------------------------------------------------------- */

nh_expr_pool *nh_expr_pool_create(void); /* NULL when out of memory */
void nh_expr_pool_destroy(nh_expr_pool *pool);
int nh_expr_count(const nh_expr_pool *pool); /* number of nodes; ids are 0..count-1 */
/* The node with this id (valid until the next build, which may move the arena). */
const nh_expr_node *nh_expr_get(const nh_expr_pool *pool, int id);

/* ---- builders (return an id, or -1) --------------------------------------------------- */

int nh_expr_const(nh_expr_pool *pool, double c);
int nh_expr_var(nh_expr_pool *pool, int index); /* index >= 0 */
/* Any operator kind; b is ignored by unary kinds; POWI takes its exponent from k. */
int nh_expr_make(nh_expr_pool *pool, int kind, int a, int b, int k);
int nh_expr_add(nh_expr_pool *pool, int a, int b);
int nh_expr_sub(nh_expr_pool *pool, int a, int b);
int nh_expr_mul(nh_expr_pool *pool, int a, int b);
int nh_expr_div(nh_expr_pool *pool, int a, int b);
int nh_expr_neg(nh_expr_pool *pool, int a);
int nh_expr_pow(nh_expr_pool *pool, int a, int b); /* small integer constant b: POWI */
int nh_expr_powi(nh_expr_pool *pool, int a, int n); /* |n| > NH_EXPR_POWI_MAX: POW */
int nh_expr_unary(nh_expr_pool *pool, int kind, int a); /* NEG, SIN ... SIGN */

/* ---- analysis -------------------------------------------------------------------------- */

/* d e / d vars[var], exact, simplified as it is built; memoised per (node, var) in the pool,
 * so repeated and higher derivatives reuse earlier work. Iterative (no recursion over the
 * depth of e); sign(x) stands for the derivative of abs(x). Returns an id or -1. */
int nh_expr_diff(nh_expr_pool *pool, int e, int var);

/* Value of e by direct recursion over the DAG (a shared node is evaluated at every use;
 * the recursion is as deep as e): the reference the tapes are tested against. vars holds
 * the variables by index. nh_expr_tree_ops and nh_expr_print recurse the same way. */
double nh_expr_eval(const nh_expr_pool *pool, int e, const double *vars);

/* 1 when e is a constant; its value goes to *value (Nullable). */
int nh_expr_is_const(const nh_expr_pool *pool, int e, double *value);

/* 1 when e reads a variable with index in [lo, hi) (a potential or gap that depends on
 * the velocities, say), 0 when not, -1 when out of memory or e is invalid. Iterative. */
int nh_expr_uses_vars(const nh_expr_pool *pool, int e, int lo, int hi);

/* 1 when sum_t coef[t] a[t] b[t] (node ids) is shown to be the same constant at every value of
 * the variables, with that constant in *value (Nullable); 0 when not shown (also when out of
 * memory or past a work bound): a decision by trigonometric-polynomial normal form (trig.c),
 * zero coefficients up to the round-off of their sums. */
int nh_expr_sum_is_const(const nh_expr_pool *pool, int nterms, const double *coef, const int *a,
                         const int *b, double *value);

/* Number of operator nodes of e counted as a tree (shared subexpressions counted at every
 * use): what an evaluator without CSE would execute. */
long nh_expr_tree_ops(const nh_expr_pool *pool, int e);

/* Print e as text in the model language (fewest parentheses that keep the meaning;
 * constants round-trip; the derivative of abs prints as sign(x), which the language does
 * not have; infinities and NaN print as (1/0), (-1/0), (0/0)). names[k] names variable k
 * (Nullable: "v0", "v1", ...). Like snprintf: writes at most size bytes including the NUL
 * and returns the full length; but a text longer than 65536 characters or nested deeper
 * than 2000 levels (shared subexpressions print at every use, so the text of a small DAG can
 * be exponentially long) is cut there and ends in "...". */
size_t nh_expr_print(const nh_expr_pool *pool, int e, const char *const *names, char *buf,
                     size_t size);

/* ---- the function table of the language --------------------------------------------- */

/* Kind of the language function called name (len bytes) and its arity, or -1. */
int nh_expr_func_find(const char *name, size_t len, int *arity);
/* The language name of a kind ("sin", "atan2", "+", ...); never NULL. */
const char *nh_expr_kind_name(int kind);

#endif
