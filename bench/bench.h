/* bench.h - what the benchmark programs share: a CPU-time clock (waiting for a busy machine is
 * not work, so the figures stay comparable on a shared one) and the example models. */
#ifndef NH_BENCH_H
#define NH_BENCH_H

#include <stdio.h>
#include <time.h>

#include "nholo/nholo.h"

#ifndef NHOLO_SOURCE_DIR
#define NHOLO_SOURCE_DIR "."
#endif

/* CPU seconds of this process */
static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* examples/FILE with a back end and overrides (names/values Nullable when n = 0); NULL with
 * the diagnostic on stderr */
static inline nh_model *bench_load_example(const char *file, nh_backend backend, const char **names,
                                           const double *values, int n) {
  nh_load_opts o = nh_load_opts_default();
  o.backend = backend;
  o.nset = n, o.set_names = names, o.set_values = values;
  char msg[2048], path[512];
  snprintf(path, sizeof path, "%s/examples/%s", NHOLO_SOURCE_DIR, file);
  nh_model *m = nh_model_load(path, &o, msg, sizeof msg);
  if (!m) fprintf(stderr, "bench: %s\n", msg);
  return m;
}

#endif
