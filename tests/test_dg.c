/* test_dg.c - discrete gradients, the differentiated QR, and the energy-preserving methods of
 * Celledoni, Farre Puiggali, Hoiseth, Martin de Diego (spec 002): identities, exact
 * Jacobians, energy and constraint preservation, orders, Proposition 4.1, the energy-error
 * variance of SI-DLA. Reference values marked [D] are spec 002 Appendix A (prototype). */
#include <math.h>
#include <stdlib.h>

#include "dg/dg.h"
#include "harness.h"
#include "la/la.h"
#include "methods/method_impl.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"
#include "runs.h"
#include "quartic_variance.h"

#define EPS 2.220446049250313e-16
#define PI 3.14159265358979323846

/* ---- helpers ------------------------------------------------------------------------- */

/* the quartic-ap model as a dg system */
typedef struct msys {
  const nh_model *m;
} msys;
static int m_eval(const double *x, double *H, double *dH, double *Pi, void *u) {
  const nh_model *m = ((msys *)u)->m;
  if ((H || dH) && m->hamiltonian(x, H, dH, m->user)) return -1;
  if (Pi && m->poisson(x, Pi, m->user)) return -1;
  return 0;
}
static int m_hess(const double *x, double *Hs, void *u) {
  const nh_model *m = ((msys *)u)->m;
  return nh_model_hamiltonian_hess(m, x, Hs, NULL);
}
static int m_pijac(const double *x, const double *g, double *T, void *u) {
  const nh_model *m = ((msys *)u)->m;
  return nh_model_poisson_jac(m, x, g, T, NULL);
}

/* a polynomial H of degree 4 on R^14: the quartic system's canonical H(q, p) = |p|^2/2 + V(q) */
static int poly_eval(const double *x, double *H, double *dH, double *Pi, void *u) {
  nh_model *m = u;
  double V = 0.0, dV[7];
  m->potential(x, &V, dV, m->user);
  if (H) {
    *H = V;
    for (int i = 7; i < 14; i++) *H += 0.5 * x[i] * x[i];
  }
  if (dH)
    for (int i = 0; i < 14; i++) dH[i] = i < 7 ? dV[i] : x[i];
  (void)Pi;
  return 0;
}

/* ---- Algorithm 1 --------------------------------------------------------------------- */

/* A(q) = B0 + B q + 0.3 sin(B q), 5 x 2 (spec 002 A.7) and its derivatives */
static double B0[10], B[10][5];
static void randA(const double *q, double *A, double *dA) {
  for (int e = 0; e < 10; e++) {
    double bq = 0.0;
    for (int k = 0; k < 5; k++) bq += B[e][k] * q[k];
    A[e] = B0[e] + bq + 0.3 * sin(bq);
    for (int k = 0; k < 5 && dA; k++) dA[k * 10 + e] = B[e][k] * (1.0 + 0.3 * cos(bq));
  }
}

static int test_qrdiff(void) {
  unsigned long long seed = 7;
  for (int e = 0; e < 10; e++) {
    B0[e] = nh_test_rand(&seed, -1, 1);
    for (int k = 0; k < 5; k++) B[e][k] = nh_test_rand(&seed, -1, 1);
  }
  const int n = 5, r = 2;
  double q[5], A[10], dA[50], Q[25], dQ[125], s[2] = {0, 0}, Qp[25], Qm[25], Rm[10];
  double *work = malloc(sizeof(double) * nh_la_qrdiff_work_size(n, r, 1));
  for (int k = 0; k < 5; k++) q[k] = nh_test_rand(&seed, -1, 1);
  randA(q, A, dA);
  ENSURE(nh_la_qrdiff(n, r, A, dA, s, NULL, Q, dQ, 0, work) == 0);
  ENSURE(fabs(s[0]) == 1.0 && fabs(s[1]) == 1.0);
  // Q orthogonal, R = Q^T A upper triangular with Q R = A, A^T X = 0
  double err_orth = 0.0, err_tri = 0.0, err_ax = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double d = 0.0;
      for (int k = 0; k < n; k++) d += Q[k * n + i] * Q[k * n + j];
      err_orth = fmax(err_orth, fabs(d - (i == j)));
    }
  for (int i = 0; i < n; i++)
    for (int c = 0; c < r; c++) {
      double d = 0.0;
      for (int k = 0; k < n; k++) d += Q[k * n + i] * A[k * r + c];
      Rm[(i < r ? i : 0) * r + c] = i < r ? d : Rm[c];
      if (i > c) err_tri = fmax(err_tri, fabs(d)); /* below the diagonal, and A^T X for i >= r */
      if (i >= r) err_ax = fmax(err_ax, fabs(d));
    }
  ENSURE(err_orth < 1e-15 * 4);
  ENSURE(err_tri < 1e-14);
  ENSURE(err_ax < 1e-14);
  // dQ against central differences with the same signs; the paper's printed sign fails (E8)
  double dmax = 0.0, dpaper = 0.0, dQp[125];
  ENSURE(nh_la_qrdiff(n, r, A, dA, s, NULL, Q, dQp, NH_LA_QRDIFF_PAPER_SIGN, work) == 0);
  for (int k = 0; k < n; k++) {
    double qk = q[k], hk = 1e-6;
    q[k] = qk + hk;
    randA(q, A, NULL);
    nh_la_qrdiff(n, r, A, NULL, s, NULL, Qp, NULL, 0, work);
    q[k] = qk - hk;
    randA(q, A, NULL);
    nh_la_qrdiff(n, r, A, NULL, s, NULL, Qm, NULL, 0, work);
    q[k] = qk;
    for (int e = 0; e < 25; e++) {
      double fd = (Qp[e] - Qm[e]) / (2 * hk);
      dmax = fmax(dmax, fabs(fd - dQ[k * 25 + e]));
      dpaper = fmax(dpaper, fabs(fd - dQp[k * 25 + e]));
    }
  }
  printf("  dQ vs central differences: %.2e (paper's sign: %.2e)\n", dmax, dpaper);
  ENSURE(dmax < 1e-8);
  ENSURE(dpaper > 1e-2);
  free(work);
  return 0;
}

/* The snakeboard's A(q)^T (5 x 2, rows front and back of eq. 34, l = 1) at phi = -pi/2 + t,
 * theta = 0.7, and its derivatives (slices d/dq_i, nonzero for phi and theta): the rows are
 * opposite at t = 0 (rank 1), so the second column's remainder x after the first reflection
 * passes through 0 there, x = t x1 + O(t^2). */
static void sb_At(double t, double *At, double *dAt) {
  const double ph = -PI / 2 + t, th = 0.7, l = 1.0;
  const double sp = sin(th + ph), cp = cos(th + ph), sm = sin(th - ph), cm = cos(th - ph);
  const double A[2][5] = {{0, 0, -l * cos(ph), -sp, cp}, {0, 0, l * cos(ph), -sm, cm}};
  const double dph[2][5] = {{0, 0, l * sin(ph), -cp, -sp}, {0, 0, -l * sin(ph), cm, sm}};
  const double dth[2][5] = {{0, 0, 0, -cp, -sp}, {0, 0, 0, -cm, -sm}};
  for (int i = 0; i < 5; i++)
    for (int k = 0; k < 2; k++) {
      At[i * 2 + k] = A[k][i];
      for (int v = 0; dAt && v < 5; v++) dAt[v * 10 + i * 2 + k] = v == 1 ? dph[k][i] : v == 2 ? dth[k][i] : 0.0;
    }
}

/* the largest difference of the frames X (the last 3 columns of Q) of two factorizations */
static double frame_dist(const double *Q1, const double *Q2) {
  double d = 0.0;
  for (int i = 0; i < 5; i++)
    for (int a = 2; a < 5; a++) d = fmax(d, fabs(Q1[i * 5 + a] - Q2[i * 5 + a]));
  return d;
}

/* the sign continuation through a rank change: X(t) - X(-t) against 2 t (measured 1.00) */
#define QR_CROSS_LIPSCHITZ 4.0
/* the fixed sign's frame jumps there by O(1) (measured 1.53) */
#define QR_CROSS_JUMP 0.5
/* dQ/dphi against central differences across t = 0 (increment 1e-5 around t = 2e-6:
 * truncation ~1e-10, rounding eps / (t 1e-5) ~ 1e-5 at the reversal, measured 3.5e-6) */
#define QR_CROSS_DQ_TOL 1e-4

static int test_qrdiff_rank_change(void) {
  const int n = 5, r = 2;
  double At[10], dAt[50], Q[25], Qm[25], Qp[25], dQ[125], s[2] = {0, 0}, xref[10];
  double *work = malloc(sizeof(double) * nh_la_qrdiff_work_size(n, r, 1));
  ENSURE(work);
  // signs and reference directions at a base point t0 = 2e-4, as a time step would fix them
  sb_At(2e-4, At, NULL);
  ENSURE(nh_la_qrdiff(n, r, At, NULL, s, xref, Q, NULL, 0, work) == 0);
  const double s0[2] = {s[0], s[1]};
  // across t = 0 with the continuation: the frame moves by O(t)
  const double t = 1e-5;
  sb_At(t, At, NULL);
  ENSURE(nh_la_qrdiff(n, r, At, NULL, s, xref, Qp, NULL, 0, work) == 0);
  sb_At(-t, At, NULL);
  ENSURE(nh_la_qrdiff(n, r, At, NULL, s, xref, Qm, NULL, 0, work) == 0);
  ENSURE(s[0] == s0[0] && s[1] == s0[1]); /* the given signs are not written */
  const double smooth = frame_dist(Qp, Qm);
  // with the signs fixed and no reference, the reflection turns: a jump of O(1)
  sb_At(-t, At, NULL);
  ENSURE(nh_la_qrdiff(n, r, At, NULL, s, NULL, Qm, NULL, 0, work) == 0);
  const double jump = frame_dist(Qp, Qm);
  // the derivative through the reversal against central differences over it
  const double tc = 2e-6, hd = 1e-5;
  double dmax = 0.0;
  sb_At(tc, At, dAt);
  ENSURE(nh_la_qrdiff(n, r, At, dAt, s, xref, Q, dQ, 0, work) == 0);
  sb_At(tc + hd, At, NULL);
  ENSURE(nh_la_qrdiff(n, r, At, NULL, s, xref, Qp, NULL, 0, work) == 0);
  sb_At(tc - hd, At, NULL);
  ENSURE(nh_la_qrdiff(n, r, At, NULL, s, xref, Qm, NULL, 0, work) == 0);
  for (int e = 0; e < 25; e++) dmax = fmax(dmax, fabs((Qp[e] - Qm[e]) / (2 * hd) - dQ[25 + e]));
  printf("  through the rank change: |X(t) - X(-t)| = %.2e (2t = %.0e), fixed sign %.2f; dQ/dphi vs differences %.1e\n",
         smooth, 2 * t, jump, dmax);
  ENSURE(smooth < QR_CROSS_LIPSCHITZ * 2 * t);
  ENSURE(jump > QR_CROSS_JUMP);
  ENSURE(dmax < QR_CROSS_DQ_TOL);
  free(work);
  return 0;
}

/* ---- discrete gradients -------------------------------------------------------------- */

static int test_dg_identities(void) {
  nh_model *m = nh_quartic_ap_create(NULL, 0);
  nh_model *mq = nh_quartic_create(NULL, 0);
  ENSURE(m && mq);
  msys u = {m};
  nh_dg_sys sys = {.n = 13, .eval = m_eval, .hess = m_hess, .pijac = m_pijac, .degree = 0, .user = &u};
  nh_dg_sys poly = {.n = 14, .eval = poly_eval, .hess = NULL, .pijac = NULL, .degree = 4, .user = mq};
  double *w = malloc(sizeof(double) * nh_dg_work_size(14));
  unsigned long long seed = 11;
  const char *names[3] = {"avf", "gonzalez", "itoh-abe"};
  for (int trial = 0; trial < 20; trial++) {
    double x[14], y[14], G[14], G2[14], g[14], H0, H1;
    for (int i = 0; i < 14; i++) x[i] = nh_test_rand(&seed, -1, 1), y[i] = x[i] + nh_test_rand(&seed, -0.3, 0.3);
    m_eval(x, &H0, g, NULL, &u);
    m_eval(y, &H1, NULL, NULL, &u);
    for (int k = 0; k < 3; k++) {
      // (10a): G . (x' - x) = H(x') - H(x)
      ENSURE(nh_dg_grad(&sys, (nh_dg_kind)k, x, y, G, NULL, NULL, w) == 0);
      double lhs = 0.0;
      for (int i = 0; i < 13; i++) lhs += G[i] * (y[i] - x[i]);
      double tol = 20 * EPS * (fabs(H0) + fabs(H1));
      if (fabs(lhs - (H1 - H0)) > tol) printf("  %s: (10a) off by %.2e\n", names[k], fabs(lhs - (H1 - H0)));
      ENSURE(fabs(lhs - (H1 - H0)) <= tol);
      // (10b): G(x, x) = grad H(x)
      ENSURE(nh_dg_grad(&sys, (nh_dg_kind)k, x, x, G2, NULL, NULL, w) == 0);
      for (int i = 0; i < 13; i++) ENSURE_NEAR(G2[i], g[i], 4 * EPS * (1 + fabs(g[i])));
      // symmetry: AVF and Gonzalez yes, Itoh-Abe no
      ENSURE(nh_dg_grad(&sys, (nh_dg_kind)k, y, x, G2, NULL, NULL, w) == 0);
      double asym = dist(13, G, G2);
      if (k < 2) ENSURE(asym < 1e-14);
      else ENSURE(asym > 1e-3);
    }
    // AVF exact on a polynomial H with the rule the degree selects (K = 2 for degree 4)
    int nodes = 0;
    double P0, P1;
    ENSURE(nh_dg_grad(&poly, NH_DG_AVF, x, y, G, NULL, &nodes, w) == 0);
    ENSURE(nodes == 2);
    poly_eval(x, &P0, NULL, NULL, mq);
    poly_eval(y, &P1, NULL, NULL, mq);
    double lhs = 0.0;
    for (int i = 0; i < 14; i++) lhs += G[i] * (y[i] - x[i]);
    ENSURE_NEAR(lhs, P1 - P0, 20 * EPS * (fabs(P0) + fabs(P1)));
  }
  // Remark 3.2: for H = sum a_i x_i^2 the three coincide, a_i (x_i + x'_i) (the sleigh's H)
  nh_sleigh_dg_params sp = nh_sleigh_dg_params_default();
  nh_model *ms = nh_sleigh_dg_create(&sp, NULL, 0);
  msys us = {ms};
  nh_dg_sys ssys = {.n = 5, .eval = m_eval, .hess = m_hess, .pijac = m_pijac, .degree = 2, .user = &us};
  double x[5] = {1, 2, 0.3, 0.4, -0.5}, y[5] = {1.1, 1.7, 0.5, -0.2, 0.7}, G[5];
  for (int k = 0; k < 3; k++) {
    ENSURE(nh_dg_grad(&ssys, (nh_dg_kind)k, x, y, G, NULL, NULL, w) == 0);
    for (int i = 0; i < 5; i++) ENSURE_NEAR(G[i], i < 3 ? 0.0 : 0.5 * (x[i] + y[i]), 1e-15);
  }
  free(w);
  nh_model_destroy(m);
  nh_model_destroy(mq);
  nh_model_destroy(ms);
  return 0;
}

/* dG/dx' of each discrete gradient, and the model's Hessian and d(Pi g)/dx, against differences */
static int test_dg_jacobians(void) {
  nh_model *m = nh_quartic_ap_create(NULL, 0);
  ENSURE(m);
  msys u = {m};
  nh_dg_sys sys = {.n = 13, .eval = m_eval, .hess = m_hess, .pijac = m_pijac, .degree = 0, .user = &u};
  double *w = malloc(sizeof(double) * nh_dg_work_size(13));
  unsigned long long seed = 5;
  double x[13], y[13], yp[13], G[13], Gp[13], Gm[13], dG[169];
  for (int i = 0; i < 13; i++) x[i] = nh_test_rand(&seed, -1, 1), y[i] = x[i] + nh_test_rand(&seed, -0.2, 0.2);
  for (int k = 0; k < 3; k++) {
    ENSURE(nh_dg_grad(&sys, (nh_dg_kind)k, x, y, G, dG, NULL, w) == 0);
    double err = 0.0;
    for (int j = 0; j < 13; j++) {
      double hj = 1e-6;
      for (int i = 0; i < 13; i++) yp[i] = y[i];
      yp[j] = y[j] + hj;
      nh_dg_grad(&sys, (nh_dg_kind)k, x, yp, Gp, NULL, NULL, w);
      yp[j] = y[j] - hj;
      nh_dg_grad(&sys, (nh_dg_kind)k, x, yp, Gm, NULL, NULL, w);
      for (int i = 0; i < 13; i++) err = fmax(err, fabs((Gp[i] - Gm[i]) / (2 * hj) - dG[i * 13 + j]));
    }
    printf("  kind %d: |dG/dx' - differences| = %.2e\n", k, err);
    ENSURE(err < 1e-7);
  }
  // exact Hessian and Pi-Jacobian of the model against differences of grad H and Pi g
  double Hs[169], T[169], g[13], gp[13], gm[13], P[169];
  for (int i = 0; i < 13; i++) g[i] = nh_test_rand(&seed, -1, 1);
  ENSURE(nh_model_hamiltonian_hess(m, x, Hs, NULL) == 0);
  ENSURE(nh_model_poisson_jac(m, x, g, T, NULL) == 0);
  double eh = 0.0, et = 0.0;
  for (int k = 0; k < 13; k++) {
    double xk = x[k], hk = 1e-6;
    x[k] = xk + hk;
    m->hamiltonian(x, NULL, gp, m->user);
    m->poisson(x, P, m->user);
    for (int i = 0; i < 13; i++) yp[i] = 0.0;
    for (int i = 0; i < 13; i++)
      for (int j = 0; j < 13; j++) yp[i] += P[i * 13 + j] * g[j];
    x[k] = xk - hk;
    m->hamiltonian(x, NULL, gm, m->user);
    m->poisson(x, P, m->user);
    x[k] = xk;
    for (int i = 0; i < 13; i++) {
      double pm = 0.0;
      for (int j = 0; j < 13; j++) pm += P[i * 13 + j] * g[j];
      eh = fmax(eh, fabs((gp[i] - gm[i]) / (2 * hk) - Hs[i * 13 + k]));
      et = fmax(et, fabs((yp[i] - pm) / (2 * hk) - T[i * 13 + k]));
    }
  }
  ENSURE(eh < 1e-8 && et < 1e-8);
  // Pi skew
  m->poisson(x, P, m->user);
  for (int i = 0; i < 13; i++)
    for (int j = 0; j < 13; j++) ENSURE(P[i * 13 + j] == -P[j * 13 + i]);
  free(w);
  nh_model_destroy(m);
  return 0;
}

/* ---- energy, constraints, reference states ------------------------------------------- */

/* quartic-ap, IC of A.1: energy to 1e-13 per step, constraint x' + w.z' = 0 built in, the
 * [D] states at t = 10 */
static int test_quartic_energy(void) {
  nh_model *m = nh_quartic_ap_create(NULL, 0);
  ENSURE(m);
  const char *meth[3] = {"avf", "gonzalez", "itoh-abe"};
  /* spec 002 A.1, h = 0.05 [D] */
  static const double ref[3][13] = {
      {0.8248437768, -0.5878844607, 0.5757107973, 0.0175552698, -0.4073460178, 0.9637383473, -0.7696538550,
       -0.9282367921, 0.8190217406, 0.5458743851, 0.6331220982, -0.2048508857, 0.6474166293},
      {0.8252564817, -0.5873308814, 0.5756782781, 0.0179702322, -0.4070100813, 0.9637284813, -0.7701607916,
       -0.9285109190, 0.8191048563, 0.5458048162, 0.6320790643, -0.2043973953, 0.6475176527},
      {0.8205096139, -0.5896629545, 0.5713429972, -0.0277188990, -0.4046129867, 1.0342244622, -0.7252161159,
       -0.9410813006, 0.7546371477, 0.5327040065, 0.6091602086, -0.2060272204, 0.6518175036}};
  for (int k = 0; k < 3; k++) {
    run_out o;
    ENSURE(run_model(m, meth[k], 0.05, 10.0, NULL, &o) == 0);
    printf("  %s: max rel energy error %.2e, %.2f iterations/step, max residual %.2e\n", meth[k],
           o.st.max_energy_rel_error, (double)o.st.solver_iterations / o.st.steps, o.st.solver_max_residual);
    ENSURE(o.st.max_energy_rel_error < 1e-13);
    ENSURE(o.st.solver_max_residual < (k == 2 ? 1e-13 : 1e-14)); /* Itoh-Abe: quotients of differences */
    for (int i = 0; i < 13; i++) ENSURE_NEAR(o.x[i], ref[k][i], 2e-10);
  }
  nh_model_destroy(m);
  return 0;
}

/* The predictor corrections carried across steps (nh_dg_pc) only move Newton's start: every
 * step lands on the solution of (14) from the same x to the solver's tolerance, with fewer
 * iterations than from the plain explicit midpoint; another h or another x restarts the
 * history; and a run after nh_sim_set_state does not depend on the steps before it. */
static int test_dg_predictor_history(void) {
  nh_model *m = nh_quartic_ap_create(NULL, 0);
  ENSURE(m);
  msys u = {m};
  nh_dg_sys sys = {.n = 13, .eval = m_eval, .hess = m_hess, .pijac = m_pijac, .degree = 0, .user = &u};
  double *w = malloc(sizeof(double) * nh_dg_work_size(13)), c[26], xend[13];
  nh_dg_pc pc = {.count = 0, .h = 0.0, .c = c, .xend = xend};
  double x[13], xa[13], xb[13], h = 0.05, dmax = 0.0;
  long ita = 0, itb = 0;
  for (int i = 0; i < 13; i++) x[i] = m->x0[i];
  for (int k = 0; k < 200; k++) {
    nh_dg_newton sa, sb;
    ENSURE(nh_dg_step(&sys, NH_DG_GONZALEZ, x, h, xa, &sa, w, NULL, &pc) == 0);
    ENSURE(nh_dg_step(&sys, NH_DG_GONZALEZ, x, h, xb, &sb, w, NULL, NULL) == 0);
    ita += sa.iters, itb += sb.iters;
    for (int i = 0; i < 13; i++) dmax = fmax(dmax, fabs(xa[i] - xb[i]) / (1.0 + fabs(xb[i])));
    ENSURE(pc.count == (k == 0 ? 1 : 2));
    for (int i = 0; i < 13; i++) x[i] = xa[i];
  }
  printf("  200 steps: iterations %ld with the corrections, %ld without; max |difference| %.1e\n", ita, itb, dmax);
  ENSURE(dmax <= 2.0 * NH_DG_NEWTON_TOL);
  ENSURE(ita < itb);
  nh_dg_newton sa;
  ENSURE(nh_dg_step(&sys, NH_DG_GONZALEZ, x, 0.5 * h, xa, &sa, w, NULL, &pc) == 0);
  ENSURE(pc.count == 1); /* another h: restarted */
  ENSURE(nh_dg_step(&sys, NH_DG_GONZALEZ, m->x0, 0.5 * h, xb, &sa, w, NULL, &pc) == 0);
  ENSURE(pc.count == 1); /* another x: restarted */
  free(w);
  // the same run twice in one simulation, the second after nh_sim_set_state: bitwise equal
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("gonzalez");
  d.h = h;
  nh_sim *sim = nh_sim_create(m, &d, NULL, 0);
  ENSURE(sim);
  double r1[13];
  ENSURE(nh_sim_set_state_x(sim, 0.0, m->x0) == 0 && nh_sim_run(sim, 5.0, 0, NULL, NULL) == 0);
  for (int i = 0; i < 13; i++) r1[i] = nh_sim_x(sim)[i];
  ENSURE(nh_sim_set_state_x(sim, 0.0, m->x0) == 0 && nh_sim_run(sim, 5.0, 0, NULL, NULL) == 0);
  for (int i = 0; i < 13; i++) ENSURE(nh_sim_x(sim)[i] == r1[i]);
  nh_sim_destroy(sim);
  nh_model_destroy(m);
  return 0;
}

/* The extrapolation of the last NH_DG_PC_HIST states (nh_dg_pc.xs) replaces the midpoint
 * predictor once the history is full and close enough: every step still lands on the solution
 * of (14) from the same x to the solver's tolerance, in no more iterations than from the
 * plain midpoint, and with H(x) taken from the previous solve; another h restarts it. */
static int test_dg_predictor_extrapolation(void) {
  nh_model *m = nh_quartic_ap_create(NULL, 0);
  ENSURE(m);
  msys u = {m};
  nh_dg_sys sys = {.n = 13, .eval = m_eval, .hess = m_hess, .pijac = m_pijac, .degree = 0, .user = &u};
  double *w = malloc(sizeof(double) * nh_dg_work_size(13)), c[26], xend[13], xs[NH_DG_PC_HIST * 13];
  nh_dg_pc pc = {.count = 0, .h = 0.0, .c = c, .xend = xend, .xs = xs};
  double x[13], xa[13], xb[13], h = 0.05, dmax = 0.0;
  long ita = 0, itb = 0, used = 0;
  for (int i = 0; i < 13; i++) x[i] = m->x0[i];
  for (int k = 0; k < 400; k++) {
    nh_dg_newton sa, sb;
    int ext = pc.nhist == NH_DG_PC_HIST && pc.extrap_ok;
    ENSURE(nh_dg_step(&sys, NH_DG_GONZALEZ, x, h, xa, &sa, w, NULL, &pc) == 0);
    ENSURE(nh_dg_step(&sys, NH_DG_GONZALEZ, x, h, xb, &sb, w, NULL, NULL) == 0);
    ita += sa.iters, itb += sb.iters, used += ext;
    ENSURE(ext == (pc.count == 0)); /* an extrapolated step leaves no midpoint correction */
    for (int i = 0; i < 13; i++) dmax = fmax(dmax, fabs(xa[i] - xb[i]) / (1.0 + fabs(xb[i])));
    ENSURE(pc.nhist == (k < NH_DG_PC_HIST ? k + 1 : NH_DG_PC_HIST));
    for (int i = 0; i < 13; i++) x[i] = xa[i];
  }
  printf("  400 steps: %ld extrapolated; iterations %ld, %ld from the plain midpoint; max |difference| %.1e\n",
         used, ita, itb, dmax);
  ENSURE(dmax <= 2.0 * NH_DG_NEWTON_TOL);
  ENSURE(used > 300 && ita <= itb);
  nh_dg_newton sa;
  ENSURE(nh_dg_step(&sys, NH_DG_GONZALEZ, x, 0.5 * h, xa, &sa, w, NULL, &pc) == 0);
  ENSURE(pc.nhist == 1 && pc.count == 1); /* another h: restarted */
  free(w);
  nh_model_destroy(m);
  return 0;
}

/* The sparsity patterns of Pi and T a model reports (built-ins by hand, model files from the
 * symbolic derivatives): every entry outside them is exactly 0 at random states and
 * multipliers g, every entry inside is nonzero somewhere; and a step that skips the entries
 * outside is bitwise the dense one. */
static int check_patterns(const nh_model *m) {
  const int n = m->nx;
  ENSURE(m->poisson_pattern && m->poisson_jac_pattern && n <= 13);
  unsigned char seen[2][169] = {{0}};
  double x[13], g[13], P[169], T[169];
  srand(7);
  for (int r = 0; r < 50; r++) {
    for (int i = 0; i < n; i++) x[i] = m->x0[i] + 2.0 * rand() / RAND_MAX - 1.0, g[i] = 2.0 * rand() / RAND_MAX - 1.0;
    ENSURE(m->poisson(x, P, m->user) == 0 && nh_model_poisson_jac(m, x, g, T, NULL) == 0);
    for (int ij = 0; ij < n * n; ij++) {
      ENSURE(m->poisson_pattern[ij] || P[ij] == 0.0);
      ENSURE(m->poisson_jac_pattern[ij] || T[ij] == 0.0);
      seen[0][ij] |= P[ij] != 0.0, seen[1][ij] |= T[ij] != 0.0;
    }
  }
  for (int ij = 0; ij < n * n; ij++) ENSURE(seen[0][ij] == m->poisson_pattern[ij] && seen[1][ij] == m->poisson_jac_pattern[ij]);
  return 0;
}

/* The DG methods call a model's sparse-fill evaluators (codegen: structural zeros of Pi, the
 * Hessian and T left unwritten) on buffers zeroed once: 300 steps of avf, gonzalez and
 * itoh-abe on quartic_ap.nh give bitwise the states of the tape backend's dense evaluators
 * (whose values equal codegen's bitwise, test_codegen_matches_tape) */
static int test_sparse_fill_steps(void) {
  nh_model *m[2] = {NULL, NULL};
  for (int b = 0; b < 2; b++) {
    nh_load_opts o = nh_load_opts_default();
    o.backend = b ? NH_BACKEND_TAPE : NH_BACKEND_CODEGEN;
    char msg[512];
    m[b] = nh_model_load(NHOLO_SOURCE_DIR "/examples/quartic_ap.nh", &o, msg, sizeof msg);
  }
  ENSURE(m[1] && !m[1]->poisson_sparse && !m[1]->hamiltonian_hess_sparse && !m[1]->poisson_jac_sparse);
  if (!m[0]) { /* codegen unavailable: a failure where there is a C compiler */
    nh_model_destroy(m[1]);
    ENSURE(!nh_test_have_cc());
    SKIP("no C compiler ($CC or cc on PATH) for the code generator");
  }
  ENSURE(m[0]->poisson_sparse && m[0]->hamiltonian_hess_sparse && m[0]->poisson_jac_sparse);
  const char *meth[] = {"avf", "gonzalez", "itoh-abe"};
  for (int k = 0; k < 3; k++) {
    double x[2][13];
    for (int b = 0; b < 2; b++) {
      nh_sim_def d = nh_sim_def_default();
      d.method = nh_method_find(meth[k]);
      d.h = 0.05;
      nh_sim *s = nh_sim_create(m[b], &d, NULL, 0);
      ENSURE(s && nh_sim_run(s, 15.0, 0, NULL, NULL) == NH_OK);
      memcpy(x[b], nh_sim_x(s), sizeof x[b]);
      nh_sim_destroy(s);
    }
    ENSURE(memcmp(x[0], x[1], sizeof x[0]) == 0);
  }
  nh_model_destroy(m[0]);
  nh_model_destroy(m[1]);
  return 0;
}

static int test_poisson_patterns(void) {
  nh_model *qa = nh_quartic_ap_create(NULL, 0);
  nh_sleigh_dg_params sp = nh_sleigh_dg_params_default();
  nh_model *sl = nh_sleigh_dg_create(&sp, NULL, 0);
  ENSURE(qa && sl);
  ENSURE(check_patterns(qa) == 0 && check_patterns(sl) == 0);
  int no_codegen = 0;
  for (int b = 0; b < 2; b++) {
    nh_load_opts o = nh_load_opts_default();
    o.backend = b ? NH_BACKEND_TAPE : NH_BACKEND_CODEGEN;
    char msg[512];
    const char *files[] = {NHOLO_SOURCE_DIR "/examples/quartic_ap.nh", NHOLO_SOURCE_DIR "/examples/sleigh_dg.nh"};
    for (int f = 0; f < 2; f++) {
      nh_model *mf = nh_model_load(files[f], &o, msg, sizeof msg);
      if (!mf && b == 0) { /* codegen unavailable: a failure where there is a C compiler */
        ENSURE(!nh_test_have_cc());
        no_codegen = 1;
        continue;
      }
      ENSURE(mf);
      ENSURE(check_patterns(mf) == 0);
      nh_model_destroy(mf);
    }
  }
  // 200 steps of each method with and without the patterns: bitwise the same states
  msys u = {qa};
  nh_dg_sys dense = {.n = 13, .eval = m_eval, .hess = m_hess, .pijac = m_pijac, .degree = 0, .user = &u};
  nh_dg_sys sparse = dense;
  int idx[5 * 169 + 14];
  ENSURE(nh_dg_pattern_size(13) <= sizeof idx / sizeof idx[0]);
  nh_dg_sys_patterns(&sparse, qa->poisson_pattern, qa->poisson_jac_pattern, idx);
  ENSURE(sparse.pi_row[13] == 24 && sparse.t_nnz == 39);
  double *w = malloc(sizeof(double) * nh_dg_work_size(13)), xa[13], xb[13], ya[13], yb[13];
  ENSURE(w);
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 13; i++) xa[i] = xb[i] = qa->x0[i];
    for (int s = 0; s < 200; s++) {
      nh_dg_newton sa, sb;
      ENSURE(nh_dg_step(&sparse, (nh_dg_kind)k, xa, 0.05, ya, &sa, w, NULL, NULL) == 0);
      ENSURE(nh_dg_step(&dense, (nh_dg_kind)k, xb, 0.05, yb, &sb, w, NULL, NULL) == 0);
      ENSURE(sa.iters == sb.iters);
      for (int i = 0; i < 13; i++) ENSURE(ya[i] == yb[i]);
      for (int i = 0; i < 13; i++) xa[i] = ya[i], xb[i] = yb[i];
    }
  }
  free(w);
  nh_model_destroy(qa);
  nh_model_destroy(sl);
  if (no_codegen) SKIP("no C compiler for the code generator: its patterns were not checked");
  return 0;
}

/* energy drift over 10^6 Gonzalez steps on the quartic system (h = 0.01). The method conserves
 * H exactly up to the Newton residual r (|dH| <= |G| r per step, NH_DG_NEWTON_TOL = 1e-14
 * relative on the update) and round-off; the bound 1e-11 is the random walk of both. */
static int test_quartic_drift(void) {
  nh_model *m = nh_quartic_ap_create(NULL, 0);
  ENSURE(m);
  run_out o;
  ENSURE(run_model(m, "gonzalez", 0.01, 1e4, NULL, &o) == 0);
  double drift = fabs(o.st.energy - o.st.energy_initial) / o.st.energy_initial;
  printf("  %ld steps: final relative drift %.2e, max %.2e, max residual %.2e\n", o.st.steps, drift,
         o.st.max_energy_rel_error, o.st.solver_max_residual);
  ENSURE(o.st.steps == 1000000);
  ENSURE(o.st.max_energy_rel_error < 1e-11);
  nh_model_destroy(m);
  return 0;
}

/* GONZALEZ-R keeps A v = 0 to round-off; GONZALEZ-F violates it at O(h^2) (gearbox, rotating) */
static int test_gearbox_constraints(void) {
  nh_model *m = nh_gearbox_create(1, NULL, 0);
  ENSURE(m);
  run_out o, o2;
  /* spec 002 A.5 [D]: GONZALEZ-R, h = 0.1, t = 10 */
  static const double ref[6] = {0.4388158452, 0.5371055441, 20.0402525282, -0.1068375315, 0.1150488383, 1.9744844855};
  const char *rm[2] = {"gonzalez-r", "gonzalez-r-fd"};
  for (int k = 0; k < 2; k++) {
    ENSURE(run_model(m, rm[k], 0.1, 10.0, NULL, &o) == 0);
    printf("  %s: energy %.2e, |A v| %.2e\n", rm[k], o.st.max_energy_rel_error, o.st.max_constraint_residual);
    ENSURE(o.st.max_energy_rel_error < 1e-13);
    ENSURE(o.st.max_constraint_residual < 1e-15);
    if (k == 0)
      for (int i = 0; i < 6; i++) ENSURE_NEAR(o.x[i], ref[i], 1e-9);
  }
  ENSURE(run_model(m, "gonzalez-f", 0.1, 10.0, NULL, &o) == 0);
  ENSURE(run_model(m, "gonzalez-f", 0.05, 10.0, NULL, &o2) == 0);
  double ratio = o.st.max_constraint_residual / o2.st.max_constraint_residual;
  printf("  gonzalez-f: |A v| %.3e (h = 0.1), %.3e (h = 0.05), ratio %.2f; energy %.2e\n",
         o.st.max_constraint_residual, o2.st.max_constraint_residual, ratio, o.st.max_energy_rel_error);
  ENSURE(o.st.max_constraint_residual > 1e-3);
  ENSURE(ratio > 3.5 && ratio < 4.5);
  ENSURE(o.st.max_energy_rel_error < 1e-13);
  nh_model_destroy(m);
  return 0;
}

/* observed orders on the quartic system at t = 10 against DOPRI5 at tolerance 1e-13, within
 * DG_ORDER_TOL of the stated ones (measured: within 0.02; itoh-abe 0.98) */
#define DG_ORDER_TOL 0.1
static int test_orders(void) {
  nh_model *mq = nh_quartic_create(NULL, 0), *ma = nh_quartic_ap_create(NULL, 0);
  ENSURE(mq && ma);
  run_out ref, o;
  ENSURE(run_model(mq, "dopri5", 0.01, 10.0, NULL, &ref) == 0);
  const char *meth[8] = {"avf", "gonzalez", "itoh-abe", "gonzalez-r", "gonzalez-r-fd", "gonzalez-f", "si-dla", "i-dla"};
  const double want[8] = {2, 2, 1, 2, 2, 2, 2, 2};
  for (int k = 0; k < 8; k++) {
    nh_model *m = k < 3 ? ma : mq;
    double e[3];
    for (int j = 0; j < 3; j++) {
      ENSURE(run_model(m, meth[k], 0.1 / (1 << j), 10.0, NULL, &o) == 0);
      e[j] = dist(7, o.x, ref.x); /* positions */
    }
    double p1 = log2(e[0] / e[1]), p2 = log2(e[1] / e[2]);
    printf("  %-12s errors %.3e %.3e %.3e  orders %.2f %.2f\n", meth[k], e[0], e[1], e[2], p1, p2);
    ENSURE(fabs(p2 - want[k]) <= DG_ORDER_TOL);
  }
  nh_model_destroy(mq);
  nh_model_destroy(ma);
  return 0;
}

/* ---- the sleigh: Proposition 4.1 and Fig. 3 ------------------------------------------- */

static int sleigh_step(nh_model *m, double h, const double *x0, double *x1) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("gonzalez");
  d.h = h;
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  if (!s) return -1;
  int rc = nh_sim_set_state_x(s, 0.0, x0);
  if (!rc) rc = nh_sim_step(s, h, NULL);
  for (int i = 0; i < 5; i++) x1[i] = nh_sim_x(s)[i];
  nh_sim_destroy(s);
  return rc;
}

static int test_sleigh_prop41(void) {
  nh_sleigh_dg_params p = nh_sleigh_dg_params_default();
  nh_model *m = nh_sleigh_dg_create(&p, NULL, 0);
  ENSURE(m);
  const double h = 0.5, C = p.a * sqrt(p.m) / (p.J + p.m * p.a * p.a);
  const double r2s[4] = {-0.6, -0.2, 0.3, 0.6};
  for (int k = 0; k < 4; k++) {
    double x[5] = {-5, 0, 0.1, 0.0, r2s[k]}, y[5], yp[5], ym[5];
    // {rho1 = 0} is a manifold of fixed points of the momentum map
    ENSURE(sleigh_step(m, h, x, y) == 0);
    ENSURE(y[3] == 0.0 && fabs(y[4] - r2s[k]) < 1e-15);
    // linearisation: d(rho1', rho2')/d(rho1, rho2) = diag(lambda1, 1)
    double J[2][2], dlt = 1e-6;
    for (int j = 0; j < 2; j++) {
      double xp[5] = {-5, 0, 0.1, 0.0, r2s[k]}, xm[5] = {-5, 0, 0.1, 0.0, r2s[k]};
      xp[3 + j] += dlt, xm[3 + j] -= dlt;
      ENSURE(sleigh_step(m, h, xp, yp) == 0 && sleigh_step(m, h, xm, ym) == 0);
      for (int i = 0; i < 2; i++) J[i][j] = (yp[3 + i] - ym[3 + i]) / (2 * dlt);
    }
    double lam1 = (2 - h * C * r2s[k]) / (2 + h * C * r2s[k]);
    printf("  rho2 = %+.1f: lambda1 = %.7f (Prop. 4.1: %.7f), lambda2 = %.7f\n", r2s[k], J[0][0], lam1, J[1][1]);
    ENSURE_NEAR(J[0][0], lam1, 1e-8);
    ENSURE_NEAR(J[1][1], 1.0, 1e-8);
    ENSURE(fabs(J[0][1]) < 1e-8 && fabs(J[1][0]) < 1e-8);
    ENSURE(r2s[k] < 0 ? J[0][0] > 1.0 : J[0][0] < 1.0); /* unstable for rho2 < 0, stable for rho2 > 0 */
  }
  // Fig. 3: from near the unstable equilibrium to the stable one, turning by +-3 pi
  for (int sgn = -1; sgn <= 1; sgn += 2) {
    double x0[5] = {-5, 0, 0.1, sgn * 0.001, -0.6};
    run_out o;
    ENSURE(run_model(m, "gonzalez", h, 400.0, x0, &o) == 0);
    double R = sqrt(0.001 * 0.001 + 0.36);
    printf("  rho1(0) = %+.3f: rho(400) = (%.3e, %.9f), turn %.6f, energy %.2e\n", sgn * 0.001, o.x[3], o.x[4],
           o.x[2] - 0.1, o.st.max_energy_rel_error);
    ENSURE(fabs(o.x[3]) < 1e-8);
    ENSURE_NEAR(o.x[4], R, 1e-12);
    ENSURE_NEAR(o.x[2] - 0.1, sgn * PI / (C * sqrt(p.J + p.m * p.a * p.a)), 0.01);
    ENSURE(o.st.max_energy_rel_error < 1e-14);
  }
  // GONZALEZ-R on the configuration form reproduces the reduced scheme (QR frame: constant gD)
  nh_model *mq = nh_sleigh_dg_q_create(&p, NULL, 0);
  run_out a, b;
  ENSURE(run_model(mq, "gonzalez-r", h, 200.0, NULL, &a) == 0);
  ENSURE(run_model(m, "gonzalez", h, 200.0, NULL, &b) == 0);
  for (int i = 0; i < 3; i++) ENSURE_NEAR(a.x[i], b.x[i], 1e-9);
  ENSURE(a.st.max_constraint_residual < 1e-15);
  nh_model_destroy(mq);
  nh_model_destroy(m);
  return 0;
}

/* Suslov: the midpoint scheme converges to the equilibrium -lambda (C2, -C1) on the energy
 * ellipse, lambda = sqrt(E / H(C2, -C1)) */
static int test_suslov(void) {
  nh_suslov_params p = nh_suslov_params_default();
  nh_model *m = nh_suslov_create(&p, NULL, 0);
  ENSURE(m);
  run_out o;
  ENSURE(run_model(m, "gonzalez", 0.1, 300.0, NULL, &o) == 0);
  double C1 = p.I13 / p.I11, C2 = p.I23 / p.I22;
  double E = 0.5 * (p.rho1 * p.rho1 / p.I11 + p.rho2 * p.rho2 / p.I22);
  double lam = sqrt(E / (0.5 * (C2 * C2 / p.I11 + C1 * C1 / p.I22)));
  printf("  rho(300) = (%.12f, %.12f), equilibrium (%.12f, %.12f), energy %.2e\n", o.x[0], o.x[1], -lam * C2,
         lam * C1, o.st.max_energy_rel_error);
  ENSURE_NEAR(o.x[0], -lam * C2, 1e-10);
  ENSURE_NEAR(o.x[1], lam * C1, 1e-10);
  ENSURE(o.st.max_energy_rel_error < 5e-14);
  nh_model_destroy(m);
  return 0;
}

/* ---- time symmetry --------------------------------------------------------------------- */

static int back_and_forth(nh_model *m, const char *name, double h, double *err) {
  const nh_method *meth = nh_method_find(name);
  size_t nw = meth->work_size(m), nd = nh_dyn_work_size(m);
  double *work = calloc(nw + nd, sizeof(double));
  nh_dyn d;
  nh_dyn_init(&d, m, work + nw);
  nh_stepper st = {.model = m, .method = meth, .nx = m->nx, .rtol = 1e-10, .atol = 1e-12, .work = work, .dyn = &d,
                   .opts = nh_method_opts_default(), .restart = 1};
  double x1[16], x2[16];
  int rc = meth->step(&st, 0.0, m->x0, h, x1, NULL);
  if (!rc) rc = meth->step(&st, h, x1, -h, x2, NULL);
  *err = rc ? 1.0 : dist(m->nx, x2, m->x0);
  free(work);
  return rc;
}

static int test_symmetry(void) {
  nh_model *ma = nh_quartic_ap_create(NULL, 0), *mq = nh_quartic_create(NULL, 0);
  const char *meth[5] = {"avf", "gonzalez", "itoh-abe", "gonzalez-r", "gonzalez-f"};
  for (int k = 0; k < 5; k++) {
    double e;
    int rc = back_and_forth(k < 3 ? ma : mq, meth[k], 0.1, &e);
    printf("  %-12s |step(step(x, h), -h) - x| = %.2e (rc %d)\n", meth[k], e, rc);
    ENSURE(rc == 0);
    if (k == 2) ENSURE(e > 1e-4);
    else ENSURE(e < 1e-13);
  }
  nh_model_destroy(ma);
  nh_model_destroy(mq);
  return 0;
}

/* ---- SI-DLA's energy error is a random walk with variance ~ 1e-4 h^4 t ----------------- */

static int test_dla_variance(void) {
  double slope, icpt, gmax;
  ENSURE(quartic_variance("si-dla", 0.1, 2000.0, 100, 10, &slope, &icpt, &gmax) == 0);
  printf("  SI-DLA: var(H - H0)/h^4 = %.3e t + %.3f (paper: 1e-4 t); |A v| <= %.1e\n", slope, icpt, gmax);
  ENSURE(slope > 0.5e-4 && slope < 2e-4);
  ENSURE(gmax < 1e-13);
  return 0;
}

/* ---- the almost-Poisson form through the C API ----------------------------------------- */

/* the free rigid body: x' = x  x (I^-1 x) = Pi(x) grad H, Pi(x) = hat(x), H = sum x_i^2/(2 I_i);
 * no Hessian or Pi-Jacobian given (difference fallbacks) */
static const double rb_I[3] = {1.0, 2.0, 3.5};
static int rb_H(const double *x, double *H, double *dH, void *u) {
  (void)u;
  if (H) *H = 0.5 * (x[0] * x[0] / rb_I[0] + x[1] * x[1] / rb_I[1] + x[2] * x[2] / rb_I[2]);
  if (dH)
    for (int i = 0; i < 3; i++) dH[i] = x[i] / rb_I[i];
  return 0;
}
static int rb_Pi(const double *x, double *P, void *u) {
  (void)u;
  P[0] = 0, P[1] = -x[2], P[2] = x[1];
  P[3] = x[2], P[4] = 0, P[5] = -x[0];
  P[6] = -x[1], P[7] = x[0], P[8] = 0;
  return 0;
}
static int rb_rhs(double t, const double *x, double *f, void *u) {
  (void)t, (void)u, (void)x;
  f[0] = 0;
  return 0;
}

static int test_poisson_api(void) {
  const double x0[3] = {0.3, 1.0, -0.4};
  nh_model_def d = nh_model_def_default();
  d.name = "rigid-body";
  d.form = NH_FORM_ODE;
  d.nx = 3;
  d.x0 = x0;
  d.hamiltonian = rb_H;
  d.hamiltonian_degree = 2;
  char msg[256];
  // hamiltonian without poisson, or with rhs, is refused with a reason
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL && strstr(msg, "poisson"));
  d.poisson = rb_Pi;
  d.rhs = rb_rhs;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL && strstr(msg, "rhs"));
  d.rhs = NULL;
  // a sparse-fill evaluator without its dense one is refused; beside it, it is kept
  d.poisson_sparse = rb_Pi;
  d.poisson = NULL;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL && strstr(msg, "poisson_sparse is given without poisson"));
  d.poisson = rb_Pi;
  nh_model *m = nh_model_create(&d, msg, sizeof msg);
  ENSURE(m && m->poisson_sparse == rb_Pi && !m->hamiltonian_hess_sparse && !m->poisson_jac_sparse);
  ENSURE(nh_method_supports(nh_method_find("gonzalez"), m) == NH_OK);
  ENSURE(nh_method_supports(nh_method_find("gonzalez-r"), m) == NH_ERR_UNSUPPORTED);
  // energy is H; rk4 runs F = Pi grad H; AVF (here the midpoint rule: quadratic H, linear Pi)
  // keeps H and the Casimir |x|^2, Gonzalez keeps H
  run_out o;
  double C0 = x0[0] * x0[0] + x0[1] * x0[1] + x0[2] * x0[2];
  ENSURE(run_model(m, "avf", 0.1, 100.0, NULL, &o) == 0);
  ENSURE(o.st.max_energy_rel_error < 1e-14);
  ENSURE_REL(o.x[0] * o.x[0] + o.x[1] * o.x[1] + o.x[2] * o.x[2], C0, 1e-14);
  run_out g, r;
  ENSURE(run_model(m, "gonzalez", 0.01, 10.0, NULL, &g) == 0);
  ENSURE(run_model(m, "rk4", 0.01, 10.0, NULL, &r) == 0);
  ENSURE(g.st.max_energy_rel_error < 1e-14 && r.st.max_energy_rel_error > 1e-13);
  ENSURE(dist(3, g.x, r.x) < 1e-3); /* same flow, second order apart */
  nh_model_destroy(m);
  return 0;
}

/* the reduced quartic field Pi grad H equals the Lagrange-d'Alembert field (spec 002 T7) */
static int test_quartic_forms_agree(void) {
  nh_model *mq = nh_quartic_create(NULL, 0), *ma = nh_quartic_ap_create(NULL, 0);
  ENSURE(mq && ma);
  run_out a, b;
  ENSURE(run_model(mq, "dopri5", 0.01, 10.0, NULL, &a) == 0);
  ENSURE(run_model(ma, "dopri5", 0.01, 10.0, NULL, &b) == 0);
  printf("  |q_mechanical(10) - q_reduced(10)| = %.2e\n", dist(7, a.x, b.x));
  ENSURE(dist(7, a.x, b.x) < 1e-9);
  ENSURE_REL(a.st.energy_initial, 3.06, 1e-14);
  ENSURE_REL(b.st.energy_initial, 3.06, 1e-14);
  nh_model_destroy(mq);
  nh_model_destroy(ma);
  return 0;
}

/* the gearbox: the reduced form integrated with GONZALEZ differs from GONZALEZ-R (QR frame) at
 * O(h^2), not exactly (the midpoint discrete gradient depends on the coordinates, spec T12),
 * and both converge to the same flow; the reduced model's derivatives are differences */
static int test_gearbox_frames(void) {
  nh_model *mr = nh_gearbox_ap_create(1, NULL, 0), *mq = nh_gearbox_create(1, NULL, 0);
  ENSURE(mr && mq);
  double diff[2];
  for (int j = 0; j < 2; j++) {
    run_out a, b;
    double h = 0.1 / (1 << j);
    ENSURE(run_model(mr, "gonzalez", h, 10.0, NULL, &a) == 0);
    ENSURE(run_model(mq, "gonzalez-r", h, 10.0, NULL, &b) == 0);
    ENSURE(a.st.max_energy_rel_error < 1e-13);
    diff[j] = dist(3, a.x, b.x);
  }
  printf("  |q_reduced - q_gonzalez-r| at t = 10: %.3e (h = 0.1), %.3e (h = 0.05), ratio %.2f\n", diff[0], diff[1],
         diff[0] / diff[1]);
  ENSURE(diff[1] > 1e-6);
  ENSURE(diff[0] / diff[1] > 3.5 && diff[0] / diff[1] < 4.5);
  nh_model_destroy(mr);
  nh_model_destroy(mq);
  return 0;
}

/* every method in the table either refuses an almost-Poisson model or runs it (a method sized
 * or written for the mechanical form must say NH_ERR_UNSUPPORTED, not crash) */
static int test_all_methods_on_poisson(void) {
  nh_model *m = nh_quartic_ap_create(NULL, 0);
  ENSURE(m);
  int ran = 0;
  for (int i = 0; i < nh_method_count(); i++) {
    const nh_method *meth = nh_method_at(i);
    if (nh_method_supports(meth, m) != NH_OK) continue;
    run_out o;
    int rc = run_model(m, nh_method_name(meth), 0.05, 1.0, NULL, &o);
    if (rc != 0) printf("  %s: %s\n", nh_method_name(meth), nh_status_name(rc));
    ENSURE(rc == 0);
    ran++;
  }
  ENSURE(ran >= 5); /* rk4, dopri5, avf, gonzalez, itoh-abe at least */
  nh_model_destroy(m);
  return 0;
}

/* Newton returns a status, not a "converged" NaN, when an update is NaN (a residual that
 * evaluates to NaN with a finite Jacobian: the first solve gives a NaN update) */
static int nan_residual(const double *z, double *R, double *J, void *user) {
  (void)user;
  R[0] = z[0] - 1.0 + NAN, R[1] = z[1] + 2.0;
  if (J) J[0] = 1.0, J[1] = 0.0, J[2] = 0.0, J[3] = 1.0;
  return 0;
}

static int test_newton_nan(void) {
  double z[2] = {0.0, 0.0}, work[64];
  ENSURE(nh_newton_work_size(2) <= 64);
  nh_dg_newton st = {0};
  ENSURE(nh_newton(2, nan_residual, NULL, 1, 0.0, z, &st, work, NULL) == NH_ERR_NONFINITE);
  return 0;
}

/* Newton gives up on a diverging iteration (NH_ERR_NO_CONVERGENCE: the caller takes a shorter
 * step) instead of running on to overflow: the chord iteration on z^3 = 1 from z = 0.1, whose
 * difference Jacobian 0.03 throws the first update to 33 and the next ones past 1e6, 1e19,
 * ... (before the guard: inf - inf, NH_ERR_NONFINITE after 6 updates) */
static int cube_residual(const double *z, double *R, double *J, void *user) {
  (void)user;
  R[0] = z[0] * z[0] * z[0] - 1.0;
  if (J) J[0] = 3.0 * z[0] * z[0];
  return 0;
}

static int test_newton_diverges(void) {
  double z[1] = {0.1}, work[64];
  ENSURE(nh_newton_work_size(1) <= 64);
  nh_dg_newton st = {0};
  ENSURE(nh_newton(1, cube_residual, NULL, 0, 0.0, z, &st, work, NULL) == NH_ERR_NO_CONVERGENCE);
  ENSURE(isfinite(z[0]) && st.iters <= 3);
  // full Newton with the exact Jacobian converges from there (its factors change every update)
  z[0] = 0.1;
  ENSURE(nh_newton(1, cube_residual, NULL, 1, 0.0, z, &st, work, NULL) == 0);
  ENSURE_NEAR(z[0], 1.0, 1e-14);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_qrdiff);
  RUN_TEST(test_qrdiff_rank_change);
  RUN_TEST(test_dg_identities);
  RUN_TEST(test_dg_jacobians);
  RUN_TEST(test_poisson_api);
  RUN_TEST(test_all_methods_on_poisson);
  RUN_TEST(test_quartic_forms_agree);
  RUN_TEST(test_quartic_energy);
  RUN_TEST(test_gearbox_constraints);
  RUN_TEST(test_gearbox_frames);
  RUN_TEST(test_orders);
  RUN_TEST(test_sleigh_prop41);
  RUN_TEST(test_suslov);
  RUN_TEST(test_symmetry);
  RUN_TEST(test_dg_predictor_history);
  RUN_TEST(test_dg_predictor_extrapolation);
  RUN_TEST(test_poisson_patterns);
  RUN_TEST(test_sparse_fill_steps);
  RUN_TEST(test_newton_nan);
  RUN_TEST(test_newton_diverges);
  RUN_TEST(test_quartic_drift);
  RUN_TEST(test_dla_variance);
  return TEST_SUMMARY();
}
