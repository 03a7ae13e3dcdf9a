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

#define UNITS_STEPS 200
#define UNITS_H 0.05
/* the two runs agree to this, relative to the scale of each coordinate (round-off of the
 * unit change: 1e2 and 1e-3 are not powers of 2) */
#define UNITS_AGREE_REL 1e-11

/* parameters M (mass unit) and L (length unit) */
#define UNITS_METHOD "rdp"
#include "units_harness.h"

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

static int test_rdp_units_sleigh(void) {
  static const int lengths[] = {0, 1, 1};
  return units_same(sleigh, 3, lengths, 1e-3, 1e2, 2 * UNITS_STEPS);
}

static int test_rdp_units_snakeboard(void) {
  static const int lengths[] = {0, 0, 0, 1, 1};
  return units_same(snakeboard, 5, lengths, 1e-3, 1e2, 2 * UNITS_STEPS);
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_rdp_units_sleigh);
  RUN_TEST(test_rdp_units_snakeboard);
  return TEST_SUMMARY();
}
