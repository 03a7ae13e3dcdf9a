/* method.c - the table of methods and its public accessors. */
#include <math.h>
#include <string.h>

#include "methods/method_impl.h"

/* Every method nholo knows, in the order `nholo list` shows them. */
static const nh_method *const nh_methods[] = {
    &nh_method_exact,
    &nh_method_rk4,
    &nh_method_rkmk4,
    &nh_method_dopri5,
    &nh_method_rk2,
    &nh_method_gni,
    &nh_method_rattle,
    &nh_method_shake,
    &nh_method_del,
    &nh_method_rdp,
    &nh_method_avf,
    &nh_method_gonzalez,
    &nh_method_itoh_abe,
    &nh_method_gonzalez_r,
    &nh_method_gonzalez_r_fd,
    &nh_method_gonzalez_f,
    &nh_method_si_dla,
    &nh_method_i_dla,
};

#define NH_NMETHODS ((int)(sizeof nh_methods / sizeof nh_methods[0]))

int nh_method_count(void) { return NH_NMETHODS; }

const nh_method *nh_method_at(int i) { return i >= 0 && i < NH_NMETHODS ? nh_methods[i] : NULL; }

const nh_method *nh_method_find(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < NH_NMETHODS; i++)
    if (strcmp(nh_methods[i]->name, name) == 0) return nh_methods[i];
  return NULL;
}

const char *nh_method_name(const nh_method *m) { return m ? m->name : ""; }
const char *nh_method_summary(const nh_method *m) { return m ? m->summary : ""; }
const char *nh_method_preserves(const nh_method *m) { return m ? m->preserves : ""; }
int nh_method_order(const nh_method *m) { return m ? m->order : 0; }
unsigned nh_method_flags(const nh_method *m) { return m ? m->flags : 0u; }

int nh_method_supports(const nh_method *method, const nh_model *model) {
  if (!method || !model) return NH_ERR_ARG;
  return method->supports ? method->supports(model) : NH_OK;
}

double nh_err_norm(int n, const double *err, const double *x0, const double *x1, double rtol,
                   double atol) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double sc = atol + rtol * fmax(fabs(x0[i]), fabs(x1[i]));
    double e = err[i] / sc;
    s += e * e;
  }
  return sqrt(s / n);
}

nh_method_opts nh_method_opts_default(void) {
  nh_method_opts o;
  memset(&o, 0, sizeof o);
  o.retraction = NH_RETRACTION_EXP;
  o.start = NH_START_MIDPOINT;
  o.midpoint_ld = 0;
  o.alpha = 0.5;
  o.dexp_order = 0;
  o.newton_tol = 1e-12;
  o.newton_max_iter = 30;
  return o;
}

static const char *const retraction_names[] = {"exp", "ccsk", "cay"};

const char *nh_retraction_name(nh_retraction r) {
  return (int)r >= 0 && (int)r < 3 ? retraction_names[r] : "";
}

int nh_retraction_find(const char *name) {
  for (int i = 0; name && i < 3; i++)
    if (strcmp(retraction_names[i], name) == 0) return i;
  return -1;
}

int nh_hermite_dense(nh_stepper *s, double t, const double *x0, double h, const double *x1,
                     double theta, double *x, double *f, double *valid) {
  const int n = s->nx;
  double *f0 = f, *f1 = f + n;
  int rc;
  // slopes at both ends, once per step
  if (*valid == 0.0) {
    if ((rc = nh_dyn_rhs(s->dyn, t, x0, f0)) || (rc = nh_dyn_rhs(s->dyn, t + h, x1, f1))) return rc;
    s->evals += 2;
    *valid = 1.0;
  }
  double th = theta, th2 = th * th, th3 = th2 * th;
  double h00 = 2 * th3 - 3 * th2 + 1, h10 = th3 - 2 * th2 + th;
  double h01 = -2 * th3 + 3 * th2, h11 = th3 - th2;
  for (int i = 0; i < n; i++) x[i] = h00 * x0[i] + h10 * h * f0[i] + h01 * x1[i] + h11 * h * f1[i];
  return 0;
}

int nh_hermite_dense_tail(nh_stepper *s, double t, const double *x0, double h, const double *x1,
                          double theta, double *x) {
  double *f = s->work + s->method->work_size(s->model) - (2 * (size_t)s->nx + 1);
  return nh_hermite_dense(s, t, x0, h, x1, theta, x, f, f + 2 * s->nx);
}
