/* bench_ensemble.c - members per second of a penny ensemble (exact flow, 20 impacts each,
 * x and y drawn per member) through nh_ensemble_run with 1 and 2 threads, against the serial
 * loop (one simulation, nh_sim_set_state / nh_sim_run per member) in the same process.
 * Targets (issue 19): 1,000 members in <= 10 ms on one core; >= 1.8x on two threads.
 * Times are wall-clock (threads run at once), best of BENCH_REPS repetitions; on a machine
 * shared with other jobs the speed-up shows the cores that were free.
 * Usage: bench_ensemble [members]  (default 1000). MPI ranks: bench/bench_ensemble_mpi.sh. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "nholo/ensemble.h"
#include "nholo/nholo.h"

#define BENCH_REPS 7 /* repetitions per figure; the best (shortest time) is reported */

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

/* the serial loop: what the ensemble does for one member, on one simulation */
static double serial_loop(const nh_model *m, const nh_ensemble_def *d, long n) {
  nh_sim *s = nh_sim_create(m, &d->sim, NULL, 0);
  double x[8], t0 = wall();
  for (long k = 0; k < n; k++) {
    for (int i = 0; i < m->nx; i++) x[i] = m->x0[i];
    for (int j = 0; j < d->nvar; j++) x[d->vars[j].index] = nh_ensemble_value(d->vars, d->nvar, j, d->replicas, d->seed, k);
    if (nh_sim_set_state_x(s, 0.0, x) >= 0) nh_sim_run(s, d->t_end, d->max_impacts, NULL, NULL);
    sink += nh_sim_x(s)[0];
  }
  double dt = wall() - t0;
  nh_sim_destroy(s);
  return dt;
}

/* the control: the same arithmetic split over `threads` threads (what the machine's cores give
 * now, with whatever else runs on them) */
static double control_time(int threads) {
  const long n = 20000000;
  double t0 = wall(), total = 0.0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) reduction(+ : total) schedule(static)
#endif
  for (long i = 0; i < n; i++) total += sqrt((double)i);
  (void)threads;
  sink += total;
  return wall() - t0;
}

static double ensemble_time(nh_ensemble_def *d, int threads) {
  char msg[256];
  nh_ensemble_stats st;
  d->threads = threads;
  double t0 = wall();
  if (nh_ensemble_run(d, NULL, &st, msg, sizeof msg) != NH_OK) fprintf(stderr, "bench: %s\n", msg);
  double dt = wall() - t0;
  if (st.ok != d->replicas) fprintf(stderr, "bench: %ld of %ld members ended well\n", st.ok, d->replicas);
  sink += st.mean[0];
  nh_ensemble_stats_free(&st);
  return dt;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  if (n < 1) n = 1000;
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
  d.nvar = 2, d.vars = v, d.replicas = n, d.seed = 1;
  double best[3] = {1e300, 1e300, 1e300}, ctl[2] = {1e300, 1e300};
  for (int r = 0; r < BENCH_REPS; r++) {
    double t = serial_loop(m, &d, n);
    if (t < best[0]) best[0] = t;
    if ((t = ensemble_time(&d, 1)) < best[1]) best[1] = t;
    if ((t = ensemble_time(&d, 2)) < best[2]) best[2] = t;
    if ((t = control_time(1)) < ctl[0]) ctl[0] = t;
    if ((t = control_time(2)) < ctl[1]) ctl[1] = t;
  }
  printf("penny ensemble, exact, 20 impacts per member, %ld members (OpenMP %s)\n", n,
         nh_ensemble_parallel() ? "on" : "off: 2 threads run serially");
  printf("  serial loop          %8.3f ms  %10.0f members/s\n", 1e3 * best[0], (double)n / best[0]);
  printf("  ensemble, 1 thread   %8.3f ms  %10.0f members/s  (%.2fx the serial loop)\n", 1e3 * best[1],
         (double)n / best[1], best[0] / best[1]);
  printf("  ensemble, 2 threads  %8.3f ms  %10.0f members/s  (%.2fx one thread; target >= 1.8)\n", 1e3 * best[2],
         (double)n / best[2], best[1] / best[2]);
  printf("  control: a plain arithmetic loop on 2 threads runs %.2fx faster than on 1 (the cores free now)\n",
         ctl[0] / ctl[1]);
  printf("  1,000 members on one core: %.3f ms (target <= 10 ms)\n", 1e3 * best[1] * 1000.0 / (double)n);
  nh_model_destroy(m);
  return 0;
}
