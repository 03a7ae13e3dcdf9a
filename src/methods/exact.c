/* exact.c - the model's closed-form flow between impacts, as a method.
 *
 *   x1 = Phi_h(x0)   (e.g. the penny's circular arcs, Clark & Bloch eq. 26)
 *
 * Dense output is the flow itself, so events are located on the exact solution. When the
 * model also has an exact event predictor, the driver uses it instead of sampling. */
#include "methods/method_impl.h"

static size_t exact_work_size(const nh_model *m) {
  (void)m;
  return 0;
}

static int exact_supports(const nh_model *m) { return m->flow ? NH_OK : NH_ERR_UNSUPPORTED; }

static int exact_step(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err) {
  (void)t;
  const nh_model *m = s->model;
  const int nq = m->nq;
  s->evals++;
  if (err) *err = 0.0;
  int rc = m->flow(x0, x0 + nq, h, x1, x1 + nq, m->user);
  return rc < 0 ? NH_ERR_CALLBACK : rc;
}

static int exact_dense(nh_stepper *s, double t, const double *x0, double h, const double *x1,
                       double theta, double *x) {
  (void)x1;
  return exact_step(s, t, x0, theta * h, x, NULL);
}

const nh_method nh_method_exact = {
    .name = "exact",
    .summary = "the model's closed-form flow between impacts (needs a model that provides one)",
    .preserves = "everything the exact flow does (energy, constraints) to round-off",
    .order = 0,
    .err_order = 0,
    .flags = NH_METHOD_EXACT,
    .work_size = exact_work_size,
    .supports = exact_supports,
    .step = exact_step,
    .dense = exact_dense,
};
