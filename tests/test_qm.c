/* test_qm.c - rattle, shake, del, si-dla and i-dla on a configuration-dependent mass matrix with
 * a nonholonomic constraint (a knife edge on an inclined plane in polar coordinates of its
 * contact point, M = diag(m, m r^2, J)): second-order convergence against dop853, the
 * constraints where each method enforces them (the nodal A(q) v = 0; the discrete
 * A(qbar)(q' - q) = 0 of the discrete Lagrange-d'Alembert steps), bounded energy error over a
 * long run, rattle = shake = gni in the multiplier form, the reversibility of the
 * discrete Lagrange-d'Alembert steps, and the refusals
 * left (the dla methods on a forced model). */
#include <stdlib.h>

#include "harness.h"
#include "model/model_impl.h"
#include "nholo/nholo.h"

/* the knife edge in polar coordinates; the slope's potential; an optional push on r (force) */
static const char *polar_knife =
    "model polar_knife\n"
    "coordinates r th phi\n"
    "parameter m = 1\nparameter J = 0.2\nparameter g = 9.81\nparameter alpha = pi/6\nparameter k = 0\n"
    "parameter th0 = 0.3\nparameter phi0 = 1.2\nparameter r0 = 1\nparameter dr0 = 0.5\n"
    "kinetic 1/2*m*(r'^2 + r^2*th'^2) + 1/2*J*phi'^2\n"
    "potential -m*g*sin(alpha)*r*cos(th)\n"
    "constraint blade: sin(th - phi)*r' + r*cos(th - phi)*th' = 0\n"
    "force r: -k*r'\n"
    "initial r = r0, th = th0, phi = phi0\n"
    "initial phi' = 1, r' = dr0, th' = -sin(th0 - phi0)*dr0/(r0*cos(th0 - phi0))\n";

/* convergence: end time, the steps, the observed order's window; the reference's tolerances */
#define QM_T 1.0
#define QM_H0 0.02
#define QM_ORDER_LO 1.9 /* (measured 1.989 to 2.000) */
#define QM_ORDER_HI 2.1
#define QM_REF_TOL 1e-13
/* the constraints to round-off; a Newton tolerance at round-off (iterates at round-off are
 * accepted, vi_qm.c) */
#define QM_RES_TOL 1e-13
#define QM_NEWTON_TOL 1e-15
/* the long run: its end, step, and the bound of the energy error's growth (second half's
 * maximum over the first's; measured at most 1.0008) */
#define QM_LONG_T 200.0
#define QM_LONG_H 0.02
#define QM_GROWTH 1.01
/* an energy error against its value measured here (the methods' O(h^2) constants): at most
 * this factor over it */
#define QM_MEAS_MARGIN 1.1

/* the same on a level plane with a wall x >= 0.6 (elastic): 6 impacts by t = 20 */
static const char *polar_knife_wall =
    "model polar_knife_wall\n"
    "coordinates r th phi\n"
    "parameter m = 1\nparameter J = 0.2\n"
    "parameter th0 = 0.3\nparameter phi0 = 1.2\nparameter r0 = 1\nparameter dr0 = 0.5\n"
    "kinetic 1/2*m*(r'^2 + r^2*th'^2) + 1/2*J*phi'^2\n"
    "constraint blade: sin(th - phi)*r' + r*cos(th - phi)*th' = 0\n"
    "gap wall: r*cos(th) - 0.6   impact elastic\n"
    "initial r = r0, th = th0, phi = phi0\n"
    "initial phi' = 1, r' = dr0, th' = -sin(th0 - phi0)*dr0/(r0*cos(th0 - phi0))\n";
#define QM_WALL_T 20.0
#define QM_WALL_IMPACTS 6

static nh_model *load_text(const char *text, int forced) {
  char msg[1024];
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  const char *names[] = {"k"};
  const double vals[] = {0.3};
  if (forced) o.nset = 1, o.set_names = names, o.set_values = vals;
  nh_model *m = nh_model_parse(text, "polar_knife.nh", &o, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  return m;
}
static nh_model *load(int forced) { return load_text(polar_knife, forced); }

/* run method (midpoint_ld for del) with step h to t_end: final x into out, stats */
static int run(const nh_model *mo, const char *method, int midpoint_ld, int paper, double h, double t_end,
               double *out, nh_sim_stats *st) {
  char msg[512];
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  d.opts.midpoint_ld = midpoint_ld;
  d.opts.variant = paper ? NH_VARIANT_PAPER : NH_VARIANT_SYMMETRIC;
  d.rtol = d.atol = QM_REF_TOL;
  nh_sim *s = nh_sim_create(mo, &d, msg, sizeof msg);
  if (!s) {
    printf("  %s: %s\n", method, msg);
    return 1;
  }
  int rc = nh_sim_run(s, t_end, 0, NULL, NULL);
  if (rc != NH_OK) printf("  %s: %s\n", method, nh_sim_message(s));
  memcpy(out, nh_sim_x(s), sizeof(double) * 6);
  if (st) *st = *nh_sim_get_stats(s);
  nh_sim_destroy(s);
  return rc != NH_OK;
}

static double err_inf(const double *a, const double *b) {
  double e = 0.0;
  for (int i = 0; i < 6; i++) e = fmax(e, fabs(a[i] - b[i]));
  return e;
}

/* rattle and shake in the paper's form (their Newton on the discrete Lagrangian with one
 * multiplier per node) and in the default symmetric one, which for a q-dependent M is the
 * discrete Lagrange-d'Alembert step of del and si-dla */
static const struct {
  const char *method;
  int midpoint_ld;
  int paper;     /* NH_VARIANT_PAPER */
  double wall_E; /* the largest relative energy error through the wall's impacts at h = 0.01, measured */
} methods[] = {{"rattle", 0, 1, 6.82e-5}, {"shake", 0, 1, 6.82e-5}, {"rattle", 0, 0, 3.26e-6}, {"gni", 0, 0, 3.26e-6},
               {"del", 0, 0, 3.26e-6},    {"del", 1, 0, 2.66e-6},   {"si-dla", 0, 0, 3.26e-6}, {"i-dla", 0, 0, 2.66e-6}};
#define NMETH (sizeof methods / sizeof methods[0])

/* second order in q and v at t = 1, against dop853 */
static int test_order(void) {
  nh_model *mo = load(0);
  ENSURE(mo && mo->coriolis != NULL);
  double ref[6], x[6];
  ENSURE(!run(mo, "dop853", 0, 0, 0.0, QM_T, ref, NULL));
  for (size_t k = 0; k < NMETH; k++) {
    double e[3];
    nh_sim_stats st;
    for (int l = 0; l < 3; l++) {
      ENSURE(!run(mo, methods[k].method, methods[k].midpoint_ld, methods[k].paper, QM_H0 / (1 << l), QM_T, x, &st));
      e[l] = err_inf(x, ref);
    }
    const double p1 = log2(e[0] / e[1]), p2 = log2(e[1] / e[2]);
    printf("  %-7s%s errors %.3e %.3e %.3e, orders %.3f %.3f; %.2f Newton iterations per step\n", methods[k].method,
           methods[k].midpoint_ld ? " (midpoint L_d)" : methods[k].paper ? " (paper)" : "", e[0], e[1], e[2], p1, p2,
           (double)st.solver_iterations / (double)st.steps);
    ENSURE(p1 > QM_ORDER_LO && p1 < QM_ORDER_HI && p2 > QM_ORDER_LO && p2 < QM_ORDER_HI);
  }
  nh_model_destroy(mo);
  return 0;
}

/* the nodal A(q) v = 0 (all: rattle by its multiplier, the others by the projection of the
 * nodal momentum) and the discrete A(qbar)(q' - q) = 0 of del, si-dla and i-dla */
static int test_constraints(void) {
  nh_model *mo = load(0);
  ENSURE(mo != NULL);
  for (size_t k = 0; k < NMETH; k++) {
    char msg[512];
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(methods[k].method);
    d.h = QM_H0;
    d.opts.midpoint_ld = methods[k].midpoint_ld;
    d.opts.variant = methods[k].paper ? NH_VARIANT_PAPER : NH_VARIANT_SYMMETRIC;
    d.opts.newton_tol = QM_NEWTON_TOL; /* the discrete constraint holds to the Newton tolerance */
    nh_sim *s = nh_sim_create(mo, &d, msg, sizeof msg);
    ENSURE(s != NULL);
    const int discrete = !methods[k].paper;
    double dres = 0.0, q0[3], A[3], qb[3], zero[3] = {0, 0, 0};
    for (int i = 0; i < 200; i++) {
      memcpy(q0, nh_sim_q(s), sizeof q0);
      ENSURE(nh_sim_step(s, 10.0, NULL) == NH_OK);
      const double *q1 = nh_sim_q(s);
      for (int j = 0; j < 3; j++) qb[j] = 0.5 * (q0[j] + q1[j]);
      ENSURE(mo->constraint(qb, zero, A, NULL, mo->user) == 0);
      double r = 0.0;
      for (int j = 0; j < 3; j++) r += A[j] * (q1[j] - q0[j]);
      dres = fmax(dres, fabs(r) / QM_H0);
    }
    const double nres = nh_sim_get_stats(s)->max_constraint_residual;
    printf("  %-7s%s max |A(q) v| %.2e, max |A(qbar)(q' - q)|/h %.2e\n", methods[k].method,
           methods[k].midpoint_ld ? " (midpoint L_d)" : methods[k].paper ? " (paper)" : "", nres, dres);
    ENSURE(nres < QM_RES_TOL);
    if (discrete) ENSURE(dres < QM_RES_TOL);
    else ENSURE(dres > 1e3 * QM_RES_TOL); /* the discrete constraint is not theirs */
    nh_sim_destroy(s);
  }
  nh_model_destroy(mo);
  return 0;
}

static int energy_obs(const nh_sim *s, nh_sample_kind kind, double t, const double *q, const double *v, void *user) {
  (void)kind;
  double *acc = user, E;
  if (nh_model_energy(nh_sim_model(s), q, v, &E) != NH_OK) return 1;
  const double e = fabs(E - acc[2]) / fabs(acc[2]);
  if (t <= 0.5 * QM_LONG_T) acc[0] = fmax(acc[0], e);
  else acc[1] = fmax(acc[1], e);
  return 0;
}

/* an energy error that oscillates without growing over 10^4 steps: the symplectic ones, and
 * on this (integrable) system the discrete Lagrange-d'Alembert ones too */
static int test_energy(void) {
  nh_model *mo = load(0);
  ENSURE(mo != NULL);
  /* rattle and shake in the paper's variant, then the symmetric gni (del's step here) */
  const char *sym[] = {"rattle", "shake", "gni", "del", "si-dla", "i-dla"};
  const int paper[] = {1, 1, 0, 0, 0, 0};
  const double meas[] = {2.94e-3, 2.94e-3, 7.50e-4, 7.50e-4, 7.50e-4, 7.79e-4}; /* the error over t <= 100, measured */
  for (int k = 0; k < 6; k++) {
    char msg[512];
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(sym[k]);
    d.opts.variant = paper[k] ? NH_VARIANT_PAPER : NH_VARIANT_SYMMETRIC;
    d.h = QM_LONG_H;
    nh_sim *s = nh_sim_create(mo, &d, msg, sizeof msg);
    ENSURE(s != NULL);
    double acc[3] = {0.0, 0.0, 0.0};
    ENSURE(nh_model_energy_x(mo, 0.0, nh_sim_x(s), &acc[2]) == NH_OK);
    ENSURE(nh_sim_run(s, QM_LONG_T, 0, energy_obs, acc) == NH_OK);
    printf("  %-7s max relative energy error t <= %g: %.3e, after: %.3e\n", sym[k], 0.5 * QM_LONG_T, acc[0], acc[1]);
    ENSURE(acc[0] > 0.0 && acc[1] < QM_GROWTH * acc[0] && acc[0] <= QM_MEAS_MARGIN * meas[k]);
    nh_sim_destroy(s);
  }
  nh_model_destroy(mo);
  return 0;
}

/* rattle with the consistent (or midpoint) lambda_0 and shake are gni in multiplier form, also
 * for a q-dependent M (spec 001 A3, A4 with the discrete Legendre transforms) */
static int test_rattle_is_gni(void) {
  nh_model *mo = load(0);
  ENSURE(mo != NULL);
  double xr[6], xg[6];
  for (int paper = 1; paper >= 0; paper--) { /* the paper's forms; the symmetric one (del's step) */
    ENSURE(!run(mo, "rattle", 0, paper, QM_H0, QM_T, xr, NULL));
    ENSURE(!run(mo, "gni", 0, paper, QM_H0, QM_T, xg, NULL));
    printf("  %s: rattle - gni at t = 1: %.2e\n", paper ? "paper" : "symmetric", err_inf(xr, xg));
    ENSURE(err_inf(xr, xg) < 1e-11);
    ENSURE(!run(mo, "shake", 0, paper, QM_H0, QM_T, xr, NULL)); /* shake with (5b): gni in two-step form */
    printf("  %s: shake - gni at t = 1: %.2e\n", paper ? "paper" : "symmetric", err_inf(xr, xg));
    ENSURE(err_inf(xr, xg) < 1e-11);
  }
  ENSURE(!run(mo, "del", 0, 0, QM_H0, QM_T, xr, NULL));
  printf("  symmetric gni - del at t = 1: %.2e\n", err_inf(xr, xg));
  ENSURE(err_inf(xr, xg) == 0.0); /* the same step */
  nh_model_destroy(mo);
  return 0;
}

/* with a force: rattle, shake and del run; si-dla and i-dla refuse, saying why */
static int test_forced(void) {
  nh_model *mo = load(1);
  ENSURE(mo != NULL);
  double x[6];
  for (int paper = 0; paper < 2; paper++) {
    ENSURE(!run(mo, "rattle", 0, paper, QM_H0, QM_T, x, NULL));
    ENSURE(!run(mo, "shake", 0, paper, QM_H0, QM_T, x, NULL));
  }
  ENSURE(!run(mo, "del", 0, 0, QM_H0, QM_T, x, NULL));
  char msg[1024];
  ENSURE(nh_method_check(nh_method_find("i-dla"), mo, msg, sizeof msg) == NH_ERR_UNSUPPORTED);
  ENSURE(strcmp(msg, "method 'i-dla' cannot run model 'polar_knife': it needs a conservative model (no generalized "
                     "force) with at least one constraint; methods that can: rk4, dopri5, dop853, rk2, gni, rattle, "
                     "shake, del") == 0);
  nh_model_destroy(mo);
  return 0;
}

/* the discrete Lagrange-d'Alembert steps are one-step and symmetric: N steps, the velocities
 * reversed, N steps back to the start (reversed) to round-off */
#define QM_REV_STEPS 50
#define QM_REV_TOL 1e-12
static int test_reversible(void) {
  nh_model *mo = load(0);
  ENSURE(mo != NULL);
  for (size_t k = 2; k < NMETH; k++) { /* del (both L_d), si-dla, i-dla */
    char msg[512];
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(methods[k].method);
    d.h = QM_H0;
    d.opts.midpoint_ld = methods[k].midpoint_ld;
    d.opts.variant = methods[k].paper ? NH_VARIANT_PAPER : NH_VARIANT_SYMMETRIC;
    nh_sim *s = nh_sim_create(mo, &d, msg, sizeof msg);
    ENSURE(s != NULL);
    double x0[6], q[3], v[3];
    memcpy(x0, nh_sim_x(s), sizeof x0);
    for (int i = 0; i < QM_REV_STEPS; i++) ENSURE(nh_sim_step(s, 10.0, NULL) == NH_OK);
    for (int j = 0; j < 3; j++) q[j] = nh_sim_q(s)[j], v[j] = -nh_sim_v(s)[j];
    ENSURE(nh_sim_set_state(s, 0.0, q, v) == NH_OK);
    for (int i = 0; i < QM_REV_STEPS; i++) ENSURE(nh_sim_step(s, 10.0, NULL) == NH_OK);
    double e = 0.0;
    for (int j = 0; j < 3; j++) e = fmax(e, fmax(fabs(nh_sim_q(s)[j] - x0[j]), fabs(nh_sim_v(s)[j] + x0[3 + j])));
    printf("  %-7s%s back to the start after %d steps and reversal: %.2e\n", methods[k].method,
           methods[k].midpoint_ld ? " (midpoint L_d)" : methods[k].paper ? " (paper)" : "", QM_REV_STEPS, e);
    ENSURE(e < QM_REV_TOL);
    nh_sim_destroy(s);
  }
  nh_model_destroy(mo);
  return 0;
}

/* through elastic impacts (the driver's restart at each): every impact dop853 finds, the
 * energy kept to the method's O(h^2) */
static int test_impacts(void) {
  nh_model *mo = load_text(polar_knife_wall, 0);
  ENSURE(mo != NULL && mo->ngap == 1);
  for (size_t k = 0; k < NMETH; k++) {
    double x[6], e[2];
    nh_sim_stats st;
    for (int l = 0; l < 2; l++) {
      ENSURE(!run(mo, methods[k].method, methods[k].midpoint_ld, methods[k].paper, 0.5 * QM_H0 / (1 << l), QM_WALL_T, x, &st));
      ENSURE(st.impacts == QM_WALL_IMPACTS);
      e[l] = st.max_energy_rel_error;
    }
    printf("  %-7s%s %ld impacts, max relative energy error %.3e (h = %g), %.3e (h = %g)\n", methods[k].method,
           methods[k].midpoint_ld ? " (midpoint L_d)" : methods[k].paper ? " (paper)" : "", st.impacts, e[0], 0.5 * QM_H0, e[1], 0.25 * QM_H0);
    ENSURE(e[0] <= QM_MEAS_MARGIN * methods[k].wall_E && e[1] < e[0] / 3.7); /* O(h^2) */
  }
  nh_model_destroy(mo);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_order);
  RUN_TEST(test_constraints);
  RUN_TEST(test_energy);
  RUN_TEST(test_rattle_is_gni);
  RUN_TEST(test_reversible);
  RUN_TEST(test_impacts);
  RUN_TEST(test_forced);
  return TEST_SUMMARY();
}
