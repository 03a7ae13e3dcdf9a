/* nholo/ensemble.h - ensembles: many runs of one model that differ in initial values and
 * parameters drawn from distributions, run in parallel (POSIX threads) with results that do not
 * depend on the number of threads (docs/ensembles.md).
 *
 * A variable is NAME=uniform:A:B (uniform on [A, B)), NAME=normal:MU:SIGMA or
 * NAME=grid:A:B:K (K equally spaced values from A to B, both included). Grids form a product:
 * with grids of K1, K2, ... points and R replicas (nh_ensemble_def.replicas) there are
 * K1 K2 ... R members; member m is replica m % R of grid point m / R, the LAST grid varying
 * fastest. Random variables are drawn anew for every member.
 *
 * Random numbers are counter-based: the d-th 64-bit draw of member m under seed s is
 *
 *   nh_ensemble_bits(s, m, d) = f(f(f(s) ^ m) ^ d),   f(z) = splitmix64 finaliser of z + 0x9E3779B97F4A7C15
 *
 * a pure function of (s, m, d): no state is carried from member to member, so a member's
 * values do not depend on which thread runs it or in which order. Variable j uses draws
 * d = 2j (uniform: u = top 53 bits / 2^53 in [0, 1)) and 2j + 1 (normal: Box-Muller with
 * u1 = 1 - u(2j) in (0, 1], u2 = u(2j + 1): MU + SIGMA sqrt(-2 ln u1) cos(2 pi u2)). */
#ifndef NHOLO_ENSEMBLE_H
#define NHOLO_ENSEMBLE_H

#include <stdint.h>

#include "nholo/model.h"
#include "nholo/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nh_dist_kind { NH_DIST_UNIFORM = 0, NH_DIST_NORMAL = 1, NH_DIST_GRID = 2 } nh_dist_kind;

/* What a variable sets: a component of the first-order state x (a coordinate q_i at x[i], a
 * velocity at x[nq + i]; an ODE-form model's state), or a parameter, which only the
 * nh_ensemble_def.build callback applies. */
typedef enum nh_vary_target { NH_VARY_STATE = 0, NH_VARY_PARAM = 1 } nh_vary_target;

typedef struct nh_ensemble_var {
  char name[NH_MAX_NAME];
  nh_dist_kind kind;
  double a, b; /* uniform [a, b); normal mu = a, sigma = b; grid from a to b */
  long k;      /* grid: number of points (>= 1; 1 gives a) */
  nh_vary_target target;
  int index;   /* NH_VARY_STATE: index into x */
} nh_ensemble_var;

/* Parse "NAME=uniform:A:B", "NAME=normal:MU:SIGMA" or "NAME=grid:A:B:K" into var (target
 * and index left 0 for the caller to resolve). NH_ERR_ARG with a one-line message on bad
 * input (B <= A, SIGMA < 0, K < 1 or over NH_ENSEMBLE_MAX_GRID, a number that does not
 * parse or is not finite). */
#define NH_ENSEMBLE_MAX_GRID 100000000L
NH_API int nh_ensemble_parse_var(const char *text, nh_ensemble_var *var, char *msg, size_t msg_size);

/* The counter-based stream (above). */
NH_API uint64_t nh_ensemble_bits(uint64_t seed, uint64_t member, uint64_t draw);
/* u in [0, 1) from nh_ensemble_bits(seed, member, draw): its top 53 bits times 2^-53 */
NH_API double nh_ensemble_uniform(uint64_t seed, uint64_t member, uint64_t draw);

/* The value of variable j (of vars) for member m: grids from the member's grid point, the
 * others drawn from the stream. replicas as in nh_ensemble_def. */
NH_API double nh_ensemble_value(const nh_ensemble_var *vars, int nvar, int j, long replicas,
                                uint64_t seed, long m);
/* Members: replicas times the product of the grids' sizes; -1 when it exceeds
 * NH_ENSEMBLE_MAX_MEMBERS. */
#define NH_ENSEMBLE_MAX_MEMBERS 1000000000L
NH_API long nh_ensemble_count(const nh_ensemble_var *vars, int nvar, long replicas);

/* A member's model when parameters vary: build a model (owned by the caller of the ensemble,
 * destroyed after the member) from the member's values (nvar, in the order of vars; the
 * state variables among them too). Called from the worker threads: it must be thread-safe. */
typedef int (*nh_ensemble_build_fn)(const double *values, nh_model **model, char *msg, size_t msg_size,
                                    void *user);
/* Progress, called from one thread between chunks: members done of total. */
typedef void (*nh_ensemble_progress_fn)(long done, long total, void *user);

/* An output followed over the sample grid: component `index` of the state x; with lo < hi a
 * histogram of `bins` equal bins on [lo, hi] (and one below, one above) gives its quantiles. */
typedef struct nh_ensemble_stat {
  int index;
  double lo, hi;
  int bins; /* >= 1 when lo < hi; at most NH_ENSEMBLE_MAX_BINS */
} nh_ensemble_stat;
#define NH_ENSEMBLE_MAX_BINS 100000
/* the quantile levels of the time statistics: 0.05, 0.25, 0.5, 0.75, 0.95 */
#define NH_ENSEMBLE_NQ 5
NH_API double nh_ensemble_q_level(int i);

typedef struct nh_ensemble_def {
  const nh_model *model; /* shared read-only by every member (the state's layout and the CSV's
                            header); a member with build set runs its own model instead */
  nh_sim_def sim;        /* every member's options; its cancel flag (Nullable), when set, stops
                            the members running at their next step (NH_INTERRUPTED, on every
                            thread), starts no other and ends the ensemble (nh_ensemble_run) */
  double t_end;          /* each member runs to t_end or max_impacts impacts (0: no limit) */
  long max_impacts;
  int nvar;
  const nh_ensemble_var *vars;
  long replicas;         /* members per grid point (all members without grids), >= 1 */
  uint64_t seed;
  int threads;           /* 0..4096; 0: OMP_NUM_THREADS when set, else the cores this process may use */
  nh_ensemble_build_fn build; /* Nullable: required when a variable is a parameter */
  void *build_user;
  nh_ensemble_progress_fn progress; /* Nullable */
  void *progress_user;
  /* explicit members (Nullable): table_rows rows of nvar values, row m member m's values in
   * the order of vars; replaces the distributions (vars' kinds) and replicas */
  const double *table;
  long table_rows;
  /* > 0: the common time grid t_k = k sample_dt, k = 0 .. floor(t_end / sample_dt) (at most
   * NH_ENSEMBLE_MAX_SAMPLES samples): members' trajectories (HDF5) and the time statistics */
  double sample_dt;
  int nstat;                    /* outputs followed over the grid (needs sample_dt) */
  const nh_ensemble_stat *stats;
  long chunk; /* members per chunk, the unit of the statistics' reduction and of the split over
                 ranks (0: 4096, fewer when sampled trajectories would pass 32 MB); the
                 statistics' last bits depend on it, never on threads or ranks */
  int mpi; /* 1: split the members over the MPI ranks (nh_ensemble_mpi_init); needs the hdf5
              component built with MPI (nh_ensemble_mpi; else NH_ERR_COMPONENT or
              NH_ERR_UNSUPPORTED) */
} nh_ensemble_def;
#define NH_ENSEMBLE_MAX_SAMPLES 10000000L

/* Streaming statistics of the final state over the members that completed, accumulated in
 * member order (Welford), so independent of the threads. A member completed when it ended
 * with NH_OK, NH_EVENT_STOP or NH_DRIFT: NH_DRIFT is a run that reached its end with a valid
 * state while its method left its regime (its conserved quantity or the energy drifted), a
 * warning about the method that `nholo run` reports with exit status 4 keeping its outputs,
 * not a failed computation. */
typedef struct nh_ensemble_stats {
  long members, ok, failed; /* ok: the members that completed; failed: any other status */
  long drifted;             /* of the ok members, those that ended with NH_DRIFT */
  long interrupted;         /* of the failed members, those the cancellation flag stopped
                               (NH_INTERRUPTED) */
  int nx;
  double *mean, *var, *min, *max; /* (nx) var: the sample variance (n - 1), 0 for one member;
                                     all NaN when no member completed (ok = 0) */
  int threads;                    /* the threads used (on each rank) */
  int ranks;                      /* MPI ranks (1 without MPI) */
  /* over the sample grid (nt samples, nstat outputs; NULL without): t_n[k] members that
   * completed and reached t_k; per (k, output) at [k * nstat + s] mean, variance, min, max
   * (NaN where t_n is 0) and at [(k * nstat + s) * NH_ENSEMBLE_NQ + i] quantile i (NaN
   * without a histogram, or where it falls below lo or above hi) */
  int nt, nstat;
  long *t_n;
  double *t_mean, *t_var, *t_min, *t_max, *t_q;
} nh_ensemble_stats;

NH_API void nh_ensemble_stats_free(nh_ensemble_stats *st);

/* 1: the members run in parallel (POSIX threads, part of every build; kept for callers that
 * asked when threads were optional) */
NH_API int nh_ensemble_parallel(void);

/* Run the ensemble. With csv_path (Nullable) write one row per member, in member order:
 * member, the variables' values, status (nh_status_name), impacts, t_end, the final state x
 * (columns final_NAME, NAME of nh_model.state_names), written through an nh_outfile (nothing is left at the path on
 * failure). stats (Nullable) is filled (free it with nh_ensemble_stats_free). A member that
 * fails records its status and the others go on; the return is NH_OK then, or an error that
 * stopped the whole ensemble (bad definition, out of memory, the CSV) with a message.
 * NH_INTERRUPTED (def->sim.cancel set): the members that started, the first M in member order
 * (the threads take them in order), are kept as a whole ensemble's would be (the rows, the
 * statistics, an HDF5 file cut to them with its attribute "interrupted" 1), those the flag
 * stopped with status NH_INTERRUPTED, their state where they stopped; with the message
 * "ensemble: interrupted after M of N members ...". Under MPI
 * with more than one rank an interrupted ensemble writes nothing (the ranks stop inside their
 * own ranges: the members run are not the first ones). */
NH_API int nh_ensemble_run(const nh_ensemble_def *def, const char *csv_path, nh_ensemble_stats *stats,
                           char *msg, size_t msg_size);

/* ---- HDF5 output and MPI (docs/ensembles.md) --------------------------------------------- */

typedef enum nh_ensemble_format { NH_ENSEMBLE_CSV = 0, NH_ENSEMBLE_HDF5 = 1 } nh_ensemble_format;

typedef struct nh_ensemble_out {
  const char *path;   /* Nullable: no output */
  int format;         /* nh_ensemble_format */
  int trajectories;   /* HDF5: each member's state on the sample grid (needs sample_dt) */
  const char *model_name, *method_name; /* Nullable: HDF5 attributes */
  int no_impact_log;  /* HDF5: 1 leaves the impact log (/impacts) out: every impact is a row
                         of 8 + 3 nq doubles (the penny's 20 impacts: 3.2 kB per member);
                         members/impacts still counts them */
} nh_ensemble_out;

/* nh_ensemble_run with an output of either format. HDF5 (docs/ensembles.md has the layout):
 * per member its values, status, impact count, final time and state, its impact log (one
 * flat table with offsets; unless out->no_impact_log) and optionally its trajectory on the
 * sample grid; the statistics.
 * Written to a temporary beside the path and renamed into place (nothing is left on
 * failure). With def->mpi the members are split over the ranks, every rank calls this with
 * the same definition and output, and the file is written through parallel HDF5: its data
 * are the same bit for bit as with one process; stats are filled on every rank.
 * HDF5 and MPI come from the hdf5 component (nholo.h), opened here only for an HDF5 output or
 * def->mpi: NH_ERR_COMPONENT with why when it cannot be, before any member runs. */
NH_API int nh_ensemble_run_to(const nh_ensemble_def *def, const nh_ensemble_out *out, nh_ensemble_stats *stats,
                              char *msg, size_t msg_size);

/* Explicit members from an HDF5 file: the dataset /members/values (rows x columns, float) and
 * its string attribute "columns" (the names, comma-separated), the layout nh_ensemble_run_to
 * writes (an ensemble's file replays its members). names: max_cols buffers of NH_MAX_NAME;
 * *table (rows x ncols, row-major) is the caller's to free. NH_ERR_IO (no such file, not
 * HDF5, no such dataset), NH_ERR_ARG (no names, a count that does not match, more than
 * max_cols columns, no rows, a value that is not finite) or NH_ERR_COMPONENT (the hdf5
 * component cannot be opened: the message says why), with a message. */
NH_API int nh_ensemble_read_members_h5(const char *path, char (*names)[NH_MAX_NAME], int max_cols, int *ncols,
                                       double **table, long *rows, char *msg, size_t msg_size);

/* 1 when the hdf5 component opens (HDF5 output) / opens and has MPI; either call opens it
 * (loading HDF5, and MPI in an MPI build): not for a process that needs neither */
NH_API int nh_ensemble_hdf5(void);
NH_API int nh_ensemble_mpi(void);
/* Under an MPI launcher (mpirun, srun; seen from its environment, before anything is opened)
 * and with the hdf5 component built with MPI: MPI_Init, and rank and size set; returns 1.
 * Otherwise rank 0 of 1 and returns 0 (a plain process start, which loads no MPI; no
 * component or one without MPI). */
NH_API int nh_ensemble_mpi_init(int *argc, char ***argv, int *rank, int *size);
/* MPI_Finalize after nh_ensemble_mpi_init returned 1; nothing otherwise */
NH_API void nh_ensemble_mpi_finalize(void);
/* the logical AND of ok over the ranks (ok itself without MPI): for a collective decision */
NH_API int nh_ensemble_mpi_all(int ok);

#ifdef __cplusplus
}
#endif

#endif
