/* run.c - nh_ensemble_run: the members in chunks, each chunk in parallel (POSIX threads,
 * nh_par_for), then its rows written and its statistics accumulated in member order; under MPI
 * each rank runs its own range of chunks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/msg.h"
#include "base/parfor.h"
#include "ensemble/ens_impl.h"
#include "nholo/io.h"

/* members a thread takes at once (consecutive rows, so threads rarely write the same cache line) */
#define ENS_GRAIN 16
/* doubles between two threads' initial states (a cache line apart at least) */
#define ENS_PAD 8
/* a dense-output sample is on the grid when t / sample_dt is this close to a whole number */
#define ENS_GRID_TOL 1e-9
/* most outputs followed over time */
#define ENS_MAX_STATS 64

int nh_ensemble_parallel(void) { return 1; }

void nh_ensemble_stats_free(nh_ensemble_stats *st) {
  if (!st) return;
  free(st->mean);
  free(st->t_n);
  free(st->t_mean);
  st->mean = st->var = st->min = st->max = NULL;
  st->t_n = NULL, st->t_mean = st->t_var = st->t_min = st->t_max = st->t_q = NULL;
}

/* a thread's sampling observer and impact rows */
typedef struct ens_thread {
  const struct ens_ctx *ctx; /* the run (the sampling observer's user pointer is the thread) */
  double *x0;       /* (nx) a member's initial state */
  double *samples;  /* the slot being run (nt x nx) */
  double *rows;     /* impact rows of this chunk's members run by this thread */
  long nrows, cap;
  int nomem;
  char pad[64];
} ens_thread;

typedef struct ens_ctx {
  const nh_ensemble_def *def;
  nh_sim_def sim;   /* the members' options (out_dt: the sample grid) */
  int nx, nq, nt, ncols, impacts; /* impacts: collect the impact logs */
  long total, chunk, nchunks, c_lo, c_hi;
  double *vals;     /* (chunk x nvar) */
  double *xs;       /* (chunk x nx) */
  double *samples;  /* (chunk x nt x nx) */
  int *status;
  long *nimp, *ioff, *icnt; /* impacts; the slot's logged rows: first in its thread's buffer, count */
  int *ith;         /* the slot's thread */
  unsigned char *ran; /* the slot's member started (else the cancellation flag came first) */
  double *t;
  ens_thread *th;   /* (threads) */
  nh_sim **sims;    /* (threads) on the shared model, NULL with build */
  int nth;
  long drifted;     /* members of this rank that ended with NH_DRIFT */
  long interrupted; /* members of this rank the cancellation flag stopped (NH_INTERRUPTED) */
  const volatile sig_atomic_t *cancel; /* the members' nh_sim_def.cancel (Nullable) */
} ens_ctx;

/* a member that completed: it reached its end with a valid state, NH_DRIFT (a warning about
 * the method, as for `nholo run`) among them; its final state goes into the statistics */
static int completed(int status) { return status == NH_OK || status == NH_EVENT_STOP || status == NH_DRIFT; }

static double value_of(const nh_ensemble_def *d, int j, long m) {
  return d->table ? d->table[m * d->nvar + j] : nh_ensemble_value(d->vars, d->nvar, j, d->replicas, d->seed, m);
}

/* the trajectory on the sample grid: a START/OUTPUT/END sample at (about) a multiple of dt */
static int sample_obs(const nh_sim *sim, nh_sample_kind kind, double t, const double *q, const double *v, void *user) {
  const ens_thread *th = user;
  const ens_ctx *c = th->ctx;
  (void)sim;
  if (kind != NH_SAMPLE_START && kind != NH_SAMPLE_OUTPUT && kind != NH_SAMPLE_END) return 0;
  const double f = t / c->sim.out_dt, k = nearbyint(f);
  if (k < 0.0 || k >= (double)c->nt || fabs(f - k) > ENS_GRID_TOL) return 0;
  double *x = th->samples + (size_t)k * (size_t)c->nx;
  if (!v) {
    memcpy(x, q, sizeof(double) * (size_t)c->nx);
  } else {
    memcpy(x, q, sizeof(double) * (size_t)c->nq);
    memcpy(x + c->nq, v, sizeof(double) * (size_t)c->nq);
  }
  return 0;
}

/* the member's impact log appended to its thread's rows */
static void log_impacts(ens_ctx *c, ens_thread *th, const nh_sim *sim, long i) {
  const long n = nh_sim_impact_count(sim), w = c->ncols;
  c->ioff[i] = th->nrows, c->icnt[i] = 0;
  if (th->nrows + n > th->cap) { /* between members, never inside a step */
    long cap = 2 * (th->nrows + n) + 64;
    double *r = realloc(th->rows, sizeof(double) * (size_t)(cap * w));
    if (!r) {
      th->nomem = 1;
      return;
    }
    th->rows = r, th->cap = cap;
  }
  for (long k = 0; k < n; k++) {
    nh_impact_record rec;
    if (nh_sim_impact_get(sim, k, &rec) != NH_OK) break;
    double *row = th->rows + (th->nrows + k) * w;
    const double fixed[ENS_IMPACT_FIXED] = {rec.t, rec.gap, rec.status, rec.alpha, rec.energy_before,
                                            rec.energy_after, rec.vn_before, rec.vn_after};
    memcpy(row, fixed, sizeof fixed);
    for (int j = 0; j < c->nq; j++)
      row[ENS_IMPACT_FIXED + j] = rec.q[j], row[ENS_IMPACT_FIXED + c->nq + j] = rec.v_before[j],
                       row[ENS_IMPACT_FIXED + 2 * c->nq + j] = rec.v_after[j];
    c->icnt[i]++;
  }
  th->nrows += c->icnt[i];
}

/* run member m into slot i of the chunk, on thread th */
static void run_member(ens_ctx *c, long m, long i, int th) {
  const nh_ensemble_def *d = c->def;
  ens_thread *t = &c->th[th];
  double *vals = c->vals + i * d->nvar, *x = t->x0, *xf = c->xs + i * c->nx;
  for (int j = 0; j < d->nvar; j++) vals[j] = value_of(d, j, m);
  if (c->nt > 0) {
    t->samples = c->samples + (size_t)i * (size_t)c->nt * (size_t)c->nx;
    for (size_t k = 0; k < (size_t)c->nt * (size_t)c->nx; k++) t->samples[k] = NAN;
  }
  nh_model *own = NULL;
  nh_sim *sim = c->sims[th];
  char msg[256];
  c->nimp[i] = 0, c->t[i] = 0.0, c->ioff[i] = t->nrows, c->icnt[i] = 0, c->ith[i] = th;
  c->ran[i] = !(c->cancel && *c->cancel); /* interrupted before it started: not run, not kept */
  if (!c->ran[i]) return;
  if (d->build) {
    int rc = d->build(vals, &own, msg, sizeof msg, d->build_user);
    sim = rc == 0 && own ? nh_sim_create(own, &c->sim, msg, sizeof msg) : NULL;
    if (!sim) {
      c->status[i] = rc < 0 ? rc : NH_ERR_ARG;
      memcpy(xf, d->model->x0, sizeof(double) * (size_t)c->nx);
      nh_model_destroy(own);
      return;
    }
  }
  const nh_model *model = nh_sim_model(sim);
  memcpy(x, model->x0, sizeof(double) * (size_t)c->nx);
  for (int j = 0; j < d->nvar; j++)
    if (d->vars[j].target == NH_VARY_STATE) x[d->vars[j].index] = vals[j];
  int st = nh_sim_set_state_x(sim, 0.0, x);
  if (st >= 0) st = nh_sim_run(sim, d->t_end, d->max_impacts, c->nt > 0 ? sample_obs : NULL, t);
  c->status[i] = st;
  c->nimp[i] = nh_sim_get_stats(sim)->impacts;
  c->t[i] = nh_sim_time(sim);
  memcpy(xf, nh_sim_x(sim), sizeof(double) * (size_t)c->nx);
  if (c->impacts) log_impacts(c, t, sim, i);
  if (d->build) {
    nh_sim_destroy(sim);
    nh_model_destroy(own);
  }
}

/* the CSV's header: member, the variables, status, impacts, t_end, final_ and the state's names */
static void write_header(FILE *f, const nh_ensemble_def *d) {
  fputs("member", f);
  for (int j = 0; j < d->nvar; j++) fprintf(f, ",%s", d->vars[j].name);
  fputs(",status,impacts,t_end", f);
  for (int i = 0; i < d->model->nx; i++) fprintf(f, ",final_%s", d->model->state_names[i]);
  fputc('\n', f);
}

/* the outputs of a run */
typedef struct ens_sinks {
  FILE *csv;
  ens_h5 *h5;
  FILE *irows, *icounts; /* impact rows and per-member counts of this rank, in member order */
} ens_sinks;

/* the rows of a chunk in member order, and the statistics of those that completed */
static int consume(ens_ctx *c, long m0, long n, ens_sinks *o, ens_acc *acc, long *members, char *msg,
                   size_t msg_size) {
  const nh_ensemble_def *d = c->def;
  for (long i = 0; i < n; i++) {
    const double *x = c->xs + i * c->nx;
    if (o->csv) {
      fprintf(o->csv, "%ld", m0 + i);
      for (int j = 0; j < d->nvar; j++) fprintf(o->csv, ",%.17g", c->vals[i * d->nvar + j]);
      fprintf(o->csv, ",%s,%ld,%.17g", nh_status_name(c->status[i]), c->nimp[i], c->t[i]);
      for (int k = 0; k < c->nx; k++) fprintf(o->csv, ",%.17g", x[k]);
      fputc('\n', o->csv);
    }
    if (o->irows) {
      const ens_thread *t = &c->th[c->ith[i]];
      if (c->icnt[i] > 0) /* a member without impacts may have no rows at all (rows NULL) */
        fwrite(t->rows + c->ioff[i] * c->ncols, sizeof(double) * (size_t)c->ncols, (size_t)c->icnt[i], o->irows);
      fwrite(&c->icnt[i], sizeof(long), 1, o->icounts);
    }
    (*members)++;
    c->drifted += c->status[i] == NH_DRIFT;
    c->interrupted += c->status[i] == NH_INTERRUPTED;
    if (completed(c->status[i]))
      ens_acc_add(acc, x, c->nt > 0 ? c->samples + (size_t)i * (size_t)c->nt * (size_t)c->nx : NULL);
  }
  for (int t = 0; t < c->nth; t++)
    if (c->th[t].nomem) return nh_set_msg(msg, msg_size, "ensemble: out of memory for the impact logs"), NH_ERR_NOMEM;
  if (o->irows && (ferror(o->irows) || ferror(o->icounts)))
    return nh_set_msg(msg, msg_size, "ensemble: the impact log's scratch file cannot be written"), NH_ERR_IO;
  if (!o->h5) return NH_OK;
  ens_chunk_rows r = {m0, n, c->vals, c->status, c->nimp, c->t, c->xs, c->samples};
  return ens_h5_chunk(o->h5, &r, msg, msg_size);
}

/* the threads asked for, else the default (OMP_NUM_THREADS, else the cores this process may use) */
static int threads_of(const nh_ensemble_def *d) { return d->threads > 0 ? d->threads : nh_par_default_threads(); }

static long members_of(const nh_ensemble_def *d) {
  if (d->table) return d->table_rows >= 1 && d->table_rows <= NH_ENSEMBLE_MAX_MEMBERS ? d->table_rows : -1;
  return nh_ensemble_count(d->vars, d->nvar, d->replicas);
}

/* samples on the grid: k = 0 .. floor(t_end / dt); 0 without; -1 beyond the bound */
static long samples_of(const nh_ensemble_def *d) {
  if (!(d->sample_dt > 0.0)) return 0;
  const double n = floor(d->t_end / d->sample_dt * (1.0 + ENS_GRID_TOL)) + 1.0;
  return n <= (double)NH_ENSEMBLE_MAX_SAMPLES ? (long)n : -1;
}

/* the followed outputs: components of x, histograms with lo < hi and a bin count */
static int check_stats(const nh_ensemble_def *d, char *msg, size_t msg_size) {
  if (d->nstat > 0 && (!d->stats || d->nstat > ENS_MAX_STATS || !(d->sample_dt > 0.0))) {
    nh_set_msg(msg, msg_size, "ensemble: %d outputs followed over time need a sample interval and at most %d",
               d->nstat, ENS_MAX_STATS);
    return NH_ERR_ARG;
  }
  for (int s = 0; s < d->nstat; s++) {
    const nh_ensemble_stat *sp = &d->stats[s];
    if (sp->index < 0 || sp->index >= d->model->nx ||
        (sp->lo < sp->hi && (sp->bins < 1 || sp->bins > NH_ENSEMBLE_MAX_BINS || !isfinite(sp->hi - sp->lo)))) {
      nh_set_msg(msg, msg_size, "ensemble: output %d: state index %d (0..%d), bins %d (1..%d)", s, sp->index,
                 d->model->nx - 1, sp->bins, NH_ENSEMBLE_MAX_BINS);
      return NH_ERR_ARG;
    }
  }
  return NH_OK;
}

/* every member's run: t_end finite and positive, the counts not negative, its steps and
 * samples within the bounds of one run (nh_sim_check_span; the method the members run, an
 * automatic one chosen as ctx_init chooses it) */
static int check_run(const nh_ensemble_def *d, char *msg, size_t msg_size) {
  if (!(d->t_end > 0.0)) return nh_set_msg(msg, msg_size, "ensemble: t_end = %g must be positive", d->t_end), NH_ERR_ARG;
  if (d->max_impacts < 0)
    return nh_set_msg(msg, msg_size, "ensemble: max_impacts = %ld must be >= 0 (0: no limit)", d->max_impacts), NH_ERR_ARG;
  if (d->threads < 0 || d->threads > NH_PAR_MAX_THREADS)
    return nh_set_msg(msg, msg_size, "ensemble: threads = %d must be in 0..%d (0: all cores)", d->threads,
                      NH_PAR_MAX_THREADS),
           NH_ERR_ARG;
  nh_sim_def sim = d->sim;
  if (sim.horizon == 0.0) sim.horizon = d->t_end;
  const nh_method *me = sim.method ? sim.method : nh_sim_choose_method(d->model, &sim, NULL, 0);
  char why[512];
  const int observed = samples_of(d) > 0 && sim.out_dt > 0.0; /* the grid's observer, at every out_dt */
  if (nh_sim_check_span(me, &sim, 0.0, d->t_end, observed, why, sizeof why) != NH_OK) {
    nh_set_msg(msg, msg_size, "ensemble: %s", why);
    return NH_ERR_ARG;
  }
  return NH_OK;
}

/* check the definition; NH_OK or NH_ERR_ARG with the message */
static int check_def(const nh_ensemble_def *d, char *msg, size_t msg_size) {
  int rc;
  if (!d || !d->model || d->nvar < 0 || (d->nvar > 0 && !d->vars)) {
    nh_set_msg(msg, msg_size, "ensemble: no model or variables");
    return NH_ERR_ARG;
  }
  if (members_of(d) < 1) {
    nh_set_msg(msg, msg_size, "ensemble: %ld replicas and the grids give no members or more than %ld",
               d->table ? d->table_rows : d->replicas, NH_ENSEMBLE_MAX_MEMBERS);
    return NH_ERR_ARG;
  }
  if (samples_of(d) < 0 || !(d->sample_dt >= 0.0)) {
    nh_set_msg(msg, msg_size, "ensemble: sample interval %g: more than %ld samples to t_end %g", d->sample_dt,
               NH_ENSEMBLE_MAX_SAMPLES, d->t_end);
    return NH_ERR_ARG;
  }
  if ((rc = check_run(d, msg, msg_size)) != NH_OK) return rc;
  if (d->chunk < 0 || d->chunk > NH_ENSEMBLE_MAX_MEMBERS) {
    nh_set_msg(msg, msg_size, "ensemble: chunk %ld outside 0..%ld", d->chunk, NH_ENSEMBLE_MAX_MEMBERS);
    return NH_ERR_ARG;
  }
  if (d->mpi && (rc = ens_mpi_check(msg, msg_size)) != NH_OK) return rc;
  for (int j = 0; j < d->nvar; j++) {
    const nh_ensemble_var *v = &d->vars[j];
    if (v->target == NH_VARY_PARAM && !d->build) {
      nh_set_msg(msg, msg_size, "ensemble: '%s' is a parameter and no build callback is given", v->name);
      return NH_ERR_ARG;
    }
    if (v->target == NH_VARY_STATE && (v->index < 0 || v->index >= d->model->nx)) {
      nh_set_msg(msg, msg_size, "ensemble: '%s' has state index %d outside 0..%d", v->name, v->index, d->model->nx - 1);
      return NH_ERR_ARG;
    }
  }
  return check_stats(d, msg, msg_size);
}

static void ctx_free(ens_ctx *c) {
  if (c->sims)
    for (int t = 0; t < c->nth; t++) nh_sim_destroy(c->sims[t]);
  if (c->th)
    for (int t = 0; t < c->nth; t++) free(c->th[t].x0), free(c->th[t].rows);
  free(c->sims), free(c->th);
  free(c->vals), free(c->xs), free(c->samples), free(c->status), free(c->nimp), free(c->t);
  free(c->ioff), free(c->icnt), free(c->ith), free(c->ran);
}

/* the layout (chunks, this rank's range) and the workspaces: the chunk's rows and one
 * simulation per thread (none with build) */
static int ctx_init(ens_ctx *c, const nh_ensemble_def *d, int impacts, char *msg, size_t msg_size) {
  memset(c, 0, sizeof *c);
  c->def = d, c->nth = threads_of(d);
  c->nx = d->model->nx, c->nq = d->model->form == NH_FORM_ODE ? 0 : d->model->nq;
  c->ncols = ENS_IMPACT_FIXED + 3 * c->nq, c->impacts = impacts;
  c->total = members_of(d), c->nt = (int)samples_of(d);
  c->sim = d->sim;
  c->cancel = d->sim.cancel;
  c->sim.out_dt = c->nt > 0 ? d->sample_dt : d->sim.out_dt;
  if (c->sim.horizon == 0.0) c->sim.horizon = d->t_end; /* the automatic method's horizon */
  const long per = (long)sizeof(double) * c->nt * c->nx;
  c->chunk = per > 0 ? (ENS_SAMPLE_BUDGET / per < ENS_CHUNK ? ENS_SAMPLE_BUDGET / per : ENS_CHUNK) : ENS_CHUNK;
  if (d->chunk > 0) c->chunk = d->chunk;
  if (c->chunk < 1) c->chunk = 1;
  c->nchunks = (c->total + c->chunk - 1) / c->chunk;
  int rank, size;
  ens_mpi_rank(&rank, &size);
  c->c_lo = c->nchunks * rank / size, c->c_hi = c->nchunks * (rank + 1) / size;
  const size_t n = (size_t)c->chunk;
  c->vals = malloc(sizeof(double) * n * (size_t)(d->nvar > 0 ? d->nvar : 1));
  c->xs = malloc(sizeof(double) * n * (size_t)c->nx);
  c->samples = c->nt > 0 ? malloc((size_t)per * n) : NULL;
  c->status = malloc(sizeof(int) * n), c->ith = malloc(sizeof(int) * n), c->ran = malloc(n);
  c->nimp = malloc(sizeof(long) * n), c->ioff = malloc(sizeof(long) * n), c->icnt = malloc(sizeof(long) * n);
  c->t = malloc(sizeof(double) * n);
  c->th = calloc((size_t)c->nth, sizeof(ens_thread));
  c->sims = calloc((size_t)c->nth, sizeof(nh_sim *));
  int ok = c->vals && c->xs && (c->nt == 0 || c->samples) && c->status && c->ith && c->ran && c->nimp && c->ioff && c->icnt &&
           c->t && c->th && c->sims;
  for (int t = 0; ok && t < c->nth; t++)
    c->th[t].ctx = c, ok = (c->th[t].x0 = malloc(sizeof(double) * (size_t)(c->nx + ENS_PAD))) != NULL;
  if (!ok) {
    nh_set_msg(msg, msg_size, "ensemble: out of memory");
    return NH_ERR_NOMEM;
  }
  for (int t = 0; t < c->nth && !d->build; t++)
    if (!(c->sims[t] = nh_sim_create(d->model, &c->sim, msg, msg_size))) return NH_ERR_ARG;
  return NH_OK;
}

static int stats_init(nh_ensemble_stats *st, int nx, int nth, char *msg, size_t msg_size) {
  memset(st, 0, sizeof *st);
  st->nx = nx;
  st->threads = nth;
  st->ranks = 1;
  st->mean = calloc((size_t)(4 * nx), sizeof(double));
  if (!st->mean) {
    nh_set_msg(msg, msg_size, "ensemble: out of memory");
    return NH_ERR_NOMEM;
  }
  st->var = st->mean + nx, st->min = st->var + nx, st->max = st->min + nx;
  return NH_OK;
}

/* open the outputs: a CSV (one process only) or an HDF5 file and its impact scratch files */
static int sinks_open(ens_sinks *o, nh_outfile *csv, const ens_ctx *c, const nh_ensemble_out *out, char *msg,
                      size_t msg_size) {
  memset(o, 0, sizeof *o);
  if (!out || !out->path) return NH_OK;
  const nh_ensemble_def *d = c->def;
  int rank, size;
  ens_mpi_rank(&rank, &size);
  if (out->format == NH_ENSEMBLE_CSV) {
    if (d->mpi && size > 1) {
      nh_set_msg(msg, msg_size, "ensemble: a CSV is written by one process; under MPI write an HDF5 file");
      return NH_ERR_ARG;
    }
    int rc = nh_outfile_open(csv, out->path, msg, msg_size);
    if (rc != NH_OK) return rc;
    o->csv = csv->fp;
    write_header(o->csv, d);
    return NH_OK;
  }
  if (out->trajectories && c->nt == 0) {
    nh_set_msg(msg, msg_size, "ensemble: trajectories need a sample interval");
    return NH_ERR_ARG;
  }
  if (c->impacts) o->irows = tmpfile(), o->icounts = tmpfile();
  int ok = ens_mpi_all(!c->impacts || (o->irows && o->icounts));
  if (!ok) {
    nh_set_msg(msg, msg_size, "ensemble: cannot create the impact log's scratch files");
  } else if (!(o->h5 = ens_h5_open(d, out, c->total, c->chunk, c->nt, c->ncols, msg, msg_size))) {
    ok = 0;
  }
  if (!ok) {
    if (o->irows) fclose(o->irows);
    if (o->icounts) fclose(o->icounts);
    o->irows = o->icounts = NULL;
    return NH_ERR_IO;
  }
  return NH_OK;
}

/* finish the outputs (ok) or remove them; the statistics go into the HDF5 file. An
 * interrupted ensemble of one process (done >= 0: the members run, the first ones) keeps
 * them: its HDF5 file is cut to them. */
static int sinks_close(ens_sinks *o, nh_outfile *csv, const ens_ctx *c, const nh_ensemble_stats *st, int ok, long done,
                       char *msg, size_t msg_size) {
  int rc = ok ? NH_OK : NH_ERR_IO;
  if (o->csv) {
    if (ok) rc = nh_outfile_commit(csv, msg, msg_size);
    else nh_outfile_abort(csv);
  }
  if (o->h5) {
    const long m_lo = c->c_lo * c->chunk;
    long m_hi = c->c_hi * c->chunk < c->total ? c->c_hi * c->chunk : c->total;
    if (ok && done >= 0) rc = ens_h5_truncate(o->h5, done, msg, msg_size), m_hi = done;
    if (ok && o->irows && rc == NH_OK) rc = ens_h5_impacts(o->h5, o->irows, o->icounts, m_lo, m_hi, msg, msg_size);
    if (ok && ens_mpi_all(rc == NH_OK)) rc = ens_h5_stats(o->h5, st, msg, msg_size);
    const int all = ok && ens_mpi_all(rc == NH_OK);
    const int rc2 = ens_h5_close(o->h5, all, msg, msg_size);
    if (rc == NH_OK) rc = all ? rc2 : NH_ERR_IO;
    if (rc != NH_OK && msg && msg_size && !msg[0]) nh_set_msg(msg, msg_size, "ensemble: writing failed on another rank");
  }
  if (o->irows) fclose(o->irows);
  if (o->icounts) fclose(o->icounts);
  return rc;
}

/* one chunk's parallel loop: member m0 + i into slot i on a thread */
typedef struct ens_chunk {
  ens_ctx *c;
  long m0;
} ens_chunk;

static int member_body(long i, int thread, void *user) {
  const ens_chunk *k = user;
  run_member(k->c, k->m0 + i, i, thread);
  return 0; /* every member visited: one the cancellation flag came before is marked not run */
}

/* the chunks of this rank: the members in parallel, then rows and statistics in member order */
static int run_chunks(ens_ctx *c, ens_sinks *o, ens_acc *acc, long *members, char *msg, size_t msg_size) {
  const nh_ensemble_def *d = c->def;
  int rc = NH_OK;
  const long first = c->c_lo * c->chunk, last = c->c_hi * c->chunk < c->total ? c->c_hi * c->chunk : c->total;
  for (long ch = c->c_lo; ch < c->c_hi && rc == NH_OK; ch++) {
    const long m0 = ch * c->chunk, n = c->total - m0 < c->chunk ? c->total - m0 : c->chunk;
    for (int t = 0; t < c->nth; t++) c->th[t].nrows = 0;
    ens_chunk job = {c, m0};
    nh_par_for(n, c->nth, ENS_GRAIN, member_body, &job);
    // interrupted: the members up to the first that did not start (the threads take the members
    // in increasing order), those stopped with NH_INTERRUPTED among them
    long keep = 0;
    while (keep < n && c->ran[keep]) keep++;
    ens_acc_leaf_reset(acc);
    rc = consume(c, m0, keep, o, acc, members, msg, msg_size);
    if (rc == NH_OK) rc = ens_acc_push(acc, 0, ch, acc->leaf);
    if (rc == NH_ERR_NOMEM && !msg[0]) nh_set_msg(msg, msg_size, "ensemble: out of memory");
    if (d->progress) d->progress(m0 + n - first, last - first, d->progress_user);
    if (rc == NH_OK && (keep < n || (c->cancel && *c->cancel))) rc = NH_INTERRUPTED; /* the rows so far kept */
  }
  return rc;
}

int nh_ensemble_run_to(const nh_ensemble_def *d, const nh_ensemble_out *out, nh_ensemble_stats *stats, char *msg,
                       size_t msg_size) {
  if (msg && msg_size) msg[0] = '\0';
  int rc = check_def(d, msg, msg_size);
  if (rc == NH_OK) rc = ens_h5_check(out, msg, msg_size); /* the hdf5 component for a file */
  if (rc != NH_OK) return rc;
  ens_mpi_use(d->mpi);
  ens_ctx c;
  ens_acc acc;
  ens_sinks o;
  nh_outfile csv = {0};
  nh_ensemble_stats local, *st = stats ? stats : &local;
  const int h5 = out && out->path && out->format == NH_ENSEMBLE_HDF5;
  memset(&acc, 0, sizeof acc);
  rc = ctx_init(&c, d, h5 && !out->no_impact_log, msg, msg_size);
  if (rc == NH_OK) rc = stats_init(st, c.nx, c.nth, msg, msg_size);
  if (rc == NH_OK && ens_acc_init(&acc, c.nx, c.nt, d->nstat, d->stats) != NH_OK)
    rc = NH_ERR_NOMEM, nh_set_msg(msg, msg_size, "ensemble: out of memory");
  if (d->mpi && !ens_mpi_all(rc == NH_OK)) {
    if (rc == NH_OK) rc = NH_ERR_NOMEM, nh_set_msg(msg, msg_size, "ensemble: out of memory on another rank");
  }
  if (rc == NH_OK) rc = sinks_open(&o, &csv, &c, out, msg, msg_size);
  if (rc != NH_OK) {
    ctx_free(&c), ens_acc_free(&acc);
    ens_mpi_use(0);
    nh_ensemble_stats_free(st);
    if (stats) memset(stats, 0, sizeof *stats);
    return rc;
  }
  long members = 0;
  rc = run_chunks(&c, &o, &acc, &members, msg, msg_size);
  // interrupted (the cancellation flag): the members run so far are kept as a whole ensemble's
  // would be; under MPI (more than one rank: each stopped inside its own range) nothing is
  int intr = rc == NH_INTERRUPTED, rank, size;
  ens_mpi_rank(&rank, &size);
  if (intr) rc = NH_OK;
  if (d->mpi) intr = !ens_mpi_all(!intr);
  if (intr && d->mpi && size > 1) rc = NH_INTERRUPTED;
  int ok = d->mpi ? ens_mpi_all(rc == NH_OK) : rc == NH_OK;
  if (ok && d->mpi) ok = ens_mpi_gather(&acc, msg, msg_size) == NH_OK;
  if (ok) {
    if (rank == 0 || !d->mpi) ok = ens_acc_finish(&acc, st) == NH_OK;
    if (d->mpi) ok = ens_mpi_all(ok) && ens_mpi_bcast_stats(st) == NH_OK;
    long counts[3] = {members, c.drifted, c.interrupted};
    if (d->mpi) ens_mpi_sum_long(counts, 3), st->ranks = size;
    st->members = counts[0], st->drifted = counts[1], st->interrupted = counts[2], st->failed = counts[0] - st->ok;
    if (!ok && !msg[0]) nh_set_msg(msg, msg_size, "ensemble: out of memory for the statistics");
  }
  const int rc2 = sinks_close(&o, &csv, &c, st, ok, intr ? members : -1, msg, msg_size);
  const long total = c.total;
  ctx_free(&c), ens_acc_free(&acc);
  ens_mpi_use(0);
  if (!ok || rc2 != NH_OK) {
    nh_ensemble_stats_free(st);
    if (stats) memset(stats, 0, sizeof *stats);
    if (rc == NH_INTERRUPTED)
      nh_set_msg(msg, msg_size, "ensemble: interrupted; under MPI (%d ranks) an interrupted ensemble writes nothing", size);
    return rc != NH_OK ? rc : rc2 != NH_OK ? rc2 : NH_ERR_NOMEM;
  }
  if (intr)
    nh_set_msg(msg, msg_size, "ensemble: interrupted after %ld of %ld members (%ld of them stopped where they were)",
               st->members, total, st->interrupted);
  if (!stats) nh_ensemble_stats_free(st);
  return intr ? NH_INTERRUPTED : NH_OK;
}

int nh_ensemble_run(const nh_ensemble_def *def, const char *csv_path, nh_ensemble_stats *stats, char *msg,
                    size_t msg_size) {
  nh_ensemble_out out = {csv_path, NH_ENSEMBLE_CSV, 0, NULL, NULL, 0};
  return nh_ensemble_run_to(def, &out, stats, msg, msg_size);
}
