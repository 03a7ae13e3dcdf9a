/* nholo/evaluators.h - the one list of a model's evaluators (an X-macro).
 *
 * Every evaluator a model may have is one entry
 *
 *   X(name, type, exact)
 *
 *   name   the field of nh_model_def and of nh_model that holds it (users set it by name)
 *   type   its function-pointer type (nholo/model.h declares each, with its signature)
 *   exact  the NH_DERIV_* bit the evaluator makes exact in nh_model.exact_derivs, or 0
 *
 * The list is expanded wherever the evaluators are written out: the fields of nh_model_def
 * and nh_model (in this order), the copy from definition to model, the evaluator set a model
 * file builds (tapes or generated C) and the symbols of generated C ("nh_mf_e_" name). To
 * add an evaluator, add its type to nholo/model.h and one line here; then give model files
 * a way to provide it if they can.
 *
 * Use: define X(name, type, exact), expand NH_EVALUATOR_LIST(X), undefine X. The list needs
 * nothing declared to be defined; the types must be declared where it is expanded. */
#ifndef NHOLO_EVALUATORS_H
#define NHOLO_EVALUATORS_H

#define NH_EVALUATOR_LIST(X)                                                                 \
  /* ---- mechanical form: (q, v), T = 1/2 v^T M(q) v ---- */                               \
  X(mass, nh_mass_fn, 0)                     /* M(q); required (mechanical form) */          \
  X(potential, nh_potential_fn, 0)           /* V(q), dV; Nullable: V = 0 */                 \
  X(coriolis, nh_coriolis_fn, 0)             /* c(q, v); Nullable: M constant */             \
  X(force, nh_force_fn, 0)                   /* f(t, q, v); Nullable: f = 0 */               \
  X(constraint, nh_constraint_fn, 0)         /* A(q), Adot v; required when nc > 0 */        \
  X(gap, nh_gap_fn, 0)                       /* g(q), dg; required when ngap > 0 */          \
  X(flow, nh_flow_fn, 0)                     /* closed-form flow; Nullable: enables "exact" */ \
  X(predict, nh_predict_fn, 0)               /* closed-form next impact; Nullable */         \
  /* ---- derivatives of the above; Nullable: central finite differences instead ---- */    \
  X(mass_deriv, nh_mass_deriv_fn, NH_DERIV_MASS)             /* dM/dq */                     \
  X(mass_deriv2, nh_mass_deriv2_fn, NH_DERIV_MASS2)          /* d2M/dq dq */                 \
  X(potential_hess, nh_potential_hess_fn, NH_DERIV_POTENTIAL) /* Hessian of V */             \
  X(constraint_deriv, nh_constraint_deriv_fn, NH_DERIV_CONSTRAINT) /* dA/dq */               \
  X(force_jac, nh_force_jac_fn, NH_DERIV_FORCE)              /* df/dq, df/dv */              \
  /* ---- holonomic constraints phi(q) = 0 whose gradients are A; Nullable ---- */          \
  X(holonomic, nh_holonomic_fn, 0)                                                           \
  /* ---- first-order (ODE) form: x' = F(t, x) ---- */                                      \
  X(rhs, nh_rhs_fn, 0)                       /* F(t, x); required (ODE form, not Poisson) */ \
  X(energy, nh_energy_fn, 0)                 /* E(t, x), monitored; Nullable: E = 0 */       \
  X(project, nh_project_fn, 0)               /* x <- P(x) after a step; Nullable */          \
  X(angvel, nh_angvel_fn, 0)                 /* body angular velocity of the quaternion */   \
  /* ---- almost-Poisson form: x' = Pi(x) grad H(x) ---- */                                 \
  X(hamiltonian, nh_hamiltonian_fn, 0)       /* H(x), grad H; with poisson */                \
  X(poisson, nh_poisson_fn, 0)               /* Pi(x), skew; with hamiltonian */             \
  X(hamiltonian_hess, nh_hamiltonian_hess_fn, NH_DERIV_HAMILTONIAN) /* Hessian of H */       \
  X(poisson_jac, nh_poisson_jac_fn, NH_DERIV_POISSON)        /* T = d(Pi g)/dx */            \
  /* sparse-fill variants of the three above (structural zeros left unwritten) */           \
  X(poisson_sparse, nh_poisson_fn, 0)                                                        \
  X(hamiltonian_hess_sparse, nh_hamiltonian_hess_fn, 0)                                      \
  X(poisson_jac_sparse, nh_poisson_jac_fn, 0)                                                \
  /* sparse-fill variants of M and A (mechanical form; entries outside mass_pattern and    \
   * constraint_pattern left unwritten; Adot v written whole) */                           \
  X(mass_sparse, nh_mass_fn, 0)                                                              \
  X(constraint_sparse, nh_constraint_fn, 0)                                                  \
  /* ---- either form ---- */                                                               \
  X(monitor, nh_monitor_fn, 0)               /* m_j(t, x), j < nmon; required when nmon > 0 */

/* A struct field per evaluator, for expanding the list inside a struct. */
#define NH_EVALUATOR_FIELD(name, type, exact) type name;

#endif
