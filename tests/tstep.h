/* tstep.h - a method's stepper outside the driver (its step, dense output and advance called
 * directly), model files parsed for the tape back end, and a step with one evaluator call
 * made to misbehave (fault_model.h); shared by the tests of the methods' paths. Included by
 * one test file each (static definitions). */
#ifndef NH_TEST_TSTEP_H
#define NH_TEST_TSTEP_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_model.h"
#include "methods/method_impl.h"
#include "model/dynamics.h"
#include "nholo/nholo.h"

/* the largest state ts_fault_at steps */
#define TS_NXMAX 64

typedef struct tstep {
  nh_stepper st;
  nh_dyn dyn;
  double *mem;
} tstep;

/* the stepper of meth on m with options o (rtol 1e-10, atol 1e-12, restart set, as the
 * driver starts it); 0, or 1 when out of memory */
static inline int ts_init(tstep *t, const nh_model *m, const nh_method *meth, nh_method_opts o) {
  size_t nw = meth->work_size(m), nd = nh_dyn_work_size(m);
  t->mem = calloc(nw + nd + 1, sizeof(double));
  if (!t->mem) return 1;
  nh_dyn_init(&t->dyn, m, t->mem + nw);
  memset(&t->st, 0, sizeof t->st);
  t->st.model = m, t->st.method = meth, t->st.nx = m->nx, t->st.rtol = 1e-10, t->st.atol = 1e-12;
  t->st.work = t->mem, t->st.dyn = &t->dyn, t->st.opts = o, t->st.restart = 1;
  return 0;
}

static inline void ts_free(tstep *t) {
  free(t->mem);
  t->mem = NULL;
}

/* a model file's text, printf-formatted with one string argument (Nullable: the text as it
 * is), on the tape back end; NULL with the diagnostic printed */
static inline nh_model *ts_parse(const char *text, const char *arg) {
  char buf[2048], msg[1024];
  snprintf(buf, sizeof buf, text, arg ? arg : "");
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  nh_model *m = nh_model_parse(buf, "test", &lo, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  return m;
}

static inline int ts_all_finite(int n, const double *x) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* steps 0 .. k of meth on m (options o, h = 0.02), the fault of mode `mode` at call number
 * occ (from 1; -1: the last) of evaluator ev in step k; the status of step k, its message */
static inline int ts_fault_at(const nh_model *m, const nh_method *meth, nh_method_opts o, int k, int ev, int occ,
                    fault_mode mode, char *msg, size_t size) {
  fault f;
  memset(&f, 0, sizeof f);
  nh_model *w = fault_wrap(m, &f, NULL, 0);
  if (!w) return NH_ERR_ARG;
  long at = 0;
  int rc = 0;
  for (int pass = 0; pass < 2 && !rc; pass++) {
    tstep t;
    if (ts_init(&t, w, meth, o)) return NH_ERR_NOMEM;
    f.calls = 0, f.at = 0, f.mode = mode;
    double x[TS_NXMAX], x1[TS_NXMAX], err;
    if (w->nx > TS_NXMAX) rc = NH_ERR_ARG;
    else memcpy(x, w->x0, sizeof(double) * (size_t)w->nx);
    for (int j = 0; j <= k && !rc; j++) {
      const long c0 = f.calls;
      if (pass == 1 && j == k) f.at = at;
      rc = meth->step(&t.st, 0.02 * j, x, 0.02, x1, &err);
      memcpy(x, x1, sizeof x);
      if (pass == 0 && j == k)
        for (long c = c0, seen = 0; c < f.calls; c++)
          if (f.log[c] == ev && (occ < 0 || ++seen == occ)) at = c + 1;
    }
    snprintf(msg, size, "%s", t.st.msg);
    ts_free(&t);
    if (pass == 0 && (rc || !at)) rc = NH_ERR_ARG; /* the clean run failed, or no such call */
  }
  nh_model_destroy(w);
  return rc;
}

#endif
