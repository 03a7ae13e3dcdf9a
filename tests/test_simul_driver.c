/* test_simul_driver.c - simultaneous impacts through the driver (nh_sim_run): the gaps
 * touching at a located impact resolved together by nh_simul_resolve (src/sim/simul.c,
 * docs/simultaneous-impacts.md), on Newton's cradle (a C model and examples/cradle3.nh). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "nholo/modelfile.h"
#include "nholo/sim.h"

/* three balls of diameter 1 on a line; masses in user; gaps left = x2 - x1 - 1, right =
 * x3 - x2 - 1 (and, with ngap = 3, the dependent far = x3 - x1 - 2) */
static int cradle_mass(const double *q, double *M, void *user) {
  const double *m = user;
  (void)q;
  memset(M, 0, 9 * sizeof *M);
  M[0] = m[0], M[4] = m[1], M[8] = m[2];
  return 0;
}
static int cradle_gap(const double *q, double *g, double *dg, void *user) {
  const int ng = (int)((const double *)user)[3];
  if (g) {
    g[0] = q[1] - q[0] - 1.0, g[1] = q[2] - q[1] - 1.0;
    if (ng > 2) g[2] = q[2] - q[0] - 2.0;
  }
  if (dg) {
    static const double rows[9] = {-1, 1, 0, 0, -1, 1, -1, 0, 1};
    memcpy(dg, rows, sizeof(double) * 3 * (size_t)ng);
  }
  return 0;
}
static nh_model *cradle(double m1, double m2, double m3, const double *v0, double e, int ng) {
  static const char *coords[] = {"x1", "x2", "x3"}, *gaps[] = {"left", "right", "far"};
  const double user[4] = {m1, m2, m3, (double)ng}, q0[3] = {0, 1, 2};
  nh_impact_law law[3];
  for (int i = 0; i < 3; i++) law[i] = e < 0 ? (nh_impact_law){NH_IMPACT_ELASTIC, 1.0} : (nh_impact_law){NH_IMPACT_RESTITUTION, e};
  nh_model_def d = nh_model_def_default();
  d.name = "cradle", d.nq = 3, d.ngap = ng;
  d.coord_names = coords, d.gap_names = gaps, d.impact = law;
  d.q0 = q0, d.v0 = v0;
  d.mass = cradle_mass, d.gap = cradle_gap;
  d.user = user, d.user_size = sizeof user;
  return nh_model_create(&d, NULL, 0);
}
static nh_sim *make(const nh_model *m, int order, double simul_tol) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("dopri5");
  d.simul_order = order;
  d.simul_tol = simul_tol;
  return nh_sim_create(m, &d, NULL, 0);
}
static double kinetic(const double *m, const double *v) {
  return 0.5 * (m[0] * v[0] * v[0] + m[1] * v[1] * v[1] + m[2] * v[2] * v[2]);
}

/* equal masses, (1, 0, 0): one simultaneous record, (0, 0, 1), energy and momentum kept */
static int test_equal_elastic(void) {
  const double v0[3] = {1, 0, 0}, mass[3] = {1, 1, 1};
  nh_model *m = cradle(1, 1, 1, v0, -1, 2);
  ENSURE(m);
  nh_sim *s = make(m, NH_SIMUL_MOST_INFEASIBLE, 1e-9);
  ENSURE(s && nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_impact_count(s) == 1 && nh_sim_get_stats(s)->impacts == 1);
  nh_impact_record r;
  ENSURE(nh_sim_impact_get(s, 0, &r) == NH_OK);
  ENSURE(r.contacts == 2 && r.contact_gap[0] == 0 && r.contact_gap[1] == 1 && r.status == NH_OK);
  ENSURE(r.law == NH_SIMUL_ELASTIC && r.restitution == 1.0 && r.reflections == 2);
  ENSURE(r.sequence[0] == 0 && r.sequence[1] == 1);
  ENSURE_NEAR(r.impulse[0], 1.0, 1e-12); /* ball 1 stops, ball 3 takes its momentum */
  ENSURE_NEAR(r.impulse[1], 1.0, 1e-12);
  ENSURE_NEAR(r.alpha, -r.impulse[0], 0.0);
  ENSURE_NEAR(r.contact_vn_before[0], -1.0, 0.0);
  ENSURE_NEAR(r.contact_vn_after[1], 1.0, 1e-12);
  const double *v = r.v_after;
  ENSURE_NEAR(v[0], 0.0, 1e-12);
  ENSURE_NEAR(v[1], 0.0, 1e-12);
  ENSURE_NEAR(v[2], 1.0, 1e-12);
  ENSURE_NEAR(kinetic(mass, v), kinetic(mass, v0), 1e-12);
  ENSURE_NEAR(v[0] + v[1] + v[2], 1.0, 1e-12);
  v = nh_sim_v(s);
  ENSURE_NEAR(v[2], 1.0, 1e-12);
  ENSURE_NEAR(nh_sim_q(s)[2], 3.0, 1e-9); /* flew off for 1 s */
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* masses (1, 2, 1), (1, 0, -1): indeterminate; the two policies reach the two outcomes */
static int check_outcome(nh_model *m, int order, const double *want, int first) {
  nh_sim *s = make(m, order, 1e-9);
  ENSURE(s && nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_impact_count(s) == 1);
  nh_impact_record r;
  ENSURE(nh_sim_impact_get(s, 0, &r) == NH_OK && r.contacts == 2 && r.policy == order);
  ENSURE(r.reflections == 3 && r.sequence[0] == first && r.sequence[1] == 1 - first && r.sequence[2] == first);
  for (int i = 0; i < 3; i++) ENSURE_NEAR(r.v_after[i], want[i], 1e-12);
  ENSURE(r.impulse[0] > 0.0 && r.impulse[1] > 0.0);
  ENSURE_NEAR(r.energy_after, r.energy_before, 1e-12);
  ENSURE_NEAR(r.v_after[0] + 2 * r.v_after[1] + r.v_after[2], 0.0, 1e-12);
  ENSURE(order != NH_SIMUL_ENUMERATE || (r.outcomes == 2 && fabs(r.xi - 20 * sqrt(2.0) / 27) < 1e-12));
  nh_sim_destroy(s);
  return 0;
}
static int test_orders(void) {
  const double v0[3] = {1, 0, -1};
  const double a[3] = {-13.0 / 27, -10.0 / 27, 11.0 / 9}, b[3] = {-11.0 / 9, 10.0 / 27, 13.0 / 27};
  nh_model *m = cradle(1, 2, 1, v0, -1, 2);
  ENSURE(m);
  /* equal rates: most-infeasible ties to the lowest index (left first), least to the highest */
  ENSURE(check_outcome(m, NH_SIMUL_MOST_INFEASIBLE, a, 0) == 0);
  ENSURE(check_outcome(m, NH_SIMUL_LEAST_INFEASIBLE, b, 1) == 0);
  ENSURE(check_outcome(m, NH_SIMUL_INDEX, a, 0) == 0);
  ENSURE(check_outcome(m, NH_SIMUL_ENUMERATE, a, 0) == 0);
  nh_model_destroy(m);
  return 0;
}

/* the model file, with its (1, 2, 1) and with equal masses (--set m2=1) */
static int test_file(void) {
  char path[1024], msg[512];
  snprintf(path, sizeof path, "%s/examples/cradle3.nh", NHOLO_SOURCE_DIR);
  nh_load_opts o = nh_load_opts_default();
  nh_model *m = nh_model_load(path, &o, msg, sizeof msg);
  ENSURE(m);
  const double a[3] = {-13.0 / 27, -10.0 / 27, 11.0 / 9}, b[3] = {-11.0 / 9, 10.0 / 27, 13.0 / 27};
  ENSURE(check_outcome(m, NH_SIMUL_MOST_INFEASIBLE, a, 0) == 0);
  ENSURE(check_outcome(m, NH_SIMUL_LEAST_INFEASIBLE, b, 1) == 0);
  nh_model_destroy(m);
  const char *names[] = {"m2"};
  const double values[] = {1.0};
  o.nset = 1, o.set_names = names, o.set_values = values;
  ENSURE((m = nh_model_load(path, &o, msg, sizeof msg)));
  nh_sim *s = make(m, NH_SIMUL_MOST_INFEASIBLE, 1e-9);
  ENSURE(s && nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_OK && nh_sim_impact_count(s) == 1);
  nh_impact_record r;
  ENSURE(nh_sim_impact_get(s, 0, &r) == NH_OK && r.contacts == 2 && r.reflections == 3);
  ENSURE_NEAR(r.v_after[0], -1.0, 1e-12); /* Theorem 3: unique, the outer balls swap speeds */
  ENSURE_NEAR(r.v_after[1], 0.0, 1e-12);
  ENSURE_NEAR(r.v_after[2], 1.0, 1e-12);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* restitution 0: one plastic resolution to the common velocity, no back and forth; gap by gap
 * (simul_tol < 0, the former driver) it takes more impacts */
static int test_plastic(void) {
  const double v0[3] = {1, 0, 0};
  nh_model *m = cradle(1, 1, 1, v0, 0.0, 2);
  ENSURE(m);
  nh_sim *s = make(m, NH_SIMUL_MOST_INFEASIBLE, 1e-9);
  ENSURE(s);
  int rc = nh_sim_run(s, 1.0, 0, NULL, NULL);
  ENSURE(rc == NH_OK && nh_sim_get_stats(s)->impacts == 1);
  nh_impact_record r;
  ENSURE(nh_sim_impact_get(s, 0, &r) == NH_OK && r.contacts == 2 && r.law == NH_SIMUL_PLASTIC);
  ENSURE(r.reflections == 0 && r.restitution == 0.0);
  for (int i = 0; i < 3; i++) ENSURE_NEAR(r.v_after[i], 1.0 / 3, 1e-12);
  ENSURE_NEAR(r.impulse[0], 2.0 / 3, 1e-12);
  ENSURE_NEAR(r.impulse[1], 1.0 / 3, 1e-12);
  ENSURE_NEAR(r.energy_after, 1.0 / 6, 1e-12);
  for (int i = 0; i < 3; i++) ENSURE_NEAR(nh_sim_v(s)[i], 1.0 / 3, 1e-12);
  nh_sim_destroy(s);
  s = make(m, NH_SIMUL_MOST_INFEASIBLE, -1.0);
  ENSURE(s);
  nh_sim_run(s, 1.0, 0, NULL, NULL);
  ENSURE(nh_sim_get_stats(s)->impacts > 1);
  ENSURE(nh_sim_impact_get(s, 0, &r) == NH_OK && r.contacts == 0 && r.contact_gap == NULL);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* linearly dependent normals (far = left + right): the run ends with a status and message,
 * the state before the impact kept; a bad policy is refused at creation */
static int test_failures(void) {
  const double v0[3] = {1, 0, -1};
  nh_model *m = cradle(1, 1, 1, v0, -1, 3);
  ENSURE(m);
  nh_sim *s = make(m, NH_SIMUL_MOST_INFEASIBLE, 1e-9);
  ENSURE(s);
  ENSURE(nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_ERR_DEPENDENT_CONTACTS);
  const char *msg = nh_sim_message(s);
  ENSURE(strstr(msg, "simultaneous impact of 'left', 'right', 'far' at t = ") == msg);
  ENSURE(strstr(msg, " failed: the 3 contact normals are linearly dependent (rank 2 in the kinetic "
                     "metric): contact 'far' is in the span of the contacts before it; the impact "
                     "is not determined"));
  ENSURE(nh_sim_impact_count(s) == 0);
  ENSURE_NEAR(nh_sim_v(s)[0], 1.0, 0.0);
  ENSURE_NEAR(nh_sim_v(s)[2], -1.0, 0.0);
  nh_sim_destroy(s);
  char buf[256];
  nh_sim_def d = nh_sim_def_default();
  d.simul_order = 7;
  ENSURE(nh_sim_create(m, &d, buf, sizeof buf) == NULL);
  ENSURE(strcmp(buf, "simul_order 7 is not a policy (nh_simul_policy: 0 to 3)") == 0);
  nh_model_destroy(m);
  return 0;
}

/* ---- issue 27 point 6: the outcomes in the record, the cap, the plastic fallbacks ------- */

/* a model file's text, the tape back end (no compiler in the loop) */
static nh_model *parse(const char *text) {
  char msg[1024];
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  nh_model *m = nh_model_parse(text, "test.nh", &o, msg, sizeof msg);
  if (!m) fprintf(stderr, "%s\n", msg);
  return m;
}
static nh_sim *make_def(const nh_model *m, int order, int max_outcomes) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("dopri5");
  d.simul_order = order;
  if (max_outcomes > 0) d.simul_max_outcomes = max_outcomes;
  return nh_sim_create(m, &d, NULL, 0);
}

/* five touching balls, every contact approaching: 96 elastic outcomes */
static const char CHAIN5[] =
    "model chain5\ncoordinates x1 x2 x3 x4 x5\n"
    "kinetic 1/2*(2.9*x1'^2 + 0.5*x2'^2 + 3.7*x3'^2 + 2.3*x4'^2 + 0.8*x5'^2)\n"
    "gap g12: x2 - x1 - 1 impact elastic\ngap g23: x3 - x2 - 1 impact elastic\n"
    "gap g34: x4 - x3 - 1 impact elastic\ngap g45: x5 - x4 - 1 impact elastic\n"
    "initial x1 = 0, x2 = 1, x3 = 2, x4 = 3, x5 = 4, x1' = 0.4, x2' = 0.3, x3' = -0.6, x4' = -0.8, "
    "x5' = -1\n";
#define CHAIN5_OUTCOMES 96

/* Every outcome of the record conserves the chain's energy and momentum, is feasible, and
 * M (v_j - v-) = sum Lambda_i dg_i with Lambda_i >= 0; its sequence names contacts of the
 * impact; the followed outcome 0 is the most-infeasible run's record bit for bit (v_after,
 * sequence, impulses). The default cap (64) truncates: the first 64 of the same search, the
 * same run after it; nh_sim_stats counts it. */
static int test_enumerate_record(void) {
  static const double m[5] = {2.9, 0.5, 3.7, 2.3, 0.8};
  nh_model *mod = parse(CHAIN5);
  ENSURE(mod);
  nh_sim *sd = make_def(mod, NH_SIMUL_MOST_INFEASIBLE, 0), *se = make_def(mod, NH_SIMUL_ENUMERATE, 200);
  nh_sim *s64 = make_def(mod, NH_SIMUL_ENUMERATE, 0);
  ENSURE(sd && se && s64);
  ENSURE(nh_sim_run(sd, 0.5, 0, NULL, NULL) == NH_OK && nh_sim_run(se, 0.5, 0, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_run(s64, 0.5, 0, NULL, NULL) == NH_OK);
  nh_impact_record rd, r, r64;
  ENSURE(nh_sim_impact_count(se) == 1 && nh_sim_impact_get(se, 0, &r) == NH_OK && nh_sim_impact_get(sd, 0, &rd) == NH_OK);
  ENSURE(r.contacts == 4 && r.policy == NH_SIMUL_ENUMERATE && r.outcomes == CHAIN5_OUTCOMES && !r.outcomes_truncated);
  ENSURE(r.fallback == NH_SIMUL_FALLBACK_NONE && rd.outcomes == 0 && rd.outcome_v == NULL);
  const double *v0 = r.v_before;
  double E0 = 0, P0 = 0;
  for (int i = 0; i < 5; i++) E0 += 0.5 * m[i] * v0[i] * v0[i], P0 += m[i] * v0[i];
  for (int j = 0; j < r.outcomes; j++) {
    const double *v = r.outcome_v + 5 * j, *lam = r.outcome_impulse + 4 * j;
    double E = 0, P = 0;
    for (int i = 0; i < 5; i++) E += 0.5 * m[i] * v[i] * v[i], P += m[i] * v[i];
    ENSURE_NEAR(E, E0, 1e-13 * E0);
    ENSURE_NEAR(P, P0, 1e-13);
    for (int c = 0; c < 4; c++) ENSURE(lam[c] >= 0.0 && v[c + 1] - v[c] >= -1e-12);
    for (int i = 0; i < 5; i++) /* contact c (gap c) pushes ball c back, ball c + 1 on */
      ENSURE_NEAR(m[i] * (v[i] - v0[i]), (i < 4 ? -lam[i] : 0.0) + (i > 0 ? lam[i - 1] : 0.0), 1e-13);
    for (int q = 0; q < r.outcome_len[j]; q++) {
      const int g = r.outcome_seq[r.outcome_start[j] + q];
      ENSURE(g >= 0 && g < 4);
    }
    ENSURE(j == 0 || r.outcome_start[j] == r.outcome_start[j - 1] + r.outcome_len[j - 1]);
  }
  /* followed: the default order's branch */
  ENSURE(memcmp(r.outcome_v, r.v_after, 5 * sizeof(double)) == 0);
  ENSURE(memcmp(r.v_after, rd.v_after, 5 * sizeof(double)) == 0);
  ENSURE(r.outcome_len[0] == rd.reflections && r.reflections == rd.reflections);
  ENSURE(memcmp(r.outcome_seq, rd.sequence, sizeof(int) * (size_t)rd.reflections) == 0);
  ENSURE(memcmp(r.outcome_impulse, rd.impulse, 4 * sizeof(double)) == 0);
  ENSURE(memcmp(nh_sim_x(se), nh_sim_x(sd), 10 * sizeof(double)) == 0);
  ENSURE(nh_sim_get_stats(se)->simul_truncated == 0);
  /* the default cap */
  ENSURE(nh_sim_impact_get(s64, 0, &r64) == NH_OK && r64.outcomes == 64 && r64.outcomes_truncated);
  ENSURE(memcmp(r64.outcome_v, r.outcome_v, 64 * 5 * sizeof(double)) == 0);
  ENSURE(memcmp(r64.outcome_impulse, r.outcome_impulse, 64 * 4 * sizeof(double)) == 0);
  ENSURE(nh_sim_get_stats(s64)->simul_truncated == 1 && nh_sim_get_stats(s64)->simul_fallbacks == 0);
  ENSURE(memcmp(nh_sim_x(s64), nh_sim_x(sd), 10 * sizeof(double)) == 0);
  nh_sim_destroy(sd), nh_sim_destroy(se), nh_sim_destroy(s64);
  /* the cap's range */
  char buf[256];
  nh_sim_def d = nh_sim_def_default();
  ENSURE(d.simul_max_outcomes == 64);
  d.simul_max_outcomes = 0;
  ENSURE(nh_sim_create(mod, &d, buf, sizeof buf) == NULL);
  ENSURE(strcmp(buf, "simul_max_outcomes = 0 must be in [1, 1000000]") == 0);
  nh_model_destroy(mod);
  return 0;
}

/* gaps and energy at every sample: no gap below -GAP_TOL, no energy above E0 (1 + E_TOL) */
#define GAP_TOL 1e-12
#define E_TOL 1e-12
typedef struct watch {
  const nh_model *m;
  double E0, gmin, emax;
} watch;
static int watch_obs(const nh_sim *sim, nh_sample_kind kind, double t, const double *q, const double *v, void *user) {
  watch *w = user;
  double g[3], E = 0.0;
  (void)sim, (void)kind, (void)t;
  nh_model_energy(w->m, q, v, &E);
  w->m->gap(q, g, NULL, w->m->user);
  for (int i = 0; i < w->m->ngap; i++) w->gmin = fmin(w->gmin, g[i]);
  w->emax = fmax(w->emax, E);
  return 0;
}

/* A ball wedged between two walls (x = 0) landing on a tilted floor under gravity: the floor's
 * reflection drives it into the right wall, the propagation would reflect between the walls
 * for ever, and the impact falls back to the plastic map (spec 003 T17), noted in the record.
 * The run ends at t = 3 with the ball at rest in the corner; no gap penetrates, no energy is
 * gained. With a level floor the walls are never reflected: elastic bounces, no fallback. */
static int test_wedged(void) {
  static const char text[] = "model wedged\ncoordinates x y\nkinetic 1/2*(x'^2 + y'^2)\npotential 9.81*y\n"
                             "gap left: x impact elastic\ngap right: -x impact elastic\n"
                             "gap floor: y + %s*x impact elastic\ninitial x = 0, y = 1\n";
  char buf[512];
  for (int tilted = 0; tilted < 2; tilted++) {
    snprintf(buf, sizeof buf, text, tilted ? "0.5" : "0");
    nh_model *m = parse(buf);
    ENSURE(m);
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find("dopri5");
    d.out_dt = 1e-3;
    nh_sim *s = nh_sim_create(m, &d, NULL, 0);
    ENSURE(s);
    watch w = {m, 0.0, INFINITY, -INFINITY};
    nh_model_energy(m, m->q0, m->v0, &w.E0);
    ENSURE(nh_sim_run(s, 3.0, 0, watch_obs, &w) == NH_OK && nh_sim_time(s) == 3.0);
    ENSURE(w.gmin >= -GAP_TOL && w.emax <= w.E0 * (1 + E_TOL));
    nh_impact_record r;
    ENSURE(nh_sim_impact_get(s, 0, &r) == NH_OK && r.contacts == 3);
    ENSURE_NEAR(r.t, sqrt(2.0 / 9.81), 1e-12);
    ENSURE(r.energy_after <= r.energy_before * (1 + E_TOL));
    if (tilted) {
      ENSURE(r.fallback == NH_SIMUL_FALLBACK_OPPOSING && r.fallback_gap[0] == 0 && r.fallback_gap[1] == 1);
      ENSURE(r.law == NH_SIMUL_PLASTIC && r.restitution == 0.0 && r.reflections == 0);
      ENSURE(nh_sim_get_stats(s)->simul_fallbacks >= 1);
      ENSURE(r.energy_after <= 1e-12 * r.energy_before); /* the ball stopped in the corner */
      ENSURE(fabs(nh_sim_v(s)[0]) + fabs(nh_sim_v(s)[1]) <= 1e-12 && fabs(nh_sim_q(s)[1]) <= 1e-12);
    } else {
      ENSURE(r.fallback == NH_SIMUL_FALLBACK_NONE && nh_sim_get_stats(s)->simul_fallbacks == 0);
      ENSURE(r.law == NH_SIMUL_ELASTIC && r.reflections == 1 && r.sequence[0] == 2);
      ENSURE_NEAR(r.energy_after, r.energy_before, 1e-12 * r.energy_before);
      ENSURE(nh_sim_get_stats(s)->impacts == 3); /* bounces at T, 3T, 5T < 3 with T = 0.4515 */
    }
    nh_sim_destroy(s);
    nh_model_destroy(m);
  }
  return 0;
}

/* A plastic (Clark & Bloch) law at a simultaneous impact with a velocity constraint
 * z' = x' - y': the plastic complementarity map of the set instead, noted in the record. The
 * wall and the floor are reached together at t = 1; on ker A their normals' cosine is +1/2 and
 * eq. (11) would pull on the floor; the wall alone stops: v+ = (0, 0.3, -0.3), Lambda =
 * (1.5, 0), what nh_simul_resolve's plastic law gives for the same problem. */
static int test_constrained_plastic(void) {
  nh_model *m = parse("model skate_corner\ncoordinates x y z\nkinetic 1/2*(x'^2 + y'^2 + z'^2)\n"
                      "constraint c: z' - x' + y' = 0\ngap wall: x impact plastic\ngap floor: y impact plastic\n"
                      "initial x = 1, y = 0.2, z = 0, x' = -1, y' = -0.2, z' = -0.8\n");
  ENSURE(m);
  nh_sim *s = make_def(m, NH_SIMUL_MOST_INFEASIBLE, 0);
  ENSURE(s && nh_sim_run(s, 2.0, 0, NULL, NULL) == NH_OK);
  nh_impact_record r;
  ENSURE(nh_sim_impact_count(s) == 1 && nh_sim_impact_get(s, 0, &r) == NH_OK && r.contacts == 2);
  ENSURE_NEAR(r.t, 1.0, 1e-12);
  ENSURE(r.fallback == NH_SIMUL_FALLBACK_CONSTRAINED_PLASTIC && r.fallback_gap[0] == 0 && r.fallback_gap[1] == -1);
  ENSURE(r.law == NH_SIMUL_PLASTIC && nh_sim_get_stats(s)->simul_fallbacks == 1);
  const double *v = r.v_after;
  ENSURE(fabs(v[0]) <= 1e-15 && fabs(v[1] - 0.3) <= 1e-15 && fabs(v[2] + 0.3) <= 1e-15);
  ENSURE(fabs(v[2] - v[0] + v[1]) <= 1e-15); /* A v+ = 0 */
  ENSURE_NEAR(r.impulse[0], 1.5, 1e-14);
  ENSURE(r.impulse[1] == 0.0 && r.contact_vn_after[1] > 0.0); /* the floor separates, no impulse */
  ENSURE_NEAR(r.energy_before, 0.84, 1e-14);
  ENSURE_NEAR(r.energy_after, 0.09, 1e-14);
  /* the same problem through nh_simul_resolve */
  double M[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, A[3] = {-1, 1, 1}, dg[6] = {1, 0, 0, 0, 1, 0}, vp[3];
  nh_simul_problem pb = {3, 1, 2, M, A, dg};
  nh_simul_opts o = nh_simul_opts_default();
  o.law = NH_SIMUL_PLASTIC;
  void *work = malloc(nh_simul_work_size(3, 1, 2, &o));
  nh_simul_result res;
  ENSURE(work && nh_simul_resolve(&pb, r.v_before, &o, vp, &res, work, NULL, 0) == NH_OK);
  for (int i = 0; i < 3; i++) ENSURE_NEAR(vp[i], v[i], 1e-15);
  ENSURE(res.plastic_pivots == 1); /* from {wall, floor} (eq. 11, pulling on the floor) to {wall} */
  free(work);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_equal_elastic);
  RUN_TEST(test_orders);
  RUN_TEST(test_file);
  RUN_TEST(test_plastic);
  RUN_TEST(test_failures);
  RUN_TEST(test_enumerate_record);
  RUN_TEST(test_wedged);
  RUN_TEST(test_constrained_plastic);
  return TEST_SUMMARY();
}
