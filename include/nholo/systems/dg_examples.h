/* nholo/systems/dg_examples.h - the examples of the discrete-gradient paper (Celledoni et al.)
 * as built-in models written in C: the quartic system, the gearbox, the sleigh in the
 * paper's coordinates, the Euler-Poincare-Suslov problem; mechanical and almost-Poisson. */
#ifndef NHOLO_SYSTEMS_DG_EXAMPLES_H
#define NHOLO_SYSTEMS_DG_EXAMPLES_H

#include "nholo/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- examples of Celledoni, Farre Puiggali, Hoiseth, Martin de Diego, "Energy-Preserving
 * Integrators Applied to Nonholonomic Systems" (spec 002), in configuration form -------- */

/* The fully chaotic quartic system (sec. 4.1, n = 3): q = (x, w1..w3, z1..z3) in R^7, M = I,
 * V = 1/2 (|q|^2 + z1^2 z2^2 + sum_i w_i^2 z_i^2), constraint x' + w . z' = 0. Initial state:
 * spec 002 A.1 (q0 given, rho along a fixed direction) at the paper's energy H = 3.06. */
NH_API nh_model *nh_quartic_create(char *msg, size_t msg_size);
/* The velocity v = X gD^-1 rho of the quartic system at q for the reduced momenta
 * rho = (xi (3), eta (3)) (spec 002 S1), scaled so that the energy is H (H = NAN: unscaled).
 * NH_ERR_ARG when V(q) >= H. */
NH_API int nh_quartic_velocity(const double *q, const double *rho, double H, double *v);

/* The continuous gearbox driven by an asymmetric pendulum (sec. 4.4, with + V: erratum E7):
 * q = (q1, q2, q3), M = I, V = 1/2 (q1^2 + q2^2) + cos q3 - 1/5 sin 2 q3, constraint
 * q1' + sin(q3) q2' = 0. Initial state spec 002 A.5: q = (0.5, -0.3, 0.2), p2 = 0.4,
 * p3 = 1.6 (rotating pendulum) or 0.3 (librating), p1 = -sin(q3) p2. */
NH_API nh_model *nh_gearbox_create(int rotating, char *msg, size_t msg_size);
/* The pendulum energy 1/2 q3'^2 + cos q3 - 1/5 sin 2 q3 (rotates above 1.0686883). */
NH_API double nh_gearbox_pendulum_energy(const double *q, const double *v);

/* The Chaplygin sleigh in the paper's coordinates (sec. 4.2): blade point (x1, x2), heading
 * theta; the initial velocity is given by the reduced momenta (rho1, rho2) of the paper's
 * orthonormal frame. Defaults: Fig. 3 (J = 8, a = m = 1, x1 = -5, x2 = 0, theta = 0.1,
 * rho1 = 0.001, rho2 = -0.6). */
typedef struct nh_sleigh_dg_params {
  double J, a, m;           /* inertia about the centre of mass, blade-to-centre distance, mass */
  double x1, x2, theta;     /* initial configuration */
  double rho1, rho2;        /* initial reduced momenta */
} nh_sleigh_dg_params;

NH_API nh_sleigh_dg_params nh_sleigh_dg_params_default(void);
/* Configuration form: q = (x1, x2, theta), M(theta), V = 0, -sin(th) x1' + cos(th) x2' = 0. */
NH_API nh_model *nh_sleigh_dg_q_create(const nh_sleigh_dg_params *p, char *msg, size_t msg_size);

/* ---- the same examples in almost-Poisson form x' = Pi(x) grad H(x) (nholo/model.h), for
 * the discrete-gradient methods avf, gonzalez, itoh-abe ---------------------------------- */

/* Quartic system, reduced (eq. (21)): x = (x, w1..w3, z1..z3, xi1..xi3, eta1..eta3), the same
 * initial state as nh_quartic_create. */
NH_API nh_model *nh_quartic_ap_create(char *msg, size_t msg_size);
/* The reduced state (q (7), rho (6)) of the quartic system with rho scaled so that H is the
 * energy (H = NAN: unscaled); x (13). NH_ERR_ARG when V(q) >= H. */
NH_API int nh_quartic_reduced_state(const double *q, const double *rho, double H, double *x);
/* Chaplygin sleigh, reduced (eq. (22)-(23)): x = (x1, x2, theta, rho1, rho2). */
NH_API nh_model *nh_sleigh_dg_create(const nh_sleigh_dg_params *p, char *msg, size_t msg_size);

/* Gearbox, reduced in the frame X1 = (-sin q3, 1, 0), X2 = (0, 0, 1) (spec 002 S4):
 * x = (q1, q2, q3, rho1, rho2), the same initial state as nh_gearbox_create(rotating).
 * Without Hessian or Pi-Jacobian (the library differences them). */
NH_API nh_model *nh_gearbox_ap_create(int rotating, char *msg, size_t msg_size);

/* Euler-Poincare-Suslov problem on so(3) (sec. 4.3), frame with I12 = 0 and constraint
 * omega3 = 0: x = (rho1, rho2), omega = (rho1/I11, rho2/I22, 0). Defaults (the paper gives no
 * values): spec 002 A.4, I11 = 2, I22 = 3, I13 = 0.5, I23 = 0.4, rho = (1, 0.5). */
typedef struct nh_suslov_params {
  double I11, I22, I13, I23; /* inertia entries (I33 does not enter the reduced dynamics) */
  double rho1, rho2;         /* initial momenta */
} nh_suslov_params;

NH_API nh_suslov_params nh_suslov_params_default(void);
NH_API nh_model *nh_suslov_create(const nh_suslov_params *p, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
