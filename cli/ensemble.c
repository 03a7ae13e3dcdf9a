/* ensemble.c - `nholo ensemble MODEL [options]`: many runs of a model whose initial values and
 * parameters are drawn from distributions (nholo/ensemble.h, docs/ensembles.md). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "nholo/ensemble.h"

/* most --vary options (or member-file columns) on one command line; most --stat outputs */
#define ENS_MAX_VARY 64
#define ENS_MAX_STAT 64
/* histogram bins of --stat NAME=LO:HI without a bin count */
#define ENS_DEFAULT_BINS 100

/* a built-in and its parameters */
typedef struct ens_builtin {
  int file;                        /* the model is a model file */
  const nh_builtin_params *params; /* a built-in's by name (NULL: a file, or a built-in without) */
  void *p;                         /* its block, the table and the fixed --set applied */
} ens_builtin;

typedef struct ens_opts {
  const char *model;
  cli_sim_opts c; /* every member's options, as for `nholo run` (cli/simopts.c) */
  nh_ensemble_var vars[ENS_MAX_VARY];
  int nvar;
  long members, seed, threads, chunk;
  int members_set;
  const char *out, *members_file;
  double sample;
  int trajectories, no_impact_log, nstat, rank, ranks, mpi;
  char stat_text[ENS_MAX_STAT][NH_MAX_NAME + 80]; /* --stat NAME[=LO:HI[:BINS]] as given */
  nh_ensemble_stat stats[ENS_MAX_STAT];
  double *table; /* --members FILE: the rows */
  long table_rows;
  int json;
  ens_builtin bp; /* the built-in's parameters (the table and the fixed --set applied) */
  char *text; /* a model file's text, parsed again per member when parameters vary */
} ens_opts;

/* the ensemble's own options (arg NULL: a flag); the shared ones are cli_sim_options */
typedef struct ens_opt {
  const char *name, *arg, *help;
} ens_opt;
static const ens_opt ens_options[] = {
    {"--vary", "NAME=DIST", "DIST: uniform:A:B, normal:MU:SIGMA or grid:A:B:K (K points from A to B); NAME a coordinate, a velocity NAME' or a parameter; repeatable"},
    {"--members", "N", "members (default 100); with grids, members per grid point (default 1)"},
    {"--members", "FILE.csv", "explicit members: a header of names (as for --vary), a row of numbers each"},
    {"--members", "FILE.h5", "explicit members: /members/values and its names (an ensemble's HDF5 file)"},
    {"--seed", "S", "seed of the counter-based random stream (default 1)"},
    {"--threads", "N", "threads (default: $OMP_NUM_THREADS, else all cores)"},
    {"--out", "FILE", "FILE.csv: one row per member; FILE.h5: HDF5 (members, impact logs, statistics); must not exist"},
    {"--sample", "DT", "the time grid k DT for the time statistics (and --trajectories)"},
    {"--stat", "NAME[=LO:HI[:BINS]]", "a state component followed over the grid (default: all); with a range its quantiles from a histogram of BINS bins (default 100); repeatable"},
    {"--trajectories", NULL, "HDF5: every member's state on the sample grid"},
    {"--no-impact-log", NULL, "HDF5: leave the impact log out (8 + 3 nq doubles per impact)"},
    {"--chunk", "N", "members per chunk: the unit of the statistics' reduction and of the split over MPI ranks (default 4096, fewer with large trajectories)"},
    {"--json", NULL, "the statistics as JSON on stdout"},
};
#define NENS_OPTIONS ((int)(sizeof ens_options / sizeof ens_options[0]))

/* the options of `nholo run` that are of one run, not of a member: refused with the reason */
static const char *const run_only[][2] = {
    {"--events", "an ensemble's impact logs go to its HDF5 file (--out FILE.h5)"},
    {"--outcomes", "the outcomes of simultaneous impacts are of one run ('nholo run --order enumerate'); an ensemble does not write them"},
    {"--contacts", "the contact log is of one run ('nholo run'); an ensemble does not write it"},
    {"--plot", "a plot is of one run ('nholo run'); an ensemble writes its members with --out FILE.csv or FILE.h5"},
};

static void ensemble_help(void) {
  printf("usage: nholo ensemble MODEL [options]\n\n"
         "Run MODEL (a built-in or FILE.nh) many times, its initial values and parameters drawn from\n"
         "distributions; members run in parallel, the results are the same for any number of threads.\n\n"
         "options:\n");
  for (int i = 0; i < NENS_OPTIONS; i++) cli_print_option(ens_options[i].name, ens_options[i].arg, ens_options[i].help);
  printf("\nevery member runs as 'nholo run' would with these options (model files that vary a\n"
         "parameter build each member with the tape):\n");
  for (int i = 0; i < cli_nsim_options; i++)
    cli_print_option(cli_sim_options[i].name, cli_sim_options[i].arg, cli_sim_options[i].help);
  printf("--events, --outcomes, --contacts and --plot are of one run ('nholo run') only\n"
         "an option's value follows it or is joined to it by '=' (--members 1000 or --members=1000)\n"
         "\nexample: nholo ensemble penny --method exact --impacts 20 --vary theta=uniform:0:6.28 --members 1000\n"
         "under MPI: mpirun -np P nholo ensemble ... --out FILE.h5 splits the members over P ranks\n"
         "exit status: 0 success (members that failed are in the CSV), 1 the ensemble failed, 2 bad input,\n"
         "4 members left their method's regime (NH_DRIFT, as 'nholo run': they completed and are in the\n"
         "statistics, counted as drifted), 130 / 143 interrupted by SIGINT / SIGTERM: the members running\n"
         "stop at their next step and the output keeps the members run (status NH_INTERRUPTED for those\n"
         "stopped; under MPI nothing is written).\n");
}

/* ---- options ------------------------------------------------------------------------ */

static int positive(const char *opt, const char *val, double *out) {
  if (!cli_parse_double(opt, val, out)) return 0;
  if (!(*out > 0.0)) return cli_usage_error("%s: %s must be positive", opt, val), 0;
  return 1;
}

/* one of the ensemble's own options with its value (NULL for a flag); 0 after printing the error */
static int set_option(ens_opts *o, const char *name, const char *val) {
  char msg[512];
  if (strcmp(name, "--vary") == 0) {
    if (o->nvar == ENS_MAX_VARY) return cli_usage_error("--vary: at most %d variables", ENS_MAX_VARY), 0;
    if (nh_ensemble_parse_var(val, &o->vars[o->nvar], msg, sizeof msg) != NH_OK)
      return cli_usage_error("--vary: %s", msg), 0;
    for (int j = 0; j < o->nvar; j++)
      if (strcmp(o->vars[j].name, o->vars[o->nvar].name) == 0)
        return cli_usage_error("--vary: '%s' is varied twice", o->vars[j].name), 0;
    o->nvar++;
    return 1;
  }
  if (strcmp(name, "--members") == 0) {
    size_t n = strlen(val);
    if ((n > 4 && strcmp(val + n - 4, ".csv") == 0) || (n > 3 && strcmp(val + n - 3, ".h5") == 0))
      return o->members_file = val, 1;
    return o->members_set = 1, cli_parse_long(name, val, 1, NH_ENSEMBLE_MAX_MEMBERS, &o->members);
  }
  if (strcmp(name, "--chunk") == 0) return cli_parse_long(name, val, 1, NH_ENSEMBLE_MAX_MEMBERS, &o->chunk);
  if (strcmp(name, "--sample") == 0) return positive(name, val, &o->sample);
  if (strcmp(name, "--trajectories") == 0) return o->trajectories = 1, 1;
  if (strcmp(name, "--no-impact-log") == 0) return o->no_impact_log = 1, 1;
  if (strcmp(name, "--stat") == 0) {
    if (o->nstat == ENS_MAX_STAT) return cli_usage_error("--stat: at most %d outputs", ENS_MAX_STAT), 0;
    if (strlen(val) >= sizeof o->stat_text[0]) return cli_usage_error("--stat: '%s' is too long", val), 0;
    strcpy(o->stat_text[o->nstat++], val);
    return 1;
  }
  if (strcmp(name, "--seed") == 0) return cli_parse_long(name, val, 0, 0x7fffffffffffffffL, &o->seed);
  if (strcmp(name, "--threads") == 0) return cli_parse_long(name, val, 1, 4096, &o->threads);
  if (strcmp(name, "--out") == 0) return o->out = val, 1;
  return o->json = 1, 1; /* --json */
}

static int parse_ensemble(int argc, char **argv, ens_opts *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || a[1] != '-') {
      if (a[0] == '-') return cli_usage_error("unknown option '%s' (see 'nholo ensemble --help')", a);
      if (o->model) return cli_usage_error("unexpected argument '%s' (model already given: '%s')", a, o->model);
      o->model = a;
      continue;
    }
    char nbuf[64];
    const char *inl, *val = NULL;
    const char *name = cli_opt_name(a, nbuf, sizeof nbuf, &inl);
    const ens_opt *own = NULL;
    for (int k = 0; k < NENS_OPTIONS && !own; k++)
      if (strcmp(ens_options[k].name, name) == 0) own = &ens_options[k];
    const cli_sim_opt *sh = own ? NULL : cli_sim_opt_find(name);
    for (size_t k = 0; !own && !sh && k < sizeof run_only / sizeof run_only[0]; k++)
      if (strcmp(run_only[k][0], name) == 0) return cli_usage_error("%s: %s", name, run_only[k][1]);
    if (!own && !sh) return cli_usage_error("unknown option '%s' (see 'nholo ensemble --help')", a);
    const char *arg = own ? own->arg : sh->arg;
    if (!arg && !cli_opt_flag(name, inl)) return CLI_USAGE;
    if (arg && !(val = cli_opt_value(name, inl, argc, argv, &i, "a value"))) return CLI_USAGE;
    if (!(own ? set_option(o, name, val) : sh->set(&o->c, name, val))) return CLI_USAGE;
  }
  if (!o->model) return cli_usage_error("ensemble: no model given (see 'nholo list')");
  if (cli_sim_check(&o->c)) return CLI_USAGE;
  return CLI_OK;
}

/* ---- the model and the variables' targets ------------------------------------------- */

/* a copy of the built-in's parameter block (NULL when out of memory) */
static void *builtin_copy(const ens_builtin *b) {
  void *p = malloc(b->params->size);
  if (p) memcpy(p, b->p, b->params->size);
  return p;
}

/* a model file's load options: the fixed overrides, then extra (names, values) */
static nh_model *file_model(const ens_opts *o, nh_backend backend, int nextra, const char *const *xn,
                            const double *xv, char *msg, size_t size) {
  const char *names[CLI_MAX_SET + ENS_MAX_VARY];
  double values[CLI_MAX_SET + ENS_MAX_VARY];
  int n = 0;
  for (int i = 0; i < o->c.sets.n; i++) names[n] = o->c.sets.names[i], values[n++] = o->c.sets.values[i];
  for (int i = 0; i < nextra; i++) names[n] = xn[i], values[n++] = xv[i];
  nh_load_opts lo = cli_sim_load_opts(&o->c);
  lo.backend = backend;
  lo.nset = n, lo.set_names = names, lo.set_values = values;
  return nh_model_parse(o->text, o->model, &lo, msg, size);
}

/* the shared model; NULL with the exit status in *rc after the error */
static nh_model *load_model(ens_opts *o, int *rc) {
  char msg[2048];
  nh_model *model = NULL;
  if ((o->bp.file = cli_is_model_file(o->model))) {
    if (o->c.table) return *rc = cli_usage_error("--table: only for the built-in penny (use --set a=... --set b=...)"), NULL;
    if (!cli_model_file_ok(o->model)) return *rc = CLI_USAGE, NULL;
    // the text kept to build members that vary a parameter
    if (!(o->text = nh_model_file_read(o->model, msg, sizeof msg))) return *rc = cli_usage_error("%s", msg), NULL;
    if (!(model = file_model(o, o->c.backend, 0, NULL, NULL, msg, sizeof msg)))
      return *rc = cli_signal ? cli_interrupted("while the model was loaded (its compiler stopped, its files removed)")
                              : cli_model_error(msg), NULL;
    cli_backend_note(model);
    return model;
  }
  // a built-in: its parameter block with the table, overrides and law (as nh_builtin_load), kept
  // to build the members that vary a parameter; one without parameters as built
  const nh_builtin *b = nh_builtin_find(o->model);
  nh_builtin_opts bo = {o->c.sets.n, o->c.sets.names, o->c.sets.values, o->c.law_set, o->c.law, o->c.table};
  if (!b || !b->params) {
    if (!(model = nh_builtin_load(o->model, &bo, msg, sizeof msg))) return *rc = cli_usage_error("%s", msg), NULL;
    return model;
  }
  o->bp.params = b->params;
  if (!(o->bp.p = malloc(b->params->size))) return *rc = cli_usage_error("out of memory"), NULL;
  b->params->defaults(o->bp.p);
  if (nh_builtin_params_apply(b, o->bp.p, &bo, msg, sizeof msg) != NH_OK ||
      !(model = b->params->create(o->bp.p, msg, sizeof msg)))
    return *rc = cli_usage_error("%s", msg), NULL;
  return model;
}

/* the state index of NAME (a coordinate, NAME' or NAME_dot a velocity, an ODE state), or -1 */
static int state_index(const nh_model *m, const char *name) {
  for (int i = 0; i < m->nx; i++)
    if (strcmp(m->state_names[i], name) == 0) return i;
  if (m->form == NH_FORM_ODE) return -1;
  char base[NH_MAX_NAME];
  size_t n = strlen(name);
  if (n >= 2 && n < sizeof base && name[n - 1] == '\'') {
    memcpy(base, name, n - 1), base[n - 1] = '\0';
    int i = nh_model_coord_index(m, base);
    return i < 0 ? -1 : m->nq + i;
  }
  return -1;
}

/* each variable's target: the values of a built-in with parameters by name (nh_builtin_params:
 * the penny, sleigh, snakeboard) all go through its parameter block, so the member's model is
 * built with consistent initial velocities; a
 * model file's coordinates and velocities (and another built-in's) are set in the state of the
 * shared model, a model file's parameters build the member's model */
static int resolve(ens_opts *o, const nh_model *m) {
  char where[1100];
  if (o->members_file) snprintf(where, sizeof where, "--members: '%s': column", o->members_file);
  else snprintf(where, sizeof where, "--vary:");
  for (int j = 0; j < o->nvar; j++) {
    nh_ensemble_var *v = &o->vars[j];
    int param = 0, si = !o->bp.params ? state_index(m, v->name) : -1;
    if (si >= 0) {
      v->target = NH_VARY_STATE, v->index = si;
      continue;
    }
    if (o->bp.file) {
      for (int i = 0; i < m->npar && !param; i++) param = strcmp(m->param_names[i], v->name) == 0;
    } else if (o->bp.params) {
      void *probe = builtin_copy(&o->bp);
      if (!probe) return cli_usage_error("out of memory");
      param = o->bp.params->set(probe, v->name, 0.0);
      free(probe);
    }
    if (!param) return cli_usage_error("%s model '%s' has no parameter, coordinate or velocity '%s'", where, o->model, v->name);
    v->target = NH_VARY_PARAM, v->index = -1;
  }
  return CLI_OK;
}

/* ---- explicit members (--members FILE.csv) and followed outputs (--stat) ------------- */

/* split a CSV line in place at commas (spaces around a field dropped); the fields' count */
static int split_line(char *line, char **fields, int max) {
  int n = 0;
  line[strcspn(line, "\r\n")] = '\0';
  for (char *p = line;; p++) {
    char *end = p + strcspn(p, ",");
    const int last = *end == '\0';
    *end = '\0';
    while (*p == ' ' || *p == '\t') p++;
    for (char *e = end; e > p && (e[-1] == ' ' || e[-1] == '\t');) *--e = '\0';
    if (n < max) fields[n] = p;
    n++;
    if (last) break;
    p = end;
  }
  return n;
}

static int is_h5(const char *path) {
  size_t n = path ? strlen(path) : 0;
  return (n > 3 && strcmp(path + n - 3, ".h5") == 0) || (n > 5 && strcmp(path + n - 5, ".hdf5") == 0);
}

/* an HDF5 member file (/members/values and its columns, as an ensemble writes it) */
static int read_members_h5(ens_opts *o) {
  char names[ENS_MAX_VARY][NH_MAX_NAME], msg[1200];
  int ncol;
  if (nh_ensemble_read_members_h5(o->members_file, names, ENS_MAX_VARY, &ncol, &o->table, &o->table_rows, msg,
                                  sizeof msg) != NH_OK)
    return cli_usage_error("--members: %s", msg);
  for (int j = 0; j < ncol; j++) {
    for (int i = 0; i < j; i++)
      if (strcmp(names[i], names[j]) == 0)
        return cli_usage_error("--members: '%s': column '%s' appears twice", o->members_file, names[j]);
    strcpy(o->vars[j].name, names[j]);
  }
  o->nvar = ncol;
  return CLI_OK;
}

/* the member file's header (the variables' names) and rows (the table); CLI_USAGE after the error */
static int read_members(ens_opts *o) {
  const char *path = o->members_file;
  if (o->nvar > 0) return cli_usage_error("--members: a member file and --vary cannot be combined");
  if (is_h5(path)) return read_members_h5(o);
  FILE *f = fopen(path, "r");
  if (!f) return cli_usage_error("--members: cannot read '%s': %s", path, strerror(errno));
  char line[8192], *fields[ENS_MAX_VARY];
  int rc = CLI_OK, ncol = 0;
  long cap = 0, line_no = 1;
  if (!fgets(line, sizeof line, f) || (ncol = split_line(line, fields, ENS_MAX_VARY)) < 1 || !fields[0][0]) {
    rc = cli_usage_error("--members: '%s' has no header line of names", path);
  } else if (ncol > ENS_MAX_VARY) {
    rc = cli_usage_error("--members: '%s' has %d columns (at most %d)", path, ncol, ENS_MAX_VARY);
  }
  for (int j = 0; !rc && j < ncol; j++) {
    if (!fields[j][0] || strlen(fields[j]) >= NH_MAX_NAME) rc = cli_usage_error("--members: '%s': column %d has no name or too long a name", path, j + 1);
    for (int i = 0; !rc && i < j; i++)
      if (strcmp(o->vars[i].name, fields[j]) == 0) rc = cli_usage_error("--members: '%s': column '%s' appears twice", path, fields[j]);
    if (!rc) strcpy(o->vars[j].name, fields[j]);
  }
  o->nvar = rc ? 0 : ncol;
  while (!rc && fgets(line, sizeof line, f)) {
    line_no++;
    if (line[strspn(line, " \t\r\n")] == '\0') continue; /* a blank line */
    const int n = split_line(line, fields, ENS_MAX_VARY);
    if (n != ncol) {
      rc = cli_usage_error("--members: '%s' line %ld has %d values, the header %d columns", path, line_no, n, ncol);
      break;
    }
    if (o->table_rows == cap) {
      cap = cap ? 2 * cap : 1024;
      double *t = cap > NH_ENSEMBLE_MAX_MEMBERS ? NULL : realloc(o->table, sizeof(double) * (size_t)(cap * ncol));
      if (!t) {
        rc = cli_usage_error("--members: '%s': too many members", path);
        break;
      }
      o->table = t;
    }
    for (int j = 0; j < ncol && !rc; j++) {
      char *end;
      errno = 0;
      const double v = strtod(fields[j], &end);
      if (end == fields[j] || *end || errno == ERANGE || !isfinite(v))
        rc = cli_usage_error("--members: '%s' line %ld column '%s': '%s' is not a finite number", path, line_no,
                             o->vars[j].name, fields[j]);
      o->table[o->table_rows * ncol + j] = v;
    }
    o->table_rows++;
  }
  if (!rc && o->table_rows == 0) rc = cli_usage_error("--members: '%s' has no members (rows after the header)", path);
  fclose(f);
  return rc;
}

/* --stat NAME[=LO:HI[:BINS]] against the model's state; default every component, no histogram */
static int resolve_stats(ens_opts *o, const nh_model *m) {
  if (o->nstat == 0 && o->sample > 0.0) {
    o->nstat = m->nx < ENS_MAX_STAT ? m->nx : ENS_MAX_STAT;
    for (int i = 0; i < o->nstat; i++) o->stats[i] = (nh_ensemble_stat){i, 0.0, 0.0, 0};
    return CLI_OK;
  }
  for (int s = 0; s < o->nstat; s++) {
    char *text = o->stat_text[s], *eq = strchr(text, '=');
    if (eq) *eq = '\0';
    nh_ensemble_stat *sp = &o->stats[s];
    if ((sp->index = state_index(m, text)) < 0)
      return cli_usage_error("--stat: model '%s' has no state component '%s' (a coordinate or a velocity NAME')", o->model, text);
    sp->lo = sp->hi = 0.0, sp->bins = 0;
    if (!eq) continue;
    char *p = eq + 1, *end;
    double v[3] = {0.0, 0.0, ENS_DEFAULT_BINS};
    int n = 0;
    for (; n < 3; n++) {
      errno = 0;
      v[n] = strtod(p, &end);
      if (end == p || errno == ERANGE || !isfinite(v[n]) || (*end != ':' && *end)) break;
      p = end + (*end == ':');
      if (!*end) {
        n++;
        break;
      }
    }
    if (n < 2 || *p || !(v[1] > v[0]) || !(v[2] >= 1 && v[2] <= NH_ENSEMBLE_MAX_BINS && v[2] == floor(v[2])))
      return cli_usage_error("--stat: '%s=%s': expected NAME=LO:HI or NAME=LO:HI:BINS (HI > LO, BINS 1..%d)", text, eq + 1,
                             NH_ENSEMBLE_MAX_BINS);
    sp->lo = v[0], sp->hi = v[1], sp->bins = n == 3 ? (int)v[2] : ENS_DEFAULT_BINS;
  }
  return CLI_OK;
}

/* a member's model from its values (the parameters; the state is set by the ensemble) */
static int build_member(const double *values, nh_model **model, char *msg, size_t size, void *user) {
  const ens_opts *o = user;
  if (o->bp.file) {
    const char *names[ENS_MAX_VARY];
    double vals[ENS_MAX_VARY];
    int n = 0;
    for (int j = 0; j < o->nvar; j++)
      if (o->vars[j].target == NH_VARY_PARAM) names[n] = o->vars[j].name, vals[n++] = values[j];
    *model = file_model(o, NH_BACKEND_TAPE, n, names, vals, msg, size);
  } else {
    void *local = builtin_copy(&o->bp);
    if (!local) return snprintf(msg, size, "out of memory"), NH_ERR_NOMEM;
    for (int j = 0; j < o->nvar; j++)
      if (o->vars[j].target == NH_VARY_PARAM) o->bp.params->set(local, o->vars[j].name, values[j]);
    *model = o->bp.params->create(local, msg, size);
    free(local);
  }
  return *model ? 0 : NH_ERR_ARG;
}

/* ---- the command -------------------------------------------------------------------- */

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* a progress bar on stderr (a terminal only): members done, members/s, the time left; under
 * MPI rank 0's share */
static void progress(long done, long total, void *user) {
  const double *t0 = user, el = wall() - *t0, rate = el > 0.0 ? (double)done / el : 0.0;
  const double eta = rate > 0.0 ? (double)(total - done) / rate : 0.0;
  char bar[31];
  const int fill = total > 0 ? (int)(30.0 * (double)done / (double)total) : 30;
  for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
  bar[30] = '\0';
  fprintf(stderr, "\rensemble [%s] %ld/%ld members  %.0f members/s  ETA %02ld:%02ld:%02ld ", bar, done, total, rate,
          (long)eta / 3600, (long)eta / 60 % 60, (long)eta % 60);
  if (done == total) fputc('\n', stderr);
  fflush(stderr);
}

/* an output must be new (a device such as /dev/null is allowed for a CSV) and writable, and
 * its name say its format: FILE.csv or FILE.h5 (FILE.hdf5) */
static int check_out(const char *path) {
  struct stat sb;
  char msg[512];
  const size_t n = strlen(path);
  const int device = stat(path, &sb) == 0 && (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode));
  if (!is_h5(path) && !(n > 4 && strcmp(path + n - 4, ".csv") == 0) && !device)
    return cli_usage_error("--out: '%s': the name says the format, FILE.csv (one row per member) or FILE.h5 (HDF5)",
                           path);
  if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
    return cli_usage_error("--out: '%s' exists (remove it or choose another name)", path);
  if (is_h5(path) && stat(path, &sb) == 0)
    return cli_usage_error("--out: '%s' is not a regular file (an HDF5 file must be)", path);
  if (nh_check_writable(path, msg, sizeof msg) != NH_OK) return cli_usage_error("--out: %s", msg);
  return CLI_OK;
}

static void print_stats(const ens_opts *o, const nh_model *m, const nh_ensemble_stats *st, const char *method) {
  if (o->json) {
    printf("{\"model\": ");
    nh_json_str(stdout, o->model);
    printf(", \"method\": ");
    nh_json_str(stdout, method);
    printf(", \"members\": %ld, \"ok\": %ld, \"failed\": %ld, \"drifted\": %ld, ", st->members, st->ok, st->failed,
           st->drifted);
    if (st->interrupted > 0) printf("\"interrupted\": %ld, ", st->interrupted); /* (NH_INTERRUPTED) */
    printf("\"seed\": %ld, \"threads\": %d, \"final\": {", o->seed, st->threads);
    for (int k = 0; k < st->nx; k++) {
      printf("%s", k ? ", " : "");
      nh_json_str(stdout, m->state_names[k]);
      static const char *const keys[4] = {"mean", "var", "min", "max"};
      const double v[4] = {st->mean[k], st->var[k], st->min[k], st->max[k]}; /* null: no member ended well */
      for (int i = 0; i < 4; i++) {
        printf("%s\"%s\": ", i ? ", " : ": {", keys[i]);
        nh_json_num(stdout, v[i]);
      }
      printf("}");
    }
    printf("}");
    if (st->ranks > 1) printf(", \"ranks\": %d", st->ranks);
    if (o->out) {
      printf(", \"out\": ");
      nh_json_str(stdout, o->out);
    }
    printf("}\n");
    return;
  }
  // ok counts the members that completed, the drifted ones among them (said when there are any)
  printf("ensemble: %s, %s, %ld members (%ld ok", o->model, method, st->members, st->ok);
  if (st->drifted > 0) printf(" (%ld drifted: NH_DRIFT)", st->drifted);
  printf(", %ld failed", st->failed);
  if (st->interrupted > 0) printf(" (%ld interrupted: NH_INTERRUPTED)", st->interrupted);
  printf("), seed %ld, %d thread%s", o->seed, st->threads, st->threads == 1 ? "" : "s");
  if (st->ranks > 1) printf(" on each of %d ranks", st->ranks);
  printf("\n");
  printf("final state over the members that ended well:\n  %-12s %23s %23s %23s %23s\n", "", "mean", "variance",
         "min", "max");
  for (int k = 0; k < st->nx; k++)
    printf("  %-12s %23.15g %23.15g %23.15g %23.15g\n", m->state_names[k], st->mean[k], st->var[k], st->min[k],
           st->max[k]);
  if (o->out) printf("members: %s\n", o->out);
}

/* under MPI every rank must go on or none: a rank whose input was refused (a file another
 * node does not see) stops them all; rank 0 speaks for it */
static int agree(const ens_opts *o, int rc) {
  if (!o->mpi || nh_ensemble_mpi_all(rc == CLI_OK)) return rc;
  return rc ? rc : cli_usage_error("another MPI rank refused the input (run it on one process to see why)");
}

/* the outputs' options together, and the output itself */
static int check_outputs(const ens_opts *o) {
  if (o->members_file && o->members_set) return cli_usage_error("--members: give a count or a file, not both");
  if (o->out && is_h5(o->out) && cli_need_component("hdf5", "--out") != CLI_OK) return CLI_USAGE;
  if (o->trajectories && !(o->sample > 0.0 && is_h5(o->out)))
    return cli_usage_error("--trajectories: needs --sample DT and an HDF5 output (--out FILE.h5)");
  if (o->no_impact_log && !is_h5(o->out))
    return cli_usage_error("--no-impact-log: the impact log is written only to an HDF5 file (--out FILE.h5)");
  if (o->sample > 0.0 && !is_h5(o->out))
    return cli_usage_error("--sample: the time statistics and trajectories go to an HDF5 file (--out FILE.h5)");
  if (o->nstat > 0 && !(o->sample > 0.0)) return cli_usage_error("--stat: needs --sample DT (the time grid)");
  if (o->sample > 0.0 && floor(o->c.t_end / o->sample) + 1.0 > (double)NH_ENSEMBLE_MAX_SAMPLES)
    return cli_usage_error("--sample: --t-end %g sampled every %g s is more than %ld samples", o->c.t_end, o->sample,
                           NH_ENSEMBLE_MAX_SAMPLES);
  if (o->ranks > 1 && o->out && !is_h5(o->out))
    return cli_usage_error("--out: under MPI (%d ranks) the output is an HDF5 file (--out FILE.h5)", o->ranks);
  return o->out ? check_out(o->out) : CLI_OK;
}

static int ensemble_main(ens_opts *o) {
  int rc = CLI_OK;
  char msg[2048];
  nh_model *model = load_model(o, &rc);
  if (!model) return agree(o, rc);
  nh_sim_def auto_def = nh_sim_def_default();
  cli_sim_apply(&o->c, NULL, &auto_def);
  auto_def.horizon = o->c.t_end;
  char why[320];
  const nh_method *method =
      o->c.method ? nh_method_find(o->c.method) : nh_sim_choose_method(model, &auto_def, why, sizeof why);
  if (nh_method_check(method, model, msg, sizeof msg) != NH_OK) rc = cli_usage_error("%s", msg);
  if (!rc && !cli_contacts_count(model) && (o->c.mu_set || o->c.on_slip || o->c.on_detach))
    rc = cli_usage_error("%s: the model declares no contact (a model file's 'contact' statement)",
                         o->c.mu_set ? "--mu" : o->c.on_slip ? "--on-slip" : "--on-detach");
  if (!rc && o->members_file) rc = read_members(o);
  if (!rc) rc = resolve(o, model);
  if (!rc) rc = resolve_stats(o, model);
  int has_grid = 0, has_param = 0;
  for (int j = 0; j < o->nvar; j++)
    has_grid |= o->vars[j].kind == NH_DIST_GRID, has_param |= o->vars[j].target == NH_VARY_PARAM;
  nh_ensemble_def d = {0};
  d.model = model;
  d.sim = nh_sim_def_default();
  cli_sim_apply(&o->c, method, &d.sim);
  d.sim.log_limit = CLI_LOG_LIMIT;
  d.t_end = o->c.t_end, d.max_impacts = o->c.impacts;
  d.nvar = o->nvar, d.vars = o->vars;
  d.replicas = o->members_set ? o->members : has_grid ? 1 : 100;
  d.seed = (uint64_t)o->seed;
  d.threads = (int)o->threads;
  d.build = has_param ? build_member : NULL, d.build_user = o;
  d.progress = isatty(2) && o->rank == 0 ? progress : NULL;
  if (!rc && !o->table && nh_ensemble_count(o->vars, o->nvar, d.replicas) < 0)
    rc = cli_usage_error("--members: %ld members per grid point and the grids make more than %ld members",
                         d.replicas, NH_ENSEMBLE_MAX_MEMBERS);
  nh_sim *probe = rc ? NULL : nh_sim_create(model, &d.sim, msg, sizeof msg);
  if (!rc && !probe) rc = cli_usage_error("%s", msg);
  if (!rc && nh_sim_check_run(probe, d.t_end, 0, msg, sizeof msg) != NH_OK) /* NH_MAX_STEPS, as run */
    rc = cli_usage_error("--t-end, --dt: %s", msg);
  nh_sim_destroy(probe);
  if (!rc) rc = check_outputs(o);
  if ((rc = agree(o, rc)) != CLI_OK) {
    nh_model_destroy(model);
    return rc;
  }
  if (!o->c.method && o->rank == 0) fprintf(stderr, "nholo: method %s (auto): %s\n", nh_method_name(method), why);
  d.table = o->table, d.table_rows = o->table_rows;
  d.sample_dt = o->sample, d.nstat = o->nstat, d.stats = o->stats;
  d.mpi = o->mpi, d.chunk = o->chunk;
  const double t0 = wall();
  d.progress_user = (void *)&t0;
  nh_ensemble_out out = {o->out, is_h5(o->out) ? NH_ENSEMBLE_HDF5 : NH_ENSEMBLE_CSV, o->trajectories, o->model,
                         nh_method_name(method), o->no_impact_log};
  nh_ensemble_stats st;
  int status = nh_ensemble_run_to(&d, &out, &st, msg, sizeof msg);
  if (status == NH_INTERRUPTED && d.progress) fputc('\n', stderr); /* after the progress bar */
  if (status == NH_INTERRUPTED && !st.mean) { /* under MPI: nothing written (no statistics) */
    fprintf(stderr, "nholo: %s\n", msg);
    nh_model_destroy(model);
    return cli_interrupted("");
  }
  if (status != NH_OK && status != NH_INTERRUPTED) {
    fprintf(stderr, "nholo: %s\n", msg);
    nh_model_destroy(model);
    return cli_signal ? cli_interrupted("") : CLI_FAILED;
  }
  print_stats(o, model, &st, nh_method_name(method));
  if (status == NH_INTERRUPTED) {
    char what[640];
    snprintf(what, sizeof what, "after %ld members (%ld of them stopped where they were, status NH_INTERRUPTED)%s%s",
             st.members, st.interrupted, o->out ? ": they are in " : "", o->out ? o->out : "");
    nh_ensemble_stats_free(&st);
    nh_model_destroy(model);
    return cli_interrupted(what);
  }
  // drifted members: a warning, with the exit status `nholo run` gives NH_DRIFT
  int code = st.drifted > 0 ? nh_status_exit_code(NH_DRIFT) : CLI_OK;
  if (st.drifted > 0)
    fprintf(stderr, "nholo: %ld of %ld members ended with NH_DRIFT: %s; they completed and are in the statistics\n",
            st.drifted, st.members, nh_status_string(NH_DRIFT));
  if (cli_signal) code = cli_interrupted("after the ensemble had ended: the output is complete");
  nh_ensemble_stats_free(&st);
  nh_model_destroy(model);
  return code;
}

int cmd_ensemble(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      ensemble_help();
      return CLI_OK;
    }
  ens_opts *o = calloc(1, sizeof *o);
  if (!o) return cli_usage_error("out of memory");
  // under an MPI launcher every rank parses and checks alike; rank 0 alone speaks
  o->mpi = nh_ensemble_mpi_init(&argc, &argv, &o->rank, &o->ranks);
  if (o->rank > 0) {
    FILE *a = freopen("/dev/null", "w", stdout), *b = freopen("/dev/null", "w", stderr);
    (void)a, (void)b;
  }
  o->seed = 1;
  cli_sim_opts_init(&o->c); /* the defaults of nholo run */
  int rc = parse_ensemble(argc, argv, o);
  cli_signals_install(); /* SIGINT, SIGTERM: the members stop at their next step, the output kept */
  rc = rc ? agree(o, rc) : ensemble_main(o);
  if (o->mpi) nh_ensemble_mpi_finalize();
  free(o->table);
  free(o->bp.p);
  nh_free(o->text);
  free(o);
  return rc;
}
