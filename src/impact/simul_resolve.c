/* simul_resolve.c - the laws of a simultaneous impact (elastic propagation by a policy or by
 * enumeration, plastic projection, inelastic combination), the reflection bound and the
 * uniqueness verdict (spec 003 secs. 2.4-2.8, 7.1). The set-up is in simultaneous.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/msg.h"
#include "la/la.h"
#include "nholo/impact.h"
#include "simul_internal.h"

/* ceil(x - SIMUL_CEIL_TOL): exact Coxeter angles (pi / gamma an integer) are not pushed up by
 * round-off */
#define SIMUL_CEIL_TOL 1e-9
#define SIMUL_PI 3.14159265358979323846

int nh_simul_reflection_bound(int k, const double *C, double tol, int *observed) {
  int b = 0, orth = 1;
  if (observed) *observed = 0;
  if (k < 1 || !C || !(tol >= 0.0)) return 0;
  for (int i = 0; i < k && orth; i++) /* (to the first pair that is not orthogonal) */
    for (int j = i + 1; j < k; j++)
      if (!(fabs(C[(size_t)i * k + j]) <= tol)) {
        orth = 0;
        break;
      }
  if (k == 1 || orth) {
    b = k;
    if (observed) *observed = b;
    return b;
  }
  if (k != 2) return 0; /* no theorem for three contacts or more */
  double c = C[1];
  if (!(fabs(c) < 1.0)) return 0;
  double gamma = 0.5 * (SIMUL_PI - acos(c));
  b = (int)ceil(SIMUL_PI / gamma - SIMUL_CEIL_TOL);
  if (observed) *observed = (int)ceil(SIMUL_PI / (2.0 * gamma) - SIMUL_CEIL_TOL);
  return b;
}

/* |a - b|_M, with w->x and w->tmp as scratch */
static double dist_M(const nh_simul_problem *pb, const simul_ws *w, const double *a,
                     const double *b) {
  for (int i = 0; i < pb->nq; i++) w->x[i] = a[i] - b[i];
  double e = nh_simul_dist2_M(pb, w, w->x, w->tmp);
  return e > 0.0 ? sqrt(e) : 0.0;
}

/* What a propagation or an enumeration ended with (besides 0, done). */
enum {
  SIMUL_PAST_BOUND = 1,    /* a path passed the reflection bound */
  SIMUL_FULL_OUTCOMES = 2, /* enumerate: more distinct outcomes than max_outcomes */
  SIMUL_FULL_BRANCHES = 3, /* enumerate: more complete sequences than max_branches */
  SIMUL_FULL_SEQ = 4,      /* enumerate: the outcomes' sequences fill their room */
  SIMUL_CYCLE = 5          /* a reflection across an opposing contact: it would cycle for ever */
};

/* the greedy propagation from v (in place); 0, SIMUL_PAST_BOUND, or SIMUL_CYCLE with the
 * opposing contact in *cyc */
static int propagate(const nh_simul_problem *pb, const simul_ws *w, const nh_simul_opts *o,
                     double *v, double *lam, int bound, int *n, int *cyc) {
  *n = 0;
  double vn = nh_simul_rates(pb, w, v);
  for (;;) {
    int i = nh_simul_pick(w, o->policy, vn, o->feas_tol);
    if (i < 0) return 0;
    if (w->opp[i]) return *cyc = i, SIMUL_CYCLE;
    if (*n >= bound) return SIMUL_PAST_BOUND;
    nh_simul_reflect_ws(w, i, v, lam);
    w->seq[(*n)++] = i;
    vn = nh_simul_rates_after(pb, w, v, i); /* (the rates the reflection changed) */
  }
}

/* keep a leaf (depth d) unless an outcome within outcome_tol |v-|_M is kept; its sequence
 * after the others' in out_seq. 0, SIMUL_FULL_OUTCOMES or SIMUL_FULL_SEQ. */
static int record(const nh_simul_problem *pb, simul_ws *w, const nh_simul_opts *o, int d,
                  double vn0, int *nout) {
  int nq = pb->nq, k = pb->k, n = *nout;
  const double *vd = w->stack_v + (size_t)d * nq;
  for (int j = 0; j < n; j++)
    if (dist_M(pb, w, vd, w->out_v + (size_t)j * nq) <= o->outcome_tol * vn0) return 0;
  if (n >= w->ocap) return SIMUL_FULL_OUTCOMES;
  const long start = n > 0 ? (long)w->out_start[n - 1] + w->out_len[n - 1] : 0;
  if (start + d > w->seq_room) return SIMUL_FULL_SEQ;
  nh_la_copy(nq, vd, w->out_v + (size_t)n * nq);
  nh_la_copy(k, w->stack_l + (size_t)d * k, w->out_l + (size_t)n * k);
  memcpy(w->out_seq + start, w->seq, sizeof(int) * (size_t)d);
  w->out_start[n] = (int)start;
  w->out_len[n] = d;
  *nout = n + 1;
  return 0;
}

/* the infeasible contact of rank `rank` in the most-infeasible order (normalised rate
 * ascending, ties to the lower index; rates current), -1 when there are fewer; *nin the
 * number of infeasible contacts */
static int ranked(const simul_ws *w, double thr, int rank, int *nin) {
  int pick = -1;
  *nin = 0;
  for (int i = 0; i < w->k; i++) {
    const double ri = w->rn[i];
    if (!(ri < thr)) continue;
    ++*nin;
    int before = 0;
    for (int j = 0; j < w->k; j++) {
      const double rj = w->rn[j];
      if (j != i && rj < thr && (rj < ri || (rj == ri && j < i))) before++;
    }
    if (before == rank) pick = i;
  }
  return pick;
}

/* Depth-first search over every infeasible choice at every step, from w->v, the choices of a
 * step taken in the most-infeasible order: the first leaf is the most-infeasible policy's
 * outcome, with the same arithmetic. Returns 0, SIMUL_PAST_BOUND (*vfail the velocity of the
 * path), SIMUL_CYCLE (*cyc the opposing contact), or when full SIMUL_FULL_OUTCOMES,
 * SIMUL_FULL_BRANCHES or SIMUL_FULL_SEQ (the outcomes so far kept). */
static int enumerate(const nh_simul_problem *pb, simul_ws *w, const nh_simul_opts *o, int bound,
                     int *nout, long *branches, const double **vfail, int *cyc) {
  int nq = pb->nq, k = pb->k, d = 0, st;
  double vn0 = nh_simul_rates(pb, w, w->v);
  nh_la_copy(nq, w->v, w->stack_v);
  for (int i = 0; i < k; i++) w->stack_l[i] = 0.0;
  w->next[0] = 0;
  *nout = 0;
  *branches = 0;
  while (d >= 0) {
    double *vd = w->stack_v + (size_t)d * nq, *ld = w->stack_l + (size_t)d * k;
    double thr = -o->feas_tol * nh_simul_rates(pb, w, vd);
    int nin, pick = ranked(w, thr, w->next[d], &nin);
    if (nin == 0) { /* a leaf: a complete sequence */
      if (*branches >= o->max_branches) return SIMUL_FULL_BRANCHES;
      ++*branches;
      if ((st = record(pb, w, o, d, vn0, nout))) return st;
      d--;
      continue;
    }
    if (pick < 0) { /* every choice at this depth explored */
      d--;
      continue;
    }
    w->next[d]++;
    if (w->opp[pick]) return *cyc = pick, SIMUL_CYCLE;
    if (d >= bound) {
      *vfail = vd;
      return SIMUL_PAST_BOUND;
    }
    w->seq[d] = pick;
    nh_la_copy(nq, vd, vd + nq);
    nh_la_copy(k, ld, ld + k);
    nh_simul_reflect_ws(w, pick, vd + nq, ld + k);
    w->next[++d] = 0;
  }
  return 0;
}

/* The plastic map (10a, 10b): impulses Lambda_i >= 0 with the contact rates after the impact
 * w_i = dg_i v+ >= 0 and Lambda_i w_i = 0 (a contact that pushes ends at rest on its surface,
 * one that ends separating takes no impulse), v+ = v- + sum Lambda_i u_i. In the normalised
 * impulses x_i = Lambda_i sqrt(G_ii) and rates r_i = s_i / sqrt(G_ii) this is the linear
 * complementarity problem  w = r + C x >= 0, x >= 0, x^T w = 0  with C the cosine matrix (SPD:
 * dependent normals are refused before), whose solution is unique and is the kinetic-metric
 * projection of v- onto the cone {dg_i v >= 0}. The paper's eq. (11) is the case where every
 * contact ends at rest, x = -C^-1 r; when that needs a pulling impulse (spec 003 7.1 item 21:
 * three balls (1, 0, 5) give (2, 2, 2)) eq. (11) has no solution of (10).
 *
 * Solved by Murty's least-index principal pivoting (a Bard-type scheme, finite for P-matrices
 * from any start): the set S of contacts at rest starts as the approaching ones; each pivot
 * solves C_SS x_S = -r_S, x = 0 off S, and moves the lowest-indexed contact that violates
 * (x_i < 0 on S: it separates; w_i < 0 off S: it approaches) across. The outcome depends on
 * the final S alone: when that is every contact it is eq. (11), bit for bit. A violation is
 * judged against -feas_tol |v-|_M, as the rates everywhere here. */

/* the exact bound of pivots for k contacts (2^k - 1 complementary sets beside the first) and
 * its cap past 16 contacts (round-off could otherwise cycle without end) */
#define SIMUL_LCP_MAX_PIVOTS 65536

/* x (w->lamp) on the set w->in: C_SS x_S = -r_S, x = 0 off S; 0, or NH_ERR_NOT_SPD when a
 * principal block lost definiteness to round-off */
static int plastic_solve(simul_ws *w) {
  const int k = w->k;
  int ns = 0;
  for (int i = 0; i < k; i++) {
    w->lamp[i] = 0.0;
    if (w->in[i]) w->lidx[ns++] = i;
  }
  if (ns == k) { /* eq. (11) with the cosine factor */
    for (int i = 0; i < k; i++) w->lamp[i] = -w->s[i] / w->gn[i];
    nh_simul_cos_solve(w, w->lamp);
    return NH_OK;
  }
  if (ns == 0) return NH_OK;
  for (int a = 0; a < ns; a++) w->lr[a] = -w->s[w->lidx[a]] / w->gn[w->lidx[a]];
  if (w->env) { /* the block on its envelope (simul_struct.c) */
    if (nh_simul_cosines_factor_env(w, w->lidx, ns, w->Gs, w->sfirst, w->slast, 0.0, NULL) != NH_OK)
      return NH_ERR_NOT_SPD;
    nh_la_chol_env_solve(ns, w->Gs, w->sfirst, w->slast, w->lr);
  } else {
    for (int a = 0; a < ns; a++)
      for (int b = 0; b < ns; b++) w->Gs[(size_t)a * ns + b] = w->C[(size_t)w->lidx[a] * k + w->lidx[b]];
    if (nh_la_chol(ns, w->Gs, 0.0, NULL) != NH_OK) return NH_ERR_NOT_SPD;
    nh_la_chol_solve(ns, w->Gs, w->lr);
  }
  for (int a = 0; a < ns; a++) w->lamp[w->lidx[a]] = w->lr[a];
  return NH_OK;
}

/* x (w->nz) on the set w->in: C_SS z_S = -r_S, z = 0 off S; 0, or NH_ERR_NOT_SPD (as
 * plastic_solve, for any set: w->Gf is not a factor of C when contacts oppose) */
static int nnls_solve(simul_ws *w) {
  const int k = w->k;
  int ns = 0;
  for (int i = 0; i < k; i++) {
    w->nz[i] = 0.0;
    if (w->in[i]) w->lidx[ns++] = i;
  }
  for (int a = 0; a < ns; a++) {
    for (int b = 0; b < ns; b++) w->Gs[(size_t)a * ns + b] = w->C[(size_t)w->lidx[a] * k + w->lidx[b]];
    w->lr[a] = -w->s[w->lidx[a]] / w->gn[w->lidx[a]];
  }
  if (ns > 0 && nh_la_chol(ns, w->Gs, 0.0, NULL) != NH_OK) return NH_ERR_NOT_SPD;
  if (ns > 0) nh_la_chol_solve(ns, w->Gs, w->lr);
  for (int a = 0; a < ns; a++) w->nz[w->lidx[a]] = w->lr[a];
  return NH_OK;
}

/* The plastic map when contacts oppose: C is only positive semi-definite (C_ij = -1 for a
 * pair), Murty's pivoting may meet a singular block, and the impulses of a pair are not
 * unique (their difference is); v+ is. The same complementarity problem is the optimality
 * condition of the non-negative least squares min_{x >= 0} 1/2 x^T C x + r^T x (that is,
 * |v- + sum x_i u_i / sqrt(G_ii)|_M^2 / 2 up to a constant), solved by Lawson and Hanson's
 * active set: the contact whose rate after the impact is the most negative (below
 * -feas_tol |v-|_M) enters the set S of contacts at rest; C_SS z_S = -r_S; if some z_i <= 0
 * the iterate moves towards z until the first of them reaches 0 and leaves S. A contact
 * enters only with a negative rate, so never one in the span of S (its opposing partner at
 * rest has rate 0): every C_SS met is definite. Among the solutions it gives the one with no
 * impulse on a contact whose partner carries it. Returns -1, -2 past the pivot cap, -3 when a
 * block lost definiteness or an entering contact took no impulse (round-off). */
static int plastic_nnls(const nh_simul_problem *pb, simul_ws *w, const nh_simul_opts *o,
                        long cap, int *pivots) {
  const int k = pb->k;
  const double vn = nh_simul_rates(pb, w, w->v), low0 = -o->feas_tol * vn;
  for (int i = 0; i < k; i++) w->nx[i] = 0.0, w->in[i] = 0;
  for (;;) {
    int enter = -1;
    double low = low0;
    for (int i = 0; i < k; i++) {
      if (w->in[i]) continue;
      double wi = w->s[i] / w->gn[i];
      for (int j = 0; j < k; j++) wi += w->C[(size_t)i * k + j] * w->nx[j];
      if (wi < low) low = wi, enter = i;
    }
    if (enter < 0) break;
    if (*pivots >= cap) return -2;
    w->in[enter] = 1;
    ++*pivots;
    for (int first = 1;; first = 0) {
      if (nnls_solve(w)) return -3;
      if (first && !(w->nz[enter] > 0.0)) return -3;
      int drop = -1;
      double step = 1.0;
      for (int i = 0; i < k; i++)
        if (w->in[i] && !(w->nz[i] > 0.0)) {
          double a = w->nx[i] / (w->nx[i] - w->nz[i]);
          if (drop < 0 || a < step) step = a, drop = i;
        }
      if (drop < 0) { /* every contact of S pushes */
        nh_la_copy(k, w->nz, w->nx);
        break;
      }
      for (int i = 0; i < k; i++)
        if (w->in[i]) w->nx[i] += step * (w->nz[i] - w->nx[i]);
      for (int i = 0; i < k; i++)
        if (w->in[i] && (i == drop || !(w->nx[i] > 0.0))) {
          w->nx[i] = 0.0, w->in[i] = 0;
          if (*pivots >= cap) return -2;
          ++*pivots;
        }
    }
  }
  for (int i = 0; i < k; i++) w->lamp[i] = w->nx[i] / w->gn[i];
  nh_la_copy(pb->nq, w->v, w->vp);
  for (int i = 0; i < k; i++) nh_la_axpy(pb->nq, w->lamp[i], w->U + (size_t)i * pb->nq, w->vp);
  return -1;
}

/* the plastic outcome of w->v into w->vp, impulses w->lamp, *pivots the active-set changes.
 * Returns -1; with paper_plastic (eq. (11) alone) the contact of the most negative impulse
 * (normalised) beyond tolerance when there is one; -2 past the pivot cap; -3 when a block
 * lost definiteness. Opposing contacts: plastic_nnls. */
static int plastic(const nh_simul_problem *pb, simul_ws *w, const nh_simul_opts *o, int *pivots) {
  const int k = pb->k;
  const double vn = nh_simul_rates(pb, w, w->v), low0 = -o->feas_tol * vn;
  const long cap = k < 16 ? (1L << k) - 1 : SIMUL_LCP_MAX_PIVOTS;
  int worst = -1;
  *pivots = 0;
  /* (Lawson-Hanson: a distinct set after each entry, at most k + 1 changes for each) */
  if (w->nopp > 0) return plastic_nnls(pb, w, o, cap * (k + 1), pivots);
  for (int i = 0; i < k; i++) w->in[i] = o->paper_plastic || w->s[i] / w->gn[i] < low0;
  for (;;) {
    if (plastic_solve(w)) return -3;
    int flip = -1, pairs = w->env;
    double low = low0;
    for (int i = 0; i < k && pairs; i++) pairs = isfinite(w->lamp[i]) != 0;
    for (int i = 0; i < k; i++) {
      double viol;
      if (w->in[i]) {
        viol = w->lamp[i];
      } else { /* the rate after: r_i + sum_j C_ij x_j (over i's pairs when structured) */
        viol = nh_simul_cos_row(w, i, w->lamp, w->s[i] / w->gn[i], pairs);
      }
      if (!(viol < low0)) continue;
      if (flip < 0) flip = i;
      if (o->paper_plastic && w->in[i] && viol < low) low = viol, worst = i;
      if (!o->paper_plastic) break; /* (the lowest-indexed violation is the pivot) */
    }
    if (o->paper_plastic) break;
    if (flip < 0) break;
    if (*pivots >= cap) return -2;
    w->in[flip] = !w->in[flip];
    ++*pivots;
  }
  for (int i = 0; i < k; i++) w->lamp[i] /= w->gn[i];
  nh_la_copy(pb->nq, w->v, w->vp);
  for (int i = 0; i < k; i++) nh_la_axpy(pb->nq, w->lamp[i], w->U + (size_t)i * pb->nq, w->vp);
  return worst;
}

/* the contacts still approaching at velocity v, as "contacts 0, 2" (labels), into buf */
static void approaching(const nh_simul_problem *pb, const simul_ws *w, const nh_simul_opts *o,
                        const double *v, char *buf, size_t size) {
  double thr = -o->feas_tol * nh_simul_rates(pb, w, v);
  char a[SIMUL_LABEL_MAX];
  size_t n = 0;
  int cnt = 0;
  buf[0] = '\0';
  for (int i = 0; i < pb->k && n + 8 < size; i++) {
    if (!(w->s[i] / w->gn[i] < thr)) continue;
    nh_simul_label(o, i, a, sizeof a);
    int r = snprintf(buf + n, size - n, "%s%s", cnt++ ? ", " : "", a);
    n = r < 0 || (size_t)r >= size - n ? size - 1 : n + (size_t)r;
  }
}

/* the elastic part into outcome 0 (and more for enumerate); a failure status or NH_OK. A
 * reflection across an opposing contact (it would cycle) sets *cyc to that contact, else -1;
 * a full enumeration with truncate_outcomes sets res->truncated. */
static int elastic(const nh_simul_problem *pb, simul_ws *w, const nh_simul_opts *o, int bound,
                   int theorem, nh_simul_result *res, int *cyc, char *msg, size_t ms) {
  char text[SIMUL_MSG_MAX], list[SIMUL_MSG_MAX / 2];
  int st = 0, n = 0;
  const double *vfail = w->out_v;
  *cyc = -1;
  if (o->policy == NH_SIMUL_ENUMERATE) {
    st = enumerate(pb, w, o, bound, &res->outcomes, &res->branches, &vfail, cyc);
  } else {
    double *x = w->out_v;
    nh_la_copy(pb->nq, w->v, x);
    for (int i = 0; i < pb->k; i++) w->out_l[i] = 0.0;
    st = propagate(pb, w, o, x, w->out_l, bound, &n, cyc);
    memcpy(w->out_seq, w->seq, sizeof(int) * (size_t)n);
    w->out_start[0] = 0;
    w->out_len[0] = n;
    res->outcomes = 1;
    res->branches = 1;
  }
  if (st == SIMUL_CYCLE) return NH_OK;
  if (st >= SIMUL_FULL_OUTCOMES && o->truncate_outcomes && res->outcomes > 0) {
    res->truncated = 1;
    return NH_OK;
  }
  if (st == SIMUL_PAST_BOUND) {
    approaching(pb, w, o, vfail, list, sizeof list);
    snprintf(text, sizeof text,
             "elastic propagation passed its bound of %d reflections (%s) without reaching a "
             "feasible velocity (still approaching: %s %s)", bound,
             theorem ? "existence theorem" : "max_reflections", strchr(list, ',') ? "contacts"
             : "contact", list);
    return nh_simul_fail(res, NH_SIMUL_PAST_BOUND, -1, -1, NH_ERR_PAST_BOUND, msg, ms, text);
  }
  if (st >= SIMUL_FULL_OUTCOMES) {
    if (st == SIMUL_FULL_OUTCOMES)
      snprintf(text, sizeof text,
               "enumeration found more than %d distinct outcomes (max_outcomes)", o->max_outcomes);
    else if (st == SIMUL_FULL_BRANCHES)
      snprintf(text, sizeof text,
               "enumeration visited more than %ld complete sequences (max_branches)",
               o->max_branches);
    else
      snprintf(text, sizeof text,
               "enumeration's outcomes need more than %ld reflections of room for their "
               "sequences (%d per outcome on average)", w->seq_room, SIMUL_SEQ_PER_OUTCOME);
    return nh_simul_fail(res, NH_SIMUL_TOO_MANY_OUTCOMES, -1, -1, NH_ERR_NO_CONVERGENCE, msg,
                         ms, text);
  }
  return NH_OK;
}

/* the largest distance between two outcomes over |v-|_M */
static double indeterminacy(const nh_simul_problem *pb, const simul_ws *w, int nout, double vn0) {
  double dmax = 0.0;
  for (int a = 0; a < nout; a++)
    for (int b = a + 1; b < nout; b++) {
      double d = dist_M(pb, w, w->out_v + (size_t)a * pb->nq, w->out_v + (size_t)b * pb->nq);
      if (d > dmax) dmax = d;
    }
  return vn0 > 0.0 ? dmax / vn0 : 0.0;
}

/* the bound: a theorem's (capped by the option) or the option's */
static int bound_of(const simul_ws *w, const nh_simul_opts *o, int *theorem) {
  int b = nh_simul_reflection_bound(w->k, w->C, o->unique_tol, NULL);
  *theorem = b > 0 && b <= o->max_reflections;
  return *theorem ? b : o->max_reflections;
}

/* mix every outcome with the plastic one: alpha x + (1 - alpha) vp */
static void mix(const nh_simul_problem *pb, simul_ws *w, int nout, double alpha) {
  int nq = pb->nq, k = pb->k;
  for (int j = 0; j < nout; j++) {
    double *x = w->out_v + (size_t)j * nq, *l = w->out_l + (size_t)j * k;
    if (alpha == 0.0) {
      nh_la_copy(nq, w->vp, x);
      nh_la_copy(k, w->lamp, l);
    } else if (alpha < 1.0) {
      for (int i = 0; i < nq; i++) x[i] = alpha * x[i] + (1.0 - alpha) * w->vp[i];
      for (int i = 0; i < k; i++) l[i] = alpha * l[i] + (1.0 - alpha) * w->lamp[i];
    }
  }
}

static void result_init(nh_simul_result *res) {
  memset(res, 0, sizeof *res);
  res->contact = -1;
  res->other = -1;
}

/* the plastic part into w->vp and w->lamp (res: the pivots, the loss); NH_OK or a failure
 * with its message */
static int plastic_part(const nh_simul_problem *pb, simul_ws *w, const nh_simul_opts *o,
                        nh_simul_result *res, char *msg, size_t ms) {
  char text[SIMUL_MSG_MAX], a[SIMUL_LABEL_MAX];
  int bad = plastic(pb, w, o, &res->plastic_pivots);
  if (bad < -1) {
    snprintf(text, sizeof text,
             bad == -2 ? "plastic impact: the active set of the contacts at rest passed its cap of "
                         "%d pivots without a solution (round-off cycling)"
                       : "plastic impact: a block of the contacts' cosine matrix lost "
                         "definiteness to round-off (after %d pivots)",
             res->plastic_pivots);
    return nh_simul_fail(res, NH_SIMUL_NO_CONVERGENCE, -1, -1, NH_ERR_NO_CONVERGENCE, msg, ms, text);
  }
  res->plastic_loss = res->energy_before - 0.5 * pow(nh_simul_rates(pb, w, w->vp), 2);
  if (bad >= 0) {
    nh_la_copy(pb->k, w->lamp, w->out_l);
    nh_simul_label(o, bad, a, sizeof a);
    snprintf(text, sizeof text,
             "plastic projection (the paper's eq. 11, paper_plastic) needs a pulling impulse at "
             "contact %s (Lambda = %.6g): that contact separates (the default active set "
             "resolves it)", a, w->lamp[bad]);
    return nh_simul_fail(res, NH_SIMUL_NEGATIVE_IMPULSE, bad, -1, NH_ERR_PULLING_IMPULSE, msg, ms,
                         text);
  }
  return NH_OK;
}

/* the elastic propagation would reflect across contact c of an opposing pair: the impact is
 * the plastic map's (spec 003 sec. 2.7, T17); the note in msg */
static void opposing_fallback(simul_ws *w, const nh_simul_opts *o, int c, nh_simul_result *res,
                              char *msg, size_t ms) {
  char a[SIMUL_LABEL_MAX], b[SIMUL_LABEL_MAX];
  const int d = w->opp[c] - 1;
  res->fallback = NH_SIMUL_FALLBACK_OPPOSING;
  res->contact = c < d ? c : d;
  res->other = c < d ? d : c;
  res->outcomes = 1;
  res->truncated = 0;
  w->out_start[0] = 0;
  w->out_len[0] = 0;
  nh_simul_label(o, res->contact, a, sizeof a);
  nh_simul_label(o, res->other, b, sizeof b);
  nh_set_msg(msg, ms,
             "contacts %s and %s oppose (cosine %.17g): the elastic propagation would reflect "
             "between them for ever; resolved by the plastic map", a, b,
             w->C[(size_t)res->contact * w->k + res->other]);
}

int nh_simul_resolve(const nh_simul_problem *pb, const double *v, const nh_simul_opts *opts,
                     double *v_out, nh_simul_result *res, void *work, char *msg, size_t ms) {
  nh_simul_opts o = opts ? *opts : nh_simul_opts_default();
  simul_ws w;
  if (!res || !v || !v_out)
    return nh_simul_fail(res, NH_SIMUL_BAD_INPUT, -1, -1, NH_ERR_ARG, msg, ms,
                         "simultaneous impact: NULL velocity or result");
  result_init(res);
  int st = nh_simul_prepare(pb, v, &o, &w, work, res, msg, ms);
  if (st != NH_OK) {
    nh_la_copy(pb ? pb->nq : 0, v, v_out);
    return st;
  }
  int nq = pb->nq, k = pb->k, theorem = 0, cyc = -1;
  double vn0 = nh_simul_rates(pb, &w, w.v);
  double alpha = o.law == NH_SIMUL_ELASTIC  ? 1.0
                 : o.law == NH_SIMUL_PLASTIC ? 0.0
                 : o.paper_alpha             ? sqrt(1.0 - o.restitution * o.restitution)
                                             : o.restitution;
  res->energy_before = res->energy_after = 0.5 * vn0 * vn0;
  res->alpha = alpha;
  res->bound = bound_of(&w, &o, &theorem);
  res->impulse = w.out_l;
  res->seq = w.out_seq;
  res->mu = w.mu;
  res->outcome_v = w.out_v;
  res->outcome_impulse = w.out_l;
  res->outcome_seq = w.out_seq;
  res->outcome_start = w.out_start;
  res->outcome_len = w.out_len;
  for (int i = 0; i < k; i++) w.out_l[i] = 0.0;
  w.out_start[0] = 0;
  /* nothing approaches: v+ = v- */
  if (nh_simul_pick(&w, NH_SIMUL_INDEX, vn0, o.feas_tol) < 0) {
    nh_la_copy(nq, w.v, v_out);
    nh_la_copy(nq, w.v, w.out_v);
    w.out_len[0] = 0;
    res->outcomes = 1;
    res->status = NH_SIMUL_NO_IMPACT;
    nh_set_msg(msg, ms, "simultaneous impact: no contact approaches; velocity unchanged");
    return NH_NO_IMPACT;
  }
  /* the plastic part (plastic and inelastic laws) */
  if (alpha < 1.0 && (st = plastic_part(pb, &w, &o, res, msg, ms)) != NH_OK) {
    nh_la_copy(nq, v, v_out);
    return st;
  }
  /* the elastic part (opposing contacts: the plastic map instead), then the combination */
  if (alpha > 0.0) {
    st = elastic(pb, &w, &o, res->bound, theorem, res, &cyc, msg, ms);
    if (st == NH_OK && cyc >= 0 && alpha == 1.0) st = plastic_part(pb, &w, &o, res, msg, ms);
    if (st != NH_OK) {
      nh_la_copy(nq, v, v_out);
      return st;
    }
    if (cyc >= 0) {
      opposing_fallback(&w, &o, cyc, res, msg, ms);
      alpha = res->alpha = 0.0;
    }
  } else {
    res->outcomes = 1;
    w.out_len[0] = 0;
  }
  mix(pb, &w, res->outcomes, alpha);
  res->reflections = w.out_len[0];
  res->xi = indeterminacy(pb, &w, res->outcomes, vn0);
  /* constraint impulses: the projection's and -sum Lambda_i y_i */
  for (int i = 0; i < k; i++) nh_la_axpy(pb->nc, -w.out_l[i], w.Y + (size_t)i * pb->nc, w.mu);
  double vn1 = nh_simul_rates(pb, &w, w.out_v);
  res->energy_after = 0.5 * vn1 * vn1;
  nh_la_copy(nq, w.out_v, v_out);
  res->status = NH_SIMUL_RESOLVED;
  return NH_OK;
}

int nh_simul_reflect(const nh_simul_problem *pb, int i, const double *v, double *v_out,
                     double *impulse, void *work) {
  nh_simul_opts o = nh_simul_opts_default();
  simul_ws w;
  if (!v || !v_out || !pb || i < 0 || i >= pb->k) return NH_ERR_ARG;
  int st = nh_simul_prepare(pb, NULL, &o, &w, work, NULL, NULL, 0);
  if (st != NH_OK) return st;
  nh_simul_rates(pb, &w, v);
  double lam = 0.0;
  if (v_out != v) nh_la_copy(pb->nq, v, v_out);
  w.lam[i] = 0.0;
  nh_simul_reflect_ws(&w, i, v_out, w.lam);
  lam = w.lam[i];
  if (impulse) *impulse = lam;
  return NH_OK;
}

int nh_simul_cosines(const nh_simul_problem *pb, const nh_simul_opts *opts, double *G, double *C,
                     void *work, char *msg, size_t ms) {
  nh_simul_opts o = opts ? *opts : nh_simul_opts_default();
  nh_simul_result res;
  simul_ws w;
  result_init(&res);
  int st = nh_simul_prepare(pb, NULL, &o, &w, work, &res, msg, ms);
  /* the cosines exist for opposing and dependent normals too */
  if (st == NH_OK || res.status == NH_SIMUL_OPPOSING || res.status == NH_SIMUL_DEPENDENT) {
    size_t kk = (size_t)pb->k * (size_t)pb->k;
    if (G) memcpy(G, w.G, sizeof(double) * kk);
    if (C) memcpy(C, w.C, sizeof(double) * kk);
  }
  return st;
}

/* the uniqueness kind from the cosines */
static void classify(const simul_ws *w, const nh_simul_opts *o, nh_simul_verdict *vd) {
  int k = w->k, orth = 1;
  vd->c_min = vd->c_max = 0.0;
  for (int i = 0; i < k; i++)
    for (int j = i + 1; j < k; j++) {
      double c = w->C[(size_t)i * k + j];
      if (i == 0 && j == 1) vd->c_min = vd->c_max = c;
      if (c < vd->c_min) vd->c_min = c;
      if (c > vd->c_max) vd->c_max = c;
      if (!(fabs(c) <= o->unique_tol)) orth = 0;
    }
  vd->bound = nh_simul_reflection_bound(k, w->C, o->unique_tol, &vd->observed);
  vd->m = 0;
  vd->kind = NH_SIMUL_INDETERMINATE;
  if (w->nopp > 0) {
    vd->kind = NH_SIMUL_OPPOSING_PAIR;
  } else if (k == 1) {
    vd->kind = NH_SIMUL_UNIQUE_SINGLE;
  } else if (orth) {
    vd->kind = NH_SIMUL_UNIQUE_ORTHOGONAL;
    vd->m = k == 2 ? 2 : 0;
  } else if (k == 2 && vd->c_min < 0.0) {
    /* c = -cos(pi/m): a finite dihedral group whose chamber is the feasible cone */
    int m = (int)lround(SIMUL_PI / acos(-vd->c_min));
    if (m >= 3 && fabs(vd->c_min + cos(SIMUL_PI / m)) <= o->unique_tol) {
      vd->m = m;
      vd->kind = m == 3 ? NH_SIMUL_UNIQUE_THIRD : NH_SIMUL_UNIQUE_DIHEDRAL;
    }
  }
}

int nh_simul_verdict_of(const nh_simul_problem *pb, const double *v, const nh_simul_opts *opts,
                        nh_simul_verdict *vd, void *work, char *msg, size_t ms) {
  nh_simul_opts o = opts ? *opts : nh_simul_opts_default();
  nh_simul_result res;
  simul_ws w;
  if (!vd)
    return nh_simul_fail(NULL, 0, -1, -1, NH_ERR_ARG, msg, ms,
                         "simultaneous impact: NULL verdict");
  memset(vd, 0, sizeof *vd);
  result_init(&res);
  int st = nh_simul_prepare(pb, v, &o, &w, work, &res, msg, ms);
  if (st != NH_OK) return st;
  classify(&w, &o, vd);
  if (!v) return NH_OK;
  double vn0 = nh_simul_rates(pb, &w, w.v);
  if (nh_simul_pick(&w, NH_SIMUL_INDEX, vn0, o.feas_tol) < 0) {
    vd->outcomes = 1;
    return NH_OK;
  }
  int theorem = 0, bound = bound_of(&w, &o, &theorem), cyc = -1;
  o.policy = NH_SIMUL_ENUMERATE;
  st = elastic(pb, &w, &o, bound, theorem, &res, &cyc, msg, ms);
  if (st != NH_OK) return st;
  if (cyc >= 0) { /* the plastic map's single outcome */
    vd->outcomes = 1;
    vd->fallback = NH_SIMUL_FALLBACK_OPPOSING;
    return NH_OK;
  }
  vd->outcomes = res.outcomes;
  vd->xi = indeterminacy(pb, &w, res.outcomes, vn0);
  return NH_OK;
}
