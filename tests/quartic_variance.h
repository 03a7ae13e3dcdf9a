/* quartic_variance.h - Celledoni et al.'s energy-error statistics on the quartic system (spec
 * 002 M8, the initial states of C8), shared by test_dg (SI-DLA) and test_spark: nic states
 * q ~ N(0, 0.7^2) with V(q) < H, rho ~ N(0, 1) scaled to H = 3.06, each run with `method` at
 * step h to T; var(H - H0)/h^4 at nt equally spaced times is fitted by least squares,
 * var/h^4 = slope t + icpt. Needs harness.h and nholo.h before it. */
#ifndef NH_TEST_QUARTIC_VARIANCE_H
#define NH_TEST_QUARTIC_VARIANCE_H

#include <math.h>
#include <stdio.h>

#define QV_MAX_TIMES 16

static double qv_gauss(unsigned long long *s) {
  double u = nh_test_rand(s, 1e-300, 1.0), v = nh_test_rand(s, 0.0, 1.0);
  return sqrt(-2.0 * log(u)) * cos(2.0 * 3.14159265358979323846 * v);
}

/* 0 with *slope, *icpt and the largest constraint residual *gmax; -1 on a failed run */
static int quartic_variance(const char *method, double h, double T, int nic, int nt, double *slope,
                            double *icpt, double *gmax) {
  const double H = 3.06;
  double sum[QV_MAX_TIMES] = {0}, sum2[QV_MAX_TIMES] = {0};
  unsigned long long seed = 2016;
  if (nt > QV_MAX_TIMES || nic < 2) return -1;
  nh_model *m = nh_quartic_create(NULL, 0);
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  nh_sim *s = m ? nh_sim_create(m, &d, NULL, 0) : NULL;
  int rc = s ? 0 : -1;
  *gmax = 0.0;
  for (int ic = 0; ic < nic && rc == 0; ic++) {
    double q[7], rho[6], v[7], x[14];
    do {
      for (int i = 0; i < 7; i++) q[i] = 0.7 * qv_gauss(&seed);
      for (int i = 0; i < 6; i++) rho[i] = qv_gauss(&seed);
    } while (nh_quartic_velocity(q, rho, H, v) != NH_OK);
    for (int i = 0; i < 7; i++) x[i] = q[i], x[7 + i] = v[i];
    if (nh_sim_set_state_x(s, 0.0, x) != 0) rc = -1;
    const double E0 = nh_sim_get_stats(s)->energy_initial;
    for (int k = 0; k < nt && rc == 0; k++) {
      int st = nh_sim_run(s, (k + 1) * T / nt, 0, NULL, NULL);
      if (st) {
        printf("  IC %d: %s at t = %g: %s\n", ic, nh_status_name(st), nh_sim_time(s), nh_sim_message(s));
        rc = -1;
      }
      const double dE = nh_sim_get_stats(s)->energy - E0;
      sum[k] += dE, sum2[k] += dE * dE;
    }
    *gmax = fmax(*gmax, nh_sim_get_stats(s)->max_constraint_residual);
  }
  nh_sim_destroy(s);
  nh_model_destroy(m);
  if (rc) return rc;
  double st = 0, sv = 0, stt = 0, stv = 0;
  for (int k = 0; k < nt; k++) {
    double t = (k + 1) * T / nt, mean = sum[k] / nic, var = (sum2[k] - nic * mean * mean) / (nic - 1);
    double y = var / (h * h * h * h);
    st += t, sv += y, stt += t * t, stv += t * y;
  }
  *slope = (nt * stv - st * sv) / (nt * stt - st * st), *icpt = (sv - *slope * st) / nt;
  return 0;
}

#endif
