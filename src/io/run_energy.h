/* run_energy.h - the energy of a run's samples and the integrator's share of its change
 * (private to io: the time-series plot and its tests). */
#ifndef NH_IO_RUN_ENERGY_H
#define NH_IO_RUN_ENERGY_H

#include "nholo/io.h"

/* The energy E[k] of every sample of a run (NaN where it cannot be evaluated; E holds
 * traj->n values), its first finite value *e_ref, and the integrator's energy error
 * *e_dev = max |E - E0 - dE_impacts|, where dE_impacts sums energy_after - energy_before of
 * the impacts of sim's log (Nullable) that each sample comes after. */
void nh_io_run_energy(const nh_model *model, const nh_traj *traj, const nh_sim *sim, double *E,
                      double *e_ref, double *e_dev);

#endif
