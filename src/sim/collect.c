/* collect.c - the second stage of the impact pipeline (resolve.c lists them): at a located
 * crossing of gap gi, the active set of contacts that take part in its resolution: gi, every
 * open gap touching (|g| <= simul_tol) that closes or rests (rate <= vn_tol), and every
 * persistent contact (on its wall, its rate ~0: it takes part in the propagation). Their
 * indices, names, gradients and rates go into the simultaneous workspace (simul_impl.h);
 * their number is returned: 1 (gi alone, or gi accumulating against closed contacts, which
 * closing it resolves) leaves the single-gap path of resolve.c. */
#include <math.h>
#include <string.h>

#include "sim/simul_impl.h"

int nh_sim_simul_collect(nh_sim *s, int gi) {
  nh_sim_simul *w = s->simul;
  const int nq = s->nq;
  const double *v = s->x + nq;
  int k = 0, nclosed = 0;
  if (!w) return 1;
  // the triggering gap, every open gap touching (|g| <= simul_tol) that closes or rests, and
  // every persistent contact (on its wall, rate ~0: it takes part in the propagation)
  for (int i = 0; i < s->ng; i++) {
    const double *dgi = s->dg + (size_t)i * nq, rate = nh_la_dot(nq, dgi, v);
    const int cl = s->nact > 0 && s->closed[i];
    if (i != gi && !cl && (!(fabs(s->g1[i]) <= s->def.simul_tol) || !(rate <= s->def.vn_tol))) continue;
    w->idx[k] = i;
    w->was_closed[k] = cl;
    w->names[k] = s->model->gap_names ? s->model->gap_names[i] : NULL;
    w->vnb[k] = rate;
    memcpy(w->dgk + (size_t)k * nq, dgi, sizeof(double) * (size_t)nq);
    nclosed += cl;
    k++;
  }
  // gap gi alone against persistent contacts, its impacts accumulating: closing it (the
  // plastic map over the active set, which holds them) resolves the accumulation instead
  double t_limit, ratio;
  if (nclosed > 0 && k - nclosed == 1 && s->def.contact && nh_sim_contact_accumulates(s, gi, &t_limit, &ratio))
    return 1;
  return k;
}
