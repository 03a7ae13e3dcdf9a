/* test_ode.c - models in first-order ODE form, monitors and their event log, projection. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "models.h"
#include "nholo/nholo.h"

#define PI 3.14159265358979323846

/* the definition of the ODE-form model `name`: nx states from x0 with right-hand side rhs,
 * the one monitor mon (NULL: none) evaluated by monitor, and size bytes of user data p */
static nh_model_def ode_def(const char *name, int nx, const double *x0, nh_rhs_fn rhs, const nh_monitor_def *mon,
                            nh_monitor_fn monitor, const void *p, size_t size) {
  nh_model_def d = nh_model_def_default();
  d.name = name;
  d.form = NH_FORM_ODE;
  d.nx = nx;
  d.x0 = x0;
  d.rhs = rhs;
  d.nmon = mon != NULL;
  d.monitors = mon;
  d.monitor = monitor;
  d.user = p;
  d.user_size = size;
  return d;
}

/* ---- a harmonic oscillator x'' = -w^2 x in ODE form, state (x, u = x') ---------------- */

typedef struct osc {
  double w;
} osc;

static int osc_rhs(double t, const double *x, double *xdot, void *user) {
  (void)t;
  const double w = ((const osc *)user)->w;
  xdot[0] = x[1];
  xdot[1] = -w * w * x[0];
  return 0;
}
static int osc_energy(double t, const double *x, double *E, void *user) {
  (void)t;
  const double w = ((const osc *)user)->w;
  *E = 0.5 * (x[1] * x[1] + w * w * x[0] * x[0]);
  return 0;
}
static int osc_monitor(double t, const double *x, double *m, void *user) {
  (void)t, (void)user;
  m[0] = x[0];
  return 0;
}

static nh_model *osc_create(double w, nh_monitor_dir dir, nh_monitor_action action) {
  static const char *names[] = {"x", "u"};
  const double x0[2] = {1.0, 0.0};
  osc p = {w};
  nh_monitor_def mon = {"x_zero", dir, action};
  nh_model_def d = ode_def("oscillator", 2, x0, osc_rhs, &mon, osc_monitor, &p, sizeof p);
  d.state_names = names;
  d.energy = osc_energy;
  return nh_model_create(&d, NULL, 0);
}

static nh_sim *make_sim(const nh_model *m, const char *method, double h, double rtol) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  d.rtol = rtol;
  d.atol = rtol * 1e-2;
  return nh_sim_create(m, &d, NULL, 0);
}

/* x = cos(w t): every zero crossing (w t = pi/2 + k pi) is logged with its direction, at the
 * method's accuracy; the state matches the analytic solution */
static int test_oscillator_events(void) {
  const double w = 1.7, T = 10.0;
  const char *methods[2] = {"dopri5", "rk4"};
  const double h[2] = {1e-3, 1e-3}, tol[2] = {1e-10, 1e-10};
  for (int k = 0; k < 2; k++) {
    nh_model *m = osc_create(w, NH_MONITOR_BOTH, NH_MONITOR_REPORT);
    ENSURE(m && m->form == NH_FORM_ODE && m->nx == 2 && m->nq == 0);
    ENSURE(nh_model_monitor_index(m, "x_zero") == 0 && nh_model_monitor_index(m, "y") == -1);
    nh_sim *s = make_sim(m, methods[k], h[k], 1e-12);
    ENSURE(s);
    ENSURE(nh_sim_v(s) == NULL && nh_sim_x(s)[0] == 1.0);
    ENSURE(nh_sim_run(s, T, 0, NULL, NULL) == NH_OK);
    long n = nh_sim_event_count(s), expect = (long)floor((w * T - PI / 2) / PI) + 1;
    ENSURE(n == expect);
    double maxerr = 0.0;
    for (long i = 0; i < n; i++) {
      nh_event_record r;
      ENSURE(nh_sim_event_get(s, i, &r) == NH_OK);
      double te = (PI / 2 + (double)i * PI) / w;
      maxerr = fmax(maxerr, fabs(r.t - te));
      ENSURE(r.monitor == 0 && r.stopped == 0);
      ENSURE(r.direction == (i % 2 == 0 ? -1 : 1));
      ENSURE(fabs(r.x[0]) < 1e-12 && r.value == r.x[0]);
      ENSURE(r.direction * r.value >= 0.0); /* kept just past the crossing */
    }
    printf("  %s: %ld events, max time error %.2e\n", methods[k], n, maxerr);
    ENSURE(maxerr < tol[k]);
    ENSURE(nh_sim_event_get(s, n, &(nh_event_record){0}) == NH_ERR_ARG);
    ENSURE_NEAR(nh_sim_x(s)[0], cos(w * T), 1e-9);
    ENSURE_NEAR(nh_sim_x(s)[1], -w * sin(w * T), 1e-9);
    ENSURE(nh_sim_get_stats(s)->max_energy_rel_error < 1e-9);
    ENSURE_NEAR(nh_sim_get_stats(s)->energy_initial, 0.5 * w * w, 1e-15);
    nh_sim_destroy(s);
    nh_model_destroy(m);
  }
  return 0;
}

/* a falling-only STOP monitor ends the run at w t = pi/2; running on reports the next
 * falling crossing (5 pi / 2), not the same one again nor the rising one between */
static int test_oscillator_stop(void) {
  const double w = 1.0;
  nh_model *m = osc_create(w, NH_MONITOR_FALLING, NH_MONITOR_STOP);
  nh_sim *s = make_sim(m, "dopri5", 1e-3, 1e-12);
  ENSURE(s);
  ENSURE(nh_sim_run(s, 20.0, 0, NULL, NULL) == NH_EVENT_STOP);
  ENSURE(strstr(nh_sim_message(s), "x_zero") != NULL);
  ENSURE_NEAR(nh_sim_time(s), PI / 2, 1e-10);
  ENSURE(nh_sim_event_count(s) == 1);
  ENSURE(nh_sim_run(s, 20.0, 0, NULL, NULL) == NH_EVENT_STOP);
  ENSURE_NEAR(nh_sim_time(s), 5 * PI / 2, 1e-10);
  nh_event_record r;
  ENSURE(nh_sim_event_count(s) == 2 && nh_sim_event_get(s, 1, &r) == NH_OK);
  ENSURE(r.direction == -1 && r.stopped == 1);
  // a start exactly on the zero has no sign yet: no event at t = 0
  const double x0[2] = {0.0, -1.0};
  ENSURE(nh_sim_set_state_x(s, 0.0, x0) == NH_OK && nh_sim_event_count(s) == 0);
  ENSURE(nh_sim_run(s, 3.0, 0, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_event_count(s) == 0); /* x = -sin t < 0 on (0, pi) */
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* monitors on a mechanical model see x = (q, v): a ball dropped from y = 1 passes y = 1/2
 * at t = sqrt(1/g); its observer sees the event sample */
static int ball_monitor(double t, const double *x, double *m, void *user) {
  (void)t, (void)user;
  m[0] = x[0] - 0.5; /* height */
  m[1] = x[1] + 2.0; /* velocity reaches -2 */
  return 0;
}

typedef struct obs_count {
  int events;
  double t_event;
} obs_count;

static int count_events(const nh_sim *s, nh_sample_kind kind, double t, const double *q,
                        const double *v, void *user) {
  (void)s, (void)q;
  obs_count *o = user;
  if (kind == NH_SAMPLE_EVENT && v) o->events++, o->t_event = t;
  return 0;
}

static int test_mechanical_monitor(void) {
  static const char *names[] = {"y"};
  const double g = 9.81, y0 = 1.0, v0 = 0.0;
  ball_params p = {0.3, g};
  nh_monitor_def mons[2] = {{"half", NH_MONITOR_FALLING, NH_MONITOR_REPORT},
                            {"speed", NH_MONITOR_FALLING, NH_MONITOR_REPORT}};
  nh_model_def d = nh_model_def_default();
  d.name = "drop";
  d.nq = 1;
  d.coord_names = names;
  d.q0 = &y0;
  d.v0 = &v0;
  d.mass = ball_mass;
  d.potential = ball_potential;
  d.nmon = 2;
  d.monitors = mons;
  d.monitor = ball_monitor;
  d.user = &p;
  d.user_size = sizeof p;
  nh_model *m = nh_model_create(&d, NULL, 0);
  ENSURE(m && m->nx == 2 && strcmp(m->state_names[1], "y_dot") == 0);
  nh_sim *s = make_sim(m, "rk4", 0.01, 1e-10);
  obs_count o = {0, 0.0};
  ENSURE(nh_sim_run(s, 0.4, 0, count_events, &o) == NH_OK);
  ENSURE(nh_sim_event_count(s) == 2 && o.events == 2);
  nh_event_record r0, r1;
  ENSURE(nh_sim_event_get(s, 0, &r0) == NH_OK && nh_sim_event_get(s, 1, &r1) == NH_OK);
  ENSURE(r0.monitor == 1 && r1.monitor == 0); /* v = -2 at 0.204 s, y = 1/2 at 0.319 s */
  ENSURE_NEAR(r0.t, 2.0 / g, 1e-12);
  ENSURE_NEAR(r1.t, sqrt(1.0 / g), 1e-12);
  ENSURE_NEAR(o.t_event, r1.t, 0.0);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* ---- grazes: a free particle passing through a disk's edge within one step ------------- */

/* state (x, y, u, w): x' = u, y' = w, no force; monitor sign * (x^2 + y^2 - R^2) */
typedef struct fly {
  double R, sign;
} fly;

static int fly_rhs(double t, const double *x, double *xdot, void *user) {
  (void)t, (void)user;
  xdot[0] = x[2], xdot[1] = x[3], xdot[2] = 0.0, xdot[3] = 0.0;
  return 0;
}
static int fly_monitor(double t, const double *x, double *m, void *user) {
  (void)t;
  const fly *p = user;
  m[0] = p->sign * (x[0] * x[0] + x[1] * x[1] - p->R * p->R);
  return 0;
}

static nh_model *fly_create(double R, double sign, double b, nh_monitor_dir dir) {
  const double x0[4] = {-0.5, b, 1.0, 0.0};
  fly p = {R, sign};
  nh_monitor_def mon = {"disk", dir, NH_MONITOR_REPORT};
  nh_model_def d = ode_def("fly", 4, x0, fly_rhs, &mon, fly_monitor, &p, sizeof p);
  return nh_model_create(&d, NULL, 0);
}

/* steps of 1 with samples 0.2 apart, the chord of the disk (R = 0.05 at height b = 0.03:
 * x in [-0.04, 0.04], t in [0.46, 0.54]) between two of them: the monitor's sampled signs
 * agree, its slope turns. The event is the pair's first counted crossing: the entry for
 * r^2 - R^2 falling and R^2 - r^2 rising, the exit for the other two; both counts log the
 * entry, then the exit; none none. At b = 0.06 the minimum stays above: no event. */
static int test_monitor_graze(void) {
  const double R = 0.05, b = 0.03, c = sqrt(R * R - b * b);
  const struct {
    double sign, b;
    nh_monitor_dir dir;
    long n;
    double t;
    int d;
  } cases[] = {{1, b, NH_MONITOR_FALLING, 1, 0.5 - c, -1}, {1, b, NH_MONITOR_RISING, 1, 0.5 + c, 1},
               {-1, b, NH_MONITOR_RISING, 1, 0.5 - c, 1},  {-1, b, NH_MONITOR_FALLING, 1, 0.5 + c, -1},
               {1, b, NH_MONITOR_BOTH, 1, 0.5 - c, -1},    {-1, b, NH_MONITOR_BOTH, 1, 0.5 - c, 1},
               {1, b, NH_MONITOR_NONE, 0, 0, 0},           {1, 0.06, NH_MONITOR_FALLING, 0, 0, 0},
               {-1, 0.06, NH_MONITOR_RISING, 0, 0, 0}};
  const char *methods[2] = {"rk4", "dopri5"};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      nh_model *m = fly_create(R, cases[i].sign, cases[i].b, cases[i].dir);
      nh_sim *s = make_sim(m, methods[k], 1.0, 1e-10);
      ENSURE(m && s);
      ENSURE(nh_sim_run(s, 2.0, 0, NULL, NULL) == NH_OK);
      const long n = nh_sim_event_count(s);
      ENSURE(n == (cases[i].dir == NH_MONITOR_BOTH ? 2 : cases[i].n));
      nh_event_record r;
      if (cases[i].n > 0) {
        ENSURE(nh_sim_event_get(s, 0, &r) == NH_OK);
        ENSURE_NEAR(r.t, cases[i].t, 1e-12);
        ENSURE(r.direction == cases[i].d && r.monitor == 0);
        ENSURE(r.direction * r.value >= 0.0); /* just past the crossing */
        ENSURE_NEAR(r.x[0], -0.5 + r.t, 1e-14);
      }
      if (cases[i].dir == NH_MONITOR_BOTH) { /* both: then the exit, the other way */
        ENSURE(nh_sim_event_get(s, 1, &r) == NH_OK);
        ENSURE_NEAR(r.t, 0.5 + c, 1e-12);
        ENSURE(r.direction == -cases[i].d && r.direction * r.value >= 0.0);
      }
      ENSURE_NEAR(nh_sim_x(s)[0], 1.5, 1e-14); /* the run went on to its end */
      nh_sim_destroy(s);
      nh_model_destroy(m);
    }
  return 0;
}

/* ---- a thin band crossed in and out within one step ---------------------------------- */

/* state (x, u): x' = u, u' = 0; monitor sign * (x^2 - eps^2), counted both ways */
typedef struct band {
  double eps, sign;
} band;

static int band_rhs(double t, const double *x, double *xdot, void *user) {
  (void)t, (void)user;
  xdot[0] = x[1], xdot[1] = 0.0;
  return 0;
}
static int band_monitor(double t, const double *x, double *m, void *user) {
  (void)t;
  const band *p = user;
  m[0] = p->sign * (x[0] * x[0] - p->eps * p->eps);
  return 0;
}

static nh_model *band_create(double eps, double sign, double u) {
  const double x0[2] = {-0.5, u};
  band p = {eps, sign};
  nh_monitor_def mon = {"band", NH_MONITOR_BOTH, NH_MONITOR_REPORT};
  nh_model_def d = ode_def("band", 2, x0, band_rhs, &mon, band_monitor, &p, sizeof p);
  return nh_model_create(&d, NULL, 0);
}

/* A particle at speed u passes through the band |x| < eps (entry at t = (0.5 - eps) / u, exit
 * at (0.5 + eps) / u) inside one step of h = 1 (rk4, dopri5's first step): both crossings are
 * logged, in order, with their directions (x^2 - eps^2: in falling, out rising; the opposite
 * sign the other way), each once; the exit was missed while the monitor sat on 0 after the
 * entry. Also when the exit is in the next step's first sample interval (eps = 0.02 at u = 2:
 * the band spans t in [0.24, 0.26]). */
static int test_monitor_band(void) {
  const char *methods[2] = {"rk4", "dopri5"};
  const struct {
    double eps, u;
  } bands[] = {{0.01, 1.0}, {1e-4, 1.0}, {0.02, 2.0}};
  double maxerr = 0.0;
  for (int k = 0; k < 2; k++)
    for (size_t b = 0; b < sizeof bands / sizeof bands[0]; b++)
      for (int sg = -1; sg <= 1; sg += 2) {
        const double eps = bands[b].eps, u = bands[b].u;
        nh_model *m = band_create(eps, sg, u);
        nh_sim *s = make_sim(m, methods[k], 1.0, 1e-10);
        ENSURE(m && s);
        ENSURE(nh_sim_run(s, 2.0, 0, NULL, NULL) == NH_OK);
        ENSURE(nh_sim_event_count(s) == 2);
        nh_event_record in, out;
        ENSURE(nh_sim_event_get(s, 0, &in) == NH_OK && nh_sim_event_get(s, 1, &out) == NH_OK);
        maxerr = fmax(maxerr, fmax(fabs(in.t - (0.5 - eps) / u), fabs(out.t - (0.5 + eps) / u)));
        ENSURE_NEAR(in.t, (0.5 - eps) / u, 1e-12);
        ENSURE_NEAR(out.t, (0.5 + eps) / u, 1e-12);
        ENSURE(in.direction == -sg && out.direction == sg && in.monitor == 0 && out.monitor == 0);
        ENSURE(in.direction * in.value >= 0.0 && out.direction * out.value >= 0.0); /* just past */
        ENSURE_NEAR(in.x[0], -eps, 1e-12);
        ENSURE_NEAR(out.x[0], eps, 1e-12);
        ENSURE_NEAR(nh_sim_x(s)[0], -0.5 + 2.0 * u, 1e-13); /* the run went on to its end */
        nh_sim_destroy(s);
        nh_model_destroy(m);
      }
  printf("  12 runs, 24 events: max time error %.2e\n", maxerr);
  return 0;
}

/* ---- projection: rotation on the unit circle x' = -y, y' = x ----------------------------- */

static int rot_rhs(double t, const double *x, double *xdot, void *user) {
  (void)t, (void)user;
  xdot[0] = -x[1];
  xdot[1] = x[0];
  return 0;
}
static int rot_energy(double t, const double *x, double *E, void *user) {
  (void)t, (void)user;
  *E = 0.5 * (x[0] * x[0] + x[1] * x[1]);
  return 0;
}
static int rot_project(double *x, void *user) {
  (void)user;
  double r = hypot(x[0], x[1]);
  if (!(r > 0.0)) return -1;
  x[0] /= r, x[1] /= r;
  return 0;
}

typedef struct norm_track {
  double max_dev;
} norm_track;

static int track_norm(const nh_sim *s, nh_sample_kind kind, double t, const double *x,
                      const double *v, void *user) {
  (void)s, (void)t, (void)kind, (void)v;
  norm_track *n = user;
  n->max_dev = fmax(n->max_dev, fabs(hypot(x[0], x[1]) - 1.0));
  return 0;
}

static nh_model *rot_create(int project) {
  const double x0[2] = {1.0, 0.0};
  nh_model_def d = ode_def("rotation", 2, x0, rot_rhs, NULL, NULL, NULL, 0);
  d.energy = rot_energy;
  d.project = project ? rot_project : NULL;
  return nh_model_create(&d, NULL, 0);
}

/* RK4 with h = 0.2 loses |x| = 1 at O(h^5) per step; the projection keeps it to round-off at
 * every step without spoiling the phase (the error stays at the unprojected one's size) */
static int test_projection(void) {
  const double T = 100.0;
  double dev[2], phase[2];
  for (int k = 0; k < 2; k++) {
    nh_model *m = rot_create(k);
    ENSURE(m && strcmp(m->state_names[0], "x1") == 0);
    nh_sim *s = make_sim(m, "rk4", 0.2, 1e-10);
    norm_track n = {0.0};
    ENSURE(nh_sim_run(s, T, 0, track_norm, &n) == NH_OK);
    const double *x = nh_sim_x(s);
    dev[k] = n.max_dev;
    phase[k] = fabs(atan2(x[1], x[0]) - atan2(sin(T), cos(T)));
    if (k == 1) ENSURE(nh_sim_get_stats(s)->max_energy_rel_error < 1e-14);
    nh_sim_destroy(s);
    nh_model_destroy(m);
  }
  printf("  |x| - 1: %.2e unprojected, %.2e projected; phase error %.2e, %.2e\n", dev[0], dev[1],
         phase[0], phase[1]);
  ENSURE(dev[0] > 1e-5);
  ENSURE(dev[1] < 4e-16);
  ENSURE(phase[1] < 2.0 * phase[0] + 1e-12);
  return 0;
}

/* the exact method needs a closed-form flow; bad ODE-form definitions name what is wrong */
static int test_ode_def_errors(void) {
  char msg[256];
  nh_model *m = rot_create(0);
  nh_sim_def sd = nh_sim_def_default();
  sd.method = nh_method_find("exact");
  ENSURE(nh_sim_create(m, &sd, msg, sizeof msg) == NULL && strstr(msg, "exact"));
  nh_model_destroy(m);

  nh_model_def d = nh_model_def_default();
  d.form = NH_FORM_ODE;
  d.nx = 2;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL && strstr(msg, "right-hand side"));
  d.rhs = rot_rhs;
  d.nx = 0;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL && strstr(msg, "nx"));
  d.nx = 2;
  d.mass = ball_mass;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL && strstr(msg, "no coordinates"));
  d.mass = NULL;
  d.nmon = 1;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL && strstr(msg, "monitor"));
  nh_monitor_def mons[2] = {{"a", NH_MONITOR_BOTH, NH_MONITOR_REPORT}, {"a", NH_MONITOR_BOTH, NH_MONITOR_REPORT}};
  d.monitors = mons;
  d.monitor = osc_monitor;
  d.nmon = 2;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL && strstr(msg, "duplicate monitor name 'a'"));
  mons[1].name = "b";
  mons[1].direction = (nh_monitor_dir)7;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL && strstr(msg, "direction"));
  mons[1].direction = NH_MONITOR_RISING;
  ENSURE((m = nh_model_create(&d, msg, sizeof msg)) != NULL);
  double E = 1.0;
  ENSURE(nh_model_energy_x(m, 0.0, (double[]){1, 2}, &E) == NH_OK && E == 0.0);
  nh_model_destroy(m);
  // a mechanical definition may not carry ODE-form evaluators
  nh_model_def md = nh_model_def_default();
  static const char *names[] = {"y"};
  md.nq = 1;
  md.coord_names = names;
  md.mass = ball_mass;
  md.rhs = rot_rhs;
  ENSURE(nh_model_create(&md, msg, sizeof msg) == NULL && strstr(msg, "ODE form"));
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_oscillator_events);
  RUN_TEST(test_oscillator_stop);
  RUN_TEST(test_mechanical_monitor);
  RUN_TEST(test_monitor_graze);
  RUN_TEST(test_monitor_band);
  RUN_TEST(test_projection);
  RUN_TEST(test_ode_def_errors);
  return TEST_SUMMARY();
}
