/* nholo/lyapunov.h - the largest Lyapunov exponent of a hybrid flow (docs/lyapunov.md).
 *
 * A state x and a tangent vector dx are carried together. Between impacts dx follows the
 * variational equation dx' = J(t, x) dx, J the Jacobian of the model's vector field
 * F = (v, a(q, v)) of the multiplier-form dynamics (nholo/model.h), assembled from the
 * model's derivatives of M, V, A and f (exact for a model file); at an impact on gap g the
 * tangent crosses by the saltation matrix
 *
 *   S = D_x R + (f+ - D_x R f-) (grad g)^T / (grad g . f-),
 *
 * R the impact map (x- -> x+ = (q, v+)), f-+ the vector field before and after. The
 * estimate is Benettin's: every `window` seconds dx is renormalised to unit length and
 * log |dx| added up; lambda(t) = (sum of the logs) / t. Its confidence interval at time t is
 * that of batch means: the windows so far cut into `batches` equal batches, each batch's own
 * estimate taken as one sample, a Student t interval (95%) on their mean.
 *
 * What is exact: F, and J's terms from dM, d2M, the Hessian of V, dA and the force
 * Jacobians when the model provides them (model files do); the v-derivative of the impact
 * map. What is a finite difference: d(Adot v)/dq (models give no second derivative of A) and
 * the q-derivative of the impact map (models give no gap Hessian), central differences column
 * by column over exact steps with one Richardson extrapolation (steps NH_LYAP_FD_STEP_FLOW and
 * NH_LYAP_FD_STEP); for an ODE-form model all of J dx (along dx). The flow and its tangent are integrated together by an explicit
 * adaptive method whose error control covers both, as one mechanical model run by the
 * simulation driver (nholo/sim.h) with the model's gaps: impacts, simultaneous impacts and
 * persistent contacts (closing, held, opening) follow the rules of an ordinary run, and the
 * tangent follows the constrained flow while a contact is held (docs/lyapunov.md). */
#ifndef NHOLO_LYAPUNOV_H
#define NHOLO_LYAPUNOV_H

#include <signal.h> /* sig_atomic_t (nh_lyap_def.cancel) */

#include "nholo/method.h"
#include "nholo/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Absolute steps (in the units of the coordinates) of the central differences above; the
 * Richardson extrapolation of h and h/2 leaves an O(h^4) truncation error. The impact map's
 * is small (it is differenced once per impact); the variational equation's is larger so
 * that the difference's rounding noise (~1e-16 / h relative) stays below the integrator's
 * tolerance, which would otherwise see it as error and cut the steps. */
#define NH_LYAP_FD_STEP 1e-5
#define NH_LYAP_FD_STEP_FLOW 1e-3
/* most batches of the confidence interval */
#define NH_LYAP_MAX_BATCHES 64

/* Options of an estimate. Start from nh_lyap_def_default(). */
typedef struct nh_lyap_def {
  const nh_method *method; /* adaptive method (dop853 default, or dopri5; others: NH_ERR_ARG) */
  double rtol, atol;       /* its tolerances on state and tangent, default 1e-11 and 1e-13 */
  double h_max;            /* largest step, 0 = none (default). A crossing in and out of a gap
                              within one step between dense samples is missed: in free flight
                              the error estimate vanishes and steps grow, so a billiard needs
                              h_max below (size of its smallest scatterer) / speed */
  double t_end;            /* length of the estimate after the transient, default 1000 */
  double window;           /* renormalisation interval (s), default 1 */
  double transient;        /* time run (renormalising) before the estimate starts, default 0 */
  int batches;             /* batches of the confidence interval, 2 .. NH_LYAP_MAX_BATCHES, default 10 */
  unsigned long long seed; /* the initial tangent's random direction, default 1 */
  const double *dx0;       /* Nullable (nx): the initial tangent instead (normalised) */
  const nh_impact_law *law; /* Nullable: every gap's own law; else this law on every gap */
  double vn_tol;           /* a crossing with |dg v| <= vn_tol is a graze, not an impact (1e-12) */
  int zeno_count;          /* this many consecutive impacts ...                     (100) */
  double zeno_interval;    /* ... each closer than this (s) stop the run with NH_ZENO (1e-9) */
  int contact;             /* 1 (default): persistent contacts as nh_sim_def.contact (close at an
                              accumulation or at rest, held, opened where their force would pull;
                              docs/contact.md); 0: impacts only */
  const volatile sig_atomic_t *cancel; /* Nullable: the caller's flag (a signal handler's): when
                              it is set the run stops at its next step and the estimate ends
                              with NH_INTERRUPTED over the windows counted before (nh_sim_def.cancel) */
  int internal_cookie;     /* set by nh_lyap_def_default; do not touch */
} nh_lyap_def;

NH_API nh_lyap_def nh_lyap_def_default(void);

/* The estimate after a window (the observer's argument) and at the end (the result). */
typedef struct nh_lyap_point {
  double t;          /* time since the estimate's start (after the transient) */
  long windows;      /* windows counted */
  double lambda;     /* (sum of log growths) / t, 1/s */
  double half_width; /* 95% batch-means half-width; NaN until windows >= batches */
  double log_growth; /* log |dx| over the last window */
  long impacts;      /* impacts since the run's start (transient included) */
  long grazing;      /* crossings skipped as grazes */
} nh_lyap_point;

/* Called after each counted window; nonzero stops the estimate (NH_STOPPED). */
typedef int (*nh_lyap_observer_fn)(const nh_lyap_point *p, void *user);

typedef struct nh_lyap_result {
  int status;           /* NH_OK, NH_ZENO, NH_STALL, NH_STOPPED, NH_INTERRUPTED, NH_CONTACT (the tangent collapsed:
                           held contacts leave no free direction; the estimate covers the
                           windows before) or a negative status */
  nh_lyap_point last;   /* the estimate over every counted window */
  double t_stop;        /* the run's final time (transient included) */
  double max_salt;      /* largest |S dx| / |dx| at an impact */
  long contacts;        /* contacts closed (the run's persistent contacts, docs/contact.md) */
} nh_lyap_result;

/* Estimate the largest exponent of `model` from x0 (nx = model->nx; Nullable: the model's
 * initial state). A mechanical model's random initial tangent is made tangent to the
 * constraint manifold (A dv + d(A v)/dq dq = 0). Returns res->status; msg (Nullable) gets
 * one line on any status but NH_OK. Allocates before the run, never inside a step. */
NH_API int nh_lyapunov(const nh_model *model, const nh_lyap_def *def, const double *x0,
                       nh_lyap_observer_fn observer, void *user, nh_lyap_result *res, char *msg,
                       size_t msg_size);

/* The state and tangent after time t from (x0, dx0) (no renormalisation): x and dx (nx each)
 * receive them, *impacts (Nullable) the impacts crossed. Returns NH_OK or a status. A tangent
 * that collapsed (held contacts leaving no free direction) is 0 from there: dx = 0, NH_OK. */
NH_API int nh_lyap_propagate(const nh_model *model, const nh_lyap_def *def, const double *x0,
                             const double *dx0, double t, double *x, double *dx, long *impacts,
                             char *msg, size_t msg_size);

/* The 97.5% quantile of Student's t with dof degrees of freedom (dof >= 1). */
NH_API double nh_lyap_student_t975(int dof);

#ifdef __cplusplus
}
#endif
#endif
