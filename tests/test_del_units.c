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

#define UNITS_STEPS 300
#define UNITS_H 1e-3
/* the two runs agree to this, relative to the scale of each coordinate (round-off of the
 * unit change: 1e2 and 1e3 are not powers of 2) */
#define UNITS_AGREE_REL 1e-11

#define UNITS_METHOD "del"
#include "units_harness.h"

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

static int test_del_units_unconstrained(void) {
  static const int lengths[] = {0, 0};
  return units_same(double_pendulum, 2, lengths, 1e-3, 1e-2, UNITS_STEPS);
}

static int test_del_units_holonomic(void) {
  static const int lengths[] = {1, 1};
  return units_same(cartesian_pendulum, 2, lengths, 1e-3, 1e-2, UNITS_STEPS);
}

static int test_del_units_nonholonomic(void) {
  static const int lengths[] = {1, 1, 1};
  return units_same(constrained_particle, 3, lengths, 1e-3, 1e-2, UNITS_STEPS);
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_del_units_unconstrained);
  RUN_TEST(test_del_units_holonomic);
  RUN_TEST(test_del_units_nonholonomic);
  return TEST_SUMMARY();
}
