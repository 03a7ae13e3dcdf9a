/* main.c - `nholo`: dispatch to the subcommands. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifndef NHOLO_DOCDIR
#define NHOLO_DOCDIR "share/doc/nholo" /* where the install rules put the documentation */
#endif

static const char *usage_text =
    "usage: nholo <command> [options]\n"
    "\n"
    "Simulate nonholonomic mechanical systems with impacts.\n"
    "\n"
    "commands:\n"
    "  run MODEL [options]     simulate a built-in model or a model file (see 'nholo run --help')\n"
    "  ensemble MODEL [options] many runs, values drawn from distributions (see 'nholo ensemble --help')\n"
    "  check FILE.nh           check a model file; print its derived quantities\n"
    "  lyapunov MODEL [options] largest Lyapunov exponent with its confidence interval\n"
    "  figure NAME [options]   regenerate a figure of a paper (see 'nholo figure --help')\n"
    "  list                    list built-in models, methods and impact laws\n"
    "  --help, -h              this text\n"
    "  --version               the version\n"
    "\n"
    "exit status: 0 success, 1 the computation failed, 2 bad input, 3 Zeno guard,\n"
    "4 the run left its method's regime (NH_DRIFT: its conserved quantity or the energy drifted).\n"
    "\n"
    "documentation: README.md, docs/*.md (the model language, the methods, each system) and\n"
    "examples/ of the source tree; installed in PREFIX/" NHOLO_DOCDIR " (PREFIX is where nholo\n"
    "is installed, e.g. /usr/local), with the manual page 'man nholo'.\n";

int cli_usage_error(const char *fmt, ...) {
  char buf[4096]; /* a model file's diagnostic already ends with a newline (after its caret) */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  size_t n = strlen(buf);
  fprintf(stderr, "nholo: %s%s", buf, n && buf[n - 1] == '\n' ? "" : "\n");
  return CLI_USAGE;
}

int cli_need_component(const char *name, const char *opt) {
  char why[1024];
  if (nh_component_load(name, why, sizeof why) == 1) return CLI_OK;
  return cli_usage_error("%s: %s", opt, why);
}

const char *cli_opt_name(const char *arg, char *buf, size_t size, const char **inline_val) {
  const char *eq = arg[0] == '-' && arg[1] == '-' ? strchr(arg, '=') : NULL;
  *inline_val = NULL;
  if (!eq || (size_t)(eq - arg) >= size) return arg;
  memcpy(buf, arg, (size_t)(eq - arg));
  buf[eq - arg] = '\0';
  *inline_val = eq + 1;
  return buf;
}

const char *cli_opt_value(const char *name, const char *inline_val, int argc, char **argv, int *i,
                          const char *hint) {
  if (inline_val) return inline_val;
  if (*i + 1 < argc) return argv[++*i];
  if (hint)
    cli_usage_error("option %s needs a value (%s)", name, hint);
  else
    cli_usage_error("option %s needs a value", name);
  return NULL;
}

int cli_opt_flag(const char *name, const char *inline_val) {
  if (!inline_val) return 1;
  cli_usage_error("option %s takes no value (got '%s=%s')", name, name, inline_val);
  return 0;
}

int cli_parse_double(const char *opt, const char *text, double *out) {
  char *end = NULL;
  if (!text || !*text) {
    cli_usage_error("%s: missing number", opt);
    return 0;
  }
  double v = strtod(text, &end);
  if (end == text || *end != '\0') {
    cli_usage_error("%s: '%s' is not a number", opt, text);
    return 0;
  }
  if (!isfinite(v)) {
    cli_usage_error("%s: '%s' is not finite", opt, text);
    return 0;
  }
  *out = v;
  return 1;
}

int cli_parse_long(const char *opt, const char *text, long lo, long hi, long *out) {
  char *end = NULL;
  if (!text || !*text) {
    cli_usage_error("%s: missing whole number", opt);
    return 0;
  }
  long v = strtol(text, &end, 10);
  if (end == text || *end != '\0') {
    cli_usage_error("%s: '%s' is not a whole number", opt, text);
    return 0;
  }
  if (v < lo || v > hi) {
    cli_usage_error("%s: %ld is outside [%ld, %ld]", opt, v, lo, hi);
    return 0;
  }
  *out = v;
  return 1;
}

int cli_parse_impact(const char *opt, const char *text, nh_impact_law *law) {
  if (strcmp(text, "elastic") == 0) {
    law->kind = NH_IMPACT_ELASTIC, law->e = 1.0;
    return 1;
  }
  if (strcmp(text, "plastic") == 0) {
    law->kind = NH_IMPACT_PLASTIC, law->e = 1.0;
    return 1;
  }
  if (strncmp(text, "restitution=", 12) == 0) {
    double e;
    if (!cli_parse_double(opt, text + 12, &e)) return 0;
    if (!(e >= 0.0 && e <= 1.0)) {
      cli_usage_error("%s: coefficient of restitution %g is outside [0, 1]", opt, e);
      return 0;
    }
    law->kind = NH_IMPACT_RESTITUTION, law->e = e;
    return 1;
  }
  cli_usage_error("%s: unknown impact law '%s' (expected elastic, plastic or restitution=E)", opt, text);
  return 0;
}

/* a cell of the matrix: the method's verdict on the kind (nh_method_kind_support) */
static const char *matrix_cell(const nh_method *m, nh_model_kind kind) {
  char msg[512];
  switch (nh_method_kind_support(m, kind, msg, sizeof msg)) {
  case NH_OK: return "yes";
  case NH_KIND_NO_FORCE: return "no force";
  case NH_KIND_NEEDS_FLOW: return "flow";
  case NH_ERR_UNSUPPORTED: return "no";
  default: return "?";
  }
}

/* a kind's impact laws: every law on the mechanical kinds (their examples have walls);
 * elastic and restitution on the almost-Poisson form, for gaps of configuration-like state
 * variables (nholo/impact.h, nh_model_impact_ap); none on the other ODE forms */
static const char *kind_laws(nh_model_kind k, const char *laws) {
  if (nh_model_kind_has_gaps(k)) return laws;
  return k == NH_KIND_POISSON ? "elastic, restitution=E (gaps of configuration-like variables)" : NULL;
}

/* Which method for which job (docs/integrators.md, "Which method for which job", has the
 * measurements): the job, the method, why */
static const char *const jobs[][3] = {
    {"long conservative runs (V = 0, constant M)", "gni (= rattle = shake)",
     "energy and constraints to round-off: car to T = 1000 2.4e-11 (dopri5 9.6e-6); auto for t_end >= 1000"},
    {"long runs with a potential or M(q)", "dop853 (tight rtol)",
     "Whipple bicycle to T = 1000: 9.9e-12 at rtol 1e-10 (gni = del at h = 0.01: 1.4e-6, bounded)"},
    {"energy exact with a potential", "gonzalez-r",
     "knife edge on a slope to T = 1000: energy 1.7e-11 (gni 2.3e-5, dop853 2.2e-5), 14x gni's time"},
    {"high accuracy", "dop853", "a third of dopri5's evaluations at rtol 1e-10 (sleigh); auto for rtol < 1e-10"},
    {"impacts", "exact, else dopri5 / dop853",
     "the closed-form flow when the model has one; impact times at the tolerance; no method passes a wall"},
    {"large models (hundreds of coordinates)", "dopri5, gni",
     "per-step cost grows as N^1.0-1.1 (gni, dopri5, rk4) on a chain of up to 128 sleighs"},
    {"speed per step, short runs", "gni --variant paper",
     "explicit kernel: 45 ns per step on the sleigh against 216 ns (symmetric gni) and 214 ns (rk4)"},
};

static void print_jobs(int markdown) {
  if (markdown) printf("| job | method | why (measured) |\n|---|---|---|\n");
  else printf("\nwhich method for which job (--method auto, the default, picks exact, gni, dop853 or dopri5:\n"
              "'nholo run --help'):\n");
  for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++)
    if (markdown) printf("| %s | `%s` | %s |\n", jobs[i][0], jobs[i][1], jobs[i][2]);
    else printf("  %-42s %-28s %s\n", jobs[i][0], jobs[i][1], jobs[i][2]);
}

/* Which method runs which kind of model, and the kinds' impact laws: a text table, or the
 * Markdown table the README carries (`nholo list --markdown`). */
static void print_matrix(int markdown) {
  const char *legend = "yes: runs it; no force: only without forces; flow: only with the model's closed-form "
                       "flow; no: refused ('nholo run' says why and which methods fit)";
  const char *laws = "elastic, plastic, restitution=E";
  if (markdown) {
    printf("| method |");
    for (int k = 0; k < NH_KIND_COUNT; k++) printf(" %s |", nh_model_kind_name((nh_model_kind)k));
    printf("\n|---|");
    for (int k = 0; k < NH_KIND_COUNT; k++) printf("---|");
    for (int i = 0; i < nh_method_count(); i++) {
      printf("\n| `%s` |", nh_method_name(nh_method_at(i)));
      for (int k = 0; k < NH_KIND_COUNT; k++) printf(" %s |", matrix_cell(nh_method_at(i), (nh_model_kind)k));
    }
    printf("\n| impact laws |");
    for (int k = 0; k < NH_KIND_COUNT; k++)
      printf(" %s |", kind_laws((nh_model_kind)k, laws) ? kind_laws((nh_model_kind)k, laws) : "none (no gaps)");
    printf("\n\n%s.\n\n", legend);
    for (int k = 0; k < NH_KIND_COUNT; k++)
      printf("* `%s`: %s\n", nh_model_kind_name((nh_model_kind)k), nh_model_kind_title((nh_model_kind)k));
    return;
  }
  printf("\nmethods by model kind (--method on a model of each kind):\n  %s\n  %-14s", legend, "method");
  for (int k = 0; k < NH_KIND_COUNT; k++)
    printf(" %-*s", k + 1 < NH_KIND_COUNT ? 11 : 0, nh_model_kind_name((nh_model_kind)k));
  for (int i = 0; i < nh_method_count(); i++) {
    printf("\n  %-14s", nh_method_name(nh_method_at(i)));
    for (int k = 0; k < NH_KIND_COUNT; k++)
      printf(" %-*s", k + 1 < NH_KIND_COUNT ? 11 : 0, matrix_cell(nh_method_at(i), (nh_model_kind)k));
  }
  printf("\n\nmodel kinds (impact laws: %s on every mechanical kind; elastic and restitution=E on the "
         "almost-Poisson form; none on the other ODE forms):\n", laws);
  for (int k = 0; k < NH_KIND_COUNT; k++) {
    const int gaps = nh_model_kind_has_gaps((nh_model_kind)k), ap = k == NH_KIND_POISSON;
    printf("  %-14s %s%s\n", nh_model_kind_name((nh_model_kind)k), nh_model_kind_title((nh_model_kind)k),
           gaps ? "" : ap ? " (impacts: elastic, restitution=E on gaps of configuration-like variables)" : " (no gaps: no impacts)");
  }
}

static int cmd_list(int argc, char **argv) {
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    printf("usage: nholo list [--markdown | --jobs]\n\n"
           "List the built-in models, the integrators (--method) with their order and what they\n"
           "preserve, which method runs which kind of model, the impact laws (--impact) and the\n"
           "components (plot, hdf5, cholmod: where each was found, or why it is unavailable).\n"
           "--markdown prints only the method-by-kind table, in Markdown (the README's copy);\n"
           "--jobs only the table of which method for which job, in Markdown.\n");
    return CLI_OK;
  }
  if (argc == 2 && strcmp(argv[1], "--markdown") == 0) {
    print_matrix(1);
    return CLI_OK;
  }
  if (argc == 2 && strcmp(argv[1], "--jobs") == 0) {
    print_jobs(1);
    return CLI_OK;
  }
  if (argc > 1)
    return cli_usage_error("list takes no arguments but --markdown or --jobs (got '%s')",
                           strcmp(argv[1], "--markdown") == 0 ? argv[2] : argv[1]);
  printf("models:\n");
  for (int i = 0; i < nh_builtin_count(); i++)
    printf("  %-14s %s\n", nh_builtin_at(i)->name, nh_builtin_at(i)->summary);
  printf("\nmethods (--method):\n");
  printf("  %-14s %-6s %s\n", "name", "order", "preserves");
  for (int i = 0; i < nh_method_count(); i++) {
    const nh_method *m = nh_method_at(i);
    char order[16];
    if (nh_method_flags(m) & NH_METHOD_EXACT)
      snprintf(order, sizeof order, "exact");
    else
      snprintf(order, sizeof order, "%d", nh_method_order(m));
    printf("  %-14s %-6s %s\n", nh_method_name(m), order, nh_method_preserves(m));
    printf("  %-14s %-6s   %s\n", "", "", nh_method_summary(m));
  }
  print_matrix(0);
  print_jobs(0);
  printf("\nimpact laws (--impact):\n"
         "  elastic          energy conserved, constraints kept, normal velocity reversed (Clark & Bloch eqs. 15-17)\n"
         "  plastic          unconstrained elastic reflection, then projection onto the constraints (eqs. 18-21)\n"
         "  restitution=E    normal velocity scaled by -E; eq. 6 without constraints, an extension with them\n");
  // the components: opened here to say where each is, or why it is not
  printf("\ncomponents (opened on first use; docs/architecture.md, \"Components\"):\n");
  for (int i = 0; nh_component_name(i); i++) {
    char info[1200];
    (void)nh_component_load(nh_component_name(i), info, sizeof info);
    printf("  %-9s%s\n", nh_component_name(i), info); /* (what it brings, or why it is unavailable) */
  }
  return CLI_OK;
}

int main(int argc, char **argv) {
  if (argc < 2) return cli_usage_error("no command given (see 'nholo --help')");
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    fputs(usage_text, stdout);
    return CLI_OK;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("nholo %s\n", nh_version());
    return CLI_OK;
  }
  if (strcmp(cmd, "run") == 0) return cmd_run(argc - 1, argv + 1);
  if (strcmp(cmd, "check") == 0) return cmd_check(argc - 1, argv + 1);
  if (strcmp(cmd, "ensemble") == 0) return cmd_ensemble(argc - 1, argv + 1);
  if (strcmp(cmd, "figure") == 0) return cmd_figure(argc - 1, argv + 1);
  if (strcmp(cmd, "lyapunov") == 0) return cmd_lyapunov(argc - 1, argv + 1);
  if (strcmp(cmd, "list") == 0) return cmd_list(argc - 1, argv + 1);
  return cli_usage_error("unknown command '%s' (see 'nholo --help')", cmd);
}
