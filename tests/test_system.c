/* test_system.c - the systems interface (nholo/systems.h) and what a system records of its run
 * (nholo/io.h): which class a MODEL argument opens as, the options a class takes, the errors of
 * a build, and the rolling ball's run as a chain of the common driver: built by its system and
 * run with nh_chain_run, it is the run of nh_ball_run and nh_ball_run_flight to the bit; the
 * built-ins' parameters by name (nh_builtin_params), as nh_builtin_load and an ensemble use them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

#define EX(name) NHOLO_SOURCE_DIR "/examples/" name
/* the reference runs' tolerance (the ball's default) */
#define BALL_TOL 1e-12

/* a system's build with the default load options and one own option (name NULL: none) */
static int build(nh_system *s, const char *opt, int keyword, const char *const *set, const double *val, int nset,
                 nh_system_run *run, char *msg, size_t size) {
  nh_load_opts lo = nh_load_opts_default();
  lo.nset = nset, lo.set_names = set, lo.set_values = val;
  if (opt) {
    const int k = nh_system_option_find(s, opt);
    if (k < 0 || s->cls->option(s->user, k, keyword, 0.0) != NH_OK) return NH_ERR_ARG;
  }
  return nh_system_build(s, &lo, NULL, run, msg, size);
}

static nh_sim *sim_of(const nh_model *m) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("dopri5");
  d.rtol = d.atol = BALL_TOL;
  d.out_dt = 1e-3;
  return nh_sim_create(m, &d, NULL, 0);
}

/* ---- classes ------------------------------------------------------------------------------ */

static int test_classes(void) {
  const char *balls[] = {"rolling-ball", "rolling-disk", "rolling-ball-detach", EX("rolling-ball.nh"), "w.ball"};
  nh_system *ball = nh_system_open("rolling-ball");
  ENSURE(ball && ball->cls->options && ball->cls->noptions > 0 && ball->cls->methods);
  for (int i = 0; i < 5; i++) { /* the three built-ins and the body files: one class */
    nh_system *s = nh_system_open(balls[i]);
    ENSURE(s && s->cls == ball->cls && strcmp(s->model, balls[i]) == 0);
    nh_system_close(s);
  }
  // the ball's own options are its own; the common ones it takes are listed for the help
  const nh_system_option *o = ball->cls->options;
  const int form = nh_system_option_find(ball, "--form"), t_end = nh_system_option_find(ball, "--t-end");
  ENSURE(form >= 0 && o[form].kind == NH_SYSOPT_KEYWORD && t_end >= 0 && o[t_end].kind == NH_SYSOPT_COMMON);
  ENSURE(nh_system_option_find(ball, "--impacts") < 0 && nh_system_option_find(ball, "--table") < 0);
  const nh_system_outputs *bo = nh_system_outputs_find(ball);
  ENSURE(bo && bo->grid > 0.0 && bo->size > 0 && bo->open && bo->observe && bo->commit && bo->summary && bo->plot);
  // the penny: a built-in with its plan view; another built-in and a model file: nothing of their own
  nh_system *penny = nh_system_open("penny"), *sleigh = nh_system_open("sleigh"), *file = nh_system_open(EX("penny.nh"));
  ENSURE(penny && sleigh && file && penny->cls != sleigh->cls && file->cls != sleigh->cls && penny->cls != ball->cls);
  ENSURE(!penny->cls->options && !sleigh->cls->options && !file->cls->options);
  const nh_system_outputs *po = nh_system_outputs_find(penny);
  ENSURE(po && po->plot && po->size == 0 && !po->summary);
  ENSURE(!nh_system_outputs_find(sleigh) && !nh_system_outputs_find(file));
  nh_system *none = nh_system_open(NULL);
  ENSURE(none && !none->cls->options && nh_system_option_find(none, "--form") < 0);
  nh_system_close(none), nh_system_close(file), nh_system_close(sleigh), nh_system_close(penny);
  nh_system_close(ball);
  return 0;
}

/* ---- builds that fail: one message, nothing left -------------------------------------------- */

static int test_build_errors(void) {
  char msg[1024];
  nh_system_run run;
  const char *zz[] = {"zz"};
  const double one[] = {1.0};
  struct {
    const char *model, *opt;
    int keyword;
    int nset;
    const char *says;
  } cases[] = {
      {"nosuch", NULL, 0, 0, "unknown model 'nosuch'"},
      {"rolling-ball", NULL, 0, 1, "'zz'"},
      {"rolling-disk", "--form", 1, 0, "no DAE form"},
      {"rolling-disk", "--on-detach", 2, 0, "no free-flight model"},
      {NHOLO_SOURCE_DIR "/no/such.nh", NULL, 0, 0, "cannot read"},
      {NHOLO_SOURCE_DIR "/no/such.ball", NULL, 0, 0, "cannot open"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nh_system *s = nh_system_open(cases[i].model);
    ENSURE(s);
    msg[0] = '\0';
    const int rc = build(s, cases[i].opt, cases[i].keyword, zz, one, cases[i].nset, &run, msg, sizeof msg);
    if (rc != NH_ERR_ARG || !strstr(msg, cases[i].says) || run.nphases != 0 || run.models[0])
      printf("  %s: %d '%s'\n", cases[i].model, rc, msg);
    ENSURE(rc == NH_ERR_ARG && strstr(msg, cases[i].says) && run.nphases == 0 && !run.models[0]);
    nh_system_close(s);
  }
  // a table for a model file; a faulty model file's diagnostic
  nh_system *s = nh_system_open(EX("penny.nh"));
  nh_load_opts lo = nh_load_opts_default();
  ENSURE(nh_system_build(s, &lo, "circle", &run, msg, sizeof msg) == NH_ERR_ARG && strstr(msg, "--table"));
  nh_system_close(s);
  s = nh_system_open(NHOLO_SOURCE_DIR "/tests/modelfiles/bad/06-duplicate-coordinate.nh");
  ENSURE(nh_system_build(s, &lo, NULL, &run, msg, sizeof msg) == NH_ERR_PARSE && strstr(msg, ": error: "));
  nh_system_close(s);
  return 0;
}

/* ---- the ball's run through the common driver ------------------------------------------------ */

/* rolling alone: one phase landing on the input's kinks, as nh_ball_run */
static int test_ball_rolling(void) {
  char msg[1024];
  nh_system *s = nh_system_open("rolling-ball"), *t = nh_system_open("rolling-ball");
  nh_system_run run, ref;
  ENSURE(build(s, NULL, 0, NULL, NULL, 0, &run, msg, sizeof msg) == NH_OK);
  ENSURE(build(t, NULL, 0, NULL, NULL, 0, &ref, msg, sizeof msg) == NH_OK);
  ENSURE(run.nphases == 1 && !run.reset && strcmp(run.phase_names[0], "rolling") == 0);
  ENSURE(run.nbreaks == 2 && run.breaks[0] == 0.1 && run.breaks[1] == 0.2);
  nh_sim *sims[1] = {sim_of(run.models[0])}, *r = sim_of(ref.models[0]);
  ENSURE(sims[0] && r);
  nh_chain c = {sims, 1, run.breaks, run.nbreaks, 0, run.max_switches, run.reset, run.reset_user};
  int last = -1;
  const int rc = nh_chain_run(&c, 0, 2.0, NULL, NULL, &last), rr = nh_ball_run(r, 2.0, NULL, NULL);
  ENSURE(rc == NH_OK && rr == NH_OK && last == 0 && nh_sim_time(sims[0]) == 2.0);
  ENSURE(memcmp(nh_sim_x(sims[0]), nh_sim_x(r), sizeof(double) * (size_t)run.models[0]->nx) == 0);
  ENSURE(nh_sim_get_stats(sims[0])->steps == nh_sim_get_stats(r)->steps);
  nh_sim_destroy(sims[0]), nh_sim_destroy(r);
  nh_system_run_free(&run), nh_system_run_free(&ref);
  ENSURE(run.nphases == 0 && !run.models[0]);
  nh_system_close(s), nh_system_close(t);
  return 0;
}

/* --on-detach fly: rolling, then flight after the lift-off, as nh_ball_run_flight: the hopping
 * ball lifts off and touches down, the paper's detaching ball does not lift off */
static int test_ball_flight(void) {
  const char *models[2] = {EX("hopping-ball.nh"), "rolling-ball-detach"};
  const int flies[2] = {1, 0};
  char msg[1024];
  for (int i = 0; i < 2; i++) {
    nh_system *s = nh_system_open(models[i]), *t = nh_system_open(models[i]);
    nh_system_run run, ref;
    ENSURE(build(s, "--on-detach", 2, NULL, NULL, 0, &run, msg, sizeof msg) == NH_OK);
    ENSURE(build(t, "--on-detach", 2, NULL, NULL, 0, &ref, msg, sizeof msg) == NH_OK);
    ENSURE(run.nphases == 2 && run.reset && run.max_switches == 1 && strcmp(run.phase_names[1], "flight") == 0);
    ENSURE(run.models[1]->nx == run.models[0]->nx + 4);
    nh_sim *sims[2] = {sim_of(run.models[0]), sim_of(run.models[1])};
    nh_sim *r0 = sim_of(ref.models[0]), *r1 = sim_of(ref.models[1]);
    ENSURE(sims[0] && sims[1] && r0 && r1);
    nh_chain c = {sims, 2, run.breaks, run.nbreaks, 0, run.max_switches, run.reset, run.reset_user};
    int last = -1;
    const int rc = nh_chain_run(&c, 0, 5.0, NULL, NULL, &last);
    s->cls->finish(s->user, &run, sims, last);
    nh_ball_flight_info fi;
    const int rr = nh_ball_run_flight(r0, r1, 5.0, NULL, NULL, &fi);
    const nh_ball_flight_info *gi = run.reset_user;
    ENSURE(rc == NH_EVENT_STOP && rr == rc && last == flies[i]);
    ENSURE(gi->detached && fi.detached && gi->flew == flies[i] && fi.flew == gi->flew);
    ENSURE(gi->touchdown == flies[i] && fi.touchdown == gi->touchdown);
    ENSURE(gi->t_detach == fi.t_detach && gi->z_acc == fi.z_acc && (!flies[i] || gi->t_touchdown == fi.t_touchdown));
    const nh_sim *a = sims[last], *b = last ? r1 : r0;
    ENSURE(nh_sim_time(a) == nh_sim_time(b));
    ENSURE(memcmp(nh_sim_x(a), nh_sim_x(b), sizeof(double) * (size_t)nh_sim_model(a)->nx) == 0);
    for (int k = 0; k < 2; k++) nh_sim_destroy(sims[k]);
    nh_sim_destroy(r0), nh_sim_destroy(r1);
    nh_system_run_free(&run), nh_system_run_free(&ref);
    nh_system_close(s), nh_system_close(t);
  }
  return 0;
}

/* ---- built-ins' parameters by name ----------------------------------------------------------- */

/* the same model (parameters, initial state) to the bit */
static int same_model(const nh_model *a, const nh_model *b) {
  return a && b && a->npar == b->npar && a->nx == b->nx &&
         memcmp(a->param_values, b->param_values, sizeof(double) * (size_t)a->npar) == 0 &&
         memcmp(a->x0, b->x0, sizeof(double) * (size_t)a->nx) == 0;
}

/* a parameter block with the options applied builds nh_builtin_load's model, and one more value
 * set in the block (an ensemble member's) moves the model's parameter to it */
static int test_builtin_params(void) {
  const char *const names[3] = {"penny", "sleigh", "snakeboard"}, *const key[3] = {"a", "I", "J"};
  char msg[512];
  for (int i = 0; i < 3; i++) {
    const nh_builtin *b = nh_builtin_find(names[i]);
    ENSURE(b && b->params && b->params->size > 0 && b->params->set && b->params->create);
    const char *set[1] = {key[i]};
    const double val[1] = {i == 0 ? 0.17 : 2.5};
    nh_builtin_opts o = {1, set, val, 0, {NH_IMPACT_ELASTIC, 1.0}, i == 0 ? "ellipse" : NULL};
    double block[128]; /* aligned for the parameter structs */
    ENSURE(b->params->size <= sizeof block);
    b->params->defaults(block);
    ENSURE(nh_builtin_params_apply(b, block, &o, msg, sizeof msg) == NH_OK);
    nh_model *m = b->params->create(block, msg, sizeof msg), *ref = nh_builtin_load(names[i], &o, msg, sizeof msg);
    ENSURE(same_model(m, ref));
    int k = -1;
    for (int j = 0; j < m->npar; j++)
      if (strcmp(m->param_names[j], key[i]) == 0) k = j;
    ENSURE(k >= 0 && m->param_values[k] == val[0]);
    ENSURE(b->params->set(block, key[i], 3.0) == 1 && b->params->set(block, "no-such-name", 1.0) == 0);
    nh_model *varied = b->params->create(block, msg, sizeof msg);
    ENSURE(varied && varied->param_values[k] == 3.0);
    nh_model_destroy(varied), nh_model_destroy(ref), nh_model_destroy(m);
  }
  // the penny alone has a table and impacts; a built-in without parameters takes no overrides
  const nh_builtin *penny = nh_builtin_find("penny"), *sleigh = nh_builtin_find("sleigh");
  ENSURE(penny->params->table && penny->params->law && !sleigh->params->table && !sleigh->params->law);
  ENSURE(!nh_builtin_find("quartic")->params && !nh_builtin_find("no-such-model"));
  double block[128];
  sleigh->params->defaults(block);
  nh_builtin_opts law = {0, NULL, NULL, 1, {NH_IMPACT_PLASTIC, 0.0}, NULL};
  ENSURE(nh_builtin_params_apply(sleigh, block, &law, msg, sizeof msg) == NH_ERR_ARG && strstr(msg, "no impacts"));
  penny->params->defaults(block);
  nh_builtin_opts square = {0, NULL, NULL, 0, {NH_IMPACT_ELASTIC, 1.0}, "square"};
  ENSURE(nh_builtin_params_apply(penny, block, &square, msg, sizeof msg) == NH_ERR_ARG && strstr(msg, "'square'"));
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_classes);
  RUN_TEST(test_build_errors);
  RUN_TEST(test_ball_rolling);
  RUN_TEST(test_ball_flight);
  RUN_TEST(test_builtin_params);
  return TEST_SUMMARY();
}
