/* tangent.c - the variational equation of a model's flow and the saltation of its impacts.
 *
 * Mechanical form: a and lambda solve  M a - A^T lambda = r,  A a = -Adot v  (r = -c - dV + f).
 * Differentiating along (dq, dv) gives the same KKT matrix, solved by the range space with
 * the constrained metric's factors (kkt_factor, kkt_solve), with
 *
 *   rho   = -(dc/dq) dq - (dc/dv) dv - H dq + (df/dq) dq + (df/dv) dv - (dM.dq) a + (dA.dq)^T lambda
 *   kappa = -d(Adot v)/dq dq - d(Adot v)/dv dv - (dA.dq) a
 *
 * with c_i = sum_jk (dM_ij/dq_k - 1/2 dM_jk/dq_i) v_j v_k, so dc/dq needs d2M and dc/dv dM
 * (both exact from a model file), d(Adot v)/dv = sum_k dA_k v_k + (dA . dv) v is exact, and
 * d(Adot v)/dq along dq is a central difference of the evaluator (Richardson-extrapolated):
 * the model has no second derivative of A. The impact map R(q, v) = (q, v+) is linear in v:
 * dv+/dv w = w - (dg w)/(dg v) (v - v+) exactly (every law is v+ = v - k (dg v) u(q)); its
 * q-derivative is a central difference of the model's impact map without the projection
 * guard (the formula itself, smooth in q).
 *
 * With closed contacts (gaps held as holonomic constraints g_k(q) = 0, the rows D = dg_k after
 * A, multipliers mu, M a = r + A^T lambda + D^T mu, D a = -Phi, Phi_k = v^T Hess(g_k) v) the
 * same KKT matrix grows by the rows D, with
 *
 *   rho   += sum_k mu_k Hess(g_k) dq,     kappa_k = -(Hess(g_k) dq) a - dPhi_k(q, v)[dq, dv]
 *
 * the Hessian terms central differences of the gap gradients (models give no gap Hessian;
 * exact, 0, for gaps linear in q). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/msg.h"
#include "la/la.h"

/* a function of q at the fixed velocity v (for the directional differences) */
typedef int (*qfun)(nh_tan *T, const double *q, const double *v, double *y);

static int adotv_of_q(nh_tan *T, const double *q, const double *v, double *y) {
  return T->m->constraint(q, v, NULL, y, T->m->user) ? NH_ERR_CALLBACK : 0;
}

/* v+ = P(q) v, P = I - (1 + e) u dH^T / D linear in v: a perturbed q near a graze where
 * dg v changes sign is P(q) v = -P(q) (-v) (and v itself when dg v is exactly 0) */
static int vplus_of_q(nh_tan *T, const double *q, const double *v, double *y) {
  const nh_impact_law *law = T->law_now;
  int rc = nh_model_impact(T->m, T->gap, q, v, law, &T->raw_tol, y, NULL, NULL, T->iwork);
  if (rc == NH_NO_IMPACT) {
    for (int i = 0; i < T->nq; i++) T->vneg[i] = -v[i];
    rc = nh_model_impact(T->m, T->gap, q, T->vneg, law, &T->raw_tol, y, NULL, NULL, T->iwork);
    if (rc == NH_NO_IMPACT) return memcpy(y, v, sizeof(double) * (size_t)T->nq), 0;
    for (int i = 0; i < T->nq; i++) y[i] = -y[i];
  }
  return rc == NH_OK || rc == NH_NOT_REVERSED ? 0 : (rc < 0 ? rc : NH_ERR_EVENT);
}

/* (df/dq)(q) dq for f(., v): column by column, each a central difference over the exact steps
 * h+ = fl(q_l + h) - q_l and h- = q_l - fl(q_l - h) (an angle grown large would otherwise
 * turn the rounding of q_l + h into noise), extrapolated from h and h/2; y (ny) */
static int fd_dir(nh_tan *T, qfun f, double step, int ny, const double *q, const double *v,
                  const double *dq, double *y) {
  const int nq = T->nq;
  int rc;
  memset(y, 0, sizeof(double) * (size_t)ny);
  memcpy(T->qs, q, sizeof(double) * (size_t)nq);
  for (int l = 0; l < nq; l++) {
    if (dq[l] == 0.0) continue;
    for (int pass = 0; pass < 2; pass++) {
      const double h = pass == 0 ? step : 0.5 * step;
      const double qp = q[l] + h, qm = q[l] - h; /* the steps taken are qp - q[l], q[l] - qm */
      const double span = (qp - q[l]) + (q[l] - qm);
      T->qs[l] = qp;
      if ((rc = f(T, T->qs, v, T->ya))) return rc;
      T->qs[l] = qm;
      if ((rc = f(T, T->qs, v, T->yb))) return rc;
      T->qs[l] = q[l];
      for (int i = 0; i < ny; i++) {
        double d = (T->ya[i] - T->yb[i]) / span;
        if (pass == 0)
          T->d1[i] = d;
        else
          y[i] += dq[l] * (4.0 * d - T->d1[i]) / 3.0;
      }
    }
  }
  return 0;
}

int nh_tan_init(nh_tan *T, const nh_model *m, const nh_impact_law *law, char *msg, size_t msg_size) {
  memset(T, 0, sizeof *T);
  T->m = m;
  const int mech = m->form == NH_FORM_MECHANICAL;
  T->nq = mech ? m->nq : 0;
  T->nc = mech ? m->nc : 0;
  T->ng = mech ? m->ngap : 0;
  T->nx = m->nx;
  if (law) T->has_law = 1, T->law = *law;
  T->law_now = law ? &T->law : NULL;
  T->raw_tol = nh_impact_tol_default();
  T->raw_tol.constraint_tol = DBL_MAX; /* never project: the formula is differentiated */
  const size_t nq = (size_t)T->nq, nc = (size_t)T->nc, ng = (size_t)T->ng, nk = nq + nc + ng;
  size_t n1 = nk > (size_t)T->nx ? nk : (size_t)T->nx;
  size_t ndyn = nh_dyn_work_size(m), ncon = mech ? nh_dyn_contact_work_size(m) : 0, nder = nh_model_deriv_work_size(m);
  size_t nimp = m->ngap > 0 ? nh_model_impact_work_size(m) : 0;
  size_t total = ndyn + ncon + nder + nimp + nq * nq * nq * 2 + nq * nq * nq * nq + nq * nq * 4 + nc * nq * nq + nc * nq +
                 nk * nk + (size_t)m->ngap * nq + 17 * n1 + 7 * ng * nq + 5 * ng + 3 * nq + 8;
  T->block = calloc(total, sizeof(double));
  T->act = calloc(ng + 1, sizeof(int));
  if (!T->block || !T->act) {
    nh_tan_free(T);
    nh_set_msg(msg, msg_size, "out of memory for the tangent workspace");
    return NH_ERR_NOMEM;
  }
  double *p = T->block;
#define CARVE(ptr, n) (ptr = p, p += (n))
  CARVE(T->dynwork, ndyn);
  CARVE(T->dwork, nder);
  CARVE(T->iwork, nimp);
  CARVE(T->dM, nq * nq * nq);
  CARVE(T->Eq, nq * nq * nq);
  CARVE(T->d2M, nq * nq * nq * nq);
  CARVE(T->H, nq * nq);
  CARVE(T->dfdq, nq * nq);
  CARVE(T->dfdv, nq * nq);
  CARVE(T->Mq, nq * nq);
  CARVE(T->dA, nc * nq * nq);
  CARVE(T->A, nc * nq);
  CARVE(T->K, nk * nk);
  CARVE(T->dg, (size_t)m->ngap * nq);
  double **scr[] = {&T->kkt, &T->a, &T->lam, &T->rho, &T->kap, &T->t1, &T->t2, &T->t3,
                    &T->xa, &T->xb, &T->fa, &T->fb, &T->qs, &T->ya, &T->yb, &T->d1, &T->vneg};
  for (size_t i = 0; i < sizeof scr / sizeof scr[0]; i++) CARVE(*scr[i], n1);
  double **gsc[] = {&T->D, &T->Hd, &T->Hd1, &T->Da, &T->Db, &T->gda};
  for (size_t i = 0; i < sizeof gsc / sizeof gsc[0]; i++) CARVE(*gsc[i], ng * nq);
  double **gsv[] = {&T->gv, &T->phm, &T->php, &T->dphi, &T->dphi1};
  for (size_t i = 0; i < sizeof gsv / sizeof gsv[0]; i++) CARVE(*gsv[i], ng);
  CARVE(T->qa, nq);
  CARVE(T->qb, nq);
  CARVE(T->vb, nq);
  double *cwork = NULL;
  CARVE(cwork, ncon);
#undef CARVE
  nh_dyn_init(&T->dyn, m, T->dynwork);
  if (mech && ng > 0) nh_dyn_contact_init(&T->dyn, cwork);
  T->dyn.act = T->act;
  return NH_OK;
}

void nh_tan_free(nh_tan *T) {
  free(T->block);
  free(T->act);
  T->block = NULL;
  T->act = NULL;
}

/* ---- the closed contacts' terms ------------------------------------------------------- */

/* the gradients of the closed gaps at q into D (nact x nq) */
static int closed_rows(nh_tan *T, const double *q, double *D) {
  const int nq = T->nq;
  if (T->m->gap(q, T->gv, T->gda, T->m->user)) return NH_ERR_CALLBACK;
  for (int k = 0; k < T->nact; k++) memcpy(D + (size_t)k * nq, T->gda + (size_t)T->act[k] * nq, sizeof(double) * (size_t)nq);
  return 0;
}

/* out_k = Hess(g_k)(q) u for the closed gaps (nact x nq): a central difference of their
 * gradients along u over h = NH_LYAP_FD_STEP_FLOW / |u| (the coordinates' units), from h and
 * h/2 with one Richardson extrapolation; exactly 0 for gaps linear in q */
static int hess_dir(nh_tan *T, const double *q, const double *u, double *out) {
  const int nq = T->nq, n = T->nact * nq;
  const double s = nh_la_norm_inf(nq, u);
  int rc;
  if (!(s > 0.0)) {
    memset(out, 0, sizeof(double) * (size_t)n);
    return 0;
  }
  double h = NH_LYAP_FD_STEP_FLOW / s;
  for (int pass = 0; pass < 2; pass++, h *= 0.5) {
    double *o = pass == 0 ? T->Hd1 : out;
    for (int i = 0; i < nq; i++) T->qa[i] = q[i] + h * u[i];
    if ((rc = closed_rows(T, T->qa, T->Da))) return rc;
    for (int i = 0; i < nq; i++) T->qa[i] = q[i] - h * u[i];
    if ((rc = closed_rows(T, T->qa, T->Db))) return rc;
    for (int j = 0; j < n; j++) o[j] = (T->Da[j] - T->Db[j]) / (2.0 * h);
  }
  for (int j = 0; j < n; j++) out[j] = (4.0 * out[j] - T->Hd1[j]) / 3.0;
  return 0;
}

/* phi_k = v^T Hess(g_k)(q) v of the closed gaps (hess_dir along v; Hd scratch) */
static int curvature(nh_tan *T, const double *q, const double *v, double *phi) {
  int rc = hess_dir(T, q, v, T->Hd);
  for (int k = 0; !rc && k < T->nact; k++) phi[k] = nh_la_dot(T->nq, T->Hd + (size_t)k * T->nq, v);
  return rc;
}

/* dphi_k = d/de Phi_k(q + e dq, v + e dv) at e = 0: a central difference over
 * h = NH_LYAP_FD_STEP_FLOW / |(dq, dv)|, from h and h/2 extrapolated (curvature's values, each
 * a difference of gradients: noise ~ eps / step^2 of the terms for a curved gap, 0 for a flat one) */
static int curvature_dir(nh_tan *T, const double *q, const double *v, const double *dq, const double *dv, double *dphi) {
  const int nq = T->nq, na = T->nact;
  const double s = fmax(nh_la_norm_inf(nq, dq), nh_la_norm_inf(nq, dv));
  int rc;
  if (!(s > 0.0)) {
    memset(dphi, 0, sizeof(double) * (size_t)na);
    return 0;
  }
  double h = NH_LYAP_FD_STEP_FLOW / s;
  for (int pass = 0; pass < 2; pass++, h *= 0.5) {
    double *o = pass == 0 ? T->dphi1 : dphi;
    for (int i = 0; i < nq; i++) T->qb[i] = q[i] + h * dq[i], T->vb[i] = v[i] + h * dv[i];
    if ((rc = curvature(T, T->qb, T->vb, T->php))) return rc;
    for (int i = 0; i < nq; i++) T->qb[i] = q[i] - h * dq[i], T->vb[i] = v[i] - h * dv[i];
    if ((rc = curvature(T, T->qb, T->vb, T->phm))) return rc;
    for (int k = 0; k < na; k++) o[k] = (T->php[k] - T->phm[k]) / (2.0 * h);
  }
  for (int k = 0; k < na; k++) dphi[k] = (4.0 * dphi[k] - T->dphi1[k]) / 3.0;
  return 0;
}

/* M, A and the closed contacts' rows D at q, for the KKT system [M -B^T; B 0], B = [A; D]: the
 * constrained metric's factor of M (in Mq) and, for the stacked rows B (in K), W = M^-1 B^T and
 * the factor of G = B M^-1 B^T after them (model/metric.h) */
static int kkt_factor(nh_tan *T, const double *q, const double *v) {
  const nh_model *m = T->m;
  const int nq = T->nq, nc = T->nc, na = T->nact, nr = nc + na;
  double *B = T->K, *W = B + (size_t)nr * nq, *G = W + (size_t)nr * nq;
  int rc;
  if (m->mass(q, T->Mq, m->user)) return NH_ERR_CALLBACK;
  if (nc > 0 && m->constraint(q, v, T->A, NULL, m->user)) return NH_ERR_CALLBACK;
  if (na > 0 && (rc = closed_rows(T, q, T->D))) return rc;
  memcpy(B, T->A, sizeof(double) * (size_t)nc * (size_t)nq);
  memcpy(B + (size_t)nc * nq, T->D, sizeof(double) * (size_t)na * (size_t)nq);
  nh_metric_init(&T->mt, nq, 0, T->Mq, NULL);
  if (nh_metric_factor(&T->mt, T->Mq) != NH_OK) return NH_ERR_SINGULAR;
  return nh_metric_rows(&T->mt, nr, B, W, G) != NH_OK ? NH_ERR_SINGULAR : NH_OK;
}

/* The KKT solve after kkt_factor, by the range space: M y - B^T mu = r, B y = k give
 * mu = G^-1 (k - B M^-1 r), y = M^-1 r + W mu; x = (r, k) on entry, (y, mu) on return */
static void kkt_solve(nh_tan *T, double *x) {
  const int nq = T->nq, nr = T->nc + T->nact;
  const double *B = T->K, *W = B + (size_t)nr * nq, *G = W + (size_t)nr * nq;
  double *y = x, *mu = x + nq;
  nh_metric_solve(&T->mt, y);
  for (int k = 0; k < nr; k++) mu[k] -= nh_la_dot(nq, B + (size_t)k * nq, y);
  if (nr > 0) nh_la_chol_solve(nr, G, mu);
  for (int k = 0; k < nr; k++) nh_la_axpy(nq, mu[k], W + (size_t)k * nq, y);
}

/* rho += the mass-derivative terms: -(dM.dq) a - (dc/dq) dq - (dc/dv) dv */
static void mass_terms(nh_tan *T, const double *v, const double *dq, const double *dv) {
  const int nq = T->nq;
  const double *dM = T->dM;
  for (int i = 0; i < nq; i++) {
    double s = 0.0;
    for (int l = 0; l < nq; l++)
      for (int j = 0; j < nq; j++) s += dM[(l * nq + i) * nq + j] * dq[l] * T->a[j];
    T->rho[i] -= s;
  }
  if (!T->m->coriolis) return; /* the dynamics take c = 0 */
  for (int k = 0; k < nq; k++)
    for (int ij = 0; ij < nq * nq; ij++) {
      double s = 0.0;
      for (int l = 0; l < nq; l++) s += T->d2M[(size_t)(k * nq + l) * nq * nq + ij] * dq[l];
      T->Eq[k * nq * nq + ij] = s;
    }
  for (int i = 0; i < nq; i++) {
    double s = 0.0;
    for (int j = 0; j < nq; j++)
      for (int k = 0; k < nq; k++) {
        double Tq = T->Eq[(k * nq + i) * nq + j] - 0.5 * T->Eq[(i * nq + j) * nq + k];
        double Tv = dM[(k * nq + i) * nq + j] + dM[(j * nq + i) * nq + k] - dM[(i * nq + j) * nq + k];
        s += Tq * v[j] * v[k] + Tv * v[k] * dv[j];
      }
    T->rho[i] -= s;
  }
}

/* rho += (dA.dq)^T lambda; kappa = -(dA.dq) a - d(Adot v)/dv dv (the q-difference is added by the caller) */
static void constraint_terms(nh_tan *T, const double *v, const double *dq, const double *dv) {
  const int nq = T->nq, nc = T->nc;
  const double *dA = T->dA;
  for (int k = 0; k < nc; k++) {
    double ka = 0.0;
    for (int j = 0; j < nq; j++) {
      double dAq = 0.0, dAv = 0.0, dAw = 0.0;
      for (int l = 0; l < nq; l++) {
        dAq += dA[(l * nc + k) * nq + j] * dq[l];
        dAv += dA[(l * nc + k) * nq + j] * v[l];
        dAw += dA[(l * nc + k) * nq + j] * dv[l];
      }
      T->rho[j] += dAq * T->lam[k];
      ka -= dAq * T->a[j] + dAv * dv[j] + dAw * v[j];
    }
    T->kap[k] = ka;
  }
}

static int jvp_mech(nh_tan *T, double t, const double *x, const double *dx, double *jdx) {
  const nh_model *m = T->m;
  const int nq = T->nq, nc = T->nc;
  const double *q = x, *v = x + nq, *dq = dx, *dv = dx + nq;
  int rc;
  T->dyn.nact = T->nact, T->dyn.act = T->act; /* the closed contacts' constrained flow */
  if ((rc = nh_dyn_accel(&T->dyn, t, q, v, T->a, T->lam))) return rc;
  memset(T->rho, 0, sizeof(double) * (size_t)(nq + nc));
  memset(T->kap, 0, sizeof(double) * (size_t)(nc + T->nact > 0 ? nc + T->nact : 1));
  if (!m->mass_constant) {
    if ((rc = nh_model_mass_deriv(m, q, T->dM, T->dwork))) return rc;
    if (m->coriolis && (rc = nh_model_mass_deriv2(m, q, T->d2M, T->dwork))) return rc;
    mass_terms(T, v, dq, dv);
  }
  if (m->potential) {
    if ((rc = nh_model_potential_hess(m, q, T->H, T->dwork))) return rc;
    for (int i = 0; i < nq; i++) T->rho[i] -= nh_la_dot(nq, T->H + i * nq, dq);
  }
  if (m->force) {
    if ((rc = nh_model_force_jac(m, t, q, v, T->dfdq, T->dfdv, T->dwork))) return rc;
    for (int i = 0; i < nq; i++)
      T->rho[i] += nh_la_dot(nq, T->dfdq + i * nq, dq) + nh_la_dot(nq, T->dfdv + i * nq, dv);
  }
  if (nc > 0) {
    if ((rc = nh_model_constraint_deriv(m, q, T->dA, T->dwork))) return rc;
    constraint_terms(T, v, dq, dv);
    if ((rc = fd_dir(T, adotv_of_q, NH_LYAP_FD_STEP_FLOW, nc, q, v, dq, T->t1))) return rc;
    for (int k = 0; k < nc; k++) T->kap[k] -= T->t1[k];
  }
  // the closed contacts: rho += mu_k Hess(g_k) dq, kappa_k = -(Hess(g_k) dq) a - dPhi_k[dq, dv]
  const int na = T->nact;
  if (na > 0) {
    const double *mu = T->dyn.lamc + nc;
    if ((rc = hess_dir(T, q, dq, T->Hd))) return rc;
    for (int k = 0; k < na; k++) {
      nh_la_axpy(nq, mu[k], T->Hd + (size_t)k * nq, T->rho);
      T->kap[nc + k] = -nh_la_dot(nq, T->Hd + (size_t)k * nq, T->a);
    }
    if ((rc = curvature_dir(T, q, v, dq, dv, T->dphi))) return rc;
    for (int k = 0; k < na; k++) T->kap[nc + k] -= T->dphi[k];
  }
  if ((rc = kkt_factor(T, q, v))) return rc;
  memcpy(T->kkt, T->rho, sizeof(double) * (size_t)nq);
  memcpy(T->kkt + nq, T->kap, sizeof(double) * (size_t)(nc + na));
  kkt_solve(T, T->kkt);
  memcpy(jdx, dv, sizeof(double) * (size_t)nq);
  memcpy(jdx + nq, T->kkt, sizeof(double) * (size_t)nq);
  return 0;
}

/* ODE form: J dx by a Richardson-extrapolated central difference of F along dx */
static int jvp_ode(nh_tan *T, double t, const double *x, const double *dx, double *jdx) {
  const int nx = T->nx;
  double s = nh_la_norm_inf(nx, dx);
  if (!(s > 0.0)) {
    memset(jdx, 0, sizeof(double) * (size_t)nx);
    return 0;
  }
  double h = NH_LYAP_FD_STEP_FLOW / s;
  for (int pass = 0; pass < 2; pass++, h *= 0.5) {
    double *out = pass == 0 ? T->d1 : jdx;
    int rc;
    for (int i = 0; i < nx; i++) T->xa[i] = x[i] + h * dx[i];
    if ((rc = nh_dyn_rhs(&T->dyn, t, T->xa, T->fa))) return rc;
    for (int i = 0; i < nx; i++) T->xa[i] = x[i] - h * dx[i];
    if ((rc = nh_dyn_rhs(&T->dyn, t, T->xa, T->fb))) return rc;
    for (int i = 0; i < nx; i++) out[i] = (T->fa[i] - T->fb[i]) / (2.0 * h);
  }
  for (int i = 0; i < nx; i++) jdx[i] = (4.0 * jdx[i] - T->d1[i]) / 3.0;
  return 0;
}

int nh_tan_jvp(nh_tan *T, double t, const double *x, const double *dx, double *jdx) {
  return T->nq > 0 ? jvp_mech(T, t, x, dx, jdx) : jvp_ode(T, t, x, dx, jdx);
}

int nh_tan_rhs(double t, const double *X, double *Xdot, void *user) {
  nh_tan *T = user;
  const int nx = T->nx;
  int rc = nh_tan_jvp(T, t, X, X + nx, Xdot + nx);
  if (rc) return rc;
  if (T->nq > 0) {
    memcpy(Xdot, X + T->nq, sizeof(double) * (size_t)T->nq);
    memcpy(Xdot + T->nq, T->a, sizeof(double) * (size_t)T->nq);
    return 0;
  }
  return nh_dyn_rhs(&T->dyn, t, X, Xdot);
}

/* out = D_x R w at x = (q, v) with v+ = R's velocity: (w_q, dv+/dv w_v + dv+/dq w_q) */
static int impact_dir(nh_tan *T, const double *dgi, const double *x, const double *vplus,
                      const double *w, double *out) {
  const int nq = T->nq;
  const double *q = x, *v = x + nq;
  int rc = fd_dir(T, vplus_of_q, NH_LYAP_FD_STEP, nq, q, v, w, out + nq);
  if (rc) return rc;
  double c = nh_la_dot(nq, dgi, w + nq) / nh_la_dot(nq, dgi, v);
  for (int i = 0; i < nq; i++) out[nq + i] += w[nq + i] - c * (v[i] - vplus[i]);
  memcpy(out, w, sizeof(double) * (size_t)nq);
  return 0;
}

/* the plastic map over the active set at a closing (nh_tan_impact, nh_tan_close_graze) */
static const nh_impact_law close_law = {NH_IMPACT_RESTITUTION, 0.0};

int nh_tan_impact(nh_tan *T, int gap, double t, double vn_tol, int close, double *X, double *gain) {
  const nh_model *m = T->m;
  const int nq = T->nq, nx = T->nx;
  double *x = X, *dx = X + nx;
  int rc;
  *gain = 1.0;
  if (m->gap(x, NULL, T->dg, m->user)) return NH_ERR_CALLBACK;
  const double *dgi = T->dg + (size_t)gap * nq;
  const double s = nh_la_dot(nq, dgi, x + nq);
  if (!(s < -vn_tol)) return NH_NO_IMPACT;
  T->gap = gap;
  T->law_now = close ? &close_law : T->has_law ? &T->law : NULL;
  // x+ = (q, v+) in xb, the vector field on both sides in fa (f-) and fb (f+: with the gap
  // closed when it closes here)
  memcpy(T->xb, x, sizeof(double) * (size_t)nq);
  rc = nh_model_impact(m, gap, x, x + nq, T->law_now, NULL, T->xb + nq, NULL, NULL, T->iwork);
  if (rc != NH_OK && !(close && rc == NH_NOT_REVERSED)) return rc;
  T->dyn.nact = T->nact, T->dyn.act = T->act;
  if ((rc = nh_dyn_rhs(&T->dyn, t, x, T->fa))) return rc < 0 ? rc : NH_ERR_CALLBACK;
  if (close) T->act[T->nact] = gap, T->dyn.nact = T->nact + 1;
  rc = nh_dyn_rhs(&T->dyn, t, T->xb, T->fb);
  T->dyn.nact = T->nact;
  if (rc) return rc < 0 ? rc : NH_ERR_CALLBACK;
  // D_x R dx (t2) and D_x R f- (t3)
  if ((rc = impact_dir(T, dgi, x, T->xb + nq, dx, T->t2))) return rc;
  if ((rc = impact_dir(T, dgi, x, T->xb + nq, T->fa, T->t3))) return rc;
  const double c = nh_la_dot(nq, dgi, dx) / s, n0 = nh_la_norm2(nx, dx);
  for (int i = 0; i < nx; i++) dx[i] = T->t2[i] + (T->fb[i] - T->t3[i]) * c;
  memcpy(x + nq, T->xb + nq, sizeof(double) * (size_t)nq);
  *gain = n0 > 0.0 ? nh_la_norm2(nx, dx) / n0 : 1.0;
  return NH_OK;
}

int nh_tan_close_graze(nh_tan *T, int gap, double *X, double *gain) {
  const int nq = T->nq, nx = T->nx;
  const double *q = X, *v = X + nq;
  double *dq = X + nx, *dv = dq + nq;
  const double n0 = nh_la_norm2(nx, dq);
  int rc;
  T->gap = gap;
  T->law_now = &close_law;
  // P dq, P dv (P(q) w is linear in w: vplus_of_q), then (d(P(q) v)/dq) (P dq)
  if ((rc = vplus_of_q(T, q, dq, T->t1))) return rc;
  memcpy(dq, T->t1, sizeof(double) * (size_t)nq);
  if ((rc = vplus_of_q(T, q, dv, T->t1)) || (rc = fd_dir(T, vplus_of_q, NH_LYAP_FD_STEP, nq, q, v, dq, T->t2))) return rc;
  for (int i = 0; i < nq; i++) dv[i] = T->t1[i] + T->t2[i];
  *gain = n0 > 0.0 ? nh_la_norm2(nx, dq) / n0 : 1.0;
  return NH_OK;
}

int nh_tan_collapsed(nh_tan *T, const double *q) {
  const nh_model *m = T->m;
  const int nq = T->nq, nh = m->holonomic ? T->nc : 0, nr = nh + T->nact;
  int rank = 0;
  if (nq == 0 || nr < nq) return 0;
  // the rows [A (holonomic); D] (nr x nq, nr >= nq) in K, full column rank?
  memset(T->t2, 0, sizeof(double) * (size_t)nq); /* a velocity for the evaluator: A(q) only is asked */
  if (nh > 0 && m->constraint(q, T->t2, T->K, NULL, m->user)) return NH_ERR_CALLBACK;
  if (T->nact > 0 && closed_rows(T, q, T->K + (size_t)nh * nq)) return NH_ERR_CALLBACK;
  nh_la_qr(nr, nq, T->K, T->t1, 0.0, &rank);
  return rank == nq;
}

int nh_tan_admissible(nh_tan *T, const double *x, double *dx) {
  const int nq = T->nq, nc = T->nc;
  if (nq == 0 || nc == 0) return NH_OK;
  const double *q = x, *v = x + nq, *dq = dx;
  double *dv = dx + nq;
  int rc;
  T->nact = 0; /* the model's constraints only */
  if ((rc = nh_model_constraint_deriv(T->m, q, T->dA, T->dwork)) || (rc = kkt_factor(T, q, v))) return rc;
  // r = A dv + (d(A v)/dq) dq; solve [M -A^T; A 0] (y, mu) = (0, r); dv -= y
  memset(T->kkt, 0, sizeof(double) * (size_t)(nq + nc));
  for (int k = 0; k < nc; k++) {
    double r = nh_la_dot(nq, T->A + k * nq, dv);
    for (int l = 0; l < nq; l++)
      for (int j = 0; j < nq; j++) r += T->dA[(l * nc + k) * nq + j] * dq[l] * v[j];
    T->kkt[nq + k] = r;
  }
  kkt_solve(T, T->kkt);
  for (int i = 0; i < nq; i++) dv[i] -= T->kkt[i];
  return NH_OK;
}
