/* ensemble.c - nholo._nholo.ensemble: nh_ensemble_run from Python; the members' rows go to a
 * CSV the Python side reads into a structured array. */
#include "nholo_py.h"

#include <stdlib.h>
#include <string.h>

nh_model *nhpy_recipe_build(const nhpy_recipe *r, int nextra, const char *const *xn, const double *xv,
                            nh_backend backend, char *msg, size_t size);

typedef struct ens_ctx {
  const nhpy_recipe *recipe;
  const nh_ensemble_var *vars;
  int nvar;
} ens_ctx;

/* a member's model from its parameter values (the state variables are set by the ensemble) */
static int build_member(const double *values, nh_model **model, char *msg, size_t size, void *user) {
  const ens_ctx *c = user;
  const char **names = malloc(sizeof(char *) * (size_t)(c->nvar + 1));
  double *vals = malloc(sizeof(double) * (size_t)(c->nvar + 1));
  int n = 0;
  *model = NULL;
  if (names && vals) {
    for (int j = 0; j < c->nvar; j++)
      if (c->vars[j].target == NH_VARY_PARAM) names[n] = c->vars[j].name, vals[n++] = values[j];
    *model = nhpy_recipe_build(c->recipe, n, names, vals, NH_BACKEND_TAPE, msg, size);
  }
  free(names), free(vals);
  return *model ? 0 : NH_ERR_ARG;
}

/* the state index of NAME (a coordinate, NAME' a velocity, an ODE state), or -1 */
static int state_index(const nh_model *m, const char *name) {
  for (int i = 0; i < m->nx; i++)
    if (strcmp(m->state_names[i], name) == 0) return i;
  size_t n = strlen(name);
  char base[NH_MAX_NAME];
  if (m->form == NH_FORM_ODE || n < 2 || n >= sizeof base || name[n - 1] != '\'') return -1;
  memcpy(base, name, n - 1), base[n - 1] = '\0';
  int i = nh_model_coord_index(m, base);
  return i < 0 ? -1 : m->nq + i;
}

/* a variable's target: a built-in with parameters by name (nh_builtin_params: the penny, the
 * sleigh, the snakeboard) takes every value through its overrides (consistent initial
 * velocities); a model file's state variables go into the state, its parameters rebuild the
 * member's model */
static int resolve(nh_ensemble_var *v, const PyModel *pm) {
  const nh_model *m = pm->model;
  const nhpy_recipe *r = &pm->recipe;
  const nh_builtin *b = r->kind == 2 ? nh_builtin_find(r->name) : NULL;
  const nh_builtin_params *bp = b ? b->params : NULL;
  int si = bp ? -1 : state_index(m, v->name);
  if (si >= 0) return v->target = NH_VARY_STATE, v->index = si, 1;
  int param = 0;
  if (bp) { /* a name the built-in's parameter block takes (as `nholo ensemble`) */
    void *probe = malloc(bp->size);
    if (!probe) return PyErr_NoMemory(), 0;
    bp->defaults(probe);
    param = bp->set(probe, v->name, 0.0);
    free(probe);
  }
  for (int i = 0; r->kind == 1 && i < m->npar && !param; i++) param = strcmp(m->param_names[i], v->name) == 0;
  if (!param) {
    PyErr_Format(PyExc_ValueError, "--vary: model '%s' has no parameter, coordinate or velocity '%s'",
                 r->name ? r->name : m->name, v->name); /* named as given (a path for a file) */
    return 0;
  }
  v->target = NH_VARY_PARAM, v->index = -1;
  return 1;
}

/* the statistics (ok: the members that completed, drifted: those of them that ended with
 * NH_DRIFT): of the final state, and over the sample grid when there is one (arrays
 * (nt, nstat) and (nt, nstat, NH_ENSEMBLE_NQ)) */
static PyObject *stats_dict(const nh_ensemble_stats *st) {
  PyObject *d = Py_BuildValue("{s:l,s:l,s:l,s:l,s:i,s:N,s:N,s:N,s:N}", "members", st->members, "ok", st->ok, "failed",
                              st->failed, "drifted", st->drifted, "threads", st->threads, "mean",
                              nhpy_array1(st->nx, st->mean), "var",
                              nhpy_array1(st->nx, st->var), "min", nhpy_array1(st->nx, st->min), "max",
                              nhpy_array1(st->nx, st->max));
  if (!d || st->nt <= 0) return d;
  npy_intp nt = st->nt, dims[3] = {st->nt, st->nstat, NH_ENSEMBLE_NQ};
  PyObject *tn = PyArray_SimpleNew(1, &nt, NPY_INT64), *q = PyArray_SimpleNew(3, dims, NPY_DOUBLE);
  if (tn)
    for (npy_intp k = 0; k < nt; k++) ((npy_int64 *)PyArray_DATA((PyArrayObject *)tn))[k] = st->t_n[k];
  if (q) memcpy(PyArray_DATA((PyArrayObject *)q), st->t_q, sizeof(double) * (size_t)(nt * st->nstat * NH_ENSEMBLE_NQ));
  PyObject *t = Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N}", "t_n", tn, "t_mean", nhpy_array2(nt, st->nstat, st->t_mean),
                              "t_var", nhpy_array2(nt, st->nstat, st->t_var), "t_min", nhpy_array2(nt, st->nstat, st->t_min),
                              "t_max", nhpy_array2(nt, st->nstat, st->t_max), "t_q", q);
  if (!t || PyDict_Update(d, t) < 0) Py_CLEAR(d);
  Py_XDECREF(t);
  return d;
}

/* the ensemble's own options (the Python side checks their combinations, as the command line) */
typedef struct ens_extra {
  double sample;
  int trajectories, no_impact_log, nstat;
  long chunk;
  nh_ensemble_stat *stats;
  PyArrayObject *table; /* explicit members: (rows, nvar) doubles, the columns named in vary */
} ens_extra;

static int get_extra(PyObject *x, ens_extra *e) {
  PyObject *v;
  memset(e, 0, sizeof *e);
  if (!PyDict_Check(x)) return PyErr_SetString(PyExc_TypeError, "ensemble: extra must be a dict"), 0;
  if ((v = PyDict_GetItemString(x, "sample")) && (e->sample = PyFloat_AsDouble(v)) == -1.0 && PyErr_Occurred()) return 0;
  if ((v = PyDict_GetItemString(x, "trajectories")) && (e->trajectories = PyObject_IsTrue(v)) < 0) return 0;
  if ((v = PyDict_GetItemString(x, "no_impact_log")) && (e->no_impact_log = PyObject_IsTrue(v)) < 0) return 0;
  if ((v = PyDict_GetItemString(x, "chunk")) && (e->chunk = PyLong_AsLong(v)) == -1 && PyErr_Occurred()) return 0;
  if ((v = PyDict_GetItemString(x, "stats"))) { /* a list of (index, lo, hi, bins) */
    PyObject *seq = PySequence_Fast(v, "stats: expected a list of (index, lo, hi, bins)");
    if (!seq) return 0;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    e->stats = calloc((size_t)n + 1, sizeof *e->stats);
    for (Py_ssize_t i = 0; e->stats && i < n; i++) {
      nh_ensemble_stat *sp = &e->stats[i];
      if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "iddi", &sp->index, &sp->lo, &sp->hi, &sp->bins)) break;
      e->nstat++;
    }
    Py_DECREF(seq);
    if (!e->stats) return PyErr_NoMemory(), 0;
    if (e->nstat < n) return 0;
  }
  if ((v = PyDict_GetItemString(x, "table")) && v != Py_None) {
    e->table = (PyArrayObject *)PyArray_FROMANY(v, NPY_DOUBLE, 2, 2, NPY_ARRAY_IN_ARRAY);
    if (!e->table) return 0;
  }
  return 1;
}

/* ensemble(model, out, format, t_end, vary, replicas, seed, threads, max_impacts, extra, **options):
 * out (None or a path) in nh_ensemble_format; vary the distributions, or with extra["table"]
 * the names of its columns */
PyObject *nhpy_ensemble(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  PyModel *pm;
  PyObject *outp, *vary, *extra;
  double t_end;
  long replicas = 1, max_impacts = 0;
  long long seed = 0;
  int threads = 0, format = NH_ENSEMBLE_CSV;
  if (!PyArg_ParseTuple(args, "O!OidOlLilO", &PyModel_Type, &pm, &outp, &format, &t_end, &vary, &replicas, &seed,
                        &threads, &max_impacts, &extra))
    return NULL;
  if (!nhpy_check_number("t_end", t_end) || !nhpy_check_count("seed", seed) || !nhpy_check_count("threads", threads) ||
      !nhpy_check_count("max_impacts", max_impacts))
    return NULL;
  if (pm->force) return PyErr_SetString(PyExc_ValueError, "ensemble: a model with a Python force runs one member at a time (use Simulation)"), NULL;
  const char *path = outp == Py_None ? NULL : PyUnicode_AsUTF8(outp);
  if (outp != Py_None && !path) return NULL;
  ens_extra ex;
  const int ok = get_extra(extra, &ex);
  PyObject *seq = ok ? PySequence_Fast(vary, "vary: expected a list of 'NAME=uniform:A:B' strings") : NULL;
  const int nvar = seq ? (int)PySequence_Fast_GET_SIZE(seq) : 0;
  nh_ensemble_var *vars = seq ? calloc((size_t)nvar + 1, sizeof *vars) : NULL;
  PyObject *out = NULL;
  char msg[NHPY_MSG];
  if (!vars) {
    if (seq) PyErr_NoMemory();
    goto done;
  }
  if (ex.table && PyArray_DIM(ex.table, 1) != nvar) {
    PyErr_SetString(PyExc_ValueError, "members: the table's columns and names differ in number");
    goto done;
  }
  int has_param = 0;
  for (int j = 0; j < nvar; j++) {
    const char *text = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, j));
    if (!text) goto done;
    if (ex.table && strlen(text) >= NH_MAX_NAME) {
      PyErr_Format(PyExc_ValueError, "--members: column name '%s' is too long", text);
      goto done;
    }
    if (ex.table) strcpy(vars[j].name, text); /* a column: its name only */
    else if (nh_ensemble_parse_var(text, &vars[j], msg, sizeof msg) != NH_OK) {
      PyErr_Format(PyExc_ValueError, "--vary: %s", msg); /* the command line's message */
      goto done;
    }
    for (int i = 0; i < j; i++)
      if (strcmp(vars[i].name, vars[j].name) == 0) {
        PyErr_Format(PyExc_ValueError, ex.table ? "--members: column '%s' appears twice" : "--vary: '%s' is varied twice",
                     vars[j].name);
        goto done;
      }
    if (!resolve(&vars[j], pm)) goto done;
    has_param |= vars[j].target == NH_VARY_PARAM;
  }
  for (int s = 0; s < ex.nstat; s++)
    if (ex.stats[s].index < 0 || ex.stats[s].index >= pm->model->nx) {
      PyErr_Format(PyExc_ValueError, "stats: index %d outside the state (nx = %d)", ex.stats[s].index, pm->model->nx);
      goto done;
    }
  nh_ensemble_def d;
  memset(&d, 0, sizeof d);
  d.model = pm->model;
  d.sim = nh_sim_def_default();
  if (!nhpy_sim_options(&d.sim, kw)) goto done;
  if (!d.sim.horizon) d.sim.horizon = t_end;
  if (!d.sim.method) d.sim.method = nh_sim_choose_method(pm->model, &d.sim, NULL, 0);
  if (nh_method_check(d.sim.method, pm->model, msg, sizeof msg) != NH_OK) {
    nhpy_value_error(msg);
    goto done;
  }
  ens_ctx ctx = {&pm->recipe, vars, nvar};
  d.t_end = t_end, d.max_impacts = max_impacts, d.nvar = nvar, d.vars = vars;
  d.replicas = replicas, d.seed = (uint64_t)seed, d.threads = threads;
  d.build = has_param ? build_member : NULL, d.build_user = &ctx;
  d.table = ex.table ? PyArray_DATA(ex.table) : NULL, d.table_rows = ex.table ? (long)PyArray_DIM(ex.table, 0) : 0;
  d.sample_dt = ex.sample, d.nstat = ex.nstat, d.stats = ex.stats, d.chunk = ex.chunk;
  const nh_ensemble_out eo = {path, format, ex.trajectories, pm->recipe.name ? pm->recipe.name : pm->model->name,
                              nh_method_name(d.sim.method), ex.no_impact_log};
  nh_ensemble_stats st;
  memset(&st, 0, sizeof st);
  int rc;
  Py_BEGIN_ALLOW_THREADS
  rc = nh_ensemble_run_to(&d, &eo, &st, msg, sizeof msg);
  Py_END_ALLOW_THREADS
  if (rc != NH_OK) nhpy_value_error(msg);
  else out = stats_dict(&st);
  nh_ensemble_stats_free(&st);
done:
  free(vars), free(ex.stats);
  Py_XDECREF(ex.table);
  Py_XDECREF(seq);
  return out;
}

/* read_members_h5(path) -> (names, values (rows, columns)): an ensemble's HDF5 member file */
#define NHPY_MAX_COLUMNS 64
PyObject *nhpy_read_members_h5(PyObject *self, PyObject *args) {
  (void)self;
  const char *path;
  if (!PyArg_ParseTuple(args, "s", &path)) return NULL;
  char names[NHPY_MAX_COLUMNS][NH_MAX_NAME], msg[NHPY_MSG];
  const char *np[NHPY_MAX_COLUMNS];
  int ncol = 0;
  long rows = 0;
  double *table = NULL;
  if (nh_ensemble_read_members_h5(path, names, NHPY_MAX_COLUMNS, &ncol, &table, &rows, msg, sizeof msg) != NH_OK)
    return PyErr_Format(PyExc_ValueError, "--members: %s", msg), NULL;
  for (int j = 0; j < ncol; j++) np[j] = names[j];
  PyObject *r = Py_BuildValue("(NN)", nhpy_strings(ncol, np), nhpy_array2(rows, ncol, table));
  free(table);
  return r;
}
