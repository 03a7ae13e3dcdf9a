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
#include <stdlib.h>
#include <string.h>

#include "lang/mf.h"
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

int mf_derive(mf *m) {
  if (m->poisson) return derive_poisson(m);
  const int nq = m->nq, nc = m->nc, ng = m->ngap;
  const size_t n = (size_t)nq, n2 = n * n;
  const int want_d2m = nq <= MF_D2M_MAX_Q;
  int all_holonomic = nc > 0;
  for (int k = 0; k < nc; k++) all_holonomic &= m->con[k].holonomic;
  size_t total = n2 + n + n + n2 + n2 * n + (want_d2m ? n2 * n2 : 0) + n + 2 * n2 +
                 (size_t)nc * n + (size_t)nc + n * (size_t)nc * n + (size_t)ng + (size_t)ng * n +
                 (all_holonomic ? (size_t)nc : 0) + (size_t)m->nmon + 1;
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
  m->mexpr = take(&p, (size_t)m->nmon);
  for (int k = 0; k < m->nmon; k++) m->mexpr[k] = m->mon[k].node;

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
  case MF_EV_DM: return nq * nq * nq;
  case MF_EV_D2M: return m->d2M ? nq * nq * nq * nq : 0;
  case MF_EV_H: return nq * nq;
  case MF_EV_DA: return nq * nc * nq;
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
  case MF_EV_MON: put(ids, m->mexpr, m->nmon); break;
  default: break;
  }
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

int mf_is_zero(const mf *m, int e) {
  double v;
  return nh_expr_is_const(m->pool, e, &v) && v == 0.0;
}

int mf_all_zero(const mf *m, const int *ids, int n) {
  for (int i = 0; i < n; i++)
    if (!mf_is_zero(m, ids[i])) return 0;
  return 1;
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
  case MF_FN_mass_deriv2: return m->d2M != NULL;
  case MF_FN_holonomic: return m->phi != NULL;
  default: return 0; /* flow, predict, the ODE form: not in the language */
  }
}
