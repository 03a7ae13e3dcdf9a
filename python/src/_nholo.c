/* _nholo.c - the Python module nholo._nholo: helpers, exceptions, models (loading, queries,
 * Python forces) and the lists of methods and built-ins. Simulations are in sim.c. */
#define NHOLO_PY_MAIN
#include "nholo_py.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

PyObject *nhpy_ModelError, *nhpy_SimulationError;
_Thread_local nhpy_force_ctx *nhpy_cur_force;

/* ---- helpers ---------------------------------------------------------------------------- */

PyArrayObject *nhpy_vector(PyObject *obj, npy_intp n, const char *what) {
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
  if (!a) return NULL;
  if (PyArray_DIM(a, 0) != n) {
    PyErr_Format(PyExc_ValueError, "%s: expected %zd values, got %zd", what, (Py_ssize_t)n,
                 (Py_ssize_t)PyArray_DIM(a, 0));
    Py_DECREF(a);
    return NULL;
  }
  return a;
}

PyObject *nhpy_array2(npy_intp rows, npy_intp cols, const double *data) {
  npy_intp dims[2] = {rows, cols};
  PyObject *a = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
  if (a && rows * cols > 0) memcpy(PyArray_DATA((PyArrayObject *)a), data, sizeof(double) * (size_t)(rows * cols));
  return a;
}

PyObject *nhpy_array1(npy_intp n, const double *data) {
  PyObject *a = PyArray_SimpleNew(1, &n, NPY_DOUBLE);
  if (a && n > 0) memcpy(PyArray_DATA((PyArrayObject *)a), data, sizeof(double) * (size_t)n);
  return a;
}

PyObject *nhpy_strings(int n, const char *const *s) {
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    PyObject *u = PyUnicode_FromString(s && s[i] ? s[i] : "");
    if (!u) return Py_DECREF(l), NULL;
    PyList_SET_ITEM(l, i, u);
  }
  return l;
}

void nhpy_value_error(const char *msg) { PyErr_SetString(PyExc_ValueError, msg); }

int nhpy_parse_law(PyObject *obj, nh_impact_law *law) {
  const char *text = PyUnicode_Check(obj) ? PyUnicode_AsUTF8(obj) : NULL;
  if (!text) {
    PyErr_SetString(PyExc_TypeError, "impact: expected 'elastic', 'plastic' or 'restitution=E'");
    return 0;
  }
  if (strcmp(text, "elastic") == 0) return law->kind = NH_IMPACT_ELASTIC, law->e = 1.0, 1;
  if (strcmp(text, "plastic") == 0) return law->kind = NH_IMPACT_PLASTIC, law->e = 1.0, 1;
  if (strncmp(text, "restitution=", 12) == 0) {
    char *end;
    errno = 0;
    double e = strtod(text + 12, &end);
    if (end == text + 12 || *end || errno) {
      PyErr_Format(PyExc_ValueError, "--impact: '%s' is not a number", text + 12);
      return 0;
    }
    if (!(e >= 0.0 && e <= 1.0)) {
      char m[128];
      snprintf(m, sizeof m, "--impact: coefficient of restitution %g is outside [0, 1]", e);
      nhpy_value_error(m);
      return 0;
    }
    return law->kind = NH_IMPACT_RESTITUTION, law->e = e, 1;
  }
  PyErr_Format(PyExc_ValueError, "--impact: unknown impact law '%s' (expected elastic, plastic or restitution=E)", text);
  return 0;
}

/* Raise ModelError from a diagnostic: "FILE:LINE:COL: error: WHAT" (then the line and a
 * caret) sets file, line, column and error; any other message leaves them None. */
static void model_error(const char *msg, const char *file) {
  char buf[NHPY_MSG];
  snprintf(buf, sizeof buf, "%s", msg);
  size_t n = strlen(buf);
  while (n > 0 && buf[n - 1] == '\n') buf[--n] = '\0';
  PyObject *exc = PyObject_CallFunction(nhpy_ModelError, "s", buf);
  if (!exc) return;
  PyObject *fo = Py_None, *lo = Py_None, *co = Py_None, *wo = NULL;
  const char *e = strstr(buf, ": error: "), *nl = strchr(buf, '\n');
  long line = 0, col = 0;
  const char *p = e;
  int ok = e && !(nl && nl < e);
  for (int k = 0; ok && k < 2; k++) { /* COL, then LINE, each after a ':' */
    const char *d = p;
    while (d > buf && d[-1] >= '0' && d[-1] <= '9') d--;
    ok = d != p && d > buf && d[-1] == ':';
    if (ok) *(k ? &line : &col) = strtol(d, NULL, 10), p = d - 1;
  }
  if (ok && p > buf) {
    fo = PyUnicode_FromStringAndSize(buf, p - buf);
    lo = PyLong_FromLong(line), co = PyLong_FromLong(col);
    wo = nl ? PyUnicode_FromStringAndSize(e + 9, nl - (e + 9)) : PyUnicode_FromString(e + 9);
  } else {
    Py_INCREF(fo), Py_INCREF(lo), Py_INCREF(co);
    if (file) Py_DECREF(fo), fo = PyUnicode_FromString(file);
    wo = PyUnicode_FromString(buf);
  }
  if (fo && lo && co && wo) {
    PyObject_SetAttrString(exc, "file", fo);
    PyObject_SetAttrString(exc, "line", lo);
    PyObject_SetAttrString(exc, "column", co);
    PyObject_SetAttrString(exc, "error", wo);
    PyErr_SetObject(nhpy_ModelError, exc);
  }
  Py_XDECREF(fo), Py_XDECREF(lo), Py_XDECREF(co), Py_XDECREF(wo);
  Py_DECREF(exc);
}

/* ---- the model type --------------------------------------------------------------------- */

static void recipe_free(nhpy_recipe *r) {
  free(r->text), free(r->name), free(r->set_names), free(r->set_values), free(r->table);
  memset(r, 0, sizeof *r);
}

static void model_dealloc(PyModel *self) {
  nh_model_destroy(self->model);
  recipe_free(&self->recipe);
  Py_XDECREF(self->base);
  Py_XDECREF(self->force);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyModel *model_wrap(nh_model *m) {
  PyModel *self = PyObject_New(PyModel, &PyModel_Type);
  if (!self) return nh_model_destroy(m), NULL;
  self->model = m;
  memset(&self->recipe, 0, sizeof self->recipe);
  self->base = self->force = NULL;
  self->base_force = NULL;
  return self;
}

/* the overrides {name: value} into the recipe (names kept for rebuilding) */
static int parse_sets(PyObject *sets, nhpy_recipe *r) {
  if (!sets || sets == Py_None) return 1;
  if (!PyDict_Check(sets)) return PyErr_SetString(PyExc_TypeError, "set: expected a dict {name: value}"), 0;
  Py_ssize_t n = PyDict_Size(sets), pos = 0;
  PyObject *k, *v;
  r->set_names = calloc((size_t)n + 1, sizeof *r->set_names);
  r->set_values = calloc((size_t)n + 1, sizeof(double));
  if (!r->set_names || !r->set_values) return PyErr_NoMemory(), 0;
  while (PyDict_Next(sets, &pos, &k, &v)) {
    const char *name = PyUnicode_Check(k) ? PyUnicode_AsUTF8(k) : NULL;
    if (!name) return PyErr_SetString(PyExc_TypeError, "set: names must be strings"), 0;
    if (strlen(name) >= NH_MAX_NAME) return PyErr_Format(PyExc_ValueError, "--set: name too long in '%s'", name), 0;
    double x = PyFloat_AsDouble(v);
    if (x == -1.0 && PyErr_Occurred()) return 0;
    strcpy(r->set_names[r->nset], name);
    r->set_values[r->nset++] = x;
  }
  return 1;
}

static const char *const *set_name_ptrs(const nhpy_recipe *r, const char **buf) {
  for (int i = 0; i < r->nset; i++) buf[i] = r->set_names[i];
  return buf;
}

/* the compiler's budget of a load: compile_limit (seconds) and compile_memory (MiB), None for
 * the library's defaults, else a number >= 0 (0: no limit); 0 after raising ValueError */
static int parse_budget(PyObject *limit, PyObject *memory, nhpy_recipe *r) {
  PyObject *in[2] = {limit, memory};
  double *out[2] = {&r->cc_time, &r->cc_memory};
  static const char *const names[2] = {"compile_limit", "compile_memory"};
  for (int i = 0; i < 2; i++) {
    if (!in[i] || in[i] == Py_None) continue;
    const double v = PyFloat_AsDouble(in[i]);
    if (v == -1.0 && PyErr_Occurred()) return 0;
    if (!(v >= 0.0) || !isfinite(v))
      return PyErr_Format(PyExc_ValueError, "%s: %R must be a finite number >= 0 (0: no limit)", names[i], in[i]), 0;
    *out[i] = v, r->cc_given |= 1 << i;
  }
  return 1;
}

static void apply_budget(const nhpy_recipe *r, nh_load_opts *lo) {
  if (r->cc_given & 1) lo->cc_time_limit = r->cc_time;
  if (r->cc_given & 2) lo->cc_memory_limit = r->cc_memory;
}

/* build the model of a recipe with extra overrides (names, values); NULL with msg */
nh_model *nhpy_recipe_build(const nhpy_recipe *r, int nextra, const char *const *xn, const double *xv,
                            nh_backend backend, char *msg, size_t size);
nh_model *nhpy_recipe_build(const nhpy_recipe *r, int nextra, const char *const *xn, const double *xv,
                            nh_backend backend, char *msg, size_t size) {
  const int n = r->nset + nextra;
  const char **names = malloc(sizeof(char *) * ((size_t)n + 1));
  double *values = malloc(sizeof(double) * ((size_t)n + 1));
  nh_model *m = NULL;
  if (!names || !values) {
    snprintf(msg, size, "out of memory");
  } else {
    set_name_ptrs(r, names);
    if (r->nset > 0) memcpy(values, r->set_values, sizeof(double) * (size_t)r->nset);
    for (int i = 0; i < nextra; i++) names[r->nset + i] = xn[i], values[r->nset + i] = xv[i];
    if (r->kind == 1) {
      nh_load_opts lo = nh_load_opts_default();
      lo.backend = backend;
      lo.nset = n, lo.set_names = names, lo.set_values = values;
      lo.project_initial = r->project_initial;
      lo.impact_override = r->law_set, lo.impact = r->law;
      apply_budget(r, &lo);
      m = nh_model_parse(r->text, r->name, &lo, msg, size);
    } else {
      nh_builtin_opts bo = {n, names, values, r->law_set, r->law, r->table};
      m = nh_builtin_load(r->name, &bo, msg, size);
    }
  }
  free(names), free(values);
  return m;
}

static int parse_backend(const char *s, nh_backend *b) {
  if (!s || strcmp(s, "auto") == 0) return *b = NH_BACKEND_AUTO, 1;
  if (strcmp(s, "tape") == 0) return *b = NH_BACKEND_TAPE, 1;
  if (strcmp(s, "codegen") == 0) return *b = NH_BACKEND_CODEGEN, 1;
  PyErr_Format(PyExc_ValueError, "--backend: unknown back end '%s' (expected auto, tape or codegen)", s);
  return 0;
}

/* the loaders' end: the model m built from the recipe r, wrapped with r as its recipe; m NULL:
 * its message msg raised (model_file: as the ModelError of a model file's diagnostic, naming
 * r->name; else as a ValueError). On failure r is freed. */
static PyObject *recipe_wrap(nh_model *m, nhpy_recipe *r, const char *msg, int model_file) {
  if (!m) {
    if (model_file) model_error(msg, r->name);
    else nhpy_value_error(msg);
  }
  PyModel *self = m ? model_wrap(m) : NULL;
  if (!self) return recipe_free(r), NULL;
  self->recipe = *r;
  return (PyObject *)self;
}

/* load_file(path, set=None, backend="auto", project_initial=False, impact=None,
 * compile_limit=None, compile_memory=None) and load_string(text, filename=None, ...): a model file */
static PyObject *load_common(int from_file, PyObject *args, PyObject *kw) {
  static char *kwl[] = {"source", "filename", "set", "backend", "project_initial", "impact", "compile_limit",
                        "compile_memory", NULL};
  const char *src, *filename = NULL, *backend = NULL;
  PyObject *sets = NULL, *impact = Py_None, *limit = Py_None, *memory = Py_None;
  int proj = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s|zOzpOOO", kwl, &src, &filename, &sets, &backend, &proj, &impact,
                                   &limit, &memory))
    return NULL;
  nhpy_recipe r;
  memset(&r, 0, sizeof r);
  r.kind = 1;
  r.project_initial = proj;
  if (!parse_backend(backend, &r.backend) || !parse_sets(sets, &r) || !parse_budget(limit, memory, &r)) goto fail;
  if (impact != Py_None && !(r.law_set = nhpy_parse_law(impact, &r.law))) goto fail;
  if (from_file) {
    struct stat st;
    int bad = stat(src, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : !S_ISREG(st.st_mode) ? -1 : 0;
    char msg[NHPY_MSG];
    if (bad) {
      snprintf(msg, sizeof msg, "cannot read '%s': %s", src, bad > 0 ? strerror(bad) : "not a regular file");
      model_error(msg, src);
      goto fail;
    }
    char *t = nh_model_file_read(src, msg, sizeof msg);
    if (!t || !(r.text = strdup(t))) { /* r.text is released with free() */
      if (!t) model_error(msg, src);
      else PyErr_NoMemory();
      nh_free(t);
      goto fail;
    }
    nh_free(t);
    r.name = strdup(src);
  } else {
    r.text = strdup(src);
    r.name = filename ? strdup(filename) : NULL;
  }
  if (!r.text || (r.name == NULL && (from_file || filename))) {
    PyErr_NoMemory();
    goto fail;
  }
  char msg[NHPY_MSG];
  nh_model *m;
  Py_BEGIN_ALLOW_THREADS
  m = nhpy_recipe_build(&r, 0, NULL, NULL, r.backend, msg, sizeof msg);
  Py_END_ALLOW_THREADS
  return recipe_wrap(m, &r, msg, 1);
fail:
  recipe_free(&r);
  return NULL;
}

static PyObject *py_load_file(PyObject *mod, PyObject *args, PyObject *kw) {
  (void)mod;
  return load_common(1, args, kw);
}
static PyObject *py_load_string(PyObject *mod, PyObject *args, PyObject *kw) {
  (void)mod;
  return load_common(0, args, kw);
}

/* builtin(name, set=None, impact=None, table=None) */
static PyObject *py_builtin(PyObject *mod, PyObject *args, PyObject *kw) {
  (void)mod;
  static char *kwl[] = {"name", "set", "impact", "table", NULL};
  const char *name, *table = NULL;
  PyObject *sets = NULL, *impact = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s|OOz", kwl, &name, &sets, &impact, &table)) return NULL;
  nhpy_recipe r;
  memset(&r, 0, sizeof r);
  r.kind = 2;
  char msg[NHPY_MSG];
  if (!parse_sets(sets, &r)) goto fail;
  if (impact != Py_None && !(r.law_set = nhpy_parse_law(impact, &r.law))) goto fail;
  if (!(r.name = strdup(name)) || (table && !(r.table = strdup(table)))) {
    PyErr_NoMemory();
    goto fail;
  }
  nh_model *m = nhpy_recipe_build(&r, 0, NULL, NULL, NH_BACKEND_AUTO, msg, sizeof msg);
  return recipe_wrap(m, &r, msg, 0);
fail:
  recipe_free(&r);
  return NULL;
}

/* check(path, set=None, backend="auto", project_initial=False, compile_limit=None,
 * compile_memory=None): the report of `nholo check` (its first part, nh_model_describe) */
static PyObject *py_describe(PyObject *mod, PyObject *args, PyObject *kw) {
  (void)mod;
  static char *kwl[] = {"path", "set", "backend", "project_initial", "compile_limit", "compile_memory", NULL};
  const char *path, *backend = NULL;
  PyObject *sets = NULL, *limit = Py_None, *memory = Py_None;
  int proj = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s|OzpOO", kwl, &path, &sets, &backend, &proj, &limit, &memory))
    return NULL;
  nhpy_recipe r;
  memset(&r, 0, sizeof r);
  PyObject *out = NULL;
  const char *names[256];
  if (!parse_backend(backend, &r.backend) || !parse_sets(sets, &r) || !parse_budget(limit, memory, &r)) goto done;
  if (r.nset > 256) {
    PyErr_SetString(PyExc_ValueError, "--set: more than 256 overrides");
    goto done;
  }
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = r.backend, lo.project_initial = proj;
  lo.nset = r.nset, lo.set_names = set_name_ptrs(&r, names), lo.set_values = r.set_values;
  apply_budget(&r, &lo);
  char msg[NHPY_MSG];
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
    int e = errno;
    snprintf(msg, sizeof msg, "cannot read '%s': %s", path,
             stat(path, &st) != 0 ? strerror(e) : S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file");
    model_error(msg, path);
    goto done;
  }
  char *rep = nh_model_describe(path, &lo, msg, sizeof msg);
  if (!rep) {
    model_error(msg, path);
    goto done;
  }
  out = PyUnicode_FromString(rep);
  nh_free(rep);
done:
  recipe_free(&r);
  return out;
}

/* ---- Python forces ----------------------------------------------------------------------
 * A model with a Python force is a copy of its base model's definition whose force evaluator
 * calls the base model's own force (if any) and adds the callable's value. The evaluators
 * keep the base model's user pointer, so the callable is found through nhpy_cur_force, which
 * every entry point that may evaluate the model sets around the call (with the GIL held). */
static int py_force_tramp(double t, const double *q, const double *v, double *f, void *user) {
  nhpy_force_ctx *cx = nhpy_cur_force;
  if (!cx || !cx->model || cx->error) return -1;
  PyModel *pm = cx->model;
  const int nq = pm->model->nq;
  if (pm->base_force) {
    int rc = pm->base_force(t, q, v, f, user);
    if (rc) return rc;
  } else {
    memset(f, 0, sizeof(double) * (size_t)nq);
  }
  PyObject *qa = nhpy_array1(nq, q), *va = nhpy_array1(nq, v), *r = NULL;
  if (qa && va) r = PyObject_CallFunction(pm->force, "dOO", t, qa, va);
  Py_XDECREF(qa), Py_XDECREF(va);
  PyArrayObject *fa = r ? nhpy_vector(r, nq, "force") : NULL;
  Py_XDECREF(r);
  if (!fa) return cx->error = Py_None, -1; /* the exception stays pending */
  const double *d = PyArray_DATA(fa);
  for (int i = 0; i < nq; i++) f[i] += d[i];
  Py_DECREF(fa);
  return 0;
}

static PyObject *model_with_force(PyModel *self, PyObject *fn) {
  if (!PyCallable_Check(fn)) return PyErr_SetString(PyExc_TypeError, "with_force: expected a callable f(t, q, v)"), NULL;
  const nh_model *b = self->model;
  if (b->form != NH_FORM_MECHANICAL) return PyErr_SetString(PyExc_ValueError, "with_force: a first-order (ODE-form) model has no generalized forces"), NULL;
  if (self->force) return PyErr_SetString(PyExc_ValueError, "with_force: the model already has a Python force"), NULL;
  nh_model_def d = nh_model_def_default();
  d.name = b->name, d.nq = b->nq, d.nc = b->nc, d.ngap = b->ngap, d.npar = b->npar;
  d.coord_names = b->coord_names, d.constraint_names = b->constraint_names, d.gap_names = b->gap_names;
  d.param_names = b->param_names, d.param_values = b->param_values, d.impact = b->impact;
  d.q0 = b->q0, d.v0 = b->v0;
#define COPY_EVAL(name, type, exact) d.name = b->name;
  NH_EVALUATOR_LIST(COPY_EVAL)
#undef COPY_EVAL
  d.force = py_force_tramp;
  d.force_jac = NULL; /* finite differences of the whole force */
  d.flow = NULL, d.predict = NULL; /* a closed-form flow ignores forces */
  d.backend = b->backend;
  d.nmon = b->nmon, d.monitors = b->monitors;
  d.has_se2 = b->has_se2, memcpy(d.se2, b->se2, sizeof d.se2);
  d.mass_constant = b->mass_constant, d.gram_constant = b->gram_constant;
  d.mass_pattern = b->mass_pattern, d.constraint_pattern = b->constraint_pattern; /* keeps the sparse fills */
  d.user = b->user, d.user_size = 0;
  char msg[NHPY_MSG];
  nh_model *m = nh_model_create(&d, msg, sizeof msg);
  if (!m) return nhpy_value_error(msg), NULL;
  PyModel *pm = model_wrap(m);
  if (!pm) return NULL;
  Py_INCREF(self), pm->base = (PyObject *)self;
  Py_INCREF(fn), pm->force = fn;
  pm->base_force = b->force;
  return (PyObject *)pm;
}

/* ---- model queries ---------------------------------------------------------------------- */

static PyObject *model_energy(PyModel *self, PyObject *args) {
  PyObject *qo, *vo;
  if (!PyArg_ParseTuple(args, "OO", &qo, &vo)) return NULL;
  const nh_model *m = self->model;
  if (m->form != NH_FORM_MECHANICAL) return PyErr_SetString(PyExc_ValueError, "energy: a mechanical model only (use energy_x)"), NULL;
  PyArrayObject *q = nhpy_vector(qo, m->nq, "q"), *v = q ? nhpy_vector(vo, m->nq, "v") : NULL;
  double E = 0.0;
  int rc = v ? nh_model_energy(m, PyArray_DATA(q), PyArray_DATA(v), &E) : NH_ERR_ARG;
  Py_XDECREF(q), Py_XDECREF(v);
  if (PyErr_Occurred()) return NULL;
  if (rc) return nhpy_value_error(nh_status_string(rc)), NULL;
  return PyFloat_FromDouble(E);
}

static PyObject *model_energy_x(PyModel *self, PyObject *args) {
  PyObject *xo;
  double t = 0.0;
  if (!PyArg_ParseTuple(args, "O|d", &xo, &t)) return NULL;
  PyArrayObject *x = nhpy_vector(xo, self->model->nx, "x");
  if (!x) return NULL;
  double E = 0.0;
  int rc = nh_model_energy_x(self->model, t, PyArray_DATA(x), &E);
  Py_DECREF(x);
  if (rc) return nhpy_value_error(nh_status_string(rc)), NULL;
  return PyFloat_FromDouble(E);
}

/* accel(t, q, v) -> (a, lambda); q and v may be (n, nq) arrays of samples (t then (n)) */
static PyObject *model_accel(PyModel *self, PyObject *args) {
  PyObject *to, *qo, *vo;
  if (!PyArg_ParseTuple(args, "OOO", &to, &qo, &vo)) return NULL;
  const nh_model *m = self->model;
  if (m->form != NH_FORM_MECHANICAL) return PyErr_SetString(PyExc_ValueError, "accel: a mechanical model only"), NULL;
  const int nq = m->nq, nc = m->nc;
  PyArrayObject *t = (PyArrayObject *)PyArray_FROMANY(to, NPY_DOUBLE, 0, 1, NPY_ARRAY_IN_ARRAY);
  PyArrayObject *q = t ? (PyArrayObject *)PyArray_FROMANY(qo, NPY_DOUBLE, 1, 2, NPY_ARRAY_IN_ARRAY) : NULL;
  PyArrayObject *v = q ? (PyArrayObject *)PyArray_FROMANY(vo, NPY_DOUBLE, 1, 2, NPY_ARRAY_IN_ARRAY) : NULL;
  PyObject *a = NULL, *lam = NULL, *out = NULL;
  double *work = NULL;
  if (!v) goto done;
  const int batch = PyArray_NDIM(q) == 2;
  const npy_intp n = batch ? PyArray_DIM(q, 0) : 1;
  if (PyArray_NDIM(v) != PyArray_NDIM(q) || PyArray_DIM(q, batch) != nq || PyArray_DIM(v, batch) != nq ||
      (batch && PyArray_DIM(v, 0) != n) || PyArray_SIZE(t) != (batch ? n : 1)) {
    PyErr_Format(PyExc_ValueError, "accel: expected t (n), q and v (n, %d), or a scalar t and q, v (%d)", nq, nq);
    goto done;
  }
  npy_intp da[2] = {n, nq}, dl[2] = {n, nc};
  a = PyArray_SimpleNew(batch ? 2 : 1, batch ? da : da + 1, NPY_DOUBLE);
  lam = PyArray_SimpleNew(batch ? 2 : 1, batch ? dl : dl + 1, NPY_DOUBLE);
  work = malloc(sizeof(double) * (nh_model_accel_work_size(m) + 1));
  if (!a || !lam || !work) {
    if (!PyErr_Occurred()) PyErr_NoMemory();
    goto done;
  }
  nhpy_force_ctx cx = {self, NULL}, *saved = nhpy_cur_force;
  nhpy_cur_force = &cx;
  const double *tp = PyArray_DATA(t), *qp = PyArray_DATA(q), *vp = PyArray_DATA(v);
  double *ap = PyArray_DATA((PyArrayObject *)a), *lp = PyArray_DATA((PyArrayObject *)lam);
  int rc = NH_OK;
  for (npy_intp i = 0; i < n && rc == NH_OK; i++)
    rc = nh_model_accel(m, tp[i], qp + i * nq, vp + i * nq, ap + i * nq, lp + i * nc, work);
  nhpy_cur_force = saved;
  if (cx.error || PyErr_Occurred()) goto done;
  if (rc != NH_OK) {
    PyErr_Format(nhpy_SimulationError, "accel: %s", nh_status_string(rc));
    goto done;
  }
  out = PyTuple_Pack(2, a, lam);
done:
  free(work);
  Py_XDECREF(t), Py_XDECREF(q), Py_XDECREF(v), Py_XDECREF(a), Py_XDECREF(lam);
  return out;
}

static PyObject *model_index(PyModel *self, PyObject *args) {
  const char *what, *name;
  if (!PyArg_ParseTuple(args, "ss", &what, &name)) return NULL;
  int i = strcmp(what, "coord") == 0 ? nh_model_coord_index(self->model, name)
          : strcmp(what, "gap") == 0 ? nh_model_gap_index(self->model, name)
                                     : nh_model_monitor_index(self->model, name);
  return PyLong_FromLong(i);
}

static PyObject *model_info(PyModel *self, PyObject *unused) {
  (void)unused;
  const nh_model *m = self->model;
  const int mech = m->form == NH_FORM_MECHANICAL;
  PyObject *params = PyDict_New(), *mons = PyList_New(m->nmon), *laws = PyList_New(m->ngap);
  if (!params || !mons || !laws) goto fail;
  for (int i = 0; i < m->npar; i++) {
    PyObject *x = PyFloat_FromDouble(m->param_values[i]);
    if (!x || PyDict_SetItemString(params, m->param_names[i], x)) goto fail;
    Py_DECREF(x);
  }
  for (int i = 0; i < m->nmon; i++) PyList_SET_ITEM(mons, i, PyUnicode_FromString(m->monitors[i].name));
  for (int i = 0; i < m->ngap; i++) {
    char b[64];
    nh_impact_law l = m->impact[i];
    if (l.kind == NH_IMPACT_ELASTIC) snprintf(b, sizeof b, "elastic");
    else if (l.kind == NH_IMPACT_PLASTIC) snprintf(b, sizeof b, "plastic");
    else snprintf(b, sizeof b, "restitution=%.17g", l.e);
    PyList_SET_ITEM(laws, i, PyUnicode_FromString(b));
  }
  const nh_method *dm = nh_method_default_for(m);
  return Py_BuildValue(
      "{s:s,s:s,s:i,s:i,s:i,s:i,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:s,s:s,s:s,s:O,s:O,s:N,s:N}", "name", m->name,
      "form", mech ? "mechanical" : "ode", "nq", m->nq, "nc", m->nc, "ngap", m->ngap, "nx", m->nx, "coords",
      nhpy_strings(m->nq, m->coord_names), "constraints", nhpy_strings(m->nc, m->constraint_names), "gaps",
      nhpy_strings(m->ngap, m->gap_names), "state_names", nhpy_strings(m->nx, m->state_names), "params", params,
      "monitors", mons, "q0", nhpy_array1(m->nq, m->q0), "v0", mech ? nhpy_array1(m->nq, m->v0) : nhpy_array1(0, NULL),
      "x0", nhpy_array1(m->nx, m->x0), "impact_laws", laws, "backend", nh_model_backend(m), "backend_note", nh_model_backend_note(m), "default_method",
      dm ? nh_method_name(dm) : "", "has_flow", m->flow ? Py_True : Py_False, "python_force",
      self->force ? Py_True : Py_False, "mass_constant", PyBool_FromLong(m->mass_constant), "gram_constant", PyBool_FromLong(m->gram_constant));
fail:
  Py_XDECREF(params), Py_XDECREF(mons), Py_XDECREF(laws);
  return NULL;
}

static PyMethodDef model_methods[] = {
    {"energy", (PyCFunction)model_energy, METH_VARARGS, "energy(q, v): 1/2 v.M(q).v + V(q)"},
    {"energy_x", (PyCFunction)model_energy_x, METH_VARARGS, "energy_x(x, t=0): the energy at a first-order state"},
    {"accel", (PyCFunction)model_accel, METH_VARARGS,
     "accel(t, q, v) -> (a, lambda): accelerations and constraint multipliers (batched over rows)"},
    {"_index", (PyCFunction)model_index, METH_VARARGS, NULL},
    {"_info", (PyCFunction)model_info, METH_NOARGS, NULL},
    {"with_force", (PyCFunction)model_with_force, METH_O,
     "with_force(f): the model with f(t, q, v) -> (nq) added to its generalized forces (slower)"},
    {NULL, NULL, 0, NULL}};

PyTypeObject PyModel_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "nholo._nholo.Model",
    .tp_basicsize = sizeof(PyModel),
    .tp_dealloc = (destructor)model_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A constant nholo model (load it with nholo.load_file, load_string or builtin).",
    .tp_methods = model_methods,
};

/* ---- lists ----------------------------------------------------------------------------- */

static PyObject *py_methods(PyObject *mod, PyObject *unused) {
  (void)mod, (void)unused;
  const int n = nh_method_count();
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    const nh_method *m = nh_method_at(i);
    unsigned f = nh_method_flags(m);
    PyObject *d = Py_BuildValue("{s:s,s:i,s:s,s:s,s:O,s:O,s:O,s:O,s:O}", "name", nh_method_name(m), "order",
                                nh_method_order(m), "preserves", nh_method_preserves(m), "summary", nh_method_summary(m),
                                "adaptive", f & NH_METHOD_ADAPTIVE ? Py_True : Py_False, "exact",
                                f & NH_METHOD_EXACT ? Py_True : Py_False, "implicit",
                                f & NH_METHOD_IMPLICIT ? Py_True : Py_False, "symmetric",
                                f & NH_METHOD_SYMMETRIC ? Py_True : Py_False, "energy",
                                f & NH_METHOD_ENERGY ? Py_True : Py_False);
    if (!d) return Py_DECREF(l), NULL;
    PyList_SET_ITEM(l, i, d);
  }
  return l;
}

static PyObject *py_builtins(PyObject *mod, PyObject *unused) {
  (void)mod, (void)unused;
  const int n = nh_builtin_count();
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++)
    PyList_SET_ITEM(l, i, Py_BuildValue("(ss)", nh_builtin_at(i)->name, nh_builtin_at(i)->summary));
  return l;
}

static PyObject *py_supports(PyObject *mod, PyObject *args) {
  (void)mod;
  const char *name;
  PyModel *pm;
  if (!PyArg_ParseTuple(args, "sO!", &name, &PyModel_Type, &pm)) return NULL;
  const nh_method *me = nh_method_find(name);
  if (!me) return PyErr_Format(PyExc_ValueError, "--method: unknown method '%s' (see 'nholo list')", name), NULL;
  char msg[NHPY_MSG];
  if (nh_method_check(me, pm->model, msg, sizeof msg) == NH_OK) Py_RETURN_NONE;
  return PyUnicode_FromString(msg);
}

static PyObject *py_status_name(PyObject *mod, PyObject *args) {
  (void)mod;
  int s;
  if (!PyArg_ParseTuple(args, "i", &s)) return NULL;
  return Py_BuildValue("(ss)", nh_status_name(s), nh_status_string(s));
}

/* component_load(name) -> (1, what) when the component (plot, hdf5, cholmod) loads, (0, why)
 * when it does not, (-1, message) for an unknown name: nh_component_load */
static PyObject *py_component_load(PyObject *mod, PyObject *args) {
  (void)mod;
  const char *name;
  char info[1024];
  if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
  int rc;
  Py_BEGIN_ALLOW_THREADS
  rc = nh_component_load(name, info, sizeof info);
  Py_END_ALLOW_THREADS
  return Py_BuildValue("(is)", rc, info);
}

/* the module's attributes computed when first read (PEP 562): hdf5, 1 when the hdf5 component
 * loads (reading it opens HDF5; importing nholo does not) */
static PyObject *py_module_getattr(PyObject *mod, PyObject *name) {
  if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "hdf5") == 0) {
    PyObject *v = PyLong_FromLong(nh_ensemble_hdf5());
    if (v && PyObject_SetAttr(mod, name, v) < 0) Py_CLEAR(v); /* (the next read finds it) */
    return v;
  }
  return PyErr_Format(PyExc_AttributeError, "module 'nholo._nholo' has no attribute '%U'", name);
}

static PyObject *py_component_names(PyObject *mod, PyObject *unused) {
  (void)mod, (void)unused;
  PyObject *l = PyList_New(0);
  for (int i = 0; l && nh_component_name(i); i++) {
    PyObject *s = PyUnicode_FromString(nh_component_name(i));
    if (!s || PyList_Append(l, s) < 0) {
      Py_XDECREF(s);
      Py_DECREF(l);
      return NULL;
    }
    Py_DECREF(s);
  }
  return l;
}

static PyMethodDef module_methods[] = {
    {"load_file", (PyCFunction)(void (*)(void))py_load_file, METH_VARARGS | METH_KEYWORDS, NULL},
    {"load_string", (PyCFunction)(void (*)(void))py_load_string, METH_VARARGS | METH_KEYWORDS, NULL},
    {"builtin", (PyCFunction)(void (*)(void))py_builtin, METH_VARARGS | METH_KEYWORDS, NULL},
    {"describe", (PyCFunction)(void (*)(void))py_describe, METH_VARARGS | METH_KEYWORDS, NULL},
    {"ensemble", (PyCFunction)(void (*)(void))nhpy_ensemble, METH_VARARGS | METH_KEYWORDS, NULL},
    {"read_members_h5", nhpy_read_members_h5, METH_VARARGS, NULL},
    {"lyapunov", (PyCFunction)(void (*)(void))nhpy_lyapunov, METH_VARARGS | METH_KEYWORDS, NULL},
    {"methods", py_methods, METH_NOARGS, NULL},
    {"builtins", py_builtins, METH_NOARGS, NULL},
    {"method_check", py_supports, METH_VARARGS, NULL},
    {"status_name", py_status_name, METH_VARARGS, NULL},
    {"component_names", py_component_names, METH_NOARGS, NULL},
    {"component_load", py_component_load, METH_VARARGS, NULL},
    {"__getattr__", py_module_getattr, METH_O, NULL},
    {"_c_cycle", nhpy_c_cycle, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_nholo", "nholo's C extension (use the package nholo).",
                                        -1, module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__nholo(void) {
  import_array();
  if (PyType_Ready(&PyModel_Type) < 0 || PyType_Ready(&PySim_Type) < 0) return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  nhpy_ModelError = PyErr_NewExceptionWithDoc(
      "nholo.ModelError", "A model that cannot be read or built: the CLI's message, with file, line, column.",
      PyExc_ValueError, NULL);
  nhpy_SimulationError = PyErr_NewExceptionWithDoc(
      "nholo.SimulationError", "A run that failed numerically; .result holds what was computed.", PyExc_RuntimeError,
      NULL);
  if (!nhpy_ModelError || !nhpy_SimulationError) return NULL;
  Py_INCREF(nhpy_ModelError), Py_INCREF(nhpy_SimulationError);
  Py_INCREF(&PyModel_Type), Py_INCREF(&PySim_Type);
  PyModule_AddObject(m, "ModelError", nhpy_ModelError);
  PyModule_AddObject(m, "SimulationError", nhpy_SimulationError);
  PyModule_AddObject(m, "Model", (PyObject *)&PyModel_Type);
  PyModule_AddObject(m, "Simulation", (PyObject *)&PySim_Type);
  PyModule_AddStringConstant(m, "version", nh_version());
  PyModule_AddIntConstant(m, "parallel", nh_ensemble_parallel());
  /* (hdf5: read when first used, py_module_getattr) */
#define ADD_STATUS(name, value, text) PyModule_AddIntConstant(m, #name, value);
  NH_STATUS_LIST(ADD_STATUS)
#undef ADD_STATUS
  return m;
}
