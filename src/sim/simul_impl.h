/* simul_impl.h - the driver's simultaneous-impact workspace, shared by the stage that collects
 * the active set (collect.c) and the one that resolves it (simul.c). Private to src/sim. */
#ifndef NH_SIM_SIMUL_IMPL_H
#define NH_SIM_SIMUL_IMPL_H

#include "sim/sim_impl.h"

struct nh_sim_simul {
  nh_simul_opts opts;
  void *work;          /* nh_simul_work_size(nq, nc, ng, opts) bytes */
  int *idx;            /* (ng) the gaps of the current set, increasing */
  int *was_closed;     /* (ng) 1 when member j of the set is a persistent contact */
  const char **names;  /* (ng) their names, for the resolution's messages */
  double *dgk;         /* (ng x nq) their gradients as rows */
  double *vnb, *vna;   /* (ng) their rates before and after */
  int fallback, fb_gap; /* the law's fallback for the current set (simul_law), the gap named */
  /* the log's pools: per record its gaps (k) and sequence (nseq); impulses, rates (3 k) */
  int *pi;
  double *pd;
  long capi, capd;
};

#endif
