/* test_sim_api.c - the simulation's interface refusing what it cannot run (src/sim/sim.c,
 * phases.c, the accessors of the logs): every field of nh_sim_def out of its range is refused
 * by nh_sim_create with a message naming it; a state the model cannot evaluate is refused by
 * nh_sim_set_state_x (and by creation) with the evaluator named; the accessors answer NULL and
 * out-of-range queries; the event log keeps its first log_limit - 1 records and the latest;
 * run_breaks and chains refuse a bad shape or a bad reset map; the bounds of a run
 * (nh_sim_check_span) at their edges. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_models.h"
#include "harness.h"
#include "nholo/nholo.h"
#include "sim/sim_impl.h" /* nh_sim_replace_x */

#define G 9.81

/* ---- the bounds of a run (nh_sim_check_span, nh_sim_check_run) ---------------------------- */

/* NH_MAX_STEPS and NH_MAX_SAMPLES at their edges: a count a part in RUN_EDGE inside passes,
 * as far outside is refused with a message naming the bound; t_end not finite or before the
 * start is refused; an adaptive method's steps are not bounded, a positive max_steps bounds a
 * fixed-step run; samples only count for an observed run. */
#define RUN_EDGE 1e-3
static int span_ok(const nh_method *me, const nh_sim_def *d, double t0, double t1, int obs, const char *what) {
  char msg[512] = "";
  const int rc = nh_sim_check_span(me, d, t0, t1, obs, msg, sizeof msg);
  if (what ? rc != NH_ERR_ARG || !strstr(msg, what) : rc != NH_OK || msg[0])
    printf("  span %g..%g: rc %d \"%s\" (expected %s)\n", t0, t1, rc, msg, what ? what : "NH_OK");
  return what ? rc == NH_ERR_ARG && strstr(msg, what) : rc == NH_OK && !msg[0];
}

static int test_run_bounds(void) {
  const nh_method *rk4 = nh_method_find("rk4"), *dp = nh_method_find("dopri5");
  nh_sim_def d = nh_sim_def_default();
  const double T = 3.0;
  d.h = T / NH_MAX_STEPS * (1 + RUN_EDGE);
  ENSURE(span_ok(rk4, &d, 1.0, 1.0 + T, 0, NULL));
  d.h = T / NH_MAX_STEPS * (1 - RUN_EDGE);
  ENSURE(span_ok(rk4, &d, 1.0, 1.0 + T, 0, "(NH_MAX_STEPS)") && span_ok(dp, &d, 0.0, T, 0, NULL));
  ENSURE(span_ok(NULL, &d, 0.0, T, 0, NULL)); /* the method not known: no step bound */
  d.max_steps = 1000;
  ENSURE(span_ok(rk4, &d, 0.0, T, 0, NULL) && span_ok(rk4, &d, 0.0, T, 1, NULL)); /* 1000 steps, a sample each */
  d.max_steps = 0, d.h = 1e-3;
  ENSURE(span_ok(rk4, &d, 0.0, INFINITY, 0, "t_end = inf must be finite") && span_ok(rk4, &d, 0.0, NAN, 0, "t_end = nan"));
  ENSURE(span_ok(rk4, &d, 2.0, 1.0, 0, "is before the start of the run"));
  // samples: out_dt, or a fixed step's steps with out_dt 0, only when observed
  d.out_dt = T / NH_MAX_SAMPLES * (1 - RUN_EDGE);
  ENSURE(span_ok(dp, &d, 0.0, T, 1, "(NH_MAX_SAMPLES)") && span_ok(dp, &d, 0.0, T, 0, NULL));
  d.out_dt = T / NH_MAX_SAMPLES * (1 + RUN_EDGE);
  ENSURE(span_ok(dp, &d, 0.0, T, 1, NULL));
  d.out_dt = 0.0, d.h = T / NH_MAX_SAMPLES * (1 - RUN_EDGE);
  ENSURE(span_ok(rk4, &d, 0.0, T, 1, "a sample each") && span_ok(dp, &d, 0.0, T, 1, NULL));
  ENSURE(nh_sim_check_span(rk4, NULL, 0.0, 1.0, 0, NULL, 0) == NH_ERR_ARG);
  // a simulation's next run: from its time, with its method and step
  fault f = {.g = G, .wall = 2.0};
  nh_model *m = fault_ball(&f, 0.8, 0, 0, 0);
  nh_sim_def r = nh_sim_def_default();
  r.method = rk4, r.h = 1e-300;
  nh_sim *s = m ? nh_sim_create(m, &r, NULL, 0) : NULL;
  char msg[512];
  ENSURE(s && nh_sim_check_run(s, 1.0, 0, msg, sizeof msg) == NH_ERR_ARG && strstr(msg, "h = 1e-300"));
  ENSURE(nh_sim_check_run(s, 0.0, 0, msg, sizeof msg) == NH_OK && nh_sim_check_run(NULL, 1.0, 0, NULL, 0) == NH_ERR_ARG);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* ---- nh_sim_def ---------------------------------------------------------------------------- */

static int refused(const nh_model *m, const nh_sim_def *d, const char *what) {
  char msg[256] = "";
  nh_sim *s = nh_sim_create(m, d, msg, sizeof msg);
  if (s || !strstr(msg, what)) printf("  expected a refusal naming \"%s\", got %s \"%s\"\n", what, s ? "a sim" : "", msg);
  nh_sim_destroy(s);
  return !s && strstr(msg, what);
}

/* Every field out of its range, one at a time, is refused with a message naming it (and no
 * simulation); the defaults are accepted. */
static int test_def_refused(void) {
  fault f = {.g = G, .wall = 2.0};
  nh_model *m = fault_ball(&f, 0.8, 0, 0, 0);
  ENSURE(m);
  char msg[256];
  ENSURE(!nh_sim_create(NULL, NULL, msg, sizeof msg) && !strcmp(msg, "no model given"));
  nh_sim *s = nh_sim_create(m, NULL, msg, sizeof msg); /* NULL: the defaults */
  ENSURE(s && !msg[0] && nh_sim_method(s) == nh_method_find("dopri5"));
  nh_sim_destroy(s);
  nh_sim_def d0 = nh_sim_def_default(), d;
  d = d0, d.internal_cookie = 0;
  ENSURE(refused(m, &d, "not initialised with nh_sim_def_default()"));
  d = d0, d.method = nh_method_find("exact"); /* the model has no flow */
  ENSURE(refused(m, &d, "exact"));
#define REFUSE(field, value, what)                                                                       \
  do {                                                                                                   \
    d = d0, d.field = value;                                                                             \
    ENSURE(refused(m, &d, what));                                                                        \
  } while (0)
  REFUSE(h, -1.0, "step size h = -1");
  REFUSE(h, INFINITY, "step size h = inf");
  d = d0, d.method = nh_method_find("rk4"), d.h = 0.0;
  ENSURE(refused(m, &d, "0, automatic, only for an adaptive method"));
  REFUSE(h_max, -1.0, "h_max = -1");
  REFUSE(h_max, INFINITY, "h_max = inf");
  REFUSE(h_min, 0.0, "h_min = 0");
  REFUSE(h_min, INFINITY, "h_min = inf");
  REFUSE(rtol, 0.0, "tolerances rtol = 0");
  REFUSE(atol, NAN, "atol = nan");
  REFUSE(rtol, INFINITY, "rtol = inf");
  REFUSE(atol, INFINITY, "atol = inf");
  REFUSE(out_dt, -1.0, "output interval -1");
  REFUSE(out_dt, INFINITY, "output interval inf");
  REFUSE(event_samples, -1, "event_samples = -1");
  REFUSE(event_samples, 1001, "event_samples = 1001");
  REFUSE(event_tol, 0.0, "event_tol must be positive");
  REFUSE(vn_tol, -1.0, "vn_tol >= 0");
  REFUSE(zeno_interval, -1.0, "zeno_interval must be >= 0");
  REFUSE(zeno_count, 0, "zeno_count >= 1");
  REFUSE(contact, 2, "contact = 2 must be 0 or 1");
  REFUSE(constraint_tol, -1.0, "constraint_tol must be >= 0");
  REFUSE(log_limit, -1, "log_limit = -1");
  REFUSE(opts.retraction, (nh_retraction)3, "method options out of range");
  REFUSE(opts.retraction, (nh_retraction)-1, "method options out of range");
  REFUSE(opts.start, (nh_start)3, "method options out of range");
  REFUSE(opts.start, (nh_start)-1, "method options out of range");
  REFUSE(opts.alpha, 1.5, "method options out of range");
  REFUSE(opts.alpha, -0.5, "method options out of range");
  REFUSE(opts.newton_tol, 0.0, "method options out of range");
  REFUSE(opts.newton_max_iter, 0, "method options out of range");
  REFUSE(opts.dexp_order, 3, "method options out of range");
  REFUSE(opts.dexp_order, -1, "method options out of range");
  REFUSE(impact_step, 3, "impact_step 3 is not a mode");
  REFUSE(impact_step, -1, "impact_step -1 is not a mode");
  REFUSE(impact_step, NH_IMPACT_STEP_VARIATIONAL, "the variational impact step is del's");
  REFUSE(simul_order, 4, "simul_order 4 is not a policy");
  REFUSE(simul_order, -1, "simul_order -1 is not a policy");
  REFUSE(simul_max_outcomes, 0, "simul_max_outcomes = 0 must be in [1, 1000000]");
  REFUSE(simul_max_outcomes, 1000001, "simul_max_outcomes = 1000001");
#undef REFUSE
  // the resolved impact stepping: restart for dopri5, variational for del (AUTO)
  d = d0;
  ENSURE((s = nh_sim_create(m, &d, NULL, 0)) && nh_sim_impact_step(s) == NH_IMPACT_STEP_RESTART);
  nh_sim_destroy(s);
  d = d0, d.method = nh_method_find("del");
  ENSURE((s = nh_sim_create(m, &d, NULL, 0)) && nh_sim_impact_step(s) == NH_IMPACT_STEP_VARIATIONAL);
  nh_sim_destroy(s);
  ENSURE(nh_sim_impact_step(NULL) == NH_IMPACT_STEP_AUTO);
  nh_model_destroy(m);
  return 0;
}

/* ---- states the model cannot evaluate ----------------------------------------------------- */

/* a particle in the plane with the constraint x' = y' (A = [1, -1]), or with A = 0 (a row of
 * no rank: its projection is singular); a fault on the constraint evaluator through the mass's
 * counter FE_PRED (not otherwise used by this model) */
static int cp_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  (void)q, (void)v;
  fault *f = u;
  int rc = fault_rc(f, FE_PRED);
  if (rc) return rc;
  if (A) A[0] = f->wall == 0.0 ? 0.0 : 1.0, A[1] = f->wall == 0.0 ? 0.0 : -1.0;
  if (Adv) Adv[0] = 0.0;
  return 0;
}
static nh_model *constrained(fault *f, double vy) {
  double q0[2] = {0, 1}, v0[2] = {1, vy};
  nh_model_def d = nh_model_def_default();
  d.name = "constrained", d.nq = 2, d.nc = 1, d.ngap = 2, d.coord_names = fb_coords, d.gap_names = fb_gaps;
  d.q0 = q0, d.v0 = v0, d.mass = fb_mass, d.potential = fb_pot, d.constraint = cp_constraint, d.gap = fb_gap;
  d.user = f;
  return nh_model_create(&d, NULL, 0);
}

/* run to 0.3 s, then to 1 s (the reference of a run interrupted by refused states) */
static int run_split(nh_sim *s, double *x03) {
  if (nh_sim_run(s, 0.3, 0, NULL, NULL) != NH_OK) return 1;
  if (x03) memcpy(x03, nh_sim_x(s), 4 * sizeof(double));
  return nh_sim_run(s, 1.0, 0, NULL, NULL) != NH_OK;
}

/* a particle in space with two copies of the row [1, -1, 0] (dependent rows) */
static int md2_mass(const double *q, double *M, void *u) {
  (void)q, (void)u;
  for (int i = 0; i < 9; i++) M[i] = i % 4 == 0;
  return 0;
}
static int cp2_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  (void)q, (void)v, (void)u;
  for (int r = 0; r < 2; r++) {
    if (A) A[3 * r] = 1.0, A[3 * r + 1] = -1.0, A[3 * r + 2] = 0.0;
    if (Adv) Adv[r] = 0.0;
  }
  return 0;
}
static nh_model *constrained2(void) {
  static const char *const names[] = {"x", "y", "z"};
  double q0[3] = {0, 1, 0}, v0[3] = {1, 1, 0};
  nh_model_def d = nh_model_def_default();
  d.name = "constrained2", d.nq = 3, d.nc = 2, d.coord_names = names, d.q0 = q0, d.v0 = v0;
  d.mass = md2_mass, d.constraint = cp2_constraint;
  return nh_model_create(&d, NULL, 0);
}

/* The initial state: each evaluator failing there (negative or positive) is refused by
 * nh_sim_set_state_x (NH_ERR_CALLBACK) naming it, and so are a missing or infinite state
 * (NH_ERR_NONFINITE), a state outside the floor (NH_ERR_ARG) and a velocity off the
 * constraints (NH_ERR_CONSTRAINT; projected with project_initial, NH_PROJECTED). A refused
 * state is not taken: the simulation keeps its time, state, statistics and logs, and goes on
 * as if nothing had been asked (bit for bit the run without the refusals). Creation refuses
 * the same with the same message. */
static int test_state_refused(void) {
  fault f = {.g = G, .wall = 2.0};
  nh_model *m = fault_ball(&f, 0.8, 1, 0, 0);
  nh_sim *ref = nh_sim_create(m, NULL, NULL, 0), *s = nh_sim_create(m, NULL, NULL, 0);
  double xref[4], x03[4];
  ENSURE(m && ref && s && run_split(ref, xref) == 0);
  memcpy(xref, nh_sim_x(ref), sizeof xref);
  ENSURE(nh_sim_run(s, 0.3, 0, NULL, NULL) == NH_OK);
  memcpy(x03, nh_sim_x(s), sizeof x03);
  const long steps = nh_sim_get_stats(s)->steps, nimp = nh_sim_impact_count(s), nev = nh_sim_event_count(s);
  const double x[4] = {0.5, 0.7, 1, 0}, xout[4] = {0.5, -0.1, 1, 0}, xinf[4] = {0, INFINITY, 0, 0};
  static const struct {
    int ev;
    const char *msg;
  } cases[] = {{FE_GAP, "gap evaluator failed at the initial state"},
               {FE_MON, "monitor evaluator failed at the initial state"},
               {FE_MASS, "energy evaluation failed at the initial state"},
               {FE_POT, "energy evaluation failed at the initial state"}};
#define UNCHANGED()                                                                                     \
  ENSURE(nh_sim_time(s) == 0.3 && !memcmp(nh_sim_x(s), x03, sizeof x03) &&                              \
         nh_sim_get_stats(s)->steps == steps && nh_sim_impact_count(s) == nimp && nh_sim_event_count(s) == nev)
  for (int k = 0; k < 4; k++)
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      f.fail_rc = sgn, f.fail_at[cases[k].ev] = f.calls[cases[k].ev] + 1;
      const int rc = nh_sim_set_state_x(s, 1.0, x);
      f.fail_at[cases[k].ev] = 0;
      ENSURE(rc == NH_ERR_CALLBACK && !strcmp(nh_sim_message(s), cases[k].msg));
      UNCHANGED();
      // creation: the same refusal
      char msg[256];
      f.fail_at[cases[k].ev] = f.calls[cases[k].ev] + 1;
      ENSURE(!nh_sim_create(m, NULL, msg, sizeof msg) && !strcmp(msg, cases[k].msg));
      f.fail_at[cases[k].ev] = 0;
    }
  ENSURE(nh_sim_set_state_x(s, 0.0, NULL) == NH_ERR_NONFINITE && nh_sim_set_state_x(s, NAN, x) == NH_ERR_NONFINITE);
  ENSURE(nh_sim_set_state_x(s, 0.0, xinf) == NH_ERR_NONFINITE);
  ENSURE(nh_sim_set_state(s, 0.0, x, NULL) == NH_ERR_NONFINITE && nh_sim_set_state(s, 0.0, NULL, x) == NH_ERR_NONFINITE);
  ENSURE(!strcmp(nh_sim_message(s), "initial state is missing or not finite"));
  ENSURE(nh_sim_set_state_x(s, 0.0, xout) == NH_ERR_ARG && strstr(nh_sim_message(s), "gap 'floor' = -0.1 < 0"));
  ENSURE(nh_sim_set_state(NULL, 0.0, x, x) == NH_ERR_ARG && nh_sim_set_state_x(NULL, 0.0, x) == NH_ERR_ARG);
  UNCHANGED();
#undef UNCHANGED
  // and on: the run without the refusals, bit for bit
  ENSURE(nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_OK && !memcmp(nh_sim_x(s), xref, sizeof xref));
  ENSURE(nh_sim_impact_count(s) == nh_sim_impact_count(ref) && nh_sim_event_count(s) == nh_sim_event_count(ref));
  // a state taken: its own time and state, the logs restarted
  ENSURE(nh_sim_set_state_x(s, 0.0, x) == NH_OK && nh_sim_time(s) == 0.0 && !memcmp(nh_sim_x(s), x, sizeof x));
  ENSURE(nh_sim_impact_count(s) == 0 && nh_sim_event_count(s) == 0 && nh_sim_get_stats(s)->steps == 0);
  nh_sim_destroy(ref);
  nh_sim_destroy(s);
  nh_model_destroy(m);

  // constraints: the evaluator failing, a violating velocity, its projection
  fault c = {.g = G, .wall = 2.0};
  ENSURE((m = constrained(&c, 1.0)) && (s = nh_sim_create(m, NULL, NULL, 0)));
  const double xc[4] = {0, 1, 1, 1}, xv[4] = {0, 1, 1, 0};
  c.fail_rc = -1, c.fail_at[FE_PRED] = c.calls[FE_PRED] + 1;
  ENSURE(nh_sim_set_state_x(s, 0.0, xc) == NH_ERR_CALLBACK);
  ENSURE(!strcmp(nh_sim_message(s), "constraint evaluator failed at the initial state"));
  ENSURE(nh_sim_set_state_x(s, 0.0, xv) == NH_ERR_CONSTRAINT && strstr(nh_sim_message(s), "max |A v| = 1.000e+00"));
  ENSURE(nh_sim_v(s)[1] == 1.0); /* (the state of creation kept) */
  nh_sim_destroy(s);
  nh_sim_def d = nh_sim_def_default();
  d.project_initial = 1;
  ENSURE((s = nh_sim_create(m, &d, NULL, 0)));
  ENSURE(nh_sim_set_state_x(s, 0.0, xv) == NH_PROJECTED);
  ENSURE_NEAR(nh_sim_v(s)[0], 0.5, 1e-15); /* (1, 0) onto x' = y' in the kinetic metric */
  ENSURE_NEAR(nh_sim_v(s)[1], 0.5, 1e-15);
  ENSURE(nh_sim_get_stats(s)->max_constraint_residual <= 1e-16);
  // the mass failing in the projection, the constraint evaluator failing at the projected
  // velocity: refused, named, the state kept
  c.fail_at[FE_MASS] = c.calls[FE_MASS] + 1;
  ENSURE(nh_sim_set_state_x(s, 0.0, xv) == NH_ERR_CALLBACK && strstr(nh_sim_message(s), "the mass evaluator failed"));
  ENSURE(nh_sim_v(s)[0] == 0.5);
  c.fail_at[FE_PRED] = c.calls[FE_PRED] + 2; /* (the first call finds the violation) */
  ENSURE(nh_sim_set_state_x(s, 0.0, xv) == NH_ERR_CALLBACK && strstr(nh_sim_message(s), "the constraint evaluator failed"));
  ENSURE(nh_sim_v(s)[0] == 0.5);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  // two equal rows: the projection of a violating velocity has no unique answer
  const double xv3[6] = {0, 1, 0, 1, 0, 0};
  ENSURE((m = constrained2()) && (s = nh_sim_create(m, &d, NULL, 0)));
  ENSURE(nh_sim_set_state_x(s, 0.0, xv3) == NH_ERR_SINGULAR && !strcmp(nh_sim_message(s), "projection of the initial velocity failed"));
  ENSURE(nh_sim_v(s)[0] == 1.0 && nh_sim_v(s)[1] == 1.0);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  // an ODE-form model: nh_sim_set_state takes q as the whole state (v ignored)
  fault fa = {.g = G, .wall = 2.0};
  ENSURE((m = fault_ball_ap(&fa, 0.8, 0)) && (s = nh_sim_create(m, NULL, NULL, 0)));
  const double xa[4] = {0.25, 0.5, 1, 0};
  ENSURE(nh_sim_set_state(s, 2.0, xa, NULL) == NH_OK && nh_sim_time(s) == 2.0 && !memcmp(nh_sim_x(s), xa, sizeof xa));
  ENSURE(nh_sim_v(s) == NULL);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* nh_sim_replace_x (the tangent part of the Lyapunov analysis): NULL, a non-finite state or one
 * whose energy fails is refused and not taken; a state taken starts a new energy segment */
static int test_replace_x(void) {
  fault f = {.g = G, .wall = 2.0};
  nh_model *m = fault_ball(&f, 0.8, 0, 0, 0);
  nh_sim *s = nh_sim_create(m, NULL, NULL, 0);
  ENSURE(m && s && nh_sim_run(s, 0.2, 0, NULL, NULL) == NH_OK);
  double x0[4], x1[4] = {0.2, 0.9, 1, -2}, xinf[4] = {0, NAN, 0, 0};
  memcpy(x0, nh_sim_x(s), sizeof x0);
  ENSURE(nh_sim_replace_x(NULL, x1) == NH_ERR_ARG && nh_sim_replace_x(s, NULL) == NH_ERR_ARG);
  ENSURE(nh_sim_replace_x(s, xinf) == NH_ERR_NONFINITE && strstr(nh_sim_message(s), "replaced state is not finite at t = "));
  f.fail_rc = -1, f.fail_at[FE_POT] = f.calls[FE_POT] + 1;
  ENSURE(nh_sim_replace_x(s, x1) == NH_ERR_CALLBACK && strstr(nh_sim_message(s), "energy evaluation failed at the replaced state"));
  ENSURE(!memcmp(nh_sim_x(s), x0, sizeof x0) && nh_sim_time(s) == 0.2);
  ENSURE(nh_sim_replace_x(s, x1) == NH_OK && !memcmp(nh_sim_x(s), x1, sizeof x1) && nh_sim_time(s) == 0.2);
  ENSURE_NEAR(nh_sim_get_stats(s)->energy, 0.5 * (1 + 4) + G * 0.9, 1e-14);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* An initial state whose energy overflows double precision, and an automatic first step
 * (h = 0) where the dynamics are not finite, are refused by creation with their reasons. */
static int nan_force(double t, const double *q, const double *v, double *f, void *u) {
  (void)t, (void)q, (void)v, (void)u;
  f[0] = f[1] = NAN;
  return 0;
}
static int test_create_refused(void) {
  fault f = {.g = G, .wall = 2.0};
  double q0[2] = {0, 1}, v0[2] = {1e200, 0};
  nh_model_def md = nh_model_def_default();
  md.name = "fast", md.nq = 2, md.coord_names = fb_coords, md.q0 = q0, md.v0 = v0, md.mass = fb_mass;
  md.potential = fb_pot, md.user = &f;
  nh_model *m = nh_model_create(&md, NULL, 0);
  char msg[256];
  ENSURE(m && !nh_sim_create(m, NULL, msg, sizeof msg));
  ENSURE(strstr(msg, "the energy at the initial state is not finite (E = inf)") == msg);
  nh_model_destroy(m);
  v0[0] = 1.0, md.force = nan_force;
  ENSURE((m = nh_model_create(&md, NULL, 0)));
  nh_sim_def d = nh_sim_def_default();
  d.h = 0.0;
  ENSURE(!nh_sim_create(m, &d, msg, sizeof msg));
  ENSURE(!strcmp(msg, "the automatic first step failed: the dynamics are not finite at the initial state"));
  nh_model_destroy(m);
  return 0;
}

/* ---- the accessors and the logs ------------------------------------------------------------ */

/* NULL simulations and records out of range: 0 counts, NH_ERR_ARG, "" and "unknown" names;
 * the event log with log_limit = 3 keeps the first two events and the latest, each with its
 * state (the monitor y = 0.5 falls once per bounce above it: seven times in 6 s, e = 0.95). */
static int test_accessors_and_log_limit(void) {
  fault f = {.g = G, .wall = 100.0};
  nh_model *m = fault_ball(&f, 0.95, 1, 0, 0);
  nh_sim_def d = nh_sim_def_default();
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  ENSURE(m && s);
  ENSURE(nh_sim_run(s, 6.0, 0, NULL, NULL) == NH_OK);
  const long nev = nh_sim_event_count(s);
  nh_event_record all[16];
  double xall[16][4]; /* (the records' states are borrowed) */
  ENSURE(nev == 7);
  for (long k = 0; k < nev; k++) {
    ENSURE(nh_sim_event_get(s, k, &all[k]) == NH_OK && all[k].monitor == 0);
    memcpy(xall[k], all[k].x, sizeof xall[k]);
  }
  nh_event_record e;
  ENSURE(nh_sim_event_get(s, nev, &e) == NH_ERR_ARG && nh_sim_event_get(s, -1, &e) == NH_ERR_ARG);
  ENSURE(nh_sim_event_get(s, 0, NULL) == NH_ERR_ARG && nh_sim_event_get(NULL, 0, &e) == NH_ERR_ARG);
  nh_contact_record c;
  nh_impact_record r;
  ENSURE(nh_sim_contact_get(s, 0, &c) == NH_ERR_ARG && nh_sim_contact_get(s, -1, &c) == NH_ERR_ARG);
  ENSURE(nh_sim_contact_get(s, 0, NULL) == NH_ERR_ARG && nh_sim_contact_get(NULL, 0, &c) == NH_ERR_ARG);
  ENSURE(nh_sim_impact_get(s, -1, &r) == NH_ERR_ARG && nh_sim_impact_get(s, nh_sim_impact_count(s), &r) == NH_ERR_ARG);
  ENSURE(nh_sim_impact_get(s, 0, NULL) == NH_ERR_ARG && nh_sim_impact_get(NULL, 0, &r) == NH_ERR_ARG);
  ENSURE(nh_sim_event_count(NULL) == 0 && nh_sim_contact_count(NULL) == 0 && !strcmp(nh_sim_message(NULL), ""));
  ENSURE(nh_sim_contact_closed(NULL, 0) == 0 && nh_sim_contact_closed(s, -1) == 0 && nh_sim_contact_closed(s, 2) == 0);
  ENSURE(!strcmp(nh_contact_kind_name(0), "unknown") && !strcmp(nh_contact_kind_name(NH_CONTACT_OPEN), "open"));
  ENSURE(!strcmp(nh_contact_reason_name(0), "unknown") && !strcmp(nh_contact_reason_name(NH_CONTACT_CHATTER), "chatter"));
  ENSURE(!strcmp(nh_contact_reason_name(NH_CONTACT_SEPARATION), "separation"));
  nh_sim_destroy(s);
  // the same run with log_limit 3
  d.log_limit = 3;
  ENSURE((s = nh_sim_create(m, &d, NULL, 0)) && nh_sim_run(s, 6.0, 0, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_event_count(s) == 3);
  for (long k = 0; k < 3; k++) {
    const long j = k < 2 ? k : nev - 1;
    ENSURE(nh_sim_event_get(s, k, &e) == NH_OK && e.t == all[j].t && e.direction == -1 && e.stopped == 0);
    ENSURE(!memcmp(e.x, xall[j], sizeof xall[j]));
  }
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* ---- phases --------------------------------------------------------------------------------- */

/* the reset map of test_chain_refused: how it answers (by user) */
typedef struct reset_case {
  int to, r;
  double dt;   /* added to the stop time */
  double y;    /* the state's y (below 0: outside the floor) */
} reset_case;
static int reset_map(int from, const nh_sim *s, int *to, double *t, double *x, void *user) {
  (void)from, (void)s;
  const reset_case *c = user;
  *to = c->to, *t += c->dt;
  x[1] = c->y, x[3] = 0.0;
  return c->r;
}

/* A chain of one phase (the ball; its monitor stops the run at y = 0.5): a bad shape is
 * refused before anything runs, and so is a reset map that picks a phase that does not exist,
 * a time past t_end or a state outside the floor (its nh_sim_set_state_x's status), or fails
 * (its status); *last is the phase that ended the run. */
static int test_chain_refused(void) {
  fault f = {.g = G, .wall = 100.0};
  nh_monitor_def stop = {"half", NH_MONITOR_FALLING, NH_MONITOR_STOP};
  double q0[2] = {0, 1}, v0[2] = {1, 0};
  nh_impact_law law[2] = {{NH_IMPACT_RESTITUTION, 0.8}, {NH_IMPACT_RESTITUTION, 0.8}};
  nh_model_def md = nh_model_def_default();
  md.name = "ball", md.nq = 2, md.ngap = 2, md.nmon = 1, md.coord_names = fb_coords, md.gap_names = fb_gaps;
  md.impact = law, md.q0 = q0, md.v0 = v0, md.mass = fb_mass, md.potential = fb_pot, md.gap = fb_gap;
  md.monitor = fb_mon, md.monitors = &stop, md.user = &f;
  nh_model *m = nh_model_create(&md, NULL, 0);
  nh_sim *s = nh_sim_create(m, NULL, NULL, 0);
  ENSURE(m && s);
  nh_sim *phases[1] = {s}, *none[1] = {NULL};
  const double brk[1] = {0.5};
  int last = -7;
  nh_chain c = {phases, 1, NULL, 0, 0, 0, NULL, NULL};
  // shapes
  nh_chain bad = c;
  ENSURE(nh_chain_run(NULL, 0, 1.0, NULL, NULL, &last) == NH_ERR_ARG && last == 0);
  bad.phases = NULL;
  ENSURE(nh_chain_run(&bad, 0, 1.0, NULL, NULL, NULL) == NH_ERR_ARG);
  bad = c, bad.nphases = 0;
  ENSURE(nh_chain_run(&bad, 0, 1.0, NULL, NULL, NULL) == NH_ERR_ARG);
  ENSURE(nh_chain_run(&c, -1, 1.0, NULL, NULL, NULL) == NH_ERR_ARG && nh_chain_run(&c, 1, 1.0, NULL, NULL, NULL) == NH_ERR_ARG);
  bad = c, bad.nbreaks = -1;
  ENSURE(nh_chain_run(&bad, 0, 1.0, NULL, NULL, NULL) == NH_ERR_ARG);
  bad = c, bad.nbreaks = 1; /* no breaks given */
  ENSURE(nh_chain_run(&bad, 0, 1.0, NULL, NULL, NULL) == NH_ERR_ARG);
  bad = c, bad.max_impacts = -1;
  ENSURE(nh_chain_run(&bad, 0, 1.0, NULL, NULL, NULL) == NH_ERR_ARG);
  bad = c, bad.max_switches = -1;
  ENSURE(nh_chain_run(&bad, 0, 1.0, NULL, NULL, NULL) == NH_ERR_ARG);
  bad = c, bad.phases = none;
  ENSURE(nh_chain_run(&bad, 0, 1.0, NULL, NULL, NULL) == NH_ERR_ARG);
  ENSURE(nh_chain_run(&c, 0, -1.0, NULL, NULL, NULL) == NH_ERR_ARG);
  ENSURE(nh_sim_time(s) == 0.0 && nh_sim_get_stats(s)->steps == 0); /* nothing ran */
  // run_breaks' shapes
  ENSURE(nh_sim_run_breaks(NULL, 1.0, 0, brk, 1, NULL, NULL) == NH_ERR_ARG);
  ENSURE(nh_sim_run_breaks(s, -1.0, 0, brk, 1, NULL, NULL) == NH_ERR_ARG);
  ENSURE(nh_sim_run_breaks(s, 1.0, -1, brk, 1, NULL, NULL) == NH_ERR_ARG);
  ENSURE(nh_sim_run_breaks(s, 1.0, 0, brk, -1, NULL, NULL) == NH_ERR_ARG);
  ENSURE(nh_sim_run_breaks(s, 1.0, 0, NULL, 1, NULL, NULL) == NH_ERR_ARG);
  // the reset maps: the stop at y = 0.5 (t = sqrt(1 / g)) calls them
  const double ts = sqrt(1.0 / G);
  static const struct {
    reset_case rc;
    int status;
  } cases[] = {{{1, 0, 0.0, 0.5}, NH_ERR_ARG},        /* no phase 1 */
               {{-1, 0, 0.0, 0.5}, NH_ERR_ARG},       /* nor -1 */
               {{0, 0, 10.0, 0.5}, NH_ERR_ARG},       /* past t_end */
               {{0, 0, 0.0, -0.5}, NH_ERR_ARG},       /* outside the floor: set_state's refusal */
               {{0, NH_ERR_CALLBACK, 0.0, 0.5}, NH_ERR_CALLBACK}, /* the map fails */
               {{0, 1, 0.0, 0.5}, NH_EVENT_STOP}};    /* the map ends the run */
  for (int k = 0; k < 6; k++) {
    reset_case rcase = cases[k].rc;
    c.reset = reset_map, c.reset_user = &rcase, c.breaks = brk, c.nbreaks = 1;
    ENSURE(nh_sim_set_state_x(s, 0.0, (const double[4]){0, 1, 1, 0}) == NH_OK);
    last = -7;
    const int rc = nh_chain_run(&c, 0, 1.0, NULL, NULL, &last);
    ENSURE(rc == cases[k].status && last == 0);
    ENSURE_NEAR(nh_sim_time(s), ts, 1e-12); /* the stop: where the map was called */
    if (k == 3) ENSURE(strstr(nh_sim_message(s), "initial state is outside the admissible region: gap 'floor'"));
  }
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_run_bounds);
  RUN_TEST(test_def_refused);
  RUN_TEST(test_state_refused);
  RUN_TEST(test_create_refused);
  RUN_TEST(test_replace_x);
  RUN_TEST(test_accessors_and_log_limit);
  RUN_TEST(test_chain_refused);
  return TEST_SUMMARY();
}
