/* bounds.c - what the binding refuses before any work, with a ValueError naming the option:
 * an option that is not a finite number, a negative count, and a run beyond the library's
 * bounds (nholo/sim.h: NH_MAX_STEPS, NH_MAX_SAMPLES, the numbers the command line refuses
 * with), so that a mistyped horizon, step or sample interval is an error and not a run that
 * never ends while its memory grows. */
#include "nholo_py.h"

#include <math.h>
#include <stdio.h>

int nhpy_check_number(const char *key, double x) {
  if (isfinite(x)) return 1;
  char text[32];
  snprintf(text, sizeof text, "%g", x); /* inf, -inf, nan */
  PyErr_Format(PyExc_ValueError, "%s: %s must be a finite number", key, text);
  return 0;
}

int nhpy_check_count(const char *key, long long x) {
  if (x >= 0) return 1;
  PyErr_Format(PyExc_ValueError, "%s: %lld must be >= 0", key, x);
  return 0;
}

int nhpy_check_run(const nh_sim *sim, double t_end, int observed) {
  char msg[NHPY_MSG];
  if (nh_sim_check_run(sim, t_end, observed, msg, sizeof msg) == NH_OK) return 1;
  nhpy_value_error(msg);
  return 0;
}
