/* impact.c - impact maps for natural Lagrangians with linear velocity constraints, and for
 * models in almost-Poisson form (the second half of this file).
 *
 * Notation (W. Clark, A. Bloch, "The bouncing penny and nonholonomic impacts"; spec 000
 * secs. 2.3-2.5). Admissible region g(q) >= 0, impact function H = -g, dH = -dg (a row),
 * M = M(q) SPD, A = A(q) (nc x nq) the constraint one-forms omega^k as rows, v = qdot-.
 *
 * Holonomic (nc = 0), Theorem III.1:
 *   (5)  v+ = v - 2 (dH v) / (dH M^-1 dH^T) M^-1 dH^T
 *   (6)  v+ = v - (1 + e) (dH v) / (dH M^-1 dH^T) M^-1 dH^T,        0 <= e <= 1
 *
 * Elastic nonholonomic impact, Lagrange-d'Alembert jump conditions:
 *   (15) M v+ - M v- = A^T lambda + alpha dH^T,   T+ = T-,   A v+ = 0
 *   (16) lambda_k <omega^k, omega^l> + alpha <dH, omega^l> = 0             (all l)
 *   (17) 2 lambda.<p-, omega> + 2 alpha <p-, dH> + lambda^T G lambda
 *          + 2 alpha lambda.<omega, dH> + alpha^2 <dH, dH> = 0
 * with the cometric <a, b> = a M^-1 b^T. In matrices, solving with Cholesky factors:
 *   z = M^-1 dH^T,  W = M^-1 A^T,  G = A W,  b = A z,  c = dH z,  sig = dH v,  y = G^-1 b
 *   (16) -> lambda = -alpha y
 *   (17) -> alpha^2 (c - b.y) + 2 alpha sig = 0  ->  alpha = -2 sig / D_e,  D_e = c - b.y
 *   u = z - W y = Pi z,  Pi = I - M^-1 A^T G^-1 A   (kinetic-metric projector onto ker A)
 *   v+ = v - 2 sig / D_e u,   D_e = dH u
 *
 * Plastic nonholonomic impact (Def. IV.4): v+ = pi_Delta(P(v)), P the unconstrained
 * elastic reflection (5):
 *   (18) (q, v) -> (q, Pi P v)
 *   (19) a^{ij} = omega^i(W^j) = G_ij,   (a_ij) = G^-1
 *   (20) v -> v - 2 sig / c (z - W G^-1 A z) = v - 2 sig / D_p u,   D_p = c
 *   (21) pi_Delta(v) = v - W G^-1 A v
 * The wall multiplier is P's, alpha = C = -2 sig / D_p (the paper's C of (29)); the
 * projection adds the constraint impulse lambda = -G^-1 A P v = -alpha y (A v = 0).
 *
 * Every law is therefore  v+ = v - (1 + e) sig / D u,  alpha = -(1 + e) sig / D,
 * lambda = -alpha y  (elastic: e = 1, D = D_e; restitution: e, D = D_e; plastic: e = 1,
 * D = D_p). A pre-impact velocity that violates A v = 0 is first projected, v <- Pi v, and
 * the projection impulse -G^-1 A v is added to lambda so that (15) holds for the given v. */
#include <math.h>
#include <string.h>

#include "impact/hold.h"
#include "la/la.h"
#include "model/metric.h"
#include "nholo/impact.h"

/* helpers forced inline so that the fixed-size copies of the map unroll */
#define IMPACT_INLINE NH_LA_INLINE

nh_impact_tol nh_impact_tol_default(void) {
  nh_impact_tol t;
  t.sig_tol = 0.0;
  t.degenerate_tol = 1e-12;
  t.constraint_tol = 1e-9;
  t.project = 1;
  return t;
}

/* work layout of the generic maps (doubles) */
typedef struct impact_work {
  double *L;  /* (nq x nq) Cholesky factor of M */
  double *W;  /* (nc x nq) row k = W^k = M^-1 A_k^T */
  double *G;  /* (nc x nc) Cholesky factor of A M^-1 A^T */
  double *z;  /* (nq) M^-1 dH^T */
  double *u;  /* (nq) Pi z */
  double *w;  /* (nq) the velocity being mapped (projected v) */
  double *x;  /* (nq) the result */
  double *dH; /* (nq) -dg */
  double *y;  /* (nc) G^-1 A z */
  double *r;  /* (nc) G^-1 A v (projection coefficients) */
  nh_metric mt; /* M's factor in L (model/metric.h) */
} impact_work;

size_t nh_impact_work_size(int nq, int nc) {
  if (nq < 0) nq = 0;
  if (nc < 0) nc = 0;
  size_t n = (size_t)nq, m = (size_t)nc;
  return n * n + m * n + m * m + 5 * n + 2 * m;
}

IMPACT_INLINE impact_work carve(int nq, int nc, double *work) {
  size_t n = (size_t)nq, m = (size_t)nc;
  impact_work iw;
  iw.L = work;
  iw.W = iw.L + n * n;
  iw.G = iw.W + m * n;
  iw.z = iw.G + m * m;
  iw.u = iw.z + n;
  iw.w = iw.u + n;
  iw.x = iw.w + n;
  iw.dH = iw.x + n;
  iw.y = iw.dH + n;
  iw.r = iw.y + m;
  nh_metric_init(&iw.mt, nq, 0, iw.L, NULL);
  return iw;
}

IMPACT_INLINE int all_finite(int n, const double *x) { return nh_la_all_finite(n, x); }

/* Factor M and G = A M^-1 A^T, forming W = M^-1 A^T on the way (the metric's). */
IMPACT_INLINE int factor_metric(int nc, const double *M, const double *A, impact_work *iw) {
  if (nh_metric_factor(&iw->mt, M) != NH_OK) return NH_ERR_NOT_SPD;
  return nh_metric_rows(&iw->mt, nc, A, iw->W, iw->G);
}

/* |A v|_inf and |A|_inf (row-sum norm) */
IMPACT_INLINE double residual(int nq, int nc, const double *A, const double *v, double *normA) {
  double res = 0.0, na = 0.0;
  for (int k = 0; k < nc; k++) {
    const double *Ak = A + (size_t)k * nq;
    double r = fabs(nh_la_dot(nq, Ak, v)), s = 0.0;
    for (int j = 0; j < nq; j++) s += fabs(Ak[j]);
    if (r > res) res = r;
    if (s > na) na = s;
  }
  *normA = na;
  return res;
}

static int valid_tol(const nh_impact_tol *t) {
  return t->sig_tol >= 0.0 && isfinite(t->sig_tol) && t->degenerate_tol >= 0.0 &&
         isfinite(t->degenerate_tol) && t->constraint_tol >= 0.0 && isfinite(t->constraint_tol);
}

/* the map for given sizes; inlined into nh_impact_map once per small size, where the
 * constant nq, nc unroll every loop (the same operations in the same order: the same
 * results) */
IMPACT_INLINE int impact_map_n(int nq, int nc, const double *M, const double *A, const double *dg,
                               const double *v, nh_impact_law law, const nh_impact_tol *tol,
                               double *v_out, double *lambda, nh_impact_info *info, double *work) {
  nh_impact_info inf;
  memset(&inf, 0, sizeof inf);
  if (info) *info = inf;
  if (nq < 1 || nc < 0 || !M || (nc > 0 && !A) || !dg || !v || !v_out || !work) return NH_ERR_ARG;
  nh_impact_tol tl = tol ? *tol : nh_impact_tol_default();
  double e;
  switch (law.kind) {
  case NH_IMPACT_ELASTIC:
  case NH_IMPACT_PLASTIC:
    e = 1.0;
    break;
  case NH_IMPACT_RESTITUTION:
    e = law.e;
    break;
  default:
    e = NAN;
  }
  /* every failure below leaves v_out = v */
  impact_work iw = carve(nq, nc, work);
  double normA = 0.0, c, De, D, sig, f;
  int status = NH_ERR_ARG;
  if (!(e >= 0.0 && e <= 1.0) || !valid_tol(&tl) || !all_finite(nq, v) || !all_finite(nq, dg))
    goto fail;
  status = factor_metric(nc, M, A, &iw);
  if (status != NH_OK) goto fail;

  /* drifted pre-impact velocity: project onto ker A (decision D4) or reject */
  nh_la_copy(nq, v, iw.w);
  for (int k = 0; k < nc; k++) iw.r[k] = 0.0;
  inf.residual_before = residual(nq, nc, A, v, &normA);
  if (inf.residual_before > tl.constraint_tol * normA * nh_la_norm_inf(nq, v)) {
    if (!tl.project) {
      status = NH_ERR_CONSTRAINT;
      goto fail;
    }
    nh_metric_project(nq, nc, A, iw.W, iw.G, iw.w, iw.r);
    inf.projected = 1;
  }

  /* z = M^-1 dH^T, c = dH z; u = Pi z, y = G^-1 A z, D_e = dH u */
  for (int i = 0; i < nq; i++) iw.dH[i] = -dg[i];
  c = nh_metric_normal(&iw.mt, nc, A, iw.W, iw.G, iw.dH, iw.z, iw.u, iw.y, &De);
  sig = nh_la_dot(nq, iw.dH, iw.w);
  D = law.kind == NH_IMPACT_PLASTIC ? c : De;
  inf.sig = sig;
  inf.vn_before = -sig;
  inf.vn_after = -sig;
  inf.D = D;
  inf.rho = c > 0.0 ? De / c : 0.0;

  /* degenerate: dH (numerically) in the span of the one-forms, rho = D_e / c tiny; checked
   * before the approach test because sig is then round-off of either sign */
  if (!(c > 0.0) || !(De > tl.degenerate_tol * c)) {
    status = NH_DEGENERATE_IMPACT;
    nh_la_copy(nq, iw.w, iw.x);
    for (int k = 0; k < nc; k++) iw.y[k] = 0.0;
    goto done;
  }
  /* not approaching: no impact (decision D2) */
  if (!(sig > tl.sig_tol)) {
    status = NH_NO_IMPACT;
    nh_la_copy(nq, iw.w, iw.x);
    for (int k = 0; k < nc; k++) iw.y[k] = 0.0;
    goto done;
  }

  /* the map: v+ = w - (1 + e) sig / D u, alpha = -(1 + e) sig / D, lambda = -alpha y */
  f = (1.0 + e) * sig / D;
  nh_la_copy(nq, iw.w, iw.x);
  nh_la_axpy(nq, -f, iw.u, iw.x);
  inf.alpha = -f;
  nh_la_scale(nc, f, iw.y);
  inf.vn_after = nh_la_dot(nq, dg, iw.x);
  status = NH_OK;
  if (law.kind == NH_IMPACT_PLASTIC && !(inf.vn_after > 0.0)) status = NH_NOT_REVERSED;

done:
  /* outputs; the projection impulse -G^-1 A v joins lambda */
  nh_la_copy(nq, iw.x, v_out);
  if (lambda)
    for (int k = 0; k < nc; k++) lambda[k] = iw.y[k] - iw.r[k];
  if (info) *info = inf;
  return status;

fail:
  nh_la_copy(nq, v, v_out);
  if (info) *info = inf;
  return status;
}

int nh_impact_map(int nq, int nc, const double *M, const double *A, const double *dg,
                  const double *v, nh_impact_law law, const nh_impact_tol *tol, double *v_out,
                  double *lambda, nh_impact_info *info, double *work) {
#define IMPACT_MAP_N(n, c) impact_map_n(n, c, M, A, dg, v, law, tol, v_out, lambda, info, work)
  /* small systems (the penny is nq = 4, nc = 2): fixed-size copies */
  switch (nq * 8 + nc) {
  case 2 * 8 + 0: return IMPACT_MAP_N(2, 0);
  case 2 * 8 + 1: return IMPACT_MAP_N(2, 1);
  case 3 * 8 + 0: return IMPACT_MAP_N(3, 0);
  case 3 * 8 + 1: return IMPACT_MAP_N(3, 1);
  case 3 * 8 + 2: return IMPACT_MAP_N(3, 2);
  case 4 * 8 + 1: return IMPACT_MAP_N(4, 1);
  case 4 * 8 + 2: return IMPACT_MAP_N(4, 2);
  default: return IMPACT_MAP_N(nq, nc);
  }
#undef IMPACT_MAP_N
}

int nh_project_velocity(int nq, int nc, const double *M, const double *A, const double *v,
                        double *v_out, double *work) {
  if (nq < 1 || nc < 0 || !M || (nc > 0 && !A) || !v || !v_out || !work) return NH_ERR_ARG;
  impact_work iw = carve(nq, nc, work);
  int status = factor_metric(nc, M, A, &iw);
  if (status != NH_OK) {
    nh_la_copy(nq, v, v_out);
    return status;
  }
  nh_la_copy(nq, v, v_out);
  nh_metric_project(nq, nc, A, iw.W, iw.G, v_out, iw.r);
  return NH_OK;
}

size_t nh_model_impact_work_size(const nh_model *model) {
  if (!model) return 0;
  if (model->form == NH_FORM_ODE) return nh_model_impact_ap_work_size(model); /* below */
  size_t n = (size_t)model->nq, m = (size_t)model->nc, ng = (size_t)model->ngap;
  return n * n + m * n + ng * n + nh_impact_work_size(model->nq, model->nc);
}

int nh_model_impact(const nh_model *model, int gap, const double *q, const double *v,
                    const nh_impact_law *law, const nh_impact_tol *tol, double *v_out,
                    double *lambda, nh_impact_info *info, double *work) {
  if (info) memset(info, 0, sizeof *info);
  if (!model || !q || !v || !v_out || !work || gap < 0 || gap >= model->ngap || !model->mass ||
      !model->gap || (model->nc > 0 && !model->constraint))
    return NH_ERR_ARG;
  int nq = model->nq, nc = model->nc;
  size_t n = (size_t)nq;
  double *M = work, *A = M + n * n, *dg = A + (size_t)nc * n;
  double *scratch = dg + (size_t)model->ngap * n;

  /* evaluate M(q), A(q) and the gap gradients at the contact configuration */
  int rc = model->mass(q, M, model->user);
  if (rc == 0 && nc > 0) rc = model->constraint(q, v, A, NULL, model->user);
  if (rc == 0) rc = model->gap(q, NULL, dg, model->user);
  if (rc != 0) {
    nh_la_copy(nq, v, v_out);
    return NH_ERR_CALLBACK;
  }
  nh_impact_law lw;
  if (law)
    lw = *law;
  else if (model->impact)
    lw = model->impact[gap];
  else {
    lw.kind = NH_IMPACT_ELASTIC;
    lw.e = 1.0;
  }
  return nh_impact_map(nq, nc, M, nc > 0 ? A : NULL, dg + (size_t)gap * n, v, lw, tol, v_out,
                       lambda, info, scratch);
}

/* ---- almost-Poisson form ------------------------------------------------------------------
 *
 * The impact map of an almost-Poisson model x' = Pi(x) grad H(x) at a gap
 * g(x) >= 0 (nholo/impact.h, nh_model_impact_ap).
 *
 * The gap's rate is g' = dg Pi dH = -d . dH with d = Pi dg^T (Pi skew). When g depends only on
 * variables S whose mutual block of Pi vanishes (configuration-like variables), d has no
 * component along S, so the jump x+ = x- + lambda d leaves g (and dg) unchanged and moves only
 * the variables Pi couples to S (the fibre momenta of a reduced nonholonomic system: the jump
 * of the Lagrangian maps, spec 000 sec. 2.4, written on D*). If moreover Pi's columns of S do
 * not depend on the variables the jump moves and H is quadratic along d (the kinetic energy),
 *   g'+ = g'- - lambda kappa,   kappa = d^T Hess(H) d,
 * and the restitution law g'+ = -e g'- gives lambda = (1 + e) g'- / kappa, with
 *   H+ - H- = -(1 - e^2) g'-^2 / (2 kappa)      (e = 1: H conserved).
 * The mechanical maps agree: kappa is the constrained cometric D_e of nh_impact_map and the
 * normal rate is reversed and scaled the same way. The map checks both identities after the
 * jump (NH_AP_QUADRATIC_TOL): a model for which they fail (H not quadratic along d, d moved
 * by the jump) gets NH_ERR_UNSUPPORTED and x+ = x-. */
/* the work layout (doubles): gap gradients, Pi, grad H, Hessian, d, F = Pi grad H, then the
 * scratch of nh_model_hamiltonian_hess */
size_t nh_model_impact_ap_work_size(const nh_model *model) {
  if (!model || model->form != NH_FORM_ODE || model->ngap == 0) return 0;
  const size_t nx = (size_t)model->nx, ng = (size_t)model->ngap;
  return ng * nx + 2 * nx * nx + 3 * nx + nh_model_deriv_work_size(model) + 4;
}

/* the rate g' = dg Pi grad H and H at x (dg: the gap's row of all gradients in dgs) */
static int rate_at(const nh_model *m, int gap, const double *x, double *dgs, double *Pi, double *dH, double *F,
                   double *rate, double *H) {
  const int nx = m->nx;
  if (m->gap(x, NULL, dgs, m->user) || m->poisson(x, Pi, m->user) || m->hamiltonian(x, H, dH, m->user))
    return NH_ERR_CALLBACK;
  nh_la_gemv(nx, nx, Pi, dH, F);
  *rate = nh_la_dot(nx, dgs + (size_t)gap * (size_t)nx, F);
  return NH_OK;
}

int nh_model_impact_ap(const nh_model *model, int gap, const double *x, const nh_impact_law *law,
                       const nh_impact_tol *tol, double *x_out, nh_impact_info *info, double *work) {
  nh_impact_info inf;
  memset(&inf, 0, sizeof inf);
  if (info) *info = inf;
  if (!model || model->form != NH_FORM_ODE || !model->poisson || !model->hamiltonian || !model->gap || !x ||
      !x_out || !work || gap < 0 || gap >= model->ngap)
    return NH_ERR_ARG;
  const int nx = model->nx;
  const size_t n = (size_t)nx;
  const nh_impact_law lw = law ? *law : model->impact[gap];
  const nh_impact_tol tl = tol ? *tol : nh_impact_tol_default();
  if (lw.kind == NH_IMPACT_PLASTIC || !(lw.e >= 0.0 && lw.e <= 1.0)) return NH_ERR_ARG;
  const double e = lw.kind == NH_IMPACT_ELASTIC ? 1.0 : lw.e;
  double *dgs = work, *Pi = dgs + (size_t)model->ngap * n, *dH = Pi + n * n, *Hs = dH + n, *d = Hs + n * n;
  double *F = d + n, *scratch = F + n;
  double rate, H0, H1, rate1;
  if (x_out != x) memcpy(x_out, x, sizeof(double) * n);

  // before: the rate, d = Pi dg^T, kappa = d^T Hess(H) d
  if (rate_at(model, gap, x, dgs, Pi, dH, F, &rate, &H0)) return NH_ERR_CALLBACK;
  const double *dg = dgs + (size_t)gap * n;
  nh_la_gemv(nx, nx, Pi, dg, d);
  int rc = nh_model_hamiltonian_hess(model, x, Hs, scratch);
  if (rc != NH_OK) return rc < 0 ? rc : NH_ERR_CALLBACK;
  double kappa = 0.0, hmax = 0.0;
  for (int i = 0; i < nx; i++) {
    kappa += d[i] * nh_la_dot(nx, Hs + (size_t)i * n, d);
    hmax = fmax(hmax, nh_la_norm_inf(nx, Hs + (size_t)i * n));
  }
  const double dd = nh_la_dot(nx, d, d);
  inf.sig = -rate, inf.vn_before = rate, inf.vn_after = rate, inf.D = kappa, inf.rho = 1.0;
  if (!(kappa > tl.degenerate_tol * dd * hmax) || !(dd > 0.0)) {
    if (info) *info = inf;
    return NH_DEGENERATE_IMPACT;
  }
  if (!(-rate > tl.sig_tol)) {
    if (info) *info = inf;
    return NH_NO_IMPACT;
  }

  // the jump along d, then the identities it must satisfy
  const double lambda = (1.0 + e) * rate / kappa;
  nh_la_axpy(nx, lambda, d, x_out);
  inf.alpha = lambda;
  if (rate_at(model, gap, x_out, dgs, Pi, dH, F, &rate1, &H1)) {
    memcpy(x_out, x, sizeof(double) * n);
    return NH_ERR_CALLBACK;
  }
  inf.vn_after = rate1;
  if (info) *info = inf;
  const double dE = -(1.0 - e * e) * rate * rate / (2.0 * kappa), scale = fmax(fabs(H0), rate * rate / kappa);
  if (!(fabs(rate1 + e * rate) <= NH_AP_QUADRATIC_TOL * fabs(rate)) ||
      !(fabs(H1 - H0 - dE) <= NH_AP_QUADRATIC_TOL * scale)) {
    memcpy(x_out, x, sizeof(double) * n);
    return NH_ERR_UNSUPPORTED;
  }
  return NH_OK;
}

/* the held contacts (impact/hold.h): D from Pi and the gradients at x0 (if given) and x,
 * then K column by column (w = Hess D_l; K_kl = d_k(x) . w) */
int nh_model_impact_ap_hold(const nh_model *model, int na, const int *act, const double *x0, const double *x,
                            double *D, double *D1, double *K, double *rate, double *work) {
  if (!model || model->form != NH_FORM_ODE || !model->poisson || !model->hamiltonian || !model->gap || !x || !D ||
      !K || !work || na < 1)
    return NH_ERR_ARG;
  const int nx = model->nx;
  const size_t n = (size_t)nx;
  double *dgs = work, *Pi = dgs + (size_t)model->ngap * n, *dH = Pi + n * n, *Hs = dH + n, *w = Hs + n * n;
  double *F = w + n, *scratch = F + n, H;
  if (x0) {
    if (model->gap(x0, NULL, dgs, model->user) || model->poisson(x0, Pi, model->user)) return NH_ERR_CALLBACK;
    for (int k = 0; k < na; k++) nh_la_gemv(nx, nx, Pi, dgs + (size_t)act[k] * n, D + (size_t)k * n);
  }
  if (model->gap(x, NULL, dgs, model->user) || model->poisson(x, Pi, model->user) ||
      model->hamiltonian(x, &H, dH, model->user))
    return NH_ERR_CALLBACK;
  nh_la_gemv(nx, nx, Pi, dH, F);
  for (int k = 0; k < na; k++) {
    double *dk = D + (size_t)k * n;
    nh_la_gemv(nx, nx, Pi, dgs + (size_t)act[k] * n, w);
    if (D1) memcpy(D1 + (size_t)k * n, w, sizeof(double) * n);
    if (x0)
      for (int j = 0; j < nx; j++) dk[j] = 0.5 * (dk[j] + w[j]);
    else memcpy(dk, w, sizeof(double) * n);
    if (rate) rate[k] = nh_la_dot(nx, dgs + (size_t)act[k] * n, F);
  }
  int rc = nh_model_hamiltonian_hess(model, x, Hs, scratch);
  if (rc != NH_OK) return rc < 0 ? rc : NH_ERR_CALLBACK;
  for (int l = 0; l < na; l++) {
    nh_la_gemv(nx, nx, Hs, D + (size_t)l * n, w);
    for (int k = 0; k < na; k++) {
      nh_la_gemv(nx, nx, Pi, dgs + (size_t)act[k] * n, F);
      K[(size_t)k * (size_t)na + (size_t)l] = nh_la_dot(nx, F, w);
    }
  }
  return NH_OK;
}
