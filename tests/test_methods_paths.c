/* test_methods_paths.c - the paths of src/methods that guard a run, one by one: the table's
 * accessors and refusals with their messages, the automatic first step, the D* form's
 * arguments, the adaptive methods' error estimate of a non-finite state, dense output after
 * the caller changed the step's end, Newton's failures (no convergence, a singular matrix)
 * with their messages, a mass matrix or constraint rows that lose rank, the variational
 * methods' carried state (moved, set_carried, a work block reused for another model). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_model.h"
#include "harness.h"
#include "tstep.h"

/* ---- the table ------------------------------------------------------------------------ */

/* accessors of no method answer empty; lookups of nothing find nothing */
static int test_table_null(void) {
  ENSURE(nh_method_find(NULL) == NULL && nh_method_find("nope") == NULL);
  ENSURE(nh_method_at(-1) == NULL && nh_method_at(nh_method_count()) == NULL);
  ENSURE(strcmp(nh_method_name(NULL), "") == 0 && strcmp(nh_method_summary(NULL), "") == 0);
  ENSURE(strcmp(nh_method_preserves(NULL), "") == 0);
  ENSURE(nh_method_order(NULL) == 0 && nh_method_flags(NULL) == 0u);
  nh_model *m = nh_model_kind_example(NH_KIND_LAGRANGIAN, 0, NULL, NULL, 0);
  ENSURE(m);
  ENSURE(nh_method_supports(NULL, m) == NH_ERR_ARG && nh_method_supports(&nh_method_rk4, NULL) == NH_ERR_ARG);
  char msg[512];
  ENSURE(nh_method_check(NULL, m, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(strstr(msg, "cannot test whether it runs the model (NH_ERR_ARG)"));
  ENSURE(nh_method_default_for(NULL) == &nh_method_dopri5 && nh_method_default_for(m) == &nh_method_dopri5);
  nh_model_destroy(m);
  // retraction names, both ways, and out of range
  for (int r = 0; r < 3; r++) ENSURE(nh_retraction_find(nh_retraction_name((nh_retraction)r)) == r);
  ENSURE(strcmp(nh_retraction_name((nh_retraction)-1), "") == 0 && strcmp(nh_retraction_name((nh_retraction)3), "") == 0);
  ENSURE(nh_retraction_find(NULL) == -1 && nh_retraction_find("exp2") == -1);
  return 0;
}

/* a refusal names what the method needs and lists the methods that can run the model; a
 * mechanical method on a first-order model says so; a discrete gradient on an ODE model
 * without a Poisson structure keeps its own need (an almost-Poisson model) */
static int test_check_messages(void) {
  char msg[1024];
  nh_model *ode = nh_model_kind_example(NH_KIND_ODE, 0, NULL, NULL, 0);
  ENSURE(ode);
  ENSURE(nh_method_check(&nh_method_gni, ode, msg, sizeof msg) == NH_ERR_UNSUPPORTED);
  ENSURE(strstr(msg, "method 'gni' cannot run model 'ode': it needs a mechanical model (coordinates and a kinetic "
                     "energy), not a first-order one; methods that can: rk4, dopri5, dop853, rk2"));
  ENSURE(nh_method_check(&nh_method_avf, ode, msg, sizeof msg) == NH_ERR_UNSUPPORTED);
  ENSURE(strstr(msg, "the discrete gradients need an almost-Poisson model") && !strstr(msg, "not a first-order one"));
  ENSURE(nh_method_check(&nh_method_rkmk4, ode, msg, sizeof msg) == NH_ERR_UNSUPPORTED);
  ENSURE(strstr(msg, "it needs a first-order model with a rotation part"));
  ENSURE(nh_method_check(&nh_method_exact, ode, msg, sizeof msg) == NH_ERR_UNSUPPORTED);
  ENSURE(strstr(msg, "closed-form flow"));
  ENSURE(nh_method_check(&nh_method_rk4, ode, msg, sizeof msg) == NH_OK && msg[0] == '\0');
  nh_model_destroy(ode);
  return 0;
}

/* the kinds: names and titles out of range are empty; examples refuse impossible variants
 * with a reason; kind_support refuses no method or no kind */
static int test_kinds_edges(void) {
  char msg[256];
  ENSURE(strcmp(nh_model_kind_name((nh_model_kind)-1), "") == 0);
  ENSURE(strcmp(nh_model_kind_name(NH_KIND_COUNT), "") == 0 && strcmp(nh_model_kind_title(NH_KIND_COUNT), "") == 0);
  ENSURE(strcmp(nh_model_kind_title((nh_model_kind)-1), "") == 0);
  const unsigned bad[3] = {NH_KIND_FLOW | NH_KIND_FORCE, 4u, 0u};
  for (int i = 0; i < 3; i++) {
    nh_model_kind k = i == 2 ? NH_KIND_POISSON : NH_KIND_LAGRANGIAN;
    unsigned var = i == 2 ? NH_KIND_FORCE : bad[i];
    msg[0] = '\0';
    ENSURE(nh_model_kind_example(k, var, NULL, msg, sizeof msg) == NULL);
    ENSURE(strstr(msg, "no example of model kind") && strstr(msg, "(a flow or a force, of a mechanical kind)"));
  }
  ENSURE(nh_model_kind_example(NH_KIND_COUNT, 0, NULL, msg, sizeof msg) == NULL);
  ENSURE(nh_model_kind_example((nh_model_kind)-1, 0, NULL, msg, sizeof msg) == NULL);
  ENSURE(nh_method_kind_support(NULL, NH_KIND_ODE, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(strstr(msg, "no method, or no model kind 6"));
  ENSURE(nh_method_kind_support(&nh_method_rk4, NH_KIND_COUNT, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(nh_method_kind_support(&nh_method_rk4, (nh_model_kind)-1, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(nh_model_kind_has_gaps(NH_KIND_COUNT) == 0 && nh_model_kind_has_gaps(NH_KIND_SE2) == 1);
  // the knife edges' constraint evaluated for Adot v alone (A NULL), as the dynamics may
  for (int k = NH_KIND_CONSTRAINED; k <= NH_KIND_SE2; k++) {
    nh_model *m = nh_model_kind_example((nh_model_kind)k, 0, NULL, NULL, 0);
    ENSURE(m);
    double q[3] = {0.3, 0.1, -0.2}, v[3] = {0.7, 0.2, 0.5}, A[3], adv1, adv2;
    ENSURE(m->constraint(q, v, A, &adv1, m->user) == 0 && m->constraint(q, v, NULL, &adv2, m->user) == 0);
    ENSURE(adv1 == adv2 && isfinite(adv1));
    nh_model_destroy(m);
  }
  return 0;
}

/* ---- the automatic first step (nh_initial_step) -------------------------------------- */

/* the fallback probe step of nh_initial_step (NH_HINIT_FALLBACK), which the step exceeds by at
 * most its growth factor 100 */
#define HINIT_FALLBACK 1e-6

/* its callback failures are returned; h_max bounds it; a state and slope below
 * NH_HINIT_SMALL take the fallback 1e-6; a non-finite slope is NH_ERR_NONFINITE */
static int test_initial_step(void) {
  nh_model *ode = nh_model_kind_example(NH_KIND_ODE, 0, NULL, NULL, 0);
  ENSURE(ode);
  fault f;
  memset(&f, 0, sizeof f);
  nh_model *m = fault_wrap(ode, &f, NULL, 0);
  ENSURE(m);
  double *dw = calloc(nh_dyn_work_size(m) + 1, sizeof(double)), work[6], h = 0.0;
  ENSURE(dw);
  nh_dyn d;
  nh_dyn_init(&d, m, dw);
  long evals = 0;
  const double x[2] = {1.0, 0.0}, tiny[2] = {1e-20, 0.0};
  ENSURE(nh_initial_step(&d, 2, 5, 0.0, x, 1e-6, 1e-9, 0.0, work, &h, &evals) == 0 && evals == 2);
  ENSURE(h > 0.0 && isfinite(h));
  const double h_free = h;
  // bounded by h_max: at h_max exactly
  ENSURE(nh_initial_step(&d, 2, 5, 0.0, x, 1e-6, 1e-9, 0.25 * h_free, work, &h, &evals) == 0);
  ENSURE(h == 0.25 * h_free);
  // a state (and slope) at rest below the scale: the fallback 1e-6 probe, h >= 1e-6
  ENSURE(nh_initial_step(&d, 2, 5, 0.0, tiny, 1e-6, 1.0, 0.0, work, &h, &evals) == 0);
  ENSURE(h >= HINIT_FALLBACK && h <= 100.0 * HINIT_FALLBACK);
  // an h_max below the fallback bounds the probe itself
  ENSURE(nh_initial_step(&d, 2, 5, 0.0, tiny, 1e-6, 1.0, 1e-8, work, &h, &evals) == 0 && h == 1e-8);
  // the first and the second evaluation failing
  for (long n = 1; n <= 2; n++) {
    f.at = f.calls + n, f.mode = FAULT_NEG;
    ENSURE(nh_initial_step(&d, 2, 5, 0.0, x, 1e-6, 1e-9, 0.0, work, &h, &evals) == NH_ERR_CALLBACK);
  }
  // a slope of zero at a state of scale 1: the fallback probe 1e-6
  f.at = f.calls + 1, f.mode = FAULT_ZERO;
  ENSURE(nh_initial_step(&d, 2, 5, 0.0, x, 1e-6, 1e-9, 0.0, work, &h, &evals) == 0);
  ENSURE(h >= HINIT_FALLBACK && h <= 100.0 * HINIT_FALLBACK);
  // a NaN slope at the state: no finite step
  f.at = f.calls + 1, f.mode = FAULT_NAN, f.persist = 1;
  ENSURE(nh_initial_step(&d, 2, 5, 0.0, x, 1e-6, 1e-9, 0.0, work, &h, &evals) == NH_ERR_NONFINITE);
  f.at = 0, f.persist = 0;
  free(dw);
  nh_model_destroy(m);
  nh_model_destroy(ode);
  return 0;
}

/* ---- the D* form's arguments and refusals -------------------------------------------- */

static const char *const dstar_sin_text = "model flat\n"
                                          "coordinates th x y\n"
                                          "kinetic 1/2*(th'^2 + x'^2 + y'^2)\n"
                                          "constraint sin(th)*x' + y' = 0\n"
                                          "initial th = 0, x' = 1\n";
/* M = I; the constraint row (0, sin theta, 0) vanishes at theta = 0 (a model file refuses
 * such a start; a hand-written model need not) */
static int zr_mass(const double *q, double *M, void *u) {
  (void)q, (void)u;
  for (int i = 0; i < 9; i++) M[i] = i % 4 == 0 ? 1.0 : 0.0;
  return 0;
}
static int zr_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  (void)u;
  if (A) A[0] = 0.0, A[1] = sin(q[0]), A[2] = 0.0;
  if (Adv) Adv[0] = cos(q[0]) * v[0] * v[1];
  return 0;
}
static nh_model *zero_row_create(void) {
  static const char *const names[] = {"th", "x", "y"};
  nh_model_def d = nh_model_def_default();
  d.name = "zero-row", d.nq = 3, d.nc = 1, d.coord_names = names, d.mass = zr_mass, d.constraint = zr_constraint;
  return nh_model_create(&d, NULL, 0);
}

/* (q, v) -> (q, rho) -> v: a QR frame and a solve with X^T M X, at round-off */
#define DSTAR_ROUND_TRIP_TOL 1e-14

static int test_dstar_arguments(void) {
  char msg[256];
  ENSURE(nh_model_dstar_create(NULL, msg, sizeof msg) == NULL);
  ENSURE(strstr(msg, "the D* form needs a mechanical model without forces and with fewer constraints than coordinates"));
  nh_model *ode = nh_model_kind_example(NH_KIND_ODE, 0, NULL, NULL, 0);
  nh_model *forced = nh_model_kind_example(NH_KIND_CONSTRAINED, NH_KIND_FORCE, NULL, NULL, 0);
  ENSURE(ode && forced);
  ENSURE(nh_model_dstar_create(ode, msg, sizeof msg) == NULL && strstr(msg, "the D* form needs"));
  ENSURE(nh_model_dstar_create(forced, msg, sizeof msg) == NULL && strstr(msg, "the D* form needs"));
  // a constraint row that vanishes at q0: the rows are dependent there, no frame
  nh_model *zero = zero_row_create();
  ENSURE(zero);
  ENSURE(nh_model_dstar_create(zero, msg, sizeof msg) == NULL);
  ENSURE(strstr(msg, "the D* form: no QR frame of the constraints at q0 (NH_ERR_CONSTRAINT_RANK)"));
  // the maps refuse what is not a D* model and missing arrays; q is optional back
  nh_model *lag = ts_parse(dstar_sin_text, NULL);
  ENSURE(lag);
  nh_model *ds = nh_model_dstar_create(lag, msg, sizeof msg);
  ENSURE(ds && ds->nx == 5);
  double q[3] = {0.2, 0.1, -0.3}, v[3] = {0.4, 1.0, -sin(0.2) * 1.0}, x[5], v2[3], q2[3];
  ENSURE(nh_model_dstar_from_qv(NULL, q, v, x) == NH_ERR_ARG && nh_model_dstar_from_qv(lag, q, v, x) == NH_ERR_ARG);
  ENSURE(nh_model_dstar_from_qv(ds, NULL, v, x) == NH_ERR_ARG && nh_model_dstar_from_qv(ds, q, NULL, x) == NH_ERR_ARG);
  ENSURE(nh_model_dstar_from_qv(ds, q, v, NULL) == NH_ERR_ARG);
  ENSURE(nh_model_dstar_to_qv(NULL, x, q2, v2) == NH_ERR_ARG && nh_model_dstar_to_qv(ds, NULL, q2, v2) == NH_ERR_ARG);
  ENSURE(nh_model_dstar_to_qv(ds, x, q2, NULL) == NH_ERR_ARG);
  ENSURE(nh_model_dstar_from_qv(ds, q, v, x) == NH_OK);
  // (q, v) -> x -> v without q: v back to round-off (v is in ker A(q))
  ENSURE(nh_model_dstar_to_qv(ds, x, NULL, v2) == NH_OK);
  for (int i = 0; i < 3; i++) ENSURE_NEAR(v2[i], v[i], DSTAR_ROUND_TRIP_TOL);
  nh_model_destroy(ds);
  // the maps' evaluations failing (the frame's rows, M, the metric): their status
  fault f;
  memset(&f, 0, sizeof f);
  nh_model *wl = fault_wrap(lag, &f, NULL, 0);
  ENSURE(wl);
  ds = nh_model_dstar_create(wl, msg, sizeof msg);
  ENSURE(ds);
  for (int dir = 0; dir < 2; dir++)
    for (long n = 1; n <= 2; n++) {
      f.calls = 0, f.at = n, f.mode = FAULT_NEG, f.hits = 0;
      const int rc = dir ? nh_model_dstar_to_qv(ds, x, q2, v2) : nh_model_dstar_from_qv(ds, q, v, x);
      ENSURE(rc == NH_ERR_CALLBACK && f.hits == 1);
    }
  f.at = 0;
  ENSURE(nh_model_dstar_from_qv(ds, q, v, x) == NH_OK);
  nh_model_destroy(ds);
  nh_model_destroy(wl);
  // no workspace for a D* form it refuses
  ENSURE(nh_method_avf.work_size(forced) == 0 && nh_method_avf.work_size(lag) > 0);
  nh_model_destroy(lag);
  nh_model_destroy(zero);
  nh_model_destroy(forced);
  nh_model_destroy(ode);
  return 0;
}

/* ---- the adaptive methods' estimate of a non-finite state ---------------------------- */

/* a state with a NaN: the error estimate is +inf (rejected), never 0 or NaN (which the
 * driver's test err <= 1 accepts, dop853's norm took 0 for a NaN denominator) */
static int test_adaptive_nan_estimate(void) {
  nh_model *m = nh_model_kind_example(NH_KIND_ODE, 0, NULL, NULL, 0);
  ENSURE(m);
  const nh_method *ad[2] = {&nh_method_dopri5, &nh_method_dop853};
  for (int i = 0; i < 2; i++) {
    tstep t;
    ENSURE(ts_init(&t, m, ad[i], nh_method_opts_default()) == 0);
    double x0[2] = {NAN, 0.5}, x1[2], err = 0.0;
    ENSURE(ad[i]->step(&t.st, 0.0, x0, 0.1, x1, &err) == 0);
    ENSURE(isinf(err) && err > 1.0 && !ts_all_finite(2, x1));
    // the same for a state that is finite but for its second component
    double x2[2] = {1.0, NAN};
    ENSURE(ad[i]->step(&t.st, 0.0, x2, 0.1, x1, &err) == 0 && isinf(err));
    // a finite step: a finite estimate
    double x3[2] = {1.0, 0.0};
    ENSURE(ad[i]->step(&t.st, 0.0, x3, 0.1, x1, &err) == 0 && isfinite(err) && err >= 0.0);
    ts_free(&t);
  }
  nh_model_destroy(m);
  return 0;
}

/* the dense output at the middle of a step of 0.2 against cos (order 7, rtol 1e-10); at its
 * end against the end state (the interpolant's value there, to rounding) */
#define DENSE_TOL 1e-10
#define DENSE_END_TOL 1e-15

/* dop853's dense output is prepared once per step and again when the caller hands another
 * end state (the interpolant then ends there); theta = 0 and 1 give the ends */
static int test_dop853_dense_end_changed(void) {
  nh_model *m = nh_model_kind_example(NH_KIND_ODE, 0, NULL, NULL, 0);
  ENSURE(m);
  tstep t;
  ENSURE(ts_init(&t, m, &nh_method_dop853, nh_method_opts_default()) == 0);
  double x0[2] = {1.0, 0.0}, x1[2], err, xa[2], xb[2], xc[2];
  const double h = 0.2;
  ENSURE(nh_method_dop853.step(&t.st, 0.0, x0, h, x1, &err) == 0);
  ENSURE(nh_method_dop853.dense(&t.st, 0.0, x0, h, x1, 0.5, xa) == 0);
  ENSURE_NEAR(xa[0], cos(0.1), DENSE_TOL);
  ENSURE(nh_method_dop853.dense(&t.st, 0.0, x0, h, x1, 1.0, xb) == 0 && xb[0] == x1[0] && xb[1] == x1[1]);
  const long ev = t.st.evals;
  ENSURE(nh_method_dop853.dense(&t.st, 0.0, x0, h, x1, 0.25, xb) == 0 && t.st.evals == ev); /* prepared: no evals */
  // another end: the interpolant is prepared again and ends at it
  double y1[2] = {x1[0] + 1e-3, x1[1]};
  ENSURE(nh_method_dop853.dense(&t.st, 0.0, x0, h, y1, 1.0, xc) == 0 && t.st.evals > ev);
  ENSURE_NEAR(xc[0], y1[0], DENSE_END_TOL);
  ENSURE(nh_method_dop853.dense(&t.st, 0.0, x0, h, y1, 0.0, xc) == 0 && xc[0] == x0[0] && xc[1] == x0[1]);
  ts_free(&t);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_table_null);
  RUN_TEST(test_check_messages);
  RUN_TEST(test_kinds_edges);
  RUN_TEST(test_initial_step);
  RUN_TEST(test_dstar_arguments);
  RUN_TEST(test_adaptive_nan_estimate);
  RUN_TEST(test_dop853_dense_end_changed);
  return TEST_SUMMARY();
}
