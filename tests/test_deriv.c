/* test_deriv.c - derivative queries of a model: exact evaluators are used when given, and the
 * finite-difference fallback matches analytic derivatives. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "models.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

/* tolerances: central differences with step NH_FD_STEP (first derivatives) and the nested
 * differences of d2M */
#define FD_TOL 1e-8
#define FD2_TOL 1e-6

/* polar oscillator: M = diag(1, r^2), V = k r^2 / 2 */
static int test_polar_fd(void) {
  double q0[2] = {1.3, 0.4}, v0[2] = {0.1, 0.2};
  nh_model *m = test_polar_create(2.5, q0, v0);
  ENSURE(m && m->exact_derivs == 0);
  double dM[8], d2M[16], H[4];
  ENSURE(nh_model_mass_deriv(m, q0, dM, NULL) == NH_OK);
  ENSURE(nh_model_mass_deriv2(m, q0, d2M, NULL) == NH_OK);
  ENSURE(nh_model_potential_hess(m, q0, H, NULL) == NH_OK);
  /* dM/dr = diag(0, 2r), dM/dth = 0; d2M/dr2 = diag(0, 2) */
  double dM_ref[8] = {0, 0, 0, 2 * q0[0], 0, 0, 0, 0};
  for (int i = 0; i < 8; i++) ENSURE_NEAR(dM[i], dM_ref[i], FD_TOL);
  for (int i = 0; i < 16; i++) ENSURE_NEAR(d2M[i], i == 3 ? 2.0 : 0.0, FD2_TOL);
  double H_ref[4] = {2.5, 0, 0, 0};
  for (int i = 0; i < 4; i++) ENSURE_NEAR(H[i], H_ref[i], FD_TOL);
  /* caller workspace gives the same numbers */
  double *w = malloc(sizeof(double) * nh_model_deriv_work_size(m)), dM2[8];
  ENSURE(nh_model_mass_deriv(m, q0, dM2, w) == NH_OK);
  for (int i = 0; i < 8; i++) ENSURE(dM2[i] == dM[i]);
  free(w);
  nh_model_destroy(m);
  return 0;
}

/* the penny's constraint one-forms: dA/dphi = [[0,0,R sin phi,0],[0,0,-R cos phi,0]] */
static int test_penny_dA(void) {
  nh_penny_params p = nh_penny_params_default();
  nh_model *m = nh_penny_create(&p, NULL, 0);
  ENSURE(m);
  unsigned long long seed = 7;
  for (int trial = 0; trial < 20; trial++) {
    double q[4];
    for (int i = 0; i < 4; i++) q[i] = nh_test_rand(&seed, -3, 3);
    double dA[32];
    ENSURE(nh_model_constraint_deriv(m, q, dA, NULL) == NH_OK);
    for (int k = 0; k < 4; k++)
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
          double ref = 0.0;
          if (k == 3 && j == 2) ref = i == 0 ? p.R * sin(q[3]) : -p.R * cos(q[3]);
          ENSURE_NEAR(dA[(k * 2 + i) * 4 + j], ref, FD_TOL);
        }
  }
  nh_model_destroy(m);
  return 0;
}

/* a damped, driven oscillator f = -c v + a sin(t) q0^2: Jacobians known in closed form; an
 * exact force_jac callback is used as given */
static int damp_force(double t, const double *q, const double *v, double *f, void *user) {
  (void)user;
  f[0] = -0.3 * v[0] + 0.5 * sin(t) * q[0] * q[0];
  f[1] = -0.3 * v[1] * v[0];
  return 0;
}
static int damp_jac(double t, const double *q, const double *v, double *dq, double *dv, void *user) {
  (void)t, (void)q, (void)v, (void)user;
  if (dq) for (int i = 0; i < 4; i++) dq[i] = 42.0; /* recognisable: proves it was called */
  if (dv) for (int i = 0; i < 4; i++) dv[i] = 43.0;
  return 0;
}
static int test_force_jac(void) {
  static const char *names[] = {"a", "b"};
  nh_model_def d = nh_model_def_default();
  d.nq = 2;
  d.coord_names = names;
  d.mass = polar_mass;
  d.force = damp_force;
  nh_model *m = nh_model_create(&d, NULL, 0);
  ENSURE(m);
  double t = 0.7, q[2] = {1.1, -0.4}, v[2] = {0.3, 2.0}, dq[4], dv[4];
  ENSURE(nh_model_force_jac(m, t, q, v, dq, dv, NULL) == NH_OK);
  ENSURE_NEAR(dq[0], sin(t) * q[0], FD_TOL);
  ENSURE_NEAR(dq[1], 0.0, FD_TOL);
  ENSURE_NEAR(dq[2], 0.0, FD_TOL);
  ENSURE_NEAR(dq[3], 0.0, FD_TOL);
  ENSURE_NEAR(dv[0], -0.3, FD_TOL);
  ENSURE_NEAR(dv[1], 0.0, FD_TOL);
  ENSURE_NEAR(dv[2], -0.3 * v[1], FD_TOL);
  ENSURE_NEAR(dv[3], -0.3 * v[0], FD_TOL);
  nh_model_destroy(m);
  d.force_jac = damp_jac;
  m = nh_model_create(&d, NULL, 0);
  ENSURE(m && m->exact_derivs == NH_DERIV_FORCE);
  ENSURE(nh_model_force_jac(m, t, q, v, dq, dv, NULL) == NH_OK);
  ENSURE(dq[0] == 42.0 && dv[3] == 43.0);
  nh_model_destroy(m);
  return 0;
}

/* ---- every evaluator of the list reaches the model --------------------------------------- */

/* stands in for every evaluator type (never called; void (*)(void) converts to any) */
static void stub(void) {}

/* a valid definition of each form: mechanical with a constraint, a gap and a monitor; ODE
 * with a monitor; almost-Poisson with its exact derivatives (beside which the sparse-fill
 * variants are allowed) */
static nh_model_def form_def(int form) {
  static const char *const names[] = {"a", "b"};
  static const nh_monitor_def mon = {"m", NH_MONITOR_BOTH, NH_MONITOR_REPORT};
  nh_model_def d = nh_model_def_default();
  d.nmon = 1, d.monitors = &mon, d.monitor = (nh_monitor_fn)stub;
  if (form == 0) {
    d.nq = 2, d.nc = 1, d.ngap = 1, d.coord_names = names;
    d.mass = (nh_mass_fn)stub, d.constraint = (nh_constraint_fn)stub, d.gap = (nh_gap_fn)stub;
    static const unsigned char mpat[4] = {1, 0, 0, 1}, cpat[2] = {1, 1}; /* for the sparse fills */
    d.mass_pattern = mpat, d.constraint_pattern = cpat;
    return d;
  }
  d.form = NH_FORM_ODE, d.nx = 4;
  if (form == 1) {
    d.rhs = (nh_rhs_fn)stub;
  } else {
    d.hamiltonian = (nh_hamiltonian_fn)stub, d.poisson = (nh_poisson_fn)stub;
    d.hamiltonian_hess = (nh_hamiltonian_hess_fn)stub, d.poisson_jac = (nh_poisson_jac_fn)stub;
  }
  return d;
}

/* Each evaluator of NH_EVALUATOR_LIST, given in a definition of some form that accepts it,
 * is the model's (holonomic only with constraints), and sets its exact-derivative bit (and
 * only a derivative sets one). */
static int test_every_evaluator_copied(void) {
  int entries = 0;
#define X(name, type, exact)                                                                 \
  {                                                                                          \
    int accepted = 0;                                                                        \
    entries++;                                                                               \
    for (int form = 0; form < 3; form++) {                                                   \
      nh_model_def d = form_def(form);                                                       \
      nh_model_def d0 = d;                                                                   \
      d.name = (type)stub;                                                                   \
      nh_model *m = nh_model_create(&d, NULL, 0), *m0 = nh_model_create(&d0, NULL, 0);       \
      ENSURE(m0);                                                                            \
      if (m) {                                                                               \
        accepted++;                                                                          \
        /* holonomic constraints need constraints: dropped when nc = 0 */                   \
        int kept = strcmp(#name, "holonomic") != 0 || d.nc > 0;                              \
        ENSURE(m->name == (kept ? (type)stub : NULL) && m0->name == d0.name);                \
        ENSURE(m->exact_derivs == (m0->exact_derivs | (unsigned)(exact)));                   \
      }                                                                                      \
      nh_model_destroy(m), nh_model_destroy(m0);                                             \
    }                                                                                        \
    if (!accepted) printf("  %s: no form accepts it\n", #name);                              \
    ENSURE(accepted > 0);                                                                    \
  }
  NH_EVALUATOR_LIST(X)
#undef X
  ENSURE(entries == 28);
  /* the almost-Poisson base has both exact derivatives of its form */
  nh_model_def d = form_def(2);
  nh_model *m = nh_model_create(&d, NULL, 0);
  ENSURE(m && m->exact_derivs == (NH_DERIV_HAMILTONIAN | NH_DERIV_POISSON));
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_polar_fd);
  RUN_TEST(test_penny_dA);
  RUN_TEST(test_force_jac);
  RUN_TEST(test_every_evaluator_copied);
  return TEST_SUMMARY();
}
