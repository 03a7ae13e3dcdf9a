/* test_sparse_chol.c - the sparse multiplier solve (issue 18): src/la/sparse_chol.c and its
 * automatic choice for large models whose constraint coupling is not a band.
 *
 * 1. On an arrow matrix with its hub first (the worst case of the envelope in the given
 *    order): the factor's entries in closed form (natural order n (n + 1) / 2; AMD 2 n - 1),
 *    the solve against the dense Cholesky's to 1e-13 relative, the same bits on a repeat.
 * 2. A bad pattern (no diagonal, a column above it, unsorted) is NH_ERR_ARG; an indefinite
 *    matrix NH_ERR_NOT_SPD with the rank of the accepted pivots; nothing crashes.
 * 3. The choice: a tree of sleighs (bench/sleigh_tree.h) takes the sparse solve, a chain of
 *    sleighs (G diagonal: the envelope, as large as L) the envelope, the penny the dense loops.
 * 4. On the tree, accelerations and multipliers of the sparse solve against the dense and the
 *    envelope ones at random states: max |difference| <= 1e-12 max |value|.
 * 5. rk4 runs of the tree with each solve (the envelope forced by hiding the analysis): the
 *    states after t = 2 agree to 1e-12 relative (max over the state against max |x|; seen
 *    1e-16), the energy drifts by less than 1e-11 and |A v| stays below 1e-11 (rk4, h = 1e-3).
 * 6. A C-API model whose G is an arrow (hub first) takes the sparse solve; with dependent
 *    constraint rows it reports NH_ERR_SINGULAR; a model file whose mass is not positive
 *    definite (m = -1) is refused at load with that reason. Nothing crashes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "la/la.h"
#include "model/dynamics.h"
#include "model/model_impl.h"
#include "../bench/sleigh_chain.h"
#include "../bench/sleigh_tree.h"
#include "nholo/nholo.h"

/* size of the arrow matrix */
#define ARROW_N 40

/* the lower pattern of the arrow (row i: columns 0 and i) and SPD values (diagonally dominant) */
static void arrow(int n, int *rows, int *cols, double *vals, double *dense) {
  memset(dense, 0, sizeof(double) * (size_t)n * (size_t)n);
  int e = 0;
  rows[0] = 0;
  for (int i = 0; i < n; i++) {
    if (i > 0) cols[e] = 0, vals[e] = 0.5 + 0.1 * sin(i), dense[i * n] = dense[i] = vals[e], e++;
    cols[e] = i, vals[e] = i == 0 ? n : 2.0 + cos(i), dense[i * n + i] = vals[e], e++;
    rows[i + 1] = e;
  }
}

static int test_arrow_closed_forms_and_solve(void) {
  const int n = ARROW_N;
  int rows[ARROW_N + 1], cols[2 * ARROW_N];
  double vals[2 * ARROW_N], dense[ARROW_N * ARROW_N], b[ARROW_N], x[ARROW_N], ref[ARROW_N];
  arrow(n, rows, cols, vals, dense);
  ENSURE(nh_la_chol(n, dense, 0.0, NULL) == NH_OK);
  for (int i = 0; i < n; i++) ref[i] = b[i] = cos(0.3 * i);
  nh_la_chol_solve(n, dense, ref);
  for (int order = 0; order < 2; order++) {
    if (order == NH_LA_ORDER_AMD && !nh_la_spchol_have_amd()) {
      nh_la_spchol *s = NULL;
      ENSURE(nh_la_spchol_analyze(n, rows, cols, order, &s) == NH_ERR_UNSUPPORTED && !s);
      continue;
    }
    nh_la_spchol *s = NULL;
    ENSURE(nh_la_spchol_analyze(n, rows, cols, order, &s) == NH_OK && s);
    ENSURE(nh_la_spchol_envelope_entries(s) == (long)n * (n + 1) / 2);
    ENSURE(nh_la_spchol_factor_entries(s) == (order == NH_LA_ORDER_AMD ? 2L * n - 1 : (long)n * (n + 1) / 2));
    double *work = malloc(sizeof(double) * nh_la_spchol_work_size(s));
    ENSURE(work);
    double x2[ARROW_N];
    int rank = -1;
    ENSURE(nh_la_spchol_factor(s, vals, 0.0, &rank, work) == NH_OK && rank == n);
    memcpy(x, b, sizeof x);
    nh_la_spchol_solve(s, work, x);
    double err = 0.0, scale = 0.0;
    for (int i = 0; i < n; i++) err = fmax(err, fabs(x[i] - ref[i])), scale = fmax(scale, fabs(ref[i]));
    ENSURE(err <= 1e-13 * scale);
    ENSURE(nh_la_spchol_factor(s, vals, 0.0, NULL, work) == NH_OK); /* again: the same bits */
    memcpy(x2, b, sizeof x2);
    nh_la_spchol_solve(s, work, x2);
    ENSURE(!memcmp(x, x2, sizeof x));
    free(work);
    nh_la_spchol_free(s);
  }
  return 0;
}

static int test_bad_patterns_and_values(void) {
  nh_la_spchol *s = NULL;
  int rows[4] = {0, 1, 2, 3}, nodiag[3] = {0, 1, 1}; /* row 2 without its diagonal */
  ENSURE(nh_la_spchol_analyze(3, rows, nodiag, NH_LA_ORDER_NATURAL, &s) == NH_ERR_ARG && !s);
  int rows2[4] = {0, 2, 3, 4}, above[4] = {0, 1, 1, 2}; /* row 0 reaches column 1 */
  ENSURE(nh_la_spchol_analyze(3, rows2, above, NH_LA_ORDER_NATURAL, &s) == NH_ERR_ARG && !s);
  int rows3[4] = {0, 1, 2, 5}, unsorted[5] = {0, 1, 1, 0, 2};
  ENSURE(nh_la_spchol_analyze(3, rows3, unsorted, NH_LA_ORDER_NATURAL, &s) == NH_ERR_ARG && !s);
  ENSURE(nh_la_spchol_analyze(0, rows, nodiag, NH_LA_ORDER_NATURAL, &s) == NH_ERR_ARG && !s);
  /* [[1, 2], [2, 1]] (indefinite) and [[1, 1], [1, 1]] (singular): the second pivot fails */
  int r[3] = {0, 1, 3}, c[3] = {0, 0, 1};
  double indef[3] = {1.0, 2.0, 1.0}, sing[3] = {1.0, 1.0, 1.0}, b[2] = {1.0, 1.0};
  ENSURE(nh_la_spchol_analyze(2, r, c, nh_la_spchol_have_amd(), &s) == NH_OK);
  double *work = calloc(nh_la_spchol_work_size(s), sizeof(double));
  int rank = -1;
  ENSURE(work && nh_la_spchol_factor(s, indef, 0.0, &rank, work) == NH_ERR_NOT_SPD && rank == 1);
  ENSURE(nh_la_spchol_factor(s, sing, 0.0, &rank, work) == NH_ERR_NOT_SPD && rank == 1);
  ENSURE(nh_la_spchol_factor(s, (double[3]){4.0, 2.0, 5.0}, 0.0, &rank, work) == NH_OK && rank == 2);
  nh_la_spchol_solve(s, work, b); /* [[4, 2], [2, 5]] x = (1, 1): x = (3/16, 1/8) */
  ENSURE_NEAR(b[0], 3.0 / 16.0, 1e-15);
  ENSURE_NEAR(b[1], 1.0 / 8.0, 1e-15);
  free(work);
  nh_la_spchol_free(s);
  nh_la_spchol_free(NULL);
  return 0;
}

/* the model of text on tapes (text freed) */
static nh_model *load(char *text) {
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  char msg[1024];
  nh_model *m = text ? nh_model_parse(text, "tree.nh", &o, msg, sizeof msg) : NULL;
  if (!m) printf("  %s\n", text ? msg : "out of memory");
  free(text);
  return m;
}

static int test_the_choice(void) {
  long entries = -1, env = -1;
  nh_model *tree = load(sleigh_tree_text(8, 4)), *chain = load(sleigh_chain_text(16));
  ENSURE(tree && chain && tree->nq == 99 && tree->nc == 65);
  const nh_multiplier_solver st = nh_model_multiplier_solver(tree, &entries, &env);
  printf("  tree of 8 chains of 4: envelope %ld, sparse factor %ld entries\n", env, tree->gram->lnz);
  if (nh_la_spchol_have_amd()) /* (else lnz is the fill in the natural order) */
    ENSURE(env > NH_SPARSE_FILL_RATIO * tree->gram->lnz && st == NH_SOLVE_SPARSE && entries == tree->gram->lnz);
  else
    ENSURE(st == NH_SOLVE_ENVELOPE && entries == env);
  ENSURE(nh_model_multiplier_solver(chain, &entries, &env) == NH_SOLVE_ENVELOPE);
  ENSURE(entries == 16 && env == 16 && chain->gram->lnz == 16 && !chain->gram->chol); /* G diagonal */
  nh_model_destroy(tree);
  nh_model_destroy(chain);
  char msg[512];
  nh_model *penny = nh_model_load(NHOLO_SOURCE_DIR "/examples/penny.nh", NULL, msg, sizeof msg);
  ENSURE(penny && nh_model_multiplier_solver(penny, &entries, &env) == NH_SOLVE_DENSE && entries == 0 && env == 0);
  nh_model_destroy(penny);
  ENSURE(nh_model_multiplier_solver(NULL, NULL, NULL) == NH_SOLVE_DENSE);
  return 0;
}

/* max |x - y| <= tol max |y| over n */
static int close_rel(int n, const double *x, const double *y, double tol) {
  double err = 0.0, scale = 0.0;
  for (int i = 0; i < n; i++) err = fmax(err, fabs(x[i] - y[i])), scale = fmax(scale, fabs(y[i]));
  return err <= tol * scale;
}

static int test_tree_accel_agrees(void) {
  nh_model *m = load(sleigh_tree_text(8, 4));
  ENSURE(m);
  if (!m->gram || !m->gram->chol) { /* built without CHOLMOD: nothing to compare */
    nh_model_destroy(m);
    return 0;
  }
  const int nq = m->nq, nc = m->nc;
  size_t ws = nh_dyn_work_size(m);
  double *w = calloc(3 * ws + 6 * (size_t)nq + 3 * (size_t)nc, sizeof(double));
  ENSURE(w);
  double *q = w + 3 * ws, *v = q + nq, *a[3] = {v + nq, v + 2 * nq, v + 3 * nq}, *l[3] = {v + 4 * nq, v + 4 * nq + nc, v + 4 * nq + 2 * nc};
  nh_dyn d[3]; /* sparse, envelope, dense */
  for (int k = 0; k < 3; k++) nh_dyn_init(&d[k], m, w + (size_t)k * ws);
  d[1].nosparse = 1, d[2].dense = 1;
  for (int trial = 0; trial < 4; trial++) {
    for (int i = 0; i < nq; i++) q[i] = m->q0[i] + (trial ? 0.5 * sin(1.3 * i + trial) : 0.0), v[i] = trial ? cos(0.7 * i - trial) : 0.0;
    for (int k = 0; k < 3; k++) ENSURE(nh_dyn_accel(&d[k], 0.0, q, v, a[k], l[k]) == NH_OK);
    ENSURE(d[0].mt.diag == 1);
    for (int k = 1; k < 3; k++) ENSURE(close_rel(nq, a[0], a[k], 1e-12) && close_rel(nc, l[0], l[k], 1e-12));
  }
  free(w);
  nh_model_destroy(m);
  return 0;
}

/* rk4 from the initial state to T: the final state into x (2 nq), the largest |E - E0| and
 * |A v| seen at the output times */
static int run_tree_with(const nh_model *m, const char *method, double *x, double *dE, double *res, long *steps) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = 1e-3;
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  if (!s) return NH_ERR_NOMEM;
  double E0, E, r;
  int rc = nh_model_energy(m, m->q0, m->v0, &E0);
  *dE = *res = 0.0;
  for (int k = 1; k <= 20 && rc == NH_OK; k++) {
    if ((rc = nh_sim_run(s, 0.1 * k, 0, NULL, NULL)) != NH_OK) break;
    const double *xs = nh_sim_x(s);
    if ((rc = nh_model_energy(m, xs, xs + m->nq, &E)) || (rc = nh_model_constraint_residual(m, xs, xs + m->nq, &r))) break;
    *dE = fmax(*dE, fabs(E - E0)), *res = fmax(*res, r);
    memcpy(x, xs, sizeof(double) * 2 * (size_t)m->nq);
  }
  if (steps) *steps = nh_sim_get_stats(s)->steps;
  nh_sim_destroy(s);
  return rc;
}
static int run_tree(const nh_model *m, double *x, double *dE, double *res) { return run_tree_with(m, "rk4", x, dE, res, NULL); }

static int test_tree_runs_agree(void) {
  nh_model *m = load(sleigh_tree_text(8, 4));
  ENSURE(m);
  const int nx = 2 * m->nq;
  double *x = malloc(sizeof(double) * 2 * (size_t)nx), dE[2], res[2];
  ENSURE(x);
  const struct nh_gram *g = m->gram;
  ENSURE(run_tree(m, x, &dE[0], &res[0]) == NH_OK);
  m->gram = NULL; /* the same model on the envelope (nh_dyn_work_size follows) */
  int rc = run_tree(m, x + nx, &dE[1], &res[1]);
  m->gram = g;
  ENSURE(rc == NH_OK);
  double err = 0.0, scale = 0.0;
  for (int i = 0; i < nx; i++) err = fmax(err, fabs(x[i] - x[nx + i])), scale = fmax(scale, fabs(x[nx + i]));
  printf("  rk4 to t = 2: max |x_sparse - x_envelope| = %.3g (max |x| %.3g); |dE| %.3g, %.3g; |A v| %.3g, %.3g\n",
         err, scale, dE[0], dE[1], res[0], res[1]);
  ENSURE(err <= 1e-12 * scale);
  for (int k = 0; k < 2; k++) ENSURE(dE[k] < 1e-11 && res[k] < 1e-11);
  double moved = 0.0;
  for (int i = 0; i < nx; i++) moved = fmax(moved, fabs(x[i] - m->x0[i]));
  ENSURE(moved > 1e-2); /* the springs moved it */
  free(x);
  nh_model_destroy(m);
  return 0;
}

/* gni, rattle and shake on the tree: their projector takes the model's sparse solve (G on its
 * pattern, factored in the fill-reducing order, no G^-1) and agrees with the dense projector
 * (the same model without its sparse analysis) to round-off; the nodal energy stays within
 * the methods' O(h^2) and the constraints hold */
static int test_tree_vi_methods_agree(void) {
  nh_model *m = load(sleigh_tree_text(8, 4));
  ENSURE(m);
  if (!m->gram || !m->gram->chol) { /* built without CHOLMOD */
    nh_model_destroy(m);
    return 0;
  }
  const int nx = 2 * m->nq;
  double *x = malloc(sizeof(double) * 2 * (size_t)nx), dE[2], res[2];
  ENSURE(x);
  const char *methods[3] = {"gni", "rattle", "shake"};
  for (int k = 0; k < 3; k++) {
    const struct nh_gram *g = m->gram;
    long steps[2];
    ENSURE(run_tree_with(m, methods[k], x, &dE[0], &res[0], &steps[0]) == NH_OK);
    m->gram = NULL; /* the dense projector (the work size follows) */
    int rc = run_tree_with(m, methods[k], x + nx, &dE[1], &res[1], &steps[1]);
    m->gram = g;
    ENSURE(rc == NH_OK && steps[0] == steps[1] && steps[0] == 2000);
    double err = 0.0, scale = 0.0;
    for (int i = 0; i < nx; i++) err = fmax(err, fabs(x[i] - x[nx + i])), scale = fmax(scale, fabs(x[nx + i]));
    printf("  %-6s to t = 2: max |x_sparse - x_dense| = %.3g (max |x| %.3g); |dE| %.3g, %.3g; |A v| %.3g, %.3g\n",
           methods[k], err, scale, dE[0], dE[1], res[0], res[1]);
    ENSURE(err <= 1e-12 * scale);
    ENSURE(dE[0] < 1e-5 && res[0] < 1e-12 && fabs(dE[0] - dE[1]) <= 1e-12 + 1e-9 * dE[1]);
  }
  free(x);
  nh_model_destroy(m);
  // a smaller tree, whose dynamics keep the envelope (its fill ratio is below
  // NH_SPARSE_FILL_RATIO): gni's projector still factors G on the analysis where its rows'
  // extents overlap, bit for bit the projector of the sparse choice
  nh_model *t = load(sleigh_tree_text(4, 4));
  ENSURE(t && t->gram && t->gram->an && !t->gram->chol);
  const int tx = 2 * t->nq;
  double *y = malloc(sizeof(double) * 2 * (size_t)tx);
  ENSURE(y);
  const struct nh_gram *kept = t->gram;
  struct nh_gram *forced = nh_gram_make(t, 0.0);
  ENSURE(forced && forced->chol);
  ENSURE(run_tree_with(t, "gni", y, &dE[0], &res[0], NULL) == NH_OK);
  t->gram = forced;
  int rc = run_tree_with(t, "gni", y + tx, &dE[1], &res[1], NULL);
  t->gram = kept;
  nh_gram_free(forced);
  ENSURE(rc == NH_OK);
  for (int i = 0; i < tx; i++) ENSURE(y[i] == y[tx + i]);
  free(y);
  nh_model_destroy(t);
  return 0;
}

/* an arrow: constraint 0 reads q_0, q_2, .., q_18 (A_00 = 0), constraint k = 1..9 reads
 * q_2k; unit masses. dep = 1: row 0 is the sum of the others (G singular). */
#define ARROW_NQ 20
#define ARROW_NC 10
static int arrow_mass(const double *q, double *M, void *user) {
  (void)q, (void)user;
  memset(M, 0, sizeof(double) * ARROW_NQ * ARROW_NQ);
  for (int i = 0; i < ARROW_NQ; i++) M[i * ARROW_NQ + i] = 1.0 + 0.25 * (i % 3);
  return 0;
}
static int arrow_constraint(const double *q, const double *v, double *A, double *Adv, void *user) {
  const int dep = *(const int *)user;
  (void)v;
  memset(A, 0, sizeof(double) * ARROW_NQ * ARROW_NC);
  for (int k = 0; k < ARROW_NC; k++) Adv[k] = 0.0;
  A[0] = dep ? 0.0 : 1.0 + 0.1 * q[0];
  for (int k = 1; k < ARROW_NC; k++) A[2 * k] = 1.0, A[k * ARROW_NQ + 2 * k] = 1.0;
  return 0;
}

static int test_singular_and_not_spd(void) {
  unsigned char mp[ARROW_NQ * ARROW_NQ] = {0}, cp[ARROW_NC * ARROW_NQ] = {0};
  for (int i = 0; i < ARROW_NQ; i++) mp[i * ARROW_NQ + i] = 1;
  for (int k = 0; k < ARROW_NC; k++) cp[2 * k] = 1, cp[k * ARROW_NQ + 2 * k] = 1;
  double a[ARROW_NQ], lam[ARROW_NC], q[ARROW_NQ] = {0}, v[ARROW_NQ] = {0};
  char msg[256], cnames[ARROW_NQ][8];
  const char *cn[ARROW_NQ];
  for (int i = 0; i < ARROW_NQ; i++) snprintf(cnames[i], sizeof cnames[i], "q%d", i), cn[i] = cnames[i];
  for (int dep = 0; dep < 2; dep++) {
    nh_model_def d = nh_model_def_default();
    d.nq = ARROW_NQ, d.nc = ARROW_NC, d.mass = arrow_mass, d.constraint = arrow_constraint;
    d.coord_names = cn, d.mass_constant = 1, d.mass_pattern = mp, d.constraint_pattern = cp;
    d.user = &dep, d.user_size = sizeof dep;
    nh_model *m = nh_model_create(&d, msg, sizeof msg);
    if (!m) printf("  %s\n", msg);
    ENSURE(m);
    long entries, env;
    const nh_multiplier_solver s = nh_model_multiplier_solver(m, &entries, &env);
    ENSURE(env == (long)ARROW_NC * (ARROW_NC + 1) / 2); /* G: an arrow, its hub first */
    ENSURE(nh_la_spchol_have_amd() ? s == NH_SOLVE_SPARSE && entries == 2 * ARROW_NC - 1 : s == NH_SOLVE_ENVELOPE);
    ENSURE(nh_model_accel(m, 0.0, q, v, a, lam, NULL) == (dep ? NH_ERR_SINGULAR : NH_OK));
    if (!dep) /* lambda = 0 at rest with no forces; a = 0 */
      for (int i = 0; i < ARROW_NQ; i++) ENSURE(a[i] == 0.0 && (i >= ARROW_NC || lam[i] == 0.0));
    nh_model_destroy(m);
  }
  /* a mass that is not positive definite: the model file is refused at load with its reason */
  char *text = sleigh_tree_text(8, 4);
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  const char *names[1] = {"m"};
  const double mval = -1.0;
  o.nset = 1, o.set_names = names, o.set_values = &mval;
  nh_model *bad = text ? nh_model_parse(text, "tree.nh", &o, msg, sizeof msg) : NULL;
  free(text);
  ENSURE(!bad && strstr(msg, "the mass matrix is not positive definite"));
  return 0;
}

int main(int argc, char **argv) {
  nh_test_filter = argc > 1 ? argv[1] : NULL;
  RUN_TEST(test_arrow_closed_forms_and_solve);
  RUN_TEST(test_bad_patterns_and_values);
  RUN_TEST(test_the_choice);
  RUN_TEST(test_tree_accel_agrees);
  RUN_TEST(test_tree_runs_agree);
  RUN_TEST(test_tree_vi_methods_agree);
  RUN_TEST(test_singular_and_not_spd);
  return TEST_SUMMARY();
}
