/* ball_file.c - user-described balls and disks: a small line-oriented format in the style of
 * the model language (issue 3), parsed with its expression parser (expr/parse.h), rails and
 * inputs compiled to tapes (expr/tape.h) with exact derivatives (nh_expr_diff).
 *
 *   # comment
 *   ball NAME                       (or: disk NAME - the planar equations)
 *   parameter NAME = EXPR           constants; EXPR may use earlier parameters, lets and pi
 *   let NAME = EXPR
 *   radius = EXPR                   r (default 1)
 *   gravity = EXPR                  g (default 1)
 *   mass m0 = EXPR                  the ball with its static structure (required)
 *   inertia = D1, D2, D3            m0's principal moments about its centre of mass, or
 *   inertia = I11, I22, I33, I12, I13, I23   a full symmetric tensor
 *   center = X, Y, Z                chi0, the centre of mass of m0 from the GC (default 0)
 *   mass NAME = EXPR                a moving point mass (in the order of declaration)
 *   rail NAME: X(s), Y(s), Z(s)     its rail in the body frame at the GC, parameter s
 *   input NAME: U(t)                theta'' = U(t), or
 *   trajectory NAME: TH(t)          theta(t) prescribed (theta'' = TH''(t), theta(0), theta'(0))
 *   initial NAME = TH0, THD0        theta(0), theta'(0) of an input-driven mass (default 0, 0)
 *   initial q = Q0, Q1, Q2, Q3      orientation (unit quaternion, default 1, 0, 0, 0)
 *   initial Om = W1, W2, W3         body angular velocity (default 0)
 *   initial position = X, Y         contact point (default 0, 0)
 *   force = FX(t), FY(t), FZ(t)     external force at the GC (default 0)
 *   mu = EXPR                       friction coefficient of the slip monitor (default none)
 * Errors: "FILE:LINE:COL: error: what" with the line and a caret. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "expr/parse.h"
#include "expr/tape.h"
#include "base/msg.h"
#include "nholo/ball.h"

#define BF_MAX_NAMES 256
#define BF_MAX_LINE 4096

typedef struct bf_name {
  char name[NH_PARSE_NAME_MAX + 1];
  int node;
} bf_name;

typedef struct bf_mass {
  char name[NH_PARSE_NAME_MAX + 1];
  int has_rail, drive; /* drive: 0 none, 1 input, 2 trajectory */
  int rail[3], drv;    /* node ids */
  nh_tape *rail_tape;  /* zeta, zeta', zeta'' (9 outputs) of s */
  nh_tape *drive_tape; /* u(t) (1 output) */
} bf_mass;

struct nh_ball_file {
  nh_ball_params p;
  int disk;
  char name[NH_MAX_NAME];
  int nmass;
  bf_mass mass[NH_BALL_MAX_MASSES];
  int force[3], has_force;
  nh_tape *force_tape;
  double *slots; /* scratch of the largest tape */
};

/* parse state */
typedef struct bf_parse {
  nh_expr_pool *pool;
  nh_ball_file *f;
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

static bf_mass *find_mass(nh_ball_file *f, const char *name) {
  for (int i = 0; i < f->nmass; i++)
    if (strcmp(f->mass[i].name, name) == 0) return &f->mass[i];
  return NULL;
}

/* expect `c` after optional blanks */
static const char *expect(const char *s, char c) {
  s = skip_ws(s);
  return *s == c ? skip_ws(s + 1) : NULL;
}

static int statement(bf_parse *P, const char *line, int *seen_header, int *seen_m0, int *seen_inertia) {
  nh_ball_file *f = P->f;
  nh_ball_params *p = &f->p;
  char kw[64], name[NH_PARSE_NAME_MAX + 1];
  const char *s = skip_ws(line), *e;
  if (!*s || *s == '#') return 0;
  if (!(e = ident(s, kw, sizeof kw))) return err_at(P, (int)(s - line) + 1, "expected a statement");
  const int kwcol = (int)(s - line) + 1;
  s = skip_ws(e);
  if (!*seen_header && strcmp(kw, "ball") && strcmp(kw, "disk"))
    return err_at(P, kwcol, "the file must start with 'ball NAME' or 'disk NAME'");
  P->var = NULL;
  if (!strcmp(kw, "ball") || !strcmp(kw, "disk")) {
    if (*seen_header) return err_at(P, kwcol, "a second 'ball'/'disk' statement");
    size_t k = 0;
    while (s[k] && s[k] != ' ' && s[k] != '\t' && s[k] != '#' && k + 1 < sizeof name) name[k] = s[k], k++;
    name[k] = 0;
    if (!k) return err_at(P, (int)(s - line) + 1, "expected a name");
    if (*skip_ws(s + k) && *skip_ws(s + k) != '#') return err_at(P, (int)(skip_ws(s + k) - line) + 1, "unexpected text after the name");
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->p.name, sizeof f->p.name, "%s", name);
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
    if (f->nmass >= NH_BALL_MAX_MASSES) return err_at(P, (int)(s - line) + 1, "too many masses");
    bf_mass *m = &f->mass[f->nmass];
    snprintf(m->name, sizeof m->name, "%s", name);
    int rc = constants(P, line, v, 1, 0, &p->m[f->nmass], NULL);
    if (rc) return rc;
    f->nmass++;
    return 0;
  }
  if (!strcmp(kw, "rail") || !strcmp(kw, "input") || !strcmp(kw, "trajectory")) {
    if (!(e = ident(s, name, sizeof name))) return err_at(P, (int)(s - line) + 1, "expected a mass name");
    bf_mass *m = find_mass(f, name);
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
    bf_mass *m = find_mass(f, name);
    if (!m) return err_at(P, (int)(s - line) + 1, "expected q, Om, position or a declared mass");
    double th[2];
    int rc = constants(P, line, v, 2, 0, th, NULL);
    if (rc) return rc;
    p->theta0[m - f->mass] = th[0], p->thetad0[m - f->mass] = th[1];
    return 0;
  }
  return err_at(P, kwcol, "unknown statement");
}

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

/* compile rails (value, first and second derivative in s), drives and the force */
static int compile(bf_parse *P) {
  nh_ball_file *f = P->f;
  int maxslots = 1;
  for (int i = 0; i < f->nmass; i++) {
    bf_mass *m = &f->mass[i];
    int out[9];
    for (int c = 0; c < 3; c++) {
      out[c] = m->rail[c];
      out[3 + c] = nh_expr_diff(P->pool, out[c], 0);
      out[6 + c] = nh_expr_diff(P->pool, out[3 + c], 0);
    }
    m->rail_tape = nh_tape_create(P->pool, 9, out);
    if (m->drive) {
      int u = m->drv;
      if (m->drive == 2) { /* theta(t): theta'' and the initial values */
        int d1 = nh_expr_diff(P->pool, m->drv, 0);
        u = nh_expr_diff(P->pool, d1, 0);
        double t0 = 0.0;
        f->p.theta0[i] = nh_expr_eval(P->pool, m->drv, &t0);
        f->p.thetad0[i] = nh_expr_eval(P->pool, d1, &t0);
      }
      m->drive_tape = nh_tape_create(P->pool, 1, &u);
      if (!m->drive_tape) return NH_ERR_NOMEM;
      if (nh_tape_nslots(m->drive_tape) > maxslots) maxslots = nh_tape_nslots(m->drive_tape);
    }
    if (!m->rail_tape) return NH_ERR_NOMEM;
    if (nh_tape_nslots(m->rail_tape) > maxslots) maxslots = nh_tape_nslots(m->rail_tape);
  }
  if (f->has_force) {
    f->force_tape = nh_tape_create(P->pool, 3, f->force);
    if (!f->force_tape) return NH_ERR_NOMEM;
    if (nh_tape_nslots(f->force_tape) > maxslots) maxslots = nh_tape_nslots(f->force_tape);
  }
  f->slots = calloc((size_t)maxslots, sizeof(double));
  return f->slots ? 0 : NH_ERR_NOMEM;
}

nh_ball_file *nh_ball_file_parse(const char *text, const char *file, char *msg, size_t msg_size) {
  nh_set_msg(msg, msg_size, "%s", "");
  nh_ball_file *f = calloc(1, sizeof *f);
  bf_parse *P = calloc(1, sizeof *P);
  nh_expr_pool *pool = nh_expr_pool_create();
  if (!f || !P || !pool || !text) {
    free(f), free(P), nh_expr_pool_destroy(pool);
    nh_set_msg(msg, msg_size, text ? "out of memory" : "no text given");
    return NULL;
  }
  P->pool = pool, P->f = f, P->file = file ? file : "<input>", P->text = text;
  P->msg = msg, P->msg_size = msg_size;
  f->p.r = 1.0, f->p.g = 1.0, f->p.q0[0] = 1.0;
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
    for (int i = 0; !missing && i < f->nmass; i++)
      if (!f->mass[i].has_rail) {
        snprintf(buf, sizeof buf, "'rail %s: ...'", f->mass[i].name);
        missing = buf;
      }
    if (missing) {
      nh_set_msg(msg, msg_size, "%s: error: missing %s", P->file, missing);
      rc = NH_ERR_PARSE;
    }
  }
  if (rc == 0) {
    f->p.n = f->nmass;
    if ((rc = compile(P))) nh_set_msg(msg, msg_size, "%s: out of memory", P->file);
  }
  nh_expr_pool_destroy(pool);
  free(P);
  if (rc) {
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
