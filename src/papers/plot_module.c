/* plot_module.c - the plot component (nholo-plot.so): PLplot's figures behind the table of
 * base/module.h. Built with plot.c, plotkit.c and the papers' penny drawings. */
#include <plplot.h>

#include "base/module.h"
#include "nholo/io.h"
#include "papers.h"

int nhm_plot_timeseries(const char *path, const nh_model *model, const nh_traj *traj, const nh_sim *sim,
                        const char *title, char *msg, size_t msg_size);
int nhm_plot_panels(const char *path, int nrows, int ncols, int npanels, const nh_plot_panel *panels,
                    const char *title, char *msg, size_t msg_size);
int nhm_plot_penny(const char *path, double a, double b, double R, const nh_traj *traj, const nh_sim *sim,
                   const char *title, char *msg, size_t msg_size);
int nhm_plot_penny_ensemble(const char *path, double a, double b, int npanels, int n, const double *x,
                            const double *y, const char *const *panel_titles, const char *title, char *msg,
                            size_t msg_size);

static const nh_module_plot plot_table = {
    NH_MODULE_HEAD(nh_module_plot, "plot", "PLplot " PLPLOT_VERSION), nhm_plot_timeseries, nhm_plot_panels,
    nhm_plot_penny, nhm_plot_penny_ensemble};

__attribute__((visibility("default"))) const void *nholo_module_table(void);
const void *nholo_module_table(void) { return &plot_table; }
