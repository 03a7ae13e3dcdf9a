/* metric.h - the constrained kinetic metric (private): the one home of the factor of M, the
 * solves with M, the Gram matrix of a set of constraint rows, the projector onto their kernel
 * and the constrained normal of a wall. Every other layer (the dynamics, the methods, the
 * impact maps, the contact projection, the tangent flow) calls these; none factors M or forms
 * G itself.
 *
 *   M = L L^T                    dense Cholesky; a diagonal factor detected once (diag), and
 *                                kept across calls when M does not depend on q (constant)
 *   W = M^-1 A^T,  G = A W = A M^-1 A^T = L_G L_G^T        (rows A: nr x nq; W by rows)
 *   Pi x = x - W G^-1 A x        the kinetic-metric projector onto ker A
 *   z = M^-1 n^T, u = Pi z, c = n z, D = n u               a wall's normal n = dH: the
 *                                reflection is x+ = x - (1 + e) (n x) / D u (impact/impact.c)
 *
 * The small kernels are inline so that a caller of a fixed size (the impact map's copies for
 * nq <= 4) gets them unrolled; every path takes the roundings of nh_la_chol and
 * nh_la_chol_solve. The structured Gram solve of a large model (the rows' extents, or the
 * sparse factor chosen by model/gram.c) is nh_metric_gram below. */
#ifndef NH_MODEL_METRIC_H
#define NH_MODEL_METRIC_H

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "la/la.h"
#include "nholo/model.h"

typedef struct nh_metric {
  int nq;
  double *L;    /* (nq x nq) the Cholesky factor of M in its lower triangle */
  double *dinv; /* (nq, Nullable) 1 / M_jj when M is diagonal: a solve multiplies by it; without
                 * it a diagonal factor is solved by b_j / L_jj / L_jj (two divisions) */
  int diag;     /* L is diagonal */
  int constant; /* M does not depend on q: evaluated and factored once (ready) */
  int ready;    /* L holds the factor of the constant M */
} nh_metric;

/* Doubles of the factor (nq x nq) and the reciprocal diagonal (nq). */
static inline size_t nh_metric_size(int nq) { return (size_t)nq * (size_t)nq + (size_t)nq; }

/* The metric of nq coordinates with its factor in L (nq x nq) and the reciprocal diagonal in
 * dinv (nq, Nullable: nh_metric_size doubles hold both, dinv = L + nq nq); constant: M is
 * evaluated once (nh_metric_eval keeps its factor). */
static inline void nh_metric_init(nh_metric *mt, int nq, int constant, double *L, double *dinv) {
  mt->nq = nq, mt->L = L, mt->dinv = dinv, mt->diag = 0, mt->constant = constant, mt->ready = 0;
}

/* Factor a given M (nq x nq; M may be mt->L itself); for a diagonal M, dinv_j = 1 / M_jj.
 * NH_OK or NH_ERR_NOT_SPD. */
NH_LA_INLINE int nh_metric_factor(nh_metric *mt, const double *M) {
  const int nq = mt->nq;
  if (M != mt->L) memcpy(mt->L, M, sizeof(double) * (size_t)nq * (size_t)nq);
  mt->diag = nh_la_lower_zero_inline(nq, mt->L);
  if (mt->diag && mt->dinv)
    for (int j = 0; j < nq; j++) mt->dinv[j] = 1.0 / mt->L[(size_t)j * nq + j];
  if (nh_la_chol_inline(nq, mt->L, 0.0, NULL) != NH_OK) return NH_ERR_NOT_SPD;
  return NH_OK;
}

/* Evaluate M(q) with the model and factor it (once for a constant M: a failed evaluation or
 * factorisation is not kept). The evaluator's status (nh_cb), or NH_ERR_NOT_SPD. */
int nh_metric_eval_at(nh_metric *mt, const nh_model *m, const double *q);
static inline int nh_metric_eval(nh_metric *mt, const nh_model *m, const double *q) {
  return mt->ready ? NH_OK : nh_metric_eval_at(mt, m, q);
}

/* b <- M^-1 b with the factor (a diagonal M: b_j dinv_j, or b_j / L_jj / L_jj without dinv). */
NH_LA_INLINE void nh_metric_solve(const nh_metric *mt, double *b) {
  if (mt->diag && mt->dinv)
    for (int j = 0; j < mt->nq; j++) b[j] *= mt->dinv[j];
  else if (mt->diag)
    nh_la_diag_solve(mt->nq, mt->L, b);
  else
    nh_la_chol_solve_inline(mt->nq, mt->L, b);
}

/* M^-1 (nq x nq, symmetric: column j = row j) from the factor, by solves of the unit vectors
 * (the roundings of nh_metric_solve: a method that keeps M^-1 for a constant M multiplies
 * instead of solving). */
void nh_metric_inverse(const nh_metric *mt, double *Minv);

/* Rows A (nr x nq): W = M^-1 A^T by rows (nr x nq) and G = A W (nr x nr, its lower triangle,
 * mirrored) factored in place. NH_OK, or NH_ERR_SINGULAR (dependent rows, or nr > nq). */
NH_LA_INLINE int nh_metric_rows(const nh_metric *mt, int nr, const double *A, double *W, double *G) {
  const int nq = mt->nq;
  if (nr == 0) return NH_OK;
  if (nr > nq) return NH_ERR_SINGULAR; /* more rows than coordinates */
  memcpy(W, A, sizeof(double) * (size_t)nr * (size_t)nq);
  for (int k = 0; k < nr; k++) nh_metric_solve(mt, W + (size_t)k * nq);
  for (int k = 0; k < nr; k++) /* symmetric up to round-off: the lower triangle, mirrored */
    for (int l = 0; l <= k; l++) {
      const double g = nh_la_dot(nq, A + (size_t)k * nq, W + (size_t)l * nq);
      G[(size_t)k * nr + l] = g, G[(size_t)l * nr + k] = g;
    }
  return nh_la_chol_inline(nr, G, 0.0, NULL) != NH_OK ? NH_ERR_SINGULAR : NH_OK;
}

/* x <- Pi x = x - W G^-1 A x (rows and factors of nh_metric_rows); coef (nr) <- G^-1 A x. */
NH_LA_INLINE void nh_metric_project(int nq, int nr, const double *A, const double *W, const double *G, double *x,
                                    double *coef) {
  for (int k = 0; k < nr; k++) coef[k] = nh_la_dot(nq, A + (size_t)k * nq, x);
  nh_la_chol_solve_inline(nr, G, coef);
  for (int k = 0; k < nr; k++) nh_la_axpy(nq, -coef[k], W + (size_t)k * nq, x);
}

/* A wall's constrained normal: z = M^-1 n^T, u = Pi z, y = G^-1 A z; returns c = n z and
 * *De = n u (the reflection's denominators: u is z's part the constraints allow). */
NH_LA_INLINE double nh_metric_normal(const nh_metric *mt, int nr, const double *A, const double *W, const double *G,
                                     const double *n, double *z, double *u, double *y, double *De) {
  const int nq = mt->nq;
  nh_la_copy(nq, n, z);
  nh_metric_solve(mt, z);
  const double c = nh_la_dot(nq, n, z);
  nh_la_copy(nq, z, u);
  nh_metric_project(nq, nr, A, W, G, u, y);
  *De = nh_la_dot(nq, n, u);
  return c;
}

/* G = A W (nr x nr, every entry) from rows A and W = M^-1 A^T (nr x nq, by rows), with the
 * fixed-size dot products (unrolled for a compile-time nq) */
NH_LA_INLINE void nh_metric_gram_form(int nq, int nr, const double *A, const double *W, double *G) {
  for (int i = 0; i < nr; i++)
    for (int j = 0; j < nr; j++) G[i * nr + j] = nh_la_dot_fixed(nq, A + (size_t)i * nq, W + (size_t)j * nq);
}

/* G (m x m, SPD) <- its Cholesky factor and Gi <- G^-1: the operations of nh_la_chol (pivot
 * tolerance tol) and of nh_la_chol_solve on the unit vectors, written out for the tiny m of a
 * constraint block (a call each cost more than the arithmetic; the variational methods keep G^-1
 * and multiply by it) */
NH_LA_INLINE int nh_metric_gram_inverse(int m, double *G, double *Gi, double tol) {
  if (m == 1) { /* one constraint: G^-1 = 1 / G (one rounding, and one division on the path from
                   one step to the next), the factor L = sqrt(G) beside it for rattle's solves */
    if (!(G[0] > tol * G[0]) || !(G[0] > 0.0)) return NH_ERR_SINGULAR;
    Gi[0] = 1.0 / G[0];
    G[0] = sqrt(G[0]);
    return 0;
  }
  double dmax = 0.0;
  for (int i = 0; i < m; i++)
    if (G[i * m + i] > dmax) dmax = G[i * m + i];
  const double thr = tol * dmax;
  for (int j = 0; j < m; j++) {
    double *Lj = G + (size_t)j * m;
    double d = Lj[j] - nh_la_dot(j, Lj, Lj);
    if (!(d > thr) || !(d > 0.0)) return NH_ERR_SINGULAR;
    double ljj = sqrt(d);
    Lj[j] = ljj;
    for (int i = j + 1; i < m; i++) {
      double *Li = G + (size_t)i * m;
      Li[j] = (Li[j] - nh_la_dot(j, Li, Lj)) / ljj;
    }
  }
  for (int j = 0; j < m; j++) {
    double *b = Gi + (size_t)j * m; /* symmetric: column j = row j */
    for (int i = 0; i < m; i++) b[i] = i == j ? 1.0 : 0.0;
    for (int i = 0; i < m; i++) b[i] = (b[i] - nh_la_dot(i, G + (size_t)i * m, b)) / G[(size_t)i * m + i];
    for (int i = m - 1; i >= 0; i--) {
      double sum = b[i];
      for (int k = i + 1; k < m; k++) sum -= G[(size_t)k * m + i] * b[k];
      b[i] = sum / G[(size_t)i * m + i];
    }
  }
  return 0;
}

/* ---- the Gram solve of the dynamics: dense, on the rows' extents, or sparse -------------- */

/* The multiplier solve of the dynamics for the model's nc constraint rows,
 *   G lam = rhs - A a,   a += W lam,
 * by the way chosen once from the model's structure: dense loops; for a diagonal constant M
 * and NH_METRIC_ENV_MIN coordinates or more, on the extents of the rows (G on its envelope,
 * the dense bits: every skipped term is a product with +0), or with the sparse factor in a
 * fill-reducing order (model->gram->chol, model/gram.c: the dense values to rounding). */
#define NH_METRIC_ENV_MIN 16

typedef enum { NH_GRAM_DENSE, NH_GRAM_ENVELOPE, NH_GRAM_SPARSE } nh_gram_kind;

typedef struct nh_metric_gram {
  const nh_model *model;
  int nq, nc;
  double *W;     /* (nc x nq) row k = M^-1 A_k^T */
  double *G;     /* (nc x nc) the factor of A M^-1 A^T (dense, or on its envelope) */
  int *elo, *ehi, *efirst, *elast; /* per row the extent [elo, ehi) of its non-zeros; G's envelope */
  double *gv, *gwork;              /* the sparse solve: G's values in its pattern's order, scratch */
  /* a model that declares G constant (nh_model.gram_constant) with one row: 1 / G from the
   * first solve (gready), kept: no division on the path from A to a */
  double ginv;
  int gready;
} nh_metric_gram;

/* Doubles of nh_metric_gram_init's block for the model. */
size_t nh_metric_gram_size(const nh_model *m);
/* Carve the block. */
void nh_metric_gram_init(nh_metric_gram *g, const nh_model *m, double *work);
/* The kind this model takes with the metric mt (dense: 1 forces the dense loops, nosparse: 1
 * the envelope instead of the sparse factor; both for tests comparing the paths). */
static inline nh_gram_kind nh_metric_gram_kind(const nh_metric_gram *g, const nh_metric *mt, int dense, int nosparse) {
  if (!mt->diag || !mt->constant || g->nq < NH_METRIC_ENV_MIN || dense) return NH_GRAM_DENSE;
  return g->gv && !nosparse ? NH_GRAM_SPARSE : NH_GRAM_ENVELOPE;
}
/* With A (nc x nq) evaluated and lam = b = Adot v on entry: lam <- G^-1 (-b - A a), a += W lam,
 * by the given kind; azero = 1: a = +0 (its contents on entry are not read). NH_OK or
 * NH_ERR_SINGULAR. */
int nh_metric_gram_solve(nh_metric_gram *g, const nh_metric *mt, nh_gram_kind kind, const double *A, double *lam,
                         double *a, int azero);

#endif
