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

/* max_k |A_k(q) v| (0 when nc = 0); A: (nc x nq) scratch, left holding A(q). */
int nh_model_residual_ws(const nh_model *m, const double *q, const double *v, double *A, double *res);
/* the same with A = A(q) given (not evaluated) */
void nh_model_residual_given_A(const nh_model *m, const double *v, const double *A, double *res);

/* Models with this many coordinates or more use their patterns (nh_model.mass_rows,
 * constraint_rows) and sparse-fill evaluators; smaller ones keep the dense loops. */
#define NH_MODEL_SPARSE_MIN 16

/* The _ws forms above for a buffer that is +0 outside the pattern on entry (zeroed once, then
 * only written by the model's evaluators): they may call the sparse-fill evaluator. */
int nh_model_energy_clean_ws(const nh_model *m, const double *q, const double *v, double *M, double *E);
int nh_model_residual_clean_ws(const nh_model *m, const double *q, const double *v, double *A, double *res);

#endif
