/* dynamics.h - the continuous nonholonomic dynamics in multiplier form (private).
 *
 *   M(q) a = r + A(q)^T lambda,      r = -c(q, v) - dV(q) + f(t, q, v)
 *   A(q) a = -Adot(q, v) v           (differentiated constraint: A v stays 0)
 *
 * solved by the range-space method with Cholesky factors (no explicit inverses):
 *   M = L L^T;  W = M^-1 A^T;  G = A W (SPD);  G lambda = -Adot v - A M^-1 r;  a = M^-1 (r + A^T lambda).
 * A constant M (model->mass_constant) is factored once per workspace; G is formed per call,
 * on the constraints' extents when that M is diagonal and the model large (the same bits),
 * or on its pattern with a sparse factor in a fill-reducing order when the model's analysis
 * chose that (model->gram->chol, src/model/gram.c: the same values to rounding).
 * The first-order state is x = (q, v) of size 2 nq. */
#ifndef NH_DYNAMICS_H
#define NH_DYNAMICS_H

#include <stddef.h>

#include "nholo/model.h"

typedef struct nh_dyn {
  const nh_model *model;
  int nq, nc;
  double *M;      /* (nq x nq) factor of M after a call (kept across calls for a constant M) */
  double *A;      /* (nc x nq) */
  double *W;      /* (nq x nc) = M^-1 A^T, stored column-major by constraint: W + k*nq */
  double *G;      /* (nc x nc) factor of A M^-1 A^T */
  double *r;      /* (nq) */
  double *tmp;    /* (nq) */
  double *tmpc;   /* (nc) */
  double *Pi, *g; /* almost-Poisson form: (nx x nx), (nx) */
  /* the envelope solve (a diagonal constant M, NH_DYN_ENV_MIN coordinates or more): per
   * constraint row the extent [elo, ehi) of its non-zeros, and the envelope of G (first
   * column per row, last row per column) */
  int *elo, *ehi, *efirst, *elast;
  int dense;      /* 1: always the dense loops (set by tests comparing the two) */
  /* the sparse solve (model->gram->chol, src/model/gram.c): G's values in its pattern's
   * order, and the factor's scratch; nosparse = 1: the envelope all the same (tests) */
  double *gv, *gwork;
  int nosparse;
  long evals;     /* accel evaluations */
  /* Constant mass (model->mass_constant): M is evaluated and factored at the first call and
   * the factor in M kept for every later one (mready); mdiag: that factor is diagonal (its
   * strict lower triangle is exactly 0, checked once), so solves divide by its diagonal,
   * the roundings nh_la_chol_solve takes for such a factor. */
  int mready, mdiag;
  /* 1 when A is +0 outside the constraint pattern (zeroed once, then written only by the
   * constraint evaluators): the sparse-fill evaluator may then fill it */
  int aclean;
  /* Persistent contacts (the driver's closed gaps, docs/contact.md): nact gaps g_i(q) = 0
   * held as holonomic constraints, their rows dg_i after the nc constraint rows and their
   * acceleration term (d/dt dg_i) v = v^T Hess(g_i) v by a central difference of dg along v
   * (models give no gap Hessians). With nact > 0 the stacked system lives in the contact
   * buffers (nh_dyn_contact_init); A, W, G above are then untouched. */
  int nact;
  const int *act;               /* (nact) indices of the closed gaps */
  double *Ac, *Wc, *Gc, *lamc;  /* ((nc+ng) x nq), (nq x (nc+ng)), (nc+ng)^2, (nc+ng) */
  double *cdg, *cq;             /* (ng x nq), (nq): difference scratch */
} nh_dyn;

/* Doubles needed by nh_dyn_init for this model. */
size_t nh_dyn_work_size(const nh_model *model);
/* Carve the workspace (nh_dyn_work_size doubles) for the model. */
void nh_dyn_init(nh_dyn *d, const nh_model *model, double *work);
/* Doubles needed by nh_dyn_contact_init (0 without gaps), and the carving of the contact
 * buffers; nact starts at 0 (no contact closed). */
size_t nh_dyn_contact_work_size(const nh_model *model);
void nh_dyn_contact_init(nh_dyn *d, double *work);
/* Accelerations a (nq) and multipliers lambda (nc, Nullable) at (t, q, v); with closed
 * contacts d->lamc holds all nc + nact multipliers (the contact ones last, > 0: pushing). Returns 0, a
 * positive value (evaluator asked for a smaller step), or a negative status. */
int nh_dyn_accel(nh_dyn *d, double t, const double *q, const double *v, double *a, double *lambda);
/* x' = F(t, x): for a mechanical model x = (q, v) and xdot = (v, a); for an ODE-form model
 * the model's rhs (the workspace is then empty). */
int nh_dyn_rhs(nh_dyn *d, double t, const double *x, double *xdot);

#endif
