/* lyapunov.c - Benettin's estimate of the largest Lyapunov exponent of a hybrid flow, with a
 * batch-means confidence interval (nholo/lyapunov.h, docs/lyapunov.md).
 *
 * A mechanical model's state and tangent are the augmented mechanical model of augment.c, run
 * by the simulation driver with the model's gaps: its impacts, simultaneous impacts,
 * persistent contacts (closing, held, opening) and guards are those of `nholo run`. The run
 * stops after each impact and after each step in which a contact closed or opened; the
 * saltation of the impact (analysis/tangent.c) or the map of a closing is applied to the
 * tangent part and the run goes on (nh_sim_replace_x: contacts and impact history kept).
 * An ODE-form model's augmented system is the ODE (x, dx)' = (F, J dx). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/msg.h"
#include "la/la.h"
#include "nholo/sim.h"
#include "sim/sim_impl.h" /* nh_sim_replace_x */

#define LYAP_COOKIE 0x4c594150
/* most windows of one estimate (t_end / window) */
#define LYAP_MAX_WINDOWS 100000000L

nh_lyap_def nh_lyap_def_default(void) {
  nh_lyap_def d;
  memset(&d, 0, sizeof d);
  d.rtol = 1e-11;
  d.atol = 1e-13;
  d.t_end = 1000.0;
  d.window = 1.0;
  d.batches = 10;
  d.seed = 1;
  d.vn_tol = 1e-12;
  d.zeno_count = 100;
  d.zeno_interval = 1e-9;
  d.contact = 1;
  d.internal_cookie = LYAP_COOKIE;
  return d;
}

double nh_lyap_student_t975(int dof) {
  static const double t[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                               2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof < 1) return NAN;
  if (dof <= 30) return t[dof - 1];
  /* Cornish-Fisher expansion about the normal quantile (error < 1e-4 from 30 on) */
  const double z = 1.959963984540054, n = dof;
  double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * n * n * n);
}

/* one run of the augmented system */
typedef struct lyap_run {
  nh_tan T;
  nh_tan_aug ga; /* the augmented mechanical model's context (mechanical form) */
  int mech;
  nh_model *aug;
  nh_sim *sim;
  double *X;     /* (2 nx) state and tangent, (x, dx) in nh_tan's order */
  double *Y;     /* (2 nx) the augmented model's state: (q, dq, v, dv) (mechanical), (x, dx) */
  long ncl_done; /* contact records handled */
  long closings;
  double collapsed; /* the time the tangent collapsed (nh_tan_collapsed), or NaN */
  double max_salt;
} lyap_run;

static void run_close(lyap_run *r) {
  nh_sim_destroy(r->sim);
  nh_model_destroy(r->aug);
  nh_tan_aug_free(&r->ga);
  nh_tan_free(&r->T);
  free(r->X);
  free(r->Y);
}

/* (x, dx) <-> the augmented state: (q, v, dq, dv) <-> (q, dq, v, dv) for a mechanical model */
static void to_aug(const lyap_run *r, const double *X, double *Y) {
  const int n = r->T.nq;
  if (!r->mech) {
    memcpy(Y, X, sizeof(double) * (size_t)(2 * r->T.nx));
    return;
  }
  memcpy(Y, X, sizeof(double) * (size_t)n);                 /* q */
  memcpy(Y + n, X + 2 * n, sizeof(double) * (size_t)n);     /* dq */
  memcpy(Y + 2 * n, X + n, sizeof(double) * (size_t)n);     /* v */
  memcpy(Y + 3 * n, X + 3 * n, sizeof(double) * (size_t)n); /* dv */
}
static void from_aug(const lyap_run *r, const double *Y, double *X) {
  const int n = r->T.nq;
  if (!r->mech) {
    memcpy(X, Y, sizeof(double) * (size_t)(2 * r->T.nx));
    return;
  }
  memcpy(X, Y, sizeof(double) * (size_t)n);
  memcpy(X + n, Y + 2 * n, sizeof(double) * (size_t)n);
  memcpy(X + 2 * n, Y + n, sizeof(double) * (size_t)n);
  memcpy(X + 3 * n, Y + 3 * n, sizeof(double) * (size_t)n);
}

/* the augmented model: mechanical (augment.c), run by the driver with the model's gaps and
 * contacts; or, for an ODE-form model (no gaps), the ODE (x, dx)' = (F, J dx) */
static int make_aug(lyap_run *r, const nh_model *m, const nh_lyap_def *d, char *msg, size_t msg_size) {
  if (r->mech) return (r->aug = nh_tan_aug_create(&r->ga, &r->T, d->law, msg, msg_size)) ? NH_OK : NH_ERR_ARG;
  nh_model_def ad = nh_model_def_default();
  ad.name = m->name;
  ad.form = NH_FORM_ODE;
  ad.nx = 2 * m->nx;
  ad.rhs = nh_tan_rhs;
  ad.user = &r->T;
  char sub[256];
  if ((r->aug = nh_model_create(&ad, sub, sizeof sub))) return NH_OK;
  nh_set_msg(msg, msg_size, "the tangent system could not be built: %s", sub);
  return NH_ERR_ARG;
}

static int run_open(lyap_run *r, const nh_model *m, const nh_lyap_def *d, char *msg, size_t msg_size) {
  memset(r, 0, sizeof *r);
  const int nx = m->nx;
  r->mech = m->form == NH_FORM_MECHANICAL;
  int rc = nh_tan_init(&r->T, m, d->law, msg, msg_size);
  if (rc) return rc;
  r->X = calloc((size_t)(2 * nx), sizeof(double));
  r->Y = calloc((size_t)(2 * nx), sizeof(double));
  if (!r->X || !r->Y) {
    nh_set_msg(msg, msg_size, "out of memory");
    return NH_ERR_NOMEM;
  }
  nh_sim_def sd = nh_sim_def_default();
  sd.method = d->method ? d->method : nh_method_find("dop853");
  if (!(sd.method->flags & NH_METHOD_ADAPTIVE)) { /* the state and tangent under one error control */
    nh_set_msg(msg, msg_size, "method '%s': the tangent run needs an adaptive method (dopri5, dop853)", sd.method->name);
    return NH_ERR_ARG;
  }
  if ((rc = make_aug(r, m, d, msg, msg_size))) return rc;
  sd.h = 0.0;
  sd.rtol = d->rtol;
  sd.atol = d->atol;
  sd.h_max = d->h_max;
  sd.vn_tol = d->vn_tol;
  sd.zeno_count = d->zeno_count;
  sd.zeno_interval = d->zeno_interval;
  sd.contact = d->contact;
  sd.cancel = d->cancel;
  sd.log_limit = 2;
  char sub[256];
  if (!(r->sim = nh_sim_create(r->aug, &sd, sub, sizeof sub))) {
    nh_set_msg(msg, msg_size, "the tangent system cannot run: %s", sub);
    return NH_ERR_ARG;
  }
  r->ga.sim = r->sim;
  r->collapsed = NAN;
  return NH_OK;
}

/* the run's tangent part replaced by that of r->X (its state part is the run's) */
static int put_tangent(lyap_run *r, char *msg, size_t msg_size) {
  const int nx = r->T.nx;
  from_aug(r, nh_sim_x(r->sim), r->Y); /* the run's (x, dx) in Y */
  memcpy(r->Y + nx, r->X + nx, sizeof(double) * (size_t)nx);
  to_aug(r, r->Y, r->X);
  int rc = nh_sim_replace_x(r->sim, r->X);
  if (rc) nh_set_msg(msg, msg_size, "%s", nh_sim_message(r->sim));
  from_aug(r, nh_sim_x(r->sim), r->X);
  return rc;
}

/* the run's observer: stop at the end of a step in which a contact closed or opened (the
 * impacts stop the run by its max_impacts) */
static int stop_at_contact(const nh_sim *s, nh_sample_kind kind, double t, const double *q, const double *v,
                           void *user) {
  (void)t, (void)q, (void)v;
  const lyap_run *r = user;
  return kind == NH_SAMPLE_STEP && nh_sim_contact_count(s) != r->ncl_done;
}

/* the contacts closed before the events of this stop (the closed contacts now, the new
 * records undone) into T.act; 1 when gap gi closed at time t among those records */
static int closed_before(lyap_run *r, long ncl, int gi, double t) {
  nh_tan *T = &r->T;
  int closes = 0;
  nh_tan_aug_sync(&r->ga);
  for (long k = ncl - 1; k >= r->ncl_done; k--) {
    nh_contact_record c;
    nh_sim_contact_get(r->sim, k, &c);
    int j = 0;
    while (j < T->nact && T->act[j] != c.gap) j++;
    if (c.kind == NH_CONTACT_CLOSE && j < T->nact) T->act[j] = T->act[--T->nact]; /* was open */
    else if (c.kind == NH_CONTACT_OPEN && j == T->nact) T->act[T->nact++] = c.gap;
    if (c.kind == NH_CONTACT_CLOSE && c.gap == gi && c.t == t) closes = 1;
  }
  return closes;
}

/* The impact of this stop (the run stopped after it): its saltation from the state before it
 * (the record's q and v_before, with the tangent there) to the run's state, the plastic
 * closing map when the contact closed there (an accumulation, or a bounce at rest). A
 * simultaneous impact or an impact against held contacts has no single saltation here. */
static int tangent_impact(lyap_run *r, const nh_lyap_def *d, long ncl, int *own, char *msg, size_t msg_size) {
  const nh_model *m = r->T.m;
  const int n = r->T.nq, nx = r->T.nx;
  nh_impact_record ir;
  int rc = nh_sim_impact_get(r->sim, nh_sim_impact_count(r->sim) - 1, &ir);
  if (rc) return rc;
  if (ir.contacts >= 2) {
    nh_set_msg(msg, msg_size, "simultaneous impact on gaps '%s' and '%s' at t = %.17g: the tangent map is not defined there",
               m->gap_names[ir.contact_gap[0]], m->gap_names[ir.contact_gap[1]], ir.t);
    return NH_ERR_UNSUPPORTED;
  }
  const int close = closed_before(r, ncl, ir.gap, ir.t) || ir.status == NH_CONTACT;
  if (r->T.nact > 0) {
    nh_set_msg(msg, msg_size, "impact on gap '%s' at t = %.17g while the contact '%s' is held: the tangent map of an "
               "impact against held contacts is not derived (a simultaneous impact's)", m->gap_names[ir.gap], ir.t, m->gap_names[r->T.act[0]]);
    return NH_ERR_UNSUPPORTED;
  }
  // X = (q, v-, dq, dv-) before the impact (the augmented record: q = (q, dq), v = (v, dv))
  memcpy(r->X, ir.q, sizeof(double) * (size_t)n), memcpy(r->X + nx, ir.q + n, sizeof(double) * (size_t)n);
  memcpy(r->X + n, ir.v_before, sizeof(double) * (size_t)n), memcpy(r->X + nx + n, ir.v_before + n, sizeof(double) * (size_t)n);
  double gain;
  if ((rc = nh_tan_impact(&r->T, ir.gap, ir.t, d->vn_tol, close, r->X, &gain))) {
    nh_set_msg(msg, msg_size, "impact on gap '%s' at t = %.17g: %s", m->gap_names[ir.gap], ir.t,
               rc == NH_NO_IMPACT ? "the tangent run saw no impact" : nh_status_string(rc));
    return rc > 0 ? NH_ERR_EVENT : rc;
  }
  if (gain > r->max_salt) r->max_salt = gain;
  r->closings += close;
  *own = close ? ir.gap : -1;
  return put_tangent(r, msg, msg_size);
}

/* after a stop of the run: the impact's saltation, then the contacts that closed at a graze
 * (nh_tan_close_graze); a contact opens where its force is 0, where the vector field is
 * continuous: the tangent crosses unchanged */
static int run_events(lyap_run *r, const nh_lyap_def *d, long imp0, char *msg, size_t msg_size) {
  const long ncl = nh_sim_contact_count(r->sim);
  const double t = nh_sim_time(r->sim);
  int rc, own = -1;
  if (nh_sim_get_stats(r->sim)->impacts > imp0 && (rc = tangent_impact(r, d, ncl, &own, msg, msg_size))) return rc;
  for (long k = r->ncl_done; k < ncl; k++) {
    nh_contact_record c;
    nh_sim_contact_get(r->sim, k, &c);
    if (c.kind != NH_CONTACT_CLOSE || c.gap == own) continue;
    double gain;
    from_aug(r, nh_sim_x(r->sim), r->X);
    if ((rc = nh_tan_close_graze(&r->T, c.gap, r->X, &gain))) {
      nh_set_msg(msg, msg_size, "contact '%s' closing at t = %.17g: %s", r->T.m->gap_names[c.gap], t, nh_status_string(rc));
      return rc;
    }
    r->closings++;
    if ((rc = put_tangent(r, msg, msg_size))) return rc;
  }
  r->ncl_done = ncl;
  // the held contacts leave no free direction: every nearby orbit comes to this rest, the
  // tangent is 0 from here (exactly: a linear map of 0) whatever the run does next
  nh_tan_aug_sync(&r->ga);
  if (ncl > 0 && isnan(r->collapsed) && (rc = nh_tan_collapsed(&r->T, nh_sim_x(r->sim))) != 0) {
    if (rc < 0) return rc;
    r->collapsed = t;
    memset(r->X + r->T.nx, 0, sizeof(double) * (size_t)r->T.nx);
    return put_tangent(r, msg, msg_size);
  }
  return NH_OK;
}

/* integrate to t_target through every impact and contact event; X holds the final (x, dx) */
static int run_to(lyap_run *r, double t_target, const nh_lyap_def *d, char *msg, size_t msg_size) {
  for (;;) {
    const long imp0 = nh_sim_get_stats(r->sim)->impacts;
    int rc = nh_sim_run(r->sim, t_target, r->mech ? imp0 + 1 : 0, r->mech ? stop_at_contact : NULL, r);
    if (rc == NH_INTERRUPTED) {
      nh_set_msg(msg, msg_size, "interrupted at t = %.17g: the estimate covers the windows before", nh_sim_time(r->sim));
      return rc;
    }
    if (rc != NH_OK && rc != NH_STOPPED) {
      nh_set_msg(msg, msg_size, "the tangent run stopped at t = %.17g: %s (%s)", nh_sim_time(r->sim),
                 nh_status_string(rc), nh_sim_message(r->sim));
      return rc;
    }
    if (r->mech && (rc = run_events(r, d, imp0, msg, msg_size))) return rc;
    if (!(nh_sim_time(r->sim) < t_target)) break;
  }
  from_aug(r, nh_sim_x(r->sim), r->X);
  return NH_OK;
}

static int check_def(const nh_model *m, const nh_lyap_def *d, char *msg, size_t msg_size) {
  if (!m || !d || d->internal_cookie != LYAP_COOKIE) {
    nh_set_msg(msg, msg_size, "no model, or options not from nh_lyap_def_default");
    return NH_ERR_ARG;
  }
  if (m->form == NH_FORM_MECHANICAL && m->ngap > 0 && !m->gap) {
    nh_set_msg(msg, msg_size, "model '%s' has gaps but no gap evaluator", m->name);
    return NH_ERR_ARG;
  }
  if (!(d->rtol > 0.0) || !(d->atol > 0.0) || !(d->h_max >= 0.0) || !(d->vn_tol >= 0.0) || d->zeno_count < 2 ||
      !(d->zeno_interval >= 0.0) || (d->contact != 0 && d->contact != 1)) {
    nh_set_msg(msg, msg_size, "tolerances must be positive (rtol %g, atol %g, h_max %g, vn_tol %g, zeno %d), contact 0 or 1",
               d->rtol, d->atol, d->h_max, d->vn_tol, d->zeno_count);
    return NH_ERR_ARG;
  }
  return NH_OK;
}

/* the run's impacts (what = 0: accumulations resolved by a closing included, as `nholo run`
 * counts them) or grazes (1) so far */
static long run_count(const lyap_run *r, int what) {
  if (!r->sim) return 0;
  const nh_sim_stats *st = nh_sim_get_stats(r->sim);
  return what == 0 ? st->impacts : st->grazing;
}

/* the run from r->X at t = 0 (the driver takes an initial state on a wall as `nholo run` does) */
static int set_initial(lyap_run *r, char *msg, size_t msg_size) {
  to_aug(r, r->X, r->Y);
  int rc = nh_sim_set_state_x(r->sim, 0.0, r->Y);
  if (rc < 0) {
    nh_set_msg(msg, msg_size, "initial state: %s", nh_sim_message(r->sim));
    return rc;
  }
  r->ncl_done = 0;
  return NH_OK;
}

/* splitmix64: the initial tangent's random direction */
static double mix_uniform(unsigned long long *s) {
  unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* the initial augmented state: x0 and the unit tangent (given, or random and admissible) */
static int initial_state(lyap_run *r, const nh_model *m, const nh_lyap_def *d, const double *x0,
                         char *msg, size_t msg_size) {
  const int nx = m->nx;
  double *X = r->X, *dx = X + nx;
  memcpy(X, x0 ? x0 : m->x0, sizeof(double) * (size_t)nx);
  if (d->dx0) {
    memcpy(dx, d->dx0, sizeof(double) * (size_t)nx);
  } else {
    unsigned long long s = d->seed;
    for (int i = 0; i < nx; i++) dx[i] = mix_uniform(&s);
    int rc = nh_tan_admissible(&r->T, X, dx);
    if (rc) {
      nh_set_msg(msg, msg_size, "the initial tangent could not be made admissible: %s", nh_status_string(rc));
      return rc;
    }
  }
  double n = nh_la_norm2(nx, dx);
  if (!(n > 0.0) || !isfinite(n)) {
    nh_set_msg(msg, msg_size, "the initial tangent is zero or not finite");
    return NH_ERR_ARG;
  }
  nh_la_scale(nx, 1.0 / n, dx);
  return set_initial(r, msg, msg_size);
}

/* the half-width of the batch-means interval over the first n windows (prefix sums S) */
static double batch_half_width(const double *S, long n, int B, double W) {
  long mlen = n / B;
  if (mlen < 1) return NAN;
  double mean = 0.0, ss = 0.0, lb[NH_LYAP_MAX_BATCHES];
  for (int b = 0; b < B; b++) {
    lb[b] = (S[(b + 1) * mlen] - S[b * mlen]) / ((double)mlen * W);
    mean += lb[b];
  }
  mean /= B;
  for (int b = 0; b < B; b++) ss += (lb[b] - mean) * (lb[b] - mean);
  return nh_lyap_student_t975(B - 1) * sqrt(ss / (B - 1) / B);
}

/* renormalise the tangent at the end of a window: its log growth (the run goes on from there,
 * its contacts and impact history kept) */
static int renormalise(lyap_run *r, double t, double *lg, char *msg, size_t msg_size) {
  const int nx = r->T.nx;
  double n = nh_la_norm2(nx, r->X + nx);
  if (!(n > 0.0) || !isfinite(n)) {
    nh_set_msg(msg, msg_size, "the tangent vanished or overflowed by t = %.17g (a shorter window)", t);
    return NH_ERR_NONFINITE;
  }
  *lg = log(n);
  nh_la_scale(nx, 1.0 / n, r->X + nx);
  return put_tangent(r, msg, msg_size);
}

int nh_lyapunov(const nh_model *model, const nh_lyap_def *def, const double *x0,
                nh_lyap_observer_fn observer, void *user, nh_lyap_result *res, char *msg,
                size_t msg_size) {
  nh_lyap_result rs;
  memset(&rs, 0, sizeof rs);
  rs.last.half_width = NAN;
  int rc = check_def(model, def, msg, msg_size);
  const double W = def ? def->window : 0.0;
  if (rc == NH_OK && (!(def->t_end > 0.0) || !(W > 0.0) || !(def->transient >= 0.0) ||
                      def->batches < 2 || def->batches > NH_LYAP_MAX_BATCHES ||
                      def->t_end / W > (double)LYAP_MAX_WINDOWS || def->transient / W > (double)LYAP_MAX_WINDOWS)) {
    nh_set_msg(msg, msg_size, "need t_end > 0, window > 0, transient >= 0, batches in [2, %d] and at most %ld windows",
               NH_LYAP_MAX_BATCHES, LYAP_MAX_WINDOWS);
    rc = NH_ERR_ARG;
  }
  if (rc) {
    rs.status = rc;
    if (res) *res = rs;
    return rc;
  }
  const long k0 = (long)ceil(def->transient / W), N = (long)ceil(def->t_end / W - 1e-9);
  lyap_run r;
  double *S = calloc((size_t)N + 1, sizeof(double));
  rc = run_open(&r, model, def, msg, msg_size);
  if (!S && rc == NH_OK) rc = NH_ERR_NOMEM, nh_set_msg(msg, msg_size, "out of memory");
  if (rc == NH_OK) rc = initial_state(&r, model, def, x0, msg, msg_size);
  for (long k = 1; rc == NH_OK && k <= k0 + N; k++) {
    double lg;
    if ((rc = run_to(&r, (double)k * W, def, msg, msg_size))) break;
    if (!isnan(r.collapsed)) { /* the estimate ends before this window */
      nh_set_msg(msg, msg_size, "the tangent collapsed at t = %.17g: the held contacts leave the bodies no free direction "
                 "(every nearby orbit comes to this rest, the exponent is -inf from there); the estimate covers the "
                 "windows before it", r.collapsed);
      rc = NH_CONTACT;
      break;
    }
    if ((rc = renormalise(&r, (double)k * W, &lg, msg, msg_size))) break;
    if (k <= k0) continue;
    long j = k - k0;
    S[j] = S[j - 1] + lg;
    rs.last = (nh_lyap_point){(double)j * W, j, S[j] / ((double)j * W), batch_half_width(S, j, def->batches, W),
                              lg, run_count(&r, 0), run_count(&r, 1)};
    if (observer && observer(&rs.last, user)) {
      rc = NH_STOPPED;
      nh_set_msg(msg, msg_size, "stopped by the observer at t = %.17g", (double)k * W);
    }
  }
  rs.status = rc;
  rs.t_stop = r.sim ? nh_sim_time(r.sim) : 0.0;
  rs.max_salt = r.max_salt;
  rs.contacts = r.closings;
  rs.last.impacts = run_count(&r, 0);
  rs.last.grazing = run_count(&r, 1);
  run_close(&r);
  free(S);
  if (res) *res = rs;
  return rc;
}

int nh_lyap_propagate(const nh_model *model, const nh_lyap_def *def, const double *x0,
                      const double *dx0, double t, double *x, double *dx, long *impacts,
                      char *msg, size_t msg_size) {
  int rc = check_def(model, def, msg, msg_size);
  if (rc == NH_OK && (!dx0 || !x || !dx || !(t >= 0.0))) {
    nh_set_msg(msg, msg_size, "propagate needs dx0, x, dx and t >= 0");
    rc = NH_ERR_ARG;
  }
  if (rc) return rc;
  lyap_run r;
  rc = run_open(&r, model, def, msg, msg_size);
  if (rc == NH_OK) {
    const int nx = model->nx;
    memcpy(r.X, x0 ? x0 : model->x0, sizeof(double) * (size_t)nx);
    memcpy(r.X + nx, dx0, sizeof(double) * (size_t)nx);
    rc = set_initial(&r, msg, msg_size);
  }
  if (rc == NH_OK && (rc = run_to(&r, t, def, msg, msg_size)) == NH_OK) {
    memcpy(x, r.X, sizeof(double) * (size_t)model->nx);
    memcpy(dx, r.X + model->nx, sizeof(double) * (size_t)model->nx);
  }
  if (impacts) *impacts = run_count(&r, 0);
  run_close(&r);
  return rc;
}
