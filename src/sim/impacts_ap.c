/* impacts_ap.c - impacts of a model in almost-Poisson form (gaps g(x) >= 0 on the state): the
 * map nh_model_impact_ap (nholo/impact.h) at a located contact, logged like a mechanical
 * impact (the record's v_before and v_after are the states x- and x+, q is NULL). What the
 * mechanical driver does beyond one impact is refused with a status and a message:
 *   - another gap closing at the same instant (within simul_tol, approaching): the
 *     simultaneous-impact model works on the kinetic metric of the mechanical form
 *     (NH_ERR_UNSUPPORTED);
 *   - a contact that would persist (its impacts accumulate, or it is reached at rest while
 *     the flow presses it into the wall, g'' < 0): a closed contact is a constraint row of the
 *     mechanical form (docs/contact.md), which this form does not have (NH_ZENO). With
 *     contact = 0 the Zeno guard alone watches such sequences. */
#include <math.h>
#include <string.h>

#include "sim/sim_impl.h"

/* relative step of the central difference of the gap's rate along the flow (its g'') */
#define NH_AP_ACCEL_REL 1e-6

/* the rate g'_i = dg_i . x' at x (s->dg the gradients there; x' left in s->fx) */
static int rate_of(nh_sim *s, const double *x, int gi, double *rate) {
  int rc = nh_dyn_rhs(&s->dyn, s->t, x, s->fx);
  if (rc) return rc < 0 ? rc : NH_ERR_CALLBACK;
  *rate = nh_la_dot(s->nx, s->dg + (size_t)gi * (size_t)s->gd, s->fx);
  return 0;
}

/* g''_i along the flow at the current state, by a central difference of the rate (s->dg is
 * restored to the gradients at s->x) */
static int gap_accel(nh_sim *s, int gi, double *acc) {
  const int nx = s->nx;
  double r[2], *F = s->xd, *xt = s->xc;
  int rc = rate_of(s, s->x, gi, &r[0]);
  if (rc) return rc;
  memcpy(F, s->fx, sizeof(double) * (size_t)nx);
  const double fn = nh_la_norm_inf(nx, F), xn = fmax(1.0, nh_la_norm_inf(nx, s->x));
  *acc = 0.0;
  if (!(fn > 0.0)) return 0;
  const double eps = NH_AP_ACCEL_REL * xn / fn;
  for (int k = 0; k < 2; k++) {
    memcpy(xt, s->x, sizeof(double) * (size_t)nx);
    nh_la_axpy(nx, k ? -eps : eps, F, xt);
    if ((rc = gaps(s, xt, NULL, s->dg)) || (rc = rate_of(s, xt, gi, &r[k]))) return rc < 0 ? rc : NH_ERR_CALLBACK;
  }
  *acc = (r[0] - r[1]) / (2.0 * eps);
  return gaps(s, s->x, NULL, s->dg);
}

/* a contact that would persist (reason NH_CONTACT_*): NH_ZENO when the flow presses it into
 * the wall (or its impacts accumulate), else 0 */
static int refuse_persistent(nh_sim *s, int gi, int reason, double t_limit) {
  double acc = -1.0;
  int rc;
  if (reason == NH_CONTACT_REST && (rc = gap_accel(s, gi, &acc))) {
    sim_msg(s, "model evaluation failed at the contact '%s' at t = %.17g", s->model->gap_names[gi], s->t);
    return rc;
  }
  if (!(acc < 0.0)) return 0;
  sim_msg(s, "contact '%s' persists at t = %.17g (%s, limit t = %.17g) and an almost-Poisson model cannot hold it "
             "(a closed contact is a constraint row of the mechanical form: write the model with coordinates, "
             "docs/contact.md)",
          s->model->gap_names[gi], s->t, nh_contact_reason_name(reason), t_limit);
  return NH_ZENO;
}

/* another gap closing at this instant: refused */
static int refuse_simultaneous(nh_sim *s, int gi) {
  if (!(s->def.simul_tol >= 0.0)) return 0;
  for (int j = 0; j < s->ng; j++) {
    double rate;
    int rc;
    if (j == gi || !(fabs(s->g1[j]) <= s->def.simul_tol)) continue;
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
  // approaching? (s->dg holds the gap gradients at x)
  if ((rc = rate_of(s, s->x, gi, &vn))) return rc;
  if (!(vn < -s->def.vn_tol)) {
    s->stats.grazing++;
    if (s->def.contact && vn <= s->def.vn_tol && (rc = refuse_persistent(s, gi, NH_CONTACT_REST, s->t))) return rc;
    nh_sim_graze_level(s, gi);
    return 0;
  }
  if ((rc = nh_sim_log_reserve(s))) {
    sim_msg(s, "out of memory for the impact log");
    return rc;
  }
  if ((rc = refuse_simultaneous(s, gi))) return rc;
  if (s->def.contact && nh_sim_contact_accumulates(s, gi, &t_limit, &ratio))
    return refuse_persistent(s, gi, NH_CONTACT_ACCUMULATION, t_limit);
  if (obs && obs(s, NH_SAMPLE_IMPACT_BEFORE, s->t, s->x, NULL, user)) return NH_STOPPED;

  // the jump x+ = x- + lambda d, checked against its law
  const double Eb = s->stats.energy;
  double Ea;
  nh_impact_info info;
  memcpy(s->vtmp, s->x, sizeof(double) * (size_t)nx);
  int st = nh_model_impact_ap(m, gi, s->vtmp, NULL, &s->def.impact_tol, s->x, &info, s->imp_work);
  if (st == NH_ERR_UNSUPPORTED)
    sim_msg(s, "impact on '%s' at t = %.17g: the jump along d = Pi dg misses its law (rate %.17g -> %.17g, wanted "
               "%.17g): H is not quadratic along d, or d changes with the jump (NH_AP_QUADRATIC_TOL = %g)",
            m->gap_names[gi], s->t, info.vn_before, info.vn_after, -m->impact[gi].e * info.vn_before,
            NH_AP_QUADRATIC_TOL);
  else if (st < 0)
    sim_msg(s, "impact on '%s' at t = %.17g failed: %s", m->gap_names[gi], s->t, nh_status_string(st));
  if (st < 0) return st;
  s->glev[gi] = 0.0;
  if ((rc = energy(s, s->t, s->x, &Ea))) return rc;
  nh_sim_log_impact(s, gi, st, info.alpha, Eb, Ea, info.vn_before, info.vn_after);
  s->E_seg = Ea;
  s->C_seg = Ea, s->C_unset = s->half;
  s->stats.energy = Ea;
  *applied = 1;
  if (obs && obs(s, NH_SAMPLE_IMPACT_AFTER, s->t, s->x, NULL, user)) return NH_STOPPED;
  s->tau_imp[gi] = s->t - s->t_imp[gi], s->t_imp[gi] = s->t;
  // at rest after it (restitution 0): refused if the flow presses it into the wall
  if (s->def.contact && fabs(info.vn_after) <= NH_CONTACT_REST_REL * fabs(info.vn_before) + s->def.vn_tol &&
      (rc = refuse_persistent(s, gi, NH_CONTACT_REST, s->t)))
    return rc;
  return nh_sim_zeno_guard(s);
}
