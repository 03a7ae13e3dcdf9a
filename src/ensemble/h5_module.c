/* h5_module.c - the hdf5 component (nholo-hdf5.so): the ensemble's HDF5 file (h5.c) and, in a
 * build with MPI and parallel HDF5 (NHOLO_HAVE_MPI), its ranks (mpi.c), behind the table of
 * base/module.h. */
#include <hdf5.h>

#include "base/module.h"
#include "ensemble/ens_module.h"

#define NHM_H5_STR_(x) #x
#define NHM_H5_STR(x) NHM_H5_STR_(x)
#define NHM_H5_VERSION NHM_H5_STR(H5_VERS_MAJOR) "." NHM_H5_STR(H5_VERS_MINOR) "." NHM_H5_STR(H5_VERS_RELEASE)
#ifdef NHOLO_HAVE_MPI
#define NHM_H5_MPI 1
#define NHM_H5_WHAT "parallel HDF5 " NHM_H5_VERSION " and MPI"
#else
#define NHM_H5_MPI 0
#define NHM_H5_WHAT "HDF5 " NHM_H5_VERSION
#endif

_Static_assert(NH_MODULE_MAX_NAME == NH_MAX_NAME, "module.h: NH_MODULE_MAX_NAME is NH_MAX_NAME");

static const nh_module_hdf5 hdf5_table = {
    NH_MODULE_HEAD(nh_module_hdf5, "hdf5", NHM_H5_WHAT),
    NHM_H5_MPI,
    nhm_ensemble_mpi_init,
    nhm_ensemble_mpi_finalize,
    nhm_ensemble_mpi_all,
    nhm_ens_mpi_use,
    nhm_ens_mpi_rank,
    nhm_ens_mpi_all,
    nhm_ens_mpi_gather,
    nhm_ens_mpi_bcast_stats,
    nhm_ens_mpi_sum_long,
    nhm_ens_h5_open,
    nhm_ens_h5_chunk,
    nhm_ens_h5_truncate,
    nhm_ens_h5_impacts,
    nhm_ens_h5_stats,
    nhm_ens_h5_close,
    nhm_ensemble_read_members_h5};

__attribute__((visibility("default"))) const void *nholo_module_table(void);
const void *nholo_module_table(void) { return &hdf5_table; }
