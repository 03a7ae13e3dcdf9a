/* run.c - nh_ensemble_run: the members in chunks, each chunk in parallel (OpenMP when built
 * with it), then its rows written and its statistics accumulated in member order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/msg.h"
#include "nholo/ensemble.h"
#include "nholo/io.h"

/* members per chunk: the rows held between the parallel runs and the ordered writing; members
 * a thread takes at once (consecutive rows, so threads rarely write the same cache line) */
#define ENS_CHUNK 4096L
#define ENS_GRAIN 16
/* doubles between two threads' initial states (a cache line apart at least) */
#define ENS_PAD 8

int nh_ensemble_parallel(void) {
#ifdef _OPENMP
  return 1;
#else
  return 0;
#endif
}

void nh_ensemble_stats_free(nh_ensemble_stats *st) {
  if (!st) return;
  free(st->mean);
  st->mean = st->var = st->min = st->max = NULL;
}

/* one member's row: values (nvar), status, impacts, t, x (nx) */
typedef struct ens_row {
  int status;
  long impacts;
  double t;
} ens_row;

typedef struct ens_ctx {
  const nh_ensemble_def *def;
  int nx;
  long total;
  double *vals; /* (ENS_CHUNK x nvar) */
  double *xs;   /* (ENS_CHUNK x nx) */
  ens_row *rows;
  double *x0;   /* (threads x nx) a member's initial state */
  nh_sim **sims; /* (threads) on the shared model, NULL with build */
} ens_ctx;

/* run member m into slot i of the chunk, on thread th */
static void run_member(ens_ctx *c, long m, long i, int th) {
  const nh_ensemble_def *d = c->def;
  double *vals = c->vals + i * d->nvar, *x = c->x0 + (long)th * (c->nx + ENS_PAD), *xf = c->xs + i * c->nx;
  ens_row *row = &c->rows[i];
  for (int j = 0; j < d->nvar; j++) vals[j] = nh_ensemble_value(d->vars, d->nvar, j, d->replicas, d->seed, m);
  nh_model *own = NULL;
  nh_sim *sim = c->sims[th];
  char msg[256];
  row->impacts = 0, row->t = 0.0;
  if (d->build) {
    int rc = d->build(vals, &own, msg, sizeof msg, d->build_user);
    sim = rc == 0 && own ? nh_sim_create(own, &d->sim, msg, sizeof msg) : NULL;
    if (!sim) {
      row->status = rc < 0 ? rc : NH_ERR_ARG;
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
  if (st >= 0) st = nh_sim_run(sim, d->t_end, d->max_impacts, NULL, NULL);
  row->status = st;
  row->impacts = nh_sim_get_stats(sim)->impacts;
  row->t = nh_sim_time(sim);
  memcpy(xf, nh_sim_x(sim), sizeof(double) * (size_t)c->nx);
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

/* the rows of a chunk in member order, and the statistics (Welford) of those that ended well */
static void consume(ens_ctx *c, long m0, long n, FILE *f, nh_ensemble_stats *st) {
  const nh_ensemble_def *d = c->def;
  for (long i = 0; i < n; i++) {
    const ens_row *r = &c->rows[i];
    const double *x = c->xs + i * c->nx;
    if (f) {
      fprintf(f, "%ld", m0 + i);
      for (int j = 0; j < d->nvar; j++) fprintf(f, ",%.17g", c->vals[i * d->nvar + j]);
      fprintf(f, ",%s,%ld,%.17g", nh_status_name(r->status), r->impacts, r->t);
      for (int k = 0; k < c->nx; k++) fprintf(f, ",%.17g", x[k]);
      fputc('\n', f);
    }
    st->members++;
    if (r->status != NH_OK && r->status != NH_EVENT_STOP) {
      st->failed++;
      continue;
    }
    const double n1 = (double)++st->ok;
    for (int k = 0; k < c->nx; k++) {
      const double delta = x[k] - st->mean[k];
      st->mean[k] += delta / n1;
      st->var[k] += delta * (x[k] - st->mean[k]); /* M2 until the end */
      if (n1 == 1.0 || x[k] < st->min[k]) st->min[k] = x[k];
      if (n1 == 1.0 || x[k] > st->max[k]) st->max[k] = x[k];
    }
  }
}

static int threads_of(const nh_ensemble_def *d) {
#ifdef _OPENMP
  int n = d->threads > 0 ? d->threads : omp_get_max_threads();
  return n > 0 ? n : 1;
#else
  (void)d;
  return 1;
#endif
}

/* check the definition; NH_OK or NH_ERR_ARG with the message */
static int check_def(const nh_ensemble_def *d, char *msg, size_t msg_size) {
  if (!d || !d->model || d->nvar < 0 || (d->nvar > 0 && !d->vars)) {
    nh_set_msg(msg, msg_size, "ensemble: no model or variables");
    return NH_ERR_ARG;
  }
  if (nh_ensemble_count(d->vars, d->nvar, d->replicas) < 1) {
    nh_set_msg(msg, msg_size, "ensemble: %ld replicas and the grids give no members or more than %ld",
               d->replicas, NH_ENSEMBLE_MAX_MEMBERS);
    return NH_ERR_ARG;
  }
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
  return NH_OK;
}

static void ctx_free(ens_ctx *c, int nth) {
  if (c->sims)
    for (int t = 0; t < nth; t++) nh_sim_destroy(c->sims[t]);
  free(c->sims);
  free(c->vals);
  free(c->xs);
  free(c->rows);
  free(c->x0);
}

/* the workspaces: the chunk's rows and one simulation per thread (none with build) */
static int ctx_init(ens_ctx *c, const nh_ensemble_def *d, int nth, char *msg, size_t msg_size) {
  memset(c, 0, sizeof *c);
  c->def = d;
  c->nx = d->model->nx;
  c->total = nh_ensemble_count(d->vars, d->nvar, d->replicas);
  c->vals = malloc(sizeof(double) * (size_t)(ENS_CHUNK * (d->nvar > 0 ? d->nvar : 1)));
  c->xs = malloc(sizeof(double) * (size_t)(ENS_CHUNK * c->nx));
  c->rows = malloc(sizeof(ens_row) * (size_t)ENS_CHUNK);
  c->x0 = malloc(sizeof(double) * (size_t)(nth * (c->nx + ENS_PAD)));
  c->sims = calloc((size_t)nth, sizeof(nh_sim *));
  if (!c->vals || !c->xs || !c->rows || !c->x0 || !c->sims) {
    nh_set_msg(msg, msg_size, "ensemble: out of memory");
    return NH_ERR_NOMEM;
  }
  for (int t = 0; t < nth && !d->build; t++)
    if (!(c->sims[t] = nh_sim_create(d->model, &d->sim, msg, msg_size))) return NH_ERR_ARG;
  return NH_OK;
}

static int stats_init(nh_ensemble_stats *st, int nx, int nth, char *msg, size_t msg_size) {
  memset(st, 0, sizeof *st);
  st->nx = nx;
  st->threads = nth;
  st->mean = calloc((size_t)(4 * nx), sizeof(double));
  if (!st->mean) {
    nh_set_msg(msg, msg_size, "ensemble: out of memory");
    return NH_ERR_NOMEM;
  }
  st->var = st->mean + nx, st->min = st->var + nx, st->max = st->min + nx;
  return NH_OK;
}

int nh_ensemble_run(const nh_ensemble_def *d, const char *csv_path, nh_ensemble_stats *stats, char *msg,
                    size_t msg_size) {
  int rc = check_def(d, msg, msg_size);
  if (rc != NH_OK) return rc;
  const int nth = threads_of(d);
  ens_ctx c;
  nh_ensemble_stats local;
  nh_ensemble_stats *st = stats ? stats : &local;
  if ((rc = ctx_init(&c, d, nth, msg, msg_size)) != NH_OK || (rc = stats_init(st, c.nx, nth, msg, msg_size)) != NH_OK) {
    ctx_free(&c, nth);
    if (stats) memset(stats, 0, sizeof *stats);
    return rc;
  }
  nh_outfile out = {0};
  if (csv_path && (rc = nh_outfile_open(&out, csv_path, msg, msg_size)) != NH_OK) {
    ctx_free(&c, nth);
    nh_ensemble_stats_free(st);
    return rc;
  }
  if (csv_path) write_header(out.fp, d);

  // chunks: the members in parallel, then rows and statistics in member order
  for (long m0 = 0; m0 < c.total; m0 += ENS_CHUNK) {
    const long n = c.total - m0 < ENS_CHUNK ? c.total - m0 : ENS_CHUNK;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nth) schedule(dynamic, ENS_GRAIN)
#endif
    for (long i = 0; i < n; i++) {
#ifdef _OPENMP
      const int th = omp_get_thread_num();
#else
      const int th = 0;
#endif
      run_member(&c, m0 + i, i, th);
    }
    consume(&c, m0, n, csv_path ? out.fp : NULL, st);
    if (d->progress) d->progress(m0 + n, c.total, d->progress_user);
  }
  for (int k = 0; k < c.nx; k++) st->var[k] = st->ok > 1 ? st->var[k] / (double)(st->ok - 1) : 0.0;
  ctx_free(&c, nth);
  if (csv_path && (rc = nh_outfile_commit(&out, msg, msg_size)) != NH_OK) {
    nh_ensemble_stats_free(st);
    return rc;
  }
  if (!stats) nh_ensemble_stats_free(st);
  return NH_OK;
}
