/* dopri5.c - Dormand-Prince 5(4) with dense output of order 4 (Hairer, Norsett & Wanner,
 * "Solving ODEs I", sec. II.5 and II.6; coefficients of their code DOPRI5).
 *
 *   k_i = F(t + c_i h, x0 + h sum_j a_ij k_j),  i = 1..7   (k7 = F(t + h, x1): first same as last)
 *   x1  = x0 + h sum_i b_i k_i                              (order 5, b = row 7 of a)
 *   err = h sum_i e_i k_i                                   (x1 - x1_hat, order 4)
 *   x(t + theta h) = r1 + theta (r2 + (1-theta) (r3 + theta (r4 + (1-theta) r5)))
 *     r1 = x0, r2 = x1 - x0, r3 = h k1 - r2, r4 = r2 - h k7 - r3, r5 = h sum_i d_i k_i
 *
 * Step-size control is the driver's (sim.c); this file computes one step and its error. */
#include <string.h>

#include "la/la.h"
#include "methods/method_impl.h"

// clang-format off
static const double c2 = 1.0 / 5, c3 = 3.0 / 10, c4 = 4.0 / 5, c5 = 8.0 / 9;
static const double a21 = 1.0 / 5;
static const double a31 = 3.0 / 40, a32 = 9.0 / 40;
static const double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
static const double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561, a54 = -212.0 / 729;
static const double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247, a64 = 49.0 / 176,
                    a65 = -5103.0 / 18656;
static const double a71 = 35.0 / 384, a73 = 500.0 / 1113, a74 = 125.0 / 192, a75 = -2187.0 / 6784,
                    a76 = 11.0 / 84;
static const double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920, e5 = -17253.0 / 339200,
                    e6 = 22.0 / 525, e7 = -1.0 / 40;
static const double d1 = -12715105075.0 / 11282082432.0, d3 = 87487479700.0 / 32700410799.0,
                    d4 = -10690763975.0 / 1880347072.0, d5 = 701980252875.0 / 199316789632.0,
                    d6 = -1453857185.0 / 822651844.0, d7 = 69997945.0 / 29380423.0;
// clang-format on

/* work layout (n = nx): k1..k7, xt, then the first-same-as-last cache: fsal (slope), fsal_x
 * (the state it belongs to), k1_x (the state k1 belongs to), then 2 scalars fsal_t, k1_t
 * and 2 flags fsal_ok, k1_ok. */
static size_t dopri5_work_size(const nh_model *m) { return 11 * (size_t)m->nx + 4; }

typedef struct {
  double *k1, *k2, *k3, *k4, *k5, *k6, *k7, *xt, *fsal, *fsal_x, *k1_x;
  double *fsal_t, *k1_t, *fsal_ok, *k1_ok;
} dp_work;

static dp_work carve(nh_stepper *s) {
  const size_t n = (size_t)s->nx;
  dp_work w;
  w.k1 = s->work;
  w.k2 = w.k1 + n;
  w.k3 = w.k2 + n;
  w.k4 = w.k3 + n;
  w.k5 = w.k4 + n;
  w.k6 = w.k5 + n;
  w.k7 = w.k6 + n;
  w.xt = w.k7 + n;
  w.fsal = w.xt + n;
  w.fsal_x = w.fsal + n;
  w.k1_x = w.fsal_x + n;
  w.fsal_t = w.k1_x + n;
  w.k1_t = w.fsal_t + 1;
  w.fsal_ok = w.k1_t + 1;
  w.k1_ok = w.fsal_ok + 1;
  return w;
}

static int same_state(int n, double t, const double *x, double ts, const double *xs) {
  return t == ts && memcmp(x, xs, sizeof(double) * (size_t)n) == 0;
}

static int dopri5_step(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err) {
  const int n = s->nx;
  dp_work w = carve(s);
  nh_dyn *d = s->dyn;
  int rc;

  // first stage: reuse k1, or the last step's final slope, when x0 is their state
  if (!(*w.k1_ok != 0.0 && same_state(n, t, x0, *w.k1_t, w.k1_x))) {
    if (*w.fsal_ok != 0.0 && same_state(n, t, x0, *w.fsal_t, w.fsal_x)) {
      memcpy(w.k1, w.fsal, sizeof(double) * (size_t)n);
    } else {
      *w.k1_ok = 0.0;
      if ((rc = nh_dyn_rhs(d, t, x0, w.k1))) return rc;
      s->evals++;
    }
    memcpy(w.k1_x, x0, sizeof(double) * (size_t)n);
    *w.k1_t = t;
    *w.k1_ok = 1.0;
  }
  *w.fsal_ok = 0.0;

  // stages 2..7
  for (int i = 0; i < n; i++) w.xt[i] = x0[i] + h * a21 * w.k1[i];
  if ((rc = nh_dyn_rhs(d, t + c2 * h, w.xt, w.k2))) return rc;
  for (int i = 0; i < n; i++) w.xt[i] = x0[i] + h * (a31 * w.k1[i] + a32 * w.k2[i]);
  if ((rc = nh_dyn_rhs(d, t + c3 * h, w.xt, w.k3))) return rc;
  for (int i = 0; i < n; i++) w.xt[i] = x0[i] + h * (a41 * w.k1[i] + a42 * w.k2[i] + a43 * w.k3[i]);
  if ((rc = nh_dyn_rhs(d, t + c4 * h, w.xt, w.k4))) return rc;
  for (int i = 0; i < n; i++)
    w.xt[i] = x0[i] + h * (a51 * w.k1[i] + a52 * w.k2[i] + a53 * w.k3[i] + a54 * w.k4[i]);
  if ((rc = nh_dyn_rhs(d, t + c5 * h, w.xt, w.k5))) return rc;
  for (int i = 0; i < n; i++)
    w.xt[i] = x0[i] + h * (a61 * w.k1[i] + a62 * w.k2[i] + a63 * w.k3[i] + a64 * w.k4[i] + a65 * w.k5[i]);
  if ((rc = nh_dyn_rhs(d, t + h, w.xt, w.k6))) return rc;
  for (int i = 0; i < n; i++)
    x1[i] = x0[i] + h * (a71 * w.k1[i] + a73 * w.k3[i] + a74 * w.k4[i] + a75 * w.k5[i] + a76 * w.k6[i]);
  if ((rc = nh_dyn_rhs(d, t + h, x1, w.k7))) return rc;
  s->evals += 6;

  // embedded error estimate
  if (err) {
    for (int i = 0; i < n; i++)
      w.xt[i] = h * (e1 * w.k1[i] + e3 * w.k3[i] + e4 * w.k4[i] + e5 * w.k5[i] + e6 * w.k6[i] + e7 * w.k7[i]);
    *err = nh_err_norm(n, w.xt, x0, x1, s->rtol, s->atol);
  }

  // remember the final slope for the next step
  memcpy(w.fsal, w.k7, sizeof(double) * (size_t)n);
  memcpy(w.fsal_x, x1, sizeof(double) * (size_t)n);
  *w.fsal_t = t + h;
  *w.fsal_ok = 1.0;
  return 0;
}

static int dopri5_dense(nh_stepper *s, double t, const double *x0, double h, const double *x1,
                        double theta, double *x) {
  (void)t;
  const int n = s->nx;
  dp_work w = carve(s);
  const double th1 = 1.0 - theta;
  for (int i = 0; i < n; i++) {
    double r2 = x1[i] - x0[i];
    double r3 = h * w.k1[i] - r2;
    double r4 = r2 - h * w.k7[i] - r3;
    double r5 = h * (d1 * w.k1[i] + d3 * w.k3[i] + d4 * w.k4[i] + d5 * w.k5[i] + d6 * w.k6[i] + d7 * w.k7[i]);
    x[i] = x0[i] + theta * (r2 + th1 * (r3 + theta * (r4 + th1 * r5)));
  }
  return 0;
}

const nh_method nh_method_dopri5 = {
    .name = "dopri5",
    .summary = "Dormand-Prince 5(4), adaptive, dense output of order 4 (reference)",
    .preserves = "nothing exactly; errors controlled by rtol/atol",
    .order = 5,
    .err_order = 4,
    .flags = NH_METHOD_ADAPTIVE,
    .work_size = dopri5_work_size,
    .supports = NULL,
    .step = dopri5_step,
    .dense = dopri5_dense,
    .contact = NH_HOLD_ROWS,
};
