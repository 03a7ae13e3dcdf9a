/* gonzalez_r.c - GONZALEZ-R and GONZALEZ-R-FD: the energy- and constraint-preserving
 * discrete-gradient method driven only by the model's M(q), V(q) and A(q) (Celledoni,
 * Farre Puiggali, Hoiseth, Martin de Diego, "Energy-Preserving Integrators Applied to
 * Nonholonomic Systems", sec. 3.3, Algorithm 1, Remark 3.5; spec 002 M4, M5).
 *
 * Frame: the Householder QR of A(q)^T = Q R (src/la/qrdiff.c); X(q) = the last m = nq - nc
 * columns of Q (A X = 0, Euclidean-orthonormal), with the sign vector s fixed in a step
 * (each sign following its column where A changes rank inside the step: qrdiff's sign
 * continuation; a base point where A has dependent rows: NH_ERR_CONSTRAINT_RANK).
 * Reduced state zeta = (q, rho), rho = X^T p, p = M v. With gD = X^T M X, y = gD^-1 rho,
 * u = X y (the velocity), p = M u:
 *   (16a) p = M X gD^-1 rho            (16b) rho = X^T p
 *   Hred(q, rho) = 1/2 rho^T gD^-1 rho + V(q)
 *   (18a) dH/dq_i = -1/2 u^T dM/dq_i u - p^T dX/dq_i y + dV/dq_i      (18b) dH/drho = y
 *   (17)  S = Mm - Mm^T,  Mm = Dp^T X,  Dp[i, :] = p^T dX/dq_i
 *   (8)   Pi = [[0, X], [-X^T, S]]
 * Step (q, v) -> (q', v'):
 *   s from the QR at q (stable signs, spec C6); rho = X(q)^T M(q) v
 *   (14) with the Gonzalez discrete gradient (12): (zeta' - zeta)/h = Pi(zetabar) gradbar Hred
 *   v' = X(q') gD(q')^-1 rho'   (so A(q') v' = 0 to round-off; never an average of p, E15)
 * GONZALEZ-R differentiates the reflections exactly (Algorithm 1, sign corrected, E8);
 * GONZALEZ-R-FD replaces dX/dq_i at the midpoint by central differences of the frame with
 * increment |h| (Remark 3.5; at least NH_GR_FD_MIN), which keeps (10a) and the skew Pi, so
 * energy and constraints stay exact and the order stays 2.
 * Newton: chord iteration on a forward-difference Jacobian (exact Jacobians would need second
 * derivatives of the frame), whose factors are kept from step to step while they contract
 * well (one difference Jacobian per many steps). */
#include <math.h>
#include <string.h>

#include "dg/dg.h"
#include "la/la.h"
#include "methods/method_impl.h"
#include "model/model_impl.h"

/* smallest increment of the GONZALEZ-R-FD frame differences (partial steps near h = 0) */
#define NH_GR_FD_MIN 1e-6
/* Rank: where the rows of A are dependent at the step's base point (NH_CONSTRAINT_RANK_TOL,
 * method_impl.h) the frame X, which must span the limit of ker A from the points of full
 * rank, is not determined by A(q): the step ends with NH_ERR_CONSTRAINT_RANK. Inside a step
 * the frame goes on through such points (qrdiff's sign continuation); one where a column is
 * exactly dependent (the QR fails) is a positive status: the caller takes a shorter step. */

typedef struct gr_ctx {
  const nh_model *model;
  int n, r, m, fd;
  int follow; /* the QR signs follow column reversals (xref): in a step, not in a fixed chart */
  double delta;
  double *s, *xref, *A, *At, *dA, *dAt, *Q, *dQ, *qrw, *X, *dX, *Xp, *qp;
  double *M, *MX, *gD, *dM, *dV, *y, *u, *p, *Dp, *Mm, *zero, *dw;
  double *zeta, *zeta1, *dgw;
  nh_dg_sys sys;
  /* kept across steps (carve leaves them): Newton's difference factors and their step */
  int jac_kept;
  double jac_h;
} gr_ctx;

#define GR_CTX_DOUBLES ((sizeof(gr_ctx) + sizeof(double) - 1) / sizeof(double))

static size_t gr_work_size(const nh_model *mod) {
  size_t n = (size_t)mod->nq, r = (size_t)mod->nc, m = n - r, N = n + m;
  return GR_CTX_DOUBLES + r + r * n + 4 * n * r + n * n * r * 2 + n * n + n * n * n +
         nh_la_qrdiff_work_size((int)n, (int)r, 1) + n * m * 2 + n * n * m + n + n * n + n * m + m * m +
         n * n * n + n + m + 2 * n + n * m + m * m + n + nh_model_deriv_work_size(mod) + 2 * N +
         nh_dg_work_size((int)N) + 16;
}

/* conservative mechanical models with fewer constraints than coordinates; without constraints
 * the frame is the identity, rho = p, S = 0: the canonical form on T*Q */
static int gr_supports(const nh_model *mod) {
  if (mod->nc < 0 || mod->nc >= mod->nq || mod->force) return NH_ERR_UNSUPPORTED;
  return NH_OK;
}

static int gr_eval(const double *zeta, double *H, double *dH, double *Pi, void *user);

static gr_ctx *carve(nh_stepper *st, int fd) {
  gr_ctx *c = (gr_ctx *)st->work;
  const nh_model *mod = st->model;
  size_t n = (size_t)mod->nq, r = (size_t)mod->nc, m = n - r, N = n + m;
  double *w = st->work + GR_CTX_DOUBLES;
  c->model = mod;
  c->n = (int)n, c->r = (int)r, c->m = (int)m, c->fd = fd, c->follow = 0;
  c->s = w, w += r;
  c->xref = w, w += r * n;
  c->A = w, w += n * r;
  c->At = w, w += n * r;
  c->dA = w, w += n * n * r;
  c->dAt = w, w += n * n * r;
  c->Q = w, w += n * n;
  c->dQ = w, w += n * n * n;
  c->qrw = w, w += nh_la_qrdiff_work_size((int)n, (int)r, 1);
  c->X = w, w += n * m;
  c->Xp = w, w += n * m;
  c->dX = w, w += n * n * m;
  c->qp = w, w += n;
  c->M = w, w += n * n;
  c->MX = w, w += n * m;
  c->gD = w, w += m * m;
  c->dM = w, w += n * n * n;
  c->dV = w, w += n;
  c->y = w, w += m;
  c->u = w, w += n;
  c->p = w, w += n;
  c->Dp = w, w += n * m;
  c->Mm = w, w += m * m;
  c->zero = w, w += n;
  c->dw = w, w += nh_model_deriv_work_size(mod);
  c->zeta = w, w += N;
  c->zeta1 = w, w += N;
  c->dgw = w;
  c->sys = (nh_dg_sys){.n = (int)N, .eval = gr_eval, .hess = NULL, .pijac = NULL, .degree = 0, .user = c};
  memset(c->zero, 0, sizeof(double) * n);
  return c;
}

/* the frame of an unconstrained model: X = I (m = n) */
static void frame_identity(gr_ctx *c, double *X) {
  const size_t n = (size_t)c->n;
  memset(X, 0, sizeof(double) * n * n);
  for (size_t j = 0; j < n; j++) X[j * n + j] = 1.0;
}

/* X (n x m) at q from a plain QR with the fixed signs, into X */
static int frame_plain(gr_ctx *c, const double *q, double *X) {
  const int n = c->n, r = c->r, m = c->m;
  int rc;
  if (r == 0) return frame_identity(c, X), 0;
  if ((rc = nh_cb(c->model->constraint(q, c->zero, c->A, NULL, c->model->user)))) return rc;
  nh_la_transpose(r, n, c->A, c->At);
  if ((rc = nh_la_qrdiff(n, r, c->At, NULL, c->s, c->follow ? c->xref : NULL, c->Q, NULL, 0, c->qrw))) return rc;
  for (int j = 0; j < n; j++)
    for (int a = 0; a < m; a++) X[(size_t)j * m + a] = c->Q[(size_t)j * n + r + a];
  return 0;
}

/* X and dX (slices dX + i n m = dX/dq_i) at q */
static int frame_deriv(gr_ctx *c, const double *q) {
  const int n = c->n, r = c->r, m = c->m;
  const size_t nm = (size_t)n * m;
  int rc;
  if (r == 0) { /* a constant frame */
    frame_identity(c, c->X);
    memset(c->dX, 0, sizeof(double) * (size_t)n * nm);
    return 0;
  }
  if (c->fd) {
    // central differences of the frame with the same signs
    memcpy(c->qp, q, sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
      double *dXi = c->dX + (size_t)i * nm;
      c->qp[i] = q[i] + c->delta;
      if ((rc = frame_plain(c, c->qp, dXi))) return rc;
      c->qp[i] = q[i] - c->delta;
      if ((rc = frame_plain(c, c->qp, c->Xp))) return rc;
      c->qp[i] = q[i];
      for (size_t k = 0; k < nm; k++) dXi[k] = (dXi[k] - c->Xp[k]) / (2.0 * c->delta);
    }
    return frame_plain(c, q, c->X);
  }
  // Algorithm 1
  if ((rc = nh_cb(c->model->constraint(q, c->zero, c->A, NULL, c->model->user)))) return rc;
  nh_la_transpose(r, n, c->A, c->At);
  if ((rc = nh_model_constraint_deriv(c->model, q, c->dA, c->dw))) return rc;
  for (int i = 0; i < n; i++) nh_la_transpose(r, n, c->dA + (size_t)i * r * n, c->dAt + (size_t)i * n * r);
  if ((rc = nh_la_qrdiff(n, r, c->At, c->dAt, c->s, c->follow ? c->xref : NULL, c->Q, c->dQ, 0, c->qrw))) return rc;
  for (int j = 0; j < n; j++)
    for (int a = 0; a < m; a++) c->X[(size_t)j * m + a] = c->Q[(size_t)j * n + r + a];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int a = 0; a < m; a++)
        c->dX[(size_t)i * nm + (size_t)j * m + a] = c->dQ[((size_t)i * n + j) * n + r + a];
  return 0;
}

/* M(q), gD = X^T M X factored, y = gD^-1 rho (X current) */
static int metric(gr_ctx *c, const double *q, const double *rho) {
  const int n = c->n, m = c->m;
  int rc;
  if ((rc = nh_cb(c->model->mass(q, c->M, c->model->user)))) return rc;
  nh_la_gemm(n, n, m, c->M, c->X, c->MX);
  for (int a = 0; a < m; a++)
    for (int b = 0; b < m; b++) {
      double sum = 0.0;
      for (int j = 0; j < n; j++) sum += c->X[(size_t)j * m + a] * c->MX[(size_t)j * m + b];
      c->gD[(size_t)a * m + b] = sum;
    }
  if (nh_la_chol(m, c->gD, 0.0, NULL)) return NH_ERR_NOT_SPD;
  nh_la_copy(m, rho, c->y);
  nh_la_chol_solve(m, c->gD, c->y);
  return 0;
}

static int gr_eval(const double *zeta, double *H, double *dH, double *Pi, void *user) {
  gr_ctx *c = user;
  const nh_model *mod = c->model;
  const int n = c->n, m = c->m, N = n + m;
  const size_t nm = (size_t)n * m;
  const double *q = zeta, *rho = zeta + n;
  const int deriv = dH || Pi;
  int rc;
  // frame, metric, y = dH/drho (in a step, a point where the QR breaks: a shorter step)
  if ((rc = deriv ? frame_deriv(c, q) : frame_plain(c, q, c->X))) return c->follow && rc == NH_ERR_SINGULAR ? 1 : rc;
  if ((rc = metric(c, q, rho))) return rc;
  double V = 0.0;
  if (mod->potential && (rc = nh_cb(mod->potential(q, H ? &V : NULL, deriv ? c->dV : NULL, mod->user)))) return rc;
  if (!mod->potential) memset(c->dV, 0, sizeof(double) * (size_t)n);
  if (H) *H = 0.5 * nh_la_dot(m, rho, c->y) + V;
  if (!deriv) return 0;
  // u = X y, p = M u, Dp[i, :] = p^T dX_i
  nh_la_gemv(n, m, c->X, c->y, c->u);
  nh_la_gemv(n, n, c->M, c->u, c->p);
  for (int i = 0; i < n; i++) nh_la_gemv_t(n, m, c->dX + (size_t)i * nm, c->p, c->Dp + (size_t)i * m);
  if (dH) {
    // (18a), (18b)
    if (mod->coriolis && (rc = nh_model_mass_deriv(mod, q, c->dM, c->dw))) return rc;
    for (int i = 0; i < n; i++) {
      double kin = 0.0;
      if (mod->coriolis) {
        const double *dMi = c->dM + (size_t)i * n * n;
        for (int j = 0; j < n; j++) kin += c->u[j] * nh_la_dot(n, dMi + (size_t)j * n, c->u);
      }
      dH[i] = -0.5 * kin - nh_la_dot(m, c->Dp + (size_t)i * m, c->y) + c->dV[i];
    }
    nh_la_copy(m, c->y, dH + n);
  }
  if (Pi) {
    // (17) and (8)
    for (int a = 0; a < m; a++)
      for (int b = 0; b < m; b++) {
        double sum = 0.0;
        for (int i = 0; i < n; i++) sum += c->Dp[(size_t)i * m + a] * c->X[(size_t)i * m + b];
        c->Mm[(size_t)a * m + b] = sum;
      }
    for (int i = 0; i < N * N; i++) Pi[i] = 0.0;
    for (int j = 0; j < n; j++)
      for (int a = 0; a < m; a++) {
        Pi[(size_t)j * N + n + a] = c->X[(size_t)j * m + a];
        Pi[(size_t)(n + a) * N + j] = -c->X[(size_t)j * m + a];
      }
    for (int a = 0; a < m; a++)
      for (int b = 0; b < m; b++)
        Pi[(size_t)(n + a) * N + n + b] = c->Mm[(size_t)a * m + b] - c->Mm[(size_t)b * m + a];
  }
  return 0;
}

/* the frame at a base point q with new signs (and their reference directions when c->follow):
 * NH_ERR_CONSTRAINT_RANK where the rows of A(q) are dependent (NH_CONSTRAINT_RANK_TOL) */
static int frame_base(gr_ctx *c, const double *q) {
  const int n = c->n, r = c->r;
  for (int k = 0; k < r; k++) c->s[k] = 0.0;
  int rc = frame_plain(c, q, c->X);
  if (rc) return rc == NH_ERR_SINGULAR ? NH_ERR_CONSTRAINT_RANK : rc;
  // |R_kk| = |Q_k . A_k| against |A_k| (A and Q of that factorization)
  for (int k = 0; k < r; k++) {
    const double *Ak = c->A + (size_t)k * n;
    double rkk = 0.0;
    for (int j = 0; j < n; j++) rkk += c->Q[(size_t)j * n + k] * Ak[j];
    if (!(fabs(rkk) > NH_CONSTRAINT_RANK_TOL * sqrt(nh_la_dot(n, Ak, Ak)))) return NH_ERR_CONSTRAINT_RANK;
  }
  return 0;
}

static int gr_step_impl(nh_stepper *st, const double *x0, double h, double *x1, int fd, nh_dg_kind kind) {
  gr_ctx *c = carve(st, fd);
  const int n = c->n, m = c->m;
  int rc;
  c->delta = fmax(fabs(h), NH_GR_FD_MIN);
  // signs, their reference directions and the frame at the base point, rho = X^T M v
  c->follow = 1;
  if ((rc = frame_base(c, x0))) return rc;
  if ((rc = nh_cb(c->model->mass(x0, c->M, c->model->user)))) return rc;
  nh_la_gemv(n, n, c->M, x0 + n, c->p);
  memcpy(c->zeta, x0, sizeof(double) * (size_t)n);
  nh_la_gemv_t(n, m, c->X, c->p, c->zeta + n);
  // the discrete-gradient step on (q, rho)
  nh_dg_newton ns;
  // reuse the previous step's difference factors when the step size is the same
  if (c->jac_h != h) c->jac_kept = 0;
  c->jac_h = h;
  rc = nh_dg_step(&c->sys, kind, c->zeta, h, c->zeta1, &ns, c->dgw, &c->jac_kept, NULL);
  nh_stepper_solved(st, ns.iters, ns.residual);
  st->evals += ns.iters;
  if (rc) return rc;
  // back to (q', v'), v' = X' gD'^-1 rho'  (16a)
  if ((rc = frame_plain(c, c->zeta1, c->X))) return rc == NH_ERR_SINGULAR ? 1 : rc;
  if ((rc = metric(c, c->zeta1, c->zeta1 + n))) return rc;
  memcpy(x1, c->zeta1, sizeof(double) * (size_t)n);
  nh_la_gemv(n, m, c->X, c->y, x1 + n);
  return 0;
}

/* dense output: Hermite slopes after the workspace of the step */
static double *dense_buf(nh_stepper *st) { return st->work + gr_work_size(st->model); }
static size_t gr_work_total(const nh_model *mod) { return gr_work_size(mod) + 4 * (size_t)mod->nq + 1; }

static int gr_step(nh_stepper *st, double t, const double *x0, double h, double *x1, double *err) {
  (void)t;
  if (err) *err = 0.0;
  dense_buf(st)[2 * st->nx] = 0.0;
  return gr_step_impl(st, x0, h, x1, 0, NH_DG_GONZALEZ);
}
static int gr_fd_step(nh_stepper *st, double t, const double *x0, double h, double *x1, double *err) {
  (void)t;
  if (err) *err = 0.0;
  dense_buf(st)[2 * st->nx] = 0.0;
  return gr_step_impl(st, x0, h, x1, 1, NH_DG_GONZALEZ);
}
/* avf, gonzalez and itoh-abe on a mechanical model: the step above with their discrete
 * gradient on the D* form (q, rho) (exact frame derivatives) */
size_t nh_dstar_work_size(const nh_model *mod) { return gr_supports(mod) ? 0 : gr_work_total(mod); }
int nh_dstar_supports(const nh_model *mod) { return gr_supports(mod); }
int nh_dstar_step(nh_stepper *st, const double *x0, double h, double *x1, int kind) {
  dense_buf(st)[2 * st->nx] = 0.0;
  return gr_step_impl(st, x0, h, x1, 0, (nh_dg_kind)kind);
}

/* the D* model of nh_model_dstar_create (src/methods/dstar.c): st holds the Lagrangian model
 * and gr_work_size doubles; the chart's signs are fixed once at q */
size_t nh_dstar_ctx_size(const nh_model *mod) { return gr_work_size(mod); }
int nh_dstar_chart(nh_stepper *st, const double *q) { return frame_base(carve(st, 0), q); }
int nh_dstar_eval(nh_stepper *st, const double *x, double *H, double *dH, double *Pi) {
  return gr_eval(x, H, dH, Pi, carve(st, 0));
}
int nh_dstar_map(nh_stepper *st, const double *q, const double *v, double *rho, double *vout) {
  gr_ctx *c = carve(st, 0);
  int rc;
  if ((rc = frame_plain(c, q, c->X))) return rc;
  if (rho) {
    // rho = X^T M v
    if ((rc = nh_cb(c->model->mass(q, c->M, c->model->user)))) return rc;
    nh_la_gemv(c->n, c->n, c->M, v, c->p);
    nh_la_gemv_t(c->n, c->m, c->X, c->p, rho);
    return 0;
  }
  // v = X gD^-1 rho (here v holds rho)
  if ((rc = metric(c, q, v))) return rc;
  nh_la_gemv(c->n, c->m, c->X, c->y, vout);
  return 0;
}

static int gr_dense(nh_stepper *st, double t, const double *x0, double h, const double *x1,
                    double theta, double *x) {
  double *f = dense_buf(st);
  return nh_hermite_dense(st, t, x0, h, x1, theta, x, f, f + 2 * st->nx);
}

const nh_method nh_method_gonzalez_r = {
    .name = "gonzalez-r",
    .summary = "GONZALEZ-R: Gonzalez discrete gradient on (q, rho) with a differentiated-QR frame of A",
    .preserves = "energy and constraints (to solver tolerance and round-off)",
    .order = 2,
    .flags = NH_METHOD_IMPLICIT | NH_METHOD_SYMMETRIC | NH_METHOD_ENERGY,
    .work_size = gr_work_total,
    .supports = gr_supports,
    .step = gr_step,
    .dense = gr_dense,
    .contact = NH_HOLD_PROJECT,
};

const nh_method nh_method_gonzalez_r_fd = {
    .name = "gonzalez-r-fd",
    .summary = "GONZALEZ-R with finite-difference frame derivatives (increment h, Remark 3.5)",
    .preserves = "energy and constraints (to solver tolerance and round-off)",
    .order = 2,
    .flags = NH_METHOD_IMPLICIT | NH_METHOD_SYMMETRIC | NH_METHOD_ENERGY,
    .work_size = gr_work_total,
    .supports = gr_supports,
    .step = gr_fd_step,
    .dense = gr_dense,
    .contact = NH_HOLD_PROJECT,
};
