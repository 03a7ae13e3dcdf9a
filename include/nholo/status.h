/* nholo/status.h - status codes shared by every nholo function.
 *
 * Zero is success. Positive codes are outcomes a caller may expect and act on (an
 * impact that did not happen, a run stopped by the Zeno guard). Negative codes are
 * failures: the operation did not complete, and the library left its outputs in a
 * documented state. The library never prints, exits or aborts on user input. */
#ifndef NHOLO_STATUS_H
#define NHOLO_STATUS_H

#include "nholo/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, message) */
#define NH_STATUS_LIST(X)                                                                  \
  X(NH_OK, 0, "ok")                                                                        \
  X(NH_NO_IMPACT, 1, "contact is not approaching; velocity unchanged")                     \
  X(NH_DEGENERATE_IMPACT, 2,                                                               \
    "gap gradient lies in the span of the constraint one-forms; velocity unchanged")       \
  X(NH_NOT_REVERSED, 3, "impact did not reverse the normal velocity (plastic, rho < 1/2)") \
  X(NH_PROJECTED, 4, "velocity violated the constraints and was projected onto them")      \
  X(NH_ZENO, 5, "Zeno guard: too many impacts in too short a time")                        \
  X(NH_STOPPED, 6, "stopped by an observer")                                               \
  X(NH_EVENT_STOP, 7, "stopped at a monitor event")                                        \
  X(NH_DRIFT, 8,                                                                           \
    "left the method's regime: its conserved quantity or the energy drifted (NH_DRIFT_TOL, " \
    "NH_WITNESS_TOL)")                                                                     \
  X(NH_CONTACT, 9, "impacts accumulated: resolved plastically, the contact kept closed")    \
  X(NH_STALL, 10, "no progress in time: the run stalled (NH_STALL_STEPS)")                 \
  X(NH_INTERRUPTED, 11, "interrupted: the caller's cancellation flag was set")             \
  X(NH_ERR_ARG, -1, "invalid argument")                                                    \
  X(NH_ERR_NOMEM, -2, "out of memory")                                                     \
  X(NH_ERR_SINGULAR, -3, "singular matrix")                                                \
  X(NH_ERR_NOT_SPD, -4, "matrix is not symmetric positive definite")                       \
  X(NH_ERR_CALLBACK, -5, "a model evaluator reported a failure")                           \
  X(NH_ERR_STEP_UNDERFLOW, -6, "step size underflow")                                      \
  X(NH_ERR_MAX_STEPS, -7, "maximum number of steps reached")                               \
  X(NH_ERR_NONFINITE, -8, "non-finite value in the state")                                 \
  X(NH_ERR_CONSTRAINT, -9, "velocity violates the constraints beyond tolerance")           \
  X(NH_ERR_EVENT, -10, "event location failed")                                            \
  X(NH_ERR_IO, -11, "input/output error")                                                  \
  X(NH_ERR_UNSUPPORTED, -12, "method not applicable to this model")                        \
  X(NH_ERR_NO_CONVERGENCE, -13, "iterative solver did not converge")                       \
  X(NH_ERR_PARSE, -14, "parse error")                                                      \
  X(NH_ERR_DEPENDENT_CONTACTS, -15,                                                        \
    "contact normals are linearly dependent: the simultaneous impact is not determined")    \
  X(NH_ERR_OPPOSING_CONTACTS, -16,                                                         \
    "two contacts oppose: elastic reflections between them cycle for ever")                \
  X(NH_ERR_PAST_BOUND, -17,                                                                \
    "a reflection sequence passed its bound without reaching a feasible velocity")         \
  X(NH_ERR_PULLING_IMPULSE, -18,                                                           \
    "the plastic projection needs a pulling (negative) contact impulse")                   \
  X(NH_ERR_DEGENERATE_GAP, -19,                                                            \
    "a gap's gradient vanishes where the gap is zero: its impact has no normal")           \
  X(NH_ERR_PENETRATION, -20,                                                               \
    "an open gap is past its wall beyond NH_PENETRATION_REL: a crossing was not resolved")   \
  X(NH_ERR_CONSTRAINT_RANK, -21,                                                           \
    "the constraint rows A(q) are dependent here (a singular configuration, where the "     \
    "distribution changes rank): the method needs them independent and cannot continue")  \
  X(NH_ERR_COMPONENT, -22,                                                                 \
    "a component of nholo is unavailable (plot, hdf5 or cholmod: its module or library is "  \
    "not installed)")

typedef enum nh_status {
#define NH__STATUS_ENUM(name, value, msg) name = value,
  NH_STATUS_LIST(NH__STATUS_ENUM)
#undef NH__STATUS_ENUM
} nh_status;

/* A short English description of a status; never NULL (unknown codes get a generic text). */
NH_API const char *nh_status_string(int status);

/* The identifier of a status ("NH_ZENO"); never NULL. */
NH_API const char *nh_status_name(int status);

/* The exit status of the nholo command for a run (or check) that ended with `status`:
 * 0 for NH_OK and NH_EVENT_STOP; 2 (bad input: the CLI writes nothing) for a model whose
 * contacts cannot be resolved together, NH_ERR_DEPENDENT_CONTACTS and
 * NH_ERR_OPPOSING_CONTACTS; 3 for NH_ZENO; 4 for NH_DRIFT; 130 for NH_INTERRUPTED (128 +
 * SIGINT, the shells' convention; the CLI itself exits with 128 + the number of the signal
 * it received, 130 or 143); 1 (the computation failed, the
 * outputs keep what was computed) for every other status, NH_ERR_PAST_BOUND,
 * NH_ERR_PULLING_IMPULSE and NH_ERR_DEGENERATE_GAP (a crossing located where a gap's gradient
 * vanishes: the run ends there) among them. */
NH_API int nh_status_exit_code(int status);

/* the library version, "MAJOR.MINOR.PATCH" (NHOLO_VERSION_* in nholo/nholo.h) */
NH_API const char *nh_version(void);

#ifdef __cplusplus
}
#endif
#endif
