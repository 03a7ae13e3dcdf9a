/* dynamics.c - accelerations and multipliers of the Lagrange-d'Alembert equations.
 *
 *   M(q) a = r + A^T lambda,   r = -c(q, v) - dV(q) + f(t, q, v)          (spec 000 sec. 2.2)
 *   A(q) a = -Adot(q, v) v
 *
 * Range-space solution with Cholesky factors:
 *   M = L L^T,  W = M^-1 A^T,  G = A W = A M^-1 A^T,
 *   G lambda = -Adot v - A M^-1 r,   a = M^-1 r + W lambda.
 * The factors are the constrained metric's (model/metric.h): a constant M
 * (model->mass_constant) is evaluated and factored once per workspace; the multiplier solve
 * is dense, on the rows' extents or sparse, as the metric chooses from the model's structure. */
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "la/la.h"
#include "model/dynamics.h"
#include "model/model_impl.h"

size_t nh_dyn_work_size(const nh_model *m) {
  size_t nq = (size_t)m->nq, nc = (size_t)m->nc, np = m->poisson ? (size_t)m->nx : 0;
  return nh_metric_size(m->nq) + nc * nq + 2 * nq + nc + np * np + np + nh_metric_gram_size(m);
}

void nh_dyn_init(nh_dyn *d, const nh_model *m, double *work) {
  size_t nq = (size_t)m->nq, nc = (size_t)m->nc;
  d->model = m;
  d->nq = m->nq;
  d->nc = m->nc;
  nh_metric_init(&d->mt, m->nq, m->mass_constant, work, work + (size_t)m->nq * (size_t)m->nq);
  d->A = work + nh_metric_size(m->nq);
  d->r = d->A + nc * nq;
  d->tmp = d->r + nq;
  d->tmpc = d->tmp + nq;
  d->Pi = d->tmpc + nc;
  d->g = d->Pi + (m->poisson ? (size_t)m->nx * (size_t)m->nx : 0);
  nh_metric_gram_init(&d->gram, m, d->g + (m->poisson ? (size_t)m->nx : 0));
  d->nosparse = 0;
  d->evals = 0;
  d->aclean = 0;
  d->dense = 0;
  d->nact = 0;
  d->act = NULL;
  d->Ac = d->Wc = d->Gc = d->lamc = d->cdg = d->cq = NULL;
}

size_t nh_dyn_contact_work_size(const nh_model *m) {
  if (m->ngap == 0 || m->form != NH_FORM_MECHANICAL) return 0;
  size_t nq = (size_t)m->nq, nr = (size_t)m->nc + (size_t)m->ngap, ng = (size_t)m->ngap;
  return 2 * nr * nq + nr * nr + nr + ng * nq + nq;
}

void nh_dyn_contact_init(nh_dyn *d, double *work) {
  const nh_model *m = d->model;
  size_t nq = (size_t)m->nq, nr = (size_t)m->nc + (size_t)m->ngap, ng = (size_t)m->ngap;
  d->Ac = work;
  d->Wc = d->Ac + nr * nq;
  d->Gc = d->Wc + nr * nq;
  d->lamc = d->Gc + nr * nr;
  d->cdg = d->lamc + nr;
  d->cq = d->cdg + ng * nq;
}

/* relative step of the central difference of dg along v (cube root of the machine epsilon:
 * truncation O(eps^2) against rounding O(1/eps) balance) */
#define NH_CONTACT_FD_REL 6.0554544523933395e-06

/* the contact rows: dg_i of the closed gaps into A (nact x nq) and b_i = (d/dt dg_i) v, by
 * (dg_i(q + eps v) - dg_i(q - eps v)) v / (2 eps), eps = NH_CONTACT_FD_REL max(1, |q|) / |v| */
static int contact_rows(nh_dyn *d, const double *q, const double *v, double *A, double *b) {
  const nh_model *m = d->model;
  const int nq = d->nq;
  int rc;
  if ((rc = nh_cb(m->gap(q, NULL, d->cdg, m->user)))) return rc;
  for (int k = 0; k < d->nact; k++) memcpy(A + (size_t)k * nq, d->cdg + (size_t)d->act[k] * nq, sizeof(double) * (size_t)nq);
  double qn = 1.0, vn = 0.0;
  for (int j = 0; j < nq; j++) qn = fmax(qn, fabs(q[j])), vn = fmax(vn, fabs(v[j]));
  for (int k = 0; k < d->nact; k++) b[k] = 0.0;
  if (vn == 0.0) return 0;
  const double eps = NH_CONTACT_FD_REL * qn / vn;
  for (int side = 1; side >= -1; side -= 2) {
    for (int j = 0; j < nq; j++) d->cq[j] = q[j] + side * eps * v[j];
    if ((rc = nh_cb(m->gap(d->cq, NULL, d->cdg, m->user)))) return rc;
    for (int k = 0; k < d->nact; k++) b[k] += side * nh_la_dot(nq, d->cdg + (size_t)d->act[k] * nq, v);
  }
  for (int k = 0; k < d->nact; k++) b[k] /= 2.0 * eps;
  return 0;
}

/* the multiplier solve with the closed contacts' rows after the constraints, in the contact
 * buffers (a = M^-1 r on entry, M factored) */
static int accel_contact(nh_dyn *d, const double *q, const double *v, double *a, double *lambda) {
  const nh_model *m = d->model;
  const int nq = d->nq, nc = d->nc, nr = nc + d->nact;
  double *A = d->Ac, *W = d->Wc, *G = d->Gc, *lam = d->lamc;
  int rc;
  if (nc > 0 && (rc = nh_cb(m->constraint(q, v, A, lam, m->user)))) return rc;
  if ((rc = contact_rows(d, q, v, A + (size_t)nc * nq, lam + nc))) return rc;
  if (nh_metric_rows(&d->mt, nr, A, W, G) != NH_OK) return NH_ERR_SINGULAR;
  for (int k = 0; k < nr; k++) lam[k] = -lam[k] - nh_la_dot(nq, A + (size_t)k * nq, a);
  nh_la_chol_solve(nr, G, lam);
  for (int k = 0; k < nr; k++) nh_la_axpy(nq, lam[k], W + (size_t)k * nq, a);
  if (lambda) memcpy(lambda, lam, sizeof(double) * (size_t)nc);
  return NH_OK;
}

int nh_dyn_accel(nh_dyn *d, double t, const double *q, const double *v, double *a, double *lambda) {
  const nh_model *m = d->model;
  const int nq = d->nq, nc = d->nc;
  int rc;
  d->evals++;

  // r = -c - dV + f (none of them: r = +0, and so is M^-1 r: 0 / L_jj and the sweeps keep +0)
  const int unforced = !m->coriolis && !m->potential && !m->force;
  if (!unforced) memset(d->r, 0, sizeof(double) * (size_t)nq);
  if (m->coriolis) {
    if ((rc = nh_cb(m->coriolis(q, v, d->tmp, m->user)))) return rc;
    nh_la_axpy(nq, -1.0, d->tmp, d->r);
  }
  if (m->potential) {
    if ((rc = nh_cb(m->potential(q, NULL, d->tmp, m->user)))) return rc;
    nh_la_axpy(nq, -1.0, d->tmp, d->r);
  }
  if (m->force) {
    if ((rc = nh_cb(m->force(t, q, v, d->tmp, m->user)))) return rc;
    nh_la_axpy(nq, 1.0, d->tmp, d->r);
  }

  // factor M = L L^T (once for a constant M), a = M^-1 r
  if ((rc = nh_metric_eval(&d->mt, m, q))) return rc;
  const int azero = unforced && nc > 0 && d->nact == 0; /* a = +0: the multiplier solve writes it */
  if (unforced && !azero) {
    memset(a, 0, sizeof(double) * (size_t)nq);
  } else if (!unforced) {
    memcpy(a, d->r, sizeof(double) * (size_t)nq);
    nh_metric_solve(&d->mt, a);
  }
  if (d->nact > 0) return accel_contact(d, q, v, a, lambda); /* closed contacts: the stacked rows */
  if (nc == 0) return NH_OK;

  // A and b = Adot v (A zeroed once for the sparse fill); G lambda = -b - A a, a += W lambda
  const nh_gram_kind kind = nh_metric_gram_kind(&d->gram, &d->mt, d->dense, d->nosparse);
  const int fill = kind != NH_GRAM_DENSE && m->constraint_sparse;
  if (fill && !d->aclean) {
    memset(d->A, 0, sizeof(double) * (size_t)nc * (size_t)nq);
    d->aclean = 1;
  }
  if (fill) rc = nh_cb(m->constraint_sparse(q, v, d->A, d->tmpc, m->user));
  else rc = nh_cb(m->constraint(q, v, d->A, d->tmpc, m->user));
  if (rc) return rc;
  if ((rc = nh_metric_gram_solve(&d->gram, &d->mt, kind, d->A, d->tmpc, a, azero))) return rc;
  if (lambda) memcpy(lambda, d->tmpc, sizeof(double) * (size_t)nc);
  return NH_OK;
}

int nh_dyn_rhs(nh_dyn *d, double t, const double *x, double *xdot) {
  const nh_model *m = d->model;
  if (m->form == NH_FORM_ODE) {
    d->evals++;
    if (!m->poisson) return nh_cb(m->rhs(t, x, xdot, m->user));
    // almost-Poisson form: x' = Pi(x) grad H(x)
    int rc;
    if ((rc = nh_cb(m->hamiltonian(x, NULL, d->g, m->user))) || (rc = nh_cb(m->poisson(x, d->Pi, m->user))))
      return rc;
    nh_la_gemv(m->nx, m->nx, d->Pi, d->g, xdot);
    return 0;
  }
  const int nq = d->nq;
  for (int i = 0; i < nq; i++) xdot[i] = x[nq + i]; /* q' = v (a loop: cheaper than a call for small nq) */
  return nh_dyn_accel(d, t, x, x + nq, xdot + nq, NULL);
}

/* ---- public: accelerations and multipliers at one state (nholo/model.h) ---- */

size_t nh_model_accel_work_size(const nh_model *model) {
  return model && model->form == NH_FORM_MECHANICAL ? nh_dyn_work_size(model) + (size_t)model->nq : 0;
}

int nh_model_accel(const nh_model *model, double t, const double *q, const double *v, double *a,
                   double *lambda, double *work) {
  if (!model || model->form != NH_FORM_MECHANICAL || !q || !v) return NH_ERR_ARG;
  const size_t size = nh_model_accel_work_size(model);
  double *buf = work ? work : malloc(sizeof(double) * size);
  if (!buf) return NH_ERR_NOMEM;
  nh_dyn d;
  nh_dyn_init(&d, model, buf);
  double *acc = a ? a : buf + nh_dyn_work_size(model); /* a is Nullable: the scratch's tail */
  int rc = nh_dyn_accel(&d, t, q, v, acc, lambda);
  if (!work) free(buf);
  return rc < 0 ? rc : rc > 0 ? NH_ERR_CALLBACK : NH_OK;
}
