/* ens_module.h - the hdf5 component's own functions (private to nholo-hdf5.so): mpi.c and
 * h5.c under names of their own, so that the module calls itself and never the core's entries
 * of ens_impl.h (h5_entry.c, which would open the module again). h5_module.c puts them in the
 * table of base/module.h; ens_impl.h says what each does. */
#ifndef NH_ENS_MODULE_H
#define NH_ENS_MODULE_H

#include "ensemble/ens_impl.h"

/* ---- MPI (mpi.c; single-process stand-ins in a build without MPI) ---------------------- */
int nhm_ensemble_mpi_init(int *argc, char ***argv, int *rank, int *size);
void nhm_ensemble_mpi_finalize(void);
int nhm_ensemble_mpi_all(int ok);
void nhm_ens_mpi_use(int on);
void nhm_ens_mpi_rank(int *rank, int *size);
int nhm_ens_mpi_all(int ok);
int nhm_ens_mpi_gather(ens_acc *a, char *msg, size_t msg_size);
int nhm_ens_mpi_bcast_stats(nh_ensemble_stats *st);
void nhm_ens_mpi_sum_long(long *v, int n);
/* the exclusive prefix sum over the ranks of v, and the total */
void nhm_ens_mpi_exscan(long v, long *before, long *total);
void nhm_ens_mpi_bcast_long(long *v);

/* ---- HDF5 (h5.c) ------------------------------------------------------------------------ */
ens_h5 *nhm_ens_h5_open(const nh_ensemble_def *d, const nh_ensemble_out *out, long total, long chunk, int nt,
                        int ncols, char *msg, size_t msg_size);
int nhm_ens_h5_chunk(ens_h5 *h, const ens_chunk_rows *rows, char *msg, size_t msg_size);
int nhm_ens_h5_truncate(ens_h5 *h, long members, char *msg, size_t msg_size);
int nhm_ens_h5_impacts(ens_h5 *h, FILE *rows, FILE *counts, long m_lo, long m_hi, char *msg, size_t msg_size);
int nhm_ens_h5_stats(ens_h5 *h, const nh_ensemble_stats *st, char *msg, size_t msg_size);
int nhm_ens_h5_close(ens_h5 *h, int ok, char *msg, size_t msg_size);
int nhm_ensemble_read_members_h5(const char *path, char (*names)[NH_MAX_NAME], int max_cols, int *ncols,
                                 double **table, long *rows, char *msg, size_t msg_size);

#endif
