/* bench_dop853.c - dop853 against dopri5 on the Chaplygin sleigh (built-in, hand-written C) to
 * T = 10, against its closed form: for rtol 1e-6 .. 1e-14 (atol = rtol / 100) the final error
 * of q and q', the right-hand-side evaluations and the CPU time, then for each method the
 * cheapest run reaching the target error 1e-10 and the ratio of the two.
 * Usage: bench_dop853 [repeats]  (runs per timing, best taken; default 20) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "nholo/nholo.h"

#define SLEIGH_T 10.0
#define TARGET_ERR 1e-10 /* the accuracy both methods must reach */
#define NTOL 17          /* rtol = 10^(-6 - k/2), k = 0 .. NTOL - 1 */

typedef struct {
  double rtol, err, cpu;
  long evals, steps;
} run_result;

/* one run at rtol (best CPU time of `repeats`) */
static int run(const nh_model *m, const nh_sleigh_params *p, const char *method, double rtol, int repeats,
               run_result *r) {
  r->rtol = rtol, r->cpu = INFINITY;
  for (int k = 0; k < repeats; k++) {
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(method);
    d.rtol = rtol, d.atol = rtol * 1e-2;
    nh_sim *s = nh_sim_create(m, &d, NULL, 0);
    if (!s) return -1;
    double t0 = bench_now();
    int rc = nh_sim_run(s, SLEIGH_T, 0, NULL, NULL);
    double dt = bench_now() - t0;
    if (rc != NH_OK) {
      fprintf(stderr, "bench: %s at rtol %g: %s\n", method, rtol, nh_status_name(rc));
      nh_sim_destroy(s);
      return -1;
    }
    double q[3], qd[3], e = 0.0;
    nh_sleigh_exact(p, SLEIGH_T, q, qd, NULL, NULL);
    for (int i = 0; i < 3; i++) e = fmax(e, fmax(fabs(nh_sim_q(s)[i] - q[i]), fabs(nh_sim_v(s)[i] - qd[i])));
    r->err = e, r->cpu = fmin(r->cpu, dt);
    r->evals = nh_sim_get_stats(s)->evals, r->steps = nh_sim_get_stats(s)->steps;
    nh_sim_destroy(s);
  }
  return 0;
}

int main(int argc, char **argv) {
  int repeats = argc > 1 ? atoi(argv[1]) : 20;
  if (repeats < 1) repeats = 1;
  nh_sleigh_params p = nh_sleigh_params_default();
  nh_model *m = nh_sleigh_create(&p, NULL, 0);
  if (!m) return 1;
  const char *methods[2] = {"dop853", "dopri5"};
  run_result best[2] = {{0}};
  printf("sleigh to T = %g against the closed form (atol = rtol/100), best CPU time of %d runs\n", SLEIGH_T, repeats);
  printf("%-7s %8s %10s %7s %7s %10s\n", "method", "rtol", "error", "steps", "evals", "cpu_us");
  for (int j = 0; j < 2; j++) {
    best[j].evals = -1;
    for (int k = 0; k < NTOL; k++) {
      run_result r;
      if (run(m, &p, methods[j], pow(10.0, -6.0 - 0.5 * k), repeats, &r)) continue;
      printf("%-7s %8.1e %10.3e %7ld %7ld %10.1f\n", methods[j], r.rtol, r.err, r.steps, r.evals, 1e6 * r.cpu);
      if (r.err <= TARGET_ERR && (best[j].evals < 0 || r.evals < best[j].evals)) best[j] = r;
    }
  }
  printf("cheapest run with error <= %.0e:\n", TARGET_ERR);
  for (int j = 0; j < 2; j++)
    printf("  %-7s rtol %.1e: error %.3e, %ld evaluations, %.1f us\n", methods[j], best[j].rtol, best[j].err,
           best[j].evals, 1e6 * best[j].cpu);
  if (best[0].evals > 0 && best[1].evals > 0)
    printf("  dopri5 / dop853: %.2fx the evaluations, %.2fx the CPU time\n", (double)best[1].evals / best[0].evals,
           best[1].cpu / best[0].cpu);
  nh_model_destroy(m);
  return 0;
}
