/* lyapunov.c - nholo._nholo.lyapunov: the largest Lyapunov exponent of a model
 * (nholo/lyapunov.h) from Python, with the estimate after every window. */
#include "nholo_py.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nholo/lyapunov.h"

/* the estimates after the windows, grown by doubling from the observer (between windows,
 * never inside a step) */
typedef struct ly_hist {
  nh_lyap_point *p;
  long n, cap;
  int nomem;
} ly_hist;

static int ly_record(const nh_lyap_point *p, void *user) {
  ly_hist *h = user;
  if (h->n == h->cap) {
    long cap = 2 * h->cap + 64;
    nh_lyap_point *q = realloc(h->p, sizeof *q * (size_t)cap);
    if (!q) return h->nomem = 1;
    h->p = q, h->cap = cap;
  }
  h->p[h->n++] = *p;
  return 0;
}

/* {t, windows, lambda, half_width, log_growth, impacts}: one array each */
static PyObject *ly_history(const ly_hist *h) {
  const npy_intp n = (npy_intp)h->n;
  PyObject *cols[6];
  for (int c = 0; c < 6; c++) cols[c] = PyArray_SimpleNew(1, &n, c == 1 || c == 5 ? NPY_INT64 : NPY_DOUBLE);
  for (int c = 0; c < 6; c++)
    if (!cols[c]) {
      for (int k = 0; k < 6; k++) Py_XDECREF(cols[k]);
      return NULL;
    }
  for (npy_intp i = 0; i < n; i++) {
    const nh_lyap_point *p = &h->p[i];
    ((double *)PyArray_DATA((PyArrayObject *)cols[0]))[i] = p->t;
    ((npy_int64 *)PyArray_DATA((PyArrayObject *)cols[1]))[i] = p->windows;
    ((double *)PyArray_DATA((PyArrayObject *)cols[2]))[i] = p->lambda;
    ((double *)PyArray_DATA((PyArrayObject *)cols[3]))[i] = p->half_width;
    ((double *)PyArray_DATA((PyArrayObject *)cols[4]))[i] = p->log_growth;
    ((npy_int64 *)PyArray_DATA((PyArrayObject *)cols[5]))[i] = p->impacts;
  }
  return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N}", "t", cols[0], "windows", cols[1], "lambda", cols[2],
                       "half_width", cols[3], "log_growth", cols[4], "impacts", cols[5]);
}

/* lyapunov(model, t_end, window, transient, batches, method, rtol, atol, h_max, seed, x0, dx0, contact)
 * -> (status, message, result dict); bad input raises ValueError with the library's message */
PyObject *nhpy_lyapunov(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *kwl[] = {"model", "t_end", "window", "transient", "batches", "method", "rtol", "atol",
                        "h_max", "seed", "x0", "dx0", "contact", NULL};
  nh_lyap_def def = nh_lyap_def_default();
  PyModel *pm;
  const char *method = NULL;
  PyObject *x0o = Py_None, *dx0o = Py_None;
  long long seed = (long long)def.seed;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|ddd$izdddLOOp", kwl, &PyModel_Type, &pm, &def.t_end, &def.window,
                                   &def.transient, &def.batches, &method, &def.rtol, &def.atol, &def.h_max,
                                   &seed, &x0o, &dx0o, &def.contact))
    return NULL;
  if (!nhpy_check_number("t_end", def.t_end) || !nhpy_check_number("window", def.window) ||
      !nhpy_check_number("transient", def.transient) || !nhpy_check_number("rtol", def.rtol) ||
      !nhpy_check_number("atol", def.atol) || !nhpy_check_number("h_max", def.h_max) ||
      !nhpy_check_count("batches", def.batches) || !nhpy_check_count("seed", seed))
    return NULL;
  def.seed = (unsigned long long)seed;
  if (pm->force)
    return PyErr_SetString(PyExc_ValueError, "lyapunov: a model with a Python force is not supported"), NULL;
  if (method && !(def.method = nh_method_find(method)))
    return PyErr_Format(PyExc_ValueError, "--method: unknown method '%s' (see 'nholo list')", method), NULL;
  const nh_model *m = pm->model;
  PyArrayObject *x0 = NULL, *dx0 = NULL;
  if (x0o != Py_None && !(x0 = nhpy_vector(x0o, m->nx, "x0"))) return NULL;
  if (dx0o != Py_None && !(dx0 = nhpy_vector(dx0o, m->nx, "dx0"))) {
    Py_XDECREF(x0);
    return NULL;
  }
  def.dx0 = dx0 ? PyArray_DATA(dx0) : NULL;
  ly_hist h = {NULL, 0, 0, 0};
  nh_lyap_result res;
  memset(&res, 0, sizeof res);
  char msg[NHPY_MSG] = "";
  int st;
  Py_BEGIN_ALLOW_THREADS
  st = nh_lyapunov(m, &def, x0 ? PyArray_DATA(x0) : NULL, ly_record, &h, &res, msg, sizeof msg);
  Py_END_ALLOW_THREADS
  Py_XDECREF(x0), Py_XDECREF(dx0);
  PyObject *out = NULL;
  if (h.nomem) {
    PyErr_NoMemory();
  } else if (st == NH_ERR_ARG) {
    nhpy_value_error(msg);
  } else {
    const nh_lyap_point *p = &res.last;
    PyObject *hist = ly_history(&h);
    if (hist)
      out = Py_BuildValue("(is{s:d,s:d,s:d,s:l,s:d,s:i,s:l,s:l,s:l,s:d,s:d,s:N})", st, msg, "lambda", p->lambda,
                          "half_width", p->half_width, "t", p->t, "windows", p->windows, "window", def.window,
                          "batches", def.batches, "impacts", p->impacts, "grazing", p->grazing, "contacts",
                          res.contacts, "t_stop", res.t_stop, "max_saltation_gain", res.max_salt, "history", hist);
  }
  free(h.p);
  return out;
}
