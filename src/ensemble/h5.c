/* h5.c - the ensemble's HDF5 file (layout in docs/ensembles.md): datasets created by every
 * rank alike (collectively under MPI, through parallel HDF5), each rank writing the rows of its
 * own members; a temporary beside the path renamed into place at the end. Part of the hdf5
 * component (nholo-hdf5.so, ens_module.h), built only with HDF5 (parallel HDF5 with
 * NHOLO_HAVE_MPI); without the component the core refuses the output (h5_entry.c). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/msg.h"
#include "ensemble/ens_module.h"

#include <hdf5.h>
#ifdef NHOLO_HAVE_MPI
#include <mpi.h>
#endif

/* impact rows moved from the scratch file to the table at once */
#define ENS_H5_BLOCK 4096
/* largest storage chunk of a member dataset: a run's chunk of members is written as whole
 * storage chunks (a divisor of it under this size), and the last one, partly used, wastes
 * less than this */
#define ENS_H5_CHUNK_BYTES (1L << 20)

struct ens_h5 {
  hid_t file;
  int rank, size, nvar, nx, nt, ncols;
  long total, chunk; /* members; members per run chunk */
  const nh_ensemble_def *def;
  const nh_model *model;
  hid_t d_vals, d_status, d_impacts, d_t, d_final, d_traj;
  char path[1024], tmp[1100];
};

/* ---- small helpers -------------------------------------------------------------------- */

/* a dataset every element of which will be written: no fill values written first */
static hid_t mk(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims) {
  hid_t sp = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (dcpl >= 0) H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  hid_t ds = sp < 0 || dcpl < 0 ? -1 : H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (sp >= 0) H5Sclose(sp);
  if (dcpl >= 0) H5Pclose(dcpl);
  return ds;
}

/* a dataset indexed by member (its first dimension): stored in chunks whose rows divide the
 * run's chunk of members (and are at most the members), extendible, so that an interrupted
 * ensemble's file can be cut to the members run (nhm_ens_h5_truncate); no fill values written
 * first either */
static hid_t mk_rows(const ens_h5 *h, hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims) {
  hsize_t maxd[3], chunk[3], row = (hsize_t)H5Tget_size(type);
  for (int i = 1; i < rank; i++) {
    maxd[i] = dims[i] > 0 ? dims[i] : H5S_UNLIMITED; /* (a chunk is never empty) */
    chunk[i] = dims[i] > 0 ? dims[i] : 1;
    row *= chunk[i];
  }
  maxd[0] = H5S_UNLIMITED;
  long k = 1; /* the run's chunk in k storage chunks */
  while (k < h->chunk && (h->chunk % k != 0 || (hsize_t)(h->chunk / k) * row > (hsize_t)ENS_H5_CHUNK_BYTES)) k++;
  chunk[0] = (hsize_t)(h->chunk / k < h->total ? h->chunk / k : h->total > 0 ? h->total : 1);
  hid_t sp = H5Screate_simple(rank, dims, maxd), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  int rc = dcpl < 0 || H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0 || H5Pset_chunk(dcpl, rank, chunk) < 0;
  hid_t ds = sp < 0 || rc ? -1 : H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (sp >= 0) H5Sclose(sp);
  if (dcpl >= 0) H5Pclose(dcpl);
  return ds;
}

/* write buf into rows [start, start + count) (the other dimensions whole); 0 on success */
static int put(hid_t ds, hid_t mtype, hsize_t start, hsize_t count, const void *buf) {
  if (count == 0) return 0;
  hid_t fs = H5Dget_space(ds);
  hsize_t dims[3], off[3] = {start, 0, 0};
  int rank = H5Sget_simple_extent_dims(fs, dims, NULL);
  dims[0] = count;
  int rc = H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, dims, NULL) < 0;
  hid_t ms = H5Screate_simple(rank, dims, NULL);
  rc = rc || ms < 0 || H5Dwrite(ds, mtype, ms, fs, H5P_DEFAULT, buf) < 0;
  if (ms >= 0) H5Sclose(ms);
  H5Sclose(fs);
  return rc;
}

static int attr_str(hid_t obj, const char *name, const char *value) {
  hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
  H5Tset_size(t, strlen(value) > 0 ? strlen(value) : 1);
  hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
  int rc = a < 0 || H5Awrite(a, t, value) < 0;
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp), H5Tclose(t);
  return rc;
}

static int attr_num(hid_t obj, const char *name, hid_t ftype, hid_t mtype, hsize_t n, const void *v) {
  hid_t sp = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
  hid_t a = H5Acreate2(obj, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
  int rc = a < 0 || H5Awrite(a, mtype, v) < 0;
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp);
  return rc;
}
static int attr_d(hid_t obj, const char *name, double v) { return attr_num(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &v); }
static int attr_l(hid_t obj, const char *name, long v) { return attr_num(obj, name, H5T_STD_I64LE, H5T_NATIVE_LONG, 0, &v); }

/* names joined by commas into buf (the "columns" attributes) */
static const char *join(char *buf, size_t size, int n, const char *(*name)(const void *, int), const void *ctx) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < n && len + 1 < size; i++) len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "", name(ctx, i));
  return buf;
}
static const char *var_name(const void *d, int i) { return ((const nh_ensemble_def *)d)->vars[i].name; }
static const char *state_name(const void *d, int i) { return ((const nh_ensemble_def *)d)->model->state_names[i]; }
static const char *stat_name(const void *d, int i) {
  const nh_ensemble_def *e = d;
  return e->model->state_names[e->stats[i].index];
}

/* the impact table's column names */
static void impact_columns(char *buf, size_t size, const nh_model *m) {
  static const char *const fixed[ENS_IMPACT_FIXED] = {"t", "gap", "status", "alpha", "energy_before",
                                                      "energy_after", "vn_before", "vn_after"};
  static const char *const suffix[3] = {"", "_dot_before", "_dot_after"};
  size_t len = 0;
  for (int i = 0; i < ENS_IMPACT_FIXED; i++) len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "", fixed[i]);
  for (int s = 0; s < 3; s++)
    for (int i = 0; i < m->nq && len + 1 < size; i++)
      len += (size_t)snprintf(buf + len, size - len, ",%s%s", m->coord_names[i], suffix[s]);
}

/* ---- open: the file, its attributes and the members' datasets ------------------------------ */

static hid_t create_file(ens_h5 *h) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
#ifdef NHOLO_HAVE_MPI
  if (h->size > 1) H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
#endif
  hid_t f = H5Fcreate(h->tmp, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  return f;
}

static int root_attrs(ens_h5 *h, const nh_ensemble_def *d, const nh_ensemble_out *out) {
  char buf[1024];
  int rc = attr_str(h->file, "format", "nholo-ensemble 1");
  rc |= attr_str(h->file, "model", out->model_name ? out->model_name : "");
  rc |= attr_str(h->file, "method", out->method_name ? out->method_name : "");
  rc |= attr_l(h->file, "members", h->total) | attr_l(h->file, "seed", (long)d->seed);
  rc |= attr_d(h->file, "t_end", d->t_end) | attr_l(h->file, "max_impacts", d->max_impacts);
  rc |= attr_d(h->file, "sample_dt", d->sample_dt) | attr_l(h->file, "impact_log", !out->no_impact_log);
  rc |= attr_l(h->file, "interrupted", 0); /* 1: cut to the members run (nhm_ens_h5_truncate) */
  rc |= attr_str(h->file, "variables", join(buf, sizeof buf, d->nvar, var_name, d));
  rc |= attr_str(h->file, "state", join(buf, sizeof buf, d->model->nx, state_name, d));
  size_t len = 0; /* the status codes' names */
  for (int c = NH_ERR_PARSE; c <= NH_INTERRUPTED && len + 1 < sizeof buf; c++)
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%d=%s", c > NH_ERR_PARSE ? "," : "", c, nh_status_name(c));
  rc |= attr_str(h->file, "status_codes", buf);
  return rc;
}

static int members_datasets(ens_h5 *h, const nh_ensemble_def *d, int trajectories) {
  char buf[1024];
  const hsize_t n = (hsize_t)h->total;
  hid_t g = H5Gcreate2(h->file, "members", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return 1;
  hsize_t dv[2] = {n, (hsize_t)d->nvar}, dx[2] = {n, (hsize_t)h->nx}, dt[3] = {n, (hsize_t)h->nt, (hsize_t)h->nx};
  h->d_vals = mk_rows(h, g, "values", H5T_IEEE_F64LE, 2, dv);
  h->d_status = mk_rows(h, g, "status", H5T_STD_I32LE, 1, &n);
  h->d_impacts = mk_rows(h, g, "impacts", H5T_STD_I64LE, 1, &n);
  h->d_t = mk_rows(h, g, "t_end", H5T_IEEE_F64LE, 1, &n);
  h->d_final = mk_rows(h, g, "final", H5T_IEEE_F64LE, 2, dx);
  h->d_traj = trajectories ? mk_rows(h, g, "trajectory", H5T_IEEE_F64LE, 3, dt) : 0;
  int rc = h->d_vals < 0 || h->d_status < 0 || h->d_impacts < 0 || h->d_t < 0 || h->d_final < 0 || h->d_traj < 0;
  if (!rc) {
    rc |= attr_str(h->d_vals, "columns", join(buf, sizeof buf, d->nvar, var_name, d));
    rc |= attr_str(h->d_final, "columns", join(buf, sizeof buf, h->nx, state_name, d));
    if (trajectories) rc |= attr_str(h->d_traj, "columns", buf);
  }
  H5Gclose(g);
  if (h->nt > 0 && !rc) { /* the time grid, written by rank 0 */
    hsize_t nt = (hsize_t)h->nt;
    hid_t ds = mk(h->file, "time", H5T_IEEE_F64LE, 1, &nt);
    double *t = malloc(sizeof(double) * (size_t)h->nt);
    rc = ds < 0 || !t;
    for (int k = 0; !rc && k < h->nt; k++) t[k] = (double)k * d->sample_dt;
    if (!rc && h->rank == 0) rc = put(ds, H5T_NATIVE_DOUBLE, 0, nt, t);
    free(t);
    if (ds >= 0) H5Dclose(ds);
  }
  return rc;
}

static void close_sets(ens_h5 *h) {
  hid_t *ds[6] = {&h->d_vals, &h->d_status, &h->d_impacts, &h->d_t, &h->d_final, &h->d_traj};
  for (int i = 0; i < 6; i++) {
    if (*ds[i] > 0) H5Dclose(*ds[i]);
    *ds[i] = 0;
  }
}

ens_h5 *nhm_ens_h5_open(const nh_ensemble_def *d, const nh_ensemble_out *out, long total, long chunk, int nt, int ncols,
                    char *msg, size_t msg_size) {
  ens_h5 *h = calloc(1, sizeof *h);
  if (!h) return nh_set_msg(msg, msg_size, "ensemble: out of memory"), NULL;
  nhm_ens_mpi_rank(&h->rank, &h->size);
  h->def = d, h->model = d->model;
  h->nvar = d->nvar, h->nx = d->model->nx, h->nt = nt, h->ncols = ncols, h->total = total;
  h->chunk = chunk > 0 ? chunk : 1;
  long pid = (long)getpid(); /* rank 0's: every rank writes the same temporary */
  nhm_ens_mpi_bcast_long(&pid);
  snprintf(h->path, sizeof h->path, "%s", out->path);
  snprintf(h->tmp, sizeof h->tmp, "%s.tmp%ld", out->path, pid);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library prints nothing: errors are returned */
  h->file = create_file(h);
  int ok = h->file >= 0 && root_attrs(h, d, out) == 0 && members_datasets(h, d, out->trajectories) == 0;
  if (!nhm_ens_mpi_all(ok)) {
    nh_set_msg(msg, msg_size, "ensemble: cannot create the HDF5 file '%s'", h->tmp);
    nhm_ens_h5_close(h, 0, NULL, 0);
    return NULL;
  }
  return h;
}

int nhm_ens_h5_chunk(ens_h5 *h, const ens_chunk_rows *r, char *msg, size_t msg_size) {
  const hsize_t m0 = (hsize_t)r->m0, n = (hsize_t)r->n;
  int rc = (h->nvar > 0 && put(h->d_vals, H5T_NATIVE_DOUBLE, m0, n, r->vals)) ||
           put(h->d_status, H5T_NATIVE_INT, m0, n, r->status) || put(h->d_impacts, H5T_NATIVE_LONG, m0, n, r->impacts) ||
           put(h->d_t, H5T_NATIVE_DOUBLE, m0, n, r->t) || put(h->d_final, H5T_NATIVE_DOUBLE, m0, n, r->xf) ||
           (h->d_traj > 0 && put(h->d_traj, H5T_NATIVE_DOUBLE, m0, n, r->samples));
  if (rc) nh_set_msg(msg, msg_size, "ensemble: writing members %ld.. of '%s' failed", r->m0, h->path);
  return rc ? NH_ERR_IO : NH_OK;
}

/* ---- an interrupted ensemble: the file cut to the members run ------------------------------ */

/* the root's long attribute name set to v (it exists: root_attrs) */
static int attr_l_set(hid_t obj, const char *name, long v) {
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  int rc = a < 0 || H5Awrite(a, H5T_NATIVE_LONG, &v) < 0;
  if (a >= 0) H5Aclose(a);
  return rc;
}

int nhm_ens_h5_truncate(ens_h5 *h, long members, char *msg, size_t msg_size) {
  hid_t ds[6] = {h->d_vals, h->d_status, h->d_impacts, h->d_t, h->d_final, h->d_traj};
  int rc = 0;
  for (int i = 0; i < 6 && !rc; i++) {
    if (ds[i] <= 0) continue;
    hsize_t dims[3];
    hid_t sp = H5Dget_space(ds[i]);
    rc = sp < 0 || H5Sget_simple_extent_dims(sp, dims, NULL) < 0;
    if (sp >= 0) H5Sclose(sp);
    dims[0] = (hsize_t)members;
    rc = rc || H5Dset_extent(ds[i], dims) < 0;
  }
  rc = rc || attr_l_set(h->file, "members", members) || attr_l_set(h->file, "interrupted", 1);
  h->total = members;
  if (rc) nh_set_msg(msg, msg_size, "ensemble: cutting '%s' to the %ld members run failed", h->path, members);
  return rc ? NH_ERR_IO : NH_OK;
}

/* ---- the impact log: this rank's rows after those of the ranks before ------------------- */

static int copy_rows(ens_h5 *h, hid_t ds, FILE *rows, long base, long n) {
  double *buf = malloc(sizeof(double) * ENS_H5_BLOCK * (size_t)h->ncols);
  int rc = !buf;
  rewind(rows);
  for (long k = 0; !rc && k < n; k += ENS_H5_BLOCK) {
    const long b = n - k < ENS_H5_BLOCK ? n - k : ENS_H5_BLOCK;
    rc = fread(buf, sizeof(double) * (size_t)h->ncols, (size_t)b, rows) != (size_t)b ||
         put(ds, H5T_NATIVE_DOUBLE, (hsize_t)(base + k), (hsize_t)b, buf);
  }
  free(buf);
  return rc;
}

static int write_offsets(hid_t ds, FILE *counts, long base, long m_lo, long m_hi) {
  long buf[ENS_H5_BLOCK], cum = base;
  int rc = 0;
  rewind(counts);
  for (long m = m_lo; !rc && m < m_hi; m += ENS_H5_BLOCK) {
    const long b = m_hi - m < ENS_H5_BLOCK ? m_hi - m : ENS_H5_BLOCK;
    rc = fread(buf, sizeof(long), (size_t)b, counts) != (size_t)b;
    for (long i = 0; !rc && i < b; i++) {
      const long c = buf[i];
      buf[i] = cum, cum += c;
    }
    rc = rc || put(ds, H5T_NATIVE_LONG, (hsize_t)m, (hsize_t)b, buf);
  }
  return rc;
}

int nhm_ens_h5_impacts(ens_h5 *h, FILE *rows, FILE *counts, long m_lo, long m_hi, char *msg, size_t msg_size) {
  int rc = fseek(rows, 0, SEEK_END) != 0;
  const long mine = rc ? 0 : ftell(rows) / (long)(sizeof(double) * (size_t)h->ncols);
  long base, total;
  nhm_ens_mpi_exscan(mine, &base, &total);
  hid_t g = H5Gcreate2(h->file, "impacts", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dt[2] = {(hsize_t)total, (hsize_t)h->ncols}, no = (hsize_t)h->total + 1;
  hid_t table = g < 0 ? -1 : mk(g, "table", H5T_IEEE_F64LE, 2, dt);
  hid_t offs = g < 0 ? -1 : mk(g, "offsets", H5T_STD_I64LE, 1, &no);
  if (table >= 0) { /* (collective: on every rank whatever its own state) */
    char buf[4096];
    impact_columns(buf, sizeof buf, h->model);
    rc |= attr_str(table, "columns", buf);
  }
  rc = rc || table < 0 || offs < 0;
  rc = rc || copy_rows(h, table, rows, base, mine) || write_offsets(offs, counts, base, m_lo, m_hi);
  if (!rc && m_hi == h->total && m_lo < m_hi) rc = put(offs, H5T_NATIVE_LONG, (hsize_t)h->total, 1, &total);
  if (table >= 0) H5Dclose(table);
  if (offs >= 0) H5Dclose(offs);
  if (g >= 0) H5Gclose(g);
  if (rc) nh_set_msg(msg, msg_size, "ensemble: writing the impact log of '%s' failed", h->path);
  return rc ? NH_ERR_IO : NH_OK;
}

/* ---- the statistics (created by every rank, written by rank 0) and the close ---------------- */

static int stat_set(hid_t g, const char *name, int rank, const hsize_t *dims, hid_t ftype, hid_t mtype, int writer,
                    const void *buf) {
  hid_t ds = mk(g, name, ftype, rank, dims);
  if (ds < 0) return 1;
  int rc = 0;
  if (writer && dims[0] > 0) {
    hsize_t n = dims[0];
    rc = put(ds, mtype, 0, n, buf);
  }
  H5Dclose(ds);
  return rc;
}

int nhm_ens_h5_stats(ens_h5 *h, const nh_ensemble_stats *st, char *msg, size_t msg_size) {
  char buf[1024];
  const nh_ensemble_def *d = h->def;
  const int w = h->rank == 0;
  hid_t g = H5Gcreate2(h->file, "stats", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t gf = g < 0 ? -1 : H5Gcreate2(g, "final", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rc = gf < 0;
  hsize_t nx = (hsize_t)h->nx;
  // the groups, datasets and attributes on every rank alike (collective); rank 0's writes may
  // fail alone, so they only add to rc
  if (gf >= 0) {
    rc |= attr_l(gf, "members", st->members) | attr_l(gf, "ok", st->ok) | attr_l(gf, "failed", st->failed);
    rc |= attr_l(gf, "drifted", st->drifted);
    rc |= attr_str(gf, "columns", join(buf, sizeof buf, h->nx, state_name, d));
    rc |= stat_set(gf, "mean", 1, &nx, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, w, st->mean);
    rc |= stat_set(gf, "var", 1, &nx, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, w, st->var);
    rc |= stat_set(gf, "min", 1, &nx, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, w, st->min);
    rc |= stat_set(gf, "max", 1, &nx, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, w, st->max);
  }
  if (gf >= 0 && st->nt > 0 && st->nstat > 0) {
    hid_t gt = H5Gcreate2(g, "time", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    rc |= gt < 0;
    hsize_t d1 = (hsize_t)st->nt, d2[2] = {(hsize_t)st->nt, (hsize_t)st->nstat},
            d3[3] = {(hsize_t)st->nt, (hsize_t)st->nstat, NH_ENSEMBLE_NQ};
    double lev[NH_ENSEMBLE_NQ], lo[64], hi[64];
    long bins[64];
    const int ns = st->nstat < 64 ? st->nstat : 64;
    for (int i = 0; i < NH_ENSEMBLE_NQ; i++) lev[i] = nh_ensemble_q_level(i);
    for (int s = 0; s < ns; s++) {
      const int on = d->stats[s].lo < d->stats[s].hi;
      lo[s] = on ? d->stats[s].lo : 0.0, hi[s] = on ? d->stats[s].hi : 0.0, bins[s] = on ? d->stats[s].bins : 0;
    }
    if (gt >= 0) {
      rc |= attr_str(gt, "columns", join(buf, sizeof buf, st->nstat, stat_name, d));
      rc |= attr_num(gt, "quantile_levels", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, NH_ENSEMBLE_NQ, lev);
      rc |= attr_num(gt, "hist_lo", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, (hsize_t)ns, lo);
      rc |= attr_num(gt, "hist_hi", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, (hsize_t)ns, hi);
      rc |= attr_num(gt, "hist_bins", H5T_STD_I64LE, H5T_NATIVE_LONG, (hsize_t)ns, bins);
      rc |= stat_set(gt, "n", 1, &d1, H5T_STD_I64LE, H5T_NATIVE_LONG, w, st->t_n);
      rc |= stat_set(gt, "mean", 2, d2, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, w, st->t_mean);
      rc |= stat_set(gt, "var", 2, d2, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, w, st->t_var);
      rc |= stat_set(gt, "min", 2, d2, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, w, st->t_min);
      rc |= stat_set(gt, "max", 2, d2, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, w, st->t_max);
      rc |= stat_set(gt, "quantiles", 3, d3, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, w, st->t_q);
    }
    if (gt >= 0) H5Gclose(gt);
  }
  if (gf >= 0) H5Gclose(gf);
  if (g >= 0) H5Gclose(g);
  if (rc) nh_set_msg(msg, msg_size, "ensemble: writing the statistics of '%s' failed", h->path);
  return rc ? NH_ERR_IO : NH_OK;
}

int nhm_ens_h5_close(ens_h5 *h, int ok, char *msg, size_t msg_size) {
  if (!h) return NH_OK;
  close_sets(h);
  if (h->file >= 0 && H5Fclose(h->file) < 0) ok = 0;
  int renamed = 1;
  if (h->rank == 0) {
    if (ok) renamed = rename(h->tmp, h->path) == 0;
    if (!ok || !renamed) remove(h->tmp);
  }
  const int all = nhm_ens_mpi_all(ok && renamed);
  if (ok && !all) nh_set_msg(msg, msg_size, "ensemble: cannot write '%s'", h->path);
  free(h);
  return all ? NH_OK : NH_ERR_IO;
}

/* ---- explicit members from an HDF5 file ---------------------------------------------------- */

/* the string attribute "columns" of ds split at commas into names; their count, or -1 */
static int read_columns(hid_t ds, char (*names)[NH_MAX_NAME], int max_cols) {
  hid_t a = H5Aexists(ds, "columns") > 0 ? H5Aopen(ds, "columns", H5P_DEFAULT) : -1;
  hid_t t = a < 0 ? -1 : H5Aget_type(a);
  if (t < 0 || H5Tget_class(t) != H5T_STRING || H5Tis_variable_str(t) > 0) {
    if (t >= 0) H5Tclose(t);
    if (a >= 0) H5Aclose(a);
    return -1;
  }
  const size_t n = H5Tget_size(t);
  char *buf = calloc(n + 1, 1);
  hid_t mt = H5Tcopy(H5T_C_S1);
  H5Tset_size(mt, n + 1);
  int rc = buf && H5Aread(a, mt, buf) >= 0 ? 0 : -1;
  H5Tclose(mt), H5Tclose(t), H5Aclose(a);
  int count = 0;
  for (char *p = buf; rc == 0 && p;) {
    char *end = strchr(p, ',');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == 0 || len >= NH_MAX_NAME || count == max_cols) {
      rc = -1;
      break;
    }
    memcpy(names[count], p, len), names[count][len] = '\0', count++;
    p = end ? end + 1 : NULL;
  }
  free(buf);
  return rc == 0 ? count : -1;
}

int nhm_ensemble_read_members_h5(const char *path, char (*names)[NH_MAX_NAME], int max_cols, int *ncols,
                                double **table, long *rows, char *msg, size_t msg_size) {
  *table = NULL, *rows = 0, *ncols = 0;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fis_hdf5(path) > 0 ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
  if (f < 0) return nh_set_msg(msg, msg_size, "'%s' is not a readable HDF5 file", path), NH_ERR_IO;
  hid_t ds = H5Lexists(f, "members", H5P_DEFAULT) > 0 && H5Lexists(f, "members/values", H5P_DEFAULT) > 0
                 ? H5Dopen2(f, "members/values", H5P_DEFAULT) : -1;
  int rc = NH_OK;
  hsize_t dims[2] = {0, 0};
  hid_t sp = ds < 0 ? -1 : H5Dget_space(ds);
  if (ds < 0 || sp < 0) {
    rc = NH_ERR_IO, nh_set_msg(msg, msg_size, "'%s' has no dataset /members/values", path);
  } else if (H5Sget_simple_extent_ndims(sp) != 2 || H5Sget_simple_extent_dims(sp, dims, NULL) < 0 ||
             dims[0] < 1 || dims[0] > (hsize_t)NH_ENSEMBLE_MAX_MEMBERS) {
    rc = NH_ERR_ARG, nh_set_msg(msg, msg_size, "'%s': /members/values is not a table of 1 to %ld rows", path,
                                NH_ENSEMBLE_MAX_MEMBERS);
  } else if ((*ncols = read_columns(ds, names, max_cols)) < 1 || (hsize_t)*ncols != dims[1]) {
    rc = NH_ERR_ARG, nh_set_msg(msg, msg_size, "'%s': /members/values has %llu columns and its attribute 'columns' "
                                "does not name them (at most %d names, comma-separated)", path,
                                (unsigned long long)dims[1], max_cols);
  } else if (!(*table = malloc(sizeof(double) * (size_t)(dims[0] * dims[1])))) {
    rc = NH_ERR_NOMEM, nh_set_msg(msg, msg_size, "'%s': out of memory", path);
  } else if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *table) < 0) {
    rc = NH_ERR_IO, nh_set_msg(msg, msg_size, "'%s': /members/values cannot be read as numbers", path);
  }
  for (size_t i = 0; rc == NH_OK && i < (size_t)(dims[0] * dims[1]); i++)
    if (!isfinite((*table)[i]))
      rc = NH_ERR_ARG, nh_set_msg(msg, msg_size, "'%s': member %zu's value of '%s' is not finite", path,
                                  i / (size_t)dims[1], names[i % (size_t)dims[1]]);
  if (sp >= 0) H5Sclose(sp);
  if (ds >= 0) H5Dclose(ds);
  H5Fclose(f);
  if (rc != NH_OK) free(*table), *table = NULL, *ncols = 0;
  else *rows = (long)dims[0];
  return rc;
}
