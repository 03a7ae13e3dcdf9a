/* test_simultaneous.c - simultaneous impacts by the propagative model (spec 003 sec. 6:
 * T1-T12, T16-T18 as far as they concern the impact layer; the paper's errors of sec. 7.1;
 * conservation, signs, limits and bad input). Velocities stand for the paper's momenta:
 * p = v^T M, <a, b>_g on covectors is v_a^T M v_b on velocities. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "la/la.h"
#include "nholo/impact.h"
#include "nholo/nholo.h"

static const double PI = 3.14159265358979323846;
#define TOL 1e-12
#define MAXN 8

static void *g_work;
static size_t g_size;
static char g_msg[256];

/* a workspace for the options (kept: results point into it) */
static void *work_for(const nh_simul_problem *pb, const nh_simul_opts *o) {
  size_t n = nh_simul_work_size(pb->nq, pb->nc, pb->k, o);
  if (n > g_size) {
    free(g_work);
    g_work = malloc(n);
    g_size = g_work ? n : 0;
  }
  return g_work;
}

static int resolve(const nh_simul_problem *pb, const double *v, const nh_simul_opts *o,
                   double *vout, nh_simul_result *res) {
  g_msg[0] = '\0';
  return nh_simul_resolve(pb, v, o, vout, res, work_for(pb, o), g_msg, sizeof g_msg);
}

static nh_simul_opts opts_of(nh_simul_law law, nh_simul_policy policy) {
  nh_simul_opts o = nh_simul_opts_default();
  o.law = law;
  o.policy = policy;
  return o;
}

static double maxdiff(int n, const double *x, const double *y) {
  double r = 0.0;
  for (int i = 0; i < n; i++)
    if (!(fabs(x[i] - y[i]) <= r)) r = fabs(x[i] - y[i]);
  return r;
}

/* v^T M w */
static double minner(int n, const double *M, const double *v, const double *w) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) s += v[i] * M[i * n + j] * w[j];
  return s;
}

/* a chain of balls on a line: M = diag(m), dg_i = e_{i+1} - e_i */
typedef struct chain {
  double M[MAXN * MAXN], dg[MAXN * MAXN];
  nh_simul_problem pb;
} chain;

static void chain_init(chain *c, int n, const double *m) {
  memset(c, 0, sizeof *c);
  for (int i = 0; i < n; i++) c->M[i * n + i] = m[i];
  for (int i = 0; i + 1 < n; i++) {
    c->dg[i * n + i] = -1.0;
    c->dg[i * n + i + 1] = 1.0;
  }
  c->pb.nq = n;
  c->pb.nc = 0;
  c->pb.k = n - 1;
  c->pb.M = c->M;
  c->pb.A = NULL;
  c->pb.dg = c->dg;
}

/* the invariants of every elastic resolution (T16): energy, M dv = sum Lambda_i dg_i^T
 * (+ A^T mu), Lambda_i >= 0, v+ feasible */
static int check_elastic(const nh_simul_problem *pb, const double *v, const double *vp,
                         const nh_simul_result *r) {
  int n = pb->nq;
  double e0 = minner(n, pb->M, v, v), e1 = minner(n, pb->M, vp, vp), scale = sqrt(e0);
  ENSURE(fabs(e1 - e0) <= 1e-13 * e0);
  ENSURE_NEAR(r->energy_after, r->energy_before, 1e-13 * e0);
  for (int i = 0; i < pb->k; i++) ENSURE(r->impulse[i] >= 0.0);
  for (int i = 0; i < pb->k; i++) ENSURE(nh_la_dot(n, pb->dg + i * n, vp) >= -1e-12 * scale);
  for (int a = 0; a < n; a++) {
    double lhs = 0.0, rhs = 0.0;
    for (int b = 0; b < n; b++) lhs += pb->M[a * n + b] * (vp[b] - v[b]);
    for (int i = 0; i < pb->k; i++) rhs += r->impulse[i] * pb->dg[i * n + a];
    for (int j = 0; j < pb->nc; j++) rhs += r->mu[j] * pb->A[j * n + a];
    ENSURE_NEAR(lhs, rhs, 1e-12 * (1.0 + scale));
  }
  return 0;
}

/* total momentum of a chain */
static double total_momentum(int n, const double *M, const double *v) {
  double p = 0.0;
  for (int i = 0; i < n; i++) p += M[i * n + i] * v[i];
  return p;
}

/* a random SPD matrix B B^T + n I */
static void random_spd(int n, unsigned long long *s, double *M) {
  double B[MAXN * MAXN];
  for (int i = 0; i < n * n; i++) B[i] = nh_test_rand(s, -1.0, 1.0);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double a = i == j ? n : 0.0;
      for (int l = 0; l < n; l++) a += B[i * n + l] * B[j * n + l];
      M[i * n + j] = a;
    }
}

/* ---- T1: the reflection Gamma ----------------------------------------------------------- */

static int test_gamma_algebra(void) {
  unsigned long long seed = 0x1234567ULL;
  for (int n = 2; n <= 6; n++)
    for (int trial = 0; trial < 20; trial++) {
      double M[MAXN * MAXN], dg[MAXN], dg2[MAXN], v[MAXN], w[MAXN], a[MAXN], b[MAXN];
      double u[MAXN], t[MAXN], G[MAXN * MAXN], LU[MAXN * MAXN];
      random_spd(n, &seed, M);
      for (int i = 0; i < n; i++) {
        dg[i] = nh_test_rand(&seed, -1.0, 1.0);
        dg2[i] = 3.7 * dg[i];
        v[i] = nh_test_rand(&seed, -1.0, 1.0);
        w[i] = nh_test_rand(&seed, -1.0, 1.0);
      }
      nh_simul_problem pb = {n, 0, 1, M, NULL, dg}, pb2 = {n, 0, 1, M, NULL, dg2};
      void *wk = work_for(&pb, NULL);
      double lam;
      /* Gamma^2 = I, Gamma(3.7 u) = Gamma(u), isometry, Lemma 5 */
      ENSURE(nh_simul_reflect(&pb, 0, v, a, &lam, wk) == NH_OK);
      ENSURE(nh_simul_reflect(&pb, 0, a, b, NULL, wk) == NH_OK);
      ENSURE(maxdiff(n, b, v) <= TOL * 10);
      ENSURE(nh_simul_reflect(&pb2, 0, v, b, NULL, wk) == NH_OK);
      ENSURE(maxdiff(n, a, b) <= TOL * 10);
      ENSURE_REL(minner(n, M, a, a), minner(n, M, v, v), TOL);
      ENSURE(nh_simul_reflect(&pb, 0, w, b, NULL, wk) == NH_OK);
      ENSURE_NEAR(minner(n, M, a, b), minner(n, M, v, w), TOL * (1 + minner(n, M, v, v)));
      /* the impulse: -2 s / G with s = dg v, G = dg M^-1 dg^T */
      memcpy(u, dg, sizeof u);
      memcpy(LU, M, sizeof LU);
      nh_la_chol(n, LU, 0.0, NULL);
      nh_la_chol_solve(n, LU, u); /* u = M^-1 dg^T */
      ENSURE_REL(lam, -2.0 * nh_la_dot(n, dg, v) / nh_la_dot(n, dg, u), TOL);
      /* u Gamma(u) = -u; p Gamma = p when <p, u> = 0 */
      ENSURE(nh_simul_reflect(&pb, 0, u, t, NULL, wk) == NH_OK);
      for (int i = 0; i < n; i++) ENSURE_NEAR(t[i], -u[i], TOL * 10);
      double f = nh_la_dot(n, dg, v) / nh_la_dot(n, dg, u);
      for (int i = 0; i < n; i++) t[i] = v[i] - f * u[i];
      ENSURE(nh_simul_reflect(&pb, 0, t, a, NULL, wk) == NH_OK);
      ENSURE(maxdiff(n, a, t) <= TOL * 10);
      /* det Gamma = -1 and Gamma M^-1 Gamma^T = M^-1: the matrix by columns */
      for (int j = 0; j < n; j++) {
        double e[MAXN] = {0};
        e[j] = 1.0;
        ENSURE(nh_simul_reflect(&pb, 0, e, a, NULL, wk) == NH_OK);
        for (int i = 0; i < n; i++) G[i * n + j] = a[i];
      }
      int piv[MAXN];
      memcpy(LU, G, sizeof LU);
      ENSURE(nh_la_lu(n, LU, piv, 0.0) == NH_OK);
      ENSURE_NEAR(nh_la_lu_det(n, LU, piv), -1.0, 1e-11);
      /* velocity form: G^T M G = M */
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          double s = 0.0;
          for (int p = 0; p < n; p++)
            for (int q = 0; q < n; q++) s += G[p * n + i] * M[p * n + q] * G[q * n + j];
          ENSURE_NEAR(s, M[i * n + j], 1e-11 * n);
        }
    }
  return 0;
}

/* ---- T2: one contact -------------------------------------------------------------------- */

static int test_single_contact(void) {
  double M[4] = {2.0, 0.5, 0.5, 1.0}, dg[2] = {0.3, 1.0}, v[2] = {0.2, -1.0}, vp[2];
  nh_simul_problem pb = {2, 0, 1, M, NULL, dg};
  nh_simul_opts o = nh_simul_opts_default();
  nh_simul_result r;
  ENSURE(resolve(&pb, v, &o, vp, &r) == NH_OK);
  ENSURE(r.status == NH_SIMUL_RESOLVED && r.reflections == 1 && r.bound == 1);
  ENSURE(r.seq[0] == 0 && r.impulse[0] > 0.0);
  ENSURE_REL(nh_la_dot(2, dg, vp), -nh_la_dot(2, dg, v), TOL);
  ENSURE(check_elastic(&pb, v, vp, &r) == 0);
  /* the single-impact map gives the same velocity */
  double vs[2], work[64];
  nh_impact_law law = {NH_IMPACT_ELASTIC, 1.0};
  ENSURE(nh_impact_work_size(2, 0) <= 64);
  ENSURE(nh_impact_map(2, 0, M, NULL, dg, v, law, NULL, vs, NULL, NULL, work) == NH_OK);
  ENSURE(maxdiff(2, vs, vp) <= TOL);
  /* a separating contact: no impact, v unchanged */
  double w[2] = {0.0, 1.0};
  ENSURE(resolve(&pb, w, &o, vp, &r) == NH_NO_IMPACT);
  ENSURE(r.status == NH_SIMUL_NO_IMPACT && vp[0] == w[0] && vp[1] == w[1]);
  ENSURE(strcmp(g_msg, "simultaneous impact: no contact approaches; velocity unchanged") == 0);
  return 0;
}

/* ---- T3: Newton's cradle, equal masses -------------------------------------------------- */

/* resolve a chain with a policy; compare v+ and the number of reflections */
static int cradle_case(chain *c, const double *v, nh_simul_policy pol, const double *want,
                       int steps) {
  nh_simul_opts o = opts_of(NH_SIMUL_ELASTIC, pol);
  nh_simul_result r;
  double vp[MAXN];
  int n = c->pb.nq;
  ENSURE(resolve(&c->pb, v, &o, vp, &r) == NH_OK);
  ENSURE(maxdiff(n, vp, want) <= 1e-14);
  if (steps >= 0) ENSURE(r.reflections == steps);
  ENSURE(check_elastic(&c->pb, v, vp, &r) == 0);
  ENSURE_NEAR(total_momentum(n, c->M, vp), total_momentum(n, c->M, v), 1e-14);
  return 0;
}

static int test_cradle_equal(void) {
  static const double m[3] = {1, 1, 1};
  static const struct {
    double v[3], want[3];
    int steps, branches;
  } cases[] = {{{1, 0, 0}, {0, 0, 1}, 2, 1},   {{3, 2, 1}, {1, 2, 3}, 3, 2},
               {{3, 1, 2}, {1, 2, 3}, 2, 1},   {{1, 0, -1}, {-1, 0, 1}, 3, 2},
               {{2, 0, -1}, {-1, 0, 2}, 3, 2}};
  chain c;
  chain_init(&c, 3, m);
  for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
    for (int pol = NH_SIMUL_MOST_INFEASIBLE; pol <= NH_SIMUL_ENUMERATE; pol++)
      ENSURE(cradle_case(&c, cases[t].v, (nh_simul_policy)pol, cases[t].want, cases[t].steps) ==
             0);
    nh_simul_opts o = opts_of(NH_SIMUL_ELASTIC, NH_SIMUL_ENUMERATE);
    nh_simul_result r;
    double vp[3];
    ENSURE(resolve(&c.pb, cases[t].v, &o, vp, &r) == NH_OK);
    ENSURE(r.outcomes == 1 && r.branches == cases[t].branches && r.xi == 0.0);
  }
  /* v- = (1, 0, 0): the sequence {u, v} (contacts 0 then 1) */
  nh_simul_opts o = nh_simul_opts_default();
  nh_simul_result r;
  double v[3] = {1, 0, 0}, vp[3];
  ENSURE(resolve(&c.pb, v, &o, vp, &r) == NH_OK);
  ENSURE(r.reflections == 2 && r.seq[0] == 0 && r.seq[1] == 1);
  /* the paper's set S (spec 7.1 item 5) holds only contacts approaching at first: it would
   * stop after {u} with B (velocity 1) moving into C (at rest) */
  double a[3], b[3];
  ENSURE(nh_simul_reflect(&c.pb, 0, v, a, NULL, work_for(&c.pb, NULL)) == NH_OK);
  ENSURE(nh_la_dot(3, c.dg + 3, v) == 0.0 && nh_la_dot(3, c.dg + 3, a) == -1.0);
  /* Example 1's three-step product (15) is the outcome only when both contacts approach:
   * from (3, 1, 2) it gives the infeasible (2, 1, 3); the propagation gives (1, 2, 3) */
  double w[3] = {3, 1, 2}, s3[3] = {1, 2, 3};
  ENSURE(nh_simul_reflect(&c.pb, 0, w, b, NULL, work_for(&c.pb, NULL)) == NH_OK);
  ENSURE(nh_simul_reflect(&c.pb, 1, b, b, NULL, work_for(&c.pb, NULL)) == NH_OK);
  ENSURE(nh_simul_reflect(&c.pb, 0, b, b, NULL, work_for(&c.pb, NULL)) == NH_OK);
  ENSURE(b[0] == 2 && b[1] == 1 && b[2] == 3 && nh_la_dot(3, c.dg, b) < 0.0);
  ENSURE(resolve(&c.pb, w, &o, vp, &r) == NH_OK && maxdiff(3, vp, s3) == 0.0);
  /* c = -1/2 for any equal masses: Theorem 3 */
  static const double m7[3] = {7, 7, 7};
  chain c7;
  chain_init(&c7, 3, m7);
  double C[4], G[4];
  ENSURE(nh_simul_cosines(&c7.pb, NULL, G, C, work_for(&c7.pb, NULL), g_msg, sizeof g_msg) ==
         NH_OK);
  ENSURE_NEAR(C[1], -0.5, 1e-15);
  ENSURE_NEAR(G[1], -1.0 / 7.0, 1e-15);
  nh_simul_verdict vd;
  ENSURE(nh_simul_verdict_of(&c7.pb, NULL, NULL, &vd, work_for(&c7.pb, NULL), g_msg,
                             sizeof g_msg) == NH_OK);
  ENSURE(vd.kind == NH_SIMUL_UNIQUE_THIRD && vd.m == 3 && vd.bound == 6 && vd.observed == 3);
  /* N = 4, 5: every order sorts the velocities; descending needs N(N-1)/2 reflections */
  for (int n = 4; n <= 5; n++) {
    double mm[MAXN], vv[MAXN], want[MAXN];
    for (int i = 0; i < n; i++) mm[i] = 1.0, vv[i] = n - i, want[i] = i + 1;
    chain_init(&c, n, mm);
    nh_simul_opts oe = opts_of(NH_SIMUL_ELASTIC, NH_SIMUL_ENUMERATE);
    double vq[MAXN];
    ENSURE(resolve(&c.pb, vv, &oe, vq, &r) == NH_OK);
    ENSURE(r.outcomes == 1 && r.branches > 1);
    ENSURE(maxdiff(n, vq, want) <= 1e-13);
    ENSURE(r.reflections == n * (n - 1) / 2);
    ENSURE(check_elastic(&c.pb, vv, vq, &r) == 0);
  }
  return 0;
}

/* ---- T4, T18: unequal masses: two outcomes ---------------------------------------------- */

static int test_cradle_unequal(void) {
  chain c;
  static const double m121[3] = {1, 2, 1};
  chain_init(&c, 3, m121);
  double C[4];
  ENSURE(nh_simul_cosines(&c.pb, NULL, NULL, C, work_for(&c.pb, NULL), NULL, 0) == NH_OK);
  ENSURE_NEAR(C[1], -1.0 / 3.0, 1e-15);
  /* v- = (1, 0, -1): (-13/27, -10/27, 11/9) by u,v,u and (-11/9, 10/27, 13/27) by v,u,v */
  double v[3] = {1, 0, -1}, vp[3];
  double a[3] = {-13.0 / 27, -10.0 / 27, 11.0 / 9}, b[3] = {-11.0 / 9, 10.0 / 27, 13.0 / 27};
  nh_simul_opts o = opts_of(NH_SIMUL_ELASTIC, NH_SIMUL_ENUMERATE);
  nh_simul_result r;
  ENSURE(resolve(&c.pb, v, &o, vp, &r) == NH_OK);
  ENSURE(r.outcomes == 2 && r.branches == 2);
  ENSURE(maxdiff(3, r.outcome_v, a) <= 1e-15 && maxdiff(3, r.outcome_v + 3, b) <= 1e-15);
  ENSURE(r.outcome_len[0] == 3 && r.outcome_len[1] == 3);
  const int *s0 = r.outcome_seq + r.outcome_start[0], *s1 = r.outcome_seq + r.outcome_start[1];
  ENSURE(s0[0] == 0 && s0[1] == 1 && s0[2] == 0 && s1[0] == 1 && s1[1] == 0 && s1[2] == 1);
  ENSURE_NEAR(r.xi, 20.0 * sqrt(2.0) / 27.0, 1e-15);
  for (int j = 0; j < 2; j++) {
    ENSURE_NEAR(total_momentum(3, c.M, r.outcome_v + 3 * j), 0.0, 1e-15);
    ENSURE_NEAR(minner(3, c.M, r.outcome_v + 3 * j, r.outcome_v + 3 * j), 2.0, 1e-14);
    for (int i = 0; i < 2; i++) ENSURE(r.outcome_impulse[2 * j + i] > 0.0);
  }
  /* T18: argmin and argmax (reversed ties) give the two branches; symmetric ties here */
  ENSURE(cradle_case(&c, v, NH_SIMUL_MOST_INFEASIBLE, a, 3) == 0);
  ENSURE(cradle_case(&c, v, NH_SIMUL_LEAST_INFEASIBLE, b, 3) == 0);
  ENSURE(cradle_case(&c, v, NH_SIMUL_INDEX, a, 3) == 0);
  /* the verdict: indeterminate, two outcomes, the same xi */
  nh_simul_verdict vd;
  ENSURE(nh_simul_verdict_of(&c.pb, v, NULL, &vd, work_for(&c.pb, NULL), NULL, 0) == NH_OK);
  ENSURE(vd.kind == NH_SIMUL_INDETERMINATE && vd.outcomes == 2);
  ENSURE_NEAR(vd.xi, 20.0 * sqrt(2.0) / 27.0, 1e-15);
  /* v- = (1, 0, 0): unique (-1/3, 2/9, 8/9) by {u, v} */
  double v1[3] = {1, 0, 0}, w1[3] = {-1.0 / 3, 2.0 / 9, 8.0 / 9};
  ENSURE(resolve(&c.pb, v1, &o, vp, &r) == NH_OK);
  ENSURE(r.outcomes == 1 && r.reflections == 2 && r.xi == 0.0);
  ENSURE(maxdiff(3, vp, w1) <= 1e-15);
  /* m = (3, 1, 1), v- = (1, 0, -1): (-1/4, 5/4, 3/2) and (0, 0, 2), xi = sqrt(2)/2 */
  static const double m311[3] = {3, 1, 1}, m211[3] = {2, 1, 1}, m112[3] = {1, 1, 2};
  chain_init(&c, 3, m311);
  double a2[3] = {-0.25, 1.25, 1.5}, b2[3] = {0, 0, 2};
  ENSURE(resolve(&c.pb, v, &o, vp, &r) == NH_OK);
  ENSURE(r.outcomes == 2);
  int first = maxdiff(3, r.outcome_v, a2) <= 1e-15 ? 0 : 1;
  ENSURE(maxdiff(3, r.outcome_v + 3 * first, a2) <= 1e-15);
  ENSURE(maxdiff(3, r.outcome_v + 3 * (1 - first), b2) <= 1e-15 * 4);
  ENSURE_NEAR(r.xi, sqrt(2.0) / 2.0, 1e-15);
  /* m = (2, 1, 1), v- = (1, 0, 0): (1/9, 4/9, 4/3) by u, v, u */
  chain_init(&c, 3, m211);
  double w3[3] = {1.0 / 9, 4.0 / 9, 4.0 / 3};
  ENSURE(resolve(&c.pb, v1, &o, vp, &r) == NH_OK);
  ENSURE(r.outcomes == 1 && r.reflections == 3 && r.seq[0] == 0 && r.seq[1] == 1 &&
         r.seq[2] == 0);
  ENSURE(maxdiff(3, vp, w3) <= 1e-15);
  /* m = (1, 1, 2): c = -1/sqrt(3) */
  chain_init(&c, 3, m112);
  ENSURE(nh_simul_cosines(&c.pb, NULL, NULL, C, work_for(&c.pb, NULL), NULL, 0) == NH_OK);
  ENSURE_NEAR(C[1], -1.0 / sqrt(3.0), 1e-15);
  /* T18: masses (1, 2, 3, 1.5), v- = (2, 1, 0, -1): 7 distinct outcomes from 13 branches */
  static const double m4[4] = {1, 2, 3, 1.5};
  double v4[4] = {2, 1, 0, -1}, vq[4];
  chain_init(&c, 4, m4);
  ENSURE(resolve(&c.pb, v4, &o, vq, &r) == NH_OK);
  ENSURE(r.outcomes == 7 && r.branches == 13);
  for (int j = 0; j < r.outcomes; j++) {
    nh_simul_result rj = r;
    rj.impulse = r.outcome_impulse + 3 * j;
    ENSURE(check_elastic(&c.pb, v4, r.outcome_v + 4 * j, &rj) == 0);
    ENSURE_NEAR(total_momentum(4, c.M, r.outcome_v + 4 * j), total_momentum(4, c.M, v4), 1e-14);
  }
  return 0;
}

/* ---- T5, T6: plastic and inelastic ------------------------------------------------------ */

static int test_plastic(void) {
  static const double m[3] = {1, 1, 1};
  chain c;
  chain_init(&c, 3, m);
  nh_simul_opts o = opts_of(NH_SIMUL_PLASTIC, NH_SIMUL_MOST_INFEASIBLE);
  nh_simul_result r;
  double v[3] = {1, 0, 0}, vp[3], want[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
  ENSURE(resolve(&c.pb, v, &o, vp, &r) == NH_OK);
  ENSURE(maxdiff(3, vp, want) <= 1e-15 && r.reflections == 0 && r.alpha == 0.0);
  ENSURE_NEAR(r.impulse[0], 2.0 / 3.0, 1e-15);
  ENSURE_NEAR(r.impulse[1], 1.0 / 3.0, 1e-15);
  ENSURE_NEAR(r.energy_before, 0.5, 1e-15);
  ENSURE_NEAR(r.energy_after, 1.0 / 6.0, 1e-15);
  ENSURE_NEAR(r.plastic_loss, 1.0 / 3.0, 1e-15);
  for (int i = 0; i < 2; i++) ENSURE_NEAR(nh_la_dot(3, c.dg + 3 * i, vp), 0.0, 1e-15);
  /* v- = (1, 0, 5): the paper's projection (2, 2, 2) would pull C back (spec 7.1 item 21);
   * the complementarity solution stops A on B (1/2, 1/2) and leaves C: (1/2, 1/2, 5) */
  double w[3] = {1, 0, 5}, want5[3] = {0.5, 0.5, 5.0};
  ENSURE(resolve(&c.pb, w, &o, vp, &r) == NH_OK);
  ENSURE(maxdiff(3, vp, want5) <= 1e-15 && r.plastic_pivots == 0); /* S starts as {A-B} */
  ENSURE_NEAR(r.impulse[0], 0.5, 1e-15);
  ENSURE(r.impulse[1] == 0.0);
  ENSURE_NEAR(r.energy_after, 12.75, 1e-14);
  ENSURE_NEAR(total_momentum(3, c.M, vp), 6.0, 1e-15);
  /* ... which eq. (11) alone (paper_plastic) reports, never accepts */
  o.paper_plastic = 1;
  ENSURE(resolve(&c.pb, w, &o, vp, &r) == NH_ERR_PULLING_IMPULSE);
  ENSURE(r.status == NH_SIMUL_NEGATIVE_IMPULSE && r.contact == 1);
  ENSURE(vp[0] == 1 && vp[1] == 0 && vp[2] == 5);
  ENSURE_NEAR(r.impulse[1], -3.0, 1e-14);
  ENSURE(strcmp(g_msg, "plastic projection (the paper's eq. 11, paper_plastic) needs a pulling "
                       "impulse at contact 1 (Lambda = -3): that contact separates (the default "
                       "active set resolves it)") == 0);
  /* ... and where (11) holds, both give the same bits (the active set starts as {A-B}, the
   * one approaching contact, and takes B-C in: one pivot) */
  nh_simul_opts op = opts_of(NH_SIMUL_PLASTIC, NH_SIMUL_MOST_INFEASIBLE);
  double va[3], vb[3];
  ENSURE(resolve(&c.pb, v, &o, va, &r) == NH_OK && r.plastic_pivots == 0);
  ENSURE(resolve(&c.pb, v, &op, vb, &r) == NH_OK && r.plastic_pivots == 1);
  ENSURE(memcmp(va, vb, sizeof va) == 0);
  /* the inelastic law (R = 1/2) mixes the elastic (0, 1, 5) and plastic (1/2, 1/2, 5) */
  o = opts_of(NH_SIMUL_INELASTIC, NH_SIMUL_MOST_INFEASIBLE);
  o.restitution = 0.5;
  double want6[3] = {0.25, 0.75, 5.0};
  ENSURE(resolve(&c.pb, w, &o, vp, &r) == NH_OK);
  ENSURE(maxdiff(3, vp, want6) <= 1e-15 && r.impulse[0] >= 0.0 && r.impulse[1] >= 0.0);
  o.paper_plastic = 1; /* eq. (11) alone inherits the check for R < 1 */
  ENSURE(resolve(&c.pb, w, &o, vp, &r) == NH_ERR_PULLING_IMPULSE);
  return 0;
}

/* The plastic map on random problems (a random metric, contacts, a nonholonomic row or none):
 * the outcome satisfies (10a, 10b) as a complementarity problem, which determines it: impulses
 * Lambda_i >= 0, rates after dg_i v+ >= 0, Lambda_i dg_i v+ = 0, M (v+ - v-) = sum Lambda_i
 * dg_i^T + A^T mu, A v+ = 0 (for independent normals these determine v+: the cosine matrix is
 * SPD, its complementarity problem has one solution); the energy does not grow */
static int test_plastic_complementarity(void) {
  unsigned long long seed = 0x9e3779b9ULL;
  int pivoted = 0, solved = 0, most = 0;
  for (int trial = 0; trial < 400; trial++) {
    const int n = 3 + trial % 4, nc = trial % 3 == 0, k = 1 + trial % (n - nc);
    double M[MAXN * MAXN], dg[MAXN * MAXN], A[MAXN], v[MAXN], vp[MAXN];
    random_spd(n, &seed, M);
    for (int i = 0; i < k * n; i++) dg[i] = nh_test_rand(&seed, -1, 1);
    for (int i = 0; i < n; i++) A[i] = nh_test_rand(&seed, -1, 1);
    for (int i = 0; i < n; i++) v[i] = nh_test_rand(&seed, -1, 1);
    nh_simul_problem pb = {n, nc, k, M, nc ? A : NULL, dg};
    nh_simul_opts o = opts_of(NH_SIMUL_PLASTIC, NH_SIMUL_MOST_INFEASIBLE);
    nh_simul_result r;
    int st = resolve(&pb, v, &o, vp, &r);
    if (st == NH_ERR_DEPENDENT_CONTACTS || st == NH_ERR_OPPOSING_CONTACTS || st == NH_NO_IMPACT)
      continue;
    if (st != NH_OK) printf("  trial %d: %s\n", trial, g_msg);
    ENSURE(st == NH_OK);
    solved++;
    if (r.plastic_pivots > 0) pivoted++;
    if (r.plastic_pivots > most) most = r.plastic_pivots;
    double scale = sqrt(2.0 * r.energy_before), dv[MAXN];
    for (int i = 0; i < k; i++) {
      const double rate = nh_la_dot(n, dg + i * n, vp);
      ENSURE(r.impulse[i] >= -1e-12 * scale);
      ENSURE(rate >= -1e-12 * scale);
      ENSURE(fabs(r.impulse[i] * rate) <= 1e-11 * scale * scale * (1.0 + fabs(r.impulse[i])));
    }
    if (nc) ENSURE(fabs(nh_la_dot(n, A, vp)) <= 1e-12 * scale);
    ENSURE(r.energy_after <= r.energy_before * (1.0 + 1e-14));
    /* M (v+ - v-) = sum Lambda_i dg_i^T + A^T mu, with v- the input (mu holds the projection) */
    for (int i = 0; i < n; i++) dv[i] = vp[i] - v[i];
    for (int a = 0; a < n; a++) {
      double lhs = 0.0, rhs = 0.0;
      for (int b = 0; b < n; b++) lhs += M[a * n + b] * dv[b];
      for (int i = 0; i < k; i++) rhs += r.impulse[i] * dg[i * n + a];
      if (nc) rhs += r.mu[0] * A[a];
      ENSURE_NEAR(lhs, rhs, 1e-11 * (1.0 + scale));
    }
  }
  /* most draws need no pivot; enough do to exercise the active set */
  printf("  %d solved, %d with pivots (at most %d)\n", solved, pivoted, most);
  ENSURE(solved > 300 && pivoted > 30 && most >= 2);
  return 0;
}

/* inelastic (1, 0, 0) on equal masses with R (and the paper's alpha when paper = 1) */
static int inelastic_case(double R, int paper, const double *want, double loss, double tol) {
  static const double m[3] = {1, 1, 1};
  chain c;
  chain_init(&c, 3, m);
  nh_simul_opts o = opts_of(NH_SIMUL_INELASTIC, NH_SIMUL_MOST_INFEASIBLE);
  o.restitution = R;
  o.paper_alpha = paper;
  nh_simul_result r;
  double v[3] = {1, 0, 0}, vp[3];
  ENSURE(resolve(&c.pb, v, &o, vp, &r) == NH_OK);
  ENSURE(maxdiff(3, vp, want) <= tol);
  ENSURE_NEAR((r.energy_before - r.energy_after) / r.energy_before, loss, tol);
  for (int i = 0; i < 2; i++) ENSURE(nh_la_dot(3, c.dg + 3 * i, vp) >= -1e-15);
  for (int i = 0; i < 2; i++) ENSURE(r.impulse[i] >= 0.0);
  ENSURE_NEAR(total_momentum(3, c.M, vp), 1.0, 1e-15);
  /* the recomputed energetic coefficient sqrt(1 - dE / E_p) is R with alpha = R */
  if (!paper && R < 1.0)
    ENSURE_NEAR(sqrt(1.0 - (r.energy_before - r.energy_after) / r.plastic_loss), R, 1e-12);
  return 0;
}

static int test_inelastic(void) {
  double w07[3] = {0.1, 0.1, 0.8}, w05[3] = {1.0 / 6, 1.0 / 6, 2.0 / 3};
  ENSURE(inelastic_case(0.7, 0, w07, 0.34, 1e-15) == 0);
  ENSURE(inelastic_case(0.5, 0, w05, 0.5, 1e-15) == 0);
  /* the paper's alpha = sqrt(1 - R^2): (0.0953, 0.0953, 0.8094), 32.67% (spec 7.1 item 1) */
  double a = sqrt(1.0 - 0.49), wp[3] = {(1 - a) / 3, (1 - a) / 3, a + (1 - a) / 3};
  ENSURE(inelastic_case(0.7, 1, wp, 0.49 * 2.0 / 3.0, 1e-15) == 0);
  ENSURE_NEAR(wp[0], 0.0953, 5e-5);
  ENSURE_NEAR(wp[2], 0.8094, 5e-5);
  /* R = 0 is the plastic map and R = 1 the elastic one, exactly; the paper's alpha swaps them */
  double pl[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3}, el[3] = {0, 0, 1};
  ENSURE(inelastic_case(0.0, 0, pl, 2.0 / 3.0, 1e-15) == 0);
  ENSURE(inelastic_case(1.0, 0, el, 0.0, 1e-15) == 0);
  ENSURE(inelastic_case(0.0, 1, el, 0.0, 1e-15) == 0);
  ENSURE(inelastic_case(1.0, 1, pl, 2.0 / 3.0, 1e-15) == 0);
  /* identity (18): |v_p|^2 = <v_p, v_e> on a random chain */
  static const double m[4] = {1.3, 0.7, 2.2, 1.1};
  chain c;
  chain_init(&c, 4, m);
  double v[4] = {1.5, 0.2, -0.3, -1.0}, ve[4], vp[4];
  nh_simul_opts oe = nh_simul_opts_default(), op = opts_of(NH_SIMUL_PLASTIC, 0);
  nh_simul_result r;
  ENSURE(resolve(&c.pb, v, &oe, ve, &r) == NH_OK);
  ENSURE(resolve(&c.pb, v, &op, vp, &r) == NH_OK);
  ENSURE_NEAR(minner(4, c.M, vp, vp), minner(4, c.M, vp, ve), 1e-13);
  /* R = 0 and R = 1 reproduce the plastic and elastic laws bit for bit, impulses included */
  nh_simul_opts oi = opts_of(NH_SIMUL_INELASTIC, 0);
  double vi[4], lp[3], le[3];
  memcpy(lp, r.impulse, sizeof lp);
  oi.restitution = 0.0;
  ENSURE(resolve(&c.pb, v, &oi, vi, &r) == NH_OK);
  ENSURE(memcmp(vi, vp, sizeof vi) == 0 && memcmp(lp, r.impulse, sizeof lp) == 0);
  ENSURE(resolve(&c.pb, v, &oe, ve, &r) == NH_OK);
  memcpy(le, r.impulse, sizeof le);
  oi.restitution = 1.0;
  ENSURE(resolve(&c.pb, v, &oi, vi, &r) == NH_OK);
  ENSURE(memcmp(vi, ve, sizeof vi) == 0 && memcmp(le, r.impulse, sizeof le) == 0);
  return 0;
}

/* ---- T7: the existence bound ------------------------------------------------------------ */

/* two unit normals in the plane (M = I) at cosine c */
static void plane_pair(double c, double *M, double *dg) {
  double s = sqrt(1.0 - c * c);
  M[0] = 1, M[1] = 0, M[2] = 0, M[3] = 1;
  dg[0] = 1, dg[1] = 0, dg[2] = c, dg[3] = s;
}

static int test_existence_bound(void) {
  static const struct {
    double c;
    int paper, observed;
  } rows[] = {{0.9, 3, 2},   {0.5, 3, 2},   {0.3, 4, 2},   {-0.3, 5, 3},   {-0.5, 6, 3},
              {-0.6, 7, 4},  {-0.70710678118654752, 8, 4}, {-0.80901699437494742, 10, 5},
              {-0.9, 14, 7}, {-0.95, 20, 10}};
  unsigned long long seed = 0xbeefULL;
  for (size_t t = 0; t < sizeof rows / sizeof rows[0]; t++) {
    double C[4] = {1, rows[t].c, rows[t].c, 1}, M[4], dg[4];
    int obs = 0;
    ENSURE(nh_simul_reflection_bound(2, C, 1e-9, &obs) == rows[t].paper);
    ENSURE(obs == rows[t].observed);
    /* random velocities: never past the bound; the longest is the observed bound */
    plane_pair(rows[t].c, M, dg);
    nh_simul_problem pb = {2, 0, 2, M, NULL, dg};
    int longest = 0;
    for (int trial = 0; trial < 4000; trial++) {
      double th = nh_test_rand(&seed, 0.0, 2.0 * PI), v[2] = {cos(th), sin(th)}, vp[2];
      nh_simul_opts o = opts_of(NH_SIMUL_ELASTIC, trial % 2 ? NH_SIMUL_LEAST_INFEASIBLE
                                                            : NH_SIMUL_MOST_INFEASIBLE);
      nh_simul_result r;
      int st = resolve(&pb, v, &o, vp, &r);
      ENSURE(st == NH_OK || st == NH_NO_IMPACT);
      ENSURE(r.bound == rows[t].paper && r.reflections <= rows[t].paper);
      if (r.reflections > longest) longest = r.reflections;
    }
    ENSURE(longest == rows[t].observed);
  }
  /* one contact, orthogonal pairs, and three general contacts (no theorem) */
  double C1[1] = {1}, C3[9] = {1, 0.2, 0, 0.2, 1, 0, 0, 0, 1}, C0[4] = {1, 0, 0, 1};
  ENSURE(nh_simul_reflection_bound(1, C1, 1e-9, NULL) == 1);
  ENSURE(nh_simul_reflection_bound(2, C0, 1e-9, NULL) == 2);
  ENSURE(nh_simul_reflection_bound(3, C3, 1e-9, NULL) == 0);
  return 0;
}

/* ---- T9, T10: uniqueness ---------------------------------------------------------------- */

static int test_orthogonal(void) {
  unsigned long long seed = 0x5eedULL;
  int n = 5, k = 3;
  double M[MAXN * MAXN], L[MAXN * MAXN], dg[3 * MAXN], U[3 * MAXN], v[MAXN], vp[MAXN], f[MAXN];
  random_spd(n, &seed, M);
  memcpy(L, M, sizeof L);
  ENSURE(nh_la_chol(n, L, 0.0, NULL) == NH_OK);
  /* g-orthogonalise random covectors (Gram-Schmidt in the metric M^-1) */
  for (int i = 0; i < k; i++) {
    for (int j = 0; j < n; j++) dg[i * n + j] = nh_test_rand(&seed, -1.0, 1.0);
    for (int j = 0; j < i; j++) {
      double a = nh_la_dot(n, dg + i * n, U + j * n) / nh_la_dot(n, dg + j * n, U + j * n);
      nh_la_axpy(n, -a, dg + j * n, dg + i * n);
    }
    memcpy(U + i * n, dg + i * n, sizeof(double) * n);
    nh_la_chol_solve(n, L, U + i * n);
  }
  /* v- infeasible at every contact, plus a tangent part */
  for (int j = 0; j < n; j++) v[j] = nh_test_rand(&seed, -0.1, 0.1);
  for (int i = 0; i < k; i++) nh_la_axpy(n, -(1.0 + i), U + i * n, v);
  /* the closed form v - 2 sum s_i / G_ii u_i */
  memcpy(f, v, sizeof f);
  for (int i = 0; i < k; i++) {
    double s = nh_la_dot(n, dg + i * n, v), g = nh_la_dot(n, dg + i * n, U + i * n);
    ENSURE(s < 0.0);
    nh_la_axpy(n, -2.0 * s / g, U + i * n, f);
  }
  nh_simul_problem pb = {n, 0, k, M, NULL, dg};
  nh_simul_opts o = opts_of(NH_SIMUL_ELASTIC, NH_SIMUL_ENUMERATE);
  o.outcome_tol = 1e-12;
  nh_simul_result r;
  ENSURE(resolve(&pb, v, &o, vp, &r) == NH_OK);
  ENSURE(r.outcomes == 1 && r.branches == 6 && r.reflections == 3 && r.bound == 3);
  ENSURE(maxdiff(n, vp, f) <= 1e-12);
  ENSURE(check_elastic(&pb, v, vp, &r) == 0);
  nh_simul_verdict vd;
  ENSURE(nh_simul_verdict_of(&pb, v, NULL, &vd, work_for(&pb, NULL), NULL, 0) == NH_OK);
  ENSURE(vd.kind == NH_SIMUL_UNIQUE_ORTHOGONAL && vd.outcomes == 1 && vd.xi == 0.0);
  /* c != 0: the reflections do not commute */
  double Mp[4], dp[4], a[2], b[2], p[2] = {-0.3, -1.0};
  plane_pair(0.3, Mp, dp);
  nh_simul_problem pp = {2, 0, 2, Mp, NULL, dp};
  void *wk = work_for(&pp, NULL);
  ENSURE(nh_simul_reflect(&pp, 0, p, a, NULL, wk) == NH_OK);
  ENSURE(nh_simul_reflect(&pp, 1, a, a, NULL, wk) == NH_OK);
  ENSURE(nh_simul_reflect(&pp, 1, p, b, NULL, wk) == NH_OK);
  ENSURE(nh_simul_reflect(&pp, 0, b, b, NULL, wk) == NH_OK);
  ENSURE(maxdiff(2, a, b) > 0.1);
  return 0;
}

/* p G_i G_j G_i in the plane pair (M = I, unit normals) */
static int triple(const nh_simul_problem *pb, int i, const double *p, double *out) {
  void *wk = work_for(pb, NULL);
  int j = 1 - i;
  if (nh_simul_reflect(pb, i, p, out, NULL, wk) || nh_simul_reflect(pb, j, out, out, NULL, wk) ||
      nh_simul_reflect(pb, i, out, out, NULL, wk))
    return 1;
  return 0;
}

static int test_theorem3(void) {
  unsigned long long seed = 0x7e57ULL;
  double M[4], dg[4], a[2], b[2], p[2];
  /* the identity p Gu Gv Gu - p Gv Gu Gv = 2 (1 - 4 c^2) (<p,u> u - <p,v> v) */
  for (int t = 0; t < 50; t++) {
    double c = nh_test_rand(&seed, -0.95, 0.95);
    plane_pair(c, M, dg);
    nh_simul_problem pb = {2, 0, 2, M, NULL, dg};
    p[0] = nh_test_rand(&seed, -1, 1), p[1] = nh_test_rand(&seed, -1, 1);
    ENSURE(triple(&pb, 0, p, a) == 0 && triple(&pb, 1, p, b) == 0);
    double pu = nh_la_dot(2, dg, p), pv = nh_la_dot(2, dg + 2, p), f = 2.0 * (1 - 4 * c * c);
    for (int i = 0; i < 2; i++) ENSURE_NEAR(a[i] - b[i], f * (pu * dg[i] - pv * dg[2 + i]), 1e-13);
  }
  /* c = -1/2: p_f = p - 2 (<p,u> + <p,v>) (u + v), <p_f,u> = -<p,v>; verdict: unique */
  plane_pair(-0.5, M, dg);
  nh_simul_problem pb = {2, 0, 2, M, NULL, dg};
  p[0] = -0.2, p[1] = -1.0; /* <p,u> = -0.2, <p,v> = 0.1 - 0.866 < 0 */
  double pu = nh_la_dot(2, dg, p), pv = nh_la_dot(2, dg + 2, p), vp[2];
  ENSURE(pu < 0 && pv < 0);
  nh_simul_opts o = opts_of(NH_SIMUL_ELASTIC, NH_SIMUL_ENUMERATE);
  nh_simul_result r;
  ENSURE(resolve(&pb, p, &o, vp, &r) == NH_OK);
  ENSURE(r.outcomes == 1 && r.reflections == 3);
  for (int i = 0; i < 2; i++) ENSURE_NEAR(vp[i], p[i] - 2 * (pu + pv) * (dg[i] + dg[2 + i]), 1e-15);
  ENSURE_NEAR(nh_la_dot(2, dg, vp), -pv, 1e-15);
  ENSURE_NEAR(nh_la_dot(2, dg + 2, vp), -pu, 1e-15);
  nh_simul_verdict vd;
  ENSURE(nh_simul_verdict_of(&pb, p, NULL, &vd, work_for(&pb, NULL), NULL, 0) == NH_OK);
  ENSURE(vd.kind == NH_SIMUL_UNIQUE_THIRD && vd.outcomes == 1);
  /* c = +1/2 (the paper's sec. V claims uniqueness too): the orders agree but map an
   * infeasible p to an infeasible one, <p_f,u> = <p,v> (not the paper's 2<p,u> - <p,v>) */
  plane_pair(0.5, M, dg);
  p[0] = -1.0, p[1] = -0.2;
  pu = nh_la_dot(2, dg, p), pv = nh_la_dot(2, dg + 2, p);
  ENSURE(pu < 0 && pv < 0);
  ENSURE(triple(&pb, 0, p, a) == 0 && triple(&pb, 1, p, b) == 0);
  ENSURE(maxdiff(2, a, b) <= 1e-15);
  ENSURE_NEAR(nh_la_dot(2, dg, a), pv, 1e-15);
  ENSURE_NEAR(nh_la_dot(2, dg + 2, a), pu, 1e-15);
  ENSURE(fabs(nh_la_dot(2, dg, a) - (2 * pu - pv)) > 0.1);
  ENSURE(nh_simul_verdict_of(&pb, NULL, NULL, &vd, work_for(&pb, NULL), NULL, 0) == NH_OK);
  ENSURE(vd.kind == NH_SIMUL_INDETERMINATE);
  /* the dihedral extension: c = -cos(pi/4) and -cos(pi/5) are order-independent */
  for (int m = 4; m <= 5; m++) {
    plane_pair(-cos(PI / m), M, dg);
    ENSURE(nh_simul_verdict_of(&pb, NULL, NULL, &vd, work_for(&pb, NULL), NULL, 0) == NH_OK);
    ENSURE(vd.kind == NH_SIMUL_UNIQUE_DIHEDRAL && vd.m == m);
    for (int t = 0; t < 200; t++) {
      double th = nh_test_rand(&seed, 0.0, 2.0 * PI), q[2] = {cos(th), sin(th)};
      int st = resolve(&pb, q, &o, vp, &r);
      ENSURE(st == NH_OK || st == NH_NO_IMPACT);
      ENSURE(r.outcomes == 1 && r.reflections <= m);
    }
  }
  return 0;
}

/* ---- T11: the rod falling flat; T12: the billiard break --------------------------------- */

static int test_rod(void) {
  static const struct {
    double I, c, vy, w;
    int steps, outcomes;
  } rows[] = {{1.0 / 12, -0.5, 1.0, 0.0, 3, 1},
              {1.0 / 4, 0.0, 1.0, 0.0, 2, 1},
              {1.0 / 8, -1.0 / 3, 23.0 / 27, 40.0 / 27, 3, 2},
              {1.0 / 6, -0.2, 23.0 / 25, 24.0 / 25, 2, 2}};
  for (int t = 0; t < 4; t++) {
    double M[9] = {1, 0, 0, 0, 1, 0, 0, 0, rows[t].I}, dg[6] = {0, 1, -0.5, 0, 1, 0.5};
    double v[3] = {0, -1, 0}, vp[3], C[4];
    nh_simul_problem pb = {3, 0, 2, M, NULL, dg};
    ENSURE(nh_simul_cosines(&pb, NULL, NULL, C, work_for(&pb, NULL), NULL, 0) == NH_OK);
    ENSURE_NEAR(C[1], rows[t].c, 1e-15);
    nh_simul_opts o = opts_of(NH_SIMUL_ELASTIC, NH_SIMUL_ENUMERATE);
    nh_simul_result r;
    ENSURE(resolve(&pb, v, &o, vp, &r) == NH_OK);
    ENSURE(r.outcomes == rows[t].outcomes);
    for (int j = 0; j < r.outcomes; j++) {
      const double *x = r.outcome_v + 3 * j;
      ENSURE(r.outcome_len[j] == rows[t].steps);
      ENSURE_NEAR(x[0], 0.0, 1e-15);
      ENSURE_NEAR(x[1], rows[t].vy, 1e-15);
      ENSURE_NEAR(fabs(x[2]), rows[t].w, 1e-14);
    }
    if (r.outcomes == 2) ENSURE_NEAR(r.outcome_v[2], -r.outcome_v[5], 1e-14);
  }
  return 0;
}

/* equal billiard balls (r = 1, m = 1) a, b touching the cue ball c at angle th; c moves +x */
static void billiard(double th, double mc, double *M, double *dg, int paper_sign) {
  double xa = 2 * cos(th / 2), ya = 2 * sin(th / 2), xb = xa, yb = -ya, sg = paper_sign ? -1 : 1;
  double m[6] = {1, 1, 1, 1, mc, mc};
  memset(M, 0, 36 * sizeof(double));
  for (int i = 0; i < 6; i++) M[i * 6 + i] = m[i];
  double a[6] = {xa, ya, 0, 0, -xa, -ya}, b[6] = {0, 0, xb, yb, -xb, -yb};
  for (int i = 0; i < 6; i++) dg[i] = sg * a[i] / 2, dg[6 + i] = sg * b[i] / 2;
}

static int test_billiard(void) {
  static const double deg[] = {60, 70, 80, 90, 100, 110, 120, 125, 128, 130,
                               135, 140, 150, 160, 170, 179};
  static const double xi[] = {0.750000, 0.510177, 0.254233, 0.000000, 0.232727, 0.424574,
                              0.559017, 0.600870, 0.617291, 0.570167, 0.445223, 0.332377,
                              0.154914, 0.049254, 0.006421, 0.000007};
  double M[36], dg[12], v[6] = {0, 0, 0, 0, 1, 0}, vp[6], C[4];
  nh_simul_problem pb = {6, 0, 2, M, NULL, dg};
  nh_simul_opts o = opts_of(NH_SIMUL_ELASTIC, NH_SIMUL_ENUMERATE);
  nh_simul_result r;
  for (size_t t = 0; t < sizeof deg / sizeof deg[0]; t++) {
    double th = deg[t] * PI / 180;
    billiard(th, 1.0, M, dg, 0);
    ENSURE(nh_simul_cosines(&pb, NULL, NULL, C, work_for(&pb, NULL), NULL, 0) == NH_OK);
    ENSURE_NEAR(C[1], cos(th) / 2, 1e-15);
    ENSURE(resolve(&pb, v, &o, vp, &r) == NH_OK);
    ENSURE_NEAR(r.xi, xi[t], 5e-7);
    ENSURE(r.outcome_len[0] == (deg[t] <= 128.17 ? 2 : 3));
    if (deg[t] <= 128.17) { /* the two-step closed form */
      double ct = cos(th);
      ENSURE_NEAR(r.xi, sqrt(2.0) * fabs(ct) * cos(th / 2) * sqrt(2 - ct), 1e-14);
    }
    for (int j = 0; j < r.outcomes; j++) {
      nh_simul_result rj = r;
      rj.impulse = r.outcome_impulse + 2 * j;
      ENSURE(check_elastic(&pb, v, r.outcome_v + 6 * j, &rj) == 0);
    }
  }
  /* 60 degrees: the momenta of the a-first outcome */
  billiard(PI / 3, 1.0, M, dg, 0);
  ENSURE(resolve(&pb, v, &o, vp, &r) == NH_OK);
  ENSURE(r.outcome_seq[0] == 0);
  double want[6] = {0.75, 0.4330127, 0.375, -0.2165064, -0.125, -0.2165064};
  ENSURE(maxdiff(6, r.outcome_v, want) <= 5e-8);
  /* a light cue ball (m_c = 1/2): c = -1/2 at cos th = -3/4, no indeterminacy */
  billiard(acos(-0.75), 0.5, M, dg, 0);
  ENSURE(resolve(&pb, v, &o, vp, &r) == NH_OK);
  ENSURE(r.outcomes == 1 && r.xi == 0.0);
  /* the paper's printed normals have the wrong sign (spec 7.1 item 13): with them the cue ball
   * would seem to separate, and nothing happens */
  billiard(PI / 2, 1.0, M, dg, 1);
  ENSURE(resolve(&pb, v, &o, vp, &r) == NH_NO_IMPACT);
  ENSURE(memcmp(vp, v, sizeof vp) == 0);
  return 0;
}

/* ---- nonholonomic constraints: the constrained metric ----------------------------------- */

static int test_nonholonomic(void) {
  unsigned long long seed = 0xa11ceULL;
  int n = 4;
  double M[16], A[4], dg[8], v[4], vp[4], vs[4], work[256];
  for (int trial = 0; trial < 50; trial++) {
    random_spd(n, &seed, M);
    for (int i = 0; i < n; i++) A[i] = nh_test_rand(&seed, -1, 1);
    for (int i = 0; i < 8; i++) dg[i] = nh_test_rand(&seed, -1, 1);
    for (int i = 0; i < n; i++) v[i] = nh_test_rand(&seed, -1, 1);
    nh_simul_problem pb = {n, 1, 2, M, A, dg};
    nh_simul_opts o = nh_simul_opts_default();
    nh_simul_result r;
    /* an admissible v-: the invariants in the constrained metric */
    ENSURE(nh_project_velocity(n, 1, M, A, v, vs, work) == NH_OK);
    double vq[4];
    int st = resolve(&pb, vs, &o, vq, &r);
    ENSURE(st == NH_OK || st == NH_NO_IMPACT);
    ENSURE(r.projected == 0);
    ENSURE_NEAR(nh_la_dot(n, A, vq), 0.0, 1e-13);
    if (st == NH_OK) ENSURE(check_elastic(&pb, vs, vq, &r) == 0);
    /* a drifted v-: projected first, the same outcome, and the impulse identity holds for
     * the v- given (mu includes the projection impulse) */
    ENSURE(resolve(&pb, v, &o, vp, &r) == st);
    ENSURE(r.projected == 1);
    ENSURE(maxdiff(n, vp, vq) <= 1e-13);
    if (st == NH_OK)
      for (int a = 0; a < n; a++) {
        double lhs = 0.0, rhs = r.mu[0] * A[a];
        for (int b = 0; b < n; b++) lhs += M[a * n + b] * (vp[b] - v[b]);
        for (int i = 0; i < 2; i++) rhs += r.impulse[i] * dg[i * n + a];
        ENSURE_NEAR(lhs, rhs, 1e-12);
      }
    /* one contact: the single-impact map's velocity, alpha = -Lambda */
    nh_simul_problem p1 = {n, 1, 1, M, A, dg};
    nh_impact_law law = {NH_IMPACT_ELASTIC, 1.0};
    nh_impact_info info;
    ENSURE(nh_project_velocity(n, 1, M, A, v, vs, work) == NH_OK);
    if (nh_la_dot(n, dg, vs) < 0.0) {
      double vm[4];
      ENSURE(resolve(&p1, vs, &o, vp, &r) == NH_OK);
      ENSURE(nh_impact_map(n, 1, M, A, dg, vs, law, NULL, vm, NULL, &info, work) == NH_OK);
      ENSURE(maxdiff(n, vp, vm) <= 1e-12);
      ENSURE_REL(r.impulse[0], -info.alpha, 1e-12);
    }
  }
  /* projection off: a drifted v- is refused */
  nh_simul_problem pb = {n, 1, 2, M, A, dg};
  nh_simul_opts o = nh_simul_opts_default();
  nh_simul_result r;
  o.project = 0;
  ENSURE(resolve(&pb, v, &o, vp, &r) == NH_ERR_CONSTRAINT);
  static const char want[] = "simultaneous impact: v- violates the velocity constraints (|A v| = ";
  ENSURE(r.status == NH_SIMUL_BAD_INPUT && strncmp(g_msg, want, sizeof want - 1) == 0);
  ENSURE(vp[0] == v[0] && vp[3] == v[3]);
  return 0;
}

/* ---- bad input: one status and one message each ----------------------------------------- */

static int test_bad_input(void) {
  double M2[4] = {1, 0, 0, 1}, v2[2] = {-1, -1}, vp[3];
  nh_simul_opts o = nh_simul_opts_default();
  nh_simul_result r;
  /* linearly dependent normals (three in the plane) */
  double d3[6] = {1, 0, 0, 1, 1, 1};
  nh_simul_problem p3 = {2, 0, 3, M2, NULL, d3};
  ENSURE(resolve(&p3, v2, &o, vp, &r) == NH_ERR_DEPENDENT_CONTACTS);
  ENSURE(r.status == NH_SIMUL_DEPENDENT && r.contact == 2 && vp[0] == -1 && vp[1] == -1);
  ENSURE(strcmp(g_msg, "the 3 contact normals are linearly dependent (rank 2 in the kinetic "
                       "metric): contact 2 is in the span of the contacts before it; the "
                       "impact is not determined") == 0);
  /* opposing contacts, refused (opposing_plastic = 0; the default resolves them,
   * test_simul_more.c) */
  double dop[4] = {1, 0, -2, 0};
  nh_simul_problem pop = {2, 0, 2, M2, NULL, dop};
  o.opposing_plastic = 0;
  ENSURE(resolve(&pop, v2, &o, vp, &r) == NH_ERR_OPPOSING_CONTACTS);
  ENSURE(r.status == NH_SIMUL_OPPOSING && r.contact == 0 && r.other == 1);
  ENSURE(strcmp(g_msg, "contacts 0 and 1 oppose (cosine -1): their feasible set is the common "
                       "tangent, elastic reflections cycle for ever and no law determines the "
                       "impulses") == 0);
  /* ... their cosines are still reported */
  double C[4];
  ENSURE(nh_simul_cosines(&pop, &o, NULL, C, work_for(&pop, &o), NULL, 0) ==
         NH_ERR_OPPOSING_CONTACTS);
  ENSURE(C[1] == -1.0);
  o.opposing_plastic = 1;
  /* duplicates */
  double ddu[4] = {1, 0, 2, 0};
  nh_simul_problem pdu = {2, 0, 2, M2, NULL, ddu};
  ENSURE(resolve(&pdu, v2, &o, vp, &r) == NH_ERR_DEPENDENT_CONTACTS);
  ENSURE(r.status == NH_SIMUL_DEPENDENT && r.contact == 0 && r.other == 1);
  ENSURE(strcmp(g_msg, "contacts 0 and 1 are duplicates (cosine 1): merge them") == 0);
  /* a sequence past the bound: (3, 2, 1) on equal masses needs three reflections */
  static const double m[3] = {1, 1, 1};
  chain c;
  chain_init(&c, 3, m);
  double v[3] = {3, 2, 1};
  o.max_reflections = 2;
  ENSURE(resolve(&c.pb, v, &o, vp, &r) == NH_ERR_PAST_BOUND);
  ENSURE(r.status == NH_SIMUL_PAST_BOUND && vp[0] == 3 && vp[2] == 1);
  ENSURE(strcmp(g_msg, "elastic propagation passed its bound of 2 reflections (max_reflections) "
                       "without reaching a feasible velocity (still approaching: contact 0)") ==
         0);
  o.policy = NH_SIMUL_ENUMERATE;
  ENSURE(resolve(&c.pb, v, &o, vp, &r) == NH_ERR_PAST_BOUND);
  ENSURE(r.status == NH_SIMUL_PAST_BOUND);
  /* enumeration past its capacity */
  static const double m121[3] = {1, 2, 1};
  chain_init(&c, 3, m121);
  double w[3] = {1, 0, -1};
  o = opts_of(NH_SIMUL_ELASTIC, NH_SIMUL_ENUMERATE);
  o.max_outcomes = 1;
  ENSURE(resolve(&c.pb, w, &o, vp, &r) == NH_ERR_NO_CONVERGENCE);
  ENSURE(r.status == NH_SIMUL_TOO_MANY_OUTCOMES);
  ENSURE(strcmp(g_msg, "enumeration found more than 1 distinct outcomes (max_outcomes)") == 0);
  o.max_outcomes = 64;
  o.max_branches = 1;
  ENSURE(resolve(&c.pb, w, &o, vp, &r) == NH_ERR_NO_CONVERGENCE);
  ENSURE(r.status == NH_SIMUL_TOO_MANY_OUTCOMES);
  ENSURE(strcmp(g_msg, "enumeration visited more than 1 complete sequences (max_branches)") == 0);
  /* a gap gradient in the span of the constraints */
  double M3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, A[3] = {1, 0, 0}, dd[3] = {2, 0, 0};
  double v3[3] = {0, 1, 0};
  nh_simul_problem pdg = {3, 1, 1, M3, A, dd};
  o = nh_simul_opts_default();
  ENSURE(resolve(&pdg, v3, &o, vp, &r) == NH_DEGENERATE_IMPACT);
  ENSURE(r.status == NH_SIMUL_DEGENERATE && r.contact == 0);
  ENSURE(strcmp(g_msg, "contact 0: its gap gradient lies in the span of the constraint "
                       "one-forms (no normal direction left)") == 0);
  /* arguments */
  double Mbad[4] = {1, 2, 2, 1};
  nh_simul_problem pbad = {2, 0, 1, Mbad, NULL, dop};
  ENSURE(resolve(&pbad, v2, &o, vp, &r) == NH_ERR_NOT_SPD);
  ENSURE(strcmp(g_msg, "simultaneous impact: the mass matrix is not positive definite") == 0);
  nh_simul_problem pnull = {2, 0, 1, M2, NULL, NULL};
  ENSURE(resolve(&pnull, v2, &o, vp, &r) == NH_ERR_ARG);
  ENSURE(strcmp(g_msg, "simultaneous impact: invalid sizes, NULL matrices or options") == 0);
  o.restitution = 1.5;
  ENSURE(nh_simul_work_size(2, 0, 1, &o) == 0);
  double vn[2] = {NAN, 0};
  o = nh_simul_opts_default();
  nh_simul_problem pok = {2, 0, 1, M2, NULL, dop};
  ENSURE(resolve(&pok, vn, &o, vp, &r) == NH_ERR_ARG);
  ENSURE(strcmp(g_msg, "simultaneous impact: non-finite value in M, A, the gradients or v") == 0);
  return 0;
}

/* ---- conservation on random chains and random contact sets (T16, T17) ------------------- */

static int test_random_conservation(void) {
  unsigned long long seed = 0xc0ffeeULL;
  int longest = 0;
  for (int trial = 0; trial < 300; trial++) {
    int n = 3 + trial % 4;
    double m[MAXN], v[MAXN], vp[MAXN];
    for (int i = 0; i < n; i++) m[i] = nh_test_rand(&seed, 0.2, 3.0);
    for (int i = 0; i < n; i++) v[i] = nh_test_rand(&seed, -2.0, 2.0);
    chain c;
    chain_init(&c, n, m);
    /* every policy; enumerate up to five balls (six give ~1e5 complete sequences) */
    for (int pol = 0; pol <= (n <= 5 ? NH_SIMUL_ENUMERATE : NH_SIMUL_INDEX); pol++) {
      nh_simul_opts o = opts_of(NH_SIMUL_ELASTIC, (nh_simul_policy)pol);
      o.max_outcomes = 1024;
      nh_simul_result r;
      int st = resolve(&c.pb, v, &o, vp, &r);
      if (!(st == NH_OK || st == NH_NO_IMPACT)) printf("  n %d pol %d: %s\n", n, pol, g_msg);
      ENSURE(st == NH_OK || st == NH_NO_IMPACT);
      for (int j = 0; j < r.outcomes; j++) {
        nh_simul_result rj = r;
        rj.impulse = r.outcome_impulse + (n - 1) * j;
        ENSURE(check_elastic(&c.pb, v, r.outcome_v + n * j, &rj) == 0);
        ENSURE_NEAR(total_momentum(n, c.M, r.outcome_v + n * j), total_momentum(n, c.M, v),
                    1e-13);
      }
    }
  }
  /* three contacts in R^3 with a random metric: terminates, the invariants hold */
  for (int trial = 0; trial < 200; trial++) {
    double M[9], dg[9], v[3], vp[3];
    random_spd(3, &seed, M);
    for (int i = 0; i < 9; i++) dg[i] = nh_test_rand(&seed, -1, 1);
    for (int i = 0; i < 3; i++) v[i] = nh_test_rand(&seed, -1, 1);
    nh_simul_problem pb = {3, 0, 3, M, NULL, dg};
    nh_simul_opts o = nh_simul_opts_default();
    nh_simul_result r;
    int st = resolve(&pb, v, &o, vp, &r);
    if (st == NH_ERR_DEPENDENT_CONTACTS || st == NH_ERR_OPPOSING_CONTACTS)
      continue; /* a nearly dependent draw */
    ENSURE(st == NH_OK || st == NH_NO_IMPACT);
    ENSURE(check_elastic(&pb, v, vp, &r) == 0);
    if (r.reflections > longest) longest = r.reflections;
  }
  ENSURE(longest >= 3);
  return 0;
}

/* ---- T18: enumeration in the most-infeasible order; truncation ---------------------------- */

/* Random 5-ball chains (masses in [0.2, 5], velocities in [-1, 1]; some have thousands of
 * outcomes, the search kept to ENUM_MAX_OUTCOMES and truncated past it): every outcome
 * conserves energy and momentum, is feasible, pushes (T16); outcome 0 is the most-infeasible
 * policy's, bit for bit (velocity, sequence, impulses); with max_outcomes N below the count
 * and truncate_outcomes the search keeps exactly the first N outcomes of the larger search,
 * flagged truncated, and without it fails as before. */
#define ENUM_TRIALS 100
#define ENUM_MAX_OUTCOMES 200
static int test_enumerate_order(void) {
  unsigned long long seed = 2718281828ULL;
  int most = 0, truncated = 0;
  for (int t = 0; t < ENUM_TRIALS; t++) {
    double m[5], v[5], vm[5], ve[5];
    for (int i = 0; i < 5; i++) m[i] = nh_test_rand(&seed, 0.2, 5.0), v[i] = nh_test_rand(&seed, -1.0, 1.0);
    chain c;
    chain_init(&c, 5, m);
    nh_simul_opts o = opts_of(NH_SIMUL_ELASTIC, NH_SIMUL_MOST_INFEASIBLE);
    nh_simul_result rm, r;
    int st = resolve(&c.pb, v, &o, vm, &rm);
    if (st == NH_NO_IMPACT) continue;
    ENSURE(st == NH_OK);
    int len = rm.reflections, seq[64];
    double lam[4];
    ENSURE(len <= 64);
    memcpy(seq, rm.seq, sizeof(int) * (size_t)len);
    memcpy(lam, rm.impulse, sizeof lam);
    o = opts_of(NH_SIMUL_ELASTIC, NH_SIMUL_ENUMERATE);
    o.max_outcomes = ENUM_MAX_OUTCOMES;
    o.truncate_outcomes = 1;
    ENSURE(resolve(&c.pb, v, &o, ve, &r) == NH_OK);
    const int was_truncated = r.truncated;
    ENSURE(memcmp(ve, vm, sizeof ve) == 0 && memcmp(r.outcome_v, vm, sizeof vm) == 0);
    ENSURE(r.outcome_len[0] == len && r.outcome_start[0] == 0 && r.reflections == len);
    ENSURE(memcmp(r.outcome_seq, seq, sizeof(int) * (size_t)len) == 0);
    ENSURE(memcmp(r.outcome_impulse, lam, sizeof lam) == 0);
    const double p0 = total_momentum(5, c.M, v);
    for (int j = 0; j < r.outcomes; j++) {
      nh_simul_result rj = r;
      rj.impulse = r.outcome_impulse + 4 * j;
      ENSURE(check_elastic(&c.pb, v, r.outcome_v + 5 * j, &rj) == 0);
      ENSURE_NEAR(total_momentum(5, c.M, r.outcome_v + 5 * j), p0, 1e-13);
      ENSURE(j == 0 || r.outcome_start[j] == r.outcome_start[j - 1] + r.outcome_len[j - 1]);
    }
    if (r.outcomes > most) most = r.outcomes;
    truncated += was_truncated;
    if (r.outcomes < 3) continue;
    /* the cap below the count: the first N kept */
    const int n = r.outcomes, N = n / 2;
    double *all = malloc(sizeof(double) * 5 * (size_t)n);
    ENSURE(all != NULL);
    memcpy(all, r.outcome_v, sizeof(double) * 5 * (size_t)n);
    o.max_outcomes = N;
    o.truncate_outcomes = 0;
    ENSURE(resolve(&c.pb, v, &o, ve, &r) == NH_ERR_NO_CONVERGENCE && r.status == NH_SIMUL_TOO_MANY_OUTCOMES);
    o.truncate_outcomes = 1;
    ENSURE(resolve(&c.pb, v, &o, ve, &r) == NH_OK && r.truncated && r.outcomes == N);
    ENSURE(memcmp(r.outcome_v, all, sizeof(double) * 5 * (size_t)N) == 0 && memcmp(ve, vm, sizeof ve) == 0);
    ENSURE(r.xi <= 2.0 + 1e-12); /* |v_a - v_b|_M <= 2 |v-|_M */
    free(all);
    /* the branch cap: at least outcome 0 */
    o.max_outcomes = ENUM_MAX_OUTCOMES, o.max_branches = 1;
    ENSURE(resolve(&c.pb, v, &o, ve, &r) == NH_OK && r.truncated && r.outcomes == 1 && r.branches == 1);
    ENSURE(memcmp(ve, vm, sizeof ve) == 0);
  }
  printf("  most outcomes of a 5-ball chain: %d (cap %d); %d searches truncated\n", most,
         ENUM_MAX_OUTCOMES, truncated);
  ENSURE(most > 64 && truncated > 0);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_gamma_algebra);
  RUN_TEST(test_single_contact);
  RUN_TEST(test_cradle_equal);
  RUN_TEST(test_cradle_unequal);
  RUN_TEST(test_plastic);
  RUN_TEST(test_plastic_complementarity);
  RUN_TEST(test_inelastic);
  RUN_TEST(test_existence_bound);
  RUN_TEST(test_orthogonal);
  RUN_TEST(test_theorem3);
  RUN_TEST(test_rod);
  RUN_TEST(test_billiard);
  RUN_TEST(test_nonholonomic);
  RUN_TEST(test_bad_input);
  RUN_TEST(test_random_conservation);
  RUN_TEST(test_enumerate_order);
  free(g_work);
  return TEST_SUMMARY();
}
