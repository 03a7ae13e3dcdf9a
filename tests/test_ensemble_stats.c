/* test_ensemble_stats.c - the ensemble's streaming statistics (src/ensemble/stats.c): the
 * reduction tree gives the same bits however the chunks are split over ranks; time statistics
 * and histogram quantiles; explicit members; the HDF5 output's failures leave nothing. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ensemble/ens_impl.h"
#include "harness.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

/* chunk c's members: 1 + c % 4 of them, state and samples from the stream (NaN after a member's
 * end for some) */
static void fill_leaf(ens_acc *a, long c) {
  ens_acc_leaf_reset(a);
  for (int j = 0; j <= c % 4; j++) {
    double xf[2], s[3 * 2];
    const uint64_t m = (uint64_t)(c * 8 + j);
    for (int i = 0; i < 2; i++) xf[i] = 1e3 + nh_ensemble_uniform(5, m, (uint64_t)i);
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < 2; i++)
        s[k * 2 + i] = k == 2 && j == 1 ? NAN : (double)k + nh_ensemble_uniform(6, m, (uint64_t)(k * 2 + i));
    ens_acc_add(a, xf, s);
  }
}

/* the leaves [lo, hi) into a, pushed as chunks */
static int run_range(ens_acc *a, long lo, long hi) {
  for (long c = lo; c < hi; c++) {
    fill_leaf(a, c);
    if (ens_acc_push(a, 0, c, a->leaf) != NH_OK) return 1;
  }
  return 0;
}

static int same_stats(const nh_ensemble_stats *x, const nh_ensemble_stats *y) {
  const size_t tk = (size_t)x->nt * (size_t)x->nstat;
  return x->ok == y->ok && memcmp(x->mean, y->mean, sizeof(double) * 4 * (size_t)x->nx) == 0 && x->nt == y->nt &&
         memcmp(x->t_n, y->t_n, sizeof(long) * (size_t)x->nt) == 0 &&
         memcmp(x->t_mean, y->t_mean, sizeof(double) * tk * (4 + NH_ENSEMBLE_NQ)) == 0;
}

static int stats_of(ens_acc *a, nh_ensemble_stats *st) {
  memset(st, 0, sizeof *st);
  st->nx = 2;
  st->mean = calloc(8, sizeof(double));
  if (!st->mean) return 1;
  st->var = st->mean + 2, st->min = st->var + 2, st->max = st->min + 2;
  return ens_acc_finish(a, st) != NH_OK;
}

/* C chunks split over three "ranks" at s1 <= s2: each rank's blocks pushed in order onto a fresh
 * stack (as ens_mpi_gather does on rank 0) give the bits of one process, for every split */
static int test_tree_splits(void) {
  const nh_ensemble_stat spec = {1, 0.0, 3.0, 30};
  for (long C = 1; C <= 23; C++) {
    ens_acc one;
    nh_ensemble_stats s1;
    ENSURE(ens_acc_init(&one, 2, 3, 1, &spec) == NH_OK && run_range(&one, 0, C) == 0 && stats_of(&one, &s1) == 0);
    for (long a = 0; a <= C; a++)
      for (long b = a; b <= C; b += 3) {
        ens_acc r[3], all;
        const long cut[4] = {0, a, b, C};
        ENSURE(ens_acc_init(&all, 2, 3, 1, &spec) == NH_OK);
        for (int k = 0; k < 3; k++) {
          ENSURE(ens_acc_init(&r[k], 2, 3, 1, &spec) == NH_OK && run_range(&r[k], cut[k], cut[k + 1]) == 0);
          for (int i = 0; i < r[k].depth; i++)
            ENSURE(ens_acc_push(&all, r[k].stack[i].level, r[k].stack[i].index, r[k].stack[i].p) == NH_OK);
          for (size_t i = 0; i < 3 * all.hblock; i++) all.hist[i] += r[k].hist[i];
        }
        nh_ensemble_stats s2;
        ENSURE(stats_of(&all, &s2) == 0);
        ENSURE(same_stats(&s1, &s2));
        nh_ensemble_stats_free(&s2);
        for (int k = 0; k < 3; k++) ens_acc_free(&r[k]);
        ens_acc_free(&all);
      }
    /* against two passes over the values: the tree's mean to round-off */
    double sum = 0.0, n = 0.0;
    long ended = 0; /* members without a sample at k = 2 (j = 1) */
    for (long c = 0; c < C; c++) {
      ended += c % 4 >= 1;
      for (int j = 0; j <= c % 4; j++) sum += 1e3 + nh_ensemble_uniform(5, (uint64_t)(c * 8 + j), 0), n += 1.0;
    }
    ENSURE(s1.ok == (long)n);
    ENSURE_NEAR(s1.mean[0], sum / n, 1e-12 * 1e3);
    ENSURE(s1.t_n[0] == (long)n && s1.t_n[1] == (long)n && s1.t_n[2] == (long)n - ended);
    nh_ensemble_stats_free(&s1);
    ens_acc_free(&one);
  }
  return 0;
}

/* a sleigh at rest: every sample of a member is its initial state, so the time statistics of x
 * at each sample are the final ones bit for bit, and the histogram's quantiles are within a bin
 * of the values' order statistics */
static int test_time_stats(void) {
  nh_sleigh_params p = nh_sleigh_params_default();
  ENSURE(nh_sleigh_set(&p, "v", 0.0) && nh_sleigh_set(&p, "omega", 0.0));
  nh_model *m = nh_sleigh_create(&p, NULL, 0);
  ENSURE(m != NULL);
  nh_ensemble_var v;
  char msg[256];
  ENSURE(nh_ensemble_parse_var("x=uniform:0:1", &v, msg, sizeof msg) == NH_OK);
  v.target = NH_VARY_STATE, v.index = nh_model_coord_index(m, "x");
  const nh_ensemble_stat spec = {v.index, 0.0, 1.0, 50};
  nh_ensemble_def d = {0};
  d.model = m, d.sim = nh_sim_def_default(), d.sim.method = nh_method_find("rk4");
  d.t_end = 1.0, d.nvar = 1, d.vars = &v, d.replicas = 1000, d.seed = 9;
  d.sample_dt = 0.25, d.nstat = 1, d.stats = &spec, d.chunk = 64;
  nh_ensemble_stats st;
  ENSURE(nh_ensemble_run_to(&d, NULL, &st, msg, sizeof msg) == NH_OK);
  ENSURE(st.nt == 5 && st.nstat == 1 && st.ok == 1000);
  double *x = malloc(sizeof(double) * 1000);
  ENSURE(x != NULL);
  for (long i = 0; i < 1000; i++) x[i] = nh_ensemble_value(&v, 1, 0, 1000, 9, i);
  for (long i = 1; i < 1000; i++) /* insertion sort: the order statistics */
    for (long j = i; j > 0 && x[j - 1] > x[j]; j--) {
      double t = x[j];
      x[j] = x[j - 1], x[j - 1] = t;
    }
  for (int k = 0; k < 5; k++) {
    ENSURE(st.t_n[k] == 1000);
    ENSURE(st.t_mean[k] == st.mean[v.index] && st.t_var[k] == st.var[v.index]);
    ENSURE(st.t_min[k] == x[0] && st.t_max[k] == x[999]);
    for (int q = 0; q < NH_ENSEMBLE_NQ; q++) {
      const double lev = nh_ensemble_q_level(q), lo = x[(long)(lev * 999)], hi = x[(long)(lev * 999) + 1];
      ENSURE(st.t_q[k * NH_ENSEMBLE_NQ + q] >= lo - 1.0 / 50 && st.t_q[k * NH_ENSEMBLE_NQ + q] <= hi + 1.0 / 50);
    }
  }
  nh_ensemble_stats_free(&st);
  /* bad definitions: a followed output that is not a component, statistics without a grid */
  nh_ensemble_stat bad = {9, 0.0, 1.0, 10};
  d.stats = &bad;
  ENSURE(nh_ensemble_run_to(&d, NULL, &st, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(strcmp(msg, "ensemble: output 0: state index 9 (0..5), bins 10 (1..100000)") == 0);
  d.stats = &spec, d.sample_dt = 0.0;
  ENSURE(nh_ensemble_run_to(&d, NULL, &st, msg, sizeof msg) == NH_ERR_ARG);
  free(x);
  nh_model_destroy(m);
  return 0;
}

/* explicit members: the table's rows, in order, whatever replicas says */
static int test_table(void) {
  nh_penny_params p = nh_penny_params_default();
  nh_model *m = nh_penny_create(&p, NULL, 0);
  nh_ensemble_var v[2];
  char msg[256];
  ENSURE(nh_ensemble_parse_var("x=uniform:0:1", &v[0], msg, sizeof msg) == NH_OK);
  ENSURE(nh_ensemble_parse_var("y=uniform:0:1", &v[1], msg, sizeof msg) == NH_OK);
  v[0].index = 0, v[1].index = 1;
  const double table[6] = {0.01, -0.02, 0.03, 0.0, -0.04, 0.05};
  nh_ensemble_def d = {0};
  d.model = m, d.sim = nh_sim_def_default(), d.sim.method = nh_method_find("exact");
  d.t_end = 1.0, d.nvar = 2, d.vars = v, d.replicas = 77, d.table = table, d.table_rows = 3;
  nh_ensemble_stats st;
  ENSURE(nh_ensemble_run_to(&d, NULL, &st, msg, sizeof msg) == NH_OK);
  ENSURE(st.members == 3 && st.ok == 3);
  nh_ensemble_stats_free(&st);
  const char *path = "test_ensemble_table.csv";
  ENSURE(nh_ensemble_run(&d, path, &st, msg, sizeof msg) == NH_OK);
  FILE *f = fopen(path, "r");
  char line[512];
  double a, b;
  long mem;
  ENSURE(f && fgets(line, sizeof line, f));
  for (int r = 0; r < 3; r++) {
    ENSURE(fgets(line, sizeof line, f) && sscanf(line, "%ld,%lf,%lf", &mem, &a, &b) == 3);
    ENSURE(mem == r && a == table[2 * r] && b == table[2 * r + 1]);
  }
  fclose(f);
  remove(path);
  nh_ensemble_stats_free(&st);
  d.table_rows = 0;
  ENSURE(nh_ensemble_run_to(&d, NULL, &st, msg, sizeof msg) == NH_ERR_ARG);
  nh_model_destroy(m);
  return 0;
}

/* HDF5: written through a temporary renamed into place; a path that cannot be written fails
 * with nothing left; trajectories need a grid; without the impact log the file is smaller by
 * at least the log's doubles (10 members x 3 impacts x (8 + 3 nq) doubles) */
static int test_h5_files(void) {
  if (!nh_ensemble_hdf5()) return 0;
  nh_penny_params p = nh_penny_params_default();
  nh_model *m = nh_penny_create(&p, NULL, 0);
  nh_ensemble_var v;
  char msg[256], tmp[64];
  ENSURE(nh_ensemble_parse_var("x=uniform:0:0.01", &v, msg, sizeof msg) == NH_OK);
  v.index = 0;
  nh_ensemble_def d = {0};
  d.model = m, d.sim = nh_sim_def_default(), d.sim.method = nh_method_find("exact");
  d.t_end = 5.0, d.max_impacts = 3, d.nvar = 1, d.vars = &v, d.replicas = 10, d.sample_dt = 1.0;
  nh_ensemble_out out = {"test_ensemble.h5", NH_ENSEMBLE_HDF5, 1, "penny", "exact", 0};
  struct stat sb;
  remove(out.path);
  ENSURE(nh_ensemble_run_to(&d, &out, NULL, msg, sizeof msg) == NH_OK);
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", out.path, (long)getpid());
  ENSURE(stat(out.path, &sb) == 0 && sb.st_size > 1000 && stat(tmp, &sb) != 0);
  const long with_log = (long)sb.st_size, log_bytes = 10L * 3L * (8L + 3L * m->nq) * 8L;
  remove(out.path);
  out.no_impact_log = 1;
  ENSURE(nh_ensemble_run_to(&d, &out, NULL, msg, sizeof msg) == NH_OK);
  ENSURE(stat(out.path, &sb) == 0 && sb.st_size > 1000 && (long)sb.st_size <= with_log - log_bytes);
  remove(out.path);
  out.no_impact_log = 0;
  out.path = "no-such-dir/test_ensemble.h5";
  ENSURE(nh_ensemble_run_to(&d, &out, NULL, msg, sizeof msg) == NH_ERR_IO);
  ENSURE(strstr(msg, "ensemble: cannot create the HDF5 file 'no-such-dir/test_ensemble.h5.tmp") == msg);
  out.path = "test_ensemble.h5", d.sample_dt = 0.0;
  ENSURE(nh_ensemble_run_to(&d, &out, NULL, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(strcmp(msg, "ensemble: trajectories need a sample interval") == 0 && stat(out.path, &sb) != 0);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_tree_splits);
  RUN_TEST(test_time_stats);
  RUN_TEST(test_table);
  RUN_TEST(test_h5_files);
  return TEST_SUMMARY();
}
