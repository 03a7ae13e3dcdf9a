/* test_impact_guards.c - the guard paths of src/impact (issue 27 point 8): what every map does
 * with bad arguments, failing evaluators and degenerate or refused inputs, and the fixed-size
 * copies of nh_impact_map against the identities of the map.
 *
 *   nh_impact_map, nh_project_velocity, nh_model_impact     (impact.c)
 *   nh_model_impact_ap, nh_model_impact_ap_hold             (impact.c): the almost-Poisson
 *     law's own check, H quadratic along d, both halves (the rate and the energy identity)
 *
 * Every refusal is checked for its status and for the state it leaves (v_out = v, x_out = x,
 * a zeroed info). The simultaneous-impact guards: tests/test_simul_guards.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "impact/hold.h"
#include "la/la.h"
#include "nholo/nholo.h"

/* the identities of a map are checked to this many ulps of the data's scale */
#define IDENT_TOL 1e-13
/* an info filled with a sentinel: a refusal must zero it */
#define SENTINEL 42.0

static const nh_impact_law ELASTIC = {NH_IMPACT_ELASTIC, 1.0};

/* ---- nh_impact_map: the sizes of the fixed copies, and the identities ------------------- */

/* a random SPD M (diagonally dominant), A (nc x nq) of full rank, dg, and an approaching v */
static void make_problem(unsigned long long *s, int nq, int nc, double *M, double *A, double *dg,
                         double *v) {
  for (int i = 0; i < nq; i++)
    for (int j = 0; j <= i; j++) {
      double r = i == j ? 2.0 + nh_test_rand(s, 0, 1) : 0.3 * nh_test_rand(s, -1, 1);
      M[i * nq + j] = M[j * nq + i] = r;
    }
  for (int k = 0; k < nc; k++)
    for (int j = 0; j < nq; j++) A[k * nq + j] = (j == k ? 1.0 : 0.0) + 0.2 * nh_test_rand(s, -1, 1);
  for (int j = 0; j < nq; j++) dg[j] = nh_test_rand(s, -1, 1), v[j] = nh_test_rand(s, -1, 1);
}

/* For every size nh_impact_map has a fixed copy of (nq, nc) = (2, 0) ... (4, 2), and for the
 * generic path: A v+ = 0, dg v+ = -e dg v (the law), M (v+ - v) = A^T lambda - alpha dg^T (the
 * jump conditions (15), dH = -dg), and T+ - T- = -(1 - e^2) sig^2 / (2 D_e). */
static int test_map_sizes(void) {
  static const int sizes[][2] = {{2, 0}, {2, 1}, {3, 0}, {3, 1}, {3, 2}, {4, 1}, {4, 2}, {1, 0}, {5, 2}, {4, 3}};
  unsigned long long s = 2701;
  double work[256];
  for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
    const int nq = sizes[c][0], nc = sizes[c][1];
    ENSURE(nh_impact_work_size(nq, nc) <= 256);
    for (int rep = 0; rep < 20; rep++) {
      double M[25], A[15], dg[5], v[5], vp[5], lam[3], r[5];
      make_problem(&s, nq, nc, M, A, dg, v);
      double w[5];
      ENSURE(nh_project_velocity(nq, nc, M, nc ? A : NULL, v, w, work) == NH_OK);
      if (nh_la_dot(nq, dg, w) > 0.0) nh_la_scale(nq, -1.0, v), nh_la_scale(nq, -1.0, w);
      const double e = rep % 2 ? 0.5 : 1.0;
      const nh_impact_law law = {rep % 2 ? NH_IMPACT_RESTITUTION : NH_IMPACT_ELASTIC, e};
      nh_impact_info info;
      int st = nh_impact_map(nq, nc, M, nc ? A : NULL, dg, v, law, NULL, vp, lam, &info, work);
      ENSURE(st == NH_OK && info.projected == (nc > 0));
      const double scale = nh_la_norm_inf(nq, v) * (1.0 + nh_la_mat_norm_inf(nq, nq, M));
      for (int k = 0; k < nc; k++) ENSURE(fabs(nh_la_dot(nq, A + k * nq, vp)) <= IDENT_TOL * scale);
      ENSURE_NEAR(nh_la_dot(nq, dg, vp), -e * nh_la_dot(nq, dg, w), IDENT_TOL * scale);
      for (int i = 0; i < nq; i++) {
        r[i] = info.alpha * dg[i];
        for (int j = 0; j < nq; j++) r[i] += M[i * nq + j] * (vp[j] - v[j]);
        for (int k = 0; k < nc; k++) r[i] -= A[k * nq + i] * lam[k];
      }
      ENSURE(nh_la_norm_inf(nq, r) <= IDENT_TOL * scale * scale);
      double Tm = 0.0, Tp = 0.0;
      for (int i = 0; i < nq; i++)
        for (int j = 0; j < nq; j++) Tm += 0.5 * w[i] * M[i * nq + j] * w[j], Tp += 0.5 * vp[i] * M[i * nq + j] * vp[j];
      ENSURE_NEAR(Tp - Tm, -(1.0 - e * e) * info.sig * info.sig / (2.0 * info.D), IDENT_TOL * scale * scale);
    }
  }
  return 0;
}

/* Every argument and tolerance refused with NH_ERR_ARG: the info zeroed; from the law on
 * (after the size checks) v_out = v as well. */
static int test_map_refusals(void) {
  double M[4] = {2, 0.5, 0.5, 1}, A[2] = {1, 1}, dg[2] = {-1, 0.5}, v[2] = {1, -0.3}, vp[2], work[64];
  nh_impact_info info;
#define REFUSED(call)                                                                      \
  do {                                                                                     \
    vp[0] = vp[1] = SENTINEL, info.sig = info.D = SENTINEL;                                \
    ENSURE((call) == NH_ERR_ARG && info.sig == 0.0 && info.D == 0.0);                      \
  } while (0)
  /* sizes and pointers: nothing written to v_out */
  REFUSED(nh_impact_map(0, 0, M, NULL, dg, v, ELASTIC, NULL, vp, NULL, &info, work));
  REFUSED(nh_impact_map(2, -1, M, NULL, dg, v, ELASTIC, NULL, vp, NULL, &info, work));
  REFUSED(nh_impact_map(2, 1, NULL, A, dg, v, ELASTIC, NULL, vp, NULL, &info, work));
  REFUSED(nh_impact_map(2, 1, M, NULL, dg, v, ELASTIC, NULL, vp, NULL, &info, work));
  REFUSED(nh_impact_map(2, 1, M, A, NULL, v, ELASTIC, NULL, vp, NULL, &info, work));
  REFUSED(nh_impact_map(2, 1, M, A, dg, NULL, ELASTIC, NULL, vp, NULL, &info, work));
  REFUSED(nh_impact_map(2, 1, M, A, dg, v, ELASTIC, NULL, vp, NULL, &info, NULL));
  ENSURE(vp[0] == SENTINEL && vp[1] == SENTINEL);
  info.sig = SENTINEL;
  ENSURE(nh_impact_map(2, 1, M, A, dg, v, ELASTIC, NULL, NULL, NULL, &info, work) == NH_ERR_ARG && info.sig == 0.0);
  /* each tolerance negative or not finite; a non-finite gradient: v_out = v */
  for (int f = 0; f < 8; f++) {
    nh_impact_tol t = nh_impact_tol_default();
    double dgx[2] = {dg[0], dg[1]};
    switch (f) {
    case 0: t.sig_tol = -1e-3; break;
    case 1: t.sig_tol = INFINITY; break;
    case 2: t.degenerate_tol = INFINITY; break;
    case 3: t.constraint_tol = -1.0; break;
    case 4: t.constraint_tol = NAN; break;
    case 5: t.degenerate_tol = -1e-12; break;
    case 6: t.constraint_tol = INFINITY; break;
    default: dgx[1] = INFINITY;
    }
    REFUSED(nh_impact_map(2, 1, M, A, dgx, v, ELASTIC, &t, vp, NULL, &info, work));
    ENSURE(vp[0] == v[0] && vp[1] == v[1]);
  }
  /* the work size clamps negative sizes to 0 */
  ENSURE(nh_impact_work_size(-3, -1) == 0);
  ENSURE(nh_impact_work_size(3, -1) == nh_impact_work_size(3, 0) && nh_impact_work_size(-1, 2) == nh_impact_work_size(0, 2));
  /* nh_project_velocity: each bad argument; a mass matrix that is not SPD leaves v */
  ENSURE(nh_project_velocity(0, 0, M, NULL, v, vp, work) == NH_ERR_ARG);
  ENSURE(nh_project_velocity(2, -1, M, NULL, v, vp, work) == NH_ERR_ARG);
  ENSURE(nh_project_velocity(2, 1, NULL, A, v, vp, work) == NH_ERR_ARG);
  ENSURE(nh_project_velocity(2, 1, M, NULL, v, vp, work) == NH_ERR_ARG);
  ENSURE(nh_project_velocity(2, 1, M, A, NULL, vp, work) == NH_ERR_ARG);
  ENSURE(nh_project_velocity(2, 1, M, A, v, NULL, work) == NH_ERR_ARG);
  ENSURE(nh_project_velocity(2, 1, M, A, v, vp, NULL) == NH_ERR_ARG);
  double Mb[4] = {1, 2, 2, 1};
  vp[0] = vp[1] = SENTINEL;
  ENSURE(nh_project_velocity(2, 1, Mb, A, v, vp, work) == NH_ERR_NOT_SPD && vp[0] == v[0] && vp[1] == v[1]);
  /* in place, and the result is in ker A and M-orthogonal to the removed part */
  double x[2] = {v[0], v[1]};
  ENSURE(nh_project_velocity(2, 1, M, A, x, x, work) == NH_OK);
  ENSURE(fabs(x[0] + x[1]) <= IDENT_TOL);
  const double d0 = v[0] - x[0], d1 = v[1] - x[1];
  ENSURE(fabs(x[0] * (M[0] * d0 + M[1] * d1) + x[1] * (M[2] * d0 + M[3] * d1)) <= IDENT_TOL);
#undef REFUSED
  return 0;
}

/* ---- nh_model_impact on a model with failing evaluators ----------------------------------- */

/* a point in R^3 rolling with x' + y' = 0 over a floor z >= 0; the evaluators fail on demand */
typedef struct {
  int fail_mass, fail_constraint, fail_gap;
} mech_user;

static int mu_mass(const double *q, double *M, void *u) {
  (void)q;
  if (((mech_user *)u)->fail_mass) return -1;
  static const double M3[9] = {2, 0, 0, 0, 1, 0, 0, 0, 1};
  memcpy(M, M3, sizeof M3);
  return 0;
}
static int mass1(const double *q, double *M, void *u) {
  (void)q, (void)u;
  M[0] = 1.0;
  return 0;
}
static int mu_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  (void)q, (void)v;
  if (((mech_user *)u)->fail_constraint) return -1;
  if (A) A[0] = 1, A[1] = 1, A[2] = 0;
  if (Adv) Adv[0] = 0;
  return 0;
}
static int mu_gap(const double *q, double *g, double *dg, void *u) {
  if (((mech_user *)u)->fail_gap) return -1;
  if (g) g[0] = q[2] + 0.1 * q[0];
  if (dg) dg[0] = 0.1, dg[1] = 0, dg[2] = 1;
  return 0;
}

static int test_model_impact_guards(void) {
  static const char *const names[3] = {"x", "y", "z"};
  static const nh_impact_law law = {NH_IMPACT_RESTITUTION, 0.5};
  mech_user u = {0, 0, 0};
  nh_model_def d = nh_model_def_default();
  d.name = "roller", d.nq = 3, d.nc = 1, d.ngap = 1, d.coord_names = names;
  d.mass = mu_mass, d.constraint = mu_constraint, d.gap = mu_gap, d.impact = &law, d.user = &u;
  char msg[256];
  nh_model *m = nh_model_create(&d, msg, sizeof msg);
  ENSURE(m);
  ENSURE(nh_model_impact_work_size(NULL) == 0);
  const size_t ws = nh_model_impact_work_size(m);
  ENSURE(ws == 9 + 3 + 3 + nh_impact_work_size(3, 1));
  double *work = malloc(sizeof(double) * ws), q[3] = {0.2, -0.1, 0.0}, v[3] = {0.4, -0.4, -1.0}, vp[3], ref[3];
  nh_impact_info info;
  ENSURE(work);
  /* the model's law (restitution 0.5) */
  ENSURE(nh_model_impact(m, 0, q, v, NULL, NULL, vp, NULL, &info, work) == NH_OK);
  ENSURE_NEAR(0.1 * vp[0] + vp[2], -0.5 * (0.1 * v[0] + v[2]), IDENT_TOL);
  ENSURE_NEAR(vp[0] + vp[1], 0.0, IDENT_TOL);
  /* a model without laws (impact NULL): elastic, the same as the explicit elastic law */
  nh_model bare = *m;
  bare.impact = NULL;
  ENSURE(nh_model_impact(&bare, 0, q, v, NULL, NULL, vp, NULL, &info, work) == NH_OK);
  ENSURE(nh_model_impact(m, 0, q, v, &ELASTIC, NULL, ref, NULL, NULL, work) == NH_OK);
  ENSURE(memcmp(vp, ref, sizeof vp) == 0);
  ENSURE_NEAR(info.vn_after, -info.vn_before, IDENT_TOL);
  /* arguments: NH_ERR_ARG, the info zeroed, nothing written */
  nh_model nomass = *m, nogap = *m, nocon = *m;
  nomass.mass = NULL, nogap.gap = NULL, nocon.constraint = NULL;
  const nh_model *bad_models[3] = {&nomass, &nogap, &nocon};
  for (int k = 0; k < 3; k++) {
    info.sig = SENTINEL;
    ENSURE(nh_model_impact(bad_models[k], 0, q, v, NULL, NULL, vp, NULL, &info, work) == NH_ERR_ARG);
    ENSURE(info.sig == 0.0);
  }
  ENSURE(nh_model_impact(NULL, 0, q, v, NULL, NULL, vp, NULL, NULL, work) == NH_ERR_ARG);
  ENSURE(nh_model_impact(m, 0, NULL, v, NULL, NULL, vp, NULL, NULL, work) == NH_ERR_ARG);
  ENSURE(nh_model_impact(m, 0, q, NULL, NULL, NULL, vp, NULL, NULL, work) == NH_ERR_ARG);
  ENSURE(nh_model_impact(m, 0, q, v, NULL, NULL, NULL, NULL, NULL, work) == NH_ERR_ARG);
  ENSURE(nh_model_impact(m, 0, q, v, NULL, NULL, vp, NULL, NULL, NULL) == NH_ERR_ARG);
  /* a failing evaluator (mass, constraint or gap): NH_ERR_CALLBACK, v_out = v */
  for (int k = 0; k < 3; k++) {
    u.fail_mass = k == 0, u.fail_constraint = k == 1, u.fail_gap = k == 2;
    vp[0] = vp[1] = vp[2] = SENTINEL;
    ENSURE(nh_model_impact(m, 0, q, v, NULL, NULL, vp, NULL, NULL, work) == NH_ERR_CALLBACK);
    ENSURE(memcmp(vp, v, sizeof vp) == 0);
  }
  free(work);
  nh_model_destroy(m);
  return 0;
}

/* ---- almost-Poisson models: x = (x, p) with Pi_xp = 1, the wall x >= 0 -------------------- */

/* H(p) by kind: 0 the kinetic p^2/2; 1 p^2/2 + c ((p+1)^4/4 - 2 (p+1)^3/3) with c = AP_C, whose
 * rate H'(p) = p + c (p+1)^2 (p-1) is reversed exactly by the jump from p = -1 (kappa = H''(-1)
 * = 1, p+ = 1, H'(1) = 1) while H(1) - H(-1) = -4 c / 3 != 0: the rate identity holds and the
 * energy identity fails; 2 H = x^2/2 (kappa = 0: no momentum along d); 3 H = p^4/4 (the jump
 * from p = -1 gives p+ = -1/3: the rate identity fails). Evaluators fail on
 * demand: at x[0] >= fail_at (the flags), or past the jump (p > 0: fail_after). */
#define AP_C 0.1
enum { F_GAP = 1, F_POISSON = 2, F_HAM = 4, F_HESS = 8 };
typedef struct {
  int kind, fail, fail_after;
  double fail_at;
} ap_user;

static int ap_fails(const ap_user *u, int which, const double *x) {
  return ((u->fail & which) && x[0] >= u->fail_at) || (u->fail_after && which == F_HAM && x[1] > 0.0);
}
static int ap_ham(const double *x, double *H, double *dH, void *uu) {
  const ap_user *u = uu;
  if (ap_fails(u, F_HAM, x)) return -1;
  const double p = x[1], a = p + 1.0;
  double h = 0.5 * p * p, hp = p, hx = 0.0;
  if (u->kind == 1) h += AP_C * (a * a * a * a / 4 - 2 * a * a * a / 3), hp += AP_C * a * a * (p - 1.0);
  if (u->kind == 2) h = 0.5 * x[0] * x[0], hp = 0.0, hx = x[0];
  if (u->kind == 3) h = 0.25 * p * p * p * p, hp = p * p * p;
  if (H) *H = h;
  if (dH) dH[0] = hx, dH[1] = hp;
  return 0;
}
static int ap_hess(const double *x, double *Hs, void *uu) {
  const ap_user *u = uu;
  if (ap_fails(u, F_HESS, x)) return -1;
  const double p = x[1], a = p + 1.0;
  Hs[0] = u->kind == 2 ? 1.0 : 0.0, Hs[1] = Hs[2] = 0.0;
  Hs[3] = u->kind == 2 ? 0.0 : 1.0 + (u->kind == 1 ? AP_C * (2 * a * (p - 1.0) + a * a) : 0.0);
  if (u->kind == 3) Hs[3] = 3.0 * p * p;
  return 0;
}
static int ap_pi(const double *x, double *P, void *uu) {
  if (ap_fails(uu, F_POISSON, x)) return -1;
  P[0] = 0.0, P[1] = 1.0, P[2] = -1.0, P[3] = 0.0;
  return 0;
}
static int ap_gap(const double *x, double *g, double *dg, void *uu) {
  if (ap_fails(uu, F_GAP, x)) return -1;
  if (g) g[0] = x[0];
  if (dg) dg[0] = 1.0, dg[1] = 0.0;
  return 0;
}

static nh_model *ap_model(ap_user *u, const nh_impact_law *law) {
  static const double x0[2] = {1.0, -1.0};
  nh_model_def d = nh_model_def_default();
  char msg[256];
  d.name = "ap", d.form = NH_FORM_ODE, d.nx = 2, d.x0 = x0;
  d.hamiltonian = ap_ham, d.hamiltonian_hess = ap_hess, d.poisson = ap_pi;
  d.ngap = 1, d.gap = ap_gap, d.impact = law, d.user = u;
  nh_model *m = nh_model_create(&d, msg, sizeof msg);
  if (!m) printf("  create: %s\n", msg);
  return m;
}

/* the map's refusals and exits, each with the state it leaves */
static int test_ap_map_guards(void) {
  ap_user u = {0, 0, 0, 0.0};
  const nh_impact_law el = ELASTIC, plastic = {NH_IMPACT_PLASTIC, 1.0};
  nh_model *m = ap_model(&u, &el);
  ENSURE(m);
  const size_t ws = nh_model_impact_ap_work_size(m);
  ENSURE(ws > 0 && nh_model_impact_work_size(m) == ws);
  double *work = malloc(sizeof(double) * ws), x[2] = {0.0, -2.0}, xo[2], xi[2];
  nh_impact_info info;
  ENSURE(work);
  /* the work size: none for no model, a mechanical one (its own), or no gaps */
  static const char *const nm[1] = {"q"};
  mech_user mu = {0, 0, 0};
  nh_model_def md = nh_model_def_default();
  md.name = "mech", md.nq = 1, md.coord_names = nm, md.mass = mass1, md.user = &mu;
  char msg[256];
  nh_model *mech = nh_model_create(&md, msg, sizeof msg);
  ENSURE(mech);
  nh_model nogaps = *m;
  nogaps.ngap = 0;
  ENSURE(nh_model_impact_ap_work_size(NULL) == 0 && nh_model_impact_ap_work_size(mech) == 0 &&
         nh_model_impact_ap_work_size(&nogaps) == 0);
  /* the elastic map: p -> -p, kappa = 1, alpha = 2 rate / kappa; in place the same */
  ENSURE(nh_model_impact_ap(m, 0, x, NULL, NULL, xo, NULL, work) == NH_OK);
  ENSURE(xo[0] == 0.0 && xo[1] == 2.0);
  xi[0] = x[0], xi[1] = x[1];
  ENSURE(nh_model_impact_ap(m, 0, xi, NULL, NULL, xi, &info, work) == NH_OK);
  ENSURE(xi[0] == xo[0] && xi[1] == xo[1] && info.D == 1.0 && info.alpha == -4.0 && info.vn_after == 2.0);
  /* arguments: NH_ERR_ARG, the info zeroed */
  nh_model nopoi = *m, noham = *m, nogap = *m;
  nopoi.poisson = NULL, noham.hamiltonian = NULL, nogap.gap = NULL;
  const nh_model *bad[5] = {NULL, mech, &nopoi, &noham, &nogap};
  for (int k = 0; k < 5; k++) {
    info.sig = SENTINEL;
    ENSURE(nh_model_impact_ap(bad[k], 0, x, NULL, NULL, xo, &info, work) == NH_ERR_ARG && info.sig == 0.0);
  }
  ENSURE(nh_model_impact_ap(m, 0, NULL, NULL, NULL, xo, NULL, work) == NH_ERR_ARG);
  ENSURE(nh_model_impact_ap(m, 0, x, NULL, NULL, NULL, NULL, work) == NH_ERR_ARG);
  ENSURE(nh_model_impact_ap(m, 0, x, NULL, NULL, xo, NULL, NULL) == NH_ERR_ARG);
  ENSURE(nh_model_impact_ap(m, -1, x, NULL, NULL, xo, NULL, work) == NH_ERR_ARG);
  ENSURE(nh_model_impact_ap(m, 1, x, NULL, NULL, xo, NULL, work) == NH_ERR_ARG);
  /* laws: plastic has no almost-Poisson form; e outside [0, 1] */
  const nh_impact_law bad_e = {NH_IMPACT_RESTITUTION, 1.5}, nan_e = {NH_IMPACT_RESTITUTION, NAN};
  ENSURE(nh_model_impact_ap(m, 0, x, &plastic, NULL, xo, NULL, work) == NH_ERR_ARG);
  ENSURE(nh_model_impact_ap(m, 0, x, &bad_e, NULL, xo, NULL, work) == NH_ERR_ARG);
  ENSURE(nh_model_impact_ap(m, 0, x, &nan_e, NULL, xo, NULL, work) == NH_ERR_ARG);
  /* separating (p > 0): no impact, x_out = x; with and without the info */
  const double xs[2] = {0.0, 0.5};
  ENSURE(nh_model_impact_ap(m, 0, xs, NULL, NULL, xo, NULL, work) == NH_NO_IMPACT && xo[1] == 0.5);
  ENSURE(nh_model_impact_ap(m, 0, xs, NULL, NULL, xo, &info, work) == NH_NO_IMPACT);
  ENSURE(xo[0] == 0.0 && xo[1] == 0.5 && info.vn_before == 0.5 && info.vn_after == 0.5 && info.alpha == 0.0);
  /* H without momentum along d (kappa = 0): degenerate, x_out = x */
  u.kind = 2;
  ENSURE(nh_model_impact_ap(m, 0, x, NULL, NULL, xo, NULL, work) == NH_DEGENERATE_IMPACT);
  ENSURE(nh_model_impact_ap(m, 0, x, NULL, NULL, xo, &info, work) == NH_DEGENERATE_IMPACT);
  ENSURE(xo[0] == x[0] && xo[1] == x[1] && info.D == 0.0 && info.alpha == 0.0);
  u.kind = 0;
  /* an evaluator failing at x (gap, Pi, H, Hessian): NH_ERR_CALLBACK, x_out = x */
  const int which[4] = {F_GAP, F_POISSON, F_HAM, F_HESS};
  u.fail_at = -1.0;
  for (int k = 0; k < 4; k++) {
    u.fail = which[k];
    xo[0] = xo[1] = SENTINEL;
    ENSURE(nh_model_impact_ap(m, 0, x, NULL, NULL, xo, NULL, work) == NH_ERR_CALLBACK);
    ENSURE(xo[0] == x[0] && xo[1] == x[1]);
  }
  u.fail = 0;
  /* H failing after the jump only: NH_ERR_CALLBACK, x_out restored to x, the info left
   * zeroed (it is written once the jump is evaluated) */
  u.fail_after = 1;
  info.alpha = SENTINEL;
  ENSURE(nh_model_impact_ap(m, 0, x, NULL, NULL, xo, &info, work) == NH_ERR_CALLBACK);
  ENSURE(xo[0] == x[0] && xo[1] == x[1] && info.alpha == 0.0);
  u.fail_after = 0;
  free(work);
  nh_model_destroy(m);
  nh_model_destroy(mech);
  return 0;
}

/* The law's own check (NH_AP_QUADRATIC_TOL): after the jump the rate must be -e times the
 * rate before and H must have changed by -(1 - e^2) rate^2 / (2 kappa). H of kind 1 passes the
 * first and fails the second; H = p^4/4 (kind 3) fails the first. Refused with
 * NH_ERR_UNSUPPORTED, x_out = x, the info telling the rates; through the driver the run ends
 * with that status at the wall, before the jump, the message naming the gap, the time and the
 * identity that failed. */
static int test_ap_law_check(void) {
  ap_user u = {1, 0, 0, 0.0};
  const nh_impact_law el = ELASTIC;
  nh_model *m = ap_model(&u, &el);
  ENSURE(m);
  double *work = malloc(sizeof(double) * nh_model_impact_ap_work_size(m)), x[2] = {0.0, -1.0}, xo[2];
  nh_impact_info info;
  ENSURE(work);
  ENSURE(nh_model_impact_ap(m, 0, x, NULL, NULL, xo, &info, work) == NH_ERR_UNSUPPORTED);
  ENSURE(xo[0] == x[0] && xo[1] == x[1]);
  /* the rate identity held (-1 -> 1 exactly), the jump was the law's (kappa 1, lambda -2) */
  ENSURE(info.vn_before == -1.0 && info.vn_after == 1.0 && info.D == 1.0 && info.alpha == -2.0);
  /* the same model with c = 0 (kind 0) passes both */
  u.kind = 0;
  ENSURE(nh_model_impact_ap(m, 0, x, NULL, NULL, xo, &info, work) == NH_OK && xo[1] == 1.0);
  u.kind = 1;
  /* through the driver: x' = H'(p) = -1 (p stays -1), the wall reached at t = 1 */
  nh_sim_def sd = nh_sim_def_default();
  sd.method = nh_method_find("dopri5");
  char msg[512];
  nh_sim *s = nh_sim_create(m, &sd, msg, sizeof msg);
  ENSURE(s);
  ENSURE(nh_sim_run(s, 3.0, 0, NULL, NULL) == NH_ERR_UNSUPPORTED);
  printf("  %s\n", nh_sim_message(s));
  ENSURE(strstr(nh_sim_message(s), "impact on 'g1' at t = ") == nh_sim_message(s));
  ENSURE(strstr(nh_sim_message(s), ": the jump along d = Pi dg gives the rate its law asks (-1 -> 1) but not the "
                                   "change of H, 0: H is not quadratic along d, or d changes with the jump"));
  ENSURE(fabs(nh_sim_time(s) - 1.0) <= 1e-9 && nh_sim_impact_count(s) == 0);
  const double *xe = nh_sim_x(s);
  ENSURE(fabs(xe[0]) <= 1e-9 && xe[1] == -1.0); /* the state at the wall, before the jump */
  nh_sim_destroy(s);
  /* H = p^4/4: x' = p^3 = -1 as well; kappa = 3, p+ = -1/3, the rate -1/27 instead of 1 */
  u.kind = 3;
  ENSURE(nh_model_impact_ap(m, 0, x, NULL, NULL, xo, &info, work) == NH_ERR_UNSUPPORTED);
  ENSURE(xo[0] == x[0] && xo[1] == x[1] && info.D == 3.0);
  ENSURE_REL(info.vn_after, -1.0 / 27.0, 1e-15);
  s = nh_sim_create(m, &sd, msg, sizeof msg);
  ENSURE(s && nh_sim_run(s, 3.0, 0, NULL, NULL) == NH_ERR_UNSUPPORTED);
  printf("  %s\n", nh_sim_message(s));
  ENSURE(strstr(nh_sim_message(s), "the jump along d = Pi dg misses its law (rate -1 -> -0.0370370370370370"));
  ENSURE(strstr(nh_sim_message(s), ", wanted 1): H is not quadratic along d"));
  ENSURE(fabs(nh_sim_time(s) - 1.0) <= 1e-9 && nh_sim_impact_count(s) == 0 && nh_sim_x(s)[1] == -1.0);
  nh_sim_destroy(s);
  free(work);
  nh_model_destroy(m);
  return 0;
}

/* nh_model_impact_ap_hold: arguments, evaluators failing at x0 or at x, and the values (d,
 * K = d^T Hess d, the rate) on the kinetic H */
static int test_ap_hold(void) {
  ap_user u = {0, 0, 0, 0.0};
  const nh_impact_law el = ELASTIC;
  nh_model *m = ap_model(&u, &el);
  ENSURE(m);
  double *work = malloc(sizeof(double) * nh_model_impact_ap_work_size(m));
  double x0[2] = {200.0, -2.0}, x[2] = {0.0, -1.5}, D[2], D1[2], K[1], rate[1];
  const int act[1] = {0};
  ENSURE(work);
  ENSURE(nh_model_impact_ap_hold(m, 1, act, x0, x, D, D1, K, rate, work) == NH_OK);
  ENSURE(D[0] == 0.0 && D[1] == -1.0 && D1[0] == 0.0 && D1[1] == -1.0 && K[0] == 1.0 && rate[0] == -1.5);
  ENSURE(nh_model_impact_ap_hold(m, 1, act, NULL, x, D, NULL, K, NULL, work) == NH_OK);
  ENSURE(D[0] == 0.0 && D[1] == -1.0 && K[0] == 1.0);
  /* arguments */
  static const char *const nm[1] = {"q"};
  mech_user mu = {0, 0, 0};
  nh_model_def md = nh_model_def_default();
  md.name = "mech", md.nq = 1, md.coord_names = nm, md.mass = mass1, md.user = &mu;
  char msg[256];
  nh_model *mech = nh_model_create(&md, msg, sizeof msg);
  nh_model nopoi = *m, noham = *m, nogap = *m;
  nopoi.poisson = NULL, noham.hamiltonian = NULL, nogap.gap = NULL;
  const nh_model *bad[5] = {NULL, mech, &nopoi, &noham, &nogap};
  for (int k = 0; k < 5; k++) ENSURE(nh_model_impact_ap_hold(bad[k], 1, act, x0, x, D, D1, K, rate, work) == NH_ERR_ARG);
  ENSURE(nh_model_impact_ap_hold(m, 1, act, x0, NULL, D, D1, K, rate, work) == NH_ERR_ARG);
  ENSURE(nh_model_impact_ap_hold(m, 1, act, x0, x, NULL, D1, K, rate, work) == NH_ERR_ARG);
  ENSURE(nh_model_impact_ap_hold(m, 1, act, x0, x, D, D1, NULL, rate, work) == NH_ERR_ARG);
  ENSURE(nh_model_impact_ap_hold(m, 1, act, x0, x, D, D1, K, rate, NULL) == NH_ERR_ARG);
  ENSURE(nh_model_impact_ap_hold(m, 0, act, x0, x, D, D1, K, rate, work) == NH_ERR_ARG);
  /* failing at x0 only (x0[0] = 200 >= fail_at = 100 > x[0]): gap, Pi */
  u.fail_at = 100.0;
  u.fail = F_GAP;
  ENSURE(nh_model_impact_ap_hold(m, 1, act, x0, x, D, D1, K, rate, work) == NH_ERR_CALLBACK);
  u.fail = F_POISSON;
  ENSURE(nh_model_impact_ap_hold(m, 1, act, x0, x, D, D1, K, rate, work) == NH_ERR_CALLBACK);
  /* failing at x: gap, Pi, H, the Hessian */
  u.fail_at = -1.0;
  const int which[4] = {F_GAP, F_POISSON, F_HAM, F_HESS};
  for (int k = 0; k < 4; k++) {
    u.fail = which[k];
    ENSURE(nh_model_impact_ap_hold(m, 1, act, NULL, x, D, D1, K, rate, work) == NH_ERR_CALLBACK);
  }
  nh_model_destroy(mech);
  free(work);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_map_sizes);
  RUN_TEST(test_map_refusals);
  RUN_TEST(test_model_impact_guards);
  RUN_TEST(test_ap_map_guards);
  RUN_TEST(test_ap_law_check);
  RUN_TEST(test_ap_hold);
  return TEST_SUMMARY();
}
