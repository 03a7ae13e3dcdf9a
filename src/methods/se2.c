/* se2.c - SE(2) retractions and their right-trivialised tangents (paper App. B, eqs. 36-44;
 * spec 001 A7, every formula checked there symbolically).
 *
 *   exp(hat v)   = [R(v1), (v2 s - v3 c, v2 c + v3 s)],  s = sin v1 / v1, c = (1 - cos v1)/v1
 *   cay(hat v)   = [R(2 atan(v1/2)), ((4 v2 - 2 v1 v3), (4 v3 + 2 v1 v2)) / (4 + v1^2)]
 *                  (the paper's App. B prints v1^2 - 4 on the rotation diagonal: cay(0) would
 *                   be diag(-1, -1, 1); corrected, spec [E] 12)
 *   ccsk(v)      = exp(v1 e1) exp(v2 e2) exp(v3 e3) = [R(v1), R(v1)(v2, v3)]
 *   [dexp_v]     = I + ((1 - cos v1)/v1^2) ad + ((v1 - sin v1)/v1^3) ad^2      (ad^3 = -v1^2 ad)
 *   [dexp^-1_v]  = I - 1/2 ad + ((1 - (v1/2) cot(v1/2))/v1^2) ad^2
 *   [dcay_v]     = (2/(4 + v1^2)) [[2,0,0],[v3,2,-v1],[-v2,v1,2]]
 *   [dcay^-1_v]  = I - 1/2 ad + 1/4 [v1 v, 0, 0]                                 (eq. 44)
 *   [dccsk_v]    = [[1,0,0],[0,cos v1,-sin v1],[0,sin v1,cos v1]],  inverse = transpose
 * The coefficient functions use their Taylor series for |v1| < SE2_SERIES (no branch on 0). */
#include <math.h>
#include <string.h>

#include "methods/se2.h"

/* below this |v1| the coefficient functions use series (error < 1e-17 relative) */
#define SE2_SERIES 1e-3

void nh_se2_compose(const double a[3], const double b[3], double ab[3]) {
  double c = cos(a[0]), s = sin(a[0]);
  double th = a[0] + b[0], x = a[1] + c * b[1] - s * b[2], y = a[2] + s * b[1] + c * b[2];
  ab[0] = th, ab[1] = x, ab[2] = y;
}

void nh_se2_ad(const double v[3], double ad[9]) {
  ad[0] = 0, ad[1] = 0, ad[2] = 0;
  ad[3] = v[2], ad[4] = 0, ad[5] = -v[0];
  ad[6] = -v[1], ad[7] = v[0], ad[8] = 0;
}

void nh_se2_Ad(const double g[3], double Ad[9]) {
  double c = cos(g[0]), s = sin(g[0]);
  Ad[0] = 1, Ad[1] = 0, Ad[2] = 0;
  Ad[3] = g[2], Ad[4] = c, Ad[5] = -s;
  Ad[6] = -g[1], Ad[7] = s, Ad[8] = c;
}

/* sin(z)/z and (1 - cos z)/z */
static void sc_coef(double z, double *s, double *c) {
  if (fabs(z) < SE2_SERIES) {
    double z2 = z * z;
    *s = 1.0 - z2 / 6.0 * (1.0 - z2 / 20.0);
    *c = z / 2.0 * (1.0 - z2 / 12.0 * (1.0 - z2 / 30.0));
  } else {
    *s = sin(z) / z;
    *c = (1.0 - cos(z)) / z;
  }
}

void nh_se2_tau(nh_retraction kind, const double v[3], double g[3]) {
  const double v1 = v[0], v2 = v[1], v3 = v[2];
  if (kind == NH_RETRACTION_CAY) {
    double d = 4.0 + v1 * v1;
    g[0] = 2.0 * atan(0.5 * v1);
    g[1] = (4.0 * v2 - 2.0 * v1 * v3) / d;
    g[2] = (4.0 * v3 + 2.0 * v1 * v2) / d;
  } else if (kind == NH_RETRACTION_CCSK) {
    double c = cos(v1), s = sin(v1);
    g[0] = v1, g[1] = c * v2 - s * v3, g[2] = s * v2 + c * v3;
  } else {
    double s, c;
    sc_coef(v1, &s, &c);
    g[0] = v1, g[1] = v2 * s - v3 * c, g[2] = v2 * c + v3 * s;
  }
}

/* D = I + a ad + b ad^2 */
static void poly_ad(const double v[3], double a, double b, double D[9]) {
  double ad[9], ad2[9];
  nh_se2_ad(v, ad);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0.0;
      for (int k = 0; k < 3; k++) s += ad[i * 3 + k] * ad[k * 3 + j];
      ad2[i * 3 + j] = s;
    }
  for (int i = 0; i < 9; i++) D[i] = a * ad[i] + b * ad2[i] + (i % 4 == 0 ? 1.0 : 0.0);
}

void nh_se2_dtau(nh_retraction kind, const double v[3], double D[9]) {
  const double v1 = v[0], v2 = v[1], v3 = v[2];
  if (kind == NH_RETRACTION_CAY) {
    double f = 2.0 / (4.0 + v1 * v1);
    double m[9] = {2, 0, 0, v3, 2, -v1, -v2, v1, 2};
    for (int i = 0; i < 9; i++) D[i] = f * m[i];
  } else if (kind == NH_RETRACTION_CCSK) {
    double c = cos(v1), s = sin(v1);
    double m[9] = {1, 0, 0, 0, c, -s, 0, s, c};
    memcpy(D, m, sizeof m);
  } else {
    double a, b, z2 = v1 * v1;
    if (fabs(v1) < SE2_SERIES) {
      a = 0.5 - z2 / 24.0 * (1.0 - z2 / 30.0);
      b = 1.0 / 6.0 - z2 / 120.0 * (1.0 - z2 / 42.0);
    } else {
      a = (1.0 - cos(v1)) / z2;
      b = (v1 - sin(v1)) / (z2 * v1);
    }
    poly_ad(v, a, b, D);
  }
}

void nh_se2_dtau_inv(nh_retraction kind, const double v[3], double Di[9]) {
  const double v1 = v[0];
  if (kind == NH_RETRACTION_CAY) {
    poly_ad(v, -0.5, 0.0, Di);
    for (int i = 0; i < 3; i++) Di[i * 3] += 0.25 * v1 * v[i];
  } else if (kind == NH_RETRACTION_CCSK) {
    double c = cos(v1), s = sin(v1);
    double m[9] = {1, 0, 0, 0, c, s, 0, -s, c};
    memcpy(Di, m, sizeof m);
  } else {
    double b, z2 = v1 * v1;
    if (fabs(v1) < SE2_SERIES)
      b = 1.0 / 12.0 + z2 / 720.0 * (1.0 + z2 / 42.0);
    else
      b = (1.0 - 0.5 * v1 / tan(0.5 * v1)) / z2;
    poly_ad(v, -0.5, b, Di);
  }
}

void nh_se2_dexp_inv_trunc(int order, const double v[3], double Di[9]) {
  poly_ad(v, -0.5, order >= 2 ? 1.0 / 12.0 : 0.0, Di);
}
