/* test_simul_persist.c - persistent (closed) contacts in a simultaneous impact (src/sim/simul.c,
 * docs/simultaneous-impacts.md "In the driver"): a gap that strikes while other contacts are
 * closed is resolved together with them by the propagative model; a closed contact is at
 * rate 0 (feasible), is reflected in turn when another reflection drives it into its wall,
 * and opens after the impact when it separates. Two set-ups: a cradle whose balls B and C are
 * held together by an internal force (their contact closed) struck by A; a ball resting on the
 * floor (closed) struck from above by another. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "nholo/modelfile.h"
#include "nholo/sim.h"

/* three balls on a line, B and C pressed together by an internal force F (potential F (x3 -
 * x2)); A at 0.5 from B, arriving at speed 1 */
static const char *PRESSED =
    "model pressed\n"
    "coordinates x1 x2 x3\n"
    "parameter m1 = 1\nparameter m2 = 1\nparameter m3 = 1\nparameter F = 1\n"
    "kinetic 1/2*(m1*x1'^2 + m2*x2'^2 + m3*x3'^2)\n"
    "potential F*(x3 - x2)\n"
    "gap left: x2 - x1 - 1    impact elastic\n"
    "gap right: x3 - x2 - 1   impact elastic\n"
    "initial x1 = -0.5, x2 = 1, x3 = 2, x1' = 1\n";

/* two balls of diameter 1 on a vertical line under gravity: the lower one resting on the
 * floor, the upper one dropped from H above it */
static const char *STACK =
    "model stack\n"
    "coordinates y1 y2\n"
    "parameter m1 = 1\nparameter m2 = 1\nparameter grav = 9.81\nparameter H = 0.5\nparameter e = 1\n"
    "kinetic 1/2*(m1*y1'^2 + m2*y2'^2)\n"
    "potential grav*(m1*y1 + m2*y2)\n"
    "gap floor: y1              impact elastic\n"
    "gap contact: y2 - y1 - 1   impact restitution e\n"
    "initial y1 = 0, y2 = 1 + H\n";

static nh_model *parse(const char *text, int nset, const char *const *names, const double *values) {
  char msg[512];
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  o.nset = nset, o.set_names = names, o.set_values = values;
  nh_model *m = nh_model_parse(text, "test.nh", &o, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  return m;
}

static nh_sim *make(const nh_model *m, int order, double simul_tol) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("dopri5");
  d.simul_order = order;
  d.simul_tol = simul_tol;
  return nh_sim_create(m, &d, NULL, 0);
}

/* the index of the first contact-log record of gap gi of kind `kind` (-1: none) */
static long contact_event(const nh_sim *s, int gi, int kind) {
  for (long k = 0; k < nh_sim_contact_count(s); k++) {
    nh_contact_record r;
    if (nh_sim_contact_get(s, k, &r) == NH_OK && r.gap == gi && r.kind == kind) return k;
  }
  return -1;
}

/* the first simultaneous record (the strike; a contact closing at rest may bounce at the
 * rounding of the force first): its index, -1 when none */
static long strike(const nh_sim *s, nh_impact_record *r) {
  for (long k = 0; k < nh_sim_impact_count(s); k++)
    if (nh_sim_impact_get(s, k, r) == NH_OK && r->contacts >= 2) return k;
  return -1;
}

/* M (v+ - v-) = sum_i Lambda_i dg_i^T for a diagonal M and constant gradients dg (k x nq) */
static int impulse_balance(const nh_impact_record *r, int nq, const double *m, const double *dg) {
  for (int i = 0; i < nq; i++) {
    double s = 0.0;
    for (int j = 0; j < r->contacts; j++) s += r->impulse[j] * dg[r->contact_gap[j] * nq + i];
    ENSURE_NEAR(m[i] * (r->v_after[i] - r->v_before[i]), s, 1e-12);
  }
  return 0;
}

/* the pressed cradle: right closes at rest within the first microsecond (two bounces of the
 * force's rounding first; its normal force F); A strikes at t = 0.5 and the
 * propagation goes left, right (through the closed contact): (0, 0, 1) exactly as the touching
 * cradle; right separates and opens, energy and total momentum kept */
static int test_pressed_cradle(void) {
  nh_model *m = parse(PRESSED, 0, NULL, NULL);
  ENSURE(m);
  nh_sim *s = make(m, NH_SIMUL_MOST_INFEASIBLE, 1e-9);
  ENSURE(s && nh_sim_run(s, 0.75, 0, NULL, NULL) == NH_OK);
  long kc = contact_event(s, 1, NH_CONTACT_CLOSE);
  nh_contact_record c;
  ENSURE(kc >= 0 && nh_sim_contact_get(s, kc, &c) == NH_OK && c.t < 1e-6 && c.reason == NH_CONTACT_REST);
  ENSURE_NEAR(c.lambda, 1.0, 1e-9); /* the normal force F */
  nh_impact_record r;
  ENSURE(strike(s, &r) == nh_sim_impact_count(s) - 1);
  ENSURE_NEAR(r.t, 0.5, 1e-9);
  ENSURE(r.contacts == 2 && r.contact_gap[0] == 0 && r.contact_gap[1] == 1 && r.law == NH_SIMUL_ELASTIC);
  ENSURE(r.reflections == 2 && r.sequence[0] == 0 && r.sequence[1] == 1);
  ENSURE_NEAR(r.contact_vn_before[0], -1.0, 1e-12);
  ENSURE(fabs(r.contact_vn_before[1]) <= 1e-12); /* the closed contact: rate 0 */
  ENSURE_NEAR(r.impulse[0], 1.0, 1e-12);
  ENSURE_NEAR(r.impulse[1], 1.0, 1e-12);
  const double want[3] = {0, 0, 1}, mass[3] = {1, 1, 1}, dg[6] = {-1, 1, 0, 0, -1, 1};
  for (int i = 0; i < 3; i++) ENSURE_NEAR(r.v_after[i], want[i], 1e-12);
  ENSURE_NEAR(r.energy_after, r.energy_before, 1e-12 * r.energy_before);
  ENSURE_NEAR(r.v_after[0] + r.v_after[1] + r.v_after[2], 1.0, 1e-12);
  ENSURE(impulse_balance(&r, 3, mass, dg) == 0);
  /* right separates: opened by the impact, at its time */
  long ko = contact_event(s, 1, NH_CONTACT_OPEN);
  ENSURE(ko > kc && nh_sim_contact_get(s, ko, &c) == NH_OK && c.reason == NH_CONTACT_SEPARATION);
  ENSURE_NEAR(c.t, r.t, 0.0);
  ENSURE(!nh_sim_contact_closed(s, 0) && !nh_sim_contact_closed(s, 1));
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* unequal masses (1, 2, 3): the outcome through the closed contact equals the touching
 * cradle's (no force, B and C touching at rest, open) under every policy */
static int test_pressed_equals_touching(void) {
  static const char *names[] = {"m2", "m3", "F"};
  const double pressed[3] = {2, 3, 1}, touching[3] = {2, 3, 0};
  nh_model *mp = parse(PRESSED, 3, names, pressed), *mt = parse(PRESSED, 3, names, touching);
  ENSURE(mp && mt);
  const double mass[3] = {1, 2, 3}, dg[6] = {-1, 1, 0, 0, -1, 1};
  for (int order = NH_SIMUL_MOST_INFEASIBLE; order <= NH_SIMUL_ENUMERATE; order++) {
    nh_sim *sp = make(mp, order, 1e-9), *st = make(mt, order, 1e-9);
    ENSURE(sp && st);
    ENSURE(nh_sim_run(sp, 0.6, 0, NULL, NULL) == NH_OK && nh_sim_run(st, 0.6, 0, NULL, NULL) == NH_OK);
    ENSURE(contact_event(sp, 1, NH_CONTACT_CLOSE) >= 0 && nh_sim_contact_count(st) == 0);
    nh_impact_record a, b;
    ENSURE(strike(sp, &a) >= 0 && strike(st, &b) == 0 && nh_sim_impact_count(st) == 1);
    ENSURE(a.contacts == 2 && b.contacts == 2 && a.reflections == b.reflections && a.reflections >= 2);
    for (int j = 0; j < a.reflections; j++) ENSURE(a.sequence[j] == b.sequence[j]);
    for (int i = 0; i < 3; i++) ENSURE_NEAR(a.v_after[i], b.v_after[i], 1e-12);
    for (int j = 0; j < 2; j++) ENSURE(a.impulse[j] >= 0.0 && fabs(a.impulse[j] - b.impulse[j]) <= 1e-12);
    ENSURE_NEAR(a.energy_after, a.energy_before, 1e-12 * a.energy_before);
    ENSURE_NEAR(mass[0] * a.v_after[0] + mass[1] * a.v_after[1] + mass[2] * a.v_after[2], 1.0, 1e-12);
    ENSURE(impulse_balance(&a, 3, mass, dg) == 0);
    if (order == NH_SIMUL_MOST_INFEASIBLE)
      printf("  masses (1, 2, 3), A at 1: (%.6f, %.6f, %.6f), sequence of %d\n", a.v_after[0], a.v_after[1],
             a.v_after[2], a.reflections);
    nh_sim_destroy(sp);
    nh_sim_destroy(st);
  }
  nh_model_destroy(mp);
  nh_model_destroy(mt);
  return 0;
}

/* the stack, elastic: ball 1 rests on the floor (closed at t = 0); ball 2 lands at
 * t1 = sqrt(2 H / g) with V = sqrt(2 g H). Propagation contact, floor, contact: ball 1 back at
 * rest (the floor stays closed), ball 2 up at V (it rises to H again); impulses 2V each. With
 * the persistent contacts left out (simul_tol < 0, the former driver) the floor contact is
 * projected onto instead and ball 2 leaves with 0: all of its energy lost. */
static int test_stack(void) {
  nh_model *m = parse(STACK, 0, NULL, NULL);
  ENSURE(m);
  const double g = 9.81, H = 0.5, t1 = sqrt(2 * H / g), V = sqrt(2 * g * H);
  nh_sim *s = make(m, NH_SIMUL_MOST_INFEASIBLE, 1e-9);
  ENSURE(s && nh_sim_run(s, t1 + V / g, 0, NULL, NULL) == NH_OK);
  ENSURE(contact_event(s, 0, NH_CONTACT_CLOSE) == 0);
  nh_impact_record r;
  ENSURE(strike(s, &r) == nh_sim_impact_count(s) - 1);
  ENSURE_NEAR(r.t, t1, 1e-9);
  ENSURE(r.contacts == 2 && r.contact_gap[0] == 0 && r.contact_gap[1] == 1);
  ENSURE(r.reflections == 3 && r.sequence[0] == 1 && r.sequence[1] == 0 && r.sequence[2] == 1);
  ENSURE(fabs(r.contact_vn_before[0]) <= 1e-12);
  ENSURE_NEAR(r.contact_vn_before[1], -V, 1e-9);
  ENSURE_NEAR(r.v_after[0], 0.0, 1e-9);
  ENSURE_NEAR(r.v_after[1], V, 1e-9);
  ENSURE_NEAR(r.impulse[0], 2 * V, 1e-9);
  ENSURE_NEAR(r.impulse[1], 2 * V, 1e-9);
  ENSURE_NEAR(r.energy_after, r.energy_before, 1e-12 * r.energy_before);
  const double mass[2] = {1, 1}, dg[4] = {1, 0, -1, 1};
  ENSURE(impulse_balance(&r, 2, mass, dg) == 0);
  ENSURE(nh_sim_contact_closed(s, 0) && !nh_sim_contact_closed(s, 1));
  ENSURE(contact_event(s, 0, NH_CONTACT_OPEN) < 0); /* the floor held throughout */
  /* ball 2 at its apex: back at height H above ball 1, ball 1 on the floor */
  ENSURE_NEAR(nh_sim_q(s)[1], (1 + H), 1e-9);
  ENSURE(fabs(nh_sim_q(s)[0]) <= 1e-12);
  nh_sim_destroy(s);
  /* the former driver: the floor projected onto after a single impact */
  s = make(m, NH_SIMUL_MOST_INFEASIBLE, -1.0);
  ENSURE(s && nh_sim_run(s, t1 + 0.01, 0, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_impact_get(s, nh_sim_impact_count(s) - 1, &r) == NH_OK && r.contacts == 0);
  ENSURE_NEAR(r.t, t1, 1e-6);
  ENSURE(fabs(r.v_after[0]) <= 1e-12 && fabs(r.v_after[1]) <= 1e-12);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* a heavy ball on a light one (m2 = 4): a longer propagation (the light ball between floor and
 * heavy ball), the outcome that of the
 * two-contact resolution by nh_simul_resolve with the floor as a contact at rate 0; and
 * restitution 0 between the balls: the plastic projection over both contacts stops both
 * balls, every impulse >= 0, and both contacts are closed after it */
static int test_stack_variants(void) {
  static const char *names[] = {"m2", "e"};
  const double heavy[2] = {4.0, 1.0}, plastic[2] = {1.0, 0.0};
  const double g = 9.81, H = 0.5, t1 = sqrt(2 * H / g), V = sqrt(2 * g * H);
  nh_model *m = parse(STACK, 2, names, heavy);
  ENSURE(m);
  nh_sim *s = make(m, NH_SIMUL_MOST_INFEASIBLE, 1e-9);
  ENSURE(s && nh_sim_run(s, t1 + 0.01, 0, NULL, NULL) == NH_OK);
  nh_impact_record r;
  ENSURE(strike(s, &r) >= 0);
  const double M[4] = {1, 0, 0, 4}, dg[4] = {1, 0, -1, 1}, mass[2] = {1, 4};
  const nh_simul_problem pb = {2, 0, 2, M, NULL, dg};
  nh_simul_opts o = nh_simul_opts_default();
  void *work = malloc(nh_simul_work_size(2, 0, 2, &o));
  ENSURE(work);
  double vm[2] = {0, -V}, vp[2];
  nh_simul_result res;
  ENSURE(nh_simul_resolve(&pb, vm, &o, vp, &res, work, NULL, 0) == NH_OK);
  int same = r.reflections == res.reflections;
  for (int j = 0; same && j < res.reflections; j++) same = r.sequence[j] == res.seq[j];
  free(work); /* res.seq points into it */
  ENSURE(same && r.reflections > 3);
  for (int i = 0; i < 2; i++) ENSURE_NEAR(r.v_after[i], vp[i], 1e-9);
  ENSURE(r.impulse[0] > 0.0 && r.impulse[1] > 0.0);
  ENSURE_NEAR(r.energy_after, r.energy_before, 1e-12 * r.energy_before);
  ENSURE(impulse_balance(&r, 2, mass, dg) == 0);
  printf("  m2 = 4: %d reflections, v+ = (%.6f, %.6f) V\n", r.reflections, r.v_after[0] / V, r.v_after[1] / V);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  ENSURE((m = parse(STACK, 2, names, plastic)));
  ENSURE((s = make(m, NH_SIMUL_MOST_INFEASIBLE, 1e-9)) && nh_sim_run(s, t1 + 0.01, 0, NULL, NULL) == NH_OK);
  ENSURE(strike(s, &r) >= 0 && r.law == NH_SIMUL_PLASTIC);
  ENSURE(fabs(r.v_after[0]) <= 1e-12 && fabs(r.v_after[1]) <= 1e-12);
  ENSURE_NEAR(r.impulse[0], V, 1e-9);
  ENSURE_NEAR(r.impulse[1], V, 1e-9);
  ENSURE(nh_sim_contact_closed(s, 0) && nh_sim_contact_closed(s, 1));
  ENSURE_NEAR(nh_sim_q(s)[1], 1.0, 1e-9);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* the same strike with the fixed-step methods that hold the floor in their own ways (del: by
 * projection, the impact inside its variational step; gni, rattle: as rows; rk4: through the
 * dynamics), h = 0.01: the same propagation, outcome and energy */
static int test_stack_methods(void) {
  static const char *methods[] = {"del", "gni", "rattle", "rk4"};
  nh_model *m = parse(STACK, 0, NULL, NULL);
  ENSURE(m);
  const double g = 9.81, H = 0.5, t1 = sqrt(2 * H / g), V = sqrt(2 * g * H);
  for (int k = 0; k < 4; k++) {
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(methods[k]);
    d.h = 0.01;
    nh_sim *s = nh_sim_create(m, &d, NULL, 0);
    ENSURE(s && nh_sim_run(s, t1 + 0.05, 0, NULL, NULL) == NH_OK);
    nh_impact_record r;
    ENSURE(strike(s, &r) >= 0 && r.contacts == 2 && r.reflections == 3);
    ENSURE(r.sequence[0] == 1 && r.sequence[1] == 0 && r.sequence[2] == 1);
    ENSURE_NEAR(r.t, t1, 1e-9);
    ENSURE_NEAR(r.v_after[0], 0.0, 1e-9);
    ENSURE_NEAR(r.v_after[1], V, 1e-9);
    ENSURE_NEAR(r.energy_after, r.energy_before, 1e-12 * r.energy_before);
    ENSURE(nh_sim_contact_closed(s, 0) && !nh_sim_contact_closed(s, 1));
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_pressed_cradle);
  RUN_TEST(test_pressed_equals_touching);
  RUN_TEST(test_stack);
  RUN_TEST(test_stack_variants);
  RUN_TEST(test_stack_methods);
  return TEST_SUMMARY();
}
