/* builtin.c - the table of built-in models (nholo/systems.h), for command-line front ends. */
#include "nholo/systems.h"

static const nh_builtin builtins[] = {
    {"penny", "vertical rolling disk bouncing inside an elliptical table (Clark & Bloch)"},
    {"sleigh", "Chaplygin sleigh on SE(2) (Kobilarov, Martin de Diego, Ferraro, sec. 6.1)"},
    {"snakeboard", "snakeboard with rotor and steering torques (Kobilarov et al., sec. 6.2)"},
};

int nh_builtin_count(void) { return (int)(sizeof builtins / sizeof builtins[0]); }

const nh_builtin *nh_builtin_at(int i) {
  if (i < 0 || i >= nh_builtin_count()) return NULL;
  return &builtins[i];
}
