/* test_scale.c - models of hundreds of coordinates (issue 18).
 *
 * 1. The derivation by structural non-zeros (src/lang/derive.c) gives the expression nodes of
 *    the dense symbolic derivatives, entry by entry (M, c, dV, its Hessian, A, Adot v, and the
 *    sparse dM, d2M, dA with every other entry the constant +0), on the examples, the good
 *    corpus, a sleigh chain and a model written to exercise the signs of zero derivatives.
 * 2. Generated C and tapes give the same bits on a chain of 8 sleighs (sparse stores, memset).
 * 3. A chain of 100 sleighs (300 coordinates, 100 constraints) loads on tapes, runs dopri5
 *    and gni, and keeps its constraints and energy (short runs, not timed).
 * 4. More coordinates than the limit: one clear error.
 * 5. The multiplier solve on the constraints' extents (a diagonal constant M, large models)
 *    gives the dense solve's bits, on the sleigh chain (G diagonal) and on a chain whose
 *    constraints overlap (G banded). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "lang/mf.h"
#include "model/dynamics.h"
#include "../bench/sleigh_chain.h"
#include "nholo/nholo.h"

#ifndef NHOLO_SOURCE_DIR
#define NHOLO_SOURCE_DIR "."
#endif
#ifndef NHOLO_TEST_CACHE
#define NHOLO_TEST_CACHE "nholo-test-cache"
#endif

/* a model with negations, cosines, arc cosines and quotients by constants around variables
 * that some derivatives do not read (their zero derivatives are -0 or +0 constants) */
static const char *signs_model =
    "model signs\ncoordinates a b c\n"
    "kinetic 1/2*(2 + cos(a))*a'^2 + 1/2*b'^2 - (-1/2*c'^2)/1 + (-cos(b))*a'*c'/(-8)\n"
    "potential -cos(a)/(-2) - acos(b/3)/2 + (-(c - a)^2)/(-2) - (-sin(b))\n"
    "constraint k: -cos(a)*b' + (c'/(-2) - (-a')) = 0\n"
    "force a: -sin(c)*b'\n"
    "initial a = 0.1, b = 0.2, c = 0.3\ninitial a' = 0.5, b' = 0, c' = 1\n";

/* dense[i] = node of the sparse tensor at i, -1 where it has none */
static int *densify(const mf_sparse *s, long n) {
  int *d = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  if (!d) return NULL;
  for (long i = 0; i < n; i++) d[i] = -1;
  for (int e = 0; e < s->n; e++) d[s->idx[e]] = s->node[e];
  return d;
}

/* the sparse entry at each place is the dense derivative's node, or (none) the constant +0
 * (what the sparse evaluators leave there) */
static int same_sparse(const mf *m, const int *dense_sparse, long i, int ref) {
  double v;
  if (dense_sparse[i] >= 0) return dense_sparse[i] == ref;
  return nh_expr_is_const(m->pool, ref, &v) && v == 0.0 && !signbit(v);
}

/* every derived expression of text against the dense symbolic derivatives; 0 when equal */
static int check_derivation(const char *text, const char *name) {
  mf *m = calloc(1, sizeof *m);
  char msg[1024];
  int bad = 0;
  if (!m || mf_prepare(m, text, name, NULL, msg, sizeof msg) != NH_OK) {
    printf("  %s: %s\n", name, msg);
    free(m);
    return 1;
  }
  if (m->poisson) goto done;
  nh_expr_pool *P = m->pool;
  const int nq = m->nq, nc = m->nc;
  const long n2 = (long)nq * nq;
  int *dM = densify(&m->dM, n2 * nq), *dA = densify(&m->dA, (long)nq * nc * nq);
  int *d2M = m->has_d2M ? densify(&m->d2M, n2 * n2) : NULL;
  for (int i = 0; i < nq && !bad; i++) {
    int pi = nh_expr_diff(P, m->kinetic, nq + i), ci = nh_expr_neg(P, nh_expr_diff(P, m->kinetic, i));
    for (int k = 0; k < nq; k++)
      ci = nh_expr_add(P, ci, nh_expr_mul(P, nh_expr_diff(P, pi, k), nh_expr_var(P, nq + k)));
    bad |= (ci != m->c[i]) << 0 | (nh_expr_diff(P, m->V, i) != m->dV[i]) << 1;
    for (int j = 0; j < nq; j++) {
      bad |= (nh_expr_diff(P, pi, nq + j) != m->M[i * nq + j]) << 2;
      bad |= (nh_expr_diff(P, m->dV[i], j) != m->H[i * nq + j]) << 3;
      bad |= (nh_expr_diff(P, m->f[i], j) != m->dfdq[i * nq + j]) << 4;
      bad |= (nh_expr_diff(P, m->f[i], nq + j) != m->dfdv[i * nq + j]) << 5;
    }
  }
  for (long k = 0; k < nq && !bad; k++)
    for (long ij = 0; ij < n2; ij++) {
      int d = nh_expr_diff(P, m->M[ij], (int)k);
      bad |= !same_sparse(m, dM, k * n2 + ij, d) << 6;
      for (long l = 0; d2M && l < nq; l++)
        bad |= !same_sparse(m, d2M, l * n2 * nq + k * n2 + ij, nh_expr_diff(P, d, (int)l)) << 7;
    }
  for (int k = 0; k < nc && !bad; k++) {
    int adv = nh_expr_const(P, 0.0);
    for (int j = 0; j < nq; j++) {
      int a = nh_expr_diff(P, m->con[k].node, nq + j), rate = nh_expr_const(P, 0.0);
      bad |= (a != m->A[k * nq + j]) << 8;
      for (int i = 0; i < nq; i++) {
        int d = nh_expr_diff(P, a, i);
        bad |= !same_sparse(m, dA, ((long)i * nc + k) * nq + j, d) << 9;
        rate = nh_expr_add(P, rate, nh_expr_mul(P, d, nh_expr_var(P, nq + i)));
      }
      adv = nh_expr_add(P, adv, nh_expr_mul(P, rate, nh_expr_var(P, nq + j)));
    }
    bad |= (adv != m->Adv[k]) << 10;
  }
  for (int k = 0; k < m->ngap && !bad; k++)
    for (int j = 0; j < nq; j++) bad |= (nh_expr_diff(P, m->g[k], j) != m->dg[k * nq + j]) << 11;
  if (bad) printf("  %s: a derived expression differs from the dense derivative (mask %x)\n", name, bad);
  free(dM), free(dA), free(d2M);
done:
  mf_free(m);
  free(m);
  return bad;
}

/* every .nh file of dir; the count checked into *count */
static int check_dir(const char *dir, int *count) {
  DIR *d = opendir(dir);
  if (!d) return 1;
  struct dirent *e;
  int bad = 0;
  char path[1024], msg[512];
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 3, ".nh")) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (nh_model_file_is_body(path)) continue; /* a rigid body with rails: not a Lagrangian file */
    char *text = mf_read_file(path, msg, sizeof msg);
    if (!text) continue;
    bad |= check_derivation(text, path);
    ++*count;
    free(text);
  }
  closedir(d);
  return bad;
}

static int test_sparse_derivation_is_the_dense_one(void) {
  int count = 0;
  ENSURE(check_dir(NHOLO_SOURCE_DIR "/examples", &count) == 0);
  ENSURE(check_dir(NHOLO_SOURCE_DIR "/tests/modelfiles/good", &count) == 0);
  ENSURE(count >= 15);
  ENSURE(check_derivation(signs_model, "signs") == 0);
  char *chain = sleigh_chain_text(3);
  ENSURE(chain && check_derivation(chain, "chain3") == 0);
  free(chain);
  return 0;
}

/* the evaluators of the two back ends on the chain of 8 sleighs, at a perturbed state: the same bits */
static int test_chain_codegen_matches_tape(void) {
  char *text = sleigh_chain_text(8), msg[1024];
  ENSURE(text);
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  nh_model *t = nh_model_parse(text, "chain8", &o, msg, sizeof msg);
  o.backend = NH_BACKEND_CODEGEN;
  o.cache_dir = NHOLO_TEST_CACHE;
  nh_model *c = nh_model_parse(text, "chain8", &o, msg, sizeof msg);
  free(text);
  if (!c) printf("  (codegen unavailable: %s)\n", msg);
  ENSURE(t && (c || !nh_test_have_cc())); /* codegen fails only without a C compiler */
  if (c) {
    const int n = t->nq, nc = t->nc;
    double q[24], v[24];
    for (int i = 0; i < n; i++) q[i] = t->q0[i] + 0.1 * sin(i + 1.0), v[i] = t->v0[i] + 0.2 * cos(i + 2.0);
    size_t sz = (size_t)n * n * n;
    double *a = malloc(sizeof(double) * sz), *b = malloc(sizeof(double) * sz);
    ENSURE(a && b);
    int ok = t->mass(q, a, t->user) == 0 && c->mass(q, b, c->user) == 0 && !memcmp(a, b, sizeof(double) * n * n);
    ok &= t->constraint(q, v, a, a + n * nc, t->user) == 0 && c->constraint(q, v, b, b + n * nc, c->user) == 0 &&
          !memcmp(a, b, sizeof(double) * (n * nc + nc));
    ok &= t->constraint_deriv(q, a, t->user) == 0 && c->constraint_deriv(q, b, c->user) == 0 &&
          !memcmp(a, b, sizeof(double) * n * nc * n);
    memset(b, 0xff, sizeof(double) * sz); /* the constant M's dM: every entry written, zero */
    ok &= t->mass_deriv(q, a, t->user) == 0 && c->mass_deriv(q, b, c->user) == 0 && !memcmp(a, b, sizeof(double) * sz);
    for (size_t i = 0; i < sz; i++) ok &= b[i] == 0.0;
    ok &= t->potential(q, a, a + 1, t->user) == 0 && c->potential(q, b, b + 1, c->user) == 0 &&
          !memcmp(a, b, sizeof(double) * (n + 1));
    ok &= t->potential_hess(q, a, t->user) == 0 && c->potential_hess(q, b, c->user) == 0 &&
          !memcmp(a, b, sizeof(double) * n * n);
    free(a), free(b);
    ENSURE(ok);
    ENSURE(strcmp(nh_model_backend(c), "codegen") == 0 && c->mass_constant == 1);
  }
  const int skipped = !c;
  nh_model_destroy(t);
  nh_model_destroy(c);
  if (skipped) SKIP("no C compiler ($CC or cc on PATH) for the code generator");
  return 0;
}

/* energy drift and the largest constraint residual of a short run of method */
static int chain_run(const nh_model *m, const char *method, double T, double *drift, double *res) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = 1e-3;
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  if (!s) return -1;
  double E0, E1;
  nh_model_energy(m, m->q0, m->v0, &E0);
  int rc = nh_sim_run(s, T, 0, NULL, NULL);
  nh_model_energy(m, nh_sim_q(s), nh_sim_v(s), &E1);
  nh_model_constraint_residual(m, nh_sim_q(s), nh_sim_v(s), res);
  *drift = fabs(E1 - E0) / fabs(E0);
  nh_sim_destroy(s);
  return rc;
}

static int test_chain_of_300_coordinates(void) {
  char *text = sleigh_chain_text(100), msg[1024];
  ENSURE(text);
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  nh_model *m = nh_model_parse(text, "chain100", &o, msg, sizeof msg);
  free(text);
  if (!m) printf("  %s\n", msg);
  ENSURE(m && m->nq == 300 && m->nc == 100 && m->mass_constant == 1);
  double E0, drift, res;
  ENSURE(nh_model_energy(m, m->q0, m->v0, &E0) == NH_OK && E0 > 1.0);
  /* dopri5 (rtol 1e-10) over 0.05 s: energy to 1e-9, constraints to 1e-9 */
  ENSURE(chain_run(m, "dopri5", 0.05, &drift, &res) == NH_OK);
  ENSURE(drift < 1e-9 && res < 1e-9);
  /* gni, 20 steps of 1 ms: the constraints hold at every node to round-off; energy O(h^2) */
  ENSURE(chain_run(m, "gni", 0.02, &drift, &res) == NH_OK);
  ENSURE(res < 1e-12 && drift < 1e-4);
  nh_model_destroy(m);
  return 0;
}

static int test_too_many_coordinates(void) {
  size_t cap = 16 * (NH_MF_MAX_Q + 2) + 64;
  char *text = malloc(cap), msg[1024];
  ENSURE(text);
  size_t len = (size_t)snprintf(text, cap, "model big\ncoordinates");
  for (int i = 0; i <= NH_MF_MAX_Q; i++) len += (size_t)snprintf(text + len, cap - len, " q%d", i);
  snprintf(text + len, cap - len, "\nkinetic 1/2*q0'^2\n");
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  nh_model *m = nh_model_parse(text, "big.nh", &o, msg, sizeof msg);
  free(text);
  ENSURE(m == NULL);
  ENSURE(strstr(msg, "big.nh:2:") && strstr(msg, "error: more than 2048 coordinates"));
  return 0;
}

/* a model whose dA/dq would need dense indices beyond 2^31 (2048 coordinates, 600 rows that
 * depend on the last coordinate): one clear error (it was accepted with overflowed indices) */
static int test_too_large_derivatives(void) {
  const int n = 2048, nc = 600;
  size_t cap = 64 * (size_t)(n + nc) + 256, len = 0;
  char *text = malloc(cap), msg[1024];
  ENSURE(text);
  len += (size_t)snprintf(text + len, cap - len, "model wide\ncoordinates");
  for (int i = 1; i <= n; i++) len += (size_t)snprintf(text + len, cap - len, " q%d", i);
  len += (size_t)snprintf(text + len, cap - len, "\nkinetic 0");
  for (int i = 1; i <= n; i++) len += (size_t)snprintf(text + len, cap - len, " + 1/2*q%d'^2", i);
  len += (size_t)snprintf(text + len, cap - len, "\n");
  for (int k = 1; k <= nc; k++) len += (size_t)snprintf(text + len, cap - len, "constraint c%d: (2 + sin(q%d))*q%d' = 0\n", k, n, k);
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  nh_model *m = nh_model_parse(text, "wide.nh", &o, msg, sizeof msg);
  free(text);
  ENSURE(m == NULL);
  ENSURE(strstr(msg, "wide.nh:2:1: error: the model is too large: its derivative tensors"));
  ENSURE(strstr(msg, "(too much memory)"));
  return 0;
}

/* a chain of n unit masses on a line whose constraint k couples q_2k+1 .. q_2k+4 (rows overlap
 * their neighbours: G is banded, not diagonal); at rest, so every velocity is admissible */
static char *overlap_text(int n) {
  size_t cap = 256 + 200 * (size_t)n;
  char *t = malloc(cap);
  if (!t) return NULL;
  size_t len = (size_t)snprintf(t, cap, "model overlap\ncoordinates");
  for (int i = 1; i <= n; i++) len += (size_t)snprintf(t + len, cap - len, " q%d", i);
  len += (size_t)snprintf(t + len, cap - len, "\nkinetic 0");
  for (int i = 1; i <= n; i++) len += (size_t)snprintf(t + len, cap - len, " + %d/2*q%d'^2", 1 + i % 3, i);
  len += (size_t)snprintf(t + len, cap - len, "\npotential 0");
  for (int i = 1; i < n; i++) len += (size_t)snprintf(t + len, cap - len, " + 1/2*(q%d - q%d)^2", i + 1, i);
  len += (size_t)snprintf(t + len, cap - len, "\n");
  for (int k = 0; 2 * k + 4 <= n; k++)
    len += (size_t)snprintf(t + len, cap - len, "constraint c%d: q%d' + cos(q%d)*q%d' - sin(q%d)*q%d' + q%d' = 0\n", k,
                            2 * k + 1, 2 * k + 2, 2 * k + 2, 2 * k + 3, 2 * k + 3, 2 * k + 4);
  return t;
}

/* nh_dyn_accel on the extents and densely, at (q, v): a and lambda bitwise equal */
static int accel_paths_agree(const nh_model *m, const double *q, const double *v) {
  size_t ws = nh_dyn_work_size(m);
  double *w1 = calloc(ws, sizeof(double)), *w2 = calloc(ws, sizeof(double));
  double a1[64], a2[64], l1[64], l2[64];
  nh_dyn d1, d2;
  int ok = w1 && w2 && m->nq <= 64 && m->nc <= 64;
  if (ok) {
    nh_dyn_init(&d1, m, w1), nh_dyn_init(&d2, m, w2);
    d2.dense = 1;
    for (int rep = 0; rep < 2 && ok; rep++) /* the first call factors M, the second reuses it */
      ok = nh_dyn_accel(&d1, 0.0, q, v, a1, l1) == NH_OK && nh_dyn_accel(&d2, 0.0, q, v, a2, l2) == NH_OK &&
           d1.mt.diag == 1 && !memcmp(a1, a2, sizeof(double) * (size_t)m->nq) &&
           !memcmp(l1, l2, sizeof(double) * (size_t)m->nc);
  }
  free(w1), free(w2);
  return ok;
}

static int test_envelope_solve_is_the_dense_one(void) {
  char msg[1024], *texts[2] = {sleigh_chain_text(16), overlap_text(40)};
  for (int t = 0; t < 2; t++) {
    ENSURE(texts[t]);
    nh_load_opts o = nh_load_opts_default();
    o.backend = NH_BACKEND_TAPE;
    nh_model *m = nh_model_parse(texts[t], "envelope", &o, msg, sizeof msg);
    free(texts[t]);
    if (!m) printf("  %s\n", msg);
    ENSURE(m && m->nq >= 16 && m->nc >= 16 && m->mass_constant);
    double q[64], v[64];
    for (int trial = 0; trial < 4; trial++) {
      for (int i = 0; i < m->nq; i++) {
        q[i] = trial == 0 ? m->q0[i] : m->q0[i] + 0.7 * sin(3.1 * i + trial); /* trial 0: sin(0) = 0 entries */
        v[i] = trial == 1 ? 0.0 : cos(1.7 * i - trial);
      }
      ENSURE(accel_paths_agree(m, q, v));
    }
    nh_model_destroy(m);
  }
  return 0;
}

/* the patterns and sparse fills of generated C on the chain of 16 and the overlapping chain of
 * 40: the dense M and A are +0 bitwise outside the patterns, the sparse fill into a +0 buffer is
 * the dense result bitwise and writes every entry of the pattern; the multiplier solve with the
 * sparse fill is the dense solve's bits */
static int test_patterns_and_sparse_fill(void) {
  char msg[1024], *texts[2] = {sleigh_chain_text(16), overlap_text(40)};
  for (int t = 0; t < 2; t++) {
    ENSURE(texts[t]);
    nh_load_opts o = nh_load_opts_default();
    o.backend = NH_BACKEND_CODEGEN;
    o.cache_dir = NHOLO_TEST_CACHE;
    nh_model *m = nh_model_parse(texts[t], "patterns", &o, msg, sizeof msg);
    free(texts[t]);
    if (!m) { /* codegen unavailable: a failure where there is a C compiler */
      printf("  (codegen unavailable: %s)\n", msg);
      ENSURE(!nh_test_have_cc());
      if (t == 0) free(texts[1]);
      SKIP("no C compiler ($CC or cc on PATH) for the code generator");
    }
    ENSURE(m->mass_sparse && m->constraint_sparse && m->mass_pattern && m->constraint_pattern);
    const int n = m->nq, nc = m->nc;
    ENSURE(m->mass_rows[n] == n); /* a diagonal M */
    double q[64], v[64], d[64 * 64], sp[64 * 64], adv[64], adv2[64];
    for (int i = 0; i < n; i++) q[i] = m->q0[i] + 0.3 * sin(1.3 * i), v[i] = cos(0.9 * i);
    for (int pass = 0; pass < 2; pass++) { /* M, then A */
      const int rows = pass ? nc : n;
      const unsigned char *pat = pass ? m->constraint_pattern : m->mass_pattern;
      memset(sp, 0, sizeof sp);
      ENSURE((pass ? m->constraint(q, v, d, adv, m->user) : m->mass(q, d, m->user)) == 0);
      ENSURE((pass ? m->constraint_sparse(q, v, sp, adv2, m->user) : m->mass_sparse(q, sp, m->user)) == 0);
      ENSURE(!memcmp(d, sp, sizeof(double) * (size_t)rows * n));
      ENSURE(!pass || !memcmp(adv, adv2, sizeof(double) * (size_t)nc));
      for (int e = 0; e < rows * n; e++) ENSURE(pat[e] || (d[e] == 0.0 && !signbit(d[e])));
      memset(sp, 0xff, sizeof sp); /* NaNs: every pattern entry is written */
      ENSURE((pass ? m->constraint_sparse(q, v, sp, NULL, m->user) : m->mass_sparse(q, sp, m->user)) == 0);
      for (int e = 0; e < rows * n; e++) ENSURE(!pat[e] || !memcmp(&sp[e], &d[e], sizeof(double)));
    }
    for (int trial = 0; trial < 3; trial++) {
      for (int i = 0; i < n; i++) q[i] = trial == 0 ? m->q0[i] : m->q0[i] + 0.7 * sin(3.1 * i + trial);
      ENSURE(accel_paths_agree(m, q, v));
    }
    /* the evaluators copied into a new definition (the X-macro idiom): without the patterns
     * the sparse fills are dropped, with them kept */
    for (int pat = 0; pat < 2; pat++) {
      nh_model_def cd = nh_model_def_default();
      cd.nq = n, cd.nc = nc, cd.coord_names = m->coord_names, cd.q0 = m->q0, cd.v0 = m->v0;
#define COPY(name, type, exact) cd.name = m->name;
      NH_EVALUATOR_LIST(COPY)
#undef COPY
      cd.user = m->user, cd.mass_constant = m->mass_constant;
      if (pat) cd.mass_pattern = m->mass_pattern, cd.constraint_pattern = m->constraint_pattern;
      nh_model *m2 = nh_model_create(&cd, msg, sizeof msg);
      ENSURE(m2);
      ENSURE(pat ? m2->mass_sparse && m2->constraint_sparse && m2->constraint_rows : !m2->mass_sparse && !m2->constraint_sparse);
      nh_model_destroy(m2);
    }
    nh_model_destroy(m);
  }
  return 0;
}

int main(int argc, char **argv) {
  nh_test_filter = argc > 1 ? argv[1] : NULL;
  RUN_TEST(test_sparse_derivation_is_the_dense_one);
  RUN_TEST(test_chain_codegen_matches_tape);
  RUN_TEST(test_chain_of_300_coordinates);
  RUN_TEST(test_too_many_coordinates);
  RUN_TEST(test_too_large_derivatives);
  RUN_TEST(test_envelope_solve_is_the_dense_one);
  RUN_TEST(test_patterns_and_sparse_fill);
  return TEST_SUMMARY();
}
