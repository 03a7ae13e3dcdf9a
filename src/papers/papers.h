/* papers.h - the figures and experiments of the papers nholo reproduces (a layer of its own
 * above io: it uses the library, the CLI uses it; not installed).
 *
 * Every figure is one function of a registry: it computes its data (never hard-coded), writes
 * its figure to a path (.png, .svg or .pdf) and prints a line or a few of results to
 * opts->out. It returns NH_OK, NH_ERR_ARG when a model or a simulation could not be set up
 * from the options (bad input), or another negative status when the computation failed; a
 * one-line message goes to msg. Options arrive parsed: number parsing is the caller's. */
#ifndef NH_PAPERS_H
#define NH_PAPERS_H

#include <stdio.h>

#include "nholo/nholo.h"
#include "nholo/systems/all.h"

/* most panel times of the penny's sensitivity figure */
#define PAPERS_MAX_TIMES 8

/* The options of the figures; each figure reads the ones it has (see papers_opts_default). */
typedef struct papers_opts {
  FILE *out;      /* results, one line or a few per figure (stdout) */
  FILE *progress; /* a progress bar of the long figures, Nullable (none) */
  /* the penny (Clark & Bloch) */
  const char *method; /* integrator of penny-fig1..5 (exact) */
  long impacts;       /* impacts of penny-fig1..4 (20) */
  long members;       /* ensemble size; 0: the figure's own (penny-fig5 100, dg-fig2 200) */
  unsigned long long seed;               /* random initial states (2024) */
  double spread;                         /* penny-fig5 perturbation half-width (0.005) */
  double times[PAPERS_MAX_TIMES];        /* penny-fig5 panel times, increasing (5, 10, 20, 40) */
  int ntimes;
  int elliptic, plastic; /* penny-fig5 system (elliptical table, elastic) */
  /* the discrete-gradient figures (Celledoni et al.) */
  double t_end, dt; /* 0: the figure's own */
} papers_opts;

papers_opts papers_opts_default(void);

/* a figure (its contract: the top of this file); papers_figure_fn points to one */
typedef int papers_figure_run(const char *name, const char *path, const papers_opts *o, char *msg,
                              size_t msg_size);
typedef papers_figure_run *papers_figure_fn;

typedef struct papers_figure {
  const char *name;        /* "penny-fig1", ... */
  const char *description; /* one line for the help */
  papers_figure_fn run;
} papers_figure;

/* The registry, in the order of `nholo figure all`; *n receives its length. */
const papers_figure *papers_figures(int *n);
/* The figure of that name, or NULL. */
const papers_figure *papers_figure_find(const char *name);

/* The penny's plan view (Clark & Bloch Figs. 1-4): the wall (ellipse a, b), the path of the
 * contact point, the coin at each impact and the impact points on the wall. Assumes the
 * penny's coordinates q = (x, y, theta, phi) and gaps 0 = front, 1 = back. title Nullable. */
int papers_plot_penny(const char *path, double a, double b, double R, const nh_traj *traj,
                      const nh_sim *sim, const char *title, char *msg, size_t msg_size);

/* Penny ensembles in panels (Fig. 5): panel p shows the n points (x[p*n + k], y[p*n + k]) on
 * the table (a, b) under panel_titles[p] (Nullable). */
int papers_plot_penny_ensemble(const char *path, double a, double b, int npanels, int n,
                               const double *x, const double *y, const char *const *panel_titles,
                               const char *title, char *msg, size_t msg_size);

/* uniform in [0, 1) from xorshift64* (state *s, nonzero) */
double papers_urand(unsigned long long *s);

/* the figures, by paper (penny.c, gni.c, dg.c, ball.c, simul.c) */
papers_figure_run papers_penny_run, papers_penny_ensemble;
/* the largest Lyapunov exponent of the penny, four systems (lyapunov.c) */
papers_figure_run papers_penny_lyapunov;
papers_figure_run papers_sleigh2, papers_snakeboard4; /* gni.c */
papers_figure_run papers_dg;
papers_figure_run papers_ball;
/* Seghete & Murphey, simultaneous impacts (simul.c): cradle, billiards */
papers_figure_run papers_simul;

#endif
