/* test_ap_contact.c - persistent contacts of almost-Poisson models (docs/contact.md): the
 * ball of issue 15 written as x' = Pi grad H (state x y px py) comes to rest at the closed-form
 * Zeno time and slides on at x' = 0.3 with H kept, under the discrete gradients, rk4 and
 * dopri5, as the same ball written as a Lagrangian file does; a particle on top of a circle
 * holds its contact, with the force -g'' of the free flow, until that force vanishes at the
 * closed-form point, and flies off; a particle released on a slope slides down it exactly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "nholo/nholo.h"

#define G 9.81

static nh_model *parse(const char *text) {
  nh_load_opts o = nh_load_opts_default();
  char msg[512];
  nh_model *m = nh_model_parse(text, "test.nh", &o, msg, sizeof msg);
  if (!m) printf("  parse: %s\n", msg);
  return m;
}

/* the ball dropped from y = 1 with x' = 0.3 onto a floor of restitution e, in either form */
static nh_model *ball(int ap, double e) {
  char text[512];
  if (ap)
    snprintf(text, sizeof text,
             "model ball_ap\nstate x y px py\nhamiltonian 1/2*(px^2 + py^2) + 9.81*y\npoisson x px: 1\n"
             "poisson y py: 1\ngap floor: y  impact restitution %.17g\ninitial y = 1, px = 0.3\n", e);
  else
    snprintf(text, sizeof text,
             "model ball\ncoordinates x y\nkinetic 1/2*(x'^2+y'^2)\npotential 9.81*y\n"
             "gap floor: y  impact restitution %.17g\ninitial y = 1, x' = 0.3\n", e);
  return parse(text);
}

/* a particle on top of the unit circle (gap |q| - 1) with speed v0, in either form */
static nh_model *dome(int ap, double v0) {
  char text[512];
  if (ap)
    snprintf(text, sizeof text,
             "model dome_ap\nstate x y px py\nhamiltonian 1/2*(px^2 + py^2) + 9.81*y\npoisson x px: 1\n"
             "poisson y py: 1\ngap dome: sqrt(x^2 + y^2) - 1  impact restitution 0.5\n"
             "initial y = 1, px = %.17g\n", v0);
  else
    snprintf(text, sizeof text,
             "model dome\ncoordinates x y\nkinetic 1/2*(x'^2+y'^2)\npotential 9.81*y\n"
             "gap dome: sqrt(x^2 + y^2) - 1  impact restitution 0.5\ninitial y = 1, x' = %.17g\n", v0);
  return parse(text);
}

static nh_sim *run(const nh_model *m, const char *method, double h, double t_end, int *rc) {
  nh_sim_def d = nh_sim_def_default();
  char msg[512];
  d.method = nh_method_find(method);
  d.h = h;
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  if (!s) {
    printf("  create: %s\n", msg);
    return NULL;
  }
  *rc = nh_sim_run(s, t_end, 0, NULL, NULL);
  if (*rc) printf("  %s: %s\n", method, nh_sim_message(s));
  return s;
}

static long find_contact(const nh_sim *s, int kind, nh_contact_record *r) {
  for (long k = 0; k < nh_sim_contact_count(s); k++)
    if (nh_sim_contact_get(s, k, r) == NH_OK && r->kind == kind) return k;
  return -1;
}

static const char *const methods[] = {"gonzalez", "avf", "itoh-abe", "rk4", "dopri5"};
#define NMETH 5
/* the Lagrangian file's method to compare with (the discrete gradients need the AP form: the
 * fixed-step rk4 closes by the same step rule) */
static const char *lag_method(int k) { return k == 4 ? "dopri5" : "rk4"; }

/* The ball: the impacts accumulate at t_inf = t1 (1 + e) / (1 - e), t1 = sqrt(2 / g) (e = 0:
 * at rest at t1). The contact closes there (by the step rule for a fixed step, within
 * NH_CONTACT_ZENO_REL for dopri5), the extrapolated limit is t_inf, the energy left is the
 * sliding 1/2 0.3^2 (the rest logged as dissipated), and the ball slides at x' = 0.3 on y = 0
 * with H kept; the Lagrangian file closes at the same time in the same state. */
static int test_ball_zeno(void) {
  const double es[] = {0.0, 0.5, 0.8}, t1 = sqrt(2.0 / G), h = 1e-3, t_end = 10.0;
  for (int ie = 0; ie < 3; ie++) {
    const double e = es[ie], t_inf = t1 * (1.0 + e) / (1.0 - e);
    nh_model *ma = ball(1, e), *ml = ball(0, e);
    ENSURE(ma && ml);
    for (int k = 0; k < NMETH; k++) {
      int rc, rcl;
      nh_sim *s = run(ma, methods[k], h, t_end, &rc), *sl = run(ml, lag_method(k), h, t_end, &rcl);
      ENSURE(s && sl && rc == NH_OK && rcl == NH_OK);
      nh_contact_record c, cl;
      ENSURE(find_contact(s, NH_CONTACT_CLOSE, &c) == 0 && nh_sim_contact_count(s) == 1 && nh_sim_contact_closed(s, 0));
      ENSURE(find_contact(sl, NH_CONTACT_CLOSE, &cl) == 0);
      ENSURE(c.reason == (e == 0.0 ? NH_CONTACT_REST : NH_CONTACT_ACCUMULATION));
      const double tol_close = k == 4 ? 1.01 * NH_CONTACT_ZENO_REL * fmax(1.0, t_inf) : 2.0 * h;
      printf("  e = %.1f %-8s: closed at t = %.15g (limit %.15g, t_inf %.15g; Lagrangian %s %.15g), H %.10g -> %.10g\n",
             e, methods[k], c.t, c.t_limit, t_inf, lag_method(k), cl.t, c.energy_before, c.energy_after);
      ENSURE(c.t <= t_inf + 1e-12 && c.t > t_inf - tol_close);
      ENSURE_NEAR(c.t_limit, t_inf, 1e-9 * (1.0 + 1e3 * e));
      ENSURE_NEAR(c.t, cl.t, 1e-10);
      ENSURE_NEAR(c.lambda, G, 1e-6); /* -g'' of the free flow: gravity */
      ENSURE_NEAR(c.energy_after, 0.045, 1e-14);
      ENSURE(c.energy_before >= c.energy_after);
      for (int j = 0; j < 2; j++)
        ENSURE(fabs(c.x[j] - cl.x[j]) < 1e-9 && fabs(c.x[2 + j] - cl.x[2 + j]) < 1e-9);
      // sliding: x = 0.3 t, y = py = 0, H = 1/2 0.3^2 kept
      const double *x = nh_sim_x(s);
      ENSURE_NEAR(x[0], 0.3 * t_end, 1e-9);
      ENSURE(fabs(x[1]) < 1e-14 && fabs(x[3]) < 1e-14);
      ENSURE_NEAR(x[2], 0.3, 1e-14);
      ENSURE_NEAR(nh_sim_get_stats(s)->energy, 0.045, 1e-14);
      ENSURE(nh_sim_get_stats(s)->max_energy_rel_error < 1e-12 || e == 0.0 || k >= 3);
      const double *ql = nh_sim_q(sl);
      ENSURE_NEAR(x[0], ql[0], 1e-9);
      // the impact log: the accumulation as an impact of status NH_CONTACT, the energy it removed
      nh_impact_record r;
      ENSURE(nh_sim_impact_get(s, nh_sim_impact_count(s) - 1, &r) == NH_OK);
      ENSURE(r.status == (e == 0.0 ? NH_OK : NH_CONTACT) && r.q == NULL);
      ENSURE_NEAR(r.energy_after, 0.045, 1e-14);
      ENSURE(nh_sim_impact_count(s) == nh_sim_impact_count(sl));
      nh_sim_destroy(s);
      nh_sim_destroy(sl);
    }
    nh_model_destroy(ma), nh_model_destroy(ml);
  }
  return 0;
}

/* The dome: on the circle N = g cos(th) - v^2 with v^2 = v0^2 + 2 g (1 - cos th), zero where
 * cos(th) = 2/3 + v0^2 / (3 g). The contact closes at rest at the start with the force
 * -g'' = g - v0^2, holds with H kept to the method's order, opens there (tension) and the
 * particle flies off; the Lagrangian file (dopri5) opens at the same time. */
static int test_dome_opens(void) {
  const double v0 = 0.5, c_exp = 2.0 / 3.0 + v0 * v0 / (3.0 * G), h = 1e-3;
  static const double tol_c[NMETH] = {2e-6, 2e-6, 2e-6, 2e-6, 1e-6}, tol_t[NMETH] = {5e-6, 5e-6, 5e-6, 5e-6, 1e-6};
  nh_model *ma = dome(1, v0), *ml = dome(0, v0);
  ENSURE(ma && ml);
  int rc;
  nh_sim *sl = run(ml, "dopri5", h, 2.0, &rc);
  ENSURE(sl && rc == NH_OK);
  nh_contact_record ol;
  ENSURE(find_contact(sl, NH_CONTACT_OPEN, &ol) == 1);
  for (int k = 0; k < NMETH; k++) {
    nh_sim *s = run(ma, methods[k], h, 2.0, &rc);
    ENSURE(s && rc == NH_OK);
    nh_contact_record c, o;
    ENSURE(find_contact(s, NH_CONTACT_CLOSE, &c) == 0 && c.reason == NH_CONTACT_REST);
    ENSURE(find_contact(s, NH_CONTACT_OPEN, &o) == 1 && o.reason == NH_CONTACT_TENSION);
    ENSURE(nh_sim_contact_count(s) == 2 && !nh_sim_contact_closed(s, 0));
    const double cth = o.x[1] / hypot(o.x[0], o.x[1]);
    printf("  dome %-8s: force %.12g at closing (g - v0^2 = %.12g), opened at t = %.12g (Lagrangian %.12g), "
           "cos th = %.12g (closed form %.12g), H %.12g -> %.12g\n",
           methods[k], c.lambda, G - v0 * v0, o.t, ol.t, cth, c_exp, c.energy_after, o.energy_after);
    ENSURE_NEAR(c.lambda, G - v0 * v0, 1e-7);
    ENSURE_NEAR(cth, c_exp, tol_c[k]);
    ENSURE_NEAR(o.t, ol.t, tol_t[k]);
    ENSURE(o.lambda <= 0.0 && o.lambda > -1e-6);
    ENSURE_REL(o.energy_after, c.energy_after, 1e-6); /* held by projection: to its order */
    ENSURE(fabs(hypot(o.x[0], o.x[1]) - 1.0) < 1e-12);
    const double *x = nh_sim_x(s);
    ENSURE(hypot(x[0], x[1]) - 1.0 > 0.1); /* flying free, away from the circle */
    nh_sim_destroy(s);
  }
  nh_sim_destroy(sl);
  nh_model_destroy(ma), nh_model_destroy(ml);
  return 0;
}

/* A particle released at rest on the slope y = x tan(a) (gap y cos a - x sin a): the flow
 * presses it, the contact closes at rest at once, and it slides down with acceleration
 * g sin a: x(t) = -1/2 g sin a cos a t^2, H = 0 kept. The free step falls vertically and the
 * projection onto the plane keeps its tangential part: exact for every method. */
static int test_slope(void) {
  const double a = 0.3, t_end = 1.0, x_exp = -0.5 * G * sin(a) * cos(a) * t_end * t_end;
  char text[512];
  snprintf(text, sizeof text,
           "model slope_ap\nstate x y px py\nparameter a = %.17g\nhamiltonian 1/2*(px^2 + py^2) + 9.81*y\n"
           "poisson x px: 1\npoisson y py: 1\ngap line: y*cos(a) - x*sin(a)  impact restitution 0.5\n"
           "initial x = 0, y = 0\n", a);
  nh_model *m = parse(text);
  ENSURE(m);
  for (int k = 0; k < NMETH; k++) {
    int rc;
    nh_sim *s = run(m, methods[k], 1e-3, t_end, &rc);
    ENSURE(s && rc == NH_OK);
    nh_contact_record c;
    ENSURE(find_contact(s, NH_CONTACT_CLOSE, &c) == 0 && c.reason == NH_CONTACT_REST && nh_sim_contact_count(s) == 1);
    const double *x = nh_sim_x(s);
    printf("  slope %-8s: closed at t = %.3g with force %.15g (g cos a = %.15g), x(1) = %.15g (closed form %.15g), H %.2e\n",
           methods[k], c.t, c.lambda, G * cos(a), x[0], x_exp, nh_sim_get_stats(s)->energy);
    ENSURE(c.t < 1e-6);
    ENSURE_NEAR(c.lambda, G * cos(a), 1e-7);
    ENSURE_NEAR(x[0], x_exp, 1e-12);
    ENSURE_NEAR(x[1], x_exp * tan(a), 1e-12);
    ENSURE_NEAR(x[2], -G * sin(a) * cos(a) * t_end, 1e-12);
    ENSURE(fabs(nh_sim_get_stats(s)->energy) < 1e-12);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  return 0;
}

/* contacts off (nh_sim_def.contact = 0): impacts only, as the Lagrangian file does (no
 * contact is logged or closed, the same impacts and end; the ball no longer sinks through its
 * floor after a graze, y = -13 at t = 3 before) */
static int test_contact_off(void) {
  nh_sim *s[2];
  nh_model *m[2];
  int rc[2];
  for (int ap = 0; ap < 2; ap++) {
    m[ap] = ball(ap, 0.5);
    ENSURE(m[ap]);
    nh_sim_def d = nh_sim_def_default();
    char msg[256];
    d.method = nh_method_find("rk4");
    d.h = 1e-3;
    d.contact = 0;
    s[ap] = nh_sim_create(m[ap], &d, msg, sizeof msg);
    ENSURE(s[ap]);
    rc[ap] = nh_sim_run(s[ap], 3.0, 0, NULL, NULL);
    ENSURE(nh_sim_contact_count(s[ap]) == 0 && !nh_sim_contact_closed(s[ap], 0));
  }
  printf("  contact off: %s at t = %.15g after %ld impacts (Lagrangian: %s at t = %.15g after %ld)\n",
         nh_status_string(rc[1]), nh_sim_time(s[1]), nh_sim_impact_count(s[1]), nh_status_string(rc[0]),
         nh_sim_time(s[0]), nh_sim_impact_count(s[0]));
  ENSURE(rc[0] == rc[1] && nh_sim_impact_count(s[1]) == nh_sim_impact_count(s[0]) && nh_sim_impact_count(s[1]) > 20);
  ENSURE_NEAR(nh_sim_time(s[1]), nh_sim_time(s[0]), 1e-9);
  ENSURE(nh_sim_x(s[1])[1] > -1e-9);
  for (int ap = 0; ap < 2; ap++) nh_sim_destroy(s[ap]), nh_model_destroy(m[ap]);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1) nh_test_filter = argv[1];
  RUN_TEST(test_ball_zeno);
  RUN_TEST(test_dome_opens);
  RUN_TEST(test_slope);
  RUN_TEST(test_contact_off);
  return TEST_SUMMARY();
}
