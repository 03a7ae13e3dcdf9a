/* figures.c - `nholo figure NAME|all`: the options parsed and the figures of the papers'
 * registry (src/papers) run one by one; the figures themselves live in that layer.
 * --help lists them with one line each. */
#define _POSIX_C_SOURCE 200809L /* mkdir, isatty */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "papers.h"

/* where a figure goes: the --out file, else DIR/NAME.png */
static void out_path(char *buf, size_t size, const char *out, const char *out_dir, const char *name) {
  if (out)
    snprintf(buf, size, "%s", out);
  else
    snprintf(buf, size, "%s/%s.png", out_dir, name);
}

/* mkdir -p: create dir and its parents; 0 on success */
static int make_dirs(const char *dir) {
  char buf[1024];
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) return -1;
  for (char *p = buf + 1;; p++) {
    if (*p == '/' || *p == '\0') {
      char c = *p;
      *p = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
      *p = c;
      if (c == '\0') break;
    }
  }
  return 0;
}

static void figure_help(void) {
  int n;
  const papers_figure *figs = papers_figures(&n);
  printf("usage: nholo figure NAME|all [options]\n\nfigures:\n");
  for (int i = 0; i < n; i++) printf("  %-12s %s\n", figs[i].name, figs[i].description);
  printf("\noptions:\n"
         "  --out-dir DIR      where figures go as NAME.png (default out/figures)\n"
         "  --out FILE         file of a single figure (.png, .svg or .pdf)\n"
         "  --method NAME      integrator (default exact)\n"
         "  --impacts N        impacts of Figs. 1-4 (default 20)\n"
         "  --members N        ensemble size: penny-fig5 (default 100), dg-fig2 (default 200)\n"
         "  --seed S           random seed of the ensemble: penny-fig5, dg-fig2 (default 2024)\n"
         "  --spread D         Fig. 5 perturbation half-width (default 0.005)\n"
         "  --times T1,T2,...  Fig. 5 panel times in s (default 5,10,20,40; at most 8)\n"
         "  --table circle|ellipse, --impact elastic|plastic   Fig. 5 system (default ellipse, elastic)\n"
         "  --t-end T          dg figures: horizon (defaults: dg-fig2 1000, dg-fig3 300, dg-fig4 50000)\n"
         "  --dt H             dg figures: step (defaults: dg-fig2 0.1, dg-fig3 0.5, dg-fig4 0.1)\n"
         "an option's value follows it or is joined to it by '=' (--members=50)\n");
}

static int parse_times(const char *text, papers_opts *o) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", text);
  o->ntimes = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    double t;
    if (o->ntimes >= PAPERS_MAX_TIMES) {
      cli_usage_error("--times: at most 8 times");
      return 0;
    }
    if (!cli_parse_double("--times", tok, &t)) return 0;
    if (!(t > 0.0) || (o->ntimes > 0 && t <= o->times[o->ntimes - 1])) {
      cli_usage_error("--times: times must be positive and increasing (got %s)", tok);
      return 0;
    }
    o->times[o->ntimes++] = t;
  }
  if (o->ntimes == 0) {
    cli_usage_error("--times: no times given");
    return 0;
  }
  return 1;
}

int cmd_figure(int argc, char **argv) {
  papers_opts o = papers_opts_default();
  o.out = stdout;
  o.progress = isatty(STDERR_FILENO) ? stderr : NULL;
  const char *name = NULL, *out_dir = "out/figures", *out = NULL;
  for (int i = 1; i < argc; i++) {
    // --name value or --name=value
    char nbuf[64];
    const char *inl;
    const char *a = cli_opt_name(argv[i], nbuf, sizeof nbuf, &inl);
    const char *val = inl ? inl : (i + 1 < argc) ? argv[i + 1] : NULL;
    long lv;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      figure_help();
      return CLI_OK;
    }
    if (a[0] != '-') {
      if (name) return cli_usage_error("unexpected argument '%s'", a);
      name = a;
      continue;
    }
    int known = !strcmp(a, "--out-dir") || !strcmp(a, "--out") || !strcmp(a, "--method") ||
                !strcmp(a, "--impacts") || !strcmp(a, "--members") || !strcmp(a, "--seed") ||
                !strcmp(a, "--spread") || !strcmp(a, "--times") || !strcmp(a, "--table") ||
                !strcmp(a, "--impact") || !strcmp(a, "--t-end") || !strcmp(a, "--dt");
    if (!known) return cli_usage_error("unknown option '%s' (see 'nholo figure --help')", a);
    if (!val) return cli_usage_error("option %s needs a value", a);
    if (!inl) i++;
    if (!strcmp(a, "--out-dir")) out_dir = val;
    else if (!strcmp(a, "--out")) out = val;
    else if (!strcmp(a, "--t-end") || !strcmp(a, "--dt")) {
      double dv;
      if (!cli_parse_double(a, val, &dv)) return CLI_USAGE;
      if (!(dv > 0.0)) return cli_usage_error("%s: must be > 0 (got %s)", a, val);
      if (!strcmp(a, "--dt")) o.dt = dv;
      else o.t_end = dv;
    }
    else if (!strcmp(a, "--method")) {
      if (!nh_method_find(val)) return cli_usage_error("--method: unknown method '%s' (see 'nholo list')", val);
      o.method = val;
    } else if (!strcmp(a, "--impacts")) {
      if (!cli_parse_long(a, val, 1, 100000000L, &o.impacts)) return CLI_USAGE;
    } else if (!strcmp(a, "--members")) {
      if (!cli_parse_long(a, val, 1, 1000000L, &o.members)) return CLI_USAGE;
    } else if (!strcmp(a, "--seed")) {
      if (!cli_parse_long(a, val, 1, 0x7fffffffL, &lv)) return CLI_USAGE;
      o.seed = (unsigned long long)lv;
    } else if (!strcmp(a, "--spread")) {
      if (!cli_parse_double(a, val, &o.spread)) return CLI_USAGE;
      if (!(o.spread >= 0.0)) return cli_usage_error("--spread: must be >= 0");
    } else if (!strcmp(a, "--times")) {
      if (!parse_times(val, &o)) return CLI_USAGE;
    } else if (!strcmp(a, "--table")) {
      if (strcmp(val, "circle") && strcmp(val, "ellipse")) return cli_usage_error("--table: expected circle or ellipse, got '%s'", val);
      o.elliptic = strcmp(val, "ellipse") == 0;
    } else if (!strcmp(a, "--impact")) {
      if (strcmp(val, "elastic") && strcmp(val, "plastic")) return cli_usage_error("--impact: expected elastic or plastic, got '%s'", val);
      o.plastic = strcmp(val, "plastic") == 0;
    }
  }
  if (!name) return cli_usage_error("figure: no figure named (see 'nholo figure --help')");
  int all = strcmp(name, "all") == 0, nfig;
  const papers_figure *figs = papers_figures(&nfig);
  if (all && out) return cli_usage_error("--out names one file; use --out-dir with 'all'");
  if (!all && !papers_figure_find(name))
    return cli_usage_error("unknown figure '%s' (see 'nholo figure --help')", name);

  if (cli_need_component("plot", "figure") != CLI_OK) return CLI_USAGE;
  // the output location must be writable before anything runs
  char probe[1100], msg[1024];
  if (out) {
    const char *dot = strrchr(out, '.');
    if (!dot || (strcmp(dot, ".png") && strcmp(dot, ".svg") && strcmp(dot, ".pdf")))
      return cli_usage_error("--out: '%s' must end in .png, .svg or .pdf", out);
    snprintf(probe, sizeof probe, "%s", out);
  } else {
    if (make_dirs(out_dir) != 0)
      return cli_usage_error("--out-dir: cannot create '%s': %s", out_dir, strerror(errno));
    snprintf(probe, sizeof probe, "%s/.nholo-probe.png", out_dir);
  }
  if (nh_check_writable(probe, msg, sizeof msg) != NH_OK) return cli_usage_error("%s", msg);

  // each figure in turn; the first failure ends the command
  int rc = CLI_OK;
  for (int i = 0; i < nfig && rc == CLI_OK; i++) {
    if (!all && strcmp(name, figs[i].name) != 0) continue;
    char path[1100];
    out_path(path, sizeof path, out, out_dir, figs[i].name);
    msg[0] = '\0';
    int st = figs[i].run(figs[i].name, path, &o, msg, sizeof msg);
    if (st == NH_OK) continue;
    // a figure that needs an optional library this build lacks: 'all' goes on without it
    if (st == NH_ERR_UNSUPPORTED && all) {
      fprintf(stderr, "nholo: skipped %s: %s\n", figs[i].name, msg);
      continue;
    }
    rc = st == NH_ERR_ARG || st == NH_ERR_UNSUPPORTED ? CLI_USAGE : CLI_FAILED;
    if (msg[0]) fprintf(stderr, "nholo: %s\n", msg);
  }
  return rc;
}
