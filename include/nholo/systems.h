/* nholo/systems.h - the systems interface: the built-in models by name.
 *
 * A front end reaches every built-in through this registry (nh_builtin_load: a name, its
 * parameters and initial values overridden by name, an impact law); what is particular to
 * one system (its parameter struct, a closed-form solution, the rolling ball's runner) is
 * declared in its own header under nholo/systems/, not part of the top-level API:
 *   nholo/systems/penny.h        the bouncing penny (paper 000)
 *   nholo/systems/sleigh.h       the Chaplygin sleigh and its closed form (paper 001)
 *   nholo/systems/snakeboard.h   the snakeboard (paper 001)
 *   nholo/systems/dg_examples.h  the discrete-gradient paper's examples (paper 002)
 *   nholo/systems/ball.h         the rolling ball and disk with internal masses (paper 004)
 *   nholo/systems/all.h          all of them
 */
#ifndef NHOLO_SYSTEMS_H
#define NHOLO_SYSTEMS_H

#include "nholo/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Built-in models by name, for command-line front ends. */
typedef struct nh_builtin {
  const char *name;
  const char *summary;
  /* builds the model with its default parameters (NULL: the front end builds it itself) */
  nh_model *(*create)(char *msg, size_t msg_size);
} nh_builtin;

NH_API int nh_builtin_count(void);
NH_API const nh_builtin *nh_builtin_at(int i);
/* The built-in model with this name at its defaults; NULL with a reason in msg when the name
 * is unknown or has no default constructor. */
NH_API nh_model *nh_builtin_create(const char *name, char *msg, size_t msg_size);

/* What a front end may change in a built-in (every field Nullable or 0 for "as built"). */
typedef struct nh_builtin_opts {
  int nset;                      /* overrides of parameters and initial values, by name */
  const char *const *set_names;  /* (the names each system's nh_*_set takes) */
  const double *set_values;
  int law_set;                   /* 1: every gap gets `law` */
  nh_impact_law law;
  const char *table;             /* the penny: "circle" (a = b = 0.2) or "ellipse" (a = 0.15,
                                    b = 0.2), applied before the overrides; NULL: as built */
} nh_builtin_opts;

/* The built-in model NAME with the options applied (opts Nullable: the defaults). NULL with
 * a one-line reason in msg: an unknown name, an override the model does not take, an impact
 * law or table for a model without them, or parameters its create function refuses. */
NH_API nh_model *nh_builtin_load(const char *name, const nh_builtin_opts *opts, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
