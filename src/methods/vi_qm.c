/* vi_qm.c - the discrete Lagrange-d'Alembert step for a general discrete Lagrangian (any M(q),
 * forces), and the Newton solve of a discrete Lagrangian (with multipliers) it shares with
 * rattle's and shake's q-dependent steps (rattle_shake.c).
 *
 * With L_d(q0, q1) the trapezoidal h/2 (L(q0, v) + L(q1, v)) or the midpoint h L((q0 + q1)/2, v),
 * v = (q1 - q0)/h, L = 1/2 v^T M(q) v - V(q) (gni.c), the discrete Lagrange-d'Alembert
 * equations with the constraint force at q_k and the midpoint discrete constraint
 * (McLachlan-Perlmutter 2006, as reconstructed in spec 002 M8 [R] for a constant M; Kobilarov
 * et al. sec. 2 for the discrete Legendre transforms) are, with f the generalized force,
 *   D2 L_d(q_k-1, q_k) + D1 L_d(q_k, q_k+1) + h f_k + A(q_k)^T mu_k = 0,
 *   A((q_k + q_k+1)/2) (q_k+1 - q_k) = 0.
 * For a constant M, trapezoidal L_d and no force this is spec 002 M8's SI-DLA, with midpoint L_d
 * its I-DLA (mu_k = h^2 lambda_k). As a one-step map on the nodal (q_k, v_k) (dla.c):
 *   -D1 L_d(q_k, q_k+1) = M(q_k) v_k + h/2 f_k - A(q_k)^T mu,  A(qbar)(q_k+1 - q_k)/h = 0
 *   p_k+1 = P(q_k+1)^T (D2 L_d(q_k, q_k+1) + h/2 f_k+1),  v_k+1 = M(q_k+1)^-1 p_k+1
 * (M v_k = P^T p stands for the incoming momentum D2 L_d(q_k-1, q_k) + h/2 f_k up to a term
 * in the range of A(q_k)^T, which mu absorbs: the two-step scheme exactly). Unknowns
 * (q_k+1, mu), Newton with the exact Jacobian: the discrete Lagrangian's (dM, d2M, Hess V)
 * and d/dq1 [A(qbar) u] = A(qbar) + 1/2 sum_i dA/dq (qbar) u_i, u = q_k+1 - q_k. This is del on a
 * nonholonomic model, and si-dla (trapezoidal) / i-dla (midpoint) on a q-dependent M. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "methods/vi_qm.h"

#include <float.h>

/* Newton at round-off: VI_NEWTON_DQ_ULPS, vi_roundoff_tol (vi.h) */
#define VI_QM_DQ_ULPS VI_NEWTON_DQ_ULPS

/* the midpoint discrete constraint's residual into e and (K != NULL) its q1-rows into K
 * (n + m columns, row n + a) */
static int kkt_rows(const nh_model *mo, vi_ws *w, const vi_kkt *k, const double *q0, const double *q1, double h,
                    double *e, double *K) {
  const int n = w->n, m = k->m, nk = n + m;
  if (!k->dla) return 0; /* no rows (m = 0) */
  const int nc = mo->nc;
  double *dA = k->scratch, *qb = dA + (size_t)n * nc * n, *u = qb + n;
  int rc;
  for (int i = 0; i < n; i++) qb[i] = 0.5 * (q0[i] + q1[i]), u[i] = q1[i] - q0[i];
  if ((rc = nh_cb(mo->constraint(qb, u, w->A, NULL, mo->user)))) return rc;
  for (int a = 0; a < m; a++) e[a] = nh_la_dot(n, w->A + (size_t)a * n, u) / h;
  if (!K) return 0;
  if ((rc = nh_model_constraint_deriv(mo, qb, dA, w->dwork))) return rc;
  for (int a = 0; a < m; a++)
    for (int j = 0; j < n; j++)
      K[(size_t)(n + a) * nk + j] = (w->A[(size_t)a * n + j] + 0.5 * nh_la_dot(n, dA + ((size_t)j * nc + a) * n, u)) / h;
  return 0;
}

int nh_vi_kkt_solve(nh_stepper *s, vi_ws *w, const vi_kkt *k, const double *q0, double h, double *q1, double *lam) {
  const nh_model *mo = s->model;
  const int n = w->n, m = k->m, nk = n + m;
  double *e = w->zz, *step = w->rz, res = INFINITY, mag;
  int it, rc, tiny = 0;
  for (it = 0; it <= s->opts.newton_max_iter; it++) {
    // pm = pbase - c A0^T lam; R1 = -D1 L_d - pm (J: its q1-Jacobian), R2 the rows
    nh_la_copy(n, k->pbase, w->pm);
    for (int a = 0; a < m; a++) nh_la_axpy(n, -k->c * lam[a], k->A0 + (size_t)a * n, w->pm);
    if ((rc = nh_vi_dl_residual(mo, w, k->midpoint, q0, q1, h, w->pm, w->r, w->J, &mag))) return rc;
    if ((rc = kkt_rows(mo, w, k, q0, q1, h, e, w->K))) return rc;
    // momentum residual relative to its terms, the rows to |A| times the velocity scale: the
    // step's (q1 - q0)/h, or at rest the one of the momentum terms, mag / max |M(q0)| (vi.h)
    res = nh_la_norm_inf(n, w->r) / mag;
    if (m > 0) {
      double vn = 0.0;
      for (int i = 0; i < n; i++) vn = fmax(vn, fabs(q1[i] - q0[i]) / h);
      vn = fmax(vn, mag / fmax(nh_la_norm_inf(n * n, w->M0), VI_RES_SCALE_FLOOR));
      res = fmax(res, vi_rows_rel(m, n, e, w->A, vn));
    }
    if (tiny && res <= vi_roundoff_tol(n, w->M0, q1, h, mag, s->opts.newton_tol)) break; /* at round-off: accepted */
    if (res <= s->opts.newton_tol || it == s->opts.newton_max_iter) break;
    // K = [J, c A0^T; rows, 0] (rows written by kkt_rows)
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) w->K[(size_t)i * nk + j] = w->J[(size_t)i * n + j];
      for (int a = 0; a < m; a++) w->K[(size_t)i * nk + n + a] = k->c * k->A0[(size_t)a * n + i];
    }
    for (int a = 0; a < m; a++)
      for (int b = 0; b < m; b++) w->K[(size_t)(n + a) * nk + n + b] = 0.0;
    if (nh_la_lu(nk, w->K, w->kpiv, VI_PIVOT_TOL) != NH_OK) {
      snprintf(s->msg, sizeof s->msg, "%s: singular Newton matrix (constraints dependent?)", s->method->name);
      return NH_ERR_SINGULAR;
    }
    nh_la_copy(n, w->r, step);
    nh_la_copy(m, e, step + n);
    nh_la_lu_solve(nk, w->K, w->kpiv, step);
    nh_la_axpy(n, -1.0, step, q1);
    nh_la_axpy(m, -1.0, step + n, lam);
    tiny = nh_la_norm_inf(n, step) <= VI_QM_DQ_ULPS * DBL_EPSILON * nh_la_norm_inf(n, q1);
  }
  nh_stepper_solved(s, it, res);
  if (!(res <= s->opts.newton_tol || (tiny && res <= vi_roundoff_tol(n, w->M0, q1, h, mag, s->opts.newton_tol)))) {
    snprintf(s->msg, sizeof s->msg, "%s: Newton did not converge in %d iterations (residual %.3e)", s->method->name,
             it, res);
    return NH_ERR_NO_CONVERGENCE;
  }
  return 0;
}

/* ---- the discrete Lagrange-d'Alembert step ------------------------------------------ */

size_t nh_vi_dlad_work_size(const nh_model *mo) {
  const size_t n = (size_t)mo->nq, nc = (size_t)mo->nc;
  return vi_work_size(mo) + n * nc * n + 2 * n + nc;
}

int nh_vi_dlad_step(nh_stepper *s, double t, const double *x0, double h, double *x1, int midpoint) {
  const nh_model *mo = s->model;
  vi_ws *w = vi_get(s);
  const int n = w->n, m = mo->nc;
  const double *q0 = x0, *v0 = x0 + n;
  double *q1 = x1, *scratch = s->work + vi_work_size(mo), *mu = scratch + (size_t)n * m * n + 2 * n;
  int rc;
  s->evals++;
  w->m = m; /* the model's rows: del holds the closed contacts by projection */
  // at q_k: M, dM and grad V (the trapezoidal L_d), A(q_k), the force; pbase = M v_k + h/2 f_k
  if ((rc = mass_factor(mo, q0, w->M0, w->L0, 0, NULL, NULL, NULL))) return rc;
  if (!midpoint && (rc = nh_model_mass_deriv(mo, q0, w->dM0, w->dwork))) return rc;
  vzero(n, w->g);
  if (!midpoint && mo->potential && (rc = nh_cb(mo->potential(q0, NULL, w->g, mo->user)))) return rc;
  if ((rc = nh_cb(mo->constraint(q0, v0, w->A0, NULL, mo->user)))) return rc;
  if ((rc = force(mo, t, q0, v0, 0, w->f, w->tmp))) return rc;
  nh_la_gemv(n, n, w->M0, v0, w->p);
  nh_la_axpy(n, 0.5 * h, w->f, w->p);
  // Newton on (q_k+1, mu) from (q_k + h v_k, 0)
  for (int i = 0; i < n; i++) q1[i] = q0[i] + h * v0[i];
  vzero(m, mu);
  const vi_kkt k = {.midpoint = midpoint, .m = m, .pbase = w->p, .c = 1.0, .A0 = w->A0, .dla = 1, .scratch = scratch};
  if ((rc = nh_vi_kkt_solve(s, w, &k, q0, h, q1, mu))) return rc;
  // p_k+1 = P^T (D2 L_d + h/2 f_k+1) at q_k+1
  return nh_vi_del_finish(s, w, midpoint, t, q0, q1, h, vi_floor_r(s, w), x1);
}

/* ---- del's hooks ------------------------------------------------------------------- */

/* del on a nonholonomic model: mechanical, with the dense Newton matrix of holonomic del */
int nh_del_nh_supports(const nh_model *mo) {
  return vi_mechanical(mo) == NH_OK && mo->nc > 0 && !mo->holonomic && mo->nq + mo->nc <= DEL_MAX_UNKNOWNS
             ? NH_OK
             : NH_ERR_UNSUPPORTED;
}

int nh_del_nh_step(nh_stepper *s, double t, const double *x0, double h, double *x1) {
  return nh_vi_dlad_step(s, t, x0, h, x1, s->opts.midpoint_ld);
}

size_t nh_del_work_size(const nh_model *mo) {
  return mo->nc > 0 && !mo->holonomic ? nh_vi_dlad_work_size(mo) : vi_work_size(mo);
}
