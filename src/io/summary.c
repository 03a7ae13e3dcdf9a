/* summary.c - the summary of a run (one simulation or a chain of phases) as JSON or text.
 *
 * One skeleton for both forms (nholo/io.h): the common fields, the mechanical layout's
 * fields under NH_SUMMARY_MECHANICAL, the event log under NH_SUMMARY_EVENTS, and the
 * caller's callback at the places it names. Totals over the phases are gathered first. */
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

/* {"name": x_i, ...} over n names */
static void json_named(FILE *f, int n, const char *const *names, const double *x) {
  fputc('{', f);
  for (int i = 0; i < n; i++) {
    if (i) fputs(", ", f);
    nh_json_str(f, names[i]);
    fputs(": ", f);
    nh_json_num(f, x[i]);
  }
  fputc('}', f);
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
static void json_energy(FILE *f, const nh_sim_stats *st, int status) {
  nh_json_field_str(f, "conserved_quantity", nh_conserved_name(st->conserved_quantity));
  if (st->conserved_quantity != NH_CONSERVED_NONE) {
    nh_json_field_num(f, "conserved_initial", st->conserved_initial);
    nh_json_field_num(f, "conserved_final", st->conserved);
    nh_json_field_num(f, "max_conserved_rel_error", st->max_conserved_rel_error);
    nh_json_field_num(f, "conserved_tol", NH_DRIFT_TOL);
  }
  nh_json_field_bool(f, "conserves_energy", st->conserves);
  nh_json_field_bool(f, "energy_witness", st->energy_witness);
  if (st->energy_witness) {
    nh_json_field_num(f, "energy_scale", st->energy_scale);
    nh_json_field_num(f, "max_energy_drift", st->max_energy_drift);
    nh_json_field_num(f, "witness_tol", NH_WITNESS_TOL);
  }
  nh_json_field_str(f, "drift", nh_drift_name(status == NH_DRIFT ? st->drift : NH_DRIFT_NONE));
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

static int json_events(FILE *f, const nh_summary *s) {
  fputs(", \"events\": [", f);
  long index = 0;
  for (int p = 0; p < s->nphases; p++)
    for (long k = 0; k < nh_sim_event_count(s->phases[p]); k++, index++) {
      const nh_summary_event e = event_of(s, p, k, index);
      const nh_model *m = nh_sim_model(e.sim);
      fputs(index ? ", {\"t\": " : "{\"t\": ", f);
      nh_json_num(f, e.rec.t);
      int rc = hook(s, f, 1, NH_SUMMARY_EVENT_HEAD, &e);
      if (rc < 0) return rc;
      nh_json_field_str(f, "monitor", m->monitors[e.rec.monitor].name);
      if (s->phase_names) nh_json_field_str(f, "phase", s->phase_names[p]);
      nh_json_field_str(f, "direction", e.rec.direction < 0 ? "falling" : "rising");
      nh_json_field_bool(f, "stopped", e.rec.stopped);
      if ((rc = hook(s, f, 1, NH_SUMMARY_EVENT_TAIL, &e)) < 0) return rc;
      fputc('}', f);
    }
  fputc(']', f);
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

/* the outcomes of an enumeration: each with its velocity by coordinate, its sequence (gaps), its
 * impulses by contact and whether the run follows it (outcome 0) */
static void json_outcomes(FILE *f, const nh_model *m, const nh_impact_record *r) {
  fputs(", \"outcomes\": [", f);
  for (int j = 0; j < r->outcomes; j++) {
    fputs(j ? ", {\"velocity\": " : "{\"velocity\": ", f);
    json_named(f, m->nq, m->coord_names, r->outcome_v + (size_t)j * (size_t)m->nq);
    fputs(", \"sequence\": [", f);
    const int *sq = r->outcome_seq + r->outcome_start[j];
    for (int i = 0; i < r->outcome_len[j]; i++) {
      if (i) fputs(", ", f);
      nh_json_str(f, m->gap_names[sq[i]]);
    }
    fputs("], \"impulses\": {", f);
    for (int i = 0; i < r->contacts; i++) {
      if (i) fputs(", ", f);
      nh_json_str(f, m->gap_names[r->contact_gap[i]]);
      fputs(": ", f);
      nh_json_num(f, r->outcome_impulse[(size_t)j * (size_t)r->contacts + i]);
    }
    fputc('}', f);
    nh_json_field_bool(f, "followed", j == 0);
    fputc('}', f);
  }
  fputc(']', f);
  nh_json_field_bool(f, "outcomes_truncated", r->outcomes_truncated);
}

/* a simultaneous impact's fields: its contacts (gap, impulse, rates), the law, the policy and
 * the reflection sequence (enumerate: the outcomes and xi; a fallback or truncation: a note) */
static void json_simul(FILE *f, const nh_model *m, const nh_impact_record *r) {
  fputs(", \"contacts\": [", f);
  for (int j = 0; j < r->contacts; j++) {
    fputs(j ? ", {\"surface\": " : "{\"surface\": ", f);
    nh_json_str(f, m->gap_names[r->contact_gap[j]]);
    nh_json_field_num(f, "impulse", r->impulse[j]);
    nh_json_field_num(f, "vn_before", r->contact_vn_before[j]);
    nh_json_field_num(f, "vn_after", r->contact_vn_after[j]);
    fputc('}', f);
  }
  fputc(']', f);
  nh_json_field_str(f, "law", simul_law_name(r->law));
  nh_json_field_num(f, "restitution", r->restitution);
  nh_json_field_str(f, "order", simul_policy_name(r->policy));
  fputs(", \"sequence\": [", f);
  for (int j = 0; j < r->reflections; j++) {
    if (j) fputs(", ", f);
    nh_json_str(f, m->gap_names[r->sequence[j]]);
  }
  fputc(']', f);
  if (r->policy == NH_SIMUL_ENUMERATE && r->outcomes > 0) {
    json_outcomes(f, m, r);
    nh_json_field_num(f, "xi", r->xi);
  }
  char note[512];
  if (r->fallback) nh_json_field_str(f, "fallback", nh_simul_fallback_name(r->fallback));
  if (nh_impact_note(m, r, note, sizeof note)[0]) nh_json_field_str(f, "note", note);
}

static void json_impacts(FILE *f, const nh_summary *s) {
  fputs(", \"impact_log\": [", f);
  long index = 0;
  for (int p = 0; p < s->nphases; p++) {
    const nh_model *m = nh_sim_model(s->phases[p]);
    for (long k = 0; k < nh_sim_impact_count(s->phases[p]); k++, index++) {
      nh_impact_record r;
      nh_sim_impact_get(s->phases[p], k, &r);
      fputs(index ? ", {\"t\": " : "{\"t\": ", f);
      nh_json_num(f, r.t);
      nh_json_field_str(f, "surface", m->gap_names[r.gap]);
      nh_json_field_num(f, "energy_before", r.energy_before);
      nh_json_field_num(f, "energy_after", r.energy_after);
      nh_json_field_num(f, "alpha", r.alpha);
      nh_json_field_str(f, "status", nh_status_name(r.status));
      if (r.contacts > 0) json_simul(f, m, &r);
      fputc('}', f);
    }
  }
  fputc(']', f);
}

/* the persistent contacts closed and opened (nholo/sim.h, docs/contact.md): only when there were any */
static void json_contacts(FILE *f, const nh_summary *s) {
  long n = 0;
  for (int p = 0; p < s->nphases; p++) n += nh_sim_contact_count(s->phases[p]);
  if (n == 0) return;
  fputs(", \"contact_log\": [", f);
  long index = 0;
  for (int p = 0; p < s->nphases; p++) {
    const nh_model *m = nh_sim_model(s->phases[p]);
    for (long k = 0; k < nh_sim_contact_count(s->phases[p]); k++, index++) {
      nh_contact_record r;
      nh_sim_contact_get(s->phases[p], k, &r);
      fputs(index ? ", {\"t\": " : "{\"t\": ", f);
      nh_json_num(f, r.t);
      nh_json_field_str(f, "surface", m->gap_names[r.gap]);
      nh_json_field_str(f, "kind", nh_contact_kind_name(r.kind));
      nh_json_field_str(f, "reason", nh_contact_reason_name(r.reason));
      nh_json_field_num(f, "t_limit", r.t_limit);
      nh_json_field_num(f, "ratio", r.ratio);
      nh_json_field_num(f, "normal_force", r.lambda);
      nh_json_field_num(f, "energy_before", r.energy_before);
      nh_json_field_num(f, "energy_after", r.energy_after);
      fputc('}', f);
    }
  }
  fputc(']', f);
}

int nh_summary_write_json(FILE *f, const nh_summary *s) {
  totals t;
  if (!f || !gather(s, &t)) return NH_ERR_ARG;
  const nh_model *m = t.model, *lm = nh_sim_model(t.last);
  const nh_sim_stats *st = &t.st;
  const int mech = s->flags & NH_SUMMARY_MECHANICAL;
  char lb[64];
  int rc;
  // identity and counts
  fputs("{\"model\": ", f);
  nh_json_str(f, m->name);
  nh_json_field_str(f, "method", s->method);
  if (mech) {
    nh_json_field_str(f, "impact_law", impact_law_of(m, lb, sizeof lb));
    nh_json_field_str(f, "impact_step", impact_step_name(t.last));
    fputs(", \"parameters\": ", f);
    json_named(f, m->npar, m->param_names, m->param_values);
    fprintf(f, ", \"impacts\": %ld", st->impacts);
  }
  nh_json_field_num(f, "t_end", nh_sim_time(t.last));
  fprintf(f, ", \"steps\": %ld, \"rejected_steps\": %ld, \"evaluations\": %ld", st->steps, st->rejected, st->evals);
  if (mech) fprintf(f, ", \"grazing\": %ld", st->grazing);
  if ((rc = hook(s, f, 1, NH_SUMMARY_COUNTS, NULL)) < 0) return rc;
  // energies, invariant monitors, solver
  nh_json_field_num(f, "energy_initial", st->energy_initial);
  nh_json_field_num(f, "energy_final", st->energy);
  if (mech) {
    nh_json_field_num(f, "max_energy_rel_error", st->max_energy_rel_error);
  }
  json_energy(f, st, s->status);
  if (mech) {
    nh_json_field_num(f, "max_constraint_residual", st->max_constraint_residual);
    nh_json_field_num(f, "max_event_gap", st->max_event_gap);
    nh_json_field_num(f, "solver_iterations", (double)st->solver_iterations);
    nh_json_field_num(f, "solver_solves", (double)st->solver_solves);
    nh_json_field_num(f, "solver_max_iterations", (double)st->solver_max_iterations);
    nh_json_field_num(f, "solver_last_residual", st->solver_last_residual);
    nh_json_field_num(f, "solver_max_residual", st->solver_max_residual);
  }
  nh_json_field_num(f, "wall_seconds", s->wall);
  if ((rc = hook(s, f, 1, NH_SUMMARY_RESULTS, NULL)) < 0) return rc;
  // outcome, events, final state, logs
  nh_json_field_str(f, "status", nh_status_name(s->status));
  nh_json_field_str(f, "message", t.message);
  // why the method: the automatic choice's reason, or "given"
  nh_json_field_str(f, "method_reason", nh_sim_method_reason(t.last)[0] ? nh_sim_method_reason(t.last) : "given");
  if ((s->flags & NH_SUMMARY_EVENTS) && (rc = json_events(f, s)) < 0) return rc;
  if (mech) {
    fputs(", \"final\": ", f);
    json_named(f, lm->nq, lm->coord_names, nh_sim_q(t.last));
    fputs(", \"final_velocity\": ", f);
    json_named(f, nh_sim_v(t.last) ? lm->nq : 0, lm->coord_names, nh_sim_v(t.last));
    fputs(", \"final_state\": ", f);
  } else {
    fputs(", \"final\": ", f);
  }
  json_named(f, lm->nx, lm->state_names, nh_sim_x(t.last));
  if ((rc = hook(s, f, 1, NH_SUMMARY_TAIL, NULL)) < 0) return rc;
  if (mech) json_impacts(f, s);
  if (mech) json_contacts(f, s);
  fputs("}\n", f);
  return finish(f, 0);
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
