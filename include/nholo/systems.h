/* nholo/systems.h - built-in models written in C.
 *
 * The penny (Clark & Bloch, "The Bouncing Penny and Nonholonomic Impacts", sec. V-VI):
 * a vertical disk of mass m, radius R, inertia I about its axle and J about a vertical
 * diameter, rolling without slipping inside the elliptical wall X^2/a^2 + Y^2/b^2 = 1.
 *   q = (x, y, theta, phi): contact point, rolling angle, heading.
 *   constraints  roll_x: x' - R cos(phi) theta' = 0,   roll_y: y' - R sin(phi) theta' = 0
 *   gaps         front: 1 - h(x + R cos phi, y + R sin phi),  back: 1 - ... (x - R cos phi, ...)
 *                with h(X, Y) = X^2/a^2 + Y^2/b^2 (admissible where the gap is >= 0)
 * The model carries the closed-form flow (paper eq. 26, in the regular sinc form) and an
 * exact event predictor (both ends move on circles, or lines when phi' = 0, and the first
 * crossing with the ellipse is found by root isolation on a trigonometric polynomial). */
#ifndef NHOLO_SYSTEMS_H
#define NHOLO_SYSTEMS_H

#include "nholo/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nh_penny_params {
  double m, R, I, J; /* mass (kg), radius (m), inertias about the axle and a diameter (kg m^2) */
  double a, b;       /* semi-axes of the table along x and y (m) */
  nh_impact_law law; /* impact law at both ends */
  double theta_dot0, phi_dot0; /* initial rolling and turning rates (rad/s) */
  double x0, y0, theta0, phi0; /* initial configuration */
} nh_penny_params;

/* The paper's Table I on the circular table (a = b = 0.2), elastic, with the initial
 * conditions of Figs. 1-4: x = y = theta = 0, phi = pi/2, theta' = 10, phi' = 0.2. */
NH_API nh_penny_params nh_penny_params_default(void);

/* Check the parameters (positive, finite, initial point inside the table, e in [0,1]);
 * returns NH_OK or NH_ERR_ARG with a reason naming the parameter in msg. */
NH_API int nh_penny_params_check(const nh_penny_params *p, char *msg, size_t msg_size);

/* Build the penny model. NULL with a reason in msg on bad parameters. */
NH_API nh_model *nh_penny_create(const nh_penny_params *p, char *msg, size_t msg_size);

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

/* The snakeboard (paper sec. 6.2; spec 001 sec. 5.2): board of mass m with wheel axles at
 * distance l from the centre, steered by phi (front +phi, back -phi), with a rotor of
 * inertia I driven by a torque u_psi and a steering torque u_phi (inertia J per axle).
 *   q = (psi, phi, theta, x, y);  L = 1/2 q'^T M q',
 *   M = [[I,0,I,0,0],[0,2J,0,0,0],[I,0,m l^2,0,0],[0,0,0,m,0],[0,0,0,0,m]]
 *   constraints (paper eq. 34)  front: -l cos(phi) theta' - sin(theta+phi) x' + cos(theta+phi) y' = 0
 *                               back:   l cos(phi) theta' - sin(theta-phi) x' + cos(theta-phi) y' = 0
 *   controls (generalized forces on psi and phi): u_psi = A_psi cos(2 pi f_psi t),
 *                                                 u_phi = A_phi sin(2 pi f_phi t)
 * Initial data as in the paper's Fig. 4: psi, phi, theta, x, y, the nonholonomic momentum
 * p1 = <d_xi l, e_1(phi)> with e_1 = (sin 2phi, -2 l cos^2 phi, 0), psi' and phi'.
 * SE(2) structure: se2 = (2, 3, 4), shape (psi, phi). Singular at phi = +-pi/2. */
typedef struct nh_snakeboard_params {
  double m, l, I, J;
  double A_psi, f_psi, A_phi, f_phi;   /* control amplitudes (N m) and frequencies (Hz) */
  double psi0, phi0, theta0, x0, y0;   /* initial configuration */
  double p1_0, psi_dot0, phi_dot0;     /* initial momentum p1 and joint rates */
} nh_snakeboard_params;

/* Spec 001 sec. 5.2/7 defaults: m = l = 1, I = 0.5, J = 1.5, controls cos(20 pi t), sin(2 pi t),
 * psi = pi/2, phi = pi/3, theta = x = y = 0, p1 = -1, psi' = 2.5, phi' = -0.02. */
NH_API nh_snakeboard_params nh_snakeboard_params_default(void);
NH_API int nh_snakeboard_params_check(const nh_snakeboard_params *p, char *msg, size_t msg_size);
NH_API nh_model *nh_snakeboard_create(const nh_snakeboard_params *p, char *msg, size_t msg_size);
/* Set by name (m l I J Apsi fpsi Aphi fphi psi phi theta x y p1 psi' phi'); 0 if unknown. */
NH_API int nh_snakeboard_set(nh_snakeboard_params *p, const char *name, double value);
/* The initial velocity q'(0) the parameters define (spec 001 sec. 5.2). */
NH_API void nh_snakeboard_initial_velocity(const nh_snakeboard_params *p, double qdot[5]);

/* Built-in models by name, for command-line front ends. */
typedef struct nh_builtin {
  const char *name;
  const char *summary;
} nh_builtin;

NH_API int nh_builtin_count(void);
NH_API const nh_builtin *nh_builtin_at(int i);

#ifdef __cplusplus
}
#endif
#endif
