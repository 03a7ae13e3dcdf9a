/* nholo/method.h - the integrators, as a table the caller can list and pick from.
 *
 * A method is a static, read-only description (name, order, what it preserves) together
 * with its step function. Every method can be used with every impact law: the simulation
 * driver (nholo/sim.h), not the method, locates impacts and applies the maps. */
#ifndef NHOLO_METHOD_H
#define NHOLO_METHOD_H

#include "nholo/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nh_method nh_method;

/* Flags describing a method. */
enum {
  NH_METHOD_ADAPTIVE = 1 << 0, /* error-controlled step size (uses rtol/atol) */
  NH_METHOD_EXACT = 1 << 1,    /* uses the model's closed-form flow */
  NH_METHOD_IMPLICIT = 1 << 2, /* solves nonlinear equations each step */
  NH_METHOD_SYMMETRIC = 1 << 3, /* time-reversible */
  NH_METHOD_LIE = 1 << 4,       /* a Lie-group method: needs the model's rotation part
                                   (nh_model_def.angvel), keeps |q| = 1 without projection */
  /* claims to conserve energy (its conserved quantity: nholo/sim.h, nh_sim_stats) on a model
   * without forces or controls whose impacts, if any, are elastic; the driver checks the claim
   * against NH_DRIFT_TOL (what a method conserves on a model is decided in one place,
   * nh_sim_stats.conserved_quantity) */
  NH_METHOD_ENERGY = 1 << 5,
  NH_METHOD_ENERGY_NO_V = 1 << 6, /* with NH_METHOD_ENERGY: the claim needs V = 0 and a constant M */
  NH_METHOD_HALF_STEP = 1 << 7    /* its conserved quantity is the half-step energy (gni, shake) */
};

/* Options of the structure-preserving methods (gni, rattle, shake, del, rdp). */
typedef enum nh_retraction {
  NH_RETRACTION_EXP = 0,  /* exponential map, exact dexp^-1 */
  NH_RETRACTION_CCSK = 1, /* canonical coordinates of the second kind */
  NH_RETRACTION_CAY = 2   /* Cayley map (corrected rotation block) */
} nh_retraction;

typedef enum nh_start {
  /* gni: p_{1/2} = p_0 + h/2 P^T f (paper eq. 16); rattle: lambda_0 = 0 (paper Remark 1) */
  NH_START_PAPER = 0,
  /* rattle: lambda_0 chosen so that it reproduces gni (spec A4); gni: as PAPER */
  NH_START_CONSISTENT = 1,
  /* gni: the constraint-direction part of p_{1/2} chosen so that the constraint holds at
   * q_0 + h/2 M^-1 p_{1/2}; seeds the parasitic period-2 mode much more weakly (spec 5.1.1).
   * rattle (lambda_0) and shake (q_-1) start so that they are gni with this start. The default. */
  NH_START_MIDPOINT = 2
} nh_start;

/* gni, rattle and shake: the formulation (docs/integrators.md, "The symmetric one-step form") */
typedef enum nh_variant {
  /* one step of the nodal state, the paper's step restarted at every node with the midpoint
   * start: symmetric, order 2, constraints exactly at the nodes, no parasitic period-2 mode;
   * without forces or potential and with a constant M the nodal energy exactly. The default. */
  NH_VARIANT_SYMMETRIC = 0,
  /* the paper's two-step forms (eqs. 5-16): half-step energy exact (V = 0, constant M), but a
   * period-2 mode of the half-step momenta grows at the rate the true flow contracts */
  NH_VARIANT_PAPER = 1
} nh_variant;

typedef struct nh_method_opts {
  nh_retraction retraction; /* rdp: default exp */
  nh_variant variant;       /* gni, rattle, shake: default NH_VARIANT_SYMMETRIC */
  nh_start start;           /* gni, rattle, shake with NH_VARIANT_PAPER: default NH_START_MIDPOINT
                               (PAPER seeds the period-2 mode) */
  int midpoint_ld;          /* del: 1 = midpoint discrete Lagrangian, 0 = trapezoidal (default) */
  double alpha;             /* rdp: r_{k+alpha} = (1-alpha) r_k + alpha r_{k+1}, default 1/2 */
  int dexp_order;           /* rdp with exp: 0 = exact dexp^-1 (default), 1 or 2 = the truncation
                               I - ad/2 (+ ad^2/12) of paper eq. 42 */
  double newton_tol;        /* implicit methods: residual tolerance (relative), default 1e-12 */
  int newton_max_iter;      /* implicit methods: iterations before NH_ERR_NO_CONVERGENCE, default 30 */
} nh_method_opts;

NH_API nh_method_opts nh_method_opts_default(void);
/* "exp", "ccsk", "cay"; and back (-1 when unknown) */
NH_API const char *nh_retraction_name(nh_retraction r);
NH_API int nh_retraction_find(const char *name);
/* "symmetric", "paper"; and back (-1 when unknown) */
NH_API const char *nh_variant_name(nh_variant v);
NH_API int nh_variant_find(const char *name);

/* Number of methods, and the i-th (0 <= i < count); NULL when out of range. */
NH_API int nh_method_count(void);
NH_API const nh_method *nh_method_at(int i);
/* The method with this lower-case name ("rk4", "dopri5", "exact", ...), or NULL. */
NH_API const nh_method *nh_method_find(const char *name);

NH_API const char *nh_method_name(const nh_method *method);
/* One line: what the method is. */
NH_API const char *nh_method_summary(const nh_method *method);
/* One line: what the method preserves ("nothing exactly", "energy", ...). */
NH_API const char *nh_method_preserves(const nh_method *method);
NH_API int nh_method_order(const nh_method *method);
NH_API unsigned nh_method_flags(const nh_method *method);
/* NH_OK when the method can run this model, else NH_ERR_UNSUPPORTED (e.g. "exact" on a model
 * with no closed-form flow). */
NH_API int nh_method_supports(const nh_method *method, const nh_model *model);
/* As nh_method_supports, with the reason in msg when the method refuses the model: what the
 * method needs and the methods that can run the model ("method 'rattle' cannot run model 'm':
 * it needs a constant mass matrix M, ...; methods that can: rk4, dopri5, ..."). */
NH_API int nh_method_check(const nh_method *method, const nh_model *model, char *msg, size_t msg_size);
/* ---- which method runs which kind of model --------------------------------------------
 * The kinds of model, each with a small example built by the library (a harmonic well in the
 * plane; a knife edge; the knife edge in coordinates where M depends on q; the knife edge
 * declared SE(2)-invariant; a free rigid body in Lie-Poisson form; the rigid body with its
 * attitude quaternion; a harmonic oscillator as an ODE). The mechanical ones have one wall. */
typedef enum nh_model_kind {
  NH_KIND_LAGRANGIAN = 0, /* mechanical, no constraints, constant M */
  NH_KIND_CONSTRAINED,    /* mechanical, nonholonomic constraints, constant M */
  NH_KIND_MASS_Q,         /* mechanical, constraints, M depending on q */
  NH_KIND_SE2,            /* mechanical, constraints, SE(2)-invariant (has_se2) */
  NH_KIND_POISSON,        /* ODE form, almost-Poisson (hamiltonian, poisson) */
  NH_KIND_ROTATION,       /* ODE form with a rotation part (angvel, quat) */
  NH_KIND_ODE,            /* ODE form (rhs) */
  NH_KIND_COUNT
} nh_model_kind;

/* Variants of a mechanical kind's example (one at a time), and the conditional verdicts of
 * nh_method_kind_support (positive) */
enum {
  NH_KIND_FLOW = 1 << 0,  /* variant: with its closed-form flow */
  NH_KIND_FORCE = 1 << 1, /* variant: with a damping force */
  NH_KIND_NEEDS_FLOW = 1, /* verdict: runs the kind only with the model's closed-form flow */
  NH_KIND_NO_FORCE = 2    /* verdict: runs the kind only without forces */
};

/* Short name ("lagrangian", "constrained", "q-mass", "se2", "poisson", "rotation", "ode") and
 * one line on the kind; "" when out of range. */
NH_API const char *nh_model_kind_name(nh_model_kind kind);
NH_API const char *nh_model_kind_title(nh_model_kind kind);
/* 1 when models of the kind have gaps (the mechanical kinds: every impact law applies), else 0 */
NH_API int nh_model_kind_has_gaps(nh_model_kind kind);
/* The kind's example with a variant (0, NH_KIND_FLOW or NH_KIND_FORCE; mechanical kinds
 * only) and the law of its wall (Nullable: elastic); release with nh_model_destroy. NULL with
 * the reason in msg when the kind or variant is out of range. */
NH_API nh_model *nh_model_kind_example(nh_model_kind kind, unsigned variant, const nh_impact_law *law,
                                       char *msg, size_t msg_size);
/* Whether the method runs models of this kind: nh_method_check on the kind's example and its
 * variants. NH_OK: it runs the example with and without a force; NH_KIND_NO_FORCE: only
 * without (msg: the refusal with one); NH_KIND_NEEDS_FLOW: only with a closed-form flow (msg:
 * the refusal without); NH_ERR_UNSUPPORTED: it refuses the kind (msg: nh_method_check's
 * reason and the methods that can); another negative status when an example fails to build. */
NH_API int nh_method_kind_support(const nh_method *method, nh_model_kind kind, char *msg, size_t msg_size);

/* The method a simulation uses when none is named: "exact" when the model has a closed-form
 * flow, else "dopri5" (nh_sim_def.method = NULL; also the command line's default). */
NH_API const nh_method *nh_method_default_for(const nh_model *model);

/* ---- the D* form of a Lagrangian model --------------------------------------------
 * avf, gonzalez and itoh-abe run a conservative mechanical model with 1 <= nc < nq constraints
 * directly (each step builds its D* form; state and outputs stay (q, v)). For the almost-Poisson
 * model itself: nh_model_dstar_create returns an ODE-form model with state x = (q, rho), nx =
 * 2 nq - nc, rho = X(q)^T M(q) v the momentum in the orthonormal frame X of ker A(q) from the
 * Householder QR of A^T (Celledoni et al. Algorithm 1), H = 1/2 rho^T (X^T M X)^-1 rho + V,
 * grad H and Pi = [[0, X], [-X^T, S]] exact (eqs. (8), (16)-(18), differentiated QR); its
 * Hessian of H and d(Pi g)/dx are the library's central differences. The QR signs are fixed
 * once, at the model's q0: the chart is smooth except where a column of A^T turns to the
 * opposite sign of its reference (there the evaluators fail with NH_ERR_SINGULAR; the
 * step-wise form of the methods above has no such set). The lagrangian model must outlive
 * the result; the result's evaluators use scratch of their own, so run one simulation of it at
 * a time. NULL with a reason in msg when the model has a force or not 1 <= nc < nq. */
NH_API nh_model *nh_model_dstar_create(const nh_model *lagrangian, char *msg, size_t msg_size);
/* x = (q, X^T M v) of a D* model from (q, v); and (q, v = X (X^T M X)^-1 rho) back from x
 * (q Nullable). NH_ERR_ARG when dstar is not from nh_model_dstar_create. */
NH_API int nh_model_dstar_from_qv(const nh_model *dstar, const double *q, const double *v, double *x);
NH_API int nh_model_dstar_to_qv(const nh_model *dstar, const double *x, double *q, double *v);

#ifdef __cplusplus
}
#endif
#endif
