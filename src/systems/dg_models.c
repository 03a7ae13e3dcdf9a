/* dg_models.c - the mechanical examples of Celledoni, Farre Puiggali, Hoiseth, Martin de
 * Diego, "Energy-Preserving Integrators Applied to Nonholonomic Systems" (spec 002 S1, S2, S4)
 * as configuration-space models (q, v) with M, V, A and their derivatives:
 *
 *   quartic   (sec. 4.1, McLachlan-Perlmutter) q = (x, w1..w3, z1..z3), M = I,
 *             V = 1/2 (|q|^2 + z1^2 z2^2 + sum w_i^2 z_i^2),  x' + w . z' = 0
 *   gearbox   (sec. 4.4, eq. (24) with + V, erratum E7) q = (q1, q2, q3), M = I,
 *             V = 1/2 (q1^2 + q2^2) + cos q3 - 1/5 sin 2 q3,  q1' + sin(q3) q2' = 0
 *   sleigh-dg-q (sec. 4.2) the Chaplygin sleigh in the paper's coordinates q = (x1, x2, theta)
 *             with the metric g(theta) of the blade point, V = 0, -sin(th) x1' + cos(th) x2' = 0 */
#include <math.h>
#include <string.h>

#include "base/msg.h"
#include "nholo/systems/dg_examples.h"

/* ---- quartic ------------------------------------------------------------------------ */

#define QN 3 /* the paper's n: q in R^(2n+1) */

static int unit_mass(const double *q, double *M, void *user) {
  (void)user;
  (void)q;
  for (int i = 0; i < 49; i++) M[i] = 0.0;
  for (int i = 0; i < 7; i++) M[i * 7 + i] = 1.0;
  return 0;
}
static int unit_mass3(const double *q, double *M, void *user) {
  (void)user;
  (void)q;
  for (int i = 0; i < 9; i++) M[i] = (i % 4 == 0) ? 1.0 : 0.0;
  return 0;
}

static double quartic_V(const double *q) {
  const double *w = q + 1, *z = q + 1 + QN;
  double V = z[0] * z[0] * z[1] * z[1];
  for (int i = 0; i < 2 * QN + 1; i++) V += q[i] * q[i];
  for (int i = 0; i < QN; i++) V += w[i] * w[i] * z[i] * z[i];
  return 0.5 * V;
}

static int quartic_potential(const double *q, double *V, double *dV, void *user) {
  (void)user;
  const double *w = q + 1, *z = q + 1 + QN;
  if (V) *V = quartic_V(q);
  if (dV) {
    dV[0] = q[0];
    for (int i = 0; i < QN; i++) {
      dV[1 + i] = w[i] * (1.0 + z[i] * z[i]);
      dV[1 + QN + i] = z[i] * (1.0 + w[i] * w[i]);
    }
    dV[1 + QN] += z[0] * z[1] * z[1];
    dV[2 + QN] += z[0] * z[0] * z[1];
  }
  return 0;
}

static int quartic_hess(const double *q, double *H, void *user) {
  (void)user;
  const int n = 2 * QN + 1;
  const double *w = q + 1, *z = q + 1 + QN;
  for (int i = 0; i < n * n; i++) H[i] = 0.0;
  H[0] = 1.0;
  for (int i = 0; i < QN; i++) {
    int a = 1 + i, b = 1 + QN + i;
    H[a * n + a] = 1.0 + z[i] * z[i];
    H[b * n + b] = 1.0 + w[i] * w[i];
    H[a * n + b] = H[b * n + a] = 2.0 * w[i] * z[i];
  }
  int z1 = 1 + QN, z2 = 2 + QN;
  H[z1 * n + z1] += z[1] * z[1];
  H[z2 * n + z2] += z[0] * z[0];
  H[z1 * n + z2] = H[z2 * n + z1] = 2.0 * z[0] * z[1];
  return 0;
}

static int quartic_constraint(const double *q, const double *v, double *A, double *Adv, void *user) {
  (void)user;
  if (A) {
    A[0] = 1.0;
    for (int i = 0; i < QN; i++) A[1 + i] = 0.0, A[1 + QN + i] = q[1 + i];
  }
  if (Adv) {
    double s = 0.0;
    for (int i = 0; i < QN; i++) s += v[1 + i] * v[1 + QN + i];
    Adv[0] = s;
  }
  return 0;
}

static int quartic_constraint_deriv(const double *q, double *dA, void *user) {
  (void)user;
  (void)q;
  const int n = 2 * QN + 1;
  for (int i = 0; i < n * n; i++) dA[i] = 0.0;
  for (int i = 0; i < QN; i++) dA[(1 + i) * n + 1 + QN + i] = 1.0; /* dA_{0, z_i} / d w_i */
  return 0;
}

int nh_quartic_velocity(const double *q, const double *rho, double H, double *v) {
  if (!q || !rho || !v) return NH_ERR_ARG;
  const double *w = q + 1;
  const double *xi = rho, *eta = rho + QN;
  // qdot = X gD^-1 rho: w' = xi, z' = -(eta - kappa w), x' = w . (eta - kappa w)
  double ww = 0.0, we = 0.0;
  for (int i = 0; i < QN; i++) ww += w[i] * w[i], we += w[i] * eta[i];
  double kappa = we / (1.0 + ww), xd = 0.0;
  for (int i = 0; i < QN; i++) {
    double y = eta[i] - kappa * w[i];
    v[1 + i] = xi[i];
    v[1 + QN + i] = -y;
    xd += w[i] * y;
  }
  v[0] = xd;
  if (isnan(H)) return NH_OK;
  // scale to the energy H
  double T = 0.0, V = quartic_V(q);
  for (int i = 0; i < 2 * QN + 1; i++) T += 0.5 * v[i] * v[i];
  if (!(H > V) || !(T > 0.0)) return NH_ERR_ARG;
  double c = sqrt((H - V) / T);
  for (int i = 0; i < 2 * QN + 1; i++) v[i] *= c;
  return NH_OK;
}

nh_model *nh_quartic_create(char *msg, size_t msg_size) {
  static const char *names[] = {"x", "w1", "w2", "w3", "z1", "z2", "z3"};
  static const char *cnames[] = {"x_dot_plus_w_z_dot"};
  static const char *pnames[] = {"n", "H"};
  /* spec 002 A.1: q0 and the direction of rho0, scaled to the paper's energy H = 3.06 */
  const double q0[7] = {0.3, -0.5, 0.8, 0.2, 0.6, -0.4, 0.1};
  const double rho_dir[6] = {0.5, -0.2, 0.3, 0.4, 0.1, -0.7};
  const double pvals[2] = {QN, 3.06};
  double v0[7];
  nh_quartic_velocity(q0, rho_dir, pvals[1], v0);
  nh_model_def d = nh_model_def_default();
  d.name = "quartic";
  d.nq = 2 * QN + 1, d.nc = 1, d.npar = 2;
  d.coord_names = names, d.constraint_names = cnames, d.param_names = pnames, d.param_values = pvals;
  d.q0 = q0, d.v0 = v0;
  d.mass = unit_mass;
  d.mass_constant = 1;
  d.potential = quartic_potential;
  d.constraint = quartic_constraint;
  d.potential_hess = quartic_hess;
  d.constraint_deriv = quartic_constraint_deriv;
  return nh_model_create(&d, msg, msg_size);
}

/* ---- gearbox ------------------------------------------------------------------------ */

static int gearbox_potential(const double *q, double *V, double *dV, void *user) {
  (void)user;
  if (V) *V = 0.5 * (q[0] * q[0] + q[1] * q[1]) + cos(q[2]) - 0.2 * sin(2.0 * q[2]);
  if (dV) dV[0] = q[0], dV[1] = q[1], dV[2] = -sin(q[2]) - 0.4 * cos(2.0 * q[2]);
  return 0;
}
static int gearbox_hess(const double *q, double *H, void *user) {
  (void)user;
  for (int i = 0; i < 9; i++) H[i] = 0.0;
  H[0] = H[4] = 1.0;
  H[8] = -cos(q[2]) + 0.8 * sin(2.0 * q[2]);
  return 0;
}
static int gearbox_constraint(const double *q, const double *v, double *A, double *Adv, void *user) {
  (void)user;
  if (A) A[0] = 1.0, A[1] = sin(q[2]), A[2] = 0.0;
  if (Adv) Adv[0] = cos(q[2]) * v[2] * v[1];
  return 0;
}
static int gearbox_constraint_deriv(const double *q, double *dA, void *user) {
  (void)user;
  for (int i = 0; i < 9; i++) dA[i] = 0.0;
  dA[2 * 3 + 1] = cos(q[2]);
  return 0;
}

double nh_gearbox_pendulum_energy(const double *q, const double *v) {
  return 0.5 * v[2] * v[2] + cos(q[2]) - 0.2 * sin(2.0 * q[2]);
}

nh_model *nh_gearbox_create(int rotating, char *msg, size_t msg_size) {
  static const char *names[] = {"q1", "q2", "q3"};
  static const char *cnames[] = {"p1_plus_sin_q3_p2"};
  /* spec 002 A.5 (the paper's initial values are not given): p3 = 1.6 rotates, 0.3 librates */
  const double q0[3] = {0.5, -0.3, 0.2};
  double v0[3] = {-sin(0.2) * 0.4, 0.4, rotating ? 1.6 : 0.3};
  nh_model_def d = nh_model_def_default();
  d.name = "gearbox";
  d.nq = 3, d.nc = 1;
  d.coord_names = names, d.constraint_names = cnames;
  d.q0 = q0, d.v0 = v0;
  d.mass = unit_mass3;
  d.mass_constant = 1;
  d.potential = gearbox_potential;
  d.constraint = gearbox_constraint;
  d.potential_hess = gearbox_hess;
  d.constraint_deriv = gearbox_constraint_deriv;
  return nh_model_create(&d, msg, msg_size);
}

/* ---- Chaplygin sleigh, configuration form ------------------------------------------- */

typedef struct sleigh_p {
  double J, a, m;
} sleigh_p;

static int sleigh_mass(const double *q, double *M, void *user) {
  const sleigh_p *p = user;
  double s = sin(q[2]), c = cos(q[2]), ma = p->m * p->a;
  M[0] = p->m, M[1] = 0.0, M[2] = -ma * s;
  M[3] = 0.0, M[4] = p->m, M[5] = ma * c;
  M[6] = -ma * s, M[7] = ma * c, M[8] = p->J + p->m * p->a * p->a;
  return 0;
}
static int sleigh_mass_deriv(const double *q, double *dM, void *user) {
  const sleigh_p *p = user;
  double s = sin(q[2]), c = cos(q[2]), ma = p->m * p->a;
  for (int i = 0; i < 27; i++) dM[i] = 0.0;
  double *d = dM + 18; /* d/dtheta */
  d[2] = d[6] = -ma * c;
  d[5] = d[7] = -ma * s;
  return 0;
}
static int sleigh_mass_deriv2(const double *q, double *d2M, void *user) {
  const sleigh_p *p = user;
  double s = sin(q[2]), c = cos(q[2]), ma = p->m * p->a;
  for (int i = 0; i < 81; i++) d2M[i] = 0.0;
  double *d = d2M + (2 * 3 + 2) * 9; /* d^2/dtheta^2 */
  d[2] = d[6] = ma * s;
  d[5] = d[7] = -ma * c;
  return 0;
}
static int sleigh_coriolis(const double *q, const double *v, double *cv, void *user) {
  /* c_i = sum_j dM_ij/dth v_j th' - 1/2 [i = th] v^T dM/dth v */
  double dM[27];
  sleigh_mass_deriv(q, dM, user);
  const double *d = dM + 18;
  double quad = 0.0;
  for (int i = 0; i < 3; i++) {
    double r = d[i * 3] * v[0] + d[i * 3 + 1] * v[1] + d[i * 3 + 2] * v[2];
    cv[i] = r * v[2];
    quad += v[i] * r;
  }
  cv[2] -= 0.5 * quad;
  return 0;
}
static int sleigh_constraint(const double *q, const double *v, double *A, double *Adv, void *user) {
  (void)user;
  double s = sin(q[2]), c = cos(q[2]);
  if (A) A[0] = -s, A[1] = c, A[2] = 0.0;
  if (Adv) Adv[0] = (-c * v[0] - s * v[1]) * v[2];
  return 0;
}
static int sleigh_constraint_deriv(const double *q, double *dA, void *user) {
  (void)user;
  for (int i = 0; i < 9; i++) dA[i] = 0.0;
  dA[6] = -cos(q[2]), dA[7] = -sin(q[2]);
  return 0;
}

nh_sleigh_dg_params nh_sleigh_dg_params_default(void) {
  /* Fig. 3: J = 8, a = m = 1, x1 = -5, x2 = 0, theta = 0.1, rho = (0.001, -0.6) */
  return (nh_sleigh_dg_params){.J = 8.0, .a = 1.0, .m = 1.0, .x1 = -5.0, .x2 = 0.0, .theta = 0.1,
                               .rho1 = 0.001, .rho2 = -0.6};
}

static int sleigh_check(const nh_sleigh_dg_params *p, char *msg, size_t msg_size) {
  if (!(p->J > 0.0) || !(p->m > 0.0) || !isfinite(p->a) || !isfinite(p->J) || !isfinite(p->m)) {
    nh_set_msg(msg, msg_size, "sleigh: J and m must be positive and a finite");
    return 0;
  }
  return 1;
}

nh_model *nh_sleigh_dg_q_create(const nh_sleigh_dg_params *p, char *msg, size_t msg_size) {
  static const char *names[] = {"x1", "x2", "theta"};
  static const char *cnames[] = {"blade"};
  static const char *pnames[] = {"J", "a", "m"};
  if (!p || !sleigh_check(p, msg, msg_size)) return NULL;
  sleigh_p sp = {p->J, p->a, p->m};
  const double pv[3] = {p->J, p->a, p->m};
  const double q0[3] = {p->x1, p->x2, p->theta};
  /* qdot = rho2/sqrt(m) (cos th, sin th) + rho1/sqrt(J + m a^2) e_theta (spec 002 S2) */
  const double v0[3] = {cos(p->theta) * p->rho2 / sqrt(p->m), sin(p->theta) * p->rho2 / sqrt(p->m),
                        p->rho1 / sqrt(p->J + p->m * p->a * p->a)};
  nh_model_def d = nh_model_def_default();
  d.name = "sleigh-dg-q";
  d.nq = 3, d.nc = 1, d.npar = 3;
  d.coord_names = names, d.constraint_names = cnames, d.param_names = pnames, d.param_values = pv;
  d.q0 = q0, d.v0 = v0;
  d.mass = sleigh_mass;
  d.coriolis = sleigh_coriolis;
  d.constraint = sleigh_constraint;
  d.mass_deriv = sleigh_mass_deriv;
  d.mass_deriv2 = sleigh_mass_deriv2;
  d.constraint_deriv = sleigh_constraint_deriv;
  d.user = &sp;
  d.user_size = sizeof sp;
  return nh_model_create(&d, msg, msg_size);
}
