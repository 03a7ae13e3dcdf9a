/* ball_file.c - user-described balls and disks: the body files of the model language
 * (docs/rolling-ball.md; `model NAME`, `body ball|disk` and the body's statements, or the
 * former .ball format, an alias) read by the reader of src/lang (lang/body.h) into a neutral
 * description, built here: rails and inputs compiled to tapes (expr/tape.h) with exact
 * derivatives (nh_expr_diff). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "expr/parse.h"
#include "expr/tape.h"
#include "lang/body.h"
#include "base/msg.h"
#include "nholo/systems/ball.h"

_Static_assert(NH_BODY_MAX_MASSES == NH_BALL_MAX_MASSES, "a body file holds as many masses as a ball");
_Static_assert(NH_BODY_MAX_NAME == NH_MAX_NAME, "a body's name fits a model's");

typedef struct bf_mass {
  nh_tape *rail_tape;  /* zeta, zeta', zeta'' (9 outputs) of s */
  nh_tape *drive_tape; /* u(t) (1 output) */
} bf_mass;

struct nh_ball_file {
  nh_ball_params p;
  int disk;
  char name[NH_MAX_NAME];
  int nmass;
  bf_mass mass[NH_BALL_MAX_MASSES];
  int has_force;
  nh_tape *force_tape;
  double *slots; /* scratch of the largest tape */
};

/* ---- callbacks of the compiled file ---------------------------------------------------------- */

static int file_rail(int i, double th, double z[3], double zp[3], double zpp[3], void *user) {
  nh_ball_file *f = user;
  double out[9];
  nh_tape_eval(f->mass[i].rail_tape, &th, f->slots, out);
  for (int c = 0; c < 3; c++) z[c] = out[c], zp[c] = out[3 + c], zpp[c] = out[6 + c];
  return 0;
}

static int file_input(double t, double *u, void *user) {
  nh_ball_file *f = user;
  for (int i = 0; i < f->nmass; i++) {
    if (f->mass[i].drive_tape) nh_tape_eval(f->mass[i].drive_tape, &t, f->slots, &u[i]);
    else u[i] = 0.0;
  }
  return 0;
}

static int file_force(double t, double F[3], void *user) {
  nh_ball_file *f = user;
  nh_tape_eval(f->force_tape, &t, f->slots, F);
  return 0;
}

void nh_ball_file_destroy(nh_ball_file *f) {
  if (!f) return;
  for (int i = 0; i < f->nmass; i++) {
    nh_tape_destroy(f->mass[i].rail_tape);
    nh_tape_destroy(f->mass[i].drive_tape);
  }
  nh_tape_destroy(f->force_tape);
  free(f->slots);
  free(f);
}

/* compile rails (value, first and second derivative in s), drives and the force of d */
static int compile(nh_body_desc *d, nh_ball_file *f) {
  int maxslots = 1;
  for (int i = 0; i < f->nmass; i++) {
    const nh_body_mass *dm = &d->mass[i];
    bf_mass *m = &f->mass[i];
    int out[9];
    for (int c = 0; c < 3; c++) {
      out[c] = dm->rail[c];
      out[3 + c] = nh_expr_diff(d->pool, out[c], 0);
      out[6 + c] = nh_expr_diff(d->pool, out[3 + c], 0);
    }
    m->rail_tape = nh_tape_create(d->pool, 9, out);
    if (dm->drive) {
      int u = dm->drv;
      if (dm->drive == 2) { /* theta(t): theta'' and the initial values */
        int d1 = nh_expr_diff(d->pool, dm->drv, 0);
        u = nh_expr_diff(d->pool, d1, 0);
        double t0 = 0.0;
        f->p.theta0[i] = nh_expr_eval(d->pool, dm->drv, &t0);
        f->p.thetad0[i] = nh_expr_eval(d->pool, d1, &t0);
      }
      m->drive_tape = nh_tape_create(d->pool, 1, &u);
      if (!m->drive_tape) return NH_ERR_NOMEM;
      if (nh_tape_nslots(m->drive_tape) > maxslots) maxslots = nh_tape_nslots(m->drive_tape);
    }
    if (!m->rail_tape) return NH_ERR_NOMEM;
    if (nh_tape_nslots(m->rail_tape) > maxslots) maxslots = nh_tape_nslots(m->rail_tape);
  }
  if (f->has_force) {
    f->force_tape = nh_tape_create(d->pool, 3, d->force);
    if (!f->force_tape) return NH_ERR_NOMEM;
    if (nh_tape_nslots(f->force_tape) > maxslots) maxslots = nh_tape_nslots(f->force_tape);
  }
  f->slots = calloc((size_t)maxslots, sizeof(double));
  return f->slots ? 0 : NH_ERR_NOMEM;
}

/* the parameters of description d (its constants; the callbacks are set by the caller) */
static void params_of(const nh_body_desc *d, nh_ball_file *f) {
  nh_ball_params *p = &f->p;
  snprintf(f->name, sizeof f->name, "%s", d->name);
  snprintf(p->name, sizeof p->name, "%s", d->name);
  f->disk = d->disk, f->nmass = d->nmass, f->has_force = d->has_force;
  p->n = d->nmass;
  p->r = d->r, p->g = d->g, p->mu = d->mu, p->m0 = d->m0;
  memcpy(p->I, d->I, sizeof p->I);
  memcpy(p->chi0, d->chi0, sizeof p->chi0);
  memcpy(p->q0, d->q0, sizeof p->q0);
  memcpy(p->Om0, d->Om0, sizeof p->Om0);
  memcpy(p->zxy0, d->zxy0, sizeof p->zxy0);
  for (int i = 0; i < d->nmass; i++)
    p->m[i] = d->mass[i].m, p->theta0[i] = d->mass[i].theta0, p->thetad0[i] = d->mass[i].thetad0;
}

nh_ball_file *nh_ball_file_parse(const char *text, const char *file, char *msg, size_t msg_size) {
  nh_set_msg(msg, msg_size, "%s", "");
  nh_body_desc d;
  if (nh_body_parse(text, file, &d, msg, msg_size) != NH_OK) return NULL;
  nh_ball_file *f = calloc(1, sizeof *f);
  int rc = f ? NH_OK : NH_ERR_NOMEM;
  if (f) {
    params_of(&d, f);
    rc = compile(&d, f);
  }
  nh_body_free(&d);
  if (rc) {
    nh_set_msg(msg, msg_size, "%s: out of memory", file ? file : "<input>");
    nh_ball_file_destroy(f);
    return NULL;
  }
  f->p.rail = file_rail, f->p.rail_user = f;
  f->p.input = file_input, f->p.input_user = f;
  if (f->has_force) f->p.force = file_force, f->p.force_user = f;
  return f;
}

nh_ball_file *nh_ball_file_load(const char *path, char *msg, size_t msg_size) {
  errno = 0;
  FILE *fp = path ? fopen(path, "rb") : NULL;
  if (!fp) {
    // the system's reason (no such file, permission denied, ...)
    nh_set_msg(msg, msg_size, "cannot open '%s': %s", path ? path : "(null)", path ? strerror(errno) : "no path given");
    return NULL;
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) break;
    if (n + 1 >= cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf), buf = NULL;
        break;
      }
      buf = nb;
    }
    errno = 0;
    size_t k = fread(buf + n, 1, cap - n - 1, fp);
    n += k;
    if (k == 0) break;
  }
  int bad = ferror(fp), why = errno;
  fclose(fp);
  if (!buf || bad) {
    nh_set_msg(msg, msg_size, "cannot read '%s': %s", path, buf ? strerror(why) : "out of memory");
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  nh_ball_file *f = nh_ball_file_parse(buf, path, msg, msg_size);
  free(buf);
  return f;
}

const nh_ball_params *nh_ball_file_params(const nh_ball_file *f) { return f ? &f->p : NULL; }
int nh_ball_file_is_disk(const nh_ball_file *f) { return f ? f->disk : 0; }
const char *nh_ball_file_name(const nh_ball_file *f) { return f ? f->name : ""; }
