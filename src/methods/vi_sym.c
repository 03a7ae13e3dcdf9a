/* vi_sym.c - the symmetric one-step form of gni, rattle and shake, what the three names run by
 * default (NH_VARIANT_SYMMETRIC; docs/integrators.md, "The symmetric one-step form").
 *
 * The paper's three forms are one two-step scheme (spec A2-A5): the half-step momentum is
 * reflected at every node, p-_k = S(q_k) p+_k, and its part along the constraint normal is a
 * free mode that alternates in sign and grows at the rate at which the true flow contracts
 * (spec 5.1.1). Restarting gni at every node with its midpoint start removes the mode: the step
 * is a map of the nodal state (q_k, p_k), A(q_k) M^-1 p_k = 0, alone. With f the generalized
 * force (potential and controls included), r_k = p_k + h/2 f_k and |a| = sqrt(a^T M^-1 a):
 *   s = r_k + A(q_k)^T lam,   y = c M^-1 s,   A((q_k + q_k+1)/2) y = 0,   q_k+1 = q_k + h y,
 *   p_k+1 = c' P(q_k+1)^T M y + h/2 P(q_k+1)^T f_k+1.
 * With c = c' = 1 this is the discrete Lagrange-d'Alembert step with the midpoint discrete
 * constraint (McLachlan & Perlmutter 2006; vi_qm.c with the trapezoidal L_d): a q-dependent M
 * runs del's step (the DLA step, or del's variational step without nonholonomic rows). Without
 * forces or potential (f = 0)
 *   c = |r_k| / |s|,   c' = |M y| / |P^T M y|
 * take out the energy the two constraint kicks put in and take away: |p_k+1| = |M y| = |p_k|,
 * the energy is exact. The map is symmetric (the reversed step from (q_k+1, -p_k+1) solves the
 * same equations with -y, lam' = c' times the reaction at q_k+1, and the factors 1/c', 1/c), so
 * of even order; c, c' = 1 + O(h^2) change the step by O(h^3): order 2. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "methods/vi.h"
#include "methods/vi_qm.h"

/* the energy rescale is skipped at rest: |s|^2 or |P^T M y|^2 below this times |r|^2, |M y|^2
 * (the factor is then 1 to rounding) */
#define VI_SYM_SCALE_FLOOR 1e-300

/* the rows A(q) into Aq (not w->A, which keeps A(q_k)): a large model's by its sparse fill,
 * which leaves the entries outside the pattern unwritten (*pat = 1: read only the pattern) */
static int sym_rows(const nh_model *mo, vi_ws *w, const double *q, double *Aq, int *pat) {
  int rc;
  *pat = mo->constraint_sparse && w->crows && w->n >= NH_MODEL_SPARSE_MIN && w->mc > 0;
  if (*pat) {
    if ((rc = nh_cb(mo->constraint_sparse(q, w->tmp2, Aq, NULL, mo->user)))) return rc;
  } else if (w->mc > 0 && (rc = nh_cb(mo->constraint(q, w->tmp2, Aq, NULL, mo->user)))) {
    return rc;
  }
  return w->m > w->mc ? vi_contact_rows(mo, w, q, Aq) : 0;
}

/* e_a = row a of Aq times y and the row's largest entry (the model's rows on their pattern
 * when pat, the contact rows whole) */
static void sym_row_dots(const vi_ws *w, const double *Aq, int pat, const double *y, double *e, double *amax) {
  const int n = w->n;
  for (int a = 0; a < w->m; a++) {
    const double *row = Aq + (size_t)a * n;
    double d = 0.0, mx = 0.0;
    if (pat && a < w->mc) {
      for (int k = w->crows[a]; k < w->crows[a + 1]; k++) d += row[w->ccols[k]] * y[w->ccols[k]], mx = fmax(mx, fabs(row[w->ccols[k]]));
    } else {
      d = nh_la_dot(n, row, y), mx = nh_la_norm_inf(n, row);
    }
    e[a] = d, amax[a] = mx;
  }
}

/* the first half: lam with A(q_mid) y = 0, y = c M^-1 (r + A0^T lam), q_mid = q0 + h/2 y, by a
 * quasi-Newton iteration (convergence at a rate O(h |dA/dq| |y|)): with the matrix
 * A(q_mid) M^-1 A0^T below NH_MODEL_SPARSE_MIN coordinates (the midpoint start's: 1-2
 * iterations per step on the car and the snakeboard), with the Gram matrix G(q0) that
 * proj_setup factored above it (its sparse, banded or dense factor: no m x m matrix per
 * iteration, so the step grows as the model, 4-5 iterations). On entry w->A, W, G hold the
 * projector at q0; A(q_mid) goes into w->J. */
static int sym_half(nh_stepper *s, vi_ws *w, const double *q0, double h, const double *r, int scale, double *y) {
  const nh_model *mo = s->model;
  const int n = w->n, m = w->m;
  double *Aq = w->J, *lam = w->z, *ph = w->tmp, *yu = w->r, *qm = w->v, *e = w->zz, *amax = w->rz + n;
  double res = INFINITY, c = 1.0;
  int rc, it, pat = 0;
  msolve_w(w, w->L0, r, yu);
  const double r2 = nh_la_dot(n, r, yu), ypm = nh_la_norm_inf(n, yu); /* |r|^2 and the scale of y's terms */
  if (m == 0) {
    nh_la_copy(n, yu, y);
    return 0;
  }
  vzero(m, lam);
  for (it = 0; it <= s->opts.newton_max_iter; it++) {
    nh_la_copy(n, r, ph);
    vi_axpy_rows(w, m, 1.0, lam, ph);
    msolve_w(w, w->L0, ph, yu);
    const double s2 = nh_la_dot(n, ph, yu);
    c = scale && s2 > VI_SYM_SCALE_FLOOR * r2 ? sqrt(r2 / s2) : 1.0;
    for (int i = 0; i < n; i++) qm[i] = q0[i] + 0.5 * h * c * yu[i];
    if ((rc = sym_rows(mo, w, qm, Aq, &pat))) return rc;
    // residual A(q_mid) M^-1 s, each row relative to |row| times the scale of y's terms (the
    // constraint does not see c)
    sym_row_dots(w, Aq, pat, yu, e, amax);
    const double u = fmax(nh_la_norm_inf(n, yu), ypm);
    res = 0.0;
    for (int a = 0; a < m; a++) res = fmax(res, fabs(e[a]) / fmax(amax[a] * u, VI_RES_SCALE_FLOOR));
    if (res <= s->opts.newton_tol || it == s->opts.newton_max_iter) break;
    if (n < NH_MODEL_SPARSE_MIN) { /* small: the matrix A(q_mid) M^-1 A0^T, LU (converges faster) */
      double *B = w->J + (size_t)m * n;
      for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) B[i * m + j] = nh_la_dot(n, Aq + (size_t)i * n, w->W + (size_t)j * n);
      if (nh_la_lu(m, B, w->piv, VI_PIVOT_TOL) != NH_OK) {
        snprintf(s->msg, sizeof s->msg, "%s: singular constraint matrix at the half step", s->method->name);
        return NH_ERR_SINGULAR;
      }
      nh_la_lu_solve(m, B, w->piv, e);
    } else {
      vi_gsolve(w, m, e);
    }
    nh_la_axpy(m, -1.0, e, lam);
  }
  nh_stepper_solved(s, it, res);
  if (!(res <= s->opts.newton_tol)) {
    snprintf(s->msg, sizeof s->msg, "%s: the half-step constraint did not converge in %d iterations (residual %.3e)",
             s->method->name, it, res);
    return NH_ERR_NO_CONVERGENCE;
  }
  for (int i = 0; i < n; i++) y[i] = c * yu[i];
  return 0;
}

/* the symmetric step for a constant M (q-dependent M: the discrete Lagrange-d'Alembert step) */
int nh_vi_sym_step(nh_stepper *s, double t, const double *x0, double h, double *x1) {
  const nh_model *mo = s->model;
  vi_ws *w = vi_get(s);
  if (mo->coriolis) { /* del's step: the DLA step, or the variational one without nonholonomic rows */
    if (mo->nc > 0 && !mo->holonomic && nh_del_nh_supports(mo) != NH_OK) {
      snprintf(s->msg, sizeof s->msg,
               "%s: the symmetric variant with a q-dependent M takes at most %d coordinates and rows "
               "(use --variant paper)",
               s->method->name, DEL_MAX_UNKNOWNS);
      return NH_ERR_UNSUPPORTED;
    }
    return nh_method_del.step(s, t, x0, h, x1, NULL);
  }
  vi_active(s, w); /* the closed contacts' rows after the model's */
  const int n = w->n, m = w->m;
  const int scale = !mo->force && !mo->potential; /* energy exactly: f = 0 */
  const double *q0 = x0, *v0 = x0 + n;
  double *q1 = x1, *v1 = x1 + n, *y = w->pm, *my = w->p, *pt = w->g;
  int rc;
  s->evals++;
  // the projector at q_k: kept from the last step when it ended at q_k with the same rows
  const int kept = *w->pvalid == 1.0 && *w->hout == (double)m && key_eq(w->kout, t, q0, n);
  *w->pvalid = 0.0;
  if ((rc = mass_factor(mo, q0, w->M0, w->L0, 1, w->mfact, w->Minv, w->mdiag))) return rc;
  if ((rc = force(mo, t, q0, v0, 1, w->f, w->tmp))) return rc;
  if (!kept && (rc = proj_setup(mo, w, q0, w->L0))) return rc;
  // r_k = M v_k + h/2 f_k; the half step y and q_k+1
  double *rk = w->rz; /* (vi_rows hands w->tmp2 to the model; sym_half uses w->rz + n) */
  vi_mass_mul(w, v0, rk);
  nh_la_axpy(n, 0.5 * h, w->f, rk);
  if ((rc = sym_half(s, w, q0, h, rk, scale, y))) return rc;
  for (int i = 0; i < n; i++) q1[i] = q0[i] + h * y[i];
  // at q_k+1: p_k+1 = c' P^T M y + h/2 P^T f_k+1
  if ((rc = force(mo, t + h, q1, y, 1, w->f, w->tmp))) return rc;
  if ((rc = proj_setup(mo, w, q1, w->L0))) return rc;
  vi_mass_mul(w, y, my);
  nh_la_copy(n, my, w->phalf); /* the step's momentum */
  nh_la_copy(n, my, pt);
  pt_inplace(w, pt, w->tmp);
  double cp = 1.0;
  if (scale) {
    msolve_w(w, w->L0, pt, w->tmp);
    const double a2 = nh_la_dot(n, y, my), b2 = nh_la_dot(n, pt, w->tmp);
    if (b2 > VI_SYM_SCALE_FLOOR * a2) cp = sqrt(a2 / b2);
  }
  for (int i = 0; i < n; i++) w->p[i] = cp * pt[i];
  if (!scale) {
    pt_inplace(w, w->f, w->tmp);
    nh_la_axpy(n, 0.5 * h, w->f, w->p);
  }
  msolve_w(w, w->L0, w->p, v1);
  set_key(w->kout, t + h, q1, n), *w->hout = (double)m, *w->pvalid = 1.0; /* A, W, G at q_k+1 */
  vi_end(s, w, w->M0, x1);
  return 0;
}

nh_contact_hold nh_vi_sym_hold(const nh_model *mo, const nh_method_opts *opts) {
  return opts->variant == NH_VARIANT_SYMMETRIC && mo->coriolis ? nh_method_del.hold(mo, opts) : NH_HOLD_ROWS;
}
