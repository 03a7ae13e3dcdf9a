/* test_trex.c - TREX (Seghete & Murphey Sec. VII-B; src/papers/trex*.c, examples/trex.nh):
 * the paper's tail formula and masses (spec 003 T19), the C kinematics against the model
 * file, the double-contact rows, the design optimisation with NLopt (skipped with a message
 * when nholo was built without it), the landing of both gaits through the driver, and the gait's
 * later simultaneous impacts through persistent contacts; the solver's counters of del's run
 * with event location. */
#include <stdlib.h>

#include "harness.h"
#include "nholo/nholo.h"
#include "trex.h"

#define PI 3.14159265358979323846

static const char *trex_path(void) { return NHOLO_SOURCE_DIR "/examples/trex.nh"; }

/* the model file, on the tape (no compiler needed), with the row's design and configuration */
static nh_model *load(const trex_row *row) {
  static const char *names[11] = {"r1", "r2", "lu", "ll", "y0", "th0", "pL0", "gL0", "pR0", "gR0", "pT0"};
  double vals[11] = {0};
  if (row) {
    const double v[11] = {row->d.r1, row->d.r2, row->d.lu, row->d.ll, row->q[1], row->q[2],
                          row->q[3], row->q[4], row->q[5], row->q[6], row->q[7]};
    memcpy(vals, v, sizeof vals);
  }
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  lo.nset = row ? 11 : 0;
  lo.set_names = names;
  lo.set_values = vals;
  char msg[2048];
  nh_model *m = nh_model_load(trex_path(), &lo, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  return m;
}

/* spec 003 T19: L_tail(7, 4), L_tail(6.69, 4.22); 2.5 g/cm limbs of the initial design */
static int test_tail_and_masses(void) {
  ENSURE_NEAR(trex_tail_length(7, 4), 15.862753, 5e-7);
  ENSURE_NEAR(trex_tail_length(6.69, 4.22), 19.867651, 5e-7);
  double mu, ml, mt, m1, m2;
  trex_masses(&(trex_design){7, 4, 8, 10}, &mu, &ml, &mt, &m1, &m2);
  ENSURE_NEAR(mu, 20, 1e-12);
  ENSURE_NEAR(ml, 25, 1e-12);
  ENSURE_NEAR(mt, 39.66, 5e-3);
  ENSURE_NEAR(m1, 1436.755, 1e-3); /* 4/3 pi 7^3 */
  ENSURE_NEAR(m2, 268.083, 1e-3);
  return 0;
}

/* M, the gaps and their gradients of the C kinematics equal the model file's at a state away
 * from the design (the file's default parameters are our optimised row: no --set) */
static int test_geometry_matches_file(void) {
  nh_model *m = load(NULL);
  ENSURE(m != NULL);
  trex_row row;
  trex_optimised_row(&row);
  const double q[TREX_NQ] = {1.5, 20.0, 0.3, 4.0, 5.5, 1.0, 5.0, -0.4};
  double Mc[64], Mf[64], gc[TREX_NGAP], gf[TREX_NGAP], dgc[TREX_NGAP * 8], dgf[TREX_NGAP * 8];
  trex_geometry(&row.d, q, Mc, gc, dgc);
  ENSURE(m->mass(q, Mf, m->user) == 0);
  ENSURE(m->gap(q, gf, dgf, m->user) == 0);
  ENSURE(m->nq == TREX_NQ && m->ngap == TREX_NGAP);
  double scale = 0.0;
  for (int i = 0; i < 64; i++) scale = fmax(scale, fabs(Mf[i]));
  for (int i = 0; i < 64; i++) ENSURE_NEAR(Mc[i], Mf[i], 1e-13 * scale);
  for (int k = 0; k < TREX_NGAP; k++) {
    ENSURE_NEAR(gc[k], gf[k], 1e-12);
    for (int j = 0; j < 8; j++) ENSURE_NEAR(dgc[k * 8 + j], dgf[k * 8 + j], 1e-12);
  }
  nh_model_destroy(m);
  return 0;
}

/* the rows: both contacts closed; our optimised row (the file's) orthogonal; our initial row
 * is the paper's with y and pT moved; the initial gait has straight knees, hips pi apart */
static int test_rows(void) {
  trex_row pi, po, ini, opt, gait;
  double gap[TREX_NGAP];
  char msg[256];
  trex_paper_rows(&pi, &po);
  ENSURE(trex_initial_row(&ini, msg, sizeof msg) == NH_OK);
  trex_geometry(&ini.d, ini.q, NULL, gap, NULL);
  ENSURE(fabs(gap[TREX_TAIL]) <= 1e-12 && fabs(gap[TREX_FOOT_L]) <= 1e-12);
  for (int i = 2; i < 7; i++) ENSURE(ini.q[i] == pi.q[i]);
  ENSURE(fabs(ini.q[1] - pi.q[1]) < 0.2 && fabs(ini.q[7] - pi.q[7]) < 0.1);
  ENSURE_NEAR(ini.c, 4.08e-3, 1e-5); /* not orthogonal: the paper's 1.65e-3 is of the same order */
  trex_optimised_row(&opt);
  trex_geometry(&opt.d, opt.q, NULL, gap, NULL);
  ENSURE(fabs(gap[TREX_TAIL]) <= 1e-12 && fabs(gap[TREX_FOOT_L]) <= 1e-12);
  ENSURE(fabs(opt.c) <= 1e-15);
  ENSURE(trex_initial_gait(&opt, &gait, msg, sizeof msg) == NH_OK);
  trex_geometry(&gait.d, gait.q, NULL, gap, NULL);
  ENSURE(fabs(gap[TREX_TAIL]) <= 1e-12 && fabs(gap[TREX_FOOT_L]) <= 1e-12);
  ENSURE(gait.q[4] == 0.0 && gait.q[6] == 0.0);
  ENSURE_NEAR(fmod(gait.q[5] - gait.q[3] + 4 * PI, 2 * PI), PI, 1e-12);
  ENSURE(gait.q[2] == opt.q[2] && gait.q[7] == opt.q[7]);
  ENSURE(fabs(gait.c) > 1e-3);
  return 0;
}

/* NLopt from our initial row reaches our optimised row (the file's values): gaps 0, c 0 */
static int test_optimise(void) {
  trex_row ini, out, opt;
  char msg[256];
  int evals = -1;
  ENSURE(trex_initial_row(&ini, msg, sizeof msg) == NH_OK);
  int st = trex_optimise(&ini, &out, &evals, msg, sizeof msg);
  if (!trex_have_nlopt()) {
    ENSURE(st == NH_ERR_UNSUPPORTED && strstr(msg, "built without it") && evals == 0);
    SKIP("NLopt not built in, the optimisation refused as it should (%s)", msg);
  }
  ENSURE(st == NH_OK);
  double gap[TREX_NGAP];
  trex_geometry(&out.d, out.q, NULL, gap, NULL);
  ENSURE(fabs(gap[TREX_TAIL]) <= 1e-11 && fabs(gap[TREX_FOOT_L]) <= 1e-11);
  ENSURE(fabs(out.c) <= 1e-12);
  ENSURE(evals > 0 && evals < 1000);
  trex_optimised_row(&opt);
  const double *a = &out.d.r1, *b = &opt.d.r1;
  for (int i = 0; i < 4; i++) ENSURE_NEAR(a[i], b[i], 1e-7);
  for (int i = 0; i < TREX_NQ; i++) ENSURE_NEAR(out.q[i], opt.q[i], 1e-7);
  return 0;
}

/* the landing of a row through the driver, once with each order: the first impact at the
 * free-fall time with tail and footL together; xi = |v1 - v2|_M / |v1|_M just after it */
static int land(const trex_row *row, double *xi, double *dE) {
  nh_model *m = load(row);
  if (!m) return 1;
  double v[2][TREX_NQ], q[TREX_NQ];
  const int order[2] = {NH_SIMUL_MOST_INFEASIBLE, NH_SIMUL_LEAST_INFEASIBLE};
  for (int c = 0; c < 2; c++) {
    nh_sim_def def = nh_sim_def_default();
    def.simul_order = order[c];
    nh_sim *s = nh_sim_create(m, &def, NULL, 0);
    if (!s || nh_sim_run(s, 1.0, 1, NULL, NULL) != NH_OK) return 1;
    nh_impact_record rec;
    if (nh_sim_impact_count(s) != 1 || nh_sim_impact_get(s, 0, &rec) != NH_OK) return 1;
    if (rec.contacts != 2 || rec.contact_gap[0] != TREX_TAIL || rec.contact_gap[1] != TREX_FOOT_L) return 1;
    if (!(fabs(rec.t - sqrt(2 * 17 / 981.0)) <= 1e-9)) return 1;
    if (rec.impulse[0] <= 0 || rec.impulse[1] <= 0) return 1;
    *dE = fabs(rec.energy_after - rec.energy_before) / rec.energy_before;
    memcpy(v[c], rec.v_after, sizeof v[c]);
    memcpy(q, rec.q, sizeof q);
    nh_sim_destroy(s);
  }
  double M[64], n1 = 0, nd = 0;
  trex_geometry(&row->d, q, M, NULL, NULL);
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) {
      n1 += v[0][i] * M[i * 8 + j] * v[0][j];
      nd += (v[0][i] - v[1][i]) * M[i * 8 + j] * (v[0][j] - v[1][j]);
    }
  *xi = sqrt(nd / n1);
  nh_model_destroy(m);
  return 0;
}

static int test_landing(void) {
  trex_row opt, gait;
  char msg[256];
  double xo, xi, dE;
  trex_optimised_row(&opt);
  ENSURE(trex_initial_gait(&opt, &gait, msg, sizeof msg) == NH_OK);
  ENSURE(land(&opt, &xo, &dE) == 0);
  ENSURE(dE <= 1e-13);
  ENSURE(land(&gait, &xi, &dE) == 0);
  ENSURE(dE <= 1e-13);
  printf("  xi after the landing: optimised gait %.3e, initial gait %.3e\n", xo, xi);
  ENSURE(xo <= 1e-13);
  ENSURE(xi >= 1e-3);
  ENSURE(xi / fmax(xo, 1e-300) > 1e5); /* the paper: more than five orders of magnitude */
  return 0;
}

/* the gait (the optimised design, the file's gains), as `nholo figure trex` runs it: rk4 at
 * h = 1e-3 to t = 2 s, both orders. After the landing, foot and tail impacts meet contacts
 * made persistent by the fixed-step accumulation rule: each is one simultaneous record with
 * the closed contact in the set (rate 0 before), elastic (energy to 1e-12), impulses >= 0 */
static int gait_copy(const nh_model *m, int order, long *after) {
  nh_sim_def def = nh_sim_def_default();
  def.method = nh_method_find("rk4");
  def.h = 1e-3;
  def.simul_order = order;
  nh_sim *s = nh_sim_create(m, &def, NULL, 0);
  if (!s || nh_sim_run(s, 2.0, 0, NULL, NULL) != NH_OK) return 1;
  *after = 0;
  for (long k = 1; k < nh_sim_impact_count(s); k++) {
    nh_impact_record r;
    if (nh_sim_impact_get(s, k, &r) != NH_OK) return 1;
    if (r.contacts < 2) continue;
    int rest = 0;
    for (int j = 0; j < r.contacts; j++) {
      if (!(r.impulse[j] >= 0.0)) return 1;
      rest += fabs(r.contact_vn_before[j]) <= 1e-9;
    }
    if (rest == 0 || r.reflections < 1) return 1;
    if (!(fabs(r.energy_after - r.energy_before) <= 1e-12 * r.energy_before)) return 1;
    (*after)++;
  }
  if (!(nh_sim_contact_count(s) > 0)) return 1;
  nh_sim_destroy(s);
  return 0;
}

static int test_gait(void) {
  nh_model *m = load(NULL);
  ENSURE(m);
  long a = 0, b = 0;
  ENSURE(gait_copy(m, NH_SIMUL_MOST_INFEASIBLE, &a) == 0);
  ENSURE(gait_copy(m, NH_SIMUL_LEAST_INFEASIBLE, &b) == 0);
  printf("  simultaneous impacts through persistent contacts after the landing: %ld and %ld\n", a, b);
  ENSURE(a >= 2 && b >= 2);
  nh_model_destroy(m);
  return 0;
}

/* the solver's counters on a run with event location: del on the gait to t = 2 s (h = 1e-3,
 * 140 impacts). Every step call of del on this unconstrained model is one Newton solve, so the
 * solves equal the evaluations; they outnumber the accepted steps by the partial steps of
 * event location, and the iterations per solve stay within the most of one solve (per
 * accepted step they do not: 7237 / 2140 = 3.38 against a most of 3) */
static int test_solver_counts(void) {
  nh_model *m = load(NULL);
  ENSURE(m);
  nh_sim_def def = nh_sim_def_default();
  def.method = nh_method_find("del");
  def.h = 1e-3;
  nh_sim *s = nh_sim_create(m, &def, NULL, 0);
  ENSURE(s && nh_sim_run(s, 2.0, 0, NULL, NULL) == NH_OK);
  const nh_sim_stats st = *nh_sim_get_stats(s);
  printf("  del: %ld iterations in %ld solves (max %d), %ld steps, %ld events located, %ld impacts\n",
         st.solver_iterations, st.solver_solves, st.solver_max_iterations, st.steps, st.events_located, st.impacts);
  ENSURE(st.impacts > 0 && st.events_located > 0);
  ENSURE(st.solver_solves == st.evals);
  ENSURE(st.solver_solves > st.steps + st.rejected);
  ENSURE(st.solver_iterations <= (long)st.solver_max_iterations * st.solver_solves);
  ENSURE((double)st.solver_iterations / (double)st.solver_solves <= st.solver_max_iterations);
  ENSURE((double)st.solver_iterations / (double)st.steps > st.solver_max_iterations); /* the former figure */
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  nh_test_filter = argc > 1 ? argv[1] : NULL;
  RUN_TEST(test_tail_and_masses);
  RUN_TEST(test_geometry_matches_file);
  RUN_TEST(test_rows);
  RUN_TEST(test_optimise);
  RUN_TEST(test_landing);
  RUN_TEST(test_gait);
  RUN_TEST(test_solver_counts);
  return TEST_SUMMARY();
}
