/* stats.c - the ensemble's streaming statistics (ens_impl.h): Welford within a chunk, Chan's
 * merge along a fixed binary tree over the chunks, fixed-bin histograms for the quantiles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble/ens_impl.h"

double nh_ensemble_q_level(int i) {
  static const double q[NH_ENSEMBLE_NQ] = {0.05, 0.25, 0.5, 0.75, 0.95};
  return i >= 0 && i < NH_ENSEMBLE_NQ ? q[i] : NAN;
}

/* offsets in a partial: final block after the count, then sample counts, then sample blocks */
static size_t off_tn(const ens_acc *a) { return 1 + 4 * (size_t)a->nx; }
static size_t off_tb(const ens_acc *a, int k) {
  return off_tn(a) + (size_t)a->nt + (size_t)k * 4 * (size_t)a->nk;
}

int ens_acc_init(ens_acc *a, int nx, int nt, int nk, const nh_ensemble_stat *specs) {
  memset(a, 0, sizeof *a);
  a->nx = nx, a->nt = nt, a->nk = nt > 0 ? nk : 0, a->specs = specs;
  a->size = off_tb(a, nt);
  a->leaf = malloc(sizeof(double) * a->size);
  a->hoff = malloc(sizeof(size_t) * (size_t)(a->nk + 1));
  if (!a->leaf || !a->hoff) return NH_ERR_NOMEM;
  for (int s = 0; s < a->nk; s++) {
    a->hoff[s] = a->hblock;
    if (specs[s].lo < specs[s].hi) a->hblock += (size_t)specs[s].bins + 2;
  }
  if (a->hblock > 0 && !(a->hist = calloc((size_t)nt * a->hblock, sizeof(uint64_t)))) return NH_ERR_NOMEM;
  ens_acc_leaf_reset(a);
  return NH_OK;
}

void ens_acc_free(ens_acc *a) {
  for (int i = 0; i < a->cap; i++) free(a->stack[i].p);
  free(a->stack);
  free(a->leaf);
  free(a->hist);
  free(a->hoff);
  memset(a, 0, sizeof *a);
}

void ens_acc_leaf_reset(ens_acc *a) { memset(a->leaf, 0, sizeof(double) * a->size); }

/* one value into a group of n outputs at b (mean, M2, min, max), count *c already advanced */
static void welford(double c, double *b, int n, int i, double x) {
  double *mean = b, *m2 = b + n, *mn = b + 2 * n, *mx = b + 3 * n;
  const double delta = x - mean[i];
  mean[i] += delta / c;
  m2[i] += delta * (x - mean[i]);
  if (c == 1.0 || x < mn[i]) mn[i] = x;
  if (c == 1.0 || x > mx[i]) mx[i] = x;
}

/* the histogram bin of x on [lo, hi] with `bins` bins: 0 below, bins + 1 above */
static size_t bin_of(const nh_ensemble_stat *s, double x) {
  if (x < s->lo) return 0;
  if (x > s->hi) return (size_t)s->bins + 1;
  const double f = (x - s->lo) / (s->hi - s->lo) * (double)s->bins;
  const size_t b = (size_t)f;
  return 1 + (b < (size_t)s->bins ? b : (size_t)s->bins - 1);
}

void ens_acc_add(ens_acc *a, const double *xf, const double *samples) {
  double *p = a->leaf;
  p[0] += 1.0;
  for (int i = 0; i < a->nx; i++) welford(p[0], p + 1, a->nx, i, xf[i]);
  for (int k = 0; k < a->nt && samples; k++) {
    const double *x = samples + (size_t)k * (size_t)a->nx;
    if (isnan(x[0])) continue; /* past the member's end */
    double *c = p + off_tn(a) + k, *b = p + off_tb(a, k);
    *c += 1.0;
    for (int s = 0; s < a->nk; s++) {
      const nh_ensemble_stat *sp = &a->specs[s];
      welford(*c, b, a->nk, s, x[sp->index]);
      if (sp->lo < sp->hi) a->hist[(size_t)k * a->hblock + a->hoff[s] + bin_of(sp, x[sp->index])]++;
    }
  }
}

/* merge group b (count cb) into group a (count ca), n outputs each: Chan et al.'s update */
static void merge_group(double *ca, double *ga, double cb, const double *gb, int n) {
  if (cb == 0.0) return;
  if (*ca == 0.0) {
    *ca = cb;
    memcpy(ga, gb, sizeof(double) * 4 * (size_t)n);
    return;
  }
  const double na = *ca, nn = na + cb;
  for (int i = 0; i < n; i++) {
    const double delta = gb[i] - ga[i];
    ga[i] += delta * (cb / nn);
    ga[n + i] += gb[n + i] + delta * delta * (na * cb / nn);
    if (gb[2 * n + i] < ga[2 * n + i]) ga[2 * n + i] = gb[2 * n + i];
    if (gb[3 * n + i] > ga[3 * n + i]) ga[3 * n + i] = gb[3 * n + i];
  }
  *ca = nn;
}

/* a <- a merged with b (b the later block) */
static void merge(const ens_acc *a, double *pa, const double *pb) {
  merge_group(pa, pa + 1, pb[0], pb + 1, a->nx);
  for (int k = 0; k < a->nt; k++)
    merge_group(pa + off_tn(a) + k, pa + off_tb(a, k), pb[off_tn(a) + k], pb + off_tb(a, k), a->nk);
}

int ens_acc_push(ens_acc *a, int level, long index, const double *p) {
  if (a->depth == a->cap) {
    int cap = a->cap ? 2 * a->cap : 16;
    ens_block *s = realloc(a->stack, sizeof(ens_block) * (size_t)cap);
    if (!s) return NH_ERR_NOMEM;
    a->stack = s;
    for (int i = a->cap; i < cap; i++) s[i].p = NULL;
    for (int i = a->cap; i < cap; i++)
      if (!(s[i].p = malloc(sizeof(double) * a->size))) return a->cap = i, NH_ERR_NOMEM;
    a->cap = cap;
  }
  ens_block *top = &a->stack[a->depth++];
  top->level = level, top->index = index;
  memcpy(top->p, p, sizeof(double) * a->size);
  // siblings (the left one's index even) merge into their parent, cascading up
  while (a->depth >= 2) {
    ens_block *l = &a->stack[a->depth - 2], *r = &a->stack[a->depth - 1];
    if (l->level != r->level || l->index % 2 != 0 || l->index + 1 != r->index) break;
    merge(a, l->p, r->p);
    l->level++, l->index /= 2;
    a->depth--;
  }
  return NH_OK;
}

/* the q-quantile of histogram h (under, bins, over) of n values: linear within its bin */
static double hist_quantile(const nh_ensemble_stat *s, const uint64_t *h, double n, double q) {
  const double pos = q * n, w = (s->hi - s->lo) / (double)s->bins;
  double cum = (double)h[0];
  if (n <= 0.0 || pos < cum) return NAN;
  for (int b = 0; b < s->bins; b++) {
    const double c = (double)h[1 + b];
    if (c > 0.0 && cum + c >= pos) return s->lo + ((double)b + (pos - cum) / c) * w;
    cum += c;
  }
  return NAN;
}

int ens_acc_finish(ens_acc *a, nh_ensemble_stats *st) {
  double *r = a->leaf; /* reused: the fold of the stack, left to right */
  ens_acc_leaf_reset(a);
  for (int i = 0; i < a->depth; i++) merge(a, r, a->stack[i].p);
  const int nx = a->nx, nk = a->nk;
  st->ok = (long)r[0];
  for (int i = 0; i < nx; i++) { /* NaN over no member, as the time statistics */
    const int any = r[0] > 0.0;
    st->mean[i] = any ? r[1 + i] : NAN;
    st->var[i] = r[0] > 1.0 ? r[1 + nx + i] / (r[0] - 1.0) : any ? 0.0 : NAN;
    st->min[i] = any ? r[1 + 2 * nx + i] : NAN, st->max[i] = any ? r[1 + 3 * nx + i] : NAN;
  }
  if (a->nt == 0 || nk == 0) return NH_OK;
  const size_t tk = (size_t)a->nt * (size_t)nk;
  st->t_n = malloc(sizeof(long) * (size_t)a->nt);
  st->t_mean = malloc(sizeof(double) * tk * (4 + NH_ENSEMBLE_NQ));
  if (!st->t_n || !st->t_mean) return NH_ERR_NOMEM;
  st->t_var = st->t_mean + tk, st->t_min = st->t_var + tk, st->t_max = st->t_min + tk, st->t_q = st->t_max + tk;
  st->nt = a->nt, st->nstat = nk;
  for (int k = 0; k < a->nt; k++) {
    const double n = r[off_tn(a) + k], *b = r + off_tb(a, k);
    st->t_n[k] = (long)n;
    for (int s = 0; s < nk; s++) {
      const size_t j = (size_t)k * (size_t)nk + (size_t)s;
      st->t_mean[j] = n > 0.0 ? b[s] : NAN;
      st->t_var[j] = n > 1.0 ? b[nk + s] / (n - 1.0) : n > 0.0 ? 0.0 : NAN;
      st->t_min[j] = n > 0.0 ? b[2 * nk + s] : NAN;
      st->t_max[j] = n > 0.0 ? b[3 * nk + s] : NAN;
      const nh_ensemble_stat *sp = &a->specs[s];
      for (int q = 0; q < NH_ENSEMBLE_NQ; q++)
        st->t_q[j * NH_ENSEMBLE_NQ + (size_t)q] =
            sp->lo < sp->hi ? hist_quantile(sp, a->hist + (size_t)k * a->hblock + a->hoff[s], n, nh_ensemble_q_level(q))
                            : NAN;
    }
  }
  return NH_OK;
}
