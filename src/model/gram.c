/* gram.c - the choice of the multiplier solve of a large model from its patterns: the envelope
 * of G = A M^-1 A^T in the constraints' order (src/la/envelope.c), or a sparse Cholesky in a
 * fill-reducing order (src/la/sparse_chol.c) when the envelope would be much larger. */
#include <stdlib.h>
#include <string.h>

#include "la/la.h"
#include "model/model_impl.h"

/* the mass pattern holds the diagonal only */
static int mass_diagonal(const nh_model *m) {
  if (!m->mass_rows) return 0;
  for (int i = 0; i < m->nq; i++)
    for (int e = m->mass_rows[i]; e < m->mass_rows[i + 1]; e++)
      if (m->mass_cols[e] != i) return 0;
  return 1;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* G's lower pattern by rows into g->rows, g->cols: for row i the rows k <= i sharing a column
 * of A's pattern (by A's columns: byc lists the rows of each column) */
static int gram_pattern(const nh_model *m, struct nh_gram *g) {
  const int nq = m->nq, nc = m->nc, *ar = m->constraint_rows, *ac = m->constraint_cols;
  int *cp = calloc((size_t)nq + 1, sizeof(int)), *byc = malloc(sizeof(int) * ((size_t)ar[nc] + 1));
  int *mark = malloc(sizeof(int) * (size_t)nc), *list = malloc(sizeof(int) * (size_t)nc);
  size_t cap = 4 * (size_t)nc + 16, len = 0;
  g->rows = malloc(sizeof(int) * ((size_t)nc + 1)), g->cols = malloc(sizeof(int) * cap);
  int ok = cp && byc && mark && list && g->rows && g->cols;
  if (ok) {
    for (int e = 0; e < ar[nc]; e++) cp[ac[e] + 1]++;
    for (int j = 0; j < nq; j++) cp[j + 1] += cp[j];
    for (int i = 0; i < nc; i++) /* rows ascending within each column */
      for (int e = ar[i]; e < ar[i + 1]; e++) byc[cp[ac[e]]++] = i;
    for (int j = nq; j > 0; j--) cp[j] = cp[j - 1];
    cp[0] = 0;
    for (int i = 0; i < nc; i++) mark[i] = -1;
    g->rows[0] = 0;
  }
  for (int i = 0; ok && i < nc; i++) {
    int n = 0;
    mark[i] = i, list[n++] = i; /* the diagonal, always */
    for (int e = ar[i]; e < ar[i + 1]; e++)
      for (int p = cp[ac[e]]; p < cp[ac[e] + 1] && byc[p] < i; p++)
        if (mark[byc[p]] != i) mark[byc[p]] = i, list[n++] = byc[p];
    qsort(list, (size_t)n, sizeof(int), cmp_int);
    if (len + (size_t)n > cap) {
      while (len + (size_t)n > cap) cap *= 2;
      int *t = realloc(g->cols, sizeof(int) * cap);
      if (!t) ok = 0;
      else g->cols = t;
    }
    if (ok) memcpy(g->cols + len, list, sizeof(int) * (size_t)n), len += (size_t)n, g->rows[i + 1] = (int)len;
  }
  free(cp), free(byc), free(mark), free(list);
  return ok;
}

struct nh_gram *nh_gram_make(const nh_model *m, double ratio) {
  if (m->form != NH_FORM_MECHANICAL || m->nq < NH_MODEL_SPARSE_MIN || m->nc < 1 || !m->mass_constant ||
      !m->constraint_rows || !mass_diagonal(m))
    return NULL;
  struct nh_gram *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  nh_la_spchol *s = NULL;
  const int order = nh_la_spchol_have_amd() ? NH_LA_ORDER_AMD : NH_LA_ORDER_NATURAL;
  if (!gram_pattern(m, g) || nh_la_spchol_analyze(m->nc, g->rows, g->cols, order, &s) != NH_OK) {
    nh_gram_free(g);
    return NULL;
  }
  g->env = nh_la_spchol_envelope_entries(s), g->lnz = nh_la_spchol_factor_entries(s);
  if (order == NH_LA_ORDER_AMD && (double)g->env > ratio * (double)g->lnz) g->chol = s;
  g->an = s;
  return g;
}

void nh_gram_free(struct nh_gram *g) {
  if (!g) return;
  nh_la_spchol_free(g->an); /* (chol is an, or NULL) */
  free(g->rows), free(g->cols);
  free(g);
}

nh_multiplier_solver nh_model_multiplier_solver(const nh_model *m, long *entries, long *envelope) {
  const struct nh_gram *g = m ? m->gram : NULL;
  const nh_multiplier_solver s = !g ? NH_SOLVE_DENSE : g->chol ? NH_SOLVE_SPARSE : NH_SOLVE_ENVELOPE;
  if (entries) *entries = !g ? 0 : g->chol ? g->lnz : g->env;
  if (envelope) *envelope = g ? g->env : 0;
  return s;
}
