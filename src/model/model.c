/* model.c - building, validating and querying a constant nh_model.
 *
 * nh_model_create copies the definition into one allocation: the struct, name strings,
 * name tables, parameter values, impact laws, initial state and the user data block. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "la/la.h"
#include "model/model_impl.h"
#include "base/msg.h"
#include "nholo/model.h"

#define NH_MODEL_DEF_COOKIE 0x6e686d64 /* "nhmd" */

nh_model_def nh_model_def_default(void) {
  nh_model_def d;
  memset(&d, 0, sizeof d);
  d.internal_cookie = NH_MODEL_DEF_COOKIE;
  return d;
}

/* bump allocator over one block */
typedef struct {
  char *base;
  size_t used, cap;
} arena;

static void *arena_take(arena *a, size_t n, size_t align) {
  size_t off = (a->used + align - 1) / align * align;
  if (a->base == NULL) { /* sizing pass */
    a->used = off + n;
    return NULL;
  }
  a->used = off + n;
  return a->base + off;
}

static size_t names_size(int n, const char *const *names) {
  size_t s = 0;
  for (int i = 0; i < n; i++) s += (names ? strlen(names[i]) : 16) + 1;
  return s;
}

/* copy a name table (or generate prefix1, prefix2, ...) */
static const char *const *copy_names(arena *a, int n, const char *const *names, const char *prefix) {
  char **tab = arena_take(a, sizeof(char *) * (size_t)(n > 0 ? n : 1), sizeof(char *));
  char *chars = arena_take(a, names_size(n, names), 1);
  if (!tab) return NULL;
  for (int i = 0; i < n; i++) {
    tab[i] = chars;
    if (names) {
      size_t len = strlen(names[i]);
      memcpy(chars, names[i], len + 1);
      chars += len + 1;
    } else {
      int len = snprintf(chars, 16, "%s%d", prefix, i + 1);
      chars += len + 1;
    }
  }
  return (const char *const *)tab;
}

static int valid_name(const char *s) {
  if (!s || !*s || strlen(s) >= NH_MAX_NAME) return 0;
  return 1;
}

static int check_names(int n, const char *const *names, const char *what, char *msg, size_t size) {
  if (!names) return 1;
  for (int i = 0; i < n; i++) {
    if (!valid_name(names[i])) {
      nh_set_msg(msg, size, "%s name %d is empty or longer than %d characters", what, i + 1,
              NH_MAX_NAME - 1);
      return 0;
    }
    for (int j = 0; j < i; j++)
      if (strcmp(names[i], names[j]) == 0) {
        nh_set_msg(msg, size, "duplicate %s name '%s'", what, names[i]);
        return 0;
      }
  }
  return 1;
}

/* what both forms share: parameters and the user block */
static int check_common(const nh_model_def *d, char *msg, size_t size) {
  if (d->npar > 0 && (!d->param_names || !d->param_values)) {
    nh_set_msg(msg, size, "%d parameters declared but names or values missing", d->npar);
    return 0;
  }
  if (d->user_size > 0 && !d->user) {
    nh_set_msg(msg, size, "user_size > 0 but user is NULL");
    return 0;
  }
  return check_names(d->npar, d->param_names, "parameter", msg, size);
}

/* monitors: evaluator, names, direction and action */
static int check_monitors(const nh_model_def *d, char *msg, size_t size) {
  if (d->nmon < 0) {
    nh_set_msg(msg, size, "bad size: nmon = %d (>= 0)", d->nmon);
    return 0;
  }
  if (d->nmon == 0) return 1;
  if (!d->monitor || !d->monitors) {
    nh_set_msg(msg, size, "%d monitors declared but no monitor evaluator or definitions", d->nmon);
    return 0;
  }
  for (int i = 0; i < d->nmon; i++) {
    const nh_monitor_def *mo = &d->monitors[i];
    if (!valid_name(mo->name)) {
      nh_set_msg(msg, size, "monitor name %d is empty or longer than %d characters", i + 1,
                 NH_MAX_NAME - 1);
      return 0;
    }
    for (int j = 0; j < i; j++)
      if (strcmp(mo->name, d->monitors[j].name) == 0) {
        nh_set_msg(msg, size, "duplicate monitor name '%s'", mo->name);
        return 0;
      }
    if (mo->direction != NH_MONITOR_BOTH && mo->direction != NH_MONITOR_FALLING &&
        mo->direction != NH_MONITOR_RISING && mo->direction != NH_MONITOR_NONE) {
      nh_set_msg(msg, size, "monitor '%s': unknown direction %d", mo->name, (int)mo->direction);
      return 0;
    }
    if (mo->action != NH_MONITOR_REPORT && mo->action != NH_MONITOR_STOP) {
      nh_set_msg(msg, size, "monitor '%s': unknown action %d", mo->name, (int)mo->action);
      return 0;
    }
  }
  return 1;
}

/* the gaps' impact laws */
static int check_laws(const nh_model_def *d, char *msg, size_t size) {
  for (int i = 0; i < d->ngap && d->impact; i++) {
    const nh_impact_law *l = &d->impact[i];
    if (l->kind != NH_IMPACT_ELASTIC && l->kind != NH_IMPACT_PLASTIC &&
        l->kind != NH_IMPACT_RESTITUTION) {
      nh_set_msg(msg, size, "gap %d: unknown impact law %d", i + 1, (int)l->kind);
      return 0;
    }
    if (l->kind == NH_IMPACT_RESTITUTION && !(l->e >= 0.0 && l->e <= 1.0)) {
      nh_set_msg(msg, size, "gap %d: coefficient of restitution %g is outside [0, 1]", i + 1, l->e);
      return 0;
    }
  }
  return 1;
}

/* the first-order form: x' = F(t, x), nothing mechanical */
static int check_ode_def(const nh_model_def *d, char *msg, size_t size) {
  if (d->nx < 1) {
    nh_set_msg(msg, size, "bad size: nx = %d (>= 1) for an ODE-form model", d->nx);
    return 0;
  }
  if (d->nq != 0 || d->nc != 0 || d->mass || d->mass_constant || d->gram_constant || d->constraint || d->flow) {
    nh_set_msg(msg, size, "an ODE-form model has no coordinates, constraints, mass or flow");
    return 0;
  }
  /* gaps on the state: only in the almost-Poisson form (its impact map, nholo/impact.h) */
  if (d->ngap < 0 || ((d->ngap > 0 || d->gap) && !(d->hamiltonian && d->poisson))) {
    nh_set_msg(msg, size, "an ODE-form model has gaps only in the almost-Poisson form (hamiltonian and poisson)");
    return 0;
  }
  if (d->ngap > 0 && !d->gap) {
    nh_set_msg(msg, size, "%d gaps declared but no gap evaluator", d->ngap);
    return 0;
  }
  if (!check_names(d->ngap, d->gap_names, "gap", msg, size) || !check_laws(d, msg, size)) return 0;
  for (int i = 0; i < d->ngap && d->impact; i++)
    if (d->impact[i].kind == NH_IMPACT_PLASTIC) {
      nh_set_msg(msg, size, "gap %d: the plastic law (Clark & Bloch) needs the unconstrained kinetic metric, which the "
                            "almost-Poisson form does not carry (restitution 0 stops the gap's rate)", i + 1);
      return 0;
    }
  if (d->hamiltonian || d->poisson) {
    if (!d->hamiltonian || !d->poisson || d->rhs || d->energy) {
      nh_set_msg(msg, size, "an almost-Poisson model gives hamiltonian and poisson, and no rhs or energy (derived)");
      return 0;
    }
    if (d->hamiltonian_degree < 0) {
      nh_set_msg(msg, size, "bad hamiltonian_degree %d (>= 0; 0: not polynomial)", d->hamiltonian_degree);
      return 0;
    }
  } else if (!d->rhs) {
    nh_set_msg(msg, size, "an ODE-form model needs a right-hand side evaluator");
    return 0;
  }
  if (d->angvel && (d->quat < 0 || d->quat > d->nx - 4)) {
    nh_set_msg(msg, size, "rotation part: quaternion index %d must be in [0, nx - 4 = %d]", d->quat, d->nx - 4);
    return 0;
  }
  if (!check_common(d, msg, size)) return 0;
  if (!check_names(d->nx, d->state_names, "state", msg, size)) return 0;
  for (int i = 0; i < d->nx && d->x0; i++)
    if (!isfinite(d->x0[i])) {
      nh_set_msg(msg, size, "initial state component %d is not finite", i + 1);
      return 0;
    }
  return check_monitors(d, msg, size);
}

static int check_def(const nh_model_def *d, char *msg, size_t size) {
  if (!d || d->internal_cookie != NH_MODEL_DEF_COOKIE) {
    nh_set_msg(msg, size, "model definition not initialised with nh_model_def_default()");
    return 0;
  }
  /* a sparse-fill evaluator only beside its dense one */
  const struct {
    int sparse, dense;
    const char *name;
  } sp[] = {{!!d->poisson_sparse, !!d->poisson, "poisson"},
            {!!d->hamiltonian_hess_sparse, !!d->hamiltonian_hess, "hamiltonian_hess"},
            {!!d->poisson_jac_sparse, !!d->poisson_jac, "poisson_jac"}};
  for (int i = 0; i < 3; i++)
    if (sp[i].sparse && !sp[i].dense) {
      nh_set_msg(msg, size, "%s_sparse is given without %s (a sparse-fill evaluator needs its dense one)",
                 sp[i].name, sp[i].name);
      return 0;
    }
  if ((d->mass_sparse && !d->mass) || (d->constraint_sparse && !d->constraint)) {
    nh_set_msg(msg, size, "mass_sparse or constraint_sparse is given without its dense evaluator (a sparse-fill evaluator needs its dense one)");
    return 0;
  }
  if (d->form == NH_FORM_ODE && (d->mass_pattern || d->constraint_pattern || d->mass_sparse || d->constraint_sparse)) {
    nh_set_msg(msg, size, "mass_pattern, constraint_pattern and their sparse-fill evaluators belong to the mechanical form");
    return 0;
  }
  if (d->form == NH_FORM_ODE) return check_ode_def(d, msg, size);
  if (d->form != NH_FORM_MECHANICAL) {
    nh_set_msg(msg, size, "unknown model form %d", (int)d->form);
    return 0;
  }
  if (d->rhs || d->project || d->energy || d->angvel || d->nx != 0 || d->hamiltonian || d->poisson) {
    nh_set_msg(msg, size, "rhs, energy, project, angvel, nx, hamiltonian and poisson belong to the ODE form (form = NH_FORM_ODE)");
    return 0;
  }
  if (d->nq < 1 || d->nc < 0 || d->ngap < 0 || d->npar < 0) {
    nh_set_msg(msg, size, "bad sizes: nq = %d (>= 1), nc = %d, ngap = %d, npar = %d (>= 0)", d->nq,
            d->nc, d->ngap, d->npar);
    return 0;
  }
  if (d->nc >= d->nq) {
    nh_set_msg(msg, size, "%d constraints on %d coordinates leave no motion", d->nc, d->nq);
    return 0;
  }
  if (d->gram_constant && (!d->mass_constant || d->nc < 1)) {
    nh_set_msg(msg, size, "gram_constant declares A M^-1 A^T constant: it needs mass_constant and nc >= 1 (nc = %d)",
               d->nc);
    return 0;
  }
  if (!d->coord_names) {
    nh_set_msg(msg, size, "coordinate names are required");
    return 0;
  }
  if (!d->mass) {
    nh_set_msg(msg, size, "a mass-matrix evaluator is required");
    return 0;
  }
  if (d->nc > 0 && !d->constraint) {
    nh_set_msg(msg, size, "%d constraints declared but no constraint evaluator", d->nc);
    return 0;
  }
  if (d->ngap > 0 && !d->gap) {
    nh_set_msg(msg, size, "%d gaps declared but no gap evaluator", d->ngap);
    return 0;
  }
  if (!check_common(d, msg, size)) return 0;
  if (d->has_se2) {
    const int *g = d->se2;
    if (d->nq < 3 || g[0] < 0 || g[1] < 0 || g[2] < 0 || g[0] >= d->nq || g[1] >= d->nq ||
        g[2] >= d->nq || g[0] == g[1] || g[0] == g[2] || g[1] == g[2]) {
      nh_set_msg(msg, size, "SE(2) coordinates (%d, %d, %d) must be three distinct indices below nq = %d",
                 g[0], g[1], g[2], d->nq);
      return 0;
    }
  }
  if (!check_names(d->nq, d->coord_names, "coordinate", msg, size)) return 0;
  if (!check_names(d->nc, d->constraint_names, "constraint", msg, size)) return 0;
  if (!check_names(d->ngap, d->gap_names, "gap", msg, size) || !check_laws(d, msg, size)) return 0;
  for (int i = 0; i < d->nq; i++) {
    if ((d->q0 && !isfinite(d->q0[i])) || (d->v0 && !isfinite(d->v0[i]))) {
      nh_set_msg(msg, size, "initial state of '%s' is not finite", d->coord_names[i]);
      return 0;
    }
  }
  return check_monitors(d, msg, size);
}

/* a mechanical model's state names: the coordinates, then "NAME_dot" */
static const char *const *mech_state_names(arena *a, int nq, const char *const *cn) {
  char **tab = arena_take(a, sizeof(char *) * (size_t)(2 * nq), sizeof(char *));
  char *chars = arena_take(a, (size_t)(2 * nq) * (NH_MAX_NAME + 4), 1);
  if (!tab) return NULL;
  for (int i = 0; i < 2 * nq; i++) {
    tab[i] = chars;
    chars += snprintf(chars, NH_MAX_NAME + 4, "%s%s", cn[i % nq], i < nq ? "" : "_dot") + 1;
  }
  return (const char *const *)tab;
}

/* entries of a pattern that are set */
static size_t count_nz(const unsigned char *p, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += p[i] != 0;
  return k;
}

/* a (nr x ncol) pattern by rows: offsets rows (nr + 1) and the columns of each row */
static void by_rows(const unsigned char *p, int nr, int ncol, int *rows, int *cols) {
  int k = 0;
  for (int i = 0; i < nr; i++) {
    rows[i] = k;
    for (int j = 0; j < ncol; j++)
      if (p[(size_t)i * (size_t)ncol + (size_t)j]) cols[k++] = j;
  }
  rows[nr] = k;
}

/* lay out (or size) the model block */
static nh_model *layout(arena *a, const nh_model_def *d) {
  nh_model *m = arena_take(a, sizeof(nh_model), 16);
  const char *const *cn = copy_names(a, d->nq, d->coord_names, "q");
  const char *const *kn = copy_names(a, d->nc, d->constraint_names, "c");
  const char *const *gn = copy_names(a, d->ngap, d->gap_names, "g");
  const char *const *pn = copy_names(a, d->npar, d->param_names, "p");
  double *pv = arena_take(a, sizeof(double) * (size_t)(d->npar + 1), sizeof(double));
  nh_impact_law *law = arena_take(a, sizeof(nh_impact_law) * (size_t)(d->ngap + 1), 16);
  double *q0 = arena_take(a, sizeof(double) * (size_t)d->nq, sizeof(double));
  double *v0 = arena_take(a, sizeof(double) * (size_t)d->nq, sizeof(double));
  const int ode = d->form == NH_FORM_ODE, nx = ode ? d->nx : 2 * d->nq;
  const char *const *sn = ode ? copy_names(a, nx, d->state_names, "x") : NULL;
  double *x0 = ode ? arena_take(a, sizeof(double) * (size_t)nx, sizeof(double)) : NULL;
  nh_monitor_def *mon = arena_take(a, sizeof(nh_monitor_def) * (size_t)(d->nmon + 1), 16);
  char *mon_chars = arena_take(a, (size_t)(d->nmon + 1) * NH_MAX_NAME, 1);
  void *user = d->user_size > 0 ? arena_take(a, d->user_size, 16) : NULL;
  const size_t npat = ode && d->poisson ? (size_t)nx * (size_t)nx : 0;
  unsigned char *pip = npat && d->poisson_pattern ? arena_take(a, npat, 1) : NULL;
  unsigned char *ptp = npat && d->poisson_jac_pattern ? arena_take(a, npat, 1) : NULL;
  const size_t nq = ode ? 0 : (size_t)d->nq, ncn = ode ? 0 : (size_t)d->nc;
  unsigned char *mpat = d->mass_pattern && nq ? arena_take(a, nq * nq, 1) : NULL;
  unsigned char *cpat = d->constraint_pattern && ncn ? arena_take(a, ncn * nq, 1) : NULL;
  const int hm = d->mass_pattern && nq, hc = d->constraint_pattern && ncn; /* (mpat is NULL when sizing) */
  int *mrows = hm ? arena_take(a, sizeof(int) * (nq + 1), sizeof(int)) : NULL;
  int *mcols = hm ? arena_take(a, sizeof(int) * (count_nz(d->mass_pattern, nq * nq) + 1), sizeof(int)) : NULL;
  int *crows = hc ? arena_take(a, sizeof(int) * (ncn + 1), sizeof(int)) : NULL;
  int *ccols = hc ? arena_take(a, sizeof(int) * (count_nz(d->constraint_pattern, ncn * nq) + 1), sizeof(int)) : NULL;
  if (!m) {
    if (!ode) mech_state_names(a, d->nq, NULL);
    return NULL;
  }

  memset(m, 0, sizeof *m);
  snprintf(m->name, sizeof m->name, "%s", d->name ? d->name : "model");
  m->nq = d->nq;
  m->nc = d->nc;
  m->ngap = d->ngap;
  m->npar = d->npar;
  m->coord_names = cn;
  m->constraint_names = kn;
  m->gap_names = gn;
  m->param_names = pn;
  for (int i = 0; i < d->npar; i++) pv[i] = d->param_values[i];
  m->param_values = pv;
  for (int i = 0; i < d->ngap; i++) {
    law[i].kind = d->impact ? d->impact[i].kind : NH_IMPACT_ELASTIC;
    law[i].e = d->impact ? d->impact[i].e : 1.0;
    if (law[i].kind == NH_IMPACT_ELASTIC) law[i].e = 1.0;
  }
  m->impact = law;
  for (int i = 0; i < d->nq; i++) {
    q0[i] = d->q0 ? d->q0[i] : 0.0;
    v0[i] = d->v0 ? d->v0[i] : 0.0;
  }
  m->q0 = q0;
  m->v0 = v0;
  /* every evaluator as given, and the exact-derivative bits of those present */
#define X(name, type, exact) m->name = d->name, m->exact_derivs |= d->name ? (unsigned)(exact) : 0u;
  NH_EVALUATOR_LIST(X)
#undef X
  m->holonomic = d->nc > 0 ? d->holonomic : NULL;
  /* a sparse fill without its pattern is of no use (a copy of another model's evaluators) */
  if (!d->mass_pattern) m->mass_sparse = NULL;
  if (!d->constraint_pattern || d->nc == 0) m->constraint_sparse = NULL;
  snprintf(m->backend, sizeof m->backend, "%s", d->backend ? d->backend : "c");
  m->user_free = d->user_free;
  m->form = ode ? NH_FORM_ODE : NH_FORM_MECHANICAL;
  m->nx = nx;
  if (ode) {
    for (int i = 0; i < nx; i++) x0[i] = d->x0 ? d->x0[i] : 0.0;
    m->state_names = sn;
    m->x0 = x0;
  } else {
    m->state_names = mech_state_names(a, d->nq, cn);
    m->x0 = q0; /* (q0, v0) are adjacent */
  }
  m->hamiltonian_degree = d->hamiltonian_degree;
  if (pip) m->poisson_pattern = memcpy(pip, d->poisson_pattern, npat);
  if (ptp) m->poisson_jac_pattern = memcpy(ptp, d->poisson_jac_pattern, npat);
  if (mpat) m->mass_pattern = memcpy(mpat, d->mass_pattern, nq * nq);
  if (cpat) m->constraint_pattern = memcpy(cpat, d->constraint_pattern, ncn * nq);
  if (mpat) by_rows(mpat, (int)nq, (int)nq, mrows, mcols), m->mass_rows = mrows, m->mass_cols = mcols;
  if (cpat) by_rows(cpat, (int)ncn, (int)nq, crows, ccols), m->constraint_rows = crows, m->constraint_cols = ccols;
  m->quat = d->angvel ? d->quat : 0;
  m->nmon = d->nmon;
  for (int i = 0; i < d->nmon; i++) {
    mon[i] = d->monitors[i];
    snprintf(mon_chars + (size_t)i * NH_MAX_NAME, NH_MAX_NAME, "%s", d->monitors[i].name);
    mon[i].name = mon_chars + (size_t)i * NH_MAX_NAME;
  }
  m->monitors = mon;
  m->has_se2 = d->has_se2 ? 1 : 0;
  m->mass_constant = !ode && d->mass_constant ? 1 : 0;
  m->gram_constant = m->mass_constant && d->nc > 0 && d->gram_constant ? 1 : 0;
  for (int i = 0; i < 3; i++) m->se2[i] = d->has_se2 ? d->se2[i] : -1;
  if (d->user_size > 0) {
    memcpy(user, d->user, d->user_size);
    m->user = user;
  } else {
    m->user = (void *)(uintptr_t)d->user; /* the caller keeps ownership */
  }
  return m;
}

nh_model *nh_model_create(const nh_model_def *def, char *msg, size_t msg_size) {
  nh_set_msg(msg, msg_size, "%s", "");
  if (!check_def(def, msg, msg_size)) return NULL;
  arena a = {NULL, 0, 0};
  layout(&a, def);
  a.cap = a.used;
  a.base = calloc(1, a.cap);
  if (!a.base) {
    nh_set_msg(msg, msg_size, "out of memory");
    return NULL;
  }
  a.used = 0;
  nh_model *m = layout(&a, def);
  m->gram = nh_gram_make(m, NH_SPARSE_FILL_RATIO); /* the multiplier solve from the patterns (model_impl.h) */
  return m;
}

void nh_model_destroy(nh_model *model) {
  if (model && model->user_free) model->user_free(model->user);
  if (model) nh_gram_free((struct nh_gram *)(uintptr_t)model->gram);
  free(model);
}

static int find_name(int n, const char *const *names, const char *name) {
  if (!name) return -1;
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return i;
  return -1;
}

int nh_model_coord_index(const nh_model *m, const char *name) {
  return m ? find_name(m->nq, m->coord_names, name) : -1;
}

int nh_model_gap_index(const nh_model *m, const char *name) {
  return m ? find_name(m->ngap, m->gap_names, name) : -1;
}

int nh_model_monitor_index(const nh_model *m, const char *name) {
  if (!m || !name) return -1;
  for (int i = 0; i < m->nmon; i++)
    if (strcmp(m->monitors[i].name, name) == 0) return i;
  return -1;
}

/* max nq for the small stack buffers of the pointwise queries below */
#define NH_QUERY_MAX 32

/* v^T M v, the loops unrolled for the small n of most models (the same operations) */
static inline double quad_n(int n, const double *M, const double *v) {
  double T = 0.0;
  NH_LA_UNROLL
  for (int i = 0; i < n; i++) T += v[i] * nh_la_dot_fixed(n, M + (size_t)i * n, v);
  return T;
}
static double quad(int n, const double *M, const double *v) {
  switch (n) {
  case 2: return quad_n(2, M, v);
  case 3: return quad_n(3, M, v);
  case 4: return quad_n(4, M, v);
  case 5: return quad_n(5, M, v);
  default: return quad_n(n, M, v);
  }
}

/* sum_i v_i sum_j M_ij v_j (dot products over the rows' entries, a row of rows/cols) */
static double quad_rows(int n, const int *rows, const int *cols, const double *M, const double *v) {
  double T = 0.0;
  for (int i = 0; i < n; i++) {
    if (rows[i] == rows[i + 1]) continue; /* a +0 row: v_i (+0) adds a zero */
    const double *Mi = M + (size_t)i * (size_t)n;
    double s = 0.0;
    for (int k = rows[i]; k < rows[i + 1]; k++) s += Mi[cols[k]] * v[cols[k]];
    T += v[i] * s;
  }
  return T;
}

/* E = 1/2 v^T M v + V(q) and its kinetic part (inlined in each exported form: the driver calls
 * them at every step) */
static inline int energy_parts(const nh_model *m, const double *q, const double *v, const double *M, double *E,
                               double *Tk) {
  int rc;
  double T = m->mass_rows && m->nq >= NH_MODEL_SPARSE_MIN ? quad_rows(m->nq, m->mass_rows, m->mass_cols, M, v)
                                                          : quad(m->nq, M, v);
  double V = 0.0;
  if (m->potential && (rc = nh_cb(m->potential(q, &V, NULL, m->user)))) return rc;
  *E = 0.5 * T + V;
  *Tk = 0.5 * T;
  return 0;
}

int nh_model_energy_kin_given_M(const nh_model *m, const double *q, const double *v, const double *M, double *E,
                                double *T) {
  return energy_parts(m, q, v, M, E, T);
}

int nh_model_energy_given_M(const nh_model *m, const double *q, const double *v, const double *M, double *E) {
  double T;
  return energy_parts(m, q, v, M, E, &T);
}

int nh_model_energy_ws(const nh_model *m, const double *q, const double *v, double *M, double *E) {
  int rc = nh_cb(m->mass(q, M, m->user));
  if (rc) return rc;
  return nh_model_energy_given_M(m, q, v, M, E);
}

/* max_k |A_k v|, the dot products unrolled for the small n of most models */
static inline double resid_n(int n, int nc, const double *A, const double *v) {
  double res = 0.0;
  for (int k = 0; k < nc; k++) {
    double r = fabs(nh_la_dot_fixed(n, A + (size_t)k * n, v));
    if (r > res) res = r;
  }
  return res;
}

void nh_model_residual_given_A(const nh_model *m, const double *v, const double *A, double *res) {
  if (m->constraint_rows && m->nq >= NH_MODEL_SPARSE_MIN) { /* the rows' entries only */
    double r = 0.0;
    for (int k = 0; k < m->nc; k++) {
      const double *Ak = A + (size_t)k * (size_t)m->nq;
      double d = 0.0;
      for (int e = m->constraint_rows[k]; e < m->constraint_rows[k + 1]; e++) d += Ak[m->constraint_cols[e]] * v[m->constraint_cols[e]];
      if (fabs(d) > r) r = fabs(d);
    }
    *res = r;
    return;
  }
  switch (m->nq) {
  case 2: *res = resid_n(2, m->nc, A, v); break;
  case 3: *res = resid_n(3, m->nc, A, v); break;
  case 4: *res = resid_n(4, m->nc, A, v); break;
  case 5: *res = resid_n(5, m->nc, A, v); break;
  default: *res = resid_n(m->nq, m->nc, A, v); break;
  }
}

int nh_model_residual_ws(const nh_model *m, const double *q, const double *v, double *A, double *res) {
  *res = 0.0;
  if (m->nc == 0) return 0;
  int rc = nh_cb(m->constraint(q, v, A, NULL, m->user));
  if (rc) return rc;
  nh_model_residual_given_A(m, v, A, res);
  return 0;
}

int nh_model_energy_clean_kin_ws(const nh_model *m, const double *q, const double *v, double *M, double *E, double *T) {
  const int sparse = m->mass_sparse && m->nq >= NH_MODEL_SPARSE_MIN;
  int rc = nh_cb(sparse ? m->mass_sparse(q, M, m->user) : m->mass(q, M, m->user));
  if (rc) return rc;
  return energy_parts(m, q, v, M, E, T);
}

int nh_model_energy_clean_ws(const nh_model *m, const double *q, const double *v, double *M, double *E) {
  const int sparse = m->mass_sparse && m->nq >= NH_MODEL_SPARSE_MIN;
  int rc = nh_cb(sparse ? m->mass_sparse(q, M, m->user) : m->mass(q, M, m->user));
  double T;
  if (rc) return rc;
  return energy_parts(m, q, v, M, E, &T);
}

int nh_model_residual_clean_ws(const nh_model *m, const double *q, const double *v, double *A, double *res) {
  *res = 0.0;
  if (m->nc == 0) return 0;
  const int sparse = m->constraint_sparse && m->nq >= NH_MODEL_SPARSE_MIN;
  int rc = nh_cb(sparse ? m->constraint_sparse(q, v, A, NULL, m->user) : m->constraint(q, v, A, NULL, m->user));
  if (rc) return rc;
  nh_model_residual_given_A(m, v, A, res);
  return 0;
}

/* a pointwise query has no smaller step to try: any nonzero evaluator return is a failure */
static int query_status(int rc) { return rc == 0 ? NH_OK : rc < 0 ? rc : NH_ERR_CALLBACK; }

int nh_model_energy(const nh_model *m, const double *q, const double *v, double *E) {
  if (!m || !q || !v || !E || m->form != NH_FORM_MECHANICAL) return NH_ERR_ARG;
  size_t sz = (size_t)m->nq * (size_t)m->nq;
  double buf[NH_QUERY_MAX * NH_QUERY_MAX];
  double *M = sz <= sizeof buf / sizeof buf[0] ? buf : malloc(sizeof(double) * sz);
  if (!M) return NH_ERR_NOMEM;
  int rc = query_status(nh_model_energy_ws(m, q, v, M, E));
  if (M != buf) free(M);
  return rc;
}

int nh_model_constraint_residual(const nh_model *m, const double *q, const double *v, double *res) {
  if (!m || !q || !v || !res) return NH_ERR_ARG;
  size_t sz = (size_t)m->nc * (size_t)m->nq;
  double buf[NH_QUERY_MAX * NH_QUERY_MAX];
  double *A = sz <= sizeof buf / sizeof buf[0] ? buf : malloc(sizeof(double) * (sz ? sz : 1));
  if (!A) return NH_ERR_NOMEM;
  int rc = query_status(nh_model_residual_ws(m, q, v, A, res));
  if (A != buf) free(A);
  return rc;
}

int nh_model_energy_x(const nh_model *m, double t, const double *x, double *E) {
  if (!m || !x || !E) return NH_ERR_ARG;
  if (m->form == NH_FORM_MECHANICAL) return nh_model_energy(m, x, x + m->nq, E);
  *E = 0.0;
  if (m->hamiltonian) return query_status(m->hamiltonian(x, E, NULL, m->user));
  return m->energy ? query_status(m->energy(t, x, E, m->user)) : NH_OK;
}
