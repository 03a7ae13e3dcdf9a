/* sim_impl.h - the simulation state shared by the files of the driver (sim.c: creation, state,
 * accessors; driver.c: the stepping loop; locate.c: crossings of the gaps; monitors.c: monitor events;
 * the impact pipeline: resolve.c -> apply.c -> log.c, form.c), and the small evaluations they all use. */
#ifndef NH_SIM_IMPL_H
#define NH_SIM_IMPL_H

#include <math.h>

#include "la/la.h"
#include "methods/method_impl.h"
#include "model/dynamics.h"
#include "model/model_impl.h"
#include "nholo/sim.h"

/* the per-step helpers of the driver are inlined into each instance of its loop (an
 * optimised build: there the constant flags of each instance fold its tests away). Without
 * optimisation (the coverage build, -O0) each helper stays one function: its branches are
 * counted once per source line, not once per instance with branches that a constant flag
 * makes untakable (driver.c had 2407 branches that way, 49% taken) */
#if defined(__GNUC__) && defined(__OPTIMIZE__)
#define SIM_INLINE static inline __attribute__((always_inline))
#else
#define SIM_INLINE static inline
#endif


typedef struct impact_entry {
  double t, alpha, Eb, Ea, vnb, vna;
  int gap, status;
  /* a simultaneous impact (simul.c): k contacts, its data at offsets pi, pd of the pools, ni
   * ints and nd doubles (0 for one gap's impact) */
  int k, nseq, law, policy, outcomes, nos, truncated, fallback, fb0, fb1;
  long pi, pd, ni, nd;
  double R, xi;
} impact_entry;

typedef struct nh_sim_simul nh_sim_simul; /* simul.c: the simultaneous-impact workspace */

/* form.c: a model's form as the driver meets it, decided once at creation (nh_sim_form_of):
 * the mechanical x = (q, v), or the almost-Poisson x' = Pi grad H with gaps on the state */
typedef struct nh_sim_form {
  const char *name;
  int metric;              /* the form carries the kinetic metric: constraint rows, simultaneous impacts */
  int whole_state;         /* an impact moves the whole state (the log's before and after are states) */
  const char *energy_what; /* the evaluators behind the energy, for messages */
  /* the velocity part of x shown to observers (NULL: the state is all there is) */
  const double *(*vel)(const nh_sim *s, const double *x);
  /* the rate of gap gi at x (mechanical: s->dg the gradients there; almost-Poisson: evaluated) */
  int (*rate)(nh_sim *s, const double *x, int gi, double *r);
  /* gap gi's law at the current state: s->x moved, s->vtmp what it moved from, the message
   * set on failure; the map's status */
  int (*apply)(nh_sim *s, int gi, nh_impact_info *info);
  /* gap gi still approaching at a rate vn below vn_tol: the rate after taking it away */
  double (*creep)(nh_sim *s, int gi, double vn);
  /* the closed contacts held at x (x0: the free step's start, or NULL); err raised (Nullable) */
  int (*hold)(nh_sim *s, const double *x0, double *x, double *err);
  /* the closed contacts' forces at (t, x), act order (positive: pushing) */
  int (*contact_lambda)(nh_sim *s, double t, const double *x, double *lam);
  /* trial contact k on gap gi: its free normal acceleration away from the wall from its force */
  double (*normal_accel)(const nh_sim *s, int gi, int k, double lambda);
} nh_sim_form;

extern const nh_sim_form nh_sim_form_mechanical, nh_sim_form_poisson;
const nh_sim_form *nh_sim_form_of(const nh_model *m);

typedef struct contact_entry {
  double t, t_limit, ratio, lambda, Eb, Ea;
  int gap, kind, reason;
} contact_entry;

typedef struct event_entry {
  double t, value;
  int monitor, direction, stopped;
} event_entry;

struct nh_sim {
  const nh_model *model;
  const nh_sim_form *form; /* the model's form (form.c) */
  nh_sim_def def;
  int nq, nc, ng, nx, nmon;
  int gd;      /* length of a gap gradient: nq, or nx for the almost-Poisson form (gaps on x) */
  int plain; /* fixed-step method, no gaps, monitors or projection (driver.c) */
  int conserved; /* what the method conserves on this model (nh_conserved; sim.c, sim_conservation) */
  int conserves; /* conserved != NH_CONSERVED_NONE */
  int half;      /* it is the half-step energy (NH_CONSERVED_HALF_STEP_ENERGY) */
  int witness;   /* the model's energy is a first integral between impacts (NH_WITNESS_TOL) */
  int kin;       /* the witness's scale follows the kinetic energy (a mechanical model with a
                    potential: its zero level is arbitrary) */

  double t;
  double *x;   /* (nx) current state (q, v) */
  double h;    /* next step size (adaptive proposal) */
  nh_dyn dyn;
  nh_stepper st;

  /* scratch */
  double *x1, *xe, *xd; /* (nx) step end, event trial, dense sample */
  double *g0, *g1, *gs; /* (ng) gaps at x, at x1, at a partial step */
  double *gp, *gc;      /* (ng) gaps at the previous and current dense sample */
  double *sp, *sc;      /* (ng) their slopes dg.v */
  double *dg;           /* (ng x gd) */
  double *gscale;       /* (ng) each gap's scale G_i at the initial state (nholo/model.h,
                           NH_GAP_DEGEN_REL): a gradient below its rounding vanishes */
  double *fx;           /* (nx) x' at a state (slopes of the almost-Poisson form's gaps) */
  double *M;            /* (nq x nq) */
  double *lam;          /* (nc) */
  double *vtmp;         /* (gd) the velocity (almost-Poisson form: the state) before an impact */
  double *imp_work;     /* nh_model_impact_work_size */
  double *xm;           /* (nx) monitor trial state */
  double *m0, *mp, *mc; /* (nmon) monitors at x, at the previous and current dense sample */
  double *ms;           /* (nmon) monitors at a dense trial point (slopes, graze search) */
  double *msp, *msc;    /* (nmon) their slopes along the dense output at those two samples */
  double last_h; /* length of the method's last computed step (for its dense output) */

  /* output sampling */
  double out_t0;
  long out_k;

  /* impact log */
  long nlog, caplog;
  impact_entry *log;
  double *log_q, *log_vb, *log_va, *log_lam;

  /* event log */
  long nev, capev;
  event_entry *ev;
  double *ev_x;

  nh_sim_stats stats;
  double E_seg;  /* the energy after the start or the last impact */
  double W_acc;  /* the energy the steps made before it: the sum over the earlier segments of
                    (the energy at their end - their E_seg) (the witness, NH_WITNESS_TOL) */
  double W_max;  /* the largest |W_acc + E - E_seg| so far (max_energy_drift = W_max / scale) */
  double C_seg;  /* the half-step energy of the first step after it (C_unset: none yet) */
  int C_unset;
  double last_impact_t;
  int burst;
  long stall; /* consecutive steps without progress in t (NH_STALL_STEPS) */

  /* persistent contacts (contact.c) */
  int contact_ok;         /* the method holds closed contacts (its table: nh_contact_hold) */
  int hold;               /* how, on this model (nh_contact_hold; NH_HOLD_NONE without gaps) */
  int nact;               /* closed gaps, listed in act */
  int *act, *closed;      /* (ng) their indices; (ng) 1 when gap i is closed */
  double *t_imp, *tau_imp; /* (ng) the last impact of each gap and the interval before it */
  double *lamc;           /* (ng) the multiplier of each closed contact (act order) at x */
  double *lamt;           /* (ng) the same at a trial state */
  double *glev;           /* (ng) the level whose crossing is an event: 0, or below a graze that
                             did not close (locate.c: a gap resting on its wall, pressed by
                             nothing, is not re-detected at the rounding of g) */
  double *xc;             /* (nx) contact trial state */
  double *acc;            /* (nq) accelerations (scratch) */
  double *Astk;           /* ((nc+ng) x nq) stacked rows [A; dg_closed] */
  double *Dstk, *Wstk;    /* ((nc+ng) x nq) a projected step's impulse directions, M^-1 of them */
  double *Kc, *Lm;        /* ((nc+ng)^2) its system; (nq x nq) the Cholesky factor of M */
  double *tauc, *bc;      /* (nc+ng) its QR scalars and right-hand side */
  double *cw;             /* (nc+ng) constraint scratch */
  double *proj_work;      /* nh_impact_work_size(nq, nc+ng) */
  nh_sim_simul *simul;    /* simul.c (NULL with fewer than two gaps or simul_tol < 0) */
  /* impacts inside the variational step (vi_impact.c) */
  nh_impact_step impact_step; /* the resolved mode (never AUTO) */
  int vi;                 /* 1: variational (del with gaps): steps split at impacts, grid kept */
  double vi_end;          /* the end t_k + h of the grid step in progress (-inf: none) */
  long ncl, capcl;
  contact_entry *cl;
  double *cl_x;
  char msg[256];
  char method_reason[320]; /* why the automatic method, "" when given */
  void *mem;
};

/* the one-line message of the last failure (printf format) */
void nh_sim_msg(nh_sim *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#define sim_msg nh_sim_msg

/* ---- evaluations on the sim's scratch ------------------------------------------------- */

/* the velocity part of x shown to observers (NULL for the ODE form) */
static inline const double *vel(const nh_sim *s, const double *x) {
  return s->form->vel(s, x);
}

/* The model's evaluators at a state the run has reached (energy, residual, gaps, monitors):
 * a failure, or a positive return (infeasible: a smaller step may succeed, nholo/model.h),
 * cannot be stepped around there; it is NH_ERR_CALLBACK, with a message naming the evaluator
 * and the time (of the step in progress: the state may be inside it). A caller that knows
 * more says so after. */
static inline int state_eval_failed(nh_sim *s, int rc, const char *what) {
  nh_sim_msg(s, "the %s evaluator failed near t = %.17g (%s)", what, s->t,
             rc < 0 ? "a failure returned" : "a positive return: infeasible state");
  return NH_ERR_CALLBACK;
}

/* energy and constraint residual at x, in the sim's scratch (s->M and s->dyn.A keep M(q), A(q)) */
static inline int energy(nh_sim *s, double t, const double *x, double *E) {
  const nh_model *m = s->model;
  int rc;
  if (s->form->whole_state) { /* almost-Poisson: H(x), or the model's energy */
    *E = 0.0;
    if (m->hamiltonian) rc = m->hamiltonian(x, E, NULL, m->user);
    else rc = m->energy ? m->energy(t, x, E, m->user) : 0;
  } else {
    rc = nh_model_energy_clean_ws(m, x, x + s->nq, s->M, E); /* s->M: zeroed, then only M(q) */
  }
  return rc ? state_eval_failed(s, rc, s->form->energy_what) : 0;
}

/* the energy E at x and, for the witness's scale (s->kin), its kinetic part T (else T = E) */
SIM_INLINE int energy_kin(nh_sim *s, double t, const double *x, double *E, double *T) {
  if (!s->kin) {
    int rc = energy(s, t, x, E);
    *T = *E;
    return rc;
  }
  const nh_model *m = s->model;
  int rc = nh_model_energy_clean_kin_ws(m, x, x + s->nq, s->M, E, T);
  return rc ? state_eval_failed(s, rc, "mass or potential") : 0;
}

/* A new segment of the energy statistics at an event that moved the state (an impact, a
 * contact closing, a replaced state), Ea the energy after it: the energy the steps made up to
 * here (the last energy recorded, s->stats.energy, less the segment's reference) is kept for
 * the witness, and the jump itself, the event's doing, is not counted */
static inline void new_segment(nh_sim *s, double Ea) {
  s->W_acc += s->stats.energy - s->E_seg;
  s->E_seg = Ea;
  s->C_seg = Ea, s->C_unset = s->half;
  s->stats.energy = Ea;
}

static inline int residual(nh_sim *s, const double *x, double *res) {
  int rc = nh_model_residual_clean_ws(s->model, x, x + s->nq, s->dyn.A, res); /* zeroed, then only A(q) */
  return rc ? state_eval_failed(s, rc, "constraint") : 0;
}

/* rel max(1, |q|) |d|: what a gap with gradient d resolves at q, in units of g, times rel
 * (n: the gradient's length; the configuration is q's first n entries) */
static inline double gap_rounding(double rel, int n, const double *q, const double *d) {
  double qmax = 1.0;
  for (int j = 0; j < n; j++) qmax = fmax(qmax, fabs(q[j]));
  return rel * qmax * sqrt(nh_la_dot(n, d, d));
}

static inline int gaps(nh_sim *s, const double *x, double *g, double *dg) {
  if (s->ng == 0) return 0;
  int rc = s->model->gap(x, g, dg, s->model->user);
  return rc ? state_eval_failed(s, rc, "gap") : 0;
}

static inline int monitors(nh_sim *s, double t, const double *x, double *m) {
  if (s->nmon == 0) return 0;
  int rc = s->model->monitor(t, x, m, s->model->user);
  return rc ? state_eval_failed(s, rc, "monitor") : 0;
}

SIM_INLINE int all_finite(int n, const double *x) { return nh_la_all_finite(n, x); }

/* ---- state ------------------------------------------------------------------------------ */

/* sim.c: the state replaced by x at the current time with the run's history kept (statistics,
 * logs, closed contacts, the gaps' impact times, the method's step proposal), for a caller
 * that changes only a part of the state that no gap, monitor or closed contact sees
 * (src/analysis/lyapunov.c: the tangent part of its augmented model, mapped at an impact or
 * renormalised; nh_sim_set_state_x would reopen every contact and forget the impacts). The
 * method restarts from x; the energy there starts a new segment of the statistics. */
int nh_sim_replace_x(nh_sim *s, const double *x);

/* contact.c: project x onto the closed contacts (q along dg, v onto ker [A; dg] in the kinetic
 * metric) */
int nh_sim_contact_project(nh_sim *s, double *x);
/* contact.c: a free step x0 -> x1 onto the closed contacts (NH_HOLD_PROJECT): q1 as above, v1
 * by an impulse along M^-1 of the mean contact gradient over the step (second order); err
 * (an adaptive step's error, or NULL): raised to the projection's own (almost-Poisson) */
int nh_sim_contact_project_step(nh_sim *s, const double *x0, double *x1, double *err);

/* a step of the method from x0 (the state at s->t); remembers its length for dense output */
SIM_INLINE int method_step_from(nh_sim *s, const double *x0, double h, double *x1, double *err) {
  s->last_h = h;
  s->st.end_x = NULL;
  s->st.end_EA = 0;
  int rc = s->def.method->step(&s->st, s->t, x0, h, x1, err);
  // a method that steps the free model: its step projected onto the closed contacts
  // (docs/contact.md, NH_HOLD_PROJECT), so that every partial step is one of the held flow
  // (an almost-Poisson model: every method; contact.c)
  if (rc == 0 && s->nact > 0 && s->hold == NH_HOLD_PROJECT &&
      all_finite(s->nx, x1)) {
    s->st.end_x = NULL;
    if ((rc = nh_sim_contact_project_step(s, x0, x1, err)) > 0) rc = NH_ERR_CALLBACK;
  }
  return rc;
}
/* a step from the current state s->x: the partial steps of event location and of a contact's
 * opening, and the redone full step (the driver's own step goes through step_retry); a
 * failure, or a step the model refused (positive: its callers make it NH_ERR_EVENT, a partial
 * step has no shorter one), says where, since its caller returns the status as it is */
static inline int method_step(nh_sim *s, double h, double *x1, double *err) {
  int rc = method_step_from(s, s->x, h, x1, err);
  if (rc)
    nh_sim_msg(s, "a partial step of %g s from t = %.17g (locating an event) failed: %s", h, s->t,
               rc < 0 ? nh_status_string(rc) : "the model refused a state on it (a positive return)");
  return rc;
}
/* dense output over the last step x -> x1 (a failure says where, as method_step's; positive:
 * its callers make it NH_ERR_EVENT) */
static inline int method_dense(nh_sim *s, double theta, const double *x1, double *x) {
  int rc = s->def.method->dense(&s->st, s->t, s->x, s->last_h, x1, theta, x);
  if (rc)
    nh_sim_msg(s, "the dense output of the step of %g s from t = %.17g failed at theta = %g: %s", s->last_h, s->t,
               theta, rc < 0 ? nh_status_string(rc) : "the model refused a state on it (a positive return)");
  return rc;
}

/* locate.c: the first gap crossing inside the step just taken (x -> s->x1 over h): *gi (-1 if
 * none) and its located time *tau, the state left in s->xe */
int nh_sim_detect(nh_sim *s, double h, int *gi, double *tau);
/* monitors.c: the first counted monitor crossing inside the step x -> xnew over h: *mi (-1 if
 * none), its direction *dir, the time just past it *tau, that state in s->xm */
int nh_sim_scan_monitors(nh_sim *s, double h, double *xnew, int *mi, int *dir, double *tau);
/* locate.c: the cubic Hermite interpolant of a gap over one sample interval, from its values
 * g0, g1 >= 0 and its slopes times the interval m0, m1: the fraction u in (0, 1) of its lowest
 * interior minimum when that is below zero, else -1. It matches the gap to O(interval^4), so
 * a dip it shows is looked at on the dense output even where the sampled slopes do not turn
 * (a gap that turns three times between two samples; docs/contact.md "Grazes") */
double nh_sim_hermite_dip(double g0, double g1, double m0, double m1);
/* locate.c: gap gi grazed its wall at the current state (s->g1, s->dg there) without an impact
 * or a contact: its crossings count from below its rounding there (s->glev) */
void nh_sim_graze_level(nh_sim *s, int gi);
/* monitors.c: log monitor mi's event at the current state */
int nh_sim_log_event(nh_sim *s, int mi, int dir, int stopped);
/* resolve.c, either form: NH_ERR_DEGENERATE_GAP (and the message) when gap gi's gradient at the
 * current state (s->dg) vanishes (nholo/model.h, NH_GAP_DEGEN_REL), else 0 */
int nh_sim_impact_degenerate(nh_sim *s, int gi);
/* resolve.c: apply gap gi's impact law at the current state and log it (s->dg holds the gap
 * gradients there) */
int nh_sim_impact(nh_sim *s, int gi, nh_observer_fn obs, void *user, int *applied);
/* simul.c: the workspace of simultaneous impacts, made at creation and freed with the sim */
int nh_sim_simul_create(nh_sim *s, char *msg, size_t msg_size);
void nh_sim_simul_destroy(nh_sim *s);
/* collect.c: the contacts that join gap gi's impact at the current state (s->g1 the gaps, s->dg
 * their gradients there); their number (1: gi alone, resolved by nh_sim_impact as before) */
int nh_sim_simul_collect(nh_sim *s, int gi);
/* simul.c: resolve the contacts collected (at least two) together and log the impact; *applied
 * as nh_sim_impact */
int nh_sim_simul_impact(nh_sim *s, int k, nh_observer_fn obs, void *user, int *applied);
/* simul.c: the simultaneous part of record k of the impact log (zeros for a single impact) */
void nh_sim_simul_record(const nh_sim *s, long k, nh_impact_record *r);
/* form.c: the almost-Poisson form's held contacts (docs/contact.md) */
/* g''_i along the free flow at x (central difference of the rate; s->dg left at x) */
int nh_sim_ap_gap_accel(nh_sim *s, const double *x, int gi, double *acc);
/* the rate g'_i at x (s->dg left at x) */
int nh_sim_ap_rate(nh_sim *s, const double *x, int gi, double *rate);
/* the e = 0 jump of the closed contacts at x (x0: the step's start for the mean directions,
 * or NULL): every closed gap's rate 0 after it; err (or NULL) raised to the jump's error */
int nh_sim_ap_hold(nh_sim *s, const double *x0, double *x, double *err);
/* the closed contacts' forces at x (act order): -g''_free for one, positive pressing */
int nh_sim_ap_contact_lambda(nh_sim *s, const double *x, double *lam);
/* form.c: a form without the kinetic metric refuses another gap closing at this instant */
int nh_sim_simul_refuse(nh_sim *s, int gi);
/* contact.c: gaps at x and x onto the closed ones (s->gs, s->dg at x after) */
int nh_sim_contact_project_q(nh_sim *s, double *x);
/* contact.c, mechanical form: the closed contacts held by the kinetic metric (form's hold) */
int nh_sim_contact_hold_rows(nh_sim *s, const double *x0, double *x1, double *err);
/* log.c: room in the impact log for one more record */
int nh_sim_log_reserve(nh_sim *s);
/* log.c: log an impact at the current state (s->vtmp the velocity before) */
void nh_sim_log_impact(nh_sim *s, int gi, int st, double alpha, double Eb, double Ea, double vnb, double vna);
/* apply.c: the Zeno guard after an impact (NH_ZENO on a burst) */
int nh_sim_zeno_guard(nh_sim *s);
/* resolve.c, mechanical form: gap gi reached still approaching at a rate below vn_tol (an
 * impact the law would not see): the plastic map takes that rate away, else it creeps through
 * its wall, located and grazed at every step (an inelastic cradle collapsing into a cluster:
 * 7775 located grazes in 0.25 s); returns the rate after (s->dg at the current state); contacts
 * off (nh_sim_def.contact = 0): nothing */
double nh_sim_stop_creep(nh_sim *s, int gi, double vn);
/* resolve.c, either form: gap gi reached at rate vn >= -vn_tol, a graze (the contact closes
 * if at rest and pushed, else the gap rests at its level) */
int nh_sim_impact_graze(nh_sim *s, int gi, double vn);
/* apply.c, either form: after gap gi's impact law (status st >= 0, info, energy before Eb)
 * moved s->x (v its velocity part, NULL in first-order form): logged, observed, the contact
 * closed when at rest or accumulating, the Zeno guard */
int nh_sim_impact_done(nh_sim *s, int gi, int st, const nh_impact_info *info, double Eb, const double *v,
                       nh_observer_fn obs, void *user, int *applied);

/* vi_impact.c: impacts inside the variational step (spec 003 sec. 3) */
/* resolve nh_sim_def.impact_step for the method (NH_ERR_ARG and a message when it cannot be) */
int nh_sim_vi_setup(nh_sim *s, char *msg, size_t msg_size);
/* the step to take from s->t given the method's step h: the rest of the grid step in progress
 * after a split (an impact, a contact opening, a monitor), else a new grid step of length h */
double nh_sim_vi_step(nh_sim *s, double h);
/* 1 when an impact of gap gi at s->t comes less than h after its last one (chattering: the
 * impact is resolved by the plastic map and the contact becomes persistent) */
int nh_sim_vi_chatters(const nh_sim *s, int gi);

/* locate.c: Illinois regula falsi on f_i(step(x, tau)) (see there); for the monitors and contact.c */
typedef int (*nh_sim_partial_fn)(nh_sim *s, int i, double tau, double *val);
int nh_sim_locate_fn(nh_sim *s, nh_sim_partial_fn f, const char *name, int i, double sgn, int strict,
                     double lo, double glo, double hi, double ghi, double *tau_lo, double *tau_hi);
/* locate.c: a quantity i along the dense output of the last step (x -> x1 over h) at the
 * fraction th, and the graze search for the minimum of sgn f_i over [a, b] (see there) */
typedef int (*nh_sim_dense_fn)(nh_sim *s, int i, double th, const double *x1, double h, double *val);
int nh_sim_dense_min(nh_sim *s, nh_sim_dense_fn f, int i, double sgn, int strict, const double *x1, double h, double a,
                     double b, double *th_min, double *v_min);

/* contact.c: persistent contacts (docs/contact.md) */
/* how the method holds contacts on this model (nh_contact_hold: rows, projection, or none) */
int nh_sim_contact_method_ok(const nh_method *m, const nh_model *model, const nh_method_opts *opts);
/* try to close gap gi at the current state (reason NH_CONTACT_*; Eb the energy before the
 * impact it resolves); *closed = 1 when it closed. An accumulation that cannot be held
 * (method) returns NH_ZENO; the velocity before is left in s->vtmp. vn_check >= 0: close only
 * if a bounce at that normal speed would rise less than NH_CONTACT_APEX_REL (the gap's
 * resolution) above the wall. */
int nh_sim_contact_close(nh_sim *s, int gi, int reason, double Eb, double t_limit, double ratio, double vn_check,
                         int *closed);
/* after an impact of gap gi that moved its normal velocity vnb -> vna (Eb the energy before):
 * its interval recorded, then it closes if it pushes and is at rest (|vna| <= REST_REL |vnb|
 * + vn_tol), or its bounce would rise less than the gap resolves (an interval within
 * NH_CONTACT_ZENO_REL max(1, |t|)) or, chattering (interval ratio in [NH_CONTACT_SLOW_RATIO, 1);
 * not del's variational step, which has its own rule), less than the method resolves */
int nh_sim_contact_after_bounce(nh_sim *s, int gi, double Eb, double vnb, double vna);
/* a closed contact gi that an impact sent away at rate vna (Eb the energy before) closes again
 * when its bounce would rise less than the method resolves (the chatter rule's apex test,
 * pressed by its force): a point in a narrow V-shaped corner otherwise traded its two
 * contacts at every impact, 4e-7 s apart, for ever; logged as a closing (NH_CONTACT_CHATTER) */
int nh_sim_contact_reclose(nh_sim *s, int gi, double Eb, double vna);
/* the accumulation test at an impact of gap gi: 1 (and the limit time, ratio) when its
 * impacts accumulate */
int nh_sim_contact_accumulates(nh_sim *s, int gi, double *t_limit, double *ratio);
/* the first closed contact whose force would pull inside the step x -> xnew over h: *ri (-1
 * if none, else its index in act) and the time just past the zero *tau, the state in s->xc */
int nh_sim_contact_scan(nh_sim *s, double h, const double *xnew, int *ri, double *tau);
/* open the contact act[ri] at the current state (s->lamt[ri] its force), logged */
int nh_sim_contact_open(nh_sim *s, int ri, int reason);
/* after an impact on another gap: open the closed contacts it sends away, project onto the rest */
int nh_sim_contact_after_impact(nh_sim *s);

#endif
