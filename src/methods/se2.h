/* se2.h - SE(2) for the Lie-group integrators (paper App. A-B; spec 001 A7). Private.
 *
 * Group elements are coordinates g = (theta, x, y) of the matrix [[R(theta), (x, y)], [0, 1]];
 * Lie-algebra elements v = (v1, v2, v3) with hat(v) = [[0, -v1, v2], [v1, 0, v3], [0, 0, 0]]
 * (v1 the angular rate, (v2, v3) the body-frame translational velocity). 3x3 matrices act on
 * algebra coordinates and are row-major. */
#ifndef NH_SE2_H
#define NH_SE2_H

#include "nholo/method.h"

/* ab = a b (group product). ab may alias a or b. */
void nh_se2_compose(const double a[3], const double b[3], double ab[3]);
/* [ad_v] = [[0,0,0],[v3,0,-v1],[-v2,v1,0]]: ad_v w = vee([hat v, hat w]) */
void nh_se2_ad(const double v[3], double ad[9]);
/* [Ad_g] = [[1,0,0],[y,cos th,-sin th],[-x,sin th,cos th]] */
void nh_se2_Ad(const double g[3], double Ad[9]);
/* tau(v) for the retraction kind: exp, ccsk (exp(v1 e1) exp(v2 e2) exp(v3 e3)) or the Cayley
 * map (e - hat v/2)^-1 (e + hat v/2) with the corrected rotation block (spec [E] 12). */
void nh_se2_tau(nh_retraction kind, const double v[3], double g[3]);
/* right-trivialised tangent: D tau(v).d = T R_tau(v) (dtau_v d), and its inverse */
void nh_se2_dtau(nh_retraction kind, const double v[3], double D[9]);
void nh_se2_dtau_inv(nh_retraction kind, const double v[3], double Di[9]);
/* the truncated dexp^-1 of paper eq. 42: I - 1/2 ad_v (order 1) or + 1/12 ad_v^2 (order 2) */
void nh_se2_dexp_inv_trunc(int order, const double v[3], double Di[9]);

#endif
