/* nholo/systems/penny.h - the bouncing penny, a built-in model written in C.
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
#ifndef NHOLO_SYSTEMS_PENNY_H
#define NHOLO_SYSTEMS_PENNY_H

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
/* Set a parameter or initial value by name (m R I J a b x y theta phi theta' phi', also
 * theta_dot phi_dot); 0 if the name is unknown. */
NH_API int nh_penny_set(nh_penny_params *p, const char *name, double value);

#ifdef __cplusplus
}
#endif
#endif
