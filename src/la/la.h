/* la.h - tiny dense linear algebra for the small systems of nonholonomic mechanics.
 *
 * Matrices are row-major double arrays; A(i,j) = A[i*lda + j] with lda = number of columns
 * unless a function says otherwise. Nothing here allocates; scratch is passed in. The
 * factorizations work in place and report rank or singularity with a status (nholo/status.h)
 * instead of dividing by zero. Private to the library (tests may include it). */
#ifndef NH_LA_H
#define NH_LA_H

#include <stddef.h>

/* Relative pivot threshold used for rank decisions when the caller passes tol <= 0. */
#define NH_LA_RANK_TOL 1e-13

/* ---- BLAS-like helpers ------------------------------------------------------------- */

/* The level-1 helpers are inline: the systems are tiny, so call overhead dominates. The
 * loops are unrolled by four by hand (the loop overhead is most of the cost at -O2) and keep
 * the order of the plain loops, so the results are the same to the bit. */
static inline double nh_la_dot(int n, const double *x, const double *y) { /* x . y */
  double s = 0.0;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    s += x[i] * y[i];
    s += x[i + 1] * y[i + 1];
    s += x[i + 2] * y[i + 2];
    s += x[i + 3] * y[i + 3];
  }
  for (; i < n; i++) s += x[i] * y[i];
  return s;
}
static inline void nh_la_axpy(int n, double a, const double *x, double *y) { /* y += a x */
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    y[i] += a * x[i];
    y[i + 1] += a * x[i + 1];
    y[i + 2] += a * x[i + 2];
    y[i + 3] += a * x[i + 3];
  }
  for (; i < n; i++) y[i] += a * x[i];
}
static inline void nh_la_copy(int n, const double *x, double *y) { /* y = x */
  if (x == y) return;
  for (int i = 0; i < n; i++) y[i] = x[i];
}
static inline void nh_la_scale(int n, double a, double *x) { /* x *= a */
  for (int i = 0; i < n; i++) x[i] *= a;
}
double nh_la_norm_inf(int n, const double *x);                  /* max |x_i| */
double nh_la_norm2(int n, const double *x);                     /* sqrt(x . x), overflow-safe */
/* y = A x, A (m x n). y must not alias x. */
void nh_la_gemv(int m, int n, const double *A, const double *x, double *y);
/* y = A^T x, A (m x n), y (n). y must not alias x. */
void nh_la_gemv_t(int m, int n, const double *A, const double *x, double *y);
/* C = A B, A (m x k), B (k x n), C (m x n). C must not alias A or B. */
void nh_la_gemm(int m, int k, int n, const double *A, const double *B, double *C);
/* C = A B^T, A (m x k), B (n x k), C (m x n). */
void nh_la_gemm_nt(int m, int k, int n, const double *A, const double *B, double *C);
/* B = A^T, A (m x n), B (n x m). */
void nh_la_transpose(int m, int n, const double *A, double *B);

/* ---- Cholesky A = L L^T ------------------------------------------------------------ */

/* Is the strict lower triangle of A (n x n) zero (A diagonal, as far as Cholesky reads it)? */
int nh_la_lower_zero(int n, const double *A);
/* Solve L L^T x = b in place for a diagonal L (nh_la_lower_zero(n, L)): b_i / L_ii / L_ii,
 * the roundings of nh_la_chol_solve, which takes this path for such an L. */
static inline void nh_la_diag_solve(int n, const double *L, double *b) {
  for (int i = 0; i < n; i++) b[i] = b[i] / L[(size_t)i * n + i] / L[(size_t)i * n + i];
}

/* Factor SPD A (n x n) in place: the lower triangle receives L (the strict upper triangle is
 * left untouched). Returns 0 (NH_OK) or NH_ERR_NOT_SPD when a pivot is <= tol * max diag
 * (tol <= 0: NH_LA_RANK_TOL); *rank (Nullable) receives the number of pivots accepted (a
 * rejected pivot zeroes its column of L and the sweep goes on). No pivoting: the count is
 * the rank of a semi-definite A when its leading principal blocks are well conditioned;
 * nh_la_ldlt detects rank robustly. A diagonal A (zero strict lower triangle) takes a short
 * path with the same results. */
int nh_la_chol(int n, double *A, double tol, int *rank);
/* Solve L L^T x = b in place (b becomes x), with L from nh_la_chol. A diagonal L takes a
 * short path with the same roundings (b_i / L_ii / L_ii; for finite b, up to the sign of a
 * zero result). */
void nh_la_chol_solve(int n, const double *L, double *b);
/* Solve for nrhs right-hand sides stored as the columns of B (n x nrhs), in place. */
void nh_la_chol_solve_mat(int n, int nrhs, const double *L, double *B);

/* ---- LDL^T with symmetric (Bunch-Kaufman-free) diagonal pivoting ------------------- */

/* Factor symmetric A = P L D L^T P^T with diagonal pivoting (largest remaining |diagonal|).
 * L unit lower triangular stored below the diagonal of A, D on the diagonal, perm (n) the
 * permutation (row i of P^T A P is row perm[i] of A). Pivots with |d| <= tol * max|diag|
 * are treated as zero: *rank (Nullable) is the number of nonzero pivots, and the return is
 * 0 when rank == n and NH_ERR_SINGULAR otherwise. Works for semi-definite A (rank
 * detection) and for indefinite A whose diagonal pivots do not vanish. Reads the lower
 * triangle; the strict upper triangle is used as scratch. */
int nh_la_ldlt(int n, double *A, int *perm, double tol, int *rank);
/* Solve with the factors of nh_la_ldlt (full rank only); b (n) in place. work (n). */
void nh_la_ldlt_solve(int n, const double *LD, const int *perm, double *b, double *work);

/* ---- LU with partial pivoting ------------------------------------------------------ */

/* Factor A (n x n) = P L U in place, piv (n) the row interchanges (LAPACK-style: row i was
 * swapped with row piv[i]). Returns 0, or NH_ERR_SINGULAR when a pivot is <= tol * max|A|
 * (tol <= 0: NH_LA_RANK_TOL); the factorization is completed all the same (exactly zero
 * columns are skipped), so nh_la_lu_det still gives a (tiny) determinant. */
int nh_la_lu(int n, double *A, int *piv, double tol);
/* Solve A x = b in place with the factors of nh_la_lu. */
void nh_la_lu_solve(int n, const double *LU, const int *piv, double *b);
/* Determinant from the factors. */
double nh_la_lu_det(int n, const double *LU, const int *piv);

/* ---- Householder QR ---------------------------------------------------------------- */

/* Factor A (m x n, m >= n) = Q R in place: R in the upper triangle, the Householder vectors
 * below the diagonal (v_k(k) = 1 implicit), tau (n) their scalars (H_k = I - tau_k v_k v_k^T).
 * Returns 0; *rank (Nullable) counts |R_kk| > tol * max|R_jj| (tol <= 0: NH_LA_RANK_TOL).
 * No column pivoting: the count is the rank when independent columns come first. */
int nh_la_qr(int m, int n, double *A, double *tau, double tol, int *rank);
/* b (m) <- Q^T b. */
void nh_la_qr_qt(int m, int n, const double *QR, const double *tau, double *b);
/* b (m) <- Q b. */
void nh_la_qr_q(int m, int n, const double *QR, const double *tau, double *b);
/* Least squares: minimise |A x - b|; b (m) in place, x in b[0..n-1]. Full column rank only
 * (returns NH_ERR_SINGULAR when some |R_kk| <= tol * max|R_jj|). */
int nh_la_qr_solve(int m, int n, const double *QR, const double *tau, double *b, double tol);

/* ---- Householder QR with differentiated reflections (src/la/qrdiff.c) --------------- */

/* Flag for nh_la_qrdiff: use the sign printed in the paper's Algorithm 1 (wrong, spec 002
 * E8). Only for the test that shows the erratum. */
#define NH_LA_QRDIFF_PAPER_SIGN 1u

/* Doubles of work for nh_la_qrdiff (deriv: with derivatives). */
size_t nh_la_qrdiff_work_size(int n, int r, int deriv);
/* A (n x r, r <= n) = Q R by r explicit Householder reflections I - 2 w w^T with the sign
 * vector s (r): s_k = +-1 fixes reflection k; s_k = 0 picks sign(R_kk) and writes it back.
 * Q (n x n) full. With dA (n slices of n x r, dA + i n r = dA/dq_i) and dQ (n slices of
 * n x n, Nullable together), also dQ/dq_i (Celledoni et al. Algorithm 1, corrected).
 * Returns 0, or NH_ERR_SINGULAR when a column is (numerically) dependent or the sign makes
 * the reflection degenerate. The last n - r columns of Q span ker A^T. */
int nh_la_qrdiff(int n, int r, const double *A, const double *dA, double *s, double *Q, double *dQ,
                 unsigned flags, double *work);

#endif
