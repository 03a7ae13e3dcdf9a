/* test_contact.c - persistent contacts (docs/contact.md) against closed forms: the bouncing
 * ball's Zeno time and its slide afterwards, a particle released on a slope, a particle resting
 * in a circular bowl (a floor whose tilt follows the configuration: a pendulum of exact
 * period), a particle sliding off a circle (it leaves where N = 0), and the stall guard (the
 * methods that hold contacts by projection, and the refusal: test_contact_methods.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "models.h"
#include "nholo/nholo.h"
#include "contact_models.h" /* after nholo.h */

/* The ball of the issue: dropped from y0 = 1 with x' = 0.3 and restitution e. The impacts
 * accumulate at t_inf = t1 (1 + e) / (1 - e), t1 = sqrt(2 y0 / g) (e = 0: at t1); the contact
 * closes there (the extrapolated limit matches t_inf), the energy left is the sliding
 * 1/2 0.3^2, and the ball slides on at x' = 0.3 with y = 0. */
static int test_ball_zeno_time(void) {
  const double es[] = {0.0, 0.3, 0.5, 0.8}, g = 9.81, t1 = sqrt(2.0 / g);
  const char *methods[] = {"dopri5", "rk4"};
  for (int im = 0; im < 2; im++)
    for (int k = 0; k < 4; k++) {
      const double e = es[k], t_inf = t1 * (1.0 + e) / (1.0 - e);
      nh_model *m = ball_model(e);
      ENSURE(m);
      nh_sim *s = make_sim(m, methods[im], 1e-3);
      ENSURE(s);
      ENSURE(nh_sim_run(s, 10.0, 0, NULL, NULL) == NH_OK);
      nh_contact_record c;
      ENSURE(find_contact(s, NH_CONTACT_CLOSE, &c) == 0);
      ENSURE(find_contact(s, NH_CONTACT_OPEN, &c) < 0 && nh_sim_contact_count(s) == 1);
      nh_sim_contact_get(s, 0, &c);
      ENSURE(c.reason == (e == 0.0 ? NH_CONTACT_REST : NH_CONTACT_ACCUMULATION));
      ENSURE(nh_sim_contact_closed(s, 0));
      // the closing: near t_inf (dopri5 within NH_CONTACT_ZENO_REL; rk4 within its step), the limit closer
      const double tol_close = im == 0 ? 1.01 * NH_CONTACT_ZENO_REL * fmax(1.0, t_inf) : 2e-3;
      printf("  %s e = %.1f: closed at t = %.15g (%s), limit %.15g, t_inf = %.15g, ratio %.6f, E %.6g -> %.6g\n",
             methods[im], e, c.t, nh_contact_reason_name(c.reason), c.t_limit, t_inf, c.ratio, c.energy_before,
             c.energy_after);
      ENSURE(c.t <= t_inf + 1e-12 && c.t > t_inf - tol_close);
      ENSURE_NEAR(c.t_limit, t_inf, 1e-9 * (1.0 + 1e3 * e));
      if (e > 0.0) ENSURE_NEAR(c.ratio, e, 1e-5);
      ENSURE(c.lambda > 0.0);
      ENSURE_NEAR(c.lambda, g, 1e-6);
      ENSURE_NEAR(c.energy_after, 0.5 * 0.09, 1e-12);
      ENSURE(c.energy_before >= c.energy_after);
      // x' = 0.3 all along: x = 0.3 t; at rest on the floor
      const double *q = nh_sim_q(s), *v = nh_sim_v(s);
      ENSURE_NEAR(q[0], 3.0, 1e-9);
      ENSURE(fabs(q[1]) < 1e-12 && fabs(v[1]) < 1e-12);
      ENSURE_NEAR(v[0], 0.3, 1e-14);
      ENSURE_NEAR(nh_sim_get_stats(s)->energy, 0.045, 1e-12);
      // an accumulation is logged as an impact of status NH_CONTACT with the energy it dissipated
      nh_impact_record r;
      ENSURE(nh_sim_impact_get(s, nh_sim_impact_count(s) - 1, &r) == NH_OK);
      ENSURE(r.status == (e == 0.0 ? NH_OK : NH_CONTACT));
      ENSURE_NEAR(r.energy_after, 0.045, 1e-12);
      nh_sim_destroy(s);
      nh_model_destroy(m);
    }
  return 0;
}

/* the same with a C model (1-D ball, tests/models.h) and the step-by-step interface */
static int test_ball_c_model(void) {
  const double e = 0.5, g = 9.81, t1 = sqrt(2.0 / g), t_inf = t1 * (1.0 + e) / (1.0 - e);
  nh_model *m = test_ball_create(e, 1.0, 0.0);
  nh_sim *s = make_sim(m, "dopri5", 1e-3);
  ENSURE(s);
  long n = 0;
  while (nh_sim_time(s) < 3.0 && n++ < 100000) ENSURE(nh_sim_step(s, 3.0, NULL) == NH_OK);
  ENSURE_NEAR(nh_sim_time(s), 3.0, 0.0);
  nh_contact_record c;
  ENSURE(find_contact(s, NH_CONTACT_CLOSE, &c) == 0);
  ENSURE_NEAR(c.t_limit, t_inf, 1e-9);
  ENSURE(fabs(nh_sim_q(s)[0]) < 1e-12 && fabs(nh_sim_v(s)[0]) < 1e-12);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* A particle released at rest on the line y = x tan(a) through the origin (gap: the distance
 * above it): the contact closes at once (at rest, pressed in) and the particle slides down
 * with acceleration g sin(a) along the line, N = g cos(a); the position at t = 1 is
 * -1/2 g sin(a) (cos a, sin a), the constraint holds to round-off. */
static int test_slope(void) {
  const double a = 0.4, g = 9.81;
  nh_model *m = slope_model(a);
  ENSURE(m);
  const char *methods[] = {"dopri5", "rk4", "rk2"};
  for (int im = 0; im < 3; im++) {
    nh_sim *s = make_sim(m, methods[im], 1e-3);
    ENSURE(s);
    ENSURE(nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_OK);
    nh_contact_record c;
    ENSURE(find_contact(s, NH_CONTACT_CLOSE, &c) == 0 && c.reason == NH_CONTACT_REST);
    ENSURE(c.t < 1e-12);
    ENSURE_NEAR(c.lambda, g * cos(a), 1e-9);
    const double *q = nh_sim_q(s), d = -0.5 * g * sin(a);
    printf("  %s: x = %.15g (%.15g), y = %.15g (%.15g), gap %.2e\n", methods[im], q[0], d * cos(a), q[1],
           d * sin(a), q[1] * cos(a) - q[0] * sin(a));
    const double tol = im == 2 ? 1e-9 : 1e-11; /* the motion is a parabola: rk2 exact but for rounding */
    ENSURE_NEAR(q[0], d * cos(a), tol);
    ENSURE_NEAR(q[1], d * sin(a), tol);
    ENSURE(fabs(q[1] * cos(a) - q[0] * sin(a)) < 1e-14);
    ENSURE(nh_sim_contact_count(s) == 1 && nh_sim_impact_count(s) == 0);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  return 0;
}

/* A particle inside a circular bowl of radius R (gap R - |q|): the floor under it tilts with
 * its position. Released at rest at angle th0 from the bottom, it stays in contact (N =
 * g (3 cos th - 2 cos th0) > 0) and swings as a pendulum of length R: at half the exact period
 * T = 4 sqrt(R/g) K(sin(th0/2)) it is at -th0, at T back at th0; the energy is kept. */
static int test_bowl(void) {
  const double R = 1.0, g = 9.81, th0 = 0.5, T = 4.0 * sqrt(R / g) * ellip_k(sin(th0 / 2));
  nh_model *m = bowl_model(th0); /* of radius R = 1 */
  ENSURE(m);
  nh_sim *s = make_sim(m, "dopri5", 1e-3);
  ENSURE(s);
  ENSURE(nh_sim_run(s, 0.5 * T, 0, NULL, NULL) == NH_OK);
  const double *q = nh_sim_q(s);
  printf("  bowl: at T/2 = %.15g angle %.12g (expected %.12g)\n", 0.5 * T, atan2(q[0], -q[1]), -th0);
  ENSURE_NEAR(atan2(q[0], -q[1]), -th0, 1e-8);
  ENSURE_NEAR(hypot(q[0], q[1]), R, 1e-14);
  ENSURE(nh_sim_run(s, T, 0, NULL, NULL) == NH_OK);
  q = nh_sim_q(s);
  ENSURE_NEAR(atan2(q[0], -q[1]), th0, 1e-8);
  nh_contact_record c;
  ENSURE(find_contact(s, NH_CONTACT_OPEN, &c) < 0);
  ENSURE(nh_sim_contact_closed(s, 0));
  ENSURE_REL(nh_sim_get_stats(s)->energy, -g * R * cos(th0), 1e-9);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* A particle sliding off the top of a circle of radius R (gap |q| - R) with speed v0 there:
 * in contact N = g cos(th) - v^2 / R with v^2 = v0^2 + 2 g R (1 - cos th), zero where
 * cos(th) = 2/3 + v0^2 / (3 g R) (2/3 from rest). The contact opens there, and the particle
 * flies free (the gap grows). */
static int test_slide_off_circle(void) {
  const double R = 1.0, g = 9.81, v0s[] = {0.05, 0.5};
  for (int k = 0; k < 2; k++) {
    const double v0 = v0s[k], c_exp = 2.0 / 3.0 + v0 * v0 / (3.0 * g * R);
    nh_model *m = dome_model(v0);
    ENSURE(m);
    nh_sim *s = make_sim(m, "dopri5", 1e-3);
    ENSURE(s);
    ENSURE(nh_sim_run(s, 2.0, 0, NULL, NULL) == NH_OK);
    nh_contact_record c, o;
    ENSURE(find_contact(s, NH_CONTACT_CLOSE, &c) == 0 && c.reason == NH_CONTACT_REST);
    ENSURE(find_contact(s, NH_CONTACT_OPEN, &o) == 1 && o.reason == NH_CONTACT_TENSION);
    const double cth = o.x[1] / hypot(o.x[0], o.x[1]);
    printf("  v0 = %.2f: closed at t = %.3g (N = %.6g), opened at t = %.15g, cos(th) = %.15g (expected %.15g), N = %.2e\n",
           v0, c.t, c.lambda, o.t, cth, c_exp, o.lambda);
    ENSURE_NEAR(c.lambda, g - v0 * v0 / R, 1e-9);
    ENSURE_NEAR(cth, c_exp, 1e-9);
    ENSURE(o.lambda <= 0.0 && o.lambda > -1e-9);
    ENSURE(!nh_sim_contact_closed(s, 0));
    const double *q = nh_sim_q(s);
    ENSURE(hypot(q[0], q[1]) - R > 0.1); /* flying free, away from the circle */
    ENSURE(nh_sim_impact_count(s) <= 2); /* bounces of the start's rounding, then at rest */
    nh_sim_destroy(s);
    nh_model_destroy(m);
  }
  return 0;
}

/* what an observer sees once the contact is closed: the largest |y| and |E - E_slide| */
typedef struct slide_watch {
  double ymax, dEmax, E;
  long n;
} slide_watch;

static int watch_slide(const nh_sim *s, nh_sample_kind kind, double t, const double *q, const double *v, void *user) {
  slide_watch *w = user;
  (void)kind, (void)t;
  if (!nh_sim_contact_closed(s, 0)) return 0;
  const double E = 0.5 * (v[0] * v[0] + v[1] * v[1]) + 9.81 * q[1];
  w->ymax = fmax(w->ymax, fabs(q[1]));
  w->dEmax = fmax(w->dEmax, fabs(E - w->E));
  w->n++;
  return 0;
}

/* gni, rattle and shake hold the contact (the floor's gradient a constraint row after the
 * model's): the ball of examples/bouncing_ball.nh (e = 0.5) closes within a few steps before
 * t_inf (the fixed-step rule: chattering faster than h), then slides at x' = 0.3 on y = 0 with
 * the energy 1/2 0.3^2 kept (gni and rattle to round-off) */
static int test_vi_ball(void) {
  const double g = 9.81, e = 0.5, h = 1e-3, t_inf = sqrt(2.0 / g) * (1.0 + e) / (1.0 - e);
  char path[1024], msg[512];
  snprintf(path, sizeof path, "%s/examples/bouncing_ball.nh", NHOLO_SOURCE_DIR);
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  nh_model *m = nh_model_load(path, &o, msg, sizeof msg);
  ENSURE(m);
  const char *methods[] = {"gni", "rattle", "shake", "gni:paper", "rattle:paper", "shake:paper"};
  for (int im = 0; im < 6; im++) {
    nh_sim *s = make_sim(m, methods[im], h);
    ENSURE(s);
    slide_watch w = {0.0, 0.0, 0.045, 0};
    ENSURE(nh_sim_run(s, 10.0, 0, watch_slide, &w) == NH_OK);
    nh_contact_record c;
    ENSURE(find_contact(s, NH_CONTACT_CLOSE, &c) == 0 && nh_sim_contact_count(s) == 1);
    const double *q = nh_sim_q(s), *v = nh_sim_v(s);
    printf("  %s: closed at t = %.15g (t_inf %.15g, limit %.15g, %s), E -> %.17g; after: max |y| %.2e, max |E - 0.045| %.2e "
           "(%ld samples); x = %.15g, x' = %.17g\n",
           methods[im], c.t, t_inf, c.t_limit, nh_contact_reason_name(c.reason), c.energy_after, w.ymax, w.dEmax, w.n,
           q[0], v[0]);
    ENSURE(c.reason == NH_CONTACT_ACCUMULATION);
    ENSURE(c.t <= t_inf && c.t > t_inf - 3.0 * h);
    ENSURE_NEAR(c.t_limit, t_inf, 3.0 * h);
    ENSURE_NEAR(c.lambda, g, 1e-9);
    ENSURE(nh_sim_contact_closed(s, 0));
    ENSURE(w.n > 8000);
    ENSURE(w.ymax < 1e-10);
    ENSURE(w.dEmax < (im < 2 ? 1e-15 : 1e-12));
    ENSURE_NEAR(v[0], 0.3, im < 2 ? 1e-15 : 1e-11);
    ENSURE_NEAR(q[0], 3.0, 1e-9);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  return 0;
}

/* gni on the slope of test_slope: the contact closes at once and the particle slides down the
 * line; the position at t = 1 within O(h^2) of -1/2 g sin(a) (cos a, sin a), on the line */
static int test_vi_slope(void) {
  const double a = 0.4, g = 9.81, hs[] = {1e-2, 1e-3};
  nh_model *m = slope_model(a);
  ENSURE(m);
  for (int k = 0; k < 2; k++) {
    nh_sim *s = make_sim(m, "gni", hs[k]);
    ENSURE(s);
    ENSURE(nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_OK);
    nh_contact_record c;
    ENSURE(find_contact(s, NH_CONTACT_CLOSE, &c) == 0 && c.reason == NH_CONTACT_REST && c.t < 1e-12);
    ENSURE_NEAR(c.lambda, g * cos(a), 1e-9);
    const double *q = nh_sim_q(s), d = -0.5 * g * sin(a), err = hypot(q[0] - d * cos(a), q[1] - d * sin(a));
    printf("  gni h = %g: x = %.15g (%.15g), y = %.15g (%.15g), error %.2e, gap %.2e\n", hs[k], q[0], d * cos(a), q[1],
           d * sin(a), err, q[1] * cos(a) - q[0] * sin(a));
    ENSURE(err < g * hs[k] * hs[k]);
    ENSURE(fabs(q[1] * cos(a) - q[0] * sin(a)) < 1e-14);
    ENSURE(nh_sim_contact_count(s) == 1 && nh_sim_impact_count(s) == 0);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  return 0;
}

/* gni on the circle of test_slide_off_circle: the contact opens where N = 0, cos(th) =
 * 2/3 + v0^2 / (3 g R), within O(h) (h^2 measured) */
static int test_vi_release(void) {
  const double R = 1.0, g = 9.81, v0 = 0.5, c_exp = 2.0 / 3.0 + v0 * v0 / (3.0 * g * R), hs[] = {1e-2, 1e-3};
  nh_model *m = dome_model(v0);
  ENSURE(m);
  for (int k = 0; k < 2; k++) {
    nh_sim *s = make_sim(m, "gni", hs[k]);
    ENSURE(s);
    ENSURE(nh_sim_run(s, 2.0, 0, NULL, NULL) == NH_OK);
    nh_contact_record c, o;
    ENSURE(find_contact(s, NH_CONTACT_CLOSE, &c) == 0 && c.reason == NH_CONTACT_REST);
    ENSURE(find_contact(s, NH_CONTACT_OPEN, &o) == 1 && o.reason == NH_CONTACT_TENSION);
    const double cth = o.x[1] / hypot(o.x[0], o.x[1]);
    printf("  gni h = %g: opened at t = %.15g, cos(th) = %.15g (expected %.15g, error %.2e), N = %.2e, |q| - R = %.2e\n",
           hs[k], o.t, cth, c_exp, cth - c_exp, o.lambda, hypot(o.x[0], o.x[1]) - R);
    ENSURE_NEAR(cth, c_exp, hs[k] * hs[k]); /* (measured: 2e-5 at h = 1e-2, 3e-8 at 1e-3) */
    ENSURE(o.lambda <= 0.0);
    ENSURE(fabs(hypot(o.x[0], o.x[1]) - R) < 1e-12);
    ENSURE(!nh_sim_contact_closed(s, 0));
    const double *q = nh_sim_q(s);
    ENSURE(hypot(q[0], q[1]) - R > 0.1);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  return 0;
}

/* without contacts (contact = 0) the plastic ball stalls at the floor: the stall guard ends the
 * run with NH_STALL after NH_STALL_STEPS steps, state and logs kept */
static int test_stall_guard(void) {
  nh_model *m = ball_model(0);
  ENSURE(m);
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("dopri5");
  d.contact = 0;
  d.zeno_interval = 0.0;
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  ENSURE(s);
  int rc = nh_sim_run(s, 100.0, 0, NULL, NULL);
  printf("  %s after %ld steps: %s\n", nh_status_name(rc), nh_sim_get_stats(s)->steps, nh_sim_message(s));
  ENSURE(rc == NH_STALL || rc == NH_ZENO);
  ENSURE(nh_sim_get_stats(s)->steps < 100000);
  ENSURE(nh_sim_impact_count(s) >= 1);
  ENSURE_NEAR(nh_sim_time(s), sqrt(2.0 / 9.81), 1e-7);
  ENSURE(strcmp(nh_status_name(NH_STALL), "NH_STALL") == 0);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* ---- fuzz: every run ends, within a bound of steps, with a defined status ------------------ */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;
static double urand(void) { /* xorshift64*, uniform in [0, 1) */
  rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
  return (double)((rng_state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

#define FUZZ_STEP_BOUND 300000 /* steps any of these runs may take (t_end = 5 s, h = 1e-3) */

static nh_model *load(const char *file, int nset, const char *const *names, const double *values, double e) {
  char path[1024], msg[1024];
  snprintf(path, sizeof path, "%s/examples/%s", NHOLO_SOURCE_DIR, file);
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  o.nset = nset, o.set_names = names, o.set_values = values;
  o.impact_override = 1;
  o.impact.kind = NH_IMPACT_RESTITUTION, o.impact.e = e;
  nh_model *m = nh_model_load(path, &o, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  return m;
}

/* one run: it ends by t_end within FUZZ_STEP_BOUND steps; a method that holds contacts
 * reaches t_end (NH_OK), the others NH_OK or NH_ZENO; *stats counts the outcomes */
static int fuzz_run(nh_model *m, const char *method, const char *what, long counts[3]) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = 1e-3;
  d.max_steps = FUZZ_STEP_BOUND;
  char msg[512];
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  if (!s) printf("  %s: %s\n", what, msg);
  ENSURE(s);
  int rc = nh_sim_run(s, 5.0, 0, NULL, NULL);
  const int holds = 1; /* gni too (constant M) */
  if (!(rc == NH_OK || (!holds && (rc == NH_ZENO || rc == NH_STALL))))
    printf("  %s (%s): %s at t = %.17g: %s\n", what, method, nh_status_name(rc), nh_sim_time(s), nh_sim_message(s));
  ENSURE(rc == NH_OK || (!holds && (rc == NH_ZENO || rc == NH_STALL)));
  ENSURE(nh_sim_get_stats(s)->steps < FUZZ_STEP_BOUND);
  counts[rc == NH_OK ? 0 : rc == NH_ZENO ? 1 : 2]++;
  if (rc == NH_OK) ENSURE_NEAR(nh_sim_time(s), 5.0, 0.0);
  nh_sim_destroy(s);
  return 0;
}

/* random restitution in [0, 1], gravity and initial states on the ball, the penny with
 * restitution and a pendulum against a wall on either side (pressed into it when d < 0) */
static int test_fuzz_terminates(void) {
  const char *methods[] = {"dopri5", "rk4", "gni"};
  long counts[3] = {0, 0, 0}, closed = 0;
  char what[256];
  for (int it = 0; it < 40; it++) {
    const double e = it % 4 == 0 ? 0.0 : it % 4 == 1 ? 1.0 : urand();
    // the ball
    char text[512];
    const double g = 1.0 + 20.0 * urand(), y0 = 2.0 * urand(), vx = urand() - 0.5, vy = 4.0 * (urand() - 0.5);
    snprintf(text, sizeof text,
             "model ball\ncoordinates x y\nkinetic 1/2*(x'^2+y'^2)\npotential %.17g*y\n"
             "gap floor: y  impact restitution %.17g\ninitial y = %.17g, x' = %.17g, y' = %.17g\n", g, e, y0, vx, vy);
    nh_model *m = parse(text);
    ENSURE(m);
    for (int k = 0; k < 3; k++) {
      snprintf(what, sizeof what, "ball e = %.17g g = %.17g y0 = %.17g", e, g, y0);
      if (fuzz_run(m, methods[k], what, counts)) return 1;
    }
    nh_model_destroy(m);
    // the penny
    const char *pn[] = {"w0", "phi'"};
    const double pv[] = {1.0 + 30.0 * urand(), 2.0 * (urand() - 0.5)};
    ENSURE((m = load("penny.nh", 2, pn, pv, e)));
    for (int k = 0; k < 3; k++) {
      snprintf(what, sizeof what, "penny e = %.17g w0 = %.17g phi' = %.17g", e, pv[0], pv[1]);
      if (fuzz_run(m, methods[k], what, counts)) return 1;
    }
    nh_model_destroy(m);
    // the pendulum and its wall at L sin(theta) + d >= 0
    const double dw = urand() - 0.5, th0 = asin(-dw) + 0.05 + 1.5 * urand();
    const char *wn[] = {"g", "d", "theta", "theta'"};
    const double wv[] = {1.0 + 20.0 * urand(), dw, th0, 2.0 * (urand() - 0.5)};
    ENSURE((m = load("pendulum_wall.nh", 4, wn, wv, e)));
    for (int k = 0; k < 3; k++) {
      snprintf(what, sizeof what, "pendulum e = %.17g g = %.17g d = %.17g theta = %.17g", e, wv[0], dw, th0);
      if (fuzz_run(m, methods[k], what, counts)) return 1;
      if (k == 0) {
        nh_sim *s = make_sim(m, "dopri5", 1e-3);
        ENSURE(s && nh_sim_run(s, 5.0, 0, NULL, NULL) == NH_OK);
        closed += nh_sim_contact_closed(s, 0);
        nh_sim_destroy(s);
      }
    }
    nh_model_destroy(m);
  }
  printf("  %ld runs: %ld NH_OK, %ld NH_ZENO, %ld NH_STALL; %ld pendulums at rest on their wall\n",
         counts[0] + counts[1] + counts[2], counts[0], counts[1], counts[2], closed);
  ENSURE(closed > 0);
  return 0;
}

/* without contacts and with zeno_interval = 0, the e = 0.5 ball still ends at its Zeno point
 * (it used to hang there): the scale-aware Zeno guard counts intervals below NH_ZENO_T_REL |t|,
 * and the grazes at the rounding of t that follow end with NH_STALL */
static int test_zeno_guard_scale(void) {
  nh_model *m = test_ball_create(0.5, 1.0, 0.0);
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("dopri5");
  d.contact = 0;
  d.zeno_interval = 0.0;
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  ENSURE(s);
  int rc = nh_sim_run(s, 100.0, 0, NULL, NULL);
  const double t_inf = 3.0 * sqrt(2.0 / 9.81);
  printf("  %s at t = %.17g (t_inf %.17g) after %ld impacts, %ld steps: %s\n", nh_status_name(rc), nh_sim_time(s), t_inf,
         nh_sim_impact_count(s), nh_sim_get_stats(s)->steps, nh_sim_message(s));
  ENSURE(rc == NH_ZENO || rc == NH_STALL);
  ENSURE(nh_sim_get_stats(s)->steps <= 2 * NH_STALL_STEPS + 200);
  ENSURE_NEAR(nh_sim_time(s), t_inf, 1e-9);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_ball_zeno_time);
  RUN_TEST(test_ball_c_model);
  RUN_TEST(test_slope);
  RUN_TEST(test_bowl);
  RUN_TEST(test_slide_off_circle);
  RUN_TEST(test_vi_ball);
  RUN_TEST(test_vi_slope);
  RUN_TEST(test_vi_release);
  RUN_TEST(test_stall_guard);
  RUN_TEST(test_zeno_guard_scale);
  RUN_TEST(test_fuzz_terminates);
  return TEST_SUMMARY();
}
