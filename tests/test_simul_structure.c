/* test_simul_structure.c - the structured solve of simultaneous impacts (src/impact/
 * simul_struct.c: the zeros of M and of the gap gradients skipped) against the dense reference
 * (nh_simul_opts.dense_reference): every result bit for bit (velocity, impulses, sequence,
 * constraint impulses, energies, outcomes, status, message, the cosines, the verdict) on
 * chains, planar chains, dense, banded and one-sided mass matrices, constraints, signed zeros,
 * every law and policy, the failures, and the values where the structured path steps back
 * (underflowing normals, an overflowing |v|_M); and the structured path taken where it applies. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "impact/simul_internal.h"
#include "nholo/impact.h"

#define MAXQ 64          /* the largest problem here: coordinates */
#define MAXK 64          /* and contacts */
#define RANDOM_CASES 400 /* random problems per family */
#define BIG_CHAIN 50     /* balls of the chain whose structure is checked */
#define VERDICT_MAX_K 6  /* the verdict (an enumeration) compared up to this many contacts */

static void *g_work[2];
static size_t g_size[2];

static unsigned long g_seed = 20240531;
static double urand(void) { /* uniform in [0, 1) */
  g_seed = g_seed * 6364136223846793005UL + 1442695040888963407UL;
  return (double)(g_seed >> 11) / 9007199254740992.0;
}

/* workspace d (0 structured, 1 dense) for the problem and options */
static void *work(int d, const nh_simul_problem *pb, const nh_simul_opts *o) {
  size_t n = nh_simul_work_size(pb->nq, pb->nc, pb->k, o);
  if (n > g_size[d]) {
    free(g_work[d]);
    g_work[d] = malloc(n);
    g_size[d] = g_work[d] ? n : 0;
  }
  return g_work[d];
}

/* bitwise equal arrays (either both NULL, or both n entries the same bits) */
static int same_bits(const void *a, const void *b, size_t bytes) {
  if (!a || !b) return a == b || bytes == 0;
  return memcmp(a, b, bytes) == 0;
}

/* the two results (structured r[0], dense r[1]) agree in every field, bit for bit */
static int same_results(const nh_simul_problem *pb, const int st[2], const nh_simul_result r[2],
                        double v[2][MAXQ], char msg[2][512]) {
  const nh_simul_result *a = &r[0], *b = &r[1];
  const int nq = pb->nq, k = pb->k, nc = pb->nc;
  ENSURE(st[0] == st[1]);
  ENSURE(strcmp(msg[0], msg[1]) == 0);
  ENSURE(same_bits(v[0], v[1], sizeof(double) * (size_t)nq));
  ENSURE(a->status == b->status && a->contact == b->contact && a->other == b->other);
  ENSURE(a->reflections == b->reflections && a->bound == b->bound && a->projected == b->projected);
  ENSURE(a->plastic_pivots == b->plastic_pivots && a->fallback == b->fallback);
  ENSURE(a->outcomes == b->outcomes && a->branches == b->branches && a->truncated == b->truncated);
  ENSURE(same_bits(&a->energy_before, &b->energy_before, sizeof(double)));
  ENSURE(same_bits(&a->energy_after, &b->energy_after, sizeof(double)));
  ENSURE(same_bits(&a->plastic_loss, &b->plastic_loss, sizeof(double)));
  ENSURE(same_bits(&a->alpha, &b->alpha, sizeof(double)));
  ENSURE(same_bits(&a->xi, &b->xi, sizeof(double)));
  if (st[0] != NH_OK) return 0;
  ENSURE(same_bits(a->seq, b->seq, sizeof(int) * (size_t)a->reflections));
  ENSURE(same_bits(a->impulse, b->impulse, sizeof(double) * (size_t)k));
  ENSURE(same_bits(a->mu, b->mu, sizeof(double) * (size_t)nc));
  const int n = a->outcomes;
  ENSURE(n >= 1);
  ENSURE(same_bits(a->outcome_start, b->outcome_start, sizeof(int) * (size_t)n));
  ENSURE(same_bits(a->outcome_len, b->outcome_len, sizeof(int) * (size_t)n));
  ENSURE(same_bits(a->outcome_v, b->outcome_v, sizeof(double) * (size_t)n * (size_t)nq));
  ENSURE(same_bits(a->outcome_impulse, b->outcome_impulse, sizeof(double) * (size_t)n * (size_t)k));
  const int nos = a->outcome_start[n - 1] + a->outcome_len[n - 1];
  ENSURE(same_bits(a->outcome_seq, b->outcome_seq, sizeof(int) * (size_t)nos));
  return 0;
}

/* resolve with the structured solve and the dense reference, the same in every bit; also
 * the cosines and the verdict. *ok counts the resolutions that succeeded */
static int compare(const nh_simul_problem *pb, const double *v0, nh_simul_opts o, int *ok) {
  int st[2];
  nh_simul_result r[2];
  double v[2][MAXQ], G[2][MAXK * MAXK], C[2][MAXK * MAXK];
  char msg[2][512];
  const int kk = pb->k * pb->k;
  for (int d = 0; d < 2; d++) {
    o.dense_reference = d;
    msg[d][0] = '\0';
    st[d] = nh_simul_resolve(pb, v0, &o, v[d], &r[d], work(d, pb, &o), msg[d], sizeof msg[d]);
  }
  if (same_results(pb, st, r, v, msg)) return 1;
  if (st[0] == NH_OK) ++*ok;
  for (int d = 0; d < 2; d++) {
    o.dense_reference = d;
    memset(G[d], 0, sizeof G[d]), memset(C[d], 0, sizeof C[d]);
    st[d] = nh_simul_cosines(pb, &o, G[d], C[d], work(d, pb, &o), msg[d], sizeof msg[d]);
  }
  ENSURE(st[0] == st[1] && strcmp(msg[0], msg[1]) == 0);
  ENSURE(same_bits(G[0], G[1], sizeof(double) * (size_t)kk));
  ENSURE(same_bits(C[0], C[1], sizeof(double) * (size_t)kk));
  if (pb->k <= VERDICT_MAX_K) { /* (the verdict enumerates every order) */
    nh_simul_verdict vd[2];
    for (int d = 0; d < 2; d++) {
      o.dense_reference = d;
      st[d] = nh_simul_verdict_of(pb, v0, &o, &vd[d], work(d, pb, &o), msg[d], sizeof msg[d]);
    }
    ENSURE(st[0] == st[1] && strcmp(msg[0], msg[1]) == 0);
    ENSURE(vd[0].kind == vd[1].kind && vd[0].outcomes == vd[1].outcomes && vd[0].m == vd[1].m);
    ENSURE(same_bits(&vd[0].xi, &vd[1].xi, sizeof(double)));
    ENSURE(same_bits(&vd[0].c_min, &vd[1].c_min, sizeof(double)));
  }
  return 0;
}

/* a chain of n balls (masses m), gaps x_{i+1} - x_i - d: rows -1, +1 */
static void chain(int n, const double *m, double *M, double *dg) {
  memset(M, 0, sizeof(double) * (size_t)n * (size_t)n);
  memset(dg, 0, sizeof(double) * (size_t)(n - 1) * (size_t)n);
  for (int i = 0; i < n; i++) M[i * n + i] = m[i];
  for (int i = 0; i < n - 1; i++) dg[i * n + i] = -1.0, dg[i * n + i + 1] = 1.0;
}

/* velocities: random in [-1, 1], some exact zeros of either sign */
static void velocities(int n, double *v) {
  for (int i = 0; i < n; i++) {
    double u = urand();
    v[i] = u < 0.15 ? 0.0 : u < 0.3 ? -0.0 : 2.0 * urand() - 1.0;
  }
}

static const nh_simul_law LAWS[4] = {NH_SIMUL_ELASTIC, NH_SIMUL_PLASTIC, NH_SIMUL_INELASTIC,
                                     NH_SIMUL_ELASTIC};
static const nh_simul_policy POLICIES[3] = {NH_SIMUL_MOST_INFEASIBLE, NH_SIMUL_LEAST_INFEASIBLE,
                                            NH_SIMUL_INDEX};

/* options of case c: a law (the fourth: paper_plastic with the inelastic law) and a policy,
 * enumerate on small problems */
static nh_simul_opts opts_of(int c, int k) {
  nh_simul_opts o = nh_simul_opts_default();
  o.law = LAWS[c % 4];
  o.restitution = o.law == NH_SIMUL_INELASTIC ? 0.5 : 1.0;
  if (c % 4 == 3) o.law = NH_SIMUL_INELASTIC, o.restitution = 0.3, o.paper_plastic = 1;
  o.policy = POLICIES[(c / 4) % 3];
  if (k <= 5 && c % 7 == 0) o.policy = NH_SIMUL_ENUMERATE, o.truncate_outcomes = 1;
  return o;
}

/* random chains: equal, alternating and random masses, up to 40 balls */
static int test_chains(void) {
  static double M[MAXQ * MAXQ], dg[MAXK * MAXQ];
  double m[MAXQ], v[MAXQ];
  int ok = 0;
  for (int c = 0; c < RANDOM_CASES; c++) {
    const int n = 2 + (int)(urand() * 39.0);
    for (int i = 0; i < n; i++) m[i] = c % 3 == 0 ? 1.0 : c % 3 == 1 ? (i & 1 ? 2.0 : 1.0) : 0.2 + 4.8 * urand();
    chain(n, m, M, dg);
    velocities(n, v);
    if (c % 5 == 0) { /* the cradle: the first ball in, the others at rest */
      for (int i = 0; i < n; i++) v[i] = 0.0;
      v[0] = 1.0;
    }
    const nh_simul_problem pb = {n, 0, n - 1, M, NULL, dg};
    if (compare(&pb, v, opts_of(c, n - 1), &ok)) {
      printf("  case %d: %d balls\n", c, n);
      return 1;
    }
  }
  ENSURE(ok > RANDOM_CASES / 2); /* mostly resolutions, not refusals */
  return 0;
}

/* planar chains: ball i + 1 touches ball i at a random angle (radius 1); the gradients have
 * four nonzeros, the cosines are general */
static int test_planar_chains(void) {
  static double M[MAXQ * MAXQ], dg[MAXK * MAXQ];
  double x[MAXQ], v[MAXQ];
  int ok = 0;
  for (int c = 0; c < RANDOM_CASES; c++) {
    const int nb = 2 + (int)(urand() * 20.0), nq = 2 * nb, k = nb - 1;
    x[0] = x[1] = 0.0;
    for (int i = 1; i < nb; i++) {
      const double th = (urand() - 0.5) * 2.0;
      x[2 * i] = x[2 * i - 2] + 2.0 * cos(th), x[2 * i + 1] = x[2 * i - 1] + 2.0 * sin(th);
    }
    memset(M, 0, sizeof(double) * (size_t)nq * (size_t)nq);
    memset(dg, 0, sizeof(double) * (size_t)k * (size_t)nq);
    for (int i = 0; i < nb; i++) {
      const double mi = c & 1 ? 1.0 : 0.5 + urand();
      M[(2 * i) * nq + 2 * i] = M[(2 * i + 1) * nq + 2 * i + 1] = mi;
    }
    for (int j = 0; j < k; j++) { /* |x_{j+1} - x_j| - 2 */
      const double dx = (x[2 * j + 2] - x[2 * j]) / 2.0, dy = (x[2 * j + 3] - x[2 * j + 1]) / 2.0;
      double *r = dg + (size_t)j * nq;
      r[2 * j] = -dx, r[2 * j + 1] = -dy, r[2 * j + 2] = dx, r[2 * j + 3] = dy;
    }
    velocities(nq, v);
    const nh_simul_problem pb = {nq, 0, k, M, NULL, dg};
    if (compare(&pb, v, opts_of(c, k), &ok)) {
      printf("  case %d: %d balls in the plane\n", c, nb);
      return 1;
    }
  }
  ENSURE(ok > RANDOM_CASES / 2);
  return 0;
}

/* a chain under a dense SPD M, a tridiagonal one, one with only its upper triangle off the
 * diagonal (read by the products, not by the factor), and with a velocity constraint */
static int test_other_metrics(void) {
  static double M[MAXQ * MAXQ], dg[MAXK * MAXQ], A[2 * MAXQ];
  double m[MAXQ], v[MAXQ];
  int ok = 0;
  for (int c = 0; c < RANDOM_CASES; c++) {
    const int n = 3 + (int)(urand() * 12.0), kind = c % 4;
    for (int i = 0; i < n; i++) m[i] = 1.0 + urand();
    chain(n, m, M, dg);
    int nc = 0;
    if (kind == 0) { /* dense: diag + B B^T / n */
      double B[MAXQ * 4];
      for (int i = 0; i < 4 * n; i++) B[i] = urand() - 0.5;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          double s = 0.0;
          for (int l = 0; l < 4; l++) s += B[i * 4 + l] * B[j * 4 + l];
          M[i * n + j] += s / n;
        }
    } else if (kind == 1) { /* tridiagonal, diagonally dominant */
      for (int i = 0; i + 1 < n; i++) M[i * n + i + 1] = M[(i + 1) * n + i] = 0.3 * (urand() - 0.5);
    } else if (kind == 2) { /* the upper triangle alone */
      for (int i = 0; i + 2 < n; i++) M[i * n + i + 2] = 0.2 * urand();
    } else { /* the first and last balls move together: x0' - x_{n-1}' = 0 */
      nc = 1;
      memset(A, 0, sizeof(double) * (size_t)n);
      A[0] = 1.0, A[n - 1] = -1.0;
    }
    velocities(n, v);
    const nh_simul_problem pb = {n, nc, n - 1, M, nc ? A : NULL, dg};
    if (compare(&pb, v, opts_of(c / 4, n - 1), &ok)) {
      printf("  case %d: kind %d, %d balls\n", c, kind, n);
      return 1;
    }
  }
  ENSURE(ok > RANDOM_CASES / 2);
  return 0;
}

/* the failures: a duplicate, an opposing pair (refused, and resolved plastically), a zero
 * gradient, a non-finite, non-SPD or numerically singular M, a dependent triple, a non-finite
 * gradient; the same status, contacts and message */
static int test_failures(void) {
  static double M[MAXQ * MAXQ], dg[MAXK * MAXQ];
  double m[MAXQ], v[MAXQ];
  int ok = 0;
  const int n = 8, k = 7;
  for (int c = 0; c < 9; c++) {
    for (int i = 0; i < n; i++) m[i] = 1.0 + 0.1 * i;
    chain(n, m, M, dg);
    for (int i = 0; i < n; i++) v[i] = i == 0 ? 1.0 : i == n - 1 ? -1.0 : 0.0;
    nh_simul_opts o = nh_simul_opts_default();
    double *last = dg + (size_t)(k - 1) * n;
    memset(last, 0, sizeof(double) * (size_t)n);
    switch (c) {
    case 0: last[2] = -1.0, last[3] = 1.0; break;             /* duplicates contact 2 */
    case 1: last[2] = 1.0, last[3] = -1.0; break;             /* opposes contact 2 */
    case 2: last[2] = 1.0, last[3] = -1.0, o.opposing_plastic = 0; break;
    case 3: break;                                            /* zero gradient */
    case 4: last[n - 2] = -1.0, last[n - 1] = 1.0, M[5 * n + 5] = NAN; break;
    case 5: last[n - 2] = -1.0, last[n - 1] = 1.0, M[5 * n + 5] = -1.0; break;
    case 6: last[0] = -1.0, last[2] = 1.0; break;             /* gaps 0 + 1: dependent */
    case 7: last[n - 2] = -1.0, last[n - 1] = 1.0, dg[3 * n + 1] = INFINITY; break;
    case 8: last[n - 2] = -1.0, last[n - 1] = 1.0, M[5 * n + 5] = 1e-14; break; /* below the pivot tolerance */
    }
    const nh_simul_problem pb = {n, 0, k, M, NULL, dg};
    if (compare(&pb, v, o, &ok)) {
      printf("  failure case %d\n", c);
      return 1;
    }
  }
  ENSURE(ok == 1); /* the opposing pair resolved plastically */
  return 0;
}

/* extremes: normals of subnormal size, a velocity whose |v|_M^2 overflows; and the rates of
 * a velocity that is not finite (a resolution never makes one from finite input: there the
 * structured rates step back to the dense products, whose NaNs they would otherwise skip) */
static int test_extremes(void) {
  static double M[MAXQ * MAXQ], dg[MAXK * MAXQ];
  double m[MAXQ], v[MAXQ];
  int ok = 0;
  const int n = 10;
  for (int c = 0; c < 7; c++) {
    for (int i = 0; i < n; i++) m[i] = c == 5 ? 1e-200 : 1.0;
    chain(n, m, M, dg);
    for (int i = 0; i < n; i++) v[i] = i == 0 ? 1.0 : 0.0;
    if (c == 4) v[0] = 0.0;                         /* at rest: |v|_M = 0, no impact */
    if (c == 5) dg[2 * n + 2] = -1e120, dg[2 * n + 3] = 1e120; /* M^-1 dg overflows: the dense Gram */
    if (c == 6) v[0] = 1e-170;                      /* |v|_M^2 underflows to 0 */
    if (c < 2)
      for (int i = 0; i < (n - 1) * n; i++) dg[i] *= 1e-161; /* G_ii ~ 1e-322, subnormal */
    if (c == 1) dg[0] = -1.0, dg[1] = 1.0;                  /* one normal of normal size */
    if (c >= 2) v[0] = c == 2 ? 1e155 : 1e200;              /* |v|_M^2 = inf */
    if (c == 3) v[3] = -1e200;
    const nh_simul_problem pb = {n, 0, n - 1, M, NULL, dg};
    if (compare(&pb, v, nh_simul_opts_default(), &ok)) {
      printf("  extreme case %d\n", c);
      return 1;
    }
  }
  ENSURE(ok >= 1);
  // the rates of a non-finite velocity, structured and dense: the same bits
  for (int i = 0; i < n; i++) m[i] = 1.0 + i;
  chain(n, m, M, dg);
  const nh_simul_problem pb = {n, 0, n - 1, M, NULL, dg};
  nh_simul_opts o = nh_simul_opts_default();
  simul_ws w[2];
  nh_simul_result res;
  for (int d = 0; d < 2; d++) {
    o.dense_reference = d;
    memset(&res, 0, sizeof res);
    ENSURE(nh_simul_prepare(&pb, NULL, &o, &w[d], work(d, &pb, &o), &res, NULL, 0) == NH_OK);
  }
  for (int c = 0; c < 3; c++) {
    for (int i = 0; i < n; i++) v[i] = 0.5 * i;
    v[4] = c == 0 ? INFINITY : c == 1 ? -INFINITY : NAN;
    double vn[2];
    for (int d = 0; d < 2; d++) vn[d] = nh_simul_rates(&pb, &w[d], v);
    ENSURE(same_bits(&vn[0], &vn[1], sizeof(double)));
    ENSURE(same_bits(w[0].s, w[1].s, sizeof(double) * (size_t)(n - 1)));
    ENSURE(same_bits(w[0].rn, w[1].rn, sizeof(double) * (size_t)(n - 1)));
    ENSURE(isnan(w[0].s[0])); /* a zero of the gradient times infinity: NaN, as dense */
  }
  return 0;
}

/* the structured path is the one taken on a long chain (M diagonal, no constraint): the
 * patterns, the Gram matrix over neighbours, the envelope factor; a dense M takes the rates
 * over the gradients' nonzeros and the dense Gram matrix; dense_reference and a problem
 * below SIMUL_STRUCT_MIN_NQ coordinates none of it */
static int test_structure_taken(void) {
  static double M[BIG_CHAIN * BIG_CHAIN], dg[BIG_CHAIN * BIG_CHAIN];
  double m[BIG_CHAIN], v[BIG_CHAIN];
  const int n = BIG_CHAIN, k = n - 1;
  for (int i = 0; i < n; i++) m[i] = 1.0, v[i] = i == 0 ? 1.0 : 0.0;
  chain(n, m, M, dg);
  const nh_simul_problem pb = {n, 0, k, M, NULL, dg};
  nh_simul_opts o = nh_simul_opts_default();
  simul_ws w;
  nh_simul_result res;
  memset(&res, 0, sizeof res);
  ENSURE(nh_simul_prepare(&pb, v, &o, &w, work(0, &pb, &o), &res, NULL, 0) == NH_OK);
  ENSURE(w.structured && !w.mlower && w.diag && w.sparse_gram && w.env);
  ENSURE(w.grow[k] == 2 * k && w.mrow[n] == n);
  for (int i = 0; i < k; i++) { /* neighbours: i - 1 and i + 1 */
    ENSURE(w.arow[i + 1] - w.arow[i] == (i > 0) + (i < k - 1));
    if (i > 0) ENSURE(w.acon[w.arow[i]] == i - 1);
  }
  for (int a = 0; a < k; a++) ENSURE(w.efirst[a] == (a > 0 ? a - 1 : 0)); /* a band */
  M[1] = M[n] = 0.01; /* a coupled M */
  ENSURE(nh_simul_prepare(&pb, v, &o, &w, work(0, &pb, &o), &res, NULL, 0) == NH_OK);
  ENSURE(w.structured && w.mlower && !w.diag && !w.sparse_gram && !w.env);
  o.dense_reference = 1;
  ENSURE(nh_simul_prepare(&pb, v, &o, &w, work(0, &pb, &o), &res, NULL, 0) == NH_OK);
  ENSURE(!w.structured && !w.sparse_gram && !w.env);
  o.dense_reference = 0;
  const nh_simul_problem small = {SIMUL_STRUCT_MIN_NQ - 1, 0, SIMUL_STRUCT_MIN_NQ - 2, M, NULL, dg};
  chain(small.nq, m, M, dg);
  ENSURE(nh_simul_prepare(&small, v, &o, &w, work(0, &small, &o), &res, NULL, 0) == NH_OK);
  ENSURE(!w.structured && !w.sparse_gram && !w.env); /* too small to gain */
  o.dense_reference = 2;
  ENSURE(nh_simul_work_size(n, 0, k, &o) == 0); /* not an option value */
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1) nh_test_filter = argv[1];
  RUN_TEST(test_chains);
  RUN_TEST(test_planar_chains);
  RUN_TEST(test_other_metrics);
  RUN_TEST(test_failures);
  RUN_TEST(test_extremes);
  RUN_TEST(test_structure_taken);
  free(g_work[0]), free(g_work[1]);
  return TEST_SUMMARY();
}
