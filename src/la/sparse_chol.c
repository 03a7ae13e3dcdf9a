/* sparse_chol.c - Cholesky factorization of a sparse SPD matrix in a fill-reducing order.
 *
 * The analysis (once, allocating): CHOLMOD's approximate minimum degree order P when the
 * cholmod component loads (la/cholmod_module.c: cholmod_analyze, simplicial), the upper triangle of P A P^T by
 * columns, its elimination tree and the pattern of L by columns (the diagonal first). The
 * numeric factorization is the up-looking one (row k of L by a sparse triangular solve over
 * the tree's reach of column k, as in Davis, "Direct Methods for Sparse Linear Systems",
 * sec. 4.8) into caller scratch: CHOLMOD's own cholmod_factorize copies the permuted matrix
 * on every call (it allocates), which a time step must not, so it only orders here. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/module.h"
#include "la/la.h"

struct nh_la_spchol {
  int n;
  long nnz, lnz, env; /* entries given (lower triangle), of L, of the given envelope */
  int *perm;          /* (n) pivot k is row perm[k] of A */
  int *parent;        /* (n) elimination tree of P A P^T (-1: a root) */
  int *Cp, *Ci, *Cv;  /* (n + 1, nnz, nnz) upper triangle of P A P^T by columns; Cv: the
                       * index of each entry in the caller's values */
  int *Lp, *Li;       /* (n + 1, lnz) pattern of L by columns, the diagonal first */
};

/* the AMD order comes from the cholmod component (base/module.h), opened on first use */
static const nh_module_cholmod *cholmod_module(void) {
  return (const nh_module_cholmod *)nh_module_get(NH_MODULE_CHOLMOD, NULL, 0);
}

int nh_la_spchol_have_amd(void) { return cholmod_module() != NULL; }

/* the pattern: rows ascending within a row, inside [0, i], the diagonal present */
static int pattern_ok(int n, const int *rows, const int *cols) {
  if (rows[0] != 0) return 0;
  for (int i = 0; i < n; i++) {
    if (rows[i + 1] <= rows[i] || cols[rows[i + 1] - 1] != i || cols[rows[i]] < 0) return 0;
    for (int e = rows[i] + 1; e < rows[i + 1]; e++)
      if (cols[e] <= cols[e - 1]) return 0;
  }
  return 1;
}

/* top of the reach of column k in the tree: s[top .. n) holds the columns j < k of row k of
 * L, each before its ancestors; w marks with k (entries start < 0) */
static int ereach(const nh_la_spchol *S, int k, int *s, int *w) {
  int top = S->n;
  w[k] = k;
  for (int p = S->Cp[k]; p < S->Cp[k + 1]; p++) {
    int i = S->Ci[p], len = 0;
    for (; w[i] != k; i = S->parent[i]) s[len++] = i, w[i] = k;
    while (len > 0) s[--top] = s[--len];
  }
  return top;
}

/* C = upper triangle of P A P^T by columns, the tree, and L's column counts into Lp */
static void symbolic(nh_la_spchol *S, const int *rows, const int *cols, int *iw) {
  const int n = S->n;
  int *pinv = iw, *anc = iw + n, *cnt = iw + 2 * n;
  for (int k = 0; k < n; k++) pinv[S->perm[k]] = k, cnt[k] = 0;
  for (int i = 0; i < n; i++)
    for (int e = rows[i]; e < rows[i + 1]; e++) {
      int a = pinv[i], b = pinv[cols[e]];
      cnt[a > b ? a : b]++;
    }
  S->Cp[0] = 0;
  for (int k = 0; k < n; k++) S->Cp[k + 1] = S->Cp[k] + cnt[k], cnt[k] = S->Cp[k];
  for (int i = 0; i < n; i++)
    for (int e = rows[i]; e < rows[i + 1]; e++) {
      int a = pinv[i], b = pinv[cols[e]], p = cnt[a > b ? a : b]++;
      S->Ci[p] = a < b ? a : b, S->Cv[p] = e;
    }
  for (int k = 0; k < n; k++) { /* the elimination tree (path compression through anc) */
    S->parent[k] = -1, anc[k] = -1;
    for (int p = S->Cp[k]; p < S->Cp[k + 1]; p++)
      for (int i = S->Ci[p], next; i != -1 && i < k; i = next) {
        next = anc[i], anc[i] = k;
        if (next == -1) S->parent[i] = k;
      }
  }
}

int nh_la_spchol_analyze(int n, const int *rows, const int *cols, int order, nh_la_spchol **out) {
  *out = NULL;
  if (n < 1 || !rows || !cols || !pattern_ok(n, rows, cols)) return NH_ERR_ARG;
  const nh_module_cholmod *amd = order == NH_LA_ORDER_AMD ? cholmod_module() : NULL;
  if (order == NH_LA_ORDER_AMD && !amd) return NH_ERR_UNSUPPORTED;
  const long nnz = rows[n];
  nh_la_spchol *S = calloc(1, sizeof *S);
  int *iw = malloc(sizeof(int) * 4 * (size_t)n);
  int rc = S && iw ? NH_OK : NH_ERR_NOMEM;
  if (rc == NH_OK) {
    S->n = n, S->nnz = nnz;
    S->perm = malloc(sizeof(int) * (size_t)n), S->parent = malloc(sizeof(int) * (size_t)n);
    S->Cp = malloc(sizeof(int) * ((size_t)n + 1)), S->Lp = malloc(sizeof(int) * ((size_t)n + 1));
    S->Ci = malloc(sizeof(int) * (size_t)nnz), S->Cv = malloc(sizeof(int) * (size_t)nnz);
    if (!S->perm || !S->parent || !S->Cp || !S->Lp || !S->Ci || !S->Cv) rc = NH_ERR_NOMEM;
  }
  for (int i = 0; rc == NH_OK && i < n; i++) S->perm[i] = i, S->env += i - cols[rows[i]] + 1;
  if (rc == NH_OK && amd) rc = amd->amd_order(n, rows, cols, S->perm);
  if (rc == NH_OK) { /* the column counts of L by one symbolic pass of the rows */
    symbolic(S, rows, cols, iw);
    int *cnt = iw + 2 * n, *w = iw + 3 * n, *s = iw;
    for (int k = 0; k < n; k++) cnt[k] = 1, w[k] = -1;
    for (int k = 0; k < n; k++)
      for (int t = ereach(S, k, s, w); t < n; t++) cnt[s[t]]++;
    long lnz = 0;
    S->Lp[0] = 0;
    for (int k = 0; k < n && lnz <= INT_MAX; k++) lnz += cnt[k], S->Lp[k + 1] = (int)(lnz <= INT_MAX ? lnz : 0);
    S->lnz = lnz;
    if (lnz > INT_MAX || !(S->Li = malloc(sizeof(int) * (size_t)lnz))) rc = NH_ERR_NOMEM;
  }
  if (rc == NH_OK) { /* the rows of L's columns, in the order the factorization writes them */
    int *next = iw + 2 * n, *w = iw + 3 * n, *s = iw;
    for (int k = 0; k < n; k++) S->Li[S->Lp[k]] = k, next[k] = S->Lp[k] + 1, w[k] = -1;
    for (int k = 0; k < n; k++)
      for (int t = ereach(S, k, s, w); t < n; t++) S->Li[next[s[t]]++] = k;
  }
  free(iw);
  if (rc != NH_OK) {
    nh_la_spchol_free(S);
    return rc;
  }
  *out = S;
  return NH_OK;
}

void nh_la_spchol_free(nh_la_spchol *S) {
  if (!S) return;
  free(S->perm), free(S->parent), free(S->Cp), free(S->Ci), free(S->Cv), free(S->Lp), free(S->Li);
  free(S);
}

long nh_la_spchol_factor_entries(const nh_la_spchol *S) { return S->lnz; }
long nh_la_spchol_envelope_entries(const nh_la_spchol *S) { return S->env; }

/* work: Lx (lnz), x (n), y (n) doubles, then c, s, w (n ints each) */
size_t nh_la_spchol_work_size(const nh_la_spchol *S) {
  size_t n = (size_t)S->n;
  return (size_t)S->lnz + 2 * n + (3 * n * sizeof(int) + sizeof(double) - 1) / sizeof(double);
}

int nh_la_spchol_factor(const nh_la_spchol *S, const double *vals, double tol, int *rank, double *work) {
  const int n = S->n;
  double *Lx = work, *x = Lx + S->lnz;
  int *c = (int *)(void *)(x + 2 * (size_t)n), *s = c + n, *w = s + n;
  const int *Cp = S->Cp, *Ci = S->Ci, *Lp = S->Lp, *Li = S->Li;
  double dmax = 0.0;
  for (int k = 0; k < n; k++) {
    x[k] = 0.0, w[k] = -1, c[k] = Lp[k] + 1;
    for (int p = Cp[k]; p < Cp[k + 1]; p++)
      if (Ci[p] == k && vals[S->Cv[p]] > dmax) dmax = vals[S->Cv[p]];
  }
  const double thr = nh_la_rank_tol(tol) * dmax;
  for (int k = 0; k < n; k++) {
    int top = ereach(S, k, s, w);
    for (int p = Cp[k]; p < Cp[k + 1]; p++) x[Ci[p]] = vals[S->Cv[p]]; /* column k of C */
    double d = x[k];
    x[k] = 0.0;
    for (; top < n; top++) { /* L(k, i) for the columns i of row k, each after its children */
      const int i = s[top];
      const double lki = x[i] / Lx[Lp[i]];
      x[i] = 0.0;
      for (int p = Lp[i] + 1; p < c[i]; p++) x[Li[p]] -= Lx[p] * lki;
      d -= lki * lki;
      Lx[c[i]++] = lki;
    }
    if (!(d > thr) || !(d > 0.0)) {
      if (rank) *rank = k;
      return NH_ERR_NOT_SPD;
    }
    Lx[Lp[k]] = sqrt(d);
  }
  if (rank) *rank = n;
  return NH_OK;
}

void nh_la_spchol_solve(const nh_la_spchol *S, double *work, double *b) {
  const int n = S->n;
  const int *Lp = S->Lp, *Li = S->Li;
  const double *Lx = work;
  double *y = work + S->lnz + n;
  for (int k = 0; k < n; k++) y[k] = b[S->perm[k]];
  for (int j = 0; j < n; j++) { /* L y = P b */
    y[j] /= Lx[Lp[j]];
    for (int p = Lp[j] + 1; p < Lp[j + 1]; p++) y[Li[p]] -= Lx[p] * y[j];
  }
  for (int j = n - 1; j >= 0; j--) { /* L^T z = y */
    double t = y[j];
    for (int p = Lp[j] + 1; p < Lp[j + 1]; p++) t -= Lx[p] * y[Li[p]];
    y[j] = t / Lx[Lp[j]];
  }
  for (int k = 0; k < n; k++) b[S->perm[k]] = y[k];
}
