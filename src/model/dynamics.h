/* dynamics.h - the continuous nonholonomic dynamics in multiplier form (private).
 *
 *   M(q) a = r + A(q)^T lambda,      r = -c(q, v) - dV(q) + f(t, q, v)
 *   A(q) a = -Adot(q, v) v           (differentiated constraint: A v stays 0)
 *
 * solved by the range-space method with Cholesky factors (no explicit inverses):
 *   M = L L^T;  W = M^-1 A^T;  G = A W (SPD);  G lambda = -Adot v - A M^-1 r;  a = M^-1 (r + A^T lambda).
 * The factors and solves are the constrained metric's (model/metric.h): M factored once per
 * workspace when constant; G formed per call, densely, on the constraints' extents, or with
 * the sparse factor, as the metric chooses from the model's structure.
 * The first-order state is x = (q, v) of size 2 nq. */
#ifndef NH_DYNAMICS_H
#define NH_DYNAMICS_H

#include <stddef.h>

#include "model/metric.h"
#include "nholo/model.h"

typedef struct nh_dyn {
  const nh_model *model;
  int nq, nc;
  nh_metric mt;        /* M's factor (model/metric.h; kept across calls for a constant M) */
  nh_metric_gram gram; /* W = M^-1 A^T, the factor of G = A M^-1 A^T, the structured solve */
  double *A;      /* (nc x nq) */
  double *r;      /* (nq) */
  double *tmp;    /* (nq) */
  double *tmpc;   /* (nc) */
  double *Pi, *g; /* almost-Poisson form: (nx x nx), (nx) */
  int dense;      /* 1: always the dense loops (set by tests comparing the paths) */
  int nosparse;   /* 1: the envelope instead of the sparse factor (tests) */
  long evals;     /* accel evaluations */
  /* 1 when A is +0 outside the constraint pattern (zeroed once, then written only by the
   * constraint evaluators): the sparse-fill evaluator may then fill it */
  int aclean;
  /* Persistent contacts (the driver's closed gaps, docs/contact.md): nact gaps g_i(q) = 0
   * held as holonomic constraints, their rows dg_i after the nc constraint rows and their
   * acceleration term (d/dt dg_i) v = v^T Hess(g_i) v by a central difference of dg along v
   * (models give no gap Hessians). With nact > 0 the stacked system lives in the contact
   * buffers (nh_dyn_contact_init); A and gram above are then untouched. */
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
