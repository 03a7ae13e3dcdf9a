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
