/* builtin.c - the table of built-in models (nholo/systems.h), for command-line front ends. */
#include "nholo/systems.h"

static const nh_builtin builtins[] = {
    {"penny", "vertical rolling disk bouncing inside an elliptical table (Clark & Bloch)"},
    {"rolling-disk", "disk rolled by 4 internal masses on circles (Putkaradze & Rogers sec. 5)"},
    {"rolling-ball", "ball rolled by 3 internal masses on tilted circles (Putkaradze & Rogers sec. 6)"},
    {"rolling-ball-detach", "that ball with m3 = 60: the normal force vanishes (Fig. 6.4)"},
    {"sleigh", "Chaplygin sleigh on SE(2) (Kobilarov, Martin de Diego, Ferraro, sec. 6.1)"},
    {"snakeboard", "snakeboard with rotor and steering torques (Kobilarov et al., sec. 6.2)"},
};

int nh_builtin_count(void) { return (int)(sizeof builtins / sizeof builtins[0]); }

const nh_builtin *nh_builtin_at(int i) {
  if (i < 0 || i >= nh_builtin_count()) return NULL;
  return &builtins[i];
}
