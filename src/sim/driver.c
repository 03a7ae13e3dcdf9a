/* driver.c - the stepping loop. One step of the driver (drive_step):
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
 *
 * The step and the loop around it have one source, compiled with constant flags: `plain` (a
 * fixed-step method on a model without gaps, monitors or projection, s->plain: 2-3 and 5 drop
 * out) and `fast` (plain and no observer: the state alternates between two buffers instead of
 * being copied, and the statistics are written when the loop returns; a method with
 * nh_method.advance takes the steps that cannot be the last in one call), and for the common
 * state sizes nx. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/sim_impl.h"

#define NH_STEP_MAX_RETRY 60 /* adaptive rejections of one step before underflow */
/* a monitor's value after its event when the state left it on zero or behind it: the least
 * normal double, signed as the crossing (past zero, no nearer to a later crossing) */
#define NH_MON_JUST_PAST DBL_MIN

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

/* the solver counters of the stepper into the statistics (at each accepted step, and
 * with the failed attempts when a step fails) */
SIM_INLINE void solver_stats(nh_sim *s) {
  s->stats.evals = s->st.evals;
  s->stats.solver_iterations = s->st.iters;
  s->stats.solver_solves = s->st.solves;
  s->stats.solver_max_iterations = s->st.max_iters;
  s->stats.solver_last_iterations = s->st.last_iters;
  s->stats.solver_last_residual = s->st.last_res;
  s->stats.solver_max_residual = s->st.max_res;
}

/* 1. step x0 -> x1 over *h, shrinking *h after a rejection (err != NULL: adaptive, accept
 * when *err <= 1; a positive return or a non-finite state: "too large a step"). A fixed-step
 * implicit method whose Newton iteration fails (a stiff moment: TREX's hip PD gains as a foot
 * lands) takes the step in quarters too, counted as rejected, down to h_min; the run goes on
 * at its step h after it. The failed attempt's work stays in the solver's counts, its residual
 * does not enter the maximum (it is not part of the solution). */
SIM_INLINE int step_retry(nh_sim *s, const double *x0, double *x1, double *hp, int *last, double *err,
                          const int nx) {
  const int adaptive = err != NULL;
  const double h0 = *hp;
  double h = h0;
  int rc;
  for (int tries = 0;; tries++) {
    const double max_res = s->st.max_res;
    rc = method_step_from(s, x0, h, x1, err);
    if (rc == 0 && !all_finite(nx, x1)) rc = 1; /* treat overflow as "too large a step" */
    if (rc == NH_ERR_NO_CONVERGENCE && !adaptive && h >= 4.0 * s->def.h_min && tries < NH_STEP_MAX_RETRY) {
      s->st.max_res = max_res;
      rc = 2; /* recoverable: a shorter step */
    }
    if (rc < 0) {
      if (rc == NH_ERR_SINGULAR && !(s->def.method->flags & NH_METHOD_IMPLICIT) && s->nc + s->nact > 0)
        sim_msg(s, "step at t = %.17g with h = %g failed: %s (G = A M^-1 A^T: the constraint rows lose rank "
                   "here, a singular configuration of the model)", s->t, h, nh_status_string(rc));
      else if (h < h0)
        sim_msg(s, "step at t = %.17g with h = %g failed: %s (also in steps down to h = %g)", s->t, h0,
                nh_status_string(rc), h);
      else
        sim_msg(s, "step at t = %.17g with h = %g failed: %s", s->t, h, nh_status_string(rc));
      solver_stats(s);
      return rc;
    }
    if (rc == 0 && !(adaptive && !(*err <= 1.0))) break; /* a NaN estimate rejects */
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

/* energy E (and its kinetic part T for the witness's scale, s->kin; else T = E) and constraint
 * residual of the accepted state x (at s->t), which the method wrote to xend (x itself, or a
 * copy of it); then the monitor functions at x (plain: known to have no projection, gaps or
 * monitors) */
SIM_INLINE int step_invariants(nh_sim *s, const double *xend, const double *x, double *Ep, double *Tp,
                               double *resp, const int plain) {
  int rc;
  double E, T, res;
  const nh_stepper *st = &s->st;
  if (st->end_x == xend && (plain || !s->model->project)) {
    if (!plain && s->ng > 0) {
      memcpy(s->M, st->end_M, sizeof(double) * (size_t)s->nq * (size_t)s->nq);
      memcpy(s->dyn.A, st->end_A, sizeof(double) * (size_t)s->nc * (size_t)s->nq);
    }
    if (st->end_EA && !s->kin) { /* (a method's E: of a model without a potential, T = E) */
      E = st->end_E, T = E, res = st->end_res, rc = 0;
    } else {
      nh_model_residual_given_A(s->model, x + s->nq, st->end_A, &res);
      rc = nh_model_energy_kin_given_M(s->model, x, x + s->nq, st->end_M, &E, &T);
    }
  } else {
    rc = energy_kin(s, s->t, x, &E, &T);
    if (!rc) rc = residual(s, x, &res);
  }
  if (rc || (!plain && (rc = monitors(s, s->t, x, s->m0)))) {
    sim_msg(s, "model evaluation failed at t = %.17g", s->t);
    return rc < 0 ? rc : NH_ERR_CALLBACK;
  }
  *Ep = E, *Tp = T, *resp = res;
  return 0;
}

/* The loop's state: where the current state is (xa: s->x, or in a fast loop either of s->x
 * and s->x1, xb the other), the invariants of the steps not yet in the statistics (the last
 * energy E, the extremes of E - E_seg and the largest residual, over n steps; the largest
 * kinetic energy for the witness's scale), and the fixed step h0 with the remaining time
 * `far` beyond which a step cannot be the last. */
typedef struct run_acc {
  double *xa, *xb;
  double E, dmax, dmin, rmax;
  int half;     /* s->half */
  double C, Cmax, Cmin; /* the half-step energy: the last one and its extremes (of max |C - C_seg|) */
  double Tmax;  /* the largest kinetic energy (s->kin) */
  long n;
  double h0, far;
} run_acc;

static run_acc run_acc_init(nh_sim *s) {
  double h0 = s->def.h;
  if (s->def.h_max > 0.0 && h0 > s->def.h_max) h0 = s->def.h_max;
  run_acc a = {s->x, s->x1, s->stats.energy, 0.0, 0.0, 0.0, s->half, s->stats.conserved, -INFINITY, INFINITY, 0.0, 0,
               h0, 2.0 * h0};
  return a;
}

/* the accumulated invariants into the statistics (the largest relative energy error is the
 * largest |E - E_seg| divided by |E_seg|: rounding is monotone, so this is the largest of the
 * quotients). The witness: the energy the steps made is W_acc + E - E_seg, largest at one of
 * the extremes of E - E_seg (W_acc is constant between events), over the scale. */
SIM_INLINE void flush_stats(nh_sim *s, run_acc *a) {
  if (a->n == 0) return;
  s->stats.energy = a->E;
  const double Es = fabs(s->E_seg) > 1e-300 ? fabs(s->E_seg) : 1e-300; /* fmax(|E_seg|, 1e-300) */
  const double dE = a->dmax > -a->dmin ? a->dmax : -a->dmin, rel = dE / Es;
  if (rel > s->stats.max_energy_rel_error) s->stats.max_energy_rel_error = rel;
  if (s->witness) {
    const double w1 = fabs(s->W_acc + a->dmax), w2 = fabs(s->W_acc + a->dmin), w = w1 > w2 ? w1 : w2;
    if (w > s->W_max || isnan(w)) s->W_max = w; /* (a NaN is kept: not finite, NH_DRIFT_OVERFLOW) */
    if (s->kin && a->Tmax > s->stats.energy_scale) s->stats.energy_scale = a->Tmax;
    const double S = s->stats.energy_scale; /* 0: no scale, not judged (nholo/sim.h) */
    s->stats.max_energy_drift = S > 0.0 ? s->W_max / S : 0.0;
  }
  if (a->rmax > s->stats.max_constraint_residual) s->stats.max_constraint_residual = a->rmax;
  if (a->half) {
    // the largest |C - C_seg| is at one of the extremes (rounding is monotone)
    const double d1 = a->Cmax - s->C_seg, d2 = s->C_seg - a->Cmin, dC = d1 > d2 ? d1 : d2;
    const double Cs = fabs(s->C_seg) > 1e-300 ? fabs(s->C_seg) : 1e-300, relc = dC / Cs;
    s->stats.conserved = a->C;
    if (relc > s->stats.max_conserved_rel_error) s->stats.max_conserved_rel_error = relc;
  } else { /* the conserved quantity is the energy */
    s->stats.conserved = s->stats.energy;
    s->stats.max_conserved_rel_error = s->stats.max_energy_rel_error;
  }
  a->n = 0, a->dmax = 0.0, a->dmin = 0.0, a->rmax = 0.0, a->Cmax = -INFINITY, a->Cmin = INFINITY, a->Tmax = 0.0;
}

/* the method's half-step energy of the step just accepted, a full step of the run (the first
 * one after the start or an impact is the reference of the ones after it; a short last step or
 * a step cut at an event has its own) */
SIM_INLINE void half_step_energy(nh_sim *s, run_acc *a, const int mid) {
  const double C = s->st.end_C;
  if (!mid && s->C_unset) {
    s->C_unset = 0, s->C_seg = C;
    if (s->stats.impacts == 0) s->stats.conserved_initial = C;
  }
  a->C = C;
  if (C > a->Cmax) a->Cmax = C;
  if (C < a->Cmin) a->Cmin = C;
}

/* accept the step to xnew of length h (to t_max when last): state, time, statistics, and the
 * invariant monitors and monitor functions at the new state (with M and A, or E and the
 * residual, from the method when its last step produced this state; s->M, s->dyn.A keep M
 * and A for an impact) */
SIM_INLINE int accept_step(nh_sim *s, run_acc *a, double h, double *xnew, int last, double t_max,
                           const int plain, const int fast, const int mid, const int nx) {
  int rc;
  if (fast) a->xb = a->xa, a->xa = xnew; /* xnew is a->xb */
  else memcpy(s->x, xnew, sizeof(double) * (size_t)nx);
  s->t = last ? t_max : s->t + h;
  if (!plain && s->ng > 0) memcpy(s->g0, s->g1, sizeof(double) * (size_t)s->ng);
  s->stats.steps++;
  a->n++;
  if (!fast) solver_stats(s);
  double E, T, res;
  if ((rc = step_invariants(s, xnew, fast ? a->xa : s->x, &E, &T, &res, plain))) return rc;
  const double d = E - s->E_seg;
  a->E = E;
  if (d > a->dmax) a->dmax = d;
  if (d < a->dmin) a->dmin = d;
  if (T > a->Tmax) a->Tmax = T; /* (T = E without s->kin: read only with it) */
  if (res > a->rmax) a->rmax = res;
  if (a->half && (mid || h == a->h0)) half_step_energy(s, a, mid); /* defined for the run's equal steps */
  if (!fast) flush_stats(s, a);
  return 0;
}

/* The step that lands on t_max (*last set) or an ordinary step h, given the time remaining.
 * A remainder below 1e-6 h (round-off of t accumulated over fixed steps) is absorbed into the
 * last step rather than left as a tiny extra step (ill-conditioned for implicit methods). A
 * fixed-step method (fixed) whose remaining time differs from h by no more than the rounding
 * the driver's time can have accumulated (NH_LAND_ROUND_ULPS eps |t_max| per step so far)
 * takes its step h and lands: its steps stay equal (gni conserves the half-step energy only
 * for equal steps), and the time is t_max. With more than 2 h remaining the step is h. */
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

/* exact flow with exact events: the model predicts the next event within h; the step then
 * goes straight to it (*h = its time, *gi its gap) */
static int predict_event(nh_sim *s, double *h, int *gi, int *last) {
  double te;
  int g;
  int rc = s->model->predict(s->x, s->x + s->nq, *h, &te, &g, s->model->user);
  if (rc < 0) {
    sim_msg(s, "event predictor failed at t = %.17g", s->t);
    return NH_ERR_CALLBACK;
  }
  if (rc == 0) {
    if (!(te > 0.0 && te <= *h) || g < 0 || g >= s->ng) {
      sim_msg(s, "event predictor returned tau = %g, gap %d outside (0, %g]", te, g, *h);
      return NH_ERR_EVENT;
    }
    *h = te, *gi = g, *last = 0;
    s->stats.events_located++;
  }
  return 0;
}

/* 2-3 and the monitors: the crossings inside the step just taken (to s->x1 over *h). The step
 * kept ends at *xnew (s->x1, or cut at a located gap crossing gi or monitor crossing mi). */
static int step_events(nh_sim *s, double *h, int *last, int predicted, int *gi, int *mi, int *mdir, int *ri,
                       double **xnew) {
  int rc;
  double tau = *h;
  if (s->ng > 0) {
    // values, and at a predicted event the gradients the impact needs (it reads s->dg)
    if ((rc = gaps(s, s->x1, s->g1, predicted && *gi >= 0 ? s->dg : NULL))) {
      sim_msg(s, "gap evaluator failed at t = %.17g", s->t + *h);
      return rc;
    }
    if (!predicted && (rc = nh_sim_detect(s, *h, gi, &tau))) return rc;
  }
  *xnew = s->x1;
  if (*gi >= 0 && !predicted) {
    *xnew = s->xe;
    *h = tau;
    *last = 0;
    if ((rc = gaps(s, *xnew, s->g1, s->dg))) return rc; /* the impact reads s->dg */
  } else if (*gi < 0 && s->last_h != *h) {
    // an unconfirmed bracket left a partial step as the last one: redo the full step
    if ((rc = method_step(s, *h, s->x1, NULL))) return rc > 0 ? NH_ERR_EVENT : rc;
  }
  // closed contacts: a force that would pull cuts the step (just past its zero)
  double tau_c;
  if (s->nact > 0 && (rc = nh_sim_contact_scan(s, *h, *xnew, ri, &tau_c))) return rc;
  if (*ri >= 0) {
    *xnew = s->xc;
    *h = tau_c;
    *last = 0;
    *gi = -1;
    if ((rc = gaps(s, *xnew, s->g1, NULL))) return rc;
  }
  // monitors: a crossing before the end of the step kept so far cuts it (just past it)
  double tau_m;
  if (s->nmon > 0 && (rc = nh_sim_scan_monitors(s, *h, *xnew, mi, mdir, &tau_m))) return rc; /* (named there) */
  if (*mi >= 0) {
    *xnew = s->xm;
    *h = tau_m;
    *last = 0;
    *gi = -1;
    *ri = -1;
    if ((rc = gaps(s, *xnew, s->g1, NULL))) return rc;
  }
  // closed contacts: the kept state back onto them (the gaps and gradients there for an impact)
  // (a method holding them as rows keeps what it carries past the step end: `moved`; a
  // projected method's steps are already on them)
  if (s->nact > 0) {
    const nh_method *meth = s->def.method;
    if (s->hold == NH_HOLD_ROWS) { /* (almost-Poisson: projected; del's constraints: on them) */
      memcpy(s->xd, *xnew, sizeof(double) * (size_t)s->nx);
      rc = nh_sim_contact_project(s, *xnew);
      if (!rc && meth->moved) meth->moved(&s->st, s->xd, *xnew);
    } else rc = 0;
    if (rc || (rc = gaps(s, *xnew, s->g1, s->dg))) { /* (negative) */
      sim_msg(s, "projection onto the closed contacts failed at t = %.17g: %s", s->t + *h, nh_status_string(rc));
      return rc;
    }
    s->st.end_x = NULL;
  }
  // projection method: the kept state is projected onto the model's manifold (a Lie-group
  // method keeps the model's rotation part on it by construction)
  if (s->model->project && !(s->def.method->flags & NH_METHOD_LIE)) {
    if (s->model->project(*xnew, s->model->user)) {
      sim_msg(s, "projection failed at t = %.17g", s->t + *h);
      return NH_ERR_CALLBACK;
    }
    if ((rc = gaps(s, *xnew, s->g1, s->dg))) return rc; /* the projected state's gaps (the impact reads s->dg) */
  }
  return 0;
}

/* The last line of defence (NH_PENETRATION_REL): the open gaps at the kept state x, whose
 * values are in g. A gap below its event level (0, or a graze's rounding below it) is judged
 * against its tolerance -NH_PENETRATION_REL max(1, |q|) |dg|; the first one past it is
 * returned (-1: none), one within it gets its level lowered to its rounding below g (never
 * below the tolerance: the level does not ratchet down). The deepest open gap below zero enters
 * max_event_gap. A gap at or above its level costs one comparison; the gradients are
 * evaluated for the scale unless s->dg already holds them at x (dg_valid: a located or
 * predicted event, a projection; after an impact). */
static int gap_guard(nh_sim *s, const double *x, const double *g, int dg_valid, int *viol, double *depth) {
  int rc;
  *viol = -1;
  for (int i = 0; i < s->ng; i++) {
    if (g[i] >= s->glev[i] || (s->nact > 0 && s->closed[i])) continue;
    if (g[i] < 0.0 && -g[i] > s->stats.max_event_gap) s->stats.max_event_gap = -g[i];
    if (!dg_valid && (rc = gaps(s, x, s->gs, s->dg))) return rc; /* the gradients, for the gap's scale */
    dg_valid = 1;
    const double sc = gap_rounding(1.0, s->gd, x, s->dg + (size_t)i * s->gd); /* max(1, |q|) |dg| */
    if (g[i] < -NH_PENETRATION_REL * sc) {
      *viol = i, *depth = -g[i];
      return 0;
    }
    // within it (a located state's rounding, a projection's): the gap rests there, and its
    // crossings count from its rounding below that (as after a graze, locate.c)
    s->glev[i] = g[i] - NH_CONTACT_APEX_REL * sc;
  }
  return 0;
}

/* the run's end at an open gap past its wall (gap_guard) */
static int penetration(nh_sim *s, int gi, double depth, double t, const char *after) {
  sim_msg(s, "gap '%s' is %.3g past its wall at t = %.17g (%s): a crossing was not resolved", s->model->gap_names[gi],
          depth, t, after);
  return NH_ERR_PENETRATION;
}

/* after an accepted step: a monitor event (log it, report or stop), a contact opening, then an
 * impact. The event's state is just past the crossing: the next scan starts from the
 * monitor's value there, taken as past zero in the crossing's direction (rounding or a
 * projection can leave it on zero or a hair behind; the crossing is then not reported twice),
 * so that a crossing back out within the next sample interval is seen */
static int step_after(nh_sim *s, int gi, int mi, int mdir, int ri, nh_observer_fn obs, void *user, int *impacted) {
  int rc;
  if (ri >= 0 && (rc = nh_sim_contact_open(s, ri, NH_CONTACT_TENSION))) return rc;
  if (mi >= 0) {
    const int stop = s->model->monitors[mi].action == NH_MONITOR_STOP;
    if ((rc = nh_sim_log_event(s, mi, mdir, stop))) return rc;
    if (!(mdir * s->m0[mi] > 0.0)) s->m0[mi] = mdir * NH_MON_JUST_PAST;
    if (obs && obs(s, NH_SAMPLE_EVENT, s->t, s->x, vel(s, s->x), user)) return NH_STOPPED;
    if (stop) {
      sim_msg(s, "monitor '%s' crossed zero at t = %.17g", s->model->monitors[mi].name, s->t);
      return NH_EVENT_STOP;
    }
  }
  if (gi >= 0) return nh_sim_impact(s, gi, obs, user, impacted);
  return 0;
}

/* One accepted step (or a step cut at an event) not past t_max; the flags are constants of
 * each instance (plain, fast: see the top of this file; mid: a plain step with more than
 * a->far left, which is not the last; nx = s->nx). */
SIM_INLINE int drive_step(nh_sim *s, run_acc *a, double t_max, nh_observer_fn obs, void *user, int *impacted,
                          const int plain, const int fast, const int mid, const int nx) {
  const nh_method *meth = s->def.method;
  const int adaptive = !plain && (meth->flags & NH_METHOD_ADAPTIVE) != 0;
  const int exact = !plain && (meth->flags & NH_METHOD_EXACT) != 0;
  int rc;
  // step size
  double h = a->h0;
  int last = 0;
  if (!mid) {
    const double remaining = t_max - s->t;
    if (!(remaining > 0.0)) return 0;
    if (!plain) {
      h = adaptive ? s->h : s->def.h;
      if (exact && s->model->predict) h = remaining; /* events are predicted exactly */
      if (s->def.h_max > 0.0 && h > s->def.h_max) h = s->def.h_max;
      if (s->vi) h = nh_sim_vi_step(s, h); /* del with impacts: the rest of a split step */
    }
    if (!(plain && remaining > a->far)) h = land_step(s, remaining, h, !adaptive && !exact, &last);
  }

  // exact flow with exact events: predict first, then step once, to the event or to h
  int gi = -1, mi = -1, mdir = 0, ri = -1;
  const int predicted = !plain && exact && s->model->predict && s->ng > 0;
  if (predicted && (rc = predict_event(s, &h, &gi, &last))) return rc;

  // 1. step (adaptive: accept when err <= 1)
  double err = 0.0, *x1 = fast ? a->xb : s->x1, *xnew = x1;
  for (int tries = 0;; tries++) {
    if ((rc = step_retry(s, fast ? a->xa : s->x, x1, &h, &last, adaptive ? &err : NULL, nx))) return rc;
    if (plain) break;

    // 2-3. crossings of gaps and monitors, projection
    if ((rc = step_events(s, &h, &last, predicted, &gi, &mi, &mdir, &ri, &xnew))) return rc;

    // the last line of defence: no open gap past its wall at the kept state; else the step
    // again, a quarter as long (a crossing the detection missed: a shorter step resolves it)
    int viol;
    double depth;
    if (s->ng == 0) break;
    const int dg_valid = gi >= 0 || s->nact > 0 || (s->model->project && !(meth->flags & NH_METHOD_LIE));
    if ((rc = gap_guard(s, xnew, s->g1, dg_valid, &viol, &depth))) return rc;
    if (viol < 0) break;
    const int at_start = s->g0[viol] < s->glev[viol]; /* past it before the step: no step helps */
    if (at_start || predicted || tries >= NH_PENETRATION_RETRY || 0.25 * h < s->def.h_min) {
      char why[96];
      if (at_start) snprintf(why, sizeof why, "below its level at the step's start");
      else if (predicted) snprintf(why, sizeof why, "the closed-form flow's event predictor did not report it");
      else snprintf(why, sizeof why, "in %d tries of the step, the last with h = %g", tries + 1, h);
      return penetration(s, viol, depth, s->t + h, why);
    }
    s->stats.rejected++;
    h *= 0.25, last = 0;
    gi = mi = ri = -1, mdir = 0, xnew = x1;
  }

  // 4. outputs inside the accepted step, then accept
  if (!fast && obs && (rc = emit_outputs(s, h, xnew, obs, user))) return rc;
  if ((rc = accept_step(s, a, h, xnew, !mid && last, t_max, plain, fast, mid, nx))) return rc;

  if (!plain) {
    // adaptive proposal for the next step
    if (adaptive && gi < 0 && mi < 0 && ri < 0) {
      double fac = err > 0.0 ? 0.9 * pow(err, -1.0 / (meth->err_order + 1)) : 5.0;
      s->h = h * fmin(5.0, fmax(0.2, fac));
    }
    // 5. a monitor event, an impact (the closed contacts projected after it: the open gaps
    // checked again at the state it leaves)
    const long ncl = s->ncl, nact = s->nact;
    if ((rc = step_after(s, gi, mi, mdir, ri, obs, user, impacted))) return rc;
    if (*impacted) {
      int viol = -1;
      double depth;
      if (nact > 0 || s->nact > 0 || s->ncl != ncl) { /* else q is as the step left it */
        if (s->nact > 0 && (rc = gaps(s, s->x, s->g0, NULL))) return rc;
        if ((rc = gap_guard(s, s->x, s->g0, 1, &viol, &depth))) return rc; /* s->dg: the impact's */
      }
      return viol >= 0 ? penetration(s, viol, depth, s->t, "after an impact") : 0;
    }
  }
  if (!fast && obs && s->def.out_dt <= 0.0 && obs(s, NH_SAMPLE_STEP, s->t, s->x, vel(s, s->x), user))
    return NH_STOPPED;
  return 0;
}

/* the general instance: any simulation, one step */
static int step_general(nh_sim *s, run_acc *a, double t_max, nh_observer_fn obs, void *user, int *impacted) {
  *impacted = 0;
  return drive_step(s, a, t_max, obs, user, impacted, 0, 0, 0, s->nx);
}

/* The plain steps that cannot be the last, taken inside the method (nh_method.advance; a fast
 * loop): the steps, states and statistics of drive_step's, in one call, up to step lim. It
 * gives the largest |E - E_seg| (not its sign: taken as both extremes, which bounds the
 * witness's drift) and no kinetic energy (a model whose witness needs it, s->kin, takes
 * drive_step's steps) */
static int advance_steps(nh_sim *s, run_acc *a, double t_end, long lim, long *steps) {
  nh_advance ad = {.t = s->t, .t_end = t_end, .far = a->far, .h = a->h0, .max = lim - *steps,
                   .E_seg = s->E_seg, .E = a->E, .dE = a->dmax > -a->dmin ? a->dmax : -a->dmin, .rmax = a->rmax,
                   .C = a->C, .Cmax = a->Cmax, .Cmin = a->Cmin};
  if (!(t_end - s->t > a->far) || ad.max <= 0 || s->kin) return 0;
  int rc = s->def.method->advance(&s->st, a->xa, a->xb, &ad);
  if (rc || ad.done == 0) return rc < 0 ? rc : 0;
  double *x = a->xb; /* the state is now in xb */
  a->xb = a->xa, a->xa = x;
  s->t = ad.t;
  s->last_h = a->h0;
  s->st.end_x = NULL;
  s->stats.steps += ad.done;
  a->n += ad.done;
  *steps += ad.done;
  a->E = ad.E, a->rmax = ad.rmax;
  if (ad.dE > a->dmax) a->dmax = ad.dE;
  if (-ad.dE < a->dmin) a->dmin = -ad.dE;
  if (a->half) a->C = ad.C, a->Cmax = ad.Cmax, a->Cmin = ad.Cmin;
  return 0;
}

/* the caller's cancellation flag (nh_sim_def.cancel) is set: the run ends where it is */
static int interrupted(nh_sim *s) {
  sim_msg(s, "interrupted at t = %.17g", s->t);
  return NH_INTERRUPTED;
}

/* The loop: steps until t_end, max_impacts impacts (0: no limit) or max_steps steps; the
 * state is in s->x and the statistics are complete on return. A plain loop takes the steps
 * that cannot be the last (more than 2 h left, one below max_steps) without those tests, and
 * once the half-step energy has its reference (the first step's) without that test, in
 * batches of NH_CANCEL_STEPS when there is a cancellation flag to read between them. */
SIM_INLINE int drive(nh_sim *s, double t_end, long max_impacts, nh_observer_fn obs, void *user, const int plain,
                     const int fast, const int nx) {
  run_acc a = run_acc_init(s);
  const long nmax = s->def.max_steps > 0 ? s->def.max_steps : LONG_MAX;
  const volatile sig_atomic_t *cancel = s->def.cancel;
  const long batch = cancel ? NH_CANCEL_STEPS : LONG_MAX;
  long steps = 0;
  int rc = 0, imp = 0;
  while (!rc && s->t < t_end) {
    if (cancel && *cancel) {
      rc = interrupted(s);
      break;
    }
    // the steps that cannot be the last (once a half-step energy has its reference)
    if (plain && !s->C_unset) {
      const long lim = nmax - 1 - steps > batch ? steps + batch : nmax - 1;
      if (fast && s->def.method->advance) rc = advance_steps(s, &a, t_end, lim, &steps);
      while (!rc && t_end - s->t > a.far && steps < lim) {
        rc = drive_step(s, &a, t_end, obs, user, &imp, 1, fast, 1, nx);
        steps++;
      }
    }
    if (rc || !(s->t < t_end)) break;
    const double t_prev = s->t;
    if ((rc = plain ? drive_step(s, &a, t_end, obs, user, &imp, 1, fast, 0, nx)
                    : step_general(s, &a, t_end, obs, user, &imp)))
      break;
    if (!plain && max_impacts > 0 && s->stats.impacts >= max_impacts) break;
    // no progress in t (a step cut to nothing at an event, again and again): stall
    if (!plain && (s->stall = s->t - t_prev > NH_STALL_REL * fmax(1.0, fabs(t_prev)) ? 0 : s->stall + 1) >= NH_STALL_STEPS) {
      sim_msg(s, "no progress in t: %d consecutive steps advanced t = %.17g by at most %g", NH_STALL_STEPS, s->t,
              NH_STALL_REL * fmax(1.0, fabs(t_prev)));
      rc = NH_STALL;
      break;
    }
    if (++steps >= nmax) {
      sim_msg(s, "reached %ld steps at t = %.17g", s->def.max_steps, s->t);
      rc = NH_ERR_MAX_STEPS;
    }
  }
  if (fast) {
    if (a.xa != s->x) memcpy(s->x, a.xa, sizeof(double) * (size_t)nx);
    if (a.n > 0) solver_stats(s);
    flush_stats(s, &a);
  }
  return rc;
}

static int run_general(nh_sim *s, double t_end, long max_impacts, nh_observer_fn obs, void *user) {
  return drive(s, t_end, max_impacts, obs, user, 0, 0, s->nx);
}
static int run_plain_observed(nh_sim *s, double t_end, nh_observer_fn obs, void *user) {
  return drive(s, t_end, 0, obs, user, 1, 0, s->nx);
}
static int run_plain(nh_sim *s, double t_end) {
  switch (s->nx) {
  case 4: return drive(s, t_end, 0, NULL, NULL, 1, 1, 4);
  case 6: return drive(s, t_end, 0, NULL, NULL, 1, 1, 6);
  case 8: return drive(s, t_end, 0, NULL, NULL, 1, 1, 8);
  case 10: return drive(s, t_end, 0, NULL, NULL, 1, 1, 10);
  default: return drive(s, t_end, 0, NULL, NULL, 1, 1, s->nx);
  }
}

/* The energy's bounds at the end of a completed run (NH_DRIFT, nholo/sim.h): a method that
 * conserves a quantity on this model, against NH_DRIFT_TOL, that quantity (a half-step energy
 * only with a constant M, which sim_conservation makes sure of) and the nodal energy between
 * impacts; then, whatever the method, the energy its steps made on a model whose energy is a
 * first integral (the witness), against NH_WITNESS_TOL over the energy scale. A drift that is
 * not a number, or an energy that overflowed (velocities near 1e154), counts as one; NH_OK
 * when within every bound */
static int drift_check(nh_sim *s) {
  nh_sim_stats *st = &s->stats;
  const char *name = s->def.method->name;
  const int judged = s->conserves || (s->witness && st->energy_scale > 0.0);
  if (judged && (!isfinite(st->energy) || (s->conserves && !isfinite(st->conserved)) ||
                 (s->witness && !isfinite(st->max_energy_drift)))) {
    if (s->conserves)
      sim_msg(s, "method '%s' left its regime: the energy is %g and its conserved quantity %g (not finite: the "
                 "velocities are too large for double precision)",
              name, st->energy, st->conserved);
    else
      sim_msg(s, "method '%s' left its regime: the energy is %g, its drift %g (not finite: the velocities are too "
                 "large for double precision)",
              name, st->energy, st->max_energy_drift);
    st->drift = NH_DRIFT_OVERFLOW;
  } else if (s->conserves && (!(st->max_conserved_rel_error <= NH_DRIFT_TOL) || !(st->max_energy_rel_error <= NH_DRIFT_TOL))) {
    sim_msg(s, "method '%s' left its regime: relative drift of its conserved quantity (%s) %.3g, of the energy %.3g "
               "(> NH_DRIFT_TOL = %g)",
            name, nh_conserved_name(s->conserved), st->max_conserved_rel_error, st->max_energy_rel_error, NH_DRIFT_TOL);
    st->drift = NH_DRIFT_CONSERVED;
  } else if (s->witness && st->energy_scale > 0.0 && !(st->max_energy_drift <= NH_WITNESS_TOL)) {
    sim_msg(s, "method '%s' left its regime: its steps changed the energy by %.3g of its scale %.6g J (> "
               "NH_WITNESS_TOL = %g) on a model that conserves it; energy %.9g -> %.9g J",
            name, st->max_energy_drift, st->energy_scale, NH_WITNESS_TOL, st->energy_initial, st->energy);
    st->drift = NH_DRIFT_WITNESS;
  } else {
    return NH_OK;
  }
  return NH_DRIFT;
}

int nh_sim_step(nh_sim *s, double t_max, int *impacted) {
  int imp = 0;
  if (!s || !isfinite(t_max)) return NH_ERR_ARG;
  s->msg[0] = 0;
  run_acc a = run_acc_init(s);
  int rc = step_general(s, &a, t_max, NULL, NULL, &imp);
  if (impacted) *impacted = imp;
  if (rc < 0 && !s->msg[0]) sim_msg(s, "%s at t = %.17g", nh_status_string(rc), s->t); /* (every exit says where) */
  return rc;
}

int nh_sim_run(nh_sim *s, double t_end, long max_impacts, nh_observer_fn obs, void *user) {
  if (!s || !(t_end >= s->t) || max_impacts < 0) return NH_ERR_ARG;
  s->msg[0] = 0;
  s->stats.drift = NH_DRIFT_NONE; /* (drift_check: this run's verdict) */
  int rc;
  if (obs && obs(s, NH_SAMPLE_START, s->t, s->x, vel(s, s->x), user)) return NH_STOPPED;
  if (!s->plain) rc = run_general(s, t_end, max_impacts, obs, user);
  else if (obs) rc = run_plain_observed(s, t_end, obs, user);
  else rc = run_plain(s, t_end);
  if (rc < 0 && !s->msg[0]) sim_msg(s, "%s at t = %.17g", nh_status_string(rc), s->t); /* (every exit says where) */
  if (rc == NH_OK) rc = drift_check(s);
  if (obs && rc != NH_STOPPED) obs(s, NH_SAMPLE_END, s->t, s->x, vel(s, s->x), user);
  return rc;
}
