/* rkmk4.c - the Runge-Kutta-Munthe-Kaas method of order 4 on R^m x SO(3) (Munthe-Kaas,
 * "High order Runge-Kutta methods on manifolds", Appl. Numer. Math. 29 (1999); Iserles,
 * Munthe-Kaas, Norsett & Zanna, Acta Numerica 2000, sec. 5), fixed step, for ODE-form models
 * that declare a rotation part: x = (y, q), q = x[quat .. quat + 3] a unit quaternion with
 * q' = 1/2 q * [0; w(t, x)] (body angular velocity w, nh_model_def.angvel), y the rest with
 * y' = F_y(t, x). With the commutator [a, b] = a x b of so(3) = R^3 and
 * exp(v) = [cos |v|/2; sin(|v|/2) v/|v|] the unit quaternion of the rotation vector v:
 *
 *   W1 = h w(t, x0)                          Y1 = F_y(t, x0)
 *   X2 = (y0 + h/2 Y1, q0 * exp(W1/2))
 *   W2 = h w(t + h/2, X2)                    Y2 = F_y(t + h/2, X2)
 *   X3 = (y0 + h/2 Y2, q0 * exp(W2/2 + W1 x W2/8))
 *   W3 = h w(t + h/2, X3)                    Y3 = F_y(t + h/2, X3)
 *   X4 = (y0 + h Y3, q0 * exp(W3))
 *   W4 = h w(t + h, X4)                      Y4 = F_y(t + h, X4)
 *   y1 = y0 + h/6 (Y1 + 2 Y2 + 2 Y3 + Y4)
 *   q1 = q0 * exp(1/6 (W1 + 2 W2 + 2 W3 + W4 + 1/2 W1 x W4))
 *
 * (the paper's left-invariant scheme P1 = exp(1/6(F1 + 2F2 + 2F3 + F4 - [F1, F4]/2)) P0 with
 * stage 3 exp(F2/2 - [F1, F2]/8) P0, for P = Lam^T, P' = hat(-w) P, i.e. F_i = -W_i; the y
 * part is classical RK4 since R^m is abelian). Order 4. q1 is a product of unit quaternions:
 * |q| = 1 to round-off at every step by construction, no projection (the driver skips the
 * model's). Dense output: the cubic Hermite interpolant through (x0, F(x0)) and (x1, F(x1))
 * with its quaternion normalised (samples on the manifold; order 3, as rk4's). */
#include <math.h>
#include <string.h>

#include "methods/method_impl.h"
#include "model/model_impl.h"

/* work layout: Y1..Y4, xs (stage state), f1 (nx each), W (4 x 3), then the f1-valid flag */
static size_t rkmk4_work_size(const nh_model *m) { return 6 * (size_t)m->nx + 12 + 1; }

static int rkmk4_supports(const nh_model *m) {
  return m->form == NH_FORM_ODE && m->angvel && m->quat >= 0 && m->quat + 4 <= m->nx ? NH_OK : NH_ERR_UNSUPPORTED;
}

/* q = q0 * exp(v) (Hamilton product with the quaternion of the rotation vector v) */
static void quat_mul_exp(const double *q0, const double v[3], double *q) {
  const double a = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  // sin(a/2)/a by its series below 1e-4 (error < 1e-18 relative)
  const double c = cos(0.5 * a), s = a < 1e-4 ? 0.5 - a * a / 48.0 : sin(0.5 * a) / a;
  const double e0 = c, e1 = s * v[0], e2 = s * v[1], e3 = s * v[2];
  const double p0 = q0[0], p1 = q0[1], p2 = q0[2], p3 = q0[3];
  q[0] = p0 * e0 - p1 * e1 - p2 * e2 - p3 * e3;
  q[1] = p0 * e1 + p1 * e0 + p2 * e3 - p3 * e2;
  q[2] = p0 * e2 - p1 * e3 + p2 * e0 + p3 * e1;
  q[3] = p0 * e3 + p1 * e2 - p2 * e1 + p3 * e0;
}

/* one stage: F_y and h w at (t, xs) */
static int stage(nh_stepper *s, double t, const double *xs, double h, double *Y, double *W) {
  int rc;
  if ((rc = nh_dyn_rhs(s->dyn, t, xs, Y))) return rc;
  if ((rc = nh_cb(s->model->angvel(t, xs, W, s->model->user)))) return rc;
  for (int c = 0; c < 3; c++) W[c] *= h;
  return 0;
}

/* the stage state: y0 + a Y (outside the quaternion), q0 * exp(v) */
static void stage_state(int n, int iq, const double *x0, double a, const double *Y, const double v[3], double *xs) {
  for (int i = 0; i < n; i++) xs[i] = x0[i] + a * Y[i];
  quat_mul_exp(x0 + iq, v, xs + iq);
}

static void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}

static int rkmk4_step(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err) {
  const int n = s->nx, iq = s->model->quat;
  double *Y1 = s->work, *Y2 = Y1 + n, *Y3 = Y2 + n, *Y4 = Y3 + n, *xs = Y4 + n;
  double *W = s->work + 6 * (size_t)n, *W1 = W, *W2 = W + 3, *W3 = W + 6, *W4 = W + 9;
  double *f1_valid = W + 12, v[3], c[3];
  int rc;
  *f1_valid = 0.0;
  s->evals += 4;
  // stages
  if ((rc = stage(s, t, x0, h, Y1, W1))) return rc;
  for (int k = 0; k < 3; k++) v[k] = 0.5 * W1[k];
  stage_state(n, iq, x0, 0.5 * h, Y1, v, xs);
  if ((rc = stage(s, t + 0.5 * h, xs, h, Y2, W2))) return rc;
  cross3(W1, W2, c);
  for (int k = 0; k < 3; k++) v[k] = 0.5 * W2[k] + 0.125 * c[k];
  stage_state(n, iq, x0, 0.5 * h, Y2, v, xs);
  if ((rc = stage(s, t + 0.5 * h, xs, h, Y3, W3))) return rc;
  stage_state(n, iq, x0, h, Y3, W3, xs);
  if ((rc = stage(s, t + h, xs, h, Y4, W4))) return rc;
  // combine: RK4 for y, the exponential update for q
  for (int i = 0; i < n; i++) x1[i] = x0[i] + h / 6.0 * (Y1[i] + 2.0 * Y2[i] + 2.0 * Y3[i] + Y4[i]);
  cross3(W1, W4, c);
  for (int k = 0; k < 3; k++) v[k] = (W1[k] + 2.0 * W2[k] + 2.0 * W3[k] + W4[k] + 0.5 * c[k]) / 6.0;
  quat_mul_exp(x0 + iq, v, x1 + iq);
  if (err) *err = 0.0;
  return 0;
}

static int rkmk4_dense(nh_stepper *s, double t, const double *x0, double h, const double *x1, double theta,
                       double *x) {
  const int n = s->nx, iq = s->model->quat;
  double *k1 = s->work, *f1 = s->work + 5 * (size_t)n, *f1_valid = s->work + 6 * (size_t)n + 12;
  int rc;
  // slope at the step end, once per step (Y1 = F(t, x0) holds the q rows too)
  if (*f1_valid == 0.0) {
    if ((rc = nh_dyn_rhs(s->dyn, t + h, x1, f1))) return rc;
    s->evals++;
    *f1_valid = 1.0;
  }
  double th = theta, th2 = th * th, th3 = th2 * th;
  double h00 = 2 * th3 - 3 * th2 + 1, h10 = th3 - 2 * th2 + th, h01 = -2 * th3 + 3 * th2, h11 = th3 - th2;
  for (int i = 0; i < n; i++) x[i] = h00 * x0[i] + h10 * h * k1[i] + h01 * x1[i] + h11 * h * f1[i];
  double *q = x + iq, nq = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int c = 0; c < 4; c++) q[c] /= nq;
  return 0;
}

const nh_method nh_method_rkmk4 = {
    .name = "rkmk4",
    .summary = "Runge-Kutta-Munthe-Kaas on R^m x SO(3), fixed step (models with a rotation part)",
    .preserves = "|q| = 1 of the rotation part to round-off (exponential updates, no projection)",
    .order = 4,
    .err_order = 0,
    .flags = NH_METHOD_LIE,
    .work_size = rkmk4_work_size,
    .supports = rkmk4_supports,
    .step = rkmk4_step,
    .dense = rkmk4_dense,
};
