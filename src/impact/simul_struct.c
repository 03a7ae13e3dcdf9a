/* simul_struct.c - the structured solve of a simultaneous impact: the zeros of M and of the gap
 * gradients skipped, so that a chain of balls (M diagonal, two nonzeros per gradient) costs
 * O(nq) per reflection and O(nq^2) to set up, where the dense products cost O(nq k) per
 * reflection and O(nq k^2 + k^3) to set up.
 *
 * Why the bits stay those of the dense routines (dense_reference; test_simul_structure
 * compares the two): only products with a structural zero are skipped. Every sum here starts
 * at +0 and adds its products in the dense order; a skipped product is +-0 when the other
 * factor is finite, and s + (+-0) = s for every s such a sum can hold (it is never -0 in
 * round-to-nearest), as in src/la/envelope.c. Where a value may not be finite (an overflow),
 * the dense routine is taken instead: |v|_M^2 is infinite or NaN whenever v is not finite, so
 * the rates fall back on it; the Gram matrix on a non-finite M^-1 dg_i; the envelope factor
 * on a non-finite cosine.
 *
 * These are what a constrained-metric object would own for the impact layer: M's pattern,
 * its diagonal factor and products (nh_simul_structure_scan, nh_simul_factor_diag,
 * nh_simul_solve_row, norm2_M), the Gram matrix over the pairs of contacts
 * sharing a coordinate (gram_pairs, nh_simul_gram_sparse, nh_simul_cosines_sparse) and the
 * envelope factor of the cosines (nh_simul_cosines_factor_env, nh_simul_cos_solve). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "la/la.h"
#include "nholo/impact.h"
#include "simul_internal.h"

/* the nonzeros of x (n) appended to idx from *p, four zeros skipped at once; 0 when some x_j
 * is not finite (the scan is the finiteness check too) */
static int scan_nonzeros(int n, const double *x, int *idx, int *p) {
  int q = *p, fin = 1, j = 0;
  for (; j + 4 <= n; j += 4) {
    uint64_t a, b, c, d;
    memcpy(&a, x + j, sizeof a), memcpy(&b, x + j + 1, sizeof b);
    memcpy(&c, x + j + 2, sizeof c), memcpy(&d, x + j + 3, sizeof d);
    if (((a | b | c | d) << 1) == 0) continue; /* four +-0 */
    for (int t = j; t < j + 4; t++) idx[q] = t, q += x[t] != 0.0, fin &= isfinite(x[t]) != 0;
  }
  for (; j < n; j++) idx[q] = j, q += x[j] != 0.0, fin &= isfinite(x[j]) != 0;
  *p = q;
  return fin;
}

int nh_simul_structure_scan(const nh_simul_problem *pb, const nh_simul_opts *o, simul_ws *w) {
  const int nq = pb->nq, k = pb->k;
  int p = 0, fin = 1;
  w->structured = !o->dense_reference && nq >= SIMUL_STRUCT_MIN_NQ;
  if (!w->structured) return -1;
  w->mlower = 0;
  for (int i = 0; i < nq; i++) { /* M by rows */
    w->mrow[i] = p;
    fin &= scan_nonzeros(nq, pb->M + (size_t)i * nq, w->mcol, &p);
    if (p > w->mrow[i] && w->mcol[w->mrow[i]] < i) w->mlower = 1;
  }
  w->mrow[nq] = p;
  p = 0;
  for (int i = 0; i < k; i++) { /* the gradients by rows */
    w->grow[i] = p;
    fin &= scan_nonzeros(nq, pb->dg + (size_t)i * nq, w->gcol, &p);
  }
  w->grow[k] = p;
  /* by coordinates: counts, their starts, filled in contact order (each start moves to its
   * end), then the starts back */
  for (int l = 0; l <= nq; l++) w->crow[l] = 0;
  for (int q = 0; q < p; q++) w->crow[w->gcol[q] + 1]++;
  for (int l = 0; l < nq; l++) w->crow[l + 1] += w->crow[l];
  for (int i = 0; i < k; i++)
    for (int q = w->grow[i]; q < w->grow[i + 1]; q++) w->ccon[w->crow[w->gcol[q]]++] = i;
  for (int l = nq; l > 0; l--) w->crow[l] = w->crow[l - 1];
  w->crow[0] = 0;
  return fin;
}

int nh_simul_factor_diag(const nh_simul_problem *pb, simul_ws *w) {
  const int nq = pb->nq;
  double dmax = 0.0;
  for (int i = 0; i < nq; i++)
    if (pb->M[(size_t)i * nq + i] > dmax) dmax = pb->M[(size_t)i * nq + i];
  const double thr = nh_la_rank_tol(0.0) * dmax;
  for (int j = 0; j < nq; j++) {
    const double d = pb->M[(size_t)j * nq + j];
    if (!(d > thr) || !(d > 0.0)) return NH_ERR_NOT_SPD;
    w->L[(size_t)j * nq + j] = sqrt(d);
  }
  return NH_OK;
}

void nh_simul_solve_row(const nh_simul_problem *pb, const simul_ws *w, int i, double *u) {
  const int nq = pb->nq;
  for (int q = w->grow[i]; q < w->grow[i + 1]; q++) {
    const int l = w->gcol[q];
    u[l] = u[l] / w->L[(size_t)l * nq + l] / w->L[(size_t)l * nq + l];
  }
}

/* |x|_M^2 = x . (M x), y (nq) scratch: nh_la_gemv then nh_la_dot, the same sums (structured:
 * fused over M's rows, the dense ones when the result is not finite) */
static double norm2_M(const nh_simul_problem *pb, const simul_ws *w, const double *x, double *y) {
  const int nq = pb->nq;
  if (w->structured) {
    double e = 0.0;
    for (int i = 0; i < nq; i++) {
      const double *Mi = pb->M + (size_t)i * nq;
      double s = 0.0;
      for (int p = w->mrow[i]; p < w->mrow[i + 1]; p++) s += Mi[w->mcol[p]] * x[w->mcol[p]];
      e += x[i] * s;
    }
    if (isfinite(e)) return e;
  }
  nh_la_gemv(nq, nq, pb->M, x, y);
  return nh_la_dot(nq, x, y);
}

double nh_simul_dist2_M(const nh_simul_problem *pb, const simul_ws *w, const double *x, double *y) {
  return norm2_M(pb, w, x, y);
}

/* the rate of contact i and its normalised value */
static void rate_of(const nh_simul_problem *pb, const simul_ws *w, int i, const double *v) {
  w->s[i] = nh_simul_row_dot(pb, w, i, v);
  w->rn[i] = w->s[i] / w->gn[i];
}

double nh_simul_rates(const nh_simul_problem *pb, const simul_ws *w, const double *v) {
  const int nq = pb->nq, k = pb->k;
  double e = norm2_M(pb, w, v, w->tmp);
  // structured and e finite (v finite): the gradients' nonzeros alone
  if (w->structured && isfinite(e))
    for (int i = 0; i < k; i++) rate_of(pb, w, i, v);
  else
    for (int i = 0; i < k; i++) {
      w->s[i] = nh_la_dot(nq, pb->dg + (size_t)i * nq, v);
      w->rn[i] = w->s[i] / w->gn[i];
    }
  return e > 0.0 ? sqrt(e) : 0.0;
}

double nh_simul_rates_after(const nh_simul_problem *pb, const simul_ws *w, const double *v, int i) {
  if (!w->sparse_gram) return nh_simul_rates(pb, w, v);
  const double e = norm2_M(pb, w, v, w->tmp);
  if (!isfinite(e)) return nh_simul_rates(pb, w, v);
  // v moved where u_i is not zero, within dg_i's nonzeros (elsewhere at most a zero's sign
  // changed): the rates of i and of the contacts sharing a coordinate with it
  rate_of(pb, w, i, v);
  for (int q = w->arow[i]; q < w->arow[i + 1]; q++) rate_of(pb, w, w->acon[q], v);
  return e > 0.0 ? sqrt(e) : 0.0;
}

/* per contact, the others whose gradient shares a coordinate with its own, ascending */
static void gram_pairs(simul_ws *w) {
  const int k = w->k;
  int p = 0;
  for (int i = 0; i < k; i++) w->mark[i] = -1;
  for (int i = 0; i < k; i++) {
    w->arow[i] = p;
    for (int q = w->grow[i]; q < w->grow[i + 1]; q++) {
      const int l = w->gcol[q];
      for (int r = w->crow[l]; r < w->crow[l + 1]; r++) {
        const int j = w->ccon[r];
        if (j == i || w->mark[j] == i) continue;
        w->mark[j] = i;
        int t = p++; /* insertion: the list stays ascending */
        while (t > w->arow[i] && w->acon[t - 1] > j) w->acon[t] = w->acon[t - 1], t--;
        w->acon[t] = j;
      }
    }
  }
  w->arow[k] = p;
}

int nh_simul_gram_sparse(const nh_simul_problem *pb, simul_ws *w) {
  const int nq = pb->nq, k = pb->k;
  // u_j = M^-1 dg_j is zero where dg_j is (L diagonal, no constraints): G_ij = +0 unless i
  // and j share a coordinate, when the u_j are finite
  for (int i = 0; i < k; i++)
    for (int q = w->grow[i]; q < w->grow[i + 1]; q++)
      if (!isfinite(w->U[(size_t)i * nq + w->gcol[q]])) return 0;
  gram_pairs(w);
  memset(w->G, 0, sizeof(double) * (size_t)k * (size_t)k);
  for (int i = 0; i < k; i++) {
    for (int q = w->arow[i]; q < w->arow[i + 1] && w->acon[q] < i; q++) {
      const int j = w->acon[q];
      const double g = nh_simul_row_dot(pb, w, i, w->U + (size_t)j * nq);
      w->G[(size_t)i * k + j] = g;
      w->G[(size_t)j * k + i] = g;
    }
    w->G[(size_t)i * k + i] = nh_simul_row_dot(pb, w, i, w->U + (size_t)i * nq);
  }
  return 1;
}

int nh_simul_cosines_sparse(simul_ws *w) {
  const int k = w->k;
  int fin = 1;
  memset(w->C, 0, sizeof(double) * (size_t)k * (size_t)k);
  for (int i = 0; i < k; i++) {
    w->C[(size_t)i * k + i] = 1.0;
    for (int q = w->arow[i]; q < w->arow[i + 1]; q++) {
      const int j = w->acon[q];
      const double c = w->G[(size_t)i * k + j] / (w->gn[i] * w->gn[j]);
      w->C[(size_t)i * k + j] = c;
      fin &= isfinite(c) != 0;
    }
  }
  return fin;
}

int nh_simul_cosines_factor_env(simul_ws *w, const int *idx, int r, double *F, int *first, int *last,
                                double tol, int *rank) {
  const int k = w->k;
  int *pos = w->mark; /* a contact's row in F, -1 for none */
  for (int i = 0; i < k; i++) pos[i] = -1;
  for (int a = 0; a < r; a++) pos[idx[a]] = a;
  for (int a = 0; a < r; a++) {
    const int i = idx[a];
    int f = a;
    for (int q = w->arow[i]; q < w->arow[i + 1] && w->acon[q] < i; q++)
      if (pos[w->acon[q]] >= 0 && pos[w->acon[q]] < f) f = pos[w->acon[q]];
    first[a] = f;
    for (int b = f; b <= a; b++) F[(size_t)a * r + b] = w->C[(size_t)i * k + idx[b]];
  }
  return nh_la_chol_env(r, F, first, last, tol, rank);
}

double nh_simul_cos_row(const simul_ws *w, int i, const double *x, double s, int pairs) {
  const int k = w->k;
  const double *Ci = w->C + (size_t)i * k;
  if (!pairs) {
    for (int j = 0; j < k; j++) s += Ci[j] * x[j];
    return s;
  }
  // the pairs of i ascending, its diagonal in its place
  int q = w->arow[i];
  const int end = w->arow[i + 1];
  for (; q < end && w->acon[q] < i; q++) s += Ci[w->acon[q]] * x[w->acon[q]];
  s += Ci[i] * x[i];
  for (; q < end; q++) s += Ci[w->acon[q]] * x[w->acon[q]];
  return s;
}

void nh_simul_cos_solve(const simul_ws *w, double *b) {
  if (w->env)
    nh_la_chol_env_solve(w->k, w->Gf, w->efirst, w->elast, b);
  else
    nh_la_chol_solve(w->k, w->Gf, b);
}
