/* units_harness.h - what the unit-consistency tests of the implicit methods share (test_del_units.c,
 * test_rdp_units.c): a model file written with a mass unit M and a length unit L (parameters
 * "M" and "L"), run with a method in two unit systems, step by step; the Newton iterations of
 * every step and the dimensionless trajectory (lengths over L, angles as they are) compared.
 * Before including: UNITS_STEPS, UNITS_H, UNITS_AGREE_REL (relative agreement of the two runs)
 * and UNITS_METHOD; harness.h and nholo/nholo.h included. */
#ifndef NH_TESTS_UNITS_HARNESS_H
#define NH_TESTS_UNITS_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#define UNITS_NX_MAX 16

typedef struct units_run {
  int iters[UNITS_STEPS];
  double x[UNITS_STEPS][UNITS_NX_MAX]; /* q / L for lengths, v / L (angles unscaled) */
} units_run;

static units_run units_a, units_b; /* large: static */

/* UNITS_METHOD on text with M = mass, L = len; lengths marks which coordinates are lengths */
static int units_run_one(const char *text, double mass, double len, const int *lengths, units_run *o) {
  const char *names[] = {"M", "L"};
  const double values[] = {mass, len};
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  lo.nset = 2, lo.set_names = names, lo.set_values = values;
  char msg[1024];
  nh_model *m = nh_model_parse(text, "units.nh", &lo, msg, sizeof msg);
  if (!m) {
    printf("  %s\n", msg);
    return 1;
  }
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(UNITS_METHOD);
  d.h = UNITS_H;
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  if (!s || 2 * m->nq > UNITS_NX_MAX) {
    printf("  %s\n", s ? "model too large for the harness" : msg);
    nh_sim_destroy(s);
    nh_model_destroy(m);
    return 1;
  }
  const int nq = m->nq;
  int rc = 0;
  for (int k = 0; k < UNITS_STEPS && rc == 0; k++) {
    int impacted = 0;
    if (nh_sim_step(s, (k + 1) * UNITS_H, &impacted) < 0) {
      printf("  step %d: %s\n", k, nh_sim_message(s));
      rc = 1;
      break;
    }
    o->iters[k] = nh_sim_get_stats(s)->solver_last_iterations;
    for (int i = 0; i < nq; i++) {
      const double u = lengths[i] ? len : 1.0;
      o->x[k][i] = nh_sim_q(s)[i] / u, o->x[k][nq + i] = nh_sim_v(s)[i] / u;
    }
  }
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return rc;
}

/* the model in units (mass, len) against (1, 1): the same iterations in every step, at least
 * min_total in all (a genuine Newton solve in every step), the same dimensionless trajectory */
static int units_same(const char *text, int nq, const int *lengths, double mass, double len, long min_total) {
  if (units_run_one(text, mass, len, lengths, &units_a) || units_run_one(text, 1.0, 1.0, lengths, &units_b)) return 1;
  long total = 0;
  for (int k = 0; k < UNITS_STEPS; k++) {
    if (units_a.iters[k] != units_b.iters[k]) {
      printf("  step %d: %d Newton iterations with M = %g, L = %g; %d with M = L = 1\n", k, units_a.iters[k], mass, len,
             units_b.iters[k]);
      return 1;
    }
    total += units_a.iters[k];
    for (int i = 0; i < 2 * nq; i++)
      ENSURE_NEAR(units_a.x[k][i], units_b.x[k][i], UNITS_AGREE_REL * (1.0 + fabs(units_b.x[k][i])));
  }
  ENSURE(total >= min_total);
  printf("  %.*s: %ld Newton iterations in %d steps in both unit systems\n", (int)strcspn(text + 6, "\n"), text + 6,
         total, UNITS_STEPS);
  return 0;
}

#endif
