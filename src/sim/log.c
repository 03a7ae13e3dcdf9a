/* log.c - the last stage of the impact pipeline: the impact log (time, gap, status,
 * energies, normal velocities, the state before and after, multipliers; a simultaneous
 * impact's part is simul.c's), bounded by log_limit, read by nh_sim_impact_get.
 *
 *   locate (locate.c) -> collect (collect.c) -> resolve (resolve.c) -> apply (apply.c) -> log */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_impl.h"

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
