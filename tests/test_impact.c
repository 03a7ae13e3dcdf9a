/* test_impact.c - the impact maps of src/impact against spec 000 (tests T1-T4, T7-T11 and
 * the worked examples of sec. 4.3).
 *
 * The references are computed here independently of the library's closed form: the literal
 * equations (16)-(17) with an explicit M^-1 (from LU), the paper's plastic route (18)-(21)
 * and (28)-(33), the reduced penny formulas of spec sec. 3.4, and the printed regression
 * values of spec sec. 4.3. Gap convention: g = -H, dg = -dH. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "la/la.h"
#include "nholo/impact.h"
#include "nholo/nholo.h"

#define NQ 5
#define NC 2
#define SEEDS 400
#define WORK 256

static const double PI = 3.14159265358979323846;

/* ---- error bookkeeping ----------------------------------------------------------- */

static struct {
  const char *name;
  double max;
} errs[48];
static int nerrs;

static double track(const char *name, double err) {
  for (int i = 0; i < nerrs; i++)
    if (strcmp(errs[i].name, name) == 0) {
      if (err > errs[i].max || isnan(err)) errs[i].max = err;
      return err;
    }
  if (nerrs < 48) {
    errs[nerrs].name = name;
    errs[nerrs].max = err;
    nerrs++;
  }
  return err;
}

/* ---- small dense helpers (independent of the map's Cholesky path) ------------------ */

static double maxdiff(int n, const double *x, const double *y) {
  double r = 0.0;
  for (int i = 0; i < n; i++)
    if (!(fabs(x[i] - y[i]) <= r)) r = fabs(x[i] - y[i]);
  return r;
}

static double ninf(int n, const double *x) { return nh_la_norm_inf(n, x); }

/* explicit inverse through LU */
static void inverse(int n, const double *M, double *Minv) {
  double LU[NQ * NQ], e[NQ];
  int piv[NQ];
  memcpy(LU, M, sizeof(double) * (size_t)(n * n));
  nh_la_lu(n, LU, piv, 0.0);
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) e[i] = i == j ? 1.0 : 0.0;
    nh_la_lu_solve(n, LU, piv, e);
    for (int i = 0; i < n; i++) Minv[i * n + j] = e[i];
  }
}

/* solve a small general system in place */
static void solve(int n, const double *G, double *b) {
  double LU[NQ * NQ];
  int piv[NQ];
  memcpy(LU, G, sizeof(double) * (size_t)(n * n));
  nh_la_lu(n, LU, piv, 0.0);
  nh_la_lu_solve(n, LU, piv, b);
}

/* the cometric <a, b> = a M^-1 b^T */
static double cometric(int n, const double *Minv, const double *a, const double *b) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) s += a[i] * Minv[i * n + j] * b[j];
  return s;
}

static double kinetic(int n, const double *M, const double *v) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) s += v[i] * M[i * n + j] * v[j];
  return 0.5 * s;
}

/* |A v|_inf */
static double cres(int n, int m, const double *A, const double *v) {
  double r = 0.0;
  for (int k = 0; k < m; k++) {
    double t = fabs(nh_la_dot(n, A + k * n, v));
    if (t > r) r = t;
  }
  return r;
}

/* literal projection (21): Pi x = x - M^-1 A^T G^-1 A x, G = A M^-1 A^T */
static void pi_literal(int n, int m, const double *Minv, const double *A, const double *x,
                       double *out, double *coef) {
  double G[NC * NC], c[NC];
  for (int k = 0; k < m; k++) {
    for (int l = 0; l < m; l++) G[k * m + l] = cometric(n, Minv, A + k * n, A + l * n);
    c[k] = nh_la_dot(n, A + k * n, x);
  }
  solve(m, G, c);
  for (int i = 0; i < n; i++) {
    double t = x[i];
    for (int k = 0; k < m; k++)
      for (int j = 0; j < n; j++) t -= Minv[i * n + j] * A[k * n + j] * c[k];
    out[i] = t;
  }
  if (coef)
    for (int k = 0; k < m; k++) coef[k] = c[k];
}

/* random data of T1: SPD M, A (m x n), dH, v in ker A with dH v > 0 */
typedef struct {
  double M[NQ * NQ], Minv[NQ * NQ], A[NC * NQ], dH[NQ], dg[NQ], v[NQ];
} gen_case;

static void make_case(unsigned long long *s, int n, int m, gen_case *c) {
  double B[NQ * NQ], w[NQ];
  for (int i = 0; i < n * n; i++) B[i] = nh_test_rand(s, -1.0, 1.0);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double t = 0.0;
      for (int k = 0; k < n; k++) t += B[i * n + k] * B[j * n + k];
      c->M[i * n + j] = t + (i == j ? 0.5 : 0.0);
    }
  inverse(n, c->M, c->Minv);
  for (int i = 0; i < m * n; i++) c->A[i] = nh_test_rand(s, -1.0, 1.0);
  for (int i = 0; i < n; i++) {
    c->dH[i] = nh_test_rand(s, -1.0, 1.0);
    c->dg[i] = -c->dH[i];
    w[i] = nh_test_rand(s, -1.0, 1.0);
  }
  pi_literal(n, m, c->Minv, c->A, w, c->v, NULL);
  if (nh_la_dot(n, c->dH, c->v) < 0.0) nh_la_scale(n, -1.0, c->v);
}

static const nh_impact_law ELASTIC = {NH_IMPACT_ELASTIC, 1.0};
static const nh_impact_law PLASTIC = {NH_IMPACT_PLASTIC, 1.0};

static nh_impact_law restitution(double e) {
  nh_impact_law l = {NH_IMPACT_RESTITUTION, e};
  return l;
}

/* M v+ - M v- - A^T lambda - alpha dH^T, relative to |M v-| */
static double momentum_defect(int n, int m, const double *M, const double *A, const double *dH,
                              const double *vm, const double *vp, const double *lambda,
                              double alpha) {
  double r = 0.0, scale = 0.0;
  for (int i = 0; i < n; i++) {
    double t = 0.0, mv = 0.0;
    for (int j = 0; j < n; j++) {
      t += M[i * n + j] * (vp[j] - vm[j]);
      mv += M[i * n + j] * vm[j];
    }
    for (int k = 0; k < m; k++) t -= A[k * n + i] * lambda[k];
    t -= alpha * dH[i];
    if (fabs(t) > r) r = fabs(t);
    if (fabs(mv) > scale) scale = fabs(mv);
  }
  return r / scale;
}

/* ---- T1: elastic, literal (16)-(17) against the closed form ------------------------ */

static int test_t1_elastic_literal(void) {
  unsigned long long s = 101;
  double work[WORK], vp[NQ], vpp[NQ], lam[NC];
  nh_impact_tol tol = nh_impact_tol_default();
  ENSURE(nh_impact_work_size(NQ, NC) <= WORK);
  for (int rep = 0; rep < SEEDS; rep++) {
    gen_case c;
    int n = NQ, m = NC;
    make_case(&s, n, m, &c);

    /* literal: (16) gives lambda = alpha mu with G mu = -b; (17) is a2 alpha^2 + a1 alpha + a0 */
    double G[NC * NC], mu[NC], bv[NC], pA[NC];
    for (int k = 0; k < m; k++) {
      for (int l = 0; l < m; l++) G[k * m + l] = cometric(n, c.Minv, c.A + k * n, c.A + l * n);
      bv[k] = cometric(n, c.Minv, c.dH, c.A + k * n);
      mu[k] = -bv[k];
      pA[k] = nh_la_dot(n, c.A + k * n, c.v); /* <p-, omega^k> = omega^k(v) */
    }
    solve(m, G, mu);
    double cc = cometric(n, c.Minv, c.dH, c.dH), ps = nh_la_dot(n, c.dH, c.v);
    double a2 = cc, a1 = 2.0 * ps;
    for (int k = 0; k < m; k++) {
      a2 += 2.0 * mu[k] * bv[k];
      a1 += 2.0 * mu[k] * pA[k];
      for (int l = 0; l < m; l++) a2 += mu[k] * G[k * m + l] * mu[l];
    }
    /* the alpha-free term -(A v)^T G^-1 (A v) vanishes for A v = 0 (round-off here) */
    double gi[NC], a0 = 0.0;
    memcpy(gi, pA, sizeof gi);
    solve(m, G, gi);
    for (int k = 0; k < m; k++) a0 -= pA[k] * gi[k];
    ENSURE(track("T1 |constant term of (17)| / |sig alpha|", fabs(a0) / fabs(a1 * -a1 / a2)) < 1e-20);
    ENSURE(a2 > 0.0);
    double alpha = -a1 / a2; /* the nonzero root */
    double lref[NC], pplus[NQ], vref[NQ];
    for (int k = 0; k < m; k++) lref[k] = alpha * mu[k];
    for (int i = 0; i < n; i++) {
      double t = alpha * c.dH[i];
      for (int j = 0; j < n; j++) t += c.M[i * n + j] * c.v[j];
      for (int k = 0; k < m; k++) t += c.A[k * n + i] * lref[k];
      pplus[i] = t;
    }
    for (int i = 0; i < n; i++) vref[i] = nh_la_dot(n, c.Minv + i * n, pplus);
    /* the residual of (17) at the root is zero */
    ENSURE(fabs(a2 * alpha * alpha + a1 * alpha) <= 1e-14 * fabs(a1 * alpha));

    nh_impact_info info;
    int st = nh_impact_map(n, m, c.M, c.A, c.dg, c.v, ELASTIC, &tol, vp, lam, &info, work);
    ENSURE(st == NH_OK);
    double vs = ninf(n, c.v);
    ENSURE(track("T1 |v+ - literal| / |v|", maxdiff(n, vp, vref) / vs) < 1e-12);
    ENSURE(track("T1 |alpha - literal| / |alpha|", fabs(info.alpha - alpha) / fabs(alpha)) < 1e-12);
    ENSURE(track("T1 |lambda - literal| / |lambda|", maxdiff(m, lam, lref) / ninf(m, lref)) < 1e-12);
    ENSURE(track("T1 |A v+| / |v|", cres(n, m, c.A, vp) / vs) < 1e-13);
    double Tm = kinetic(n, c.M, c.v), Tp = kinetic(n, c.M, vp);
    ENSURE(track("T1 |T+ - T-| / T-", fabs(Tp - Tm) / Tm) < 1e-13);
    double sig = nh_la_dot(n, c.dH, c.v);
    ENSURE_REL(info.sig, sig, 1e-14);
    ENSURE(track("T1 |dH v+ + dH v| / (|dH| |v|)",
                 fabs(nh_la_dot(n, c.dH, vp) + sig) / (ninf(n, c.dH) * vs)) < 1e-14);
    ENSURE_REL(info.vn_after, sig, 1e-12);
    ENSURE_REL(info.vn_before, -sig, 1e-14);
    ENSURE(info.projected == 0);
    ENSURE(info.rho > 0.0 && info.rho <= 1.0);
    ENSURE(track("T1 momentum identity", momentum_defect(n, m, c.M, c.A, c.dH, c.v, vp, lam,
                                                        info.alpha)) < 1e-13);
    /* involution: the same wall seen from the other side (dg -> -dg) maps v+ back to v */
    double dgm[NQ];
    for (int i = 0; i < n; i++) dgm[i] = -c.dg[i];
    ENSURE(nh_impact_map(n, m, c.M, c.A, dgm, vp, ELASTIC, &tol, vpp, NULL, NULL, work) == NH_OK);
    ENSURE(track("T1 involution |E(E(v)) - v| / |v|", maxdiff(n, vpp, c.v) / vs) < 1e-13);
    /* aliasing v_out = v gives the same bits */
    double va[NQ];
    memcpy(va, c.v, sizeof va);
    ENSURE(nh_impact_map(n, m, c.M, c.A, c.dg, va, ELASTIC, &tol, va, NULL, NULL, work) == NH_OK);
    ENSURE(memcmp(va, vp, sizeof va) == 0);
    /* NULL tol and NULL info are the defaults */
    ENSURE(nh_impact_map(n, m, c.M, c.A, c.dg, c.v, ELASTIC, NULL, va, NULL, NULL, work) == NH_OK);
    ENSURE(memcmp(va, vp, sizeof va) == 0);
  }
  return 0;
}

/* ---- T2: plastic = Pi o P --------------------------------------------------------- */

static int test_t2_plastic(void) {
  unsigned long long s = 202;
  double work[WORK], vp[NQ], lam[NC];
  nh_impact_tol tol = nh_impact_tol_default();
  int not_reversed = 0;
  for (int rep = 0; rep < SEEDS; rep++) {
    gen_case c;
    int n = NQ, m = NC;
    make_case(&s, n, m, &c);
    double sig = nh_la_dot(n, c.dH, c.v), cc = cometric(n, c.Minv, c.dH, c.dH);
    /* (5) then (21) */
    double Pv[NQ], ref[NQ], coef[NC], C = -2.0 * sig / cc;
    for (int i = 0; i < n; i++) Pv[i] = c.v[i] + C * nh_la_dot(n, c.Minv + i * n, c.dH);
    pi_literal(n, m, c.Minv, c.A, Pv, ref, coef);
    /* (20) and rho = (dH u) / (dH z) */
    double z[NQ], u[NQ], ref20[NQ];
    for (int i = 0; i < n; i++) z[i] = nh_la_dot(n, c.Minv + i * n, c.dH);
    pi_literal(n, m, c.Minv, c.A, z, u, NULL);
    for (int i = 0; i < n; i++) ref20[i] = c.v[i] - 2.0 * sig / cc * u[i];
    double rho = nh_la_dot(n, c.dH, u) / nh_la_dot(n, c.dH, z);

    nh_impact_info info;
    int st = nh_impact_map(n, m, c.M, c.A, c.dg, c.v, PLASTIC, &tol, vp, lam, &info, work);
    double vs = ninf(n, c.v);
    ENSURE(track("T2 |(18) - (20)| / |v| (literal)", maxdiff(n, ref, ref20) / vs) < 1e-13);
    ENSURE(track("T2 |v+ - Pi P v| / |v|", maxdiff(n, vp, ref) / vs) < 1e-12);
    ENSURE(track("T2 |A v+| / |v|", cres(n, m, c.A, vp) / vs) < 1e-13);
    double Tm = kinetic(n, c.M, c.v), Tp = kinetic(n, c.M, vp);
    ENSURE(Tp <= Tm * (1.0 + 1e-14));
    ENSURE(track("T2 energy loss vs 2 sig^2 (1-rho)/c (rel)",
                 fabs((Tm - Tp) - 2.0 * sig * sig * (1.0 - rho) / cc) / Tm) < 1e-12);
    ENSURE(track("T2 |rho - literal|", fabs(info.rho - rho)) < 1e-13);
    ENSURE(track("T2 |dH v+ - (1 - 2 rho) dH v| / (|dH| |v|)",
                 fabs(nh_la_dot(n, c.dH, vp) - (1.0 - 2.0 * rho) * sig) / (ninf(n, c.dH) * vs)) < 1e-13);
    ENSURE(track("T2 |alpha - C| / |C|", fabs(info.alpha - C) / fabs(C)) < 1e-12);
    ENSURE_REL(info.D, cc, 1e-12);
    /* lambda = -G^-1 A P v: the projection's impulse */
    for (int k = 0; k < m; k++) coef[k] = -coef[k];
    ENSURE(track("T2 |lambda + G^-1 A P v| / |lambda|", maxdiff(m, lam, coef) / ninf(m, coef)) < 1e-12);
    ENSURE(track("T2 momentum identity", momentum_defect(n, m, c.M, c.A, c.dH, c.v, vp, lam,
                                                        info.alpha)) < 1e-13);
    if (rho < 0.5) {
      not_reversed++;
      ENSURE(st == NH_NOT_REVERSED);
      ENSURE(info.vn_after <= 0.0);
    } else {
      ENSURE(st == NH_OK);
      ENSURE(info.vn_after > 0.0);
    }
  }
  ENSURE(not_reversed > 0); /* random data hit both outcomes */
  return 0;
}

/* ---- restitution inside ker A (extension) and the momentum identity for every law --- */

static int test_restitution(void) {
  unsigned long long s = 303;
  double work[WORK], vp[NQ], ve[NQ], lam[NC];
  nh_impact_tol tol = nh_impact_tol_default();
  for (int rep = 0; rep < SEEDS; rep++) {
    gen_case c;
    int n = NQ, m = NC;
    make_case(&s, n, m, &c);
    double e = rep == 0 ? 0.0 : rep == 1 ? 1.0 : nh_test_rand(&s, 0.0, 1.0);
    nh_impact_info info, infe;
    ENSURE(nh_impact_map(n, m, c.M, c.A, c.dg, c.v, restitution(e), &tol, vp, lam, &info, work) ==
           NH_OK);
    ENSURE(nh_impact_map(n, m, c.M, c.A, c.dg, c.v, ELASTIC, &tol, ve, NULL, &infe, work) == NH_OK);
    double sig = nh_la_dot(n, c.dH, c.v), vs = ninf(n, c.v);
    ENSURE(track("restitution |dH v+ + e dH v| / (|dH||v|)",
                 fabs(nh_la_dot(n, c.dH, vp) + e * sig) / (ninf(n, c.dH) * vs)) < 1e-13);
    double Tm = kinetic(n, c.M, c.v), Tp = kinetic(n, c.M, vp);
    ENSURE(track("restitution energy loss vs (1-e^2) sig^2/(2 D_e)",
                 fabs((Tm - Tp) - (1.0 - e * e) * sig * sig / (2.0 * infe.D)) / Tm) < 1e-12);
    ENSURE(track("restitution |A v+| / |v|", cres(n, m, c.A, vp) / vs) < 1e-13);
    ENSURE(track("restitution momentum identity",
                 momentum_defect(n, m, c.M, c.A, c.dH, c.v, vp, lam, info.alpha)) < 1e-13);
    /* v+ = v + (1 + e)/2 (E(v) - v) */
    double ref[NQ];
    for (int i = 0; i < n; i++) ref[i] = c.v[i] + 0.5 * (1.0 + e) * (ve[i] - c.v[i]);
    ENSURE(track("restitution |v+ - (v + (1+e)/2 (E v - v))| / |v|", maxdiff(n, vp, ref) / vs) < 1e-13);
    if (e == 1.0) ENSURE(memcmp(vp, ve, sizeof vp) == 0);
  }
  return 0;
}

/* ---- T3: holonomic (nc = 0), eqs. (5) and (6) --------------------------------------- */

static int test_t3_holonomic(void) {
  unsigned long long s = 404;
  double work[WORK], vp[NQ], vq[NQ], vr[NQ];
  nh_impact_tol tol = nh_impact_tol_default();
  ENSURE(nh_impact_work_size(NQ, 0) <= WORK);
  for (int rep = 0; rep < SEEDS; rep++) {
    gen_case c;
    int n = NQ;
    make_case(&s, n, 0, &c); /* v is unconstrained */
    double sig = nh_la_dot(n, c.dH, c.v), cc = cometric(n, c.Minv, c.dH, c.dH);
    double e = nh_test_rand(&s, 0.0, 1.0), ref5[NQ], ref6[NQ];
    for (int i = 0; i < n; i++) {
      double gi = nh_la_dot(n, c.Minv + i * n, c.dH); /* grad h = M^-1 dh^T */
      ref5[i] = c.v[i] - 2.0 * sig / cc * gi;
      ref6[i] = c.v[i] - (1.0 + e) * sig / cc * gi;
    }
    nh_impact_info info;
    double vs = ninf(n, c.v);
    ENSURE(nh_impact_map(n, 0, c.M, NULL, c.dg, c.v, ELASTIC, &tol, vp, NULL, &info, work) == NH_OK);
    ENSURE(track("T3 |elastic - (5)| / |v|", maxdiff(n, vp, ref5) / vs) < 1e-13);
    ENSURE_REL(info.rho, 1.0, 1e-14);
    ENSURE_REL(info.alpha, -2.0 * sig / cc, 1e-13);
    ENSURE(track("T3 energy (elastic)", fabs(kinetic(n, c.M, vp) - kinetic(n, c.M, c.v)) /
                                            kinetic(n, c.M, c.v)) < 1e-13);
    ENSURE(nh_impact_map(n, 0, c.M, NULL, c.dg, c.v, PLASTIC, &tol, vq, NULL, &info, work) == NH_OK);
    ENSURE(track("T3 |plastic - (5)| / |v|", maxdiff(n, vq, ref5) / vs) < 1e-13);
    ENSURE(nh_impact_map(n, 0, c.M, NULL, c.dg, c.v, restitution(e), &tol, vr, NULL, &info, work) ==
           NH_OK);
    ENSURE(track("T3 |restitution - (6)| / |v|", maxdiff(n, vr, ref6) / vs) < 1e-13);
    ENSURE(track("T3 |dH v+ + e dH v| / (|dH||v|)",
                 fabs(nh_la_dot(n, c.dH, vr) + e * sig) / (ninf(n, c.dH) * vs)) < 1e-14);
    ENSURE(track("T3 momentum identity", momentum_defect(n, 0, c.M, NULL, c.dH, c.v, vr, NULL,
                                                        info.alpha)) < 1e-13);
  }
  return 0;
}

/* ---- T4: guards --------------------------------------------------------------------- */

static int test_t4_guards(void) {
  unsigned long long s = 505;
  double work[WORK], vp[NQ], lam[NC];
  nh_impact_tol tol = nh_impact_tol_default();
  const nh_impact_law laws[3] = {ELASTIC, PLASTIC, {NH_IMPACT_RESTITUTION, 0.5}};

  /* sig = 0 exactly: M = I, A = [e1; e2], dg = -e3, v = e4 */
  double I5[25] = {0}, A0[10] = {0}, dg0[NQ] = {0, 0, -1, 0, 0}, v0[NQ] = {0, 0, 0, 1, 0};
  for (int i = 0; i < 5; i++) I5[i * 5 + i] = 1.0;
  A0[0] = 1.0;
  A0[6] = 1.0;
  for (int l = 0; l < 3; l++) {
    nh_impact_info info;
    lam[0] = lam[1] = 7.0;
    ENSURE(nh_impact_map(NQ, NC, I5, A0, dg0, v0, laws[l], &tol, vp, lam, &info, work) ==
           NH_NO_IMPACT);
    ENSURE(memcmp(vp, v0, sizeof vp) == 0);
    ENSURE(info.sig == 0.0 && info.alpha == 0.0 && lam[0] == 0.0 && lam[1] == 0.0);
  }
  /* the zero velocity as well */
  double zero[NQ] = {0};
  ENSURE(nh_impact_map(NQ, NC, I5, A0, dg0, zero, ELASTIC, &tol, vp, NULL, NULL, work) == NH_NO_IMPACT);
  ENSURE(memcmp(vp, zero, sizeof vp) == 0);

  for (int rep = 0; rep < SEEDS; rep++) {
    gen_case c;
    int n = NQ, m = NC;
    make_case(&s, n, m, &c);
    nh_impact_law law = laws[rep % 3];
    nh_impact_info info;

    /* departing (sig < 0): no impact, v unchanged (the raw formula would pull, alpha > 0) */
    double vm[NQ];
    for (int i = 0; i < n; i++) vm[i] = -c.v[i];
    ENSURE(nh_impact_map(n, m, c.M, c.A, c.dg, vm, law, &tol, vp, lam, &info, work) == NH_NO_IMPACT);
    ENSURE(memcmp(vp, vm, sizeof vp) == 0);
    ENSURE(info.sig < 0.0 && info.alpha == 0.0 && info.projected == 0);
    /* sig_tol: an approach slower than the threshold is no impact either */
    nh_impact_tol t2 = tol;
    t2.sig_tol = 2.0 * nh_la_dot(n, c.dH, c.v);
    ENSURE(nh_impact_map(n, m, c.M, c.A, c.dg, c.v, law, &t2, vp, NULL, NULL, work) == NH_NO_IMPACT);
    ENSURE(memcmp(vp, c.v, sizeof vp) == 0);

    /* dH in the span of the one-forms: degenerate, v unchanged, no division */
    double dgd[NQ], w1 = nh_test_rand(&s, -1, 1), w2 = nh_test_rand(&s, -1, 1);
    for (int i = 0; i < n; i++) dgd[i] = -(w1 * c.A[i] + w2 * c.A[n + i]);
    ENSURE(nh_impact_map(n, m, c.M, c.A, dgd, c.v, law, &tol, vp, lam, &info, work) ==
           NH_DEGENERATE_IMPACT);
    ENSURE(memcmp(vp, c.v, sizeof vp) == 0);
    ENSURE(info.alpha == 0.0 && isfinite(info.rho) && info.rho < 1e-12);
    /* ... while a gradient slightly off the span is an ordinary impact */
    for (int i = 0; i < n; i++) dgd[i] += 1e-3 * c.dg[i];
    int st = nh_impact_map(n, m, c.M, c.A, dgd, c.v, law, &tol, vp, NULL, &info, work);
    ENSURE(st == NH_OK || st == NH_NOT_REVERSED);
    ENSURE(info.rho > 1e-12 && isfinite(vp[0]));
    /* a zero gradient is degenerate too */
    double dz[NQ] = {0};
    ENSURE(nh_impact_map(n, m, c.M, c.A, dz, c.v, law, &tol, vp, NULL, NULL, work) ==
           NH_DEGENERATE_IMPACT);

    /* |A v| above the tolerance: projected first (project = 1), rejected (project = 0) */
    double vd[NQ], w[NQ], ref[NQ], lref[NC], coef[NC];
    for (int i = 0; i < n; i++) vd[i] = c.v[i] + 0.1 * nh_test_rand(&s, -1, 1);
    pi_literal(n, m, c.Minv, c.A, vd, w, coef);
    if (nh_la_dot(n, c.dH, w) < 0.0) {
      nh_la_scale(n, -1.0, vd);
      nh_la_scale(n, -1.0, w);
      nh_la_scale(m, -1.0, coef);
    }
    ENSURE(nh_impact_map(n, m, c.M, c.A, c.dg, w, law, &tol, ref, lref, NULL, work) >= 0);
    st = nh_impact_map(n, m, c.M, c.A, c.dg, vd, law, &tol, vp, lam, &info, work);
    ENSURE(st == NH_OK || st == NH_NOT_REVERSED);
    ENSURE(info.projected == 1);
    ENSURE(info.residual_before > 1e-6);
    ENSURE(track("T4 projected: |v+ - map(Pi v)| / |v|", maxdiff(n, vp, ref) / ninf(n, vd)) < 1e-12);
    ENSURE(track("T4 projected: |A v+| / |v|", cres(n, m, c.A, vp) / ninf(n, vd)) < 1e-13);
    /* the reported lambda includes the projection impulse: (15) holds for the given v */
    for (int k = 0; k < m; k++) lref[k] -= coef[k];
    ENSURE(track("T4 projected: |lambda - (map + projection)| / |lambda|",
                 maxdiff(m, lam, lref) / ninf(m, lref)) < 1e-11);
    ENSURE(track("T4 projected: momentum identity",
                 momentum_defect(n, m, c.M, c.A, c.dH, vd, vp, lam, info.alpha)) < 1e-13);
    nh_impact_tol t0 = tol;
    t0.project = 0;
    ENSURE(nh_impact_map(n, m, c.M, c.A, c.dg, vd, law, &t0, vp, lam, &info, work) ==
           NH_ERR_CONSTRAINT);
    ENSURE(memcmp(vp, vd, sizeof vp) == 0);
    ENSURE(info.residual_before > 1e-6);
    /* nh_project_velocity is the same projection */
    ENSURE(nh_project_velocity(n, m, c.M, c.A, vd, vp, work) == NH_OK);
    ENSURE(track("T4 |nh_project_velocity - Pi v| / |v|", maxdiff(n, vp, w) / ninf(n, vd)) < 1e-13);
    /* a round-off drift is below the tolerance: not projected, bitwise the plain map */
    for (int i = 0; i < n; i++) vd[i] = c.v[i] * (1.0 + 1e-15 * nh_test_rand(&s, -1, 1));
    ENSURE(nh_impact_map(n, m, c.M, c.A, c.dg, vd, law, &t0, vp, NULL, &info, work) >= 0);
    ENSURE(info.projected == 0);
  }

  /* e outside [0, 1], bad kinds and tolerances: NH_ERR_ARG with v_out = v */
  {
    gen_case c;
    make_case(&s, NQ, NC, &c);
    const double bad_e[] = {-0.1, 1.0000001, NAN, INFINITY};
    for (int k = 0; k < 4; k++) {
      memset(vp, 0, sizeof vp);
      ENSURE(nh_impact_map(NQ, NC, c.M, c.A, c.dg, c.v, restitution(bad_e[k]), &tol, vp, NULL, NULL,
                           work) == NH_ERR_ARG);
      ENSURE(memcmp(vp, c.v, sizeof vp) == 0);
    }
    nh_impact_law bogus = {(nh_impact_kind)7, 1.0};
    ENSURE(nh_impact_map(NQ, NC, c.M, c.A, c.dg, c.v, bogus, &tol, vp, NULL, NULL, work) == NH_ERR_ARG);
    /* the elastic and plastic laws ignore e */
    nh_impact_law el = {NH_IMPACT_ELASTIC, 5.0};
    ENSURE(nh_impact_map(NQ, NC, c.M, c.A, c.dg, c.v, el, &tol, vp, NULL, NULL, work) == NH_OK);
    nh_impact_tol tb = tol;
    tb.degenerate_tol = -1.0;
    ENSURE(nh_impact_map(NQ, NC, c.M, c.A, c.dg, c.v, ELASTIC, &tb, vp, NULL, NULL, work) == NH_ERR_ARG);
    tb = tol;
    tb.sig_tol = NAN;
    ENSURE(nh_impact_map(NQ, NC, c.M, c.A, c.dg, c.v, ELASTIC, &tb, vp, NULL, NULL, work) == NH_ERR_ARG);
    ENSURE(nh_impact_map(0, 0, c.M, NULL, c.dg, c.v, ELASTIC, &tol, vp, NULL, NULL, work) == NH_ERR_ARG);
    ENSURE(nh_impact_map(NQ, NC, c.M, NULL, c.dg, c.v, ELASTIC, &tol, vp, NULL, NULL, work) == NH_ERR_ARG);
    ENSURE(nh_impact_map(NQ, NC, c.M, c.A, c.dg, c.v, ELASTIC, &tol, vp, NULL, NULL, NULL) == NH_ERR_ARG);
    double vn[NQ];
    memcpy(vn, c.v, sizeof vn);
    vn[2] = NAN;
    ENSURE(nh_impact_map(NQ, NC, c.M, c.A, c.dg, vn, ELASTIC, &tol, vp, NULL, NULL, work) == NH_ERR_ARG);

    /* M not SPD; A without full row rank; more one-forms than coordinates */
    double Mb[NQ * NQ];
    memcpy(Mb, c.M, sizeof Mb);
    Mb[12] = -1.0;
    memset(vp, 0, sizeof vp);
    ENSURE(nh_impact_map(NQ, NC, Mb, c.A, c.dg, c.v, ELASTIC, &tol, vp, NULL, NULL, work) ==
           NH_ERR_NOT_SPD);
    ENSURE(memcmp(vp, c.v, sizeof vp) == 0);
    double Ab[NC * NQ];
    for (int i = 0; i < NQ; i++) Ab[i] = c.A[i], Ab[NQ + i] = 2.0 * c.A[i];
    memset(vp, 0, sizeof vp);
    ENSURE(nh_impact_map(NQ, NC, c.M, Ab, c.dg, c.v, ELASTIC, &tol, vp, NULL, NULL, work) ==
           NH_ERR_SINGULAR);
    ENSURE(memcmp(vp, c.v, sizeof vp) == 0);
    ENSURE(nh_project_velocity(NQ, NC, c.M, Ab, c.v, vp, work) == NH_ERR_SINGULAR);
    double M2[4] = {1, 0, 0, 1}, A3[6] = {1, 0, 0, 1, 1, 1}, d2[2] = {-1, 0}, v2[2] = {1, 0};
    ENSURE(nh_impact_map(2, 3, M2, A3, d2, v2, ELASTIC, &tol, vp, NULL, NULL, work) == NH_ERR_SINGULAR);
    /* nc = nq: ker A = {0}, every gradient is in the span */
    double A2[4] = {1, 0, 0, 1}, z2[2] = {0, 0};
    ENSURE(nh_impact_map(2, 2, M2, A2, d2, z2, ELASTIC, &tol, vp, NULL, NULL, work) ==
           NH_DEGENERATE_IMPACT);
  }
  return 0;
}

/* ---- the penny (spec sec. 3), built directly from its formulas ---------------------- */

typedef struct {
  double R, m, I, J; /* radius, mass, inertia about the axle, about a diameter */
  double a, b;       /* table semi-axes */
} penny;

static const penny PAPER = {0.01, 0.0025, 1.25e-7, 6.25e-8, 0.2, 0.2};

/* M, A(phi), dH_s (and dg = -dH_s) at q for end s */
static void penny_mats(const penny *p, const double *q, int s, double *M, double *A, double *dH,
                       double *dg) {
  double c = cos(q[3]), sn = sin(q[3]);
  memset(M, 0, sizeof(double) * 16);
  M[0] = M[5] = p->m;
  M[10] = p->I;
  M[15] = p->J;
  double Ar[8] = {1, 0, -p->R * c, 0, 0, 1, -p->R * sn, 0};
  memcpy(A, Ar, sizeof Ar);
  double X = q[0] + s * p->R * c, Y = q[1] + s * p->R * sn;
  double hX = 2.0 * X / (p->a * p->a), hY = 2.0 * Y / (p->b * p->b);
  dH[0] = hX;
  dH[1] = hY;
  dH[2] = 0.0;
  dH[3] = s * p->R * (hY * c - hX * sn);
  for (int i = 0; i < 4; i++) dg[i] = -dH[i];
}

static void penny_vel(const penny *p, double phi, double Om, double om, double *v) {
  v[0] = p->R * Om * cos(phi);
  v[1] = p->R * Om * sin(phi);
  v[2] = Om;
  v[3] = om;
}

/* the reduced maps of spec sec. 3.4 */
static void penny_reduced(const penny *p, const double *q, int s, double Om, double om, int plastic,
                          double *vout) {
  double c = cos(q[3]), sn = sin(q[3]);
  double X = q[0] + s * p->R * c, Y = q[1] + s * p->R * sn;
  double hX = 2.0 * X / (p->a * p->a), hY = 2.0 * Y / (p->b * p->b);
  double npar = hX * c + hY * sn, nperp = hY * c - hX * sn;
  double k1 = p->R * npar, k2 = s * p->R * nperp, It = p->I + p->m * p->R * p->R;
  double sig = k1 * Om + k2 * om;
  double D = plastic ? (hX * hX + hY * hY) / p->m + k2 * k2 / p->J : k1 * k1 / It + k2 * k2 / p->J;
  penny_vel(p, q[3], Om - 2.0 * sig * k1 / (It * D), om - 2.0 * sig * k2 / (p->J * D), vout);
}

/* the paper's plastic route: (28)-(29) then (32)-(33) */
static void penny_paper_plastic(const penny *p, const double *q, int s, const double *v,
                                double *Pv, double *C, double *vout) {
  double c = cos(q[3]), sn = sin(q[3]), R = p->R, m = p->m, I = p->I, J = p->J;
  double X = q[0] + s * R * c, Y = q[1] + s * R * sn;
  double hx = 2.0 * X / (p->a * p->a), hy = 2.0 * Y / (p->b * p->b);
  double tq = s * R * (hy * c - hx * sn); /* the yaw lever, sign-flipped at the back (D1) */
  *C = -2.0 * (hx * v[0] + hy * v[1] + tq * v[3]) / ((hx * hx + hy * hy) / m + tq * tq / J);
  Pv[0] = v[0] + *C / m * hx;
  Pv[1] = v[1] + *C / m * hy;
  Pv[2] = v[2];
  Pv[3] = v[3] + *C / J * tq;
  double It = I + m * R * R;
  double P[16] = {m * R * R * c * c, m * R * R * sn * c, I * R * c, 0,
                  m * R * R * sn * c, m * R * R * sn * sn, I * R * sn, 0,
                  m * R * c, m * R * sn, I, 0,
                  0, 0, 0, It};
  for (int i = 0; i < 4; i++) vout[i] = nh_la_dot(4, P + 4 * i, Pv) / It;
}

static double penny_T(const penny *p, const double *v) {
  return 0.5 * (p->m * (v[0] * v[0] + v[1] * v[1]) + p->I * v[2] * v[2] + p->J * v[3] * v[3]);
}

/* a printed 12-significant-digit value: 1e-12 absolute plus its rounding */
#define ENSURE_PRINTED(x, ref) ENSURE_NEAR(x, ref, 1e-12 + 6e-12 * fabs(ref))

/* Run both maps at a penny state and check the generic map against the reduced formulas
 * and the paper route. Returns 0 and fills the outputs. */
static int penny_both(const penny *p, const double *q, int s, double Om, double om, double *ve,
                      double *lame, nh_impact_info *ie, double *vpl, double *lamp,
                      nh_impact_info *ip, int *stp) {
  double M[16], A[8], dH[4], dg[4], v[4], work[WORK], ref[4], Pv[4], C;
  nh_impact_tol tol = nh_impact_tol_default();
  penny_mats(p, q, s, M, A, dH, dg);
  penny_vel(p, q[3], Om, om, v);
  ENSURE(nh_impact_map(4, 2, M, A, dg, v, ELASTIC, &tol, ve, lame, ie, work) == NH_OK);
  *stp = nh_impact_map(4, 2, M, A, dg, v, PLASTIC, &tol, vpl, lamp, ip, work);
  ENSURE(*stp == NH_OK || *stp == NH_NOT_REVERSED);
  double vs = ninf(4, v);
  penny_reduced(p, q, s, Om, om, 0, ref);
  ENSURE(track("penny |elastic - reduced| / |v|", maxdiff(4, ve, ref) / vs) < 1e-13);
  penny_reduced(p, q, s, Om, om, 1, ref);
  ENSURE(track("penny |plastic - reduced| / |v|", maxdiff(4, vpl, ref) / vs) < 1e-13);
  penny_paper_plastic(p, q, s, v, Pv, &C, ref);
  ENSURE(track("T9 |plastic - paper (28)-(33)| / |v|", maxdiff(4, vpl, ref) / vs) < 1e-13);
  ENSURE(track("T9 |alpha_plastic - C| / |C|", fabs(ip->alpha - C) / fabs(C)) < 1e-13);
  ENSURE(track("penny |A v+| (elastic, plastic)", fmax(cres(4, 2, A, ve), cres(4, 2, A, vpl)) / vs) < 1e-15);
  ENSURE(track("penny |T+ - T-| / T- (elastic)", fabs(penny_T(p, ve) - penny_T(p, v)) / penny_T(p, v)) < 1e-13);
  ENSURE(penny_T(p, vpl) < penny_T(p, v));
  ENSURE(track("penny momentum identity", fmax(momentum_defect(4, 2, M, A, dH, v, ve, lame, ie->alpha),
                                               momentum_defect(4, 2, M, A, dH, v, vpl, lamp, ip->alpha))) < 1e-13);
  return 0;
}

static int test_penny_example_a(void) {
  const penny *p = &PAPER;
  double X = 0.2 * cos(PI / 4), Y = 0.2 * sin(PI / 4), phi = PI / 3;
  double q[4] = {X - p->R * cos(phi), Y - p->R * sin(phi), 0.0, phi};
  double ve[4], vp[4], le[2], lp[2], M[16], A[8], dH[4], dg[4], v[4];
  nh_impact_info ie, ip;
  int st;
  ENSURE(penny_both(p, q, +1, 10.0, 0.2, ve, le, &ie, vp, lp, &ip, &st) == 0);
  ENSURE(st == NH_OK);
  penny_mats(p, q, +1, M, A, dH, dg);
  penny_vel(p, phi, 10.0, 0.2, v);
  ENSURE_PRINTED(q[0], 0.136421356237);
  ENSURE_PRINTED(q[1], 0.132761102199);
  ENSURE_PRINTED(v[1], 0.0866025403784);
  ENSURE_REL(penny_T(p, v), 1.875125e-5, 1e-12);
  ENSURE_PRINTED(dH[0], 7.07106781187);
  ENSURE_PRINTED(dH[3], -0.0258819045103);
  /* sig, D_e, D_p, rho */
  ENSURE_REL(ie.sig, 0.960749445387, 1e-10);
  ENSURE_REL(ie.D, 35598.3064144, 1e-10);
  ENSURE_REL(ip.D, 50717.9676972, 1e-10);
  ENSURE_REL(ie.rho, 0.701887477568, 1e-10);
  ENSURE_REL(ip.rho, 0.701887477568, 1e-10);
  /* elastic */
  const double e_ref[4] = {-0.0195173671908, -0.0338050716045, -3.90347343816, 22.5525468785};
  for (int i = 0; i < 4; i++) ENSURE_PRINTED(ve[i], e_ref[i]);
  ENSURE_REL(penny_T(p, ve), 1.875125e-5, 1e-12);
  ENSURE_REL(ie.alpha, -5.39772557831e-5, 1e-10);
  ENSURE_REL(le[0], 2.07883417964e-4, 1e-10);
  ENSURE_REL(le[1], 8.06578059835e-5, 1e-10);
  ENSURE_PRINTED(nh_la_dot(4, dH, ve), -0.960749445387);
  ENSURE_PRINTED(ie.vn_after, 0.960749445387);
  /* plastic */
  const double p_ref[4] = {1.20663049530e-3, 2.08994532382e-3, 0.241326099059, 15.8889727457};
  for (int i = 0; i < 4; i++) ENSURE_PRINTED(vp[i], p_ref[i]);
  ENSURE_REL(penny_T(p, vp), 7.90027764473e-6, 1e-10);
  ENSURE_REL(nh_la_dot(4, dH, vp) / nh_la_dot(4, dH, v), -0.403774955135, 1e-10);
  ENSURE_REL(1.0 - 2.0 * ip.rho, -0.403774955135, 1e-10);
  ENSURE_REL(ip.alpha, -3.78859599076e-5, 1e-10); /* C of (29) */
  /* P(qdot-) = v + C M^-1 dH^T with the map's alpha */
  const double P_ref[4] = {-0.0571576766498, -0.0205551362713, 10.0, 15.8889727457};
  for (int i = 0; i < 4; i++) ENSURE_PRINTED(v[i] + ip.alpha * dH[i] / M[i * 5], P_ref[i]);

  /* the same wall point hit by the back end of the relabelled coin */
  double qb[4] = {q[0], q[1], 0.0, phi + PI}, vbe[4], vbp[4], lbe[2], lbp[2];
  nh_impact_info ibe, ibp;
  ENSURE(penny_both(p, qb, -1, -10.0, 0.2, vbe, lbe, &ibe, vbp, lbp, &ibp, &st) == 0);
  ENSURE_PRINTED(vbe[2], 3.90347343816);
  ENSURE_PRINTED(vbp[2], -0.241326099059);
  for (int i = 0; i < 4; i++) {
    double sg = i == 2 ? -1.0 : 1.0;
    ENSURE(track("T8 relabelled example A |difference|", fmax(fabs(vbe[i] - sg * ve[i]), fabs(vbp[i] - sg * vp[i]))) < 1e-13);
  }
  return 0;
}

static int test_penny_example_b(void) {
  const penny *p = &PAPER;
  double X1 = -0.0399, Y1 = sqrt(0.03840799);
  double t1 = (atan2(Y1, 0.4601) - atan2(0.01, 0.5)) / 0.2, phi = PI / 2 + 0.2 * t1;
  double q[4] = {X1 - p->R * cos(phi), Y1 - p->R * sin(phi), 10.0 * t1, phi};
  double ve[4], vp[4], le[2], lp[2], M[16], A[8], dH[4], dg[4], v[4];
  nh_impact_info ie, ip;
  int st;
  ENSURE_NEAR(t1, 1.91338821025547, 1e-13);
  ENSURE_PRINTED(Y1, 0.195979565261);
  const double q_ref[4] = {-0.0361659423178, 0.186702884108, 19.1338821026, 1.95347396885};
  for (int i = 0; i < 4; i++) ENSURE_PRINTED(q[i], q_ref[i]);
  ENSURE(penny_both(p, q, +1, 10.0, 0.2, ve, le, &ie, vp, lp, &ip, &st) == 0);
  ENSURE(st == NH_OK);
  penny_mats(p, q, +1, M, A, dH, dg);
  penny_vel(p, phi, 10.0, 0.2, v);
  const double v_ref[4] = {-0.0373405768215, 0.0927668115364, 10.0, 0.2};
  for (int i = 0; i < 4; i++) ENSURE_PRINTED(v[i], v_ref[i]);
  const double dH_ref[4] = {-1.995, 9.79897826306, 0.0, -0.0180829711589};
  for (int i = 0; i < 4; i++) ENSURE_PRINTED(dH[i], dH_ref[i]);
  ENSURE_REL(ie.sig, 0.979897826306, 1e-10);
  ENSURE_REL(ie.D, 31026.5846125, 1e-10);
  ENSURE_REL(ip.D, 45231.9015350, 1e-10);
  ENSURE_REL(ie.rho, 0.685944732801, 1e-10);
  const double e_ref[4] = {0.0245190513749, -0.0609137408032, -6.56632903452, 18.4753873589};
  for (int i = 0; i < 4; i++) ENSURE_PRINTED(ve[i], e_ref[i]);
  ENSURE_REL(ie.alpha, -6.31650462689e-5, 1e-10);
  ENSURE_REL(le[0], 2.86348031845e-5, 1e-10);
  ENSURE_REL(le[1], 2.34751534526e-4, 1e-10);
  const double p_ref[4] = {5.09170931282e-3, -0.0126495538748, -1.36358614307, 12.7359056988};
  for (int i = 0; i < 4; i++) ENSURE_PRINTED(vp[i], p_ref[i]);
  ENSURE_REL(penny_T(p, vp), 5.41748428078e-6, 1e-10);
  ENSURE_REL(penny_T(p, vp) / penny_T(p, v), 0.288913234093, 1e-10);
  ENSURE_REL(1.0 - 2.0 * ip.rho, -0.371889465601, 1e-10);
  ENSURE_REL(ip.alpha, -4.33277307853e-5, 1e-10);
  const double P_ref[4] = {-2.76504765487e-3, -0.0770601853247, 10.0, 12.7359056988};
  for (int i = 0; i < 4; i++) ENSURE_PRINTED(v[i] + ip.alpha * dH[i] / M[i * 5], P_ref[i]);
  return 0;
}

/* T7: head-on, exact values */
static int test_penny_example_h(void) {
  const penny *p = &PAPER;
  double ve[4], vp[4], le[2], lp[2];
  nh_impact_info ie, ip;
  int st;
  double q[4] = {0.19, 0.0, 0.0, 0.0};
  ENSURE(penny_both(p, q, +1, 10.0, 0.2, ve, le, &ie, vp, lp, &ip, &st) == 0);
  const double e_ref[4] = {-0.1, 0.0, -10.0, 0.2}, p_ref[4] = {-1.0 / 30, 0.0, -10.0 / 3, 0.2};
  for (int i = 0; i < 4; i++) {
    ENSURE_NEAR(ve[i], e_ref[i], 1e-12);
    ENSURE_NEAR(vp[i], p_ref[i], 1e-12);
  }
  ENSURE_REL(ie.alpha, -7.5e-5, 1e-12);
  ENSURE_REL(le[0], 2.5e-4, 1e-12);
  ENSURE_NEAR(le[1], 0.0, 1e-18);
  ENSURE_REL(penny_T(p, vp), 2.08458333333e-6, 1e-11);
  ENSURE_REL(ip.alpha, -5e-5, 1e-12);
  ENSURE_REL(ip.rho, 2.0 / 3.0, 1e-13);
  /* back-end mirror */
  double qb[4] = {-0.19, 0.0, 0.0, 0.0};
  ENSURE(penny_both(p, qb, -1, -10.0, 0.2, ve, le, &ie, vp, lp, &ip, &st) == 0);
  ENSURE_NEAR(ve[2], 10.0, 1e-12);
  ENSURE_NEAR(vp[2], 10.0 / 3, 1e-12);
  ENSURE_NEAR(ve[3], 0.2, 1e-12);
  ENSURE_NEAR(vp[3], 0.2, 1e-12);
  return 0;
}

/* T8: relabelling the coin (phi + pi, theta -> -theta, Omega -> -Omega, front <-> back) */
static int test_penny_relabel(void) {
  unsigned long long s = 808;
  penny p = PAPER;
  p.a = 0.15; /* the elliptical table */
  for (int rep = 0; rep < SEEDS; rep++) {
    double t = nh_test_rand(&s, 0, 2 * PI), phi = nh_test_rand(&s, -PI, PI);
    int e = nh_test_rand(&s, 0, 1) < 0.5 ? 1 : -1;
    double X = p.a * cos(t), Y = p.b * sin(t);
    double q[4] = {X - e * p.R * cos(phi), Y - e * p.R * sin(phi), nh_test_rand(&s, -9, 9), phi};
    double Om = nh_test_rand(&s, -10, 10), om = nh_test_rand(&s, -10, 10);
    /* approach: sig = R (n_par Om + e n_perp om) > 0 */
    double M[16], A[8], dH[4], dg[4], v[4];
    penny_mats(&p, q, e, M, A, dH, dg);
    penny_vel(&p, phi, Om, om, v);
    if (nh_la_dot(4, dH, v) < 0.0) Om = -Om, om = -om;
    double ve[4], vp[4], le[2], lp[2], we[4], wp[4], me[2], mp[2];
    nh_impact_info ie, ip, je, jp;
    int st, st2;
    ENSURE(penny_both(&p, q, e, Om, om, ve, le, &ie, vp, lp, &ip, &st) == 0);
    double qr[4] = {q[0], q[1], -q[2], phi + PI};
    ENSURE(penny_both(&p, qr, -e, -Om, om, we, me, &je, wp, mp, &jp, &st2) == 0);
    ENSURE(st == st2);
    double sc = fabs(Om) + fabs(om);
    for (int i = 0; i < 4; i++) {
      double sg = i == 2 ? -1.0 : 1.0;
      ENSURE(track("T8 relabel |difference| / |v|",
                   fmax(fabs(we[i] - sg * ve[i]), fabs(wp[i] - sg * vp[i])) / sc) < 1e-13);
    }
  }
  return 0;
}

/* T11: the plastic factor 1 - 2 rho over all angles, paper inertias: [-0.6, -1/3] */
static int test_penny_plastic_factor(void) {
  const penny *p = &PAPER;
  double X = 0.2 * cos(PI / 4), Y = 0.2 * sin(PI / 4), lo = 1.0, hi = -1.0;
  double work[WORK];
  nh_impact_tol tol = nh_impact_tol_default();
  for (int k = 0; k < 1000; k++) {
    double phi = 2.0 * PI * k / 1000.0;
    for (int s = -1; s <= 1; s += 2) {
      double q[4] = {X - s * p->R * cos(phi), Y - s * p->R * sin(phi), 0.0, phi};
      double M[16], A[8], dH[4], dg[4], v[4], vp[4];
      penny_mats(p, q, s, M, A, dH, dg);
      /* move along the reduced gradient: sig = |.|^2 > 0 */
      double npar = dH[0] * cos(phi) + dH[1] * sin(phi);
      penny_vel(p, phi, p->R * npar, dH[3], v);
      nh_impact_info info;
      ENSURE(nh_impact_map(4, 2, M, A, dg, v, PLASTIC, &tol, vp, NULL, &info, work) == NH_OK);
      double f = 1.0 - 2.0 * info.rho;
      ENSURE(f >= -0.6 - 1e-12 && f <= -1.0 / 3.0 + 1e-12);
      ENSURE(track("T11 |dH v+ / dH v - (1 - 2 rho)|", fabs(nh_la_dot(4, dH, vp) / info.sig - f)) < 1e-13);
      if (f < lo) lo = f;
      if (f > hi) hi = f;
    }
  }
  ENSURE_NEAR(lo, -0.6, 1e-9);
  ENSURE_NEAR(hi, -1.0 / 3.0, 1e-9);
  return 0;
}

/* D6: a ring-like coin (I > m R^2) head-on: rho = m R^2 / (I + m R^2) = 1/3 < 1/2, the
 * plastic map does not reverse the normal velocity */
static int test_penny_ring_not_reversed(void) {
  penny p = PAPER;
  p.I = 2.0 * p.m * p.R * p.R;
  double q[4] = {0.19, 0.0, 0.0, 0.0}, M[16], A[8], dH[4], dg[4], v[4], vp[4], lam[2], ref[4];
  double work[WORK];
  nh_impact_tol tol = nh_impact_tol_default();
  penny_mats(&p, q, +1, M, A, dH, dg);
  penny_vel(&p, 0.0, 10.0, 0.2, v);
  nh_impact_info info;
  ENSURE(nh_impact_map(4, 2, M, A, dg, v, PLASTIC, &tol, vp, lam, &info, work) == NH_NOT_REVERSED);
  ENSURE_REL(info.rho, 1.0 / 3.0, 1e-14);
  penny_reduced(&p, q, +1, 10.0, 0.2, 1, ref);
  ENSURE(maxdiff(4, vp, ref) < 1e-14); /* v_out holds the plastic result */
  ENSURE_NEAR(vp[2], 10.0 / 3.0, 1e-13); /* Omega (1 - 2 rho) */
  ENSURE(info.vn_after < 0.0);            /* still moving into the wall */
  ENSURE_REL(info.vn_after, -(1.0 - 2.0 * info.rho) * info.sig, 1e-13);
  ENSURE(momentum_defect(4, 2, M, A, dH, v, vp, lam, info.alpha) < 1e-13);
  /* the elastic map reverses it all the same */
  ENSURE(nh_impact_map(4, 2, M, A, dg, v, ELASTIC, &tol, vp, lam, &info, work) == NH_OK);
  ENSURE_NEAR(vp[2], -10.0, 1e-12);
  ENSURE_REL(info.vn_after, info.sig, 1e-13);
  return 0;
}

/* ---- nh_model_impact on a penny model built here ------------------------------------ */

static int pm_mass(const double *q, double *M, void *user) {
  (void)q;
  const penny *p = user;
  memset(M, 0, sizeof(double) * 16);
  M[0] = M[5] = p->m;
  M[10] = p->I;
  M[15] = p->J;
  return 0;
}

static int pm_constraint(const double *q, const double *v, double *A, double *Adot_v, void *user) {
  const penny *p = user;
  (void)v;
  if (Adot_v) return -1; /* nh_model_impact must not ask for it */
  double Ar[8] = {1, 0, -p->R * cos(q[3]), 0, 0, 1, -p->R * sin(q[3]), 0};
  if (A) memcpy(A, Ar, sizeof Ar);
  return 0;
}

static int pm_gap(const double *q, double *g, double *dg, void *user) {
  const penny *p = user;
  if (q[2] > 1e6) return -3; /* a failing evaluator for the test */
  for (int k = 0; k < 2; k++) {
    int s = k == 0 ? 1 : -1;
    double M[16], A[8], dH[4];
    penny_mats(p, q, s, M, A, dH, dg ? dg + 4 * k : dH);
    if (g) {
      double X = q[0] + s * p->R * cos(q[3]), Y = q[1] + s * p->R * sin(q[3]);
      g[k] = 1.0 - X * X / (p->a * p->a) - Y * Y / (p->b * p->b);
    }
  }
  return 0;
}

static int test_model_impact(void) {
  static const char *const names[4] = {"x", "y", "theta", "phi"};
  const nh_impact_law laws[2] = {ELASTIC, PLASTIC};
  nh_model_def def = nh_model_def_default();
  def.name = "penny-test";
  def.nq = 4;
  def.nc = 2;
  def.ngap = 2;
  def.coord_names = names;
  def.impact = laws;
  def.mass = pm_mass;
  def.constraint = pm_constraint;
  def.gap = pm_gap;
  def.user = &PAPER;
  def.user_size = sizeof PAPER;
  char msg[128];
  nh_model *model = nh_model_create(&def, msg, sizeof msg);
  ENSURE(model != NULL);
  size_t ws = nh_model_impact_work_size(model);
  ENSURE(ws >= nh_impact_work_size(4, 2) && ws <= WORK);
  double work[WORK], vp[4], lam[2], ref[4], lref[2];
  double X = 0.2 * cos(PI / 4), Y = 0.2 * sin(PI / 4), phi = PI / 3;
  double q[4] = {X - PAPER.R * cos(phi), Y - PAPER.R * sin(phi), 0.0, phi}, v[4];
  penny_vel(&PAPER, phi, 10.0, 0.2, v);
  nh_impact_info info;
  /* gap 0 (front) with the model's law (elastic): Example A */
  ENSURE(nh_model_impact(model, 0, q, v, NULL, NULL, vp, lam, &info, work) == NH_OK);
  penny_reduced(&PAPER, q, +1, 10.0, 0.2, 0, ref);
  ENSURE(maxdiff(4, vp, ref) < 1e-13);
  ENSURE_REL(lam[0], 2.07883417964e-4, 1e-10);
  /* a law given explicitly overrides it */
  ENSURE(nh_model_impact(model, 0, q, v, &PLASTIC, NULL, vp, lam, &info, work) == NH_OK);
  penny_reduced(&PAPER, q, +1, 10.0, 0.2, 1, ref);
  ENSURE(maxdiff(4, vp, ref) < 1e-13);
  /* gap 1 (back end) with its own law (plastic), at the mirrored state; equals the map */
  double qb[4] = {q[0], q[1], 0.0, phi + PI}, vb[4], M[16], A[8], dH[4], dg[4];
  penny_vel(&PAPER, qb[3], -10.0, 0.2, vb);
  ENSURE(nh_model_impact(model, 1, qb, vb, NULL, NULL, vp, lam, &info, work) == NH_OK);
  penny_mats(&PAPER, qb, -1, M, A, dH, dg);
  nh_impact_tol tol = nh_impact_tol_default();
  ENSURE(nh_impact_map(4, 2, M, A, dg, vb, PLASTIC, &tol, ref, lref, NULL, work) == NH_OK);
  ENSURE(maxdiff(4, vp, ref) == 0.0 && maxdiff(2, lam, lref) == 0.0);
  ENSURE_PRINTED(vp[2], -0.241326099059);
  /* bad gap index, failing evaluator */
  ENSURE(nh_model_impact(model, 2, q, v, NULL, NULL, vp, NULL, NULL, work) == NH_ERR_ARG);
  ENSURE(nh_model_impact(model, -1, q, v, NULL, NULL, vp, NULL, NULL, work) == NH_ERR_ARG);
  double qf[4] = {q[0], q[1], 2e6, q[3]};
  memset(vp, 0, sizeof vp);
  ENSURE(nh_model_impact(model, 0, qf, v, NULL, NULL, vp, NULL, NULL, work) == NH_ERR_CALLBACK);
  ENSURE(memcmp(vp, v, sizeof vp) == 0);
  nh_model_destroy(model);
  return 0;
}

static int test_status_strings(void) {
  ENSURE(strcmp(nh_status_name(NH_ZENO), "NH_ZENO") == 0);
  ENSURE(strcmp(nh_status_name(NH_ERR_PARSE), "NH_ERR_PARSE") == 0);
  ENSURE(strcmp(nh_status_string(NH_OK), "ok") == 0);
  ENSURE(strcmp(nh_status_string(NH_NOT_REVERSED),
                "impact did not reverse the normal velocity (plastic, rho < 1/2)") == 0);
  ENSURE(nh_status_string(12345) != NULL && nh_status_name(-12345) != NULL);
  ENSURE(strcmp(nh_version(), "0.1.0") == 0);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_t1_elastic_literal);
  RUN_TEST(test_t2_plastic);
  RUN_TEST(test_restitution);
  RUN_TEST(test_t3_holonomic);
  RUN_TEST(test_t4_guards);
  RUN_TEST(test_penny_example_a);
  RUN_TEST(test_penny_example_b);
  RUN_TEST(test_penny_example_h);
  RUN_TEST(test_penny_relabel);
  RUN_TEST(test_penny_plastic_factor);
  RUN_TEST(test_penny_ring_not_reversed);
  RUN_TEST(test_model_impact);
  RUN_TEST(test_status_strings);
  printf("largest errors seen:\n");
  for (int i = 0; i < nerrs; i++) printf("  %-58s %.3e\n", errs[i].name, errs[i].max);
  return TEST_SUMMARY();
}
