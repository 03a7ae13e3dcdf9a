#define _POSIX_C_SOURCE 200809L
/* test_walls.c - never through a wall: a seeded corpus of hybrid set-ups (stacks of balls on a
 * floor, a point in a V-shaped corner, a ball in a box, a cradle whose balls are gaps apart)
 * run with every method that goes through impacts, and the penny of Clark & Bloch on both
 * tables with both laws against its closed-form flow. Asserted on every run: no gap below
 * -NH_PENETRATION_REL max(1, |q|) |dg| at any step end, impact or output sample (an observer
 * evaluates the gaps itself); no energy gained at an impact (every law has e <= 1); the run
 * ends within its bounds (NH_OK; NH_DRIFT where the method claims a conservation the run
 * broke, a warning; or NH_ZENO, the Zeno guard's bounded end; none of them occurred). The penny's impacts equal the closed-form flow's
 * (same wall, times within PENNY_T_TOL) up to the first impact whose normal speed is below
 * PENNY_VN_MIN (docs/contact.md, "Never through a wall"). The almost-Poisson form: the sleigh
 * before a wall (examples/sleigh_ap_wall.nh), random starts, six methods. TEST_WALLS_SHOW=K prints
 * set-up K of the corpus as a model file; TEST_WALLS_TIME=1 times each run. The counts are printed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "model/model_impl.h"
#include "sim/sim_impl.h"
#include "nholo/method.h"
#include "nholo/modelfile.h"
#include "nholo/sim.h"
#include "nholo/systems.h"
#include "nholo/systems/all.h"

#ifndef NHOLO_SOURCE_DIR
#define NHOLO_SOURCE_DIR "."
#endif

#define CORPUS_SEED 0x5eed2026u
#define CORPUS_SETUPS 320      /* random set-ups, each with one random method */
#define CORPUS_T_END 3.0       /* simulated time of each */
#define CORPUS_MAX_STEPS 400000 /* each run's bound */
#define ENERGY_GAIN_REL 1e-9   /* an impact's energy after <= before (1 + this): rounding */
#define PENNY_T_TOL 1e-6       /* impact times against the closed-form flow, default tolerances */
#define PENNY_VN_MIN 1e-5      /* normal speeds (m/s) above which every impact must be found (docs/contact.md) */
#define PENNY_IMPACTS 20

/* xorshift64*: the corpus is the same on every machine */
static uint64_t rng_state = CORPUS_SEED;
static double urand(double a, double b) {
  rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
  const uint64_t r = rng_state * 2685821657736338717ull;
  return a + (b - a) * (double)(r >> 11) * 0x1.0p-53;
}
static int irand(int n) { return (int)urand(0.0, (double)n) % n; }

/* the methods that go through impacts on an unconstrained mechanical model, with the step of
 * the fixed-step ones */
static const char *const METHODS[] = {"dopri5", "dop853", "rk4",  "rk2",      "gni",      "rattle",
                                      "shake",  "del",    "avf",  "gonzalez", "itoh-abe", "gonzalez-r"};
#define NMETHODS ((int)(sizeof METHODS / sizeof METHODS[0]))

/* what the observer saw: the deepest relative penetration of any gap (-g / scale) at step ends
 * and impacts, and at output samples */
typedef struct watch {
  const nh_model *m;
  double g[16], dg[16 * 16];
  double worst_step, worst_out, t_step, t_out;
  int gap_step, gap_out;
  long samples;
} watch;

static int observe(const nh_sim *s, nh_sample_kind kind, double t, const double *q, const double *v, void *u) {
  (void)s, (void)v;
  watch *w = u;
  const nh_model *m = w->m;
  if (m->gap(q, w->g, w->dg, m->user)) return 1;
  const int n = m->form == NH_FORM_ODE ? m->nx : m->nq; /* almost-Poisson: gaps on the state */
  double qmax = 1.0;
  for (int j = 0; j < n; j++) qmax = fmax(qmax, fabs(q[j]));
  for (int i = 0; i < m->ngap; i++) {
    const double *d = w->dg + (size_t)i * n;
    double dn = 0.0;
    for (int j = 0; j < n; j++) dn += d[j] * d[j];
    const double rel = -w->g[i] / (qmax * sqrt(dn));
    if (kind == NH_SAMPLE_OUTPUT) {
      if (rel > w->worst_out) w->worst_out = rel, w->t_out = t, w->gap_out = i;
    } else if (rel > w->worst_step) {
      w->worst_step = rel, w->t_step = t, w->gap_step = i;
    }
  }
  w->samples++;
  return 0;
}

/* one random set-up as a model file */
static int setup_text(int kind, char *buf, size_t n, char *desc, size_t dn) {
  const double e = irand(4) == 0 ? 1.0 : urand(0.0, 1.0);
  int len = 0;
  switch (kind) {
  case 0: { /* a stack of nb balls of diameter 1 on a floor, dropped from random heights */
    const int nb = 2 + irand(3);
    len = snprintf(buf, n, "model stack\ncoordinates");
    for (int i = 0; i < nb; i++) len += snprintf(buf + len, n - (size_t)len, " y%d", i + 1);
    len += snprintf(buf + len, n - (size_t)len, "\nparameter g = 9.81\nparameter e = %.17g\nkinetic 1/2*(", e);
    for (int i = 0; i < nb; i++)
      len += snprintf(buf + len, n - (size_t)len, "%s%.6g*y%d'^2", i ? " + " : "", urand(0.5, 2.0), i + 1);
    len += snprintf(buf + len, n - (size_t)len, ")\npotential g*(");
    for (int i = 0; i < nb; i++) len += snprintf(buf + len, n - (size_t)len, "%sy%d", i ? " + " : "", i + 1);
    len += snprintf(buf + len, n - (size_t)len, ")\ngap floor: y1 - 0.5 impact restitution e\n");
    for (int i = 1; i < nb; i++)
      len += snprintf(buf + len, n - (size_t)len, "gap b%d: y%d - y%d - 1 impact restitution e\n", i, i + 1, i);
    double y = 0.5;
    len += snprintf(buf + len, n - (size_t)len, "initial");
    for (int i = 0; i < nb; i++) {
      y += (i ? 1.0 : 0.0) + urand(0.01, 0.6);
      len += snprintf(buf + len, n - (size_t)len, "%s y%d = %.6g, y%d' = %.6g", i ? "," : "", i + 1, y, i + 1,
                      urand(-2.0, 2.0));
    }
    len += snprintf(buf + len, n - (size_t)len, "\n");
    snprintf(desc, dn, "stack of %d, e = %.3g", nb, e);
    break;
  }
  case 1: { /* a point in a V-shaped corner y >= k |x| */
    const double k = urand(0.5, 10.0);
    len = snprintf(buf, n,
                   "model corner\ncoordinates x y\nparameter g = 9.81\nparameter k = %.17g\nparameter e = %.17g\n"
                   "kinetic 1/2*(x'^2 + y'^2)\npotential g*y\n"
                   "gap left: (y + k*x)/sqrt(1 + k^2) impact restitution e\n"
                   "gap right: (y - k*x)/sqrt(1 + k^2) impact restitution e\n"
                   "initial x = %.6g, y = %.6g, x' = %.6g\n",
                   k, e, urand(-0.05, 0.05), urand(0.6, 2.0), urand(-1.0, 1.0));
    snprintf(desc, dn, "corner k = %.3g, e = %.3g", k, e);
    break;
  }
  case 2: /* a ball in the unit box under gravity */
    len = snprintf(buf, n,
                   "model box\ncoordinates x y\nparameter g = 9.81\nparameter e = %.17g\n"
                   "kinetic 1/2*(x'^2 + y'^2)\npotential g*y\n"
                   "gap floor: y impact restitution e\ngap roof: 1 - y impact restitution e\n"
                   "gap west: x impact restitution e\ngap east: 1 - x impact restitution e\n"
                   "initial x = %.6g, y = %.6g, x' = %.6g, y' = %.6g\n",
                   e, urand(0.1, 0.9), urand(0.1, 0.9), urand(-5.0, 5.0), urand(-5.0, 5.0));
    snprintf(desc, dn, "box, e = %.3g", e);
    break;
  default: { /* a cradle: nb balls of diameter 1 on a line, the first one moving */
    const int nb = 3 + irand(3);
    len = snprintf(buf, n, "model cradle\ncoordinates");
    for (int i = 0; i < nb; i++) len += snprintf(buf + len, n - (size_t)len, " x%d", i + 1);
    len += snprintf(buf + len, n - (size_t)len, "\nparameter e = %.17g\nkinetic 1/2*(", e);
    for (int i = 0; i < nb; i++)
      len += snprintf(buf + len, n - (size_t)len, "%s%.6g*x%d'^2", i ? " + " : "", urand(0.5, 2.0), i + 1);
    len += snprintf(buf + len, n - (size_t)len, ")\n");
    for (int i = 1; i < nb; i++)
      len += snprintf(buf + len, n - (size_t)len, "gap c%d: x%d - x%d - 1 impact restitution e\n", i, i + 1, i);
    double x = 0.0;
    len += snprintf(buf + len, n - (size_t)len, "initial x1 = 0, x1' = %.6g", urand(0.5, 2.0));
    for (int i = 1; i < nb; i++) {
      x += 1.0 + urand(0.001, 0.3);
      len += snprintf(buf + len, n - (size_t)len, ", x%d = %.6g", i + 1, x);
    }
    len += snprintf(buf + len, n - (size_t)len, "\n");
    snprintf(desc, dn, "cradle of %d, e = %.3g", nb, e);
    break;
  }
  }
  return len > 0 && (size_t)len < n ? 0 : 1;
}

/* energy never gained at an impact */
static int energy_kept(const nh_sim *s, double *worst) {
  for (long k = 0; k < nh_sim_impact_count(s); k++) {
    nh_impact_record r;
    if (nh_sim_impact_get(s, k, &r)) return 1;
    const double gain = (r.energy_after - r.energy_before) / fmax(1.0, fabs(r.energy_before));
    if (gain > *worst) *worst = gain;
  }
  return 0;
}

static int test_corpus(void) {
  long ran = 0, refused = 0, impacts = 0, pen_step = 0, pen_out = 0, gained = 0, status_bad = 0, drift = 0;
  double worst_out = 0.0, worst_step = 0.0, worst_gain = 0.0;
  char text[4096], desc[128], msg[512];
  for (int c = 0; c < CORPUS_SETUPS; c++) {
    const int kind = irand(4);
    const char *meth = METHODS[irand(NMETHODS)];
    const double h = irand(2) ? 1e-3 : 4e-3;
    const int outputs = irand(2); /* half the runs report dense output samples */
    ENSURE(setup_text(kind, text, sizeof text, desc, sizeof desc) == 0);
    nh_load_opts o = nh_load_opts_default();
    o.backend = NH_BACKEND_TAPE;
    nh_model *m = nh_model_parse(text, "corpus.nh", &o, msg, sizeof msg);
    if (!m) printf("  set-up %d (%s): %s\n%s", c, desc, msg, text);
    ENSURE(m != NULL);
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(meth);
    d.h = h;
    d.max_steps = CORPUS_MAX_STEPS;
    d.out_dt = outputs ? 1e-3 : 0.0;
    nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
    if (!s) {
      refused++;
      nh_model_destroy(m);
      continue;
    }
    watch w = {.m = m, .gap_step = -1, .gap_out = -1};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const int rc = nh_sim_run(s, CORPUS_T_END, 0, observe, &w);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (getenv("TEST_WALLS_TIME")) printf("T %d %s %s %.3f %ld %ld\n", c, desc, meth, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), nh_sim_get_stats(s)->steps, nh_sim_impact_count(s));
    ran++;
    impacts += nh_sim_impact_count(s);
    double gain = 0.0;
    ENSURE(energy_kept(s, &gain) == 0);
    const int bad_status = !(rc == NH_OK || rc == NH_DRIFT || rc == NH_ZENO);
    if (rc == NH_DRIFT) drift++;
    if (w.worst_step > NH_PENETRATION_REL || w.worst_out > NH_PENETRATION_REL || gain > ENERGY_GAIN_REL || bad_status)
      printf("  set-up %d (%s), %s h = %g: %s (%s); deepest %.3g at t = %.6g (gap %d), output %.3g at t = %.6g, "
             "energy gain %.3g\n",
             c, desc, meth, h, nh_status_name(rc), nh_sim_message(s), w.worst_step, w.t_step, w.gap_step,
             w.worst_out, w.t_out, gain);
    if (getenv("TEST_WALLS_SHOW") && atoi(getenv("TEST_WALLS_SHOW")) == c) printf("%s", text);
    pen_step += w.worst_step > NH_PENETRATION_REL;
    pen_out += w.worst_out > NH_PENETRATION_REL;
    gained += gain > ENERGY_GAIN_REL;
    status_bad += bad_status;
    worst_step = fmax(worst_step, w.worst_step), worst_out = fmax(worst_out, w.worst_out);
    worst_gain = fmax(worst_gain, gain);
    nh_sim_destroy(s);
    nh_model_destroy(m);
  }
  printf("  corpus: %ld runs (%ld refused by their method), %ld impacts; through a wall at steps %ld, at outputs %ld "
         "(deepest %.3g, %.3g relative); energy gained %ld (most %.3g); other statuses %ld; NH_DRIFT %ld\n",
         ran, refused, impacts, pen_step, pen_out, worst_step, worst_out, gained, worst_gain, status_bad, drift);
  ENSURE(ran >= CORPUS_SETUPS / 2);
  ENSURE(pen_step == 0);
  ENSURE(pen_out == 0);
  ENSURE(gained == 0);
  ENSURE(status_bad == 0);
  return 0;
}

/* The penny on a table with a law: the impacts of `meth` at its default tolerances against
 * the closed-form flow's, up to the first closed-form impact slower than PENNY_VN_MIN */
static int penny_case(int ellipse, int plastic, const char *meth, int *matched, int *total) {
  nh_penny_params p = nh_penny_params_default();
  if (ellipse) p.a = 0.15, p.b = 0.2;
  p.law = plastic ? (nh_impact_law){NH_IMPACT_PLASTIC, 0.0} : (nh_impact_law){NH_IMPACT_ELASTIC, 1.0};
  char msg[256];
  nh_model *m = nh_penny_create(&p, msg, sizeof msg);
  ENSURE(m != NULL);
  nh_sim_def dx = nh_sim_def_default(), dm = nh_sim_def_default();
  dx.method = nh_method_find("exact");
  dm.method = nh_method_find(meth);
  nh_sim *sx = nh_sim_create(m, &dx, msg, sizeof msg), *sm = nh_sim_create(m, &dm, msg, sizeof msg);
  ENSURE(sx && sm);
  watch w = {.m = m};
  ENSURE(nh_sim_run(sx, 200.0, PENNY_IMPACTS, NULL, NULL) == NH_OK);
  const int rc = nh_sim_run(sm, 200.0, PENNY_IMPACTS, observe, &w);
  ENSURE(rc == NH_OK);
  ENSURE(w.worst_step <= NH_PENETRATION_REL);
  const long nx = nh_sim_impact_count(sx), nm = nh_sim_impact_count(sm);
  int k = 0;
  for (; k < nx; k++) {
    nh_impact_record a, b;
    ENSURE(nh_sim_impact_get(sx, k, &a) == NH_OK);
    if (fabs(a.vn_before) < PENNY_VN_MIN) break; /* a graze: the flows may part here */
    if (k >= nm) printf("  penny %s %s %s: impact %d (t = %.9g, vn %.3g) missing\n", ellipse ? "ellipse" : "circle",
                        plastic ? "plastic" : "elastic", meth, k, a.t, a.vn_before);
    ENSURE(k < nm);
    ENSURE(nh_sim_impact_get(sm, k, &b) == NH_OK);
    if (!(a.gap == b.gap && fabs(a.t - b.t) <= PENNY_T_TOL))
      printf("  penny %s %s %s: impact %d at %.12g (gap %d, vn %.3g) against %.12g (gap %d)\n",
             ellipse ? "ellipse" : "circle", plastic ? "plastic" : "elastic", meth, k, a.t, a.gap, a.vn_before, b.t,
             b.gap);
    ENSURE(a.gap == b.gap);
    ENSURE_NEAR(b.t, a.t, PENNY_T_TOL);
  }
  if (k < nx) {
    nh_impact_record a;
    ENSURE(nh_sim_impact_get(sx, k, &a) == NH_OK);
    printf("  penny %s %s %s: %d impacts compared, impact %d is slower (vn %.3g at t = %.9g)\n",
           ellipse ? "ellipse" : "circle", plastic ? "plastic" : "elastic", meth, k, k, a.vn_before, a.t);
  }
  *matched += k, *total += (int)nx;
  nh_sim_destroy(sx), nh_sim_destroy(sm), nh_model_destroy(m);
  return 0;
}

static int test_penny_sequences(void) {
  int matched = 0, total = 0;
  static const char *const meths[] = {"dopri5", "dop853"};
  for (int e = 0; e < 2; e++)
    for (int pl = 0; pl < 2; pl++)
      for (int j = 0; j < 2; j++)
        if (penny_case(e, pl, meths[j], &matched, &total)) return 1;
  printf("  penny: %d of %d closed-form impacts compared (the rest follow one slower than %g m/s)\n", matched, total,
         PENNY_VN_MIN);
  return 0;
}

/* run s to t_end (or n_impacts), observed: NH_OK or NH_DRIFT, no gap past the guard's
 * tolerance at a step end or impact, no energy gained at an impact; the deepest gap and the
 * impacts added to *worst, *impacts; s destroyed */
static int run_checked(nh_sim *s, const nh_model *m, double t_end, long n_impacts, const char *what, int c,
                       const char *meth, double *worst, long *impacts) {
  watch w = {.m = m};
  const int rc = nh_sim_run(s, t_end, n_impacts, observe, &w);
  double gain = 0.0;
  ENSURE(energy_kept(s, &gain) == 0);
  if (!(rc == NH_OK || rc == NH_DRIFT) || w.worst_step > NH_PENETRATION_REL || gain > ENERGY_GAIN_REL)
    printf("  %s %d, %s: %s (%s), deepest %.3g at t = %.6g, energy gain %.3g\n", what, c, meth, nh_status_name(rc),
           nh_sim_message(s), w.worst_step, w.t_step, gain);
  ENSURE(rc == NH_OK || rc == NH_DRIFT);
  ENSURE(w.worst_step <= NH_PENETRATION_REL);
  ENSURE(gain <= ENERGY_GAIN_REL);
  *worst = fmax(*worst, w.worst_step);
  *impacts += nh_sim_impact_count(s);
  nh_sim_destroy(s);
  return 0;
}

/* The penny on both tables with both laws, run by every method that takes it (the others
 * refuse it at creation): no gap past its wall at a step end or an impact, no energy gained
 * at an impact, NH_OK (or NH_DRIFT: a conservation the method claims, broken) */
static int test_penny_methods(void) {
  static const char *const meths[] = {"dopri5", "dop853", "rk4", "rk2", "gni", "rattle", "shake", "del", "rdp",
                                      "avf", "gonzalez", "itoh-abe", "gonzalez-r", "si-dla", "i-dla", "spark"};
  int ran = 0, refused = 0;
  long impacts = 0;
  double worst = 0.0;
  for (int c = 0; c < 4; c++) {
    nh_penny_params p = nh_penny_params_default();
    if (c & 1) p.a = 0.15, p.b = 0.2;
    p.law = (c & 2) ? (nh_impact_law){NH_IMPACT_PLASTIC, 0.0} : (nh_impact_law){NH_IMPACT_ELASTIC, 1.0};
    char msg[256];
    nh_model *m = nh_penny_create(&p, msg, sizeof msg);
    ENSURE(m != NULL);
    for (int j = 0; j < (int)(sizeof meths / sizeof meths[0]); j++) {
      nh_sim_def d = nh_sim_def_default();
      d.method = nh_method_find(meths[j]);
      d.h = 1e-3;
      nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
      if (!s) {
        refused++;
        continue;
      }
      ENSURE(run_checked(s, m, 20.0, PENNY_IMPACTS, "penny", c, meths[j], &worst, &impacts) == 0);
      ran++;
    }
    nh_model_destroy(m);
  }
  printf("  penny: %d runs (%d refused by their method), %ld impacts, deepest gap %.3g relative\n", ran, refused,
         impacts, worst);
  ENSURE(ran >= 16);
  return 0;
}

/* The almost-Poisson form: the sleigh of examples/sleigh_ap_wall.nh before its wall (gaps on
 * the state), random restitution, heading and rates, every method that takes it */
static int test_ap_corpus(void) {
  static const char *const meths[] = {"avf", "gonzalez", "itoh-abe", "dopri5", "dop853", "rk4"};
  char msg[512];
  char *text = nh_model_file_read(NHOLO_SOURCE_DIR "/examples/sleigh_ap_wall.nh", msg, sizeof msg);
  if (!text) printf("  %s\n", msg);
  ENSURE(text != NULL);
  int ran = 0;
  long impacts = 0;
  double worst = 0.0;
  for (int c = 0; c < 36; c++) {
    const char *names[] = {"e", "x1", "theta", "rho1", "rho2"};
    const double values[] = {irand(3) == 0 ? 1.0 : urand(0.0, 1.0), urand(-6.4, -4.0), urand(-1.2, 1.2),
                             urand(-0.5, 0.5), urand(-1.0, -0.2)};
    nh_load_opts o = nh_load_opts_default();
    o.backend = NH_BACKEND_TAPE;
    o.nset = 5, o.set_names = names, o.set_values = values;
    nh_model *m = nh_model_parse(text, "sleigh_ap_wall.nh", &o, msg, sizeof msg);
    ENSURE(m != NULL);
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(meths[c % 6]);
    d.h = 0.01;
    nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
    if (!s) printf("  %s: %s\n", meths[c % 6], msg);
    ENSURE(s != NULL);
    ENSURE(run_checked(s, m, 30.0, 0, "sleigh", c, meths[c % 6], &worst, &impacts) == 0);
    ran++;
    nh_model_destroy(m);
  }
  free(text);
  printf("  almost-Poisson sleigh: %d runs, %ld impacts, deepest gap %.3g relative\n", ran, impacts, worst);
  ENSURE(impacts >= ran); /* every start reaches the wall */
  return 0;
}

/* the graze criterion's cubic: a dip whose sampled slopes both point down (three turns between
 * two samples: the turn test alone misses it) is found at the cubic's minimum; a cubic that
 * stays above zero, or one whose interior extremum is a maximum, is not a dip */
static int test_hermite_dip(void) {
  const double g0 = 1e-3, g1 = 1e-3, m0 = -0.02, m1 = -0.001;
  const double u = nh_sim_hermite_dip(g0, g1, m0, m1);
  ENSURE(u > 0.0 && u < 1.0);
  const double u2 = u * u, u3 = u2 * u;
  const double p = (2 * u3 - 3 * u2 + 1) * g0 + (u3 - 2 * u2 + u) * m0 + (3 * u2 - 2 * u3) * g1 + (u3 - u2) * m1;
  const double dp = (6 * u2 - 6 * u) * g0 + (3 * u2 - 4 * u + 1) * m0 + (6 * u - 6 * u2) * g1 + (3 * u2 - 2 * u) * m1;
  ENSURE(p < 0.0);
  ENSURE(fabs(dp) <= 1e-15); /* the cubic's stationary point */
  ENSURE(nh_sim_hermite_dip(1e-3, 1e-3, -1e-4, 1e-4) < 0.0); /* shallow turn: stays above zero */
  ENSURE(nh_sim_hermite_dip(1e-3, 1e-3, 1e-2, -1e-2) < 0.0); /* a hump, not a dip */
  ENSURE(nh_sim_hermite_dip(0.0, 1.0, 1.0, 1.0) < 0.0);       /* monotone */
  // a parabola g = (u - 1/2)^2 - 1/16 sampled at its ends: the cubic is the parabola itself
  const double v = nh_sim_hermite_dip(3.0 / 16.0, 3.0 / 16.0, -1.0, 1.0);
  ENSURE_NEAR(v, 0.5, 1e-15);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1) nh_test_filter = argv[1];
  RUN_TEST(test_hermite_dip);
  RUN_TEST(test_corpus);
  RUN_TEST(test_penny_sequences);
  RUN_TEST(test_penny_methods);
  RUN_TEST(test_ap_corpus);
  return TEST_SUMMARY();
}
