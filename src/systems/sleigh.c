/* sleigh.c - the Chaplygin sleigh (Kobilarov, Martin de Diego, Ferraro, "Simulating Nonholonomic
 * Dynamics", sec. 6.1, eq. 29; spec 001 sec. 5.1) and its closed-form solution.
 *
 *   q = (theta, x, y) (x, y: centre of mass),  L = 1/2 I theta'^2 + 1/2 m (x'^2 + y'^2)
 *   A(q) = [ a, sin th, -cos th ],  Adot v = th' (x' cos th + y' sin th)
 *   reduced:  omega' = -(a m / I') omega v,  v' = a omega^2,  I' = I + a^2 m      (spec 5.1)
 *   E = 1/2 I' omega^2 + 1/2 m v^2 is conserved.
 * The model is left-invariant on SE(2) (se2 = (0, 1, 2), no shape): the body velocity
 * (omega, v, v_perp) satisfies v_perp = a omega. */
#include <math.h>
#include <string.h>

#include "base/msg.h"
#include "nholo/systems/sleigh.h"

/* sub-intervals of the quadrature per unit of k t (and of omega t) in nh_sleigh_exact */
#define SLEIGH_PANELS_PER_UNIT 8.0
#define SLEIGH_MIN_PANELS 16

typedef struct sleigh_data {
  double I, m, a;
} sleigh_data;

static int sl_mass(const double *q, double *M, void *user) {
  const sleigh_data *d = user;
  (void)q;
  memset(M, 0, 9 * sizeof(double));
  M[0] = d->I, M[4] = d->m, M[8] = d->m;
  return 0;
}

static int sl_constraint(const double *q, const double *v, double *A, double *Adot_v, void *user) {
  const sleigh_data *d = user;
  double s = sin(q[0]), c = cos(q[0]);
  if (A) A[0] = d->a, A[1] = s, A[2] = -c;
  if (Adot_v) Adot_v[0] = v[0] * (v[1] * c + v[2] * s);
  return 0;
}

/* dA/dq_k: only theta enters */
static int sl_constraint_deriv(const double *q, double *dA, void *user) {
  (void)user;
  memset(dA, 0, 9 * sizeof(double));
  dA[1] = cos(q[0]), dA[2] = sin(q[0]);
  return 0;
}

static int sl_mass_deriv(const double *q, double *dM, void *user) {
  (void)q, (void)user;
  memset(dM, 0, 27 * sizeof(double));
  return 0;
}

nh_sleigh_params nh_sleigh_params_default(void) {
  nh_sleigh_params p = {.I = 1.0, .m = 1.0, .a = 1.0, .omega0 = 1.0, .v0 = -1.0};
  return p;
}

int nh_sleigh_params_check(const nh_sleigh_params *p, char *msg, size_t msg_size) {
  const char *bad = NULL;
  if (!p) bad = "no parameters";
  else if (!(p->I > 0.0) || !isfinite(p->I)) bad = "I must be positive and finite";
  else if (!(p->m > 0.0) || !isfinite(p->m)) bad = "m must be positive and finite";
  else if (!isfinite(p->a)) bad = "a must be finite";
  else if (!isfinite(p->theta0) || !isfinite(p->x0) || !isfinite(p->y0) || !isfinite(p->omega0) ||
           !isfinite(p->v0))
    bad = "initial values must be finite";
  if (bad) {
    nh_set_msg(msg, msg_size, "sleigh: %s", bad);
    return NH_ERR_ARG;
  }
  return NH_OK;
}

int nh_sleigh_set(nh_sleigh_params *p, const char *name, double value) {
  struct { const char *n; double *x; } t[] = {
      {"I", &p->I}, {"m", &p->m}, {"a", &p->a}, {"theta", &p->theta0}, {"x", &p->x0},
      {"y", &p->y0}, {"omega", &p->omega0}, {"v", &p->v0}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (strcmp(t[i].n, name) == 0) return *t[i].x = value, 1;
  return 0;
}

nh_model *nh_sleigh_create(const nh_sleigh_params *p, char *msg, size_t msg_size) {
  if (nh_sleigh_params_check(p, msg, msg_size) != NH_OK) return NULL;
  static const char *const coords[] = {"theta", "x", "y"};
  static const char *const cnames[] = {"skate"};
  static const char *const pnames[] = {"I", "m", "a"};
  sleigh_data d = {p->I, p->m, p->a};
  double pv[3] = {p->I, p->m, p->a};
  double q0[3] = {p->theta0, p->x0, p->y0};
  double v0[3] = {p->omega0, p->v0 * cos(p->theta0) - p->a * p->omega0 * sin(p->theta0),
                  p->v0 * sin(p->theta0) + p->a * p->omega0 * cos(p->theta0)};
  nh_model_def def = nh_model_def_default();
  def.name = "sleigh";
  def.nq = 3, def.nc = 1, def.npar = 3;
  def.coord_names = coords, def.constraint_names = cnames;
  def.param_names = pnames, def.param_values = pv;
  def.q0 = q0, def.v0 = v0;
  def.mass = sl_mass;
  def.mass_constant = 1;
  def.gram_constant = 1; /* G = a^2/I + (sin^2 + cos^2)/m */
  def.constraint = sl_constraint;
  def.mass_deriv = sl_mass_deriv;
  def.constraint_deriv = sl_constraint_deriv;
  def.has_se2 = 1, def.se2[0] = 0, def.se2[1] = 1, def.se2[2] = 2;
  def.user = &d, def.user_size = sizeof d;
  return nh_model_create(&def, msg, msg_size);
}

/* ---- closed form -------------------------------------------------------------------- */

/* reduced solution at time t: heading, heading rate, forward speed */
typedef struct sl_closed {
  double th0, w0, v0, a, sgn, V, wmax, k, tc;
  int kind; /* 0: general, 1: straight line (omega0 = 0 or a = 0 with omega) */
} sl_closed;

static double gd(double u) { return 2.0 * atan(tanh(0.5 * u)); }

static void closed_eval(const sl_closed *c, double t, double *th, double *w, double *v) {
  if (c->kind == 1) {
    *th = c->th0 + c->w0 * t, *w = c->w0, *v = c->v0;
    return;
  }
  double u = c->k * (t - c->tc);
  *v = c->V * tanh(u);
  *w = c->sgn * c->wmax / cosh(u);
  *th = c->th0 + c->sgn * (c->wmax / c->k) * (gd(u) - gd(-c->k * c->tc));
}

int nh_sleigh_exact(const nh_sleigh_params *p, double t, double *q, double *qdot, double *omega,
                    double *v) {
  if (nh_sleigh_params_check(p, NULL, 0) != NH_OK || !isfinite(t) || t < 0.0) return NH_ERR_ARG;
  const double Ip = p->I + p->a * p->a * p->m;
  const double E = 0.5 * Ip * p->omega0 * p->omega0 + 0.5 * p->m * p->v0 * p->v0;
  sl_closed c = {.th0 = p->theta0, .w0 = p->omega0, .v0 = p->v0, .a = p->a};
  c.sgn = p->omega0 >= 0.0 ? 1.0 : -1.0;
  c.V = sqrt(2.0 * E / p->m);
  c.wmax = sqrt(2.0 * E / Ip);
  c.k = p->a * p->m * c.V / Ip;
  c.kind = (p->omega0 == 0.0 || p->a == 0.0) ? 1 : 0;
  if (!c.kind) c.tc = -atanh(p->v0 / c.V) / c.k;
  // skate point: x_s' = v cos th, y_s' = v sin th (8-point Gauss-Legendre, composite)
  static const double gx[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                               0.9602898564975363};
  static const double gw[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                               0.1012285362903763};
  double scale = fabs(c.k) * t + fabs(c.kind ? c.w0 : c.wmax) * t;
  int np = (int)ceil(SLEIGH_PANELS_PER_UNIT * scale);
  if (np < SLEIGH_MIN_PANELS) np = SLEIGH_MIN_PANELS;
  double xs = p->x0 - p->a * cos(p->theta0), ys = p->y0 - p->a * sin(p->theta0);
  const double hp = t / np;
  for (int i = 0; i < np; i++) {
    double mid = (i + 0.5) * hp;
    for (int j = 0; j < 8; j++) {
      double s = (j < 4 ? -gx[j] : gx[j - 4]), wgt = gw[j < 4 ? j : j - 4];
      double th, w, vv;
      closed_eval(&c, mid + 0.5 * hp * s, &th, &w, &vv);
      xs += 0.5 * hp * wgt * vv * cos(th);
      ys += 0.5 * hp * wgt * vv * sin(th);
    }
  }
  double th, w, vv;
  closed_eval(&c, t, &th, &w, &vv);
  if (q) q[0] = th, q[1] = xs + p->a * cos(th), q[2] = ys + p->a * sin(th);
  if (qdot)
    qdot[0] = w, qdot[1] = vv * cos(th) - p->a * w * sin(th), qdot[2] = vv * sin(th) + p->a * w * cos(th);
  if (omega) *omega = w;
  if (v) *v = vv;
  return NH_OK;
}
