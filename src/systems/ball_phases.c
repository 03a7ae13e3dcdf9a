/* ball_phases.c - a rolling ball that may detach and fly (Putkaradze & Rogers, App. B).
 *
 * A chain of two phases (nh_chain_run, nholo/sim.h), each with its own model:
 *   rolling  (6.4) until N falls to 0 (the "normal_force" monitor stops the run there),
 *   reset    x_f = flight_state(x_roll): theta, theta', q, Om unchanged, z_GC = [zxy, 0],
 *            z_GC' = Lam (Om x r Gam) (the rolling velocity, 2.3); the flight's initial
 *            z_GC3'' (B.6) decides: < -NH_BALL_LIFTOFF_TOL means the free ball would be
 *            pressed into the floor (no lift-off: the run ends at the detachment),
 *   flight   (B.15, B.6) until t_end or touchdown (z_GC3 falls to 0: the "touchdown"
 *            monitor stops it; no landing law, so the run ends there).
 * Both phases land on the input's breakpoints (nh_ball_breakpoints). */
#include <math.h>
#include <string.h>

#include "nholo/systems/ball.h"
#include "systems/ball_impl.h"

/* was the last event of the rolling phase a detachment that stopped it? */
static int stopped_at_detachment(const nh_sim *roll) {
  const nh_model *m = nh_sim_model(roll);
  long k = nh_sim_event_count(roll);
  nh_event_record e;
  if (k < 1 || nh_sim_event_get(roll, k - 1, &e) != NH_OK) return 0;
  return e.stopped && strcmp(m->monitors[e.monitor].name, "normal_force") == 0;
}

int ball_liftoff(int from, const nh_sim *roll, int *to, double *t, double *x, void *user) {
  nh_ball_flight_info *inf = user;
  if (from != 0 || !stopped_at_detachment(roll)) return 1;
  inf->detached = 1, inf->t_detach = *t;
  double xf[2 * NH_BALL_MAX_MASSES + 13];
  int rc = nh_ball_flight_state(nh_sim_model(roll), *t, x, xf, &inf->z_acc);
  if (rc != NH_OK) return rc < 0 ? rc : NH_ERR_ARG;
  if (!(inf->z_acc >= -NH_BALL_LIFTOFF_TOL)) return 1; /* pressed into the floor: no lift-off */
  memcpy(x, xf, sizeof(double) * (size_t)(nh_sim_model(roll)->nx + 4));
  *to = 1;
  return 0;
}

void ball_flight_finish(nh_ball_flight_info *inf, const nh_sim *fly, int last) {
  nh_event_record e;
  long k = nh_sim_event_count(fly);
  if ((inf->flew = last == 1) && k > 0 && nh_sim_event_get(fly, k - 1, &e) == NH_OK && e.stopped) {
    const int n = nh_ball_model_params(nh_sim_model(fly))->n;
    inf->touchdown = 1, inf->t_touchdown = e.t, inf->vz_touchdown = e.x[2 * n + 12];
  }
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
  // rolling, then (after a lift-off) flight, to t_end or a final stop
  nh_sim *const phases[2] = {roll, fly};
  double breaks[2];
  const int nbreaks = nh_ball_breakpoints(rm, breaks);
  nh_chain c = {phases, 2, breaks, nbreaks, 0, 1, ball_liftoff, &inf};
  int last;
  int rc = nh_chain_run(&c, 0, t_end, obs, user, &last);
  ball_flight_finish(&inf, fly, last);
  if (info) *info = inf;
  return rc;
}
