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

/* ---- Simultaneous impacts: the propagative model ------------------------------------------
 *
 * (Seghete & Murphey, "A propagative model of simultaneous impact"; spec 003 sec. 2.) Several
 * gaps g_i >= 0 (i = 0..k-1) are closed at once at a configuration q*; their gradients dg_i
 * (rows, feasible when dg_i v >= 0) are the contact normals. All contacts of the problem are
 * active: feasibility is checked against every one, whatever its initial sign.
 *
 * Metric. Everything lives on the admissible velocities (A v = 0, nonholonomic constraints
 * included), as in nh_impact_map: u_i = Pi M^-1 dg_i^T, the Gram matrix G_ij = dg_i u_j (the
 * kinetic cometric of the constrained system) and the normalised cosines
 * c_ij = G_ij / sqrt(G_ii G_jj). A contact's rate is s_i = dg_i v; its normalised rate
 * s_i / sqrt(G_ii) is compared with -feas_tol |v|_M (|v|_M = sqrt(v^T M v)).
 *
 * Laws (impulses Lambda_i follow the paper: M (v+ - v-) = sum_i Lambda_i dg_i^T + A^T mu,
 * with Lambda_i >= 0 for a pushing contact; note the opposite sign of nh_impact_info.alpha):
 *   elastic    single reflections Gamma_i: v <- v - 2 s_i / G_ii u_i (Lambda_i += -2 s_i/G_ii),
 *              one infeasible contact at a time in the order of a policy, until every
 *              contact is feasible (greedy propagation, stop at the first feasible velocity);
 *              kinetic energy and every quantity whose generator is tangent to all contacts
 *              (total momentum of free bodies) are conserved;
 *   plastic    impulses Lambda_i >= 0 such that every contact that pushes ends at rest on its
 *              surface and every other ends separating (dg_i v+ >= 0, Lambda_i dg_i v+ = 0):
 *              v+ = the kinetic-metric projection of v- onto the cone {dg_i v >= 0} (within
 *              ker A), a linear complementarity problem solved exactly by an active set
 *              (nh_simul_result.plastic_pivots). The paper's eq. (11), the projection onto
 *              {dg_i v = 0 for all i} with Lambda = -G^-1 s, is its solution when no Lambda_i
 *              is negative; otherwise (11) would pull a separating contact back (spec 003
 *              7.1 item 21). The option paper_plastic keeps (11) alone and reports such a
 *              pulling impulse (NH_SIMUL_NEGATIVE_IMPULSE), never accepting it;
 *   inelastic  v+ = alpha v_elastic + (1 - alpha) v_plastic with alpha = R, the energetic
 *              coefficient R = sqrt(1 - dE / E_p) (E_p = the plastic loss). The paper writes
 *              alpha = sqrt(1 - R^2), which turns R = 0 into the elastic map; it is kept only
 *              as the option paper_alpha. R = 1 is the elastic map, R = 0 the plastic one.
 *
 * Policies choose the next reflection among the infeasible contacts, by normalised rate:
 *   most-infeasible (argmin, ties to the lowest index; the default), least-infeasible (argmax,
 *   ties to the highest index), index (the lowest infeasible index), enumerate (a depth-first
 *   search over every choice at every step: all distinct outcomes, each with the sequence
 *   that first reached it, and the indeterminacy xi = max_{a,b} |v_a - v_b|_M / |v-|_M, the
 *   paper's ||p_ab - p_ba||_g / ||p0||_g for two outcomes).
 *
 * Bounds. One contact: 1 reflection. Pairwise g-orthogonal contacts: k (Theorem 2). Two
 * contacts with cosine c: ceil(pi / gamma), gamma = (pi - acos c) / 2 (Theorem 1; the longest
 * observed is ceil(pi / (2 gamma))). More contacts: no theorem, the option max_reflections.
 * A propagation that passes its bound stops with NH_SIMUL_PAST_BOUND.
 *
 * Opposing contacts (c_ij ~ -1: a ball wedged between two walls; their feasible set is the
 * common tangent). Gamma_i Gamma_j = I, so an elastic propagation that reflects across one of
 * them cycles for ever; one that never does is unaffected. By default (opposing_plastic) such
 * a propagation falls back to the plastic map for the whole impact (spec 003 sec. 2.7, T17),
 * reported in nh_simul_result.fallback with the pair in contact and other; the plastic map
 * (plastic and inelastic laws, and this fallback) then solves its complementarity problem,
 * whose cosine matrix is only semi-definite, by the Lawson-Hanson active set of the
 * non-negative least squares min |v- + sum x_i u_i / sqrt(G_ii)|_M, x >= 0 (the same
 * projection of v- onto the feasible cone). A normal in the span of the others once each
 * opposing pair counts as one is still dependent, and so is a contact that opposes two others
 * which are not duplicates within col_tol (the three normals are dependent).
 *
 * Failures, each with its own status, detail status and a one-line message naming the
 * contacts (by nh_simul_opts.names when given, else by index): linearly dependent normals
 * (two duplicate contacts, c_ij ~ +1, or a normal in the span of the others:
 * NH_ERR_DEPENDENT_CONTACTS), two opposing contacts with opposing_plastic = 0 or
 * paper_plastic (NH_ERR_OPPOSING_CONTACTS), a reflection sequence past its bound (NH_ERR_PAST_BOUND),
 * with paper_plastic a projection that needs a pulling impulse (NH_ERR_PULLING_IMPULSE), a
 * plastic active set that does not settle (NH_ERR_NO_CONVERGENCE: round-off only); and a gap
 * gradient in the span of the constraint one-forms (G_ii ~ 0), a velocity that violates
 * A v = 0 when projection is off. The first two are the model's (its contacts cannot act
 * together: bad input), the next three the computation's. */

typedef enum nh_simul_law {
  NH_SIMUL_ELASTIC = 0,
  NH_SIMUL_PLASTIC = 1,
  NH_SIMUL_INELASTIC = 2 /* coefficient R in nh_simul_opts.restitution */
} nh_simul_law;

typedef enum nh_simul_policy {
  NH_SIMUL_MOST_INFEASIBLE = 0, /* argmin of the normalised rate, ties to the lowest index */
  NH_SIMUL_LEAST_INFEASIBLE = 1, /* argmax among the infeasible, ties to the highest index */
  NH_SIMUL_INDEX = 2,            /* the lowest infeasible index */
  NH_SIMUL_ENUMERATE = 3         /* every order: all distinct outcomes */
} nh_simul_policy;

/* The detail of a resolution (nh_simul_result.status); the function's return value is the
 * library status given in brackets. */
typedef enum nh_simul_status {
  NH_SIMUL_RESOLVED = 0,         /* [NH_OK] v+ feasible for every contact */
  NH_SIMUL_NO_IMPACT = 1,        /* [NH_NO_IMPACT] v- already feasible: v+ = v- */
  NH_SIMUL_DEGENERATE = 2,       /* [NH_DEGENERATE_IMPACT] a gradient in span A: v+ = v- */
  NH_SIMUL_OPPOSING = 3,         /* [NH_ERR_OPPOSING_CONTACTS] two contacts with c ~ -1 */
  NH_SIMUL_DEPENDENT = 4,        /* [NH_ERR_DEPENDENT_CONTACTS] duplicate or dependent normals */
  NH_SIMUL_PAST_BOUND = 5,       /* [NH_ERR_PAST_BOUND] more reflections than the bound */
  NH_SIMUL_NEGATIVE_IMPULSE = 6, /* [NH_ERR_PULLING_IMPULSE] eq. (11) pulls (paper_plastic) */
  NH_SIMUL_TOO_MANY_OUTCOMES = 7,/* [NH_ERR_NO_CONVERGENCE] enumerate's capacity exceeded
                                    (truncate_outcomes = 0) */
  NH_SIMUL_BAD_INPUT = 8,        /* [NH_ERR_ARG, NH_ERR_NOT_SPD, NH_ERR_CONSTRAINT] */
  NH_SIMUL_NO_CONVERGENCE = 9    /* [NH_ERR_NO_CONVERGENCE] the plastic active set passed its
                                    pivot cap or lost definiteness (round-off) */
} nh_simul_status;

/* Why an impact was resolved by the plastic map instead of its law (nh_simul_result.fallback,
 * nh_impact_record.fallback); nh_simul_fallback_name gives a short name. */
typedef enum nh_simul_fallback {
  NH_SIMUL_FALLBACK_NONE = 0,
  NH_SIMUL_FALLBACK_OPPOSING = 1,   /* the elastic propagation would reflect across one of two
                                       opposing contacts (it would cycle for ever) */
  NH_SIMUL_FALLBACK_CONSTRAINED_PLASTIC = 2 /* the driver: a gap's plastic (Clark & Bloch) law,
                                               which has no simultaneous counterpart with
                                               velocity constraints */
} nh_simul_fallback;

/* "none", "opposing-contacts", "constrained-plastic-law" ("?" for another value) */
NH_API const char *nh_simul_fallback_name(int fallback);

/* The contacts at the impact configuration (matrices evaluated at q*). */
typedef struct nh_simul_problem {
  int nq;           /* coordinates, >= 1 */
  int nc;           /* velocity constraints (rows of A), >= 0 */
  int k;            /* active contacts, >= 1 */
  const double *M;  /* (nq x nq) SPD mass matrix */
  const double *A;  /* (nc x nq) constraint one-forms, full row rank; NULL when nc = 0 */
  const double *dg; /* (k x nq) gap gradients as rows */
} nh_simul_problem;

/* Options and tolerances (every field named; nh_simul_opts_default gives the values). */
typedef struct nh_simul_opts {
  nh_simul_law law;       /* default elastic */
  nh_simul_policy policy; /* default most-infeasible */
  double restitution;     /* R in [0, 1] for the inelastic law, default 1 */
  int paper_alpha;        /* 1: the paper's alpha = sqrt(1 - R^2) (wrong; comparison only) */
  int paper_plastic;      /* 1: the plastic part is the paper's eq. (11) alone, a pulling
                             impulse reported (NH_SIMUL_NEGATIVE_IMPULSE); 0 (default): the
                             complementarity solution (Lambda >= 0, at rest or separating) */
  double feas_tol;        /* infeasible when s_i / sqrt(G_ii) < -feas_tol |v|_M, default 1e-12 */
  double col_tol;         /* |c_ij| >= 1 - col_tol: opposing or duplicate, default 1e-9 */
  double dep_tol;         /* Gram pivot <= dep_tol * max diag: dependent, default 1e-10 */
  double degenerate_tol;  /* G_ii <= degenerate_tol |dg_i|^2_{M^-1}: degenerate, 1e-12 */
  double constraint_tol;  /* as nh_impact_tol.constraint_tol, default 1e-9 */
  int project;            /* 1: project a violating v- onto ker A (default); 0: reject */
  double outcome_tol;     /* enumerate: outcomes within outcome_tol |v-|_M are one, 1e-9 */
  double unique_tol;      /* verdict: |c| <= unique_tol is orthogonal etc., default 1e-9 */
  int max_reflections;    /* cap of a sequence (contacts without a theorem), default 10000 */
  int max_outcomes;       /* enumerate: distinct outcomes kept, default 64 (1 to 1e6) */
  long max_branches;      /* enumerate: leaves visited, default 65536 */
  int truncate_outcomes;  /* enumerate past max_outcomes or max_branches: 0 (default) fails
                             with NH_SIMUL_TOO_MANY_OUTCOMES; 1 keeps the outcomes found
                             (outcome 0, the most-infeasible branch, always among them) and
                             sets nh_simul_result.truncated */
  int opposing_plastic;   /* opposing contacts: 1 (default) resolved, an elastic propagation
                             that would reflect across one of them falling back to the plastic
                             map (nh_simul_result.fallback); 0 refused (NH_SIMUL_OPPOSING) */
  int dense_reference;    /* 1: dense linear algebra throughout, every product with a zero of M
                             or of a gradient formed: the reference that the default 0, which
                             skips them (docs/simultaneous-impacts.md, "Cost"), reproduces bit
                             for bit; for checks and benchmarks */
  const char *const *names; /* (k) the contacts' names in messages; NULL (default): indices */
} nh_simul_opts;

/* The outcome. Pointers point into the caller's workspace and are valid until it is used
 * again. For enumerate, v_out, seq and impulse are those of outcome 0, which is the
 * most-infeasible policy's outcome (the depth-first search takes the choices at each step in
 * that policy's order: most infeasible first, ties to the lower index). */
typedef struct nh_simul_result {
  int status;                 /* nh_simul_status */
  int contact;                /* the contact a failure names (-1: none): one of an opposing
                                 or duplicate pair, a normal in the span of the contacts
                                 before it, the most pulling plastic impulse */
  int other;                  /* the second contact of an opposing or duplicate pair (-1) */
  int reflections;            /* length of seq */
  int bound;                  /* the reflection bound used */
  int projected;              /* 1 when v- was projected onto ker A first */
  const int *seq;             /* (reflections) contact indices, in order */
  const double *impulse;      /* (k) Lambda_i */
  const double *mu;           /* (nc) constraint impulses (projection included) */
  double energy_before;       /* 1/2 v-^T M v- (after projection) */
  double energy_after;        /* 1/2 v+^T M v+ */
  double plastic_loss;        /* E_p, the plastic map's energy loss (0 when it is not used) */
  double alpha;               /* the weight of the elastic outcome (1 elastic, 0 plastic) */
  int plastic_pivots;         /* changes of the plastic map's active set (0: eq. (11) held) */
  int fallback;               /* nh_simul_fallback: NH_SIMUL_FALLBACK_OPPOSING when the
                                 elastic propagation would have reflected across contact
                                 `contact` of the opposing pair (contact, other), and the plastic
                                 map resolved the impact (alpha 0; msg holds a note) */
  /* enumerate */
  int outcomes;               /* distinct outcomes */
  long branches;              /* complete sequences visited */
  int truncated;              /* 1: the search stopped at max_outcomes or max_branches
                                 (truncate_outcomes): the outcomes found so far */
  double xi;                  /* indeterminacy (0 for one outcome) */
  const double *outcome_v;    /* (outcomes x nq) */
  const double *outcome_impulse; /* (outcomes x k) */
  const int *outcome_seq;     /* the outcomes' sequences one after another: outcome j's is
                                 outcome_seq + outcome_start[j], outcome_len[j] long */
  const int *outcome_start;   /* (outcomes) */
  const int *outcome_len;     /* (outcomes) */
} nh_simul_result;

NH_API nh_simul_opts nh_simul_opts_default(void);

/* Workspace size in bytes for the problem sizes and options (NULL: defaults); 0 on bad
 * sizes. The work pointer must be aligned for double (as malloc's is). */
NH_API size_t nh_simul_work_size(int nq, int nc, int k, const nh_simul_opts *opts);

/* Resolve a simultaneous impact: v (nq) pre-impact velocity, v_out (nq, may alias v) the
 * outcome, res (not NULL) the details, msg (Nullable, msg_size bytes) a one-line message on
 * any status other than NH_OK, and the note of a fallback (res->fallback) on NH_OK. Returns the bracketed status of nh_simul_status; on a
 * negative status v_out is v (res->impulse then holds what was computed, for diagnosis). */
NH_API int nh_simul_resolve(const nh_simul_problem *pb, const double *v, const nh_simul_opts *opts,
                            double *v_out, nh_simul_result *res, void *work, char *msg,
                            size_t msg_size);

/* One reflection Gamma of v across contact i, applied whatever the sign of its rate:
 * v_out = v - 2 s_i / G_ii u_i (may alias v); *impulse (Nullable) = -2 s_i / G_ii. v must be
 * admissible (it is not projected). Returns NH_OK, NH_DEGENERATE_IMPACT, NH_ERR_NOT_SPD,
 * NH_ERR_SINGULAR or NH_ERR_ARG. work: nh_simul_work_size(nq, nc, k, NULL) bytes. */
NH_API int nh_simul_reflect(const nh_simul_problem *pb, int i, const double *v, double *v_out,
                            double *impulse, void *work);

/* Existence and uniqueness (spec 003 secs. 2.7-2.8). */

/* The Gram matrix G (k x k, Nullable) and the cosines C (k x k, Nullable) of the contact
 * normals in the constrained metric. Returns NH_OK or the failure of nh_simul_resolve's
 * checks (degenerate, opposing, dependent, bad input) with its message. */
NH_API int nh_simul_cosines(const nh_simul_problem *pb, const nh_simul_opts *opts, double *G,
                            double *C, void *work, char *msg, size_t msg_size);

/* The reflection bound for k contacts with cosines C: 1 for k = 1, k for pairwise
 * orthogonal (|c_ij| <= tol), ceil(pi / gamma) for two contacts (Theorem 1), 0 when no
 * theorem applies (k >= 3, not orthogonal) or |c| >= 1. *observed (Nullable) receives the
 * tighter derived bound ceil(pi / (pi - acos c)) for two contacts (else the same value). */
NH_API int nh_simul_reflection_bound(int k, const double *C, double tol, int *observed);

typedef enum nh_simul_uniqueness {
  NH_SIMUL_UNIQUE_SINGLE = 0,     /* one contact */
  NH_SIMUL_UNIQUE_ORTHOGONAL = 1, /* pairwise g-orthogonal (Lemma 7, Theorem 2) */
  NH_SIMUL_UNIQUE_THIRD = 2,      /* two contacts with c = -1/2 (Theorem 3); not +1/2 */
  NH_SIMUL_UNIQUE_DIHEDRAL = 3,   /* two contacts with c = -cos(pi/m), m >= 4 (derived
                                     extension, not the paper's) */
  NH_SIMUL_INDETERMINATE = 4,     /* no theorem: the outcome may depend on the order */
  NH_SIMUL_OPPOSING_PAIR = 5      /* two opposing contacts (opposing_plastic): an elastic
                                     propagation that reflects across one falls back to the
                                     plastic map */
} nh_simul_uniqueness;

typedef struct nh_simul_verdict {
  nh_simul_uniqueness kind;
  int m;          /* the dihedral order for two contacts (2 orthogonal, 3 third), else 0 */
  double c_min;   /* the most negative off-diagonal cosine (0 for k = 1) */
  double c_max;   /* the largest off-diagonal cosine */
  int bound;      /* nh_simul_reflection_bound */
  int observed;   /* its derived tighter value */
  int outcomes;   /* distinct elastic outcomes from v (enumerate; 0 when v is NULL) */
  double xi;      /* their indeterminacy */
  int fallback;   /* nh_simul_fallback of that enumeration (outcomes 1: the plastic one) */
} nh_simul_verdict;

/* The verdict from the cosines, and, when v is not NULL, the outcomes and xi of an elastic
 * enumeration from v (the options' law and policy are ignored). Returns NH_OK or a failure
 * status as nh_simul_resolve (NH_NO_IMPACT is not a failure here: outcomes 1, xi 0). */
NH_API int nh_simul_verdict_of(const nh_simul_problem *pb, const double *v,
                               const nh_simul_opts *opts, nh_simul_verdict *verdict, void *work,
                               char *msg, size_t msg_size);


/* ==== almost-Poisson models: impacts on gaps of the state (src/impact/impact.c) ========
 *
 * An almost-Poisson model (nholo/model.h: x' = Pi(x) grad H(x)) may have gaps g(x) >= 0 on its
 * state. The gap's rate is g' = dg Pi grad H = -d . grad H with d = Pi(x) dg(x)^T. For a gap of
 * configuration-like variables S (the block Pi_SS is zero) d has no component along S, so the
 * jump  x+ = x- + lambda d  leaves g unchanged and changes only the variables Pi couples to S
 * (the fibre momenta: the jump the Lagrangian maps give on D*). With H quadratic along d and
 * Pi's columns of S independent of what the jump moves,
 *   g'+ = g'- - lambda kappa,  kappa = d^T Hess(H) d  (the constrained cometric D_e),
 * and the law g'+ = -e g'- (elastic: e = 1; restitution e) gives lambda = (1 + e) g'- / kappa,
 * H+ - H- = -(1 - e^2) g'-^2 / (2 kappa). The plastic law of Clark & Bloch needs the
 * unconstrained kinetic metric, which this form does not carry: it is refused (NH_ERR_ARG;
 * restitution 0 stops the rate). info: sig = -g'-, vn_before = g'-, vn_after = g' evaluated at
 * x+, D = kappa, rho = 1, alpha = lambda (the jump's length along d).
 * Returns NH_OK; NH_NO_IMPACT (g'- >= -sig_tol) or NH_DEGENERATE_IMPACT (kappa <=
 * degenerate_tol |d|^2 max|Hess H|, d = 0 included) with x_out = x; NH_ERR_UNSUPPORTED with
 * x_out = x when the jump misses g'+ = -e g'- or the energy change above by more than
 * NH_AP_QUADRATIC_TOL (relative to |g'-|, and to max(|H|, g'-^2 / kappa)): H is not quadratic
 * along d, or the jump moved d; NH_ERR_CALLBACK, NH_ERR_ARG. work: nh_model_impact_ap_work_size
 * doubles (0 without gaps; nh_model_impact_work_size of an ODE-form model is this size). */
#define NH_AP_QUADRATIC_TOL 1e-8
NH_API size_t nh_model_impact_ap_work_size(const nh_model *model);
NH_API int nh_model_impact_ap(const nh_model *model, int gap, const double *x, const nh_impact_law *law,
                              const nh_impact_tol *tol, double *x_out, nh_impact_info *info, double *work);

#ifdef __cplusplus
}
#endif
#endif
