/* impacts.c - applying a gap's impact law at a located contact, either form (the map and the
 * rates are the form's, form.c), the impact log (energies, normal velocities, multipliers)
 * and the Zeno guard. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_impl.h"

/* ---- impact log -------------------------------------------------------------------------- */

/* room for one more record (out of memory: the message set); at log_limit the log holds its
 * first log_limit - 1 records and the latest */
int nh_sim_log_reserve(nh_sim *s) {
  if (s->nlog < s->caplog || (s->def.log_limit > 0 && s->nlog >= s->def.log_limit)) return 0;
  long cap = s->caplog ? 2 * s->caplog : 64;
  if (s->def.log_limit > 0 && cap > s->def.log_limit) cap = s->def.log_limit;
  size_t nq = (size_t)s->gd, nc = (size_t)(s->nc > 0 ? s->nc : 1);
  impact_entry *l = realloc(s->log, sizeof *l * (size_t)cap);
  if (l) s->log = l;
  double *a = realloc(s->log_q, sizeof(double) * nq * (size_t)cap);
  if (a) s->log_q = a;
  double *b = realloc(s->log_vb, sizeof(double) * nq * (size_t)cap);
  if (b) s->log_vb = b;
  double *c = realloc(s->log_va, sizeof(double) * nq * (size_t)cap);
  if (c) s->log_va = c;
  double *e = realloc(s->log_lam, sizeof(double) * nc * (size_t)cap);
  if (e) s->log_lam = e;
  if (!l || !a || !b || !c || !e) {
    sim_msg(s, "out of memory for the impact log");
    return NH_ERR_NOMEM;
  }
  s->caplog = cap;
  return 0;
}

long nh_sim_impact_count(const nh_sim *s) { return s->nlog; }

int nh_sim_impact_get(const nh_sim *s, long k, nh_impact_record *r) {
  if (!s || !r || k < 0 || k >= s->nlog) return NH_ERR_ARG;
  const impact_entry *e = &s->log[k];
  size_t nq = (size_t)s->gd, nc = (size_t)(s->nc > 0 ? s->nc : 1);
  r->t = e->t;
  r->gap = e->gap;
  r->status = e->status;
  r->alpha = e->alpha;
  r->energy_before = e->Eb;
  r->energy_after = e->Ea;
  r->vn_before = e->vnb;
  r->vn_after = e->vna;
  r->q = s->form->whole_state ? NULL : s->log_q + (size_t)k * nq; /* v_before, v_after: the states */
  r->v_before = s->log_vb + (size_t)k * nq;
  r->v_after = s->log_va + (size_t)k * nq;
  r->lambda = s->log_lam + (size_t)k * nc;
  nh_sim_simul_record(s, k, r);
  return NH_OK;
}

/* the impact log entry of the current state (s->vtmp the velocity before) */
void nh_sim_log_impact(nh_sim *s, int gi, int st, double alpha, double Eb, double Ea, double vnb, double vna) {
  const int nq = s->gd, nc = s->nc, whole = s->form->whole_state;
  // a full log (log_limit): the latest record replaces the previous latest
  if (s->def.log_limit > 0 && s->nlog >= s->def.log_limit) s->nlog = s->def.log_limit - 1;
  impact_entry *e = &s->log[s->nlog];
  e->t = s->t;
  e->gap = gi;
  e->status = st;
  e->alpha = alpha;
  e->Eb = Eb;
  e->Ea = Ea;
  e->vnb = vnb;
  e->vna = vna;
  // no simultaneous part (simul.c adds one); its pool offsets follow the previous record's
  const impact_entry *p = s->nlog > 0 ? e - 1 : NULL;
  e->k = 0, e->nseq = 0, e->ni = 0, e->nd = 0;
  e->pi = p ? p->pi + p->ni : 0, e->pd = p ? p->pd + p->nd : 0;
  memcpy(s->log_q + (size_t)s->nlog * nq, s->x, sizeof(double) * (size_t)nq);
  memcpy(s->log_vb + (size_t)s->nlog * nq, s->vtmp, sizeof(double) * (size_t)nq);
  memcpy(s->log_va + (size_t)s->nlog * nq, s->x + (whole ? 0 : nq), sizeof(double) * (size_t)nq);
  if (nc > 0) memcpy(s->log_lam + (size_t)s->nlog * nc, s->lam, sizeof(double) * (size_t)nc);
  s->nlog++;
  s->stats.impacts++;
  if (fabs(s->g1[gi]) > s->stats.max_event_gap) s->stats.max_event_gap = fabs(s->g1[gi]);
}

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
 * and is not detected again at the rounding of g (events.c). Contacts off: nothing. */
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

/* after gap gi's impact law (status st >= 0, info; Eb the energy before) moved the state
 * s->x, either form (v: the velocity part of s->x, NULL in first-order form): the closed
 * contacts kept, the impact logged, the observer told; then the contact closes, if it pushes,
 * at rest after it, bouncing less than the gap resolves or chattering below what the method
 * resolves (nh_sim_contact_after_bounce); then the Zeno guard */
int nh_sim_impact_done(nh_sim *s, int gi, int st, const nh_impact_info *info, double Eb, const double *v,
                       nh_observer_fn obs, void *user, int *applied) {
  double Ea;
  int rc;
  s->glev[gi] = 0.0;
  if (s->nact > 0 && (rc = nh_sim_contact_after_impact(s))) return rc; /* the closed contacts */
  if ((rc = energy(s, s->t, s->x, &Ea))) return rc;
  nh_sim_log_impact(s, gi, st, info->alpha, Eb, Ea, info->vn_before, info->vn_after);
  new_segment(s, Ea); /* the half-step energy: of the next step */
  *applied = 1;
  if (obs && obs(s, NH_SAMPLE_IMPACT_AFTER, s->t, s->x, v, user)) return NH_STOPPED;
  if ((rc = nh_sim_contact_after_bounce(s, gi, Eb, info->vn_before, info->vn_after))) return rc;
  return nh_sim_zeno_guard(s);
}

/* Zeno guard (the interval at least a few thousand rounding units of t, and of the step) */
int nh_sim_zeno_guard(nh_sim *s) {
  const double zi = fmax(s->def.zeno_interval, fmax(NH_ZENO_T_REL * fabs(s->t), NH_ZENO_H_REL * s->def.h));
  s->burst = (s->t - s->last_impact_t < zi) ? s->burst + 1 : 1;
  s->last_impact_t = s->t;
  if (s->burst >= s->def.zeno_count) {
    sim_msg(s, "%d consecutive impacts less than %g s apart, the last at t = %.17g", s->burst, zi, s->t);
    return NH_ZENO;
  }
  return 0;
}
