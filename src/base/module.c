/* module.c - open the components of nholo on first use (module.h). */
#define _GNU_SOURCE /* dladdr, program_invocation_name */
#include "base/module.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/msg.h"

/* the build's module directories (CMake sets them; a build without them searches 1-3) */
#ifndef NHOLO_MODULE_INSTALL_DIR
#define NHOLO_MODULE_INSTALL_DIR ""
#endif
#ifndef NHOLO_MODULE_BUILD_DIR
#define NHOLO_MODULE_BUILD_DIR ""
#endif
#ifndef NHOLO_MODULE_REL
#define NHOLO_MODULE_REL "../lib/nholo-modules"
#endif
#define NH_MODULE_SUBDIR "nholo-modules"
#define NH_MODULE_DIRS 5 /* the places of the search (module.h) */

static const char *const module_names[NH_MODULE_COUNT] = {"plot", "hdf5", "cholmod"};
static const char *const module_brings[NH_MODULE_COUNT] = {"PLplot", "HDF5", "CHOLMOD"};

static pthread_mutex_t module_lock = PTHREAD_MUTEX_INITIALIZER;
static const void *module_table[NH_MODULE_COUNT];
static int module_tried[NH_MODULE_COUNT];
static char module_why[NH_MODULE_COUNT][320]; /* why a module tried is unavailable */
static char module_file[NH_MODULE_COUNT][PATH_MAX + 64]; /* the file of a module found */

const char *nh_module_name(nh_module_id id) {
  return (unsigned)id < NH_MODULE_COUNT ? module_names[id] : "?";
}

/* dir (PATH_MAX) <- the directory of the object holding this code ("" if unknown). The main
 * program's name from dladdr is its argv[0]: /proc/self/exe names it instead. */
static const char own_anchor = 0; /* an address inside this object */

static void own_dir(char *dir) {
  Dl_info info;
  char path[PATH_MAX];
  dir[0] = '\0';
  if (!dladdr(&own_anchor, &info) || !info.dli_fname) return;
  const char *name = info.dli_fname;
  if (!name[0] || strcmp(name, program_invocation_name) == 0 || !strchr(name, '/')) {
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return;
    path[n] = '\0';
  } else if (!realpath(name, path)) {
    return;
  }
  char *slash = strrchr(path, '/');
  if (!slash) return;
  *slash = '\0';
  snprintf(dir, PATH_MAX, "%s", path[0] ? path : "/");
}

/* the table in file path, or NULL with why (an absent file leaves why untouched) */
static const void *try_open(nh_module_id id, const char *path, char *why, size_t why_size) {
  if (access(path, F_OK) != 0) return NULL;
  // RTLD_LOCAL for every module, hdf5 too: its libmpi stays out of the global scope, and Open
  // MPI 4.1's components (mca_pml_ob1.so, ... which name no libmpi of their own) still resolve
  // under mpirun (tests/test_ensemble_mpi.sh; LD_DEBUG shows no failed lookup). An MPI whose
  // plugins did not would need RTLD_GLOBAL for the hdf5 module alone.
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    nh_set_msg(why, why_size, "%s: %s", path, e ? e : "dlopen failed");
    return NULL;
  }
  const void *(*entry)(void) = NULL;
  *(void **)&entry = dlsym(h, NH_MODULE_SYMBOL);
  const nh_module_head *head = entry ? (const nh_module_head *)entry() : NULL;
  static const size_t sizes[NH_MODULE_COUNT] = {sizeof(nh_module_plot), sizeof(nh_module_hdf5),
                                                 sizeof(nh_module_cholmod)};
  if (!head || head->abi != NH_MODULE_ABI || !head->version || strcmp(head->version, NH_MODULE_VERSION) != 0 ||
      !head->name || strcmp(head->name, module_names[id]) != 0 || head->size != sizes[id]) {
    nh_set_msg(why, why_size, "%s is not a module of this nholo (%s %s, ABI %d)", path, NH_MODULE_VERSION,
               module_names[id], NH_MODULE_ABI);
    dlclose(h);
    return NULL;
  }
  return head; /* (the handle stays open for the life of the process) */
}

static const void *search(nh_module_id id) {
  char own[PATH_MAX], dirs[NH_MODULE_DIRS][PATH_MAX], path[PATH_MAX + 64];
  int nd = 0;
  const char *env = getenv("NHOLO_MODULE_PATH");
  if (env && env[0]) snprintf(dirs[nd++], PATH_MAX, "%s", env);
  own_dir(own);
  if (nd == 0 && own[0]) {
    snprintf(dirs[nd++], PATH_MAX, "%.*s/%s", PATH_MAX - 32, own, NH_MODULE_SUBDIR);
    snprintf(dirs[nd++], PATH_MAX, "%.*s/%s", PATH_MAX - 256, own, NHOLO_MODULE_REL);
  }
  if (!env || !env[0]) {
    if (NHOLO_MODULE_INSTALL_DIR[0]) snprintf(dirs[nd++], PATH_MAX, "%s", NHOLO_MODULE_INSTALL_DIR);
    if (NHOLO_MODULE_BUILD_DIR[0]) snprintf(dirs[nd++], PATH_MAX, "%s", NHOLO_MODULE_BUILD_DIR);
  }
  char *why = module_why[id];
  why[0] = '\0';
  for (int d = 0; d < nd; d++) {
    snprintf(path, sizeof path, "%.*s/nholo-%s.so", PATH_MAX - 1, dirs[d], module_names[id]);
    const void *t = try_open(id, path, why, sizeof module_why[id]);
    if (t) {
      snprintf(module_file[id], sizeof module_file[id], "%s", path);
      return t;
    }
  }
  if (!why[0])
    nh_set_msg(why, sizeof module_why[id], "nholo-%s.so was not found (%s%s%s)", module_names[id],
               env && env[0] ? "NHOLO_MODULE_PATH=" : "set NHOLO_MODULE_PATH to its directory",
               env && env[0] ? env : NHOLO_MODULE_INSTALL_DIR[0] ? "; installed ones are in " : "",
               env && env[0] ? "" : NHOLO_MODULE_INSTALL_DIR);
  return NULL;
}

const void *nh_module_get(nh_module_id id, char *msg, size_t msg_size) {
  if ((unsigned)id >= NH_MODULE_COUNT) {
    nh_set_msg(msg, msg_size, "no such nholo module (%d)", (int)id);
    return NULL;
  }
  pthread_mutex_lock(&module_lock);
  if (!module_tried[id]) {
    module_table[id] = search(id);
    module_tried[id] = 1;
  }
  const void *t = module_table[id];
  if (!t)
    nh_set_msg(msg, msg_size, "%s is unavailable: the %s module %s", module_brings[id], module_names[id],
               module_why[id]);
  pthread_mutex_unlock(&module_lock);
  return t;
}

const char *nh_component_name(int i) { return i >= 0 && i < NH_MODULE_COUNT ? module_names[i] : NULL; }

int nh_component_load(const char *name, char *info, size_t info_size) {
  for (int i = 0; name && i < NH_MODULE_COUNT; i++) {
    if (strcmp(name, module_names[i]) != 0) continue;
    const nh_module_head *h = nh_module_get((nh_module_id)i, info, info_size);
    if (!h) return 0;
    nh_set_msg(info, info_size, "%s (%s)", h->what ? h->what : module_brings[i], module_file[i]);
    return 1;
  }
  nh_set_msg(info, info_size, "no component named '%s' (plot, hdf5, cholmod)", name ? name : "");
  return -1;
}
