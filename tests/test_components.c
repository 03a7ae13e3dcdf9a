/* test_components.c - the components opened on first use (src/base/module.c).
 *
 *   test_components present   the build's modules load from the build tree
 *   test_components missing   NHOLO_MODULE_PATH names an empty place: every component says
 *                             why, the entries return NH_ERR_COMPONENT and write nothing
 *   test_components foreign   NHOLO_MODULE_PATH holds a module of another ABI (fake_module.c):
 *                             passed over, said */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "la/la.h"
#include "nholo/nholo.h"

static const char *mode = "present";

static int test_names(void) {
  ENSURE(strcmp(nh_component_name(0), "plot") == 0);
  ENSURE(strcmp(nh_component_name(1), "hdf5") == 0);
  ENSURE(strcmp(nh_component_name(2), "cholmod") == 0);
  ENSURE(nh_component_name(3) == NULL && nh_component_name(-1) == NULL);
  char info[512];
  ENSURE(nh_component_load("gnuplot", info, sizeof info) == -1 && strstr(info, "gnuplot"));
  return 0;
}

/* a one-panel figure: NH_OK when plot loads, else NH_ERR_COMPONENT and no file */
static int test_plot(void) {
  const double x[2] = {0.0, 1.0}, y[2] = {1.0, 2.0};
  nh_plot_curve c = {2, x, y, "y", NH_PLOT_LINE};
  nh_plot_panel p = {"panel", "x", "y", 1, &c, 0, 0.0 / 0.0};
  char path[64], msg[1200] = "", info[1200] = "";
  snprintf(path, sizeof path, "/tmp/nholo-test-components-%ld.png", (long)getpid());
  int loads = nh_component_load("plot", info, sizeof info);
  int rc = nh_plot_panels(path, 1, 1, 1, &p, "components", msg, sizeof msg);
  int exists = access(path, F_OK) == 0;
  unlink(path);
  if (strcmp(mode, "present") == 0) {
    ENSURE(loads == 1 && strstr(info, "PLplot") && strstr(info, "nholo-plot.so"));
    ENSURE(rc == NH_OK && exists);
  } else {
    ENSURE(loads == 0 && strstr(info, "nholo-plot.so"));
    ENSURE(strstr(info, strcmp(mode, "missing") == 0 ? "was not found" : "is not a module of this nholo"));
    ENSURE(rc == NH_ERR_COMPONENT && strstr(msg, "PLplot is unavailable") && !exists);
  }
  return 0;
}

/* the sparse solve's order: CHOLMOD's AMD when the component loads, else unavailable */
static int test_cholmod(void) {
  char info[1200];
  int loads = nh_component_load("cholmod", info, sizeof info);
  ENSURE(loads == nh_la_spchol_have_amd());
#ifdef NHOLO_TEST_CHOLMOD
  ENSURE(loads == (strcmp(mode, "present") == 0));
#endif
  const int rows[3] = {0, 1, 3}, cols[3] = {0, 0, 1}; /* [[x x], [x x]]: lower triangle by rows */
  nh_la_spchol *s = NULL;
  int rc = nh_la_spchol_analyze(2, rows, cols, NH_LA_ORDER_AMD, &s);
  ENSURE(loads ? rc == NH_OK && s : rc == NH_ERR_UNSUPPORTED && !s);
  nh_la_spchol_free(s);
  return 0;
}

int main(int argc, char **argv) {
  mode = argc > 1 ? argv[1] : "present";
  if (strcmp(mode, "missing") == 0)
    setenv("NHOLO_MODULE_PATH", "/nonexistent/nholo-modules", 1);
  else if (strcmp(mode, "foreign") == 0)
    setenv("NHOLO_MODULE_PATH", NHOLO_FAKE_MODULE_DIR, 1);
  else
    unsetenv("NHOLO_MODULE_PATH");
  RUN_TEST(test_names);
  RUN_TEST(test_plot);
  RUN_TEST(test_cholmod);
  return TEST_SUMMARY();
}
