/* test_ap_impact.c - impacts of almost-Poisson models (gaps on the state, nh_model_impact_ap)
 * against the same systems written in Lagrangian form: a ball bouncing on a floor (state
 * x y px py) and the Chaplygin sleigh of Celledoni et al. against a wall (sleigh_dg.nh); the
 * discrete gradients keep H through elastic impacts; restitution scales the gap's rate by -e;
 * what the form cannot do is refused with a status and a message. Persistent contacts:
 * tests/test_ap_contact.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "nholo/nholo.h"

static const char *const ball_ap =
    "model ball_ap\nstate x y px py\nparameter g = 9.81\nparameter e = 0.5\n"
    "hamiltonian 1/2*(px^2 + py^2) + g*y\npoisson x px: 1\npoisson y py: 1\n"
    "gap floor: y  impact restitution e\ninitial y = 1, px = 0.3\n";
static const char *const ball_lag =
    "model ball\ncoordinates x y\nparameter g = 9.81\nparameter e = 0.5\n"
    "kinetic 1/2*(x'^2 + y'^2)\npotential g*y\ngap floor: y  impact restitution e\n"
    "initial y = 1, x' = 0.3\n";
/* the sleigh of examples/sleigh_dg.nh with a wall at x1 = -6.5, and the same sleigh in the
 * contact point's coordinates (centre of mass a ahead of it): rho2 = sqrt(m) (cos th x1' +
 * sin th x2'), rho1 = sqrt(I) th' */
static const char *const sleigh_ap =
    "model sleigh_ap\nstate x1 x2 theta rho1 rho2\nparameter J = 8\nparameter a = 1\nparameter m = 1\n"
    "parameter I = J + m*a^2\nparameter e = 1\nhamiltonian 1/2*(rho1^2 + rho2^2)\n"
    "poisson x1 rho2: cos(theta)/sqrt(m)\npoisson x2 rho2: sin(theta)/sqrt(m)\npoisson theta rho1: 1/sqrt(I)\n"
    "poisson rho1 rho2: -a*sqrt(m)/I*rho1\ngap wall: x1 + 6.5  impact restitution e\n"
    "initial x1 = -5, x2 = 0, theta = 0.6, rho1 = 0.3, rho2 = -0.6\n";
static const char *const sleigh_lag =
    "model sleigh\ncoordinates x1 x2 theta\nparameter J = 8\nparameter a = 1\nparameter m = 1\n"
    "parameter I = J + m*a^2\nparameter e = 1\n"
    "kinetic 1/2*m*((x1' - a*sin(theta)*theta')^2 + (x2' + a*cos(theta)*theta')^2) + 1/2*J*theta'^2\n"
    "constraint skate: -sin(theta)*x1' + cos(theta)*x2' = 0\ngap wall: x1 + 6.5  impact restitution e\n"
    "initial x1 = -5, x2 = 0, theta = 0.6\n"
    "initial x1' = -0.6*cos(0.6), x2' = -0.6*sin(0.6), theta' = 0.3/sqrt(I)\n";

static nh_model *parse(const char *text, const char *set) {
  nh_load_opts o = nh_load_opts_default();
  char name[32], msg[512];
  double val = 0.0;
  if (set && sscanf(set, "%31[^=]=%lf", name, &val) == 2) {
    static const char *names[1];
    static double vals[1];
    names[0] = name, vals[0] = val;
    o.set_names = names, o.set_values = vals, o.nset = 1;
  }
  nh_model *m = nh_model_parse(text, "test.nh", &o, msg, sizeof msg);
  if (!m) printf("  parse: %s\n", msg);
  return m;
}

/* run model m with method name to t_end (step h; rtol for an adaptive method) */
static nh_sim *run(const nh_model *m, const char *method, double h, double t_end, int *rc) {
  nh_sim_def d = nh_sim_def_default();
  char msg[512];
  d.method = nh_method_find(method);
  d.h = h;
  d.rtol = 1e-12, d.atol = 1e-13;
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  if (!s) {
    printf("  create: %s\n", msg);
    return NULL;
  }
  *rc = nh_sim_run(s, t_end, 0, NULL, NULL);
  return s;
}

/* the ball: impact times and post-impact states of the AP file under the discrete gradients
 * agree with the Lagrangian file under dopri5; restitution 0.5 scales the rate by -0.5 and
 * removes (1 - e^2) g'^2 / (2 kappa), kappa = 1 */
static int test_ball_vs_lagrangian(void) {
  static const char *const methods[] = {"gonzalez", "avf", "itoh-abe", "dopri5"};
  nh_model *ma = parse(ball_ap, NULL), *ml = parse(ball_lag, NULL);
  ENSURE(ma && ml && ma->ngap == 1 && ma->form == NH_FORM_ODE);
  int rc;
  nh_sim *sl = run(ml, "dopri5", 1e-3, 1.3, &rc);
  ENSURE(sl && rc == NH_OK && nh_sim_impact_count(sl) == 5);
  double worst_t = 0.0, worst_x = 0.0;
  for (int k = 0; k < 4; k++) {
    nh_sim *sa = run(ma, methods[k], 1e-3, 1.3, &rc);
    ENSURE(sa && rc == NH_OK && nh_sim_impact_count(sa) == 5);
    for (long i = 0; i < 5; i++) {
      nh_impact_record a, l;
      ENSURE(nh_sim_impact_get(sa, i, &a) == NH_OK && nh_sim_impact_get(sl, i, &l) == NH_OK);
      ENSURE(a.q == NULL && a.status == NH_OK);
      worst_t = fmax(worst_t, fabs(a.t - l.t));
      for (int j = 0; j < 2; j++)
        worst_x = fmax(worst_x, fmax(fabs(a.v_after[j] - l.q[j]), fabs(a.v_after[2 + j] - l.v_after[j])));
      ENSURE_REL(a.vn_after, -0.5 * a.vn_before, 1e-12);
      ENSURE_REL(a.energy_after - a.energy_before, -0.375 * a.vn_before * a.vn_before, 1e-9);
      ENSURE_NEAR(a.v_after[0], a.v_before[0], 0.0); /* x, y, px untouched */
      ENSURE_NEAR(a.v_after[1], a.v_before[1], 0.0);
      ENSURE_NEAR(a.v_after[2], a.v_before[2], 0.0);
    }
    nh_sim_destroy(sa);
  }
  printf("  ball: impact times within %.2e s, post-impact states within %.2e\n", worst_t, worst_x);
  ENSURE(worst_t < 1e-10 && worst_x < 1e-9);
  nh_sim_destroy(sl);
  nh_model_destroy(ma), nh_model_destroy(ml);
  return 0;
}

/* elastic bounces: H kept through every impact by the discrete gradients (to the solver's
 * tolerance), the rate reversed */
static int test_ball_elastic_energy(void) {
  static const char *const methods[] = {"gonzalez", "avf", "itoh-abe"};
  nh_model *ma = parse(ball_ap, "e=1");
  ENSURE(ma && ma->impact[0].e == 1.0);
  for (int k = 0; k < 3; k++) {
    int rc;
    nh_sim *s = run(ma, methods[k], 1e-3, 5.0, &rc);
    ENSURE(s && rc == NH_OK && nh_sim_impact_count(s) == 6);
    double worst = 0.0;
    for (long i = 0; i < nh_sim_impact_count(s); i++) {
      nh_impact_record r;
      ENSURE(nh_sim_impact_get(s, i, &r) == NH_OK);
      ENSURE_REL(r.vn_after, -r.vn_before, 1e-13);
      worst = fmax(worst, fabs(r.energy_after - r.energy_before) / r.energy_before);
    }
    const nh_sim_stats *st = nh_sim_get_stats(s);
    printf("  %s elastic: |dH|/H at impacts %.2e, along the run %.2e\n", methods[k], worst, st->max_energy_rel_error);
    ENSURE(worst < 1e-14 && st->max_energy_rel_error < 1e-13);
    ENSURE_REL(st->energy, 9.855, 1e-13);
    nh_sim_destroy(s);
  }
  nh_model_destroy(ma);
  return 0;
}

/* the sleigh against a wall: the AP fibre momenta after each impact are the Lagrangian
 * velocities mapped to D* (elastic and e = 0.5) */
static int test_sleigh_vs_lagrangian(void) {
  const double I = 9.0;
  for (int law = 0; law < 2; law++) {
    const char *set = law ? "e=0.5" : NULL;
    nh_model *ma = parse(sleigh_ap, set), *ml = parse(sleigh_lag, set);
    ENSURE(ma && ml);
    int rc;
    nh_sim *sl = run(ml, "dopri5", 1e-3, 20.0, &rc);
    ENSURE(sl && rc == NH_OK && nh_sim_impact_count(sl) >= 1);
    static const char *const methods[] = {"dopri5", "gonzalez", "avf", "itoh-abe"};
    for (int k = 0; k < 4; k++) {
      nh_sim *sa = run(ma, methods[k], k ? 1e-3 : 1e-3, 20.0, &rc);
      ENSURE(sa && rc == NH_OK && nh_sim_impact_count(sa) == nh_sim_impact_count(sl));
      double dt = 0.0, dx = 0.0, dE = 0.0;
      for (long i = 0; i < nh_sim_impact_count(sa); i++) {
        nh_impact_record a, l;
        ENSURE(nh_sim_impact_get(sa, i, &a) == NH_OK && nh_sim_impact_get(sl, i, &l) == NH_OK);
        const double th = l.q[2], *v = l.v_after;
        const double rho[2] = {sqrt(I) * v[2], cos(th) * v[0] + sin(th) * v[1]};
        dt = fmax(dt, fabs(a.t - l.t));
        for (int j = 0; j < 3; j++) dx = fmax(dx, fabs(a.v_after[j] - l.q[j]));
        for (int j = 0; j < 2; j++) dx = fmax(dx, fabs(a.v_after[3 + j] - rho[j]));
        ENSURE_REL(a.vn_after, law ? -0.5 * a.vn_before : -a.vn_before, 1e-12);
        ENSURE_NEAR(a.v_after[3], a.v_before[3], 0.0); /* rho1 (the turning rate) untouched */
        dE = fmax(dE, fabs(a.energy_after - a.energy_before - (l.energy_after - l.energy_before)));
      }
      printf("  sleigh %s %s: %ld impacts, times within %.2e s, states within %.2e, energy jumps within %.2e\n",
             law ? "e=0.5" : "elastic", methods[k], nh_sim_impact_count(sa), dt, dx, dE);
      const double tol = k ? 1e-7 : 1e-10; /* the discrete gradients are of order 2 (h = 1e-3) */
      ENSURE(dt < tol && dx < tol && dE < tol);
      if (!law && k) ENSURE(nh_sim_get_stats(sa)->max_energy_rel_error < 1e-12);
      nh_sim_destroy(sa);
    }
    nh_sim_destroy(sl);
    nh_model_destroy(ma), nh_model_destroy(ml);
  }
  return 0;
}

/* what the form cannot do: two gaps closing together (NH_ERR_UNSUPPORTED); a persistent
 * contact is held (tests/test_ap_contact.c) */
static int test_refusals(void) {
  nh_model *ma;
  nh_sim *s;
  int rc;
  // the corner of a box, reached on its diagonal
  ma = parse("model corner\nstate x y px py\nhamiltonian 1/2*(px^2 + py^2)\npoisson x px: 1\npoisson y py: 1\n"
             "gap left: x\ngap floor: y\ninitial x = 1, y = 1, px = -1, py = -1\n", NULL);
  s = run(ma, "gonzalez", 1e-2, 3.0, &rc);
  ENSURE(s && rc == NH_ERR_UNSUPPORTED);
  ENSURE(strstr(nh_sim_message(s), "gaps 'left' and 'floor' close together at t = 0.99999999999") != NULL);
  nh_sim_destroy(s);
  nh_model_destroy(ma);
  return 0;
}

/* a hand-written model whose H is not quadratic along d: the map refuses (x+ = x-); plastic
 * is refused by the model */
static int ap_ham(const double *x, double *H, double *dH, void *u) {
  (void)u;
  if (H) *H = 0.25 * x[1] * x[1] * x[1] * x[1];
  if (dH) dH[0] = 0.0, dH[1] = x[1] * x[1] * x[1];
  return 0;
}
static int ap_pi(const double *x, double *P, void *u) {
  (void)x, (void)u;
  P[0] = 0.0, P[1] = 1.0, P[2] = -1.0, P[3] = 0.0;
  return 0;
}
static int ap_gap(const double *x, double *g, double *dg, void *u) {
  (void)u;
  if (g) g[0] = x[0];
  if (dg) dg[0] = 1.0, dg[1] = 0.0;
  return 0;
}
static int test_map_direct(void) {
  static const double x0[] = {0.0, -1.0};
  nh_impact_law law = {NH_IMPACT_ELASTIC, 1.0};
  nh_model_def d = nh_model_def_default();
  char msg[256];
  d.form = NH_FORM_ODE, d.nx = 2, d.x0 = x0, d.hamiltonian = ap_ham, d.poisson = ap_pi;
  d.ngap = 1, d.gap = ap_gap, d.impact = &law;
  nh_model *m = nh_model_create(&d, msg, sizeof msg);
  ENSURE(m);
  double *w = malloc(sizeof(double) * nh_model_impact_work_size(m)), x1[2];
  ENSURE(w && nh_model_impact_work_size(m) == nh_model_impact_ap_work_size(m));
  nh_impact_info info;
  ENSURE(nh_model_impact_ap(m, 0, x0, NULL, NULL, x1, &info, w) == NH_ERR_UNSUPPORTED);
  ENSURE(x1[0] == x0[0] && x1[1] == x0[1] && info.vn_before == -1.0);
  // H = p^2/2 instead: reflected exactly, kappa = 1
  nh_impact_law rl = {NH_IMPACT_RESTITUTION, 0.25};
  nh_model_destroy(m);
  law.kind = NH_IMPACT_PLASTIC;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL && strstr(msg, "gap 1: the plastic law"));
  law.kind = NH_IMPACT_ELASTIC;
  d.hamiltonian = NULL, d.poisson = NULL, d.rhs = NULL;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL &&
         strcmp(msg, "an ODE-form model has gaps only in the almost-Poisson form (hamiltonian and poisson)") == 0);
  nh_model *q = parse("model p\nstate x p\nhamiltonian 1/2*p^2\npoisson x p: 1\ngap w: x\ninitial p = -2\n", NULL);
  ENSURE(q);
  static const double xq[] = {0.0, -2.0};
  ENSURE(nh_model_impact_ap(q, 0, xq, &rl, NULL, x1, &info, w) == NH_OK);
  ENSURE(x1[0] == 0.0 && x1[1] == 0.5 && info.D == 1.0 && info.vn_after == 0.5 && info.alpha == -2.5);
  nh_model_destroy(q);
  free(w);
  return 0;
}

/* a file of examples/ with one more statement */
static nh_model *example_with(const char *file, const char *extra) {
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/%s", NHOLO_SOURCE_DIR, file);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char text[1 << 16];
  size_t n = fread(text, 1, sizeof text - 256, f);
  fclose(f);
  snprintf(text + n, 256, "\n%s\n", extra);
  return parse(text, NULL);
}

/* the quartic system (a state-dependent Pi, H not diagonal in the momenta) against a wall
 * x >= -1: the AP file (quartic_ap.nh) against the Lagrangian one (quartic3.nh), with
 * xi = w', eta_i = w_i x' - z_i' */
static int test_quartic_vs_lagrangian(void) {
  nh_model *ma = example_with("quartic_ap.nh", "gap wall: x + 1"), *ml = example_with("quartic3.nh", "gap wall: x + 1");
  ENSURE(ma && ml);
  int rc;
  nh_sim *sl = run(ml, "dopri5", 1e-3, 2.0, &rc);
  ENSURE(sl && rc == NH_OK && nh_sim_impact_count(sl) == 1);
  nh_impact_record l;
  ENSURE(nh_sim_impact_get(sl, 0, &l) == NH_OK);
  double ref[13];
  const double *q = l.q, *v = l.v_after;
  for (int j = 0; j < 7; j++) ref[j] = q[j];
  for (int i = 0; i < 3; i++) ref[7 + i] = v[1 + i], ref[10 + i] = q[1 + i] * v[0] - v[4 + i];
  static const char *const methods[] = {"dopri5", "gonzalez", "avf", "itoh-abe"};
  static const double tol[] = {1e-10, 1e-6, 1e-6, 2e-3}; /* itoh-abe is of order 1 */
  for (int k = 0; k < 4; k++) {
    nh_sim *sa = run(ma, methods[k], 1e-3, 2.0, &rc);
    ENSURE(sa && rc == NH_OK && nh_sim_impact_count(sa) == 1);
    nh_impact_record a;
    ENSURE(nh_sim_impact_get(sa, 0, &a) == NH_OK);
    double dx = 0.0;
    for (int j = 0; j < 13; j++) dx = fmax(dx, fabs(a.v_after[j] - ref[j]));
    printf("  quartic %s: impact at t = %.15g (Lagrangian %.15g), state after within %.2e, |dH|/H %.1e\n",
           methods[k], a.t, l.t, dx, fabs(a.energy_after - a.energy_before) / a.energy_before);
    ENSURE(fabs(a.t - l.t) < tol[k] && dx < tol[k]);
    ENSURE_REL(a.vn_after, -a.vn_before, 1e-12);
    ENSURE_REL(a.energy_after, a.energy_before, 1e-14);
    if (k) ENSURE(nh_sim_get_stats(sa)->max_energy_rel_error < 1e-12);
    nh_sim_destroy(sa);
  }
  nh_sim_destroy(sl);
  nh_model_destroy(ma), nh_model_destroy(ml);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1) nh_test_filter = argv[1];
  RUN_TEST(test_ball_vs_lagrangian);
  RUN_TEST(test_ball_elastic_energy);
  RUN_TEST(test_sleigh_vs_lagrangian);
  RUN_TEST(test_quartic_vs_lagrangian);
  RUN_TEST(test_refusals);
  RUN_TEST(test_map_direct);
  return TEST_SUMMARY();
}
