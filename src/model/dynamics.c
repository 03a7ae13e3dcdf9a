/* dynamics.c - accelerations and multipliers of the Lagrange-d'Alembert equations.
 *
 *   M(q) a = r + A^T lambda,   r = -c(q, v) - dV(q) + f(t, q, v)          (spec 000 sec. 2.2)
 *   A(q) a = -Adot(q, v) v
 *
 * Range-space solution with Cholesky factors:
 *   M = L L^T,  W = M^-1 A^T,  G = A W = A M^-1 A^T,
 *   G lambda = -Adot v - A M^-1 r,   a = M^-1 r + W lambda. */
#include <math.h>
#include <string.h>

#include "la/la.h"
#include "model/dynamics.h"
#include "model/model_impl.h"

size_t nh_dyn_work_size(const nh_model *m) {
  size_t nq = (size_t)m->nq, nc = (size_t)m->nc, np = m->poisson ? (size_t)m->nx : 0;
  return nq * nq + 2 * nc * nq + nc * nc + 2 * nq + nc + np * np + np;
}

void nh_dyn_init(nh_dyn *d, const nh_model *m, double *work) {
  size_t nq = (size_t)m->nq, nc = (size_t)m->nc;
  d->model = m;
  d->nq = m->nq;
  d->nc = m->nc;
  d->M = work;
  d->A = d->M + nq * nq;
  d->W = d->A + nc * nq;
  d->G = d->W + nc * nq;
  d->r = d->G + nc * nc;
  d->tmp = d->r + nq;
  d->tmpc = d->tmp + nq;
  d->Pi = d->tmpc + nc;
  d->g = d->Pi + (m->poisson ? (size_t)m->nx * (size_t)m->nx : 0);
  d->evals = 0;
}

int nh_dyn_accel(nh_dyn *d, double t, const double *q, const double *v, double *a, double *lambda) {
  const nh_model *m = d->model;
  const int nq = d->nq, nc = d->nc;
  int rc;
  d->evals++;

  // r = -c - dV + f
  memset(d->r, 0, sizeof(double) * (size_t)nq);
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

  // factor M = L L^T, a = M^-1 r
  if ((rc = nh_cb(m->mass(q, d->M, m->user)))) return rc;
  if (nh_la_chol(nq, d->M, 0.0, NULL) != 0) return NH_ERR_NOT_SPD;
  memcpy(a, d->r, sizeof(double) * (size_t)nq);
  nh_la_chol_solve(nq, d->M, a);
  if (nc == 0) return NH_OK;

  // W = M^-1 A^T (column k of W stored at W + k nq), G = A W
  if ((rc = nh_cb(m->constraint(q, v, d->A, d->tmpc, m->user)))) return rc;
  for (int k = 0; k < nc; k++) {
    double *w = d->W + (size_t)k * nq;
    memcpy(w, d->A + (size_t)k * nq, sizeof(double) * (size_t)nq);
    nh_la_chol_solve(nq, d->M, w);
  }
  for (int i = 0; i < nc; i++)
    for (int k = 0; k < nc; k++) d->G[i * nc + k] = nh_la_dot(nq, d->A + (size_t)i * nq, d->W + (size_t)k * nq);
  if (nh_la_chol(nc, d->G, 0.0, NULL) != 0) return NH_ERR_SINGULAR;

  // G lambda = -Adot v - A M^-1 r ;  a += W lambda
  double *lam = d->tmpc;
  for (int k = 0; k < nc; k++) lam[k] = -lam[k] - nh_la_dot(nq, d->A + (size_t)k * nq, a);
  nh_la_chol_solve(nc, d->G, lam);
  for (int k = 0; k < nc; k++) nh_la_axpy(nq, lam[k], d->W + (size_t)k * nq, a);
  if (lambda) memcpy(lambda, lam, sizeof(double) * (size_t)nc);
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
  memcpy(xdot, x + nq, sizeof(double) * (size_t)nq);
  return nh_dyn_accel(d, t, x, x + nq, xdot + nq, NULL);
}
