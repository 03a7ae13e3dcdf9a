/* nholo/sim.h - a simulation: the mutable state of one run of a model, and the hybrid driver.
 *
 * The driver alternates a method's steps with event location on every gap function:
 *
 *   step (t, x) -> (t + h, x1); if some gap g_i went from >= 0 to < 0 inside the step
 *   (checked at the step end and at interior dense-output samples), find the crossing
 *   time to event_tol by root finding on partial steps of the method itself (so the
 *   located state is a genuine step result, not an interpolant); if the contact is
 *   approaching (dg_i v < -vn_tol) apply the gap's impact law, log it, and continue.
 *   Other gaps touching then (|g| <= simul_tol) and closing or at rest join it: two or more
 *   are one simultaneous impact, resolved by nh_simul_resolve (nholo/impact.h) and logged
 *   as one record (docs/simultaneous-impacts.md).
 *
 * Two levels: nh_sim_step advances one accepted step or to one impact; nh_sim_run drives to
 * a final time or a number of impacts and reports samples to an observer. Nothing is
 * allocated inside a step; the impact log grows (amortised) between steps, up to
 * nh_sim_def.log_limit records. */
#ifndef NHOLO_SIM_H
#define NHOLO_SIM_H

#include <signal.h> /* sig_atomic_t (nh_sim_def.cancel) */

#include "nholo/impact.h"
#include "nholo/method.h"
#include "nholo/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where an impact sits in the time stepping (nh_sim_def.impact_step):
 *   RESTART      the step is cut at the located impact, the law applied to the velocity and the
 *                method restarted from there with its step h (every method);
 *   VARIATIONAL  del only (spec 003 sec. 3): the step [t_k, t_k + h] is split at the impact
 *                time tau, the discrete Lagrangian over [t_k, tau] and [tau, t_k + h] with the
 *                configuration at tau on the gap surface, the law applied to the discrete
 *                momentum there (paper eq. 30); the nodes stay on the grid t_k + h, several
 *                impacts can split one step, and a contact whose impacts come less than h
 *                apart (chattering) is resolved by the plastic map and becomes persistent;
 *   AUTO         VARIATIONAL for del, RESTART for every other method (the default). */
typedef enum nh_impact_step {
  NH_IMPACT_STEP_AUTO = 0,
  NH_IMPACT_STEP_RESTART = 1,
  NH_IMPACT_STEP_VARIATIONAL = 2
} nh_impact_step;

/* Options of a simulation. Start from nh_sim_def_default(). */
typedef struct nh_sim_def {
  const nh_method *method; /* default NULL: automatic, nh_sim_choose_method (from the model, its
                              impact laws, horizon and rtol); nh_sim_method tells which and
                              nh_sim_method_reason why */
  double h;           /* fixed step (fixed-step methods) or first trial step (adaptive; 0 = automatic,
                         from |x| and |F| at the initial state); default 1e-3 s */
  double h_max;       /* largest step, 0 = no limit (the exact method steps straight to the next event) */
  double h_min;       /* smallest adaptive step before NH_ERR_STEP_UNDERFLOW, default 1e-14 s */
  double rtol, atol;  /* adaptive tolerances, default 1e-10 and 1e-12 */
  long max_steps;     /* per call of nh_sim_run, 0 = unlimited; default 0 */
  double out_dt;      /* observer sampling interval on dense output; 0 = every step; default 0 */
  int event_samples;  /* interior dense-output samples per step to catch double crossings, default 4 */
  double event_tol;   /* impact time tolerance, relative to max(1, |t|), default 1e-13 */
  double vn_tol;      /* grazing threshold on -dg v: slower contacts are not impacts, default 1e-12 */
  nh_impact_tol impact_tol;
  double zeno_interval; /* impacts closer than this (s) count as a burst, default 1e-9; the
                           interval counted is at least NH_ZENO_T_REL |t| and NH_ZENO_H_REL h */
  int zeno_count;       /* a burst of this many consecutive impacts stops with NH_ZENO, default 100 */
  int contact;          /* 1 (default): an accumulation of impacts, or a contact at rest pressed
                           into its wall, closes the contact (persistent contact, below); 0: never */
  double constraint_tol; /* initial state: max |A v| allowed (absolute), default 1e-9 */
  int project_initial;   /* 1: project an initial velocity that violates the constraints */
  nh_method_opts opts;   /* options of the structure-preserving methods (nholo/method.h) */
  long log_limit;        /* records kept in each of the impact and event logs: the first
                            log_limit - 1 and the latest (which overwrites the last slot);
                            0 = no limit (default). The counts in nh_sim_stats stay exact. */
  double simul_tol;      /* simultaneous impacts: at a located impact every other open gap with
                            |g| <= simul_tol whose rate dg v <= vn_tol (closing or at rest)
                            joins it, and two or more are resolved together by nh_simul_resolve
                            (docs/simultaneous-impacts.md); default 1e-9; < 0: one gap at a time */
  int simul_order;       /* its policy (nh_simul_policy), default NH_SIMUL_MOST_INFEASIBLE;
                            NH_SIMUL_ENUMERATE logs every outcome and xi and follows outcome
                            0, the most-infeasible order's */
  int simul_max_outcomes; /* NH_SIMUL_ENUMERATE: distinct outcomes kept per impact, default
                            64 (1 to 1e6); past it the record keeps those found
                            (outcomes_truncated, nh_sim_stats.simul_truncated) and the run
                            goes on with outcome 0 */
  int impact_step;       /* how an impact sits in a fixed-step variational method's step
                            (nh_impact_step): default NH_IMPACT_STEP_AUTO, variational for del
                            (docs/simultaneous-impacts.md, "Impacts inside the variational step") */
  double horizon;        /* the run's length (s), for the automatic method: default 0 (not
                            given: a short run) */
  /* Nullable (default): a flag the caller sets to stop the run (a signal handler, another
   * thread): read before every step of a run with events or an observer and every
   * NH_CANCEL_STEPS steps of a plain one; when nonzero nh_sim_run returns NH_INTERRUPTED,
   * the state, statistics and logs those of the last step taken. Never written. */
  const volatile sig_atomic_t *cancel;
  int internal_cookie;   /* set by nh_sim_def_default; do not touch */
} nh_sim_def;

NH_API nh_sim_def nh_sim_def_default(void);

/* The automatic method for a run of model with def (def->method is not read): exact with a
 * closed-form flow; gni (symmetric) for a long run (horizon >= 1000) of a conservative model
 * with constraints, V = 0 and a constant M; dop853 for rtol < 1e-10; else dopri5. The reason
 * goes into why (one line, Nullable). docs/integrators.md, "Which method for which job". */
NH_API const nh_method *nh_sim_choose_method(const nh_model *model, const nh_sim_def *def, char *why, size_t size);

typedef struct nh_sim nh_sim;

/* Create a simulation of `model` (which must outlive it), at the model's initial state at
 * t = 0. NULL on failure, with a reason in msg (at most msg_size bytes, Nullable). */
NH_API nh_sim *nh_sim_create(const nh_model *model, const nh_sim_def *def, char *msg,
                             size_t msg_size);
NH_API void nh_sim_destroy(nh_sim *sim);

/* Set the state of a mechanical model (for an ODE-form model q is the whole state x and v is
 * ignored, as in nh_sim_set_state_x). Fails with NH_ERR_CONSTRAINT when |A v| > constraint_tol (unless
 * project_initial, which projects and returns NH_PROJECTED), NH_ERR_NONFINITE, a gap below
 * -NH_GAP_START_REL max(1, |q|) |dg| (NH_ERR_ARG: the state must be admissible; a state on a
 * wall to its rounding is, touching it: at rest or approaching, as after a located crossing),
 * or a gap zero there with a vanishing gradient (NH_ERR_DEGENERATE_GAP; nholo/model.h), or an
 * evaluator failing there (NH_ERR_CALLBACK, named in nh_sim_message). Resets statistics and the
 * impact log. A refused state is not taken: the simulation keeps its time, state, statistics
 * and logs. */
NH_API int nh_sim_set_state(nh_sim *sim, double t, const double *q, const double *v);

/* Set the first-order state x (nx = model->nx: (q, v) for a mechanical model) at time t; the
 * same checks as nh_sim_set_state. */
NH_API int nh_sim_set_state_x(nh_sim *sim, double t, const double *x);

NH_API double nh_sim_time(const nh_sim *sim);
NH_API const double *nh_sim_x(const nh_sim *sim); /* (nx) the first-order state, borrowed */
NH_API const double *nh_sim_q(const nh_sim *sim); /* (nq), borrowed */
NH_API const double *nh_sim_v(const nh_sim *sim); /* (nq), borrowed; NULL for the ODE form */
NH_API const nh_model *nh_sim_model(const nh_sim *sim);
NH_API const nh_method *nh_sim_method(const nh_sim *sim);
/* the method's flags (NH_METHOD_*) as they apply to this run, its options and model: gni,
 * rattle and shake in their symmetric variant conserve the nodal energy, not the half-step one */
NH_API unsigned nh_sim_method_flags(const nh_sim *sim);
/* why the automatic method was chosen (nh_sim_def.method NULL), or "" when the method was given */
NH_API const char *nh_sim_method_reason(const nh_sim *sim);
/* the impact stepping of this simulation (nh_sim_def.impact_step with AUTO resolved) */
NH_API nh_impact_step nh_sim_impact_step(const nh_sim *sim);
/* The detail of the last failure (one line), or "" */
NH_API const char *nh_sim_message(const nh_sim *sim);

/* Advance by one accepted step, not past t_max, stopping at the first impact (which is
 * applied). *impacted (Nullable) is set to 1 when the step ended with an impact. */
NH_API int nh_sim_step(nh_sim *sim, double t_max, int *impacted);

/* What an observer is shown. */
typedef enum nh_sample_kind {
  NH_SAMPLE_START = 0,   /* the initial state */
  NH_SAMPLE_STEP = 1,    /* end of an accepted step (out_dt = 0) */
  NH_SAMPLE_OUTPUT = 2,  /* a dense-output sample at a multiple of out_dt */
  NH_SAMPLE_IMPACT_BEFORE = 3,
  NH_SAMPLE_IMPACT_AFTER = 4,
  NH_SAMPLE_END = 5,     /* the final state */
  NH_SAMPLE_EVENT = 6    /* the state at a located monitor event */
} nh_sample_kind;

/* Called with each sample; return 0 to go on, nonzero to stop the run (NH_STOPPED). For an
 * ODE-form model q is the whole state x (nx) and v is NULL. */
typedef int (*nh_observer_fn)(const nh_sim *sim, nh_sample_kind kind, double t, const double *q,
                              const double *v, void *user);

/* Run until t_end or until max_impacts impacts (0: no limit), whichever comes first.
 * Returns NH_OK, NH_ZENO, NH_STALL, NH_STOPPED, NH_EVENT_STOP, NH_DRIFT, NH_INTERRUPTED (the
 * caller's nh_sim_def.cancel was set) or a negative status; the state,
 * statistics and impact log hold everything computed up to the stop. A negative status comes
 * with nh_sim_message naming the evaluator or operation that failed and the time; the state
 * left is one the run reached (an accepted step, a located event; its configuration, the
 * velocity possibly that of an impact law the failure interrupted), the impact and event logs
 * hold the records the observer was shown. NH_DRIFT: a run that reached its end whose energy
 * left its bound (nh_sim_stats.drift says which fired):
 *   NH_DRIFT_CONSERVED  a method that conserves a quantity on this model (conserved_quantity)
 *                       let it, or the nodal energy, move further than NH_DRIFT_TOL from its
 *                       value after the start or the last impact (in its regime the nodal
 *                       energy of such a method stays within O(h^2) of the conserved quantity;
 *                       gni's parasitic period-2 mode keeps the half-step energy while the
 *                       nodal energy goes astray);
 *   NH_DRIFT_WITNESS    any method on a model whose energy is a first integral
 *                       (energy_witness): the energy its steps made, max_energy_drift, left
 *                       NH_WITNESS_TOL (the energy as a witness of the run, below);
 *   NH_DRIFT_OVERFLOW   either, with an energy that is not finite (velocities whose squares
 *                       overflow double precision).
 * The state, statistics and logs are those of the completed run. */
NH_API int nh_sim_run(nh_sim *sim, double t_end, long max_impacts, nh_observer_fn observer,
                      void *user);

/* Counters and invariant monitors, over everything since the last nh_sim_set_state. */
typedef struct nh_sim_stats {
  long steps;          /* accepted steps */
  long rejected;       /* rejected adaptive steps */
  long evals;          /* right-hand-side (or flow) evaluations */
  long impacts;        /* impacts applied */
  long grazing;        /* crossings ignored as grazing (|dg v| <= vn_tol) */
  long events_located; /* root findings performed */
  long simul_fallbacks; /* simultaneous impacts resolved by the plastic map instead of their
                           law (nh_impact_record.fallback) */
  long simul_truncated; /* enumerations stopped at simul_max_outcomes (or the branch cap) */
  double energy_initial;
  double energy;                /* at the current state */
  double max_energy_rel_error;  /* max |E - E_seg| / |E_seg| where E_seg = energy after the last impact */
  double max_constraint_residual; /* max |A v| at step ends */
  double max_event_gap;         /* max |g| at located impacts, and the largest depth -g of an
                                   open gap at any accepted step or impact */
  /* implicit methods (rdp, del, gni with a configuration-dependent M): Newton iterations over
   * every nonlinear solve, of accepted and rejected steps and of the partial steps of event
   * location alike (a step may solve twice: gni's midpoint start), so that
   * solver_iterations / solver_solves <= solver_max_iterations */
  long solver_iterations;       /* total */
  long solver_solves;           /* solves, total (>= steps for a method that solves every step) */
  int solver_max_iterations;    /* most in one solve */
  int solver_last_iterations;   /* in the last solve (read it from an observer for per-step values) */
  double solver_last_residual;  /* final residual of the last solve */
  double solver_max_residual;   /* largest final residual of a solve */
  /* The method's conserved quantity C: gni and shake (NH_METHOD_HALF_STEP) the half-step
   * energy 1/2 v_k+1/2 . p_k+1/2 of each step, v_k+1/2 = (q_k+1 - q_k)/h and p_k+1/2 the
   * method's momentum of the step (M v_k+1/2 for a constant M); other methods the nodal
   * energy. */
  double conserved_initial;       /* C after the start (of the first step for the half-step energy) */
  double conserved;               /* C of the last step */
  double max_conserved_rel_error; /* max |C - C_seg| / |C_seg|, C_seg its first value after the last impact */
  int conserves;                  /* 1: the method conserves a quantity on this model (conserved_quantity
                                     is not NH_CONSERVED_NONE): judged against NH_DRIFT_TOL */
  int conserved_quantity;         /* nh_conserved: what the method conserves on this model (the
                                     half-step energy, the energy, or nothing; conserved* above
                                     mirror the nodal energy when nothing) */
  /* The energy as a witness (NH_WITNESS_TOL): on a model whose energy is a first integral, the
   * energy the method's steps made, D = E - E_0 less the jumps of the impact laws and contact
   * closings (which conserve it, or dissipate it by design), over the energy scale S. */
  int energy_witness;             /* 1: the model's energy is a first integral between impacts and
                                     the run is judged (NH_WITNESS_TOL) */
  double energy_scale;            /* S = max(|E_0|, the largest kinetic energy of the run) for a
                                     mechanical model with a potential (its zero level is arbitrary),
                                     |E_0| without one (E is kinetic) and |H_0| for an almost-Poisson
                                     model; 0 when not judged */
  double max_energy_drift;        /* max |D| / S over the run (0 when not judged) */
  int drift;                      /* nh_drift: the bound that ended the run with NH_DRIFT, else
                                     NH_DRIFT_NONE */
} nh_sim_stats;

/* What a method conserves on a model (nh_sim_stats.conserved_quantity; one decision for the
 * driver and the summary, src/sim/sim.c). The nodal energy is then the conserved quantity
 * C itself (ENERGY), or the half-step energy 1/2 v_k+1/2 . p_k+1/2 of each step is
 * (HALF_STEP_ENERGY, gni and shake for V = 0 and a constant M). */
typedef enum nh_conserved {
  NH_CONSERVED_NONE = 0,
  NH_CONSERVED_ENERGY = 1,
  NH_CONSERVED_HALF_STEP_ENERGY = 2
} nh_conserved;
/* "none", "energy", "half-step energy" */
NH_API const char *nh_conserved_name(int conserved);

/* The bound that ended a run with NH_DRIFT (nh_sim_stats.drift). */
typedef enum nh_drift {
  NH_DRIFT_NONE = 0,
  NH_DRIFT_CONSERVED = 1, /* the conserved quantity or the nodal energy beyond NH_DRIFT_TOL */
  NH_DRIFT_WITNESS = 2,   /* the energy the steps made beyond NH_WITNESS_TOL */
  NH_DRIFT_OVERFLOW = 3   /* an energy (or conserved quantity) that is not finite */
} nh_drift;
/* "none", "conserved", "witness", "overflow" */
NH_API const char *nh_drift_name(int drift);

/* The Zeno guard's interval is max(zeno_interval, NH_ZENO_T_REL |t|, NH_ZENO_H_REL h) (h the
 * nominal step): impacts closer than a few thousand rounding units of t always count. A run
 * whose time does not advance by more than NH_STALL_REL max(1, |t|) in NH_STALL_STEPS
 * consecutive steps ends with NH_STALL (state, statistics and logs kept). */
#define NH_ZENO_T_REL 1e-12
#define NH_ZENO_H_REL 1e-9
#define NH_STALL_REL 1e-14
#define NH_STALL_STEPS 1000
/* A plain run (a fixed-step method on a model without gaps, monitors or projection, and no
 * observer) reads nh_sim_def.cancel every this many steps (microseconds apart) */
#define NH_CANCEL_STEPS 1024

/* The last line of defence against a missed crossing: after every accepted step and every
 * impact each open gap satisfies g >= -NH_PENETRATION_REL max(1, |q|) |dg| (relative to what
 * the gap resolves, far above the rounding a projection or an opened contact leaves). A step
 * that violates it is taken again, a quarter as long, up to NH_PENETRATION_RETRY times and
 * not below h_min; past that (or after an impact, or with the closed-form flow) the run ends
 * with NH_ERR_PENETRATION, the gap and the time named, the state and outputs kept. */
#define NH_PENETRATION_REL 1e-9
#define NH_PENETRATION_RETRY 8

/* A run of a method that conserves energy on its model (nh_sim_stats.conserves) whose
 * conserved quantity or nodal energy drifts by more than this, relative, ends with NH_DRIFT. */
#define NH_DRIFT_TOL 1e-2

/* The energy as a witness, for every method: a run of a model whose energy is a first integral
 * of its flow between impacts (nh_sim_stats.energy_witness: a mechanical model without forces or
 * controls, or an almost-Poisson model) whose steps made more energy than this, relative to the
 * energy scale (max_energy_drift > NH_WITNESS_TOL), ends with NH_DRIFT: it completed, but its
 * trajectory is not one of the model. The jumps of the impact laws and of contact closings are
 * not the steps' doing and are left out (an elastic law keeps the energy; a plastic one, or a
 * restitution, takes what it takes), so that a model with any impact law is judged. A generic
 * ODE-form model (x' = F(t, x)) is not: its energy is a monitor, not known to be conserved.
 * Generous: the correct runs of every method in the test suite, the examples and the paper's
 * figures stay below 0.07 (docs/integrators.md, "Drift monitor"). */
#define NH_WITNESS_TOL 0.2

NH_API const nh_sim_stats *nh_sim_get_stats(const nh_sim *sim);

/* One logged impact; arrays are borrowed from the simulation (valid until it changes). */
typedef struct nh_impact_record {
  double t;
  int gap;        /* index of the gap (surface) */
  int status;     /* status of the impact map (NH_OK, NH_NOT_REVERSED, ...) */
  double alpha;   /* wall multiplier (paper convention, nholo/impact.h) */
  double energy_before, energy_after;
  double vn_before, vn_after; /* dg v before and after */
  const double *q;        /* (nq); NULL for an almost-Poisson model (gaps on its state) */
  const double *v_before; /* (nq); almost-Poisson: the state x before the impact (nx) */
  const double *v_after;  /* (nq); almost-Poisson: the state x after it (nx) */
  const double *lambda;   /* (nc) */
  /* A simultaneous impact (contacts >= 2; 0 and NULL for one gap's impact): gap, alpha,
   * vn_before and vn_after above are those of its first contact (alpha = -impulse[0]); status
   * is nh_simul_resolve's. */
  int contacts;                 /* k, the contacts resolved together */
  const int *contact_gap;       /* (k) their gaps, increasing */
  const double *impulse;        /* (k) Lambda_i >= 0 (nh_simul_resolve's convention) */
  const double *contact_vn_before, *contact_vn_after; /* (k) dg_i v */
  int reflections;              /* the elastic propagation's length (0 for the plastic law) */
  const int *sequence;          /* (reflections) the gaps reflected across, in order */
  int law;                      /* nh_simul_law applied (plastic after a fallback) */
  double restitution;           /* its coefficient R (1 elastic, 0 plastic) */
  int policy;                   /* nh_simul_policy */
  int outcomes;                 /* NH_SIMUL_ENUMERATE: distinct outcomes (outcome 0, the
                                   most-infeasible order's, followed); else 0 */
  double xi;                    /* NH_SIMUL_ENUMERATE: their indeterminacy */
  int outcomes_truncated;       /* 1: the enumeration stopped at simul_max_outcomes (or its
                                   branch cap): the outcomes found until then */
  const double *outcome_v;      /* (outcomes x nq) each outcome's velocity after the impact */
  const double *outcome_impulse; /* (outcomes x contacts) its impulses Lambda_i */
  const int *outcome_start;     /* (outcomes) where its sequence starts in outcome_seq */
  const int *outcome_len;       /* (outcomes) its length */
  const int *outcome_seq;       /* the sequences, gaps reflected across in order */
  int fallback;                 /* nh_simul_fallback: why the plastic map resolved the impact
                                   instead of its law (0: it did not) */
  int fallback_gap[2];          /* the gaps the fallback names (-1: none): the opposing pair, or
                                   the gap whose plastic law has no simultaneous counterpart */
} nh_impact_record;

/* One logged monitor event (nholo/model.h: monitors). Monitors are scanned like gaps: at the
 * dense-output samples and the end of each accepted step a sign change of m_j in the
 * monitor's direction (falling: m > 0 to m <= 0; rising: m < 0 to m >= 0; a monitor that
 * starts at exactly 0 has no sign yet) is confirmed on partial steps and located by the same
 * regula falsi to event_tol; the step is cut there, on the far side of the crossing, and
 * the event logged. A monitor's STOP action then ends the run with NH_EVENT_STOP; running
 * on from there does not report the same crossing again. The scan goes on from the event's
 * state with the monitor taken as past zero in the crossing's direction, so a crossing back
 * (a monitor counted both ways crossed in and out within one step) is the next event. */
typedef struct nh_event_record {
  double t;
  int monitor;      /* index into model->monitors */
  int direction;    /* +1 rising, -1 falling */
  int stopped;      /* 1 when the monitor's action stopped the run here */
  double value;     /* m_j at the kept state (of order the location tolerance) */
  const double *x;  /* (nx) the state at the event, borrowed */
} nh_event_record;

NH_API long nh_sim_event_count(const nh_sim *sim);
/* The k-th event (0-based); NH_ERR_ARG when out of range. */
NH_API int nh_sim_event_get(const nh_sim *sim, long k, nh_event_record *rec);

/* ---- persistent contacts (docs/contact.md) ---------------------------------------------------
 * A gap closes (its contact persists) when its impacts accumulate (a Zeno sequence: the
 * intervals tau_k between its impacts shrink, r = tau_k / tau_k-1 < 1, and the remaining time
 * of the geometric series tau_k r / (1 - r) is at most NH_CONTACT_ZENO_REL max(1, |t|), or,
 * for a fixed-step method, tau_k <= h; or tau_k <= NH_CONTACT_TINY_REL max(1, |t|)), or when
 * it is reached at rest (an impact leaving |dg v| <= NH_CONTACT_REST_REL |dg v-| + vn_tol, or
 * a bounce that would rise less than NH_CONTACT_APEX_REL max(1, |q|) |dg| above the wall,
 * below what the gap resolves, or a graze with |dg v| <= vn_tol), or when it chatters (its
 * intervals shrink slowly, NH_CONTACT_SLOW_RATIO <= r < 1, and the bounce an impact leaves would
 * rise less than the method resolves: |dg_j (atol + rtol |q_j|)| for an adaptive method,
 * the flight of one step |a_n| h^2 / 8 for a fixed-step one), provided the contact then
 * pushes (multiplier > 0). Closing
 * projects v onto ker [A; dg] (the plastic map over the active set: the accumulation's
 * energy is dissipated at once; an accumulation is logged as an impact with status
 * NH_CONTACT). While closed, g_i(q) = 0 is a holonomic constraint of the dynamics (each kept
 * step is projected back onto it) and its multiplier, the normal force, is watched: where it
 * would pull (crosses zero, located like an event) the contact opens and free flight resumes.
 * Every method that goes through impacts holds contacts: rk4, rk2, dopri5, dop853, gni,
 * rattle and shake as a row of their own equations; del as a position constraint of its step
 * with a multiplier (the constrained DEL; on a nonholonomic model, as the next); rdp, the
 * discrete gradients, the DLA methods and spark by the driver's projection of each free step.
 * The closed-form flow (exact)
 * cannot: it ends an accumulation with NH_ZENO and a message saying why (docs/contact.md). */
#define NH_CONTACT_ZENO_REL 1e-6
#define NH_CONTACT_TINY_REL 1e-12
#define NH_CONTACT_REST_REL 1e-9
#define NH_CONTACT_APEX_REL 1.4210854715202004e-14 /* 64 DBL_EPSILON */
#define NH_CONTACT_PROJ_TOL 8.8817841970012523e-16 /* 4 DBL_EPSILON: a held gap's rounding */
#define NH_CONTACT_PROJ_ITER 6 /* Gauss-Newton steps onto the held gaps, at most */
#define NH_CONTACT_SLOW_RATIO 0.9 /* chatter: the Zeno remainder is at least 9 intervals away */

typedef enum nh_contact_kind { NH_CONTACT_CLOSE = 1, NH_CONTACT_OPEN = 2 } nh_contact_kind;
typedef enum nh_contact_reason {
  NH_CONTACT_ACCUMULATION = 1, /* close: a Zeno sequence of impacts, resolved plastically */
  NH_CONTACT_REST = 2,         /* close: reached with no normal velocity, pressed into the wall */
  NH_CONTACT_TENSION = 3,      /* open: the contact force would pull */
  NH_CONTACT_SEPARATION = 4,   /* open: an impact on another gap sent it away */
  NH_CONTACT_CHATTER = 5       /* close: slow chatter, bouncing below what the method resolves */
} nh_contact_reason;

/* One contact event; x is borrowed from the simulation (valid until it changes). */
typedef struct nh_contact_record {
  double t;
  int gap;            /* index of the gap */
  int kind;           /* nh_contact_kind */
  int reason;         /* nh_contact_reason */
  double t_limit;     /* an accumulation: its extrapolated limit t + tau r / (1 - r); else t */
  double ratio;       /* an accumulation or chatter: the measured interval ratio r; else 0 */
  double lambda;      /* the contact multiplier (normal force) here: > 0 closing, <= 0 opening */
  double energy_before, energy_after; /* across the closing (the energy the accumulation dissipated) */
  const double *x;    /* (nx) the state after the event */
} nh_contact_record;

/* "close" / "open"; "accumulation", "rest", "tension", "separation" */
NH_API const char *nh_contact_kind_name(int kind);
NH_API const char *nh_contact_reason_name(int reason);
NH_API long nh_sim_contact_count(const nh_sim *sim);
/* The k-th contact event (0-based); NH_ERR_ARG when out of range. */
NH_API int nh_sim_contact_get(const nh_sim *sim, long k, nh_contact_record *rec);
/* 1 when gap i is closed now */
NH_API int nh_sim_contact_closed(const nh_sim *sim, int gap);

NH_API long nh_sim_impact_count(const nh_sim *sim);
/* The k-th impact (0-based); NH_ERR_ARG when out of range. */
NH_API int nh_sim_impact_get(const nh_sim *sim, long k, nh_impact_record *rec);

/* ---- bounds of a run (src/sim/bounds.c) ------------------------------------------------------
 * What the front ends (the command line, the Python binding, the ensembles) refuse before a
 * run starts, so that a mistyped horizon, step or sample interval is an error and not a run
 * that never ends while its memory grows. nh_sim_run itself takes any t_end >= t (an infinite
 * one with an impact limit is a valid C call). */

/* A fixed-step run (neither adaptive nor exact) of more steps than this ((t_end - t) / h) is
 * refused: at ~100 ns a step it would take hours (a larger h, a shorter run or an adaptive
 * method). A positive max_steps below it bounds the run instead. */
#define NH_MAX_STEPS 1e11
/* A run that hands the observer more samples than this is refused: (t_end - t) / out_dt with
 * out_dt > 0, or a fixed-step run's steps (one sample each) with out_dt = 0 (an adaptive or
 * exact run's steps are not known before it; they are not bounded). The command line's
 * trajectory CSV and the binding's recorded arrays (1e8 rows of (q, v) are gigabytes). */
#define NH_MAX_SAMPLES 1e8

/* Check a run of `method` (NULL: not known yet, the step bounds are left out) with def from
 * t0 to t_end, an observer shown every sample when `observed`: t_end finite and not before t0,
 * the steps within NH_MAX_STEPS (max_steps counted) and, observed, the samples within
 * NH_MAX_SAMPLES. NH_OK, or NH_ERR_ARG with a message naming t_end, h and out_dt and the
 * smallest value that passes. */
NH_API int nh_sim_check_span(const nh_method *method, const nh_sim_def *def, double t0, double t_end,
                             int observed, char *msg, size_t msg_size);
/* The same for the next nh_sim_run of sim (from its time, with its method and definition). */
NH_API int nh_sim_check_run(const nh_sim *sim, double t_end, int observed, char *msg, size_t msg_size);

/* ---- breakpoints and chains of phases (src/sim/phases.c) ------------------------------------
 * Two drivers over nh_sim_run for runs that are more than one call of it.
 *
 * Breakpoints are times the run must land on exactly (a kink or jump of a forcing, a
 * switch of a schedule), like SUNDIALS' tstop: the run is cut into segments ending at each
 * breakpoint inside (t, t_end), so that no step straddles one. Breakpoints may come in any
 * order; those outside (t, t_end) and NaNs are ignored. max_steps (nh_sim_def) counts per
 * segment. */
NH_API int nh_sim_run_breaks(nh_sim *sim, double t_end, long max_impacts, const double *breaks,
                             int nbreaks, nh_observer_fn observer, void *user);

/* A reset map, called when phase `from` (its simulation `sim`) stopped on a stop event
 * (NH_EVENT_STOP: the last event record of sim says which). On entry *to is the next phase
 * (from + 1, or from itself for the last phase), *t the stop time and x (room for the largest
 * nx of the chain) the stopped state (sim's nx entries). Set *to, and x (and *t, not beyond
 * t_end) to the state the phase *to starts from: the chain then calls nh_sim_set_state_x on it
 * (which resets that simulation's statistics, impact and event logs). Returns 0 to go on in
 * phase *to, positive to end the run at the stop (NH_EVENT_STOP), negative for a failure
 * (returned by nh_chain_run). */
typedef int (*nh_reset_fn)(int from, const nh_sim *sim, int *to, double *t, double *x, void *user);

/* A chain of phases: simulations of possibly different models and methods, run one after
 * the other, each from where the reset map puts it. */
typedef struct nh_chain {
  nh_sim *const *phases; /* (nphases) the phases' simulations */
  int nphases;
  const double *breaks;  /* (nbreaks) Nullable: breakpoints of every phase, as nh_sim_run_breaks */
  int nbreaks;
  long max_impacts;      /* impacts per phase (since its start) that end the run, 0 = no limit */
  long max_switches;     /* phase switches after which a stop event ends the run, 0 = no limit */
  nh_reset_fn reset;     /* Nullable: without one a stop event ends the run */
  void *reset_user;
} nh_chain;

/* Run the chain from phase `first` (at its current state) to t_end: each phase runs with
 * nh_sim_run_breaks; when it stops on a stop event the reset map picks the next phase and its
 * state. The run ends at t_end, at a stop the reset map makes final, or on any other status.
 * The observer (Nullable) sees one START (the first phase's), every phase's samples, the
 * START of each later phase (its state after the reset: nh_sim_model(sim) tells the phase)
 * and one END (the final state; none when the observer stopped the run): the segments' and
 * the switched phases' own START/END are dropped. Returns the final phase's status (NH_OK at
 * t_end, NH_EVENT_STOP, NH_ZENO, NH_STOPPED, a failure, NH_ERR_ARG for a bad chain or reset)
 * and sets *last (Nullable) to the phase that ended the run. Allocates one state vector. */
NH_API int nh_chain_run(const nh_chain *chain, int first, double t_end, nh_observer_fn observer,
                        void *user, int *last);

#ifdef __cplusplus
}
#endif
#endif
