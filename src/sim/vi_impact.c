/* vi_impact.c - impacts inside the variational time stepping (spec 003 sec. 3; the paper's
 * eqs. 28-30; docs/simultaneous-impacts.md, "Impacts inside the variational step").
 *
 * With del (the discrete Euler-Lagrange integrator) a step [t_k, t_k + h] that an impact
 * crosses is split at the impact time t* = t_k + tau:
 *   1. the impact time: the driver's location (locate.c) solves g_j(q*(tau)) = 0 where q*(tau)
 *      is del's own partial step, p_k + D1 L_d(q_k, q*; tau) = 0 (the nested solve, spec 3.3
 *      (a)), by Illinois regula falsi to event_tol max(1, |t|), keeping the feasible end;
 *   2. the resolution: del's partial step hands back v*- = M(q*)^-1 p*- with the discrete
 *      momentum p*- = D2 L_d(q_k, q*; tau) (+ h/2 f); the law (one gap: nh_impact_map; several
 *      within simul_tol: nh_simul_resolve, propagative) acts on v with the metric M(q*), which
 *      is the same map on p*- (p+ = p- Gamma(u) <=> v+ = v- - 2 (u v-)/(u M^-1 u^T) M^-1 u^T);
 *   3. the rest of the step: del from (q*, v*+), i.e. p*+ + D1 L_d(q*, q_k+1; h - tau) = 0
 *      (eq. 30), to t_k + h: this file's nh_sim_vi_step gives the driver that length, so the
 *      nodes stay on the grid t_k + h and another impact inside the rest splits it again
 *      (several impacts per step);
 *   4. chattering (spec 3.6): an impact of a contact less than h after its previous one is
 *      resolved by the plastic map (restitution 0; for a simultaneous set the projection over
 *      the set) and the contact becomes persistent when it pushes (contact.c; del holds it
 *      as a position constraint of its step, NH_HOLD_CONSTRAINT: the constrained DEL, spec 3.2).
 * The restart mode (every other method, and del with NH_IMPACT_STEP_RESTART) cuts the step at
 * the impact and takes steps of h from there; the contacts close by contact.c's accumulation
 * rule only. */
#include <math.h>

#include "base/msg.h"
#include "sim/sim_impl.h"

/* the rest of a split step shorter than this fraction of h (a rounding sliver, or an impact
 * at a grid point) is not taken as a step of its own: it joins the next grid step */
#define NH_VI_MIN_SUB_REL 1e-6

int nh_sim_vi_setup(nh_sim *s, char *msg, size_t msg_size) {
  const int mode = s->def.impact_step, del = s->def.method == &nh_method_del;
  if (mode < NH_IMPACT_STEP_AUTO || mode > NH_IMPACT_STEP_VARIATIONAL) {
    nh_set_msg(msg, msg_size, "impact_step %d is not a mode (nh_impact_step: 0 auto, 1 restart, 2 variational)", mode);
    return NH_ERR_ARG;
  }
  if (mode == NH_IMPACT_STEP_VARIATIONAL && !del) {
    nh_set_msg(msg, msg_size,
               "the variational impact step is del's (spec 003 sec. 3: the discrete Euler-Lagrange integrator); "
               "method '%s' restarts at impacts (impact_step restart)",
               s->def.method->name);
    return NH_ERR_ARG;
  }
  s->impact_step = mode == NH_IMPACT_STEP_AUTO ? (del ? NH_IMPACT_STEP_VARIATIONAL : NH_IMPACT_STEP_RESTART)
                                               : (nh_impact_step)mode;
  s->vi = s->impact_step == NH_IMPACT_STEP_VARIATIONAL && s->ng > 0;
  s->vi_end = -INFINITY;
  return 0;
}

nh_impact_step nh_sim_impact_step(const nh_sim *s) { return s ? s->impact_step : NH_IMPACT_STEP_AUTO; }

double nh_sim_vi_step(nh_sim *s, double h) {
  const double t = s->t;
  if (s->vi_end > t) { /* a split step: its rest */
    const double rest = s->vi_end - t;
    if (rest >= NH_VI_MIN_SUB_REL * h) return rest;
    s->vi_end += h; /* a sliver: one grid step further */
    return s->vi_end - t;
  }
  s->vi_end = t + h; /* a new grid step */
  return h;
}

int nh_sim_vi_chatters(const nh_sim *s, int gi) {
  const double h = s->def.h_max > 0.0 && s->def.h_max < s->def.h ? s->def.h_max : s->def.h; /* the grid step */
  return s->vi && s->t - s->t_imp[gi] < h;
}
