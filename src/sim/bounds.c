/* bounds.c - the bounds of a run that the front ends check before it starts (nholo/sim.h,
 * NH_MAX_STEPS and NH_MAX_SAMPLES): a horizon that is not finite, a fixed step too small for
 * it, a sample interval too small for it. The counts are compared as doubles: (t_end - t0) / h
 * may be far beyond a long. */
#include <math.h>

#include "base/msg.h"
#include "nholo/sim.h"
#include "sim/sim_impl.h"

int nh_sim_check_span(const nh_method *method, const nh_sim_def *def, double t0, double t_end, int observed,
                      char *msg, size_t msg_size) {
  nh_set_msg(msg, msg_size, "%s", "");
  if (!def) return nh_set_msg(msg, msg_size, "no simulation definition"), NH_ERR_ARG;
  if (!isfinite(t_end)) {
    nh_set_msg(msg, msg_size, "t_end = %g must be finite (to stop at an impact count, give max_impacts and a finite "
               "t_end)", t_end);
    return NH_ERR_ARG;
  }
  if (!(t_end >= t0)) {
    nh_set_msg(msg, msg_size, "t_end = %.17g is before the start of the run, t = %.17g", t_end, t0);
    return NH_ERR_ARG;
  }
  const double span = t_end - t0;
  const int fixed = method && !(nh_method_flags(method) & (NH_METHOD_ADAPTIVE | NH_METHOD_EXACT));
  double steps = fixed && def->h > 0.0 ? span / def->h : 0.0;
  if (def->max_steps > 0 && steps > (double)def->max_steps) steps = (double)def->max_steps; /* it stops there */
  if (steps > NH_MAX_STEPS) {
    nh_set_msg(msg, msg_size, "t_end - t = %g with h = %g is %.3g steps of a fixed-step method, more than the %.0e "
               "allowed (NH_MAX_STEPS); use a larger h (at least %g), a shorter run or an adaptive method",
               span, def->h, steps, NH_MAX_STEPS, span / NH_MAX_STEPS);
    return NH_ERR_ARG;
  }
  if (!observed) return NH_OK;
  if (def->out_dt > 0.0 && span / def->out_dt > NH_MAX_SAMPLES) {
    nh_set_msg(msg, msg_size, "t_end - t = %g sampled every out_dt = %g s is %.3g samples, more than the %.0e "
               "allowed (NH_MAX_SAMPLES); use a larger out_dt (at least %g) or a shorter run",
               span, def->out_dt, span / def->out_dt, NH_MAX_SAMPLES, span / NH_MAX_SAMPLES);
    return NH_ERR_ARG;
  }
  if (!(def->out_dt > 0.0) && steps > NH_MAX_SAMPLES) {
    nh_set_msg(msg, msg_size, "t_end - t = %g with h = %g is %.3g steps, a sample each (out_dt = 0), more than the "
               "%.0e samples allowed (NH_MAX_SAMPLES); use out_dt (at least %g) or a larger h",
               span, def->h, steps, NH_MAX_SAMPLES, span / NH_MAX_SAMPLES);
    return NH_ERR_ARG;
  }
  return NH_OK;
}

int nh_sim_check_run(const nh_sim *sim, double t_end, int observed, char *msg, size_t msg_size) {
  if (!sim) return nh_set_msg(msg, msg_size, "no simulation"), NH_ERR_ARG;
  return nh_sim_check_span(sim->def.method, &sim->def, sim->t, t_end, observed, msg, msg_size);
}
