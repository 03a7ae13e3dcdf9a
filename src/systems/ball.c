/* ball.c - the rolling ball and disk actuated by internal point masses (Putkaradze & Rogers,
 * "On the Normal Force and Static Friction Acting on a Rolling Ball Actuated by Internal
 * Point Masses"; spec 004), with its free flight after detachment (App. B).
 *
 * Ball, x = [theta (n), thd (n), q (4), Om (3), zxy (2)]  (eq. 6.4), per evaluation (3.7):
 *   Lam = rot(q/|q|), Gam = Lam^T e3, GamF = Lam^T F_e(t); index 0 is m0 with zeta_0 = chi0,
 *   zeta_0' = zeta_0'' = 0, thd_0 = thdd_0 = 0; for i >= 1 zeta_i = rail_i(theta_i),
 *   thdd_i = u_i(t);  s_i = r Gam + zeta_i;
 *   w_i = Om x (Om x zeta_i + 2 thd_i zeta_i') + thd_i^2 zeta_i'' + thdd_i zeta_i'
 *   A   = sum_i m_i hat(s_i)^2 - I                    (symmetric negative definite)
 *   b   = Om x I Om + r GamF x Gam + sum_i m_i s_i x (g Gam + w_i)
 *   Om' = A^-1 b                                      (3.2; Cholesky of -A)
 *   Fsum = sum_i m_i (Om' x s_i + w_i),  N = M g + <Fsum, Gam> - F_e3     (3.3)
 *   fvec = (Lam Fsum - F_e)_12                                              (3.4)
 *   q' = 1/2 q * [0; Om],  zxy' = r [om_2, -om_1],  om = Lam Om            (6.4, 2.3)
 * Disk, x = [theta (n), thd (n), phi, phd]  (eqs. 5.1-5.2, 4.1-4.4), zeta = (zeta_1, zeta_3):
 *   phi'' = (sum_i m_i K_i - r F_e1) / (d2 + sum_i m_i [(r sin phi + z1)^2 + (r cos phi + z3)^2])
 *   K_i = (g + r phd^2)(z3 sin phi - z1 cos phi) + (r cos phi + z3)(-2 phd thd z3' + thd^2 z1''
 *         + thdd z1') - (r sin phi + z1)(2 phd thd z1' + thd^2 z3'' + thdd z3')
 *   N (4.3) and f1 (4.4) as printed in the spec; the contact point is z = z_a - r (phi - phi_a).
 * Flight, x = [theta, thd, q, Om, z_GC (3), z_GC' (3)]  (B.15, B.6), with c = sum m_i zeta_i / M,
 *   wbar = sum m_i w_i / M:
 *   (I + sum_i m_i hat(zeta_i) hat(c - zeta_i)) Om' = I Om x Om - sum_i m_i zeta_i x (GamF/M - wbar + w_i)
 *   z_GC'' = F_e/M - g e3 - (1/M) Lam sum_i m_i (Om' x zeta_i + w_i)
 * Energy (spec 2.10): E = 1/2 <Om, I Om> + sum_i [1/2 m_i |v_i|^2 + m_i g h_i] with
 *   v_i = Om x s_i + chid_i (rolling; body frame) and h_i = <zeta_i, Gam> (+ z_GC3 in flight),
 *   dE/dt = sum_{i>=1} m_i <acc_i + g Gam, chid_i>, acc_i = Om' x s_i + w_i. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "la/la.h"
#include "base/msg.h"
#include "nholo/systems/ball.h"
#include "nholo/sim.h"
#include "systems/ball_impl.h"

/* the block a model owns (copied by nh_model_create) */
typedef struct ball_data {
  nh_ball_kind kind;
  nh_ball_params p;
  double M;            /* total mass */
  double phi_a, z_a;   /* disk: initial angle and contact point */
} ball_data;

/* kinematics of every mass at one state */
typedef struct kin {
  int n1; /* n + 1 (index 0 = m0) */
  double L[9], Gam[3], Fe[3], GamF[3];
  double m[BALL_NMAX], thd[BALL_NMAX], thdd[BALL_NMAX];
  double zeta[BALL_NMAX][3], zp[BALL_NMAX][3], zpp[BALL_NMAX][3], w[BALL_NMAX][3];
} kin;

/* ---- small vector helpers -------------------------------------------------------------- */

static void cross(const double a[3], const double b[3], double c[3]) {
  double c0 = a[1] * b[2] - a[2] * b[1], c1 = a[2] * b[0] - a[0] * b[2], c2 = a[0] * b[1] - a[1] * b[0];
  c[0] = c0, c[1] = c1, c[2] = c2;
}
static void mv3(const double A[9], const double x[3], double y[3]) { /* y = A x */
  double y0 = A[0] * x[0] + A[1] * x[1] + A[2] * x[2], y1 = A[3] * x[0] + A[4] * x[1] + A[5] * x[2];
  y[2] = A[6] * x[0] + A[7] * x[1] + A[8] * x[2], y[0] = y0, y[1] = y1;
}
static void mtv3(const double A[9], const double x[3], double y[3]) { /* y = A^T x */
  double y0 = A[0] * x[0] + A[3] * x[1] + A[6] * x[2], y1 = A[1] * x[0] + A[4] * x[1] + A[7] * x[2];
  y[2] = A[2] * x[0] + A[5] * x[1] + A[8] * x[2], y[0] = y0, y[1] = y1;
}

/* Lam of q/|q| (body to space), row-major */
static void quat_rot(const double *qi, double L[9]) {
  double s = 1.0 / sqrt(qi[0] * qi[0] + qi[1] * qi[1] + qi[2] * qi[2] + qi[3] * qi[3]);
  double q0 = qi[0] * s, q1 = qi[1] * s, q2 = qi[2] * s, q3 = qi[3] * s;
  L[0] = 1 - 2 * (q2 * q2 + q3 * q3), L[1] = 2 * (q1 * q2 - q0 * q3), L[2] = 2 * (q1 * q3 + q0 * q2);
  L[3] = 2 * (q1 * q2 + q0 * q3), L[4] = 1 - 2 * (q1 * q1 + q3 * q3), L[5] = 2 * (q2 * q3 - q0 * q1);
  L[6] = 2 * (q1 * q3 - q0 * q2), L[7] = 2 * (q2 * q3 + q0 * q1), L[8] = 1 - 2 * (q1 * q1 + q2 * q2);
}

/* the disk's Lam (A.1): rotation by -phi about e2 */
static void disk_rot(double phi, double L[9]) {
  double c = cos(phi), s = sin(phi);
  L[0] = c, L[1] = 0, L[2] = -s, L[3] = 0, L[4] = 1, L[5] = 0, L[6] = s, L[7] = 0, L[8] = c;
}


static int rail_eval(const nh_ball_params *p, int i, double th, double z[3], double zp[3], double zpp[3]) {
  if (p->rail) return p->rail(i, th, z, zp, zpp, p->rail_user);
  const double c = cos(th), s = sin(th), R = p->rail_radius[i], *B = p->rail_basis[i];
  for (int k = 0; k < 3; k++) {
    z[k] = R * (B[3 * k] * c + B[3 * k + 2] * s);
    zp[k] = R * (-B[3 * k] * s + B[3 * k + 2] * c);
    zpp[k] = -z[k];
  }
  return 0;
}

static int input_eval(const nh_ball_params *p, double t, double *u) {
  if (p->input) return p->input(t, u, p->input_user);
  double pr = nh_ball_profile(t);
  for (int i = 0; i < p->n; i++) u[i] = p->input_sign[i] * pr;
  return 0;
}

static int force_eval(const nh_ball_params *p, double t, double F[3]) {
  if (p->force) return p->force(t, F, p->force_user);
  memcpy(F, p->Fe, 3 * sizeof(double));
  return 0;
}


/* ---- kinematics and the three dynamics ------------------------------------------------- */

/* fill the kinematics at (t, theta, thd) with rotation L and body angular velocity Om */
static int kin_fill(const ball_data *d, double t, const double *th, const double *thd,
                    const double L[9], const double Om[3], kin *k) {
  const nh_ball_params *p = &d->p;
  const int n = p->n;
  double u[NH_BALL_MAX_MASSES];
  int rc;
  k->n1 = n + 1;
  memcpy(k->L, L, sizeof k->L);
  k->Gam[0] = L[6], k->Gam[1] = L[7], k->Gam[2] = L[8];
  if ((rc = force_eval(p, t, k->Fe)) || (rc = input_eval(p, t, u))) return rc;
  mtv3(L, k->Fe, k->GamF);
  k->m[0] = p->m0, k->thd[0] = 0.0, k->thdd[0] = 0.0;
  memcpy(k->zeta[0], p->chi0, 3 * sizeof(double));
  memset(k->zp[0], 0, 3 * sizeof(double));
  memset(k->zpp[0], 0, 3 * sizeof(double));
  for (int i = 1; i <= n; i++) {
    k->m[i] = p->m[i - 1], k->thd[i] = thd[i - 1], k->thdd[i] = u[i - 1];
    if ((rc = rail_eval(p, i - 1, th[i - 1], k->zeta[i], k->zp[i], k->zpp[i]))) return rc;
  }
  // w_i = Om x (Om x zeta + 2 thd zeta') + thd^2 zeta'' + thdd zeta'
  for (int i = 0; i <= n; i++) {
    double a[3], b[3];
    cross(Om, k->zeta[i], a);
    for (int c = 0; c < 3; c++) a[c] += 2.0 * k->thd[i] * k->zp[i][c];
    cross(Om, a, b);
    for (int c = 0; c < 3; c++)
      k->w[i][c] = b[c] + k->thd[i] * k->thd[i] * k->zpp[i][c] + k->thdd[i] * k->zp[i][c];
  }
  return 0;
}

/* rolling ball: Om' (3.2), N (3.3), fvec (3.4) */
static int rolling_core(const ball_data *d, const kin *k, const double Om[3], double Omd[3],
                        double *N, double fvec[2]) {
  const nh_ball_params *p = &d->p;
  double nA[9], b[3], IOm[3], s[3], t1[3], t2[3];
  // -A = I - sum m hat(s)^2 = I + sum m (|s|^2 Id - s s^T);  b
  memcpy(nA, p->I, sizeof nA);
  mv3(p->I, Om, IOm);
  cross(Om, IOm, b);
  cross(k->GamF, k->Gam, t1);
  for (int c = 0; c < 3; c++) b[c] += p->r * t1[c];
  for (int i = 0; i < k->n1; i++) {
    for (int c = 0; c < 3; c++) s[c] = p->r * k->Gam[c] + k->zeta[i][c];
    double ss = dot3(s, s), m = k->m[i];
    for (int a = 0; a < 3; a++)
      for (int c = 0; c < 3; c++) nA[3 * a + c] += m * ((a == c ? ss : 0.0) - s[a] * s[c]);
    for (int c = 0; c < 3; c++) t1[c] = p->g * k->Gam[c] + k->w[i][c];
    cross(s, t1, t2);
    for (int c = 0; c < 3; c++) b[c] += m * t2[c];
  }
  // Om' = A^-1 b = -(-A)^-1 b
  if (nh_la_chol(3, nA, 0.0, NULL) != 0) return NH_ERR_NOT_SPD;
  for (int c = 0; c < 3; c++) Omd[c] = -b[c];
  nh_la_chol_solve(3, nA, Omd);
  // Fsum, N, fvec
  double F[3] = {0, 0, 0}, LF[3];
  for (int i = 0; i < k->n1; i++) {
    for (int c = 0; c < 3; c++) s[c] = p->r * k->Gam[c] + k->zeta[i][c];
    cross(Omd, s, t1);
    for (int c = 0; c < 3; c++) F[c] += k->m[i] * (t1[c] + k->w[i][c]);
  }
  *N = d->M * p->g + dot3(F, k->Gam) - k->Fe[2];
  mv3(k->L, F, LF);
  fvec[0] = LF[0] - k->Fe[0];
  fvec[1] = LF[1] - k->Fe[1];
  return 0;
}

/* disk: phi'' (4.1-4.2), N (4.3), f1 (4.4) */
static void disk_core(const ball_data *d, const kin *k, double phi, double phd, double *phdd,
                      double *N, double *f1) {
  const nh_ball_params *p = &d->p;
  const double r = p->r, g = p->g, sp = sin(phi), cp = cos(phi);
  double num = -r * k->Fe[0], den = p->I[4];
  for (int i = 0; i < k->n1; i++) {
    const double m = k->m[i], z1 = k->zeta[i][0], z3 = k->zeta[i][2], td = k->thd[i], tdd = k->thdd[i];
    const double a1 = -2 * phd * td * k->zp[i][2] + td * td * k->zpp[i][0] + tdd * k->zp[i][0];
    const double a3 = 2 * phd * td * k->zp[i][0] + td * td * k->zpp[i][2] + tdd * k->zp[i][2];
    num += m * ((g + r * phd * phd) * (z3 * sp - z1 * cp) + (r * cp + z3) * a1 - (r * sp + z1) * a3);
    den += m * ((r * sp + z1) * (r * sp + z1) + (r * cp + z3) * (r * cp + z3));
  }
  const double pdd = num / den;
  double n_ = d->M * g - k->Fe[2], f = d->M * r * pdd + k->Fe[0];
  for (int i = 0; i < k->n1; i++) {
    const double m = k->m[i], z1 = k->zeta[i][0], z3 = k->zeta[i][2], td = k->thd[i], tdd = k->thdd[i];
    const double h1 = -pdd * z3 - phd * phd * z1 - 2 * phd * td * k->zp[i][2] + td * td * k->zpp[i][0] + tdd * k->zp[i][0];
    const double h3 = pdd * z1 - phd * phd * z3 + 2 * phd * td * k->zp[i][0] + td * td * k->zpp[i][2] + tdd * k->zp[i][2];
    n_ += m * (h1 * sp + h3 * cp);
    f += m * (-h1 * cp + h3 * sp);
  }
  *phdd = pdd, *N = n_, *f1 = -f;
}

/* flight: Om' (B.15), z_GC'' (B.6) */
static int flight_core(const ball_data *d, const kin *k, const double Om[3], double Omd[3],
                       double zdd[3]) {
  const nh_ball_params *p = &d->p;
  const double M = d->M;
  double c[3] = {0, 0, 0}, wbar[3] = {0, 0, 0}, K[9], rhs[3], IOm[3], t1[3], t2[3];
  for (int i = 0; i < k->n1; i++)
    for (int a = 0; a < 3; a++) c[a] += k->m[i] * k->zeta[i][a] / M, wbar[a] += k->m[i] * k->w[i][a] / M;
  // K = I + sum m hat(zeta) hat(c - zeta);  hat(a) hat(b) = b a^T - <a, b> Id
  memcpy(K, p->I, sizeof K);
  for (int i = 0; i < k->n1; i++) {
    double e[3] = {c[0] - k->zeta[i][0], c[1] - k->zeta[i][1], c[2] - k->zeta[i][2]};
    double ze = dot3(k->zeta[i], e);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) K[3 * a + b] += k->m[i] * (e[a] * k->zeta[i][b] - (a == b ? ze : 0.0));
  }
  mv3(p->I, Om, IOm);
  cross(IOm, Om, rhs);
  for (int i = 0; i < k->n1; i++) {
    for (int a = 0; a < 3; a++) t1[a] = k->GamF[a] / M - wbar[a] + k->w[i][a];
    cross(k->zeta[i], t1, t2);
    for (int a = 0; a < 3; a++) rhs[a] -= k->m[i] * t2[a];
  }
  // K is SPD in exact arithmetic (I plus the point cloud's inertia about its centre); symmetrise
  for (int a = 0; a < 3; a++)
    for (int b = a + 1; b < 3; b++) K[3 * a + b] = K[3 * b + a] = 0.5 * (K[3 * a + b] + K[3 * b + a]);
  if (nh_la_chol(3, K, 0.0, NULL) != 0) return NH_ERR_NOT_SPD;
  memcpy(Omd, rhs, sizeof rhs);
  nh_la_chol_solve(3, K, Omd);
  double S[3] = {0, 0, 0}, LS[3];
  for (int i = 0; i < k->n1; i++) {
    cross(Omd, k->zeta[i], t1);
    for (int a = 0; a < 3; a++) S[a] += k->m[i] * (t1[a] + k->w[i][a]);
  }
  mv3(k->L, S, LS);
  for (int a = 0; a < 3; a++) zdd[a] = k->Fe[a] / M - LS[a] / M - (a == 2 ? p->g : 0.0);
  return 0;
}

/* ---- state layout ------------------------------------------------------------------------ */

/* offsets: theta 0, thd n, then q (ball, flight) or phi (disk) at 2n */
/* the orientation quaternion of a state: the state's own, or for the DAE form the algebraic
 * q0 = sigma sqrt(1 - |q_vec|^2) (sigma: the sign of the q0 slot) with q_vec; 0 when |q_vec| > 1 */
static void state_quat(const ball_data *d, const double *x, double q[4]) {
  const double *qs = x + 2 * d->p.n;
  memcpy(q, qs, 4 * sizeof(double));
  if (d->kind == NH_BALL_DAE) q[0] = copysign(sqrt(fmax(0.0, 1.0 - (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]))), qs[0]);
}

static void state_rot(const ball_data *d, const double *x, double L[9], double Om[3]) {
  const int n = d->p.n;
  if (d->kind == NH_BALL_DISK) {
    disk_rot(x[2 * n], L);
    Om[0] = 0.0, Om[1] = -x[2 * n + 1], Om[2] = 0.0;
  } else {
    double q[4];
    state_quat(d, x, q);
    quat_rot(q, L);
    memcpy(Om, x + 2 * n + 4, 3 * sizeof(double));
  }
}

static const ball_data *data_of(void *user) { return (const ball_data *)user; }

/* the rates every form shares: theta' (copied), theta'' = u (from the kinematics) and, for
 * the ball and flight, q' = 1/2 q * [0; Om] */
static void common_rates(const ball_data *d, const kin *k, const double *x, const double Om[3], double *xd) {
  const int n = d->p.n;
  memcpy(xd, x + n, (size_t)n * sizeof(double));
  for (int i = 0; i < n; i++) xd[n + i] = k->thdd[i + 1];
  if (d->kind == NH_BALL_DISK) return;
  const double *q = x + 2 * n;
  double *qd = xd + 2 * n;
  qd[0] = -0.5 * (q[1] * Om[0] + q[2] * Om[1] + q[3] * Om[2]);
  qd[1] = 0.5 * (q[0] * Om[0] + q[2] * Om[2] - q[3] * Om[1]);
  qd[2] = 0.5 * (q[0] * Om[1] + q[3] * Om[0] - q[1] * Om[2]);
  qd[3] = 0.5 * (q[0] * Om[2] + q[1] * Om[1] - q[2] * Om[0]);
}

static int ball_rhs(double t, const double *x, double *xd, void *user) {
  const ball_data *d = data_of(user);
  const int n = d->p.n;
  kin k;
  double L[9], Om[3], Omd[3], N, f[2], om[3];
  int rc;
  state_rot(d, x, L, Om);
  if ((rc = kin_fill(d, t, x, x + n, L, Om, &k))) return rc;
  if ((rc = rolling_core(d, &k, Om, Omd, &N, f))) return rc;
  common_rates(d, &k, x, Om, xd);
  memcpy(xd + 2 * n + 4, Omd, sizeof Omd);
  mv3(L, Om, om);
  xd[2 * n + 7] = d->p.r * om[1];
  xd[2 * n + 8] = -d->p.r * om[0];
  return 0;
}

static int disk_rhs(double t, const double *x, double *xd, void *user) {
  const ball_data *d = data_of(user);
  const int n = d->p.n;
  kin k;
  double L[9], Om[3], phdd, N, f1;
  int rc;
  state_rot(d, x, L, Om);
  if ((rc = kin_fill(d, t, x, x + n, L, Om, &k))) return rc;
  disk_core(d, &k, x[2 * n], x[2 * n + 1], &phdd, &N, &f1);
  common_rates(d, &k, x, Om, xd);
  xd[2 * n] = x[2 * n + 1];
  xd[2 * n + 1] = phdd;
  return 0;
}

static int flight_rhs(double t, const double *x, double *xd, void *user) {
  const ball_data *d = data_of(user);
  const int n = d->p.n;
  kin k;
  double L[9], Om[3], Omd[3], zdd[3];
  int rc;
  state_rot(d, x, L, Om);
  if ((rc = kin_fill(d, t, x, x + n, L, Om, &k))) return rc;
  if ((rc = flight_core(d, &k, Om, Omd, zdd))) return rc;
  common_rates(d, &k, x, Om, xd);
  memcpy(xd + 2 * n + 4, Omd, sizeof Omd);
  memcpy(xd + 2 * n + 7, x + 2 * n + 10, 3 * sizeof(double));
  memcpy(xd + 2 * n + 10, zdd, sizeof zdd);
  return 0;
}

/* The DAE form (6.5) in its state-space form (Hairer & Wanner VII.1): q0 is algebraic, taken
 * from 0 = |q|^2 - 1 as q0 = sigma sqrt(1 - |q_vec|^2) with sigma the sign of the q0 slot (the
 * branch of the last accepted step) wherever it is used (state_quat); the slot has no
 * differential equation (rate 0) and the projection re-solves it after each step. Where |q_vec| reaches 1 (q0 = 0) the implicit
 * function theorem fails and the branch cannot change: the formulation breaks down (spec 7.8). */
static int dae_rhs(double t, const double *x, double *xd, void *user) {
  const int n = data_of(user)->p.n;
  double xs[2 * NH_BALL_MAX_MASSES + 9];
  const double *qv = x + 2 * n + 1, u = 1.0 - (qv[0] * qv[0] + qv[1] * qv[1] + qv[2] * qv[2]);
  if (!(u >= 0.0)) return 1; /* outside the constraint's domain: a smaller step */
  memcpy(xs, x, (size_t)(2 * n + 9) * sizeof(double));
  xs[2 * n] = copysign(sqrt(u), x[2 * n]);
  int rc = ball_rhs(t, xs, xd, user);
  xd[2 * n] = 0.0;
  return rc;
}

static int dae_project(double *x, void *user) {
  double *q = x + 2 * data_of(user)->p.n, u = 1.0 - (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (u >= 0.0) {
    q[0] = copysign(sqrt(u), q[0]);
    return 0;
  }
  double s = sqrt(1.0 - u); /* |q_vec| > 1: the nearest point of the constraint */
  for (int c = 1; c < 4; c++) q[c] /= s;
  q[0] = copysign(0.0, q[0]);
  return 0;
}

/* ---- evaluation of everything at one state ------------------------------------------------ */

static int evaluate(const ball_data *d, double t, const double *x, nh_ball_eval *o) {
  const nh_ball_params *p = &d->p;
  const int n = p->n;
  kin k;
  double L[9], Om[3];
  int rc;
  memset(o, 0, sizeof *o);
  state_rot(d, x, L, Om);
  if ((rc = kin_fill(d, t, x, x + n, L, Om, &k))) return NH_ERR_CALLBACK;
  memcpy(o->Om, Om, sizeof o->Om);
  memcpy(o->Lam, L, sizeof o->Lam);
  double zgc_d[3] = {0, 0, 0}; /* flight: z_GC' */
  switch (d->kind) {
  case NH_BALL_ROLLING:
  case NH_BALL_DAE:
    if ((rc = rolling_core(d, &k, Om, o->Omd, &o->N, o->fvec))) return rc;
    o->z_gc[0] = x[2 * n + 7], o->z_gc[1] = x[2 * n + 8];
    break;
  case NH_BALL_DISK: {
    double phdd;
    disk_core(d, &k, x[2 * n], x[2 * n + 1], &phdd, &o->N, &o->fvec[0]);
    o->Omd[1] = -phdd;
    o->z_gc[0] = d->z_a - p->r * (x[2 * n] - d->phi_a);
    o->z_gc[1] = p->zxy0[1];
    break;
  }
  default: {
    double zdd[3];
    if ((rc = flight_core(d, &k, Om, o->Omd, zdd))) return rc;
    memcpy(o->z_gc, x + 2 * n + 7, 3 * sizeof(double));
    memcpy(zgc_d, x + 2 * n + 10, 3 * sizeof(double));
    break;
  }
  }
  o->fs = hypot(o->fvec[0], o->fvec[1]);
  o->ratio = o->N > 0.0 ? o->fs / o->N : INFINITY;
  // orientation as a quaternion (disk: rotation by -phi about e2)
  if (d->kind == NH_BALL_DISK) {
    o->q[0] = cos(0.5 * x[2 * n]), o->q[2] = -sin(0.5 * x[2 * n]);
  } else {
    double q[4];
    state_quat(d, x, q);
    const double s = 1.0 / sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int c = 0; c < 4; c++) o->q[c] = q[c] * s;
  }
  // contact point, centre of mass, energy and actuator power
  o->z_cp[0] = o->z_gc[0], o->z_cp[1] = o->z_gc[1], o->z_cp[2] = o->z_gc[2] - p->r;
  const int rolling = d->kind != NH_BALL_FLIGHT;
  double E = 0.5 * dot3(Om, (double[3]){p->I[0] * Om[0] + p->I[1] * Om[1] + p->I[2] * Om[2],
                                       p->I[3] * Om[0] + p->I[4] * Om[1] + p->I[5] * Om[2],
                                       p->I[6] * Om[0] + p->I[7] * Om[1] + p->I[8] * Om[2]});
  double P = 0.0, vgc[3];
  mtv3(L, zgc_d, vgc); /* flight: z_GC' in the body frame */
  for (int i = 0; i < k.n1; i++) {
    double s[3], v[3], a[3], chid[3];
    for (int c = 0; c < 3; c++) {
      s[c] = (rolling ? p->r * k.Gam[c] : 0.0) + k.zeta[i][c];
      chid[c] = k.thd[i] * k.zp[i][c];
      o->cm_body[c] += k.m[i] * k.zeta[i][c] / d->M;
    }
    if (i > 0) memcpy(o->chi[i - 1], k.zeta[i], sizeof o->chi[0]);
    cross(Om, s, v);
    for (int c = 0; c < 3; c++) v[c] += chid[c] + vgc[c];
    E += k.m[i] * (0.5 * dot3(v, v) + p->g * (dot3(k.zeta[i], k.Gam) + o->z_gc[2]));
    cross(o->Omd, s, a);
    for (int c = 0; c < 3; c++) a[c] += k.w[i][c] + p->g * k.Gam[c];
    if (i > 0 && rolling) P += k.m[i] * dot3(a, chid);
  }
  mv3(L, o->cm_body, o->cm_space);
  o->energy = E;
  o->power = P;
  return NH_OK;
}

int nh_ball_evaluate(const nh_model *model, double t, const double *x, nh_ball_eval *o) {
  if (!o || !x || nh_ball_model_kind(model) == NH_BALL_NONE) return NH_ERR_ARG;
  return evaluate(data_of(model->user), t, x, o);
}

/* ---- model callbacks --------------------------------------------------------------------- */

/* N and mu N - f_s only (no energy, positions): the monitors run at every dense sample */
static int ball_monitor(double t, const double *x, double *m, void *user) {
  const ball_data *d = data_of(user);
  const int n = d->p.n;
  kin k;
  double L[9], Om[3], Omd[3], N, f[2];
  state_rot(d, x, L, Om);
  if (kin_fill(d, t, x, x + n, L, Om, &k)) return -1;
  if (d->kind == NH_BALL_DISK) {
    double phdd;
    disk_core(d, &k, x[2 * n], x[2 * n + 1], &phdd, &N, &f[0]);
    f[1] = 0.0;
  } else if (rolling_core(d, &k, Om, Omd, &N, f)) {
    return -1;
  }
  m[0] = N;
  if (d->p.mu > 0.0) m[1] = d->p.mu * N - hypot(f[0], f[1]);
  return 0;
}

static int flight_monitor(double t, const double *x, double *m, void *user) {
  (void)t;
  m[0] = x[2 * data_of(user)->p.n + 9]; /* z_GC3 */
  return 0;
}

static int ball_energy(double t, const double *x, double *E, void *user) {
  nh_ball_eval e;
  if (evaluate(data_of(user), t, x, &e)) return -1;
  *E = e.energy;
  return 0;
}

/* the rotation part: q at x[2n], body angular velocity Om at x[2n + 4] (ball, flight) */
static int ball_angvel(double t, const double *x, double *w, void *user) {
  (void)t;
  memcpy(w, x + 2 * data_of(user)->p.n + 4, 3 * sizeof(double));
  return 0;
}

/* the projection method: q <- q / |q| */
static int ball_project(double *x, void *user) {
  double *q = x + 2 * data_of(user)->p.n;
  double s = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(s > 0.0)) return -1;
  for (int c = 0; c < 4; c++) q[c] /= s;
  return 0;
}

nh_ball_kind nh_ball_model_kind(const nh_model *m) {
  if (!m || m->form != NH_FORM_ODE) return NH_BALL_NONE;
  if (m->rhs == ball_rhs) return NH_BALL_ROLLING;
  if (m->rhs == dae_rhs) return NH_BALL_DAE;
  if (m->rhs == disk_rhs) return NH_BALL_DISK;
  if (m->rhs == flight_rhs) return NH_BALL_FLIGHT;
  return NH_BALL_NONE;
}

const nh_ball_params *nh_ball_model_params(const nh_model *m) {
  return nh_ball_model_kind(m) == NH_BALL_NONE ? NULL : &data_of(m->user)->p;
}

/* ---- building the models ------------------------------------------------------------------- */

#define BALL_MAX_STATES (2 * NH_BALL_MAX_MASSES + 13)

static nh_model *build(const nh_ball_params *p, nh_ball_kind kind, char *msg, size_t size) {
  if (nh_ball_params_check(p, msg, size) != NH_OK) return NULL;
  const int n = p->n;
  ball_data d;
  memset(&d, 0, sizeof d);
  d.kind = kind;
  d.p = *p;
  d.M = p->m0;
  for (int i = 0; i < n; i++) d.M += p->m[i];
  // names and initial state
  static const char *qn[] = {"q0", "q1", "q2", "q3"}, *omn[] = {"Om1", "Om2", "Om3"};
  static const char *zn[] = {"x", "y", "z"}, *zdn[] = {"x_dot", "y_dot", "z_dot"};
  char names[BALL_MAX_STATES][NH_MAX_NAME];
  const char *np[BALL_MAX_STATES];
  double x0[BALL_MAX_STATES];
  int nx = 0;
  for (int i = 0; i < n; i++) snprintf(names[nx], NH_MAX_NAME, "theta%d", i + 1), x0[nx++] = p->theta0[i];
  for (int i = 0; i < n; i++) snprintf(names[nx], NH_MAX_NAME, "theta%d_dot", i + 1), x0[nx++] = p->thetad0[i];
  const double nq = sqrt(dot3(p->q0 + 1, p->q0 + 1) + p->q0[0] * p->q0[0]);
  if (kind == NH_BALL_DISK) {
    // planar data: E2 principal, chi0 and rails in the E1-E3 plane, F_e in e1-e3, q0 about e2
    int bad = fabs(p->I[1]) + fabs(p->I[3]) + fabs(p->I[5]) + fabs(p->I[7]) > BALL_PLANAR_TOL ||
              fabs(p->chi0[1]) > BALL_PLANAR_TOL || fabs(p->Fe[1]) > BALL_PLANAR_TOL ||
              fabs(p->q0[1]) + fabs(p->q0[3]) > BALL_PLANAR_TOL ||
              fabs(p->Om0[0]) + fabs(p->Om0[2]) > BALL_PLANAR_TOL;
    for (int i = 0; i < n && !p->rail; i++)
      bad |= fabs(p->rail_basis[i][3]) + fabs(p->rail_basis[i][5]) > BALL_PLANAR_TOL;
    if (bad) {
      nh_set_msg(msg, size, "disk: the data are not planar (E2 must be principal; chi0, the rails, Fe "
                            "in the e1-e3 plane; q0 and Om0 about e2)");
      return NULL;
    }
    d.phi_a = -2.0 * atan2(p->q0[2], p->q0[0]);
    d.z_a = p->zxy0[0];
    snprintf(names[nx], NH_MAX_NAME, "phi"), x0[nx++] = d.phi_a;
    snprintf(names[nx], NH_MAX_NAME, "phi_dot"), x0[nx++] = -p->Om0[1];
  } else {
    for (int c = 0; c < 4; c++) snprintf(names[nx], NH_MAX_NAME, "%s", qn[c]), x0[nx++] = p->q0[c] / nq;
    for (int c = 0; c < 3; c++) snprintf(names[nx], NH_MAX_NAME, "%s", omn[c]), x0[nx++] = p->Om0[c];
    for (int c = 0; c < 2; c++) snprintf(names[nx], NH_MAX_NAME, "%s", zn[c]), x0[nx++] = p->zxy0[c];
    if (kind == NH_BALL_FLIGHT) {
      snprintf(names[nx], NH_MAX_NAME, "z"), x0[nx++] = 0.0;
      for (int c = 0; c < 3; c++) snprintf(names[nx], NH_MAX_NAME, "%s", zdn[c]), x0[nx++] = 0.0;
    }
  }
  for (int i = 0; i < nx; i++) np[i] = names[i];

  nh_monitor_def mons[2] = {
      {"normal_force", NH_MONITOR_FALLING, p->stop_on_detach ? NH_MONITOR_STOP : NH_MONITOR_REPORT},
      {"slip", NH_MONITOR_FALLING, p->stop_on_slip ? NH_MONITOR_STOP : NH_MONITOR_REPORT}};
  nh_monitor_def touch = {"touchdown", NH_MONITOR_FALLING, NH_MONITOR_STOP};
  nh_model_def md = nh_model_def_default();
  char mname[NH_MAX_NAME + 8];
  snprintf(mname, sizeof mname, "%s%s", p->name[0] ? p->name : kind == NH_BALL_DISK ? "rolling-disk" : "rolling-ball",
           kind == NH_BALL_FLIGHT ? "-flight" : kind == NH_BALL_DAE ? "-dae" : "");
  md.name = mname;
  md.form = NH_FORM_ODE;
  md.nx = nx;
  md.state_names = np;
  md.x0 = x0;
  md.rhs = kind == NH_BALL_DISK ? disk_rhs : kind == NH_BALL_FLIGHT ? flight_rhs : kind == NH_BALL_DAE ? dae_rhs : ball_rhs;
  md.energy = ball_energy;
  md.project = kind == NH_BALL_DISK ? NULL : kind == NH_BALL_DAE ? dae_project : ball_project;
  if (kind == NH_BALL_ROLLING || kind == NH_BALL_FLIGHT) md.angvel = ball_angvel, md.quat = 2 * n;
  if (kind == NH_BALL_FLIGHT) {
    md.nmon = 1, md.monitors = &touch, md.monitor = flight_monitor;
  } else {
    md.nmon = p->mu > 0.0 ? 2 : 1, md.monitors = mons, md.monitor = ball_monitor;
  }
  md.user = &d;
  md.user_size = sizeof d;
  nh_model *m = nh_model_create(&md, msg, size);
  if (!m) return NULL;
  // the initial state must be evaluable (rails, inputs, a solvable Om')
  double xd[BALL_MAX_STATES];
  if (md.rhs(0.0, m->x0, xd, m->user) != 0) {
    nh_set_msg(msg, size, "the equations of motion cannot be evaluated at the initial state");
    nh_model_destroy(m);
    return NULL;
  }
  return m;
}

nh_model *nh_ball_create(const nh_ball_params *p, char *msg, size_t size) {
  return build(p, NH_BALL_ROLLING, msg, size);
}
nh_model *nh_ball_dae_create(const nh_ball_params *p, char *msg, size_t size) {
  return build(p, NH_BALL_DAE, msg, size);
}
nh_model *nh_disk_create(const nh_ball_params *p, char *msg, size_t size) {
  return build(p, NH_BALL_DISK, msg, size);
}
nh_model *nh_ball_flight_create(const nh_ball_params *p, char *msg, size_t size) {
  return build(p, NH_BALL_FLIGHT, msg, size);
}

int nh_ball_flight_state(const nh_model *ball, double t, const double *x, double *xf, double *z_acc) {
  const nh_ball_kind kind = nh_ball_model_kind(ball);
  if ((kind != NH_BALL_ROLLING && kind != NH_BALL_DAE) || !x || !xf) return NH_ERR_ARG;
  const ball_data *d = data_of(ball->user);
  const int n = d->p.n;
  double L[9], Om[3], v[3], rG[3], vs[3];
  memcpy(xf, x, (size_t)(2 * n + 9) * sizeof(double));
  state_rot(d, x, L, Om);
  // z_GC = [zxy, 0];  z_GC' = Lam (Om x r Gam) (2.3)
  xf[2 * n + 9] = 0.0;
  for (int c = 0; c < 3; c++) rG[c] = d->p.r * L[6 + c];
  cross(Om, rG, v);
  mv3(L, v, vs);
  memcpy(xf + 2 * n + 10, vs, sizeof vs);
  if (z_acc) {
    ball_data fd = *d;
    double xd[BALL_MAX_STATES];
    fd.kind = NH_BALL_FLIGHT;
    if (flight_rhs(t, xf, xd, &fd) != 0) return NH_ERR_CALLBACK;
    *z_acc = xd[2 * n + 12];
  }
  return NH_OK;
}

int nh_ball_dae_rhs(const nh_model *ball, double t, const double *x, double *G, double *mdiag) {
  const nh_ball_kind kind = nh_ball_model_kind(ball);
  if ((kind != NH_BALL_ROLLING && kind != NH_BALL_DAE) || !x || !G) return NH_ERR_ARG;
  const int n = data_of(ball->user)->p.n, nx = 2 * n + 9;
  // the ODE's right side, with the q0 row replaced by the constraint |q|^2 - 1 (6.5)
  if (ball_rhs(t, x, G, ball->user) != 0) return NH_ERR_CALLBACK;
  const double *q = x + 2 * n;
  G[2 * n] = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1.0;
  if (mdiag)
    for (int i = 0; i < nx; i++) mdiag[i] = i == 2 * n ? 0.0 : 1.0;
  return NH_OK;
}

/* ---- regime statistics --------------------------------------------------------------------- */

void nh_ball_stats_init(nh_ball_stats *s) {
  memset(s, 0, sizeof *s);
  s->min_N = INFINITY;
}

int nh_ball_stats_update(nh_ball_stats *s, const nh_model *model, double t, const double *x) {
  nh_ball_eval e;
  int rc = nh_ball_evaluate(model, t, x, &e);
  if (rc) return rc;
  if (s->samples == 0 || e.ratio > s->min_mu) s->min_mu = e.ratio, s->t_min_mu = t;
  if (e.N < s->min_N) s->min_N = e.N, s->t_min_N = t;
  if (s->samples == 0 || e.fs > s->max_fs) s->max_fs = e.fs, s->t_max_fs = t;
  if (!(e.N > 0.0)) s->detached = 1;
  s->samples++;
  return NH_OK;
}

/* ---- running in segments between the input's kinks ------------------------------------------ */

int nh_ball_breakpoints(const nh_model *model, double breaks[2]) {
  const nh_ball_params *p = nh_ball_model_params(model);
  if (!p || p->input) return 0;
  breaks[0] = 0.1, breaks[1] = 0.2;
  return 2;
}

int nh_ball_run(nh_sim *sim, double t_end, nh_observer_fn obs, void *user) {
  if (!sim) return NH_ERR_ARG;
  double breaks[2];
  const int n = nh_ball_breakpoints(nh_sim_model(sim), breaks);
  return nh_sim_run_breaks(sim, t_end, 0, breaks, n, obs, user);
}
