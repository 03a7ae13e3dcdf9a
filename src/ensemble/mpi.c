/* mpi.c - the ensemble across MPI ranks: start-up, the statistics' blocks gathered to rank 0,
 * sums and prefix sums; single-process stand-ins when built without MPI (NHOLO_HAVE_MPI).
 * Part of the hdf5 component (nholo-hdf5.so, ens_module.h): the core's entries, h5_entry.c,
 * call it only under MPI. */
#include <stdlib.h>
#include <string.h>

#include "base/msg.h"
#include "ensemble/ens_module.h"

#ifdef NHOLO_HAVE_MPI
#include <mpi.h>

static int mpi_started;
static int mpi_use; /* the running ensemble asked for MPI (nhm_ens_mpi_use) */

void nhm_ens_mpi_use(int on) { mpi_use = on; }

int nhm_ensemble_mpi_init(int *argc, char ***argv, int *rank, int *size) {
  *rank = 0, *size = 1; /* (the core has seen a launcher: nh_ensemble_mpi_init) */
  int provided;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return 0;
  mpi_started = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return 1;
}

void nhm_ensemble_mpi_finalize(void) {
  if (mpi_started) MPI_Finalize();
  mpi_started = 0;
}

static int active(void) {
  int on = 0;
  return mpi_use && MPI_Initialized(&on) == MPI_SUCCESS && on;
}

int nhm_ensemble_mpi_all(int ok) {
  int all = ok ? 1 : 0, on = 0;
  if (MPI_Initialized(&on) == MPI_SUCCESS && on) MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all;
}

int nhm_ens_mpi_all(int ok) {
  int all = ok ? 1 : 0;
  if (active()) MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all;
}

void nhm_ens_mpi_rank(int *rank, int *size) {
  *rank = 0, *size = 1;
  if (!active()) return;
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
}

int nhm_ens_mpi_gather(ens_acc *a, char *msg, size_t msg_size) {
  int rank, size;
  nhm_ens_mpi_rank(&rank, &size);
  if (size == 1) return NH_OK;
  // every block as (level, index, partial) doubles; counts first
  const size_t per = a->size + 2;
  int mine = a->depth * (int)per, *counts = NULL, *displs = NULL, rc = NH_OK;
  double *send = malloc(sizeof(double) * (size_t)(mine > 0 ? mine : 1)), *recv = NULL;
  if (!send) mine = 0; /* (then every rank fails below) */
  if (rank == 0) {
    counts = malloc(sizeof(int) * (size_t)size), displs = malloc(sizeof(int) * (size_t)size);
  }
  for (int i = 0; send && i < a->depth; i++) {
    send[i * per] = a->stack[i].level, send[i * per + 1] = (double)a->stack[i].index;
    memcpy(send + i * per + 2, a->stack[i].p, sizeof(double) * a->size);
  }
  MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  long total = 0;
  if (rank == 0 && counts && displs)
    for (int r = 0; r < size; r++) displs[r] = (int)total, total += counts[r];
  if (rank == 0) recv = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
  MPI_Gatherv(send, mine, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (a->hist) {
    const int n = (int)((size_t)a->nt * a->hblock);
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : a->hist, a->hist, n, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  }
  if (rank == 0) {
    a->depth = 0; // the blocks of every rank, in rank (chunk) order, merged again
    for (long i = 0; recv && i < total / (long)per && rc == NH_OK; i++)
      rc = ens_acc_push(a, (int)recv[i * per], (long)recv[i * per + 1], recv + i * per + 2);
    if (!recv || !counts || !displs) rc = NH_ERR_NOMEM;
  }
  free(send), free(recv), free(counts), free(displs);
  if (!send) rc = NH_ERR_NOMEM;
  if (!nhm_ens_mpi_all(rc == NH_OK)) {
    nh_set_msg(msg, msg_size, "ensemble: out of memory gathering the statistics");
    return NH_ERR_NOMEM;
  }
  return NH_OK;
}

int nhm_ens_mpi_bcast_stats(nh_ensemble_stats *st) {
  int rank, size;
  nhm_ens_mpi_rank(&rank, &size);
  if (size == 1) return NH_OK;
  MPI_Bcast(&st->ok, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Bcast(st->mean, 4 * st->nx, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int nt[2] = {st->nt, st->nstat};
  MPI_Bcast(nt, 2, MPI_INT, 0, MPI_COMM_WORLD);
  if (nt[0] == 0) return NH_OK;
  const size_t tk = (size_t)nt[0] * (size_t)nt[1];
  if (rank != 0) {
    st->nt = nt[0], st->nstat = nt[1];
    st->t_n = malloc(sizeof(long) * (size_t)nt[0]);
    st->t_mean = malloc(sizeof(double) * tk * (4 + NH_ENSEMBLE_NQ));
    if (st->t_mean)
      st->t_var = st->t_mean + tk, st->t_min = st->t_var + tk, st->t_max = st->t_min + tk, st->t_q = st->t_max + tk;
  }
  if (!nhm_ens_mpi_all(st->t_n && st->t_mean)) return NH_ERR_NOMEM; /* every rank, or none, goes on */
  MPI_Bcast(st->t_n, nt[0], MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Bcast(st->t_mean, (int)(tk * (4 + NH_ENSEMBLE_NQ)), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return NH_OK;
}

void nhm_ens_mpi_sum_long(long *v, int n) {
  if (active()) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
}

void nhm_ens_mpi_exscan(long v, long *before, long *total) {
  int rank, size;
  nhm_ens_mpi_rank(&rank, &size);
  *before = 0, *total = v;
  if (size == 1) return;
  MPI_Exscan(&v, before, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) *before = 0; /* undefined on rank 0 */
  MPI_Allreduce(&v, total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
}

void nhm_ens_mpi_bcast_long(long *v) {
  if (active()) MPI_Bcast(v, 1, MPI_LONG, 0, MPI_COMM_WORLD);
}

#else /* one process */

int nhm_ensemble_mpi_init(int *argc, char ***argv, int *rank, int *size) {
  (void)argc, (void)argv;
  *rank = 0, *size = 1;
  return 0;
}
void nhm_ensemble_mpi_finalize(void) {}
void nhm_ens_mpi_use(int on) { (void)on; }
int nhm_ensemble_mpi_all(int ok) { return ok ? 1 : 0; }
int nhm_ens_mpi_all(int ok) { return ok ? 1 : 0; }
void nhm_ens_mpi_rank(int *rank, int *size) { *rank = 0, *size = 1; }
int nhm_ens_mpi_gather(ens_acc *a, char *msg, size_t msg_size) {
  (void)a, (void)msg, (void)msg_size;
  return NH_OK;
}
int nhm_ens_mpi_bcast_stats(nh_ensemble_stats *st) {
  (void)st;
  return NH_OK;
}
void nhm_ens_mpi_sum_long(long *v, int n) { (void)v, (void)n; }
void nhm_ens_mpi_exscan(long v, long *before, long *total) { *before = 0, *total = v; }
void nhm_ens_mpi_bcast_long(long *v) { (void)v; }

#endif
