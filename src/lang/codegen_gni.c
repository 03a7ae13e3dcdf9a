/* codegen_gni.c - gni's free-motion kernel written out with a model's generated C, so that the
 * constraint is inlined into the step and the sizes are constants (issue 18: a GNI step on
 * the sleigh from a model file near the hand-written loop).
 *
 * The kernel is eq. 14 of Kobilarov, de Diego & Ferraro in velocity form for a constant M and
 * a constant G = A M^-1 A^T (nh_model.gram_constant), as src/methods/gni_free.h computes it
 * (gni_kstep and the loop of gni_advance_k):
 *   q_k+1 = q_k + h v,  A = A(q_k+1),  W = M^-1 A^T,  c = G^-1 A v,  v_k+1 = v - W c,
 *   the half-step energy 1/2 v^T M v, E = 1/2 v_k+1^T M v_k+1, max_k |A_k v_k+1|,
 *   the next v = v - 2 W c.
 * It performs the same operations in the same order, so a run gives the same bits as the
 * library's kernel on the tape back end (test_gni_compiled_kernel); a change of either must
 * keep that test passing. M and M^-1 are constants of the C (nh_mf_gni_M, formed here as the
 * library forms them: a Cholesky factor, then its solves); the library runs the kernel only
 * when they equal its own, bit for bit. G^-1 is passed in. The run is first taken without a
 * finiteness test per step and redone with them when it ends non-finite (NaN and infinity
 * stay in q, v, c or the sums to the end), which the library's loop tests at every step.
 *
 * Emitted only for the models gni's kernel serves: the mechanical form, 2..6 coordinates,
 * 1 or 2 constraints, a constant M and G, no potential and no forces. */
#include "lang/mf.h"
#include "expr/text.h"
#include "la/la.h"

/* the C of the kernel for sizes GK_N, GK_M and a diagonal M (GK_DIAG) defined before it, in
 * two strings (each below the 4095 characters C99 promises a string literal) */
static const char gni_kernel_c[] =
    "/* gni's free-motion kernel (src/lang/codegen_gni.c): up to kmax steps of h while\n"
    " * t_end - t > far; q and v (v_k+1/2) in; out q_k, the last step's v and c, its A; acc =\n"
    " * (t, max |E - E_seg|, max |A v|, max and min half-step energy) updated; *fail = 1 when a\n"
    " * step left non-finite numbers (not taken). Returns the steps taken. */\n"
    "#define GK_UNROLL _Pragma(\"GCC unroll 8\")\n"
    "#define GK_INLINE static inline __attribute__((always_inline))\n"
    "GK_INLINE double gk_dot(int n, const double *x, const double *y) {\n"
    "  double s = x[0] * y[0];\n"
    "  GK_UNROLL\n"
    "  for (int i = 1; i < n; i++) s += x[i] * y[i];\n"
    "  return s;\n"
    "}\n"
    "/* M x with M = M or M^-1 (nh_mf_gni_M) */\n"
    "GK_INLINE void gk_mat(const double *M, const double *x, double *y) {\n"
    "  GK_UNROLL\n"
    "  for (int i = 0; i < GK_N; i++) y[i] = GK_DIAG ? M[i * (GK_N + 1)] * x[i] : gk_dot(GK_N, M + i * GK_N, x);\n"
    "}\n"
    "/* (X^T c)_i over the constraint rows of X */\n"
    "GK_INLINE double gk_comb(const double *X, const double *c, int i) {\n"
    "  double s = c[0] * X[i];\n"
    "  GK_UNROLL\n"
    "  for (int k = 1; k < GK_M; k++) s += c[k] * X[k * GK_N + i];\n"
    "  return s;\n"
    "}\n"
    "static int gk_finite(int n, const double *x) {\n"
    "  for (int i = 0; i < n; i++)\n"
    "    if (!isfinite(x[i])) return 0;\n"
    "  return 1;\n"
    "}\n"
    "";
static const char gni_kernel_run_c[] =
    "/* the steps; with check, each step's q_k+1 and E are tested (as the library does) and the\n"
    " * first non-finite one ends the run untaken; without, Es sums E (a non-finite E or q\n"
    " * stays non-finite to the end, where the caller looks) */\n"
    "GK_INLINE long gk_run(const int check, const double *restrict Gi, const double *restrict run, long kmax,\n"
    "                      double *restrict q, double *restrict v, double *restrict c, double *restrict Aout,\n"
    "                      double *restrict acc, int *restrict fail, double *restrict Es) {\n"
    "  const double *const M0 = nh_mf_gni_M[0], *const Mi = nh_mf_gni_M[1];\n"
    "  const double h = run[0], tend = run[1], far = run[2], Eseg = run[3];\n"
    "  double t = acc[0], dE = acc[1], rmax = acc[2], Cmax = acc[3], Cmin = acc[4], Esum = 0.0;\n"
    "  double qq[GK_N], vv[GK_N], u[GK_N], cc[GK_M], A[GK_M * GK_N], W[GK_M * GK_N];\n"
    "  GK_UNROLL\n"
    "  for (int i = 0; i < GK_N; i++) qq[i] = q[i], vv[i] = v[i], u[i] = 0.0;\n"
    "  GK_UNROLL\n"
    "  for (int k = 0; k < GK_M; k++) cc[k] = 0.0;\n"
    "  GK_UNROLL\n"
    "  for (int i = 0; i < GK_M * GK_N; i++) A[i] = 0.0; /* (Aout of a run of no step) */\n"
    "  long k = 0;\n"
    "  *fail = 0;\n"
    "  while (tend - t > far && k < kmax) {\n"
    "    double qn[GK_N], zl[GK_M], cn[GK_M], v1[GK_N], tt[GK_N], ac[GK_M];\n"
    "    GK_UNROLL\n"
    "    for (int i = 0; i < GK_N; i++) qn[i] = qq[i] + h * vv[i];\n"
    "    nh_mf_a(qn, A, 0);\n"
    "    GK_UNROLL\n"
    "    for (int j = 0; j < GK_M; j++) gk_mat(Mi, A + j * GK_N, W + j * GK_N);\n"
    "    GK_UNROLL\n"
    "    for (int j = 0; j < GK_M; j++) zl[j] = gk_dot(GK_N, A + j * GK_N, vv);\n"
    "    GK_UNROLL\n"
    "    for (int j = 0; j < GK_M; j++) cn[j] = gk_dot(GK_M, Gi + j * GK_M, zl);\n"
    "    GK_UNROLL\n"
    "    for (int i = 0; i < GK_N; i++) v1[i] = vv[i] - gk_comb(W, cn, i);\n"
    "    gk_mat(M0, vv, tt);\n"
    "    const double C = 0.5 * gk_dot(GK_N, vv, tt);\n"
    "    gk_mat(M0, v1, tt);\n"
    "    const double E = 0.5 * gk_dot(GK_N, v1, tt) + 0.0;\n"
    "    double res = 0.0;\n"
    "    GK_UNROLL\n"
    "    for (int j = 0; j < GK_M; j++) {\n"
    "      double r = fabs(gk_dot(GK_N, A + j * GK_N, v1));\n"
    "      if (r > res) res = r;\n"
    "    }\n"
    "    if (check && !(gk_finite(GK_N, qn) && isfinite(E))) {\n"
    "      *fail = 1;\n"
    "      break;\n"
    "    }\n"
    "    Esum += E;\n"
    "    GK_UNROLL\n"
    "    for (int i = 0; i < GK_N; i++) qq[i] = qn[i], u[i] = vv[i];\n"
    "    GK_UNROLL\n"
    "    for (int j = 0; j < GK_M; j++) cc[j] = cn[j], ac[j] = -2.0 * cn[j];\n"
    "    GK_UNROLL\n"
    "    for (int i = 0; i < GK_N; i++) vv[i] = u[i] + gk_comb(W, ac, i);\n"
    "    t = t + h;\n"
    "    k++;\n"
    "    const double d = fabs(E - Eseg);\n"
    "    if (d > dE) dE = d;\n"
    "    if (res > rmax) rmax = res;\n"
    "    if (C > Cmax) Cmax = C;\n"
    "    if (C < Cmin) Cmin = C;\n"
    "  }\n"
    "  GK_UNROLL\n"
    "  for (int i = 0; i < GK_N; i++) q[i] = qq[i], v[i] = u[i];\n"
    "  GK_UNROLL\n"
    "  for (int j = 0; j < GK_M; j++) c[j] = cc[j];\n"
    "  GK_UNROLL\n"
    "  for (int i = 0; i < GK_M * GK_N; i++) Aout[i] = A[i];\n"
    "  acc[0] = t, acc[1] = dE, acc[2] = rmax, acc[3] = Cmax, acc[4] = Cmin;\n"
    "  *Es = Esum;\n"
    "  return k;\n"
    "}\n"
    "/* the run without tests, redone with them when it ended non-finite (a rare run: twice the\n"
    " * work, the same result as testing every step) */\n"
    "long nh_mf_gni_free(const double *restrict Gi, const double *restrict run, long kmax, double *restrict q,\n"
    "                    double *restrict v, double *restrict c, double *restrict Aout, double *restrict acc,\n"
    "                    int *restrict fail) {\n"
    "  double q0[GK_N], v0[GK_N], acc0[5], Es;\n"
    "  for (int i = 0; i < GK_N; i++) q0[i] = q[i], v0[i] = v[i];\n"
    "  for (int i = 0; i < 5; i++) acc0[i] = acc[i];\n"
    "  long k = gk_run(0, Gi, run, kmax, q, v, c, Aout, acc, fail, &Es);\n"
    "  if (gk_finite(GK_N, q) && gk_finite(GK_N, v) && gk_finite(GK_M, c) && gk_finite(5, acc) && isfinite(Es))\n"
    "    return k;\n"
    "  for (int i = 0; i < GK_N; i++) q[i] = q0[i], v[i] = v0[i];\n"
    "  for (int i = 0; i < 5; i++) acc[i] = acc0[i];\n"
    "  return gk_run(1, Gi, run, kmax, q, v, c, Aout, acc, fail, &Es);\n"
    "}\n";

int mf_gni_kernel_code(const mf *m) {
  const int n = m->nq, nc = m->nc;
  if (m->poisson || nc < 1 || nc > 2 || n < 2 || n > 6 || mf_provides(m, MF_FN_potential) ||
      mf_provides(m, MF_FN_force) || !mf_gram_constant(m))
    return 0;
  int diag = 1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (i != j && !mf_is_zero(m, m->M[i * n + j])) diag = 0;
  return 1 + (((n - 2) * 2 + (nc - 1)) * 2 + diag); /* as gni.c's free_code */
}

/* M (the constants of a constant M) and M^-1 as the library forms it (vi.h, mass_factor):
 * 0, or -1 when M is not positive definite (no kernel then) */
static int mass_and_inverse(const mf *m, double *M, double *Mi) {
  const int n = m->nq;
  double L[36];
  for (int i = 0; i < n * n; i++)
    if (!nh_expr_is_const(m->pool, m->M[i], &M[i])) return -1;
  for (int i = 0; i < n * n; i++) L[i] = M[i];
  if (nh_la_chol(n, L, 0.0, NULL) != 0) return -1;
  const int ldiag = nh_la_lower_zero(n, L);
  for (int j = 0; j < n; j++) {
    double *col = Mi + j * n;
    for (int i = 0; i < n; i++) col[i] = i == j;
    if (ldiag) nh_la_diag_solve(n, L, col);
    else nh_la_chol_solve(n, L, col);
  }
  return 0;
}

void mf_codegen_gni(nh_text *b, const mf *m) {
  const int code = mf_gni_kernel_code(m), n = m->nq;
  double M[36], Mi[36];
  if (!code || mass_and_inverse(m, M, Mi)) return;
  const int diag = (code - 1) % 2;
  nh_text_printf(b, "\n#define GK_N %d\n#define GK_M %d\n#define GK_DIAG %d\n", n, m->nc, diag);
  nh_text_printf(b, "const double nh_mf_gni_M[2][%d] = {{", n * n);
  for (int i = 0; i < n * n; i++) nh_text_printf(b, "%s%a", i ? ", " : "", M[i]);
  nh_text_printf(b, "}, {");
  for (int i = 0; i < n * n; i++) nh_text_printf(b, "%s%a", i ? ", " : "", Mi[i]);
  nh_text_printf(b, "}};\n%s%sconst int nh_mf_gni_free_code = %d;\n", gni_kernel_c, gni_kernel_run_c, code);
}
