/* cursor.c - the tokens of a statement: names, characters, expressions and constants at a
 * cursor over the cleaned text of a model file (read.c, contact.c), with located errors. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lang/mf.h"
#include "nholo/status.h"

void mf_skip_ws(mf_cursor *c) {
  while (c->pos < c->end && isspace((unsigned char)c->m->clean[c->pos])) c->pos++;
}
int mf_at_end(mf_cursor *c) {
  mf_skip_ws(c);
  return c->pos >= c->end;
}
/* read a NAME into out; 0 when there is none */
int mf_read_name(mf_cursor *c, char *out) {
  mf_skip_ws(c);
  const char *s = c->m->clean;
  size_t i = c->pos;
  if (i >= c->end || !(isalpha((unsigned char)s[i]) || s[i] == '_')) return 0;
  while (i < c->end && (isalnum((unsigned char)s[i]) || s[i] == '_')) i++;
  if (i - c->pos > NH_PARSE_NAME_MAX) {
    mf_fail(c->m, c->pos, "name longer than %d characters", NH_PARSE_NAME_MAX);
    return 0;
  }
  memcpy(out, s + c->pos, i - c->pos);
  out[i - c->pos] = '\0';
  c->pos = i;
  return 1;
}
int mf_accept_char(mf_cursor *c, char ch) {
  mf_skip_ws(c);
  if (c->pos < c->end && c->m->clean[c->pos] == ch) {
    c->pos++;
    return 1;
  }
  return 0;
}
/* describe the token at the cursor (a name or number, else one character), for "expected X,
 * found Y" */
static const char *found(mf_cursor *c, char *buf, size_t size) {
  mf_skip_ws(c);
  if (c->pos >= c->end) return "the end of the statement";
  const char *s = c->m->clean + c->pos;
  size_t n = 0, max = c->end - c->pos;
  while (n < max && (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '.')) n++;
  if (n == 0) n = 1;
  if (!isprint((unsigned char)s[0])) {
    snprintf(buf, size, "byte 0x%02x", (unsigned)(unsigned char)s[0]);
    return buf;
  }
  snprintf(buf, size, "'%.*s'", (int)(n > 24 ? 24 : n), s);
  return buf;
}
/* "expected X, found Y" at the cursor; at the end of the statement, just after its last
 * character (not on a line below it) */
int mf_expect_fail(mf_cursor *c, const char *what) {
  char buf[40];
  const char *f = found(c, buf, sizeof buf);
  size_t at = c->pos;
  if (at >= c->end) {
    at = c->end;
    while (at > 0 && isspace((unsigned char)c->m->clean[at - 1])) at--;
  }
  return mf_fail(c->m, at, "expected %s, found %s", what, f);
}


/* parse an expression at the cursor; stops before '=', ',', ':' or a name after a complete
 * expression when stop is set, else runs to the end of the statement */
int mf_expr_at(mf_cursor *c, int stop, int *node) {
  mf *m = c->m;
  mf_skip_ws(c);
  int line = c->line, col = c->col; /* position of c->pos, for the parser's diagnostics */
  for (size_t i = c->start; i < c->pos; i++) {
    if (m->text[i] == '\n')
      line++, col = 1;
    else
      col++;
  }
  size_t end = 0;
  nh_parse_error err;
  int st = nh_parse_expr(m->pool, m->clean + c->pos, c->end - c->pos, line, col, mf_lookup, m, node,
                         stop ? &end : NULL, &err);
  if (st != NH_OK) {
    if (!m->status) m->status = st, m->err = err;
    return -1;
  }
  c->pos += stop ? end : c->end - c->pos;
  return 0;
}

const char *mf_set_note(const mf *m, char *buf, size_t size) {
  const int k = m->set_read - 1;
  if (k < 0 || !m->opts || k >= m->opts->nset) return "";
  snprintf(buf, size, " (from --set %s=%g)", m->opts->set_names[k], m->opts->set_values[k]);
  return buf;
}

/* a constant expression (parameters, numbers, pi) */
int mf_const_expr_at(mf_cursor *c, int stop, const char *what, double *value) {
  size_t start = (mf_skip_ws(c), c->pos);
  int node;
  c->m->set_read = 0; /* (set by mf_lookup) */
  if (mf_expr_at(c, stop, &node)) return -1;
  if (!nh_expr_is_const(c->m->pool, node, value)) {
    mf *m = c->m; /* name the first coordinate, velocity or t it reads */
    for (int k = 0; k <= 2 * m->nq; k++)
      if (nh_expr_uses_vars(m->pool, node, k, k + 1) > 0)
        return mf_fail(m, start, "%s must be a constant (numbers, pi and parameters), but it "
                                 "depends on %s%s", what, k == 2 * m->nq ? "t" : m->coord[k % m->nq],
                       k >= m->nq && k < 2 * m->nq ? "'" : "");
    return mf_fail(m, start, "%s must be a constant (numbers, pi and parameters only)", what);
  }
  char note[NH_PARSE_NAME_MAX + 64];
  if (!isfinite(*value)) return mf_fail(c->m, start, "%s is not finite (%g)%s", what, *value, mf_set_note(c->m, note, sizeof note));
  return 0;
}

