/* nholo/io.h - recording a run, writing it (CSV, JSON), and drawing it (PLplot).
 *
 * Every writer produces its file atomically: it writes "<path>.tmp.<pid>" and renames it
 * over <path> only when everything was written, so a failure never leaves a partial file.
 * Paths are limited to 1023 characters (NH_ERR_ARG beyond). Plots use PLplot, which is not
 * thread-safe: draw from one thread at a time. A missing cairo driver gives NH_ERR_IO. */
#ifndef NHOLO_IO_H
#define NHOLO_IO_H

#include <stdio.h>

#include "nholo/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A growable record of samples (t, q, v) of one run. */
typedef struct nh_traj {
  int nq;
  long n, cap;
  double *t;      /* (n) */
  double *q;      /* (n x nq) */
  double *v;      /* (n x nq) */
  int *kind;      /* (n) nh_sample_kind of each sample */
} nh_traj;

NH_API nh_traj *nh_traj_create(int nq);
NH_API void nh_traj_destroy(nh_traj *traj);
NH_API void nh_traj_clear(nh_traj *traj);
NH_API int nh_traj_append(nh_traj *traj, nh_sample_kind kind, double t, const double *q,
                          const double *v);
/* An nh_observer_fn that appends every sample to the nh_traj given as user. When memory runs
 * out it returns nonzero, so the run ends with NH_STOPPED. */
NH_API int nh_traj_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q,
                            const double *v, void *user);

/* CSV of a trajectory: header "t,<coords>,<coords>_dot"; for an ODE-form model (trajectory of
 * nx values per sample, v unused) "t,<state names>". */
NH_API int nh_write_traj_csv(const char *path, const nh_model *model, const nh_traj *traj,
                             char *msg, size_t msg_size);
/* CSV of the impact log: index (from 0), t, surface, status, energy_before, energy_after,
 * vn_before, vn_after, alpha, lambda_<constraint>..., <coord>..., <coord>_dot_before...,
 * <coord>_dot_after... */
NH_API int nh_write_impacts_csv(const char *path, const nh_sim *sim, char *msg, size_t msg_size);

/* Check that a file can be created at path (creates and removes a temporary beside it). */
NH_API int nh_check_writable(const char *path, char *msg, size_t msg_size);

/* Atomic file writing: open a temporary beside path; commit renames it over path, abort
 * removes it. */
typedef struct nh_outfile {
  FILE *fp;
  char path[1024];
  char tmp[1040];
} nh_outfile;
NH_API int nh_outfile_open(nh_outfile *out, const char *path, char *msg, size_t msg_size);
NH_API int nh_outfile_commit(nh_outfile *out, char *msg, size_t msg_size);
NH_API void nh_outfile_abort(nh_outfile *out);

/* ---- plots (PLplot, cairo driver; format from the extension: .png, .svg, .pdf) ------ */

/* Any run: every coordinate against time in stacked panels, plus the energy, with impact
 * times marked. */
NH_API int nh_plot_timeseries(const char *path, const nh_model *model, const nh_traj *traj,
                              const nh_sim *sim, const char *title, char *msg, size_t msg_size);

/* A grid of panels of curves y(x): the generic figure (the papers' figures use it). Texts of
 * panels and curves keep PLplot's escapes ("#gm" for mu, "x#ds#u" for a subscript); the
 * figure's title is printed as given. */
typedef struct nh_plot_curve {
  long n;              /* points; 0 with a label: a line of text alone in the legend (a note) */
  const double *x, *y; /* (n) each; non-finite points break the line */
  const char *label;   /* legend entry, Nullable (not in the legend) */
  int style;           /* NH_PLOT_LINE, _DOTS or _DASHED, or'ed with the options below */
} nh_plot_curve;

enum { NH_PLOT_LINE = 0, NH_PLOT_DOTS = 1, NH_PLOT_DASHED = 2 };
/* style options: PLplot's line style k = 1..8 (1 solid, 2 dashes, 3 dots, ...), an open
 * marker m = 1..6 (circle, square, triangle, diamond, cross, plus) on about 12 points of the
 * line (staggered from curve to curve), and the line width w in tenths (1..255; default 16) */
#define NH_PLOT_DASH(k) ((k) << 4)
#define NH_PLOT_MARKER(m) ((m) << 8)
#define NH_PLOT_WIDTH(w) ((w) << 12)

typedef struct nh_plot_panel {
  const char *title;           /* Nullable */
  const char *xlabel, *ylabel; /* Nullable */
  int ncurves;
  const nh_plot_curve *curves;
  int equal_aspect; /* 1: one length unit is the same on both axes (trajectories) */
  double hline;     /* a dashed horizontal reference line at this value; NaN: none */
} nh_plot_panel;

/* npanels panels row by row in an nrows x ncols grid, under `title` (Nullable). Each panel's
 * labelled curves get a legend (line sample, marker, label) below its frame, never over the
 * data. */
NH_API int nh_plot_panels(const char *path, int nrows, int ncols, int npanels,
                          const nh_plot_panel *panels, const char *title, char *msg,
                          size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
