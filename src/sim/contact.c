/* contact.c - persistent contacts (docs/contact.md). A gap whose impacts accumulate (a Zeno
 * sequence), or that is reached at rest while pressed into its wall, closes: the velocity is
 * projected onto ker [A; dg] (the plastic map over the active set) and g_i(q) = 0 becomes a
 * holonomic constraint of the dynamics (nh_dyn's contact rows), each kept step projected back
 * onto it. Its multiplier, the normal force, is watched at each step end; where it would pull
 * the zero is located on partial steps of the method (as an event) and the contact opens.
 * Closing and opening are logged (nh_sim_contact_get). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_impl.h"

/* the method's table says how it holds a closed contact (nh_contact_hold): as constraint rows
 * of its step (the multiplier-form dynamics nh_dyn; gni, rattle and shake: vi_active), by the
 * driver's projection of each free step, or not at all (exact: a closed-form flow) */
int nh_sim_contact_method_ok(const nh_method *m, const nh_model *model, const nh_method_opts *opts) {
  // an almost-Poisson model has no constraint rows: every method holds by projection
  if (!nh_sim_form_of(model)->metric) return m->contact == NH_HOLD_NONE ? NH_HOLD_NONE : NH_HOLD_PROJECT;
  return m->hold ? m->hold(model, opts) : m->contact;
}

const char *nh_contact_kind_name(int kind) {
  return kind == NH_CONTACT_CLOSE ? "close" : kind == NH_CONTACT_OPEN ? "open" : "unknown";
}

const char *nh_contact_reason_name(int reason) {
  switch (reason) {
  case NH_CONTACT_ACCUMULATION: return "accumulation";
  case NH_CONTACT_REST: return "rest";
  case NH_CONTACT_TENSION: return "tension";
  case NH_CONTACT_SEPARATION: return "separation";
  case NH_CONTACT_CHATTER: return "chatter";
  default: return "unknown";
  }
}

/* ---- the contact log -------------------------------------------------------------------- */

static int contact_reserve(nh_sim *s) {
  if (s->ncl < s->capcl) return 0;
  long cap = s->capcl ? 2 * s->capcl : 16;
  contact_entry *e = realloc(s->cl, sizeof *e * (size_t)cap);
  if (e) s->cl = e;
  double *x = realloc(s->cl_x, sizeof(double) * (size_t)s->nx * (size_t)cap);
  if (x) s->cl_x = x;
  if (!e || !x) return NH_ERR_NOMEM;
  s->capcl = cap;
  return 0;
}

static int contact_log(nh_sim *s, int gi, int kind, int reason, double t_limit, double ratio, double lambda,
                       double Eb, double Ea) {
  if (contact_reserve(s)) {
    sim_msg(s, "out of memory for the contact log");
    return NH_ERR_NOMEM;
  }
  contact_entry *e = &s->cl[s->ncl];
  e->t = s->t, e->t_limit = t_limit, e->ratio = ratio, e->lambda = lambda, e->Eb = Eb, e->Ea = Ea;
  e->gap = gi, e->kind = kind, e->reason = reason;
  memcpy(s->cl_x + (size_t)s->ncl * (size_t)s->nx, s->x, sizeof(double) * (size_t)s->nx);
  s->ncl++;
  return 0;
}

long nh_sim_contact_count(const nh_sim *s) { return s ? s->ncl : 0; }

int nh_sim_contact_get(const nh_sim *s, long k, nh_contact_record *r) {
  if (!s || !r || k < 0 || k >= s->ncl) return NH_ERR_ARG;
  const contact_entry *e = &s->cl[k];
  r->t = e->t, r->gap = e->gap, r->kind = e->kind, r->reason = e->reason;
  r->t_limit = e->t_limit, r->ratio = e->ratio, r->lambda = e->lambda;
  r->energy_before = e->Eb, r->energy_after = e->Ea;
  r->x = s->cl_x + (size_t)k * (size_t)s->nx;
  return NH_OK;
}

int nh_sim_contact_closed(const nh_sim *s, int gap) { return s && gap >= 0 && gap < s->ng ? s->closed[gap] : 0; }

/* ---- evaluations -------------------------------------------------------------------------- */

/* the list of closed gaps from s->closed, shared with the dynamics */
static void set_active(nh_sim *s) {
  int n = 0;
  for (int i = 0; i < s->ng; i++)
    if (s->closed[i]) s->act[n++] = i;
  s->nact = n, s->dyn.nact = n, s->dyn.act = s->act;
}

/* the multipliers of the closed contacts (act order) at (t, x) into lam (a failure says so) */
static int contact_lambda(nh_sim *s, double t, const double *x, double *lam) {
  int rc;
  if (!(rc = s->form->contact_lambda(s, t, x, lam))) return 0; /* (form.c) */
  if (rc > 0) rc = NH_ERR_CALLBACK;
  sim_msg(s, "the forces of the closed contacts failed at t = %.17g: %s", t, nh_status_string(rc));
  return rc;
}

/* the stacked rows [A(q); dg_closed(q)] into s->Astk, *nr of them (s->gs, s->dg: the gaps at q) */
static int stacked_rows(nh_sim *s, const double *q, const double *v, int *nr) {
  const nh_model *m = s->model;
  const int nq = s->nq, nc = s->nc;
  int rc;
  if (nc > 0 && (rc = m->constraint(q, v, s->Astk, s->cw, m->user))) return state_eval_failed(s, rc, "constraint");
  if ((rc = gaps(s, q, s->gs, s->dg))) return rc;
  for (int k = 0; k < s->nact; k++)
    memcpy(s->Astk + (size_t)(nc + k) * nq, s->dg + (size_t)s->act[k] * nq, sizeof(double) * (size_t)nq);
  *nr = nc + s->nact;
  return 0;
}

/* One Gauss-Newton step onto the closed gaps, q -= D^T (D D^T)^-1 g with D their gradients
 * at q (s->gs, s->dg hold the gaps there); for one gap q -= g / |d|^2 d. Several gaps with
 * non-orthogonal gradients (a rod resting on both ends) need the joint step: one Newton step
 * per gap in turn leaves each of them off by what the next one moves, an offset that a free
 * step adds back every step (the rod then rested 1.8e-4 above its floor at h = 0.01). Gaps
 * whose gradients are dependent fall back to the steps in turn. */
static void project_q_once(nh_sim *s, double *q) {
  const int nq = s->gd, na = s->nact; /* almost-Poisson: q is the state, the gradients on x */
  if (na > 1) {
    for (int r = 0; r < na; r++) {
      const double *dr = s->dg + (size_t)s->act[r] * nq;
      s->bc[r] = s->gs[s->act[r]];
      for (int c = 0; c < na; c++) s->Kc[(size_t)r * na + c] = nh_la_dot(nq, dr, s->dg + (size_t)s->act[c] * nq);
    }
    if (nh_la_qr(na, na, s->Kc, s->tauc, 0.0, NULL) == NH_OK && nh_la_qr_solve(na, na, s->Kc, s->tauc, s->bc, 0.0) == NH_OK) {
      for (int r = 0; r < na; r++) nh_la_axpy(nq, -s->bc[r], s->dg + (size_t)s->act[r] * nq, q);
      return;
    }
  }
  for (int k = 0; k < na; k++) {
    const int i = s->act[k];
    const double *d = s->dg + (size_t)i * nq, dd = nh_la_dot(nq, d, d);
    if (dd > 0.0) nh_la_axpy(nq, -s->gs[i] / dd, d, q);
  }
}

/* x (its configuration part) onto the closed gaps: Gauss-Newton steps until every closed gap
 * is within NH_CONTACT_PROJ_TOL max(1, |q|) |dg| of its wall (the rounding of g) or
 * NH_CONTACT_PROJ_ITER steps were taken. One step alone leaves O(g^2) (curvature times the
 * square of the free step's drift: 1e-11 cm on TREX's feet), so that a step of length tau -> 0
 * from a state so projected jumped by that much: a gap beside the held one could then be found
 * crossing at tau = 0 again and again (del on TREX stalled at t = 4.418). s->gs and s->dg hold
 * the gaps at x on entry, at the last iterate evaluated on return. */
static int project_q(nh_sim *s, double *x) {
  const int nq = s->gd, na = s->nact;
  for (int it = 1;; it++) {
    project_q_once(s, x);
    if (it >= NH_CONTACT_PROJ_ITER) return 0;
    int rc = gaps(s, x, s->gs, s->dg), done = 1;
    if (rc) return rc;
    for (int k = 0; k < na && done; k++)
      done = fabs(s->gs[s->act[k]]) <= gap_rounding(NH_CONTACT_PROJ_TOL, nq, x, s->dg + (size_t)s->act[k] * nq);
    if (done) return 0;
  }
}

/* The closed gaps held at x: q (the state of an almost-Poisson model) onto them by project_q,
 * then the velocity by the form (s->form->hold: the kinetic-metric projection below, or the
 * e = 0 jump of form.c) */
int nh_sim_contact_project(nh_sim *s, double *x) { return s->form->hold(s, NULL, x, NULL); }
int nh_sim_contact_project_step(nh_sim *s, const double *x0, double *x1, double *err) {
  return s->form->hold(s, x0, x1, err);
}

/* gaps at x and x onto the closed ones (the configuration part; s->gs, s->dg at x after) */
int nh_sim_contact_project_q(nh_sim *s, double *x) {
  int rc = gaps(s, x, s->gs, s->dg);
  return rc ? rc : project_q(s, x);
}

/* Mechanical form. x0 = NULL: q onto the closed gaps, v onto ker [A; dg] in the kinetic
 * metric. Else the free step x0 -> x1 of a method that does not hold the contacts
 * (NH_HOLD_PROJECT), brought onto them: q1 by project_q's Gauss-Newton steps; v1 by the
 * impulse of the constraint forces over the step, v1 += M^-1 D^T mu with [A; dg](q1) v1 = 0,
 * where D holds A(q1) and, for each closed gap, the mean of its gradients at q0 and q1 (the
 * trapezoidal rule for the integral of the force direction: the kinetic-metric projection,
 * along dg(q1) alone, leaves an O(h^2) tangential error per step on a curved gap, this one
 * O(h^3)). */
int nh_sim_contact_hold_rows(nh_sim *s, const double *x0, double *x1, double *err) {
  const int nq = s->nq, nc = s->nc, na = s->nact;
  double *q = x1, *v = x1 + nq;
  int rc, nr;
  (void)err;
  if (!x0) {
    if ((rc = nh_sim_contact_project_q(s, q)) || (rc = stacked_rows(s, q, v, &nr))) return rc;
    if ((rc = s->model->mass(q, s->M, s->model->user))) return state_eval_failed(s, rc, "mass");
    return nh_project_velocity(nq, nr, s->M, s->Astk, v, v, s->proj_work);
  }
  // the closed gaps' gradients at q0, then q1 onto g = 0
  if ((rc = gaps(s, x0, s->gs, s->dg))) return rc;
  for (int k = 0; k < na; k++)
    memcpy(s->Dstk + (size_t)(nc + k) * nq, s->dg + (size_t)s->act[k] * nq, sizeof(double) * (size_t)nq);
  if ((rc = nh_sim_contact_project_q(s, q))) return rc;
  // R = [A; dg](q1) in Astk; D: A(q1) and the mean gradients; W = M^-1 D^T (by rows)
  if ((rc = stacked_rows(s, q, v, &nr))) return rc;
  if ((rc = s->model->mass(q, s->M, s->model->user))) return state_eval_failed(s, rc, "mass");
  memcpy(s->Dstk, s->Astk, sizeof(double) * (size_t)nc * (size_t)nq);
  for (int k = 0; k < na; k++) {
    double *d = s->Dstk + (size_t)(nc + k) * nq;
    const double *d1 = s->Astk + (size_t)(nc + k) * nq;
    for (int j = 0; j < nq; j++) d[j] = 0.5 * (d[j] + d1[j]);
  }
  nh_metric mt;
  nh_metric_init(&mt, nq, 0, s->Lm, NULL);
  if ((rc = nh_metric_factor(&mt, s->M))) return rc;
  memcpy(s->Wstk, s->Dstk, sizeof(double) * (size_t)nr * (size_t)nq);
  for (int r = 0; r < nr; r++) nh_metric_solve(&mt, s->Wstk + (size_t)r * nq);
  // (R W) mu = -R v, least squares by QR (full rank: the rows independent)
  for (int r = 0; r < nr; r++) {
    s->bc[r] = -nh_la_dot(nq, s->Astk + (size_t)r * nq, v);
    for (int c = 0; c < nr; c++) s->Kc[(size_t)r * nr + c] = nh_la_dot(nq, s->Astk + (size_t)r * nq, s->Wstk + (size_t)c * nq);
  }
  if ((rc = nh_la_qr(nr, nr, s->Kc, s->tauc, 0.0, NULL)) || (rc = nh_la_qr_solve(nr, nr, s->Kc, s->tauc, s->bc, 0.0)))
    return rc;
  for (int c = 0; c < nr; c++) nh_la_axpy(nq, s->bc[c], s->Wstk + (size_t)c * nq, v);
  return 0;
}

/* ---- closing -------------------------------------------------------------------------------- */

int nh_sim_contact_accumulates(nh_sim *s, int gi, double *t_limit, double *ratio) {
  const double t = s->t, tau = t - s->t_imp[gi], tau0 = s->tau_imp[gi], scale = fmax(1.0, fabs(t));
  *t_limit = t, *ratio = 0.0;
  if (!(tau < INFINITY)) return 0; /* the gap's first impact */
  const double r = tau0 > 0.0 && tau0 < INFINITY ? tau / tau0 : 0.0;
  const double rest = r > 0.0 && r < 1.0 ? tau * r / (1.0 - r) : 0.0; /* the geometric series' remainder */
  const int fixed = !(s->def.method->flags & NH_METHOD_ADAPTIVE);
  int acc = tau <= NH_CONTACT_TINY_REL * scale; /* intervals at the rounding of t */
  if (r > 0.0 && r < 1.0)
    acc = acc || rest <= NH_CONTACT_ZENO_REL * scale || (fixed && tau <= s->def.h && rest <= s->def.h);
  acc = acc || nh_sim_vi_chatters(s, gi); /* del's variational step: an interval below h (spec 003 3.6) */
  if (acc) *t_limit = t + rest, *ratio = r;
  return acc;
}

/* open every closed contact whose force would pull at the current state (after a change of
 * the active set) */
static int open_pulling(nh_sim *s) {
  int rc;
  for (;;) {
    if (s->nact == 0) return 0;
    if ((rc = contact_lambda(s, s->t, s->x, s->lamc))) return rc;
    int k = 0;
    while (k < s->nact && s->lamc[k] > 0.0) k++;
    if (k == s->nact) return 0;
    s->lamt[k] = s->lamc[k];
    if ((rc = nh_sim_contact_open(s, k, NH_CONTACT_TENSION))) return rc;
  }
}

/* the apex test of a trial closing (vn >= 0 the normal speed of the bounce left): the
 * rounding rule (APEX_ROUND: below NH_CONTACT_APEX_REL max(1, |q|) |dg|, what g resolves)
 * and/or the chatter rule (APEX_METHOD: below what the method resolves, the 2-norm of
 * dg_j (atol + rtol |q_j|) for an adaptive method, its error test's scale per coordinate;
 * |a_n| h^2 / 8 for a fixed-step one, the apex of a flight of one step). Returns the reason
 * it closes for (0: it does not) */
enum { APEX_ROUND = 1, APEX_METHOD = 2 };
static int apex_test(const nh_sim *s, int gi, int k, double vn, int rules) {
  const int gd = s->gd;
  const double an = s->form->normal_accel(s, gi, k, s->lamt[k]), ap = vn * vn / (2.0 * an); /* the apex */
  const double *dg = s->dg + (size_t)gi * gd;
  if ((rules & APEX_ROUND) && ap <= gap_rounding(NH_CONTACT_APEX_REL, gd, s->xc, dg)) return NH_CONTACT_REST;
  if (!(rules & APEX_METHOD)) return 0;
  if (s->def.method->flags & NH_METHOD_ADAPTIVE) { /* the error test's scale per coordinate, seen through dg */
    double res = 0.0;
    for (int j = 0; j < gd; j++) {
      const double e = dg[j] * (s->def.atol + s->def.rtol * fabs(s->xc[j]));
      res += e * e;
    }
    return ap <= sqrt(res) ? NH_CONTACT_CHATTER : 0;
  }
  return ap <= an * s->def.h * s->def.h / 8.0 ? NH_CONTACT_CHATTER : 0;
}

static int contact_close(nh_sim *s, int gi, int reason, double Eb, double t_limit, double ratio, double vn_check,
                         int rules, int *closed);

int nh_sim_contact_close(nh_sim *s, int gi, int reason, double Eb, double t_limit, double ratio, double vn_check,
                         int *closed) {
  return contact_close(s, gi, reason, Eb, t_limit, ratio, vn_check, APEX_ROUND, closed);
}

int nh_sim_contact_reclose(nh_sim *s, int gi, double Eb, double vna) {
  int closed;
  if (!s->def.contact || s->closed[gi] || !(vna > 0.0)) return 0;
  return contact_close(s, gi, NH_CONTACT_CHATTER, Eb, s->t, 0.0, vna, APEX_ROUND | APEX_METHOD, &closed);
}

int nh_sim_contact_after_bounce(nh_sim *s, int gi, double Eb, double vnb, double vna) {
  const double tau0 = s->tau_imp[gi];
  int closed;
  s->tau_imp[gi] = s->t - s->t_imp[gi], s->t_imp[gi] = s->t;
  if (!s->def.contact) return 0;
  const double tau = s->tau_imp[gi], r = tau0 > 0.0 && tau0 < INFINITY && tau < INFINITY ? tau / tau0 : 0.0;
  const int rest = fabs(vna) <= NH_CONTACT_REST_REL * fabs(vnb) + s->def.vn_tol;
  const int close = tau <= NH_CONTACT_ZENO_REL * fmax(1.0, fabs(s->t));
  const int slow = !s->vi && r >= NH_CONTACT_SLOW_RATIO && r < 1.0; /* del's variational step: its own rule */
  if (rest) return contact_close(s, gi, NH_CONTACT_REST, Eb, s->t, 0.0, -1.0, APEX_ROUND, &closed);
  if (!close && !slow) return 0;
  return contact_close(s, gi, NH_CONTACT_REST, Eb, s->t, slow ? r : 0.0, fabs(vna),
                       (close ? APEX_ROUND : 0) | (slow ? APEX_METHOD : 0), &closed);
}

/* a trial closing's projected state xc is admissible when every gap, closed or open, is within
 * its penetration tolerance there (NH_PENETRATION_REL): closing a gap on a body already held
 * at other contacts can over-determine its position (TREX's tail beside its rump, belly and
 * foot: the joint projection left the rump 6e-6 cm through the floor) */
static int trial_consistent(nh_sim *s, const double *xc, int *ok) {
  int rc = gaps(s, xc, s->gs, s->dg);
  *ok = 1;
  for (int i = 0; !rc && i < s->ng && *ok; i++)
    *ok = s->gs[i] >= -gap_rounding(NH_PENETRATION_REL, s->gd, xc, s->dg + (size_t)i * s->gd);
  return rc;
}

static int contact_close(nh_sim *s, int gi, int reason, double Eb, double t_limit, double ratio, double vn_check,
                         int rules, int *closed) {
  const int nq = s->nq, nx = s->nx, gd = s->gd, whole = s->form->whole_state;
  int rc;
  *closed = 0;
  if (s->closed[gi] || !s->def.contact) return 0;
  // the trial: closed, projected; it stays closed only if it pushes (a trial that fails
  // numerically, rows that lose rank, does not close and leaves no message)
  const int had_msg = s->msg[0] != 0;
  s->closed[gi] = 1;
  set_active(s);
  memcpy(s->xc, s->x, sizeof(double) * (size_t)nx);
  rc = nh_sim_contact_project(s, s->xc);
  int consistent = 1;
  if (!rc) rc = trial_consistent(s, s->xc, &consistent);
  if (!rc) rc = contact_lambda(s, s->t, s->xc, s->lamt);
  int k = 0;
  while (s->act[k] != gi) k++;
  if (rc == NH_ERR_CALLBACK) { /* a model evaluator failed: the run ends (a singular trial only does not close) */
    s->closed[gi] = 0;
    set_active(s);
    return rc;
  }
  if (!consistent) s->lamt[k] = 0.0; /* the closing would push a gap through its wall: it does not close */
  // vn_check >= 0: only if a bounce at that speed would rise less than the resolution
  if (!rc && s->lamt[k] > 0.0 && vn_check >= 0.0 && (reason = apex_test(s, gi, k, vn_check, rules)) == NH_CONTACT_REST)
    ratio = 0.0; /* the ratio is logged for an accumulation or chatter */
  if (rc || !(s->lamt[k] > 0.0) || !reason) {
    s->closed[gi] = 0;
    set_active(s);
    if (!had_msg) s->msg[0] = 0;
    return 0;
  }
  const double lam = s->lamt[k];
  s->glev[gi] = 0.0;
  if (!s->contact_ok) { /* a contact the method cannot hold: the run ends here */
    s->closed[gi] = 0;
    set_active(s);
    sim_msg(s, "contact '%s' persists at t = %.17g (%s, limit t = %.17g) and method '%s' cannot hold it (a closed-form flow of the free model; every other method can)",
            s->model->gap_names[gi], s->t, nh_contact_reason_name(reason), t_limit, s->def.method->name);
    return NH_ZENO;
  }
  // the closed state's energy and gaps (a failure leaves the state and the contact as they were)
  double Ea;
  int erc = 0;
  if ((erc = rc = energy(s, s->t, s->xc, &Ea)) || (rc = gaps(s, s->xc, s->g1, s->dg))) {
    s->closed[gi] = 0;
    set_active(s);
    sim_msg(s, "closing the contact '%s' at t = %.17g: the %s evaluator failed", s->model->gap_names[gi], s->t,
            erc ? s->form->energy_what : "gap");
    return rc;
  }
  memcpy(s->vtmp, s->x + (whole ? 0 : nq), sizeof(double) * (size_t)gd); /* the velocity (state) before, for the log */
  memcpy(s->x, s->xc, sizeof(double) * (size_t)nx);
  memcpy(s->g0, s->g1, sizeof(double) * (size_t)s->ng);
  new_segment(s, Ea);
  s->st.restart = 1;
  if ((rc = contact_log(s, gi, NH_CONTACT_CLOSE, reason, t_limit, ratio, lam, Eb, Ea))) return rc;
  *closed = 1;
  return open_pulling(s);
}

/* ---- watching and opening ------------------------------------------------------------------ */

/* contact k's multiplier after a partial step of length tau (state in s->xc) */
static int partial_lambda(nh_sim *s, int k, double tau, double *lam) {
  int rc = method_step(s, tau, s->xc, NULL);
  if (rc) return rc > 0 ? NH_ERR_EVENT : rc;
  if ((rc = contact_lambda(s, s->t + tau, s->xc, s->lamt))) return rc;
  *lam = s->lamt[k];
  return 0;
}

int nh_sim_contact_scan(nh_sim *s, double h, const double *xnew, int *ri, double *tau) {
  int rc;
  *ri = -1;
  if ((rc = contact_lambda(s, s->t + h, xnew, s->lamt))) return rc;
  int k = 0;
  while (k < s->nact && s->lamt[k] > 0.0) k++;
  if (k == s->nact) {
    memcpy(s->lamc, s->lamt, sizeof(double) * (size_t)s->nact);
    return 0;
  }
  // the force of contact k crosses zero: locate on partial steps, keep the state just past it
  double l0 = s->lamc[k] > 0.0 ? s->lamc[k] : 1e-300, l1 = s->lamt[k], lo, hi;
  if ((rc = nh_sim_locate_fn(s, partial_lambda, s->model->gap_names[s->act[k]], k, 1.0, 1, 0.0, l0, h, l1, &lo, &hi)))
    return rc;
  if ((rc = method_step(s, hi, s->xc, NULL))) return rc > 0 ? NH_ERR_EVENT : rc;
  if ((rc = contact_lambda(s, s->t + hi, s->xc, s->lamt))) return rc;
  *ri = k;
  *tau = hi;
  return 0;
}

int nh_sim_contact_open(nh_sim *s, int ri, int reason) {
  const int gi = s->act[ri];
  const double lam = s->lamt[ri];
  int rc;
  s->closed[gi] = 0;
  set_active(s);
  s->st.restart = 1;
  if ((rc = contact_log(s, gi, NH_CONTACT_OPEN, reason, s->t, 0.0, lam, s->stats.energy, s->stats.energy))) return rc;
  // the gap starts from its value here (on the wall: not below it)
  if ((rc = gaps(s, s->x, s->g0, NULL))) return rc;
  if (s->g0[gi] < 0.0) s->g0[gi] = 0.0;
  memcpy(s->g1, s->g0, sizeof(double) * (size_t)s->ng);
  return open_pulling(s);
}

/* the rate dg_i v of gap i at the current state into *r (s->dg the gradients there;
 * almost-Poisson: dg_i x', whose evaluation can fail) */
static int normal_rate(nh_sim *s, int i, double *r) {
  return s->form->rate(s, s->x, i, r);
}

/* after an impact on another gap: the closed contacts it sends away open, the others keep
 * the velocity on them (projection) */
int nh_sim_contact_after_impact(nh_sim *s) {
  int rc;
  for (;;) {
    if ((rc = gaps(s, s->x, s->gs, s->dg))) return rc;
    int k = 0;
    for (double r; k < s->nact; k++) {
      if ((rc = normal_rate(s, s->act[k], &r))) return rc;
      if (r > s->def.vn_tol) break;
    }
    if (k == s->nact) break;
    s->lamt[k] = 0.0;
    if ((rc = nh_sim_contact_open(s, k, NH_CONTACT_SEPARATION))) return rc;
  }
  if (s->nact == 0) return 0;
  if ((rc = nh_sim_contact_project(s, s->x))) { /* (negative) */
    sim_msg(s, "projection onto the closed contacts after an impact failed at t = %.17g: %s", s->t,
            nh_status_string(rc));
    return rc;
  }
  return open_pulling(s);
}
