/* choose.c - the automatic method (nh_sim_def.method NULL, `--method auto`): chosen from the
 * model's structure, its impact laws, the run's horizon and its tolerance, with the reason in
 * one line (docs/integrators.md, "Which method for which job"; the measurements behind each
 * rule are there).
 *
 *   1. a closed-form flow between impacts             -> exact
 *   2. a long run (horizon >= NH_AUTO_LONG_HORIZON) of a mechanical model with constraints whose
 *      energy gni conserves exactly (V = 0, constant M, no forces, elastic impacts or none)
 *                                                     -> gni (symmetric): energy and constraints
 *                                                        to round-off, where the adaptive methods
 *                                                        drift (1e-5 on the car at T = 1000)
 *   3. rtol below NH_AUTO_DOP853_RTOL                 -> dop853 (high accuracy, fewer evaluations)
 *   4. otherwise                                      -> dopri5 (errors controlled by rtol, atol) */
#include <stdio.h>

#include "base/msg.h"
#include "sim/sim_impl.h"

/* a run at least this long (model time units) is a long run: there the adaptive methods'
 * energy drift (linear in t) reaches 1e-5 on a circling car or snakeboard at rtol 1e-10 (1e-6
 * at the default t_end of 100, where dopri5 stays the choice) */
#define NH_AUTO_LONG_HORIZON 1000.0
/* below this rtol dop853 needs fewer evaluations than dopri5 for the same error (1200 against
 * 7057 at 1e-14, a third at 1e-12 on the sleigh: docs/integrators.md, DOP853) */
#define NH_AUTO_DOP853_RTOL 1e-10

/* elastic impacts or none */
static int elastic(const nh_model *m) {
  for (int i = 0; m->impact && i < m->ngap; i++) {
    const nh_impact_law *law = &m->impact[i];
    if (!(law->kind == NH_IMPACT_ELASTIC || (law->kind == NH_IMPACT_RESTITUTION && law->e == 1.0))) return 0;
  }
  return 1;
}

const nh_method *nh_sim_choose_method(const nh_model *m, const nh_sim_def *def, char *why, size_t size) {
  const double horizon = def ? def->horizon : 0.0, rtol = def ? def->rtol : 1e-10;
  if (!m) return nh_set_msg(why, size, "no model"), &nh_method_dopri5;
  if (m->flow) {
    nh_set_msg(why, size, "the model has a closed-form flow between impacts");
    return &nh_method_exact;
  }
  const int long_run = horizon >= NH_AUTO_LONG_HORIZON;
  if (long_run && nh_sim_form_of(m)->metric && m->nc > 0 && m->mass_constant && !m->potential && !m->force &&
      elastic(m) && nh_method_supports(&nh_method_gni, m) == NH_OK) {
    nh_set_msg(why, size,
               "a long run (t_end %g >= %g) of a conservative model with constraints, V = 0 and a constant M: "
               "gni keeps the energy and the constraints to round-off at a fixed step (h = %g)",
               horizon, NH_AUTO_LONG_HORIZON, def ? def->h : 1e-3);
    return &nh_method_gni;
  }
  if (rtol < NH_AUTO_DOP853_RTOL) {
    nh_set_msg(why, size, "a tight tolerance (rtol %g < %g): dop853 reaches it in fewer evaluations", rtol,
               NH_AUTO_DOP853_RTOL);
    return &nh_method_dop853;
  }
  nh_set_msg(why, size, "%s: dopri5, errors controlled by rtol %g and atol %g",
             long_run ? "a long run of a model whose energy no fixed-step method conserves exactly"
                      : horizon > 0.0 ? "a short run" : "no horizon given",
             rtol, def ? def->atol : 1e-12);
  return &nh_method_dopri5;
}
