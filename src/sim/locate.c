/* locate.c - the first stage of the impact pipeline (resolve.c lists them): the crossings of
 * the gaps inside a step, detected by their sign at dense-output samples and at the step end,
 * and by grazes (a crossing in and out between two samples: where the slope turns back towards
 * zero, one golden-section search, nh_sim_dense_min, for the minimum on the dense output; gap
 * slopes are dg.v, or dg.x' in first-order form), then located by regula falsi on genuine
 * partial steps of the method (nh_sim_locate_fn, which the monitors use too, monitors.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_impl.h"

#define NH_EVENT_MAX_ITER 200 /* regula falsi iterations before NH_ERR_EVENT */
#define NH_GRAZE_ITER 40      /* golden-section iterations when looking for a graze */
#define NH_EVENT_RELOCATE_MAX 64 /* earlier crossings located in turn within one step (earliest_crossing) */

/* gap i after a partial step of length tau (state in s->xe) */
static int partial_gap(nh_sim *s, int i, double tau, double *g) {
  int rc = method_step(s, tau, s->xe, NULL);
  if (rc) return rc > 0 ? NH_ERR_EVENT : rc;
  if ((rc = gaps(s, s->xe, s->gs, NULL))) return rc;
  *g = s->gs[i] - s->glev[i];
  return 0;
}

void nh_sim_graze_level(nh_sim *s, int gi) {
  const int nq = s->gd; /* the gradient's length: nq, or nx (almost-Poisson form) */
  s->glev[gi] = fmin(s->g1[gi], 0.0) - gap_rounding(NH_CONTACT_APEX_REL, nq, s->x, s->dg + (size_t)gi * nq);
}

typedef nh_sim_partial_fn partial_fn;

/* Illinois regula falsi for phi(tau) = sgn f_i(step(x, tau)) (f a gap or a monitor) on
 * [lo, hi] with phi(lo) >= 0 > phi(hi) (strict: phi(lo) > 0 >= phi(hi)); returns both ends
 * of the final bracket: *tau_lo on the starting side, *tau_hi past the crossing. */
int nh_sim_locate_fn(nh_sim *s, partial_fn f, const char *name, int i, double sgn, int strict,
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
  return nh_sim_locate_fn(s, partial_gap, s->model->gap_names[i], i, 1.0, 0, lo, glo, hi, ghi, tau, &tau_hi);
}

/* After gap *best was located at *tau (its admissible end): another open gap may have crossed
 * before it in the same sample interval (the linear roots of the samples order crossings only
 * to O(interval^2): a stack's floor and the ball on it). Every open gap is checked at the
 * located state; one past its level there that was not at the step start crossed earlier and
 * is located on [0, *tau] instead, until none is (each round moves the crossing earlier). The
 * method's step to the final *tau is left in s->xe (when *tau > 0). */
static int earliest_crossing(nh_sim *s, int *best, double *tau) {
  const double *lev = s->glev;
  int rc;
  for (int round = 0; *tau > 0.0; round++) {
    double gt;
    if ((rc = partial_gap(s, *best, *tau, &gt))) return rc;
    int j = -1;
    double frac = 2.0;
    for (int i = 0; i < s->ng; i++) {
      const double a = s->g0[i] - lev[i], b = s->gs[i] - lev[i];
      if (i == *best || (s->nact > 0 && s->closed[i])) continue;
      if (a >= 0.0 && b < 0.0 && a / (a - b) < frac) frac = a / (a - b), j = i;
    }
    if (j < 0) return 0;
    if (round >= NH_EVENT_RELOCATE_MAX) {
      sim_msg(s, "event location: gaps '%s' and '%s' still cross in turn after %d re-locations near t = %.17g",
              s->model->gap_names[*best], s->model->gap_names[j], NH_EVENT_RELOCATE_MAX, s->t + *tau);
      return NH_ERR_EVENT;
    }
    const double ghi = s->gs[j] - lev[j];
    if ((rc = locate(s, j, 0.0, s->g0[j] - lev[j], *tau, ghi, tau))) return rc;
    *best = j;
  }
  return 0;
}

/* gap slopes dg_i . v at the state x (uses s->dg as scratch); almost-Poisson form: dg_i . x' */
static int slopes(nh_sim *s, const double *x, double *sl) {
  int rc = gaps(s, x, NULL, s->dg);
  if (rc) return rc;
  const double *v = x + s->nq;
  if (s->form->whole_state) { /* the gaps' rates along x' */
    if ((rc = nh_dyn_rhs(&s->dyn, s->t, x, s->fx))) { /* (a state inside the step: nothing to retry) */
      sim_msg(s, "the vector field failed near t = %.17g (the gaps' rates): %s", s->t,
              rc < 0 ? nh_status_string(rc) : "a positive return: infeasible state");
      return rc < 0 ? rc : NH_ERR_CALLBACK;
    }
    v = s->fx;
  }
  for (int i = 0; i < s->ng; i++) sl[i] = nh_la_dot(s->gd, s->dg + (size_t)i * s->gd, v);
  return 0;
}

/* gap i on the dense output (state in s->xd) */
static int dense_gap(nh_sim *s, int i, double th, const double *x1, double h, double *g) {
  (void)h;
  int rc;
  if ((rc = method_dense(s, th, x1, s->xd)) || (rc = gaps(s, s->xd, s->gs, NULL))) return rc > 0 ? NH_ERR_EVENT : rc;
  *g = s->gs[i];
  return 0;
}

/* the graze search: minimum of sgn f_i on the dense output over [a, b] (fractions of the last
 * step), golden section to NH_GRAZE_ITER iterations; stops early once the value is past zero
 * (< 0; strict: <= 0) */
int nh_sim_dense_min(nh_sim *s, nh_sim_dense_fn f, int i, double sgn, int strict, const double *x1, double h, double a,
                     double b, double *th_min, double *v_min) {
  const double r = 0.6180339887498949;
  double c = b - r * (b - a), d = a + r * (b - a), vc, vd;
  int rc;
  if ((rc = f(s, i, c, x1, h, &vc)) || (rc = f(s, i, d, x1, h, &vd))) return rc;
  vc *= sgn, vd *= sgn;
  for (int it = 0; it < NH_GRAZE_ITER && (strict ? vc > 0.0 && vd > 0.0 : vc >= 0.0 && vd >= 0.0); it++) {
    if (vc < vd) {
      b = d, d = c, vd = vc, c = b - r * (b - a);
      if ((rc = f(s, i, c, x1, h, &vc))) return rc;
      vc *= sgn;
    } else {
      a = c, c = d, vc = vd, d = a + r * (b - a);
      if ((rc = f(s, i, d, x1, h, &vd))) return rc;
      vd *= sgn;
    }
  }
  if (vc < vd) *th_min = c, *v_min = vc;
  else *th_min = d, *v_min = vd;
  return 0;
}

double nh_sim_hermite_dip(double g0, double g1, double m0, double m1) {
  // p(u) = (1 - u) g0 + u g1 + u (1 - u) ((1 - u)(m0 - d) - u (m1 - d)), d = g1 - g0, is at
  // least min(g0, g1) - max(|m0 - d|, |m1 - d|) / 4: most intervals are done here
  const double d = g1 - g0;
  if (fmin(g0, g1) > 0.25 * fmax(fabs(m0 - d), fabs(m1 - d))) return -1.0;
  // p'(u) = a u^2 + b u + c
  const double a = 6.0 * (g0 - g1) + 3.0 * (m0 + m1), b = -6.0 * (g0 - g1) - 4.0 * m0 - 2.0 * m1, c = m0;
  double r[2];
  int n = 0;
  if (fabs(a) > 1e-300) {
    const double d = b * b - 4.0 * a * c;
    if (d >= 0.0) {
      const double sq = sqrt(d), qq = -0.5 * (b + (b >= 0.0 ? sq : -sq));
      r[n++] = qq / a;
      if (qq != 0.0) r[n++] = c / qq;
    }
  } else if (fabs(b) > 1e-300) {
    r[n++] = -c / b;
  }
  double best = -1.0, pmin = 0.0;
  for (int k = 0; k < n; k++) {
    const double u = r[k];
    if (!(u > 0.0 && u < 1.0) || !(2.0 * a * u + b > 0.0)) continue; /* interior minima only */
    const double u2 = u * u, u3 = u2 * u;
    const double p = (2.0 * u3 - 3.0 * u2 + 1.0) * g0 + (u3 - 2.0 * u2 + u) * m0 + (3.0 * u2 - 2.0 * u3) * g1 + (u3 - u2) * m1;
    if (p < pmin) pmin = p, best = u;
  }
  return best;
}

/* Find the first crossing inside the step just taken (x -> x1 over h). On return *gi is the
 * crossing gap (-1 if none) and *tau its located time, with the state left in s->xe. */
int nh_sim_detect(nh_sim *s, double h, int *gi, double *tau) {
  const int ng = s->ng;
  int rc;
  *gi = -1;
  if (ng == 0) return 0;

  // scan dense samples and the step end for the first sign change >= 0 -> < 0, and for
  // grazes: the slope dg.v turning from < 0 to > 0 with g >= 0 at both samples, where the
  // minimum of g on the dense output (golden section) may dip below zero (spec 000 sec. 4.4)
  const int ns = s->def.event_samples;
  double th_prev = 0.0, *lev = s->glev;
  // a gap resting below a graze counts again from 0 once it is off its wall by its rounding
  for (int i = 0; i < ng; i++)
    if (lev[i] < 0.0 && s->g0[i] > -lev[i]) lev[i] = 0.0;
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
      double a = s->gp[i] - lev[i], b = s->gc[i] - lev[i];
      if (s->nact > 0 && s->closed[i]) continue; /* a closed contact is a constraint */
      if (a >= 0.0 && b < 0.0 && a / (a - b) < best_frac) best_frac = a / (a - b), best = i;
    }
    // no crossing: look for a graze inside the interval, where the slope turns back towards
    // zero between the samples or their cubic Hermite interpolant dips below zero
    for (int i = 0; best < 0 && i < ng; i++) {
      if (!(s->gp[i] >= 0.0 && s->gc[i] >= 0.0)) continue;
      if ((s->nact > 0 && s->closed[i]) || lev[i] < 0.0) continue; /* resting: crossings only */
      const double dth = (th - th_prev) * h;
      const double u = nh_sim_hermite_dip(s->gp[i], s->gc[i], dth * s->sp[i], dth * s->sc[i]);
      const int turns = s->sp[i] < 0.0 && s->sc[i] > 0.0;
      if (!turns && u < 0.0) continue;
      double th_min, g_min = 1.0;
      // the Hermite minimum first (it may lie in one of several dips), then the golden section
      if (u >= 0.0 && (rc = dense_gap(s, i, th_prev + u * (th - th_prev), s->x1, h, &g_min))) return rc;
      if (g_min < 0.0) th_min = th_prev + u * (th - th_prev);
      else if ((rc = nh_sim_dense_min(s, dense_gap, i, 1.0, 0, s->x1, h, th_prev, th, &th_min, &g_min))) return rc;
      if (g_min < 0.0) best = i, th_hi = th_min;
    }
    if (best >= 0) {
      // genuine partial steps must confirm the sign change
      double lo = th_prev * h, hi = th_hi * h, glo = s->g0[best] - lev[best], ghi;
      if (lo > 0.0 && (rc = partial_gap(s, best, lo, &glo))) return rc;
      if (glo < 0.0 && lo > 0.0 && s->g0[best] - lev[best] >= 0.0) {
        // the method's steps crossed before the interval the interpolant named (a chord is
        // O(h^2) off them: a crossing near a sample can fall on its other side): [0, lo]
        ghi = glo, hi = lo, lo = 0.0, glo = s->g0[best] - lev[best];
      } else if ((rc = partial_gap(s, best, hi, &ghi))) {
        return rc;
      }
      if (glo >= 0.0 && ghi < 0.0) {
        if ((rc = locate(s, best, lo, glo, hi, ghi, tau))) return rc;
        // the earliest of the gaps crossing there, its state at *tau in s->xe; located at the
        // step start (a gap leaving its wall at once): no step of length 0 (a two-step method
        // would carry it as its previous step)
        if ((rc = earliest_crossing(s, &best, tau))) return rc;
        if (!(*tau > 0.0)) memcpy(s->xe, s->x, sizeof(double) * (size_t)s->nx), s->st.end_x = NULL;
        *gi = best;
        return 0;
      }
      // the interpolant crossed but the method's steps do not: restore the full step, and
      // scan on from the method's value (an interpolant below the wall would hide a later
      // genuine crossing in this step)
      s->stats.grazing++;
      if ((rc = method_step(s, h, s->x1, NULL))) return rc > 0 ? NH_ERR_EVENT : rc;
      if (th_hi == th && ghi >= 0.0) s->gc[best] = ghi + lev[best];
    }
    memcpy(s->gp, s->gc, sizeof(double) * (size_t)ng);
    memcpy(s->sp, s->sc, sizeof(double) * (size_t)ng);
    th_prev = th;
  }
  return 0;
}
