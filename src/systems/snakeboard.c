/* snakeboard.c - the snakeboard (Kobilarov, Martin de Diego, Ferraro, "Simulating Nonholonomic
 * Dynamics", sec. 6.2, eq. 34; spec 001 sec. 5.2).
 *
 *   q = (psi, phi, theta, x, y),  L = 1/2 q'^T M q'  (constant M, no potential)
 *   A(q) = [[0, 0, -l cos phi, -sin(th+phi), cos(th+phi)],         (eq. 34, front axle)
 *           [0, 0,  l cos phi, -sin(th-phi), cos(th-phi)]]         (back axle)
 *   Adot v = ( l sin phi phi' th' - (th'+phi')(cos(th+phi) x' + sin(th+phi) y'),
 *             -l sin phi phi' th' - (th'-phi')(cos(th-phi) x' + sin(th-phi) y') )
 *   f(t) = (A_psi cos(2 pi f_psi t), A_phi sin(2 pi f_phi t), 0, 0, 0)   (joint torques, spec [C])
 * Initial velocity from (p1, psi', phi') (spec 5.2):
 *   w = (p1 - I psi' sin 2phi) / (4 m l^2 cos^2 phi),  xi = w (sin 2phi, -2 l cos^2 phi, 0),
 *   th' = xi^1,  (x', y') = R(th) (xi^2, 0).
 * Left-invariant on SE(2): se2 = (2, 3, 4), shape (psi, phi). */
#include <math.h>
#include <string.h>

#include "base/msg.h"
#include "nholo/systems/snakeboard.h"

#define SB_TWO_PI 6.28318530717958647692528676655900577

typedef struct sb_data {
  double m, l, I, J, A_psi, w_psi, A_phi, w_phi; /* w = 2 pi f */
} sb_data;

static int sb_mass(const double *q, double *M, void *user) {
  const sb_data *d = user;
  (void)q;
  memset(M, 0, 25 * sizeof(double));
  M[0] = d->I, M[2] = d->I;
  M[6] = 2.0 * d->J;
  M[10] = d->I, M[12] = d->m * d->l * d->l;
  M[18] = d->m, M[24] = d->m;
  return 0;
}

static int sb_mass_deriv(const double *q, double *dM, void *user) {
  (void)q, (void)user;
  memset(dM, 0, 125 * sizeof(double));
  return 0;
}

static int sb_constraint(const double *q, const double *v, double *A, double *Adot_v, void *user) {
  const sb_data *d = user;
  const double ph = q[1], th = q[2], l = d->l;
  const double sp = sin(th + ph), cp = cos(th + ph), sm = sin(th - ph), cm = cos(th - ph);
  if (A) {
    memset(A, 0, 10 * sizeof(double));
    A[2] = -l * cos(ph), A[3] = -sp, A[4] = cp;
    A[7] = l * cos(ph), A[8] = -sm, A[9] = cm;
  }
  if (Adot_v) {
    const double phd = v[1], thd = v[2], xd = v[3], yd = v[4], s = l * sin(ph) * phd * thd;
    Adot_v[0] = s - (thd + phd) * (cp * xd + sp * yd);
    Adot_v[1] = -s - (thd - phd) * (cm * xd + sm * yd);
  }
  return 0;
}

/* dA[(k*2 + i)*5 + j] = dA_ij/dq_k: only phi (k = 1) and theta (k = 2) enter */
static int sb_constraint_deriv(const double *q, double *dA, void *user) {
  const sb_data *d = user;
  const double ph = q[1], th = q[2], l = d->l;
  const double sp = sin(th + ph), cp = cos(th + ph), sm = sin(th - ph), cm = cos(th - ph);
  memset(dA, 0, 50 * sizeof(double));
  double *P = dA + 10, *T = dA + 20;
  P[2] = l * sin(ph), P[3] = -cp, P[4] = -sp;
  P[7] = -l * sin(ph), P[8] = cm, P[9] = sm;
  T[3] = -cp, T[4] = -sp;
  T[8] = -cm, T[9] = -sm;
  return 0;
}

static int sb_force(double t, const double *q, const double *v, double *f, void *user) {
  const sb_data *d = user;
  (void)q, (void)v;
  memset(f, 0, 5 * sizeof(double));
  f[0] = d->A_psi * cos(d->w_psi * t);
  f[1] = d->A_phi * sin(d->w_phi * t);
  return 0;
}

static int sb_force_jac(double t, const double *q, const double *v, double *dfdq, double *dfdv,
                        void *user) {
  (void)t, (void)q, (void)v, (void)user;
  if (dfdq) memset(dfdq, 0, 25 * sizeof(double));
  if (dfdv) memset(dfdv, 0, 25 * sizeof(double));
  return 0;
}

nh_snakeboard_params nh_snakeboard_params_default(void) {
  nh_snakeboard_params p = {.m = 1.0, .l = 1.0, .I = 0.5, .J = 1.5,
                            .A_psi = 1.0, .f_psi = 10.0, .A_phi = 1.0, .f_phi = 1.0,
                            .psi0 = 1.5707963267948966, .phi0 = 1.0471975511965976,
                            .p1_0 = -1.0, .psi_dot0 = 2.5, .phi_dot0 = -0.02};
  return p;
}

int nh_snakeboard_params_check(const nh_snakeboard_params *p, char *msg, size_t msg_size) {
  const char *bad = NULL;
  if (!p) bad = "no parameters";
  else if (!(p->m > 0.0) || !(p->l > 0.0) || !(p->I > 0.0) || !(p->J > 0.0) || !isfinite(p->m) ||
           !isfinite(p->l) || !isfinite(p->I) || !isfinite(p->J))
    bad = "m, l, I, J must be positive and finite";
  else if (!(p->m * p->l * p->l > p->I))
    bad = "the mass matrix needs m l^2 > I";
  else if (!isfinite(p->A_psi) || !isfinite(p->f_psi) || !isfinite(p->A_phi) || !isfinite(p->f_phi))
    bad = "control amplitudes and frequencies must be finite";
  else if (!isfinite(p->psi0) || !isfinite(p->phi0) || !isfinite(p->theta0) || !isfinite(p->x0) ||
           !isfinite(p->y0) || !isfinite(p->p1_0) || !isfinite(p->psi_dot0) || !isfinite(p->phi_dot0))
    bad = "initial values must be finite";
  else if (fabs(cos(p->phi0)) < 1e-8)
    bad = "initial steering angle phi is at the singularity cos(phi) = 0";
  if (bad) {
    nh_set_msg(msg, msg_size, "snakeboard: %s", bad);
    return NH_ERR_ARG;
  }
  return NH_OK;
}

int nh_snakeboard_set(nh_snakeboard_params *p, const char *name, double value) {
  struct { const char *n; double *x; } t[] = {
      {"m", &p->m}, {"l", &p->l}, {"I", &p->I}, {"J", &p->J}, {"Apsi", &p->A_psi},
      {"fpsi", &p->f_psi}, {"Aphi", &p->A_phi}, {"fphi", &p->f_phi}, {"psi", &p->psi0},
      {"phi", &p->phi0}, {"theta", &p->theta0}, {"x", &p->x0}, {"y", &p->y0}, {"p1", &p->p1_0},
      {"psi'", &p->psi_dot0}, {"phi'", &p->phi_dot0}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (strcmp(t[i].n, name) == 0) return *t[i].x = value, 1;
  return 0;
}

void nh_snakeboard_initial_velocity(const nh_snakeboard_params *p, double qd[5]) {
  const double ph = p->phi0, c2 = cos(ph) * cos(ph), s2p = sin(2.0 * ph);
  const double w = (p->p1_0 - p->I * p->psi_dot0 * s2p) / (4.0 * p->m * p->l * p->l * c2);
  const double xi1 = w * s2p, xi2 = -2.0 * p->l * w * c2;
  qd[0] = p->psi_dot0, qd[1] = p->phi_dot0, qd[2] = xi1;
  qd[3] = cos(p->theta0) * xi2, qd[4] = sin(p->theta0) * xi2;
}

nh_model *nh_snakeboard_create(const nh_snakeboard_params *p, char *msg, size_t msg_size) {
  if (nh_snakeboard_params_check(p, msg, msg_size) != NH_OK) return NULL;
  static const char *const coords[] = {"psi", "phi", "theta", "x", "y"};
  static const char *const cnames[] = {"front", "back"};
  static const char *const pnames[] = {"m", "l", "I", "J", "Apsi", "fpsi", "Aphi", "fphi"};
  sb_data d = {p->m, p->l, p->I, p->J, p->A_psi, SB_TWO_PI * p->f_psi, p->A_phi, SB_TWO_PI * p->f_phi};
  double pv[8] = {p->m, p->l, p->I, p->J, p->A_psi, p->f_psi, p->A_phi, p->f_phi};
  double q0[5] = {p->psi0, p->phi0, p->theta0, p->x0, p->y0}, v0[5];
  nh_snakeboard_initial_velocity(p, v0);
  nh_model_def def = nh_model_def_default();
  def.name = "snakeboard";
  def.nq = 5, def.nc = 2, def.npar = 8;
  def.coord_names = coords, def.constraint_names = cnames;
  def.param_names = pnames, def.param_values = pv;
  def.q0 = q0, def.v0 = v0;
  def.mass = sb_mass;
  def.mass_constant = 1;
  def.mass_deriv = sb_mass_deriv;
  def.constraint = sb_constraint;
  def.constraint_deriv = sb_constraint_deriv;
  if (p->A_psi != 0.0 || p->A_phi != 0.0) def.force = sb_force, def.force_jac = sb_force_jac;
  def.has_se2 = 1, def.se2[0] = 2, def.se2[1] = 3, def.se2[2] = 4;
  def.user = &d, def.user_size = sizeof d;
  return nh_model_create(&def, msg, msg_size);
}
