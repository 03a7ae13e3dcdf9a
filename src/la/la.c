/* la.c - tiny dense linear algebra (see la.h).
 *
 * Plain loops tuned for the sizes of mechanical systems (n = 2..20): no blocking, no
 * allocation, no VLAs. Rank and singularity decisions compare pivots with a threshold
 * relative to the matrix scale, and a NaN pivot always counts as a failure (the tests
 * are written as !(pivot > threshold)). */
#include "la/la.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <math.h>

#include "nholo/status.h"

/* the relative threshold actually used */
static double rank_tol(double tol) { return nh_la_rank_tol(tol); }

/* ---- BLAS-like helpers ------------------------------------------------------------- */

double nh_la_norm2(int n, const double *x) {
  /* scale by the largest entry so that the squares neither overflow nor underflow */
  double m = nh_la_norm_inf(n, x);
  if (m == 0.0 || !isfinite(m)) return m;
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double t = x[i] / m;
    s += t * t;
  }
  return m * sqrt(s);
}

void nh_la_gemv(int m, int n, const double *A, const double *x, double *y) {
  for (int i = 0; i < m; i++) y[i] = nh_la_dot(n, A + (size_t)i * n, x);
}

void nh_la_gemv_t(int m, int n, const double *A, const double *x, double *y) {
  for (int j = 0; j < n; j++) y[j] = 0.0;
  for (int i = 0; i < m; i++) nh_la_axpy(n, x[i], A + (size_t)i * n, y);
}

void nh_la_gemm(int m, int k, int n, const double *A, const double *B, double *C) {
  /* row i of C = sum_p A(i,p) * row p of B (unit-stride inner loop) */
  for (int i = 0; i < m; i++) {
    double *c = C + (size_t)i * n;
    for (int j = 0; j < n; j++) c[j] = 0.0;
    for (int p = 0; p < k; p++) nh_la_axpy(n, A[(size_t)i * k + p], B + (size_t)p * n, c);
  }
}

void nh_la_gemm_nt(int m, int k, int n, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) C[(size_t)i * n + j] = nh_la_dot(k, A + (size_t)i * k, B + (size_t)j * k);
}

void nh_la_transpose(int m, int n, const double *A, double *B) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) B[(size_t)j * m + i] = A[(size_t)i * n + j];
}

/* ---- Cholesky A = L L^T ------------------------------------------------------------ */

int nh_la_lower_zero(int n, const double *A) { return nh_la_lower_zero_inline(n, A); }

int nh_la_chol(int n, double *A, double tol, int *rank) { return nh_la_chol_inline(n, A, tol, rank); }

void nh_la_chol_solve(int n, const double *L, double *b) { nh_la_chol_solve_inline(n, L, b); }

void nh_la_chol_solve_mat(int n, int nrhs, const double *L, double *B) {
  /* the same two sweeps on whole rows of B */
  for (int i = 0; i < n; i++) {
    double *Bi = B + (size_t)i * nrhs;
    for (int k = 0; k < i; k++) nh_la_axpy(nrhs, -L[(size_t)i * n + k], B + (size_t)k * nrhs, Bi);
    nh_la_scale(nrhs, 1.0 / L[(size_t)i * n + i], Bi);
  }
  for (int i = n - 1; i >= 0; i--) {
    double *Bi = B + (size_t)i * nrhs;
    for (int k = i + 1; k < n; k++) nh_la_axpy(nrhs, -L[(size_t)k * n + i], B + (size_t)k * nrhs, Bi);
    nh_la_scale(nrhs, 1.0 / L[(size_t)i * n + i], Bi);
  }
}

/* ---- LDL^T with diagonal pivoting -------------------------------------------------- */

/* swap rows and columns p and q (p != q) of the full n x n matrix */
static void sym_swap(int n, double *A, int p, int q) {
  for (int j = 0; j < n; j++) {
    double t = A[(size_t)p * n + j];
    A[(size_t)p * n + j] = A[(size_t)q * n + j];
    A[(size_t)q * n + j] = t;
  }
  for (int i = 0; i < n; i++) {
    double t = A[(size_t)i * n + p];
    A[(size_t)i * n + p] = A[(size_t)i * n + q];
    A[(size_t)i * n + q] = t;
  }
}

int nh_la_ldlt(int n, double *A, int *perm, double tol, int *rank) {
  /* mirror the lower triangle so that symmetric swaps can move whole rows and columns */
  double dmax = 0.0;
  for (int i = 0; i < n; i++) {
    perm[i] = i;
    for (int j = 0; j < i; j++) A[(size_t)j * n + i] = A[(size_t)i * n + j];
    double a = fabs(A[(size_t)i * n + i]);
    if (a > dmax) dmax = a;
  }
  double thr = rank_tol(tol) * dmax;
  int r = n;

  for (int k = 0; k < n; k++) {
    /* pivot: the largest remaining |diagonal| of the Schur complement */
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(A[(size_t)i * n + i]) > fabs(A[(size_t)p * n + p])) p = i;
    if (p != k) {
      sym_swap(n, A, k, p);
      int t = perm[k];
      perm[k] = perm[p];
      perm[p] = t;
    }
    double d = A[(size_t)k * n + k];
    if (!(fabs(d) > thr) || !(fabs(d) > 0.0)) {
      /* the rest is numerically zero: rank k, clear the remaining factors */
      r = k;
      for (int i = k; i < n; i++)
        for (int j = k; j <= i; j++) A[(size_t)i * n + j] = 0.0;
      break;
    }
    /* column of L below the pivot; row k above keeps d * l for the update */
    for (int i = k + 1; i < n; i++) A[(size_t)i * n + k] = A[(size_t)k * n + i] / d;
    /* rank-one update of the trailing block: A_ij -= l_i (d l_j) */
    for (int i = k + 1; i < n; i++) {
      double li = A[(size_t)i * n + k];
      double *Ai = A + (size_t)i * n;
      const double *Ak = A + (size_t)k * n;
      for (int j = k + 1; j < n; j++) Ai[j] -= li * Ak[j];
    }
  }
  if (rank) *rank = r;
  return r == n ? NH_OK : NH_ERR_SINGULAR;
}

void nh_la_ldlt_solve(int n, const double *LD, const int *perm, double *b, double *work) {
  /* permute, solve L D L^T y = P^T b, permute back */
  for (int i = 0; i < n; i++) work[i] = b[perm[i]];
  for (int i = 0; i < n; i++) work[i] -= nh_la_dot(i, LD + (size_t)i * n, work);
  for (int i = 0; i < n; i++) work[i] /= LD[(size_t)i * n + i];
  for (int i = n - 1; i >= 0; i--) {
    double s = work[i];
    for (int k = i + 1; k < n; k++) s -= LD[(size_t)k * n + i] * work[k];
    work[i] = s;
  }
  for (int i = 0; i < n; i++) b[perm[i]] = work[i];
}

/* ---- LU with partial pivoting ------------------------------------------------------ */

/* The elimination below does exactly the operations of the plain loops (y += (-l) x per entry,
 * in the same order for each entry), so the factors are bitwise those of a textbook LU; where
 * the compiler has vector types (GCC, Clang) two entries go per instruction and two rows share
 * the loads of the pivot row. */
#if defined(__GNUC__)
typedef long long la_v2i __attribute__((vector_size(16), aligned(8), may_alias));

/* max |A_i| over n entries, NaNs skipped */
static double lu_absmax(size_t n, const double *A) {
  const la_v2i mask = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
  size_t i = 0;
#if defined(__SSE2__)
  __m128d m = _mm_setzero_pd();
  for (; i + 2 <= n; i += 2) /* maxpd(a, m) = a > m ? a : m, m for a NaN */
    m = _mm_max_pd((__m128d)(*(const la_v2i *)(A + i) & mask), m);
  double m0 = _mm_cvtsd_f64(m), m1 = _mm_cvtsd_f64(_mm_unpackhi_pd(m, m));
#else
  nh_la_v2d m = {0.0, 0.0};
  for (; i + 2 <= n; i += 2) {
    la_v2i a = *(const la_v2i *)(A + i) & mask, gt = (nh_la_v2d)a > m; /* false for a NaN */
    m = (nh_la_v2d)((gt & a) | (~gt & (la_v2i)m));
  }
  double m0 = m[0], m1 = m[1];
#endif
  double amax = m0 > m1 ? m0 : m1;
  for (; i < n; i++) {
    double a = fabs(A[i]);
    amax = a > amax ? a : amax;
  }
  return amax;
}
/* y0 += a0 x, y1 += a1 x (n entries) */
static inline void lu_rows2(int n, double a0, double a1, const double *restrict x, double *restrict y0,
                            double *restrict y1) {
  const nh_la_v2d v0 = {a0, a0}, v1 = {a1, a1};
  int i = 0;
  for (; i + 2 <= n; i += 2) {
    nh_la_v2d xv = *(const nh_la_v2d *)(x + i);
    *(nh_la_v2d *)(y0 + i) = *(nh_la_v2d *)(y0 + i) + v0 * xv;
    *(nh_la_v2d *)(y1 + i) = *(nh_la_v2d *)(y1 + i) + v1 * xv;
  }
  if (i < n) y0[i] += a0 * x[i], y1[i] += a1 * x[i];
}
#else
static double lu_absmax(size_t n, const double *A) {
  double amax = 0.0;
  for (size_t i = 0; i < n; i++) {
    double a = fabs(A[i]);
    amax = a > amax ? a : amax; /* a branch-free max (maxsd); a NaN is skipped */
  }
  return amax;
}
static inline void lu_rows2(int n, double a0, double a1, const double *x, double *y0, double *y1) {
  nh_la_axpy(n, a0, x, y0);
  nh_la_axpy(n, a1, x, y1);
}
#endif

/* nh_la_lu; with rinv (n, Nullable) the multipliers are a_ik (1 / u_kk), one division per
 * column instead of one per row, and rinv receives the 1 / u_kk */
static inline __attribute__((always_inline)) int lu_factor(int n, double *A, int *piv, double tol,
                                                           double *rinv) {
  // nh_la_lu: pivots against tol max |A|; nh_la_lu_recip: against tol max |pivot|, after the
  // elimination (no pass over A), and here only exact zeros and NaNs
  double thr = rinv ? 0.0 : rank_tol(tol) * lu_absmax((size_t)n * n, A);
  int status = NH_OK;

  int next = -1; /* the pivot row of column k, when the elimination of column k - 1 found it */
  for (int k = 0; k < n; k++) {
    /* pivot row: the (first) largest |entry| in column k at or below the diagonal */
    int p = k;
    if (next >= 0) {
      p = next;
    } else {
      double best = fabs(A[(size_t)k * n + k]);
      for (int i = k + 1; i < n; i++) {
        double a = fabs(A[(size_t)i * n + k]);
        if (a > best) best = a, p = i;
      }
    }
    next = -1;
    piv[k] = p;
    if (p != k)
      for (int j = 0; j < n; j++) {
        double t = A[(size_t)k * n + j];
        A[(size_t)k * n + j] = A[(size_t)p * n + j];
        A[(size_t)p * n + j] = t;
      }
    double d = A[(size_t)k * n + k];
    if (!(fabs(d) > thr)) status = NH_ERR_SINGULAR;
    if (rinv) rinv[k] = 1.0 / d;
    if (!(fabs(d) > 0.0)) continue; /* exact zero column: nothing to eliminate */
    const double r = rinv ? rinv[k] : 0.0;
    /* eliminate below the pivot, two rows at a time, and meanwhile search column k + 1 (its
       entries are final once their row is done; the same comparisons in the same order) */
    const double *Ak = A + (size_t)k * n + k + 1;
    double best = 0.0;
    int i = k + 1;
    for (; i + 1 < n; i += 2) {
      double *A0 = A + (size_t)i * n, *A1 = A0 + n;
      double l0 = rinv ? A0[k] * r : A0[k] / d, l1 = rinv ? A1[k] * r : A1[k] / d;
      A0[k] = l0, A1[k] = l1;
      lu_rows2(n - k - 1, -l0, -l1, Ak, A0 + k + 1, A1 + k + 1);
      double a0 = fabs(A0[k + 1]), a1 = fabs(A1[k + 1]);
      if (i == k + 1) {
        best = a0, next = i;
      } else if (a0 > best) {
        best = a0, next = i;
      }
      if (a1 > best) best = a1, next = i + 1;
    }
    if (i < n) {
      double *Ai = A + (size_t)i * n;
      double l = rinv ? Ai[k] * r : Ai[k] / d;
      Ai[k] = l;
      nh_la_axpy_nr(n - k - 1, -l, Ak, Ai + k + 1);
      if (i == k + 1 || fabs(Ai[k + 1]) > best) next = i;
    }
  }
  return status;
}

int nh_la_lu(int n, double *A, int *piv, double tol) { return lu_factor(n, A, piv, tol, NULL); }

int nh_la_lu_recip(int n, double *A, int *piv, double tol, double *rinv) {
  int status = lu_factor(n, A, piv, tol, rinv);
  double dmax = 0.0;
  for (int k = 0; k < n; k++) { /* a NaN pivot fails the test below */
    double a = fabs(A[(size_t)k * n + k]);
    dmax = a > dmax ? a : dmax;
  }
  const double thr = rank_tol(tol) * dmax;
  for (int k = 0; k < n; k++)
    if (!(fabs(A[(size_t)k * n + k]) > thr)) status = NH_ERR_SINGULAR;
  return status;
}

/* the interchanges, then L (unit), two rows at a time: the same sums, in the same order, as
 * nh_la_dot by rows (shared by both solves) */
static inline void lu_forward(int n, const double *LU, const int *piv, double *b) {
  for (int k = 0; k < n; k++)
    if (piv[k] != k) {
      double t = b[k];
      b[k] = b[piv[k]];
      b[piv[k]] = t;
    }
  int i = 0;
  for (; i + 1 < n; i += 2) {
    const double *L0 = LU + (size_t)i * n, *L1 = L0 + n;
    double s0 = 0.0, s1 = 0.0;
    for (int j = 0; j < i; j++) s0 += L0[j] * b[j], s1 += L1[j] * b[j];
    b[i] -= s0;
    s1 += L1[i] * b[i];
    b[i + 1] -= s1;
  }
  if (i < n) b[i] -= nh_la_dot(i, LU + (size_t)i * n, b);
}

void nh_la_lu_solve(int n, const double *LU, const int *piv, double *b) {
  /* the interchanges and L, then U */
  lu_forward(n, LU, piv, b);
  for (int i = n - 1; i >= 0; i--) {
    const double *Ui = LU + (size_t)i * n;
    b[i] = (b[i] - nh_la_dot(n - i - 1, Ui + i + 1, b + i + 1)) / Ui[i];
  }
}

double nh_la_lu_det(int n, const double *LU, const int *piv) {
  double det = 1.0;
  for (int k = 0; k < n; k++) {
    det *= LU[(size_t)k * n + k];
    if (piv[k] != k) det = -det;
  }
  return det;
}

/* ---- Householder QR ---------------------------------------------------------------- */

/* apply H = I - tau v v^T (v = column k of QR below row k, v_k = 1) to b (m) */
static void house_apply(int m, int n, const double *QR, int k, double tau, double *b) {
  if (tau == 0.0) return;
  double s = b[k];
  for (int i = k + 1; i < m; i++) s += QR[(size_t)i * n + k] * b[i];
  s *= tau;
  b[k] -= s;
  for (int i = k + 1; i < m; i++) b[i] -= s * QR[(size_t)i * n + k];
}

int nh_la_qr(int m, int n, double *A, double *tau, double tol, int *rank) {
  for (int k = 0; k < n; k++) {
    /* reflector for column k (LAPACK dlarfg): beta = -sign(alpha) |x| */
    double alpha = A[(size_t)k * n + k];
    double xmax = 0.0;
    for (int i = k + 1; i < m; i++)
      if (fabs(A[(size_t)i * n + k]) > xmax) xmax = fabs(A[(size_t)i * n + k]);
    if (xmax == 0.0) {
      tau[k] = 0.0; /* already upper triangular in this column: H = I */
      continue;
    }
    double scale = fabs(alpha) > xmax ? fabs(alpha) : xmax, s = 0.0;
    for (int i = k; i < m; i++) {
      double t = A[(size_t)i * n + k] / scale;
      s += t * t;
    }
    double beta = -copysign(scale * sqrt(s), alpha);
    tau[k] = (beta - alpha) / beta;
    double f = 1.0 / (alpha - beta);
    for (int i = k + 1; i < m; i++) A[(size_t)i * n + k] *= f;
    A[(size_t)k * n + k] = beta;

    /* apply H_k to the remaining columns */
    for (int j = k + 1; j < n; j++) {
      double w = A[(size_t)k * n + j];
      for (int i = k + 1; i < m; i++) w += A[(size_t)i * n + k] * A[(size_t)i * n + j];
      w *= tau[k];
      A[(size_t)k * n + j] -= w;
      for (int i = k + 1; i < m; i++) A[(size_t)i * n + j] -= w * A[(size_t)i * n + k];
    }
  }

  /* numerical rank from the diagonal of R */
  if (rank) {
    double rmax = 0.0;
    for (int k = 0; k < n; k++)
      if (fabs(A[(size_t)k * n + k]) > rmax) rmax = fabs(A[(size_t)k * n + k]);
    double thr = rank_tol(tol) * rmax;
    int r = 0;
    for (int k = 0; k < n; k++)
      if (fabs(A[(size_t)k * n + k]) > thr && rmax > 0.0) r++;
    *rank = r;
  }
  return NH_OK;
}

void nh_la_qr_qt(int m, int n, const double *QR, const double *tau, double *b) {
  /* Q^T = H_{n-1} ... H_0: apply H_0 first */
  for (int k = 0; k < n; k++) house_apply(m, n, QR, k, tau[k], b);
}

void nh_la_qr_q(int m, int n, const double *QR, const double *tau, double *b) {
  /* Q = H_0 ... H_{n-1}: apply H_{n-1} first */
  for (int k = n - 1; k >= 0; k--) house_apply(m, n, QR, k, tau[k], b);
}

int nh_la_qr_solve(int m, int n, const double *QR, const double *tau, double *b, double tol) {
  /* full column rank check on the diagonal of R */
  double rmax = 0.0;
  for (int k = 0; k < n; k++)
    if (fabs(QR[(size_t)k * n + k]) > rmax) rmax = fabs(QR[(size_t)k * n + k]);
  double thr = rank_tol(tol) * rmax;
  for (int k = 0; k < n; k++)
    if (!(fabs(QR[(size_t)k * n + k]) > thr) || !(rmax > 0.0)) return NH_ERR_SINGULAR;
  /* x = R^-1 (Q^T b)(0:n) */
  nh_la_qr_qt(m, n, QR, tau, b);
  for (int i = n - 1; i >= 0; i--) {
    const double *Ri = QR + (size_t)i * n;
    b[i] = (b[i] - nh_la_dot(n - i - 1, Ri + i + 1, b + i + 1)) / Ri[i];
  }
  return NH_OK;
}

void nh_la_lu_solve_rev(int n, const double *LU, const int *piv, const double *rinv, double *b) {
  /* the interchanges and L as nh_la_lu_solve (their chains are short) */
  lu_forward(n, LU, piv, b);
  /* U: each row summed from its last column, so that the newest entry b_{i+1} comes last */
  for (int i = n - 1; i >= 0; i--) {
    const double *Ui = LU + (size_t)i * n;
    double s = 0.0;
    for (int j = n - 1; j > i; j--) s += Ui[j] * b[j];
    b[i] = (b[i] - s) * rinv[i];
  }
}
