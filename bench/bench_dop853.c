/* bench_dop853.c - dop853 against dopri5 on the Chaplygin sleigh (built-in, hand-written C) to
 * T = 10, against its closed form: for rtol 1e-6 .. 1e-14 (atol = rtol / 100) the final error
 * of q and q', the right-hand-side evaluations and the CPU time of a solve (create, run,
 * destroy), then for each method the cheapest run reaching the target error 1e-10 (on that
 * grid, then at the loosest rtol that reaches it, found by bisection in log rtol between the
 * grid's cheapest passing point and the next, failing, one) and the ratio of the two.
 * Reading the CPU-time clock is a system call (about 0.4 us, and it leaves the caches colder), so
 * a timing is that of BATCH solves in a row, divided by BATCH.
 * Usage: bench_dop853 [repeats]  (timings per rtol, best taken; default 20) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "dop853_hand.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

#define SLEIGH_T 10.0
#define TARGET_ERR 1e-10 /* the accuracy both methods must reach */
#define NTOL 17          /* rtol = 10^(-6 - k/2), k = 0 .. NTOL - 1 */
#define BATCH 10         /* solves per timing */
#define NBISECT 10       /* halvings of the log-rtol interval (a factor 10^(1/2) to 10^(1/2048)) */

typedef struct {
  double rtol, err, cpu;
  long evals, steps;
} run_result;

/* the hand-written baseline (dop853_hand.h) from the sleigh's initial state */
static int solve_hand(const nh_model *m, double rtol, double x[6], nh_sim_stats *st) {
  const double *pv = m->param_values, *q0 = m->q0, *v0 = m->v0;
  const hand_sleigh hp = {pv[0], pv[1], pv[2]};
  for (int i = 0; i < 3; i++) x[i] = q0[i], x[3 + i] = v0[i];
  memset(st, 0, sizeof *st);
  return hand_dop853(&hp, SLEIGH_T, x, rtol, rtol * 1e-2, &st->evals, &st->steps) ? NH_ERR_MAX_STEPS : NH_OK;
}

/* one solve at rtol (create, run, destroy): the final state and statistics */
static int solve(const nh_model *m, const char *method, double rtol, double x[6], nh_sim_stats *st) {
  if (strcmp(method, "hand") == 0) return solve_hand(m, rtol, x, st);
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.rtol = rtol, d.atol = rtol * 1e-2;
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  if (!s) return NH_ERR_ARG;
  int rc = nh_sim_run(s, SLEIGH_T, 0, NULL, NULL);
  for (int i = 0; i < 3; i++) x[i] = nh_sim_q(s)[i], x[3 + i] = nh_sim_v(s)[i];
  *st = *nh_sim_get_stats(s);
  nh_sim_destroy(s);
  return rc;
}

/* solves at rtol: the best CPU time per solve of `repeats` timings of BATCH solves */
static int run(const nh_model *m, const nh_sleigh_params *p, const char *method, double rtol, int repeats,
               run_result *r) {
  r->rtol = rtol, r->cpu = INFINITY;
  for (int k = 0; k < repeats; k++) {
    double x[6];
    nh_sim_stats st;
    int rc = NH_OK;
    double t0 = bench_now();
    for (int b = 0; b < BATCH && rc == NH_OK; b++) rc = solve(m, method, rtol, x, &st);
    double dt = (bench_now() - t0) / BATCH;
    if (rc != NH_OK) {
      fprintf(stderr, "bench: %s at rtol %g: %s\n", method, rtol, nh_status_name(rc));
      return -1;
    }
    double q[3], qd[3], e = 0.0;
    nh_sleigh_exact(p, SLEIGH_T, q, qd, NULL, NULL);
    for (int i = 0; i < 3; i++) e = fmax(e, fmax(fabs(x[i] - q[i]), fabs(x[3 + i] - qd[i])));
    r->err = e, r->cpu = fmin(r->cpu, dt);
    r->evals = st.evals, r->steps = st.steps;
  }
  return 0;
}

/* the loosest rtol in (lo, hi) reaching the target, lo reaching it and hi not (bisection in
 * log rtol, one run per trial), timed; into *best when it costs fewer evaluations */
static void refine(const nh_model *m, const nh_sleigh_params *p, const char *method, double lo, double hi,
                   int repeats, run_result *best) {
  for (int k = 0; k < NBISECT; k++) {
    double mid = sqrt(lo * hi);
    run_result r;
    if (run(m, p, method, mid, 1, &r)) return; /* one timing: the error is the same in every solve */
    if (r.err <= TARGET_ERR) lo = mid;
    else hi = mid;
  }
  run_result r;
  if (run(m, p, method, lo, repeats, &r) == 0 && r.err <= TARGET_ERR && r.evals < best->evals) *best = r;
}

int main(int argc, char **argv) {
  int repeats = argc > 1 ? atoi(argv[1]) : 20;
  if (repeats < 1) repeats = 1;
  nh_sleigh_params p = nh_sleigh_params_default();
  nh_model *m = nh_sleigh_create(&p, NULL, 0);
  if (!m) return 1;
  const char *methods[3] = {"dop853", "dopri5", "hand"}; /* hand: DOP853 written by hand (dop853_hand.h) */
  run_result best[3] = {{0}}, grid[3] = {{0}};
  printf("sleigh to T = %g against the closed form (atol = rtol/100), best CPU time of %d runs\n", SLEIGH_T, repeats);
  printf("%-7s %8s %10s %7s %7s %10s\n", "method", "rtol", "error", "steps", "evals", "cpu_us");
  for (int j = 0; j < 3; j++) {
    best[j].evals = -1;
    for (int k = 0; k < NTOL; k++) {
      run_result r;
      if (run(m, &p, methods[j], pow(10.0, -6.0 - 0.5 * k), repeats, &r)) continue;
      printf("%-7s %8.1e %10.3e %7ld %7ld %10.1f\n", methods[j], r.rtol, r.err, r.steps, r.evals, 1e6 * r.cpu);
      if (r.err <= TARGET_ERR && (best[j].evals < 0 || r.evals < best[j].evals)) best[j] = r;
    }
    grid[j] = best[j];
    if (best[j].evals > 0) refine(m, &p, methods[j], best[j].rtol, best[j].rtol * sqrt(10.0), repeats, &best[j]);
  }
  printf("cheapest run with error <= %.0e on the grid, then at the loosest rtol reaching it:\n", TARGET_ERR);
  for (int j = 0; j < 3; j++) {
    printf("  %-7s rtol %.1e: error %.3e, %ld evaluations, %.1f us\n", methods[j], grid[j].rtol, grid[j].err,
           grid[j].evals, 1e6 * grid[j].cpu);
    if (best[j].rtol != grid[j].rtol)
      printf("  %-7s rtol %.2e: error %.3e, %ld evaluations, %.1f us\n", methods[j], best[j].rtol, best[j].err,
             best[j].evals, 1e6 * best[j].cpu);
  }
  if (best[0].evals > 0 && best[1].evals > 0)
    printf("  dopri5 / dop853: %.2fx the evaluations, %.2fx the CPU time\n", (double)best[1].evals / best[0].evals,
           best[1].cpu / best[0].cpu);
  if (best[0].evals > 0 && best[2].evals > 0)
    printf("  dop853 / DOP853 by hand: %.2fx the evaluations, %.2fx the CPU time (target <= 0.8x, issue 30)\n",
           (double)best[0].evals / best[2].evals, best[0].cpu / best[2].cpu);
  // the same solves on the model file (generated C), the measure, against the built-in
  char msg[1024];
  nh_model *f = nh_model_load(NHOLO_SOURCE_DIR "/examples/chaplygin_sleigh.nh", NULL, msg, sizeof msg);
  run_result rf;
  if (!f)
    printf("  examples/chaplygin_sleigh.nh: not loaded (%s)\n", msg);
  else if (best[0].evals > 0 && run(f, &p, "dop853", best[0].rtol, repeats, &rf) == 0)
    printf("  dop853 on examples/chaplygin_sleigh.nh, rtol %.2e: error %.3e, %ld evaluations, %.1f us (%.2fx the built-in)\n",
           rf.rtol, rf.err, rf.evals, 1e6 * rf.cpu, rf.cpu / best[0].cpu);
  nh_model_destroy(f);
  nh_model_destroy(m);
  return 0;
}
