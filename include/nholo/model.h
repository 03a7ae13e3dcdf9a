/* nholo/model.h - the constant description of a nonholonomic hybrid system.
 *
 * A model is a natural mechanical system on coordinates q (nq of them) with
 *
 *   kinetic energy      T = 1/2 v^T M(q) v            (v = dq/dt)
 *   potential           V(q)
 *   generalized forces  f(t, q, v)
 *   constraints         A(q) v = 0                    (nc rows, the constraint one-forms)
 *   gaps                g_i(q) >= 0                   (ngap unilateral surfaces; g_i = 0 is a wall)
 *   impact laws         one per gap (elastic, plastic, restitution e)
 *
 * Between impacts q follows the Lagrange-d'Alembert equations in multiplier form
 *
 *   M(q) a = -c(q, v) - dV(q) + f(t, q, v) + A(q)^T lambda,      A(q) a + Adot(q, v) v = 0,
 *   c_i = sum_jk (dM_ij/dq_k - 1/2 dM_jk/dq_i) v_j v_k             (Coriolis/centrifugal).
 *
 * Build a model once from an nh_model_def (nh_model_create copies everything it needs);
 * it never changes afterwards, and any number of simulations may share it.
 *
 * A model may instead be given in first-order ODE form (form = NH_FORM_ODE): a state x of
 * size nx with x' = F(t, x), an optional energy E(t, x) (a monitor only; time-dependent
 * systems need not conserve it) and an optional projection x <- P(x) applied after every
 * accepted step (a projection method, Hairer-Lubich-Wanner sec. IV.4: e.g. renormalising a
 * unit quaternion; it does not change the order of the method). An ODE-form model has no
 * coordinates or constraints (nq = nc = 0) and no "exact" method; only its almost-Poisson form
 * (below) may have gaps, on the state: g_i(x) >= 0, the gap evaluator then reading x (nx) and
 * writing dg as (ngap x nx), with the impact map of nholo/impact.h (nh_model_impact_ap; laws
 * elastic and restitution e, not plastic).
 * The mechanical form is the default; its first-order state is x = (q, v), nx = 2 nq.
 *
 * Both forms may have monitors: nmon scalar functions m_j(t, x) whose zero crossings (in a
 * chosen direction) the driver locates like impacts and logs as events; a monitor's action
 * either only reports the event or stops the run there (nholo/sim.h).
 *
 * Evaluators: every callback gets its inputs, writes its outputs into caller-owned
 * arrays and receives the model's user pointer last. It returns 0 on success, a positive
 * value when the point is infeasible but a smaller step may succeed, and a negative value
 * to stop the computation. Where no smaller step exists (the gaps, monitors or energy at a
 * state a run has reached, a partial step of event location) a positive value stops the run
 * as a failure (NH_ERR_CALLBACK; NH_ERR_EVENT for the partial step; nholo/sim.h). Matrices
 * are dense, row-major. */
#ifndef NHOLO_MODEL_H
#define NHOLO_MODEL_H

#include <stddef.h>

#include "nholo/evaluators.h"
#include "nholo/export.h"
#include "nholo/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest sizes a model may have (workspaces are sized from the actual model). */
#define NH_MAX_NAME 64

/* ---- impact laws ------------------------------------------------------------------ */

typedef enum nh_impact_kind {
  /* Elastic nonholonomic impact (Clark & Bloch eqs. 15-17): energy conserved, constraints
   * kept, normal velocity reversed. With no constraints it is the specular reflection (5). */
  NH_IMPACT_ELASTIC = 0,
  /* Plastic nonholonomic impact (Clark & Bloch eqs. 18-21): the unconstrained elastic
   * reflection followed by the kinetic-metric projection onto the constraints. */
  NH_IMPACT_PLASTIC = 1,
  /* Restitution e in [0,1]: with no constraints Clark & Bloch eq. (6); with constraints the
   * reflection inside the constraint distribution scaled by (1+e)/2 (an extension of the
   * paper: dg.v+ = -e dg.v-, energy loss (1-e^2) sig^2 / (2 D_e)). e = 1 is ELASTIC. */
  NH_IMPACT_RESTITUTION = 2
} nh_impact_kind;

typedef struct nh_impact_law {
  nh_impact_kind kind;
  double e; /* coefficient of restitution, used by NH_IMPACT_RESTITUTION, in [0, 1] */
} nh_impact_law;

/* ---- evaluators ------------------------------------------------------------------- */

/* M(q): (nq x nq) symmetric positive definite. Required. */
typedef int (*nh_mass_fn)(const double *q, double *M, void *user);
/* V(q) and its gradient dV (nq). Either output may be NULL: compute only what is asked. */
typedef int (*nh_potential_fn)(const double *q, double *V, double *dV, void *user);
/* Coriolis/centrifugal vector c(q, v) (nq), defined above. NULL means M is constant. */
typedef int (*nh_coriolis_fn)(const double *q, const double *v, double *c, void *user);
/* Generalized force f(t, q, v) (nq). */
typedef int (*nh_force_fn)(double t, const double *q, const double *v, double *f, void *user);
/* A(q) (nc x nq) and the vector Adot(q, v) v = sum_k (dA/dq_k v_k) v (nc). Either output may be NULL. */
typedef int (*nh_constraint_fn)(const double *q, const double *v, double *A, double *Adot_v,
                                void *user);
/* Gap values g (ngap) and gradients dg (ngap x nq, row i = dg_i/dq). Either output may be NULL.
 * (almost-Poisson form: q is the state x and dg is (ngap x nx).) */
typedef int (*nh_gap_fn)(const double *q, double *g, double *dg, void *user);
/* A gap's zero to rounding, as the simulation (nholo/sim.h) and the model-file checks see it
 * (docs/contact.md, "Exact contact at the start"), with s = max(1, |q|) the configuration's
 * scale (almost-Poisson form: |x|):
 *   touching: |g_i| <= NH_GAP_START_REL s |dg_i|, what g resolves there; an initial state
 *     that close below a wall is on it (g_i taken as 0: at rest on it, or approaching, as
 *     after a located crossing), not outside;
 *   a vanishing gradient: at a located crossing, |dg_i| s <= NH_GAP_DEGEN_REL G_i, below the
 *     rounding of the gap's scale G_i = max(|g_i|, |dg_i| s) taken at the initial state; at
 *     the initial state itself, where no scale is known yet, |g_i| <= NH_GAP_START_REL s and
 *     |dg_i| s <= NH_GAP_DEGEN_REL (the gap's own units). An initial state on such a zero is
 *     refused, and a crossing located on one ends the run with NH_ERR_DEGENERATE_GAP: a gap
 *     like y^2 (never negative) or y^3 (crossing with dg = 0) has no normal direction for its
 *     impact; model files refuse the decidable cases symbolically (docs/model-language.md,
 *     "Which gaps are walls"). */
#define NH_GAP_START_REL 1.4210854715202004e-14 /* 64 DBL_EPSILON */
#define NH_GAP_DEGEN_REL 1.4210854715202004e-14 /* 64 DBL_EPSILON */
/* Closed-form flow between impacts: the state (q, v) after time tau from (q0, v0). Outputs
 * may alias the inputs. */
typedef int (*nh_flow_fn)(const double *q0, const double *v0, double tau, double *q, double *v,
                          void *user);
/* Closed-form event prediction along the closed-form flow: the first tau in (0, tau_max] at
 * which a gap crosses zero from above. Returns 0 and sets *tau and *gap when one exists, a
 * positive value (NH_NO_IMPACT) when there is none in (0, tau_max], negative on failure.
 * The reported tau must be accurate to round-off (the driver does not refine it). A gap that
 * starts at (numerically) zero and is not moving into the wall is in contact (the impact just
 * handled, or a graze the driver skipped): only its next crossing after it has come back
 * inside counts, so tau = 0 is never returned. */
typedef int (*nh_predict_fn)(const double *q0, const double *v0, double tau_max, double *tau,
                             int *gap, void *user);

/* ---- derivatives (optional) ------------------------------------------------------- *
 * Implicit and variational methods (Newton on discrete equations) need derivatives of the
 * evaluators above. Model files provide all of them exactly; a hand-written model may leave
 * any of them NULL and the library then uses central finite differences of the evaluator
 * itself (relative step NH_FD_STEP; about 1e-10 relative accuracy; nh_model_exact_derivs
 * tells which are exact). Index conventions, k the differentiation variable:
 *   dM[(k*nq + i)*nq + j]            = d M_ij / d q_k
 *   d2M[((k*nq + l)*nq + i)*nq + j]  = d^2 M_ij / d q_k d q_l
 *   H[i*nq + j]                      = d^2 V / d q_i d q_j
 *   dA[(k*nc + i)*nq + j]            = d A_ij / d q_k
 *   dfdq[i*nq + j] = d f_i / d q_j,  dfdv[i*nq + j] = d f_i / d v_j */
typedef int (*nh_mass_deriv_fn)(const double *q, double *dM, void *user);
typedef int (*nh_mass_deriv2_fn)(const double *q, double *d2M, void *user);
typedef int (*nh_potential_hess_fn)(const double *q, double *H, void *user);
typedef int (*nh_constraint_deriv_fn)(const double *q, double *dA, void *user);
/* Holonomic constraints phi(q) = 0 (nc values), Nullable: when given, the nc constraint rows
 * are their gradients (A = dphi/dq, which the constraint evaluator must return), and the
 * variational integrator "del" keeps phi(q_k) = 0 at every node. */
typedef int (*nh_holonomic_fn)(const double *q, double *phi, void *user);
/* Either output may be NULL. */
typedef int (*nh_force_jac_fn)(double t, const double *q, const double *v, double *dfdq,
                               double *dfdv, void *user);

/* Which derivatives are exact (bits of nh_model.exact_derivs). */
enum {
  NH_DERIV_MASS = 1 << 0,
  NH_DERIV_MASS2 = 1 << 1,
  NH_DERIV_POTENTIAL = 1 << 2,
  NH_DERIV_CONSTRAINT = 1 << 3,
  NH_DERIV_FORCE = 1 << 4,
  NH_DERIV_HAMILTONIAN = 1 << 5, /* almost-Poisson form: Hessian of H */
  NH_DERIV_POISSON = 1 << 6      /* almost-Poisson form: Jacobian of Pi g */
};

/* Relative finite-difference step for derivatives a model does not provide:
 * h_k = NH_FD_STEP * max(1, |q_k|) (central differences, error O(h^2)). */
#define NH_FD_STEP 6.0e-6
/* ---- first-order (ODE) form and monitors ------------------------------------------ */

typedef enum nh_model_form {
  NH_FORM_MECHANICAL = 0, /* (q, v), M(q), A(q), gaps: the default */
  NH_FORM_ODE = 1         /* x' = F(t, x) */
} nh_model_form;

/* x' = F(t, x): xdot (nx). Required for NH_FORM_ODE. */
typedef int (*nh_rhs_fn)(double t, const double *x, double *xdot, void *user);
/* Energy E(t, x) of an ODE-form model (monitored, not enforced). */
typedef int (*nh_energy_fn)(double t, const double *x, double *E, void *user);
/* Projection onto the solution manifold, in place: x <- P(x). Called on the state after each
 * accepted step (not on the initial state, nor on dense-output samples); P must be
 * idempotent up to round-off. */
typedef int (*nh_project_fn)(double *x, void *user);
/* Body angular velocity w (3) of an ODE-form model's rotation part at (t, x) (see quat). */
typedef int (*nh_angvel_fn)(double t, const double *x, double *w, void *user);
/* All monitor values m_j(t, x), j < nmon, with x the first-order state ((q, v) for a
 * mechanical model). */
typedef int (*nh_monitor_fn)(double t, const double *x, double *m, void *user);

/* Which zero crossings of a monitor count. */
typedef enum nh_monitor_dir {
  NH_MONITOR_BOTH = 0,
  NH_MONITOR_FALLING = -1, /* m goes from > 0 to <= 0 */
  NH_MONITOR_RISING = 1,   /* m goes from < 0 to >= 0 */
  NH_MONITOR_NONE = 2      /* a value only, never an event (a contact's friction force) */
} nh_monitor_dir;

/* What the driver does at a located crossing: log it (always), then go on or stop. */
typedef enum nh_monitor_action {
  NH_MONITOR_REPORT = 0,
  NH_MONITOR_STOP = 1 /* the run ends at the event with NH_EVENT_STOP */
} nh_monitor_action;

typedef struct nh_monitor_def {
  const char *name; /* unique among the monitors, e.g. "normal_force" */
  nh_monitor_dir direction;
  nh_monitor_action action;
} nh_monitor_def;

/* ---- almost-Poisson (skew-gradient) form of an ODE-form model ---------------------- *
 * An ODE-form model may give its vector field as x' = Pi(x) grad H(x) with Pi(x) an
 * (nx x nx) skew-symmetric matrix (the almost-Poisson matrix: the Jacobi identity is not
 * required) and H(x) its energy: the reduced equations of a nonholonomic system on D*
 * (Celledoni et al., "Energy-Preserving Integrators Applied to Nonholonomic Systems",
 * eq. (9)), the Suslov problem on so(3), ... Then rhs and energy are left NULL: the library
 * derives F = Pi grad H and E = H, and the discrete-gradient methods (avf, gonzalez,
 * itoh-abe) apply. The system is autonomous. Hessian and Pi-Jacobian are optional (central
 * differences otherwise, as for the mechanical derivatives):
 *   Hs[i*nx + j] = d^2 H / dx_i dx_j,     T[i*nx + k] = sum_j dPi_ij/dx_k g_j  (at fixed g) */
/* H(x) and grad H (nx); either output may be NULL. */
typedef int (*nh_hamiltonian_fn)(const double *x, double *H, double *dH, void *user);
/* Pi(x) (nx x nx), skew-symmetric. */
typedef int (*nh_poisson_fn)(const double *x, double *Pi, void *user);
/* Hessian of H (nx x nx). */
typedef int (*nh_hamiltonian_hess_fn)(const double *x, double *Hs, void *user);
/* T = d(Pi(x) g)/dx at fixed g (nx), as above. */
typedef int (*nh_poisson_jac_fn)(const double *x, const double *g, double *T, void *user);

/* ---- definition and model --------------------------------------------------------- */

/* Everything needed to build a model. Start from nh_model_def_default(); every pointer is
 * copied (names, arrays, and user_size bytes of user data) by nh_model_create. */
typedef struct nh_model_def {
  const char *name;                    /* model name, e.g. "penny" */
  int nq;                              /* number of coordinates, >= 1 */
  int nc;                              /* number of velocity constraints, >= 0 */
  int ngap;                            /* number of gap functions, >= 0 */
  int npar;                            /* number of named parameters (informational), >= 0 */
  const char *const *coord_names;      /* (nq) required */
  const char *const *constraint_names; /* (nc) Nullable: "c1", "c2", ... */
  const char *const *gap_names;        /* (ngap) Nullable: "g1", "g2", ... */
  const char *const *param_names;      /* (npar) Nullable when npar = 0 */
  const double *param_values;          /* (npar) Nullable when npar = 0 */
  const nh_impact_law *impact;         /* (ngap) Nullable: all elastic */
  const double *q0;                    /* (nq) default initial position; Nullable: zeros */
  const double *v0;                    /* (nq) default initial velocity; Nullable: zeros */

  /* The evaluators, one field each, in the order and under the names of the list in
   * nholo/evaluators.h (mass, potential, coriolis, force, constraint, gap, flow, predict, the
   * derivatives mass_deriv ... force_jac, holonomic, rhs, energy, project, angvel, hamiltonian,
   * poisson, hamiltonian_hess, poisson_jac, their _sparse variants, mass_sparse,
   * constraint_sparse, monitor); the list says
   * which are required. Derivatives left NULL are finite differences (see above). */
  NH_EVALUATOR_LIST(NH_EVALUATOR_FIELD)

  /* Nullable: called by nh_model_destroy with the model's user pointer (for user data the
   * definition does not copy, user_size == 0: compiled code, tapes) */
  void (*user_free)(void *user);
  const char *backend; /* Nullable: how the evaluators run, "c" (default), "tape", "codegen" */
  /* ODE form (form = NH_FORM_ODE; then nq, nc, mass, ... stay 0 / NULL; ngap and gap only in
   * the almost-Poisson form, on x): rhs required,
   * energy (Nullable: E = 0), project (Nullable: no projection) */
  nh_model_form form;               /* default NH_FORM_MECHANICAL */
  int nx;                           /* state size (ODE form), >= 1 */
  const char *const *state_names;   /* (nx) Nullable: "x1", "x2", ... */
  const double *x0;                 /* (nx) default initial state; Nullable: zeros */
  /* almost-Poisson form (ODE form with rhs = energy = NULL; see above): hamiltonian and
   * poisson together; hamiltonian_hess and poisson_jac Nullable (finite differences). The
   * Nullable "sparse-fill" variants poisson_sparse, hamiltonian_hess_sparse and
   * poisson_jac_sparse (each only with its dense evaluator) give the same values, except
   * that entries which are zero at every argument (structural zeros) may be left unwritten.
   * A caller fills its buffer once (zeros, or one dense call) and keeps it for repeated
   * sparse calls. */
  int hamiltonian_degree;           /* H a polynomial of this total degree (the AVF quadrature is
                                       then exact), 0: not polynomial (adaptive quadrature) */
  /* Nullable (dense): which entries of Pi and of T (nx x nx, row-major) may be nonzero; the
   * others must be exactly 0 at every x (and g). The discrete-gradient methods skip them. */
  const unsigned char *poisson_pattern;
  const unsigned char *poisson_jac_pattern;
  /* rotation part (ODE form, optional): x[quat .. quat + 3] is a unit quaternion (scalar
   * first, body to space) with q' = 1/2 q * [0; w] and w = angvel(t, x) the body angular
   * velocity. Lie-group methods (NH_METHOD_LIE, e.g. "rkmk4") update it by exponentials of
   * so(3) elements, so |q| = 1 holds by construction; they skip `project`, which must then
   * do no more than renormalise q. angvel Nullable: no rotation part. */
  int quat;                         /* index of q0 in x, 0 <= quat <= nx - 4 (with angvel) */

  /* monitors (either form): the evaluator monitor is required when nmon > 0 */
  int nmon;                         /* >= 0 */
  const nh_monitor_def *monitors;   /* (nmon) required when nmon > 0 */
  /* Lie-group structure (optional; method "rdp" needs it). has_se2 = 1 declares that the
   * coordinates se2[0], se2[1], se2[2] are (theta, x, y) of a planar pose g in SE(2) (x, y in
   * the spatial frame) and that every other coordinate is a shape variable r. The model must
   * then be left-invariant: with the group velocity in the body frame, xi = g^-1 g' =
   * (theta', R(theta)^T (x', y')), the kinetic energy, the constraint rows and V depend on r
   * only (the methods evaluate them at g = identity). Forces may depend on anything. */
  int has_se2;
  int se2[3];
  /* mechanical form: 1 declares that M(q) does not depend on q (nor on anything that changes
   * during a run). The dynamics then evaluate and factor M once per simulation, not per
   * right-hand side; mass is still called where a method wants M itself. Model files set it
   * when every entry of dM/dq is identically 0. A wrong 1 gives wrong dynamics. */
  int mass_constant;
  /* mechanical form with mass_constant and nc > 0: 1 declares that the constraints' Gram
   * matrix G(q) = A(q) M^-1 A(q)^T does not depend on q either (the Chaplygin sleigh's is
   * a^2/I + (sin^2 + cos^2)/m). Methods may then keep G^-1 from the first evaluation of G
   * (gni's free-motion kernel does). Model files set it when a normal form in sin and cos
   * shows every non-constant term of G to cancel. A wrong 1 gives wrong dynamics. */
  int gram_constant;
  /* mechanical form, Nullable (dense): which entries of M (nq x nq) and of A (nc x nq,
   * row-major) may be other than +0; every other entry must be exactly +0 at every q. Sums
   * over M and A (energy, constraint residual, the multiplier solve) then skip them, with the
   * same bits for a finite state. The Nullable sparse-fill evaluators mass_sparse and
   * constraint_sparse (each only with its dense evaluator; without its pattern the model
   * leaves it NULL, e.g. when copying another model's evaluators) give the dense
   * values except that the entries outside the pattern are left unwritten (Adot v is written
   * whole): a caller keeps its buffer +0 there (zeros, or one dense call) across calls. */
  const unsigned char *mass_pattern;
  const unsigned char *constraint_pattern;

  const void *user;  /* passed to every evaluator */
  size_t user_size;  /* > 0: copy user_size bytes of *user into the model and pass the copy */
  int internal_cookie; /* set by nh_model_def_default; do not touch */
} nh_model_def;

struct nh_gram; /* private: the sparse multiplier solve's analysis */
/* private: the signature of a compiled gni kernel (src/lang/codegen_gni.c) */
typedef long (*nh_gni_kernel_fn)(const double *Gi, const double *run, long kmax, double *q, double *v, double *c,
                                 double *A, double *acc, int *fail);

/* The built model: read it freely, never write it. */
typedef struct nh_model {
  char name[NH_MAX_NAME];
  int nq, nc, ngap, npar;
  const char *const *coord_names;
  const char *const *constraint_names;
  const char *const *gap_names;
  const char *const *param_names;
  const double *param_values;
  const nh_impact_law *impact;
  const double *q0, *v0;
  NH_EVALUATOR_LIST(NH_EVALUATOR_FIELD) /* as in nh_model_def; holonomic NULL when nc = 0 */
  unsigned exact_derivs; /* NH_DERIV_* bits of the derivatives the definition provided */
  char backend[16];      /* "c", "tape" or "codegen" */
  void (*user_free)(void *user);
  /* first-order view: form, nx (2 nq for a mechanical model), state names (a mechanical
   * model's are the coordinates, then "NAME_dot"), x0 (for a mechanical model (q0, v0)) */
  nh_model_form form;
  int nx;
  const char *const *state_names;
  const double *x0;
  int hamiltonian_degree;
  const unsigned char *poisson_pattern, *poisson_jac_pattern; /* NULL or copied (nx x nx) */
  int quat; /* rotation part: q at x[quat .. quat + 3] when angvel (see nh_model_def) */
  int nmon;
  const nh_monitor_def *monitors; /* names copied */
  int has_se2, se2[3];   /* Lie-group structure, as in nh_model_def */
  int mass_constant;     /* 0 or 1, as in nh_model_def (0 for the ODE form) */
  int gram_constant;     /* 0 or 1, as in nh_model_def (0 without mass_constant or nc = 0) */
  /* NULL or copied, as in nh_model_def; and by rows: the columns of row i that the pattern
   * holds are cols[rows[i] .. rows[i + 1]), ascending (NULL without the pattern) */
  const unsigned char *mass_pattern, *constraint_pattern;
  const int *mass_rows, *mass_cols;             /* nq + 1 offsets; their columns */
  const int *constraint_rows, *constraint_cols; /* nc + 1 offsets; their columns */
  void *user;
  /* Private (freed with the model): the sparse multiplier solve's analysis, or NULL (see
   * nh_model_multiplier_solver) */
  const struct nh_gram *gram;
  /* Private: gni's free-motion kernel compiled with the model's evaluators (model files on
   * the codegen back end, src/lang/codegen_gni.c), its key and the M, M^-1 it was compiled
   * with (2 nq^2), or NULL, 0, NULL */
  nh_gni_kernel_fn gni_kernel;
  int gni_kernel_code;
  const double *gni_kernel_M;
} nh_model;

/* How the dynamics solve for the constraint multipliers, G lambda = b with
 * G = A M^-1 A^T (docs/architecture.md, "Large models"): */
typedef enum nh_multiplier_solver {
  NH_SOLVE_DENSE = 0,    /* the dense Cholesky factor of G (small models, a mass matrix that
                          * is not constant and diagonal, or no constraint pattern) */
  NH_SOLVE_ENVELOPE = 1, /* its envelope in the constraints' order (a band, a chain) */
  NH_SOLVE_SPARSE = 2    /* a sparse Cholesky in CHOLMOD's fill-reducing order, when the
                          * envelope would hold more than twice as many entries (a tree) */
} nh_multiplier_solver;

/* A definition with every field at its default (zeros, NULLs). */
NH_API nh_model_def nh_model_def_default(void);

/* Check a definition and build a model. On failure returns NULL and, when msg is not NULL,
 * writes a one-line reason (at most msg_size bytes). */
NH_API nh_model *nh_model_create(const nh_model_def *def, char *msg, size_t msg_size);

/* Free a model (NULL is allowed). No simulation may use it afterwards. */
NH_API void nh_model_destroy(nh_model *model);

/* Index of a coordinate by name, or -1. */
NH_API int nh_model_coord_index(const nh_model *model, const char *name);

/* Index of a gap by name, or -1. */
NH_API int nh_model_gap_index(const nh_model *model, const char *name);

/* Index of a monitor by name, or -1. */
NH_API int nh_model_monitor_index(const nh_model *model, const char *name);

/* Total energy E = 1/2 v^T M v + V(q) (mechanical form; for the ODE form use
 * nh_model_energy_x). Returns a status; *E is set on success. */
NH_API int nh_model_energy(const nh_model *model, const double *q, const double *v, double *E);

/* Energy at the first-order state x of either form (ODE form without an energy: 0). */
NH_API int nh_model_energy_x(const nh_model *model, double t, const double *x, double *E);

/* Largest |A(q) v| over the constraint rows (0 when nc = 0). */
NH_API int nh_model_constraint_residual(const nh_model *model, const double *q, const double *v,
                                        double *res);

/* Accelerations a (nq) and constraint multipliers lambda (nc) of the Lagrange-d'Alembert
 * equations above at (t, q, v) (mechanical form; either output Nullable), for front ends that
 * report the multipliers along a trajectory: the free dynamics, without the driver's closed
 * contacts. work: nh_model_accel_work_size(model) doubles, or NULL to allocate. Returns NH_OK,
 * NH_ERR_ARG (ODE form), NH_ERR_SINGULAR, NH_ERR_NOT_SPD, NH_ERR_CALLBACK or NH_ERR_NOMEM. */
NH_API size_t nh_model_accel_work_size(const nh_model *model);
NH_API int nh_model_accel(const nh_model *model, double t, const double *q, const double *v, double *a,
                          double *lambda, double *work);

/* The multiplier solve chosen for a model from its patterns (the mass and constraint patterns
 * of a model file; a model without them is reported dense, though it takes the envelope when
 * its M proves constant and diagonal); entries (Nullable): the stored entries of G's factor
 * (the envelope's for the envelope, L's for the sparse solve, 0 for dense); envelope
 * (Nullable): the envelope of G's pattern in the constraints' order (0 for dense). */
NH_API nh_multiplier_solver nh_model_multiplier_solver(const nh_model *model, long *entries, long *envelope);

/* ---- derivative queries (exact when the model provides them, else finite differences) --
 * Outputs use the index conventions above. They allocate nothing when work holds
 * nh_model_deriv_work_size(model) doubles; work may be NULL for a query outside a time step
 * (then they allocate). Return a status (NH_OK, NH_ERR_CALLBACK, NH_ERR_NOMEM, ...). */
NH_API size_t nh_model_deriv_work_size(const nh_model *model);
NH_API int nh_model_mass_deriv(const nh_model *model, const double *q, double *dM, double *work);
NH_API int nh_model_mass_deriv2(const nh_model *model, const double *q, double *d2M, double *work);
NH_API int nh_model_potential_hess(const nh_model *model, const double *q, double *H, double *work);
NH_API int nh_model_constraint_deriv(const nh_model *model, const double *q, double *dA,
                                     double *work);
/* f Jacobians at (t, q, v); either output may be NULL. Zero when the model has no force. */
NH_API int nh_model_force_jac(const nh_model *model, double t, const double *q, const double *v,
                              double *dfdq, double *dfdv, double *work);
/* Almost-Poisson form: the Hessian of H and T = d(Pi g)/dx at x (conventions above; work:
 * nh_model_deriv_work_size doubles or NULL as above). NH_ERR_UNSUPPORTED for other models. */
NH_API int nh_model_hamiltonian_hess(const nh_model *model, const double *x, double *Hs,
                                     double *work);
NH_API int nh_model_poisson_jac(const nh_model *model, const double *x, const double *g, double *T,
                                double *work);

#ifdef __cplusplus
}
#endif
#endif
