/* sim.c - a simulation: its definition (defaults, checks), creation with one block for
 * everything a step needs, destruction, the state and the accessors. The driver's loop is in
 * driver.c, crossings in locate.c, monitors in monitors.c, impacts through resolve.c, apply.c and log.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/msg.h"
#include "sim/sim_impl.h"

#define NH_SIM_DEF_COOKIE 0x6e687364 /* "nhsd" */

void nh_sim_msg(nh_sim *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->msg, sizeof s->msg, fmt, ap);
  va_end(ap);
}

nh_sim_def nh_sim_def_default(void) {
  nh_sim_def d;
  memset(&d, 0, sizeof d);
  d.method = NULL; /* automatic: nh_sim_choose_method */
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
  d.contact = 1;
  d.constraint_tol = 1e-9;
  d.project_initial = 0;
  d.opts = nh_method_opts_default();
  d.simul_tol = 1e-9;
  d.simul_order = NH_SIMUL_MOST_INFEASIBLE;
  d.simul_max_outcomes = 64;
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
  else if (d->contact != 0 && d->contact != 1)
    snprintf(buf, sizeof buf, "contact = %d must be 0 or 1", d->contact);
  else if (!(d->constraint_tol >= 0.0))
    snprintf(buf, sizeof buf, "constraint_tol must be >= 0");
  else if (!(d->horizon >= 0.0))
    snprintf(buf, sizeof buf, "horizon = %g must be >= 0 (0: not given)", d->horizon);
  else if (d->log_limit < 0)
    snprintf(buf, sizeof buf, "log_limit = %ld must be >= 0 (0: no limit)", d->log_limit);
  else if ((int)d->opts.variant < 0 || (int)d->opts.variant > 1)
    snprintf(buf, sizeof buf, "variant = %d must be 0 (symmetric) or 1 (paper)", (int)d->opts.variant);
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

/* What the method conserves on this model, and whether the model's energy witnesses the run:
 * the one place that decides both (the driver checks them, nh_sim_stats and the summary
 * report them; a method's variants, d->opts, may decide differently).
 *   *conserved (nh_conserved): the method's flags on a model without forces or controls whose
 *     impacts, if any, are elastic: NH_METHOD_ENERGY the nodal energy; with
 *     NH_METHOD_ENERGY_NO_V only for V = 0 and a constant M (gni, rattle, shake: Theorem 1 of
 *     spec 001 needs both), and with NH_METHOD_HALF_STEP the half-step energy instead;
 *   *witness: the model's energy is a first integral of its flow between impacts (the impact
 *     laws' jumps are not counted, whatever the laws): the mechanical form without forces or
 *     controls (a force is also what a control is), the almost-Poisson form (H, with a
 *     skew Pi); not a generic ODE form, whose energy is a monitor only.
 * A constant M is declared (mass_constant) or implied by a model without Coriolis terms
 * (nholo/model.h). gni, rattle and shake in their symmetric variant conserve the nodal energy
 * (no NH_METHOD_HALF_STEP), and only with a constant M (nh_method_flags_given). */
static void sim_conservation(const nh_sim_def *d, const nh_model *m, int *conserved, int *witness) {
  const unsigned f = nh_method_flags_given(d->method, &d->opts, m); /* the variant's (gni, rattle, shake) */
  const int mech = nh_sim_form_of(m)->metric; /* the mechanical form */
  *witness = mech ? !m->force : m->hamiltonian != NULL;
  *conserved = NH_CONSERVED_NONE;
  if (!(f & NH_METHOD_ENERGY) || !*witness) return;
  if ((f & NH_METHOD_ENERGY_NO_V) && (!mech || m->potential || !(m->mass_constant || !m->coriolis))) return;
  for (int i = 0; m->impact && i < m->ngap; i++) {
    const nh_impact_law *law = &m->impact[i];
    if (!(law->kind == NH_IMPACT_ELASTIC || (law->kind == NH_IMPACT_RESTITUTION && law->e == 1.0))) return;
  }
  *conserved = (f & NH_METHOD_HALF_STEP) ? NH_CONSERVED_HALF_STEP_ENERGY : NH_CONSERVED_ENERGY;
}

const char *nh_conserved_name(int conserved) {
  switch (conserved) {
  case NH_CONSERVED_ENERGY: return "energy";
  case NH_CONSERVED_HALF_STEP_ENERGY: return "half-step energy";
  default: return "none";
  }
}

const char *nh_drift_name(int drift) {
  switch (drift) {
  case NH_DRIFT_CONSERVED: return "conserved";
  case NH_DRIFT_WITNESS: return "witness";
  case NH_DRIFT_OVERFLOW: return "overflow";
  default: return "none";
  }
}

nh_sim *nh_sim_create(const nh_model *model, const nh_sim_def *def, char *msg, size_t msg_size) {
  nh_set_msg(msg, msg_size, "%s", "");
  if (!model) {
    nh_set_msg(msg, msg_size, "no model given");
    return NULL;
  }
  nh_sim_def d = def ? *def : nh_sim_def_default();
  char why[320] = "";
  if (d.internal_cookie == NH_SIM_DEF_COOKIE && !d.method) d.method = nh_sim_choose_method(model, &d, why, sizeof why);
  if (!check_sim_def(&d, model, msg, msg_size)) return NULL;

  const size_t nq = (size_t)model->nq, nc = (size_t)model->nc, ng = (size_t)model->ngap;
  const size_t nx = (size_t)model->nx, nmon = (size_t)model->nmon;
  const size_t gd = nh_sim_form_of(model)->whole_state ? nx : nq; /* a gap gradient's length */
  size_t nd = 6 * nx + 8 * ng + ng * gd + nq * nq + nc + gd + 6 * nmon +
              nh_model_impact_work_size(model) + nh_dyn_work_size(model) +
              d.method->work_size(model) + 8;
  // persistent contacts: trial state, accelerations, per-gap records, stacked rows, projection
  const size_t nr = nc + ng, ncw = ng > 0 ? 3 * nx + 5 * ng + 3 * nr * gd + nr * nr + nq * nq + 3 * nr + nh_impact_work_size((int)nq, (int)nr) +
                                               nh_dyn_contact_work_size(model) : 0;
  nd += ncw;
  nh_sim *s = calloc(1, sizeof *s);
  double *mem = calloc(nd, sizeof(double));
  int *imem = calloc(2 * ng + 1, sizeof(int));
  if (!s || !mem || !imem) {
    free(s);
    free(mem);
    free(imem);
    nh_set_msg(msg, msg_size, "out of memory");
    return NULL;
  }
  s->model = model;
  s->form = nh_sim_form_of(model); /* the form, decided by nh_sim_form_of (form.c) */
  s->def = d;
  snprintf(s->method_reason, sizeof s->method_reason, "%s", why);
  s->nq = (int)nq;
  s->nc = (int)nc;
  s->ng = (int)ng;
  s->nx = (int)nx;
  s->nmon = (int)nmon;
  s->gd = (int)gd;
  s->mem = mem;
  s->act = imem, s->closed = imem + ng;
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
  s->dg = p, p += ng * gd;
  s->gscale = p, p += ng;
  s->fx = p, p += nx;
  s->M = p, p += nq * nq;
  s->lam = p, p += nc;
  s->vtmp = p, p += gd;
  s->imp_work = p, p += nh_model_impact_work_size(model);
  s->xm = p, p += nx;
  s->m0 = p, p += nmon;
  s->mp = p, p += nmon;
  s->mc = p, p += nmon;
  s->ms = p, p += nmon;
  s->msp = p, p += nmon;
  s->msc = p, p += nmon;
  nh_dyn_init(&s->dyn, model, p);
  p += nh_dyn_work_size(model);
  if (ng > 0) {
    s->xc = p, p += nx;
    s->acc = p, p += 2 * nx; /* (nq) accelerations; almost-Poisson: (2 nx) scratch */
    s->t_imp = p, p += ng;
    s->tau_imp = p, p += ng;
    s->lamc = p, p += ng;
    s->lamt = p, p += ng;
    s->glev = p, p += ng;
    s->Astk = p, p += nr * gd;
    s->Dstk = p, p += nr * gd;
    s->Wstk = p, p += nr * gd;
    s->Kc = p, p += nr * nr;
    s->Lm = p, p += nq * nq;
    s->tauc = p, p += nr;
    s->bc = p, p += nr;
    s->cw = p, p += nr;
    s->proj_work = p, p += nh_impact_work_size((int)nq, (int)nr);
    nh_dyn_contact_init(&s->dyn, p);
    p += nh_dyn_contact_work_size(model);
  }
  s->st.model = model;
  s->st.method = d.method;
  s->st.nx = (int)nx;
  s->st.rtol = d.rtol;
  s->st.opts = d.opts;
  s->st.atol = d.atol;
  s->st.work = p;
  s->st.dyn = &s->dyn;
  s->plain = !(d.method->flags & (NH_METHOD_ADAPTIVE | NH_METHOD_EXACT)) && ng == 0 && nmon == 0 && !model->project;
  int conserved;
  sim_conservation(&d, model, &conserved, &s->witness);
  s->conserved = conserved;
  s->conserves = conserved != NH_CONSERVED_NONE;
  s->half = conserved == NH_CONSERVED_HALF_STEP_ENERGY;
  s->kin = s->witness && s->form->metric && model->potential;
  s->hold = ng > 0 ? nh_sim_contact_method_ok(d.method, model, &d.opts) : NH_HOLD_NONE;
  s->contact_ok = ng > 0 && d.contact && s->hold != NH_HOLD_NONE;
  if (nh_sim_vi_setup(s, msg, msg_size) || nh_sim_simul_create(s, msg, msg_size)) { /* vi_impact.c, simul.c */
    nh_sim_destroy(s);
    return NULL;
  }

  int rc = nh_sim_set_state_x(s, 0.0, model->x0);
  if (rc < 0) {
    nh_set_msg(msg, msg_size, "%s", s->msg);
    nh_sim_destroy(s);
    return NULL;
  }
  // an initial state of infinite energy (finite but huge values) cannot be simulated, nor one
  // whose energy is NaN (undefined there: 0/0, the root of a negative number, ...)
  if (!isfinite(s->stats.energy_initial)) {
    if (isnan(s->stats.energy_initial))
      nh_set_msg(msg, msg_size, "the energy at the initial state is NaN: it is undefined there (0/0, a square root or "
                                "logarithm of a negative number, ... in the kinetic or potential energy)");
    else
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
  free(s->act);
  free(s->cl);
  free(s->cl_x);
  free(s->log);
  free(s->log_q);
  free(s->log_vb);
  free(s->log_va);
  free(s->log_lam);
  free(s->ev);
  free(s->ev_x);
  nh_sim_simul_destroy(s);
  free(s);
}

double nh_sim_time(const nh_sim *s) { return s->t; }
const double *nh_sim_q(const nh_sim *s) { return s->x; }
const double *nh_sim_v(const nh_sim *s) { return s->form->vel(s, s->x); }
const double *nh_sim_x(const nh_sim *s) { return s->x; }
const nh_model *nh_sim_model(const nh_sim *s) { return s->model; }
const nh_method *nh_sim_method(const nh_sim *s) { return s->def.method; }
const char *nh_sim_method_reason(const nh_sim *s) { return s->method_reason; }
unsigned nh_sim_method_flags(const nh_sim *s) { return nh_method_flags_given(s->def.method, &s->def.opts, s->model); }
const char *nh_sim_message(const nh_sim *s) { return s ? s->msg : ""; }
const nh_sim_stats *nh_sim_get_stats(const nh_sim *s) { return &s->stats; }

/* ---- evaluations on the sim's scratch ------------------------------------------------- */

int nh_sim_set_state(nh_sim *s, double t, const double *q, const double *v) {
  if (!s) return NH_ERR_ARG;
  if (s->form->whole_state) return nh_sim_set_state_x(s, t, q);
  s->msg[0] = 0;
  if (!q || !v) {
    sim_msg(s, "initial state is missing or not finite");
    return NH_ERR_NONFINITE;
  }
  memcpy(s->xe, q, sizeof(double) * (size_t)s->nq);
  memcpy(s->xe + s->nq, v, sizeof(double) * (size_t)s->nq);
  return nh_sim_set_state_x(s, t, s->xe);
}

/* The gaps at the state x (into g, gradients s->dg) against nholo/model.h's rounding
 * rules: a gap within NH_GAP_START_REL max(1, |q|) |dg| of its zero touches its wall (also from
 * below: g0 < 0 is its rounding, and its crossings count from there, nh_sim_set_state_x); a
 * gap further below is outside (NH_ERR_ARG); a gap within NH_GAP_START_REL max(1, |q|) of zero
 * whose gradient vanishes there, |dg| max(1, |q|) <= NH_GAP_DEGEN_REL (in the gap's own units:
 * no other scale is known yet), has no wall there (NH_ERR_DEGENERATE_GAP). Each gap's scale
 * G_i = max(|g|, |dg| max(1, |q|)) goes to scale[i] (> 0 once these checks pass). */
static int start_gaps(nh_sim *s, const double *x, double *g0, double *gscale) {
  const nh_model *m = s->model;
  const int gd = s->gd;
  if (s->ng == 0) return 0;
  if (gaps(s, x, g0, s->dg)) {
    sim_msg(s, "gap evaluator failed at the initial state");
    return NH_ERR_CALLBACK;
  }
  double scale = 1.0;
  for (int j = 0; j < gd; j++) scale = fmax(scale, fabs(x[j]));
  for (int i = 0; i < s->ng; i++) {
    const double *d = s->dg + (size_t)i * gd, g = g0[i], dn = sqrt(nh_la_dot(gd, d, d));
    if (fabs(g) <= NH_GAP_START_REL * scale && dn * scale <= NH_GAP_DEGEN_REL) {
      sim_msg(s, "gap '%s' is zero at the initial state (g = %.3g) and so is its gradient (|dg| = %.3g): no wall "
                 "there, its impact would have no normal (NH_GAP_DEGEN_REL)", m->gap_names[i], g, dn);
      return NH_ERR_DEGENERATE_GAP;
    }
    if (!(g >= 0.0) && !(g >= -NH_GAP_START_REL * scale * dn)) { /* (a gradient not finite: g >= 0 only) */
      sim_msg(s, "initial state is outside the admissible region: gap '%s' = %.6g < 0 (beyond its rounding, "
                 "NH_GAP_START_REL max(1, |q|) |dg| = %.3g)", m->gap_names[i], g, NH_GAP_START_REL * scale * dn);
      return NH_ERR_ARG;
    }
    gscale[i] = fmax(fabs(g), dn * scale); /* (fmax: |g| when dn is not finite) */
  }
  return 0;
}

int nh_sim_set_state_x(nh_sim *s, double t, const double *x) {
  if (!s) return NH_ERR_ARG;
  const nh_model *m = s->model;
  const int nq = s->nq, nx = s->nx;
  int rc, status = NH_OK;
  s->msg[0] = 0;
  if (!x || !isfinite(t) || !all_finite(nx, x)) {
    sim_msg(s, "initial state is missing or not finite");
    return NH_ERR_NONFINITE;
  }
  // the new state is checked in scratch (xn, its gaps, scales and monitors in g1, gc, mc) and
  // taken only when every check passes: a refused state leaves the simulation as it was
  double *xn = s->x1, E;
  memmove(xn, x, sizeof(double) * (size_t)nx);

  // constraints: reject or project the initial velocity
  double res = 0.0;
  if ((rc = residual(s, xn, &res))) {
    sim_msg(s, "constraint evaluator failed at the initial state");
    return NH_ERR_CALLBACK;
  }
  if (res > s->def.constraint_tol) {
    if (!s->def.project_initial) {
      sim_msg(s, "initial velocity violates the constraints: max |A v| = %.3e > %.3e", res,
              s->def.constraint_tol);
      return NH_ERR_CONSTRAINT;
    }
    if ((rc = m->mass(xn, s->M, m->user))) return state_eval_failed(s, rc, "mass");
    if (nh_project_velocity(nq, s->nc, s->M, s->dyn.A, xn + nq, xn + nq, s->imp_work) != NH_OK) {
      sim_msg(s, "projection of the initial velocity failed");
      return NH_ERR_SINGULAR;
    }
    status = NH_PROJECTED;
  }

  // admissible region, and each gap's scale (nh_sim_impact_degenerate)
  if ((rc = start_gaps(s, xn, s->g1, s->gc))) return rc;

  // monitors start from their values here (a monitor at exactly 0 has no sign yet)
  if (monitors(s, t, xn, s->mc)) {
    sim_msg(s, "monitor evaluator failed at the initial state");
    return NH_ERR_CALLBACK;
  }
  double T;
  if ((rc = energy_kin(s, t, xn, &E, &T))) {
    sim_msg(s, "energy evaluation failed at the initial state");
    return NH_ERR_CALLBACK;
  }
  if (status == NH_PROJECTED && (rc = residual(s, xn, &res))) return rc;

  // taken: the state, its gaps, scales and monitors; statistics and logs
  memcpy(s->x, xn, sizeof(double) * (size_t)nx);
  s->t = t;
  if (s->ng > 0) {
    memcpy(s->g0, s->g1, sizeof(double) * (size_t)s->ng);
    memcpy(s->gscale, s->gc, sizeof(double) * (size_t)s->ng);
  }
  if (s->nmon > 0) memcpy(s->m0, s->mc, sizeof(double) * (size_t)s->nmon);
  memset(&s->stats, 0, sizeof s->stats);
  s->stats.energy_initial = E;
  s->stats.max_constraint_residual = res;
  s->stats.energy = s->stats.energy_initial;
  s->E_seg = s->stats.energy_initial;
  s->C_seg = s->stats.energy_initial, s->C_unset = s->half;
  s->W_acc = 0.0, s->W_max = 0.0;
  s->stats.conserves = s->conserves;
  s->stats.conserved_quantity = s->conserved;
  s->stats.energy_witness = s->witness;
  s->stats.energy_scale = s->witness ? fmax(fabs(E), T) : 0.0; /* (T = E without s->kin) */
  s->stats.conserved = s->stats.conserved_initial = s->half ? 0.0 : s->stats.energy_initial;
  s->st.restart = 1;
  s->st.iters = 0, s->st.solves = 0, s->st.max_iters = 0, s->st.last_iters = 0;
  s->st.last_res = 0.0, s->st.max_res = 0.0;
  s->nlog = 0;
  s->nev = 0;
  s->h = s->def.h;
  s->last_impact_t = -INFINITY;
  s->vi_end = -INFINITY; /* no grid step in progress */
  s->burst = 0;
  s->stall = 0;
  // contacts: all open, no impact history
  s->nact = 0, s->dyn.nact = 0, s->dyn.act = s->act, s->ncl = 0;
  // a gap touching from below (start_gaps) counts its crossings from its value here, as a gap
  // at exactly 0 does from 0 (locate.c: from this level until it is off its wall by as much)
  for (int i = 0; i < s->ng; i++)
    s->closed[i] = 0, s->t_imp[i] = -INFINITY, s->tau_imp[i] = INFINITY, s->glev[i] = fmin(s->g0[i], 0.0);
  s->out_t0 = t;
  s->out_k = 1;
  return status;
}

int nh_sim_replace_x(nh_sim *s, const double *x) {
  if (!s || !x) return NH_ERR_ARG;
  if (!all_finite(s->nx, x)) {
    sim_msg(s, "replaced state is not finite at t = %.17g", s->t);
    return NH_ERR_NONFINITE;
  }
  // the energy there starts a new segment of the invariant statistics (as after an impact);
  // a state whose energy fails is not taken
  double E;
  if (energy(s, s->t, x, &E)) {
    sim_msg(s, "energy evaluation failed at the replaced state, t = %.17g", s->t);
    return NH_ERR_CALLBACK;
  }
  memmove(s->x, x, sizeof(double) * (size_t)s->nx);
  s->st.restart = 1;
  new_segment(s, E);
  return NH_OK;
}
