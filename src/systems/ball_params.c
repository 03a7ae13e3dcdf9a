/* ball_params.c - the parameters of the rolling ball and disk with internal masses
 * (Putkaradze & Rogers; spec 004): the input profile, circle-rail bases, the paper's examples
 * and the checks of a parameter set (nh_ball_params_check). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/msg.h"
#include "la/la.h"
#include "nholo/systems/ball.h"
#include "systems/ball_impl.h"

/* ---- parameters ------------------------------------------------------------------------ */

double nh_ball_profile(double t) {
  if (t < 0.0 || t > 0.2) return 0.0;
  return t <= 0.1 ? 1.0 : 2.0 - 10.0 * t;
}

void nh_ball_rail_basis(const double n[3], double B[9]) {
  double b1[3], b2[3];
  if (n[2] < -0.9999999) { /* Frisvad's singular branch */
    b1[0] = 0, b1[1] = -1, b1[2] = 0;
    b2[0] = -1, b2[1] = 0, b2[2] = 0;
  } else {
    double a = 1.0 / (1.0 + n[2]), b = -n[0] * n[1] * a;
    b1[0] = 1.0 - n[0] * n[0] * a, b1[1] = b, b1[2] = -n[0];
    b2[0] = b, b2[1] = 1.0 - n[1] * n[1] * a, b2[2] = -n[1];
  }
  for (int k = 0; k < 3; k++) B[3 * k] = n[k], B[3 * k + 1] = b2[k], B[3 * k + 2] = -b1[k];
}

static void set_identity(double *A) {
  memset(A, 0, 9 * sizeof(double));
  A[0] = A[4] = A[8] = 1.0;
}

nh_ball_params nh_ball_params_disk_example(void) {
  nh_ball_params p;
  memset(&p, 0, sizeof p);
  snprintf(p.name, sizeof p.name, "rolling-disk");
  p.n = 4, p.r = 1.0, p.g = 1.0, p.m0 = 1.0;
  set_identity(p.I); /* d2 = 1 (d1, d3 play no role) */
  const double radii[4] = {0.9, 19.0 / 30.0, 11.0 / 30.0, 0.1};
  for (int i = 0; i < 4; i++) {
    p.m[i] = 1.0;
    p.rail_radius[i] = radii[i];
    set_identity(p.rail_basis[i]); /* circles in the E1-E3 plane (5.4) */
    p.input_sign[i] = (i % 2 == 0) ? -1.0 : 1.0; /* (-1)^i, i = 1..4 (5.5) */
    p.theta0[i] = -PI / 2;
  }
  p.q0[0] = 1.0;
  return p;
}

nh_ball_params nh_ball_params_ball_example(void) {
  nh_ball_params p;
  memset(&p, 0, sizeof p);
  snprintf(p.name, sizeof p.name, "rolling-ball");
  p.n = 3, p.r = 1.0, p.g = 1.0, p.m0 = 1.0;
  p.I[0] = 0.9, p.I[4] = 1.0, p.I[8] = 1.1;
  p.chi0[2] = -0.05;
  const double radii[3] = {0.95, 0.9, 0.85}, theta0[3] = {0.0, 2.0369, 0.7044};
  const double normals[3][3] = {{1, 0, 0}, {0, 1, 0}, {0.5, 0.5, 0.70710678118654752440}};
  for (int i = 0; i < 3; i++) {
    p.m[i] = 1.0;
    p.rail_radius[i] = radii[i];
    nh_ball_rail_basis(normals[i], p.rail_basis[i]);
    p.input_sign[i] = 1.0; /* (6.11) */
    p.theta0[i] = theta0[i];
  }
  p.q0[0] = 1.0;
  return p;
}

nh_ball_params nh_ball_params_detach_example(void) {
  nh_ball_params p = nh_ball_params_ball_example();
  snprintf(p.name, sizeof p.name, "rolling-ball-detach");
  p.m0 = 0.1, p.m[0] = 0.1, p.m[1] = 0.1, p.m[2] = 60.0;
  p.stop_on_detach = 1;
  return p;
}

static int finite_pos(double v) { return isfinite(v) && v > 0.0; }

int nh_ball_params_check(const nh_ball_params *p, char *msg, size_t size) {
  if (!p) {
    nh_set_msg(msg, size, "no ball parameters given");
    return NH_ERR_ARG;
  }
  if (p->n < 0 || p->n > NH_BALL_MAX_MASSES) {
    nh_set_msg(msg, size, "n = %d moving masses: must be in [0, %d]", p->n, NH_BALL_MAX_MASSES);
    return NH_ERR_ARG;
  }
  if (!finite_pos(p->r)) {
    nh_set_msg(msg, size, "radius r = %g must be positive", p->r);
    return NH_ERR_ARG;
  }
  if (!(isfinite(p->g) && p->g >= 0.0)) {
    nh_set_msg(msg, size, "gravity g = %g must be >= 0", p->g);
    return NH_ERR_ARG;
  }
  if (!finite_pos(p->m0)) {
    nh_set_msg(msg, size, "mass m0 = %g must be positive", p->m0);
    return NH_ERR_ARG;
  }
  for (int i = 0; i < p->n; i++)
    if (!finite_pos(p->m[i])) {
      nh_set_msg(msg, size, "mass m%d = %g must be positive", i + 1, p->m[i]);
      return NH_ERR_ARG;
    }
  // inertia: symmetric positive definite
  double Ic[9];
  for (int k = 0; k < 9; k++) {
    if (!isfinite(p->I[k])) {
      nh_set_msg(msg, size, "inertia I is not finite");
      return NH_ERR_ARG;
    }
    Ic[k] = p->I[k];
  }
  double scale = fabs(p->I[0]) + fabs(p->I[4]) + fabs(p->I[8]);
  for (int a = 0; a < 3; a++)
    for (int b = a + 1; b < 3; b++)
      if (fabs(p->I[3 * a + b] - p->I[3 * b + a]) > BALL_SYM_TOL * scale) {
        nh_set_msg(msg, size, "inertia I is not symmetric (I%d%d = %g, I%d%d = %g)", a + 1, b + 1,
                   p->I[3 * a + b], b + 1, a + 1, p->I[3 * b + a]);
        return NH_ERR_ARG;
      }
  if (nh_la_chol(3, Ic, 0.0, NULL) != 0) {
    nh_set_msg(msg, size, "inertia I is not positive definite");
    return NH_ERR_ARG;
  }
  for (int k = 0; k < 3; k++)
    if (!isfinite(p->chi0[k]) || !isfinite(p->Fe[k]) || !isfinite(p->Om0[k])) {
      nh_set_msg(msg, size, "chi0, Fe and Om0 must be finite");
      return NH_ERR_ARG;
    }
  if (sqrt(dot3(p->chi0, p->chi0)) > p->r) {
    nh_set_msg(msg, size, "centre of mass chi0 is outside the ball (|chi0| = %g > r = %g)",
               sqrt(dot3(p->chi0, p->chi0)), p->r);
    return NH_ERR_ARG;
  }
  double nq = sqrt(p->q0[0] * p->q0[0] + p->q0[1] * p->q0[1] + p->q0[2] * p->q0[2] + p->q0[3] * p->q0[3]);
  if (!(fabs(nq - 1.0) <= BALL_UNIT_TOL)) {
    nh_set_msg(msg, size, "initial quaternion q0 is not a unit quaternion (|q0| = %.17g)", nq);
    return NH_ERR_ARG;
  }
  if (!(isfinite(p->mu) && p->mu >= 0.0)) {
    nh_set_msg(msg, size, "friction coefficient mu = %g must be >= 0", p->mu);
    return NH_ERR_ARG;
  }
  // rails inside the ball, finite initial state
  for (int i = 0; i < p->n; i++) {
    if (!isfinite(p->theta0[i]) || !isfinite(p->thetad0[i]) || !isfinite(p->input_sign[i])) {
      nh_set_msg(msg, size, "initial theta, theta' or input sign of m%d is not finite", i + 1);
      return NH_ERR_ARG;
    }
    if (!p->rail) {
      if (!finite_pos(p->rail_radius[i]) || p->rail_radius[i] > p->r * (1.0 + BALL_RAIL_TOL)) {
        nh_set_msg(msg, size, "rail of m%d: radius %g must be in (0, r = %g] (inside the ball)",
                   i + 1, p->rail_radius[i], p->r);
        return NH_ERR_ARG;
      }
      double BtB[9];
      nh_la_gemm_nt(3, 3, 3, p->rail_basis[i], p->rail_basis[i], BtB);
      for (int k = 0; k < 9; k++)
        if (!(fabs(BtB[k] - (k % 4 == 0 ? 1.0 : 0.0)) <= BALL_BASIS_TOL)) {
          nh_set_msg(msg, size, "rail of m%d: basis is not orthonormal", i + 1);
          return NH_ERR_ARG;
        }
      continue;
    }
    for (int k = 0; k < BALL_RAIL_SAMPLES; k++) {
      double th = p->theta0[i] + 2.0 * PI * k / BALL_RAIL_SAMPLES, z[3], zp[3], zpp[3];
      if (p->rail(i, th, z, zp, zpp, p->rail_user) != 0 || !isfinite(dot3(z, z) + dot3(zp, zp) + dot3(zpp, zpp))) {
        nh_set_msg(msg, size, "rail of m%d cannot be evaluated at theta = %g", i + 1, th);
        return NH_ERR_ARG;
      }
      if (sqrt(dot3(z, z)) > p->r * (1.0 + BALL_RAIL_TOL)) {
        nh_set_msg(msg, size, "rail of m%d leaves the ball: |zeta(%g)| = %g > r = %g", i + 1, th,
                   sqrt(dot3(z, z)), p->r);
        return NH_ERR_ARG;
      }
    }
  }
  return NH_OK;
}
