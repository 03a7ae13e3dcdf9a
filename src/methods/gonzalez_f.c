/* gonzalez_f.c - GONZALEZ-F: the direct energy-preserving discrete-gradient scheme on T*Q
 * with Lagrange multipliers (Celledoni, Farre Puiggali, Hoiseth, Martin de Diego,
 * "Energy-Preserving Integrators Applied to Nonholonomic Systems", sec. 3.3 eq. (15);
 * spec 002 M3). z = (q, p), p = M(q) v, H(q, p) = 1/2 p^T M^-1 p + V(q), G = gradbar H(z, z')
 * the Gonzalez discrete gradient (12) on R^2n, qbar = (q + q')/2 (spec C5):
 *
 *   q' - q = h G_p
 *   p' - p = h ( -G_q + A(qbar)^T lambda )
 *   A(qbar) G_p = 0                                  (nc equations; 2 nq + nc unknowns)
 *
 * Energy: H(z') - H(z) = G . (z' - z) = h G_p . A^T lambda = 0. The constraint A(q') v' = 0
 * holds only to O(h^2) (the paper's point); A(qbar)(q' - q) = 0 holds exactly.
 * Newton with the exact Jacobian (Hessian of H from dM, d2M and the Hessian of V):
 *   H_pp = M^-1,  H_pq[:, k] = -M^-1 dM_k u,  H_qq[k][l] = (dM_k u) . M^-1 (dM_l u)
 *          - 1/2 u^T d2M_kl u + V_kl,   u = M^-1 p. */
#include <math.h>
#include <string.h>

#include "dg/dg.h"
#include "la/la.h"
#include "methods/method_impl.h"
#include "model/metric.h"
#include "model/model_impl.h"

typedef struct gf_ctx {
  const nh_model *model;
  int n, nc, K;
  double h;
  const double *z;
  nh_metric mt; /* M's factor in L (chol_u) */
  double *L, *u, *dV, *dM, *d2M, *Vh, *a, *b, *A, *dA, *qb, *zero, *dw;
  double *G, *dG, *gw, *zk, *nw;
  nh_dg_sys sys;
} gf_ctx;

#define GF_CTX_DOUBLES ((sizeof(gf_ctx) + sizeof(double) - 1) / sizeof(double))

static size_t gf_core_size(const nh_model *mod) {
  size_t n = (size_t)mod->nq, nc = (size_t)mod->nc, K = 2 * n + nc;
  return GF_CTX_DOUBLES + n * n + n + n + n * n * n + n * n * n * n + n * n + 2 * n * n + nc * n +
         n * nc * n + n + n + nh_model_deriv_work_size(mod) + 2 * n + 4 * n * n +
         nh_dg_work_size((int)(2 * n)) + K + nh_newton_work_size((int)K) + 16;
}
static size_t gf_work_size(const nh_model *mod) { return gf_core_size(mod) + 4 * (size_t)mod->nq + 1; }

static int gf_supports(const nh_model *mod) {
  return mod->nc >= 1 && !mod->force ? NH_OK : NH_ERR_UNSUPPORTED;
}

/* M(q) factored into L, u = M^-1 p */
static int chol_u(gf_ctx *c, const double *q, const double *p) {
  int rc;
  nh_metric_init(&c->mt, c->n, 0, c->L, NULL); /* (c->L is also M's buffer in the step: afresh) */
  if ((rc = nh_metric_eval(&c->mt, c->model, q))) return rc;
  nh_la_copy(c->n, p, c->u);
  nh_metric_solve(&c->mt, c->u);
  return 0;
}

/* canonical H, grad H (Pi unused) */
static int gf_eval(const double *z, double *H, double *dH, double *Pi, void *user) {
  gf_ctx *c = user;
  const nh_model *mod = c->model;
  const int n = c->n;
  const double *q = z, *p = z + n;
  double V = 0.0;
  int rc;
  (void)Pi;
  if ((rc = chol_u(c, q, p))) return rc;
  if (mod->potential && (rc = nh_cb(mod->potential(q, H ? &V : NULL, dH ? c->dV : NULL, mod->user)))) return rc;
  if (!mod->potential) memset(c->dV, 0, sizeof(double) * (size_t)n);
  if (H) *H = 0.5 * nh_la_dot(n, p, c->u) + V;
  if (!dH) return 0;
  if (mod->coriolis && (rc = nh_model_mass_deriv(mod, q, c->dM, c->dw))) return rc;
  for (int k = 0; k < n; k++) {
    double kin = 0.0;
    if (mod->coriolis) {
      const double *dMk = c->dM + (size_t)k * n * n;
      for (int j = 0; j < n; j++) kin += c->u[j] * nh_la_dot(n, dMk + (size_t)j * n, c->u);
    }
    dH[k] = -0.5 * kin + c->dV[k];
  }
  nh_la_copy(n, c->u, dH + n);
  return 0;
}

static int gf_hess(const double *z, double *Hs, void *user) {
  gf_ctx *c = user;
  const nh_model *mod = c->model;
  const int n = c->n, N = 2 * n;
  const double *q = z, *p = z + n;
  int rc;
  if ((rc = chol_u(c, q, p))) return rc;
  if (mod->potential) {
    if ((rc = nh_model_potential_hess(mod, q, c->Vh, c->dw))) return rc;
  } else {
    memset(c->Vh, 0, sizeof(double) * (size_t)n * n);
  }
  for (int i = 0; i < N * N; i++) Hs[i] = 0.0;
  // H_pp = M^-1 (columns of the identity solved)
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) c->b[i] = i == j ? 1.0 : 0.0;
    nh_metric_solve(&c->mt, c->b);
    for (int i = 0; i < n; i++) Hs[(size_t)(n + i) * N + n + j] = c->b[i];
  }
  for (int k = 0; k < n; k++)
    for (int l = 0; l < n; l++) Hs[(size_t)k * N + l] = c->Vh[(size_t)k * n + l];
  if (!mod->coriolis) return 0;
  // a_k = dM_k u (rows of a), b_k = M^-1 a_k (rows of b)
  if ((rc = nh_model_mass_deriv(mod, q, c->dM, c->dw))) return rc;
  if ((rc = nh_model_mass_deriv2(mod, q, c->d2M, c->dw))) return rc;
  for (int k = 0; k < n; k++) {
    nh_la_gemv(n, n, c->dM + (size_t)k * n * n, c->u, c->a + (size_t)k * n);
    nh_la_copy(n, c->a + (size_t)k * n, c->b + (size_t)k * n);
    nh_metric_solve(&c->mt, c->b + (size_t)k * n);
  }
  for (int k = 0; k < n; k++) {
    for (int i = 0; i < n; i++) {
      Hs[(size_t)(n + i) * N + k] = -c->b[(size_t)k * n + i];
      Hs[(size_t)k * N + n + i] = -c->b[(size_t)k * n + i];
    }
    for (int l = 0; l < n; l++) {
      const double *d2 = c->d2M + ((size_t)k * n + l) * n * n;
      double quad = 0.0;
      for (int j = 0; j < n; j++) quad += c->u[j] * nh_la_dot(n, d2 + (size_t)j * n, c->u);
      Hs[(size_t)k * N + l] += nh_la_dot(n, c->a + (size_t)k * n, c->b + (size_t)l * n) - 0.5 * quad;
    }
  }
  return 0;
}

/* the residual of (15) in Z = (q', p', mu), mu = h lambda (scaled so that small steps stay
 * well conditioned), and its Jacobian */
static int gf_residual(const double *Z, double *R, double *J, void *user) {
  gf_ctx *c = user;
  const nh_model *mod = c->model;
  const int n = c->n, nc = c->nc, K = c->K, N = 2 * n;
  const double *z = c->z, *lam = Z + N, h = c->h; /* lam: mu = h lambda */
  int rc;
  if ((rc = nh_dg_grad(&c->sys, NH_DG_GONZALEZ, z, Z, c->G, J ? c->dG : NULL, NULL, c->gw))) return rc;
  const double *Gq = c->G, *Gp = c->G + n;
  for (int i = 0; i < n; i++) c->qb[i] = 0.5 * (z[i] + Z[i]);
  if ((rc = nh_cb(mod->constraint(c->qb, c->zero, c->A, NULL, mod->user)))) return rc;
  for (int i = 0; i < n; i++) {
    double At_l = 0.0;
    for (int a = 0; a < nc; a++) At_l += c->A[(size_t)a * n + i] * lam[a];
    R[i] = Z[i] - z[i] - h * Gp[i];
    R[n + i] = Z[n + i] - z[n + i] + h * Gq[i] - At_l;
  }
  for (int a = 0; a < nc; a++) R[N + a] = nh_la_dot(n, c->A + (size_t)a * n, Gp);
  if (!J) return 0;
  if ((rc = nh_model_constraint_deriv(mod, c->qb, c->dA, c->dw))) return rc;
  for (int i = 0; i < K * K; i++) J[i] = 0.0;
  for (int i = 0; i < n; i++) {
    double *J1 = J + (size_t)i * K, *J2 = J + (size_t)(n + i) * K;
    for (int j = 0; j < N; j++) {
      J1[j] = (i == j ? 1.0 : 0.0) - h * c->dG[(size_t)(n + i) * N + j];
      J2[j] = (n + i == j ? 1.0 : 0.0) + h * c->dG[(size_t)i * N + j];
    }
    for (int j = 0; j < n; j++) { /* d(A(qbar)^T lambda)_i / dq'_j = 1/2 sum_a dA_j[a][i] lambda_a */
      double s = 0.0;
      for (int a = 0; a < nc; a++) s += c->dA[((size_t)j * nc + a) * n + i] * lam[a];
      J2[j] -= 0.5 * s;
    }
    for (int a = 0; a < nc; a++) J2[N + a] = -c->A[(size_t)a * n + i];
  }
  for (int a = 0; a < nc; a++) {
    double *J3 = J + (size_t)(N + a) * K;
    for (int j = 0; j < N; j++) {
      double s = 0.0;
      for (int k = 0; k < n; k++) s += c->A[(size_t)a * n + k] * c->dG[(size_t)(n + k) * N + j];
      J3[j] = s;
    }
    for (int j = 0; j < n; j++) J3[j] += 0.5 * nh_la_dot(n, c->dA + ((size_t)j * nc + a) * n, Gp);
  }
  return 0;
}

/* whether the rows of A(q) are dependent (NH_CONSTRAINT_RANK_TOL): modified Gram-Schmidt on
 * the rows, in c->a (nc x n) */
static int rows_dependent(gf_ctx *c, const double *q) {
  const int n = c->n, nc = c->nc;
  if (nh_cb(c->model->constraint(q, c->zero, c->A, NULL, c->model->user))) return 0;
  for (int k = 0; k < nc; k++) {
    double *u = c->a + (size_t)k * n;
    nh_la_copy(n, c->A + (size_t)k * n, u);
    const double norm = sqrt(nh_la_dot(n, u, u));
    for (int j = 0; j < k; j++) nh_la_axpy(n, -nh_la_dot(n, c->a + (size_t)j * n, u), c->a + (size_t)j * n, u);
    const double rest = sqrt(nh_la_dot(n, u, u));
    if (!(rest > NH_CONSTRAINT_RANK_TOL * norm)) return 1;
    nh_la_scale(n, 1.0 / rest, u);
  }
  return 0;
}

static int gf_step(nh_stepper *st, double t, const double *x0, double h, double *x1, double *err) {
  (void)t;
  const nh_model *mod = st->model;
  const size_t n = (size_t)mod->nq, nc = (size_t)mod->nc;
  gf_ctx *c = (gf_ctx *)st->work;
  double *w = st->work + GF_CTX_DOUBLES;
  c->model = mod, c->n = (int)n, c->nc = (int)nc, c->K = (int)(2 * n + nc), c->h = h;
  c->L = w, w += n * n;
  c->u = w, w += n;
  c->dV = w, w += n;
  c->dM = w, w += n * n * n;
  c->d2M = w, w += n * n * n * n;
  c->Vh = w, w += n * n;
  c->a = w, w += n * n;
  c->b = w, w += n * n;
  c->A = w, w += nc * n;
  c->dA = w, w += n * nc * n;
  c->qb = w, w += n;
  c->zero = w, w += n;
  c->dw = w, w += nh_model_deriv_work_size(mod);
  c->zk = w, w += 2 * n; /* z = (q, p) */
  c->G = w, w += 2 * n;
  c->dG = w, w += 4 * n * n;
  c->gw = w, w += nh_dg_work_size((int)(2 * n));
  c->nw = w, w += (size_t)c->K; /* Z */
  double *nwork = w;
  c->sys = (nh_dg_sys){.n = (int)(2 * n), .eval = gf_eval, .hess = gf_hess, .pijac = NULL, .degree = 0, .user = c};
  memset(c->zero, 0, sizeof(double) * n);
  if (err) *err = 0.0;
  st->work[gf_core_size(mod) + 4 * n] = 0.0; /* dense slopes stale */
  int rc;
  // z = (q, M v); predictor: explicit Euler, lambda = 0
  if ((rc = nh_cb(mod->mass(x0, c->L, mod->user)))) return rc;
  memcpy(c->zk, x0, sizeof(double) * n);
  nh_la_gemv((int)n, (int)n, c->L, x0 + n, c->zk + n);
  c->z = c->zk;
  if ((rc = gf_eval(c->zk, NULL, c->G, NULL, c))) return rc;
  double *Z = c->nw;
  for (size_t i = 0; i < n; i++) Z[i] = c->zk[i] + h * c->G[n + i], Z[n + i] = c->zk[n + i] - h * c->G[i];
  for (size_t a = 0; a < nc; a++) Z[2 * n + a] = 0.0;
  nh_dg_newton ns;
  rc = nh_newton(c->K, gf_residual, c, 1, 0.0, Z, &ns, nwork, NULL);
  nh_stepper_solved(st, ns.iters, ns.residual);
  st->evals += ns.iters + 1;
  // a singular Newton matrix from rows of A that are dependent at the base point (the
  // multipliers are not determined there): say so
  if (rc == NH_ERR_SINGULAR && rows_dependent(c, x0)) return NH_ERR_CONSTRAINT_RANK;
  if (rc) return rc;
  // v' = M(q')^-1 p'
  if ((rc = chol_u(c, Z, Z + n))) return rc;
  memcpy(x1, Z, sizeof(double) * n);
  memcpy(x1 + n, c->u, sizeof(double) * n);
  return 0;
}


const nh_method nh_method_gonzalez_f = {
    .name = "gonzalez-f",
    .summary = "GONZALEZ-F: Gonzalez discrete gradient on (q, p) with multipliers, eq. (15)",
    .preserves = "energy (to solver tolerance); constraints only to O(h^2)",
    .order = 2,
    .flags = NH_METHOD_IMPLICIT | NH_METHOD_SYMMETRIC | NH_METHOD_ENERGY,
    .work_size = gf_work_size,
    .supports = gf_supports,
    .step = gf_step,
    .dense = nh_hermite_dense_tail,
    .contact = NH_HOLD_PROJECT,
};
