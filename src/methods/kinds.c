/* kinds.c - the kinds of model, one small example of each, and which method runs which kind.
 *
 * A kind's verdict for a method is nh_method_check on the kind's example (a tiny model built
 * here), so the matrix `nholo list` prints follows the methods' own tests (supports) and
 * cannot drift from them. Two variants of a mechanical example probe the conditions a method
 * may add: the same model with a closed-form flow (exact) and with a damping force (the
 * conservative methods). The examples are real systems (their flows are exact), so a test
 * can run every allowed cell on them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/msg.h"
#include "methods/method_impl.h"

/* the damping coefficient of the force variant, the wall positions, the small-angle switch of
 * sin(z)/z, and the rigid body's principal moments */
#define KIND_DAMPING 0.1
#define KIND_WALL_OSC 0.5
#define KIND_WALL_KNIFE 1.0
#define KIND_SINC_SMALL 1e-4
static const double kind_inertia[3] = {1.0, 2.0, 3.0};

static const struct {
  const char *name, *title;
} kinds[NH_KIND_COUNT] = {
    {"lagrangian", "Lagrangian, no constraints (constant M)"},
    {"constrained", "Lagrangian with nonholonomic constraints (constant M)"},
    {"q-mass", "Lagrangian with constraints and a q-dependent M"},
    {"se2", "Lie group: SE(2)-invariant ('group se2')"},
    {"poisson", "almost-Poisson ODE form ('hamiltonian', 'Pi')"},
    {"rotation", "ODE form with a rotation part (quaternion, angvel)"},
    {"ode", "ODE form (x' = F(t, x))"},
};

const char *nh_model_kind_name(nh_model_kind kind) {
  return (int)kind >= 0 && kind < NH_KIND_COUNT ? kinds[kind].name : "";
}

const char *nh_model_kind_title(nh_model_kind kind) {
  return (int)kind >= 0 && kind < NH_KIND_COUNT ? kinds[kind].title : "";
}

/* ---- the mechanical examples: (x, y) in a harmonic well; a knife edge (theta, x, y); the
 * knife edge in sheared coordinates (theta, a, y), x = a + sin(theta), so M depends on q --- */

static int osc_mass(const double *q, double *M, void *u) {
  (void)q, (void)u;
  M[0] = 1.0, M[1] = 0.0, M[2] = 0.0, M[3] = 1.0;
  return 0;
}

static int osc_potential(const double *q, double *V, double *dV, void *u) {
  (void)u;
  if (V) *V = 0.5 * (q[0] * q[0] + q[1] * q[1]);
  if (dV) dV[0] = q[0], dV[1] = q[1];
  return 0;
}

static int osc_gap(const double *q, double *g, double *dg, void *u) {
  (void)u;
  if (g) g[0] = KIND_WALL_OSC - q[0];
  if (dg) dg[0] = -1.0, dg[1] = 0.0;
  return 0;
}

/* q(t) = q0 cos t + v0 sin t */
static int osc_flow(const double *q0, const double *v0, double tau, double *q, double *v, void *u) {
  (void)u;
  const double c = cos(tau), s = sin(tau);
  for (int i = 0; i < 2; i++) {
    const double a = q0[i], b = v0[i];
    q[i] = a * c + b * s, v[i] = -a * s + b * c;
  }
  return 0;
}

static int damping(double t, const double *q, const double *v, double *f, void *u) {
  (void)t, (void)q;
  const int n = *(const int *)u;
  for (int i = 0; i < n; i++) f[i] = -KIND_DAMPING * v[i];
  return 0;
}

static int knife_mass(const double *q, double *M, void *u) {
  (void)q, (void)u;
  for (int i = 0; i < 9; i++) M[i] = i % 4 == 0 ? 1.0 : 0.0;
  return 0;
}

/* no sideways slip: -sin(theta) x' + cos(theta) y' = 0 */
static int knife_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  (void)u;
  const double s = sin(q[0]), c = cos(q[0]);
  if (A) A[0] = 0.0, A[1] = -s, A[2] = c;
  if (Adv) Adv[0] = v[0] * (-c * v[1] - s * v[2]);
  return 0;
}

static int knife_gap(const double *q, double *g, double *dg, void *u) {
  (void)u;
  if (g) g[0] = KIND_WALL_KNIFE - q[1];
  if (dg) dg[0] = 0.0, dg[1] = -1.0, dg[2] = 0.0;
  return 0;
}

/* theta' and the forward speed are constant: (x, y) moves on a circular arc */
static int knife_flow(const double *q0, const double *v0, double tau, double *q, double *v, void *u) {
  (void)u;
  const double w = v0[0], th0 = q0[0], sp = cos(th0) * v0[1] + sin(th0) * v0[2];
  const double z = 0.5 * w * tau, sinc = fabs(z) < KIND_SINC_SMALL ? 1.0 - z * z / 6.0 : sin(z) / z;
  const double mid = th0 + z, th = th0 + w * tau, x0 = q0[1], y0 = q0[2];
  q[0] = th, q[1] = x0 + sp * tau * cos(mid) * sinc, q[2] = y0 + sp * tau * sin(mid) * sinc;
  v[0] = w, v[1] = sp * cos(th), v[2] = sp * sin(th);
  return 0;
}

static int shear_mass(const double *q, double *M, void *u) {
  (void)u;
  const double c = cos(q[0]);
  M[0] = 1.0 + c * c, M[1] = c, M[2] = 0.0;
  M[3] = c, M[4] = 1.0, M[5] = 0.0;
  M[6] = 0.0, M[7] = 0.0, M[8] = 1.0;
  return 0;
}

/* c_i = sum_jk (dM_ij/dq_k - 1/2 dM_jk/dq_i) v_j v_k with M depending on theta only */
static int shear_coriolis(const double *q, const double *v, double *cv, void *u) {
  (void)u;
  const double s = sin(q[0]), c = cos(q[0]), w2 = v[0] * v[0];
  cv[0] = -c * s * w2, cv[1] = -s * w2, cv[2] = 0.0;
  return 0;
}

/* the knife edge's constraint with x' = a' + cos(theta) theta' */
static int shear_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  (void)u;
  const double s = sin(q[0]), c = cos(q[0]);
  if (A) A[0] = -s * c, A[1] = -s, A[2] = c;
  if (Adv) Adv[0] = v[0] * (-(c * c - s * s) * v[0] - c * v[1] - s * v[2]);
  return 0;
}

static int shear_gap(const double *q, double *g, double *dg, void *u) {
  (void)u;
  if (g) g[0] = KIND_WALL_KNIFE - q[1] - sin(q[0]);
  if (dg) dg[0] = -cos(q[0]), dg[1] = -1.0, dg[2] = 0.0;
  return 0;
}

static int shear_flow(const double *q0, const double *v0, double tau, double *q, double *v, void *u) {
  const double k0[3] = {q0[0], q0[1] + sin(q0[0]), q0[2]};
  const double kv[3] = {v0[0], v0[1] + cos(q0[0]) * v0[0], v0[2]};
  double k[3], kw[3];
  knife_flow(k0, kv, tau, k, kw, u);
  q[0] = k[0], q[1] = k[1] - sin(k[0]), q[2] = k[2];
  v[0] = kw[0], v[1] = kw[1] - cos(k[0]) * kw[0], v[2] = kw[2];
  return 0;
}

/* ---- the ODE-form examples: a harmonic oscillator; a free rigid body with its attitude
 * quaternion; the body's angular momentum in Lie-Poisson form, m' = m x grad H ----------- */

static int ode_rhs(double t, const double *x, double *f, void *u) {
  (void)t, (void)u;
  f[0] = x[1], f[1] = -x[0];
  return 0;
}

static int ode_energy(double t, const double *x, double *E, void *u) {
  (void)t, (void)u;
  *E = 0.5 * (x[0] * x[0] + x[1] * x[1]);
  return 0;
}

/* x = (quaternion, body angular velocity w): q' = 1/2 q [0; w], I w' = (I w) x w */
static int body_rhs(double t, const double *x, double *f, void *u) {
  (void)t, (void)u;
  const double *q = x, *w = x + 4, *I = kind_inertia;
  f[0] = -0.5 * (q[1] * w[0] + q[2] * w[1] + q[3] * w[2]);
  f[1] = 0.5 * (q[0] * w[0] + q[2] * w[2] - q[3] * w[1]);
  f[2] = 0.5 * (q[0] * w[1] + q[3] * w[0] - q[1] * w[2]);
  f[3] = 0.5 * (q[0] * w[2] + q[1] * w[1] - q[2] * w[0]);
  f[4] = (I[1] - I[2]) * w[1] * w[2] / I[0];
  f[5] = (I[2] - I[0]) * w[2] * w[0] / I[1];
  f[6] = (I[0] - I[1]) * w[0] * w[1] / I[2];
  return 0;
}

static int body_angvel(double t, const double *x, double *w, void *u) {
  (void)t, (void)u;
  w[0] = x[4], w[1] = x[5], w[2] = x[6];
  return 0;
}

static int body_energy(double t, const double *x, double *E, void *u) {
  (void)t, (void)u;
  *E = 0.0;
  for (int i = 0; i < 3; i++) *E += 0.5 * kind_inertia[i] * x[4 + i] * x[4 + i];
  return 0;
}

static int lp_hamiltonian(const double *x, double *H, double *dH, void *u) {
  (void)u;
  if (H) *H = 0.0;
  for (int i = 0; i < 3; i++) {
    if (H) *H += 0.5 * x[i] * x[i] / kind_inertia[i];
    if (dH) dH[i] = x[i] / kind_inertia[i];
  }
  return 0;
}

/* Pi(m) g = m x g */
static int lp_poisson(const double *x, double *P, void *u) {
  (void)u;
  P[0] = 0.0, P[1] = -x[2], P[2] = x[1];
  P[3] = x[2], P[4] = 0.0, P[5] = -x[0];
  P[6] = -x[1], P[7] = x[0], P[8] = 0.0;
  return 0;
}

/* the mechanical examples' sizes, names and initial states (velocities consistent with the
 * constraints; every example meets its wall before t = 2, the knife edges at
 * 11.5 degrees from the wall's normal: a plastic impact reverses them) */
static void mechanical_def(nh_model_kind kind, nh_model_def *d) {
  static const char *const osc_names[] = {"x", "y"}, *const knife_names[] = {"theta", "x", "y"},
                           *const shear_names[] = {"theta", "a", "y"};
  static const double osc_q0[] = {0.0, 0.2}, osc_v0[] = {1.0, 0.3};
  static const double knife_q0[] = {0.0, 0.0, 0.0}, knife_v0[] = {0.2, 1.0, 0.0};
  static const double shear_q0[] = {0.0, 0.0, 0.0}, shear_v0[] = {0.2, 0.8, 0.0};
  d->ngap = 1;
  if (kind == NH_KIND_LAGRANGIAN) {
    d->nq = 2, d->coord_names = osc_names, d->q0 = osc_q0, d->v0 = osc_v0;
    d->mass = osc_mass, d->potential = osc_potential, d->gap = osc_gap;
    return;
  }
  d->nq = 3, d->nc = 1;
  if (kind == NH_KIND_MASS_Q) {
    d->coord_names = shear_names, d->q0 = shear_q0, d->v0 = shear_v0;
    d->mass = shear_mass, d->coriolis = shear_coriolis, d->constraint = shear_constraint, d->gap = shear_gap;
    return;
  }
  d->coord_names = knife_names, d->q0 = knife_q0, d->v0 = knife_v0;
  d->mass = knife_mass, d->constraint = knife_constraint, d->gap = knife_gap;
  if (kind == NH_KIND_SE2) d->has_se2 = 1, d->se2[0] = 0, d->se2[1] = 1, d->se2[2] = 2;
}

nh_model *nh_model_kind_example(nh_model_kind kind, unsigned variant, const nh_impact_law *law, char *msg,
                                size_t msg_size) {
  static const double ode_x0[] = {1.0, 0.0}, body_x0[] = {1.0, 0.0, 0.0, 0.0, 0.3, 1.0, 0.2},
                      lp_x0[] = {0.3, 2.0, 0.6};
  nh_model_def d = nh_model_def_default();
  const int mechanical = kind == NH_KIND_LAGRANGIAN || kind == NH_KIND_CONSTRAINED || kind == NH_KIND_MASS_Q ||
                         kind == NH_KIND_SE2;
  char name[64];
  if ((int)kind < 0 || kind >= NH_KIND_COUNT || (variant & ~(unsigned)(NH_KIND_FLOW | NH_KIND_FORCE)) ||
      ((variant & NH_KIND_FLOW) && (variant & NH_KIND_FORCE)) || (!mechanical && variant)) {
    nh_set_msg(msg, msg_size, "no example of model kind %d with variant %u (a flow or a force, of a mechanical kind)",
               (int)kind, variant);
    return NULL;
  }
  snprintf(name, sizeof name, "%s%s", kinds[kind].name,
           variant & NH_KIND_FLOW ? "+flow" : variant & NH_KIND_FORCE ? "+force" : "");
  d.name = name;
  if (mechanical) {
    mechanical_def(kind, &d);
    d.impact = law;
    if (variant & NH_KIND_FLOW) {
      d.flow = kind == NH_KIND_LAGRANGIAN ? osc_flow : kind == NH_KIND_MASS_Q ? shear_flow : knife_flow;
    }
    if (variant & NH_KIND_FORCE) d.force = damping, d.user = &d.nq, d.user_size = sizeof d.nq;
    return nh_model_create(&d, msg, msg_size);
  }
  d.form = NH_FORM_ODE;
  if (kind == NH_KIND_POISSON) {
    d.nx = 3, d.x0 = lp_x0, d.hamiltonian = lp_hamiltonian, d.poisson = lp_poisson, d.hamiltonian_degree = 2;
  } else if (kind == NH_KIND_ROTATION) {
    d.nx = 7, d.x0 = body_x0, d.rhs = body_rhs, d.energy = body_energy, d.angvel = body_angvel, d.quat = 0;
  } else {
    d.nx = 2, d.x0 = ode_x0, d.rhs = ode_rhs, d.energy = ode_energy;
  }
  return nh_model_create(&d, msg, msg_size);
}

int nh_model_kind_has_gaps(nh_model_kind kind) {
  nh_model *m = nh_model_kind_example(kind, 0, NULL, NULL, 0);
  const int has = m && m->ngap > 0;
  nh_model_destroy(m);
  return has;
}

/* nh_method_check on one variant of the kind's example: NH_OK, NH_ERR_UNSUPPORTED with the
 * reason in msg, or the status of building it */
static int check_variant(const nh_method *method, nh_model_kind kind, unsigned variant, char *msg, size_t size) {
  nh_model *m = nh_model_kind_example(kind, variant, NULL, msg, size);
  if (!m) return NH_ERR_ARG;
  int rc = nh_method_check(method, m, msg, size);
  nh_model_destroy(m);
  return rc;
}

int nh_method_kind_support(const nh_method *method, nh_model_kind kind, char *msg, size_t msg_size) {
  nh_set_msg(msg, msg_size, "%s", "");
  if (!method || (int)kind < 0 || kind >= NH_KIND_COUNT) {
    nh_set_msg(msg, msg_size, "no method, or no model kind %d", (int)kind);
    return NH_ERR_ARG;
  }
  int rc = check_variant(method, kind, 0, msg, msg_size);
  if (rc != NH_OK && rc != NH_ERR_UNSUPPORTED) return rc;
  if (!nh_model_kind_has_gaps(kind)) return rc; /* an ODE form: no variants */
  if (rc == NH_OK) {
    // runs the conservative example: does it also run it with a force?
    rc = check_variant(method, kind, NH_KIND_FORCE, msg, msg_size);
    return rc == NH_OK ? NH_OK : rc == NH_ERR_UNSUPPORTED ? NH_KIND_NO_FORCE : rc;
  }
  // refused: would a closed-form flow make it run? (msg keeps the refusal without one)
  char with_flow[8];
  int rf = check_variant(method, kind, NH_KIND_FLOW, with_flow, sizeof with_flow);
  return rf == NH_OK ? NH_KIND_NEEDS_FLOW : NH_ERR_UNSUPPORTED;
}
