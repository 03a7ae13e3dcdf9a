/* run.c - `nholo run MODEL [options]`: simulate a model and write its results. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "papers.h"

typedef struct run_opts {
  const char *model;
  nh_penny_params penny;
  nh_sleigh_params sleigh;
  nh_snakeboard_params snake;
  nh_method_opts mopts;
  nh_impact_law law;
  int law_set;
  long impacts;
  double t_end;
  const char *method;
  double dt, rtol, atol, sample;
  int dt_set, sample_set;
  const char *out, *events, *plot;
  int json, project_initial;
  long zeno_count;
  double zeno_interval;
  int table_set;
  nh_backend backend;
  /* --set NAME=VALUE, applied once the model is known */
  cli_sets sets;
} run_opts;

/* ---- option table: name, argument, help, setter ------------------------------------- */

typedef int (*opt_setter)(run_opts *o, const char *opt, const char *val);

static int set_table(run_opts *o, const char *opt, const char *val) {
  o->table_set = 1;
  if (strcmp(val, "circle") == 0) {
    o->penny.a = 0.2, o->penny.b = 0.2;
  } else if (strcmp(val, "ellipse") == 0) {
    o->penny.a = 0.15, o->penny.b = 0.2;
  } else {
    cli_usage_error("%s: unknown table '%s' (expected circle or ellipse)", opt, val);
    return 0;
  }
  return 1;
}
static int set_impact(run_opts *o, const char *opt, const char *val) {
  o->law_set = 1;
  return cli_parse_impact(opt, val, &o->law);
}
static int set_impacts(run_opts *o, const char *opt, const char *val) {
  return cli_parse_long(opt, val, 1, 1000000000L, &o->impacts);
}
static int positive(const char *opt, const char *val, double *out) {
  if (!cli_parse_double(opt, val, out)) return 0;
  if (!(*out > 0.0)) {
    cli_usage_error("%s: %s must be positive", opt, val);
    return 0;
  }
  return 1;
}
static int set_t_end(run_opts *o, const char *opt, const char *val) { return positive(opt, val, &o->t_end); }
static int set_method(run_opts *o, const char *opt, const char *val) {
  if (!nh_method_find(val)) {
    cli_usage_error("%s: unknown method '%s' (see 'nholo list')", opt, val);
    return 0;
  }
  o->method = val;
  return 1;
}
static int set_retraction(run_opts *o, const char *opt, const char *val) {
  int r = nh_retraction_find(val);
  if (r < 0) {
    cli_usage_error("%s: unknown retraction '%s' (expected exp, ccsk or cay)", opt, val);
    return 0;
  }
  o->mopts.retraction = (nh_retraction)r;
  return 1;
}
static int set_start(run_opts *o, const char *opt, const char *val) {
  static const char *const names[] = {"paper", "consistent", "midpoint"};
  for (int i = 0; i < 3; i++)
    if (strcmp(val, names[i]) == 0) return o->mopts.start = (nh_start)i, 1;
  cli_usage_error("%s: unknown start '%s' (expected paper, consistent or midpoint)", opt, val);
  return 0;
}
static int set_dexp(run_opts *o, const char *opt, const char *val) {
  long k;
  if (!cli_parse_long(opt, val, 0, 2, &k)) return 0;
  o->mopts.dexp_order = (int)k;
  return 1;
}
static int set_ld(run_opts *o, const char *opt, const char *val) {
  if (strcmp(val, "trapezoid") && strcmp(val, "midpoint")) {
    cli_usage_error("%s: unknown discrete Lagrangian '%s' (expected trapezoid or midpoint)", opt, val);
    return 0;
  }
  o->mopts.midpoint_ld = strcmp(val, "midpoint") == 0;
  return 1;
}
static int set_alpha(run_opts *o, const char *opt, const char *val) {
  double a;
  if (!cli_parse_double(opt, val, &a)) return 0;
  if (!(a >= 0.0 && a <= 1.0)) {
    cli_usage_error("%s: %s must be in [0, 1]", opt, val);
    return 0;
  }
  o->mopts.alpha = a;
  return 1;
}
static int set_dt(run_opts *o, const char *opt, const char *val) {
  o->dt_set = 1;
  return positive(opt, val, &o->dt);
}
static int set_rtol(run_opts *o, const char *opt, const char *val) { return positive(opt, val, &o->rtol); }
static int set_atol(run_opts *o, const char *opt, const char *val) { return positive(opt, val, &o->atol); }
static int nonnegative(const char *opt, const char *val, double *out) {
  if (!cli_parse_double(opt, val, out)) return 0;
  if (!(*out >= 0.0)) {
    cli_usage_error("%s: %s must be >= 0", opt, val);
    return 0;
  }
  return 1;
}
static int set_sample(run_opts *o, const char *opt, const char *val) {
  o->sample_set = 1;
  return nonnegative(opt, val, &o->sample);
}
static int set_out(run_opts *o, const char *opt, const char *val) {
  (void)opt;
  o->out = val;
  return 1;
}
static int set_events(run_opts *o, const char *opt, const char *val) {
  (void)opt;
  o->events = val;
  return 1;
}
static int set_plot(run_opts *o, const char *opt, const char *val) {
  const char *dot = strrchr(val, '.');
  if (!dot || (strcmp(dot, ".png") && strcmp(dot, ".svg") && strcmp(dot, ".pdf"))) {
    cli_usage_error("%s: '%s' must end in .png, .svg or .pdf", opt, val);
    return 0;
  }
  o->plot = val;
  return 1;
}
static int set_json(run_opts *o, const char *opt, const char *val) {
  (void)opt, (void)val;
  o->json = 1;
  return 1;
}
static int set_project(run_opts *o, const char *opt, const char *val) {
  (void)opt, (void)val;
  o->project_initial = 1;
  return 1;
}
static int set_zeno_count(run_opts *o, const char *opt, const char *val) {
  return cli_parse_long(opt, val, 1, 1000000000L, &o->zeno_count);
}
static int set_zeno_interval(run_opts *o, const char *opt, const char *val) {
  return nonnegative(opt, val, &o->zeno_interval);
}
static int set_param(run_opts *o, const char *opt, const char *val) {
  return cli_parse_set(opt, val, &o->sets);
}
static int set_backend(run_opts *o, const char *opt, const char *val) {
  return cli_parse_backend(opt, val, &o->backend);
}

typedef struct opt_def {
  const char *name, *arg, *help;
  opt_setter set;
} opt_def;

static const opt_def run_options[] = {
    {"--table", "circle|ellipse", "penny: the circular (a = b = 0.2) or elliptical (a = 0.15, b = 0.2) table", set_table},
    {"--impact", "LAW", "elastic, plastic or restitution=E (default elastic)", set_impact},
    {"--impacts", "N", "stop after N impacts (default: no limit)", set_impacts},
    {"--t-end", "T", "final time in s (default 100)", set_t_end},
    {"--method", "NAME", "integrator (see 'nholo list'; default exact when the model has a closed-form flow, else dopri5)", set_method},
    {"--retraction", "exp|ccsk|cay", "rdp: the SE(2) retraction (default exp)", set_retraction},
    {"--dexp-order", "K", "rdp with exp: 0 exact dexp^-1 (default), 1 or 2 its truncation (paper eq. 42)", set_dexp},
    {"--alpha", "A", "rdp: shape quadrature point r_k+A, A in [0, 1] (default 0.5; 0 is first order)", set_alpha},
    {"--start", "NAME", "paper, consistent or midpoint: gni paper (eq. 16) or midpoint start; rattle lambda_0 = 0 (paper) or consistent", set_start},
    {"--ld", "trapezoid|midpoint", "del: the discrete Lagrangian (default trapezoid)", set_ld},
    {"--dt", "H", "step of fixed-step methods, first trial step of adaptive ones (default 1e-3 s)", set_dt},
    {"--rtol", "R", "relative tolerance of adaptive methods (default 1e-10)", set_rtol},
    {"--atol", "A", "absolute tolerance of adaptive methods (default 1e-12)", set_atol},
    {"--sample", "DT", "output interval on dense output (default 0.01 s for exact, else every step; 0 = every step)", set_sample},
    {"--set", "NAME=VALUE", "override a parameter or initial value (NAME, or NAME' for a velocity; penny: m R I J a b x y theta phi theta' phi'; sleigh: I m a theta x y omega v; snakeboard: m l I J Apsi fpsi Aphi fphi psi phi theta x y p1 psi' phi'; model files: any parameter, coordinate or velocity), repeatable", set_param},
    {"--backend", "auto|tape|codegen", "model files: evaluate compiled C (codegen), the tape interpreter, or codegen when a compiler works (auto, default)", set_backend},
    {"--project-initial", NULL, "project an initial velocity that violates the constraints", set_project},
    {"--zeno-count", "N", "Zeno guard: stop after N consecutive impacts closer than --zeno-interval (default 100)", set_zeno_count},
    {"--zeno-interval", "S", "Zeno guard interval in s (default 1e-9)", set_zeno_interval},
    {"--out", "FILE", "trajectory CSV: t, coordinates, velocities NAME_dot", set_out},
    {"--events", "FILE", "impact log CSV", set_events},
    {"--plot", "FILE", "plot of the run (.png, .svg or .pdf)", set_plot},
    {"--json", NULL, "print a JSON summary on stdout", set_json},
};
#define NRUN_OPTIONS ((int)(sizeof run_options / sizeof run_options[0]))

static void run_help(void) {
  printf("usage: nholo run MODEL [options]\n\n"
         "Simulate MODEL through its impacts and report the run. MODEL is a built-in model (see\n"
         "'nholo list') or a model file (FILE.nh, docs/model-language.md).\n\noptions:\n");
  for (int i = 0; i < NRUN_OPTIONS; i++) {
    char left[64];
    snprintf(left, sizeof left, "%s%s%s", run_options[i].name, run_options[i].arg ? " " : "",
             run_options[i].arg ? run_options[i].arg : "");
    printf("  %-28s %s\n", left, run_options[i].help);
  }
  printf("\nthe rolling ball and disk have their own options: nholo run rolling-ball --help\n");
  printf("\nexamples: nholo run penny --table ellipse --impact plastic --impacts 20 --plot penny.png\n"
         "          nholo run examples/penny.nh --set a=0.2 --method dopri5 --json\n"
         "exit status: 0 success, 1 the computation failed, 2 bad input, 3 Zeno guard.\n");
}

/* ---- penny parameters by name -------------------------------------------------------- */

int cli_penny_set(nh_penny_params *p, const char *name, double value) {
  struct {
    const char *name;
    double *field;
  } tab[] = {
      {"m", &p->m},           {"R", &p->R},           {"I", &p->I},
      {"J", &p->J},           {"a", &p->a},           {"b", &p->b},
      {"x", &p->x0},          {"y", &p->y0},          {"theta", &p->theta0},
      {"phi", &p->phi0},      {"theta'", &p->theta_dot0}, {"phi'", &p->phi_dot0},
      {"theta_dot", &p->theta_dot0}, {"phi_dot", &p->phi_dot0},
  };
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
    if (strcmp(tab[i].name, name) == 0) {
      *tab[i].field = value;
      return 1;
    }
  return 0;
}

/* ---- JSON ----------------------------------------------------------------------------- */

static void json_num(FILE *f, double x) {
  if (isfinite(x))
    fprintf(f, "%.17g", x);
  else
    fputs("null", f);
}

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static void json_vec(FILE *f, const nh_model *m, const double *x) {
  fputc('{', f);
  for (int i = 0; i < m->nq; i++) {
    if (i) fputs(", ", f);
    json_str(f, m->coord_names[i]);
    fputs(": ", f);
    json_num(f, x[i]);
  }
  fputc('}', f);
}

static const char *law_name(nh_impact_law law, char *buf, size_t size) {
  if (law.kind == NH_IMPACT_ELASTIC) return "elastic";
  if (law.kind == NH_IMPACT_PLASTIC) return "plastic";
  snprintf(buf, size, "restitution=%g", law.e);
  return buf;
}

static void print_json(FILE *f, const nh_sim *sim, const char *method, int status, double wall,
                       const run_opts *o) {
  const nh_model *m = nh_sim_model(sim);
  const nh_sim_stats *st = nh_sim_get_stats(sim);
  char lb[64];
  fputs("{\"model\": ", f);
  json_str(f, m->name);
  fputs(", \"method\": ", f);
  json_str(f, method);
  fputs(", \"impact_law\": ", f);
  json_str(f, m->ngap ? law_name(m->impact[0], lb, sizeof lb) : "none");
  fputs(", \"parameters\": {", f);
  for (int i = 0; i < m->npar; i++) {
    if (i) fputs(", ", f);
    json_str(f, m->param_names[i]);
    fputs(": ", f);
    json_num(f, m->param_values[i]);
  }
  fprintf(f, "}, \"impacts\": %ld, \"t_end\": ", st->impacts);
  json_num(f, nh_sim_time(sim));
  fprintf(f, ", \"steps\": %ld, \"rejected_steps\": %ld, \"evaluations\": %ld, \"grazing\": %ld",
          st->steps, st->rejected, st->evals, st->grazing);
  fputs(", \"energy_initial\": ", f);
  json_num(f, st->energy_initial);
  fputs(", \"energy_final\": ", f);
  json_num(f, st->energy);
  fputs(", \"max_energy_rel_error\": ", f);
  json_num(f, st->max_energy_rel_error);
  fputs(", \"max_constraint_residual\": ", f);
  json_num(f, st->max_constraint_residual);
  fputs(", \"max_event_gap\": ", f);
  json_num(f, st->max_event_gap);
  fputs(", \"solver_iterations\": ", f);
  json_num(f, (double)st->solver_iterations);
  fputs(", \"solver_max_iterations\": ", f);
  json_num(f, (double)st->solver_max_iterations);
  fputs(", \"solver_last_residual\": ", f);
  json_num(f, st->solver_last_residual);
  fputs(", \"solver_max_residual\": ", f);
  json_num(f, st->solver_max_residual);
  fputs(", \"wall_seconds\": ", f);
  json_num(f, wall);
  fputs(", \"status\": ", f);
  json_str(f, nh_status_name(status));
  fputs(", \"message\": ", f);
  json_str(f, status == NH_OK ? "" : nh_sim_message(sim));
  fputs(", \"final\": ", f);
  json_vec(f, m, nh_sim_q(sim));
  fputs(", \"final_velocity\": ", f);
  json_vec(f, m, nh_sim_v(sim));
  fputs(", \"final_state\": {", f);
  for (int i = 0; i < m->nx; i++) {
    if (i) fputs(", ", f);
    json_str(f, m->state_names[i]);
    fputs(": ", f);
    json_num(f, nh_sim_x(sim)[i]);
  }
  fputc('}', f);
  fputs(", \"outputs\": {", f);
  int first = 1;
  const char *keys[3] = {"trajectory", "events", "plot"};
  const char *vals[3] = {o->out, o->events, o->plot};
  for (int i = 0; i < 3; i++)
    if (vals[i]) {
      if (!first) fputs(", ", f);
      first = 0;
      json_str(f, keys[i]);
      fputs(": ", f);
      json_str(f, vals[i]);
    }
  fputs("}, \"impact_log\": [", f);
  for (long k = 0; k < nh_sim_impact_count(sim); k++) {
    nh_impact_record r;
    nh_sim_impact_get(sim, k, &r);
    fputs(k ? ", {\"t\": " : "{\"t\": ", f);
    json_num(f, r.t);
    fputs(", \"surface\": ", f);
    json_str(f, m->gap_names[r.gap]);
    fputs(", \"energy_before\": ", f);
    json_num(f, r.energy_before);
    fputs(", \"energy_after\": ", f);
    json_num(f, r.energy_after);
    fputs(", \"alpha\": ", f);
    json_num(f, r.alpha);
    fputs(", \"status\": ", f);
    json_str(f, nh_status_name(r.status));
    fputc('}', f);
  }
  fputs("]}\n", f);
}

static void print_text(const nh_sim *sim, const char *method, int status, double wall, const run_opts *o) {
  const nh_model *m = nh_sim_model(sim);
  const nh_sim_stats *st = nh_sim_get_stats(sim);
  char lb[64];
  printf("model %s, method %s, impact law %s\n", m->name, method,
         m->ngap ? law_name(m->impact[0], lb, sizeof lb) : "none");
  printf("t = %.12g s, %ld impacts, %ld steps (%ld rejected), %ld evaluations, %.3f s wall\n",
         nh_sim_time(sim), st->impacts, st->steps, st->rejected, st->evals, wall);
  printf("energy %.12g -> %.12g J; max relative energy error between impacts %.3e; max |A v| %.3e\n",
         st->energy_initial, st->energy, st->max_energy_rel_error, st->max_constraint_residual);
  if (st->solver_iterations > 0)
    printf("solver: %.2f iterations per step (max %d), max residual %.3e\n",
           (double)st->solver_iterations / (double)(st->steps > 0 ? st->steps : 1), st->solver_max_iterations,
           st->solver_max_residual);
  long n = nh_sim_impact_count(sim);
  long show = n < 5 ? n : 5;
  for (long k = 0; k < show; k++) {
    nh_impact_record r;
    nh_sim_impact_get(sim, k, &r);
    printf("  impact %ld: t = %.15g s, %s, energy %.9g -> %.9g\n", k + 1, r.t, m->gap_names[r.gap],
           r.energy_before, r.energy_after);
  }
  if (n > show) printf("  ... %ld more (--events FILE for the whole log)\n", n - show);
  printf("status: %s%s%s\n", nh_status_name(status), status ? ": " : "", status ? nh_sim_message(sim) : "");
  if (o->out) printf("trajectory: %s\n", o->out);
  if (o->events) printf("impact log: %s\n", o->events);
  if (o->plot) printf("plot: %s\n", o->plot);
}

/* ---- the command ---------------------------------------------------------------------- */

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int parse_run(int argc, char **argv, run_opts *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || a[1] != '-') {
      if (a[0] == '-') return cli_usage_error("unknown option '%s' (see 'nholo run --help')", a);
      if (o->model) return cli_usage_error("unexpected argument '%s' (model already given: '%s')", a, o->model);
      o->model = a;
      continue;
    }
    const opt_def *d = NULL;
    for (int k = 0; k < NRUN_OPTIONS; k++)
      if (strcmp(run_options[k].name, a) == 0) d = &run_options[k];
    if (!d) return cli_usage_error("unknown option '%s' (see 'nholo run --help')", a);
    const char *val = NULL;
    if (d->arg) {
      if (i + 1 >= argc) return cli_usage_error("option %s needs a value (%s)", a, d->arg);
      val = argv[++i];
    }
    if (!d->set(o, a, val)) return CLI_USAGE;
  }
  if (!o->model) return cli_usage_error("run: no model given (see 'nholo list')");
  return CLI_OK;
}

static int check_outputs(const run_opts *o) {
  const char *paths[3] = {o->out, o->events, o->plot};
  char msg[512];
  for (int i = 0; i < 3; i++) {
    if (!paths[i]) continue;
    for (int j = 0; j < i; j++)
      if (paths[j] && strcmp(paths[i], paths[j]) == 0)
        return cli_usage_error("the same file '%s' is given for two outputs", paths[i]);
    if (nh_check_writable(paths[i], msg, sizeof msg) != NH_OK) return cli_usage_error("%s", msg);
  }
  return CLI_OK;
}

int cmd_run(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if ((strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) && !(argc > 2 && cli_ball_is_model(argv[1]))) {
      run_help();
      return CLI_OK;
    }
  for (int i = 1; i < argc; i++)
    if (argv[i][0] != '-' && cli_ball_is_model(argv[i])) return cmd_run_ball(argc, argv);
  run_opts o;
  memset(&o, 0, sizeof o);
  o.penny = nh_penny_params_default();
  o.sleigh = nh_sleigh_params_default();
  o.snake = nh_snakeboard_params_default();
  o.mopts = nh_method_opts_default();
  o.t_end = 100.0;
  o.dt = 1e-3;
  o.rtol = 1e-10;
  o.atol = 1e-12;
  o.zeno_count = 100;
  o.zeno_interval = 1e-9;
  int rc = parse_run(argc, argv, &o);
  if (rc) return rc;

  // the model: a model file, or a built-in
  char msg[2048];
  nh_model *model = NULL;
  int is_penny = 0;
  if (cli_is_model_file(o.model)) {
    if (o.table_set) return cli_usage_error("--table: only for the built-in penny (use --set a=... --set b=...)");
    nh_load_opts lo = nh_load_opts_default();
    lo.backend = o.backend;
    lo.nset = o.sets.n;
    lo.set_names = o.sets.names;
    lo.set_values = o.sets.values;
    lo.project_initial = o.project_initial;
    lo.impact_override = o.law_set;
    lo.impact = o.law;
    if (!(model = nh_model_load(o.model, &lo, msg, sizeof msg))) return cli_usage_error("%s", msg);
  } else {
    is_penny = strcmp(o.model, "penny") == 0;
    int is_sleigh = strcmp(o.model, "sleigh") == 0, is_snake = strcmp(o.model, "snakeboard") == 0;
    if (o.law_set && !is_penny) return cli_usage_error("--impact: model '%s' has no impacts", o.model);
    if (o.table_set && !is_penny) return cli_usage_error("--table: only for the built-in penny");
    if (!is_penny && !is_sleigh && !is_snake) {
      if (o.sets.n > 0) return cli_usage_error("--set: model '%s' takes no overrides (a model file does)", o.model);
      if (!(model = nh_builtin_create(o.model, msg, sizeof msg)))
        return cli_usage_error("unknown model '%s' (see 'nholo list'; a model file ends in .nh)", o.model);
    }
    for (int i = 0; i < o.sets.n; i++) {
      const char *name = o.sets.names[i];
      double v = o.sets.values[i];
      int known = is_sleigh ? nh_sleigh_set(&o.sleigh, name, v)
                  : is_snake ? nh_snakeboard_set(&o.snake, name, v)
                             : cli_penny_set(&o.penny, name, v);
      if (!known) return cli_usage_error("--set: model '%s' has no parameter or initial value '%s'", o.model, name);
    }
    if (o.law_set) o.penny.law = o.law;
    if (!model) model = is_penny ? nh_penny_create(&o.penny, msg, sizeof msg)
                        : is_sleigh ? nh_sleigh_create(&o.sleigh, msg, sizeof msg)
                                    : nh_snakeboard_create(&o.snake, msg, sizeof msg);
    if (!model) return cli_usage_error("%s", msg);
  }

  if (o.plot && model->form == NH_FORM_ODE) {
    nh_model_destroy(model);
    return cli_usage_error("--plot: no plot for a first-order (ODE-form) model; use --out for the trajectory");
  }

  // the method and simulation
  const nh_method *method = o.method ? nh_method_find(o.method)
                                     : (model->flow ? nh_method_find("exact") : nh_method_find("dopri5"));
  if ((nh_method_flags(method) & NH_METHOD_LIE) && nh_method_supports(method, model) != NH_OK) {
    nh_model_destroy(model);
    return cli_usage_error("--method %s: model '%s' has no rotation part", nh_method_name(method), model->name);
  }
  if (nh_method_supports(method, model) != NH_OK) {
    char name[NH_MAX_NAME];
    snprintf(name, sizeof name, "%s", model->name);
    nh_model_destroy(model);
    return cli_usage_error("--method %s: cannot run model '%s' (%s)", nh_method_name(method), name,
                           !strcmp(nh_method_name(method), "rdp") ? "no SE(2)-invariant structure"
                           : !strcmp(nh_method_name(method), "del") ? "its constraints are not holonomic"
                           : !strcmp(nh_method_name(method), "exact") ? "no closed-form flow"
                                                                       : nh_method_summary(method));
  }
  nh_sim_def def = nh_sim_def_default();
  def.method = method;
  def.h = o.dt;
  def.rtol = o.rtol;
  def.atol = o.atol;
  def.out_dt = o.sample_set ? o.sample : ((nh_method_flags(method) & NH_METHOD_EXACT) ? 0.01 : 0.0);
  def.project_initial = o.project_initial;
  def.zeno_count = (int)o.zeno_count;
  def.zeno_interval = o.zeno_interval;
  def.opts = o.mopts;
  nh_sim *sim = nh_sim_create(model, &def, msg, sizeof msg);
  if (!sim) {
    nh_model_destroy(model);
    return cli_usage_error("%s", msg);
  }
  if ((rc = check_outputs(&o))) {
    nh_sim_destroy(sim);
    nh_model_destroy(model);
    return rc;
  }

  // run
  nh_traj *traj = (o.out || o.plot) ? nh_traj_create(model->form == NH_FORM_ODE ? model->nx : model->nq) : NULL;
  double t0 = now_seconds();
  int status = nh_sim_run(sim, o.t_end, o.impacts, traj ? nh_traj_observer : NULL, traj);
  double wall = now_seconds() - t0;

  // outputs hold whatever was computed, also after a failure
  int exit_code = status == NH_OK ? CLI_OK : status == NH_ZENO ? CLI_ZENO : CLI_FAILED;
  if (o.out && nh_write_traj_csv(o.out, model, traj, msg, sizeof msg) != NH_OK) {
    fprintf(stderr, "nholo: %s\n", msg);
    exit_code = CLI_FAILED;
  }
  if (o.events && nh_write_impacts_csv(o.events, sim, msg, sizeof msg) != NH_OK) {
    fprintf(stderr, "nholo: %s\n", msg);
    exit_code = CLI_FAILED;
  }
  if (o.plot && !is_penny) {
    char title[160];
    snprintf(title, sizeof title, "%s (%s)", model->name, nh_method_name(method));
    if (nh_plot_timeseries(o.plot, model, traj, sim, title, msg, sizeof msg) != NH_OK) {
      fprintf(stderr, "nholo: %s\n", msg);
      exit_code = CLI_FAILED;
    }
  } else if (o.plot) {
    char title[160];
    char lb[64];
    int prc;
    if (is_penny) {
      snprintf(title, sizeof title, "penny, %s table, %s, %ld impacts (%s)", o.penny.a == o.penny.b ? "circular" : "elliptical",
               law_name(model->impact[0], lb, sizeof lb), nh_sim_get_stats(sim)->impacts, nh_method_name(method));
      prc = papers_plot_penny(o.plot, o.penny.a, o.penny.b, o.penny.R, traj, sim, title, msg, sizeof msg);
    } else {
      snprintf(title, sizeof title, "%s, %ld impacts (%s)", model->name, nh_sim_get_stats(sim)->impacts,
               nh_method_name(method));
      prc = nh_plot_timeseries(o.plot, model, traj, sim, title, msg, sizeof msg);
    }
    if (prc != NH_OK) {
      fprintf(stderr, "nholo: %s\n", msg);
      exit_code = CLI_FAILED;
    }
  }
  if (status != NH_OK) fprintf(stderr, "nholo: run ended with %s: %s\n", nh_status_name(status), nh_sim_message(sim));
  if (o.json)
    print_json(stdout, sim, nh_method_name(method), status, wall, &o);
  else
    print_text(sim, nh_method_name(method), status, wall, &o);

  nh_traj_destroy(traj);
  nh_sim_destroy(sim);
  nh_model_destroy(model);
  return exit_code;
}
