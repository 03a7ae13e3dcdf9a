/* csv.c - atomic output files and the CSV writers (trajectory, impact log).
 *
 * Every file is written to "<path>.tmp.<pid>" beside its destination and renamed over it
 * only when everything was written and flushed, so a failure never leaves a partial file.
 * A destination that exists and is not a regular file is never replaced: a character device
 * (/dev/null) or a FIFO with a reader is written in place (then tmp equals path), anything
 * else is refused. A symbolic link is written through: its target is replaced (created when
 * the link dangles), the link stays. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef _WIN32
#include <process.h>
#define nh_getpid() ((long)_getpid())
#else
#include <unistd.h>
#define nh_getpid() ((long)getpid())
#endif

#include "base/msg.h"
#include "nholo/io.h"

#ifdef S_ISDIR
#define NH_S_ISDIR(m) S_ISDIR(m)
#else
#define NH_S_ISDIR(m) (((m) & _S_IFMT) == _S_IFDIR)
#endif

/* ---- messages ------------------------------------------------------------------------ */

static int io_error(char *msg, size_t msg_size, const char *path, int err) {
  nh_set_msg(msg, msg_size, "cannot write '%s': %s", path, strerror(err ? err : EIO));
  return NH_ERR_IO;
}

/* ---- atomic files -------------------------------------------------------------------- */

#if defined(S_ISFIFO) && defined(S_ISCHR) && !defined(_WIN32)
/* path exists and is not a regular file: 1 when it is a device or FIFO to write in place,
 * else 0 with NH_ERR_IO and the reason in *st (a directory, a block device, a socket) */
static int in_place(const char *path, const struct stat *sb, char *msg, size_t msg_size, int *st) {
  if (S_ISCHR(sb->st_mode) || S_ISFIFO(sb->st_mode)) return 1;
  if (NH_S_ISDIR(sb->st_mode))
    *st = io_error(msg, msg_size, path, EISDIR);
  else {
    nh_set_msg(msg, msg_size, "cannot write '%s': not a regular file, a character device or a FIFO", path);
    *st = NH_ERR_IO;
  }
  return 0;
}

/* open the device or FIFO out->path for writing where it is (path, as given, names it in
 * messages); a FIFO without a reader is an error, not a wait */
static int open_in_place(nh_outfile *out, const char *path, char *msg, size_t msg_size) {
  int fd = open(out->path, O_WRONLY | O_NONBLOCK);
  if (fd < 0) {
    int err = errno;
    out->path[0] = out->tmp[0] = '\0';
    if (err == ENXIO) {
      nh_set_msg(msg, msg_size, "cannot write '%s': no process is reading the FIFO", path);
      return NH_ERR_IO;
    }
    return io_error(msg, msg_size, path, err);
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl != -1) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK); /* writes wait for the reader as usual */
  out->fp = fdopen(fd, "wb");
  if (!out->fp) {
    int err = errno;
    close(fd);
    out->path[0] = out->tmp[0] = '\0';
    return io_error(msg, msg_size, path, err);
  }
  memcpy(out->tmp, out->path, strlen(out->path) + 1); /* in place: nothing to rename */
  return NH_OK;
}
#endif

static int is_in_place(const nh_outfile *out) { return out->tmp[0] && strcmp(out->tmp, out->path) == 0; }

#if defined(S_ISLNK) && !defined(_WIN32)
/* symbolic links followed to the file they name: more than this is a loop (ELOOP) */
#define NH_MAX_LINKS 40

/* The file path names through its symbolic links, into buf (size bytes; path when it is not
 * a link): the last component followed while it is a link, a relative target taken from the
 * link's directory; the file itself need not exist (a dangling link names where to create
 * it). Output is written through a link, as a shell's `>` does: the link stays, its target is
 * replaced. 0, or an errno (ELOOP, ENAMETOOLONG, readlink's). */
static int follow_links(const char *path, char *buf, size_t size) {
  if (strlen(path) >= size) return ENAMETOOLONG;
  strcpy(buf, path);
  for (int i = 0; i < NH_MAX_LINKS; i++) {
    struct stat sb;
    if (lstat(buf, &sb) != 0 || !S_ISLNK(sb.st_mode)) return 0;
    char target[1024];
    ssize_t n = readlink(buf, target, sizeof target);
    if (n < 0) return errno;
    if ((size_t)n >= sizeof target) return ENAMETOOLONG;
    target[n] = '\0';
    const char *slash = strrchr(buf, '/');
    const size_t dir = target[0] == '/' || !slash ? 0 : (size_t)(slash - buf) + 1; /* keep "dir/" */
    if (dir + (size_t)n >= size) return ENAMETOOLONG;
    memcpy(buf + dir, target, (size_t)n + 1);
  }
  return ELOOP;
}
#endif

int nh_outfile_open(nh_outfile *out, const char *path, char *msg, size_t msg_size) {
  if (!out) {
    nh_set_msg(msg, msg_size, "no output file given");
    return NH_ERR_ARG;
  }
  out->fp = NULL;
  out->path[0] = '\0';
  out->tmp[0] = '\0';
  if (!path || !path[0]) {
    nh_set_msg(msg, msg_size, "empty output path");
    return NH_ERR_ARG;
  }
  size_t len = strlen(path);
  if (len >= sizeof out->path) {
    nh_set_msg(msg, msg_size, "output path too long (%zu characters, at most %zu)", len,
            sizeof out->path - 1);
    return NH_ERR_ARG;
  }
  memcpy(out->path, path, len + 1);
  const char *dest = out->path; /* the file replaced: path, or the file a link at path names */
#if defined(S_ISLNK) && !defined(_WIN32)
  int lerr = follow_links(path, out->path, sizeof out->path);
  if (lerr) {
    out->path[0] = '\0';
    return io_error(msg, msg_size, path, lerr);
  }
#endif
#if defined(S_ISFIFO) && defined(S_ISCHR) && !defined(_WIN32)
  struct stat sb;
  int st = NH_OK;
  if (stat(dest, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    if (in_place(path, &sb, msg, msg_size, &st)) return open_in_place(out, path, msg, msg_size);
    out->path[0] = '\0';
    return st;
  }
#endif
  int n = snprintf(out->tmp, sizeof out->tmp, "%s.tmp.%ld", dest, nh_getpid());
  if (n < 0 || (size_t)n >= sizeof out->tmp) {
    out->path[0] = out->tmp[0] = '\0';
    nh_set_msg(msg, msg_size, "output path too long: '%s'", path);
    return NH_ERR_ARG;
  }
  errno = 0;
  out->fp = fopen(out->tmp, "wb");
  if (!out->fp) {
    int err = errno;
    out->path[0] = out->tmp[0] = '\0';
    return io_error(msg, msg_size, path, err);
  }
  return NH_OK;
}

void nh_outfile_abort(nh_outfile *out) {
  if (!out) return;
  if (out->fp) fclose(out->fp);
  out->fp = NULL;
  if (out->tmp[0] && !is_in_place(out)) remove(out->tmp);
  out->tmp[0] = '\0';
}

int nh_outfile_commit(nh_outfile *out, char *msg, size_t msg_size) {
  if (!out || !out->tmp[0]) {
    nh_set_msg(msg, msg_size, "no open output file to commit");
    return NH_ERR_ARG;
  }
  int err = 0, here = is_in_place(out);
  if (out->fp) {
    int e0 = errno; /* most likely what made an earlier write fail, if one did */
    errno = 0;
    if (fflush(out->fp) != 0) err = errno ? errno : EIO;
    if (!err && ferror(out->fp)) err = e0 ? e0 : EIO;
    errno = 0;
    if (fclose(out->fp) != 0 && !err) err = errno ? errno : EIO;
    out->fp = NULL;
  }
  if (!err && !here) {
    errno = 0;
    if (rename(out->tmp, out->path) != 0) {
      err = errno ? errno : EIO;
#ifdef _WIN32
      /* rename does not replace an existing file on Windows */
      if (remove(out->path) == 0 && rename(out->tmp, out->path) == 0) err = 0;
#endif
    }
  }
  if (err) {
    if (!here) remove(out->tmp);
    out->tmp[0] = '\0';
    return io_error(msg, msg_size, out->path, err);
  }
  out->tmp[0] = '\0';
  return NH_OK;
}

int nh_check_writable(const char *path, char *msg, size_t msg_size) {
#if defined(S_ISFIFO) && defined(S_ISCHR) && !defined(_WIN32)
  // a device or FIFO is only tested for permission: opening a FIFO would end its reader's input
  {
    struct stat sb;
    int st = NH_OK;
    if (path && stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
      if (!in_place(path, &sb, msg, msg_size, &st)) return st;
      return access(path, W_OK) == 0 ? NH_OK : io_error(msg, msg_size, path, errno);
    }
  }
#endif
  nh_outfile out;
  int st = nh_outfile_open(&out, path, msg, msg_size);
  if (st != NH_OK) return st;
  nh_outfile_abort(&out);
  /* The temporary could be created, but the rename would fail over a directory. */
  struct stat sb;
  if (stat(path, &sb) == 0 && NH_S_ISDIR(sb.st_mode)) return io_error(msg, msg_size, path, EISDIR);
  return NH_OK;
}

/* ---- CSV ----------------------------------------------------------------------------- */

/* A text field made of three parts, quoted (RFC 4180) when it holds a separator, a quote or
 * a line break. */
static void put_field3(FILE *fp, const char *a, const char *b, const char *c) {
  const char *part[3] = {a, b, c};
  int quote = 0;
  for (int i = 0; i < 3; i++) quote |= strpbrk(part[i], ",\"\r\n") != NULL;
  if (quote) fputc('"', fp);
  for (int i = 0; i < 3; i++)
    for (const char *s = part[i]; *s; s++) {
      if (quote && *s == '"') fputc('"', fp);
      fputc(*s, fp);
    }
  if (quote) fputc('"', fp);
}

/* A column name: prefix, the i-th name (or "<fallback><i+1>" when there is none), suffix. */
static void put_name(FILE *fp, const char *prefix, const char *const *names, int i,
                     const char *fallback, const char *suffix) {
  if (names && names[i]) {
    put_field3(fp, prefix, names[i], suffix);
  } else {
    char buf[64];
    snprintf(buf, sizeof buf, "%s%d", fallback, i + 1);
    put_field3(fp, prefix, buf, suffix);
  }
}

static void put_num(FILE *fp, double x) {
  fputc(',', fp);
  fprintf(fp, "%.17g", x);
}

/* the trajectory's header: "t,<coords>,<coords>_dot", or "t,<state names>" (ODE form) */
static void traj_header(FILE *fp, const nh_model *model) {
  const int ode = model->form == NH_FORM_ODE;
  const int n = ode ? model->nx : model->nq;
  fputs("t", fp);
  for (int i = 0; i < n; i++) {
    fputc(',', fp);
    if (ode) put_name(fp, "", model->state_names, i, "x", "");
    else put_name(fp, "", model->coord_names, i, "q", "");
  }
  for (int i = 0; !ode && i < n; i++) {
    fputc(',', fp);
    put_name(fp, "", model->coord_names, i, "q", "_dot");
  }
  fputc('\n', fp);
}

/* one sample: t, q (n), v (n; none when v is NULL: the ODE form's state x is all in q) */
static void traj_row(FILE *fp, double t, int n, const double *q, const double *v) {
  fprintf(fp, "%.17g", t);
  for (int i = 0; i < n; i++) put_num(fp, q[i]);
  for (int i = 0; v && i < n; i++) put_num(fp, v[i]);
  fputc('\n', fp);
}

int nh_write_traj_csv(const char *path, const nh_model *model, const nh_traj *traj, char *msg,
                      size_t msg_size) {
  if (!model || !traj) {
    nh_set_msg(msg, msg_size, "nh_write_traj_csv: %s is NULL", model ? "trajectory" : "model");
    return NH_ERR_ARG;
  }
  const int ode = model->form == NH_FORM_ODE; /* ODE form: the samples are the state x (nx) */
  if (traj->nq != (ode ? model->nx : model->nq)) {
    nh_set_msg(msg, msg_size,
            "nh_write_traj_csv: the trajectory has %d coordinates, the model '%s' has %d",
            traj->nq, model->name, ode ? model->nx : model->nq);
    return NH_ERR_ARG;
  }
  if (traj->n < 0 || (traj->n > 0 && (!traj->t || !traj->q || !traj->v))) {
    nh_set_msg(msg, msg_size, "nh_write_traj_csv: malformed trajectory");
    return NH_ERR_ARG;
  }
  nh_outfile out;
  int st = nh_outfile_open(&out, path, msg, msg_size);
  if (st != NH_OK) return st;
  FILE *fp = out.fp;
  const size_t n = (size_t)traj->nq;
  traj_header(fp, model);
  for (long k = 0; k < traj->n && !ferror(fp); k++)
    traj_row(fp, traj->t[k], traj->nq, traj->q + (size_t)k * n, ode ? NULL : traj->v + (size_t)k * n);
  return nh_outfile_commit(&out, msg, msg_size);
}

/* the impact log's header */
static void impacts_header(FILE *fp, const nh_model *model) {
  int nq = model->nq, nc = model->nc;
  fputs("index,t,surface,status,energy_before,energy_after,vn_before,vn_after,alpha", fp);
  for (int i = 0; i < nc; i++) {
    fputc(',', fp);
    put_name(fp, "lambda_", model->constraint_names, i, "c", "");
  }
  for (int i = 0; i < nq; i++) {
    fputc(',', fp);
    put_name(fp, "", model->coord_names, i, "q", "");
  }
  for (int i = 0; i < nq; i++) {
    fputc(',', fp);
    put_name(fp, "", model->coord_names, i, "q", "_dot_before");
  }
  for (int i = 0; i < nq; i++) {
    fputc(',', fp);
    put_name(fp, "", model->coord_names, i, "q", "_dot_after");
  }
  // an almost-Poisson model with gaps: the state before and after
  for (int k = 0; k < 2 && model->form == NH_FORM_ODE && model->ngap > 0; k++)
    for (int i = 0; i < model->nx; i++) {
      fputc(',', fp);
      put_name(fp, "", model->state_names, i, "x", k ? "_after" : "_before");
    }
  fputc('\n', fp);
}

/* one row of the impact log */
static void impact_row1(FILE *fp, const nh_model *model, long k, const nh_impact_record *rec) {
  int nq = model->nq, nc = model->nc;
  fprintf(fp, "%ld,%.17g,", k, rec->t);
  if (rec->gap >= 0 && rec->gap < model->ngap)
    put_name(fp, "", model->gap_names, rec->gap, "g", "");
  else
    fprintf(fp, "%d", rec->gap);
  fputc(',', fp);
  fputs(nh_status_name(rec->status), fp);
  put_num(fp, rec->energy_before);
  put_num(fp, rec->energy_after);
  put_num(fp, rec->vn_before);
  put_num(fp, rec->vn_after);
  put_num(fp, rec->alpha);
  /* (an array the record does not hold is written as nan, never as made-up zeros) */
  for (int i = 0; i < nc; i++) put_num(fp, rec->lambda ? rec->lambda[i] : NAN);
  for (int i = 0; i < nq; i++) put_num(fp, rec->q ? rec->q[i] : NAN);
  for (int i = 0; i < nq; i++) put_num(fp, rec->v_before ? rec->v_before[i] : NAN);
  for (int i = 0; i < nq; i++) put_num(fp, rec->v_after ? rec->v_after[i] : NAN);
  if (model->form == NH_FORM_ODE && model->ngap > 0) { /* the states before and after */
    for (int i = 0; i < model->nx; i++) put_num(fp, rec->v_before ? rec->v_before[i] : NAN);
    for (int i = 0; i < model->nx; i++) put_num(fp, rec->v_after ? rec->v_after[i] : NAN);
  }
  fputc('\n', fp);
}

/* impact number k of the log: one row, or for a simultaneous impact one row per contact (the
 * same index, t, status, energies and state; surface, vn_before, vn_after and alpha = -impulse
 * the contact's) */
static void impact_row(FILE *fp, const nh_model *model, long k, const nh_impact_record *rec) {
  for (int j = 0; j < (rec->contacts > 0 ? rec->contacts : 1); j++) {
    nh_impact_record r = *rec;
    if (rec->contacts > 0) {
      r.gap = rec->contact_gap[j];
      r.vn_before = rec->contact_vn_before[j], r.vn_after = rec->contact_vn_after[j];
      r.alpha = -rec->impulse[j];
    }
    impact_row1(fp, model, k, &r);
  }
}

/* the outcomes' header: index,t,outcome,outcomes,truncated,followed,reflections,sequence,
 * <coord>_dot...,impulse_<gap>... */
static void outcomes_header(FILE *fp, const nh_model *model) {
  fputs("index,t,outcome,outcomes,truncated,followed,reflections,sequence", fp);
  for (int i = 0; i < model->nq; i++) {
    fputc(',', fp);
    put_name(fp, "", model->coord_names, i, "q", "_dot");
  }
  for (int i = 0; i < model->ngap; i++) {
    fputc(',', fp);
    put_name(fp, "impulse_", model->gap_names, i, "g", "");
  }
  fputc('\n', fp);
}

/* impact number k's outcomes (an enumerated simultaneous impact; none otherwise): one row each,
 * the sequence as gap names separated by spaces, the impulse of a gap outside the impact's
 * contacts nan */
static void outcome_rows(FILE *fp, const nh_model *model, long k, const nh_impact_record *rec) {
  for (int j = 0; j < rec->outcomes; j++) {
    fprintf(fp, "%ld,%.17g,%d,%d,%d,%d,%d,", k, rec->t, j, rec->outcomes, rec->outcomes_truncated, j == 0,
            rec->outcome_len[j]);
    const int *sq = rec->outcome_seq + rec->outcome_start[j];
    for (int i = 0; i < rec->outcome_len[j]; i++) {
      if (i) fputc(' ', fp);
      put_name(fp, "", model->gap_names, sq[i], "g", "");
    }
    for (int i = 0; i < model->nq; i++) put_num(fp, rec->outcome_v[(size_t)j * (size_t)model->nq + i]);
    for (int g = 0; g < model->ngap; g++) {
      double x = NAN;
      for (int c = 0; c < rec->contacts; c++)
        if (rec->contact_gap[c] == g) x = rec->outcome_impulse[(size_t)j * (size_t)rec->contacts + c];
      put_num(fp, x);
    }
    fputc('\n', fp);
  }
}

/* every record of the log through row(), after header(); the CSV writers of whole logs */
static int write_log_csv(const char *path, const nh_sim *sim, const char *who,
                         void (*header)(FILE *, const nh_model *),
                         void (*row)(FILE *, const nh_model *, long, const nh_impact_record *), char *msg,
                         size_t msg_size) {
  if (!sim) {
    nh_set_msg(msg, msg_size, "%s: simulation is NULL", who);
    return NH_ERR_ARG;
  }
  const nh_model *model = nh_sim_model(sim);
  if (!model) {
    nh_set_msg(msg, msg_size, "%s: simulation has no model", who);
    return NH_ERR_ARG;
  }
  nh_outfile out;
  int st = nh_outfile_open(&out, path, msg, msg_size);
  if (st != NH_OK) return st;
  FILE *fp = out.fp;
  header(fp, model);
  long count = nh_sim_impact_count(sim);
  for (long k = 0; k < count && !ferror(fp); k++) {
    nh_impact_record rec;
    st = nh_sim_impact_get(sim, k, &rec);
    if (st != NH_OK) {
      nh_outfile_abort(&out);
      nh_set_msg(msg, msg_size, "cannot write '%s': impact %ld of %ld unavailable (%s)", path, k,
              count, nh_status_name(st));
      return NH_ERR_IO;
    }
    row(fp, model, k, &rec);
  }
  return nh_outfile_commit(&out, msg, msg_size);
}

int nh_write_outcomes_csv(const char *path, const nh_sim *sim, char *msg, size_t msg_size) {
  return write_log_csv(path, sim, "nh_write_outcomes_csv", outcomes_header, outcome_rows, msg, msg_size);
}

int nh_write_impacts_csv(const char *path, const nh_sim *sim, char *msg, size_t msg_size) {
  return write_log_csv(path, sim, "nh_write_impacts_csv", impacts_header, impact_row, msg, msg_size);
}

/* ---- streaming CSV ------------------------------------------------------------------- */

#define NH_CSV_STREAM_BUFFER 65536 /* bytes of the stream's FILE buffer */

int nh_csv_stream_open(nh_csv_stream *cs, int what, const char *path, const nh_model *model, char *msg,
                       size_t msg_size) {
  if (!cs || !model || (what != NH_CSV_TRAJECTORY && what != NH_CSV_IMPACTS && what != NH_CSV_OUTCOMES)) {
    nh_set_msg(msg, msg_size, "nh_csv_stream_open: %s", !cs ? "no stream given" : !model ? "model is NULL" : "unknown kind of CSV");
    return NH_ERR_ARG;
  }
  memset(cs, 0, sizeof *cs);
  cs->model = model;
  cs->what = what;
  cs->width = model->form == NH_FORM_ODE ? model->nx : model->nq;
  if (what == NH_CSV_TRAJECTORY && !(cs->last = calloc(2 * (size_t)cs->width, sizeof *cs->last))) {
    nh_set_msg(msg, msg_size, "out of memory for the stream of '%s'", path ? path : "");
    return NH_ERR_NOMEM;
  }
  int st = nh_outfile_open(&cs->out, path, msg, msg_size);
  if (st != NH_OK) {
    free(cs->last);
    cs->last = NULL;
    return st;
  }
  setvbuf(cs->out.fp, NULL, _IOFBF, NH_CSV_STREAM_BUFFER);
  if (what == NH_CSV_TRAJECTORY) traj_header(cs->out.fp, model);
  else if (what == NH_CSV_IMPACTS) impacts_header(cs->out.fp, model);
  else outcomes_header(cs->out.fp, model);
  return NH_OK;
}

/* a trajectory sample; an END that repeats the last row's sample (t, q and v) is dropped,
 * as nh_traj_observer does */
static void stream_sample(nh_csv_stream *cs, nh_sample_kind kind, double t, const double *q, const double *v) {
  const int n = cs->width, ode = cs->model->form == NH_FORM_ODE;
  const size_t bytes = (size_t)n * sizeof *cs->last;
  double *lq = cs->last, *lv = cs->last + n;
  if (kind == NH_SAMPLE_END && cs->rows > 0 && cs->last_t == t && q && v && memcmp(lq, q, bytes) == 0 &&
      memcmp(lv, v, bytes) == 0)
    return;
  // the row as recorded: a missing q or v as zeros
  if (q) memcpy(lq, q, bytes);
  else memset(lq, 0, bytes);
  if (v && !ode) memcpy(lv, v, bytes);
  else memset(lv, 0, bytes);
  cs->last_t = t;
  traj_row(cs->out.fp, t, n, lq, ode ? NULL : lv);
  cs->rows++;
}

/* the impact just applied: the latest record of the log, numbered by the stream (impact log:
 * a row, or one per contact; outcomes: one per outcome of an enumeration, else none) */
static void stream_impact(nh_csv_stream *cs, const nh_sim *sim) {
  nh_impact_record rec;
  const long count = nh_sim_impact_count(sim);
  if (count < 1 || nh_sim_impact_get(sim, count - 1, &rec) != NH_OK) {
    if (!cs->failed) cs->failed = cs->impacts + 1;
    return;
  }
  if (cs->what == NH_CSV_IMPACTS) {
    impact_row(cs->out.fp, nh_sim_model(sim), cs->impacts, &rec);
    cs->rows++;
  } else {
    outcome_rows(cs->out.fp, nh_sim_model(sim), cs->impacts, &rec);
    cs->rows += rec.outcomes;
  }
  cs->impacts++;
}

int nh_csv_stream_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q, const double *v,
                           void *user) {
  nh_csv_stream *cs = user;
  if (!cs || !cs->out.fp || ferror(cs->out.fp)) return 0; /* a failed file: commit reports it */
  if (cs->what == NH_CSV_TRAJECTORY) stream_sample(cs, kind, t, q, v);
  else if (kind == NH_SAMPLE_IMPACT_AFTER && sim) stream_impact(cs, sim);
  return 0;
}

void nh_csv_stream_abort(nh_csv_stream *cs) {
  if (!cs) return;
  nh_outfile_abort(&cs->out);
  free(cs->last);
  cs->last = NULL;
}

int nh_csv_stream_commit(nh_csv_stream *cs, char *msg, size_t msg_size) {
  if (!cs) {
    nh_set_msg(msg, msg_size, "no stream to commit");
    return NH_ERR_ARG;
  }
  free(cs->last);
  cs->last = NULL;
  if (cs->failed) {
    nh_set_msg(msg, msg_size, "cannot write '%s': impact %ld unavailable", cs->out.path, cs->failed - 1);
    nh_outfile_abort(&cs->out);
    return NH_ERR_IO;
  }
  return nh_outfile_commit(&cs->out, msg, msg_size);
}
