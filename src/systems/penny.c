/* penny.c - the bouncing penny (W. Clark, A. Bloch, "The Bouncing Penny and Nonholonomic
 * Impacts", secs. V-VI; spec 000 sec. 3): a vertical disk rolling without slipping inside an
 * elliptical wall, with its closed-form flow and an exact event predictor.
 *
 * Model. q = (x, y, theta, phi), d = (cos phi, sin phi), dperp = (-sin phi, cos phi).
 *
 *   L = 1/2 m (x'^2 + y'^2) + 1/2 I theta'^2 + 1/2 J phi'^2,     M = diag(m, m, I, J)   (22)
 *   x' = R theta' cos phi,   y' = R theta' sin phi                                      (23)
 *   omega^1 = dx - R cos phi dtheta,   omega^2 = dy - R sin phi dtheta                  (24)
 *   A(phi) = [ 1  0  -R cos phi  0 ]      Adot v = (d/dt A) v = (  R sin phi phi' theta',
 *            [ 0  1  -R sin phi  0 ]                               -R cos phi phi' theta')
 *   J phi'' = 0,  (I + m R^2) theta'' = 0: Omega = theta', omega = phi' are constant     (25)
 *   phi = phi0 + omega t,  theta = theta0 + Omega t,
 *   x = x0 + (Omega/omega) R (sin(omega t + phi0) - sin phi0),
 *   y = y0 - (Omega/omega) R (cos(omega t + phi0) - cos phi0)                            (26)
 * (26) is evaluated in its regular form (no singularity at omega = 0):
 *   half = omega t / 2,  amp = R Omega t sinc(half),
 *   x = x0 + amp cos(phi0 + half),  y = y0 + amp sin(phi0 + half),
 * with e(phi0 + half) = e(phi) turned back by half (one sincos of the large angle phi).
 * The coin's ends (front s = +1, eq. 27; back s = -1, eq. 34) are P_s = (x, y) + s R d. The
 * table (35) is h(X, Y) = X^2/a^2 + Y^2/b^2 - 1 < 0 inside; the model's gaps are
 *   g_s(q) = -h(P_s) = 1 - X_s^2/a^2 - Y_s^2/b^2   (admissible where >= 0),
 *   dg_s = -dH_s,  dH_s = (h_X, h_Y, 0, s R (h_Y cos phi - h_X sin phi))  at (X_s, Y_s).
 *
 * Event prediction on the circular table (a = b): closed form, see predict_circle. Otherwise
 * (and near a tangency of the circle) by marching. Along the flow, with V = R Omega, S(t) = t sinc(half), e(a) = (cos a,
 * sin a) and H = diag(1/a^2, 1/b^2),
 *   P_s(t)   = (x0, y0) + V S e(phi0 + half) + s R e(phi)         (a rotation by omega t about
 *   P_s'(t)  = e(phi) (V, s R omega)   [in the frame (d, dperp)]    c* = (x0,y0) + (V/omega)
 *   P_s''(t) = omega J P_s'(t)          (J = rotation by +90 deg)   dperp0, or a line)
 *   g(t) = 1 - P^T H P,  g' = -2 P^T H P',  g'' = -2 P'^T H P' - 2 P^T H P''.
 * With v_e = |P'| = sqrt(V^2 + R^2 omega^2), |P''| = |omega| v_e, |P'''| = omega^2 v_e and
 * |H P| <= 1/mn (mn = min(a, b)) while P is inside the table:
 *   |g''|  <= L2 = 2 v_e^2/mn^2 + 2 |omega| v_e/mn,
 *   |g'''| <= L3 = 6 |omega| v_e^2/mn^2 + 2 omega^2 v_e/mn.
 * Marching: from a point t where an end is inside (g > 0, an "armed" end), no crossing
 * occurs before the first positive root of the lower models  g + g' s - L2 s^2/2  and
 * g + g' s + g'' s^2/2 - L3 s^3/6  (a "safe" step). When g' < 0 and g' + g'' s + L3 s^2/2 < 0
 * up to the root s_T of the Taylor model  g + g' s + g'' s^2/2,  g certainly decreases on
 * [t, t + s_T] (a "Taylor" step: at most one crossing, approached with third-order
 * convergence; a step whose remainder L3 s_T^3/6 is below the rounding of g lands on the
 * root when the other end is certified inside up to there, by its own safe step). Both
 * ends share one sincos per step and the step is the shorter proposal; a sign change is
 * refined by bracketed Newton to |g| <= 2 eps (or to the rounding of g). Far from
 * the wall the steps are long; near a tangency the cubic model converges superlinearly to the
 * touching point, so a graze that dips below zero by more than the rounding of g is never
 * skipped, and an exact tangency costs ~20 evaluations. The paper's runs take 4-6.
 * An end that starts on the wall (|g| < PENNY_WALL_TOL) and departs is armed at once; one
 * that is outside, or on the wall and leaving the table (a contact the driver skipped as
 * grazing), is followed with the mirrored upper models (|H P| bounded by the distance it can
 * travel in the step) until it re-enters, so the contact just handled is never reported
 * again and tau = 0 is never returned. For omega != 0 every gap is periodic with period
 * 2 pi/|omega| (if the circle of the ends, of radius sqrt(r^2 + R^2) about c*, is inside the
 * table there is nothing to find), so the search stops after one period; for omega = 0 the
 * ends move on lines and each g is a concave quadratic in t, solved directly (larger root). */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/msg.h"
#include "nholo/systems/penny.h"
#include "systems/penny_impl.h"

#define PENNY_TWO_PI 6.28318530717958647692528676655900577
/* |g| below this at the start of a flight: the end is on the wall (the contact just handled) */
#define PENNY_WALL_TOL 1e-12
#define PENNY_MAX_MARCH 1000
#define PENNY_MAX_REFINE 200
/* circular table: the closed-form crossing (acos) is used when |kappa| <= 1 - this margin;
 * closer to a tangency acos is ill-conditioned and the marching predictor takes over */
#define PENNY_KAPPA_MARGIN 1e-6
/* Newton polish of the closed-form crossing: at most this many steps */
#define PENNY_MAX_POLISH 4
/* predict_circle's answer when the marching predictor must decide (not a status: NH_NO_IMPACT
 * is 1) */
#define PENNY_UNDECIDED 1000
/* relative distance of two closed-form crossings below which both are polished */
#define PENNY_CLOSE 1e-9

/* evaluations of the closed-form flow on this thread (nh_penny_flow_evals): the flow's and
 * the predictor's, added once per call. Initial-exec TLS: no __tls_get_addr call in
 * position-independent code. */
#if defined(__GNUC__)
static _Thread_local __attribute__((tls_model("initial-exec"))) long penny_evals;
#else
static _Thread_local long penny_evals;
#endif

long nh_penny_flow_evals(void) { return penny_evals; }

/* the block the model owns (copied by nh_model_create) */
typedef struct penny_data {
  double m, R, I, J, a, b;
  double ia2, ib2; /* 1/a^2, 1/b^2 */
} penny_data;

/* sin(z)/z given sz = sin(z), with its series near 0 */
static inline double sinc_of(double z, double sz) {
  if (fabs(z) < 1e-4) {
    double z2 = z * z;
    return 1.0 - z2 / 6.0 * (1.0 - z2 / 20.0);
  }
  return sz / z;
}

/* ---- parameters ------------------------------------------------------------------- */

nh_penny_params nh_penny_params_default(void) {
  nh_penny_params p;
  memset(&p, 0, sizeof p);
  p.m = 0.0025;
  p.R = 0.01;
  p.I = 1.25e-7;
  p.J = 6.25e-8;
  p.a = 0.2;
  p.b = 0.2;
  p.law.kind = NH_IMPACT_ELASTIC;
  p.law.e = 1.0;
  p.theta_dot0 = 10.0;
  p.phi_dot0 = 0.2;
  p.x0 = 0.0;
  p.y0 = 0.0;
  p.theta0 = 0.0;
  p.phi0 = 1.57079632679489661923132169163975144;
  return p;
}

int nh_penny_params_check(const nh_penny_params *p, char *msg, size_t msg_size) {
  nh_set_msg(msg, msg_size, "%s", "");
  if (!p) {
    nh_set_msg(msg, msg_size, "penny: no parameters");
    return NH_ERR_ARG;
  }
  const struct {
    const char *name;
    double value;
    int positive;
  } fields[] = {{"m", p->m, 1},
                {"R", p->R, 1},
                {"I", p->I, 1},
                {"J", p->J, 1},
                {"a", p->a, 1},
                {"b", p->b, 1},
                {"theta_dot0", p->theta_dot0, 0},
                {"phi_dot0", p->phi_dot0, 0},
                {"x0", p->x0, 0},
                {"y0", p->y0, 0},
                {"theta0", p->theta0, 0},
                {"phi0", p->phi0, 0}};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    if (!isfinite(fields[i].value)) {
      nh_set_msg(msg, msg_size, "penny: %s = %g must be finite", fields[i].name, fields[i].value);
      return NH_ERR_ARG;
    }
    if (fields[i].positive && !(fields[i].value > 0.0)) {
      nh_set_msg(msg, msg_size, "penny: %s = %g must be positive", fields[i].name, fields[i].value);
      return NH_ERR_ARG;
    }
  }
  double mn = p->a < p->b ? p->a : p->b;
  if (!(p->R < mn)) {
    nh_set_msg(msg, msg_size, "penny: R = %g must be smaller than min(a, b) = %g", p->R, mn);
    return NH_ERR_ARG;
  }
  switch (p->law.kind) {
  case NH_IMPACT_ELASTIC:
  case NH_IMPACT_PLASTIC:
    break;
  case NH_IMPACT_RESTITUTION:
    if (!(p->law.e >= 0.0 && p->law.e <= 1.0)) {
      nh_set_msg(msg, msg_size, "penny: restitution e = %g must be in [0, 1]", p->law.e);
      return NH_ERR_ARG;
    }
    break;
  default:
    nh_set_msg(msg, msg_size, "penny: unknown impact law %d", (int)p->law.kind);
    return NH_ERR_ARG;
  }
  for (int k = 0; k < 2; k++) {
    double s = k == 0 ? 1.0 : -1.0;
    double X = p->x0 + s * p->R * cos(p->phi0), Y = p->y0 + s * p->R * sin(p->phi0);
    double g = 1.0 - X * X / (p->a * p->a) - Y * Y / (p->b * p->b);
    if (!(g > 0.0)) {
      nh_set_msg(msg, msg_size,
              "penny: the initial coin is not strictly inside the table: the %s end (%g, %g) "
              "has gap %g (x0 = %g, y0 = %g, phi0 = %g)",
              k == 0 ? "front" : "back", X, Y, g, p->x0, p->y0, p->phi0);
      return NH_ERR_ARG;
    }
  }
  return NH_OK;
}

/* ---- evaluators ------------------------------------------------------------------- */

static int penny_mass(const double *q, double *M, void *user) {
  const penny_data *p = user;
  (void)q;
  memset(M, 0, 16 * sizeof(double));
  M[0] = p->m;
  M[5] = p->m;
  M[10] = p->I;
  M[15] = p->J;
  return 0;
}

static int penny_constraint(const double *q, const double *v, double *A, double *Adot_v,
                            void *user) {
  const penny_data *p = user;
  double c = cos(q[3]), s = sin(q[3]);
  if (A) {
    A[0] = 1.0, A[1] = 0.0, A[2] = -p->R * c, A[3] = 0.0;
    A[4] = 0.0, A[5] = 1.0, A[6] = -p->R * s, A[7] = 0.0;
  }
  if (Adot_v) {
    if (!v) return NH_ERR_ARG;
    Adot_v[0] = p->R * s * v[3] * v[2];
    Adot_v[1] = -p->R * c * v[3] * v[2];
  }
  return 0;
}

static int penny_gap(const double *q, double *g, double *dg, void *user) {
  const penny_data *p = user;
  double c = cos(q[3]), s = sin(q[3]);
  for (int k = 0; k < 2; k++) {
    double sR = k == 0 ? p->R : -p->R;
    double X = q[0] + sR * c, Y = q[1] + sR * s;
    double hX = 2.0 * X * p->ia2, hY = 2.0 * Y * p->ib2; /* grad h at the end point */
    if (g) g[k] = 1.0 - X * X * p->ia2 - Y * Y * p->ib2;
    if (dg) {
      double *row = dg + 4 * k;
      row[0] = -hX;
      row[1] = -hY;
      row[2] = 0.0;
      row[3] = -sR * (hY * c - hX * s);
    }
  }
  return 0;
}

static int penny_flow(const double *q0, const double *v0, double tau, double *q, double *v,
                      void *user) {
  const penny_data *p = user;
  penny_evals++;
  double x0 = q0[0], y0 = q0[1], th0 = q0[2], phi0 = q0[3];
  double Om = v0[2], om = v0[3];
  double half = 0.5 * om * tau, sh = sin(half), ch = cos(half);
  double amp = p->R * Om * tau * sinc_of(half, sh);
  double phi = phi0 + om * tau, cp = cos(phi), sp = sin(phi);
  // e(phi0 + half) = e(phi) turned back by half: one sincos of the large angle phi
  q[0] = x0 + amp * (cp * ch + sp * sh);
  q[1] = y0 + amp * (sp * ch - cp * sh);
  q[2] = th0 + Om * tau;
  q[3] = phi;
  v[0] = p->R * cp * Om; /* rounded as A(q) v, so that A(q) v = 0 exactly */
  v[1] = p->R * sp * Om;
  v[2] = Om;
  v[3] = om;
  return 0;
}

/* ---- the event predictor ---------------------------------------------------------- */

/* one flight: the constants of the closed-form path of both ends */
typedef struct flight {
  double x0, y0, c0, s0; /* start of the contact point, e(phi0) */
  double V, Rw, w, R;    /* R Omega, R omega, omega, R */
  double ia2, ib2;
  long evals; /* flight_eval's calls */
} flight;

/* an end's gap and its first two time derivatives, and its position */
typedef struct endval {
  double g, g1, g2, X, Y;
} endval;

static inline double dmin(double a, double b) { return a < b ? a : b; }
static inline double dmax(double a, double b) { return a > b ? a : b; }

static inline void flight_eval(flight *f, double t, endval e[2]) {
  f->evals++;
  double sh = 0.0, ch = 1.0, S = t;
  if (t != 0.0) {
    double half = 0.5 * f->w * t;
    sh = sin(half), ch = cos(half);
    if (fabs(half) < 1e-4) {
      double z2 = half * half;
      S = t * (1.0 - z2 / 6.0 * (1.0 - z2 / 20.0));
    } else {
      S = t * (sh / half);
    }
  }
  double mc = f->c0 * ch - f->s0 * sh, ms = f->s0 * ch + f->c0 * sh; /* e(phi0 + half) */
  double uc = mc * ch - ms * sh, us = ms * ch + mc * sh;             /* e(phi) */
  double cx = f->x0 + f->V * S * mc, cy = f->y0 + f->V * S * ms;
  for (int k = 0; k < 2; k++) {
    double sR = k == 0 ? f->R : -f->R, sRw = k == 0 ? f->Rw : -f->Rw;
    double X = cx + sR * uc, Y = cy + sR * us;
    double dX = f->V * uc - sRw * us, dY = f->V * us + sRw * uc; /* P' */
    double ddX = -f->w * dY, ddY = f->w * dX;                    /* P'' */
    double hX = X * f->ia2, hY = Y * f->ib2;                     /* H P */
    e[k].g = 1.0 - X * hX - Y * hY;
    e[k].g1 = -2.0 * (hX * dX + hY * dY);
    e[k].g2 = -2.0 * (dX * dX * f->ia2 + dY * dY * f->ib2) - 2.0 * (hX * ddX + hY * ddY);
    e[k].X = X;
    e[k].Y = Y;
  }
}

/* The smallest t > 0 with g + b t + c t^2 = 0, for g >= 0; HUGE_VAL when there is none. */
static inline double quad_pos_root(double g, double b, double c) {
  if (c < 0.0) {
    double sq = sqrt(b * b - 4.0 * c * g);
    return b >= 0.0 ? (b + sq) / (-2.0 * c) : 2.0 * g / (sq - b);
  }
  if (c == 0.0) return b < 0.0 ? g / -b : HUGE_VAL;
  if (b >= 0.0) return HUGE_VAL;
  double D = b * b - 4.0 * c * g;
  return D < 0.0 ? HUGE_VAL : 2.0 * g / (sqrt(D) - b);
}

/* A step s such that g stays positive on (0, s), from g >= 0, g', g'' and |g''| <= L2:
 * the positive root of g + g' s - L2 s^2/2. */
static double safe_step(double g, double g1, double L2) { return quad_pos_root(g, g1, -0.5 * L2); }

/* A longer safe step than s (itself safe) from the cubic model with |g'''| <= L3:
 * on [0, S], g + g' s + g'' s^2/2 - L3 s^3/6 >= g + g' s + (g''/2 - L3 S/6) s^2. */
static double safe_step_cubic(double s, double g, double g1, double g2, double L3) {
  if (!(L3 > 0.0)) return s;
  double S = 2.0 * s;
  if (g2 > 0.0 && 1.5 * g2 / L3 > S) S = 1.5 * g2 / L3;
  for (int i = 0; i < 3 && S > 0.0; i++) {
    double c = dmin(S, quad_pos_root(g, g1, 0.5 * g2 - L3 * S / 6.0));
    if (!(c > s)) break;
    s = c;
    S = 2.0 * c;
  }
  return s;
}

/* For an approaching end (g' < 0): the root of the Taylor model g + g' s + g'' s^2/2 when g
 * certainly decreases up to it (g' + g'' s + L3 s^2/2 < 0 there, or g' + L2 s < 0), else 0.
 * A crossing inside such a step is the only one in it. */
static double taylor_step(double g, double g1, double g2, double L2, double L3) {
  if (!(g1 < 0.0)) return 0.0;
  double tT = quad_pos_root(g, g1, 0.5 * g2);
  if (!(tT < HUGE_VAL)) return 0.0;
  if (g1 + (g2 + 0.5 * L3 * tT) * tT < 0.0 || g1 + L2 * tT < 0.0) return tT;
  return 0.0;
}

/* The root of end k in (lo, hi], with g(lo) > 0 >= g(hi), by bracketed Newton from the end
 * with the smaller |g|, bisecting when |g| did not halve; it stops at |g| <= 2 eps or when
 * Newton stalls at the rounding level of g. */
static double refine(flight *f, int k, double lo, endval elo, double hi, endval ehi) {
  double best = hi, gbest = fabs(ehi.g);
  int slow = 0;
  for (int it = 0; it < PENNY_MAX_REFINE && gbest > 2.0 * DBL_EPSILON; it++) {
    int from_lo = elo.g > 0.0 && elo.g < -ehi.g;
    double gsrc = from_lo ? elo.g : ehi.g, d = from_lo ? elo.g1 : ehi.g1;
    double t = d != 0.0 ? (from_lo ? lo : hi) - gsrc / d : lo;
    int newton = !slow && t > lo && t < hi;
    if (!newton) t = lo + 0.5 * (hi - lo);
    if (!(t > lo && t < hi)) break; /* adjacent doubles */
    endval e[2];
    flight_eval(f, t, e);
    double ge = fabs(e[k].g);
    if (ge < gbest) best = t, gbest = ge;
    if (e[k].g > 0.0)
      lo = t, elo = e[k];
    else
      hi = t, ehi = e[k];
    slow = 0;
    if (newton && ge > 0.5 * fabs(gsrc)) {
      if (ge <= 64.0 * DBL_EPSILON) break; /* Newton stalled at the rounding of g */
      slow = 1;
    }
  }
  return best;
}

/* is an end within PENNY_WALL_TOL of the wall and leaving it inwards? */
static int departing(const endval *e) {
  return e->g > -PENNY_WALL_TOL && (e->g1 > 0.0 || (e->g1 == 0.0 && e->g2 > 0.0));
}

/* omega = 0: the ends move on lines and each g is exactly a concave quadratic in t */
static int predict_line(const endval e0[2], double tau_max, double *tau, int *gap) {
  double best = HUGE_VAL;
  int best_k = -1;
  for (int k = 0; k < 2; k++) {
    double g = e0[k].g, g1 = e0[k].g1, g2 = e0[k].g2;
    if (!(g2 < 0.0)) continue;
    if (fabs(g) < PENNY_WALL_TOL) {
      if (!(g1 > 0.0)) continue; /* on the wall and leaving the table: never back */
      g = dmax(g, 0.0);
    }
    double D = g1 * g1 - 2.0 * g2 * g;
    if (!(D > 0.0)) continue;
    double sq = sqrt(D);
    double t = g1 >= 0.0 ? (g1 + sq) / -g2 : 2.0 * g / (sq - g1); /* the larger root */
    if (t > 0.0 && t < best) best = t, best_k = k;
  }
  if (best_k < 0 || !(best <= tau_max)) return NH_NO_IMPACT;
  *tau = best;
  *gap = best_k;
  return NH_OK;
}

/* Circular table (a = b), omega != 0: each end turns about c* at radius rho, so
 *   |P_s(t)|^2 = |c*|^2 + rho^2 + 2 |c*| rho cos(u_s + omega t),
 * u_s the angle from c* to P_s(0) - c*. The end is inside the table where cos u < kappa =
 * (a^2 - |c*|^2 - rho^2) / (2 |c*| rho), and it reaches the wall moving outwards (|P|^2
 * increasing, -omega sin u > 0) at u* = -sgn(omega) acos(kappa). Its crossing time is
 * (u* - u_s)/omega taken in (0, period]; an end on the wall and not departing (the contact
 * just handled, or one skipped as grazing) skips its current crossing, like the marching
 * predictor. The earlier crossing is polished by Newton on g along the flow (flight_eval) to
 * the rounding of g. Returns PENNY_UNDECIDED (near a tangency, or the polish failed) to hand
 * over to the marching predictor. */
/* Newton on g along the flow from a close estimate t of end k's crossing; the step whose
 * quadratic remainder |g''| dt^2/2 is below the rounding of g is the last one (taken without
 * a further evaluation). Returns the crossing, or -1 when Newton does not settle. */
static double polish_crossing(flight *f, int k, double t) {
  endval e[2];
  for (int it = 0; it < PENNY_MAX_POLISH; it++) {
    flight_eval(f, t, e);
    if (!(e[k].g1 < 0.0)) return -1.0;
    double dt = -e[k].g / e[k].g1;
    if (0.5 * fabs(e[k].g2) * dt * dt <= 0.25 * DBL_EPSILON) return t + dt;
    t += dt;
  }
  return -1.0;
}

static int predict_circle(flight *f, const endval e0[2], double a2, double cx, double cy,
                          double tau_max, double *tau, int *gap) {
  const double r = f->V / f->w, rho2 = r * r + f->R * f->R, c2 = cx * cx + cy * cy;
  const double den = 2.0 * sqrt(c2 * rho2);
  if (!(den > 0.0)) return PENNY_UNDECIDED;
  const double kappa = (a2 - c2 - rho2) / den;
  // near |kappa| = 1 the circle of the ends touches the wall: a graze whose dip below it is
  // round-off, for the marching predictor (a circle well inside was rejected before)
  if (!(fabs(kappa) <= 1.0 - PENNY_KAPPA_MARGIN)) return PENNY_UNDECIDED;
  const double sg = f->w > 0.0 ? 1.0 : -1.0, ustar = -sg * acos(kappa);
  double ta[2];
  for (int k = 0; k < 2; k++) {
    const double sR = k == 0 ? f->R : -f->R;
    const double dx = r * f->s0 + sR * f->c0, dy = -r * f->c0 + sR * f->s0; /* P_s(0) - c* */
    const double us = atan2(cx * dy - cy * dx, cx * dx + cy * dy);
    double du = fmod(sg * (ustar - us), PENNY_TWO_PI); /* the angle still to turn */
    if (du <= 0.0) du += PENNY_TWO_PI;
    if (fabs(e0[k].g) < PENNY_WALL_TOL && !departing(&e0[k]) && du < 0.5 * PENNY_TWO_PI)
      du += PENNY_TWO_PI; /* on the wall: this crossing is the one just handled */
    ta[k] = du / fabs(f->w);
    if (!(ta[k] > 0.0)) return PENNY_UNDECIDED;
  }
  // polish the earlier crossing, and the other one too when they are this close
  int k = ta[0] <= ta[1] ? 0 : 1;
  if (ta[k] > tau_max * (1.0 + PENNY_CLOSE)) return NH_NO_IMPACT;
  double t = polish_crossing(f, k, ta[k]);
  if (!(t > 0.0)) return PENNY_UNDECIDED;
  if (ta[1 - k] <= ta[k] * (1.0 + PENNY_CLOSE)) {
    double to = polish_crossing(f, 1 - k, ta[1 - k]);
    if (!(to > 0.0)) return PENNY_UNDECIDED;
    if (to < t) t = to, k = 1 - k;
  }
  if (!(t <= tau_max)) return NH_NO_IMPACT;
  *tau = t;
  *gap = k;
  return NH_OK;
}

enum { END_ARMED, END_OUT, END_DONE };

/* the first crossing of the flight f within tau_max (penny_predict's answer) */
static int predict_flight(flight *f, const penny_data *p, double tau_max, double *tau, int *gap) {
  const double ve = sqrt(f->V * f->V + f->Rw * f->Rw);
  if (ve == 0.0) return NH_NO_IMPACT; /* at rest */
  endval e[2];
  flight_eval(f, 0.0, e);
  if (f->w == 0.0) return predict_line(e, tau_max, tau, gap);

  const double mn = dmin(p->a, p->b), hm = 1.0 / (mn * mn), aw = fabs(f->w);
  // both ends circle c* at radius rho: nothing to find when that circle is well inside
  const double r = f->V / f->w, cx = f->x0 - r * f->s0, cy = f->y0 + r * f->c0;
  if (sqrt(cx * cx + cy * cy) + sqrt(r * r + f->R * f->R) < mn * (1.0 - 1e-9)) return NH_NO_IMPACT;
  if (p->a == p->b) {
    int rc = predict_circle(f, e, p->a * p->a, cx, cy, tau_max, tau, gap);
    if (rc != PENNY_UNDECIDED) return rc;
  }

  const double L2 = 2.0 * hm * ve * ve + 2.0 * aw * ve / mn;
  const double L3 = 6.0 * hm * aw * ve * ve + 2.0 * f->w * f->w * ve / mn;
  const double t_end = dmin(tau_max, PENNY_TWO_PI / aw * (1.0 + 1e-9)); /* one period */
  const double tscale = mn / ve;

  int st[2];
  for (int k = 0; k < 2; k++) {
    if (e[k].g >= PENNY_WALL_TOL) {
      st[k] = END_ARMED;
    } else if (departing(&e[k])) {
      st[k] = END_ARMED;
      e[k].g = dmax(e[k].g, 0.0);
    } else {
      st[k] = END_OUT;
    }
  }

  double t = 0.0, best = HUGE_VAL;
  int best_k = -1;
  for (int it = 0;; it++) {
    if (it >= PENNY_MAX_MARCH) return NH_ERR_NO_CONVERGENCE;
    const double lim = dmin(t_end, best);
    double prop[2] = {HUGE_VAL, HUGE_VAL};
    int taylor[2] = {0, 0}, cubic[2] = {0, 0}, need_eval = 0, active = 0;
    for (int k = 0; k < 2; k++) {
      if (st[k] == END_DONE) continue;
      active++;
      if (st[k] == END_ARMED) {
        prop[k] = taylor_step(e[k].g, e[k].g1, e[k].g2, L2, L3);
        if (prop[k] > 0.0)
          taylor[k] = 1;
        else
          prop[k] = safe_step(e[k].g, e[k].g1, L2), cubic[k] = 1;
      } else {
        // outside: |H P| <= hm (|P| + ve s) <= hm Pb for s <= Pm / ve
        double Pm = dmax(sqrt(e[k].X * e[k].X + e[k].Y * e[k].Y), mn), Pb = 2.0 * Pm;
        double L2o = 2.0 * hm * ve * ve + 2.0 * aw * ve * hm * Pb;
        double L3o = 6.0 * hm * aw * ve * ve + 2.0 * f->w * f->w * ve * hm * Pb;
        double G = dmax(-e[k].g, 0.0);
        prop[k] = safe_step(G, -e[k].g1, L2o);
        prop[k] = dmin(safe_step_cubic(prop[k], G, -e[k].g1, -e[k].g2, L3o), Pm / ve);
      }
    }
    if (!active) break;
    // lengthen the binding safe steps with the cubic model (only the shorter one matters)
    for (int i = 0; i < 2; i++) {
      int k = prop[0] <= prop[1] ? 0 : 1;
      if (!cubic[k]) break;
      prop[k] = safe_step_cubic(prop[k], e[k].g, e[k].g1, e[k].g2, L3);
      cubic[k] = 0;
    }
    double step = dmin(prop[0], prop[1]);
    for (int k = 0; k < 2; k++)
      if (taylor[k] && t + prop[k] >= lim) need_eval = 1; /* a crossing up to lim is possible */
    double tiny = 8.0 * DBL_EPSILON * dmax(t, tscale);
    if (!(step > tiny)) step = tiny;
    double tn = t + step;
    if (tn >= lim) {
      if (!need_eval) break; /* every end is certified up to lim */
      tn = lim;
    }
    // a Taylor step whose remainder L3 s^3/6 is below the rounding of g lands on the root;
    // done without evaluating when the other end is certified beyond it (its safe step, or
    // the safe step from its Taylor data when it is approaching too)
    int kb = prop[0] <= prop[1] ? 0 : 1, ko = 1 - kb;
    if (taylor[kb] && step == prop[kb] && tn == t + step &&
        L3 * step * step * step <= 24.0 * DBL_EPSILON &&
        (taylor[ko] ? safe_step(e[ko].g, e[ko].g1, L2) : prop[ko]) > step) {
      best = tn, best_k = kb;
      break;
    }
    endval en[2];
    flight_eval(f, tn, en);
    for (int k = 0; k < 2; k++) {
      if (st[k] == END_ARMED) {
        double root = HUGE_VAL;
        if (en[k].g <= 0.0 || (tn == t_end && en[k].g <= 4.0 * DBL_EPSILON && en[k].g1 < 0.0))
          root = refine(f, k, t, e[k], tn, en[k]); /* in (t, tn]; at t_end to round-off */
        else if (taylor[k] && step == prop[k] && en[k].g1 < 0.0 &&
                 en[k].g <= -en[k].g1 * 4.0 * DBL_EPSILON * tn)
          root = tn; /* Taylor steps converged from inside to within an ulp of time */
        if (root < HUGE_VAL) {
          if (root < best) best = root, best_k = k;
          st[k] = END_DONE;
        }
      } else if (st[k] == END_OUT) {
        if (en[k].g >= PENNY_WALL_TOL) {
          st[k] = END_ARMED;
        } else if (departing(&en[k])) {
          st[k] = END_ARMED;
          en[k].g = dmax(en[k].g, 0.0);
        }
      }
    }
    t = tn;
    e[0] = en[0];
    e[1] = en[1];
    if (t >= dmin(t_end, best)) break;
  }
  if (best_k < 0 || !(best <= tau_max)) return NH_NO_IMPACT;
  *tau = best;
  *gap = best_k;
  return NH_OK;
}

static int penny_predict(const double *q0, const double *v0, double tau_max, double *tau,
                         int *gap, void *user) {
  const penny_data *p = user;
  if (!q0 || !v0 || !tau || !gap || !p || isnan(tau_max)) return NH_ERR_ARG;
  for (int i = 0; i < 4; i++)
    if (!isfinite(q0[i])) return NH_ERR_NONFINITE;
  if (!isfinite(v0[2]) || !isfinite(v0[3])) return NH_ERR_NONFINITE;
  if (!(tau_max > 0.0)) return NH_NO_IMPACT;

  flight f;
  f.x0 = q0[0];
  f.y0 = q0[1];
  f.c0 = cos(q0[3]);
  f.s0 = sin(q0[3]);
  f.V = p->R * v0[2];
  f.Rw = p->R * v0[3];
  f.w = v0[3];
  f.R = p->R;
  f.ia2 = p->ia2;
  f.ib2 = p->ib2;
  f.evals = 0;
  const int rc = predict_flight(&f, p, tau_max, tau, gap);
  penny_evals += f.evals;
  return rc;
}

/* ---- the model -------------------------------------------------------------------- */

nh_model *nh_penny_create(const nh_penny_params *p, char *msg, size_t msg_size) {
  if (nh_penny_params_check(p, msg, msg_size) != NH_OK) return NULL;
  static const char *const coords[] = {"x", "y", "theta", "phi"};
  static const char *const constraints[] = {"roll_x", "roll_y"};
  static const char *const gaps[] = {"front", "back"};
  static const char *const params[] = {"m", "R", "I", "J", "a", "b"};
  const double values[] = {p->m, p->R, p->I, p->J, p->a, p->b};
  nh_impact_law laws[2] = {p->law, p->law};
  double q0[4] = {p->x0, p->y0, p->theta0, p->phi0};
  double v0[4] = {p->R * cos(p->phi0) * p->theta_dot0, p->R * sin(p->phi0) * p->theta_dot0,
                  p->theta_dot0, p->phi_dot0};
  penny_data data;
  data.m = p->m;
  data.R = p->R;
  data.I = p->I;
  data.J = p->J;
  data.a = p->a;
  data.b = p->b;
  data.ia2 = 1.0 / (p->a * p->a);
  data.ib2 = 1.0 / (p->b * p->b);

  nh_model_def d = nh_model_def_default();
  d.name = "penny";
  d.nq = 4;
  d.nc = 2;
  d.ngap = 2;
  d.npar = 6;
  d.coord_names = coords;
  d.constraint_names = constraints;
  d.gap_names = gaps;
  d.param_names = params;
  d.param_values = values;
  d.impact = laws;
  d.q0 = q0;
  d.v0 = v0;
  d.mass = penny_mass;
  d.mass_constant = 1;
  d.constraint = penny_constraint;
  d.gap = penny_gap;
  d.flow = penny_flow;
  d.predict = penny_predict;
  d.user = &data;
  d.user_size = sizeof data;
  return nh_model_create(&d, msg, msg_size);
}

int nh_penny_set(nh_penny_params *p, const char *name, double value) {
  struct {
    const char *name;
    double *field;
  } tab[] = {
      {"m", &p->m},           {"R", &p->R},           {"I", &p->I},
      {"J", &p->J},           {"a", &p->a},           {"b", &p->b},
      {"x", &p->x0},          {"y", &p->y0},          {"theta", &p->theta0},
      {"phi", &p->phi0},      {"theta'", &p->theta_dot0}, {"phi'", &p->phi_dot0},
      {"theta_dot", &p->theta_dot0}, {"phi_dot", &p->phi_dot0},
  };
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
    if (strcmp(tab[i].name, name) == 0) {
      *tab[i].field = value;
      return 1;
    }
  return 0;
}
