/* rdp.c - the reduced d'Alembert-Pontryagin integrator on SE(2) x shape space (Kobilarov,
 * Martin de Diego, Ferraro, "Simulating Nonholonomic Dynamics", sec. 5, eqs. 17, 18, 27, 28;
 * spec 001 A6-A8), for models that declare their SE(2) coordinates (nh_model_def.se2).
 *
 * q = (r, g): shape r (dim ns), pose g = (theta, x, y). On the interval [t_k, t_k+1]:
 *   u_k = (r_k+1 - r_k)/h,   h xi_k = tau^-1(g_k^-1 g_k+1),   r_k+a = r_k + alpha h u_k,
 *   l_k = l(r_k+a, u_k, xi_k) = 1/2 (u, xi)^T M_red(r_k+a) (u, xi)        (eq. 18; M_red = M(r, g = e))
 * and, with the body-frame constraint rows (mu_r, mu_g)(r) = A(r, g = e):
 *   (R1)  d_u l_k - d_u l_k-1 - h [(1-alpha) d_r l_k + alpha d_r l_k-1] - h f_r,k = mu_r(r_k)^T nu_k
 *   (R2)  (dtau^-1_{h xi_k})^T d_xi l_k - (dtau^-1_{h xi_k-1} Ad_{tau(h xi_k-1)})^T d_xi l_k-1
 *           - h f_g,k = mu_g(r_k)^T nu_k
 *         (from delta(h xi) = dtau^-1_{h xi} (-eta_k + Ad_{tau(h xi)} eta_k+1); the paper's
 *          dtau^-1_{-h xi} equals dtau^-1_{h xi} Ad_{tau(h xi)} only when tau(-v) = tau(v)^-1,
 *          true for exp and cay, false for ccsk)
 *   (C)   mu_r(r_k+a) u_k + mu_g(r_k+a) xi_k = 0
 *   g_k+1 = g_k tau(h xi_k),  r_k+1 = r_k + h u_k                                   (eq. 28)
 * (R1)-(R2) are the discrete Lagrange-d'Alembert equations with the variations restricted by
 * mu_r dr + mu_g eta = 0, written with a multiplier nu_k instead of the paper's basis e_b(r) and
 * connection A(r): eliminating nu gives the paper's eq. 27 with the corrected sign -A(r_k)^T
 * (spec [E] 13; the printed +A^T fails the test of spec T19) and with the d_r l terms the
 * paper omits. Xi_k = Omega_k - A(r_k+a) u_k with Omega_k in span e_b(r_k+a) is (C). f_g is the
 * model's generalized force on (theta, x, y) in the body frame, (f_th, R(th)^T (f_x, f_y)); the
 * potential enters as the nodal force -dV(q_k) (no potential in l).
 *
 * One step from the nodal state (q_k, v_k) (Legendre-type start, spec A6 [C]): the k-1 column
 * is the continuous momentum M_red(r_k) (u, xi)(t_k) and the forces get h/2. The nodal velocity
 * handed back solves [M_red mu^T; mu 0] (w; nu) = (pi; 0) at r_k+1 with the post-step momenta
 *   pi_u = d_u l_k + h alpha d_r l_k + h/2 f_r,k+1,
 *   pi_xi = (dtau^-1_{h xi_k} Ad_{tau(h xi_k)})^T d_xi l_k + h/2 f_g,k+1,
 * so that the next step, started from it, is exactly the continuation of (R1)-(R2) (the
 * difference lies in span mu(r_k+1)^T and is absorbed by nu): the method needs no state besides
 * (q, v), and partial steps and impacts need no special care. Unknowns z = (u, xi, nu); Newton
 * with a forward-difference Jacobian (step RDP_FD_STEP), from z = (nodal velocity, 0); the
 * factored Jacobian is kept across steps of the same h while it contracts the residual by
 * RDP_CONTRACT per iteration (a simplified Newton: the equations change little per step).
 * Units: every row of the residual is judged relative to the magnitude of its own terms and
 * every finite-difference step is relative to its unknown's magnitude (rdp_scales), so that a
 * change of units (masses, lengths) changes neither the iterations nor the acceptance. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "la/la.h"
#include "methods/method_impl.h"
#include "methods/se2.h"
#include "model/model_impl.h"

#define RDP_FD_STEP 1e-7   /* relative forward-difference step of the Newton Jacobian */
/* Newton's residual and finite-difference steps are relative to magnitudes in the model's own
 * units (rdp_scales), with E = max(z^T M_red z, sum_a p_a^2 / M_aa) (p the k-1 column's
 * momentum and force terms) the energy scale of the step and vs_a = sqrt(E / M_aa) the
 * velocity scale of unknown a: a momentum row a to max(sum_b |M_ab z_b| (through dtau^-1 for
 * the group rows), |p_a|, h/2 |f_a|, h (1-alpha) |d_r l_a|, sum_k |mu_ka nu_k|, sqrt(M_aa E)),
 * a constraint row k to sum_a |mu_ka| max(|z_a|, vs_a), the step of a velocity unknown to
 * RDP_FD_STEP max(|z_a|, vs_a) and of a multiplier to RDP_FD_STEP max(|nu_k|, E / sum_a
 * |mu_ka| vs_a) (the floors vs_a and E / ...: the magnitudes an unknown has at the step's
 * energy, so that an unknown passing through 0 keeps a step). Scales are floored by
 * RDP_SCALE_FLOOR only to stay positive when every term is 0 (the residual is 0 then too). */
#define RDP_SCALE_FLOOR DBL_MIN
#define RDP_PIVOT_TOL 1e-14
/* a Jacobian kept from an earlier step is used while it reduces the residual by this factor
 * per iteration; otherwise it is recomputed */
#define RDP_CONTRACT 0.1
/* iterate on to RDP_TIGHT x newton_tol while the residual keeps falling (it stops at the
 * round-off floor, accepted when below newton_tol): the per-step tolerance would otherwise
 * accumulate over long runs */
#define RDP_TIGHT 1e-2

typedef struct rdp_ws {
  int n, ns, m, nr, nz;
  int si[64];                   /* shape indices (ns <= 61) */
  double *Mf, *Af, *dM, *dwork; /* full M, A, dM at g = e */
  double *Mr, *mua, *muk, *mu1; /* reduced M at r_k+a, mu at r_k+a, r_k, r_k+1 */
  double *dr;                   /* d_r l at r_k+a (ns) */
  double *J, *K;                /* Newton Jacobian (nz^2); KKT matrix (nz^2) */
  int *piv, *kpiv;
  double *Jvalid, *Jh;          /* the LU factors in J are reusable (1) for the step Jh */
  double *z, *zt, *R, *Rt, *qe, *pu, *pxi, *fr, *fb, *y, *f, *tmp; /* vectors */
  double *pmag, *S, *zs;        /* k-1 momentum terms' magnitude (nr); row scales, unknown scales (nz) */
  double *racache;              /* (ns + 1) the r_k+a of w->Mr, w->mua, w->dM; last entry: valid */
} rdp_ws;

static size_t rdp_work_size(const nh_model *mo) {
  size_t n = (size_t)mo->nq, m = (size_t)mo->nc, nr = n, nz = n + m;
  return 2 * n * n + m * n + n * n * n + nh_model_deriv_work_size(mo) + nr * nr + 3 * m * nr + n +
         2 * nz * nz + 2 * nz + 4 * nz + 8 * n + 2 * n + n + 1 + 2 + n + 2 * nz + 16;
}

static void rdp_carve(nh_stepper *s, rdp_ws *w) {
  const nh_model *mo = s->model;
  size_t n = (size_t)mo->nq, m = (size_t)mo->nc, nr = n, nz = n + m;
  double *p = s->work;
  w->n = (int)n, w->m = (int)m, w->nr = (int)nr, w->ns = (int)n - 3, w->nz = (int)nz;
  for (int i = 0, k = 0; i < (int)n; i++)
    if (i != mo->se2[0] && i != mo->se2[1] && i != mo->se2[2]) w->si[k++] = i;
  w->Mf = p, p += n * n;
  w->Af = p, p += m * n;
  w->dM = p, p += n * n * n;
  w->dwork = p, p += nh_model_deriv_work_size(mo);
  w->Mr = p, p += nr * nr;
  w->mua = p, p += m * nr;
  w->muk = p, p += m * nr;
  w->mu1 = p, p += m * nr;
  w->dr = p, p += n;
  w->J = p, p += nz * nz;
  w->K = p, p += nz * nz;
  w->piv = (int *)p, p += nz;
  w->kpiv = (int *)p, p += nz;
  w->Jvalid = p, p += 1;
  w->Jh = p, p += 1;
  w->z = p, p += nz;
  w->zt = p, p += nz;
  w->R = p, p += nz;
  w->Rt = p, p += nz;
  w->qe = p, p += n;
  w->pu = p, p += n;
  w->pxi = p, p += n;
  w->fr = p, p += n;
  w->fb = p, p += n;
  w->y = p, p += n;
  w->f = p, p += n;
  w->tmp = p, p += n;
  w->racache = p, p += n + 1;
  w->pmag = p, p += n;
  w->S = p, p += nz;
  w->zs = p, p += nz;
}

/* dtau^-1_v for the chosen retraction (exp optionally truncated, eq. 42) */
static void dtau_inv(const nh_method_opts *o, const double v[3], double Di[9]) {
  if (o->retraction == NH_RETRACTION_EXP && o->dexp_order > 0)
    nh_se2_dexp_inv_trunc(o->dexp_order, v, Di);
  else
    nh_se2_dtau_inv(o->retraction, v, Di);
}

/* reduced index a -> model coordinate: shape first, then theta, x, y */
static int ridx(const nh_model *mo, const rdp_ws *w, int a) {
  return a < w->ns ? w->si[a] : mo->se2[a - w->ns];
}

/* M_red(r), mu(r) (Nullable outputs) and, when dr != NULL and M is not constant, the matrices
 * needed for d_r l (w->dM), all at q = (r, g = e) */
static int reduced_at(const nh_model *mo, rdp_ws *w, const double *r, double *Mr, double *mu, int want_dM) {
  const int n = w->n, nr = w->nr, m = w->m;
  int rc;
  memset(w->qe, 0, sizeof(double) * (size_t)n);
  for (int j = 0; j < w->ns; j++) w->qe[w->si[j]] = r[j];
  if (Mr) {
    if ((rc = nh_cb(mo->mass(w->qe, w->Mf, mo->user)))) return rc;
    for (int a = 0; a < nr; a++)
      for (int b = 0; b < nr; b++) Mr[a * nr + b] = w->Mf[ridx(mo, w, a) * n + ridx(mo, w, b)];
  }
  if (mu && m > 0) {
    memset(w->tmp, 0, sizeof(double) * (size_t)n);
    if ((rc = nh_cb(mo->constraint(w->qe, w->tmp, w->Af, NULL, mo->user)))) return rc;
    for (int k = 0; k < m; k++)
      for (int a = 0; a < nr; a++) mu[k * nr + a] = w->Af[k * n + ridx(mo, w, a)];
  }
  if (want_dM && mo->coriolis && (rc = nh_model_mass_deriv(mo, w->qe, w->dM, w->dwork))) return rc;
  return 0;
}

/* d_r l = 1/2 z^T dM_red/dr_j z (zero for a constant M), z = (u, xi) */
static void reduced_dr(const nh_model *mo, const rdp_ws *w, const double *z, double *dr) {
  const int n = w->n, nr = w->nr;
  for (int j = 0; j < w->ns; j++) {
    double s = 0.0;
    if (mo->coriolis) {
      const double *D = w->dM + (size_t)w->si[j] * n * n;
      for (int a = 0; a < nr; a++)
        for (int b = 0; b < nr; b++) s += z[a] * D[ridx(mo, w, a) * n + ridx(mo, w, b)] * z[b];
    }
    dr[j] = 0.5 * s;
  }
}

/* generalized force at (t, q, v) - dV(q), split into shape part fr and body-frame group part fb */
static int node_force(const nh_model *mo, rdp_ws *w, double t, const double *q, const double *v,
                      double *fr, double *fb) {
  const int n = w->n;
  int rc;
  memset(w->f, 0, sizeof(double) * (size_t)n);
  if (mo->force && (rc = nh_cb(mo->force(t, q, v, w->f, mo->user)))) return rc;
  if (mo->potential) {
    if ((rc = nh_cb(mo->potential(q, NULL, w->tmp, mo->user)))) return rc;
    nh_la_axpy(n, -1.0, w->tmp, w->f);
  }
  for (int j = 0; j < w->ns; j++) fr[j] = w->f[w->si[j]];
  double th = q[mo->se2[0]], c = cos(th), sn = sin(th), fx = w->f[mo->se2[1]], fy = w->f[mo->se2[2]];
  fb[0] = w->f[mo->se2[0]], fb[1] = c * fx + sn * fy, fb[2] = -sn * fx + c * fy;
  return 0;
}

/* the scales of the residual's rows (w->S) and of the unknowns (w->zs) at z (RDP_SCALE_FLOOR);
 * after rdp_residual has set w->Mr, w->mua, w->y, w->dr at z; Di = dtau^-1_{h xi} */
static void rdp_scales(rdp_ws *w, double h, double al, const double *z, const double *Di) {
  const int ns = w->ns, nr = w->nr, m = w->m;
  const double *Mr = w->Mr, *nu = z + nr;
  double e = nh_la_dot(nr, z, w->y), ym[3], md[64 + 3];
  for (int a = 0; a < nr; a++) md[a] = fmax(Mr[a * nr + a], RDP_SCALE_FLOOR); /* M_red is positive definite */
  for (int a = 0; a < nr; a++) e = fmax(e, w->pmag[a] * w->pmag[a] / md[a]);
  // velocity scales; the magnitudes of the terms of M_red z and of the reactions mu^T nu
  for (int a = 0; a < nr; a++) {
    double t = 0.0, r = 0.0;
    for (int b = 0; b < nr; b++) t += fabs(Mr[a * nr + b] * z[b]);
    for (int k = 0; k < m; k++) r += fabs(w->muk[(size_t)k * nr + a] * nu[k]);
    w->zs[a] = fmax(fabs(z[a]), sqrt(e / md[a]));
    w->S[a] = fmax(fmax(r, w->pmag[a]), sqrt(md[a] * e));
    if (a < ns) w->S[a] = fmax(fmax(w->S[a], t), h * (1.0 - al) * fabs(w->dr[a]));
    else ym[a - ns] = t;
  }
  for (int i = 0; i < 3; i++)
    w->S[ns + i] = fmax(w->S[ns + i], fabs(Di[i]) * ym[0] + fabs(Di[3 + i]) * ym[1] + fabs(Di[6 + i]) * ym[2]);
  // constraint rows: |mu_k| against the velocity scales; the multipliers' scales
  for (int k = 0; k < m; k++) {
    double c = 0.0, cv = 0.0;
    for (int a = 0; a < nr; a++) {
      c += fabs(w->mua[(size_t)k * nr + a]) * w->zs[a];
      cv += fabs(w->mua[(size_t)k * nr + a]) * sqrt(e / md[a]);
    }
    w->S[nr + k] = c;
    w->zs[nr + k] = fmax(fabs(nu[k]), e / fmax(cv, RDP_SCALE_FLOOR));
  }
  for (int i = 0; i < w->nz; i++) w->S[i] = fmax(w->S[i], RDP_SCALE_FLOOR), w->zs[i] = fmax(w->zs[i], RDP_SCALE_FLOOR);
}

/* the residual of (R1), (R2), (C) at z; inputs: r_k (rk), k-1 momenta w->pu, w->pxi (incl. h/2 f);
 * with scales != 0 also w->S and w->zs (rdp_scales) */
static int rdp_residual(nh_stepper *s, rdp_ws *w, const double *rk, double h, const double *z,
                        double *R, int scales) {
  const nh_model *mo = s->model;
  const int ns = w->ns, nr = w->nr, m = w->m;
  const double al = s->opts.alpha;
  const double *u = z, *xi = z + ns, *nu = z + nr;
  double ra[64], hxi[3], Di[9];
  int rc;
  for (int j = 0; j < ns; j++) ra[j] = rk[j] + al * h * u[j];
  // M_red, mu at r_k+a: the Jacobian columns of xi and nu do not move r_k+a
  if (!(w->racache[ns] == 1.0 && memcmp(ra, w->racache, sizeof(double) * (size_t)ns) == 0)) {
    w->racache[ns] = 0.0;
    if ((rc = reduced_at(mo, w, ra, w->Mr, w->mua, 1))) return rc;
    memcpy(w->racache, ra, sizeof(double) * (size_t)ns);
    w->racache[ns] = 1.0;
  }
  nh_la_gemv(nr, nr, w->Mr, z, w->y); /* (d_u l, d_xi l) */
  reduced_dr(mo, w, z, w->dr);
  for (int i = 0; i < 3; i++) hxi[i] = h * xi[i];
  dtau_inv(&s->opts, hxi, Di);
  for (int j = 0; j < ns; j++) R[j] = w->y[j] - w->pu[j] - h * (1.0 - al) * w->dr[j];
  for (int i = 0; i < 3; i++) {
    double t = 0.0;
    for (int k = 0; k < 3; k++) t += Di[k * 3 + i] * w->y[ns + k];
    R[ns + i] = t - w->pxi[i];
  }
  for (int k = 0; k < m; k++) {
    nh_la_axpy(nr, -nu[k], w->muk + (size_t)k * nr, R);
    R[nr + k] = nh_la_dot(nr, w->mua + (size_t)k * nr, z);
  }
  if (scales) rdp_scales(w, h, al, z, Di);
  return 0;
}

/* [M_red mu^T; mu 0] (w; nu) = (pi; 0) at the reduced state held in w->Mr, mu; w (nr) returned in out */
static int kkt_velocity(rdp_ws *w, const double *Mr, const double *mu, const double *pi, double *out) {
  const int nr = w->nr, m = w->m, nk = nr + m;
  for (int a = 0; a < nk; a++)
    for (int b = 0; b < nk; b++) {
      double v = 0.0;
      if (a < nr && b < nr) v = Mr[a * nr + b];
      else if (a < nr) v = mu[(b - nr) * nr + a];
      else if (b < nr) v = mu[(a - nr) * nr + b];
      w->K[a * nk + b] = v;
    }
  for (int a = 0; a < nk; a++) out[a] = a < nr ? pi[a] : 0.0;
  if (nh_la_lu(nk, w->K, w->kpiv, RDP_PIVOT_TOL) != NH_OK) return NH_ERR_SINGULAR;
  nh_la_lu_solve(nk, w->K, w->kpiv, out);
  return 0;
}

static int rdp_step(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err) {
  const nh_model *mo = s->model;
  rdp_ws w;
  rdp_carve(s, &w);
  const int n = w.n, ns = w.ns, nr = w.nr, nz = w.nz, m = w.m;
  const int *gi = mo->se2;
  const double al = s->opts.alpha;
  const double *q0 = x0, *v0 = x0 + n;
  double rk[64], g0[3], g1[3], hxi[3], dt[3], Di[9];
  int rc;
  if (err) *err = 0.0;
  s->evals++;
  // reduced state at t_k: r_k, the nodal body velocity, the continuous momenta
  for (int j = 0; j < ns; j++) rk[j] = q0[w.si[j]], w.z[j] = v0[w.si[j]];
  for (int i = 0; i < 3; i++) g0[i] = q0[gi[i]];
  {
    double c = cos(g0[0]), sn = sin(g0[0]), xd = v0[gi[1]], yd = v0[gi[2]];
    w.z[ns] = v0[gi[0]], w.z[ns + 1] = c * xd + sn * yd, w.z[ns + 2] = -sn * xd + c * yd;
  }
  for (int k = 0; k < m; k++) w.z[nr + k] = 0.0;
  w.racache[ns] = 0.0; /* w.Mr is about to hold M_red(r_k) */
  if ((rc = reduced_at(mo, &w, rk, w.Mr, w.muk, 0))) return rc;
  nh_la_gemv(nr, nr, w.Mr, w.z, w.y);
  if ((rc = node_force(mo, &w, t, q0, v0, w.fr, w.fb))) return rc;
  for (int j = 0; j < ns; j++) w.pu[j] = w.y[j] + 0.5 * h * w.fr[j];
  for (int i = 0; i < 3; i++) w.pxi[i] = w.y[ns + i] + 0.5 * h * w.fb[i];
  for (int a = 0; a < nr; a++) w.pmag[a] = fmax(fabs(w.y[a]), 0.5 * h * fabs(a < ns ? w.fr[a] : w.fb[a - ns]));

  // Newton on z = (u, xi, nu), each row relative to its terms (rdp_scales)
  double res = INFINITY, res_prev = INFINITY;
  int it;
  for (it = 0;; it++) {
    if ((rc = rdp_residual(s, &w, rk, h, w.z, w.R, 1))) return rc;
    res = 0.0;
    for (int i = 0; i < nz; i++) res = fmax(res, fabs(w.R[i]) / w.S[i]);
    if (res <= RDP_TIGHT * s->opts.newton_tol || it >= s->opts.newton_max_iter) break;
    if (res <= s->opts.newton_tol && res > 0.5 * res_prev) break; /* the floor */
    int keep = *w.Jvalid == 1.0 && *w.Jh == h && !(res > RDP_CONTRACT * res_prev);
    res_prev = res;
    if (keep) {
      nh_la_lu_solve(nz, w.J, w.piv, w.R);
      nh_la_axpy(nz, -1.0, w.R, w.z);
      continue;
    }
    *w.Jvalid = 0.0;
    for (int j = 0; j < nz; j++) {
      double dz = RDP_FD_STEP * w.zs[j]; /* relative to the unknown's magnitude, floored (rdp_scales) */
      memcpy(w.zt, w.z, sizeof(double) * (size_t)nz);
      w.zt[j] += dz;
      if ((rc = rdp_residual(s, &w, rk, h, w.zt, w.Rt, 0))) return rc;
      for (int i = 0; i < nz; i++) w.J[i * nz + j] = (w.Rt[i] - w.R[i]) / dz;
    }
    if (nh_la_lu(nz, w.J, w.piv, RDP_PIVOT_TOL) != NH_OK) {
      snprintf(s->msg, sizeof s->msg, "rdp: singular Newton matrix (constraint rank lost?)");
      return NH_ERR_SINGULAR;
    }
    *w.Jvalid = 1.0, *w.Jh = h;
    nh_la_lu_solve(nz, w.J, w.piv, w.R);
    nh_la_axpy(nz, -1.0, w.R, w.z);
  }
  nh_stepper_solved(s, it, res);
  if (!(res <= s->opts.newton_tol)) {
    snprintf(s->msg, sizeof s->msg, "rdp: Newton did not converge in %d iterations (residual %.3e)", it, res);
    return NH_ERR_NO_CONVERGENCE;
  }
  // reconstruction (eq. 28)
  const double *u = w.z, *xi = w.z + ns;
  for (int i = 0; i < 3; i++) hxi[i] = h * xi[i];
  nh_se2_tau(s->opts.retraction, hxi, dt);
  nh_se2_compose(g0, dt, g1);
  for (int j = 0; j < ns; j++) x1[w.si[j]] = rk[j] + h * u[j];
  for (int i = 0; i < 3; i++) x1[gi[i]] = g1[i];
  // post-step momenta: d_u l_k + h alpha d_r l_k and (dtau^-1_{-h xi})^T d_xi l_k (w.y, w.dr at z)
  for (int j = 0; j < ns; j++) w.pu[j] = w.y[j] + h * al * w.dr[j];
  // (dtau^-1_{h xi} Ad_{tau(h xi)})^T d_xi l_k: the eta_k+1 coefficient of delta(h xi_k); it is
  // dtau^-1_{-h xi} for exp and cay (tau(-v) = tau(v)^-1), not for ccsk
  // (the truncated dexp^-1 is used as dtau^-1_{-h xi}, as in the paper's eq. 27)
  double Ad[9], DA[9];
  if (s->opts.retraction == NH_RETRACTION_CCSK) {
    nh_se2_dtau_inv(s->opts.retraction, hxi, Di);
    nh_se2_Ad(dt, Ad);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) DA[i * 3 + j] = Di[i * 3] * Ad[j] + Di[i * 3 + 1] * Ad[3 + j] + Di[i * 3 + 2] * Ad[6 + j];
  } else {
    double mhxi[3] = {-hxi[0], -hxi[1], -hxi[2]};
    dtau_inv(&s->opts, mhxi, DA);
  }
  for (int i = 0; i < 3; i++) {
    double v = 0.0;
    for (int k = 0; k < 3; k++) v += DA[k * 3 + i] * w.y[ns + k];
    w.pxi[i] = v;
  }
  // nodal velocity at t_k+1: forces with the interval velocity, then the constrained Legendre solve
  double *vint = x1 + n; /* spatial interval velocity as the force's velocity argument */
  for (int j = 0; j < ns; j++) vint[w.si[j]] = u[j];
  vint[gi[0]] = xi[0];
  vint[gi[1]] = cos(g1[0]) * xi[1] - sin(g1[0]) * xi[2];
  vint[gi[2]] = sin(g1[0]) * xi[1] + cos(g1[0]) * xi[2];
  if ((rc = node_force(mo, &w, t + h, x1, vint, w.fr, w.fb))) return rc;
  for (int j = 0; j < ns; j++) w.zt[j] = w.pu[j] + 0.5 * h * w.fr[j];
  for (int i = 0; i < 3; i++) w.zt[ns + i] = w.pxi[i] + 0.5 * h * w.fb[i];
  for (int j = 0; j < ns; j++) rk[j] = x1[w.si[j]];
  w.racache[ns] = 0.0;
  if ((rc = reduced_at(mo, &w, rk, w.Mr, w.mu1, 0))) return rc;
  if ((rc = kkt_velocity(&w, w.Mr, w.mu1, w.zt, w.Rt))) return rc;
  for (int j = 0; j < ns; j++) x1[n + w.si[j]] = w.Rt[j];
  {
    double c = cos(g1[0]), sn = sin(g1[0]);
    x1[n + gi[0]] = w.Rt[ns];
    x1[n + gi[1]] = c * w.Rt[ns + 1] - sn * w.Rt[ns + 2];
    x1[n + gi[2]] = sn * w.Rt[ns + 1] + c * w.Rt[ns + 2];
  }
  return 0;
}

/* Euclidean projector onto the row space of A (m x n): A^T (A A^T)^-1 A into Pr (n x n) */
static int row_projector(int m, int n, const double *A, double *Pr, double *G, int *piv, double *col) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) G[i * m + j] = nh_la_dot(n, A + (size_t)i * n, A + (size_t)j * n);
  if (m > 0 && nh_la_lu(m, G, piv, RDP_PIVOT_TOL) != NH_OK) return NH_ERR_SINGULAR;
  for (int j = 0; j < n; j++) {
    for (int k = 0; k < m; k++) col[k] = A[(size_t)k * n + j];
    if (m > 0) nh_la_lu_solve(m, G, piv, col);
    for (int i = 0; i < n; i++) {
      double v = 0.0;
      for (int k = 0; k < m; k++) v += A[(size_t)k * n + i] * col[k];
      Pr[i * n + j] = v;
    }
  }
  return 0;
}

/* rdp needs the SE(2) structure and a left-invariant model: checked at the initial shape with
 * g = identity against a generic pose g, in the body frame (M_body = T^T M T, A_body = A T with
 * T the body-to-coordinate velocity map), to RDP_INVARIANCE_TOL relative */
#define RDP_INVARIANCE_TOL 1e-9
static int rdp_supports(const nh_model *mo) {
  if (!mo->has_se2 || mo->nq - 3 >= 64 || mo->nq < 3) return NH_ERR_UNSUPPORTED;
  const int n = mo->nq, m = mo->nc, *g = mo->se2;
  const double pose[3] = {0.7, 0.3, -0.2}, c = cos(pose[0]), sn = sin(pose[0]);
  size_t nd = 6 * (size_t)n * n + 4 * (size_t)m * n + (size_t)m * m + 3 * (size_t)n + (size_t)m;
  double *buf = calloc(nd, sizeof(double));
  int *piv = calloc((size_t)(m > 0 ? m : 1), sizeof(int));
  if (!buf || !piv) {
    free(buf), free(piv);
    return NH_ERR_NOMEM;
  }
  double *Me = buf, *Mg = Me + n * n, *T = Mg + n * n, *MT = T + n * n, *Pe = MT + n * n,
         *Pg = Pe + n * n, *Ae = Pg + n * n, *Ag = Ae + m * n, *AT = Ag + m * n, *G = AT + m * n,
         *qe = G + m * m, *qg = qe + n, *z = qg + n, *col = z + n;
  memcpy(qe, mo->q0, sizeof(double) * (size_t)n);
  for (int i = 0; i < 3; i++) qe[g[i]] = 0.0;
  memcpy(qg, qe, sizeof(double) * (size_t)n);
  for (int i = 0; i < 3; i++) qg[g[i]] = pose[i];
  for (int i = 0; i < n; i++) T[i * n + i] = 1.0; /* body (theta', xi2, xi3) -> (theta', x', y') */
  T[g[1] * n + g[1]] = c, T[g[1] * n + g[2]] = -sn, T[g[2] * n + g[1]] = sn, T[g[2] * n + g[2]] = c;
  int ok = mo->mass(qe, Me, mo->user) == 0 && mo->mass(qg, Mg, mo->user) == 0;
  if (ok && m > 0)
    ok = mo->constraint(qe, z, Ae, NULL, mo->user) == 0 && mo->constraint(qg, z, Ag, NULL, mo->user) == 0;
  double err = 0.0, scale = 0.0;
  if (ok) {
    nh_la_gemm(n, n, n, Mg, T, MT);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double v = 0.0;
        for (int k = 0; k < n; k++) v += T[k * n + i] * MT[k * n + j];
        err = fmax(err, fabs(v - Me[i * n + j]));
        scale = fmax(scale, fabs(Me[i * n + j]));
      }
    err /= scale > 0.0 ? scale : 1.0;
    if (m > 0) {
      nh_la_gemm(m, n, n, Ag, T, AT);
      ok = row_projector(m, n, Ae, Pe, G, piv, col) == 0 && row_projector(m, n, AT, Pg, G, piv, col) == 0;
      for (int i = 0; ok && i < n * n; i++) err = fmax(err, fabs(Pe[i] - Pg[i]));
    }
  }
  free(buf), free(piv);
  return ok && err <= RDP_INVARIANCE_TOL ? NH_OK : NH_ERR_UNSUPPORTED;
}

const nh_method nh_method_rdp = {
    .name = "rdp",
    .summary = "reduced d'Alembert-Pontryagin on SE(2) x shape (eqs. 17-28, corrected), alpha = 1/2",
    .preserves = "constraints on every interval; group structure (g_k+1 = g_k tau(h xi)); energy to O(h^2) without drift",
    .order = 2,
    .flags = NH_METHOD_SYMMETRIC | NH_METHOD_IMPLICIT,
    .work_size = rdp_work_size,
    .supports = rdp_supports,
    .step = rdp_step,
    .dense = nh_dense_linear,
    .contact = NH_HOLD_PROJECT,
};
