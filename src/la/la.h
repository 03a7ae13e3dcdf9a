/* la.h - tiny dense linear algebra for the small systems of nonholonomic mechanics.
 *
 * Matrices are row-major double arrays; A(i,j) = A[i*lda + j] with lda = number of columns
 * unless a function says otherwise. Nothing here allocates; scratch is passed in. The
 * factorizations work in place and report rank or singularity with a status (nholo/status.h)
 * instead of dividing by zero. Private to the library (tests may include it). */
#ifndef NH_LA_H
#define NH_LA_H

#include <math.h>
#include <stddef.h>

#include "nholo/status.h"

/* Forced inlining where the compiler allows it (GCC, Clang): small fixed-size callers rely
 * on it for unrolled loops. */
#if defined(__GNUC__)
#define NH_LA_INLINE static inline __attribute__((always_inline))
#else
#define NH_LA_INLINE static inline
#endif
/* Loops of the inline helpers are unrolled: completely where n is a compile-time constant */
#if defined(__clang__)
#define NH_LA_UNROLL _Pragma("unroll 4")
#define NH_LA_UNROLL_FULL _Pragma("unroll 8")
#elif defined(__GNUC__)
#define NH_LA_UNROLL _Pragma("GCC unroll 4")
#define NH_LA_UNROLL_FULL _Pragma("GCC unroll 8")
#else
#define NH_LA_UNROLL
#define NH_LA_UNROLL_FULL
#endif

/* Relative pivot threshold used for rank decisions when the caller passes tol <= 0. */
#define NH_LA_RANK_TOL 1e-13

/* ---- BLAS-like helpers ------------------------------------------------------------- */

/* The level-1 helpers are inline: the systems are tiny, so call overhead dominates. */
NH_LA_INLINE double nh_la_dot(int n, const double *x, const double *y) { /* x . y */
  double s = 0.0;
  NH_LA_UNROLL for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}
NH_LA_INLINE void nh_la_axpy(int n, double a, const double *x, double *y) { /* y += a x */
  NH_LA_UNROLL for (int i = 0; i < n; i++) y[i] += a * x[i];
}
/* y += a x for arrays that do not overlap: the same operations as nh_la_axpy (bitwise the
 * same result), two entries per instruction where the compiler has vector types */
#if defined(__GNUC__)
typedef double nh_la_v2d __attribute__((vector_size(16), aligned(8), may_alias));
NH_LA_INLINE void nh_la_axpy_nr(int n, double a, const double *restrict x, double *restrict y) {
  const nh_la_v2d v = {a, a};
  int i = 0;
  for (; i + 2 <= n; i += 2) *(nh_la_v2d *)(y + i) = *(nh_la_v2d *)(y + i) + v * *(const nh_la_v2d *)(x + i);
  if (i < n) y[i] += a * x[i];
}
/* z = a x + b y (no overlap with z), entry by entry */
NH_LA_INLINE void nh_la_axpby_nr(int n, double a, const double *restrict x, double b, const double *restrict y,
                                 double *restrict z) {
  const nh_la_v2d va = {a, a}, vb = {b, b};
  int i = 0;
  for (; i + 2 <= n; i += 2)
    *(nh_la_v2d *)(z + i) = va * *(const nh_la_v2d *)(x + i) + vb * *(const nh_la_v2d *)(y + i);
  if (i < n) z[i] = a * x[i] + b * y[i];
}
#else
NH_LA_INLINE void nh_la_axpy_nr(int n, double a, const double *x, double *y) { nh_la_axpy(n, a, x, y); }
NH_LA_INLINE void nh_la_axpby_nr(int n, double a, const double *x, double b, const double *y, double *z) {
  for (int i = 0; i < n; i++) z[i] = a * x[i] + b * y[i];
}
#endif
NH_LA_INLINE void nh_la_copy(int n, const double *x, double *y) { /* y = x */
  if (x == y) return;
  NH_LA_UNROLL for (int i = 0; i < n; i++) y[i] = x[i];
}
NH_LA_INLINE void nh_la_scale(int n, double a, double *x) { /* x *= a */
  NH_LA_UNROLL for (int i = 0; i < n; i++) x[i] *= a;
}
NH_LA_INLINE double nh_la_mat_norm_inf(int m, int n, const double *A) { /* max_i sum_j |A_ij| (m x n) */
  double mr = 0.0;
  for (int i = 0; i < m; i++) {
    double r = 0.0;
    for (int j = 0; j < n; j++) r += fabs(A[(size_t)i * n + j]);
    mr = r > mr ? r : mr;
  }
  return mr;
}
NH_LA_INLINE double nh_la_norm_inf(int n, const double *x) { /* max |x_i|, NaN propagates */
  // branch-free: the max skips NaNs (maxsd), a separate count finds them
  double m = 0.0;
  int nans = 0;
  NH_LA_UNROLL for (int i = 0; i < n; i++) {
    double a = fabs(x[i]);
    m = a > m ? a : m;
    nans |= a != a;
  }
  return nans ? NAN : m;
}
/* The same three for a size known at compile time after inlining (a caller specialised for a
 * fixed small n): fully unrolled, the same operations in the same order. */
NH_LA_INLINE double nh_la_dot_fixed(int n, const double *x, const double *y) {
  double s = 0.0;
  NH_LA_UNROLL_FULL for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}
NH_LA_INLINE void nh_la_axpy_fixed(int n, double a, const double *x, double *y) {
  NH_LA_UNROLL_FULL for (int i = 0; i < n; i++) y[i] += a * x[i];
}
NH_LA_INLINE void nh_la_copy_fixed(int n, const double *x, double *y) {
  NH_LA_UNROLL_FULL for (int i = 0; i < n; i++) y[i] = x[i];
}
/* 1 when every x_i is finite: the sum first (an infinity or a NaN makes it infinite or NaN,
 * z - z is then NaN), the components only when it is not (it may have overflowed) */
NH_LA_INLINE int nh_la_all_finite(int n, const double *x) {
  double z = 0.0;
  NH_LA_UNROLL_FULL for (int i = 0; i < n; i++) z += x[i];
  if (z - z == 0.0) return 1;
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}
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
NH_LA_INLINE void nh_la_diag_solve(int n, const double *L, double *b) {
  NH_LA_UNROLL for (int i = 0; i < n; i++) b[i] = b[i] / L[(size_t)i * n + i] / L[(size_t)i * n + i];
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
/* The factorization and its solve are inline as well (nh_la_*_inline): a caller that
 * knows n at compile time (the impact map's small-size paths) gets them unrolled, with the
 * same roundings as the out-of-line functions, which call them. */

/* the relative threshold actually used for a caller's tol */
NH_LA_INLINE double nh_la_rank_tol(double tol) { return tol > 0.0 ? tol : NH_LA_RANK_TOL; }

NH_LA_INLINE int nh_la_lower_zero_inline(int n, const double *A) {
  const double *row = A;
  NH_LA_UNROLL for (int i = 1; i < n; i++) {
    row += n;
    NH_LA_UNROLL for (int j = 0; j < i; j++)
      if (row[j] != 0.0) return 0;
  }
  return 1;
}

NH_LA_INLINE int nh_la_chol_inline(int n, double *A, double tol, int *rank) {
  /* scale: the largest diagonal entry (only the lower triangle is read) */
  double dmax = 0.0;
  NH_LA_UNROLL for (int i = 0; i < n; i++)
    if (A[(size_t)i * n + i] > dmax) dmax = A[(size_t)i * n + i];
  double thr = nh_la_rank_tol(tol) * dmax;
  int r = 0;

  /* diagonal A (a common mass matrix): the sweep below reduces to L_jj = sqrt(A_jj) */
  if (nh_la_lower_zero_inline(n, A)) {
    NH_LA_UNROLL for (int j = 0; j < n; j++) {
      double d = A[(size_t)j * n + j];
      if (!(d > thr) || !(d > 0.0)) {
        NH_LA_UNROLL for (int i = j; i < n; i++) A[(size_t)i * n + j] = 0.0;
        continue;
      }
      A[(size_t)j * n + j] = sqrt(d);
      r++;
    }
    if (rank) *rank = r;
    return r == n ? NH_OK : NH_ERR_NOT_SPD;
  }

  /* left-looking column by column; a rejected pivot zeroes its column of L, so a
   * positive semi-definite matrix of rank r accepts exactly r pivots */
  NH_LA_UNROLL for (int j = 0; j < n; j++) {
    double *Lj = A + (size_t)j * n;
    double d = Lj[j] - nh_la_dot(j, Lj, Lj);
    if (!(d > thr) || !(d > 0.0)) {
      NH_LA_UNROLL for (int i = j; i < n; i++) A[(size_t)i * n + j] = 0.0;
      continue;
    }
    double ljj = sqrt(d);
    Lj[j] = ljj;
    r++;
    NH_LA_UNROLL for (int i = j + 1; i < n; i++) {
      double *Li = A + (size_t)i * n;
      Li[j] = (Li[j] - nh_la_dot(j, Li, Lj)) / ljj;
    }
  }
  if (rank) *rank = r;
  return r == n ? NH_OK : NH_ERR_NOT_SPD;
}

NH_LA_INLINE void nh_la_chol_solve_inline(int n, const double *L, double *b) {
  /* diagonal L: both sweeps divide by L_ii (the same roundings as the general sweeps) */
  if (nh_la_lower_zero_inline(n, L)) {
    nh_la_diag_solve(n, L, b);
    return;
  }
  /* forward: L y = b */
  NH_LA_UNROLL for (int i = 0; i < n; i++) b[i] = (b[i] - nh_la_dot(i, L + (size_t)i * n, b)) / L[(size_t)i * n + i];
  /* backward: L^T x = y */
  NH_LA_UNROLL for (int i = n - 1; i >= 0; i--) {
    double s = b[i];
    NH_LA_UNROLL for (int k = i + 1; k < n; k++) s -= L[(size_t)k * n + i] * b[k];
    b[i] = s / L[(size_t)i * n + i];
  }
}

/* Solve for nrhs right-hand sides stored as the columns of B (n x nrhs), in place. */
void nh_la_chol_solve_mat(int n, int nrhs, const double *L, double *B);

/* ---- Cholesky on an envelope (a band, or any profile) --------------------------------- */

/* The same factorization and solve as nh_la_chol / nh_la_chol_solve (the same bits: the
 * terms skipped are products with a structural zero, which add nothing to a sum) for SPD A
 * whose row i has structural zeros left of column first[i] (first[i] <= i); only the
 * envelope (first[i] <= j <= i) is read or written, so entries left of it may hold anything
 * (the dense routines would see them as +0). last (n) receives, per column j, the last row
 * whose envelope reaches it (for the solve). Work grows with the envelope, not with n^3. */
int nh_la_chol_env(int n, double *A, const int *first, int *last, double tol, int *rank);
void nh_la_chol_env_solve(int n, const double *L, const int *first, const int *last, double *b);

/* ---- sparse Cholesky in a fill-reducing order (src/la/sparse_chol.c) ------------------ */

/* The symbolic analysis of an SPD matrix's pattern, made once (it allocates): a permutation P
 * (an approximate minimum degree order from CHOLMOD when the library has it, or the natural
 * one), the elimination tree and the pattern of the factor L of P A P^T = L L^T. The numeric
 * factorization and the solves then allocate nothing: they work in caller scratch. */
typedef struct nh_la_spchol nh_la_spchol;
#define NH_LA_ORDER_NATURAL 0
#define NH_LA_ORDER_AMD 1 /* CHOLMOD's AMD (NH_ERR_UNSUPPORTED when the cholmod component does not load) */
/* 1 when the library was built with CHOLMOD */
int nh_la_spchol_have_amd(void);
/* Analyse the pattern of the lower triangle of a symmetric n x n matrix given by rows: row i
 * holds the columns cols[rows[i] .. rows[i + 1]), ascending, each <= i, the diagonal i
 * among them. The values later passed to nh_la_spchol_factor follow the same order. Returns
 * NH_OK (*out set; free it with nh_la_spchol_free), NH_ERR_ARG (a bad pattern), NH_ERR_NOMEM
 * or NH_ERR_UNSUPPORTED. */
int nh_la_spchol_analyze(int n, const int *rows, const int *cols, int order, nh_la_spchol **out);
void nh_la_spchol_free(nh_la_spchol *s);
/* Entries of L (its diagonal included), and of the envelope of the given pattern in the given
 * order (sum over rows of i - first column + 1): the work and storage of nh_la_chol_env. */
long nh_la_spchol_factor_entries(const nh_la_spchol *s);
long nh_la_spchol_envelope_entries(const nh_la_spchol *s);
/* Doubles of scratch for nh_la_spchol_factor and _solve (the factor and its workspace). */
size_t nh_la_spchol_work_size(const nh_la_spchol *s);
/* Factor the matrix whose lower-triangle values vals follow the analysed pattern, into work.
 * NH_ERR_NOT_SPD when a squared pivot is not above tol (<= 0: NH_LA_RANK_TOL) times the
 * largest diagonal entry (or not positive); *rank (Nullable) counts the pivots accepted
 * before that. The row-by-row (up-looking) algorithm: sums in a fixed order, deterministic. */
int nh_la_spchol_factor(const nh_la_spchol *s, const double *vals, double tol, int *rank, double *work);
/* b (n) <- A^-1 b with the factor in work. */
void nh_la_spchol_solve(const nh_la_spchol *s, double *work, double *b);

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
/* nh_la_lu up to rounding (not bitwise): the multipliers are products with 1 / u_kk, one
 * division per column (not per entry), and rinv (n) receives those 1 / u_kk for
 * nh_la_lu_solve_rev. For Newton's Jacobians, whose rounding does not reach the solution.
 * Singular (NH_ERR_SINGULAR, factors still complete) when some |u_kk| is not above tol
 * (NH_LA_RANK_TOL when tol <= 0) times the largest |u_kk|: the rank decided on U's diagonal,
 * as nh_la_qr decides it on R's, without a pass over A. */
int nh_la_lu_recip(int n, double *A, int *piv, double tol, double *rinv);
/* The solve of nh_la_lu_solve up to rounding (not bitwise): U's rows are summed from the last
 * column and multiplied by rinv, so that each row waits for the previous one only by a
 * product, a sum and a product (not the whole row and a division): about 60% of the latency
 * on n = 13, for the small solves on the critical path of Newton. */
void nh_la_lu_solve_rev(int n, const double *LU, const int *piv, const double *rinv, double *b);
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
/* Column k's remainder x = R[k:n, k] of a factorization with a reference (xref) counts as
 * reversed when its cosine with the reference direction is below this: x passed through 0
 * (column k became dependent on the columns before it and independent again: a rank change
 * of A) rather than turned, which needs a turn of more than 120 degrees within a time step. */
#define NH_LA_QRDIFF_REVERSED_COS (-0.5)

/* A (n x r, r <= n) = Q R by r explicit Householder reflections I - 2 w w^T with the sign
 * vector s (r): s_k = +-1 fixes reflection k; s_k = 0 picks sign(R_kk) and writes it back.
 * xref (Nullable, r x n): with s_k = 0, receives the unit direction of column k's remainder
 * x (zeros before k); with s_k = +-1, the reference: where x is reversed against it
 * (NH_LA_QRDIFF_REVERSED_COS) reflection k takes -s_k. Then the reflection, Q and R go on
 * smoothly through a point where x passes through 0 (R_kk = -s_k |x| changes sign there),
 * where a fixed sign turns the reflection discontinuously (s is not written in that case).
 * Q (n x n) full. With dA (n slices of n x r, dA + i n r = dA/dq_i) and dQ (n slices of
 * n x n, Nullable together), also dQ/dq_i (Celledoni et al. Algorithm 1, corrected).
 * Returns 0, or NH_ERR_SINGULAR when a column is (numerically) dependent or the sign makes
 * the reflection degenerate. The last n - r columns of Q span ker A^T. */
int nh_la_qrdiff(int n, int r, const double *A, const double *dA, double *s, double *xref, double *Q,
                 double *dQ, unsigned flags, double *work);

#endif
