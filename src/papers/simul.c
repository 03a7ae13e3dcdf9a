/* simul.c - the figures of Seghete & Murphey, "A propagative model of simultaneous impact"
 * (spec 003 secs. 4.1-4.2), every number computed by nh_simul_resolve:
 *
 *   cradle     Newton's cradle (balls touching on a line). (a) three equal balls hit by A at
 *              v0 = 1: the velocities after the impact against the restitution R in [0, 1];
 *              (b) the paper's Fig. 2b: the energy lost against A's initial velocity for
 *              R = 1, 0.7, 0, with alpha = R (ours) and the paper's literal
 *              alpha = sqrt(1 - R^2); (c) five equal balls; (d) masses (1, 2, 1) with
 *              v- = (1, 0, -1), both propagative outcomes. Beside every propagative outcome,
 *              as a comparison, the simultaneous Newton-restitution law of a Moreau-style
 *              (LCP / Gauss-Seidel) solver such as Siconos: impulses L >= 0 with
 *              0 <= s+ + e s- _|_ L >= 0 for every contact of the set (s = dg v), the LCP
 *              solved exactly by enumerating the active sets (below; not part of the
 *              library). It resolves the equal three-ball cradle to (-1/3, 2/3, 2/3), the
 *              propagative model to (0, 0, 1).
 *   billiards  the billiard break (Fig. 5): the indeterminacy xi = |v_ab - v_ba|_M / |v-|_M
 *              of the two reflection orders against the angle theta between the target balls
 *              seen from the cue ball, for equal balls (r = 1, m = 1), a light cue ball
 *              (m_c = 1/2, where xi = 0 at c = -1/2, theta = 138.59 deg), and the paper-like
 *              radii (r_a = r_b = 1, r_c = 2.8637 so that theta_min = 30 deg, masses r^3).
 *
 * Each writes its PNG (or SVG/PDF) and a CSV beside it (the path with .csv), and prints the
 * figures' numbers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papers.h"

#define SPI 3.14159265358979323846
/* most balls of a cradle here, and contacts of the comparison LCP (2^k active sets) */
#define CR_MAXN 8
/* the comparison LCP: a solution's residual tolerance, relative to the rates */
#define LCP_TOL 1e-12
/* two propagative outcomes are the same within this (max norm, velocity units) */
#define CR_SAME_TOL 1e-12
/* printed numbers below these are rounding noise, shown as 0: percentages, velocities */
#define PRINT_ZERO_PCT 5e-9
#define PRINT_ZERO_V 5e-16
/* points of the curves against R and against theta */
#define CR_NR 101
#define CR_NV 10
#define BL_PER_DEG 2 /* angles every 1/BL_PER_DEG degree */

/* ---- the comparison: simultaneous Newton restitution, the LCP by enumeration ------------- */

/* Solve A x = b (n <= CR_MAXN) by Gaussian elimination with partial pivoting; 0 on success. */
static int small_solve(int n, double *A, double *b) {
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int i = c + 1; i < n; i++)
      if (fabs(A[i * n + c]) > fabs(A[p * n + c])) p = i;
    if (!(fabs(A[p * n + c]) > 0.0)) return -1;
    if (p != c) {
      for (int j = 0; j < n; j++) {
        double t = A[c * n + j];
        A[c * n + j] = A[p * n + j], A[p * n + j] = t;
      }
      double t = b[c];
      b[c] = b[p], b[p] = t;
    }
    for (int i = c + 1; i < n; i++) {
      double f = A[i * n + c] / A[c * n + c];
      for (int j = c; j < n; j++) A[i * n + j] -= f * A[c * n + j];
      b[i] -= f * b[c];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int j = i + 1; j < n; j++) b[i] -= A[i * n + j] * b[j];
    b[i] /= A[i * n + i];
  }
  return 0;
}

/* Newton restitution e on k contacts at once, diagonal masses m (nq), gradients dg (k x nq):
 * L >= 0, w = s+ + e s- >= 0, L_i w_i = 0, s+ = s- + G L with G = dg M^-1 dg^T (SPD, so the
 * LCP has one solution). v_out (nq), L (k). Returns 0, or -1 when no active set fits. */
static int lcp_newton(int nq, int k, const double *m, const double *dg, const double *v,
                      double e, double *v_out, double *L) {
  double G[CR_MAXN * CR_MAXN], s[CR_MAXN], A[CR_MAXN * CR_MAXN], x[CR_MAXN], scale = 0.0;
  for (int i = 0; i < k; i++) {
    s[i] = 0.0;
    for (int a = 0; a < nq; a++) s[i] += dg[i * nq + a] * v[a];
    scale = fmax(scale, fabs(s[i]));
    for (int j = 0; j < k; j++) {
      G[i * k + j] = 0.0;
      for (int a = 0; a < nq; a++) G[i * k + j] += dg[i * nq + a] * dg[j * nq + a] / m[a];
    }
  }
  const double tol = LCP_TOL * (scale > 0.0 ? scale : 1.0);
  for (unsigned set = 0; set < (1u << k); set++) {
    int idx[CR_MAXN], na = 0;
    for (int i = 0; i < k; i++)
      if (set & (1u << i)) idx[na++] = i;
    /* active: (G L)_i = -(1 + e) s_i; the rest L_i = 0 */
    for (int a = 0; a < na; a++) {
      x[a] = -(1.0 + e) * s[idx[a]];
      for (int b = 0; b < na; b++) A[a * na + b] = G[idx[a] * k + idx[b]];
    }
    if (na > 0 && small_solve(na, A, x)) continue;
    for (int i = 0; i < k; i++) L[i] = 0.0;
    for (int a = 0; a < na; a++) L[idx[a]] = x[a];
    int ok = 1;
    for (int i = 0; i < k && ok; i++) {
      double w = (1.0 + e) * s[i];
      for (int j = 0; j < k; j++) w += G[i * k + j] * L[j];
      ok = L[i] >= -tol && w >= -tol;
    }
    if (!ok) continue;
    for (int a = 0; a < nq; a++) {
      v_out[a] = v[a];
      for (int i = 0; i < k; i++) v_out[a] += dg[i * nq + a] * L[i] / m[a];
    }
    return 0;
  }
  return -1;
}

/* ---- the cradle ------------------------------------------------------------------------- */

typedef struct cradle {
  int n;
  double m[CR_MAXN], M[CR_MAXN * CR_MAXN], dg[CR_MAXN * CR_MAXN];
  nh_simul_problem pb;
  void *work;
} cradle;

static int cradle_init(cradle *c, int n, const double *m) {
  memset(c, 0, sizeof *c);
  c->n = n;
  for (int i = 0; i < n; i++) c->m[i] = m[i], c->M[i * n + i] = m[i];
  for (int i = 0; i + 1 < n; i++) c->dg[i * n + i] = -1.0, c->dg[i * n + i + 1] = 1.0;
  c->pb = (nh_simul_problem){n, 0, n - 1, c->M, NULL, c->dg};
  nh_simul_opts o = nh_simul_opts_default();
  o.policy = NH_SIMUL_ENUMERATE;
  size_t ws = nh_simul_work_size(n, 0, n - 1, &o);
  c->work = ws ? malloc(ws) : NULL;
  return c->work ? 0 : -1;
}

static double kinetic(int n, const double *m, const double *v) {
  double e = 0.0;
  for (int i = 0; i < n; i++) e += 0.5 * m[i] * v[i] * v[i];
  return e;
}

/* the propagative outcome for restitution R (paper: the literal alpha = sqrt(1 - R^2));
 * policy NH_SIMUL_MOST_INFEASIBLE or LEAST */
static int propagative(cradle *c, const double *v, double R, int paper, nh_simul_policy pol,
                       double *vp, char *msg, size_t size) {
  nh_simul_opts o = nh_simul_opts_default();
  o.policy = pol;
  o.law = R == 1.0 && !paper ? NH_SIMUL_ELASTIC : R == 0.0 && !paper ? NH_SIMUL_PLASTIC
                                                                     : NH_SIMUL_INELASTIC;
  o.restitution = R;
  o.paper_alpha = paper;
  nh_simul_result r;
  char m[256];
  int st = nh_simul_resolve(&c->pb, v, &o, vp, &r, c->work, m, sizeof m);
  if (st != NH_OK && st != NH_NO_IMPACT) {
    snprintf(msg, size, "cradle: the propagative model failed (%s): %s", nh_status_name(st), m);
    return st;
  }
  return NH_OK;
}

static int newton(const cradle *c, const double *v, double e, double *vp, char *msg, size_t size) {
  double L[CR_MAXN];
  if (lcp_newton(c->n, c->n - 1, c->m, c->dg, v, e, vp, L) == 0) return NH_OK;
  snprintf(msg, size, "cradle: the Newton-restitution LCP has no solution (e = %g)", e);
  return NH_ERR_NO_CONVERGENCE;
}

/* "path.png" -> "path.csv" */
static void csv_path(const char *path, char *buf, size_t size) {
  snprintf(buf, size, "%s", path);
  char *dot = strrchr(buf, '.'), *slash = strrchr(buf, '/');
  if (dot && (!slash || dot > slash)) *dot = '\0';
  size_t n = strlen(buf);
  snprintf(buf + n, size - n, ".csv");
}

/* one CSV row per ball of an outcome */
static void csv_outcome(FILE *f, const char *cs, double R, const char *how, const cradle *c,
                        const double *v, const double *vp) {
  double e0 = kinetic(c->n, c->m, v), loss = 100.0 * (1.0 - kinetic(c->n, c->m, vp) / e0);
  for (int i = 0; i < c->n; i++)
    fprintf(f, "%s,%.17g,%s,%d,%.17g,%.17g,%.17g,%.17g\n", cs, R, how, i + 1, c->m[i], v[i], vp[i],
            loss);
}

/* a percentage for print: rounding noise shown as 0 */
static double pct(double x) { return fabs(x) < PRINT_ZERO_PCT ? 0.0 : x; }

static void print_v(FILE *out, int n, const double *v) {
  fprintf(out, "(");
  for (int i = 0; i < n; i++) fprintf(out, "%s%.6g", i ? ", " : "", fabs(v[i]) < PRINT_ZERO_V ? 0.0 : v[i]);
  fprintf(out, ")");
}

/* the printed lines and the CSV rows of one case at R = 1, 0.7, 0: the propagative
 * outcome (most-infeasible first; the reversed order's too when it differs) and the
 * Newton-restitution LCP's */
static int cradle_table(cradle *c, const char *cs, const double *v, FILE *out, FILE *csv,
                        char *msg, size_t size) {
  static const double Rs[3] = {1.0, 0.7, 0.0};
  double vp[CR_MAXN], vr[CR_MAXN], vq[CR_MAXN], e0 = kinetic(c->n, c->m, v);
  fprintf(out, "cradle %s, v- = ", cs);
  print_v(out, c->n, v);
  fprintf(out, ":\n");
  for (int j = 0; j < 3; j++) {
    int st;
    if ((st = propagative(c, v, Rs[j], 0, NH_SIMUL_MOST_INFEASIBLE, vp, msg, size)) ||
        (st = propagative(c, v, Rs[j], 0, NH_SIMUL_LEAST_INFEASIBLE, vr, msg, size)) ||
        (st = newton(c, v, Rs[j], vq, msg, size)))
      return st;
    double d = 0.0;
    for (int i = 0; i < c->n; i++) d = fmax(d, fabs(vp[i] - vr[i]));
    fprintf(out, "  R = %.1f  propagative ", Rs[j]);
    print_v(out, c->n, vp);
    csv_outcome(csv, cs, Rs[j], "propagative", c, v, vp);
    if (d > CR_SAME_TOL) { /* a second outcome: the reversed order */
      fprintf(out, " or ");
      print_v(out, c->n, vr);
      csv_outcome(csv, cs, Rs[j], "propagative-reversed", c, v, vr);
    }
    fprintf(out, " loss %.2f%%; Newton LCP ", pct(100.0 * (1.0 - kinetic(c->n, c->m, vp) / e0)));
    print_v(out, c->n, vq);
    fprintf(out, " loss %.2f%%\n", pct(100.0 * (1.0 - kinetic(c->n, c->m, vq) / e0)));
    csv_outcome(csv, cs, Rs[j], "newton-lcp", c, v, vq);
  }
  return NH_OK;
}

/* the data of the cradle figure */
typedef struct cradle_data {
  double R[CR_NR], vp[3][CR_NR], vq[3][CR_NR];     /* (a) */
  double v0[CR_NV], loss[3][3][CR_NV];             /* (b) [R][ours, paper, LCP] */
  double idx5[5], p5[2][5], q5[2][5];              /* (c) R = 1, 0.7 */
  double idx3[3], p121[2][3], q121[3];             /* (d) */
} cradle_data;

static int cradle_compute(cradle_data *D, char *msg, size_t size) {
  static const double m1[3] = {1, 1, 1}, m5[5] = {1, 1, 1, 1, 1}, m121[3] = {1, 2, 1};
  cradle c3, c5, c121;
  int st = NH_ERR_NOMEM;
  c3.work = c5.work = c121.work = NULL;
  if (cradle_init(&c3, 3, m1) || cradle_init(&c5, 5, m5) || cradle_init(&c121, 3, m121)) {
    snprintf(msg, size, "cradle: out of memory");
    goto done;
  }
  double v[5] = {1, 0, 0, 0, 0}, vp[5], vq[5];
  for (int j = 0; j < CR_NR; j++) { /* (a) */
    D->R[j] = (double)j / (CR_NR - 1);
    if ((st = propagative(&c3, v, D->R[j], 0, NH_SIMUL_MOST_INFEASIBLE, vp, msg, size)) ||
        (st = newton(&c3, v, D->R[j], vq, msg, size)))
      goto done;
    for (int i = 0; i < 3; i++) D->vp[i][j] = vp[i], D->vq[i][j] = vq[i];
  }
  static const double Rs[3] = {1.0, 0.7, 0.0};
  for (int j = 0; j < CR_NV; j++) { /* (b): A's speed from 0.5 to 5 */
    double w[3] = {0.5 + 4.5 * j / (CR_NV - 1), 0, 0}, e0 = kinetic(3, m1, w);
    D->v0[j] = w[0];
    for (int r = 0; r < 3; r++) {
      if ((st = propagative(&c3, w, Rs[r], 0, NH_SIMUL_MOST_INFEASIBLE, vp, msg, size))) goto done;
      D->loss[r][0][j] = 100.0 * (1.0 - kinetic(3, m1, vp) / e0);
      if ((st = propagative(&c3, w, Rs[r], 1, NH_SIMUL_MOST_INFEASIBLE, vp, msg, size))) goto done;
      D->loss[r][1][j] = 100.0 * (1.0 - kinetic(3, m1, vp) / e0);
      if ((st = newton(&c3, w, Rs[r], vq, msg, size))) goto done;
      D->loss[r][2][j] = 100.0 * (1.0 - kinetic(3, m1, vq) / e0);
    }
  }
  for (int r = 0; r < 2; r++) { /* (c) */
    if ((st = propagative(&c5, v, Rs[r], 0, NH_SIMUL_MOST_INFEASIBLE, D->p5[r], msg, size)) ||
        (st = newton(&c5, v, Rs[r], D->q5[r], msg, size)))
      goto done;
  }
  for (int i = 0; i < 5; i++) D->idx5[i] = i + 1;
  double w121[3] = {1, 0, -1}; /* (d) */
  if ((st = propagative(&c121, w121, 1.0, 0, NH_SIMUL_MOST_INFEASIBLE, D->p121[0], msg, size)) ||
      (st = propagative(&c121, w121, 1.0, 0, NH_SIMUL_LEAST_INFEASIBLE, D->p121[1], msg, size)) ||
      (st = newton(&c121, w121, 1.0, D->q121, msg, size)))
    goto done;
  for (int i = 0; i < 3; i++) D->idx3[i] = i + 1;
  st = NH_OK;
done:
  free(c3.work), free(c5.work), free(c121.work);
  return st;
}

static int cradle_plot(const cradle_data *D, const char *path, char *msg, size_t size) {
  static const char *const ball[3] = {"A", "B", "C"};
  static const char *const rname[3] = {"R = 1", "R = 0.7", "R = 0"};
  char la[6][64], lb[9][64], nb[2][96];
  nh_plot_curve ca[7], cb[11], cc[4], cd[3];
  for (int i = 0; i < 3; i++) {
    snprintf(la[i], sizeof la[i], "%s propagative", ball[i]);
    snprintf(la[3 + i], sizeof la[3 + i], "%s Newton LCP", ball[i]);
    ca[i] = (nh_plot_curve){CR_NR, D->R, D->vp[i], la[i],
                            NH_PLOT_LINE | NH_PLOT_MARKER(1 + 2 * i) | NH_PLOT_WIDTH(22)};
    ca[3 + i] = (nh_plot_curve){CR_NR, D->R, D->vq[i], la[3 + i],
                                NH_PLOT_DASHED | NH_PLOT_MARKER(2 + 2 * i)};
  }
  ca[6] = (nh_plot_curve){0, NULL, NULL, "propagative: A = B; LCP: B = C", 0};
  for (int r = 0; r < 3; r++) {
    snprintf(lb[3 * r], sizeof lb[0], "%s propagative, alpha = R", rname[r]);
    snprintf(lb[3 * r + 1], sizeof lb[0], "%s paper's alpha = sqrt(1-R#u2#d)", rname[r]);
    snprintf(lb[3 * r + 2], sizeof lb[0], "%s Newton LCP", rname[r]);
    cb[3 * r] = (nh_plot_curve){CR_NV, D->v0, D->loss[r][0], lb[3 * r],
                                NH_PLOT_LINE | NH_PLOT_MARKER(1) | NH_PLOT_WIDTH(22)};
    cb[3 * r + 1] = (nh_plot_curve){CR_NV, D->v0, D->loss[r][1], lb[3 * r + 1],
                                    NH_PLOT_DOTS | NH_PLOT_MARKER(3)};
    cb[3 * r + 2] = (nh_plot_curve){CR_NV, D->v0, D->loss[r][2], lb[3 * r + 2],
                                    NH_PLOT_DASHED | NH_PLOT_MARKER(5)};
  }
  snprintf(nb[0], sizeof nb[0], "propagative = LCP here; the paper's alpha differs: R = 1 %.4g%%,",
           pct(D->loss[0][1][0]));
  snprintf(nb[1], sizeof nb[1], "R = 0.7 %.4g%% (ours %.4g%%), R = 0 %.4g%% (ours %.4g%%)",
           pct(D->loss[1][1][0]), pct(D->loss[1][0][0]), pct(D->loss[2][1][0]), pct(D->loss[2][0][0]));
  cb[9] = (nh_plot_curve){0, NULL, NULL, nb[0], 0};
  cb[10] = (nh_plot_curve){0, NULL, NULL, nb[1], 0};
  cc[0] = (nh_plot_curve){5, D->idx5, D->p5[0], "R = 1 propagative", NH_PLOT_LINE | NH_PLOT_MARKER(1)};
  cc[1] = (nh_plot_curve){5, D->idx5, D->q5[0], "e = 1 Newton LCP", NH_PLOT_DASHED | NH_PLOT_MARKER(2)};
  cc[2] = (nh_plot_curve){5, D->idx5, D->p5[1], "R = 0.7 propagative", NH_PLOT_LINE | NH_PLOT_MARKER(3)};
  cc[3] = (nh_plot_curve){5, D->idx5, D->q5[1], "e = 0.7 Newton LCP", NH_PLOT_DASHED | NH_PLOT_MARKER(4)};
  cd[0] = (nh_plot_curve){3, D->idx3, D->p121[0], "propagative, most infeasible first",
                          NH_PLOT_LINE | NH_PLOT_MARKER(1)};
  cd[1] = (nh_plot_curve){3, D->idx3, D->p121[1], "propagative, least infeasible first",
                          NH_PLOT_LINE | NH_PLOT_MARKER(3)};
  cd[2] = (nh_plot_curve){3, D->idx3, D->q121, "Newton LCP", NH_PLOT_DASHED | NH_PLOT_MARKER(2)};
  nh_plot_panel p[4] = {
      {"(a) 3 equal balls, v#u-#d = (1, 0, 0): outcome against R", "restitution R (LCP: e = R)",
       "velocity after", 7, ca, 0, NAN},
      {"(b) Fig. 2b: energy lost, 3 equal balls", "initial velocity of A (m/s)",
       "energy lost (%)", 11, cb, 0, NAN},
      {"(c) 5 equal balls, v#u-#d = (1, 0, 0, 0, 0)", "ball", "velocity after", 4, cc, 0, NAN},
      {"(d) masses (1, 2, 1), v#u-#d = (1, 0, -1), elastic", "ball", "velocity after", 3, cd, 0,
       NAN},
  };
  int st = nh_plot_panels(path, 2, 2, 4, p,
                          "Newton's cradle, balls touching: the propagative model (Seghete & "
                          "Murphey) against simultaneous Newton restitution (an LCP, as Siconos)",
                          msg, size);
  return st == NH_ERR_ARG ? NH_ERR_IO : st;
}

static int fig_cradle(const char *path, const papers_opts *o, char *msg, size_t size) {
  cradle_data *D = calloc(1, sizeof *D);
  char cpath[1100];
  nh_outfile csv;
  int st;
  if (!D) {
    snprintf(msg, size, "cradle: out of memory");
    return NH_ERR_NOMEM;
  }
  csv_path(path, cpath, sizeof cpath);
  if ((st = cradle_compute(D, msg, size)) || (st = nh_outfile_open(&csv, cpath, msg, size))) {
    free(D);
    return st;
  }
  fprintf(csv.fp, "case,R,resolution,ball,mass,v_before,v_after,energy_lost_percent\n");
  static const struct {
    const char *name;
    int n;
    double m[CR_MAXN], v[CR_MAXN];
  } cases[] = {
      {"3 equal balls", 3, {1, 1, 1}, {1, 0, 0}},
      {"5 equal balls", 5, {1, 1, 1, 1, 1}, {1, 0, 0, 0, 0}},
      {"masses (1 2 1)", 3, {1, 2, 1}, {1, 0, -1}},
      {"masses (1 2 3 1.5)", 4, {1, 2, 3, 1.5}, {2, 1, 0, -1}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0] && st == NH_OK; i++) {
    cradle c;
    if (cradle_init(&c, cases[i].n, cases[i].m)) {
      snprintf(msg, size, "cradle: out of memory");
      st = NH_ERR_NOMEM;
      break;
    }
    st = cradle_table(&c, cases[i].name, cases[i].v, o->out, csv.fp, msg, size);
    free(c.work);
  }
  fprintf(o->out, "cradle Fig. 2b, energy lost for A's speed 0.5 to 5 (3 equal balls): "
                  "R = 1 %.4g%%, R = 0.7 %.4g%% (paper's alpha %.4g%%), R = 0 %.4g%% (paper's "
                  "alpha %.4g%%); Newton LCP %.4g%%, %.4g%%, %.4g%%\n",
          pct(D->loss[0][0][0]), pct(D->loss[1][0][0]), pct(D->loss[1][1][0]),
          pct(D->loss[2][0][0]), pct(D->loss[2][1][0]), pct(D->loss[0][2][0]),
          pct(D->loss[1][2][0]), pct(D->loss[2][2][0]));
  if (st == NH_OK && (st = cradle_plot(D, path, msg, size)) == NH_OK)
    st = nh_outfile_commit(&csv, msg, size);
  else
    nh_outfile_abort(&csv);
  if (st == NH_OK) fprintf(o->out, "cradle -> %s, %s\n", path, cpath);
  free(D);
  return st;
}

/* ---- the billiard break ----------------------------------------------------------------- */

/* one geometry: target radii 1, cue radius rc, masses ma (targets) and mc */
typedef struct billiard_set {
  const char *label;
  double rc, ma, mc, th_min_deg;
} billiard_set;

/* xi, the cosine and the longest sequence at angle th (rad) between the targets seen from
 * the cue ball, which moves along the bisector; q = (xa, ya, xb, yb, xc, yc) */
static int billiard_xi(const billiard_set *b, double th, void *work, double *xi, double *c,
                       int *len, char *msg, size_t size) {
  double M[36] = {0}, dg[12], v[6] = {0, 0, 0, 0, 1, 0}, vp[6], C[4];
  const double d = 1.0 + b->rc, xa = d * cos(th / 2), ya = d * sin(th / 2);
  const double m[6] = {b->ma, b->ma, b->ma, b->ma, b->mc, b->mc};
  const double na[6] = {xa, ya, 0, 0, -xa, -ya}, nb[6] = {0, 0, xa, -ya, -xa, ya};
  for (int i = 0; i < 6; i++) M[i * 6 + i] = m[i], dg[i] = na[i] / d, dg[6 + i] = nb[i] / d;
  nh_simul_problem pb = {6, 0, 2, M, NULL, dg};
  nh_simul_opts o = nh_simul_opts_default();
  o.policy = NH_SIMUL_ENUMERATE;
  nh_simul_result r;
  char m2[256];
  int st = nh_simul_cosines(&pb, &o, NULL, C, work, m2, sizeof m2);
  if (st == NH_OK) st = nh_simul_resolve(&pb, v, &o, vp, &r, work, m2, sizeof m2);
  if (st == NH_NO_IMPACT) { /* grazing (theta = pi): nothing to resolve */
    *xi = 0.0, *c = C[1], *len = 0;
    return NH_OK;
  }
  if (st != NH_OK) {
    snprintf(msg, size, "billiards (%s) at %.6g deg: %s", b->label, th * 180 / SPI, m2);
    return st;
  }
  *xi = r.xi, *c = C[1], *len = 0;
  for (int j = 0; j < r.outcomes; j++)
    if (r.outcome_len[j] > *len) *len = r.outcome_len[j];
  return NH_OK;
}

static int fig_billiards(const char *path, const papers_opts *o, char *msg, size_t size) {
  static const billiard_set sets[3] = {
      {"equal balls (r = 1, m = 1)", 1.0, 1.0, 1.0, 60.0},
      {"light cue ball (m#dc#u = 1/2)", 1.0, 1.0, 0.5, 60.0},
      {"paper-like radii (r#dc#u = 2.8637, m ~ r#u3#d)", 2.8637, 1.0, 2.8637 * 2.8637 * 2.8637,
       30.0},
  };
  enum { NMAX = 150 * BL_PER_DEG + 2 };
  double *th = malloc(sizeof(double) * 3 * NMAX * 3);
  void *work = NULL;
  nh_outfile csv;
  char cpath[1100];
  int n[3] = {0}, st = NH_ERR_NOMEM;
  nh_simul_opts eo = nh_simul_opts_default();
  eo.policy = NH_SIMUL_ENUMERATE;
  size_t ws = nh_simul_work_size(6, 0, 2, &eo);
  if (!th || !(work = malloc(ws))) {
    snprintf(msg, size, "billiards: out of memory");
    goto done;
  }
  double *deg = th, *xi = th + 3 * NMAX, *cs = th + 6 * NMAX; /* [set * NMAX + k] */
  csv_path(path, cpath, sizeof cpath);
  if ((st = nh_outfile_open(&csv, cpath, msg, size))) goto done;
  fprintf(csv.fp, "set,theta_deg,cosine,xi,xi_percent,longest_sequence\n");
  for (int s = 0; s < 3; s++) {
    double best = -1.0, best_th = 0.0;
    for (int i = (int)(sets[s].th_min_deg * BL_PER_DEG); i <= 180 * BL_PER_DEG; i++) {
      int k = n[s]++, len;
      double x, c, a = (double)i / BL_PER_DEG;
      deg[s * NMAX + k] = a;
      if ((st = billiard_xi(&sets[s], a * SPI / 180, work, &x, &c, &len, msg, size))) {
        nh_outfile_abort(&csv);
        goto done;
      }
      xi[s * NMAX + k] = 100.0 * x, cs[s * NMAX + k] = c;
      fprintf(csv.fp, "%d,%.6g,%.17g,%.17g,%.17g,%d\n", s + 1, a, c, x, 100.0 * x, len);
      if (x > best) best = x, best_th = a;
    }
    /* the printed numbers: the largest xi, and xi where the design rules say 0 */
    double x90, c90, x0 = NAN, c0;
    int len;
    billiard_xi(&sets[s], SPI / 2, work, &x90, &c90, &len, msg, size);
    fprintf(o->out, "billiards %s: xi max %.6f at %.1f deg, xi(90 deg) = %.3g (c = %.3g)",
            s == 0 ? "equal balls" : s == 1 ? "light cue ball m_c = 1/2" : "paper-like radii",
            best, best_th, x90, c90);
    if (s == 1) { /* c = -1/2 at cos th = -(m + m_c) / (2 m) */
      double t0 = acos(-(sets[s].ma + sets[s].mc) / (2 * sets[s].ma));
      billiard_xi(&sets[s], t0, work, &x0, &c0, &len, msg, size);
      fprintf(o->out, ", xi(%.3f deg) = %.3g (c = %.6f)", t0 * 180 / SPI, x0, c0);
    }
    fprintf(o->out, "\n");
  }
  char lab[3][96];
  nh_plot_curve ca[4], cb[2];
  for (int s = 0; s < 3; s++) snprintf(lab[s], sizeof lab[s], "%s", sets[s].label);
  ca[0] = (nh_plot_curve){n[0], deg, xi, lab[0], NH_PLOT_LINE | NH_PLOT_WIDTH(22)};
  ca[1] = (nh_plot_curve){n[1], deg + NMAX, xi + NMAX, lab[1], NH_PLOT_DASHED};
  ca[2] = (nh_plot_curve){0, NULL, NULL, "xi = 0 at 90 deg (c = 0, Lemma 7) and, for m#dc#u = 1/2,", 0};
  ca[3] = (nh_plot_curve){0, NULL, NULL, "at 138.59 deg (c = -1/2, Theorem 3); grazing at 180 deg", 0};
  cb[0] = (nh_plot_curve){n[2], deg + 2 * NMAX, xi + 2 * NMAX, lab[2], NH_PLOT_LINE | NH_PLOT_WIDTH(22)};
  cb[1] = (nh_plot_curve){0, NULL, NULL, "r#da#u = r#db#u = 1: #gh#dmin#u = 30 deg", 0};
  nh_plot_panel p[2] = {
      {"(a) equal radii", "angle #gh between the targets (deg)", "indeterminacy #gx (%)", 4, ca, 0,
       NAN},
      {"(b) the paper's Fig. 5 set-up", "angle #gh between the targets (deg)",
       "indeterminacy #gx (%)", 2, cb, 0, NAN},
  };
  st = nh_plot_panels(path, 1, 2, 2, p,
                      "billiard break (Seghete & Murphey Fig. 5): xi = |v_ab - v_ba|_M / |v-|_M "
                      "of the two reflection orders",
                      msg, size);
  if (st != NH_OK) {
    nh_outfile_abort(&csv);
    st = st == NH_ERR_ARG ? NH_ERR_IO : st;
    goto done;
  }
  if ((st = nh_outfile_commit(&csv, msg, size)) == NH_OK)
    fprintf(o->out, "billiards -> %s, %s\n", path, cpath);
done:
  free(work);
  free(th);
  return st;
}

int papers_simul(const char *name, const char *path, const papers_opts *o, char *msg,
                 size_t msg_size) {
  if (!strcmp(name, "cradle")) return fig_cradle(path, o, msg, msg_size);
  if (!strcmp(name, "billiards")) return fig_billiards(path, o, msg, msg_size);
  snprintf(msg, msg_size, "unknown figure '%s'", name);
  return NH_ERR_ARG;
}
