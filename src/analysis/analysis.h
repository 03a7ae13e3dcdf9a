/* analysis.h - the tangent (variational) flow of a model and its saltation at impacts
 * (private to src/analysis; the public face is nholo/lyapunov.h).
 *
 * The augmented state is X = (x, dx), 2 nx values, x = (q, v) for a mechanical model. Its
 * vector field is (F(t, x), J(t, x) dx); the gaps are monitors of X (falling, stop) so that
 * the simulation driver locates impacts on the method's own partial steps and stops there;
 * nh_tan_impact then applies the impact law to x and the saltation matrix to dx. */
#ifndef NH_ANALYSIS_H
#define NH_ANALYSIS_H

#include <stddef.h>

#include "model/dynamics.h"
#include "nholo/impact.h"
#include "nholo/lyapunov.h"
#include "nholo/model.h"

typedef struct nh_tan {
  const nh_model *m;
  int nq, nc, nx;
  int has_law;
  nh_impact_law law;
  int gap;               /* the gap of the impact being differentiated */
  nh_impact_tol raw_tol; /* the impact formula without the projection guard (differentiated) */
  nh_dyn dyn;
  double *block; /* one allocation for everything below */
  double *dynwork, *dwork, *iwork;
  double *dM, *d2M, *H, *dA, *dfdq, *dfdv; /* the model's derivatives at q */
  double *Mq, *A, *K, *kkt, *Eq;           /* M, A, the KKT matrix, its right-hand side, d2M dq */
  int *piv;
  double *a, *lam, *rho, *kap, *t1, *t2, *t3, *t4; /* nq or nc scratch */
  double *xa, *xb, *fa, *fb;                       /* nx scratch */
  double *qs, *ya, *yb, *d1, *vneg;                /* the directional differences' scratch */
  double *dg;                                      /* ngap x nq */
} nh_tan;

/* Size and carve everything for the model; NH_ERR_NOMEM or NH_OK (msg on failure). */
int nh_tan_init(nh_tan *T, const nh_model *m, const nh_impact_law *law, char *msg, size_t msg_size);
void nh_tan_free(nh_tan *T);

/* The augmented vector field and the gap monitors (evaluators of the augmented ODE model,
 * user = the nh_tan). */
int nh_tan_rhs(double t, const double *X, double *Xdot, void *user);
int nh_tan_monitor(double t, const double *X, double *g, void *user);

/* J(t, x) dx into jdx (nx) */
int nh_tan_jvp(nh_tan *T, double t, const double *x, const double *dx, double *jdx);

/* The impact on gap `gap` at the located state X (in place): x+ = R(x-), dx+ = S dx-.
 * Returns NH_OK, NH_NO_IMPACT (a graze: |dg v| <= vn_tol; X unchanged), NH_NOT_REVERSED or
 * another impact status, or a negative failure; *gain = |dx+| / |dx-|. */
int nh_tan_impact(nh_tan *T, int gap, double t, double vn_tol, double *X, double *gain);

/* Make a mechanical model's tangent dx tangent to the constraint manifold at x (in place). */
int nh_tan_admissible(nh_tan *T, const double *x, double *dx);

#endif
