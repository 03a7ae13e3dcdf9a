/* penny_plot.c - the penny's figures (Clark & Bloch): the plan view of a run and the panels
 * of an ensemble, drawn with io's drawing kit. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plplot.h>

#include "base/msg.h"
#include "io/plotkit.h"
#include "papers.h"

/* positive, drawable semi-axes */
static int valid_axes(double a, double b) {
  return nh_pk_plottable(a) && nh_pk_plottable(b) && a > 0.0 && b > 0.0;
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
  return nh_pk_plottable(*x) && nh_pk_plottable(*y) && isfinite(*c) && isfinite(*s);
}

#define MAX_NUMBERED 60

/* ---- plan view of a penny run -------------------------------------------------------- */

/* the impact numbers, just outside the wall, moved further out when they would overlap;
 * upx: world units per pixel (equal scales) */
static void number_impacts(const nh_sim *sim, long nimp, double a, double b, double R, const nh_pk_bounds *bd,
                           double upx) {
  double placed[MAX_NUMBERED][2];
  int np = 0;
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
      double lx = (px - bd->xmin) / upx + off * nx, ly = (py - bd->ymin) / upx + off * ny;
      int clash = 0;
      for (int j = 0; j < np && !clash; j++)
        clash = fabs(lx - placed[j][0]) < 20.0 && fabs(ly - placed[j][1]) < 14.0;
      if (clash) continue;
      placed[np][0] = lx;
      placed[np][1] = ly;
      np++;
      char num[24];
      snprintf(num, sizeof num, "%ld", k + 1);
      plptex(bd->xmin + lx * upx, bd->ymin + ly * upx, 1.0, 0.0, 0.5, num);
      break;
    }
  }
  plschr(0.0, 1.0);
}

int nhm_plot_penny(const char *path, double a, double b, double R, const nh_traj *traj,
                  const nh_sim *sim, const char *title, char *msg, size_t msg_size) {
  if (!nh_pk_device_for(path, msg, msg_size)) return NH_ERR_ARG;
  if (!valid_axes(a, b) || !nh_pk_plottable(R) || R < 0.0) {
    nh_set_msg(msg, msg_size, "papers_plot_penny: need a > 0, b > 0 and R >= 0 (got %g, %g, %g)", a,
            b, R);
    return NH_ERR_ARG;
  }
  if (traj && (traj->nq < 2 || traj->n < 0 || (traj->n > 0 && (!traj->t || !traj->q)))) {
    nh_set_msg(msg, msg_size, "papers_plot_penny: the trajectory needs the coordinates x and y");
    return NH_ERR_ARG;
  }
  long nimp = sim ? nh_sim_impact_count(sim) : 0;
  const nh_model *model = sim ? nh_sim_model(sim) : NULL;
  if (nimp > 0 && (!model || model->nq < 4)) nimp = 0; /* no heading to draw the coin */

  /* bounds: the table, the path and the coin at every impact */
  nh_pk_bounds bd = {-a, a, -b, b};
  long n = traj ? traj->n : 0;
  for (long k = 0; k < n; k++)
    nh_pk_bounds_add(&bd, traj->q[k * traj->nq], traj->q[k * traj->nq + 1]);
  for (long k = 0; k < nimp; k++) {
    nh_impact_record rec;
    if (nh_sim_impact_get(sim, k, &rec) != NH_OK || !rec.q) continue;
    double c = R * cos(rec.q[3]), s = R * sin(rec.q[3]);
    nh_pk_bounds_add(&bd, rec.q[0] + c, rec.q[1] + s);
    nh_pk_bounds_add(&bd, rec.q[0] - c, rec.q[1] - s);
  }
  nh_pk_bounds_pad(&bd, nimp > 0 && nimp <= MAX_NUMBERED ? 0.12 : 0.05);
  double aspect = (bd.ymax - bd.ymin) / (bd.xmax - bd.xmin);
  double shown = aspect < 0.3 ? 0.3 : aspect > 3.0 ? 3.0 : aspect;
  nh_pk_legend_entry le[5] = {{0, C_SLATE, 3.0, "wall"},
                        {0, C_BLUE, 2.0, "path of the contact point"},
                        {1, C_GREEN, 1.2, "start"},
                        {0, C_ORANGE, 3.0, "coin at an impact"},
                        {1, C_RED, 1.0, "impact point on the wall"}};
  int ne = nimp > 0 ? 5 : 3;
  int width = 800;
  double leg_x0 = 0.11 * width, leg_x1 = 0.95 * width;
  double foot = 72.0 + nh_pk_legend_height(nh_pk_legend_rows(leg_x0, leg_x1, ne, le, NULL)) + 24.0;
  int height = (int)(620.0 * shown + 90.0 + foot);

  nh_pk_figure fig;
  int st = nh_pk_begin(&fig, path, width, height, msg, msg_size);
  if (st != NH_OK) return st;

  /* viewport with equal scales, leaving room for the title above and the legend below */
  double bottom = foot / height, top = 1.0 - 90.0 / height;
  double ylab = 0.8 + CHAR_W * nh_pk_tick_chars(bd.ymin, bd.ymax, 5.0) + 1.0;
  double left = (ylab + 1.0) * CHAR_H_PX / width;
  plvpas(left > 0.11 ? left : 0.11, 0.95, bottom, top, aspect);
  plwind(bd.xmin, bd.xmax, bd.ymin, bd.ymax);
  double vx0, vx1, vy0, vy1;
  nh_pk_viewport_px(width, height, &vx0, &vx1, &vy0, &vy1);
  (void)vy1;

  nh_pk_ellipse(a, b, 3.0);

  /* the path of the contact point */
  if (n > 0) {
    plcol0(C_BLUE);
    plwidth(1.6);
    nh_pk_line(n, traj->q, traj->nq, traj->q + 1, traj->nq);
    plwidth(1.0);
  }

  /* the coin at each impact, then the points of the wall it hit, then their numbers */
  for (int pass = 0; pass < 2; pass++) {
    for (long k = 0; k < nimp; k++) {
      double x, y, c, s;
      int gap;
      if (!impact_coin(sim, k, R, &x, &y, &c, &s, &gap)) continue;
      if (pass == 0) {
        plcol0(C_ORANGE);
        plwidth(3.0);
        pljoin(x - c, y - s, x + c, y + s);
        plwidth(1.0);
      } else if (gap == 0 || gap == 1) {
        plcol0(C_RED);
        nh_pk_dot(gap == 0 ? x + c : x - c, gap == 0 ? y + s : y - s, 1.0);
      }
    }
  }
  if (nimp > 0 && nimp <= MAX_NUMBERED) number_impacts(sim, nimp, a, b, R, &bd, (bd.xmax - bd.xmin) / (vx1 - vx0));

  /* the start */
  if (n > 0) {
    plcol0(C_GREEN);
    nh_pk_dot(traj->q[0], traj->q[1], 1.2);
  }

  /* axes */
  plcol0(C_FG);
  plwidth(1.0);
  nh_pk_box("bcnst", "bcnstv", bd.xmin, bd.xmax, bd.ymin, bd.ymax,
           nh_pk_fit_intervals(bd.xmin, bd.xmax, 5.0, vx1 - vx0, 1.0), 5.0);
  plmtex("b", 3.2, 0.5, 0.5, "x (m)");
  plmtex("l", ylab, 0.5, 0.5, "y (m)");

  /* title and caption */
  char text[512], tbuf[400];
  nh_pk_text(tbuf, sizeof tbuf, title ? title : "Penny on the table: plan view");
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
  nh_pk_legend(width, height, vx0 < leg_x0 ? vx0 : leg_x0, vx1 > leg_x1 ? vx1 : leg_x1,
              vy0 - 72.0, ne, le);
  return nh_pk_end(&fig, msg, msg_size);
}

/* ---- ensembles of pennies ------------------------------------------------------------ */

int nhm_plot_penny_ensemble(const char *path, double a, double b, int npanels, int n,
                           const double *x, const double *y, const char *const *panel_titles,
                           const char *title, char *msg, size_t msg_size) {
  if (!nh_pk_device_for(path, msg, msg_size)) return NH_ERR_ARG;
  if (!valid_axes(a, b) || npanels < 1 || npanels > 64 || n < 0 || (n > 0 && (!x || !y))) {
    nh_set_msg(msg, msg_size,
            "papers_plot_penny_ensemble: need a, b > 0, 1 <= npanels <= 64, n >= 0 and the points");
    return NH_ERR_ARG;
  }
  int cols = (int)ceil(sqrt((double)npanels));
  int rows = (npanels + cols - 1) / cols;

  /* one window for every panel: the table and all the points */
  nh_pk_bounds bd = {-a, a, -b, b};
  for (long k = 0; k < (long)npanels * n; k++) nh_pk_bounds_add(&bd, x[k], y[k]);
  nh_pk_bounds_pad(&bd, 0.06);
  double aspect = (bd.ymax - bd.ymin) / (bd.xmax - bd.xmin);
  double shown = aspect < 0.3 ? 0.3 : aspect > 3.0 ? 3.0 : aspect;

  double cell_w = cols <= 2 ? 440.0 : 340.0;
  double cell_h = cell_w * 0.82 * shown + 115.0;
  double head = title ? 70.0 : 24.0;
  int width = (int)(cols * cell_w + 60.0);
  int height = (int)(rows * cell_h + head + 20.0);

  nh_pk_figure fig;
  int st = nh_pk_begin(&fig, path, width, height, msg, msg_size);
  if (st != NH_OK) return st;

  double chr = cols <= 2 ? 0.9 : 0.75;
  char tbuf[400];
  for (int p = 0; p < npanels; p++) {
    int r = p / cols, c = p % cols;
    double x0 = (40.0 + c * cell_w) / width, x1 = (40.0 + (c + 1) * cell_w) / width;
    double y1 = 1.0 - (head + r * cell_h) / height, y0 = 1.0 - (head + (r + 1) * cell_h) / height;
    /* leave room for tick and axis labels (left, bottom) and the panel title (top) */
    plvpas(x0 + 75.0 / width, x1 - 15.0 / width, y0 + 70.0 / height, y1 - 40.0 / height, aspect);
    plwind(bd.xmin, bd.xmax, bd.ymin, bd.ymax);
    nh_pk_ellipse(a, b, 2.0);

    plcol0(C_BLUE);
    for (int k = 0; k < n; k++) {
      double xk = x[(size_t)p * (size_t)n + (size_t)k], yk = y[(size_t)p * (size_t)n + (size_t)k];
      if (nh_pk_plottable(xk) && nh_pk_plottable(yk)) nh_pk_dot(xk, yk, n > 2000 ? 0.35 : n > 200 ? 0.5 : 0.8);
    }

    plcol0(C_FG);
    plschr(0.0, chr);
    double pvx0, pvx1, pvy0, pvy1;
    nh_pk_viewport_px(width, height, &pvx0, &pvx1, &pvy0, &pvy1);
    nh_pk_box("bcnst", "bcnstv", bd.xmin, bd.xmax, bd.ymin, bd.ymax,
             nh_pk_fit_intervals(bd.xmin, bd.xmax, 4.0, pvx1 - pvx0, chr), 4.0);
    double ylab = 0.8 + CHAR_W * nh_pk_tick_chars(bd.ymin, bd.ymax, 4.0) + 1.0;
    plmtex("b", 3.4, 0.5, 0.5, "x (m)");
    plmtex("l", ylab, 0.5, 0.5, "y (m)");
    if (panel_titles && panel_titles[p]) {
      nh_pk_text(tbuf, sizeof tbuf, panel_titles[p]);
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
    nh_pk_text(tbuf, sizeof tbuf, title);
    plptex(0.5, 1.0 - 38.0 / height, 1.0, 0.0, 0.5, tbuf);
    plschr(0.0, 1.0);
  }
  return nh_pk_end(&fig, msg, msg_size);
}
