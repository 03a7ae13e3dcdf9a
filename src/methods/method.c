/* method.c - the table of methods and its public accessors. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/msg.h"
#include "methods/method_impl.h"

/* Every method nholo knows, in the order `nholo list` shows them. */
static const nh_method *const nh_methods[] = {
    &nh_method_exact,
    &nh_method_rk4,
    &nh_method_rkmk4,
    &nh_method_dopri5,
    &nh_method_dop853,
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
    &nh_method_spark,
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

/* What a method needs of a model, said when it refuses one (the test is its supports). */
static const struct {
  const char *name, *needs;
} method_needs[] = {
    {"exact", "it needs the model's closed-form flow, which this model does not provide"},
    {"rkmk4", "it needs a first-order model with a rotation part (nh_model_def.angvel and a quaternion)"},
    {"gni", "it needs a mechanical model (coordinates and a kinetic energy)"},
    {"rattle", "it needs a mechanical model (coordinates and a kinetic energy)"},
    {"shake", "it needs a mechanical model (coordinates and a kinetic energy)"},
    {"del", "with constraints it needs at most 64 coordinates and constraints together (its dense Newton matrix)"},
    {"rdp", "it needs an SE(2)-invariant model (a 'group se2' statement; M and the constraints "
            "invariant under the group)"},
    {"avf", "the discrete gradients need an almost-Poisson model (a 'hamiltonian' and 'Pi' entries) or a conservative mechanical one (no generalized force) with fewer constraints than coordinates"},
    {"gonzalez", "the discrete gradients need an almost-Poisson model (a 'hamiltonian' and 'Pi' entries) or a conservative mechanical one (no generalized force) with fewer constraints than coordinates"},
    {"itoh-abe", "the discrete gradients need an almost-Poisson model (a 'hamiltonian' and 'Pi' entries) or a conservative mechanical one (no generalized force) with fewer constraints than coordinates"},
    {"gonzalez-r", "it needs a conservative model (no generalized force) with fewer constraints than coordinates"},
    {"gonzalez-r-fd", "it needs a conservative model (no generalized force) with fewer constraints than coordinates"},
    {"gonzalez-f", "it needs a conservative model with at least one constraint"},
    {"si-dla", "it needs a conservative model (no generalized force) with at least one constraint"},
    {"i-dla", "it needs a conservative model (no generalized force) with at least one constraint"},
    {"spark", "it needs a conservative mechanical model (no generalized force) with at least one constraint"},
};

int nh_method_check(const nh_method *method, const nh_model *model, char *msg, size_t msg_size) {
  nh_set_msg(msg, msg_size, "%s", "");
  int rc = nh_method_supports(method, model);
  if (rc == NH_OK) return NH_OK;
  if (rc != NH_ERR_UNSUPPORTED) {
    nh_set_msg(msg, msg_size, "method '%s': cannot test whether it runs the model (%s)",
               nh_method_name(method), nh_status_name(rc));
    return rc;
  }
  // the reason: a mechanical method on another form, else what the method needs
  const char *needs = "it does not support this model";
  for (size_t i = 0; i < sizeof method_needs / sizeof method_needs[0]; i++)
    if (strcmp(method_needs[i].name, method->name) == 0) needs = method_needs[i].needs;
  if (model->form != NH_FORM_MECHANICAL && !(method->flags & (NH_METHOD_LIE | NH_METHOD_EXACT)) && method->supports &&
      !strstr(needs, "almost-Poisson"))
    needs = "it needs a mechanical model (coordinates and a kinetic energy), not a first-order one";
  char fits[256];
  size_t len = 0;
  fits[0] = '\0';
  for (int i = 0; i < NH_NMETHODS; i++)
    if (nh_method_supports(nh_methods[i], model) == NH_OK && len < sizeof fits) {
      int w = snprintf(fits + len, sizeof fits - len, "%s%s", len ? ", " : "", nh_methods[i]->name);
      if (w > 0) len += (size_t)w;
    }
  nh_set_msg(msg, msg_size, "method '%s' cannot run model '%s': %s; methods that can: %s", method->name,
             model->name, needs, fits);
  return NH_ERR_UNSUPPORTED;
}

const nh_method *nh_method_default_for(const nh_model *model) {
  return model && model->flow ? &nh_method_exact : &nh_method_dopri5;
}

/* the automatic first step: a step of 1e-6 when x or F is this small in the scaled norm, the
 * Euler probe step is this fraction of |x|/|F|, the step grows at most this much over it */
#define NH_HINIT_SMALL 1e-5
#define NH_HINIT_FALLBACK 1e-6
#define NH_HINIT_FRACTION 0.01
#define NH_HINIT_GROWTH 100.0
#define NH_HINIT_FLAT 1e-15

int nh_initial_step(nh_dyn *dyn, int nx, int order, double t, const double *x, double rtol, double atol,
                    double h_max, double *work, double *h, long *evals) {
  double *f0 = work, *x1 = work + nx, *f1 = work + 2 * nx;
  double d0 = 0.0, d1 = 0.0, d2 = 0.0;
  int rc;
  if ((rc = nh_dyn_rhs(dyn, t, x, f0))) return rc;
  for (int i = 0; i < nx; i++) {
    double sc = atol + rtol * fabs(x[i]);
    d0 += (x[i] / sc) * (x[i] / sc), d1 += (f0[i] / sc) * (f0[i] / sc);
  }
  d0 = sqrt(d0 / nx), d1 = sqrt(d1 / nx);
  double h0 = (d0 < NH_HINIT_SMALL || d1 < NH_HINIT_SMALL) ? NH_HINIT_FALLBACK : NH_HINIT_FRACTION * d0 / d1;
  if (h_max > 0.0 && h0 > h_max) h0 = h_max;
  // an explicit Euler probe: the change of F over h0 estimates the second derivative
  for (int i = 0; i < nx; i++) x1[i] = x[i] + h0 * f0[i];
  if ((rc = nh_dyn_rhs(dyn, t + h0, x1, f1))) return rc;
  *evals += 2;
  for (int i = 0; i < nx; i++) {
    double sc = atol + rtol * fabs(x[i]), e = (f1[i] - f0[i]) / sc;
    d2 += e * e;
  }
  d2 = sqrt(d2 / nx) / h0;
  double dm = fmax(d1, d2);
  double h1 = dm <= NH_HINIT_FLAT ? fmax(NH_HINIT_FALLBACK, 1e-3 * h0) : pow(NH_HINIT_FRACTION / dm, 1.0 / (order + 1));
  *h = fmin(NH_HINIT_GROWTH * h0, h1);
  if (h_max > 0.0 && *h > h_max) *h = h_max;
  return isfinite(*h) && *h > 0.0 ? 0 : NH_ERR_NONFINITE;
}

double nh_err_norm(int n, const double *err, const double *x0, const double *x1, double rtol,
                   double atol) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double sc = atol + rtol * fmax(fabs(x0[i]), fabs(x1[i]));
    double e = err[i] / sc;
    s += e * e;
  }
  // a NaN (a stage the model left undefined, e.g. the last slope of dopri5, which x1 does not
  // contain) is +inf: the driver accepts a step when !(err > 1), which a NaN would pass
  return isnan(s) ? INFINITY : sqrt(s / n);
}

nh_method_opts nh_method_opts_default(void) {
  nh_method_opts o;
  memset(&o, 0, sizeof o);
  o.retraction = NH_RETRACTION_EXP;
  o.variant = NH_VARIANT_SYMMETRIC;
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

unsigned nh_method_flags_given(const nh_method *m, const nh_method_opts *opts, const nh_model *model) {
  unsigned f = m->flags;
  if ((m == &nh_method_gni || m == &nh_method_rattle || m == &nh_method_shake) && opts->variant == NH_VARIANT_SYMMETRIC) {
    f &= ~(unsigned)NH_METHOD_HALF_STEP;
    if (!model->mass_constant) f &= ~(unsigned)(NH_METHOD_ENERGY | NH_METHOD_ENERGY_NO_V);
  }
  return f;
}

static const char *const variant_names[] = {"symmetric", "paper"};

const char *nh_variant_name(nh_variant v) { return (int)v >= 0 && (int)v < 2 ? variant_names[v] : "unknown"; }

int nh_variant_find(const char *name) {
  for (int i = 0; name && i < 2; i++)
    if (strcmp(variant_names[i], name) == 0) return i;
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
