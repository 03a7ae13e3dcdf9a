/* gni_free.h - gni's free-motion kernel (included by gni.c only): eq. 14 of Kobilarov, de
 * Diego & Ferraro in velocity form for a constant M, no forces and no potential, one or two
 * constraints and n <= 6, on local vectors; one step (gni_free_tail) or a run of equal steps
 * (gni_advance_k, nh_method.advance), in the library or compiled with a model file's C
 * (src/lang/codegen_gni.c, the same operations). */
#ifndef NH_GNI_FREE_H
#define NH_GNI_FREE_H

#include <math.h>
#include <string.h>

#include "methods/vi.h"


/* One step of the free-motion kernel (no forces, no potential, constant M with M^-1 = Mi,
 * diagonal when diag; m = 1 or 2 constraints, n <= 6; n, m, diag constants) on local vectors,
 * in the velocity form of eq. 14 for constant M: with the half-step velocity v = v_k+1/2 given
 * (gni_vhalf or gni_vmom below),
 *   q_k+1 = q_k + h v (qn),  the projector at q_k+1: A, W = M^-1 A^T, G = A W (its factor) and
 *   Gi = G^-1,  c = Gi A v (so Q v = W c),  v_k+1 = v - W c (v1, = M^-1 P^T M v, eq. 15),
 * the half-step energy 1/2 v^T M v, E(q_k+1, v_k+1) and max_k |A_k v_k+1| into inv[0..2]. The
 * path from one step to the next is v -> q_k+1 -> A (the constraint call) -> G^-1, A v -> c ->
 * the next v: the momenta p+ = M v and Q^T p+ = A^T c that the general step carries lie off it
 * (gni_carry). The momentum form (v = M^-1 (p+ + a Q^T p+), vi_tail_k) is the same map; the
 * two differ by round-off (test_gni_fast_path_equals_general). A model whose G is constant
 * (nh_model.gram_constant, gc) keeps the G^-1 the kernel started from: no G, no division on
 * the path (test_gram_gni). */
typedef struct gni_proj {
  double A[12], W[12], G[4], Gi[4];
} gni_proj;

/* the kernel's dot products and M x, from their first term (no +0 first: an add less on the
 * path, the same value but for the sign of a zero sum) */
VI_INLINE double kdot(const int n, const double *x, const double *y) {
  double s = x[0] * y[0];
  NH_LA_UNROLL_FULL
  for (int i = 1; i < n; i++) s += x[i] * y[i];
  return s;
}
VI_INLINE void kmat(const int n, const int diag, const double *M, const double *x, double *y) {
  NH_LA_UNROLL_FULL
  for (int i = 0; i < n; i++) y[i] = diag ? M[(size_t)i * (n + 1)] * x[i] : kdot(n, M + (size_t)i * n, x);
}

/* (X^T c)_i = sum_k c_k X_k,i for the m rows of X (n each): W c, A^T c */
VI_INLINE double kcomb(const int n, const int m, const double *X, const double *c, int i) {
  double s = c[0] * X[i];
  for (int k = 1; k < m; k++) s += c[k] * X[(size_t)k * n + i];
  return s;
}

VI_INLINE int gni_kstep(const nh_model *mo, vi_ws *w, const int n, const int m, const int diag, const int gc,
                        double h, const double *q, const double *v, double *qn, double *c, double *v1, gni_proj *P,
                        double *inv) {
  const double *Mi = w->Minv;
  double t[6];
  NH_LA_UNROLL
  for (int i = 0; i < n; i++) qn[i] = q[i] + h * v[i];
  // the projector at q_k+1, as proj_setup_k forms it but for two shortcuts: with a diagonal
  // M^-1 W_i = d_i A_i without the 0.0 + that makes -0 into +0 (W only enters dot products
  // that start from +0, where the sign of a zero term changes nothing), and with one
  // constraint G = A W without the leading 0.0 + (which differs only for G = +-0, singular
  // either way): both shorten the chain from the constraint to the next step
  int rc = nh_cb(mo->constraint(qn, w->tmp2, P->A, NULL, mo->user));
  if (rc) return rc;
  for (int k = 0; k < m; k++) kmat(n, diag, Mi, P->A + (size_t)k * n, P->W + (size_t)k * n);
  // A v beside G (both wait on A only), then c = G^-1 A v; a constant G (gc) keeps P->Gi
  double zl[2];
  for (int k = 0; k < m; k++) zl[k] = kdot(n, P->A + (size_t)k * n, v);
  for (int i = 0; i < m && !gc; i++)
    for (int j = 0; j < m; j++) P->G[i * m + j] = kdot(n, P->A + (size_t)i * n, P->W + (size_t)j * n);
  if (gc) {
  } else if (m == 1) { /* chol_inverse's test and G^-1; its factor sqrt(G) when stored (gni_proj_store) */
    if (!(P->G[0] > VI_PIVOT_TOL * P->G[0]) || !(P->G[0] > 0.0)) return NH_ERR_SINGULAR;
    P->Gi[0] = 1.0 / P->G[0];
  } else if ((rc = chol_inverse(m, P->G, P->Gi))) {
    return rc;
  }
  for (int k = 0; k < m; k++) c[k] = kdot(m, P->Gi + (size_t)k * m, zl);
  // v_k+1 = v - W c
  NH_LA_UNROLL_FULL
  for (int i = 0; i < n; i++) v1[i] = v[i] - kcomb(n, m, P->W, c, i);
  // the half-step energy, E = 1/2 v^T M v + 0 (V = 0), max_k |A_k v|
  kmat(n, diag, w->M0, v, t);
  inv[0] = 0.5 * kdot(n, v, t);
  kmat(n, diag, w->M0, v1, t);
  inv[1] = 0.5 * kdot(n, v1, t) + 0.0;
  double res = 0.0;
  for (int k = 0; k < m; k++) {
    double r = fabs(kdot(n, P->A + (size_t)k * n, v1));
    if (r > res) res = r;
  }
  inv[2] = res;
  return 0;
}

/* the next half-step velocity from the carried one: v = u + a W c (eq. 14, Q u = W c with the
 * projector W at q_k; a = -2, or -(1 + h/h_k-1) for a step of another length) */
VI_INLINE void gni_vhalf(const int n, const int m, double a, const double *u, const double *W, const double *c,
                         double *v) {
  double ac[2];
  for (int k = 0; k < m; k++) ac[k] = a * c[k];
  NH_LA_UNROLL_FULL
  for (int i = 0; i < n; i++) v[i] = u[i] + kcomb(n, m, W, ac, i);
}

/* the same from the general step's carried momentum p+ (cin) when it left no velocity form:
 * v = M^-1 (p+ + a Q^T p+), Q^T p+ from the projector at q_k in the workspace */
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
  if (*w->zvalid == 1.0) gni_vhalf(n, m, a, cb + 2 * n, W, cb + 3 * n, v);
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
  for (int i = 0; i < n; i++) w->cout[n + i] = kcomb(n, m, A, c, i);
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
  int rc = gni_kstep(s->model, w, n, m, diag, gc, h, x0, v, x1, c, x1 + n, &P, inv);
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
  for (int j = 0; j < m; j++) kmat(n, diag, w->Minv, P->A + (size_t)j * n, P->W + (size_t)j * n);
  double tt[6];
  for (int i = 0; i < n; i++) x1[n + i] = u[i] - kcomb(n, m, P->W, c, i); /* as gni_kstep's v1 */
  kmat(n, diag, w->M0, u, tt);
  ad->C = 0.5 * kdot(n, u, tt);
  kmat(n, diag, w->M0, x1 + n, tt);
  ad->E = 0.5 * kdot(n, x1 + n, tt) + 0.0;
  if (ok) gni_proj_store(w, n, m, gc, P);
  else *w->pvalid = 0.0;
  gni_carry(w, n, m, diag, u, c, ok ? P->A : NULL);
  set_key(w->kout, t, x1, 2 * n);
  w->kin[1] = NAN; /* the state before x1 is not kept */
  s->evals += k;
  ad->t = t;
  return 0;
}

/* gni's kernel over a run of equal steps (nh_method.advance): gni_kstep step after step with
 * what it carries (q, v_k+1/2, c) in locals, the driver's accumulation per step (the last
 * step's energies and nodal velocity are formed once, at the end); the state, the carried
 * buffer and the projector are written once, after the last step (the state before it is
 * not kept: a step from there restarts). A model file compiled with gni's kernel
 * (nh_model.gni_kernel, a constant G) runs the same loop there, with its constraint inlined:
 * the same bits (src/lang/codegen_gni.c). */
VI_INLINE int gni_advance_k(nh_stepper *s, vi_ws *w, const double *x0, double *x1, nh_advance *ad, const int n,
                            const int m, const int diag) {
  const double h = ad->h;
  if (s->restart || *w->pvalid != 1.0 || *w->hout != h || !key_eq(w->kout, ad->t, x0, 2 * n)) return 0;
  double q[6], v[6], u[6] = {0}, c[2] = {0}, cn[2], qn[6], v1[6], inv[3];
  gni_proj P;
  double t = ad->t, dE = ad->dE, rmax = ad->rmax, Cmax = ad->Cmax, Cmin = ad->Cmin;
  const double Eseg = ad->E_seg, tend = ad->t_end, far = ad->far;
  const long kmax = ad->max;
  const nh_model *mo = s->model;
  const int gc = mo->gram_constant;
  nh_la_copy_fixed(n, x0, q);
  gni_vin(w, n, m, diag, -2.0, w->cout, w->W, v); /* as gni_free_tail */
  gni_proj_init(w, m, &P);
  long k = 0;
  int rc = 0, ok = 1;
  if (gni_compiled(mo, w, n)) { /* compiled with the model */
    const double run[4] = {h, tend, far, Eseg};
    double acc[5] = {t, dE, rmax, Cmax, Cmin};
    k = mo->gni_kernel(P.Gi, run, kmax, q, v, c, P.A, acc, &ok);
    ok = !ok;
    nh_la_copy_fixed(n, v, u);
    t = acc[0], dE = acc[1], rmax = acc[2], Cmax = acc[3], Cmin = acc[4];
  } else {
    while (tend - t > far && k < kmax) {
      // (E finite: v_k+1 is, M being positive definite)
      if ((rc = gni_kstep(mo, w, n, m, diag, gc, h, q, v, qn, cn, v1, &P, inv)) || !nh_la_all_finite(n, qn) ||
          !isfinite(inv[1])) {
        ok = 0;
        break; /* the driver takes this step itself */
      }
      nh_la_copy_fixed(n, qn, q);
      nh_la_copy_fixed(n, v, u);
      for (int j = 0; j < m; j++) c[j] = cn[j];
      gni_vhalf(n, m, -2.0, u, P.W, c, v); /* the next step's v_k+1/2 */
      t = t + h;
      k++;
      // the driver's accumulation (accept_step, half_step_energy)
      const double d = fabs(inv[1] - Eseg);
      if (d > dE) dE = d;
      if (inv[2] > rmax) rmax = inv[2];
      if (inv[0] > Cmax) Cmax = inv[0];
      if (inv[0] < Cmin) Cmin = inv[0];
    }
  }
  ad->done = k;
  if (k == 0) return 0;
  ad->dE = dE, ad->rmax = rmax, ad->Cmax = Cmax, ad->Cmin = Cmin;
  return gni_advance_end(s, w, x1, ad, n, m, diag, gc, k, ok, t, q, u, c, &P);
}

#endif
