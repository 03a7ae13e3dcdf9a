/* envelope.c - Cholesky factorization and solve restricted to an envelope (profile) of a
 * symmetric positive definite matrix: the operations of nh_la_chol_inline and
 * nh_la_chol_solve_inline (la.h) minus those with a factor that is a structural zero.
 *
 * Why the bits stay those of the dense routines: every sum there starts at +0.0 and adds
 * products in a fixed order; a skipped product is +-0, and s + (+-0) = s for every s the sum
 * can hold (a sum started at +0 is never -0 in round-to-nearest). The one operation that is
 * not a sum from +0 is the backward sweep's s = b_i - ...: skipping a -0 product there can
 * only change the sign of a zero result, so a row whose result is zero is redone densely. */
#include <math.h>

#include "la/la.h"

/* last[j] = the largest row i >= j whose envelope reaches column j (j itself at least) */
static void env_last(int n, const int *first, int *last) {
  for (int j = 0; j < n; j++) last[j] = j;
  for (int i = 0; i < n; i++)
    for (int j = first[i]; j < i; j++)
      if (last[j] < i) last[j] = i;
}

/* the strict lower triangle inside the envelope is zero (A diagonal) */
static int env_lower_zero(int n, const double *A, const int *first) {
  for (int i = 1; i < n; i++)
    for (int j = first[i]; j < i; j++)
      if (A[(size_t)i * n + j] != 0.0) return 0;
  return 1;
}

/* x . y over [lo, hi) (the sum of nh_la_dot) */
static double dot_range(int lo, int hi, const double *x, const double *y) {
  double s = 0.0;
  for (int k = lo; k < hi; k++) s += x[k] * y[k];
  return s;
}

int nh_la_chol_env(int n, double *A, const int *first, int *last, double tol, int *rank) {
  double dmax = 0.0;
  for (int i = 0; i < n; i++)
    if (A[(size_t)i * n + i] > dmax) dmax = A[(size_t)i * n + i];
  const double thr = nh_la_rank_tol(tol) * dmax;
  int r = 0;
  env_last(n, first, last);
  const int diag = env_lower_zero(n, A, first); /* nh_la_chol's short path: L_jj = sqrt(A_jj) */
  for (int j = 0; j < n; j++) {
    double *Lj = A + (size_t)j * n;
    double d = diag ? Lj[j] : Lj[j] - dot_range(first[j], j, Lj, Lj);
    if (!(d > thr) || !(d > 0.0)) { /* rejected: its column of L is zero */
      for (int i = j; i <= last[j]; i++)
        if (first[i] <= j) A[(size_t)i * n + j] = 0.0;
      continue;
    }
    double ljj = sqrt(d);
    Lj[j] = ljj;
    r++;
    if (diag) continue;
    for (int i = j + 1; i <= last[j]; i++) {
      if (first[i] > j) continue;
      double *Li = A + (size_t)i * n;
      int lo = first[i] > first[j] ? first[i] : first[j];
      Li[j] = (Li[j] - dot_range(lo, j, Li, Lj)) / ljj;
    }
  }
  if (rank) *rank = r;
  return r == n ? NH_OK : NH_ERR_NOT_SPD;
}

void nh_la_chol_env_solve(int n, const double *L, const int *first, const int *last, double *b) {
  if (env_lower_zero(n, L, first)) { /* nh_la_chol_solve's diagonal path */
    nh_la_diag_solve(n, L, b);
    return;
  }
  for (int i = 0; i < n; i++) b[i] = (b[i] - dot_range(first[i], i, L + (size_t)i * n, b)) / L[(size_t)i * n + i];
  for (int i = n - 1; i >= 0; i--) {
    double s = b[i];
    for (int k = i + 1; k <= last[i]; k++)
      if (first[k] <= i) s -= L[(size_t)k * n + i] * b[k];
    if (s == 0.0) { /* the sign of a zero: as the dense sweep (the skipped factors are +0) */
      s = b[i];
      for (int k = i + 1; k < n; k++) s -= (first[k] <= i ? L[(size_t)k * n + i] : 0.0) * b[k];
    }
    b[i] = s / L[(size_t)i * n + i];
  }
}
