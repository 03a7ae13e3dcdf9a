/* ens_impl.h - the ensemble's internals shared by run.c, stats.c, h5.c and mpi.c (private). */
#ifndef NH_ENS_IMPL_H
#define NH_ENS_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nholo/ensemble.h"

/* members per chunk without sampling; with it, as many as keep the chunk's sampled
 * trajectories under ENS_SAMPLE_BUDGET bytes (at least 1). A chunk is the unit of the
 * statistics' reduction tree and of the split over ranks, so its size depends on the
 * definition only, never on threads or ranks. */
#define ENS_CHUNK 4096L
#define ENS_SAMPLE_BUDGET (32L << 20)

/* ---- statistics (stats.c) --------------------------------------------------------------
 * A partial summarises a block of consecutive chunks in `size` doubles: the count of members
 * that completed, then the final state's mean, M2, min, max (nx each); then per sample its
 * count (nt), then per sample the followed outputs' mean, M2, min, max (nk each). Counts are
 * whole numbers held exactly in doubles (below 2^53). Within a chunk members are added in
 * member order (Welford); chunks are merged (Chan et al.) along one fixed binary tree over
 * the chunk indices, so the result depends on the definition only. */
typedef struct ens_block {
  int level;  /* covers chunks [index 2^level, (index + 1) 2^level) */
  long index;
  double *p;
} ens_block;

typedef struct ens_acc {
  int nx, nt, nk;
  const nh_ensemble_stat *specs; /* (nk) */
  size_t size;                   /* doubles per partial */
  double *leaf;                  /* the current chunk */
  ens_block *stack;
  int depth, cap;
  uint64_t *hist; /* (nt x hblock) histograms: per output under, bins, over */
  size_t hblock, *hoff; /* doubles per sample; (nk) each output's first bin in it */
} ens_acc;

int ens_acc_init(ens_acc *a, int nx, int nt, int nk, const nh_ensemble_stat *specs);
void ens_acc_free(ens_acc *a);
void ens_acc_leaf_reset(ens_acc *a);
/* a member that completed: its final state xf (nx) and samples (nt x nx, NaN after its end) */
void ens_acc_add(ens_acc *a, const double *xf, const double *samples);
/* the leaf as chunk `chunk`; 0, or NH_ERR_NOMEM */
int ens_acc_push(ens_acc *a, int level, long index, const double *p);
/* fold the stack (all ranks' blocks, in chunk order) and fill st (nt, nstat, counts set by caller) */
int ens_acc_finish(ens_acc *a, nh_ensemble_stats *st);

/* ---- MPI and HDF5: the hdf5 component --------------------------------------------------
 * ens_mpi_* and ens_h5_* are the core's entries (h5_entry.c): without MPI in use they are the
 * single-process ones and open nothing; otherwise they call the hdf5 component (base/module.h;
 * mpi.c and h5.c, built into nholo-hdf5.so alone, as the nhm_ names of ens_module.h). */

/* ---- MPI (mpi.c; single-process stand-ins without MPI) ----------------------------------- */
/* the ensemble being run uses MPI (set at its start: the functions below act on MPI_COMM_WORLD
 * only then; one ensemble at a time per process) */
void ens_mpi_use(int on);
void ens_mpi_rank(int *rank, int *size);
/* the logical AND of ok over the ranks of the running ensemble */
int ens_mpi_all(int ok);
/* gather every rank's blocks to rank 0 (pushed there in rank order) and sum the histograms */
int ens_mpi_gather(ens_acc *a, char *msg, size_t msg_size);
/* st on rank 0 to every rank (NH_ERR_NOMEM on every rank when one cannot hold it); long sums
 * over the ranks */
int ens_mpi_bcast_stats(nh_ensemble_stats *st);
void ens_mpi_sum_long(long *v, int n);
/* 0 when MPI can be used (the hdf5 component loads and was built with MPI), else
 * NH_ERR_COMPONENT or NH_ERR_UNSUPPORTED with a message */
int ens_mpi_check(char *msg, size_t msg_size);

/* ---- HDF5 (h5.c) ------------------------------------------------------------------------ */
/* 0 when out (Nullable) writes no HDF5 file or the hdf5 component loads, else
 * NH_ERR_COMPONENT with a message */
int ens_h5_check(const nh_ensemble_out *out, char *msg, size_t msg_size);
typedef struct ens_h5 ens_h5;
/* the values of one chunk, in member order, as the writer takes them */
typedef struct ens_chunk_rows {
  long m0, n;
  const double *vals;   /* (n x nvar) */
  const int *status;    /* (n) */
  const long *impacts;  /* (n) */
  const double *t;      /* (n) */
  const double *xf;     /* (n x nx) */
  const double *samples; /* (n x nt x nx) Nullable */
} ens_chunk_rows;

/* chunk: the members of a chunk of the run (the datasets' rows are stored in chunks of as
 * many, so that a run's chunk is written whole) */
ens_h5 *ens_h5_open(const nh_ensemble_def *d, const nh_ensemble_out *out, long total, long chunk, int nt, int ncols,
                    char *msg, size_t msg_size);
int ens_h5_chunk(ens_h5 *h, const ens_chunk_rows *rows, char *msg, size_t msg_size);
/* an interrupted ensemble of one process: the members' datasets cut to the first `members`
 * (those run), the root's "members" set to it and "interrupted" to 1 */
int ens_h5_truncate(ens_h5 *h, long members, char *msg, size_t msg_size);
/* this rank's impact rows (member order) from the scratch files, and the offsets */
int ens_h5_impacts(ens_h5 *h, FILE *rows, FILE *counts, long m_lo, long m_hi, char *msg, size_t msg_size);
int ens_h5_stats(ens_h5 *h, const nh_ensemble_stats *st, char *msg, size_t msg_size);
/* close and rename into place (ok), or close and remove (!ok) */
int ens_h5_close(ens_h5 *h, int ok, char *msg, size_t msg_size);

/* impact-log columns: t, gap, status, alpha, energy_before, energy_after, vn_before, vn_after,
 * then q, v_before, v_after (nq each) */
#define ENS_IMPACT_FIXED 8

#endif
