/* phases.c - runs of more than one nh_sim_run: breakpoints and chains of phases.
 *
 * Only the public simulation API (nholo/sim.h) is used:
 *   segments  nh_sim_run to the next breakpoint in (t, t_end), then on, while NH_OK and the
 *             segment reached its end (an impact limit stops it short);
 *   chain     each phase runs in segments; a stop event (NH_EVENT_STOP) calls the reset map,
 *             which picks the next phase and its state, set with nh_sim_set_state_x.
 * The observer is wrapped so that it sees one START, the later phases' STARTs and one END. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nholo/sim.h"

/* the observer of a run in segments and phases */
typedef struct forward {
  nh_observer_fn obs;
  void *user;
  int keep_start; /* forward the next START (the run's first, or a new phase's) */
} forward;

/* drops the segments' START (but a kept one) and every END: the driver sends the run's END */
static int forward_sample(const nh_sim *s, nh_sample_kind kind, double t, const double *q,
                          const double *v, void *user) {
  forward *o = user;
  if (kind == NH_SAMPLE_END) return 0;
  if (kind == NH_SAMPLE_START && !o->keep_start) return 0;
  o->keep_start = 0;
  return o->obs(s, kind, t, q, v, o->user);
}

/* the first breakpoint in (t, t_end), else t_end */
static double next_stop(const double *breaks, int nbreaks, double t, double t_end) {
  double te = t_end;
  for (int i = 0; i < nbreaks; i++)
    if (breaks[i] > t && breaks[i] < te) te = breaks[i];
  return te;
}

/* one phase to t_end in segments between breakpoints */
static int run_segments(nh_sim *s, double t_end, long max_impacts, const double *breaks, int nbreaks,
                        forward *o) {
  for (;;) {
    const double te = next_stop(breaks, nbreaks, nh_sim_time(s), t_end);
    int rc = nh_sim_run(s, te, max_impacts, o->obs ? forward_sample : NULL, o);
    o->keep_start = 0;
    if (rc != NH_OK || te == t_end || nh_sim_time(s) < te) return rc;
  }
}

/* the run's END, as nh_sim_run sends it */
static void send_end(const nh_sim *s, const forward *o, int rc) {
  if (o->obs && rc != NH_STOPPED)
    o->obs(s, NH_SAMPLE_END, nh_sim_time(s), nh_sim_q(s), nh_sim_v(s), o->user);
}

int nh_sim_run_breaks(nh_sim *sim, double t_end, long max_impacts, const double *breaks, int nbreaks,
                      nh_observer_fn observer, void *user) {
  if (!sim || !(t_end >= nh_sim_time(sim)) || max_impacts < 0 || nbreaks < 0 || (nbreaks > 0 && !breaks))
    return NH_ERR_ARG;
  forward o = {observer, user, 1};
  int rc = run_segments(sim, t_end, max_impacts, breaks, nbreaks, &o);
  send_end(sim, &o, rc);
  return rc;
}

/* the chain's shape: phases present, breakpoints given, limits non-negative */
static int chain_ok(const nh_chain *c, int first, double t_end) {
  if (!c || !c->phases || c->nphases < 1 || first < 0 || first >= c->nphases || c->nbreaks < 0 ||
      (c->nbreaks > 0 && !c->breaks) || c->max_impacts < 0 || c->max_switches < 0)
    return 0;
  for (int i = 0; i < c->nphases; i++)
    if (!c->phases[i]) return 0;
  return t_end >= nh_sim_time(c->phases[first]);
}

/* after phase k stopped on an event: the reset map's choice set as the next phase's state;
 * 0 and *k updated to go on, else the run's status */
static int switch_phase(const nh_chain *c, int *k, double t_end, double *x) {
  const nh_sim *s = c->phases[*k];
  int to = *k + 1 < c->nphases ? *k + 1 : *k;
  double t = nh_sim_time(s);
  memcpy(x, nh_sim_x(s), sizeof(double) * (size_t)nh_sim_model(s)->nx);
  int r = c->reset(*k, s, &to, &t, x, c->reset_user);
  if (r > 0) return NH_EVENT_STOP;
  if (r < 0) return r;
  if (to < 0 || to >= c->nphases || !(t <= t_end)) return NH_ERR_ARG;
  if ((r = nh_sim_set_state_x(c->phases[to], t, x)) < 0) return r;
  *k = to;
  return 0;
}

int nh_chain_run(const nh_chain *c, int first, double t_end, nh_observer_fn observer, void *user,
                 int *last) {
  if (last) *last = first;
  if (!chain_ok(c, first, t_end)) return NH_ERR_ARG;
  int nx = 0;
  for (int i = 0; i < c->nphases; i++)
    if (nh_sim_model(c->phases[i])->nx > nx) nx = nh_sim_model(c->phases[i])->nx;
  double *x = malloc(sizeof(double) * (size_t)nx);
  if (!x) return NH_ERR_NOMEM;
  forward o = {observer, user, 1};
  int k = first, rc;
  long switches = 0;
  // phases until one ends otherwise than on a stop event the reset map continues from
  for (;;) {
    rc = run_segments(c->phases[k], t_end, c->max_impacts, c->breaks, c->nbreaks, &o);
    if (rc != NH_EVENT_STOP || !c->reset || (c->max_switches > 0 && switches >= c->max_switches)) break;
    if ((rc = switch_phase(c, &k, t_end, x)) != 0) break;
    switches++;
    o.keep_start = 1;
  }
  free(x);
  send_end(c->phases[k], &o, rc);
  if (last) *last = k;
  return rc;
}
