/* test_methods.c - the continuous dynamics and the reference integrators (RK4, DOPRI5, exact). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "methods/method_impl.h"
#include "model/dynamics.h"
#include "models.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

#define PI 3.14159265358979323846
/* |observed order - stated order| of a fixed-step method in its asymptotic regime (measured:
 * within 0.03) */
#define ORDER_TOL 0.1
/* dopri5's global error at rtol = tol is at most ADAPT_FACTOR tol (measured 1.2 tol at 1e-6,
 * 0.96 tol at 1e-10) */
#define ADAPT_FACTOR 20.0
/* |local order of the dense output - its order + 1| (measured 4.87 for dopri5's order 4
 * continuous extension, 4.05 for rk4's cubic Hermite interpolant) */
#define DENSE_ORDER_TOL 0.2

static const double polar_q0[2] = {1.3, 0.4}, polar_v0[2] = {0.2, 0.9};
static const double polar_k = 2.0;

/* run a model without gaps to T with a method; returns the final state in q, v */
static int run_to(const nh_model *m, const char *method, double h, double T, double rtol, double *q,
                  double *v, nh_sim_stats *stats) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  if (rtol > 0) d.rtol = rtol, d.atol = rtol * 1e-2;
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  if (!s) return -100;
  int rc = nh_sim_run(s, T, 0, NULL, NULL);
  for (int i = 0; i < m->nq; i++) q[i] = nh_sim_q(s)[i], v[i] = nh_sim_v(s)[i];
  if (stats) *stats = *nh_sim_get_stats(s);
  nh_sim_destroy(s);
  return rc;
}

/* Cartesian position error of a polar run against the exact solution */
static double polar_error(const char *method, double h, double T, double rtol) {
  nh_model *m = test_polar_create(polar_k, polar_q0, polar_v0);
  double q[2], v[2], p[2], pv[2], pe[2], pve[2];
  int rc = run_to(m, method, h, T, rtol, q, v, NULL);
  nh_model_destroy(m);
  if (rc) return INFINITY;
  polar_to_xy(q, v, p, pv);
  polar_exact(polar_k, polar_q0, polar_v0, T, pe, pve);
  return fmax(fmax(fabs(p[0] - pe[0]), fabs(p[1] - pe[1])), fmax(fabs(pv[0] - pve[0]), fabs(pv[1] - pve[1])));
}

/* the multiplier form reproduces the penny's analytic accelerations and multipliers
 * (spec 000 sec. 2.2: mu = m R Omega omega (-sin phi, cos phi), xddot = -R Omega omega sin phi) */
static int test_penny_accelerations(void) {
  nh_penny_params p = nh_penny_params_default();
  nh_model *m = nh_penny_create(&p, NULL, 0);
  ENSURE(m);
  double work[256];
  ENSURE(nh_dyn_work_size(m) <= 256);
  nh_dyn d;
  nh_dyn_init(&d, m, work);
  double Om = 7.3, om = -1.7, phi = 0.83;
  double q[4] = {0.01, -0.02, 1.1, phi};
  double v[4] = {p.R * Om * cos(phi), p.R * Om * sin(phi), Om, om};
  double a[4], lam[2];
  ENSURE(nh_dyn_accel(&d, 0.0, q, v, a, lam) == NH_OK);
  ENSURE_NEAR(a[0], -p.R * Om * om * sin(phi), 1e-15);
  ENSURE_NEAR(a[1], p.R * Om * om * cos(phi), 1e-15);
  ENSURE_NEAR(a[2], 0.0, 1e-13);
  ENSURE_NEAR(a[3], 0.0, 1e-13);
  ENSURE_REL(lam[0], -p.m * p.R * Om * om * sin(phi), 1e-12);
  ENSURE_REL(lam[1], p.m * p.R * Om * om * cos(phi), 1e-12);
  nh_model_destroy(m);
  return 0;
}

/* RK4 converges at order 4 on a system with a configuration-dependent mass matrix */
static int test_rk4_order(void) {
  double e1 = polar_error("rk4", 0.02, 2.0, 0), e2 = polar_error("rk4", 0.01, 2.0, 0),
         e3 = polar_error("rk4", 0.005, 2.0, 0);
  double p1 = log2(e1 / e2), p2 = log2(e2 / e3);
  printf("  rk4 errors %.3e %.3e %.3e, observed orders %.3f %.3f\n", e1, e2, e3, p1, p2);
  ENSURE(fabs(p1 - 4.0) <= ORDER_TOL && fabs(p2 - 4.0) <= ORDER_TOL);
  return 0;
}

/* RK4 on the penny (constrained) against the closed-form flow: order 4, and A v of order 4 */
static int test_rk4_penny_order(void) {
  nh_penny_params p = nh_penny_params_default();
  p.a = p.b = 100.0; /* no wall within reach */
  nh_model *m = nh_penny_create(&p, NULL, 0);
  ENSURE(m);
  double qe[4], ve[4];
  ENSURE(m->flow(m->q0, m->v0, 4.0, qe, ve, m->user) == 0);
  double err[3], res[3];
  double hs[3] = {0.08, 0.04, 0.02};
  for (int k = 0; k < 3; k++) {
    double q[4], v[4];
    nh_sim_stats st;
    ENSURE(run_to(m, "rk4", hs[k], 4.0, 0, q, v, &st) == NH_OK);
    err[k] = fmax(fabs(q[0] - qe[0]), fabs(q[1] - qe[1]));
    res[k] = st.max_constraint_residual;
  }
  double p1 = log2(err[0] / err[1]), p2 = log2(err[1] / err[2]);
  printf("  penny rk4 errors %.3e %.3e %.3e, orders %.3f %.3f; max |A v| %.1e %.1e %.1e\n", err[0], err[1], err[2], p1,
         p2, res[0], res[1], res[2]);
  ENSURE(fabs(p1 - 4.0) <= ORDER_TOL && fabs(p2 - 4.0) <= ORDER_TOL);
  /* rk4 does not keep A v = 0: the residual is its error, of order 4 as well */
  ENSURE(fabs(log2(res[0] / res[1]) - 4.0) <= ORDER_TOL && fabs(log2(res[1] / res[2]) - 4.0) <= ORDER_TOL);
  nh_model_destroy(m);
  return 0;
}

/* DOPRI5 meets its tolerance and its error shrinks with the tolerance */
static int test_dopri5_tolerance(void) {
  double e6 = polar_error("dopri5", 1e-3, 5.0, 1e-6), e10 = polar_error("dopri5", 1e-3, 5.0, 1e-10);
  printf("  dopri5 errors: rtol 1e-6 -> %.3e, rtol 1e-10 -> %.3e\n", e6, e10);
  ENSURE(e6 <= ADAPT_FACTOR * 1e-6 && e10 <= ADAPT_FACTOR * 1e-10);
  ENSURE(e10 < e6 * 1e-2);
  return 0;
}

/* dense output: DOPRI5's continuous extension is O(h^5) locally; RK4's Hermite O(h^4) */
static int test_dense_output(void) {
  nh_model *m = test_polar_create(polar_k, polar_q0, polar_v0);
  ENSURE(m);
  const char *names[2] = {"dopri5", "rk4"};
  for (int k = 0; k < 2; k++) {
    const nh_method *meth = nh_method_find(names[k]);
    double maxerr[2];
    double hs[2] = {0.1, 0.05};
    for (int j = 0; j < 2; j++) {
      size_t nw = meth->work_size(m), nd = nh_dyn_work_size(m);
      double *work = calloc(nw + nd, sizeof(double));
      nh_dyn d;
      nh_dyn_init(&d, m, work + nw);
      nh_stepper st = {.model = m, .method = meth, .nx = 4, .rtol = 1e-10, .atol = 1e-12, .work = work, .dyn = &d};
      double x0[4] = {polar_q0[0], polar_q0[1], polar_v0[0], polar_v0[1]}, x1[4], xd[4], err;
      ENSURE(meth->step(&st, 0.0, x0, hs[j], x1, &err) == 0);
      maxerr[j] = 0;
      for (int i = 1; i < 10; i++) {
        double th = i / 10.0, pe[2], pve[2], pp[2], pv[2];
        ENSURE(meth->dense(&st, 0.0, x0, hs[j], x1, th, xd) == 0);
        polar_to_xy(xd, xd + 2, pp, pv);
        polar_exact(polar_k, polar_q0, polar_v0, th * hs[j], pe, pve);
        maxerr[j] = fmax(maxerr[j], fmax(fabs(pp[0] - pe[0]), fabs(pp[1] - pe[1])));
      }
      free(work);
    }
    double order = log2(maxerr[0] / maxerr[1]);
    printf("  %s dense output error %.3e -> %.3e (local order %.2f)\n", names[k], maxerr[0], maxerr[1], order);
    ENSURE(fabs(order - (k == 0 ? 5.0 : 4.0)) <= DENSE_ORDER_TOL);
  }
  nh_model_destroy(m);
  return 0;
}

/* the exact method on the penny keeps energy and constraints to round-off over long times */
static int test_exact_invariants(void) {
  nh_penny_params p = nh_penny_params_default();
  p.a = p.b = 100.0;
  nh_model *m = nh_penny_create(&p, NULL, 0);
  ENSURE(m);
  double q[4], v[4];
  nh_sim_stats st;
  ENSURE(run_to(m, "exact", 0.01, 1000.0, 0, q, v, &st) == NH_OK);
  ENSURE(st.max_energy_rel_error < 1e-14);
  ENSURE(st.max_constraint_residual < 1e-15);
  nh_model_destroy(m);
  return 0;
}

/* the method table: names, flags, applicability */
static int test_method_table(void) {
  ENSURE(nh_method_count() >= 3);
  for (int i = 0; i < nh_method_count(); i++) {
    const nh_method *m = nh_method_at(i);
    ENSURE(nh_method_find(nh_method_name(m)) == m);
    ENSURE(nh_method_summary(m)[0] && nh_method_preserves(m)[0]);
  }
  ENSURE(nh_method_at(-1) == NULL && nh_method_at(nh_method_count()) == NULL);
  ENSURE(nh_method_find("no-such-method") == NULL);
  ENSURE(nh_method_order(nh_method_find("rk4")) == 4);
  ENSURE(nh_method_flags(nh_method_find("dopri5")) & NH_METHOD_ADAPTIVE);
  nh_model *polar = test_polar_create(polar_k, polar_q0, polar_v0);
  ENSURE(nh_method_supports(nh_method_find("exact"), polar) == NH_ERR_UNSUPPORTED);
  ENSURE(nh_method_supports(nh_method_find("rk4"), polar) == NH_OK);
  char msg[256];
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("exact");
  ENSURE(nh_sim_create(polar, &d, msg, sizeof msg) == NULL);
  ENSURE(strstr(msg, "closed-form") != NULL);
  nh_model_destroy(polar);
  return 0;
}

/* two identical runs are bitwise identical (determinism) */
static int test_determinism(void) {
  double qa[2], va[2], qb[2], vb[2];
  nh_model *m = test_polar_create(polar_k, polar_q0, polar_v0);
  ENSURE(run_to(m, "dopri5", 1e-3, 20.0, 1e-9, qa, va, NULL) == NH_OK);
  ENSURE(run_to(m, "dopri5", 1e-3, 20.0, 1e-9, qb, vb, NULL) == NH_OK);
  ENSURE(memcmp(qa, qb, sizeof qa) == 0 && memcmp(va, vb, sizeof va) == 0);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_penny_accelerations);
  RUN_TEST(test_rk4_order);
  RUN_TEST(test_rk4_penny_order);
  RUN_TEST(test_dopri5_tolerance);
  RUN_TEST(test_dense_output);
  RUN_TEST(test_exact_invariants);
  RUN_TEST(test_method_table);
  RUN_TEST(test_determinism);
  return TEST_SUMMARY();
}
