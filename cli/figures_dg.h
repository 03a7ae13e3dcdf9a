/* figures_dg.h - the figures of Celledoni et al. (discrete gradients), see figures_dg.c. */
#ifndef NH_CLI_FIGURES_DG_H
#define NH_CLI_FIGURES_DG_H

typedef struct dg_fig_opts {
  double t_end;             /* 0: the figure's default */
  double dt;                /* 0: the figure's default */
  long members;             /* dg-fig2 ensemble, 0: 200 */
  unsigned long long seed;  /* dg-fig2 initial states */
} dg_fig_opts;

/* Draw figure name ("dg-fig2", "dg-fig3", "dg-fig4") into path; a CLI exit status. */
int cli_dg_figure(const char *name, const char *path, const dg_fig_opts *o);

#endif
