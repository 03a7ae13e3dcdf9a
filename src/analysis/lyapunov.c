/* lyapunov.c - Benettin's estimate of the largest Lyapunov exponent of a hybrid flow, with a
 * batch-means confidence interval (nholo/lyapunov.h, docs/lyapunov.md).
 *
 * The augmented system (x, dx) is an ODE-form model whose monitors are the gaps (falling,
 * stop): the simulation driver integrates it with the chosen method and stops at each located
 * crossing; the impact and its saltation are applied here (analysis/tangent.c) and the run
 * resumes from the new state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/msg.h"
#include "la/la.h"
#include "nholo/sim.h"

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
  nh_model *aug;
  nh_sim *sim;
  double *X; /* (2 nx) */
  nh_monitor_def *mons;
  double *g; /* (ngap) gap values */
  long impacts, grazing;
  int zeno_run;
  double t_last, max_salt;
} lyap_run;

static void run_close(lyap_run *r) {
  nh_sim_destroy(r->sim);
  nh_model_destroy(r->aug);
  nh_tan_free(&r->T);
  free(r->X);
  free(r->mons);
  free(r->g);
}

static int run_open(lyap_run *r, const nh_model *m, const nh_lyap_def *d, char *msg, size_t msg_size) {
  memset(r, 0, sizeof *r);
  const int mech = m->form == NH_FORM_MECHANICAL, ng = mech ? m->ngap : 0, nx = m->nx;
  int rc = nh_tan_init(&r->T, m, d->law, msg, msg_size);
  if (rc) return rc;
  r->X = calloc((size_t)(2 * nx), sizeof(double));
  r->mons = calloc((size_t)(ng > 0 ? ng : 1), sizeof *r->mons);
  r->g = calloc((size_t)(ng > 0 ? ng : 1), sizeof(double));
  if (!r->X || !r->mons || !r->g) {
    nh_set_msg(msg, msg_size, "out of memory");
    return NH_ERR_NOMEM;
  }
  for (int i = 0; i < ng; i++)
    r->mons[i] = (nh_monitor_def){m->gap_names[i], NH_MONITOR_FALLING, NH_MONITOR_STOP};
  nh_model_def ad = nh_model_def_default();
  ad.name = m->name;
  ad.form = NH_FORM_ODE;
  ad.nx = 2 * nx;
  ad.rhs = nh_tan_rhs;
  ad.nmon = ng;
  ad.monitors = ng > 0 ? r->mons : NULL;
  ad.monitor = ng > 0 ? nh_tan_monitor : NULL;
  ad.user = &r->T;
  char sub[256];
  if (!(r->aug = nh_model_create(&ad, sub, sizeof sub))) {
    nh_set_msg(msg, msg_size, "the tangent system could not be built: %s", sub);
    return NH_ERR_ARG;
  }
  nh_sim_def sd = nh_sim_def_default();
  sd.method = d->method ? d->method : nh_method_find("dop853");
  sd.h = 0.0;
  sd.rtol = d->rtol;
  sd.atol = d->atol;
  sd.h_max = d->h_max;
  sd.log_limit = 2;
  if (!(r->sim = nh_sim_create(r->aug, &sd, sub, sizeof sub))) {
    nh_set_msg(msg, msg_size, "the tangent system cannot run: %s", sub);
    return NH_ERR_ARG;
  }
  return NH_OK;
}

/* one impact on gap `gap` at the current augmented state X: the law and the saltation, the
 * counters and the Zeno guard */
static int apply_impact(lyap_run *r, const nh_lyap_def *d, int gap, double t, char *msg, size_t msg_size) {
  const nh_model *m = r->T.m;
  double gain;
  int rc = nh_tan_impact(&r->T, gap, t, d->vn_tol, r->X, &gain);
  if (rc == NH_NO_IMPACT) {
    r->grazing++;
    return NH_OK;
  }
  if (rc != NH_OK) {
    nh_set_msg(msg, msg_size, "impact on gap '%s' at t = %.17g: %s", m->gap_names[gap], t, nh_status_string(rc));
    return rc;
  }
  r->impacts++;
  if (gain > r->max_salt) r->max_salt = gain;
  r->zeno_run = r->impacts > 1 && t - r->t_last < d->zeno_interval ? r->zeno_run + 1 : 1;
  r->t_last = t;
  if (r->zeno_run >= d->zeno_count) {
    nh_set_msg(msg, msg_size, "Zeno: %d impacts closer than %g s before t = %.17g", r->zeno_run, d->zeno_interval, t);
    return NH_ZENO;
  }
  return NH_OK;
}

/* Gaps at or behind their wall (g <= 0) and approaching (dg v < -vn_tol) at X: a monitor there
 * has no sign (or the wrong one), so the driver would let the state through. One such gap is
 * an impact now (then look again: Newton's cradle propagates so); two at once are a
 * simultaneous impact, whose tangent map is not defined. */
static int settle(lyap_run *r, const nh_lyap_def *d, double t, char *msg, size_t msg_size) {
  const nh_model *m = r->T.m;
  const int nq = r->T.nq;
  if (nq == 0 || m->ngap == 0) return NH_OK;
  for (int pass = 0; pass <= d->zeno_count; pass++) {
    int hit = -1, other = -1, rc;
    if (m->gap(r->X, r->g, r->T.dg, m->user)) return NH_ERR_CALLBACK;
    for (int j = 0; j < m->ngap; j++)
      if (r->g[j] <= 0.0 && nh_la_dot(nq, r->T.dg + (size_t)j * nq, r->X + nq) < -d->vn_tol) {
        if (hit < 0)
          hit = j;
        else if (other < 0)
          other = j;
      }
    if (hit < 0) return NH_OK;
    if (other >= 0) {
      nh_set_msg(msg, msg_size,
                 "simultaneous impact on gaps '%s' and '%s' at t = %.17g: the tangent map is not defined there",
                 m->gap_names[hit], m->gap_names[other], t);
      return NH_ERR_UNSUPPORTED;
    }
    if ((rc = apply_impact(r, d, hit, t, msg, msg_size))) return rc;
  }
  nh_set_msg(msg, msg_size, "more than %d impacts at t = %.17g", d->zeno_count, t);
  return NH_ZENO;
}

/* one located crossing: the impact and its saltation (or a graze), then any contact it closes */
static int run_impact(lyap_run *r, const nh_lyap_def *d, char *msg, size_t msg_size) {
  nh_event_record ev;
  int rc = nh_sim_event_get(r->sim, nh_sim_event_count(r->sim) - 1, &ev);
  if (rc) return rc;
  memcpy(r->X, nh_sim_x(r->sim), sizeof(double) * (size_t)(2 * r->T.nx));
  long before = r->impacts;
  if ((rc = apply_impact(r, d, ev.monitor, ev.t, msg, msg_size))) return rc;
  if (r->impacts == before) return NH_OK; /* a graze: the run goes on as it is */
  if ((rc = settle(r, d, ev.t, msg, msg_size))) return rc;
  return nh_sim_set_state_x(r->sim, ev.t, r->X);
}

/* integrate to t_target through every impact; X holds the final augmented state */
static int run_to(lyap_run *r, double t_target, const nh_lyap_def *d, char *msg, size_t msg_size) {
  for (;;) {
    int rc = nh_sim_run(r->sim, t_target, 0, NULL, NULL);
    if (rc == NH_OK) break;
    if (rc != NH_EVENT_STOP) {
      nh_set_msg(msg, msg_size, "the tangent run stopped at t = %.17g: %s (%s)", nh_sim_time(r->sim),
                 nh_status_string(rc), nh_sim_message(r->sim));
      return rc;
    }
    if ((rc = run_impact(r, d, msg, msg_size))) return rc;
  }
  memcpy(r->X, nh_sim_x(r->sim), sizeof(double) * (size_t)(2 * r->T.nx));
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
      !(d->zeno_interval >= 0.0)) {
    nh_set_msg(msg, msg_size, "tolerances must be positive (rtol %g, atol %g, h_max %g, vn_tol %g, zeno %d)",
               d->rtol, d->atol, d->h_max, d->vn_tol, d->zeno_count);
    return NH_ERR_ARG;
  }
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
  int rc = settle(r, d, 0.0, msg, msg_size);
  if (rc) return rc;
  rc = nh_sim_set_state_x(r->sim, 0.0, X);
  if (rc) nh_set_msg(msg, msg_size, "initial state: %s", nh_sim_message(r->sim));
  return rc;
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

/* renormalise the tangent at the end of a window: its log growth */
static int renormalise(lyap_run *r, double t, double *lg, char *msg, size_t msg_size) {
  const int nx = r->T.nx;
  double n = nh_la_norm2(nx, r->X + nx);
  if (!(n > 0.0) || !isfinite(n)) {
    nh_set_msg(msg, msg_size, "the tangent vanished or overflowed by t = %.17g (a shorter window)", t);
    return NH_ERR_NONFINITE;
  }
  *lg = log(n);
  nh_la_scale(nx, 1.0 / n, r->X + nx);
  return nh_sim_set_state_x(r->sim, t, r->X);
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
    if ((rc = run_to(&r, (double)k * W, def, msg, msg_size)) || (rc = renormalise(&r, (double)k * W, &lg, msg, msg_size)))
      break;
    if (k <= k0) continue;
    long j = k - k0;
    S[j] = S[j - 1] + lg;
    rs.last = (nh_lyap_point){(double)j * W, j, S[j] / ((double)j * W), batch_half_width(S, j, def->batches, W),
                              lg, r.impacts, r.grazing};
    if (observer && observer(&rs.last, user)) {
      rc = NH_STOPPED;
      nh_set_msg(msg, msg_size, "stopped by the observer at t = %.17g", (double)k * W);
    }
  }
  rs.status = rc;
  rs.t_stop = r.sim ? nh_sim_time(r.sim) : 0.0;
  rs.max_salt = r.max_salt;
  rs.last.impacts = r.impacts;
  rs.last.grazing = r.grazing;
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
    if ((rc = settle(&r, def, 0.0, msg, msg_size)) == NH_OK && (rc = nh_sim_set_state_x(r.sim, 0.0, r.X))) nh_set_msg(msg, msg_size, "initial state: %s", nh_sim_message(r.sim));
  }
  if (rc == NH_OK && (rc = run_to(&r, t, def, msg, msg_size)) == NH_OK) {
    memcpy(x, r.X, sizeof(double) * (size_t)model->nx);
    memcpy(dx, r.X + model->nx, sizeof(double) * (size_t)model->nx);
  }
  if (impacts) *impacts = r.impacts;
  run_close(&r);
  return rc;
}
