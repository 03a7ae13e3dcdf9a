/* test_del_units.c - del's Newton test is unit-consistent: the same model in two unit
 * systems (SI with small bodies: grams as 1e-3 kg, centimetres as 1e-2 m; and CGS, masses
 * x1e3 and lengths x1e2, the same time unit) takes the same Newton iterations in every step
 * and the same dimensionless trajectory to round-off. One model for each of del's three
 * Newton solves: unconstrained with a configuration-dependent M (a double pendulum in
 * angles), holonomic (a pendulum in Cartesian coordinates, the variational RATTLE) and
 * nonholonomic (a particle with a position-dependent mass on a quartic spring under gravity with the constraint
 * z' = (y/a) x'). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "nholo/nholo.h"

#define STEPS 300
#define H 1e-3
/* the two runs agree to this, relative to the scale of each coordinate (round-off of the
 * unit change: 1e2 and 1e3 are not powers of 2) */
#define AGREE_REL 1e-11

/* every model has parameters M (mass unit) and L (length unit); g = 9.81 m/s^2 in L per s^2 */
static const char *double_pendulum =
    "model double_pendulum\n"
    "coordinates a b\n"
    "parameter M = 1\nparameter L = 1\n"
    "parameter m1 = M\nparameter m2 = 0.5*M\nparameter l1 = L\nparameter l2 = 0.7*L\n"
    "parameter g = 9.81*L\n"
    "kinetic 1/2*(m1 + m2)*l1^2*a'^2 + 1/2*m2*l2^2*b'^2 + m2*l1*l2*cos(a - b)*a'*b'\n"
    "potential -(m1 + m2)*g*l1*cos(a) - m2*g*l2*cos(b)\n"
    "initial a = 1, b = -0.5, a' = 0.3\n";

static const char *cartesian_pendulum =
    "model cartesian_pendulum\n"
    "coordinates x y\n"
    "parameter M = 1\nparameter L = 1\n"
    "parameter m = M\nparameter l = L\nparameter g = 9.81*L\n"
    "kinetic 1/2*m*(x'^2 + y'^2)\n"
    "potential m*g*y\n"
    "holonomic rod: x^2 + y^2 - l^2 = 0\n"
    "initial x = l*sin(1), y = -l*cos(1)\n";

static const char *constrained_particle =
    "model constrained_particle\n"
    "coordinates x y z\n"
    "parameter M = 1\nparameter L = 1\n"
    "parameter m = M\nparameter a = L\nparameter k = 4*M\n"
    "kinetic 1/2*m*(1 + (x^2 + y^2)/a^2)*(x'^2 + y'^2) + 1/2*m*z'^2\n"
    "potential k/(4*a^2)*(x^2 + y^2 + z^2)^2 + m*9.81*L*y\n"
    "constraint heis: z' - y/a*x' = 0\n"
    "initial x = 0.3*L, y = 0.5*L, z = 0, x' = L, y' = 0.5*L, z' = 0.5*L\n";

typedef struct units_run {
  int iters[STEPS];
  double x[STEPS][8]; /* q / L for lengths, v / L (angles unscaled) */
} units_run;

static units_run run_a, run_b; /* large: static */

/* del on text with M = mass, L = len; lengths marks which coordinates are lengths */
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
  d.method = nh_method_find("del");
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

/* small SI bodies (1 g, 1 cm) against the same in CGS: same iterations, same trajectory */
static int same_in_two_units(const char *text, int nq, const int *lengths) {
  if (run_units(text, 1e-3, 1e-2, lengths, &run_a) || run_units(text, 1.0, 1.0, lengths, &run_b)) return 1;
  long total = 0;
  for (int k = 0; k < STEPS; k++) {
    if (run_a.iters[k] != run_b.iters[k]) {
      printf("  step %d: %d Newton iterations in SI, %d in CGS\n", k, run_a.iters[k], run_b.iters[k]);
      return 1;
    }
    total += run_a.iters[k];
    for (int i = 0; i < 2 * nq; i++) ENSURE_NEAR(run_a.x[k][i], run_b.x[k][i], AGREE_REL * (1.0 + fabs(run_b.x[k][i])));
  }
  ENSURE(total >= STEPS); /* a genuine Newton solve in every step */
  printf("  %.*s: %ld Newton iterations in %d steps in both unit systems\n", (int)strcspn(text + 6, "\n"), text + 6,
         total, STEPS);
  return 0;
}

static int test_del_units_unconstrained(void) {
  static const int lengths[] = {0, 0};
  return same_in_two_units(double_pendulum, 2, lengths);
}

static int test_del_units_holonomic(void) {
  static const int lengths[] = {1, 1};
  return same_in_two_units(cartesian_pendulum, 2, lengths);
}

static int test_del_units_nonholonomic(void) {
  static const int lengths[] = {1, 1, 1};
  return same_in_two_units(constrained_particle, 3, lengths);
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_del_units_unconstrained);
  RUN_TEST(test_del_units_holonomic);
  RUN_TEST(test_del_units_nonholonomic);
  return TEST_SUMMARY();
}
