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

/* A grid of panels of curves y(x): the generic figure (the rolling ball's figures use it). */
typedef struct nh_plot_curve {
  long n;              /* points */
  const double *x, *y; /* (n) each; non-finite points break the line */
  const char *label;   /* legend entry, Nullable */
  int style;           /* 0 line, 1 dots, 2 dashed line */
} nh_plot_curve;

typedef struct nh_plot_panel {
  const char *title;          /* Nullable */
  const char *xlabel, *ylabel; /* Nullable; PLplot escapes ("#gm" for mu) are kept */
  int ncurves;
  const nh_plot_curve *curves;
  int equal_aspect; /* 1: one length unit is the same on both axes (trajectories) */
  double hline;     /* a dashed horizontal reference line at this value; NaN: none */
} nh_plot_panel;

/* npanels panels row by row in an nrows x ncols grid, under `title` (Nullable). */
NH_API int nh_plot_panels(const char *path, int nrows, int ncols, int npanels,
                          const nh_plot_panel *panels, const char *title, char *msg,
                          size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
