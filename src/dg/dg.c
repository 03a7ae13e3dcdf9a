/* dg.c - discrete gradients and the discrete-gradient step (see dg.h).
 *
 * Celledoni, Farre Puiggali, Hoiseth, Martin de Diego, "Energy-Preserving Integrators
 * Applied to Nonholonomic Systems"; spec 002 M1-M2. With d = x' - x, xbar = (x + x')/2:
 *
 *   (10a) G . (x' - x) = H(x') - H(x)        (10b) G(x, x) = grad H(x)
 *   (11)  AVF:      G = int_0^1 grad H(x + xi d) dxi      (Gauss-Legendre, exact for polynomial H)
 *   (12)  Gonzalez: G = grad H(xbar) + [H(x') - H(x) - grad H(xbar) . d] / |d|^2 d
 *   (13)  Itoh-Abe: G_i = [H(y_i) - H(y_{i-1})] / d_i,  y_i = (x'_1..x'_i, x_{i+1}..x_N)
 *   (14)  (x' - x) / h = Pi(xbar) G(x, x')
 *
 * Newton on R(x') = x' - x - h Pi(xbar) G(x, x') with the exact Jacobian
 *   dR/dx' = I - h [ 1/2 T(xbar, G) + Pi(xbar) dG/dx' ],   T_ik = sum_j dPi_ij/dx_k G_j,
 *   AVF:      dG/dx' = int_0^1 xi Hess H(x + xi d) dxi
 *   Gonzalez: dG/dx' = 1/2 Hess H(xbar) + c I + d (dc/dx')^T,  c = [H(x') - H(x) - g.d] / |d|^2,
 *             dc/dx' = [ (grad H(x') - g - 1/2 Hess H(xbar) d) - 2 c d ] / |d|^2,  g = grad H(xbar)
 *   Itoh-Abe: dG_i/dx'_j = [dH/dx_j(y_i) - dH/dx_j(y_{i-1})] / d_i (j < i),
 *             dG_i/dx'_i = [dH/dx_i(y_i) - G_i] / d_i,   0 (j > i)
 *             (for |d_i| <= NH_DG_IA_DELTA (1 + |x_i|) the quotient loses digits to
 *             cancellation, eps |H| / |d_i|, and Newton cannot converge; there G_i is the
 *             same mean value computed as int_0^1 dH/dx_i(y_{i-1} + xi d_i e_i) dxi by 4-point
 *             Gauss-Legendre, error O(d_i^8), with the Jacobian of the Hessian at y_{i-1})
 * or, for systems without derivatives, a forward-difference Jacobian formed once per step. */
#include "dg/dg.h"

#include <math.h>
#include <string.h>

#include "dg/gl_table.h"
#include "la/la.h"
#include "nholo/status.h"

/* the first node of the Gauss-Legendre rule with K nodes (K a power of two <= 32) */
static int gl_first(int K) { return K - 1; }

/* workspace of nh_dg_grad: Hs (n x n), Y ((n+2) x n), Hy (n+1), y, xb, d, Gp (n) */
static size_t grad_work(int n) { return (size_t)n * n + (size_t)(n + 2) * n + (size_t)(n + 1) + 4 * (size_t)n; }


/* callback status: positive passes through, anything negative becomes NH_ERR_CALLBACK */
static int cb(int rc) { return rc > 0 ? rc : (rc < 0 ? NH_ERR_CALLBACK : 0); }

/* AVF with the K-node rule: G, and dG (Nullable) += ... */
static int avf_rule(const nh_dg_sys *s, int K, const double *x, const double *d, double *G,
                    double *dG, double *Hs, double *y, double *g) {
  const int n = s->n;
  int rc;
  for (int i = 0; i < n; i++) G[i] = 0.0;
  if (dG)
    for (int i = 0; i < n * n; i++) dG[i] = 0.0;
  for (int k = 0; k < K; k++) {
    double xi = gl_x[gl_first(K) + k], wk = gl_w[gl_first(K) + k];
    for (int i = 0; i < n; i++) y[i] = x[i] + xi * d[i];
    if ((rc = cb(s->eval(y, NULL, g, NULL, s->user)))) return rc;
    nh_la_axpy(n, wk, g, G);
    if (dG) {
      if ((rc = cb(s->hess(y, Hs, s->user)))) return rc;
      nh_la_axpy(n * n, wk * xi, Hs, dG);
    }
  }
  return 0;
}

static int dg_avf(const nh_dg_sys *s, const double *x, const double *x1, double *G, double *dG,
                  int *nodes, double *w) {
  const int n = s->n;
  double *Hs = w, *y = Hs + (size_t)n * n, *d = y + n, *Gp = d + n, *g = Gp + n;
  for (int i = 0; i < n; i++) d[i] = x1[i] - x[i];
  int rc, K;
  if (s->degree > 0) {
    // smallest rule exact for grad H of degree p - 1 along the segment: 2K - 1 >= p - 1
    K = 1;
    while (2 * K < s->degree && K < 32) K *= 2;
    if ((rc = avf_rule(s, K, x, d, G, dG, Hs, y, g))) return rc;
  } else {
    // doubling until two rules agree
    K = 8;
    if ((rc = avf_rule(s, K, x, d, Gp, NULL, Hs, y, g))) return rc;
    for (;;) {
      K *= 2;
      if ((rc = avf_rule(s, K, x, d, G, NULL, Hs, y, g))) return rc;
      double diff = 0.0, scale = nh_la_norm_inf(n, G);
      for (int i = 0; i < n; i++) diff = fmax(diff, fabs(G[i] - Gp[i]));
      if (diff <= NH_DG_AVF_TOL * scale || K == 32) break;
      nh_la_copy(n, G, Gp);
    }
    // the Jacobian (for Newton only) from the 8-node rule
    if (dG && (rc = avf_rule(s, 8, x, d, Gp, dG, Hs, y, g))) return rc;
  }
  if (nodes) *nodes = K;
  return 0;
}

/* Gonzalez (12); H0 (Nullable) caches H(x) across calls with the same x; Pi (Nullable)
 * receives Pi(xbar) from the same evaluation as grad H(xbar) */
static int dg_gonzalez(const nh_dg_sys *s, const double *x, const double *x1, double *G,
                       double *dG, double *H0, double *H1out, double *Pi, double *w) {
  const int n = s->n;
  double *Hs = w, *xb = Hs + (size_t)n * n, *d = xb + n, *g1 = d + n;
  double h0, H1;
  int rc;
  for (int i = 0; i < n; i++) xb[i] = 0.5 * (x[i] + x1[i]), d[i] = x1[i] - x[i];
  if ((rc = cb(s->eval(xb, NULL, G, Pi, s->user)))) return rc;
  double dd = nh_la_dot(n, d, d);
  if (dG && (rc = cb(s->hess(xb, Hs, s->user)))) return rc;
  if (H0 && !isnan(*H0)) {
    h0 = *H0;
  } else {
    if ((rc = cb(s->eval(x, &h0, NULL, NULL, s->user)))) return rc;
    if (H0) *H0 = h0;
  }
  H1 = h0;
  if (dd > 0.0 && (rc = cb(s->eval(x1, &H1, dG ? g1 : NULL, NULL, s->user)))) return rc;
  if (H1out) *H1out = H1;
  // numerator H(x') - H(x) - g.d = O(|d|^3), and its rounding noise
  double num = 0.0, noise = 0.0;
  if (dd > 0.0) {
    double gd = 0.0, agd = 0.0;
    for (int i = 0; i < n; i++) gd += G[i] * d[i], agd += fabs(G[i] * d[i]);
    num = H1 - h0 - gd;
    noise = NH_DG_GZ_NOISE * 2.220446049250313e-16 * (fabs(H1) + fabs(h0) + agd);
  }
  if (fabs(num) <= noise) {
    // coincident points, or a correction below its own rounding noise (near equilibria, or
    // large coordinates): G = grad H(xbar), dG = 1/2 Hess; (10a) then holds to that noise
    // (a NaN H(x') is neither: it goes on into G, and the solve ends, nh_newton)
    if (dG)
      for (int i = 0; i < n * n; i++) dG[i] = 0.5 * Hs[i];
    return 0;
  }
  double c = num / dd;
  if (dG) {
    // dc/dx' into g1: (grad H(x') - g - 1/2 Hs d - 2 c d) / |d|^2 (times 1/|d|^2: the
    // Jacobian only steers Newton, its rounding does not reach the solution)
    const double rdd = 1.0 / dd;
    for (int i = 0; i < n; i++) {
      double hd = 0.5 * nh_la_dot(n, Hs + (size_t)i * n, d);
      g1[i] = (g1[i] - G[i] - hd - 2.0 * c * d[i]) * rdd;
    }
    for (int i = 0; i < n; i++) {
      double *dGi = dG + (size_t)i * n, di = d[i];
      const double *Hsi = Hs + (size_t)i * n;
      nh_la_axpby_nr(n, 0.5, Hsi, di, g1, dGi);
      dGi[i] += c;
    }
  }
  nh_la_axpy(n, c, d, G);
  return 0;
}

static int dg_itoh_abe(const nh_dg_sys *s, const double *x, const double *x1, double *G,
                       double *dG, double *w) {
  const int n = s->n;
  double *Hs = w, *Y = Hs + (size_t)n * n, *g = Y + (size_t)(n + 1) * n, *Hy = g + n, *y = Hy + n + 1;
  int rc;
  // H and grad H at y_0 = x, y_1, ..., y_n = x'
  nh_la_copy(n, x, y);
  for (int i = 0; i <= n; i++) {
    if (i > 0) y[i - 1] = x1[i - 1];
    if ((rc = cb(s->eval(y, Hy + i, dG ? Y + (size_t)i * n : NULL, NULL, s->user)))) return rc;
  }
  if (dG)
    for (int i = 0; i < n * n; i++) dG[i] = 0.0;
  nh_la_copy(n, x, y);
  for (int i = 0; i < n; i++) {
    double di = x1[i] - x[i];
    if (fabs(di) > NH_DG_IA_DELTA * (1.0 + fabs(x[i]))) {
      G[i] = (Hy[i + 1] - Hy[i]) / di;
      if (dG) {
        for (int j = 0; j < i; j++) dG[(size_t)i * n + j] = (Y[(size_t)(i + 1) * n + j] - Y[(size_t)i * n + j]) / di;
        dG[(size_t)i * n + i] = (Y[(size_t)(i + 1) * n + i] - G[i]) / di;
      }
    } else {
      // short increment: the same mean value as an integral of dH/dx_i along the segment
      // (Gauss-Legendre, 4 nodes, error O(d_i^8)), free of the cancellation of the quotient
      double yi = y[i];
      G[i] = 0.0;
      for (int k = 0; k < 4; k++) {
        y[i] = yi + gl_x[gl_first(4) + k] * di;
        if ((rc = cb(s->eval(y, NULL, g, NULL, s->user)))) return rc;
        G[i] += gl_w[gl_first(4) + k] * g[i];
      }
      y[i] = yi;
      if (dG && s->hess) {
        if ((rc = cb(s->hess(y, Hs, s->user)))) return rc;
        for (int j = 0; j < i; j++) dG[(size_t)i * n + j] = Hs[(size_t)i * n + j];
        dG[(size_t)i * n + i] = 0.5 * Hs[(size_t)i * n + i];
      }
    }
    y[i] = x1[i];
  }
  return 0;
}

int nh_dg_grad(const nh_dg_sys *s, nh_dg_kind kind, const double *x, const double *x1, double *G,
               double *dG, int *nodes, double *work) {
  if (nodes) *nodes = 0;
  if (dG && !s->hess) return NH_ERR_UNSUPPORTED;
  switch (kind) {
  case NH_DG_AVF: return dg_avf(s, x, x1, G, dG, nodes, work);
  case NH_DG_GONZALEZ: return dg_gonzalez(s, x, x1, G, dG, NULL, NULL, NULL, work);
  case NH_DG_ITOH_ABE: return dg_itoh_abe(s, x, x1, G, dG, work);
  }
  return NH_ERR_ARG;
}

/* ---- Newton ------------------------------------------------------------------------ */

size_t nh_newton_work_size(int n) { return (size_t)n * n + 5 * (size_t)n + 8; }

int nh_newton(int n, nh_newton_fn F, void *user, int exact, double refresh_ratio, double *z,
              nh_dg_newton *st, double *work, int *jac_kept) {
  double *J = work, *R = J + (size_t)n * n, *Rs = R + n, *dx = Rs + n;
  int *piv = (int *)(dx + n); /* n ints in 2 n doubles */
  double *rinv = dx + 2 * (size_t)n; /* 1 / U_ii, after piv */
  int rc;
  st->iters = 0;
  st->residual = 0.0;
  // factors of an earlier solve (jac_kept) are reused until they contract poorly
  int need = !jac_kept || !*jac_kept, fresh = 0, same = 0; /* same: factors of the last update */
  if (jac_kept) *jac_kept = 0;
  if ((rc = F(z, R, exact && need ? J : NULL, user))) return rc;
  int have_exact = exact && need; /* J holds the exact Jacobian at z, not yet factored */
  double dx_prev = INFINITY, dx_prev_keep = INFINITY, dx_min = INFINITY; /* dx_min: with these factors */
  for (;;) {
    if (nh_la_norm_inf(n, R) == 0.0) break;
    if (st->iters >= NH_DG_MAXIT) {
      st->residual = nh_la_norm_inf(n, R);
      return NH_ERR_NO_CONVERGENCE;
    }
    // a new Jacobian at the current iterate: exact from F, or forward differences
    if (need) {
      if (exact && !have_exact && (rc = F(z, R, J, user))) return rc;
      for (int j = 0; !exact && j < n; j++) {
        double zj = z[j], dj = 1.4901161193847656e-08 * fmax(1.0, fabs(zj)); /* sqrt(eps) */
        z[j] = zj + dj;
        dj = z[j] - zj;
        rc = F(z, Rs, NULL, user);
        z[j] = zj;
        if (rc) return rc;
        for (int i = 0; i < n; i++) J[(size_t)i * n + j] = (Rs[i] - R[i]) / dj;
      }
      if (nh_la_lu_recip(n, J, piv, 0.0, rinv)) return NH_ERR_SINGULAR;
      need = 0, fresh = 1, same = 0, dx_min = INFINITY;
    }
    have_exact = 0;
    for (int i = 0; i < n; i++) dx[i] = -R[i];
    nh_la_lu_solve_rev(n, J, piv, rinv, dx);
    int small = 1;
    double dxn = 0.0, zn = 0.0;
    for (int i = 0; i < n; i++) {
      z[i] += dx[i];
      double a = fabs(dx[i]), b = fabs(z[i]); /* max by comparison: no libm call */
      if (!(a <= NH_DG_NEWTON_TOL * (1.0 + b))) small = 0; /* a NaN update is not small */
      if (a > dxn) dxn = a;
      if (b > zn) zn = b;
    }
    st->iters++;
    if (!small && isnan(nh_la_norm_inf(n, dx))) {
      st->residual = NAN;
      return NH_ERR_NONFINITE; /* the solve produced NaN: no iterate to continue from */
    }
    // growing updates with factors of this solve: the iteration diverges (reused factors are
    // formed again below instead)
    if (!small && fresh && dxn > NH_NEWTON_DIVERGE * dx_min && dxn > NH_DG_STALL_TOL * (1.0 + zn)) {
      st->residual = nh_la_norm_inf(n, R);
      return NH_ERR_NO_CONVERGENCE;
    }
    if (dxn < dx_min) dx_min = dxn;
    // contraction estimate over two updates with the same factors (Hairer-Wanner IV.8)
    double theta = same ? dxn / dx_prev : INFINITY;
    if (!small && theta < NH_NEWTON_THETA_MAX) {
      double q = theta / (1.0 - theta);
      small = 1;
      for (int i = 0; i < n && small; i++)
        if (q * fabs(dx[i]) > NH_NEWTON_EST_TOL * (1.0 + fabs(z[i]))) small = 0;
    }
    same = 1;
    if (!small && fresh && st->iters >= 3 && dxn >= 0.5 * dx_prev && dxn <= NH_DG_STALL_TOL * (1.0 + zn)) {
      small = 1; /* stagnation at the round-off floor (with a Jacobian of this solve) counts as converged */
    } else if (!small && !fresh && dxn > NH_NEWTON_CHORD_RATIO * dx_prev) {
      need = 1; /* reused factors contract poorly */
    } else if (!small && exact && (refresh_ratio <= 0.0 || dxn > refresh_ratio * dx_prev_keep)) {
      need = 1; /* simplified Newton contracts slowly (always, for refresh_ratio 0) */
    }
    dx_prev = dxn;
    dx_prev_keep = dxn;
    if ((rc = F(z, R, exact && need && !small ? J : NULL, user))) return rc;
    have_exact = exact && need && !small;
    if (small) break;
  }
  st->residual = nh_la_norm_inf(n, R);
  // the residual at the accepted iterate, evaluated after its (small) update: NaN where the
  // model is undefined there, which is no solution
  if (isnan(st->residual)) return NH_ERR_NONFINITE;
  if (jac_kept) *jac_kept = !need;
  return 0;
}

/* ---- the discrete-gradient step -------------------------------------------------------- */

size_t nh_dg_pattern_size(int n) { return 4 * (size_t)n * n + (size_t)n + 1; }

void nh_dg_sys_patterns(nh_dg_sys *s, const unsigned char *pi_mask, const unsigned char *t_mask, int *idx) {
  const int n = s->n;
  s->pi_row = s->pi_ent = s->t_idx = NULL;
  s->t_nnz = 0;
  if (pi_mask) {
    int *row = idx, *ent = idx + n + 1 + n * n, p = 0;
    for (int i = 0; i < n; i++) {
      row[i] = p;
      for (int k = 0; k < n; k++)
        if (pi_mask[i * n + k]) ent[3 * p] = i, ent[3 * p + 1] = i * n + k, ent[3 * p + 2] = k, p++;
    }
    row[n] = p;
    s->pi_row = row, s->pi_ent = ent;
  }
  if (t_mask) {
    int *t = idx + n + 1;
    for (int ik = 0; ik < n * n; ik++)
      if (t_mask[ik]) t[s->t_nnz++] = ik;
    s->t_idx = t;
  }
}

/* y = Pi g, skipping the entries outside the pattern (the same sums as nh_la_dot by rows:
 * the skipped terms are 0) */
static void pi_mv(const nh_dg_sys *s, const double *Pi, const double *g, double *y) {
  const int n = s->n;
  if (!s->pi_row) {
    for (int i = 0; i < n; i++) y[i] = nh_la_dot(n, Pi + (size_t)i * n, g);
    return;
  }
  // row by row, each sum in a register (a store-to-load chain through y otherwise)
  const int *e = s->pi_ent;
  for (int i = 0; i < n; i++) {
    double sum = 0.0;
    for (const int *end = s->pi_ent + 3 * s->pi_row[i + 1]; e < end; e += 3) sum += Pi[e[1]] * g[e[2]];
    y[i] = sum;
  }
}

typedef struct dg_prob {
  const nh_dg_sys *s;
  nh_dg_kind kind;
  const double *x;
  double h;
  int nodes;
  double H0; /* H(x), NAN until computed */
  double H1; /* Gonzalez: H(x1) at the last evaluation */
  double *gw, *Pi, *T, *dG, *xb, *G, *y; /* y: Pi G */
} dg_prob;

/* R(x1) = x1 - x - h Pi(xbar) G(x, x1); J = dR/dx1 = I - h (1/2 T + Pi dG) */
static int dg_residual(const double *x1, double *R, double *J, void *user) {
  dg_prob *c = user;
  const nh_dg_sys *s = c->s;
  const int n = s->n;
  const double h = c->h, *x = c->x;
  int rc;
  if (c->kind != NH_DG_GONZALEZ) {
    if ((rc = nh_dg_grad(s, c->kind, x, x1, c->G, J ? c->dG : NULL, &c->nodes, c->gw))) return rc;
    for (int i = 0; i < n; i++) c->xb[i] = 0.5 * (x[i] + x1[i]);
    if ((rc = cb(s->eval(c->xb, NULL, NULL, c->Pi, s->user)))) return rc;
  } else {
    if ((rc = dg_gonzalez(s, x, x1, c->G, J ? c->dG : NULL, &c->H0, &c->H1, c->Pi, c->gw))) return rc;
    if (J)
      for (int i = 0; i < n; i++) c->xb[i] = 0.5 * (x[i] + x1[i]); /* for the Pi-Jacobian */
  }
  pi_mv(s, c->Pi, c->G, c->y);
  for (int i = 0; i < n; i++) R[i] = x1[i] - x[i] - h * c->y[i];
  if (!J) return 0;
  // -h/2 T (its pattern), then -h Pi dG skipping the zeros of Pi (sparse in the examples), then I
  const double ht = -0.5 * h;
  if (s->pijac && (rc = cb(s->pijac(c->xb, c->G, c->T, s->user)))) return rc;
  if (s->pijac && !s->t_idx) {
    for (int i = 0; i < n * n; i++) J[i] = ht * c->T[i];
  } else {
    for (int i = 0; i < n * n; i++) J[i] = 0.0;
    for (int p = 0; s->pijac && p < s->t_nnz; p++) J[s->t_idx[p]] = ht * c->T[s->t_idx[p]];
  }
  for (int i = 0; i < n; i++) {
    const double *Pii = c->Pi + (size_t)i * n;
    double *Ji = J + (size_t)i * n;
    if (s->pi_row) {
      for (int p = s->pi_row[i]; p < s->pi_row[i + 1]; p++) {
        const int k = s->pi_ent[3 * p + 2];
        if (Pii[k] != 0.0) nh_la_axpy_nr(n, -h * Pii[k], c->dG + (size_t)k * n, Ji);
      }
    } else {
      for (int k = 0; k < n; k++)
        if (Pii[k] != 0.0) nh_la_axpy_nr(n, -h * Pii[k], c->dG + (size_t)k * n, Ji);
    }
    Ji[i] += 1.0;
  }
  return 0;
}

size_t nh_dg_work_size(int n) {
  size_t nn = (size_t)n;
  return grad_work(n) + 3 * nn * nn + 5 * nn + nh_newton_work_size(n) + 8;
}

void nh_dg_work_clear(int n, double *work) {
  const size_t nn = (size_t)n;
  memset(work, 0, sizeof(double) * nn * nn);                  /* the Hessian, at the gradient's work */
  memset(work + grad_work(n), 0, sizeof(double) * 2 * nn * nn); /* Pi, T (nh_dg_step's layout) */
}

/* the extrapolation of degree NH_DG_PC_HIST - 1 through the last NH_DG_PC_HIST states (a
 * ring, the newest in slot head): x_{n+1} = sum_j (-1)^j C(K, j+1) x_{n-j}, summed newest first */
static void pc_extrapolate(int n, const double *xs, int head, double *y) {
#if NH_DG_PC_HIST != 7
#error "pc_extrapolate sums the 7 states of NH_DG_PC_HIST = 7"
#endif
  const double *p[NH_DG_PC_HIST];
  for (int j = 0; j < NH_DG_PC_HIST; j++) p[j] = xs + (size_t)((head - j + NH_DG_PC_HIST) % NH_DG_PC_HIST) * n;
  const double *p0 = p[0], *p1 = p[1], *p2 = p[2], *p3 = p[3], *p4 = p[4], *p5 = p[5], *p6 = p[6];
  // entries independent of each other (two per instruction), each summed newest first
  for (int i = 0; i < n; i++)
    y[i] = 7.0 * p0[i] + -21.0 * p1[i] + 35.0 * p2[i] + -35.0 * p3[i] + 21.0 * p4[i] + -7.0 * p5[i] + 1.0 * p6[i];
}

int nh_dg_step(const nh_dg_sys *s, nh_dg_kind kind, const double *x, double h, double *x1,
               nh_dg_newton *st, double *work, int *jac_kept, nh_dg_pc *pc) {
  const int n = s->n;
  const size_t nn = (size_t)n;
  dg_prob c = {.s = s, .kind = kind, .x = x, .h = h, .nodes = 0, .H0 = NAN, .H1 = NAN};
  double *w = work;
  c.gw = w, w += grad_work(n);
  c.Pi = w, w += nn * nn;
  c.T = w, w += nn * nn;
  c.dG = w, w += nn * nn;
  c.xb = w, w += nn;
  c.G = w, w += nn;
  c.y = w, w += nn;
  double *xp = w, *xe = w + nn; /* the plain predictor, the extrapolated states */
  w += 2 * nn;
  int rc;
  // a continued trajectory: x is bitwise the x1 of the last step, with the same h
  int chain = pc && (pc->count > 0 || pc->nhist > 0) && pc->h == h;
  for (int i = 0; chain && i < n; i++)
    if (x[i] != pc->xend[i]) chain = 0;
  if (pc && !chain) pc->count = 0, pc->nhist = 0;
  int have_xe = chain && pc->xs && pc->nhist >= NH_DG_PC_HIST;
  if (have_xe) pc_extrapolate(n, pc->xs, pc->head, xe);
  int extrap = have_xe && pc->extrap_ok;
  if (extrap) {
    // the extrapolated state, and H(x) from the last evaluation of the previous solve
    nh_la_copy(n, xe, x1);
    if (kind == NH_DG_GONZALEZ) c.H0 = pc->Hend;
  } else {
    // explicit midpoint predictor (local error O(h^3): one Newton iteration fewer than Euler)
    if ((rc = cb(s->eval(x, &c.H0, c.G, c.Pi, s->user)))) return rc;
    pi_mv(s, c.Pi, c.G, c.y);
    for (int i = 0; i < n; i++) c.xb[i] = x[i] + 0.5 * h * c.y[i];
    if ((rc = cb(s->eval(c.xb, NULL, c.G, c.Pi, s->user)))) return rc;
    pi_mv(s, c.Pi, c.G, c.y);
    for (int i = 0; i < n; i++) x1[i] = xp[i] = x[i] + h * c.y[i];
    // the extrapolated correction of the previous steps of this trajectory
    if (chain && pc->count > 0) {
      for (int i = 0; i < n; i++) x1[i] += pc->count > 1 ? 2.0 * pc->c[i] - pc->c[n + i] : pc->c[i];
    }
  }
  rc = nh_newton(n, dg_residual, &c, s->hess != NULL, NH_NEWTON_REFRESH, x1, st, w, jac_kept);
  st->nodes = c.nodes;
  if (pc && rc) pc->count = 0, pc->nhist = 0;
  if (pc && !rc) {
    if (extrap) {
      pc->count = 0; /* no new correction: the older ones are stale */
    } else {
      // the new correction x1 - plain predictor
      pc->count = chain ? (pc->count > 1 ? 2 : pc->count + 1) : 1;
      for (int i = 0; i < n; i++) pc->c[n + i] = pc->c[i], pc->c[i] = x1[i] - xp[i];
    }
    pc->h = h;
    nh_la_copy(n, x1, pc->xend);
    if (pc->xs) {
      // the next step extrapolates when this step's extrapolation was close enough
      pc->extrap_ok = 0;
      if (have_xe) {
        int miss = 0; /* without branches: a NaN misses too */
        for (int i = 0; i < n; i++) miss |= !(fabs(x1[i] - xe[i]) <= NH_DG_PC_EXTRAP_TOL * (1.0 + fabs(x1[i])));
        pc->extrap_ok = !miss;
      }
      pc->head = pc->nhist == 0 ? 0 : (pc->head + 1) % NH_DG_PC_HIST;
      nh_la_copy(n, x1, pc->xs + (size_t)pc->head * nn);
      if (pc->nhist < NH_DG_PC_HIST) pc->nhist++;
    }
    pc->Hend = c.H1;
  }
  return rc;
}
