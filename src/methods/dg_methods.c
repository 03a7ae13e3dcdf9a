/* dg_methods.c - the discrete-gradient methods avf, gonzalez, itoh-abe on almost-Poisson
 * models x' = Pi(x) grad H(x) (Celledoni, Farre Puiggali, Hoiseth, Martin de Diego,
 * "Energy-Preserving Integrators Applied to Nonholonomic Systems", sec. 3.1-3.2; spec 002
 * M1, M2):
 *
 *   (14)  (x' - x)/h = Pi((x + x')/2) gradbar H(x, x')
 *   avf       gradbar = int_0^1 grad H(x + xi (x' - x)) dxi                        (11)
 *   gonzalez  gradbar = grad H(xbar) + [H(x') - H(x) - grad H(xbar).d] / |d|^2 d    (12)
 *   itoh-abe  gradbar_i = [H(y_i) - H(y_{i-1})] / (x'_i - x_i)                     (13)
 *
 * H(x') - H(x) = gradbar . (x' - x) = h gradbar^T Pi gradbar = 0: the energy is preserved up
 * to the Newton residual (reported per step) and round-off. avf and gonzalez are symmetric,
 * hence of order 2; itoh-abe is not symmetric and of order 1. Newton uses the exact Jacobian
 * from the model's Hessian of H and d(Pi g)/dx (finite differences when the model leaves them
 * out); see src/dg/dg.c. Dense output: cubic Hermite on F = Pi grad H.
 * A conservative mechanical model with 1 <= nc < nq constraints runs through its D* form
 * (q, rho) built at each step from M, V and A (nh_dstar_step, docs/discrete-gradients.md):
 * state, outputs and energy stay (q, v) and 1/2 v^T M v + V. */
#include "dg/dg.h"
#include "la/la.h"
#include "methods/method_impl.h"
#include "model/model_impl.h"

typedef struct dgm_ctx {
  const nh_model *model;
  double *dw;
  nh_dg_sys sys;
  nh_dg_pc pc; /* predictor corrections across steps */
  /* Pi: the model's sparse-fill evaluator where it has one (the step's buffers were zeroed by
   * nh_dg_work_clear), else the dense one; hs, pt: the sparse-fill ones or NULL (then the
   * model's helpers, dense or finite differences) */
  nh_poisson_fn pi;
  nh_hamiltonian_hess_fn hs;
  nh_poisson_jac_fn pt;
} dgm_ctx;

#define DGM_CTX_DOUBLES ((sizeof(dgm_ctx) + sizeof(double) - 1) / sizeof(double))

/* doubles holding the int pattern lists of nh_dg_sys */
static size_t dgm_pattern_doubles(const nh_model *m) {
  return (nh_dg_pattern_size(m->nx) * sizeof(int) + sizeof(double) - 1) / sizeof(double);
}
static size_t dgm_core_size(const nh_model *m) {
  return DGM_CTX_DOUBLES + nh_model_deriv_work_size(m) + nh_dg_work_size(m->nx) + (3 + NH_DG_PC_HIST) * (size_t)m->nx +
         dgm_pattern_doubles(m) + 8;
}
static size_t dgm_work_size(const nh_model *m) {
  if (m->form == NH_FORM_MECHANICAL) return nh_dstar_work_size(m);
  return dgm_core_size(m) + 2 * (size_t)m->nx + 1;
}

/* almost-Poisson models, and mechanical ones through their D* form (see nh_dstar_step) */
static int dgm_supports(const nh_model *m) {
  if (m->form == NH_FORM_MECHANICAL) return nh_dstar_supports(m);
  return m->poisson ? NH_OK : NH_ERR_UNSUPPORTED;
}

static int dgm_eval(const double *x, double *H, double *dH, double *Pi, void *user) {
  const dgm_ctx *c = user;
  const nh_model *m = c->model;
  int rc;
  if ((H || dH) && (rc = nh_cb(m->hamiltonian(x, H, dH, m->user)))) return rc;
  if (Pi && (rc = nh_cb(c->pi(x, Pi, m->user)))) return rc;
  return 0;
}
static int dgm_hess(const double *x, double *Hs, void *user) {
  const dgm_ctx *c = user;
  if (c->hs) return nh_cb(c->hs(x, Hs, c->model->user));
  return nh_model_hamiltonian_hess(c->model, x, Hs, c->dw);
}
static int dgm_pijac(const double *x, const double *g, double *T, void *user) {
  const dgm_ctx *c = user;
  if (c->pt) return nh_cb(c->pt(x, g, T, c->model->user));
  return nh_model_poisson_jac(c->model, x, g, T, c->dw);
}

static int dgm_step(nh_stepper *st, const double *x0, double h, double *x1, double *err,
                    nh_dg_kind kind) {
  const nh_model *m = st->model;
  if (m->form == NH_FORM_MECHANICAL) {
    if (err) *err = 0.0;
    st->restart = 0;
    return nh_dstar_step(st, x0, h, x1, (int)kind);
  }
  dgm_ctx *c = (dgm_ctx *)st->work;
  double *w = st->work + DGM_CTX_DOUBLES;
  c->model = m;
  c->dw = w, w += nh_model_deriv_work_size(m);
  c->pc.c = w, w += 2 * (size_t)m->nx;
  c->pc.xend = w, w += m->nx;
  c->pc.xs = w, w += NH_DG_PC_HIST * (size_t)m->nx;
  int *pat = (int *)w;
  w += dgm_pattern_doubles(m);
  if (st->restart || !c->sys.eval) {
    // the state was set from outside: the predictor history restarts; the system and its
    // sparsity (from the model's patterns of Pi and T) are set up once
    c->pc.count = 0, c->pc.nhist = 0;
    c->sys = (nh_dg_sys){.n = m->nx, .eval = dgm_eval, .hess = dgm_hess, .pijac = dgm_pijac,
                         .degree = m->hamiltonian_degree, .user = c};
    nh_dg_sys_patterns(&c->sys, m->poisson_pattern, m->poisson_jac_pattern, pat);
    nh_dg_work_clear(m->nx, w);
    c->pi = m->poisson_sparse ? m->poisson_sparse : m->poisson;
    c->hs = m->hamiltonian_hess_sparse;
    c->pt = m->poisson_jac_sparse;
  }
  st->restart = 0;
  if (err) *err = 0.0;
  st->work[dgm_core_size(m) + 2 * (size_t)m->nx] = 0.0; /* dense slopes stale */
  nh_dg_newton ns;
  int rc = nh_dg_step(&c->sys, kind, x0, h, x1, &ns, w, NULL, &c->pc);
  nh_stepper_solved(st, ns.iters, ns.residual);
  st->evals += ns.iters + 1;
  return rc;
}

static int avf_step(nh_stepper *st, double t, const double *x0, double h, double *x1, double *err) {
  (void)t;
  return dgm_step(st, x0, h, x1, err, NH_DG_AVF);
}
static int gonzalez_step(nh_stepper *st, double t, const double *x0, double h, double *x1, double *err) {
  (void)t;
  return dgm_step(st, x0, h, x1, err, NH_DG_GONZALEZ);
}
static int itoh_abe_step(nh_stepper *st, double t, const double *x0, double h, double *x1, double *err) {
  (void)t;
  return dgm_step(st, x0, h, x1, err, NH_DG_ITOH_ABE);
}

const nh_method nh_method_avf = {
    .name = "avf",
    .summary = "averaged vector field discrete gradient, midpoint Pi, on an almost-Poisson model or D* form",
    .preserves = "energy (to solver tolerance and quadrature round-off); constraints built in",
    .order = 2,
    .flags = NH_METHOD_IMPLICIT | NH_METHOD_SYMMETRIC | NH_METHOD_ENERGY,
    .work_size = dgm_work_size,
    .supports = dgm_supports,
    .step = avf_step,
    .dense = nh_hermite_dense_tail,
    .contact = NH_HOLD_PROJECT,
};

const nh_method nh_method_gonzalez = {
    .name = "gonzalez",
    .summary = "Gonzalez midpoint discrete gradient, midpoint Pi, on an almost-Poisson model or D* form",
    .preserves = "energy (to solver tolerance); constraints built in",
    .order = 2,
    .flags = NH_METHOD_IMPLICIT | NH_METHOD_SYMMETRIC | NH_METHOD_ENERGY,
    .work_size = dgm_work_size,
    .supports = dgm_supports,
    .step = gonzalez_step,
    .dense = nh_hermite_dense_tail,
    .contact = NH_HOLD_PROJECT,
};

const nh_method nh_method_itoh_abe = {
    .name = "itoh-abe",
    .summary = "Itoh-Abe coordinate-increment discrete gradient, midpoint Pi (not symmetric), or D* form",
    .preserves = "energy (to solver tolerance); constraints built in",
    .order = 1,
    .flags = NH_METHOD_IMPLICIT | NH_METHOD_ENERGY,
    .work_size = dgm_work_size,
    .supports = dgm_supports,
    .step = itoh_abe_step,
    .dense = nh_hermite_dense_tail,
    .contact = NH_HOLD_PROJECT,
};
