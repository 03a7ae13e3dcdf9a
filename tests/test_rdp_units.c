/* test_rdp_units.c - rdp's Newton test and finite-difference Jacobian are unit-consistent: the
 * same model in two unit systems (masses x1e-3 and lengths x1e2, the same time unit, the
 * parameters and initial data scaled with them) takes the same Newton iterations in every step
 * and the same dimensionless trajectory to round-off. The Chaplygin sleigh (no shape; the
 * constraint row mixes a length times an angular velocity with a linear velocity) and the
 * snakeboard with its joint torques (shape, two constraints, forces). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "nholo/nholo.h"

#define STEPS 200
#define H 0.05
/* the two runs agree to this, relative to the scale of each coordinate (round-off of the
 * unit change: 1e2 and 1e-3 are not powers of 2) */
#define AGREE_REL 1e-11

/* parameters M (mass unit) and L (length unit) */
static const char *sleigh =
    "model sleigh\n"
    "coordinates theta x y\n"
    "group se2 theta x y\n"
    "parameter M = 1\nparameter L = 1\n"
    "parameter I = M*L^2\nparameter m = M\nparameter a = L\n"
    "kinetic 1/2*I*theta'^2 + 1/2*m*(x'^2 + y'^2)\n"
    "constraint skate: a*theta' + sin(theta)*x' - cos(theta)*y' = 0\n"
    "initial theta = 0.3, x = 0.2*L, y = -0.1*L\n"
    "initial theta' = 1, x' = -cos(0.3)*L - sin(0.3)*a, y' = -sin(0.3)*L + cos(0.3)*a\n";

static const char *snakeboard =
    "model snakeboard\n"
    "coordinates psi phi theta x y\n"
    "group se2 theta x y\n"
    "parameter M = 1\nparameter L = 1\n"
    "parameter m = M\nparameter l = L\nparameter I = 0.5*M*L^2\nparameter J = 1.5*M*L^2\n"
    "kinetic 1/2*I*(psi' + theta')^2 + 1/2*(m*l^2 - I)*theta'^2 + J*phi'^2 + 1/2*m*(x'^2 + y'^2)\n"
    "constraint front: -l*cos(phi)*theta' - sin(theta + phi)*x' + cos(theta + phi)*y' = 0\n"
    "constraint back:   l*cos(phi)*theta' - sin(theta - phi)*x' + cos(theta - phi)*y' = 0\n"
    "force psi: M*L^2*cos(20*pi*t)\n"
    "force phi: M*L^2*sin(2*pi*t)\n"
    "parameter p1 = -M*L^2\nparameter phi0 = pi/3\nparameter dpsi0 = 2.5\n"
    "parameter w = (p1 - I*dpsi0*sin(2*phi0)) / (4*m*l^2*cos(phi0)^2)\n"
    "initial psi = pi/2, phi = phi0, theta = 0, x = 0, y = 0\n"
    "initial psi' = dpsi0, phi' = -0.02, theta' = w*sin(2*phi0), x' = -2*l*w*cos(phi0)^2, y' = 0\n";

typedef struct units_run {
  int iters[STEPS];
  double x[STEPS][10]; /* q / L for lengths, v / L (angles unscaled) */
} units_run;

static units_run run_a, run_b; /* large: static */

/* rdp on text with M = mass, L = len; lengths marks which coordinates are lengths */
static int run_units(const char *text, double mass, double len, const int *lengths, units_run *o) {
  const char *names[] = {"M", "L"};
  const double values[] = {mass, len};
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  lo.nset = 2, lo.set_names = names, lo.set_values = values;
  char msg[1024];
  nh_model *m = nh_model_parse(text, "units.nh", &lo, msg, sizeof msg);
  if (!m) {
    printf("  %s\n", msg);
    return 1;
  }
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("rdp");
  d.h = H;
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  if (!s) {
    printf("  %s\n", msg);
    nh_model_destroy(m);
    return 1;
  }
  const int nq = m->nq;
  int rc = 0;
  for (int k = 0; k < STEPS && rc == 0; k++) {
    int impacted = 0;
    if (nh_sim_step(s, (k + 1) * H, &impacted) < 0) {
      printf("  step %d: %s\n", k, nh_sim_message(s));
      rc = 1;
      break;
    }
    o->iters[k] = nh_sim_get_stats(s)->solver_last_iterations;
    for (int i = 0; i < nq; i++) {
      const double u = lengths[i] ? len : 1.0;
      o->x[k][i] = nh_sim_q(s)[i] / u, o->x[k][nq + i] = nh_sim_v(s)[i] / u;
    }
  }
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return rc;
}

/* grams and hectometres against kilograms and metres: same iterations, same trajectory */
static int same_in_two_units(const char *text, int nq, const int *lengths) {
  if (run_units(text, 1e-3, 1e2, lengths, &run_a) || run_units(text, 1.0, 1.0, lengths, &run_b)) return 1;
  long total = 0;
  for (int k = 0; k < STEPS; k++) {
    if (run_a.iters[k] != run_b.iters[k]) {
      printf("  step %d: %d Newton iterations in the scaled units, %d in SI\n", k, run_a.iters[k], run_b.iters[k]);
      return 1;
    }
    total += run_a.iters[k];
    for (int i = 0; i < 2 * nq; i++) ENSURE_NEAR(run_a.x[k][i], run_b.x[k][i], AGREE_REL * (1.0 + fabs(run_b.x[k][i])));
  }
  ENSURE(total >= 2 * STEPS); /* a genuine Newton solve in every step */
  printf("  %.*s: %ld Newton iterations in %d steps in both unit systems\n", (int)strcspn(text + 6, "\n"), text + 6,
         total, STEPS);
  return 0;
}

static int test_rdp_units_sleigh(void) {
  static const int lengths[] = {0, 1, 1};
  return same_in_two_units(sleigh, 3, lengths);
}

static int test_rdp_units_snakeboard(void) {
  static const int lengths[] = {0, 0, 0, 1, 1};
  return same_in_two_units(snakeboard, 5, lengths);
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_rdp_units_sleigh);
  RUN_TEST(test_rdp_units_snakeboard);
  return TEST_SUMMARY();
}
