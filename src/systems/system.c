/* system.c - the systems interface (nholo/systems.h): the MODEL argument of a run opened as a
 * system, and the classes of one phase: a model file (nh_model_load) and a built-in model
 * (nh_builtin_load); the penny is a built-in of a class of its own, which its plan view is
 * paired with (src/io/outputs.c). The rolling ball's class is in ball_system.c. */
#include <stdlib.h>
#include <string.h>

#include "base/msg.h"
#include "systems/system_impl.h"

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n > m && strcmp(s + n - m, suffix) == 0;
}

/* ---- one phase: a model file, a built-in --------------------------------------------------- */

static int file_build(void *user, const char *model, const nh_load_opts *lo, const char *table, nh_system_run *run,
                      char *msg, size_t size) {
  (void)user;
  if (table) {
    nh_set_msg(msg, size, "--table: only for the built-in penny (use --set a=... --set b=...)");
    return NH_ERR_ARG;
  }
  if (nh_model_file_check(model, msg, size) != NH_OK) return NH_ERR_ARG;
  if (!(run->models[0] = nh_model_load(model, lo, msg, size))) return NH_ERR_PARSE;
  run->nphases = 1;
  return NH_OK;
}

static int builtin_build(void *user, const char *model, const nh_load_opts *lo, const char *table,
                         nh_system_run *run, char *msg, size_t size) {
  (void)user;
  nh_builtin_opts bo = {lo->nset, lo->set_names, lo->set_values, lo->impact_override, lo->impact, table};
  if (!(run->models[0] = nh_builtin_load(model, &bo, msg, size))) return NH_ERR_ARG;
  run->nphases = 1;
  return NH_OK;
}

const nh_system_class nh_system_file = {.name = "model file", .noun = "a model file", .build = file_build};
const nh_system_class nh_system_builtin = {.name = "built-in", .noun = "a built-in model", .build = builtin_build};
const nh_system_class nh_system_penny = {.name = "penny", .noun = "the penny", .build = builtin_build};

/* ---- opening, building ------------------------------------------------------------------------ */

static const nh_system_class *class_of(const char *model) {
  if (!model) return &nh_system_builtin;
  // a body file of the model language (`body ball`), or the former .ball format
  if (ends_with(model, ".ball") || (ends_with(model, ".nh") && nh_model_file_is_body(model))) return &nh_system_ball;
  const nh_builtin *b = nh_builtin_find(model);
  if (b) return b->system ? b->system : &nh_system_builtin;
  if (strchr(model, '/') || ends_with(model, ".nh")) return &nh_system_file;
  return &nh_system_builtin; /* an unknown name: its build says so */
}

nh_system *nh_system_open(const char *model) {
  const nh_system_class *c = class_of(model);
  nh_system *s = calloc(1, sizeof *s);
  void *user = c->size ? calloc(1, c->size) : NULL;
  if (!s || (c->size && !user)) {
    free(s), free(user);
    return NULL;
  }
  s->cls = c, s->model = model, s->user = user;
  return s;
}

void nh_system_close(nh_system *s) {
  if (!s) return;
  if (s->cls->release) s->cls->release(s->user);
  free(s->user);
  free(s);
}

int nh_system_option_find(const nh_system *s, const char *name) {
  for (int i = 0; s && name && i < s->cls->noptions; i++)
    if (strcmp(s->cls->options[i].name, name) == 0) return i;
  return -1;
}

void nh_system_run_free(nh_system_run *run) {
  if (!run) return;
  for (int i = 0; i < run->nphases && i < NH_SYSTEM_MAX_PHASES; i++) nh_model_destroy(run->models[i]);
  memset(run, 0, sizeof *run);
}

int nh_system_build(nh_system *s, const nh_load_opts *lo, const char *table, nh_system_run *run, char *msg,
                    size_t msg_size) {
  if (!run) return NH_ERR_ARG;
  memset(run, 0, sizeof *run);
  if (!s || !lo || !s->model) {
    nh_set_msg(msg, msg_size, "no model given");
    return NH_ERR_ARG;
  }
  int rc = s->cls->build(s->user, s->model, lo, table, run, msg, msg_size);
  for (int i = 0; rc == NH_OK && i < run->nphases; i++)
    if (!run->models[i]) rc = NH_ERR_ARG, nh_set_msg(msg, msg_size, "%s: phase %d has no model", s->model, i);
  if (rc == NH_OK && (run->nphases < 1 || run->nphases > NH_SYSTEM_MAX_PHASES || run->nbreaks < 0 ||
                      run->nbreaks > NH_SYSTEM_MAX_BREAKS))
    rc = NH_ERR_ARG, nh_set_msg(msg, msg_size, "%s: a run of %d phases, %d breakpoints", s->model, run->nphases,
                                run->nbreaks);
  if (rc != NH_OK) {
    // what the build made before it failed
    for (int i = 0; i < NH_SYSTEM_MAX_PHASES; i++) nh_model_destroy(run->models[i]);
    memset(run, 0, sizeof *run);
  }
  return rc;
}
