/* rk4.c - the classical fixed-step Runge-Kutta method of order 4 on x' = F(t, x), x = (q, v).
 *
 *   k1 = F(t, x0)              k2 = F(t + h/2, x0 + h/2 k1)
 *   k3 = F(t + h/2, x0 + h/2 k2)   k4 = F(t + h, x0 + h k3)
 *   x1 = x0 + h/6 (k1 + 2 k2 + 2 k3 + k4)
 *
 * Dense output: the cubic Hermite interpolant through (x0, k1) and (x1, F(t + h, x1))
 * (order 3, used only to bracket events; the driver locates them with partial steps).
 * The constraint A v = 0 is kept only to the method's accuracy (O(h^4) drift). */
#include <string.h>

#include "la/la.h"
#include "methods/method_impl.h"

/* work layout: k1 k2 k3 k4 xt f1 (nx each), then one flag: f1 valid for the last step */
static size_t rk4_work_size(const nh_model *m) { return 6 * (size_t)m->nx + 1; }

static int rk4_step(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err) {
  const int n = s->nx;
  double *k1 = s->work, *k2 = k1 + n, *k3 = k2 + n, *k4 = k3 + n, *xt = k4 + n;
  double *f1_valid = s->work + 6 * (size_t)n;
  int rc;
  *f1_valid = 0.0;
  s->evals += 4;
  // stages
  if ((rc = nh_dyn_rhs(s->dyn, t, x0, k1))) return rc;
  for (int i = 0; i < n; i++) xt[i] = x0[i] + 0.5 * h * k1[i];
  if ((rc = nh_dyn_rhs(s->dyn, t + 0.5 * h, xt, k2))) return rc;
  for (int i = 0; i < n; i++) xt[i] = x0[i] + 0.5 * h * k2[i];
  if ((rc = nh_dyn_rhs(s->dyn, t + 0.5 * h, xt, k3))) return rc;
  for (int i = 0; i < n; i++) xt[i] = x0[i] + h * k3[i];
  if ((rc = nh_dyn_rhs(s->dyn, t + h, xt, k4))) return rc;
  // combine
  for (int i = 0; i < n; i++) x1[i] = x0[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  if (err) *err = 0.0;
  return 0;
}

static int rk4_dense(nh_stepper *s, double t, const double *x0, double h, const double *x1,
                     double theta, double *x) {
  const int n = s->nx;
  double *k1 = s->work, *f1 = s->work + 5 * (size_t)n;
  double *f1_valid = s->work + 6 * (size_t)n;
  int rc;
  // slope at the step end, once per step
  if (*f1_valid == 0.0) {
    if ((rc = nh_dyn_rhs(s->dyn, t + h, x1, f1))) return rc;
    s->evals++;
    *f1_valid = 1.0;
  }
  // cubic Hermite basis
  double th = theta, th2 = th * th, th3 = th2 * th;
  double h00 = 2 * th3 - 3 * th2 + 1, h10 = th3 - 2 * th2 + th;
  double h01 = -2 * th3 + 3 * th2, h11 = th3 - th2;
  for (int i = 0; i < n; i++) x[i] = h00 * x0[i] + h10 * h * k1[i] + h01 * x1[i] + h11 * h * f1[i];
  return 0;
}

const nh_method nh_method_rk4 = {
    .name = "rk4",
    .summary = "classical Runge-Kutta, fixed step (reference)",
    .preserves = "nothing exactly; constraints and energy drift at O(h^4)",
    .order = 4,
    .err_order = 0,
    .flags = 0,
    .work_size = rk4_work_size,
    .supports = NULL,
    .step = rk4_step,
    .dense = rk4_dense,
    .contact = NH_HOLD_ROWS,
};
