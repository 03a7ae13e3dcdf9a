/* codegen_gni.c - gni's free-motion kernel written out with a model's generated C, so that the
 * constraint is inlined into the step and the sizes are constants (issue 18: a GNI step on
 * the sleigh from a model file near the hand-written loop).
 *
 * The kernel is eq. 14 of Kobilarov, de Diego & Ferraro in velocity form for a constant M and
 * a constant G = A M^-1 A^T (nh_model.gram_constant). Its statements have one source,
 * src/lang/gni_kernel.h, which the library compiles (src/methods/gni_free.h) and which is
 * written here as text (the build embeds it: gni_kernel_text.h), with the hooks it asks for:
 * the constraint the model's generated nh_mf_a, and a constant G (no G^-1 formed). M and
 * M^-1 are constants of the C (nh_mf_gni_M, formed here as the library forms them: a Cholesky
 * factor, then its solves); the library runs the kernel only when they equal its own, bit for
 * bit. G^-1 is passed in. The run is first taken without a finiteness test per step and redone
 * with them when it ends non-finite (NaN and infinity stay in q, v, c or the sums to the end),
 * which the library's run tests at every step: the same result.
 *
 * Emitted only for the models gni's kernel serves: the mechanical form, 2..6 coordinates,
 * 1 or 2 constraints, a constant M and G, no potential and no forces. */
#include "lang/mf.h"
#include "expr/text.h"
#include "la/la.h"
#include "model/metric.h"
#include "lang/gni_kernel.h" /* GK_SHAPE (the kernel itself goes in as text) */
/* gni_kernel_text[]: the bytes of src/lang/gni_kernel.h, written into the build tree by
 * CMakeLists.txt (setup.py for the Python package) */
#include "gni_kernel_text.h"

/* the kernel's hooks in the model's C, before its text */
static const char gni_hooks_c[] =
    "\n/* gni's free-motion kernel (src/lang/gni_kernel.h, src/lang/codegen_gni.c) */\n"
    "#define GK_CTX int\n"
    "#define GK_CONSTRAINT(ctx, q, A) ((void)(ctx), nh_mf_a(q, A, 0))\n"
    "#define GK_GRAM_INVERSE(ctx, m, G, Gi) 0 /* G constant: not formed */\n";

/* the model's entry (nh_gni_kernel_fn) for sizes GK_N, GK_M and a diagonal M (GK_DIAG)
 * defined before it: up to kmax steps of h = run[0] while run[1] - t > run[2], q and v
 * (v_k+1/2) in; out q_k, the last step's v, c and A; acc updated; *fail = 1 when a step left
 * non-finite numbers (not taken). Returns the steps taken. */
static const char gni_entry_c[] =
    "/* gk_run without tests, redone with them when it ended non-finite (a rare run: twice the\n"
    " * work, the same result as testing every step) */\n"
    "long nh_mf_gni_free(const double *restrict Gi, const double *restrict run, long kmax, double *restrict q,\n"
    "                    double *restrict v, double *restrict c, double *restrict Aout, double *restrict acc,\n"
    "                    int *restrict fail) {\n"
    "  const double *const M0 = nh_mf_gni_M[0], *const Mi = nh_mf_gni_M[1];\n"
    "  double q0[GK_N], v0[GK_N], acc0[5], A[GK_M * GK_N] = {0}, W[GK_M * GK_N], G[GK_M * GK_M], Gk[GK_M * GK_M], Es;\n"
    "  for (int i = 0; i < GK_N; i++) q0[i] = q[i], v0[i] = v[i];\n"
    "  for (int i = 0; i < 5; i++) acc0[i] = acc[i];\n"
    "  for (int i = 0; i < GK_M * GK_M; i++) Gk[i] = Gi[i];\n"
    "  long k = gk_run(0, GK_N, GK_M, GK_DIAG, 1, 0, M0, Mi, G, Gk, run, kmax, q, v, c, A, W, acc, fail, &Es);\n"
    "  if (!(gk_finite(GK_N, q) && gk_finite(GK_N, v) && gk_finite(GK_M, c) && gk_finite(5, acc) && isfinite(Es))) {\n"
    "    for (int i = 0; i < GK_N; i++) q[i] = q0[i], v[i] = v0[i];\n"
    "    for (int i = 0; i < 5; i++) acc[i] = acc0[i];\n"
    "    k = gk_run(0, GK_N, GK_M, GK_DIAG, 1, 1, M0, Mi, G, Gk, run, kmax, q, v, c, A, W, acc, fail, &Es);\n"
    "  }\n"
    "  for (int i = 0; i < GK_M * GK_N; i++) Aout[i] = A[i];\n"
    "  return k;\n"
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
  return GK_SHAPE(n, nc, diag); /* as gni.c's free_code */
}

/* M (the constants of a constant M) and M^-1 as the library forms it (vi.h, mass_factor):
 * 0, or -1 when M is not positive definite (no kernel then) */
static int mass_and_inverse(const mf *m, double *M, double *Mi) {
  const int n = m->nq;
  double L[36];
  for (int i = 0; i < n * n; i++)
    if (!nh_expr_is_const(m->pool, m->M[i], &M[i])) return -1;
  nh_metric mt;
  nh_metric_init(&mt, n, 0, L, NULL);
  if (nh_metric_factor(&mt, M) != NH_OK) return -1;
  nh_metric_inverse(&mt, Mi);
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
  nh_text_printf(b, "}};\n%s%s%sconst int nh_mf_gni_free_code = %d;\n", gni_hooks_c, gni_kernel_text, gni_entry_c, code);
}
