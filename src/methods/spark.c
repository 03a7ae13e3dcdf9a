/* spark.c - SPARK: the 2-stage Lobatto IIIA-B-C-C*-D SPARK method for the index-2 DAE of a
 * Lagrangian system with ideal nonholonomic constraints, the third comparison method of
 * Celledoni, Farre Puiggali, Hoiseth, Martin de Diego, "Energy-Preserving Integrators
 * Applied to Nonholonomic Systems" sec. 4.1.3 (Fig. 2), after L. O. Jay, "Solution of index 2
 * implicit differential-algebraic equations by Lobatto Runge-Kutta methods", BIT 43 (2003)
 * 93-106 (the paper's [22]), and Jay's Lagrange-d'Alembert SPARK integrators. Neither the
 * paper nor spec 002 (M8 [R]) gives the scheme; this is a reconstruction from the structure of
 * Jay's SPARK methods, validated by its properties only (tests/test_spark.c).
 *
 * The DAE (L = 1/2 v^T M(q) v - V(q), constraints A(q) v = 0, nc rows):
 *   q' = v,   p' = dL/dq (q, v) + A(q)^T psi,   0 = p - M(q) v,   0 = A(q) v.
 * One step from consistent (q0, v0), p0 = M(q0) v0, with the 2-stage Lobatto coefficients
 *   c = (0, 1), b = (1/2, 1/2),
 *   IIIA = [[0, 0], [1/2, 1/2]]      (a:    positions from velocities)
 *   IIIB = [[1/2, 0], [1/2, 0]]      (ahat: momenta from the applied force dL/dq)
 *   IIIC = [[1/2, -1/2], [1/2, 1/2]], IIIC* = [[0, 0], [1, 0]],
 *   IIID = (IIIC + IIIC*)/2 = [[1/4, -1/4], [3/4, 1/4]]  (d: momenta from the constraint force)
 * is, for stages i = 1..s (s = 2) with stage velocities V_i and constraint forces Psi_i:
 *   Q_i = q0 + h sum_j a_ij V_j                                   (Q_1 = q0, Q_2 = q1)
 *   M(Q_i) V_i = p0 + h sum_j ahat_ij F_j + h sum_j d_ij A(Q_j)^T Psi_j,  F_j = dL/dq(Q_j, V_j)
 *   q1 = q0 + h sum_j b_j V_j,   p1 = p0 + h sum_j b_j (F_j + A(Q_j)^T Psi_j),   v1 = M(q1)^-1 p1
 *   0 = sum_j b_j A(Q_j) V_j                                      (the stage constraint)
 *   0 = A(q1) v1                                                  (the end constraint)
 * dL/dq = 1/2 V^T (dM/dq_k) V - dV/dq_k. The IIIC/IIIC* pair enters through its mean IIID,
 * the symmetric member of the family (IIIC* is the adjoint of IIIC; IIIA, IIIB, IIID and b are
 * self-adjoint), so the step is symmetric on the constraint manifold; global order 2s - 2 = 2
 * (Jay 2003). The end constraint holds at every step to the Newton tolerance; the energy is
 * not conserved: its error is a random walk (the paper's Fig. 2, "I-DLA and SPARK behave
 * similarly"). Unknowns Z = (V_1, V_2, h Psi_1, h Psi_2): 2 nq + 2 nc; Newton with a
 * forward-difference Jacobian (chord iteration), the predictor V_i = v0, Psi_i = 0.
 * Any M(q) (configuration-dependent M enters through dM in F and M(Q_i)); conservative
 * models only (no generalized force), at least one constraint. */
#include <math.h>
#include <string.h>

#include "dg/dg.h"
#include "la/la.h"
#include "methods/method_impl.h"
#include "model/metric.h"
#include "model/model_impl.h"

/* the coefficients of one member of the family (s stages) */
enum { SP_S = 2 };
typedef struct sp_tab {
  double a[SP_S][SP_S], ahat[SP_S][SP_S], d[SP_S][SP_S], b[SP_S];
} sp_tab;

static const sp_tab sp_lobatto2 = {
    .a = {{0.0, 0.0}, {0.5, 0.5}},
    .ahat = {{0.5, 0.0}, {0.5, 0.0}},
    .d = {{0.25, -0.25}, {0.75, 0.25}},
    .b = {0.5, 0.5},
};

typedef struct sp_ctx {
  const nh_model *model;
  const sp_tab *tab;
  int n, nc, K;
  double h;
  const double *q0, *p0;
  double *Q, *F, *A, *M, *dM, *dV, *P, *p1, *v1, *L, *zero, *dw;
} sp_ctx;

#define SP_CTX_DOUBLES ((sizeof(sp_ctx) + sizeof(double) - 1) / sizeof(double))

static size_t sp_core_size(const nh_model *mod) {
  size_t n = (size_t)mod->nq, nc = (size_t)mod->nc, K = SP_S * (n + nc);
  return SP_CTX_DOUBLES + 2 * SP_S * n + SP_S * nc * n + 2 * n * n + n * n * n + 5 * n +
         nh_model_deriv_work_size(mod) + K + nh_newton_work_size((int)K) + 16;
}
static size_t sp_work_size(const nh_model *mod) { return sp_core_size(mod) + 4 * (size_t)mod->nq + 1; }

static int sp_supports(const nh_model *mod) {
  return mod->form == NH_FORM_MECHANICAL && mod->nc >= 1 && !mod->force ? NH_OK : NH_ERR_UNSUPPORTED;
}

/* F = dL/dq (q, v) = 1/2 v^T dM_k v - dV_k; M left holding M(q) */
static int sp_force(sp_ctx *c, const double *q, const double *v, double *F) {
  const nh_model *mod = c->model;
  const int n = c->n;
  int rc;
  if (mod->potential) {
    if ((rc = nh_cb(mod->potential(q, NULL, c->dV, mod->user)))) return rc;
  } else {
    memset(c->dV, 0, sizeof(double) * (size_t)n);
  }
  for (int k = 0; k < n; k++) F[k] = -c->dV[k];
  if (!mod->coriolis) return 0;
  if ((rc = nh_model_mass_deriv(mod, q, c->dM, c->dw))) return rc;
  for (int k = 0; k < n; k++) {
    const double *dMk = c->dM + (size_t)k * n * n;
    double s = 0.0;
    for (int j = 0; j < n; j++) s += v[j] * nh_la_dot(n, dMk + (size_t)j * n, v);
    F[k] += 0.5 * s;
  }
  return 0;
}

/* the residual of the stage equations in Z = (V_1..V_s, mu_1..mu_s), mu_j = h Psi_j; leaves
 * q1 = Q_s, p1 and v1 in the context */
static int sp_residual(const double *Z, double *R, double *J, void *user) {
  sp_ctx *c = user;
  const nh_model *mod = c->model;
  const sp_tab *t = c->tab;
  const int n = c->n, nc = c->nc;
  const double h = c->h, *mu = Z + SP_S * n;
  int rc;
  (void)J;
  // stage positions, forces and constraint matrices
  for (int i = 0; i < SP_S; i++) {
    double *Qi = c->Q + (size_t)i * n;
    for (int k = 0; k < n; k++) {
      double s = 0.0;
      for (int j = 0; j < SP_S; j++) s += t->a[i][j] * Z[(size_t)j * n + k];
      Qi[k] = c->q0[k] + h * s;
    }
    if ((rc = sp_force(c, Qi, Z + (size_t)i * n, c->F + (size_t)i * n))) return rc;
    if ((rc = nh_cb(mod->constraint(Qi, c->zero, c->A + (size_t)i * nc * n, NULL, mod->user)))) return rc;
  }
  // momentum equations M(Q_i) V_i - P_i, and p1
  for (int i = 0; i <= SP_S; i++) {
    double *P = i < SP_S ? c->P : c->p1;
    for (int k = 0; k < n; k++) {
      double s = 0.0;
      for (int j = 0; j < SP_S; j++) {
        double wf = i < SP_S ? t->ahat[i][j] : t->b[j], wc = i < SP_S ? t->d[i][j] : t->b[j];
        const double *Aj = c->A + (size_t)j * nc * n;
        double At_mu = 0.0;
        for (int a = 0; a < nc; a++) At_mu += Aj[(size_t)a * n + k] * mu[(size_t)j * nc + a];
        s += h * wf * c->F[(size_t)j * n + k] + wc * At_mu;
      }
      P[k] = c->p0[k] + s;
    }
    if (i == SP_S) break;
    if ((rc = nh_cb(mod->mass(c->Q + (size_t)i * n, c->M, mod->user)))) return rc;
    for (int k = 0; k < n; k++) R[(size_t)i * n + k] = nh_la_dot(n, c->M + (size_t)k * n, Z + (size_t)i * n) - P[k];
  }
  // the stage constraint sum_j b_j A(Q_j) V_j and the end constraint A(q1) M(q1)^-1 p1
  double *Rc = R + SP_S * n;
  for (int a = 0; a < nc; a++) {
    double s = 0.0;
    for (int j = 0; j < SP_S; j++) s += t->b[j] * nh_la_dot(n, c->A + ((size_t)j * nc + a) * n, Z + (size_t)j * n);
    Rc[a] = s;
  }
  const double *q1 = c->Q + (size_t)(SP_S - 1) * n, *A1 = c->A + (size_t)(SP_S - 1) * nc * n;
  nh_metric mt;
  nh_metric_init(&mt, n, 0, c->L, NULL);
  if ((rc = nh_metric_eval(&mt, mod, q1))) return rc;
  nh_la_copy(n, c->p1, c->v1);
  nh_metric_solve(&mt, c->v1);
  for (int a = 0; a < nc; a++) Rc[nc + a] = nh_la_dot(n, A1 + (size_t)a * n, c->v1);
  // the remaining SP_S - 2 constraint blocks (none for s = 2)
  for (int r = 2 * nc; r < SP_S * nc; r++) Rc[r] = 0.0;
  return 0;
}

static int sp_step(nh_stepper *st, double t, const double *x0, double h, double *x1, double *err) {
  const nh_model *mod = st->model;
  const size_t n = (size_t)mod->nq, nc = (size_t)mod->nc, K = SP_S * (n + nc);
  sp_ctx *c = (sp_ctx *)st->work;
  double *w = st->work + SP_CTX_DOUBLES;
  (void)t;
  if (err) *err = 0.0;
  st->work[sp_core_size(mod) + 2 * (size_t)st->nx] = 0.0; /* the dense output's slopes are stale */
  c->model = mod, c->tab = &sp_lobatto2, c->n = (int)n, c->nc = (int)nc, c->K = (int)K, c->h = h;
  c->Q = w, w += SP_S * n;
  c->F = w, w += SP_S * n;
  c->A = w, w += SP_S * nc * n;
  c->M = w, w += n * n;
  c->L = w, w += n * n;
  c->dM = w, w += n * n * n;
  c->dV = w, w += n;
  c->P = w, w += n;
  c->p1 = w, w += n;
  c->v1 = w, w += n;
  c->zero = w, w += n;
  c->dw = w, w += nh_model_deriv_work_size(mod);
  double *Z = w;
  w += K;
  double *nwork = w;
  memset(c->zero, 0, sizeof(double) * n);
  int rc;
  // p0 = M(q0) v0 (held in v1's slot until the solve), the predictor V_i = v0, Psi_i = 0
  const double *q = x0, *v = x0 + n;
  double *p0 = x1 + n; /* x1's velocity half holds p0 during the solve */
  if ((rc = nh_cb(mod->mass(q, c->M, mod->user)))) return rc;
  nh_la_gemv((int)n, (int)n, c->M, v, p0);
  c->q0 = q, c->p0 = p0;
  for (int i = 0; i < SP_S; i++) memcpy(Z + (size_t)i * n, v, sizeof(double) * n);
  memset(Z + SP_S * n, 0, sizeof(double) * SP_S * nc);
  nh_dg_newton ns;
  rc = nh_newton((int)K, sp_residual, c, 0, 0.0, Z, &ns, nwork, NULL);
  nh_stepper_solved(st, ns.iters, ns.residual);
  st->evals += ns.iters + 1;
  if (rc) return rc;
  // the residual at the solution leaves q1 = Q_s and v1 = M(q1)^-1 p1
  double *R = nwork; /* scratch: the solve is over */
  if ((rc = sp_residual(Z, R, NULL, c))) return rc;
  memcpy(x1, c->Q + (size_t)(SP_S - 1) * n, sizeof(double) * n);
  memcpy(x1 + n, c->v1, sizeof(double) * n);
  return 0;
}

const nh_method nh_method_spark = {
    .name = "spark",
    .summary = "SPARK: 2-stage Lobatto IIIA-B-C-C*-D SPARK for the index-2 DAE (Jay 2003; reconstruction)",
    .preserves = "constraints A(q) v = 0 at the steps; energy error a random walk",
    .order = 2,
    .flags = NH_METHOD_IMPLICIT | NH_METHOD_SYMMETRIC,
    .work_size = sp_work_size,
    .supports = sp_supports,
    .step = sp_step,
    .dense = nh_hermite_dense_tail,
    .contact = NH_HOLD_PROJECT,
};
