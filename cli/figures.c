/* figures.c - `nholo figure NAME`: regenerate the figures of the papers, one command each.
 *
 * Clark & Bloch, "The Bouncing Penny and Nonholonomic Impacts":
 *   penny-fig1  first 20 impacts, elastic, circular table
 *   penny-fig2  first 20 impacts, plastic, circular table
 *   penny-fig3  first 20 impacts, elastic, elliptical table
 *   penny-fig4  first 20 impacts, plastic, elliptical table
 *   penny-fig5  sensitivity: 100 initial conditions (theta'0, phi'0 perturbed), positions
 *               at several times. The paper leaves the details open (spec 000 D11); our
 *               choice, all options: elastic ellipse, independent uniform perturbations in
 *               (-0.005, 0.005), xorshift64* seeded with 2024, times 5, 10, 20, 40 s.
 * Kobilarov, Martin de Diego, Ferraro, "Simulating Nonholonomic Dynamics" (figures_nh.c):
 *   sleigh-fig2, snakeboard-fig4 */
#define _POSIX_C_SOURCE 200809L /* mkdir */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "figures_dg.h"

typedef struct fig_opts {
  const char *out_dir;
  const char *out;   /* explicit file (single figure) */
  const char *method;
  long impacts;
  /* fig5 */
  long members;
  unsigned long long seed;
  double spread;
  double times[8];
  int ntimes;
  int elliptic, plastic;
} fig_opts;

/* uniform in [lo, hi) from xorshift64* */
static double rnd(unsigned long long *s, double lo, double hi) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  unsigned long long r = *s * 2685821657736338717ULL;
  return lo + (hi - lo) * ((double)(r >> 11) * (1.0 / 9007199254740992.0));
}

static void out_path(char *buf, size_t size, const fig_opts *o, const char *name) {
  if (o->out)
    snprintf(buf, size, "%s", o->out);
  else
    snprintf(buf, size, "%s/%s.png", o->out_dir, name);
}

/* Figs. 1-4: one penny run, plotted */
static int fig_penny_run(const fig_opts *o, const char *name, int elliptic, int plastic) {
  nh_penny_params p = nh_penny_params_default();
  if (elliptic) p.a = 0.15;
  p.law.kind = plastic ? NH_IMPACT_PLASTIC : NH_IMPACT_ELASTIC;
  char msg[512], path[1024], title[200];
  nh_model *model = nh_penny_create(&p, msg, sizeof msg);
  if (!model) return cli_usage_error("%s", msg);
  nh_sim_def def = nh_sim_def_default();
  def.method = nh_method_find(o->method);
  def.out_dt = (nh_method_flags(def.method) & NH_METHOD_EXACT) ? 0.005 : 0.0;
  nh_sim *sim = nh_sim_create(model, &def, msg, sizeof msg);
  if (!sim) {
    nh_model_destroy(model);
    return cli_usage_error("%s", msg);
  }
  nh_traj *traj = nh_traj_create(model->nq);
  int st = nh_sim_run(sim, 200.0, o->impacts, nh_traj_observer, traj);
  out_path(path, sizeof path, o, name);
  snprintf(title, sizeof title, "%s: first %ld impacts, %s, %s table", name, nh_sim_get_stats(sim)->impacts,
           plastic ? "plastic" : "elastic", elliptic ? "elliptical" : "circular");
  int rc = CLI_OK;
  if (st < 0) {
    fprintf(stderr, "nholo: %s: %s\n", name, nh_sim_message(sim));
    rc = CLI_FAILED;
  } else if (nh_plot_penny(path, p.a, p.b, p.R, traj, sim, title, msg, sizeof msg) != NH_OK) {
    fprintf(stderr, "nholo: %s\n", msg);
    rc = CLI_FAILED;
  } else {
    const nh_sim_stats *s = nh_sim_get_stats(sim);
    printf("%s: %ld impacts by t = %.10g s, E/E0 = %.9g -> %s\n", name, s->impacts, nh_sim_time(sim),
           s->energy / s->energy_initial, path);
  }
  nh_traj_destroy(traj);
  nh_sim_destroy(sim);
  nh_model_destroy(model);
  return rc;
}

/* the ensemble's positions at the panel times */
typedef struct ens_obs {
  const double *times;
  int ntimes, next;
  double *x, *y; /* (ntimes) for this member */
} ens_obs;

static int ens_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q,
                        const double *v, void *user) {
  (void)sim, (void)kind, (void)v;
  ens_obs *e = user;
  while (e->next < e->ntimes && fabs(t - e->times[e->next]) <= 1e-9 * fmax(1.0, t)) {
    e->x[e->next] = q[0];
    e->y[e->next] = q[1];
    e->next++;
  }
  return 0;
}

/* Fig. 5: sensitivity to initial conditions */
static int fig_penny_ensemble(const fig_opts *o, const char *name) {
  const int nt = o->ntimes, n = (int)o->members;
  double *x = calloc((size_t)nt * (size_t)n, sizeof(double));
  double *y = calloc((size_t)nt * (size_t)n, sizeof(double));
  if (!x || !y) {
    free(x), free(y);
    fprintf(stderr, "nholo: out of memory\n");
    return CLI_FAILED;
  }
  unsigned long long seed = o->seed ? o->seed : 1;
  char msg[512];
  int rc = CLI_OK;
  for (int k = 0; k < n && rc == CLI_OK; k++) {
    nh_penny_params p = nh_penny_params_default();
    if (o->elliptic) p.a = 0.15;
    p.law.kind = o->plastic ? NH_IMPACT_PLASTIC : NH_IMPACT_ELASTIC;
    p.theta_dot0 += rnd(&seed, -o->spread, o->spread);
    p.phi_dot0 += rnd(&seed, -o->spread, o->spread);
    nh_model *model = nh_penny_create(&p, msg, sizeof msg);
    nh_sim_def def = nh_sim_def_default();
    def.method = nh_method_find(o->method);
    nh_sim *sim = model ? nh_sim_create(model, &def, msg, sizeof msg) : NULL;
    if (!sim) {
      rc = cli_usage_error("%s", msg);
      nh_model_destroy(model);
      break;
    }
    // stop exactly at each panel time
    double xs[8], ys[8];
    ens_obs e = {o->times, nt, 0, xs, ys};
    for (int j = 0; j < nt && rc == CLI_OK; j++) {
      int st = nh_sim_run(sim, o->times[j], 0, ens_observer, &e);
      if (st < 0 && st != NH_ZENO) {
        fprintf(stderr, "nholo: %s member %d: %s\n", name, k, nh_sim_message(sim));
        rc = CLI_FAILED;
      }
    }
    for (int j = 0; j < nt; j++) {
      x[(size_t)j * n + k] = xs[j];
      y[(size_t)j * n + k] = ys[j];
    }
    nh_sim_destroy(sim);
    nh_model_destroy(model);
  }
  if (rc == CLI_OK) {
    char titles[8][64];
    const char *tp[8];
    printf("%s: %d members, %s %s table, perturbation (-%g, %g), seed %llu\n", name, n,
           o->plastic ? "plastic" : "elastic", o->elliptic ? "elliptical" : "circular", o->spread, o->spread, o->seed);
    for (int j = 0; j < nt; j++) {
      // rms spread of the ground point about the ensemble mean
      double mx = 0, my = 0, s2 = 0;
      for (int k = 0; k < n; k++) mx += x[(size_t)j * n + k], my += y[(size_t)j * n + k];
      mx /= n, my /= n;
      for (int k = 0; k < n; k++) {
        double dx = x[(size_t)j * n + k] - mx, dy = y[(size_t)j * n + k] - my;
        s2 += dx * dx + dy * dy;
      }
      snprintf(titles[j], sizeof titles[j], "t = %g s, rms spread %.3g m", o->times[j], sqrt(s2 / n));
      tp[j] = titles[j];
      printf("  t = %6g s: rms spread of (x, y) = %.6g m\n", o->times[j], sqrt(s2 / n));
    }
    char path[1024], title[160];
    out_path(path, sizeof path, o, name);
    snprintf(title, sizeof title, "%s: %d perturbed initial conditions", name, n);
    nh_penny_params p = nh_penny_params_default();
    if (o->elliptic) p.a = 0.15;
    if (nh_plot_penny_ensemble(path, p.a, p.b, nt, n, x, y, tp, title, msg, sizeof msg) != NH_OK) {
      fprintf(stderr, "nholo: %s\n", msg);
      rc = CLI_FAILED;
    } else {
      printf("  -> %s\n", path);
    }
  }
  free(x), free(y);
  return rc;
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

static const struct {
  const char *name, *what;
} figures[] = {
    {"penny-fig1", "Clark & Bloch Fig. 1: first 20 impacts, elastic, circular table"},
    {"penny-fig2", "Clark & Bloch Fig. 2: first 20 impacts, plastic, circular table"},
    {"penny-fig3", "Clark & Bloch Fig. 3: first 20 impacts, elastic, elliptical table"},
    {"penny-fig4", "Clark & Bloch Fig. 4: first 20 impacts, plastic, elliptical table"},
    {"penny-fig5", "Clark & Bloch Fig. 5: 100 perturbed initial conditions at several times"},
    {"sleigh-fig2", "Kobilarov et al. Fig. 2: sleigh heart curves and energy, GNI, RDP, RK2, exact"},
    {"snakeboard-fig4", "Kobilarov et al. Fig. 4: snakeboard, N = 128 over T = 10, RK2, GNI, RDP, true"},
    {"dg-fig2", "Celledoni et al. Fig. 2: quartic system, order, constraint, energy, variance"},
    {"dg-fig3", "Celledoni et al. Fig. 3: Chaplygin sleigh, method (23), rho1(0) = +-0.001"},
    {"dg-fig4", "Celledoni et al. Fig. 4: gearbox, GONZALEZ-R/-F and SI-DLA to t = 50000"},
};
#define NFIGURES ((int)(sizeof figures / sizeof figures[0]))

static void figure_help(void) {
  printf("usage: nholo figure NAME|all [options]\n\nfigures:\n");
  for (int i = 0; i < NFIGURES; i++) printf("  %-12s %s\n", figures[i].name, figures[i].what);
  cli_ball_figure_help();
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

static int parse_times(const char *text, fig_opts *o) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", text);
  o->ntimes = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    double t;
    if (o->ntimes >= 8) {
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
  fig_opts o;
  memset(&o, 0, sizeof o);
  o.out_dir = "out/figures";
  o.method = "exact";
  o.impacts = 20;
  o.members = 100;
  o.seed = 2024;
  o.spread = 0.005;
  o.elliptic = 1;
  double deft[4] = {5, 10, 20, 40};
  memcpy(o.times, deft, sizeof deft);
  o.ntimes = 4;
  const char *name = NULL;
  dg_fig_opts dgo = {0.0, 0.0, 0, 2024};
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
    if (!strcmp(a, "--out-dir")) o.out_dir = val;
    else if (!strcmp(a, "--out")) o.out = val;
    else if (!strcmp(a, "--t-end") || !strcmp(a, "--dt")) {
      double dv;
      if (!cli_parse_double(a, val, &dv)) return CLI_USAGE;
      if (!(dv > 0.0)) return cli_usage_error("%s: must be > 0 (got %s)", a, val);
      if (!strcmp(a, "--dt")) dgo.dt = dv;
      else dgo.t_end = dv;
    }
    else if (!strcmp(a, "--method")) {
      if (!nh_method_find(val)) return cli_usage_error("--method: unknown method '%s' (see 'nholo list')", val);
      o.method = val;
    } else if (!strcmp(a, "--impacts")) {
      if (!cli_parse_long(a, val, 1, 100000000L, &o.impacts)) return CLI_USAGE;
    } else if (!strcmp(a, "--members")) {
      if (!cli_parse_long(a, val, 1, 1000000L, &o.members)) return CLI_USAGE;
      dgo.members = o.members;
    } else if (!strcmp(a, "--seed")) {
      if (!cli_parse_long(a, val, 1, 0x7fffffffL, &lv)) return CLI_USAGE;
      o.seed = (unsigned long long)lv;
      dgo.seed = o.seed;
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
  int all = strcmp(name, "all") == 0, found = 0;
  if (all && o.out) return cli_usage_error("--out names one file; use --out-dir with 'all'");
  for (int i = 0; i < NFIGURES; i++)
    if (all || strcmp(name, figures[i].name) == 0) found = 1;
  for (int i = 0; cli_ball_figure_names[i]; i++)
    if (strcmp(name, cli_ball_figure_names[i]) == 0) found = 1;
  if (!found) return cli_usage_error("unknown figure '%s' (see 'nholo figure --help')", name);

  // the output location must be writable before anything runs
  char probe[1100], msg[512];
  if (o.out) {
    const char *dot = strrchr(o.out, '.');
    if (!dot || (strcmp(dot, ".png") && strcmp(dot, ".svg") && strcmp(dot, ".pdf")))
      return cli_usage_error("--out: '%s' must end in .png, .svg or .pdf", o.out);
    snprintf(probe, sizeof probe, "%s", o.out);
  } else {
    if (make_dirs(o.out_dir) != 0)
      return cli_usage_error("--out-dir: cannot create '%s': %s", o.out_dir, strerror(errno));
    snprintf(probe, sizeof probe, "%s/.nholo-probe.png", o.out_dir);
  }
  if (nh_check_writable(probe, msg, sizeof msg) != NH_OK) return cli_usage_error("%s", msg);

  int rc = CLI_OK;
  for (int i = 0; i < NFIGURES && rc == CLI_OK; i++) {
    if (!all && strcmp(name, figures[i].name) != 0) continue;
    char path[1100];
    out_path(path, sizeof path, &o, figures[i].name);
    if (strncmp(figures[i].name, "dg-", 3) == 0)
      rc = cli_dg_figure(figures[i].name, path, &dgo);
    else if (i < 4)
      rc = fig_penny_run(&o, figures[i].name, i >= 2, i % 2 == 1);
    else if (i == 4)
      rc = fig_penny_ensemble(&o, figures[i].name);
    else if (i == 5)
      rc = cli_fig_sleigh2(path);
    else
      rc = cli_fig_snakeboard4(path);
  }
  for (int i = 0; cli_ball_figure_names[i] && rc == CLI_OK; i++) {
    if (!all && strcmp(name, cli_ball_figure_names[i]) != 0) continue;
    char path[1024];
    out_path(path, sizeof path, &o, cli_ball_figure_names[i]);
    cli_ball_figure(cli_ball_figure_names[i], path, &rc);
  }
  return rc;
}
