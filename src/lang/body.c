/* body.c - the reader of body files (body.h): a rigid body with internal point masses on
 * rails, in the model language (`model NAME`, `body ball|disk`, then the body's statements) or
 * in the former .ball format (`ball NAME` / `disk NAME`), read line by line with the model
 * language's expression parser into the neutral description that ball_file.c builds.
 * Errors: "FILE:LINE:COL: error: what" with the line and a caret (one line). */
#define _POSIX_C_SOURCE 200809L /* stat */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lang/body.h"
#include "lang/mf.h"
#include "base/msg.h"
#include "nholo/status.h"

#define BF_MAX_NAMES 256
#define BF_MAX_LINE 4096

typedef struct bf_name {
  char name[NH_PARSE_NAME_MAX + 1];
  int node;
} bf_name;

typedef struct bf_parse {
  nh_expr_pool *pool;
  nh_body_desc *f;
  bf_name names[BF_MAX_NAMES];
  int nnames;
  const char *var;  /* the variable of the current context ("s", "t") or NULL */
  const char *file, *text;
  char *msg;
  size_t msg_size;
  int line;
} bf_parse;

static int lookup(void *user, const char *name, int primed, int *out) {
  bf_parse *P = user;
  if (primed) return NH_SYM_UNKNOWN;
  if (P->var && strcmp(name, P->var) == 0) {
    *out = 0;
    return NH_SYM_VAR;
  }
  for (int i = P->nnames - 1; i >= 0; i--)
    if (strcmp(P->names[i].name, name) == 0) {
      *out = P->names[i].node;
      return NH_SYM_NODE;
    }
  return NH_SYM_UNKNOWN;
}

/* an error at column col (1-based) of the current line */
static int err_at(bf_parse *P, int col, const char *what) {
  nh_parse_error e;
  e.line = P->line, e.col = col;
  snprintf(e.msg, sizeof e.msg, "%s", what);
  nh_parse_error_format(P->msg, P->msg_size, P->file, P->text, &e);
  /* one line: cut at the first newline */
  char *nl = strchr(P->msg, '\n');
  if (nl) *nl = 0;
  return NH_ERR_PARSE;
}

static const char *skip_ws(const char *s) {
  while (*s == ' ' || *s == '\t') s++;
  return s;
}

/* parse a comma-separated list of exactly n (or, when n2 > 0, n2) expressions starting at s
 * (column col0 of the line); *got receives the count */
static int parse_list(bf_parse *P, const char *line, const char *s, int n, int n2, int *nodes, int *got) {
  int k = 0;
  for (;;) {
    nh_parse_error e;
    size_t end = 0;
    int col = (int)(s - line) + 1;
    if (k >= (n2 > n ? n2 : n)) return err_at(P, col, "too many values");
    int rc = nh_parse_expr(P->pool, s, strlen(s), P->line, col, lookup, P, &nodes[k], &end, &e);
    if (rc) {
      nh_parse_error_format(P->msg, P->msg_size, P->file, P->text, &e);
      char *nl = strchr(P->msg, '\n');
      if (nl) *nl = 0;
      return rc;
    }
    k++;
    s = skip_ws(s + end);
    if (*s == ',') {
      s = skip_ws(s + 1);
      continue;
    }
    if (*s && *s != '#') return err_at(P, (int)(s - line) + 1, "unexpected text after the expression");
    break;
  }
  if (k != n && k != n2) {
    char buf[96];
    if (n2 > 0) snprintf(buf, sizeof buf, "expected %d or %d values, got %d", n, n2, k);
    else snprintf(buf, sizeof buf, "expected %d value%s, got %d", n, n == 1 ? "" : "s", k);
    return err_at(P, (int)(s - line) + 1, buf);
  }
  if (got) *got = k;
  return 0;
}

/* the value of a constant node */
static int constant(bf_parse *P, int node, const char *line, const char *at, double *v) {
  if (nh_expr_uses_vars(P->pool, node, 0, 1) != 0) return err_at(P, (int)(at - line) + 1, "must be a constant");
  *v = nh_expr_eval(P->pool, node, NULL);
  if (!isfinite(*v)) return err_at(P, (int)(at - line) + 1, "value is not finite");
  return 0;
}

static int constants(bf_parse *P, const char *line, const char *s, int n, int n2, double *v, int *got) {
  int nodes[8], k;
  int rc = parse_list(P, line, s, n, n2, nodes, &k);
  if (rc) return rc;
  for (int i = 0; i < k; i++)
    if ((rc = constant(P, nodes[i], line, s, &v[i]))) return rc;
  if (got) *got = k;
  return 0;
}

/* read an identifier at s into buf; returns the end or NULL */
static const char *ident(const char *s, char *buf, size_t size) {
  size_t k = 0;
  if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return NULL;
  while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_') {
    if (k + 1 < size) buf[k++] = *s;
    s++;
  }
  buf[k] = 0;
  return s;
}

static nh_body_mass *find_mass(nh_body_desc *f, const char *name) {
  for (int i = 0; i < f->nmass; i++)
    if (strcmp(f->mass[i].name, name) == 0) return &f->mass[i];
  return NULL;
}

/* expect `c` after optional blanks */
static const char *expect(const char *s, char c) {
  s = skip_ws(s);
  return *s == c ? skip_ws(s + 1) : NULL;
}

/* the model language's header: `model NAME` (before `body`), `body ball` or `body disk` */
static int header(bf_parse *P, const char *line, const char *s, const char *kw, int kwcol, int *seen_header) {
  nh_body_desc *f = P->f;
  char name[NH_PARSE_NAME_MAX + 1];
  size_t k = 0;
  while (s[k] && s[k] != ' ' && s[k] != '\t' && s[k] != '#' && k + 1 < sizeof name) name[k] = s[k], k++;
  name[k] = 0;
  if (!k) return err_at(P, (int)(s - line) + 1, kw[1] == 'o' && kw[2] == 'd' ? "expected ball or disk" : "expected a name");
  if (*skip_ws(s + k) && *skip_ws(s + k) != '#') return err_at(P, (int)(skip_ws(s + k) - line) + 1, "unexpected text after the name");
  if (!strcmp(kw, "model")) {
    if (*seen_header) return err_at(P, kwcol, "'model' must come before 'body'");
    if (f->name[0]) return err_at(P, kwcol, "a second 'model' statement");
    snprintf(f->name, sizeof f->name, "%s", name);
    return 0;
  }
  if (*seen_header) return err_at(P, kwcol, "a second 'body' statement");
  if (strcmp(name, "ball") && strcmp(name, "disk")) return err_at(P, (int)(s - line) + 1, "unknown body (expected ball or disk)");
  f->disk = name[0] == 'd';
  if (!f->name[0]) snprintf(f->name, sizeof f->name, "%s", "model");
  *seen_header = 1;
  return 0;
}

static int statement(bf_parse *P, const char *line, int *seen_header, int *seen_m0, int *seen_inertia) {
  nh_body_desc *f = P->f, *p = f;
  char kw[64], name[NH_PARSE_NAME_MAX + 1];
  const char *s = skip_ws(line), *e;
  if (!*s || *s == '#') return 0;
  if (!(e = ident(s, kw, sizeof kw))) return err_at(P, (int)(s - line) + 1, "expected a statement");
  const int kwcol = (int)(s - line) + 1;
  s = skip_ws(e);
  if (!*seen_header && strcmp(kw, "ball") && strcmp(kw, "disk") && strcmp(kw, "model") && strcmp(kw, "body"))
    return err_at(P, kwcol, "the file must start with 'ball NAME' or 'disk NAME'");
  P->var = NULL;
  if (!strcmp(kw, "model") || !strcmp(kw, "body")) return header(P, line, s, kw, kwcol, seen_header);
  if (!strcmp(kw, "ball") || !strcmp(kw, "disk")) {
    if (*seen_header) return err_at(P, kwcol, "a second 'ball'/'disk' statement");
    size_t k = 0;
    while (s[k] && s[k] != ' ' && s[k] != '\t' && s[k] != '#' && k + 1 < sizeof name) name[k] = s[k], k++;
    name[k] = 0;
    if (!k) return err_at(P, (int)(s - line) + 1, "expected a name");
    if (*skip_ws(s + k) && *skip_ws(s + k) != '#') return err_at(P, (int)(skip_ws(s + k) - line) + 1, "unexpected text after the name");
    snprintf(f->name, sizeof f->name, "%s", name);
    f->disk = kw[0] == 'd';
    *seen_header = 1;
    return 0;
  }
  if (!strcmp(kw, "parameter") || !strcmp(kw, "let")) {
    if (!(e = ident(s, name, sizeof name))) return err_at(P, (int)(s - line) + 1, "expected a name");
    const char *v = expect(e, '=');
    if (!v) return err_at(P, (int)(e - line) + 1, "expected '='");
    int node;
    double val;
    int rc = parse_list(P, line, v, 1, 0, &node, NULL);
    if (rc || (rc = constant(P, node, line, v, &val))) return rc;
    if (P->nnames >= BF_MAX_NAMES) return err_at(P, kwcol, "too many names");
    snprintf(P->names[P->nnames].name, sizeof P->names[0].name, "%s", name);
    P->names[P->nnames++].node = node;
    return 0;
  }
  if (!strcmp(kw, "radius") || !strcmp(kw, "gravity") || !strcmp(kw, "mu")) {
    const char *v = expect(s, '=');
    if (!v) return err_at(P, (int)(s - line) + 1, "expected '='");
    return constants(P, line, v, 1, 0, kw[0] == 'r' ? &p->r : kw[0] == 'g' ? &p->g : &p->mu, NULL);
  }
  if (!strcmp(kw, "inertia")) {
    const char *v = expect(s, '=');
    double d[6];
    int k, rc;
    if (!v) return err_at(P, (int)(s - line) + 1, "expected '='");
    if ((rc = constants(P, line, v, 3, 6, d, &k))) return rc;
    memset(p->I, 0, sizeof p->I);
    p->I[0] = d[0], p->I[4] = d[1], p->I[8] = d[2];
    if (k == 6) p->I[1] = p->I[3] = d[3], p->I[2] = p->I[6] = d[4], p->I[5] = p->I[7] = d[5];
    *seen_inertia = 1;
    return 0;
  }
  if (!strcmp(kw, "center")) {
    const char *v = expect(s, '=');
    if (!v) return err_at(P, (int)(s - line) + 1, "expected '='");
    return constants(P, line, v, 3, 0, p->chi0, NULL);
  }
  if (!strcmp(kw, "mass")) {
    if (!(e = ident(s, name, sizeof name))) return err_at(P, (int)(s - line) + 1, "expected a mass name");
    const char *v = expect(e, '=');
    if (!v) return err_at(P, (int)(e - line) + 1, "expected '='");
    if (!strcmp(name, "m0")) {
      *seen_m0 = 1;
      return constants(P, line, v, 1, 0, &p->m0, NULL);
    }
    if (find_mass(f, name)) return err_at(P, (int)(s - line) + 1, "mass declared twice");
    if (f->nmass >= NH_BODY_MAX_MASSES) return err_at(P, (int)(s - line) + 1, "too many masses");
    nh_body_mass *m = &f->mass[f->nmass];
    snprintf(m->name, sizeof m->name, "%s", name);
    int rc = constants(P, line, v, 1, 0, &m->m, NULL);
    if (rc) return rc;
    f->nmass++;
    return 0;
  }
  if (!strcmp(kw, "rail") || !strcmp(kw, "input") || !strcmp(kw, "trajectory")) {
    if (!(e = ident(s, name, sizeof name))) return err_at(P, (int)(s - line) + 1, "expected a mass name");
    nh_body_mass *m = find_mass(f, name);
    if (!m) return err_at(P, (int)(s - line) + 1, "unknown mass (declare it first with 'mass NAME = ...')");
    const char *v = expect(e, ':');
    if (!v) return err_at(P, (int)(e - line) + 1, "expected ':'");
    if (kw[0] == 'r') {
      P->var = "s";
      m->has_rail = 1;
      return parse_list(P, line, v, 3, 0, m->rail, NULL);
    }
    if (m->drive) return err_at(P, kwcol, "the mass already has an input or trajectory");
    P->var = "t";
    m->drive = kw[0] == 'i' ? 1 : 2;
    return parse_list(P, line, v, 1, 0, &m->drv, NULL);
  }
  if (!strcmp(kw, "force")) {
    const char *v = expect(s, '=');
    if (!v) return err_at(P, (int)(s - line) + 1, "expected '='");
    P->var = "t";
    f->has_force = 1;
    return parse_list(P, line, v, 3, 0, f->force, NULL);
  }
  if (!strcmp(kw, "initial")) {
    if (!(e = ident(s, name, sizeof name))) return err_at(P, (int)(s - line) + 1, "expected q, Om, position or a mass name");
    const char *v = expect(e, '=');
    if (!v) return err_at(P, (int)(e - line) + 1, "expected '='");
    if (!strcmp(name, "q")) return constants(P, line, v, 4, 0, p->q0, NULL);
    if (!strcmp(name, "Om")) return constants(P, line, v, 3, 0, p->Om0, NULL);
    if (!strcmp(name, "position")) return constants(P, line, v, 2, 0, p->zxy0, NULL);
    nh_body_mass *m = find_mass(f, name);
    if (!m) return err_at(P, (int)(s - line) + 1, "expected q, Om, position or a declared mass");
    double th[2];
    int rc = constants(P, line, v, 2, 0, th, NULL);
    if (rc) return rc;
    m->theta0 = th[0], m->thetad0 = th[1];
    return 0;
  }
  return err_at(P, kwcol, "unknown statement");
}

int nh_body_text_is_body(const char *text) {
  for (const char *s = text; s && *s;) {
    while (*s == ' ' || *s == '\t') s++;
    if (!strncmp(s, "body", 4) && (s[4] == ' ' || s[4] == '\t')) return 1;
    if ((!strncmp(s, "ball", 4) || !strncmp(s, "disk", 4)) && (s[4] == ' ' || s[4] == '\t')) return 1;
    s = strchr(s, '\n');
    if (s) s++;
  }
  return 0;
}

void nh_body_free(nh_body_desc *d) {
  if (!d) return;
  nh_expr_pool_destroy(d->pool);
  d->pool = NULL;
}

int nh_body_parse(const char *text, const char *file, nh_body_desc *d, char *msg, size_t msg_size) {
  memset(d, 0, sizeof *d);
  bf_parse *P = calloc(1, sizeof *P);
  d->pool = nh_expr_pool_create();
  if (!P || !d->pool || !text) {
    free(P), nh_body_free(d);
    nh_set_msg(msg, msg_size, text ? "out of memory" : "no text given");
    return text ? NH_ERR_NOMEM : NH_ERR_ARG;
  }
  P->pool = d->pool, P->f = d, P->file = file ? file : "<input>", P->text = text;
  P->msg = msg, P->msg_size = msg_size;
  d->r = 1.0, d->g = 1.0, d->q0[0] = 1.0;
  int seen_header = 0, seen_m0 = 0, seen_inertia = 0, rc = 0;
  char line[BF_MAX_LINE];
  const char *s = text;
  for (P->line = 1; *s && rc == 0; P->line++) {
    const char *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    if (len >= sizeof line) {
      rc = err_at(P, 1, "line too long");
      break;
    }
    memcpy(line, s, len);
    line[len] = 0;
    if (len && line[len - 1] == '\r') line[len - 1] = 0;
    rc = statement(P, line, &seen_header, &seen_m0, &seen_inertia);
    s = nl ? nl + 1 : s + len;
  }
  // completeness: what a ball needs
  if (rc == 0) {
    const char *missing = !seen_header ? "'ball NAME' or 'disk NAME'" : !seen_m0 ? "'mass m0 = ...'"
                                       : !seen_inertia ? "'inertia = ...'" : NULL;
    char buf[128];
    for (int i = 0; !missing && i < d->nmass; i++)
      if (!d->mass[i].has_rail) {
        snprintf(buf, sizeof buf, "'rail %s: ...'", d->mass[i].name);
        missing = buf;
      }
    if (missing) {
      nh_set_msg(msg, msg_size, "%s: error: missing %s", P->file, missing);
      rc = NH_ERR_PARSE;
    }
  }
  free(P);
  if (rc) nh_body_free(d);
  return rc;
}

int nh_model_file_is_body(const char *path) {
  struct stat sb; /* a regular file only: never wait on a FIFO or device */
  if (!path || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
  char msg[256];
  char *text = mf_read_file(path, msg, sizeof msg);
  int body = text && nh_body_text_is_body(text);
  free(text);
  return body;
}
