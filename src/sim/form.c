/* form.c - the two forms of a model as the driver meets them: a mechanical model, state
 * x = (q, v), gaps on q, impacts through the kinetic metric (nh_impact_map), contacts held as
 * constraint rows or by the metric's projection; and an almost-Poisson model x' = Pi grad H,
 * gaps on the state x, impacts by the jump along d = Pi dg (nh_model_impact_ap), contacts held
 * by the e = 0 jump (docs/contact.md, "Almost-Poisson models"). The form is decided once, at
 * creation (nh_sim_form_of); every file of the driver calls s->form and never tests the form.
 * An almost-Poisson model refuses another gap closing at the same instant: the
 * simultaneous-impact model works on the kinetic metric of the mechanical form
 * (NH_ERR_UNSUPPORTED). */
#include <math.h>
#include <string.h>

#include "impact/hold.h"
#include "sim/sim_impl.h"

/* ---- mechanical form ------------------------------------------------------------------------ */

static const double *mech_vel(const nh_sim *s, const double *x) { return x + s->nq; }

/* the rate dg_i v of gap gi at the current state (s->dg the gradients there) */
static int mech_rate(nh_sim *s, const double *x, int gi, double *r) {
  *r = nh_la_dot(s->nq, s->dg + (size_t)gi * s->nq, x + s->nq);
  return 0;
}

/* gap gi's law at the current state: v mapped by nh_impact_map (M(q) and A(q) are still in
 * scratch from the monitors at this state: energy, residual); a chattering contact in del's
 * variational step takes the plastic map (vi_impact.c); s->vtmp keeps v- */
static int mech_apply(nh_sim *s, int gi, nh_impact_info *info) {
  const nh_model *m = s->model;
  const int nq = s->nq;
  double *v = s->x + nq;
  memcpy(s->vtmp, v, sizeof(double) * (size_t)nq);
  const nh_impact_law law = nh_sim_vi_chatters(s, gi) ? (nh_impact_law){NH_IMPACT_RESTITUTION, 0.0} : m->impact[gi];
  int st = nh_impact_map(nq, s->nc, s->M, s->dyn.A, s->dg + (size_t)gi * nq, s->vtmp, law, &s->def.impact_tol, v,
                         s->lam, info, s->imp_work);
  if (st < 0) sim_msg(s, "impact on '%s' at t = %.17g failed: %s", m->gap_names[gi], s->t, nh_status_string(st));
  return st;
}

/* the closed contacts' forces at (t, x): the stacked multiplier solve's contact rows */
static int mech_contact_lambda(nh_sim *s, double t, const double *x, double *lam) {
  int rc = nh_dyn_accel(&s->dyn, t, x, x + s->nq, s->acc, NULL);
  if (!rc)
    for (int k = 0; k < s->nact; k++) lam[k] = s->dyn.lamc[s->nc + k];
  return rc;
}

/* the free normal acceleration of trial contact k on gap gi from its force lambda: lambda D,
 * D = dg M^-1 dg^T (the column of W for the contact row) */
static double mech_normal_accel(const nh_sim *s, int gi, int k, double lambda) {
  return lambda * nh_la_dot(s->nq, s->dg + (size_t)gi * s->nq, s->dyn.Wc + (size_t)(s->nc + k) * s->nq);
}

const nh_sim_form nh_sim_form_mechanical = {
    "mechanical", 1, 0, "mass or potential", mech_vel, mech_rate, mech_apply, nh_sim_stop_creep,
    nh_sim_contact_hold_rows, mech_contact_lambda, mech_normal_accel,
};

/* ---- almost-Poisson form -------------------------------------------------------------------- */

/* relative step of the central difference of the gap's rate along the flow (its g'') */
#define NH_AP_ACCEL_REL 1e-6

/* the rate g'_i = dg_i . x' at x (s->dg the gradients there; x' left in s->fx; a failure of
 * the vector field says so) */
static int rate_of(nh_sim *s, const double *x, int gi, double *rate) {
  int rc = nh_dyn_rhs(&s->dyn, s->t, x, s->fx);
  if (rc) {
    sim_msg(s, "the vector field failed near t = %.17g (the rate of gap '%s'): %s", s->t, s->model->gap_names[gi],
            rc < 0 ? nh_status_string(rc) : "a positive return: infeasible state");
    return rc < 0 ? rc : NH_ERR_CALLBACK;
  }
  *rate = nh_la_dot(s->nx, s->dg + (size_t)gi * (size_t)s->gd, s->fx);
  return 0;
}

/* g''_i along the free flow at x, by a central difference of the rate (s->dg is left with the
 * gradients at x; scratch s->acc, 2 nx) */
int nh_sim_ap_gap_accel(nh_sim *s, const double *x, int gi, double *acc) {
  const int nx = s->nx;
  double r[2], *F = s->acc, *xt = s->acc + nx;
  int rc = gaps(s, x, NULL, s->dg);
  if (rc || (rc = rate_of(s, x, gi, &r[0]))) return rc; /* (negative: named there) */
  memcpy(F, s->fx, sizeof(double) * (size_t)nx);
  const double fn = nh_la_norm_inf(nx, F), xn = fmax(1.0, nh_la_norm_inf(nx, x));
  *acc = 0.0;
  if (!(fn > 0.0)) return 0;
  const double eps = NH_AP_ACCEL_REL * xn / fn;
  for (int k = 0; k < 2; k++) {
    memcpy(xt, x, sizeof(double) * (size_t)nx);
    nh_la_axpy(nx, k ? -eps : eps, F, xt);
    if ((rc = gaps(s, xt, NULL, s->dg)) || (rc = rate_of(s, xt, gi, &r[k]))) return rc;
  }
  *acc = (r[0] - r[1]) / (2.0 * eps);
  return gaps(s, x, NULL, s->dg);
}

/* the closed contacts' e = 0 jump at x (x0: the step's start, for the mean directions, or
 * NULL): x += sum_l mu_l D_l with K mu = g' (impact/hold.h), so that every closed gap's rate
 * is 0 after it. An adaptive step's error err is raised to the jump's, which the free step's
 * own estimate does not see (the ball's parabola is exact): the difference delta =
 * sum_l mu_l (D_l - d_l(x)) from the jump along the end directions alone is that first-order
 * rule's O(h^2) error; times its relative size |delta| / |jump| (O(h)) it estimates the
 * trapezoidal rule's O(h^3), in the method's tolerances (0 on a flat wall). */
/* a failure of the held contacts' directions and matrix (nh_model_impact_ap_hold: the gap,
 * Poisson or Hamiltonian evaluator) named, as the driver's own evaluations are (sim_impl.h) */
static int hold_failed(nh_sim *s, int rc) {
  if (rc == NH_ERR_CALLBACK)
    sim_msg(s, "the gap, Poisson or Hamiltonian evaluator failed near t = %.17g (the held contacts' jump)", s->t);
  return rc;
}

int nh_sim_ap_hold(nh_sim *s, const double *x0, double *x, double *err) {
  const int na = s->nact, nx = s->nx;
  int rc = nh_model_impact_ap_hold(s->model, na, s->act, x0, x, s->Dstk, s->Wstk, s->Kc, s->bc, s->imp_work);
  if (rc) return hold_failed(s, rc);
  if ((rc = nh_la_qr(na, na, s->Kc, s->tauc, 0.0, NULL)) || (rc = nh_la_qr_solve(na, na, s->Kc, s->tauc, s->bc, 0.0)))
    return rc;
  for (int l = 0; l < na; l++) nh_la_axpy(nx, s->bc[l], s->Dstk + (size_t)l * (size_t)nx, x);
  if (!err || !x0) return 0;
  double e = 0.0, dmax = 0.0, jmax = 0.0;
  for (int j = 0; j < nx; j++) {
    double dj = 0.0, jj = 0.0;
    for (int l = 0; l < na; l++) {
      dj += s->bc[l] * (s->Dstk[(size_t)l * nx + j] - s->Wstk[(size_t)l * nx + j]);
      jj += s->bc[l] * s->Dstk[(size_t)l * nx + j];
    }
    e = fmax(e, fabs(dj) / (s->def.atol + s->def.rtol * fmax(fabs(x0[j]), fabs(x[j]))));
    dmax = fmax(dmax, fabs(dj)), jmax = fmax(jmax, fabs(jj));
  }
  if (jmax > 0.0) e *= dmax / jmax; /* O(h^2) times its relative size O(h): O(h^3) */
  if (e > *err) *err = e;
  return 0;
}

/* the closed contacts' forces at x (act order): the multipliers mu of the held flow
 * x' = Pi grad H + sum mu_l d_l solve K mu = g''_free; lam_k = -K_kk mu_k (for one contact
 * -g''_free: positive while the free flow presses it into its wall) */
int nh_sim_ap_contact_lambda(nh_sim *s, const double *x, double *lam) {
  const int na = s->nact;
  int rc = nh_model_impact_ap_hold(s->model, na, s->act, NULL, x, s->Dstk, NULL, s->Kc, NULL, s->imp_work);
  if (rc) return hold_failed(s, rc);
  for (int k = 0; k < na; k++) {
    lam[k] = s->Kc[(size_t)k * (size_t)na + (size_t)k];
    if ((rc = nh_sim_ap_gap_accel(s, x, s->act[k], &s->bc[k]))) return rc;
  }
  if ((rc = nh_la_qr(na, na, s->Kc, s->tauc, 0.0, NULL)) || (rc = nh_la_qr_solve(na, na, s->Kc, s->tauc, s->bc, 0.0)))
    return rc;
  for (int k = 0; k < na; k++) lam[k] *= -s->bc[k];
  return 0;
}

/* the rate of gap gi at x (s->dg left with the gradients at x) */
int nh_sim_ap_rate(nh_sim *s, const double *x, int gi, double *rate) {
  int rc = gaps(s, x, NULL, s->dg);
  return rc ? rc : rate_of(s, x, gi, rate);
}

/* another open gap closing at this instant: refused (a closed contact is held, not reached:
 * the impact opens it if it sends it away and keeps it otherwise, nh_sim_impact_done) */
int nh_sim_simul_refuse(nh_sim *s, int gi) {
  if (!(s->def.simul_tol >= 0.0)) return 0;
  for (int j = 0; j < s->ng; j++) {
    double rate;
    int rc;
    if (j == gi || (s->nact > 0 && s->closed[j]) || !(fabs(s->g1[j]) <= s->def.simul_tol)) continue;
    if ((rc = rate_of(s, s->x, j, &rate))) return rc;
    if (rate < -s->def.vn_tol) {
      sim_msg(s, "gaps '%s' and '%s' close together at t = %.17g: simultaneous impacts need the kinetic metric of "
                 "the mechanical form, which an almost-Poisson model does not carry",
              s->model->gap_names[gi], s->model->gap_names[j], s->t);
      return NH_ERR_UNSUPPORTED;
    }
  }
  return 0;
}

/* the jump x+ = x- + lambda d at the current state, checked against its law (s->vtmp keeps x-) */
static int ap_apply(nh_sim *s, int gi, nh_impact_info *info) {
  const nh_model *m = s->model;
  const int nx = s->nx;
  // the jump x+ = x- + lambda d, checked against its law
  memcpy(s->vtmp, s->x, sizeof(double) * (size_t)nx);
  int st = nh_model_impact_ap(m, gi, s->vtmp, NULL, &s->def.impact_tol, s->x, info, s->imp_work);
  // the map's check failed: the rate's identity, or (the rate as its law asks) the energy's
  const double e = m->impact[gi].kind == NH_IMPACT_ELASTIC ? 1.0 : m->impact[gi].e;
  if (st == NH_ERR_UNSUPPORTED && fabs(info->vn_after + e * info->vn_before) <= NH_AP_QUADRATIC_TOL * fabs(info->vn_before))
    sim_msg(s, "impact on '%s' at t = %.17g: the jump along d = Pi dg gives the rate its law asks (%.6g -> %.6g) "
               "but not the change of H, %.6g: H is not quadratic along d, or d changes with the jump",
            m->gap_names[gi], s->t, info->vn_before, info->vn_after,
            (e * e - 1.0) * info->vn_before * info->vn_before / (2.0 * info->D));
  else if (st == NH_ERR_UNSUPPORTED)
    sim_msg(s, "impact on '%s' at t = %.17g: the jump along d = Pi dg misses its law (rate %.17g -> %.17g, wanted "
               "%.17g): H is not quadratic along d, or d changes with the jump (NH_AP_QUADRATIC_TOL = %g)",
            m->gap_names[gi], s->t, info->vn_before, info->vn_after, -e * info->vn_before, NH_AP_QUADRATIC_TOL);
  else if (st < 0)
    sim_msg(s, "impact on '%s' at t = %.17g failed: %s", m->gap_names[gi], s->t, nh_status_string(st));
  return st;
}

static const double *ap_vel(const nh_sim *s, const double *x) { (void)s, (void)x; return NULL; }

/* the rate of gap gi at x, the gradients evaluated there */
static int ap_rate(nh_sim *s, const double *x, int gi, double *r) { return nh_sim_ap_rate(s, x, gi, r); }

/* no creep stop: the rate as it is */
static double ap_creep(nh_sim *s, int gi, double vn) { (void)s, (void)gi; return vn; }

/* the closed gaps held at x: the state onto them, then the e = 0 jump (x0: the step's start) */
static int ap_hold(nh_sim *s, const double *x0, double *x, double *err) {
  int rc = nh_sim_contact_project_q(s, x);
  return rc ? rc : nh_sim_ap_hold(s, x0, x, err);
}

static int ap_contact_lambda(nh_sim *s, double t, const double *x, double *lam) {
  (void)t;
  return nh_sim_ap_contact_lambda(s, x, lam);
}

/* in first-order form lambda = -g'' itself */
static double ap_normal_accel(const nh_sim *s, int gi, int k, double lambda) {
  (void)s, (void)gi, (void)k;
  return lambda;
}

const nh_sim_form nh_sim_form_poisson = {
    "almost-Poisson", 0, 1, "energy", ap_vel, ap_rate, ap_apply, ap_creep, ap_hold, ap_contact_lambda, ap_normal_accel,
};

const nh_sim_form *nh_sim_form_of(const nh_model *m) {
  return m->form == NH_FORM_ODE ? &nh_sim_form_poisson : &nh_sim_form_mechanical;
}
