/* penny.c - Clark & Bloch, "The Bouncing Penny and Nonholonomic Impacts":
 *   penny-fig1..4  the first 20 impacts: elastic/plastic on a circular/elliptical table
 *   penny-fig5     sensitivity: 100 initial conditions (theta'0, phi'0 perturbed), positions
 *                  at several times. The paper leaves the details open (spec 000 D11); our
 *                  choice, all options: elastic ellipse, independent uniform perturbations in
 *                  (-0.005, 0.005), xorshift64* seeded with 2024, times 5, 10, 20, 40 s. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/module.h"
#include "papers.h"

/* semi-axis a of the elliptical table (m) of Figs. 3-5 */
#define PENNY_ELLIPSE_A 0.15
/* horizon of Figs. 1-4 (s): they end at the requested impact */
#define PENNY_T_MAX 200.0
/* output interval of the exact integrator (s), which takes whole flights as one step */
#define PENNY_EXACT_DT 0.005
/* a sample at a panel time: within this fraction of max(1, t) of it */
#define PENNY_TIME_SLACK 1e-9

static nh_penny_params penny_params(int elliptic, int plastic) {
  nh_penny_params p = nh_penny_params_default();
  if (elliptic) p.a = PENNY_ELLIPSE_A;
  p.law.kind = plastic ? NH_IMPACT_PLASTIC : NH_IMPACT_ELASTIC;
  return p;
}

/* Figs. 1-4: one penny run, plotted */
int papers_penny_run(const char *name, const char *path, const papers_opts *o, char *msg,
                     size_t msg_size) {
  const int fig = name[strlen(name) - 1] - '0'; /* penny-fig1..4 */
  const int elliptic = fig >= 3, plastic = fig % 2 == 0;
  nh_penny_params p = penny_params(elliptic, plastic);
  char title[200];
  nh_model *model = nh_penny_create(&p, msg, msg_size);
  if (!model) return NH_ERR_ARG;
  nh_sim_def def = nh_sim_def_default();
  def.method = nh_method_find(o->method);
  def.out_dt = (nh_method_flags(def.method) & NH_METHOD_EXACT) ? PENNY_EXACT_DT : 0.0;
  nh_sim *sim = nh_sim_create(model, &def, msg, msg_size);
  if (!sim) {
    nh_model_destroy(model);
    return NH_ERR_ARG;
  }
  nh_traj *traj = nh_traj_create(model->nq);
  int st = nh_sim_run(sim, PENNY_T_MAX, o->impacts, nh_traj_observer, traj);
  snprintf(title, sizeof title, "%s: first %ld impacts, %s, %s table", name,
           nh_sim_get_stats(sim)->impacts, plastic ? "plastic" : "elastic",
           elliptic ? "elliptical" : "circular");
  int rc = NH_OK;
  if (st < 0) {
    snprintf(msg, msg_size, "%s: %s", name, nh_sim_message(sim));
    rc = st == NH_ERR_ARG ? NH_ERR_CALLBACK : st;
  } else if ((rc = papers_plot_penny(path, p.a, p.b, p.R, traj, sim, title, msg, msg_size)) ==
             NH_OK) {
    const nh_sim_stats *s = nh_sim_get_stats(sim);
    fprintf(o->out, "%s: %ld impacts by t = %.10g s, E/E0 = %.9g -> %s\n", name, s->impacts,
            nh_sim_time(sim), s->energy / s->energy_initial, path);
  } else if (rc == NH_ERR_ARG) {
    rc = NH_ERR_IO; /* a failed figure, not bad input */
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
  while (e->next < e->ntimes &&
         fabs(t - e->times[e->next]) <= PENNY_TIME_SLACK * fmax(1.0, t)) {
    e->x[e->next] = q[0];
    e->y[e->next] = q[1];
    e->next++;
  }
  return 0;
}

/* one member: the positions at the panel times (xs, ys) */
static int ensemble_member(const papers_opts *o, const char *name, int k, unsigned long long *seed,
                           double *xs, double *ys, char *msg, size_t msg_size) {
  nh_penny_params p = penny_params(o->elliptic, o->plastic);
  p.theta_dot0 += -o->spread + 2.0 * o->spread * papers_urand(seed);
  p.phi_dot0 += -o->spread + 2.0 * o->spread * papers_urand(seed);
  nh_model *model = nh_penny_create(&p, msg, msg_size);
  nh_sim_def def = nh_sim_def_default();
  def.method = nh_method_find(o->method);
  nh_sim *sim = model ? nh_sim_create(model, &def, msg, msg_size) : NULL;
  if (!sim) {
    nh_model_destroy(model);
    return NH_ERR_ARG;
  }
  // stop exactly at each panel time
  ens_obs e = {o->times, o->ntimes, 0, xs, ys};
  int rc = NH_OK;
  for (int j = 0; j < o->ntimes && rc == NH_OK; j++) {
    int st = nh_sim_run(sim, o->times[j], 0, ens_observer, &e);
    if (st < 0 && st != NH_ZENO) {
      snprintf(msg, msg_size, "%s member %d: %s", name, k, nh_sim_message(sim));
      rc = st == NH_ERR_ARG ? NH_ERR_CALLBACK : st;
    }
  }
  nh_sim_destroy(sim);
  nh_model_destroy(model);
  return rc;
}

/* Fig. 5: sensitivity to initial conditions */
int papers_penny_ensemble(const char *name, const char *path, const papers_opts *o, char *msg,
                          size_t msg_size) {
  const int nt = o->ntimes, n = (int)(o->members > 0 ? o->members : 100);
  if (nt < 1 || nt > PAPERS_MAX_TIMES) {
    snprintf(msg, msg_size, "%s: between 1 and %d panel times", name, PAPERS_MAX_TIMES);
    return NH_ERR_ARG;
  }
  double *x = calloc((size_t)nt * (size_t)n, sizeof(double));
  double *y = calloc((size_t)nt * (size_t)n, sizeof(double));
  if (!x || !y) {
    free(x), free(y);
    snprintf(msg, msg_size, "out of memory");
    return NH_ERR_NOMEM;
  }
  unsigned long long seed = o->seed ? o->seed : 1;
  int rc = NH_OK;
  for (int k = 0; k < n && rc == NH_OK; k++) {
    double xs[PAPERS_MAX_TIMES] = {0}, ys[PAPERS_MAX_TIMES] = {0};
    rc = ensemble_member(o, name, k, &seed, xs, ys, msg, msg_size);
    for (int j = 0; j < nt; j++) {
      x[(size_t)j * n + k] = xs[j];
      y[(size_t)j * n + k] = ys[j];
    }
  }
  if (rc == NH_OK) {
    char titles[PAPERS_MAX_TIMES][64];
    const char *tp[PAPERS_MAX_TIMES];
    fprintf(o->out, "%s: %d members, %s %s table, perturbation (-%g, %g), seed %llu\n", name, n,
            o->plastic ? "plastic" : "elastic", o->elliptic ? "elliptical" : "circular", o->spread,
            o->spread, o->seed);
    for (int j = 0; j < nt; j++) {
      // rms spread of the ground point about the ensemble mean
      double mx = 0, my = 0, s2 = 0;
      for (int k = 0; k < n; k++) mx += x[(size_t)j * n + k], my += y[(size_t)j * n + k];
      mx /= n, my /= n;
      for (int k = 0; k < n; k++) {
        double dx = x[(size_t)j * n + k] - mx, dy = y[(size_t)j * n + k] - my;
        s2 += dx * dx + dy * dy;
      }
      snprintf(titles[j], sizeof titles[j], "t = %g s, rms spread %.3g m", o->times[j],
               sqrt(s2 / n));
      tp[j] = titles[j];
      fprintf(o->out, "  t = %6g s: rms spread of (x, y) = %.6g m\n", o->times[j], sqrt(s2 / n));
    }
    char title[160];
    snprintf(title, sizeof title, "%s: %d perturbed initial conditions", name, n);
    nh_penny_params p = penny_params(o->elliptic, 0);
    rc = papers_plot_penny_ensemble(path, p.a, p.b, nt, n, x, y, tp, title, msg, msg_size);
    if (rc == NH_OK) fprintf(o->out, "  -> %s\n", path);
    else if (rc == NH_ERR_ARG) rc = NH_ERR_IO;
  }
  free(x), free(y);
  return rc;
}

/* the penny's drawings are in the plot component (src/papers/penny_plot.c, base/module.h) */
int papers_plot_penny(const char *path, double a, double b, double R, const nh_traj *traj, const nh_sim *sim,
                      const char *title, char *msg, size_t msg_size) {
  const nh_module_plot *p = (const nh_module_plot *)nh_module_get(NH_MODULE_PLOT, msg, msg_size);
  return p ? p->penny(path, a, b, R, traj, sim, title, msg, msg_size) : NH_ERR_COMPONENT;
}

int papers_plot_penny_ensemble(const char *path, double a, double b, int npanels, int n, const double *x,
                               const double *y, const char *const *panel_titles, const char *title, char *msg,
                               size_t msg_size) {
  const nh_module_plot *p = (const nh_module_plot *)nh_module_get(NH_MODULE_PLOT, msg, msg_size);
  return p ? p->penny_ensemble(path, a, b, npanels, n, x, y, panel_titles, title, msg, msg_size)
           : NH_ERR_COMPONENT;
}
