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
#include "nholo/io.h"


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
  nh_pk_text(dst, size, name);
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

int nh_plot_timeseries(const char *path, const nh_model *model, const nh_traj *traj,
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
  }
  long nimp = sim ? nh_sim_impact_count(sim) : 0;

  double panel_h = nq <= 3 ? 170.0 : nq <= 8 ? 150.0 : 110.0;
  double head = 80.0, foot = 110.0;
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
      nh_pk_text(tbuf, sizeof tbuf, title);
    else {
      char mname[2 * NH_MAX_NAME + 2];
      nh_pk_text(mname, sizeof mname, model->name);
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
  return nh_pk_end(&fig, msg, msg_size);
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
  nh_pk_figure fig;
  int st = nh_pk_begin(&fig, path, width, height, msg, msg_size);
  if (st != NH_OK) return st;
  const int ncol_series = (int)(sizeof nh_pk_series_colors / sizeof nh_pk_series_colors[0]);
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
    for (int c = 0; c < pn->ncurves; c++) {
      const nh_plot_curve *cv = &pn->curves[c];
      plcol0(nh_pk_series_colors[c % ncol_series]);
      if (cv->style == 1) {
        for (long k = 0; k < cv->n; k++)
          if (nh_pk_plottable(cv->x[k]) && nh_pk_plottable(cv->y[k])) nh_pk_dot(cv->x[k], cv->y[k], 0.5);
        continue;
      }
      if (cv->style == 2) pllsty(2);
      plwidth(1.6);
      nh_pk_line(cv->n, cv->x, 1, cv->y, 1);
      plwidth(1.0);
      pllsty(1);
    }
    plcol0(C_FG);
    nh_pk_box("bcnst", "bcnstv", x0, x1, y0, y1, 5.0, 5.0);
    char buf[256];
    plschr(0.0, 1.05);
    if (pn->xlabel) plmtex("b", 2.8, 0.5, 0.5, pn->xlabel);
    if (pn->ylabel) plmtex("l", 4.6, 0.5, 0.5, pn->ylabel);
    if (pn->title) {
      nh_pk_text(buf, sizeof buf, pn->title);
      plmtex("t", 1.2, 0.5, 0.5, buf);
    }
    // legend: labels in the curves' colours, top left inside the frame
    plschr(0.0, 0.8);
    int line = 0;
    for (int c = 0; c < pn->ncurves; c++) {
      if (!pn->curves[c].label) continue;
      nh_pk_text(buf, sizeof buf, pn->curves[c].label);
      plcol0(nh_pk_series_colors[c % ncol_series]);
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
    nh_pk_text(tbuf, sizeof tbuf, title);
    plptex(0.5, 1.0 - 40.0 / height, 1.0, 0.0, 0.5, tbuf);
    plschr(0.0, 1.0);
  }
  return nh_pk_end(&fig, msg, msg_size);
}
