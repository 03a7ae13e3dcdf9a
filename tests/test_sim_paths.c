/* test_sim_paths.c - the driver's failure exits (src/sim/driver.c, locate.c, and the impact and
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
#include "nholo/systems/all.h"

#define G 9.81
#define STATE_TOL 1e-12 /* a state left against the clean run's at the same time (relative): a
                           closing's projection moves q by its rounding */

/* ---- the observer: every sample, with the evaluators' call counts at it ---------------------- */

typedef struct sample {
  int kind;
  double t, x[4];
  long calls[FE_N], contacts;
} sample;

typedef struct trace {
  const fault *f;
  int nq, nx; /* nq: the configuration's length in x (the mechanical form), nx = 2 nq or 4 */
  int n, cap;
  sample *s;
  long impacts_after, events;
  int stop_at; /* > 0: stop the run at this sample (1: the first) */
} trace;

static int record(const nh_sim *s, nh_sample_kind kind, double t, const double *q, const double *v, void *u) {
  trace *r = u;
  if (kind == NH_SAMPLE_IMPACT_AFTER) r->impacts_after++;
  if (kind == NH_SAMPLE_EVENT) r->events++;
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 256;
    r->s = realloc(r->s, sizeof *r->s * (size_t)r->cap);
  }
  sample *p = &r->s[r->n++];
  p->kind = kind, p->t = t, p->contacts = nh_sim_contact_count(s);
  if (v) memcpy(p->x, q, sizeof(double) * (size_t)r->nq), memcpy(p->x + r->nq, v, sizeof(double) * (size_t)r->nq);
  else memcpy(p->x, q, sizeof(double) * (size_t)r->nx);
  memcpy(p->calls, r->f->calls, sizeof p->calls);
  return r->n == r->stop_at;
}

/* ---- the sweeps ------------------------------------------------------------------------------ */

typedef struct config {
  const char *name;
  int ap;             /* almost-Poisson form */
  const char *method;
  double e, t_end, out_dt;
  int nmon;
  double ceiling, lift, drag_to; /* fault_models.h (drag_to != 0: drag_below = 1e-6) */
  int evs[6], nev;    /* the evaluators made to fail */
  double push, ramp, start_x, start_y; /* fault_models.h */
  int contact_off;    /* nh_sim_def.contact = 0 */
} config;

static nh_model *config_model(const config *c, fault *f) {
  memset(f, 0, sizeof *f);
  f->g = G, f->wall = 2.0, f->ceiling = c->ceiling, f->lift = c->lift;
  f->push = c->push, f->ramp = c->ramp, f->start_x = c->start_x, f->start_y = c->start_y;
  if (c->drag_to != 0.0) f->drag_below = 1e-6, f->drag_to = c->drag_to;
  return c->ap ? fault_ball_ap(f, c->e, c->nmon) : fault_ball(f, c->e, c->nmon, !strcmp(c->method, "exact"), 0);
}

static nh_sim *config_sim(const config *c, const nh_model *m) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(c->method);
  d.out_dt = c->out_dt;
  d.contact = !c->contact_off;
  return nh_sim_create(m, &d, NULL, 0);
}

/* the windows of the clean run worth failing in: the calls between samples i and i + 1 where
 * either is the start, one of the first two or the last two impacts (the accumulation that
 * closes a contact, the impact beside it), the first monitor event, or a change of the
 * contacts (a closing, an opening): detection, location, the impact law, a closing, the watch
 * on a contact's force. Marked in want[]. */
static void windows(const trace *r, char *want) {
  long nimp = 0, k = 0;
  int ev = 0;
  for (int i = 0; i < r->n; i++) nimp += r->s[i].kind == NH_SAMPLE_IMPACT_BEFORE;
  memset(want, 0, (size_t)r->n);
  want[0] = want[1] = 1;
  for (int i = 0; i < r->n; i++) {
    const int kind = r->s[i].kind;
    int pick = i > 0 && r->s[i].contacts != r->s[i - 1].contacts;
    if (kind == NH_SAMPLE_IMPACT_BEFORE) k++;
    if (kind == NH_SAMPLE_IMPACT_BEFORE || kind == NH_SAMPLE_IMPACT_AFTER) pick |= k <= 2 || k >= nimp - 1;
    if (kind == NH_SAMPLE_EVENT && !ev) pick = ev = 1;
    if (pick) {
      if (i > 0) want[i - 1] = 1;
      want[i] = 1;
    }
  }
}

/* the calls N of window [a, b] tried: all of them in a short window, else WINDOW_EDGE at each
 * end and WINDOW_INNER spread between; besides the windows, UNIFORM_N calls spread over the run */
#define WINDOW_EDGE 4
#define WINDOW_INNER 6
#define UNIFORM_N 12
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

/* the clean run of a configuration: its samples and its impacts (times, gaps) */
typedef struct clean_run {
  trace tr, path; /* every sample; the trajectory at every step (tr itself when out_dt = 0) */
  int rc;
  long nimp;
  double imp_t[256];
  int imp_gap[256];
} clean_run;

static int clean_run_of(const config *c, const nh_model *m, fault *f, clean_run *cr) {
  nh_sim *s = config_sim(c, m);
  ENSURE(s);
  memset(f->calls, 0, sizeof f->calls);
  cr->tr = (trace){f, 2, 4, 0, 0, NULL, 0, 0, 0};
  cr->path = cr->tr;
  cr->rc = nh_sim_run(s, c->t_end, 0, record, &cr->tr);
  ENSURE(cr->rc >= 0 && (cr->tr.impacts_after > 0 || c->ramp > 0.0));
  cr->nimp = nh_sim_impact_count(s);
  ENSURE(cr->nimp <= 256);
  for (long k = 0; k < cr->nimp; k++) {
    nh_impact_record r;
    ENSURE(nh_sim_impact_get(s, k, &r) == NH_OK);
    cr->imp_t[k] = r.t, cr->imp_gap[k] = r.gap;
  }
  nh_sim_destroy(s);
  if (c->out_dt > 0.0) { /* (output sampling takes the same steps) */
    config c0 = *c;
    c0.out_dt = 0.0;
    ENSURE((s = config_sim(&c0, m)) && nh_sim_run(s, c->t_end, 0, record, &cr->path) == cr->rc);
    nh_sim_destroy(s);
  }
  return 0;
}

/* what every run of a configuration left, failing or stopped: inside the walls, the END
 * sample at the state left (none after a stop), the logs holding what was observed, and (a
 * negative fault, or a stop: everything before it was the clean run) on the clean trajectory
 * with the clean run's first impacts */
static int left_ok(const config *c, const clean_run *cr, const nh_sim *s, const trace *r, int clean_before, int stopped) {
  const double t = nh_sim_time(s), *x = nh_sim_x(s);
  const nh_model *m = nh_sim_model(s);
  double g[3], dg[12];
  ENSURE(m->gap(x, g, dg, m->user) == 0); /* (the fault is disarmed) */
  for (int i = 0; i < m->ngap; i++) {
    const int n = c->ap ? 4 : 2;
    double dn = 0.0;
    for (int j = 0; j < n; j++) dn += dg[i * n + j] * dg[i * n + j];
    ENSURE(g[i] >= -1e-9 * fmax(1.0, fmax(fabs(x[0]), fabs(x[1]))) * sqrt(dn));
  }
  if (!stopped) ENSURE(r->n > 0 && r->s[r->n - 1].kind == NH_SAMPLE_END && r->s[r->n - 1].t == t);
  else ENSURE(r->n > 0 && r->s[r->n - 1].kind != NH_SAMPLE_END);
  ENSURE(nh_sim_impact_count(s) == r->impacts_after && nh_sim_event_count(s) == r->events);
  if (clean_before) {
    ENSURE(on_trajectory(c->out_dt > 0.0 ? &cr->path : &cr->tr, 2, t, x));
    for (long k = 0; k < nh_sim_impact_count(s); k++) {
      nh_impact_record ir;
      ENSURE(k < cr->nimp && nh_sim_impact_get(s, k, &ir) == NH_OK);
      ENSURE(ir.t == cr->imp_t[k] && ir.gap == cr->imp_gap[k]);
    }
  }
  return 0;
}

/* One evaluator ev of one configuration failing with rc_fail at each call N of the windows
 * and of the uniform spread: the properties of every run (see the top of the file). *runs
 * counts them. */
static int sweep_fail(const config *c, const nh_model *m, fault *f, const clean_run *cr, int ev, int rc_fail,
                      long *runs) {
  const trace *ct = &cr->tr;
  const long C = ct->s[ct->n - 1].calls[ev];
  char *want = malloc((size_t)ct->n), *tried = calloc((size_t)C + 2, 1);
  windows(ct, want);
  for (int i = 0; i + 1 < ct->n; i++) {
    if (!want[i]) continue;
    const long a = ct->s[i].calls[ev] + 1, b = ct->s[i + 1].calls[ev];
    for (long N = a; N <= b; N = window_next(a, b, N)) tried[N] = 1;
  }
  for (long k = 1; k <= UNIFORM_N; k++) tried[k * C / UNIFORM_N] = 1;
  for (long N = 1; N <= C; N++) {
    if (!tried[N]) continue;
    trace r = {f, 2, 4, 0, 0, NULL, 0, 0, 0};
    nh_sim *s = config_sim(c, m);
    ENSURE(s);
    memset(f->calls, 0, sizeof f->calls);
    f->fail_at[ev] = N, f->fail_rc = rc_fail;
    const int rc = nh_sim_run(s, c->t_end, 0, record, &r);
    f->fail_at[ev] = 0;
    (*runs)++;
    const char *msg = nh_sim_message(s);
    if (!(rc == cr->rc || rc < 0) || (rc_fail < 0 && rc != NH_ERR_CALLBACK) || (rc < 0 && !strstr(msg, "t = ")))
      printf("  %s, %s fails (%+d) at call %ld: %s, \"%s\"\n", c->name, FE_NAME[ev], rc_fail, N, nh_status_name(rc), msg);
    // a positive return is never a positive status of its own; a failure stops the run
    ENSURE(rc == cr->rc || rc < 0);
    ENSURE(rc_fail > 0 || rc == NH_ERR_CALLBACK);
    // a failure says where: the evaluator or the operation, and the time (not only the
    // driver's last resort, "<status> at t = ...")
    char last_resort[128];
    snprintf(last_resort, sizeof last_resort, "%s at t = ", nh_status_string(rc));
    ENSURE(rc >= 0 || (msg[0] && strstr(msg, "t = ") && strstr(msg, last_resort) != msg));
    if (left_ok(c, cr, s, &r, rc_fail < 0, 0)) {
      printf("  %s, %s fails (%+d) at call %ld: the state or logs left\n", c->name, FE_NAME[ev], rc_fail, N);
      return 1;
    }
    free(r.s);
    nh_sim_destroy(s);
  }
  free(want);
  free(tried);
  return 0;
}

/* An observer stopping the run at sample k, for the samples of the windows and every
 * STOP_EVERY-th other: NH_STOPPED, no END sample, the state left the sample's (an output
 * sample's step is not taken: the state is the step's start), the logs what was shown. */
#define STOP_EVERY 16
static int sweep_stop(const config *c, const nh_model *m, fault *f, const clean_run *cr, long *runs) {
  const trace *ct = &cr->tr;
  char *want = malloc((size_t)ct->n);
  windows(ct, want);
  for (int k = 0; k + 1 < ct->n; k++) {
    if (!want[k] && !(k + 1 < ct->n && want[k + 1]) && k % STOP_EVERY) continue;
    trace r = {f, 2, 4, 0, 0, NULL, 0, 0, k + 1};
    nh_sim *s = config_sim(c, m);
    ENSURE(s);
    const int rc = nh_sim_run(s, c->t_end, 0, record, &r);
    (*runs)++;
    ENSURE(rc == NH_STOPPED && r.n == k + 1 && r.s[k].kind == ct->s[k].kind && r.s[k].t == ct->s[k].t);
    // the state left: the sample's; at an output sample the step before it (on the trajectory)
    if (ct->s[k].kind != NH_SAMPLE_OUTPUT)
      ENSURE(nh_sim_time(s) == ct->s[k].t && !memcmp(nh_sim_x(s), ct->s[k].x, sizeof ct->s[k].x));
    else
      ENSURE(nh_sim_time(s) < ct->s[k].t);
    if (left_ok(c, cr, s, &r, 1, 1)) {
      printf("  %s, stopped at sample %d: the state or logs left\n", c->name, k);
      return 1;
    }
    free(r.s);
    nh_sim_destroy(s);
  }
  free(want);
  return 0;
}

/* the configurations: the ball bouncing (e = 0.8: impacts only) or coming to rest on the
 * floor (e = 0.3: its contact closes by accumulation, then the ball slides into the wall at
 * x = 2, a simultaneous impact with the held floor), in either form, under an adaptive method,
 * a fixed-step one (dense output from the right-hand side), the closed-form flow (dense output
 * and output samples from the flow), methods that hold contacts by projection; lifted off
 * its floor (the contact's force located at its zero); under a ceiling its apexes graze (the
 * graze search); a projection leaving the floor 5e-12 under its wall (the last line of
 * defence's tolerance); with restitution 0; with contacts off; pushed up a 30 degree ramp from
 * its corner or along its floor into it; dropped onto the corner (both gaps reached together,
 * plastic: the floor closes at rest, the ramp, pressed by nothing, does not) */
static const config CONFIGS[] = {
    {"ball dopri5 e=0.8", 0, "dopri5", 0.8, 1.5, 0.0, 1, 0, 0, 0, {FE_MASS, FE_POT, FE_GAP, FE_MON}, 4, 0, 0, 0, 0, 0},
    {"ball dopri5 e=0.3", 0, "dopri5", 0.3, 2.3, 0.0, 1, 0, 0, 0, {FE_MASS, FE_GAP, FE_MON}, 3, 0, 0, 0, 0, 0},
    {"ball rk4 e=0.3", 0, "rk4", 0.3, 2.3, 0.0, 1, 0, 0, 0, {FE_MASS, FE_GAP}, 2, 0, 0, 0, 0, 0},
    {"ball gonzalez e=0.3", 0, "gonzalez", 0.3, 2.3, 0.0, 0, 0, 0, 0, {FE_MASS, FE_GAP}, 2, 0, 0, 0, 0, 0},
    {"ball exact e=0.8", 0, "exact", 0.8, 1.5, 0.05, 1, 0, 0, 0, {FE_FLOW, FE_GAP, FE_MON}, 3, 0, 0, 0, 0, 0},
    {"ball dopri5 lifted", 0, "dopri5", 0.3, 1.8, 0.0, 0, 0, 6.54, 0, {FE_GAP, FE_FORCE}, 2, 0, 0, 0, 0, 0},
    {"ball dopri5 ceiling", 0, "dopri5", 0.9, 1.5, 0.0, 1, 1.02, 0, 0, {FE_GAP, FE_MON}, 2, 0, 0, 0, 0, 0},
    {"ap ball dopri5 e=0.3", 1, "dopri5", 0.3, 2.3, 0.0, 1, 0, 0, 0, {FE_HAM, FE_POI, FE_GAP, FE_MON, FE_PROJ}, 5, 0, 0, 0, 0, 0},
    {"ap ball gonzalez e=0.3", 1, "gonzalez", 0.3, 1.9, 0.0, 0, 0, 0, 0, {FE_HAM, FE_GAP}, 2, 0, 0, 0, 0, 0},
    {"ap ball dopri5 dragged", 1, "dopri5", 0.8, 1.5, 0.0, 0, 0, 0, -5e-12, {FE_GAP}, 1, 0, 0, 0, 0, 0},
    {"ball dopri5 e=0", 0, "dopri5", 0.0, 1.0, 0.0, 0, 0, 0, 0, {FE_MASS, FE_GAP}, 2, 0, 0, 0, 0, 0},
    {"ball dopri5 contacts off", 0, "dopri5", 0.3, 1.5, 0.0, 0, 0, 0, 0, {FE_GAP}, 1, 0, 0, 0, 0, 1},
    {"corner dopri5", 0, "dopri5", 0.5, 0.5, 0.0, 0, 0, 0, 0, {FE_MASS, FE_GAP}, 2, 10.0, 0.5235987755982988, 0.0, 0.0, 0},
    {"slide into ramp dopri5", 0, "dopri5", 0.5, 0.8, 0.0, 0, 0, 0, 0, {FE_MASS, FE_GAP}, 2, 10.0, 0.5235987755982988, -0.5, 0.0, 0},
    {"drop into corner dopri5", 0, "dopri5", 0.0, 0.6, 0.0, 0, 0, 0, 0, {FE_MASS, FE_GAP}, 2, 0.0, 0.5235987755982988, 0.0, 0.5, 0},
};

static int test_failing_evaluators(void) {
  long runs = 0;
  for (size_t c = 0; c < sizeof CONFIGS / sizeof CONFIGS[0]; c++) {
    const long before = runs;
    fault f;
    clean_run cr;
    nh_model *m = config_model(&CONFIGS[c], &f);
    ENSURE(m && clean_run_of(&CONFIGS[c], m, &f, &cr) == 0);
    for (int k = 0; k < CONFIGS[c].nev; k++)
      for (int sgn = -1; sgn <= 1; sgn += 2)
        if (sweep_fail(&CONFIGS[c], m, &f, &cr, CONFIGS[c].evs[k], sgn, &runs)) {
          printf("  in %s, %s failing with %+d\n", CONFIGS[c].name, FE_NAME[CONFIGS[c].evs[k]], sgn);
          return 1;
        }
    printf("  %s: %ld runs with a failing evaluator (clean: %s, %ld impacts)\n", CONFIGS[c].name, runs - before,
           nh_status_name(cr.rc), cr.nimp);
    free(cr.tr.s), free(cr.path.s);
    nh_model_destroy(m);
  }
  return 0;
}

static int test_observer_stops(void) {
  long runs = 0;
  for (size_t c = 0; c < sizeof CONFIGS / sizeof CONFIGS[0]; c++) {
    fault f;
    clean_run cr;
    nh_model *m = config_model(&CONFIGS[c], &f);
    ENSURE(m && clean_run_of(&CONFIGS[c], m, &f, &cr) == 0);
    if (sweep_stop(&CONFIGS[c], m, &f, &cr, &runs)) return 1;
    free(cr.tr.s), free(cr.path.s);
    nh_model_destroy(m);
  }
  printf("  %ld runs stopped by their observer\n", runs);
  return 0;
}

/* ---- event location ---------------------------------------------------------------------- */

/* the time named in a message after "key" (NAN if none) */
static double msg_time(const char *msg, const char *key) {
  const char *p = strstr(msg, key);
  return p ? strtod(p + strlen(key), NULL) : NAN;
}

static nh_sim *ball_sim(const nh_model *m, const char *method, double h, double event_tol) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  if (event_tol > 0.0) d.event_tol = event_tol;
  return nh_sim_create(m, &d, NULL, 0);
}

/* A location that cannot meet its tolerance (event_tol below the spacing of doubles: the
 * bracket stops shrinking at adjacent doubles) ends with NH_ERR_EVENT after NH_EVENT_MAX_ITER
 * iterations, the gap and the crossing's time named; the state left is the last accepted step
 * before the floor's first impact t1 = sqrt(2 / g), above the floor, nothing logged. */
static int test_location_not_converging(void) {
  fault f = {.g = G, .wall = 2.0};
  nh_model *m = fault_ball(&f, 0.8, 0, 0, 0);
  nh_sim *s = ball_sim(m, "dopri5", 1e-3, 1e-300);
  ENSURE(m && s);
  const double t1 = sqrt(2.0 / G);
  const int rc = nh_sim_run(s, 1.0, 0, NULL, NULL);
  const char *msg = nh_sim_message(s);
  printf("  %s: %s (t = %.17g, y = %g)\n", nh_status_name(rc), msg, nh_sim_time(s), nh_sim_q(s)[1]);
  ENSURE(rc == NH_ERR_EVENT && strstr(msg, "event location on 'floor' did not converge near t = ") == msg);
  ENSURE_NEAR(msg_time(msg, "near t = "), t1, 1e-9);
  // the last accepted step's end, on the free fall (dopri5 is exact on a parabola)
  const double t = nh_sim_time(s), *q = nh_sim_q(s);
  ENSURE(t > 0.0 && t < t1 && nh_sim_get_stats(s)->steps > 0);
  ENSURE_NEAR(q[0], t, 1e-14);
  ENSURE_NEAR(q[1], 1.0 - 0.5 * G * t * t, 1e-14);
  ENSURE(nh_sim_impact_count(s) == 0 && nh_sim_get_stats(s)->events_located == 1);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* NH_EVENT_RELOCATE_MAX: a particle falling at unit speed through K gaps that cross one after
 * the other inside its first step, each steep before its zero and gentle after it in
 * proportions that make the linear root of every sample or located state name the latest of
 * the gaps already crossed, not the earliest: each re-location moves one crossing back, and
 * after NH_EVENT_RELOCATE_MAX (64) of them the run ends with NH_ERR_EVENT naming the two gaps
 * still crossing in turn (a smooth model of so many ordered crossings in one step is the
 * only way to the guard). Gap i = 1..K (c_i = 0.05 + 1e-4 i, s = 1 - y the distance fallen):
 * R^(K - i) (c_i - s) before its zero, R^K (c_i - s) after, R = 2.5: at a state past c_j the
 * linear root fraction of gap i < j, a / (a - b) ~ R^(K-i) c_i / (R^K (s - c_i)), is smallest
 * for the latest, i = j - 1. */
#define RELOC_K 66
#define RELOC_R 2.5
#define RELOC_EVERY 151 /* the calls of the gap evaluator made to fail */
static int reloc_mass(const double *q, double *M, void *u) {
  (void)q, (void)u;
  M[0] = 1.0;
  return 0;
}
static long reloc_calls, reloc_fail_at; /* the gap evaluator fails (-1) at call reloc_fail_at */
static int reloc_gap(const double *q, double *g, double *dg, void *u) {
  (void)u;
  if (++reloc_calls == reloc_fail_at) return -1;
  const double s = 1.0 - q[0];
  for (int i = 0; i < RELOC_K; i++) {
    const double c = 0.05 + 1e-4 * (i + 1), k = pow(RELOC_R, s < c ? RELOC_K - 1 - i : RELOC_K);
    if (g) g[i] = k * (c - s);
    if (dg) dg[i] = k; /* dg/dy = -dg/ds */
  }
  return 0;
}
static int test_relocation_guard(void) {
  double y0 = 1.0, v0 = -1.0;
  nh_model_def d = nh_model_def_default();
  const char *names[] = {"y"};
  d.name = "reloc", d.nq = 1, d.ngap = RELOC_K, d.coord_names = names, d.q0 = &y0, d.v0 = &v0;
  d.mass = reloc_mass, d.gap = reloc_gap;
  char msg[256];
  nh_model *m = nh_model_create(&d, msg, sizeof msg);
  ENSURE(m);
  nh_sim *s = ball_sim(m, "rk4", 0.5, 0.0);
  ENSURE(s);
  reloc_calls = 0;
  const int rc = nh_sim_run(s, 1.0, 0, NULL, NULL);
  const char *e = nh_sim_message(s);
  printf("  %s: %s (located %ld)\n", nh_status_name(rc), e, nh_sim_get_stats(s)->events_located);
  ENSURE(rc == NH_ERR_EVENT);
  // the first located crossing was the latest gap's (g66), then g65, ...: after 64 of them g2
  // and g1 are left
  ENSURE(strstr(e, "event location: gaps 'g2' and 'g1' still cross in turn after 64 re-locations near t = ") == e);
  ENSURE_NEAR(msg_time(e, "near t = "), 0.05 + 2e-4, 1e-12);
  ENSURE(nh_sim_time(s) == 0.0 && nh_sim_q(s)[0] == 1.0 && nh_sim_impact_count(s) == 0);
  ENSURE(nh_sim_get_stats(s)->events_located == 65); /* the first location and 64 more */
  nh_sim_destroy(s);
  // the gap evaluator failing in any of those locations (every RELOC_EVERY-th call): the run
  // ends there, named, at its start
  const long calls = reloc_calls;
  for (reloc_fail_at = 1; reloc_fail_at <= calls; reloc_fail_at += RELOC_EVERY) {
    ENSURE((s = ball_sim(m, "rk4", 0.5, 0.0)));
    reloc_calls = 0;
    ENSURE(nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_ERR_CALLBACK);
    // (the step's end: "gap evaluator failed at t = 0.5"; inside the locations: "the gap
    // evaluator failed near t = 0 (...)")
    ENSURE(strstr(nh_sim_message(s), "gap evaluator failed ") && strstr(nh_sim_message(s), "t = "));
    ENSURE(nh_sim_time(s) == 0.0 && nh_sim_q(s)[0] == 1.0 && nh_sim_impact_count(s) == 0);
    nh_sim_destroy(s);
  }
  reloc_fail_at = 0;
  nh_model_destroy(m);
  return 0;
}

/* ---- the closed-form flow's event predictor -------------------------------------------------- */

/* The exact method steps straight to the predicted impact: at t1 = sqrt(2 / g) to rounding.
 * A predictor that fails ends the run (NH_ERR_CALLBACK), one that answers a time outside
 * (0, h] (2 h, 0) or a gap that does not exist (7, -1) is refused (NH_ERR_EVENT), each at the
 * start, named;
 * one that misses the floor lets the flow step through it, which the last line of defence
 * stops (NH_ERR_PENETRATION) without retrying (a shorter step of the flow is the same flow):
 * the state left is the start, the gap and the step's end named. */
static int test_predictor(void) {
  fault f = {.g = G, .wall = 2.0};
  nh_model *m = fault_ball(&f, 0.8, 0, 1, 1);
  ENSURE(m);
  const double t1 = sqrt(2.0 / G);
  nh_sim *s = ball_sim(m, "exact", 1e-3, 0.0);
  nh_impact_record r;
  ENSURE(s && nh_sim_run(s, 0.5, 0, NULL, NULL) == NH_OK && nh_sim_impact_count(s) == 1);
  ENSURE(nh_sim_impact_get(s, 0, &r) == NH_OK && r.gap == 0);
  ENSURE_NEAR(r.t, t1, 4e-16);
  nh_sim_destroy(s);
  static const struct {
    int mode, fail, rc;
    const char *msg;
  } cases[] = {{0, 1, NH_ERR_CALLBACK, "event predictor failed at t = 0"},
               {2, 0, NH_ERR_EVENT, "event predictor returned tau = 1, gap 0 outside (0, 0.5]"},
               {3, 0, NH_ERR_EVENT, "outside (0, 0.5]"},
               {4, 0, NH_ERR_EVENT, "event predictor returned tau = 0, gap 0 outside (0, 0.5]"},
               {5, 0, NH_ERR_EVENT, ", gap -1 outside (0, 0.5]"},
               {1, 0, NH_ERR_PENETRATION, "gap 'floor' is 0.226 past its wall at t = 0.5 (the closed-form flow's event "
                                          "predictor did not report it)"}};
  for (int k = 0; k < 6; k++) {
    f.predict_mode = cases[k].mode, f.fail_rc = -1, f.fail_at[FE_PRED] = cases[k].fail ? f.calls[FE_PRED] + 1 : 0;
    ENSURE((s = ball_sim(m, "exact", 1e-3, 0.0)));
    const int rc = nh_sim_run(s, 0.5, 0, NULL, NULL);
    printf("  predictor case %d: %s: %s\n", k, nh_status_name(rc), nh_sim_message(s));
    ENSURE(rc == cases[k].rc && strstr(nh_sim_message(s), cases[k].msg));
    if (cases[k].mode == 3) ENSURE(strstr(nh_sim_message(s), "gap 7"));
    // nothing was accepted: the start, no step, no retry
    ENSURE(nh_sim_time(s) == 0.0 && nh_sim_q(s)[1] == 1.0 && nh_sim_get_stats(s)->steps == 0);
    ENSURE(nh_sim_get_stats(s)->rejected == 0 && nh_sim_impact_count(s) == 0);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  return 0;
}

/* ---- the last line of defence (NH_PENETRATION_REL) ----------------------------------------- */

/* A projection (almost-Poisson form) that drags any state below y = 0.5 to y = -0.25, through
 * the floor: each step whose end falls below 0.5 is taken again a quarter as long; one whose
 * quarter still ends above 0.5 is accepted, so the ball creeps down to 0.5 until a step of
 * h / 4^8 (NH_PENETRATION_RETRY) from it crosses, and the run ends with NH_ERR_PENETRATION
 * naming the floor, the depth 0.25 and the tries. No accepted state is through the floor: the
 * ball is left above 0.5, within the flight of the last try. */
static int test_projection_through_floor(void) {
  fault f = {.g = G, .wall = 2.0, .drag_below = 0.5, .drag_to = -0.25};
  nh_model *m = fault_ball_ap(&f, 0.8, 0);
  const double h = 1e-3;
  nh_sim *s = ball_sim(m, "rk4", h, 0.0);
  ENSURE(m && s);
  ENSURE(nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_ERR_PENETRATION);
  const char *msg = nh_sim_message(s);
  printf("  %s\n", msg);
  ENSURE(strstr(msg, "gap 'floor' is 0.25 past its wall at t = ") == msg);
  ENSURE(strstr(msg, "(in 9 tries of the step, the last with h = 1.52588e-08)"));
  const double *x = nh_sim_x(s), hl = h / 65536.0, t = nh_sim_time(s);
  ENSURE(x[1] >= 0.5 && x[1] - 0.5 < -x[3] * hl + 0.5 * G * hl * hl);
  ENSURE_NEAR(t, sqrt(2.0 * 0.5 / G), 1e-6); /* the free fall's time to y = 0.5 */
  ENSURE(nh_sim_get_stats(s)->rejected >= 8 && nh_sim_impact_count(s) == 0);
  ENSURE_NEAR(msg_time(msg, "at t = "), t + hl, 1e-15);
  nh_sim_destroy(s);
  // the tries stop at h_min (1e-4: the second try, h = 2.5e-4, is the last above it)
  nh_sim_def dm = nh_sim_def_default();
  dm.method = nh_method_find("rk4"), dm.h = h, dm.h_min = 1e-4;
  ENSURE((s = nh_sim_create(m, &dm, NULL, 0)) && nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_ERR_PENETRATION);
  ENSURE(strstr(nh_sim_message(s), "(in 2 tries of the step, the last with h = 0.00025)"));
  ENSURE(nh_sim_q(s)[1] >= 0.5);
  nh_sim_destroy(s);
  // a projection within the tolerance (a state left 5e-12 below the floor at each impact):
  // accepted, the floor resting at that depth, which max_event_gap reports; the ball bounces
  // as without it
  f.drag_below = 1e-6, f.drag_to = -5e-12;
  ENSURE((s = ball_sim(m, "dopri5", h, 0.0)));
  ENSURE(nh_sim_run(s, 2.0, 0, NULL, NULL) == NH_OK);
  const long nimp = nh_sim_impact_count(s);
  ENSURE(nimp >= 2 && nh_sim_get_stats(s)->max_event_gap == 5e-12);
  nh_sim_destroy(s);
  f.drag_below = 0.0;
  ENSURE((s = ball_sim(m, "dopri5", h, 0.0)));
  ENSURE(nh_sim_run(s, 2.0, 0, NULL, NULL) == NH_OK && nh_sim_impact_count(s) == nimp);
  ENSURE(nh_sim_get_stats(s)->max_event_gap < 1e-14);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* the observer that moves the wall to x = 1.5 at the impact on it (a model changing under the
 * run, which nothing else can do to a state at an impact) */
static int move_wall(const nh_sim *s, nh_sample_kind kind, double t, const double *q, const double *v, void *u) {
  (void)s, (void)t, (void)v;
  fault *f = u;
  if (kind == NH_SAMPLE_IMPACT_AFTER && q[0] > 1.9) f->wall = 1.5;
  return 0;
}

/* After an impact with a contact held, the open gaps are checked again at the state the
 * impact leaves (the held contacts projected): the ball (e = 0.3) comes to rest on the floor,
 * whose contact closes, and slides at x' = 1 into the wall at x = 2 (t = 2); the wall moved
 * to x = 1.5 at that impact is found 0.5 past at t = 2 "after an impact", with that impact
 * logged and the ball left where it was. */
static int test_penetration_after_impact(void) {
  fault f = {.g = G, .wall = 2.0};
  nh_model *m = fault_ball(&f, 0.3, 0, 0, 0);
  nh_sim *s = ball_sim(m, "dopri5", 1e-3, 0.0);
  ENSURE(m && s);
  ENSURE(nh_sim_run(s, 3.0, 0, move_wall, &f) == NH_ERR_PENETRATION);
  const char *msg = nh_sim_message(s);
  printf("  %s\n", msg);
  ENSURE(strstr(msg, "gap 'wall' is 0.5 past its wall at t = ") == msg && strstr(msg, "(after an impact)"));
  ENSURE_NEAR(msg_time(msg, "at t = "), 2.0, 1e-9);
  ENSURE_NEAR(nh_sim_time(s), 2.0, 1e-9);
  ENSURE_NEAR(nh_sim_q(s)[0], 2.0, 1e-9);
  nh_impact_record r;
  // the impact on the wall beside the held floor: one simultaneous record of both
  ENSURE(nh_sim_impact_get(s, nh_sim_impact_count(s) - 1, &r) == NH_OK && r.t == nh_sim_time(s));
  ENSURE(r.contacts == 2 && r.contact_gap[0] == 0 && r.contact_gap[1] == 1);
  ENSURE(nh_sim_contact_closed(s, 0));
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* ---- the step itself ----------------------------------------------------------------------- */

/* a particle in the plane held by A(q) = [y, 0] (y x' = 0), falling at unit speed: the
 * constraint's row loses its rank at y = 0 */
static int lr_mass(const double *q, double *M, void *u) {
  (void)q, (void)u;
  M[0] = 1, M[1] = 0, M[2] = 0, M[3] = 1;
  return 0;
}
static int lr_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  (void)u;
  if (A) A[0] = q[1], A[1] = 0.0;
  if (Adv) Adv[0] = v[1] * v[0];
  return 0;
}

static nh_sim *fault_sim(nh_model *m, const char *method, double h, double h_min) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  if (h_min > 0.0) d.h_min = h_min;
  return nh_sim_create(m, &d, NULL, 0);
}

/* The step's own exits (step_retry), each with its status, message and the state left:
 *   - an explicit method's dynamics singular where the constraint rows lose rank (rk4 at
 *     h = 1/8 lands a stage on y = 0 exactly): NH_ERR_SINGULAR naming G = A M^-1 A^T, at the
 *     step from t = 0.875;
 *   - a step refused (positive) and its shorter retry failing: the failure with both steps;
 *   - a model refusing every state: a fixed-step method quarters its step down to h_min
 *     (NH_ERR_NONFINITE, "step size underflow"), an adaptive one until NH_STEP_MAX_RETRY
 *     tries (h_min 1e-300: NH_ERR_STEP_UNDERFLOW);
 *   - an implicit fixed-step method whose Newton iteration never converges (rdp, one
 *     iteration to 1e-300): its step quarters until 4 h_min, or, h_min 1e-300,
 *     NH_STEP_MAX_RETRY tries: NH_ERR_NO_CONVERGENCE with both step sizes;
 *   - h_max below h caps the fixed step. */
static int test_step_failures(void) {
  // the rank loss
  double q0[2] = {0, 1}, v0[2] = {0, -1};
  nh_model_def md = nh_model_def_default();
  md.name = "rankloss", md.nq = 2, md.nc = 1, md.coord_names = fb_coords, md.q0 = q0, md.v0 = v0;
  md.mass = lr_mass, md.constraint = lr_constraint;
  nh_model *m = nh_model_create(&md, NULL, 0);
  nh_sim *s = m ? fault_sim(m, "rk4", 0.125, 0.0) : NULL;
  ENSURE(m && s);
  ENSURE(nh_sim_run(s, 2.0, 0, NULL, NULL) == NH_ERR_SINGULAR);
  ENSURE(!strcmp(nh_sim_message(s), "step at t = 0.875 with h = 0.125 failed: singular matrix (G = A M^-1 A^T: the "
                                    "constraint rows lose rank here, a singular configuration of the model)"));
  ENSURE(nh_sim_time(s) == 0.875 && nh_sim_q(s)[1] == 0.125 && nh_sim_get_stats(s)->steps == 7);
  nh_sim_destroy(s);
  nh_model_destroy(m);

  fault f = {.g = G, .wall = 2.0};
  ENSURE((m = fault_ball(&f, 0.8, 0, 0, 0)));
  // refused, then failing: dopri5's first stage
  ENSURE((s = fault_sim(m, "dopri5", 1e-3, 0.0)));
  f.fail_at[FE_MASS] = f.calls[FE_MASS] + 1, f.fail_rc = 1, f.fail_rc2 = -1;
  ENSURE(nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_ERR_CALLBACK);
  ENSURE(!strcmp(nh_sim_message(s), "step at t = 0 with h = 0.001 failed: a model evaluator reported a failure "
                                    "(also in steps down to h = 0.00025)"));
  ENSURE(nh_sim_time(s) == 0.0 && nh_sim_get_stats(s)->rejected == 1);
  nh_sim_destroy(s);
  f.fail_rc2 = 0;
  // every state refused
  // (a quarter per try: rk4 below h_min = 1e-14 after 19, 1e-3 / 4^19 = 3.6e-15; dopri5 with
  // h_min 1e-300 stops after NH_STEP_MAX_RETRY + 1 = 61)
  static const struct {
    const char *method;
    double h_min;
    int rc;
    long rejected;
  } refusing[] = {{"rk4", 0.0, NH_ERR_NONFINITE, 19}, {"dopri5", 1e-300, NH_ERR_STEP_UNDERFLOW, 61}};
  for (int k = 0; k < 2; k++) {
    char want[128];
    snprintf(want, sizeof want, "step size underflow at t = 0 (h = %g)", 1e-3 * pow(0.25, (double)refusing[k].rejected));
    ENSURE((s = fault_sim(m, refusing[k].method, 1e-3, refusing[k].h_min)));
    f.fail_at[FE_MASS] = f.calls[FE_MASS] + 1, f.fail_rc = 1, f.sticky = 1;
    const int rc = nh_sim_run(s, 1.0, 0, NULL, NULL);
    f.sticky = 0, f.fail_at[FE_MASS] = 0;
    printf("  every state refused, %s: %s, %s (%ld rejected)\n", refusing[k].method, nh_status_name(rc), nh_sim_message(s),
           nh_sim_get_stats(s)->rejected);
    ENSURE(rc == refusing[k].rc && !strcmp(nh_sim_message(s), want));
    ENSURE(nh_sim_time(s) == 0.0 && nh_sim_get_stats(s)->rejected == refusing[k].rejected);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  // Newton never converging (rdp on the snakeboard: the other implicit methods accept a
  // residual at their rounding)
  const nh_snakeboard_params sp = nh_snakeboard_params_default();
  ENSURE((m = nh_snakeboard_create(&sp, NULL, 0)));
  for (int k = 0; k < 2; k++) {
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find("rdp");
    d.opts.newton_max_iter = 1, d.opts.newton_tol = 1e-300;
    if (k) d.h_min = 1e-300;
    ENSURE((s = nh_sim_create(m, &d, NULL, 0)));
    const int rc = nh_sim_run(s, 1.0, 0, NULL, NULL);
    printf("  no convergence, h_min %g: %s, %s (%ld rejected)\n", d.h_min, nh_status_name(rc), nh_sim_message(s),
           nh_sim_get_stats(s)->rejected);
    // quarters while h >= 4 h_min: 18 of them (1e-3 / 4^18 = 1.5e-14); or 60 tries
    const long quarters = k ? 60 : 18;
    char want[160];
    snprintf(want, sizeof want, "step at t = 0 with h = 0.001 failed: iterative solver did not converge (also in steps "
                                "down to h = %g)", 1e-3 * pow(0.25, (double)quarters));
    ENSURE(rc == NH_ERR_NO_CONVERGENCE && nh_sim_time(s) == 0.0 && !strcmp(nh_sim_message(s), want));
    ENSURE(nh_sim_get_stats(s)->rejected == quarters);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  // h_max caps the step: 100 steps of 1e-3 to t = 0.1
  ENSURE((m = fault_ball(&f, 0.8, 0, 0, 0)));
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("rk4"), d.h = 0.01, d.h_max = 1e-3;
  ENSURE((s = nh_sim_create(m, &d, NULL, 0)) && nh_sim_run(s, 0.1, 0, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_get_stats(s)->steps == 100 && nh_sim_time(s) == 0.1);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* a point moving at unit speed with a monitor sin(10 x) counted both ways */
static int osc_rhs(double t, const double *x, double *xd, void *u) {
  (void)t, (void)x, (void)u;
  xd[0] = 1.0;
  return 0;
}
static int osc_monitor(double t, const double *x, double *m, void *u) {
  (void)t, (void)u;
  m[0] = sin(10.0 * x[0]);
  return 0;
}

/* The interface's small exits: nh_sim_step and nh_sim_run refuse a NULL simulation and times
 * before the state's (NH_ERR_ARG), a step to the current time does nothing (NH_OK); the
 * event log grows past its first room (16): a monitor crossing zero every pi / 10 logs 31
 * events in 10 s, at x = k pi / 10, alternating falling and rising. */
static int test_small_exits(void) {
  fault f = {.g = G, .wall = 2.0};
  nh_model *m = fault_ball(&f, 0.8, 0, 0, 0);
  nh_sim *s = fault_sim(m, "dopri5", 1e-3, 0.0);
  int imp = 7;
  ENSURE(m && s);
  ENSURE(nh_sim_step(NULL, 1.0, &imp) == NH_ERR_ARG && nh_sim_step(s, NAN, &imp) == NH_ERR_ARG);
  ENSURE(nh_sim_step(s, 0.0, &imp) == NH_OK && imp == 0 && nh_sim_get_stats(s)->steps == 0);
  ENSURE(nh_sim_step(s, 0.5, NULL) == NH_OK && nh_sim_get_stats(s)->steps == 1);
  const double t = nh_sim_time(s);
  ENSURE(nh_sim_run(NULL, 1.0, 0, NULL, NULL) == NH_ERR_ARG && nh_sim_run(s, t / 2, 0, NULL, NULL) == NH_ERR_ARG);
  ENSURE(nh_sim_run(s, 1.0, -1, NULL, NULL) == NH_ERR_ARG && nh_sim_time(s) == t);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  // many events
  static const nh_monitor_def mon = {"wave", NH_MONITOR_BOTH, NH_MONITOR_REPORT};
  double x0 = 1e-3;
  nh_model_def md = nh_model_def_default();
  md.name = "osc", md.form = NH_FORM_ODE, md.nx = 1, md.x0 = &x0, md.rhs = osc_rhs;
  md.nmon = 1, md.monitors = &mon, md.monitor = osc_monitor;
  ENSURE((m = nh_model_create(&md, NULL, 0)) && (s = fault_sim(m, "dopri5", 1e-3, 0.0)));
  ENSURE(nh_sim_run(s, 10.0 + x0, 0, NULL, NULL) == NH_OK && nh_sim_event_count(s) == 31);
  for (long k = 0; k < 31; k++) {
    nh_event_record e;
    ENSURE(nh_sim_event_get(s, k, &e) == NH_OK && e.direction == (k % 2 ? 1 : -1));
    ENSURE_NEAR(e.x[0], (k + 1) * 0.31415926535897932, 1e-12); /* (k + 1) pi / 10 */
  }
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* ---- the almost-Poisson impact's own check -------------------------------------------------- */

/* a ball whose H is quartic in its vertical momentum, H = px^2 / 2 + py^4 / 4 + g y */
static int q4_ham(const double *x, double *H, double *dH, void *u) {
  (void)u;
  if (H) *H = 0.5 * x[2] * x[2] + 0.25 * x[3] * x[3] * x[3] * x[3] + G * x[1];
  if (dH) dH[0] = 0, dH[1] = G, dH[2] = x[2], dH[3] = x[3] * x[3] * x[3];
  return 0;
}

/* The jump of an almost-Poisson impact is along d = Pi dg by an amount computed for an H
 * quadratic along d; where it is not, the law is missed and the run ends at the impact with
 * NH_ERR_UNSUPPORTED, the rates before, after and wanted in the message, nothing logged, the
 * state the located one (on the floor, the momentum before the jump). */
static int test_ap_law_missed(void) {
  static const char *const names[] = {"x", "y", "px", "py"};
  nh_impact_law law[2] = {{NH_IMPACT_RESTITUTION, 0.5}, {NH_IMPACT_RESTITUTION, 0.5}};
  double x0[4] = {0, 1, 1, 0};
  fault f = {.g = G, .wall = 10.0};
  nh_model_def d = nh_model_def_default();
  d.name = "quartic", d.form = NH_FORM_ODE, d.nx = 4, d.ngap = 2, d.state_names = names, d.gap_names = fb_gaps;
  d.impact = law, d.x0 = x0, d.hamiltonian = q4_ham, d.poisson = fb_poisson, d.gap = fb_gap_ap, d.user = &f;
  nh_model *m = nh_model_create(&d, NULL, 0);
  nh_sim *s = m ? fault_sim(m, "dopri5", 1e-3, 0.0) : NULL;
  ENSURE(m && s);
  const int rc = nh_sim_run(s, 5.0, 0, NULL, NULL);
  const char *msg = nh_sim_message(s);
  printf("  %s: %s\n", nh_status_name(rc), msg);
  ENSURE(rc == NH_ERR_UNSUPPORTED && strstr(msg, "impact on 'floor' at t = ") == msg);
  ENSURE(strstr(msg, ": the jump along d = Pi dg misses its law (rate "));
  ENSURE(strstr(msg, "H is not quadratic along d, or d changes with the jump (NH_AP_QUADRATIC_TOL = "));
  const double *x = nh_sim_x(s);
  ENSURE(fabs(x[1]) <= 1e-12 && x[3] < 0.0 && nh_sim_impact_count(s) == 0);
  ENSURE_NEAR(msg_time(msg, "at t = "), nh_sim_time(s), 0.0);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_failing_evaluators);
  RUN_TEST(test_observer_stops);
  RUN_TEST(test_location_not_converging);
  RUN_TEST(test_relocation_guard);
  RUN_TEST(test_predictor);
  RUN_TEST(test_projection_through_floor);
  RUN_TEST(test_penetration_after_impact);
  RUN_TEST(test_step_failures);
  RUN_TEST(test_small_exits);
  RUN_TEST(test_ap_law_missed);
  return TEST_SUMMARY();
}
