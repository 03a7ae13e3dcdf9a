/* traj.c - a growable record of the samples (t, q, v) of one run. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nholo/io.h"

#define NH_TRAJ_MIN_CAP 64

nh_traj *nh_traj_create(int nq) {
  if (nq < 1) return NULL;
  nh_traj *traj = calloc(1, sizeof *traj);
  if (!traj) return NULL;
  traj->nq = nq;
  return traj;
}

void nh_traj_destroy(nh_traj *traj) {
  if (!traj) return;
  free(traj->t);
  free(traj->q);
  free(traj->v);
  free(traj->kind);
  free(traj);
}

void nh_traj_clear(nh_traj *traj) {
  if (traj) traj->n = 0;
}

/* Grow the arrays to hold at least `need` samples (amortised doubling). Each array is
 * reallocated separately; cap is raised only when all of them succeeded, so a failure
 * leaves the record valid (some arrays merely larger than cap). */
static int traj_reserve(nh_traj *traj, long need) {
  if (need <= traj->cap) return NH_OK;
  long cap = traj->cap < NH_TRAJ_MIN_CAP ? NH_TRAJ_MIN_CAP : traj->cap;
  while (cap < need) {
    if (cap > LONG_MAX / 2) return NH_ERR_NOMEM;
    cap *= 2;
  }
  size_t ncap = (size_t)cap, nq = (size_t)traj->nq;
  if (ncap > SIZE_MAX / sizeof(double) / nq) return NH_ERR_NOMEM;

  double *t = realloc(traj->t, ncap * sizeof *t);
  if (!t) return NH_ERR_NOMEM;
  traj->t = t;
  int *kind = realloc(traj->kind, ncap * sizeof *kind);
  if (!kind) return NH_ERR_NOMEM;
  traj->kind = kind;
  double *q = realloc(traj->q, ncap * nq * sizeof *q);
  if (!q) return NH_ERR_NOMEM;
  traj->q = q;
  double *v = realloc(traj->v, ncap * nq * sizeof *v);
  if (!v) return NH_ERR_NOMEM;
  traj->v = v;
  traj->cap = cap;
  return NH_OK;
}

int nh_traj_append(nh_traj *traj, nh_sample_kind kind, double t, const double *q,
                   const double *v) {
  if (!traj || traj->nq < 1 || traj->n < 0) return NH_ERR_ARG;
  if (traj->n == LONG_MAX) return NH_ERR_NOMEM;
  int st = traj_reserve(traj, traj->n + 1);
  if (st != NH_OK) return st;
  size_t nq = (size_t)traj->nq, k = (size_t)traj->n;
  traj->t[k] = t;
  traj->kind[k] = (int)kind;
  if (q)
    memcpy(traj->q + k * nq, q, nq * sizeof *q);
  else
    memset(traj->q + k * nq, 0, nq * sizeof *q);
  if (v)
    memcpy(traj->v + k * nq, v, nq * sizeof *v);
  else
    memset(traj->v + k * nq, 0, nq * sizeof *v);
  traj->n++;
  return NH_OK;
}

int nh_traj_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q,
                     const double *v, void *user) {
  (void)sim;
  nh_traj *tr = user;
  // the final state repeats the last step's sample: one row of it is enough
  if (kind == NH_SAMPLE_END && tr && tr->n > 0 && tr->t[tr->n - 1] == t && q && v) {
    size_t nq = (size_t)tr->nq, k = (size_t)tr->n - 1;
    if (memcmp(tr->q + k * nq, q, nq * sizeof *q) == 0 && memcmp(tr->v + k * nq, v, nq * sizeof *v) == 0) return 0;
  }
  return nh_traj_append(tr, kind, t, q, v) == NH_OK ? 0 : 1;
}

/* ---- a bounded record for plots ------------------------------------------------------ */

static int regular(int kind) { return kind == NH_SAMPLE_STEP || kind == NH_SAMPLE_OUTPUT; }

static void traj_move(nh_traj *tr, long from, long to) {
  if (from == to) return;
  size_t nq = (size_t)tr->nq;
  tr->t[to] = tr->t[from];
  tr->kind[to] = tr->kind[from];
  memcpy(tr->q + (size_t)to * nq, tr->q + (size_t)from * nq, nq * sizeof *tr->q);
  memcpy(tr->v + (size_t)to * nq, tr->v + (size_t)from * nq, nq * sizeof *tr->v);
}

/* drop every other regular sample (all = 0), or every other sample but the first and the
 * last (all = 1) */
static void traj_halve(nh_traj *tr, int all) {
  long w = 0, r = 0;
  for (long k = 0; k < tr->n; k++) {
    int keep = all ? (k % 2 == 0 || k == tr->n - 1) : (!regular(tr->kind[k]) || r++ % 2 == 0);
    if (keep) traj_move(tr, k, w++);
  }
  tr->n = w;
}

int nh_traj_thin_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q,
                          const double *v, void *user) {
  nh_traj_thin *th = user;
  if (!th || !th->traj || th->max < 8 || th->stride < 1) return 1;
  if (regular((int)kind) && th->seen++ % th->stride != 0) return 0;
  if (th->traj->n >= th->max) {
    // full: halve the regular samples (and, when they are few, everything)
    traj_halve(th->traj, 0);
    th->stride = th->stride > LONG_MAX / 2 ? th->stride : 2 * th->stride;
    if (th->traj->n > th->max - th->max / 4) traj_halve(th->traj, 1);
    if (regular((int)kind) && (th->seen - 1) % th->stride != 0) return 0; /* off the new stride */
  }
  return nh_traj_observer(sim, kind, t, q, v, th->traj);
}
