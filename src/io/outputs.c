/* outputs.c - what a system records of its run its own way (nholo/io.h): the rolling ball's
 * records (ball_out.c) and the penny's plan view, paired with their classes (nholo/systems.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/module.h"
#include "nholo/io.h"
#include "systems/system_impl.h"

extern const nh_system_outputs nh_ball_outputs; /* ball_out.c */

/* ---- the penny: its plan view (Clark & Bloch Figs. 1-4) ------------------------------------- */

/* a parameter's value by name (NaN when the model has none) */
static double model_param(const nh_model *m, const char *name) {
  for (int i = 0; i < m->npar; i++)
    if (strcmp(m->param_names[i], name) == 0) return m->param_values[i];
  return NAN;
}

static const char *law_name(nh_impact_law law, char *buf, size_t size) {
  if (law.kind == NH_IMPACT_ELASTIC) return "elastic";
  if (law.kind == NH_IMPACT_PLASTIC) return "plastic";
  snprintf(buf, size, "restitution=%g", law.e);
  return buf;
}

/* the table (a, b), the path of the contact point and the coin at each impact; the drawing is
 * the plot component's (src/papers/penny_plot.c) */
static int penny_plot(void *rec, const char *path, const nh_run_view *v, char *msg, size_t size) {
  (void)rec;
  const nh_model *m = v->model;
  const double a = model_param(m, "a"), b = model_param(m, "b"), R = model_param(m, "R");
  char title[160], lb[64];
  snprintf(title, sizeof title, "penny, %s table, %s, %ld impacts (%s)", a == b ? "circular" : "elliptical",
           law_name(m->impact[0], lb, sizeof lb), nh_sim_get_stats(v->sim)->impacts, v->method);
  const nh_module_plot *p = (const nh_module_plot *)nh_module_get(NH_MODULE_PLOT, msg, size);
  return p ? p->penny(path, a, b, R, v->traj, v->sim, title, msg, size) : NH_ERR_COMPONENT;
}

static const nh_system_outputs penny_outputs = {.plot = penny_plot};

/* ---- by class ------------------------------------------------------------------------------- */

const nh_system_outputs *nh_system_outputs_find(const nh_system *s) {
  if (!s) return NULL;
  if (s->cls == &nh_system_ball) return &nh_ball_outputs;
  if (s->cls == &nh_system_penny) return &penny_outputs;
  return NULL;
}
