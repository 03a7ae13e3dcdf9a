/* test_io.c - trajectories, atomic files, CSV and plots (nholo/io.h).
 *
 * Files are written into a fresh directory under $TMPDIR (or /tmp), removed at the end;
 * set NH_TEST_KEEP=1 to keep them (the directory is printed). */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "nholo/io.h"
#include "io/run_energy.h"
#include "nholo/model.h"
#include "nholo/systems.h"
#include "nholo/systems/all.h"

#include "files.h"

static long read_file(const char *path, char *buf, size_t size) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return -1;
  size_t n = fread(buf, 1, size - 1, fp);
  buf[n] = '\0';
  fclose(fp);
  return (long)n;
}

/* A 2-coordinate model: constant mass diag(2, 0.5), a spring on x, no constraints. */
static int mass_fn(const double *q, double *M, void *user) {
  (void)q;
  (void)user;
  M[0] = 2.0;
  M[1] = 0.0;
  M[2] = 0.0;
  M[3] = 0.5;
  return 0;
}

static int potential_fn(const double *q, double *V, double *dV, void *user) {
  (void)user;
  if (V) *V = 0.5 * 3.0 * q[0] * q[0];
  if (dV) {
    dV[0] = 3.0 * q[0];
    dV[1] = 0.0;
  }
  return 0;
}

static nh_model *make_model(void) {
  static const char *const names[] = {"x", "theta"};
  nh_model_def def = nh_model_def_default();
  def.name = "toy";
  def.nq = 2;
  def.coord_names = names;
  def.mass = mass_fn;
  def.potential = potential_fn;
  char msg[256];
  nh_model *m = nh_model_create(&def, msg, sizeof msg);
  if (!m) printf("  nh_model_create: %s\n", msg);
  return m;
}

/* A sampled oscillation of the toy model, with a jump in theta' in the middle. */
static nh_traj *make_traj(long n) {
  nh_traj *tr = nh_traj_create(2);
  if (!tr) return NULL;
  for (long k = 0; k < n; k++) {
    double t = 5.0 * (double)k / (double)(n - 1);
    double w = sqrt(3.0 / 2.0);
    double q[2] = {0.3 * cos(w * t), (k < n / 2 ? 1.0 : -0.5) * t};
    double v[2] = {-0.3 * w * sin(w * t), k < n / 2 ? 1.0 : -0.5};
    if (nh_traj_append(tr, k == 0 ? NH_SAMPLE_START : NH_SAMPLE_STEP, t, q, v) != NH_OK) {
      nh_traj_destroy(tr);
      return NULL;
    }
  }
  return tr;
}

/* ---- trajectories ---------------------------------------------------------------------- */

static int test_traj_growth(void) {
  ENSURE(nh_traj_create(0) == NULL);
  ENSURE(nh_traj_create(-3) == NULL);
  nh_traj_destroy(NULL);
  nh_traj_clear(NULL);
  ENSURE(nh_traj_append(NULL, NH_SAMPLE_STEP, 0.0, NULL, NULL) == NH_ERR_ARG);

  nh_traj *tr = nh_traj_create(3);
  ENSURE(tr != NULL);
  ENSURE(tr->nq == 3 && tr->n == 0);
  long last_cap = tr->cap, grows = 0;
  const long N = 10000;
  for (long k = 0; k < N; k++) {
    double q[3] = {(double)k, -(double)k, 0.5 * (double)k};
    double v[3] = {1.0 / (double)(k + 1), 2.0, 3.0};
    ENSURE(nh_traj_append(tr, (nh_sample_kind)(k % 6), 0.25 * (double)k, q, v) == NH_OK);
    ENSURE(tr->n == k + 1 && tr->cap >= tr->n);
    if (tr->cap != last_cap) {
      ENSURE(last_cap == 0 || tr->cap >= 2 * last_cap); /* geometric growth */
      last_cap = tr->cap;
      grows++;
    }
  }
  ENSURE(grows <= 10); /* amortised: few reallocations for 10^4 samples */
  ENSURE(tr->cap < 4 * N);
  for (long k = 0; k < N; k += 97) {
    ENSURE(tr->t[k] == 0.25 * (double)k);
    ENSURE(tr->kind[k] == (int)(k % 6));
    ENSURE(tr->q[3 * k] == (double)k && tr->q[3 * k + 1] == -(double)k);
    ENSURE(tr->q[3 * k + 2] == 0.5 * (double)k);
    ENSURE(tr->v[3 * k] == 1.0 / (double)(k + 1) && tr->v[3 * k + 2] == 3.0);
  }

  long cap = tr->cap;
  nh_traj_clear(tr);
  ENSURE(tr->n == 0 && tr->cap == cap);
  double q[3] = {7, 8, 9};
  ENSURE(nh_traj_append(tr, NH_SAMPLE_END, 1.5, q, NULL) == NH_OK); /* NULL v: zeros */
  ENSURE(tr->n == 1 && tr->t[0] == 1.5 && tr->q[2] == 9.0 && tr->v[0] == 0.0 && tr->v[2] == 0.0);
  ENSURE(tr->kind[0] == NH_SAMPLE_END);

  /* the observer appends and asks to go on */
  double v[3] = {4, 5, 6};
  ENSURE(nh_traj_observer(NULL, NH_SAMPLE_OUTPUT, 2.0, q, v, tr) == 0);
  ENSURE(tr->n == 2 && tr->t[1] == 2.0 && tr->v[4] == 5.0 && tr->kind[1] == NH_SAMPLE_OUTPUT);
  nh_traj_destroy(tr);
  return 0;
}

/* ---- atomic files ---------------------------------------------------------------------- */

static int test_outfile_commit_abort(void) {
  const char *path = out_path("atomic.txt");
  char msg[256];
  nh_outfile out;

  ENSURE(nh_outfile_open(&out, path, msg, sizeof msg) == NH_OK);
  ENSURE(out.fp != NULL);
  ENSURE(tmp_exists(path) && !file_exists(path));
  fputs("aborted\n", out.fp);
  nh_outfile_abort(&out);
  ENSURE(!tmp_exists(path) && !file_exists(path));

  ENSURE(nh_outfile_open(&out, path, msg, sizeof msg) == NH_OK);
  fputs("first\n", out.fp);
  ENSURE(nh_outfile_commit(&out, msg, sizeof msg) == NH_OK);
  ENSURE(!tmp_exists(path) && file_exists(path));
  char buf[64];
  ENSURE(read_file(path, buf, sizeof buf) == 6 && strcmp(buf, "first\n") == 0);
  ENSURE(nh_outfile_commit(&out, msg, sizeof msg) == NH_ERR_ARG); /* nothing left to commit */

  /* replacing an existing file; an aborted rewrite leaves the old one intact */
  ENSURE(nh_outfile_open(&out, path, msg, sizeof msg) == NH_OK);
  fputs("second\n", out.fp);
  nh_outfile_abort(&out);
  ENSURE(read_file(path, buf, sizeof buf) == 6 && strcmp(buf, "first\n") == 0);
  ENSURE(nh_outfile_open(&out, path, msg, sizeof msg) == NH_OK);
  fputs("second\n", out.fp);
  ENSURE(nh_outfile_commit(&out, msg, sizeof msg) == NH_OK);
  ENSURE(read_file(path, buf, sizeof buf) == 7 && strcmp(buf, "second\n") == 0);
  ENSURE(count_temporaries() == 0);
  remove(path);

  /* bad paths */
  ENSURE(nh_outfile_open(&out, "", msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(nh_outfile_open(&out, NULL, msg, sizeof msg) == NH_ERR_ARG);
  char longp[1100];
  memset(longp, 'a', sizeof longp - 1);
  longp[sizeof longp - 1] = '\0';
  ENSURE(nh_outfile_open(&out, longp, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(nh_outfile_open(&out, "/nonexistent-nholo-dir/f.txt", msg, sizeof msg) == NH_ERR_IO);
  ENSURE(strstr(msg, "cannot write '/nonexistent-nholo-dir/f.txt': ") == msg);
  ENSURE(nh_outfile_open(&out, "/nonexistent-nholo-dir/f.txt", NULL, 0) == NH_ERR_IO);
  return 0;
}

/* a destination that is not a regular file is never replaced: a device is written in place
 * (and stays a device, no temporary beside it), a directory is refused */
static int test_outfile_in_place(void) {
  char msg[256];
  nh_outfile out;
  struct stat sb;
  ENSURE(nh_outfile_open(&out, "/dev/null", msg, sizeof msg) == NH_OK);
  ENSURE(out.fp != NULL && !tmp_exists("/dev/null"));
  fputs("discarded\n", out.fp);
  ENSURE(nh_outfile_commit(&out, msg, sizeof msg) == NH_OK);
  ENSURE(stat("/dev/null", &sb) == 0 && S_ISCHR(sb.st_mode));
  ENSURE(nh_outfile_open(&out, "/dev/null", msg, sizeof msg) == NH_OK);
  nh_outfile_abort(&out);
  ENSURE(stat("/dev/null", &sb) == 0 && S_ISCHR(sb.st_mode));
  ENSURE(nh_check_writable("/dev/null", msg, sizeof msg) == NH_OK);
  const char *dir = out_path("");
  ENSURE(nh_outfile_open(&out, dir, msg, sizeof msg) == NH_ERR_IO);
  ENSURE(strstr(msg, ": Is a directory") != NULL);
  ENSURE(count_temporaries() == 0);
  return 0;
}

/* write text to path through an nh_outfile; the commit's status */
static int write_text(const char *path, const char *text, char *msg, size_t size) {
  nh_outfile out;
  int st = nh_outfile_open(&out, path, msg, size);
  if (st != NH_OK) return st;
  fputs(text, out.fp);
  return nh_outfile_commit(&out, msg, size);
}

/* whether path is a symbolic link whose text is target */
static int is_link_to(const char *path, const char *target) {
  char buf[1024];
  struct stat sb;
  ssize_t n = readlink(path, buf, sizeof buf - 1);
  if (lstat(path, &sb) != 0 || !S_ISLNK(sb.st_mode) || n < 0) return 0;
  buf[n] = '\0';
  return strcmp(buf, target) == 0;
}

/* A symbolic link is written through, as a shell's `>` does: the link stays, the file it
 * names is replaced (a relative target from the link's directory, a chain of links followed,
 * a dangling link's target created); a loop of links is an error naming the path. */
static int test_outfile_symlink(void) {
  char msg[256], buf[64], target[1024], link[1024], chain[1024], inner[1024], made[1024], a[1024], b[1024];
  ENSURE(mkdir(out_path("sub"), 0700) == 0);
  snprintf(target, sizeof target, "%s", out_path("sub/target.csv"));
  snprintf(link, sizeof link, "%s", out_path("link.csv"));
  snprintf(chain, sizeof chain, "%s", out_path("chain.csv"));
  snprintf(inner, sizeof inner, "%s", out_path("sub/inner.csv"));
  snprintf(made, sizeof made, "%s", out_path("sub/made.csv"));
  snprintf(a, sizeof a, "%s", out_path("loop_a.csv"));
  snprintf(b, sizeof b, "%s", out_path("loop_b.csv"));
  ENSURE(write_text(target, "old\n", msg, sizeof msg) == NH_OK);
  ENSURE(symlink("sub/target.csv", link) == 0 && symlink("link.csv", chain) == 0);
  ENSURE(write_text(link, "through\n", msg, sizeof msg) == NH_OK);
  ENSURE(is_link_to(link, "sub/target.csv") && read_file(target, buf, sizeof buf) == 8 && strcmp(buf, "through\n") == 0);
  ENSURE(write_text(chain, "chain\n", msg, sizeof msg) == NH_OK);
  ENSURE(is_link_to(chain, "link.csv") && is_link_to(link, "sub/target.csv"));
  ENSURE(read_file(target, buf, sizeof buf) == 6 && strcmp(buf, "chain\n") == 0);
  // a link in a subdirectory to a relative name: beside the link
  ENSURE(symlink("made.csv", inner) == 0 && !file_exists(made));
  ENSURE(nh_check_writable(inner, msg, sizeof msg) == NH_OK && !file_exists(made));
  ENSURE(write_text(inner, "made\n", msg, sizeof msg) == NH_OK);
  ENSURE(is_link_to(inner, "made.csv") && read_file(made, buf, sizeof buf) == 5);
  ENSURE(count_temporaries() == 0);
  // a loop
  ENSURE(symlink("loop_b.csv", a) == 0 && symlink("loop_a.csv", b) == 0);
  ENSURE(write_text(a, "x", msg, sizeof msg) == NH_ERR_IO && strstr(msg, "loop_a.csv'") && strstr(msg, "symbolic links"));
  ENSURE(is_link_to(a, "loop_b.csv") && count_temporaries() == 0);
  remove(a), remove(b), remove(inner), remove(made), remove(chain), remove(link), remove(target);
  ENSURE(rmdir(out_path("sub")) == 0);
  return 0;
}

static int test_check_writable(void) {
  char msg[256];
  const char *path = out_path("probe.csv");
  ENSURE(nh_check_writable(path, msg, sizeof msg) == NH_OK);
  ENSURE(!file_exists(path) && !tmp_exists(path));

  const char *bad = out_path("no/such/dir/probe.csv");
  ENSURE(nh_check_writable(bad, msg, sizeof msg) == NH_ERR_IO);
  ENSURE(strstr(msg, "cannot write '") == msg && strstr(msg, "probe.csv'") != NULL);

  ENSURE(nh_check_writable(g_dir, msg, sizeof msg) == NH_ERR_IO); /* a directory */
  ENSURE(nh_check_writable("/proc/nholo-probe.csv", msg, sizeof msg) == NH_ERR_IO);
  ENSURE(nh_check_writable("", msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(count_temporaries() == 0);
  return 0;
}

/* ---- CSV ------------------------------------------------------------------------------- */

static int test_traj_csv_roundtrip(void) {
  nh_model *m = make_model();
  ENSURE(m != NULL);
  nh_traj *tr = nh_traj_create(2);
  ENSURE(tr != NULL);
  /* values that need all 17 significant digits, and extremes */
  const double vals[] = {0.1, 1.0 / 3.0, -2.0 / 7.0, 1e-300, -2.5e300, 3.141592653589793,
                         5e-324, 0.0, -0.0, 123456789.123456789, 1.0 + 2.220446049250313e-16,
                         -1.7976931348623157e308};
  const int nv = (int)(sizeof vals / sizeof vals[0]);
  for (int k = 0; k < nv; k++) {
    double q[2] = {vals[k], vals[(k + 3) % nv]};
    double v[2] = {vals[(k + 5) % nv], vals[(k + 7) % nv]};
    ENSURE(nh_traj_append(tr, NH_SAMPLE_STEP, vals[(k + 1) % nv], q, v) == NH_OK);
  }
  const char *path = out_path("traj.csv");
  char msg[256] = "";
  ENSURE(nh_write_traj_csv(path, m, tr, msg, sizeof msg) == NH_OK);
  ENSURE(!tmp_exists(path));

  FILE *fp = fopen(path, "r");
  ENSURE(fp != NULL);
  char line[4096];
  ENSURE(fgets(line, sizeof line, fp) != NULL);
  int ok = strcmp(line, "t,x,theta,x_dot,theta_dot\n") == 0;
  long rows = 0;
  int exact = 1;
  while (ok && fgets(line, sizeof line, fp)) {
    double f[5];
    char *p = line, *end;
    for (int j = 0; j < 5; j++) {
      f[j] = strtod(p, &end);
      if (end == p || (j < 4 && *end != ',') || (j == 4 && *end != '\n')) ok = 0;
      p = end + 1;
    }
    if (!ok || rows >= tr->n) break;
    double want[5] = {tr->t[rows], tr->q[2 * rows], tr->q[2 * rows + 1], tr->v[2 * rows],
                      tr->v[2 * rows + 1]};
    for (int j = 0; j < 5; j++)
      if (memcmp(&f[j], &want[j], sizeof(double)) != 0) exact = 0; /* bitwise, even -0.0 */
    rows++;
  }
  fclose(fp);
  ENSURE(ok);
  ENSURE(exact);
  ENSURE(rows == tr->n);

  /* an empty trajectory: the header only */
  nh_traj_clear(tr);
  ENSURE(nh_write_traj_csv(path, m, tr, msg, sizeof msg) == NH_OK);
  char buf[256];
  ENSURE(read_file(path, buf, sizeof buf) > 0 && strcmp(buf, "t,x,theta,x_dot,theta_dot\n") == 0);
  remove(path);

  /* a trajectory that does not fit the model */
  nh_traj *tr3 = nh_traj_create(3);
  ENSURE(tr3 != NULL);
  ENSURE(nh_write_traj_csv(path, m, tr3, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(msg[0] != '\0' && !file_exists(path));
  ENSURE(nh_write_traj_csv(path, NULL, tr, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(nh_write_traj_csv(path, m, NULL, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(nh_write_impacts_csv(path, NULL, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(!file_exists(path) && count_temporaries() == 0);
  nh_traj_destroy(tr3);
  nh_traj_destroy(tr);
  nh_model_destroy(m);
  return 0;
}

/* Column names holding a separator or a quote are quoted (RFC 4180). */
static int test_traj_csv_quoting(void) {
  static const char *const names[] = {"a,b", "say \"hi\""};
  nh_model_def def = nh_model_def_default();
  def.nq = 2;
  def.coord_names = names;
  def.mass = mass_fn;
  nh_model *m = nh_model_create(&def, NULL, 0);
  ENSURE(m != NULL);
  nh_traj *tr = nh_traj_create(2);
  ENSURE(tr != NULL);
  double q[2] = {1.5, -2.0}, v[2] = {0.25, 4.0};
  ENSURE(nh_traj_append(tr, NH_SAMPLE_START, 0.0, q, v) == NH_OK);
  const char *path = out_path("quoted.csv");
  ENSURE(nh_write_traj_csv(path, m, tr, NULL, 0) == NH_OK);
  char buf[512];
  ENSURE(read_file(path, buf, sizeof buf) > 0);
  ENSURE(strcmp(buf, "t,\"a,b\",\"say \"\"hi\"\"\",\"a,b_dot\",\"say \"\"hi\"\"_dot\"\n"
                     "0,1.5,-2,0.25,4\n") == 0);
  remove(path);
  nh_traj_destroy(tr);
  nh_model_destroy(m);
  return 0;
}

static int test_traj_csv_unwritable(void) {
  nh_model *m = make_model();
  ENSURE(m != NULL);
  nh_traj *tr = make_traj(50);
  ENSURE(tr != NULL);
  char msg[512];
  const char *bad[] = {"/nonexistent-nholo-dir/traj.csv", "/proc/nholo-traj.csv",
                       out_path("missing/traj.csv")};
  for (int i = 0; i < 3; i++) {
    msg[0] = '\0';
    ENSURE(nh_write_traj_csv(bad[i], m, tr, msg, sizeof msg) == NH_ERR_IO);
    char want[600];
    snprintf(want, sizeof want, "cannot write '%s': ", bad[i]);
    ENSURE(strncmp(msg, want, strlen(want)) == 0 && strlen(msg) > strlen(want));
    ENSURE(!file_exists(bad[i]) && !tmp_exists(bad[i]));
  }
  /* the destination is a directory: the temporary is written, the rename fails */
  const char *dir = out_path("a_directory.csv");
  ENSURE(mkdir(dir, 0700) == 0);
  ENSURE(nh_write_traj_csv(dir, m, tr, msg, sizeof msg) == NH_ERR_IO);
  ENSURE(strstr(msg, "cannot write '") == msg);
  ENSURE(!tmp_exists(dir) && count_temporaries() == 0);
  ENSURE(rmdir(dir) == 0);
  nh_traj_destroy(tr);
  nh_model_destroy(m);
  return 0;
}

static int test_plot_timeseries(void) {
  nh_model *m = make_model();
  ENSURE(m != NULL);
  nh_traj *tr = make_traj(500);
  ENSURE(tr != NULL);
  char msg[256] = "";
  for (int i = 0; i < 3; i++) {
    const char *path = format_path("timeseries", i);
    int st = nh_plot_timeseries(path, m, tr, NULL, i == 0 ? NULL : "Toy model", msg, sizeof msg);
    if (st != NH_OK) printf("  %s\n", msg);
    ENSURE(st == NH_OK);
    ENSURE(check_plot_file(path) == 0);
  }
  /* an empty trajectory still draws its axes */
  nh_traj *empty = nh_traj_create(2);
  ENSURE(empty != NULL);
  ENSURE(nh_plot_timeseries(out_path("timeseries_empty.png"), m, empty, NULL, NULL, msg,
                            sizeof msg) == NH_OK);
  ENSURE(check_plot_file(out_path("timeseries_empty.png")) == 0);
  nh_traj *tr3 = nh_traj_create(3);
  ENSURE(tr3 != NULL);
  ENSURE(nh_plot_timeseries(out_path("bad.png"), m, tr3, NULL, NULL, msg, sizeof msg) ==
         NH_ERR_ARG);
  ENSURE(nh_plot_timeseries(out_path("bad.png"), NULL, tr, NULL, NULL, msg, sizeof msg) ==
         NH_ERR_ARG);
  ENSURE(!file_exists(out_path("bad.png")));
  nh_traj_destroy(tr3);
  nh_traj_destroy(empty);
  nh_traj_destroy(tr);
  nh_model_destroy(m);
  return 0;
}

static int test_plot_bad_paths(void) {
  nh_model *m = make_model();
  ENSURE(m != NULL);
  nh_traj *tr = make_traj(20);
  ENSURE(tr != NULL);
  const char *bad_ext[] = {"plot.txt", "plot", "plot.png.bak", "plot.jpg", "png"};
  for (int i = 0; i < 5; i++) {
    const char *path = out_path(bad_ext[i]);
    char msg[256] = "";
    ENSURE(nh_plot_timeseries(path, m, tr, NULL, NULL, msg, sizeof msg) == NH_ERR_ARG);
    ENSURE(msg[0] != '\0');
    ENSURE(!file_exists(path) && !tmp_exists(path));
  }
  ENSURE(nh_plot_timeseries(NULL, m, tr, NULL, NULL, NULL, 0) == NH_ERR_ARG);

  /* upper-case extensions are accepted */
  char msg[256] = "";
  ENSURE(nh_plot_timeseries(out_path("upper.PNG"), m, tr, NULL, NULL, msg, sizeof msg) == NH_OK);
  ENSURE(starts_with(out_path("upper.PNG"), "\x89PNG", 4));
  remove(out_path("upper.PNG"));

  /* unwritable destinations: an error, no file, no temporary, and the process goes on */
  const char *unw[] = {"/nonexistent-nholo-dir/p.png", "/proc/nholo-plot.svg",
                       out_path("missing/p.pdf")};
  for (int i = 0; i < 3; i++) {
    ENSURE(nh_plot_timeseries(unw[i], m, tr, NULL, NULL, msg, sizeof msg) == NH_ERR_IO);
    ENSURE(strstr(msg, "cannot write '") == msg);
    ENSURE(!file_exists(unw[i]) && !tmp_exists(unw[i]));
  }
  /* a plot over a directory fails at the rename and leaves nothing behind */
  const char *dir = out_path("dir.png");
  ENSURE(mkdir(dir, 0700) == 0);
  ENSURE(nh_plot_timeseries(dir, m, tr, NULL, NULL, msg, sizeof msg) == NH_ERR_IO);
  ENSURE(!tmp_exists(dir) && rmdir(dir) == 0);
  ENSURE(count_temporaries() == 0);

  /* and plotting still works afterwards */
  ENSURE(nh_plot_timeseries(out_path("after.png"), m, tr, NULL, NULL, msg, sizeof msg) == NH_OK);
  ENSURE(check_plot_file(out_path("after.png")) == 0);
  nh_traj_destroy(tr);
  nh_model_destroy(m);
  return 0;
}

/* Non-finite and enormous values are left out; constant and huge-offset series still get
 * sensible axes (and the plots terminate). */
static int test_plot_bad_values(void) {
  nh_model *m = make_model();
  ENSURE(m != NULL);
  nh_traj *tr = nh_traj_create(2);
  ENSURE(tr != NULL);
  const double bad[] = {NAN, INFINITY, -INFINITY, 1e308, -1.7976931348623157e308};
  for (int k = 0; k < 40; k++) {
    double q[2] = {k % 7 == 3 ? bad[k % 5] : 1e16 + 0.0 * k, k % 11 == 5 ? bad[(k + 2) % 5] : 0.01 * k};
    double v[2] = {0.0, k % 13 == 0 ? NAN : 1.0};
    double t = k == 17 ? NAN : 1e16 + 2.0 * k; /* times near the end of double resolution */
    ENSURE(nh_traj_append(tr, NH_SAMPLE_STEP, t, q, v) == NH_OK);
  }
  char msg[256] = "";
  ENSURE(nh_plot_timeseries(out_path("bad_values.png"), m, tr, NULL, NULL, msg, sizeof msg) ==
         NH_OK);
  ENSURE(check_plot_file(out_path("bad_values.png")) == 0);
  ENSURE(!file_exists(out_path("bad.png")));
  nh_traj_destroy(tr);
  nh_model_destroy(m);
  return 0;
}

/* The time series' energy error is the integrator's: a plastic penny loses most of its energy
 * at its impacts, which the impact log accounts for, so what is left is round-off and the
 * integrator's error; without the log the loss itself would be counted. */
static int test_run_energy_error(void) {
  nh_penny_params p = nh_penny_params_default();
  p.law.kind = NH_IMPACT_PLASTIC;
  char msg[256] = "";
  nh_model *m = nh_penny_create(&p, msg, sizeof msg);
  ENSURE(m != NULL);
  nh_sim_def def = nh_sim_def_default();
  def.method = nh_method_find("dopri5");
  nh_sim *sim = nh_sim_create(m, &def, msg, sizeof msg);
  ENSURE(sim != NULL);
  nh_traj *tr = nh_traj_create(m->nq);
  ENSURE(tr != NULL);
  ENSURE(nh_sim_run(sim, 100.0, 4, nh_traj_observer, tr) == NH_OK);
  ENSURE(nh_sim_impact_count(sim) == 4);
  double *E = malloc(sizeof(double) * (size_t)tr->n);
  ENSURE(E != NULL);
  double e_ref, e_dev, e_ref0, e_dev0;
  nh_io_run_energy(m, tr, sim, E, &e_ref, &e_dev);
  nh_io_run_energy(m, tr, NULL, E, &e_ref0, &e_dev0);
  const nh_sim_stats *st = nh_sim_get_stats(sim);
  ENSURE(e_ref == st->energy_initial);
  ENSURE(e_dev0 > 0.5 * e_ref);             /* the impacts' loss, counted without the log */
  ENSURE(e_dev <= 1e-9 * e_ref);            /* the integrator's error only, with it */
  ENSURE(fabs(E[tr->n - 1] - st->energy) <= 1e-12 * e_ref);
  ENSURE(nh_plot_timeseries(out_path("penny_ts.png"), m, tr, sim, NULL, msg, sizeof msg) == NH_OK);
  free(E);
  nh_traj_destroy(tr);
  nh_sim_destroy(sim);
  nh_model_destroy(m);
  return 0;
}

/* Panels with every curve style, markers, legend notes and escapes draw (each format); a
 * bad layout is refused with nothing written. */
static int test_plot_panels_styles(void) {
  enum { N = 200 };
  static double x[N], y[5][N];
  for (int k = 0; k < N; k++) {
    x[k] = 0.05 * k;
    for (int c = 0; c < 5; c++) y[c][k] = sin(x[k]) + 1e-3 * c; /* nearly coincident */
  }
  nh_plot_curve cv[7] = {
      {N, x, y[0], "reference", NH_PLOT_WIDTH(60)},
      {N, x, y[1], "dashed", NH_PLOT_DASH(2) | NH_PLOT_WIDTH(22)},
      {N, x, y[2], "dotted #gW#d1#u", NH_PLOT_DASH(3) | NH_PLOT_MARKER(1)},
      {N, x, y[3], NULL, NH_PLOT_MARKER(6)},
      {N, x, y[4], "dots", NH_PLOT_DOTS},
      {0, NULL, NULL, "a note: the curves coincide", 0},
      {0, NULL, NULL, NULL, 0},
  };
  nh_plot_panel pn[2] = {{"x#ds#u", "t", "y#d1#u (m)", 7, cv, 0, 0.0},
                         {NULL, NULL, NULL, 2, cv, 1, NAN}};
  char msg[256] = "";
  for (int i = 0; i < 3; i++) {
    const char *path = format_path("panels", i);
    ENSURE(nh_plot_panels(path, 1, 2, 2, pn, "styles #1", msg, sizeof msg) == NH_OK);
    ENSURE(check_plot_file(path) == 0);
  }
  ENSURE(nh_plot_panels(out_path("bad.png"), 1, 1, 2, pn, NULL, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(strcmp(msg, "plot: bad panel layout") == 0);
  ENSURE(!file_exists(out_path("bad.png")));
  return 0;
}

/* Many figures in one process: no leaked file descriptors, every file complete. */
static int test_plot_repeated(void) {
  nh_model *m = make_model();
  ENSURE(m != NULL);
  nh_traj *tr = make_traj(100);
  ENSURE(tr != NULL);
  char msg[256] = "";
  int fd0 = dup(0);
  ENSURE(fd0 >= 0);
  close(fd0);
  for (int i = 0; i < 12; i++) {
    const char *path = format_path("rep", i % 3);
    ENSURE(nh_plot_timeseries(path, m, tr, NULL, NULL, msg, sizeof msg) == NH_OK);
    ENSURE(check_plot_file(path) == 0);
  }
  int fd1 = dup(0);
  ENSURE(fd1 >= 0);
  close(fd1);
  ENSURE(fd1 == fd0); /* the lowest free descriptor did not move */
  nh_traj_destroy(tr);
  nh_model_destroy(m);
  return 0;
}

/* ---- main ------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  if (files_init("test_io") != 0) return 1;
  RUN_TEST(test_traj_growth);
  RUN_TEST(test_outfile_commit_abort);
  RUN_TEST(test_outfile_in_place);
  RUN_TEST(test_outfile_symlink);
  RUN_TEST(test_check_writable);
  RUN_TEST(test_traj_csv_roundtrip);
  RUN_TEST(test_traj_csv_quoting);
  RUN_TEST(test_traj_csv_unwritable);
  RUN_TEST(test_plot_timeseries);
  RUN_TEST(test_plot_bad_paths);
  RUN_TEST(test_plot_bad_values);
  RUN_TEST(test_plot_repeated);
  RUN_TEST(test_run_energy_error);
  RUN_TEST(test_plot_panels_styles);
  files_finish();
  return TEST_SUMMARY();
}
