/* impact_ap.c - the impact map of an almost-Poisson model x' = Pi(x) grad H(x) at a gap
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
#include <math.h>
#include <string.h>

#include "impact/impact_ap_hold.h"
#include "la/la.h"

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

/* the held contacts (impact_ap_hold.h): D from Pi and the gradients at x0 (if given) and x,
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
