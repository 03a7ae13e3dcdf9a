/* nholo_py.h - shared pieces of the Python binding (a client of the public C API only). */
#ifndef NHOLO_PY_H
#define NHOLO_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#ifndef NHOLO_PY_MAIN
#define NO_IMPORT_ARRAY
#endif
#define PY_ARRAY_UNIQUE_SYMBOL nholo_py_ARRAY_API
#include <numpy/arrayobject.h>

#include "nholo/ensemble.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

/* a message buffer large enough for every diagnostic (a located one has three lines) */
#define NHPY_MSG 4096

/* How to build the model again with more overrides (ensembles that vary a parameter). */
typedef struct nhpy_recipe {
  int kind;           /* 0 none, 1 model text (file or string), 2 built-in */
  char *text;         /* kind 1: the text (read from the file when loaded from one) */
  char *name;         /* kind 1: the file name in diagnostics (Nullable); kind 2: the built-in */
  int nset;
  char (*set_names)[NH_MAX_NAME];
  double *set_values;
  nh_backend backend;
  int project_initial;
  int law_set;
  nh_impact_law law;
  char *table;        /* kind 2: the penny's table (Nullable) */
  int cc_given;       /* kind 1: bit 1 cc_time, bit 2 cc_memory given (else the library's defaults) */
  double cc_time, cc_memory; /* the compiler's budget (compile_limit=, compile_memory=) */
} nhpy_recipe;

/* A model: owned nh_model, and a Python force over it when one is given. */
typedef struct PyModel {
  PyObject_HEAD
  nh_model *model;
  nhpy_recipe recipe;
  PyObject *base;        /* the model this one adds a force to (kept alive), or NULL */
  PyObject *force;       /* the Python force f(t, q, v) -> array (nq), or NULL */
  nh_force_fn base_force; /* the base model's own force (Nullable) */
} PyModel;

extern PyTypeObject PyModel_Type;
extern PyTypeObject PySim_Type;
extern PyObject *nhpy_ModelError, *nhpy_SimulationError;

/* The Python force of the run in progress on this thread (set around every call that may
 * evaluate a model with a Python force; NULL otherwise). */
typedef struct nhpy_force_ctx {
  PyModel *model;
  PyObject *error; /* set when the callable raised (the exception is kept pending) */
} nhpy_force_ctx;
extern _Thread_local nhpy_force_ctx *nhpy_cur_force;

/* a double vector of exactly n entries (borrowing the caller's array when it already is one) */
PyArrayObject *nhpy_vector(PyObject *obj, npy_intp n, const char *what);
/* a new (rows x cols) or (rows) double array copied from data */
PyObject *nhpy_array2(npy_intp rows, npy_intp cols, const double *data);
PyObject *nhpy_array1(npy_intp n, const double *data);
/* a list of n strings */
PyObject *nhpy_strings(int n, const char *const *s);
/* an impact law from "elastic", "plastic" or "restitution=E" (the command line's form) */
int nhpy_parse_law(PyObject *obj, nh_impact_law *law);
/* raise ValueError with a library message */
void nhpy_value_error(const char *msg);

/* sim.c: the module-level functions it adds */
PyObject *nhpy_ensemble(PyObject *self, PyObject *args, PyObject *kw);
/* ensemble.c: an ensemble's HDF5 member file, (names, values) */
PyObject *nhpy_read_members_h5(PyObject *self, PyObject *args);
/* lyapunov.c */
PyObject *nhpy_lyapunov(PyObject *self, PyObject *args, PyObject *kw);
int nhpy_sim_options(nh_sim_def *def, PyObject *kw);
/* bounds.c: 0 with ValueError naming key when x is not finite, or a count is negative; a run of
 * sim to t_end (observed: every sample shown to an observer) beyond nh_sim_check_run's bounds */
int nhpy_check_number(const char *key, double x);
int nhpy_check_count(const char *key, long long x);
int nhpy_check_run(const nh_sim *sim, double t_end, int observed);
/* summary.c: the summary of sim's run as the dict of `nholo run --json` (nh_summary_build) */
PyObject *nhpy_summary_dict(const nh_sim *sim, int status, double wall);
PyObject *nhpy_c_cycle(PyObject *mod, PyObject *args);

#endif
