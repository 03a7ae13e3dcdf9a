/* test_dop853.c - the Dormand-Prince 8(5,3) method: its order with fixed steps, the order of its
 * dense output, its adaptive runs on the Chaplygin sleigh (closed form) against dopri5, the
 * penny's impact times against the exact method. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "methods/method_impl.h"
#include "model/dynamics.h"
#include "models.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

static const double polar_q0[2] = {1.3, 0.4}, polar_v0[2] = {0.2, 0.9};
static const double polar_k = 2.0;

/* a stepper of a method on a model, its workspace (method's, then the dynamics') in *work */
static nh_stepper make_stepper(const nh_model *m, const nh_method *meth, nh_dyn *d, double **work) {
  size_t nw = meth->work_size(m), nd = nh_dyn_work_size(m);
  *work = calloc(nw + nd, sizeof(double));
  nh_dyn_init(d, m, *work + nw);
  nh_stepper st = {.model = m, .method = meth, .nx = m->nx, .rtol = 1e-10, .atol = 1e-12, .work = *work, .dyn = d};
  return st;
}

/* max Cartesian position/velocity error of a polar state against the exact solution at t */
static double polar_err(const double *x, double t) {
  double p[2], pv[2], pe[2], pve[2];
  polar_to_xy(x, x + 2, p, pv);
  polar_exact(polar_k, polar_q0, polar_v0, t, pe, pve);
  return fmax(fmax(fabs(p[0] - pe[0]), fabs(p[1] - pe[1])), fmax(fabs(pv[0] - pve[0]), fabs(pv[1] - pve[1])));
}

/* the final error of N fixed steps of dop853 over [0, T] on the polar oscillator */
static double fixed_run_error(const nh_model *m, int N, double T) {
  nh_dyn d;
  double *work;
  nh_stepper st = make_stepper(m, &nh_method_dop853, &d, &work);
  double x[4] = {polar_q0[0], polar_q0[1], polar_v0[0], polar_v0[1]}, x1[4], h = T / N;
  for (int k = 0; k < N; k++) {
    if (nh_method_dop853.step(&st, k * h, x, h, x1, NULL)) {
      free(work);
      return INFINITY;
    }
    for (int i = 0; i < 4; i++) x[i] = x1[i];
  }
  free(work);
  return polar_err(x, T);
}

/* order 8 with fixed steps: errors at h, h/2, h/4 (nonlinear coordinates, M(q) not constant) */
static int test_fixed_step_order(void) {
  nh_model *m = test_polar_create(polar_k, polar_q0, polar_v0);
  ENSURE(m);
  const double T = 2.0;
  double e1 = fixed_run_error(m, 12, T), e2 = fixed_run_error(m, 24, T), e3 = fixed_run_error(m, 48, T);
  double p1 = log2(e1 / e2), p2 = log2(e2 / e3);
  printf("  dop853 fixed-step errors %.3e %.3e %.3e, observed orders %.3f %.3f\n", e1, e2, e3, p1, p2);
  ENSURE(p1 >= 7.5 && p1 <= 8.5 && p2 >= 7.5 && p2 <= 8.5);
  ENSURE(e3 > 1e-14); // above round-off, so the slopes measure the method
  nh_model_destroy(m);
  return 0;
}

/* one step from the exact state: the node's local error is O(h^9), the dense output's between
 * the nodes O(h^8) (order 7); at theta = 0 and 1 it reproduces x0 and x1 */
static int test_dense_order(void) {
  nh_model *m = test_polar_create(polar_k, polar_q0, polar_v0);
  ENSURE(m);
  const double hs[3] = {0.4, 0.2, 0.1};
  double de[3], ne[3];
  long dense_evals = 0;
  for (int j = 0; j < 3; j++) {
    nh_dyn d;
    double *work;
    nh_stepper st = make_stepper(m, &nh_method_dop853, &d, &work);
    double x0[4] = {polar_q0[0], polar_q0[1], polar_v0[0], polar_v0[1]}, x1[4], xd[4], err;
    ENSURE(nh_method_dop853.step(&st, 0.0, x0, hs[j], x1, &err) == 0);
    ENSURE(st.evals == 12 && err >= 0.0);
    ne[j] = polar_err(x1, hs[j]);
    de[j] = 0.0;
    for (int i = 1; i < 10; i++) {
      double th = i / 10.0;
      ENSURE(nh_method_dop853.dense(&st, 0.0, x0, hs[j], x1, th, xd) == 0);
      de[j] = fmax(de[j], polar_err(xd, th * hs[j]));
    }
    dense_evals = st.evals - 12;
    ENSURE(nh_method_dop853.dense(&st, 0.0, x0, hs[j], x1, 0.0, xd) == 0);
    for (int i = 0; i < 4; i++) ENSURE(xd[i] == x0[i]);
    ENSURE(nh_method_dop853.dense(&st, 0.0, x0, hs[j], x1, 1.0, xd) == 0);
    for (int i = 0; i < 4; i++) ENSURE_NEAR(xd[i], x1[i], 1e-15 * (1.0 + fabs(x1[i])));
    free(work);
  }
  double pd1 = log2(de[0] / de[1]), pd2 = log2(de[1] / de[2]);
  double pn1 = log2(ne[0] / ne[1]), pn2 = log2(ne[1] / ne[2]);
  printf("  dop853 dense error %.3e %.3e %.3e (local orders %.2f %.2f), node %.3e %.3e %.3e (%.2f %.2f)\n",
         de[0], de[1], de[2], pd1, pd2, ne[0], ne[1], ne[2], pn1, pn2);
  ENSURE(pd1 >= 7.5 && pd1 <= 8.6 && pd2 >= 7.5 && pd2 <= 8.6);
  ENSURE(pn1 >= 8.5 && pn2 >= 8.5);
  // the dense stages (F at the end and three more) are computed once per step
  ENSURE(dense_evals == 4);
  nh_model_destroy(m);
  return 0;
}

/* the sleigh to T with a method at rtol (atol = rtol / 100): max error of q, q' against the
 * closed form, and the evaluations */
static double sleigh_error(const char *method, double rtol, double T, long *evals) {
  nh_sleigh_params p = nh_sleigh_params_default();
  nh_model *m = nh_sleigh_create(&p, NULL, 0);
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.rtol = rtol, d.atol = rtol * 1e-2;
  nh_sim *s = m ? nh_sim_create(m, &d, NULL, 0) : NULL;
  double e = INFINITY;
  if (s && nh_sim_run(s, T, 0, NULL, NULL) == NH_OK && nh_sim_time(s) == T) {
    double q[3], qd[3];
    nh_sleigh_exact(&p, T, q, qd, NULL, NULL);
    e = 0.0;
    for (int i = 0; i < 3; i++) e = fmax(e, fmax(fabs(nh_sim_q(s)[i] - q[i]), fabs(nh_sim_v(s)[i] - qd[i])));
    *evals = nh_sim_get_stats(s)->evals;
  }
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return e;
}

/* the accuracy asked of the sleigh run, and the tolerances tried (cheapest run reaching it) */
#define SLEIGH_TARGET 1e-10
#define SLEIGH_T 10.0

static long cheapest(const char *method, double *rtol_used, double *err_used) {
  long best = -1;
  for (int k = 0; k <= 12; k++) {
    double rtol = pow(10.0, -8.0 - 0.5 * k);
    long ev = 0;
    double e = sleigh_error(method, rtol, SLEIGH_T, &ev);
    if (e <= SLEIGH_TARGET && (best < 0 || ev < best)) best = ev, *rtol_used = rtol, *err_used = e;
  }
  return best;
}

/* the adaptive run reaches 1e-10 on the sleigh with fewer evaluations than dopri5 */
static int test_sleigh_adaptive(void) {
  double r8 = 0, e8 = 0, r5 = 0, e5 = 0;
  long n8 = cheapest("dop853", &r8, &e8), n5 = cheapest("dopri5", &r5, &e5);
  printf("  sleigh T = %g, error <= %.0e: dop853 %ld evaluations (rtol %.1e, error %.2e), dopri5 %ld (rtol %.1e, "
         "error %.2e)\n", SLEIGH_T, SLEIGH_TARGET, n8, r8, e8, n5, r5, e5);
  ENSURE(n8 > 0 && n5 > 0);
  ENSURE(n8 < n5);
  // and the error follows the tolerance: rtol 1e-12 is well inside the target
  long ev;
  ENSURE(sleigh_error("dop853", 1e-12, SLEIGH_T, &ev) <= SLEIGH_TARGET);
  return 0;
}

/* the penny's first 20 impacts (elastic, circle) at the exact method's times to 1e-9, at
 * rtol 1e-12, atol 1e-14 (at the defaults 1e-10, 1e-12 the times drift by ~7e-9 over t = 38,
 * proportionally to the tolerance; dopri5's by ~1.5e-7) */
#define PENNY_IMPACTS 20
#define PENNY_TIME_TOL 1e-9
#define PENNY_RTOL 1e-12
#define PENNY_ATOL 1e-14

static int penny_times(const char *method, double *t) {
  nh_penny_params p = nh_penny_params_default();
  nh_model *m = nh_penny_create(&p, NULL, 0);
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.rtol = PENNY_RTOL, d.atol = PENNY_ATOL;
  nh_sim *s = m ? nh_sim_create(m, &d, NULL, 0) : NULL;
  int n = -1;
  if (s && nh_sim_run(s, 1e6, PENNY_IMPACTS, NULL, NULL) == NH_OK) {
    n = (int)nh_sim_impact_count(s);
    for (int k = 0; k < n && k < PENNY_IMPACTS; k++) {
      nh_impact_record r;
      if (nh_sim_impact_get(s, k, &r) != NH_OK) n = -1;
      t[k] = r.t;
    }
  }
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return n;
}

static int test_penny_impacts(void) {
  double te[PENNY_IMPACTS], td[PENNY_IMPACTS], dmax = 0.0;
  ENSURE(penny_times("exact", te) == PENNY_IMPACTS);
  ENSURE(penny_times("dop853", td) == PENNY_IMPACTS);
  for (int k = 0; k < PENNY_IMPACTS; k++) {
    ENSURE_NEAR(td[k], te[k], PENNY_TIME_TOL);
    dmax = fmax(dmax, fabs(td[k] - te[k]));
  }
  printf("  penny: %d impacts, t_20 = %.12f, max |t_dop853 - t_exact| = %.2e\n", PENNY_IMPACTS, te[PENNY_IMPACTS - 1],
         dmax);
  return 0;
}

/* the table lists it, after dopri5, with its orders */
static int test_table(void) {
  const nh_method *m = nh_method_find("dop853");
  ENSURE(m == &nh_method_dop853);
  ENSURE(nh_method_order(m) == 8 && (nh_method_flags(m) & NH_METHOD_ADAPTIVE));
  int i5 = -1, i8 = -1;
  for (int i = 0; i < nh_method_count(); i++) {
    if (nh_method_at(i) == &nh_method_dopri5) i5 = i;
    if (nh_method_at(i) == m) i8 = i;
  }
  ENSURE(i5 >= 0 && i8 == i5 + 1);
  return 0;
}

/* x_i' = cos(t) - x_i^3 for every component: decoupled and identical */
static int cubic_rhs(double t, const double *x, double *xdot, void *user) {
  const int n = *(const int *)user;
  for (int i = 0; i < n; i++) xdot[i] = cos(t) - x[i] * x[i] * x[i];
  return 0;
}

/* the stage, solution, error and dense sums take two components at a time and the last one
 * of an odd count alone: five identical components (two pairs and the tail) step and
 * interpolate to the same bits as the one-component system (the tail only) */
#define CUBIC_H 0.3
#define CUBIC_STEPS 6
#define CUBIC_THETA 0.37
static int test_pairs_and_tail(void) {
  const int n5 = 5, n1 = 1;
  const double x0[5] = {0.5, 0.5, 0.5, 0.5, 0.5};
  nh_model *m[2];
  for (int k = 0; k < 2; k++) {
    nh_model_def d = nh_model_def_default();
    d.name = "cubic", d.form = NH_FORM_ODE, d.nx = k ? n1 : n5, d.x0 = x0, d.rhs = cubic_rhs;
    d.user = k ? (void *)&n1 : (void *)&n5, d.user_size = sizeof(int);
    ENSURE((m[k] = nh_model_create(&d, NULL, 0)) != NULL);
  }
  nh_dyn dyn[2];
  double *work[2], x[2][5], x1[2][5], xd[2][5], err[2];
  nh_stepper st[2];
  for (int k = 0; k < 2; k++) {
    st[k] = make_stepper(m[k], &nh_method_dop853, &dyn[k], &work[k]);
    memcpy(x[k], x0, sizeof x0);
  }
  double t = 0.0;
  for (int j = 0; j < CUBIC_STEPS; j++, t += CUBIC_H) {
    for (int k = 0; k < 2; k++) {
      ENSURE(nh_method_dop853.step(&st[k], t, x[k], CUBIC_H, x1[k], &err[k]) == 0);
      ENSURE(nh_method_dop853.dense(&st[k], t, x[k], CUBIC_H, x1[k], CUBIC_THETA, xd[k]) == 0);
      ENSURE(isfinite(err[k]) && err[k] > 0.0);
    }
    for (int i = 0; i < n5; i++) {
      ENSURE(memcmp(&x1[0][i], &x1[1][0], sizeof(double)) == 0);
      ENSURE(memcmp(&xd[0][i], &xd[1][0], sizeof(double)) == 0);
    }
    // the norm of five equal components is that of one (sqrt(n E / (n D)))
    ENSURE(fabs(err[0] - err[1]) <= 1e-12 * err[1]);
    for (int k = 0; k < 2; k++) memcpy(x[k], x1[k], sizeof x1[k]);
  }
  for (int k = 0; k < 2; k++) free(work[k]), nh_model_destroy(m[k]);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_table);
  RUN_TEST(test_fixed_step_order);
  RUN_TEST(test_dense_order);
  RUN_TEST(test_pairs_and_tail);
  RUN_TEST(test_sleigh_adaptive);
  RUN_TEST(test_penny_impacts);
  return TEST_SUMMARY();
}
