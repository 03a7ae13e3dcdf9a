/* rattle_shake.c - nonholonomic RATTLE (eq. 10) and SHAKE (eq. 9) for a constant M (the
 * equations are at the top of gni.c; the workspace and building blocks in vi.h). */
#include <math.h>
#include <string.h>

#include "methods/vi.h"

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

static int rattle_step(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err) {
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
      nh_la_chol_solve(m, w->G, w->cin);
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

static int shake_step(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err) {
  const nh_model *mo = s->model;
  vi_ws *w = vi_get(s);
  vi_active(s, w); /* the closed contacts' rows after the model's */
  const int n = w->n, m = w->m, nx = 2 * n;
  const double *q0 = x0, *v0 = x0 + n;
  double *q1 = x1, *v1 = x1 + n, *vm = w->r, *lam = w->z;
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
  if (m > 0) nh_la_chol_solve(m, w->G, lam);
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
  nh_la_axpy(n, 0.5 * h, w->f, w->p);
  pt_inplace(w, w->p, w->tmp);
  msolve_w(w, w->L0, w->p, v1);
  nh_la_copy(n, q0, w->cout);
  *w->hout = h;
  set_key(w->kout, t + h, x1, nx);
  *w->pvalid = 1.0;
  vi_end(s, w, w->M0, x1);
  return 0;
}

static int constant_mass(const nh_model *mo) {
  return vi_mechanical(mo) == NH_OK && mo->coriolis == NULL ? NH_OK : NH_ERR_UNSUPPORTED;
}

const nh_method nh_method_rattle = {
    .name = "rattle",
    .summary = "nonholonomic RATTLE (eq. 10), constant M, one multiplier per node",
    .preserves = "energy exactly for V = 0; constraints exactly at the nodes",
    .order = 2,
    .flags = NH_METHOD_SYMMETRIC | NH_METHOD_ENERGY | NH_METHOD_ENERGY_NO_V,
    .work_size = vi_work_size,
    .supports = constant_mass,
    .step = rattle_step,
    .dense = nh_dense_linear,
    .contact = NH_HOLD_ROWS,
    .moved = nh_vi_moved,
};

const nh_method nh_method_shake = {
    .name = "shake",
    .summary = "nonholonomic SHAKE (eq. 9), two-step, constant M",
    .preserves = "energy exactly for V = 0; constraints on average",
    .order = 2,
    .flags = NH_METHOD_SYMMETRIC | NH_METHOD_ENERGY | NH_METHOD_ENERGY_NO_V | NH_METHOD_HALF_STEP,
    .work_size = vi_work_size,
    .supports = constant_mass,
    .step = shake_step,
    .dense = nh_dense_linear,
    .contact = NH_HOLD_ROWS,
    .moved = nh_vi_moved,
};

