/* test_summary.c - the run-summary writer (nh_summary_write_json/_text): the mechanical
 * layout on a bouncing ball (closed-form impact times), a chain of two phases with its event
 * log, the callback's places, escaping and bad summaries; nh_summary_build's values, written
 * back as text, are the JSON text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "models.h"
#include "nholo/nholo.h"

#define OUT_MAX 20000

/* what a writer wrote (status in *rc) */
static char *written(int json, const nh_summary *s, int *rc) {
  static char buf[OUT_MAX];
  FILE *f = tmpfile();
  if (!f) return NULL;
  *rc = json ? nh_summary_write_json(f, s) : nh_summary_write_text(f, s);
  rewind(f);
  size_t n = fread(buf, 1, OUT_MAX - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

/* a appears in s, before b (when b is given) */
static int before(const char *s, const char *a, const char *b) {
  const char *pa = strstr(s, a), *pb = b ? strstr(s, b) : NULL;
  return pa && (!b || (pb && pa < pb));
}

static long count(const char *s, const char *what) {
  long n = 0;
  for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
  return n;
}

/* the callback: marks its places, or fails */
static int marks(FILE *f, int json, nh_summary_place at, const nh_summary_event *ev, void *user) {
  const int *fail = user;
  if (*fail) return *fail;
  if (json) {
    if (at == NH_SUMMARY_EVENT_HEAD) nh_json_field_num(f, "head", (double)ev->index);
    else if (at == NH_SUMMARY_EVENT_TAIL) nh_json_field_str(f, "tail", nh_sim_model(ev->sim)->name);
    else fprintf(f, ", \"at%d\": %d", (int)at, (int)at);
  } else if (at == NH_SUMMARY_EVENT_HEAD) {
    fprintf(f, "label%ld", ev->index);
  } else if (at != NH_SUMMARY_EVENT_TAIL) {
    fprintf(f, "at%d\n", (int)at);
  }
  return 0;
}

/* a ball dropped from y0 = 1 (g = 9.81, e = 1/2) to its 7th impact: impact k at t_1 (1 + 2 e
 * + ... + 2 e^(k-1)), t_1 = sqrt(2 y0 / g) */
static int test_mechanical(void) {
  nh_model *m = test_ball_create(0.5, 1.0, 0.0);
  nh_sim_def d = nh_sim_def_default();
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  ENSURE(m && s && nh_sim_run(s, 100.0, 7, NULL, NULL) == NH_OK);
  const nh_sim *ph[1] = {s};
  int fail = 0, rc;
  nh_summary sum = {ph, 1, NULL, "dopri5", NH_OK, 0.25, NH_SUMMARY_MECHANICAL, marks, &fail, NULL};
  const char *j = written(1, &sum, &rc);
  ENSURE(j && rc == NH_OK);
  const char *head = "{\"model\": \"ball\", \"method\": \"dopri5\", \"impact_law\": \"restitution=0.5\", "
                     "\"impact_step\": \"restart\", \"parameters\": {}, \"impacts\": 7, \"t_end\": ";
  ENSURE(strncmp(j, head, strlen(head)) == 0);
  ENSURE(before(j, "\"grazing\": 0", "\"at0\": 0") && before(j, "\"at0\": 0", "\"energy_initial\""));
  ENSURE(before(j, "\"wall_seconds\": 0.25, \"at1\": 1, \"status\": \"NH_OK\", \"message\": \"\"", NULL));
  ENSURE(before(j, "\"final_state\": {\"y\": ", "\"at4\": 4") && before(j, "\"at4\": 4", "\"impact_log\""));
  ENSURE(count(j, "\"surface\": \"floor\"") == 7 && !strstr(j, "\"events\""));
  ENSURE(strcmp(j + strlen(j) - 4, "}]}\n") == 0);
  // the impact times in the log, against the closed form
  const double t1 = sqrt(2.0 / 9.81);
  double tk = t1, gap = 2 * 0.5 * t1;
  const char *p = j;
  for (int k = 0; k < 7; k++, tk += gap, gap *= 0.5) {
    ENSURE((p = strstr(p, "{\"t\": ")) != NULL);
    double t = strtod(p + 6, NULL);
    ENSURE_NEAR(t, tk, 1e-12);
    p++;
  }
  // text: two head lines, the callback's, energies, 5 impacts and the rest counted, status
  const char *x = written(0, &sum, &rc);
  ENSURE(x && rc == NH_OK);
  head = "model ball, method dopri5, impact law restitution=0.5\nt = ";
  ENSURE(strncmp(x, head, strlen(head)) == 0);
  ENSURE(before(x, "7 impacts, ", "s wall\nat0\nenergy ") && before(x, "  impact 5: t = ", "  ... 2 more"));
  ENSURE(!strstr(x, "impact 6") && before(x, "at1\nstatus: NH_OK\nat4\n", NULL));
  // a failing callback stops the writer with its status
  fail = NH_ERR_CALLBACK;
  ENSURE(written(1, &sum, &rc) && rc == NH_ERR_CALLBACK);
  ENSURE(written(0, &sum, &rc) && rc == NH_ERR_CALLBACK);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* the impact stepping in force: del's default (auto) is variational, restart when asked; a
 * method that only restarts says restart */
static int test_impact_step(void) {
  nh_model *m = test_ball_create(0.5, 1.0, 0.0);
  ENSURE(m);
  const char *methods[3] = {"del", "del", "rk4"};
  const int modes[3] = {NH_IMPACT_STEP_AUTO, NH_IMPACT_STEP_RESTART, NH_IMPACT_STEP_AUTO};
  const char *want[3] = {"\"impact_step\": \"variational\", \"parameters\"",
                         "\"impact_step\": \"restart\", \"parameters\"", "\"impact_step\": \"restart\", \"parameters\""};
  for (int i = 0; i < 3; i++) {
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(methods[i]), d.h = 1e-3, d.impact_step = modes[i];
    char msg[256];
    nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
    if (!s) fprintf(stderr, "%s: %s\n", methods[i], msg);
    ENSURE(s != NULL);
    ENSURE(nh_sim_run(s, 1.0, 2, NULL, NULL) == NH_OK);
    const nh_sim *ph[1] = {s};
    nh_summary sum = {ph, 1, NULL, methods[i], NH_OK, 0.0, NH_SUMMARY_MECHANICAL, NULL, NULL, NULL};
    int rc;
    const char *j = written(1, &sum, &rc);
    ENSURE(j && rc == NH_OK);
    ENSURE(before(j, "\"impact_law\": \"restitution=0.5\", ", want[i]) && count(j, "impact_step") == 1);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  return 0;
}

/* ---- a falling particle in ODE form (x, u) with a stopping monitor at x = 0 ----------------- */

static int fall_rhs(double t, const double *x, double *xd, void *user) {
  (void)t, (void)user;
  xd[0] = x[1], xd[1] = -1.0;
  return 0;
}
static int fall_monitor(double t, const double *x, double *mv, void *user) {
  (void)t, (void)user;
  mv[0] = x[0];
  return 0;
}
static int rebound(int from, const nh_sim *sim, int *to, double *t, double *x, void *user) {
  (void)from, (void)sim, (void)t, (void)user;
  x[1] = -0.5 * x[1];
  *to = 1;
  return 0;
}

/* two phases: the floor at t1 = sqrt 2 switches (not a stop of the run), the second ends it */
static int test_chain_events(void) {
  static const char *names[] = {"x", "u"};
  const double x0[2] = {1.0, 0.0};
  nh_monitor_def mon = {"floor", NH_MONITOR_FALLING, NH_MONITOR_STOP};
  nh_model_def md = nh_model_def_default();
  md.name = "a\"b\\c";
  md.form = NH_FORM_ODE;
  md.nx = 2, md.state_names = names, md.x0 = x0, md.rhs = fall_rhs;
  md.nmon = 1, md.monitors = &mon, md.monitor = fall_monitor;
  nh_model *m = nh_model_create(&md, NULL, 0);
  nh_sim_def d = nh_sim_def_default();
  nh_sim *a = nh_sim_create(m, &d, NULL, 0), *b = nh_sim_create(m, &d, NULL, 0);
  ENSURE(m && a && b);
  nh_sim *const ph[2] = {a, b};
  nh_chain c = {ph, 2, NULL, 0, 0, 1, rebound, NULL};
  int last, rc;
  ENSURE(nh_chain_run(&c, 0, 10.0, NULL, NULL, &last) == NH_EVENT_STOP && last == 1);
  const double t2 = sqrt(2.0) * 2.0; /* rebound at u = sqrt(2)/2: airborne sqrt 2 more */
  ENSURE_NEAR(nh_sim_time(b), t2, 1e-10);
  static const char *const phase_names[2] = {"one", "two"};
  const nh_sim *ran[2] = {a, b};
  int fail = 0;
  nh_summary sum = {ran, 2, phase_names, "dopri5", NH_EVENT_STOP, NAN, NH_SUMMARY_EVENTS, marks, &fail, NULL};
  const char *j = written(1, &sum, &rc);
  ENSURE(j && rc == NH_OK);
  char head[200];
  snprintf(head, sizeof head, "{\"model\": \"a\\\"b\\\\c\", \"method\": \"dopri5\", \"t_end\": %.17g, \"steps\": %ld,",
           nh_sim_time(b), nh_sim_get_stats(a)->steps + nh_sim_get_stats(b)->steps);
  ENSURE(strncmp(j, head, strlen(head)) == 0);
  ENSURE(before(j, "\"wall_seconds\": null, \"at1\": 1, \"status\": \"NH_EVENT_STOP\", \"message\": \"monitor 'floor'", NULL));
  ENSURE(before(j, "\"head\": 0, \"monitor\": \"floor\", \"phase\": \"one\", \"direction\": \"falling\", \"stopped\": true, "
                   "\"tail\": \"a\\\"b\\\\c\"}, {\"t\": ", "\"head\": 1, \"monitor\": \"floor\", \"phase\": \"two\""));
  ENSURE(before(j, "], \"final\": {\"x\": ", "\"at4\": 4}\n") && !strstr(j, "impact"));
  ENSURE(count(j, "\"stopped\": true") == 2);
  // text: the switch's stop did not stop the run, the last one did
  const char *x = written(0, &sum, &rc);
  ENSURE(x && rc == NH_OK);
  char line[120];
  snprintf(line, sizeof line, "  event: label0 at t = %.10g\n  event: label1 at t = %.10g (run stopped)\nat1\nstatus: ",
           nh_sim_time(a), nh_sim_time(b));
  ENSURE(before(x, "model a\"b\\c, method dopri5: t = ", "at0\n") && before(x, "at0\n", line));
  // without a callback the label is the monitor's name
  sum.extra = NULL;
  x = written(0, &sum, &rc);
  ENSURE(x && rc == NH_OK && before(x, "  event: floor at t = ", "(run stopped)\nstatus: NH_EVENT_STOP: "));
  // bad summaries
  sum.nphases = 0;
  ENSURE(written(1, &sum, &rc) && rc == NH_ERR_ARG);
  sum.nphases = 2, sum.method = NULL;
  ENSURE(written(0, &sum, &rc) && rc == NH_ERR_ARG);
  ENSURE(nh_summary_write_json(stdout, NULL) == NH_ERR_ARG);
  nh_sim_destroy(a), nh_sim_destroy(b);
  nh_model_destroy(m);
  return 0;
}

/* ---- nh_summary_build: a sink that writes the values back as JSON text ------------------- */

#define ECHO_DEPTH 16
typedef struct echo {
  FILE *f;
  int depth;
  long items[ECHO_DEPTH];
  char kind[ECHO_DEPTH];
  long calls, fail_at; /* the callback numbered fail_at (from 1) fails with NH_ERR_CALLBACK */
  int *fail;           /* the marks callback's */
} echo;

static int echo_lead(echo *e, const char *key) {
  if (++e->calls == e->fail_at) return NH_ERR_CALLBACK;
  if (e->depth > 0 && e->items[e->depth - 1]++ > 0) fputs(", ", e->f);
  if (key) nh_json_str(e->f, key), fputs(": ", e->f);
  return 0;
}
static int echo_open(void *user, const char *key, int array) {
  echo *e = user;
  if (e->depth == ECHO_DEPTH || echo_lead(e, key)) return NH_ERR_CALLBACK;
  fputc(array ? '[' : '{', e->f);
  e->kind[e->depth] = array ? ']' : '}', e->items[e->depth++] = 0;
  return 0;
}
static int echo_close(void *user) {
  echo *e = user;
  if (e->depth == 0) return NH_ERR_CALLBACK;
  fputc(e->kind[--e->depth], e->f);
  return 0;
}
static int echo_num(void *user, const char *key, double x) {
  return echo_lead(user, key) ? NH_ERR_CALLBACK : (nh_json_num(((echo *)user)->f, x), 0);
}
static int echo_int(void *user, const char *key, long x) {
  return echo_lead(user, key) ? NH_ERR_CALLBACK : (fprintf(((echo *)user)->f, "%ld", x), 0);
}
static int echo_str(void *user, const char *key, const char *s) {
  return echo_lead(user, key) ? NH_ERR_CALLBACK : (nh_json_str(((echo *)user)->f, s), 0);
}
static int echo_bool(void *user, const char *key, int b) {
  return echo_lead(user, key) ? NH_ERR_CALLBACK : (fputs(b ? "true" : "false", ((echo *)user)->f), 0);
}
/* the fields the marks callback adds to the text, at the same places */
static int echo_place(void *user, nh_summary_place at, const nh_summary_event *ev) {
  echo *e = user;
  return marks(e->f, 1, at, ev, e->fail);
}
static const nh_summary_sink echo_sink = {echo_open, echo_close, echo_num, echo_int, echo_str, echo_bool, echo_place};

/* the sink's values written back as text (status in *rc); fail_at as in echo */
static char *echoed(const nh_summary *s, long fail_at, int *rc) {
  static char buf[OUT_MAX];
  echo e;
  memset(&e, 0, sizeof e);
  e.f = tmpfile(), e.fail_at = fail_at, e.fail = s->user;
  if (!e.f) return NULL;
  *rc = nh_summary_build(s, &echo_sink, &e);
  fputc('\n', e.f);
  rewind(e.f);
  size_t n = fread(buf, 1, OUT_MAX - 1, e.f);
  buf[n] = 0;
  fclose(e.f);
  return e.depth == 0 || *rc < 0 ? buf : NULL;
}

/* The sink sees the text's values in the text's order: written back as JSON they are the text
 * byte for byte (the ball's impact log, the chain's events with the callback's fields at
 * their places); a failing callback stops the build with its status; a bad sink or summary is
 * refused. */
static int test_build(void) {
  nh_model *ball = test_ball_create(0.5, 1.0, 0.0);
  nh_sim_def d = nh_sim_def_default();
  nh_sim *s = nh_sim_create(ball, &d, NULL, 0);
  ENSURE(ball && s && nh_sim_run(s, 100.0, 7, NULL, NULL) == NH_OK);
  const nh_sim *ph[1] = {s};
  int fail = 0, rc, rc2;
  nh_summary sum = {ph, 1, NULL, "dopri5", NH_OK, 0.25, NH_SUMMARY_MECHANICAL | NH_SUMMARY_EVENTS, marks, &fail, NULL};
  char text[OUT_MAX];
  snprintf(text, sizeof text, "%s", written(1, &sum, &rc));
  const char *b = echoed(&sum, 0, &rc2);
  ENSURE(rc == NH_OK && rc2 == NH_OK && b && strcmp(b, text) == 0 && count(text, "\"surface\"") == 7);
  // a callback that fails (the 40th value: inside the impact log) stops it with its status
  ENSURE(echoed(&sum, 40, &rc2) && rc2 == NH_ERR_CALLBACK);
  fail = NH_ERR_NOMEM; /* the place callback */
  ENSURE(echoed(&sum, 0, &rc2) && rc2 == NH_ERR_NOMEM);
  fail = 0;
  // a chain of phases with events (EVENT_HEAD, EVENT_TAIL), not mechanical
  static const char *names[] = {"x", "u"};
  const double x0[2] = {1.0, 0.0};
  nh_monitor_def mon = {"floor", NH_MONITOR_FALLING, NH_MONITOR_STOP};
  nh_model_def md = nh_model_def_default();
  md.name = "fall";
  md.form = NH_FORM_ODE;
  md.nx = 2, md.state_names = names, md.x0 = x0, md.rhs = fall_rhs;
  md.nmon = 1, md.monitors = &mon, md.monitor = fall_monitor;
  nh_model *m = nh_model_create(&md, NULL, 0);
  nh_sim *a = nh_sim_create(m, &d, NULL, 0), *c = nh_sim_create(m, &d, NULL, 0);
  ENSURE(m && a && c);
  nh_sim *const cp[2] = {a, c};
  nh_chain ch = {cp, 2, NULL, 0, 0, 1, rebound, NULL};
  ENSURE(nh_chain_run(&ch, 0, 10.0, NULL, NULL, NULL) == NH_EVENT_STOP);
  static const char *const phase_names[2] = {"one", "two"};
  const nh_sim *ran[2] = {a, c};
  nh_summary chain = {ran, 2, phase_names, "dopri5", NH_EVENT_STOP, NAN, NH_SUMMARY_EVENTS, marks, &fail, NULL};
  snprintf(text, sizeof text, "%s", written(1, &chain, &rc));
  b = echoed(&chain, 0, &rc2);
  ENSURE(rc == NH_OK && rc2 == NH_OK && b && strcmp(b, text) == 0 && count(text, "\"head\"") == 2);
  // refused: a sink without a callback, no sink, a bad summary
  nh_summary_sink bad = echo_sink;
  bad.integer = NULL;
  ENSURE(nh_summary_build(&sum, &bad, NULL) == NH_ERR_ARG && nh_summary_build(&sum, NULL, NULL) == NH_ERR_ARG);
  sum.nphases = 0;
  ENSURE(nh_summary_build(&sum, &echo_sink, NULL) == NH_ERR_ARG);
  nh_sim_destroy(s), nh_sim_destroy(a), nh_sim_destroy(c);
  nh_model_destroy(ball), nh_model_destroy(m);
  return 0;
}

/* the JSON pieces */
static int test_json_pieces(void) {
  FILE *f = tmpfile();
  ENSURE(f);
  nh_json_num(f, NAN), fputc(' ', f), nh_json_num(f, INFINITY), fputc(' ', f), nh_json_num(f, 0.1);
  nh_json_field_str(f, "k\"", "tab\there\n");
  nh_json_field_bool(f, "b", 1);
  rewind(f);
  char buf[200];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  ENSURE(strcmp(buf, "null null 0.10000000000000001, \"k\\\"\": \"tab\\u0009here\\u000a\", \"b\": true") == 0);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_mechanical);
  RUN_TEST(test_impact_step);
  RUN_TEST(test_chain_events);
  RUN_TEST(test_build);
  RUN_TEST(test_json_pieces);
  return TEST_SUMMARY();
}
