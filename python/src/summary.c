/* summary.c - Result.summary: the dict of `nholo run --json`, built by the library's summary
 * writer value by value (nh_summary_build) instead of written as JSON and parsed: the same
 * keys in the same order, numbers as floats (None where the text has null), counts as ints.
 * About 3 us for a short run, where printing and parsing the text took 20 (bench_python.py). */
#include "nholo_py.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* nesting of the summary (nh_summary_build's objects and arrays) */
#define SUM_DEPTH 8

typedef struct sum_build {
  PyObject *stack[SUM_DEPTH]; /* the open containers (borrowed: each is owned by its parent, the
                                 outer one by root) */
  int depth;
  PyObject *root;
} sum_build;

/* The keys as str objects, kept between summaries (the same few dozen names every time: the
 * writer's literals, the model's names): looked up by the key's address (linear probing from
 * its hash), checked against its text (an address may be reused by another name after a
 * model is freed). Only touched with the GIL held. */
#define KEY_SLOTS 1024 /* a power of 2, well above the names of a summary */
#define KEY_PROBES 8
static struct {
  const char *p;    /* the key's address */
  const char *text; /* s's UTF-8, alive with s */
  PyObject *s;
} key_cache[KEY_SLOTS];

static PyObject *key_str(const char *key) {
  const size_t home = (size_t)(((uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull) >> 54); /* Fibonacci hashing, 10 bits */
  size_t h = home;
  for (int i = 0; i < KEY_PROBES; i++, h = (h + 1) % KEY_SLOTS) {
    if (key_cache[h].p == key && strcmp(key_cache[h].text, key) == 0) return key_cache[h].s;
    if (!key_cache[h].p) break;
  }
  if (key_cache[h].p) h = home; /* a full path: the first slot's key is made again when used */
  PyObject *s = PyUnicode_InternFromString(key);
  const char *text = s ? PyUnicode_AsUTF8(s) : NULL;
  if (!text) return Py_XDECREF(s), NULL;
  Py_XDECREF(key_cache[h].s);
  key_cache[h].p = key, key_cache[h].text = text, key_cache[h].s = s;
  return s;
}

/* add v (a new reference, consumed) under key to the innermost container; -1 on failure */
static int add(sum_build *b, const char *key, PyObject *v) {
  if (!v) return -1;
  if (b->depth == 0) {
    if (b->root) return Py_DECREF(v), -1;
    b->root = v;
    return 0;
  }
  PyObject *c = b->stack[b->depth - 1], *k = NULL;
  int rc = -1;
  if (PyList_Check(c)) rc = PyList_Append(c, v);
  else if (key && (k = key_str(key))) rc = PyDict_SetItem(c, k, v);
  Py_DECREF(v);
  return rc;
}

static int sum_open(void *user, const char *key, int array) {
  sum_build *b = user;
  if (b->depth == SUM_DEPTH) return -1;
  PyObject *c = array ? PyList_New(0) : PyDict_New();
  if (add(b, key, c) < 0) return -1;
  b->stack[b->depth++] = c; /* alive in its parent (or as root) */
  return 0;
}

static int sum_close(void *user) {
  sum_build *b = user;
  return b->depth > 0 ? (b->depth--, 0) : -1;
}

static int sum_num(void *user, const char *key, double x) {
  if (!isfinite(x)) return add(user, key, (Py_INCREF(Py_None), Py_None)); /* the text's null */
  return add(user, key, PyFloat_FromDouble(x));
}

static int sum_int(void *user, const char *key, long x) { return add(user, key, PyLong_FromLong(x)); }

static int sum_str(void *user, const char *key, const char *s) { return add(user, key, PyUnicode_FromString(s)); }

static int sum_bool(void *user, const char *key, int x) { return add(user, key, PyBool_FromLong(x)); }

/* the command line's "outputs" (the files written, after the final state): a run from Python
 * writes none, so it is what `nholo run --json` prints without --out, --events or --plot */
static int sum_place(void *user, nh_summary_place at, const nh_summary_event *ev) {
  (void)ev;
  return at == NH_SUMMARY_TAIL ? add(user, "outputs", PyDict_New()) : 0;
}

static const nh_summary_sink sum_sink = {sum_open, sum_close, sum_num, sum_int, sum_str, sum_bool, sum_place};

PyObject *nhpy_summary_dict(const nh_sim *sim, int status, double wall) {
  const int flags = NH_SUMMARY_MECHANICAL | (nh_sim_model(sim)->nmon > 0 ? NH_SUMMARY_EVENTS : 0);
  nh_summary s = {&sim, 1, NULL, nh_method_name(nh_sim_method(sim)), status, wall, flags, NULL, NULL,
                  status == NH_OK ? "" : NULL};
  sum_build b = {{NULL}, 0, NULL};
  int rc = nh_summary_build(&s, &sum_sink, &b);
  if (rc == NH_OK && b.root && b.depth == 0) return b.root;
  Py_XDECREF(b.root);
  if (!PyErr_Occurred()) PyErr_Format(PyExc_RuntimeError, "summary: %s", nh_status_string(rc));
  return NULL;
}
