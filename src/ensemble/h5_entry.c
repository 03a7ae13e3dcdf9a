/* h5_entry.c - the ensemble's HDF5 file and MPI ranks in the core: the entries of ens_impl.h
 * and the public calls of nholo/ensemble.h, which open the hdf5 component (nholo-hdf5.so,
 * base/module.h) only when an HDF5 file is read or written or a process runs under an MPI
 * launcher. An ensemble of one process without an HDF5 file opens nothing: its ranks, sums
 * and agreements are the single-process ones here. */
#include <stdlib.h>

#include "base/module.h"
#include "base/msg.h"
#include "ensemble/ens_impl.h"

/* the component (loaded on the first call), or NULL with why in msg (Nullable) */
static const nh_module_hdf5 *hdf5_module(char *msg, size_t msg_size) {
  return (const nh_module_hdf5 *)nh_module_get(NH_MODULE_HDF5, msg, msg_size);
}

/* the component's MPI while the running ensemble uses it (ens_mpi_use), else NULL: one
 * process; MPI started by nh_ensemble_mpi_init */
static const nh_module_hdf5 *mpi_mod;
static int mpi_started;

/* launched by mpirun/mpiexec (Open MPI, MPICH/Hydra) or srun (PMI, PMIx): seen from the
 * environment, so that a process started alone never opens the component */
static int under_launcher(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_STEP_NUM_TASKS"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    if (getenv(vars[i])) return 1;
  return 0;
}

/* ---- the public calls ------------------------------------------------------------------ */

int nh_ensemble_hdf5(void) { return hdf5_module(NULL, 0) != NULL; }

int nh_ensemble_mpi(void) {
  const nh_module_hdf5 *t = hdf5_module(NULL, 0);
  return t && t->mpi;
}

int nh_ensemble_mpi_init(int *argc, char ***argv, int *rank, int *size) {
  *rank = 0, *size = 1;
  if (!under_launcher()) return 0;
  const nh_module_hdf5 *t = hdf5_module(NULL, 0);
  if (!t || !t->mpi || !t->mpi_init(argc, argv, rank, size)) return 0;
  mpi_started = 1;
  return 1;
}

void nh_ensemble_mpi_finalize(void) {
  if (mpi_started) hdf5_module(NULL, 0)->mpi_finalize();
  mpi_started = 0;
}

int nh_ensemble_mpi_all(int ok) {
  // MPI of more than one process is started under a launcher only (by nh_ensemble_mpi_init or
  // the program): otherwise the AND over the ranks is ok itself
  const nh_module_hdf5 *t = mpi_started || under_launcher() ? hdf5_module(NULL, 0) : NULL;
  return t && t->mpi ? t->mpi_all_public(ok) : ok ? 1 : 0;
}

int nh_ensemble_read_members_h5(const char *path, char (*names)[NH_MAX_NAME], int max_cols, int *ncols,
                                double **table, long *rows, char *msg, size_t msg_size) {
  char why[640];
  const nh_module_hdf5 *t = hdf5_module(why, sizeof why);
  if (t) return t->read_members(path, names, max_cols, ncols, table, rows, msg, msg_size);
  *table = NULL, *rows = 0, *ncols = 0;
  nh_set_msg(msg, msg_size, "'%s': %s; give a .csv", path, why);
  return NH_ERR_COMPONENT;
}

/* ---- MPI of the running ensemble -------------------------------------------------------- */

int ens_mpi_check(char *msg, size_t msg_size) {
  char why[640];
  const nh_module_hdf5 *t = hdf5_module(why, sizeof why);
  if (!t) {
    nh_set_msg(msg, msg_size, "ensemble: MPI: %s", why);
    return NH_ERR_COMPONENT;
  }
  if (!t->mpi) {
    nh_set_msg(msg, msg_size, "ensemble: this build has no MPI (its hdf5 component has serial HDF5)");
    return NH_ERR_UNSUPPORTED;
  }
  return NH_OK;
}

void ens_mpi_use(int on) {
  const nh_module_hdf5 *t = on ? hdf5_module(NULL, 0) : mpi_mod;
  if (t && t->mpi) t->mpi_use(on);
  mpi_mod = on && t && t->mpi ? t : NULL;
}

void ens_mpi_rank(int *rank, int *size) {
  *rank = 0, *size = 1;
  if (mpi_mod) mpi_mod->mpi_rank(rank, size);
}

int ens_mpi_all(int ok) { return mpi_mod ? mpi_mod->mpi_all(ok) : ok ? 1 : 0; }

int ens_mpi_gather(ens_acc *a, char *msg, size_t msg_size) {
  return mpi_mod ? mpi_mod->mpi_gather(a, msg, msg_size) : NH_OK;
}

int ens_mpi_bcast_stats(nh_ensemble_stats *st) { return mpi_mod ? mpi_mod->mpi_bcast_stats(st) : NH_OK; }

void ens_mpi_sum_long(long *v, int n) {
  if (mpi_mod) mpi_mod->mpi_sum_long(v, n);
}

/* ---- the HDF5 file ---------------------------------------------------------------------- */

int ens_h5_check(const nh_ensemble_out *out, char *msg, size_t msg_size) {
  char why[640];
  if (!out || !out->path || out->format != NH_ENSEMBLE_HDF5 || hdf5_module(why, sizeof why)) return NH_OK;
  nh_set_msg(msg, msg_size, "ensemble: '%s': %s; write a .csv", out->path, why);
  return NH_ERR_COMPONENT;
}

ens_h5 *ens_h5_open(const nh_ensemble_def *d, const nh_ensemble_out *out, long total, long chunk, int nt, int ncols,
                    char *msg, size_t msg_size) {
  if (ens_h5_check(out, msg, msg_size) != NH_OK) return NULL;
  return hdf5_module(NULL, 0)->h5_open(d, out, total, chunk, nt, ncols, msg, msg_size);
}

/* an ens_h5 exists only when ens_h5_open found the component: the calls below find it open */
int ens_h5_chunk(ens_h5 *h, const ens_chunk_rows *rows, char *msg, size_t msg_size) {
  return hdf5_module(NULL, 0)->h5_chunk(h, rows, msg, msg_size);
}

int ens_h5_truncate(ens_h5 *h, long members, char *msg, size_t msg_size) {
  return hdf5_module(NULL, 0)->h5_truncate(h, members, msg, msg_size);
}

int ens_h5_impacts(ens_h5 *h, FILE *rows, FILE *counts, long m_lo, long m_hi, char *msg, size_t msg_size) {
  return hdf5_module(NULL, 0)->h5_impacts(h, rows, counts, m_lo, m_hi, msg, msg_size);
}

int ens_h5_stats(ens_h5 *h, const nh_ensemble_stats *st, char *msg, size_t msg_size) {
  return hdf5_module(NULL, 0)->h5_stats(h, st, msg, msg_size);
}

int ens_h5_close(ens_h5 *h, int ok, char *msg, size_t msg_size) {
  return h ? hdf5_module(NULL, 0)->h5_close(h, ok, msg, msg_size) : NH_OK;
}
