/* impacts_ap.c - impacts of a model in almost-Poisson form (gaps g(x) >= 0 on the state): the
 * map nh_model_impact_ap (nholo/impact.h) at a located contact, logged like a mechanical
 * impact (the record's v_before and v_after are the states x- and x+, q is NULL). A contact
 * that persists (its impacts accumulate, or it is reached at rest while the flow presses it
 * into the wall) closes as for a mechanical model (contact.c) and is held by projection: the
 * state onto g = 0, then the e = 0 jump along d = Pi dg (nh_sim_ap_hold); its force is -g'' of
 * the free flow (nh_sim_ap_contact_lambda; docs/contact.md, "Almost-Poisson models"). Another
 * gap closing at the same instant (within simul_tol, approaching) is refused: the
 * simultaneous-impact model works on the kinetic metric of the mechanical form
 * (NH_ERR_UNSUPPORTED). */
#include <math.h>
#include <string.h>

#include "impact/impact_ap_hold.h"
#include "sim/sim_impl.h"

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
 * NULL): x += sum_l mu_l D_l with K mu = g' (impact_ap_hold.h), so that every closed gap's rate
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

/* the impacts of gap gi accumulate: resolved by closing the contact (the e = 0 jump over the
 * active set), logged as an impact of status NH_CONTACT; *applied = 0 when it did not close */
static int accumulation(nh_sim *s, int gi, double t_limit, double ratio, double vn, nh_observer_fn obs, void *user,
                        int *applied) {
  const double Eb = s->stats.energy;
  double vna;
  int rc;
  if (obs && obs(s, NH_SAMPLE_IMPACT_BEFORE, s->t, s->x, NULL, user)) return NH_STOPPED;
  if ((rc = nh_sim_contact_close(s, gi, NH_CONTACT_ACCUMULATION, Eb, t_limit, ratio, -1.0, applied)) || !*applied)
    return rc;
  if ((rc = nh_sim_ap_rate(s, s->x, gi, &vna))) return rc;
  nh_sim_log_impact(s, gi, NH_CONTACT, 0.0, Eb, s->stats.energy, vn, vna);
  if (obs && obs(s, NH_SAMPLE_IMPACT_AFTER, s->t, s->x, NULL, user)) return NH_STOPPED;
  return 0;
}

/* another open gap closing at this instant: refused (a closed contact is held, not reached:
 * the impact opens it if it sends it away and keeps it otherwise, nh_sim_impact_done) */
static int refuse_simultaneous(nh_sim *s, int gi) {
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

int nh_sim_impact_ap(nh_sim *s, int gi, nh_observer_fn obs, void *user, int *applied) {
  const nh_model *m = s->model;
  const int nx = s->nx;
  double vn, t_limit, ratio;
  int rc;
  *applied = 0;
  if ((rc = nh_sim_impact_degenerate(s, gi))) return rc; /* no normal (impacts.c) */
  // approaching? (s->dg holds the gap gradients at x); a graze as in impacts.c (contacts off:
  // no graze level, which would let the ball sink)
  if ((rc = rate_of(s, s->x, gi, &vn))) return rc;
  if (!(vn < -s->def.vn_tol)) return nh_sim_impact_graze(s, gi, vn);
  if ((rc = nh_sim_log_reserve(s))) return rc;
  if ((rc = refuse_simultaneous(s, gi))) return rc;
  // a Zeno sequence: resolved by closing the contact
  if (s->def.contact && nh_sim_contact_accumulates(s, gi, &t_limit, &ratio)) {
    if ((rc = accumulation(s, gi, t_limit, ratio, vn, obs, user, applied)) || *applied) return rc;
    if ((rc = gaps(s, s->x, NULL, s->dg))) return rc;
  } else if (obs && obs(s, NH_SAMPLE_IMPACT_BEFORE, s->t, s->x, NULL, user)) return NH_STOPPED;

  // the jump x+ = x- + lambda d, checked against its law
  const double Eb = s->stats.energy;
  nh_impact_info info;
  memcpy(s->vtmp, s->x, sizeof(double) * (size_t)nx);
  int st = nh_model_impact_ap(m, gi, s->vtmp, NULL, &s->def.impact_tol, s->x, &info, s->imp_work);
  // the map's check failed: the rate's identity, or (the rate as its law asks) the energy's
  const double e = m->impact[gi].kind == NH_IMPACT_ELASTIC ? 1.0 : m->impact[gi].e;
  if (st == NH_ERR_UNSUPPORTED && fabs(info.vn_after + e * info.vn_before) <= NH_AP_QUADRATIC_TOL * fabs(info.vn_before))
    sim_msg(s, "impact on '%s' at t = %.17g: the jump along d = Pi dg gives the rate its law asks (%.6g -> %.6g) "
               "but not the change of H, %.6g: H is not quadratic along d, or d changes with the jump",
            m->gap_names[gi], s->t, info.vn_before, info.vn_after,
            (e * e - 1.0) * info.vn_before * info.vn_before / (2.0 * info.D));
  else if (st == NH_ERR_UNSUPPORTED)
    sim_msg(s, "impact on '%s' at t = %.17g: the jump along d = Pi dg misses its law (rate %.17g -> %.17g, wanted "
               "%.17g): H is not quadratic along d, or d changes with the jump (NH_AP_QUADRATIC_TOL = %g)",
            m->gap_names[gi], s->t, info.vn_before, info.vn_after, -e * info.vn_before, NH_AP_QUADRATIC_TOL);
  else if (st < 0)
    sim_msg(s, "impact on '%s' at t = %.17g failed: %s", m->gap_names[gi], s->t, nh_status_string(st));
  if (st < 0) return st;
  // logged, observed, the contact closed if the flow presses it at rest (impacts.c)
  return nh_sim_impact_done(s, gi, st, &info, Eb, NULL, obs, user, applied);
}
