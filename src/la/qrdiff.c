/* qrdiff.c - Householder QR with differentiated reflections (Celledoni, Farre Puiggali,
 * Hoiseth, Martin de Diego, "Energy-Preserving Integrators Applied to Nonholonomic Systems",
 * Algorithm 1, with the corrections of spec 002 E8/E9), for frames of a constraint
 * distribution and their derivatives.
 *
 *   A (n x r) = Q R,  Q = H_0 H_1 ... H_{r-1},  H_k = I - 2 w_k w_k^T   (0-based k)
 *   x = R[k:n, k], sigma = |x|, wt = (0..0, R_kk + s_k sigma, R_{k+1,k}, ..., R_{n-1,k}),
 *   |wt| = sqrt(2 (sigma^2 + s_k R_kk sigma)), w = wt / |wt|,
 *   R <- R - 2 w (w^T R),  Q <- Q - 2 (Q w) w^T,
 * and, for every differentiation variable i, with d = d/dq_i, using the OLD R, Q, dR, dQ:
 *   d sigma = (dR[k:n,k] . x) / sigma,  d wt = (0.., dR_kk + s_k d sigma, dR_{k+1,k}, ..),
 *   d|wt| = (d wt . wt) / |wt|,  dw = (d wt |wt| - wt d|wt|) / |wt|^2,
 *   du = dw^T R + w^T dR,  dR <- dR - 2 (dw u + w du),
 *   dQ <- dQ - 2 dQ w w^T - 2 Q (dw w^T + w dw^T)          (the paper prints "+ 2 Q (...)": E8)
 * The sign vector s (s_k = +-1) must be the same for every factorization inside one time
 * step so that the frame is a smooth function of q; a zero entry is replaced by the stable
 * choice sign(R_kk) (sign(0) = +1) and written back. Where column k becomes dependent on the
 * columns before it (A loses rank), x passes through 0: x = t x1 + O(t^2) with t changing
 * sign. With a fixed s_k the reflection turns there discontinuously (its vector
 * x + s_k |x| e_k = t (x1 + s_k sign(t) |x1| e_k) + O(t^2)), with the sign s_k sign(t) it
 * stays smooth (R_kk = -s_k t |x1| changes sign): the reference direction xref of x at the
 * step's base point tells the two sides apart. The derivative formulas hold on either side
 * with the sign taken. */
#include <math.h>

#include "la/la.h"
#include "nholo/status.h"

size_t nh_la_qrdiff_work_size(int n, int r, int deriv) {
  size_t nn = (size_t)n;
  return nn * (size_t)r * (deriv ? nn + 1 : 1) + 6 * nn + (size_t)r * 2;
}

int nh_la_qrdiff(int n, int r, const double *A, const double *dA, double *s, double *xref, double *Q,
                 double *dQ, unsigned flags, double *work) {
  if (n < 1 || r < 0 || r > n) return NH_ERR_ARG;
  const size_t nn = (size_t)n, nr = (size_t)n * (size_t)r;
  const int deriv = dA != NULL && dQ != NULL;
  const double qsign = (flags & NH_LA_QRDIFF_PAPER_SIGN) ? -1.0 : 1.0;
  double *R = work, *dR = R + nr;
  double *wt = dR + (deriv ? nn * nr : 0), *w = wt + nn, *Qw = w + nn, *dwt = Qw + nn;
  double *dw = dwt + nn, *dQw = dw + nn, *u = dQw + nn, *du = u + r;
  // start: Q = I, R = A, dQ = 0, dR = dA
  for (size_t i = 0; i < nn * nn; i++) Q[i] = 0.0;
  for (int i = 0; i < n; i++) Q[(size_t)i * nn + (size_t)i] = 1.0;
  nh_la_copy((int)nr, A, R);
  if (deriv) {
    for (size_t i = 0; i < nn * nn * nn; i++) dQ[i] = 0.0;
    nh_la_copy((int)(nn * nr), dA, dR);
  }
  for (int k = 0; k < r; k++) {
    // the reflection for column k
    double sig2 = 0.0;
    for (int j = k; j < n; j++) sig2 += R[(size_t)j * r + k] * R[(size_t)j * r + k];
    double sigma = sqrt(sig2), rkk = R[(size_t)k * r + k];
    double sk = s[k];
    if (sk == 0.0) {
      // the stable choice, and the reference direction of x for the factorizations after it
      sk = s[k] = rkk < 0.0 ? -1.0 : 1.0;
      for (int j = 0; xref && j < n; j++) xref[(size_t)k * nn + j] = j < k || !(sigma > 0.0) ? 0.0 : R[(size_t)j * r + k] / sigma;
    } else if (xref && sigma > 0.0) {
      // x reversed against the reference: it passed through 0, the sign follows it
      double c = 0.0;
      for (int j = k; j < n; j++) c += R[(size_t)j * r + k] * xref[(size_t)k * nn + j];
      if (c < NH_LA_QRDIFF_REVERSED_COS * sigma) sk = -sk;
    }
    double nw2 = 2.0 * (sig2 + sk * rkk * sigma);
    if (!(sigma > 0.0) || !(nw2 > 0.0)) return NH_ERR_SINGULAR;
    double nw = sqrt(nw2);
    for (int j = 0; j < n; j++) wt[j] = j < k ? 0.0 : R[(size_t)j * r + k];
    wt[k] = rkk + sk * sigma;
    for (int j = 0; j < n; j++) w[j] = wt[j] / nw;
    for (int c = 0; c < r; c++) {
      double a = 0.0;
      for (int j = k; j < n; j++) a += w[j] * R[(size_t)j * r + c];
      u[c] = a;
    }
    for (int i = 0; i < n; i++) Qw[i] = nh_la_dot(n - k, Q + (size_t)i * nn + k, w + k);
    // derivatives, with the old R, Q, dR, dQ
    for (int v = 0; deriv && v < n; v++) {
      double *dRv = dR + (size_t)v * nr, *dQv = dQ + (size_t)v * nn * nn;
      double dsig = 0.0;
      for (int j = k; j < n; j++) dsig += dRv[(size_t)j * r + k] * R[(size_t)j * r + k];
      dsig /= sigma;
      for (int j = 0; j < n; j++) dwt[j] = j < k ? 0.0 : dRv[(size_t)j * r + k];
      dwt[k] = dRv[(size_t)k * r + k] + sk * dsig;
      double dnw = nh_la_dot(n, dwt, wt) / nw;
      for (int j = 0; j < n; j++) dw[j] = (dwt[j] * nw - wt[j] * dnw) / nw2;
      for (int c = 0; c < r; c++) {
        double a = 0.0;
        for (int j = k; j < n; j++) a += dw[j] * R[(size_t)j * r + c] + w[j] * dRv[(size_t)j * r + c];
        du[c] = a;
      }
      for (int j = k; j < n; j++)
        for (int c = 0; c < r; c++) dRv[(size_t)j * r + c] -= 2.0 * (dw[j] * u[c] + w[j] * du[c]);
      for (int i = 0; i < n; i++) dQw[i] = nh_la_dot(n - k, dQv + (size_t)i * nn + k, w + k);
      for (int i = 0; i < n; i++) {
        double Qdw = nh_la_dot(n - k, Q + (size_t)i * nn + k, dw + k);
        double *row = dQv + (size_t)i * nn;
        for (int j = k; j < n; j++) row[j] -= 2.0 * dQw[i] * w[j] + qsign * 2.0 * (Qdw * w[j] + Qw[i] * dw[j]);
      }
    }
    // apply the reflection
    for (int j = k; j < n; j++)
      for (int c = 0; c < r; c++) R[(size_t)j * r + c] -= 2.0 * w[j] * u[c];
    for (int i = 0; i < n; i++)
      for (int j = k; j < n; j++) Q[(size_t)i * nn + j] -= 2.0 * Qw[i] * w[j];
  }
  return NH_OK;
}
