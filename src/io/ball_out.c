/* ball_out.c - what the rolling ball and disk record of a run (nholo/io.h, the outputs of the
 * ball's system, src/systems/ball_system.c): the normal force N, the friction f_s and f_s/N
 * tracked on a grid of BALL_STATS_DT whatever the output sampling, the CSV of the state with
 * them (--out, rows thinned to --sample), the CSV of the detachment, slip and touchdown events
 * (--events), their plot (--plot) and the summary's regime statistics, events and flight. With
 * a flight phase every state is written in the flight's layout, with a phase column. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nholo/systems/ball.h"
#include "nholo/io.h"

/* f_s / N and N are tracked on this grid (s) whatever the output sampling: the paper's
 * minimum friction coefficients are maxima over time, resolved to ~1e-7 by it */
#define BALL_STATS_DT 1e-3
/* a sample within this fraction of the output interval of its grid time is on the grid */
#define BALL_GRID_SLACK 1e-9

#define BALL_NX_MAX (2 * NH_BALL_MAX_MASSES + 13) /* the largest state (the flight layout) */

/* one tracked sample: its CSV row's values */
typedef struct ball_sample {
  double t, x[BALL_NX_MAX]; /* x in the run's layout */
  nh_ball_eval ev;
  double run_max;           /* the running max of f_s/N up to it */
  int flight;
} ball_sample;

typedef struct ball_rec {
  const nh_model *model;   /* the state layout: the flight model with a flight phase */
  int fly;                 /* states are stored in the flight layout */
  nh_sim *const *sims;     /* the phases' (rolling, flight) */
  int nphases;
  const nh_ball_flight_info *fi; /* the switch (with a flight phase) */
  int failed;
  nh_ball_stats st;        /* over the rolling samples */
  long n;                  /* samples tracked */
  int detached;            /* a normal_force event was logged */
  // the CSV (--out): rows on the output grid, the first, the last and the events
  nh_outfile csv, evf;
  int has_csv, has_ev;
  double sample, next, run_max;
  ball_sample last_sample; /* the latest sample; last_written: its row is in the CSV */
  int last_written;
  long nev;                /* events written (--events) */
  // the plot (--plot): N, f_s and f_s/N of at most plot_max samples, thinned evenly
  double *pt, *pN, *pfs, *pratio;
  long np, stride, seen, plot_max;
} ball_rec;

/* ---- the samples ------------------------------------------------------------------------- */

static void csv_row(FILE *fp, const ball_rec *r, const ball_sample *b) {
  const nh_ball_eval *e = &b->ev;
  fprintf(fp, "%.17g", b->t);
  for (int i = 0; i < r->model->nx; i++) fprintf(fp, ",%.17g", b->x[i]);
  fprintf(fp, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", e->N, e->fvec[0],
          e->fvec[1], e->fs, e->N > 0 ? e->ratio : NAN, b->run_max, e->energy, e->power, e->z_cp[0], e->z_cp[1],
          e->cm_space[0], e->cm_space[1], e->cm_space[2]);
  fputs(!r->fly ? "\n" : b->flight ? ",flight\n" : ",rolling\n", fp);
}

/* is the sample a row of outputs sampled every `sample` s (the first at or after each
 * multiple; starts and events always, the last at the end: ball_commit) */
static int keep_sample(ball_rec *r, nh_sample_kind kind, double t) {
  if (r->n == 0 || kind == NH_SAMPLE_EVENT || r->sample <= BALL_STATS_DT) return 1;
  if (t >= r->next - BALL_GRID_SLACK * r->sample) {
    r->next = (floor(t / r->sample + BALL_GRID_SLACK) + 1.0) * r->sample;
    return 1;
  }
  return 0;
}

/* the event just logged by sim (its latest record), as a row of the events CSV */
static void event_row(ball_rec *r, const nh_sim *sim) {
  const long k = nh_sim_event_count(sim);
  nh_event_record e;
  if (k < 1 || nh_sim_event_get(sim, k - 1, &e) != NH_OK) return;
  const nh_model *m = nh_sim_model(sim);
  const int flight = nh_ball_model_kind(m) == NH_BALL_FLIGHT;
  r->detached |= !flight && strcmp(m->monitors[e.monitor].name, "normal_force") == 0;
  if (!r->has_ev) return;
  double xf[BALL_NX_MAX];
  const double *x = e.x;
  if (r->fly && !flight && nh_ball_flight_state(m, e.t, e.x, xf, NULL) == NH_OK) x = xf;
  FILE *fp = r->evf.fp;
  fprintf(fp, "%ld,%.17g,%s,%s,%d,%.17g", r->nev++, e.t, m->monitors[e.monitor].name,
          e.direction < 0 ? "falling" : "rising", e.stopped, e.value);
  if (r->fly) fputs(flight ? ",flight" : ",rolling", fp);
  for (int i = 0; i < r->model->nx; i++) fprintf(fp, ",%.17g", x[i]);
  fputc('\n', fp);
}

/* the plot's points: every stride-th sample; when full, every other one is dropped */
static void plot_point(ball_rec *r, const ball_sample *b) {
  if (!r->pt || r->seen++ % r->stride != 0) return;
  if (r->np == r->plot_max) {
    for (long k = 0; 2 * k < r->np; k++)
      r->pt[k] = r->pt[2 * k], r->pN[k] = r->pN[2 * k], r->pfs[k] = r->pfs[2 * k], r->pratio[k] = r->pratio[2 * k];
    r->np = (r->np + 1) / 2, r->stride *= 2;
    if ((r->seen - 1) % r->stride != 0) return;
  }
  r->pt[r->np] = b->t, r->pN[r->np] = b->ev.N, r->pfs[r->np] = b->ev.fs;
  r->pratio[r->np++] = b->ev.N > 0 ? b->ev.ratio : NAN;
}

static int ball_observe(const nh_sim *sim, nh_sample_kind kind, double t, const double *x, const double *v,
                        void *user) {
  (void)v;
  ball_rec *r = user;
  const nh_model *sm = nh_sim_model(sim); /* the phase's model */
  const int flight = nh_ball_model_kind(sm) == NH_BALL_FLIGHT;
  if (kind == NH_SAMPLE_EVENT) event_row(r, sim);
  if (kind == NH_SAMPLE_END && r->n > 0 && r->last_sample.t == t) return 0; /* already recorded */
  ball_sample *b = &r->last_sample;
  b->t = t;
  b->flight = flight;
  // one layout for the whole run: a rolling state in the flight layout when flying is on
  if (r->fly && !flight) {
    if (nh_ball_flight_state(sm, t, x, b->x, NULL) != NH_OK) return r->failed = 1;
  } else {
    memcpy(b->x, x, sizeof(double) * (size_t)r->model->nx);
  }
  if (nh_ball_evaluate(sm, t, x, &b->ev) != NH_OK) return r->failed = 1;
  if (!flight) nh_ball_stats_update(&r->st, sm, t, x);
  const nh_ball_eval *e = &b->ev;
  r->run_max = e->N > 0 && !flight && r->run_max == r->run_max ? fmax(r->run_max, e->ratio) : NAN;
  b->run_max = r->run_max;
  r->last_written = r->has_csv && keep_sample(r, kind, t);
  if (r->last_written) csv_row(r->csv.fp, r, b);
  plot_point(r, b);
  r->n++;
  return 0;
}

/* ---- the record's life ------------------------------------------------------------------------ */

/* the outputs opened before the run (headers written); NH_OK or the error in msg */
static int ball_open(void *rec, const nh_system_run *run, nh_sim *const *sims, const nh_run_files *f, char *msg,
                     size_t size) {
  ball_rec *r = rec;
  r->fly = run->nphases > 1;
  r->model = run->models[run->nphases - 1];
  r->sims = sims, r->nphases = run->nphases;
  r->fi = r->fly ? run->reset_user : NULL;
  nh_ball_stats_init(&r->st);
  const nh_model *m = r->model;
  r->sample = f->sample, r->next = f->sample, r->stride = 1, r->plot_max = f->plot_max;
  if (f->plot) {
    r->pt = malloc(sizeof(double) * 4 * (size_t)r->plot_max);
    if (!r->pt) return snprintf(msg, size, "out of memory for the plot's record"), NH_ERR_NOMEM;
    r->pN = r->pt + r->plot_max, r->pfs = r->pN + r->plot_max, r->pratio = r->pfs + r->plot_max;
  }
  int st;
  if (f->out) {
    if ((st = nh_outfile_open(&r->csv, f->out, msg, size)) != NH_OK) return st;
    r->has_csv = 1;
    fputs("t", r->csv.fp);
    for (int i = 0; i < m->nx; i++) fprintf(r->csv.fp, ",%s", m->state_names[i]);
    fputs(",N,friction_x,friction_y,friction,friction_over_N,min_mu_so_far,energy,power,x_cp,y_cp,cm_x,cm_y,cm_z", r->csv.fp);
    fputs(r->fly ? ",phase\n" : "\n", r->csv.fp);
  }
  if (f->events) {
    if ((st = nh_outfile_open(&r->evf, f->events, msg, size)) != NH_OK) return st;
    r->has_ev = 1;
    fputs(r->fly ? "index,t,monitor,direction,stopped,value,phase" : "index,t,monitor,direction,stopped,value", r->evf.fp);
    for (int i = 0; i < m->nx; i++) fprintf(r->evf.fp, ",%s", m->state_names[i]);
    fputc('\n', r->evf.fp);
  }
  return NH_OK;
}

/* the last sample's row (always), then the files into place */
static int ball_commit(void *rec, int last, char *msg, size_t size) {
  ball_rec *r = rec;
  (void)last; /* the flight's record says whether it flew (the system's finish) */
  int rc = NH_OK, st;
  if (r->has_csv && !r->last_written && r->n > 0) csv_row(r->csv.fp, r, &r->last_sample);
  if (r->has_csv && (r->has_csv = 0, st = nh_outfile_commit(&r->csv, msg, size)) != NH_OK) rc = st;
  char m2[1100];
  if (r->has_ev && (r->has_ev = 0, st = nh_outfile_commit(&r->evf, rc ? m2 : msg, rc ? sizeof m2 : size)) != NH_OK &&
      !rc)
    rc = st;
  if (r->failed && !rc) rc = NH_ERR_CALLBACK, snprintf(msg, size, "evaluation failure while recording the run");
  return rc;
}

static void ball_close(void *rec) {
  ball_rec *r = rec;
  if (r->has_csv) nh_outfile_abort(&r->csv);
  if (r->has_ev) nh_outfile_abort(&r->evf);
  free(r->pt);
  r->pt = NULL, r->has_csv = r->has_ev = 0;
}

/* ---- the summary (nholo/io.h) -------------------------------------------------------------- */

/* the kind of a monitor event */
static const char *event_kind(const char *monitor) {
  return !strcmp(monitor, "normal_force") ? "detachment" : !strcmp(monitor, "touchdown") ? "touchdown" : "slip";
}

/* the regime statistics (after the counts) */
static void summary_counts(FILE *f, int json, const ball_rec *r) {
  const nh_ball_stats *st = &r->st;
  if (!json) {
    fprintf(f, "normal force: min %.10g at t = %.6g%s\n", st->min_N, st->t_min_N, st->detached ? " (detached)" : "");
    if (!st->detached)
      fprintf(f, "minimum static friction coefficient to roll without slipping: %.7f (max f_s/N, at t = %.6g)\n",
              st->min_mu, st->t_min_mu);
    return;
  }
  fprintf(f, ", \"samples\": %ld", st->samples);
  nh_json_field_num(f, "min_mu_static", st->detached ? NAN : st->min_mu);
  nh_json_field_num(f, "t_min_mu_static", st->t_min_mu);
  nh_json_field_num(f, "min_normal_force", st->min_N);
  nh_json_field_num(f, "t_min_normal_force", st->t_min_N);
  nh_json_field_num(f, "max_friction", st->max_fs);
  nh_json_field_num(f, "t_max_friction", st->t_max_fs);
  nh_json_field_bool(f, "detached", st->detached || r->detached);
}

/* with a flight phase: the switch (before the status) */
static void summary_flight(FILE *f, int json, const ball_rec *r) {
  const nh_ball_flight_info *fi = r->fi;
  if (!r->fly) return;
  if (!json) {
    if (fi->detached)
      fprintf(f, fi->flew ? "  free flight from t = %.10g (z_GC'' = %.3g at the switch)\n"
                          : "  no lift-off at t = %.10g: the free ball would be pressed into the floor (z_GC'' = %.3g)\n",
              fi->t_detach, fi->z_acc);
    return;
  }
  fprintf(f, ", \"flight\": {\"lifted_off\": %s", fi->flew ? "true" : "false");
  nh_json_field_num(f, "t_detach", fi->t_detach);
  nh_json_field_num(f, "z_acceleration", fi->z_acc);
  nh_json_field_bool(f, "touchdown", fi->touchdown);
  nh_json_field_num(f, "t_touchdown", fi->t_touchdown);
  nh_json_field_num(f, "vz_touchdown", fi->vz_touchdown);
  fprintf(f, ", \"steps\": %ld}", fi->flew ? nh_sim_get_stats(r->sims[1])->steps : 0);
  fputs(", \"phases\": [{\"phase\": \"rolling\", \"t_start\": 0", f);
  nh_json_field_num(f, "t_end", nh_sim_time(r->sims[0]));
  if (fi->flew) {
    fputs("}, {\"phase\": \"flight\"", f);
    nh_json_field_num(f, "t_start", fi->t_detach);
    nh_json_field_num(f, "t_end", nh_sim_time(r->sims[1]));
  }
  fputs("}]", f);
}

/* an event: its kind (label), then N, f_s and at a detachment the flight's z_GC3'' (< 0: no
 * lift-off), at touchdown z_GC3' */
static void summary_event(FILE *f, int json, nh_summary_place at, const nh_summary_event *ev) {
  const nh_model *m = nh_sim_model(ev->sim);
  const char *what = event_kind(m->monitors[ev->rec.monitor].name);
  if (at == NH_SUMMARY_EVENT_HEAD) {
    if (json) nh_json_field_str(f, "kind", what);
    else fputs(what[0] == 'd' ? "detachment (N = 0)" : what[0] == 't' ? "touchdown (z_GC = 0)" : "slip (f_s = mu N)", f);
    return;
  }
  if (!json) return;
  nh_ball_eval bv;
  nh_ball_evaluate(m, ev->rec.t, ev->rec.x, &bv);
  nh_json_field_num(f, "normal_force", bv.N);
  nh_json_field_num(f, "friction", bv.fs);
  double xf[BALL_NX_MAX], zacc;
  if (what[0] == 'd' && nh_ball_flight_state(m, ev->rec.t, ev->rec.x, xf, &zacc) == NH_OK)
    nh_json_field_num(f, "flight_z_acceleration", zacc);
  if (what[0] == 't') nh_json_field_num(f, "z_velocity", ev->rec.x[m->nx - 1]);
}

static int ball_summary(FILE *f, int json, nh_summary_place at, const nh_summary_event *ev, void *user) {
  const ball_rec *r = user;
  if (at == NH_SUMMARY_COUNTS) summary_counts(f, json, r);
  else if (at == NH_SUMMARY_RESULTS) summary_flight(f, json, r);
  else if (ev) summary_event(f, json, at, ev);
  return 0;
}

/* N, f_s and f_s/N against time */
static int ball_plot(void *rec, const char *path, const nh_run_view *v, char *msg, size_t size) {
  const ball_rec *r = rec;
  char title[200];
  snprintf(title, sizeof title, "%s: normal force and static friction", v->model->name);
  nh_plot_curve c[3] = {{r->np, r->pt, r->pN, NULL, 0}, {r->np, r->pt, r->pfs, NULL, 0}, {r->np, r->pt, r->pratio, NULL, 0}};
  nh_plot_panel p[3] = {{"normal force", "t", "N", 1, &c[0], 0, 0.0},
                        {"static friction", "t", "f#ds#u", 1, &c[1], 0, NAN},
                        {"friction / normal force", "t", "f#ds#u/N", 1, &c[2], 0, NAN}};
  return nh_plot_panels(path, 1, 3, 3, p, title, msg, size);
}

const nh_system_outputs nh_ball_outputs = {
    .grid = BALL_STATS_DT,
    .flags = NH_SUMMARY_EVENTS,
    .size = sizeof(ball_rec),
    .open = ball_open,
    .observe = ball_observe,
    .commit = ball_commit,
    .close = ball_close,
    .summary = ball_summary,
    .plot = ball_plot,
};
