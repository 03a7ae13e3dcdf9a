/* deriv.c - derivatives of a model's evaluators: the model's own (exact) when it provides
 * them, else central finite differences of the evaluator itself.
 *
 *   d y / d q_k ~ (y(q + h_k e_k) - y(q - h_k e_k)) / (2 h_k),   h_k = step * max(1, |q_k|)
 *
 * with step NH_FD_STEP (error O(h^2) ~ 1e-10 relative for smooth evaluators). Second
 * derivatives of M difference the first derivatives with the larger step NH_FD_STEP2, which
 * balances truncation against the round-off of the inner differences. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "la/la.h"
#include "model/model_impl.h"
#include "nholo/model.h"

/* step for differencing first derivatives that may themselves be finite differences */
#define NH_FD_STEP2 1.0e-4

/* a vector function of q; work is the remaining scratch */
typedef int (*vec_fn)(const nh_model *m, const double *q, double *y, double *work);

static int mass_vec(const nh_model *m, const double *q, double *y, double *work) {
  (void)work;
  return nh_cb(m->mass(q, y, m->user));
}
static int grad_vec(const nh_model *m, const double *q, double *y, double *work) {
  (void)work;
  if (!m->potential) {
    memset(y, 0, sizeof(double) * (size_t)m->nq);
    return 0;
  }
  return nh_cb(m->potential(q, NULL, y, m->user));
}
static int constraint_vec(const nh_model *m, const double *q, double *y, double *work) {
  /* the evaluator's velocity input is not read for A alone; pass zeros, never NULL */
  memset(work, 0, sizeof(double) * (size_t)m->nq);
  return nh_cb(m->constraint(q, work, y, NULL, m->user));
}
static int dmass_vec(const nh_model *m, const double *q, double *y, double *work);

/* J[k*nout + o] = d y_o / d q_k by central differences; work: nq + 2 nout + inner */
static int fd_jac(const nh_model *m, vec_fn f, int nout, const double *q, double step, double *J,
                  double *work) {
  const int nq = m->nq;
  double *qk = work, *yp = qk + nq, *ym = yp + nout, *inner = ym + nout;
  memcpy(qk, q, sizeof(double) * (size_t)nq);
  for (int k = 0; k < nq; k++) {
    double h = step * fmax(1.0, fabs(q[k]));
    int rc;
    qk[k] = q[k] + h;
    if ((rc = f(m, qk, yp, inner))) return (int)rc;
    qk[k] = q[k] - h;
    if ((rc = f(m, qk, ym, inner))) return (int)rc;
    qk[k] = q[k];
    double *Jk = J + (size_t)k * nout;
    for (int o = 0; o < nout; o++) Jk[o] = (yp[o] - ym[o]) / (2.0 * h);
  }
  return 0;
}

static int dmass_vec(const nh_model *m, const double *q, double *y, double *work) {
  if (m->mass_deriv) return nh_cb(m->mass_deriv(q, y, m->user));
  return fd_jac(m, mass_vec, m->nq * m->nq, q, NH_FD_STEP, y, work);
}

size_t nh_model_deriv_work_size(const nh_model *m) {
  size_t nq = (size_t)m->nq, nc = (size_t)m->nc;
  size_t big = nq * nq * nq > nc * nq ? nq * nq * nq : nc * nq;
  if (big < nq * nq) big = nq * nq;
  /* outer difference of dM (nq + 2 nq^3) around an inner difference of M (nq + 2 nq^2) */
  size_t n = 2 * nq + 2 * big + 2 * nq * nq + 4 * nq + 8;
  size_t nx = m->poisson ? (size_t)m->nx : 0; /* almost-Poisson: Pi twice, x, g twice */
  return n > 2 * nx * nx + 4 * nx ? n : 2 * nx * nx + 4 * nx + 8;
}

/* run q(work) with caller work, or a temporary block */
typedef int (*query_fn)(const nh_model *m, const double *q, double *out, double *work);

static int with_work(const nh_model *m, const double *q, double *out, double *work, query_fn f) {
  if (!m || !q || !out) return NH_ERR_ARG;
  double *w = work ? work : malloc(sizeof(double) * nh_model_deriv_work_size(m));
  if (!w) return NH_ERR_NOMEM;
  int rc = f(m, q, out, w);
  if (!work) free(w);
  return rc > 0 ? NH_ERR_CALLBACK : rc;
}

static int q_dmass(const nh_model *m, const double *q, double *dM, double *w) {
  return dmass_vec(m, q, dM, w);
}
static int q_dmass2(const nh_model *m, const double *q, double *d2M, double *w) {
  if (m->mass_deriv2) return nh_cb(m->mass_deriv2(q, d2M, m->user));
  /* d2M[(k*nq + l)...] = d/dq_k of dM[l...]: the outer index is k, as fd_jac lays it out */
  const int n3 = m->nq * m->nq * m->nq;
  return fd_jac(m, dmass_vec, n3, q, m->mass_deriv ? NH_FD_STEP : NH_FD_STEP2, d2M, w);
}
static int q_hess(const nh_model *m, const double *q, double *H, double *w) {
  const int nq = m->nq;
  if (m->potential_hess) return nh_cb(m->potential_hess(q, H, m->user));
  int rc = fd_jac(m, grad_vec, nq, q, NH_FD_STEP, H, w);
  if (rc) return rc;
  for (int i = 0; i < nq; i++) /* symmetrise the difference quotient */
    for (int j = 0; j < i; j++) H[i * nq + j] = H[j * nq + i] = 0.5 * (H[i * nq + j] + H[j * nq + i]);
  return 0;
}
static int q_dA(const nh_model *m, const double *q, double *dA, double *w) {
  if (m->nc == 0) return 0;
  if (m->constraint_deriv) return nh_cb(m->constraint_deriv(q, dA, m->user));
  return fd_jac(m, constraint_vec, m->nc * m->nq, q, NH_FD_STEP, dA, w);
}

int nh_model_mass_deriv(const nh_model *m, const double *q, double *dM, double *work) {
  return with_work(m, q, dM, work, q_dmass);
}
int nh_model_mass_deriv2(const nh_model *m, const double *q, double *d2M, double *work) {
  return with_work(m, q, d2M, work, q_dmass2);
}
int nh_model_potential_hess(const nh_model *m, const double *q, double *H, double *work) {
  return with_work(m, q, H, work, q_hess);
}
int nh_model_constraint_deriv(const nh_model *m, const double *q, double *dA, double *work) {
  return with_work(m, q, dA, work, q_dA);
}

/* f Jacobian by differences in q (which = 0) or v (which = 1), output-major (i*nq + j) */
static int fd_force(const nh_model *m, double t, const double *q, const double *v, int which,
                    double *J, double *w) {
  const int nq = m->nq;
  double *z = w, *fp = z + nq, *fm = fp + nq;
  const double *x = which ? v : q;
  memcpy(z, x, sizeof(double) * (size_t)nq);
  for (int j = 0; j < nq; j++) {
    double h = NH_FD_STEP * fmax(1.0, fabs(x[j]));
    int rc;
    z[j] = x[j] + h;
    if ((rc = nh_cb(m->force(t, which ? q : z, which ? z : v, fp, m->user)))) return (int)rc;
    z[j] = x[j] - h;
    if ((rc = nh_cb(m->force(t, which ? q : z, which ? z : v, fm, m->user)))) return (int)rc;
    z[j] = x[j];
    for (int i = 0; i < nq; i++) J[i * nq + j] = (fp[i] - fm[i]) / (2.0 * h);
  }
  return 0;
}

int nh_model_force_jac(const nh_model *m, double t, const double *q, const double *v,
                       double *dfdq, double *dfdv, double *work) {
  if (!m || !q || !v) return NH_ERR_ARG;
  const size_t nn = (size_t)m->nq * (size_t)m->nq;
  if (!m->force) {
    if (dfdq) memset(dfdq, 0, sizeof(double) * nn);
    if (dfdv) memset(dfdv, 0, sizeof(double) * nn);
    return NH_OK;
  }
  if (m->force_jac) {
    int rc = m->force_jac(t, q, v, dfdq, dfdv, m->user);
    return rc == 0 ? NH_OK : NH_ERR_CALLBACK;
  }
  double *w = work ? work : malloc(sizeof(double) * nh_model_deriv_work_size(m));
  if (!w) return NH_ERR_NOMEM;
  int rc = 0;
  if (dfdq) rc = fd_force(m, t, q, v, 0, dfdq, w);
  if (!rc && dfdv) rc = fd_force(m, t, q, v, 1, dfdv, w);
  if (!work) free(w);
  return rc == 0 ? NH_OK : NH_ERR_CALLBACK;
}

/* ---- almost-Poisson form: Hessian of H and d(Pi g)/dx -------------------------------- */

static int px_hess(const nh_model *m, const double *x, double *Hs, double *w) {
  const int n = m->nx;
  if (m->hamiltonian_hess) return nh_cb(m->hamiltonian_hess(x, Hs, m->user));
  double *z = w, *gp = z + n, *gm = gp + n;
  memcpy(z, x, sizeof(double) * (size_t)n);
  for (int k = 0; k < n; k++) {
    double h = NH_FD_STEP * fmax(1.0, fabs(x[k]));
    int rc;
    z[k] = x[k] + h;
    if ((rc = nh_cb(m->hamiltonian(z, NULL, gp, m->user)))) return rc;
    z[k] = x[k] - h;
    if ((rc = nh_cb(m->hamiltonian(z, NULL, gm, m->user)))) return rc;
    z[k] = x[k];
    for (int i = 0; i < n; i++) Hs[i * n + k] = (gp[i] - gm[i]) / (2.0 * h);
  }
  for (int i = 0; i < n; i++) /* symmetrise the difference quotient */
    for (int j = 0; j < i; j++) Hs[i * n + j] = Hs[j * n + i] = 0.5 * (Hs[i * n + j] + Hs[j * n + i]);
  return 0;
}

int nh_model_hamiltonian_hess(const nh_model *m, const double *x, double *Hs, double *work) {
  if (m && !m->poisson) return NH_ERR_UNSUPPORTED;
  return with_work(m, x, Hs, work, px_hess);
}

int nh_model_poisson_jac(const nh_model *m, const double *x, const double *g, double *T,
                         double *work) {
  if (!m || !x || !g || !T) return NH_ERR_ARG;
  if (!m->poisson) return NH_ERR_UNSUPPORTED;
  if (m->poisson_jac) return m->poisson_jac(x, g, T, m->user) == 0 ? NH_OK : NH_ERR_CALLBACK;
  const int n = m->nx;
  double *w = work ? work : malloc(sizeof(double) * nh_model_deriv_work_size(m));
  if (!w) return NH_ERR_NOMEM;
  double *P = w, *z = P + (size_t)n * n, *yp = z + n, *ym = yp + n;
  int rc = 0;
  memcpy(z, x, sizeof(double) * (size_t)n);
  for (int k = 0; k < n && !rc; k++) {
    double h = NH_FD_STEP * fmax(1.0, fabs(x[k]));
    z[k] = x[k] + h;
    if (!(rc = nh_cb(m->poisson(z, P, m->user)))) {
      for (int i = 0; i < n; i++) yp[i] = nh_la_dot(n, P + (size_t)i * n, g);
      z[k] = x[k] - h;
      rc = nh_cb(m->poisson(z, P, m->user));
    }
    for (int i = 0; !rc && i < n; i++) {
      ym[i] = nh_la_dot(n, P + (size_t)i * n, g);
      T[i * n + k] = (yp[i] - ym[i]) / (2.0 * h);
    }
    z[k] = x[k];
  }
  if (!work) free(w);
  return rc ? NH_ERR_CALLBACK : NH_OK;
}
