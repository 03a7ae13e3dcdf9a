/* bench_ball.c - the rolling ball with 3 internal masses (Putkaradze & Rogers sec. 6): ns per
 * right-hand-side evaluation and per driver step (DOPRI5 at rtol 1e-12 with N/slip monitors
 * and the quaternion projection; RK4 at h = 1e-2 with the projection and the Lie-group RKMK4 at
 * h = 1e-2 without it), each against baselines in the same process:
 *   the disk's rhs (4 masses, planar equations) and a driver step of an ODE-form harmonic
 *   oscillator (the driver's own overhead per step).
 * Usage: bench_ball [evaluations]  (default 2000000) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"


static volatile double sink;

/* ns per rhs evaluation of the model at slightly varied states */
static double ns_per_rhs(const nh_model *m, long n) {
  double x[64], xd[64], acc = 0.0;
  for (int i = 0; i < m->nx; i++) x[i] = m->x0[i];
  double t0 = bench_now();
  for (long k = 0; k < n; k++) {
    x[0] = m->x0[0] + 1e-6 * (double)(k & 1023);
    m->rhs(1e-3 * (double)(k & 255), x, xd, m->user);
    acc += xd[m->nx - 1];
  }
  double dt = bench_now() - t0;
  sink = acc;
  return 1e9 * dt / (double)n;
}

/* ns per accepted driver step over [0, T], and the steps and evaluations taken */
static double ns_per_step(const nh_model *m, const char *method, double h, double tol, double T, long *steps,
                          long *evals) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  d.rtol = tol, d.atol = tol;
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  double t0 = bench_now();
  int rc = nh_sim_run(s, T, 0, NULL, NULL);
  double dt = bench_now() - t0;
  if (rc != NH_OK) fprintf(stderr, "bench: run ended with %s\n", nh_status_name(rc));
  *steps = nh_sim_get_stats(s)->steps;
  *evals = nh_sim_get_stats(s)->evals;
  nh_sim_destroy(s);
  return 1e9 * dt / (double)*steps;
}

static int osc_rhs(double t, const double *x, double *xd, void *user) {
  (void)t, (void)user;
  xd[0] = x[1], xd[1] = -x[0];
  return 0;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 2000000;
  if (n < 1000) n = 1000;
  nh_ball_params pb = nh_ball_params_ball_example(), pd = nh_ball_params_disk_example();
  pb.mu = 0.5; /* both monitors (N and slip) active, as in a monitored run */
  nh_model *ball = nh_ball_create(&pb, NULL, 0), *disk = nh_disk_create(&pd, NULL, 0);
  const double x0[2] = {1.0, 0.0};
  nh_model_def od = nh_model_def_default();
  od.form = NH_FORM_ODE, od.nx = 2, od.x0 = x0, od.rhs = osc_rhs;
  nh_model *osc = nh_model_create(&od, NULL, 0);
  if (!ball || !disk || !osc) return 1;

  double rb = ns_per_rhs(ball, n), rd = ns_per_rhs(disk, n), ro = ns_per_rhs(osc, n);
  printf("rhs evaluation: ball (3 masses, 15 states) %.1f ns; disk (4 masses) %.1f ns; oscillator %.1f ns\n", rb, rd, ro);
  printf("  ratio ball / disk rhs: %.2f\n", rb / rd);

  long sb, eb, sk, ek, so, eo;
  double db = ns_per_step(ball, "dopri5", 1e-3, 1e-12, 20.0, &sb, &eb);
  double dk = ns_per_step(ball, "rk4", 1e-2, 1e-12, 20.0, &sk, &ek);
  long sl, el;
  double dl = ns_per_step(ball, "rkmk4", 1e-2, 1e-12, 20.0, &sl, &el);
  double dosc = ns_per_step(osc, "dopri5", 1e-3, 1e-12, 200.0, &so, &eo);
  printf("dopri5 step, ball, rtol 1e-12: %.0f ns (%ld steps, %.2f rhs/step; %.1f rhs-equivalents per step)\n", db, sb,
         (double)eb / sb, db / rb);
  printf("rk4 step, ball, h = 1e-2: %.0f ns (%ld steps, %.2f rhs/step; %.1f rhs-equivalents per step)\n", dk, sk,
         (double)ek / sk, dk / rb);
  printf("rkmk4 step, ball, h = 1e-2: %.0f ns (%ld steps, %.2f rhs/step); ratio rkmk4 / rk4 step: %.2f\n", dl, sl,
         (double)el / sl, dl / dk);
  printf("dopri5 step, oscillator (driver overhead baseline): %.0f ns (%ld steps)\n", dosc, so);
  printf("  one ball step costs %.1f oscillator steps; monitors, energy and projection add %.1f rhs-equivalents\n",
         db / dosc, db / rb - (double)eb / sb);
  nh_model_destroy(ball);
  nh_model_destroy(disk);
  nh_model_destroy(osc);
  return 0;
}
