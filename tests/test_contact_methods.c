/* test_contact_methods.c - persistent contacts in every method that goes through impacts
 * (docs/contact.md, "Methods"): the bouncing ball's Zeno time and slide for each method that
 * holds contacts by projection or by rows (a table), a particle on a slope, in a bowl (a
 * floor that tilts with the position) and sliding off a circle, the spring cradle
 * whose simultaneous impact leaves two bodies touching at rest (a graze that must not be
 * detected again), gni, rattle and shake continuing their recursion while a contact is closed,
 * the refusal of the closed-form flow, and a pressed elastic foot closed by the chatter rule. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "methods/vi.h"
#include "models.h"
#include "nholo/nholo.h"
#include "contact_models.h" /* after nholo.h */
#include "sim/sim_impl.h"

#define G 9.81

/* the models: the ball of issue 15 (x, y; e = 0.5); the same ball carried by a knife edge in
 * the plane (x, y, phi, z: the blade constraint, phi' = 1; the height z decoupled, so the
 * bounces are the ball's), which the constrained methods take; the ball in polar coordinates
 * (a q-dependent M, e = 0: it closes at rest at the first impact) */
static const char *const ball_text =
    "model ball\ncoordinates x y\nkinetic 1/2*(x'^2+y'^2)\npotential 9.81*y\n"
    "gap floor: y  impact restitution 0.5\ninitial y = 1, x' = 0.3\n";
static const char *const kball_text =
    "model kball\ncoordinates x y phi z\nkinetic 1/2*(x'^2 + y'^2 + z'^2) + 1/2*0.2*phi'^2\npotential 9.81*z\n"
    "constraint blade: -sin(phi)*x' + cos(phi)*y' = 0\ngap floor: z  impact restitution 0.5\n"
    "initial z = 1, phi' = 1, x' = 0.3\n";
static const char *const sleigh_text = /* a Chaplygin sleigh (SE(2), for rdp) with a bouncing shape z */
    "model zsleigh\ncoordinates theta x y z\ngroup se2 theta x y\n"
    "kinetic 1/2*theta'^2 + 1/2*(x'^2 + y'^2) + 1/2*z'^2\npotential 9.81*z\n"
    "constraint skate: theta' + sin(theta)*x' - cos(theta)*y' = 0\ngap floor: z  impact restitution 0.5\n"
    "initial theta = 0, x = 0, y = 0, z = 1\ninitial theta' = 1, x' = -1, y' = 1\n";
static const char *const polar_text =
    "model polar_ball\ncoordinates r th\nkinetic 1/2*(r'^2+r^2*th'^2)\npotential 9.81*r*sin(th)\n"
    "gap floor: r*sin(th)  impact restitution 0\ninitial r = 1.2, th = 1\n";

typedef struct zeno_case {
  const char *method, *text;
  double e, y0, E_slide; /* restitution, drop height, energy left sliding */
  double dE;             /* the method's energy tolerance over the slide */
} zeno_case;

/* The ball's impacts accumulate at t_inf = t1 (1 + e) / (1 - e), t1 = sqrt(2 y0 / g): each
 * method closes the contact within a few steps before t_inf (the fixed-step rule), with the
 * limit time near t_inf and the normal force g; afterwards the height stays 0 and the energy
 * is the sliding energy to the method's tolerance (the dissipated part is in the log). */
static int test_zeno_table(void) {
  const double h = 1e-3, E_k = 0.5 * 0.09 + 0.5 * 0.2; /* kball: 1/2 x'^2 + 1/2 J phi'^2 */
  const double y0p = 1.2 * sin(1.0);
  const zeno_case cases[] = {
      {"del", ball_text, 0.5, 1.0, 0.045, 1e-14},
      {"gni", polar_text, 0.0, y0p, 0.0, 1e-9},
      {"del", polar_text, 0.0, y0p, 0.0, 1e-9},
      {"gonzalez-r", kball_text, 0.5, 1.0, E_k, 1e-12},
      {"gonzalez-r-fd", kball_text, 0.5, 1.0, E_k, 1e-12},
      {"gonzalez-f", kball_text, 0.5, 1.0, E_k, 1e-12},
      {"avf", kball_text, 0.5, 1.0, E_k, 1e-12},
      {"gonzalez", kball_text, 0.5, 1.0, E_k, 1e-12},
      {"itoh-abe", kball_text, 0.5, 1.0, E_k, 1e-12},
      {"si-dla", kball_text, 0.5, 1.0, E_k, 1e-10},
      {"i-dla", kball_text, 0.5, 1.0, E_k, 1e-10},
      {"spark", kball_text, 0.5, 1.0, E_k, 1e-12},
      {"gni", kball_text, 0.5, 1.0, E_k, 1e-12},
      {"rdp", sleigh_text, 0.5, 1.0, 1.5, 1e-6}, /* energy to O(h^2) without drift */
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    const zeno_case *z = &cases[k];
    const double t1 = sqrt(2.0 * z->y0 / G), t_inf = t1 * (1.0 + z->e) / (1.0 - z->e);
    nh_model *m = parse(z->text);
    ENSURE(m);
    nh_sim *s = make_sim(m, z->method, h);
    ENSURE(s);
    const int iy = m->nq - 1; /* the height (the last coordinate; polar: r sin th) */
    int rc = nh_sim_run(s, 3.0, 0, NULL, NULL);
    nh_contact_record c;
    const long kc = find_contact(s, NH_CONTACT_CLOSE, &c);
    const double *q = nh_sim_q(s), *v = nh_sim_v(s), E = nh_sim_get_stats(s)->energy;
    const double height = z->y0 == 1.0 ? q[iy] : q[0] * sin(q[1]);
    printf("  %-13s %-10s: %s, closed at t = %.12f (%s), t_inf = %.12f, error %.2e; limit %.12f; N = %.10g; "
           "E %.6g -> %.6g, end E - E_slide = %.1e, height %.1e\n",
           z->method, m->name, nh_status_name(rc), c.t, nh_contact_reason_name(c.reason), t_inf,
           c.t - t_inf, c.t_limit, c.lambda, c.energy_before, c.energy_after, E - z->E_slide, height);
    ENSURE(rc == NH_OK && kc == 0 && nh_sim_contact_count(s) == 1 && nh_sim_contact_closed(s, 0));
    ENSURE(c.reason == (z->e == 0.0 ? NH_CONTACT_REST : NH_CONTACT_ACCUMULATION));
    ENSURE(c.t <= t_inf + (z->e == 0.0 ? h * h : 1e-12) && c.t > t_inf - 3.0 * h); /* e = 0: located, O(h^2) */
    if (z->e > 0.0) ENSURE_NEAR(c.t_limit, t_inf, 3.0 * h);
    ENSURE(c.lambda > 0.0);
    if (z->y0 == 1.0) ENSURE_NEAR(c.lambda, G, 1e-9); /* the floor bears the weight */
    ENSURE(c.energy_before >= c.energy_after);
    ENSURE(fabs(height) < 1e-10);
    ENSURE_NEAR(E, z->E_slide, z->dE + 1e-6 * (z->E_slide == 0.0)); /* polar: the plastic map's remainder */
    if (z->text == ball_text) {
      /* sliding: 0.3 exactly but for round-off; del's constrained steps (a KKT solve each, 1650
       * steps) walk by 3.3e-14 */
      ENSURE_NEAR(v[0], 0.3, strcmp(z->method, "del") ? 1e-14 : 1e-13);
      ENSURE_NEAR(q[0], 0.9, 1e-9);
    }
    if (z->text == kball_text) ENSURE_NEAR(v[2], 1.0, 1e-12); /* phi' = 1 throughout */
    nh_sim_destroy(s);
    nh_model_destroy(m);
  }
  return 0;
}

/* A particle released at rest on the line y = x tan(a) (del: held as a constraint of its step,
 * the constrained DEL): it slides with acceleration g sin(a) along the line; at t = 1 within
 * O(h^2) of -1/2 g sin(a) (cos a, sin a), on the line to round-off, the normal force g cos(a),
 * the energy 0 to the Newton solves' round-off: each step's momentum residual is at its
 * tolerance or rounding floor (1e-12 of the terms, vi.h), a walk of about 2e-14 per step (2.4e-11
 * after the 1000 steps of h = 1e-3; exactly 0 when the free step was projected) */
#define SLOPE_DE_PER_STEP 1e-13
static int test_slope(void) {
  const double a = 0.4, hs[] = {1e-2, 1e-3};
  nh_model *m = slope_model(a);
  ENSURE(m);
  for (int k = 0; k < 2; k++) {
    nh_sim *s = make_sim(m, "del", hs[k]);
    ENSURE(s);
    ENSURE(nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_OK);
    nh_contact_record c;
    ENSURE(find_contact(s, NH_CONTACT_CLOSE, &c) == 0 && c.reason == NH_CONTACT_REST && c.t < 1e-12);
    ENSURE_NEAR(c.lambda, G * cos(a), 1e-9);
    const double *q = nh_sim_q(s), d = -0.5 * G * sin(a), err = hypot(q[0] - d * cos(a), q[1] - d * sin(a));
    const double dE = nh_sim_get_stats(s)->energy;
    printf("  del h = %g: position error %.2e, gap %.2e, energy %.2e (0)\n", hs[k], err, q[1] * cos(a) - q[0] * sin(a), dE);
    ENSURE(err < G * hs[k] * hs[k]);
    ENSURE(fabs(q[1] * cos(a) - q[0] * sin(a)) < 1e-14);
    ENSURE(fabs(dE) < SLOPE_DE_PER_STEP / hs[k]);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  return 0;
}

/* A particle inside a circular bowl (gap 1 - |q|: a floor that tilts with the position),
 * released at rest at th0 = 0.5 from the bottom: it stays in contact and swings as a pendulum
 * of length 1, at -th0 after half the exact period T = 4 sqrt(1/g) K(sin(th0/2)), to O(h^2);
 * on the circle to round-off, the energy kept. Then a particle sliding off the top of the unit
 * circle with speed v0 = 0.5 leaves it where N = 0, cos(th) = 2/3 + v0^2 / (3 g), to O(h^2). */
static int test_curved_floors(void) {
  const double th0 = 0.5, T = 4.0 * sqrt(1.0 / G) * ellip_k(sin(th0 / 2)), h = 1e-3, v0 = 0.5;
  const double c_off = 2.0 / 3.0 + v0 * v0 / (3.0 * G);
  nh_model *mb = bowl_model(th0), *md = dome_model(v0);
  ENSURE(mb && md);
  /* gni, rattle and shake in both variants (the paper's: "gni:paper", contact_models.h) */
  const char *methods[] = {"del", "gni", "rattle", "shake", "gni:paper", "rattle:paper", "shake:paper"};
  for (int im = 0; im < 7; im++) {
    nh_sim *s = make_sim(mb, methods[im], h);
    ENSURE(s);
    ENSURE(nh_sim_run(s, 0.5 * T, 0, NULL, NULL) == NH_OK);
    const double *q = nh_sim_q(s), E = nh_sim_get_stats(s)->energy, E0 = -G * cos(th0);
    const double th = atan2(q[0], -q[1]);
    ENSURE(nh_sim_contact_closed(s, 0) && nh_sim_contact_count(s) == 1);
    nh_sim *d = make_sim(md, methods[im], h);
    ENSURE(d);
    ENSURE(nh_sim_run(d, 2.0, 0, NULL, NULL) == NH_OK);
    nh_contact_record o;
    ENSURE(find_contact(d, NH_CONTACT_OPEN, &o) == 1 && o.reason == NH_CONTACT_TENSION);
    const double cth = o.x[1] / hypot(o.x[0], o.x[1]);
    printf("  %-6s bowl: angle at T/2 %.12f (-th0: error %.2e), |q| - 1 = %.1e, relative energy error %.1e; "
           "dome: leaves at cos th = %.10f (error %.2e)\n",
           methods[im], th, th + th0, hypot(q[0], q[1]) - 1.0, (E - E0) / fabs(E0), cth, cth - c_off);
    ENSURE_NEAR(th, -th0, h * h);
    ENSURE(fabs(hypot(q[0], q[1]) - 1.0) < 1e-12);
    ENSURE(fabs(E - E0) < 1e-8 * fabs(E0));
    ENSURE_NEAR(cth, c_off, h * h);
    ENSURE(fabs(hypot(o.x[0], o.x[1]) - 1.0) < 1e-12);
    nh_sim_destroy(s);
    nh_sim_destroy(d);
  }
  nh_model_destroy(mb);
  nh_model_destroy(md);
  return 0;
}

/* The bowl of test_curved_floors carried by the knife edge (coordinates x, y, phi, w, z; the
 * particle in the (w, z) plane, decoupled from the blade): the constrained methods, which hold
 * the contact by projection, swing it to -th0 after T/2 to O(h^2), on the circle, with the
 * energy kept to O(h^2) (an oscillation; at the end within 1e-9 relative) */
static int test_bowl_constrained(void) {
  const double th0 = 0.5, T = 4.0 * sqrt(1.0 / G) * ellip_k(sin(th0 / 2)), h = 1e-3;
  char text[768];
  snprintf(text, sizeof text,
           "model kbowl\ncoordinates x y phi w z\nkinetic 1/2*(x'^2 + y'^2 + w'^2 + z'^2) + 1/2*0.2*phi'^2\n"
           "potential 9.81*z\nconstraint blade: -sin(phi)*x' + cos(phi)*y' = 0\n"
           "gap wall: 1 - sqrt(w^2 + z^2)  impact restitution 0\ninitial w = %.17g, z = %.17g, phi' = 1, x' = 0.3\n",
           sin(th0), -cos(th0));
  nh_model *m = parse(text);
  ENSURE(m);
  const char *methods[] = {"avf", "gonzalez", "itoh-abe", "gonzalez-r", "gonzalez-r-fd", "gonzalez-f", "si-dla", "i-dla",
                           "spark"};
  for (size_t k = 0; k < sizeof methods / sizeof *methods; k++) {
    nh_sim *s = make_sim(m, methods[k], h);
    ENSURE(s);
    ENSURE(nh_sim_run(s, 0.5 * T, 0, NULL, NULL) == NH_OK);
    const double *q = nh_sim_q(s), th = atan2(q[3], -q[4]);
    const nh_sim_stats *st = nh_sim_get_stats(s);
    printf("  %-13s: angle at T/2 error %.2e, |q| - 1 = %.1e, energy %.12g -> %.12g, max relative error %.1e\n",
           methods[k], th + th0, hypot(q[3], q[4]) - 1.0, st->energy_initial, st->energy, st->max_energy_rel_error);
    ENSURE(nh_sim_contact_closed(s, 0) && nh_sim_contact_count(s) == 1);
    ENSURE_NEAR(th, -th0, h * h);
    ENSURE(fabs(hypot(q[3], q[4]) - 1.0) < 1e-12);
    ENSURE_REL(st->energy, st->energy_initial, 1e-9);
    ENSURE(st->max_energy_rel_error < 1e-6);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  return 0;
}

/* del holds a closed contact as a position constraint of its step (the constrained DEL, spec 003
 * sec. 3.2): the particle in the bowl at th0 = 0.6, held by its closed gap, is the same discrete
 * system as the pendulum whose rod is a `holonomic` statement: the same trajectory to round-off,
 * and the variational integrator's energy error, O(h^2) and bounded: its maximum over [0, 400]
 * is its maximum over [0, 40] (5.6e-5 at h = 0.01). Projecting each free step onto the wall
 * instead, as del did, drifted: 6.5e-5 at t = 200, 4.2e-4 at 2000, 4.2e-3 at 20000. */
#define DEL_BOWL_SAME 1e-9     /* bowl against pendulum, max |q| and |v| difference at t = 400 */
#define DEL_BOWL_DRIFT 1.02    /* max energy error over [0, 400] against [0, 40], at most */
static int test_del_constrained(void) {
  const double th0 = 0.6, h = 0.01;
  char init[160];
  snprintf(init, sizeof init, "initial x = %.17g, y = %.17g", sin(th0), -cos(th0));
  nh_model *bowl = particle_model("bowl", "", "gap wall: 1 - sqrt(x^2 + y^2)  impact restitution 0", init);
  nh_model *pend = particle_model("pendulum", "", "holonomic rod: sqrt(x^2 + y^2) - 1 = 0", init);
  ENSURE(bowl && pend);
  double err[2];
  for (int j = 0; j < 2; j++) {
    const double T = j ? 400.0 : 40.0;
    nh_sim *a = make_sim(bowl, "del", h), *b = make_sim(pend, "del", h);
    ENSURE(a && b);
    ENSURE(nh_sim_run(a, T, 0, NULL, NULL) == NH_OK && nh_sim_run(b, T, 0, NULL, NULL) == NH_OK);
    ENSURE(nh_sim_contact_closed(a, 0) && nh_sim_contact_count(a) == 1); /* closed at rest, held */
    double d = 0.0;
    for (int i = 0; i < 2; i++)
      d = fmax(d, fmax(fabs(nh_sim_q(a)[i] - nh_sim_q(b)[i]), fabs(nh_sim_v(a)[i] - nh_sim_v(b)[i])));
    err[j] = nh_sim_get_stats(a)->max_energy_rel_error;
    printf("  del, t = %g: bowl - pendulum %.1e, max relative energy error %.3e (pendulum %.3e)\n", T, d, err[j],
           nh_sim_get_stats(b)->max_energy_rel_error);
    ENSURE(d < DEL_BOWL_SAME);
    ENSURE(fabs(hypot(nh_sim_q(a)[0], nh_sim_q(a)[1]) - 1.0) < 1e-12);
    nh_sim_destroy(a);
    nh_sim_destroy(b);
  }
  ENSURE(err[0] < 1e-4 && err[1] <= DEL_BOWL_DRIFT * err[0]);
  nh_model_destroy(bowl);
  nh_model_destroy(pend);
  return 0;
}

/* The spring cradle: three unit masses on springs to -1, 0, 1, touching (gaps x2 - x1 - 1,
 * x3 - x2 - 1, elastic), the first moving in at 1. Its simultaneous impacts leave two bodies
 * at rest touching, pressed by nothing (a graze at the rounding of g, which used to be detected
 * again at every step: gni and del ended with a step underflow, rattle and dopri5 stalled).
 * Every method that takes the model runs to t = 20 and keeps the energy 1/2 to its
 * tolerance (an O(h^2) oscillation for the second-order methods). */
static int test_spring_cradle(void) {
  static const char *const text =
      "model scradle\ncoordinates x1 x2 x3\nkinetic 1/2*(x1'^2+x2'^2+x3'^2)\n"
      "potential 1/2*((x1+1)^2+x2^2+(x3-1)^2)\ngap g12: x2-x1-1  impact elastic\n"
      "gap g23: x3-x2-1  impact elastic\ninitial x1 = -1, x2 = 0, x3 = 1, x1' = 1\n";
  const struct {
    const char *method;
    double dE;
  } cases[] = {{"dopri5", 1e-8},      {"dop853", 1e-9},       {"rk4", 1e-9},         {"rk2", 1e-5},
               {"gni", 3e-5},         {"rattle", 3e-5},       {"shake", 3e-5},       {"del", 3e-5},
               {"gni:paper", 3e-5},   {"rattle:paper", 3e-5}, {"shake:paper", 3e-5}};
  nh_model *m = parse(text);
  ENSURE(m);
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    nh_sim *s = make_sim(m, cases[k].method, 0.01);
    ENSURE(s);
    int rc = nh_sim_run(s, 20.0, 0, NULL, NULL);
    const nh_sim_stats *st = nh_sim_get_stats(s);
    printf("  %-7s %s at t = %g: %ld impacts, %ld contact records, energy 0.5 -> %.12f, max relative error %.2e\n",
           cases[k].method, nh_status_name(rc), nh_sim_time(s), nh_sim_impact_count(s), nh_sim_contact_count(s),
           st->energy, st->max_energy_rel_error);
    ENSURE(rc == NH_OK);
    ENSURE_NEAR(nh_sim_time(s), 20.0, 0.0);
    ENSURE(nh_sim_impact_count(s) >= 7);
    ENSURE(st->max_energy_rel_error < cases[k].dE);
    ENSURE_NEAR(st->energy, 0.5, 20.0 * cases[k].dE);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  return 0;
}

/* gni, rattle and shake (the paper's variant; the symmetric one carries nothing) hold a closed
 * contact as a row of their own equations: the driver's
 * projection after a step moves the state by rounding only, and the method goes on from what
 * it carries (its key follows the projected state) instead of restarting at every step. On
 * the slope (rounding in every projection) each step in contact ends with the carried vector
 * keyed by the driver's state. */
static int test_vi_no_restart(void) {
  nh_model *m = particle_model("slope", "", "gap line: y*cos(0.4) - x*sin(0.4)  impact restitution 0.5",
                                "initial x = 0, y = 0");
  ENSURE(m);
  const char *methods[] = {"gni:paper", "rattle:paper", "shake:paper"};
  for (int im = 0; im < 3; im++) {
    nh_sim *s = make_sim(m, methods[im], 1e-3);
    ENSURE(s);
    ENSURE(nh_sim_step(s, 1.0, NULL) == NH_OK && nh_sim_contact_closed(s, 0)); /* closes at t = 0 */
    long kept = 0;
    for (int k = 0; k < 500; k++) {
      ENSURE(nh_sim_step(s, 1.0, NULL) == NH_OK);
      ENSURE(nh_sim_contact_closed(s, 0));
      kept += key_eq(vi_get(&s->st)->kout, s->t, s->x, s->nx);
    }
    printf("  %s: %ld of 500 steps in contact end keyed by the driver's state\n", methods[im], kept);
    ENSURE(kept == 500);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  return 0;
}

/* the closed-form flow (exact) cannot hold a contact: the ball with its parabolic flow ends
 * with NH_ZENO at its accumulation, and the message says why */
static int ball_flow(const double *q0, const double *v0, double tau, double *q, double *v, void *user) {
  (void)user;
  const double y = q0[0] + v0[0] * tau - 0.5 * G * tau * tau, vy = v0[0] - G * tau;
  q[0] = y, v[0] = vy;
  return 0;
}

static int test_exact_refuses(void) {
  static const char *names[] = {"y"};
  static const char *gaps[] = {"floor"};
  ball_params p = {1.0, G};
  nh_impact_law law = {NH_IMPACT_RESTITUTION, 0.5};
  double y0 = 1.0, v0 = 0.0;
  nh_model_def d = nh_model_def_default();
  d.name = "flow_ball";
  d.nq = 1, d.ngap = 1;
  d.coord_names = names, d.gap_names = gaps, d.impact = &law;
  d.q0 = &y0, d.v0 = &v0;
  d.mass = ball_mass, d.potential = ball_potential, d.gap = ball_gap, d.flow = ball_flow;
  d.user = &p, d.user_size = sizeof p;
  nh_model *m = nh_model_create(&d, NULL, 0);
  ENSURE(m);
  nh_sim *s = make_sim(m, "exact", 1e-3);
  ENSURE(s);
  int rc = nh_sim_run(s, 10.0, 0, NULL, NULL);
  printf("  exact: %s: %s\n", nh_status_name(rc), nh_sim_message(s));
  ENSURE(rc == NH_ZENO);
  ENSURE(strstr(nh_sim_message(s), "method 'exact' cannot hold it (a closed-form flow of the free model") != NULL);
  ENSURE(nh_sim_time(s) < sqrt(2.0 / G) * 3.0 && nh_sim_q(s)[0] >= 0.0);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* An elastic foot pressed into the floor by a damped spring (k = 2000, c = 20) to a body of
 * mass 10 chatters: its intervals shrink at a ratio near 1 and never accumulate in finite time
 * (the Zeno rule took 4.7 million impacts, to t = 2.158, with either method). The chatter rule
 * closes it at the first bounce that would rise less than the method resolves (apex
 * vn^2 / (2 lambda), the foot's D = 1): rk4 (h = 1e-3) below lambda h^2 / 8, dopri5 below
 * atol + rtol |yf| (dg = (1, 0)); then the foot rests and the body is the damped oscillator 10 yb'' =
 * -c yb' - k (yb - yb*), yb* = 0.1 - 10 g / k, from its state at the closing. Its yb(3) is
 * compared with that closed form and with the run that bounced to the end (dopri5, 4.7 million
 * impacts, yb(3) = 0.049870615302858773) */
static int test_pressed_foot(void) {
  static const char *const foot_text =
      "model pressed_foot\ncoordinates yf yb\nparameter k = 2000\nparameter c = 20\n"
      "kinetic 1/2*yf'^2 + 1/2*10*yb'^2\npotential 9.81*yf + 10*9.81*yb + 1/2*k*(yb - yf - 0.1)^2\n"
      "force yf: c*(yb' - yf')\nforce yb: -c*(yb' - yf')\ngap floor: yf  impact restitution 1\n"
      "initial yf = 0.05, yb = 0.1\n";
  static const struct {
    const char *method;
    double t_close, dt_close; /* the closing time, its tolerance */
    long max_impacts;
    double tol_cf, tol_bounced; /* yb(3) against the closed form, the bounced run */
  } cases[] = {{"rk4", 0.599189164, 1e-6, 200, 1e-9, 1e-6}, {"dopri5", 1.8409457, 1e-4, 600000, 1e-10, 1e-10}};
  const double yb_bounced = 0.049870615302858773, ybs = 0.1 - 10.0 * G / 2000.0, wd = sqrt(200.0 - 1.0);
  nh_model *m = parse(foot_text);
  ENSURE(m);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nh_sim *s = make_sim(m, cases[i].method, 1e-3);
    ENSURE(s);
    ENSURE(nh_sim_run(s, 3.0, 0, NULL, NULL) == NH_OK && nh_sim_time(s) == 3.0);
    nh_contact_record c;
    nh_impact_record r;
    const long ni = nh_sim_impact_count(s);
    ENSURE(nh_sim_contact_count(s) == 1 && nh_sim_contact_get(s, 0, &c) == NH_OK && nh_sim_contact_closed(s, 0));
    ENSURE(c.kind == NH_CONTACT_CLOSE && c.reason == NH_CONTACT_CHATTER && c.ratio >= NH_CONTACT_SLOW_RATIO && c.ratio < 1.0);
    ENSURE(nh_sim_impact_get(s, ni - 1, &r) == NH_OK && r.t == c.t && r.status == NH_OK);
    // the bounce it closed on: below the method's resolution, and the first (within r^2 of it)
    const double apex = r.vn_after * r.vn_after / (2.0 * c.lambda), yb0 = c.x[1], vb0 = c.x[3];
    const double res = i == 0 ? c.lambda * 1e-3 * 1e-3 / 8.0 : 1e-12 + 1e-10 * fabs(c.x[0]);
    // then a damped oscillator: x = yb - yb*, x'' + 2 x' + 200 x = 0
    const double tt = 3.0 - c.t, x0 = yb0 - ybs, yb = ybs + exp(-tt) * (x0 * cos(wd * tt) + (vb0 + x0) / wd * sin(wd * tt));
    printf("  %s: %ld impacts, closed at t = %.12g (ratio %.6f), apex %.3g of %.3g; yb(3) %.17g: closed form %+.2g, "
           "bounced %+.2g\n", cases[i].method, ni, c.t, c.ratio, apex, res, nh_sim_q(s)[1], nh_sim_q(s)[1] - yb,
           nh_sim_q(s)[1] - yb_bounced);
    ENSURE(ni <= cases[i].max_impacts && fabs(c.t - cases[i].t_close) < cases[i].dt_close);
    ENSURE(apex <= res && apex >= c.ratio * c.ratio * res * 0.5);
    ENSURE(fabs(nh_sim_q(s)[0]) < 1e-12 && fabs(nh_sim_v(s)[0]) < 1e-12);
    ENSURE(fabs(nh_sim_q(s)[1] - yb) < cases[i].tol_cf && fabs(nh_sim_q(s)[1] - yb_bounced) < cases[i].tol_bounced);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  return 0;
}

/* Three balls stacked on a floor (issue 27): gaps floor y1 - 0.5, b12 y2 - y1 - 1, b23
 * y3 - y2 - 1, gravity, restitution e. gni, rattle and shake, at two steps, from rest on each
 * other, dropped from small separations and from the start: every run ends NH_OK
 * (gni ended with NH_ERR_NO_CONVERGENCE as soon as all three contacts were closed: its
 * midpoint start measured its residual against |y| = 0, vi.h), every gap stays above
 * -STACK_GAP_TOL at every step and impact (an observer), the energy is never above its
 * initial value by more than STACK_E_TOL (relative), and, with e < 1 or from rest, the three
 * contacts end closed with the stack at rest on the floor; with e = 1 dropped, the energy is
 * kept to STACK_E_TOL unless a contact closed (elastic bounces between touching balls chatter
 * faster than the step: the fixed-step rule closes them, docs/contact.md). */
#define STACK_GAP_TOL 1e-12 /* a held or located gap: its rounding (|q| <= 3.2) */
#define STACK_E_TOL 1e-11   /* constant gravity: the steps are exact parabolas (shake: 5.4e-13 at h = 1e-3) */
typedef struct stack_obs {
  const nh_model *m;
  double gmin, emax;
} stack_obs;

static int stack_observe(const nh_sim *s, nh_sample_kind kind, double t, const double *q, const double *v, void *user) {
  (void)s, (void)kind, (void)t;
  stack_obs *o = user;
  double g[3];
  if (o->m->gap(q, g, NULL, o->m->user)) return 1;
  for (int i = 0; i < 3; i++) o->gmin = fmin(o->gmin, g[i]);
  const double E = 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + G * (q[0] + q[1] + q[2]);
  o->emax = fmax(o->emax, E);
  return 0;
}

static int test_stack(void) {
  static const double starts[][3] = {{0.5, 1.5, 2.5}, {0.51, 1.53, 2.56}, {0.6, 1.8, 3.2}};
  static const double es[] = {0.0, 0.5, 1.0}, hs[] = {1e-2, 1e-3};
  static const char *const methods[] = {"gni", "rattle", "shake", "gni:paper", "rattle:paper", "shake:paper"};
  for (size_t is = 0; is < 3; is++)
    for (size_t ie = 0; ie < 3; ie++) {
      char text[512];
      snprintf(text, sizeof text,
               "model stack3\ncoordinates y1 y2 y3\nkinetic 1/2*(y1'^2 + y2'^2 + y3'^2)\npotential 9.81*(y1 + y2 + y3)\n"
               "gap floor: y1 - 0.5 impact restitution %.17g\ngap b12: y2 - y1 - 1 impact restitution %.17g\n"
               "gap b23: y3 - y2 - 1 impact restitution %.17g\ninitial y1 = %.17g, y2 = %.17g, y3 = %.17g\n",
               es[ie], es[ie], es[ie], starts[is][0], starts[is][1], starts[is][2]);
      nh_model *m = parse(text);
      ENSURE(m);
      const double E0 = G * (starts[is][0] + starts[is][1] + starts[is][2]);
      const int rests = is == 0 || es[ie] < 1.0; /* ends at rest on the floor */
      for (size_t im = 0; im < 6; im++)
        for (size_t ih = 0; ih < 2; ih++) {
          nh_sim *s = make_sim(m, methods[im], hs[ih]);
          ENSURE(s);
          stack_obs o = {m, INFINITY, -INFINITY};
          const int rc = nh_sim_run(s, 5.0, 0, stack_observe, &o);
          const double *q = nh_sim_q(s), *v = nh_sim_v(s), E = nh_sim_get_stats(s)->energy;
          int closed = 0;
          for (int i = 0; i < 3; i++) closed += nh_sim_contact_closed(s, i);
          printf("  %-6s h %g, e %g, start %g %g %g: %s, %ld impacts, %d closed, min gap %.2e, max E - E0 %.2e, "
                 "end E - E0 %.2e\n", methods[im], hs[ih], es[ie], starts[is][0], starts[is][1], starts[is][2],
                 nh_status_name(rc), nh_sim_impact_count(s), closed, o.gmin, (o.emax - E0) / E0, (E - E0) / E0);
          ENSURE(rc == NH_OK && nh_sim_time(s) == 5.0);
          ENSURE(o.gmin >= -STACK_GAP_TOL);
          ENSURE(o.emax <= E0 * (1.0 + STACK_E_TOL));
          if (rests) {
            ENSURE(closed == 3);
            for (int i = 0; i < 3; i++) ENSURE(fabs(q[i] - (0.5 + i)) <= STACK_GAP_TOL && fabs(v[i]) <= STACK_GAP_TOL);
          } else if (nh_sim_contact_count(s) == 0) { /* elastic: only a closing (chatter below h) dissipates */
            ENSURE_NEAR(E, E0, STACK_E_TOL * E0);
          }
          nh_sim_destroy(s);
        }
      nh_model_destroy(m);
    }
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_zeno_table);
  RUN_TEST(test_slope);
  RUN_TEST(test_curved_floors);
  RUN_TEST(test_bowl_constrained);
  RUN_TEST(test_del_constrained);
  RUN_TEST(test_spring_cradle);
  RUN_TEST(test_vi_no_restart);
  RUN_TEST(test_exact_refuses);
  RUN_TEST(test_pressed_foot);
  RUN_TEST(test_stack);
  return TEST_SUMMARY();
}
