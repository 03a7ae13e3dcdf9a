/* sim.c - nholo._nholo.Simulation: a simulation of a model, run to a time or a number of
 * impacts, step by step, with a recorded trajectory, the impact, event and contact logs,
 * statistics and the summary of `nholo run --json`; and ensembles. */
#include "nholo_py.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct PySim {
  PyObject_HEAD
  nh_sim *sim;
  PyModel *model;
  int record, busy, nomem;
  int width, has_v;             /* values per sample in q (nq or nx); v recorded */
  long n, cap;                  /* the recorded samples */
  double *t, *q, *v;
  int *kind;
  PyObject *observer;           /* the Python observer of the run in progress (borrowed) */
  int obs_failed;               /* it raised: the exception is pending */
  nhpy_force_ctx fcx;
} PySim;

/* ---- options (nholo/sim.h nh_sim_def), by name ------------------------------------------ */

typedef struct sim_opt {
  const char *name;
  char type; /* d double, i int, l long */
  size_t off;
} sim_opt;

static const sim_opt sim_opts[] = {
    {"h", 'd', offsetof(nh_sim_def, h)},
    {"h_max", 'd', offsetof(nh_sim_def, h_max)},
    {"h_min", 'd', offsetof(nh_sim_def, h_min)},
    {"rtol", 'd', offsetof(nh_sim_def, rtol)},
    {"atol", 'd', offsetof(nh_sim_def, atol)},
    {"max_steps", 'l', offsetof(nh_sim_def, max_steps)},
    {"out_dt", 'd', offsetof(nh_sim_def, out_dt)},
    {"event_samples", 'i', offsetof(nh_sim_def, event_samples)},
    {"event_tol", 'd', offsetof(nh_sim_def, event_tol)},
    {"vn_tol", 'd', offsetof(nh_sim_def, vn_tol)},
    {"zeno_interval", 'd', offsetof(nh_sim_def, zeno_interval)},
    {"zeno_count", 'i', offsetof(nh_sim_def, zeno_count)},
    {"contact", 'i', offsetof(nh_sim_def, contact)},
    {"constraint_tol", 'd', offsetof(nh_sim_def, constraint_tol)},
    {"project_initial", 'i', offsetof(nh_sim_def, project_initial)},
    {"log_limit", 'l', offsetof(nh_sim_def, log_limit)},
    {"simul_tol", 'd', offsetof(nh_sim_def, simul_tol)},
    {"simul_max_outcomes", 'i', offsetof(nh_sim_def, simul_max_outcomes)},
    {"midpoint_ld", 'i', offsetof(nh_sim_def, opts.midpoint_ld)},
    {"alpha", 'd', offsetof(nh_sim_def, opts.alpha)},
    {"dexp_order", 'i', offsetof(nh_sim_def, opts.dexp_order)},
    {"newton_tol", 'd', offsetof(nh_sim_def, opts.newton_tol)},
    {"newton_max_iter", 'i', offsetof(nh_sim_def, opts.newton_max_iter)},
    {"horizon", 'd', offsetof(nh_sim_def, horizon)},
};
#define NSIM_OPTS (sizeof sim_opts / sizeof sim_opts[0])

/* the index of text among names (n of them), or -1 */
static int find_name(const char *text, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(text, names[i]) == 0) return i;
  return -1;
}

/* the string options: method, retraction, variant, start, simul_order, impact_step */
static int string_opt(nh_sim_def *def, const char *key, PyObject *val) {
  static const char *const starts[] = {"paper", "consistent", "midpoint"};
  static const char *const orders[] = {"most-infeasible", "least", "index", "enumerate"};
  static const char *const steps[] = {"auto", "restart", "variational"};
  const char *s = PyUnicode_Check(val) ? PyUnicode_AsUTF8(val) : NULL;
  if (!s) return PyErr_Format(PyExc_TypeError, "%s: expected a string", key), 0;
  int i;
  if (strcmp(key, "method") == 0) {
    if (strcmp(s, "auto") == 0) return def->method = NULL, 1; /* chosen for the run: nh_sim_choose_method */
    if (!(def->method = nh_method_find(s)))
      return PyErr_Format(PyExc_ValueError, "--method: unknown method '%s' (see 'nholo list')", s), 0;
  } else if (strcmp(key, "retraction") == 0) {
    if ((i = nh_retraction_find(s)) < 0)
      return PyErr_Format(PyExc_ValueError, "--retraction: unknown retraction '%s' (expected exp, ccsk or cay)", s), 0;
    def->opts.retraction = (nh_retraction)i;
  } else if (strcmp(key, "variant") == 0) {
    if ((i = nh_variant_find(s)) < 0)
      return PyErr_Format(PyExc_ValueError, "--variant: unknown variant '%s' (expected symmetric or paper)", s), 0;
    def->opts.variant = (nh_variant)i;
  } else if (strcmp(key, "start") == 0) {
    if ((i = find_name(s, starts, 3)) < 0)
      return PyErr_Format(PyExc_ValueError, "--start: unknown start '%s' (expected paper, consistent or midpoint)", s), 0;
    def->opts.start = (nh_start)i;
  } else if (strcmp(key, "impact_step") == 0) {
    if ((i = find_name(s, steps, 3)) < 0)
      return PyErr_Format(PyExc_ValueError,
                          "--impact-step: unknown impact step '%s' (expected variational, restart or auto)", s), 0;
    def->impact_step = i;
  } else {
    if ((i = find_name(s, orders, 4)) < 0)
      return PyErr_Format(PyExc_ValueError,
                          "--order: unknown order '%s' (expected most-infeasible, least, index or enumerate)", s), 0;
    def->simul_order = i;
  }
  return 1;
}

int nhpy_sim_options(nh_sim_def *def, PyObject *kw) {
  PyObject *k, *v;
  Py_ssize_t pos = 0;
  int start_set = 0;
  while (kw && PyDict_Next(kw, &pos, &k, &v)) {
    const char *key = PyUnicode_AsUTF8(k);
    if (!key) return 0;
    if (v == Py_None) continue; /* None: the default */
    if (strcmp(key, "method") == 0 || strcmp(key, "retraction") == 0 || strcmp(key, "start") == 0 ||
        strcmp(key, "variant") == 0 || strcmp(key, "simul_order") == 0 || strcmp(key, "impact_step") == 0) {
      if (!string_opt(def, key, v)) return 0;
      start_set |= strcmp(key, "start") == 0;
      continue;
    }
    const sim_opt *o = NULL;
    for (size_t i = 0; i < NSIM_OPTS; i++)
      if (strcmp(sim_opts[i].name, key) == 0) o = &sim_opts[i];
    if (!o) return PyErr_Format(PyExc_TypeError, "unexpected option '%s'", key), 0;
    char *p = (char *)def + o->off;
    if (o->type == 'd') {
      double x = PyFloat_AsDouble(v);
      if ((x == -1.0 && PyErr_Occurred()) || !nhpy_check_number(key, x)) return 0;
      memcpy(p, &x, sizeof x);
    } else {
      long x = PyLong_AsLong(v);
      if ((x == -1 && PyErr_Occurred()) || !nhpy_check_count(key, x)) return 0;
      if (o->type == 'i') {
        if (x > 2147483647L || x < -2147483647L) return PyErr_Format(PyExc_ValueError, "%s: out of range", key), 0;
        int xi = (int)x;
        memcpy(p, &xi, sizeof xi);
      } else {
        memcpy(p, &x, sizeof x);
      }
    }
  }
  // start= belongs to the paper's variant (as the command line's --start)
  if (start_set && def->opts.variant != NH_VARIANT_PAPER)
    return PyErr_Format(PyExc_ValueError, "--start: the start of the paper's gni, rattle and shake: add "
                                          "variant='paper' (the default symmetric variant starts every step from "
                                          "the nodal state)"),
           0;
  return 1;
}

/* ---- the type --------------------------------------------------------------------------- */

static void sim_clear_record(PySim *s) {
  free(s->t), free(s->q), free(s->v), free(s->kind);
  s->t = s->q = s->v = NULL;
  s->kind = NULL;
  s->n = s->cap = 0;
}

static void sim_dealloc(PySim *self) {
  nh_sim_destroy(self->sim);
  sim_clear_record(self);
  Py_XDECREF(self->model);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Simulation(model, record=True, **options) */
static int sim_init(PySim *self, PyObject *args, PyObject *kw) {
  PyModel *pm;
  int record = 1;
  if (!PyArg_ParseTuple(args, "O!|p", &PyModel_Type, &pm, &record)) return -1;
  if (self->sim) return PyErr_SetString(PyExc_RuntimeError, "Simulation already initialised"), -1;
  const nh_model *m = pm->model;
  nh_sim_def def = nh_sim_def_default();
  PyObject *out_dt = kw ? PyDict_GetItemString(kw, "out_dt") : NULL;
  if (!nhpy_sim_options(&def, kw)) return -1;
  const nh_method *me = def.method ? def.method : nh_sim_choose_method(m, &def, NULL, 0);
  char msg[NHPY_MSG];
  if (nh_method_check(me, m, msg, sizeof msg) != NH_OK) return nhpy_value_error(msg), -1;
  /* an automatic method stays NULL: the library makes the same choice and keeps its reason */
  /* the command line's sampling: every 0.01 s on the exact flow, else every step */
  if (!out_dt || out_dt == Py_None) def.out_dt = (nh_method_flags(me) & NH_METHOD_EXACT) && record ? 0.01 : 0.0;
  nhpy_force_ctx cx = {pm, NULL}, *saved = nhpy_cur_force;
  nhpy_cur_force = &cx;
  self->sim = nh_sim_create(m, &def, msg, sizeof msg);
  nhpy_cur_force = saved;
  if (!self->sim) {
    if (!PyErr_Occurred()) nhpy_value_error(msg);
    return -1;
  }
  Py_INCREF(pm);
  self->model = pm;
  self->record = record;
  self->width = m->form == NH_FORM_ODE ? m->nx : m->nq;
  self->has_v = m->form != NH_FORM_ODE;
  self->fcx.model = pm;
  return 0;
}

/* 0 with RuntimeError when __init__ did not run (a subclass that skipped it) */
static int sim_ready(PySim *s) {
  if (s->sim) return 1;
  PyErr_SetString(PyExc_RuntimeError, "Simulation not initialised");
  return 0;
}

static int record_sample(PySim *s, nh_sample_kind kind, double t, const double *q, const double *v) {
  if (s->n == s->cap) {
    long cap = s->cap ? 2 * s->cap : 256;
    size_t w = (size_t)(s->width > 0 ? s->width : 1);
    double *nt = realloc(s->t, sizeof(double) * (size_t)cap);
    if (nt) s->t = nt;
    double *nq = nt ? realloc(s->q, sizeof(double) * w * (size_t)cap) : NULL;
    if (nq) s->q = nq;
    double *nv = nq ? realloc(s->v, sizeof(double) * w * (size_t)cap) : NULL;
    if (nv) s->v = nv;
    int *nk = nv ? realloc(s->kind, sizeof(int) * (size_t)cap) : NULL;
    if (!nk) return s->nomem = 1, 1;
    s->kind = nk, s->cap = cap;
  }
  const size_t w = (size_t)s->width, off = (size_t)s->n * w;
  s->t[s->n] = t;
  s->kind[s->n] = (int)kind;
  memcpy(s->q + off, q, sizeof(double) * w);
  if (s->has_v && v) memcpy(s->v + off, v, sizeof(double) * w);
  else memset(s->v + off, 0, sizeof(double) * w);
  s->n++;
  return 0;
}

/* the observer of every run: records the sample, then shows it to the Python observer */
static int sim_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q, const double *v,
                        void *user) {
  (void)sim;
  PySim *s = user;
  if (s->record && record_sample(s, kind, t, q, v)) return 1;
  if (!s->observer) return 0;
  PyObject *qa = nhpy_array1(s->width, q), *va = s->has_v && v ? nhpy_array1(s->width, v) : (Py_INCREF(Py_None), Py_None);
  PyObject *r = qa && va ? PyObject_CallFunction(s->observer, "idOO", (int)kind, t, qa, va) : NULL;
  Py_XDECREF(qa), Py_XDECREF(va);
  if (!r) return s->obs_failed = 1, 1;
  int stop = PyObject_IsTrue(r);
  Py_DECREF(r);
  if (stop < 0) return s->obs_failed = 1, 1;
  return stop;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* enter a run: one at a time, with the force context; 0 when busy */
static int sim_enter(PySim *s, nhpy_force_ctx **saved) {
  if (!s->sim) return PyErr_SetString(PyExc_RuntimeError, "Simulation not initialised"), 0;
  if (s->busy) return PyErr_SetString(PyExc_RuntimeError, "Simulation is running (from an observer or a thread)"), 0;
  s->busy = 1;
  s->nomem = s->obs_failed = 0;
  s->fcx.error = NULL;
  *saved = nhpy_cur_force;
  nhpy_cur_force = &s->fcx;
  return 1;
}

/* leave: NULL with the pending exception of an observer or a force, or MemoryError */
static int sim_leave(PySim *s, nhpy_force_ctx *saved) {
  nhpy_cur_force = saved;
  s->busy = 0;
  s->observer = NULL;
  if (PyErr_Occurred()) return 0;
  if (s->nomem) return PyErr_NoMemory(), 0;
  return 1;
}

/* _run(t_end, max_impacts=0, observer=None, breaks=None) -> (status, wall seconds) */
static PyObject *sim_run(PySim *self, PyObject *args, PyObject *kw) {
  static char *kwl[] = {"t_end", "max_impacts", "observer", "breaks", NULL};
  double t_end;
  long max_impacts = 0;
  PyObject *obs = Py_None, *breaks = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "d|lOO", kwl, &t_end, &max_impacts, &obs, &breaks)) return NULL;
  if (obs != Py_None && !PyCallable_Check(obs)) return PyErr_SetString(PyExc_TypeError, "observer: expected a callable"), NULL;
  if (!nhpy_check_count("max_impacts", max_impacts)) return NULL;
  if (self->sim && !nhpy_check_run(self->sim, t_end, self->record || obs != Py_None)) return NULL;
  PyArrayObject *br = NULL;
  if (breaks != Py_None && !(br = (PyArrayObject *)PyArray_FROMANY(breaks, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY)))
    return NULL;
  nhpy_force_ctx *saved;
  if (!sim_enter(self, &saved)) return Py_XDECREF(br), NULL;
  self->observer = obs == Py_None ? NULL : obs;
  nh_observer_fn fn = self->record || self->observer ? sim_observer : NULL;
  const int gil = self->observer || self->model->force; /* Python is called during the run */
  int status;
  double t0 = now_seconds(), wall;
  PyThreadState *ts = gil ? NULL : PyEval_SaveThread();
  if (br) status = nh_sim_run_breaks(self->sim, t_end, max_impacts, PyArray_DATA(br), (int)PyArray_SIZE(br), fn, self);
  else status = nh_sim_run(self->sim, t_end, max_impacts, fn, self);
  wall = now_seconds() - t0;
  if (ts) PyEval_RestoreThread(ts);
  Py_XDECREF(br);
  if (!sim_leave(self, saved)) return NULL;
  return Py_BuildValue("(id)", status, wall);
}

/* step(t_max=inf) -> (status, impacted) */
static PyObject *sim_step(PySim *self, PyObject *args) {
  double t_max = INFINITY;
  if (!PyArg_ParseTuple(args, "|d", &t_max)) return NULL;
  nhpy_force_ctx *saved;
  if (!sim_enter(self, &saved)) return NULL;
  int impacted = 0, status = nh_sim_step(self->sim, t_max, &impacted);
  if (!sim_leave(self, saved)) return NULL;
  return Py_BuildValue("(iO)", status, impacted ? Py_True : Py_False);
}

/* set_state(t, q, v=None): q the whole state x for an ODE-form model */
static PyObject *sim_set_state(PySim *self, PyObject *args) {
  if (!sim_ready(self)) return NULL;
  double t;
  PyObject *qo, *vo = Py_None;
  if (!PyArg_ParseTuple(args, "dO|O", &t, &qo, &vo)) return NULL;
  const nh_model *m = self->model->model;
  PyArrayObject *q = nhpy_vector(qo, self->width, "q"), *v = NULL;
  if (!q) return NULL;
  if (self->has_v && !(v = nhpy_vector(vo, m->nq, "v"))) return Py_DECREF(q), NULL;
  nhpy_force_ctx *saved;
  if (!sim_enter(self, &saved)) return Py_DECREF(q), Py_XDECREF(v), NULL;
  int rc = nh_sim_set_state(self->sim, t, PyArray_DATA(q), v ? PyArray_DATA(v) : NULL);
  Py_DECREF(q), Py_XDECREF(v);
  if (!sim_leave(self, saved)) return NULL;
  if (rc < 0) {
    const char *d = nh_sim_message(self->sim);
    PyErr_Format(PyExc_ValueError, "set_state: %s%s%s", nh_status_string(rc), d[0] ? ": " : "", d);
    return NULL;
  }
  sim_clear_record(self);
  return PyLong_FromLong(rc);
}

static void capsule_free(PyObject *cap) { free(PyCapsule_GetPointer(cap, NULL)); }

/* an array over malloc'd data it then owns (freed with it); data is freed on failure */
static PyObject *owned_array(int nd, npy_intp *dims, int type, void *data) {
  if (!data || dims[0] == 0) {
    free(data);
    return PyArray_ZEROS(nd, dims, type, 0);
  }
  PyObject *a = PyArray_SimpleNewFromData(nd, dims, type, data);
  PyObject *cap = a ? PyCapsule_New(data, NULL, capsule_free) : NULL;
  if (!cap) {
    Py_XDECREF(a);
    free(data);
    return NULL;
  }
  if (PyArray_SetBaseObject((PyArrayObject *)a, cap) < 0) { /* steals cap, which frees data */
    Py_DECREF(a);
    return NULL;
  }
  return a;
}

/* _trajectory() -> (t, q, v, kind): the record handed over to numpy without a copy (the
 * simulation starts a new record) */
static PyObject *sim_trajectory(PySim *self, PyObject *unused) {
  (void)unused;
  if (!sim_ready(self)) return NULL;
  if (self->busy) return PyErr_SetString(PyExc_RuntimeError, "Simulation is running"), NULL;
  npy_intp n[2] = {self->n, self->width};
  double *tb = self->t, *qb = self->q, *vb = self->v;
  int *kb = self->kind;
  self->t = self->q = self->v = NULL;
  self->kind = NULL;
  self->n = self->cap = 0;
  PyObject *t = owned_array(1, n, NPY_DOUBLE, tb), *q = owned_array(2, n, NPY_DOUBLE, qb);
  PyObject *v = NULL;
  if (self->has_v) v = owned_array(2, n, NPY_DOUBLE, vb);
  else free(vb), v = (Py_INCREF(Py_None), Py_None);
  PyObject *k = owned_array(1, n, NPY_INT, kb);
  if (!t || !q || !v || !k) return Py_XDECREF(t), Py_XDECREF(q), Py_XDECREF(v), Py_XDECREF(k), NULL;
  return Py_BuildValue("(NNNN)", t, q, v, k);
}

static PyObject *sim_clear(PySim *self, PyObject *unused) {
  (void)unused;
  if (self->busy) return PyErr_SetString(PyExc_RuntimeError, "Simulation is running"), NULL;
  sim_clear_record(self);
  Py_RETURN_NONE;
}

/* ---- logs as columns (the Python side makes structured arrays of them) ------------------- */

/* n rows of w doubles each from rows[i] (NULL rows give zeros) */
typedef struct cols {
  long n;
  PyObject *d; /* dict */
} cols;

static double *col_new(cols *c, const char *key, int width, int is_int) {
  npy_intp dims[2] = {c->n, width};
  PyObject *a = PyArray_ZEROS(width < 0 ? 1 : 2, dims, is_int ? NPY_INT32 : NPY_DOUBLE, 0);
  if (!a) return NULL;
  int rc = PyDict_SetItemString(c->d, key, a);
  Py_DECREF(a);
  return rc ? NULL : PyArray_DATA((PyArrayObject *)a);
}

static void copyrow(double *dst, long i, int w, const double *src) {
  if (src && w > 0) memcpy(dst + (size_t)i * (size_t)w, src, sizeof(double) * (size_t)w);
}

static PyObject *sim_impacts(PySim *self, PyObject *unused) {
  (void)unused;
  if (!sim_ready(self)) return NULL;
  const nh_model *m = self->model->model;
  const int nq = m->nq, nc = m->nc;
  cols c = {nh_sim_impact_count(self->sim), PyDict_New()};
  if (!c.d) return NULL;
  long kept = 0;
  nh_impact_record r;
  while (kept < c.n && nh_sim_impact_get(self->sim, kept, &r) == NH_OK) kept++;
  c.n = kept; /* the log may keep fewer records than the count (log_limit) */
  double *t = col_new(&c, "t", -1, 0), *al = col_new(&c, "alpha", -1, 0);
  double *eb = col_new(&c, "energy_before", -1, 0), *ea = col_new(&c, "energy_after", -1, 0);
  double *vb = col_new(&c, "vn_before", -1, 0), *va = col_new(&c, "vn_after", -1, 0);
  int *gap = (int *)col_new(&c, "gap", -1, 1), *st = (int *)col_new(&c, "status", -1, 1);
  int *nco = (int *)col_new(&c, "contacts", -1, 1);
  const int nv = nq ? nq : m->nx; /* an almost-Poisson model's records carry its states */
  double *q = col_new(&c, "q", nq, 0), *vbe = col_new(&c, "v_before", nv, 0), *vaf = col_new(&c, "v_after", nv, 0);
  double *lam = col_new(&c, "lambda", nc, 0);
  if (!t || !al || !eb || !ea || !vb || !va || !gap || !st || !nco || !q || !vbe || !vaf || !lam)
    return Py_DECREF(c.d), NULL;
  for (long i = 0; i < c.n; i++) {
    nh_sim_impact_get(self->sim, i, &r);
    t[i] = r.t, al[i] = r.alpha, eb[i] = r.energy_before, ea[i] = r.energy_after;
    vb[i] = r.vn_before, va[i] = r.vn_after, gap[i] = r.gap, st[i] = r.status, nco[i] = r.contacts;
    copyrow(q, i, nq, r.q), copyrow(vbe, i, nv, r.v_before), copyrow(vaf, i, nv, r.v_after);
    copyrow(lam, i, nc, r.lambda);
  }
  return c.d;
}

/* gap names as a list of str */
static PyObject *gap_list(const nh_model *m, int n, const int *gaps) {
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    PyObject *s = PyUnicode_FromString(m->gap_names[gaps[i]]);
    if (!s) return Py_DECREF(l), NULL;
    PyList_SET_ITEM(l, i, s);
  }
  return l;
}

/* one outcome of an enumeration: velocity, sequence (gap names), impulses (per contact), followed */
static PyObject *outcome_dict(const nh_model *m, const nh_impact_record *r, int j) {
  PyObject *v = nhpy_array1(m->nq, r->outcome_v + (size_t)j * (size_t)m->nq);
  PyObject *sq = gap_list(m, r->outcome_len[j], r->outcome_seq + r->outcome_start[j]);
  PyObject *im = nhpy_array1(r->contacts, r->outcome_impulse + (size_t)j * (size_t)r->contacts);
  if (!v || !sq || !im) return Py_XDECREF(v), Py_XDECREF(sq), Py_XDECREF(im), NULL;
  return Py_BuildValue("{s:N,s:N,s:N,s:O}", "velocity", v, "sequence", sq, "impulses", im, "followed",
                       j == 0 ? Py_True : Py_False);
}

/* the simultaneous part of a record as a dict (None for one gap's impact) */
static PyObject *simul_dict(const nh_model *m, const nh_impact_record *r) {
  static const char *const laws[] = {"elastic", "plastic", "inelastic"};
  static const char *const orders[] = {"most-infeasible", "least", "index", "enumerate"};
  if (r->contacts < 2) Py_RETURN_NONE;
  char note[512];
  nh_impact_note(m, r, note, sizeof note);
  PyObject *outs = PyList_New(r->outcomes);
  for (int j = 0; outs && j < r->outcomes; j++) {
    PyObject *o = outcome_dict(m, r, j);
    if (!o) return Py_DECREF(outs), NULL;
    PyList_SET_ITEM(outs, j, o);
  }
  PyObject *fb = r->fallback ? PyUnicode_FromString(nh_simul_fallback_name(r->fallback)) : (Py_INCREF(Py_None), Py_None);
  if (!outs || !fb) return Py_XDECREF(outs), Py_XDECREF(fb), NULL;
  /* (N arguments are consumed, also when building fails) */
  return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:s,s:d,s:s,s:N,s:O,s:d,s:N,s:s}", "contacts",
                       gap_list(m, r->contacts, r->contact_gap), "impulse", nhpy_array1(r->contacts, r->impulse),
                       "vn_before", nhpy_array1(r->contacts, r->contact_vn_before), "vn_after",
                       nhpy_array1(r->contacts, r->contact_vn_after), "sequence",
                       gap_list(m, r->reflections, r->sequence), "law", laws[r->law >= 0 && r->law <= 2 ? r->law : 0],
                       "restitution", r->restitution, "order", orders[r->policy >= 0 && r->policy <= 3 ? r->policy : 0],
                       "outcomes", outs, "outcomes_truncated", r->outcomes_truncated ? Py_True : Py_False, "xi", r->xi,
                       "fallback", fb, "note", note);
}

/* _simultaneous() -> per record of the impact log, the dict of simul_dict (None for one gap) */
static PyObject *sim_simultaneous(PySim *self, PyObject *unused) {
  (void)unused;
  if (!sim_ready(self)) return NULL;
  const nh_model *m = self->model->model;
  PyObject *l = PyList_New(0);
  nh_impact_record r;
  for (long k = 0; l && k < nh_sim_impact_count(self->sim) && nh_sim_impact_get(self->sim, k, &r) == NH_OK; k++) {
    PyObject *d = simul_dict(m, &r);
    if (!d || PyList_Append(l, d)) return Py_XDECREF(d), Py_DECREF(l), NULL;
    Py_DECREF(d);
  }
  return l;
}

static PyObject *sim_events(PySim *self, PyObject *unused) {
  (void)unused;
  if (!sim_ready(self)) return NULL;
  const int nx = self->model->model->nx;
  cols c = {0, PyDict_New()};
  if (!c.d) return NULL;
  nh_event_record r;
  while (c.n < nh_sim_event_count(self->sim) && nh_sim_event_get(self->sim, c.n, &r) == NH_OK) c.n++;
  double *t = col_new(&c, "t", -1, 0), *val = col_new(&c, "value", -1, 0), *x = col_new(&c, "x", nx, 0);
  int *mon = (int *)col_new(&c, "monitor", -1, 1), *dir = (int *)col_new(&c, "direction", -1, 1);
  int *stp = (int *)col_new(&c, "stopped", -1, 1);
  if (!t || !val || !x || !mon || !dir || !stp) return Py_DECREF(c.d), NULL;
  for (long i = 0; i < c.n; i++) {
    nh_sim_event_get(self->sim, i, &r);
    t[i] = r.t, val[i] = r.value, mon[i] = r.monitor, dir[i] = r.direction, stp[i] = r.stopped;
    copyrow(x, i, nx, r.x);
  }
  return c.d;
}

static PyObject *sim_contacts(PySim *self, PyObject *unused) {
  (void)unused;
  if (!sim_ready(self)) return NULL;
  const int nx = self->model->model->nx;
  cols c = {0, PyDict_New()};
  if (!c.d) return NULL;
  nh_contact_record r;
  while (c.n < nh_sim_contact_count(self->sim) && nh_sim_contact_get(self->sim, c.n, &r) == NH_OK) c.n++;
  double *t = col_new(&c, "t", -1, 0), *tl = col_new(&c, "t_limit", -1, 0), *ra = col_new(&c, "ratio", -1, 0);
  double *la = col_new(&c, "lambda", -1, 0), *eb = col_new(&c, "energy_before", -1, 0);
  double *ea = col_new(&c, "energy_after", -1, 0), *x = col_new(&c, "x", nx, 0);
  int *gap = (int *)col_new(&c, "gap", -1, 1), *kind = (int *)col_new(&c, "kind", -1, 1);
  int *why = (int *)col_new(&c, "reason", -1, 1);
  if (!t || !tl || !ra || !la || !eb || !ea || !x || !gap || !kind || !why) return Py_DECREF(c.d), NULL;
  for (long i = 0; i < c.n; i++) {
    nh_sim_contact_get(self->sim, i, &r);
    t[i] = r.t, tl[i] = r.t_limit, ra[i] = r.ratio, la[i] = r.lambda, eb[i] = r.energy_before;
    ea[i] = r.energy_after, gap[i] = r.gap, kind[i] = r.kind, why[i] = r.reason;
    copyrow(x, i, nx, r.x);
  }
  return c.d;
}

/* ---- state, statistics, summary ---------------------------------------------------------- */

static PyObject *sim_state(PySim *self, PyObject *unused) {
  (void)unused;
  if (!sim_ready(self)) return NULL;
  const nh_model *m = self->model->model;
  const double *v = nh_sim_v(self->sim);
  return Py_BuildValue("(dNNN)", nh_sim_time(self->sim), nhpy_array1(m->form == NH_FORM_ODE ? m->nx : m->nq, nh_sim_q(self->sim)),
                       v ? nhpy_array1(m->nq, v) : (Py_INCREF(Py_None), Py_None), nhpy_array1(m->nx, nh_sim_x(self->sim)));
}

static PyObject *sim_stats(PySim *self, PyObject *unused) {
  (void)unused;
  if (!sim_ready(self)) return NULL;
  const nh_sim_stats *s = nh_sim_get_stats(self->sim);
  return Py_BuildValue("{s:l,s:l,s:l,s:l,s:l,s:l,s:l,s:l,s:d,s:d,s:d,s:d,s:d,s:l,s:l,s:i,s:i,s:d,s:d,s:d,s:d,s:d,s:O,s:s,s:O,s:d,s:d,s:s}", "steps",
                       s->steps, "rejected", s->rejected, "evals", s->evals, "impacts", s->impacts, "grazing",
                       s->grazing, "events_located", s->events_located, "simul_fallbacks", s->simul_fallbacks,
                       "simul_truncated", s->simul_truncated, "energy_initial", s->energy_initial, "energy",
                       s->energy, "max_energy_rel_error", s->max_energy_rel_error, "max_constraint_residual",
                       s->max_constraint_residual, "max_event_gap", s->max_event_gap, "solver_iterations",
                       s->solver_iterations, "solver_solves", s->solver_solves, "solver_max_iterations",
                       s->solver_max_iterations, "solver_last_iterations", s->solver_last_iterations,
                       "solver_last_residual", s->solver_last_residual, "solver_max_residual", s->solver_max_residual, "conserved_initial",
                       s->conserved_initial, "conserved", s->conserved, "max_conserved_rel_error",
                       s->max_conserved_rel_error, "conserves", s->conserves ? Py_True : Py_False, "conserved_quantity",
                       nh_conserved_name(s->conserved_quantity), "energy_witness", s->energy_witness ? Py_True : Py_False,
                       "energy_scale", s->energy_scale, "max_energy_drift", s->max_energy_drift, "drift",
                       nh_drift_name(s->drift));
}

/* _summary(status, wall) -> the dict `nholo run --json` writes for the same run (summary.c) */
static PyObject *sim_summary(PySim *self, PyObject *args) {
  if (!sim_ready(self)) return NULL;
  int status;
  double wall;
  if (!PyArg_ParseTuple(args, "id", &status, &wall)) return NULL;
  return nhpy_summary_dict(self->sim, status, wall);
}

static PyObject *sim_info(PySim *self, PyObject *unused) {
  (void)unused;
  if (!sim_ready(self)) return NULL;
  return Py_BuildValue("(ssOs)", nh_method_name(nh_sim_method(self->sim)), nh_sim_message(self->sim), self->model,
                       nh_sim_method_reason(self->sim));
}

/* _c_cycle(model, method, t_end, h, reps) -> the best seconds of one create/run/destroy cycle
 * through the C API alone (nh_sim_create, nh_sim_run recording with nh_traj_observer,
 * nh_sim_destroy): the baseline of bench/bench_python.py's per-run overhead */
PyObject *nhpy_c_cycle(PyObject *mod, PyObject *args) {
  (void)mod;
  PyModel *pm;
  const char *method;
  double t_end, h;
  long reps;
  if (!PyArg_ParseTuple(args, "O!sddl", &PyModel_Type, &pm, &method, &t_end, &h, &reps)) return NULL;
  const nh_model *m = pm->model;
  nh_sim_def def = nh_sim_def_default();
  if (!(def.method = nh_method_find(method))) return PyErr_SetString(PyExc_ValueError, "unknown method"), NULL;
  def.h = h;
  double best = INFINITY;
  for (long r = 0; r < reps; r++) {
    double t0 = now_seconds();
    nh_sim *s = nh_sim_create(m, &def, NULL, 0);
    nh_traj *tr = nh_traj_create(m->form == NH_FORM_ODE ? m->nx : m->nq);
    if (!s || !tr) return nh_sim_destroy(s), nh_traj_destroy(tr), PyErr_NoMemory();
    nh_sim_run(s, t_end, 0, nh_traj_observer, tr);
    nh_traj_destroy(tr);
    nh_sim_destroy(s);
    double dt = now_seconds() - t0;
    if (dt < best) best = dt;
  }
  return PyFloat_FromDouble(best);
}

static PyMethodDef sim_methods[] = {
    {"_run", (PyCFunction)(void (*)(void))sim_run, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_step", (PyCFunction)sim_step, METH_VARARGS, NULL},
    {"_set_state", (PyCFunction)sim_set_state, METH_VARARGS, NULL},
    {"_trajectory", (PyCFunction)sim_trajectory, METH_NOARGS, NULL},
    {"clear", (PyCFunction)sim_clear, METH_NOARGS, "clear(): forget the recorded samples"},
    {"_impacts", (PyCFunction)sim_impacts, METH_NOARGS, NULL},
    {"_simultaneous", (PyCFunction)sim_simultaneous, METH_NOARGS, NULL},
    {"_events", (PyCFunction)sim_events, METH_NOARGS, NULL},
    {"_contacts", (PyCFunction)sim_contacts, METH_NOARGS, NULL},
    {"_state", (PyCFunction)sim_state, METH_NOARGS, NULL},
    {"stats", (PyCFunction)sim_stats, METH_NOARGS, "stats(): counters and invariant monitors (nh_sim_stats)"},
    {"_summary", (PyCFunction)sim_summary, METH_VARARGS, NULL},
    {"_info", (PyCFunction)sim_info, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

PyTypeObject PySim_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "nholo._nholo.Simulation",
    .tp_basicsize = sizeof(PySim),
    .tp_dealloc = (destructor)sim_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A simulation of a model (use nholo.Simulation).",
    .tp_methods = sim_methods,
    .tp_init = (initproc)sim_init,
    .tp_new = PyType_GenericNew,
};
