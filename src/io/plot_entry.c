/* plot_entry.c - nh_plot_* in the core: each opens the plot component (PLplot) on first use
 * and calls it (base/module.h); the energy of a run's samples, which its plots draw. */
#include <math.h>

#include "base/module.h"
#include "io/run_energy.h"
#include "nholo/io.h"

static const nh_module_plot *plot_module(char *msg, size_t msg_size) {
  return (const nh_module_plot *)nh_module_get(NH_MODULE_PLOT, msg, msg_size);
}

int nh_plot_timeseries(const char *path, const nh_model *model, const nh_traj *traj, const nh_sim *sim,
                       const char *title, char *msg, size_t msg_size) {
  const nh_module_plot *p = plot_module(msg, msg_size);
  return p ? p->timeseries(path, model, traj, sim, title, msg, msg_size) : NH_ERR_COMPONENT;
}

int nh_plot_panels(const char *path, int nrows, int ncols, int npanels, const nh_plot_panel *panels,
                   const char *title, char *msg, size_t msg_size) {
  const nh_module_plot *p = plot_module(msg, msg_size);
  return p ? p->panels(path, nrows, ncols, npanels, panels, title, msg, msg_size) : NH_ERR_COMPONENT;
}

void nh_io_run_energy(const nh_model *model, const nh_traj *traj, const nh_sim *sim, double *E,
                      double *e_ref, double *e_dev) {
  /* the change of E less what the impacts of the log changed (energy_after - energy_before
   * of each impact the sample comes after: at its time, the samples before it do not) */
  const int nq = model->nq;
  long nimp = sim ? nh_sim_impact_count(sim) : 0, next = 0;
  double removed = 0.0;
  *e_ref = NAN, *e_dev = 0.0;
  for (long k = 0; k < traj->n; k++) {
    double e;
    if (nh_model_energy(model, traj->q + k * nq, traj->v + k * nq, &e) != NH_OK || !isfinite(e))
      e = NAN;
    E[k] = e;
    nh_impact_record rec;
    int before = traj->kind && (traj->kind[k] == NH_SAMPLE_IMPACT_BEFORE ||
                                traj->kind[k] == NH_SAMPLE_START);
    while (next < nimp && nh_sim_impact_get(sim, next, &rec) == NH_OK &&
           (rec.t < traj->t[k] || (rec.t == traj->t[k] && !before))) {
      if (isfinite(rec.energy_after - rec.energy_before))
        removed += rec.energy_after - rec.energy_before;
      next++;
    }
    if (isfinite(e)) {
      if (!isfinite(*e_ref)) *e_ref = e;
      double d = fabs(e - *e_ref - removed);
      if (d > *e_dev) *e_dev = d;
    }
  }
}

