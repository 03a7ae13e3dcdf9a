/* simultaneous.c - simultaneous impacts by the propagative model (spec 003 secs. 2.3-2.8).
 *
 * Velocities, not momenta: with u_i = Pi M^-1 dg_i^T (Pi the kinetic-metric projector onto
 * ker A, as in impact.c) the paper's reflection p Gamma(w) reads v <- v - 2 s_i / G_ii u_i,
 * s_i = dg_i v, G_ij = dg_i u_j. Its plastic projection is v + sum Lambda_i u_i with
 * G Lambda = -s. The constraint impulse of a change sum Lambda_i u_i is -sum Lambda_i y_i,
 * y_i = (A M^-1 A^T)^-1 A M^-1 dg_i^T, so M dv = sum Lambda_i dg_i^T + A^T mu. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/msg.h"
#include "la/la.h"
#include "model/metric.h"
#include "nholo/impact.h"
#include "simul_internal.h"

nh_simul_opts nh_simul_opts_default(void) {
  nh_simul_opts o;
  o.law = NH_SIMUL_ELASTIC;
  o.policy = NH_SIMUL_MOST_INFEASIBLE;
  o.restitution = 1.0;
  o.paper_alpha = 0;
  o.paper_plastic = 0;
  o.feas_tol = 1e-12;
  o.col_tol = 1e-9;
  o.dep_tol = 1e-10;
  o.degenerate_tol = 1e-12;
  o.constraint_tol = 1e-9;
  o.project = 1;
  o.outcome_tol = 1e-9;
  o.unique_tol = 1e-9;
  o.max_reflections = 10000;
  o.max_outcomes = 64;
  o.max_branches = 65536;
  o.truncate_outcomes = 0;
  o.opposing_plastic = 1;
  o.dense_reference = 0;
  o.names = NULL;
  return o;
}

const char *nh_simul_fallback_name(int fallback) {
  switch (fallback) {
  case NH_SIMUL_FALLBACK_NONE: return "none";
  case NH_SIMUL_FALLBACK_OPPOSING: return "opposing-contacts";
  case NH_SIMUL_FALLBACK_CONSTRAINED_PLASTIC: return "constrained-plastic-law";
  default: return "?";
  }
}

/* ints of the outcomes' sequences (SIMUL_SEQ_PER_OUTCOME) */
static size_t seq_room(size_t cap, size_t oc) {
  return oc * (cap < SIMUL_SEQ_PER_OUTCOME ? cap : SIMUL_SEQ_PER_OUTCOME) + cap;
}

/* counts of the workspace: doubles then ints */
static void work_counts(int nq, int nc, int k, const nh_simul_opts *o, size_t *nd, size_t *ni) {
  size_t n = (size_t)nq, m = (size_t)nc, K = (size_t)k;
  size_t cap = (size_t)o->max_reflections, oc = (size_t)o->max_outcomes;
  *nd = n * n + m * n + m * m + K * n + K * m + 3 * K * K + 4 * K + 4 * n + 2 * K + m +
        K * K + K + 2 * K + (cap + 1) * (n + K) + oc * (n + K);
  *ni = cap + (cap + 1) + seq_room(cap, oc) + 2 * oc + 3 * K;
  /* the structure: M's pattern, the gradients' by rows and by coordinates, the pairs, the
   * marks and the envelope */
  *ni += (n + 1) + n * n + (K + 1) + K * n + (n + 1) + K * n + (K + 1) + K * K + K + 4 * K;
}

static int opts_ok(const nh_simul_opts *o) {
  return o->max_reflections >= 1 && o->max_reflections <= 100000000 && o->max_outcomes >= 1 &&
         o->max_outcomes <= 1000000 && o->max_branches >= 1 && o->feas_tol >= 0.0 &&
         o->col_tol >= 0.0 && o->col_tol < 1.0 && o->dep_tol >= 0.0 &&
         o->degenerate_tol >= 0.0 && o->constraint_tol >= 0.0 && o->outcome_tol >= 0.0 &&
         o->unique_tol >= 0.0 && (o->truncate_outcomes == 0 || o->truncate_outcomes == 1) &&
         (o->opposing_plastic == 0 || o->opposing_plastic == 1) &&
         (o->dense_reference == 0 || o->dense_reference == 1) && isfinite(o->feas_tol + o->col_tol + o->dep_tol +
                                          o->degenerate_tol + o->constraint_tol +
                                          o->outcome_tol + o->unique_tol) &&
         (unsigned)o->law <= NH_SIMUL_INELASTIC && (unsigned)o->policy <= NH_SIMUL_ENUMERATE &&
         o->restitution >= 0.0 && o->restitution <= 1.0;
}

size_t nh_simul_work_size(int nq, int nc, int k, const nh_simul_opts *opts) {
  nh_simul_opts o = opts ? *opts : nh_simul_opts_default();
  if (nq < 1 || nc < 0 || nc > nq || k < 1 || !opts_ok(&o)) return 0;
  size_t nd, ni;
  work_counts(nq, nc, k, &o, &nd, &ni);
  return nd * sizeof(double) + ni * sizeof(int);
}

/* carve the workspace */
static void carve(int nq, int nc, int k, const nh_simul_opts *o, void *work, simul_ws *w) {
  size_t n = (size_t)nq, m = (size_t)nc, K = (size_t)k;
  size_t cap = (size_t)o->max_reflections, oc = (size_t)o->max_outcomes;
  double *d = (double *)work;
  w->nq = nq, w->nc = nc, w->k = k, w->cap = o->max_reflections, w->ocap = o->max_outcomes;
  w->L = d, d += n * n;
  w->W = d, d += m * n;
  w->GA = d, d += m * m;
  w->U = d, d += K * n;
  w->Y = d, d += K * m;
  w->G = d, d += K * K;
  w->Gf = d, d += K * K;
  w->C = d, d += K * K;
  w->gn = d, d += K;
  w->s = d, d += K;
  w->rn = d, d += K;
  w->dgn = d, d += K;
  w->v = d, d += n;
  w->vp = d, d += n;
  w->tmp = d, d += n;
  w->x = d, d += n;
  w->lam = d, d += K;
  w->lamp = d, d += K;
  w->mu = d, d += m;
  w->Gs = d, d += K * K;
  w->lr = d, d += K;
  w->nx = d, d += K;
  w->nz = d, d += K;
  w->stack_v = d, d += (cap + 1) * n;
  w->stack_l = d, d += (cap + 1) * K;
  w->out_v = d, d += oc * n;
  w->out_l = d, d += oc * K;
  int *p = (int *)d;
  w->seq = p, p += cap;
  w->next = p, p += cap + 1;
  w->seq_room = (long)seq_room(cap, oc);
  w->out_seq = p, p += w->seq_room;
  w->out_start = p, p += oc;
  w->out_len = p, p += oc;
  w->in = p, p += K;
  w->lidx = p, p += K;
  w->opp = p, p += K;
  w->mrow = p, p += n + 1;
  w->mcol = p, p += n * n;
  w->grow = p, p += K + 1;
  w->gcol = p, p += K * n;
  w->crow = p, p += n + 1;
  w->ccon = p, p += K * n;
  w->arow = p, p += K + 1;
  w->acon = p, p += K * K;
  w->mark = p, p += K;
  w->efirst = p, p += K;
  w->elast = p, p += K;
  w->sfirst = p, p += K;
  w->slast = p;
  w->diag = 0;
  w->nopp = 0;
  w->structured = w->mlower = w->sparse_gram = w->env = 0;
}

/* b <- M^-1 b (the metric's solve) */
static void solve_M(const simul_ws *w, double *b) { nh_metric_solve(&w->mt, b); }

/* x <- Pi x; coef (nc) = (A M^-1 A^T)^-1 A x */
static void project(const simul_ws *w, const double *A, double *x, double *coef) {
  nh_metric_project(w->nq, w->nc, A, w->W, w->GA, x, coef);
}

/* factor M (the metric's, or on M's pattern for a structured problem: nh_la_chol's diagonal
 * path) and A M^-1 A^T with W = M^-1 A^T (rows; nh_metric_rows) */
static int factor_metric(const nh_simul_problem *pb, simul_ws *w) {
  nh_metric_init(&w->mt, pb->nq, 0, w->L, NULL);
  if (w->structured && !w->mlower) {
    if (nh_simul_factor_diag(pb, w) != NH_OK) return NH_ERR_NOT_SPD;
    w->mt.diag = 1;
  } else if (nh_metric_factor(&w->mt, pb->M) != NH_OK) {
    return NH_ERR_NOT_SPD;
  }
  w->diag = w->mt.diag;
  return nh_metric_rows(&w->mt, pb->nc, pb->A, w->W, w->GA);
}

static int finite_all(size_t n, const double *x) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* a failure: detail status, the contacts it names, the message; returns the library status */
int nh_simul_fail(nh_simul_result *res, int detail, int contact, int other, int status,
                  char *msg, size_t msg_size, const char *text) {
  if (res) {
    res->status = detail;
    res->contact = contact;
    res->other = other;
  }
  nh_set_msg(msg, msg_size, "%s", text);
  return status;
}

/* contact i as a message names it: 'name' when the problem has names, else its index */
void nh_simul_label(const nh_simul_opts *o, int i, char *buf, size_t size) {
  if (o->names && o->names[i])
    snprintf(buf, size, "'%s'", o->names[i]);
  else
    snprintf(buf, size, "%d", i);
}

/* the normals: u_i, y_i, G, its factor, the cosines; the checks in the documented order */
static int setup_normals(const nh_simul_problem *pb, const nh_simul_opts *o, simul_ws *w,
                         nh_simul_result *res, char *msg, size_t ms) {
  int nq = pb->nq, nc = pb->nc, k = pb->k;
  char text[SIMUL_MSG_MAX], a[SIMUL_LABEL_MAX], b[SIMUL_LABEL_MAX];
  for (int i = 0; i < k; i++) {
    double *u = w->U + (size_t)i * nq;
    nh_la_copy(nq, pb->dg + (size_t)i * nq, u);
    if (w->structured && w->diag)
      nh_simul_solve_row(pb, w, i, u);
    else
      solve_M(w, u);
    /* |dg_i|^2_{M^-1} */
    w->dgn[i] = w->structured ? nh_simul_row_dot(pb, w, i, u) : nh_la_dot(nq, pb->dg + (size_t)i * nq, u);
    if (nc > 0) project(w, pb->A, u, w->Y + (size_t)i * nc);
  }
  /* G: over the pairs of contacts sharing a coordinate (simul_struct.c), or dense */
  w->sparse_gram = w->structured && w->diag && nc == 0 && nh_simul_gram_sparse(pb, w);
  if (!w->sparse_gram) {
    for (int i = 0; i < k; i++)
      for (int j = 0; j <= i; j++) {
        double g = nh_la_dot(nq, pb->dg + (size_t)i * nq, w->U + (size_t)j * nq);
        w->G[(size_t)i * k + j] = g;
        w->G[(size_t)j * k + i] = g;
      }
  }
  /* a gradient in the span of the one-forms: no normal direction is left */
  for (int i = 0; i < k; i++) {
    double gii = w->G[(size_t)i * k + i];
    if (!(w->dgn[i] > 0.0) || !(gii > o->degenerate_tol * w->dgn[i])) {
      nh_simul_label(o, i, a, sizeof a);
      snprintf(text, sizeof text,
               "contact %s: its gap gradient lies in the span of the constraint one-forms "
               "(no normal direction left)", a);
      return nh_simul_fail(res, NH_SIMUL_DEGENERATE, i, -1, NH_DEGENERATE_IMPACT, msg, ms, text);
    }
    w->gn[i] = sqrt(gii);
  }
  /* the cosines over the pairs too (elsewhere 0 / (gn_i gn_j) = +0: G_ii > 0 is at least the
   * smallest subnormal, so gn_i gn_j does not underflow to 0); their factor on its envelope
   * when they are finite */
  const int sparse = w->sparse_gram;
  int env = 0;
  if (sparse) {
    env = nh_simul_cosines_sparse(w);
  } else {
    for (int i = 0; i < k; i++)
      for (int j = 0; j < k; j++)
        w->C[(size_t)i * k + j] =
            i == j ? 1.0 : w->G[(size_t)i * k + j] / (w->gn[i] * w->gn[j]);
  }
  /* opposing and duplicate pairs; with opposing_plastic an opposing pair is kept (w->opp) */
  const int keep_opposing = o->opposing_plastic && !o->paper_plastic;
  for (int i = 0; i < k; i++) w->opp[i] = 0;
  w->nopp = 0;
  for (int i = 0; i < k; i++)
    for (int q = sparse ? w->arow[i] : i + 1; q < (sparse ? w->arow[i + 1] : k); q++) {
      const int j = sparse ? w->acon[q] : q; /* (sparse: the other cosines are 0) */
      if (j <= i) continue;
      double c = w->C[(size_t)i * k + j];
      if (!(c <= -1.0 + o->col_tol) && !(c >= 1.0 - o->col_tol)) continue;
      if (c < 0.0 && keep_opposing) {
        if (!w->opp[i] && !w->opp[j]) {
          w->opp[i] = j + 1, w->opp[j] = i + 1, w->nopp += 2;
          continue;
        }
        /* a contact (mid) opposing two others (p, its pair, and q): those two duplicate each
         * other, refused when their own pair comes; but within col_tol each is only within
         * sqrt(2 col_tol) of mid's antipode, so they may be up to 2 sqrt(2 col_tol) apart and
         * not duplicates, nor dependent by dep_tol once the pair counts as one, while q opposes
         * mid unpaired: a block {mid, p, q} of the plastic map's cosines is then (nearly)
         * singular. Refused: q is in the span of mid and p. */
        const int mid = w->opp[i] ? i : j, p = w->opp[mid] - 1, q = mid == i ? j : i;
        const double cpq = w->C[(size_t)p * k + q];
        if (cpq >= 1.0 - o->col_tol) continue;
        char pl[SIMUL_LABEL_MAX];
        nh_simul_label(o, q, a, sizeof a);
        nh_simul_label(o, p, pl, sizeof pl);
        nh_simul_label(o, mid, b, sizeof b);
        snprintf(text, sizeof text,
                 "contacts %s and %s both oppose contact %s (cosines %.12g, %.12g; %.12g to each "
                 "other): dependent normals", a, pl, b, c, w->C[(size_t)p * k + mid], cpq);
        return nh_simul_fail(res, NH_SIMUL_DEPENDENT, q, mid, NH_ERR_DEPENDENT_CONTACTS, msg, ms,
                             text);
      }
      nh_simul_label(o, i, a, sizeof a);
      nh_simul_label(o, j, b, sizeof b);
      if (c < 0.0) {
        snprintf(text, sizeof text,
                 "contacts %s and %s oppose (cosine %.17g): their feasible set is the common "
                 "tangent, elastic reflections cycle for ever and no law determines the "
                 "impulses", a, b, c);
        return nh_simul_fail(res, NH_SIMUL_OPPOSING, i, j, NH_ERR_OPPOSING_CONTACTS, msg, ms,
                             text);
      }
      snprintf(text, sizeof text, "contacts %s and %s are duplicates (cosine %.17g): merge them",
               a, b, c);
      return nh_simul_fail(res, NH_SIMUL_DEPENDENT, i, j, NH_ERR_DEPENDENT_CONTACTS, msg, ms,
                           text);
    }
  /* general dependence: a Cholesky pivot of the Gram matrix of the unit normals, each
   * opposing pair counted once (its second contact left out: w->lidx lists the others) */
  int r = 0;
  for (int i = 0; i < k; i++)
    if (!(w->opp[i] && w->opp[i] - 1 < i)) w->lidx[r++] = i;
  int rank = 0, fst;
  w->env = env;
  if (env) {
    fst = nh_simul_cosines_factor_env(w, w->lidx, r, w->Gf, w->efirst, w->elast, o->dep_tol, &rank);
  } else {
    for (int a2 = 0; a2 < r; a2++)
      for (int b2 = 0; b2 < r; b2++)
        w->Gf[(size_t)a2 * r + b2] = w->C[(size_t)w->lidx[a2] * k + w->lidx[b2]];
    fst = nh_la_chol(r, w->Gf, o->dep_tol, &rank);
  }
  if (fst != NH_OK) {
    /* the first rejected pivot (its column zeroed): a normal in the span of those before */
    int first = 0;
    while (first < r - 1 && w->Gf[(size_t)first * r + first] != 0.0) first++;
    first = w->lidx[first];
    nh_simul_label(o, first, a, sizeof a);
    if (r == k)
      snprintf(text, sizeof text,
               "the %d contact normals are linearly dependent (rank %d in the kinetic metric): "
               "contact %s is in the span of the contacts before it; the impact is not "
               "determined", k, rank, a);
    else
      snprintf(text, sizeof text,
               "the %d contact normals are linearly dependent (rank %d of %d in the kinetic "
               "metric, each opposing pair counted once): contact %s is in the span of the "
               "contacts before it; the impact is not determined", k, rank, r, a);
    return nh_simul_fail(res, NH_SIMUL_DEPENDENT, first, -1, NH_ERR_DEPENDENT_CONTACTS, msg, ms,
                         text);
  }
  return NH_OK;
}

/* validate, factor, project v- (into w->v) and set up the normals */
int nh_simul_prepare(const nh_simul_problem *pb, const double *v, const nh_simul_opts *o,
                     simul_ws *w, void *work, nh_simul_result *res, char *msg, size_t ms) {
  char text[SIMUL_MSG_MAX];
  if (!pb || !work || pb->nq < 1 || pb->nc < 0 || pb->nc > pb->nq || pb->k < 1 || !pb->M ||
      (pb->nc > 0 && !pb->A) || !pb->dg || !opts_ok(o))
    return nh_simul_fail(res, NH_SIMUL_BAD_INPUT, -1, -1, NH_ERR_ARG, msg, ms,
                         "simultaneous impact: invalid sizes, NULL matrices or options");
  int nq = pb->nq, nc = pb->nc;
  carve(nq, nc, pb->k, o, work, w);
  const int fin = nh_simul_structure_scan(pb, o, w); /* (the scan checks M and the gradients) */
  if (fin == 0 ||
      (fin < 0 && (!finite_all((size_t)nq * nq, pb->M) || !finite_all((size_t)pb->k * nq, pb->dg))) ||
      (nc > 0 && !finite_all((size_t)nc * nq, pb->A)) || (v && !finite_all((size_t)nq, v)))
    return nh_simul_fail(res, NH_SIMUL_BAD_INPUT, -1, -1, NH_ERR_ARG, msg, ms,
                         "simultaneous impact: non-finite value in M, A, the gradients or v");
  int st = factor_metric(pb, w);
  if (st == NH_ERR_NOT_SPD)
    return nh_simul_fail(res, NH_SIMUL_BAD_INPUT, -1, -1, st, msg, ms,
                         "simultaneous impact: the mass matrix is not positive definite");
  if (st != NH_OK)
    return nh_simul_fail(res, NH_SIMUL_BAD_INPUT, -1, -1, st, msg, ms,
                         "simultaneous impact: the constraint one-forms are not independent");
  for (int j = 0; j < nc; j++) w->mu[j] = 0.0;
  if (v) {
    /* a drifted v-: project onto ker A (the projection impulse joins mu) or reject */
    nh_la_copy(nq, v, w->v);
    double res_max = 0.0, na = 0.0;
    for (int j = 0; j < nc; j++) {
      const double *Aj = pb->A + (size_t)j * nq;
      double r = fabs(nh_la_dot(nq, Aj, v)), sa = 0.0;
      for (int i = 0; i < nq; i++) sa += fabs(Aj[i]);
      if (r > res_max) res_max = r;
      if (sa > na) na = sa;
    }
    if (res_max > o->constraint_tol * na * nh_la_norm_inf(nq, v)) {
      if (!o->project) {
        snprintf(text, sizeof text,
                 "simultaneous impact: v- violates the velocity constraints (|A v| = %.3g)",
                 res_max);
        return nh_simul_fail(res, NH_SIMUL_BAD_INPUT, -1, -1, NH_ERR_CONSTRAINT, msg, ms, text);
      }
      project(w, pb->A, w->v, w->mu);
      nh_la_scale(nc, -1.0, w->mu);
      if (res) res->projected = 1;
    }
  }
  return setup_normals(pb, o, w, res, msg, ms);
}

/* the next contact by policy (after nh_simul_rates), -1 when feasible */
int nh_simul_pick(const simul_ws *w, nh_simul_policy policy, double vnorm, double feas_tol) {
  int best = -1;
  double bs = 0.0, thr = -feas_tol * vnorm;
  for (int i = 0; i < w->k; i++) {
    double r = w->rn[i];
    if (!(r < thr)) continue;
    if (best < 0 || (policy == NH_SIMUL_MOST_INFEASIBLE && r < bs) ||
        (policy == NH_SIMUL_LEAST_INFEASIBLE && r >= bs)) {
      best = i;
      bs = r;
    }
    if (policy == NH_SIMUL_INDEX || policy == NH_SIMUL_ENUMERATE) break;
  }
  return best;
}

/* one reflection across i (rates current): v -= 2 s_i / G_ii u_i, lam_i += -2 s_i / G_ii */
void nh_simul_reflect_ws(const simul_ws *w, int i, double *v, double *lam) {
  double f = -2.0 * w->s[i] / w->G[(size_t)i * w->k + i];
  nh_la_axpy(w->nq, f, w->U + (size_t)i * w->nq, v);
  if (lam) lam[i] += f;
}
