/* test_stream.c - outputs written as the run goes (nholo/io.h: nh_csv_stream, nh_traj_thin)
 * and the bounded logs of a simulation (nh_sim_def.log_limit): the streamed CSVs are byte for
 * byte those of the in-memory writers, the logs and the plot record stay within their bounds,
 * and a run's peak memory does not grow with its length. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "nholo/io.h"
#include "nholo/modelfile.h"
#include "nholo/systems.h"
#include "nholo/systems/all.h"

/* a run of 10x the steps (and rows) may raise the peak resident memory by at most this much
 * (kB): the FILE buffer and allocator noise, far below the 36 MB that the 9e5 more samples
 * would take if held (>= 40 bytes each), and below 9e5 steps' worth of any allocation kept per
 * step (>= 16 bytes) */
#define RSS_SLACK_KB 1024L

static char g_dir[512];

static const char *out_path(const char *name) {
  static char buf[4][1024];
  static int slot;
  char *p = buf[slot++ % 4];
  snprintf(p, sizeof buf[0], "%s/%s", g_dir, name);
  return p;
}

/* the whole file, NUL-terminated (malloc'ed), its length in *n; NULL when unreadable */
static char *slurp(const char *path, long *n) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  fseek(fp, 0, SEEK_END);
  *n = ftell(fp);
  rewind(fp);
  char *buf = malloc((size_t)*n + 1);
  if (buf && fread(buf, 1, (size_t)*n, fp) != (size_t)*n) free(buf), buf = NULL;
  if (buf) buf[*n] = '\0';
  fclose(fp);
  return buf;
}

static int same_file(const char *a, const char *b, long *bytes) {
  long na = -1, nb = -2;
  char *x = slurp(a, &na), *y = slurp(b, &nb);
  int same = x && y && na == nb && memcmp(x, y, (size_t)na) == 0;
  *bytes = na;
  free(x), free(y);
  return same;
}

static long count_lines(const char *path) {
  long n = 0, len;
  char *s = slurp(path, &len);
  for (long k = 0; s && k < len; k++) n += s[k] == '\n';
  free(s);
  return n;
}

static nh_model *make_sleigh(void) {
  char msg[256];
  nh_sleigh_params p = nh_sleigh_params_default();
  return nh_sleigh_create(&p, msg, sizeof msg);
}

/* a run's trajectory and impact log through both streams at once */
typedef struct two_streams {
  nh_csv_stream traj, impacts;
} two_streams;

static int both_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q, const double *v,
                         void *user) {
  two_streams *s = user;
  nh_csv_stream_observer(sim, kind, t, q, v, &s->traj);
  return nh_csv_stream_observer(sim, kind, t, q, v, &s->impacts);
}

/* one run of model with method, written in memory then in a stream; the files must agree */
static int compare_run(nh_model *m, const char *method, double h, double out_dt, double t_end, long impacts,
                       long *rows, long *nimpacts) {
  char msg[512] = "";
  nh_sim_def def = nh_sim_def_default();
  def.method = nh_method_find(method);
  def.h = h;
  def.out_dt = out_dt;
  nh_sim *a = nh_sim_create(m, &def, msg, sizeof msg), *b = nh_sim_create(m, &def, msg, sizeof msg);
  ENSURE(a && b);
  nh_traj *tr = nh_traj_create(m->form == NH_FORM_ODE ? m->nx : m->nq);
  ENSURE(tr != NULL);
  int sa = nh_sim_run(a, t_end, impacts, nh_traj_observer, tr);
  ENSURE(nh_write_traj_csv(out_path("mem.csv"), m, tr, msg, sizeof msg) == NH_OK);
  ENSURE(nh_write_impacts_csv(out_path("mem_imp.csv"), a, msg, sizeof msg) == NH_OK);
  two_streams s;
  ENSURE(nh_csv_stream_open(&s.traj, NH_CSV_TRAJECTORY, out_path("str.csv"), m, msg, sizeof msg) == NH_OK);
  ENSURE(nh_csv_stream_open(&s.impacts, NH_CSV_IMPACTS, out_path("str_imp.csv"), m, msg, sizeof msg) == NH_OK);
  int sb = nh_sim_run(b, t_end, impacts, both_observer, &s);
  ENSURE(sa == sb);
  ENSURE(nh_csv_stream_commit(&s.traj, msg, sizeof msg) == NH_OK);
  ENSURE(nh_csv_stream_commit(&s.impacts, msg, sizeof msg) == NH_OK);
  long bytes;
  ENSURE(same_file(out_path("mem.csv"), out_path("str.csv"), &bytes));
  ENSURE(same_file(out_path("mem_imp.csv"), out_path("str_imp.csv"), &bytes));
  *rows = count_lines(out_path("str.csv")) - 1;
  *nimpacts = count_lines(out_path("str_imp.csv")) - 1;
  ENSURE(*rows == tr->n);
  ENSURE(*nimpacts == nh_sim_get_stats(b)->impacts);
  nh_traj_destroy(tr);
  nh_sim_destroy(a), nh_sim_destroy(b);
  return 0;
}

/* the streamed CSVs are byte-identical to nh_write_traj_csv/nh_write_impacts_csv: impacts,
 * dense samples, a last step landing on t_end (END not repeated), an ODE-form model */
static int test_stream_identity(void) {
  char msg[256];
  nh_penny_params pp = nh_penny_params_default();
  nh_model *penny = nh_penny_create(&pp, msg, sizeof msg);
  nh_model *qap = nh_builtin_create("quartic-ap", msg, sizeof msg);
  nh_model *sleigh = make_sleigh();
  ENSURE(penny && qap && sleigh);
  long rows, imp;
  ENSURE(compare_run(penny, "rk4", 0.01, 0.0, 100.0, 12, &rows, &imp) == 0);
  ENSURE(imp == 12 && rows > 100);
  ENSURE(compare_run(penny, "exact", 1e-3, 0.01, 100.0, 7, &rows, &imp) == 0);
  ENSURE(imp == 7 && rows > 100);
  ENSURE(compare_run(penny, "dopri5", 1e-3, 0.0, 3.0, 0, &rows, &imp) == 0);
  ENSURE(rows > 10);
  ENSURE(compare_run(qap, "avf", 0.05, 0.0, 2.0, 0, &rows, &imp) == 0);
  ENSURE(rows == 42 && imp == 0); /* START, 40 steps, END (the ODE form's END is always written) */
  ENSURE(compare_run(sleigh, "gni", 0.05, 0.0, 2.0, 0, &rows, &imp) == 0);
  ENSURE(rows == 41); /* START and 40 steps: the END repeats the last step */
  nh_model_destroy(penny), nh_model_destroy(qap), nh_model_destroy(sleigh);
  return 0;
}

/* a failed stream leaves nothing at its path; abort removes the temporary */
static int test_stream_abort(void) {
  char msg[256] = "";
  nh_model *m = make_sleigh();
  ENSURE(m != NULL);
  nh_csv_stream cs;
  const char *path = out_path("aborted.csv");
  ENSURE(nh_csv_stream_open(&cs, NH_CSV_TRAJECTORY, path, m, msg, sizeof msg) == NH_OK);
  double q[3] = {0}, v[3] = {0};
  nh_csv_stream_observer(NULL, NH_SAMPLE_START, 0.0, q, v, &cs);
  nh_csv_stream_abort(&cs);
  ENSURE(access(path, F_OK) != 0);
  ENSURE(nh_csv_stream_open(&cs, 7, path, m, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(nh_csv_stream_open(&cs, NH_CSV_TRAJECTORY, out_path("no/such/dir.csv"), m, msg, sizeof msg) == NH_ERR_IO);
  ENSURE(strstr(msg, "cannot write") != NULL);
  nh_model_destroy(m);
  return 0;
}

/* The outcomes CSV (--outcomes): streamed byte for byte as nh_write_outcomes_csv writes it,
 * one row per outcome of each enumerated simultaneous impact, numbered with the impact log's
 * index (a cradle of four with a wall on the left: the enumerated impact at t = 0, then the
 * wall and the balls again); an aborted stream leaves nothing. */
static int test_stream_outcomes(void) {
  char msg[1024] = "";
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  nh_model *m = nh_model_parse("model cradle4w\ncoordinates x1 x2 x3 x4\n"
                               "kinetic 1/2*(x1'^2 + 2*x2'^2 + 3*x3'^2 + 1.5*x4'^2)\n"
                               "gap wall: x1 + 0.5 impact elastic\ngap g12: x2 - x1 - 1 impact elastic\n"
                               "gap g23: x3 - x2 - 1 impact elastic\ngap g34: x4 - x3 - 1 impact elastic\n"
                               "initial x1 = 0, x2 = 1, x3 = 2, x4 = 3, x1' = 2, x2' = 1, x4' = -1\n",
                               "cradle4w.nh", &lo, msg, sizeof msg);
  ENSURE(m != NULL);
  nh_sim_def def = nh_sim_def_default();
  def.method = nh_method_find("dopri5");
  def.simul_order = NH_SIMUL_ENUMERATE;
  nh_sim *a = nh_sim_create(m, &def, msg, sizeof msg), *b = nh_sim_create(m, &def, msg, sizeof msg);
  ENSURE(a && b);
  ENSURE(nh_sim_run(a, 5.0, 0, NULL, NULL) == NH_OK);
  ENSURE(nh_write_outcomes_csv(out_path("mem_out.csv"), a, msg, sizeof msg) == NH_OK);
  nh_csv_stream cs;
  ENSURE(nh_csv_stream_open(&cs, NH_CSV_OUTCOMES, out_path("str_out.csv"), m, msg, sizeof msg) == NH_OK);
  ENSURE(nh_sim_run(b, 5.0, 0, nh_csv_stream_observer, &cs) == NH_OK);
  ENSURE(nh_csv_stream_commit(&cs, msg, sizeof msg) == NH_OK);
  long bytes, want = 0, nsim = 0;
  ENSURE(same_file(out_path("mem_out.csv"), out_path("str_out.csv"), &bytes));
  nh_impact_record r;
  for (long k = 0; k < nh_sim_impact_count(b); k++) {
    ENSURE(nh_sim_impact_get(b, k, &r) == NH_OK);
    want += r.outcomes;
    nsim += r.contacts >= 2;
    ENSURE(r.contacts >= 2 ? r.outcomes >= 1 : r.outcomes == 0);
  }
  ENSURE(nh_sim_impact_count(b) > 2 && nsim >= 1 && want >= 7);
  ENSURE(count_lines(out_path("str_out.csv")) == want + 1 && cs.rows == want);
  ENSURE(cs.impacts == nh_sim_impact_count(b));
  /* the header names the coordinates and every gap's impulse */
  long n;
  char *text = slurp(out_path("str_out.csv"), &n);
  ENSURE(text && strncmp(text, "index,t,outcome,outcomes,truncated,followed,reflections,sequence,x1_dot,x2_dot,"
                               "x3_dot,x4_dot,impulse_wall,impulse_g12,impulse_g23,impulse_g34\n0,0,0,7,0,1,", 140) == 0);
  free(text);
  /* aborted: nothing left */
  ENSURE(nh_csv_stream_open(&cs, NH_CSV_OUTCOMES, out_path("aborted_out.csv"), m, msg, sizeof msg) == NH_OK);
  nh_sim_destroy(a);
  a = nh_sim_create(m, &def, msg, sizeof msg);
  ENSURE(a && nh_sim_run(a, 1.0, 0, nh_csv_stream_observer, &cs) == NH_OK && cs.rows == 7);
  nh_csv_stream_abort(&cs);
  ENSURE(access(out_path("aborted_out.csv"), F_OK) != 0);
  remove(out_path("mem_out.csv")), remove(out_path("str_out.csv"));
  nh_sim_destroy(a), nh_sim_destroy(b);
  nh_model_destroy(m);
  return 0;
}

/* log_limit: the first limit - 1 impacts and the latest are kept, the counts stay exact */
static int test_log_limit(void) {
  char msg[256] = "";
  nh_penny_params pp = nh_penny_params_default();
  nh_model *m = nh_penny_create(&pp, msg, sizeof msg);
  ENSURE(m != NULL);
  nh_sim_def def = nh_sim_def_default();
  nh_sim *full = nh_sim_create(m, &def, msg, sizeof msg);
  def.log_limit = 3;
  nh_sim *cut = nh_sim_create(m, &def, msg, sizeof msg);
  ENSURE(full && cut);
  ENSURE(nh_sim_run(full, 100.0, 40, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_run(cut, 100.0, 40, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_impact_count(full) == 40 && nh_sim_impact_count(cut) == 3);
  ENSURE(nh_sim_get_stats(cut)->impacts == 40);
  nh_impact_record a, b;
  for (long k = 0; k < 3; k++) {
    ENSURE(nh_sim_impact_get(cut, k, &b) == NH_OK);
    ENSURE(nh_sim_impact_get(full, k < 2 ? k : 39, &a) == NH_OK);
    ENSURE(a.t == b.t && a.gap == b.gap && a.q[0] == b.q[0] && a.v_after[1] == b.v_after[1]);
  }
  def.log_limit = -1;
  ENSURE(nh_sim_create(m, &def, msg, sizeof msg) == NULL);
  ENSURE(strstr(msg, "log_limit = -1 must be >= 0") != NULL);
  nh_sim_destroy(full), nh_sim_destroy(cut);
  nh_model_destroy(m);
  return 0;
}

/* nh_traj_thin: at most max samples, spread over the whole run, START and END kept */
static int test_traj_thin(void) {
  char msg[256] = "";
  nh_model *m = make_sleigh();
  ENSURE(m != NULL);
  nh_sim_def def = nh_sim_def_default();
  def.method = nh_method_find("rk4");
  def.h = 1e-3;
  nh_sim *sim = nh_sim_create(m, &def, msg, sizeof msg);
  ENSURE(sim != NULL);
  nh_traj_thin th = {nh_traj_create(m->nq), 1000, 1, 0};
  ENSURE(th.traj != NULL);
  ENSURE(nh_sim_run(sim, 100.0, 0, nh_traj_thin_observer, &th) == NH_OK); /* 1e5 steps */
  const nh_traj *tr = th.traj;
  ENSURE(tr->n <= 1000 && tr->n >= 250);
  ENSURE(tr->kind[0] == NH_SAMPLE_START && tr->t[0] == 0.0);
  ENSURE(fabs(tr->t[tr->n - 1] - 100.0) < 1e-9);
  double gap = 0.0;
  for (long k = 1; k < tr->n; k++) {
    ENSURE(tr->t[k] > tr->t[k - 1]);
    gap = fmax(gap, tr->t[k] - tr->t[k - 1]);
  }
  ENSURE(gap <= 4.0 * 100.0 / (double)tr->n); /* evenly spread: no hole */
  nh_traj_destroy(th.traj);
  nh_sim_destroy(sim);
  nh_model_destroy(m);
  return 0;
}

/* the peak resident memory (kB), or -1 where /proc/self/status has none */
static long peak_kb(void) {
  FILE *fp = fopen("/proc/self/status", "r");
  if (!fp) return -1;
  char line[256];
  long kb = -1;
  while (fgets(line, sizeof line, fp))
    if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
  fclose(fp);
  return kb;
}

/* a streamed run of `steps` rk4 steps of the sleigh into /dev/null, a dense sample (a row) at
 * every step: out_dt = h, so the rows grow with the run as fast as the steps do */
static int streamed_run(const nh_model *m, long steps) {
  char msg[256] = "";
  nh_sim_def def = nh_sim_def_default();
  def.method = nh_method_find("rk4");
  def.h = 1e-3;
  def.out_dt = 1e-3;
  def.log_limit = 100;
  nh_sim *sim = nh_sim_create(m, &def, msg, sizeof msg);
  ENSURE(sim != NULL);
  nh_csv_stream cs;
  ENSURE(nh_csv_stream_open(&cs, NH_CSV_TRAJECTORY, "/dev/null", m, msg, sizeof msg) == NH_OK);
  ENSURE(nh_sim_run(sim, 1e-3 * (double)steps, 0, nh_csv_stream_observer, &cs) == NH_OK);
  ENSURE(cs.rows >= steps - 1);
  ENSURE(nh_csv_stream_commit(&cs, msg, sizeof msg) == NH_OK);
  ENSURE(nh_sim_get_stats(sim)->steps >= steps);
  nh_sim_destroy(sim);
  return 0;
}

/* 1e5 and 1e6 steps (and rows), streamed: the peak memory stays flat */
static int test_stream_memory_flat(void) {
  if (access("/dev/null", W_OK) != 0 || peak_kb() < 0) {
    SKIP("no /proc/self/status or /dev/null to measure the peak memory");
  }
  nh_model *m = make_sleigh();
  ENSURE(m != NULL);
  ENSURE(streamed_run(m, 100000L) == 0);
  long p1 = peak_kb();
  ENSURE(streamed_run(m, 1000000L) == 0);
  long p2 = peak_kb();
  printf("  peak resident memory: %ld kB after 1e5 steps, %ld kB after 1e6 (slack %ld kB)\n", p1, p2, RSS_SLACK_KB);
  ENSURE(p2 - p1 <= RSS_SLACK_KB);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  const char *tmp = getenv("TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s/nholo-stream-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  if (!mkdtemp(g_dir)) {
    perror("mkdtemp");
    return 1;
  }
  RUN_TEST(test_stream_identity);
  RUN_TEST(test_stream_abort);
  RUN_TEST(test_stream_outcomes);
  RUN_TEST(test_log_limit);
  RUN_TEST(test_traj_thin);
  RUN_TEST(test_stream_memory_flat);
  const char *names[] = {"mem.csv", "mem_imp.csv", "str.csv", "str_imp.csv"};
  for (int i = 0; i < 4; i++) remove(out_path(names[i]));
  rmdir(g_dir);
  return TEST_SUMMARY();
}
