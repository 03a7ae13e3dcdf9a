/* monitors.c - the monitors' events inside a step (nholo/model.h: a direction and an action):
 * scanned on the step kept so far like the gaps (dense samples, the step end, the graze search
 * of locate.c where a counted monitor's slope turns), confirmed on partial steps and located by
 * the same regula falsi (nh_sim_locate_fn); then the event log. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_impl.h"

#define NH_MON_SLOPE_FRAC 1e-4 /* fraction of the step over which a monitor's slope is taken */

/* room for one more event; at log_limit the latest replaces the previous latest */
static int event_reserve(nh_sim *s) {
  if (s->def.log_limit > 0 && s->nev >= s->def.log_limit) s->nev = s->def.log_limit - 1;
  if (s->nev < s->capev) return 0;
  long cap = s->capev ? 2 * s->capev : 16;
  if (s->def.log_limit > 0 && cap > s->def.log_limit) cap = s->def.log_limit;
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

/* monitor i after a partial step of length tau (state in s->xm) */
static int partial_monitor(nh_sim *s, int i, double tau, double *m) {
  int rc = method_step(s, tau, s->xm, NULL);
  if (rc) return rc > 0 ? NH_ERR_EVENT : rc;
  if ((rc = monitors(s, s->t + tau, s->xm, s->mc))) return rc;
  *m = s->mc[i];
  return 0;
}

/* monitor i on the dense output (state in s->xd, every monitor in s->ms) */
static int dense_monitor(nh_sim *s, int i, double th, const double *x1, double h, double *m) {
  int rc = method_dense(s, th, x1, s->xd);
  if (rc) return rc > 0 ? NH_ERR_EVENT : rc;
  if ((rc = monitors(s, s->t + th * h, s->xd, s->ms))) return rc;
  *m = s->ms[i];
  return 0;
}

/* a sign change of a monitor from a to b that its direction counts (a = 0: no sign yet) */
static int mon_crossing(double a, double b, nh_monitor_dir dir) {
  int fall = a > 0.0 && b <= 0.0, rise = a < 0.0 && b >= 0.0;
  if (dir == NH_MONITOR_NONE) return 0; /* a value only */
  return dir == NH_MONITOR_FALLING ? fall : dir == NH_MONITOR_RISING ? rise : (fall || rise);
}

/* slopes sl of the monitors along the dense output at the fraction th (values m there): a
 * difference over NH_MON_SLOPE_FRAC of the step, backward except at the step start */
static int mon_slopes(nh_sim *s, double th, const double *x1, double h, const double *m, double *sl) {
  const double dth = th > 0.0 ? -NH_MON_SLOPE_FRAC : NH_MON_SLOPE_FRAC;
  double v;
  int rc = dense_monitor(s, 0, th + dth, x1, h, &v);
  if (rc) return rc;
  for (int i = 0; i < s->nmon; i++) sl[i] = (s->ms[i] - m[i]) / dth;
  return 0;
}

/* Find the first counted monitor crossing inside the step the method took last (x -> xnew
 * over h). On return *mi is the monitor (-1 if none), *dir its direction (+1 rising, -1
 * falling) and *tau the time just past the
 * crossing, with that state left in s->xm (and the method's last step being x -> s->xm). */
int nh_sim_scan_monitors(nh_sim *s, double h, double *xnew, int *mi, int *dir, double *tau) {
  const nh_model *m = s->model;
  const int nm = s->nmon, ns = s->def.event_samples;
  int rc, counted = 0;
  *mi = -1;
  if (nm == 0) return 0;
  for (int i = 0; i < nm; i++) counted |= m->monitors[i].direction != NH_MONITOR_NONE;
  double th_prev = 0.0;
  memcpy(s->mp, s->m0, sizeof(double) * (size_t)nm);
  // the slopes at the samples show where a counted monitor turns (for grazes)
  if (counted && (rc = mon_slopes(s, 0.0, xnew, h, s->m0, s->msp))) return rc;
  for (int j = 1; j <= ns + 1; j++) {
    double th = (double)j / (ns + 1);
    const double *xc = xnew;
    if (j <= ns) {
      if ((rc = method_dense(s, th, xnew, s->xd))) return rc > 0 ? NH_ERR_EVENT : rc;
      xc = s->xd;
    }
    if ((rc = monitors(s, s->t + th * h, xc, s->mc))) return rc;
    if (counted && (rc = mon_slopes(s, th, xnew, h, s->mc, s->msc))) return rc;
    // earliest counted crossing in (th_prev, th] by its linear root
    int best = -1;
    double best_frac = 2.0;
    for (int i = 0; i < nm; i++) {
      double a = s->mp[i], b = s->mc[i];
      if (mon_crossing(a, b, m->monitors[i].direction) && a / (a - b) < best_frac)
        best_frac = a / (a - b), best = i;
    }
    // its bracket [th_lo, th_hi], phi = sgn m > 0 on the starting side
    double th_lo = th_prev, th_hi = th, sgn = best >= 0 && s->mp[best] < 0.0 ? -1.0 : 1.0;
    // no crossing: look for a graze (the first monitor whose slope turns back towards zero
    // between samples on one side, and whose minimum of sgn m on the dense output is past it)
    for (int i = 0; best < 0 && counted && i < nm; i++) {
      const nh_monitor_dir md = m->monitors[i].direction;
      const double a = s->mp[i], b = s->mc[i], sg = a > 0.0 ? 1.0 : -1.0;
      if (md == NH_MONITOR_NONE || !((a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0))) continue;
      if (!(sg * s->msp[i] < 0.0 && sg * s->msc[i] > 0.0)) continue;
      double th_ext, v;
      if ((rc = nh_sim_dense_min(s, dense_monitor, i, sg, 1, xnew, h, th_prev, th, &th_ext, &v))) return rc;
      if (!(v <= 0.0)) continue;
      best = i;
      // the first of the two crossings if it is counted (a graze of a falling monitor from
      // above: down, then up), else the second (from below: up, then down)
      if (mon_crossing(a, -a, md)) th_hi = th_ext, sgn = sg;
      else th_lo = th_ext, sgn = -sg;
    }
    memcpy(s->mp, s->mc, sizeof(double) * (size_t)nm);
    if (best >= 0) {
      // confirm on genuine partial steps, then locate
      double lo = th_lo * h, hi = th_hi * h, mlo = s->m0[best], mhi, tlo;
      if (lo > 0.0 && (rc = partial_monitor(s, best, lo, &mlo))) return rc;
      if ((rc = partial_monitor(s, best, hi, &mhi))) return rc;
      if (mon_crossing(mlo, mhi, m->monitors[best].direction) && sgn * mlo > 0.0) {
        if ((rc = nh_sim_locate_fn(s, partial_monitor, m->monitors[best].name, best, sgn, 1, lo, sgn * mlo,
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
    memcpy(s->msp, s->msc, sizeof(double) * (size_t)nm);
    th_prev = th;
  }
  return 0;
}

/* log monitor mi's event at the current state */
int nh_sim_log_event(nh_sim *s, int mi, int dir, int stopped) {
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
