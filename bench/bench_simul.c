/* bench_simul.c - the cost of simultaneous impacts (issue 16 point 9), against baselines in
 * the same process:
 *   1. resolutions per second of nh_simul_resolve on Newton's-cradle chains of n touching
 *      balls (n = 3, 10, 100; equal masses, and masses alternating 1, 2: an indeterminate
 *      case), v- = (1, 0, ..., 0), elastic, with the default propagative policy
 *      (most-infeasible) and with enumerate as far as it is affordable; the reflections per
 *      resolution (enumerate: distinct outcomes and complete sequences visited), and the
 *      time of a resolution in units of one single-contact nh_impact_map (two equal balls);
 *      then the growth: ns per reflection (elastic) and per solve of the active set (plastic)
 *      on equal-mass chains of n = 10, 30, 100, 300 balls with the default (structured) solve
 *      against dense_reference (the dense products of before, the same results bit for bit:
 *      checked here), and the exponent p of a least-squares fit ns/step ~ n^p for each;
 *   2. ns per step of the driver (nh_sim_run) with dopri5, gni and del (its impacts inside the
 *      variational step, del/vi, the default; and restarting at them, del/rst) on a spring cradle (three
 *      equal balls on springs about touching rest positions, the outer ones moving in with
 *      speeds 1 and -1: both gaps close together every half period, a simultaneous impact)
 *      against the same model with its gaps moved out of reach (parameter off); the same for a
 *      particle between two elastic walls (an impact about every 10 steps).
 * Times are the process's CPU time; every figure is the best of BENCH_REPS repetitions.
 * Usage: bench_simul */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "nholo/nholo.h"

#define BENCH_REPS 5        /* repetitions per figure; the best (shortest time) is reported */
#define BENCH_REP_CPU 0.02  /* CPU seconds of one repetition of a micro-benchmark */
#define ENUM_MAX_BALLS 8    /* enumerate, alternating masses: the longest chain measured in full */
#define SIM_T_END 2000.0    /* simulated time of a driver run (about 640 simultaneous impacts) */

static volatile double sink;

/* a timed operation: returns 0 on success */
typedef int (*bench_op)(void *ctx);

/* ns per call of op: calls are counted over BENCH_REP_CPU seconds, best of BENCH_REPS */
static double ns_per_call(bench_op op, void *ctx) {
  double best = HUGE_VAL, t1 = bench_now();
  if (op(ctx)) return NAN;
  int batch = bench_now() - t1 > 1e-4 ? 1 : 16; /* slow operations: one at a time */
  for (int r = 0; r < BENCH_REPS; r++) {
    long n = 0;
    double t0 = bench_now(), dt;
    do {
      for (int i = 0; i < batch; i++, n++)
        if (op(ctx)) return NAN;
    } while ((dt = bench_now() - t0) < BENCH_REP_CPU);
    if (1e9 * dt / (double)n < best) best = 1e9 * dt / (double)n;
  }
  return best;
}

/* ---- baseline: one single-contact impact map -------------------------------------------- */

typedef struct single_ctx {
  double M[4], dg[2], v[2], vout[2], work[64];
} single_ctx;

static int op_single(void *p) {
  single_ctx *c = p;
  c->v[0] += 1e-12; /* not loop-invariant */
  const nh_impact_law law = {NH_IMPACT_ELASTIC, 1.0};
  int rc = nh_impact_map(2, 0, c->M, NULL, c->dg, c->v, law, NULL, c->vout, NULL, NULL, c->work);
  sink = c->vout[1];
  return rc != NH_OK;
}

/* ---- the chains --------------------------------------------------------------------------- */

typedef struct chain_ctx {
  nh_simul_problem pb;
  nh_simul_opts o;
  double *M, *dg, *v, *vout;
  void *work;
  nh_simul_result res;
  char msg[256];
} chain_ctx;

/* n touching balls, masses 1 (alt = 0) or alternating 1, 2 (alt = 1); gaps x_i+1 - x_i - d */
static int chain_init(chain_ctx *c, int n, int alt, nh_simul_policy policy) {
  memset(c, 0, sizeof *c);
  c->M = calloc((size_t)n * (size_t)n, sizeof(double));
  c->dg = calloc((size_t)(n - 1) * (size_t)n, sizeof(double));
  c->v = calloc((size_t)n, sizeof(double));
  c->vout = calloc((size_t)n, sizeof(double));
  for (int i = 0; i < n; i++) c->M[i * n + i] = alt && (i & 1) ? 2.0 : 1.0;
  for (int i = 0; i < n - 1; i++) c->dg[i * n + i] = -1.0, c->dg[i * n + i + 1] = 1.0;
  c->v[0] = 1.0;
  c->pb = (nh_simul_problem){.nq = n, .nc = 0, .k = n - 1, .M = c->M, .A = NULL, .dg = c->dg};
  c->o = nh_simul_opts_default();
  c->o.policy = policy;
  if (policy == NH_SIMUL_ENUMERATE) c->o.max_branches = 1L << 40, c->o.max_outcomes = 1 << 16;
  c->work = malloc(nh_simul_work_size(n, 0, n - 1, &c->o));
  return c->work ? 0 : -1;
}

static void chain_free(chain_ctx *c) {
  free(c->M), free(c->dg), free(c->v), free(c->vout), free(c->work);
}

static int op_chain(void *p) {
  chain_ctx *c = p;
  int rc = nh_simul_resolve(&c->pb, c->v, &c->o, c->vout, &c->res, c->work, c->msg, sizeof c->msg);
  sink = c->vout[c->pb.nq - 1];
  if (rc != NH_OK) fprintf(stderr, "bench: n = %d: %s\n", c->pb.nq, c->msg);
  return rc != NH_OK;
}

/* one row of the resolution table; returns the ns per resolution (NAN on failure) */
static double chain_row(int n, int alt, nh_simul_policy policy, double base_ns) {
  chain_ctx c;
  if (chain_init(&c, n, alt, policy)) return NAN;
  double ns = ns_per_call(op_chain, &c);
  const char *mass = alt ? "1,2,1,.." : "equal";
  if (policy == NH_SIMUL_ENUMERATE)
    printf("  %5d %-9s %-10s %12.4g %9d %9d %10ld %12.1f\n", n, mass, "enumerate", 1e9 / ns,
           c.res.reflections, c.res.outcomes, c.res.branches, ns / base_ns);
  else
    printf("  %5d %-9s %-10s %12.4g %9d %9s %10s %12.1f\n", n, mass, "propagate", 1e9 / ns,
           c.res.reflections, "-", "-", ns / base_ns);
  chain_free(&c);
  return ns;
}

/* ---- the growth of the cost per reflection ------------------------------------------------ */

#define GROWTH_SIZES 4

/* ns per step (elastic: a reflection; plastic: a solve of the active set, its pivots + 1) of
 * the dense reference and of the structured solve on equal-mass chains, and the fitted
 * exponents; 1 when the two disagree or fail */
static int growth_table(double base_ns, nh_simul_law law) {
  const int ns[GROWTH_SIZES] = {10, 30, 100, 300};
  const int elastic = law == NH_SIMUL_ELASTIC;
  const char *step = elastic ? "reflection" : "active-set solve";
  double lx[GROWTH_SIZES], ly[2][GROWTH_SIZES];
  int bad = 0;
  printf("\ncost per %s (%s law, equal masses%s): dense_reference, the dense\n"
         "products of before, against the default structured solve; the same results bit for bit\n",
         step, elastic ? "elastic" : "plastic", elastic ? ", most-infeasible" : "");
  printf("  %5s %9s %12s %10s %10s %12s %10s %10s %8s\n", "balls", elastic ? "reflect." : "solves",
         "dense res/s", "ns/step", "maps/step", "struct res/s", "ns/step", "maps/step", "speed-up");
  for (int r = 0; r < GROWTH_SIZES; r++) {
    const int n = ns[r];
    chain_ctx c[2];
    double t[2];
    for (int d = 0; d < 2; d++) {
      if (chain_init(&c[d], n, 0, NH_SIMUL_MOST_INFEASIBLE)) return 1;
      c[d].o.law = law;
      c[d].o.dense_reference = d == 0;
      t[d] = ns_per_call(op_chain, &c[d]);
    }
    const int m = elastic ? c[1].res.reflections : c[1].res.plastic_pivots + 1;
    const int same = c[0].res.reflections == c[1].res.reflections &&
                     c[0].res.plastic_pivots == c[1].res.plastic_pivots &&
                     memcmp(c[0].vout, c[1].vout, sizeof(double) * (size_t)n) == 0 &&
                     memcmp(c[0].res.impulse, c[1].res.impulse, sizeof(double) * (size_t)(n - 1)) == 0 &&
                     memcmp(c[0].res.seq, c[1].res.seq, sizeof(int) * (size_t)c[1].res.reflections) == 0;
    if (!same || !(t[0] > 0.0) || !(t[1] > 0.0) || m < 1) bad = 1;
    printf("  %5d %9d %12.4g %10.1f %10.1f %12.4g %10.1f %10.1f %8.1f%s\n", n, m, 1e9 / t[0], t[0] / m,
           t[0] / m / base_ns, 1e9 / t[1], t[1] / m, t[1] / m / base_ns, t[0] / t[1],
           same ? "" : "  DIFFERENT RESULTS");
    lx[r] = log((double)n), ly[0][r] = log(t[0] / m), ly[1][r] = log(t[1] / m);
    chain_free(&c[0]), chain_free(&c[1]);
  }
  // the least-squares slope of log(ns / step) on log(n), and the slope of the last interval
  double p[2], q[2];
  for (int d = 0; d < 2; d++) {
    double mx = 0.0, my = 0.0, sxy = 0.0, sxx = 0.0;
    for (int r = 0; r < GROWTH_SIZES; r++) mx += lx[r] / GROWTH_SIZES, my += ly[d][r] / GROWTH_SIZES;
    for (int r = 0; r < GROWTH_SIZES; r++) sxy += (lx[r] - mx) * (ly[d][r] - my), sxx += (lx[r] - mx) * (lx[r] - mx);
    p[d] = sxy / sxx;
    q[d] = (ly[d][GROWTH_SIZES - 1] - ly[d][GROWTH_SIZES - 2]) / (lx[GROWTH_SIZES - 1] - lx[GROWTH_SIZES - 2]);
  }
  printf("  ns per %s ~ n^p, least squares over n = %d..%d: dense p = %.2f, structured p = %.2f\n"
         "  (from n = %d to %d alone: dense %.2f, structured %.2f)\n", step, ns[0],
         ns[GROWTH_SIZES - 1], p[0], p[1], ns[GROWTH_SIZES - 2], ns[GROWTH_SIZES - 1], q[0], q[1]);
  return bad;
}

/* ---- the driver: a spring cradle with and without impacts --------------------------------- */

static const char spring_cradle[] =
    "model spring_cradle\n"
    "coordinates x1 x2 x3\n"
    "parameter m = 1\n"
    "parameter k = 1\n"
    "parameter d = 1\n"
    "parameter off = 0   # > 0 moves the gaps out of reach\n"
    "kinetic 1/2*m*(x1'^2 + x2'^2 + x3'^2)\n"
    "potential 1/2*k*(x1^2 + (x2 - d)^2 + (x3 - 2*d)^2)\n"
    "gap left: x2 - x1 - d + off   impact elastic\n"
    "gap right: x3 - x2 - d + off  impact elastic\n"
    "initial x1 = 0, x2 = d, x3 = 2*d, x1' = 1, x3' = -1\n";

/* a particle between two elastic walls 0.1 apart, on a weak spring (amplitude 1 without the
 * walls): an impact about every 10 steps of h = 0.01, single ones */
static const char walls[] =
    "model walls\n"
    "coordinates x\n"
    "parameter w = 0.05\n"
    "parameter off = 0   # > 0 moves the walls out of reach\n"
    "kinetic 1/2*x'^2\n"
    "potential 1/2*x^2\n"
    "gap right: w - x + off  impact elastic\n"
    "gap left: x + w + off   impact elastic\n"
    "initial x' = 1\n";

/* ns per step of one run (best of BENCH_REPS), its steps and impacts (every record, or with
 * simul only the simultaneous ones: records resolving two or more contacts) */
static double sim_ns_per_step(const nh_model *m, const char *method, int mode, int simul, long *steps, long *impacts) {
  double best = HUGE_VAL;
  for (int r = 0; r < BENCH_REPS; r++) {
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(method);
    d.impact_step = mode;
    if (strcmp(method, "dopri5") == 0) d.rtol = 1e-9, d.atol = 1e-12;
    else d.h = 1e-2;
    char msg[256];
    nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
    if (!s) {
      fprintf(stderr, "bench: %s\n", msg);
      return NAN;
    }
    double t0 = bench_now();
    int rc = nh_sim_run(s, SIM_T_END, 0, NULL, NULL);
    double dt = bench_now() - t0;
    if (rc != NH_OK) fprintf(stderr, "bench: %s: %s\n", method, nh_status_name(rc));
    *steps = nh_sim_get_stats(s)->steps;
    *impacts = 0;
    for (long k = 0; k < nh_sim_impact_count(s); k++) {
      nh_impact_record rec;
      if (nh_sim_impact_get(s, k, &rec) == NH_OK && (!simul || rec.contacts >= 2)) ++*impacts;
    }
    if (1e9 * dt / (double)*steps < best) best = 1e9 * dt / (double)*steps;
    nh_sim_destroy(s);
  }
  return best;
}

/* ns per step of a model with its gaps and with them out of reach (off = 1e6), for each method */
static int driver_table(const char *text, const char *title, int simul) {
  printf("\nns per driver step (nh_sim_run), %s to t = %g, best of %d\n", title, SIM_T_END, BENCH_REPS);
  printf("  %-8s %-10s %9s %8s %10s %9s %10s %8s %10s\n", "method", "back end", "steps", "impacts",
         "ns/step", "no-gap", "ns/step", "ratio", "us/impact");
  printf("  (impacts: %s; us/impact: extra CPU time per impact)\n",
         simul ? "simultaneous ones, two contacts each" : "single ones");
  nh_backend backs[2] = {NH_BACKEND_CODEGEN, NH_BACKEND_TAPE};
  // del twice: impacts inside its variational step (the default) and restarting at them
  const char *methods[4] = {"dopri5", "gni", "del", "del"}, *labels[4] = {"dopri5", "gni", "del/vi", "del/rst"};
  const int modes[4] = {NH_IMPACT_STEP_AUTO, NH_IMPACT_STEP_AUTO, NH_IMPACT_STEP_VARIATIONAL, NH_IMPACT_STEP_RESTART};
  for (int b = 0; b < 2; b++) {
    nh_load_opts o = nh_load_opts_default();
    o.backend = backs[b];
    const char *names[1] = {"off"};
    const double far[1] = {1e6};
    char msg[2048];
    nh_model *with = nh_model_parse(text, "bench", &o, msg, sizeof msg);
    o.nset = 1, o.set_names = names, o.set_values = far;
    nh_model *without = with ? nh_model_parse(text, "bench", &o, msg, sizeof msg) : NULL;
    if (!with || !without) {
      fprintf(stderr, "bench: %s\n", msg);
      return 1;
    }
    for (int i = 0; i < 4; i++) {
      long s1, i1, s0, i0;
      double a = sim_ns_per_step(with, methods[i], modes[i], simul, &s1, &i1);
      double z = sim_ns_per_step(without, methods[i], modes[i], simul, &s0, &i0);
      // us/impact: the run's extra CPU time over the gap-free run, per impact
      double extra = 1e-3 * (a * (double)s1 - z * (double)s0) / (double)i1;
      printf("  %-8s %-10s %9ld %8ld %10.1f %9ld %10.1f %8.2f %10.2f\n", labels[i],
             nh_model_backend(with), s1, i1, a, s0, z, a / z, extra);
    }
    nh_model_destroy(with);
    nh_model_destroy(without);
  }
  return 0;
}

int main(void) {
  single_ctx sc = {.M = {1, 0, 0, 1}, .dg = {-1, 1}, .v = {1, 0}};
  double base = ns_per_call(op_single, &sc);
  printf("simultaneous impacts: nh_simul_resolve on a chain of n touching balls, v- = (1, 0, ..., 0),\n"
         "elastic; baseline one single-contact nh_impact_map %.1f ns (%.3g per s), best of %d\n",
         base, 1e9 / base, BENCH_REPS);
  printf("  %5s %-9s %-10s %12s %9s %9s %10s %12s\n", "balls", "masses", "policy", "resol./s",
         "reflect.", "outcomes", "branches", "x impact_map");
  const int ns[3] = {3, 10, 100};
  for (int a = 0; a < 2; a++)
    for (int i = 0; i < 3; i++) chain_row(ns[i], a, NH_SIMUL_MOST_INFEASIBLE, base);
  // enumerate: equal masses never branch (one infeasible contact at a time); alternating
  // masses branch, and the branches grow up to ~165x per ball (n = 7, 8, 9: 160, 24463,
  // 4048089): measured up to ENUM_MAX_BALLS, then one resolution of the next chain, timed once
  for (int i = 0; i < 3; i++) chain_row(ns[i], 0, NH_SIMUL_ENUMERATE, base);
  for (int n = 3; n <= ENUM_MAX_BALLS; n++) chain_row(n, 1, NH_SIMUL_ENUMERATE, base);
  chain_ctx c;
  if (chain_init(&c, ENUM_MAX_BALLS + 1, 1, NH_SIMUL_ENUMERATE) == 0) {
    double t0 = bench_now();
    op_chain(&c);
    printf("  %5d %-9s %-10s one resolution %.2f s: %ld branches, %d outcomes (the default\n"
           "        max_branches %ld stops it with NH_SIMUL_TOO_MANY_OUTCOMES)\n",
           ENUM_MAX_BALLS + 1, "1,2,1,..", "enumerate", bench_now() - t0, c.res.branches,
           c.res.outcomes, nh_simul_opts_default().max_branches);
    chain_free(&c);
  }
  if (growth_table(base, NH_SIMUL_ELASTIC) || growth_table(base, NH_SIMUL_PLASTIC))
    fprintf(stderr, "bench: the structured and dense resolutions differ\n");
  return driver_table(spring_cradle, "spring cradle of 3 equal balls", 1) ||
         driver_table(walls, "a particle between two walls 0.1 apart", 0);
}
