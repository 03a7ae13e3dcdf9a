/* tstep.h - a method's stepper outside the driver (its step, dense output and advance called
 * directly), and model files parsed for the tape back end; shared by the tests of the
 * methods' paths. Included by one test file each (static definitions). */
#ifndef NH_TEST_TSTEP_H
#define NH_TEST_TSTEP_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "methods/method_impl.h"
#include "model/dynamics.h"
#include "nholo/nholo.h"

typedef struct tstep {
  nh_stepper st;
  nh_dyn dyn;
  double *mem;
} tstep;

/* the stepper of meth on m with options o (rtol 1e-10, atol 1e-12, restart set, as the
 * driver starts it); 0, or 1 when out of memory */
static int ts_init(tstep *t, const nh_model *m, const nh_method *meth, nh_method_opts o) {
  size_t nw = meth->work_size(m), nd = nh_dyn_work_size(m);
  t->mem = calloc(nw + nd + 1, sizeof(double));
  if (!t->mem) return 1;
  nh_dyn_init(&t->dyn, m, t->mem + nw);
  memset(&t->st, 0, sizeof t->st);
  t->st.model = m, t->st.method = meth, t->st.nx = m->nx, t->st.rtol = 1e-10, t->st.atol = 1e-12;
  t->st.work = t->mem, t->st.dyn = &t->dyn, t->st.opts = o, t->st.restart = 1;
  return 0;
}

static void ts_free(tstep *t) {
  free(t->mem);
  t->mem = NULL;
}

/* a model file's text, printf-formatted with one string argument (Nullable: the text as it
 * is), on the tape back end; NULL with the diagnostic printed */
static nh_model *ts_parse(const char *text, const char *arg) {
  char buf[2048], msg[1024];
  snprintf(buf, sizeof buf, text, arg ? arg : "");
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  nh_model *m = nh_model_parse(buf, "test", &lo, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  return m;
}

static int ts_all_finite(int n, const double *x) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

#endif
