/* dla.c - SI-DLA and I-DLA: reversible discrete Lagrange-d'Alembert integrators, the
 * comparison methods of Celledoni, Farre Puiggali, Hoiseth, Martin de Diego, "Energy-
 * Preserving Integrators Applied to Nonholonomic Systems" sec. 4.1.3, 4.4, after
 * McLachlan-Perlmutter (2006). The paper gives no formulas; this is the reconstruction of
 * spec 002 M8 [R], for a constant mass matrix M:
 *
 *   SI-DLA  M (q_{k+1} - 2 q_k + q_{k-1}) = -h^2 grad V(q_k) + h^2 A(q_k)^T lambda_k
 *   I-DLA   M (q_{k+1} - 2 q_k + q_{k-1}) = -h^2/2 [grad V(q_{k-1/2}) + grad V(q_{k+1/2})]
 *                                           + h^2 A(q_k)^T lambda_k,   q_{k+1/2} = (q_k + q_{k+1})/2
 *   both    A(q_{k+1/2}) (q_{k+1} - q_k) = 0                       (midpoint discrete constraint)
 *
 * As a one-step map on (q_k, v_k): with F_k = grad V(q_k) (SI) or grad V(q_{k+1/2}) (I),
 *   M (q_{k+1} - q_k)/h = M v_k - h/2 F_{k-} - h/2 F_k + h A(q_k)^T lambda_k
 * where M v_k stands for p_k^- = M (q_k - q_{k-1})/h - h/2 F_{k-} (F_{k-} = grad V(q_k) for
 * SI, grad V(q_{k-1/2}) for I) up to a term in the range of A(q_k)^T, which lambda_k absorbs.
 * So the stored velocity is v_k = P(M^-1 p_k^-), P the M-orthogonal projector onto
 * ker A(q_k): the projected central-difference velocity (q_{k+1} - q_{k-1})/(2h) of the
 * two-step scheme, which it reproduces exactly (same q_k), starting from p_0^- = M v_0 (the
 * spec's start step). Energy 1/2 v^T M v + V at the steps is the diagnostic (spec C10 uses
 * the unprojected central difference; only the bounded part of the error differs).
 * Unknowns (q_{k+1}, lambda_k), Newton with the exact Jacobian (one linear solve when A is
 * affine along the step and V quadratic; SI-DLA's q-equation is linear).
 * A q-dependent M (a Coriolis term): M (q_{k+1} - q_k)/h + h/2 F becomes the discrete Legendre
 * transform -D1 L_d(q_k, q_{k+1}) of the trapezoidal (SI) or midpoint (I) L_d, and M u - h/2 F
 * of p^-_{k+1} becomes D2 L_d: vi_qm.c's discrete Lagrange-d'Alembert step (del's on a
 * nonholonomic model), on its own workspace (then dla_work_size is that one's plus the dense
 * tail). */
#include <math.h>
#include <string.h>

#include "dg/dg.h"
#include "la/la.h"
#include "methods/method_impl.h"
#include "methods/vi_qm.h"
#include "model/metric.h"
#include "model/model_impl.h"

typedef struct dla_ctx {
  const nh_model *model;
  int n, nc, K, implicit;
  double h;
  const double *q, *pm;
  double *M, *L, *A0, *A, *dA, *Vh, *dV, *qb, *zero, *dw, *pk, *u, *W, *G;
} dla_ctx;

#define DLA_CTX_DOUBLES ((sizeof(dla_ctx) + sizeof(double) - 1) / sizeof(double))

static size_t dla_core_size(const nh_model *mod) {
  size_t n = (size_t)mod->nq, nc = (size_t)mod->nc, K = n + nc;
  return DLA_CTX_DOUBLES + 2 * n * n + 2 * nc * n + n * nc * n + n * n + 6 * n +
         nh_model_deriv_work_size(mod) + n * nc + nc * nc + K + nh_newton_work_size((int)K) + 16;
}
/* a q-dependent M (a Coriolis term) steps on vi_qm.c's workspace; both end with the dense tail */
static size_t dla_work_size(const nh_model *mod) {
  return (mod->coriolis ? nh_vi_dlad_work_size(mod) : dla_core_size(mod)) + 4 * (size_t)mod->nq + 1;
}

static int dla_supports(const nh_model *mod) {
  /* conservative, with constraints */
  return mod->form == NH_FORM_MECHANICAL && mod->nc >= 1 && !mod->force ? NH_OK : NH_ERR_UNSUPPORTED;
}

static int grad_v(const nh_model *mod, const double *q, double *dV) {
  if (!mod->potential) {
    memset(dV, 0, sizeof(double) * (size_t)mod->nq);
    return 0;
  }
  return nh_cb(mod->potential(q, NULL, dV, mod->user));
}

/* R = (M (q' - q) - h p^- + h^2/2 F - A(q)^T mu,  A(qbar)(q' - q)) in Z = (q', mu), mu = h^2 lambda
 * (scaled so that small steps stay well conditioned) */
static int dla_residual(const double *Z, double *R, double *J, void *user) {
  dla_ctx *c = user;
  const nh_model *mod = c->model;
  const int n = c->n, nc = c->nc, K = c->K;
  const double h = c->h, *q = c->q, *lam = Z + n;
  int rc;
  for (int i = 0; i < n; i++) c->qb[i] = 0.5 * (q[i] + Z[i]), c->u[i] = Z[i] - q[i];
  if ((rc = nh_cb(mod->constraint(c->qb, c->zero, c->A, NULL, mod->user)))) return rc;
  if (c->implicit && (rc = grad_v(mod, c->qb, c->dV))) return rc; /* SI: dV holds grad V(q) */
  for (int i = 0; i < n; i++) {
    double At_l = 0.0;
    for (int a = 0; a < nc; a++) At_l += c->A0[(size_t)a * n + i] * lam[a];
    R[i] = nh_la_dot(n, c->M + (size_t)i * n, c->u) - h * c->pm[i] + 0.5 * h * h * c->dV[i] - At_l;
  }
  for (int a = 0; a < nc; a++) R[n + a] = nh_la_dot(n, c->A + (size_t)a * n, c->u);
  if (!J) return 0;
  for (int i = 0; i < K * K; i++) J[i] = 0.0;
  if (c->implicit && mod->potential && (rc = nh_model_potential_hess(mod, c->qb, c->Vh, c->dw))) return rc;
  if ((rc = nh_model_constraint_deriv(mod, c->qb, c->dA, c->dw))) return rc;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      J[(size_t)i * K + j] = c->M[(size_t)i * n + j] + (c->implicit && mod->potential ? 0.25 * h * h * c->Vh[(size_t)i * n + j] : 0.0);
    for (int a = 0; a < nc; a++) J[(size_t)i * K + n + a] = -c->A0[(size_t)a * n + i];
  }
  for (int a = 0; a < nc; a++)
    for (int j = 0; j < n; j++)
      J[(size_t)(n + a) * K + j] = c->A[(size_t)a * n + j] + 0.5 * nh_la_dot(n, c->dA + ((size_t)j * nc + a) * n, c->u);
  return 0;
}

static int dla_step_impl(nh_stepper *st, const double *x0, double h, double *x1, int implicit) {
  const nh_model *mod = st->model;
  const size_t n = (size_t)mod->nq, nc = (size_t)mod->nc;
  dla_ctx *c = (dla_ctx *)st->work;
  double *w = st->work + DLA_CTX_DOUBLES;
  c->model = mod, c->n = (int)n, c->nc = (int)nc, c->K = (int)(n + nc), c->implicit = implicit, c->h = h;
  c->M = w, w += n * n;
  c->L = w, w += n * n;
  c->A0 = w, w += nc * n;
  c->A = w, w += nc * n;
  c->dA = w, w += n * nc * n;
  c->Vh = w, w += n * n;
  c->dV = w, w += n;
  c->qb = w, w += n;
  c->zero = w, w += n;
  c->pk = w, w += n;
  c->u = w, w += n;
  double *Z = w;
  w += n + nc;
  c->dw = w, w += nh_model_deriv_work_size(mod);
  c->W = w, w += n * nc;
  c->G = w, w += nc * nc;
  double *nwork = w;
  memset(c->zero, 0, sizeof(double) * n);
  int rc;
  // p^- = M v, A(q_k), grad V(q_k); predictor q' = q + h v, lambda = 0
  const double *q = x0, *v = x0 + n;
  if ((rc = nh_cb(mod->mass(q, c->M, mod->user)))) return rc;
  nh_la_gemv((int)n, (int)n, c->M, v, c->pk);
  if ((rc = nh_cb(mod->constraint(q, c->zero, c->A0, NULL, mod->user)))) return rc;
  if ((rc = grad_v(mod, q, c->dV))) return rc;
  c->q = q, c->pm = c->pk;
  for (size_t i = 0; i < n; i++) Z[i] = q[i] + h * v[i];
  for (size_t a = 0; a < nc; a++) Z[n + a] = 0.0;
  nh_dg_newton ns;
  rc = nh_newton(c->K, dla_residual, c, 1, 0.0, Z, &ns, nwork, NULL);
  nh_stepper_solved(st, ns.iters, ns.residual);
  st->evals += ns.iters + 1;
  if (rc) return rc;
  // p^-_{k+1} = M (q' - q)/h - h/2 F, F = grad V(q') (SI) or grad V(qbar) (I)
  const double *q1 = Z;
  for (size_t i = 0; i < n; i++) c->u[i] = (q1[i] - q[i]) / h, c->qb[i] = 0.5 * (q[i] + q1[i]);
  if ((rc = grad_v(mod, implicit ? c->qb : q1, c->dV))) return rc;
  nh_la_gemv((int)n, (int)n, c->M, c->u, c->pk);
  nh_la_axpy((int)n, -0.5 * h, c->dV, c->pk);
  // v' = P M^-1 p^-: u = M^-1 p^-, v' = u - W (A W)^-1 A u, W = M^-1 A(q')^T
  nh_metric mt; /* the constrained metric's factor, rows and projector (model/metric.h) */
  nh_metric_init(&mt, (int)n, 0, c->L, NULL);
  if (nh_metric_factor(&mt, c->M)) return NH_ERR_NOT_SPD;
  nh_la_copy((int)n, c->pk, c->u);
  nh_metric_solve(&mt, c->u);
  if ((rc = nh_cb(mod->constraint(q1, c->zero, c->A, NULL, mod->user)))) return rc;
  if (nh_metric_rows(&mt, (int)nc, c->A, c->W, c->G)) return NH_ERR_SINGULAR;
  memcpy(x1, q1, sizeof(double) * n);
  nh_la_copy((int)n, c->u, x1 + n);
  nh_metric_project((int)n, (int)nc, c->A, c->W, c->G, x1 + n, c->qb); /* (qb: G^-1 A u) */
  return 0;
}

static double *dla_dense_buf(nh_stepper *st) { return st->work + dla_work_size(st->model) - (2 * (size_t)st->nx + 1); }

static int si_step(nh_stepper *st, double t, const double *x0, double h, double *x1, double *err) {
  if (err) *err = 0.0;
  dla_dense_buf(st)[2 * st->nx] = 0.0;
  if (st->model->coriolis) return nh_vi_dlad_step(st, t, x0, h, x1, 0);
  return dla_step_impl(st, x0, h, x1, 0);
}
static int i_step(nh_stepper *st, double t, const double *x0, double h, double *x1, double *err) {
  if (err) *err = 0.0;
  dla_dense_buf(st)[2 * st->nx] = 0.0;
  if (st->model->coriolis) return nh_vi_dlad_step(st, t, x0, h, x1, 1);
  return dla_step_impl(st, x0, h, x1, 1);
}

const nh_method nh_method_si_dla = {
    .name = "si-dla",
    .summary = "SI-DLA: semi-implicit reversible discrete Lagrange-d'Alembert (reconstruction); Newton for a q-dependent M",
    .preserves = "discrete constraints A(qbar)(q'-q) = 0; energy error a random walk",
    .order = 2,
    .flags = NH_METHOD_IMPLICIT | NH_METHOD_SYMMETRIC,
    .work_size = dla_work_size,
    .supports = dla_supports,
    .step = si_step,
    .dense = nh_hermite_dense_tail,
    .contact = NH_HOLD_PROJECT,
};

const nh_method nh_method_i_dla = {
    .name = "i-dla",
    .summary = "I-DLA: implicit midpoint discrete Lagrange-d'Alembert (reconstruction); Newton for a q-dependent M",
    .preserves = "discrete constraints A(qbar)(q'-q) = 0; energy error a random walk",
    .order = 2,
    .flags = NH_METHOD_IMPLICIT | NH_METHOD_SYMMETRIC,
    .work_size = dla_work_size,
    .supports = dla_supports,
    .step = i_step,
    .dense = nh_hermite_dense_tail,
    .contact = NH_HOLD_PROJECT,
};
