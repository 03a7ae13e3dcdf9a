/* check.c - model-level checks of a model file, located at the statement at fault: the
 * kinetic energy a quadratic form and the constraints linear and homogeneous in the
 * velocities (at trial states), and at the initial state M positive definite, the constraints
 * independent and satisfied, the forces finite, the state inside every gap or touching it
 * (nholo/model.h: its zero to rounding, with a gradient). Which gaps are walls at all: walls.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/mf.h"
#include "expr/tape.h"
#include "la/la.h"
#include "nholo/status.h"

/* homogeneity checks: |T - 1/2 v^T M v| and |phi - A v| relative to the size of the terms */
#define MF_FORM_TOL 1e-9
#define MF_FORM_TRIALS 6
/* the initial state: |A v0| allowed (as nh_sim_def.constraint_tol) */
#define MF_CONSTRAINT_TOL 1e-9

/* deterministic xorshift, for the trial states of the form checks */
static double rnd(unsigned long long *s) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
}

static int check_ap_gap(mf *m, int k);

/* gap k at the initial state x (its value g there) against nholo/model.h's rounding rules: on
 * its zero to NH_GAP_START_REL max(1, |q|) |dg| it touches its wall (also from below: the
 * simulation takes it as 0); a zero there with a vanishing gradient is no wall; further below
 * it is outside */
static int check_gap_start(mf *m, int k, const double *x, double g) {
  const int n = m->nq;
  double scale = 1.0, dn = 0.0;
  for (int j = 0; j < n; j++) {
    const double d = nh_expr_eval(m->pool, m->dg[(size_t)k * n + j], x);
    scale = fmax(scale, fabs(x[j])), dn += d * d;
  }
  dn = sqrt(dn);
  if (fabs(g) <= NH_GAP_START_REL * scale && dn * scale <= NH_GAP_DEGEN_REL)
    return mf_fail(m, m->gap[k].off, "gap '%s' is zero at the initial state (g = %.3g) and so is its gradient "
                                     "(|dg| = %.3g): no wall there, its impact would have no normal",
                   m->gap[k].name, g, dn);
  if (!(g >= 0.0) && !(g >= -NH_GAP_START_REL * scale * dn)) /* (a gradient not finite: g >= 0 only) */
    return mf_fail(m, m->gap[k].off, "the initial state is outside gap '%s' (g = %.6g < 0; the admissible "
                                     "region is g >= 0)", m->gap[k].name, g);
  return NH_OK;
}

/* an almost-Poisson model at its initial state: H, grad H and Pi finite; its gaps */
static int check_poisson(mf *m) {
  const int n = m->nq;
  double x[2 * NH_MF_MAX_Q + 1] = {0};
  for (int i = 0; i < n; i++) x[i] = m->q0[i];
  double H = nh_expr_eval(m->pool, m->ham, x);
  if (!isfinite(H)) return mf_fail(m, m->ham_off, "the Hamiltonian is not finite at the initial state (H = %g)", H), m->status;
  for (int i = 0; i < n; i++)
    if (!isfinite(nh_expr_eval(m->pool, m->dH[i], x)))
      return mf_fail(m, m->ham_off, "the gradient of the Hamiltonian is not finite at the initial state "
                                    "(dH/d%s)", m->coord[i]), m->status;
  for (int k = 0; k < m->npi; k++)
    if (!isfinite(nh_expr_eval(m->pool, m->pi_node[k], x)))
      return mf_fail(m, m->pi_off[k], "Pi[%s,%s] is not finite at the initial state", m->coord[m->pi_a[k]],
                     m->coord[m->pi_b[k]]), m->status;
  for (int k = 0; k < m->ngap; k++) {
    if (check_ap_gap(m, k) || check_gap_start(m, k, x, nh_expr_eval(m->pool, m->g[k], x))) return m->status;
  }
  return NH_OK;
}

/* the names of the variables flagged in set (n of them) as "'a', 'b'" */
static void var_list(const mf *m, const char *set, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < m->nq && len < size; i++)
    if (set[i]) {
      int w = snprintf(buf + len, size - len, "%s'%s'", len ? ", " : "", m->coord[i]);
      if (w > 0) len += (size_t)w;
    }
}

/* A gap of an almost-Poisson model has an impact law (nholo/impact.h, nh_model_impact_ap) when
 * the variables S it depends on are configuration-like (Pi_SS = 0: the jump along d = Pi dg
 * leaves g unchanged), some variables F are coupled to S (d is not identically 0), Pi's
 * entries F x S do not depend on F (the jump does not move d) and H is quadratic in F (so
 * along d): checked symbolically, each refusal at the gap. */
static int check_ap_gap(mf *m, int k) {
  const int n = m->nq;
  const mf_item *it = &m->gap[k];
  char S[NH_MF_MAX_Q] = {0}, F[NH_MF_MAX_Q] = {0}, names[512];
  for (int i = 0; i < n; i++) S[i] = nh_expr_uses_vars(m->pool, it->node, i, i + 1) != 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (!S[j] || mf_is_zero(m, m->Pi[i * n + j])) continue;
      if (S[i])
        return mf_fail(m, it->off, "gap '%s' depends on '%s' and '%s', whose poisson entry is not zero: an impact "
                                   "would move the gap (a gap takes configuration-like variables, with zero "
                                   "poisson entries between them)", it->name, m->coord[i < j ? i : j], m->coord[i < j ? j : i]);
      F[i] = 1;
    }
  int nf = 0;
  for (int i = 0; i < n; i++) nf += F[i];
  if (!nf) {
    var_list(m, S, names, sizeof names);
    return mf_fail(m, it->off, "gap '%s': no poisson entry couples its variables (%s) to the others, so no "
                               "impact can change its rate (d = Pi grad g = 0)", it->name, names[0] ? names : "none");
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n && F[i]; j++)
      for (int l = 0; l < n && S[j]; l++)
        if (F[l] && nh_expr_uses_vars(m->pool, m->Pi[i * n + j], l, l + 1))
          return mf_fail(m, it->off, "gap '%s': Pi[%s,%s] depends on '%s', which its impact changes (the jump "
                                     "direction d = Pi grad g must not move with the jump)",
                         it->name, m->coord[i], m->coord[j], m->coord[l]);
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n && F[a]; b++)
      for (int l = 0; l < n && F[b]; l++)
        if (F[l] && nh_expr_uses_vars(m->pool, m->Hs[a * n + b], l, l + 1)) {
          var_list(m, F, names, sizeof names);
          return mf_fail(m, it->off, "gap '%s': the Hamiltonian is not quadratic in the variables its impact "
                                     "changes (%s): the impact law needs H quadratic along the jump",
                         it->name, names);
        }
  return NH_OK;
}

/* the tape of everything checked here, T, M, phi, A and g (in this order), and its buffers */
typedef struct check_tape {
  nh_tape *t;
  double *x, *slots, *out;
  double *L; /* nq x nq: the factor of M */
} check_tape;

/* T must be 1/2 v^T M v and phi_k must be A_k v at trial states around the initial one */
static int check_forms(mf *m, const check_tape *c) {
  const int nq = m->nq, nc = m->nc;
  double *x = c->x;
  const double *T = c->out, *M = T + 1, *phi = M + nq * nq, *A = phi + nc;
  unsigned long long seed = 0x9e3779b97f4a7c15ULL;
  for (int trial = 0; trial < MF_FORM_TRIALS && !m->status; trial++) {
    for (int i = 0; i < nq; i++) {
      x[i] = m->q0[i] + (trial ? 0.5 * rnd(&seed) : 0.0);
      x[nq + i] = 1.0 + rnd(&seed);
    }
    x[2 * nq] = 0.0;
    nh_tape_eval(c->t, x, c->slots, c->out);
    double quad = 0.0, scale = fabs(*T);
    for (int i = 0; i < nq; i++)
      for (int j = 0; j < nq; j++) {
        quad += 0.5 * x[nq + i] * M[i * nq + j] * x[nq + j];
        scale += 0.5 * fabs(x[nq + i] * M[i * nq + j] * x[nq + j]);
      }
    if (isfinite(*T) && isfinite(quad) && !(fabs(*T - quad) <= MF_FORM_TOL * (scale + 1e-300)))
      mf_fail(m, m->kinetic_off, "the kinetic energy is not a quadratic form in the velocities "
                                 "(T - 1/2 v^T M v = %.3g at a trial state): it has terms of degree "
                                 "0 or 1 in the velocities", *T - quad);
    for (int k = 0; k < nc && !m->status; k++) {
      double av = 0.0, sc = 0.0;
      for (int j = 0; j < nq; j++) av += A[k * nq + j] * x[nq + j], sc += fabs(A[k * nq + j] * x[nq + j]);
      if (isfinite(phi[k]) && !(fabs(phi[k] - av) <= MF_FORM_TOL * (sc + fabs(phi[k]) + 1e-300)))
        mf_fail(m, m->con[k].off, "constraint '%s' is not homogeneous in the velocities (it has a "
                                  "term without a velocity: %.3g at a trial state)",
                m->con[k].name, phi[k] - av);
    }
  }
  return m->status;
}

/* components of a velocity direction below this (relative to the largest) are not named */
#define MF_DIRECTION_TOL 1e-12

/* M (nq x nq) is not positive definite (L: its factor by nh_la_chol, a rejected pivot's column
 * zero): name the coordinates whose velocity is not in the kinetic energy; else the velocity
 * z along which v^T M v <= 0: z_j = 1 at the first rejected pivot j and z_0..j-1 solving
 * M[0:j,0:j] y = -M[0:j,j] (the accepted leading block) */
static void fail_mass(mf *m, const double *M, const double *L) {
  const int nq = m->nq;
  char vels[512], names[512];
  size_t len = 0, nlen = 0;
  int missing = 0;
  vels[0] = names[0] = '\0';
  for (int i = 0; i < nq; i++)
    if (!nh_expr_uses_vars(m->pool, m->kinetic, nq + i, nq + i + 1) && len < sizeof vels && nlen < sizeof names) {
      int w = snprintf(vels + len, sizeof vels - len, "%s%s'", missing ? ", " : "", m->coord[i]);
      int wn = snprintf(names + nlen, sizeof names - nlen, "%s'%s'", missing ? ", " : "", m->coord[i]);
      if (w > 0) len += (size_t)w;
      if (wn > 0) nlen += (size_t)wn;
      missing++;
    }
  if (missing) {
    const int many = missing > 1;
    mf_fail(m, m->kinetic_off, "the mass matrix is not positive definite at the initial state: the "
                               "velocit%s %s (coordinate%s %s) do%s not appear in the kinetic energy",
            many ? "ies" : "y", vels, many ? "s" : "", names, many ? "" : "es");
    return;
  }
  int j = 0;
  while (j < nq - 1 && L[j * nq + j] > 0.0) j++;
  double *Lj = malloc(sizeof(double) * ((size_t)j * (size_t)j + (size_t)nq + 1)), zmax = 1.0, q = 0.0;
  if (!Lj) {
    m->status = NH_ERR_NOMEM;
    return;
  }
  double *z = Lj + (size_t)j * (size_t)j;
  memset(z, 0, sizeof(double) * (size_t)(nq + 1));
  for (int a = 0; a < j; a++) {
    for (int b = 0; b < j; b++) Lj[a * j + b] = L[a * nq + b];
    z[a] = -M[a * nq + j];
  }
  if (j > 0) nh_la_chol_solve(j, Lj, z);
  z[j] = 1.0;
  for (int a = 0; a <= j; a++) zmax = fmax(zmax, fabs(z[a]));
  for (int a = 0; a <= j; a++) {
    z[a] /= zmax;
    for (int b = 0; b <= j; b++) q += z[a] * M[a * nq + b] * z[b];
  }
  len = 0, names[0] = '\0';
  for (int a = 0; a <= j && len < sizeof names; a++)
    if (fabs(z[a]) > MF_DIRECTION_TOL) {
      int w = snprintf(names + len, sizeof names - len, "%s%s' = %.3g", len ? ", " : "", m->coord[a], z[a]);
      if (w > 0) len += (size_t)w;
    }
  free(Lj);
  mf_fail(m, m->kinetic_off, "the mass matrix is not positive definite at the initial state: v^T M v = "
                             "%.3g along the velocity %s (is every velocity in the kinetic energy, with a "
                             "positive coefficient?)", q, names);
}

/* at the initial state: M finite and positive definite, the constraints independent and
 * satisfied (velocities unless projected, holonomic positions), the forces finite, the state
 * inside the gaps */
static int check_initial(mf *m, const check_tape *c) {
  const int nq = m->nq, nc = m->nc;
  double *x = c->x;
  const double *M = c->out + 1, *A = M + nq * nq + nc, *g = A + nc * nq;
  for (int i = 0; i < nq; i++) x[i] = m->q0[i], x[nq + i] = m->v0[i];
  x[2 * nq] = 0.0;
  nh_tape_eval(c->t, x, c->slots, c->out);
  double *L = c->L;
  for (int i = 0; i < nq * nq; i++) {
    if (!isfinite(M[i])) {
      mf_fail(m, m->kinetic_off, "the mass matrix is not finite at the initial state (entry %s, %s)",
              m->coord[i / nq], m->coord[i % nq]);
      return m->status;
    }
    L[i] = M[i];
  }
  if (nh_la_chol(nq, L, MF_RANK_TOL, NULL) != NH_OK) {
    fail_mass(m, M, L);
    return m->status;
  }
  /* constraints independent: the Gram matrix of rows 0..k stays of full rank */
  for (int k = 0; k < nc; k++) {
    double G[64 * 64];
    if (k >= 64) break; /* rank checks beyond 64 constraints are left to the simulation */
    for (int a = 0; a <= k; a++)
      for (int b = 0; b <= k; b++) G[a * (k + 1) + b] = nh_la_dot(nq, A + a * nq, A + b * nq);
    int r = 0;
    if (nh_la_norm_inf(nq, A + k * nq) == 0.0) {
      mf_fail(m, m->con[k].off, "constraint '%s' has no velocity terms at the initial state (all its "
                                "coefficients vanish)", m->con[k].name);
      return m->status;
    }
    if (!isfinite(G[k * (k + 1) + k]) || nh_la_chol(k + 1, G, MF_RANK_TOL, &r) != NH_OK) {
      mf_fail(m, m->con[k].off, "constraint '%s' is not independent of the constraints before it "
                                "at the initial state", m->con[k].name);
      return m->status;
    }
  }
  /* initial velocities admissible */
  for (int k = 0; k < nc && !m->opts->project_initial; k++) {
    double r = nh_la_dot(nq, A + k * nq, m->v0);
    if (!(fabs(r) <= MF_CONSTRAINT_TOL)) {
      mf_fail(m, m->initial_off, "the initial velocities violate constraint '%s' (|A v| = %.3g > "
                                 "%g); correct them, or project them with --project-initial",
              m->con[k].name, fabs(r), MF_CONSTRAINT_TOL);
      return m->status;
    }
  }
  /* holonomic constraints hold at the initial configuration */
  for (int k = 0; k < nc; k++) {
    if (!m->con[k].holonomic) continue;
    double phi = nh_expr_eval(m->pool, m->con[k].phi, x);
    if (!(fabs(phi) <= MF_CONSTRAINT_TOL)) {
      mf_fail(m, m->con[k].off, "the initial configuration violates holonomic constraint '%s' "
                                "(phi = %.3g, |phi| > %g)", m->con[k].name, phi, MF_CONSTRAINT_TOL);
      return m->status;
    }
  }
  /* the forces finite at the initial state (t = 0): a NaN or infinite force there (0/0, a
   * logarithm of 0, ...) leaves no step to take, which a run would report as an underflow */
  for (int i = 0; i < nq; i++) {
    const double f = m->force[i] >= 0 ? nh_expr_eval(m->pool, m->force[i], x) : 0.0;
    if (!isfinite(f)) {
      mf_fail(m, m->force_off[i], "the force on '%s' is %s at the initial state (t = 0)%s", m->coord[i],
              isnan(f) ? "NaN" : f > 0 ? "+infinite" : "-infinite",
              isnan(f) ? ": undefined there (0/0, a square root or logarithm of a negative number, ...)" : "");
      return m->status;
    }
  }
  /* initial state inside every gap, or on it to its rounding */
  for (int k = 0; k < m->ngap; k++)
    if (check_gap_start(m, k, x, g[k])) return m->status;
  return NH_OK;
}

int mf_check(mf *m) {
  if (mf_check_walls(m)) return m->status; /* walls.c */
  if (m->poisson) return check_poisson(m);
  const int nq = m->nq, nc = m->nc;
  int nout = 1 + nq * nq + nc + nc * nq + m->ngap;
  int *ids = malloc(sizeof(int) * (size_t)nout);
  check_tape c = {NULL, malloc(sizeof(double) * (size_t)(2 * nq + 1)), NULL,
                  malloc(sizeof(double) * (size_t)nout), malloc(sizeof(double) * (size_t)nq * (size_t)nq + 1)};
  if (!ids || !c.out || !c.x || !c.L) goto nomem;
  ids[0] = m->kinetic;
  memcpy(ids + 1, m->M, sizeof(int) * (size_t)(nq * nq));
  for (int k = 0; k < nc; k++) ids[1 + nq * nq + k] = m->con[k].node;
  memcpy(ids + 1 + nq * nq + nc, m->A, sizeof(int) * (size_t)(nc * nq));
  memcpy(ids + 1 + nq * nq + nc + nc * nq, m->g, sizeof(int) * (size_t)m->ngap);
  if (!(c.t = nh_tape_create(m->pool, nout, ids))) goto nomem;
  if (!(c.slots = malloc(sizeof(double) * (size_t)(nh_tape_nslots(c.t) + 1)))) goto nomem;
  if (!check_forms(m, &c)) check_initial(m, &c);
done:
  nh_tape_destroy(c.t);
  free(ids), free(c.out), free(c.x), free(c.slots), free(c.L);
  return m->status;
nomem:
  m->status = NH_ERR_NOMEM;
  goto done;
}
