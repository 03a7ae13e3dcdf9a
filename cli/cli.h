/* cli.h - shared pieces of the nholo command-line tool (a thin client of the public API).
 *
 * Exit status: 0 success, 1 the computation failed (outputs hold what was computed),
 * 2 bad input (nothing written), 3 the run was stopped by the Zeno guard, 4 the method left
 * its regime, 130 / 143 interrupted by SIGINT / SIGTERM (outputs hold what was computed). */
#ifndef NH_CLI_H
#define NH_CLI_H

#include "nholo/nholo.h"
#include "nholo/systems/all.h"

/* exit statuses: 4 is a run that completed but left its method's regime (NH_DRIFT) */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2, CLI_ZENO = 3, CLI_DRIFT = 4 };

/* most --set overrides on one command line */
#define CLI_MAX_SET 64

/* The --set NAME=VALUE overrides of one command line. */
typedef struct cli_sets {
  int n;
  char name[CLI_MAX_SET][NH_MAX_NAME];
  const char *names[CLI_MAX_SET]; /* name[i], for nh_load_opts.set_names */
  double values[CLI_MAX_SET];
} cli_sets;

/* Append one NAME=VALUE; on bad input print an error naming the option and return 0. */
int cli_parse_set(const char *opt, const char *text, cli_sets *sets);
/* Parse --backend auto|tape|codegen. */
int cli_parse_backend(const char *opt, const char *text, nh_backend *out);

/* 1 when a MODEL argument names a model file (ends in .nh or contains a '/') */
int cli_is_model_file(const char *model);

/* An option written "--name=value": its name copied into buf and *inline_val pointing at the
 * value; any other argument is returned as it is with *inline_val NULL. */
const char *cli_opt_name(const char *arg, char *buf, size_t size, const char **inline_val);
/* The value of option name: inline_val when given, else the next argument (advancing *i); on
 * a missing value print an error (hint: what it takes, may be NULL) and return NULL. */
const char *cli_opt_value(const char *name, const char *inline_val, int argc, char **argv, int *i,
                          const char *hint);
/* A flag takes no value: 1 when inline_val is NULL, else print an error and return 0. */
int cli_opt_flag(const char *name, const char *inline_val);

/* A model file must be a readable regular file (a FIFO or device is refused without opening
 * it for long); else print "nholo: cannot read 'FILE': <the system's reason>" and return 0. */
int cli_model_file_ok(const char *path);
/* Print a model file's error and return CLI_USAGE: a diagnostic located in the file
 * ("FILE:LINE:COL: error: ...", the line, a caret) as it is, as a compiler prints it; any other
 * message after "nholo: ". Both run and check print through it. A model that --backend codegen
 * could not compile (no compiler, its budget passed) is exit status 1, not 2. */
int cli_model_error(const char *msg);

/* Print "nholo: <message>" on stderr and return CLI_USAGE. */
int cli_usage_error(const char *fmt, ...);

/* Whether component `name` ("plot", "hdf5") loads; if not, print "nholo: OPT: why" and
 * return CLI_USAGE (before anything runs), else CLI_OK. */
int cli_need_component(const char *name, const char *opt);

/* Parse a finite number; on failure print an error naming the option and return 0. */
int cli_parse_double(const char *opt, const char *text, double *out);
/* Parse a whole number in [lo, hi]. */
int cli_parse_long(const char *opt, const char *text, long lo, long hi, long *out);
/* Parse an impact law: elastic, plastic, restitution=E (E in [0, 1]). */
int cli_parse_impact(const char *opt, const char *text, nh_impact_law *law);

/* The options of one simulation that `nholo run` and `nholo ensemble` share (cli/simopts.c):
 * the model's (--table, --impact, --set, --backend, --project-initial, the contacts'), the
 * method's and the driver's, parsed from one table so that a member of an ensemble runs as
 * `nholo run` would with the same options. */
typedef struct cli_sim_opts {
  const char *table;     /* the penny's --table (NULL: as built), checked by the loader */
  nh_impact_law law;     /* --impact (law_set) */
  int law_set;
  long impacts;          /* --impacts (0: no limit) */
  double t_end;
  const char *method;    /* NULL: the model's default */
  nh_method_opts mopts;  /* --retraction, --dexp-order, --alpha, --start, --ld, --newton-* */
  double dt, rtol, atol;
  cli_sets sets;
  nh_backend backend;
  nh_load_opts cc;       /* --compile-limit, --compile-memory: cc_time_limit, cc_memory_limit */
  int project_initial;
  long zeno_count;
  double zeno_interval;
  int simul_order, impact_step; /* nh_simul_policy, nh_impact_step */
  long max_outcomes;     /* --max-outcomes (max_outcomes_set; needs --order enumerate) */
  int max_outcomes_set;
  int start_set;         /* --start given (needs --variant paper) */
  /* contacts: --mu (mu_set), --on-slip, --on-detach (0: the file's; else 1 + nh_monitor_action) */
  int mu_set, on_slip, on_detach;
  double mu;
} cli_sim_opts;

/* one option: its name, its argument (NULL: a flag), its help, its setter (0 after the error) */
typedef struct cli_sim_opt {
  const char *name, *arg, *help;
  int (*set)(cli_sim_opts *o, const char *opt, const char *val);
} cli_sim_opt;
extern const cli_sim_opt cli_sim_options[];
extern const int cli_nsim_options;
/* the shared option NAME ("--dt"), or NULL */
const cli_sim_opt *cli_sim_opt_find(const char *name);
/* one line of a command's help: "  NAME ARG" in 28 columns, then the help */
void cli_print_option(const char *name, const char *arg, const char *help);
/* the defaults of `nholo run` (t_end 100, dt 1e-3, nh_sim_def_default's others) */
void cli_sim_opts_init(cli_sim_opts *o);
/* a model file's load options: backend, overrides, impact law, projection, contacts */
nh_load_opts cli_sim_load_opts(const cli_sim_opts *o);
/* the shared options that depend on each other (--max-outcomes needs --order enumerate):
 * CLI_OK, or CLI_USAGE after the error */
int cli_sim_check(const cli_sim_opts *o);
/* into def: the method, steps and tolerances, the method's options, the driver's */
void cli_sim_apply(const cli_sim_opts *o, const nh_method *method, nh_sim_def *def);


/* SIGINT and SIGTERM (cli/signals.c): cli_signal is the signal received (0: none), the
 * cancellation flag given to the library; cli_signals_install sets the handlers (a command
 * that polls the flag calls it); cli_interrupted prints "nholo: interrupted by SIGINT WHAT"
 * (what Nullable: nothing printed) and returns the exit status 128 + the signal. */
extern volatile sig_atomic_t cli_signal;
void cli_signals_install(void);
const char *cli_signal_name(void);
int cli_interrupted(const char *what);

/* The C compiler's budget of a model file (--compile-limit SECONDS, --compile-memory MIB;
 * nh_load_opts.cc_time_limit, cc_memory_limit): parse into lo; print a budget note of a
 * loaded model (nh_model_backend_note) on stderr, "nholo: note: ...". */
int cli_parse_compile_limit(const char *opt, const char *val, nh_load_opts *lo);
void cli_backend_note(const nh_model *model);

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
/* `nholo ensemble` (cli/ensemble.c) */
int cmd_ensemble(int argc, char **argv);
/* `nholo lyapunov` (cli/lyapunov.c) */
int cmd_lyapunov(int argc, char **argv);

/* The rolling contacts of a model in `nholo run` (cli/contacts.c): its monitors NAME.normal,
 * NAME.friction (a model file's `contact` statements), tracked over the run's samples. */
#define CLI_MAX_CONTACTS 16
typedef struct cli_contact {
  char name[NH_MAX_NAME];
  int normal, friction; /* monitor indices (friction -1: none) */
  long samples;
  double min_mu, t_min_mu; /* running max of |f|/N while N > 0 */
  double min_N, t_min_N, max_f, t_max_f;
  int detached;            /* a sample with N <= 0 was seen */
} cli_contact;
typedef struct cli_contacts {
  const nh_model *model;
  int n;
  cli_contact c[CLI_MAX_CONTACTS];
  double *x, *mv; /* the state and the monitor values, allocated once */
  double last_t;
  nh_outfile out; /* --contacts FILE */
  int has_out;
} cli_contacts;
/* The number of contacts of model. */
int cli_contacts_count(const nh_model *model);
/* Find the contacts of model (n = 0: none) and open the CSV at csv (Nullable). */
int cli_contacts_open(cli_contacts *cs, const nh_model *model, const char *csv, char *msg, size_t msg_size);
/* One sample (an observer's): N, |f|, |f|/N and the statistics; a CSV row. */
int cli_contacts_sample(cli_contacts *cs, double t, const double *q, const double *v);
/* The statistics in the summary (JSON: a "contacts" array; text: lines). */
void cli_contacts_summary(FILE *f, int json, const cli_contacts *cs);
int cli_contacts_commit(cli_contacts *cs, char *msg, size_t msg_size);
void cli_contacts_abort(cli_contacts *cs);

/* `nholo figure` (cli/figures.c) */
int cmd_figure(int argc, char **argv);

/* Bounds of a run's outputs (the CSVs are streamed, so memory does not grow with a run): a
 * run whose trajectory CSV would have more rows than NH_MAX_SAMPLES (t_end over the step or
 * --sample), or a fixed-step run of more steps than NH_MAX_STEPS, is refused before it starts
 * (the library's bounds, nholo/sim.h: the Python binding refuses with the same numbers); the
 * impact and event logs kept for the summary hold at most CLI_LOG_LIMIT records (the CSVs
 * have them all); a plot is drawn from at most CLI_PLOT_SAMPLES samples (a longer run's are
 * thinned evenly, nh_traj_thin). */
#define CLI_LOG_LIMIT 10000L
#define CLI_PLOT_SAMPLES 200000L

#endif
