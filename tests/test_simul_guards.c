/* test_simul_guards.c - the guard paths of the simultaneous-impact resolution
 * (src/impact/simultaneous.c, simul_resolve.c; issue 27 point 8): every option, size and
 * pointer refused with its status and message and v_out = v; the checks of the normals in
 * the order documented in nholo/impact.h; the enumeration's room for its sequences; a
 * propagation past its bound naming more contacts than its message holds; the plastic map's
 * active sets where they empty or drop two contacts at once, and past 16 contacts; the
 * verdict's kinds. Each outcome is checked against what defines it (the reflection, the
 * complementarity conditions of the plastic map, the policy's outcome). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "la/la.h"
#include "nholo/impact.h"
#include "nholo/nholo.h"

/* the complementarity conditions and jump identities hold to this, relative to |v-| */
#define KKT_TOL 1e-12
#define SENTINEL 42.0

static void *g_work;
static size_t g_size;
static char g_msg[512];

/* a workspace for the sizes and options (results point into it) */
static void *work_for(int nq, int nc, int k, const nh_simul_opts *o) {
  size_t n = nh_simul_work_size(nq, nc, k, o);
  if (n > g_size) {
    free(g_work);
    g_work = malloc(n);
    g_size = g_work ? n : 0;
  }
  return g_work;
}

static int resolve(const nh_simul_problem *pb, const double *v, const nh_simul_opts *o, double *vout,
                   nh_simul_result *res) {
  void *w = work_for(pb->nq, pb->nc, pb->k, o);
  g_msg[0] = '\0';
  return nh_simul_resolve(pb, v, o, vout, res, w, g_msg, sizeof g_msg);
}

/* The plastic map's conditions with M = I and no constraints: Lambda >= 0, dg_i v+ >= 0,
 * Lambda_i dg_i v+ = 0, v+ - v = sum Lambda_i dg_i^T; 0 when they hold */
static int plastic_kkt(int nq, int k, const double *dg, const double *v, const double *vp, const double *lam) {
  const double s = nh_la_norm_inf(nq, v);
  for (int i = 0; i < k; i++) {
    const double w = nh_la_dot(nq, dg + (size_t)i * nq, vp), g = sqrt(nh_la_dot(nq, dg + (size_t)i * nq, dg + (size_t)i * nq));
    ENSURE(lam[i] * g >= -KKT_TOL * s && w / g >= -KKT_TOL * s);
    ENSURE(fabs(lam[i] * g * w / g) <= KKT_TOL * s * s);
  }
  for (int a = 0; a < nq; a++) {
    double r = vp[a] - v[a];
    for (int i = 0; i < k; i++) r -= lam[i] * dg[(size_t)i * nq + a];
    ENSURE(fabs(r) <= KKT_TOL * s);
  }
  return 0;
}

/* ---- options, sizes, pointers ---------------------------------------------------------- */

static int test_refusals(void) {
  double I2[4] = {1, 0, 0, 1}, dg[4] = {1, 0, 0, 1}, v[2] = {-1, -0.5}, vp[2];
  nh_simul_problem pb = {2, 0, 2, I2, NULL, dg};
  nh_simul_result r;
  const nh_simul_opts d = nh_simul_opts_default();
  /* every option outside its range: no work size, NH_ERR_ARG, v_out = v */
  for (int f = 0; f < 22; f++) {
    nh_simul_opts o = d;
    switch (f) {
    case 0: o.max_reflections = 0; break;
    case 1: o.max_reflections = 100000001; break;
    case 2: o.max_outcomes = 0; break;
    case 3: o.max_outcomes = 1000001; break;
    case 4: o.max_branches = 0; break;
    case 5: o.feas_tol = -1e-12; break;
    case 6: o.col_tol = -1e-9; break;
    case 7: o.col_tol = 1.0; break;
    case 8: o.dep_tol = -1.0; break;
    case 9: o.degenerate_tol = -1.0; break;
    case 10: o.constraint_tol = -1.0; break;
    case 11: o.outcome_tol = -1.0; break;
    case 12: o.unique_tol = -1.0; break;
    case 13: o.truncate_outcomes = 2; break;
    case 14: o.opposing_plastic = -1; break;
    case 15: o.feas_tol = INFINITY; break;
    case 16: o.law = (nh_simul_law)3; break;
    case 17: o.law = (nh_simul_law)-1; break;
    case 18: o.policy = (nh_simul_policy)4; break;
    case 19: o.restitution = -0.1; break;
    case 20: o.restitution = 1.5; break;
    default: o.restitution = NAN;
    }
    ENSURE(nh_simul_work_size(2, 0, 2, &o) == 0);
    vp[0] = vp[1] = SENTINEL;
    ENSURE(nh_simul_resolve(&pb, v, &o, vp, &r, work_for(2, 0, 2, NULL), g_msg, sizeof g_msg) == NH_ERR_ARG);
    ENSURE(r.status == NH_SIMUL_BAD_INPUT && vp[0] == v[0] && vp[1] == v[1]);
    ENSURE(strcmp(g_msg, "simultaneous impact: invalid sizes, NULL matrices or options") == 0);
  }
  /* sizes */
  ENSURE(nh_simul_work_size(0, 0, 1, NULL) == 0 && nh_simul_work_size(2, -1, 1, NULL) == 0);
  ENSURE(nh_simul_work_size(2, 3, 1, NULL) == 0 && nh_simul_work_size(2, 0, 0, NULL) == 0);
  ENSURE(nh_simul_work_size(2, 0, 2, NULL) == nh_simul_work_size(2, 0, 2, &d));
  /* the problem: each size, NULL matrix and the workspace */
  double A[2] = {1, 1};
  const nh_simul_problem bad[8] = {{0, 0, 2, I2, NULL, dg}, {2, -1, 2, I2, NULL, dg}, {2, 3, 2, I2, A, dg},
                                   {2, 0, 0, I2, NULL, dg}, {2, 0, 2, NULL, NULL, dg}, {2, 1, 2, I2, NULL, dg},
                                   {2, 0, 2, I2, NULL, NULL}, {2, 0, 2, I2, NULL, dg}};
  for (int b = 0; b < 8; b++) {
    vp[0] = vp[1] = SENTINEL;
    void *w = b == 7 ? NULL : work_for(2, 2, 2, NULL);
    ENSURE(nh_simul_resolve(&bad[b], v, NULL, vp, &r, w, g_msg, sizeof g_msg) == NH_ERR_ARG);
    ENSURE(r.status == NH_SIMUL_BAD_INPUT && r.contact == -1);
    ENSURE(strcmp(g_msg, "simultaneous impact: invalid sizes, NULL matrices or options") == 0);
    if (bad[b].nq == 2) ENSURE(vp[0] == v[0] && vp[1] == v[1]);
  }
  /* no problem at all: nothing to copy, v_out untouched */
  vp[0] = SENTINEL;
  ENSURE(nh_simul_resolve(NULL, v, NULL, vp, &r, g_work, g_msg, sizeof g_msg) == NH_ERR_ARG && vp[0] == SENTINEL);
  /* NULL velocity, outcome or result */
  ENSURE(nh_simul_resolve(&pb, NULL, NULL, vp, &r, g_work, g_msg, sizeof g_msg) == NH_ERR_ARG);
  ENSURE(r.status == NH_SIMUL_BAD_INPUT && strcmp(g_msg, "simultaneous impact: NULL velocity or result") == 0);
  ENSURE(nh_simul_resolve(&pb, v, NULL, NULL, &r, g_work, g_msg, sizeof g_msg) == NH_ERR_ARG);
  g_msg[0] = '\0';
  ENSURE(nh_simul_resolve(&pb, v, NULL, vp, NULL, g_work, g_msg, sizeof g_msg) == NH_ERR_ARG);
  ENSURE(strcmp(g_msg, "simultaneous impact: NULL velocity or result") == 0);
  /* non-finite values: M, a gradient, A, v */
  double In[4] = {1, 0, 0, NAN}, dgn[4] = {1, 0, 0, INFINITY}, An[2] = {NAN, 1}, vn[2] = {-1, NAN};
  double d1[2] = {1, 0};
  const nh_simul_problem nonf[3] = {{2, 0, 2, In, NULL, dg}, {2, 0, 2, I2, NULL, dgn}, {2, 1, 1, I2, An, d1}};
  for (int b = 0; b < 4; b++) {
    const nh_simul_problem *p = b < 3 ? &nonf[b] : &pb;
    ENSURE(resolve(p, b < 3 ? v : vn, NULL, vp, &r) == NH_ERR_ARG && r.status == NH_SIMUL_BAD_INPUT);
    ENSURE(strcmp(g_msg, "simultaneous impact: non-finite value in M, A, the gradients or v") == 0);
  }
  /* M not positive definite; A without full row rank */
  double Mb[4] = {1, 2, 2, 1}, I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, d3[3] = {0, 0, 1}, v3[3] = {0, 0, -1}, vq[3];
  const nh_simul_problem nspd = {2, 0, 2, Mb, NULL, dg};
  ENSURE(resolve(&nspd, v, NULL, vp, &r) == NH_ERR_NOT_SPD && r.status == NH_SIMUL_BAD_INPUT);
  ENSURE(strcmp(g_msg, "simultaneous impact: the mass matrix is not positive definite") == 0);
  double A23[6] = {1, 1, 0, 2, 2, 0};
  const nh_simul_problem sing3 = {3, 2, 1, I3, A23, d3};
  ENSURE(resolve(&sing3, v3, NULL, vq, &r) == NH_ERR_SINGULAR && r.status == NH_SIMUL_BAD_INPUT);
  ENSURE(strcmp(g_msg, "simultaneous impact: the constraint one-forms are not independent") == 0);
  ENSURE(vq[0] == v3[0] && vq[1] == v3[1] && vq[2] == v3[2]);
  /* the default options when none are given: the same outcome as the explicit defaults */
  double vd[2];
  ENSURE(resolve(&pb, v, NULL, vp, &r) == NH_OK);
  ENSURE(resolve(&pb, v, &d, vd, &r) == NH_OK && vp[0] == vd[0] && vp[1] == vd[1]);
  ENSURE(vp[0] == 1.0 && vp[1] == 0.5); /* two orthogonal walls: both rates reversed */
  /* fallback names */
  ENSURE(strcmp(nh_simul_fallback_name(NH_SIMUL_FALLBACK_NONE), "none") == 0);
  ENSURE(strcmp(nh_simul_fallback_name(NH_SIMUL_FALLBACK_OPPOSING), "opposing-contacts") == 0);
  ENSURE(strcmp(nh_simul_fallback_name(NH_SIMUL_FALLBACK_CONSTRAINED_PLASTIC), "constrained-plastic-law") == 0);
  ENSURE(strcmp(nh_simul_fallback_name(99), "?") == 0);
  /* the reflection bound's own guards */
  int obs = 7;
  const double C2[4] = {1, 0.5, 0.5, 1};
  ENSURE(nh_simul_reflection_bound(0, C2, 1e-9, &obs) == 0 && obs == 0);
  obs = 7;
  ENSURE(nh_simul_reflection_bound(2, NULL, 1e-9, &obs) == 0 && obs == 0);
  ENSURE(nh_simul_reflection_bound(2, C2, NAN, NULL) == 0);
  ENSURE(nh_simul_reflection_bound(2, C2, 1e-9, &obs) == 3 && obs == 2); /* gamma = pi/3 */
  return 0;
}

/* ---- the normals' checks -------------------------------------------------------------- */

static int test_normals(void) {
  double I2[4] = {1, 0, 0, 1}, I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, v2[2] = {0.3, -1}, vp[2];
  nh_simul_result r;
  nh_simul_opts o = nh_simul_opts_default();
  /* a zero gradient: degenerate, named by its index when its name is NULL */
  static const char *const names[2] = {"wall", NULL};
  double dz[4] = {0, 1, 0, 0};
  const nh_simul_problem pz = {2, 0, 2, I2, NULL, dz};
  o.names = names;
  ENSURE(resolve(&pz, v2, &o, vp, &r) == NH_DEGENERATE_IMPACT && r.status == NH_SIMUL_DEGENERATE && r.contact == 1);
  ENSURE(strcmp(g_msg, "contact 1: its gap gradient lies in the span of the constraint one-forms (no normal "
                       "direction left)") == 0);
  ENSURE(vp[0] == v2[0] && vp[1] == v2[1]);
  /* the cosines are not given for a degenerate set (C untouched) */
  double G[9], C[9] = {SENTINEL};
  ENSURE(nh_simul_cosines(&pz, &o, G, C, g_work, g_msg, sizeof g_msg) == NH_DEGENERATE_IMPACT && C[0] == SENTINEL);
  o.names = NULL;
  /* a contact opposing two others: those two duplicate each other (kept pair 0-1, 0-2 skipped) */
  double d3[6] = {1, 0, -1, 0, -1, 0};
  const nh_simul_problem p3 = {2, 0, 3, I2, NULL, d3};
  ENSURE(resolve(&p3, v2, &o, vp, &r) == NH_ERR_DEPENDENT_CONTACTS && r.contact == 1 && r.other == 2);
  ENSURE(strcmp(g_msg, "contacts 1 and 2 are duplicates (cosine 1): merge them") == 0);
  /* a contact opposing two others that are not duplicates within col_tol: contacts 0 and 1
   * at pi -+ dt from contact 2, dt = 3.5e-5 (each within sqrt(2 col_tol) = 4.5e-5 of 2's
   * antipode, 2 dt apart: 1 - cos(2 dt) = 2.4e-9 > col_tol, and their Gram pivot 4.9e-9 >
   * dep_tol). Refused as dependent under every law, before any resolution (it used to reach
   * the plastic map with {0, 1, 2} in R^2, a singular block: NH_ERR_NO_CONVERGENCE "lost
   * definiteness to round-off" for some v-) */
  const double dt = 3.5e-5;
  double dw[6] = {-cos(dt), sin(dt), -cos(dt), -sin(dt), 1, 0};
  const nh_simul_problem pw = {2, 0, 3, I2, NULL, dw};
  const double vw[3][2] = {{0.3, -1}, {1, 0.2}, {-1, 0.1}};
  for (int law = NH_SIMUL_ELASTIC; law <= NH_SIMUL_INELASTIC; law++)
    for (int t = 0; t < 3; t++) {
      o.law = (nh_simul_law)law, o.restitution = 0.5;
      ENSURE(resolve(&pw, vw[t], &o, vp, &r) == NH_ERR_DEPENDENT_CONTACTS && r.status == NH_SIMUL_DEPENDENT);
      ENSURE(r.contact == 1 && r.other == 2 && vp[0] == vw[t][0] && vp[1] == vw[t][1]);
      ENSURE(strcmp(g_msg, "contacts 1 and 0 both oppose contact 2 (cosines -0.999999999388, -0.999999999388; "
                           "0.99999999755 to each other): dependent normals") == 0);
    }
  o.law = NH_SIMUL_ELASTIC;
  /* the cosines of a dependent or opposing set are given, G without C and C without G */
  ENSURE(nh_simul_cosines(&p3, &o, NULL, C, g_work, NULL, 0) == NH_ERR_DEPENDENT_CONTACTS);
  ENSURE(C[1] == -1.0 && C[2] == -1.0 && C[5] == 1.0);
  o.opposing_plastic = 0;
  double d2[4] = {1, 0, -1, 0};
  const nh_simul_problem p2 = {2, 0, 2, I2, NULL, d2};
  ENSURE(nh_simul_cosines(&p2, &o, G, NULL, g_work, g_msg, sizeof g_msg) == NH_ERR_OPPOSING_CONTACTS);
  ENSURE(G[0] == 1.0 && G[1] == -1.0 && G[3] == 1.0);
  o.opposing_plastic = 1;
  /* a normal in the span of those before it, with one more after it: the first rejected pivot
   * is named (contact 2 of 4 in R^3) */
  const double h = sqrt(0.5);
  double d4[12] = {1, 0, 0, 0, 1, 0, h, h, 0, 0, 0, 1}, v3[3] = {-1, -1, -1}, vq[3];
  const nh_simul_problem p4 = {3, 0, 4, I3, NULL, d4};
  ENSURE(resolve(&p4, v3, &o, vq, &r) == NH_ERR_DEPENDENT_CONTACTS && r.contact == 2 && r.other == -1);
  ENSURE(strcmp(g_msg, "the 4 contact normals are linearly dependent (rank 3 in the kinetic metric): contact 2 "
                       "is in the span of the contacts before it; the impact is not determined") == 0);
  /* the projection of a drifted v- with two constraint rows (the second of smaller row sum):
   * A v+ = 0, and M (v+ - v-) = Lambda dg^T + A^T mu with M = I */
  double A[6] = {1, 1, 1, 0, 0.5, 0}, dgf[3] = {0, -1, 1}, vd[3] = {0.5, 0.2, -1};
  const nh_simul_problem pc = {3, 2, 1, I3, A, dgf};
  ENSURE(resolve(&pc, vd, &o, vq, &r) == NH_OK && r.projected == 1);
  for (int j = 0; j < 2; j++) ENSURE(fabs(nh_la_dot(3, A + 3 * j, vq)) <= KKT_TOL);
  for (int a = 0; a < 3; a++) {
    const double res = vq[a] - vd[a] - r.impulse[0] * dgf[a] - r.mu[0] * A[a] - r.mu[1] * A[3 + a];
    ENSURE(fabs(res) <= KKT_TOL);
  }
  /* the same drift refused when projection is off */
  o.project = 0;
  ENSURE(resolve(&pc, vd, &o, vq, &r) == NH_ERR_CONSTRAINT && r.status == NH_SIMUL_BAD_INPUT);
  ENSURE(vq[0] == vd[0] && vq[1] == vd[1] && vq[2] == vd[2]);
  return 0;
}

/* ---- single reflections, verdicts ------------------------------------------------------ */

static int test_reflect_and_verdict(void) {
  double I2[4] = {1, 0, 0, 1}, M2[4] = {2, 0, 0, 1}, dg[4] = {1, 0, 0.6, 0.8}, v[2] = {-1, -2}, vp[2];
  const nh_simul_problem pb = {2, 0, 2, M2, NULL, dg};
  void *w = work_for(2, 0, 3, NULL);
  /* the reflection across contact 1 in the metric M: v - 2 (dg v) / (dg M^-1 dg) M^-1 dg, in
   * place, the impulse optional */
  double x[2] = {v[0], v[1]}, imp;
  ENSURE(nh_simul_reflect(&pb, 1, x, x, NULL, w) == NH_OK);
  ENSURE(nh_simul_reflect(&pb, 1, v, vp, &imp, w) == NH_OK && x[0] == vp[0] && x[1] == vp[1]);
  const double s = 0.6 * v[0] + 0.8 * v[1], g = 0.36 / 2 + 0.64;
  ENSURE_NEAR(vp[0], v[0] - 2 * s / g * 0.3, 1e-15);
  ENSURE_NEAR(vp[1], v[1] - 2 * s / g * 0.8, 1e-15);
  ENSURE_NEAR(imp, -2 * s / g, 1e-15);
  ENSURE(nh_simul_reflect(&pb, 2, v, vp, NULL, w) == NH_ERR_ARG);
  ENSURE(nh_simul_reflect(&pb, -1, v, vp, NULL, w) == NH_ERR_ARG);
  ENSURE(nh_simul_reflect(NULL, 0, v, vp, NULL, w) == NH_ERR_ARG);
  ENSURE(nh_simul_reflect(&pb, 0, NULL, vp, NULL, w) == NH_ERR_ARG);
  ENSURE(nh_simul_reflect(&pb, 0, v, NULL, NULL, w) == NH_ERR_ARG);
  double Mb[4] = {1, 2, 2, 1};
  const nh_simul_problem nspd = {2, 0, 2, Mb, NULL, dg};
  ENSURE(nh_simul_reflect(&nspd, 0, v, vp, NULL, w) == NH_ERR_NOT_SPD);
  /* verdicts: no verdict to fill; bad options; a single contact; three contacts whose least
   * cosine is the last pair's; two at an angle of no dihedral group (c = -0.1: pi / acos(0.1)
   * rounds to 2) */
  nh_simul_verdict vd;
  nh_simul_opts o = nh_simul_opts_default();
  g_msg[0] = '\0';
  ENSURE(nh_simul_verdict_of(&pb, v, &o, NULL, w, g_msg, sizeof g_msg) == NH_ERR_ARG);
  ENSURE(strcmp(g_msg, "simultaneous impact: NULL verdict") == 0);
  o.max_outcomes = 0;
  ENSURE(nh_simul_verdict_of(&pb, v, &o, &vd, w, g_msg, sizeof g_msg) == NH_ERR_ARG);
  o.max_outcomes = 64;
  const nh_simul_problem one = {2, 0, 1, I2, NULL, dg};
  ENSURE(nh_simul_verdict_of(&one, v, &o, &vd, w, g_msg, sizeof g_msg) == NH_OK);
  ENSURE(vd.kind == NH_SIMUL_UNIQUE_SINGLE && vd.bound == 1 && vd.outcomes == 1 && vd.c_min == 0.0);
  double d3[6] = {1, 0, 0.6, 0.8, 0.8, -0.6};
  const nh_simul_problem three = {2, 0, 3, I2, NULL, d3};
  /* three normals in R^2 are dependent: the verdict refuses them */
  ENSURE(nh_simul_verdict_of(&three, NULL, &o, &vd, w, g_msg, sizeof g_msg) == NH_ERR_DEPENDENT_CONTACTS);
  double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, e3[9] = {1, 0, 0, 0.6, 0.8, 0, 0.6, -0.48, 0.64};
  const nh_simul_problem three3 = {3, 0, 3, I3, NULL, e3}; /* cosines 0.6, 0.6, -0.024 */
  ENSURE(nh_simul_verdict_of(&three3, NULL, &o, &vd, work_for(3, 0, 3, NULL), g_msg, sizeof g_msg) == NH_OK);
  ENSURE(vd.kind == NH_SIMUL_INDETERMINATE && vd.bound == 0 && vd.outcomes == 0);
  ENSURE_NEAR(vd.c_min, -0.024, 1e-15);
  ENSURE_NEAR(vd.c_max, 0.6, 1e-15);
  double dn[4] = {1, 0, -0.1, sqrt(0.99)};
  const nh_simul_problem obtuse = {2, 0, 2, I2, NULL, dn};
  ENSURE(nh_simul_verdict_of(&obtuse, NULL, &o, &vd, work_for(2, 0, 2, NULL), g_msg, sizeof g_msg) == NH_OK);
  ENSURE(vd.kind == NH_SIMUL_INDETERMINATE && vd.m == 0);
  ENSURE_NEAR(vd.c_min, -0.1, 1e-15);
  return 0;
}

/* ---- the elastic propagation's exits ---------------------------------------------------- */

/* Two walls of a narrow wedge (normals (+-cos b, sin b), b = 1.5e-3: cosine -cos(2b), the
 * cone of feasible velocities 2b wide about +y) hit head-on, v- = (1e-4, -1): about
 * pi / (2 b) ~ 1047 reflections either way. With max_reflections 1200 (the theorem's bound
 * ~ 2094 is above it: the option's bound) and max_outcomes 2 the two outcomes' sequences need
 * more than 2 x 256 + 1200 = 1712 ints: the enumeration stops (NH_SIMUL_TOO_MANY_OUTCOMES), or,
 * with truncate_outcomes, keeps outcome 0, which is the most-infeasible policy's. */
static int test_enumeration_room(void) {
  const double b = 1.5e-3;
  double I2[4] = {1, 0, 0, 1}, dg[4] = {cos(b), sin(b), -cos(b), sin(b)}, v[2] = {1e-4, -1}, vp[2], vm[2];
  const nh_simul_problem pb = {2, 0, 2, I2, NULL, dg};
  nh_simul_result r;
  nh_simul_opts o = nh_simul_opts_default();
  o.max_reflections = 1200;
  ENSURE(resolve(&pb, v, &o, vm, &r) == NH_OK);
  const int len0 = r.reflections;
  printf("  wedge: %d reflections (most infeasible first), bound %d\n", len0, r.bound);
  ENSURE(len0 > 900 && len0 <= 1200 && r.bound == 1200);
  for (int i = 0; i < 2; i++) ENSURE(nh_la_dot(2, dg + 2 * i, vm) >= -1e-12);
  ENSURE_NEAR(vm[0] * vm[0] + vm[1] * vm[1], v[0] * v[0] + v[1] * v[1], 1e-12);
  o.policy = NH_SIMUL_ENUMERATE;
  o.max_outcomes = 2;
  vp[0] = vp[1] = SENTINEL;
  ENSURE(resolve(&pb, v, &o, vp, &r) == NH_ERR_NO_CONVERGENCE && r.status == NH_SIMUL_TOO_MANY_OUTCOMES);
  ENSURE(vp[0] == v[0] && vp[1] == v[1]);
  ENSURE(strcmp(g_msg, "enumeration's outcomes need more than 1712 reflections of room for their sequences "
                       "(256 per outcome on average)") == 0);
  /* the verdict's enumeration stops the same way */
  nh_simul_verdict vd;
  ENSURE(nh_simul_verdict_of(&pb, v, &o, &vd, g_work, g_msg, sizeof g_msg) == NH_ERR_NO_CONVERGENCE);
  ENSURE(strstr(g_msg, "enumeration's outcomes need more than 1712 reflections") == g_msg);
  o.truncate_outcomes = 1;
  ENSURE(resolve(&pb, v, &o, vp, &r) == NH_OK && r.truncated == 1 && r.outcomes == 1);
  ENSURE(r.reflections == len0 && vp[0] == vm[0] && vp[1] == vm[1] && r.xi == 0.0);
  return 0;
}

/* A propagation past its bound whose still-approaching contacts do not fit the message: four
 * contacts of 90-character names (labels cut at 79), the floor (0.1, 0.1, 0.1, 1) reflected
 * first leaves the three walls approaching; the list ends where the room does. */
static int test_past_bound_names(void) {
  char nm[4][96];
  const char *names[4];
  for (int i = 0; i < 4; i++) {
    memset(nm[i], 'a' + i, 90);
    nm[i][90] = '\0';
    names[i] = nm[i];
  }
  double I4[16] = {0}, dg[16] = {0}, v[4] = {-1, -1, -1, -2}, vp[4];
  for (int i = 0; i < 4; i++) I4[5 * i] = 1.0;
  dg[0] = dg[5] = dg[10] = 1.0, dg[12] = dg[13] = dg[14] = 0.1, dg[15] = 1.0;
  const nh_simul_problem pb = {4, 0, 4, I4, NULL, dg};
  nh_simul_result r;
  nh_simul_opts o = nh_simul_opts_default();
  o.names = names, o.max_reflections = 1;
  ENSURE(resolve(&pb, v, &o, vp, &r) == NH_ERR_PAST_BOUND && r.status == NH_SIMUL_PAST_BOUND);
  ENSURE(memcmp(vp, v, sizeof vp) == 0);
  printf("  %.120s...\n", g_msg);
  const char *head = "elastic propagation passed its bound of 1 reflections (max_reflections) without reaching a "
                     "feasible velocity (still approaching: contacts 'aaaa";
  ENSURE(strncmp(g_msg, head, strlen(head)) == 0);
  /* the first two labels whole (each cut at 79 characters), the third cut where the list's
   * 199 characters end, the fourth left out */
  ENSURE(strstr(g_msg, "aaaa, 'bbbb") && strstr(g_msg, "bbbb, 'cccc") && !strstr(g_msg, "dddd"));
  const char *list = strstr(g_msg, "contacts '") + strlen("contacts ");
  ENSURE(strlen(list) == 199 + 1); /* and the closing parenthesis */
  return 0;
}

/* ---- the plastic map's active sets -------------------------------------------------------- */

/* Murty's pivoting passes through the empty set: four contacts in R^4 (M = I), v- = (-3, 2, 1,
 * 0) (found by a search over small integer problems). The outcome is the projection onto the
 * feasible cone: its complementarity conditions hold. */
static int test_plastic_empty_set(void) {
  double I4[16] = {0}, dg[16] = {2, -1, -3, 2, 2, -3, -2, 3, -3, 3, 2, 0, 0, 1, -3, 3}, v[4] = {-3, 2, 1, 0}, vp[4];
  for (int i = 0; i < 4; i++) I4[5 * i] = 1.0;
  const nh_simul_problem pb = {4, 0, 4, I4, NULL, dg};
  nh_simul_result r;
  nh_simul_opts o = nh_simul_opts_default();
  o.law = NH_SIMUL_PLASTIC;
  ENSURE(resolve(&pb, v, &o, vp, &r) == NH_OK);
  printf("  Murty: %d pivots, impulses %.6g %.6g %.6g %.6g\n", r.plastic_pivots, r.impulse[0], r.impulse[1],
         r.impulse[2], r.impulse[3]);
  ENSURE(r.plastic_pivots >= 3 && plastic_kkt(4, 4, dg, v, vp, r.impulse) == 0);
  ENSURE(r.energy_after <= r.energy_before && r.plastic_loss > 0.0);
  return 0;
}

/* Lawson-Hanson with an opposing pair: two contacts of the active set reach zero in one step
 * (their trial impulses clearly negative), the one met first leaving: listed first (0.093
 * before 0.419 of the step) and listed second (0.057 after 0.165); found by the same search.
 * Five contacts in R^4: the pair counted once, the rest independent. */
static int test_plastic_nnls_drops(void) {
  static const double dgs[2][20] = {{0, 0, 0, 1, 0, 0, 0, -1, 1, 3, -2, 0, 1, 0, 2, -1, 0, -1, 2, 2},
                                    {0, 1, 0, 0, 0, -1, 0, 0, -3, -2, -3, -1, -2, -1, 2, -3, 2, 1, 3, 0}};
  static const double vs[2][4] = {{-1, -3, -2, 0}, {-2, 2, -3, 3}};
  double I4[16] = {0}, vp[4];
  for (int i = 0; i < 4; i++) I4[5 * i] = 1.0;
  for (int c = 0; c < 2; c++) {
    const nh_simul_problem pb = {4, 0, 5, I4, NULL, dgs[c]};
    nh_simul_result r;
    nh_simul_opts o = nh_simul_opts_default();
    o.law = NH_SIMUL_PLASTIC;
    ENSURE(resolve(&pb, vs[c], &o, vp, &r) == NH_OK && r.fallback == NH_SIMUL_FALLBACK_NONE);
    printf("  Lawson-Hanson %d: %d pivots\n", c, r.plastic_pivots);
    ENSURE(r.plastic_pivots >= 5 && plastic_kkt(4, 5, dgs[c], vs[c], vp, r.impulse) == 0);
    /* the wall pair: v+ moves along it only as far as the cone needs (rate 0 or separating) */
    ENSURE(r.impulse[0] == 0.0 || r.impulse[1] == 0.0);
  }
  return 0;
}

/* Sixteen orthogonal walls (cap of pivots SIMUL_LCP_MAX_PIVOTS past 15 contacts): the
 * projection onto the orthant, v+_i = max(v_i, 0), Lambda_i = max(-v_i, 0) */
static int test_plastic_sixteen(void) {
  enum { N = 16 };
  static double I[N * N], v[N], vp[N];
  for (int i = 0; i < N; i++) I[i * N + i] = 1.0, v[i] = (i % 3 == 0 ? 1.0 : -1.0) * (1.0 + 0.1 * i);
  const nh_simul_problem pb = {N, 0, N, I, NULL, I};
  nh_simul_result r;
  nh_simul_opts o = nh_simul_opts_default();
  o.law = NH_SIMUL_PLASTIC;
  ENSURE(resolve(&pb, v, &o, vp, &r) == NH_OK && r.plastic_pivots == 0);
  for (int i = 0; i < N; i++) ENSURE(vp[i] == fmax(v[i], 0.0) && r.impulse[i] == fmax(-v[i], 0.0));
  return 0;
}

/* paper_plastic (eq. 11 alone) with two contacts that would pull, the more pulling named:
 * orthogonal walls, rates (-1, 0.5, 0.2) give Lambda = (1, -0.5, -0.2) */
static int test_paper_plastic_worst(void) {
  double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, v[3] = {-1, 0.5, 0.2}, vp[3];
  const nh_simul_problem pb = {3, 0, 3, I3, NULL, I3};
  nh_simul_result r;
  nh_simul_opts o = nh_simul_opts_default();
  o.law = NH_SIMUL_PLASTIC, o.paper_plastic = 1;
  ENSURE(resolve(&pb, v, &o, vp, &r) == NH_ERR_PULLING_IMPULSE && r.status == NH_SIMUL_NEGATIVE_IMPULSE);
  ENSURE(r.contact == 1 && memcmp(vp, v, sizeof vp) == 0);
  ENSURE(r.impulse[0] == 1.0 && r.impulse[1] == -0.5 && r.impulse[2] == -0.2);
  ENSURE(strcmp(g_msg, "plastic projection (the paper's eq. 11, paper_plastic) needs a pulling impulse at contact 1 "
                       "(Lambda = -0.5): that contact separates (the default active set resolves it)") == 0);
  /* the default law: the complementarity solution, contact 0 alone at rest */
  o.paper_plastic = 0;
  ENSURE(resolve(&pb, v, &o, vp, &r) == NH_OK && vp[0] == 0.0 && vp[1] == 0.5 && vp[2] == 0.2);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_refusals);
  RUN_TEST(test_normals);
  RUN_TEST(test_reflect_and_verdict);
  RUN_TEST(test_enumeration_room);
  RUN_TEST(test_past_bound_names);
  RUN_TEST(test_plastic_empty_set);
  RUN_TEST(test_plastic_nnls_drops);
  RUN_TEST(test_plastic_sixteen);
  RUN_TEST(test_paper_plastic_worst);
  free(g_work);
  return TEST_SUMMARY();
}
