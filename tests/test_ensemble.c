/* test_ensemble.c - ensembles (nholo/ensemble.h): the counter-based stream, the variables'
 * parsing and grids, determinism over 1, 2 and 3 threads, statistics of a penny ensemble, and no
 * allocation per member (hence none per step). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "nholo/ensemble.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

/* the same (seed, member, draw) gives the same bits in any order; neighbours differ */
static int test_stream(void) {
  uint64_t fwd[64], rev[64];
  for (int m = 0; m < 64; m++) fwd[m] = nh_ensemble_bits(42, (uint64_t)m, 3);
  for (int m = 63; m >= 0; m--) rev[m] = nh_ensemble_bits(42, (uint64_t)m, 3);
  for (int m = 0; m < 64; m++) ENSURE(fwd[m] == rev[m]);
  for (int m = 1; m < 64; m++) ENSURE(fwd[m] != fwd[m - 1]);
  ENSURE(nh_ensemble_bits(42, 5, 3) != nh_ensemble_bits(43, 5, 3));
  ENSURE(nh_ensemble_bits(42, 5, 3) != nh_ensemble_bits(42, 5, 4));
  ENSURE(nh_ensemble_bits(0, 0, 0) == nh_ensemble_bits(0, 0, 0));
  /* the definition written out: f(f(f(s) ^ m) ^ d) with splitmix64's finaliser */
  uint64_t z = 0x9E3779B97F4A7C15ull; /* splitmix(0) */
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  ENSURE(z == 0xE220A8397B1DCDAFull); /* the first output of splitmix64 seeded with 0 */
  /* uniform draws: mean and variance of 1/12 over 100000 draws, within 4 standard errors */
  double s = 0, s2 = 0;
  const int n = 100000;
  for (int m = 0; m < n; m++) {
    double u = nh_ensemble_uniform(7, (uint64_t)m, 0);
    ENSURE(u >= 0.0 && u < 1.0);
    s += u, s2 += u * u;
  }
  ENSURE_NEAR(s / n, 0.5, 4 * sqrt(1.0 / 12 / n));
  ENSURE_NEAR(s2 / n - (s / n) * (s / n), 1.0 / 12, 4e-3);
  return 0;
}

static int test_parse(void) {
  nh_ensemble_var v;
  char msg[256];
  ENSURE(nh_ensemble_parse_var("x=uniform:-1:2", &v, msg, sizeof msg) == NH_OK);
  ENSURE(strcmp(v.name, "x") == 0 && v.kind == NH_DIST_UNIFORM && v.a == -1 && v.b == 2);
  ENSURE(nh_ensemble_parse_var("phi'=normal:10:0.5", &v, msg, sizeof msg) == NH_OK);
  ENSURE(strcmp(v.name, "phi'") == 0 && v.kind == NH_DIST_NORMAL && v.a == 10 && v.b == 0.5);
  ENSURE(nh_ensemble_parse_var("a=grid:0:1:5", &v, msg, sizeof msg) == NH_OK && v.k == 5);
  ENSURE(nh_ensemble_parse_var("a=grid:0:1:0", &v, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(strcmp(msg, "'a=grid:0:1:0': grid:A:B:K needs a whole K from 1 to 100000000") == 0);
  ENSURE(nh_ensemble_parse_var("a=uniform:1:1", &v, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(strcmp(msg, "'a=uniform:1:1': uniform:A:B needs B > A") == 0);
  ENSURE(nh_ensemble_parse_var("a=normal:0:-1", &v, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(nh_ensemble_parse_var("a=uniform:1", &v, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(strcmp(msg, "'a=uniform:1': uniform takes A:B (finite numbers separated by ':')") == 0);
  ENSURE(nh_ensemble_parse_var("a=uniform:1:2:3", &v, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(nh_ensemble_parse_var("a=uniform:1:nan", &v, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(nh_ensemble_parse_var("a=beta:1:2", &v, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(strstr(msg, "unknown distribution") != NULL);
  ENSURE(nh_ensemble_parse_var("=uniform:1:2", &v, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(nh_ensemble_parse_var("uniform:1:2", &v, msg, sizeof msg) == NH_ERR_ARG);
  return 0;
}

/* two grids form a product, the last fastest, values exact; replicas repeat a point */
static int test_grid(void) {
  nh_ensemble_var v[3];
  char msg[256];
  ENSURE(nh_ensemble_parse_var("a=grid:0:1:5", &v[0], msg, sizeof msg) == NH_OK);
  ENSURE(nh_ensemble_parse_var("r=uniform:0:1", &v[1], msg, sizeof msg) == NH_OK);
  ENSURE(nh_ensemble_parse_var("b=grid:-3:3:3", &v[2], msg, sizeof msg) == NH_OK);
  ENSURE(nh_ensemble_count(v, 3, 2) == 30);
  const double as[5] = {0, 0.25, 0.5, 0.75, 1}, bs[3] = {-3, 0, 3};
  for (long m = 0; m < 30; m++) {
    long point = m / 2;
    ENSURE(nh_ensemble_value(v, 3, 0, 2, 9, m) == as[point / 3]);
    ENSURE(nh_ensemble_value(v, 3, 2, 2, 9, m) == bs[point % 3]);
    ENSURE(nh_ensemble_value(v, 3, 1, 2, 9, m) == nh_ensemble_uniform(9, (uint64_t)m, 2));
  }
  ENSURE(nh_ensemble_parse_var("c=grid:0.1:0.7:7", &v[0], msg, sizeof msg) == NH_OK);
  ENSURE(nh_ensemble_value(v, 1, 0, 1, 0, 0) == 0.1 && nh_ensemble_value(v, 1, 0, 1, 0, 6) == 0.7);
  return 0;
}

/* read a whole file */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = calloc((size_t)n + 1, 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) b[0] = 0;
  fclose(f);
  return b;
}

/* a penny ensemble varying the position in the state: 100 members, 20 impacts each */
static nh_ensemble_def penny_def(nh_model *m, nh_ensemble_var *v) {
  char msg[256];
  nh_ensemble_parse_var("x=uniform:-0.05:0.05", &v[0], msg, sizeof msg);
  nh_ensemble_parse_var("y=normal:0:0.02", &v[1], msg, sizeof msg);
  v[0].index = nh_model_coord_index(m, "x"), v[1].index = nh_model_coord_index(m, "y");
  nh_ensemble_def d = {0};
  d.model = m;
  d.sim = nh_sim_def_default();
  d.sim.method = nh_method_find("exact");
  d.t_end = 1e6, d.max_impacts = 20;
  d.nvar = 2, d.vars = v, d.replicas = 100, d.seed = 2024;
  return d;
}

static int test_penny_threads(void) {
  nh_penny_params p = nh_penny_params_default();
  nh_model *m = nh_penny_create(&p, NULL, 0);
  nh_ensemble_var v[2];
  nh_ensemble_def d = penny_def(m, v);
  char msg[512];
  const char *f1 = "test_ensemble_1.csv", *f2 = "test_ensemble_2.csv";
  nh_ensemble_stats s1, s2;
  d.threads = 1;
  ENSURE(nh_ensemble_run(&d, f1, &s1, msg, sizeof msg) == NH_OK);
  d.threads = 2;
  ENSURE(nh_ensemble_run(&d, f2, &s2, msg, sizeof msg) == NH_OK);
  char *a = slurp(f1), *b = slurp(f2);
  ENSURE(a && b && strlen(a) > 1000 && strcmp(a, b) == 0);
  ENSURE(strncmp(a, "member,x,y,status,impacts,t_end,final_x,final_y,final_theta,final_phi,final_x_dot,final_y_dot,"
                    "final_theta_dot,final_phi_dot\n0,", 122) == 0);
  ENSURE(s1.members == 100 && s1.ok == 100 && s1.failed == 0 && s2.threads == (nh_ensemble_parallel() ? 2 : 1));
  for (int k = 0; k < s1.nx; k++)
    ENSURE(s1.mean[k] == s2.mean[k] && s1.var[k] == s2.var[k] && s1.min[k] == s2.min[k] && s1.max[k] == s2.max[k]);
  /* every member made its 20 impacts; the statistics agree with the rows (two-pass) and the
   * energy 1/2 (m (x'^2 + y'^2) + I theta'^2 + J phi'^2) is that of the initial state */
  double sum[8] = {0}, sq[8] = {0};
  int rows = 0;
  char *line = strchr(a, '\n') + 1;
  for (; *line; line = strchr(line, '\n') + 1, rows++) {
    long mem, imp;
    char st[32];
    double xs[2], t, x[8];
    ENSURE(sscanf(line, "%ld,%lf,%lf,%31[^,],%ld,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &mem, &xs[0], &xs[1], st, &imp, &t,
                  &x[0], &x[1], &x[2], &x[3], &x[4], &x[5], &x[6], &x[7]) == 14);
    ENSURE(mem == rows && imp == 20 && strcmp(st, "NH_OK") == 0);
    ENSURE(xs[0] == nh_ensemble_value(v, 2, 0, 100, 2024, mem));
    for (int k = 0; k < 8; k++) sum[k] += x[k];
    double E = 0.5 * (p.m * (x[4] * x[4] + x[5] * x[5]) + p.I * x[6] * x[6] + p.J * x[7] * x[7]);
    double E0 = 0.5 * (p.m * (m->v0[0] * m->v0[0] + m->v0[1] * m->v0[1]) + p.I * m->v0[2] * m->v0[2] + p.J * m->v0[3] * m->v0[3]);
    ENSURE_REL(E, E0, 1e-12);
  }
  ENSURE(rows == 100);
  line = strchr(a, '\n') + 1;
  for (; *line; line = strchr(line, '\n') + 1) {
    double x[8], d0;
    long l0;
    char st[32];
    sscanf(line, "%ld,%lf,%lf,%31[^,],%ld,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &l0, &d0, &d0, st, &l0, &d0, &x[0], &x[1], &x[2],
           &x[3], &x[4], &x[5], &x[6], &x[7]);
    for (int k = 0; k < 8; k++) sq[k] += (x[k] - sum[k] / 100) * (x[k] - sum[k] / 100);
  }
  for (int k = 0; k < 8; k++) {
    ENSURE_NEAR(s1.mean[k], sum[k] / 100, 1e-12 * (1 + fabs(sum[k] / 100)));
    ENSURE_NEAR(s1.var[k], sq[k] / 99, 1e-10 * (1 + sq[k] / 99));
  }
  ENSURE(s1.var[0] > 0.0 && s1.min[0] < s1.mean[0] && s1.mean[0] < s1.max[0]);
  free(a), free(b);
  remove(f1), remove(f2);
  nh_ensemble_stats_free(&s1), nh_ensemble_stats_free(&s2);
  nh_model_destroy(m);
  return 0;
}

/* a pendulum against a wall, evaluated on the tape (per-thread scratch in the evaluators) */
static const char *const PENDULUM = "model pendulum_wall\ncoordinates theta\nparameter g = 9.81\n"
                                    "parameter e = 0.8\nkinetic 1/2*theta'^2\npotential -g*cos(theta)\n"
                                    "gap wall: sin(theta) + 0.3   impact restitution e\n"
                                    "initial theta = 1, theta' = 0\n";

/* the member's pendulum of its restitution e (values[1]), parsed on the thread that runs it */
static int build_pendulum(const double *values, nh_model **model, char *msg, size_t size, void *user) {
  (void)user;
  nh_load_opts o = nh_load_opts_default();
  const char *const names[1] = {"e"};
  o.backend = NH_BACKEND_TAPE, o.nset = 1, o.set_names = names, o.set_values = &values[1];
  *model = nh_model_parse(PENDULUM, "pendulum", &o, msg, size);
  return *model ? 0 : NH_ERR_ARG;
}

/* the arrays of two runs' statistics hold the same bits */
static int same_stats(const nh_ensemble_stats *a, const nh_ensemble_stats *b) {
  const size_t nx = sizeof(double) * (size_t)a->nx, nk = (size_t)a->nt * (size_t)a->nstat;
  return a->members == b->members && a->ok == b->ok && a->nx == b->nx && a->nt == b->nt && a->nstat == b->nstat &&
         !memcmp(a->mean, b->mean, nx) && !memcmp(a->var, b->var, nx) && !memcmp(a->min, b->min, nx) &&
         !memcmp(a->max, b->max, nx) && !memcmp(a->t_n, b->t_n, sizeof(long) * (size_t)a->nt) &&
         !memcmp(a->t_mean, b->t_mean, sizeof(double) * nk) && !memcmp(a->t_var, b->t_var, sizeof(double) * nk) &&
         !memcmp(a->t_min, b->t_min, sizeof(double) * nk) && !memcmp(a->t_max, b->t_max, sizeof(double) * nk) &&
         !memcmp(a->t_q, b->t_q, sizeof(double) * nk * NH_ENSEMBLE_NQ);
}

/* 1, 2 and 3 threads give the same CSV byte for byte and the same statistics bit for bit: a
 * tape model shared by the threads (its state varied) and one parsed per member (its
 * restitution varied), sampled on a grid with histograms, in chunks of 50 members (not a
 * multiple of the threads' grain: new threads for each chunk) */
static int test_threads_identical(void) {
  char msg[2048];
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  nh_model *m = nh_model_parse(PENDULUM, "pendulum", &o, msg, sizeof msg);
  ENSURE(m);
  nh_ensemble_var v[2];
  ENSURE(nh_ensemble_parse_var("theta=uniform:0.5:1.5", &v[0], msg, sizeof msg) == NH_OK);
  ENSURE(nh_ensemble_parse_var("e=uniform:0.5:0.95", &v[1], msg, sizeof msg) == NH_OK);
  v[0].target = NH_VARY_STATE, v[0].index = nh_model_coord_index(m, "theta");
  v[1].target = NH_VARY_PARAM;
  const nh_ensemble_stat spec[2] = {{0, -2.0, 2.0, 40}, {1, 0.0, 0.0, 0}}; /* theta (histogram), theta' */
  for (int with_build = 0; with_build < 2; with_build++) {
    nh_ensemble_def d = {0};
    d.model = m, d.sim = nh_sim_def_default();
    d.t_end = 6.0, d.nvar = 1 + with_build, d.vars = v, d.replicas = 300, d.seed = 11;
    d.build = with_build ? build_pendulum : NULL;
    d.sample_dt = 0.5, d.nstat = 2, d.stats = spec, d.chunk = 50;
    const char *const files[3] = {"test_ensemble_t1.csv", "test_ensemble_t2.csv", "test_ensemble_t3.csv"};
    nh_ensemble_stats s[3];
    char *text[3];
    for (int k = 0; k < 3; k++) {
      d.threads = k + 1;
      ENSURE(nh_ensemble_run(&d, files[k], &s[k], msg, sizeof msg) == NH_OK);
      ENSURE(s[k].threads == k + 1 && s[k].members == 300 && s[k].ok == 300 && s[k].nt == 13);
      ENSURE((text[k] = slurp(files[k])) != NULL);
      remove(files[k]);
    }
    ENSURE(strlen(text[0]) > 300 * 40);
    for (int k = 1; k < 3; k++) ENSURE(strcmp(text[0], text[k]) == 0 && same_stats(&s[0], &s[k]));
    /* the members differ (the draws reached them) and every one reached t_end */
    ENSURE(s[0].var[0] > 0.0 && s[0].t_n[12] == 300);
    for (int k = 0; k < 3; k++) free(text[k]), nh_ensemble_stats_free(&s[k]);
  }
  nh_model_destroy(m);
  return 0;
}

/* a member that fails records its status; the others go on */
static int test_member_failure(void) {
  nh_penny_params p = nh_penny_params_default();
  nh_model *m = nh_penny_create(&p, NULL, 0);
  nh_ensemble_var v[2];
  nh_ensemble_def d = penny_def(m, v);
  char msg[256];
  ENSURE(nh_ensemble_parse_var("x=uniform:-0.05:5", &v[0], msg, sizeof msg) == NH_OK); /* mostly off the table */
  v[0].index = 0;
  d.nvar = 1;
  nh_ensemble_stats s;
  ENSURE(nh_ensemble_run(&d, NULL, &s, msg, sizeof msg) == NH_OK);
  ENSURE(s.members == 100 && s.failed > 50 && s.ok > 0 && s.ok + s.failed == 100 && s.drifted == 0);
  nh_ensemble_stats_free(&s);
  /* every member off the table: no statistics (NaN), not zeros */
  ENSURE(nh_ensemble_parse_var("x=uniform:4:5", &v[0], msg, sizeof msg) == NH_OK);
  v[0].index = 0;
  ENSURE(nh_ensemble_run(&d, NULL, &s, msg, sizeof msg) == NH_OK);
  ENSURE(s.members == 100 && s.ok == 0 && s.failed == 100);
  for (int k = 0; k < s.nx; k++) ENSURE(isnan(s.mean[k]) && isnan(s.var[k]) && isnan(s.min[k]) && isnan(s.max[k]));
  nh_ensemble_stats_free(&s);
  /* a parameter without a build callback, a state index out of range */
  v[0].target = NH_VARY_PARAM;
  ENSURE(nh_ensemble_run(&d, NULL, &s, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(strcmp(msg, "ensemble: 'x' is a parameter and no build callback is given") == 0);
  v[0].target = NH_VARY_STATE, v[0].index = 8;
  ENSURE(nh_ensemble_run(&d, NULL, &s, msg, sizeof msg) == NH_ERR_ARG);
  nh_model_destroy(m);
  return 0;
}

/* a sleigh of the member's omega (the ensemble's build callback) */
static int build_sleigh(const double *values, nh_model **model, char *msg, size_t size, void *user) {
  (void)user;
  nh_sleigh_params p = nh_sleigh_params_default();
  p.omega0 = values[0];
  *model = nh_sleigh_create(&p, msg, size);
  return *model ? 0 : NH_ERR_ARG;
}

/* NH_DRIFT completes a member: gni with the paper's start (the period-2 mode) on the sleigh at
 * h = 0.05 to t = 5 leaves its regime for omega >= 0.9 (nodal energy drift 0.027 at omega = 1),
 * not below. Such members are ok, counted as drifted, and their final states (those of a
 * single run, bit for bit) are in the statistics: min and max over all eight members. */
static int test_drifted_members(void) {
  nh_sleigh_params p = nh_sleigh_params_default();
  nh_model *m = nh_sleigh_create(&p, NULL, 0);
  ENSURE(m);
  char msg[256];
  nh_ensemble_var v[1];
  ENSURE(nh_ensemble_parse_var("omega=grid:0.1:2:8", &v[0], msg, sizeof msg) == NH_OK);
  v[0].target = NH_VARY_PARAM;
  nh_ensemble_def d = {0};
  d.model = m, d.sim = nh_sim_def_default(), d.sim.method = nh_method_find("gni"), d.sim.h = 0.05;
  d.sim.opts.variant = NH_VARIANT_PAPER, d.sim.opts.start = NH_START_PAPER;
  d.t_end = 5.0, d.nvar = 1, d.vars = v, d.replicas = 1, d.seed = 1, d.threads = 2, d.build = build_sleigh;
  nh_ensemble_stats s;
  ENSURE(nh_ensemble_run(&d, NULL, &s, msg, sizeof msg) == NH_OK);
  ENSURE(s.members == 8 && s.ok == 8 && s.failed == 0 && s.drifted == 5);
  /* each member alone: its status and final state; the statistics' extremes are over all */
  double lo[6], hi[6];
  int drifted = 0;
  for (long k = 0; k < 8; k++) {
    double omega = nh_ensemble_value(v, 1, 0, 1, 1, k);
    nh_model *mk = NULL;
    ENSURE(build_sleigh(&omega, &mk, msg, sizeof msg, NULL) == 0);
    nh_sim *sim = nh_sim_create(mk, &d.sim, msg, sizeof msg);
    ENSURE(sim);
    const int rc = nh_sim_run(sim, d.t_end, 0, NULL, NULL);
    ENSURE(rc == (k >= 3 ? NH_DRIFT : NH_OK));
    drifted += rc == NH_DRIFT;
    const double *x = nh_sim_x(sim);
    for (int i = 0; i < 6; i++) {
      lo[i] = k == 0 || x[i] < lo[i] ? x[i] : lo[i];
      hi[i] = k == 0 || x[i] > hi[i] ? x[i] : hi[i];
    }
    nh_sim_destroy(sim);
    nh_model_destroy(mk);
  }
  ENSURE(drifted == 5 && s.nx == 6);
  for (int i = 0; i < 6; i++) ENSURE(s.min[i] == lo[i] && s.max[i] == hi[i] && isfinite(s.mean[i]));
  nh_ensemble_stats_free(&s);
  /* the same members with rk4 (which claims to conserve nothing): none drifts */
  d.sim.method = nh_method_find("rk4");
  ENSURE(nh_ensemble_run(&d, NULL, &s, msg, sizeof msg) == NH_OK);
  ENSURE(s.members == 8 && s.ok == 8 && s.failed == 0 && s.drifted == 0);
  nh_ensemble_stats_free(&s);
  nh_model_destroy(m);
  return 0;
}

/* ---- the library's allocations (linked with --wrap=malloc,calloc,realloc: NH_TEST_WRAP_MALLOC) */
#ifdef NH_TEST_WRAP_MALLOC
static long n_alloc;
void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n) { return n_alloc++, __real_malloc(n); }
void *__wrap_calloc(size_t k, size_t n) { return n_alloc++, __real_calloc(k, n); }
void *__wrap_realloc(void *p, size_t n) { return n_alloc++, __real_realloc(p, n); }

/* the allocations of one run of n members on one thread */
static long allocations(nh_ensemble_def *d, long n) {
  char msg[256];
  nh_ensemble_stats st;
  d->replicas = n, d->threads = 1;
  const long before = n_alloc;
  const int rc = nh_ensemble_run(d, NULL, &st, msg, sizeof msg);
  const long count = n_alloc - before;
  nh_ensemble_stats_free(&st);
  return rc == NH_OK && st.ok == n ? count : -1;
}
#endif

/* one model shared, one simulation per thread: the library allocates as much for 500 members
 * as for 50 (the penny's 20 impacts each with the exact flow; the sleigh with dopri5 to t = 5,
 * about 100 steps each), so nothing per member and nothing per step */
static int test_no_allocation_per_member(void) {
#ifdef NH_TEST_WRAP_MALLOC
  nh_penny_params p = nh_penny_params_default();
  nh_model *m = nh_penny_create(&p, NULL, 0);
  nh_ensemble_var v[2];
  nh_ensemble_def d = penny_def(m, v);
  const long a50 = allocations(&d, 50), a500 = allocations(&d, 500);
  ENSURE(a50 > 0 && a500 == a50);
  nh_model_destroy(m);
  nh_sleigh_params sp = nh_sleigh_params_default();
  m = nh_sleigh_create(&sp, NULL, 0);
  ENSURE(m);
  char msg[256];
  ENSURE(nh_ensemble_parse_var("x=uniform:-1:1", &v[0], msg, sizeof msg) == NH_OK);
  v[0].index = nh_model_coord_index(m, "x");
  nh_ensemble_def e = {0};
  e.model = m, e.sim = nh_sim_def_default(), e.sim.method = nh_method_find("dopri5");
  e.t_end = 5.0, e.nvar = 1, e.vars = v, e.seed = 3;
  const long b50 = allocations(&e, 50), b500 = allocations(&e, 500);
  ENSURE(b50 > 0 && b500 == b50);
  nh_model_destroy(m);
#else
  printf("     (not checked: the test was not linked with --wrap=malloc)\n");
#endif
  return 0;
}

int main(int argc, char **argv) {
  nh_test_filter = argc > 1 ? argv[1] : NULL;
  RUN_TEST(test_stream);
  RUN_TEST(test_parse);
  RUN_TEST(test_grid);
  RUN_TEST(test_penny_threads);
  RUN_TEST(test_threads_identical);
  RUN_TEST(test_member_failure);
  RUN_TEST(test_drifted_members);
  RUN_TEST(test_no_allocation_per_member);
  return TEST_SUMMARY();
}
