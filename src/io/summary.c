/* summary.c - the summary of a run (one simulation or a chain of phases) as JSON or text.
 *
 * One skeleton for both forms (nholo/io.h): the common fields, the mechanical layout's
 * fields under NH_SUMMARY_MECHANICAL, the event log under NH_SUMMARY_EVENTS, and the
 * caller's callback at the places it names. Totals over the phases are gathered first. The
 * JSON form is written through a writer (jw) that either prints the text or hands every
 * value to a sink's callbacks (nh_summary_build: the Python binding's dict, built without
 * printing and parsing numbers), so that both are the same object by construction. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nholo/io.h"

/* ---- JSON pieces ------------------------------------------------------------------------- */

void nh_json_num(FILE *f, double x) {
  if (isfinite(x))
    fprintf(f, "%.17g", x);
  else
    fputs("null", f);
}

void nh_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

/* `, "key": ` */
static void json_key(FILE *f, const char *key) {
  fputs(", ", f);
  nh_json_str(f, key);
  fputs(": ", f);
}

void nh_json_field_num(FILE *f, const char *key, double x) {
  json_key(f, key);
  nh_json_num(f, x);
}

void nh_json_field_str(FILE *f, const char *key, const char *s) {
  json_key(f, key);
  nh_json_str(f, s);
}

void nh_json_field_bool(FILE *f, const char *key, int b) {
  json_key(f, key);
  fputs(b ? "true" : "false", f);
}

/* ---- the writer: text on a stream, or a sink's callbacks ---------------------------------- */

/* nesting of the summary's objects and arrays (summary, impact log, record, outcome, ...) */
#define JW_DEPTH 8

typedef struct jw {
  FILE *f;                     /* the text (NULL: the sink) */
  const nh_summary_sink *sink; /* with user */
  void *user;
  int depth;                   /* open containers */
  long items[JW_DEPTH];        /* values written in each (text: a ", " before all but the first) */
  int rc;                      /* the first negative status of a sink's callback */
} jw;

/* text: the separator and `"key": ` before a value (key NULL in an array or at the top) */
static void jw_lead(jw *w, const char *key) {
  if (w->depth > 0 && w->items[w->depth - 1]++ > 0) fputs(", ", w->f);
  if (key) {
    nh_json_str(w->f, key);
    fputs(": ", w->f);
  }
}

/* a callback's status: the first failure stops the sink's part (the writer runs to its end) */
static void jw_status(jw *w, int rc) {
  if (rc < 0 && w->rc == 0) w->rc = rc;
}

/* open an object ('{') or an array ('[') */
static void jw_open(jw *w, const char *key, char kind) {
  if (w->depth == JW_DEPTH) {
    jw_status(w, NH_ERR_ARG);
    return;
  }
  if (w->f) {
    jw_lead(w, key);
    fputc(kind, w->f);
  } else if (!w->rc) {
    jw_status(w, w->sink->open(w->user, key, kind == '['));
  }
  w->items[w->depth++] = 0;
}

static void jw_close(jw *w, char kind) {
  if (w->depth == 0) {
    jw_status(w, NH_ERR_ARG);
    return;
  }
  w->depth--;
  if (w->f) fputc(kind, w->f);
  else if (!w->rc) jw_status(w, w->sink->close(w->user));
}

/* a number (%.17g; null, or the sink's NaN, when not finite) */
static void jw_num(jw *w, const char *key, double x) {
  if (w->f) {
    jw_lead(w, key);
    nh_json_num(w->f, x);
  } else if (!w->rc) {
    jw_status(w, w->sink->num(w->user, key, x));
  }
}

/* a count */
static void jw_int(jw *w, const char *key, long x) {
  if (w->f) {
    jw_lead(w, key);
    fprintf(w->f, "%ld", x);
  } else if (!w->rc) {
    jw_status(w, w->sink->integer(w->user, key, x));
  }
}

static void jw_str(jw *w, const char *key, const char *s) {
  if (w->f) {
    jw_lead(w, key);
    nh_json_str(w->f, s);
  } else if (!w->rc) {
    jw_status(w, w->sink->str(w->user, key, s ? s : ""));
  }
}

static void jw_bool(jw *w, const char *key, int b) {
  if (w->f) {
    jw_lead(w, key);
    fputs(b ? "true" : "false", w->f);
  } else if (!w->rc) {
    jw_status(w, w->sink->boolean(w->user, key, b != 0));
  }
}

/* {"name": x_i, ...} over n names */
static void jw_named(jw *w, const char *key, int n, const char *const *names, const double *x) {
  jw_open(w, key, '{');
  for (int i = 0; i < n; i++) jw_num(w, names[i], x[i]);
  jw_close(w, '}');
}

/* ---- the run's totals ---------------------------------------------------------------------- */

typedef struct totals {
  const nh_sim *first, *last;
  const nh_model *model; /* the first phase's */
  nh_sim_stats st;       /* counts summed, maxima over the phases, the rest the last phase's */
  const char *message;
} totals;

static int gather(const nh_summary *s, totals *t) {
  if (!s || !s->phases || s->nphases < 1 || !s->method) return 0;
  for (int k = 0; k < s->nphases; k++)
    if (!s->phases[k]) return 0;
  t->first = s->phases[0], t->last = s->phases[s->nphases - 1];
  t->model = nh_sim_model(t->first);
  t->st = *nh_sim_get_stats(t->last);
  t->st.energy_initial = nh_sim_get_stats(t->first)->energy_initial;
  for (int k = 0; k < s->nphases - 1; k++) {
    const nh_sim_stats *p = nh_sim_get_stats(s->phases[k]);
    t->st.steps += p->steps, t->st.rejected += p->rejected, t->st.evals += p->evals;
    t->st.impacts += p->impacts, t->st.grazing += p->grazing, t->st.events_located += p->events_located;
    t->st.simul_fallbacks += p->simul_fallbacks, t->st.simul_truncated += p->simul_truncated;
    t->st.solver_iterations += p->solver_iterations, t->st.solver_solves += p->solver_solves;
    t->st.max_energy_rel_error = fmax(t->st.max_energy_rel_error, p->max_energy_rel_error);
    if (p->energy_witness && (!t->st.energy_witness || p->max_energy_drift > t->st.max_energy_drift)) {
      t->st.energy_witness = 1; /* the witness of the phase that drifted most, with its scale */
      t->st.max_energy_drift = p->max_energy_drift, t->st.energy_scale = p->energy_scale;
    }
    t->st.max_constraint_residual = fmax(t->st.max_constraint_residual, p->max_constraint_residual);
    t->st.max_event_gap = fmax(t->st.max_event_gap, p->max_event_gap);
    t->st.solver_max_residual = fmax(t->st.solver_max_residual, p->solver_max_residual);
    if (p->solver_max_iterations > t->st.solver_max_iterations) t->st.solver_max_iterations = p->solver_max_iterations;
  }
  t->message = s->status == NH_OK ? "" : s->message ? s->message : nh_sim_message(t->last);
  return 1;
}

/* What the method conserves on this model (the last phase's; nh_sim_stats.conserved_quantity,
 * decided in one place, src/sim/sim.c) and the witness's fields: its initial and final values
 * and drift only when there is one, the energy the steps made on a model whose energy is a
 * first integral, and the bound that ended the run with NH_DRIFT */
static void json_energy(jw *w, const nh_sim_stats *st, int status) {
  jw_str(w, "conserved_quantity", nh_conserved_name(st->conserved_quantity));
  if (st->conserved_quantity != NH_CONSERVED_NONE) {
    jw_num(w, "conserved_initial", st->conserved_initial);
    jw_num(w, "conserved_final", st->conserved);
    jw_num(w, "max_conserved_rel_error", st->max_conserved_rel_error);
    jw_num(w, "conserved_tol", NH_DRIFT_TOL);
  }
  jw_bool(w, "conserves_energy", st->conserves);
  jw_bool(w, "energy_witness", st->energy_witness);
  if (st->energy_witness) {
    jw_num(w, "energy_scale", st->energy_scale);
    jw_num(w, "max_energy_drift", st->max_energy_drift);
    jw_num(w, "witness_tol", NH_WITNESS_TOL);
  }
  jw_str(w, "drift", nh_drift_name(status == NH_DRIFT ? st->drift : NH_DRIFT_NONE));
}

static const char *law_name(nh_impact_law law, char *buf, size_t size) {
  if (law.kind == NH_IMPACT_ELASTIC) return "elastic";
  if (law.kind == NH_IMPACT_PLASTIC) return "plastic";
  snprintf(buf, size, "restitution=%g", law.e);
  return buf;
}

static const char *impact_law_of(const nh_model *m, char *buf, size_t size) {
  return m->ngap ? law_name(m->impact[0], buf, size) : "none";
}

/* the impact stepping in force (nh_sim_impact_step: AUTO already resolved) */
static const char *impact_step_name(const nh_sim *sim) {
  return nh_sim_impact_step(sim) == NH_IMPACT_STEP_VARIATIONAL ? "variational" : "restart";
}

/* the callback at a place; 0 without one */
static int hook(const nh_summary *s, FILE *f, int json, nh_summary_place at, const nh_summary_event *ev) {
  return s->extra ? s->extra(f, json, at, ev, s->user) : 0;
}

/* the k-th event of phase p */
static nh_summary_event event_of(const nh_summary *s, int p, long k, long index) {
  nh_summary_event e;
  memset(&e, 0, sizeof e);
  e.index = index, e.phase = p, e.sim = s->phases[p];
  nh_sim_event_get(s->phases[p], k, &e.rec);
  return e;
}

static int finish(FILE *f, int rc) { return rc < 0 ? rc : ferror(f) ? NH_ERR_IO : NH_OK; }

/* ---- JSON ------------------------------------------------------------------------------------ */

/* the caller's fields at a place: its callback on the text, the sink's place on a sink */
static int jw_hook(jw *w, const nh_summary *s, nh_summary_place at, const nh_summary_event *ev) {
  if (w->f) return hook(s, w->f, 1, at, ev);
  if (w->rc || !w->sink->place) return w->rc;
  jw_status(w, w->sink->place(w->user, at, ev));
  return w->rc;
}

static int json_events(jw *w, const nh_summary *s) {
  jw_open(w, "events", '[');
  long index = 0;
  for (int p = 0; p < s->nphases; p++)
    for (long k = 0; k < nh_sim_event_count(s->phases[p]); k++, index++) {
      const nh_summary_event e = event_of(s, p, k, index);
      const nh_model *m = nh_sim_model(e.sim);
      jw_open(w, NULL, '{');
      jw_num(w, "t", e.rec.t);
      int rc = jw_hook(w, s, NH_SUMMARY_EVENT_HEAD, &e);
      if (rc < 0) return rc;
      jw_str(w, "monitor", m->monitors[e.rec.monitor].name);
      if (s->phase_names) jw_str(w, "phase", s->phase_names[p]);
      jw_str(w, "direction", e.rec.direction < 0 ? "falling" : "rising");
      jw_bool(w, "stopped", e.rec.stopped);
      if ((rc = jw_hook(w, s, NH_SUMMARY_EVENT_TAIL, &e)) < 0) return rc;
      jw_close(w, '}');
    }
  jw_close(w, ']');
  return 0;
}

static const char *simul_law_name(int law) {
  return law == NH_SIMUL_ELASTIC ? "elastic" : law == NH_SIMUL_PLASTIC ? "plastic" : "inelastic";
}
static const char *simul_policy_name(int p) {
  static const char *names[] = {"most-infeasible", "least", "index", "enumerate"};
  return p >= 0 && p < 4 ? names[p] : "?";
}

const char *nh_impact_note(const nh_model *m, const nh_impact_record *r, char *buf, size_t size) {
  if (!buf || size == 0) return buf;
  buf[0] = '\0';
  if (!m || !r || r->contacts < 2) return buf;
  const char *a = r->fallback_gap[0] >= 0 ? m->gap_names[r->fallback_gap[0]] : "?";
  const char *b = r->fallback_gap[1] >= 0 ? m->gap_names[r->fallback_gap[1]] : "?";
  if (r->fallback == NH_SIMUL_FALLBACK_OPPOSING)
    snprintf(buf, size,
             "contacts '%s' and '%s' oppose: the elastic propagation would reflect between them for "
             "ever; resolved by the plastic map (spec 003 T17)", a, b);
  else if (r->fallback == NH_SIMUL_FALLBACK_CONSTRAINED_PLASTIC)
    snprintf(buf, size,
             "the plastic (Clark & Bloch) law of gap '%s' has no simultaneous counterpart with "
             "velocity constraints; resolved by the plastic complementarity map (R = 0)", a);
  else if (r->outcomes_truncated)
    snprintf(buf, size,
             "the enumeration stopped at %d outcomes (--max-outcomes, simul_max_outcomes; or its "
             "cap of sequences visited) and more may exist; the run follows outcome 0, the "
             "most-infeasible order's", r->outcomes);
  return buf;
}

/* a list of gap names */
static void json_gaps(jw *w, const char *key, const nh_model *m, int n, const int *gaps) {
  jw_open(w, key, '[');
  for (int i = 0; i < n; i++) jw_str(w, NULL, m->gap_names[gaps[i]]);
  jw_close(w, ']');
}

/* the outcomes of an enumeration: each with its velocity by coordinate, its sequence (gaps), its
 * impulses by contact and whether the run follows it (outcome 0) */
static void json_outcomes(jw *w, const nh_model *m, const nh_impact_record *r) {
  jw_open(w, "outcomes", '[');
  for (int j = 0; j < r->outcomes; j++) {
    jw_open(w, NULL, '{');
    jw_named(w, "velocity", m->nq, m->coord_names, r->outcome_v + (size_t)j * (size_t)m->nq);
    json_gaps(w, "sequence", m, r->outcome_len[j], r->outcome_seq + r->outcome_start[j]);
    jw_open(w, "impulses", '{');
    for (int i = 0; i < r->contacts; i++)
      jw_num(w, m->gap_names[r->contact_gap[i]], r->outcome_impulse[(size_t)j * (size_t)r->contacts + i]);
    jw_close(w, '}');
    jw_bool(w, "followed", j == 0);
    jw_close(w, '}');
  }
  jw_close(w, ']');
  jw_bool(w, "outcomes_truncated", r->outcomes_truncated);
}

/* a simultaneous impact's fields: its contacts (gap, impulse, rates), the law, the policy and
 * the reflection sequence (enumerate: the outcomes and xi; a fallback or truncation: a note) */
static void json_simul(jw *w, const nh_model *m, const nh_impact_record *r) {
  jw_open(w, "contacts", '[');
  for (int j = 0; j < r->contacts; j++) {
    jw_open(w, NULL, '{');
    jw_str(w, "surface", m->gap_names[r->contact_gap[j]]);
    jw_num(w, "impulse", r->impulse[j]);
    jw_num(w, "vn_before", r->contact_vn_before[j]);
    jw_num(w, "vn_after", r->contact_vn_after[j]);
    jw_close(w, '}');
  }
  jw_close(w, ']');
  jw_str(w, "law", simul_law_name(r->law));
  jw_num(w, "restitution", r->restitution);
  jw_str(w, "order", simul_policy_name(r->policy));
  json_gaps(w, "sequence", m, r->reflections, r->sequence);
  if (r->policy == NH_SIMUL_ENUMERATE && r->outcomes > 0) {
    json_outcomes(w, m, r);
    jw_num(w, "xi", r->xi);
  }
  char note[512];
  if (r->fallback) jw_str(w, "fallback", nh_simul_fallback_name(r->fallback));
  if (nh_impact_note(m, r, note, sizeof note)[0]) jw_str(w, "note", note);
}

static void json_impacts(jw *w, const nh_summary *s) {
  jw_open(w, "impact_log", '[');
  for (int p = 0; p < s->nphases; p++) {
    const nh_model *m = nh_sim_model(s->phases[p]);
    for (long k = 0; k < nh_sim_impact_count(s->phases[p]); k++) {
      nh_impact_record r;
      nh_sim_impact_get(s->phases[p], k, &r);
      jw_open(w, NULL, '{');
      jw_num(w, "t", r.t);
      jw_str(w, "surface", m->gap_names[r.gap]);
      jw_num(w, "energy_before", r.energy_before);
      jw_num(w, "energy_after", r.energy_after);
      jw_num(w, "alpha", r.alpha);
      jw_str(w, "status", nh_status_name(r.status));
      if (r.contacts > 0) json_simul(w, m, &r);
      jw_close(w, '}');
    }
  }
  jw_close(w, ']');
}

/* the persistent contacts closed and opened (nholo/sim.h, docs/contact.md): only when there were any */
static void json_contacts(jw *w, const nh_summary *s) {
  long n = 0;
  for (int p = 0; p < s->nphases; p++) n += nh_sim_contact_count(s->phases[p]);
  if (n == 0) return;
  jw_open(w, "contact_log", '[');
  for (int p = 0; p < s->nphases; p++) {
    const nh_model *m = nh_sim_model(s->phases[p]);
    for (long k = 0; k < nh_sim_contact_count(s->phases[p]); k++) {
      nh_contact_record r;
      nh_sim_contact_get(s->phases[p], k, &r);
      jw_open(w, NULL, '{');
      jw_num(w, "t", r.t);
      jw_str(w, "surface", m->gap_names[r.gap]);
      jw_str(w, "kind", nh_contact_kind_name(r.kind));
      jw_str(w, "reason", nh_contact_reason_name(r.reason));
      jw_num(w, "t_limit", r.t_limit);
      jw_num(w, "ratio", r.ratio);
      jw_num(w, "normal_force", r.lambda);
      jw_num(w, "energy_before", r.energy_before);
      jw_num(w, "energy_after", r.energy_after);
      jw_close(w, '}');
    }
  }
  jw_close(w, ']');
}

/* the summary's object, through the writer; 0 or a callback's negative status */
static int json_summary(jw *w, const nh_summary *s, const totals *t) {
  const nh_model *m = t->model, *lm = nh_sim_model(t->last);
  const nh_sim_stats *st = &t->st;
  const int mech = s->flags & NH_SUMMARY_MECHANICAL;
  char lb[64];
  int rc;
  // identity and counts
  jw_open(w, NULL, '{');
  jw_str(w, "model", m->name);
  jw_str(w, "method", s->method);
  if (mech) {
    jw_str(w, "impact_law", impact_law_of(m, lb, sizeof lb));
    jw_str(w, "impact_step", impact_step_name(t->last));
    jw_named(w, "parameters", m->npar, m->param_names, m->param_values);
    jw_int(w, "impacts", st->impacts);
  }
  jw_num(w, "t_end", nh_sim_time(t->last));
  jw_int(w, "steps", st->steps);
  jw_int(w, "rejected_steps", st->rejected);
  jw_int(w, "evaluations", st->evals);
  if (mech) jw_int(w, "grazing", st->grazing);
  if ((rc = jw_hook(w, s, NH_SUMMARY_COUNTS, NULL)) < 0) return rc;
  // energies, invariant monitors, solver
  jw_num(w, "energy_initial", st->energy_initial);
  jw_num(w, "energy_final", st->energy);
  if (mech) jw_num(w, "max_energy_rel_error", st->max_energy_rel_error);
  json_energy(w, st, s->status);
  if (mech) {
    jw_num(w, "max_constraint_residual", st->max_constraint_residual);
    jw_num(w, "max_event_gap", st->max_event_gap);
    jw_int(w, "solver_iterations", st->solver_iterations);
    jw_int(w, "solver_solves", st->solver_solves);
    jw_int(w, "solver_max_iterations", st->solver_max_iterations);
    jw_num(w, "solver_last_residual", st->solver_last_residual);
    jw_num(w, "solver_max_residual", st->solver_max_residual);
  }
  jw_num(w, "wall_seconds", s->wall);
  if ((rc = jw_hook(w, s, NH_SUMMARY_RESULTS, NULL)) < 0) return rc;
  // outcome, events, final state, logs
  jw_str(w, "status", nh_status_name(s->status));
  jw_str(w, "message", t->message);
  // why the method: the automatic choice's reason, or "given"
  jw_str(w, "method_reason", nh_sim_method_reason(t->last)[0] ? nh_sim_method_reason(t->last) : "given");
  if ((s->flags & NH_SUMMARY_EVENTS) && (rc = json_events(w, s)) < 0) return rc;
  if (mech) {
    jw_named(w, "final", lm->nq, lm->coord_names, nh_sim_q(t->last));
    jw_named(w, "final_velocity", nh_sim_v(t->last) ? lm->nq : 0, lm->coord_names, nh_sim_v(t->last));
    jw_named(w, "final_state", lm->nx, lm->state_names, nh_sim_x(t->last));
  } else {
    jw_named(w, "final", lm->nx, lm->state_names, nh_sim_x(t->last));
  }
  if ((rc = jw_hook(w, s, NH_SUMMARY_TAIL, NULL)) < 0) return rc;
  if (mech) json_impacts(w, s);
  if (mech) json_contacts(w, s);
  jw_close(w, '}');
  return w->rc;
}

int nh_summary_write_json(FILE *f, const nh_summary *s) {
  totals t;
  if (!f || !gather(s, &t)) return NH_ERR_ARG;
  jw w = {f, NULL, NULL, 0, {0}, 0};
  const int rc = json_summary(&w, s, &t);
  if (rc >= 0) fputc('\n', f);
  return finish(f, rc);
}

int nh_summary_build(const nh_summary *s, const nh_summary_sink *sink, void *user) {
  totals t;
  if (!sink || !sink->open || !sink->close || !sink->num || !sink->integer || !sink->str || !sink->boolean ||
      !gather(s, &t))
    return NH_ERR_ARG;
  jw w = {NULL, sink, user, 0, {0}, 0};
  return json_summary(&w, s, &t);
}

/* ---- text ------------------------------------------------------------------------------------ */

/* the first lines: mechanical (law, impacts, energy, solver) or compact */
static void text_head(FILE *f, const nh_summary *s, const totals *t) {
  const nh_sim_stats *st = &t->st;
  char lb[64];
  if (!(s->flags & NH_SUMMARY_MECHANICAL)) {
    fprintf(f, "model %s, method %s: t = %.10g, %ld steps (%ld rejected), %ld evaluations, %.3f s wall\n",
            t->model->name, s->method, nh_sim_time(t->last), st->steps, st->rejected, st->evals, s->wall);
    return;
  }
  fprintf(f, "model %s, method %s, impact law %s\n", t->model->name, s->method, impact_law_of(t->model, lb, sizeof lb));
  fprintf(f, "t = %.12g s, %ld impacts, %ld steps (%ld rejected), %ld evaluations, %.3f s wall\n",
          nh_sim_time(t->last), st->impacts, st->steps, st->rejected, st->evals, s->wall);
}

/* a simultaneous impact's line: its contacts with their impulses, the law and the sequence */
static void text_simul(FILE *f, const nh_model *m, long n, const nh_impact_record *r) {
  fprintf(f, "  impact %ld: t = %.15g s, simultaneous (%s, order %s):", n, r->t, simul_law_name(r->law),
          simul_policy_name(r->policy));
  for (int j = 0; j < r->contacts; j++)
    fprintf(f, "%s %s impulse %.9g", j ? "," : "", m->gap_names[r->contact_gap[j]], r->impulse[j]);
  fputs("; sequence", f);
  for (int j = 0; j < r->reflections; j++) fprintf(f, " %s", m->gap_names[r->sequence[j]]);
  if (r->reflections == 0) fputs(" none", f);
  if (r->policy == NH_SIMUL_ENUMERATE)
    fprintf(f, "; %d outcomes%s, xi %.6g", r->outcomes, r->outcomes_truncated ? " (truncated)" : "", r->xi);
  if (r->fallback)
    fprintf(f, "; fallback %s (%s%s%s)", nh_simul_fallback_name(r->fallback), m->gap_names[r->fallback_gap[0]],
            r->fallback_gap[1] >= 0 ? ", " : "", r->fallback_gap[1] >= 0 ? m->gap_names[r->fallback_gap[1]] : "");
  fprintf(f, "; energy %.9g -> %.9g\n", r->energy_before, r->energy_after);
}

/* what the method conserves on this model, and only that, with its drift (NH_DRIFT_TOL); the
 * energy the steps made on a model whose energy is a first integral (NH_WITNESS_TOL) */
static void text_energy(FILE *f, const nh_summary *s, const nh_sim_stats *st) {
  if (st->conserved_quantity == NH_CONSERVED_HALF_STEP_ENERGY)
    fprintf(f, "conserved by %s: half-step energy %.12g -> %.12g J, max relative drift %.3e (bound %g)\n", s->method,
            st->conserved_initial, st->conserved, st->max_conserved_rel_error, NH_DRIFT_TOL);
  else if (st->conserved_quantity == NH_CONSERVED_ENERGY)
    fprintf(f, "conserved by %s: energy, max relative drift %.3e between impacts (bound %g)\n", s->method,
            st->max_conserved_rel_error, NH_DRIFT_TOL);
  if (st->energy_witness)
    fprintf(f, "energy witness: the steps changed the energy by %.3e of its scale %.6g J (bound %g)\n", st->max_energy_drift,
            st->energy_scale, NH_WITNESS_TOL);
}

/* mechanical: the energy and solver lines, the first impacts */
#define TEXT_IMPACTS 5
static void text_mechanical(FILE *f, const nh_summary *s, const totals *t) {
  const nh_sim_stats *st = &t->st;
  fprintf(f, "energy %.12g -> %.12g J; max relative energy error between impacts %.3e; max |A v| %.3e\n",
          st->energy_initial, st->energy, st->max_energy_rel_error, st->max_constraint_residual);
  text_energy(f, s, st);
  if (st->solver_iterations > 0) /* per solve: partial and rejected steps solve too */
    fprintf(f, "solver: %.2f iterations per solve (max %d) in %ld solve%s, max residual %.3e\n",
            (double)st->solver_iterations / (double)(st->solver_solves > 0 ? st->solver_solves : 1),
            st->solver_max_iterations, st->solver_solves, st->solver_solves == 1 ? "" : "s", st->solver_max_residual);
  long n = 0, shown = 0;
  for (int p = 0; p < s->nphases; p++) {
    const nh_model *m = nh_sim_model(s->phases[p]);
    const long np = nh_sim_impact_count(s->phases[p]);
    for (long k = 0; k < np && shown < TEXT_IMPACTS; k++, shown++) {
      nh_impact_record r;
      nh_sim_impact_get(s->phases[p], k, &r);
      if (r.contacts > 0) {
        text_simul(f, m, shown + 1, &r);
        continue;
      }
      fprintf(f, "  impact %ld: t = %.15g s, %s, energy %.9g -> %.9g\n", shown + 1, r.t, m->gap_names[r.gap],
              r.energy_before, r.energy_after);
    }
    n += np;
  }
  if (st->impacts > n) n = st->impacts; /* a log bounded by log_limit keeps fewer records than there were */
  if (n > shown) fprintf(f, "  ... %ld more (--events FILE for the whole log)\n", n - shown);
  for (int p = 0; p < s->nphases; p++) {
    const nh_model *m = nh_sim_model(s->phases[p]);
    for (long k = 0; k < nh_sim_contact_count(s->phases[p]); k++) {
      nh_contact_record r;
      nh_sim_contact_get(s->phases[p], k, &r);
      fprintf(f, "  contact %s: t = %.15g s, %s, %s", nh_contact_kind_name(r.kind), r.t, m->gap_names[r.gap],
              nh_contact_reason_name(r.reason));
      if (r.ratio > 0.0) fprintf(f, " (limit t = %.15g s, ratio %.6g)", r.t_limit, r.ratio);
      fprintf(f, ", energy %.9g -> %.9g\n", r.energy_before, r.energy_after);
    }
  }
}

/* one line per event; a stop in the last phase stopped the run */
static int text_events(FILE *f, const nh_summary *s) {
  long index = 0;
  for (int p = 0; p < s->nphases; p++)
    for (long k = 0; k < nh_sim_event_count(s->phases[p]); k++, index++) {
      const nh_summary_event e = event_of(s, p, k, index);
      int rc = 0;
      fputs("  event: ", f);
      if (s->extra) rc = hook(s, f, 0, NH_SUMMARY_EVENT_HEAD, &e);
      else fputs(nh_sim_model(e.sim)->monitors[e.rec.monitor].name, f);
      if (rc < 0) return rc;
      fprintf(f, " at t = %.10g", e.rec.t);
      if ((rc = hook(s, f, 0, NH_SUMMARY_EVENT_TAIL, &e)) < 0) return rc;
      fputs(e.rec.stopped && p == s->nphases - 1 ? " (run stopped)\n" : "\n", f);
    }
  return 0;
}

int nh_summary_write_text(FILE *f, const nh_summary *s) {
  totals t;
  if (!f || !gather(s, &t)) return NH_ERR_ARG;
  int rc;
  text_head(f, s, &t);
  if ((rc = hook(s, f, 0, NH_SUMMARY_COUNTS, NULL)) < 0) return rc;
  if (s->flags & NH_SUMMARY_MECHANICAL) text_mechanical(f, s, &t);
  else text_energy(f, s, &t.st);
  if ((s->flags & NH_SUMMARY_EVENTS) && (rc = text_events(f, s)) < 0) return rc;
  if ((rc = hook(s, f, 0, NH_SUMMARY_RESULTS, NULL)) < 0) return rc;
  fprintf(f, "status: %s%s%s\n", nh_status_name(s->status), s->status ? ": " : "", t.message);
  return finish(f, hook(s, f, 0, NH_SUMMARY_TAIL, NULL));
}
