/* test_dstar.c - avf, gonzalez and itoh-abe on Lagrangian models with nonholonomic constraints
 * through the D* form built automatically from M, V and A (nh_dstar_step): on the quartic
 * system, the Chaplygin sleigh (Fig. 3 data) and the gearbox, each against its almost-Poisson
 * form derived by hand (built-ins quartic-ap, sleigh-dg, gearbox-ap). The two forms use
 * different momentum coordinates on D* (the QR frame here, the paper's frames there), so
 * their discrete trajectories are different O(h^2) approximations of the same flow: the check
 * is that q at t = 10 differs by at most DS_AGREE h^2 and that the difference shrinks by
 * about 4 when h halves (or is at round-off: on the sleigh the QR frame gives the paper's
 * coordinates up to a constant orthogonal map, under which Gonzalez and AVF steps are
 * covariant, so the discrete trajectories coincide), while the automatic run conserves H to the Newton tolerance and
 * A v = 0 to round-off, and both start from the same physical state (same H). */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "nholo/nholo.h"
#include "runs.h"

#define DS_T_END 10.0
/* |q_auto - q_hand| <= DS_AGREE h^2 at t = 10 (measured constants 0.14 to 0.44) */
#define DS_AGREE 1.0
/* the ratio of that difference at h and h/2: 4 for two order-2 discretisations (measured 4.00) */
#define DS_RATIO_LO 3.7
#define DS_RATIO_HI 4.3
/* below this |q_auto - q_hand| is round-off (the same discrete trajectory) */
#define DS_SAME 1e-10
/* relative energy error of a run, and max |A v| at the steps */
#define DS_ENERGY_TOL 1e-12
#define DS_CONSTRAINT_TOL 1e-14

/* the largest coordinate difference */
static double dist_max(int n, const double *a, const double *b) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(a[i] - b[i]));
  return s;
}

/* the pair (mechanical, hand-written almost-Poisson whose first nq states are q) with method */
static int compare(const char *mech, const char *ap, const char *method, double h) {
  nh_model *m = nh_builtin_create(mech, NULL, 0), *a = nh_builtin_create(ap, NULL, 0);
  ENSURE(m && a);
  const int nq = m->nq;
  run_out o1, o2, o3, o4;
  double d[2];
  for (int j = 0; j < 2; j++) {
    double hj = h / (1 << j);
    ENSURE(run_model(m, method, hj, DS_T_END, NULL, j ? &o3 : &o1) == NH_OK);
    ENSURE(run_model(a, method, hj, DS_T_END, NULL, j ? &o4 : &o2) == NH_OK);
    const run_out *om = j ? &o3 : &o1, *oa = j ? &o4 : &o2;
    d[j] = dist_max(nq, om->x, oa->x);
    // same physical start; H and the constraints kept by the automatic form
    ENSURE_REL(om->st.energy_initial, oa->st.energy_initial, 1e-14);
    ENSURE(om->st.max_energy_rel_error < DS_ENERGY_TOL);
    ENSURE(om->st.max_constraint_residual < DS_CONSTRAINT_TOL);
    ENSURE(om->st.solver_max_residual < DS_CONSTRAINT_TOL);
    ENSURE(d[j] < DS_AGREE * hj * hj);
  }
  double ratio = d[0] / d[1];
  printf("  %-8s %-10s h = %g: |q_auto - q_hand| = %.3e, %.3e (ratio %.2f), energy %.1e, |A v| %.1e\n", method,
         mech, h, d[0], d[1], ratio, o3.st.max_energy_rel_error, o3.st.max_constraint_residual);
  ENSURE(d[0] < DS_SAME || (ratio > DS_RATIO_LO && ratio < DS_RATIO_HI));
  nh_model_destroy(m);
  nh_model_destroy(a);
  return 0;
}

static int test_quartic(void) {
  ENSURE(compare("quartic", "quartic-ap", "gonzalez", 0.02) == 0);
  ENSURE(compare("quartic", "quartic-ap", "avf", 0.02) == 0);
  return 0;
}
static int test_sleigh(void) {
  ENSURE(compare("sleigh-dg-q", "sleigh-dg", "gonzalez", 0.02) == 0);
  ENSURE(compare("sleigh-dg-q", "sleigh-dg", "avf", 0.02) == 0);
  return 0;
}
static int test_gearbox(void) {
  ENSURE(compare("gearbox", "gearbox-ap", "gonzalez", 0.02) == 0);
  ENSURE(compare("gearbox", "gearbox-ap", "avf", 0.02) == 0);
  return 0;
}

/* itoh-abe (order 1) runs too, with the same conservation */
static int test_itoh_abe(void) {
  nh_model *m = nh_builtin_create("gearbox", NULL, 0);
  run_out o;
  ENSURE(run_model(m, "itoh-abe", 0.02, DS_T_END, NULL, &o) == NH_OK);
  ENSURE(o.st.max_energy_rel_error < DS_ENERGY_TOL && o.st.max_constraint_residual < DS_CONSTRAINT_TOL);
  nh_model_destroy(m);
  return 0;
}

/* the ODE-form D* model of nh_model_dstar_create (chart fixed at q0) on the gearbox: its
 * H at x0 is the mechanical energy, the maps are inverse on D, gonzalez on it conserves H and
 * returns q within DS_AGREE h^2 of the step-wise D* form; the difference Hessian of H (what
 * Newton uses) matches a coarser difference of the exact grad H to DS_HESS_TOL */
#define DS_HESS_TOL 1e-6
static int test_dstar_model(void) {
  char msg[512];
  nh_model *m = nh_builtin_create("gearbox", NULL, 0);
  nh_model *a = nh_model_dstar_create(m, msg, sizeof msg);
  if (!a) printf("  %s\n", msg);
  ENSURE(a && a->form == NH_FORM_ODE && a->nx == 2 * m->nq - m->nc && a->poisson);
  const int nq = m->nq, nx = a->nx;
  double E0, H0, x[16], q[8], v[8];
  ENSURE(nh_model_energy(m, m->q0, m->v0, &E0) == NH_OK);
  ENSURE(a->hamiltonian(a->x0, &H0, NULL, a->user) == 0);
  ENSURE_REL(H0, E0, 1e-14);
  ENSURE(nh_model_dstar_from_qv(a, m->q0, m->v0, x) == NH_OK);
  ENSURE(nh_model_dstar_to_qv(a, x, q, v) == NH_OK);
  for (int i = 0; i < nq; i++) ENSURE_NEAR(v[i], m->v0[i], 1e-14);
  ENSURE(nh_model_dstar_to_qv(m, x, q, v) == NH_ERR_ARG);
  // gonzalez on the D* model against the step-wise form
  run_out o1, o2;
  const double h = 0.02;
  ENSURE(run_model(a, "gonzalez", h, DS_T_END, NULL, &o1) == NH_OK);
  ENSURE(run_model(m, "gonzalez", h, DS_T_END, NULL, &o2) == NH_OK);
  ENSURE(o1.st.max_energy_rel_error < DS_ENERGY_TOL);
  double d = dist_max(nq, o1.x, o2.x);
  printf("  D* model vs step-wise form: |q| difference %.3e at t = 10\n", d);
  ENSURE(d < DS_SAME); /* the same discrete trajectory (measured 1.3e-14) */
  // the difference Hessian
  double Hs[256], g1[16], g2[16], xp[16];
  ENSURE(nh_model_hamiltonian_hess(a, o1.x, Hs, NULL) == NH_OK);
  double worst = 0.0;
  for (int j = 0; j < nx; j++) {
    const double dj = 1e-4;
    for (int i = 0; i < nx; i++) xp[i] = o1.x[i];
    xp[j] = o1.x[j] + dj;
    ENSURE(a->hamiltonian(xp, NULL, g1, a->user) == 0);
    xp[j] = o1.x[j] - dj;
    ENSURE(a->hamiltonian(xp, NULL, g2, a->user) == 0);
    for (int i = 0; i < nx; i++) worst = fmax(worst, fabs(Hs[i * nx + j] - (g1[i] - g2[i]) / (2 * dj)));
  }
  printf("  difference Hessian of H: max deviation %.2e\n", worst);
  ENSURE(worst < DS_HESS_TOL);
  nh_model_destroy(a);
  char m2[512];
  ENSURE(nh_model_dstar_create(a = nh_builtin_load("snakeboard", NULL, NULL, 0), m2, sizeof m2) == NULL);
  ENSURE(strstr(m2, "fewer constraints than coordinates") != NULL);
  nh_model_destroy(a);
  nh_model_destroy(m);
  return 0;
}

/* ---- unconstrained models: the canonical form on T*Q ---------------------------------------
 * Without constraints the frame is the identity, rho = p and Pi = [[0, I], [-I, 0]]: avf,
 * gonzalez and itoh-abe are the discrete-gradient methods of a canonical Hamiltonian system,
 * gonzalez-r the same step as gonzalez. A double pendulum (q-dependent M) conserves H to the
 * Newton tolerance and converges at order 2; a ball bouncing elastically on a floor, written as
 * a Lagrangian file and by hand in canonical almost-Poisson form, is the same discrete
 * trajectory through its impacts. */
static const char *const double_pendulum =
    "model double_pendulum\ncoordinates a b\nparameter m1 = 1\nparameter m2 = 2\n"
    "parameter l1 = 1\nparameter l2 = 0.7\nparameter g = 9.81\n"
    "kinetic 1/2*(m1 + m2)*l1^2*a'^2 + 1/2*m2*l2^2*b'^2 + m2*l1*l2*cos(a - b)*a'*b'\n"
    "potential -(m1 + m2)*g*l1*cos(a) - m2*g*l2*cos(b)\ninitial a = 1, b = 0.5, b' = 1\n";
static const char *const ball_lag =
    "model ball\ncoordinates x y\nparameter g = 9.81\nkinetic 1/2*(x'^2 + y'^2)\npotential g*y\n"
    "gap floor: y  impact elastic\ninitial y = 1, x' = 0.3\n";
static const char *const ball_ap =
    "model ball_ap\nstate x y px py\nparameter g = 9.81\nhamiltonian 1/2*(px^2 + py^2) + g*y\n"
    "poisson x px: 1\npoisson y py: 1\ngap floor: y  impact elastic\ninitial y = 1, px = 0.3\n";
/* the double pendulum's run: T, steps h and h/2 */
#define UC_T_END 2.0
#define UC_H 0.01

static nh_model *parse(const char *text) {
  char msg[1024];
  nh_model *m = nh_model_parse(text, "test.nh", NULL, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  return m;
}

static int test_unconstrained(void) {
  nh_model *m = parse(double_pendulum);
  ENSURE(m && m->nc == 0);
  run_out ref, o[2], r2;
  ENSURE(run_model(m, "dop853", 0.0, UC_T_END, NULL, &ref) == NH_OK);
  static const char *const dg[] = {"avf", "gonzalez", "itoh-abe"};
  for (int k = 0; k < 3; k++) {
    /* the method's order p: errors shrink by 2^p when h halves (itoh-abe, p = 1, from a
     * smaller step: its error constant is large at h = 0.01) */
    const int p = nh_method_order(nh_method_find(dg[k]));
    const double h = p == 1 ? UC_H / 4 : UC_H, want = p == 1 ? 2.0 : 4.0;
    double e[2];
    for (int j = 0; j < 2; j++) {
      ENSURE(run_model(m, dg[k], h / (1 << j), UC_T_END, NULL, &o[j]) == NH_OK);
      ENSURE(o[j].st.max_energy_rel_error < DS_ENERGY_TOL);
      e[j] = dist(4, o[j].x, ref.x);
    }
    printf("  %-8s double pendulum: |x - x_ref| = %.3e, %.3e (ratio %.2f), energy %.1e\n", dg[k], e[0], e[1],
           e[0] / e[1], o[1].st.max_energy_rel_error);
    ENSURE(fabs(e[0] / e[1] - want) < 0.15 * want);
  }
  /* gonzalez-r without constraints is gonzalez's step */
  ENSURE(run_model(m, "gonzalez", UC_H, UC_T_END, NULL, &o[0]) == NH_OK);
  ENSURE(run_model(m, "gonzalez-r", UC_H, UC_T_END, NULL, &r2) == NH_OK);
  ENSURE(memcmp(o[0].x, r2.x, sizeof(double) * 4) == 0);
  nh_model_destroy(m);
  /* the ball through elastic impacts, in both forms (x, y, x', y') and (x, y, px, py) */
  nh_model *bl = parse(ball_lag), *ba = parse(ball_ap);
  ENSURE(bl && ba);
  for (int k = 0; k < 3; k++) {
    ENSURE(run_model(bl, dg[k], UC_H, 3.0, NULL, &o[0]) == NH_OK);
    ENSURE(run_model(ba, dg[k], UC_H, 3.0, NULL, &o[1]) == NH_OK);
    printf("  %-8s ball: %ld impacts, Lagrangian - canonical %.1e, energy %.1e\n", dg[k], o[0].st.impacts,
           dist(4, o[0].x, o[1].x), o[0].st.max_energy_rel_error);
    ENSURE(o[0].st.impacts == 3 && o[1].st.impacts == 3);
    ENSURE(dist(4, o[0].x, o[1].x) < DS_SAME);
    ENSURE(o[0].st.max_energy_rel_error < DS_ENERGY_TOL);
    ENSURE_REL(o[0].st.energy, o[0].st.energy_initial, DS_ENERGY_TOL);
  }
  nh_model_destroy(bl);
  nh_model_destroy(ba);
  return 0;
}

/* forced mechanical models are still refused, with the reason */
static int test_refusal(void) {
  char msg[1024];
  nh_model *m = nh_builtin_load("snakeboard", NULL, NULL, 0);
  ENSURE(m);
  ENSURE(nh_method_check(nh_method_find("gonzalez"), m, msg, sizeof msg) == NH_ERR_UNSUPPORTED);
  ENSURE(strstr(msg, "or a conservative mechanical one (no generalized force) with fewer constraints than coordinates") != NULL);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_quartic);
  RUN_TEST(test_sleigh);
  RUN_TEST(test_gearbox);
  RUN_TEST(test_itoh_abe);
  RUN_TEST(test_dstar_model);
  RUN_TEST(test_unconstrained);
  RUN_TEST(test_refusal);
  return TEST_SUMMARY();
}
