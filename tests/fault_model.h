/* fault_model.h - a model whose evaluators are another model's, counted, one of whose calls
 * fails on purpose: the paths that guard a step (an evaluator's error, its request for a
 * smaller step, a singular or non-finite value) made deterministic for any model and method.
 *
 *   fault f = {0};
 *   nh_model *w = fault_wrap(inner, &f);      (inner outlives w; f outlives w)
 *   f.at = f.calls + 3, f.mode = FAULT_NEG;   (the third evaluator call from now returns -1)
 *
 * Every evaluator of the inner model is wrapped (the same evaluators present, the same
 * sizes, patterns and flags, so the library takes the same paths); the call counted as
 * number `at` (from 1) does what `mode` says: return -1 (NEG), return +1 (POS: "infeasible,
 * retry smaller"), or return the inner result with its outputs overwritten by 0 (ZERO) or
 * NaN (NAN). `mask` (1 << FAULT_EV_*, 0: all) restricts which evaluators count; `log` records
 * which evaluator each counted call was; `dense` leaves the model's patterns out, `sparse`
 * adds a sparse-fill constraint evaluator (the tapes of model files have none). Included by one test file each (static definitions). */
#ifndef NH_TEST_FAULT_MODEL_H
#define NH_TEST_FAULT_MODEL_H

#include <math.h>
#include <stddef.h>

#include "nholo/nholo.h"

enum {
  FAULT_EV_MASS,
  FAULT_EV_POTENTIAL,
  FAULT_EV_CORIOLIS,
  FAULT_EV_FORCE,
  FAULT_EV_CONSTRAINT,
  FAULT_EV_GAP,
  FAULT_EV_FLOW,
  FAULT_EV_PREDICT,
  FAULT_EV_MASS_DERIV,
  FAULT_EV_MASS_DERIV2,
  FAULT_EV_POTENTIAL_HESS,
  FAULT_EV_CONSTRAINT_DERIV,
  FAULT_EV_FORCE_JAC,
  FAULT_EV_HOLONOMIC,
  FAULT_EV_RHS,
  FAULT_EV_ENERGY,
  FAULT_EV_PROJECT,
  FAULT_EV_ANGVEL,
  FAULT_EV_HAMILTONIAN,
  FAULT_EV_POISSON,
  FAULT_EV_HAMILTONIAN_HESS,
  FAULT_EV_POISSON_JAC,
  FAULT_EV_POISSON_SPARSE,
  FAULT_EV_HAMILTONIAN_HESS_SPARSE,
  FAULT_EV_POISSON_JAC_SPARSE,
  FAULT_EV_MASS_SPARSE,
  FAULT_EV_CONSTRAINT_SPARSE,
  FAULT_EV_MONITOR,
  FAULT_EV_COUNT
};

typedef enum fault_mode { FAULT_NEG = 0, FAULT_POS, FAULT_ZERO, FAULT_NAN } fault_mode;

#define FAULT_LOG 65536

typedef struct fault {
  const nh_model *in; /* the wrapped model (set by fault_wrap) */
  long calls;         /* evaluator calls counted so far */
  long at;            /* the counted call that misbehaves (from 1), 0: none */
  int persist;        /* 1: every counted call from `at` on misbehaves */
  fault_mode mode;
  unsigned mask;      /* evaluators counted (1 << FAULT_EV_*), 0: all */
  long hits;          /* calls that misbehaved */
  int dense;          /* fault_wrap: leave out the mass and constraint patterns and their
                         sparse-fill evaluators (the dense loops everywhere) */
  int sparse;         /* fault_wrap: a sparse-fill constraint evaluator where the model has a
                         pattern and none (the dense one: A is +0 outside its pattern) */
  unsigned char log[FAULT_LOG]; /* the evaluator of counted call k + 1 (the first FAULT_LOG) */
} fault;

/* count a call of evaluator ev; 1 when it is to misbehave */
static inline int fault_hit(fault *f, int ev) {
  if (f->mask && !(f->mask & (1u << ev))) return 0;
  if (f->calls < FAULT_LOG) f->log[f->calls] = (unsigned char)ev;
  f->calls++;
  const int hit = f->at > 0 && (f->calls == f->at || (f->persist && f->calls > f->at));
  f->hits += hit;
  return hit;
}

/* the status a misbehaving call returns before evaluating (NEG, POS), else -2: evaluate */
static inline int fault_early(const fault *f) { return f->mode == FAULT_NEG ? -1 : f->mode == FAULT_POS ? 1 : -2; }

static inline void fault_fill(const fault *f, double *x, size_t n) {
  if (!x) return;
  for (size_t i = 0; i < n; i++) x[i] = f->mode == FAULT_ZERO ? 0.0 : NAN;
}

/* the common body: hit test, early return, the inner call, the outputs overwritten */
#define FAULT_BODY(EV, CALL, FILLS)                       \
  fault *f = user;                                        \
  const nh_model *m = f->in;                              \
  const int hit = fault_hit(f, EV);                       \
  if (hit && fault_early(f) != -2) return fault_early(f); \
  const int rc = CALL;                                    \
  if (hit) {                                              \
    FILLS;                                                \
  }                                                       \
  (void)m;                                                \
  return rc

#define NQ ((size_t)m->nq)
#define NC ((size_t)m->nc)
#define NX ((size_t)m->nx)
static inline int fw_mass(const double *q, double *M, void *user) {
  FAULT_BODY(FAULT_EV_MASS, m->mass(q, M, m->user), fault_fill(f, M, NQ * NQ));
}
static inline int fw_potential(const double *q, double *V, double *dV, void *user) {
  FAULT_BODY(FAULT_EV_POTENTIAL, m->potential(q, V, dV, m->user), fault_fill(f, V, 1); fault_fill(f, dV, NQ));
}
static inline int fw_coriolis(const double *q, const double *v, double *c, void *user) {
  FAULT_BODY(FAULT_EV_CORIOLIS, m->coriolis(q, v, c, m->user), fault_fill(f, c, NQ));
}
static inline int fw_force(double t, const double *q, const double *v, double *fo, void *user) {
  FAULT_BODY(FAULT_EV_FORCE, m->force(t, q, v, fo, m->user), fault_fill(f, fo, NQ));
}
static inline int fw_constraint(const double *q, const double *v, double *A, double *Adv, void *user) {
  FAULT_BODY(FAULT_EV_CONSTRAINT, m->constraint(q, v, A, Adv, m->user), fault_fill(f, A, NC * NQ); fault_fill(f, Adv, NC));
}
static inline int fw_constraint_sparse(const double *q, const double *v, double *A, double *Adv, void *user) {
  FAULT_BODY(FAULT_EV_CONSTRAINT_SPARSE, m->constraint_sparse(q, v, A, Adv, m->user), fault_fill(f, A, NC * NQ);
             fault_fill(f, Adv, NC));
}
static inline int fw_constraint_fill(const double *q, const double *v, double *A, double *Adv, void *user) {
  FAULT_BODY(FAULT_EV_CONSTRAINT_SPARSE, m->constraint(q, v, A, Adv, m->user), fault_fill(f, A, NC * NQ);
             fault_fill(f, Adv, NC));
}
static inline int fw_gap(const double *q, double *g, double *dg, void *user) {
  const size_t w = (size_t)(((fault *)user)->in->form == NH_FORM_MECHANICAL ? ((fault *)user)->in->nq
                                                                              : ((fault *)user)->in->nx);
  FAULT_BODY(FAULT_EV_GAP, m->gap(q, g, dg, m->user), fault_fill(f, g, (size_t)m->ngap); fault_fill(f, dg, (size_t)m->ngap * w));
}
static inline int fw_flow(const double *q0, const double *v0, double tau, double *q, double *v, void *user) {
  FAULT_BODY(FAULT_EV_FLOW, m->flow(q0, v0, tau, q, v, m->user), fault_fill(f, q, NQ); fault_fill(f, v, NQ));
}
static inline int fw_predict(const double *q0, const double *v0, double tau_max, double *tau, int *gap, void *user) {
  FAULT_BODY(FAULT_EV_PREDICT, m->predict(q0, v0, tau_max, tau, gap, m->user), fault_fill(f, tau, 1));
}
static inline int fw_mass_deriv(const double *q, double *dM, void *user) {
  FAULT_BODY(FAULT_EV_MASS_DERIV, m->mass_deriv(q, dM, m->user), fault_fill(f, dM, NQ * NQ * NQ));
}
static inline int fw_mass_deriv2(const double *q, double *d2M, void *user) {
  FAULT_BODY(FAULT_EV_MASS_DERIV2, m->mass_deriv2(q, d2M, m->user), fault_fill(f, d2M, NQ * NQ * NQ * NQ));
}
static inline int fw_potential_hess(const double *q, double *H, void *user) {
  FAULT_BODY(FAULT_EV_POTENTIAL_HESS, m->potential_hess(q, H, m->user), fault_fill(f, H, NQ * NQ));
}
static inline int fw_constraint_deriv(const double *q, double *dA, void *user) {
  FAULT_BODY(FAULT_EV_CONSTRAINT_DERIV, m->constraint_deriv(q, dA, m->user), fault_fill(f, dA, NQ * NC * NQ));
}
static inline int fw_force_jac(double t, const double *q, const double *v, double *dq, double *dv, void *user) {
  FAULT_BODY(FAULT_EV_FORCE_JAC, m->force_jac(t, q, v, dq, dv, m->user), fault_fill(f, dq, NQ * NQ);
             fault_fill(f, dv, NQ * NQ));
}
static inline int fw_holonomic(const double *q, double *phi, void *user) {
  FAULT_BODY(FAULT_EV_HOLONOMIC, m->holonomic(q, phi, m->user), fault_fill(f, phi, NC));
}
static inline int fw_rhs(double t, const double *x, double *xd, void *user) {
  FAULT_BODY(FAULT_EV_RHS, m->rhs(t, x, xd, m->user), fault_fill(f, xd, NX));
}
static inline int fw_energy(double t, const double *x, double *E, void *user) {
  FAULT_BODY(FAULT_EV_ENERGY, m->energy(t, x, E, m->user), fault_fill(f, E, 1));
}
static inline int fw_project(double *x, void *user) { FAULT_BODY(FAULT_EV_PROJECT, m->project(x, m->user), fault_fill(f, x, NX)); }
static inline int fw_angvel(double t, const double *x, double *w, void *user) {
  FAULT_BODY(FAULT_EV_ANGVEL, m->angvel(t, x, w, m->user), fault_fill(f, w, 3));
}
static inline int fw_hamiltonian(const double *x, double *H, double *dH, void *user) {
  FAULT_BODY(FAULT_EV_HAMILTONIAN, m->hamiltonian(x, H, dH, m->user), fault_fill(f, H, 1); fault_fill(f, dH, NX));
}
static inline int fw_poisson(const double *x, double *P, void *user) {
  FAULT_BODY(FAULT_EV_POISSON, m->poisson(x, P, m->user), fault_fill(f, P, NX * NX));
}
static inline int fw_poisson_sparse(const double *x, double *P, void *user) {
  FAULT_BODY(FAULT_EV_POISSON_SPARSE, m->poisson_sparse(x, P, m->user), fault_fill(f, P, NX * NX));
}
static inline int fw_hamiltonian_hess(const double *x, double *H, void *user) {
  FAULT_BODY(FAULT_EV_HAMILTONIAN_HESS, m->hamiltonian_hess(x, H, m->user), fault_fill(f, H, NX * NX));
}
static inline int fw_hamiltonian_hess_sparse(const double *x, double *H, void *user) {
  FAULT_BODY(FAULT_EV_HAMILTONIAN_HESS_SPARSE, m->hamiltonian_hess_sparse(x, H, m->user), fault_fill(f, H, NX * NX));
}
static inline int fw_poisson_jac(const double *x, const double *g, double *T, void *user) {
  FAULT_BODY(FAULT_EV_POISSON_JAC, m->poisson_jac(x, g, T, m->user), fault_fill(f, T, NX * NX));
}
static inline int fw_poisson_jac_sparse(const double *x, const double *g, double *T, void *user) {
  FAULT_BODY(FAULT_EV_POISSON_JAC_SPARSE, m->poisson_jac_sparse(x, g, T, m->user), fault_fill(f, T, NX * NX));
}
static inline int fw_mass_sparse(const double *q, double *M, void *user) {
  FAULT_BODY(FAULT_EV_MASS_SPARSE, m->mass_sparse(q, M, m->user), fault_fill(f, M, NQ * NQ));
}
static inline int fw_monitor(double t, const double *x, double *mv, void *user) {
  FAULT_BODY(FAULT_EV_MONITOR, m->monitor(t, x, mv, m->user), fault_fill(f, mv, (size_t)m->nmon));
}
#undef NQ
#undef NC
#undef NX

/* The model `in` with every evaluator wrapped by f (which must outlive the result, as must
 * `in`); NULL with the reason in msg when the copy is refused. */
static inline nh_model *fault_wrap(const nh_model *in, fault *f, char *msg, size_t msg_size) {
  nh_model_def d = nh_model_def_default();
  f->in = in;
  d.name = in->name;
  d.nq = in->nq, d.nc = in->nc, d.ngap = in->ngap, d.npar = in->npar;
  d.coord_names = in->coord_names, d.constraint_names = in->constraint_names, d.gap_names = in->gap_names;
  d.param_names = in->param_names, d.param_values = in->param_values, d.impact = in->impact;
  d.form = in->form;
  if (in->form == NH_FORM_MECHANICAL) {
    d.q0 = in->q0, d.v0 = in->v0;
  } else {
    d.nx = in->nx, d.state_names = in->state_names, d.x0 = in->x0;
  }
  d.hamiltonian_degree = in->hamiltonian_degree;
  d.poisson_pattern = in->poisson_pattern, d.poisson_jac_pattern = in->poisson_jac_pattern;
  d.quat = in->quat, d.nmon = in->nmon, d.monitors = in->monitors;
  d.has_se2 = in->has_se2;
  for (int i = 0; i < 3; i++) d.se2[i] = in->se2[i];
  d.mass_constant = in->mass_constant, d.gram_constant = in->gram_constant;
  if (!f->dense) d.mass_pattern = in->mass_pattern, d.constraint_pattern = in->constraint_pattern;
#define FAULT_SET(name) d.name = in->name ? fw_##name : NULL;
  FAULT_SET(mass) FAULT_SET(potential) FAULT_SET(coriolis) FAULT_SET(force) FAULT_SET(constraint)
  FAULT_SET(gap) FAULT_SET(flow) FAULT_SET(predict) FAULT_SET(mass_deriv) FAULT_SET(mass_deriv2)
  FAULT_SET(potential_hess) FAULT_SET(constraint_deriv) FAULT_SET(force_jac) FAULT_SET(holonomic)
  FAULT_SET(rhs) FAULT_SET(energy) FAULT_SET(project) FAULT_SET(angvel) FAULT_SET(hamiltonian)
  FAULT_SET(poisson) FAULT_SET(hamiltonian_hess) FAULT_SET(poisson_jac) FAULT_SET(poisson_sparse)
  FAULT_SET(hamiltonian_hess_sparse) FAULT_SET(poisson_jac_sparse) FAULT_SET(mass_sparse)
  FAULT_SET(constraint_sparse) FAULT_SET(monitor)
#undef FAULT_SET
  if (f->dense) d.mass_sparse = NULL, d.constraint_sparse = NULL;
  if (f->sparse && !f->dense && in->constraint_pattern && !in->constraint_sparse) d.constraint_sparse = fw_constraint_fill;
  d.user = f, d.user_size = 0;
  return nh_model_create(&d, msg, msg_size);
}

#endif
