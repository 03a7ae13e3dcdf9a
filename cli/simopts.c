/* simopts.c - the options of one simulation that `nholo run` and `nholo ensemble` share (the
 * model's table, impact law and overrides, the method and its options, the driver's): one
 * table, so every member of an ensemble runs as `nholo run` would with the same options. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int positive(const char *opt, const char *val, double *out) {
  if (!cli_parse_double(opt, val, out)) return 0;
  if (!(*out > 0.0)) return cli_usage_error("%s: %s must be positive", opt, val), 0;
  return 1;
}
static int nonnegative(const char *opt, const char *val, double *out) {
  if (!cli_parse_double(opt, val, out)) return 0;
  if (!(*out >= 0.0)) return cli_usage_error("%s: %s must be >= 0", opt, val), 0;
  return 1;
}
/* val among names[0..n): its index in *out; else 0 after "OPT: unknown WHAT 'VAL' (expected ...)" */
static int keyword(const char *opt, const char *val, const char *const *names, int n, const char *what,
                   const char *expected, int *out) {
  for (int i = 0; i < n; i++)
    if (strcmp(val, names[i]) == 0) return *out = i, 1;
  return cli_usage_error("%s: unknown %s '%s' (expected %s)", opt, what, val, expected), 0;
}

/* ---- the model ---------------------------------------------------------------------- */

static int set_table(cli_sim_opts *o, const char *opt, const char *val) {
  (void)opt;
  o->table = val; /* checked by nh_builtin_load (and the ensemble) */
  return 1;
}
static int set_impact(cli_sim_opts *o, const char *opt, const char *val) {
  o->law_set = 1;
  return cli_parse_impact(opt, val, &o->law);
}
static int set_impacts(cli_sim_opts *o, const char *opt, const char *val) {
  return cli_parse_long(opt, val, 1, 1000000000L, &o->impacts);
}
static int set_t_end(cli_sim_opts *o, const char *opt, const char *val) { return positive(opt, val, &o->t_end); }
static int set_param(cli_sim_opts *o, const char *opt, const char *val) { return cli_parse_set(opt, val, &o->sets); }
static int set_backend(cli_sim_opts *o, const char *opt, const char *val) {
  return cli_parse_backend(opt, val, &o->backend);
}
static int set_compile(cli_sim_opts *o, const char *opt, const char *val) {
  return cli_parse_compile_limit(opt, val, &o->cc);
}
static int set_project(cli_sim_opts *o, const char *opt, const char *val) {
  (void)opt, (void)val;
  return o->project_initial = 1, 1;
}
static int set_mu(cli_sim_opts *o, const char *opt, const char *val) {
  o->mu_set = 1;
  return nonnegative(opt, val, &o->mu);
}
static int set_contact_action(cli_sim_opts *o, const char *opt, const char *val) {
  int a = strcmp(val, "stop") == 0 ? 1 + NH_MONITOR_STOP : strcmp(val, "report") == 0 ? 1 + NH_MONITOR_REPORT : 0;
  if (!a) return cli_usage_error("%s: unknown action '%s' (expected stop or report)", opt, val), 0;
  *(strcmp(opt, "--on-slip") == 0 ? &o->on_slip : &o->on_detach) = a;
  return 1;
}

/* ---- the method ---------------------------------------------------------------------- */

static int set_method(cli_sim_opts *o, const char *opt, const char *val) {
  if (strcmp(val, "auto") == 0) return o->method = NULL, 1; /* chosen for the run: nh_sim_choose_method */
  if (!nh_method_find(val)) return cli_usage_error("%s: unknown method '%s' (see 'nholo list')", opt, val), 0;
  return o->method = val, 1;
}
static int set_retraction(cli_sim_opts *o, const char *opt, const char *val) {
  int r = nh_retraction_find(val);
  if (r < 0) return cli_usage_error("%s: unknown retraction '%s' (expected exp, ccsk or cay)", opt, val), 0;
  o->mopts.retraction = (nh_retraction)r;
  return 1;
}
static int set_start(cli_sim_opts *o, const char *opt, const char *val) {
  static const char *const names[] = {"paper", "consistent", "midpoint"};
  int i;
  if (!keyword(opt, val, names, 3, "start", "paper, consistent or midpoint", &i)) return 0;
  o->mopts.start = (nh_start)i, o->start_set = 1;
  return 1;
}
static int set_variant(cli_sim_opts *o, const char *opt, const char *val) {
  static const char *const names[] = {"symmetric", "paper"};
  int i;
  if (!keyword(opt, val, names, 2, "variant", "symmetric or paper", &i)) return 0;
  o->mopts.variant = (nh_variant)i;
  return 1;
}
static int set_dexp(cli_sim_opts *o, const char *opt, const char *val) {
  long k;
  if (!cli_parse_long(opt, val, 0, 2, &k)) return 0;
  o->mopts.dexp_order = (int)k;
  return 1;
}
static int set_ld(cli_sim_opts *o, const char *opt, const char *val) {
  static const char *const names[] = {"trapezoid", "midpoint"};
  return keyword(opt, val, names, 2, "discrete Lagrangian", "trapezoid or midpoint", &o->mopts.midpoint_ld);
}
static int set_alpha(cli_sim_opts *o, const char *opt, const char *val) {
  double a;
  if (!cli_parse_double(opt, val, &a)) return 0;
  if (!(a >= 0.0 && a <= 1.0)) return cli_usage_error("%s: %s must be in [0, 1]", opt, val), 0;
  o->mopts.alpha = a;
  return 1;
}
static int set_dt(cli_sim_opts *o, const char *opt, const char *val) { return positive(opt, val, &o->dt); }
static int set_rtol(cli_sim_opts *o, const char *opt, const char *val) { return positive(opt, val, &o->rtol); }
static int set_atol(cli_sim_opts *o, const char *opt, const char *val) { return positive(opt, val, &o->atol); }
static int set_newton_tol(cli_sim_opts *o, const char *opt, const char *val) {
  return positive(opt, val, &o->mopts.newton_tol);
}
static int set_newton_iter(cli_sim_opts *o, const char *opt, const char *val) {
  long k;
  if (!cli_parse_long(opt, val, 1, 10000, &k)) return 0;
  o->mopts.newton_max_iter = (int)k;
  return 1;
}

/* ---- the driver ---------------------------------------------------------------------- */

static int set_zeno_count(cli_sim_opts *o, const char *opt, const char *val) {
  return cli_parse_long(opt, val, 1, 1000000000L, &o->zeno_count);
}
static int set_zeno_interval(cli_sim_opts *o, const char *opt, const char *val) {
  return nonnegative(opt, val, &o->zeno_interval);
}
static int set_order(cli_sim_opts *o, const char *opt, const char *val) {
  static const char *const names[] = {"most-infeasible", "least", "index", "enumerate"};
  return keyword(opt, val, names, 4, "order", "most-infeasible, least, index or enumerate", &o->simul_order);
}
static int set_max_outcomes(cli_sim_opts *o, const char *opt, const char *val) {
  o->max_outcomes_set = 1;
  return cli_parse_long(opt, val, 1, 1000000L, &o->max_outcomes);
}
static int set_impact_step(cli_sim_opts *o, const char *opt, const char *val) {
  static const char *const names[] = {"auto", "restart", "variational"};
  return keyword(opt, val, names, 3, "impact step", "variational, restart or auto", &o->impact_step);
}

/* ---- the table ----------------------------------------------------------------------- */

const cli_sim_opt cli_sim_options[] = {
    {"--table", "circle|ellipse", "penny: the circular (a = b = 0.2) or elliptical (a = 0.15, b = 0.2) table", set_table},
    {"--impact", "LAW", "elastic, plastic or restitution=E (default elastic)", set_impact},
    {"--impacts", "N", "stop after N impacts (default: no limit)", set_impacts},
    {"--t-end", "T", "final time in s (default 100)", set_t_end},
    {"--method", "NAME", "integrator (see 'nholo list'), or auto (the default): chosen from the model, its impact laws, --t-end and --rtol, and said on stderr (exact with a closed-form flow; gni for a run of 1000 s or more of a conservative model with constraints, V = 0 and a constant M; dop853 for rtol < 1e-10; else dopri5)", set_method},
    {"--retraction", "exp|ccsk|cay", "rdp: the SE(2) retraction (default exp)", set_retraction},
    {"--dexp-order", "K", "rdp with exp: 0 exact dexp^-1 (default), 1 or 2 its truncation (paper eq. 42)", set_dexp},
    {"--alpha", "A", "rdp: shape quadrature point r_k+A, A in [0, 1] (default 0.5; 0 is first order)", set_alpha},
    {"--variant", "NAME", "gni, rattle, shake: symmetric (default: one step of the nodal state, no period-2 mode, energy exact for V = 0 and constant M) or paper (the paper's two-step forms)", set_variant},
    {"--start", "NAME", "with --variant paper: paper, consistent or midpoint (default): gni paper (eq. 16) or midpoint start; rattle lambda_0 = 0 (paper) or consistent", set_start},
    {"--ld", "trapezoid|midpoint", "del: the discrete Lagrangian (default trapezoid)", set_ld},
    {"--dt", "H", "step of fixed-step methods, first trial step of adaptive ones (default 1e-3 s)", set_dt},
    {"--rtol", "R", "relative tolerance of adaptive methods (default 1e-10)", set_rtol},
    {"--atol", "A", "absolute tolerance of adaptive methods (default 1e-12)", set_atol},
    {"--newton-tol", "TOL", "implicit methods: Newton's relative residual tolerance (default 1e-12)", set_newton_tol},
    {"--newton-max-iter", "N", "implicit methods: Newton iterations before NH_ERR_NO_CONVERGENCE, 1..10000 (default 30)", set_newton_iter},
    {"--set", "NAME=VALUE", "override a parameter or initial value (NAME, or NAME' for a velocity; penny: m R I J a b x y theta phi theta' phi'; sleigh: I m a theta x y omega v; snakeboard: m l I J Apsi fpsi Aphi fphi psi phi theta x y p1 psi' phi'; model files: any parameter, coordinate or velocity), repeatable", set_param},
    {"--backend", "auto|tape|codegen", "model files: evaluate compiled C (codegen), the tape interpreter, or codegen when a compiler works (auto, default)", set_backend},
    {"--compile-limit", "SECONDS", "model files: the C compiler's time limit (default 60 s, NH_CODEGEN_TIME_LIMIT; 0: none); past it or its memory limit --backend auto runs the tape, with a note on stderr, and codegen fails (exit status 1)", set_compile},
    {"--compile-memory", "MIB", "model files: the C compiler's memory limit in MiB (default 2048, NH_CODEGEN_MEMORY_LIMIT; 0: none)", set_compile},
    {"--project-initial", NULL, "project an initial velocity that violates the constraints", set_project},
    {"--zeno-count", "N", "Zeno guard: stop after N consecutive impacts closer than --zeno-interval (default 100)", set_zeno_count},
    {"--zeno-interval", "S", "Zeno guard interval in s (default 1e-9)", set_zeno_interval},
    {"--order", "POLICY", "simultaneous impacts: the order of the reflections, most-infeasible (default), least, index, or enumerate (logs every outcome, its velocities, sequence and impulses, and xi; follows outcome 0, the most-infeasible order's)", set_order},
    {"--max-outcomes", "N", "with --order enumerate: the outcomes kept per impact, 1..1000000 (default 64); past N the record keeps those found (\"outcomes_truncated\"), a note goes to stderr and the run follows outcome 0", set_max_outcomes},
    {"--impact-step", "MODE", "variational: an impact splits del's step (the rest of it after the impact, the nodes on the grid t_k + h, a contact chattering faster than the step made plastic and persistent); restart: cut at the impact, steps of h from there; default auto (variational for del, restart for the other methods, which only restart)", set_impact_step},
    {"--mu", "MU", "model files with contacts: every contact's friction coefficient (0: no slip monitor)", set_mu},
    {"--on-slip", "stop|report", "model files with contacts: at slip (|f| = mu N)", set_contact_action},
    {"--on-detach", "stop|report", "model files with contacts: at detachment (N = 0)", set_contact_action},
};
const int cli_nsim_options = (int)(sizeof cli_sim_options / sizeof cli_sim_options[0]);

const cli_sim_opt *cli_sim_opt_find(const char *name) {
  for (int i = 0; i < cli_nsim_options; i++)
    if (strcmp(cli_sim_options[i].name, name) == 0) return &cli_sim_options[i];
  return NULL;
}

void cli_print_option(const char *name, const char *arg, const char *help) {
  char left[64];
  snprintf(left, sizeof left, "%s%s%s", name, arg ? " " : "", arg ? arg : "");
  printf("  %-28s %s\n", left, help);
}

void cli_sim_opts_init(cli_sim_opts *o) {
  const nh_sim_def d = nh_sim_def_default();
  memset(o, 0, sizeof *o);
  o->t_end = 100.0;
  o->mopts = d.opts;
  o->dt = 1e-3, o->rtol = d.rtol, o->atol = d.atol;
  o->zeno_count = d.zeno_count, o->zeno_interval = d.zeno_interval;
  o->simul_order = d.simul_order, o->impact_step = d.impact_step;
  o->max_outcomes = d.simul_max_outcomes;
  o->cc = nh_load_opts_default();
}

int cli_sim_check(const cli_sim_opts *o) {
  if (o->max_outcomes_set && o->simul_order != NH_SIMUL_ENUMERATE)
    return cli_usage_error("--max-outcomes: outcomes are enumerated only with --order enumerate");
  if (o->start_set && o->mopts.variant != NH_VARIANT_PAPER)
    return cli_usage_error("--start: the start of the paper's gni, rattle and shake: add --variant paper (the default "
                           "symmetric variant starts every step from the nodal state)");
  return CLI_OK;
}

nh_load_opts cli_sim_load_opts(const cli_sim_opts *o) {
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = o->backend;
  lo.nset = o->sets.n, lo.set_names = o->sets.names, lo.set_values = o->sets.values;
  lo.project_initial = o->project_initial;
  lo.impact_override = o->law_set, lo.impact = o->law;
  lo.contact_mu_set = o->mu_set, lo.contact_mu = o->mu;
  lo.contact_on_slip = o->on_slip, lo.contact_on_detach = o->on_detach;
  lo.cc_time_limit = o->cc.cc_time_limit, lo.cc_memory_limit = o->cc.cc_memory_limit;
  lo.cancel = &cli_signal; /* a signal kills the compiler (cli/signals.c) */
  return lo;
}

void cli_sim_apply(const cli_sim_opts *o, const nh_method *method, nh_sim_def *def) {
  def->method = method;
  def->h = o->dt, def->rtol = o->rtol, def->atol = o->atol;
  def->project_initial = o->project_initial;
  def->zeno_count = (int)o->zeno_count, def->zeno_interval = o->zeno_interval;
  def->simul_order = o->simul_order, def->impact_step = o->impact_step;
  def->simul_max_outcomes = (int)o->max_outcomes;
  def->opts = o->mopts;
  def->cancel = &cli_signal; /* a signal stops the run at its next step (cli/signals.c) */
}

int cli_parse_compile_limit(const char *opt, const char *val, nh_load_opts *lo) {
  double v;
  if (!nonnegative(opt, val, &v)) return 0;
  *(strcmp(opt, "--compile-memory") == 0 ? &lo->cc_memory_limit : &lo->cc_time_limit) = v;
  return 1;
}

void cli_backend_note(const nh_model *model) {
  const char *note = nh_model_backend_note(model);
  if (note[0])
    fprintf(stderr, "nholo: note: %s; using the tape back end (--compile-limit SECONDS and --compile-memory MIB "
                    "change the budget, 0 for none)\n", note);
}
