/* test_phases.c - breakpoints and chains of phases (nh_sim_run_breaks, nh_chain_run) on a
 * particle that falls, bounces and drifts: closed forms for every phase. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "nholo/nholo.h"

/* ---- two models of a particle at height x with velocity u (g = 1) --------------------------
 * fall:  (x, u),    x' = u, u' = -1, monitor "floor" m = x (falling, stops);
 * drift: (x, u, y), x' = u, u' = 0, y' = -1, monitor "timer" m = y (falling, stops). */

static int fall_rhs(double t, const double *x, double *xd, void *user) {
  (void)t, (void)user;
  xd[0] = x[1], xd[1] = -1.0;
  return 0;
}
static int drift_rhs(double t, const double *x, double *xd, void *user) {
  (void)t, (void)user;
  xd[0] = x[1], xd[1] = 0.0, xd[2] = -1.0;
  return 0;
}
static int fall_monitor(double t, const double *x, double *m, void *user) {
  (void)t, (void)user;
  m[0] = x[0];
  return 0;
}
static int drift_monitor(double t, const double *x, double *m, void *user) {
  (void)t, (void)user;
  m[0] = x[2];
  return 0;
}

static nh_model *particle(int drift) {
  static const char *names[] = {"x", "u", "y"};
  const double x0[3] = {1.0, 0.0, 0.5};
  nh_monitor_def mon = {drift ? "timer" : "floor", NH_MONITOR_FALLING, NH_MONITOR_STOP};
  nh_model_def d = nh_model_def_default();
  d.name = drift ? "drift" : "fall";
  d.form = NH_FORM_ODE;
  d.nx = drift ? 3 : 2;
  d.state_names = names;
  d.x0 = x0;
  d.rhs = drift ? drift_rhs : fall_rhs;
  d.nmon = 1;
  d.monitors = &mon;
  d.monitor = drift ? drift_monitor : fall_monitor;
  return nh_model_create(&d, NULL, 0);
}

static nh_sim *make_sim(const nh_model *m) {
  nh_sim_def d = nh_sim_def_default();
  d.h = 1e-2;
  return nh_sim_create(m, &d, NULL, 0);
}

/* the reset map: at the floor u -> -E u; the first bounce falls again, the second drifts for
 * DRIFT_T (y = DRIFT_T), the drift's end falls again, the third floor ends the run */
#define E_REST 0.5
#define DRIFT_T 0.5
typedef struct bounces {
  int floors, calls, fail;
} bounces;

static int bounce(int from, const nh_sim *sim, int *to, double *t, double *x, void *user) {
  bounces *b = user;
  (void)t;
  b->calls++;
  if (b->fail) return b->fail;
  if (from == 1) { /* the drift is over: (x, u) fall on */
    *to = 0;
    return 0;
  }
  if (nh_sim_model(sim)->nx != 2 || ++b->floors == 3) return 1;
  x[1] = -E_REST * x[1];
  if (b->floors == 2) x[2] = DRIFT_T, *to = 1;
  else *to = 0;
  return 0;
}

/* what the observer saw */
#define MAX_SAMPLES 20000
typedef struct seen {
  long n, starts, ends, events;
  double t[MAX_SAMPLES];
  int kind[MAX_SAMPLES];
  int nx[MAX_SAMPLES];
  double x0[MAX_SAMPLES];
  long stop_after; /* > 0: stop the run at this sample */
} seen;

static int record(const nh_sim *s, nh_sample_kind kind, double t, const double *x, const double *v, void *user) {
  seen *o = user;
  if (v != NULL || o->n == MAX_SAMPLES) return 1;
  o->t[o->n] = t, o->kind[o->n] = (int)kind, o->nx[o->n] = nh_sim_model(s)->nx, o->x0[o->n] = x[0];
  o->n++;
  o->starts += kind == NH_SAMPLE_START, o->ends += kind == NH_SAMPLE_END, o->events += kind == NH_SAMPLE_EVENT;
  return o->stop_after > 0 && o->n >= o->stop_after;
}

/* the closed form: floors at t1 = sqrt 2, t2 = t1 + 2 u1 (u1 = E sqrt 2), drift to t3 = t2 +
 * DRIFT_T at x3 = u2 DRIFT_T (u2 = E u1), then a fall to x = 0 at t4 = t3 + u2 + sqrt(u2^2 + 2 x3) */
static int test_chain_bounce_drift(void) {
  nh_model *mf = particle(0), *md = particle(1);
  nh_sim *sf = make_sim(mf), *sd = make_sim(md);
  ENSURE(mf && md && sf && sd);
  const double t1 = sqrt(2.0), u1 = E_REST * sqrt(2.0), t2 = t1 + 2 * u1, u2 = E_REST * u1;
  const double t3 = t2 + DRIFT_T, x3 = u2 * DRIFT_T, s4 = u2 + sqrt(u2 * u2 + 2 * x3), t4 = t3 + s4;
  const double breaks[3] = {3.0, 0.5, 1.0}; /* any order */
  nh_sim *const phases[2] = {sf, sd};
  bounces b = {0, 0, 0};
  nh_chain c = {phases, 2, breaks, 3, 0, 0, bounce, &b};
  seen *o = calloc(1, sizeof *o);
  ENSURE(o);
  int last = -1;
  ENSURE(nh_chain_run(&c, 0, 10.0, record, o, &last) == NH_EVENT_STOP);
  ENSURE(last == 0 && b.calls == 4 && b.floors == 3);
  ENSURE_NEAR(nh_sim_time(sf), t4, 1e-10);
  ENSURE_NEAR(nh_sim_x(sf)[0], 0.0, 1e-10);
  ENSURE_NEAR(nh_sim_x(sf)[1], u2 - s4, 1e-10);
  ENSURE_NEAR(nh_sim_time(sd), t3, 1e-10);
  ENSURE_NEAR(nh_sim_x(sd)[0], x3, 1e-10);
  // a START for the first phase and after each of the 3 resets that go on (the fourth ends the
  // run), one END last, an EVENT per stop, in time order
  ENSURE(o->starts == 4 && o->ends == 1 && o->events == 4);
  ENSURE(o->kind[0] == NH_SAMPLE_START && o->t[0] == 0.0 && o->x0[0] == 1.0);
  ENSURE(o->kind[o->n - 1] == NH_SAMPLE_END && o->t[o->n - 1] == nh_sim_time(sf) && o->nx[o->n - 1] == 2);
  const double ev_t[4] = {t1, t2, t3, t4};
  const int ev_nx[4] = {2, 2, 3, 2};
  int ne = 0, ns = 0, hit[3] = {0, 0, 0};
  for (long k = 0; k < o->n; k++) {
    if (k) ENSURE(o->t[k] >= o->t[k - 1]);
    if (o->kind[k] == NH_SAMPLE_EVENT) {
      ENSURE(ne < 4);
      ENSURE_NEAR(o->t[k], ev_t[ne], 1e-10);
      ENSURE(o->nx[k] == ev_nx[ne]);
      ne++;
    }
    if (o->kind[k] == NH_SAMPLE_START && k > 0) { /* a new phase's START: its reset state */
      ENSURE(o->kind[k - 1] == NH_SAMPLE_EVENT && o->t[k] == o->t[k - 1]);
      ENSURE(o->nx[k] == (ns == 1 ? 3 : 2));
      ENSURE_NEAR(o->x0[k], ns == 1 ? 0.0 : ns == 2 ? x3 : 0.0, 1e-10);
      ns++;
    }
    for (int j = 0; j < 3; j++) hit[j] += o->kind[k] == NH_SAMPLE_STEP && o->t[k] == breaks[j];
  }
  ENSURE(ne == 4 && ns == 3);
  ENSURE(hit[0] == 1 && hit[1] == 1 && hit[2] == 1); /* every breakpoint landed on exactly */
  // to a time between: NH_OK in the phase that was running, on the closed form
  ENSURE(nh_sim_set_state_x(sf, 0.0, mf->x0) == NH_OK);
  b.floors = b.calls = 0;
  ENSURE(nh_chain_run(&c, 0, 3.0, NULL, NULL, &last) == NH_OK && last == 1);
  ENSURE(nh_sim_time(sd) == 3.0);
  ENSURE_NEAR(nh_sim_x(sd)[0], u2 * (3.0 - t2), 1e-10);
  ENSURE_NEAR(nh_sim_x(sd)[2], DRIFT_T - (3.0 - t2), 1e-10);
  // the observer stops the run: NH_STOPPED, no END
  ENSURE(nh_sim_set_state_x(sf, 0.0, mf->x0) == NH_OK);
  b.floors = b.calls = 0;
  o->n = o->starts = o->ends = o->events = 0, o->stop_after = 5;
  ENSURE(nh_chain_run(&c, 0, 10.0, record, o, &last) == NH_STOPPED && o->n == 5 && o->ends == 0);
  free(o);
  nh_sim_destroy(sf), nh_sim_destroy(sd);
  nh_model_destroy(mf), nh_model_destroy(md);
  return 0;
}

/* limits, reset results and bad chains */
static int test_chain_limits(void) {
  nh_model *mf = particle(0), *md = particle(1);
  nh_sim *sf = make_sim(mf), *sd = make_sim(md);
  ENSURE(mf && md && sf && sd);
  nh_sim *const phases[2] = {sf, sd};
  bounces b = {0, 0, 0};
  nh_chain c = {phases, 2, NULL, 0, 0, 1, bounce, &b};
  int last = -1;
  // one switch allowed: the second floor ends the run without a reset
  ENSURE(nh_chain_run(&c, 0, 10.0, NULL, NULL, &last) == NH_EVENT_STOP && last == 0 && b.calls == 1);
  ENSURE_NEAR(nh_sim_time(sf), sqrt(2.0) * (1.0 + 2 * E_REST), 1e-10);
  // no reset map: the first stop ends the run
  c.max_switches = 0, c.reset = NULL;
  ENSURE(nh_sim_set_state_x(sf, 0.0, mf->x0) == NH_OK);
  ENSURE(nh_chain_run(&c, 0, 10.0, NULL, NULL, &last) == NH_EVENT_STOP && last == 0);
  ENSURE_NEAR(nh_sim_time(sf), sqrt(2.0), 1e-10);
  // a failing reset map's status is returned
  c.reset = bounce, b.fail = NH_ERR_CALLBACK, b.calls = 0;
  ENSURE(nh_sim_set_state_x(sf, 0.0, mf->x0) == NH_OK);
  ENSURE(nh_chain_run(&c, 0, 10.0, NULL, NULL, &last) == NH_ERR_CALLBACK && b.calls == 1);
  // bad chains
  b.fail = 0;
  nh_sim *const holes[2] = {sf, NULL};
  nh_chain bad = c;
  bad.phases = holes;
  ENSURE(nh_chain_run(&bad, 0, 10.0, NULL, NULL, &last) == NH_ERR_ARG);
  bad = c, bad.nbreaks = 2; /* breaks NULL */
  ENSURE(nh_chain_run(&bad, 0, 10.0, NULL, NULL, &last) == NH_ERR_ARG);
  ENSURE(nh_chain_run(&c, 2, 10.0, NULL, NULL, &last) == NH_ERR_ARG);
  ENSURE(nh_chain_run(NULL, 0, 10.0, NULL, NULL, &last) == NH_ERR_ARG);
  ENSURE(nh_chain_run(&c, 0, -1.0, NULL, NULL, &last) == NH_ERR_ARG); /* t_end before the start */
  nh_sim_destroy(sf), nh_sim_destroy(sd);
  nh_model_destroy(mf), nh_model_destroy(md);
  return 0;
}

/* nh_sim_run_breaks: lands on each breakpoint inside (t, t_end) exactly, one START and END,
 * and the state of the closed form */
static int test_run_breaks(void) {
  nh_model *md = particle(1);
  nh_sim *s = make_sim(md);
  ENSURE(md && s);
  seen *o = calloc(1, sizeof *o);
  ENSURE(o);
  const double breaks[4] = {0.25, NAN, -1.0, 0.1};
  ENSURE(nh_sim_run_breaks(s, 0.4, 0, breaks, 4, record, o) == NH_OK && nh_sim_time(s) == 0.4);
  ENSURE(o->starts == 1 && o->ends == 1 && o->kind[0] == NH_SAMPLE_START && o->kind[o->n - 1] == NH_SAMPLE_END);
  int hit = 0;
  for (long k = 0; k < o->n; k++) hit += o->t[k] == 0.1 || o->t[k] == 0.25;
  ENSURE(hit == 2);
  ENSURE_NEAR(nh_sim_x(s)[2], DRIFT_T - 0.4, 1e-14);
  ENSURE(nh_sim_run_breaks(s, 0.3, 0, breaks, 4, NULL, NULL) == NH_ERR_ARG); /* t_end before t */
  ENSURE(nh_sim_run_breaks(s, 1.0, 0, NULL, 1, NULL, NULL) == NH_ERR_ARG);
  free(o);
  nh_sim_destroy(s);
  nh_model_destroy(md);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_chain_bounce_drift);
  RUN_TEST(test_chain_limits);
  RUN_TEST(test_run_breaks);
  return TEST_SUMMARY();
}
