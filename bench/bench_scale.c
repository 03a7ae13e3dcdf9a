/* bench_scale.c - how nholo scales with the size of a model: a chain of N Chaplygin sleighs
 * joined by springs (bench/sleigh_chain.h; 3N coordinates, N rolling constraints, constant
 * M), generated here for each N. For each N it prints
 *   - the first load with generated C (read, derive, check, generate, compile: wall seconds,
 *     with an empty cache) and the size of the generated C,
 *   - the load on tapes (no compiler),
 *   - ns per step of rk4, dopri5, gni and rattle through the driver (CPU time, a short run),
 * then the ratios against the smallest N of the run and the growth exponents fitted from
 * N = 8 up (log-log least squares of the cost against N).
 * Targets (issue 18): N = 32 loaded and compiled in under 10 s, N = 128 in under 60 s, any
 * size on tapes in under 1 s; from N = 8 to 128 the cost per step grows no faster than N^1.3.
 * Usage: bench_scale [N ...]  (default 1 2 4 8 16 32 64 128)
 *
 * bench_scale --tree [K ...] (default 4 6 8 11): a hub sleigh towing K chains of K trailers
 * (bench/sleigh_tree.h; 1 + K^2 sleighs), whose constraint coupling is a tree: the entries of
 * G's envelope in the constraints' order and of its sparse factor, the solve the model chose,
 * and ns per step of rk4 and dopri5 with each solve forced (through the model's private
 * analysis, here only; the sparse one needs CHOLMOD), with their growth exponents. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "lang/mf.h"
#include "model/model_impl.h"
#include "sleigh_chain.h"
#include "sleigh_tree.h"
#include "nholo/nholo.h"

#define MAX_SIZES 16
#define N_METHODS 4
static const char *const methods[N_METHODS] = {"rk4", "dopri5", "gni", "rattle"};
/* CPU seconds spent per method and size (at least one chunk of steps) */
#define RUN_BUDGET 0.3
/* fixed step of rk4, gni and rattle */
#define STEP 1e-3
/* longest run from the initial state (s) */
#define RUN_T 2.0

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* remove the files of dir and dir itself */
static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char path[4096];
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      remove(path);
    }
  closedir(d);
  rmdir(dir);
}

/* the model of text on a back end (cache dir Nullable); *secs: wall time of the load */
static nh_model *load(const char *text, nh_backend backend, const char *cache, double *secs) {
  nh_load_opts o = nh_load_opts_default();
  o.backend = backend;
  o.cache_dir = cache;
  char msg[2048];
  double t0 = wall_now();
  nh_model *m = nh_model_parse(text, "chain.nh", &o, msg, sizeof msg);
  *secs = wall_now() - t0;
  if (!m) fprintf(stderr, "bench_scale: %s\n", msg);
  return m;
}

/* bytes of the generated C of text (0 when it does not prepare) */
static double c_size(const char *text) {
  mf *m = calloc(1, sizeof *m);
  char msg[512];
  double size = 0;
  if (m && mf_prepare(m, text, "chain.nh", NULL, msg, sizeof msg) == NH_OK) {
    char *src = mf_codegen_source(m);
    if (src) size = (double)strlen(src);
    free(src);
  }
  if (m) mf_free(m);
  free(m);
  return size;
}

/* ns per step of method on m: runs from the initial state to at most RUN_T (in doubling
 * chunks, each timed), repeated until RUN_BUDGET CPU seconds have passed */
static double ns_per_step(const nh_model *m, const char *method) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  if (!d.method || nh_method_supports(d.method, m) != NH_OK) return NAN;
  d.h = STEP;
  double cpu = 0.0;
  long steps = 0;
  int rc = NH_OK;
  while (cpu < RUN_BUDGET && rc == NH_OK) {
    nh_sim *s = nh_sim_create(m, &d, NULL, 0);
    if (!s) return NAN;
    for (double t = 0.0, chunk = 8 * STEP; t < RUN_T && cpu < RUN_BUDGET && rc == NH_OK; chunk *= 2) {
      t = fmin(t + chunk, RUN_T);
      double t0 = bench_now();
      rc = nh_sim_run(s, t, 0, NULL, NULL);
      cpu += bench_now() - t0;
    }
    steps += nh_sim_get_stats(s)->steps;
    nh_sim_destroy(s);
  }
  if (rc != NH_OK) fprintf(stderr, "bench_scale: %s: %s\n", method, nh_status_name(rc));
  return rc == NH_OK && steps > 0 ? 1e9 * cpu / (double)steps : NAN;
}

/* slope of log y against log x over the rows with x >= x0 and y finite */
static double exponent(int n, const double *x, const double *y, double x0) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (x[i] < x0 || !(y[i] > 0) || !isfinite(y[i])) continue;
    double lx = log(x[i]), ly = log(y[i]);
    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly, k++;
  }
  if (k < 2) return NAN;
  return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

/* the tree benchmark (see the top) */
static int tree_main(int argc, char **argv) {
  int ks[MAX_SIZES] = {4, 6, 8, 11}, nk = 4;
  if (argc > 2) {
    nk = 0;
    for (int i = 2; i < argc && nk < MAX_SIZES; i++) ks[nk++] = atoi(argv[i]) > 0 ? atoi(argv[i]) : 1;
  }
  double x[MAX_SIZES], step[2 * N_METHODS][MAX_SIZES]; /* each method sparse, then each without it */
  printf("a hub sleigh towing K chains of K trailers (1 + K^2 sleighs, a tree coupling)\n");
  printf("%4s %6s %5s %5s %8s %8s", "K", "sleighs", "nq", "nc", "envelope", "L");
  for (int r = 0; r < 2 * N_METHODS; r++) printf(" %9s%s", methods[r % N_METHODS], r < N_METHODS ? " sp" : " ns");
  printf("  (ns/step; sp: the sparse solve forced, ns: without it; chosen)\n");
  for (int i = 0; i < nk; i++) {
    const int k = ks[i];
    x[i] = 1 + k * k;
    char *text = sleigh_tree_text(k, k);
    char cache[] = "/tmp/nholo-bench-tree-XXXXXX";
    double secs;
    if (!text || !mkdtemp(cache)) return 1;
    nh_model *m = load(text, NH_BACKEND_CODEGEN, cache, &secs);
    if (!m) return 1;
    long entries = 0, env = 0;
    const nh_multiplier_solver chosen = nh_model_multiplier_solver(m, &entries, &env);
    const long lnz = m->gram ? m->gram->lnz : 0;
    /* each solve forced, through the model's private field (here only): the sparse one by an
     * analysis taken at any fill ratio, the envelope by none */
    const struct nh_gram *chosen_gram = m->gram;
    struct nh_gram *sparse = nh_gram_make(m, 0.0);
    m->gram = sparse && sparse->chol ? sparse : NULL;
    for (int r = 0; r < N_METHODS; r++) step[r][i] = m->gram ? ns_per_step(m, methods[r]) : NAN;
    m->gram = NULL; /* rk4, dopri5: the envelope; gni, rattle: the dense projector where rows overlap */
    for (int r = 0; r < N_METHODS; r++) step[N_METHODS + r][i] = ns_per_step(m, methods[r]);
    m->gram = chosen_gram;
    nh_gram_free(sparse);
    printf("%4d %6.0f %5d %5d %8ld %8ld", k, x[i], m->nq, m->nc, env, lnz);
    for (int r = 0; r < 2 * N_METHODS; r++) printf(" %12.0f", step[r][i]);
    printf("  %s\n", chosen == NH_SOLVE_SPARSE ? "sparse" : chosen == NH_SOLVE_ENVELOPE ? "envelope" : "dense");
    fflush(stdout);
    nh_model_destroy(m);
    remove_dir(cache);
    free(text);
  }
  printf("\ngrowth exponent in the sleighs from K = %d up (sparse, without):", ks[0]);
  for (int r = 0; r < N_METHODS; r++)
    printf(" %s %.2f, %.2f;", methods[r], exponent(nk, x, step[r], x[0]), exponent(nk, x, step[N_METHODS + r], x[0]));
  printf("\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--tree") == 0) return tree_main(argc, argv);
  int sizes[MAX_SIZES] = {1, 2, 4, 8, 16, 32, 64, 128}, ns = 8;
  if (argc > 1) {
    ns = 0;
    for (int i = 1; i < argc && ns < MAX_SIZES; i++) sizes[ns++] = atoi(argv[i]);
  }
  double x[MAX_SIZES], check[MAX_SIZES], tape[MAX_SIZES], csize[MAX_SIZES], step[N_METHODS][MAX_SIZES];
  printf("chain of N Chaplygin sleighs joined by springs (3N coordinates, N constraints)\n");
  printf("%5s %5s %10s %10s %10s", "N", "nq", "check (s)", "C (KB)", "tape (s)");
  for (int k = 0; k < N_METHODS; k++) printf(" %10s", methods[k]);
  printf("   (ns/step)\n");
  for (int i = 0; i < ns; i++) {
    int n = sizes[i] > 0 ? sizes[i] : 1;
    x[i] = n;
    char *text = sleigh_chain_text(n);
    char cache[] = "/tmp/nholo-bench-scale-XXXXXX";
    if (!text || !mkdtemp(cache)) return 1;
    nh_model *mc = load(text, NH_BACKEND_CODEGEN, cache, &check[i]);
    nh_model *mt = load(text, NH_BACKEND_TAPE, NULL, &tape[i]);
    csize[i] = c_size(text);
    for (int k = 0; k < N_METHODS; k++) step[k][i] = mc ? ns_per_step(mc, methods[k]) : NAN;
    if (!mc) check[i] = NAN;
    if (!mt) tape[i] = NAN;
    printf("%5d %5d %10.3f %10.1f %10.4f", n, 3 * n, check[i], csize[i] / 1024.0, tape[i]);
    for (int k = 0; k < N_METHODS; k++) printf(" %10.0f", step[k][i]);
    printf("\n");
    fflush(stdout);
    nh_model_destroy(mc);
    nh_model_destroy(mt);
    remove_dir(cache);
    free(text);
  }
  printf("\nratio to N = %d (same run):\n", sizes[0]);
  for (int i = 0; i < ns; i++) {
    printf("%5d %5d %10.1f %10.1f %10.1f", sizes[i], 3 * sizes[i], check[i] / check[0], csize[i] / csize[0], tape[i] / tape[0]);
    for (int k = 0; k < N_METHODS; k++) printf(" %10.1f", step[k][i] / step[k][0]);
    printf("\n");
  }
  printf("\ngrowth exponent in N from N = 8 up (target <= 1.3 per step):\n  check %.2f, C size %.2f, tape %.2f",
         exponent(ns, x, check, 8), exponent(ns, x, csize, 8), exponent(ns, x, tape, 8));
  for (int k = 0; k < N_METHODS; k++) printf(", %s %.2f", methods[k], exponent(ns, x, step[k], 8));
  printf("\n");
  return 0;
}
