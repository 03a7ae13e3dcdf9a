/* hold.h - the held (persistent) contacts of an almost-Poisson model, for the
 * driver's projection (src/sim/contact.c, docs/contact.md). Private to the impact and sim
 * layers. */
#ifndef NH_IMPACT_HOLD_H
#define NH_IMPACT_HOLD_H

#include "nholo/impact.h"

/* The closed gaps act[0..na) of model (almost-Poisson form) at the state x: their directions
 * d_k = Pi dg_k^T into the rows of D (na x nx), or, with x0 given, the mean of d_k at x0 and x
 * (the trapezoidal rule for the impulse direction over a step x0 -> x); the matrix
 * K_kl = d_k(x)^T Hess(H)(x) D_l (na x na, row-major), so that the jump x + sum_l mu_l D_l
 * changes the rates g'_k = dg_k Pi grad H by -(K mu)_k (exactly for H quadratic along D and
 * Pi, dg independent of what the jump moves); the rates at x into rate (na; may be NULL), the
 * directions at x alone into D1 (na x nx; may be NULL).
 * work: nh_model_impact_ap_work_size. NH_OK, NH_ERR_CALLBACK, or the Hessian's status. */
int nh_model_impact_ap_hold(const nh_model *model, int na, const int *act, const double *x0, const double *x,
                            double *D, double *D1, double *K, double *rate, double *work);

#endif
