/* dg.c - the figures of Celledoni, Farre Puiggali, Hoiseth, Martin de Diego,
 * "Energy-Preserving Integrators Applied to Nonholonomic Systems" (spec 002 sec. 5):
 *
 *   dg-fig2  the quartic system (n = 3, H = 3.06): order plot at t = 10, constraint residual
 *            and relative energy error of one trajectory, and var(H(t) - H(0)) / h^4 over an
 *            ensemble against the line 1e-4 t; SI-DLA, I-DLA, SPARK, AVF, GONZALEZ
 *   dg-fig3  the Chaplygin sleigh with method (23) (= gonzalez on sleigh-dg): x1-x2 paths and
 *            rho1-rho2 trajectories from rho1 = -0.001 and +0.001
 *   dg-fig4  the gearbox, rotating pendulum: relative energy error and |p1 + sin(q3) p2| of
 *            GONZALEZ-R, GONZALEZ-F and SI-DLA over t in [0, 50000], h = 0.1
 *
 * Choices where the paper is silent (spec 002 C8-C10): random initial states drawn as in C8
 * (q ~ N(0, 0.7^2), rejected unless V(q) < H; rho ~ N(0, 1) scaled to H), xorshift64* with
 * the seed given; order plot from h = 0.2 down to 0.0125 against DOPRI5 at tolerance 1e-13;
 * the trajectory and ensemble at h = 0.1 to t = 1000 (--t-end 5000 for the length of C9);
 * constraint residuals: for the DLA methods the discrete A(q_{k+1/2}) (q_{k+1} - q_k)/h, for
 * the others the continuous one at the steps. Fig. 4 shows the maximum over windows of 50 time
 * units. Long runs draw a progress bar on opts->progress when it is given. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papers.h"

/* ---- progress bar and normal random numbers --------------------------------------------------- */

typedef struct progress {
  FILE *on; /* Nullable: no bar */
  double done, total; /* work units */
  int last;
} progress;

static void progress_init(progress *p, FILE *on, double total, const char *name) {
  p->on = on;
  p->done = 0.0, p->total = total, p->last = -1;
  if (p->on) fprintf(p->on, "%s\n", name);
}
static void progress_add(progress *p, double units) {
  p->done += units;
  if (!p->on) return;
  int pct = (int)(100.0 * p->done / p->total);
  if (pct > 100) pct = 100;
  if (pct == p->last) return;
  p->last = pct;
  char bar[41];
  for (int i = 0; i < 40; i++) bar[i] = i < pct * 40 / 100 ? '#' : '.';
  bar[40] = 0;
  fprintf(p->on, "\r  [%s] %3d%%", bar, pct);
  if (pct == 100) fputc('\n', p->on);
  fflush(p->on);
}
static void progress_end(progress *p) {
  if (p->on && p->last < 100) fputc('\n', p->on);
}

static double nrand(unsigned long long *s) {
  double u = papers_urand(s), v = papers_urand(s);
  if (u < 1e-300) u = 1e-300;
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* a random quartic state (spec 002 C8): mechanical (q, v) (14) and reduced (q, rho) (13) */
static void quartic_random(unsigned long long *seed, double H, double *xm, double *xr) {
  double q[7], rho[6];
  do {
    for (int i = 0; i < 7; i++) q[i] = 0.7 * nrand(seed);
    for (int i = 0; i < 6; i++) rho[i] = nrand(seed);
  } while (nh_quartic_velocity(q, rho, H, xm + 7) != NH_OK);
  for (int i = 0; i < 7; i++) xm[i] = q[i];
  nh_quartic_reduced_state(q, rho, H, xr);
}

/* log10 |v| (NaN where v = 0: left out of the plot) for the logarithmic axes; NULL when out
 * of memory. The caller frees. */
static double *log10_copy(long n, const double *v) {
  double *w = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  for (long k = 0; w && k < n; k++) w[k] = v[k] != 0.0 ? log10(fabs(v[k])) : NAN;
  return w;
}

/* ---- recording a run ------------------------------------------------------------------ */

typedef struct series_buf {
  long n, cap;
  double *x, *y;
} series_buf;

static int sb_push(series_buf *b, double x, double y) {
  if (b->n == b->cap) {
    long cap = b->cap ? 2 * b->cap : 1024;
    double *nx = realloc(b->x, sizeof(double) * (size_t)cap), *ny;
    if (!nx) return 0;
    b->x = nx;
    if (!(ny = realloc(b->y, sizeof(double) * (size_t)cap))) return 0;
    b->y = ny;
    b->cap = cap;
  }
  b->x[b->n] = x, b->y[b->n] = y, b->n++;
  return 1;
}
static void sb_free(series_buf *b) {
  free(b->x), free(b->y);
  memset(b, 0, sizeof *b);
}

/* constraint residual of the quartic at a step: discrete for a two-step (DLA) method, else
 * x' + w.z' with the velocity of the state (mechanical v, or F = Pi grad H for the reduced) */
typedef struct rec {
  const nh_model *m;
  int dla;
  double h, E0, window, t_next;
  double qprev[16], wmaxE, wmaxC;
  int have_prev;
  series_buf E, C;
  progress *prog;
  double t_total;
  int gearbox;
} rec;

static double quartic_residual(const rec *r, const double *x, const double *v) {
  const nh_model *m = r->m;
  if (r->dla) {
    double qb[7], dq[7];
    for (int i = 0; i < 7; i++) qb[i] = 0.5 * (x[i] + r->qprev[i]), dq[i] = x[i] - r->qprev[i];
    return fabs(dq[0] + qb[1] * dq[4] + qb[2] * dq[5] + qb[3] * dq[6]) / r->h;
  }
  if (v) return fabs(v[0] + x[1] * v[4] + x[2] * v[5] + x[3] * v[6]);
  // reduced state: qdot = the first 7 rows of Pi grad H
  double g[13], P[169], F[7];
  if (m->hamiltonian(x, NULL, g, m->user) || m->poisson(x, P, m->user)) return NAN;
  for (int i = 0; i < 7; i++) {
    F[i] = 0.0;
    for (int j = 0; j < 13; j++) F[i] += P[i * 13 + j] * g[j];
  }
  return fabs(F[0] + x[1] * F[4] + x[2] * F[5] + x[3] * F[6]);
}

static double gearbox_residual(const rec *r, const double *q, const double *v) {
  if (r->dla) {
    double q3 = 0.5 * (q[2] + r->qprev[2]);
    return fabs(q[0] - r->qprev[0] + sin(q3) * (q[1] - r->qprev[1])) / r->h;
  }
  return fabs(v[0] + sin(q[2]) * v[1]);
}

static int rec_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q,
                        const double *v, void *user) {
  rec *r = user;
  const nh_model *m = nh_sim_model(sim);
  double E;
  if (kind != NH_SAMPLE_START && kind != NH_SAMPLE_STEP) return 0;
  int nq = m->form == NH_FORM_ODE ? m->nx : m->nq;
  if (kind == NH_SAMPLE_START) {
    memcpy(r->qprev, q, sizeof(double) * (size_t)nq);
    r->have_prev = 1;
    return 0;
  }
  if (nh_model_energy_x(m, t, nh_sim_x(sim), &E) != NH_OK) return 1;
  double eE = fabs(E - r->E0) / fabs(r->E0);
  double eC = r->gearbox ? gearbox_residual(r, q, v) : quartic_residual(r, q, v);
  memcpy(r->qprev, q, sizeof(double) * (size_t)nq);
  if (r->window > 0.0) {
    // the maximum over each window
    r->wmaxE = fmax(r->wmaxE, eE), r->wmaxC = fmax(r->wmaxC, eC);
    if (t >= r->t_next - 1e-9) {
      if (!sb_push(&r->E, t, r->wmaxE) || !sb_push(&r->C, t, r->wmaxC)) return 1;
      r->wmaxE = r->wmaxC = 0.0;
      r->t_next += r->window;
      if (r->prog) progress_add(r->prog, r->window);
    }
    return 0;
  }
  if (!sb_push(&r->E, t, eE) || !sb_push(&r->C, t, eC)) return 1;
  return 0;
}

/* run model m with method from x0 at step h to t_end, recording into r (window 0: every step) */
static int record_run(const nh_model *m, const char *method, const double *x0, double h, double t_end,
                      double window, int gearbox, progress *prog, rec *r, char *msg, size_t msg_size) {
  memset(r, 0, sizeof *r);
  r->m = m, r->h = h, r->window = window, r->t_next = window, r->gearbox = gearbox, r->prog = prog;
  r->dla = strstr(method, "dla") != NULL;
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  nh_sim *s = nh_sim_create(m, &d, msg, msg_size);
  if (!s) return NH_ERR_ARG;
  int rc = x0 ? nh_sim_set_state_x(s, 0.0, x0) : 0;
  r->E0 = nh_sim_get_stats(s)->energy_initial;
  if (rc >= 0) rc = nh_sim_run(s, t_end, 0, rec_observer, r);
  if (rc < 0 || rc == NH_STOPPED)
    snprintf(msg, msg_size, "%s: %s", method, rc == NH_STOPPED ? "out of memory" : nh_sim_message(s));
  nh_sim_destroy(s);
  return rc == NH_STOPPED ? NH_ERR_NOMEM : rc < 0 ? (rc == NH_ERR_ARG ? NH_ERR_CALLBACK : rc) : NH_OK;
}

/* final state of a plain run */
static int final_state(const nh_model *m, const char *method, const double *x0, double h, double t_end,
                       double *x) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  d.rtol = d.atol = 1e-13;
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  if (!s) return -1;
  int rc = nh_sim_set_state_x(s, 0.0, x0);
  if (rc >= 0) rc = nh_sim_run(s, t_end, 0, NULL, NULL);
  memcpy(x, nh_sim_x(s), sizeof(double) * (size_t)m->nx);
  nh_sim_destroy(s);
  return rc;
}

/* ---- dg-fig2 --------------------------------------------------------------------------- */

static int fig2(const papers_opts *o, const char *path, char *msg, size_t msg_size) {
  const double H = 3.06, h = o->dt > 0.0 ? o->dt : 0.1, T = o->t_end > 0.0 ? o->t_end : 1000.0;
  const long members = o->members > 0 ? o->members : 200;
  enum { NM = 5, NH = 5, NV = 40, NVM = 4 };
  const char *meth[NM] = {"si-dla", "i-dla", "spark", "avf", "gonzalez"};
  const char *label[NM] = {"SI-DLA", "I-DLA", "SPARK", "AVF", "GONZALEZ"};
  nh_model *mq = nh_quartic_create(NULL, 0), *ma = nh_quartic_ap_create(NULL, 0);
  if (!mq || !ma) {
    nh_model_destroy(mq), nh_model_destroy(ma);
    snprintf(msg, msg_size, "dg-fig2: cannot build the quartic system");
    return NH_ERR_CALLBACK;
  }
  unsigned long long seed = o->seed;
  double xm[14], xr[13], ref[14], x[14];
  quartic_random(&seed, H, xm, xr);
  int rc = NH_OK;
  progress prog;
  progress_init(&prog, o->progress, 1.0 * NM * NH + 2.0 * NM + (double)NVM * (double)members, "dg-fig2");
  fprintf(o->out, "dg-fig2: quartic system, H = %.2f, seed %llu\n", H, o->seed);

  // (a) order plot at t = 10
  double hs[NH], err[NM][NH];
  if (final_state(mq, "dopri5", xm, 1e-3, 10.0, ref) < 0) {
    snprintf(msg, msg_size, "dg-fig2: the reference run failed");
    rc = NH_ERR_CALLBACK;
  }
  for (int k = 0; k < NM && rc == NH_OK; k++) {
    const nh_model *m = k < 3 ? mq : ma;
    for (int j = 0; j < NH; j++) {
      hs[j] = 0.2 / (double)(1 << j);
      err[k][j] = NAN;
      if (final_state(m, meth[k], k < 3 ? xm : xr, hs[j], 10.0, x) >= 0) {
        double e = 0.0;
        for (int i = 0; i < 7; i++) e += (x[i] - ref[i]) * (x[i] - ref[i]);
        err[k][j] = sqrt(e);
      }
      progress_add(&prog, 1.0);
    }
    fprintf(o->out, "  order %-9s errors at t = 10: %.3e ... %.3e, observed order %.2f\n", label[k], err[k][0],
           err[k][NH - 1], log2(err[k][NH - 2] / err[k][NH - 1]));
  }
  double ref2[NH];
  for (int j = 0; j < NH; j++) ref2[j] = err[4][0] * (hs[j] / hs[0]) * (hs[j] / hs[0]);

  // (b), (c) one trajectory
  rec rr[NM];
  memset(rr, 0, sizeof rr);
  for (int k = 0; k < NM && rc == NH_OK; k++) {
    rc = record_run(k < 3 ? mq : ma, meth[k], k < 3 ? xm : xr, h, T, 0.0, 0, NULL, &rr[k], msg, msg_size);
    progress_add(&prog, 2.0);
  }

  // (d) variance of H(t) - H(0) over the ensemble, at NV times
  double tv[NV], var[NVM][NV];
  const int vm[NVM] = {0, 1, 2, 4};
  for (int v = 0; v < NVM && rc == NH_OK; v++) {
    double s1[NV] = {0}, s2[NV] = {0};
    const nh_model *m = vm[v] < 3 ? mq : ma;
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(meth[vm[v]]);
    d.h = h;
    nh_sim *s = nh_sim_create(m, &d, NULL, 0);
    unsigned long long es = o->seed + 1;
    for (long e = 0; e < members && s && rc == NH_OK; e++) {
      quartic_random(&es, H, xm, xr);
      if (nh_sim_set_state_x(s, 0.0, vm[v] < 3 ? xm : xr) < 0) {
        snprintf(msg, msg_size, "dg-fig2: %s: %s", meth[vm[v]], nh_sim_message(s));
        rc = NH_ERR_CALLBACK;
      }
      double E0 = nh_sim_get_stats(s)->energy_initial;
      for (int j = 0; j < NV && rc == NH_OK; j++) {
        tv[j] = T * (j + 1) / NV;
        if (nh_sim_run(s, tv[j], 0, NULL, NULL) < 0) {
          snprintf(msg, msg_size, "dg-fig2: %s: %s", meth[vm[v]], nh_sim_message(s));
          rc = NH_ERR_CALLBACK;
        }
        double dE = nh_sim_get_stats(s)->energy - E0;
        s1[j] += dE, s2[j] += dE * dE;
      }
      progress_add(&prog, 1.0);
    }
    if (!s) {
      snprintf(msg, msg_size, "dg-fig2: %s: cannot set up the run", meth[vm[v]]);
      rc = NH_ERR_CALLBACK;
    }
    nh_sim_destroy(s);
    double st = 0, sv = 0, stt = 0, stv = 0;
    for (int j = 0; j < NV; j++) {
      double mean = s1[j] / members;
      var[v][j] = (s2[j] - members * mean * mean) / (double)(members > 1 ? members - 1 : 1) / (h * h * h * h);
      st += tv[j], sv += var[v][j], stt += tv[j] * tv[j], stv += tv[j] * var[v][j];
    }
    double slope = (NV * stv - st * sv) / (NV * stt - st * st);
    if (rc == NH_OK)
      fprintf(o->out, "  variance %-9s var(H - H0)/h^4 = %.3e t + %.3e (%ld states, h = %g)\n", label[vm[v]], slope,
             (sv - slope * st) / NV, members, h);
  }
  progress_end(&prog);
  double line[NV];
  for (int j = 0; j < NV; j++) line[j] = 1e-4 * tv[j];

  if (rc == NH_OK) {
    // logarithmic axes as log10 of the values
    nh_plot_curve so[NM + 1], sc[NM], se[NM], sv[NM + 1];
    double *lg[3 * NM + 3] = {0};
    int nl = 0;
    double *lh = lg[nl++] = log10_copy(NH, hs), *lr = lg[nl++] = log10_copy(NH, ref2);
    for (int k = 0; k < NM; k++) {
      double *le = lg[nl++] = log10_copy(NH, err[k]);
      double *lc = lg[nl++] = log10_copy(rr[k].C.n, rr[k].C.y);
      double *lE = lg[nl++] = log10_copy(rr[k].E.n, rr[k].E.y);
      so[k] = (nh_plot_curve){NH, lh, le, label[k], NH_PLOT_MARKER(k + 1)};
      sc[k] = (nh_plot_curve){rr[k].C.n, rr[k].C.x, lc, label[k], 0};
      se[k] = (nh_plot_curve){rr[k].E.n, rr[k].E.x, lE, label[k], 0};
      double mx = 0.0, me = 0.0;
      for (long i = 0; i < rr[k].C.n; i++) mx = fmax(mx, rr[k].C.y[i]), me = fmax(me, rr[k].E.y[i]);
      fprintf(o->out, "  trajectory %-9s max constraint residual %.2e, max relative energy error %.2e (h = %g, t <= %g)\n",
             label[k], mx, me, h, T);
    }
    so[NM] = (nh_plot_curve){NH, lh, lr, "C h#u2#d (GONZALEZ at h = 0.2)", NH_PLOT_DASHED | NH_PLOT_WIDTH(24)};
    // the variance panel: a curve per method in the order of the others (no AVF: an empty one)
    for (int k = 0; k < NM; k++) sv[k] = (nh_plot_curve){0, tv, line, NULL, 0};
    for (int v = 0; v < NVM; v++) sv[vm[v]] = (nh_plot_curve){NV, tv, var[v], label[vm[v]], 0};
    sv[NM] = (nh_plot_curve){NV, tv, line, "10#u-4#d t", NH_PLOT_DASHED};
    nh_plot_panel p[4] = {
        {"order plot, t = 10", "log#d10#u h", "log#d10#u error", NM + 1, so, 0, NAN},
        {"constraint residual", "t", "log#d10#u |x' + w·z'|", NM, sc, 0, NAN},
        {"relative energy error", "t", "log#d10#u |(H - H#d0#u) / H#d0#u|", NM, se, 0, NAN},
        {"energy-error variance", "t", "var(H - H#d0#u) / h#u4#d", NM + 1, sv, 0, NAN},
    };
    int okm = 1;
    for (int i = 0; i < nl; i++) okm = okm && lg[i];
    if (!okm) {
      snprintf(msg, msg_size, "dg-fig2: out of memory");
      rc = NH_ERR_NOMEM;
    } else if (nh_plot_panels(path, 2, 2, 4, p, "Celledoni et al. Fig. 2: the quartic system", msg, msg_size) != NH_OK) {
      rc = NH_ERR_IO;
    } else {
      fprintf(o->out, "  -> %s\n", path);
    }
    for (int i = 0; i < nl; i++) free(lg[i]);
  }
  for (int k = 0; k < NM; k++) sb_free(&rr[k].E), sb_free(&rr[k].C);
  nh_model_destroy(mq);
  nh_model_destroy(ma);
  return rc;
}

/* ---- dg-fig3 --------------------------------------------------------------------------- */

typedef struct path_rec {
  series_buf xy, rho;
} path_rec;

static int path_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q,
                         const double *v, void *user) {
  (void)sim, (void)t, (void)v;
  path_rec *p = user;
  if (kind != NH_SAMPLE_START && kind != NH_SAMPLE_STEP) return 0;
  return !(sb_push(&p->xy, q[0], q[1]) && sb_push(&p->rho, q[3], q[4]));
}

static int fig3(const papers_opts *o, const char *path, char *msg, size_t msg_size) {
  const double h = o->dt > 0.0 ? o->dt : 0.5, T = o->t_end > 0.0 ? o->t_end : 300.0;
  path_rec pr[2];
  memset(pr, 0, sizeof pr);
  int rc = NH_OK;
  fprintf(o->out, "dg-fig3: Chaplygin sleigh, method (23) = gonzalez on sleigh-dg, h = %g, t <= %g\n", h, T);
  for (int k = 0; k < 2 && rc == NH_OK; k++) {
    nh_sleigh_dg_params p = nh_sleigh_dg_params_default();
    p.rho1 = k == 0 ? -0.001 : 0.001;
    nh_model *m = nh_sleigh_dg_create(&p, NULL, 0);
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find("gonzalez");
    d.h = h;
    nh_sim *s = m ? nh_sim_create(m, &d, NULL, 0) : NULL;
    if (!s || nh_sim_run(s, T, 0, path_observer, &pr[k]) != NH_OK) {
      snprintf(msg, msg_size, "dg-fig3: %s", s ? nh_sim_message(s) : "cannot build the sleigh");
      rc = NH_ERR_CALLBACK;
    } else {
      const double *x = nh_sim_x(s);
      fprintf(o->out, "  rho1(0) = %+.3f: at t = %g rho = (%.3e, %.9f), heading change %.6f, max |dE/E| %.2e\n", p.rho1,
             T, x[3], x[4], x[2] - p.theta, nh_sim_get_stats(s)->max_energy_rel_error);
    }
    nh_sim_destroy(s);
    nh_model_destroy(m);
  }
  if (rc == NH_OK) {
    nh_plot_curve a[2] = {{pr[0].xy.n, pr[0].xy.x, pr[0].xy.y, "#gr#d1#u(0) = -0.001", 0},
                          {pr[1].xy.n, pr[1].xy.x, pr[1].xy.y, "#gr#d1#u(0) = +0.001", 0}};
    nh_plot_curve b[2] = {{pr[0].rho.n, pr[0].rho.x, pr[0].rho.y, "#gr#d1#u(0) = -0.001", 0},
                          {pr[1].rho.n, pr[1].rho.x, pr[1].rho.y, "#gr#d1#u(0) = +0.001", 0}};
    nh_plot_panel p[2] = {{"x#d1#u-x#d2#u path", "x#d1#u", "x#d2#u", 2, a, 1, NAN},
                          {"#gr#d1#u-#gr#d2#u", "#gr#d1#u", "#gr#d2#u", 2, b, 1, NAN}};
    if (nh_plot_panels(path, 1, 2, 2, p, "Celledoni et al. Fig. 3: Chaplygin sleigh, J = 8, a = m = 1, h = 0.5", msg,
                       msg_size) != NH_OK) {
      rc = NH_ERR_IO;
    } else {
      fprintf(o->out, "  -> %s\n", path);
    }
  }
  for (int k = 0; k < 2; k++) sb_free(&pr[k].xy), sb_free(&pr[k].rho);
  return rc;
}

/* ---- dg-fig4 --------------------------------------------------------------------------- */

static int fig4(const papers_opts *o, const char *path, char *msg, size_t msg_size) {
  const double h = o->dt > 0.0 ? o->dt : 0.1, T = o->t_end > 0.0 ? o->t_end : 50000.0;
  const double window = T / 1000.0;
  const char *meth[3] = {"gonzalez-r", "gonzalez-f", "si-dla"};
  const char *label[3] = {"GONZALEZ-R", "GONZALEZ-F", "SI-DLA"};
  nh_model *m = nh_gearbox_create(1, NULL, 0);
  if (!m) {
    snprintf(msg, msg_size, "dg-fig4: cannot build the gearbox");
    return NH_ERR_CALLBACK;
  }
  rec rr[3];
  memset(rr, 0, sizeof rr);
  progress prog;
  progress_init(&prog, o->progress, 3.0 * T, "dg-fig4");
  fprintf(o->out, "dg-fig4: gearbox, rotating pendulum (pendulum energy %.4f > 1.0687), h = %g, t <= %g\n",
         nh_gearbox_pendulum_energy(m->q0, m->v0), h, T);
  int rc = NH_OK;
  for (int k = 0; k < 3 && rc == NH_OK; k++) {
    rc = record_run(m, meth[k], NULL, h, T, window, 1, &prog, &rr[k], msg, msg_size);
    double me = 0.0, mc = 0.0;
    for (long i = 0; i < rr[k].E.n; i++) me = fmax(me, rr[k].E.y[i]), mc = fmax(mc, rr[k].C.y[i]);
    if (rc == NH_OK)
      fprintf(o->out, "  %-11s max relative energy error %.2e (at the end %.2e), max constraint error %.2e\n", label[k], me,
             rr[k].E.n ? rr[k].E.y[rr[k].E.n - 1] : NAN, mc);
  }
  progress_end(&prog);
  if (rc == NH_OK) {
    nh_plot_curve se[3], sc[3];
    double *lg[6];
    int okm = 1;
    for (int k = 0; k < 3; k++) {
      lg[2 * k] = log10_copy(rr[k].E.n, rr[k].E.y);
      lg[2 * k + 1] = log10_copy(rr[k].C.n, rr[k].C.y);
      okm = okm && lg[2 * k] && lg[2 * k + 1];
      se[k] = (nh_plot_curve){rr[k].E.n, rr[k].E.x, lg[2 * k], label[k], 0};
      sc[k] = (nh_plot_curve){rr[k].C.n, rr[k].C.x, lg[2 * k + 1], label[k], 0};
    }
    nh_plot_panel p[2] = {{"relative energy error", "t", "log#d10#u |(H - H#d0#u) / H#d0#u|", 3, se, 0, NAN},
                          {"constraint error", "t", "log#d10#u |p#d1#u + sin(q#d3#u) p#d2#u|", 3, sc, 0, NAN}};
    char title[160];
    snprintf(title, sizeof title, "Celledoni et al. Fig. 4: gearbox, h = %g (max over windows of %g)", h, window);
    if (!okm) {
      snprintf(msg, msg_size, "dg-fig4: out of memory");
      rc = NH_ERR_NOMEM;
    } else if (nh_plot_panels(path, 1, 2, 2, p, title, msg, msg_size) != NH_OK) {
      rc = NH_ERR_IO;
    } else {
      fprintf(o->out, "  -> %s\n", path);
    }
    for (int k = 0; k < 6; k++) free(lg[k]);
  }
  for (int k = 0; k < 3; k++) sb_free(&rr[k].E), sb_free(&rr[k].C);
  nh_model_destroy(m);
  return rc;
}

int papers_dg(const char *name, const char *path, const papers_opts *o, char *msg,
              size_t msg_size) {
  if (!strcmp(name, "dg-fig2")) return fig2(o, path, msg, msg_size);
  if (!strcmp(name, "dg-fig3")) return fig3(o, path, msg, msg_size);
  if (!strcmp(name, "dg-fig4")) return fig4(o, path, msg, msg_size);
  snprintf(msg, msg_size, "unknown figure '%s'", name);
  return NH_ERR_ARG;
}
