/* sim.c - the simulation state and the hybrid driver.
 *
 * One call of advance():
 *   1. step      x0 -> x1 over h with the method (adaptive: retry until err <= 1)
 *   2. detect    gaps at dense-output samples theta_j = j/(ns+1) and at x1: the first sample
 *                interval where some g_i goes from >= 0 to < 0 brackets a crossing
 *                (exact method with a predictor: the model predicts the event before the
 *                step, and the step goes straight to it)
 *   3. locate    regula falsi (Illinois) on phi(tau) = g_i(step(x0, tau)), i.e. on genuine
 *                partial steps of the method, to |tau_hi - tau_lo| <= event_tol max(1,|t|);
 *                the state kept is the admissible end (g_i >= 0)
 *   4. output    dense samples at multiples of out_dt inside the accepted step
 *   5. impact    if dg_i v < -vn_tol: the gap's impact law (nholo/impact.h), logged with
 *                energies and multipliers; a burst of zeno_count impacts each closer than
 *                zeno_interval stops the run with NH_ZENO
 * Monitors (either form) are scanned after step 3 on the step kept so far: a sign change in
 * the monitor's direction is confirmed and located the same way (partial steps, regula
 * falsi), the step is cut just past it and the event logged (or the run stopped). ODE-form
 * models (x' = F(t, x)) have no gaps; their projection, if any, is applied to the state
 * kept by each accepted step.
 * Everything a step needs is carved from one block allocated at creation. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "la/la.h"
#include "methods/method_impl.h"
#include "model/dynamics.h"
#include "model/model_impl.h"
#include "base/msg.h"
#include "nholo/sim.h"

#define NH_SIM_DEF_COOKIE 0x6e687364 /* "nhsd" */
#define NH_EVENT_MAX_ITER 200        /* regula falsi iterations before NH_ERR_EVENT */
#define NH_STEP_MAX_RETRY 60         /* adaptive rejections of one step before underflow */
#define NH_GRAZE_ITER 40
/* a state this close outside a wall is on it (an impact state logged by another model, a
 * state restored from a file): nh_sim_set_state accepts it */
#define NH_SIM_GAP_TOL 1e-12             /* golden-section iterations when looking for a graze */

/* the per-step helpers shared by advance() and advance_plain() are inlined into both */
#if defined(__GNUC__)
#define SIM_INLINE static inline __attribute__((always_inline))
#else
#define SIM_INLINE static inline
#endif

typedef struct impact_entry {
  double t, alpha, Eb, Ea, vnb, vna;
  int gap, status;
} impact_entry;

typedef struct event_entry {
  double t, value;
  int monitor, direction, stopped;
} event_entry;

struct nh_sim {
  const nh_model *model;
  nh_sim_def def;
  int nq, nc, ng, nx, nmon;
  int plain; /* fixed-step method, no gaps, monitors or projection: advance_plain */

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
  double *dg;           /* (ng x nq) */
  double *M;            /* (nq x nq) */
  double *lam;          /* (nc) */
  double *vtmp;         /* (nq) */
  double *imp_work;     /* nh_model_impact_work_size */
  double *xm;           /* (nx) monitor trial state */
  double *m0, *mp, *mc; /* (nmon) monitors at x, at the previous and current dense sample */
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
  double E_seg;
  double last_impact_t;
  int burst;
  char msg[256];
  void *mem;
};

static void sim_msg(nh_sim *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->msg, sizeof s->msg, fmt, ap);
  va_end(ap);
}

nh_sim_def nh_sim_def_default(void) {
  nh_sim_def d;
  memset(&d, 0, sizeof d);
  d.method = NULL; /* the model's default, nh_method_default_for */
  d.h = 1e-3;
  d.h_max = 0.0;
  d.h_min = 1e-14;
  d.rtol = 1e-10;
  d.atol = 1e-12;
  d.max_steps = 0;
  d.out_dt = 0.0;
  d.event_samples = 4;
  d.event_tol = 1e-13;
  d.vn_tol = 1e-12;
  d.impact_tol = nh_impact_tol_default();
  d.zeno_interval = 1e-9;
  d.zeno_count = 100;
  d.constraint_tol = 1e-9;
  d.project_initial = 0;
  d.opts = nh_method_opts_default();
  d.internal_cookie = NH_SIM_DEF_COOKIE;
  return d;
}

static int check_sim_def(const nh_sim_def *d, const nh_model *m, char *msg, size_t size) {
  char buf[256];
  buf[0] = 0;
  if (!d || d->internal_cookie != NH_SIM_DEF_COOKIE)
    snprintf(buf, sizeof buf, "simulation definition not initialised with nh_sim_def_default()");
  else if (!d->method)
    snprintf(buf, sizeof buf, "no method given");
  else if (nh_method_supports(d->method, m) != NH_OK)
    return nh_method_check(d->method, m, msg, size), 0; /* what it needs, which methods fit */
  else if (!(d->h > 0.0 || (d->h == 0.0 && (d->method->flags & NH_METHOD_ADAPTIVE))) || !isfinite(d->h))
    snprintf(buf, sizeof buf, "step size h = %g must be positive and finite (0, automatic, only for an adaptive method)", d->h);
  else if (!(d->h_max >= 0.0) || !isfinite(d->h_max))
    snprintf(buf, sizeof buf, "h_max = %g must be >= 0 and finite", d->h_max);
  else if (!(d->h_min > 0.0) || !isfinite(d->h_min))
    snprintf(buf, sizeof buf, "h_min = %g must be positive and finite", d->h_min);
  else if (!(d->rtol > 0.0) || !(d->atol > 0.0) || !isfinite(d->rtol) || !isfinite(d->atol))
    snprintf(buf, sizeof buf, "tolerances rtol = %g, atol = %g must be positive and finite", d->rtol, d->atol);
  else if (!(d->out_dt >= 0.0) || !isfinite(d->out_dt))
    snprintf(buf, sizeof buf, "output interval %g must be >= 0 and finite", d->out_dt);
  else if (d->event_samples < 0 || d->event_samples > 1000)
    snprintf(buf, sizeof buf, "event_samples = %d must be in [0, 1000]", d->event_samples);
  else if (!(d->event_tol > 0.0) || !(d->vn_tol >= 0.0))
    snprintf(buf, sizeof buf, "event_tol must be positive and vn_tol >= 0");
  else if (!(d->zeno_interval >= 0.0) || d->zeno_count < 1)
    snprintf(buf, sizeof buf, "zeno_interval must be >= 0 and zeno_count >= 1");
  else if (!(d->constraint_tol >= 0.0))
    snprintf(buf, sizeof buf, "constraint_tol must be >= 0");
  else if ((int)d->opts.retraction < 0 || (int)d->opts.retraction > 2 || (int)d->opts.start < 0 ||
           (int)d->opts.start > 2 || !(d->opts.alpha >= 0.0 && d->opts.alpha <= 1.0) ||
           !(d->opts.newton_tol > 0.0) || d->opts.newton_max_iter < 1 || d->opts.dexp_order < 0 ||
           d->opts.dexp_order > 2)
    snprintf(buf, sizeof buf, "method options out of range (retraction and start 0..2, alpha in "
                              "[0, 1], dexp_order 0..2, newton_tol > 0, newton_max_iter >= 1)");
  if (buf[0]) {
    nh_set_msg(msg, size, "%s", buf);
    return 0;
  }
  return 1;
}

nh_sim *nh_sim_create(const nh_model *model, const nh_sim_def *def, char *msg, size_t msg_size) {
  nh_set_msg(msg, msg_size, "%s", "");
  if (!model) {
    nh_set_msg(msg, msg_size, "no model given");
    return NULL;
  }
  nh_sim_def d = def ? *def : nh_sim_def_default();
  if (d.internal_cookie == NH_SIM_DEF_COOKIE && !d.method) d.method = nh_method_default_for(model);
  if (!check_sim_def(&d, model, msg, msg_size)) return NULL;

  const size_t nq = (size_t)model->nq, nc = (size_t)model->nc, ng = (size_t)model->ngap;
  const size_t nx = (size_t)model->nx, nmon = (size_t)model->nmon;
  size_t nd = 5 * nx + 7 * ng + ng * nq + nq * nq + nc + nq + 3 * nmon +
              nh_model_impact_work_size(model) + nh_dyn_work_size(model) +
              d.method->work_size(model) + 8;
  nh_sim *s = calloc(1, sizeof *s);
  double *mem = calloc(nd, sizeof(double));
  if (!s || !mem) {
    free(s);
    free(mem);
    nh_set_msg(msg, msg_size, "out of memory");
    return NULL;
  }
  s->model = model;
  s->def = d;
  s->nq = (int)nq;
  s->nc = (int)nc;
  s->ng = (int)ng;
  s->nx = (int)nx;
  s->nmon = (int)nmon;
  s->mem = mem;
  // carve the block
  double *p = mem;
  s->x = p, p += nx;
  s->x1 = p, p += nx;
  s->xe = p, p += nx;
  s->xd = p, p += nx;
  s->g0 = p, p += ng;
  s->g1 = p, p += ng;
  s->gs = p, p += ng;
  s->gp = p, p += ng;
  s->gc = p, p += ng;
  s->sp = p, p += ng;
  s->sc = p, p += ng;
  s->dg = p, p += ng * nq;
  s->M = p, p += nq * nq;
  s->lam = p, p += nc;
  s->vtmp = p, p += nq;
  s->imp_work = p, p += nh_model_impact_work_size(model);
  s->xm = p, p += nx;
  s->m0 = p, p += nmon;
  s->mp = p, p += nmon;
  s->mc = p, p += nmon;
  nh_dyn_init(&s->dyn, model, p);
  p += nh_dyn_work_size(model);
  s->st.model = model;
  s->st.method = d.method;
  s->st.nx = (int)nx;
  s->st.rtol = d.rtol;
  s->st.opts = d.opts;
  s->st.atol = d.atol;
  s->st.work = p;
  s->st.dyn = &s->dyn;
  s->plain = !(d.method->flags & (NH_METHOD_ADAPTIVE | NH_METHOD_EXACT)) && ng == 0 && nmon == 0 && !model->project;

  int rc = nh_sim_set_state_x(s, 0.0, model->x0);
  if (rc < 0) {
    nh_set_msg(msg, msg_size, "%s", s->msg);
    nh_sim_destroy(s);
    return NULL;
  }
  // an initial state of infinite energy (finite but huge values) cannot be simulated
  if (!isfinite(s->stats.energy_initial)) {
    nh_set_msg(msg, msg_size, "the energy at the initial state is not finite (E = %g): an initial value is too large",
               s->stats.energy_initial);
    nh_sim_destroy(s);
    return NULL;
  }
  // h = 0: the automatic first trial step of an adaptive method, kept for later restarts
  if (d.h == 0.0) {
    if (nh_initial_step(&s->dyn, s->nx, d.method->order, 0.0, s->x, d.rtol, d.atol, d.h_max, s->x1,
                        &s->def.h, &s->st.evals)) {
      nh_set_msg(msg, msg_size, "the automatic first step failed: the dynamics are not finite at the initial state");
      nh_sim_destroy(s);
      return NULL;
    }
    s->h = s->def.h;
  }
  return s;
}

void nh_sim_destroy(nh_sim *s) {
  if (!s) return;
  free(s->mem);
  free(s->log);
  free(s->log_q);
  free(s->log_vb);
  free(s->log_va);
  free(s->log_lam);
  free(s->ev);
  free(s->ev_x);
  free(s);
}

double nh_sim_time(const nh_sim *s) { return s->t; }
const double *nh_sim_q(const nh_sim *s) { return s->x; }
const double *nh_sim_v(const nh_sim *s) { return s->model->form == NH_FORM_ODE ? NULL : s->x + s->nq; }
const double *nh_sim_x(const nh_sim *s) { return s->x; }
const nh_model *nh_sim_model(const nh_sim *s) { return s->model; }
const nh_method *nh_sim_method(const nh_sim *s) { return s->def.method; }
const char *nh_sim_message(const nh_sim *s) { return s ? s->msg : ""; }
const nh_sim_stats *nh_sim_get_stats(const nh_sim *s) { return &s->stats; }

/* ---- evaluations on the sim's scratch ------------------------------------------------- */

/* the velocity part of x shown to observers (NULL for the ODE form) */
static const double *vel(const nh_sim *s, const double *x) {
  return s->model->form == NH_FORM_ODE ? NULL : x + s->nq;
}

/* energy and constraint residual at x, in the sim's scratch (s->M and s->dyn.A keep M(q), A(q)) */
static int energy(nh_sim *s, double t, const double *x, double *E) {
  const nh_model *m = s->model;
  if (m->form == NH_FORM_ODE) {
    *E = 0.0;
    if (m->hamiltonian) return nh_cb(m->hamiltonian(x, E, NULL, m->user));
    return m->energy ? nh_cb(m->energy(t, x, E, m->user)) : 0;
  }
  return nh_model_energy_ws(m, x, x + s->nq, s->M, E);
}

static int residual(nh_sim *s, const double *x, double *res) {
  return nh_model_residual_ws(s->model, x, x + s->nq, s->dyn.A, res);
}

static int gaps(nh_sim *s, const double *x, double *g, double *dg) {
  if (s->ng == 0) return 0;
  return nh_cb(s->model->gap(x, g, dg, s->model->user));
}

static int monitors(nh_sim *s, double t, const double *x, double *m) {
  if (s->nmon == 0) return 0;
  return nh_cb(s->model->monitor(t, x, m, s->model->user));
}

SIM_INLINE int all_finite(int n, const double *x) {
  double z = 0.0; /* an infinity or a NaN makes the sum infinite or NaN (z - z is then NaN) */
  NH_LA_UNROLL_FULL
  for (int i = 0; i < n; i++) z += x[i];
  if (z - z == 0.0) return 1;
  for (int i = 0; i < n; i++) /* the sum overflowed, or a component is not finite */
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* ---- state ------------------------------------------------------------------------------ */

int nh_sim_set_state(nh_sim *s, double t, const double *q, const double *v) {
  if (!s) return NH_ERR_ARG;
  if (s->model->form == NH_FORM_ODE) return nh_sim_set_state_x(s, t, q);
  s->msg[0] = 0;
  if (!q || !v) {
    sim_msg(s, "initial state is missing or not finite");
    return NH_ERR_NONFINITE;
  }
  memcpy(s->xe, q, sizeof(double) * (size_t)s->nq);
  memcpy(s->xe + s->nq, v, sizeof(double) * (size_t)s->nq);
  return nh_sim_set_state_x(s, t, s->xe);
}

int nh_sim_set_state_x(nh_sim *s, double t, const double *x) {
  if (!s) return NH_ERR_ARG;
  const nh_model *m = s->model;
  const int nq = s->nq;
  int rc, status = NH_OK;
  s->msg[0] = 0;
  if (!x || !isfinite(t) || !all_finite(s->nx, x)) {
    sim_msg(s, "initial state is missing or not finite");
    return NH_ERR_NONFINITE;
  }
  memmove(s->x, x, sizeof(double) * (size_t)s->nx);
  s->t = t;

  // constraints: reject or project the initial velocity
  double res = 0.0;
  if ((rc = residual(s, s->x, &res))) {
    sim_msg(s, "constraint evaluator failed at the initial state");
    return NH_ERR_CALLBACK;
  }
  if (res > s->def.constraint_tol) {
    if (!s->def.project_initial) {
      sim_msg(s, "initial velocity violates the constraints: max |A v| = %.3e > %.3e", res,
              s->def.constraint_tol);
      return NH_ERR_CONSTRAINT;
    }
    if (nh_cb(m->mass(s->x, s->M, m->user)) ||
        nh_project_velocity(nq, s->nc, s->M, s->dyn.A, s->x + nq, s->x + nq, s->imp_work) != NH_OK) {
      sim_msg(s, "projection of the initial velocity failed");
      return NH_ERR_SINGULAR;
    }
    status = NH_PROJECTED;
  }

  // admissible region
  if (gaps(s, s->x, s->g0, NULL)) {
    sim_msg(s, "gap evaluator failed at the initial state");
    return NH_ERR_CALLBACK;
  }
  for (int i = 0; i < s->ng; i++)
    if (!(s->g0[i] >= -NH_SIM_GAP_TOL)) {
      sim_msg(s, "initial state is outside the admissible region: gap '%s' = %.6g < 0",
              m->gap_names[i], s->g0[i]);
      return NH_ERR_ARG;
    }

  // monitors start from their values here (a monitor at exactly 0 has no sign yet)
  if (monitors(s, t, s->x, s->m0)) {
    sim_msg(s, "monitor evaluator failed at the initial state");
    return NH_ERR_CALLBACK;
  }

  // statistics and logs
  memset(&s->stats, 0, sizeof s->stats);
  if ((rc = energy(s, t, s->x, &s->stats.energy_initial))) {
    sim_msg(s, "energy evaluation failed at the initial state");
    return NH_ERR_CALLBACK;
  }
  s->stats.energy = s->stats.energy_initial;
  s->stats.max_constraint_residual = status == NH_PROJECTED ? 0.0 : res;
  if (status == NH_PROJECTED) residual(s, s->x, &s->stats.max_constraint_residual);
  s->E_seg = s->stats.energy_initial;
  s->st.restart = 1;
  s->st.iters = 0, s->st.max_iters = 0, s->st.last_iters = 0;
  s->st.last_res = 0.0, s->st.max_res = 0.0;
  s->nlog = 0;
  s->nev = 0;
  s->h = s->def.h;
  s->last_impact_t = -INFINITY;
  s->burst = 0;
  s->out_t0 = t;
  s->out_k = 1;
  return status;
}

/* ---- impact log -------------------------------------------------------------------------- */

static int log_reserve(nh_sim *s) {
  if (s->nlog < s->caplog) return 0;
  long cap = s->caplog ? 2 * s->caplog : 64;
  size_t nq = (size_t)s->nq, nc = (size_t)(s->nc > 0 ? s->nc : 1);
  impact_entry *l = realloc(s->log, sizeof *l * (size_t)cap);
  if (l) s->log = l;
  double *a = realloc(s->log_q, sizeof(double) * nq * (size_t)cap);
  if (a) s->log_q = a;
  double *b = realloc(s->log_vb, sizeof(double) * nq * (size_t)cap);
  if (b) s->log_vb = b;
  double *c = realloc(s->log_va, sizeof(double) * nq * (size_t)cap);
  if (c) s->log_va = c;
  double *e = realloc(s->log_lam, sizeof(double) * nc * (size_t)cap);
  if (e) s->log_lam = e;
  if (!l || !a || !b || !c || !e) return NH_ERR_NOMEM;
  s->caplog = cap;
  return 0;
}

static int event_reserve(nh_sim *s) {
  if (s->nev < s->capev) return 0;
  long cap = s->capev ? 2 * s->capev : 16;
  event_entry *e = realloc(s->ev, sizeof *e * (size_t)cap);
  if (e) s->ev = e;
  double *x = realloc(s->ev_x, sizeof(double) * (size_t)s->nx * (size_t)cap);
  if (x) s->ev_x = x;
  if (!e || !x) return NH_ERR_NOMEM;
  s->capev = cap;
  return 0;
}

long nh_sim_event_count(const nh_sim *s) { return s ? s->nev : 0; }

int nh_sim_event_get(const nh_sim *s, long k, nh_event_record *r) {
  if (!s || !r || k < 0 || k >= s->nev) return NH_ERR_ARG;
  const event_entry *e = &s->ev[k];
  r->t = e->t;
  r->monitor = e->monitor;
  r->direction = e->direction;
  r->stopped = e->stopped;
  r->value = e->value;
  r->x = s->ev_x + (size_t)k * (size_t)s->nx;
  return NH_OK;
}

long nh_sim_impact_count(const nh_sim *s) { return s->nlog; }

int nh_sim_impact_get(const nh_sim *s, long k, nh_impact_record *r) {
  if (!s || !r || k < 0 || k >= s->nlog) return NH_ERR_ARG;
  const impact_entry *e = &s->log[k];
  size_t nq = (size_t)s->nq, nc = (size_t)(s->nc > 0 ? s->nc : 1);
  r->t = e->t;
  r->gap = e->gap;
  r->status = e->status;
  r->alpha = e->alpha;
  r->energy_before = e->Eb;
  r->energy_after = e->Ea;
  r->vn_before = e->vnb;
  r->vn_after = e->vna;
  r->q = s->log_q + (size_t)k * nq;
  r->v_before = s->log_vb + (size_t)k * nq;
  r->v_after = s->log_va + (size_t)k * nq;
  r->lambda = s->log_lam + (size_t)k * nc;
  return NH_OK;
}

/* ---- stepping ---------------------------------------------------------------------------- */

/* one method step from the current state; remembers it for dense output */
/* a step of the method from x0 (the state at s->t; s->x but in run_plain) */
SIM_INLINE int method_step_from(nh_sim *s, const double *x0, double h, double *x1, double *err) {
  s->last_h = h;
  s->st.end_x = NULL;
  s->st.end_EA = 0;
  return s->def.method->step(&s->st, s->t, x0, h, x1, err);
}
static int method_step(nh_sim *s, double h, double *x1, double *err) { return method_step_from(s, s->x, h, x1, err); }

static int method_dense(nh_sim *s, double theta, const double *x1, double *x) {
  return s->def.method->dense(&s->st, s->t, s->x, s->last_h, x1, theta, x);
}

/* gap i after a partial step of length tau (state in s->xe) */
static int partial_gap(nh_sim *s, int i, double tau, double *g) {
  int rc = method_step(s, tau, s->xe, NULL);
  if (rc) return rc > 0 ? NH_ERR_EVENT : rc;
  if ((rc = gaps(s, s->xe, s->gs, NULL))) return rc;
  *g = s->gs[i];
  return 0;
}

/* monitor i after a partial step of length tau (state in s->xm) */
static int partial_monitor(nh_sim *s, int i, double tau, double *m) {
  int rc = method_step(s, tau, s->xm, NULL);
  if (rc) return rc > 0 ? NH_ERR_EVENT : rc;
  if ((rc = monitors(s, s->t + tau, s->xm, s->mc))) return rc;
  *m = s->mc[i];
  return 0;
}

typedef int (*partial_fn)(nh_sim *s, int i, double tau, double *val);

/* Illinois regula falsi for phi(tau) = sgn f_i(step(x, tau)) (f a gap or a monitor) on
 * [lo, hi] with phi(lo) >= 0 > phi(hi) (strict: phi(lo) > 0 >= phi(hi)); returns both ends
 * of the final bracket: *tau_lo on the starting side, *tau_hi past the crossing. */
static int locate_fn(nh_sim *s, partial_fn f, const char *name, int i, double sgn, int strict,
                     double lo, double glo, double hi, double ghi, double *tau_lo, double *tau_hi) {
  const double tol = s->def.event_tol * fmax(1.0, fabs(s->t));
  int side = 0, rc;
  s->stats.events_located++;
  for (int it = 0; it < NH_EVENT_MAX_ITER && hi - lo > tol; it++) {
    double mid = (glo * hi - ghi * lo) / (glo - ghi);
    if (!(mid > lo && mid < hi)) mid = 0.5 * (lo + hi);
    double gm;
    if ((rc = f(s, i, mid, &gm))) return rc;
    gm *= sgn;
    if (strict ? gm > 0.0 : gm >= 0.0) {
      lo = mid, glo = gm;
      if (side == 1) ghi *= 0.5;
      side = 1;
    } else {
      hi = mid, ghi = gm;
      if (side == -1) glo *= 0.5;
      side = -1;
    }
  }
  if (hi - lo > tol) {
    sim_msg(s, "event location on '%s' did not converge near t = %.17g", name, s->t + lo);
    return NH_ERR_EVENT;
  }
  *tau_lo = lo;
  *tau_hi = hi;
  return 0;
}

/* the crossing of gap i on [lo, hi] (g(lo) >= 0 > g(hi)); returns the admissible end lo */
static int locate(nh_sim *s, int i, double lo, double glo, double hi, double ghi, double *tau) {
  double tau_hi;
  return locate_fn(s, partial_gap, s->model->gap_names[i], i, 1.0, 0, lo, glo, hi, ghi, tau, &tau_hi);
}

/* gap slopes dg_i . v at the state x (uses s->dg as scratch) */
static int slopes(nh_sim *s, const double *x, double *sl) {
  int rc = gaps(s, x, NULL, s->dg);
  if (rc) return rc;
  for (int i = 0; i < s->ng; i++) sl[i] = nh_la_dot(s->nq, s->dg + (size_t)i * s->nq, x + s->nq);
  return 0;
}

/* minimum of g_i on the dense output over [a, b] (fractions of the last step): golden section
 * to NH_GRAZE_ITER iterations; stops early once the value is negative */
static int dense_gap_min(nh_sim *s, int i, double a, double b, double *th_min, double *g_min) {
  const double r = 0.6180339887498949;
  double c = b - r * (b - a), d = a + r * (b - a), gc, gd;
  int rc;
  if ((rc = method_dense(s, c, s->x1, s->xd)) || (rc = gaps(s, s->xd, s->gs, NULL))) return rc > 0 ? NH_ERR_EVENT : rc;
  gc = s->gs[i];
  if ((rc = method_dense(s, d, s->x1, s->xd)) || (rc = gaps(s, s->xd, s->gs, NULL))) return rc > 0 ? NH_ERR_EVENT : rc;
  gd = s->gs[i];
  for (int it = 0; it < NH_GRAZE_ITER && gc >= 0.0 && gd >= 0.0; it++) {
    if (gc < gd) {
      b = d, d = c, gd = gc, c = b - r * (b - a);
      if ((rc = method_dense(s, c, s->x1, s->xd)) || (rc = gaps(s, s->xd, s->gs, NULL))) return rc > 0 ? NH_ERR_EVENT : rc;
      gc = s->gs[i];
    } else {
      a = c, c = d, gc = gd, d = a + r * (b - a);
      if ((rc = method_dense(s, d, s->x1, s->xd)) || (rc = gaps(s, s->xd, s->gs, NULL))) return rc > 0 ? NH_ERR_EVENT : rc;
      gd = s->gs[i];
    }
  }
  if (gc < gd) *th_min = c, *g_min = gc;
  else *th_min = d, *g_min = gd;
  return 0;
}

/* Find the first crossing inside the step just taken (x -> x1 over h). On return *gi is the
 * crossing gap (-1 if none) and *tau its located time, with the state left in s->xe. */
static int detect(nh_sim *s, double h, int *gi, double *tau) {
  const int ng = s->ng;
  int rc;
  *gi = -1;
  if (ng == 0) return 0;

  // scan dense samples and the step end for the first sign change >= 0 -> < 0, and for
  // grazes: the slope dg.v turning from < 0 to > 0 with g >= 0 at both samples, where the
  // minimum of g on the dense output (golden section) may dip below zero (spec 000 sec. 4.4)
  const int ns = s->def.event_samples;
  double th_prev = 0.0;
  memcpy(s->gp, s->g0, sizeof(double) * (size_t)ng);
  if ((rc = slopes(s, s->x, s->sp))) return rc;
  for (int j = 1; j <= ns + 1; j++) {
    double th = (double)j / (ns + 1);
    const double *xc = s->x1; /* the step end */
    if (j <= ns) {
      if ((rc = method_dense(s, th, s->x1, s->xd))) return rc > 0 ? NH_ERR_EVENT : rc;
      xc = s->xd;
    }
    if ((rc = gaps(s, xc, s->gc, NULL)) || (rc = slopes(s, xc, s->sc))) return rc;
    // earliest crossing gap in (th_prev, th]: the one whose linear root comes first
    int best = -1;
    double best_frac = 2.0, th_hi = th;
    for (int i = 0; i < ng; i++) {
      double a = s->gp[i], b = s->gc[i];
      if (a >= 0.0 && b < 0.0 && a / (a - b) < best_frac) best_frac = a / (a - b), best = i;
    }
    // no crossing: look for a graze inside the interval
    for (int i = 0; best < 0 && i < ng; i++) {
      if (!(s->gp[i] >= 0.0 && s->gc[i] >= 0.0 && s->sp[i] < 0.0 && s->sc[i] > 0.0)) continue;
      double th_min, g_min;
      if ((rc = dense_gap_min(s, i, th_prev, th, &th_min, &g_min))) return rc;
      if (g_min < 0.0) best = i, th_hi = th_min;
    }
    if (best >= 0) {
      // genuine partial steps must confirm the sign change
      double lo = th_prev * h, hi = th_hi * h, glo = s->g0[best], ghi;
      if (lo > 0.0 && (rc = partial_gap(s, best, lo, &glo))) return rc;
      if ((rc = partial_gap(s, best, hi, &ghi))) return rc;
      if (glo >= 0.0 && ghi < 0.0) {
        if ((rc = locate(s, best, lo, glo, hi, ghi, tau))) return rc;
        if ((rc = method_step(s, *tau, s->xe, NULL))) return rc > 0 ? NH_ERR_EVENT : rc;
        *gi = best;
        return 0;
      }
      // the interpolant crossed but the method's steps do not: restore the full step
      s->stats.grazing++;
      if ((rc = method_step(s, h, s->x1, NULL))) return rc > 0 ? NH_ERR_EVENT : rc;
    }
    memcpy(s->gp, s->gc, sizeof(double) * (size_t)ng);
    memcpy(s->sp, s->sc, sizeof(double) * (size_t)ng);
    th_prev = th;
  }
  return 0;
}

/* a sign change of a monitor from a to b that its direction counts (a = 0: no sign yet) */
static int mon_crossing(double a, double b, nh_monitor_dir dir) {
  int fall = a > 0.0 && b <= 0.0, rise = a < 0.0 && b >= 0.0;
  return dir == NH_MONITOR_FALLING ? fall : dir == NH_MONITOR_RISING ? rise : (fall || rise);
}

/* Find the first counted monitor crossing inside the step the method took last (x -> xnew
 * over h). On return *mi is the monitor (-1 if none), *dir its direction (+1 rising, -1
 * falling) and *tau the time just past the
 * crossing, with that state left in s->xm (and the method's last step being x -> s->xm). */
static int scan_monitors(nh_sim *s, double h, double *xnew, int *mi, int *dir, double *tau) {
  const nh_model *m = s->model;
  const int nm = s->nmon, ns = s->def.event_samples;
  int rc;
  *mi = -1;
  if (nm == 0) return 0;
  double th_prev = 0.0;
  memcpy(s->mp, s->m0, sizeof(double) * (size_t)nm);
  for (int j = 1; j <= ns + 1; j++) {
    double th = (double)j / (ns + 1);
    const double *xc = xnew;
    if (j <= ns) {
      if ((rc = method_dense(s, th, xnew, s->xd))) return rc > 0 ? NH_ERR_EVENT : rc;
      xc = s->xd;
    }
    if ((rc = monitors(s, s->t + th * h, xc, s->mc))) return rc;
    // earliest counted crossing in (th_prev, th] by its linear root
    int best = -1;
    double best_frac = 2.0;
    for (int i = 0; i < nm; i++) {
      double a = s->mp[i], b = s->mc[i];
      if (mon_crossing(a, b, m->monitors[i].direction) && a / (a - b) < best_frac)
        best_frac = a / (a - b), best = i;
    }
    double mp_best = best >= 0 ? s->mp[best] : 0.0;
    memcpy(s->mp, s->mc, sizeof(double) * (size_t)nm);
    if (best >= 0) {
      // confirm on genuine partial steps, then locate; phi = sgn m > 0 on the starting side
      const double sgn = mp_best > 0.0 ? 1.0 : -1.0;
      double lo = th_prev * h, hi = th * h, mlo = s->m0[best], mhi, tlo;
      if (lo > 0.0 && (rc = partial_monitor(s, best, lo, &mlo))) return rc;
      if ((rc = partial_monitor(s, best, hi, &mhi))) return rc;
      if (mon_crossing(mlo, mhi, m->monitors[best].direction) && sgn * mlo > 0.0) {
        if ((rc = locate_fn(s, partial_monitor, m->monitors[best].name, best, sgn, 1, lo, sgn * mlo,
                            hi, sgn * mhi, &tlo, tau)))
          return rc;
        if ((rc = method_step(s, *tau, s->xm, NULL))) return rc > 0 ? NH_ERR_EVENT : rc;
        *mi = best;
        *dir = sgn > 0.0 ? -1 : 1;
        return 0;
      }
      // the interpolant crossed but the method's steps do not: restore the step
      if ((rc = method_step(s, h, xnew, NULL))) return rc > 0 ? NH_ERR_EVENT : rc;
    }
    th_prev = th;
  }
  return 0;
}

/* log monitor mi's event at the current state */
static int log_event(nh_sim *s, int mi, int dir, int stopped) {
  if (event_reserve(s)) {
    sim_msg(s, "out of memory for the event log");
    return NH_ERR_NOMEM;
  }
  event_entry *e = &s->ev[s->nev];
  e->t = s->t;
  e->monitor = mi;
  e->value = s->m0[mi];
  e->direction = dir;
  e->stopped = stopped;
  memcpy(s->ev_x + (size_t)s->nev * (size_t)s->nx, s->x, sizeof(double) * (size_t)s->nx);
  s->nev++;
  return 0;
}

/* report dense samples at multiples of out_dt in (t, t + h] of the step x -> x1 */
static int emit_outputs(nh_sim *s, double h, const double *x1, nh_observer_fn obs, void *user) {
  if (!obs || s->def.out_dt <= 0.0) return 0;
  const double dt = s->def.out_dt;
  int rc;
  for (;;) {
    double to = s->out_t0 + (double)s->out_k * dt;
    if (to > s->t + h) break;
    double th = (to - s->t) / h;
    if ((rc = method_dense(s, th, x1, s->xd))) return rc > 0 ? NH_ERR_EVENT : rc;
    s->out_k++;
    if (obs(s, NH_SAMPLE_OUTPUT, to, s->xd, vel(s, s->xd), user)) return NH_STOPPED;
  }
  return 0;
}

/* apply gap gi's impact law at the current state and log it; s->dg must hold the gap
 * gradients at this state */
static int do_impact(nh_sim *s, int gi, nh_observer_fn obs, void *user, int *applied) {
  const nh_model *m = s->model;
  const int nq = s->nq, nc = s->nc;
  double *q = s->x, *v = s->x + nq;
  int rc;
  *applied = 0;
  // approaching? (s->dg holds the gap gradients at q, evaluated with g1 by advance)
  double vn = nh_la_dot(nq, s->dg + (size_t)gi * nq, v);
  if (!(vn < -s->def.vn_tol)) {
    s->stats.grazing++;
    return 0;
  }
  if ((rc = log_reserve(s))) {
    sim_msg(s, "out of memory for the impact log");
    return rc;
  }
  if (obs && obs(s, NH_SAMPLE_IMPACT_BEFORE, s->t, q, v, user)) return NH_STOPPED;

  double Eb = s->stats.energy, Ea; /* the monitor evaluated it at this state */
  nh_impact_info info;
  memcpy(s->vtmp, v, sizeof(double) * (size_t)nq);
  // M(q) and A(q) are still in scratch from the monitors at this state (energy, residual)
  int st = nh_impact_map(nq, nc, s->M, s->dyn.A, s->dg + (size_t)gi * nq, s->vtmp, m->impact[gi],
                         &s->def.impact_tol, v, s->lam, &info, s->imp_work);
  if (st < 0) {
    sim_msg(s, "impact on '%s' at t = %.17g failed: %s", m->gap_names[gi], s->t, nh_status_string(st));
    return st;
  }
  if ((rc = energy(s, s->t, s->x, &Ea))) return rc;

  // log
  impact_entry *e = &s->log[s->nlog];
  e->t = s->t;
  e->gap = gi;
  e->status = st;
  e->alpha = info.alpha;
  e->Eb = Eb;
  e->Ea = Ea;
  e->vnb = info.vn_before;
  e->vna = info.vn_after;
  memcpy(s->log_q + (size_t)s->nlog * nq, q, sizeof(double) * (size_t)nq);
  memcpy(s->log_vb + (size_t)s->nlog * nq, s->vtmp, sizeof(double) * (size_t)nq);
  memcpy(s->log_va + (size_t)s->nlog * nq, v, sizeof(double) * (size_t)nq);
  if (nc > 0) memcpy(s->log_lam + (size_t)s->nlog * nc, s->lam, sizeof(double) * (size_t)nc);
  s->nlog++;
  s->stats.impacts++;
  s->E_seg = Ea;
  s->stats.energy = Ea;
  if (fabs(s->g1[gi]) > s->stats.max_event_gap) s->stats.max_event_gap = fabs(s->g1[gi]);
  *applied = 1;
  if (obs && obs(s, NH_SAMPLE_IMPACT_AFTER, s->t, q, v, user)) return NH_STOPPED;

  // Zeno guard
  s->burst = (s->t - s->last_impact_t < s->def.zeno_interval) ? s->burst + 1 : 1;
  s->last_impact_t = s->t;
  if (s->burst >= s->def.zeno_count) {
    sim_msg(s, "%d consecutive impacts less than %g s apart, the last at t = %.17g", s->burst,
            s->def.zeno_interval, s->t);
    return NH_ZENO;
  }
  return 0;
}

/* the solver counters of the stepper into the statistics (at each accepted step, and
 * with the failed attempts when a step fails) */
SIM_INLINE void solver_stats(nh_sim *s) {
  s->stats.evals = s->st.evals;
  s->stats.solver_iterations = s->st.iters;
  s->stats.solver_max_iterations = s->st.max_iters;
  s->stats.solver_last_iterations = s->st.last_iters;
  s->stats.solver_last_residual = s->st.last_res;
  s->stats.solver_max_residual = s->st.max_res;
}

/* 1. step x -> s->x1 over *h, shrinking *h after a rejection (err != NULL: adaptive, accept
 * when *err <= 1; a positive return or a non-finite state: "too large a step") */
SIM_INLINE int step_retry_from(nh_sim *s, const double *x0, double *x1, double *hp, int *last, double *err,
                               const int nx) {
  const int adaptive = err != NULL;
  double h = *hp;
  int rc;
  for (int tries = 0;; tries++) {
    rc = method_step_from(s, x0, h, x1, err);
    if (rc == 0 && !all_finite(nx, x1)) rc = 1; /* treat overflow as "too large a step" */
    if (rc < 0) {
      sim_msg(s, "step at t = %.17g with h = %g failed: %s", s->t, h, nh_status_string(rc));
      solver_stats(s);
      return rc;
    }
    if (rc == 0 && !(adaptive && *err > 1.0)) break;
    // reject: shrink
    s->stats.rejected++;
    double fac = rc > 0 ? 0.25 : fmax(0.2, 0.9 * pow(*err, -1.0 / (s->def.method->err_order + 1)));
    h *= fac;
    *last = 0;
    if (h < s->def.h_min || tries >= NH_STEP_MAX_RETRY) {
      sim_msg(s, "step size underflow at t = %.17g (h = %g)", s->t, h);
      solver_stats(s);
      return rc > 0 && !adaptive ? NH_ERR_NONFINITE : NH_ERR_STEP_UNDERFLOW;
    }
  }
  *hp = h;
  return 0;
}
SIM_INLINE int step_retry(nh_sim *s, double *hp, int *last, double *err) {
  return step_retry_from(s, s->x, s->x1, hp, last, err, s->nx);
}

/* energy E and constraint residual of the accepted state x (at s->t), which the method wrote
 * to xend (x itself, or a copy of it); then the monitor functions at x (plain: s->plain, known
 * to have no projection, gaps or monitors) */
SIM_INLINE int step_invariants(nh_sim *s, const double *xend, const double *x, double *Ep, double *resp,
                               const int plain) {
  int rc;
  double E, res;
  const nh_stepper *st = &s->st;
  if (st->end_x == xend && (plain || !s->model->project)) {
    if (!plain && s->ng > 0) {
      memcpy(s->M, st->end_M, sizeof(double) * (size_t)s->nq * (size_t)s->nq);
      memcpy(s->dyn.A, st->end_A, sizeof(double) * (size_t)s->nc * (size_t)s->nq);
    }
    if (st->end_EA) {
      E = st->end_E, res = st->end_res, rc = 0;
    } else {
      nh_model_residual_given_A(s->model, x + s->nq, st->end_A, &res);
      rc = nh_model_energy_given_M(s->model, x, x + s->nq, st->end_M, &E);
    }
  } else {
    rc = energy(s, s->t, x, &E);
    if (!rc) rc = residual(s, x, &res);
  }
  if (rc || (!plain && (rc = monitors(s, s->t, x, s->m0)))) {
    sim_msg(s, "model evaluation failed at t = %.17g", s->t);
    return rc < 0 ? rc : NH_ERR_CALLBACK;
  }
  *Ep = E, *resp = res;
  return 0;
}

/* accept the step to xnew of length h (to t_max when last): state, time, statistics, and the
 * invariant monitors and monitor functions at the new state (with M and A, or E and the
 * residual, from the method when its last step produced this state; s->M, s->dyn.A keep M
 * and A for an impact) */
SIM_INLINE int accept_step(nh_sim *s, double h, const double *xnew, int last, double t_max) {
  int rc;
  memcpy(s->x, xnew, sizeof(double) * (size_t)s->nx);
  s->t = last ? t_max : s->t + h;
  if (s->ng > 0) memcpy(s->g0, s->g1, sizeof(double) * (size_t)s->ng);
  s->stats.steps++;
  solver_stats(s);
  double E, res;
  if ((rc = step_invariants(s, xnew, s->x, &E, &res, 0))) return rc;
  s->stats.energy = E;
  const double Es = fabs(s->E_seg) > 1e-300 ? fabs(s->E_seg) : 1e-300; /* fmax(|E_seg|, 1e-300) */
  double rel = fabs(E - s->E_seg) / Es;
  if (rel > s->stats.max_energy_rel_error) s->stats.max_energy_rel_error = rel;
  if (res > s->stats.max_constraint_residual) s->stats.max_constraint_residual = res;
  return 0;
}

/* The step that lands on t_max (*last set) or an ordinary step h, given the time remaining.
 * A remainder below 1e-6 h (round-off of t accumulated over fixed steps) is absorbed into the
 * last step rather than left as a tiny extra step (ill-conditioned for implicit methods). A
 * fixed-step method (fixed) whose remaining time differs from h by no more than the rounding
 * the driver's time can have accumulated (NH_LAND_ROUND_ULPS eps |t_max| per step so far)
 * takes its step h and lands: its steps stay equal (gni conserves the half-step energy only
 * for equal steps), and the time is t_max. */
#define NH_LAND_ROUND_ULPS 1.0
static double land_step(const nh_sim *s, double remaining, double h, int fixed, int *last) {
  const double acc = NH_LAND_ROUND_ULPS * 2.220446049250313e-16 * fabs(s->t + remaining) * (double)(s->stats.steps + 1);
  if (fixed && fabs(remaining - h) <= acc) {
    *last = 1;
    return h;
  }
  if (h >= remaining * (1.0 - 1e-12) || remaining - h < 1e-6 * h) {
    *last = 1;
    return remaining;
  }
  return h;
}

/* advance() for a fixed-step method on a model without gaps, monitors or projection (s->plain):
 * the same step, outputs and acceptance, without the event machinery */
static int advance_plain(nh_sim *s, double t_max, nh_observer_fn obs, void *user) {
  double remaining = t_max - s->t;
  if (!(remaining > 0.0)) return 0;
  double h = s->def.h;
  if (s->def.h_max > 0.0 && h > s->def.h_max) h = s->def.h_max;
  int last = 0, rc;
  h = land_step(s, remaining, h, 1, &last);
  if ((rc = step_retry(s, &h, &last, NULL))) return rc;
  if (obs && s->def.out_dt > 0.0 && (rc = emit_outputs(s, h, s->x1, obs, user))) return rc;
  if ((rc = accept_step(s, h, s->x1, last, t_max))) return rc;
  if (obs && s->def.out_dt <= 0.0 && obs(s, NH_SAMPLE_STEP, s->t, s->x, vel(s, s->x), user))
    return NH_STOPPED;
  return 0;
}

/* nh_sim_run's steps on a plain simulation without an observer: advance_plain's steps, bit
 * for bit, with the per-run decisions out of the loop. The state alternates between s->x and
 * s->x1 (no copy per step; s->x holds it again on return); the solver counters, the last
 * energy and the maxima of the statistics are written on return (the largest relative energy
 * error is the largest |E - E_seg| divided by |E_seg|: rounding is monotone, so this is the
 * largest of the quotients). It stops two steps before t_end (advance_plain lands there) and
 * one step before max_steps (nh_sim_run reports it); *steps counts the steps taken. nx is
 * s->nx, a constant for the common sizes (run_plain). */
SIM_INLINE int run_plain_n(nh_sim *s, double t_end, long *steps, const int nx) {
  double h0 = s->def.h;
  if (s->def.h_max > 0.0 && h0 > s->def.h_max) h0 = s->def.h_max;
  const double far = 2.0 * h0; /* a step with more than this left is not the last */
  const long nmax = s->def.max_steps > 0 ? s->def.max_steps - 1 : LONG_MAX;
  const double E_seg = s->E_seg;
  double *xa = s->x, *xb = s->x1, E = s->stats.energy, dE = 0.0, rmax = s->stats.max_constraint_residual;
  long n = *steps, n0 = n;
  int rc = 0;
  while (t_end - s->t > far && n < nmax) {
    double h = h0, res;
    int last = 0;
    if ((rc = step_retry_from(s, xa, xb, &h, &last, NULL, nx))) break;
    s->t += h;
    s->stats.steps++;
    double *xt = xa;
    xa = xb, xb = xt; /* the state is in xa */
    n++;
    if ((rc = step_invariants(s, xa, xa, &E, &res, 1))) break;
    const double d = fabs(E - E_seg);
    if (d > dE) dE = d;
    if (res > rmax) rmax = res;
  }
  if (xa != s->x) memcpy(s->x, xa, sizeof(double) * (size_t)nx);
  if (n > n0) {
    solver_stats(s);
    s->stats.energy = E;
    const double Es = fabs(E_seg) > 1e-300 ? fabs(E_seg) : 1e-300; /* as accept_step */
    const double rel = dE / Es;
    if (rel > s->stats.max_energy_rel_error) s->stats.max_energy_rel_error = rel;
    s->stats.max_constraint_residual = rmax;
  }
  *steps = n;
  return rc;
}
static int run_plain(nh_sim *s, double t_end, long *steps) {
  switch (s->nx) {
  case 4: return run_plain_n(s, t_end, steps, 4);
  case 6: return run_plain_n(s, t_end, steps, 6);
  case 8: return run_plain_n(s, t_end, steps, 8);
  case 10: return run_plain_n(s, t_end, steps, 10);
  default: return run_plain_n(s, t_end, steps, s->nx);
  }
}

/* one accepted step (or a step cut at an impact) not past t_max */
static int advance(nh_sim *s, double t_max, nh_observer_fn obs, void *user, int *impacted) {
  const nh_method *meth = s->def.method;
  const int adaptive = (meth->flags & NH_METHOD_ADAPTIVE) != 0;
  const int exact = (meth->flags & NH_METHOD_EXACT) != 0;
  int rc;
  *impacted = 0;
  double remaining = t_max - s->t;
  if (!(remaining > 0.0)) return 0;

  // step size
  double h = adaptive ? s->h : s->def.h;
  if (exact && s->model->predict) h = remaining; /* events are predicted exactly */
  if (s->def.h_max > 0.0 && h > s->def.h_max) h = s->def.h_max;
  int last = 0;
  h = land_step(s, remaining, h, !adaptive && !exact, &last);

  // exact flow with exact events: predict first, then step once, to the event or to h
  int gi = -1;
  const int predicted = exact && s->model->predict && s->ng > 0;
  if (predicted) {
    double te;
    int g;
    rc = s->model->predict(s->x, s->x + s->nq, h, &te, &g, s->model->user);
    if (rc < 0) {
      sim_msg(s, "event predictor failed at t = %.17g", s->t);
      return NH_ERR_CALLBACK;
    }
    if (rc == 0) {
      if (!(te > 0.0 && te <= h) || g < 0 || g >= s->ng) {
        sim_msg(s, "event predictor returned tau = %g, gap %d outside (0, %g]", te, g, h);
        return NH_ERR_EVENT;
      }
      h = te, gi = g, last = 0;
      s->stats.events_located++;
    }
  }

  // 1. step (adaptive: accept when err <= 1)
  double err = 0.0;
  if ((rc = step_retry(s, &h, &last, adaptive ? &err : NULL))) return rc;

  // 2-3. detect and locate a crossing
  double tau = h;
  if (s->ng > 0 && predicted) {
    // values, and at an event the gradients the impact needs (do_impact reads s->dg)
    if ((rc = gaps(s, s->x1, s->g1, gi >= 0 ? s->dg : NULL))) {
      sim_msg(s, "gap evaluator failed at t = %.17g", s->t + h);
      return rc;
    }
  } else if (s->ng > 0) {
    if ((rc = gaps(s, s->x1, s->g1, NULL))) {
      sim_msg(s, "gap evaluator failed at t = %.17g", s->t + h);
      return rc;
    }
    if ((rc = detect(s, h, &gi, &tau))) return rc;
  }
  double *xnew = s->x1;
  if (gi >= 0 && !predicted) {
    xnew = s->xe;
    h = tau;
    last = 0;
    if ((rc = gaps(s, xnew, s->g1, s->dg))) return rc; /* do_impact reads s->dg */
  } else if (gi < 0 && s->last_h != h) {
    // an unconfirmed bracket left a partial step as the last one: redo the full step
    if ((rc = method_step(s, h, s->x1, NULL))) return rc > 0 ? NH_ERR_EVENT : rc;
  }

  // monitors: a crossing before the end of the step kept so far cuts it (just past it)
  int mi = -1, mdir = 0;
  double tau_m;
  if ((rc = scan_monitors(s, h, xnew, &mi, &mdir, &tau_m))) {
    if (!s->msg[0]) sim_msg(s, "monitor evaluation failed near t = %.17g", s->t);
    return rc;
  }
  if (mi >= 0) {
    xnew = s->xm;
    h = tau_m;
    last = 0;
    gi = -1;
    if ((rc = gaps(s, xnew, s->g1, NULL))) return rc;
  }

  // projection method: the kept state is projected onto the model's manifold (a Lie-group
  // method keeps the model's rotation part on it by construction)
  if (s->model->project && !(meth->flags & NH_METHOD_LIE) && (rc = s->model->project(xnew, s->model->user))) {
    sim_msg(s, "projection failed at t = %.17g", s->t + h);
    return NH_ERR_CALLBACK;
  }

  // 4. outputs inside the accepted step, then accept
  if ((rc = emit_outputs(s, h, xnew, obs, user))) return rc;
  if ((rc = accept_step(s, h, xnew, last, t_max))) return rc;

  // adaptive proposal for the next step
  if (adaptive && gi < 0 && mi < 0) {
    double fac = err > 0.0 ? 0.9 * pow(err, -1.0 / (meth->err_order + 1)) : 5.0;
    s->h = h * fmin(5.0, fmax(0.2, fac));
  }

  // a monitor event: log it, sit on its zero (no second report), report or stop
  if (mi >= 0) {
    const int stop = s->model->monitors[mi].action == NH_MONITOR_STOP;
    if ((rc = log_event(s, mi, mdir, stop))) return rc;
    s->m0[mi] = 0.0;
    if (obs && obs(s, NH_SAMPLE_EVENT, s->t, s->x, vel(s, s->x), user)) return NH_STOPPED;
    if (stop) {
      sim_msg(s, "monitor '%s' crossed zero at t = %.17g", s->model->monitors[mi].name, s->t);
      return NH_EVENT_STOP;
    }
  }

  // 5. impact
  if (gi >= 0) {
    if ((rc = do_impact(s, gi, obs, user, impacted))) return rc;
    if (*impacted) return 0; /* q is unchanged, so g0 (= g1) still holds */
  }
  if (obs && s->def.out_dt <= 0.0 && obs(s, NH_SAMPLE_STEP, s->t, s->x, vel(s, s->x), user))
    return NH_STOPPED;
  return 0;
}

int nh_sim_step(nh_sim *s, double t_max, int *impacted) {
  int imp = 0;
  if (!s || !isfinite(t_max)) return NH_ERR_ARG;
  s->msg[0] = 0;
  int rc = s->plain ? advance_plain(s, t_max, NULL, NULL) : advance(s, t_max, NULL, NULL, &imp);
  if (impacted) *impacted = imp;
  return rc;
}

int nh_sim_run(nh_sim *s, double t_end, long max_impacts, nh_observer_fn obs, void *user) {
  if (!s || !(t_end >= s->t) || max_impacts < 0) return NH_ERR_ARG;
  s->msg[0] = 0;
  int rc = 0;
  long steps = 0;
  if (obs && obs(s, NH_SAMPLE_START, s->t, s->x, vel(s, s->x), user)) return NH_STOPPED;
  if (s->plain && !obs) rc = run_plain(s, t_end, &steps);
  while (!rc && s->t < t_end) {
    int imp = 0;
    if ((rc = s->plain ? advance_plain(s, t_end, obs, user) : advance(s, t_end, obs, user, &imp))) break;
    if (max_impacts > 0 && s->stats.impacts >= max_impacts) break;
    if (s->def.max_steps > 0 && ++steps >= s->def.max_steps) {
      sim_msg(s, "reached %ld steps at t = %.17g", s->def.max_steps, s->t);
      rc = NH_ERR_MAX_STEPS;
      break;
    }
  }
  if (obs && rc != NH_STOPPED) obs(s, NH_SAMPLE_END, s->t, s->x, vel(s, s->x), user);
  return rc;
}
