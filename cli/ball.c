/* ball.c - the rolling ball and disk of Putkaradze & Rogers in the command-line tool:
 * `nholo run rolling-disk|rolling-ball|rolling-ball-detach|FILE.nh|FILE.ball` and the paper's figures
 * (`nholo figure ball-fig5.1` ... `ball-fig6.4`). A thin client of nholo/systems/ball.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* f_s / N and N are tracked on this grid (s) whatever the output sampling: the paper's
 * minimum friction coefficients are maxima over time, resolved to ~1e-7 by it */
#define BALL_STATS_DT 1e-3
/* the reference runs: the paper's horizon and tolerance (spec 004 sec. 3.3, 8) */
#define BALL_T_END 20.0
#define BALL_TOL 1e-12
/* a sample within this fraction of the output interval of its grid time is on the grid */
#define BALL_GRID_SLACK 1e-9

/* ---- the models ------------------------------------------------------------------------- */

static const struct {
  const char *name, *what;
} ball_models[] = {
    {"rolling-disk", "disk rolled by 4 internal masses on circles (Putkaradze & Rogers sec. 5, Table 5.1)"},
    {"rolling-ball", "ball rolled by 3 internal masses on tilted circles (sec. 6, Table 6.2)"},
    {"rolling-ball-detach", "the ball with m3 = 60: the normal force vanishes (sec. 6, Fig. 6.4)"},
};
#define NBALL_MODELS ((int)(sizeof ball_models / sizeof ball_models[0]))

static int ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n > m && strcmp(s + n - m, suf) == 0;
}

int cli_ball_is_model(const char *name) {
  for (int i = 0; i < NBALL_MODELS; i++)
    if (strcmp(name, ball_models[i].name) == 0) return 1;
  /* a body file of the model language (`body ball`), or the former .ball format */
  return ends_with(name, ".ball") || (ends_with(name, ".nh") && nh_model_file_is_body(name));
}

/* the parameters of a built-in or a ball file; *disk: the disk equations */
static int ball_params_for(const char *name, nh_ball_params *p, int *disk, nh_ball_file **file) {
  *disk = 0;
  *file = NULL;
  if (strcmp(name, "rolling-disk") == 0) *p = nh_ball_params_disk_example(), *disk = 1;
  else if (strcmp(name, "rolling-ball") == 0) *p = nh_ball_params_ball_example();
  else if (strcmp(name, "rolling-ball-detach") == 0) *p = nh_ball_params_detach_example();
  else {
    char msg[1024];
    *file = nh_ball_file_load(name, msg, sizeof msg);
    if (!*file) return cli_usage_error("%s", msg);
    *p = *nh_ball_file_params(*file);
    *disk = nh_ball_file_is_disk(*file);
  }
  return CLI_OK;
}

typedef struct ball_opts {
  const char *model, *method, *out, *events, *plot;
  double t_end, dt, rtol, atol, sample, mu;
  int json, dt_set, mu_set, on_detach, on_slip; /* -1: the model's default; on_detach 2: fly */
  int dae;                                      /* --form dae */
  cli_sets sets;
} ball_opts;

/* ---- one run, its outputs streamed ------------------------------------------------------------ */

#define BALL_NX_MAX (2 * NH_BALL_MAX_MASSES + 13) /* the largest state (the flight layout) */

/* one tracked sample: its CSV row's values */
typedef struct ball_sample {
  double t, x[BALL_NX_MAX]; /* x in the run's layout */
  nh_ball_eval ev;
  double run_max;           /* the running max of f_s/N up to it */
  int flight;
} ball_sample;

typedef struct ball_run {
  const nh_model *model;   /* the state layout: the flight model with --on-detach fly */
  int fly;                 /* states are stored in the flight layout */
  int failed;
  nh_ball_stats st;        /* over the rolling samples */
  long n;                  /* samples tracked */
  int detached;            /* a normal_force event was logged */
  // the CSV (--out): rows on the output grid, the first, the last and the events
  nh_outfile csv, evf;
  int has_csv, has_ev;
  double sample, next, run_max;
  ball_sample last;        /* the latest sample; last_written: its row is in the CSV */
  int last_written;
  long nev;                /* events written (--events) */
  // the plot (--plot): N, f_s and f_s/N of at most CLI_PLOT_SAMPLES samples, thinned evenly
  double *pt, *pN, *pfs, *pratio;
  long np, stride, seen;
} ball_run;

static void csv_row(FILE *fp, const ball_run *r, const ball_sample *b) {
  const nh_ball_eval *e = &b->ev;
  fprintf(fp, "%.17g", b->t);
  for (int i = 0; i < r->model->nx; i++) fprintf(fp, ",%.17g", b->x[i]);
  fprintf(fp, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", e->N, e->fvec[0],
          e->fvec[1], e->fs, e->N > 0 ? e->ratio : NAN, b->run_max, e->energy, e->power, e->z_cp[0], e->z_cp[1],
          e->cm_space[0], e->cm_space[1], e->cm_space[2]);
  fputs(!r->fly ? "\n" : b->flight ? ",flight\n" : ",rolling\n", fp);
}

/* is the sample a row of outputs sampled every `sample` s (the first at or after each
 * multiple; starts and events always, the last at the end: ball_run_finish) */
static int keep_sample(ball_run *r, nh_sample_kind kind, double t) {
  if (r->n == 0 || kind == NH_SAMPLE_EVENT || r->sample <= BALL_STATS_DT) return 1;
  if (t >= r->next - BALL_GRID_SLACK * r->sample) {
    r->next = (floor(t / r->sample + BALL_GRID_SLACK) + 1.0) * r->sample;
    return 1;
  }
  return 0;
}

/* the event just logged by sim (its latest record), as a row of the events CSV */
static void event_row(ball_run *r, const nh_sim *sim) {
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
static void plot_point(ball_run *r, const ball_sample *b) {
  if (!r->pt || r->seen++ % r->stride != 0) return;
  if (r->np == CLI_PLOT_SAMPLES) {
    for (long k = 0; 2 * k < r->np; k++)
      r->pt[k] = r->pt[2 * k], r->pN[k] = r->pN[2 * k], r->pfs[k] = r->pfs[2 * k], r->pratio[k] = r->pratio[2 * k];
    r->np = (r->np + 1) / 2, r->stride *= 2;
    if ((r->seen - 1) % r->stride != 0) return;
  }
  r->pt[r->np] = b->t, r->pN[r->np] = b->ev.N, r->pfs[r->np] = b->ev.fs;
  r->pratio[r->np++] = b->ev.N > 0 ? b->ev.ratio : NAN;
}

static int run_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *x,
                        const double *v, void *user) {
  (void)v;
  ball_run *r = user;
  const nh_model *sm = nh_sim_model(sim); /* the phase's model */
  const int flight = nh_ball_model_kind(sm) == NH_BALL_FLIGHT;
  if (kind == NH_SAMPLE_EVENT) event_row(r, sim);
  if (kind == NH_SAMPLE_END && r->n > 0 && r->last.t == t) return 0; /* already recorded */
  ball_sample *b = &r->last;
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

/* open the outputs before the run (headers written); NH_OK or the error in msg */
static int ball_run_open(ball_run *r, const char *out, const char *events, int plot, double sample, char *msg,
                         size_t size) {
  const nh_model *m = r->model;
  r->sample = sample, r->next = sample, r->stride = 1;
  if (plot) {
    r->pt = malloc(sizeof(double) * 4 * (size_t)CLI_PLOT_SAMPLES);
    if (!r->pt) return snprintf(msg, size, "out of memory for the plot's record"), NH_ERR_NOMEM;
    r->pN = r->pt + CLI_PLOT_SAMPLES, r->pfs = r->pN + CLI_PLOT_SAMPLES, r->pratio = r->pfs + CLI_PLOT_SAMPLES;
  }
  int st;
  if (out) {
    if ((st = nh_outfile_open(&r->csv, out, msg, size)) != NH_OK) return st;
    r->has_csv = 1;
    fputs("t", r->csv.fp);
    for (int i = 0; i < m->nx; i++) fprintf(r->csv.fp, ",%s", m->state_names[i]);
    fputs(",N,friction_x,friction_y,friction,friction_over_N,min_mu_so_far,energy,power,x_cp,y_cp,cm_x,cm_y,cm_z", r->csv.fp);
    fputs(r->fly ? ",phase\n" : "\n", r->csv.fp);
  }
  if (events) {
    if ((st = nh_outfile_open(&r->evf, events, msg, size)) != NH_OK) return st;
    r->has_ev = 1;
    fputs(r->fly ? "index,t,monitor,direction,stopped,value,phase" : "index,t,monitor,direction,stopped,value", r->evf.fp);
    for (int i = 0; i < m->nx; i++) fprintf(r->evf.fp, ",%s", m->state_names[i]);
    fputc('\n', r->evf.fp);
  }
  return NH_OK;
}

static void ball_run_free(ball_run *r) {
  if (r->has_csv) nh_outfile_abort(&r->csv);
  if (r->has_ev) nh_outfile_abort(&r->evf);
  free(r->pt);
  memset(r, 0, sizeof *r);
}

/* simulate to t_end, the outputs written as the run goes; with a flight model (Nullable) a
 * detachment switches to free flight (sim_out[1], else NULL); returns the status of the run */
static int ball_simulate(const nh_model *model, const nh_model *flight, const nh_method *method, const ball_opts *ro,
                         ball_run *r, nh_sim **sim_out, nh_ball_flight_info *info, char *msg, size_t size) {
  memset(r, 0, sizeof *r);
  r->model = flight ? flight : model;
  r->fly = flight != NULL;
  sim_out[0] = sim_out[1] = NULL;
  nh_ball_stats_init(&r->st);
  nh_sim_def def = nh_sim_def_default();
  def.method = method;
  def.h = ro->dt;
  def.rtol = ro->rtol;
  def.atol = ro->atol;
  def.out_dt = BALL_STATS_DT;
  def.log_limit = CLI_LOG_LIMIT;
  def.cancel = &cli_signal; /* a signal stops the run at its next step (cli/signals.c) */
  nh_sim *sim = nh_sim_create(model, &def, msg, size), *fsim = NULL;
  if (!sim) return NH_ERR_ARG;
  if (flight && !(fsim = nh_sim_create(flight, &def, msg, size))) {
    nh_sim_destroy(sim);
    return NH_ERR_ARG;
  }
  if (ball_run_open(r, ro->out, ro->events, ro->plot != NULL, ro->sample, msg, size) != NH_OK) {
    nh_sim_destroy(fsim), nh_sim_destroy(sim);
    return NH_ERR_ARG;
  }
  sim_out[0] = sim, sim_out[1] = fsim;
  int st = fsim ? nh_ball_run_flight(sim, fsim, ro->t_end, run_observer, r, info)
                : nh_ball_run(sim, ro->t_end, run_observer, r);
  if (r->failed) snprintf(msg, size, "evaluation failure while recording the run");
  return st;
}

/* the kind of a monitor event */
static const char *event_kind(const char *monitor) {
  return !strcmp(monitor, "normal_force") ? "detachment" : !strcmp(monitor, "touchdown") ? "touchdown" : "slip";
}

/* ---- the summary (nholo/io.h) -------------------------------------------------------------- */

typedef struct ball_summary {
  nh_sim *const *sims; /* rolling, flight (Nullable) */
  const ball_run *r;
  const nh_ball_flight_info *fi;
} ball_summary;

/* the regime statistics (after the counts) */
static void summary_counts(FILE *f, int json, const ball_summary *b) {
  const nh_ball_stats *st = &b->r->st;
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
  nh_json_field_bool(f, "detached", st->detached || b->r->detached);
}

/* --on-detach fly: the switch (before the status) */
static void summary_flight(FILE *f, int json, const ball_summary *b) {
  const nh_ball_flight_info *fi = b->fi;
  if (!b->sims[1]) return;
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
  fprintf(f, ", \"steps\": %ld}", fi->flew ? nh_sim_get_stats(b->sims[1])->steps : 0);
  fputs(", \"phases\": [{\"phase\": \"rolling\", \"t_start\": 0", f);
  nh_json_field_num(f, "t_end", nh_sim_time(b->sims[0]));
  if (fi->flew) {
    fputs("}, {\"phase\": \"flight\"", f);
    nh_json_field_num(f, "t_start", fi->t_detach);
    nh_json_field_num(f, "t_end", nh_sim_time(b->sims[1]));
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
  double xf[2 * NH_BALL_MAX_MASSES + 13], zacc;
  if (what[0] == 'd' && nh_ball_flight_state(m, ev->rec.t, ev->rec.x, xf, &zacc) == NH_OK)
    nh_json_field_num(f, "flight_z_acceleration", zacc);
  if (what[0] == 't') nh_json_field_num(f, "z_velocity", ev->rec.x[m->nx - 1]);
}

static int ball_extra(FILE *f, int json, nh_summary_place at, const nh_summary_event *ev, void *user) {
  const ball_summary *b = user;
  if (at == NH_SUMMARY_COUNTS) summary_counts(f, json, b);
  else if (at == NH_SUMMARY_RESULTS) summary_flight(f, json, b);
  else if (ev) summary_event(f, json, at, ev);
  return 0;
}

static void print_summary(nh_sim *const sims[2], const ball_run *r, const nh_ball_flight_info *fi, const char *method,
                          int status, double wall, int json) {
  static const char *const phase_names[2] = {"rolling", "flight"};
  const nh_sim *ran[2] = {sims[0], sims[1]};
  ball_summary b = {sims, r, fi};
  nh_summary s = {ran, sims[1] && fi->flew ? 2 : 1, phase_names, method, status, wall, NH_SUMMARY_EVENTS,
                  ball_extra, &b, NULL};
  if (json) nh_summary_write_json(stdout, &s);
  else nh_summary_write_text(stdout, &s);
}

/* N, f_s and f_s/N against time */
static int plot_run(const char *path, const ball_run *r, const char *title, char *msg, size_t size) {
  nh_plot_curve c[3] = {{r->np, r->pt, r->pN, NULL, 0}, {r->np, r->pt, r->pfs, NULL, 0}, {r->np, r->pt, r->pratio, NULL, 0}};
  nh_plot_panel p[3] = {{"normal force", "t", "N", 1, &c[0], 0, 0.0},
                        {"static friction", "t", "f#ds#u", 1, &c[1], 0, NAN},
                        {"friction / normal force", "t", "f#ds#u/N", 1, &c[2], 0, NAN}};
  return nh_plot_panels(path, 1, 3, 3, p, title, msg, size);
}

/* ---- `nholo run` for balls ---------------------------------------------------------------- */


static void ball_help(void) {
  printf("usage: nholo run rolling-disk|rolling-ball|rolling-ball-detach|FILE.nh|FILE.ball [options]\n\n"
         "A ball (or disk) rolling without slipping, driven by internal point masses (Putkaradze &\n"
         "Rogers). Reports the normal force N, the static friction and the minimum friction\n"
         "coefficient max f_s/N; detachment (N = 0) and slip (f_s = mu N) are located as events.\n\n"
         "options:\n"
         "  --t-end T             final time (default 20)\n"
         "  --method NAME         dopri5 (adaptive, default) or rk4 (fixed step; both renormalise\n"
         "                        the quaternion after every step), or rkmk4 (fixed step, a Lie-group\n"
         "                        method: the quaternion is updated by exponentials, |q| = 1 without\n"
         "                        projection; not for the disk or --form dae)\n"
         "  --form ode|dae        the paper's ODE form (6.4, default) or its DAE form (6.5, q0 solved\n"
         "                        from |q| = 1; it cannot pass q0 = 0, see docs/rolling-ball.md)\n"
         "  --dt H                rk4 step, first dopri5 trial step (default 1e-3)\n"
         "  --rtol R, --atol A    dopri5 tolerances (default 1e-12 both)\n"
         "  --sample DT           CSV output interval (default 0.01; 0: every %g, the grid on which\n"
         "                        N and f_s/N are tracked)\n"
         "  --mu MU               friction coefficient: report where f_s exceeds MU N (slip)\n"
         "  --on-detach stop|report|fly   at N = 0 (default stop); fly: continue in free flight\n"
         "                        (App. B) to t-end or touchdown (where the run stops; no lift-off\n"
         "                        when the free ball would be pressed into the floor)\n"
         "  --on-slip stop|report     at f_s = MU N (default report)\n"
         "  --set NAME=VALUE      override r, g, m0, m1.., theta1.., theta1_dot.., mu; repeatable\n"
         "  --out FILE            CSV: t, state, N, friction_x, friction_y, friction, friction_over_N,\n"
         "                        min_mu_so_far (running max of f_s/N), energy, power, contact point\n"
         "                        x_cp, y_cp, centre of mass cm_x, cm_y, cm_z\n"
         "  --events FILE         CSV of the detachment/slip events\n"
         "  --plot FILE           N, f_s and f_s/N against t (.png, .svg, .pdf)\n"
         "  --json                JSON summary: min_mu_static, t_min_mu_static, min_normal_force,\n"
         "                        events, ... (with --on-detach fly: flight, phases; the CSVs get a\n"
         "                        phase column and the flight's state layout)\n"
         "An option's value follows it or is joined to it by '=' (--dt=0.01).\n"
         "A body file FILE.nh (model NAME, body ball, ...; FILE.ball: the former format) describes your\n"
         "own ball: see docs/rolling-ball.md.\n",
         BALL_STATS_DT);
}

static int set_value(nh_ball_params *p, const char *name, double v) {
  int i;
  char tail[32];
  if (!strcmp(name, "r")) p->r = v;
  else if (!strcmp(name, "g")) p->g = v;
  else if (!strcmp(name, "m0")) p->m0 = v;
  else if (!strcmp(name, "mu")) p->mu = v;
  else if (sscanf(name, "m%d%31s", &i, tail) == 1 && i >= 1 && i <= p->n) p->m[i - 1] = v;
  else if (sscanf(name, "theta%d%31s", &i, tail) == 2 && i >= 1 && i <= p->n && !strcmp(tail, "_dot")) p->thetad0[i - 1] = v;
  else if (sscanf(name, "theta%d%31s", &i, tail) == 1 && i >= 1 && i <= p->n) p->theta0[i - 1] = v;
  else return 0;
  return 1;
}

static int parse_ball_opts(int argc, char **argv, ball_opts *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-') {
      if (o->model) return cli_usage_error("unexpected argument '%s' (model already given: '%s')", a, o->model);
      o->model = a;
      continue;
    }
    // --name value or --name=value
    char nbuf[64];
    const char *inl;
    a = cli_opt_name(a, nbuf, sizeof nbuf, &inl);
    if (!strcmp(a, "--json")) {
      if (!cli_opt_flag(a, inl)) return CLI_USAGE;
      o->json = 1;
      continue;
    }
    const char *v = inl;
    if (!v && i + 1 >= argc) return cli_usage_error("option %s needs a value (see 'nholo run --help')", a);
    if (!v) v = argv[++i];
    if (!strcmp(a, "--t-end") || !strcmp(a, "--dt") || !strcmp(a, "--rtol") || !strcmp(a, "--atol")) {
      double x;
      if (!cli_parse_double(a, v, &x)) return CLI_USAGE;
      if (!(x > 0.0)) return cli_usage_error("%s: %s must be positive", a, v);
      if (!strcmp(a, "--t-end")) o->t_end = x;
      else if (!strcmp(a, "--dt")) o->dt = x, o->dt_set = 1;
      else if (!strcmp(a, "--rtol")) o->rtol = x;
      else o->atol = x;
    } else if (!strcmp(a, "--sample") || !strcmp(a, "--mu")) {
      double x;
      if (!cli_parse_double(a, v, &x)) return CLI_USAGE;
      if (!(x >= 0.0)) return cli_usage_error("%s: %s must be >= 0", a, v);
      if (!strcmp(a, "--sample")) o->sample = x;
      else o->mu = x, o->mu_set = 1;
    } else if (!strcmp(a, "--form")) {
      if (strcmp(v, "ode") && strcmp(v, "dae")) return cli_usage_error("--form: expected ode or dae, got '%s'", v);
      o->dae = !strcmp(v, "dae");
    } else if (!strcmp(a, "--method")) {
      if (strcmp(v, "dopri5") && strcmp(v, "rk4") && strcmp(v, "rkmk4"))
        return cli_usage_error("--method: '%s' cannot run a ball (use dopri5, rk4 or rkmk4)", v);
      o->method = v;
    } else if (!strcmp(a, "--on-detach") && !strcmp(v, "fly")) {
      o->on_detach = 2;
    } else if (!strcmp(a, "--on-detach") || !strcmp(a, "--on-slip")) {
      if (strcmp(v, "stop") && strcmp(v, "report"))
        return cli_usage_error("%s: expected stop or report%s, got '%s'", a, !strcmp(a, "--on-detach") ? " or fly" : "", v);
      *(!strcmp(a, "--on-detach") ? &o->on_detach : &o->on_slip) = !strcmp(v, "stop");
    } else if (!strcmp(a, "--set")) {
      if (!cli_parse_set(a, v, &o->sets)) return CLI_USAGE;
    } else if (!strcmp(a, "--out")) o->out = v;
    else if (!strcmp(a, "--events")) o->events = v;
    else if (!strcmp(a, "--plot")) {
      const char *dot = strrchr(v, '.');
      if (!dot || (strcmp(dot, ".png") && strcmp(dot, ".svg") && strcmp(dot, ".pdf")))
        return cli_usage_error("--plot: '%s' must end in .png, .svg or .pdf", v);
      if (cli_need_component("plot", "--plot") != CLI_OK) return CLI_USAGE;
      o->plot = v;
    } else
      return cli_usage_error("unknown option '%s' for a ball (see 'nholo run rolling-ball --help')", a);
  }
  return CLI_OK;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cmd_run_ball(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      ball_help();
      return CLI_OK;
    }
  ball_opts o;
  memset(&o, 0, sizeof o);
  o.t_end = BALL_T_END, o.dt = 1e-3, o.rtol = BALL_TOL, o.atol = BALL_TOL, o.sample = 0.01;
  o.on_detach = -1, o.on_slip = -1;
  int rc = parse_ball_opts(argc, argv, &o);
  if (rc) return rc;
  cli_signals_install(); /* SIGINT, SIGTERM: the run stops at its next step, its outputs kept */
  nh_ball_params p;
  int disk;
  nh_ball_file *file = NULL;
  if ((rc = ball_params_for(o.model, &p, &disk, &file))) return rc;
  for (int k = 0; k < o.sets.n; k++)
    if (!set_value(&p, o.sets.names[k], o.sets.values[k])) {
      nh_ball_file_destroy(file);
      return cli_usage_error("--set: model '%s' has no parameter or initial value '%s'", o.model,
                             o.sets.names[k]);
    }
  if (o.mu_set) p.mu = o.mu;
  p.stop_on_detach = o.on_detach != 0; /* stop (default) and fly stop the rolling phase */
  if (o.on_slip >= 0) p.stop_on_slip = o.on_slip;
  char msg[1024];
  if (disk && o.dae) {
    nh_ball_file_destroy(file);
    return cli_usage_error("--form dae: the disk has no DAE form (it has no quaternion)");
  }
  if (disk && o.on_detach == 2) {
    nh_ball_file_destroy(file);
    return cli_usage_error("--on-detach fly: the disk has no free-flight model (use a ball)");
  }
  nh_model *model = disk ? nh_disk_create(&p, msg, sizeof msg)
                  : o.dae ? nh_ball_dae_create(&p, msg, sizeof msg) : nh_ball_create(&p, msg, sizeof msg);
  nh_model *flight = model && o.on_detach == 2 ? nh_ball_flight_create(&p, msg, sizeof msg) : NULL;
  if (!model || (o.on_detach == 2 && !flight)) {
    nh_model_destroy(model);
    nh_ball_file_destroy(file);
    return cli_usage_error("%s: %s", o.model, msg);
  }
  const char *paths[3] = {o.out, o.events, o.plot};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < i; j++)
      if (paths[i] && paths[j] && !strcmp(paths[i], paths[j])) {
        nh_model_destroy(flight), nh_model_destroy(model);
        nh_ball_file_destroy(file);
        return cli_usage_error("the same file '%s' is given for two outputs", paths[i]);
      }
  for (int i = 0; i < 3; i++)
    if (paths[i] && nh_check_writable(paths[i], msg, sizeof msg) != NH_OK) {
      nh_model_destroy(flight), nh_model_destroy(model);
      nh_ball_file_destroy(file);
      return cli_usage_error("%s", msg);
    }
  const double rows = o.t_end / fmax(o.sample, BALL_STATS_DT); /* the CSV's rows, at most */
  if (o.out && rows > NH_MAX_SAMPLES) {
    nh_model_destroy(flight), nh_model_destroy(model);
    nh_ball_file_destroy(file);
    return cli_usage_error("--out: --t-end %g sampled every %g s is %.3g rows, more than the %.0e allowed; use a "
                           "larger --sample (at least %g)", o.t_end, fmax(o.sample, BALL_STATS_DT), rows, NH_MAX_SAMPLES,
                           o.t_end / NH_MAX_SAMPLES);
  }
  const nh_method *method = nh_method_find(o.method ? o.method : "dopri5");
  ball_run r;
  nh_sim *sims[2] = {NULL, NULL};
  nh_ball_flight_info fi = {0, 0, 0, NAN, NAN, NAN, NAN};
  double t0 = now_seconds();
  int status = ball_simulate(model, flight, method, &o, &r, sims, &fi, msg, sizeof msg);
  double wall = now_seconds() - t0;
  nh_sim *sim = sims[0], *last = fi.flew ? sims[1] : sims[0];
  if (!sim) {
    ball_run_free(&r);
    nh_model_destroy(flight), nh_model_destroy(model);
    nh_ball_file_destroy(file);
    return cli_usage_error("%s", msg);
  }
  int exit_code = (status == NH_OK || status == NH_EVENT_STOP) && !r.failed ? CLI_OK : CLI_FAILED;
  if (r.has_csv && !r.last_written && r.n > 0) csv_row(r.csv.fp, &r, &r.last); /* the last sample, always */
  if (r.has_csv && (r.has_csv = 0, nh_outfile_commit(&r.csv, msg, sizeof msg)) != NH_OK)
    fprintf(stderr, "nholo: %s\n", msg), exit_code = CLI_FAILED;
  if (r.has_ev && (r.has_ev = 0, nh_outfile_commit(&r.evf, msg, sizeof msg)) != NH_OK)
    fprintf(stderr, "nholo: %s\n", msg), exit_code = CLI_FAILED;
  if (o.plot) {
    char title[200];
    snprintf(title, sizeof title, "%s: normal force and static friction", model->name);
    if (plot_run(o.plot, &r, title, msg, sizeof msg) != NH_OK) fprintf(stderr, "nholo: %s\n", msg), exit_code = CLI_FAILED;
  }
  if (status < 0) fprintf(stderr, "nholo: run ended with %s: %s\n", nh_status_name(status), nh_sim_message(last));
  if (cli_signal) {
    char what[256];
    if (status == NH_INTERRUPTED)
      snprintf(what, sizeof what, "at t = %.17g of %g: the outputs hold the run up to there", nh_sim_time(last), o.t_end);
    else
      snprintf(what, sizeof what, "after the run had ended: the outputs are complete");
    exit_code = cli_interrupted(what);
  }
  print_summary(sims, &r, &fi, nh_method_name(method), status, wall, o.json);
  ball_run_free(&r);
  nh_sim_destroy(sims[1]), nh_sim_destroy(sim);
  nh_model_destroy(flight), nh_model_destroy(model);
  nh_ball_file_destroy(file);
  return exit_code;
}
