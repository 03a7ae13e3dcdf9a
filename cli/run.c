/* run.c - `nholo run MODEL [options]`: simulate a model and write its results. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "papers.h"

typedef struct run_opts {
  const char *model;
  const char *table; /* the penny's --table, checked by nh_builtin_load */
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
  int simul_order; /* nh_simul_policy of simultaneous impacts */
  int impact_step; /* nh_impact_step */
  double zeno_interval;
  int table_set;
  nh_backend backend;
  /* --set NAME=VALUE, applied once the model is known */
  cli_sets sets;
  /* contacts: --mu, --on-slip, --on-detach (0: the file's; else 1 + nh_monitor_action), --contacts */
  int mu_set, on_slip, on_detach;
  double mu;
  const char *contacts_csv;
  const cli_contacts *contacts; /* the run's, for the summary */
} run_opts;

/* ---- option table: name, argument, help, setter ------------------------------------- */

typedef int (*opt_setter)(run_opts *o, const char *opt, const char *val);

static int set_table(run_opts *o, const char *opt, const char *val) {
  (void)opt;
  o->table_set = 1;
  o->table = val;
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
static int set_newton_tol(run_opts *o, const char *opt, const char *val) { return positive(opt, val, &o->mopts.newton_tol); }
static int set_newton_iter(run_opts *o, const char *opt, const char *val) {
  long k;
  if (!cli_parse_long(opt, val, 1, 10000, &k)) return 0;
  o->mopts.newton_max_iter = (int)k;
  return 1;
}
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
static int set_order(run_opts *o, const char *opt, const char *val) {
  static const char *names[] = {"most-infeasible", "least", "index", "enumerate"};
  for (int i = 0; i < 4; i++)
    if (strcmp(val, names[i]) == 0) return o->simul_order = i, 1;
  cli_usage_error("%s: unknown order '%s' (expected most-infeasible, least, index or enumerate)", opt, val);
  return 0;
}
static int set_impact_step(run_opts *o, const char *opt, const char *val) {
  static const char *names[] = {"auto", "restart", "variational"};
  for (int i = 0; i < 3; i++)
    if (strcmp(val, names[i]) == 0) return o->impact_step = i, 1;
  cli_usage_error("%s: unknown impact step '%s' (expected variational, restart or auto)", opt, val);
  return 0;
}
static int set_param(run_opts *o, const char *opt, const char *val) {
  return cli_parse_set(opt, val, &o->sets);
}
static int set_backend(run_opts *o, const char *opt, const char *val) {
  return cli_parse_backend(opt, val, &o->backend);
}
static int set_mu(run_opts *o, const char *opt, const char *val) {
  o->mu_set = 1;
  return nonnegative(opt, val, &o->mu);
}
static int set_contact_action(run_opts *o, const char *opt, const char *val) {
  int a = strcmp(val, "stop") == 0 ? 1 + NH_MONITOR_STOP : strcmp(val, "report") == 0 ? 1 + NH_MONITOR_REPORT : 0;
  if (!a) return cli_usage_error("%s: unknown action '%s' (expected stop or report)", opt, val), 0;
  *(strcmp(opt, "--on-slip") == 0 ? &o->on_slip : &o->on_detach) = a;
  return 1;
}
static int set_contacts(run_opts *o, const char *opt, const char *val) {
  (void)opt;
  o->contacts_csv = val;
  return 1;
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
    {"--newton-tol", "TOL", "implicit methods: Newton's relative residual tolerance (default 1e-12)", set_newton_tol},
    {"--newton-max-iter", "N", "implicit methods: Newton iterations before NH_ERR_NO_CONVERGENCE, 1..10000 (default 30)", set_newton_iter},
    {"--sample", "DT", "output interval on dense output (default 0.01 s for exact, else every step; 0 = every step)", set_sample},
    {"--set", "NAME=VALUE", "override a parameter or initial value (NAME, or NAME' for a velocity; penny: m R I J a b x y theta phi theta' phi'; sleigh: I m a theta x y omega v; snakeboard: m l I J Apsi fpsi Aphi fphi psi phi theta x y p1 psi' phi'; model files: any parameter, coordinate or velocity), repeatable", set_param},
    {"--backend", "auto|tape|codegen", "model files: evaluate compiled C (codegen), the tape interpreter, or codegen when a compiler works (auto, default)", set_backend},
    {"--project-initial", NULL, "project an initial velocity that violates the constraints", set_project},
    {"--zeno-count", "N", "Zeno guard: stop after N consecutive impacts closer than --zeno-interval (default 100)", set_zeno_count},
    {"--zeno-interval", "S", "Zeno guard interval in s (default 1e-9)", set_zeno_interval},
    {"--order", "POLICY", "simultaneous impacts: the order of the reflections, most-infeasible (default), least, index, or enumerate (follows outcome 0, logs the number of outcomes and xi)", set_order},
    {"--impact-step", "MODE", "variational: an impact splits del's step (the rest of it after the impact, the nodes on the grid t_k + h, a contact chattering faster than the step made plastic and persistent); restart: cut at the impact, steps of h from there; default auto (variational for del, restart for the other methods, which only restart)", set_impact_step},
    {"--out", "FILE", "trajectory CSV: t, coordinates, velocities NAME_dot", set_out},
    {"--events", "FILE", "impact log CSV", set_events},
    {"--contacts", "FILE", "model files with contacts: per sample N, |f|, |f|/N and the running max of |f|/N, per contact", set_contacts},
    {"--mu", "MU", "model files with contacts: every contact's friction coefficient (0: no slip monitor)", set_mu},
    {"--on-slip", "stop|report", "model files with contacts: at slip (|f| = mu N)", set_contact_action},
    {"--on-detach", "stop|report", "model files with contacts: at detachment (N = 0)", set_contact_action},
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
  printf("an option's value follows it or is joined to it by '=' (--dt 0.05 or --dt=0.05)\n");
  printf("\nthe rolling ball and disk have their own options: nholo run rolling-ball --help\n");
  printf("\nexamples: nholo run penny --table ellipse --impact plastic --impacts 20 --plot penny.png\n"
         "          nholo run examples/penny.nh --set a=0.2 --method dopri5 --json\n"
         "exit status: 0 success, 1 the computation failed, 2 bad input, 3 Zeno guard.\n");
}

static const char *law_name(nh_impact_law law, char *buf, size_t size) {
  if (law.kind == NH_IMPACT_ELASTIC) return "elastic";
  if (law.kind == NH_IMPACT_PLASTIC) return "plastic";
  snprintf(buf, size, "restitution=%g", law.e);
  return buf;
}

/* ---- the summary (nholo/io.h) -------------------------------------------------------- */

/* the files written, after the final state (JSON "outputs") or the status line (text); an
 * event's label in text is its monitor's name */
static int run_outputs(FILE *f, int json, nh_summary_place at, const nh_summary_event *ev, void *user) {
  const run_opts *o = user;
  if (at == NH_SUMMARY_EVENT_HEAD && !json) fputs(nh_sim_model(ev->sim)->monitors[ev->rec.monitor].name, f);
  if (at != NH_SUMMARY_TAIL) return 0;
  if (o->contacts) cli_contacts_summary(f, json, o->contacts);
  const char *keys[4] = {"trajectory", "events", "plot", "contacts"}, *texts[4] = {"trajectory", "impact log", "plot", "contacts"};
  const char *vals[4] = {o->out, o->events, o->plot, o->contacts_csv};
  if (json) fputs(", \"outputs\": {", f);
  for (int i = 0, first = 1; i < 4; i++)
    if (vals[i] && json) {
      if (!first) fputs(", ", f);
      first = 0;
      nh_json_str(f, keys[i]);
      fputs(": ", f);
      nh_json_str(f, vals[i]);
    } else if (vals[i]) {
      fprintf(f, "%s: %s\n", texts[i], vals[i]);
    }
  if (json) fputc('}', f);
  return 0;
}

static void print_summary(const nh_sim *sim, const char *method, int status, double wall, const run_opts *o,
                          const char *message) {
  const int flags = NH_SUMMARY_MECHANICAL | (nh_sim_model(sim)->nmon > 0 ? NH_SUMMARY_EVENTS : 0);
  nh_summary s = {&sim, 1, NULL, method, status, wall, flags, run_outputs, (void *)o, message};
  if (o->json) nh_summary_write_json(stdout, &s);
  else nh_summary_write_text(stdout, &s);
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
    // --name value or --name=value
    char nbuf[64];
    const char *inl;
    const char *name = cli_opt_name(a, nbuf, sizeof nbuf, &inl);
    const opt_def *d = NULL;
    for (int k = 0; k < NRUN_OPTIONS; k++)
      if (strcmp(run_options[k].name, name) == 0) d = &run_options[k];
    if (!d) return cli_usage_error("unknown option '%s' (see 'nholo run --help')", a);
    const char *val = NULL;
    if (d->arg && !(val = cli_opt_value(name, inl, argc, argv, &i, d->arg))) return CLI_USAGE;
    if (!d->arg && !cli_opt_flag(name, inl)) return CLI_USAGE;
    if (!d->set(o, name, val)) return CLI_USAGE;
  }
  if (!o->model) return cli_usage_error("run: no model given (see 'nholo list')");
  return CLI_OK;
}

static int check_outputs(const run_opts *o) {
  const char *paths[4] = {o->out, o->events, o->plot, o->contacts_csv};
  char msg[512];
  for (int i = 0; i < 4; i++) {
    if (!paths[i]) continue;
    // a device (/dev/null) may take several outputs; a plot goes only to a regular file
    struct stat sb;
    int special = stat(paths[i], &sb) == 0 && !S_ISREG(sb.st_mode);
    if (special && i == 2) return cli_usage_error("--plot: '%s' is not a regular file", paths[i]);
    for (int j = 0; j < i; j++)
      if (paths[j] && strcmp(paths[i], paths[j]) == 0 && !(special && S_ISCHR(sb.st_mode)))
        return cli_usage_error("the same file '%s' is given for two outputs", paths[i]);
    if (nh_check_writable(paths[i], msg, sizeof msg) != NH_OK) return cli_usage_error("%s", msg);
  }
  return CLI_OK;
}

/* The model: a model file, or a built-in with the command line's parameters; NULL with the
 * exit status in *rc after printing the error. */
/* a parameter's value by name (NaN when the model has none) */
static double model_param(const nh_model *m, const char *name) {
  for (int i = 0; i < m->npar; i++)
    if (strcmp(m->param_names[i], name) == 0) return m->param_values[i];
  return NAN;
}

static nh_model *load_model(run_opts *o, int *is_penny, int *rc) {
  char msg[2048];
  nh_model *model = NULL;
  *is_penny = 0;
  if (cli_is_model_file(o->model)) {
    if (o->table_set) return *rc = cli_usage_error("--table: only for the built-in penny (use --set a=... --set b=...)"), NULL;
    nh_load_opts lo = nh_load_opts_default();
    lo.backend = o->backend;
    lo.nset = o->sets.n;
    lo.set_names = o->sets.names;
    lo.set_values = o->sets.values;
    lo.project_initial = o->project_initial;
    lo.impact_override = o->law_set;
    lo.impact = o->law;
    lo.contact_mu_set = o->mu_set, lo.contact_mu = o->mu;
    lo.contact_on_slip = o->on_slip, lo.contact_on_detach = o->on_detach;
    if (!cli_model_file_ok(o->model)) return *rc = CLI_USAGE, NULL;
    if (!(model = nh_model_load(o->model, &lo, msg, sizeof msg))) return *rc = cli_model_error(msg), NULL;
  } else {
    *is_penny = strcmp(o->model, "penny") == 0;
    nh_builtin_opts bo = {o->sets.n, o->sets.names, o->sets.values, o->law_set, o->law, o->table_set ? o->table : NULL};
    if (!(model = nh_builtin_load(o->model, &bo, msg, sizeof msg))) return *rc = cli_usage_error("%s", msg), NULL;
  }
  return model;
}

/* ---- outputs, streamed as the run goes (cli.h: the bounds) ------------------------------ */

/* A trajectory CSV of more than CLI_MAX_ROWS rows is refused before the run (an adaptive or
 * exact method's steps are not known before it: those rows are not bounded). */
static int check_rows(const run_opts *o, const nh_method *method, double out_dt) {
  const int fixed = !(nh_method_flags(method) & (NH_METHOD_ADAPTIVE | NH_METHOD_EXACT));
  if (fixed && o->dt > 0.0 && o->t_end / o->dt > CLI_MAX_STEPS)
    return cli_usage_error("--t-end %g with --dt %g is %.3g steps, more than the %.0e allowed (CLI_MAX_STEPS); use a "
                           "larger --dt (at least %g), a shorter --t-end or an adaptive method", o->t_end, o->dt,
                           o->t_end / o->dt, CLI_MAX_STEPS, o->t_end / CLI_MAX_STEPS);
  if (!o->out) return CLI_OK;
  const double step = out_dt > 0.0 ? out_dt : o->dt;
  if (out_dt <= 0.0 && (nh_method_flags(method) & (NH_METHOD_ADAPTIVE | NH_METHOD_EXACT))) return CLI_OK;
  const double rows = o->t_end / step;
  if (!(rows > CLI_MAX_ROWS)) return CLI_OK;
  if (out_dt > 0.0)
    return cli_usage_error("--out: --t-end %g sampled every %g s is %.3g rows, more than the %.0e allowed; use a larger "
                           "--sample (at least %g)", o->t_end, out_dt, rows, CLI_MAX_ROWS, o->t_end / CLI_MAX_ROWS);
  return cli_usage_error("--out: --t-end %g with --dt %g is %.3g steps, a row each, more than the %.0e rows allowed; "
                         "use --sample DT (DT >= %g) or a larger --dt", o->t_end, o->dt, rows, CLI_MAX_ROWS,
                         o->t_end / CLI_MAX_ROWS);
}

/* what the run records: the CSV streams and the plot's bounded record */
typedef struct run_record {
  nh_csv_stream traj, impacts;
  int has_traj, has_impacts;
  nh_traj_thin plot; /* plot.traj NULL: no plot */
  cli_contacts contacts; /* n = 0: none */
} run_record;

static int record_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q, const double *v,
                           void *user) {
  run_record *r = user;
  if (r->has_traj) nh_csv_stream_observer(sim, kind, t, q, v, &r->traj);
  if (r->has_impacts) nh_csv_stream_observer(sim, kind, t, q, v, &r->impacts);
  if (r->contacts.n && kind != NH_SAMPLE_IMPACT_BEFORE) cli_contacts_sample(&r->contacts, t, q, v);
  return r->plot.traj ? nh_traj_thin_observer(sim, kind, t, q, v, &r->plot) : 0;
}

static void record_abort(run_record *r) {
  if (r->has_traj) nh_csv_stream_abort(&r->traj);
  if (r->has_impacts) nh_csv_stream_abort(&r->impacts);
  r->has_traj = r->has_impacts = 0;
  cli_contacts_abort(&r->contacts);
  nh_traj_destroy(r->plot.traj);
  r->plot.traj = NULL;
}

/* open the streams (their headers written) before the run; CLI_USAGE after the error */
static int record_open(run_record *r, const run_opts *o, const nh_model *model) {
  char msg[2048];
  memset(r, 0, sizeof *r);
  if (o->out && nh_csv_stream_open(&r->traj, NH_CSV_TRAJECTORY, o->out, model, msg, sizeof msg) != NH_OK)
    return cli_usage_error("%s", msg);
  r->has_traj = o->out != NULL;
  if (o->events && nh_csv_stream_open(&r->impacts, NH_CSV_IMPACTS, o->events, model, msg, sizeof msg) != NH_OK) {
    record_abort(r);
    return cli_usage_error("%s", msg);
  }
  r->has_impacts = o->events != NULL;
  if (cli_contacts_open(&r->contacts, model, o->contacts_csv, msg, sizeof msg) != NH_OK) {
    record_abort(r);
    return cli_usage_error("%s", msg);
  }
  if (o->plot) {
    nh_traj_thin th = {nh_traj_create(model->form == NH_FORM_ODE ? model->nx : model->nq), CLI_PLOT_SAMPLES, 1, 0};
    if (!(r->plot = th).traj) {
      record_abort(r);
      return cli_usage_error("out of memory for the plot's record");
    }
  }
  return CLI_OK;
}

/* the observer the run needs: none when nothing is recorded (an impact log of a model without
 * gaps has no rows) */
static nh_observer_fn record_fn(const run_record *r, const nh_model *model) {
  return r->has_traj || r->plot.traj || r->contacts.n || (r->has_impacts && model->ngap > 0) ? record_observer : NULL;
}

/* an output that failed: its message on stderr, the first one's status and message kept */
static void output_failed(int wst, const char *msg, int *out_status, char *out_msg, size_t size) {
  fprintf(stderr, "nholo: %s\n", msg);
  if (!*out_status) snprintf(out_msg, size, "%s", msg);
  if (!*out_status) *out_status = wst;
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
  int is_penny;
  nh_model *model = load_model(&o, &is_penny, &rc);
  if (!model) return rc;

  if (o.plot && model->form == NH_FORM_ODE) {
    nh_model_destroy(model);
    return cli_usage_error("--plot: no plot for a first-order (ODE-form) model; use --out for the trajectory");
  }
  const int ncontacts = cli_contacts_count(model);
  if (!ncontacts && (o.mu_set || o.on_slip || o.on_detach || o.contacts_csv)) {
    nh_model_destroy(model);
    return cli_usage_error("%s: the model declares no contact (a model file's 'contact' statement)",
                           o.mu_set ? "--mu" : o.on_slip ? "--on-slip" : o.on_detach ? "--on-detach" : "--contacts");
  }

  // the method and simulation
  const nh_method *method = o.method ? nh_method_find(o.method) : nh_method_default_for(model);
  if (nh_method_check(method, model, msg, sizeof msg) != NH_OK) { /* the reason and the methods that fit */
    nh_model_destroy(model);
    return cli_usage_error("%s", msg);
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
  def.simul_order = o.simul_order;
  def.impact_step = o.impact_step;
  def.opts = o.mopts;
  def.log_limit = CLI_LOG_LIMIT;
  if ((rc = check_rows(&o, method, def.out_dt))) {
    nh_model_destroy(model);
    return rc;
  }
  if (!o.out && !o.plot && !(ncontacts && o.sample_set)) def.out_dt = 0.0; /* no samples to show: none computed */
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

  // run, the outputs streamed
  run_record rec;
  if ((rc = record_open(&rec, &o, model))) {
    nh_sim_destroy(sim);
    nh_model_destroy(model);
    return rc;
  }
  double t0 = now_seconds();
  int status = nh_sim_run(sim, o.t_end, o.impacts, record_fn(&rec, model), &rec);
  double wall = now_seconds() - t0;

  // a model whose contacts cannot act together is bad input: one error, nothing written
  int exit_code = nh_status_exit_code(status); /* a stop monitor's end is CLI_OK */
  if (exit_code == CLI_USAGE) {
    record_abort(&rec);
    cli_usage_error("%s", nh_sim_message(sim));
    nh_sim_destroy(sim);
    nh_model_destroy(model);
    return CLI_USAGE;
  }
  // outputs hold whatever was computed, also after a failure
  int wst, out_status = NH_OK; /* the first output that could not be written */
  char out_msg[2048] = "";     /* and its message */
  if (rec.has_traj && (wst = nh_csv_stream_commit(&rec.traj, msg, sizeof msg)) != NH_OK)
    exit_code = CLI_FAILED, output_failed(wst, msg, &out_status, out_msg, sizeof out_msg);
  if (rec.has_impacts && (wst = nh_csv_stream_commit(&rec.impacts, msg, sizeof msg)) != NH_OK)
    exit_code = CLI_FAILED, output_failed(wst, msg, &out_status, out_msg, sizeof out_msg);
  if ((wst = cli_contacts_commit(&rec.contacts, msg, sizeof msg)) != NH_OK)
    exit_code = CLI_FAILED, output_failed(wst, msg, &out_status, out_msg, sizeof out_msg);
  rec.has_traj = rec.has_impacts = 0;
  o.contacts = &rec.contacts;
  const nh_traj *traj = rec.plot.traj;
  if (o.plot) {
    char title[160];
    char lb[64];
    const double pa = model_param(model, "a"), pb = model_param(model, "b"), pR = model_param(model, "R");
    if (is_penny)
      snprintf(title, sizeof title, "penny, %s table, %s, %ld impacts (%s)", pa == pb ? "circular" : "elliptical",
               law_name(model->impact[0], lb, sizeof lb), nh_sim_get_stats(sim)->impacts, nh_method_name(method));
    else
      snprintf(title, sizeof title, "%s (%s)", model->name, nh_method_name(method));
    int prc = is_penny ? papers_plot_penny(o.plot, pa, pb, pR, traj, sim, title, msg, sizeof msg)
                       : nh_plot_timeseries(o.plot, model, traj, sim, title, msg, sizeof msg);
    if (prc != NH_OK) exit_code = CLI_FAILED, output_failed(prc, msg, &out_status, out_msg, sizeof out_msg);
  }
  // the status reported: the run's, else that of the first output that failed (and its message)
  const int run_status = status;
  if (status == NH_OK) status = out_status;
  if (run_status != NH_OK && run_status != NH_EVENT_STOP)
    fprintf(stderr, "nholo: run ended with %s: %s\n", nh_status_name(status), nh_sim_message(sim));
  print_summary(sim, nh_method_name(method), status, wall, &o, run_status == NH_OK ? out_msg : NULL);

  record_abort(&rec);
  nh_sim_destroy(sim);
  nh_model_destroy(model);
  return exit_code;
}
