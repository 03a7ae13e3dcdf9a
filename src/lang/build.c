/* build.c - the public entry points of model files: read the text, derive and check it
 * (read.c, derive.c, check.c), give it evaluators (compiled C, else tapes) and build the
 * nh_model from the definition this makes. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang/mf.h"
#include "base/msg.h"
#include "nholo/modelfile.h"
#include "nholo/status.h"

#define NH_LOAD_COOKIE 0x6e686c6f /* "nhlo" */
/* largest model file read */
#define MF_MAX_FILE (16u << 20)

nh_load_opts nh_load_opts_default(void) {
  nh_load_opts o;
  memset(&o, 0, sizeof o);
  o.cc_time_limit = NH_CODEGEN_TIME_LIMIT;
  o.cc_memory_limit = NH_CODEGEN_MEMORY_LIMIT;
  o.internal_cookie = NH_LOAD_COOKIE;
  return o;
}

/* the evaluators of d, on compiled code (codegen) or tapes; *why says why codegen failed.
 * Every evaluator the model file provides goes into its field of d (the list of
 * nholo/evaluators.h); the others stay NULL. */
static int mf_evaluators(const mf *m, nh_model_def *d, int codegen, char *why, size_t why_size) {
  mf_fns fns;
  void *user = NULL;
  memset(&fns, 0, sizeof fns);
  int rc = codegen ? mf_eval_compiled(m, &fns, &user, why, why_size) : mf_eval_tapes(m, &fns, &user);
  if (rc != NH_OK) return rc;
#define X(name, type, exact) d->name = mf_provides(m, MF_FN_##name) ? fns.name : NULL;
  NH_EVALUATOR_LIST(X)
#undef X
  if (m->poisson) {
    d->hamiltonian_degree = m->hdeg;
  } else {
    d->has_se2 = m->has_se2;
    d->mass_constant = mf_all_zero(m, m->dM.node, m->dM.n); /* dM/dq = 0 identically (+-0 entries only) */
    d->gram_constant = mf_gram_constant(m);
    for (int i = 0; i < 3; i++) d->se2[i] = m->se2[i];
  }
  d->user = user;
  d->user_free = mf_eval_free;
  d->backend = codegen ? "codegen" : "tape";
  return NH_OK;
}

/* ---- public entry points ------------------------------------------------------------------------ */

/* read and check everything; on failure the diagnostic is in msg */
int mf_prepare(mf *m, const char *text, const char *filename, const nh_load_opts *opts,
                      char *msg, size_t msg_size) {
  static _Thread_local nh_load_opts defaults; /* per thread: models may load in parallel (ensembles) */
  defaults = nh_load_opts_default();
  if (opts && opts->internal_cookie != NH_LOAD_COOKIE) {
    nh_set_msg(msg, msg_size, "load options not initialised with nh_load_opts_default()");
    return NH_ERR_ARG;
  }
  if (opts && (!(opts->cc_time_limit >= 0.0) || !(opts->cc_memory_limit >= 0.0) || !isfinite(opts->cc_time_limit) ||
               !isfinite(opts->cc_memory_limit))) {
    nh_set_msg(msg, msg_size, "the compiler's limits must be finite and >= 0 (cc_time_limit %g s, cc_memory_limit %g MiB)",
               opts->cc_time_limit, opts->cc_memory_limit);
    return NH_ERR_ARG;
  }
  if (opts && opts->nset > 0 && (!opts->set_names || !opts->set_values)) {
    nh_set_msg(msg, msg_size, "nset > 0 but set_names or set_values is NULL");
    return NH_ERR_ARG;
  }
  if (text && strncmp(text, "\xEF\xBB\xBF", 3) == 0) text += 3; /* a UTF-8 byte-order mark is not text */
  m->file = filename ? filename : "<input>";
  m->text = text;
  m->len = strlen(text);
  m->opts = opts ? opts : &defaults;
  if (!mf_read(m) && !mf_derive(m)) mf_check(m);
  if (m->status == NH_ERR_NOMEM) {
    nh_set_msg(msg, msg_size, "%s: out of memory", m->file);
  } else if (m->status) {
    if (m->err.line > 0)
      nh_parse_error_format(msg, msg_size, m->file, text, &m->err);
    else
      nh_set_msg(msg, msg_size, "%s: %s", m->file, m->err.msg);
  }
  return m->status;
}

nh_model *mf_build(mf *m, char *msg, size_t msg_size) {
  const char *cnames[NH_MF_MAX_Q];
  const char *pn[NH_MF_MAX_ITEMS], *kn[NH_MF_MAX_CON], *gn[NH_MF_MAX_ITEMS];
  double pv[NH_MF_MAX_ITEMS];
  nh_impact_law law[NH_MF_MAX_ITEMS];
  nh_monitor_def mon[NH_MF_MAX_ITEMS];
  for (int i = 0; i < m->nmon; i++)
    mon[i] = (nh_monitor_def){m->mon[i].name, (nh_monitor_dir)m->mon[i].dir,
                              (nh_monitor_action)m->mon[i].action};
  for (int i = 0; i < m->nq; i++) cnames[i] = m->coord[i];
  for (int i = 0; i < m->npar; i++) pn[i] = m->par[i].name, pv[i] = m->par[i].value;
  for (int i = 0; i < m->nc; i++) kn[i] = m->con[i].name;
  for (int i = 0; i < m->ngap; i++) {
    gn[i] = m->gap[i].name;
    law[i].kind = (nh_impact_kind)m->gap[i].law;
    law[i].e = m->gap[i].value;
    if (m->opts->impact_override) law[i] = m->opts->impact;
  }
  nh_model_def d = nh_model_def_default();
  d.name = m->name;
  d.npar = m->npar;
  d.param_names = pn;
  d.param_values = pv;
  d.nmon = m->nmon, d.monitors = mon;
  unsigned char *pip = NULL, *ptp = NULL;
  if (m->poisson) { /* an ODE-form model given by Pi and H */
    pip = malloc((size_t)m->nq * (size_t)m->nq), ptp = malloc((size_t)m->nq * (size_t)m->nq);
    if (!pip || !ptp) {
      free(pip), free(ptp);
      nh_set_msg(msg, msg_size, "%s: out of memory", m->file);
      return NULL;
    }
    d.form = NH_FORM_ODE;
    d.nx = m->nq;
    d.state_names = cnames;
    d.x0 = m->q0;
    // the entries of Pi and T that are not identically zero
    for (int ij = 0; ij < m->nq * m->nq; ij++) pip[ij] = !mf_is_zero(m, m->Pi[ij]), ptp[ij] = !mf_is_zero(m, m->PT[ij]);
    d.poisson_pattern = pip, d.poisson_jac_pattern = ptp;
  } else {
    // the entries of M and A that are not the constant +0
    const size_t nq = (size_t)m->nq, nc = (size_t)m->nc;
    pip = malloc(nq * nq), ptp = malloc(nc * nq + 1);
    if (!pip || !ptp) {
      free(pip), free(ptp);
      nh_set_msg(msg, msg_size, "%s: out of memory", m->file);
      return NULL;
    }
    for (size_t ij = 0; ij < nq * nq; ij++) pip[ij] = !mf_is_pluszero(m, m->M[ij]);
    for (size_t kj = 0; kj < nc * nq; kj++) ptp[kj] = !mf_is_pluszero(m, m->A[kj]);
    d.mass_pattern = pip, d.constraint_pattern = nc > 0 ? ptp : NULL;
    d.nq = m->nq, d.nc = m->nc;
    d.coord_names = cnames;
    d.constraint_names = kn;
    d.q0 = m->q0;
    d.v0 = m->v0;
  }
  d.ngap = m->ngap, d.gap_names = gn, d.impact = law; /* on q, or on an almost-Poisson state */
  char why[1024] = "";
  int rc = NH_ERR_UNSUPPORTED;
  if (m->opts->backend != NH_BACKEND_TAPE) rc = mf_evaluators(m, &d, 1, why, sizeof why);
  // the compiler past its budget: the tape, with a note (NH_BACKEND_AUTO); an interrupted
  // compile fails the load whatever the back end
  const int budget = rc == MF_CC_OVER_TIME || rc == MF_CC_OVER_MEMORY;
  nh_model *model = NULL;
  if (rc == NH_INTERRUPTED) {
    nh_set_msg(msg, msg_size, "%s: %s", m->file, why);
  } else if (rc != NH_OK && m->opts->backend == NH_BACKEND_CODEGEN) {
    nh_set_msg(msg, msg_size, "%s: compiled evaluation is not available: %s", m->file, why);
  } else if (rc != NH_OK && (rc = mf_evaluators(m, &d, 0, NULL, 0)) != NH_OK) {
    nh_set_msg(msg, msg_size, "%s: out of memory", m->file);
  } else if (!(model = nh_model_create(&d, msg, msg_size))) {
    d.user_free((void *)(uintptr_t)d.user);
  }
  if (model) {
    if (budget) mf_eval_set_note(model->user, m->file, why);
    mf_eval_set_model(model->user, model);
    if (model->gram_constant) model->gni_kernel = mf_eval_gni_kernel(model->user, &model->gni_kernel_code, &model->gni_kernel_M);
  }
  free(pip), free(ptp);
  return model;
}

nh_model *nh_model_parse(const char *text, const char *filename, const nh_load_opts *opts,
                         char *msg, size_t msg_size) {
  nh_set_msg(msg, msg_size, "%s", "");
  if (!text) {
    nh_set_msg(msg, msg_size, "no model text");
    return NULL;
  }
  mf *m = calloc(1, sizeof *m);
  if (!m) {
    nh_set_msg(msg, msg_size, "out of memory");
    return NULL;
  }
  nh_model *model = NULL;
  if (mf_prepare(m, text, filename, opts, msg, msg_size) == NH_OK) model = mf_build(m, msg, msg_size);
  mf_free(m);
  free(m);
  return model;
}

/* the whole file as a NUL-terminated string, or NULL with a reason */
int nh_model_file_check(const char *path, char *msg, size_t msg_size) {
  struct stat st;
  const char *why = NULL;
  if (!path) why = "no path given";
  else if (stat(path, &st) != 0) why = strerror(errno);
  else if (!S_ISREG(st.st_mode)) why = S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file";
  else {
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) why = strerror(errno);
    else close(fd);
  }
  if (!why) return NH_OK;
  nh_set_msg(msg, msg_size, "cannot read '%s': %s", path ? path : "", why);
  return NH_ERR_ARG;
}

char *mf_read_file(const char *path, char *msg, size_t msg_size) {
  errno = 0;
  FILE *f = path ? fopen(path, "rb") : NULL;
  if (!f) {
    // the system's reason (no such file, permission denied, ...)
    nh_set_msg(msg, msg_size, "%s: cannot open the model file: %s", path ? path : "(null)",
               path ? strerror(errno) : "no path given");
    return NULL;
  }
  char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      cap = cap ? 2 * cap : 8192;
      char *b = cap <= MF_MAX_FILE + 8192 ? realloc(buf, cap) : NULL;
      if (!b) {
        nh_set_msg(msg, msg_size, "%s: the file is too large (more than %u bytes) or memory ran out",
                   path, MF_MAX_FILE);
        free(buf), fclose(f);
        return NULL;
      }
      buf = b;
    }
    errno = 0;
    size_t got = fread(buf + len, 1, 4096, f);
    len += got;
    if (got < 4096) break;
  }
  int err = ferror(f), why = errno;
  fclose(f);
  if (err) {
    nh_set_msg(msg, msg_size, "%s: read error: %s", path, strerror(why));
    free(buf);
    return NULL;
  }
  buf[len] = '\0';
  if (strlen(buf) != len) { /* FILE:LINE:COL, the line up to the NUL, a caret */
    nh_parse_error e = {1, 1, ""};
    for (size_t i = 0; i < strlen(buf); i++) {
      if (buf[i] == '\n')
        e.line++, e.col = 1;
      else
        e.col++;
    }
    snprintf(e.msg, sizeof e.msg, "unexpected NUL byte (not a text file?)");
    nh_parse_error_format(msg, msg_size, path, buf, &e);
    free(buf);
    return NULL;
  }
  return buf;
}

nh_model *nh_model_load(const char *path, const nh_load_opts *opts, char *msg, size_t msg_size) {
  char *text = mf_read_file(path, msg, msg_size);
  if (!text) return NULL;
  nh_model *model = nh_model_parse(text, path, opts, msg, msg_size);
  free(text);
  return model;
}

const char *nh_model_backend(const nh_model *model) { return model ? model->backend : ""; }

const char *nh_model_backend_note(const nh_model *model) {
  return model && model->user_free == mf_eval_free ? mf_eval_note(model->user) : "";
}

void nh_free(void *p) { free(p); }

char *nh_model_file_read(const char *path, char *msg, size_t msg_size) { return mf_read_file(path, msg, msg_size); }
