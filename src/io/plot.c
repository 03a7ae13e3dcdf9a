/* plot.c - figures with PLplot's cairo drivers (pngcairo, svgcairo, pdfcairo).
 *
 * Every figure is drawn on a PLplot stream of its own (plmkstrm ... plend1), so the caller's
 * streams are left alone and any number of figures can be drawn in one process. The stream
 * writes into the FILE of an nh_outfile (plsfile), i.e. into "<path>.tmp.<pid>", which is
 * renamed over path only when the figure is complete.
 *
 * PLplot calls exit() on some errors (a file it cannot open, a device it does not know), so
 * both are ruled out before plinit: the device is checked against plgDevs and the file is
 * opened by us. PLplot is not thread-safe: draw figures from one thread at a time. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <plplot.h>

#include "base/msg.h"
#include "nholo/io.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- palette (cmap0 indices) --------------------------------------------------------- */

enum {
  C_BG = 0,
  C_FG = 1,
  C_WALL = 2,
  C_PATH = 3,
  C_COIN = 4,
  C_IMPACT = 5,
  C_START = 6,
  C_TABLE = 7,
  C_MUTED = 8,
  C_PURPLE = 9,
  C_BROWN = 10,
  C_TEAL = 11,
  C_EVENT = 12,
  C_GRID = 13,
  C_PINK = 14,
  C_OLIVE = 15,
  C_NCOLORS = 16
};

static const unsigned char palette[C_NCOLORS][3] = {
    {255, 255, 255}, /* background */
    {0, 0, 0},       /* axes, text */
    {47, 62, 70},    /* wall */
    {31, 119, 180},  /* path: blue */
    {255, 127, 14},  /* coin: orange */
    {214, 39, 40},   /* impact point: red */
    {44, 160, 44},   /* start: green */
    {244, 239, 226}, /* table top */
    {90, 90, 90},    /* muted text */
    {148, 103, 189}, /* purple */
    {140, 86, 75},   /* brown */
    {23, 190, 207},  /* teal */
    {240, 150, 150}, /* impact times: light red */
    {225, 225, 225}, /* grid */
    {227, 119, 194}, /* pink */
    {188, 189, 34},  /* olive */
};

/* Colours of successive curves (time series). */
static const int series_colors[] = {C_PATH, C_COIN, C_START, C_PURPLE, C_BROWN, C_TEAL, C_PINK, C_OLIVE};

/* Text: the height of a character (PLplot's unit of displacement) in page units (pixels,
 * or points for the vector formats) at scale 1, set on every figure; and the mean width of a
 * character of the cairo drivers' sans font relative to that height, an estimate used to lay
 * out labels (with some slack wherever it is used). */
#define CHAR_H_PX 16.0
#define CHAR_W 0.68

/* ---- messages and text --------------------------------------------------------------- */

/* Copy user text for PLplot: '#' is PLplot's escape character, so double it. */
static void pl_text(char *dst, size_t size, const char *src) {
  size_t k = 0;
  if (size == 0) return;
  for (; src && *src && k + 1 < size; src++) {
    if (*src == '#') {
      if (k + 2 >= size) break;
      dst[k++] = '#';
    }
    dst[k++] = *src;
  }
  dst[k] = '\0';
}

/* A coordinate name as a label: Greek letter names become the letter. */
static void coord_label(char *dst, size_t size, const char *name, int i) {
  static const char *const greek[][2] = {
      {"alpha", "#ga"}, {"beta", "#gb"},   {"gamma", "#gg"},   {"delta", "#gd"},
      {"epsilon", "#ge"}, {"zeta", "#gz"}, {"eta", "#gy"},     {"theta", "#gh"},
      {"iota", "#gi"},  {"kappa", "#gk"},  {"lambda", "#gl"},  {"mu", "#gm"},
      {"nu", "#gn"},    {"xi", "#gc"},     {"omicron", "#go"}, {"pi", "#gp"},
      {"rho", "#gr"},   {"sigma", "#gs"},  {"tau", "#gt"},     {"upsilon", "#gu"},
      {"phi", "#gf"},   {"chi", "#gx"},    {"psi", "#gq"},     {"omega", "#gw"}};
  if (!name) {
    snprintf(dst, size, "q#d%d#u", i + 1);
    return;
  }
  for (size_t k = 0; k < sizeof greek / sizeof greek[0]; k++) {
    if (strcmp(name, greek[k][0]) == 0) {
      snprintf(dst, size, "%s", greek[k][1]);
      return;
    }
  }
  pl_text(dst, size, name);
}

/* ---- figure lifetime ----------------------------------------------------------------- */

typedef struct figure {
  nh_outfile out;
  PLINT old_strm, strm;
  int open; /* a PLplot stream is initialised */
} figure;

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  if (n < m) return 0;
  for (size_t i = 0; i < m; i++)
    if (tolower((unsigned char)s[n - m + i]) != tolower((unsigned char)suffix[i])) return 0;
  return 1;
}

/* The cairo device for path, or NULL with a message. */
static const char *device_for(const char *path, char *msg, size_t msg_size) {
  if (!path || !path[0]) {
    nh_set_msg(msg, msg_size, "empty plot path");
    return NULL;
  }
  if (ends_with(path, ".png")) return "pngcairo";
  if (ends_with(path, ".svg")) return "svgcairo";
  if (ends_with(path, ".pdf")) return "pdfcairo";
  nh_set_msg(msg, msg_size, "cannot plot to '%s': unknown format (use .png, .svg or .pdf)", path);
  return NULL;
}

/* Whether PLplot has the device (asking plinit for an unknown one would prompt on stdin). */
static int device_available(const char *dev) {
  enum { MAXDEV = 128 };
  const char *menu_a[MAXDEV], *name_a[MAXDEV];
  const char **menu = menu_a, **name = name_a;
  int ndev = MAXDEV;
  plgDevs(&menu, &name, &ndev);
  for (int i = 0; i < ndev && i < MAXDEV; i++)
    if (name[i] && strcmp(name[i], dev) == 0) return 1;
  return 0;
}

/* Open the temporary file and a fresh PLplot stream of width x height pixels (points for
 * the vector formats). */
static int figure_begin(figure *fig, const char *path, int width, int height, char *msg,
                        size_t msg_size) {
  fig->open = 0;
  const char *dev = device_for(path, msg, msg_size);
  if (!dev) return NH_ERR_ARG;
  if (!device_available(dev)) {
    nh_set_msg(msg, msg_size, "cannot plot to '%s': the PLplot device '%s' is not installed", path,
            dev);
    return NH_ERR_IO;
  }
  int st = nh_outfile_open(&fig->out, path, msg, msg_size);
  if (st != NH_OK) return st;

  plgstrm(&fig->old_strm);
  fig->strm = -1;
  plmkstrm(&fig->strm);
  if (fig->strm < 0) {
    plsstrm(fig->old_strm);
    nh_outfile_abort(&fig->out);
    nh_set_msg(msg, msg_size, "cannot plot to '%s': no free PLplot stream", path);
    return NH_ERR_IO;
  }
  plsdev(dev);
  plsfile(fig->out.fp); /* PLplot closes it in plend1 */
  fig->out.fp = NULL;
  plspage(0.0, 0.0, width, height, 0, 0);
  plscmap0n(C_NCOLORS);
  for (int i = 0; i < C_NCOLORS; i++) plscol0(i, palette[i][0], palette[i][1], palette[i][2]);
  plinit();
  fig->open = 1;
  /* PLplot scales the default character height with the page size; fix it at CHAR_H_PX
   * page units so that text has the same size on every figure. */
  PLFLT xmin_mm, xmax_mm, ymin_mm, ymax_mm;
  pladv(0);
  plgspa(&xmin_mm, &xmax_mm, &ymin_mm, &ymax_mm);
  if (xmax_mm > xmin_mm) plschr(CHAR_H_PX * (xmax_mm - xmin_mm) / width, 1.0);
  plcol0(C_FG);
  return NH_OK;
}

/* Finish the stream (which writes and closes the file), restore the caller's stream, and
 * commit the file. */
static int figure_end(figure *fig, char *msg, size_t msg_size) {
  if (fig->open) {
    plend1();
    fig->open = 0;
  }
  plsstrm(fig->old_strm);
  struct stat sb;
  if (stat(fig->out.tmp, &sb) != 0 || sb.st_size <= 0) {
    nh_outfile_abort(&fig->out);
    nh_set_msg(msg, msg_size, "cannot write '%s': PLplot produced no output", fig->out.path);
    return NH_ERR_IO;
  }
  return nh_outfile_commit(&fig->out, msg, msg_size);
}

/* ---- drawing helpers ----------------------------------------------------------------- */

/* Values that can be drawn: finite and small enough that every window holding them has a
 * finite width (anything else breaks a line or is left out, like NaN). */
#define PLOT_MAX 1e300
static int plottable(double z) { return isfinite(z) && fabs(z) <= PLOT_MAX; }

/* Make [lo, hi] at least rel * max(|lo|, |hi|) wide (and not empty), so that tick steps stay
 * far above the spacing of doubles near the ends. */
static void widen(double *lo, double *hi, double rel) {
  double mag = fabs(*lo) > fabs(*hi) ? fabs(*lo) : fabs(*hi);
  double need = rel * mag;
  if (need < 1e-300) need = 1e-300;
  if (*hi - *lo < need) {
    double mid = 0.5 * (*lo + *hi);
    *lo = mid - 0.5 * need;
    *hi = mid + 0.5 * need;
  }
}

/* A polyline through the points (x[k*xs], y[k*ys]); a non-finite point breaks the line. */
static void draw_line(long n, const double *x, long xs, const double *y, long ys) {
  enum { CHUNK = 4096 };
  PLFLT bx[CHUNK], by[CHUNK];
  int m = 0;
  for (long k = 0; k < n; k++) {
    double xk = x[k * xs], yk = y[k * ys];
    if (!plottable(xk) || !plottable(yk)) {
      if (m > 1) plline(m, bx, by);
      m = 0;
      continue;
    }
    bx[m] = xk;
    by[m] = yk;
    m++;
    if (m == CHUNK) {
      plline(m, bx, by);
      bx[0] = bx[m - 1]; /* continue the line from the last point */
      by[0] = by[m - 1];
      m = 1;
    }
  }
  if (m > 1) plline(m, bx, by);
}

/* A filled circular marker at (x, y), scale relative to the default symbol size. */
static void draw_dot(double x, double y, double scale) {
  PLFLT px = x, py = y;
  plssym(0.0, scale);
  plpoin(1, &px, &py, 17);
  plssym(0.0, 1.0);
}

/* The ellipse X^2/a^2 + Y^2/b^2 = 1, filled with the table colour and outlined. */
static void draw_table(double a, double b, double line_width) {
  enum { NP = 361 };
  PLFLT ex[NP], ey[NP];
  for (int i = 0; i < NP; i++) {
    double s = 2.0 * M_PI * i / (NP - 1);
    ex[i] = a * cos(s);
    ey[i] = b * sin(s);
  }
  plcol0(C_TABLE);
  plfill(NP - 1, ex, ey);
  plcol0(C_WALL);
  plwidth(line_width);
  plline(NP, ex, ey);
  plwidth(1.0);
}

typedef struct bounds {
  double xmin, xmax, ymin, ymax;
} bounds;

static void bounds_add(bounds *bd, double x, double y) {
  if (!plottable(x) || !plottable(y)) return;
  if (x < bd->xmin) bd->xmin = x;
  if (x > bd->xmax) bd->xmax = x;
  if (y < bd->ymin) bd->ymin = y;
  if (y > bd->ymax) bd->ymax = y;
}

static void bounds_pad(bounds *bd, double frac) {
  double w = bd->xmax - bd->xmin, h = bd->ymax - bd->ymin;
  double pad = frac * (w > h ? w : h);
  if (!(pad > 0.0)) pad = 1.0;
  bd->xmin -= pad;
  bd->xmax += pad;
  bd->ymin -= pad;
  bd->ymax += pad;
}

static int valid_axes(double a, double b) {
  return plottable(a) && plottable(b) && a > 0.0 && b > 0.0;
}

/* A legend drawn by hand (pllegend's placement outside the viewport is hard to control):
 * the entries flow in rows across the pixel range [x0, x1], each row centred, going down
 * from y_top (pixels from the bottom of the page), in a framed box. Text widths are
 * estimated from the character count (the cairo drivers' sans font at the legend size). */
typedef struct legend_entry {
  int symbol; /* 0: a line sample, 1: a dot */
  int color;
  double width; /* line width or dot scale */
  const char *text;
} legend_entry;

#define LEGEND_ROW_H 30.0
#define LEGEND_PAD 8.0

static double legend_entry_w(const legend_entry *e) {
  return 52.0 + 9.6 * (double)strlen(e->text) + 28.0;
}

/* Number of rows of the legend; row_of[i] (Nullable) receives the row of entry i. */
static int legend_rows(double x0, double x1, int ne, const legend_entry *e, int *row_of) {
  int rows = ne > 0 ? 1 : 0;
  double used = 0.0, avail = x1 - x0 - 2.0 * LEGEND_PAD;
  for (int i = 0; i < ne; i++) {
    double w = legend_entry_w(&e[i]);
    if (used > 0.0 && used + w > avail) {
      rows++;
      used = 0.0;
    }
    used += w;
    if (row_of) row_of[i] = rows - 1;
  }
  return rows;
}

static double legend_height(int rows) { return rows * LEGEND_ROW_H + 2.0 * LEGEND_PAD; }

static void draw_legend(int width, int height, double x0, double x1, double y_top, int ne,
                        const legend_entry *e) {
  enum { MAXE = 16 };
  int row_of[MAXE];
  if (ne <= 0 || ne > MAXE) return;
  int nrow = legend_rows(x0, x1, ne, e, row_of);
  plvpor(0.0, 1.0, 0.0, 1.0);
  plwind(0.0, width, 0.0, height);
  double y_bot = y_top - legend_height(nrow);
  plcol0(C_MUTED);
  plwidth(1.0);
  PLFLT bx[5] = {x0, x1, x1, x0, x0}, by[5] = {y_top, y_top, y_bot, y_bot, y_top};
  plline(5, bx, by);
  plschr(0.0, 0.9);
  for (int r = 0; r < nrow; r++) {
    double roww = 0.0;
    for (int i = 0; i < ne; i++)
      if (row_of[i] == r) roww += legend_entry_w(&e[i]);
    roww -= 28.0; /* no spacing after the last entry */
    double x = 0.5 * (x0 + x1 - roww), y = y_top - LEGEND_PAD - (r + 0.5) * LEGEND_ROW_H;
    for (int i = 0; i < ne; i++) {
      if (row_of[i] != r) continue;
      plcol0(e[i].color);
      if (e[i].symbol) {
        draw_dot(x + 20.0, y, e[i].width);
      } else {
        plwidth(e[i].width);
        pljoin(x, y, x + 40.0, y);
        plwidth(1.0);
      }
      plcol0(C_FG);
      plptex(x + 52.0, y, 1.0, 0.0, 0.0, e[i].text);
      x += legend_entry_w(&e[i]);
    }
  }
  plschr(0.0, 1.0);
}

/* The current viewport in pixels. */
static void viewport_px(int width, int height, double *x0, double *x1, double *y0, double *y1) {
  PLFLT a, b, c, d;
  plgvpd(&a, &b, &c, &d);
  *x0 = a * width;
  *x1 = b * width;
  *y0 = c * height;
  *y1 = d * height;
}

/* The contact point (x, y) and the half-coin (c, s) = R (cos phi, sin phi) at impact k. */
static int impact_coin(const nh_sim *sim, long k, double R, double *x, double *y, double *c,
                       double *s, int *gap) {
  nh_impact_record rec;
  if (nh_sim_impact_get(sim, k, &rec) != NH_OK || !rec.q) return 0;
  *x = rec.q[0];
  *y = rec.q[1];
  *c = R * cos(rec.q[3]);
  *s = R * sin(rec.q[3]);
  *gap = rec.gap;
  return plottable(*x) && plottable(*y) && isfinite(*c) && isfinite(*s);
}

#define MAX_NUMBERED 60

/* ---- axes ------------------------------------------------------------------------------ */

/* A tick spacing of 1, 2 or 5 times a power of ten giving about `target` intervals. */
static double nice_step(double lo, double hi, double target) {
  double raw = (hi - lo) / target;
  if (!(raw > 0.0) || !isfinite(raw)) return 1.0;
  double p = pow(10.0, floor(log10(raw))), m = raw / p;
  return (m < 1.5 ? 1.0 : m < 3.0 ? 2.0 : m < 7.0 ? 5.0 : 10.0) * p;
}

/* A tick label with just the digits the spacing needs (PLplot's own labels move a common
 * factor "(x10^k)" above the axis, where it collides with titles and stacked panels). */
static void tick_label(PLINT axis, PLFLT value, char *label, PLINT length, PLPointer data) {
  const double *step = data;
  double st = axis == PL_X_AXIS ? step[0] : step[1];
  if (length <= 0) return;
  if (fabs(value) < 1e-9 * st) value = 0.0;
  int dec = (int)ceil(-log10(st) - 1e-9);
  if (dec < 0) dec = 0;
  if (dec <= 5 && fabs(value) < 1e6) {
    snprintf(label, (size_t)length, "%.*f", dec, value);
  } else if (value == 0.0) {
    snprintf(label, (size_t)length, "0");
  } else {
    int sig = (int)floor(log10(fabs(value))) - (int)floor(log10(st) + 1e-9) + 1;
    sig = sig < 1 ? 1 : sig > 15 ? 15 : sig;
    snprintf(label, (size_t)length, "%.*g", sig, value);
  }
}

/* plbox over the current window (x0..x1, y0..y1) with about nx, ny intervals; numeric labels
 * ("n" in the options) are written by tick_label. */
static void draw_box(const char *xopt, const char *yopt, double x0, double x1, double y0,
                     double y1, double nx, double ny) {
  double step[2] = {nice_step(x0, x1, nx), nice_step(y0, y1, ny)};
  char xo[32], yo[32];
  snprintf(xo, sizeof xo, "%s%s", xopt, strchr(xopt, 'n') ? "o" : "");
  snprintf(yo, sizeof yo, "%s%s", yopt, strchr(yopt, 'n') ? "o" : "");
  plslabelfunc(tick_label, step);
  plbox(xo, step[0], 0, yo, step[1], 0);
  plslabelfunc(NULL, NULL);
}

/* Length of the longest tick label of [lo, hi] cut into about nint intervals. */
static int tick_chars(double lo, double hi, double nint) {
  double step[2];
  step[0] = step[1] = nice_step(lo, hi, nint);
  char buf[64];
  int maxc = 1;
  double first = ceil(lo / step[1] - 1e-9) * step[1];
  for (int k = 0; k < 100; k++) {
    double v = first + k * step[1];
    if (v > hi + 1e-9 * step[1]) break;
    tick_label(PL_Y_AXIS, v, buf, (PLINT)sizeof buf, step);
    int c = (int)strlen(buf);
    if (c > maxc) maxc = c;
  }
  return maxc;
}

/* The number of intervals (at most `want`) whose tick labels, at character scale `scale`,
 * fit side by side in avail_px. */
static double fit_intervals(double lo, double hi, double want, double avail_px, double scale) {
  double target = want;
  for (; target > 2.0; target -= 1.0) {
    double step = nice_step(lo, hi, target);
    double nticks = floor((hi - lo) / step) + 1.0;
    double label_px = tick_chars(lo, hi, target) * CHAR_W * scale * CHAR_H_PX + 14.0;
    if (nticks * label_px <= avail_px) break;
  }
  return target;
}

/* Number of glyphs of a PLplot string ("#gh" and "##" are one glyph, "#d"/"#u" none). */
static int visible_len(const char *s) {
  int n = 0;
  while (*s) {
    if (s[0] == '#' && s[1]) {
      if (s[1] == 'g' && s[2]) {
        n++;
        s += 3;
      } else if (s[1] == '#') {
        n++;
        s += 2;
      } else {
        s += 2;
      }
      continue;
    }
    if (((unsigned char)*s & 0xC0) != 0x80) n++; /* count UTF-8 lead bytes only */
    s++;
  }
  return n;
}

/* ---- plan view of a penny run -------------------------------------------------------- */

int nh_plot_penny(const char *path, double a, double b, double R, const nh_traj *traj,
                  const nh_sim *sim, const char *title, char *msg, size_t msg_size) {
  if (!device_for(path, msg, msg_size)) return NH_ERR_ARG;
  if (!valid_axes(a, b) || !plottable(R) || R < 0.0) {
    nh_set_msg(msg, msg_size, "nh_plot_penny: need a > 0, b > 0 and R >= 0 (got %g, %g, %g)", a,
            b, R);
    return NH_ERR_ARG;
  }
  if (traj && (traj->nq < 2 || traj->n < 0 || (traj->n > 0 && (!traj->t || !traj->q)))) {
    nh_set_msg(msg, msg_size, "nh_plot_penny: the trajectory needs the coordinates x and y");
    return NH_ERR_ARG;
  }
  long nimp = sim ? nh_sim_impact_count(sim) : 0;
  const nh_model *model = sim ? nh_sim_model(sim) : NULL;
  if (nimp > 0 && (!model || model->nq < 4)) nimp = 0; /* no heading to draw the coin */

  /* bounds: the table, the path and the coin at every impact */
  bounds bd = {-a, a, -b, b};
  long n = traj ? traj->n : 0;
  for (long k = 0; k < n; k++)
    bounds_add(&bd, traj->q[k * traj->nq], traj->q[k * traj->nq + 1]);
  for (long k = 0; k < nimp; k++) {
    nh_impact_record rec;
    if (nh_sim_impact_get(sim, k, &rec) != NH_OK || !rec.q) continue;
    double c = R * cos(rec.q[3]), s = R * sin(rec.q[3]);
    bounds_add(&bd, rec.q[0] + c, rec.q[1] + s);
    bounds_add(&bd, rec.q[0] - c, rec.q[1] - s);
  }
  bounds_pad(&bd, nimp > 0 && nimp <= MAX_NUMBERED ? 0.12 : 0.05);
  double aspect = (bd.ymax - bd.ymin) / (bd.xmax - bd.xmin);
  double shown = aspect < 0.3 ? 0.3 : aspect > 3.0 ? 3.0 : aspect;
  legend_entry le[5] = {{0, C_WALL, 3.0, "wall"},
                        {0, C_PATH, 2.0, "path of the contact point"},
                        {1, C_START, 1.2, "start"},
                        {0, C_COIN, 3.0, "coin at an impact"},
                        {1, C_IMPACT, 1.0, "impact point on the wall"}};
  int ne = nimp > 0 ? 5 : 3;
  int width = 800;
  double leg_x0 = 0.11 * width, leg_x1 = 0.95 * width;
  double foot = 72.0 + legend_height(legend_rows(leg_x0, leg_x1, ne, le, NULL)) + 24.0;
  int height = (int)(620.0 * shown + 90.0 + foot);

  figure fig;
  int st = figure_begin(&fig, path, width, height, msg, msg_size);
  if (st != NH_OK) return st;

  /* viewport with equal scales, leaving room for the title above and the legend below */
  double bottom = foot / height, top = 1.0 - 90.0 / height;
  double ylab = 0.8 + CHAR_W * tick_chars(bd.ymin, bd.ymax, 5.0) + 1.0;
  double left = (ylab + 1.0) * CHAR_H_PX / width;
  plvpas(left > 0.11 ? left : 0.11, 0.95, bottom, top, aspect);
  plwind(bd.xmin, bd.xmax, bd.ymin, bd.ymax);
  double vx0, vx1, vy0, vy1;
  viewport_px(width, height, &vx0, &vx1, &vy0, &vy1);
  (void)vy1;

  draw_table(a, b, 3.0);

  /* the path of the contact point */
  if (n > 0) {
    plcol0(C_PATH);
    plwidth(1.6);
    draw_line(n, traj->q, traj->nq, traj->q + 1, traj->nq);
    plwidth(1.0);
  }

  /* the coin at each impact, then the points of the wall it hit, then their numbers */
  for (int pass = 0; pass < 2; pass++) {
    for (long k = 0; k < nimp; k++) {
      double x, y, c, s;
      int gap;
      if (!impact_coin(sim, k, R, &x, &y, &c, &s, &gap)) continue;
      if (pass == 0) {
        plcol0(C_COIN);
        plwidth(3.0);
        pljoin(x - c, y - s, x + c, y + s);
        plwidth(1.0);
      } else if (gap == 0 || gap == 1) {
        plcol0(C_IMPACT);
        draw_dot(gap == 0 ? x + c : x - c, gap == 0 ? y + s : y - s, 1.0);
      }
    }
  }
  if (nimp > 0 && nimp <= MAX_NUMBERED) {
    /* just outside the wall, moved further out when they would overlap */
    double placed[MAX_NUMBERED][2];
    int np = 0;
    double upx = (bd.xmax - bd.xmin) / (vx1 - vx0); /* world units per pixel (equal scales) */
    plcol0(C_MUTED);
    plschr(0.0, 0.7);
    for (long k = 0; k < nimp; k++) {
      double x, y, c, s;
      int gap;
      if (!impact_coin(sim, k, R, &x, &y, &c, &s, &gap) || (gap != 0 && gap != 1)) continue;
      double px = gap == 0 ? x + c : x - c, py = gap == 0 ? y + s : y - s;
      double nx = px / (a * a), ny = py / (b * b), nn = hypot(nx, ny);
      if (!(nn > 0.0)) continue;
      nx /= nn;
      ny /= nn;
      for (int level = 0; level < 3; level++) {
        double off = 13.0 + 15.0 * level; /* pixels */
        double lx = (px - bd.xmin) / upx + off * nx, ly = (py - bd.ymin) / upx + off * ny;
        int clash = 0;
        for (int j = 0; j < np && !clash; j++)
          clash = fabs(lx - placed[j][0]) < 20.0 && fabs(ly - placed[j][1]) < 14.0;
        if (clash) continue;
        placed[np][0] = lx;
        placed[np][1] = ly;
        np++;
        char num[24];
        snprintf(num, sizeof num, "%ld", k + 1);
        plptex(bd.xmin + lx * upx, bd.ymin + ly * upx, 1.0, 0.0, 0.5, num);
        break;
      }
    }
    plschr(0.0, 1.0);
  }

  /* the start */
  if (n > 0) {
    plcol0(C_START);
    draw_dot(traj->q[0], traj->q[1], 1.2);
  }

  /* axes */
  plcol0(C_FG);
  plwidth(1.0);
  draw_box("bcnst", "bcnstv", bd.xmin, bd.xmax, bd.ymin, bd.ymax,
           fit_intervals(bd.xmin, bd.xmax, 5.0, vx1 - vx0, 1.0), 5.0);
  plmtex("b", 3.2, 0.5, 0.5, "x (m)");
  plmtex("l", ylab, 0.5, 0.5, "y (m)");

  /* title and caption */
  char text[512], tbuf[400];
  pl_text(tbuf, sizeof tbuf, title ? title : "Penny on the table: plan view");
  plschr(0.0, 1.3);
  plmtex("t", 2.6, 0.5, 0.5, tbuf);
  plschr(0.0, 0.9);
  plcol0(C_MUTED);
  if (sim)
    snprintf(text, sizeof text, "table a = %g m, b = %g m;  coin radius R = %g m;  %ld impact%s",
             a, b, R, nh_sim_impact_count(sim), nh_sim_impact_count(sim) == 1 ? "" : "s");
  else
    snprintf(text, sizeof text, "table a = %g m, b = %g m;  coin radius R = %g m", a, b, R);
  plmtex("t", 1.0, 0.5, 0.5, text);
  plschr(0.0, 1.0);

  /* legend below the axes */
  draw_legend(width, height, vx0 < leg_x0 ? vx0 : leg_x0, vx1 > leg_x1 ? vx1 : leg_x1,
              vy0 - 72.0, ne, le);
  return figure_end(&fig, msg, msg_size);
}

/* ---- ensembles of pennies ------------------------------------------------------------ */

int nh_plot_penny_ensemble(const char *path, double a, double b, int npanels, int n,
                           const double *x, const double *y, const char *const *panel_titles,
                           const char *title, char *msg, size_t msg_size) {
  if (!device_for(path, msg, msg_size)) return NH_ERR_ARG;
  if (!valid_axes(a, b) || npanels < 1 || npanels > 64 || n < 0 || (n > 0 && (!x || !y))) {
    nh_set_msg(msg, msg_size,
            "nh_plot_penny_ensemble: need a, b > 0, 1 <= npanels <= 64, n >= 0 and the points");
    return NH_ERR_ARG;
  }
  int cols = (int)ceil(sqrt((double)npanels));
  int rows = (npanels + cols - 1) / cols;

  /* one window for every panel: the table and all the points */
  bounds bd = {-a, a, -b, b};
  for (long k = 0; k < (long)npanels * n; k++) bounds_add(&bd, x[k], y[k]);
  bounds_pad(&bd, 0.06);
  double aspect = (bd.ymax - bd.ymin) / (bd.xmax - bd.xmin);
  double shown = aspect < 0.3 ? 0.3 : aspect > 3.0 ? 3.0 : aspect;

  double cell_w = cols <= 2 ? 440.0 : 340.0;
  double cell_h = cell_w * 0.82 * shown + 90.0;
  double head = title ? 70.0 : 24.0;
  int width = (int)(cols * cell_w + 40.0);
  int height = (int)(rows * cell_h + head + 20.0);

  figure fig;
  int st = figure_begin(&fig, path, width, height, msg, msg_size);
  if (st != NH_OK) return st;

  double chr = cols <= 2 ? 0.9 : 0.75;
  char tbuf[400];
  for (int p = 0; p < npanels; p++) {
    int r = p / cols, c = p % cols;
    double x0 = (20.0 + c * cell_w) / width, x1 = (20.0 + (c + 1) * cell_w) / width;
    double y1 = 1.0 - (head + r * cell_h) / height, y0 = 1.0 - (head + (r + 1) * cell_h) / height;
    /* leave room for tick labels (left, bottom) and the panel title (top) */
    plvpas(x0 + 75.0 / width, x1 - 15.0 / width, y0 + 45.0 / height, y1 - 40.0 / height, aspect);
    plwind(bd.xmin, bd.xmax, bd.ymin, bd.ymax);
    draw_table(a, b, 2.0);

    plcol0(C_PATH);
    for (int k = 0; k < n; k++) {
      double xk = x[(size_t)p * (size_t)n + (size_t)k], yk = y[(size_t)p * (size_t)n + (size_t)k];
      if (plottable(xk) && plottable(yk)) draw_dot(xk, yk, n > 2000 ? 0.35 : n > 200 ? 0.5 : 0.8);
    }

    plcol0(C_FG);
    plschr(0.0, chr);
    double pvx0, pvx1, pvy0, pvy1;
    viewport_px(width, height, &pvx0, &pvx1, &pvy0, &pvy1);
    draw_box("bcnst", "bcnstv", bd.xmin, bd.xmax, bd.ymin, bd.ymax,
             fit_intervals(bd.xmin, bd.xmax, 4.0, pvx1 - pvx0, chr), 4.0);
    if (panel_titles && panel_titles[p]) {
      pl_text(tbuf, sizeof tbuf, panel_titles[p]);
      plschr(0.0, chr * 1.05);
      plmtex("t", 1.0, 0.5, 0.5, tbuf);
    }
    plschr(0.0, 1.0);
  }

  if (title) {
    plvpor(0.0, 1.0, 0.0, 1.0);
    plwind(0.0, 1.0, 0.0, 1.0);
    plcol0(C_FG);
    plschr(0.0, 1.3);
    pl_text(tbuf, sizeof tbuf, title);
    plptex(0.5, 1.0 - 38.0 / height, 1.0, 0.0, 0.5, tbuf);
    plschr(0.0, 1.0);
  }
  return figure_end(&fig, msg, msg_size);
}

/* ---- time series ---------------------------------------------------------------------- */

/* Range of the plottable values v[k*stride], padded; a flat series gets a span of at least
 * rel_min_span times its magnitude, so that round-off does not fill the panel. */
static void series_range(long n, const double *v, long stride, double rel_min_span, double *lo,
                         double *hi) {
  double mn = DBL_MAX, mx = -DBL_MAX;
  for (long k = 0; k < n; k++) {
    double z = v[k * stride];
    if (!plottable(z)) continue;
    if (z < mn) mn = z;
    if (z > mx) mx = z;
  }
  if (mn > mx) {
    *lo = -1.0;
    *hi = 1.0;
    return;
  }
  if (mn == 0.0 && mx == 0.0) {
    *lo = -1.0;
    *hi = 1.0;
    return;
  }
  double span = mx - mn;
  *lo = mn - 0.06 * span;
  *hi = mx + 0.06 * span;
  widen(lo, hi, rel_min_span);
}

int nh_plot_timeseries(const char *path, const nh_model *model, const nh_traj *traj,
                       const nh_sim *sim, const char *title, char *msg, size_t msg_size) {
  if (!device_for(path, msg, msg_size)) return NH_ERR_ARG;
  if (!model || !traj) {
    nh_set_msg(msg, msg_size, "nh_plot_timeseries: %s is NULL", model ? "trajectory" : "model");
    return NH_ERR_ARG;
  }
  if (traj->nq != model->nq || traj->n < 0 ||
      (traj->n > 0 && (!traj->t || !traj->q || !traj->v))) {
    nh_set_msg(msg, msg_size,
            "nh_plot_timeseries: the trajectory (%d coordinates) does not fit the model '%s' "
            "(%d)",
            traj->nq, model->name, model->nq);
    return NH_ERR_ARG;
  }
  int nq = model->nq, npanel = nq + 1;
  long n = traj->n;
  if (nq > 24) {
    nh_set_msg(msg, msg_size, "nh_plot_timeseries: too many coordinates to plot (%d > 24)", nq);
    return NH_ERR_ARG;
  }

  /* the energy of every sample (NaN where it cannot be evaluated) */
  double *E = malloc((size_t)(n > 0 ? n : 1) * sizeof *E);
  if (!E) {
    nh_set_msg(msg, msg_size, "nh_plot_timeseries: out of memory");
    return NH_ERR_NOMEM;
  }
  double e_ref = NAN, e_dev = 0.0;
  for (long k = 0; k < n; k++) {
    double e;
    if (nh_model_energy(model, traj->q + k * nq, traj->v + k * nq, &e) != NH_OK || !isfinite(e))
      e = NAN;
    E[k] = e;
    if (isfinite(e)) {
      if (!isfinite(e_ref)) e_ref = e;
      double d = fabs(e - e_ref);
      if (d > e_dev) e_dev = d;
    }
  }

  double t0 = 0.0, t1 = 1.0;
  {
    double mn = DBL_MAX, mx = -DBL_MAX;
    for (long k = 0; k < n; k++)
      if (plottable(traj->t[k])) {
        if (traj->t[k] < mn) mn = traj->t[k];
        if (traj->t[k] > mx) mx = traj->t[k];
      }
    if (mn < mx) {
      t0 = mn;
      t1 = mx;
    } else if (mn == mx) {
      t0 = mn - 0.5;
      t1 = mn + 0.5;
    }
    widen(&t0, &t1, 1e-12);
  }
  long nimp = sim ? nh_sim_impact_count(sim) : 0;

  double panel_h = nq <= 3 ? 170.0 : nq <= 8 ? 150.0 : 110.0;
  double head = 80.0, foot = 110.0;
  int width = 900;
  int height = (int)(head + foot + npanel * panel_h);

  figure fig;
  int st = figure_begin(&fig, path, width, height, msg, msg_size);
  if (st != NH_OK) {
    free(E);
    return st;
  }

  /* ranges and labels of the panels, and the left margin they need */
  double lo[25], hi[25];
  char labels[25][128];
  double tick_w = 0.0, label_w = 0.0;
  const double tick_scale = 0.95, label_scale = 1.25;
  for (int i = 0; i < npanel; i++) {
    int last = i == npanel - 1;
    series_range(n, last || n == 0 ? E : traj->q + i, last ? 1 : nq, last ? 0.02 : 1e-7, &lo[i],
                 &hi[i]);
    double tw = tick_scale * CHAR_W * tick_chars(lo[i], hi[i], 4.0);
    if (tw > tick_w) tick_w = tw;
    if (last)
      snprintf(labels[i], sizeof labels[i], "E");
    else
      coord_label(labels[i], sizeof labels[i], model->coord_names ? model->coord_names[i] : NULL,
                  i);
    int len = visible_len(labels[i]);
    double lw = len <= 5 ? label_scale * CHAR_W * len : label_scale; /* long ones are turned */
    if (lw > label_w) label_w = lw;
  }
  double xl_px = CHAR_H_PX * (tick_w + 1.9 + label_w) + 14.0;
  if (xl_px > 0.35 * width) xl_px = 0.35 * width;
  double xl = xl_px / width, xr = 1.0 - 30.0 / width, gap = 18.0 / height;
  double tint = fit_intervals(t0, t1, 8.0, (xr - xl) * width, tick_scale);
  for (int i = 0; i < npanel; i++) {
    double y1 = 1.0 - (head + i * panel_h) / height;
    double y0 = 1.0 - (head + (i + 1) * panel_h) / height + gap;
    int last = i == npanel - 1;
    const double *v = last || n == 0 ? E : traj->q + i; /* (E: not read when n = 0) */
    long stride = last ? 1 : nq;
    double lo_i = lo[i], hi_i = hi[i];

    plvpor(xl, xr, y0, y1);
    plwind(t0, t1, lo_i, hi_i);
    plschr(0.0, tick_scale);

    /* grid, then impact times, then the curve, then the frame */
    plcol0(C_GRID);
    draw_box("g", "g", t0, t1, lo_i, hi_i, tint, 4.0);
    if (nimp > 0) {
      plcol0(C_EVENT);
      pllsty(2);
      for (long k = 0; k < nimp; k++) {
        nh_impact_record rec;
        if (nh_sim_impact_get(sim, k, &rec) != NH_OK || !isfinite(rec.t)) continue;
        if (rec.t < t0 || rec.t > t1) continue;
        pljoin(rec.t, lo_i, rec.t, hi_i);
      }
      pllsty(1);
    }
    plcol0(last ? C_FG : series_colors[i % (int)(sizeof series_colors / sizeof series_colors[0])]);
    plwidth(1.8);
    draw_line(n, traj->t, 1, v, stride);
    plwidth(1.0);

    plcol0(C_FG);
    draw_box(last ? "bcnst" : "bcst", "bcnstv", t0, t1, lo_i, hi_i, tint, 4.0);

    /* the label, right of the tick labels: short ones horizontal, long ones turned */
    plcol0(C_FG);
    plschr(0.0, label_scale);
    double disp = (tick_w + 1.6) / label_scale;
    if (visible_len(labels[i]) <= 5)
      plmtex("lv", disp, 0.5, 1.0, labels[i]);
    else
      plmtex("l", disp + 0.6, 0.5, 0.5, labels[i]);
    plschr(0.0, 1.0);
    if (last) {
      plmtex("b", 3.3, 0.5, 0.5, "t (s)");
      if (isfinite(e_ref)) {
        char cap[160];
        if (e_ref != 0.0)
          snprintf(cap, sizeof cap, "max |E - E#d0#u| / |E#d0#u| = %.2e", e_dev / fabs(e_ref));
        else
          snprintf(cap, sizeof cap, "max |E - E#d0#u| = %.2e", e_dev);
        plcol0(C_MUTED);
        plschr(0.0, 0.8);
        plmtex("t", -1.5, 0.98, 1.0, cap);
        plschr(0.0, 1.0);
      }
    }
  }

  /* title and caption */
  {
    char tbuf[400], cap[200];
    plvpor(0.0, 1.0, 0.0, 1.0);
    plwind(0.0, 1.0, 0.0, 1.0);
    plcol0(C_FG);
    plschr(0.0, 1.3);
    if (title)
      pl_text(tbuf, sizeof tbuf, title);
    else {
      char mname[2 * NH_MAX_NAME + 2];
      pl_text(mname, sizeof mname, model->name);
      snprintf(tbuf, sizeof tbuf, "%s: coordinates and energy", mname[0] ? mname : "model");
    }
    plptex(0.5, 1.0 - 45.0 / height, 1.0, 0.0, 0.5, tbuf);
    plschr(0.0, 0.85);
    plcol0(C_MUTED);
    if (sim)
      snprintf(cap, sizeof cap, "%ld samples;  dashed lines: the %ld impact%s", n, nimp,
               nimp == 1 ? "" : "s");
    else
      snprintf(cap, sizeof cap, "%ld samples", n);
    plptex(0.5, 30.0 / height, 1.0, 0.0, 0.5, cap);
    plschr(0.0, 1.0);
  }
  free(E);
  return figure_end(&fig, msg, msg_size);
}

/* ---- a grid of panels of curves ------------------------------------------------------------ */

int nh_plot_panels(const char *path, int nrows, int ncols, int npanels, const nh_plot_panel *panels,
                   const char *title, char *msg, size_t msg_size) {
  if (!path || !panels || nrows < 1 || ncols < 1 || npanels < 1 || npanels > nrows * ncols) {
    nh_set_msg(msg, msg_size, "plot: bad panel layout");
    return NH_ERR_ARG;
  }
  const double panel_w = 560.0, panel_h = 430.0, head = 70.0;
  const int width = (int)(ncols * panel_w), height = (int)(head + nrows * panel_h);
  figure fig;
  int st = figure_begin(&fig, path, width, height, msg, msg_size);
  if (st != NH_OK) return st;
  const int ncol_series = (int)(sizeof series_colors / sizeof series_colors[0]);
  for (int p = 0; p < npanels; p++) {
    const nh_plot_panel *pn = &panels[p];
    const int row = p / ncols, col = p % ncols;
    // the panel's viewport in page fractions (margins for tick labels and axis labels)
    double px0 = col * panel_w + 95.0, px1 = (col + 1) * panel_w - 25.0;
    double py1 = head + row * panel_h + 40.0, py0 = head + (row + 1) * panel_h - 70.0;
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int c = 0; c < pn->ncurves; c++)
      for (long k = 0; k < pn->curves[c].n; k++) {
        double x = pn->curves[c].x[k], y = pn->curves[c].y[k];
        if (!plottable(x) || !plottable(y)) continue;
        x0 = fmin(x0, x), x1 = fmax(x1, x), y0 = fmin(y0, y), y1 = fmax(y1, y);
      }
    if (plottable(pn->hline)) y0 = fmin(y0, pn->hline), y1 = fmax(y1, pn->hline);
    if (!(x0 <= x1)) x0 = 0.0, x1 = 1.0;
    if (!(y0 <= y1)) y0 = 0.0, y1 = 1.0;
    widen(&x0, &x1, 1e-9);
    widen(&y0, &y1, 1e-9);
    double mx = 0.04 * (x1 - x0), my = 0.06 * (y1 - y0);
    x0 -= mx, x1 += mx, y0 -= my, y1 += my;
    if (pn->equal_aspect) { /* stretch the shorter range to the viewport's aspect */
      double vw = px1 - px0, vh = py0 - py1, sx = (x1 - x0) / vw, sy = (y1 - y0) / vh;
      if (sx > sy) {
        double c = 0.5 * (y0 + y1);
        y0 = c - 0.5 * sx * vh, y1 = c + 0.5 * sx * vh;
      } else {
        double c = 0.5 * (x0 + x1);
        x0 = c - 0.5 * sy * vw, x1 = c + 0.5 * sy * vw;
      }
    }
    plvpor(px0 / width, px1 / width, 1.0 - py0 / height, 1.0 - py1 / height);
    plwind(x0, x1, y0, y1);
    plschr(0.0, 0.9);
    plcol0(C_GRID);
    draw_box("g", "g", x0, x1, y0, y1, 5.0, 5.0);
    if (plottable(pn->hline)) {
      plcol0(C_MUTED);
      pllsty(2);
      pljoin(x0, pn->hline, x1, pn->hline);
      pllsty(1);
    }
    for (int c = 0; c < pn->ncurves; c++) {
      const nh_plot_curve *cv = &pn->curves[c];
      plcol0(series_colors[c % ncol_series]);
      if (cv->style == 1) {
        for (long k = 0; k < cv->n; k++)
          if (plottable(cv->x[k]) && plottable(cv->y[k])) draw_dot(cv->x[k], cv->y[k], 0.5);
        continue;
      }
      if (cv->style == 2) pllsty(2);
      plwidth(1.6);
      draw_line(cv->n, cv->x, 1, cv->y, 1);
      plwidth(1.0);
      pllsty(1);
    }
    plcol0(C_FG);
    draw_box("bcnst", "bcnstv", x0, x1, y0, y1, 5.0, 5.0);
    char buf[256];
    plschr(0.0, 1.05);
    if (pn->xlabel) plmtex("b", 2.8, 0.5, 0.5, pn->xlabel);
    if (pn->ylabel) plmtex("l", 4.6, 0.5, 0.5, pn->ylabel);
    if (pn->title) {
      pl_text(buf, sizeof buf, pn->title);
      plmtex("t", 1.2, 0.5, 0.5, buf);
    }
    // legend: labels in the curves' colours, top left inside the frame
    plschr(0.0, 0.8);
    int line = 0;
    for (int c = 0; c < pn->ncurves; c++) {
      if (!pn->curves[c].label) continue;
      pl_text(buf, sizeof buf, pn->curves[c].label);
      plcol0(series_colors[c % ncol_series]);
      plmtex("t", -1.5 - 1.3 * line++, 0.02, 0.0, buf);
    }
    plschr(0.0, 1.0);
  }
  if (title) {
    char tbuf[400];
    plvpor(0.0, 1.0, 0.0, 1.0);
    plwind(0.0, 1.0, 0.0, 1.0);
    plcol0(C_FG);
    /* a long title shrinks to the page width (about 14.5 px per character at size 1.3) */
    double fit = 0.95 * width / (14.5 * (double)strlen(title));
    plschr(0.0, 1.3 * (fit < 1.0 ? fit : 1.0));
    pl_text(tbuf, sizeof tbuf, title);
    plptex(0.5, 1.0 - 40.0 / height, 1.0, 0.0, 0.5, tbuf);
    plschr(0.0, 1.0);
  }
  return figure_end(&fig, msg, msg_size);
}
