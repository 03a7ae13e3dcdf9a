/* vi_qm.h - the variational steps for a general discrete Lagrangian (a q-dependent M, forces)
 * that gni.c's del, rattle_shake.c and dla.c share: the pieces of the discrete Lagrangian
 * (defined in gni.c), the Newton solve of a discrete Lagrangian with multipliers, and the
 * discrete Lagrange-d'Alembert step (vi_qm.c). Equations at the top of vi_qm.c. */
#ifndef NH_METHODS_VI_QM_H
#define NH_METHODS_VI_QM_H

#include "methods/vi.h"

/* -D1 L_d(q0, q1) - pm into r, its q1-Jacobian into J (J may be NULL) and the magnitude of its
 * terms, the residual's scale (vi.h), into *mag; trapezoidal needs w->M0, w->dM0 and w->g =
 * grad V at q0. D2 L_d(q0, q1) into out after a residual at q1. */
int nh_vi_dl_residual(const nh_model *mo, vi_ws *w, int midpoint, const double *q0, const double *q1, double h,
                      const double *pm, double *r, double *J, double *mag);
int nh_vi_dl_d2(const nh_model *mo, vi_ws *w, int midpoint, const double *q0, const double *q1, double h, double *out);
/* The end of a del-type step once q1 is solved (the last residual at q1): p+ = D2 L_d(q0, q1) -
 * r + h/2 f(q1) (r Nullable: the momentum residual -D1 L_d - pm at q1, so that p+ is the solved
 * momentum's, not the difference quotient's), projected onto the constraints at q1, and v1,
 * into x1 (gni.c) */
int nh_vi_del_finish(nh_stepper *s, vi_ws *w, int midpoint, double t, const double *q0, const double *q1, double h,
                     const double *r, double *x1);

/* The system -D1 L_d(q0, q1) = pbase - c A0^T lam, with m = 0 rows (q1 alone) or the m rows of
 * the midpoint discrete constraint A((q0 + q1)/2) (q1 - q0)/h = 0 (then scratch: n nc n + 2 n
 * doubles, and A(qbar) goes into w->A). */
typedef struct vi_kkt {
  int midpoint;        /* the discrete Lagrangian: midpoint (1) or trapezoidal (0) */
  int m;               /* rows */
  const double *pbase; /* (n) */
  double c;            /* scale of the reaction A0^T lam */
  const double *A0;    /* (m x n) */
  int dla;             /* 1: the midpoint discrete constraint's rows */
  double *scratch;     /* dla: n nc n + 2 n doubles */
} vi_kkt;

/* Newton on (q1, lam) from the guesses in q1 and lam, with the exact Jacobian; the iterations
 * and final residual into s's statistics; NH_ERR_NO_CONVERGENCE with s->msg when the relative
 * residual stays above opts.newton_tol after opts.newton_max_iter iterations. On success the
 * last discrete-Lagrangian residual was at the solution (nh_vi_dl_d2 may follow). */
int nh_vi_kkt_solve(nh_stepper *s, vi_ws *w, const vi_kkt *k, const double *q0, double h, double *q1, double *lam);

/* The discrete Lagrange-d'Alembert step from the nodal (q, v) (nothing carried): del on a
 * nonholonomic model (midpoint = opts.midpoint_ld) and si-dla (0) / i-dla (1) with a
 * q-dependent M. Its workspace: nh_vi_dlad_work_size doubles from s->work. */
size_t nh_vi_dlad_work_size(const nh_model *mo);
int nh_vi_dlad_step(nh_stepper *s, double t, const double *x0, double h, double *x1, int midpoint);

/* The symmetric one-step form of gni, rattle and shake (vi_sym.c; NH_VARIANT_SYMMETRIC), its
 * workspace (nh_vi_dlad_work_size covers it) and how it holds closed contacts: as rows of its
 * step with a constant M, by the driver's projection with a q-dependent M (the DLA step). */
int nh_vi_sym_step(nh_stepper *s, double t, const double *x0, double h, double *x1);
nh_contact_hold nh_vi_sym_hold(const nh_model *mo, const nh_method_opts *opts);

/* del's hooks: its step and test on a nonholonomic model, its workspace on any model */
int nh_del_nh_supports(const nh_model *mo);
int nh_del_nh_step(nh_stepper *s, double t, const double *x0, double h, double *x1);
size_t nh_del_work_size(const nh_model *mo);

#endif
