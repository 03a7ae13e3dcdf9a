/* ball_phases.c - a rolling ball that may detach and fly (Putkaradze & Rogers, App. B).
 *
 * Two simulations, one per phase, each with its own model and the ordinary driver:
 *   rolling  (6.4) until N falls to 0 (the "normal_force" monitor stops the run there),
 *   switch   x_f = flight_state(x_roll): theta, theta', q, Om unchanged, z_GC = [zxy, 0],
 *            z_GC' = Lam (Om x r Gam) (the rolling velocity, 2.3); the flight's initial
 *            z_GC3'' (B.6) decides: < -NH_BALL_LIFTOFF_TOL means the free ball would be
 *            pressed into the floor (no lift-off: the run ends at the detachment),
 *   flight   (B.15, B.6) until t_end or touchdown (z_GC3 falls to 0: the "touchdown"
 *            monitor stops it; no landing law, so the run ends there). */
#include <math.h>
#include <string.h>

#include "nholo/ball.h"

/* the observer of one phase: forwards samples, dropping the rolling END when switching */
typedef struct phase_obs {
  nh_observer_fn obs;
  void *user;
  int drop_end;
  double t_stop; /* the rolling phase's END is kept in memory here */
} phase_obs;

static int phase_forward(const nh_sim *s, nh_sample_kind kind, double t, const double *x,
                         const double *v, void *user) {
  phase_obs *o = user;
  if (kind == NH_SAMPLE_END && o->drop_end) {
    o->t_stop = t;
    return 0;
  }
  return o->obs ? o->obs(s, kind, t, x, v, o->user) : 0;
}

/* was the last event of the rolling phase a detachment that stopped it? */
static int stopped_at_detachment(const nh_sim *roll) {
  const nh_model *m = nh_sim_model(roll);
  long k = nh_sim_event_count(roll);
  nh_event_record e;
  if (k < 1 || nh_sim_event_get(roll, k - 1, &e) != NH_OK) return 0;
  return e.stopped && strcmp(m->monitors[e.monitor].name, "normal_force") == 0;
}

int nh_ball_run_flight(nh_sim *roll, nh_sim *fly, double t_end, nh_observer_fn obs, void *user,
                       nh_ball_flight_info *info) {
  nh_ball_flight_info inf = {0, 0, 0, NAN, NAN, NAN, NAN};
  if (info) *info = inf;
  if (!roll || !fly) return NH_ERR_ARG;
  const nh_model *rm = nh_sim_model(roll), *fm = nh_sim_model(fly);
  const nh_ball_kind rk = nh_ball_model_kind(rm);
  if ((rk != NH_BALL_ROLLING && rk != NH_BALL_DAE) || nh_ball_model_kind(fm) != NH_BALL_FLIGHT ||
      fm->nx != rm->nx + 4 || !nh_ball_model_params(rm)->stop_on_detach)
    return NH_ERR_ARG;
  // rolling phase
  phase_obs o = {obs, user, 1, NAN};
  int rc = nh_ball_run(roll, t_end, phase_forward, &o);
  if (rc != NH_EVENT_STOP || !stopped_at_detachment(roll)) {
    o.drop_end = 0; /* no switch: the rolling END is the run's END */
    if (obs && isfinite(o.t_stop))
      obs(roll, NH_SAMPLE_END, nh_sim_time(roll), nh_sim_x(roll), NULL, user);
    return rc;
  }
  // switch to the free flight from the located detachment state
  const double td = nh_sim_time(roll);
  double xf[2 * NH_BALL_MAX_MASSES + 13];
  inf.detached = 1, inf.t_detach = td;
  if ((rc = nh_ball_flight_state(rm, td, nh_sim_x(roll), xf, &inf.z_acc)) != NH_OK) {
    if (info) *info = inf;
    return rc;
  }
  if (!(inf.z_acc >= -NH_BALL_LIFTOFF_TOL)) { /* pressed into the floor: no lift-off */
    if (info) *info = inf;
    if (obs) obs(roll, NH_SAMPLE_END, td, nh_sim_x(roll), NULL, user);
    return NH_EVENT_STOP;
  }
  if ((rc = nh_sim_set_state_x(fly, td, xf)) != NH_OK) {
    if (info) *info = inf;
    return rc;
  }
  // flight phase, to t_end or touchdown
  inf.flew = 1;
  rc = nh_ball_run(fly, t_end, obs, user);
  nh_event_record e;
  long k = nh_sim_event_count(fly);
  if (k > 0 && nh_sim_event_get(fly, k - 1, &e) == NH_OK && e.stopped) {
    const int n = nh_ball_model_params(fm)->n;
    inf.touchdown = 1, inf.t_touchdown = e.t, inf.vz_touchdown = e.x[2 * n + 12];
  }
  if (info) *info = inf;
  return rc;
}
