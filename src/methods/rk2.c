/* rk2.c - explicit midpoint rule on x' = F(t, x), x = (q, v), the index-1 full-coordinate ODE
 * of the multiplier form, without projection: the "standard Runge-Kutta second-order method"
 * the paper compares against (Kobilarov et al. sec. 6; spec 001 A9 [C]).
 *
 *   k1 = F(t, x0),   k2 = F(t + h/2, x0 + h/2 k1),   x1 = x0 + h k2
 *
 * Dense output: linear in x (only used to bracket events). Constraints and energy drift. */
#include "methods/method_impl.h"

/* work layout: k1 k2 xt (nx each) */
static size_t rk2_work_size(const nh_model *m) { return 3 * (size_t)m->nx; }

static int rk2_step(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err) {
  const int n = s->nx;
  double *k1 = s->work, *k2 = k1 + n, *xt = k2 + n;
  int rc;
  s->evals += 2;
  if ((rc = nh_dyn_rhs(s->dyn, t, x0, k1))) return rc;
  for (int i = 0; i < n; i++) xt[i] = x0[i] + 0.5 * h * k1[i];
  if ((rc = nh_dyn_rhs(s->dyn, t + 0.5 * h, xt, k2))) return rc;
  for (int i = 0; i < n; i++) x1[i] = x0[i] + h * k2[i];
  if (err) *err = 0.0;
  return 0;
}

const nh_method nh_method_rk2 = {
    .name = "rk2",
    .summary = "explicit midpoint Runge-Kutta on the full-coordinate ODE (the paper's baseline)",
    .preserves = "nothing exactly; constraints and energy drift at O(h^2)",
    .order = 2,
    .err_order = 0,
    .flags = 0,
    .work_size = rk2_work_size,
    .supports = NULL,
    .step = rk2_step,
    .dense = nh_dense_linear,
    .contact = NH_HOLD_ROWS,
};
