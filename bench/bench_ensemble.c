/* bench_ensemble.c - members per second of ensembles through nh_ensemble_run with 1 and 2
 * threads, against the serial loop (one simulation, nh_sim_set_state_x / nh_sim_run per member)
 * in the same process:
 *   the penny, exact flow, 20 impacts each, x and y drawn per member;
 *   the Chaplygin sleigh from examples/chaplygin_sleigh.nh (the model file, its default back
 *   end), to t = 10 with dopri5 (rtol 1e-10, atol 1e-12) and with gni (h = 1e-3), x and y drawn
 *   per member (the constraint does not involve them, so every member's initial velocity
 *   satisfies it).
 * Figures per core: members/s (and impacts/s for the penny, steps/s for the sleigh, which has
 * no impacts) divided by the threads. Targets (issue 19): 1,000 penny members in <= 10 ms on
 * one core; >= 1.8x on two threads, with the default chunking (issue 30). Times are wall-clock (threads run at once), best of
 * BENCH_REPS repetitions; on a machine shared with other jobs the speed-up shows the cores that
 * were free, which the control (a plain arithmetic loop on 1 and 2 threads) tells.
 * Usage: bench_ensemble [penny members [sleigh members]]  (defaults 1000, 200).
 * MPI ranks: bench/bench_ensemble_mpi.sh. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/parfor.h"
#include "nholo/ensemble.h"
#include "nholo/modelfile.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

#define BENCH_REPS 7        /* repetitions per figure; the best (shortest time) is reported */
#define SLEIGH_REPS 3       /* the sleigh's runs are longer: fewer repetitions */
#define SLEIGH_T_END 10.0   /* the sleigh's final time (s) */
#define SLEIGH_GNI_H 1e-3   /* gni's step (the command line's default) */
#define SLEIGH_RTOL 1e-10   /* dopri5's tolerances (the command line's defaults) */
#define SLEIGH_ATOL 1e-12
#define CONTROL_N 20000000L /* the control's square roots */
#define CONTROL_BLOCKS 64   /* taken by the threads one at a time */

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

/* the serial loop: what the ensemble does for one member, on one simulation; the steps and
 * impacts of all members into *steps, *impacts */
static double serial_loop(const nh_ensemble_def *d, long n, long *steps, long *impacts) {
  const nh_model *m = d->model;
  nh_sim *s = nh_sim_create(m, &d->sim, NULL, 0);
  double x[64], t0 = wall();
  *steps = *impacts = 0;
  for (long k = 0; k < n; k++) {
    for (int i = 0; i < m->nx; i++) x[i] = m->x0[i];
    for (int j = 0; j < d->nvar; j++) x[d->vars[j].index] = nh_ensemble_value(d->vars, d->nvar, j, d->replicas, d->seed, k);
    if (nh_sim_set_state_x(s, 0.0, x) >= 0) nh_sim_run(s, d->t_end, d->max_impacts, NULL, NULL);
    *steps += nh_sim_get_stats(s)->steps, *impacts += nh_sim_get_stats(s)->impacts;
    sink += nh_sim_x(s)[0];
  }
  double dt = wall() - t0;
  nh_sim_destroy(s);
  return dt;
}

/* a block of the control's sum */
static int control_block(long b, int thread, void *user) {
  double *part = user, s = 0.0;
  (void)thread;
  for (long i = b * (CONTROL_N / CONTROL_BLOCKS); i < (b + 1) * (CONTROL_N / CONTROL_BLOCKS); i++) s += sqrt((double)i);
  part[b] = s;
  return 0;
}

/* the control: the same arithmetic split over `threads` threads by the ensembles' parallel for
 * (what the machine's cores give now, with whatever else runs on them) */
static double control_time(int threads) {
  double part[CONTROL_BLOCKS], t0 = wall();
  nh_par_for(CONTROL_BLOCKS, threads, 1, control_block, part);
  for (int b = 0; b < CONTROL_BLOCKS; b++) sink += part[b];
  return wall() - t0;
}

static double ensemble_time(nh_ensemble_def *d, int threads) {
  char msg[256];
  nh_ensemble_stats st;
  d->threads = threads;
  double t0 = wall();
  if (nh_ensemble_run(d, NULL, &st, msg, sizeof msg) != NH_OK) {
    fprintf(stderr, "bench: %s\n", msg);
    return NAN;
  }
  double dt = wall() - t0;
  if (st.ok != d->replicas) fprintf(stderr, "bench: %ld of %ld members ended well\n", st.ok, d->replicas);
  sink += st.mean[0];
  nh_ensemble_stats_free(&st);
  return dt;
}

/* one case: the serial loop, 1 and 2 threads, best of reps each, and the control; returns
 * the best time on one thread */
static double run_case(const char *title, nh_ensemble_def *d, long n, int reps) {
  double best[3] = {1e300, 1e300, 1e300}, ctl[2] = {1e300, 1e300};
  long steps = 0, impacts = 0;
  d->replicas = n;
  // the one-thread figures after a one-thread control (the threads of a loop end with it)
  for (int r = 0; r < reps; r++) {
    double t = control_time(2);
    if (t < ctl[1]) ctl[1] = t;
    if ((t = ensemble_time(d, 2)) < best[2]) best[2] = t;
    if ((t = control_time(1)) < ctl[0]) ctl[0] = t;
    if ((t = serial_loop(d, n, &steps, &impacts)) < best[0]) best[0] = t;
    if ((t = ensemble_time(d, 1)) < best[1]) best[1] = t;
  }
  const int per_impact = impacts > 0;
  const double work = (double)(per_impact ? impacts : steps);
  const char *unit = per_impact ? "impacts/s" : "steps/s";
  printf("%s: %ld members, %.0f %s per member\n", title, n, work / (double)n, per_impact ? "impacts" : "steps");
  static const char *const rows[3] = {"serial loop", "ensemble, 1 thread", "ensemble, 2 threads"};
  static const int threads[3] = {1, 1, 2};
  for (int i = 0; i < 3; i++) {
    printf("  %-20s %9.3f ms  %9.0f members/s per core  %11.0f %s per core", rows[i], 1e3 * best[i],
           (double)n / best[i] / threads[i], work / best[i] / threads[i], unit);
    if (i == 1) printf("  (%.2fx the serial loop)", best[0] / best[1]);
    if (i == 2) printf("  (%.2fx one thread; target >= 1.8)", best[1] / best[2]);
    putchar('\n');
  }
  printf("  control: a plain arithmetic loop on 2 threads runs %.2fx faster than on 1 (the cores free now)\n",
         ctl[0] / ctl[1]);
  return best[1];
}

/* the penny: exact flow, 20 impacts per member, x and y drawn */
static void bench_penny(long n) {
  nh_penny_params p = nh_penny_params_default();
  nh_model *m = nh_penny_create(&p, NULL, 0);
  nh_ensemble_var v[2];
  char msg[256];
  nh_ensemble_parse_var("x=uniform:-0.05:0.05", &v[0], msg, sizeof msg);
  nh_ensemble_parse_var("y=uniform:-0.05:0.05", &v[1], msg, sizeof msg);
  v[0].index = nh_model_coord_index(m, "x"), v[1].index = nh_model_coord_index(m, "y");
  nh_ensemble_def d = {0};
  d.model = m;
  d.sim = nh_sim_def_default();
  d.sim.method = nh_method_find("exact");
  d.t_end = 1e6, d.max_impacts = 20;
  d.nvar = 2, d.vars = v, d.seed = 1;
  d.chunk = 0; /* the default chunking: the speed-up's target is the default's */
  const double t1 = run_case("penny ensemble, exact, 20 impacts per member", &d, n, BENCH_REPS);
  printf("  1,000 members on one core: %.3f ms (target <= 10 ms)\n", 1e3 * t1 * 1000.0 / (double)n);
  nh_model_destroy(m);
}

/* the sleigh from its model file with dopri5 and gni */
static int bench_sleigh(long n) {
  char msg[2048];
  nh_model *m = nh_model_load(NHOLO_SOURCE_DIR "/examples/chaplygin_sleigh.nh", NULL, msg, sizeof msg);
  if (!m) {
    fprintf(stderr, "bench: %s\n", msg);
    return 1;
  }
  nh_ensemble_var v[2];
  nh_ensemble_parse_var("x=uniform:-1:1", &v[0], msg, sizeof msg);
  nh_ensemble_parse_var("y=uniform:-1:1", &v[1], msg, sizeof msg);
  v[0].index = nh_model_coord_index(m, "x"), v[1].index = nh_model_coord_index(m, "y");
  static const char *const methods[2] = {"dopri5", "gni"};
  for (int k = 0; k < 2; k++) {
    nh_ensemble_def d = {0};
    d.model = m;
    d.sim = nh_sim_def_default();
    d.sim.method = nh_method_find(methods[k]);
    d.sim.h = SLEIGH_GNI_H, d.sim.rtol = SLEIGH_RTOL, d.sim.atol = SLEIGH_ATOL;
    d.t_end = SLEIGH_T_END;
    d.nvar = 2, d.vars = v, d.seed = 1;
    char title[160];
    snprintf(title, sizeof title, "sleigh ensemble (examples/chaplygin_sleigh.nh, %s back end), %s%s, t = 0..%g",
             nh_model_backend(m), methods[k], k ? " h = 1e-3" : " rtol 1e-10", SLEIGH_T_END);
    run_case(title, &d, n, SLEIGH_REPS);
  }
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000, ns = argc > 2 ? atol(argv[2]) : 200;
  if (n < 1) n = 1000;
  if (ns < 1) ns = 200;
  bench_penny(n);
  return bench_sleigh(ns);
}
