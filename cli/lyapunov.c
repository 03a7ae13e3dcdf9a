/* lyapunov.c - `nholo lyapunov MODEL`: the largest Lyapunov exponent of a model's hybrid flow
 * with its confidence interval (nholo/lyapunov.h, docs/lyapunov.md). Parses the options,
 * loads the model, runs the estimate, prints one line and optionally the estimate against
 * time as CSV. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "nholo/lyapunov.h"

typedef struct ly_opts {
  const char *model, *csv;
  nh_lyap_def def;
  cli_sets sets;
  nh_backend backend;
  nh_load_opts cc; /* --compile-limit, --compile-memory */
  int law_set, json;
  nh_impact_law law;
  const char *table;
} ly_opts;

static void lyapunov_help(void) {
  printf("usage: nholo lyapunov MODEL [options]\n\n"
         "The largest Lyapunov exponent of MODEL (a model file or a built-in) from its initial state:\n"
         "the tangent equations from the model's derivatives, the saltation matrix at every impact,\n"
         "Benettin's renormalisation every --window seconds, and a 95%% confidence interval from\n"
         "batch means over the windows (docs/lyapunov.md).\n\n"
         "options:\n"
         "  --t-end T          length of the estimate in s after the transient (default 1000)\n"
         "  --window W         renormalisation interval in s (default 1)\n"
         "  --transient T      time run before the estimate starts (default 0)\n"
         "  --batches B        batches of the confidence interval, 2..%d (default 10)\n"
         "  --method NAME      explicit adaptive integrator of state and tangent (default dop853)\n"
         "  --rtol R, --atol A its tolerances (default 1e-11, 1e-13)\n"
         "  --h-max H          largest step (default none; a gap crossed in and out within one step\n"
         "                     is found by the graze search)\n"
         "  --seed S           the initial tangent's random direction (default 1)\n"
         "  --impact LAW       elastic, plastic or restitution=E on every gap (default: the model's)\n"
         "  --no-contact       impacts only: no persistent contacts (default: they close, are held\n"
         "                     and open as in 'nholo run', the tangent following the constrained flow)\n"
         "  --set NAME=VALUE   override a parameter or initial value (repeatable)\n"
         "  --table circle|ellipse   the built-in penny's table\n"
         "  --backend auto|tape|codegen   how a model file's evaluators run (default auto)\n"
         "  --compile-limit SECONDS, --compile-memory MIB   the C compiler's budget (default 60 s,\n"
         "                     2048 MiB; 0: none); past it auto runs the tape, with a note\n"
         "  --csv FILE         the estimate after every window: t, windows, lambda, half_width,\n"
         "                     log_growth, impacts\n"
         "  --json             the result as one JSON object\n"
         "an option's value follows it or is joined to it by '='\n\n"
         "example: nholo lyapunov examples/sinai.nh --t-end 2000 --csv sinai.csv\n"
         "exit status: 0, 1 the estimate failed, 2 bad input, 3 Zeno guard, 130 / 143 interrupted by\n"
         "SIGINT / SIGTERM (the estimate and --csv cover the windows before; status NH_INTERRUPTED)\n",
         NH_LYAP_MAX_BATCHES);
}

/* one option with its value; 0 after printing an error */
static int ly_option(ly_opts *o, const char *name, const char *val) {
  long n;
  if (strcmp(name, "--t-end") == 0) return cli_parse_double(name, val, &o->def.t_end);
  if (strcmp(name, "--window") == 0) return cli_parse_double(name, val, &o->def.window);
  if (strcmp(name, "--transient") == 0) return cli_parse_double(name, val, &o->def.transient);
  if (strcmp(name, "--rtol") == 0) return cli_parse_double(name, val, &o->def.rtol);
  if (strcmp(name, "--atol") == 0) return cli_parse_double(name, val, &o->def.atol);
  if (strcmp(name, "--h-max") == 0) return cli_parse_double(name, val, &o->def.h_max);
  if (strcmp(name, "--batches") == 0) {
    if (!cli_parse_long(name, val, 2, NH_LYAP_MAX_BATCHES, &n)) return 0;
    return o->def.batches = (int)n, 1;
  }
  if (strcmp(name, "--seed") == 0) {
    if (!cli_parse_long(name, val, 0, 2147483647L, &n)) return 0;
    return o->def.seed = (unsigned long long)n, 1;
  }
  if (strcmp(name, "--method") == 0) {
    if (!(o->def.method = nh_method_find(val)))
      return cli_usage_error("--method: unknown method '%s' (see 'nholo list')", val), 0;
    return 1;
  }
  if (strcmp(name, "--impact") == 0) return o->law_set = 1, cli_parse_impact(name, val, &o->law);
  if (strcmp(name, "--set") == 0) return cli_parse_set(name, val, &o->sets);
  if (strcmp(name, "--backend") == 0) return cli_parse_backend(name, val, &o->backend);
  if (strcmp(name, "--compile-limit") == 0 || strcmp(name, "--compile-memory") == 0)
    return cli_parse_compile_limit(name, val, &o->cc);
  if (strcmp(name, "--table") == 0) return o->table = val, 1;
  if (strcmp(name, "--csv") == 0) return o->csv = val, 1;
  cli_usage_error("unknown option '%s' (see 'nholo lyapunov --help')", name);
  return 0;
}

static int ly_parse(ly_opts *o, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    char buf[64];
    const char *inl, *a = argv[i], *name = cli_opt_name(a, buf, sizeof buf, &inl);
    if (a[0] != '-') {
      if (o->model) return cli_usage_error("lyapunov takes one MODEL (got '%s' and '%s')", o->model, a), 0;
      o->model = a;
      continue;
    }
    if (strcmp(name, "--json") == 0 || strcmp(name, "--no-contact") == 0) {
      if (!cli_opt_flag(name, inl)) return 0;
      if (name[2] == 'j') o->json = 1;
      else o->def.contact = 0;
      continue;
    }
    const char *val = cli_opt_value(name, inl, argc, argv, &i, NULL);
    if (!val || !ly_option(o, name, val)) return 0;
  }
  if (!o->model) return cli_usage_error("lyapunov needs a MODEL (see 'nholo lyapunov --help')"), 0;
  if (!(o->def.t_end > 0.0) || !(o->def.window > 0.0) || !(o->def.transient >= 0.0) ||
      !(o->def.rtol > 0.0) || !(o->def.atol > 0.0) || !(o->def.h_max >= 0.0))
    return cli_usage_error("--t-end, --window, --rtol and --atol must be positive, --transient and --h-max >= 0"), 0;
  if (o->def.t_end / o->def.window > 1e8)
    return cli_usage_error("--t-end %g over --window %g is more than 1e8 windows", o->def.t_end, o->def.window), 0;
  return 1;
}

static nh_model *ly_load(const ly_opts *o, int *rc) {
  char msg[2048];
  nh_model *m;
  if (cli_is_model_file(o->model)) {
    if (o->table) return *rc = cli_usage_error("--table: only for the built-in penny"), NULL;
    nh_load_opts lo = nh_load_opts_default();
    lo.backend = o->backend;
    lo.nset = o->sets.n;
    lo.set_names = o->sets.names;
    lo.set_values = o->sets.values;
    lo.impact_override = o->law_set;
    lo.impact = o->law;
    lo.cc_time_limit = o->cc.cc_time_limit, lo.cc_memory_limit = o->cc.cc_memory_limit;
    lo.cancel = &cli_signal;
    if (!cli_model_file_ok(o->model)) return *rc = CLI_USAGE, NULL;
    if (!(m = nh_model_load(o->model, &lo, msg, sizeof msg)))
      return *rc = cli_signal ? cli_interrupted("while the model was loaded (its compiler stopped, its files removed)")
                              : cli_model_error(msg), NULL;
    cli_backend_note(m);
    return m;
  }
  nh_builtin_opts bo = {o->sets.n, o->sets.names, o->sets.values, o->law_set, o->law, o->table};
  if (!(m = nh_builtin_load(o->model, &bo, msg, sizeof msg))) return *rc = cli_usage_error("%s", msg), NULL;
  return m;
}

static int csv_row(const nh_lyap_point *p, void *user) {
  fprintf((FILE *)user, "%.17g,%ld,%.17g,%.17g,%.17g,%ld\n", p->t, p->windows, p->lambda, p->half_width,
          p->log_growth, p->impacts);
  return 0;
}

static void print_result(const ly_opts *o, const nh_model *m, const nh_lyap_result *r, const char *msg) {
  const nh_lyap_point *p = &r->last;
  if (o->json) {
    char hw[32] = "null"; /* no interval before `batches` windows */
    if (isfinite(p->half_width)) snprintf(hw, sizeof hw, "%.17g", p->half_width);
    printf("{\"model\":\"%s\",\"lambda\":%.17g,\"half_width\":%s,\"t\":%.17g,\"windows\":%ld,"
           "\"window\":%.17g,\"batches\":%d,\"impacts\":%ld,\"grazing\":%ld,\"contacts\":%ld,"
           "\"max_saltation_gain\":%.17g,\"status\":\"%s\",\"message\":",
           m->name, p->lambda, hw, p->t, p->windows, o->def.window,
           o->def.batches, p->impacts, p->grazing, r->contacts, r->max_salt, nh_status_name(r->status));
    nh_json_str(stdout, msg);
    printf("}\n");
    return;
  }
  printf("%s: lambda = %.6g +- %.2g 1/s (95%%, %d batch means) over t = %g s (%ld windows of %g s), "
         "%ld impacts, %ld grazes, %ld contacts closed: %s\n",
         m->name, p->lambda, p->half_width, o->def.batches, p->t, p->windows, o->def.window, p->impacts, p->grazing,
         r->contacts, nh_status_name(r->status));
  if (r->status != NH_OK && msg[0]) printf("  %s\n", msg);
}

int cmd_lyapunov(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return lyapunov_help(), CLI_OK;
  ly_opts o;
  memset(&o, 0, sizeof o);
  o.def = nh_lyap_def_default();
  o.cc = nh_load_opts_default();
  if (!ly_parse(&o, argc, argv)) return CLI_USAGE;
  cli_signals_install(); /* SIGINT, SIGTERM: the estimate stops at its next step, the CSV kept */
  o.def.cancel = &cli_signal;
  int rc = CLI_OK;
  char msg[1024] = "";
  if (o.csv && nh_check_writable(o.csv, msg, sizeof msg) != NH_OK) return cli_usage_error("--csv: %s", msg);
  nh_model *m = ly_load(&o, &rc);
  if (!m) return rc;
  nh_outfile out;
  memset(&out, 0, sizeof out);
  if (o.csv) {
    if (nh_outfile_open(&out, o.csv, msg, sizeof msg) != NH_OK) {
      nh_model_destroy(m);
      return cli_usage_error("--csv: %s", msg);
    }
    fprintf(out.fp, "t,windows,lambda,half_width,log_growth,impacts\n");
  }
  nh_lyap_result res;
  int st = nh_lyapunov(m, &o.def, NULL, o.csv ? csv_row : NULL, out.fp, &res, msg, sizeof msg);
  if (st == NH_ERR_ARG) {
    if (o.csv) nh_outfile_abort(&out);
    nh_model_destroy(m);
    return cli_usage_error("%s", msg);
  }
  if (o.csv && nh_outfile_commit(&out, msg, sizeof msg) != NH_OK) {
    nh_model_destroy(m);
    return cli_usage_error("--csv: %s", msg);
  }
  print_result(&o, m, &res, msg);
  nh_model_destroy(m);
  if (cli_signal) {
    char what[256];
    if (st == NH_INTERRUPTED)
      snprintf(what, sizeof what, "at t = %.17g: the estimate covers the %ld windows before%s", res.t_stop,
               res.last.windows, o.csv ? ", as does the CSV" : "");
    else
      snprintf(what, sizeof what, "after the estimate had ended: it is complete");
    return cli_interrupted(what);
  }
  return st == NH_OK ? CLI_OK : st == NH_ZENO ? CLI_ZENO : CLI_FAILED;
}
