/* ball.c - the figures of Putkaradze & Rogers (the rolling disk and ball with internal
 * masses): Figs. 5.1-5.4 (the disk of Table 5.1) and 6.1-6.4 (the ball of Table 6.2, and
 * with m3 = 60 its detachment), from reference runs with DOPRI5 at tolerance 1e-12 of the body
 * files examples/rolling-disk.nh, rolling-ball.nh and rolling-ball-detach.nh (embedded). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papers.h"
#include "paper_bodies.h" /* examples/rolling-disk.nh, rolling-ball.nh, rolling-ball-detach.nh */

/* the reference runs: the paper's horizon and tolerance (spec 004 sec. 3.3, 8) */
#define BALL_T_END 20.0
#define BALL_TOL 1e-12
/* f_s / N and N are tracked on this grid (s): the paper's minimum friction coefficients are
 * maxima over time, resolved to ~1e-7 by it */
#define BALL_STATS_DT 1e-3

static const char *const fig_names[] = {"ball-fig5.1", "ball-fig5.2", "ball-fig5.3", "ball-fig5.4",
                                        "ball-fig6.1", "ball-fig6.2", "ball-fig6.3", "ball-fig6.4", NULL};

/* the parameters of the paper's disk (0), ball (1) or detachment run (2), read from its body
 * file (*f: the file behind the rail and input callbacks; destroy it after the model) */
static int paper_params(int which, nh_ball_params *p, nh_ball_file **f, char *msg, size_t size) {
  static const char *const texts[3] = {rolling_disk_nh, rolling_ball_nh, rolling_ball_detach_nh};
  static const char *const files[3] = {"rolling-disk.nh", "rolling-ball.nh", "rolling-ball-detach.nh"};
  if (!(*f = nh_ball_file_parse(texts[which], files[which], msg, size))) return NH_ERR_ARG;
  *p = *nh_ball_file_params(*f);
  return NH_OK;
}

/* ---- one run, every sample evaluated ---- */

typedef struct ball_run {
  long n, cap;
  double *t;         /* (n) */
  nh_ball_eval *ev;  /* (n) */
  nh_ball_stats st;  /* over the samples */
  int failed;
} ball_run;

static int run_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *x,
                        const double *v, void *user) {
  (void)v;
  ball_run *r = user;
  const nh_model *sm = nh_sim_model(sim);
  if (kind == NH_SAMPLE_END && r->n > 0 && r->t[r->n - 1] == t) return 0; /* already recorded */
  if (r->n == r->cap) {
    long cap = r->cap ? 2 * r->cap : 1024;
    double *nt = realloc(r->t, sizeof(double) * (size_t)cap);
    if (nt) r->t = nt;
    nh_ball_eval *ne = realloc(r->ev, sizeof(nh_ball_eval) * (size_t)cap);
    if (ne) r->ev = ne;
    if (!nt || !ne) return r->failed = 1;
    r->cap = cap;
  }
  r->t[r->n] = t;
  if (nh_ball_evaluate(sm, t, x, &r->ev[r->n]) != NH_OK) return r->failed = 1;
  nh_ball_stats_update(&r->st, sm, t, x);
  r->n++;
  return 0;
}

static void ball_run_free(ball_run *r) {
  free(r->t), free(r->ev);
  memset(r, 0, sizeof *r);
}

/* the reference run of model m to BALL_T_END (or its detachment); *sim_out receives the sim */
static int ball_simulate(const nh_model *m, ball_run *r, nh_sim **sim_out, char *msg, size_t size) {
  memset(r, 0, sizeof *r);
  nh_ball_stats_init(&r->st);
  nh_sim_def def = nh_sim_def_default();
  def.method = nh_method_find("dopri5");
  def.h = 1e-3;
  def.rtol = BALL_TOL;
  def.atol = BALL_TOL;
  def.out_dt = BALL_STATS_DT;
  nh_sim *sim = nh_sim_create(m, &def, msg, size);
  *sim_out = sim;
  if (!sim) return NH_ERR_ARG;
  int st = nh_ball_run(sim, BALL_T_END, run_observer, r);
  if (r->failed) snprintf(msg, size, "out of memory or evaluation failure while recording the run");
  return st;
}

/* a circle of radius R about (cx, cy) as a curve (nseg + 1 points in xy) */
static void circle_pts(double cx, double cy, double R, int nseg, double *x, double *y) {
  for (int k = 0; k <= nseg; k++) x[k] = cx + R * cos(2 * 3.14159265358979323846 * k / nseg), y[k] = cy + R * sin(2 * 3.14159265358979323846 * k / nseg);
}

#define FIG_SEG 200

/* Figs. 5.2, 6.1: the body at t = 0, projections (a, b) of the body frame */
static int fig_body(const char *path, int ball, char *msg, size_t size) {
  nh_ball_params p;
  nh_ball_file *f;
  if (paper_params(ball ? 1 : 0, &p, &f, msg, size) != NH_OK) return NH_ERR_ARG;
  nh_model *m = ball ? nh_ball_create(&p, msg, size) : nh_disk_create(&p, msg, size);
  if (!m) return nh_ball_file_destroy(f), NH_ERR_ARG;
  nh_ball_eval e;
  nh_ball_evaluate(m, 0.0, m->x0, &e);
  const int np = ball ? 3 : 1, axes[3][2] = {{0, 2}, {0, 1}, {1, 2}};
  const char *xl[3] = {"E#d1#u", "E#d1#u", "E#d2#u"}, *yl[3] = {"E#d3#u", "E#d2#u", "E#d3#u"};
  static double cx[FIG_SEG + 1], cy[FIG_SEG + 1], rx[NH_BALL_MAX_MASSES][3][FIG_SEG + 1], ry[NH_BALL_MAX_MASSES][3][FIG_SEG + 1];
  double mx[3][NH_BALL_MAX_MASSES + 2], my[3][NH_BALL_MAX_MASSES + 2];
  nh_plot_curve cv[3][NH_BALL_MAX_MASSES + 3];
  nh_plot_panel pn[3];
  circle_pts(0, 0, p.r, FIG_SEG, cx, cy);
  char titles[3][64];
  for (int a = 0; a < np; a++) {
    int ix = axes[a][0], iy = axes[a][1], nc = 0;
    cv[a][nc++] = (nh_plot_curve){FIG_SEG + 1, cx, cy, "shell", 0};
    for (int i = 0; i < p.n; i++) {
      for (int k = 0; k <= FIG_SEG; k++) {
        double th = 2 * 3.14159265358979323846 * k / FIG_SEG, z[3], zp[3], zpp[3];
        p.rail(i, th, z, zp, zpp, p.rail_user); /* the file's rail, a full turn in its parameter */
        rx[i][a][k] = z[ix], ry[i][a][k] = z[iy];
      }
      cv[a][nc++] = (nh_plot_curve){FIG_SEG + 1, rx[i][a], ry[i][a], NULL, 2};
    }
    for (int i = 0; i < p.n; i++) mx[a][i] = e.chi[i][ix], my[a][i] = e.chi[i][iy];
    mx[a][p.n] = p.chi0[ix], my[a][p.n] = p.chi0[iy];
    mx[a][p.n + 1] = e.cm_body[ix], my[a][p.n + 1] = e.cm_body[iy];
    cv[a][nc++] = (nh_plot_curve){p.n + 2, mx[a], my[a], "masses m#d1#u..m#dn#u, m#d0#u, total CM", 1};
    snprintf(titles[a], sizeof titles[a], "body frame at the GC, t = 0");
    pn[a] = (nh_plot_panel){titles[a], xl[a], yl[a], nc, cv[a], 1, NAN};
  }
  int st = nh_plot_panels(path, 1, np, np, pn, ball ? "the ball of Table 6.2 (rails dashed)" : "the disk of Table 5.1 (rails dashed)", msg, size);
  nh_model_destroy(m);
  nh_ball_file_destroy(f);
  return st;
}

/* trajectory figures from one run */
static int fig_run(const char *path, int fig, FILE *out, char *msg, size_t size) {
  const int disk = fig <= 4, detach = fig == 8;
  nh_ball_params p;
  nh_ball_file *f;
  if (paper_params(disk ? 0 : detach ? 2 : 1, &p, &f, msg, size) != NH_OK) return NH_ERR_ARG;
  p.stop_on_detach = 1;
  nh_model *m = disk ? nh_disk_create(&p, msg, size) : nh_ball_create(&p, msg, size);
  if (!m) return nh_ball_file_destroy(f), NH_ERR_ARG;
  ball_run r;
  nh_sim *sim;
  int st = ball_simulate(m, &r, &sim, msg, size);
  if (!sim || st < 0 || r.failed) {
    if (sim) snprintf(msg, size, "%s", nh_sim_message(sim));
    nh_sim_destroy(sim), ball_run_free(&r), nh_model_destroy(m), nh_ball_file_destroy(f);
    return NH_ERR_EVENT;
  }
  const long n = r.n;
  const int nm = p.n;
  double *buf = malloc(sizeof(double) * (size_t)n * (size_t)(4 * (nm + 1) + 16));
  if (!buf) {
    nh_sim_destroy(sim), ball_run_free(&r), nh_model_destroy(m), nh_ball_file_destroy(f);
    return NH_ERR_NOMEM;
  }
  // columns: body and space paths of masses and CM (x, second axis), series against t
  double *bx = buf, *by = bx + n * (nm + 1), *sx = by + n * (nm + 1), *sy = sx + n * (nm + 1);
  double *c1 = sy + n * (nm + 1), *c2 = c1 + n, *c3 = c2 + n, *c4 = c3 + n, *c5 = c4 + n, *c6 = c5 + n;
  double *fx = c6 + n, *fy = fx + 3 * n; /* friction arrows: 3 points per arrow */
  const int iy = disk ? 2 : 1; /* second axis: E3 for the disk (planar), E2 for the ball */
  for (long k = 0; k < n; k++) {
    const nh_ball_eval *e = &r.ev[k];
    const double *L = e->Lam;
    for (int i = 0; i <= nm; i++) {
      const double *c = i < nm ? e->chi[i] : e->cm_body;
      bx[i * n + k] = c[0], by[i * n + k] = c[iy];
      sx[i * n + k] = L[0] * c[0] + L[1] * c[1] + L[2] * c[2];
      sy[i * n + k] = L[3 * iy] * c[0] + L[3 * iy + 1] * c[1] + L[3 * iy + 2] * c[2];
    }
    c1[k] = e->N, c2[k] = disk ? e->fvec[0] : e->fs, c3[k] = e->N > 0 ? e->ratio : NAN;
    c4[k] = e->Om[0], c5[k] = disk ? -e->Om[1] : e->Om[1], c6[k] = e->Om[2];
    fx[3 * k] = e->z_cp[0], fy[3 * k] = e->z_cp[1];
    const int arrow = k % (n / 40 + 1) == 0;
    fx[3 * k + 1] = arrow ? e->z_cp[0] + e->fvec[0] : NAN, fy[3 * k + 1] = arrow ? e->z_cp[1] + e->fvec[1] : NAN;
    fx[3 * k + 2] = NAN, fy[3 * k + 2] = NAN;
  }
  double *zgc = fx; /* reuse: disk GC/CP e1 coordinate against t */
  static const char *mass_names[] = {"m#d1#u", "m#d2#u", "m#d3#u", "m#d4#u", "m#d5#u", "m#d6#u", "m#d7#u", "m#d8#u"};
  nh_plot_curve pb[NH_BALL_MAX_MASSES + 1], ps[NH_BALL_MAX_MASSES + 1], cs[6];
  for (int i = 0; i <= nm; i++) {
    pb[i] = (nh_plot_curve){n, bx + i * n, by + i * n, i < nm ? (i < 8 ? mass_names[i] : NULL) : "total CM", 0};
    ps[i] = (nh_plot_curve){n, sx + i * n, sy + i * n, i < nm ? (i < 8 ? mass_names[i] : NULL) : "total CM", 0};
  }
  const char *ax2 = disk ? "E#d3#u" : "E#d2#u", *ax2s = disk ? "e#d3#u" : "e#d2#u";
  nh_plot_panel pn[4];
  char title[256];
  double tend = nh_sim_time(sim);
  if (fig == 3 || fig == 6) {
    pn[0] = (nh_plot_panel){"masses and CM, body frame at the GC", "E#d1#u", ax2, nm + 1, pb, 1, NAN};
    pn[1] = (nh_plot_panel){"masses and CM, spatial frame at the GC", "e#d1#u", ax2s, nm + 1, ps, 1, NAN};
    if (disk) {
      double *xcp = fy; /* e1 coordinate of the GC and CP */
      for (long k = 0; k < n; k++) zgc[k] = r.t[k], xcp[k] = r.ev[k].z_cp[0];
      cs[0] = (nh_plot_curve){n, r.t, c5, NULL, 0};
      cs[1] = (nh_plot_curve){n, zgc, xcp, NULL, 0};
      pn[2] = (nh_plot_panel){"disk angular velocity", "t", "#gf'", 1, &cs[0], 0, 0.0};
      pn[3] = (nh_plot_panel){"GC and CP, e#d1#u coordinate", "t", "z#d1#u", 1, &cs[1], 0, 0.0};
    } else {
      double *px = c1, *py = c2; /* path of the GC/CP */
      for (long k = 0; k < n; k++) px[k] = r.ev[k].z_cp[0], py[k] = r.ev[k].z_cp[1];
      cs[0] = (nh_plot_curve){n, r.t, c4, "#gW#d1#u", 0};
      cs[1] = (nh_plot_curve){n, r.t, c5, "#gW#d2#u", 0};
      cs[2] = (nh_plot_curve){n, r.t, c6, "#gW#d3#u", 0};
      cs[3] = (nh_plot_curve){n, px, py, NULL, 0};
      pn[2] = (nh_plot_panel){"body angular velocity", "t", "#gW", 3, cs, 0, 0.0};
      pn[3] = (nh_plot_panel){"GC and CP in the e#d1#u-e#d2#u plane", "e#d1#u", "e#d2#u", 1, &cs[3], 1, NAN};
    }
    snprintf(title, sizeof title, "%s, t in [0, %g]", disk ? "rolling disk (Fig. 5.3)" : "rolling ball (Fig. 6.2)", tend);
    st = nh_plot_panels(path, 2, 2, 4, pn, title, msg, size);
  } else {
    char cap[128];
    snprintf(cap, sizeof cap, "f#ds#u/N, max %.4f at t = %.3f", r.st.min_mu, r.st.t_min_mu);
    cs[0] = (nh_plot_curve){n, r.t, c1, NULL, 0};
    cs[1] = (nh_plot_curve){n, r.t, c2, NULL, 0};
    cs[2] = (nh_plot_curve){n, r.t, c3, NULL, 0};
    cs[3] = (nh_plot_curve){n, r.t, c4, "#gW#d1#u", 0};
    cs[4] = (nh_plot_curve){n, r.t, c5, "#gW#d2#u", 0};
    cs[5] = (nh_plot_curve){n, r.t, c6, "#gW#d3#u", 0};
    nh_plot_curve fr[2] = {{n, NULL, NULL, "GC/CP path", 0}, {3 * n, fx, fy, "friction vectors", 0}};
    double *px = malloc(sizeof(double) * 2 * (size_t)n);
    if (!px) st = NH_ERR_NOMEM;
    else {
      for (long k = 0; k < n; k++) px[k] = r.ev[k].z_cp[0], px[n + k] = r.ev[k].z_cp[1];
      fr[0].x = px, fr[0].y = px + n;
      pn[0] = (nh_plot_panel){"normal force", "t", "N", 1, &cs[0], 0, 0.0};
      pn[1] = (nh_plot_panel){disk ? "e#d1#u-component of the static friction" : "static friction magnitude", "t",
                              disk ? "f#d1#u" : "f#ds#u", 1, &cs[1], 0, disk ? 0.0 : NAN};
      pn[2] = (nh_plot_panel){cap, "t", "f#ds#u/N", 1, &cs[2], 0, r.st.detached ? NAN : r.st.min_mu};
      if (detach) pn[2] = (nh_plot_panel){"body angular velocity", "t", "#gW", 3, &cs[3], 0, 0.0};
      pn[3] = (nh_plot_panel){"static friction along the GC/CP path", "e#d1#u", "e#d2#u", 2, fr, 1, NAN};
      if (detach) snprintf(title, sizeof title, "detachment (Fig. 6.4): N = 0 at t = %.7f (paper: 3.7358)", tend);
      else snprintf(title, sizeof title, "%s: minimum static friction coefficient %.7f", disk ? "rolling disk (Fig. 5.4)" : "rolling ball (Fig. 6.3)", r.st.min_mu);
      st = nh_plot_panels(path, disk ? 1 : 2, disk ? 3 : 2, disk ? 3 : 4, pn, title, msg, size);
      free(px);
    }
  }
  fprintf(out, "%s: t in [0, %.7f], min N %.7f at t = %.4f, min mu %.7f at t = %.4f%s -> %s\n", fig_names[fig - 1], tend,
         r.st.min_N, r.st.t_min_N, r.st.min_mu, r.st.t_min_mu, nh_sim_event_count(sim) ? " (stopped at N = 0)" : "", path);
  free(buf);
  nh_sim_destroy(sim), ball_run_free(&r), nh_model_destroy(m), nh_ball_file_destroy(f);
  return st;
}

/* Fig. 5.1: the input profile */
static int fig_profile(const char *path, char *msg, size_t size) {
  double t[601], u[601];
  for (int k = 0; k <= 600; k++) t[k] = 0.3 * k / 600, u[k] = fabs(nh_ball_profile(t[k]));
  nh_plot_curve c = {601, t, u, NULL, 0};
  nh_plot_panel pn = {"|u#di#u(t)| = p(t)", "t", "|u#di#u|", 1, &c, 0, 0.0};
  return nh_plot_panels(path, 1, 1, 1, &pn, "the mass accelerations (Fig. 5.1)", msg, size);
}

int papers_ball(const char *name, const char *path, const papers_opts *o, char *msg,
                size_t msg_size) {
  int fig = 0;
  for (int i = 0; fig_names[i]; i++)
    if (!strcmp(name, fig_names[i])) fig = i + 1;
  if (!fig) {
    snprintf(msg, msg_size, "unknown figure '%s'", name);
    return NH_ERR_ARG;
  }
  char m[1024];
  int st = fig == 1 ? fig_profile(path, m, sizeof m)
         : fig == 2 || fig == 5 ? fig_body(path, fig == 5, m, sizeof m)
                                : fig_run(path, fig, o->out, m, sizeof m);
  if (st == NH_OK && (fig == 1 || fig == 2 || fig == 5)) fprintf(o->out, "%s -> %s\n", name, path);
  if (st != NH_OK) {
    snprintf(msg, msg_size, "%s: %s", name, m);
    return st == NH_ERR_ARG ? NH_ERR_CALLBACK : st;
  }
  return NH_OK;
}
