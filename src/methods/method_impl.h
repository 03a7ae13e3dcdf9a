/* method_impl.h - what a method is, inside the library.
 *
 * A method is a static const table (name, order, flags, workspace size, step, dense output).
 * A step maps the first-order state x0 (size nx: (q, v) with nx = 2 nq for a mechanical
 * model, the model's state for an ODE-form model) at time t to x1 at t + h; the dynamics
 * x' = F(t, x) is nh_dyn_rhs, which dispatches on the model's form.
 * Adaptive methods also return a scaled error norm (<= 1: acceptable; never NaN: an estimate
 * a non-finite value entered is +inf, rejected); the driver, not the
 * method, accepts or rejects steps and picks the next h, so every method gets the same
 * step-size control, event location and impact handling. A step never allocates. */
#ifndef NH_METHOD_IMPL_H
#define NH_METHOD_IMPL_H

#include <stddef.h>

#include "model/dynamics.h"
#include "nholo/method.h"

typedef struct nh_stepper {
  const nh_model *model;
  const nh_method *method;
  int nx;            /* state size, model->nx */
  double rtol, atol; /* error weights for adaptive methods */
  double *work;      /* method->work_size(model) doubles */
  nh_dyn *dyn;       /* the dynamics x' = F(t, x) */
  long evals;        /* F (or flow) evaluations */
  nh_method_opts opts; /* options of the structure-preserving methods */
  int restart;       /* set by the driver when the state was set from outside (set_state): a
                        method with internal state (hidden momentum, previous step) starts anew */
  /* nonlinear solves of implicit methods (one per nh_stepper_solved): totals, and the last's */
  long iters;        /* Newton iterations, total */
  long solves;       /* solves, total */
  int max_iters;     /* most in one solve */
  int last_iters;    /* in the last solve */
  double last_res;   /* final residual of the last solve */
  double max_res;    /* largest final residual of a solve */
  char msg[256];     /* detail of the last failure */
  /* What a step may leave for the driver's monitors at its end state: M(q1) (nq x nq) and
   * A(q1) (nc x nq), valid for the x1 it wrote when end_x == x1 (the driver clears end_x
   * before each step); a method that does not set them leaves end_x NULL. */
  const double *end_x, *end_M, *end_A;
  /* and, when end_EA is set (the driver clears it before each step), the energy E(q1, v1) and
   * the constraint residual max_k |A_k(q1) v1| computed exactly as nh_model_energy_given_M and
   * nh_model_residual_given_A would */
  int end_EA;
  double end_E, end_res;
  /* the half-step energy of the step just taken (NH_METHOD_HALF_STEP: every step sets it) */
  double end_C;
} nh_stepper;

/* How a method holds a closed persistent contact g_i(q) = 0 (docs/contact.md) */
typedef enum nh_contact_hold {
  NH_HOLD_NONE = 0, /* it cannot: a contact that should close ends the run with NH_ZENO */
  NH_HOLD_ROWS,     /* the closed gaps' gradients are constraint rows of its step (nh_dyn's
                       contact rows; gni, rattle, shake: vi_active) */
  NH_HOLD_PROJECT,  /* it steps the free model; the driver projects each step onto the
                       closed contacts (q along dg, v onto ker [A; dg]) */
  NH_HOLD_CONSTRAINT /* the closed gaps are position constraints g_i(q_k+1) = 0 of its discrete
                       equations with multipliers (del: the constrained DEL of spec 003 sec. 3.2):
                       its steps stay on them; the driver projects neither them nor its states */
} nh_contact_hold;

/* A run of steps taken inside the method (nh_method.advance): the driver's loop of plain steps
 * that cannot be the last, with what the driver accumulates per step (driver.c, accept_step),
 * so that the result is that of the steps taken one by one. */
typedef struct nh_advance {
  double t;             /* in/out: the time, t += h per step (the driver's sum) */
  double t_end, far;    /* steps while t_end - t > far (the driver's test) */
  double h;             /* the step */
  long max;             /* and at most max steps */
  long done;            /* out: steps taken */
  double E_seg;         /* the reference energy */
  double E, dE, rmax;   /* in/out: the last energy, max |E - E_seg|, max constraint residual */
  double C, Cmax, Cmin; /* in/out: the last half-step energy and its extremes */
} nh_advance;

struct nh_method {
  const char *name;
  const char *summary;
  const char *preserves;
  int order;     /* order of the propagated solution */
  int err_order; /* order of the embedded error estimate (adaptive), else 0 */
  unsigned flags;
  /* doubles of workspace for this model */
  size_t (*work_size)(const nh_model *model);
  /* NH_OK when the method can run the model */
  int (*supports)(const nh_model *model);
  /* x1 = step(x0, h); err (Nullable): scaled error norm (adaptive methods). Returns 0, a
   * positive value (retry with a smaller h) or a negative status. x1 must not alias x0. */
  int (*step)(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err);
  /* Dense output over the last step taken (t, x0, h, x1): x at t + theta h, theta in [0,1]. */
  int (*dense)(nh_stepper *s, double t, const double *x0, double h, const double *x1,
               double theta, double *x);
  nh_contact_hold contact; /* how it holds closed contacts (NH_HOLD_NONE when left out) */
  /* Nullable: how it holds them on this model, when that depends on the model (else contact) */
  nh_contact_hold (*hold)(const nh_model *model, const nh_method_opts *opts);
  /* Nullable: the driver moved the state the last step ended at, x_old, to x_new (its
   * projection onto the closed contacts, NH_HOLD_ROWS); a method carrying a vector keyed by
   * x_old keeps it for x_new instead of restarting */
  void (*moved)(nh_stepper *s, const double *x_old, const double *x_new);
  /* Nullable: steps of a plain run (no gaps, monitors, projection or observer) from x0, the
   * state the last step ended at, to x1 (distinct from x0), the states between not handed
   * back, each exactly the step above; it stops before a step that would fail or leave a
   * non-finite state (the driver then takes that step itself). 0 with a->done steps (0: none,
   * e.g. not a continuation), or a negative status. */
  int (*advance)(nh_stepper *s, const double *x0, double *x1, nh_advance *a);
};

/* The automatic first trial step of an adaptive method of this order (Hairer, Norsett &
 * Wanner, sec. II.4): from |x|, |F(t, x)| and a difference quotient of F, scaled by
 * atol + rtol |x|; work holds 3 nx doubles; h_max > 0 bounds it. Returns 0 and *h, or the
 * callback's status. Two evaluations of F, counted in *evals. */
int nh_initial_step(nh_dyn *dyn, int nx, int order, double t, const double *x, double rtol, double atol,
                    double h_max, double *work, double *h, long *evals);

extern const nh_method nh_method_exact;
extern const nh_method nh_method_rk4;
extern const nh_method nh_method_rkmk4;
extern const nh_method nh_method_dopri5;
extern const nh_method nh_method_dop853;
extern const nh_method nh_method_rk2;
extern const nh_method nh_method_gni;
extern const nh_method nh_method_rattle;
extern const nh_method nh_method_shake;
extern const nh_method nh_method_del;
extern const nh_method nh_method_rdp;

/* record one solve's Newton iterations and final residual in the stepper's statistics (every
 * solve of a step, accepted or not, of a full or a partial step) */
static inline void nh_stepper_solved(nh_stepper *s, int iters, double res) {
  s->iters += iters;
  s->solves++;
  if (iters > s->max_iters) s->max_iters = iters;
  s->last_iters = iters;
  s->last_res = res;
  if (res > s->max_res) s->max_res = res;
}

/* The method's flags as they apply with these options on this model: gni, rattle and shake in
 * their symmetric variant conserve the nodal energy (not the half-step energy), and only with a
 * constant M. */
unsigned nh_method_flags_given(const nh_method *m, const nh_method_opts *opts, const nh_model *model);

/* The incoming half-step momentum p_{k+1/2} of the last step of gni, rattle or shake (nq), for
 * tests and monitors; NULL for other methods. */
const double *nh_vi_half_momentum(const nh_stepper *s);
/* The vector gni, rattle and shake carry past the last step end (gni: p+ = D2 L_d; rattle:
 * lambda (nc); shake: q_k-1) and a way to set it for the state (t, x) with previous step h_prev
 * (tests: time reversal). */
void nh_vi_carried(nh_stepper *s, double *c);
void nh_vi_set_carried(nh_stepper *s, double t, const double *x, const double *c, double h_prev);
/* gni, rattle and shake's `moved`: the carried vector of x_old now belongs to x_new */
void nh_vi_moved(nh_stepper *s, const double *x_old, const double *x_new);

/* Dense output linear in q and v over the step (fixed-step structure-preserving methods). */
int nh_dense_linear(nh_stepper *s, double t, const double *x0, double h, const double *x1,
                    double theta, double *x);
extern const nh_method nh_method_avf;
extern const nh_method nh_method_gonzalez;
extern const nh_method nh_method_itoh_abe;
extern const nh_method nh_method_gonzalez_r;
extern const nh_method nh_method_gonzalez_r_fd;
extern const nh_method nh_method_gonzalez_f;
extern const nh_method nh_method_si_dla;
extern const nh_method nh_method_i_dla;
extern const nh_method nh_method_spark;

/* The constraint rows count as dependent at a step's base point q when one keeps less than
 * this fraction of its norm after the rows before it (Gram-Schmidt, or |R_kk| <= tol |A_k| in
 * the QR of A^T): A has lost rank there, a singular configuration of the model. The methods
 * that need the rows independent (the D* frame of avf, gonzalez, itoh-abe, gonzalez-r and
 * gonzalez-r-fd; gonzalez-f's multiplier system) end with NH_ERR_CONSTRAINT_RANK there. For
 * the frame: its direction errs by about eps / (|R_kk| / |A_k|) next to such a point, and
 * mapping v onto it loses that error squared of the energy, 5e-12 at this bound. */
#define NH_CONSTRAINT_RANK_TOL 1e-10

/* The D* form of a mechanical model with 1 <= nc < nq constraints and no force (src/methods/
 * gonzalez_r.c): the discrete-gradient step of kind (nh_dg_kind) on (q, rho), rho the momentum
 * in the differentiated-QR frame of D fixed at x0, from and back to (q, v); its workspace
 * (ending with the 2 nx + 1 doubles of nh_hermite_dense_tail; 0 when unsupported) and test. */
size_t nh_dstar_work_size(const nh_model *model);
int nh_dstar_supports(const nh_model *model);
int nh_dstar_step(nh_stepper *s, const double *x0, double h, double *x1, int kind);
/* The fixed chart of nh_model_dstar_create: s holds the model and nh_dstar_ctx_size doubles;
 * nh_dstar_chart fixes the QR signs at q; nh_dstar_eval is H, grad H and Pi at x = (q, rho)
 * (outputs Nullable); nh_dstar_map gives rho = X^T M v (rho given) or v = X gD^-1 rho (rho
 * NULL, v holding rho, the velocity into vout). */
size_t nh_dstar_ctx_size(const nh_model *model);
int nh_dstar_chart(nh_stepper *s, const double *q);
int nh_dstar_eval(nh_stepper *s, const double *x, double *H, double *dH, double *Pi);
int nh_dstar_map(nh_stepper *s, const double *q, const double *v, double *rho, double *vout);

/* Dense output for one-step methods without their own interpolant: the cubic Hermite
 * interpolant through (x0, F(t, x0)) and (x1, F(t + h, x1)), the slopes computed once per
 * step into f (2 nx doubles, valid[0] = 0 after each step). */
int nh_hermite_dense(nh_stepper *s, double t, const double *x0, double h, const double *x1,
                     double theta, double *x, double *f, double *valid);
/* The same, for a method whose workspace ends with those 2 nx + 1 doubles (f, then valid):
 * usable directly as the method's dense function. */
int nh_hermite_dense_tail(nh_stepper *s, double t, const double *x0, double h, const double *x1,
                          double theta, double *x);

/* Weighted RMS norm of err with weights atol + rtol max(|x0|, |x1|). */
double nh_err_norm(int n, const double *err, const double *x0, const double *x1, double rtol,
                   double atol);

#endif
