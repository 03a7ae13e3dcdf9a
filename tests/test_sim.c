/* test_sim.c - the hybrid driver: event location, impact log, Zeno guard, the penny end to end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "models.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

static nh_sim *make_sim(const nh_model *m, const char *method, double h) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  return nh_sim_create(m, &d, NULL, 0);
}

/* ball dropped from y0 at rest: k-th impact time (k = 1, 2, ...) */
static double ball_impact_time(double y0, double g, double e, int k) {
  double t1 = sqrt(2.0 * y0 / g), v1 = g * t1, t = t1;
  for (int j = 1; j < k; j++) t += 2.0 * pow(e, j) * v1 / g;
  return t;
}

/* impacts of a bouncing ball (restitution, eq. 6) located to round-off by DOPRI5 and RK4,
 * both exact on the parabolic flights; energy after each impact = e^2 times before */
static int test_ball_impact_times(void) {
  const double e = 0.8, y0 = 1.0;
  const char *methods[2] = {"dopri5", "rk4"};
  for (int k = 0; k < 2; k++) {
    nh_model *m = test_ball_create(e, y0, 0.0);
    ENSURE(m);
    nh_sim *s = make_sim(m, methods[k], 0.01);
    ENSURE(s);
    ENSURE(nh_sim_run(s, 100.0, 10, NULL, NULL) == NH_OK);
    ENSURE(nh_sim_impact_count(s) == 10);
    double maxerr = 0;
    for (long i = 0; i < 10; i++) {
      nh_impact_record r;
      ENSURE(nh_sim_impact_get(s, i, &r) == NH_OK);
      double te = ball_impact_time(y0, 9.81, e, (int)i + 1);
      maxerr = fmax(maxerr, fabs(r.t - te) / te);
      ENSURE_REL(r.energy_after, e * e * r.energy_before, 1e-10);
      ENSURE_REL(r.vn_after, -e * r.vn_before, 1e-12);
      ENSURE(r.q[0] >= 0.0 && r.q[0] < 1e-12);
    }
    printf("  %s: max relative error of 10 impact times %.2e\n", methods[k], maxerr);
    ENSURE(maxerr < 1e-12);
    nh_sim_destroy(s);
    nh_model_destroy(m);
  }
  return 0;
}

/* a ball with e = 0.5 has infinitely many impacts before t_inf: without persistent contacts
 * the Zeno guard stops the run there and keeps the impact log */
static int test_zeno_guard(void) {
  const double e = 0.5, y0 = 1.0, g = 9.81;
  nh_model *m = test_ball_create(e, y0, 0.0);
  nh_sim_def d = nh_sim_def_default();
  d.contact = 0;
  d.zeno_count = 10;
  d.zeno_interval = 1e-5;
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  ENSURE(s);
  int rc = nh_sim_run(s, 100.0, 0, NULL, NULL);
  double t1 = sqrt(2 * y0 / g), t_inf = t1 + 2 * e * g * t1 / (g * (1 - e));
  printf("  status %s after %ld impacts at t = %.15g (accumulation point %.15g)\n", nh_status_name(rc),
         nh_sim_impact_count(s), nh_sim_time(s), t_inf);
  ENSURE(rc == NH_ZENO);
  ENSURE(nh_sim_impact_count(s) >= 10);
  ENSURE(nh_sim_time(s) < t_inf && nh_sim_time(s) > t_inf - 1e-4);
  ENSURE(strstr(nh_sim_message(s), "impacts") != NULL);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* a state that starts on the wall moving away is not an impact */
static int test_departing_start(void) {
  nh_model *m = test_ball_create(1.0, 0.0, 2.0);
  nh_sim *s = make_sim(m, "dopri5", 1e-3);
  ENSURE(s);
  ENSURE(nh_sim_run(s, 0.3, 0, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_impact_count(s) == 0);
  ENSURE(nh_sim_run(s, 0.6, 0, NULL, NULL) == NH_OK); /* lands at 2 v / g = 0.4077, again at 0.8155 */
  ENSURE(nh_sim_impact_count(s) == 1);
  nh_impact_record r;
  nh_sim_impact_get(s, 0, &r);
  ENSURE_REL(r.t, 2 * 2.0 / 9.81, 1e-12);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

typedef struct penny_run {
  int n;
  double t[64];
  int gap[64];
  double Om[64], om[64];
} penny_run;

static int penny_impacts(double a, nh_impact_kind kind, const char *method, double h, int n, penny_run *out,
                         nh_sim_stats *stats) {
  nh_penny_params p = nh_penny_params_default();
  p.a = a;
  p.law.kind = kind;
  nh_model *m = nh_penny_create(&p, NULL, 0);
  if (!m) return -100;
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  d.rtol = 1e-12, d.atol = 1e-14; /* dopri5: 20 impacts agree to 1e-9 */
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  if (!s) return -101;
  int rc = nh_sim_run(s, 200.0, n, NULL, NULL);
  out->n = (int)nh_sim_impact_count(s);
  for (int i = 0; i < out->n && i < 64; i++) {
    nh_impact_record r;
    nh_sim_impact_get(s, i, &r);
    out->t[i] = r.t;
    out->gap[i] = r.gap;
    out->Om[i] = r.v_after[2];
    out->om[i] = r.v_after[3];
  }
  if (stats) *stats = *nh_sim_get_stats(s);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return rc;
}

/* closed-form flow (exact events) and DOPRI5 agree on the first 20 impact times of the
 * elastic circle to 1e-9 (issue 2, point 10), and on 5 of the ellipse (spec T16) */
static int test_penny_exact_vs_dopri5(void) {
  penny_run ex, dp;
  nh_sim_stats st;
  ENSURE(penny_impacts(0.2, NH_IMPACT_ELASTIC, "exact", 1e-3, 20, &ex, NULL) == NH_OK);
  ENSURE(penny_impacts(0.2, NH_IMPACT_ELASTIC, "dopri5", 1e-3, 20, &dp, &st) == NH_OK);
  ENSURE(ex.n == 20 && dp.n == 20);
  double maxrel = 0;
  for (int i = 0; i < 20; i++) {
    ENSURE(ex.gap[i] == dp.gap[i]);
    maxrel = fmax(maxrel, fabs(ex.t[i] - dp.t[i]) / ex.t[i]);
  }
  printf("  circle elastic: 20 impacts, max relative time difference exact vs dopri5 %.2e (%ld steps)\n",
         maxrel, st.steps);
  ENSURE(maxrel < 1e-9);
  ENSURE(st.max_constraint_residual < 1e-9);

  for (int law = 0; law < 2; law++) {
    ENSURE(penny_impacts(0.15, law ? NH_IMPACT_PLASTIC : NH_IMPACT_ELASTIC, "exact", 1e-3, 5, &ex, NULL) == NH_OK);
    ENSURE(penny_impacts(0.15, law ? NH_IMPACT_PLASTIC : NH_IMPACT_ELASTIC, "dopri5", 1e-3, 5, &dp, NULL) == NH_OK);
    ENSURE(ex.n == 5 && dp.n == 5);
    maxrel = 0;
    for (int i = 0; i < 5; i++) {
      ENSURE(ex.gap[i] == dp.gap[i] && ex.gap[i] == (i % 2)); /* F B F B F */
      maxrel = fmax(maxrel, fabs(ex.t[i] - dp.t[i]) / ex.t[i]);
    }
    printf("  ellipse %s: 5 impacts, max relative difference %.2e\n", law ? "plastic" : "elastic", maxrel);
    ENSURE(maxrel < 1e-9);
  }
  return 0;
}

/* RK4 with a small fixed step reproduces the closed-form impacts to its accuracy */
static int test_penny_rk4(void) {
  penny_run ex, rk;
  ENSURE(penny_impacts(0.2, NH_IMPACT_PLASTIC, "exact", 1e-3, 5, &ex, NULL) == NH_OK);
  ENSURE(penny_impacts(0.2, NH_IMPACT_PLASTIC, "rk4", 2e-3, 5, &rk, NULL) == NH_OK);
  double maxrel = 0;
  for (int i = 0; i < 5; i++) maxrel = fmax(maxrel, fabs(ex.t[i] - rk.t[i]) / ex.t[i]);
  printf("  circle plastic: rk4 (h = 2e-3) vs exact, max relative time difference %.2e\n", maxrel);
  ENSURE(maxrel < 1e-9);
  return 0;
}

/* plastic runs converge to grazing contact: the dips below the wall get shallow and short,
 * and a detector that only compares gap signs at samples misses them. The slope test with a
 * dense-output minimisation must keep RK4 and DOPRI5 on the exact impact sequence. */
static int test_penny_plastic_grazing(void) {
  penny_run ex, rk, dp;
  ENSURE(penny_impacts(0.2, NH_IMPACT_PLASTIC, "exact", 1e-3, 12, &ex, NULL) == NH_OK);
  ENSURE(penny_impacts(0.2, NH_IMPACT_PLASTIC, "rk4", 1e-3, 12, &rk, NULL) == NH_OK);
  ENSURE(penny_impacts(0.2, NH_IMPACT_PLASTIC, "dopri5", 1e-3, 12, &dp, NULL) == NH_OK);
  ENSURE(ex.n == 12 && rk.n == 12 && dp.n == 12);
  double mr = 0, md = 0;
  for (int i = 0; i < 12; i++) {
    ENSURE(rk.gap[i] == ex.gap[i] && dp.gap[i] == ex.gap[i]);
    mr = fmax(mr, fabs(rk.t[i] - ex.t[i]) / ex.t[i]);
    md = fmax(md, fabs(dp.t[i] - ex.t[i]) / ex.t[i]);
  }
  printf("  plastic circle, 12 impacts into grazing: max relative time difference rk4 %.2e, dopri5 %.2e\n", mr, md);
  ENSURE(mr < 1e-6 && md < 1e-6);
  return 0;
}

/* spec T17 through the driver: even impacts restore (10, 0.2), flights alternate, t_20 */
static int test_penny_circle_elastic_invariants(void) {
  penny_run ex;
  nh_sim_stats st;
  ENSURE(penny_impacts(0.2, NH_IMPACT_ELASTIC, "exact", 1e-3, 20, &ex, &st) == NH_OK);
  for (int i = 1; i < 20; i += 2) {
    ENSURE_NEAR(ex.Om[i], 10.0, 1e-10);
    ENSURE_NEAR(ex.om[i], 0.2, 1e-10);
  }
  for (int i = 1; i < 20; i++) ENSURE_NEAR(ex.t[i] - ex.t[i - 1], (i % 2) ? 0.147350293580 : 3.826776420511, 1e-10);
  ENSURE_NEAR(ex.t[19], 37.8278789307, 1e-9);
  ENSURE(st.max_energy_rel_error < 1e-13);
  ENSURE(st.max_event_gap < 1e-13);
  return 0;
}

/* the impact log of a plastic run: energies, constraints after, surfaces named */
static int test_impact_log(void) {
  nh_penny_params p = nh_penny_params_default();
  p.law.kind = NH_IMPACT_PLASTIC;
  nh_model *m = nh_penny_create(&p, NULL, 0);
  nh_sim *s = make_sim(m, "exact", 1e-3);
  ENSURE(nh_sim_run(s, 200.0, 8, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_impact_count(s) == 8);
  for (long k = 0; k < 8; k++) {
    nh_impact_record r;
    ENSURE(nh_sim_impact_get(s, k, &r) == NH_OK);
    ENSURE(r.energy_after < r.energy_before);
    ENSURE(r.vn_before < 0.0 && r.vn_after > 0.0);
    ENSURE(r.alpha < 0.0);
    // rolling constraints after: x' = R cos(phi) theta', y' = R sin(phi) theta'
    ENSURE_NEAR(r.v_after[0], p.R * cos(r.q[3]) * r.v_after[2], 1e-15);
    ENSURE_NEAR(r.v_after[1], p.R * sin(r.q[3]) * r.v_after[2], 1e-15);
    double E;
    ENSURE(nh_model_energy(m, r.q, r.v_after, &E) == NH_OK);
    ENSURE_REL(E, r.energy_after, 1e-14);
  }
  nh_impact_record r;
  ENSURE(nh_sim_impact_get(s, 8, &r) == NH_ERR_ARG);
  ENSURE(nh_model_gap_index(m, "front") == 0 && nh_model_gap_index(m, "back") == 1);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

typedef struct obs_log {
  int n, kinds[4096];
  double t[4096];
  int stop_after;
} obs_log;

static int observer(const nh_sim *s, nh_sample_kind kind, double t, const double *q, const double *v, void *user) {
  (void)s, (void)q, (void)v;
  obs_log *o = user;
  if (o->n < 4096) o->kinds[o->n] = kind, o->t[o->n] = t;
  o->n++;
  return o->stop_after > 0 && o->n >= o->stop_after;
}

/* observers see START, samples at multiples of out_dt, impact pairs, END; can stop a run */
static int test_observer(void) {
  nh_model *m = test_ball_create(0.9, 1.0, 0.0);
  nh_sim_def d = nh_sim_def_default();
  d.out_dt = 0.05;
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  obs_log *o = calloc(1, sizeof *o);
  ENSURE(nh_sim_run(s, 2.0, 0, observer, o) == NH_OK);
  ENSURE(o->kinds[0] == NH_SAMPLE_START && o->kinds[o->n - 1] == NH_SAMPLE_END);
  int outputs = 0, pairs = 0;
  for (int i = 1; i < o->n - 1; i++) {
    ENSURE(o->t[i] >= o->t[i - 1]);
    if (o->kinds[i] == NH_SAMPLE_OUTPUT) {
      outputs++;
      ENSURE_NEAR(o->t[i], 0.05 * outputs, 1e-12);
    }
    if (o->kinds[i] == NH_SAMPLE_IMPACT_BEFORE) {
      ENSURE(o->kinds[i + 1] == NH_SAMPLE_IMPACT_AFTER && o->t[i + 1] == o->t[i]);
      pairs++;
    }
  }
  ENSURE(outputs == 40);
  ENSURE(pairs == nh_sim_impact_count(s) && pairs > 0);
  // stop after 5 samples
  ENSURE(nh_sim_set_state(s, 0.0, m->q0, m->v0) == NH_OK);
  o->n = 0;
  o->stop_after = 5;
  ENSURE(nh_sim_run(s, 2.0, 0, observer, o) == NH_STOPPED);
  ENSURE(o->n == 5);
  free(o);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* bad initial states and options get statuses with messages */
static int test_bad_states(void) {
  nh_penny_params p = nh_penny_params_default();
  nh_model *m = nh_penny_create(&p, NULL, 0);
  nh_sim *s = make_sim(m, "dopri5", 1e-3);
  ENSURE(s);
  double q[4] = {0, 0, 0, 0}, v[4] = {0.1, 0.05, 10, 0.2}; /* y' should be 0 for phi = 0 */
  ENSURE(nh_sim_set_state(s, 0.0, q, v) == NH_ERR_CONSTRAINT);
  ENSURE(strstr(nh_sim_message(s), "violates") != NULL);
  double qo[4] = {0.5, 0, 0, 0}, vo[4] = {0.1, 0, 10, 0};
  ENSURE(nh_sim_set_state(s, 0.0, qo, vo) == NH_ERR_ARG);
  ENSURE(strstr(nh_sim_message(s), "front") != NULL);
  double vn[4] = {NAN, 0, 0, 0};
  ENSURE(nh_sim_set_state(s, 0.0, q, vn) == NH_ERR_NONFINITE);
  nh_sim_destroy(s);
  // finite initial values whose energy overflows: refused at creation, with a reason
  nh_penny_params pb = nh_penny_params_default();
  pb.theta_dot0 = 1e308;
  nh_model *mb = nh_penny_create(&pb, NULL, 0);
  char mmsg[256];
  ENSURE(mb);
  ENSURE(nh_sim_create(mb, NULL, mmsg, sizeof mmsg) == NULL);
  ENSURE(strcmp(mmsg, "the energy at the initial state is not finite (E = inf): an initial value is too large") == 0);
  nh_model_destroy(mb);
  // projection of the initial velocity with the kinetic metric
  nh_sim_def d = nh_sim_def_default();
  d.project_initial = 1;
  s = nh_sim_create(m, &d, NULL, 0);
  ENSURE(nh_sim_set_state(s, 0.0, q, v) == NH_PROJECTED);
  double res;
  ENSURE(nh_model_constraint_residual(m, nh_sim_q(s), nh_sim_v(s), &res) == NH_OK);
  ENSURE(res < 1e-15);
  nh_sim_destroy(s);
  // options
  char msg[256];
  d = nh_sim_def_default();
  d.h = -1;
  ENSURE(nh_sim_create(m, &d, msg, sizeof msg) == NULL && strstr(msg, "step size") != NULL);
  d = nh_sim_def_default();
  d.rtol = NAN;
  ENSURE(nh_sim_create(m, &d, msg, sizeof msg) == NULL && strstr(msg, "tolerances") != NULL);
  nh_sim_def raw;
  memset(&raw, 0, sizeof raw);
  ENSURE(nh_sim_create(m, &raw, msg, sizeof msg) == NULL && strstr(msg, "nh_sim_def_default") != NULL);
  nh_model_destroy(m);
  return 0;
}

/* an evaluator that fails stops the run with a status, never a crash */
static int failing_mass(const double *q, double *M, void *user) {
  (void)user;
  M[0] = 1.0;
  return q[0] < 0.5 ? -1 : 0;
}
static int test_callback_failure(void) {
  static const char *names[] = {"y"};
  double y0 = 1.0, v0 = -1.0;
  nh_model_def d = nh_model_def_default();
  d.nq = 1;
  d.coord_names = names;
  d.q0 = &y0;
  d.v0 = &v0;
  d.mass = failing_mass;
  nh_model *m = nh_model_create(&d, NULL, 0);
  ENSURE(m);
  nh_sim *s = make_sim(m, "rk4", 0.01);
  int rc = nh_sim_run(s, 2.0, 0, NULL, NULL);
  ENSURE(rc == NH_ERR_CALLBACK);
  ENSURE(nh_sim_time(s) < 0.51 && nh_sim_time(s) > 0.45);
  ENSURE(nh_sim_message(s)[0] != 0);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* The driver's loop has one source, compiled as a fast instance (nh_sim_run without an
 * observer on a fixed-step simulation without gaps or monitors: two alternating buffers,
 * statistics written on return), an observed one (an observer that does nothing), and the
 * general one that nh_sim_step takes. All three give the same run bit for bit: state, time,
 * statistics (with the conserved quantity), the step limit, and a state that turns NaN
 * (NH_ERR_NONFINITE at the same step). */
static int noop_observer(const nh_sim *s, nh_sample_kind k, double t, const double *q, const double *v, void *u) {
  (void)s, (void)k, (void)t, (void)q, (void)v, (void)u;
  return 0;
}
static int nan_force(double t, const double *q, const double *v, double *f, void *user) {
  (void)t, (void)v, (void)user;
  f[0] = q[0] < 0.5 ? NAN : 0.0;
  return 0;
}
static int unit_mass(const double *q, double *M, void *user) {
  (void)q, (void)user;
  M[0] = 1.0;
  return 0;
}
static int test_plain_loop_equals_observed(void) {
  nh_sleigh_params sp = nh_sleigh_params_default();
  nh_snakeboard_params bp = nh_snakeboard_params_default();
  static const char *names[] = {"y"};
  double y0 = 1.0, v0 = -1.0;
  nh_model_def nd = nh_model_def_default();
  nd.nq = 1, nd.coord_names = names, nd.q0 = &y0, nd.v0 = &v0;
  nd.mass = unit_mass, nd.force = nan_force;
  nh_model *models[3] = {nh_sleigh_create(&sp, NULL, 0), nh_snakeboard_create(&bp, NULL, 0),
                         nh_model_create(&nd, NULL, 0)};
  const char *methods[6] = {"gni", "rattle", "shake", "rdp", "rk4", "rk2"};
  int cases = 0;
  for (int mi = 0; mi < 3; mi++) {
    ENSURE(models[mi]);
    for (int k = 0; k < 6; k++) {
      if (mi == 2 && k != 4) continue; /* the NaN model: rk4 */
      for (int limit = 0; limit < 2; limit++) {
        double x[3][10], t[3];
        nh_sim_stats st[3];
        int rc[3];
        for (int o = 0; o < 3; o++) {
          nh_sim_def d = nh_sim_def_default();
          d.method = nh_method_find(methods[k]);
          d.h = 1e-2;
          d.max_steps = limit ? 137 : 0;
          nh_sim *s = nh_sim_create(models[mi], &d, NULL, 0);
          ENSURE(s);
          if (o < 2) {
            rc[o] = nh_sim_run(s, 3.0, 0, o ? noop_observer : NULL, NULL);
          } else { /* one step at a time, the step limit counted here */
            long n = 0;
            do rc[o] = nh_sim_step(s, 3.0, NULL);
            while (!rc[o] && nh_sim_time(s) < 3.0 && !(d.max_steps > 0 && ++n >= d.max_steps));
            if (!rc[o] && nh_sim_time(s) < 3.0) rc[o] = NH_ERR_MAX_STEPS;
          }
          t[o] = nh_sim_time(s);
          memcpy(x[o], nh_sim_x(s), sizeof(double) * (size_t)models[mi]->nx);
          st[o] = *nh_sim_get_stats(s);
          nh_sim_destroy(s);
        }
        ENSURE(rc[0] == (mi == 2 ? NH_ERR_NONFINITE : limit ? NH_ERR_MAX_STEPS : NH_OK));
        for (int o = 1; o < 3; o++) {
          ENSURE(rc[0] == rc[o] && t[0] == t[o]);
          for (int i = 0; i < models[mi]->nx; i++) ENSURE(x[0][i] == x[o][i]);
          ENSURE(st[0].steps == st[o].steps && st[0].rejected == st[o].rejected && st[0].evals == st[o].evals);
          ENSURE(st[0].energy == st[o].energy && st[0].max_energy_rel_error == st[o].max_energy_rel_error);
          ENSURE(st[0].max_constraint_residual == st[o].max_constraint_residual);
          ENSURE(st[0].solver_iterations == st[o].solver_iterations &&
                 st[0].solver_max_residual == st[o].solver_max_residual);
          ENSURE(st[0].conserved == st[o].conserved && st[0].conserved_initial == st[o].conserved_initial &&
                 st[0].max_conserved_rel_error == st[o].max_conserved_rel_error && st[0].conserves == st[o].conserves);
        }
        cases++;
      }
    }
  }
  printf("  %d runs without an observer equal the observed and the step-by-step runs bit for bit\n", cases);
  for (int mi = 0; mi < 3; mi++) nh_model_destroy(models[mi]);
  return 0;
}

/* model definitions are validated */
static int test_model_def_errors(void) {
  static const char *names[] = {"x", "x"};
  char msg[256];
  nh_model_def d = nh_model_def_default();
  d.nq = 2;
  d.coord_names = names;
  d.mass = failing_mass;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL && strstr(msg, "duplicate") != NULL);
  d.coord_names = NULL;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL && strstr(msg, "names") != NULL);
  static const char *ok[] = {"x", "y"};
  d.coord_names = ok;
  d.nc = 1;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL && strstr(msg, "constraint evaluator") != NULL);
  d.nc = 0;
  d.ngap = 1;
  nh_impact_law bad = {NH_IMPACT_RESTITUTION, 1.5};
  d.impact = &bad;
  d.gap = ball_gap;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL && strstr(msg, "restitution") != NULL);
  nh_model_def raw;
  memset(&raw, 0, sizeof raw);
  ENSURE(nh_model_create(&raw, msg, sizeof msg) == NULL);
  return 0;
}

/* nh_sim_def_default's method is the model's: exact for the penny (a closed-form flow), as the
 * command line picks; dopri5 for a model without one; nh_method_default_for says the same */
static int test_default_method_follows_model(void) {
  nh_penny_params p = nh_penny_params_default();
  nh_model *penny = nh_penny_create(&p, NULL, 0);
  const double q0[2] = {1.0, 0.0}, v0[2] = {0.0, 1.0};
  nh_model *polar = test_polar_create(1.0, q0, v0);
  ENSURE(penny && polar);
  nh_sim_def d = nh_sim_def_default();
  nh_sim *s = nh_sim_create(penny, &d, NULL, 0), *s2 = nh_sim_create(polar, NULL, NULL, 0);
  ENSURE(s && s2);
  ENSURE(nh_sim_method(s) == nh_method_find("exact") && nh_method_default_for(penny) == nh_method_find("exact"));
  ENSURE(nh_sim_method(s2) == nh_method_find("dopri5") && nh_method_default_for(polar) == nh_method_find("dopri5"));
  ENSURE(nh_sim_run(s, 100.0, 3, NULL, NULL) == NH_OK && nh_sim_impact_count(s) == 3);
  nh_sim_destroy(s), nh_sim_destroy(s2);
  nh_model_destroy(penny), nh_model_destroy(polar);
  return 0;
}

/* h = 0 is the automatic first step of an adaptive method (the oscillator agrees with its
 * closed form to the tolerance, as with h = 1e-3); a fixed-step method refuses it */
static int test_automatic_first_step(void) {
  const double k = 4.0, q0[2] = {1.0, 0.3}, v0[2] = {0.2, 1.5}, T = 10.0;
  nh_model *m = test_polar_create(k, q0, v0);
  ENSURE(m);
  nh_sim_def d = nh_sim_def_default();
  d.h = 0.0;
  char msg[512];
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  ENSURE(s);
  ENSURE(nh_sim_run(s, T, 0, NULL, NULL) == NH_OK);
  double q[2], v[2], p[2], pv[2];
  polar_exact(k, q0, v0, T, q, v);
  polar_to_xy(nh_sim_q(s), nh_sim_v(s), p, pv);
  ENSURE_NEAR(p[0], q[0], 1e-8);
  ENSURE_NEAR(p[1], q[1], 1e-8);
  ENSURE(nh_sim_get_stats(s)->steps < 5000);
  nh_sim_destroy(s);
  d.method = nh_method_find("rk4");
  ENSURE(nh_sim_create(m, &d, msg, sizeof msg) == NULL);
  ENSURE(strstr(msg, "h = 0 must be positive") && strstr(msg, "automatic, only for an adaptive method"));
  nh_model_destroy(m);
  return 0;
}

/* a refused method says what it needs and which methods can run the model */
static int test_refusal_reasons(void) {
  nh_penny_params p = nh_penny_params_default();
  nh_model *penny = nh_penny_create(&p, NULL, 0);
  const double q0[2] = {1.0, 0.0}, v0[2] = {0.0, 1.0};
  nh_model *polar = test_polar_create(1.0, q0, v0);
  ENSURE(penny && polar);
  char msg[1024];
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("gonzalez");
  nh_sim *sd = nh_sim_create(polar, &d, msg, sizeof msg); /* no constraints: the canonical D* form */
  ENSURE(sd != NULL);
  nh_sim_destroy(sd);
  sd = nh_sim_create(penny, &d, msg, sizeof msg); /* the penny: through its D* form */
  ENSURE(sd != NULL);
  nh_sim_destroy(sd);
  ENSURE(strstr(msg, "Gonzalez midpoint") == NULL); /* not its own description */
  d.method = nh_method_find("si-dla"); /* a q-dependent M runs; no constraint does not */
  ENSURE(nh_method_check(d.method, polar, msg, sizeof msg) == NH_ERR_UNSUPPORTED);
  ENSURE(strcmp(msg, "method 'si-dla' cannot run model 'polar': it needs a conservative model (no generalized "
                     "force) with at least one constraint; methods that can: rk4, dopri5, dop853, rk2, gni, rattle, "
                     "shake, del, avf, gonzalez, itoh-abe, gonzalez-r, gonzalez-r-fd") == 0);
  ENSURE(nh_method_check(nh_method_find("rk4"), polar, msg, sizeof msg) == NH_OK && msg[0] == '\0');
  nh_model_destroy(penny), nh_model_destroy(polar);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_ball_impact_times);
  RUN_TEST(test_zeno_guard);
  RUN_TEST(test_departing_start);
  RUN_TEST(test_penny_exact_vs_dopri5);
  RUN_TEST(test_penny_rk4);
  RUN_TEST(test_penny_plastic_grazing);
  RUN_TEST(test_penny_circle_elastic_invariants);
  RUN_TEST(test_impact_log);
  RUN_TEST(test_observer);
  RUN_TEST(test_bad_states);
  RUN_TEST(test_callback_failure);
  RUN_TEST(test_plain_loop_equals_observed);
  RUN_TEST(test_model_def_errors);
  RUN_TEST(test_default_method_follows_model);
  RUN_TEST(test_automatic_first_step);
  RUN_TEST(test_refusal_reasons);
  return TEST_SUMMARY();
}
