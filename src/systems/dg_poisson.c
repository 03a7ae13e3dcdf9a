/* dg_poisson.c - almost-Poisson models x' = Pi(x) grad H(x) (nholo/model.h) of Celledoni,
 * Farre Puiggali, Hoiseth, Martin de Diego, "Energy-Preserving Integrators Applied to
 * Nonholonomic Systems" (spec 002 S1-S3), each with the exact Hessian of H and d(Pi g)/dx:
 *
 *   quartic-ap  sec. 4.1, eq. (21) (with erratum E4): x = (x, w1..w3, z1..z3, xi1..xi3,
 *               eta1..eta3), kappa = w.eta / (1 + |w|^2),
 *               H = 1/2 |xi|^2 + 1/2 (|eta|^2 - (w.eta)^2/(1 + |w|^2)) + V(x, w, z)
 *               Pi: x-eta w^T, w-xi I, z-eta -I, xi-eta -kappa I (and skew); Pi and T
 *               also in sparse-fill form (only the entries of their patterns written)
 *   sleigh-dg   sec. 4.2: x = (x1, x2, theta, rho1, rho2), H = 1/2 (rho1^2 + rho2^2),
 *               Pi[x1,rho2] = cos(th)/sqrt(m), Pi[x2,rho2] = sin(th)/sqrt(m),
 *               Pi[th,rho1] = 1/sqrt(J + m a^2), Pi[rho1,rho2] = -C rho1, C = a sqrt(m)/(J + m a^2)
 *   suslov      sec. 4.3: x = (rho1, rho2), H = 1/2 (rho1^2/I11 + rho2^2/I22),
 *               Pi = [[0, -s], [s, 0]], s = C1 rho1 + C2 rho2, C1 = I13/I11, C2 = I23/I22
 *   gearbox-ap  sec. 4.4 in the frame X1 = (-sin q3, 1, 0), X2 = (0, 0, 1) (spec 002 S4, not in
 *               the paper): x = (q1, q2, q3, rho1, rho2), H = rho1^2 / (2 (1 + sin^2 q3))
 *               + rho2^2/2 + V(q), Pi = [[0, X], [-X^T, S]], S = [[0, k], [-k, 0]],
 *               k = sin q3 cos q3 rho1 / (1 + sin^2 q3); Hessian and Pi-Jacobian left to the
 *               library's differences */
#include <math.h>
#include <string.h>

#include "base/msg.h"
#include "nholo/systems/dg_examples.h"

/* ---- quartic-ap ---------------------------------------------------------------------- */

#define QN 3
#define QX 0
#define QW 1
#define QZ (1 + QN)
#define QXI (1 + 2 * QN)
#define QETA (1 + 3 * QN)
#define QNX (1 + 4 * QN)

static double qap_kappa(const double *x, double *s) {
  double ww = 0.0, we = 0.0;
  for (int i = 0; i < QN; i++) ww += x[QW + i] * x[QW + i], we += x[QW + i] * x[QETA + i];
  *s = 1.0 + ww;
  return we / *s;
}

static int qap_hamiltonian(const double *x, double *H, double *dH, void *user) {
  (void)user;
  const double *w = x + QW, *z = x + QZ, *xi = x + QXI, *eta = x + QETA;
  double s, k = qap_kappa(x, &s);
  if (H) {
    double V = z[0] * z[0] * z[1] * z[1], K = 0.0, we = k * s;
    for (int i = 0; i < 1 + 2 * QN; i++) V += x[i] * x[i];
    for (int i = 0; i < QN; i++) V += w[i] * w[i] * z[i] * z[i], K += xi[i] * xi[i] + eta[i] * eta[i];
    *H = 0.5 * (K - we * we / s) + 0.5 * V;
  }
  if (dH) {
    dH[QX] = x[QX];
    for (int i = 0; i < QN; i++) {
      dH[QW + i] = w[i] * (1.0 + z[i] * z[i]) - k * eta[i] + k * k * w[i];
      dH[QZ + i] = z[i] * (1.0 + w[i] * w[i]);
      dH[QXI + i] = xi[i];
      dH[QETA + i] = eta[i] - k * w[i];
    }
    dH[QZ] += z[0] * z[1] * z[1];
    dH[QZ + 1] += z[0] * z[0] * z[1];
  }
  return 0;
}

static int qap_hess(const double *x, double *Hs, void *user) {
  (void)user;
  const int n = QNX;
  const double *w = x + QW, *z = x + QZ, *eta = x + QETA;
  double s, k = qap_kappa(x, &s);
  for (int i = 0; i < n * n; i++) Hs[i] = 0.0;
  // potential
  Hs[QX * n + QX] = 1.0;
  for (int i = 0; i < QN; i++) {
    int a = QW + i, b = QZ + i;
    Hs[a * n + a] = 1.0 + z[i] * z[i];
    Hs[b * n + b] = 1.0 + w[i] * w[i];
    Hs[a * n + b] = Hs[b * n + a] = 2.0 * w[i] * z[i];
  }
  Hs[QZ * n + QZ] += z[1] * z[1];
  Hs[(QZ + 1) * n + QZ + 1] += z[0] * z[0];
  Hs[QZ * n + QZ + 1] = Hs[(QZ + 1) * n + QZ] = 2.0 * z[0] * z[1];
  // kinetic: dkappa/dw_j = (eta_j - 2 kappa w_j)/s, dkappa/deta_j = w_j/s
  for (int i = 0; i < QN; i++) {
    Hs[(QXI + i) * n + QXI + i] = 1.0;
    for (int j = 0; j < QN; j++) {
      double a = 2.0 * k * w[i] - eta[i], dkw = (eta[j] - 2.0 * k * w[j]) / s;
      Hs[(QW + i) * n + QW + j] += a * dkw + (i == j ? k * k : 0.0);
      double we = (i == j ? -k : 0.0) + a * w[j] / s; /* d^2 K / dw_i deta_j */
      Hs[(QW + i) * n + QETA + j] = Hs[(QETA + j) * n + QW + i] = we;
      Hs[(QETA + i) * n + QETA + j] = (i == j ? 1.0 : 0.0) - w[i] * w[j] / s;
    }
  }
  return 0;
}

/* Pi's entries of qap_patterns (the sparse-fill form: the others are left) */
static int qap_poisson_s(const double *x, double *P, void *user) {
  (void)user;
  const int n = QNX;
  double s, k = qap_kappa(x, &s);
  for (int i = 0; i < QN; i++) {
    P[QX * n + QETA + i] = x[QW + i], P[(QETA + i) * n + QX] = -x[QW + i];
    P[(QW + i) * n + QXI + i] = 1.0, P[(QXI + i) * n + QW + i] = -1.0;
    P[(QZ + i) * n + QETA + i] = -1.0, P[(QETA + i) * n + QZ + i] = 1.0;
    P[(QXI + i) * n + QETA + i] = -k, P[(QETA + i) * n + QXI + i] = k;
  }
  return 0;
}

static int qap_poisson(const double *x, double *P, void *user) {
  for (int i = 0; i < QNX * QNX; i++) P[i] = 0.0;
  return qap_poisson_s(x, P, user);
}

/* T's entries of qap_patterns (sparse-fill) */
static int qap_poisson_jac_s(const double *x, const double *g, double *T, void *user) {
  (void)user;
  const int n = QNX;
  const double *w = x + QW, *eta = x + QETA;
  double s, k = qap_kappa(x, &s);
  for (int kk = 0; kk < QN; kk++) {
    double dkw = (eta[kk] - 2.0 * k * w[kk]) / s, dke = w[kk] / s;
    T[QX * n + QW + kk] = g[QETA + kk];
    for (int i = 0; i < QN; i++) {
      T[(QETA + i) * n + QW + kk] = (i == kk ? -g[QX] : 0.0) + g[QXI + i] * dkw;
      T[(QETA + i) * n + QETA + kk] = g[QXI + i] * dke;
      T[(QXI + i) * n + QW + kk] = -g[QETA + i] * dkw;
      T[(QXI + i) * n + QETA + kk] = -g[QETA + i] * dke;
    }
  }
  return 0;
}

static int qap_poisson_jac(const double *x, const double *g, double *T, void *user) {
  for (int i = 0; i < QNX * QNX; i++) T[i] = 0.0;
  return qap_poisson_jac_s(x, g, T, user);
}

/* the entries of Pi (skew pairs) and of T that qap_poisson and qap_poisson_jac may set */
static void qap_patterns(unsigned char *P, unsigned char *T) {
  const int n = QNX;
  memset(P, 0, (size_t)n * n), memset(T, 0, (size_t)n * n);
  for (int i = 0; i < QN; i++) {
    const int pairs[4][2] = {{QX, QETA + i}, {QW + i, QXI + i}, {QZ + i, QETA + i}, {QXI + i, QETA + i}};
    for (int p = 0; p < 4; p++) P[pairs[p][0] * n + pairs[p][1]] = P[pairs[p][1] * n + pairs[p][0]] = 1;
    T[QX * n + QW + i] = 1;
    for (int k = 0; k < QN; k++)
      T[(QETA + i) * n + QW + k] = T[(QETA + i) * n + QETA + k] = T[(QXI + i) * n + QW + k] =
          T[(QXI + i) * n + QETA + k] = 1;
  }
}

int nh_quartic_reduced_state(const double *q, const double *rho, double H, double *x) {
  if (!q || !rho || !x) return NH_ERR_ARG;
  double v[7];
  int rc = nh_quartic_velocity(q, rho, H, v);
  if (rc) return rc;
  // rho = X^T qdot: xi = w', eta_i = w_i x' - z_i'
  memcpy(x, q, sizeof(double) * 7);
  for (int i = 0; i < QN; i++) {
    x[QXI + i] = v[1 + i];
    x[QETA + i] = q[1 + i] * v[0] - v[1 + QN + i];
  }
  return NH_OK;
}

/* the definition of the almost-Poisson model `name`, x' = P(x) grad H(x) in first-order form:
 * nx states (names) from x0, H and P with their derivatives Hs and T (Nullable: by finite
 * differences); the callers add parameters, patterns and user data */
static nh_model_def ap_def(const char *name, int nx, const char *const *names, const double *x0, nh_hamiltonian_fn H,
                           nh_poisson_fn P, nh_hamiltonian_hess_fn Hs, nh_poisson_jac_fn T) {
  nh_model_def d = nh_model_def_default();
  d.name = name;
  d.form = NH_FORM_ODE;
  d.nx = nx;
  d.state_names = names;
  d.x0 = x0;
  d.hamiltonian = H, d.poisson = P;
  d.hamiltonian_hess = Hs, d.poisson_jac = T;
  return d;
}

nh_model *nh_quartic_ap_create(char *msg, size_t msg_size) {
  static const char *names[] = {"x", "w1", "w2", "w3", "z1", "z2", "z3", "xi1", "xi2", "xi3", "eta1", "eta2", "eta3"};
  static const char *pnames[] = {"n", "H"};
  const double q0[7] = {0.3, -0.5, 0.8, 0.2, 0.6, -0.4, 0.1};
  const double rho_dir[6] = {0.5, -0.2, 0.3, 0.4, 0.1, -0.7};
  const double pv[2] = {QN, 3.06};
  double x0[QNX];
  nh_quartic_reduced_state(q0, rho_dir, pv[1], x0);
  nh_model_def d = ap_def("quartic-ap", QNX, names, x0, qap_hamiltonian, qap_poisson, qap_hess, qap_poisson_jac);
  d.npar = 2, d.param_names = pnames, d.param_values = pv;
  d.poisson_sparse = qap_poisson_s, d.poisson_jac_sparse = qap_poisson_jac_s;
  d.hamiltonian_degree = 0; /* rational kinetic energy */
  unsigned char pp[QNX * QNX], tp[QNX * QNX];
  qap_patterns(pp, tp);
  d.poisson_pattern = pp, d.poisson_jac_pattern = tp;
  return nh_model_create(&d, msg, msg_size);
}

/* ---- sleigh-dg ----------------------------------------------------------------------- */

typedef struct sleigh_ap {
  double k1, k2, C; /* 1/sqrt(m), 1/sqrt(J + m a^2), a sqrt(m)/(J + m a^2) */
} sleigh_ap;

static int sap_hamiltonian(const double *x, double *H, double *dH, void *user) {
  (void)user;
  if (H) *H = 0.5 * (x[3] * x[3] + x[4] * x[4]);
  if (dH) dH[0] = dH[1] = dH[2] = 0.0, dH[3] = x[3], dH[4] = x[4];
  return 0;
}
static int sap_hess(const double *x, double *Hs, void *user) {
  (void)user;
  (void)x;
  for (int i = 0; i < 25; i++) Hs[i] = 0.0;
  Hs[18] = Hs[24] = 1.0;
  return 0;
}
static int sap_poisson(const double *x, double *P, void *user) {
  const sleigh_ap *p = user;
  double c = cos(x[2]) * p->k1, s = sin(x[2]) * p->k1;
  for (int i = 0; i < 25; i++) P[i] = 0.0;
  P[0 * 5 + 4] = c, P[4 * 5 + 0] = -c;
  P[1 * 5 + 4] = s, P[4 * 5 + 1] = -s;
  P[2 * 5 + 3] = p->k2, P[3 * 5 + 2] = -p->k2;
  P[3 * 5 + 4] = -p->C * x[3], P[4 * 5 + 3] = p->C * x[3];
  return 0;
}
static int sap_poisson_jac(const double *x, const double *g, double *T, void *user) {
  const sleigh_ap *p = user;
  double c = cos(x[2]) * p->k1, s = sin(x[2]) * p->k1;
  for (int i = 0; i < 25; i++) T[i] = 0.0;
  T[0 * 5 + 2] = -s * g[4];
  T[1 * 5 + 2] = c * g[4];
  T[3 * 5 + 3] = -p->C * g[4];
  T[4 * 5 + 2] = s * g[0] - c * g[1];
  T[4 * 5 + 3] = p->C * g[3];
  return 0;
}

nh_model *nh_sleigh_dg_create(const nh_sleigh_dg_params *p, char *msg, size_t msg_size) {
  static const char *names[] = {"x1", "x2", "theta", "rho1", "rho2"};
  static const char *pnames[] = {"J", "a", "m"};
  if (!p || !(p->J > 0.0) || !(p->m > 0.0) || !isfinite(p->a) || !isfinite(p->J) || !isfinite(p->m)) {
    nh_set_msg(msg, msg_size, "sleigh: J and m must be positive and a finite");
    return NULL;
  }
  double I = p->J + p->m * p->a * p->a;
  sleigh_ap sp = {1.0 / sqrt(p->m), 1.0 / sqrt(I), p->a * sqrt(p->m) / I};
  const double pv[3] = {p->J, p->a, p->m};
  const double x0[5] = {p->x1, p->x2, p->theta, p->rho1, p->rho2};
  nh_model_def d = ap_def("sleigh-dg", 5, names, x0, sap_hamiltonian, sap_poisson, sap_hess, sap_poisson_jac);
  d.npar = 3, d.param_names = pnames, d.param_values = pv;
  d.hamiltonian_degree = 2;
  /* the entries sap_poisson and sap_poisson_jac set */
  static const unsigned char pp[25] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 0};
  static const unsigned char tp[25] = {0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0};
  d.poisson_pattern = pp, d.poisson_jac_pattern = tp;
  d.user = &sp;
  d.user_size = sizeof sp;
  return nh_model_create(&d, msg, msg_size);
}

/* ---- suslov -------------------------------------------------------------------------- */

typedef struct suslov_ap {
  double I11, I22, C1, C2;
} suslov_ap;

static int sus_hamiltonian(const double *x, double *H, double *dH, void *user) {
  const suslov_ap *p = user;
  if (H) *H = 0.5 * (x[0] * x[0] / p->I11 + x[1] * x[1] / p->I22);
  if (dH) dH[0] = x[0] / p->I11, dH[1] = x[1] / p->I22;
  return 0;
}
static int sus_hess(const double *x, double *Hs, void *user) {
  const suslov_ap *p = user;
  (void)x;
  Hs[0] = 1.0 / p->I11, Hs[1] = Hs[2] = 0.0, Hs[3] = 1.0 / p->I22;
  return 0;
}
static int sus_poisson(const double *x, double *P, void *user) {
  const suslov_ap *p = user;
  double s = p->C1 * x[0] + p->C2 * x[1];
  P[0] = 0.0, P[1] = -s, P[2] = s, P[3] = 0.0;
  return 0;
}
static int sus_poisson_jac(const double *x, const double *g, double *T, void *user) {
  const suslov_ap *p = user;
  (void)x;
  T[0] = -p->C1 * g[1], T[1] = -p->C2 * g[1];
  T[2] = p->C1 * g[0], T[3] = p->C2 * g[0];
  return 0;
}

nh_suslov_params nh_suslov_params_default(void) {
  /* spec 002 A.4 (the paper gives no values) */
  return (nh_suslov_params){.I11 = 2.0, .I22 = 3.0, .I13 = 0.5, .I23 = 0.4, .rho1 = 1.0, .rho2 = 0.5};
}

nh_model *nh_suslov_create(const nh_suslov_params *p, char *msg, size_t msg_size) {
  static const char *names[] = {"rho1", "rho2"};
  static const char *pnames[] = {"I11", "I22", "I13", "I23"};
  if (!p || !(p->I11 > 0.0) || !(p->I22 > 0.0) || !isfinite(p->I13) || !isfinite(p->I23) ||
      !isfinite(p->I11) || !isfinite(p->I22)) {
    nh_set_msg(msg, msg_size, "suslov: I11 and I22 must be positive and I13, I23 finite");
    return NULL;
  }
  suslov_ap sp = {p->I11, p->I22, p->I13 / p->I11, p->I23 / p->I22};
  const double pv[4] = {p->I11, p->I22, p->I13, p->I23};
  const double x0[2] = {p->rho1, p->rho2};
  nh_model_def d = ap_def("suslov", 2, names, x0, sus_hamiltonian, sus_poisson, sus_hess, sus_poisson_jac);
  d.npar = 4, d.param_names = pnames, d.param_values = pv;
  d.hamiltonian_degree = 2;
  d.user = &sp;
  d.user_size = sizeof sp;
  return nh_model_create(&d, msg, msg_size);
}

/* ---- gearbox-ap ------------------------------------------------------------------------ */

static int gap_hamiltonian(const double *x, double *H, double *dH, void *user) {
  (void)user;
  double s = sin(x[2]), c = cos(x[2]), d = 1.0 + s * s, r1 = x[3], r2 = x[4];
  if (H) *H = 0.5 * r1 * r1 / d + 0.5 * r2 * r2 + 0.5 * (x[0] * x[0] + x[1] * x[1]) + c - 0.2 * sin(2.0 * x[2]);
  if (dH) {
    dH[0] = x[0], dH[1] = x[1];
    dH[2] = -r1 * r1 * s * c / (d * d) - s - 0.4 * cos(2.0 * x[2]);
    dH[3] = r1 / d, dH[4] = r2;
  }
  return 0;
}
static int gap_poisson(const double *x, double *P, void *user) {
  (void)user;
  double s = sin(x[2]), c = cos(x[2]), k = s * c * x[3] / (1.0 + s * s);
  for (int i = 0; i < 25; i++) P[i] = 0.0;
  P[0 * 5 + 3] = -s, P[3 * 5 + 0] = s;   /* X1 = (-sin q3, 1, 0) */
  P[1 * 5 + 3] = 1.0, P[3 * 5 + 1] = -1.0;
  P[2 * 5 + 4] = 1.0, P[4 * 5 + 2] = -1.0; /* X2 = (0, 0, 1) */
  P[3 * 5 + 4] = k, P[4 * 5 + 3] = -k;
  return 0;
}

nh_model *nh_gearbox_ap_create(int rotating, char *msg, size_t msg_size) {
  static const char *names[] = {"q1", "q2", "q3", "rho1", "rho2"};
  /* the state of nh_gearbox_create: rho1 = p2 - sin(q3) p1 = (1 + sin^2 q3) p2, rho2 = p3 */
  double s = sin(0.2);
  const double x0[5] = {0.5, -0.3, 0.2, (1.0 + s * s) * 0.4, rotating ? 1.6 : 0.3};
  nh_model_def d = ap_def("gearbox-ap", 5, names, x0, gap_hamiltonian, gap_poisson, NULL, NULL);
  return nh_model_create(&d, msg, msg_size);
}
