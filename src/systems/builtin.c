/* builtin.c - the table of built-in models (nholo/systems.h), for command-line front ends. */
#include <string.h>

#include "base/msg.h"
#include "nholo/systems.h"

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
    {"penny", "vertical rolling disk bouncing inside an elliptical table (Clark & Bloch)", NULL},
    {"rolling-disk", "disk rolled by 4 internal masses on circles (Putkaradze & Rogers sec. 5)", NULL},
    {"rolling-ball", "ball rolled by 3 internal masses on tilted circles (Putkaradze & Rogers sec. 6)", NULL},
    {"rolling-ball-detach", "that ball with m3 = 60: the normal force vanishes (Fig. 6.4)", NULL},
    {"sleigh", "Chaplygin sleigh on SE(2) (Kobilarov, Martin de Diego, Ferraro, sec. 6.1)", NULL},
    {"snakeboard", "snakeboard with rotor and steering torques (Kobilarov et al., sec. 6.2)", NULL},
    {"quartic", "chaotic quartic nonholonomic system on R^7, H = 3.06 (Celledoni et al. 4.1)", nh_quartic_create},
    {"gearbox", "continuous gearbox driven by an asymmetric pendulum (Celledoni et al. 4.4)", gearbox_default},
    {"quartic-ap", "the quartic system in almost-Poisson form (x, w, z, xi, eta), eq. (21)", nh_quartic_ap_create},
    {"sleigh-dg", "Chaplygin sleigh in almost-Poisson form (x1, x2, theta, rho1, rho2), eq. (22)", sleigh_dg_default},
    {"suslov", "Euler-Poincare-Suslov problem on so(3), almost-Poisson form (rho1, rho2)", suslov_default},
    {"gearbox-ap", "the gearbox in almost-Poisson form (q1, q2, q3, rho1, rho2), frame of spec 002 S4", gearbox_ap_default},
    {"sleigh-dg-q", "Chaplygin sleigh in (x1, x2, theta), Fig. 3 data (Celledoni et al. 4.2)", sleigh_dg_q_default},
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
