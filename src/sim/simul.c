/* simul.c - simultaneous impacts in the driver: at a located impact, the gaps closing (or at
 * rest) within simul_tol and the persistent (closed) contacts join it and are resolved
 * together by the propagative model (nh_simul_resolve, docs/simultaneous-impacts.md), logged
 * as one record with every contact, its impulse and the reflection sequence (enumerate: every
 * outcome, with its velocity, sequence and impulses). Opposing contacts, and a plastic (Clark &
 * Bloch) law with velocity constraints, fall back to the plastic map with a note in the record.
 * A single gap keeps nh_sim_impact's map. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/msg.h"
#include "sim/simul_impl.h"

/* the largest simul_max_outcomes (nh_simul_opts.max_outcomes's) */
#define SIM_SIMUL_MAX_OUTCOMES 1000000


int nh_sim_simul_create(nh_sim *s, char *msg, size_t msg_size) {
  const int ord = s->def.simul_order;
  if (ord < NH_SIMUL_MOST_INFEASIBLE || ord > NH_SIMUL_ENUMERATE) {
    nh_set_msg(msg, msg_size, "simul_order %d is not a policy (nh_simul_policy: 0 to 3)", ord);
    return NH_ERR_ARG;
  }
  if (s->def.simul_max_outcomes < 1 || s->def.simul_max_outcomes > SIM_SIMUL_MAX_OUTCOMES) {
    nh_set_msg(msg, msg_size, "simul_max_outcomes = %d must be in [1, %d]", s->def.simul_max_outcomes,
               SIM_SIMUL_MAX_OUTCOMES);
    return NH_ERR_ARG;
  }
  if (!(s->def.simul_tol >= 0.0) || s->ng < 2 || !s->form->metric) return 0;
  nh_simul_opts o = nh_simul_opts_default();
  o.policy = (nh_simul_policy)ord;
  o.project = 1;
  o.max_outcomes = ord == NH_SIMUL_ENUMERATE ? s->def.simul_max_outcomes : 1; /* (the workspace's room) */
  o.truncate_outcomes = 1; /* past the cap: the outcomes found, outcome 0 followed */
  o.opposing_plastic = 1;  /* opposing contacts: the plastic map when the propagation would cycle */
  o.names = NULL; /* set below: the names of the current set */
  const size_t nq = (size_t)s->nq, ng = (size_t)s->ng;
  size_t wb = 0;
  for (int law = NH_SIMUL_ELASTIC; law <= NH_SIMUL_INELASTIC; law++) { /* the largest of the laws */
    o.law = (nh_simul_law)law;
    size_t b = nh_simul_work_size(s->nq, s->nc, s->ng, &o);
    if (b > wb) wb = b;
  }
  nh_sim_simul *w = calloc(1, sizeof *w);
  if (w) {
    w->opts = o;
    w->work = malloc(wb);
    w->idx = calloc(2 * ng, sizeof(int));
    w->names = calloc(ng, sizeof(const char *));
    w->dgk = calloc(ng * nq + 2 * ng, sizeof(double));
  }
  if (!w || !w->work || !w->idx || !w->names || !w->dgk || wb == 0) {
    if (w) free(w->work), free(w->idx), free(w->names), free(w->dgk);
    free(w);
    nh_set_msg(msg, msg_size, "out of memory for the simultaneous-impact workspace");
    return NH_ERR_NOMEM;
  }
  w->vnb = w->dgk + ng * nq, w->vna = w->vnb + ng;
  w->was_closed = w->idx + ng;
  w->opts.names = w->names;
  s->simul = w;
  return 0;
}

void nh_sim_simul_destroy(nh_sim *s) {
  nh_sim_simul *w = s->simul;
  if (!w) return;
  free(w->work), free(w->idx), free(w->names), free(w->dgk), free(w->pi), free(w->pd), free(w);
  s->simul = NULL;
}

/* the simultaneous law of the k contacts: each law's coefficient (elastic 1, restitution e; the
 * Clark & Bloch plastic law is the elastic reflection without constraints), the smallest of
 * them as the energetic coefficient R. With constraints the Clark & Bloch law has no
 * simultaneous counterpart: its contact counts as R = 0, the plastic complementarity map of
 * the whole set (spec 003's fallback), noted in the record unless the contact was closed (held
 * plastically). */
static void simul_law(nh_sim *s, int k) {
  nh_sim_simul *w = s->simul;
  const nh_model *m = s->model;
  double R = 1.0;
  w->fallback = NH_SIMUL_FALLBACK_NONE, w->fb_gap = -1;
  for (int j = 0; j < k; j++) {
    const int g = w->idx[j];
    const nh_impact_law law = m->impact ? m->impact[g] : (nh_impact_law){NH_IMPACT_ELASTIC, 1.0};
    double c = 1.0;
    if (law.kind == NH_IMPACT_RESTITUTION) c = law.e;
    else if (law.kind == NH_IMPACT_PLASTIC && s->nc > 0) {
      c = 0.0;
      if (!w->was_closed[j] && !w->fallback) w->fallback = NH_SIMUL_FALLBACK_CONSTRAINED_PLASTIC, w->fb_gap = g;
    }
    if (c < R) R = c;
    /* del's variational step: chattering, plastic (vi_impact.c); a persistent contact is at rest */
    if (!w->was_closed[j] && nh_sim_vi_chatters(s, g)) R = 0.0;
  }
  w->opts.restitution = R;
  w->opts.law = R == 1.0 ? NH_SIMUL_ELASTIC : R == 0.0 ? NH_SIMUL_PLASTIC : NH_SIMUL_INELASTIC;
}

/* the gap names of the set, for a message */
static void set_names(const nh_sim *s, int k, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = 0;
  for (int j = 0; j < k && n + 1 < size; j++) {
    int r = snprintf(buf + n, size - n, "%s'%s'", j ? ", " : "", s->model->gap_names[s->simul->idx[j]]);
    if (r < 0) break;
    n += (size_t)r;
  }
}

/* the pools' ints and doubles of a record: k gaps, nseq reflections, nout outcomes whose
 * sequences hold nos reflections in all (log_simul's layout) */
static long pool_ints(int k, int nseq, int nout, long nos) { return k + nseq + 2L * nout + nos; }
static long pool_doubles(int nq, int k, int nout) { return 3L * k + (long)nout * (nq + k); }

/* the outcomes a record keeps (enumerate: all; else none) and their reflections */
static int kept_outcomes(const nh_sim_simul *w, const nh_simul_result *res, long *nos) {
  const int n = w->opts.policy == NH_SIMUL_ENUMERATE ? res->outcomes : 0;
  *nos = n > 0 ? (long)res->outcome_start[n - 1] + res->outcome_len[n - 1] : 0;
  return n;
}

/* room in the pools for a record of ni ints and nd doubles at log slot n */
static int pool_reserve(nh_sim *s, long n, long nir, long ndr) {
  nh_sim_simul *w = s->simul;
  long i0 = 0, d0 = 0;
  if (n > 0) {
    const impact_entry *p = &s->log[n - 1];
    i0 = p->pi + p->ni, d0 = p->pd + p->nd;
  }
  long ni = i0 + nir, nd = d0 + ndr;
  if (ni > w->capi) {
    long cap = ni > 2 * w->capi ? ni + 64 : 2 * w->capi;
    int *a = realloc(w->pi, sizeof(int) * (size_t)cap);
    if (!a) return NH_ERR_NOMEM;
    w->pi = a, w->capi = cap;
  }
  if (nd > w->capd) {
    long cap = nd > 2 * w->capd ? nd + 64 : 2 * w->capd;
    double *a = realloc(w->pd, sizeof(double) * (size_t)cap);
    if (!a) return NH_ERR_NOMEM;
    w->pd = a, w->capd = cap;
  }
  return 0;
}

/* The simultaneous part of the record just logged (slot s->nlog - 1), in the pools: ints
 * [k gaps][nseq sequence][nout starts][nout lengths][the outcomes' sequences], doubles
 * [k impulses][k rates before][k after][nout x nq velocities][nout x k impulses]; the
 * sequences as gaps. */
static void log_simul(nh_sim *s, int k, const nh_simul_result *res, int fb, int fb0, int fb1) {
  nh_sim_simul *w = s->simul;
  impact_entry *e = &s->log[s->nlog - 1];
  const int nq = s->nq;
  long nos;
  const int nout = kept_outcomes(w, res, &nos);
  e->k = k, e->nseq = res->reflections;
  e->law = w->opts.law, e->policy = w->opts.policy, e->R = w->opts.restitution;
  if (res->fallback) e->law = NH_SIMUL_PLASTIC, e->R = 0.0; /* the law applied */
  e->outcomes = nout, e->nos = (int)nos, e->truncated = nout > 0 && res->truncated;
  e->xi = w->opts.policy == NH_SIMUL_ENUMERATE ? res->xi : 0.0;
  e->fallback = fb, e->fb0 = fb0, e->fb1 = fb1;
  e->ni = pool_ints(k, res->reflections, nout, nos), e->nd = pool_doubles(nq, k, nout);
  int *pi = w->pi + e->pi;
  double *pd = w->pd + e->pd;
  for (int j = 0; j < k; j++) pi[j] = w->idx[j];
  for (int r = 0; r < res->reflections; r++) pi[k + r] = w->idx[res->seq[r]];
  memcpy(pd, res->impulse, sizeof(double) * (size_t)k);
  memcpy(pd + k, w->vnb, sizeof(double) * (size_t)k);
  memcpy(pd + 2 * k, w->vna, sizeof(double) * (size_t)k);
  int *po = pi + k + res->reflections;
  memcpy(po, res->outcome_start, sizeof(int) * (size_t)nout);
  memcpy(po + nout, res->outcome_len, sizeof(int) * (size_t)nout);
  for (long r = 0; r < nos; r++) po[2 * nout + r] = w->idx[res->outcome_seq[r]];
  memcpy(pd + 3 * k, res->outcome_v, sizeof(double) * (size_t)nout * (size_t)nq);
  memcpy(pd + 3 * k + (size_t)nout * nq, res->outcome_impulse, sizeof(double) * (size_t)nout * (size_t)k);
  for (int j = 1; j < k; j++)
    if (fabs(s->g1[w->idx[j]]) > s->stats.max_event_gap) s->stats.max_event_gap = fabs(s->g1[w->idx[j]]);
}

void nh_sim_simul_record(const nh_sim *s, long k, nh_impact_record *r) {
  const impact_entry *e = &s->log[k];
  const nh_sim_simul *w = s->simul;
  r->contacts = 0, r->contact_gap = NULL, r->impulse = NULL, r->contact_vn_before = r->contact_vn_after = NULL;
  r->reflections = 0, r->sequence = NULL, r->law = 0, r->restitution = 0.0, r->policy = 0, r->outcomes = 0;
  r->xi = 0.0, r->outcomes_truncated = 0, r->outcome_v = r->outcome_impulse = NULL;
  r->outcome_start = r->outcome_len = r->outcome_seq = NULL;
  r->fallback = NH_SIMUL_FALLBACK_NONE, r->fallback_gap[0] = r->fallback_gap[1] = -1;
  if (!w || e->k == 0) return;
  r->contacts = e->k;
  r->contact_gap = w->pi + e->pi;
  r->sequence = w->pi + e->pi + e->k;
  r->reflections = e->nseq;
  r->impulse = w->pd + e->pd;
  r->contact_vn_before = w->pd + e->pd + e->k;
  r->contact_vn_after = w->pd + e->pd + 2 * e->k;
  r->law = e->law, r->restitution = e->R, r->policy = e->policy, r->outcomes = e->outcomes, r->xi = e->xi;
  r->fallback = e->fallback, r->fallback_gap[0] = e->fb0, r->fallback_gap[1] = e->fb1;
  if (e->outcomes == 0) return;
  const int *po = w->pi + e->pi + e->k + e->nseq;
  const double *pd = w->pd + e->pd + 3L * e->k;
  r->outcomes_truncated = e->truncated;
  r->outcome_start = po, r->outcome_len = po + e->outcomes, r->outcome_seq = po + 2L * e->outcomes;
  r->outcome_v = pd, r->outcome_impulse = pd + (size_t)e->outcomes * (size_t)s->nq;
}

/* after the impact: the contacts reached at rest close if they push, as after a single impact
 * (nh_sim_contact_after_bounce: also a bounce below the gap's or, chattering, the method's
 * resolution); a persistent contact that took an impulse keeps its
 * time for the accumulation rule (spec 003 3.6: t_last of every contact that took one) */
static int close_at_rest(nh_sim *s, int k, double Eb, const double *impulse) {
  nh_sim_simul *w = s->simul;
  int rc;
  for (int j = 0; j < k && s->def.contact; j++) {
    const int g = w->idx[j];
    if (w->was_closed[j]) {
      if (impulse[j] > 0.0) s->tau_imp[g] = s->t - s->t_imp[g], s->t_imp[g] = s->t;
      // sent away: closed again if its bounce is below what the method resolves
      if (!s->closed[g] && (rc = nh_sim_contact_reclose(s, g, Eb, w->vna[j]))) return rc;
      continue;
    }
    if (!(w->vnb[j] < -s->def.vn_tol)) continue; /* a contact at rest before: not an impact of its own */
    if ((rc = nh_sim_contact_after_bounce(s, g, Eb, w->vnb[j], w->vna[j]))) return rc;
  }
  return 0;
}

int nh_sim_simul_impact(nh_sim *s, int k, nh_observer_fn obs, void *user, int *applied) {
  nh_sim_simul *w = s->simul;
  const int nq = s->nq, nc = s->nc;
  double *v = s->x + nq, Eb = s->stats.energy, Ea;
  char buf[512], names[160];
  int rc, st;
  *applied = 0;
  simul_law(s, k);
  if (obs && obs(s, NH_SAMPLE_IMPACT_BEFORE, s->t, s->x, v, user)) return NH_STOPPED;
  // M(q) and A(q) are still in scratch from the monitors at this state (as for one gap)
  nh_simul_result res;
  memcpy(s->vtmp, v, sizeof(double) * (size_t)nq);
  // (R < 1: a persistent contact the plastic map leaves separating takes no impulse and
  // opens below, as one sent away by a reflection)
  const nh_simul_problem pb = {nq, nc, k, s->M, nc > 0 ? s->dyn.A : NULL, w->dgk};
  st = nh_simul_resolve(&pb, s->vtmp, &w->opts, v, &res, w->work, buf, sizeof buf);
  if (st == NH_NO_IMPACT) { /* within the resolution's feasibility tolerance: a graze */
    memcpy(v, s->vtmp, sizeof(double) * (size_t)nq);
    s->stats.grazing++;
    // the open contacts still approaching at such a rate: stopped, and resting at their level
    for (int j = 0; j < k; j++)
      if (!w->was_closed[j]) nh_sim_stop_creep(s, w->idx[j], 0.0), nh_sim_graze_level(s, w->idx[j]);
    return 0;
  }
  if (st != NH_OK) {
    memcpy(v, s->vtmp, sizeof(double) * (size_t)nq);
    set_names(s, k, names, sizeof names);
    sim_msg(s, "simultaneous impact of %s at t = %.17g failed: %s", names, s->t, buf);
    return st < 0 ? st : NH_ERR_SINGULAR; /* a degenerate contact cannot be resolved */
  }
  if (nc > 0) memcpy(s->lam, res.mu, sizeof(double) * (size_t)nc);
  // the persistent contacts: those sent away (reflected, or left separating) open, the others
  // stay closed with the velocity kept on them (contact.c)
  if (s->nact > 0 && (rc = nh_sim_contact_after_impact(s))) return rc;
  if ((rc = energy(s, s->t, s->x, &Ea))) return rc;
  for (int j = 0; j < k; j++) w->vna[j] = nh_la_dot(nq, w->dgk + (size_t)j * nq, v);
  // the plastic map instead of the law: opposing contacts (the resolution's), or a plastic
  // law with constraints (simul_law's)
  int fb = res.fallback ? res.fallback : w->fallback, fb0 = -1, fb1 = -1;
  if (res.fallback) fb0 = w->idx[res.contact], fb1 = w->idx[res.other];
  else if (fb) fb0 = w->fb_gap;
  if (fb) s->stats.simul_fallbacks++;
  long nos, n = s->def.log_limit > 0 && s->nlog >= s->def.log_limit ? s->def.log_limit - 1 : s->nlog;
  const int nout = kept_outcomes(w, &res, &nos);
  if (nout > 0 && res.truncated) s->stats.simul_truncated++;
  if (pool_reserve(s, n, pool_ints(k, res.reflections, nout, nos), pool_doubles(nq, k, nout))) {
    sim_msg(s, "out of memory for the impact log");
    return NH_ERR_NOMEM;
  }
  nh_sim_log_impact(s, w->idx[0], st, -res.impulse[0], Eb, Ea, w->vnb[0], w->vna[0]);
  log_simul(s, k, &res, fb, fb0, fb1);
  new_segment(s, Ea);
  *applied = 1;
  if (obs && obs(s, NH_SAMPLE_IMPACT_AFTER, s->t, s->x, v, user)) return NH_STOPPED;
  if ((rc = close_at_rest(s, k, Eb, res.impulse))) return rc;
  return nh_sim_zeno_guard(s);
}
