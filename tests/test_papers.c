/* test_papers.c - the papers' layer: its registry and the penny's figures (papers.h).
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
#include "nholo/model.h"
#include "papers.h"

#include "files.h"

/* ---- the penny's figures ------------------------------------------------------------------ */

/* A penny-like plan view trajectory: a circle arc inside the table, with nq = 4. */
static nh_traj *make_penny_traj(void) {
  nh_traj *tr = nh_traj_create(4);
  if (!tr) return NULL;
  for (int k = 0; k <= 400; k++) {
    double t = 0.01 * k;
    double q[4] = {0.12 * sin(1.3 * t), 0.1 * (1.0 - cos(1.3 * t)) - 0.05, 10.0 * t, 0.2 * t};
    double v[4] = {0.156 * cos(1.3 * t), 0.13 * sin(1.3 * t), 10.0, 0.2};
    if (nh_traj_append(tr, NH_SAMPLE_STEP, t, q, v) != NH_OK) {
      nh_traj_destroy(tr);
      return NULL;
    }
  }
  return tr;
}

static int test_plot_penny(void) {
  nh_traj *tr = make_penny_traj();
  ENSURE(tr != NULL);
  char msg[256] = "";
  for (int i = 0; i < 3; i++) {
    const char *path = format_path("penny", i);
    int st = papers_plot_penny(path, 0.2, 0.2, 0.02, tr, NULL, "A penny #1 (no impacts)", msg,
                           sizeof msg);
    if (st != NH_OK) printf("  %s\n", msg);
    ENSURE(st == NH_OK);
    ENSURE(check_plot_file(path) == 0);
  }
  /* an elliptical table, no title, and no trajectory at all */
  ENSURE(papers_plot_penny(out_path("penny_ellipse.png"), 0.3, 0.15, 0.02, tr, NULL, NULL, msg,
                       sizeof msg) == NH_OK);
  ENSURE(check_plot_file(out_path("penny_ellipse.png")) == 0);
  ENSURE(papers_plot_penny(out_path("penny_empty.png"), 0.2, 0.2, 0.02, NULL, NULL, NULL, msg,
                       sizeof msg) == NH_OK);
  ENSURE(check_plot_file(out_path("penny_empty.png")) == 0);
  /* bad geometry */
  ENSURE(papers_plot_penny(out_path("bad.png"), -1.0, 0.2, 0.02, tr, NULL, NULL, msg, sizeof msg) ==
         NH_ERR_ARG);
  ENSURE(!file_exists(out_path("bad.png")));
  nh_traj_destroy(tr);
  return 0;
}

static int test_plot_ensemble(void) {
  enum { NP = 4, N = 300 };
  static double x[NP * N], y[NP * N];
  unsigned long long seed = 12345;
  for (int p = 0; p < NP; p++)
    for (int k = 0; k < N; k++) {
      double r = 0.19 * sqrt(nh_test_rand(&seed, 0.0, 1.0)) * (p + 1) / NP;
      double s = nh_test_rand(&seed, 0.0, 2.0 * 3.141592653589793);
      x[p * N + k] = 0.05 + r * cos(s);
      y[p * N + k] = r * sin(s) * 0.8;
    }
  const char *titles[NP] = {"t = 0 s", "t = 1 s", NULL, "t = 10 s"};
  char msg[256] = "";
  for (int i = 0; i < 3; i++) {
    const char *path = format_path("ensemble", i);
    int st = papers_plot_penny_ensemble(path, 0.2, 0.2, NP, N, x, y, titles,
                                    "Sensitivity to the initial heading", msg, sizeof msg);
    if (st != NH_OK) printf("  %s\n", msg);
    ENSURE(st == NH_OK);
    ENSURE(check_plot_file(path) == 0);
  }
  /* odd panel counts, no titles */
  ENSURE(papers_plot_penny_ensemble(out_path("ensemble3.png"), 0.3, 0.2, 3, N, x, y, NULL, NULL, msg,
                                sizeof msg) == NH_OK);
  ENSURE(check_plot_file(out_path("ensemble3.png")) == 0);
  ENSURE(papers_plot_penny_ensemble(out_path("ensemble1.png"), 0.2, 0.2, 1, 0, NULL, NULL, NULL,
                                "empty", msg, sizeof msg) == NH_OK);
  ENSURE(check_plot_file(out_path("ensemble1.png")) == 0);
  ENSURE(papers_plot_penny_ensemble(out_path("bad.png"), 0.2, 0.2, 0, N, x, y, NULL, NULL, msg,
                                sizeof msg) == NH_ERR_ARG);
  ENSURE(!file_exists(out_path("bad.png")));
  return 0;
}


/* bad paths, unwritable destinations and bad values: an error, no file, no temporary */
static int test_penny_bad(void) {
  nh_traj *tr = make_penny_traj();
  ENSURE(tr != NULL);
  double x[4] = {0, 0.1, 0, -0.1}, y[4] = {0, 0, 0.1, 0};
  const char *bad_ext[] = {"plot.txt", "plot", "plot.png.bak", "plot.jpg", "png"};
  for (int i = 0; i < 5; i++) {
    const char *path = out_path(bad_ext[i]);
    char msg[256] = "";
    ENSURE(papers_plot_penny(path, 0.2, 0.2, 0.02, tr, NULL, NULL, msg, sizeof msg) == NH_ERR_ARG);
    ENSURE(msg[0] != '\0');
    msg[0] = '\0';
    ENSURE(papers_plot_penny_ensemble(path, 0.2, 0.2, 1, 4, x, y, NULL, NULL, msg, sizeof msg) ==
           NH_ERR_ARG);
    ENSURE(msg[0] != '\0');
    ENSURE(!file_exists(path) && !tmp_exists(path));
  }
  ENSURE(papers_plot_penny(NULL, 0.2, 0.2, 0.02, tr, NULL, NULL, NULL, 0) == NH_ERR_ARG);
  char msg[256] = "";
  ENSURE(papers_plot_penny_ensemble(out_path("upper.PNG"), 0.2, 0.2, 1, 4, x, y, NULL, NULL, msg,
                                    sizeof msg) == NH_OK);
  ENSURE(starts_with(out_path("upper.PNG"), "\x89PNG", 4));
  remove(out_path("upper.PNG"));
  const char *unw[] = {"/nonexistent-nholo-dir/p.png", "/proc/nholo-plot.svg",
                       out_path("missing/p.pdf")};
  for (int i = 0; i < 3; i++) {
    ENSURE(papers_plot_penny(unw[i], 0.2, 0.2, 0.02, tr, NULL, NULL, msg, sizeof msg) == NH_ERR_IO);
    ENSURE(strstr(msg, "cannot write '") == msg);
    ENSURE(papers_plot_penny_ensemble(unw[i], 0.2, 0.2, 1, 4, x, y, NULL, NULL, msg, sizeof msg) ==
           NH_ERR_IO);
    ENSURE(!file_exists(unw[i]) && !tmp_exists(unw[i]));
  }
  const char *dir = out_path("dir.png");
  ENSURE(mkdir(dir, 0700) == 0);
  ENSURE(papers_plot_penny(dir, 0.2, 0.2, 0.02, tr, NULL, NULL, msg, sizeof msg) == NH_ERR_IO);
  ENSURE(!tmp_exists(dir) && rmdir(dir) == 0);
  ENSURE(count_temporaries() == 0);
  /* non-finite and enormous values are left out */
  double bx[3] = {NAN, 1e300, 0.1}, by[3] = {0.0, INFINITY, -0.1};
  ENSURE(papers_plot_penny_ensemble(out_path("bad_values_ens.png"), 0.2, 0.2, 1, 3, bx, by, NULL,
                                    NULL, msg, sizeof msg) == NH_OK);
  ENSURE(check_plot_file(out_path("bad_values_ens.png")) == 0);
  ENSURE(papers_plot_penny(out_path("bad.png"), NAN, 0.2, 0.02, tr, NULL, NULL, msg, sizeof msg) ==
         NH_ERR_ARG);
  ENSURE(papers_plot_penny_ensemble(out_path("bad.png"), 0.2, INFINITY, 1, 3, bx, by, NULL, NULL,
                                    msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(!file_exists(out_path("bad.png")));
  nh_traj_destroy(tr);
  return 0;
}

/* the registry: unique names, found by name, every entry runnable */
static int test_registry(void) {
  int n = 0;
  const papers_figure *f = papers_figures(&n);
  ENSURE(n == 23); /* 18, trex, trex-design, cradle, billiards, penny-lyapunov */
  for (int i = 0; i < n; i++) {
    ENSURE(f[i].name && f[i].description && f[i].run);
    ENSURE(papers_figure_find(f[i].name) == &f[i]);
    for (int j = 0; j < i; j++) ENSURE(strcmp(f[i].name, f[j].name) != 0);
  }
  ENSURE(papers_figure_find("cradle") && papers_figure_find("billiards"));
  ENSURE(papers_figure_find("penny-fig9") == NULL);
  ENSURE(papers_figure_find(NULL) == NULL);
  return 0;
}

/* a figure through the registry: its result line, its file; a failing plot is no bad input */
static int test_run_figure(void) {
  papers_opts o = papers_opts_default();
  o.impacts = 3;
  const char *res = out_path("result.txt");
  o.out = fopen(res, "w");
  ENSURE(o.out != NULL);
  char msg[512] = "";
  const papers_figure *f = papers_figure_find("penny-fig3");
  ENSURE(f != NULL);
  int st = f->run(f->name, out_path("fig3.png"), &o, msg, sizeof msg);
  fclose(o.out);
  if (st != NH_OK) printf("  %s\n", msg);
  ENSURE(st == NH_OK);
  ENSURE(check_plot_file(out_path("fig3.png")) == 0);
  char buf[512] = "";
  FILE *fp = fopen(res, "r");
  ENSURE(fp != NULL);
  ENSURE(fgets(buf, sizeof buf, fp) != NULL);
  fclose(fp);
  ENSURE(strncmp(buf, "penny-fig3: 3 impacts by t = ", 29) == 0);
  o.out = stdout;
  ENSURE(f->run(f->name, "/nonexistent-nholo-dir/f.png", &o, msg, sizeof msg) == NH_ERR_IO);
  ENSURE(strstr(msg, "cannot write '") == msg);
  /* more panel times than the figure holds: bad input */
  o.ntimes = PAPERS_MAX_TIMES + 1;
  f = papers_figure_find("penny-fig5");
  ENSURE(f->run(f->name, out_path("f5.png"), &o, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(!file_exists(out_path("f5.png")));
  return 0;
}

/* ---- main ------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  if (files_init("test_papers") != 0) return 1;
  RUN_TEST(test_registry);
  RUN_TEST(test_plot_penny);
  RUN_TEST(test_plot_ensemble);
  RUN_TEST(test_penny_bad);
  RUN_TEST(test_run_figure);
  files_finish();
  return TEST_SUMMARY();
}

