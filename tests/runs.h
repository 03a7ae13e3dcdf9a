/* runs.h - one run of a model with a method at a fixed step (the integrator tests: test_dg,
 * test_spark, test_dstar), and the Euclidean distance of two states. Static definitions,
 * included by one test file each, after nholo.h. */
#ifndef NH_TEST_RUNS_H
#define NH_TEST_RUNS_H

#include <math.h>
#include <stdio.h>

#define RUN_MAX_NX 32

typedef struct run_out {
  double x[RUN_MAX_NX]; /* the final state */
  nh_sim_stats st;
  int status;
} run_out;

/* run m with method at step h (tolerances 1e-13 for adaptive ones) to t_end from x0 (NULL:
 * the model's initial state); the run's status, -1 when it could not start */
static inline int run_model(nh_model *m, const char *method, double h, double t_end, const double *x0, run_out *o) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  d.rtol = 1e-13, d.atol = 1e-13;
  char msg[512];
  nh_sim *s = m->nx <= RUN_MAX_NX ? nh_sim_create(m, &d, msg, sizeof msg) : NULL;
  if (!s) {
    printf("  %s: %s\n", method, m->nx <= RUN_MAX_NX ? msg : "too many states for run_out");
    return -1;
  }
  if (x0 && nh_sim_set_state_x(s, 0.0, x0) < 0) {
    nh_sim_destroy(s);
    return -1;
  }
  o->status = nh_sim_run(s, t_end, 0, NULL, NULL);
  for (int i = 0; i < m->nx; i++) o->x[i] = nh_sim_x(s)[i];
  o->st = *nh_sim_get_stats(s);
  nh_sim_destroy(s);
  return o->status;
}

static inline double dist(int n, const double *a, const double *b) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
  return sqrt(s);
}

#endif
