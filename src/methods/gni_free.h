/* gni_free.h - gni's free-motion kernel in the library (included by gni.c only). Its
 * statements are src/lang/gni_kernel.h, the one source that a model file's C is also
 * compiled from (src/lang/codegen_gni.c): eq. 14 of Kobilarov, de Diego & Ferraro in velocity
 * form for a constant M, no forces and no potential, one or two constraints and n <= 6, on
 * local vectors. Here: its hooks (the model's constraint, G^-1 formed per step) and what a
 * kernel step or run takes from and leaves in the workspace; one step (gni_free_tail) or a
 * run of equal steps (gni_advance_k, nh_method.advance). */
#ifndef NH_GNI_FREE_H
#define NH_GNI_FREE_H

#include <math.h>
#include <string.h>

#include "methods/vi.h"

/* the kernel's context: the model (its constraint) and the workspace (a scratch velocity) */
typedef struct gni_ctx {
  const nh_model *mo;
  vi_ws *w;
} gni_ctx;

/* G^-1 of a G formed at each step: chol_inverse's test and 1/G for one constraint (its factor
 * sqrt(G) when stored, gni_proj_store), chol_inverse for two */
VI_INLINE int gni_gram_inverse(const int m, double *G, double *Gi) {
  if (m != 1) return chol_inverse(m, G, Gi);
  if (!(G[0] > VI_PIVOT_TOL * G[0]) || !(G[0] > 0.0)) return NH_ERR_SINGULAR;
  Gi[0] = 1.0 / G[0];
  return 0;
}

#define GK_CTX const gni_ctx *
#define GK_CONSTRAINT(ctx, q, A) nh_cb((ctx)->mo->constraint(q, (ctx)->w->tmp2, A, NULL, (ctx)->mo->user))
#define GK_GRAM_INVERSE(ctx, m, G, Gi) gni_gram_inverse(m, G, Gi)
#include "lang/gni_kernel.h"

/* The kernel's projector at q_k+1 (gk_step): A, W = M^-1 A^T, G (its factor) and Gi = G^-1,
 * as proj_setup_k forms them but for two shortcuts: with a diagonal M^-1 W_i = d_i A_i
 * without the 0.0 + that makes -0 into +0 (W only enters dot products that start from +0,
 * where the sign of a zero term changes nothing), and with one constraint G = A W without the
 * leading 0.0 + (which differs only for G = +-0, singular either way): both shorten the chain
 * from the constraint to the next step. The momenta p+ = M v and Q^T p+ = A^T c that the
 * general step carries lie off that path (gni_carry). The momentum form (v = M^-1 (p+ + a Q^T
 * p+), vi_tail_k) is the same map; the two differ by round-off
 * (test_gni_fast_path_equals_general). A model whose G is constant (nh_model.gram_constant,
 * gc) keeps the G^-1 the kernel started from: no G, no division on the path (test_gram_gni). */
typedef struct gni_proj {
  double A[12], W[12], G[4], Gi[4];
} gni_proj;

/* the next half-step velocity (gk_vhalf's v = u + a W c) from the general step's carried
 * momentum p+ (cin) when it left no velocity form: v = M^-1 (p+ + a Q^T p+), Q^T p+ from the
 * projector at q_k in the workspace */
VI_INLINE void gni_vmom(const vi_ws *w, const int n, const int m, const int diag, double a, const double *p,
                        double *v) {
  double z[6], pm[6];
  qt_k(w, n, m, w->Gi, p, z, 1);
  NH_LA_UNROLL_FULL
  for (int i = 0; i < n; i++) {
    pm[i] = p[i];
    pm[i] += a * z[i];
  }
  mat_fixed(n, diag, w->Minv, pm, v);
}

/* v_k+1/2 of a kernel step from the carried buffer c_in (zvalid: its velocity form) */
VI_INLINE void gni_vin(const vi_ws *w, const int n, const int m, const int diag, double a, const double *cb,
                       const double *W, double *v) {
  if (*w->zvalid == 1.0) gk_vhalf(n, m, a, cb + 2 * n, W, cb + 3 * n, v);
  else gni_vmom(w, n, m, diag, a, cb, v);
}

/* the kernel's G^-1 to start from: the workspace's, at q_k (kept throughout for a constant G) */
VI_INLINE void gni_proj_init(const vi_ws *w, const int m, gni_proj *P) {
  for (int i = 0; i < m * m; i++) P->Gi[i] = w->Gi[i];
}

/* the projector of the kernel's last step into the workspace (A, W, G, Gi: as proj_setup_k;
 * a constant G (gc) leaves the workspace's factor and inverse as they are) */
VI_INLINE void gni_proj_store(vi_ws *w, const int n, const int m, const int gc, const gni_proj *P) {
  for (int i = 0; i < m * n; i++) w->A[i] = P->A[i], w->W[i] = P->W[i];
  if (gc) return;
  for (int i = 0; i < m * m; i++) w->G[i] = P->G[i], w->Gi[i] = P->Gi[i];
  if (m == 1) w->G[0] = sqrt(P->G[0]); /* the factor, as chol_inverse leaves it */
}

/* what a kernel step carries into cout: the general step's p+ = M v (and w->phalf), and with
 * the projector A at q_k+1 (A non-NULL) Q^T p+ = A^T c, v and c (zvalid) */
VI_INLINE void gni_carry(vi_ws *w, const int n, const int m, const int diag, const double *v, const double *c,
                         const double *A) {
  mat_fixed(n, diag, w->M0, v, w->cout);
  nh_la_copy_fixed(n, w->cout, w->phalf);
  *w->zvalid = 0.0;
  if (!A) return;
  NH_LA_UNROLL_FULL
  for (int i = 0; i < n; i++) w->cout[n + i] = gk_comb(n, m, A, c, i);
  nh_la_copy_fixed(n, v, w->cout + 2 * n);
  for (int k = 0; k < m; k++) w->cout[3 * n + k] = c[k];
  *w->zvalid = 1.0;
}

/* gni's kernel step from the end of the last step (vi_resolve: continuing; the carried buffer
 * in w->cin, the projector at q_k in the workspace) */
VI_INLINE int gni_free_tail(nh_stepper *s, vi_ws *w, double t, const double *x0, double h, double *x1, const int n,
                            const int m, const int diag) {
  double v[6], c[2], inv[3];
  gni_proj P;
  const double hin = *w->hin, a = h == hin ? -2.0 : -(1.0 + h / hin);
  const int gc = s->model->gram_constant;
  gni_vin(w, n, m, diag, a, w->cin, w->W, v);
  gni_proj_init(w, m, &P);
  const gni_ctx cx = {s->model, w};
  int rc = gk_step(&cx, n, m, diag, gc, w->M0, w->Minv, h, x0, v, x1, P.A, P.W, P.G, P.Gi, c, x1 + n, inv);
  if (rc) return rc;
  gni_proj_store(w, n, m, gc, &P);
  gni_carry(w, n, m, diag, v, c, P.A);
  *w->pvalid = 1.0;
  s->end_C = inv[0], s->end_E = inv[1], s->end_res = inv[2];
  set_key(w->kout, t + h, x1, 2 * n);
  *w->hout = h;
  vi_end(s, w, w->M0, x1);
  s->end_EA = 1;
  return 0;
}

/* the model's compiled kernel serves this workspace: a constant G, its key (sizes, a diagonal
 * M) and its M, M^-1 the workspace's, bit for bit */
static int gni_compiled(const nh_model *mo, const vi_ws *w, int n) {
  const size_t nn = (size_t)n * n;
  return mo->gram_constant && mo->gni_kernel && mo->gni_kernel_code == w->free &&
         memcmp(mo->gni_kernel_M, w->M0, nn * sizeof(double)) == 0 &&
         memcmp(mo->gni_kernel_M + nn, w->Minv, nn * sizeof(double)) == 0;
}

/* the end of a kernel run of k >= 1 steps (ok: the last attempted step was taken): the state
 * q_k, the last step's v_k+1/2 (u), c and projector A (P, redone at q when a failed step
 * overwrote it) give the nodal velocity, the energies and the carried buffer */
VI_INLINE int gni_advance_end(nh_stepper *s, vi_ws *w, double *x1, nh_advance *ad, const int n, const int m,
                              const int diag, const int gc, long k, int ok, double t, const double *q,
                              const double *u, const double *c, gni_proj *P) {
  int rc;
  nh_la_copy_fixed(n, q, x1);
  if (!ok && (rc = nh_cb(s->model->constraint(q, w->tmp2, P->A, NULL, s->model->user)))) return rc;
  for (int j = 0; j < m; j++) gk_mat(n, diag, w->Minv, P->A + (size_t)j * n, P->W + (size_t)j * n);
  double e[2];
  gk_nodal(n, m, diag, w->M0, u, P->W, c, x1 + n, e); /* as gk_step's */
  ad->C = e[0], ad->E = e[1];
  if (ok) gni_proj_store(w, n, m, gc, P);
  else *w->pvalid = 0.0;
  gni_carry(w, n, m, diag, u, c, ok ? P->A : NULL);
  set_key(w->kout, t, x1, 2 * n);
  w->kin[1] = NAN; /* the state before x1 is not kept */
  s->evals += k;
  ad->t = t;
  return 0;
}

/* gni's kernel over a run of equal steps (nh_method.advance): gk_run, the kernel's steps with
 * what they carry (q, v_k+1/2, c) in locals and the driver's accumulation per step (the last
 * step's energies and nodal velocity are formed once, at the end); the state, the carried
 * buffer and the projector are written once, after the last step (the state before it is
 * not kept: a step from there restarts). A model file compiled with gni's kernel
 * (nh_model.gni_kernel, a constant G) runs the same gk_run there, with its constraint
 * inlined (src/lang/codegen_gni.c). */
VI_INLINE int gni_advance_k(nh_stepper *s, vi_ws *w, const double *x0, double *x1, nh_advance *ad, const int n,
                            const int m, const int diag) {
  const double h = ad->h;
  if (s->restart || *w->pvalid != 1.0 || *w->hout != h || !key_eq(w->kout, ad->t, x0, 2 * n)) return 0;
  double q[6], v[6], c[2] = {0}, Es;
  gni_proj P;
  const nh_model *mo = s->model;
  const int gc = mo->gram_constant;
  const double run[4] = {h, ad->t_end, ad->far, ad->E_seg};
  double acc[5] = {ad->t, ad->dE, ad->rmax, ad->Cmax, ad->Cmin};
  int fail = 0;
  long k;
  nh_la_copy_fixed(n, x0, q);
  gni_vin(w, n, m, diag, -2.0, w->cout, w->W, v); /* as gni_free_tail */
  gni_proj_init(w, m, &P);
  if (gni_compiled(mo, w, n)) { /* compiled with the model */
    k = mo->gni_kernel(P.Gi, run, ad->max, q, v, c, P.A, acc, &fail);
  } else { /* each step tested (the model's constraint is called once per step) */
    const gni_ctx cx = {mo, w};
    k = gk_run(&cx, n, m, diag, gc, 1, w->M0, w->Minv, P.G, P.Gi, run, ad->max, q, v, c, P.A, P.W, acc, &fail, &Es);
  }
  ad->done = k;
  if (k == 0) return 0;
  ad->dE = acc[1], ad->rmax = acc[2], ad->Cmax = acc[3], ad->Cmin = acc[4];
  return gni_advance_end(s, w, x1, ad, n, m, diag, gc, k, !fail, acc[0], q, v, c, &P);
}

#endif
