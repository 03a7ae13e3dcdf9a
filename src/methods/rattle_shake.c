/* rattle_shake.c - nonholonomic RATTLE (eq. 10) and SHAKE (eq. 9) (Kobilarov, Martin de Diego,
 * Ferraro sec. 4.1; spec 001 A3, A4). For a constant M the equations are at the top of gni.c
 * (the workspace and building blocks in vi.h). For a q-dependent M (a Coriolis term) the paper's
 * M (q_k+1 - q_k)/h terms become the discrete Legendre transforms of the trapezoidal
 * L_d(q0, q1) = h/2 (L(q0, v) + L(q1, v)), v = (q1 - q0)/h, L = 1/2 v^T M(q) v - V(q), from which
 * the paper derives eqs. 9 and 10 (with a constant M they are those equations exactly):
 *   rattle (10a-e):  -D1 L_d(q_k, q_k+1) = p_k + h/2 (f_k - A_k^T lam_k)        (Newton in q_k+1)
 *                    p_k+1 = D2 L_d(q_k, q_k+1) + h/2 (f_k+1 - A_k+1^T lam_k+1),
 *                    A_k+1 M_k+1^-1 p_k+1 = 0  (an m x m SPD solve for lam_k+1)
 *   shake (9a, 5b):  D2 L_d(q_k-1, q_k) + D1 L_d(q_k, q_k+1) = -h_bar (f_k - A_k^T lam_k),
 *                    A_k M_k^-1 (h_k-1 p-_k + h_k p+_k) = 0,  p-_k = -D1 L_d(q_k, q_k+1), p+_k = D2 L_d(q_k-1, q_k)
 *                    (lam_k by an m x m solve: G lam = A M^-1 (2/h_k-1 p+_k + f_k); Newton in q_k+1),
 *                    nodal p_k+1 = P_k+1^T (D2 L_d + h/2 f_k+1).
 * The paper obtains (9) as GNI's (5a-b) for a constant M; with a constant M (5b) is (9b)
 * mu_k (q_k+1 - q_k-1) = 0. With a q-dependent M the velocity-level (9b) as printed is not an
 * M-orthogonal reflection of the momentum: that variant (tried) is second order but its energy
 * drifts at O(h^2) t (the knife edge of tests/test_qm.c: relative error 1.8 at h = 0.02, t = 200,
 * against 3e-3 for (5b)), so shake keeps the paper's (5b).
 * f is the generalized force without the potential (which is in L_d). As for a constant M,
 * rattle with the consistent lam_0 and shake are then gni's step (p-_k = S p+_k + h P^T f,
 * eq. 6) in multiplier form: rattle carries lam_k, shake q_k-1 and h_k-1 (p+_k recomputed from
 * them) and restarts with gni's first step (eq. 16, or its midpoint start). */
#include <math.h>
#include <string.h>

#include "methods/vi_qm.h"

/* what both steps do first: count the evaluation, find whether the step continues the last
 * one (vi_resolve), factor M and evaluate the forces at q0, set up the projector unless it is
 * kept; returns `fresh` (the method restarts here), *rc the first failure */
static int rs_begin(nh_stepper *s, vi_ws *w, double t, const double *x0, int *rc) {
  const nh_model *mo = s->model;
  const int n = w->n;
  const double *q0 = x0, *v0 = x0 + n;
  s->evals++;
  int cont, fresh = vi_resolve(s, w, n, t, x0, &cont);
  if ((*rc = mass_factor(mo, q0, w->M0, w->L0, 1, w->mfact, w->Minv, w->mdiag))) return fresh;
  if ((*rc = force(mo, t, q0, v0, 1, w->f, w->tmp))) return fresh;
  if (!cont && (*rc = proj_setup(mo, w, q0, w->L0))) return fresh; /* else kept from the last step */
  *w->pvalid = 0.0;
  return fresh;
}

static int rattle_qm_step(nh_stepper *s, double t, const double *x0, double h, double *x1);
static int shake_qm_step(nh_stepper *s, double t, const double *x0, double h, double *x1);

static int rattle_step(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err) {
  if (s->opts.variant == NH_VARIANT_SYMMETRIC) {
    if (err) *err = 0.0;
    return nh_vi_sym_step(s, t, x0, h, x1); /* vi_sym.c */
  }
  if (s->model->coriolis) {
    if (err) *err = 0.0;
    return rattle_qm_step(s, t, x0, h, x1);
  }
  const nh_model *mo = s->model;
  vi_ws *w = vi_get(s);
  vi_active(s, w); /* the closed contacts' rows after the model's */
  const int n = w->n, m = w->m, nx = 2 * n;
  const double *q0 = x0, *v0 = x0 + n;
  double *q1 = x1, *v1 = x1 + n, *lam = w->z;
  int rc;
  if (err) *err = 0.0;
  int fresh = rs_begin(s, w, t, x0, &rc);
  if (rc) return rc;
  if (fresh) {
    // lambda_0: 0 (paper), (A M^-1 A^T)^-1 A M^-1 f_0 (consistent with gni's paper start) or
    // midpoint: the consistent one less 2/h lam', where A^T lam' is gni's midpoint correction of
    // p_1/2 (rattle is then gni with the midpoint start)
    vzero(n, w->cin);
    if (s->opts.start != NH_START_PAPER && m > 0) {
      for (int k = 0; k < m; k++) w->cin[k] = nh_la_dot(n, w->W + (size_t)k * n, w->f);
      vi_gsolve(w, m, w->cin);
    }
    if (s->opts.start == NH_START_MIDPOINT && m > 0) {
      nh_la_gemv(n, n, w->M0, v0, w->pm); /* the consistent p_1/2 = p_0 + h/2 P^T f */
      nh_la_axpy(n, 0.5 * h, w->f, w->pm);
      for (int k = 0; k < m; k++) nh_la_axpy(n, -0.5 * h * w->cin[k], w->A + (size_t)k * n, w->pm);
      if ((rc = vi_midpoint_start(s, w, q0, h, w->pm, w->p))) return rc;
      for (int k = 0; k < m; k++) w->cin[k] -= 2.0 / h * w->z[k];
    }
    set_key(w->kin, t, x0, nx);
  }
  // (10a) p_k+1/2 = p_k + h/2 (f_k - A_k^T lam_k), (10b) q_k+1
  vi_mass_mul(w, v0, w->phalf);
  nh_la_axpy(n, 0.5 * h, w->f, w->phalf);
  vi_axpy_rows(w, m, -0.5 * h, w->cin, w->phalf);
  msolve_w(w, w->L0, w->phalf, w->v);
  for (int i = 0; i < n; i++) q1[i] = q0[i] + h * w->v[i];
  // (10e) lam_k+1 from G lam = A M^-1 (2/h p_k+1/2 + f_k+1), (10d) p_k+1
  if ((rc = force(mo, t + h, q1, w->v, 1, w->f, w->tmp))) return rc;
  if ((rc = proj_setup(mo, w, q1, w->L0))) return rc;
  for (int i = 0; i < n; i++) w->tmp[i] = 2.0 / h * w->phalf[i] + w->f[i];
  vi_dot_rows(w, m, w->tmp, lam);
  vi_gsolve(w, m, lam);
  nh_la_copy(n, w->phalf, w->p);
  nh_la_axpy(n, 0.5 * h, w->f, w->p);
  vi_axpy_rows(w, m, -0.5 * h, lam, w->p);
  msolve_w(w, w->L0, w->p, v1);
  nh_la_copy(m, lam, w->cout);
  set_key(w->kout, t + h, x1, nx);
  *w->pvalid = 1.0;
  vi_end(s, w, w->M0, x1);
  return 0;
}

/* the end of a shake step, w->p holding M v+ (or D2 L_d) at q_k+1 with the projector there:
 * the nodal v_k+1 = M^-1 P^T (p + h/2 f_k+1) (L the factor of M(q_k+1), M itself), q_k carried */
static int shake_end(nh_stepper *s, vi_ws *w, double t, const double *q0, double h, double *x1, const double *L,
                     const double *M) {
  const int n = w->n;
  nh_la_axpy(n, 0.5 * h, w->f, w->p);
  pt_inplace(w, w->p, w->tmp);
  msolve_w(w, L, w->p, x1 + n);
  nh_la_copy(n, q0, w->cout);
  *w->hout = h;
  set_key(w->kout, t + h, x1, 2 * n);
  *w->pvalid = 1.0;
  vi_end(s, w, M, x1);
  return 0;
}

static int shake_step(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err) {
  if (s->opts.variant == NH_VARIANT_SYMMETRIC) {
    if (err) *err = 0.0;
    return nh_vi_sym_step(s, t, x0, h, x1); /* vi_sym.c */
  }
  if (s->model->coriolis) {
    if (err) *err = 0.0;
    return shake_qm_step(s, t, x0, h, x1);
  }
  const nh_model *mo = s->model;
  vi_ws *w = vi_get(s);
  vi_active(s, w); /* the closed contacts' rows after the model's */
  const int n = w->n, m = w->m, nx = 2 * n;
  const double *q0 = x0, *v0 = x0 + n;
  double *q1 = x1, *vm = w->r, *lam = w->z;
  int rc;
  if (err) *err = 0.0;
  int fresh = rs_begin(s, w, t, x0, &rc);
  if (rc) return rc;
  if (fresh) {
    // q_-1 = q_0 - h M^-1 (p_0 - h/2 P^T f_0), h_-1 = h (paper: gni's paper start); midpoint:
    // less c, gni's midpoint correction of p_1/2 = p_0 + h/2 P^T f_0 (shake is then gni with
    // the midpoint start)
    nh_la_gemv(n, n, w->M0, v0, w->p);
    nh_la_copy(n, w->f, w->tmp2);
    pt_inplace(w, w->tmp2, w->tmp);
    nh_la_axpy(n, -0.5 * h, w->tmp2, w->p);
    if (s->opts.start == NH_START_MIDPOINT && m > 0) {
      nh_la_copy(n, w->p, w->pm);
      nh_la_axpy(n, h, w->tmp2, w->pm);
      if ((rc = vi_midpoint_start(s, w, q0, h, w->pm, w->g))) return rc;
      nh_la_axpy(n, -1.0, w->g, w->p);
    }
    msolve_w(w, w->L0, w->p, w->v);
    for (int i = 0; i < n; i++) w->cin[i] = q0[i] - h * w->v[i];
    *w->hin = h;
    set_key(w->kin, t, x0, nx);
  }
  const double hp = *w->hin, hb = 0.5 * (hp + h);
  // v- and lam = G^-1 A (2 v-/h_k-1 + M^-1 f)
  for (int i = 0; i < n; i++) vm[i] = (q0[i] - w->cin[i]) / hp;
  msolve_w(w, w->L0, w->f, w->tmp);
  for (int i = 0; i < n; i++) w->tmp[i] += 2.0 / hp * vm[i];
  for (int k = 0; k < m; k++) lam[k] = nh_la_dot(n, w->A + (size_t)k * n, w->tmp);
  vi_gsolve(w, m, lam);
  // v+ = v- + hb M^-1 (f - A^T lam), q_k+1 = q_k + h v+
  nh_la_copy(n, w->f, w->tmp);
  for (int k = 0; k < m; k++) nh_la_axpy(n, -lam[k], w->A + (size_t)k * n, w->tmp);
  msolve_w(w, w->L0, w->tmp, w->v);
  for (int i = 0; i < n; i++) w->v[i] = vm[i] + hb * w->v[i];
  for (int i = 0; i < n; i++) q1[i] = q0[i] + h * w->v[i];
  nh_la_gemv(n, n, w->M0, w->v, w->phalf);
  s->end_C = 0.5 * nh_la_dot(n, w->v, w->phalf); /* the half-step energy */
  // nodal velocity p_k+1 = P^T (M v+ + h/2 f_k+1)
  if ((rc = force(mo, t + h, q1, w->v, 1, w->f, w->tmp))) return rc;
  if ((rc = proj_setup(mo, w, q1, w->L0))) return rc;
  nh_la_copy(n, w->phalf, w->p);
  return shake_end(s, w, t, q0, h, x1, w->L0, w->M0);
}

/* ---- a q-dependent M ---------------------------------------------------------------- */

/* at q_k: M, its factor and dM, grad V into w->g, the force without the potential into w->f,
 * the projector */
static int qm_begin(nh_stepper *s, vi_ws *w, double t, const double *x0) {
  const nh_model *mo = s->model;
  const int n = w->n;
  const double *q0 = x0, *v0 = x0 + n;
  int rc;
  if ((rc = mass_factor(mo, q0, w->M0, w->L0, 0, NULL, NULL, NULL))) return rc;
  if ((rc = nh_model_mass_deriv(mo, q0, w->dM0, w->dwork))) return rc;
  vzero(n, w->g);
  if (mo->potential && (rc = nh_cb(mo->potential(q0, NULL, w->g, mo->user)))) return rc;
  if ((rc = force(mo, t, q0, v0, 0, w->f, w->tmp))) return rc;
  *w->pvalid = 0.0;
  return proj_setup(mo, w, q0, w->L0);
}

/* at q_k+1 after D2 L_d (w->v = (q_k+1 - q_k)/h): the half-step momentum M_k v, M_k+1, the
 * projector and the force (w->f) there */
static int qm_end(nh_stepper *s, vi_ws *w, double t, const double *q1, double h) {
  const nh_model *mo = s->model;
  int rc;
  nh_la_gemv(w->n, w->n, w->M0, w->v, w->phalf);
  if ((rc = mass_factor(mo, q1, w->M1, w->L1, 0, NULL, NULL, NULL))) return rc;
  if ((rc = proj_setup(mo, w, q1, w->L1))) return rc;
  return force(mo, t + h, q1, w->v, 0, w->f, w->tmp);
}

/* the first guess of q_k+1 for -D1 L_d(q_k, q_k+1) = pm: q_k + h M_k^-1 (pm - h/2 grad V) */
static void qm_guess(vi_ws *w, const double *q0, double h, const double *pm, double *q1) {
  for (int i = 0; i < w->n; i++) w->tmp[i] = pm[i] - 0.5 * h * w->g[i];
  msolve_w(w, w->L0, w->tmp, w->v);
  for (int i = 0; i < w->n; i++) q1[i] = q0[i] + h * w->v[i];
}

static int rattle_qm_step(nh_stepper *s, double t, const double *x0, double h, double *x1) {
  const nh_model *mo = s->model;
  vi_ws *w = vi_get(s);
  vi_active(s, w);
  const int n = w->n, m = w->m, nx = 2 * n;
  const double *v0 = x0 + n;
  double *q1 = x1, *v1 = x1 + n, *lam = w->z;
  int rc, cont;
  s->evals++;
  const int fresh = vi_resolve(s, w, n, t, x0, &cont);
  if ((rc = qm_begin(s, w, t, x0))) return rc;
  if (fresh) { /* lambda_0 as for a constant M, with f - grad V for f */
    vzero(m, w->cin);
    for (int i = 0; i < n; i++) w->tmp2[i] = w->f[i] - w->g[i];
    if (s->opts.start != NH_START_PAPER && m > 0) {
      for (int k = 0; k < m; k++) w->cin[k] = nh_la_dot(n, w->W + (size_t)k * n, w->tmp2);
      vi_gsolve(w, m, w->cin);
    }
    if (s->opts.start == NH_START_MIDPOINT && m > 0) {
      nh_la_gemv(n, n, w->M0, v0, w->pm);
      nh_la_axpy(n, 0.5 * h, w->tmp2, w->pm);
      for (int k = 0; k < m; k++) nh_la_axpy(n, -0.5 * h * w->cin[k], w->A + (size_t)k * n, w->pm);
      if ((rc = vi_midpoint_start(s, w, x0, h, w->pm, w->p))) return rc;
      for (int k = 0; k < m; k++) w->cin[k] -= 2.0 / h * w->z[k];
    }
    set_key(w->kin, t, x0, nx);
  }
  // (10a-b) -D1 L_d(q_k, q_k+1) = p_k + h/2 (f_k - A_k^T lam_k)
  double *pb = w->phalf; /* the target (the solve rebuilds w->pm from it) */
  nh_la_gemv(n, n, w->M0, v0, pb);
  nh_la_axpy(n, 0.5 * h, w->f, pb);
  for (int k = 0; k < m; k++) nh_la_axpy(n, -0.5 * h * w->cin[k], w->A + (size_t)k * n, pb);
  qm_guess(w, x0, h, pb, q1);
  const vi_kkt k = {.m = 0, .pbase = pb, .A0 = w->A};
  if ((rc = nh_vi_kkt_solve(s, w, &k, x0, h, q1, w->z))) return rc;
  // (10d-e) D2 L_d, then lam_k+1 from G lam = A M^-1 (2/h D2 L_d + f_k+1) and p_k+1
  if ((rc = nh_vi_dl_d2(mo, w, 0, x0, q1, h, w->p))) return rc;
  if (vi_floor_r(s, w)) nh_la_axpy(n, -1.0, w->r, w->p); /* a solve at its rounding floor */
  if ((rc = qm_end(s, w, t, q1, h))) return rc;
  for (int i = 0; i < n; i++) w->tmp[i] = 2.0 / h * w->p[i] + w->f[i];
  for (int k = 0; k < m; k++) lam[k] = nh_la_dot(n, w->W + (size_t)k * n, w->tmp);
  vi_gsolve(w, m, lam);
  nh_la_axpy(n, 0.5 * h, w->f, w->p);
  for (int k = 0; k < m; k++) nh_la_axpy(n, -0.5 * h * lam[k], w->A + (size_t)k * n, w->p);
  msolve_w(w, w->L1, w->p, v1);
  nh_la_copy(m, lam, w->cout);
  set_key(w->kout, t + h, x1, nx);
  *w->pvalid = 1.0;
  vi_end(s, w, w->M1, x1);
  return 0;
}

/* shake's first step from a restart: gni's (p-_0 = M v_0 + h/2 P^T f + c_0, c_0 = h/2 Q^T grad V
 * or the midpoint start's) */
static int shake_qm_start(nh_stepper *s, vi_ws *w, const double *x0, double h, double *q1) {
  const int n = w->n;
  double *c0 = w->tmp2;
  int rc;
  qt_apply(w, w->g, c0);
  nh_la_scale(n, 0.5 * h, c0);
  nh_la_copy(n, w->f, w->p);
  pt_inplace(w, w->p, w->tmp);
  nh_la_gemv(n, n, w->M0, x0 + n, w->pm);
  nh_la_axpy(n, 0.5 * h, w->p, w->pm);
  if (s->opts.start == NH_START_MIDPOINT && w->m > 0) {
    nh_la_axpy(n, -0.5 * h, w->g, w->pm); /* M v_1/2 without c */
    if ((rc = vi_midpoint_start(s, w, x0, h, w->pm, c0))) return rc;
    nh_la_axpy(n, 0.5 * h, w->g, w->pm);
  }
  nh_la_axpy(n, 1.0, c0, w->pm);
  qm_guess(w, x0, h, w->pm, q1);
  nh_la_copy(n, w->pm, w->phalf); /* the solve rebuilds w->pm from pbase */
  const vi_kkt k = {.m = 0, .pbase = w->phalf, .A0 = w->A};
  return nh_vi_kkt_solve(s, w, &k, x0, h, q1, w->z);
}

static int shake_qm_step(nh_stepper *s, double t, const double *x0, double h, double *x1) {
  const nh_model *mo = s->model;
  vi_ws *w = vi_get(s);
  vi_active(s, w);
  const int n = w->n, m = w->m, nx = 2 * n;
  const double *q0 = x0;
  double *q1 = x1, *pp = w->cin + n;
  int rc, cont;
  s->evals++;
  int fresh = vi_resolve(s, w, n, t, x0, &cont);
  const double hp = fresh ? 0.0 : *w->hin; /* 0: the input is a restart */
  if (hp > 0.0) { /* p+_k = D2 L_d(q_k-1, q_k) with M(q_k-1), M(q_k) in M0, M1 */
    if ((rc = nh_cb(mo->mass(w->cin, w->M0, mo->user))) || (rc = nh_cb(mo->mass(q0, w->M1, mo->user)))) return rc;
    if ((rc = nh_vi_dl_d2(mo, w, 0, w->cin, q0, hp, pp))) return rc;
  }
  if ((rc = qm_begin(s, w, t, x0))) return rc;
  if (hp > 0.0) {
    // (9a) -D1 L_d(q_k, q_k+1) = p+_k + h_bar (f_k - A_k^T lam) with (5b) A_k M_k^-1 (h_k-1 p-_k + h p+_k) = 0:
    // G lam = A M^-1 (2/h_k-1 p+_k + f_k)
    const double hb = 0.5 * (hp + h);
    double *lam = w->z;
    for (int i = 0; i < n; i++) w->tmp[i] = 2.0 / hp * pp[i] + w->f[i];
    for (int k = 0; k < m; k++) lam[k] = nh_la_dot(n, w->W + (size_t)k * n, w->tmp);
    vi_gsolve(w, m, lam);
    nh_la_copy(n, pp, w->phalf);
    nh_la_axpy(n, hb, w->f, w->phalf);
    for (int k = 0; k < m; k++) nh_la_axpy(n, -hb * lam[k], w->A + (size_t)k * n, w->phalf);
    for (int i = 0; i < n; i++) q1[i] = q0[i] + h / hp * (q0[i] - w->cin[i]);
    const vi_kkt k = {.m = 0, .pbase = w->phalf, .A0 = w->A};
    if ((rc = nh_vi_kkt_solve(s, w, &k, q0, h, q1, w->z))) return rc;
  } else {
    if ((rc = shake_qm_start(s, w, x0, h, q1))) return rc;
    set_key(w->kin, t, x0, nx);
    *w->hin = 0.0;
  }
  // nodal p_k+1 = P^T (D2 L_d(q_k, q_k+1) + h/2 f_k+1); the half-step energy
  if ((rc = nh_vi_dl_d2(mo, w, 0, q0, q1, h, w->p))) return rc;
  if (vi_floor_r(s, w)) nh_la_axpy(n, -1.0, w->r, w->p); /* a solve at its rounding floor */
  if ((rc = qm_end(s, w, t, q1, h))) return rc;
  s->end_C = 0.5 * nh_la_dot(n, w->v, w->phalf);
  return shake_end(s, w, t, q0, h, x1, w->L1, w->M1);
}


const nh_method nh_method_rattle = {
    .name = "rattle",
    .summary = "nonholonomic RATTLE: symmetric one-step form (default, = gni); --variant paper: eq. 10, one multiplier per node",
    .preserves = "energy exactly for V = 0, no forces, constant M; constraints exactly at the nodes; symmetric, no period-2 mode",
    .order = 2,
    .flags = NH_METHOD_SYMMETRIC | NH_METHOD_ENERGY | NH_METHOD_ENERGY_NO_V,
    .work_size = nh_vi_dlad_work_size,
    .supports = vi_mechanical,
    .step = rattle_step,
    .dense = nh_dense_linear,
    .contact = NH_HOLD_ROWS,
    .hold = nh_vi_sym_hold,
    .moved = nh_vi_moved,
};

const nh_method nh_method_shake = {
    .name = "shake",
    .summary = "nonholonomic SHAKE: symmetric one-step form (default, = gni); --variant paper: eq. 9, two-step",
    .preserves = "energy exactly for V = 0, no forces, constant M; constraints exactly at the nodes; symmetric, no period-2 mode",
    .order = 2,
    .flags = NH_METHOD_SYMMETRIC | NH_METHOD_ENERGY | NH_METHOD_ENERGY_NO_V | NH_METHOD_HALF_STEP,
    .work_size = nh_vi_dlad_work_size,
    .supports = vi_mechanical,
    .step = shake_step,
    .dense = nh_dense_linear,
    .contact = NH_HOLD_ROWS,
    .hold = nh_vi_sym_hold,
    .moved = nh_vi_moved,
};

