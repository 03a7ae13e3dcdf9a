/* test_long_dg.c - the discrete-gradient methods on the free snakeboard over long horizons
 * (issue 28, point 4): avf, gonzalez, itoh-abe (through the D* form), gonzalez-r and
 * gonzalez-r-fd.
 *
 * The snakeboard's constraint rows (front and back axle, eq. 34 of Kobilarov et al.) become
 * dependent where cos(phi) = 0: there ker A jumps from 3 to 4 dimensions, while the
 * distribution of the motion (the limit of ker A from either side; the rows front + back =
 * 2 cos(phi) (lateral) and back - front = 2 (l cos(phi) theta' + sin(phi) v_forward) divided
 * by cos(phi)) is smooth. With phi' != 0 the steering angle passes through such a point.
 *
 * - test_crossing: phi' = -0.5 passes phi = -pi/2 at t = 5.236; every method runs through it
 *   to T = 8 and converges at its order to dop853 on the regularized model (the rows lateral
 *   and steer above, a smooth constraint of full rank). Before the QR's sign continuation
 *   (src/la/qrdiff.c) the fixed-sign frame jumped there and the runs ended NH_ERR_SINGULAR or
 *   NH_ERR_NONFINITE.
 * - test_long_free: phi' = 0 (the snakeboard circles) to T = 1000: energy and |A v| within
 *   the named bounds, NH_OK. itoh-abe (order 1) ended NH_ERR_NONFINITE at t = 70.88 before:
 *   its O(h) error in the steering momentum took phi to -pi/2 (the frame above) and a chord
 *   iteration diverged to NaN there (the divergence guard of nh_newton).
 * - test_long_crossings: the paper's phi' = -0.02 to T = 1000 with gonzalez (phi passes
 *   cos(phi) = 0 at t = 130.9 and every 157 s after: six times).
 * - test_singular_state: a state on the singular set (phi = -pi/2 exactly, phi' = 0) ends
 *   each method's run at once with NH_ERR_CONSTRAINT_RANK and a message that says why.
 * gonzalez-f (multipliers at the midpoint, A v = 0 only to O(h^2)) is run beside them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

#define PI 3.14159265358979323846

/* the crossing run: phi' and the horizon (phi = pi/3 - 0.5 t reaches -pi/2 at t = 5.236) */
#define SB_CROSS_PHID -0.5
#define SB_CROSS_T 8.0
/* dop853's tolerance for the reference on the regularized model */
#define SB_REF_TOL 1e-13
/* max-norm error of q at T = 8 against the reference, at h = 0.01 (measured: gonzalez,
 * gonzalez-r 2.0e-3, gonzalez-r-fd 5.7e-3, avf 2.3e-3, gonzalez-f 2.7e-4, itoh-abe 0.42) */
#define SB_CROSS_ERR_O2 1e-2
#define SB_CROSS_ERR_O1 1.0
/* the error ratio from h = 0.01 to 0.005: 4 for order 2 (measured 4.00), 2 for order 1
 * (measured 1.89) */
#define SB_RATIO2_LO 3.5
#define SB_RATIO2_HI 4.5
#define SB_RATIO1_LO 1.6
#define SB_RATIO1_HI 2.4
/* the relative energy error of a run through the crossing (measured <= 4.0e-13) and of the
 * long runs of the symmetric methods (measured <= 3.2e-11 over T = 1000) */
#define SB_ENERGY_TOL 1e-10
/* itoh-abe to T = 1000 at h = 0.05: the solves of steps next to cos(phi) = 0, whose frame
 * derivatives lose digits there (eps / dist^2), stop at the noise floor, each leaving up to
 * ~1e-9 (measured 6.6e-10; the method's O(h) error takes phi to pi/2 by t = 45, and its
 * discrete map keeps it there: cos(phi) changes sign 12621 times) */
#define SB_ENERGY_TOL_IA 1e-8
/* max |A v| at the steps: the frame's A X = 0 at round-off (measured <= 1.7e-15); gonzalez-f
 * holds A(q') v' = 0 only to O(h^2) (its constraint is at the midpoint; measured 7.7e-5 over
 * T = 1000 and 1.2e-4 through the crossing at h = 0.01) */
#define SB_CONSTRAINT_TOL 1e-14
#define SB_CONSTRAINT_TOL_F 1e-3
/* the long runs: T and the steps (avf and itoh-abe take 0.48 and 0.38 ms per step on the
 * snakeboard at h = 0.01, for 16 to 32 Gauss nodes and for the coordinate increments' 9
 * evaluations and quadratures, each with the frame's derivatives: h = 0.05 keeps the test
 * near 40 s of CPU) */
#define SB_LONG_T 1000.0
#define SB_LONG_H 0.01
#define SB_LONG_H_SLOW 0.05

typedef struct dgm {
  const char *name;
  int order;
  double h_long;
  double constraint_tol; /* max |A v| at the steps */
} dgm;
static const dgm METHODS[] = {{"gonzalez", 2, SB_LONG_H, SB_CONSTRAINT_TOL},
                              {"gonzalez-r", 2, SB_LONG_H, SB_CONSTRAINT_TOL},
                              {"gonzalez-r-fd", 2, SB_LONG_H, SB_CONSTRAINT_TOL},
                              {"avf", 2, SB_LONG_H_SLOW, SB_CONSTRAINT_TOL},
                              {"itoh-abe", 1, SB_LONG_H_SLOW, SB_CONSTRAINT_TOL},
                              {"gonzalez-f", 2, SB_LONG_H, SB_CONSTRAINT_TOL_F}};
#define NMETHODS ((int)(sizeof METHODS / sizeof METHODS[0]))

/* the free snakeboard (no joint torques) with the paper's start and phi'(0) = phid */
static nh_model *free_snakeboard(double phid) {
  nh_snakeboard_params p = nh_snakeboard_params_default();
  p.A_psi = 0.0, p.A_phi = 0.0, p.phi_dot0 = phid;
  char msg[256];
  nh_model *m = nh_snakeboard_create(&p, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  return m;
}

/* the same mechanics with the constraint rows combined and divided by cos(phi): full rank */
static const char *const REGULAR_TEXT =
    "model snakeboard_regular\n"
    "coordinates psi phi theta x y\n"
    "parameter m = 1\nparameter l = 1\nparameter I = 0.5\nparameter J = 1.5\n"
    "kinetic 1/2*I*(psi' + theta')^2 + 1/2*(m*l^2 - I)*theta'^2 + J*phi'^2 + 1/2*m*(x'^2 + y'^2)\n"
    "constraint lateral: -sin(theta)*x' + cos(theta)*y' = 0\n"
    "constraint steer: l*cos(phi)*theta' + sin(phi)*(cos(theta)*x' + sin(theta)*y') = 0\n"
    "initial psi = 0\n";

/* run m with method at h from x0 (NULL: the model's) to t_end; status, final q, stats, message */
typedef struct sb_run {
  int status;
  double x[10];
  nh_sim_stats st;
  char msg[512];
} sb_run;

static int run(const nh_model *m, const char *method, double h, double tol, const double *x0, double t_end,
               sb_run *o) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  if (tol > 0.0) d.rtol = tol, d.atol = tol;
  nh_sim *s = nh_sim_create(m, &d, o->msg, sizeof o->msg);
  if (!s) {
    printf("  %s: %s\n", method, o->msg);
    return -1;
  }
  if (x0 && nh_sim_set_state_x(s, 0.0, x0) < 0) {
    printf("  %s: set_state: %s\n", method, nh_sim_message(s));
    nh_sim_destroy(s);
    return -1;
  }
  o->status = nh_sim_run(s, t_end, 0, NULL, NULL);
  memcpy(o->x, nh_sim_x(s), sizeof o->x);
  o->st = *nh_sim_get_stats(s);
  snprintf(o->msg, sizeof o->msg, "%s", nh_sim_message(s));
  nh_sim_destroy(s);
  return o->status;
}

static double qdist(const double *a, const double *b) {
  double d = 0.0;
  for (int i = 0; i < 5; i++) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

static int test_crossing(void) {
  nh_model *m = free_snakeboard(SB_CROSS_PHID);
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  char msg[2048];
  nh_model *reg = nh_model_parse(REGULAR_TEXT, "snakeboard_regular", &lo, msg, sizeof msg);
  if (!reg) printf("  %s\n", msg);
  ENSURE(m && reg && m->nx == 10 && reg->nx == 10);
  // the reference from the same state, through the regular constraint
  sb_run ref = {.status = NH_ERR_ARG};
  ENSURE(run(reg, "dop853", 1e-3, SB_REF_TOL, m->x0, SB_CROSS_T, &ref) == NH_OK);
  ENSURE(ref.x[1] < -PI / 2 - 0.5); /* phi went through -pi/2 */
  for (int k = 0; k < NMETHODS; k++) {
    const dgm *g = &METHODS[k];
    double e[2];
    for (int j = 0; j < 2; j++) {
      sb_run o = {.status = NH_ERR_ARG};
      double h = 0.01 / (1 << j);
      if (run(m, g->name, h, 0.0, NULL, SB_CROSS_T, &o) != NH_OK) {
        printf("  %s h = %g: %s\n", g->name, h, o.msg);
        ENSURE(0);
      }
      e[j] = qdist(o.x, ref.x);
      ENSURE(o.st.max_energy_rel_error < SB_ENERGY_TOL);
      ENSURE(o.st.max_constraint_residual < g->constraint_tol);
      if (j == 1)
        printf("  %-13s through phi = -pi/2: |q - q_ref| = %.2e, %.2e (ratio %.2f), energy %.1e, |A v| %.1e\n",
               g->name, e[0], e[1], e[0] / e[1], o.st.max_energy_rel_error, o.st.max_constraint_residual);
    }
    ENSURE(e[0] < (g->order == 2 ? SB_CROSS_ERR_O2 : SB_CROSS_ERR_O1));
    const double r = e[0] / e[1];
    if (g->order == 2) ENSURE(r > SB_RATIO2_LO && r < SB_RATIO2_HI);
    else ENSURE(r > SB_RATIO1_LO && r < SB_RATIO1_HI);
  }
  nh_model_destroy(reg);
  nh_model_destroy(m);
  return 0;
}

static int long_run(double phid, int k) {
  nh_model *m = free_snakeboard(phid);
  ENSURE(m);
  const dgm *g = &METHODS[k];
  sb_run o = {.status = NH_ERR_ARG}; /* until it runs */
  if (run(m, g->name, g->h_long, 0.0, NULL, SB_LONG_T, &o) != NH_OK) printf("  %s: %s\n", g->name, o.msg);
  printf("  %-13s phi' = %g, h = %g to T = %g: %s, energy %.2e, |A v| %.1e, %ld rejected steps, phi(T) = %.3f\n",
         g->name, phid, g->h_long, SB_LONG_T, nh_status_name(o.status), o.st.max_energy_rel_error,
         o.st.max_constraint_residual, o.st.rejected, o.x[1]);
  ENSURE(o.status == NH_OK);
  ENSURE(o.st.max_energy_rel_error < (g->order == 1 ? SB_ENERGY_TOL_IA : SB_ENERGY_TOL));
  ENSURE(o.st.max_constraint_residual < g->constraint_tol);
  nh_model_destroy(m);
  return 0;
}

static int test_long_free(void) {
  for (int k = 0; k < NMETHODS; k++) ENSURE(long_run(0.0, k) == 0);
  return 0;
}

static int test_long_crossings(void) {
  ENSURE(long_run(nh_snakeboard_params_default().phi_dot0, 0) == 0);
  return 0;
}

static int test_singular_state(void) {
  nh_model *m = free_snakeboard(0.0);
  ENSURE(m);
  // phi = -pi/2: both axles perpendicular to the board, the two rows opposite (rank 1); a
  // velocity in the limit of the distribution (no translation) that keeps phi there
  double x[10] = {0.0, -PI / 2, 0.3, 0.0, 0.0, 1.0, 0.0, -0.5, 0.0, 0.0};
  for (int k = 0; k < NMETHODS; k++) {
    sb_run o = {.status = NH_ERR_ARG};
    ENSURE(run(m, METHODS[k].name, 0.01, 0.0, x, 1.0, &o) == NH_ERR_CONSTRAINT_RANK);
    printf("  %-13s %s: %s\n", METHODS[k].name, nh_status_name(o.status), o.msg);
    ENSURE(o.status == NH_ERR_CONSTRAINT_RANK);
    ENSURE(strstr(o.msg, "at t = 0 ") && strstr(o.msg, "the constraint rows A(q) are dependent here") &&
           strstr(o.msg, "the distribution changes rank") && strstr(o.msg, "cannot continue"));
    ENSURE(o.st.steps == 0);
  }
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_singular_state);
  RUN_TEST(test_crossing);
  RUN_TEST(test_long_crossings);
  RUN_TEST(test_long_free);
  return TEST_SUMMARY();
}
