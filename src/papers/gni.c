/* gni.c - the figures of Kobilarov, Martin de Diego, Ferraro, "Simulating Nonholonomic
 * Dynamics" (spec 001 sec. 4), regenerated from the built-in sleigh and snakeboard:
 *
 *   sleigh-fig2      the "heart" curves of the skate point (x_s, y_s) = (x - a cos th, y - a sin th)
 *                    for GNI (the paper's, and the symmetric default), RDP, RK2 and the closed form, and
 *                    their energies; T = 10, N = 100. The paper gives no setup: I = m = a = 1 and
 *                    E = 1.5 as spec 5.1, with the cusp (v = 0) at t = T/2 so that both lobes of
 *                    the heart show: v0 = -V tanh(k T/2), omega0 = w_max sech(k T/2)
 *   snakeboard-fig4  board paths (x, y) for RK2, GNI, RDP and the true trajectory (RK4, 2 10^4
 *                    steps), N = 128 steps over T = 10 with the controls cos(20 pi t), sin(2 pi t),
 *                    and the energies
 * Energies as spec 001 [C] 12: GNI the half-step kinetic energy 1/2 v_k+1/2^T M v_k+1/2 with
 * v_k+1/2 = (q_k+1 - q_k)/h (exact for GNI), RDP the interval energy of (u_k, xi_k) with
 * h xi_k = log(g_k^-1 g_k+1) (exp retraction), both at t_k+1/2; RK2 and the references at the nodes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papers.h"

/* one fixed-step run, every node kept */
static nh_traj *run_nodes(const nh_model *m, const char *method, nh_method_opts o, int N, double T,
                          char *msg, size_t msg_size) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = T / N;
  d.opts = o;
  nh_sim *s = nh_sim_create(m, &d, msg, msg_size);
  if (!s) return NULL;
  nh_traj *tr = nh_traj_create(m->nq);
  int rc = tr ? nh_sim_run(s, T, 0, nh_traj_observer, tr) : NH_ERR_NOMEM;
  if (rc != NH_OK) {
    snprintf(msg, msg_size, "%s run failed: %s %s", method, nh_status_name(rc), nh_sim_message(s));
    nh_traj_destroy(tr);
    tr = NULL;
  }
  nh_sim_destroy(s);
  return tr;
}

/* the nodes of a traj without the duplicate END sample */
static long nodes(const nh_traj *tr) {
  long n = tr->n;
  if (n >= 2 && tr->kind[n - 1] == NH_SAMPLE_END && tr->t[n - 1] == tr->t[n - 2]) n--;
  return n;
}

/* h xi = log(dg) on SE(2) (inverse of nh's exp): v1 = dth, (v2, v3) = V(dth)^-1 (tx, ty) */
static void se2_log(const double dg[3], double v[3]) {
  double th = dg[0], s, c;
  if (fabs(th) < 1e-4) s = 1.0 - th * th / 6.0, c = th / 2.0;
  else s = sin(th) / th, c = (1.0 - cos(th)) / th;
  double det = s * s + c * c; /* V = [[s, -c], [c, s]] */
  v[0] = th;
  v[1] = (s * dg[1] + c * dg[2]) / det;
  v[2] = (-c * dg[1] + s * dg[2]) / det;
}

/* Energy along a run. kind 0: nodal; 1: chord (q_k+1 - q_k)/h at t_k+1/2; 2: RDP interval
 * velocity (shape chord, group log) at t_k+1/2. t, E receive up to nodes() values; returns the count. */
static long energies(const nh_model *m, const nh_traj *tr, int kind, double *t, double *E) {
  const int nq = m->nq;
  long n = nodes(tr), out = 0;
  double qd[16], M[256];
  for (long k = 0; k + (kind ? 1 : 0) < n; k++) {
    const double *q0 = tr->q + k * nq;
    if (kind == 0) {
      if (nh_model_energy(m, q0, tr->v + k * nq, &E[out]) != NH_OK) continue;
      t[out++] = tr->t[k];
      continue;
    }
    const double *q1 = q0 + nq;
    double h = tr->t[k + 1] - tr->t[k];
    if (!(h > 0.0)) continue;
    for (int i = 0; i < nq; i++) qd[i] = (q1[i] - q0[i]) / h;
    if (kind == 2 && m->has_se2) {
      const int *g = m->se2;
      double c = cos(q0[g[0]]), s = sin(q0[g[0]]), dx = q1[g[1]] - q0[g[1]], dy = q1[g[2]] - q0[g[2]];
      double dg[3] = {q1[g[0]] - q0[g[0]], c * dx + s * dy, -s * dx + c * dy}, v[3];
      se2_log(dg, v);
      qd[g[0]] = v[0] / h;
      qd[g[1]] = (c * v[1] - s * v[2]) / h;
      qd[g[2]] = (s * v[1] + c * v[2]) / h;
    }
    if (m->mass(q0, M, m->user)) continue;
    double e = 0.0;
    for (int i = 0; i < nq; i++)
      for (int j = 0; j < nq; j++) e += 0.5 * qd[i] * M[i * nq + j] * qd[j];
    t[out] = 0.5 * (tr->t[k] + tr->t[k + 1]);
    E[out++] = e;
  }
  return out;
}

/* "name: " before the message in msg */
static void prefix_msg(const char *name, char *msg, size_t msg_size) {
  char tmp[512];
  snprintf(tmp, sizeof tmp, "%s", msg);
  snprintf(msg, msg_size, "%s: %s", name, tmp);
}

/* two samples at most this fraction of max(1, t) apart are at the same time */
#define PATH_TIME_SLACK 1e-9
/* paths closer than this fraction of the reference path's extent coincide on the figure */
#define PATH_COINCIDE 5e-3

/* the axes: the sleigh of the figure (I = m = a = 1) has no units; the snakeboard's are SI */
static const char *const sleigh_labels[4] = {"x#ds#u", "y#ds#u", "t", "E"};
static const char *const snakeboard_labels[4] = {"x (m)", "y (m)", "t (s)", "E (J)"};

typedef struct series {
  const char *label;
  nh_traj *tr;
  int ekind;
  int style; /* nh_plot_curve.style: coincident curves stay distinguishable */
  double *x, *y, *te, *E;
  long n, ne;
} series;

static void series_free(series *s, int ns) {
  for (int i = 0; i < ns; i++) {
    nh_traj_destroy(s[i].tr);
    free(s[i].x), free(s[i].y), free(s[i].te), free(s[i].E);
  }
}

/* the path (coordinates ix, iy, optionally shifted to the skate point) and the energy of a series */
static int series_fill(const nh_model *m, series *s, int ix, int iy, int ith, double skate_a) {
  long n = nodes(s->tr);
  s->x = malloc(sizeof(double) * (size_t)(n + 1));
  s->y = malloc(sizeof(double) * (size_t)(n + 1));
  s->te = malloc(sizeof(double) * (size_t)(n + 1));
  s->E = malloc(sizeof(double) * (size_t)(n + 1));
  if (!s->x || !s->y || !s->te || !s->E) return 0;
  for (long k = 0; k < n; k++) {
    const double *q = s->tr->q + k * m->nq;
    s->x[k] = q[ix] - (ith >= 0 ? skate_a * cos(q[ith]) : 0.0);
    s->y[k] = q[iy] - (ith >= 0 ? skate_a * sin(q[ith]) : 0.0);
  }
  s->n = n;
  s->ne = energies(m, s->tr, s->ekind, s->te, s->E);
  return 1;
}

/* fill the ns series (series_fill); NH_OK, else msg says why after the figure's name: a run
 * that failed (no trajectory; its message) NH_ERR_CALLBACK, out of memory NH_ERR_NOMEM */
static int series_fill_all(const char *name, const nh_model *m, series *s, int ns, int ix, int iy, int ith,
                           double skate_a, char *msg, size_t msg_size) {
  for (int i = 0; i < ns; i++) {
    if (!s[i].tr) {
      prefix_msg(name, msg, msg_size);
      return NH_ERR_CALLBACK;
    }
    if (!series_fill(m, &s[i], ix, iy, ith, skate_a)) {
      snprintf(msg, msg_size, "%s: out of memory", name);
      return NH_ERR_NOMEM;
    }
  }
  return NH_OK;
}

/* The largest distance between the paths of a and b at their common times (NaN: none). */
static double max_distance(const series *a, const series *b) {
  double d = NAN;
  long i = 0, j = 0;
  while (i < a->n && j < b->n) {
    double ta = a->tr->t[i], tb = b->tr->t[j], tol = PATH_TIME_SLACK * fmax(1.0, fabs(ta));
    if (fabs(ta - tb) <= tol) {
      double e = hypot(a->x[i] - b->x[j], a->y[i] - b->y[j]);
      d = isnan(d) || e > d ? e : d;
      i++, j++;
    } else if (ta < tb) {
      i++;
    } else {
      j++;
    }
  }
  return d;
}

/* labels: the path and energy axes {x, y, t, E} with their units */
static int plot_series(const char *name, const char *path, const char *title, const char *ptitle,
                       const char *const labels[4], series *s, int ns, FILE *out, char *msg,
                       size_t msg_size) {
  enum { MAXS = 8 };
  nh_plot_curve paths[MAXS + 2], en[MAXS];
  char lab[MAXS][96], note[96] = "", first[32];
  snprintf(first, sizeof first, "%s", s[0].label);
  first[strcspn(first, " ")] = '\0'; /* its first word names it in the note */
  // the legend of the paths gives each one's largest distance from the first (the reference)
  double ext = 0.0, dmax = 0.0;
  for (long k = 0; k < s[0].n; k++) ext = fmax(ext, hypot(s[0].x[k] - s[0].x[0], s[0].y[k] - s[0].y[0]));
  for (int i = 0; i < ns && i < MAXS; i++) {
    double d = i > 0 ? max_distance(&s[i], &s[0]) : NAN;
    if (isnan(d)) snprintf(lab[i], sizeof lab[i], "%s", s[i].label);
    else snprintf(lab[i], sizeof lab[i], "%s [%.1e]", s[i].label, d);
    if (i > 0) dmax = isnan(d) || isnan(dmax) ? NAN : fmax(dmax, d);
    paths[i] = (nh_plot_curve){s[i].n, s[i].x, s[i].y, lab[i], s[i].style};
    en[i] = (nh_plot_curve){s[i].ne, s[i].te, s[i].E, s[i].label, s[i].style & ~NH_PLOT_WIDTH(255)};
  }
  int np = ns;
  if (!isnan(dmax) && ns > 1) {
    snprintf(note, sizeof note, "[ ]: largest distance from the %s path at equal times", first);
    paths[np++] = (nh_plot_curve){0, NULL, NULL, note, 0};
    if (dmax < PATH_COINCIDE * ext)
      paths[np++] = (nh_plot_curve){0, NULL, NULL, "so all the paths coincide at this scale", 0};
  }
  nh_plot_panel p[2] = {{ptitle, labels[0], labels[1], np, paths, 1, NAN},
                        {"energy", labels[2], labels[3], ns, en, 0, NAN}};
  int st = nh_plot_panels(path, 1, 2, 2, p, title, msg, msg_size);
  if (st != NH_OK) return st == NH_ERR_ARG ? NH_ERR_IO : st;
  // one line as the other figures: the final pose error of each method against the first series
  fprintf(out, "%s: final position error", name);
  for (int i = 1; i < ns; i++)
    fprintf(out, "%s %s %.3g", i > 1 ? "," : "", s[i].label, hypot(s[i].x[s[i].n - 1] - s[0].x[s[0].n - 1], s[i].y[s[i].n - 1] - s[0].y[s[0].n - 1]));
  fprintf(out, " -> %s\n", path);
  return NH_OK;
}

int papers_sleigh2(const char *name, const char *path, const papers_opts *o, char *msg,
                   size_t msg_size) {
  nh_sleigh_params p = nh_sleigh_params_default();
  const double T = 10.0;
  const int N = 100, NE = 1001;
  {
    const double E = 1.5, Ip = p.I + p.a * p.a * p.m, V = sqrt(2.0 * E / p.m);
    const double wmax = sqrt(2.0 * E / Ip), k = p.a * p.m * V / Ip;
    p.v0 = -V * tanh(0.5 * k * T);
    p.omega0 = wmax / cosh(0.5 * k * T);
  }
  nh_model *m = nh_sleigh_create(&p, msg, msg_size);
  if (!m) return NH_ERR_ARG;
  nh_method_opts paper = nh_method_opts_default(), sym = paper;
  paper.variant = NH_VARIANT_PAPER, paper.start = NH_START_PAPER; /* the paper's GNI and start */
  sym.variant = NH_VARIANT_SYMMETRIC;                              /* the library's default */
  series s[5];
  memset(s, 0, sizeof s);
  // the closed form, sampled
  s[0].label = "exact";
  s[0].style = NH_PLOT_WIDTH(60); /* wide under the others */
  s[0].tr = nh_traj_create(3);
  for (int k = 0; s[0].tr && k < NE; k++) {
    double t = T * k / (NE - 1), q[3], v[3];
    nh_sleigh_exact(&p, t, q, v, NULL, NULL);
    nh_traj_append(s[0].tr, k == NE - 1 ? NH_SAMPLE_END : NH_SAMPLE_STEP, t, q, v);
  }
  s[1] = (series){.label = "GNI (paper)", .ekind = 1, .style = NH_PLOT_DASH(2) | NH_PLOT_WIDTH(22), .tr = run_nodes(m, "gni", paper, N, T, msg, msg_size)};
  s[2] = (series){.label = "GNI (symmetric, default)", .ekind = 1, .style = NH_PLOT_DASH(3) | NH_PLOT_MARKER(1), .tr = run_nodes(m, "gni", sym, N, T, msg, msg_size)};
  s[3] = (series){.label = "RDP (exp)", .ekind = 2, .style = NH_PLOT_DASH(4) | NH_PLOT_MARKER(2), .tr = run_nodes(m, "rdp", paper, N, T, msg, msg_size)};
  s[4] = (series){.label = "RK2", .ekind = 0, .style = NH_PLOT_MARKER(3), .tr = run_nodes(m, "rk2", paper, N, T, msg, msg_size)};
  int rc = series_fill_all(name, m, s, 5, 1, 2, 0, p.a, msg, msg_size);
  if (rc == NH_OK)
    rc = plot_series(name, path, "Chaplygin sleigh (I = m = a = 1, E = 1.5, cusp at t = 5), N = 100 steps over T = 10",
                     "skate point", sleigh_labels, s, 5, o->out, msg, msg_size);
  series_free(s, 5);
  nh_model_destroy(m);
  return rc;
}

int papers_snakeboard4(const char *name, const char *path, const papers_opts *o, char *msg,
                       size_t msg_size) {
  nh_snakeboard_params p = nh_snakeboard_params_default();
  nh_model *m = nh_snakeboard_create(&p, msg, msg_size);
  if (!m) return NH_ERR_ARG;
  const double T = 10.0;
  const int N = 128;
  nh_method_opts mo = nh_method_opts_default();
  mo.variant = NH_VARIANT_PAPER, mo.start = NH_START_PAPER; /* the paper's GNI, as in its figure */
  series s[4];
  memset(s, 0, sizeof s);
  s[0] = (series){.label = "true (RK4, h = 5e-4)", .ekind = 0, .style = NH_PLOT_WIDTH(50), .tr = run_nodes(m, "rk4", mo, 20000, T, msg, msg_size)};
  s[1] = (series){.label = "RK2", .ekind = 0, .tr = run_nodes(m, "rk2", mo, N, T, msg, msg_size)};
  s[2] = (series){.label = "GNI", .ekind = 1, .style = NH_PLOT_DASH(2) | NH_PLOT_MARKER(1), .tr = run_nodes(m, "gni", mo, N, T, msg, msg_size)};
  s[3] = (series){.label = "RDP (exp)", .ekind = 2, .style = NH_PLOT_DASH(4) | NH_PLOT_MARKER(2), .tr = run_nodes(m, "rdp", mo, N, T, msg, msg_size)};
  int rc = series_fill_all(name, m, s, 4, 3, 4, -1, 0.0, msg, msg_size);
  if (rc == NH_OK)
    rc = plot_series(name, path, "snakeboard, N = 128 steps over T = 10, controls cos(20 pi t), sin(2 pi t)",
                     "board position", snakeboard_labels, s, 4, o->out, msg, msg_size);
  series_free(s, 4);
  nh_model_destroy(m);
  return rc;
}
