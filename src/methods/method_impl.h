/* method_impl.h - what a method is, inside the library.
 *
 * A method is a static const table (name, order, flags, workspace size, step, dense output).
 * A step maps the first-order state x0 (size nx: (q, v) with nx = 2 nq for a mechanical
 * model, the model's state for an ODE-form model) at time t to x1 at t + h; the dynamics
 * x' = F(t, x) is nh_dyn_rhs, which dispatches on the model's form.
 * Adaptive methods also return a scaled error norm (<= 1: acceptable); the driver, not the
 * method, accepts or rejects steps and picks the next h, so every method gets the same
 * step-size control, event location and impact handling. A step never allocates. */
#ifndef NH_METHOD_IMPL_H
#define NH_METHOD_IMPL_H

#include <stddef.h>

#include "model/dynamics.h"
#include "nholo/method.h"

typedef struct nh_stepper {
  const nh_model *model;
  const nh_method *method;
  int nx;            /* state size, model->nx */
  double rtol, atol; /* error weights for adaptive methods */
  double *work;      /* method->work_size(model) doubles */
  nh_dyn *dyn;       /* the dynamics x' = F(t, x) */
  long evals;        /* F (or flow) evaluations */
  char msg[256];     /* detail of the last failure */
} nh_stepper;

struct nh_method {
  const char *name;
  const char *summary;
  const char *preserves;
  int order;     /* order of the propagated solution */
  int err_order; /* order of the embedded error estimate (adaptive), else 0 */
  unsigned flags;
  /* doubles of workspace for this model */
  size_t (*work_size)(const nh_model *model);
  /* NH_OK when the method can run the model */
  int (*supports)(const nh_model *model);
  /* x1 = step(x0, h); err (Nullable): scaled error norm (adaptive methods). Returns 0, a
   * positive value (retry with a smaller h) or a negative status. x1 must not alias x0. */
  int (*step)(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err);
  /* Dense output over the last step taken (t, x0, h, x1): x at t + theta h, theta in [0,1]. */
  int (*dense)(nh_stepper *s, double t, const double *x0, double h, const double *x1,
               double theta, double *x);
};

extern const nh_method nh_method_exact;
extern const nh_method nh_method_rk4;
extern const nh_method nh_method_rkmk4;
extern const nh_method nh_method_dopri5;

/* Weighted RMS norm of err with weights atol + rtol max(|x0|, |x1|). */
double nh_err_norm(int n, const double *err, const double *x0, const double *x1, double rtol,
                   double atol);

#endif
