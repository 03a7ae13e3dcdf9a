/* builtin.c - the table of built-in models (nholo/systems.h), for command-line front ends,
 * and nh_builtin_load: a built-in by name with overrides, an impact law and the penny's table. */
#include <string.h>

#include "base/msg.h"
#include "nholo/systems.h"
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

static const nh_builtin builtins[] = {
    {"penny", "vertical rolling disk bouncing inside an elliptical table (Clark & Bloch)", NULL, &nh_system_penny},
    {"rolling-disk", "disk rolled by 4 internal masses on circles (Putkaradze & Rogers sec. 5)", NULL, &nh_system_ball},
    {"rolling-ball", "ball rolled by 3 internal masses on tilted circles (Putkaradze & Rogers sec. 6)", NULL,
     &nh_system_ball},
    {"rolling-ball-detach", "that ball with m3 = 60: the normal force vanishes (Fig. 6.4)", NULL, &nh_system_ball},
    {"sleigh", "Chaplygin sleigh on SE(2) (Kobilarov, Martin de Diego, Ferraro, sec. 6.1)", NULL, NULL},
    {"snakeboard", "snakeboard with rotor and steering torques (Kobilarov et al., sec. 6.2)", NULL, NULL},
    {"quartic", "chaotic quartic nonholonomic system on R^7, H = 3.06 (Celledoni et al. 4.1)", nh_quartic_create, NULL},
    {"gearbox", "continuous gearbox driven by an asymmetric pendulum (Celledoni et al. 4.4)", gearbox_default, NULL},
    {"quartic-ap", "the quartic system in almost-Poisson form (x, w, z, xi, eta), eq. (21)", nh_quartic_ap_create, NULL},
    {"sleigh-dg", "Chaplygin sleigh in almost-Poisson form (x1, x2, theta, rho1, rho2), eq. (22)", sleigh_dg_default, NULL},
    {"suslov", "Euler-Poincare-Suslov problem on so(3), almost-Poisson form (rho1, rho2)", suslov_default, NULL},
    {"gearbox-ap", "the gearbox in almost-Poisson form (q1, q2, q3, rho1, rho2), frame of spec 002 S4", gearbox_ap_default, NULL},
    {"sleigh-dg-q", "Chaplygin sleigh in (x1, x2, theta), Fig. 3 data (Celledoni et al. 4.2)", sleigh_dg_q_default, NULL},
};

int nh_builtin_count(void) { return (int)(sizeof builtins / sizeof builtins[0]); }

const nh_builtin *nh_builtin_at(int i) {
  if (i < 0 || i >= nh_builtin_count()) return NULL;
  return &builtins[i];
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

/* the systems whose parameters and initial values can be overridden by name */
typedef enum { SYS_PENNY, SYS_SLEIGH, SYS_SNAKEBOARD, SYS_OTHER } sys_kind;

static sys_kind kind_of(const char *name) {
  return strcmp(name, "penny") == 0 ? SYS_PENNY
         : strcmp(name, "sleigh") == 0 ? SYS_SLEIGH
         : strcmp(name, "snakeboard") == 0 ? SYS_SNAKEBOARD : SYS_OTHER;
}

nh_model *nh_builtin_load(const char *name, const nh_builtin_opts *opts, char *msg, size_t msg_size) {
  static const nh_builtin_opts none;
  const nh_builtin_opts *o = opts ? opts : &none;
  if (!name) {
    nh_set_msg(msg, msg_size, "no model name");
    return NULL;
  }
  const sys_kind k = kind_of(name);
  if (o->law_set && k != SYS_PENNY) {
    nh_set_msg(msg, msg_size, "--impact: model '%s' has no impacts", name);
    return NULL;
  }
  if (o->table && k != SYS_PENNY) {
    nh_set_msg(msg, msg_size, "--table: only for the built-in penny");
    return NULL;
  }
  if (k == SYS_OTHER) {
    if (o->nset > 0) {
      nh_set_msg(msg, msg_size, "--set: model '%s' takes no overrides (a model file does)", name);
      return NULL;
    }
    nh_model *m = nh_builtin_create(name, msg, msg_size);
    if (!m) nh_set_msg(msg, msg_size, "unknown model '%s' (see 'nholo list'; a model file ends in .nh)", name);
    return m;
  }
  nh_penny_params pp = nh_penny_params_default();
  nh_sleigh_params sp = nh_sleigh_params_default();
  nh_snakeboard_params bp = nh_snakeboard_params_default();
  if (o->table) {
    if (strcmp(o->table, "circle") == 0) pp.a = 0.2, pp.b = 0.2;
    else if (strcmp(o->table, "ellipse") == 0) pp.a = 0.15, pp.b = 0.2;
    else {
      nh_set_msg(msg, msg_size, "--table: unknown table '%s' (expected circle or ellipse)", o->table);
      return NULL;
    }
  }
  for (int i = 0; i < o->nset; i++) {
    const char *n = o->set_names[i];
    const double v = o->set_values[i];
    const int known = k == SYS_PENNY ? nh_penny_set(&pp, n, v) : k == SYS_SLEIGH ? nh_sleigh_set(&sp, n, v)
                                                                               : nh_snakeboard_set(&bp, n, v);
    if (!known) {
      nh_set_msg(msg, msg_size, "--set: model '%s' has no parameter or initial value '%s'", name, n);
      return NULL;
    }
  }
  if (o->law_set) pp.law = o->law;
  return k == SYS_PENNY ? nh_penny_create(&pp, msg, msg_size)
         : k == SYS_SLEIGH ? nh_sleigh_create(&sp, msg, msg_size)
                           : nh_snakeboard_create(&bp, msg, msg_size);
}
