/* mfbuild.c - from the statements of a model file to an nh_model: the derived expressions,
 * the model-level checks, the tape evaluators and the public entry points.
 *
 * Derived quantities (exact, by symbolic differentiation; v = q', p = dT/dv):
 *   M_ij  = d^2 T / dv_i dv_j                       (must not depend on v)
 *   c_i   = sum_k dp_i/dq_k v_k - dT/dq_i            (= sum_jk (dM_ij/dq_k - 1/2 dM_jk/dq_i) v_j v_k)
 *   dV_i  = dV/dq_i,   H_ij = d^2 V / dq_i dq_j
 *   A_kj  = d phi_k / dv_j                           (phi_k = LHS - RHS of constraint k; no v in A)
 *   (Adot v)_k = sum_j (sum_i dA_kj/dq_i v_i) v_j
 *   dM, d2M, dA, df/dq, df/dv, dg by further differentiation. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/mf.h"
#include "expr/tape.h"
#include "expr/text.h"
#include "la/la.h"
#include "base/msg.h"
#include "nholo/modelfile.h"
#include "nholo/status.h"

#define NH_LOAD_COOKIE 0x6e686c6f /* "nhlo" */
/* d2M (nq^4 entries) is derived only up to this many coordinates; larger models difference dM */
#define MF_D2M_MAX_Q 12
/* homogeneity checks: |T - 1/2 v^T M v| and |phi - A v| relative to the size of the terms */
#define MF_FORM_TOL 1e-9
#define MF_FORM_TRIALS 6
/* the initial state: |A v0| allowed (as nh_sim_def.constraint_tol), and rank decisions */
#define MF_CONSTRAINT_TOL 1e-9
#define MF_RANK_TOL 1e-10
/* largest model file read */
#define MF_MAX_FILE (16u << 20)

nh_load_opts nh_load_opts_default(void) {
  nh_load_opts o;
  memset(&o, 0, sizeof o);
  o.internal_cookie = NH_LOAD_COOKIE;
  return o;
}

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
  m->ids = malloc((4 * nn + (size_t)n + 1) * sizeof(int));
  if (!m->ids) return m->status = NH_ERR_NOMEM;
  int *p = m->ids;
  m->dH = take(&p, (size_t)n), m->Hs = take(&p, nn), m->Pi = take(&p, nn), m->PT = take(&p, nn);
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
#undef CHK
  if (bad) return m->status = NH_ERR_NOMEM;
  int deg = poly_degree(P, m->ham, 0, n, 0);
  m->hdeg = deg > 0 ? deg : 0;
  return NH_OK;
}

int mf_derive(mf *m) {
  if (m->poisson) return derive_poisson(m);
  const int nq = m->nq, nc = m->nc, ng = m->ngap;
  const size_t n = (size_t)nq, n2 = n * n;
  const int want_d2m = nq <= MF_D2M_MAX_Q;
  int all_holonomic = nc > 0;
  for (int k = 0; k < nc; k++) all_holonomic &= m->con[k].holonomic;
  size_t total = n2 + n + n + n2 + n2 * n + (want_d2m ? n2 * n2 : 0) + n + 2 * n2 +
                 (size_t)nc * n + (size_t)nc + n * (size_t)nc * n + (size_t)ng + (size_t)ng * n +
                 (all_holonomic ? (size_t)nc : 0) + 1;
  m->ids = malloc(total * sizeof(int));
  if (!m->ids) return m->status = NH_ERR_NOMEM;
  int *p = m->ids;
  m->M = take(&p, n2), m->c = take(&p, n), m->dV = take(&p, n), m->H = take(&p, n2);
  m->dM = take(&p, n2 * n), m->d2M = want_d2m ? take(&p, n2 * n2) : NULL;
  m->f = take(&p, n), m->dfdq = take(&p, n2), m->dfdv = take(&p, n2);
  m->A = take(&p, (size_t)nc * n), m->Adv = take(&p, (size_t)nc);
  m->dA = take(&p, n * (size_t)nc * n), m->g = take(&p, (size_t)ng), m->dg = take(&p, (size_t)ng * n);
  m->phi = all_holonomic ? take(&p, (size_t)nc) : NULL;
  for (int k = 0; m->phi && k < nc; k++) m->phi[k] = m->con[k].phi;

  nh_expr_pool *P = m->pool;
  int bad = 0; /* any -1: out of memory */
#define CHK(x) ((x) < 0 ? (bad = 1, 0) : (x))
  int zero = CHK(nh_expr_const(P, 0.0));
  int vel[NH_MF_MAX_Q];
  for (int i = 0; i < nq; i++) vel[i] = CHK(nh_expr_var(P, nq + i));
  /* kinetic: momenta, mass matrix, Coriolis */
  for (int i = 0; i < nq && !bad; i++) {
    int pi = CHK(nh_expr_diff(P, m->kinetic, nq + i));
    for (int j = 0; j < nq; j++) {
      int e = CHK(nh_expr_diff(P, pi, nq + j));
      m->M[i * nq + j] = e;
      if (!bad && nh_expr_uses_vars(P, e, nq, 2 * nq) > 0)
        return mf_fail(m, m->kinetic_off, "the kinetic energy is not a quadratic form in the "
                                          "velocities: d2T/d%s'd%s' depends on the velocities",
                       m->coord[i], m->coord[j]), m->status;
    }
    int ci = CHK(nh_expr_neg(P, CHK(nh_expr_diff(P, m->kinetic, i))));
    for (int k = 0; k < nq; k++) ci = CHK(nh_expr_add(P, ci, CHK(nh_expr_mul(P, CHK(nh_expr_diff(P, pi, k)), vel[k]))));
    m->c[i] = ci;
  }
  /* potential */
  m->V = m->potential >= 0 ? m->potential : zero;
  for (int i = 0; i < nq; i++) m->dV[i] = CHK(nh_expr_diff(P, m->V, i));
  for (int i = 0; i < nq; i++)
    for (int j = 0; j < nq; j++) m->H[i * nq + j] = CHK(nh_expr_diff(P, m->dV[i], j));
  /* derivatives of M */
  for (int k = 0; k < nq; k++)
    for (int ij = 0; ij < nq * nq; ij++) m->dM[(size_t)k * n2 + ij] = CHK(nh_expr_diff(P, m->M[ij], k));
  if (m->d2M)
    for (int k = 0; k < nq; k++)
      for (size_t lij = 0; lij < n2 * n; lij++)
        m->d2M[(size_t)k * n2 * n + lij] = CHK(nh_expr_diff(P, m->dM[lij], k));
  /* forces and their Jacobians */
  for (int i = 0; i < nq; i++) {
    m->f[i] = m->force[i] >= 0 ? m->force[i] : zero;
    for (int j = 0; j < nq; j++) {
      m->dfdq[i * nq + j] = CHK(nh_expr_diff(P, m->f[i], j));
      m->dfdv[i * nq + j] = CHK(nh_expr_diff(P, m->f[i], nq + j));
    }
  }
  /* constraints */
  for (int k = 0; k < nc && !bad; k++) {
    int adv = zero;
    for (int j = 0; j < nq; j++) {
      int a = CHK(nh_expr_diff(P, m->con[k].node, nq + j));
      m->A[k * nq + j] = a;
      if (!bad && nh_expr_uses_vars(P, a, nq, 2 * nq) > 0)
        return mf_fail(m, m->con[k].off, "constraint '%s' is not linear in the velocities "
                                         "(its coefficient of %s' depends on the velocities)",
                       m->con[k].name, m->coord[j]), m->status;
      int rate = zero; /* d A_kj / dt = sum_i dA_kj/dq_i v_i */
      for (int i = 0; i < nq; i++) {
        int d = CHK(nh_expr_diff(P, a, i));
        m->dA[((size_t)i * nc + k) * n + j] = d;
        rate = CHK(nh_expr_add(P, rate, CHK(nh_expr_mul(P, d, vel[i]))));
      }
      adv = CHK(nh_expr_add(P, adv, CHK(nh_expr_mul(P, rate, vel[j]))));
    }
    m->Adv[k] = adv;
  }
  /* gaps */
  for (int k = 0; k < ng; k++) {
    m->g[k] = m->gap[k].node;
    for (int j = 0; j < nq; j++) m->dg[k * nq + j] = CHK(nh_expr_diff(P, m->g[k], j));
  }
#undef CHK
  if (bad) return m->status = NH_ERR_NOMEM;
  return NH_OK;
}

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
  case MF_EV_DM: return nq * nq * nq;
  case MF_EV_D2M: return m->d2M ? nq * nq * nq * nq : 0;
  case MF_EV_H: return nq * nq;
  case MF_EV_DA: return nq * nc * nq;
  case MF_EV_DFDQ: return nq * nq;
  case MF_EV_DFDV: return nq * nq;
  case MF_EV_PHI: return m->phi ? nc : 0;
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
  case MF_EV_DM: put(ids, m->dM, nq * nq * nq); break;
  case MF_EV_D2M: if (m->d2M) put(ids, m->d2M, nq * nq * nq * nq); break;
  case MF_EV_H: put(ids, m->H, nq * nq); break;
  case MF_EV_DA: put(ids, m->dA, nq * nc * nq); break;
  case MF_EV_DFDQ: put(ids, m->dfdq, nq * nq); break;
  case MF_EV_DFDV: put(ids, m->dfdv, nq * nq); break;
  case MF_EV_PHI: if (m->phi) put(ids, m->phi, nc); break;
  case MF_EV_HAM: ids[0] = m->ham; break;
  case MF_EV_DH: put(ids, m->dH, nq); break;
  case MF_EV_HDH: ids[0] = m->ham, put(ids + 1, m->dH, nq); break;
  case MF_EV_PI: put(ids, m->Pi, nq * nq); break;
  case MF_EV_HS: put(ids, m->Hs, nq * nq); break;
  case MF_EV_PT: put(ids, m->PT, nq * nq); break;
  default: break;
  }
}

const char *mf_group_symbol(int ev) {
  static const char *const names[MF_EV_COUNT] = {
      "nh_mf_mass", "nh_mf_v",   "nh_mf_dv", "nh_mf_vdv", "nh_mf_cor", "nh_mf_force",
      "nh_mf_a",    "nh_mf_adv", "nh_mf_aadv", "nh_mf_g", "nh_mf_dg",  "nh_mf_gdg",
      "nh_mf_dm",   "nh_mf_d2m", "nh_mf_h",  "nh_mf_da",  "nh_mf_dfdq", "nh_mf_dfdv", "nh_mf_phi",
      "nh_mf_ham",  "nh_mf_dh",  "nh_mf_hdh", "nh_mf_pi",  "nh_mf_hs",   "nh_mf_pt"};
  return ev >= 0 && ev < MF_EV_COUNT ? names[ev] : "";
}

/* ---- evaluators ----------------------------------------------------------------------------- *
 * Generated C brings its own evaluators (codegen.c), which the model calls directly. The tape
 * back end has one tape per group, run by the evaluators below, with their slots in a
 * per-thread buffer that grows once (the model stays shareable between threads). */

typedef struct mf_eval {
  int nq, nc, ng;
  nh_tape *t[MF_EV_COUNT];
  void *dl; /* the loaded shared object (codegen) */
} mf_eval;

/* per-thread scratch: tape slots and the split outputs of pair groups, grown once. Two
 * words of initial-exec TLS: no __tls_get_addr call per evaluation in position-independent
 * code. */
#if defined(__GNUC__)
#define MF_TLS _Thread_local __attribute__((tls_model("initial-exec")))
#else
#define MF_TLS _Thread_local
#endif
static MF_TLS double *tls_buf;
static MF_TLS size_t tls_size;

static double *scratch(size_t n) {
  if (n > tls_size) {
    double *b = realloc(tls_buf, sizeof(double) * n);
    if (!b) return NULL;
    tls_buf = b, tls_size = n;
  }
  return tls_buf;
}

/* tape ev at vars into out; extra doubles of scratch are kept free before the slots */
static int run_at(const mf_eval *u, int ev, const double *vars, double *out, size_t extra) {
  const nh_tape *t = u->t[ev];
  double *b = scratch(extra + (size_t)nh_tape_nslots(t));
  if (!b) return -1;
  nh_tape_eval(t, vars, b + extra, out);
  return 0;
}
static int run(const mf_eval *u, int ev, const double *vars, double *out) {
  return run_at(u, ev, vars, out, 0);
}

/* [q, v, t] for the groups that read velocities or time */
static void pack(int nq, const double *q, const double *v, double t, double *x) {
  memcpy(x, q, sizeof(double) * (size_t)nq);
  if (v) memcpy(x + nq, v, sizeof(double) * (size_t)nq);
  else memset(x + nq, 0, sizeof(double) * (size_t)nq);
  x[2 * nq] = t;
}

/* run a two-part group into a and b (either Nullable) */
static int run_pair(const mf_eval *u, int ev_a, int ev_b, int ev_ab, int na, int nb,
                    const double *vars, double *a, double *b) {
  if (a && b) {
    size_t n = (size_t)(na + nb);
    double *tmp = scratch(n + (size_t)nh_tape_nslots(u->t[ev_ab]));
    if (!tmp) return -1;
    int rc = run_at(u, ev_ab, vars, tmp, n); /* the slots follow the n outputs */
    memcpy(a, tmp, sizeof(double) * (size_t)na);
    memcpy(b, tmp + na, sizeof(double) * (size_t)nb);
    return rc;
  }
  if (a) return run(u, ev_a, vars, a);
  if (b) return run(u, ev_b, vars, b);
  return 0;
}

static int ev_mass(const double *q, double *M, void *user) { return run(user, MF_EV_MASS, q, M); }
static int ev_potential(const double *q, double *V, double *dV, void *user) {
  const mf_eval *u = user;
  return run_pair(u, MF_EV_V, MF_EV_DV, MF_EV_VDV, 1, u->nq, q, V, dV);
}
static int ev_coriolis(const double *q, const double *v, double *c, void *user) {
  const mf_eval *u = user;
  double x[2 * NH_MF_MAX_Q + 1];
  pack(u->nq, q, v, 0.0, x);
  return run(u, MF_EV_COR, x, c);
}
static int ev_force(double t, const double *q, const double *v, double *f, void *user) {
  const mf_eval *u = user;
  double x[2 * NH_MF_MAX_Q + 1];
  pack(u->nq, q, v, t, x);
  return run(u, MF_EV_FORCE, x, f);
}
static int ev_constraint(const double *q, const double *v, double *A, double *Adv, void *user) {
  const mf_eval *u = user;
  double x[2 * NH_MF_MAX_Q + 1];
  if (!Adv) return A ? run(u, MF_EV_A, q, A) : 0; /* A reads q only */
  pack(u->nq, q, v, 0.0, x);
  return run_pair(u, MF_EV_A, MF_EV_ADV, MF_EV_AADV, u->nc * u->nq, u->nc, x, A, Adv);
}
static int ev_gap(const double *q, double *g, double *dg, void *user) {
  const mf_eval *u = user;
  return run_pair(u, MF_EV_G, MF_EV_DG, MF_EV_GDG, u->ng, u->ng * u->nq, q, g, dg);
}
static int ev_dmass(const double *q, double *dM, void *user) { return run(user, MF_EV_DM, q, dM); }
static int ev_d2mass(const double *q, double *d2M, void *user) { return run(user, MF_EV_D2M, q, d2M); }
static int ev_hess(const double *q, double *H, void *user) { return run(user, MF_EV_H, q, H); }
static int ev_dA(const double *q, double *dA, void *user) { return run(user, MF_EV_DA, q, dA); }
static int ev_phi(const double *q, double *phi, void *user) { return run(user, MF_EV_PHI, q, phi); }
static int ev_ham(const double *x, double *H, double *dH, void *user) {
  const mf_eval *u = user;
  return run_pair(u, MF_EV_HAM, MF_EV_DH, MF_EV_HDH, 1, u->nq, x, H, dH);
}
static int ev_pi(const double *x, double *Pi, void *user) { return run(user, MF_EV_PI, x, Pi); }
static int ev_hs(const double *x, double *Hs, void *user) { return run(user, MF_EV_HS, x, Hs); }
static int ev_pt(const double *x, const double *g, double *T, void *user) {
  const mf_eval *u = user;
  double xg[2 * NH_MF_MAX_Q + 1];
  pack(u->nq, x, g, 0.0, xg);
  return run(u, MF_EV_PT, xg, T);
}
static int ev_fjac(double t, const double *q, const double *v, double *dfdq, double *dfdv, void *user) {
  const mf_eval *u = user;
  double x[2 * NH_MF_MAX_Q + 1];
  pack(u->nq, q, v, t, x);
  int rc = dfdq ? run(u, MF_EV_DFDQ, x, dfdq) : 0;
  return rc ? rc : dfdv ? run(u, MF_EV_DFDV, x, dfdv) : 0;
}

static void mf_eval_free(void *user) {
  mf_eval *u = user;
  if (!u) return;
  for (int i = 0; i < MF_EV_COUNT; i++) nh_tape_destroy(u->t[i]);
  mf_codegen_unload(u->dl);
  free(u);
}

static int all_zero(const mf *m, const int *ids, int n) {
  for (int i = 0; i < n; i++) {
    double v;
    if (!nh_expr_is_const(m->pool, ids[i], &v) || v != 0.0) return 0;
  }
  return 1;
}

/* the evaluators of d, on compiled code (codegen) or tapes; *why says why codegen failed.
 * Terms that vanish identically (Coriolis for a constant M, no forces, V = 0) get no
 * evaluator, so the dynamics skip them as they do for hand-written models. */
static int mf_evaluators(const mf *m, nh_model_def *d, int codegen, char *why, size_t why_size) {
  mf_eval *u = calloc(1, sizeof *u);
  if (!u) return NH_ERR_NOMEM;
  u->nq = m->nq, u->nc = m->nc, u->ng = m->ngap;
  int rc = NH_OK;
  mf_compiled c;
  memset(&c, 0, sizeof c);
  if (codegen) {
    rc = mf_codegen_load(m, &c, &u->dl, why, why_size);
  } else {
    int cap = 1;
    for (int ev = 0; ev < MF_EV_COUNT; ev++)
      if (mf_group_size(m, ev) > cap) cap = mf_group_size(m, ev);
    int *ids = malloc(sizeof(int) * (size_t)cap);
    rc = ids ? NH_OK : NH_ERR_NOMEM;
    for (int ev = 0; ev < MF_EV_COUNT && rc == NH_OK; ev++) {
      int n = mf_group_size(m, ev);
      if (n == 0) continue;
      mf_group_outputs(m, ev, ids);
      if (!(u->t[ev] = nh_tape_create(m->pool, n, ids))) rc = NH_ERR_NOMEM;
    }
    free(ids);
    c.mass = ev_mass, c.potential = ev_potential, c.coriolis = ev_coriolis, c.force = ev_force;
    c.constraint = ev_constraint, c.gap = ev_gap, c.dmass = ev_dmass, c.d2mass = ev_d2mass;
    c.hess = ev_hess, c.dA = ev_dA, c.fjac = ev_fjac, c.phi = ev_phi;
    c.ham = ev_ham, c.pi = ev_pi, c.hs = ev_hs, c.pt = ev_pt;
  }
  if (rc != NH_OK) {
    mf_eval_free(u);
    return rc;
  }
  if (m->poisson) {
    d->hamiltonian = c.ham;
    d->poisson = c.pi;
    d->hamiltonian_hess = c.hs;
    d->poisson_jac = c.pt;
    d->poisson_sparse = c.pi_s; /* NULL on tapes */
    d->hamiltonian_hess_sparse = c.hs_s;
    d->poisson_jac_sparse = c.pt_s;
    d->hamiltonian_degree = m->hdeg;
  } else {
    const int nq = m->nq;
    double V0 = 1.0;
    int no_V = nh_expr_is_const(m->pool, m->V, &V0) && V0 == 0.0;
    int no_f = all_zero(m, m->f, nq);
    d->mass = c.mass;
    d->potential = no_V ? NULL : c.potential;
    d->coriolis = all_zero(m, m->c, nq) ? NULL : c.coriolis;
    d->force = no_f ? NULL : c.force;
    d->constraint = m->nc ? c.constraint : NULL;
    d->gap = m->ngap ? c.gap : NULL;
    d->mass_deriv = c.dmass;
    d->mass_deriv2 = m->d2M ? c.d2mass : NULL;
    d->potential_hess = c.hess;
    d->constraint_deriv = m->nc ? c.dA : NULL;
    d->force_jac = no_f ? NULL : c.fjac;
    d->holonomic = m->phi ? c.phi : NULL;
    d->has_se2 = m->has_se2;
    for (int i = 0; i < 3; i++) d->se2[i] = m->se2[i];
  }
  d->user = u;
  d->user_free = mf_eval_free;
  d->backend = codegen ? "codegen" : "tape";
  return NH_OK;
}

/* ---- checks ----------------------------------------------------------------------------------- */

/* deterministic xorshift, for the trial states of the form checks */
static double rnd(unsigned long long *s) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
}

/* an almost-Poisson model at its initial state: H, grad H and Pi finite */
static int check_poisson(mf *m) {
  const int n = m->nq;
  double x[2 * NH_MF_MAX_Q + 1] = {0};
  for (int i = 0; i < n; i++) x[i] = m->q0[i];
  double H = nh_expr_eval(m->pool, m->ham, x);
  if (!isfinite(H)) return mf_fail(m, m->ham_off, "the Hamiltonian is not finite at the initial state (H = %g)", H), m->status;
  for (int i = 0; i < n; i++)
    if (!isfinite(nh_expr_eval(m->pool, m->dH[i], x)))
      return mf_fail(m, m->ham_off, "the gradient of the Hamiltonian is not finite at the initial state "
                                    "(dH/d%s)", m->coord[i]), m->status;
  for (int k = 0; k < m->npi; k++)
    if (!isfinite(nh_expr_eval(m->pool, m->pi_node[k], x)))
      return mf_fail(m, m->pi_off[k], "Pi[%s,%s] is not finite at the initial state", m->coord[m->pi_a[k]],
                     m->coord[m->pi_b[k]]), m->status;
  return NH_OK;
}

int mf_check(mf *m) {
  if (m->poisson) return check_poisson(m);
  const int nq = m->nq, nc = m->nc;
  /* one tape for everything checked here: T, M, phi, A, g */
  int nout = 1 + nq * nq + nc + nc * nq + m->ngap;
  int *ids = malloc(sizeof(int) * (size_t)nout);
  double *out = malloc(sizeof(double) * (size_t)nout);
  double *x = malloc(sizeof(double) * (size_t)(2 * nq + 1));
  nh_tape *t = NULL;
  double *slots = NULL;
  if (!ids || !out || !x) goto nomem;
  ids[0] = m->kinetic;
  memcpy(ids + 1, m->M, sizeof(int) * (size_t)(nq * nq));
  for (int k = 0; k < nc; k++) ids[1 + nq * nq + k] = m->con[k].node;
  memcpy(ids + 1 + nq * nq + nc, m->A, sizeof(int) * (size_t)(nc * nq));
  memcpy(ids + 1 + nq * nq + nc + nc * nq, m->g, sizeof(int) * (size_t)m->ngap);
  if (!(t = nh_tape_create(m->pool, nout, ids))) goto nomem;
  if (!(slots = malloc(sizeof(double) * (size_t)(nh_tape_nslots(t) + 1)))) goto nomem;
  const double *T = out, *M = out + 1, *phi = M + nq * nq, *A = phi + nc, *g = A + nc * nq;

  /* T must be 1/2 v^T M v and phi_k must be A_k v at trial states around the initial one */
  unsigned long long seed = 0x9e3779b97f4a7c15ULL;
  for (int trial = 0; trial < MF_FORM_TRIALS && !m->status; trial++) {
    for (int i = 0; i < nq; i++) {
      x[i] = m->q0[i] + (trial ? 0.5 * rnd(&seed) : 0.0);
      x[nq + i] = 1.0 + rnd(&seed);
    }
    x[2 * nq] = 0.0;
    nh_tape_eval(t, x, slots, out);
    double quad = 0.0, scale = fabs(*T);
    for (int i = 0; i < nq; i++)
      for (int j = 0; j < nq; j++) {
        quad += 0.5 * x[nq + i] * M[i * nq + j] * x[nq + j];
        scale += 0.5 * fabs(x[nq + i] * M[i * nq + j] * x[nq + j]);
      }
    if (isfinite(*T) && isfinite(quad) && !(fabs(*T - quad) <= MF_FORM_TOL * (scale + 1e-300)))
      mf_fail(m, m->kinetic_off, "the kinetic energy is not a quadratic form in the velocities "
                                 "(T - 1/2 v^T M v = %.3g at a trial state): it has terms of degree "
                                 "0 or 1 in the velocities", *T - quad);
    for (int k = 0; k < nc && !m->status; k++) {
      double av = 0.0, sc = 0.0;
      for (int j = 0; j < nq; j++) av += A[k * nq + j] * x[nq + j], sc += fabs(A[k * nq + j] * x[nq + j]);
      if (isfinite(phi[k]) && !(fabs(phi[k] - av) <= MF_FORM_TOL * (sc + fabs(phi[k]) + 1e-300)))
        mf_fail(m, m->con[k].off, "constraint '%s' is not homogeneous in the velocities (it has a "
                                  "term without a velocity: %.3g at a trial state)",
                m->con[k].name, phi[k] - av);
    }
  }
  if (m->status) goto done;

  /* the initial state */
  for (int i = 0; i < nq; i++) x[i] = m->q0[i], x[nq + i] = m->v0[i];
  x[2 * nq] = 0.0;
  nh_tape_eval(t, x, slots, out);
  double L[NH_MF_MAX_Q * NH_MF_MAX_Q];
  for (int i = 0; i < nq * nq; i++) {
    if (!isfinite(M[i])) {
      mf_fail(m, m->kinetic_off, "the mass matrix is not finite at the initial state (entry %s, %s)",
              m->coord[i / nq], m->coord[i % nq]);
      goto done;
    }
    L[i] = M[i];
  }
  int rank = 0;
  if (nh_la_chol(nq, L, MF_RANK_TOL, &rank) != NH_OK) {
    mf_fail(m, m->kinetic_off, "the mass matrix is not positive definite at the initial state (no "
                               "positive pivot for coordinate '%s': is every velocity in the "
                               "kinetic energy, with a positive coefficient?)",
            m->coord[rank < nq ? rank : nq - 1]);
    goto done;
  }
  /* constraints independent: the Gram matrix of rows 0..k stays of full rank */
  for (int k = 0; k < nc; k++) {
    double G[64 * 64];
    if (k >= 64) break; /* rank checks beyond 64 constraints are left to the simulation */
    for (int a = 0; a <= k; a++)
      for (int b = 0; b <= k; b++) G[a * (k + 1) + b] = nh_la_dot(nq, A + a * nq, A + b * nq);
    int r = 0;
    if (nh_la_norm_inf(nq, A + k * nq) == 0.0) {
      mf_fail(m, m->con[k].off, "constraint '%s' has no velocity terms at the initial state (all its "
                                "coefficients vanish)", m->con[k].name);
      goto done;
    }
    if (!isfinite(G[k * (k + 1) + k]) || nh_la_chol(k + 1, G, MF_RANK_TOL, &r) != NH_OK) {
      mf_fail(m, m->con[k].off, "constraint '%s' is not independent of the constraints before it "
                                "at the initial state", m->con[k].name);
      goto done;
    }
  }
  /* initial velocities admissible */
  for (int k = 0; k < nc && !m->opts->project_initial; k++) {
    double r = nh_la_dot(nq, A + k * nq, m->v0);
    if (!(fabs(r) <= MF_CONSTRAINT_TOL)) {
      mf_fail(m, m->initial_off, "the initial velocities violate constraint '%s' (|A v| = %.3g > "
                                 "%g); correct them, or project them with --project-initial",
              m->con[k].name, fabs(r), MF_CONSTRAINT_TOL);
      goto done;
    }
  }
  /* holonomic constraints hold at the initial configuration */
  for (int k = 0; k < nc; k++) {
    if (!m->con[k].holonomic) continue;
    double phi = nh_expr_eval(m->pool, m->con[k].phi, x);
    if (!(fabs(phi) <= MF_CONSTRAINT_TOL)) {
      mf_fail(m, m->con[k].off, "the initial configuration violates holonomic constraint '%s' "
                                "(phi = %.3g, |phi| > %g)", m->con[k].name, phi, MF_CONSTRAINT_TOL);
      goto done;
    }
  }
  /* initial state inside every gap */
  for (int k = 0; k < m->ngap; k++)
    if (!(g[k] >= 0.0)) {
      mf_fail(m, m->gap[k].off, "the initial state is outside gap '%s' (g = %.6g < 0; the "
                                "admissible region is g >= 0)", m->gap[k].name, g[k]);
      goto done;
    }
done:
  nh_tape_destroy(t);
  free(ids), free(out), free(x), free(slots);
  return m->status;
nomem:
  m->status = NH_ERR_NOMEM;
  goto done;
}

/* ---- public entry points ------------------------------------------------------------------------ */

/* read and check everything; on failure the diagnostic is in msg */
static int mf_prepare(mf *m, const char *text, const char *filename, const nh_load_opts *opts,
                      char *msg, size_t msg_size) {
  static nh_load_opts defaults;
  defaults = nh_load_opts_default();
  if (opts && opts->internal_cookie != NH_LOAD_COOKIE) {
    nh_set_msg(msg, msg_size, "load options not initialised with nh_load_opts_default()");
    return NH_ERR_ARG;
  }
  if (opts && opts->nset > 0 && (!opts->set_names || !opts->set_values)) {
    nh_set_msg(msg, msg_size, "nset > 0 but set_names or set_values is NULL");
    return NH_ERR_ARG;
  }
  m->file = filename ? filename : "<input>";
  m->text = text;
  m->len = strlen(text);
  m->opts = opts ? opts : &defaults;
  if (!mf_read(m) && !mf_derive(m)) mf_check(m);
  if (m->status == NH_ERR_NOMEM) {
    nh_set_msg(msg, msg_size, "%s: out of memory", m->file);
  } else if (m->status) {
    if (m->err.line > 0)
      nh_parse_error_format(msg, msg_size, m->file, text, &m->err);
    else
      nh_set_msg(msg, msg_size, "%s: %s", m->file, m->err.msg);
  }
  return m->status;
}

/* e is the constant 0 */
static int is_zero(const mf *m, int e) {
  double v;
  return nh_expr_is_const(m->pool, e, &v) && v == 0.0;
}

static nh_model *mf_build(mf *m, char *msg, size_t msg_size) {
  const char *cnames[NH_MF_MAX_Q];
  const char *pn[NH_MF_MAX_ITEMS], *kn[NH_MF_MAX_ITEMS], *gn[NH_MF_MAX_ITEMS];
  double pv[NH_MF_MAX_ITEMS];
  nh_impact_law law[NH_MF_MAX_ITEMS];
  for (int i = 0; i < m->nq; i++) cnames[i] = m->coord[i];
  for (int i = 0; i < m->npar; i++) pn[i] = m->par[i].name, pv[i] = m->par[i].value;
  for (int i = 0; i < m->nc; i++) kn[i] = m->con[i].name;
  for (int i = 0; i < m->ngap; i++) {
    gn[i] = m->gap[i].name;
    law[i].kind = (nh_impact_kind)m->gap[i].law;
    law[i].e = m->gap[i].value;
    if (m->opts->impact_override) law[i] = m->opts->impact;
  }
  nh_model_def d = nh_model_def_default();
  d.name = m->name;
  d.npar = m->npar;
  d.param_names = pn;
  d.param_values = pv;
  unsigned char pip[NH_MF_MAX_Q * NH_MF_MAX_Q], ptp[NH_MF_MAX_Q * NH_MF_MAX_Q];
  if (m->poisson) { /* an ODE-form model given by Pi and H */
    d.form = NH_FORM_ODE;
    d.nx = m->nq;
    d.state_names = cnames;
    d.x0 = m->q0;
    // the entries of Pi and T that are not identically zero
    for (int ij = 0; ij < m->nq * m->nq; ij++) pip[ij] = !is_zero(m, m->Pi[ij]), ptp[ij] = !is_zero(m, m->PT[ij]);
    d.poisson_pattern = pip, d.poisson_jac_pattern = ptp;
  } else {
    d.nq = m->nq, d.nc = m->nc, d.ngap = m->ngap;
    d.coord_names = cnames;
    d.constraint_names = kn;
    d.gap_names = gn;
    d.impact = law;
    d.q0 = m->q0;
    d.v0 = m->v0;
  }
  char why[512] = "";
  int rc = NH_ERR_UNSUPPORTED;
  if (m->opts->backend != NH_BACKEND_TAPE) rc = mf_evaluators(m, &d, 1, why, sizeof why);
  if (rc != NH_OK && m->opts->backend == NH_BACKEND_CODEGEN) {
    nh_set_msg(msg, msg_size, "%s: compiled evaluation is not available: %s", m->file, why);
    return NULL;
  }
  if (rc != NH_OK && (rc = mf_evaluators(m, &d, 0, why, sizeof why)) != NH_OK) {
    nh_set_msg(msg, msg_size, "%s: out of memory", m->file);
    return NULL;
  }
  nh_model *model = nh_model_create(&d, msg, msg_size);
  if (!model) d.user_free((void *)(uintptr_t)d.user);
  return model;
}

nh_model *nh_model_parse(const char *text, const char *filename, const nh_load_opts *opts,
                         char *msg, size_t msg_size) {
  nh_set_msg(msg, msg_size, "%s", "");
  if (!text) {
    nh_set_msg(msg, msg_size, "no model text");
    return NULL;
  }
  mf *m = calloc(1, sizeof *m);
  if (!m) {
    nh_set_msg(msg, msg_size, "out of memory");
    return NULL;
  }
  nh_model *model = NULL;
  if (mf_prepare(m, text, filename, opts, msg, msg_size) == NH_OK) model = mf_build(m, msg, msg_size);
  mf_free(m);
  free(m);
  return model;
}

/* the whole file as a NUL-terminated string, or NULL with a reason */
static char *read_file(const char *path, char *msg, size_t msg_size) {
  FILE *f = path ? fopen(path, "rb") : NULL;
  if (!f) {
    nh_set_msg(msg, msg_size, "%s: cannot open the model file", path ? path : "(null)");
    return NULL;
  }
  char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      cap = cap ? 2 * cap : 8192;
      char *b = cap <= MF_MAX_FILE + 8192 ? realloc(buf, cap) : NULL;
      if (!b) {
        nh_set_msg(msg, msg_size, "%s: the file is too large (more than %u bytes) or memory ran out",
                   path, MF_MAX_FILE);
        free(buf), fclose(f);
        return NULL;
      }
      buf = b;
    }
    size_t got = fread(buf + len, 1, 4096, f);
    len += got;
    if (got < 4096) break;
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    nh_set_msg(msg, msg_size, "%s: read error", path);
    free(buf);
    return NULL;
  }
  buf[len] = '\0';
  if (strlen(buf) != len) { /* FILE:LINE:COL, the line up to the NUL, a caret */
    nh_parse_error e = {1, 1, ""};
    for (size_t i = 0; i < strlen(buf); i++) {
      if (buf[i] == '\n')
        e.line++, e.col = 1;
      else
        e.col++;
    }
    snprintf(e.msg, sizeof e.msg, "unexpected NUL byte (not a text file?)");
    nh_parse_error_format(msg, msg_size, path, buf, &e);
    free(buf);
    return NULL;
  }
  return buf;
}

nh_model *nh_model_load(const char *path, const nh_load_opts *opts, char *msg, size_t msg_size) {
  char *text = read_file(path, msg, msg_size);
  if (!text) return NULL;
  nh_model *model = nh_model_parse(text, path, opts, msg, msg_size);
  free(text);
  return model;
}

const char *nh_model_backend(const nh_model *model) { return model ? model->backend : ""; }

void nh_free(void *p) { free(p); }

/* ---- the report of `nholo check` ------------------------------------------------------------------ */

static void sb_expr(nh_text *b, const mf *m, int e, const char *const *names) {
  char small[256];
  size_t need = nh_expr_print(m->pool, e, names, small, sizeof small);
  if (need < sizeof small) {
    nh_text_printf(b, "%s", small);
    return;
  }
  char *big = malloc(need + 1);
  if (!big) {
    b->nomem = 1;
    return;
  }
  nh_expr_print(m->pool, e, names, big, need + 1);
  nh_text_printf(b, "%s", big);
  free(big);
}

/* the report of an almost-Poisson model */
static void describe_poisson(nh_text *b, const mf *m, const nh_model *model, const char *const *names) {
  const int n = m->nq;
  nh_text_printf(b, "model %s: almost-Poisson form, %d state variables, %d parameters\nstate:", m->name, n,
                 m->npar);
  for (int i = 0; i < n; i++) nh_text_printf(b, " %s", m->coord[i]);
  nh_text_printf(b, "\n");
  for (int i = 0; i < m->npar; i++) nh_text_printf(b, "parameter %s = %.15g\n", m->par[i].name, m->par[i].value);
  nh_text_printf(b, "\nHamiltonian H = ");
  sb_expr(b, m, m->ham, names);
  if (m->hdeg > 0) nh_text_printf(b, "   (a polynomial of degree %d: AVF quadrature exact)", m->hdeg);
  nh_text_printf(b, "\ngradient dH/dx (nonzero entries):\n");
  for (int i = 0; i < n; i++)
    if (!is_zero(m, m->dH[i])) {
      nh_text_printf(b, "  dH/d%s = ", m->coord[i]);
      sb_expr(b, m, m->dH[i], names);
      nh_text_printf(b, "\n");
    }
  nh_text_printf(b, "Pi(x) (upper triangle; Pi is skew-symmetric):\n");
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (!is_zero(m, m->Pi[i * n + j])) {
        nh_text_printf(b, "  Pi[%s,%s] = ", m->coord[i], m->coord[j]);
        sb_expr(b, m, m->Pi[i * n + j], names);
        nh_text_printf(b, "\n");
      }
  nh_text_printf(b, "\nat the initial state:\n ");
  for (int i = 0; i < n; i++) nh_text_printf(b, " %s = %.10g", m->coord[i], m->q0[i]);
  double H = 0.0;
  model->hamiltonian(m->q0, &H, NULL, model->user);
  nh_text_printf(b, "\n  energy H = %.15g\n", H);
}

char *nh_model_describe(const char *path, const nh_load_opts *opts, char *msg, size_t msg_size) {
  char *text = read_file(path, msg, msg_size);
  if (!text) return NULL;
  mf *m = calloc(1, sizeof *m);
  nh_text b = {NULL, 0, 0, 0};
  nh_model *model = NULL;
  if (!m) {
    nh_set_msg(msg, msg_size, "out of memory");
    goto fail;
  }
  if (mf_prepare(m, text, path, opts, msg, msg_size) != NH_OK) goto fail;
  if (!(model = mf_build(m, msg, msg_size))) goto fail;
  const int nq = m->nq;
  const char *names[2 * NH_MF_MAX_Q + 1];
  char primed[NH_MF_MAX_Q][NH_PARSE_NAME_MAX + 2];
  mf_var_names(m, names, primed);

  if (m->poisson) {
    describe_poisson(&b, m, model, names);
  } else {
    nh_text_printf(&b, "model %s: %d coordinates, %d constraints, %d gaps, %d parameters\n", m->name, nq,
              m->nc, m->ngap, m->npar);
    nh_text_printf(&b, "coordinates:");
    for (int i = 0; i < nq; i++) nh_text_printf(&b, " %s", m->coord[i]);
    nh_text_printf(&b, "\n");
    for (int i = 0; i < m->npar; i++) nh_text_printf(&b, "parameter %s = %.15g\n", m->par[i].name, m->par[i].value);
    nh_text_printf(&b, "\nmass matrix M(q) = d2T/dq'dq' (nonzero entries, upper triangle):\n");
    for (int i = 0; i < nq; i++)
      for (int j = i; j < nq; j++)
        if (!is_zero(m, m->M[i * nq + j])) {
          nh_text_printf(&b, "  M[%s,%s] = ", m->coord[i], m->coord[j]);
          sb_expr(&b, m, m->M[i * nq + j], names);
          nh_text_printf(&b, "\n");
        }
    nh_text_printf(&b, "potential V = ");
    sb_expr(&b, m, m->V, names);
    nh_text_printf(&b, "\ngradient dV/dq (nonzero entries):\n");
    for (int i = 0; i < nq; i++)
      if (!is_zero(m, m->dV[i])) {
        nh_text_printf(&b, "  dV/d%s = ", m->coord[i]);
        sb_expr(&b, m, m->dV[i], names);
        nh_text_printf(&b, "\n");
      }
    nh_text_printf(&b, "Coriolis and centrifugal terms c(q, q') (nonzero entries):\n");
    for (int i = 0; i < nq; i++)
      if (!is_zero(m, m->c[i])) {
        nh_text_printf(&b, "  c[%s] = ", m->coord[i]);
        sb_expr(&b, m, m->c[i], names);
        nh_text_printf(&b, "\n");
      }
    nh_text_printf(&b, "generalized forces f(t, q, q') (nonzero entries):\n");
    for (int i = 0; i < nq; i++)
      if (!is_zero(m, m->f[i])) {
        nh_text_printf(&b, "  f[%s] = ", m->coord[i]);
        sb_expr(&b, m, m->f[i], names);
        nh_text_printf(&b, "\n");
      }
    if (m->has_se2) {
      nh_text_printf(&b, "group se2: theta = %s, x = %s, y = %s; shape:", m->coord[m->se2[0]],
                     m->coord[m->se2[1]], m->coord[m->se2[2]]);
      for (int i = 0; i < nq; i++)
        if (i != m->se2[0] && i != m->se2[1] && i != m->se2[2]) nh_text_printf(&b, " %s", m->coord[i]);
      nh_text_printf(&b, "\n");
    }
    for (int k = 0; k < m->nc; k++) {
      if (m->con[k].holonomic) {
        nh_text_printf(&b, "holonomic %s: phi = ", m->con[k].name);
        sb_expr(&b, m, m->con[k].phi, names);
        nh_text_printf(&b, "\n");
      }
      nh_text_printf(&b, "constraint %s: A = [", m->con[k].name);
      for (int j = 0; j < nq; j++) {
        nh_text_printf(&b, j ? ", " : "");
        sb_expr(&b, m, m->A[k * nq + j], names);
      }
      nh_text_printf(&b, "], (Adot v) = ");
      sb_expr(&b, m, m->Adv[k], names);
      nh_text_printf(&b, "\n");
    }
    for (int k = 0; k < m->ngap; k++) {
      static const char *laws[] = {"elastic", "plastic", "restitution"};
      nh_text_printf(&b, "gap %s (impact %s", m->gap[k].name, laws[m->gap[k].law]);
      if (m->gap[k].law == NH_IMPACT_RESTITUTION) nh_text_printf(&b, " %g", m->gap[k].value);
      nh_text_printf(&b, "): g = ");
      sb_expr(&b, m, m->g[k], names);
      nh_text_printf(&b, "\n  dg = [");
      for (int j = 0; j < nq; j++) {
        nh_text_printf(&b, j ? ", " : "");
        sb_expr(&b, m, m->dg[k * nq + j], names);
      }
      nh_text_printf(&b, "]\n");
    }

    /* evaluated at the initial state */
    nh_text_printf(&b, "\nat the initial state:\n ");
    for (int i = 0; i < nq; i++) nh_text_printf(&b, " %s = %.10g", m->coord[i], m->q0[i]);
    nh_text_printf(&b, "\n ");
    for (int i = 0; i < nq; i++) nh_text_printf(&b, " %s' = %.10g", m->coord[i], m->v0[i]);
    double E = 0.0, res = 0.0, Mq[NH_MF_MAX_Q * NH_MF_MAX_Q];
    int rank = 0;
    nh_model_energy(model, m->q0, m->v0, &E);
    nh_model_constraint_residual(model, m->q0, m->v0, &res);
    model->mass(m->q0, Mq, model->user);
    nh_la_chol(nq, Mq, MF_RANK_TOL, &rank);
    double minpiv = INFINITY;
    for (int i = 0; i < nq; i++) minpiv = fmin(minpiv, Mq[i * nq + i] * Mq[i * nq + i]);
    nh_text_printf(&b, "\n  energy E = %.15g\n  max |A v| = %.3g\n", E, res);
    nh_text_printf(&b, "  M positive definite (smallest squared Cholesky pivot %.6g)\n", minpiv);
    if (m->ngap) {
      double gv[NH_MF_MAX_ITEMS];
      model->gap(m->q0, gv, NULL, model->user);
      for (int k = 0; k < m->ngap; k++) nh_text_printf(&b, "  gap %s = %.10g\n", m->gap[k].name, gv[k]);
    }
  }
  nh_text_printf(&b, "evaluation: %s\n", model->backend);
  if (b.nomem) {
    nh_set_msg(msg, msg_size, "out of memory");
    goto fail;
  }
  nh_model_destroy(model);
  mf_free(m);
  free(m);
  free(text);
  return b.s;
fail:
  nh_model_destroy(model);
  if (m) mf_free(m);
  free(m);
  free(b.s);
  free(text);
  return NULL;
}
