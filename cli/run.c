/* run.c - `nholo run MODEL [options]`: simulate a model and write its results.
 *
 * One path for every model: the MODEL argument opens as a system (nholo/systems.h), which says
 * which options the run takes (the common ones of this file and cli/simopts.c, and its own: the
 * rolling ball's --form, --mu, --on-slip, --on-detach) and builds the run's phases; the phases
 * run with the common driver (nh_chain_run), and the outputs are the common records unless the
 * system records its run its own way (nholo/io.h, nh_system_outputs_find). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"

typedef struct run_opts {
  const char *model;
  nh_system *sys;                /* the system of the model: its options, its phases */
  const nh_system_outputs *outs; /* what it records its own way (Nullable) */
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

/* the common help: every common option */
static void common_help(void) {
  printf("usage: nholo run MODEL [options]\n\n"
         "Simulate MODEL through its impacts and report the run. MODEL is a built-in model (see\n"
         "'nholo list') or a model file (FILE.nh, docs/model-language.md).\n\noptions:\n");
  for (int i = 0; i < NRUN_OPTIONS; i++) {
    const opt_def *d = &run_options[i];
    const cli_sim_opt *sh = d->set ? NULL : cli_sim_opt_find(d->name);
    cli_print_option(d->name, sh ? sh->arg : d->arg, sh ? sh->help : d->help);
  }
  printf("an option's value follows it or is joined to it by '=' (--dt 0.05 or --dt=0.05)\n");
  printf("\na system may take options of its own, listed by nholo run MODEL --help (the rolling ball and\n"
         "disk: nholo run rolling-ball --help)\n");
  printf("\nexamples: nholo run penny --table ellipse --impact plastic --impacts 20 --plot penny.png\n"
         "          nholo run examples/penny.nh --set a=0.2 --method dopri5 --json\n"
         "exit status: 0 success, 1 the computation failed, 2 bad input, 3 Zeno guard, 4 the energy or the\n"
         "method's conserved quantity drifted (NH_DRIFT; the outputs are complete), 130 / 143 interrupted by\n"
         "SIGINT / SIGTERM: the run stops at its next step and its outputs keep what was computed (the\n"
         "summary's status NH_INTERRUPTED).\n");
}

/* the help of MODEL's system: the common help, unless it lists the options it takes */
static void run_help(const nh_system *sys) {
  const nh_system_class *c = sys ? sys->cls : NULL;
  if (!c || !c->usage) {
    common_help();
    return;
  }
  printf("usage: nholo run %s [options]\n\n%s\n\noptions:\n", c->usage, c->about ? c->about : "");
  for (int i = 0; i < c->noptions; i++) cli_print_option(c->options[i].name, c->options[i].arg, c->options[i].help);
  printf("an option's value follows it or is joined to it by '=' (--dt 0.05 or --dt=0.05)\n");
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

static void print_summary(nh_sim *const *sims, int nphases, const char *const *phase_names, const char *method,
                          int status, double wall, const run_opts *o, void *own, const char *message) {
  const nh_sim *ran[NH_SYSTEM_MAX_PHASES];
  for (int i = 0; i < nphases; i++) ran[i] = sims[i];
  const nh_model *last = nh_sim_model(sims[nphases - 1]);
  nh_summary s = {ran, nphases, phase_names, method, status, wall, 0, run_outputs, (void *)o, message};
  if (o->outs && o->outs->summary) s.flags = o->outs->flags, s.extra = o->outs->summary, s.user = own;
  else s.flags = NH_SUMMARY_MECHANICAL | (last->nmon > 0 ? NH_SUMMARY_EVENTS : 0);
  if (o->json) nh_summary_write_json(stdout, &s);
  else nh_summary_write_text(stdout, &s);
}

/* ---- the command line ------------------------------------------------------------------- */

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const opt_def *run_opt_find(const char *name) {
  for (int k = 0; k < NRUN_OPTIONS; k++)
    if (strcmp(run_options[k].name, name) == 0) return &run_options[k];
  return NULL;
}

/* the argument of a common option (NULL: a flag) */
static const char *common_arg(const opt_def *d) {
  const cli_sim_opt *sh = d->set ? NULL : cli_sim_opt_find(d->name);
  return sh ? sh->arg : d->arg;
}

/* The MODEL argument, before the options are parsed (they depend on its system): the first
 * argument that is neither an option nor an option's value. Every option takes a value but
 * the common flags and one written --name=value. NULL when there is none. */
static const char *find_model(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-') return a;
    if (a[1] != '-' || strchr(a, '=')) continue;
    const opt_def *d = run_opt_find(a);
    if (!d || common_arg(d)) i++;
  }
  return NULL;
}

/* "a, b or c" of a NULL-terminated list */
static const char *join_or(const char *const *list, char *buf, size_t size) {
  buf[0] = '\0';
  for (int i = 0; list[i]; i++) {
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, "%s%s", i == 0 ? "" : list[i + 1] ? ", " : " or ", list[i]);
  }
  return buf;
}

/* --method of a system that lists the methods that run it: one of them */
static int method_of_system(const nh_system_class *sc, const char *val) {
  char list[256];
  for (int k = 0; sc->methods[k]; k++)
    if (strcmp(sc->methods[k], val) == 0) return CLI_OK;
  return cli_usage_error("--method: '%s' cannot run %s (use %s)", val, sc->noun, join_or(sc->methods, list, sizeof list));
}

/* an option of the system's own (a number >= 0, or a keyword among its argument's words) */
static int own_option(run_opts *o, int k, const char *name, const char *val) {
  const nh_system_option *so = &o->sys->cls->options[k];
  double x = 0.0;
  int kw = -1;
  if (so->kind == NH_SYSOPT_NUMBER) {
    if (!nonnegative(name, val, &x)) return CLI_USAGE;
  } else {
    char tmp[256], words[300] = "";
    snprintf(tmp, sizeof tmp, "%s", so->arg);
    int n = 0;
    for (char *p = strtok(tmp, "|"); p; p = strtok(NULL, "|"), n++) {
      if (strcmp(p, val) == 0 && kw < 0) kw = n;
      size_t len = strlen(words);
      snprintf(words + len, sizeof words - len, "%s%s", n ? " or " : "", p);
    }
    if (kw < 0) return cli_usage_error("%s: expected %s, got '%s'", name, words, val);
  }
  if (o->sys->cls->option(o->sys->user, k, kw, x) != NH_OK)
    return cli_usage_error("%s: '%s' is not a value %s takes", name, val, o->sys->cls->noun);
  return CLI_OK;
}

/* one option (name, its inline value or NULL) of the system's own, or a common one it takes */
static int parse_option(run_opts *o, const char *a, const char *name, const char *inl, int argc, char **argv, int *i) {
  const nh_system_class *sc = o->sys->cls;
  const int k = nh_system_option_find(o->sys, name);
  const char *val = NULL;
  if (k >= 0 && sc->options[k].kind != NH_SYSOPT_COMMON) {
    if (!(val = cli_opt_value(name, inl, argc, argv, i, sc->options[k].arg))) return CLI_USAGE;
    return own_option(o, k, name, val);
  }
  const opt_def *d = run_opt_find(name);
  if (!d || (sc->options && k < 0)) {
    if (sc->options) return cli_usage_error("unknown option '%s' for %s (see 'nholo run %s --help')", a, sc->noun,
                                           o->sys->model);
    return cli_usage_error("unknown option '%s' (see 'nholo run --help')", a);
  }
  const cli_sim_opt *sh = d->set ? NULL : cli_sim_opt_find(name);
  const char *arg = common_arg(d);
  if (arg && !(val = cli_opt_value(name, inl, argc, argv, i, arg))) return CLI_USAGE;
  if (!arg && !cli_opt_flag(name, inl)) return CLI_USAGE;
  if (sc->methods && strcmp(name, "--method") == 0 && method_of_system(sc, val)) return CLI_USAGE;
  if (!(sh ? sh->set(&o->c, name, val) : d->set(o, name, val))) return CLI_USAGE;
  return CLI_OK;
}

/* the system's defaults of the common options */
static void system_defaults(run_opts *o) {
  const nh_system_class *c = o->sys->cls;
  if (c->t_end > 0.0) o->c.t_end = c->t_end;
  if (c->dt > 0.0) o->c.dt = c->dt;
  if (c->rtol > 0.0) o->c.rtol = c->rtol;
  if (c->atol > 0.0) o->c.atol = c->atol;
  if (c->sample > 0.0) o->sample = c->sample;
  o->c.method = c->method;
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
    int rc = parse_option(o, a, name, inl, argc, argv, &i);
    if (rc) return rc;
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

/* The run's phases from the system; CLI_OK, else the exit status after the error. */
static int load_system(const run_opts *o, nh_system_run *run) {
  char msg[2048];
  nh_load_opts lo = cli_sim_load_opts(&o->c);
  const int rc = nh_system_build(o->sys, &lo, o->c.table, run, msg, sizeof msg);
  if (rc == NH_OK) {
    for (int k = 0; k < run->nphases; k++) cli_backend_note(run->models[k]);
    return CLI_OK;
  }
  if (cli_signal) return cli_interrupted("while the model was loaded (its compiler stopped, its files removed)");
  return rc == NH_ERR_PARSE ? cli_model_error(msg) : cli_usage_error("%s", msg);
}

/* ---- outputs, streamed as the run goes (cli.h: the bounds) ------------------------------ */

/* A trajectory CSV of more than NH_MAX_SAMPLES rows is refused before the run (an adaptive or
 * exact method's steps are not known before it: those rows are not bounded); rows_dt: the
 * rows' interval (0: a row per step). */
static int check_rows(const run_opts *o, const nh_method *method, double rows_dt) {
  const int fixed = !(nh_method_flags(method) & (NH_METHOD_ADAPTIVE | NH_METHOD_EXACT));
  if (fixed && o->c.dt > 0.0 && o->c.t_end / o->c.dt > NH_MAX_STEPS)
    return cli_usage_error("--t-end %g with --dt %g is %.3g steps, more than the %.0e allowed (NH_MAX_STEPS); use a "
                           "larger --dt (at least %g), a shorter --t-end or an adaptive method", o->c.t_end, o->c.dt,
                           o->c.t_end / o->c.dt, NH_MAX_STEPS, o->c.t_end / NH_MAX_STEPS);
  if (!o->out) return CLI_OK;
  const double step = rows_dt > 0.0 ? rows_dt : o->c.dt;
  if (rows_dt <= 0.0 && (nh_method_flags(method) & (NH_METHOD_ADAPTIVE | NH_METHOD_EXACT))) return CLI_OK;
  const double rows = o->c.t_end / step;
  if (!(rows > NH_MAX_SAMPLES)) return CLI_OK;
  if (rows_dt > 0.0)
    return cli_usage_error("--out: --t-end %g sampled every %g s is %.3g rows, more than the %.0e allowed; use a larger "
                           "--sample (at least %g)", o->c.t_end, rows_dt, rows, NH_MAX_SAMPLES, o->c.t_end / NH_MAX_SAMPLES);
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

/* ---- the run ------------------------------------------------------------------------------ */

/* one run: the system's phases, their simulations and what is recorded */
typedef struct run_state {
  nh_system_run run;
  nh_sim *sims[NH_SYSTEM_MAX_PHASES];
  const nh_method *method;
  char why[320];  /* the automatic method's reason */
  run_record rec; /* the common records */
  void *own;      /* the system's record (Nullable) */
  int last;       /* the phase that ended the run */
} run_state;

static void run_state_free(run_state *s, const run_opts *o) {
  if (s->own) o->outs->close(s->own);
  free(s->own);
  s->own = NULL;
  record_abort(&s->rec);
  for (int k = 0; k < NH_SYSTEM_MAX_PHASES; k++) nh_sim_destroy(s->sims[k]), s->sims[k] = NULL;
  nh_system_run_free(&s->run);
}

/* the records opened (headers written): the system's own, else the common ones */
static int record_start(const run_opts *o, run_state *s) {
  char msg[2048];
  if (!o->outs || !o->outs->size) return record_open(&s->rec, o, s->run.models[0]);
  if (!(s->own = calloc(1, o->outs->size))) return cli_usage_error("out of memory for the run's record");
  nh_run_files f = {o->out, o->events, o->plot, o->sample, CLI_PLOT_SAMPLES};
  if (o->outs->open(s->own, &s->run, s->sims, &f, msg, sizeof msg) != NH_OK) return cli_usage_error("%s", msg);
  return CLI_OK;
}

/* the phases, checked against the options; the method (given, or chosen for this run with its
 * reason), a simulation per phase, the outputs checked and opened */
static int run_setup(const run_opts *o, run_state *s) {
  char msg[2048];
  int rc = load_system(o, &s->run);
  if (rc) return rc;
  const nh_model *model = s->run.models[0];
  if (o->plot && !(o->outs && o->outs->plot) && model->form == NH_FORM_ODE)
    return cli_usage_error("--plot: no plot for a first-order (ODE-form) model; use --out for the trajectory");
  const int ncontacts = cli_contacts_count(model);
  if (!ncontacts && (o->c.mu_set || o->c.on_slip || o->c.on_detach || o->contacts_csv))
    return cli_usage_error("%s: the model declares no contact (a model file's 'contact' statement)",
                           o->c.mu_set ? "--mu" : o->c.on_slip ? "--on-slip" : o->c.on_detach ? "--on-detach" : "--contacts");
  nh_sim_def def = nh_sim_def_default();
  cli_sim_apply(&o->c, NULL, &def);
  def.horizon = o->c.t_end;
  s->method = o->c.method ? nh_method_find(o->c.method) : nh_sim_choose_method(model, &def, s->why, sizeof s->why);
  for (int k = 0; k < s->run.nphases; k++) /* the reason and the methods that fit */
    if (nh_method_check(s->method, s->run.models[k], msg, sizeof msg) != NH_OK) return cli_usage_error("%s", msg);
  def.method = o->c.method ? s->method : NULL; /* NULL: the library makes the same choice and keeps its reason */
  // the samples: the system's grid (--sample thins its rows), else --sample or every step
  const double grid = o->outs ? o->outs->grid : 0.0;
  def.out_dt = grid > 0.0 ? grid : o->sample_set ? o->sample : ((nh_method_flags(s->method) & NH_METHOD_EXACT) ? 0.01 : 0.0);
  def.log_limit = CLI_LOG_LIMIT;
  if ((rc = check_rows(o, s->method, grid > 0.0 ? fmax(o->sample, grid) : def.out_dt))) return rc;
  if (grid <= 0.0 && !o->out && !o->plot && !(ncontacts && o->sample_set)) def.out_dt = 0.0; /* none to show */
  for (int k = 0; k < s->run.nphases; k++)
    if (!(s->sims[k] = nh_sim_create(s->run.models[k], &def, msg, sizeof msg))) return cli_usage_error("%s", msg);
  if ((rc = check_outputs(o))) return rc;
  return record_start(o, s);
}

/* the phases with the common driver, the outputs streamed; the run's status */
static int run_chain(const run_opts *o, run_state *s, double *wall) {
  const nh_system_run *r = &s->run;
  nh_chain c = {s->sims, r->nphases, r->breaks, r->nbreaks, o->c.impacts, r->max_switches, r->reset, r->reset_user};
  nh_observer_fn obs = s->own ? o->outs->observe : record_fn(&s->rec, r->models[0]);
  double t0 = now_seconds();
  int status = nh_chain_run(&c, 0, o->c.t_end, obs, s->own ? s->own : (void *)&s->rec, &s->last);
  *wall = now_seconds() - t0;
  if (o->sys->cls->finish) o->sys->cls->finish(o->sys->user, &s->run, s->sims, s->last);
  return status;
}

/* the records committed and the plot drawn; a failure sets the exit status and is kept */
static void write_outputs(run_opts *o, run_state *s, int *exit_code, int *out_status, char *out_msg, size_t size) {
  char msg[2048];
  int wst;
  run_record *rec = &s->rec;
  if (s->own && (wst = o->outs->commit(s->own, s->last, msg, sizeof msg)) != NH_OK)
    *exit_code = CLI_FAILED, output_failed(wst, msg, out_status, out_msg, size);
  if (rec->has_traj && (wst = nh_csv_stream_commit(&rec->traj, msg, sizeof msg)) != NH_OK)
    *exit_code = CLI_FAILED, output_failed(wst, msg, out_status, out_msg, size);
  if (rec->has_impacts && (wst = nh_csv_stream_commit(&rec->impacts, msg, sizeof msg)) != NH_OK)
    *exit_code = CLI_FAILED, output_failed(wst, msg, out_status, out_msg, size);
  if (rec->has_outcomes && (wst = nh_csv_stream_commit(&rec->outcomes, msg, sizeof msg)) != NH_OK)
    *exit_code = CLI_FAILED, output_failed(wst, msg, out_status, out_msg, size);
  if ((wst = cli_contacts_commit(&rec->contacts, msg, sizeof msg)) != NH_OK)
    *exit_code = CLI_FAILED, output_failed(wst, msg, out_status, out_msg, size);
  rec->has_traj = rec->has_impacts = rec->has_outcomes = 0;
  o->contacts = &rec->contacts;
  if (!o->plot) return;
  const nh_model *model = s->run.models[0];
  const nh_sim *sim = s->sims[s->last];
  nh_run_view v = {model, rec->plot.traj, sim, nh_method_name(s->method)};
  char title[160];
  snprintf(title, sizeof title, "%s (%s)", model->name, nh_method_name(s->method));
  int prc = o->outs && o->outs->plot ? o->outs->plot(s->own, o->plot, &v, msg, sizeof msg)
                                     : nh_plot_timeseries(o->plot, model, rec->plot.traj, sim, title, msg, sizeof msg);
  if (prc != NH_OK) *exit_code = CLI_FAILED, output_failed(prc, msg, out_status, out_msg, size);
}

/* after the run: the outputs, the notes and the summary; the exit status */
static int run_report(run_opts *o, run_state *s, int status, double wall) {
  const nh_sim *sim = s->sims[s->last];
  // a model whose contacts cannot act together is bad input: one error, nothing written
  int exit_code = nh_status_exit_code(status); /* a stop monitor's end is CLI_OK */
  if (!o->c.method && exit_code != CLI_USAGE) /* the automatic method: which and why, one line */
    fprintf(stderr, "nholo: method %s (auto): %s\n", nh_method_name(s->method), s->why);
  if (exit_code == CLI_USAGE) return cli_usage_error("%s", nh_sim_message(sim));
  // outputs hold whatever was computed, also after a failure
  int out_status = NH_OK; /* the first output that could not be written */
  char out_msg[2048] = ""; /* and its message */
  write_outputs(o, s, &exit_code, &out_status, out_msg, sizeof out_msg);
  // the status reported: the run's, else that of the first output that failed (and its message)
  const int run_status = status;
  if (status == NH_OK) status = out_status;
  simul_notes(sim);
  char what[256];
  if (run_status == NH_INTERRUPTED && cli_signal) {
    snprintf(what, sizeof what, "at t = %.17g of %g: the outputs hold the run up to there", nh_sim_time(sim), o->c.t_end);
    exit_code = cli_interrupted(what);
  } else if (run_status != NH_OK && run_status != NH_EVENT_STOP) {
    fprintf(stderr, "nholo: run ended with %s: %s\n", nh_status_name(status), nh_sim_message(sim));
  }
  if (cli_signal && run_status != NH_INTERRUPTED) /* after the run: its outputs are whole */
    exit_code = cli_interrupted("after the run had ended: the outputs are complete");
  const char *const *names = s->run.phase_names[0] ? s->run.phase_names : NULL;
  print_summary(s->sims, s->last + 1, names, nh_method_name(s->method), status, wall, o, s->own,
                run_status == NH_OK ? out_msg : NULL);
  return exit_code;
}

static int run_model(run_opts *o) {
  run_state s;
  memset(&s, 0, sizeof s);
  int rc = run_setup(o, &s);
  if (!rc) {
    double wall;
    const int status = run_chain(o, &s, &wall);
    rc = run_report(o, &s, status, wall);
  }
  run_state_free(&s, o);
  return rc;
}

int cmd_run(int argc, char **argv) {
  run_opts o;
  memset(&o, 0, sizeof o);
  if (!(o.sys = nh_system_open(find_model(argc, argv)))) return cli_usage_error("out of memory");
  o.outs = nh_system_outputs_find(o.sys);
  int help = 0, rc = CLI_OK;
  for (int i = 1; i < argc; i++) help |= strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0;
  if (help) {
    run_help(o.sys);
  } else {
    cli_sim_opts_init(&o.c);
    system_defaults(&o);
    if (!(rc = parse_run(argc, argv, &o))) {
      cli_signals_install(); /* SIGINT, SIGTERM: the run stops at its next step, its outputs kept */
      rc = run_model(&o);
    }
  }
  nh_system_close(o.sys);
  return rc;
}
