/* gni_kernel.h - gni's free-motion kernel, its one source: compiled into the library by
 * src/methods/gni.c (through gni_free.h) and written, as this file's text, into the C of a
 * model file by src/lang/codegen_gni.c (the build embeds it: gni_kernel_text.h), where the
 * constraint is inlined and the sizes are constants. The same statements in both, so a run
 * gives the same bits in both (test_mass_constant: test_gni_kernel_sleigh, _models).
 *
 * Eq. 14 of Kobilarov, de Diego & Ferraro (gni, spec 001 A5) in velocity form for a constant
 * M (M^-1 = Mi), no forces and no potential, m = 1 or 2 constraints and n <= 6: with the
 * half-step velocity v = v_k+1/2,
 *   q_k+1 = q_k + h v,  A = A(q_k+1),  W = M^-1 A^T,  c = G^-1 A v  (G = A W),
 *   v_k+1 = v - W c                         (= M^-1 P^T M v, eq. 15),
 *   v_k+3/2 = v - 2 W c                     (eq. 14: (Id - 2Q) v, Q v = W c),
 * and the invariants the driver reports: the half-step energy 1/2 v^T M v, E(q_k+1, v_k+1) and
 * max_k |A_k v_k+1|. A constant G (gc) keeps the G^-1 the kernel started from.
 *
 * Plain C99 with <math.h> only. An includer that wants the kernel (not only GK_SHAPE) defines
 * before this header:
 *   GK_CTX                          the type of the context the two hooks receive
 *   GK_CONSTRAINT(ctx, q, A)        the constraint rows A(q) (m x n, by rows) into A: an int,
 *                                   0 or a status
 *   GK_GRAM_INVERSE(ctx, m, G, Gi)  Gi = G^-1 for G = A W formed at each step (gc = 0; G may
 *                                   be left as its factor): an int, 0 or a status
 * The sizes n, m and a diagonal M (diag) are arguments, constants where the kernel is
 * instantiated (the functions are inlined there). */
#ifndef NH_GNI_KERNEL_H
#define NH_GNI_KERNEL_H

/* the key of the kernel's shapes: n = 2..6 coordinates, m = 1, 2 constraints, a diagonal M
 * (gni.c's free_code, and a model file's compiled kernel, nh_mf_gni_free_code) */
#define GK_SHAPE(n, m, diag) (1 + (((n) - 2) * 2 + (m) - 1) * 2 + (diag))

#ifdef GK_CTX
#include <math.h>

#if defined(__clang__)
#define GK_INLINE static inline __attribute__((always_inline))
#define GK_UNROLL _Pragma("unroll 8")
#elif defined(__GNUC__)
#define GK_INLINE static inline __attribute__((always_inline))
#define GK_UNROLL _Pragma("GCC unroll 8")
#else
#define GK_INLINE static inline
#define GK_UNROLL
#endif
#define GK_NMAX 6 /* the kernel's largest n (coordinates) */
#define GK_MMAX 2 /* and m (constraints) */

/* x . y, and M x (M or M^-1, n x n, or its diagonal when diag), from their first term (no +0
 * first: an add less on the path, the same value but for the sign of a zero sum) */
GK_INLINE double gk_dot(const int n, const double *x, const double *y) {
  double s = x[0] * y[0];
  GK_UNROLL
  for (int i = 1; i < n; i++) s += x[i] * y[i];
  return s;
}
GK_INLINE void gk_mat(const int n, const int diag, const double *M, const double *x, double *y) {
  GK_UNROLL
  for (int i = 0; i < n; i++) y[i] = diag ? M[i * (n + 1)] * x[i] : gk_dot(n, M + i * n, x);
}

/* (X^T c)_i = sum_k c_k X_k,i over the m rows of X (n each): W c, A^T c */
GK_INLINE double gk_comb(const int n, const int m, const double *X, const double *c, int i) {
  double s = c[0] * X[i];
  GK_UNROLL
  for (int k = 1; k < m; k++) s += c[k] * X[k * n + i];
  return s;
}

/* all of x finite: their sum is (one test; a sum that overflows is looked at term by term) */
GK_INLINE int gk_finite(const int n, const double *x) {
  double z = 0.0;
  GK_UNROLL
  for (int i = 0; i < n; i++) z += x[i];
  if (z - z == 0.0) return 1;
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* the next half-step velocity v = u + a W c (a = -2: eq. 14; -(1 + h/h_k-1) for a step of
 * another length than the last) */
GK_INLINE void gk_vhalf(const int n, const int m, double a, const double *u, const double *W, const double *c,
                        double *v) {
  double ac[GK_MMAX];
  GK_UNROLL
  for (int k = 0; k < m; k++) ac[k] = a * c[k];
  GK_UNROLL
  for (int i = 0; i < n; i++) v[i] = u[i] + gk_comb(n, m, W, ac, i);
}

/* the nodal velocity v1 = v - W c, the half-step energy 1/2 v^T M v (e[0]) and
 * E = 1/2 v1^T M v1 + 0 (e[1], V = 0) */
GK_INLINE void gk_nodal(const int n, const int m, const int diag, const double *M0, const double *v,
                        const double *W, const double *c, double *v1, double *e) {
  double t[GK_NMAX];
  GK_UNROLL
  for (int i = 0; i < n; i++) v1[i] = v[i] - gk_comb(n, m, W, c, i);
  gk_mat(n, diag, M0, v, t);
  e[0] = 0.5 * gk_dot(n, v, t);
  gk_mat(n, diag, M0, v1, t);
  e[1] = 0.5 * gk_dot(n, v1, t) + 0.0;
}

/* One step from q (q_k) with v (v_k+1/2): qn = q_k+1, A, W (and G, Gi when !gc) at q_k+1, c,
 * v1 = v_k+1 and inv = (1/2 v^T M v, E, max_k |A_k v1|); 0 or the status of a hook. The path
 * from one step to the next is v -> q_k+1 -> A -> c -> the next v; A v is formed beside G
 * (both wait on A only). */
GK_INLINE int gk_step(GK_CTX ctx, const int n, const int m, const int diag, const int gc, const double *M0,
                      const double *Mi, double h, const double *q, const double *v, double *qn, double *A,
                      double *W, double *G, double *Gi, double *c, double *v1, double *inv) {
  double zl[GK_MMAX];
  int rc;
  GK_UNROLL
  for (int i = 0; i < n; i++) qn[i] = q[i] + h * v[i];
  if ((rc = GK_CONSTRAINT(ctx, qn, A))) return rc;
  GK_UNROLL
  for (int k = 0; k < m; k++) gk_mat(n, diag, Mi, A + k * n, W + k * n);
  GK_UNROLL
  for (int k = 0; k < m; k++) zl[k] = gk_dot(n, A + k * n, v);
  if (!gc) {
    for (int i = 0; i < m; i++)
      for (int j = 0; j < m; j++) G[i * m + j] = gk_dot(n, A + i * n, W + j * n);
    if ((rc = GK_GRAM_INVERSE(ctx, m, G, Gi))) return rc;
  }
  GK_UNROLL
  for (int k = 0; k < m; k++) c[k] = gk_dot(m, Gi + k * m, zl);
  gk_nodal(n, m, diag, M0, v, W, c, v1, inv);
  double res = 0.0;
  GK_UNROLL
  for (int k = 0; k < m; k++) {
    double r = fabs(gk_dot(n, A + k * n, v1));
    if (r > res) res = r;
  }
  inv[2] = res;
  return 0;
}

/* Up to kmax steps of h = run[0] while run[1] - t > run[2] (t_end, far), from q (q_k) and v
 * (v_k+1/2), with the driver's accumulation per step in acc = (t, max |E - run[3]| (E_seg),
 * max |A v|, max and min half-step energy). Out: q, the last step's v_k+1/2 (in v), its c, A,
 * W (and G, Gi when !gc), and *fail = 1 when the step after them was not taken: a hook's
 * status, or (with check) a non-finite q_k+1 or E. Without check, the sum of E in *Es: a
 * non-finite number stays in q, v, c, acc or *Es to the end, where the caller can look.
 * Returns the steps taken. (No restrict: with it gcc packs the 3-vectors of the library's
 * loop in pairs, 2 ns a step slower on the sleigh.) */
GK_INLINE long gk_run(GK_CTX ctx, const int n, const int m, const int diag, const int gc, const int check,
                      const double *M0, const double *Mi, double *G, double *Gi, const double *run, long kmax,
                      double *q, double *v, double *c, double *A, double *W, double *acc, int *fail, double *Es) {
  const double h = run[0], tend = run[1], far = run[2], Eseg = run[3];
  double t = acc[0], dE = acc[1], rmax = acc[2], Cmax = acc[3], Cmin = acc[4], Esum = 0.0;
  double qq[GK_NMAX], vv[GK_NMAX], u[GK_NMAX], cc[GK_MMAX];
  GK_UNROLL
  for (int i = 0; i < n; i++) qq[i] = q[i], vv[i] = v[i], u[i] = 0.0;
  GK_UNROLL
  for (int k = 0; k < m; k++) cc[k] = 0.0;
  long k = 0;
  *fail = 0;
  while (tend - t > far && k < kmax) {
    double qn[GK_NMAX], cn[GK_MMAX], v1[GK_NMAX], inv[3];
    if (gk_step(ctx, n, m, diag, gc, M0, Mi, h, qq, vv, qn, A, W, G, Gi, cn, v1, inv) ||
        (check && !(gk_finite(n, qn) && isfinite(inv[1])))) {
      *fail = 1; /* (E finite: v_k+1 is, M being positive definite) */
      break;
    }
    if (!check) Esum += inv[1];
    GK_UNROLL
    for (int i = 0; i < n; i++) qq[i] = qn[i], u[i] = vv[i];
    GK_UNROLL
    for (int j = 0; j < m; j++) cc[j] = cn[j];
    gk_vhalf(n, m, -2.0, u, W, cc, vv); /* the next step's v_k+1/2 */
    t = t + h;
    k++;
    // the driver's accumulation (accept_step, half_step_energy)
    const double d = fabs(inv[1] - Eseg);
    if (d > dE) dE = d;
    if (inv[2] > rmax) rmax = inv[2];
    if (inv[0] > Cmax) Cmax = inv[0];
    if (inv[0] < Cmin) Cmin = inv[0];
  }
  GK_UNROLL
  for (int i = 0; i < n; i++) q[i] = qq[i], v[i] = u[i];
  GK_UNROLL
  for (int j = 0; j < m; j++) c[j] = cc[j];
  acc[0] = t, acc[1] = dE, acc[2] = rmax, acc[3] = Cmax, acc[4] = Cmin;
  *Es = Esum;
  return k;
}

#endif /* GK_CTX */
#endif
