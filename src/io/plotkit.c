/* plotkit.c - the drawing kit of the figures (private to io and the papers' figures):
 * PLplot streams written atomically, a palette, axes with tick labels that fit, polylines
 * that break at non-finite points, markers, an outlined ellipse, a hand-made legend. It
 * knows no model: the figures of particular systems are drawn by their callers.
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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/msg.h"
#include "io/plotkit.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
/* ---- palette (cmap0 indices) --------------------------------------------------------- */


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
const int nh_pk_series_colors[NH_PK_NSERIES] = {C_BLUE, C_ORANGE, C_GREEN, C_PURPLE, C_BROWN, C_TEAL, C_PINK, C_OLIVE};

/* ---- messages and text --------------------------------------------------------------- */

/* Copy user text for PLplot: '#' is PLplot's escape character, so double it. */
void nh_pk_text(char *dst, size_t size, const char *src) {
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

/* ---- figure lifetime ----------------------------------------------------------------- */


static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  if (n < m) return 0;
  for (size_t i = 0; i < m; i++)
    if (tolower((unsigned char)s[n - m + i]) != tolower((unsigned char)suffix[i])) return 0;
  return 1;
}

/* The cairo device for path, or NULL with a message. */
const char *nh_pk_device_for(const char *path, char *msg, size_t msg_size) {
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
int nh_pk_begin(nh_pk_figure *fig, const char *path, int width, int height, char *msg,
                        size_t msg_size) {
  fig->open = 0;
  const char *dev = nh_pk_device_for(path, msg, msg_size);
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
int nh_pk_end(nh_pk_figure *fig, char *msg, size_t msg_size) {
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
int nh_pk_plottable(double z) { return isfinite(z) && fabs(z) <= PLOT_MAX; }

/* Make [lo, hi] at least rel * max(|lo|, |hi|) wide (and not empty), so that tick steps stay
 * far above the spacing of doubles near the ends. */
void nh_pk_widen(double *lo, double *hi, double rel) {
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
void nh_pk_line(long n, const double *x, long xs, const double *y, long ys) {
  enum { CHUNK = 4096 };
  PLFLT bx[CHUNK], by[CHUNK];
  int m = 0;
  for (long k = 0; k < n; k++) {
    double xk = x[k * xs], yk = y[k * ys];
    if (!nh_pk_plottable(xk) || !nh_pk_plottable(yk)) {
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
void nh_pk_dot(double x, double y, double scale) {
  PLFLT px = x, py = y;
  plssym(0.0, scale);
  plpoin(1, &px, &py, 17);
  plssym(0.0, 1.0);
}

/* The ellipse X^2/a^2 + Y^2/b^2 = 1, filled (cream) and outlined (slate). */
void nh_pk_ellipse(double a, double b, double line_width) {
  enum { NP = 361 };
  PLFLT ex[NP], ey[NP];
  for (int i = 0; i < NP; i++) {
    double s = 2.0 * M_PI * i / (NP - 1);
    ex[i] = a * cos(s);
    ey[i] = b * sin(s);
  }
  plcol0(C_CREAM);
  plfill(NP - 1, ex, ey);
  plcol0(C_SLATE);
  plwidth(line_width);
  plline(NP, ex, ey);
  plwidth(1.0);
}


void nh_pk_bounds_add(nh_pk_bounds *bd, double x, double y) {
  if (!nh_pk_plottable(x) || !nh_pk_plottable(y)) return;
  if (x < bd->xmin) bd->xmin = x;
  if (x > bd->xmax) bd->xmax = x;
  if (y < bd->ymin) bd->ymin = y;
  if (y > bd->ymax) bd->ymax = y;
}

void nh_pk_bounds_pad(nh_pk_bounds *bd, double frac) {
  double w = bd->xmax - bd->xmin, h = bd->ymax - bd->ymin;
  double pad = frac * (w > h ? w : h);
  if (!(pad > 0.0)) pad = 1.0;
  bd->xmin -= pad;
  bd->xmax += pad;
  bd->ymin -= pad;
  bd->ymax += pad;
}


#define LEGEND_ROW_H 30.0
#define LEGEND_PAD 8.0

static double legend_entry_w(const nh_pk_legend_entry *e) {
  return 52.0 + 9.6 * (double)strlen(e->text) + 28.0;
}

/* Number of rows of the legend; row_of[i] (Nullable) receives the row of entry i. */
int nh_pk_legend_rows(double x0, double x1, int ne, const nh_pk_legend_entry *e, int *row_of) {
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

double nh_pk_legend_height(int rows) { return rows * LEGEND_ROW_H + 2.0 * LEGEND_PAD; }

void nh_pk_legend(int width, int height, double x0, double x1, double y_top, int ne,
                        const nh_pk_legend_entry *e) {
  enum { MAXE = 16 };
  int row_of[MAXE];
  if (ne <= 0 || ne > MAXE) return;
  int nrow = nh_pk_legend_rows(x0, x1, ne, e, row_of);
  plvpor(0.0, 1.0, 0.0, 1.0);
  plwind(0.0, width, 0.0, height);
  double y_bot = y_top - nh_pk_legend_height(nrow);
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
        nh_pk_dot(x + 20.0, y, e[i].width);
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
void nh_pk_viewport_px(int width, int height, double *x0, double *x1, double *y0, double *y1) {
  PLFLT a, b, c, d;
  plgvpd(&a, &b, &c, &d);
  *x0 = a * width;
  *x1 = b * width;
  *y0 = c * height;
  *y1 = d * height;
}

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
void nh_pk_box(const char *xopt, const char *yopt, double x0, double x1, double y0,
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
int nh_pk_tick_chars(double lo, double hi, double nint) {
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
double nh_pk_fit_intervals(double lo, double hi, double want, double avail_px, double scale) {
  double target = want;
  for (; target > 2.0; target -= 1.0) {
    double step = nice_step(lo, hi, target);
    double nticks = floor((hi - lo) / step) + 1.0;
    double label_px = nh_pk_tick_chars(lo, hi, target) * CHAR_W * scale * CHAR_H_PX + 14.0;
    if (nticks * label_px <= avail_px) break;
  }
  return target;
}

/* Number of glyphs of a PLplot string ("#gh" and "##" are one glyph, "#d"/"#u" none). */
int nh_pk_visible_len(const char *s) {
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
