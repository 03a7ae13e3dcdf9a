/* lyapunov.c - penny-lyapunov: the largest Lyapunov exponent of Clark & Bloch's bouncing penny
 * (Table I, the initial state of Sec. VI-A) on the circular and elliptical tables, elastic and
 * plastic, against time with its 95% batch-means interval (nholo/lyapunov.h). The question
 * is the paper's Sec. VI-B: are its "hints of chaos" chaos? (docs/lyapunov.md)
 *
 * The penny is the model file's text (examples/penny.nh) on the tape back end, so that the
 * tangent equations use its exact derivatives; the figure is a PNG (or SVG/PDF) at path and
 * the series a CSV beside it (the same name ending in .csv). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nholo/lyapunov.h"
#include "nholo/modelfile.h"
#include "papers.h"

/* the estimate's length (s) unless --t-end, and its renormalisation window (s) */
#define PL_T_END 5000.0
#define PL_WINDOW 1.0
/* the plot starts at this window (the first ones are dominated by the initial tangent) */
#define PL_PLOT_FROM 20
/* largest step (s): a coin's end crossing out of and back into the table within one step
 * would be missed; the coin's ground speed is 0.1 m/s, its radius 0.01 m */
#define PL_H_MAX 0.05
#define PL_CASES 4

static const char penny_text[] =
    "model penny\n"
    "coordinates x y theta phi\n"
    "parameter m = 0.0025\nparameter R = 0.01\nparameter I = 1/2*m*R^2\nparameter J = 1/4*m*R^2\n"
    "parameter a = 0.15\nparameter b = 0.2\n"
    "let Xf = x + R*cos(phi)\nlet Yf = y + R*sin(phi)\nlet Xb = x - R*cos(phi)\nlet Yb = y - R*sin(phi)\n"
    "kinetic 1/2*m*(x'^2 + y'^2) + 1/2*I*theta'^2 + 1/2*J*phi'^2\n"
    "constraint roll_x: x' - R*cos(phi)*theta' = 0\n"
    "constraint roll_y: y' - R*sin(phi)*theta' = 0\n"
    "gap front: 1 - Xf^2/a^2 - Yf^2/b^2\n"
    "gap back: 1 - Xb^2/a^2 - Yb^2/b^2\n"
    "parameter w0 = 10\n"
    "initial x = 0, y = 0, theta = 0, phi = pi/2, theta' = w0, phi' = 0.2\n"
    "initial x' = R*cos(pi/2)*w0, y' = R*sin(pi/2)*w0\n";

/* one case's series (grown as the windows come) */
typedef struct pl_series {
  long n, cap;
  double *t, *lam, *lo, *hi;
  long *impacts;
} pl_series;

static int pl_observer(const nh_lyap_point *p, void *user) {
  pl_series *s = user;
  if (s->n == s->cap) return 1; /* sized before the run: never reached */
  s->t[s->n] = p->t;
  s->lam[s->n] = p->lambda;
  s->lo[s->n] = p->lambda - p->half_width; /* NaN until there are enough windows */
  s->hi[s->n] = p->lambda + p->half_width;
  s->impacts[s->n] = p->impacts;
  s->n++;
  return 0;
}

static void pl_free(pl_series *s) {
  free(s->t);
  free(s->lam);
  free(s->lo);
  free(s->hi);
  free(s->impacts);
}

/* case k: elliptical (k >= 2) or circular, plastic (odd k) or elastic */
static int pl_run(int k, double t_end, pl_series *s, nh_lyap_result *res, char *msg, size_t msg_size) {
  const int elliptic = k >= 2, plastic = k % 2;
  const char *names[] = {"a"};
  const double values[] = {elliptic ? 0.15 : 0.2};
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  lo.nset = 1;
  lo.set_names = names;
  lo.set_values = values;
  lo.impact_override = 1;
  lo.impact.kind = plastic ? NH_IMPACT_PLASTIC : NH_IMPACT_ELASTIC;
  lo.impact.e = 1.0;
  nh_model *m = nh_model_parse(penny_text, "penny", &lo, msg, msg_size);
  if (!m) return NH_ERR_ARG;
  nh_lyap_def d = nh_lyap_def_default();
  d.t_end = t_end;
  d.window = PL_WINDOW;
  d.h_max = PL_H_MAX;
  s->cap = (long)ceil(t_end / PL_WINDOW) + 1;
  s->t = malloc(sizeof(double) * (size_t)s->cap);
  s->lam = malloc(sizeof(double) * (size_t)s->cap);
  s->lo = malloc(sizeof(double) * (size_t)s->cap);
  s->hi = malloc(sizeof(double) * (size_t)s->cap);
  s->impacts = malloc(sizeof(long) * (size_t)s->cap);
  int rc = NH_ERR_NOMEM;
  if (s->t && s->lam && s->lo && s->hi && s->impacts) rc = nh_lyapunov(m, &d, NULL, pl_observer, s, res, msg, msg_size);
  nh_model_destroy(m);
  return rc == NH_ERR_ARG ? NH_ERR_CALLBACK : rc;
}

static const char *pl_table(int k) { return k >= 2 ? "ellipse" : "circle"; }
static const char *pl_law(int k) { return k % 2 ? "plastic" : "elastic"; }

/* the series as CSV beside the figure */
static int pl_csv(const char *path, const pl_series *s, char *msg, size_t msg_size) {
  char csv[1024];
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  int stem = dot && (!slash || dot > slash) ? (int)(dot - path) : (int)strlen(path);
  snprintf(csv, sizeof csv, "%.*s.csv", stem, path);
  nh_outfile out;
  if (nh_outfile_open(&out, csv, msg, msg_size) != NH_OK) return NH_ERR_IO;
  fprintf(out.fp, "table,law,t,lambda,lo95,hi95,impacts\n");
  for (int k = 0; k < PL_CASES; k++)
    for (long i = 0; i < s[k].n; i++)
      fprintf(out.fp, "%s,%s,%.17g,%.17g,%.17g,%.17g,%ld\n", pl_table(k), pl_law(k), s[k].t[i], s[k].lam[i],
              s[k].lo[i], s[k].hi[i], s[k].impacts[i]);
  return nh_outfile_commit(&out, msg, msg_size) == NH_OK ? NH_OK : NH_ERR_IO;
}

static int pl_plot(const char *path, const pl_series *s, const nh_lyap_result *r, char *msg, size_t msg_size) {
  nh_plot_curve c[PL_CASES][3];
  nh_plot_panel p[PL_CASES];
  char title[PL_CASES][64], label[PL_CASES][96];
  for (int k = 0; k < PL_CASES; k++) {
    const long o = s[k].n > PL_PLOT_FROM ? PL_PLOT_FROM : 0, n = s[k].n - o;
    snprintf(title[k], sizeof title[k], "%s table, %s (%ld impacts)", pl_table(k), pl_law(k), r[k].last.impacts);
    snprintf(label[k], sizeof label[k], "#gl = %.3g +- %.2g /s at t = %g s", r[k].last.lambda, r[k].last.half_width,
             r[k].last.t);
    c[k][0] = (nh_plot_curve){n, s[k].t + o, s[k].lam + o, label[k], NH_PLOT_LINE};
    c[k][1] = (nh_plot_curve){n, s[k].t + o, s[k].hi + o, "95% batch-means interval", NH_PLOT_DASHED};
    c[k][2] = (nh_plot_curve){n, s[k].t + o, s[k].lo + o, "(lower end)", NH_PLOT_DASHED};
    p[k] = (nh_plot_panel){title[k], "t (s)", "#gl (1/s)", 3, c[k], 0, 0.0};
  }
  return nh_plot_panels(path, 2, 2, PL_CASES, p,
                        "penny-lyapunov: largest Lyapunov exponent of the bouncing penny (Clark & Bloch, Table I)",
                        msg, msg_size);
}

int papers_penny_lyapunov(const char *name, const char *path, const papers_opts *o, char *msg,
                          size_t msg_size) {
  const double t_end = o->t_end > 0.0 ? o->t_end : PL_T_END;
  pl_series s[PL_CASES];
  nh_lyap_result r[PL_CASES];
  memset(s, 0, sizeof s);
  int rc = NH_OK;
  for (int k = 0; k < PL_CASES && rc == NH_OK; k++) {
    rc = pl_run(k, t_end, &s[k], &r[k], msg, msg_size);
    if (rc == NH_OK)
      fprintf(o->out, "%s: %s table, %s: lambda = %.4g +- %.2g 1/s (95%%) over %g s, %ld impacts\n", name,
              pl_table(k), pl_law(k), r[k].last.lambda, r[k].last.half_width, r[k].last.t, r[k].last.impacts);
  }
  if (rc == NH_OK && (rc = pl_plot(path, s, r, msg, msg_size)) == NH_ERR_ARG) rc = NH_ERR_IO;
  if (rc == NH_OK) rc = pl_csv(path, s, msg, msg_size);
  if (rc == NH_OK) fprintf(o->out, "%s: -> %s (and .csv)\n", name, path);
  for (int k = 0; k < PL_CASES; k++) pl_free(&s[k]);
  return rc;
}
