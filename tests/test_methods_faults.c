/* test_methods_faults.c - every method's step and dense output against an evaluator that fails
 * at each of its calls in turn (tests/fault_model.h): a callback's error (-1) ends the step
 * with NH_ERR_CALLBACK, a request for a smaller step (+1) comes back positive, NaN written
 * into the outputs of a call and of every call after it (a model undefined from there on)
 * never yields a finite state the driver would accept (err <= 1), and the step taken again from the same
 * state without the fault gives the clean result (a failure leaves no carried state behind:
 * the two-step methods gni, rattle and shake key it by the state it belongs to). Run on the
 * kinds' examples (nh_model_kind_example, their force and flow variants) and on model files
 * that add what those lack: a configuration-dependent M with a potential, a force and a
 * nonholonomic constraint; holonomic constraints (del's multiplier step); an SE(2)-invariant
 * model with a shape variable and a configuration-dependent M (rdp). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_model.h"
#include "harness.h"
#include "tstep.h"
#include "methods/method_impl.h"
#include "model/dynamics.h"
#include "nholo/nholo.h"

/* the fixed step of the sweeps */
#define SWEEP_H 0.01
/* steps of the clean run (the fault is tried in the first, a fresh start, and the last, a
 * continuation) */
#define SWEEP_STEPS 3
/* at most this many failing calls tried per step (evenly spread over the step's calls) */
#define SWEEP_MAX_TRIES 40
/* largest state of the models here */
#define NXMAX 16

static int same(int n, const double *a, const double *b) { return memcmp(a, b, sizeof(double) * (size_t)n) == 0; }

static long g_cases, g_tries, g_fail; /* (g_fail: failures, printed; the test fails) */

/* the clean run: states xs[0..SWEEP_STEPS], evaluator calls per step, and the dense output at
 * theta = 1/2 of each step with its calls */
typedef struct clean_run {
  double xs[SWEEP_STEPS + 1][NXMAX], xd[SWEEP_STEPS][NXMAX];
  long calls[SWEEP_STEPS], dcalls[SWEEP_STEPS];
} clean_run;

/* steps 0 .. upto - 1 (with dense output after each, as the driver samples it), checked
 * against the clean run when cr->calls is set (the model is deterministic) */
static int run_steps(tstep *t, fault *f, const nh_model *w, int upto, clean_run *cr, int record) {
  const int nx = w->nx;
  double x[NXMAX];
  memcpy(x, w->x0, sizeof(double) * (size_t)nx);
  if (record) memcpy(cr->xs[0], x, sizeof x);
  for (int k = 0; k < upto; k++) {
    double x1[NXMAX], xd[NXMAX], err = 0.0;
    long c0 = f->calls;
    int rc = t->st.method->step(&t->st, SWEEP_H * k, x, SWEEP_H, x1, &err);
    if (rc != 0) {
      printf("  clean step %d of %s on %s: %s (%s)\n", k, t->st.method->name, w->name, nh_status_name(rc), t->st.msg);
      return 1;
    }
    long c1 = f->calls;
    rc = t->st.method->dense(&t->st, SWEEP_H * k, x, SWEEP_H, x1, 0.5, xd);
    if (rc != 0) return 1;
    if (record) {
      cr->calls[k] = c1 - c0, cr->dcalls[k] = f->calls - c1;
      memcpy(cr->xs[k + 1], x1, sizeof x1), memcpy(cr->xd[k], xd, sizeof xd);
    } else if (!same(nx, x1, cr->xs[k + 1])) {
      printf("  %s on %s: the clean run is not reproducible\n", t->st.method->name, w->name);
      return 1;
    }
    memcpy(x, x1, sizeof x);
  }
  return 0;
}

/* largest |a - b| relative to max(1, |b|) */
static double rel_dev(int n, const double *a, const double *b) {
  double d = 0.0;
  for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]) / fmax(1.0, fabs(b[i])));
  return d;
}

/* whether a call of evaluator ev may have come through the model's derivative helpers
 * (src/model/deriv.c: a derivative evaluator, or the finite differences of an evaluator whose
 * derivative the model leaves out), which report a positive return as NH_ERR_CALLBACK */
static int via_deriv(const nh_model *m, int ev) {
  if (ev == FAULT_EV_MASS_DERIV || ev == FAULT_EV_MASS_DERIV2 || ev == FAULT_EV_POTENTIAL_HESS ||
      ev == FAULT_EV_CONSTRAINT_DERIV || ev == FAULT_EV_FORCE_JAC || ev == FAULT_EV_HAMILTONIAN_HESS ||
      ev == FAULT_EV_POISSON_JAC || ev == FAULT_EV_HAMILTONIAN_HESS_SPARSE || ev == FAULT_EV_POISSON_JAC_SPARSE)
    return 1;
  if (m->form != NH_FORM_MECHANICAL) return !m->hamiltonian_hess || !m->poisson_jac;
  return !m->mass_deriv || !m->mass_deriv2 || (m->potential && !m->potential_hess) ||
         (m->nc > 0 && !m->constraint_deriv) || (m->force && !m->force_jac);
}

/* how far a retried step may be from the clean one: 0 (the same bits) for the explicit methods;
 * for a method that solves, the solver's tolerance: a failed step drops what the solver kept
 * from the last step (the difference factors of nh_newton's jac_kept, rdp's Jacobian, the
 * discrete gradients' predictor history), so the retry's iterates differ within it; gni's
 * continuation is the free-motion kernel and its retry (the carried vector kept, the
 * projector recomputed) the general step, the same map to round-off
 * (test_gni_fast_path_equals_general) */
#define RETRY_TOL_SOLVE 1e-11

/* the fault at each call (or SWEEP_MAX_TRIES spread over them) of step k, then of the dense
 * output after it, in mode `mode` */
static int sweep_step(const nh_model *w, fault *f, const nh_method *meth, nh_method_opts o, const clean_run *cr, int k,
                      fault_mode mode, int dense) {
  const int nx = w->nx;
  const long ncalls = dense ? cr->dcalls[k] : cr->calls[k];
  const long stride = ncalls > SWEEP_MAX_TRIES ? (ncalls + SWEEP_MAX_TRIES - 1) / SWEEP_MAX_TRIES : 1;
  const double tol = meth == &nh_method_gni || (meth->flags & NH_METHOD_IMPLICIT) ? RETRY_TOL_SOLVE : 0.0;
  for (long n = 1; n <= ncalls; n += stride) {
    tstep t;
    f->calls = 0, f->at = 0, f->hits = 0, f->persist = mode == FAULT_NAN, f->mode = mode;
    ENSURE(ts_init(&t, w, meth, o) == 0);
    ENSURE(run_steps(&t, f, w, k, (clean_run *)cr, 0) == 0);
    const double *x = cr->xs[k];
    double y[NXMAX], err = 0.0; /* (a method without an estimate sets 0) */
    if (dense) { /* the step itself clean, then the dense output with the fault */
      ENSURE(meth->step(&t.st, SWEEP_H * k, x, SWEEP_H, y, &err) == 0);
      ENSURE(same(nx, y, cr->xs[k + 1]));
    }
    const long at = f->calls + n;
    f->at = at;
    int rc = dense ? meth->dense(&t.st, SWEEP_H * k, x, SWEEP_H, cr->xs[k + 1], 0.5, y)
                   : meth->step(&t.st, SWEEP_H * k, x, SWEEP_H, y, &err);
    g_tries++;
    const int ev = at <= FAULT_LOG ? f->log[at - 1] : -1; /* (-1: past the log) */
    const int ok = f->hits >= 1 && (mode == FAULT_NEG   ? rc == NH_ERR_CALLBACK
                                    : mode == FAULT_POS ? rc > 0 || (rc == NH_ERR_CALLBACK && via_deriv(f->in, ev))
                                                        : rc != 0 || !ts_all_finite(nx, y) || err > 1.0);
    if (!ok) {
      printf("  %s %s on %s, step %d, call %ld of %ld (evaluator %d), mode %d: %s (%d), hits %ld, finite %d, err %g\n",
             meth->name, dense ? "dense" : "step", w->name, k, n, ncalls, ev, mode,
             nh_status_name(rc), rc, f->hits, ts_all_finite(nx, y), err);
      ts_free(&t);
      if (++g_fail > 40) return 1;
      break;
    }
    // the same again without the fault: the clean result (not after a NaN: an evaluator gives
    // the same NaN at the same point again, and a method may keep a slope it computed there)
    f->at = 0;
    if (mode == FAULT_NAN) {
      ts_free(&t);
      continue;
    }
    rc = dense ? meth->dense(&t.st, SWEEP_H * k, x, SWEEP_H, cr->xs[k + 1], 0.5, y)
               : meth->step(&t.st, SWEEP_H * k, x, SWEEP_H, y, &err);
    const double *want = dense ? cr->xd[k] : cr->xs[k + 1];
    if (rc != 0 || rel_dev(nx, y, want) > tol) {
      printf("  %s %s on %s, step %d: the retry after a fault at call %ld (evaluator %d, mode %d): %s, "
             "deviation %.3e\n",
             meth->name, dense ? "dense" : "step", w->name, k, n, ev, mode,
             nh_status_name(rc), rc ? 0.0 : rel_dev(nx, y, want));
      ts_free(&t);
      if (++g_fail > 40) return 1;
      break;
    }
    ts_free(&t);
  }
  return 0;
}

/* every fault in every call of the first and last step of a clean run, and of their dense
 * output; err = NULL as the driver's dense and partial steps may pass it */
static int sweep(const nh_model *inner, const nh_method *meth, nh_method_opts o) {
  if (nh_method_supports(meth, inner) != NH_OK) return 0;
  fault f;
  memset(&f, 0, sizeof f);
  char msg[256];
  nh_model *w = fault_wrap(inner, &f, msg, sizeof msg);
  if (!w) printf("  %s: %s\n", inner->name, msg);
  ENSURE(w);
  ENSURE(w->nx <= NXMAX);
  static clean_run cr;
  memset(&cr, 0, sizeof cr);
  tstep t;
  ENSURE(ts_init(&t, w, meth, o) == 0);
  int rc = run_steps(&t, &f, w, SWEEP_STEPS, &cr, 1);
  // a step without an error estimate asked for: the same state
  double y[NXMAX];
  if (!rc) rc = meth->step(&t.st, SWEEP_H * SWEEP_STEPS, cr.xs[SWEEP_STEPS], SWEEP_H, y, NULL);
  ts_free(&t);
  ENSURE(rc == 0);
  g_cases++;
  const int steps[2] = {0, SWEEP_STEPS - 1};
  for (int s = 0; s < 2; s++)
    for (int mode = FAULT_NEG; mode <= FAULT_NAN; mode++)
      if (mode != FAULT_ZERO)
        for (int dense = 0; dense <= 1; dense++) ENSURE(sweep_step(w, &f, meth, o, &cr, steps[s], (fault_mode)mode, dense) == 0);
  nh_model_destroy(w);
  return 0;
}

/* ---- the models ---------------------------------------------------------------------- */

/* q-dependent M (the kinds' sheared knife edge), a potential, a force, one nonholonomic
 * constraint; "richc": the same without the force (the conservative methods) */
static const char *const rich_text =
    "model rich\n"
    "coordinates th x y\n"
    "parameter k = 0.5\n"
    "kinetic 1/2*((1 + cos(th)^2)*th'^2 + 2*cos(th)*th'*x' + x'^2 + y'^2)\n"
    "potential 1/2*k*(x^2 + y^2) + 0.1*cos(th)\n"
    "constraint -sin(th)*(x' + cos(th)*th') + cos(th)*y' = 0\n"
    "%s"
    "initial th = 0, x = 0.2, y = 0.1, th' = 0.3, x' = 0.8\n";
/* a pendulum in Cartesian coordinates: a holonomic constraint, a potential (%s: a force) */
static const char *const pend_text = "model pend\n"
                                     "coordinates x y\n"
                                     "kinetic 1/2*(x'^2 + y'^2)\n"
                                     "potential 9.81*y\n"
                                     "holonomic rod: x^2 + y^2 = 1\n"
                                     "%s"
                                     "initial x = 0.6, y = -0.8, x' = 0.8, y' = 0.6\n";
/* a knife edge with its mass off the blade and a point mass on a rail along it (shape r):
 * SE(2)-invariant, M depending on theta and r */
static const char *const sled_text =
    "model sled\n"
    "coordinates th x y r\n"
    "let u = cos(th)*x' + sin(th)*y'\n"
    "let s = -sin(th)*x' + cos(th)*y'\n"
    "kinetic 1/2*(u^2 + (s + 0.2*th')^2) + 1/4*th'^2 + 0.15*((u + r')^2 + (s + r*th')^2)\n"
    "potential 1/2*r^2\n"
    "constraint -sin(th)*x' + cos(th)*y' = 0\n"
    "group se2 th x y\n"
    "initial r = 0.1, th' = 0.5, x' = 1, r' = 0.2\n";

/* every method on every kind's example and variant */
static int test_fault_kinds(void) {
  g_cases = g_tries = g_fail = 0;
  nh_method_opts o = nh_method_opts_default();
  for (int k = 0; k < NH_KIND_COUNT; k++)
    for (unsigned var = 0; var <= NH_KIND_FORCE; var++) {
      nh_model *m = nh_model_kind_example((nh_model_kind)k, var, NULL, NULL, 0);
      if (!m) continue; /* an ODE kind has no variants */
      for (int i = 0; i < nh_method_count(); i++) ENSURE(sweep(m, nh_method_at(i), o) == 0);
      nh_model_destroy(m);
    }
  printf("  %ld method-model pairs, %ld faults\n", g_cases, g_tries);
  ENSURE(g_fail == 0);
  ENSURE(g_cases >= 60);
  return 0;
}

/* every method on the model files above; del with the midpoint discrete Lagrangian, the
 * starts of gni, rattle and shake, rdp's retractions */
static int test_fault_models(void) {
  g_cases = g_tries = g_fail = 0;
  nh_model *ms[5] = {ts_parse(rich_text, "force th: -0.05*th' + 0.1*x\n"), ts_parse(rich_text, ""), ts_parse(pend_text, ""),
                     ts_parse(sled_text, ""), ts_parse(pend_text, "force x: -0.1*x'\n")};
  for (int j = 0; j < 5; j++) ENSURE(ms[j]);
  nh_method_opts o = nh_method_opts_default();
  for (int j = 0; j < 5; j++)
    for (int i = 0; i < nh_method_count(); i++) ENSURE(sweep(ms[j], nh_method_at(i), o) == 0);
  // the options' paths
  static const char *const vi[] = {"gni", "rattle", "shake", "del"};
  for (int st = NH_START_PAPER; st <= NH_START_MIDPOINT; st++)
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 4; i++) {
        nh_method_opts oo = o;
        oo.start = (nh_start)st, oo.midpoint_ld = st == NH_START_PAPER;
        ENSURE(sweep(ms[j], nh_method_find(vi[i]), oo) == 0);
      }
  for (int r = NH_RETRACTION_EXP; r <= NH_RETRACTION_CAY; r++)
    for (int dexp = 0; dexp <= (r == NH_RETRACTION_EXP ? 2 : 0); dexp++) {
      nh_method_opts oo = o;
      oo.retraction = (nh_retraction)r, oo.dexp_order = dexp;
      ENSURE(sweep(ms[3], &nh_method_rdp, oo) == 0);
    }
  printf("  %ld method-model pairs, %ld faults\n", g_cases, g_tries);
  ENSURE(g_fail == 0);
  for (int j = 0; j < 5; j++) nh_model_destroy(ms[j]);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_fault_kinds);
  RUN_TEST(test_fault_models);
  return TEST_SUMMARY();
}
