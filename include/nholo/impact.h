/* nholo/impact.h - impact maps for natural Lagrangians with linear velocity constraints.
 *
 * Conventions. The admissible region is g(q) >= 0 (dg = dg/dq, a row). The paper writes the
 * surface as H(q) = 0 with H < 0 inside, so H = -g and dH = -dg. A contact is approaching when
 * sig = dH v = -dg v > 0. Post-impact momenta satisfy
 *
 *   M v+ = M v- + A^T lambda + alpha dH^T            (Clark & Bloch eq. 15)
 *
 * and alpha, lambda are reported in that convention (alpha < 0 for a wall that pushes).
 * With z = M^-1 dH^T, Pi = I - M^-1 A^T (A M^-1 A^T)^-1 A (kinetic-metric projector onto
 * ker A) and u = Pi z, every law is  v+ = v- - (1 + e) sig / D u  with
 *
 *   elastic       e = 1,  D = D_e = dH u            (eqs. 15-17, spec 000 sec. 2.4)
 *   restitution   e,      D = D_e                   (eq. 6 when nc = 0; extension otherwise)
 *   plastic       e = 1,  D = D_p = dH z            (eqs. 18-21: Pi o P, spec 000 sec. 2.5)
 *
 * Guards (spec 000 decisions D2, D4, D6), in this order:
 *   1. a pre-impact velocity with |A v| above constraint_tol is projected with Pi first
 *      (info->projected = 1; lambda then includes the projection impulse, so the momentum
 *      identity above holds for the velocity passed in) or rejected with NH_ERR_CONSTRAINT;
 *   2. D_e <= degenerate_tol * |dH|^2_{M^-1} (dH in the span of the constraint one-forms, so
 *      sig is rounding noise) returns NH_DEGENERATE_IMPACT, for every law;
 *   3. sig <= sig_tol returns NH_NO_IMPACT;
 *   in cases 2 and 3 v+ is v- (or Pi v- when it was projected);
 *   4. a plastic map that leaves dg v+ <= 0 returns NH_NOT_REVERSED (v+ is the plastic
 *      result all the same). */
#ifndef NHOLO_IMPACT_H
#define NHOLO_IMPACT_H

#include "nholo/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tolerances of the impact maps. */
typedef struct nh_impact_tol {
  double sig_tol;        /* approach threshold on sig = -dg v (velocity x gradient units), default 0 */
  double degenerate_tol; /* relative threshold on D / |dH|^2_{M^-1}, default 1e-12 */
  double constraint_tol; /* relative threshold on |A v|_inf / (|A|_inf |v|_inf), default 1e-9 */
  int project;           /* 1: project violating velocities (default); 0: reject them */
} nh_impact_tol;

/* What an impact did. */
typedef struct nh_impact_info {
  double sig;         /* dH v- = -dg v- (> 0: approaching) */
  double alpha;       /* wall multiplier, paper convention (see above) */
  double D;           /* the denominator used (D_e or D_p) */
  double rho;         /* D_e / D_p in (0, 1] (fraction of the normal gradient inside ker A) */
  double vn_before;   /* dg v- */
  double vn_after;    /* dg v+ */
  double residual_before; /* max |A v-| */
  int projected;      /* 1 when v- was projected onto ker A first */
} nh_impact_info;

NH_API nh_impact_tol nh_impact_tol_default(void);

/* Scratch size (in doubles) for nh_impact_map on nq coordinates and nc constraints. */
NH_API size_t nh_impact_work_size(int nq, int nc);

/* Apply an impact law given the matrices at the contact configuration.
 *   M (nq x nq) SPD; A (nc x nq) full row rank (Nullable when nc = 0); dg (nq) gap gradient;
 *   v (nq) pre-impact velocity; v_out (nq) post-impact velocity (may alias v);
 *   lambda (nc) constraint impulses (Nullable); tol (Nullable: defaults); info (Nullable);
 *   work (nh_impact_work_size).
 * Returns NH_OK, NH_NO_IMPACT, NH_DEGENERATE_IMPACT, NH_NOT_REVERSED, NH_ERR_NOT_SPD,
 * NH_ERR_SINGULAR (A not of full rank), NH_ERR_CONSTRAINT, NH_ERR_ARG. On a negative status
 * v_out is left equal to v. */
NH_API int nh_impact_map(int nq, int nc, const double *M, const double *A, const double *dg,
                         const double *v, nh_impact_law law, const nh_impact_tol *tol,
                         double *v_out, double *lambda, nh_impact_info *info, double *work);

/* The same on a model at configuration q for gap number `gap`, with the model's own law
 * unless law is not NULL. work: nh_model_impact_work_size(model) doubles. */
NH_API size_t nh_model_impact_work_size(const nh_model *model);
NH_API int nh_model_impact(const nh_model *model, int gap, const double *q, const double *v,
                           const nh_impact_law *law, const nh_impact_tol *tol, double *v_out,
                           double *lambda, nh_impact_info *info, double *work);

/* Kinetic-metric projection of v onto ker A: v_out = Pi v (may alias). work as nh_impact_map. */
NH_API int nh_project_velocity(int nq, int nc, const double *M, const double *A, const double *v,
                               double *v_out, double *work);

#ifdef __cplusplus
}
#endif
#endif
