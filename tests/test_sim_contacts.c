/* test_sim_contacts.c - paths of the driver's persistent contacts and simultaneous impacts
 * (src/sim/contact.c, simul.c) that the physical corpora do not reach on purpose, on models of
 * the C API with closed-form answers:
 *   - a held contact whose force turns to pulling when another closes (open_pulling): a
 *     particle at rest in the corner of a floor and a ramp, pushed up the ramp, closes the
 *     floor, then the ramp, which leaves the floor pulling: it opens (NH_CONTACT_TENSION) with
 *     the force g - f cot(beta) and the particle slides up the ramp, for every way a method
 *     holds a contact (rows, projection, del's constraint);
 *   - a graze inside a simultaneous impact: two gaps reached together at a normal rate above
 *     vn_tol but within the resolution's feasibility tolerance relative to a fast tangential
 *     motion (NH_NO_IMPACT from nh_simul_resolve): no impact, the creeping rates stopped, both
 *     gaps resting at their graze level;
 *   - an impact beside a held contact in almost-Poisson form: the ball resting on the floor
 *     slides into a wall; the floor stays held, the wall's law applies (it was refused as two
 *     gaps closing together). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_models.h"
#include "harness.h"
#include "nholo/nholo.h"
#include "sim/sim_impl.h"

#define G 9.81

/* ---- the corner of a floor and a ramp ------------------------------------------------------- */

#define RAMP_F 10.0                   /* the horizontal push up the ramp */
#define RAMP_BETA 0.52359877559829882 /* the ramp's angle, 30 degrees */
#define RAMP_LAMBDA_TOL 1e-12         /* contact forces against their closed forms (relative) */
#define RAMP_Q_TOL 1e-10              /* the slide after 1 s against its closed form (del: O(h^2)) */

static int ramp_mass(const double *q, double *M, void *u) {
  (void)q, (void)u;
  M[0] = 1, M[1] = 0, M[2] = 0, M[3] = 1;
  return 0;
}
static int ramp_potential(const double *q, double *V, double *dV, void *u) {
  (void)u;
  if (V) *V = G * q[1] - RAMP_F * q[0];
  if (dV) dV[0] = -RAMP_F, dV[1] = G;
  return 0;
}
/* floor y >= 0; ramp -x sin(beta) + y cos(beta) >= 0 (rising to the right from the origin) */
static int ramp_gap(const double *q, double *g, double *dg, void *u) {
  (void)u;
  const double sb = sin(RAMP_BETA), cb = cos(RAMP_BETA);
  if (g) g[0] = q[1], g[1] = -q[0] * sb + q[1] * cb;
  if (dg) dg[0] = 0, dg[1] = 1, dg[2] = -sb, dg[3] = cb;
  return 0;
}

static nh_model *ramp_model(void) {
  static const char *const names[] = {"x", "y"}, *const gaps[] = {"floor", "ramp"};
  static const nh_impact_law law[2] = {{NH_IMPACT_RESTITUTION, 0.5}, {NH_IMPACT_RESTITUTION, 0.5}};
  static const double zero[2] = {0, 0};
  nh_model_def d = nh_model_def_default();
  d.name = "ramp", d.nq = 2, d.ngap = 2, d.coord_names = names, d.gap_names = gaps, d.impact = law;
  d.q0 = zero, d.v0 = zero;
  d.mass = ramp_mass, d.potential = ramp_potential, d.gap = ramp_gap;
  return nh_model_create(&d, NULL, 0);
}

/* At rest in the corner both gaps are on their walls. The free fall crosses the floor at
 * once: it closes at rest with the force g; sliding right along it the particle enters the
 * ramp at once: the ramp closes at rest (its force alone f sin(beta) + g cos(beta); with the
 * floor f / sin(beta)), and with both held the floor's force is g - f cot(beta) < 0: it pulls,
 * and opens (tension) at the same instant. Held on the ramp the particle slides up it with the
 * acceleration f cos(beta) - g sin(beta): after 1 s at s = a / 2 along (cos, sin). */
static int test_corner_releases_pulling_floor(void) {
  static const char *const methods[] = {"dopri5", "rk4", "gni", "rattle", "del", "gonzalez"};
  const double sb = sin(RAMP_BETA), cb = cos(RAMP_BETA), a = RAMP_F * cb - G * sb;
  const double lam_floor = G - RAMP_F * cb / sb, lam_ramp = RAMP_F / sb;
  nh_model *m = ramp_model();
  ENSURE(m && lam_floor < 0.0 && a > 0.0);
  for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(methods[k]);
    nh_sim *s = nh_sim_create(m, &d, NULL, 0);
    ENSURE(s);
    const int rc = nh_sim_run(s, 1.0, 0, NULL, NULL);
    const double *q = nh_sim_q(s), *v = nh_sim_v(s);
    printf("  %-8s %s: q = (%.15g, %.15g), %ld contact events\n", methods[k], nh_status_name(rc), q[0], q[1],
           nh_sim_contact_count(s));
    ENSURE(rc == NH_OK && nh_sim_impact_count(s) == 0 && nh_sim_contact_count(s) == 3);
    nh_contact_record c[3];
    for (int i = 0; i < 3; i++) ENSURE(nh_sim_contact_get(s, i, &c[i]) == NH_OK && c[i].t == 0.0);
    ENSURE(c[0].gap == 0 && c[0].kind == NH_CONTACT_CLOSE && c[0].reason == NH_CONTACT_REST);
    ENSURE_REL(c[0].lambda, G, RAMP_LAMBDA_TOL);
    ENSURE(c[1].gap == 1 && c[1].kind == NH_CONTACT_CLOSE && c[1].reason == NH_CONTACT_REST);
    ENSURE_REL(c[1].lambda, lam_ramp, RAMP_LAMBDA_TOL);
    // the floor, pulling once the ramp holds too, released at the same instant
    ENSURE(c[2].gap == 0 && c[2].kind == NH_CONTACT_OPEN && c[2].reason == NH_CONTACT_TENSION);
    ENSURE_REL(c[2].lambda, lam_floor, RAMP_LAMBDA_TOL);
    ENSURE(!nh_sim_contact_closed(s, 0) && nh_sim_contact_closed(s, 1));
    ENSURE_NEAR(q[0], 0.5 * a * cb, RAMP_Q_TOL);
    ENSURE_NEAR(q[1], 0.5 * a * sb, RAMP_Q_TOL);
    ENSURE_NEAR(v[0], a * cb, RAMP_Q_TOL);
    ENSURE_NEAR(v[1], a * sb, RAMP_Q_TOL);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  return 0;
}

/* ---- a graze inside a simultaneous impact -------------------------------------------------- */

#define CREEP_VX 100.0 /* the tangential speed */
#define CREEP_VN 1e-11 /* the normal rates: above vn_tol 1e-12, below feas_tol |v| = 1e-10 */

static int creep_mass(const double *q, double *M, void *u) {
  (void)q, (void)u;
  for (int i = 0; i < 9; i++) M[i] = i % 4 == 0;
  return 0;
}
static int creep_gap(const double *q, double *g, double *dg, void *u) {
  (void)u;
  if (g) g[0] = q[1], g[1] = q[2];
  if (dg) memset(dg, 0, 6 * sizeof(double)), dg[1] = 1, dg[5] = 1;
  return 0;
}

/* A particle moving at x' = 100 reaches the walls y = 0 and z = 0 together at t = 0.1, both
 * creeping in at 1e-11 (an approach by vn_tol, so the single-gap rule sees an impact; both
 * touch, so they are resolved together; relative to |v|_M = 100 the resolution finds no
 * contact approaching). The driver takes it as a graze: no impact logged, one graze counted,
 * both rates stopped by the plastic map (exactly 0: M = I, unit normals), x' kept exactly,
 * and both gaps resting at their graze level, 64 eps max(1, |q|) |dg| below their value
 * (locate.c: not detected again at their rounding); the particle then flies on at y = z ~ 0. */
static int test_graze_in_simultaneous_impact(void) {
  static const char *const names[] = {"x", "y", "z"}, *const gaps[] = {"a", "b"};
  const double q0[3] = {0, 1e-12, 1e-12}, v0[3] = {CREEP_VX, -CREEP_VN, -CREEP_VN};
  nh_model_def md = nh_model_def_default();
  md.name = "creep", md.nq = 3, md.ngap = 2, md.coord_names = names, md.gap_names = gaps;
  md.q0 = q0, md.v0 = v0, md.mass = creep_mass, md.gap = creep_gap;
  nh_model *m = nh_model_create(&md, NULL, 0);
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("dopri5");
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  ENSURE(m && s);
  // step to the graze
  int imp = 0;
  while (nh_sim_get_stats(s)->grazing == 0 && nh_sim_time(s) < 1.0) ENSURE(nh_sim_step(s, 1.0, &imp) == NH_OK && !imp);
  const double *x = nh_sim_x(s);
  printf("  graze at t = %.17g: y = %.3g, z = %.3g, levels %.17g %.17g\n", nh_sim_time(s), x[1], x[2], s->glev[0], s->glev[1]);
  ENSURE_NEAR(nh_sim_time(s), 0.1, 1e-9);
  ENSURE(nh_sim_get_stats(s)->grazing == 1 && nh_sim_impact_count(s) == 0 && nh_sim_contact_count(s) == 0);
  ENSURE(x[3] == CREEP_VX && x[4] == 0.0 && x[5] == 0.0);
  for (int i = 0; i < 2; i++) {
    const double g = x[1 + i], level = fmin(g, 0.0) - NH_CONTACT_APEX_REL * fmax(1.0, fabs(x[0]));
    ENSURE(fabs(g) <= 1e-20);
    ENSURE_NEAR(s->glev[i], level, 1e-28);
  }
  // on to the end: no further event, the walls neither crossed nor touched again
  ENSURE(nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_get_stats(s)->grazing == 1 && nh_sim_impact_count(s) == 0);
  ENSURE_NEAR(x[0], CREEP_VX, 1e-12);
  ENSURE(fabs(x[1]) <= 1e-20 && fabs(x[2]) <= 1e-20 && x[4] == 0.0 && x[5] == 0.0);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* ---- an impact beside a held contact, almost-Poisson form --------------------------------- */

#define AP_WALL_TOL 1e-9 /* the almost-Poisson impact's kappa = d' H'' d by central differences */

/* The ball of fault_models.h in both forms (e = 0.3): its floor contact closes by accumulation,
 * it slides at x' = 1 into the wall x = 2 (t = 2), whose law sends it back at -e while the floor
 * stays held: at t = 2.5, x = 2 - 0.3 * 0.5, y = 0, x' = -0.3, the floor closed; the last
 * impact the wall's, a single record in almost-Poisson form (its floor held, not reached) and a
 * simultaneous one with the held floor in the mechanical form. Every method of the form holds
 * the floor by projection. */
static int test_ap_impact_beside_held_contact(void) {
  static const char *const methods[] = {"dopri5", "rk4", "gonzalez", "avf"};
  const double e = 0.3, t_end = 2.5, x_end = 2.0 - e * (t_end - 2.0);
  fault f = {.g = G, .wall = 2.0};
  nh_model *ma = fault_ball_ap(&f, e, 0), *ml = fault_ball(&f, e, 0, 0, 0);
  ENSURE(ma && ml);
  double x_ref[4];
  for (int k = 0; k < 6; k++) {
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(k < 4 ? methods[k] : "dopri5");
    if (k == 5) d.simul_tol = -1.0; /* one gap at a time: the almost-Poisson run is the same */
    nh_sim *s = nh_sim_create(k < 4 || k == 5 ? ma : ml, &d, NULL, 0);
    ENSURE(s);
    const int rc = nh_sim_run(s, t_end, 0, NULL, NULL);
    const double *x = nh_sim_x(s);
    printf("  %s %-8s: %s, x = %.15g, y = %.3g, x' = %.15g\n", k == 4 ? "mechanical" : "ap", d.method->name,
           nh_status_name(rc), x[0], x[1], x[2]);
    if (k == 0) memcpy(x_ref, x, sizeof x_ref);
    if (k == 5) ENSURE(!memcmp(x, x_ref, sizeof x_ref));
    ENSURE(rc == NH_OK && nh_sim_contact_closed(s, 0) && !nh_sim_contact_closed(s, 1));
    ENSURE_NEAR(x[0], x_end, AP_WALL_TOL);
    ENSURE(fabs(x[1]) <= 1e-12);
    ENSURE_NEAR(x[2], -e, AP_WALL_TOL); /* px (AP) or x' */
    nh_impact_record r;
    ENSURE(nh_sim_impact_get(s, nh_sim_impact_count(s) - 1, &r) == NH_OK);
    ENSURE_NEAR(r.t, 2.0, 1e-9);
    if (k != 4) ENSURE(r.gap == 1 && r.contacts == 0 && r.q == NULL);
    else ENSURE(r.contacts == 2 && r.contact_gap[0] == 0 && r.contact_gap[1] == 1);
    nh_sim_destroy(s);
  }
  nh_model_destroy(ma);
  nh_model_destroy(ml);
  return 0;
}

/* ---- simultaneous impacts in a corner: the log's limit, contacts off -------------------------- */

/* The ball of fault_models.h dropped from (0, 0.5) onto the corner of its floor and a 30 degree
 * ramp (restitution 0.5): both gaps are reached together at every bounce, resolved as one
 * simultaneous impact whose impulse is the floor's alone, (1 + e) |v-| (the reflection off the
 * floor sends the ball straight up, away from the ramp), at t1 (1 + 2 sum e^k), t1 =
 * sqrt(2 0.5 / g), until a bounce below what the floor resolves closes it at rest, short of the
 * Zeno time 3 t1. With log_limit 3 the log keeps records 1, 2 and the latest, each equal to the
 * full log's (its contacts, gaps, impulses and rates from the pools). With contacts off and
 * restitution 0 the ball, at rest in the corner after its plastic impact, can go nowhere: the
 * run ends with NH_STALL, the impact logged, nothing closed. */
static int test_corner_drop_log_limit(void) {
  const double e = 0.5, t1 = sqrt(2.0 * 0.5 / G);
  fault f = {.g = G, .wall = 2.0, .ramp = RAMP_BETA, .start_x = 0.0, .start_y = 0.5};
  nh_model *m = fault_ball(&f, e, 0, 0, 0);
  ENSURE(m);
  nh_sim_def d = nh_sim_def_default();
  nh_sim *full = nh_sim_create(m, &d, NULL, 0), *lim;
  d.log_limit = 3;
  lim = nh_sim_create(m, &d, NULL, 0);
  ENSURE(full && lim);
  ENSURE(nh_sim_run(full, 1.0, 0, NULL, NULL) == NH_OK && nh_sim_run(lim, 1.0, 0, NULL, NULL) == NH_OK);
  const long n = nh_sim_impact_count(full);
  ENSURE(n > 10 && nh_sim_impact_count(lim) == 3 && nh_sim_get_stats(lim)->impacts == n);
  double tk = t1, dt = 2.0 * e * t1;
  for (long k = 0; k < n; k++) {
    nh_impact_record r;
    ENSURE(nh_sim_impact_get(full, k, &r) == NH_OK);
    ENSURE(r.contacts == 2 && r.contact_gap[0] == 0 && r.contact_gap[1] == 1 && r.impulse[1] == 0.0);
    ENSURE_NEAR(r.t, tk, 1e-9);
    ENSURE_NEAR(r.impulse[0], (1.0 + e) * G * (k ? dt / (2.0 * e) : t1), 1e-9);
    tk += dt, dt *= e;
    const long j = k < 2 ? k : k == n - 1 ? 2 : -1;
    if (j < 0) continue;
    nh_impact_record q;
    ENSURE(nh_sim_impact_get(lim, j, &q) == NH_OK && q.t == r.t && q.gap == r.gap && q.contacts == r.contacts);
    for (int c = 0; c < r.contacts; c++)
      ENSURE(q.contact_gap[c] == r.contact_gap[c] && q.impulse[c] == r.impulse[c] &&
             q.contact_vn_before[c] == r.contact_vn_before[c] && q.contact_vn_after[c] == r.contact_vn_after[c]);
  }
  nh_contact_record c;
  ENSURE(nh_sim_contact_count(full) == 1 && nh_sim_contact_get(full, 0, &c) == NH_OK && c.gap == 0);
  ENSURE(c.kind == NH_CONTACT_CLOSE && c.reason == NH_CONTACT_REST && c.t <= 3.0 * t1 && c.t > 3.0 * t1 - 1e-6);
  ENSURE(nh_sim_contact_closed(full, 0) && nh_sim_q(full)[1] == 0.0);
  nh_sim_destroy(full);
  nh_sim_destroy(lim);
  nh_model_destroy(m);
  // contacts off, restitution 0
  d.log_limit = 0, d.contact = 0;
  ENSURE((m = fault_ball(&f, 0.0, 0, 0, 0)) && (full = nh_sim_create(m, &d, NULL, 0)));
  const int rc = nh_sim_run(full, 1.0, 0, NULL, NULL);
  printf("  contacts off: %s, %s\n", nh_status_name(rc), nh_sim_message(full));
  ENSURE(rc == NH_STALL && strstr(nh_sim_message(full), "no progress in t: 1000 consecutive steps"));
  nh_impact_record r;
  ENSURE(nh_sim_impact_count(full) >= 1 && nh_sim_impact_get(full, 0, &r) == NH_OK && r.contacts == 2);
  ENSURE_NEAR(r.t, t1, 1e-9);
  ENSURE(nh_sim_contact_count(full) == 0 && fabs(nh_sim_q(full)[1]) < 1e-12 && fabs(nh_sim_q(full)[0]) < 1e-12);
  nh_sim_destroy(full);
  nh_model_destroy(m);
  return 0;
}

/* An almost-Poisson particle without gravity (g = 0) stopped on its floor by a plastic impact
 * at t = 0.1: at rest there, pressed by nothing (its free g'' is 0: the vector field vanishes),
 * its contact does not close (force 0), and it stays on the floor, at rest, to the end (to the
 * rounding of the impact's kappa). */
static int test_ap_rest_unpressed(void) {
  static const char *const names[] = {"x", "y", "px", "py"};
  const nh_impact_law law[2] = {{NH_IMPACT_RESTITUTION, 0.0}, {NH_IMPACT_RESTITUTION, 0.0}};
  const double x0[4] = {0, 0.1, 0, -1};
  fault f = {.g = 0.0, .wall = 2.0};
  nh_model_def d = nh_model_def_default();
  d.name = "unpressed", d.form = NH_FORM_ODE, d.nx = 4, d.ngap = 2, d.state_names = names, d.gap_names = fb_gaps;
  d.impact = law, d.x0 = x0, d.hamiltonian = fb_ham, d.poisson = fb_poisson, d.hamiltonian_degree = 2;
  d.gap = fb_gap_ap, d.user = &f;
  nh_model *m = nh_model_create(&d, NULL, 0);
  nh_sim *s = m ? nh_sim_create(m, NULL, NULL, 0) : NULL;
  ENSURE(m && s && nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_OK);
  nh_impact_record r;
  ENSURE(nh_sim_impact_count(s) == 1 && nh_sim_impact_get(s, 0, &r) == NH_OK && r.gap == 0);
  ENSURE_NEAR(r.t, 0.1, 1e-12);
  ENSURE_NEAR(r.vn_before, -1.0, 1e-12);
  // (the rate after: 0 to the impact's kappa by central differences, AP_WALL_TOL)
  ENSURE(fabs(r.vn_after) <= AP_WALL_TOL && nh_sim_contact_count(s) == 0 && !nh_sim_contact_closed(s, 0));
  const double *x = nh_sim_x(s);
  ENSURE(fabs(x[1]) <= AP_WALL_TOL && fabs(x[3]) <= AP_WALL_TOL && x[0] == 0.0 && x[2] == 0.0);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_corner_releases_pulling_floor);
  RUN_TEST(test_graze_in_simultaneous_impact);
  RUN_TEST(test_ap_impact_beside_held_contact);
  RUN_TEST(test_corner_drop_log_limit);
  RUN_TEST(test_ap_rest_unpressed);
  return TEST_SUMMARY();
}
