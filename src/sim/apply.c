/* apply.c - after an impact law moved the state (resolve.c, simul.c): the closed contacts kept,
 * the energy after, the record (log.c), the observer, a contact closing after the bounce
 * (contact.c), the Zeno guard. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_impl.h"

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
