/* ball_impl.h - what ball.c (the dynamics) and ball_params.c (parameters, examples, checks)
 * share: the tolerances of the parameter checks and a dot product, and the flight chain's reset
 * map (ball_phases.c, ball_system.c) (private). */
#ifndef NH_BALL_IMPL_H
#define NH_BALL_IMPL_H

#include "nholo/systems/ball.h"

#define BALL_NMAX (NH_BALL_MAX_MASSES + 1)
/* | |q0| - 1 | above this is not a unit quaternion */
#define BALL_UNIT_TOL 1e-9
/* relative asymmetry of I above this is an error */
#define BALL_SYM_TOL 1e-12
/* max |B B^T - Id| of a circle rail's basis (a rotation given to 10 digits passes) */
#define BALL_BASIS_TOL 1e-9
/* a callback rail is sampled at this many parameter values for the inside-the-ball check */
#define BALL_RAIL_SAMPLES 64
/* |zeta| may exceed r by this relative amount (round-off of a mass on the shell) */
#define BALL_RAIL_TOL 1e-12
/* planar data for the disk: these components must be zero to this tolerance */
#define BALL_PLANAR_TOL 1e-12

#define PI 3.14159265358979323846

/* the chain of a ball that may fly (ball_phases.c; the reset map of nh_chain, user an
 * nh_ball_flight_info): rolling -> flight at a detachment with lift-off, any other stop ends
 * the run; after the run, whether it flew (last: the phase that ended it) and touched down */
int ball_liftoff(int from, const nh_sim *roll, int *to, double *t, double *x, void *user);
void ball_flight_finish(nh_ball_flight_info *inf, const nh_sim *fly, int last);

static inline double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

#endif
