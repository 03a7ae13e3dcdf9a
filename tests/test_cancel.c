/* test_cancel.c - the caller's cancellation flag and the C compiler's budget.
 *
 * The flag (nh_sim_def.cancel, the ensemble's sim.cancel, nh_lyap_def.cancel,
 * nh_load_opts.cancel) is set here as the CLI's signal handler sets it: from an asynchronous
 * signal (a one-shot SIGALRM timer), or at a known point (an observer, an evaluator). A run
 * with the flag clear gives the numbers of a run without one, bit for bit, on each loop of the
 * driver; set, a run stops at its next step (a plain run within NH_CANCEL_STEPS steps) with
 * NH_INTERRUPTED and a state it reached; an ensemble stops every thread's member and keeps the
 * members that started; an estimate of the Lyapunov exponent keeps its windows; a compile is
 * killed with its files. The compiler's budget (cc_time_limit, cc_memory_limit) sends a model
 * the compiler chokes on (a chain of 32 pendulums: a dense trigonometric M) to the tape with a
 * note, fails NH_BACKEND_CODEGEN, is remembered in the cache, and leaves no process behind. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "nholo/nholo.h"

/* a stop on an asynchronous flag must come this soon after it (s): a member or a window that
 * went on ignoring it would take many seconds */
#define STOP_LATENCY 2.0
/* the compiler's time limit of the budget tests (s), and the slack of the load around it: the
 * generation of the C before and the tape after, on a loaded machine */
#define CC_LIMIT 1.0
#define CC_SLACK 30.0

static volatile sig_atomic_t flag;
static double t_alarm; /* when the timer set the flag (s, now_s) */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void on_alarm(int sig) {
  (void)sig;
  flag = 1;
}

/* the flag set by SIGALRM after ms milliseconds (t_alarm: then) */
static void arm(long ms) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  flag = 0;
  struct itimerval it = {{0, 0}, {ms / 1000, (ms % 1000) * 1000}};
  t_alarm = now_s() + 1e-3 * (double)ms;
  setitimer(ITIMER_REAL, &it, NULL);
}

static void disarm(void) {
  struct itimerval it = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &it, NULL);
}

/* ---- the driver ------------------------------------------------------------------------------- */

/* a run of model by method over t_end with dt, with or without a (clear) flag: its final state
 * and statistics */
static int run_once(nh_model *m, const char *method, double dt, double t_end, const volatile sig_atomic_t *cancel,
                    double *x, nh_sim_stats *st) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method), d.h = dt, d.cancel = cancel;
  char msg[256];
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  if (!s) return printf("  %s: %s\n", method, msg), -1;
  int rc = nh_sim_run(s, t_end, 0, NULL, NULL);
  memcpy(x, nh_sim_x(s), sizeof(double) * (size_t)m->nx);
  *st = *nh_sim_get_stats(s);
  nh_sim_destroy(s);
  return rc;
}

/* A clear flag changes nothing: the plain loop with the method's own run of steps (gni on the
 * sleigh), the plain loop (rk4), the general loop (rk4 on the penny, its impacts), each over
 * many batches of NH_CANCEL_STEPS, give the state and statistics of a run without a flag. */
static int test_clear_flag_same_numbers(void) {
  static const struct {
    const char *model, *method;
    double dt, t_end;
  } runs[] = {{"sleigh", "gni", 1e-3, 20.0}, {"sleigh", "rk4", 1e-3, 20.0}, {"penny", "rk4", 1e-3, 20.0}};
  volatile sig_atomic_t clear = 0;
  for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
    char msg[256];
    nh_model *m = nh_builtin_load(runs[k].model, NULL, msg, sizeof msg);
    ENSURE(m);
    double xa[16], xb[16];
    nh_sim_stats a, b;
    ENSURE(run_once(m, runs[k].method, runs[k].dt, runs[k].t_end, NULL, xa, &a) == NH_OK);
    ENSURE(run_once(m, runs[k].method, runs[k].dt, runs[k].t_end, &clear, xb, &b) == NH_OK);
    ENSURE(memcmp(xa, xb, sizeof(double) * (size_t)m->nx) == 0);
    ENSURE(a.steps == b.steps && a.steps > 4 * NH_CANCEL_STEPS && a.evals == b.evals && a.impacts == b.impacts);
    ENSURE(memcmp(&a.max_energy_rel_error, &b.max_energy_rel_error, sizeof(double)) == 0);
    ENSURE(memcmp(&a.energy, &b.energy, sizeof(double)) == 0);
    printf("  %s %s: %ld steps, the same bits with a clear flag\n", runs[k].model, runs[k].method, a.steps);
    nh_model_destroy(m);
  }
  return 0;
}

/* an ODE-form oscillator whose right-hand side sets the flag at evaluation `at` */
static long rhs_calls, rhs_at;
static int osc_rhs(double t, const double *x, double *xdot, void *user) {
  (void)t, (void)user;
  if (++rhs_calls == rhs_at) flag = 1;
  xdot[0] = x[1], xdot[1] = -x[0];
  return 0;
}

/* A plain run (fixed step, no events, no observer) reads the flag every NH_CANCEL_STEPS steps:
 * set in the middle of step k it stops after at most k + NH_CANCEL_STEPS + 1 steps, at the
 * state of its last step (the same bits as a run of that many steps); set before the run it
 * takes no step. */
static int test_plain_run_stops(void) {
  static const double x0[2] = {1.0, 0.0};
  nh_model_def d = nh_model_def_default();
  d.name = "oscillator", d.form = NH_FORM_ODE, d.nx = 2, d.x0 = x0, d.rhs = osc_rhs;
  char msg[256];
  nh_model *m = nh_model_create(&d, msg, sizeof msg);
  ENSURE(m);
  const long k = 5000; /* rk4: 4 evaluations a step */
  double x[2], y[2];
  nh_sim_stats st, st2;
  flag = 0, rhs_calls = 0, rhs_at = 4 * k - 2;
  ENSURE(run_once(m, "rk4", 1e-3, 1e6, &flag, x, &st) == NH_INTERRUPTED);
  ENSURE(st.steps >= k && st.steps <= k + NH_CANCEL_STEPS + 1);
  // the same number of steps without a flag: the same state
  flag = 0, rhs_calls = 0, rhs_at = -1;
  ENSURE(run_once(m, "rk4", 1e-3, 1e-3 * (double)st.steps, NULL, y, &st2) == NH_OK && st2.steps == st.steps);
  ENSURE_NEAR(x[0], y[0], 1e-12);
  ENSURE_NEAR(x[1], y[1], 1e-12);
  printf("  flag set in step %ld: stopped after %ld steps (NH_CANCEL_STEPS %d)\n", k, st.steps, NH_CANCEL_STEPS);
  // set before: no step, the initial state, the message says where
  nh_sim_def sd = nh_sim_def_default();
  sd.method = nh_method_find("rk4"), sd.cancel = &flag;
  nh_sim *s = nh_sim_create(m, &sd, msg, sizeof msg);
  ENSURE(s);
  flag = 1, rhs_at = -1;
  ENSURE(nh_sim_run(s, 10.0, 0, NULL, NULL) == NH_INTERRUPTED);
  ENSURE(nh_sim_get_stats(s)->steps == 0 && nh_sim_time(s) == 0.0 && nh_sim_x(s)[0] == 1.0);
  ENSURE(strcmp(nh_sim_message(s), "interrupted at t = 0") == 0);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  flag = 0;
  return 0;
}

/* the observer that sets the flag at its sample `at` (counting them in user) */
typedef struct obs_count {
  long n, at, ends;
  double t_end_sample;
} obs_count;
static int set_at(const nh_sim *s, nh_sample_kind kind, double t, const double *q, const double *v, void *user) {
  (void)s, (void)q, (void)v;
  obs_count *c = user;
  if (kind == NH_SAMPLE_END) c->ends++, c->t_end_sample = t;
  if (kind == NH_SAMPLE_STEP && ++c->n == c->at) flag = 1;
  return 0;
}

/* The general loop (the penny's gaps) reads the flag before every step: set at the end of step
 * k it stops there, k steps, its END sample shown; then a timer's flag stops a long run of the
 * plain loop with the method's own run of steps (gni) within STOP_LATENCY. */
static int test_step_and_async_stop(void) {
  char msg[256];
  nh_model *m = nh_builtin_load("penny", NULL, msg, sizeof msg);
  ENSURE(m);
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("rk4"), d.h = 1e-3, d.cancel = &flag;
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  ENSURE(s);
  obs_count c = {0, 777, 0, NAN};
  flag = 0;
  ENSURE(nh_sim_run(s, 100.0, 0, set_at, &c) == NH_INTERRUPTED);
  ENSURE(nh_sim_get_stats(s)->steps == 777 && c.ends == 1 && c.t_end_sample == nh_sim_time(s));
  ENSURE_NEAR(nh_sim_time(s), 0.777, 1e-12);
  nh_sim_destroy(s);
  nh_model_destroy(m);

  nh_model *sl = nh_builtin_load("sleigh", NULL, msg, sizeof msg);
  ENSURE(sl);
  double x[6];
  nh_sim_stats st;
  arm(200);
  ENSURE(run_once(sl, "gni", 1e-6, 1e9, &flag, x, &st) == NH_INTERRUPTED);
  const double late = now_s() - t_alarm;
  disarm();
  ENSURE(late < STOP_LATENCY && st.steps > 0 && isfinite(x[0]));
  printf("  gni on the sleigh: stopped %.2g s after the timer's flag, after %ld steps\n", late, st.steps);
  nh_model_destroy(sl);
  flag = 0;
  return 0;
}

/* ---- the ensemble ------------------------------------------------------------------------------ */

/* the rows of a CSV after its header, and those whose status column (the column after the
 * variables: `status_col`) is NH_INTERRUPTED; -1 when unreadable or a row lacks its newline */
static long csv_rows(const char *path, int status_col, long *interrupted) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[4096];
  long rows = -1;
  *interrupted = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[strlen(line) - 1] != '\n') return fclose(f), -1;
    rows++;
    const char *p = line;
    for (int c = 0; c < status_col && p; c++) p = strchr(p, ','), p = p ? p + 1 : NULL;
    if (rows > 0 && p && strncmp(p, "NH_INTERRUPTED,", 15) == 0) (*interrupted)++;
  }
  fclose(f);
  return rows;
}

/* Two threads, members that each run for hours (the threads take 16 at a time: members 0 and
 * 16 run together): a timer's flag stops both threads' members within STOP_LATENCY; the members that started, the first ones, are kept (the CSV's
 * rows, complete, and the statistics agree; those stopped have NH_INTERRUPTED), and an HDF5
 * output is a valid file cut to them (read back by nh_ensemble_read_members_h5). */
static int test_ensemble_stops(void) {
  char msg[512];
  nh_model *m = nh_builtin_load("penny", NULL, msg, sizeof msg);
  ENSURE(m);
  nh_ensemble_var var;
  ENSURE(nh_ensemble_parse_var("theta=uniform:0:6.28", &var, msg, sizeof msg) == NH_OK);
  var.target = NH_VARY_STATE, var.index = 2;
  nh_ensemble_def d = {0};
  d.model = m, d.sim = nh_sim_def_default();
  d.sim.method = nh_method_find("rk4"), d.sim.h = 1e-5, d.sim.cancel = &flag;
  d.t_end = 1e4, d.nvar = 1, d.vars = &var, d.replicas = 64, d.seed = 1, d.threads = 2;
  char dir[] = "/tmp/nholo-cancel-XXXXXX", csv[64], h5[64];
  ENSURE(mkdtemp(dir));
  snprintf(csv, sizeof csv, "%s/e.csv", dir);
  snprintf(h5, sizeof h5, "%s/e.h5", dir);
  for (int fmt = 0; fmt < 2; fmt++) {
    if (fmt == 1 && !nh_ensemble_hdf5()) {
      printf("  (no HDF5 in this build: the HDF5 output is not checked)\n");
      break;
    }
    nh_ensemble_out out = {fmt ? h5 : csv, fmt ? NH_ENSEMBLE_HDF5 : NH_ENSEMBLE_CSV, 0, "penny", "rk4", 0};
    nh_ensemble_stats st;
    arm(300);
    int rc = nh_ensemble_run_to(&d, &out, &st, msg, sizeof msg);
    const double late = now_s() - t_alarm;
    disarm();
    ENSURE(rc == NH_INTERRUPTED && strstr(msg, "interrupted after"));
    ENSURE(late < STOP_LATENCY);
    ENSURE(st.members >= 0 && st.members < 64 && st.interrupted >= 1 && st.interrupted <= 2);
    ENSURE(st.ok + st.failed == st.members && st.failed >= st.interrupted);
    if (fmt == 0) {
      long intr = -1, rows = csv_rows(csv, 2, &intr);
      ENSURE(rows == st.members && intr == st.interrupted);
    } else {
      char names[4][NH_MAX_NAME];
      int ncols;
      double *table;
      long rows;
      ENSURE(st.members == 0 || (nh_ensemble_read_members_h5(h5, names, 4, &ncols, &table, &rows, msg, sizeof msg) ==
                                     NH_OK && rows == st.members && ncols == 1 && strcmp(names[0], "theta") == 0));
      if (st.members > 0) free(table);
    }
    printf("  %s: stopped %.2g s after the flag, %ld members kept (%ld of them stopped where they were)\n",
           fmt ? "HDF5" : "CSV", late, st.members, st.interrupted);
    nh_ensemble_stats_free(&st);
  }
  // nothing else in the directory: no temporary left
  DIR *dd = opendir(dir);
  struct dirent *e;
  int others = 0;
  while (dd && (e = readdir(dd)))
    others += e->d_name[0] != '.' && strcmp(e->d_name, "e.csv") != 0 && strcmp(e->d_name, "e.h5") != 0;
  if (dd) closedir(dd);
  ENSURE(others == 0);
  remove(csv), remove(h5), rmdir(dir);
  nh_model_destroy(m);
  flag = 0;
  return 0;
}

/* ---- the Lyapunov exponent --------------------------------------------------------------------- */

static int count_windows(const nh_lyap_point *p, void *user) {
  *(long *)user = p->windows;
  return 0;
}

/* A timer's flag ends a long estimate within STOP_LATENCY with NH_INTERRUPTED: the estimate is
 * the one over the windows the observer was shown. */
static int test_lyapunov_stops(void) {
  char msg[256];
  nh_model *m = nh_builtin_load("penny", NULL, msg, sizeof msg);
  ENSURE(m);
  nh_lyap_def d = nh_lyap_def_default();
  d.t_end = 1e7, d.window = 1.0, d.cancel = &flag;
  nh_lyap_result r;
  long seen = 0;
  arm(300);
  int rc = nh_lyapunov(m, &d, NULL, count_windows, &seen, &r, msg, sizeof msg);
  const double late = now_s() - t_alarm;
  disarm();
  ENSURE(rc == NH_INTERRUPTED && r.status == NH_INTERRUPTED && strstr(msg, "interrupted at t = "));
  ENSURE(late < STOP_LATENCY && r.last.windows == seen && r.t_stop >= (double)seen);
  printf("  stopped %.2g s after the flag at t = %g, %ld windows, lambda %.4g\n", late, r.t_stop, seen, r.last.lambda);
  nh_model_destroy(m);
  flag = 0;
  return 0;
}

/* ---- the compiler: its budget and the flag ------------------------------------------------------ */

/* a chain of n pendulums (scripts/pendulum-chain.sh): a dense trigonometric mass matrix */
static char *chain_text(int n) {
  size_t cap = 4096 + (size_t)n * 256, len = 0;
  char *b = malloc(cap);
  if (!b) return NULL;
  len += (size_t)snprintf(b + len, cap - len, "model chain\ncoordinates");
  for (int i = 1; i <= n; i++) len += (size_t)snprintf(b + len, cap - len, " q%d", i);
  len += (size_t)snprintf(b + len, cap - len, "\nparameter g = 9.81\n");
  for (int i = 1; i <= n; i++) {
    if (i == 1) len += (size_t)snprintf(b + len, cap - len, "let vx1 = -sin(q1)*q1'\nlet vy1 = cos(q1)*q1'\nlet y1 = -cos(q1)\n");
    else
      len += (size_t)snprintf(b + len, cap - len, "let vx%d = vx%d - sin(q%d)*q%d'\nlet vy%d = vy%d + cos(q%d)*q%d'\n"
                              "let y%d = y%d - cos(q%d)\n", i, i - 1, i, i, i, i - 1, i, i, i, i - 1, i);
  }
  len += (size_t)snprintf(b + len, cap - len, "kinetic 1/2*(");
  for (int i = 1; i <= n; i++) len += (size_t)snprintf(b + len, cap - len, "%svx%d^2 + vy%d^2", i > 1 ? " + " : "", i, i);
  len += (size_t)snprintf(b + len, cap - len, ")\npotential g*(");
  for (int i = 1; i <= n; i++) len += (size_t)snprintf(b + len, cap - len, "%sy%d", i > 1 ? " + " : "", i);
  snprintf(b + len, cap - len, ")\ninitial q1 = 0.1\n");
  return b;
}

static int ends_with(const char *s, const char *suffix) {
  const size_t l = strlen(s), n = strlen(suffix);
  return l >= n && strcmp(s + l - n, suffix) == 0;
}

/* the entries of dir (but . and ..) that are not a compiled object, its log or a budget's
 * record (a work directory, a source, a temporary): how many; *budgets: the records */
static int dir_others(const char *dir, int *budgets) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  *budgets = 0;
  while (d && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    *budgets += ends_with(e->d_name, ".budget");
    n += !ends_with(e->d_name, ".so") && !ends_with(e->d_name, ".log") && !ends_with(e->d_name, ".budget");
  }
  if (d) closedir(d);
  return n;
}

/* processes whose command line names dir (a compiler working in it), within a second: 0 */
static int processes_in(const char *dir) {
  for (int tries = 0; tries < 20; tries++) {
    DIR *p = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (p && (e = readdir(p))) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      char path[300], buf[8192];
      snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
      FILE *f = fopen(path, "r");
      size_t len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
      if (f) fclose(f);
      for (size_t i = 0; i < len; i++)
        if (!buf[i]) buf[i] = ' ';
      buf[len] = '\0';
      n += strstr(buf, dir) != NULL;
    }
    if (p) closedir(p);
    if (!n) return 0;
    struct timespec ts = {0, 50000000L};
    nanosleep(&ts, NULL);
  }
  return 1;
}

/* Past the time limit the compiler and its children are killed: NH_BACKEND_AUTO loads the
 * model on the tape with the note, within the limit and the slack; the cache holds only the
 * budget's record and no process runs on; a second load goes to the tape at once (the record
 * read, no compiler started); NH_BACKEND_CODEGEN fails naming the limit; the memory limit
 * likewise. The flag set while the compiler runs (no limit) fails the load, "interrupted",
 * and leaves nothing. */
static int test_compiler_budget(void) {
  char dir[] = "/tmp/nholo-cc-XXXXXX", msg[2048];
  ENSURE(mkdtemp(dir));
  nh_load_opts lo = nh_load_opts_default();
  ENSURE(lo.cc_time_limit == NH_CODEGEN_TIME_LIMIT && lo.cc_memory_limit == NH_CODEGEN_MEMORY_LIMIT);
  lo.cache_dir = dir, lo.backend = NH_BACKEND_CODEGEN;
  nh_model *small = nh_model_parse("coordinates x\nkinetic 1/2*x'^2\n", "small.nh", &lo, msg, sizeof msg);
  if (!small) {
    remove(dir);
    SKIP("no working C compiler (%s)", msg);
  }
  ENSURE(strcmp(nh_model_backend_note(small), "") == 0);
  nh_model_destroy(small);
  char *text = chain_text(32);
  ENSURE(text);
  int budgets;
  lo.backend = NH_BACKEND_AUTO, lo.cc_time_limit = CC_LIMIT;
  double t0 = now_s();
  nh_model *m = nh_model_parse(text, "chain.nh", &lo, msg, sizeof msg);
  const double took = now_s() - t0;
  ENSURE(m && strcmp(nh_model_backend(m), "tape") == 0);
  ENSURE(strstr(nh_model_backend_note(m), "chain.nh: the C compiler exceeded its time limit (1 s)"));
  ENSURE(took < CC_LIMIT + CC_SLACK && !processes_in(dir));
  ENSURE(dir_others(dir, &budgets) == 0 && budgets == 1);
  printf("  time limit %g s: the tape after %.2g s; %s\n", CC_LIMIT, took, nh_model_backend_note(m));
  nh_model_destroy(m);
  t0 = now_s();
  m = nh_model_parse(text, "chain.nh", &lo, msg, sizeof msg);
  const double again = now_s() - t0;
  ENSURE(m && strcmp(nh_model_backend_note(m), "chain.nh: the C compiler exceeded its time limit (1 s)") == 0);
  ENSURE(again < took && !processes_in(dir));
  printf("  again: the tape after %.2g s (the record read, no compile)\n", again);
  nh_model_destroy(m);
  lo.backend = NH_BACKEND_CODEGEN;
  ENSURE(!nh_model_parse(text, "chain.nh", &lo, msg, sizeof msg) && strstr(msg, "time limit"));
  // the memory limit (a fresh cache)
  char dir2[] = "/tmp/nholo-cc-XXXXXX";
  ENSURE(mkdtemp(dir2));
  lo.cache_dir = dir2, lo.backend = NH_BACKEND_AUTO, lo.cc_time_limit = 0.0, lo.cc_memory_limit = 32.0;
  m = nh_model_parse(text, "chain.nh", &lo, msg, sizeof msg);
  ENSURE(m && strstr(nh_model_backend_note(m), "exceeded its memory limit (32 MiB)") && !processes_in(dir2));
  ENSURE(dir_others(dir2, &budgets) == 0 && budgets == 1);
  printf("  memory limit 32 MiB: %s\n", nh_model_backend_note(m));
  nh_model_destroy(m);
  // bad limits
  lo.cc_memory_limit = -1.0;
  ENSURE(!nh_model_parse(text, "chain.nh", &lo, msg, sizeof msg) && strstr(msg, "limits must be finite and >= 0"));
  // the flag while the compiler runs (no limit): killed, its files removed
  char dir3[] = "/tmp/nholo-cc-XXXXXX";
  ENSURE(mkdtemp(dir3));
  lo.cache_dir = dir3, lo.cc_time_limit = 0.0, lo.cc_memory_limit = 0.0, lo.cancel = &flag;
  arm(1500);
  m = nh_model_parse(text, "chain.nh", &lo, msg, sizeof msg);
  const double late = now_s() - t_alarm;
  disarm();
  ENSURE(!m && strstr(msg, "interrupted while the C compiler ran") && late < STOP_LATENCY);
  ENSURE(dir_others(dir3, &budgets) == 0 && budgets == 0 && !processes_in(dir3));
  printf("  interrupted: the load failed %.2g s after the flag, the cache directory empty\n", late);
  free(text);
  // the scratch directories: small.nh's object and the records
  char path[600];
  const char *dirs[3] = {dir, dir2, dir3};
  for (int k = 0; k < 3; k++) {
    DIR *d = opendir(dirs[k]);
    struct dirent *e;
    while (d && (e = readdir(d)))
      if (e->d_name[0] != '.') snprintf(path, sizeof path, "%s/%s", dirs[k], e->d_name), remove(path);
    if (d) closedir(d);
    rmdir(dirs[k]);
  }
  flag = 0;
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_clear_flag_same_numbers);
  RUN_TEST(test_plain_run_stops);
  RUN_TEST(test_step_and_async_stop);
  RUN_TEST(test_ensemble_stops);
  RUN_TEST(test_lyapunov_stops);
  RUN_TEST(test_compiler_budget);
  return TEST_SUMMARY();
}
