/* plot.c - the generic plots of io: a run's time series and grids of panels of curves, with
 * PLplot's cairo drivers (pngcairo, svgcairo, pdfcairo) through the drawing kit (plotkit.c). */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "base/msg.h"
#include "io/plotkit.h"
#include "io/run_energy.h"
#include "nholo/io.h"


/* A name as a label: a Greek letter name becomes the letter, anything else is copied. */
static void name_label(char *dst, size_t size, const char *name) {
  static const char *const greek[][2] = {
      {"alpha", "#ga"}, {"beta", "#gb"},   {"gamma", "#gg"},   {"delta", "#gd"},
      {"epsilon", "#ge"}, {"zeta", "#gz"}, {"eta", "#gy"},     {"theta", "#gh"},
      {"iota", "#gi"},  {"kappa", "#gk"},  {"lambda", "#gl"},  {"mu", "#gm"},
      {"nu", "#gn"},    {"xi", "#gc"},     {"omicron", "#go"}, {"pi", "#gp"},
      {"rho", "#gr"},   {"sigma", "#gs"},  {"tau", "#gt"},     {"upsilon", "#gu"},
      {"phi", "#gf"},   {"chi", "#gx"},    {"psi", "#gq"},     {"omega", "#gw"}};
  for (size_t k = 0; k < sizeof greek / sizeof greek[0]; k++) {
    if (strcmp(name, greek[k][0]) == 0) {
      snprintf(dst, size, "%s", greek[k][1]);
      return;
    }
  }
  nh_pk_text(dst, size, name);
}

/* A coordinate name as a label: Greek letter names become the letter, and what follows the
 * first '_' a subscript ("x_s", "theta_1"). */
static void coord_label(char *dst, size_t size, const char *name, int i) {
  if (!name) {
    snprintf(dst, size, "q#d%d#u", i + 1);
    return;
  }
  const char *us = strchr(name, '_');
  if (!us || us == name || !us[1]) {
    name_label(dst, size, name);
    return;
  }
  char base[NH_MAX_NAME], sb[2 * NH_MAX_NAME], sub[2 * NH_MAX_NAME];
  snprintf(base, sizeof base, "%.*s", (int)(us - name), name);
  name_label(sb, sizeof sb, base);
  name_label(sub, sizeof sub, us + 1);
  snprintf(dst, size, "%s", sb);
  size_t len = strlen(dst);
  if (len + 4 + strlen(sub) < size) {
    memcpy(dst + len, "#d", 2);
    memcpy(dst + len + 2, sub, strlen(sub));
    memcpy(dst + len + 2 + strlen(sub), "#u", 3);
  }
}

/* ---- time series ---------------------------------------------------------------------- */

/* Range of the nh_pk_plottable values v[k*stride], padded; a flat series gets a span of at least
 * rel_min_span times its magnitude, so that round-off does not fill the panel. */
static void series_range(long n, const double *v, long stride, double rel_min_span, double *lo,
                         double *hi) {
  double mn = DBL_MAX, mx = -DBL_MAX;
  for (long k = 0; k < n; k++) {
    double z = v[k * stride];
    if (!nh_pk_plottable(z)) continue;
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
  nh_pk_widen(lo, hi, rel_min_span);
}

/* The time axis of a trajectory: its plottable times, at least 1e-12 relative wide. */
static void time_range(const nh_traj *traj, double *t0_out, double *t1_out) {
  double t0 = 0.0, t1 = 1.0;
  double mn = DBL_MAX, mx = -DBL_MAX;
  for (long k = 0; k < traj->n; k++)
    if (nh_pk_plottable(traj->t[k])) {
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
  nh_pk_widen(&t0, &t1, 1e-12);
  *t0_out = t0, *t1_out = t1;
}

/* The time series' title, and below the panels the energy error and the sample count. */
static void draw_ts_captions(const nh_model *model, const char *title, int height, long n, long nimp,
                             double e_ref, double e_dev) {
  char tbuf[400], cap[200];
  plvpor(0.0, 1.0, 0.0, 1.0);
  plwind(0.0, 1.0, 0.0, 1.0);
  plcol0(C_FG);
  plschr(0.0, 1.3);
  if (title)
    nh_pk_text(tbuf, sizeof tbuf, title);
  else {
    char mname[2 * NH_MAX_NAME + 2];
    nh_pk_text(mname, sizeof mname, model->name);
    snprintf(tbuf, sizeof tbuf, "%s: coordinates and energy", mname[0] ? mname : "model");
  }
  plptex(0.5, 1.0 - 45.0 / height, 1.0, 0.0, 0.5, tbuf);
  plschr(0.0, 0.85);
  plcol0(C_MUTED);
  if (nimp > 0)
    snprintf(cap, sizeof cap, "%ld samples;  dashed lines: the %ld impact%s (#gDE#dimpacts#u from their log)",
             n, nimp, nimp == 1 ? "" : "s");
  else
    snprintf(cap, sizeof cap, "%ld samples", n);
  plptex(0.5, 22.0 / height, 1.0, 0.0, 0.5, cap);
  /* the energy error above it (#gDE#dimpacts#u: what the impacts of the log removed) */
  if (isfinite(e_ref)) {
    const char *less = nimp > 0 ? " - #gDE#dimpacts#u" : "";
    if (e_ref != 0.0)
      snprintf(cap, sizeof cap, "integrator's energy error: max |E - E#d0#u%s| / |E#d0#u| = %.2e",
               less, e_dev / fabs(e_ref));
    else
      snprintf(cap, sizeof cap, "integrator's energy error: max |E - E#d0#u%s| = %.2e", less, e_dev);
    plptex(0.5, 52.0 / height, 1.0, 0.0, 0.5, cap);
  }
  plschr(0.0, 1.0);
}

int nhm_plot_timeseries(const char *path, const nh_model *model, const nh_traj *traj,
                       const nh_sim *sim, const char *title, char *msg, size_t msg_size) {
  if (!nh_pk_device_for(path, msg, msg_size)) return NH_ERR_ARG;
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
  long nimp = sim ? nh_sim_impact_count(sim) : 0;
  double e_ref, e_dev;
  nh_io_run_energy(model, traj, sim, E, &e_ref, &e_dev);

  double t0, t1;
  time_range(traj, &t0, &t1);

  double panel_h = nq <= 3 ? 170.0 : nq <= 8 ? 150.0 : 110.0;
  double head = 80.0, foot = 130.0;
  int width = 900;
  int height = (int)(head + foot + npanel * panel_h);

  nh_pk_figure fig;
  int st = nh_pk_begin(&fig, path, width, height, msg, msg_size);
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
    double tw = tick_scale * CHAR_W * nh_pk_tick_chars(lo[i], hi[i], 4.0);
    if (tw > tick_w) tick_w = tw;
    if (last)
      snprintf(labels[i], sizeof labels[i], "E");
    else
      coord_label(labels[i], sizeof labels[i], model->coord_names ? model->coord_names[i] : NULL,
                  i);
    int len = nh_pk_visible_len(labels[i]);
    double lw = len <= 5 ? label_scale * CHAR_W * len : label_scale; /* long ones are turned */
    if (lw > label_w) label_w = lw;
  }
  double xl_px = CHAR_H_PX * (tick_w + 1.9 + label_w) + 14.0;
  if (xl_px > 0.35 * width) xl_px = 0.35 * width;
  double xl = xl_px / width, xr = 1.0 - 30.0 / width, gap = 18.0 / height;
  double tint = nh_pk_fit_intervals(t0, t1, 8.0, (xr - xl) * width, tick_scale);
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
    nh_pk_box("g", "g", t0, t1, lo_i, hi_i, tint, 4.0);
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
    plcol0(last ? C_FG : nh_pk_series_colors[i % (int)(sizeof nh_pk_series_colors / sizeof nh_pk_series_colors[0])]);
    plwidth(1.8);
    nh_pk_line(n, traj->t, 1, v, stride);
    plwidth(1.0);

    plcol0(C_FG);
    nh_pk_box(last ? "bcnst" : "bcst", "bcnstv", t0, t1, lo_i, hi_i, tint, 4.0);

    /* the label, right of the tick labels: short ones horizontal, long ones turned */
    plcol0(C_FG);
    plschr(0.0, label_scale);
    double disp = (tick_w + 1.6) / label_scale;
    if (nh_pk_visible_len(labels[i]) <= 5)
      plmtex("lv", disp, 0.5, 1.0, labels[i]);
    else
      plmtex("l", disp + 0.6, 0.5, 0.5, labels[i]);
    plschr(0.0, 1.0);
    if (last) {
      plmtex("b", 3.3, 0.5, 0.5, "t"); /* a model declares no units */
    }
  }

  draw_ts_captions(model, title, height, traj->n, nimp, e_ref, e_dev);
  free(E);
  return nh_pk_end(&fig, msg, msg_size);
}

/* ---- a grid of panels of curves ------------------------------------------------------------ */

/* the panels' layout (page units): a panel's size without its legend band, the page head,
 * a legend row, the sample line of a legend entry, the rest of a legend column but its
 * text, and the width of a glyph of the legend text (an upper estimate) */
#define PANEL_W 560.0
#define PANEL_H 430.0
#define PANEL_HEAD 70.0
#define LEG_ROW_PX 26.0
#define LEG_SAMPLE_PX 44.0
#define LEG_GAP_PX 56.0
#define LEG_GLYPH_PX 11.0
/* character scale of the legend text, and the distance (page units) from the bottom of the
 * frame to the top of the legend: below the tick labels and the axis label */
#define LEG_SCALE 0.8
#define LEG_BELOW_PX 82.0

/* the panel's centre lies this far left of its frame's (the margins are 95 and 25) */
#define LEG_SHIFT_PX 35.0

/* the marker glyphs of nh_plot_curve.marker 1..6 */
static const char *const markers[] = {"○", "□", "△", "◇", "×", "+"};
#define NMARKERS ((int)(sizeof markers / sizeof markers[0]))

/* the parts of nh_plot_curve.style */
static int style_kind(int style) { return style & 15; }
static int style_dash(const nh_plot_curve *cv) {
  int k = (cv->style >> 4) & 15;
  return k >= 1 && k <= 8 ? k : style_kind(cv->style) == NH_PLOT_DASHED ? 2 : 1;
}
static int style_marker(int style) {
  int m = (style >> 8) & 15;
  return m >= 1 && m <= NMARKERS ? m : 0;
}
static double style_width(int style) {
  int w = (style >> 12) & 255;
  return w > 0 ? 0.1 * w : 1.6;
}

typedef struct legend_layout {
  int n, nnote, ncol, nrow; /* labelled curves, notes (empty ones), columns, rows */
} legend_layout;

/* The entries of a panel's legend in columns that fit the panel's width. */
static legend_layout legend_layout_of(const nh_plot_panel *pn, double avail_px) {
  legend_layout L = {0, 0, 1, 0};
  int longest = 0;
  for (int c = 0; c < pn->ncurves; c++) {
    if (!pn->curves[c].label) continue;
    if (pn->curves[c].n == 0) {
      L.nnote++;
      continue;
    }
    L.n++;
    int len = nh_pk_visible_len(pn->curves[c].label);
    if (len > longest) longest = len;
  }
  if (L.n == 0 && L.nnote == 0) return L;
  /* pllegend's column: the sample, the text offset, the widest text and the gap (as
   * measured on the cairo drivers' sans font, with some slack) */
  double entry = LEG_SAMPLE_PX + LEG_GAP_PX + LEG_GLYPH_PX * (longest + 2.0);
  L.ncol = (int)(avail_px / entry);
  L.ncol = L.ncol < 1 ? 1 : L.ncol > L.n ? (L.n > 0 ? L.n : 1) : L.ncol;
  L.nrow = (L.n + L.ncol - 1) / L.ncol + L.nnote;
  return L;
}

/* The legend (PLplot's pllegend) centred on the panel below its frame: a line
 * sample (and the marker) of every labelled curve, then the notes, text alone, a row each. */
static void draw_panel_legend(const nh_plot_panel *pn, const legend_layout *L, double vp_w_px,
                              double vp_h_px) {
  enum { MAXL = 33 };
  PLINT opt[MAXL], tcol[MAXL], lcol[MAXL], lsty[MAXL], scol[MAXL], snum[MAXL];
  PLFLT lwid[MAXL], sscale[MAXL];
  const char *text[MAXL], *sym[MAXL];
  int n = 0;
  for (int c = 0; c < pn->ncurves && n < MAXL; c++) {
    const nh_plot_curve *cv = &pn->curves[c];
    if (!cv->label || cv->n == 0) continue;
    int col = nh_pk_series_colors[c % NH_PK_NSERIES], mk = style_marker(cv->style);
    int dots = style_kind(cv->style) == NH_PLOT_DOTS;
    opt[n] = (dots ? 0 : PL_LEGEND_LINE) | (dots || mk ? PL_LEGEND_SYMBOL : 0);
    tcol[n] = C_FG, lcol[n] = col, scol[n] = col;
    lsty[n] = style_dash(cv);
    lwid[n] = style_width(cv->style);
    sscale[n] = dots ? 0.6 : 1.0;
    snum[n] = dots ? 3 : 1;
    sym[n] = mk ? markers[mk - 1] : "•";
    text[n++] = cv->label;
  }
  PLFLT lw = 0.0, lh = 0.0;
  if (n > 0) {
    plschr(0.0, LEG_SCALE);
    pllegend(&lw, &lh, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX | PL_LEGEND_ROW_MAJOR,
             PL_POSITION_BOTTOM | PL_POSITION_OUTSIDE, -LEG_SHIFT_PX / vp_w_px, LEG_BELOW_PX / vp_h_px,
             LEG_SAMPLE_PX / vp_w_px, C_BG, C_MUTED, 1, L->nrow - L->nnote, L->ncol, n, opt, 1.0,
             1.0, 2.0, 0.0, tcol, text, NULL, NULL, NULL, NULL, lcol, lsty, lwid, scol, sscale,
             snum, sym);
  }
  /* the notes, one a row below the entries (lh: the legend's height in viewport units) */
  int row = 0;
  plschr(0.0, LEG_SCALE);
  plcol0(C_MUTED);
  for (int c = 0; c < pn->ncurves; c++) {
    if (!pn->curves[c].label || pn->curves[c].n != 0) continue;
    double below = LEG_BELOW_PX + lh * vp_h_px + (row + 0.8) * LEG_ROW_PX;
    plmtex("b", below / (CHAR_H_PX * LEG_SCALE), 0.5 - LEG_SHIFT_PX / vp_w_px, 0.5, pn->curves[c].label);
    row++;
  }
  plschr(0.0, 1.0);
}

/* Curve c of nc: a line (dashes and width as asked) with markers staggered between curves,
 * or dots. */
static void draw_curve(const nh_plot_curve *cv, int c, int nc) {
  plcol0(nh_pk_series_colors[c % NH_PK_NSERIES]);
  if (style_kind(cv->style) == NH_PLOT_DOTS) {
    for (long k = 0; k < cv->n; k++)
      if (nh_pk_plottable(cv->x[k]) && nh_pk_plottable(cv->y[k])) nh_pk_dot(cv->x[k], cv->y[k], 0.5);
    return;
  }
  pllsty(style_dash(cv));
  plwidth(style_width(cv->style));
  nh_pk_line(cv->n, cv->x, 1, cv->y, 1);
  plwidth(1.0);
  pllsty(1);
  int mk = style_marker(cv->style);
  if (mk && cv->n > 0) {
    long every = (cv->n + 11) / 12;
    for (long k = every * c / (nc > 0 ? nc : 1); k < cv->n; k += every) {
      PLFLT x = cv->x[k], y = cv->y[k];
      if (nh_pk_plottable(x) && nh_pk_plottable(y)) plstring(1, &x, &y, markers[mk - 1]);
    }
  }
}

int nhm_plot_panels(const char *path, int nrows, int ncols, int npanels, const nh_plot_panel *panels,
                   const char *title, char *msg, size_t msg_size) {
  if (!path || !panels || nrows < 1 || ncols < 1 || npanels < 1 || npanels > nrows * ncols) {
    nh_set_msg(msg, msg_size, "plot: bad panel layout");
    return NH_ERR_ARG;
  }
  // a band under every panel for the largest legend
  double band = 0.0;
  for (int p = 0; p < npanels; p++) {
    legend_layout L = legend_layout_of(&panels[p], PANEL_W - 30.0);
    double b = L.nrow > 0 ? L.nrow * LEG_ROW_PX + (LEG_BELOW_PX - 70.0) + 24.0 : 0.0;
    if (b > band) band = b;
  }
  const double panel_w = PANEL_W, panel_h = PANEL_H + band, head = PANEL_HEAD;
  const int width = (int)(ncols * panel_w), height = (int)(head + nrows * panel_h);
  nh_pk_figure fig;
  int st = nh_pk_begin(&fig, path, width, height, msg, msg_size);
  if (st != NH_OK) return st;
  for (int p = 0; p < npanels; p++) {
    const nh_plot_panel *pn = &panels[p];
    const int row = p / ncols, col = p % ncols;
    // the panel's viewport in page fractions (margins for tick labels, axis labels, legend)
    double px0 = col * panel_w + 95.0, px1 = (col + 1) * panel_w - 25.0;
    double py1 = head + row * panel_h + 40.0, py0 = head + (row + 1) * panel_h - 70.0 - band;
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int c = 0; c < pn->ncurves; c++)
      for (long k = 0; k < pn->curves[c].n; k++) {
        double x = pn->curves[c].x[k], y = pn->curves[c].y[k];
        if (!nh_pk_plottable(x) || !nh_pk_plottable(y)) continue;
        x0 = fmin(x0, x), x1 = fmax(x1, x), y0 = fmin(y0, y), y1 = fmax(y1, y);
      }
    if (nh_pk_plottable(pn->hline)) y0 = fmin(y0, pn->hline), y1 = fmax(y1, pn->hline);
    if (!(x0 <= x1)) x0 = 0.0, x1 = 1.0;
    if (!(y0 <= y1)) y0 = 0.0, y1 = 1.0;
    nh_pk_widen(&x0, &x1, 1e-9);
    nh_pk_widen(&y0, &y1, 1e-9);
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
    nh_pk_box("g", "g", x0, x1, y0, y1, 5.0, 5.0);
    if (nh_pk_plottable(pn->hline)) {
      plcol0(C_MUTED);
      pllsty(2);
      pljoin(x0, pn->hline, x1, pn->hline);
      pllsty(1);
    }
    for (int c = 0; c < pn->ncurves; c++) draw_curve(&pn->curves[c], c, pn->ncurves);
    plcol0(C_FG);
    nh_pk_box("bcnst", "bcnstv", x0, x1, y0, y1, 5.0, 5.0);
    plschr(0.0, 1.05);
    if (pn->xlabel) plmtex("b", 2.8, 0.5, 0.5, pn->xlabel);
    if (pn->ylabel) plmtex("l", 4.6, 0.5, 0.5, pn->ylabel);
    if (pn->title) plmtex("t", 1.2, 0.5, 0.5, pn->title);
    plschr(0.0, 1.0);
    legend_layout L = legend_layout_of(pn, PANEL_W - 30.0);
    if (L.nrow > 0) draw_panel_legend(pn, &L, px1 - px0, py0 - py1);
  }
  if (title) {
    char tbuf[400];
    plvpor(0.0, 1.0, 0.0, 1.0);
    plwind(0.0, 1.0, 0.0, 1.0);
    plcol0(C_FG);
    /* a long title shrinks to the page width (about 14.5 px per character at size 1.3) */
    double fit = 0.95 * width / (14.5 * (double)strlen(title));
    plschr(0.0, 1.3 * (fit < 1.0 ? fit : 1.0));
    nh_pk_text(tbuf, sizeof tbuf, title);
    plptex(0.5, 1.0 - 40.0 / height, 1.0, 0.0, 0.5, tbuf);
    plschr(0.0, 1.0);
  }
  return nh_pk_end(&fig, msg, msg_size);
}
