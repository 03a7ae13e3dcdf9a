/* ensemble.c - `nholo ensemble MODEL [options]`: many runs of a model whose initial values and
 * parameters are drawn from distributions (nholo/ensemble.h, docs/ensembles.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "nholo/ensemble.h"

/* most --vary options on one command line */
#define ENS_MAX_VARY 64

/* a built-in and its parameters */
typedef struct ens_builtin {
  int kind; /* 0 model file, 1 penny, 2 sleigh, 3 snakeboard, 4 another built-in */
  nh_penny_params penny;
  nh_sleigh_params sleigh;
  nh_snakeboard_params snake;
} ens_builtin;

typedef struct ens_opts {
  const char *model;
  nh_ensemble_var vars[ENS_MAX_VARY];
  int nvar;
  long members, seed, threads, impacts;
  int members_set;
  const char *method, *out;
  nh_impact_law law;
  int law_set, json, project_initial;
  double t_end, dt, rtol, atol;
  nh_backend backend;
  cli_sets sets;
  ens_builtin bp; /* the built-in's parameters (the fixed --set applied) */
  char *text; /* a model file's text, parsed again per member when parameters vary */
} ens_opts;

static void ensemble_help(void) {
  printf("usage: nholo ensemble MODEL [options]\n\n"
         "Run MODEL (a built-in or FILE.nh) many times, its initial values and parameters drawn from\n"
         "distributions; members run in parallel, the results are the same for any number of threads.\n\n"
         "options:\n"
         "  --vary NAME=DIST        DIST: uniform:A:B, normal:MU:SIGMA or grid:A:B:K (K points from A to B);\n"
         "                          NAME a coordinate, a velocity NAME' or a parameter; repeatable\n"
         "  --members N             members (default 100); with grids, members per grid point (default 1)\n"
         "  --seed S                seed of the counter-based random stream (default 1)\n"
         "  --threads N             threads (default: all cores)\n"
         "  --method NAME           integrator, as for 'nholo run'\n"
         "  --impact LAW            elastic, plastic or restitution=E\n"
         "  --impacts N             each member stops after N impacts\n"
         "  --t-end T               each member's final time (default 100)\n"
         "  --dt H, --rtol R, --atol A   steps and tolerances, as for 'nholo run'\n"
         "  --set NAME=VALUE        a fixed override, as for 'nholo run'; repeatable\n"
         "  --backend auto|tape|codegen  model files, as for 'nholo run' (members that vary a\n"
         "                          parameter are built with the tape)\n"
         "  --project-initial       project initial velocities that violate the constraints\n"
         "  --out FILE              CSV, one row per member (must not exist)\n"
         "  --json                  the statistics as JSON on stdout\n"
         "an option's value follows it or is joined to it by '=' (--members 1000 or --members=1000)\n"
         "\nexample: nholo ensemble penny --method exact --impacts 20 --vary theta=uniform:0:6.28 --members 1000\n"
         "exit status: 0 success (members that failed are in the CSV), 1 the ensemble failed, 2 bad input.\n");
}

/* ---- options ------------------------------------------------------------------------ */

static int positive(const char *opt, const char *val, double *out) {
  if (!cli_parse_double(opt, val, out)) return 0;
  if (!(*out > 0.0)) return cli_usage_error("%s: %s must be positive", opt, val), 0;
  return 1;
}

/* one option with its value (NULL for a flag); 0 after printing the error */
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
  if (strcmp(name, "--members") == 0) return o->members_set = 1, cli_parse_long(name, val, 1, NH_ENSEMBLE_MAX_MEMBERS, &o->members);
  if (strcmp(name, "--seed") == 0) return cli_parse_long(name, val, 0, 0x7fffffffffffffffL, &o->seed);
  if (strcmp(name, "--threads") == 0) return cli_parse_long(name, val, 1, 4096, &o->threads);
  if (strcmp(name, "--impacts") == 0) return cli_parse_long(name, val, 1, 1000000000L, &o->impacts);
  if (strcmp(name, "--t-end") == 0) return positive(name, val, &o->t_end);
  if (strcmp(name, "--dt") == 0) return positive(name, val, &o->dt);
  if (strcmp(name, "--rtol") == 0) return positive(name, val, &o->rtol);
  if (strcmp(name, "--atol") == 0) return positive(name, val, &o->atol);
  if (strcmp(name, "--impact") == 0) return o->law_set = 1, cli_parse_impact(name, val, &o->law);
  if (strcmp(name, "--set") == 0) return cli_parse_set(name, val, &o->sets);
  if (strcmp(name, "--backend") == 0) return cli_parse_backend(name, val, &o->backend);
  if (strcmp(name, "--out") == 0) return o->out = val, 1;
  if (strcmp(name, "--json") == 0) return o->json = 1, 1;
  if (strcmp(name, "--project-initial") == 0) return o->project_initial = 1, 1;
  if (strcmp(name, "--method") == 0) {
    if (!nh_method_find(val)) return cli_usage_error("%s: unknown method '%s' (see 'nholo list')", name, val), 0;
    return o->method = val, 1;
  }
  return -1;
}

static int is_flag(const char *name) { return strcmp(name, "--json") == 0 || strcmp(name, "--project-initial") == 0; }
static int is_option(const char *name) {
  static const char *const names[] = {"--vary", "--members", "--seed", "--threads", "--impacts", "--t-end",
                                      "--dt", "--rtol", "--atol", "--impact", "--set", "--backend", "--out",
                                      "--json", "--project-initial", "--method"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(name, names[i]) == 0) return 1;
  return 0;
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
    if (!is_option(name)) {
      return cli_usage_error("unknown option '%s' (see 'nholo ensemble --help')", a);
    } else if (is_flag(name)) {
      if (!cli_opt_flag(name, inl)) return CLI_USAGE;
    } else if (!(val = cli_opt_value(name, inl, argc, argv, &i, "a value"))) {
      return CLI_USAGE;
    }
    if (set_option(o, name, val) != 1) return CLI_USAGE;
  }
  if (!o->model) return cli_usage_error("ensemble: no model given (see 'nholo list')");
  return CLI_OK;
}

/* ---- the model and the variables' targets ------------------------------------------- */

/* a built-in's parameter struct with one more override; 0 when it has no such name */
static int builtin_set(ens_builtin *b, const char *name, double v) {
  return b->kind == 1 ? nh_penny_set(&b->penny, name, v)
         : b->kind == 2 ? nh_sleigh_set(&b->sleigh, name, v)
         : b->kind == 3 ? nh_snakeboard_set(&b->snake, name, v) : 0;
}

static nh_model *builtin_create(const ens_builtin *b, char *msg, size_t size) {
  return b->kind == 1 ? nh_penny_create(&b->penny, msg, size)
         : b->kind == 2 ? nh_sleigh_create(&b->sleigh, msg, size) : nh_snakeboard_create(&b->snake, msg, size);
}

/* read a model file's text (kept to build members that vary a parameter) */
static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t n = 0, cap = 4096;
  char *b = malloc(cap);
  for (size_t r; b && (r = fread(b + n, 1, cap - n - 1, f)) > 0;) {
    n += r;
    char *nb = n + 1 == cap ? realloc(b, cap *= 2) : b;
    if (!nb) free(b);
    b = nb;
  }
  fclose(f);
  if (b) b[n] = '\0';
  return b;
}

/* a model file's load options: the fixed overrides, then extra (names, values) */
static nh_model *file_model(const ens_opts *o, nh_backend backend, int nextra, const char *const *xn,
                            const double *xv, char *msg, size_t size) {
  const char *names[CLI_MAX_SET + ENS_MAX_VARY];
  double values[CLI_MAX_SET + ENS_MAX_VARY];
  int n = 0;
  for (int i = 0; i < o->sets.n; i++) names[n] = o->sets.names[i], values[n++] = o->sets.values[i];
  for (int i = 0; i < nextra; i++) names[n] = xn[i], values[n++] = xv[i];
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = backend;
  lo.nset = n, lo.set_names = names, lo.set_values = values;
  lo.project_initial = o->project_initial;
  lo.impact_override = o->law_set, lo.impact = o->law;
  return nh_model_parse(o->text, o->model, &lo, msg, size);
}

/* the shared model; NULL with the exit status in *rc after the error */
static nh_model *load_model(ens_opts *o, int *rc) {
  char msg[2048];
  nh_model *model = NULL;
  if (cli_is_model_file(o->model)) {
    if (!cli_model_file_ok(o->model)) return *rc = CLI_USAGE, NULL;
    if (!(o->text = read_text(o->model))) return *rc = cli_usage_error("cannot read '%s'", o->model), NULL;
    if (!(model = file_model(o, o->backend, 0, NULL, NULL, msg, sizeof msg))) return *rc = cli_model_error(msg), NULL;
    return model;
  }
  o->bp.kind = strcmp(o->model, "penny") == 0 ? 1 : strcmp(o->model, "sleigh") == 0 ? 2
            : strcmp(o->model, "snakeboard") == 0 ? 3 : 4;
  if (o->law_set && o->bp.kind != 1) return *rc = cli_usage_error("--impact: model '%s' has no impacts", o->model), NULL;
  if (o->bp.kind == 4) {
    if (o->sets.n > 0) return *rc = cli_usage_error("--set: model '%s' takes no overrides (a model file does)", o->model), NULL;
    if (!(model = nh_builtin_create(o->model, msg, sizeof msg)))
      return *rc = cli_usage_error("unknown model '%s' (see 'nholo list'; a model file ends in .nh)", o->model), NULL;
    return model;
  }
  for (int i = 0; i < o->sets.n; i++)
    if (!builtin_set(&o->bp, o->sets.names[i], o->sets.values[i]))
      return *rc = cli_usage_error("--set: model '%s' has no parameter or initial value '%s'", o->model, o->sets.names[i]), NULL;
  if (o->law_set) o->bp.penny.law = o->law;
  if (!(model = builtin_create(&o->bp, msg, sizeof msg))) return *rc = cli_usage_error("%s", msg), NULL;
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

/* each variable's target: a built-in's (penny, sleigh, snakeboard) values all go through its
 * parameter struct, so the member's model is built with consistent initial velocities; a
 * model file's coordinates and velocities (and another built-in's) are set in the state of the
 * shared model, a model file's parameters build the member's model */
static int resolve(ens_opts *o, const nh_model *m) {
  for (int j = 0; j < o->nvar; j++) {
    nh_ensemble_var *v = &o->vars[j];
    const int kind = o->bp.kind;
    int param = 0, si = kind == 0 || kind == 4 ? state_index(m, v->name) : -1;
    if (si >= 0) {
      v->target = NH_VARY_STATE, v->index = si;
      continue;
    }
    if (kind == 0) {
      for (int i = 0; i < m->npar && !param; i++) param = strcmp(m->param_names[i], v->name) == 0;
    } else if (kind != 4) {
      ens_builtin probe = o->bp;
      param = builtin_set(&probe, v->name, 0.0);
    }
    if (!param) return cli_usage_error("--vary: model '%s' has no parameter, coordinate or velocity '%s'", o->model, v->name);
    v->target = NH_VARY_PARAM, v->index = -1;
  }
  return CLI_OK;
}

/* a member's model from its values (the parameters; the state is set by the ensemble) */
static int build_member(const double *values, nh_model **model, char *msg, size_t size, void *user) {
  const ens_opts *o = user;
  if (o->bp.kind == 0) {
    const char *names[ENS_MAX_VARY];
    double vals[ENS_MAX_VARY];
    int n = 0;
    for (int j = 0; j < o->nvar; j++)
      if (o->vars[j].target == NH_VARY_PARAM) names[n] = o->vars[j].name, vals[n++] = values[j];
    *model = file_model(o, NH_BACKEND_TAPE, n, names, vals, msg, size);
  } else {
    ens_builtin local = o->bp;
    for (int j = 0; j < o->nvar; j++)
      if (o->vars[j].target == NH_VARY_PARAM) builtin_set(&local, o->vars[j].name, values[j]);
    *model = builtin_create(&local, msg, size);
  }
  return *model ? 0 : NH_ERR_ARG;
}

/* ---- the command -------------------------------------------------------------------- */

static void progress(long done, long total, void *user) {
  (void)user;
  fprintf(stderr, "\rensemble: %ld/%ld members", done, total);
  if (done == total) fputc('\n', stderr);
  fflush(stderr);
}

/* an output must be new (a device such as /dev/null is allowed) and writable */
static int check_out(const char *path) {
  struct stat sb;
  char msg[512];
  if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
    return cli_usage_error("--out: '%s' exists (remove it or choose another name)", path);
  if (nh_check_writable(path, msg, sizeof msg) != NH_OK) return cli_usage_error("--out: %s", msg);
  return CLI_OK;
}

static void print_stats(const ens_opts *o, const nh_model *m, const nh_ensemble_stats *st, const char *method) {
  if (o->json) {
    printf("{\"model\": ");
    nh_json_str(stdout, o->model);
    printf(", \"method\": ");
    nh_json_str(stdout, method);
    printf(", \"members\": %ld, \"ok\": %ld, \"failed\": %ld, \"seed\": %ld, \"threads\": %d, \"final\": {",
           st->members, st->ok, st->failed, o->seed, st->threads);
    for (int k = 0; k < st->nx; k++) {
      printf("%s", k ? ", " : "");
      nh_json_str(stdout, m->state_names[k]);
      printf(": {\"mean\": %.17g, \"var\": %.17g, \"min\": %.17g, \"max\": %.17g}", st->mean[k], st->var[k],
             st->min[k], st->max[k]);
    }
    printf("}");
    if (o->out) {
      printf(", \"out\": ");
      nh_json_str(stdout, o->out);
    }
    printf("}\n");
    return;
  }
  printf("ensemble: %s, %s, %ld members (%ld ok, %ld failed), seed %ld, %d thread%s\n", o->model, method,
         st->members, st->ok, st->failed, o->seed, st->threads, st->threads == 1 ? "" : "s");
  printf("final state over the members that ended well:\n  %-12s %23s %23s %23s %23s\n", "", "mean", "variance",
         "min", "max");
  for (int k = 0; k < st->nx; k++)
    printf("  %-12s %23.15g %23.15g %23.15g %23.15g\n", m->state_names[k], st->mean[k], st->var[k], st->min[k],
           st->max[k]);
  if (o->out) printf("members: %s\n", o->out);
}

static int ensemble_main(ens_opts *o) {
  int rc = CLI_OK;
  char msg[2048];
  nh_model *model = load_model(o, &rc);
  if (!model) return rc;
  const nh_method *method = o->method ? nh_method_find(o->method) : nh_method_default_for(model);
  if (nh_method_check(method, model, msg, sizeof msg) != NH_OK) rc = cli_usage_error("%s", msg);
  if (!rc) rc = resolve(o, model);
  int has_grid = 0, has_param = 0;
  for (int j = 0; j < o->nvar; j++)
    has_grid |= o->vars[j].kind == NH_DIST_GRID, has_param |= o->vars[j].target == NH_VARY_PARAM;
  nh_ensemble_def d = {0};
  d.model = model;
  d.sim = nh_sim_def_default();
  d.sim.method = method, d.sim.h = o->dt, d.sim.rtol = o->rtol, d.sim.atol = o->atol;
  d.sim.project_initial = o->project_initial;
  d.sim.log_limit = CLI_LOG_LIMIT;
  d.t_end = o->t_end, d.max_impacts = o->impacts;
  d.nvar = o->nvar, d.vars = o->vars;
  d.replicas = o->members_set ? o->members : has_grid ? 1 : 100;
  d.seed = (uint64_t)o->seed;
  d.threads = (int)o->threads;
  d.build = has_param ? build_member : NULL, d.build_user = o;
  d.progress = isatty(2) ? progress : NULL;
  if (!rc && nh_ensemble_count(o->vars, o->nvar, d.replicas) < 0)
    rc = cli_usage_error("--members: %ld members per grid point and the grids make more than %ld members",
                         d.replicas, NH_ENSEMBLE_MAX_MEMBERS);
  nh_sim *probe = rc ? NULL : nh_sim_create(model, &d.sim, msg, sizeof msg);
  if (!rc && !probe) rc = cli_usage_error("%s", msg);
  nh_sim_destroy(probe);
  if (!rc && o->out) rc = check_out(o->out);
  if (rc) {
    nh_model_destroy(model);
    return rc;
  }
  if (!nh_ensemble_parallel() && o->threads > 1)
    fprintf(stderr, "nholo: built without OpenMP: the members run one after another\n");
  nh_ensemble_stats st;
  int status = nh_ensemble_run(&d, o->out, &st, msg, sizeof msg);
  if (status != NH_OK) {
    fprintf(stderr, "nholo: %s\n", msg);
    nh_model_destroy(model);
    return CLI_FAILED;
  }
  print_stats(o, model, &st, nh_method_name(method));
  nh_ensemble_stats_free(&st);
  nh_model_destroy(model);
  return CLI_OK;
}

int cmd_ensemble(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      ensemble_help();
      return CLI_OK;
    }
  ens_opts *o = calloc(1, sizeof *o);
  if (!o) return cli_usage_error("out of memory");
  o->seed = 1, o->t_end = 100.0, o->dt = 1e-3, o->rtol = 1e-10, o->atol = 1e-12;
  o->bp.penny = nh_penny_params_default();
  o->bp.sleigh = nh_sleigh_params_default();
  o->bp.snake = nh_snakeboard_params_default();
  int rc = parse_ensemble(argc, argv, o);
  if (!rc) rc = ensemble_main(o);
  free(o->text);
  free(o);
  return rc;
}
