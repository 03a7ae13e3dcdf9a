/* augment.c - the tangent flow of a mechanical model as a mechanical model of its own, so that
 * the ordinary simulation driver runs it with the model's gaps, impact laws and persistent
 * contacts (analysis.h, docs/lyapunov.md).
 *
 * Coordinates (q, dq), velocities (v, dv):
 *   mass diag(M(q), I), potential V(q), Coriolis (c(q, v), 0), constraint rows [A(q), 0] with
 *   (Adot v, nothing), gaps g(q) with gradients [dg(q), 0], the model's impact laws, and the
 *   force (f(t, q, v), da) with da = the dv part of J(t, x) dx (nh_tan_jvp) for the contacts
 *   the run holds closed.
 * Every matrix is block diagonal and no gap, row or law sees dq or dv, so the (q, v) part moves
 * as the model does, impacts and contacts included (the dv part of an impact map is the
 * identity: lyapunov.c applies the saltation), and the dx part follows the variational
 * equation of the flow in force: free, or constrained by the closed contacts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/msg.h"
#include "nholo/sim.h"

static int aug_mass(const double *Q, double *Ma, void *user) {
  const nh_tan_aug *g = user;
  const nh_model *m = g->T->m;
  const int n = g->nq, na = 2 * n;
  double *M = g->buf;
  int rc = m->mass(Q, M, m->user);
  if (rc) return rc;
  memset(Ma, 0, sizeof(double) * (size_t)na * (size_t)na);
  for (int i = 0; i < n; i++) {
    memcpy(Ma + (size_t)i * na, M + (size_t)i * n, sizeof(double) * (size_t)n);
    Ma[(size_t)(n + i) * na + n + i] = 1.0;
  }
  return 0;
}

static int aug_potential(const double *Q, double *V, double *dV, void *user) {
  const nh_tan_aug *g = user;
  const nh_model *m = g->T->m;
  if (dV) memset(dV + g->nq, 0, sizeof(double) * (size_t)g->nq);
  return m->potential(Q, V, dV, m->user);
}

static int aug_coriolis(const double *Q, const double *Vv, double *c, void *user) {
  const nh_tan_aug *g = user;
  const nh_model *m = g->T->m;
  memset(c + g->nq, 0, sizeof(double) * (size_t)g->nq);
  return m->coriolis(Q, Vv, c, m->user);
}

static int aug_constraint(const double *Q, const double *Vv, double *A, double *Adv, void *user) {
  const nh_tan_aug *g = user;
  const nh_model *m = g->T->m;
  const int n = g->nq, nc = m->nc;
  double *Am = g->buf;
  int rc = m->constraint(Q, Vv, A ? Am : NULL, Adv, m->user);
  if (rc || !A) return rc;
  memset(A, 0, sizeof(double) * (size_t)nc * 2 * (size_t)n);
  for (int k = 0; k < nc; k++) memcpy(A + (size_t)k * 2 * n, Am + (size_t)k * n, sizeof(double) * (size_t)n);
  return 0;
}

static int aug_gap(const double *Q, double *gv, double *dg, void *user) {
  const nh_tan_aug *g = user;
  const nh_model *m = g->T->m;
  const int n = g->nq, ng = m->ngap;
  double *dm = g->buf;
  int rc = m->gap(Q, gv, dg ? dm : NULL, m->user);
  if (rc || !dg) return rc;
  memset(dg, 0, sizeof(double) * (size_t)ng * 2 * (size_t)n);
  for (int k = 0; k < ng; k++) memcpy(dg + (size_t)k * 2 * n, dm + (size_t)k * n, sizeof(double) * (size_t)n);
  return 0;
}

void nh_tan_aug_sync(nh_tan_aug *g) {
  nh_tan *T = g->T;
  T->nact = 0;
  for (int i = 0; g->sim && i < T->ng; i++)
    if (nh_sim_contact_closed(g->sim, i)) T->act[T->nact++] = i;
}

/* (f(t, q, v), da): the model's force and the variational acceleration for the contacts the
 * run holds closed now (also at the driver's trial closings) */
static int aug_force(double t, const double *Q, const double *Vv, double *f, void *user) {
  nh_tan_aug *g = user;
  nh_tan *T = g->T;
  const nh_model *m = T->m;
  const int n = g->nq;
  double *x = g->buf, *dx = x + 2 * n, *jdx = dx + 2 * n;
  int rc;
  memset(f, 0, sizeof(double) * (size_t)n);
  if (m->force && (rc = m->force(t, Q, Vv, f, m->user))) return rc;
  memcpy(x, Q, sizeof(double) * (size_t)n), memcpy(x + n, Vv, sizeof(double) * (size_t)n);
  memcpy(dx, Q + n, sizeof(double) * (size_t)n), memcpy(dx + n, Vv + n, sizeof(double) * (size_t)n);
  nh_tan_aug_sync(g);
  if ((rc = nh_tan_jvp(T, t, x, dx, jdx))) return rc;
  memcpy(f + n, jdx + n, sizeof(double) * (size_t)n);
  return 0;
}

nh_model *nh_tan_aug_create(nh_tan_aug *g, nh_tan *T, const nh_impact_law *law, char *msg, size_t msg_size) {
  const nh_model *m = T->m;
  const int n = m->nq, ng = m->ngap, nc = m->nc;
  memset(g, 0, sizeof *g);
  g->T = T, g->nq = n;
  const size_t nb = (size_t)n * (size_t)(n > nc ? n : nc) + (size_t)ng * (size_t)n + 6 * (size_t)n + 1;
  char *names = calloc((size_t)2 * n, NH_MAX_NAME + 4);
  const char **tab = calloc((size_t)2 * n + 1, sizeof *tab);
  nh_impact_law *laws = calloc((size_t)ng + 1, sizeof *laws);
  double *x0 = calloc((size_t)4 * n, sizeof(double));
  g->buf = calloc(nb, sizeof(double));
  nh_model *a = NULL;
  if (!names || !tab || !laws || !x0 || !g->buf) {
    nh_set_msg(msg, msg_size, "out of memory for the tangent system");
    goto done;
  }
  for (int i = 0; i < n; i++) {
    char *nm = names + (size_t)(n + i) * (NH_MAX_NAME + 4);
    tab[i] = m->coord_names[i];
    snprintf(nm, NH_MAX_NAME, "d(%s)", m->coord_names[i]); /* not a model-file name: no clash */
    tab[n + i] = nm;
  }
  for (int i = 0; i < ng; i++) laws[i] = law ? *law : m->impact[i];
  memcpy(x0, m->x0, sizeof(double) * (size_t)n);         /* q */
  memcpy(x0 + 2 * n, m->x0 + n, sizeof(double) * (size_t)n); /* v */
  nh_model_def d = nh_model_def_default();
  d.name = m->name;
  d.nq = 2 * n, d.nc = nc, d.ngap = ng;
  d.coord_names = tab;
  d.constraint_names = m->constraint_names, d.gap_names = m->gap_names;
  d.impact = ng > 0 ? laws : NULL;
  d.q0 = x0, d.v0 = x0 + 2 * n;
  d.mass = aug_mass;
  d.potential = m->potential ? aug_potential : NULL;
  d.coriolis = m->coriolis ? aug_coriolis : NULL;
  d.force = aug_force;
  d.constraint = nc > 0 ? aug_constraint : NULL;
  d.gap = ng > 0 ? aug_gap : NULL;
  d.mass_constant = m->mass_constant;
  d.user = g; /* not copied: the callbacks reach T and the run through it */
  char sub[256];
  if (!(a = nh_model_create(&d, sub, sizeof sub))) nh_set_msg(msg, msg_size, "the tangent system could not be built: %s", sub);
done:
  free(names), free(tab), free(laws), free(x0);
  return a;
}

void nh_tan_aug_free(nh_tan_aug *g) {
  free(g->buf);
  g->buf = NULL;
}
