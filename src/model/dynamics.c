/* dynamics.c - accelerations and multipliers of the Lagrange-d'Alembert equations.
 *
 *   M(q) a = r + A^T lambda,   r = -c(q, v) - dV(q) + f(t, q, v)          (spec 000 sec. 2.2)
 *   A(q) a = -Adot(q, v) v
 *
 * Range-space solution with Cholesky factors:
 *   M = L L^T,  W = M^-1 A^T,  G = A W = A M^-1 A^T,
 *   G lambda = -Adot v - A M^-1 r,   a = M^-1 r + W lambda.
 * A constant M (model->mass_constant) is evaluated and factored once per workspace. */
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "la/la.h"
#include "model/dynamics.h"
#include "model/model_impl.h"

/* models with at least this many coordinates and a diagonal constant M solve for the
 * multipliers on the extents of the constraint rows (below it the dense loops, the same bits) */
#define NH_DYN_ENV_MIN 16

/* doubles of the sparse solve: G's values and the factor (0 without it) */
static size_t sparse_size(const nh_model *m) {
  const struct nh_gram *g = m->gram;
  return g && g->chol ? (size_t)g->rows[m->nc] + nh_la_spchol_work_size(g->chol) : 0;
}

size_t nh_dyn_work_size(const nh_model *m) {
  size_t nq = (size_t)m->nq, nc = (size_t)m->nc, np = m->poisson ? (size_t)m->nx : 0;
  size_t ints = (4 * nc * sizeof(int) + sizeof(double) - 1) / sizeof(double); /* the envelope */
  return nq * nq + 2 * nc * nq + nc * nc + 2 * nq + nc + np * np + np + ints + sparse_size(m);
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
  d->elo = (int *)(void *)(d->g + (m->poisson ? (size_t)m->nx : 0));
  d->ehi = d->elo + nc, d->efirst = d->ehi + nc, d->elast = d->efirst + nc;
  const size_t ints = (4 * nc * sizeof(int) + sizeof(double) - 1) / sizeof(double);
  d->gv = sparse_size(m) ? (double *)(void *)d->elo + ints : NULL;
  d->gwork = d->gv ? d->gv + m->gram->rows[m->nc] : NULL;
  d->nosparse = 0;
  d->evals = 0;
  d->mready = d->mdiag = 0;
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

/* the Cholesky factor of M(q) into d->M: evaluated and factored per call, or once for a
 * constant M (kept while mready; a failed evaluation or factorisation is not kept) */
static int mass_factor(nh_dyn *d, const double *q) {
  const nh_model *m = d->model;
  int rc;
  if (d->mready) return NH_OK;
  if ((rc = nh_cb(m->mass(q, d->M, m->user)))) return rc;
  if (nh_la_chol(d->nq, d->M, 0.0, NULL) != 0) return NH_ERR_NOT_SPD;
  if (m->mass_constant) d->mready = 1, d->mdiag = nh_la_lower_zero(d->nq, d->M);
  return NH_OK;
}

/* b <- M^-1 b with the factor in d->M (a diagonal one known once: no scan per solve) */
static void mass_solve(const nh_dyn *d, double *b) {
  if (d->mdiag)
    nh_la_diag_solve(d->nq, d->M, b);
  else
    nh_la_chol_solve(d->nq, d->M, b);
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
 * buffers (a = M^-1 r on entry, M factored in d->M) */
static int accel_contact(nh_dyn *d, const double *q, const double *v, double *a, double *lambda) {
  const nh_model *m = d->model;
  const int nq = d->nq, nc = d->nc, nr = nc + d->nact;
  double *A = d->Ac, *W = d->Wc, *G = d->Gc, *lam = d->lamc;
  int rc;
  if (nc > 0 && (rc = nh_cb(m->constraint(q, v, A, lam, m->user)))) return rc;
  if ((rc = contact_rows(d, q, v, A + (size_t)nc * nq, lam + nc))) return rc;
  for (int k = 0; k < nr; k++) {
    double *w = W + (size_t)k * nq;
    memcpy(w, A + (size_t)k * nq, sizeof(double) * (size_t)nq);
    mass_solve(d, w);
  }
  for (int i = 0; i < nr; i++)
    for (int k = 0; k < nr; k++) G[i * nr + k] = nh_la_dot(nq, A + (size_t)i * nq, W + (size_t)k * nq);
  if (nh_la_chol(nr, G, 0.0, NULL) != 0) return NH_ERR_SINGULAR;
  for (int k = 0; k < nr; k++) lam[k] = -lam[k] - nh_la_dot(nq, A + (size_t)k * nq, a);
  nh_la_chol_solve(nr, G, lam);
  for (int k = 0; k < nr; k++) nh_la_axpy(nq, lam[k], W + (size_t)k * nq, a);
  if (lambda) memcpy(lambda, lam, sizeof(double) * (size_t)nc);
  return NH_OK;
}

/* Per constraint row (A evaluated) the extent [elo, ehi) of its non-zeros and, with a
 * diagonal factor of M in d->M, W_k = M^-1 A_k on it (W_k has the zeros of A_k). */
static void row_extents(nh_dyn *d) {
  const int nq = d->nq, nc = d->nc;
  int *lo = d->elo, *hi = d->ehi;
  const int *rows = d->model->constraint_rows, *cols = d->model->constraint_cols;
  for (int k = 0; k < nc; k++) {
    const double *Ak = d->A + (size_t)k * nq;
    double *w = d->W + (size_t)k * nq;
    int l = 0, h = nq; /* scanned inside the row's pattern, when known: the rest is +0 */
    if (rows && rows[k] < rows[k + 1]) l = cols[rows[k]], h = cols[rows[k + 1] - 1] + 1;
    else if (rows) h = 0;
    while (l < h && Ak[l] == 0.0) l++;
    while (h > l && Ak[h - 1] == 0.0) h--;
    if (l == h) l = h = nq; /* an all-zero row: the empty extent at the end (as the full scan) */
    lo[k] = l, hi[k] = h;
    for (int j = l; j < h; j++) w[j] = Ak[j] / d->M[(size_t)j * nq + j] / d->M[(size_t)j * nq + j];
  }
}

/* G_ik = A_i . W_k over the overlap of the rows' extents (none: +0) */
static double gram_entry(const nh_dyn *d, int i, int k) {
  const int nq = d->nq, l = d->elo[i] > d->elo[k] ? d->elo[i] : d->elo[k];
  const int h = d->ehi[i] < d->ehi[k] ? d->ehi[i] : d->ehi[k];
  const double *Ai = d->A + (size_t)i * nq, *Wk = d->W + (size_t)k * nq;
  double s = 0.0;
  for (int j = l; j < h; j++) s += Ai[j] * Wk[j];
  return s;
}

/* lam = -Adot v - A a on the extents (-Adot v in d->tmpc on entry, lam there on return) */
static double *extent_rhs(nh_dyn *d, const double *a) {
  double *lam = d->tmpc;
  for (int k = 0; k < d->nc; k++) {
    const double *Ak = d->A + (size_t)k * d->nq;
    double s = 0.0;
    for (int j = d->elo[k]; j < d->ehi[k]; j++) s += Ak[j] * a[j];
    lam[k] = -lam[k] - s;
  }
  return lam;
}

/* a += W lam on the extents; lambda (Nullable) <- lam */
static void extent_update(const nh_dyn *d, const double *lam, double *a, double *lambda) {
  for (int k = 0; k < d->nc; k++) {
    const double *Wk = d->W + (size_t)k * d->nq;
    for (int j = d->elo[k]; j < d->ehi[k]; j++) a[j] += lam[k] * Wk[j];
  }
  if (lambda) memcpy(lambda, lam, sizeof(double) * (size_t)d->nc);
}

/* The multipliers on the extents of the constraint rows, after A (and -Adot v in tmpc) are
 * evaluated, with a diagonal factor of M in d->M: W_k = M^-1 A_k has the zeros of A_k, G_ik
 * is a dot over the overlap of rows i and k (none: 0), G is factored on its envelope. Every
 * skipped term is a product with a zero, so a, lambda are nh_dyn_accel's dense bits. */
static int accel_env(nh_dyn *d, double *a, double *lambda) {
  const int nc = d->nc;
  int *lo = d->elo, *hi = d->ehi, *first = d->efirst;
  row_extents(d);
  int sorted = 1; /* rows in ascending order of extent (empty ones last)? */
  for (int k = 1; k < nc && sorted; k++) sorted = lo[k] >= lo[k - 1];
  for (int i = 0, p = 0; i < nc; i++) {
    double *Gi = d->G + (size_t)i * nc;
    first[i] = i; /* the first row k < i whose extent overlaps row i's */
    if (sorted) { /* then k overlaps i when hi_k > lo_i, and the first such k never decreases */
      while (p < i && hi[p] <= lo[i]) p++;
      if (p < i && lo[i] < hi[i]) first[i] = p;
    }
    for (int k = 0; !sorted && k < i && first[i] == i; k++)
      if (lo[k] < hi[i] && lo[i] < hi[k]) first[i] = k;
    for (int k = first[i]; k <= i; k++) Gi[k] = gram_entry(d, i, k);
  }
  if (nh_la_chol_env(nc, d->G, first, d->elast, 0.0, NULL) != 0) return NH_ERR_SINGULAR;
  double *lam = extent_rhs(d, a);
  nh_la_chol_env_solve(nc, d->G, first, d->elast, lam);
  extent_update(d, lam, a, lambda);
  return NH_OK;
}

/* A_i . W_k over the columns rows i and k share in A's pattern (sorted lists merged) */
static double gram_entry_pattern(const nh_dyn *d, const int *rows, const int *cols, int i, int k) {
  const double *Ai = d->A + (size_t)i * d->nq, *Wk = d->W + (size_t)k * d->nq;
  double s = 0.0;
  for (int p = rows[i], r = rows[k]; p < rows[i + 1] && r < rows[k + 1];) {
    if (cols[p] < cols[r]) p++;
    else if (cols[p] > cols[r]) r++;
    else s += Ai[cols[p]] * Wk[cols[p]], p++, r++;
  }
  return s;
}

/* The multipliers with G's entries on its pattern (model->gram: the rows sharing a column of
 * A's pattern) and its sparse Cholesky factor in the analysed fill-reducing order; every loop
 * over A's pattern (a diagonal factor of M in d->M), so the work is O(entries of A and of L)
 * however far apart a row's columns are. The dense solve's values to rounding (the
 * elimination order differs). */
static int accel_sparse(nh_dyn *d, double *a, double *lambda) {
  const struct nh_gram *g = d->model->gram;
  const int nq = d->nq, nc = d->nc, *rows = d->model->constraint_rows, *cols = d->model->constraint_cols;
  const double *L = d->M;
  for (int k = 0; k < nc; k++) { /* W_k = M^-1 A_k on the pattern */
    const double *Ak = d->A + (size_t)k * nq;
    double *w = d->W + (size_t)k * nq;
    for (int e = rows[k]; e < rows[k + 1]; e++) {
      const int j = cols[e];
      w[j] = Ak[j] / L[(size_t)j * nq + j] / L[(size_t)j * nq + j];
    }
  }
  for (int i = 0; i < nc; i++)
    for (int e = g->rows[i]; e < g->rows[i + 1]; e++) d->gv[e] = gram_entry_pattern(d, rows, cols, i, g->cols[e]);
  if (nh_la_spchol_factor(g->chol, d->gv, 0.0, NULL, d->gwork) != NH_OK) return NH_ERR_SINGULAR;
  double *lam = d->tmpc; /* -Adot v - A a, then G^-1 of it */
  for (int k = 0; k < nc; k++) {
    const double *Ak = d->A + (size_t)k * nq;
    double s = 0.0;
    for (int e = rows[k]; e < rows[k + 1]; e++) s += Ak[cols[e]] * a[cols[e]];
    lam[k] = -lam[k] - s;
  }
  nh_la_spchol_solve(g->chol, d->gwork, lam);
  for (int k = 0; k < nc; k++) { /* a += W lam */
    const double *Wk = d->W + (size_t)k * nq;
    for (int e = rows[k]; e < rows[k + 1]; e++) a[cols[e]] += lam[k] * Wk[cols[e]];
  }
  if (lambda) memcpy(lambda, lam, sizeof(double) * (size_t)nc);
  return NH_OK;
}

/* The dense solve of nh_dyn_accel for one constraint row and a diagonal factor of M (the
 * sleigh, the knife edge): the same operations, with the 1 x 1 factor and solve inline.
 * zero_a: a = M^-1 r is +0 and left unwritten (then A a = +0, and a_j = 0.0 + lam W_j) */
static int accel_one(nh_dyn *d, double *a, double *lambda, int zero_a) {
  const int nq = d->nq;
  const double *A = d->A, *L = d->M;
  double *W = d->W;
  for (int j = 0; j < nq; j++) W[j] = A[j] / L[(size_t)j * nq + j] / L[(size_t)j * nq + j]; /* diag solve */
  d->G[0] = nh_la_dot(nq, A, W);
  if (nh_la_chol_inline(1, d->G, 0.0, NULL) != 0) return NH_ERR_SINGULAR;
  double lam = -d->tmpc[0] - (zero_a ? 0.0 : nh_la_dot(nq, A, a));
  nh_la_chol_solve_inline(1, d->G, &lam);
  if (zero_a)
    for (int j = 0; j < nq; j++) a[j] = 0.0 + lam * W[j];
  else
    nh_la_axpy(nq, lam, W, a);
  d->tmpc[0] = lam;
  if (lambda) lambda[0] = lam;
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
  if ((rc = mass_factor(d, q))) return rc;
  const int env = d->mdiag && nq >= NH_DYN_ENV_MIN && !d->dense;
  const int one = nc == 1 && d->nact == 0 && d->mdiag && !env; /* accel_one below */
  if (unforced) {
    if (!one) memset(a, 0, sizeof(double) * (size_t)nq);
  } else {
    memcpy(a, d->r, sizeof(double) * (size_t)nq);
    mass_solve(d, a);
  }
  if (d->nact > 0) return accel_contact(d, q, v, a, lambda); /* closed contacts: the stacked rows */
  if (nc == 0) return NH_OK;

  // W = M^-1 A^T (column k of W stored at W + k nq), G = A W
  if (env && m->constraint_sparse && !d->aclean) { /* zero A once for the sparse fill */
    memset(d->A, 0, sizeof(double) * (size_t)nc * (size_t)nq);
    d->aclean = 1;
  }
  if (env && m->constraint_sparse) rc = nh_cb(m->constraint_sparse(q, v, d->A, d->tmpc, m->user));
  else rc = nh_cb(m->constraint(q, v, d->A, d->tmpc, m->user));
  if (rc) return rc;
  if (env && d->gv && !d->nosparse) return accel_sparse(d, a, lambda);
  if (env) return accel_env(d, a, lambda);
  if (one) return accel_one(d, a, lambda, unforced);
  for (int k = 0; k < nc; k++) {
    double *w = d->W + (size_t)k * nq;
    memcpy(w, d->A + (size_t)k * nq, sizeof(double) * (size_t)nq);
    mass_solve(d, w);
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
