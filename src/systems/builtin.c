/* builtin.c - the table of built-in models (nholo/systems.h), for command-line front ends,
 * and nh_builtin_load: a built-in by name with overrides, an impact law and the penny's table. */
#include <stdlib.h>
#include <string.h>

#include "base/msg.h"
#include "nholo/systems/all.h"
#include "systems/system_impl.h"

static nh_model *gearbox_default(char *msg, size_t msg_size) { return nh_gearbox_create(1, msg, msg_size); }
static nh_model *sleigh_dg_q_default(char *msg, size_t msg_size) {
  nh_sleigh_dg_params p = nh_sleigh_dg_params_default();
  return nh_sleigh_dg_q_create(&p, msg, msg_size);
}

static nh_model *sleigh_dg_default(char *msg, size_t msg_size) {
  nh_sleigh_dg_params p = nh_sleigh_dg_params_default();
  return nh_sleigh_dg_create(&p, msg, msg_size);
}
static nh_model *gearbox_ap_default(char *msg, size_t msg_size) { return nh_gearbox_ap_create(1, msg, msg_size); }
static nh_model *suslov_default(char *msg, size_t msg_size) {
  nh_suslov_params p = nh_suslov_params_default();
  return nh_suslov_create(&p, msg, msg_size);
}

/* ---- the parameters of the penny, the sleigh and the snakeboard by name ---------------------- */

static void penny_defaults(void *p) { *(nh_penny_params *)p = nh_penny_params_default(); }
static int penny_set(void *p, const char *name, double v) { return nh_penny_set(p, name, v); }
static void penny_law(void *p, nh_impact_law law) { ((nh_penny_params *)p)->law = law; }
static nh_model *penny_create(const void *p, char *msg, size_t size) { return nh_penny_create(p, msg, size); }
/* the paper's tables: circle (a = b = 0.2) and ellipse (a = 0.15, b = 0.2) */
static int penny_table(void *p, const char *table, char *msg, size_t size) {
  nh_penny_params *pp = p;
  if (strcmp(table, "circle") == 0) pp->a = 0.2, pp->b = 0.2;
  else if (strcmp(table, "ellipse") == 0) pp->a = 0.15, pp->b = 0.2;
  else return nh_set_msg(msg, size, "--table: unknown table '%s' (expected circle or ellipse)", table), NH_ERR_ARG;
  return NH_OK;
}
static const nh_builtin_params penny_params = {sizeof(nh_penny_params), penny_defaults, penny_set, penny_table,
                                               penny_law, penny_create};

static void sleigh_defaults(void *p) { *(nh_sleigh_params *)p = nh_sleigh_params_default(); }
static int sleigh_set(void *p, const char *name, double v) { return nh_sleigh_set(p, name, v); }
static nh_model *sleigh_create(const void *p, char *msg, size_t size) { return nh_sleigh_create(p, msg, size); }
static const nh_builtin_params sleigh_params = {sizeof(nh_sleigh_params), sleigh_defaults, sleigh_set, NULL, NULL,
                                                sleigh_create};

static void snake_defaults(void *p) { *(nh_snakeboard_params *)p = nh_snakeboard_params_default(); }
static int snake_set(void *p, const char *name, double v) { return nh_snakeboard_set(p, name, v); }
static nh_model *snake_create(const void *p, char *msg, size_t size) { return nh_snakeboard_create(p, msg, size); }
static const nh_builtin_params snake_params = {sizeof(nh_snakeboard_params), snake_defaults, snake_set, NULL, NULL,
                                               snake_create};

/* ---- the registry ------------------------------------------------------------------------------ */

static const nh_builtin builtins[] = {
    {"penny", "vertical rolling disk bouncing inside an elliptical table (Clark & Bloch)", NULL, &nh_system_penny,
     &penny_params},
    {"rolling-disk", "disk rolled by 4 internal masses on circles (Putkaradze & Rogers sec. 5)", NULL, &nh_system_ball, NULL},
    {"rolling-ball", "ball rolled by 3 internal masses on tilted circles (Putkaradze & Rogers sec. 6)", NULL,
     &nh_system_ball, NULL},
    {"rolling-ball-detach", "that ball with m3 = 60: the normal force vanishes (Fig. 6.4)", NULL, &nh_system_ball, NULL},
    {"sleigh", "Chaplygin sleigh on SE(2) (Kobilarov, Martin de Diego, Ferraro, sec. 6.1)", NULL, NULL, &sleigh_params},
    {"snakeboard", "snakeboard with rotor and steering torques (Kobilarov et al., sec. 6.2)", NULL, NULL, &snake_params},
    {"quartic", "chaotic quartic nonholonomic system on R^7, H = 3.06 (Celledoni et al. 4.1)", nh_quartic_create, NULL, NULL},
    {"gearbox", "continuous gearbox driven by an asymmetric pendulum (Celledoni et al. 4.4)", gearbox_default, NULL, NULL},
    {"quartic-ap", "the quartic system in almost-Poisson form (x, w, z, xi, eta), eq. (21)", nh_quartic_ap_create, NULL, NULL},
    {"sleigh-dg", "Chaplygin sleigh in almost-Poisson form (x1, x2, theta, rho1, rho2), eq. (22)", sleigh_dg_default, NULL, NULL},
    {"suslov", "Euler-Poincare-Suslov problem on so(3), almost-Poisson form (rho1, rho2)", suslov_default, NULL, NULL},
    {"gearbox-ap", "the gearbox in almost-Poisson form (q1, q2, q3, rho1, rho2), frame of spec 002 S4", gearbox_ap_default, NULL, NULL},
    {"sleigh-dg-q", "Chaplygin sleigh in (x1, x2, theta), Fig. 3 data (Celledoni et al. 4.2)", sleigh_dg_q_default, NULL, NULL},
};

int nh_builtin_count(void) { return (int)(sizeof builtins / sizeof builtins[0]); }

const nh_builtin *nh_builtin_at(int i) {
  if (i < 0 || i >= nh_builtin_count()) return NULL;
  return &builtins[i];
}

const nh_builtin *nh_builtin_find(const char *name) {
  for (int i = 0; name && i < nh_builtin_count(); i++)
    if (strcmp(builtins[i].name, name) == 0) return &builtins[i];
  return NULL;
}

nh_model *nh_builtin_create(const char *name, char *msg, size_t msg_size) {
  for (int i = 0; name && i < nh_builtin_count(); i++)
    if (strcmp(builtins[i].name, name) == 0) {
      if (builtins[i].create) return builtins[i].create(msg, msg_size);
      break;
    }
  nh_set_msg(msg, msg_size, "no built-in model '%s' with default parameters", name ? name : "");
  return NULL;
}

nh_model *nh_builtin_load(const char *name, const nh_builtin_opts *opts, char *msg, size_t msg_size) {
  static const nh_builtin_opts none;
  const nh_builtin_opts *o = opts ? opts : &none;
  if (!name) {
    nh_set_msg(msg, msg_size, "no model name");
    return NULL;
  }
  const nh_builtin *b = nh_builtin_find(name);
  const nh_builtin_params *bp = b ? b->params : NULL;
  if (!bp) { /* without parameters: as built */
    if (o->law_set) nh_set_msg(msg, msg_size, "--impact: model '%s' has no impacts", name);
    else if (o->table) nh_set_msg(msg, msg_size, "--table: only for the built-in penny");
    else if (o->nset > 0) nh_set_msg(msg, msg_size, "--set: model '%s' takes no overrides (a model file does)", name);
    if (o->law_set || o->table || o->nset > 0) return NULL;
    nh_model *m = nh_builtin_create(name, msg, msg_size);
    if (!m) nh_set_msg(msg, msg_size, "unknown model '%s' (see 'nholo list'; a model file ends in .nh)", name);
    return m;
  }
  void *p = malloc(bp->size);
  if (!p) return nh_set_msg(msg, msg_size, "out of memory"), NULL;
  bp->defaults(p);
  nh_model *m = nh_builtin_params_apply(b, p, o, msg, msg_size) == NH_OK ? bp->create(p, msg, msg_size) : NULL;
  free(p);
  return m;
}

int nh_builtin_params_apply(const nh_builtin *b, void *p, const nh_builtin_opts *opts, char *msg, size_t msg_size) {
  const nh_builtin_params *bp = b ? b->params : NULL;
  if (!bp || !p || !opts) return nh_set_msg(msg, msg_size, "no built-in parameters"), NH_ERR_ARG;
  if (opts->law_set && !bp->law) return nh_set_msg(msg, msg_size, "--impact: model '%s' has no impacts", b->name), NH_ERR_ARG;
  if (opts->table && !bp->table) return nh_set_msg(msg, msg_size, "--table: only for the built-in penny"), NH_ERR_ARG;
  if (opts->table && bp->table(p, opts->table, msg, msg_size) != NH_OK) return NH_ERR_ARG;
  for (int i = 0; i < opts->nset; i++)
    if (!bp->set(p, opts->set_names[i], opts->set_values[i]))
      return nh_set_msg(msg, msg_size, "--set: model '%s' has no parameter or initial value '%s'", b->name,
                        opts->set_names[i]),
             NH_ERR_ARG;
  if (opts->law_set) bp->law(p, opts->law);
  return NH_OK;
}
