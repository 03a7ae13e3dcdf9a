/* resolve.c - the impact pipeline from a located crossing to its resolution:
 *
 *   locate    locate.c    the crossing gap gi and its time, the state there (s->dg, s->g1)
 *   collect   collect.c   the gaps closing at the same instant (the active set)
 *   resolve   here        one gap: its law through the form (form.c: the metric's map, or the
 *                         almost-Poisson jump); several: simultaneous (simul.c); impacts that
 *                         accumulate, or a contact reached at rest: closed and held
 *                         (contact.c); not approaching: a graze
 *   apply     apply.c     the held contacts kept, the energy, the observer, a contact closing
 *                         after the bounce, the Zeno guard
 *   log       log.c       the record
 * Every stage is entered from the one before it; nothing returns to an earlier one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_impl.h"

/* the impacts of gap gi accumulate: resolved by closing the contact (the plastic map, or the
 * e = 0 jump, over the active set), logged as an impact of status NH_CONTACT; *applied = 0
 * when it did not close */
static int accumulation(nh_sim *s, int gi, double t_limit, double ratio, double vn, nh_observer_fn obs, void *user,
                        int *applied) {
  const double Eb = s->stats.energy;
  double vna;
  int rc;
  if (obs && obs(s, NH_SAMPLE_IMPACT_BEFORE, s->t, s->x, vel(s, s->x), user)) return NH_STOPPED;
  if ((rc = nh_sim_contact_close(s, gi, NH_CONTACT_ACCUMULATION, Eb, t_limit, ratio, -1.0, applied)) || !*applied) return rc;
  if (s->nc > 0) memset(s->lam, 0, sizeof(double) * (size_t)s->nc);
  if ((rc = s->form->rate(s, s->x, gi, &vna))) return rc;
  nh_sim_log_impact(s, gi, NH_CONTACT, 0.0, Eb, s->stats.energy, vn, vna);
  if (obs && obs(s, NH_SAMPLE_IMPACT_AFTER, s->t, s->x, vel(s, s->x), user)) return NH_STOPPED;
  return 0;
}

/* a crossing of gap gi located where its gradient vanishes (s->dg at the current state):
 * |dg| max(1, |q|) <= NH_GAP_DEGEN_REL G_i (s->gscale, the gap's scale at the initial state;
 * nholo/model.h). Its impact has no normal: every approach would look like a graze (dg v ~ 0)
 * and the body would rest on, or pass through, a wall that is not there (y^3, y^2 - x^2 at
 * its corner). The run ends with NH_ERR_DEGENERATE_GAP, the state kept. */
int nh_sim_impact_degenerate(nh_sim *s, int gi) {
  const int gd = s->gd;
  const double *d = s->dg + (size_t)gi * (size_t)gd, dn = sqrt(nh_la_dot(gd, d, d));
  double scale = 1.0;
  for (int j = 0; j < gd; j++) scale = fmax(scale, fabs(s->x[j]));
  if (!(dn * scale <= NH_GAP_DEGEN_REL * s->gscale[gi])) return 0; /* (not finite: the law's to refuse) */
  sim_msg(s, "gap '%s' crossed zero at t = %.17g where its gradient vanishes (|dg| = %.3g, its scale %.3g): the "
             "impact has no normal (NH_GAP_DEGEN_REL)", s->model->gap_names[gi], s->t, dn, s->gscale[gi]);
  return NH_ERR_DEGENERATE_GAP;
}

/* apply gap gi's impact law at the current state and log it, either form; s->dg must hold the
 * gap gradients at this state. A contact reached at rest, or whose impacts accumulate, closes
 * (contact.c); other gaps closing at this instant are resolved together (simul.c), or refused
 * by a form without the kinetic metric. */
int nh_sim_impact(nh_sim *s, int gi, nh_observer_fn obs, void *user, int *applied) {
  const nh_sim_form *f = s->form;
  double vn, t_limit, ratio;
  int rc;
  *applied = 0;
  if ((rc = nh_sim_impact_degenerate(s, gi))) return rc; /* no normal: never a graze */
  // approaching?
  if ((rc = f->rate(s, s->x, gi, &vn))) return rc;
  if (!(vn < -s->def.vn_tol)) return nh_sim_impact_graze(s, gi, f->creep(s, gi, vn));
  if ((rc = nh_sim_log_reserve(s))) return rc;
  // other gaps closing at this instant
  if (f->metric) {
    const int k = nh_sim_simul_collect(s, gi);
    if (k >= 2) return nh_sim_simul_impact(s, k, obs, user, applied);
  } else if ((rc = nh_sim_simul_refuse(s, gi))) return rc;
  // a Zeno sequence: resolved by closing the contact (a trial that did not close moved s->dg)
  if (s->def.contact && nh_sim_contact_accumulates(s, gi, &t_limit, &ratio)) {
    if ((rc = accumulation(s, gi, t_limit, ratio, vn, obs, user, applied)) || *applied) return rc;
    if (!f->metric && (rc = gaps(s, s->x, NULL, s->dg))) return rc;
  } else if (obs && obs(s, NH_SAMPLE_IMPACT_BEFORE, s->t, s->x, vel(s, s->x), user)) return NH_STOPPED;

  // the law (the monitor evaluated the energy at this state)
  const double Eb = s->stats.energy;
  nh_impact_info info;
  const int st = f->apply(s, gi, &info);
  if (st < 0) return st;
  return nh_sim_impact_done(s, gi, st, &info, Eb, vel(s, s->x), obs, user, applied);
}

double nh_sim_stop_creep(nh_sim *s, int gi, double vn0) {
  const int nq = s->nq;
  (void)vn0; /* (the form's creep: the rate is computed here) */
  double *v = s->x + nq;
  const double *dg = s->dg + (size_t)gi * nq;
  const double vn = nh_la_dot(nq, dg, v);
  if (!(vn < 0.0) || !s->def.contact) return vn; /* contacts off: the grazes as they come */
  nh_impact_info info;
  memcpy(s->vtmp, v, sizeof(double) * (size_t)nq);
  if (nh_impact_map(nq, s->nc, s->M, s->dyn.A, dg, s->vtmp, (nh_impact_law){NH_IMPACT_RESTITUTION, 0.0},
                    &s->def.impact_tol, v, s->lam, &info, s->imp_work) < 0) {
    memcpy(v, s->vtmp, sizeof(double) * (size_t)nq); /* left as it was: the level rule alone */
    return vn;
  }
  return nh_la_dot(nq, dg, v);
}

/* gap gi reached without approaching (rate vn >= -vn_tol), either form: a graze. At rest
 * (|vn| <= vn_tol) the contact closes if it pushes; else it rests there, pressed by nothing,
 * and is not detected again at the rounding of g (locate.c). Contacts off: nothing. */
int nh_sim_impact_graze(nh_sim *s, int gi, double vn) {
  int rc, closed;
  s->stats.grazing++;
  if (!s->def.contact) return 0;
  if (vn <= s->def.vn_tol &&
      ((rc = nh_sim_contact_close(s, gi, NH_CONTACT_REST, s->stats.energy, s->t, 0.0, -1.0, &closed)) || closed))
    return rc;
  nh_sim_graze_level(s, gi);
  return 0;
}
