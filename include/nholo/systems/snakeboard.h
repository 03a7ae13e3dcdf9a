/* nholo/systems/snakeboard.h - the snakeboard, a built-in model written in C. */
#ifndef NHOLO_SYSTEMS_SNAKEBOARD_H
#define NHOLO_SYSTEMS_SNAKEBOARD_H

#include "nholo/model.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
