/* metric.c - the constrained kinetic metric (model/metric.h): M's factor from the model, and
 * the dynamics' Gram solve, dense, on the constraint rows' extents, or sparse.
 *
 *   G lam = -b - A a,   a += W lam,   W = M^-1 A^T,   G = A W        (spec 000 sec. 2.2)
 *
 * with b = Adot v from the constraint evaluator and a = M^-1 r on entry. */
#include <string.h>

#include "la/la.h"
#include "model/metric.h"
#include "model/model_impl.h"

int nh_metric_eval_at(nh_metric *mt, const nh_model *m, const double *q) {
  int rc;
  if ((rc = nh_cb(m->mass(q, mt->L, m->user)))) return rc;
  if ((rc = nh_metric_factor(mt, mt->L))) return rc;
  if (mt->constant) mt->ready = 1;
  return NH_OK;
}

void nh_metric_inverse(const nh_metric *mt, double *Minv) {
  const int n = mt->nq;
  for (int j = 0; j < n; j++) {
    double *col = Minv + (size_t)j * n;
    for (int i = 0; i < n; i++) col[i] = i == j ? 1.0 : 0.0;
    nh_metric_solve(mt, col);
  }
}

/* doubles of the sparse solve: G's values and the factor (0 without it) */
static size_t sparse_size(const nh_model *m) {
  const struct nh_gram *g = m->gram;
  return g && g->chol ? (size_t)g->rows[m->nc] + nh_la_spchol_work_size(g->chol) : 0;
}

size_t nh_metric_gram_size(const nh_model *m) {
  const size_t nq = (size_t)m->nq, nc = (size_t)m->nc;
  const size_t ints = (4 * nc * sizeof(int) + sizeof(double) - 1) / sizeof(double); /* the envelope */
  return nc * nq + nc * nc + ints + sparse_size(m);
}

void nh_metric_gram_init(nh_metric_gram *g, const nh_model *m, double *work) {
  const size_t nq = (size_t)m->nq, nc = (size_t)m->nc;
  const size_t ints = (4 * nc * sizeof(int) + sizeof(double) - 1) / sizeof(double);
  g->model = m, g->nq = m->nq, g->nc = m->nc;
  g->W = work;
  g->G = g->W + nc * nq;
  g->elo = (int *)(void *)(g->G + nc * nc);
  g->ehi = g->elo + nc, g->efirst = g->ehi + nc, g->elast = g->efirst + nc;
  g->gv = sparse_size(m) ? (double *)(void *)g->elo + ints : NULL;
  g->gwork = g->gv ? g->gv + m->gram->rows[m->nc] : NULL;
  g->ginv = 0.0, g->gready = 0;
}

/* ---- dense ---- */

/* w_j = (M^-1)_jj A_j = A_j dinv_j for a diagonal M (the Gram solve's metric is the dynamics',
 * which keeps dinv: nh_dyn_init) */
static inline double diag_inv(const nh_metric *mt, const double *A, int j) { return A[j] * mt->dinv[j]; }

/* One row A with a diagonal M and its reciprocal diagonal (the sleigh, the knife edge): G is a
 * number and lam = (-b - A a) / G one division (no factor: the path from A to a has no square
 * root), or a product with 1 / G kept from the first solve when the model declares G constant
 * (ginv, Nullable: *ready set once it holds it); inlined for the small nq below, where the
 * loops unroll */
static inline __attribute__((always_inline)) int one_row(int nq, const double *dinv, const double *A, double *W,
                                                         double *lam, double *a, int azero, double *ginv, int *ready) {
  for (int j = 0; j < nq; j++) W[j] = A[j] * dinv[j];
  double l = -lam[0] - (azero ? 0.0 : nh_la_dot(nq, A, a)); /* (A a is +0 for a = +0) */
  if (ginv && *ready) {
    l *= *ginv;
  } else {
    const double G = nh_la_dot(nq, A, W);
    if (!(G > 0.0)) return NH_ERR_SINGULAR;
    if (ginv) *ginv = 1.0 / G, *ready = 1, l *= *ginv;
    else l /= G;
  }
  if (azero) /* 0.0 + l W_j: the bits of the update of a = +0 */
    for (int j = 0; j < nq; j++) a[j] = 0.0 + l * W[j];
  else
    nh_la_axpy(nq, l, W, a);
  lam[0] = l;
  return NH_OK;
}

/* the dense loops (one row with a diagonal M: one_row) */
static int gram_dense(nh_metric_gram *g, const nh_metric *mt, const double *A, double *lam, double *a, int azero) {
  const int nq = g->nq, nc = g->nc;
  double *W = g->W;
  if (nc == 1 && mt->diag && mt->dinv) {
    double *gi = g->model->gram_constant && mt->ready ? &g->ginv : NULL;
    switch (nq) {
    case 2: return one_row(2, mt->dinv, A, W, lam, a, azero, gi, &g->gready);
    case 3: return one_row(3, mt->dinv, A, W, lam, a, azero, gi, &g->gready);
    case 4: return one_row(4, mt->dinv, A, W, lam, a, azero, gi, &g->gready);
    default: return one_row(nq, mt->dinv, A, W, lam, a, azero, gi, &g->gready);
    }
  }
  if (azero) memset(a, 0, sizeof(double) * (size_t)nq);
  if (nh_metric_rows(mt, nc, A, W, g->G) != NH_OK) return NH_ERR_SINGULAR;
  for (int k = 0; k < nc; k++) lam[k] = -lam[k] - nh_la_dot(nq, A + (size_t)k * nq, a);
  nh_la_chol_solve(nc, g->G, lam);
  for (int k = 0; k < nc; k++) nh_la_axpy(nq, lam[k], W + (size_t)k * nq, a);
  return NH_OK;
}

/* ---- on the rows' extents ---- */

/* Per row (A evaluated) the extent [elo, ehi) of its non-zeros and, with a diagonal factor of
 * M, W_k = M^-1 A_k on it (W_k has the zeros of A_k). */
static void row_extents(nh_metric_gram *g, const nh_metric *mt, const double *A) {
  const int nq = g->nq, nc = g->nc;
  int *lo = g->elo, *hi = g->ehi;
  const int *rows = g->model->constraint_rows, *cols = g->model->constraint_cols;
  for (int k = 0; k < nc; k++) {
    const double *Ak = A + (size_t)k * nq;
    double *w = g->W + (size_t)k * nq;
    int l = 0, h = nq; /* scanned inside the row's pattern, when known: the rest is +0 */
    if (rows && rows[k] < rows[k + 1]) l = cols[rows[k]], h = cols[rows[k + 1] - 1] + 1;
    else if (rows) h = 0;
    while (l < h && Ak[l] == 0.0) l++;
    while (h > l && Ak[h - 1] == 0.0) h--;
    if (l == h) l = h = nq; /* an all-zero row: the empty extent at the end (as the full scan) */
    lo[k] = l, hi[k] = h;
    for (int j = l; j < h; j++) w[j] = diag_inv(mt, Ak, j);
  }
}

/* G_ik = A_i . W_k over the overlap of the rows' extents (none: +0) */
static double gram_entry(const nh_metric_gram *g, const double *A, int i, int k) {
  const int nq = g->nq, l = g->elo[i] > g->elo[k] ? g->elo[i] : g->elo[k];
  const int h = g->ehi[i] < g->ehi[k] ? g->ehi[i] : g->ehi[k];
  const double *Ai = A + (size_t)i * nq, *Wk = g->W + (size_t)k * nq;
  double s = 0.0;
  for (int j = l; j < h; j++) s += Ai[j] * Wk[j];
  return s;
}

/* W_k on the extents, G_ik a dot over the overlap of rows i and k, G factored on its envelope;
 * every skipped term is a product with a zero, so lam and a are the dense bits */
static int gram_envelope(nh_metric_gram *g, const nh_metric *mt, const double *A, double *lam, double *a) {
  const int nc = g->nc, nq = g->nq;
  int *lo = g->elo, *hi = g->ehi, *first = g->efirst;
  row_extents(g, mt, A);
  int sorted = 1; /* rows in ascending order of extent (empty ones last)? */
  for (int k = 1; k < nc && sorted; k++) sorted = lo[k] >= lo[k - 1];
  for (int i = 0, p = 0; i < nc; i++) {
    double *Gi = g->G + (size_t)i * nc;
    first[i] = i; /* the first row k < i whose extent overlaps row i's */
    if (sorted) { /* then k overlaps i when hi_k > lo_i, and the first such k never decreases */
      while (p < i && hi[p] <= lo[i]) p++;
      if (p < i && lo[i] < hi[i]) first[i] = p;
    }
    for (int k = 0; !sorted && k < i && first[i] == i; k++)
      if (lo[k] < hi[i] && lo[i] < hi[k]) first[i] = k;
    for (int k = first[i]; k <= i; k++) Gi[k] = gram_entry(g, A, i, k);
  }
  if (nh_la_chol_env(nc, g->G, first, g->elast, 0.0, NULL) != 0) return NH_ERR_SINGULAR;
  for (int k = 0; k < nc; k++) { /* -b - A a on the extents */
    const double *Ak = A + (size_t)k * nq;
    double s = 0.0;
    for (int j = lo[k]; j < hi[k]; j++) s += Ak[j] * a[j];
    lam[k] = -lam[k] - s;
  }
  nh_la_chol_env_solve(nc, g->G, first, g->elast, lam);
  for (int k = 0; k < nc; k++) { /* a += W lam */
    const double *Wk = g->W + (size_t)k * nq;
    for (int j = lo[k]; j < hi[k]; j++) a[j] += lam[k] * Wk[j];
  }
  return NH_OK;
}

/* ---- sparse ---- */

/* A_i . W_k over the columns rows i and k share in A's pattern (sorted lists merged) */
static double gram_entry_pattern(const nh_metric_gram *g, const double *A, const int *rows, const int *cols, int i,
                                 int k) {
  const double *Ai = A + (size_t)i * g->nq, *Wk = g->W + (size_t)k * g->nq;
  double s = 0.0;
  for (int p = rows[i], r = rows[k]; p < rows[i + 1] && r < rows[k + 1];) {
    if (cols[p] < cols[r]) p++;
    else if (cols[p] > cols[r]) r++;
    else s += Ai[cols[p]] * Wk[cols[p]], p++, r++;
  }
  return s;
}

/* G's entries on its pattern (model->gram: the rows sharing a column of A's pattern) and its
 * sparse factor in the analysed order; every loop over A's pattern, so the work is O(entries
 * of A and of L) however far apart a row's columns are */
static int gram_sparse(nh_metric_gram *g, const nh_metric *mt, const double *A, double *lam, double *a) {
  const struct nh_gram *gr = g->model->gram;
  const int nq = g->nq, nc = g->nc, *rows = g->model->constraint_rows, *cols = g->model->constraint_cols;
  for (int k = 0; k < nc; k++) { /* W_k = M^-1 A_k on the pattern */
    const double *Ak = A + (size_t)k * nq;
    double *w = g->W + (size_t)k * nq;
    for (int e = rows[k]; e < rows[k + 1]; e++) {
      const int j = cols[e];
      w[j] = diag_inv(mt, Ak, j);
    }
  }
  for (int i = 0; i < nc; i++)
    for (int e = gr->rows[i]; e < gr->rows[i + 1]; e++) g->gv[e] = gram_entry_pattern(g, A, rows, cols, i, gr->cols[e]);
  if (nh_la_spchol_factor(gr->chol, g->gv, 0.0, NULL, g->gwork) != NH_OK) return NH_ERR_SINGULAR;
  for (int k = 0; k < nc; k++) { /* -b - A a, then G^-1 of it */
    const double *Ak = A + (size_t)k * nq;
    double s = 0.0;
    for (int e = rows[k]; e < rows[k + 1]; e++) s += Ak[cols[e]] * a[cols[e]];
    lam[k] = -lam[k] - s;
  }
  nh_la_spchol_solve(gr->chol, g->gwork, lam);
  for (int k = 0; k < nc; k++) { /* a += W lam */
    const double *Wk = g->W + (size_t)k * nq;
    for (int e = rows[k]; e < rows[k + 1]; e++) a[cols[e]] += lam[k] * Wk[cols[e]];
  }
  return NH_OK;
}

int nh_metric_gram_solve(nh_metric_gram *g, const nh_metric *mt, nh_gram_kind kind, const double *A, double *lam,
                         double *a, int azero) {
  if (azero && kind != NH_GRAM_DENSE) memset(a, 0, sizeof(double) * (size_t)g->nq);
  switch (kind) {
  case NH_GRAM_SPARSE: return gram_sparse(g, mt, A, lam, a);
  case NH_GRAM_ENVELOPE: return gram_envelope(g, mt, A, lam, a);
  default: return gram_dense(g, mt, A, lam, a, azero);
  }
}
