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
 * A front end that runs any MODEL argument (a built-in, a model file, a body file) opens it as
 * a system (nh_system_open): its class lists the options the run takes and builds its phases,
 * so the command line never tests a model's name.
 */
#ifndef NHOLO_SYSTEMS_H
#define NHOLO_SYSTEMS_H

#include "nholo/model.h"
#include "nholo/modelfile.h"
#include "nholo/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

struct nh_system_class;

/* A built-in's parameters by name (its nh_*_params struct behind void *): overridden, varied
 * member by member in an ensemble, and built into its model. */
typedef struct nh_builtin_params {
  size_t size;                                       /* bytes of the block */
  void (*defaults)(void *p);                         /* the block at its defaults */
  int (*set)(void *p, const char *name, double value); /* 1, or 0 for a name it has not */
  /* the penny's table by name (Nullable: no table): NH_OK, or NH_ERR_ARG with the message */
  int (*table)(void *p, const char *table, char *msg, size_t msg_size);
  void (*law)(void *p, nh_impact_law law);           /* every gap's law (Nullable: no impacts) */
  nh_model *(*create)(const void *p, char *msg, size_t msg_size);
} nh_builtin_params;

/* Built-in models by name, for command-line front ends. */
typedef struct nh_builtin {
  const char *name;
  const char *summary;
  /* builds the model with its default parameters (NULL: the front end builds it itself) */
  nh_model *(*create)(char *msg, size_t msg_size);
  /* the system that runs it (nh_system_open); NULL: a built-in model (nh_builtin_load) */
  const struct nh_system_class *system;
  /* its parameters by name (NULL: it takes no overrides) */
  const nh_builtin_params *params;
} nh_builtin;

NH_API int nh_builtin_count(void);
NH_API const nh_builtin *nh_builtin_at(int i);
/* The built-in named name, or NULL. */
NH_API const nh_builtin *nh_builtin_find(const char *name);
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
/* The options applied to p, a parameter block of b (b->params: its defaults, or more): the
 * table, the overrides, the impact law, in nh_builtin_load's order and with its messages.
 * NH_OK, or NH_ERR_ARG with the reason in msg. */
NH_API int nh_builtin_params_apply(const nh_builtin *b, void *p, const nh_builtin_opts *opts, char *msg,
                                   size_t msg_size);

/* ---- systems: what a run needs beyond its model (src/systems/system.c) ---------------------
 * A front end (`nholo run`) opens its MODEL argument, a built-in's name or a model file, as a
 * system: a class (a table of callbacks) and its state (void *user). The class says which
 * options the run takes (the front end's common ones, and options of its own: the rolling
 * ball's --form, --mu, --on-slip, --on-detach), their defaults and the help, and builds the
 * run: the models of its phases and the chain that runs them with the common driver
 * (nh_chain_run: one phase for a model file or a built-in; the rolling ball rolls, then may
 * fly). The front end parses every option; a system gets its own checked, as a number >= 0 or
 * the index of a keyword. A system may record its run its own way too (nholo/io.h,
 * nh_system_outputs_find: the rolling ball's normal force and friction). */

#define NH_SYSTEM_MAX_PHASES 4
#define NH_SYSTEM_MAX_BREAKS 8

typedef enum nh_system_opt_kind {
  NH_SYSOPT_COMMON = 0,  /* an option of the front end's, listed for the help with this text */
  NH_SYSOPT_NUMBER = 1,  /* the system's own: a number >= 0 */
  NH_SYSOPT_KEYWORD = 2  /* the system's own: one of the words of arg, "stop|report" */
} nh_system_opt_kind;

typedef struct nh_system_option {
  const char *name; /* "--form" */
  const char *arg;  /* "ode|dae", "MU"; NULL: a flag */
  nh_system_opt_kind kind;
  const char *help;
} nh_system_option;

/* The run a system builds: its phases' models (the caller's after the build; nh_system_run_free
 * destroys them), their names in the summary (NULL: unnamed), the breakpoints every phase lands
 * on, and the chain's reset map and switch limit (nh_chain). */
typedef struct nh_system_run {
  int nphases;
  nh_model *models[NH_SYSTEM_MAX_PHASES];
  const char *phase_names[NH_SYSTEM_MAX_PHASES];
  double breaks[NH_SYSTEM_MAX_BREAKS];
  int nbreaks;
  nh_reset_fn reset; /* Nullable */
  void *reset_user;  /* the class's record of the switches (the ball: nh_ball_flight_info) */
  long max_switches;
} nh_system_run;

typedef struct nh_system_class {
  const char *name;  /* "model file", "built-in", "penny", "ball" */
  const char *noun;  /* the system in messages: "a ball" */
  const char *usage; /* the help's MODEL ("rolling-disk|...|FILE.ball"); NULL: the common help */
  const char *about; /* the help's paragraph (Nullable) */
  const nh_system_option *options; /* (noptions) every option it takes, in the help's order;
                                      NULL: every common option and none of its own */
  int noptions;
  const char *const *methods; /* NULL-terminated: the methods that run it; NULL: any that fits */
  double t_end, dt, rtol, atol, sample; /* the common options' defaults; 0: the front end's */
  const char *method; /* the default method; NULL: chosen for the run */
  size_t size;        /* bytes of its state, zeroed at nh_system_open */
  /* its own option `index` (of options) with a keyword's index or a number: NH_OK, or
   * NH_ERR_ARG (Nullable without own options) */
  int (*option)(void *user, int index, int keyword, double value);
  /* the run's phases from the MODEL argument, the front end's load options (overrides, impact
   * law, a model file's back end and contacts) and the penny's table (Nullable): NH_OK, or
   * NH_ERR_ARG with a one-line message, NH_ERR_PARSE with a model file's diagnostic */
  int (*build)(void *user, const char *model, const nh_load_opts *lo, const char *table, nh_system_run *run,
               char *msg, size_t msg_size);
  /* after the run (last: the phase that ended it): complete the switches' record (Nullable) */
  void (*finish)(void *user, nh_system_run *run, nh_sim *const *sims, int last);
  /* release its state's resources, after the run's models are destroyed (Nullable) */
  void (*release)(void *user);
} nh_system_class;

typedef struct nh_system {
  const nh_system_class *cls;
  const char *model; /* the MODEL argument (borrowed) */
  void *user;        /* cls->size bytes */
} nh_system;

/* The system of a MODEL argument: a body file (`body ball`, `.ball`) or a rolling ball's name is
 * the ball's; another built-in's name its own (nh_builtin.system) or a built-in model; a path
 * (a '/' or ending in .nh) a model file; any other name a built-in whose build says it is
 * unknown. model Nullable (no model yet: the common options). NULL only when out of memory. */
NH_API nh_system *nh_system_open(const char *model);
NH_API void nh_system_close(nh_system *s);
/* The index of option name among the class's options, or -1. */
NH_API int nh_system_option_find(const nh_system *s, const char *name);
/* cls->build, then each phase's model checked present; on failure nothing is left in run. */
NH_API int nh_system_build(nh_system *s, const nh_load_opts *lo, const char *table, nh_system_run *run,
                           char *msg, size_t msg_size);
/* Destroy the run's models. */
NH_API void nh_system_run_free(nh_system_run *run);

#ifdef __cplusplus
}
#endif
#endif
