/* model_impl.h - model queries shared by the library's layers (private).
 *
 * The _ws forms evaluate into caller scratch, so the driver calls them inside a step without
 * allocating; the public nh_model_energy / nh_model_constraint_residual wrap them. */
#ifndef NH_MODEL_IMPL_H
#define NH_MODEL_IMPL_H

#include "nholo/model.h"

/* An evaluator's return as a status: negative -> NH_ERR_CALLBACK, 0 and positive (retry with a
 * smaller step) unchanged. */
static inline int nh_cb(int rc) { return rc < 0 ? NH_ERR_CALLBACK : rc; }

/* E = 1/2 v^T M v + V(q); M: (nq x nq) scratch, left holding M(q). */
int nh_model_energy_ws(const nh_model *m, const double *q, const double *v, double *M, double *E);
/* the same with M = M(q) given (not evaluated) */
int nh_model_energy_given_M(const nh_model *m, const double *q, const double *v, const double *M, double *E);
/* the same, with the kinetic part T = 1/2 v^T M v as well (E the same bits) */
int nh_model_energy_kin_given_M(const nh_model *m, const double *q, const double *v, const double *M, double *E,
                                double *T);

/* max_k |A_k(q) v| (0 when nc = 0); A: (nc x nq) scratch, left holding A(q). */
int nh_model_residual_ws(const nh_model *m, const double *q, const double *v, double *A, double *res);
/* the same with A = A(q) given (not evaluated) */
void nh_model_residual_given_A(const nh_model *m, const double *v, const double *A, double *res);

/* Models with this many coordinates or more use their patterns (nh_model.mass_rows,
 * constraint_rows) and sparse-fill evaluators; smaller ones keep the dense loops. */
#define NH_MODEL_SPARSE_MIN 16

/* The multiplier solve of a large model (NH_MODEL_SPARSE_MIN coordinates or more, a constant
 * diagonal mass pattern, a constraint pattern): the lower triangle of G = A M^-1 A^T's
 * pattern by rows (G_ik may be non-zero when rows i and k of A share a column of the
 * pattern), its envelope in the constraints' order and the sparse factor's entries; chol is
 * the sparse analysis when it is the solve taken (the envelope holds more than
 * NH_SPARSE_FILL_RATIO times the sparse factor's entries), else NULL. */
#define NH_SPARSE_FILL_RATIO 2
struct nh_gram {
  int *rows, *cols;
  long env, lnz;
  struct nh_la_spchol *chol;
  struct nh_la_spchol *an; /* the analysis, kept whichever solve the dynamics take: gni, rattle
                              and shake factor G on it when their rows' extents overlap */
};
/* Made by nh_model_create with ratio NH_SPARSE_FILL_RATIO (NULL when the model does not
 * qualify or memory is short: the envelope then, as before), freed by nh_model_destroy;
 * ratio 0 takes the sparse solve whenever CHOLMOD is there (the benchmark's comparison). */
struct nh_gram *nh_gram_make(const nh_model *m, double ratio);
void nh_gram_free(struct nh_gram *g);

/* The _ws forms above for a buffer that is +0 outside the pattern on entry (zeroed once, then
 * only written by the model's evaluators): they may call the sparse-fill evaluator. */
int nh_model_energy_clean_ws(const nh_model *m, const double *q, const double *v, double *M, double *E);
int nh_model_energy_clean_kin_ws(const nh_model *m, const double *q, const double *v, double *M, double *E, double *T);
int nh_model_residual_clean_ws(const nh_model *m, const double *q, const double *v, double *A, double *res);

#endif
