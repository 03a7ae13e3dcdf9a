/* nholo/version.h - the version of nholo, and its components. */
#ifndef NHOLO_VERSION_H
#define NHOLO_VERSION_H

#include <stddef.h>

#include "nholo/export.h"

#define NHOLO_VERSION_MAJOR 0
#define NHOLO_VERSION_MINOR 1
#define NHOLO_VERSION_PATCH 0

/* ---- components ----------------------------------------------------------------------
 * The core library needs libc and libm alone; what needs a third-party library is a
 * component loaded on first use (docs/architecture.md, "Components"): "plot" (PLplot: the
 * nh_plot_* figures), "hdf5" (HDF5, and MPI in an MPI build: ensemble files and ranks),
 * "cholmod" (SuiteSparse CHOLMOD: the order of the sparse multiplier solve). */

/* The name of component i (0, 1, ...), NULL past the last. */
NH_API const char *nh_component_name(int i);

/* Load component `name` now: 1 when it is available (info: the library it brings and its
 * file), 0 when it is not (info: why), -1 for an unknown name. */
NH_API int nh_component_load(const char *name, char *info, size_t info_size);

#endif
