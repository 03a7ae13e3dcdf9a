/* dstar.c - nh_model_dstar_create: the almost-Poisson (ODE) model on D* of a conservative
 * Lagrangian model with nonholonomic constraints, x = (q, rho), in the QR chart of GONZALEZ-R
 * with the signs fixed at the model's q0 (the evaluators are nh_dstar_eval of
 * src/methods/gonzalez_r.c); and the maps between (q, v) and x. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/msg.h"
#include "methods/method_impl.h"
#include "model/model_impl.h"

typedef struct dstar_user {
  nh_stepper st; /* the Lagrangian model and the chart's workspace */
  int nq, m;
  double work[]; /* nh_dstar_ctx_size doubles */
} dstar_user;

static void dstar_free(void *user) { free(user); }

static int ds_hamiltonian(const double *x, double *H, double *dH, void *user) {
  return nh_dstar_eval(&((dstar_user *)user)->st, x, H, dH, NULL);
}
static int ds_poisson(const double *x, double *Pi, void *user) {
  return nh_dstar_eval(&((dstar_user *)user)->st, x, NULL, NULL, Pi);
}

static dstar_user *user_of(const nh_model *m) {
  return m && m->user_free == dstar_free ? (dstar_user *)m->user : NULL;
}

nh_model *nh_model_dstar_create(const nh_model *lag, char *msg, size_t msg_size) {
  nh_set_msg(msg, msg_size, "%s", "");
  if (!lag || lag->form != NH_FORM_MECHANICAL || nh_dstar_supports(lag)) {
    nh_set_msg(msg, msg_size, "%s", "the D* form needs a mechanical model without forces and with fewer constraints than coordinates");
    return NULL;
  }
  const int nq = lag->nq, m = nq - lag->nc, nx = nq + m;
  dstar_user *u = calloc(1, sizeof *u + sizeof(double) * nh_dstar_ctx_size(lag));
  char(*names)[NH_MAX_NAME] = calloc((size_t)nx, NH_MAX_NAME);
  const char **np = calloc((size_t)nx, sizeof *np);
  double *x0 = calloc((size_t)nx, sizeof *x0);
  nh_model *out = NULL;
  if (!u || !names || !np || !x0) {
    nh_set_msg(msg, msg_size, "%s", "the D* form: out of memory");
    goto done;
  }
  u->st.model = lag, u->st.work = u->work, u->nq = nq, u->m = m;
  // the chart at q0, the initial state from (q0, v0)
  int rc = nh_dstar_chart(&u->st, lag->q0);
  if (!rc) memcpy(x0, lag->q0, sizeof(double) * (size_t)nq);
  if (!rc) rc = nh_dstar_map(&u->st, lag->q0, lag->x0 + nq, x0 + nq, NULL);
  if (rc) {
    nh_set_msg(msg, msg_size, "the D* form: no QR frame of the constraints at q0 (%s)", nh_status_name(rc));
    goto done;
  }
  for (int i = 0; i < nx; i++) {
    if (i < nq) snprintf(names[i], NH_MAX_NAME, "%s", lag->coord_names[i]);
    else snprintf(names[i], NH_MAX_NAME, "rho%d", i - nq + 1);
    np[i] = names[i];
  }
  nh_model_def d = nh_model_def_default();
  char name[NH_MAX_NAME];
  snprintf(name, sizeof name, "%.57s-dstar", lag->name);
  d.name = name;
  d.form = NH_FORM_ODE;
  d.nx = nx;
  d.state_names = np;
  d.x0 = x0;
  d.hamiltonian = ds_hamiltonian;
  d.poisson = ds_poisson;
  d.user = u;
  d.user_free = dstar_free;
  out = nh_model_create(&d, msg, msg_size);
  if (out) u = NULL; /* owned by the model */
done:
  free(u), free(names), free(np), free(x0);
  return out;
}

int nh_model_dstar_from_qv(const nh_model *dstar, const double *q, const double *v, double *x) {
  dstar_user *u = user_of(dstar);
  if (!u || !q || !v || !x) return NH_ERR_ARG;
  memmove(x, q, sizeof(double) * (size_t)u->nq);
  return nh_dstar_map(&u->st, x, v, x + u->nq, NULL);
}

int nh_model_dstar_to_qv(const nh_model *dstar, const double *x, double *q, double *v) {
  dstar_user *u = user_of(dstar);
  if (!u || !x || !v) return NH_ERR_ARG;
  int rc = nh_dstar_map(&u->st, x, x + u->nq, NULL, v);
  if (!rc && q) memmove(q, x, sizeof(double) * (size_t)u->nq);
  return rc;
}
