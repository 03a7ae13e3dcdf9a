/* test_matrix.c - which method runs which kind of model (nh_method_kind_support, the table of
 * `nholo list`): every allowed cell runs its kind's example a few steps (with every impact
 * law on the kinds with walls) to NH_OK and finite values; every refusal names its reason and
 * exactly the methods that can run the example; the built-in models and the examples agree
 * with the verdicts of their kinds; the examples' closed-form flows are their dynamics. */
#include <stdlib.h>

#include "harness.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

/* the runs: step, end time (every mechanical example meets its wall before it) */
#define RUN_H 0.01
#define RUN_T_END 2.0
/* an example's flow against dopri5 at tight tolerances, absolute */
#define FLOW_TOL 1e-8

static const char *examples_dir;

/* The reason each refusal must give. A row with kind NULL applies to every kind (every
 * mechanical kind when not everywhere); a mechanical method refuses every ODE form with the
 * shared reason below. A refusal without a row fails (a new method adds its rows). */
static const struct {
  const char *method, *kind;
  int everywhere; /* also on the ODE forms */
  const char *reason;
} reasons[] = {
    {"exact", NULL, 1, "it needs the model's closed-form flow, which this model does not provide"},
    {"rkmk4", NULL, 1, "it needs a first-order model with a rotation part (nh_model_def.angvel and a quaternion)"},
    {"del", NULL, 0, "with constraints it needs at most 64 coordinates and constraints together (its dense Newton matrix)"},
    {"rdp", NULL, 0, "it needs an SE(2)-invariant model (a 'group se2' statement;"},
    {"avf", NULL, 1, "the discrete gradients need an almost-Poisson model (a 'hamiltonian' and 'Pi' entries) or a conservative mechanical one (no generalized force) with fewer constraints than coordinates"},
    {"gonzalez", NULL, 1, "the discrete gradients need an almost-Poisson model (a 'hamiltonian' and 'Pi' entries) or a conservative mechanical one (no generalized force) with fewer constraints than coordinates"},
    {"itoh-abe", NULL, 1, "the discrete gradients need an almost-Poisson model (a 'hamiltonian' and 'Pi' entries) or a conservative mechanical one (no generalized force) with fewer constraints than coordinates"},
    {"gonzalez-r", NULL, 0, "it needs a conservative model (no generalized force) with fewer constraints than coordinates"},
    {"gonzalez-r-fd", NULL, 0, "it needs a conservative model (no generalized force) with fewer constraints than coordinates"},
    {"gonzalez-f", NULL, 0, "it needs a conservative model with at least one constraint"},
    {"si-dla", NULL, 0, "it needs a conservative model (no generalized force) with at least one constraint"},
    {"i-dla", NULL, 0, "it needs a conservative model (no generalized force) with at least one constraint"},
    {"spark", NULL, 0, "it needs a conservative mechanical model (no generalized force) with at least one constraint"},
};
static const char *ode_reason = "it needs a mechanical model (coordinates and a kinetic energy), not a first-order one";
static const char *const mechanical_methods[] = {"gni", "rattle", "shake", "del", "rdp", "gonzalez-r",
                                                 "gonzalez-r-fd", "gonzalez-f", "si-dla", "i-dla", "spark"};

static const char *expected_reason(const char *method, const char *kind, int ode) {
  for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
    if (strcmp(reasons[i].method, method) == 0 && (!reasons[i].kind || strcmp(reasons[i].kind, kind) == 0) &&
        (!ode || reasons[i].everywhere))
      return reasons[i].reason;
  for (size_t i = 0; ode && i < sizeof mechanical_methods / sizeof mechanical_methods[0]; i++)
    if (strcmp(mechanical_methods[i], method) == 0) return ode_reason;
  return NULL;
}

static int all_finite(int n, const double *x) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* run the model with the method to RUN_T_END: NH_OK, a finite state, and an impact when the
 * model has a wall */
static int run_ok(const nh_method *meth, const nh_model *m, const char *what) {
  char msg[512];
  nh_sim_def d = nh_sim_def_default();
  d.method = meth;
  d.h = (nh_method_flags(meth) & NH_METHOD_ADAPTIVE) ? 0.0 : RUN_H;
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  if (!s) {
    printf("  %s: %s on %s: %s\n", what, nh_method_name(meth), m->name, msg);
    return 1;
  }
  int rc = nh_sim_run(s, RUN_T_END, 0, NULL, NULL);
  const nh_sim_stats *st = nh_sim_get_stats(s);
  int bad = rc != NH_OK || !all_finite(m->nx, nh_sim_x(s)) || nh_sim_time(s) != RUN_T_END ||
            (m->ngap > 0 && st->impacts < 1);
  if (bad)
    printf("  %s: %s on %s: status %s, t = %g, %ld impacts: %s\n", what, nh_method_name(meth), m->name,
           nh_status_name(rc), nh_sim_time(s), st->impacts, nh_sim_message(s));
  nh_sim_destroy(s);
  return bad;
}

/* every law on a kind with walls, none on the others */
static int run_laws(const nh_method *meth, nh_model_kind kind, unsigned variant) {
  const nh_impact_law laws[3] = {{NH_IMPACT_ELASTIC, 1.0}, {NH_IMPACT_PLASTIC, 1.0}, {NH_IMPACT_RESTITUTION, 0.5}};
  const int nlaw = nh_model_kind_has_gaps(kind) ? 3 : 1;
  char msg[512];
  for (int l = 0; l < nlaw; l++) {
    nh_model *m = nh_model_kind_example(kind, variant, &laws[l], msg, sizeof msg);
    ENSURE(m != NULL);
    int bad = run_ok(meth, m, nh_model_kind_name(kind));
    nh_model_destroy(m);
    ENSURE(!bad);
  }
  return 0;
}

/* msg is nh_method_check's refusal of the method on the kind's example (variant): its model,
 * the expected reason, and exactly the methods that run that example */
static int check_refusal(const nh_method *meth, nh_model_kind kind, unsigned variant, const char *msg) {
  const char *kn = nh_model_kind_name(kind), *reason = expected_reason(nh_method_name(meth), kn, !nh_model_kind_has_gaps(kind));
  char want[1024], fits[512] = "", m2[1024];
  nh_model *m = nh_model_kind_example(kind, variant, NULL, m2, sizeof m2);
  ENSURE(m != NULL);
  for (int i = 0; i < nh_method_count(); i++)
    if (nh_method_supports(nh_method_at(i), m) == NH_OK)
      snprintf(fits + strlen(fits), sizeof fits - strlen(fits), "%s%s", fits[0] ? ", " : "", nh_method_name(nh_method_at(i)));
  ENSURE(nh_method_check(meth, m, m2, sizeof m2) == NH_ERR_UNSUPPORTED);
  nh_model_destroy(m);
  if (!reason) {
    printf("  no expected reason for %s on %s (add a row to reasons[]): %s\n", nh_method_name(meth), kn, msg);
    return 1;
  }
  snprintf(want, sizeof want, "method '%s' cannot run model '%s%s': ", nh_method_name(meth), kn,
           variant == NH_KIND_FORCE ? "+force" : "");
  ENSURE(strncmp(msg, want, strlen(want)) == 0);
  ENSURE(strstr(msg, reason) == msg + strlen(want));
  snprintf(want, sizeof want, "; methods that can: %s", fits);
  ENSURE(strlen(msg) > strlen(want) && strcmp(msg + strlen(msg) - strlen(want), want) == 0);
  ENSURE(strcmp(msg, m2) == 0);
  ENSURE(fits[0] != '\0'); /* every kind has a method */
  return 0;
}

/* every cell: run what is allowed, check what is refused */
static int test_every_cell(void) {
  int cells = 0, runs = 0, refusals = 0;
  for (int i = 0; i < nh_method_count(); i++)
    for (int k = 0; k < NH_KIND_COUNT; k++) {
      const nh_method *meth = nh_method_at(i);
      const nh_model_kind kind = (nh_model_kind)k;
      char msg[1024];
      const int rc = nh_method_kind_support(meth, kind, msg, sizeof msg);
      cells++;
      if (rc == NH_OK) {
        ENSURE(msg[0] == '\0');
        ENSURE(!run_laws(meth, kind, 0));
        if (nh_model_kind_has_gaps(kind)) ENSURE(!run_laws(meth, kind, NH_KIND_FORCE));
        runs++;
      } else if (rc == NH_KIND_NO_FORCE) {
        ENSURE(!run_laws(meth, kind, 0));
        ENSURE(!check_refusal(meth, kind, NH_KIND_FORCE, msg));
        runs++, refusals++;
      } else if (rc == NH_KIND_NEEDS_FLOW) {
        ENSURE(!run_laws(meth, kind, NH_KIND_FLOW));
        ENSURE(!check_refusal(meth, kind, 0, msg));
        runs++, refusals++;
      } else {
        if (rc != NH_ERR_UNSUPPORTED) printf("  %s on %s: %s (%s)\n", nh_method_name(meth), nh_model_kind_name(kind), nh_status_name(rc), msg);
        ENSURE(rc == NH_ERR_UNSUPPORTED);
        ENSURE(!check_refusal(meth, kind, 0, msg));
        refusals++;
      }
    }
  printf("  %d cells: %d run, %d refusals checked\n", cells, runs, refusals);
  ENSURE(cells == nh_method_count() * NH_KIND_COUNT);
  ENSURE(runs > 0 && refusals > 0);
  return 0;
}

/* the names, titles and bad arguments */
static int test_kind_api(void) {
  char msg[256];
  ENSURE(strcmp(nh_model_kind_name(NH_KIND_MASS_Q), "q-mass") == 0);
  ENSURE(strcmp(nh_model_kind_name(NH_KIND_COUNT), "") == 0 && strcmp(nh_model_kind_title((nh_model_kind)-1), "") == 0);
  ENSURE(nh_model_kind_has_gaps(NH_KIND_SE2) == 1 && nh_model_kind_has_gaps(NH_KIND_ROTATION) == 0);
  ENSURE(nh_model_kind_example(NH_KIND_ODE, NH_KIND_FLOW, NULL, msg, sizeof msg) == NULL);
  ENSURE(strstr(msg, "no example of model kind 6 with variant 1") == msg);
  ENSURE(nh_model_kind_example(NH_KIND_LAGRANGIAN, NH_KIND_FLOW | NH_KIND_FORCE, NULL, msg, sizeof msg) == NULL);
  ENSURE(nh_method_kind_support(NULL, NH_KIND_ODE, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(nh_method_kind_support(nh_method_find("rk4"), NH_KIND_COUNT, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(strcmp(msg, "no method, or no model kind 7") == 0);
  // a refusal's message, in full
  ENSURE(nh_method_kind_support(nh_method_find("rattle"), NH_KIND_MASS_Q, msg, sizeof msg) == NH_OK && msg[0] == '\0');
  ENSURE(nh_method_kind_support(nh_method_find("si-dla"), NH_KIND_MASS_Q, msg, sizeof msg) == NH_KIND_NO_FORCE);
  ENSURE(strstr(msg, "method 'si-dla' cannot run model 'q-mass+force': it needs a conservative model (no generalized "
                     "force) with at least one constraint; methods that can: rk4, dopri5, dop853, rk2, gni, ") == msg);
  return 0;
}

/* the examples' flows are their dynamics: exact against dopri5 at tight tolerances, without
 * a wall in the way (t = 0.4) */
static int test_example_flows(void) {
  const nh_model_kind mech[] = {NH_KIND_LAGRANGIAN, NH_KIND_CONSTRAINED, NH_KIND_MASS_Q, NH_KIND_SE2};
  char msg[512];
  for (size_t k = 0; k < sizeof mech / sizeof mech[0]; k++) {
    nh_model *m = nh_model_kind_example(mech[k], NH_KIND_FLOW, NULL, msg, sizeof msg);
    ENSURE(m != NULL);
    double x[2][6];
    for (int j = 0; j < 2; j++) {
      nh_sim_def d = nh_sim_def_default();
      d.method = nh_method_find(j ? "dopri5" : "exact");
      d.rtol = 1e-12, d.atol = 1e-13, d.h = j ? 0.0 : 0.4;
      nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
      ENSURE(s != NULL);
      ENSURE(nh_sim_run(s, 0.4, 0, NULL, NULL) == NH_OK);
      memcpy(x[j], nh_sim_x(s), sizeof(double) * (size_t)m->nx);
      nh_sim_destroy(s);
    }
    for (int i = 0; i < m->nx; i++) ENSURE_NEAR(x[0][i], x[1][i], FLOW_TOL);
    nh_model_destroy(m);
  }
  return 0;
}

/* the kind a real model is, or -1 (a q-dependent M without constraints is none of them) */
static int kind_of(const nh_model *m) {
  if (m->form == NH_FORM_ODE) return m->poisson ? NH_KIND_POISSON : m->angvel ? NH_KIND_ROTATION : NH_KIND_ODE;
  if (m->has_se2) return NH_KIND_SE2;
  if (m->nc == 0) return m->coriolis ? -1 : NH_KIND_LAGRANGIAN;
  return m->coriolis ? NH_KIND_MASS_Q : NH_KIND_CONSTRAINED;
}

/* a real model: every method runs it exactly when the verdict on its kind says so */
static int agrees(const nh_model *m, int *seen) {
  const int kind = kind_of(m);
  ENSURE(kind >= 0);
  seen[kind]++;
  for (int i = 0; i < nh_method_count(); i++) {
    char msg[1024];
    const nh_method *meth = nh_method_at(i);
    const int v = nh_method_kind_support(meth, (nh_model_kind)kind, msg, sizeof msg);
    const int want = v == NH_OK || (v == NH_KIND_NO_FORCE && !m->force) || (v == NH_KIND_NEEDS_FLOW && m->flow);
    const int got = nh_method_check(meth, m, msg, sizeof msg) == NH_OK;
    if (want != got)
      printf("  %s on %s (kind %s): the matrix says %d, the method %d: %s\n", nh_method_name(meth), m->name,
             nh_model_kind_name((nh_model_kind)kind), want, got, msg);
    ENSURE(want == got);
  }
  return 0;
}

static int test_real_models_agree(void) {
  int seen[NH_KIND_COUNT] = {0};
  char msg[1024], path[1024];
  for (int i = 0; i < nh_builtin_count(); i++) {
    nh_model *m = nh_builtin_create(nh_builtin_at(i)->name, msg, sizeof msg);
    if (!m) continue; /* built by the front end (no default constructor) */
    int bad = agrees(m, seen);
    nh_model_destroy(m);
    ENSURE(!bad);
  }
  // the rolling ball (ODE form with its rotation part) and the rolling disk (ODE form)
  const nh_ball_params bp[2] = {nh_ball_params_ball_example(), nh_ball_params_disk_example()};
  for (int j = 0; j < 2; j++) {
    nh_model *ball = j ? nh_disk_create(&bp[j], msg, sizeof msg) : nh_ball_create(&bp[j], msg, sizeof msg);
    ENSURE(ball != NULL);
    int bad = agrees(ball, seen);
    nh_model_destroy(ball);
    ENSURE(!bad);
  }
  const char *files[] = {"pendulum_wall.nh", "knife_edge.nh", "chaplygin_sleigh.nh", "snakeboard.nh", "penny.nh",
                         "suslov.nh", "sleigh_dg.nh", "quartic1.nh", "sleigh_ap_wall.nh"};
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    snprintf(path, sizeof path, "%s/%s", examples_dir, files[f]);
    nh_model *m = nh_model_load(path, &lo, msg, sizeof msg);
    if (!m) printf("  %s\n", msg);
    ENSURE(m != NULL);
    int bad = agrees(m, seen);
    nh_model_destroy(m);
    ENSURE(!bad);
  }
  // every kind has a real model
  for (int k = 0; k < NH_KIND_COUNT; k++) {
    if (!seen[k]) printf("  no real model of kind %s\n", nh_model_kind_name((nh_model_kind)k));
    ENSURE(seen[k] > 0);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_matrix EXAMPLES_DIR [FILTER]\n");
    return 2;
  }
  examples_dir = argv[1];
  TEST_INIT(argc - 1, argv + 1);
  RUN_TEST(test_kind_api);
  RUN_TEST(test_example_flows);
  RUN_TEST(test_every_cell);
  RUN_TEST(test_real_models_agree);
  return TEST_SUMMARY();
}
