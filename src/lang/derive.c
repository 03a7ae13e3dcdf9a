/* derive.c - the derived expressions of a model file and their evaluator groups.
 *
 * Derived quantities (exact, by symbolic differentiation; v = q', p = dT/dv):
 *   M_ij  = d^2 T / dv_i dv_j                       (must not depend on v)
 *   c_i   = sum_k dp_i/dq_k v_k - dT/dq_i            (= sum_jk (dM_ij/dq_k - 1/2 dM_jk/dq_i) v_j v_k)
 *   dV_i  = dV/dq_i,   H_ij = d^2 V / dq_i dq_j
 *   A_kj  = d phi_k / dv_j                           (phi_k = LHS - RHS of constraint k; no v in A)
 *   (Adot v)_k = sum_j (sum_i dA_kj/dq_i v_i) v_j
 *   dM, d2M, dA, df/dq, df/dv, dg by further differentiation.
 * An almost-Poisson model derives grad H, its Hessian, Pi and T = d(Pi g)/dx instead (and the
 * gradients of its gaps, on the state).
 *
 * The groups (mf.h) bundle derived outputs that are compiled together, to tapes
 * (evaluators.c) or to C (codegen.c); mf_provides says which evaluators a model file has. */
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lang/mf.h"
#include "la/la.h"
#include "nholo/status.h"

/* d2M (nq^4 entries) is derived only up to this many coordinates; larger models difference dM */
#define MF_D2M_MAX_Q 12

/* ---- derived expressions ------------------------------------------------------------------ */

static int *take(int **p, size_t n) {
  int *r = *p;
  *p += n;
  return r;
}

/* Polynomial degree of e in the variables [lo, hi) (constants and other variables count 0), or
 * -1 when e is not a polynomial in them. Recursive over the DAG (depth bounded by the
 * parser's limits), memo-free: for the small Hamiltonians of model files. */
static int poly_degree(const nh_expr_pool *p, int e, int lo, int hi, int depth) {
  const nh_expr_node *n = nh_expr_get(p, e);
  if (!n || depth > 2000) return -1;
  if (nh_expr_uses_vars(p, e, lo, hi) == 0) return 0;
  int a, b;
  switch (n->kind) {
  case NH_EX_VAR: return 1;
  case NH_EX_ADD:
  case NH_EX_SUB:
    a = poly_degree(p, n->a, lo, hi, depth + 1), b = poly_degree(p, n->b, lo, hi, depth + 1);
    return a < 0 || b < 0 ? -1 : a > b ? a : b;
  case NH_EX_MUL:
    a = poly_degree(p, n->a, lo, hi, depth + 1), b = poly_degree(p, n->b, lo, hi, depth + 1);
    return a < 0 || b < 0 ? -1 : a + b;
  case NH_EX_NEG: return poly_degree(p, n->a, lo, hi, depth + 1);
  case NH_EX_DIV: /* by a constant only */
    return nh_expr_uses_vars(p, n->b, lo, hi) == 0 ? poly_degree(p, n->a, lo, hi, depth + 1) : -1;
  case NH_EX_POWI:
    a = poly_degree(p, n->a, lo, hi, depth + 1);
    return a < 0 || n->k < 0 ? -1 : a * n->k;
  default: return -1;
  }
}

/* the almost-Poisson form: grad H, its Hessian, Pi and T = d(Pi g)/dx (g in the velocity slots) */
static int derive_poisson(mf *m) {
  const int n = m->nq;
  const size_t nn = (size_t)n * (size_t)n;
  const size_t ng = (size_t)m->ngap;
  m->ids = malloc((4 * nn + (size_t)n + (size_t)m->nmon + ng + ng * (size_t)n + 1) * sizeof(int));
  if (!m->ids) return m->status = NH_ERR_NOMEM;
  int *p = m->ids;
  m->dH = take(&p, (size_t)n), m->Hs = take(&p, nn), m->Pi = take(&p, nn), m->PT = take(&p, nn);
  m->g = take(&p, ng), m->dg = take(&p, ng * (size_t)n);
  m->mexpr = take(&p, (size_t)m->nmon);
  for (int k = 0; k < m->nmon; k++) m->mexpr[k] = m->mon[k].node;
  nh_expr_pool *P = m->pool;
  int bad = 0;
#define CHK(x) ((x) < 0 ? (bad = 1, 0) : (x))
  int zero = CHK(nh_expr_const(P, 0.0));
  for (int i = 0; i < n; i++) m->dH[i] = CHK(nh_expr_diff(P, m->ham, i));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) m->Hs[i * n + j] = CHK(nh_expr_diff(P, m->dH[i], j));
  for (size_t ij = 0; ij < nn; ij++) m->Pi[ij] = zero;
  for (int k = 0; k < m->npi; k++) {
    m->Pi[m->pi_a[k] * n + m->pi_b[k]] = m->pi_node[k];
    m->Pi[m->pi_b[k] * n + m->pi_a[k]] = CHK(nh_expr_neg(P, m->pi_node[k]));
  }
  for (int i = 0; i < n && !bad; i++)
    for (int k = 0; k < n; k++) {
      int t = zero;
      for (int j = 0; j < n; j++) {
        int d = CHK(nh_expr_diff(P, m->Pi[i * n + j], k));
        int g = CHK(nh_expr_var(P, n + j));
        int dg = CHK(nh_expr_mul(P, d, g));
        t = CHK(nh_expr_add(P, t, dg));
      }
      m->PT[i * n + k] = t;
    }
  /* gaps on the state and their gradients (ngap x nx) */
  for (int k = 0; k < m->ngap; k++) {
    m->g[k] = m->gap[k].node;
    for (int j = 0; j < n; j++) m->dg[k * n + j] = CHK(nh_expr_diff(P, m->g[k], j));
  }
#undef CHK
  if (bad) return m->status = NH_ERR_NOMEM;
  int deg = poly_degree(P, m->ham, 0, n, 0);
  m->hdeg = deg > 0 ? deg : 0;
  return NH_OK;
}

/* ---- the variables an expression reads ----------------------------------------------------- */

/* A walk over expression DAGs that visits each node once per walk (stamped, no clearing) */
typedef struct var_walk {
  int *stamp, *stack, cap, epoch;
  unsigned char *mark; /* per variable (2 nq + 1) */
} var_walk;

/* the distinct variables in [lo, hi) that e reads, ascending, into out; their count, or -1
 * when out of memory */
static int vars_of(const nh_expr_pool *P, var_walk *w, int e, int lo, int hi, int *out) {
  int count = nh_expr_count(P);
  if (count > w->cap) {
    int cap = count + count / 2 + 64;
    int *st = realloc(w->stamp, sizeof(int) * (size_t)cap), *sk;
    if (!st) return -1;
    w->stamp = st;
    if (!(sk = realloc(w->stack, sizeof(int) * (size_t)cap))) return -1;
    w->stack = sk;
    memset(w->stamp + w->cap, 0, sizeof(int) * (size_t)(cap - w->cap));
    w->cap = cap;
  }
  if (++w->epoch == 0x7fffffff) memset(w->stamp, 0, sizeof(int) * (size_t)w->cap), w->epoch = 1;
  int sp = 0, n = 0;
  w->stamp[e] = w->epoch;
  w->stack[sp++] = e;
  while (sp) {
    const nh_expr_node *x = nh_expr_get(P, w->stack[--sp]);
    if (x->kind == NH_EX_VAR && x->k >= lo && x->k < hi && !w->mark[x->k]) w->mark[x->k] = 1, out[n++] = x->k;
    int ch[2] = {x->a, x->b};
    for (int j = 0; j < 2; j++)
      if (ch[j] >= 0 && w->stamp[ch[j]] != w->epoch) w->stamp[ch[j]] = w->epoch, w->stack[sp++] = ch[j];
  }
  for (int i = 0; i < n; i++) w->mark[out[i]] = 0;
  for (int i = 1; i < n; i++) /* ascending (insertion: the lists are short) */
    for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
      int t = out[j];
      out[j] = out[j - 1], out[j - 1] = t;
    }
  return n;
}

/* append (idx, node) to s; -1 when out of memory or beyond MF_MAX_SPARSE entries or an int
 * index (then s->too_large) */
static int sparse_put(mf_sparse *s, long idx, int node) {
  if (s->n >= MF_MAX_SPARSE || idx > INT_MAX) return s->too_large = 1, -1;
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 64;
    int *i = realloc(s->idx, sizeof(int) * (size_t)cap), *nd;
    if (!i) return -1;
    s->idx = i;
    if (!(nd = realloc(s->node, sizeof(int) * (size_t)cap))) return -1;
    s->node = nd, s->cap = cap;
  }
  s->idx[s->n] = (int)idx, s->node[s->n] = node, s->n++;
  return 0;
}

void mf_derive_free(mf *m) {
  mf_sparse *s[3] = {&m->dM, &m->d2M, &m->dA};
  for (int i = 0; i < 3; i++) free(s[i]->idx), free(s[i]->node), memset(s[i], 0, sizeof *s[i]);
}

/* The derivatives below differentiate only by the variables an expression reads: any other
 * derivative is the constant 0, and 0 * v + s is s, so the expressions (and the sums built
 * from them, in ascending variable order) are the nodes the dense loops gave. */
typedef struct derive_ctx {
  mf *m;
  nh_expr_pool *P;
  var_walk w;
  int *vars, zero, bad;
  const int *vel;
  /* per node (grown with the pool): the range of variables it reads, and the sign bit of its
   * derivative by a variable it does not read (a zero constant, +0 or -0) */
  int *lo, *hi, ncomp, cap;
  unsigned char *zneg;
} derive_ctx;

#define CHK(x) ((x) < 0 ? (c->bad = 1, 0) : (x))

/* lo, hi, zneg of the nodes created since the last call (children precede their parents).
 * zneg follows nh_expr_diff's rules with both operand derivatives zero constants: a sum or
 * difference of constants folds (-0 + -0 = -0, -0 - +0 = -0), a negation flips the sign,
 * cos and acos negate a +0, a quotient by a constant folds a' / b, and every other rule
 * yields the constant +0 (a product with a non-constant factor is the constant +0). */
static int ranges(derive_ctx *c) {
  int count = nh_expr_count(c->P);
  if (count > c->cap) {
    int cap = count + count / 2 + 64;
    int *lo = realloc(c->lo, sizeof(int) * (size_t)cap), *hi;
    if (!lo) return -1;
    c->lo = lo;
    if (!(hi = realloc(c->hi, sizeof(int) * (size_t)cap))) return -1;
    c->hi = hi;
    unsigned char *z = realloc(c->zneg, (size_t)cap);
    if (!z) return -1;
    c->zneg = z, c->cap = cap;
  }
  for (int e = c->ncomp; e < count; e++) {
    const nh_expr_node *x = nh_expr_get(c->P, e);
    int lo = 0x7fffffff, hi = -1, za = 0, zb = 0;
    if (x->kind == NH_EX_VAR) lo = hi = x->k;
    if (x->a >= 0) lo = c->lo[x->a] < lo ? c->lo[x->a] : lo, hi = c->hi[x->a] > hi ? c->hi[x->a] : hi, za = c->zneg[x->a];
    if (x->b >= 0) lo = c->lo[x->b] < lo ? c->lo[x->b] : lo, hi = c->hi[x->b] > hi ? c->hi[x->b] : hi, zb = c->zneg[x->b];
    c->lo[e] = lo, c->hi[e] = hi;
    switch (x->kind) {
    case NH_EX_ADD: c->zneg[e] = (unsigned char)(za && zb); break;
    case NH_EX_SUB: c->zneg[e] = (unsigned char)(za && !zb); break;
    case NH_EX_NEG: c->zneg[e] = (unsigned char)!za; break;
    case NH_EX_COS:
    case NH_EX_ACOS: c->zneg[e] = 1; break;
    case NH_EX_DIV: { /* (a' - e b')/b: a' / b folds when b is a constant */
      const nh_expr_node *d = nh_expr_get(c->P, x->b);
      c->zneg[e] = (unsigned char)(d->kind == NH_EX_CONST && (za != (signbit(d->c) != 0)));
      break;
    }
    default: c->zneg[e] = 0;
    }
  }
  c->ncomp = count;
  return 0;
}

/* nh_expr_diff(e, var), the same node, without differentiating the terms of sums that do not
 * read var (their derivative is the zero constant of zneg; a sum folds it away) */
static int sdiff_at(derive_ctx *c, int e, int var, int depth) {
  const nh_expr_node *x = nh_expr_get(c->P, e);
  if (var < c->lo[e] || var > c->hi[e]) return nh_expr_const(c->P, c->zneg[e] ? -0.0 : 0.0);
  if (depth > 100000 || (x->kind != NH_EX_ADD && x->kind != NH_EX_SUB && x->kind != NH_EX_NEG))
    return nh_expr_diff(c->P, e, var);
  int kind = x->kind, a = x->a, b = x->b; /* (the pool may move below) */
  int da = sdiff_at(c, a, var, depth + 1);
  if (da < 0) return -1;
  if (kind == NH_EX_NEG) return nh_expr_neg(c->P, da);
  int db = sdiff_at(c, b, var, depth + 1);
  if (db < 0) return -1;
  return kind == NH_EX_ADD ? nh_expr_add(c->P, da, db) : nh_expr_sub(c->P, da, db);
}
static int sdiff(derive_ctx *c, int e, int var) {
  if (e < 0 || ranges(c)) return -1;
  return sdiff_at(c, e, var, 0);
}
/* the derivative of e by a variable it does not read: its zero constant */
static int dzero(derive_ctx *c, int e) {
  if (e < 0 || ranges(c)) return -1;
  return c->zneg[e] ? nh_expr_const(c->P, -0.0) : c->zero;
}

/* the q-variables of e into c->vars; their count (0 when out of memory) */
static int qvars(derive_ctx *c, int e) {
  int n = vars_of(c->P, &c->w, e, 0, c->m->nq, c->vars);
  return n < 0 ? (c->bad = 1, 0) : n;
}
/* e reads a velocity */
static int reads_vel(derive_ctx *c, int e) {
  int n = vars_of(c->P, &c->w, e, c->m->nq, 2 * c->m->nq, c->vars);
  return n < 0 ? (c->bad = 1, 0) : n > 0;
}

/* e is the constant -0 */
static int is_negzero(const mf *m, int e) {
  double v;
  return nh_expr_is_const(m->pool, e, &v) && v == 0.0 && signbit(v);
}

/* momenta, mass matrix, Coriolis: M_ij = dp_i/dv_j, c_i = sum_k dp_i/dq_k v_k - dT/dq_i */
static int derive_kinetic(derive_ctx *c) {
  mf *m = c->m;
  const int nq = m->nq;
  nh_expr_pool *P = c->P;
  for (int i = 0; i < nq && !c->bad; i++) {
    int pi = CHK(sdiff(c, m->kinetic, nq + i)), z = CHK(dzero(c, pi));
    for (int j = 0; j < nq; j++) m->M[i * nq + j] = z;
    int nv = vars_of(P, &c->w, pi, nq, 2 * nq, c->vars);
    if (nv < 0) return c->bad = 1, -1;
    for (int t = 0; t < nv && !c->bad; t++) {
      int j = c->vars[t] - nq, e = CHK(sdiff(c, pi, nq + j));
      m->M[i * nq + j] = e;
    }
    for (int j = 0; j < nq && !c->bad; j++)
      if (!mf_is_zero(m, m->M[i * nq + j]) && reads_vel(c, m->M[i * nq + j]))
        return mf_fail(m, m->kinetic_off, "the kinetic energy is not a quadratic form in the "
                                          "velocities: d2T/d%s'd%s' depends on the velocities",
                       m->coord[i], m->coord[j]);
    int ci = CHK(nh_expr_neg(P, CHK(sdiff(c, m->kinetic, i))));
    int nk = qvars(c, pi);
    for (int k = 0, t = 0; k < nq && !c->bad; k++) {
      if (t < nk && c->vars[t] == k) {
        t++;
        ci = CHK(nh_expr_add(P, ci, CHK(nh_expr_mul(P, CHK(sdiff(c, pi, k)), c->vel[k]))));
      } else if (is_negzero(m, ci)) { /* + (0 v = +0): a constant -0 folds to +0 */
        ci = c->zero;
      }
    }
    m->c[i] = ci;
  }
  return 0;
}
/* e is the constant +0 (what a sparse tensor leaves out: its evaluators clear to +0) */
static int is_pluszero(const mf *m, int e) {
  double v;
  return nh_expr_is_const(m->pool, e, &v) && v == 0.0 && !signbit(v);
}

/* The derivative of e by a q it does not read is the constant -0 when zneg(e): those go into
 * the tensor as entries (at base + i stride), so that it holds the dense derivatives' bits.
 * c->vars holds the nread q e reads, ascending. */
static void put_negzeros(derive_ctx *c, mf_sparse *s, int e, long base, long stride, int nread) {
  if (ranges(c)) c->bad = 1;
  if (c->bad || !c->zneg[e]) return;
  int z = CHK(nh_expr_const(c->P, -0.0));
  for (int i = 0, t = 0; i < c->m->nq && !c->bad; i++) {
    if (t < nread && c->vars[t] == i) t++;
    else if (sparse_put(s, base + i * stride, z)) c->bad = 1;
  }
}

/* dM (sparse) from M, and d2M from dM when wanted */
static void derive_dmass(derive_ctx *c) {
  mf *m = c->m;
  const long n = m->nq, n2 = n * n;
  for (long ij = 0; ij < n2 && !c->bad; ij++) {
    int nk = qvars(c, m->M[ij]);
    for (int t = 0; t < nk && !c->bad; t++) {
      int d = CHK(sdiff(c, m->M[ij], c->vars[t]));
      if (!is_pluszero(m, d) && sparse_put(&m->dM, (long)c->vars[t] * n2 + ij, d)) c->bad = 1;
    }
    put_negzeros(c, &m->dM, m->M[ij], ij, n2, nk);
  }
  if (!m->has_d2M) return;
  for (int e = 0; e < m->dM.n && !c->bad; e++) {
    int nl = qvars(c, m->dM.node[e]);
    for (int t = 0; t < nl && !c->bad; t++) {
      int d = CHK(sdiff(c, m->dM.node[e], c->vars[t]));
      if (!is_pluszero(m, d) && sparse_put(&m->d2M, (long)c->vars[t] * n2 * n + m->dM.idx[e], d)) c->bad = 1;
    }
    put_negzeros(c, &m->d2M, m->dM.node[e], m->dM.idx[e], n2 * n, nl);
  }
}

/* A_kj = dphi_k/dv_j, dA (sparse), Adot v = sum_j (sum_i dA_kj/dq_i v_i) v_j */
static int derive_constraints(derive_ctx *c) {
  mf *m = c->m;
  const int nq = m->nq, nc = m->nc;
  nh_expr_pool *P = c->P;
  int *js = c->vars + 2 * nq + 1; /* the velocities of constraint k, kept across the inner walks */
  for (int k = 0; k < nc && !c->bad; k++) {
    int adv = c->zero, z = CHK(dzero(c, m->con[k].node));
    for (int j = 0; j < nq; j++) m->A[k * nq + j] = z;
    int nv = vars_of(P, &c->w, m->con[k].node, nq, 2 * nq, js);
    if (nv < 0) return c->bad = 1, -1;
    for (int t = 0; t < nv && !c->bad; t++) {
      int j = js[t] - nq, a = CHK(sdiff(c, m->con[k].node, nq + j));
      m->A[k * nq + j] = a;
      if (!c->bad && reads_vel(c, a))
        return mf_fail(m, m->con[k].off, "constraint '%s' is not linear in the velocities "
                                         "(its coefficient of %s' depends on the velocities)",
                       m->con[k].name, m->coord[j]);
    }
    /* the failure above names the first coefficient in ascending j: as the dense loop did */
    for (int t = 0; t < nv && !c->bad; t++) {
      int j = js[t] - nq, a = m->A[k * nq + j], rate = c->zero; /* d A_kj / dt */
      int ni = qvars(c, a);
      for (int u = 0; u < ni && !c->bad; u++) {
        int i = c->vars[u], d = CHK(sdiff(c, a, i));
        if (!is_pluszero(m, d) && sparse_put(&m->dA, ((long)i * nc + k) * nq + j, d)) c->bad = 1;
        rate = CHK(nh_expr_add(P, rate, CHK(nh_expr_mul(P, d, c->vel[i]))));
      }
      put_negzeros(c, &m->dA, a, (long)k * nq + j, (long)nc * nq, ni);
      adv = CHK(nh_expr_add(P, adv, CHK(nh_expr_mul(P, rate, c->vel[j]))));
    }
    m->Adv[k] = adv;
  }
  return 0;
}

/* out[i] = d e / d q_i for the q the expression reads, zero elsewhere (n entries, stride st) */
static void grad_into(derive_ctx *c, int e, int *out, int n, int st) {
  int z = CHK(dzero(c, e));
  for (int i = 0; i < n; i++) out[(long)i * st] = z;
  int nk = qvars(c, e);
  for (int t = 0; t < nk && !c->bad; t++) out[(long)c->vars[t] * st] = CHK(sdiff(c, e, c->vars[t]));
}

int mf_derive(mf *m) {
  if (m->poisson) return derive_poisson(m);
  const int nq = m->nq, nc = m->nc, ng = m->ngap;
  const size_t n = (size_t)nq, n2 = n * n;
  int all_holonomic = nc > 0;
  for (int k = 0; k < nc; k++) all_holonomic &= m->con[k].holonomic;
  m->has_d2M = nq <= MF_D2M_MAX_Q;
  size_t total = n2 + n + n + n2 + n + 2 * n2 + (size_t)nc * n + (size_t)nc + (size_t)ng + (size_t)ng * n +
                 (all_holonomic ? (size_t)nc : 0) + (size_t)m->nmon + 1;
  m->ids = malloc(total * sizeof(int));
  derive_ctx cx = {m, m->pool, {NULL, NULL, 0, 0, calloc(2 * n + 2, 1)}, malloc(sizeof(int) * (4 * n + 4)), 0, 0, NULL,
                   NULL, NULL, 0, 0, NULL};
  derive_ctx *c = &cx;
  int *vel = malloc(sizeof(int) * (n + 1));
  if (!m->ids || !cx.w.mark || !cx.vars || !vel) {
    m->status = NH_ERR_NOMEM;
    goto done;
  }
  int *p = m->ids;
  m->M = take(&p, n2), m->c = take(&p, n), m->dV = take(&p, n), m->H = take(&p, n2);
  m->f = take(&p, n), m->dfdq = take(&p, n2), m->dfdv = take(&p, n2);
  m->A = take(&p, (size_t)nc * n), m->Adv = take(&p, (size_t)nc);
  m->g = take(&p, (size_t)ng), m->dg = take(&p, (size_t)ng * n);
  m->phi = all_holonomic ? take(&p, (size_t)nc) : NULL;
  for (int k = 0; m->phi && k < nc; k++) m->phi[k] = m->con[k].phi;
  m->mexpr = take(&p, (size_t)m->nmon);
  for (int k = 0; k < m->nmon; k++) m->mexpr[k] = m->mon[k].node;

  nh_expr_pool *P = m->pool;
  cx.zero = CHK(nh_expr_const(P, 0.0));
  for (int i = 0; i < nq; i++) vel[i] = CHK(nh_expr_var(P, nq + i));
  cx.vel = vel;
  if (derive_kinetic(c)) goto done;
  /* potential */
  m->V = m->potential >= 0 ? m->potential : cx.zero;
  grad_into(c, m->V, m->dV, nq, 1);
  for (int i = 0; i < nq; i++) grad_into(c, m->dV[i], m->H + (size_t)i * n, nq, 1);
  derive_dmass(c);
  /* forces and their Jacobians (df/dv: the velocity variables nq + j) */
  for (int i = 0; i < nq; i++) {
    m->f[i] = m->force[i] >= 0 ? m->force[i] : cx.zero;
    grad_into(c, m->f[i], m->dfdq + (size_t)i * n, nq, 1);
    int z = CHK(dzero(c, m->f[i]));
    for (int j = 0; j < nq; j++) m->dfdv[i * nq + j] = z;
    int nv = vars_of(P, &cx.w, m->f[i], nq, 2 * nq, cx.vars);
    if (nv < 0) cx.bad = 1;
    for (int t = 0; t < nv && !cx.bad; t++) m->dfdv[i * nq + cx.vars[t] - nq] = CHK(sdiff(c, m->f[i], cx.vars[t]));
  }
  if (derive_constraints(c)) goto done;
  /* gaps */
  for (int k = 0; k < ng; k++) {
    m->g[k] = m->gap[k].node;
    grad_into(c, m->g[k], m->dg + (size_t)k * n, nq, 1);
  }
  if (cx.bad) m->status = NH_ERR_NOMEM;
done:
  if (m->dM.too_large || m->d2M.too_large || m->dA.too_large) { /* one clear error, not "out of memory" */
    m->status = 0;
    mf_fail(m, m->coord_off, "the model is too large: its derivative tensors (dM/dq, d2M, dA/dq) would hold "
            "more than %d structural non-zeros, or indices beyond 2^31 (too much memory)", MF_MAX_SPARSE);
  }
  free(cx.w.stamp), free(cx.w.stack), free(cx.w.mark), free(cx.vars), free(vel);
  free(cx.lo), free(cx.hi), free(cx.zneg);
  return m->status;
}
#undef CHK

/* ---- evaluator groups ------------------------------------------------------------------------ */

int mf_group_size(const mf *m, int ev) {
  const int nq = m->nq, nc = m->nc, ng = m->ngap;
  if (m->poisson) { /* only the almost-Poisson groups */
    switch (ev) {
    case MF_EV_HAM: return 1;
    case MF_EV_DH: return nq;
    case MF_EV_HDH: return 1 + nq;
    case MF_EV_PI:
    case MF_EV_HS:
    case MF_EV_PT: return nq * nq;
    case MF_EV_G: return ng;
    case MF_EV_DG: return ng * nq;
    case MF_EV_GDG: return ng + ng * nq;
    case MF_EV_MON: return m->nmon;
    default: return 0;
    }
  }
  switch (ev) {
  case MF_EV_MASS: return nq * nq;
  case MF_EV_V: return 1;
  case MF_EV_DV: return nq;
  case MF_EV_VDV: return 1 + nq;
  case MF_EV_COR: return nq;
  case MF_EV_FORCE: return nq;
  case MF_EV_A: return nc * nq;
  case MF_EV_ADV: return nc;
  case MF_EV_AADV: return nc * nq + nc;
  case MF_EV_G: return ng;
  case MF_EV_DG: return ng * nq;
  case MF_EV_GDG: return ng + ng * nq;
  case MF_EV_DM: return m->dM.n;
  case MF_EV_D2M: return m->d2M.n;
  case MF_EV_H: return nq * nq;
  case MF_EV_DA: return m->dA.n;
  case MF_EV_DFDQ: return nq * nq;
  case MF_EV_DFDV: return nq * nq;
  case MF_EV_PHI: return m->phi ? nc : 0;
  case MF_EV_MON: return m->nmon;
  default: return 0; /* the almost-Poisson groups */
  }
}

static int *put(int *dst, const int *src, int n) {
  memcpy(dst, src, sizeof(int) * (size_t)(n > 0 ? n : 0));
  return dst + (n > 0 ? n : 0);
}

void mf_group_outputs(const mf *m, int ev, int *ids) {
  const int nq = m->nq, nc = m->nc, ng = m->ngap;
  switch (ev) {
  case MF_EV_MASS: put(ids, m->M, nq * nq); break;
  case MF_EV_V: ids[0] = m->V; break;
  case MF_EV_DV: put(ids, m->dV, nq); break;
  case MF_EV_VDV: ids[0] = m->V, put(ids + 1, m->dV, nq); break;
  case MF_EV_COR: put(ids, m->c, nq); break;
  case MF_EV_FORCE: put(ids, m->f, nq); break;
  case MF_EV_A: put(ids, m->A, nc * nq); break;
  case MF_EV_ADV: put(ids, m->Adv, nc); break;
  case MF_EV_AADV: put(put(ids, m->A, nc * nq), m->Adv, nc); break;
  case MF_EV_G: put(ids, m->g, ng); break;
  case MF_EV_DG: put(ids, m->dg, ng * nq); break;
  case MF_EV_GDG: put(put(ids, m->g, ng), m->dg, ng * nq); break;
  case MF_EV_DM: put(ids, m->dM.node, m->dM.n); break;
  case MF_EV_D2M: put(ids, m->d2M.node, m->d2M.n); break;
  case MF_EV_H: put(ids, m->H, nq * nq); break;
  case MF_EV_DA: put(ids, m->dA.node, m->dA.n); break;
  case MF_EV_DFDQ: put(ids, m->dfdq, nq * nq); break;
  case MF_EV_DFDV: put(ids, m->dfdv, nq * nq); break;
  case MF_EV_PHI: if (m->phi) put(ids, m->phi, nc); break;
  case MF_EV_HAM: ids[0] = m->ham; break;
  case MF_EV_DH: put(ids, m->dH, nq); break;
  case MF_EV_HDH: ids[0] = m->ham, put(ids + 1, m->dH, nq); break;
  case MF_EV_PI: put(ids, m->Pi, nq * nq); break;
  case MF_EV_HS: put(ids, m->Hs, nq * nq); break;
  case MF_EV_PT: put(ids, m->PT, nq * nq); break;
  case MF_EV_MON: put(ids, m->mexpr, m->nmon); break;
  default: break;
  }
}

const int *mf_group_index(const mf *m, int ev) {
  static const int none[1] = {0}; /* a sparse group without non-zeros */
  const mf_sparse *s = m->poisson ? NULL : ev == MF_EV_DM ? &m->dM : ev == MF_EV_D2M ? &m->d2M : ev == MF_EV_DA ? &m->dA : NULL;
  return !s ? NULL : s->idx ? s->idx : none;
}

long mf_group_dense(const mf *m, int ev) {
  const long nq = m->nq;
  if (m->poisson || (ev != MF_EV_DM && ev != MF_EV_D2M && ev != MF_EV_DA)) return mf_group_size(m, ev);
  return ev == MF_EV_DM ? nq * nq * nq : ev == MF_EV_D2M ? (m->has_d2M ? nq * nq * nq * nq : 0) : nq * m->nc * nq;
}

int mf_group_used(const mf *m, int ev) {
  static const int reader[MF_EV_COUNT] = {
      [MF_EV_MASS] = MF_FN_mass, [MF_EV_V] = MF_FN_potential, [MF_EV_DV] = MF_FN_potential,
      [MF_EV_VDV] = MF_FN_potential, [MF_EV_COR] = MF_FN_coriolis, [MF_EV_FORCE] = MF_FN_force,
      [MF_EV_A] = MF_FN_constraint, [MF_EV_ADV] = MF_FN_constraint, [MF_EV_AADV] = MF_FN_constraint,
      [MF_EV_G] = MF_FN_gap, [MF_EV_DG] = MF_FN_gap, [MF_EV_GDG] = MF_FN_gap,
      [MF_EV_DM] = MF_FN_mass_deriv, [MF_EV_D2M] = MF_FN_mass_deriv2, [MF_EV_H] = MF_FN_potential_hess,
      [MF_EV_DA] = MF_FN_constraint_deriv, [MF_EV_DFDQ] = MF_FN_force_jac, [MF_EV_DFDV] = MF_FN_force_jac,
      [MF_EV_PHI] = MF_FN_holonomic, [MF_EV_HAM] = MF_FN_hamiltonian, [MF_EV_DH] = MF_FN_hamiltonian,
      [MF_EV_HDH] = MF_FN_hamiltonian, [MF_EV_PI] = MF_FN_poisson, [MF_EV_HS] = MF_FN_hamiltonian_hess,
      [MF_EV_PT] = MF_FN_poisson_jac, [MF_EV_MON] = MF_FN_monitor};
  return ev >= 0 && ev < MF_EV_COUNT && mf_provides(m, reader[ev]);
}

const char *mf_group_symbol(int ev) {
  static const char *const names[MF_EV_COUNT] = {
      "nh_mf_mass", "nh_mf_v",   "nh_mf_dv", "nh_mf_vdv", "nh_mf_cor", "nh_mf_force",
      "nh_mf_a",    "nh_mf_adv", "nh_mf_aadv", "nh_mf_g", "nh_mf_dg",  "nh_mf_gdg",
      "nh_mf_dm",   "nh_mf_d2m", "nh_mf_h",  "nh_mf_da",  "nh_mf_dfdq", "nh_mf_dfdv", "nh_mf_phi",
      "nh_mf_ham",  "nh_mf_dh",  "nh_mf_hdh", "nh_mf_pi",  "nh_mf_hs",   "nh_mf_pt",
      "nh_mf_mon"};
  return ev >= 0 && ev < MF_EV_COUNT ? names[ev] : "";
}


/* ---- which evaluators a model file has ----------------------------------------------------- */

int mf_is_pluszero(const mf *m, int e) { return is_pluszero(m, e); }

int mf_is_zero(const mf *m, int e) {
  double v;
  return nh_expr_is_const(m->pool, e, &v) && v == 0.0;
}

int mf_all_zero(const mf *m, const int *ids, int n) {
  for (int i = 0; i < n; i++)
    if (!mf_is_zero(m, ids[i])) return 0;
  return 1;
}

/* G = A M^-1 A^T shown constant (mass constant: its entries are numbers), entry by entry by
 * nh_expr_sum_is_const over the terms Mi_kl A_ik A_jl; models past MF_GRAM_MAX_Q coordinates
 * or MF_GRAM_MAX_C constraints are not examined (0: the methods form G per step) */
#define MF_GRAM_MAX_Q 64
#define MF_GRAM_MAX_C 8
int mf_gram_constant(const mf *m) {
  const int n = m->nq, nc = m->nc;
  if (m->poisson || nc < 1 || n > MF_GRAM_MAX_Q || nc > MF_GRAM_MAX_C || !mf_all_zero(m, m->dM.node, m->dM.n))
    return 0;
  const size_t nn = (size_t)n * n;
  double *M = malloc(2 * nn * sizeof *M + nn * (2 * sizeof(int) + sizeof(double)));
  if (!M) return 0;
  double *Mi = M + nn, *coef = Mi + nn;
  int *a = (int *)(coef + nn), *b = a + nn, ok = 1;
  for (size_t i = 0; i < nn && ok; i++) ok = nh_expr_is_const(m->pool, m->M[i], &M[i]);
  ok = ok && nh_la_chol(n, M, 0.0, NULL) == 0;
  for (int j = 0; j < n && ok; j++) { /* column j of M^-1 */
    for (int i = 0; i < n; i++) Mi[(size_t)j * n + i] = i == j;
    nh_la_chol_solve(n, M, Mi + (size_t)j * n);
  }
  for (int i = 0; i < nc && ok; i++)
    for (int j = i; j < nc && ok; j++) {
      int t = 0;
      for (int k = 0; k < n; k++)
        for (int l = 0; l < n; l++) {
          const int aik = m->A[(size_t)i * n + k], ajl = m->A[(size_t)j * n + l];
          if (Mi[(size_t)k * n + l] == 0.0 || mf_is_zero(m, aik) || mf_is_zero(m, ajl)) continue;
          coef[t] = Mi[(size_t)k * n + l], a[t] = aik, b[t++] = ajl;
        }
      ok = nh_expr_sum_is_const(m->pool, t, coef, a, b, NULL);
    }
  free(M);
  return ok;
}

int mf_provides(const mf *m, int fn) {
  if (fn == MF_FN_monitor) return m->nmon > 0; /* either form */
  if (m->poisson) {
    switch (fn) {
    case MF_FN_hamiltonian:
    case MF_FN_poisson:
    case MF_FN_hamiltonian_hess:
    case MF_FN_poisson_jac:
    case MF_FN_poisson_sparse:
    case MF_FN_hamiltonian_hess_sparse:
    case MF_FN_poisson_jac_sparse: return 1;
    case MF_FN_gap: return m->ngap > 0;
    default: return 0;
    }
  }
  switch (fn) {
  case MF_FN_mass:
  case MF_FN_mass_deriv:
  case MF_FN_potential_hess: return 1;
  case MF_FN_potential: return !mf_is_zero(m, m->V);
  case MF_FN_coriolis: return !mf_all_zero(m, m->c, m->nq);
  case MF_FN_force:
  case MF_FN_force_jac: return !mf_all_zero(m, m->f, m->nq);
  case MF_FN_constraint:
  case MF_FN_constraint_deriv: return m->nc > 0;
  case MF_FN_gap: return m->ngap > 0;
  case MF_FN_mass_deriv2: return m->has_d2M;
  case MF_FN_mass_sparse: return 1; /* compiled code only (the tapes leave them NULL) */
  case MF_FN_constraint_sparse: return m->nc > 0;
  case MF_FN_holonomic: return m->phi != NULL;
  default: return 0; /* flow, predict, the ODE form: not in the language */
  }
}
