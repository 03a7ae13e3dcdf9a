/* nholo/modelfile.h - models from text: a Lagrangian, constraints and walls in a small
 * language, with exact symbolic derivatives and compiled evaluation.
 *
 *   model penny
 *   coordinates x y theta phi            # a velocity is written with a prime: x'
 *   parameter m = 0.0025
 *   kinetic 1/2*m*(x'^2 + y'^2) + ...
 *   constraint roll_x: x' - R*cos(phi)*theta' = 0
 *   gap front: 1 - Xf^2/a^2 - Yf^2/b^2   impact elastic
 *   initial x = 0, phi = pi/2, theta' = 10
 *
 * The whole language, its checks and its error messages are in docs/model-language.md.
 * A loaded model is an ordinary nh_model (nholo/model.h): every method, impact law and
 * tool works on it as on a hand-written one. Its evaluators (M, V and dV, the Coriolis
 * vector, forces, A and Adot v, gaps and gradients, and the derivatives dM, d2M, the
 * Hessian of V, dA and the force Jacobians) are derived exactly from the text and run
 * either as C generated for the model, compiled by the system compiler into a shared
 * object cached by a hash of the code, or on a tape interpreter that needs nothing at run
 * time. Both give the same numbers. */
#ifndef NHOLO_MODELFILE_H
#define NHOLO_MODELFILE_H

#include <signal.h> /* sig_atomic_t (nh_load_opts.cancel) */
#include <stddef.h>

#include "nholo/export.h"
#include "nholo/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a model file's evaluators run. */
typedef enum nh_backend {
  NH_BACKEND_AUTO = 0,    /* generated C when a compiler works, else the tape (default) */
  NH_BACKEND_TAPE = 1,    /* the tape interpreter */
  NH_BACKEND_CODEGEN = 2  /* generated C; fail when it cannot be compiled or loaded */
} nh_backend;

/* The C compiler's budget for one model (nh_load_opts.cc_time_limit, cc_memory_limit): wall
 * time in seconds and address space in MiB. A model of a few hundred terms compiles in well
 * under a second in ~100 MiB; one whose generated C runs to megabytes (64 coordinates and a
 * dense trigonometric mass matrix: 2 MB) can keep the compiler busy for many minutes. */
#define NH_CODEGEN_TIME_LIMIT 60.0
#define NH_CODEGEN_MEMORY_LIMIT 2048.0

/* Options of loading. Start from nh_load_opts_default(). */
typedef struct nh_load_opts {
  nh_backend backend;
  /* Directory of compiled models. NULL: $NHOLO_CACHE_DIR, else $XDG_CACHE_HOME/nholo,
   * else $HOME/.cache/nholo, else /tmp/nholo-cache. Created when missing. */
  const char *cache_dir;
  /* C compiler. NULL: $CC, else "cc". */
  const char *cc;
  /* The compiler's budget: cc_time_limit seconds of wall time (default
   * NH_CODEGEN_TIME_LIMIT) and cc_memory_limit MiB of address space (default
   * NH_CODEGEN_MEMORY_LIMIT); 0: no limit. Past either the compiler and its children are
   * killed and their files removed; NH_BACKEND_AUTO then evaluates on the tape
   * (nh_model_backend_note says why) and NH_BACKEND_CODEGEN fails. The cache directory
   * remembers it (nholo-HASH.budget): a later load of the model with no larger a limit goes
   * to the tape at once (a larger limit, or 0, compiles again). */
  double cc_time_limit, cc_memory_limit;
  /* Nullable: a flag the caller sets (a signal handler): while the compiler runs, a nonzero
   * value kills it (its files removed) and the load fails, "interrupted" in the message */
  const volatile sig_atomic_t *cancel;
  /* Overrides, applied as the file is read: a parameter (its dependants follow), a
   * coordinate's initial value (NAME) or an initial velocity (NAME'). An override that names
   * nothing in the file is an error. */
  int nset;
  const char *const *set_names;
  const double *set_values;
  /* 1: initial velocities that violate the constraints are accepted (a simulation projects
   * them, see nh_sim_def.project_initial); 0: they are an error at the `initial` statement. */
  int project_initial;
  /* 1: every gap gets the law `impact` instead of the one its statement names */
  int impact_override;
  nh_impact_law impact;
  /* Contacts (`contact` statements): contact_mu_set = 1 gives every contact the friction
   * coefficient contact_mu (0: no slip monitor); contact_on_slip and contact_on_detach: 0
   * keeps each contact's own action, 1 + NH_MONITOR_REPORT or 1 + NH_MONITOR_STOP sets it. */
  int contact_mu_set;
  double contact_mu;
  int contact_on_slip, contact_on_detach;
  int internal_cookie; /* set by nh_load_opts_default; do not touch */
} nh_load_opts;

NH_API nh_load_opts nh_load_opts_default(void);

/* Read, check and build the model in the file at path (opts Nullable: defaults). On failure
 * returns NULL and writes the diagnostic into msg: "FILE:LINE:COL: error: WHAT", the source
 * line and a caret under the column (several lines; at most msg_size bytes). */
NH_API nh_model *nh_model_load(const char *path, const nh_load_opts *opts, char *msg,
                               size_t msg_size);

/* The same from text in memory; filename (Nullable) names it in diagnostics. */
NH_API nh_model *nh_model_parse(const char *text, const char *filename,
                                const nh_load_opts *opts, char *msg, size_t msg_size);

/* A report of a model file for `nholo check`: the model's sizes and names, every derived
 * quantity printed symbolically (M, V, dV, Coriolis, forces, A, Adot v, gaps and their
 * gradients) and evaluated at the initial state (energy, |A v|, gaps, the smallest pivot of
 * M), and the evaluation back end. Returns a malloc'd string (release with nh_free), or
 * NULL with the diagnostic in msg, as nh_model_load. */
NH_API char *nh_model_describe(const char *path, const nh_load_opts *opts, char *msg,
                               size_t msg_size);

/* 1 when the file at path is a body file (`body ball` or `body disk`, or the former .ball
 * format's `ball NAME` / `disk NAME`): a rigid body with internal masses on rails, which
 * the rolling-ball reader builds (nholo/systems/ball.h: nh_ball_file_load), not nh_model_load; 0
 * otherwise, also when the file cannot be read. */
NH_API int nh_model_file_is_body(const char *path);

/* Whether path can be read as a model file: a regular file that opens (a FIFO or a device is
 * refused without waiting on it). NH_OK, or NH_ERR_ARG with "cannot read 'FILE': <the
 * system's reason>" in msg. */
NH_API int nh_model_file_check(const char *path, char *msg, size_t msg_size);

/* A model file's whole text as a NUL-terminated string (release with nh_free), checked as
 * nh_model_load reads it (size limit, no NUL byte inside); NULL with the reason in msg. For
 * callers that build many models from one text (nh_model_parse with different overrides). */
NH_API char *nh_model_file_read(const char *path, char *msg, size_t msg_size);

/* How a model's evaluators run: "codegen", "tape", or "c" (a hand-written model). */
NH_API const char *nh_model_backend(const nh_model *model);
/* Why a model file loaded with NH_BACKEND_AUTO runs on the tape although a compiler was
 * tried: "the C compiler exceeded its time limit (60 s) on 'FILE'" or its memory limit
 * (nh_load_opts.cc_time_limit), or "" (compiled, the tape asked for, a compiler that cannot
 * run, any other model). Borrowed from the model. */
NH_API const char *nh_model_backend_note(const nh_model *model);

/* Release memory the library returned (nh_model_describe). */
NH_API void nh_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
