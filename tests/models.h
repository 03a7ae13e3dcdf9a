/* models.h - small hand-written models with known solutions, shared by the tests. */
#ifndef NH_TEST_MODELS_H
#define NH_TEST_MODELS_H

#include <math.h>
#include <string.h>

#include "nholo/nholo.h"

/* A ball on a vertical line under gravity above a floor: q = (y), M = m, V = m g y, gap y >= 0.
 * Flights are parabolas, so DOPRI5 (exact on quadratics) locates impacts to round-off. */
typedef struct ball_params {
  double m, g;
} ball_params;

static int ball_mass(const double *q, double *M, void *user) {
  (void)q;
  M[0] = ((const ball_params *)user)->m;
  return 0;
}
static int ball_potential(const double *q, double *V, double *dV, void *user) {
  const ball_params *p = user;
  if (V) *V = p->m * p->g * q[0];
  if (dV) dV[0] = p->m * p->g;
  return 0;
}
static int ball_gap(const double *q, double *g, double *dg, void *user) {
  (void)user;
  if (g) g[0] = q[0];
  if (dg) dg[0] = 1.0;
  return 0;
}

static inline nh_model *test_ball_create(double e, double y0, double v0) {
  static const char *names[] = {"y"};
  static const char *gaps[] = {"floor"};
  ball_params p = {0.3, 9.81};
  nh_impact_law law = {NH_IMPACT_RESTITUTION, e};
  nh_model_def d = nh_model_def_default();
  d.name = "ball";
  d.nq = 1, d.ngap = 1;
  d.coord_names = names;
  d.gap_names = gaps;
  d.impact = &law;
  d.q0 = &y0;
  d.v0 = &v0;
  d.mass = ball_mass;
  d.potential = ball_potential;
  d.gap = ball_gap;
  d.user = &p;
  d.user_size = sizeof p;
  return nh_model_create(&d, NULL, 0);
}

/* A harmonic oscillator in polar coordinates: q = (r, th), M = diag(1, r^2), V = k r^2 / 2,
 * c = (-r th'^2, 2 r r' th'). In Cartesian coordinates x(t) = x0 cos(w t) + vx0/w sin(w t). */
static int polar_mass(const double *q, double *M, void *user) {
  (void)user;
  M[0] = 1.0, M[1] = 0.0, M[2] = 0.0, M[3] = q[0] * q[0];
  return 0;
}
static int polar_potential(const double *q, double *V, double *dV, void *user) {
  double k = *(const double *)user;
  if (V) *V = 0.5 * k * q[0] * q[0];
  if (dV) dV[0] = k * q[0], dV[1] = 0.0;
  return 0;
}
static int polar_coriolis(const double *q, const double *v, double *c, void *user) {
  (void)user;
  c[0] = -q[0] * v[1] * v[1];
  c[1] = 2.0 * q[0] * v[0] * v[1];
  return 0;
}

static inline nh_model *test_polar_create(double k, const double *q0, const double *v0) {
  static const char *names[] = {"r", "th"};
  nh_model_def d = nh_model_def_default();
  d.name = "polar";
  d.nq = 2;
  d.coord_names = names;
  d.q0 = q0;
  d.v0 = v0;
  d.mass = polar_mass;
  d.potential = polar_potential;
  d.coriolis = polar_coriolis;
  d.user = &k;
  d.user_size = sizeof k;
  return nh_model_create(&d, NULL, 0);
}

/* exact Cartesian position q = (x, y) and velocity at time t from the polar (r0, th0, r0', th0') */
static inline void polar_exact(double k, const double *q0, const double *v0, double t, double *q, double *v) {
  double w = sqrt(k);
  double c0 = cos(q0[1]), s0 = sin(q0[1]);
  double x0 = q0[0] * c0, y0 = q0[0] * s0;
  double vx0 = v0[0] * c0 - q0[0] * s0 * v0[1], vy0 = v0[0] * s0 + q0[0] * c0 * v0[1];
  double x = x0 * cos(w * t) + vx0 / w * sin(w * t), y = y0 * cos(w * t) + vy0 / w * sin(w * t);
  double vx = -x0 * w * sin(w * t) + vx0 * cos(w * t), vy = -y0 * w * sin(w * t) + vy0 * cos(w * t);
  q[0] = x, q[1] = y, v[0] = vx, v[1] = vy;
}

/* Cartesian position and velocity of a polar state */
static inline void polar_to_xy(const double *q, const double *v, double *p, double *pv) {
  double c = cos(q[1]), s = sin(q[1]);
  p[0] = q[0] * c, p[1] = q[0] * s;
  pv[0] = v[0] * c - q[0] * s * v[1], pv[1] = v[0] * s + q[0] * c * v[1];
}

#endif
