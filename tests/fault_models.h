/* fault_models.h - small models of the C API whose evaluators fail on demand, for the tests of
 * the driver's failure exits (test_sim_paths.c): a ball in the plane (mechanical form, with its
 * closed-form flow for the exact method) and the same ball in almost-Poisson form (with a
 * projection). Each evaluator counts its calls; fail_at[k] = N makes evaluator k return
 * fail_rc at its N-th call (negative: stop; positive: infeasible, nholo/model.h). The user
 * data is shared, not copied (user_size 0), so a test arms and reads the counters. */
#ifndef NH_TEST_FAULT_MODELS_H
#define NH_TEST_FAULT_MODELS_H

#include <math.h>
#include <string.h>

#include "nholo/nholo.h"

enum { FE_MASS, FE_POT, FE_GAP, FE_MON, FE_FLOW, FE_PRED, FE_HAM, FE_POI, FE_PROJ, FE_FORCE, FE_N };
static const char *const FE_NAME[FE_N] = {"mass", "potential", "gap", "monitor", "flow",
                                          "predict", "hamiltonian", "poisson", "project", "force"};

typedef struct fault {
  long calls[FE_N], fail_at[FE_N];
  int fail_rc;
  int fail_rc2;      /* != 0: returned by the call after fail_at too */
  int sticky;        /* 1: fail_rc from call fail_at on */
  double g;          /* gravity */
  double wall;       /* the wall gap: wall - x >= 0 */
  double ceiling;    /* > 0: a third gap, the ceiling y <= ceiling (the mechanical ball) */
  double lift;       /* > 0: an upward force lift t (the mechanical ball; it lifts off its floor
                        at t = g / lift) */
  double push;       /* a horizontal force (the mechanical ball: V = g y - push x) */
  double ramp;       /* > 0: the mechanical ball's second gap is a ramp of this angle rising
                        from the origin, -x sin + y cos >= 0, instead of the wall; the ball
                        starts at rest at (start_x, start_y) */
  double start_x, start_y;
  double drag_below; /* project: a state with y below it is dragged to y = drag_to (through the
                        floor when drag_to < 0); 0 = identity */
  double drag_to;
  int predict_mode;  /* 0: the exact prediction; 1: "no event" always; a time outside (0, h]:
                        2 (2 h), 4 (0); a gap index out of range: 3 (7), 5 (-1) */
} fault;

/* what evaluator k returns at this call: 0, or the fault's */
static inline int fault_rc(fault *f, int k) {
  const long c = ++f->calls[k], n = f->fail_at[k];
  if (n <= 0 || c < n) return 0;
  if (c == n || f->sticky) return f->fail_rc;
  return c == n + 1 ? f->fail_rc2 : 0;
}

static int fb_mass(const double *q, double *M, void *u) {
  (void)q;
  int rc = fault_rc(u, FE_MASS);
  if (rc) return rc;
  M[0] = 1, M[1] = 0, M[2] = 0, M[3] = 1;
  return 0;
}
static int fb_pot(const double *q, double *V, double *dV, void *u) {
  fault *f = u;
  int rc = fault_rc(f, FE_POT);
  if (rc) return rc;
  if (V) *V = f->g * q[1] - f->push * q[0];
  if (dV) dV[0] = -f->push, dV[1] = f->g;
  return 0;
}
/* floor y >= 0, wall x <= wall, ceiling y <= ceiling (q: the configuration) */
static int fb_gap(const double *q, double *g, double *dg, void *u) {
  fault *f = u;
  int rc = fault_rc(f, FE_GAP);
  if (rc) return rc;
  const int ceiling = f->ceiling > 0.0;
  const double sr = sin(f->ramp), cr = cos(f->ramp);
  if (g) {
    g[0] = q[1], g[1] = f->ramp > 0.0 ? -q[0] * sr + q[1] * cr : f->wall - q[0];
    if (ceiling) g[2] = f->ceiling - q[1];
  }
  if (dg) {
    dg[0] = 0, dg[1] = 1;
    if (f->ramp > 0.0) dg[2] = -sr, dg[3] = cr;
    else dg[2] = -1, dg[3] = 0;
    if (ceiling) dg[4] = 0, dg[5] = -1;
  }
  return 0;
}
static int fb_force(double t, const double *q, const double *v, double *F, void *u) {
  (void)q, (void)v;
  fault *f = u;
  int rc = fault_rc(f, FE_FORCE);
  if (rc) return rc;
  F[0] = 0.0, F[1] = f->lift * t;
  return 0;
}
static int fb_gap_ap(const double *x, double *g, double *dg, void *u) {
  fault *f = u;
  int rc = fault_rc(f, FE_GAP);
  if (rc) return rc;
  if (g) g[0] = x[1], g[1] = f->wall - x[0];
  if (dg) memset(dg, 0, 8 * sizeof(double)), dg[1] = 1, dg[4] = -1;
  return 0;
}
static int fb_mon(double t, const double *x, double *m, void *u) {
  (void)t;
  int rc = fault_rc(u, FE_MON);
  if (rc) return rc;
  m[0] = x[1] - 0.5;
  return 0;
}
static int fb_flow(const double *q0, const double *v0, double tau, double *q, double *v, void *u) {
  fault *f = u;
  int rc = fault_rc(f, FE_FLOW);
  if (rc) return rc;
  const double x = q0[0] + v0[0] * tau, y = q0[1] + v0[1] * tau - 0.5 * f->g * tau * tau;
  const double vx = v0[0], vy = v0[1] - f->g * tau;
  q[0] = x, q[1] = y, v[0] = vx, v[1] = vy;
  return 0;
}
/* the floor's next crossing along the parabola (the wall is never reached by these tests) */
static int fb_predict(const double *q0, const double *v0, double tau_max, double *tau, int *gap, void *u) {
  fault *f = u;
  int rc = fault_rc(f, FE_PRED);
  if (rc) return rc;
  if (f->predict_mode == 1) return NH_NO_IMPACT;
  const double y = q0[1], vy = v0[1], r = (vy + sqrt(vy * vy + 2.0 * f->g * y)) / f->g; /* y + vy r - g r^2 / 2 = 0 */
  if (!(r > 0.0 && r <= tau_max)) return NH_NO_IMPACT;
  *tau = f->predict_mode == 2 ? 2.0 * tau_max : f->predict_mode == 4 ? 0.0 : r;
  *gap = f->predict_mode == 3 ? 7 : f->predict_mode == 5 ? -1 : 0;
  return 0;
}

static const char *const fb_coords[] = {"x", "y"};
static const char *const fb_gaps[] = {"floor", "wall", "ceiling"};
static const nh_monitor_def fb_mons[] = {{"half", NH_MONITOR_FALLING, NH_MONITOR_REPORT}};

/* the ball dropped from (0, 1) with x' = 1 onto a floor (and towards the wall at x = f->wall;
 * under the ceiling when f->ceiling > 0; lifted when f->lift > 0; pushed by f->push; at rest
 * on the floor beside a ramp when f->ramp > 0), restitution e; monitor "half"
 * (y = 0.5, falling) when nmon = 1; flow (and predict) on request */
static inline nh_model *fault_ball(fault *f, double e, int nmon, int flow, int predict) {
  nh_impact_law law[3] = {{NH_IMPACT_RESTITUTION, e}, {NH_IMPACT_RESTITUTION, e}, {NH_IMPACT_RESTITUTION, e}};
  double q0[2] = {0, 1}, v0[2] = {1, 0};
  if (f->ramp > 0.0) q0[0] = f->start_x, q0[1] = f->start_y, v0[0] = 0.0; /* at rest */
  nh_model_def d = nh_model_def_default();
  d.name = "fault_ball";
  d.nq = 2, d.ngap = f->ceiling > 0.0 ? 3 : 2, d.nmon = nmon;
  d.coord_names = fb_coords, d.gap_names = fb_gaps, d.impact = law, d.q0 = q0, d.v0 = v0;
  d.mass = fb_mass, d.potential = fb_pot, d.gap = fb_gap;
  if (nmon) d.monitor = fb_mon, d.monitors = fb_mons;
  if (flow) d.flow = fb_flow;
  if (predict) d.predict = fb_predict;
  if (f->lift > 0.0) d.force = fb_force;
  d.user = f;
  return nh_model_create(&d, NULL, 0);
}

/* the almost-Poisson ball: x = (x, y, px, py), H = |p|^2 / 2 + g y, Pi the canonical matrix */
static int fb_ham(const double *x, double *H, double *dH, void *u) {
  fault *f = u;
  int rc = fault_rc(f, FE_HAM);
  if (rc) return rc;
  if (H) *H = 0.5 * (x[2] * x[2] + x[3] * x[3]) + f->g * x[1];
  if (dH) dH[0] = 0, dH[1] = f->g, dH[2] = x[2], dH[3] = x[3];
  return 0;
}
static int fb_poisson(const double *x, double *P, void *u) {
  (void)x;
  int rc = fault_rc(u, FE_POI);
  if (rc) return rc;
  memset(P, 0, 16 * sizeof(double));
  P[2] = 1, P[8] = -1, P[7] = 1, P[13] = -1;
  return 0;
}
static int fb_project(double *x, void *u) {
  fault *f = u;
  int rc = fault_rc(f, FE_PROJ);
  if (rc) return rc;
  if (f->drag_below != 0.0 && x[1] < f->drag_below) x[1] = f->drag_to;
  return 0;
}

static inline nh_model *fault_ball_ap(fault *f, double e, int nmon) {
  static const char *const names[] = {"x", "y", "px", "py"};
  nh_impact_law law[2] = {{NH_IMPACT_RESTITUTION, e}, {NH_IMPACT_RESTITUTION, e}};
  double x0[4] = {0, 1, 1, 0};
  nh_model_def d = nh_model_def_default();
  d.name = "fault_ball_ap";
  d.form = NH_FORM_ODE, d.nx = 4, d.ngap = 2, d.nmon = nmon;
  d.state_names = names, d.gap_names = fb_gaps, d.impact = law, d.x0 = x0;
  d.hamiltonian = fb_ham, d.poisson = fb_poisson, d.hamiltonian_degree = 2;
  d.gap = fb_gap_ap, d.project = fb_project;
  if (nmon) d.monitor = fb_mon, d.monitors = fb_mons;
  d.user = f;
  return nh_model_create(&d, NULL, 0);
}

#endif
