/* trex.c - the TREX figures of Seghete & Murphey (Sec. VII-B):
 *
 *   trex         Fig. 8: the optimised design (examples/trex.nh) dropped 17 cm in two gaits,
 *                the optimised gait (its design configuration, tail and left foot landing
 *                together with orthogonal normals) and the initial gait (knees straight, hips
 *                pi apart, y and pL solved for the same double landing); each gait is run
 *                twice, every simultaneous impact resolved most-infeasible first in one copy
 *                and least-infeasible first in the other, and the indeterminacy
 *                xi(t) = |p1 - p2|_g / |p1|_g (g the cometric at copy 1's configuration) is
 *                sampled on a grid (PNG, and CSV beside it);
 *   trex-design  Table I: our initial row (the paper's, y and pT solved for the double
 *                contact), the optimised row from NLopt, printed beside the paper's, and
 *                the two designs in their stance (Fig. 7).
 * Conventions and every constant we chose: docs/trex.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/msg.h"
#include "papers.h"
#include "trex.h"
#include "trex_nh.h" /* trex_nh_text: examples/trex.nh, embedded at build time */

/* the figure's defaults: horizon and sampling step (s) */
#define TREX_T_END 2.0
#define TREX_DT 1e-3
/* the time stepping: rk4 at a fixed step TREX_H, so that the driver's fixed-step accumulation
 * rule (docs/contact.md: impacts of a contact accumulating with intervals below the step) makes
 * chattering contacts persistent (spec 003 sec. 3.6); del, the paper's integrator, needs a
 * Newton tolerance above its default in these CGS magnitudes and fails to converge on some
 * impacts of the initial gait (docs/trex.md) */
#define TREX_METHOD "rk4"
#define TREX_H 1e-3
/* most samples of xi (each holds q and v of four runs) */
#define TREX_MAX_SAMPLES 1e6
/* the design parameters set on the model file for a row */
#define TREX_NSET 11

/* one run: samples of q and v on the grid t_k = k dt */
typedef struct trex_run {
  long n, got;
  double dt, *q, *v;
} trex_run;

static int run_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q,
                        const double *v, void *user) {
  (void)sim;
  trex_run *r = user;
  if (kind != NH_SAMPLE_START && kind != NH_SAMPLE_OUTPUT && kind != NH_SAMPLE_END) return 0;
  long k = lround(t / r->dt);
  if (k < 0 || k >= r->n || fabs(t - k * r->dt) > 1e-9 * r->dt) return 0;
  memcpy(r->q + k * TREX_NQ, q, TREX_NQ * sizeof *q);
  memcpy(r->v + k * TREX_NQ, v, TREX_NQ * sizeof *v);
  if (k + 1 > r->got) r->got = k + 1;
  return 0;
}

/* the model file with the row's design and configuration */
static nh_model *load_row(const trex_row *row, char *msg, size_t msg_size) {
  static const char *names[TREX_NSET] = {"r1", "r2", "lu", "ll", "y0", "th0", "pL0", "gL0", "pR0", "gR0", "pT0"};
  const double vals[TREX_NSET] = {row->d.r1, row->d.r2, row->d.lu, row->d.ll, row->q[1], row->q[2],
                                  row->q[3], row->q[4], row->q[5], row->q[6], row->q[7]};
  nh_load_opts lo = nh_load_opts_default();
  lo.nset = TREX_NSET;
  lo.set_names = names;
  lo.set_values = vals;
  char text[sizeof trex_nh_text + 1];
  memcpy(text, trex_nh_text, sizeof trex_nh_text);
  text[sizeof trex_nh_text] = '\0';
  return nh_model_parse(text, "examples/trex.nh", &lo, msg, msg_size);
}

/* the simultaneous impacts of a run whose times are kept (for the figure's markers) */
#define TREX_MAX_SIMUL 256

/* what a run reports besides its samples */
typedef struct trex_stats {
  int status;
  long impacts, simultaneous;
  double t_first, t_end;
  int first_contacts, first_reflections;
  long persistent; /* simultaneous impacts after the landing (through closed contacts) */
  double t_simul[TREX_MAX_SIMUL];
} trex_stats;

static int run_gait(const nh_model *model, const char *name, int order, double t_end, trex_run *r,
                    trex_stats *st, char *msg, size_t msg_size) {
  nh_sim_def def = nh_sim_def_default();
  def.method = nh_method_find(TREX_METHOD);
  def.h = TREX_H;
  def.simul_order = order;
  def.out_dt = r->dt;
  nh_sim *sim = nh_sim_create(model, &def, msg, msg_size);
  if (!sim) return NH_ERR_ARG;
  r->got = 0;
  st->status = nh_sim_run(sim, t_end, 0, run_observer, r);
  st->t_end = nh_sim_time(sim);
  st->impacts = nh_sim_impact_count(sim);
  st->simultaneous = 0;
  st->t_first = NAN;
  st->first_contacts = st->first_reflections = 0;
  st->persistent = 0;
  for (long k = 0; k < st->impacts; k++) {
    nh_impact_record rec;
    if (nh_sim_impact_get(sim, k, &rec) != NH_OK) continue;
    if (k == 0) {
      st->t_first = rec.t;
      st->first_contacts = rec.contacts ? rec.contacts : 1;
      st->first_reflections = rec.reflections;
    }
    if (rec.contacts < 2) continue;
    if (st->simultaneous < TREX_MAX_SIMUL) st->t_simul[st->simultaneous] = rec.t;
    st->simultaneous++;
    if (k > 0) st->persistent++;
  }
  if (st->status < 0)
    nh_set_msg(msg, msg_size, "trex: the %s gait (%s copy) failed at t = %.9g: %s%s%s", name,
               order == NH_SIMUL_MOST_INFEASIBLE ? "argmin" : "argmax", st->t_end,
               nh_status_string(st->status), nh_sim_message(sim)[0] ? ": " : "", nh_sim_message(sim));
  nh_sim_destroy(sim);
  return st->status < 0 ? st->status : NH_OK;
}

/* xi at sample k: |p1 - p2|_g / |p1|_g and |p1 - p2|_g / KE1 (the caption's wording) */
static void xi_at(const trex_design *d, const trex_run *a, const trex_run *b, long k, double *xi,
                  double *xi_ke) {
  double M1[TREX_NQ * TREX_NQ], M2[TREX_NQ * TREX_NQ], dp[TREX_NQ], p1[TREX_NQ], L[TREX_NQ * TREX_NQ];
  const double *q1 = a->q + k * TREX_NQ, *v1 = a->v + k * TREX_NQ;
  const double *q2 = b->q + k * TREX_NQ, *v2 = b->v + k * TREX_NQ;
  trex_geometry(d, q1, M1, NULL, NULL);
  trex_geometry(d, q2, M2, NULL, NULL);
  for (int i = 0; i < TREX_NQ; i++) {
    double s1 = 0.0, s2 = 0.0;
    for (int j = 0; j < TREX_NQ; j++) s1 += M1[i * TREX_NQ + j] * v1[j], s2 += M2[i * TREX_NQ + j] * v2[j];
    p1[i] = s1;
    dp[i] = s1 - s2;
  }
  // |a|_g^2 = a M1^-1 a^T through the Cholesky factor of M1 (forward solve only)
  memcpy(L, M1, sizeof L);
  double n_dp = 0.0, n_p = 0.0;
  for (int j = 0; j < TREX_NQ; j++) {
    for (int k2 = 0; k2 < j; k2++) L[j * TREX_NQ + j] -= L[j * TREX_NQ + k2] * L[j * TREX_NQ + k2];
    L[j * TREX_NQ + j] = sqrt(L[j * TREX_NQ + j]);
    for (int i = j + 1; i < TREX_NQ; i++) {
      for (int k2 = 0; k2 < j; k2++) L[i * TREX_NQ + j] -= L[i * TREX_NQ + k2] * L[j * TREX_NQ + k2];
      L[i * TREX_NQ + j] /= L[j * TREX_NQ + j];
    }
  }
  for (int i = 0; i < TREX_NQ; i++) {
    for (int k2 = 0; k2 < i; k2++) dp[i] -= L[i * TREX_NQ + k2] * dp[k2], p1[i] -= L[i * TREX_NQ + k2] * p1[k2];
    dp[i] /= L[i * TREX_NQ + i];
    p1[i] /= L[i * TREX_NQ + i];
    n_dp += dp[i] * dp[i];
    n_p += p1[i] * p1[i];
  }
  *xi = n_p > 0.0 ? sqrt(n_dp / n_p) : 0.0;
  *xi_ke = n_p > 0.0 ? sqrt(n_dp) / (0.5 * n_p) : 0.0;
}

/* one gait: its two copies (most-infeasible, least-infeasible) and xi on the grid */
typedef struct trex_gait {
  const char *name;
  trex_row row;
  trex_run run[2];
  trex_stats st[2];
  double *xi, *xi_ke;
  long n;
} trex_gait;

static int gait_simulate(trex_gait *g, double t_end, char *msg, size_t msg_size) {
  nh_model *model = load_row(&g->row, msg, msg_size);
  if (!model) return NH_ERR_ARG;
  const int order[2] = {NH_SIMUL_MOST_INFEASIBLE, NH_SIMUL_LEAST_INFEASIBLE};
  int st = NH_OK;
  for (int c = 0; c < 2 && st == NH_OK; c++) st = run_gait(model, g->name, order[c], t_end, &g->run[c], &g->st[c], msg, msg_size);
  nh_model_destroy(model);
  g->n = g->run[0].got < g->run[1].got ? g->run[0].got : g->run[1].got;
  for (long k = 0; k < g->n; k++) xi_at(&g->row.d, &g->run[0], &g->run[1], k, &g->xi[k], &g->xi_ke[k]);
  return st;
}

static int write_csv(const char *path, const trex_gait *g, double dt, char *msg, size_t msg_size) {
  char csv[1100];
  snprintf(csv, sizeof csv, "%s", path);
  char *dot = strrchr(csv, '.');
  if (dot) *dot = '\0';
  strncat(csv, ".csv", sizeof csv - strlen(csv) - 1);
  nh_outfile f;
  if (nh_outfile_open(&f, csv, msg, msg_size) != NH_OK) return NH_ERR_IO;
  fprintf(f.fp, "t,xi_optimised,xi_initial,xi_ke_optimised,xi_ke_initial,y_optimised,y_initial,"
                "pL_optimised,pL_initial\n");
  long n = g[0].n < g[1].n ? g[0].n : g[1].n;
  for (long k = 0; k < n; k++)
    fprintf(f.fp, "%.6f,%.9e,%.9e,%.9e,%.9e,%.9g,%.9g,%.9g,%.9g\n", k * dt, g[0].xi[k], g[1].xi[k],
            g[0].xi_ke[k], g[1].xi_ke[k], g[0].run[0].q[k * TREX_NQ + 1], g[1].run[0].q[k * TREX_NQ + 1],
            g[0].run[0].q[k * TREX_NQ + 3], g[1].run[0].q[k * TREX_NQ + 3]);
  return nh_outfile_commit(&f, msg, msg_size);
}

/* the markers of gait g's simultaneous impacts (its argmin copy) on a sampled curve y: a
 * vertical tick of half-height `half` at the sample at or just after each impact (x, y with
 * NaN breaks, 3 points a tick); the number of points */
static long simul_marks(const trex_gait *g, double dt, long n, const double *y, double half, double *mx,
                        double *my) {
  const trex_stats *st = &g->st[0];
  long m = 0, ns = st->simultaneous < TREX_MAX_SIMUL ? st->simultaneous : TREX_MAX_SIMUL;
  for (long j = 0; j < ns; j++) {
    long k = (long)ceil(st->t_simul[j] / dt - 1e-9);
    if (k < 0 || k >= n || !isfinite(y[k])) continue;
    mx[m] = mx[m + 1] = k * dt, my[m] = y[k] - half, my[m + 1] = y[k] + half;
    mx[m + 2] = my[m + 2] = NAN;
    m += 3;
  }
  return m;
}

static int plot_xi(const char *path, trex_gait *g, double dt, char *msg, size_t msg_size) {
  long n = g[0].n < g[1].n ? g[0].n : g[1].n;
  double *buf = malloc((size_t)(5 * n + 24 * TREX_MAX_SIMUL + 1) * sizeof *buf);
  if (!buf) return NH_ERR_NOMEM;
  double *t = buf, *l0 = buf + n, *l1 = buf + 2 * n, *y0 = buf + 3 * n, *y1 = buf + 4 * n;
  const long B = 3 * TREX_MAX_SIMUL; /* the points of one marker curve */
  double *mk = buf + 5 * n;           /* 8 blocks of B: x, y of the markers on 4 curves */
  for (long k = 0; k < n; k++) {
    t[k] = k * dt;
    l0[k] = g[0].xi[k] > 0.0 ? log10(g[0].xi[k]) : NAN;
    l1[k] = g[1].xi[k] > 0.0 ? log10(g[1].xi[k]) : NAN;
    y0[k] = g[0].run[0].q[k * TREX_NQ + 1];
    y1[k] = g[1].run[0].q[k * TREX_NQ + 1];
  }
  const double *ys[4] = {l0, l1, y0, y1}, half[4] = {0.8, 0.8, 1.5, 1.5}; /* decades, cm */
  long nm[4];
  for (int c = 0; c < 4; c++) nm[c] = simul_marks(&g[c % 2], dt, n, ys[c], half[c], mk + 2 * c * B, mk + (2 * c + 1) * B);
  const int tick = NH_PLOT_WIDTH(30);
  nh_plot_curve cx[4] = {{n, t, l0, "optimised gait", 0},
                         {n, t, l1, "initial gait", NH_PLOT_DASHED},
                         {nm[0], mk, mk + B, "simultaneous impacts (optimised, argmin)", tick},
                         {nm[1], mk + 2 * B, mk + 3 * B, "simultaneous impacts (initial, argmin)", tick}};
  nh_plot_curve cy[4] = {{n, t, y0, "optimised gait", 0},
                         {n, t, y1, "initial gait", NH_PLOT_DASHED},
                         {nm[2], mk + 4 * B, mk + 5 * B, "simultaneous impacts", tick},
                         {nm[3], mk + 6 * B, mk + 7 * B, NULL, tick}};
  nh_plot_panel p[2] = {
      {"#gc = |p#d1#u - p#d2#u|#dg#u / |p#d1#u|#dg#u", "t (s)", "log#d10#u #gc", 4, cx, 0, NAN},
      {"body height y (argmin copy)", "t (s)", "y (cm)", 4, cy, 0, NAN}};
  int st = nh_plot_panels(path, 1, 2, 2, p, "Seghete & Murphey Fig. 8: TREX, argmin against argmax copies",
                          msg, msg_size);
  free(buf);
  return st;
}

int papers_trex(const char *name, const char *path, const papers_opts *o, char *msg, size_t msg_size) {
  (void)name;
  double t_end = o->t_end > 0.0 ? o->t_end : TREX_T_END, dt = o->dt > 0.0 ? o->dt : TREX_DT;
  if (t_end / dt > TREX_MAX_SAMPLES) {
    nh_set_msg(msg, msg_size, "trex: --t-end %g / --dt %g gives more than %g samples of xi", t_end, dt,
               (double)TREX_MAX_SAMPLES);
    return NH_ERR_ARG;
  }
  long n = (long)floor(t_end / dt + 1e-9) + 1;
  trex_gait g[2];
  memset(g, 0, sizeof g);
  g[0].name = "optimised";
  g[1].name = "initial";
  trex_optimised_row(&g[0].row);
  int st = trex_initial_gait(&g[0].row, &g[1].row, msg, msg_size);
  if (st != NH_OK) return st;
  double *mem = malloc((size_t)n * (2 * 4 * TREX_NQ + 4) * sizeof *mem);
  if (!mem) {
    nh_set_msg(msg, msg_size, "trex: out of memory for %ld samples", n);
    return NH_ERR_NOMEM;
  }
  double *p = mem;
  for (int k = 0; k < 2; k++) {
    for (int c = 0; c < 2; c++) {
      g[k].run[c] = (trex_run){n, 0, dt, p, p + n * TREX_NQ};
      p += 2 * n * TREX_NQ;
    }
    g[k].xi = p;
    g[k].xi_ke = p + n;
    p += 2 * n;
  }
  for (int k = 0; k < 2 && st == NH_OK; k++) st = gait_simulate(&g[k], t_end, msg, msg_size);
  if (st == NH_OK) {
    for (int k = 0; k < 2; k++) {
      double mx = 0.0, at = 0.0, first = NAN;
      for (long i = 0; i < g[k].n; i++) {
        if (g[k].xi[i] > mx) mx = g[k].xi[i], at = i * dt;
        if (isnan(first) && i * dt > g[k].st[0].t_first) first = g[k].xi[i];
      }
      fprintf(o->out,
              "trex %s gait: c = %.3e at the landing t = %.6f s (%d contacts, %d reflections); "
              "impacts %ld and %ld (simultaneous %ld and %ld, after the landing %ld and %ld); xi just "
              "after the landing %.3e, max %.3e at t = %.3f s, at t = %.3f s %.3e\n",
              g[k].name, g[k].row.c, g[k].st[0].t_first, g[k].st[0].first_contacts,
              g[k].st[0].first_reflections, g[k].st[0].impacts, g[k].st[1].impacts,
              g[k].st[0].simultaneous, g[k].st[1].simultaneous, g[k].st[0].persistent,
              g[k].st[1].persistent, first, mx, at,
              (g[k].n - 1) * dt, g[k].n ? g[k].xi[g[k].n - 1] : NAN);
    }
    st = write_csv(path, g, dt, msg, msg_size);
  }
  if (st == NH_OK) st = plot_xi(path, g, dt, msg, msg_size);
  free(mem);
  return st;
}

/* ---- trex-design: Table I and the two stances (Fig. 7) ------------------------------------ */

/* the outline of a row (spheres, tail, legs) as polylines: x, y with NaN breaks */
#define TREX_CIRCLE_PTS 48
#define TREX_OUTLINE_PTS (2 * (TREX_CIRCLE_PTS + 2) + 3 * 3 + 2 * 4)
static long outline(const trex_row *r, double *x, double *y) {
  const double *q = r->q, Lt = trex_tail_length(r->d.r1, r->d.r2);
  long n = 0;
  double P[2] = {q[0] + r->d.r1 * cos(q[2]) + r->d.r2 * cos(q[2] + q[7]),
                 q[1] + r->d.r1 * sin(q[2]) + r->d.r2 * sin(q[2] + q[7])};
  const double C[2][3] = {{q[0], q[1], r->d.r1}, {P[0], P[1], r->d.r2}};
  for (int s = 0; s < 2; s++) {
    for (int k = 0; k <= TREX_CIRCLE_PTS; k++, n++) {
      double a = 2.0 * 3.14159265358979323846 * k / TREX_CIRCLE_PTS;
      x[n] = C[s][0] + C[s][2] * cos(a);
      y[n] = C[s][1] + C[s][2] * sin(a);
    }
    x[n] = y[n] = NAN, n++;
  }
  // the tail from the posterior centre
  x[n] = P[0], y[n++] = P[1];
  x[n] = P[0] + Lt * cos(q[2] + q[7]), y[n++] = P[1] + Lt * sin(q[2] + q[7]);
  x[n] = y[n] = NAN, n++;
  // the legs from the hip at the anterior centre
  for (int s = 0; s < 2; s++) {
    double a = q[2] + q[3 + 2 * s], b = a + q[4 + 2 * s];
    x[n] = q[0], y[n++] = q[1];
    x[n] = q[0] + r->d.lu * cos(a), y[n++] = q[1] + r->d.lu * sin(a);
    x[n] = x[n - 1] + r->d.ll * cos(b), y[n] = y[n - 1] + r->d.ll * sin(b), n++;
    x[n] = y[n] = NAN, n++;
  }
  return n;
}

static void print_row(FILE *f, const char *label, const trex_row *r) {
  // Table I's column order: x y th pL pR gL gR pT r1 r2 lu ll <u,v>_g
  fprintf(f, "%-22s %5.2f %6.2f %5.2f %5.2f %5.2f %5.2f %5.2f %6.2f %5.2f %5.2f %5.2f %5.2f %10.2e %10.2e\n",
          label, r->q[0], r->q[1], r->q[2], r->q[3], r->q[5], r->q[4], r->q[6], r->q[7], r->d.r1, r->d.r2,
          r->d.lu, r->d.ll, r->c, r->raw);
}

int papers_trex_design(const char *name, const char *path, const papers_opts *o, char *msg,
                       size_t msg_size) {
  (void)name;
  if (!trex_have_nlopt()) {
    (void)trex_optimise(NULL, NULL, NULL, msg, msg_size);
    return NH_ERR_UNSUPPORTED; /* exit 2 alone; skipped with a note by 'figure all' */
  }
  trex_row pi, po, ini, opt, gait;
  trex_paper_rows(&pi, &po);
  int evals = 0, st = trex_initial_row(&ini, msg, msg_size);
  if (st == NH_OK) st = trex_optimise(&ini, &opt, &evals, msg, msg_size);
  if (st == NH_OK) st = trex_initial_gait(&opt, &gait, msg, msg_size);
  if (st != NH_OK) return st;
  double gap[TREX_NGAP];
  trex_geometry(&opt.d, opt.q, NULL, gap, NULL);
  FILE *f = o->out;
  fprintf(f, "Table I (Seghete & Murphey) beside ours; c = <u,v>_g normalised, raw in 1/g "
             "(the paper's column, of unknown normalisation, under c)\n");
  fprintf(f, "%-22s %5s %6s %5s %5s %5s %5s %5s %6s %5s %5s %5s %5s %10s %10s\n", "system", "x", "y", "th",
          "pL", "pR", "gL", "gR", "pT", "r1", "r2", "lu", "ll", "c", "raw");
  print_row(f, "paper initial", &pi);
  print_row(f, "ours initial", &ini);
  print_row(f, "paper optimised", &po);
  print_row(f, "ours optimised", &opt);
  print_row(f, "ours initial gait", &gait);
  fprintf(f, "ours optimised, full precision: r1 %.17g r2 %.17g lu %.17g ll %.17g\n", opt.d.r1, opt.d.r2,
          opt.d.lu, opt.d.ll);
  fprintf(f, "  y %.17g th %.17g pL %.17g gL %.17g pR %.17g gR %.17g pT %.17g\n", opt.q[1], opt.q[2],
          opt.q[3], opt.q[4], opt.q[5], opt.q[6], opt.q[7]);
  fprintf(f, "  gaps tail %.2e footL %.2e cm, L_tail %.6f cm (initial %.6f), NLopt SLSQP %d evaluations\n",
          gap[TREX_TAIL], gap[TREX_FOOT_L], trex_tail_length(opt.d.r1, opt.d.r2),
          trex_tail_length(ini.d.r1, ini.d.r2), evals);
  // Fig. 7: the two stances
  double buf[4][TREX_OUTLINE_PTS], fx[2] = {-40, 40}, fy[2] = {0, 0};
  long n0 = outline(&ini, buf[0], buf[1]), n1 = outline(&opt, buf[2], buf[3]);
  nh_plot_curve a[2] = {{n0, buf[0], buf[1], NULL, 0}, {2, fx, fy, "floor", NH_PLOT_DASHED}};
  nh_plot_curve b[2] = {{n1, buf[2], buf[3], NULL, 0}, {2, fx, fy, "floor", NH_PLOT_DASHED}};
  char ta[128], tb[128];
  snprintf(ta, sizeof ta, "initial (ours): c = %.2e", ini.c);
  snprintf(tb, sizeof tb, "optimised (ours): c = %.2e", opt.c);
  nh_plot_panel p[2] = {{ta, "x (cm)", "y (cm)", 2, a, 1, NAN}, {tb, "x (cm)", "y (cm)", 2, b, 1, NAN}};
  return nh_plot_panels(path, 1, 2, 2, p, "Seghete & Murphey Fig. 7 / Table I: TREX at the double impact",
                        msg, msg_size);
}
