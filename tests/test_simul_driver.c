/* test_simul_driver.c - simultaneous impacts through the driver (nh_sim_run): the gaps
 * touching at a located impact resolved together by nh_simul_resolve (src/sim/simul.c,
 * docs/simultaneous-impacts.md), on Newton's cradle (a C model and examples/cradle3.nh). */
#include <math.h>
#include <stdio.h>
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

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_equal_elastic);
  RUN_TEST(test_orders);
  RUN_TEST(test_file);
  RUN_TEST(test_plastic);
  RUN_TEST(test_failures);
  return TEST_SUMMARY();
}
