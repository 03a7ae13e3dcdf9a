/* gni.c - variational and nonholonomic variational integrators: gni and del here, rattle and
 * shake in rattle_shake.c, what they share in vi.h
 * (Kobilarov, Martin de Diego, Ferraro, "Simulating Nonholonomic Dynamics", secs. 2, 4;
 * spec 001 A1-A5). f below is the generalized force of the model (controls B(q)u included);
 * P = Id - Q, Q = M^-1 mu^T (mu M^-1 mu^T)^-1 mu (eq. 12), S = P^T - Q^T = Id - 2 Q^T.
 *
 * del (A1, eq. 2), unconstrained: the discrete Euler-Lagrange equations in momentum form,
 *   -D1 L_d(q_k, q_k+1) = p_k + h/2 f_k,      p_k+1 = D2 L_d(q_k, q_k+1) + h/2 f_k+1,
 *   trapezoidal  L_d = h/2 (L(q0, v) + L(q1, v)),  midpoint  L_d = h L((q0 + q1)/2, v),
 *   v = (q1 - q0)/h, L = 1/2 v^T M(q) v - V(q); solved by Newton with the exact Jacobian
 *   (model derivatives dM, d2M, Hess V). With holonomic constraints phi(q) = 0 (A = dphi/dq):
 *   -D1 L_d(q_k, q_k+1) = p_k + h/2 (f_k - A_k^T lam), phi(q_k+1) = 0, p_k+1 = P_k+1^T (D2 L_d + h/2 f_k+1)
 *   (the variational RATTLE; Newton on (q_k+1, lam)). Nonholonomic constraints: the discrete
 *   Lagrange-d'Alembert step of vi_qm.c. The gaps the driver holds closed (persistent contacts)
 *   join phi as rows g_i(q_k+1) = 0 with their multipliers: the constrained DEL of Seghete &
 *   Murphey eqs. 28-29 (spec 003 sec. 3.2, the reaction at q_k as trep's; NH_HOLD_CONSTRAINT).
 *
 * gni (A2/A5, eqs. 5, 6, 14-16), trapezoidal L_d: with p+_k = D2 L_d(q_k-1, q_k) + h/2 f_k the
 * incoming and p-_k = -D1 L_d(q_k, q_k+1) the outgoing momentum at node k,
 *   p-_k = S(q_k) p+_k + h/2 P(q_k)^T f_k                  (momentum jump, eq. 6 with forces)
 *   (for a step h_k != h_k-1, as in a partial step of event location, the reflected normal
 *    part is scaled by h_k/h_k-1, so that it stays the normal velocity at t_k + h_k/2)
 *   p_k  = P(q_k)^T p+_k                                   (nodal momentum, eq. 15)
 * For constant M this is eq. 14 (v_k+1/2 = (Id - 2Q) v_k-1/2 + h P M^-1 f, the factor 2 that the
 * paper's compact sec. 6 forms omit, spec [E] 5), explicit; otherwise Newton on -D1 L_d = p-.
 *
 * rattle (A4, eq. 10), constant M, one multiplier per node:
 *   p_k+1/2 = p_k + h/2 (f_k - mu_k^T lam_k),   q_k+1 = q_k + h M^-1 p_k+1/2,
 *   (mu M^-1 mu^T)_k+1 lam_k+1 = mu_k+1 M^-1 (2/h p_k+1/2 + f_k+1),
 *   p_k+1 = p_k+1/2 + h/2 (f_k+1 - mu_k+1^T lam_k+1).
 *   lam_0 = 0 (paper, Remark 1) or the consistent lam_0 = (mu M^-1 mu^T)^-1 mu M^-1 f_0 (= gni).
 *
 * shake (A3, eq. 9), constant M: the two-step form, for steps h_k-1, h_k (h_bar their mean)
 *   M (v+ - v-) = h_bar (f_k - mu_k^T lam_k),   mu_k (h_k-1 v+ + h_k v-) = 0,
 *   v- = (q_k - q_k-1)/h_k-1,  v+ = (q_k+1 - q_k)/h_k           (h_k-1 = h_k: eq. 9 exactly)
 *   started with q_-1 = q_0 - h M^-1 (p_0 - h/2 P^T f_0) (reproduces A5's q_1); the nodal velocity
 *   handed back is RATTLE's, p_k+1 = P^T (M v+ + h/2 f_k+1).
 *
 * The driver's state is the nodal (q_k, v_k). What a two-step method carries beyond it (gni:
 * the incoming momentum p+_k, whose constraint-normal part -Q^T p+_k the nodal p_k = P^T p+_k
 * does not hold and which the jump reflects; rattle: lam_k; shake: q_k-1 and h_k-1) is kept in the workspace, keyed
 * by the exact (q, v) of the step end it belongs to. A step from that state continues the
 * recursion; a step from any other state (the first one, the state after an impact, after
 * nh_sim_set_state) restarts with the start rule. Partial steps from the same state (event
 * location: step(x0, tau), tau < h) reuse the carried value with the shorter step, which is
 * the variable-step form above, so a located impact state is a genuine step of the method.
 * Constant M, no forces or potential, one or two constraints and n <= 6: the free-motion
 * kernel, eq. 14 in velocity form v_k+1/2 = v_k-1/2 - 2 M^-1 A^T G^-1 A v_k-1/2, on local
 * vectors, step by step or over a run (nh_method.advance); G^-1 kept for a constant G. Its
 * statements have one source, src/lang/gni_kernel.h: compiled here (gni_free.h) and written
 * into a model file's C, whose run then has the constraint inlined (src/lang/codegen_gni.c). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "methods/vi.h"
#include "methods/vi_qm.h"

/* out_k = 1/2 v^T dM_k v (dM[(k n + i) n + j]) */
static void quad_dM(int n, const double *dM, const double *v, double *out) {
  for (int k = 0; k < n; k++) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += v[i] * nh_la_dot(n, dM + ((size_t)k * n + i) * n, v);
    out[k] = 0.5 * s;
  }
}

/* the magnitude of the momentum residual's terms (vi.h, VI_RES_SCALE_FLOOR): mv = max |M v|,
 * quad and dv the vectors 1/2 v^T dM v and dV */
static double dl_mag(int n, double h, double mv, const double *pm, const double *quad, const double *dv) {
  const double m = fmax(mv, nh_la_norm_inf(n, pm));
  return fmax(fmax(m, 0.5 * h * fmax(nh_la_norm_inf(n, quad), nh_la_norm_inf(n, dv))), VI_RES_SCALE_FLOOR);
}

/* -D1 L_d(q0, q1) - pm into r (and its q1-Jacobian into J when J != NULL), the magnitude of its
 * terms into *mag (the residual's scale, vi.h).
 * trapezoidal: -D1 = 1/2 (M0 + M1) v - h/2 (1/2 v^T dM(q0) v - dV(q0))
 * midpoint:    -D1 = M(qb) v - h/2 (1/2 v^T dM(qb) v - dV(qb)),  qb = (q0 + q1)/2
 * Needs w->M0, w->dM0 and w->g = dV(q0) at q0 (trapezoidal). */
static int dl_residual(const nh_model *mo, vi_ws *w, int midpoint, const double *q0, const double *q1, double h,
                       const double *pm, double *r, double *J, double *mag) {
  const int n = w->n;
  double *v = w->v, *qb = w->tmp2, mv = 0.0;
  int rc;
  for (int i = 0; i < n; i++) v[i] = (q1[i] - q0[i]) / h;
  if (!midpoint) {
    if ((rc = nh_cb(mo->mass(q1, w->M1, mo->user)))) return rc;
    quad_dM(n, w->dM0, v, w->tmp);
    for (int i = 0; i < n; i++) {
      double s = 0.0;
      for (int j = 0; j < n; j++) s += 0.5 * (w->M0[i * n + j] + w->M1[i * n + j]) * v[j];
      r[i] = s - 0.5 * h * (w->tmp[i] - w->g[i]) - pm[i];
      mv = fmax(mv, fabs(s));
    }
    *mag = dl_mag(n, h, mv, pm, w->tmp, w->g);
    if (!J) return 0;
    if ((rc = nh_model_mass_deriv(mo, q1, w->dM1, w->dwork))) return rc;
    for (int i = 0; i < n; i++)
      for (int l = 0; l < n; l++) {
        double s = 0.5 * (w->M0[i * n + l] + w->M1[i * n + l]) / h;
        s += 0.5 * nh_la_dot(n, w->dM1 + ((size_t)l * n + i) * n, v);
        double u = 0.0;
        for (int a = 0; a < n; a++) u += w->dM0[((size_t)i * n + a) * n + l] * v[a];
        J[i * n + l] = s - 0.5 * u;
      }
    return 0;
  }
  for (int i = 0; i < n; i++) qb[i] = 0.5 * (q0[i] + q1[i]);
  if ((rc = nh_cb(mo->mass(qb, w->M1, mo->user)))) return rc;
  if ((rc = nh_model_mass_deriv(mo, qb, w->dM1, w->dwork))) return rc;
  vzero(n, w->z);
  if (mo->potential && (rc = nh_cb(mo->potential(qb, NULL, w->z, mo->user)))) return rc;
  quad_dM(n, w->dM1, v, w->tmp);
  for (int i = 0; i < n; i++) {
    const double s = nh_la_dot(n, w->M1 + (size_t)i * n, v);
    r[i] = s - 0.5 * h * (w->tmp[i] - w->z[i]) - pm[i];
    mv = fmax(mv, fabs(s));
  }
  *mag = dl_mag(n, h, mv, pm, w->tmp, w->z);
  if (!J) return 0;
  if ((rc = nh_model_mass_deriv2(mo, qb, w->d2M, w->dwork))) return rc;
  memset(w->H, 0, sizeof(double) * (size_t)n * n);
  if (mo->potential && (rc = nh_model_potential_hess(mo, qb, w->H, w->dwork))) return rc;
  // J_kl = M_kl/h + 1/2 (dM_l v)_k - h/4 (1/2 v^T d2M_kl v - H_kl) - 1/2 (dM_k v)_l
  for (int k = 0; k < n; k++)
    for (int l = 0; l < n; l++) {
      double s = w->M1[k * n + l] / h + 0.5 * nh_la_dot(n, w->dM1 + ((size_t)l * n + k) * n, v);
      double q2 = 0.0;
      for (int i = 0; i < n; i++) q2 += v[i] * nh_la_dot(n, w->d2M + (((size_t)k * n + l) * n + i) * n, v);
      s -= 0.25 * h * (0.5 * q2 - w->H[k * n + l]);
      s -= 0.5 * nh_la_dot(n, w->dM1 + ((size_t)k * n + l) * n, v);
      J[k * n + l] = s;
    }
  return 0;
}

/* D2 L_d(q0, q1) into out (after dl_residual at the solution: w->M1 / dM1 hold q1 / qb) */
static int dl_d2(const nh_model *mo, vi_ws *w, int midpoint, const double *q0, const double *q1,
                 double h, double *out) {
  const int n = w->n;
  double *v = w->v;
  int rc;
  for (int i = 0; i < n; i++) v[i] = (q1[i] - q0[i]) / h;
  if (!midpoint) {
    if ((rc = nh_model_mass_deriv(mo, q1, w->dM1, w->dwork))) return rc;
    vzero(n, w->z);
    if (mo->potential && (rc = nh_cb(mo->potential(q1, NULL, w->z, mo->user)))) return rc;
    quad_dM(n, w->dM1, v, w->tmp);
    for (int i = 0; i < n; i++) {
      double s = 0.0;
      for (int j = 0; j < n; j++) s += 0.5 * (w->M0[i * n + j] + w->M1[i * n + j]) * v[j];
      out[i] = s + 0.5 * h * (w->tmp[i] - w->z[i]);
    }
    return 0;
  }
  // midpoint: w->M1, w->dM1 and w->z (dV) hold the values at qb from dl_residual
  quad_dM(n, w->dM1, v, w->tmp);
  for (int i = 0; i < n; i++) out[i] = nh_la_dot(n, w->M1 + (size_t)i * n, v) + 0.5 * h * (w->tmp[i] - w->z[i]);
  return 0;
}

/* Solve -D1 L_d(q0, q1) = pm for q1 (guess in q1) by Newton; statistics into s. */
static int dl_solve(nh_stepper *s, vi_ws *w, int midpoint, const double *q0, double h,
                    const double *pm, double *q1) {
  const nh_model *mo = s->model;
  const int n = w->n;
  double res = INFINITY, mag;
  int it, rc, tiny = 0;
  for (it = 0; it <= s->opts.newton_max_iter; it++) {
    if ((rc = dl_residual(mo, w, midpoint, q0, q1, h, pm, w->r, NULL, &mag))) return rc;
    res = nh_la_norm_inf(n, w->r) / mag;
    if (res <= s->opts.newton_tol || it == s->opts.newton_max_iter) break;
    if (tiny && res <= vi_roundoff_tol(n, w->M0, q1, h, mag, s->opts.newton_tol)) break; /* at round-off: accepted */
    if ((rc = dl_residual(mo, w, midpoint, q0, q1, h, pm, w->r, w->J, &mag))) return rc;
    if (nh_la_lu(n, w->J, w->piv, VI_PIVOT_TOL) != NH_OK) {
      snprintf(s->msg, sizeof s->msg, "singular Newton matrix (discrete Lagrangian not regular)");
      return NH_ERR_SINGULAR;
    }
    nh_la_lu_solve(n, w->J, w->piv, w->r);
    nh_la_axpy(n, -1.0, w->r, q1);
    tiny = nh_la_norm_inf(n, w->r) <= VI_NEWTON_DQ_ULPS * DBL_EPSILON * nh_la_norm_inf(n, q1);
  }
  nh_stepper_solved(s, it, res);
  if (!(res <= s->opts.newton_tol || (tiny && res <= vi_roundoff_tol(n, w->M0, q1, h, mag, s->opts.newton_tol)))) {
    snprintf(s->msg, sizeof s->msg, "Newton did not converge in %d iterations (residual %.3e)", it, res);
    return NH_ERR_NO_CONVERGENCE;
  }
  return 0;
}

/* ---- gni and del ---------------------------------------------------------------------- */

/* ---- the free-motion kernel of gni (gni_free.h) ----------------------------------- */

#include "methods/gni_free.h"

/* The second half of a gni/del step, from the outgoing momentum p-_k on (vi_body has the
 * carried p+_k, the forces and the projector at q_k in place); constM, midpoint as in vi_body.
 * (gni's free-motion kernel, gk_step of gni_kernel.h, is the same map in velocity form.) */
VI_INLINE int vi_tail_k(nh_stepper *s, vi_ws *w, double t, const double *x0, double h, double *x1, int constM,
                        int midpoint, const int n, const int m) {
  const nh_model *mo = s->model;
  const int fast = constM && !midpoint;
  const int forced = mo->force != NULL, pot = mo->potential != NULL;
  const double *q0 = x0;
  double *q1 = x1, *v1 = x1 + n;
  double *pm = w->pm, *z = w->z, *v = w->v;
  int rc;
  // outgoing p-_k = p+ - (1 + h/h_k-1) Q^T p+ + (h_k-1 + h)/2 P^T f  (= S p+ + h P^T f for equal
  // steps; for h != h_k-1 the reflected normal part scales with h; -(1 + h/h) = -2 exactly)
  qt_k(w, n, m, w->Gi, w->cin, z, 0);
  const double hin = *w->hin, a = h == hin ? -2.0 : -(1.0 + h / hin);
  NH_LA_UNROLL_FULL
  for (int i = 0; i < n; i++) {
    pm[i] = w->cin[i];
    pm[i] += a * z[i];
  }
  if (forced) nh_la_axpy_fixed(n, 0.5 * (hin + h), w->f, pm);
  // q_k+1 from -D1 L_d(q_k, q_k+1) = p-_k
  if (fast) {
    if (pot) {
      NH_LA_UNROLL
      for (int i = 0; i < n; i++) w->phalf[i] = pm[i] - 0.5 * h * w->g[i]; /* M v_k+1/2 */
    } else {
      nh_la_copy_fixed(n, pm, w->phalf);
    }
    msolve_n(w, n, w->L0, pot ? w->phalf : pm, v);
    NH_LA_UNROLL
    for (int i = 0; i < n; i++) q1[i] = q0[i] + h * v[i];
  } else {
    msolve_n(w, n, w->L0, pm, v);
    for (int i = 0; i < n; i++) q1[i] = q0[i] + h * v[i];
    if ((rc = dl_solve(s, w, midpoint, q0, h, pm, q1))) return rc;
    for (int i = 0; i < n; i++) v[i] = (q1[i] - q0[i]) / h;
    nh_la_gemv(n, n, w->M0, v, w->phalf);
  }
  s->end_C = 0.5 * nh_la_dot_fixed(n, v, fast && !pot ? pm : w->phalf); /* the half-step energy */
  const double *L1 = constM ? w->L0 : w->L1; /* the factor of M(q_k+1) */
  // incoming momentum at q_k+1: p+ = D2 L_d(q_k, q_k+1)
  double *pp = w->p;
  if (fast) {
    nh_la_copy_fixed(n, w->phalf, pp);
    if (pot) {
      vzero(n, w->z);
      if ((rc = nh_cb(mo->potential(q1, NULL, w->z, mo->user)))) return rc;
      nh_la_axpy_fixed(n, -0.5 * h, w->z, pp);
    }
  } else {
    if ((rc = dl_d2(mo, w, midpoint, q0, q1, h, pp))) return rc;
    if (vi_floor_r(s, w)) nh_la_axpy(n, -1.0, w->r, pp); /* a solve at its rounding floor */
    if (!constM && (rc = mass_factor(mo, q1, w->M1, w->L1, 0, NULL, NULL, NULL))) return rc;
  }
  // at q_k+1: projector, force; nodal momentum and the carried part
  if ((rc = proj_setup_k(mo, w, n, m, q1, L1))) return rc;
  if (forced) {
    for (int i = 0; i < n; i++) w->v[i] = (q1[i] - q0[i]) / h;
    if ((rc = force(mo, t + h, q1, w->v, 0, w->f, w->tmp))) return rc;
  }
  double *zq = w->tmp2;
  nh_la_copy_fixed(n, pp, w->cout); /* carried: p+_k+1 */
  qt_k(w, n, m, w->Gi, pp, zq, 0);
  *w->zvalid = 0.0;
  if (forced) {
    qt_apply_n(w, n, w->f, w->tmp); /* P^T f */
    nh_la_axpy_fixed(n, -1.0, w->tmp, w->f);
    for (int i = 0; i < n; i++) pp[i] += 0.5 * h * w->f[i] - zq[i]; /* p_k+1 = P^T (p+ + h/2 f) */
  } else {
    NH_LA_UNROLL_FULL
    for (int i = 0; i < n; i++) pp[i] -= zq[i];
  }
  msolve_n(w, n, L1, pp, v1);
  *w->pvalid = 1.0;
  set_key(w->kout, t + h, x1, 2 * n);
  *w->hout = h;
  vi_end(s, w, constM ? w->M0 : w->M1, x1);
  return 0;
}

/* the shapes the free-motion kernel is compiled for, X(n, m, diag): n = 2..6 coordinates,
 * m = 1, 2 constraints, M full or diagonal (keyed by GK_SHAPE, as a model file's kernel) */
#define GNI_FREE_N(X, n) X(n, 1, 0) X(n, 1, 1) X(n, 2, 0) X(n, 2, 1)
#define GNI_FREE_SHAPES(X) GNI_FREE_N(X, 2) GNI_FREE_N(X, 3) GNI_FREE_N(X, 4) GNI_FREE_N(X, 5) GNI_FREE_N(X, 6)

/* the gni free-motion kernel for this model (gk_step with its n, m, diag), 0 for none */
static int free_code(const nh_model *mo, const vi_ws *w) {
  if (mo->coriolis || mo->force || mo->potential || *w->mfact != 1.0 || w->m != w->mc || w->m < 1 || w->m > 2 ||
      w->n < 2 || w->n > 6)
    return 0; /* (with a contact closed: the general step) */
  return GK_SHAPE(w->n, w->m, *w->mdiag == 1.0);
}

/* a step of gni or del once vi_resolve has decided where the carried vector comes from */
VI_INLINE int vi_body_n(nh_stepper *s, vi_ws *w, double t, const double *x0, double h, double *x1,
                        int kind, const int n, int fresh, int cont) {
  const nh_model *mo = s->model;
  const int nx = 2 * n;
  const double *q0 = x0, *v0 = x0 + n;
  const int constM = mo->coriolis == NULL, midpoint = kind == VI_DEL && s->opts.midpoint_ld;
  const int fast = constM && !midpoint; /* -D1 L_d is linear in q1 */
  int rc;
  if (!fast && !vi_dense_dM(mo)) return NH_ERR_UNSUPPORTED; /* no dM buffers (VI_DENSE_DM_MAX) */
  if (kind == VI_GNI) vi_active(s, w); /* the closed contacts' rows after the model's */
  // at q_k: M, projector (kept from the last step when continuing from its end), forces (the
  // potential is inside L_d)
  // (absent forces and potential: f and g are zero from the restart on, and terms adding
  // them are skipped)
  if (!(constM && *w->mfact == 1.0) && (rc = mass_factor(mo, q0, w->M0, w->L0, constM, w->mfact, w->Minv, w->mdiag)))
    return rc;
  if (kind == VI_GNI) w->free = free_code(mo, w);
  if (!fast && (rc = nh_model_mass_deriv(mo, q0, w->dM0, w->dwork))) return rc;
  if (mo->potential || fresh) vzero(n, w->g);
  if (mo->potential && (rc = nh_cb(mo->potential(q0, NULL, w->g, mo->user)))) return rc;
  if (!(cont && constM) && (rc = proj_setup(mo, w, q0, w->L0))) return rc;
  *w->pvalid = 0.0;
  if (mo->force || fresh) vzero(n, w->f);
  if (mo->force) {
    if ((rc = force(mo, t, q0, v0, 0, w->f, w->tmp))) return rc;
    qt_apply_n(w, n, w->f, w->tmp); /* P^T f */
    nh_la_axpy_fixed(n, -1.0, w->tmp, w->f);
  }
  // the incoming momentum p+_k: carried (exact, no round trip through v), or at a restart
  // built from the nodal p_k = M v_k: P^T p+ = p_k - h/2 P^T f, Q^T p+ = -c_0 with
  // paper start (eq. 16: M v_1/2 = p_0 + h/2 P^T (f - dV)): c_0 = h/2 Q^T dV(q_0);
  // midpoint start: c_0 in span A(q_0)^T with the constraint at q_0 + h/2 v_1/2
  if (fresh) {
    double *c0 = w->tmp2;
    qt_apply(w, w->g, c0);
    nh_la_scale(n, 0.5 * h, c0);
    nh_la_gemv(n, n, w->M0, v0, w->pm);
    nh_la_axpy(n, 0.5 * h, w->f, w->pm);
    if (kind == VI_GNI && s->opts.start == NH_START_MIDPOINT && w->m > 0) {
      nh_la_axpy(n, -0.5 * h, w->g, w->pm); /* M v_1/2 without c */
      if ((rc = vi_midpoint_start(s, w, q0, h, w->pm, c0))) return rc;
    }
    nh_la_gemv(n, n, w->M0, v0, w->cin);
    nh_la_axpy(n, -0.5 * h, w->f, w->cin);
    nh_la_axpy(n, -1.0, c0, w->cin);
    *w->hin = h;
    set_key(w->kin, t, x0, nx);
  }
  return vi_tail_k(s, w, t, x0, h, x1, constM, midpoint, n, w->m);
}

VI_INLINE int vi_step_n(nh_stepper *s, vi_ws *w, double t, const double *x0, double h, double *x1,
                        int kind, const int n) {
  s->evals++;
  int cont, fresh = vi_resolve(s, w, n, t, x0, &cont); /* the carried incoming momentum */
  return vi_body_n(s, w, t, x0, h, x1, kind, n, fresh, cont);
}

/* vi_step_n and vi_body_n compiled for the small n of most models */
static int vi_step(nh_stepper *s, double t, const double *x0, double h, double *x1, int kind) {
  vi_ws *w = vi_get(s);
  switch (w->n) {
  case 2: return vi_step_n(s, w, t, x0, h, x1, kind, 2);
  case 3: return vi_step_n(s, w, t, x0, h, x1, kind, 3);
  case 4: return vi_step_n(s, w, t, x0, h, x1, kind, 4);
  case 5: return vi_step_n(s, w, t, x0, h, x1, kind, 5);
  case 6: return vi_step_n(s, w, t, x0, h, x1, kind, 6);
  default: return vi_step_n(s, w, t, x0, h, x1, kind, w->n);
  }
}
static int vi_body(nh_stepper *s, vi_ws *w, double t, const double *x0, double h, double *x1, int kind,
                   int fresh, int cont) {
  switch (w->n) {
  case 2: return vi_body_n(s, w, t, x0, h, x1, kind, 2, fresh, cont);
  case 3: return vi_body_n(s, w, t, x0, h, x1, kind, 3, fresh, cont);
  case 4: return vi_body_n(s, w, t, x0, h, x1, kind, 4, fresh, cont);
  case 5: return vi_body_n(s, w, t, x0, h, x1, kind, 5, fresh, cont);
  case 6: return vi_body_n(s, w, t, x0, h, x1, kind, 6, fresh, cont);
  default: return vi_body_n(s, w, t, x0, h, x1, kind, w->n, fresh, cont);
  }
}

/* gni with a free-motion kernel (w->free): the kernel when continuing, else the general step */
VI_INLINE int gni_free_step_n(nh_stepper *s, vi_ws *w, double t, const double *x0, double h, double *x1,
                              const int n, const int m, const int diag) {
  s->evals++;
  int cont, fresh = vi_resolve(s, w, n, t, x0, &cont);
  if (!cont) return vi_body(s, w, t, x0, h, x1, VI_GNI, fresh, cont);
  *w->pvalid = 0.0;
  return gni_free_tail(s, w, t, x0, h, x1, n, m, diag);
}

static int gni_step(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err) {
  if (err) *err = 0.0;
  if (s->opts.variant == NH_VARIANT_SYMMETRIC) return nh_vi_sym_step(s, t, x0, h, x1); /* vi_sym.c */
  vi_ws *w = vi_get(s);
  switch (w->free) { /* the models with a free-motion kernel (free_code) */
#define VI_FREE(n, m, diag) \
  case GK_SHAPE(n, m, diag): return gni_free_step_n(s, w, t, x0, h, x1, n, m, diag);
    GNI_FREE_SHAPES(VI_FREE)
#undef VI_FREE
  default: return vi_step(s, t, x0, h, x1, VI_GNI);
  }
}

static int gni_advance(nh_stepper *s, const double *x0, double *x1, nh_advance *ad) {
  ad->done = 0;
  if (s->opts.variant == NH_VARIANT_SYMMETRIC) return 0; /* the paper's form only */
  vi_ws *w = vi_get(s);
  switch (w->free) { /* the models with a free-motion kernel (free_code) */
#define VI_FREE(n, m, diag) \
  case GK_SHAPE(n, m, diag): return gni_advance_k(s, w, x0, x1, ad, n, m, diag);
    GNI_FREE_SHAPES(VI_FREE)
#undef VI_FREE
  default: return 0;
  }
}

/* The scales of del's KKT matrix [J, h/2 A0^T; A1, 0]: *cs for the multipliers' columns and *rs
 * for the constraint rows, so that both blocks are of the size of J (max norms). In a model in
 * CGS units (TREX: |J| ~ |M|/h ~ 1e8 against |A| ~ 1, h/2 |A| ~ 5e-4) the Schur complement
 * h/2 A J^-1 A^T is 1e-20 of max|K|, below the LU's relative pivot test: a contact held as a
 * constraint read as a singular matrix. Scales are powers of 2 (exact: the bits of the solve
 * do not depend on them beyond the pivoting); 1 where a block is zero or not finite. */
static void del_kkt_scale(int n, int m, double h, const double *J, const double *A0, const double *A1, double *cs,
                          double *rs) {
  const double jn = nh_la_norm_inf(n * n, J), a0 = 0.5 * fabs(h) * nh_la_norm_inf(m * n, A0),
               a1 = nh_la_norm_inf(m * n, A1);
  *cs = a0 > 0.0 && jn > 0.0 && isfinite(jn / a0) ? exp2(round(log2(jn / a0))) : 1.0;
  *rs = a1 > 0.0 && jn > 0.0 && isfinite(jn / a1) ? exp2(round(log2(jn / a1))) : 1.0;
}

/* del with holonomic constraints phi(q) = 0, A = dphi/dq (the variational RATTLE):
 *   -D1 L_d(q_k, q_k+1) = p_k + h/2 (f_k - A(q_k)^T lam),   phi(q_k+1) = 0      (Newton in q_k+1, lam)
 *   p_k+1 = P(q_k+1)^T (D2 L_d(q_k, q_k+1) + h/2 f_k+1)       (A(q_k+1) M^-1 p_k+1 = 0)
 * phi: the model's holonomic rows (mc), then the closed gaps g_i (vi_active: A's rows are their
 * gradients). One step from the nodal (q_k, p_k): nothing is carried. */
static int del_holonomic_step(nh_stepper *s, vi_ws *w, double t, const double *x0, double h, double *x1) {
  const nh_model *mo = s->model;
  const int n = w->n, m = w->m, mc = w->mc, nk = n + m, midpoint = s->opts.midpoint_ld;
  const double *q0 = x0, *v0 = x0 + n;
  double *q1 = x1, *lam = w->rz + n;
  int rc;
  s->evals++;
  // at q_k: M, dM, dV, A(q_k), forces; the outgoing momentum without the reaction
  if ((rc = mass_factor(mo, q0, w->M0, w->L0, 0, NULL, NULL, NULL))) return rc;
  if ((rc = nh_model_mass_deriv(mo, q0, w->dM0, w->dwork))) return rc;
  vzero(n, w->g);
  if (mo->potential && (rc = nh_cb(mo->potential(q0, NULL, w->g, mo->user)))) return rc;
  vzero(n, w->tmp2);
  if ((rc = vi_rows(mo, w, q0, w->A0))) return rc;
  if ((rc = force(mo, t, q0, v0, 0, w->f, w->tmp))) return rc;
  nh_la_gemv(n, n, w->M0, v0, w->p);
  nh_la_axpy(n, 0.5 * h, w->f, w->p);
  // Newton on (q_k+1, lam) from (q_k + h v_k, 0)
  for (int i = 0; i < n; i++) q1[i] = q0[i] + h * v0[i];
  vzero(m, lam);
  double res = INFINITY, mag;
  int it, tiny = 0;
  for (it = 0; it <= s->opts.newton_max_iter; it++) {
    nh_la_copy(n, w->p, w->pm);
    for (int k = 0; k < m; k++) nh_la_axpy(n, -0.5 * h * lam[k], w->A0 + (size_t)k * n, w->pm);
    if ((rc = dl_residual(mo, w, midpoint, q0, q1, h, w->pm, w->r, w->J, &mag))) return rc;
    if (mc > 0 && (rc = nh_cb(mo->holonomic(q1, w->zz, mo->user)))) return rc;
    if ((rc = vi_rows(mo, w, q1, w->A))) return rc;
    for (int k = mc; k < m; k++) w->zz[k] = w->gv[w->act[k - mc]]; /* the closed gaps (vi_rows) */
    // momentum residual relative to its terms, phi(q_k+1) to |A(q_k+1)| times the position
    // scale: |q_k+1|, or the step's own displacement h mag / |M| where that is larger (a point
    // held at the vertex of a corner, q ~ 1e-59: the rows' rounding is not relative to |q|)
    const double uq = fmax(nh_la_norm_inf(n, q1), fabs(h) * mag / fmax(nh_la_mat_norm_inf(n, n, w->M0), DBL_MIN));
    res = fmax(nh_la_norm_inf(n, w->r) / mag, vi_rows_rel(m, n, w->zz, w->A, uq));
    if (res <= s->opts.newton_tol || it == s->opts.newton_max_iter) break;
    if (tiny && res <= vi_roundoff_tol(n, w->M0, q1, h, mag, s->opts.newton_tol)) break; /* at round-off: accepted */
    // K = [J, cs h/2 A(q_k)^T; rs A(q_k+1), 0], the multipliers' columns and the constraint
    // rows scaled to J's size (del_kkt_scale)
    double cs, rs;
    del_kkt_scale(n, m, h, w->J, w->A0, w->A, &cs, &rs);
    for (int i = 0; i < nk; i++)
      for (int j = 0; j < nk; j++)
        w->K[i * nk + j] = i < n && j < n   ? w->J[i * n + j]
                          : i < n          ? cs * 0.5 * h * w->A0[(size_t)(j - n) * n + i]
                          : j < n          ? rs * w->A[(size_t)(i - n) * n + j]
                                           : 0.0;
    if (nh_la_lu(nk, w->K, w->kpiv, VI_PIVOT_TOL) != NH_OK) {
      snprintf(s->msg, sizeof s->msg, "del: singular Newton matrix (constraints dependent?)");
      return NH_ERR_SINGULAR;
    }
    double step[DEL_MAX_UNKNOWNS]; /* nq + nc (+ held gaps) <= DEL_MAX_UNKNOWNS (supports, del_hold) */
    for (int i = 0; i < n; i++) step[i] = w->r[i];
    for (int k = 0; k < m; k++) step[n + k] = rs * w->zz[k];
    nh_la_lu_solve(nk, w->K, w->kpiv, step);
    for (int i = 0; i < n; i++) q1[i] -= step[i];
    for (int k = 0; k < m; k++) lam[k] -= cs * step[n + k];
    tiny = nh_la_norm_inf(n, step) <= VI_NEWTON_DQ_ULPS * DBL_EPSILON * nh_la_norm_inf(n, q1);
  }
  nh_stepper_solved(s, it, res);
  if (!(res <= s->opts.newton_tol || (tiny && res <= vi_roundoff_tol(n, w->M0, q1, h, mag, s->opts.newton_tol)))) {
    snprintf(s->msg, sizeof s->msg, "del: Newton did not converge in %d iterations (residual %.3e)", it, res);
    return NH_ERR_NO_CONVERGENCE;
  }
  // accepted on a rounding floor past the slack (a partial step of event location of 1e-14 s):
  // p+ from the solved momentum (nh_vi_del_finish)
  const int floor = res > VI_NEWTON_RES_SLACK * s->opts.newton_tol;
  return nh_vi_del_finish(s, w, midpoint, t, q0, q1, h, floor ? w->r : NULL, x1);
}

/* how del holds closed contacts: as position constraints of its step where its holonomic
 * Newton matrix takes them (no nonholonomic rows; coordinates, constraints and gaps together
 * within its dense bound), else the driver projects its steps */
static nh_contact_hold del_hold(const nh_model *mo, const nh_method_opts *opts) {
  (void)opts;
  return (mo->nc == 0 || mo->holonomic) && mo->nq + mo->nc + (int)vi_ngap(mo) <= DEL_MAX_UNKNOWNS ? NH_HOLD_CONSTRAINT
                                                                                               : NH_HOLD_PROJECT;
}

static int del_step(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err) {
  const nh_model *mo = s->model;
  if (err) *err = 0.0;
  if (mo->nc > 0 && !mo->holonomic) return nh_del_nh_step(s, t, x0, h, x1); /* vi_qm.c */
  vi_ws *w = vi_get(s);
  // the model's rows, and the closed contacts' when del holds them
  if (del_hold(mo, &s->opts) == NH_HOLD_CONSTRAINT) vi_active(s, w);
  else w->m = w->mc, w->act = NULL;
  if (w->m > 0) return del_holonomic_step(s, w, t, x0, h, x1);
  return vi_step(s, t, x0, h, x1, VI_DEL);
}

/* ---- rattle and shake (constant M) ---------------------------------------------------- */

/* Dense output of the fixed-step structure-preserving methods: linear in q and v over the step
 * (the discrete path between nodes is a chord; only used to bracket events, which the driver
 * then locates with genuine partial steps). */
int nh_dense_linear(nh_stepper *s, double t, const double *x0, double h, const double *x1,
                    double theta, double *x) {
  (void)t, (void)h;
  for (int i = 0; i < s->nx; i++) x[i] = x0[i] + theta * (x1[i] - x0[i]);
  return 0;
}

const double *nh_vi_half_momentum(const nh_stepper *s) {
  if (s->method != &nh_method_gni && s->method != &nh_method_rattle && s->method != &nh_method_shake &&
      s->method != &nh_method_del)
    return NULL;
  nh_stepper *ms = (nh_stepper *)s;
  vi_ws *w = vi_get(ms);
  return w->phalf;
}

void nh_vi_carried(nh_stepper *s, double *c) {
  vi_ws *w = vi_get(s);
  nh_la_copy(w->n, w->cout, c);
}

void nh_vi_set_carried(nh_stepper *s, double t, const double *x, const double *c, double h_prev) {
  vi_ws *w = vi_get(s);
  set_key(w->kout, t, x, 2 * w->n);
  nh_la_copy(w->n, c, w->cout);
  *w->hout = h_prev;
  *w->zvalid = 0.0;
  *w->pvalid = 0.0; /* the projector in the workspace is not at x's q */
  s->restart = 0;
}

void nh_vi_moved(nh_stepper *s, const double *x_old, const double *x_new) {
  vi_ws *w = vi_get(s);
  const int nx = 2 * w->n;
  if (!key_eq(w->kout, w->kout[0], x_old, nx)) return; /* not the end of the last step: restarts */
  set_key(w->kout, w->kout[0], x_new, nx);
  *w->zvalid = 0.0;
  *w->pvalid = 0.0; /* the projector in the workspace is at x_old's q */
}

static int unconstrained_or_holonomic(const nh_model *mo) {
  if (vi_mechanical(mo) != NH_OK) return NH_ERR_UNSUPPORTED;
  return mo->nc == 0 || (mo->holonomic && mo->nq + mo->nc <= DEL_MAX_UNKNOWNS) || nh_del_nh_supports(mo) == NH_OK ? NH_OK
                                                                                       : NH_ERR_UNSUPPORTED;
}

const nh_method nh_method_gni = {
    .name = "gni",
    .summary = "nonholonomic GNI restarted at every node: symmetric one-step form (default); --variant paper: the momentum-jump form (eqs. 5, 14-16)",
    .preserves = "energy exactly for V = 0, no forces, constant M; constraints exactly at the nodes; symmetric, no period-2 mode",
    .order = 2,
    .flags = NH_METHOD_SYMMETRIC | NH_METHOD_ENERGY | NH_METHOD_ENERGY_NO_V | NH_METHOD_HALF_STEP,
    .work_size = nh_vi_dlad_work_size,
    .supports = vi_mechanical,
    .step = gni_step,
    .dense = nh_dense_linear,
    .contact = NH_HOLD_ROWS,
    .hold = nh_vi_sym_hold,
    .moved = nh_vi_moved,
    .advance = gni_advance,
};

/* the discrete Lagrangian's pieces for the q-dependent M steps of vi_qm.c, rattle_shake.c */
int nh_vi_dl_residual(const nh_model *mo, vi_ws *w, int midpoint, const double *q0, const double *q1, double h,
                      const double *pm, double *r, double *J, double *mag) {
  return dl_residual(mo, w, midpoint, q0, q1, h, pm, r, J, mag);
}
int nh_vi_dl_d2(const nh_model *mo, vi_ws *w, int midpoint, const double *q0, const double *q1, double h, double *out) {
  return dl_d2(mo, w, midpoint, q0, q1, h, out);
}

int nh_vi_del_finish(nh_stepper *s, vi_ws *w, int midpoint, double t, const double *q0, const double *q1, double h,
                     const double *r, double *x1) {
  const nh_model *mo = s->model;
  const int n = w->n;
  double *v1 = x1 + n;
  int rc;
  // p+ = D2 L_d + h/2 f_k+1, then the projection onto the constraint at q_k+1; with r, D2 L_d - r:
  // the momentum the step solved for (-D1 L_d - r = p_k + ...) plus D1 L_d + D2 L_d, which
  // holds the difference quotient (q1 - q0)/h only times h. D2 L_d alone carries its rounding,
  // eps |q| / h, which a partial step of 1e-14 s of event location makes a velocity error of 1e-2
  // (a solve accepted at its rounding floor, where r is that large)
  if ((rc = dl_d2(mo, w, midpoint, q0, q1, h, w->p))) return rc;
  if (r) nh_la_axpy(n, -1.0, r, w->p);
  if ((rc = mass_factor(mo, q1, w->M1, w->L1, 0, NULL, NULL, NULL))) return rc;
  if ((rc = proj_setup(mo, w, q1, w->L1))) return rc;
  for (int i = 0; i < n; i++) w->v[i] = (q1[i] - q0[i]) / h;
  if ((rc = force(mo, t + h, q1, w->v, 0, w->f, w->tmp))) return rc;
  nh_la_axpy(n, 0.5 * h, w->f, w->p);
  pt_inplace(w, w->p, w->tmp);
  nh_la_copy(n, w->p, w->phalf);
  msolve_w(w, w->L1, w->p, v1);
  vi_end(s, w, w->M1, x1);
  return 0;
}

const nh_method nh_method_del = {
    .name = "del",
    .summary = "discrete Euler-Lagrange variational integrator (eq. 2), trapezoidal or midpoint L_d; holonomic constraints by multipliers, nonholonomic by discrete Lagrange-d'Alembert",
    .preserves = "symplectic form (no nonholonomic constraint); momentum maps of symmetries; energy to O(h^2) without drift",
    .order = 2,
    .flags = NH_METHOD_SYMMETRIC | NH_METHOD_IMPLICIT,
    .work_size = nh_del_work_size,
    .supports = unconstrained_or_holonomic,
    .step = del_step,
    .dense = nh_dense_linear,
    .contact = NH_HOLD_PROJECT,
    .hold = del_hold,
};
