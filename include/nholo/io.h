/* nholo/io.h - recording a run, writing it (CSV, JSON), and drawing it (PLplot).
 *
 * Every writer produces its file atomically: it writes "<path>.tmp.<pid>" and renames it
 * over <path> only when everything was written, so a failure never leaves a partial file.
 * Paths are limited to 1023 characters (NH_ERR_ARG beyond). Plots use PLplot, which is not
 * thread-safe: draw from one thread at a time. A missing cairo driver gives NH_ERR_IO. */
#ifndef NHOLO_IO_H
#define NHOLO_IO_H

#include <stdio.h>

#include "nholo/sim.h"
#include "nholo/systems.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A growable record of samples (t, q, v) of one run. */
typedef struct nh_traj {
  int nq;
  long n, cap;
  double *t;      /* (n) */
  double *q;      /* (n x nq) */
  double *v;      /* (n x nq) */
  int *kind;      /* (n) nh_sample_kind of each sample */
} nh_traj;

NH_API nh_traj *nh_traj_create(int nq);
NH_API void nh_traj_destroy(nh_traj *traj);
NH_API void nh_traj_clear(nh_traj *traj);
NH_API int nh_traj_append(nh_traj *traj, nh_sample_kind kind, double t, const double *q,
                          const double *v);
/* An nh_observer_fn that appends every sample to the nh_traj given as user. When memory runs
 * out it returns nonzero, so the run ends with NH_STOPPED. */
NH_API int nh_traj_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q,
                            const double *v, void *user);

/* A record of at most `max` samples (max >= 8) for drawing a long run in bounded memory.
 * nh_traj_thin_observer (user: the nh_traj_thin) records like nh_traj_observer until the record
 * is full; then every other STEP/OUTPUT sample is dropped and from there on only every
 * `stride`-th one is kept (stride doubles at each thinning), so the record keeps an even
 * spread over the whole run. START, impacts, events and END are kept, unless they alone fill
 * the record: then every other one of them goes too. Start from {traj, max, 1, 0}. */
typedef struct nh_traj_thin {
  nh_traj *traj;
  long max;
  long stride; /* STEP/OUTPUT samples: keep one in stride */
  long seen;   /* STEP/OUTPUT samples shown so far */
} nh_traj_thin;
NH_API int nh_traj_thin_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q,
                                 const double *v, void *user);

/* CSV of a trajectory: header "t,<coords>,<coords>_dot"; for an ODE-form model (trajectory of
 * nx values per sample, v unused) "t,<state names>". */
NH_API int nh_write_traj_csv(const char *path, const nh_model *model, const nh_traj *traj,
                             char *msg, size_t msg_size);
/* CSV of the impact log: index (from 0), t, surface, status, energy_before, energy_after,
 * vn_before, vn_after, alpha, lambda_<constraint>..., <coord>..., <coord>_dot_before...,
 * <coord>_dot_after... */
NH_API int nh_write_impacts_csv(const char *path, const nh_sim *sim, char *msg, size_t msg_size);
/* CSV of the outcomes of the enumerated simultaneous impacts (nh_sim_def.simul_order
 * NH_SIMUL_ENUMERATE; other impacts have none): one row per outcome per impact, index (the
 * impact's, as in the impact log), t, outcome (from 0), outcomes (kept for the impact),
 * truncated (1: the enumeration stopped at simul_max_outcomes), followed (1 for outcome 0, the
 * one the run follows), reflections, sequence (the gaps reflected across, separated by
 * spaces), <coord>_dot... (the velocity after the impact), impulse_<gap>... (Lambda >= 0 of
 * each gap of the model; nan for a gap that is not a contact of the impact). */
NH_API int nh_write_outcomes_csv(const char *path, const nh_sim *sim, char *msg, size_t msg_size);

/* Check that a file can be created at path (creates and removes a temporary beside it). */
NH_API int nh_check_writable(const char *path, char *msg, size_t msg_size);

/* Atomic file writing: open a temporary beside path; commit renames it over path, abort
 * removes it. A path that is a symbolic link is written through: the temporary goes beside
 * the file it names (followed link by link, a relative target from the link's directory) and
 * replaces that file (created when the link dangles); the link stays. */
typedef struct nh_outfile {
  FILE *fp;
  char path[1024];
  char tmp[1040];
} nh_outfile;
NH_API int nh_outfile_open(nh_outfile *out, const char *path, char *msg, size_t msg_size);
NH_API int nh_outfile_commit(nh_outfile *out, char *msg, size_t msg_size);
NH_API void nh_outfile_abort(nh_outfile *out);

/* ---- streaming CSV: the rows written as the run goes ------------------------------------
 * A run's trajectory and impact log need not be held in memory: open a stream before the
 * run, show it every sample (pass nh_csv_stream_observer, or call it from an observer of your
 * own) and commit it after the run. The rows go through a buffered FILE into the temporary of
 * an nh_outfile, so memory does not grow with the run and a failure leaves nothing at
 * the path; the bytes are those that nh_write_traj_csv and nh_write_impacts_csv write for the
 * same run. A write error does not stop the run: later rows are skipped and commit reports it. */
enum { NH_CSV_TRAJECTORY = 0, NH_CSV_IMPACTS = 1, NH_CSV_OUTCOMES = 2 };

typedef struct nh_csv_stream {
  nh_outfile out;
  const nh_model *model; /* the header's (the rows of the impact log name the sim's gaps) */
  int what;              /* NH_CSV_TRAJECTORY, NH_CSV_IMPACTS or NH_CSV_OUTCOMES */
  int width;             /* values per sample: nq, or nx for an ODE-form model */
  long rows;             /* rows written after the header */
  long impacts;          /* impacts and outcomes: the impacts seen (the next one's index) */
  long failed;           /* impacts and outcomes: 1 + the impact whose record was unavailable */
  double last_t;         /* trajectory: the last row (an END repeating it is not written again) */
  double *last;          /* (2 width) its q and v */
} nh_csv_stream;

/* Open the CSV (what: NH_CSV_TRAJECTORY, the layout of nh_write_traj_csv, NH_CSV_IMPACTS, that
 * of nh_write_impacts_csv, or NH_CSV_OUTCOMES, that of nh_write_outcomes_csv) at path for the
 * runs of `model`, and write its header. */
NH_API int nh_csv_stream_open(nh_csv_stream *cs, int what, const char *path, const nh_model *model,
                              char *msg, size_t msg_size);
/* An nh_observer_fn (user: the nh_csv_stream): a trajectory writes a row per sample (as
 * nh_traj_observer records them), an impact log its rows at each NH_SAMPLE_IMPACT_AFTER (the
 * latest record of the sim's log, numbered from 0 by the stream), the outcomes those of that
 * record. Returns 0 (never stops). */
NH_API int nh_csv_stream_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q,
                                  const double *v, void *user);
/* Flush and rename the file into place (NH_ERR_IO when any write failed: then nothing is left
 * at the path); abort removes it. Either frees the stream. */
NH_API int nh_csv_stream_commit(nh_csv_stream *cs, char *msg, size_t msg_size);
NH_API void nh_csv_stream_abort(nh_csv_stream *cs);

/* ---- plots (PLplot, cairo driver; format from the extension: .png, .svg, .pdf) ------ */

/* Any run: every coordinate against time in stacked panels, plus the energy, with impact
 * times marked. */
NH_API int nh_plot_timeseries(const char *path, const nh_model *model, const nh_traj *traj,
                              const nh_sim *sim, const char *title, char *msg, size_t msg_size);

/* A grid of panels of curves y(x): the generic figure (the papers' figures use it). Texts of
 * panels and curves keep PLplot's escapes ("#gm" for mu, "x#ds#u" for a subscript); the
 * figure's title is printed as given. */
typedef struct nh_plot_curve {
  long n;              /* points; 0 with a label: a line of text alone in the legend (a note) */
  const double *x, *y; /* (n) each; non-finite points break the line */
  const char *label;   /* legend entry, Nullable (not in the legend) */
  int style;           /* NH_PLOT_LINE, _DOTS or _DASHED, or'ed with the options below */
} nh_plot_curve;

enum { NH_PLOT_LINE = 0, NH_PLOT_DOTS = 1, NH_PLOT_DASHED = 2 };
/* style options: PLplot's line style k = 1..8 (1 solid, 2 dashes, 3 dots, ...), an open
 * marker m = 1..6 (circle, square, triangle, diamond, cross, plus) on about 12 points of the
 * line (staggered from curve to curve), and the line width w in tenths (1..255; default 16) */
#define NH_PLOT_DASH(k) ((k) << 4)
#define NH_PLOT_MARKER(m) ((m) << 8)
#define NH_PLOT_WIDTH(w) ((w) << 12)

typedef struct nh_plot_panel {
  const char *title;           /* Nullable */
  const char *xlabel, *ylabel; /* Nullable */
  int ncurves;
  const nh_plot_curve *curves;
  int equal_aspect; /* 1: one length unit is the same on both axes (trajectories) */
  double hline;     /* a dashed horizontal reference line at this value; NaN: none */
} nh_plot_panel;

/* npanels panels row by row in an nrows x ncols grid, under `title` (Nullable). Each panel's
 * labelled curves get a legend (line sample, marker, label) below its frame, never over the
 * data. */
NH_API int nh_plot_panels(const char *path, int nrows, int ncols, int npanels,
                          const nh_plot_panel *panels, const char *title, char *msg,
                          size_t msg_size);

/* ---- run summaries (src/io/summary.c): the one writer of `nholo run` ----------------------
 * A run is one simulation or a chain of phases (nh_chain_run). Its summary as one JSON
 * object on one line:
 *   model, method, [MECHANICAL: impact_law, impact_step (the last phase's nh_sim_impact_step:
 *   "variational" or "restart"), parameters, impacts], t_end, steps,
 *   rejected_steps, evaluations, [MECHANICAL: grazing], (COUNTS), energy_initial,
 *   energy_final, [MECHANICAL: max_energy_rel_error, max_constraint_residual, max_event_gap,
 *   solver_*], wall_seconds, (RESULTS), status, message, [EVENTS: events: each {t,
 *   (EVENT_HEAD), monitor, phase, direction, stopped, (EVENT_TAIL)}], final (MECHANICAL: q,
 *   final_velocity, final_state; else x), (TAIL), [MECHANICAL: impact_log];
 * or as text: the model, method, final time and counts (MECHANICAL: two lines), (COUNTS),
 * [MECHANICAL: energies, solver, the first impacts], [EVENTS: one line each, "  event:
 * (EVENT_HEAD) at t = T(EVENT_TAIL)" and " (run stopped)" for a stop in the last phase],
 * (RESULTS), the status line, (TAIL).
 * Counts are summed over the phases, maxima taken over them; the final time, state, energy
 * and message are the last phase's, the initial energy the first's. Numbers are written with
 * %.17g (null when not finite), strings escaped. The caller adds its own fields at the places
 * in parentheses with a callback. */

/* NH_SUMMARY_MECHANICAL: the layout of a mechanical run (impacts, invariant monitors, solver,
 * final q, v and x, impact log); else the compact one (final x only). NH_SUMMARY_EVENTS: the
 * event log of every phase. */
enum { NH_SUMMARY_MECHANICAL = 1, NH_SUMMARY_EVENTS = 2 };

/* Where the callback is called. JSON: write fields, each as `, "key": value`; text: whole
 * lines, except at EVENT_HEAD (the event's label, without a callback its monitor's name) and
 * EVENT_TAIL (the end of its line). */
typedef enum nh_summary_place {
  NH_SUMMARY_COUNTS = 0,     /* after the step counts (text: after the first lines) */
  NH_SUMMARY_RESULTS = 1,    /* before the status */
  NH_SUMMARY_EVENT_HEAD = 2, /* in an event, after its time */
  NH_SUMMARY_EVENT_TAIL = 3, /* at the end of an event (text: before " (run stopped)") */
  NH_SUMMARY_TAIL = 4        /* JSON: after the final state; text: after the status line */
} nh_summary_place;

/* The event being written (at EVENT_HEAD and EVENT_TAIL). */
typedef struct nh_summary_event {
  long index;          /* over the whole run, from 0 */
  int phase;           /* index into the summary's phases */
  const nh_sim *sim;   /* that phase */
  nh_event_record rec;
} nh_summary_event;

/* Write extra fields at `at` (ev: Nullable, the event at EVENT_HEAD/TAIL). json: 1 for the
 * JSON object, 0 for text. Returns 0, or negative to stop the writer with that status. */
typedef int (*nh_summary_fn)(FILE *f, int json, nh_summary_place at, const nh_summary_event *ev,
                             void *user);

typedef struct nh_summary {
  const nh_sim *const *phases;    /* (nphases >= 1) the simulations that ran, in order; the last
                                     one ended the run */
  int nphases;
  const char *const *phase_names; /* Nullable: each event then names its phase ("phase") */
  const char *method;             /* the method's name as the user gave it */
  int status;                     /* the run's status */
  double wall;                    /* wall-clock seconds */
  int flags;                      /* NH_SUMMARY_MECHANICAL, NH_SUMMARY_EVENTS */
  nh_summary_fn extra;            /* Nullable */
  void *user;
  const char *message;            /* Nullable: the status's detail (e.g. an output that could not
                                     be written); NULL: the last phase's nh_sim_message */
} nh_summary;

/* Write the summary as a JSON object and a newline, or as text. NH_OK, NH_ERR_ARG for a bad
 * summary, NH_ERR_IO when writing failed, or the callback's negative status. */
NH_API int nh_summary_write_json(FILE *f, const nh_summary *s);
NH_API int nh_summary_write_text(FILE *f, const nh_summary *s);

/* The JSON summary as values instead of text (a binding builds its own object of it without
 * printing and parsing numbers: Python's Result.summary). The writer calls, in the order of the
 * text, open for an object or array (array 1) and close at its end, and one call per value:
 * num (a double, not finite where the text has null), integer (a count), str, boolean; key is
 * the value's name in an object, NULL in an array and for the outer object. place (Nullable)
 * is called where nh_summary_write_json calls the summary's extra callback (which is not
 * called: it writes text), to add fields. A negative return stops the callbacks, and
 * nh_summary_build returns it. */
typedef struct nh_summary_sink {
  int (*open)(void *user, const char *key, int array);
  int (*close)(void *user);
  int (*num)(void *user, const char *key, double x);
  int (*integer)(void *user, const char *key, long x);
  int (*str)(void *user, const char *key, const char *s);
  int (*boolean)(void *user, const char *key, int b);
  int (*place)(void *user, nh_summary_place at, const nh_summary_event *ev);
} nh_summary_sink;

/* The summary of nh_summary_write_json, value by value into sink (user its callbacks'). NH_OK,
 * NH_ERR_ARG for a bad summary or sink, or a callback's negative status. */
NH_API int nh_summary_build(const nh_summary *s, const nh_summary_sink *sink, void *user);

/* The note of a simultaneous impact's record (nholo/sim.h), as the summary writes it: why the
 * plastic map resolved it instead of its law (fallback, naming the gaps), or that its
 * enumeration was truncated; "" when neither (and for one gap's impact). Returns buf. */
NH_API const char *nh_impact_note(const nh_model *m, const nh_impact_record *r, char *buf, size_t size);

/* JSON pieces for the callback: a number (%.17g, null when not finite), an escaped string,
 * and `, "key": value` fields. */
NH_API void nh_json_num(FILE *f, double x);
NH_API void nh_json_str(FILE *f, const char *s);
NH_API void nh_json_field_num(FILE *f, const char *key, double x);
NH_API void nh_json_field_str(FILE *f, const char *key, const char *s);
NH_API void nh_json_field_bool(FILE *f, const char *key, int b);

/* ---- what a system records of its run (src/io/outputs.c, ball_out.c) ----------------------
 * A system (nholo/systems.h) may record its run its own way: the rolling ball tracks its normal
 * force and friction on a fine grid, writes them with the state to --out (rows thinned to
 * --sample) and its events to --events, draws them (--plot) and adds its statistics and phases
 * to the summary; the penny draws its plan view. A front end records the rest the common way
 * (nh_csv_stream, nh_plot_timeseries, the common summary's fields). */

/* the outputs a run was asked for */
typedef struct nh_run_files {
  const char *out, *events, *plot; /* Nullable */
  double sample;                   /* the interval of the --out rows */
  long plot_max;                   /* a plot's samples at most (more are thinned evenly) */
} nh_run_files;

/* what a plot sees of the run */
typedef struct nh_run_view {
  const nh_model *model; /* the first phase's */
  const nh_traj *traj;   /* the common record of the samples (NULL with records of its own) */
  const nh_sim *sim;     /* the phase that ended the run */
  const char *method;
} nh_run_view;

typedef struct nh_system_outputs {
  double grid; /* > 0: the run samples on this grid (nh_sim_def.out_dt) whatever --sample */
  int flags;   /* with summary: the summary's nh_summary.flags */
  size_t size; /* bytes of its record (zeroed before open); 0: it keeps none (the common ones) */
  /* With a record: open it (headers written) before the run of sims (one per phase of run),
   * observe every sample (user: the record), commit after the run (last: the phase that ended
   * it; NH_OK or the first failure, its message in msg), close (what is not committed is
   * removed; the record freed by the caller). */
  int (*open)(void *rec, const nh_system_run *run, nh_sim *const *sims, const nh_run_files *f, char *msg,
              size_t msg_size);
  nh_observer_fn observe;
  int (*commit)(void *rec, int last, char *msg, size_t msg_size);
  void (*close)(void *rec);
  nh_summary_fn summary; /* Nullable: the common fields; user: the record */
  /* Nullable: nh_plot_timeseries; rec NULL without a record */
  int (*plot)(void *rec, const char *path, const nh_run_view *v, char *msg, size_t msg_size);
} nh_system_outputs;

/* What system s records its own way, or NULL (every record the common one). */
NH_API const nh_system_outputs *nh_system_outputs_find(const nh_system *s);

#ifdef __cplusplus
}
#endif
#endif
