/* nholo/systems/sleigh.h - the Chaplygin sleigh, a built-in model written in C, and its
 * closed-form solution. */
#ifndef NHOLO_SYSTEMS_SLEIGH_H
#define NHOLO_SYSTEMS_SLEIGH_H

#include "nholo/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The Chaplygin sleigh (Kobilarov, Martin de Diego, Ferraro, "Simulating Nonholonomic
 * Dynamics", sec. 6.1; spec 001 sec. 5.1): a planar rigid body of mass m and inertia I about
 * its centre of mass, on a knife edge (skate) at distance a behind the centre of mass.
 *   q = (theta, x, y), (x, y) the centre of mass; M = diag(I, m, m); no potential.
 *   constraint skate:  a theta' + sin(theta) x' - cos(theta) y' = 0
 * Initial data by the heading rate omega0 and the forward speed v0 of the centre of mass:
 *   q'(0) = (omega0, v0 cos th0 - a omega0 sin th0, v0 sin th0 + a omega0 cos th0).
 * SE(2) structure: se2 = (0, 1, 2), no shape. */
typedef struct nh_sleigh_params {
  double I, m, a;              /* inertia about the centre of mass, mass, skate offset */
  double theta0, x0, y0;       /* initial configuration */
  double omega0, v0;           /* initial heading rate and forward speed */
} nh_sleigh_params;

/* Spec 001 sec. 5.1 defaults: I = m = a = 1, q(0) = 0, omega0 = 1, v0 = -1 (E = 1.5). */
NH_API nh_sleigh_params nh_sleigh_params_default(void);
NH_API int nh_sleigh_params_check(const nh_sleigh_params *p, char *msg, size_t msg_size);
NH_API nh_model *nh_sleigh_create(const nh_sleigh_params *p, char *msg, size_t msg_size);
/* Set a parameter or initial value by name (I m a theta x y omega v); 0 if the name is unknown. */
NH_API int nh_sleigh_set(nh_sleigh_params *p, const char *name, double value);

/* The closed-form sleigh solution at time t (spec 001 sec. 5.1):
 *   v = V tanh(k (t - t_c)),  omega = sgn(omega0) w_max sech(k (t - t_c)),
 *   theta = theta0 + sgn(omega0) (w_max / k) [gd(k (t - t_c)) - gd(-k t_c)],
 * V = sqrt(2E/m), w_max = sqrt(2E/I'), I' = I + a^2 m, k = a m V / I', t_c = -atanh(v0/V)/k;
 * the skate point (x_s, y_s) = (x - a cos th, y - a sin th) moves with speed v along the heading,
 * integrated by composite 8-point Gauss-Legendre quadrature (accurate to round-off for
 * t k <= 1e3). Outputs q = (theta, x, y) and qdot (either Nullable), and omega, v (Nullable). */
NH_API int nh_sleigh_exact(const nh_sleigh_params *p, double t, double *q, double *qdot,
                           double *omega, double *v);

#ifdef __cplusplus
}
#endif
#endif
