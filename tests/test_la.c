/* test_la.c - the dense linear algebra of src/la against random well-conditioned cases,
 * Hilbert matrices, exactly rank-deficient matrices and hand-checked values.
 *
 * Residuals are relative: |A x - b|_inf / (|A|_inf |x|_inf + |b|_inf). The largest errors
 * seen are printed at the end (the tolerances below are far above them). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "la/la.h"
#include "nholo/status.h"

#define NMAX 20
#define SEEDS 60

/* ---- error bookkeeping ----------------------------------------------------------- */

static struct {
  const char *name;
  double max;
} errs[32];
static int nerrs;

/* remember the largest error seen under a name; returns err for chaining */
static double track(const char *name, double err) {
  for (int i = 0; i < nerrs; i++)
    if (strcmp(errs[i].name, name) == 0) {
      if (err > errs[i].max) errs[i].max = err;
      return err;
    }
  if (nerrs < 32) {
    errs[nerrs].name = name;
    errs[nerrs].max = err;
    nerrs++;
  }
  return err;
}

/* ---- helpers ------------------------------------------------------------------------ */

static void rand_mat(unsigned long long *s, int m, int n, double *A) {
  for (int i = 0; i < m * n; i++) A[i] = nh_test_rand(s, -1.0, 1.0);
}

/* well-conditioned SPD: B B^T + n I */
static void rand_spd(unsigned long long *s, int n, double *A) {
  double B[NMAX * NMAX];
  rand_mat(s, n, n, B);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double t = 0.0;
      for (int k = 0; k < n; k++) t += B[i * n + k] * B[j * n + k];
      A[i * n + j] = t + (i == j ? n : 0.0);
    }
}

/* PSD of rank r: B B^T with B (n x r) */
static void rand_psd_rank(unsigned long long *s, int n, int r, double *A) {
  double B[NMAX * NMAX];
  rand_mat(s, n, r, B);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double t = 0.0;
      for (int k = 0; k < r; k++) t += B[i * r + k] * B[j * r + k];
      A[i * n + j] = t;
    }
}

static void hilbert(int n, double *A) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) A[i * n + j] = 1.0 / (i + j + 1);
}

/* 2-norm condition numbers of the Hilbert matrices 6..10 (published values) */
static double hilbert_cond(int n) {
  static const double c[] = {1.495105864e7, 4.753673565e8, 1.525757554e10, 4.931537557e11,
                             1.602502464e13};
  return c[n - 6];
}

static double mat_norm_inf(int m, int n, const double *A) {
  double r = 0.0;
  for (int i = 0; i < m; i++) {
    double s = 0.0;
    for (int j = 0; j < n; j++) s += fabs(A[i * n + j]);
    if (s > r) r = s;
  }
  return r;
}

/* relative residual |A x - b| / (|A| |x| + |b|) for A (m x n) */
static double rel_residual(int m, int n, const double *A, const double *x, const double *b) {
  double r = 0.0;
  for (int i = 0; i < m; i++) {
    double t = -b[i];
    for (int j = 0; j < n; j++) t += A[i * n + j] * x[j];
    if (fabs(t) > r) r = fabs(t);
  }
  double bn = 0.0;
  for (int i = 0; i < m; i++)
    if (fabs(b[i]) > bn) bn = fabs(b[i]);
  return r / (mat_norm_inf(m, n, A) * nh_la_norm_inf(n, x) + bn);
}

static double max_abs_diff(int n, const double *x, const double *y) {
  double r = 0.0;
  for (int i = 0; i < n; i++)
    if (fabs(x[i] - y[i]) > r) r = fabs(x[i] - y[i]);
  return r;
}

/* ---- BLAS-like helpers ------------------------------------------------------------- */

static int test_blas(void) {
  unsigned long long s = 11;
  double A[NMAX * NMAX], B[NMAX * NMAX], C[NMAX * NMAX], D[NMAX * NMAX];
  double x[NMAX], y[NMAX], z[NMAX];
  for (int rep = 0; rep < SEEDS; rep++) {
    int m = 1 + (int)nh_test_rand(&s, 0, 9), k = 1 + (int)nh_test_rand(&s, 0, 9),
        n = 1 + (int)nh_test_rand(&s, 0, 9);
    rand_mat(&s, m, k, A);
    rand_mat(&s, k, n, B);
    rand_mat(&s, 1, NMAX, x);
    rand_mat(&s, 1, NMAX, y);
    /* dot, norms */
    double d = 0.0, ni = 0.0;
    for (int i = 0; i < n; i++) {
      d += x[i] * y[i];
      if (fabs(x[i]) > ni) ni = fabs(x[i]);
    }
    ENSURE_NEAR(nh_la_dot(n, x, y), d, 1e-15 * n);
    ENSURE(nh_la_norm_inf(n, x) == ni);
    ENSURE_REL(nh_la_norm2(n, x), sqrt(nh_la_dot(n, x, x)), 1e-15);
    /* axpy, copy, scale */
    nh_la_copy(n, y, z);
    ENSURE(memcmp(y, z, sizeof(double) * (size_t)n) == 0);
    nh_la_axpy(n, 0.5, x, z);
    for (int i = 0; i < n; i++) ENSURE(z[i] == y[i] + 0.5 * x[i]);
    nh_la_scale(n, -2.0, z);
    for (int i = 0; i < n; i++) ENSURE(z[i] == -2.0 * (y[i] + 0.5 * x[i]));
    /* gemv, gemv_t */
    nh_la_gemv(m, k, A, x, z);
    for (int i = 0; i < m; i++) {
      double t = 0.0;
      for (int j = 0; j < k; j++) t += A[i * k + j] * x[j];
      ENSURE_NEAR(z[i], t, 1e-15 * k);
    }
    nh_la_gemv_t(m, k, A, x, z);
    for (int j = 0; j < k; j++) {
      double t = 0.0;
      for (int i = 0; i < m; i++) t += A[i * k + j] * x[i];
      ENSURE_NEAR(z[j], t, 1e-15 * m);
    }
    /* gemm, transpose, gemm_nt */
    nh_la_gemm(m, k, n, A, B, C);
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) {
        double t = 0.0;
        for (int p = 0; p < k; p++) t += A[i * k + p] * B[p * n + j];
        ENSURE_NEAR(C[i * n + j], t, 1e-15 * k);
      }
    nh_la_transpose(k, n, B, D); /* D = B^T (n x k) */
    for (int i = 0; i < k; i++)
      for (int j = 0; j < n; j++) ENSURE(D[j * k + i] == B[i * n + j]);
    nh_la_gemm_nt(m, k, n, A, D, B); /* B = A D^T = A (B_old) */
    ENSURE(max_abs_diff(m * n, B, C) <= 1e-15 * k);
  }
  /* norm2 neither overflows nor underflows; NaN propagates through norm_inf */
  double big[3] = {1e200, -1e200, 1e200}, tiny[2] = {3e-200, 4e-200}, nan3[3] = {1.0, NAN, 2.0};
  ENSURE_REL(nh_la_norm2(3, big), sqrt(3.0) * 1e200, 1e-15);
  ENSURE_REL(nh_la_norm2(2, tiny), 5e-200, 1e-15);
  ENSURE(nh_la_norm2(0, big) == 0.0);
  ENSURE(isnan(nh_la_norm_inf(3, nan3)));
  return 0;
}

/* ---- Cholesky ---------------------------------------------------------------------- */

static int test_chol_random(void) {
  unsigned long long s = 21;
  double A[NMAX * NMAX], L[NMAX * NMAX], x[NMAX], b[NMAX];
  for (int n = 1; n <= NMAX; n++)
    for (int rep = 0; rep < SEEDS / 4; rep++) {
      rand_spd(&s, n, A);
      memcpy(L, A, sizeof A);
      for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) L[i * n + j] = 12345.0; /* must stay untouched */
      int rank = -1;
      ENSURE(nh_la_chol(n, L, 0.0, &rank) == NH_OK);
      ENSURE(rank == n);
      double e = 0.0;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          if (j > i) {
            ENSURE(L[i * n + j] == 12345.0);
            continue;
          }
          double t = 0.0;
          for (int k = 0; k <= j; k++) t += L[i * n + k] * L[j * n + k];
          if (fabs(t - A[i * n + j]) > e) e = fabs(t - A[i * n + j]);
        }
      ENSURE(track("chol: |L L^T - A| / |A|", e / mat_norm_inf(n, n, A)) < 1e-14);
      rand_mat(&s, 1, n, b);
      memcpy(x, b, sizeof(double) * (size_t)n);
      nh_la_chol_solve(n, L, x);
      ENSURE(track("chol: solve residual (random)", rel_residual(n, n, A, x, b)) < 1e-15);
    }
  return 0;
}

static int test_chol_mat(void) {
  unsigned long long s = 22;
  double A[NMAX * NMAX], B[NMAX * 5], X[NMAX * 5], x[NMAX], b[NMAX];
  for (int n = 1; n <= 12; n++)
    for (int rep = 0; rep < 10; rep++) {
      int nrhs = 1 + rep % 5;
      rand_spd(&s, n, A);
      ENSURE(nh_la_chol(n, A, 0.0, NULL) == NH_OK);
      rand_mat(&s, n, nrhs, B);
      memcpy(X, B, sizeof(double) * (size_t)(n * nrhs));
      nh_la_chol_solve_mat(n, nrhs, A, X);
      for (int j = 0; j < nrhs; j++) {
        for (int i = 0; i < n; i++) x[i] = B[i * nrhs + j];
        nh_la_chol_solve(n, A, x);
        for (int i = 0; i < n; i++) b[i] = X[i * nrhs + j];
        ENSURE(track("chol: solve_mat vs solve", max_abs_diff(n, x, b)) < 1e-14);
      }
    }
  return 0;
}

static int test_chol_hilbert(void) {
  double A[NMAX * NMAX], L[NMAX * NMAX], x[NMAX], b[NMAX], xt[NMAX];
  for (int n = 6; n <= 10; n++) {
    hilbert(n, A);
    memcpy(L, A, sizeof A);
    /* with a permissive threshold the factorization goes through */
    ENSURE(nh_la_chol(n, L, 1e-30, NULL) == NH_OK);
    for (int i = 0; i < n; i++) xt[i] = 1.0 + i % 3;
    nh_la_gemv(n, n, A, xt, b);
    memcpy(x, b, sizeof(double) * (size_t)n);
    nh_la_chol_solve(n, L, x);
    ENSURE(track("chol: Hilbert residual", rel_residual(n, n, A, x, b)) < 1e-15);
    double fe = max_abs_diff(n, x, xt) / nh_la_norm_inf(n, xt);
    ENSURE(track("chol: Hilbert forward err / (cond eps)", fe / (hilbert_cond(n) * DBL_EPSILON)) < 10.0);
  }
  /* the default threshold rejects H_12 */
  hilbert(12, A);
  int rank = -1;
  ENSURE(nh_la_chol(12, A, 0.0, &rank) == NH_ERR_NOT_SPD);
  ENSURE(rank < 12);
  return 0;
}

/* Cholesky does not pivot, so its pivot count is the rank when the leading r x r block is
 * well conditioned: B (n x r) with a diagonally dominant top block */
static void psd_rank_leading(unsigned long long *s, int n, int r, double *A) {
  double B[NMAX * NMAX];
  rand_mat(s, n, r, B);
  for (int i = 0; i < r; i++) B[i * r + i] += 3.0 * (i % 2 ? -1.0 : 1.0);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double t = 0.0;
      for (int k = 0; k < r; k++) t += B[i * r + k] * B[j * r + k];
      A[i * n + j] = t;
    }
}

static int test_chol_rank(void) {
  unsigned long long s = 23;
  double A[NMAX * NMAX];
  for (int n = 2; n <= NMAX; n++)
    for (int r = 0; r < n; r++)
      for (int rep = 0; rep < 4; rep++) {
        psd_rank_leading(&s, n, r, A);
        int rank = -1;
        ENSURE(nh_la_chol(n, A, 0.0, &rank) == NH_ERR_NOT_SPD);
        ENSURE(rank == r);
      }
  /* indefinite, negative definite, zero, NaN */
  double I2[4] = {1.0, 2.0, 2.0, 1.0}, N2[4] = {-1.0, 0.0, 0.0, -2.0}, Z2[4] = {0, 0, 0, 0},
         Q2[4] = {1.0, 0.0, NAN, 1.0};
  ENSURE(nh_la_chol(2, I2, 0.0, NULL) == NH_ERR_NOT_SPD);
  ENSURE(nh_la_chol(2, N2, 0.0, NULL) == NH_ERR_NOT_SPD);
  ENSURE(nh_la_chol(2, Z2, 0.0, NULL) == NH_ERR_NOT_SPD);
  ENSURE(nh_la_chol(2, Q2, 0.0, NULL) == NH_ERR_NOT_SPD);
  /* a hand-checked factor: [4 2; 2 10] = [2 0; 1 3][2 1; 0 3] */
  double H[4] = {4.0, 2.0, 2.0, 10.0};
  ENSURE(nh_la_chol(2, H, 0.0, NULL) == NH_OK);
  ENSURE(H[0] == 2.0 && H[2] == 1.0 && H[3] == 3.0 && H[1] == 2.0);
  return 0;
}

/* a diagonal matrix takes the short path of nh_la_chol / nh_la_chol_solve: L = sqrt(diag),
 * the solve divides twice by L_ii, and the results agree with the general sweeps, run here
 * on the same matrix with one off-diagonal entry of 1e-300 (which changes nothing at double
 * precision but forces the general path) */
static int test_chol_diag(void) {
  unsigned long long s = 31;
  double A[NMAX * NMAX], B[NMAX * NMAX], x[NMAX], y[NMAX], b[NMAX];
  for (int n = 1; n <= NMAX; n++)
    for (int rep = 0; rep < 8; rep++) {
      memset(A, 0, sizeof A);
      for (int i = 0; i < n; i++) A[i * n + i] = exp(nh_test_rand(&s, -10.0, 10.0));
      memcpy(B, A, sizeof(double) * (size_t)(n * n));
      if (n > 1) B[n] = 1e-300; /* (1, 0): the general sweep */
      int ra = -1, rb = -1;
      ENSURE(nh_la_chol(n, A, 0.0, &ra) == NH_OK && ra == n);
      ENSURE(nh_la_chol(n, B, 0.0, &rb) == NH_OK && rb == n);
      for (int i = 0; i < n; i++) {
        ENSURE(A[i * n + i] == B[i * n + i]);
        for (int j = 0; j < i; j++) ENSURE(A[i * n + j] == 0.0);
      }
      for (int i = 0; i < n; i++) b[i] = x[i] = y[i] = nh_test_rand(&s, -1.0, 1.0);
      nh_la_chol_solve(n, A, x);
      for (int i = 0; i < n; i++) {
        double l = A[i * n + i];
        ENSURE(x[i] == b[i] / l / l);
      }
      if (n > 1) {
        nh_la_chol_solve(n, B, y);
        ENSURE(track("chol: diagonal path vs general", max_abs_diff(n, x, y)) == 0.0);
      }
    }
  /* semi-definite and indefinite diagonals are rejected with their rank */
  double D[9] = {2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0}, E[4] = {1.0, 0.0, 0.0, -1.0};
  int rank = -1;
  ENSURE(nh_la_chol(3, D, 0.0, &rank) == NH_ERR_NOT_SPD && rank == 2);
  ENSURE(D[0] == sqrt(2.0) && D[4] == 0.0 && D[8] == sqrt(3.0));
  ENSURE(nh_la_chol(2, E, 0.0, &rank) == NH_ERR_NOT_SPD && rank == 1);
  return 0;
}

/* ---- LDL^T ------------------------------------------------------------------------- */

/* check P L D L^T P^T = A; returns the relative error */
static double ldlt_recon(int n, const double *A, const double *LD, const int *perm) {
  double e = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double t = 0.0;
      for (int k = 0; k <= (i < j ? i : j); k++) {
        double li = k == i ? 1.0 : LD[i * n + k], lj = k == j ? 1.0 : LD[j * n + k];
        t += li * LD[k * n + k] * lj;
      }
      double a = A[perm[i] * n + perm[j]];
      if (fabs(t - a) > e) e = fabs(t - a);
    }
  double na = mat_norm_inf(n, n, A);
  return na > 0.0 ? e / na : e;
}

/* random orthogonal Q (n x n) from a Householder QR */
static void rand_orth(unsigned long long *s, int n, double *Q) {
  double A[NMAX * NMAX], tau[NMAX], e[NMAX];
  rand_mat(s, n, n, A);
  nh_la_qr(n, n, A, tau, 0.0, NULL);
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) e[i] = i == j ? 1.0 : 0.0;
    nh_la_qr_q(n, n, A, tau, e);
    for (int i = 0; i < n; i++) Q[i * n + j] = e[i];
  }
}

static int test_ldlt_random(void) {
  unsigned long long s = 31;
  double A[NMAX * NMAX], LD[NMAX * NMAX], Q[NMAX * NMAX], x[NMAX], b[NMAX], w[NMAX];
  int perm[NMAX];
  for (int n = 1; n <= NMAX; n++)
    for (int rep = 0; rep < SEEDS / 4; rep++) {
      /* SPD */
      rand_spd(&s, n, A);
      memcpy(LD, A, sizeof A);
      int rank = -1;
      ENSURE(nh_la_ldlt(n, LD, perm, 0.0, &rank) == NH_OK);
      ENSURE(rank == n);
      for (int i = 0; i < n; i++) ENSURE(LD[i * n + i] > 0.0);
      /* only the lower triangle is read */
      double LU2[NMAX * NMAX];
      int perm2[NMAX];
      memcpy(LU2, A, sizeof A);
      for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) LU2[i * n + j] = NAN;
      ENSURE(nh_la_ldlt(n, LU2, perm2, 0.0, NULL) == NH_OK);
      for (int i = 0; i < n; i++) {
        ENSURE(perm2[i] == perm[i]);
        for (int j = 0; j <= i; j++) ENSURE(LU2[i * n + j] == LD[i * n + j]);
      }
      ENSURE(track("ldlt: |P L D L^T P^T - A| / |A| (SPD)", ldlt_recon(n, A, LD, perm)) < 1e-14);
      rand_mat(&s, 1, n, b);
      memcpy(x, b, sizeof(double) * (size_t)n);
      nh_la_ldlt_solve(n, LD, perm, x, w);
      ENSURE(track("ldlt: solve residual (SPD)", rel_residual(n, n, A, x, b)) < 1e-15);

      /* indefinite with a known inertia: Q diag(lambda) Q^T, eigenvalues of both signs
       * bounded away from zero; Sylvester: the signs of D are those of lambda */
      rand_orth(&s, n, Q);
      int nneg = 0;
      double lam[NMAX];
      for (int k = 0; k < n; k++) {
        lam[k] = nh_test_rand(&s, 0.5, 2.0);
        if (nh_test_rand(&s, 0.0, 1.0) < 0.5) {
          lam[k] = -lam[k];
          nneg++;
        }
      }
      for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
          double t = 0.0;
          for (int k = 0; k < n; k++) t += Q[i * n + k] * lam[k] * Q[j * n + k];
          A[i * n + j] = A[j * n + i] = t;
        }
      memcpy(LD, A, sizeof A);
      ENSURE(nh_la_ldlt(n, LD, perm, 0.0, &rank) == NH_OK);
      int dneg = 0;
      for (int i = 0; i < n; i++) dneg += LD[i * n + i] < 0.0;
      ENSURE(dneg == nneg);
      /* perm is a permutation */
      int seen[NMAX] = {0};
      for (int i = 0; i < n; i++) {
        ENSURE(perm[i] >= 0 && perm[i] < n && !seen[perm[i]]);
        seen[perm[i]] = 1;
      }
      ENSURE(track("ldlt: |P L D L^T P^T - A| / |A| (indefinite)", ldlt_recon(n, A, LD, perm)) < 1e-12);
      memcpy(x, b, sizeof(double) * (size_t)n);
      nh_la_ldlt_solve(n, LD, perm, x, w);
      ENSURE(track("ldlt: solve residual (indefinite)", rel_residual(n, n, A, x, b)) < 1e-13);
    }
  /* a hand-checked indefinite case: [1 2; 2 -3]; pivot -3 first: d = (-3, 1 + 4/3) */
  double S[4] = {1.0, 2.0, 2.0, -3.0}, sb[2] = {5.0, -4.0}, sw[2];
  int sp[2];
  ENSURE(nh_la_ldlt(2, S, sp, 0.0, NULL) == NH_OK);
  ENSURE(sp[0] == 1 && sp[1] == 0);
  ENSURE_NEAR(S[0], -3.0, 0.0);
  ENSURE_NEAR(S[3], 7.0 / 3.0, 1e-15);
  nh_la_ldlt_solve(2, S, sp, sb, sw); /* x = (1, 2) */
  ENSURE_NEAR(sb[0], 1.0, 1e-15);
  ENSURE_NEAR(sb[1], 2.0, 1e-15);
  return 0;
}

static int test_ldlt_rank(void) {
  unsigned long long s = 32;
  double A[NMAX * NMAX], B[NMAX * NMAX];
  int perm[NMAX];
  for (int n = 2; n <= 14; n++)
    for (int r = 0; r < n; r++)
      for (int rep = 0; rep < 4; rep++) {
        rand_psd_rank(&s, n, r, A);
        memcpy(B, A, sizeof A);
        int rank = -1;
        ENSURE(nh_la_ldlt(n, B, perm, 0.0, &rank) == NH_ERR_SINGULAR);
        ENSURE(rank == r);
        /* the accepted part still reproduces A */
        ENSURE(track("ldlt: reconstruction (PSD rank-deficient)", ldlt_recon(n, A, B, perm)) < 1e-13);
      }
  /* zero diagonal with nonzero off-diagonal is outside the method's scope: reported singular */
  double Z[4] = {0.0, 1.0, 1.0, 0.0};
  int rank = -1;
  ENSURE(nh_la_ldlt(2, Z, perm, 0.0, &rank) == NH_ERR_SINGULAR);
  ENSURE(rank == 0);
  return 0;
}

static int test_ldlt_hilbert(void) {
  double A[NMAX * NMAX], LD[NMAX * NMAX], x[NMAX], b[NMAX], xt[NMAX], w[NMAX];
  int perm[NMAX];
  for (int n = 6; n <= 10; n++) {
    hilbert(n, A);
    memcpy(LD, A, sizeof A);
    ENSURE(nh_la_ldlt(n, LD, perm, 1e-30, NULL) == NH_OK);
    for (int i = 0; i < n; i++) xt[i] = 1.0 - 0.5 * (i % 2);
    nh_la_gemv(n, n, A, xt, b);
    memcpy(x, b, sizeof(double) * (size_t)n);
    nh_la_ldlt_solve(n, LD, perm, x, w);
    ENSURE(track("ldlt: Hilbert residual", rel_residual(n, n, A, x, b)) < 1e-15);
    double fe = max_abs_diff(n, x, xt) / nh_la_norm_inf(n, xt);
    ENSURE(track("ldlt: Hilbert forward err / (cond eps)", fe / (hilbert_cond(n) * DBL_EPSILON)) < 10.0);
  }
  return 0;
}

/* ---- LU ---------------------------------------------------------------------------- */

static int test_lu_random(void) {
  unsigned long long s = 41;
  double A[NMAX * NMAX], LU[NMAX * NMAX], x[NMAX], b[NMAX];
  int piv[NMAX];
  for (int n = 1; n <= NMAX; n++)
    for (int rep = 0; rep < SEEDS / 4; rep++) {
      rand_mat(&s, n, n, A);
      for (int i = 0; i < n; i++) A[i * n + i] += 2.0 * (rep % 2 ? 1 : -1); /* well-conditioned */
      memcpy(LU, A, sizeof A);
      ENSURE(nh_la_lu(n, LU, piv, 0.0) == NH_OK);
      /* P L U = A: apply the interchanges to A and compare with L U */
      double PA[NMAX * NMAX];
      memcpy(PA, A, sizeof A);
      for (int k = 0; k < n; k++) {
        ENSURE(piv[k] >= k && piv[k] < n);
        for (int j = 0; j < n; j++) {
          double t = PA[k * n + j];
          PA[k * n + j] = PA[piv[k] * n + j];
          PA[piv[k] * n + j] = t;
        }
      }
      double e = 0.0;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          double t = 0.0;
          for (int k = 0; k <= (i < j ? i : j); k++) t += (k == i ? 1.0 : LU[i * n + k]) * LU[k * n + j];
          if (fabs(t - PA[i * n + j]) > e) e = fabs(t - PA[i * n + j]);
          if (j < i) ENSURE(fabs(LU[i * n + j]) <= 1.0); /* partial pivoting bound */
        }
      ENSURE(track("lu: |P L U - A| / |A|", e / mat_norm_inf(n, n, A)) < 1e-14);
      rand_mat(&s, 1, n, b);
      memcpy(x, b, sizeof(double) * (size_t)n);
      nh_la_lu_solve(n, LU, piv, x);
      ENSURE(track("lu: solve residual (random)", rel_residual(n, n, A, x, b)) < 1e-15);
    }
  return 0;
}

/* nh_la_lu_recip + nh_la_lu_solve_rev (products with 1 / u_kk, U summed from the right):
 * the same pivots as nh_la_lu, factors and solutions equal to rounding, rinv = 1 / u_kk */
static int test_lu_recip(void) {
  unsigned long long s = 43;
  double A[NMAX * NMAX], LU[NMAX * NMAX], LR[NMAX * NMAX], x[NMAX], y[NMAX], b[NMAX], rinv[NMAX];
  int piv[NMAX], pr[NMAX];
  double ef = 0.0, es = 0.0;
  for (int n = 1; n <= NMAX; n++)
    for (int rep = 0; rep < SEEDS / 4; rep++) {
      rand_mat(&s, n, n, A);
      for (int i = 0; i < n; i++) A[i * n + i] += 2.0 * (rep % 2 ? 1 : -1); /* well-conditioned */
      memcpy(LU, A, sizeof A);
      memcpy(LR, A, sizeof A);
      ENSURE(nh_la_lu(n, LU, piv, 0.0) == NH_OK);
      ENSURE(nh_la_lu_recip(n, LR, pr, 0.0, rinv) == NH_OK);
      for (int k = 0; k < n; k++) ENSURE(pr[k] == piv[k] && rinv[k] == 1.0 / LR[k * n + k]);
      for (int i = 0; i < n * n; i++) ef = fmax(ef, fabs(LR[i] - LU[i]) / (1.0 + fabs(LU[i])));
      rand_mat(&s, 1, n, b);
      memcpy(x, b, sizeof(double) * (size_t)n);
      memcpy(y, b, sizeof(double) * (size_t)n);
      nh_la_lu_solve(n, LU, piv, x);
      nh_la_lu_solve_rev(n, LR, pr, rinv, y);
      for (int i = 0; i < n; i++) es = fmax(es, fabs(y[i] - x[i]) / (1.0 + fabs(x[i])));
      ENSURE(rel_residual(n, n, A, y, b) < 1e-15);
    }
  // rank decided on the pivots: two equal rows are singular at any scale, a regular matrix
  // scaled by 1e-200 is not
  for (int n = 2; n <= NMAX; n++) {
    rand_mat(&s, n, n, A);
    for (int i = 0; i < n; i++) A[i * n + i] += 2.0;
    memcpy(LR, A, sizeof A);
    for (int i = 0; i < n * n; i++) LR[i] *= 1e-200;
    ENSURE(nh_la_lu_recip(n, LR, pr, 0.0, rinv) == NH_OK);
    memcpy(A + (n - 1) * n, A, sizeof(double) * (size_t)n); /* last row = first row */
    for (double sc = 1e-200; sc < 1e201; sc *= 1e100) {
      for (int i = 0; i < n * n; i++) LR[i] = sc * A[i];
      ENSURE(nh_la_lu_recip(n, LR, pr, 0.0, rinv) == NH_ERR_SINGULAR);
    }
  }
  ENSURE(track("lu_recip: factors vs nh_la_lu", ef) < 1e-13); /* rounding times growth */
  ENSURE(track("lu_recip: solve vs nh_la_lu_solve", es) < 1e-13);
  return 0;
}

/* nh_la_lu and nh_la_lu_solve (two rows at a time, vector types) do the operations of the
 * textbook loops: factors, pivots and solutions bitwise those of the plain code below, with
 * and without row exchanges */
static void lu_plain(int n, double *A, int *piv) {
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
    piv[k] = p;
    for (int j = 0; j < n; j++) {
      double t = A[k * n + j];
      A[k * n + j] = A[p * n + j], A[p * n + j] = t;
    }
    for (int i = k + 1; i < n; i++) {
      double l = A[i * n + k] / A[k * n + k];
      A[i * n + k] = l;
      for (int j = k + 1; j < n; j++) A[i * n + j] += -l * A[k * n + j];
    }
  }
}
static void lu_plain_solve(int n, const double *LU, const int *piv, double *b) {
  for (int k = 0; k < n; k++) {
    double t = b[k];
    b[k] = b[piv[k]], b[piv[k]] = t;
  }
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j < i; j++) s += LU[i * n + j] * b[j];
    b[i] -= s;
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = 0.0;
    for (int j = i + 1; j < n; j++) s += LU[i * n + j] * b[j];
    b[i] = (b[i] - s) / LU[i * n + i];
  }
}

static int test_lu_bitwise(void) {
  unsigned long long s = 43;
  double A[NMAX * NMAX], B[NMAX * NMAX], x[NMAX], y[NMAX];
  int pa[NMAX], pb[NMAX], swaps = 0;
  for (int n = 1; n <= NMAX; n++)
    for (int rep = 0; rep < SEEDS / 4; rep++) {
      rand_mat(&s, n, n, A);
      if (rep % 2) /* diagonally dominant: no exchanges */
        for (int i = 0; i < n; i++) A[i * n + i] += 2.0 * n;
      memcpy(B, A, sizeof A);
      ENSURE(nh_la_lu(n, A, pa, 0.0) == NH_OK);
      lu_plain(n, B, pb);
      for (int k = 0; k < n; k++) {
        ENSURE(pa[k] == pb[k]);
        swaps += pa[k] != k;
      }
      ENSURE(memcmp(A, B, sizeof(double) * (size_t)(n * n)) == 0);
      rand_mat(&s, 1, n, x);
      memcpy(y, x, sizeof x);
      nh_la_lu_solve(n, A, pa, x);
      lu_plain_solve(n, B, pb, y);
      ENSURE(memcmp(x, y, sizeof(double) * (size_t)n) == 0);
    }
  ENSURE(swaps > 0);
  return 0;
}

static int test_lu_det(void) {
  unsigned long long s = 42;
  double A[NMAX * NMAX];
  int piv[NMAX];
  /* hand-checked: a permutation (det -1) and a 3 x 3 with det -306 */
  double P[4] = {0.0, 1.0, 1.0, 0.0};
  ENSURE(nh_la_lu(2, P, piv, 0.0) == NH_OK);
  ENSURE(nh_la_lu_det(2, P, piv) == -1.0);
  double T[9] = {6.0, 1.0, 1.0, 4.0, -2.0, 5.0, 2.0, 8.0, 7.0};
  ENSURE(nh_la_lu(3, T, piv, 0.0) == NH_OK);
  ENSURE_REL(nh_la_lu_det(3, T, piv), -306.0, 1e-15);
  /* det(Q D Q^T) = prod(D) for random orthogonal Q; row swaps change the sign */
  for (int n = 1; n <= 12; n++)
    for (int rep = 0; rep < 5; rep++) {
      double Q[NMAX * NMAX], d[NMAX], det = 1.0;
      rand_orth(&s, n, Q);
      for (int k = 0; k < n; k++) {
        d[k] = nh_test_rand(&s, 0.5, 2.0) * (nh_test_rand(&s, 0, 1) < 0.5 ? -1.0 : 1.0);
        det *= d[k];
      }
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          double t = 0.0;
          for (int k = 0; k < n; k++) t += Q[i * n + k] * d[k] * Q[j * n + k];
          A[i * n + j] = t;
        }
      ENSURE(nh_la_lu(n, A, piv, 0.0) == NH_OK);
      ENSURE(track("lu: det relative error", fabs(nh_la_lu_det(n, A, piv) - det) / fabs(det)) < 1e-13);
    }
  /* Hilbert: det H_n = c_n^4 / c_2n, c_n = prod_{i<n} i!  (known to be ~ cond * eps accurate) */
  for (int n = 6; n <= 10; n++) {
    hilbert(n, A);
    ENSURE(nh_la_lu(n, A, piv, 1e-30) == NH_OK);
    double lc = 0.0, lc2 = 0.0, f = 0.0; /* logs of c_n and c_2n */
    for (int i = 1; i < 2 * n; i++) { /* f = log(i!) */
      f += log((double)i);
      if (i < n) lc += f;
      lc2 += f;
    }
    double det = exp(4.0 * lc - lc2);
    double rel = fabs(nh_la_lu_det(n, A, piv) - det) / det;
    ENSURE(track("lu: Hilbert det rel err / (cond eps)", rel / (hilbert_cond(n) * DBL_EPSILON)) < 10.0);
  }
  return 0;
}

static int test_lu_singular(void) {
  unsigned long long s = 43;
  double A[NMAX * NMAX], B[NMAX * NMAX], C[NMAX * NMAX];
  int piv[NMAX];
  /* exactly rank-deficient products B C, B (n x r), C (r x n) */
  for (int n = 2; n <= 14; n++)
    for (int r = 0; r < n; r++) {
      rand_mat(&s, n, r, B);
      rand_mat(&s, r, n, C);
      nh_la_gemm(n, r, n, B, C, A);
      if (r == 0) A[0] = 0.0;
      double hadamard = 1.0; /* |det A| <= prod of the row norms */
      for (int i = 0; i < n; i++) {
        double rn = nh_la_norm2(n, A + i * n);
        hadamard *= rn > 0.0 ? rn : 1.0;
      }
      ENSURE(nh_la_lu(n, A, piv, 0.0) == NH_ERR_SINGULAR);
      ENSURE(track("lu: |det| / Hadamard bound (singular)", fabs(nh_la_lu_det(n, A, piv)) / hadamard) < 1e-13);
    }
  /* a zero column; an exactly repeated row */
  double Z[9] = {1.0, 0.0, 2.0, 3.0, 0.0, 4.0, 5.0, 0.0, 6.0};
  ENSURE(nh_la_lu(3, Z, piv, 0.0) == NH_ERR_SINGULAR);
  ENSURE(nh_la_lu_det(3, Z, piv) == 0.0);
  double R[9] = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 1.0, 2.0, 3.0};
  ENSURE(nh_la_lu(3, R, piv, 0.0) == NH_ERR_SINGULAR);
  return 0;
}

static int test_lu_hilbert(void) {
  double A[NMAX * NMAX], LU[NMAX * NMAX], x[NMAX], b[NMAX], xt[NMAX];
  int piv[NMAX];
  for (int n = 6; n <= 10; n++) {
    hilbert(n, A);
    memcpy(LU, A, sizeof A);
    ENSURE(nh_la_lu(n, LU, piv, 1e-30) == NH_OK);
    for (int i = 0; i < n; i++) xt[i] = (double)(i + 1);
    nh_la_gemv(n, n, A, xt, b);
    memcpy(x, b, sizeof(double) * (size_t)n);
    nh_la_lu_solve(n, LU, piv, x);
    ENSURE(track("lu: Hilbert residual", rel_residual(n, n, A, x, b)) < 1e-15);
    double fe = max_abs_diff(n, x, xt) / nh_la_norm_inf(n, xt);
    ENSURE(track("lu: Hilbert forward err / (cond eps)", fe / (hilbert_cond(n) * DBL_EPSILON)) < 10.0);
  }
  return 0;
}

/* ---- QR ---------------------------------------------------------------------------- */

/* explicit Q (m x m) from the factors */
static void qr_form_q(int m, int n, const double *QR, const double *tau, double *Q) {
  double e[NMAX + 8];
  for (int j = 0; j < m; j++) {
    for (int i = 0; i < m; i++) e[i] = i == j ? 1.0 : 0.0;
    nh_la_qr_q(m, n, QR, tau, e);
    for (int i = 0; i < m; i++) Q[i * m + j] = e[i];
  }
}

static int test_qr_random(void) {
  unsigned long long s = 51;
  double A[(NMAX + 8) * NMAX], QR[(NMAX + 8) * NMAX], Q[(NMAX + 8) * (NMAX + 8)], tau[NMAX];
  double b[NMAX + 8], c[NMAX + 8], x[NMAX], N[NMAX * NMAX], r[NMAX + 8];
  for (int n = 1; n <= 12; n++)
    for (int extra = 0; extra <= 8; extra += 4) {
      int m = n + extra;
      rand_mat(&s, m, n, A);
      memcpy(QR, A, sizeof(double) * (size_t)(m * n));
      int rank = -1;
      ENSURE(nh_la_qr(m, n, QR, tau, 0.0, &rank) == NH_OK);
      ENSURE(rank == n);
      /* Q^T Q = I */
      qr_form_q(m, n, QR, tau, Q);
      double e = 0.0;
      for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
          double t = 0.0;
          for (int k = 0; k < m; k++) t += Q[k * m + i] * Q[k * m + j];
          if (fabs(t - (i == j)) > e) e = fabs(t - (i == j));
        }
      ENSURE(track("qr: |Q^T Q - I|", e) < 1e-14);
      /* Q R = A */
      e = 0.0;
      for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
          double t = 0.0;
          for (int k = 0; k <= j; k++) t += Q[i * m + k] * QR[k * n + j];
          if (fabs(t - A[i * n + j]) > e) e = fabs(t - A[i * n + j]);
        }
      ENSURE(track("qr: |Q R - A| / |A|", e / mat_norm_inf(m, n, A)) < 1e-14);
      /* Q^T then Q is the identity */
      rand_mat(&s, 1, m, b);
      memcpy(c, b, sizeof(double) * (size_t)m);
      nh_la_qr_qt(m, n, QR, tau, c);
      nh_la_qr_q(m, n, QR, tau, c);
      ENSURE(track("qr: |Q Q^T b - b|", max_abs_diff(m, b, c)) < 1e-14);
      /* least squares: the residual is orthogonal to range(A), and x solves the normal
       * equations (checked with an independent Cholesky of A^T A) */
      memcpy(c, b, sizeof(double) * (size_t)m);
      ENSURE(nh_la_qr_solve(m, n, QR, tau, c, 0.0) == NH_OK);
      memcpy(x, c, sizeof(double) * (size_t)n);
      nh_la_gemv(m, n, A, x, r);
      for (int i = 0; i < m; i++) r[i] -= b[i];
      nh_la_gemv_t(m, n, A, r, c); /* A^T r */
      ENSURE(track("qr: |A^T (A x - b)| / (|A|^2 |x| + |A||b|)",
                   nh_la_norm_inf(n, c) / (mat_norm_inf(m, n, A) * (mat_norm_inf(m, n, A) * nh_la_norm_inf(n, x) + nh_la_norm_inf(m, b)))) < 1e-15);
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          double t = 0.0;
          for (int k = 0; k < m; k++) t += A[k * n + i] * A[k * n + j];
          N[i * n + j] = t;
        }
      nh_la_gemv_t(m, n, A, b, c);
      ENSURE(nh_la_chol(n, N, 0.0, NULL) == NH_OK);
      nh_la_chol_solve(n, N, c);
      ENSURE(track("qr: least squares vs normal equations (rel)",
                   max_abs_diff(n, x, c) / nh_la_norm_inf(n, x)) < 1e-8); /* cond^2 eps */
    }
  /* a column that is already triangular (tau = 0) and a zero column */
  double Z[6] = {2.0, 1.0, 0.0, 0.0, 0.0, 3.0}, zt[2]; /* 3 x 2, column 0 = (2, 0, 0) */
  int rank = -1;
  ENSURE(nh_la_qr(3, 2, Z, zt, 0.0, &rank) == NH_OK);
  ENSURE(zt[0] == 0.0 && Z[0] == 2.0 && rank == 2);
  double Y[6] = {0.0, 1.0, 0.0, 2.0, 0.0, 3.0}, yt[2];
  ENSURE(nh_la_qr(3, 2, Y, yt, 0.0, &rank) == NH_OK);
  ENSURE(rank == 1);
  double yb[3] = {1.0, 1.0, 1.0};
  ENSURE(nh_la_qr_solve(3, 2, Y, yt, yb, 0.0) == NH_ERR_SINGULAR);
  return 0;
}

static int test_qr_rank(void) {
  unsigned long long s = 52;
  double A[(NMAX + 4) * NMAX], B[(NMAX + 4) * NMAX], C[NMAX * NMAX], tau[NMAX], b[NMAX + 4];
  for (int n = 2; n <= 12; n++)
    for (int r = 1; r < n; r++)
      for (int extra = 0; extra <= 4; extra += 2) {
        int m = n + extra;
        /* no column pivoting: the independent columns come first (C = [C1 C2], C1
         * diagonally dominant) */
        rand_mat(&s, m, r, B);
        rand_mat(&s, r, n, C);
        for (int i = 0; i < r; i++) C[i * n + i] += 3.0;
        nh_la_gemm(m, r, n, B, C, A);
        int rank = -1;
        ENSURE(nh_la_qr(m, n, A, tau, 0.0, &rank) == NH_OK);
        ENSURE(rank == r);
        for (int i = 0; i < m; i++) b[i] = 1.0;
        ENSURE(nh_la_qr_solve(m, n, A, tau, b, 0.0) == NH_ERR_SINGULAR);
      }
  /* dependent columns first: columns 0 and 1 equal, column 2 independent */
  double D[12] = {1, 1, 0, 2, 2, 1, 3, 3, 0, 4, 4, 5};
  int rank = -1;
  ENSURE(nh_la_qr(4, 3, D, tau, 0.0, &rank) == NH_OK);
  ENSURE(rank == 2);
  return 0;
}

static int test_qr_hilbert(void) {
  /* tall Hilbert-like matrices H(m x n), i + j + 1: an ill-conditioned least squares
   * problem with a consistent right-hand side */
  double A[16 * 10], QR[16 * 10], tau[10], b[16], xt[10];
  for (int n = 6; n <= 10; n++) {
    int m = n + 4;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) A[i * n + j] = 1.0 / (i + j + 1);
    memcpy(QR, A, sizeof(double) * (size_t)(m * n));
    int rank = -1;
    nh_la_qr(m, n, QR, tau, 1e-30, &rank);
    ENSURE(rank == n);
    for (int j = 0; j < n; j++) xt[j] = 1.0;
    nh_la_gemv(m, n, A, xt, b);
    double b0[16];
    memcpy(b0, b, sizeof b);
    ENSURE(nh_la_qr_solve(m, n, QR, tau, b, 1e-30) == NH_OK);
    ENSURE(track("qr: Hilbert residual", rel_residual(m, n, A, b, b0)) < 1e-15);
    double fe = max_abs_diff(n, b, xt);
    /* the square Hilbert condition number bounds the tall one's within a small factor */
    ENSURE(track("qr: Hilbert forward err / (cond eps)", fe / (hilbert_cond(n) * DBL_EPSILON)) < 10.0);
  }
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_blas);
  RUN_TEST(test_chol_random);
  RUN_TEST(test_chol_mat);
  RUN_TEST(test_chol_hilbert);
  RUN_TEST(test_chol_rank);
  RUN_TEST(test_chol_diag);
  RUN_TEST(test_ldlt_random);
  RUN_TEST(test_ldlt_rank);
  RUN_TEST(test_ldlt_hilbert);
  RUN_TEST(test_lu_random);
  RUN_TEST(test_lu_bitwise);
  RUN_TEST(test_lu_recip);
  RUN_TEST(test_lu_det);
  RUN_TEST(test_lu_singular);
  RUN_TEST(test_lu_hilbert);
  RUN_TEST(test_qr_random);
  RUN_TEST(test_qr_rank);
  RUN_TEST(test_qr_hilbert);
  printf("largest errors seen:\n");
  for (int i = 0; i < nerrs; i++) printf("  %-50s %.3e\n", errs[i].name, errs[i].max);
  return TEST_SUMMARY();
}
