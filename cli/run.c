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
  cli_sim_opts c; /* the options an ensemble's members share (cli/simopts.c) */
  double sample;
  int sample_set;
  const char *out, *events, *plot, *outcomes;
  int json;
  const char *contacts_csv;
  const cli_contacts *contacts; /* the run's, for the summary */
} run_opts;

/* ---- option table: name, argument, help, setter ------------------------------------- */

typedef int (*opt_setter)(run_opts *o, const char *opt, const char *val);

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
static int set_outcomes(run_opts *o, const char *opt, const char *val) {
  (void)opt;
  o->outcomes = val;
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
static int set_contacts(run_opts *o, const char *opt, const char *val) {
  (void)opt;
  o->contacts_csv = val;
  return 1;
}

typedef struct opt_def {
  const char *name, *arg, *help;
  opt_setter set;
} opt_def;

/* a row without a setter is a shared option (cli_sim_options), placed here for the help's order */
#define SHARED(name) {name, NULL, NULL, NULL}
static const opt_def run_options[] = {
    SHARED("--table"), SHARED("--impact"), SHARED("--impacts"), SHARED("--t-end"), SHARED("--method"),
    SHARED("--retraction"), SHARED("--dexp-order"), SHARED("--alpha"), SHARED("--variant"), SHARED("--start"), SHARED("--ld"),
    SHARED("--dt"), SHARED("--rtol"), SHARED("--atol"), SHARED("--newton-tol"), SHARED("--newton-max-iter"),
    {"--sample", "DT", "output interval on dense output (default 0.01 s for exact, else every step; 0 = every step)", set_sample},
    SHARED("--set"), SHARED("--backend"), SHARED("--compile-limit"), SHARED("--compile-memory"), SHARED("--project-initial"), SHARED("--zeno-count"),
    SHARED("--zeno-interval"), SHARED("--order"), SHARED("--max-outcomes"), SHARED("--impact-step"),
    {"--out", "FILE", "trajectory CSV: t, coordinates, velocities NAME_dot", set_out},
    {"--events", "FILE", "impact log CSV", set_events},
    {"--outcomes", "FILE", "with --order enumerate: the outcomes of each simultaneous impact, CSV (index, t, outcome, outcomes, truncated, followed, reflections, sequence, NAME_dot..., impulse_GAP...)", set_outcomes},
    {"--contacts", "FILE", "model files with contacts: per sample N, |f|, |f|/N and the running max of |f|/N, per contact", set_contacts},
    SHARED("--mu"), SHARED("--on-slip"), SHARED("--on-detach"),
    {"--plot", "FILE", "plot of the run (.png, .svg or .pdf)", set_plot},
    {"--json", NULL, "print a JSON summary on stdout", set_json},
};
#define NRUN_OPTIONS ((int)(sizeof run_options / sizeof run_options[0]))

static void run_help(void) {
  printf("usage: nholo run MODEL [options]\n\n"
         "Simulate MODEL through its impacts and report the run. MODEL is a built-in model (see\n"
         "'nholo list') or a model file (FILE.nh, docs/model-language.md).\n\noptions:\n");
  for (int i = 0; i < NRUN_OPTIONS; i++) {
    const opt_def *d = &run_options[i];
    const cli_sim_opt *sh = d->set ? NULL : cli_sim_opt_find(d->name);
    cli_print_option(d->name, sh ? sh->arg : d->arg, sh ? sh->help : d->help);
  }
  printf("an option's value follows it or is joined to it by '=' (--dt 0.05 or --dt=0.05)\n");
  printf("\nthe rolling ball and disk have their own options: nholo run rolling-ball --help\n");
  printf("\nexamples: nholo run penny --table ellipse --impact plastic --impacts 20 --plot penny.png\n"
         "          nholo run examples/penny.nh --set a=0.2 --method dopri5 --json\n"
         "exit status: 0 success, 1 the computation failed, 2 bad input, 3 Zeno guard, 4 the energy or the\n"
         "method's conserved quantity drifted (NH_DRIFT; the outputs are complete), 130 / 143 interrupted by\n"
         "SIGINT / SIGTERM: the run stops at its next step and its outputs keep what was computed (the\n"
         "summary's status NH_INTERRUPTED).\n");
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
  const char *keys[5] = {"trajectory", "events", "plot", "contacts", "outcomes"};
  const char *texts[5] = {"trajectory", "impact log", "plot", "contacts", "outcomes"};
  const char *vals[5] = {o->out, o->events, o->plot, o->contacts_csv, o->outcomes};
  if (json) fputs(", \"outputs\": {", f);
  for (int i = 0, first = 1; i < 5; i++)
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
    const cli_sim_opt *sh = d->set ? NULL : cli_sim_opt_find(name);
    const char *arg = sh ? sh->arg : d->arg, *val = NULL;
    if (arg && !(val = cli_opt_value(name, inl, argc, argv, &i, arg))) return CLI_USAGE;
    if (!arg && !cli_opt_flag(name, inl)) return CLI_USAGE;
    if (!(sh ? sh->set(&o->c, name, val) : d->set(o, name, val))) return CLI_USAGE;
  }
  if (!o->model) return cli_usage_error("run: no model given (see 'nholo list')");
  if (o->outcomes && o->c.simul_order != NH_SIMUL_ENUMERATE)
    return cli_usage_error("--outcomes: outcomes are enumerated only with --order enumerate");
  return cli_sim_check(&o->c);
}

static int check_outputs(const run_opts *o) {
  const char *paths[5] = {o->out, o->events, o->plot, o->contacts_csv, o->outcomes};
  char msg[512];
  for (int i = 0; i < 5; i++) {
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
  return o->plot ? cli_need_component("plot", "--plot") : CLI_OK;
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
    if (o->c.table) return *rc = cli_usage_error("--table: only for the built-in penny (use --set a=... --set b=...)"), NULL;
    nh_load_opts lo = cli_sim_load_opts(&o->c);
    if (!cli_model_file_ok(o->model)) return *rc = CLI_USAGE, NULL;
    if (!(model = nh_model_load(o->model, &lo, msg, sizeof msg)))
      return *rc = cli_signal ? cli_interrupted("while the model was loaded (its compiler stopped, its files removed)")
                              : cli_model_error(msg), NULL;
    cli_backend_note(model);
  } else {
    *is_penny = strcmp(o->model, "penny") == 0;
    nh_builtin_opts bo = {o->c.sets.n, o->c.sets.names, o->c.sets.values, o->c.law_set, o->c.law, o->c.table};
    if (!(model = nh_builtin_load(o->model, &bo, msg, sizeof msg))) return *rc = cli_usage_error("%s", msg), NULL;
  }
  return model;
}

/* ---- outputs, streamed as the run goes (cli.h: the bounds) ------------------------------ */

/* A trajectory CSV of more than NH_MAX_SAMPLES rows is refused before the run (an adaptive or
 * exact method's steps are not known before it: those rows are not bounded). */
static int check_rows(const run_opts *o, const nh_method *method, double out_dt) {
  const int fixed = !(nh_method_flags(method) & (NH_METHOD_ADAPTIVE | NH_METHOD_EXACT));
  if (fixed && o->c.dt > 0.0 && o->c.t_end / o->c.dt > NH_MAX_STEPS)
    return cli_usage_error("--t-end %g with --dt %g is %.3g steps, more than the %.0e allowed (NH_MAX_STEPS); use a "
                           "larger --dt (at least %g), a shorter --t-end or an adaptive method", o->c.t_end, o->c.dt,
                           o->c.t_end / o->c.dt, NH_MAX_STEPS, o->c.t_end / NH_MAX_STEPS);
  if (!o->out) return CLI_OK;
  const double step = out_dt > 0.0 ? out_dt : o->c.dt;
  if (out_dt <= 0.0 && (nh_method_flags(method) & (NH_METHOD_ADAPTIVE | NH_METHOD_EXACT))) return CLI_OK;
  const double rows = o->c.t_end / step;
  if (!(rows > NH_MAX_SAMPLES)) return CLI_OK;
  if (out_dt > 0.0)
    return cli_usage_error("--out: --t-end %g sampled every %g s is %.3g rows, more than the %.0e allowed; use a larger "
                           "--sample (at least %g)", o->c.t_end, out_dt, rows, NH_MAX_SAMPLES, o->c.t_end / NH_MAX_SAMPLES);
  return cli_usage_error("--out: --t-end %g with --dt %g is %.3g steps, a row each, more than the %.0e rows allowed; "
                         "use --sample DT (DT >= %g) or a larger --dt", o->c.t_end, o->c.dt, rows, NH_MAX_SAMPLES,
                         o->c.t_end / NH_MAX_SAMPLES);
}

/* what the run records: the CSV streams and the plot's bounded record */
typedef struct run_record {
  nh_csv_stream traj, impacts, outcomes;
  int has_traj, has_impacts, has_outcomes;
  nh_traj_thin plot; /* plot.traj NULL: no plot */
  cli_contacts contacts; /* n = 0: none */
} run_record;

static int record_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q, const double *v,
                           void *user) {
  run_record *r = user;
  if (r->has_traj) nh_csv_stream_observer(sim, kind, t, q, v, &r->traj);
  if (r->has_impacts) nh_csv_stream_observer(sim, kind, t, q, v, &r->impacts);
  if (r->has_outcomes) nh_csv_stream_observer(sim, kind, t, q, v, &r->outcomes);
  if (r->contacts.n && kind != NH_SAMPLE_IMPACT_BEFORE) cli_contacts_sample(&r->contacts, t, q, v);
  return r->plot.traj ? nh_traj_thin_observer(sim, kind, t, q, v, &r->plot) : 0;
}

static void record_abort(run_record *r) {
  if (r->has_traj) nh_csv_stream_abort(&r->traj);
  if (r->has_impacts) nh_csv_stream_abort(&r->impacts);
  if (r->has_outcomes) nh_csv_stream_abort(&r->outcomes);
  r->has_traj = r->has_impacts = r->has_outcomes = 0;
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
  if (o->outcomes && nh_csv_stream_open(&r->outcomes, NH_CSV_OUTCOMES, o->outcomes, model, msg, sizeof msg) != NH_OK) {
    record_abort(r);
    return cli_usage_error("%s", msg);
  }
  r->has_outcomes = o->outcomes != NULL;
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
  return r->has_traj || r->plot.traj || r->contacts.n || ((r->has_impacts || r->has_outcomes) && model->ngap > 0)
             ? record_observer : NULL;
}

/* The simultaneous impacts' notes on stderr, once each kind: how many fell back to the plastic
 * map and how many enumerations were truncated, with the first one's note (from the kept log;
 * the counts from the statistics, which the log limit does not cut) */
static void simul_notes(const nh_sim *sim) {
  const nh_sim_stats *st = nh_sim_get_stats(sim);
  const long count[2] = {st->simul_fallbacks, st->simul_truncated};
  const char *what[2] = {"resolved by the plastic map instead of %s law", "with the enumeration truncated"};
  for (int kind = 0; kind < 2; kind++) {
    if (count[kind] == 0) continue;
    char note[512] = "";
    double t = NAN;
    for (long k = 0; k < nh_sim_impact_count(sim) && !note[0]; k++) {
      nh_impact_record r;
      if (nh_sim_impact_get(sim, k, &r) != NH_OK || !(kind ? r.outcomes_truncated : r.fallback)) continue;
      nh_impact_note(nh_sim_model(sim), &r, note, sizeof note);
      t = r.t;
    }
    fprintf(stderr, "nholo: note: %ld simultaneous impact%s ", count[kind], count[kind] == 1 ? "" : "s");
    fprintf(stderr, what[kind], count[kind] == 1 ? "its" : "their");
    if (note[0]) fprintf(stderr, "; the first, at t = %.17g: %s", t, note);
    fputc('\n', stderr);
  }
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
  cli_sim_opts_init(&o.c);
  int rc = parse_run(argc, argv, &o);
  if (rc) return rc;
  cli_signals_install(); /* SIGINT, SIGTERM: the run stops at its next step, its outputs kept */

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
  if (!ncontacts && (o.c.mu_set || o.c.on_slip || o.c.on_detach || o.contacts_csv)) {
    nh_model_destroy(model);
    return cli_usage_error("%s: the model declares no contact (a model file's 'contact' statement)",
                           o.c.mu_set ? "--mu" : o.c.on_slip ? "--on-slip" : o.c.on_detach ? "--on-detach" : "--contacts");
  }

  // the method (given, or chosen for this run and said why) and simulation
  nh_sim_def def = nh_sim_def_default();
  cli_sim_apply(&o.c, NULL, &def);
  def.horizon = o.c.t_end;
  char why[320];
  const nh_method *method = o.c.method ? nh_method_find(o.c.method) : nh_sim_choose_method(model, &def, why, sizeof why);
  if (nh_method_check(method, model, msg, sizeof msg) != NH_OK) { /* the reason and the methods that fit */
    nh_model_destroy(model);
    return cli_usage_error("%s", msg);
  }
  def.method = o.c.method ? method : NULL; /* NULL: the library makes the same choice and keeps its reason */
  def.out_dt = o.sample_set ? o.sample : ((nh_method_flags(method) & NH_METHOD_EXACT) ? 0.01 : 0.0);
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
  int status = nh_sim_run(sim, o.c.t_end, o.c.impacts, record_fn(&rec, model), &rec);
  double wall = now_seconds() - t0;

  // a model whose contacts cannot act together is bad input: one error, nothing written
  int exit_code = nh_status_exit_code(status); /* a stop monitor's end is CLI_OK */
  if (!o.c.method && exit_code != CLI_USAGE) /* the automatic method: which and why, one line */
    fprintf(stderr, "nholo: method %s (auto): %s\n", nh_method_name(method), why);
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
  if (rec.has_outcomes && (wst = nh_csv_stream_commit(&rec.outcomes, msg, sizeof msg)) != NH_OK)
    exit_code = CLI_FAILED, output_failed(wst, msg, &out_status, out_msg, sizeof out_msg);
  if ((wst = cli_contacts_commit(&rec.contacts, msg, sizeof msg)) != NH_OK)
    exit_code = CLI_FAILED, output_failed(wst, msg, &out_status, out_msg, sizeof out_msg);
  rec.has_traj = rec.has_impacts = rec.has_outcomes = 0;
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
  simul_notes(sim);
  char what[256];
  if (run_status == NH_INTERRUPTED && cli_signal) {
    snprintf(what, sizeof what, "at t = %.17g of %g: the outputs hold the run up to there", nh_sim_time(sim), o.c.t_end);
    exit_code = cli_interrupted(what);
  } else if (run_status != NH_OK && run_status != NH_EVENT_STOP) {
    fprintf(stderr, "nholo: run ended with %s: %s\n", nh_status_name(status), nh_sim_message(sim));
  }
  if (cli_signal && run_status != NH_INTERRUPTED) /* after the run: its outputs are whole */
    exit_code = cli_interrupted("after the run had ended: the outputs are complete");
  print_summary(sim, nh_method_name(method), status, wall, &o, run_status == NH_OK ? out_msg : NULL);

  record_abort(&rec);
  nh_sim_destroy(sim);
  nh_model_destroy(model);
  return exit_code;
}
