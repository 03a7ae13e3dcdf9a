/* test_sim_paths.c - the driver's failure exits (src/sim/driver.c, events.c, and the impact and
 * contact code they call), run on purpose with models of the C API whose evaluators fail on
 * demand (fault_models.h):
 *   - every call of an evaluator around the impacts, monitor events and contact closings of a
 *     run, made to fail (negative) or to refuse its state (positive), for each model form and a
 *     choice of methods: the run ends with a failure status and a message naming the place, on
 *     its own trajectory (the state left is one the run without the fault passed through), with
 *     its impact and event logs holding exactly what was observed; a positive return is never a
 *     positive status;
 *   - an event location that does not converge, a predictor that fails, misses or answers out
 *     of range, a projection that drags the state through a wall (NH_ERR_PENETRATION after the
 *     step is retried in quarters), a step whose Newton iteration never converges or whose
 *     constraint rows lose rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_models.h"
#include "harness.h"
#include "nholo/nholo.h"

#define G 9.81
#define STATE_TOL 1e-12 /* a state left against the clean run's at the same time (relative): a
                           closing's projection moves q by its rounding */

/* ---- the observer: every sample, with the evaluators' call counts at it ---------------------- */

typedef struct sample {
  int kind;
  double t, x[4];
  long calls[FE_N];
} sample;

typedef struct trace {
  const fault *f;
  int nq, nx; /* nq: the configuration's length in x (the mechanical form), nx = 2 nq or 4 */
  int n, cap;
  sample *s;
  long impacts_after, events;
} trace;

static int record(const nh_sim *s, nh_sample_kind kind, double t, const double *q, const double *v, void *u) {
  (void)s;
  trace *r = u;
  if (kind == NH_SAMPLE_IMPACT_AFTER) r->impacts_after++;
  if (kind == NH_SAMPLE_EVENT) r->events++;
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 256;
    r->s = realloc(r->s, sizeof *r->s * (size_t)r->cap);
  }
  sample *p = &r->s[r->n++];
  p->kind = kind, p->t = t;
  if (v) memcpy(p->x, q, sizeof(double) * (size_t)r->nq), memcpy(p->x + r->nq, v, sizeof(double) * (size_t)r->nq);
  else memcpy(p->x, q, sizeof(double) * (size_t)r->nx);
  memcpy(p->calls, r->f->calls, sizeof p->calls);
  return 0;
}

/* ---- the sweep ------------------------------------------------------------------------------- */

typedef struct config {
  const char *name;
  int ap;             /* almost-Poisson form */
  const char *method;
  double e, t_end, out_dt;
  int nmon;
  int evs[6], nev;    /* the evaluators made to fail */
} config;

static nh_model *config_model(const config *c, fault *f) {
  memset(f, 0, sizeof *f);
  f->g = G, f->wall = 2.0;
  return c->ap ? fault_ball_ap(f, c->e, c->nmon) : fault_ball(f, c->e, c->nmon, !strcmp(c->method, "exact"), 0);
}

static nh_sim *config_sim(const config *c, const nh_model *m) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(c->method);
  d.out_dt = c->out_dt;
  return nh_sim_create(m, &d, NULL, 0);
}

/* the windows of the clean run worth failing in: the calls between samples i and i + 1 where
 * either is the start, one of the first two or the last two impacts (the accumulation that
 * closes a contact, the impact beside it) or the first monitor event: detection, location,
 * the impact law, a closing. Marked in want[]. */
static void windows(const trace *r, char *want) {
  long nimp = 0, k = 0;
  int ev = 0;
  for (int i = 0; i < r->n; i++) nimp += r->s[i].kind == NH_SAMPLE_IMPACT_BEFORE;
  memset(want, 0, (size_t)r->n);
  want[0] = want[1] = 1;
  for (int i = 0; i < r->n; i++) {
    const int kind = r->s[i].kind;
    int pick = 0;
    if (kind == NH_SAMPLE_IMPACT_BEFORE) k++;
    if (kind == NH_SAMPLE_IMPACT_BEFORE || kind == NH_SAMPLE_IMPACT_AFTER) pick = k <= 2 || k >= nimp - 1;
    if (kind == NH_SAMPLE_EVENT && !ev) pick = ev = 1;
    if (pick) {
      if (i > 0) want[i - 1] = 1;
      want[i] = 1;
    }
  }
}

/* the calls N of window [a, b] tried: all of them in a short window, else WINDOW_EDGE at each
 * end and WINDOW_INNER spread between */
#define WINDOW_EDGE 6
#define WINDOW_INNER 12
static long window_next(long a, long b, long N) {
  if (b - a + 1 <= 2 * WINDOW_EDGE + WINDOW_INNER || N < a + WINDOW_EDGE - 1 || N >= b - WINDOW_EDGE) return N + 1;
  const long stride = (b - a + 1 - 2 * WINDOW_EDGE) / WINDOW_INNER + 1, next = N + stride;
  return next < b - WINDOW_EDGE + 1 ? next : b - WINDOW_EDGE + 1;
}

/* the state left (t, x) is one the clean run passed through: a sample at the same time with
 * the same configuration (not an output sample, which is interpolated) */
static int on_trajectory(const trace *clean, int nq, double t, const double *x) {
  for (int i = 0; i < clean->n; i++) {
    const sample *p = &clean->s[i];
    if (p->kind == NH_SAMPLE_OUTPUT || p->t != t) continue;
    int same = 1;
    for (int j = 0; j < nq && same; j++) same = fabs(p->x[j] - x[j]) <= STATE_TOL * fmax(1.0, fabs(x[j]));
    if (same) return 1;
  }
  return 0;
}

/* One evaluator ev of one configuration failing with rc_fail at each call N of the windows:
 * the properties of every run (see the top of the file). *runs counts them. */
static int sweep_one(const config *c, int ev, int rc_fail, long *runs) {
  fault f;
  nh_model *m = config_model(c, &f);
  ENSURE(m);
  const int nq = 2, nx = 4; /* (x, y) first in either form */
  trace clean = {&f, nq, nx, 0, 0, NULL, 0, 0};
  nh_sim *s = config_sim(c, m);
  ENSURE(s);
  memset(f.calls, 0, sizeof f.calls);
  const int rc_clean = nh_sim_run(s, c->t_end, 0, record, &clean);
  ENSURE(rc_clean >= 0 && clean.impacts_after > 0);
  const long nimp_clean = nh_sim_impact_count(s);
  nh_impact_record *imp = malloc(sizeof *imp * (size_t)(nimp_clean + 1));
  for (long k = 0; k < nimp_clean; k++) ENSURE(nh_sim_impact_get(s, k, &imp[k]) == NH_OK);
  nh_sim_destroy(s);
  char *want = malloc((size_t)clean.n);
  windows(&clean, want);
  // the trajectory, observed at every step (output sampling takes the same steps)
  trace traj = {&f, nq, nx, 0, 0, NULL, 0, 0};
  if (c->out_dt > 0.0) {
    config c0 = *c;
    c0.out_dt = 0.0;
    ENSURE((s = config_sim(&c0, m)) && nh_sim_run(s, c->t_end, 0, record, &traj) == rc_clean);
    nh_sim_destroy(s);
  }
  const trace *path = c->out_dt > 0.0 ? &traj : &clean;
  for (int i = 0; i + 1 < clean.n; i++) {
    if (!want[i]) continue;
    const long a = clean.s[i].calls[ev] + 1, b = clean.s[i + 1].calls[ev];
    for (long N = a; N <= b; N = window_next(a, b, N)) {
      trace r = {&f, nq, nx, 0, 0, NULL, 0, 0};
      s = config_sim(c, m);
      ENSURE(s);
      memset(f.calls, 0, sizeof f.calls);
      f.fail_at[ev] = N, f.fail_rc = rc_fail;
      const int rc = nh_sim_run(s, c->t_end, 0, record, &r);
      f.fail_at[ev] = 0;
      (*runs)++;
      const char *msg = nh_sim_message(s);
      const double t = nh_sim_time(s), *x = nh_sim_x(s);
      if (!(rc == rc_clean || rc < 0) || (rc_fail < 0 && rc != NH_ERR_CALLBACK) || (rc < 0 && !strstr(msg, "t = ")))
        printf("  %s, %s fails (%+d) at call %ld: %s, \"%s\"\n", c->name, FE_NAME[ev], rc_fail, N, nh_status_name(rc), msg);
      // a positive return is never a positive status of its own; a failure stops the run
      ENSURE(rc == rc_clean || rc < 0);
      ENSURE(rc_fail > 0 || rc == NH_ERR_CALLBACK);
      // a failure says where: the evaluator or the operation, and the time
      ENSURE(rc >= 0 || (msg[0] && strstr(msg, "t = ")));
      // never through a wall, and the END sample is the state left
      ENSURE(x[1] >= -1e-9 * fmax(1.0, fabs(x[1])) && f.wall - x[0] >= -1e-9 * fmax(1.0, fabs(x[0])));
      ENSURE(r.n > 0 && r.s[r.n - 1].kind == NH_SAMPLE_END && r.s[r.n - 1].t == t);
      // the logs hold what was observed: every impact logged was shown after it, and so
      // was every monitor event
      ENSURE(nh_sim_impact_count(s) == r.impacts_after && nh_sim_event_count(s) == r.events);
      if (rc_fail < 0) {
        // before the failure the run is the clean one: the state left is on its trajectory,
        // its impacts are the clean run's first ones
        ENSURE(on_trajectory(path, nq, t, x));
        for (long k = 0; k < nh_sim_impact_count(s); k++) {
          nh_impact_record ir;
          ENSURE(k < nimp_clean && nh_sim_impact_get(s, k, &ir) == NH_OK);
          ENSURE(ir.t == imp[k].t && ir.gap == imp[k].gap);
        }
      }
      free(r.s);
      nh_sim_destroy(s);
    }
  }
  free(imp);
  free(want);
  free(traj.s);
  free(clean.s);
  nh_model_destroy(m);
  return 0;
}

/* the configurations: the ball bouncing (e = 0.8: impacts only) or coming to rest on the
 * floor (e = 0.3: its contact closes by accumulation, then the ball slides into the wall at
 * x = 2, a simultaneous impact with the held floor), in either form, under an adaptive method,
 * a fixed-step one (dense output from the right-hand side), the closed-form flow (dense output
 * and output samples from the flow) and a projected method of the almost-Poisson form */
static const config CONFIGS[] = {
    {"ball dopri5 e=0.8", 0, "dopri5", 0.8, 1.5, 0.0, 1, {FE_MASS, FE_POT, FE_GAP, FE_MON}, 4},
    {"ball dopri5 e=0.3", 0, "dopri5", 0.3, 2.3, 0.0, 1, {FE_MASS, FE_GAP, FE_MON}, 3},
    {"ball rk4 e=0.3", 0, "rk4", 0.3, 2.3, 0.0, 1, {FE_MASS, FE_GAP}, 2},
    {"ball exact e=0.8", 0, "exact", 0.8, 1.5, 0.05, 1, {FE_FLOW, FE_GAP, FE_MON}, 3},
    {"ap ball dopri5 e=0.3", 1, "dopri5", 0.3, 1.9, 0.0, 1, {FE_HAM, FE_POI, FE_GAP, FE_MON, FE_PROJ}, 5},
    {"ap ball gonzalez e=0.3", 1, "gonzalez", 0.3, 1.9, 0.0, 0, {FE_HAM, FE_GAP}, 2},
};

static int test_failing_evaluators(void) {
  long runs = 0;
  for (size_t c = 0; c < sizeof CONFIGS / sizeof CONFIGS[0]; c++) {
    const long before = runs;
    for (int k = 0; k < CONFIGS[c].nev; k++)
      for (int sgn = -1; sgn <= 1; sgn += 2)
        if (sweep_one(&CONFIGS[c], CONFIGS[c].evs[k], sgn, &runs)) {
          printf("  in %s, %s failing with %+d\n", CONFIGS[c].name, FE_NAME[CONFIGS[c].evs[k]], sgn);
          return 1;
        }
    printf("  %s: %ld runs with a failing evaluator\n", CONFIGS[c].name, runs - before);
  }
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_failing_evaluators);
  return TEST_SUMMARY();
}
