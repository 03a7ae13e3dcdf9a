/* analysis.h - the tangent (variational) flow of a model and its saltation at impacts
 * (private to src/analysis; the public face is nholo/lyapunov.h).
 *
 * Mechanical form: the augmented system is itself a mechanical model (augment.c) on the
 * coordinates (q, dq) with the velocities (v, dv), mass diag(M(q), I), the model's potential,
 * Coriolis term, constraint rows [A(q), 0], gaps [g(q), 0] and impact laws, and as the dq
 * part of its force the variational acceleration da = J(t, x) dx. The ordinary simulation
 * driver runs it: impacts, simultaneous impacts, persistent contacts (closing, held,
 * opening), the Zeno and stall guards are those of `nholo run` on the model, and the dx part
 * never influences them (every matrix is block diagonal, every gap ignores dq). Between the
 * driver's impacts and contact events lyapunov.c applies the saltation (nh_tan_impact) or
 * the closing map (nh_tan_close_graze) to dx. While contacts are closed, J is that of the
 * constrained flow (the closed gaps as holonomic rows, T->act).
 *
 * ODE form: the augmented state is X = (x, dx), 2 nx values, with the vector field
 * (F(t, x), J(t, x) dx) (nh_tan_rhs); such models have no gaps here. */
#ifndef NH_ANALYSIS_H
#define NH_ANALYSIS_H

#include <stddef.h>

#include "model/dynamics.h"
#include "nholo/impact.h"
#include "nholo/lyapunov.h"
#include "nholo/model.h"

typedef struct nh_tan {
  const nh_model *m;
  int nq, nc, nx, ng;
  int has_law;
  nh_impact_law law;
  int gap;                      /* the gap of the impact being differentiated */
  const nh_impact_law *law_now; /* its law there (NULL: the model's; restitution 0 at a closing) */
  nh_impact_tol raw_tol;        /* the impact formula without the projection guard (differentiated) */
  int nact, *act;               /* (ng) the closed contacts: gaps held as holonomic rows of J */
  nh_dyn dyn;                   /* the model's dynamics, with the closed contacts (dyn.act = act) */
  double *block; /* one allocation for everything below */
  double *dynwork, *dwork, *iwork;
  double *dM, *d2M, *H, *dA, *dfdq, *dfdv; /* the model's derivatives at q */
  double *Mq, *A, *K, *kkt, *Eq;           /* M (then its factor), A, the KKT rows B, W and G, its
                                             right-hand side, d2M dq */
  nh_metric mt;                            /* the metric of the KKT solve (kkt_factor) */
  double *a, *lam, *rho, *kap, *t1, *t2, *t3, *t4; /* nq or nc scratch */
  double *xa, *xb, *fa, *fb;                       /* nx scratch */
  double *qs, *ya, *yb, *d1, *vneg;                /* the directional differences' scratch */
  double *dg;                                      /* ngap x nq */
  /* the closed gaps' terms of J (their Hessians by differences of the gradients): the rows
   * D (ng x nq), Hess(g_k) dq and its first difference, gradient scratch (ng x nq each), the
   * curvature v^T Hess(g_k) v at two points and its derivative (ng each), trial q and v */
  double *D, *Hd, *Hd1, *Da, *Db, *gda, *gv, *phm, *php, *dphi, *dphi1, *qa, *qb, *vb;
} nh_tan;

/* Size and carve everything for the model; NH_ERR_NOMEM or NH_OK (msg on failure). */
int nh_tan_init(nh_tan *T, const nh_model *m, const nh_impact_law *law, char *msg, size_t msg_size);
void nh_tan_free(nh_tan *T);

/* The augmented vector field of an ODE-form model (the evaluator rhs of its augmented ODE
 * model, user = the nh_tan). */
int nh_tan_rhs(double t, const double *X, double *Xdot, void *user);

/* J(t, x) dx into jdx (nx), with the closed contacts T->act (mechanical form) */
int nh_tan_jvp(nh_tan *T, double t, const double *x, const double *dx, double *jdx);

/* The impact on gap `gap` at the located state X (in place): x+ = R(x-), dx+ = S dx-, with
 * S the saltation matrix, f- the vector field with the contacts T->act closed. close = 1: the
 * contact closes here (an accumulation, or a bounce at rest), R is the plastic map over the
 * active set (restitution 0: v+ on ker [A; dg]) and f+ the vector field with `gap` closed as
 * well. Returns NH_OK, NH_NO_IMPACT (a graze: |dg v| <= vn_tol; X unchanged),
 * NH_NOT_REVERSED or another impact status, or a negative failure; *gain = |dx+| / |dx-|. */
int nh_tan_impact(nh_tan *T, int gap, double t, double vn_tol, int close, double *X, double *gain);

/* A contact closing at a graze (|dg v| <= vn_tol, no impact) at X: dx by the linearised plastic
 * map with dq's normal part removed, dq <- P dq, dv <- P dv + (d(P(q) v)/dq) dq (P the plastic
 * map at q; the crossing's time is not defined at a graze, the event term is left out). */
int nh_tan_close_graze(nh_tan *T, int gap, double *X, double *gain);

/* Make a mechanical model's tangent dx tangent to the constraint manifold at x (in place). */
int nh_tan_admissible(nh_tan *T, const double *x, double *dx);

/* 1 when the closed contacts T->act (with the model's holonomic rows) leave the bodies no
 * free direction at q: their gradients span R^nq (nh_la_qr's rank), so that the tangent space
 * of the held flow is {0}; 0 otherwise, or a negative failure */
int nh_tan_collapsed(nh_tan *T, const double *q);

/* ---- the augmented mechanical model (augment.c) ---- */

struct nh_sim;
typedef struct nh_tan_aug {
  nh_tan *T;
  const struct nh_sim *sim; /* the run whose closed contacts J follows (NULL: none closed) */
  int nq;
  double *buf;              /* scratch: A, dg of the model, x, dx, J dx */
} nh_tan_aug;

/* The augmented model of T's mechanical model (law: every gap's law, NULL: the model's own);
 * NULL with a message on failure. g must stay where it is while the model lives (its user
 * pointer); nh_tan_aug_free after nh_model_destroy. */
nh_model *nh_tan_aug_create(nh_tan_aug *g, nh_tan *T, const nh_impact_law *law, char *msg, size_t msg_size);
void nh_tan_aug_free(nh_tan_aug *g);
/* T->act from the closed contacts of g->sim */
void nh_tan_aug_sync(nh_tan_aug *g);

#endif
