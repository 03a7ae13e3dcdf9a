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

/* a variable's target: the built-ins with parameter structs (penny, sleigh, snakeboard) take
 * every value through their overrides (consistent initial velocities); a model file's state
 * variables go into the state, its parameters rebuild the member's model */
static int resolve(nh_ensemble_var *v, const PyModel *pm) {
  const nh_model *m = pm->model;
  const nhpy_recipe *r = &pm->recipe;
  const int with_params = r->kind == 2 && (strcmp(r->name, "penny") == 0 || strcmp(r->name, "sleigh") == 0 ||
                                           strcmp(r->name, "snakeboard") == 0);
  int si = with_params ? -1 : state_index(m, v->name);
  if (si >= 0) return v->target = NH_VARY_STATE, v->index = si, 1;
  int param = 0;
  if (with_params) { /* a name the built-in's parameter struct takes (as `nholo ensemble`) */
    nh_penny_params pp = nh_penny_params_default();
    nh_sleigh_params sp = nh_sleigh_params_default();
    nh_snakeboard_params bp = nh_snakeboard_params_default();
    param = strcmp(r->name, "penny") == 0    ? nh_penny_set(&pp, v->name, 0.0)
            : strcmp(r->name, "sleigh") == 0 ? nh_sleigh_set(&sp, v->name, 0.0)
                                             : nh_snakeboard_set(&bp, v->name, 0.0);
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

static PyObject *stats_dict(const nh_ensemble_stats *st) {
  return Py_BuildValue("{s:l,s:l,s:l,s:i,s:N,s:N,s:N,s:N}", "members", st->members, "ok", st->ok, "failed", st->failed,
                       "threads", st->threads, "mean", nhpy_array1(st->nx, st->mean), "var",
                       nhpy_array1(st->nx, st->var), "min", nhpy_array1(st->nx, st->min), "max",
                       nhpy_array1(st->nx, st->max));
}

/* ensemble(model, csv_path, t_end, vary, replicas=1, seed=0, threads=0, max_impacts=0, **options) */
PyObject *nhpy_ensemble(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  PyModel *pm;
  const char *csv;
  double t_end;
  PyObject *vary;
  long replicas = 1, max_impacts = 0;
  unsigned long long seed = 0;
  int threads = 0;
  if (!PyArg_ParseTuple(args, "O!sdO|lKil", &PyModel_Type, &pm, &csv, &t_end, &vary, &replicas, &seed, &threads,
                        &max_impacts))
    return NULL;
  if (pm->force) return PyErr_SetString(PyExc_ValueError, "ensemble: a model with a Python force runs one member at a time (use Simulation)"), NULL;
  PyObject *seq = PySequence_Fast(vary, "vary: expected a list of 'NAME=uniform:A:B' strings");
  if (!seq) return NULL;
  const int nvar = (int)PySequence_Fast_GET_SIZE(seq);
  nh_ensemble_var *vars = calloc((size_t)nvar + 1, sizeof *vars);
  PyObject *out = NULL;
  char msg[NHPY_MSG];
  if (!vars) {
    PyErr_NoMemory();
    goto done;
  }
  int has_param = 0;
  for (int j = 0; j < nvar; j++) {
    const char *text = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, j));
    if (!text) goto done;
    if (nh_ensemble_parse_var(text, &vars[j], msg, sizeof msg) != NH_OK) {
      PyErr_Format(PyExc_ValueError, "--vary: %s", msg); /* the command line's message */
      goto done;
    }
    for (int i = 0; i < j; i++)
      if (strcmp(vars[i].name, vars[j].name) == 0) {
        PyErr_Format(PyExc_ValueError, "--vary: '%s' is varied twice", vars[j].name);
        goto done;
      }
    if (!resolve(&vars[j], pm)) goto done;
    has_param |= vars[j].target == NH_VARY_PARAM;
  }
  nh_ensemble_def d;
  memset(&d, 0, sizeof d);
  d.model = pm->model;
  d.sim = nh_sim_def_default();
  if (!nhpy_sim_options(&d.sim, kw)) goto done;
  if (!d.sim.method) d.sim.method = nh_method_default_for(pm->model);
  if (nh_method_check(d.sim.method, pm->model, msg, sizeof msg) != NH_OK) {
    nhpy_value_error(msg);
    goto done;
  }
  ens_ctx ctx = {&pm->recipe, vars, nvar};
  d.t_end = t_end, d.max_impacts = max_impacts, d.nvar = nvar, d.vars = vars;
  d.replicas = replicas, d.seed = (uint64_t)seed, d.threads = threads;
  d.build = has_param ? build_member : NULL, d.build_user = &ctx;
  nh_ensemble_stats st;
  memset(&st, 0, sizeof st);
  int rc;
  Py_BEGIN_ALLOW_THREADS
  rc = nh_ensemble_run(&d, csv, &st, msg, sizeof msg);
  Py_END_ALLOW_THREADS
  if (rc != NH_OK) nhpy_value_error(msg);
  else out = stats_dict(&st);
  nh_ensemble_stats_free(&st);
done:
  free(vars);
  Py_DECREF(seq);
  return out;
}
