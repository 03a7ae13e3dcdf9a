/* test_witness.c - the energy as a witness of every run (NH_WITNESS_TOL, nh_sim_stats.drift) and
 * what a method conserves on a model (nh_sim_stats.conserved_quantity).
 *
 * On a model whose energy is a first integral between impacts (no forces or controls; an
 * almost-Poisson model), the energy the method's steps made, D = E - E_0 less the impact laws'
 * jumps, over the scale S = max(|E_0|, the largest kinetic energy) (|E_0| without a potential,
 * |H_0| in the almost-Poisson form), is judged against NH_WITNESS_TOL whatever the method
 * claims; past it the run completes with NH_DRIFT (NH_DRIFT_WITNESS). The values are checked
 * against closed forms: on the oscillator x'' = -x a Runge-Kutta step multiplies the energy by
 * |R(ih)|^2, 1 + h^4/4 for rk2 (gains) and 1 - h^6/72 + h^8/576 for rk4 (loses). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "nholo/io.h"
#include "nholo/modelfile.h"
#include "nholo/nholo.h"

/* a model file from text (the tape backend: no compiler needed) */
static nh_model *parse(const char *text) {
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  char msg[512];
  nh_model *m = nh_model_parse(text, "witness.nh", &lo, msg, sizeof msg);
  if (!m) printf("  parse: %s\n", msg);
  return m;
}

/* x'' = -x from x = 1 at rest: E_0 = 1/2, all potential */
static const char *const osc_text =
    "model osc\ncoordinates x\nkinetic 1/2*x'^2\npotential 1/2*x^2\ninitial x = 1\n";

/* what an observer sees at the steps: the largest |E - E_0| and kinetic energy */
typedef struct seen {
  const nh_model *m;
  double E0, dmax, Tmax;
  long n;
} seen;

static int observe(const nh_sim *s, nh_sample_kind kind, double t, const double *q, const double *v, void *user) {
  (void)s, (void)t;
  seen *o = user;
  double E;
  if (nh_model_energy(o->m, q, v, &E) != NH_OK) return 1;
  if (kind == NH_SAMPLE_START) o->E0 = E;
  if (fabs(E - o->E0) > o->dmax) o->dmax = fabs(E - o->E0);
  const double T = 0.5 * v[0] * v[0]; /* M = 1 */
  if (T > o->Tmax) o->Tmax = T;
  o->n++;
  return 0;
}

/* run m with method at step h to t_end; stats and message out; observed when o != NULL */
static int run(const nh_model *m, const char *method, double h, double t_end, seen *o, nh_sim_stats *st, char *msg,
               size_t size) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  if (!s) return -100;
  if (o) memset(o, 0, sizeof *o), o->m = m;
  int rc = nh_sim_run(s, t_end, 0, o ? observe : NULL, o);
  if (st) *st = *nh_sim_get_stats(s);
  if (msg) snprintf(msg, size, "%s", nh_sim_message(s));
  nh_sim_destroy(s);
  return rc;
}

/* rk2 (explicit midpoint) claims nothing; on the oscillator at h = 0.5 each step multiplies the
 * energy by 1 + h^4/4: 200 steps gain a factor 22. The run completes (every step, t = 100) and
 * ends with NH_DRIFT, the witness named; its drift and scale are those an observer measures
 * (the largest |E - E_0| over the largest kinetic energy, which exceeds |E_0| once the energy
 * has grown), the same bits unobserved (the fast loop) */
static int test_rk2_gains_energy(void) {
  nh_model *m = parse(osc_text);
  ENSURE(m);
  const double h = 0.5, growth = pow(1.0 + pow(h, 4) / 4.0, 200);
  nh_sim_stats st, su;
  seen o;
  char msg[256];
  ENSURE(run(m, "rk2", h, 100.0, &o, &st, msg, sizeof msg) == NH_DRIFT);
  printf("  rk2 h = 0.5: energy %.6g -> %.6g (x %.4g, closed form %.4g), drift %.4g of scale %.4g: %s\n",
         st.energy_initial, st.energy, st.energy / st.energy_initial, growth, st.max_energy_drift, st.energy_scale,
         msg);
  ENSURE(st.drift == NH_DRIFT_WITNESS && st.energy_witness == 1 && st.conserves == 0);
  ENSURE(st.conserved_quantity == NH_CONSERVED_NONE && st.steps == 200);
  ENSURE_REL(st.energy / st.energy_initial, growth, 1e-12);
  ENSURE(o.Tmax > 0.5 && st.energy_scale == o.Tmax); /* the kinetic energy, grown past |E_0| */
  ENSURE_REL(st.max_energy_drift, o.dmax / o.Tmax, 1e-14);
  ENSURE(st.max_energy_drift > NH_WITNESS_TOL && strstr(msg, "NH_WITNESS_TOL") && strstr(msg, "'rk2'"));
  // unobserved (the plain fast loop): the same verdict and the same bits
  ENSURE(run(m, "rk2", h, 100.0, NULL, &su, NULL, 0) == NH_DRIFT && su.drift == NH_DRIFT_WITNESS);
  ENSURE(su.max_energy_drift == st.max_energy_drift && su.energy_scale == st.energy_scale);
  // a short run of the same method stays inside the bound: the witness judges the energy, not
  // the method (10 steps: a factor 1.17, 0.146 of the kinetic energy reached)
  ENSURE(run(m, "rk2", h, 5.0, &o, &st, NULL, 0) == NH_OK && st.drift == NH_DRIFT_NONE);
  ENSURE_REL(st.energy / st.energy_initial, pow(1.0 + pow(h, 4) / 4.0, 10), 1e-12);
  ENSURE_REL(st.max_energy_drift, o.dmax / fmax(0.5, o.Tmax), 1e-14);
  nh_model_destroy(m);
  return 0;
}

/* a good run: rk4 at h = 0.01 loses the factor (1 - h^6/72 + h^8/576)^N of the energy, 1.4e-10
 * over 10^4 steps, far inside the bound: NH_OK. The scale is E_0 (the kinetic energy never
 * exceeds it) and the drift the closed form's, to the rounding the state gathers over the steps
 * (about 1e-16 sqrt(N) = 1e-14 of E, 1e-4 of the drift) */
static int test_good_run_ok(void) {
  nh_model *m = parse(osc_text);
  ENSURE(m);
  const double h = 0.01, lost = -expm1(10000.0 * log1p(-pow(h, 6) / 72.0 + pow(h, 8) / 576.0));
  nh_sim_stats st;
  ENSURE(run(m, "rk4", h, 100.0, NULL, &st, NULL, 0) == NH_OK);
  printf("  rk4 h = 0.01: drift %.6g (closed form %.6g) of scale %.17g\n", st.max_energy_drift, lost, st.energy_scale);
  ENSURE(st.drift == NH_DRIFT_NONE && st.energy_witness == 1 && st.energy_scale == 0.5);
  ENSURE_REL(st.max_energy_drift, lost, 1e-3);
  nh_model_destroy(m);
  return 0;
}

/* a model with forces is not judged: an anti-damping force 0.1 x' multiplies the energy by more
 * than 100 by t = 50 (e^(0.1 t) on average over a period), and the run is NH_OK (the energy is
 * not a first integral: nothing to witness) */
static int test_forces_not_judged(void) {
  static const char *const text = "model osc_forced\ncoordinates x\nkinetic 1/2*x'^2\npotential 1/2*x^2\n"
                                  "force x: 0.1*x'\ninitial x = 1\n";
  nh_model *m = parse(text);
  ENSURE(m);
  nh_sim_stats st;
  ENSURE(run(m, "rk4", 0.01, 50.0, NULL, &st, NULL, 0) == NH_OK);
  printf("  forced: energy %.4g -> %.4g, witness %d\n", st.energy_initial, st.energy, st.energy_witness);
  ENSURE(st.energy > 100.0 * st.energy_initial);
  ENSURE(st.energy_witness == 0 && st.energy_scale == 0.0 && st.max_energy_drift == 0.0 && st.drift == NH_DRIFT_NONE);
  // with rk2 at h = 0.5 as in test_rk2_gains_energy: not judged either
  ENSURE(run(m, "rk2", 0.5, 100.0, NULL, &st, NULL, 0) == NH_OK && st.energy_witness == 0);
  nh_model_destroy(m);
  return 0;
}

/* A potential's zero level is arbitrary: the pendulum V = -cos(th) released from the horizontal
 * has E_0 = -cos(pi/2) = -6e-17, so the energy error relative to E_0 is meaningless (above 1 for
 * rk4's 1e-12), while the witness's scale is the largest kinetic energy, 1 at the bottom (to the
 * sampling of the steps near it, O(h^2)): a good run is NH_OK, rk2 at h = 0.5 gains energy and
 * ends with NH_DRIFT */
static int test_zero_level(void) {
  static const char *const text =
      "model pendulum0\ncoordinates th\nkinetic 1/2*th'^2\npotential -cos(th)\ninitial th = pi/2\n";
  nh_model *m = parse(text);
  ENSURE(m);
  nh_sim_stats st;
  ENSURE(run(m, "rk4", 0.01, 20.0, NULL, &st, NULL, 0) == NH_OK);
  printf("  pendulum from the horizontal, rk4: E_0 = %.3g, error relative to |E_0| %.3g, witness %.3g of scale %.9g\n",
         st.energy_initial, st.max_energy_rel_error, st.max_energy_drift, st.energy_scale);
  ENSURE(fabs(st.energy_initial) < 1e-15 && st.max_energy_rel_error > 1.0);
  ENSURE_NEAR(st.energy_scale, 1.0, 1e-4);
  ENSURE(st.max_energy_drift < 1e-9 && st.drift == NH_DRIFT_NONE);
  char msg[256];
  ENSURE(run(m, "rk2", 0.5, 100.0, NULL, &st, msg, sizeof msg) == NH_DRIFT);
  printf("  pendulum, rk2 h = 0.5: energy %.3g -> %.3g, witness %.3g of scale %.4g\n", st.energy_initial, st.energy,
         st.max_energy_drift, st.energy_scale);
  ENSURE(st.drift == NH_DRIFT_WITNESS && st.max_energy_drift > NH_WITNESS_TOL);
  nh_model_destroy(m);
  return 0;
}

/* Impacts: their jumps are not the steps' doing. The oscillator against a wall at x = -1/2 with
 * restitution 1/2 loses most of its energy at its impacts, and rk4's run is NH_OK with the drift
 * of its steps alone: the energy less the jumps of the impact log, E_end - E_0 - sum (E_after -
 * E_before), is within the largest drift. With an elastic wall, rk2 at h = 0.2 gains 0.04 % a step
 * and about 1 % between impacts, inside any per-segment bound, but the witness adds the
 * segments up: past NH_WITNESS_TOL by t = 400 */
static int test_impacts(void) {
  static const char *const text_e =
      "model osc_wall\ncoordinates x\nkinetic 1/2*x'^2\npotential 1/2*x^2\ngap wall: x + 0.5 impact restitution 0.5\n"
      "initial x = 1\n";
  static const char *const text_el =
      "model osc_wall\ncoordinates x\nkinetic 1/2*x'^2\npotential 1/2*x^2\ngap wall: x + 0.5\ninitial x = 1\n";
  for (int k = 0; k < 2; k++) {
    nh_model *m = parse(k ? text_el : text_e);
    ENSURE(m);
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(k ? "rk2" : "rk4");
    d.h = k ? 0.2 : 1e-3;
    nh_sim *s = nh_sim_create(m, &d, NULL, 0);
    ENSURE(s);
    const int rc = nh_sim_run(s, k ? 400.0 : 20.0, 0, NULL, NULL);
    const nh_sim_stats *st = nh_sim_get_stats(s);
    double jumps = 0.0;
    for (long i = 0; i < nh_sim_impact_count(s); i++) {
      nh_impact_record r;
      ENSURE(nh_sim_impact_get(s, i, &r) == NH_OK);
      jumps += r.energy_after - r.energy_before;
    }
    const double D = st->energy - st->energy_initial - jumps;
    printf("  wall (%s): %ld impacts, energy %.6g -> %.6g, jumps %.6g, steps' drift at the end %.3g, largest %.3g "
           "(scale %.4g), largest between impacts %.3g: %s\n",
           k ? "elastic, rk2 h = 0.2" : "e = 1/2, rk4", st->impacts, st->energy_initial, st->energy, jumps,
           fabs(D) / st->energy_scale, st->max_energy_drift, st->energy_scale, st->max_energy_rel_error,
           nh_status_name(rc));
    ENSURE(st->impacts >= 3 && st->energy_witness == 1);
    ENSURE(fabs(D) / st->energy_scale <= st->max_energy_drift * (1.0 + 1e-12));
    if (k == 0) {
      ENSURE(rc == NH_OK && st->energy < 0.5 * st->energy_initial && st->max_energy_drift < 1e-8);
    } else {
      ENSURE(rc == NH_DRIFT && st->drift == NH_DRIFT_WITNESS);
      ENSURE(st->max_energy_rel_error < 0.1 * NH_WITNESS_TOL && st->max_energy_drift > NH_WITNESS_TOL);
    }
    nh_sim_destroy(s);
    nh_model_destroy(m);
  }
  return 0;
}

/* The almost-Poisson form: H = (x^2 + p^2)/2 with Pi = [[0, 1], [-1, 0]] is the oscillator; rk2
 * multiplies H by the same 1 + h^4/4 a step, judged against |H_0| (no kinetic part):
 * NH_DRIFT; gonzalez conserves H (conserved_quantity energy): NH_OK */
static int test_almost_poisson(void) {
  static const char *const text =
      "model osc_ap\nstate x p\nhamiltonian 1/2*(x^2 + p^2)\npoisson x p: 1\ninitial x = 1\n";
  nh_model *m = parse(text);
  ENSURE(m);
  const double h = 0.5, growth = pow(1.0 + pow(h, 4) / 4.0, 200);
  nh_sim_stats st;
  ENSURE(run(m, "rk2", h, 100.0, NULL, &st, NULL, 0) == NH_DRIFT);
  ENSURE(st.drift == NH_DRIFT_WITNESS && st.energy_witness == 1 && st.energy_scale == 0.5);
  ENSURE_REL(st.max_energy_drift, growth - 1.0, 1e-11);
  const double rk2 = st.max_energy_drift;
  ENSURE(run(m, "gonzalez", h, 100.0, NULL, &st, NULL, 0) == NH_OK);
  printf("  almost-Poisson: rk2 drift %.6g (closed form %.6g); gonzalez %s, drift %.3g\n", rk2, growth - 1.0,
         nh_conserved_name(st.conserved_quantity), st.max_energy_drift);
  ENSURE(st.conserved_quantity == NH_CONSERVED_ENERGY && st.conserves == 1 && st.max_energy_drift < 1e-12);
  nh_model_destroy(m);
  return 0;
}

/* a generic ODE-form model x' = x with an energy E = x^2 (a monitor: not a first integral) */
static int ode_rhs(double t, const double *x, double *f, void *u) {
  (void)t, (void)u;
  f[0] = x[0];
  return 0;
}
static int ode_energy(double t, const double *x, double *E, void *u) {
  (void)t, (void)u;
  *E = x[0] * x[0];
  return 0;
}

static int test_ode_form_not_judged(void) {
  nh_model_def d = nh_model_def_default();
  const double x0 = 1.0;
  d.name = "growth";
  d.form = NH_FORM_ODE;
  d.nx = 1;
  d.x0 = &x0;
  d.rhs = ode_rhs;
  d.energy = ode_energy;
  nh_model *m = nh_model_create(&d, NULL, 0);
  ENSURE(m);
  nh_sim_stats st;
  ENSURE(run(m, "rk4", 0.01, 5.0, NULL, &st, NULL, 0) == NH_OK);
  ENSURE(st.energy > 1e4 && st.energy_witness == 0 && st.max_energy_drift == 0.0 && st.drift == NH_DRIFT_NONE);
  nh_model_destroy(m);
  return 0;
}

/* What a method conserves on a model, one decision (sim.c): gni on the sleigh (V = 0, constant M)
 * the (nodal) energy in its symmetric variant, on a sleigh with a potential nothing; a discrete gradient the energy with
 * a potential too; rattle with M(q) nothing; rk4 nothing anywhere. Runs in several calls keep one
 * witness (the statistics since the last nh_sim_set_state), bit for bit; gni's kernel over runs
 * of steps (the fast loop, its largest |E - E_seg| only) gives the observed loop's drift. */
static int test_conserved_quantity(void) {
  static const char *const sleigh =
      "model sl\ncoordinates theta x y\nkinetic 1/2*theta'^2 + 1/2*(x'^2 + y'^2)\n"
      "constraint skate: theta' + sin(theta)*x' - cos(theta)*y' = 0\n"
      "initial theta' = 1, x' = -1, y' = 1\n";
  static const char *const pot = "model slp\ncoordinates theta x y\nkinetic 1/2*theta'^2 + 1/2*(x'^2 + y'^2)\n"
                                 "potential 1/2*x^2\nconstraint skate: theta' + sin(theta)*x' - cos(theta)*y' = 0\n"
                                 "initial theta' = 1, x' = -1, y' = 1\n";
  static const char *const mq = "model slq\ncoordinates theta x y\nkinetic 1/2*(2 + cos(theta))*theta'^2 + "
                                "1/2*(x'^2 + y'^2)\nconstraint skate: theta' + sin(theta)*x' - cos(theta)*y' = 0\n"
                                "initial theta' = 1, x' = -1, y' = 1\n";
  const char *texts[3] = {sleigh, pot, mq};
  struct {
    int model;
    const char *method;
    int conserved;
  } cases[] = {{0, "gni", NH_CONSERVED_ENERGY} /* the symmetric variant: the nodal energy */, {0, "rattle", NH_CONSERVED_ENERGY},
               {0, "rk4", NH_CONSERVED_NONE},            {1, "gni", NH_CONSERVED_NONE},
               {1, "gonzalez-r", NH_CONSERVED_ENERGY},   {2, "rattle", NH_CONSERVED_NONE},
               {2, "shake", NH_CONSERVED_NONE},          {2, "gonzalez-r", NH_CONSERVED_ENERGY}};
  nh_model *m[3];
  for (int i = 0; i < 3; i++) ENSURE((m[i] = parse(texts[i])));
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    nh_sim_stats st;
    const int rc = run(m[cases[c].model], cases[c].method, 0.01, 2.0, NULL, &st, NULL, 0);
    ENSURE(rc == NH_OK && st.conserved_quantity == cases[c].conserved && st.energy_witness == 1);
    ENSURE(st.conserves == (cases[c].conserved != NH_CONSERVED_NONE));
    if (cases[c].conserved == NH_CONSERVED_NONE) /* the conserved fields mirror the energy */
      ENSURE(st.conserved == st.energy && st.max_conserved_rel_error == st.max_energy_rel_error);
  }
  // one witness over several calls; the fast loop's (gni's kernel) and the observed loop's agree
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("gni");
  d.h = 0.05;
  nh_sim *a = nh_sim_create(m[0], &d, NULL, 0), *b = nh_sim_create(m[0], &d, NULL, 0);
  seen o = {m[0], 0, 0, 0, 0};
  ENSURE(a && b && nh_sim_run(a, 4.0, 0, NULL, NULL) == NH_OK && nh_sim_run(a, 8.0, 0, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_run(b, 8.0, 0, observe, &o) == NH_OK);
  const nh_sim_stats *sa = nh_sim_get_stats(a), *sb = nh_sim_get_stats(b);
  printf("  gni on the sleigh to t = 8 in two calls: drift %.17g, observed in one %.17g (observer %.17g)\n",
         sa->max_energy_drift, sb->max_energy_drift, o.dmax / sb->energy_scale);
  ENSURE(sa->max_energy_drift == sb->max_energy_drift && sa->energy_scale == sb->energy_scale);
  ENSURE(sb->energy_scale == sb->energy_initial && sb->max_energy_drift == o.dmax / sb->energy_scale);
  nh_sim_destroy(a);
  nh_sim_destroy(b);
  for (int i = 0; i < 3; i++) nh_model_destroy(m[i]);
  return 0;
}

/* the summary names what the method conserves on this model, and only that, and the witness
 * (the text written, malloc'd; NULL on failure) */
#define OUT_MAX 20000
static char *summary_of(const nh_sim *s, const char *method, int status, int json) {
  FILE *f = tmpfile();
  char *buf = malloc(OUT_MAX);
  if (!f || !buf) {
    if (f) fclose(f);
    free(buf);
    return NULL;
  }
  const nh_sim *ph[1] = {s};
  nh_summary sum = {ph, 1, NULL, method, status, 0.0, NH_SUMMARY_MECHANICAL, NULL, NULL, NULL};
  int rc = json ? nh_summary_write_json(f, &sum) : nh_summary_write_text(f, &sum);
  rewind(f);
  size_t n = fread(buf, 1, OUT_MAX - 1, f);
  buf[n] = 0;
  fclose(f);
  if (rc != NH_OK) free(buf), buf = NULL;
  return buf;
}

static int test_summary(void) {
  nh_model *m = parse(osc_text);
  nh_model *sl = parse("model sl\ncoordinates theta x y\nkinetic 1/2*theta'^2 + 1/2*(x'^2 + y'^2)\n"
                       "constraint skate: theta' + sin(theta)*x' - cos(theta)*y' = 0\n"
                       "initial theta' = 1, x' = -1, y' = 1\n");
  ENSURE(m && sl);
  const char *method[2] = {"rk2", "gni"};
  const nh_model *model[2] = {m, sl};
  for (int k = 0; k < 2; k++) {
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(method[k]);
    d.h = k ? 0.01 : 0.5;
    nh_sim *s = nh_sim_create(model[k], &d, NULL, 0);
    ENSURE(s);
    const int rc = nh_sim_run(s, k ? 2.0 : 100.0, 0, NULL, NULL);
    ENSURE(rc == (k ? NH_OK : NH_DRIFT));
    char *j = summary_of(s, method[k], rc, 1), *t = summary_of(s, method[k], rc, 0);
    ENSURE(j && t);
    if (k == 0) {
      ENSURE(strstr(j, "\"conserved_quantity\": \"none\"") && !strstr(j, "\"conserved_initial\"") &&
             !strstr(j, "\"max_conserved_rel_error\""));
      ENSURE(strstr(j, "\"energy_witness\": true, \"energy_scale\": ") && strstr(j, "\"drift\": \"witness\""));
      ENSURE(strstr(j, "\"status\": \"NH_DRIFT\"") && strstr(j, "\"witness_tol\": 0.20000000000000001"));
      ENSURE(!strstr(t, "conserved by") && !strstr(t, "drift 9") && strstr(t, "energy witness: the steps changed"));
      ENSURE(strstr(t, "status: NH_DRIFT: method 'rk2' left its regime: its steps changed the energy by"));
    } else {
      ENSURE(strstr(j, "\"conserved_quantity\": \"energy\", \"conserved_initial\": ") &&
             strstr(j, "\"drift\": \"none\""));
      ENSURE(strstr(t, "conserved by gni: energy, max relative drift ") && strstr(t, "energy witness: "));
    }
    free(j);
    free(t);
    nh_sim_destroy(s);
  }
  nh_model_destroy(m);
  nh_model_destroy(sl);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_rk2_gains_energy);
  RUN_TEST(test_good_run_ok);
  RUN_TEST(test_forces_not_judged);
  RUN_TEST(test_zero_level);
  RUN_TEST(test_impacts);
  RUN_TEST(test_almost_poisson);
  RUN_TEST(test_ode_form_not_judged);
  RUN_TEST(test_conserved_quantity);
  RUN_TEST(test_summary);
  return TEST_SUMMARY();
}
