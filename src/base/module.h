/* module.h - components of nholo loaded on first use (private; docs/architecture.md,
 * "Components").
 *
 * The core library depends on libc and libm alone. What needs a heavy third-party library
 * lives in a module, a shared object of its own that the core opens with dlopen the first
 * time it is needed:
 *
 *   plot     nholo-plot.so     PLplot: nh_plot_* and the papers' penny drawings
 *   hdf5     nholo-hdf5.so     HDF5 (parallel HDF5 and MPI in an MPI build): ensemble files
 *   cholmod  nholo-cholmod.so  SuiteSparse CHOLMOD: the fill-reducing order of sparse solves
 *
 * A module is built from its own sources linked with a private copy of the core objects it
 * calls (so it needs no exported core symbols, and works under the static library and the
 * CLI alike); it exports one symbol, NH_MODULE_SYMBOL, a function returning its table. The
 * table starts with an nh_module_head; a module whose head does not match this build (ABI
 * number, table size, version) is passed over like a missing one.
 *
 * Search, first match wins: $NHOLO_MODULE_PATH (a directory) alone when it is set, else
 *   2. nholo-modules/ beside the object holding the core (libnholo.so, the nholo program,
 *      a Python extension);
 *   3. NHOLO_MODULE_REL from that object's directory (an installed program: ../lib/...);
 *   4. the installed module directory, then the build tree's (both fixed at build time). */
#ifndef NH_BASE_MODULE_H
#define NH_BASE_MODULE_H

#include <stddef.h>
#include <stdio.h>

#include "nholo/status.h"
#include "nholo/version.h"

/* NH_MAX_NAME of nholo/model.h (a layer above; h5_module.c checks they agree) */
#define NH_MODULE_MAX_NAME 64
#define NH_MODULE_ABI 1 /* raise on any change of a table below */
#define NH_MODULE_SYMBOL "nholo_module_table"

typedef enum nh_module_id {
  NH_MODULE_PLOT = 0,
  NH_MODULE_HDF5 = 1,
  NH_MODULE_CHOLMOD = 2,
  NH_MODULE_COUNT = 3
} nh_module_id;

typedef struct nh_module_head {
  int abi;             /* NH_MODULE_ABI of the module's build */
  size_t size;         /* sizeof its table */
  const char *version; /* NH_MODULE_VERSION of its build */
  const char *name;    /* "plot", ... */
  const char *what;    /* the library it brings, for messages ("PLplot 5.15.0") */
} nh_module_head;

#define NH_MODULE_STR_(x) #x
#define NH_MODULE_STR(x) NH_MODULE_STR_(x)
#define NH_MODULE_VERSION                                                                    \
  NH_MODULE_STR(NHOLO_VERSION_MAJOR) "." NH_MODULE_STR(NHOLO_VERSION_MINOR) "." NH_MODULE_STR(NHOLO_VERSION_PATCH)
#define NH_MODULE_HEAD(table_type, name, what)                                               \
  { NH_MODULE_ABI, sizeof(table_type), NH_MODULE_VERSION, name, what }

/* The table of module id (its head first), or NULL with a message naming the module and why
 * it is unavailable. Thread-safe; a module is opened once and stays open. */
const void *nh_module_get(nh_module_id id, char *msg, size_t msg_size);

/* The module's name ("plot"), and its file name ("nholo-plot.so"). */
const char *nh_module_name(nh_module_id id);

/* ---- the tables ----------------------------------------------------------------------- */
struct nh_model;
struct nh_traj;
struct nh_sim;
struct nh_plot_panel;
struct nh_ensemble_def;
struct nh_ensemble_out;
struct nh_ensemble_stats;
struct ens_acc;
struct ens_h5;
struct ens_chunk_rows;

typedef struct nh_module_plot {
  nh_module_head head;
  int (*timeseries)(const char *path, const struct nh_model *model, const struct nh_traj *traj,
                    const struct nh_sim *sim, const char *title, char *msg, size_t msg_size);
  int (*panels)(const char *path, int nrows, int ncols, int npanels,
                const struct nh_plot_panel *panels, const char *title, char *msg,
                size_t msg_size);
  /* the papers' penny drawings (src/papers/papers.h) */
  int (*penny)(const char *path, double a, double b, double R, const struct nh_traj *traj,
               const struct nh_sim *sim, const char *title, char *msg, size_t msg_size);
  int (*penny_ensemble)(const char *path, double a, double b, int npanels, int n,
                        const double *x, const double *y, const char *const *panel_titles,
                        const char *title, char *msg, size_t msg_size);
} nh_module_plot;

/* hdf5: the ensemble's HDF5 file and, in an MPI build, its ranks (src/ensemble/ens_impl.h has
 * what each does; the core's entries, ensemble/h5_entry.c, call these only for an HDF5 file or
 * an ensemble under MPI) */
typedef struct nh_module_hdf5 {
  nh_module_head head;
  int mpi; /* 1: built with MPI and parallel HDF5 */
  /* MPI: the public calls (nholo/ensemble.h) */
  int (*mpi_init)(int *argc, char ***argv, int *rank, int *size);
  void (*mpi_finalize)(void);
  int (*mpi_all_public)(int ok);
  /* MPI: the running ensemble's (ens_mpi_*) */
  void (*mpi_use)(int on);
  void (*mpi_rank)(int *rank, int *size);
  int (*mpi_all)(int ok);
  int (*mpi_gather)(struct ens_acc *a, char *msg, size_t msg_size);
  int (*mpi_bcast_stats)(struct nh_ensemble_stats *st);
  void (*mpi_sum_long)(long *v, int n);
  /* HDF5: the ensemble's file (ens_h5_*) and a member file */
  struct ens_h5 *(*h5_open)(const struct nh_ensemble_def *d, const struct nh_ensemble_out *out, long total,
                            long chunk, int nt, int ncols, char *msg, size_t msg_size);
  int (*h5_chunk)(struct ens_h5 *h, const struct ens_chunk_rows *rows, char *msg, size_t msg_size);
  int (*h5_truncate)(struct ens_h5 *h, long members, char *msg, size_t msg_size);
  int (*h5_impacts)(struct ens_h5 *h, FILE *rows, FILE *counts, long m_lo, long m_hi, char *msg, size_t msg_size);
  int (*h5_stats)(struct ens_h5 *h, const struct nh_ensemble_stats *st, char *msg, size_t msg_size);
  int (*h5_close)(struct ens_h5 *h, int ok, char *msg, size_t msg_size);
  int (*read_members)(const char *path, char (*names)[NH_MODULE_MAX_NAME], int max_cols, int *ncols, double **table,
                      long *rows, char *msg, size_t msg_size);
} nh_module_hdf5;

typedef struct nh_module_cholmod {
  nh_module_head head;
  /* perm (n) <- the approximate minimum degree order of the pattern of an upper triangle by
   * columns (colstart: n + 1 starts, rowidx: the rows); NH_OK or a status */
  int (*amd_order)(int n, const int *colstart, const int *rowidx, int *perm);
} nh_module_cholmod;

#endif
