/* test_component_hdf5.c - the hdf5 component (nholo-hdf5.so: HDF5 and MPI) opened on first use
 * (src/base/module.h), read from the process's own mappings (/proc/self/maps).
 *
 *   test_component_hdf5 lazy    runs, ensembles to CSV and nh_ensemble_mpi_init without a
 *                             launcher map neither HDF5 nor MPI; nh_ensemble_hdf5() maps them
 *                             when the build has the component (NHOLO_TEST_HDF5)
 *   test_component_hdf5 missing  NHOLO_MODULE_PATH=/nonexistent set before the first use: every
 *                             HDF5 or MPI request fails with NH_ERR_COMPONENT and why, nothing
 *                             written; what needs neither still runs */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

/* 1 when a mapping of this process names needle, 0 when none does, -1 without /proc */
static int mapped(const char *needle) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return -1;
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, needle) != NULL;
  fclose(f);
  return found;
}

/* a small penny ensemble (x varied) into out (Nullable) */
static int penny_ensemble(nh_model *m, const nh_ensemble_out *out, int mpi, nh_ensemble_stats *st, char *msg,
                          size_t msg_size) {
  nh_ensemble_var v;
  if (nh_ensemble_parse_var("x=uniform:0:0.01", &v, msg, msg_size) != NH_OK) return NH_ERR_ARG;
  v.index = 0;
  nh_ensemble_def d = {0};
  d.model = m, d.sim = nh_sim_def_default(), d.sim.method = nh_method_find("exact");
  d.t_end = 5.0, d.max_impacts = 3, d.nvar = 1, d.vars = &v, d.replicas = 10, d.mpi = mpi;
  return nh_ensemble_run_to(&d, out, st, msg, msg_size);
}

/* ---- lazy: the component is opened by what needs it alone ---------------------------------- */

static int test_lazy_open(void) {
  static const char *const launchers[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_STEP_NUM_TASKS"};
  for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) unsetenv(launchers[i]);
  if (mapped("/") < 0) SKIP("no /proc/self/maps");
  nh_penny_params p = nh_penny_params_default();
  nh_model *m = nh_penny_create(&p, NULL, 0);
  ENSURE(m);
  char msg[512];
  nh_ensemble_stats st;
  // an ensemble to CSV and one without output: single-process ranks and sums, nothing opened
  const char *csv = "test_components.csv";
  nh_ensemble_out out = {csv, NH_ENSEMBLE_CSV, 0, NULL, NULL, 0};
  remove(csv);
  ENSURE(penny_ensemble(m, &out, 0, &st, msg, sizeof msg) == NH_OK);
  ENSURE(st.members == 10 && st.ok == 10 && st.ranks == 1);
  nh_ensemble_stats_free(&st);
  remove(csv);
  ENSURE(penny_ensemble(m, NULL, 0, &st, msg, sizeof msg) == NH_OK && st.members == 10);
  nh_ensemble_stats_free(&st);
  // MPI start-up without a launcher: rank 0 of 1, the AND over the ranks is ok itself
  int rank = -1, size = -1;
  ENSURE(nh_ensemble_mpi_init(NULL, NULL, &rank, &size) == 0 && rank == 0 && size == 1);
  ENSURE(nh_ensemble_mpi_all(1) == 1 && nh_ensemble_mpi_all(0) == 0);
  nh_ensemble_mpi_finalize();
  ENSURE(mapped("nholo-hdf5") == 0 && mapped("libhdf5") == 0 && mapped("libmpi") == 0);
  // asking whether HDF5 is there opens it
#ifdef NHOLO_TEST_HDF5
  ENSURE(nh_ensemble_hdf5() == 1);
  ENSURE(mapped("nholo-hdf5.so") == 1 && mapped("libhdf5") == 1);
#else
  ENSURE(nh_ensemble_hdf5() == 0 && nh_ensemble_mpi() == 0);
#endif
  nh_model_destroy(m);
  return 0;
}

/* ---- missing: NHOLO_MODULE_PATH names no directory of modules ------------------------------ */

static int test_missing_component(void) {
  char info[1024];
  ENSURE(nh_component_load("hdf5", info, sizeof info) == 0);
  ENSURE(strstr(info, "HDF5 is unavailable: the hdf5 module nholo-hdf5.so was not found") == info);
  ENSURE(strstr(info, "NHOLO_MODULE_PATH=/nonexistent") != NULL);
  ENSURE(nh_ensemble_hdf5() == 0 && nh_ensemble_mpi() == 0);
  return 0;
}

static int test_missing_hdf5_output(void) {
  nh_penny_params p = nh_penny_params_default();
  nh_model *m = nh_penny_create(&p, NULL, 0);
  ENSURE(m);
  char msg[1024], tmp[64];
  nh_ensemble_stats st;
  struct stat sb;
  const char *h5 = "test_components.h5";
  nh_ensemble_out out = {h5, NH_ENSEMBLE_HDF5, 0, "penny", "exact", 0};
  remove(h5);
  ENSURE(penny_ensemble(m, &out, 0, &st, msg, sizeof msg) == NH_ERR_COMPONENT);
  ENSURE(strstr(msg, "ensemble: 'test_components.h5': HDF5 is unavailable: the hdf5 module nholo-hdf5.so") == msg);
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", h5, (long)getpid());
  ENSURE(stat(h5, &sb) != 0 && stat(tmp, &sb) != 0);
  // MPI asked for: the same component, the same reason
  ENSURE(penny_ensemble(m, NULL, 1, &st, msg, sizeof msg) == NH_ERR_COMPONENT);
  ENSURE(strstr(msg, "ensemble: MPI: HDF5 is unavailable: the hdf5 module nholo-hdf5.so") == msg);
  // a member file
  char names[4][NH_MAX_NAME];
  int ncols = -1;
  double *table = (double *)&ncols;
  long rows = -1;
  ENSURE(nh_ensemble_read_members_h5(h5, names, 4, &ncols, &table, &rows, msg, sizeof msg) == NH_ERR_COMPONENT);
  ENSURE(table == NULL && rows == 0 && ncols == 0 && strstr(msg, "'test_components.h5': HDF5 is unavailable") == msg);
  // what needs neither runs: the statistics of an ensemble without a file, on one process
  ENSURE(penny_ensemble(m, NULL, 0, &st, msg, sizeof msg) == NH_OK);
  ENSURE(st.members == 10 && st.ok == 10 && st.ranks == 1);
  nh_ensemble_stats_free(&st);
  int rank = -1, size = -1;
  setenv("OMPI_COMM_WORLD_SIZE", "2", 1); /* a launcher seen, the component missing: one process */
  ENSURE(nh_ensemble_mpi_init(NULL, NULL, &rank, &size) == 0 && rank == 0 && size == 1);
  ENSURE(nh_ensemble_mpi_all(1) == 1 && nh_ensemble_mpi_all(0) == 0);
  unsetenv("OMPI_COMM_WORLD_SIZE");
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  // before the first use of a component: the search reads NHOLO_MODULE_PATH then, once
  if (argc > 1 && strcmp(argv[1], "missing") == 0) setenv("NHOLO_MODULE_PATH", "/nonexistent", 1);
  TEST_INIT(argc, argv);
  RUN_TEST(test_lazy_open);
  RUN_TEST(test_missing_component);
  RUN_TEST(test_missing_hdf5_output);
  return TEST_SUMMARY();
}
