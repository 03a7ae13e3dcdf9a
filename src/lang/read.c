/* read.c - the statements of a model file (docs/model-language.md).
 *
 * A statement is one line, continued onto the next while a parenthesis is open, or when
 * the line ends with an operator or a comma ('+ - * / ^ ( , = :'), or with a backslash.
 * Comments ('#' to the end of the line) and backslashes are blanked in a copy of the text
 * with the same offsets, so the expression parser reads a statement as one span and every
 * diagnostic still points into the original text. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/mf.h"
#include "nholo/status.h"

int mf_fail(mf *m, size_t off, const char *fmt, ...) {
  if (m->status) return -1;
  m->status = NH_ERR_PARSE;
  int line = 1, col = 1;
  for (size_t i = 0; i < off && i < m->len; i++) {
    if (m->text[i] == '\n')
      line++, col = 1;
    else
      col++;
  }
  m->err.line = line, m->err.col = col;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->err.msg, sizeof m->err.msg, fmt, ap);
  va_end(ap);
  return -1;
}

/* 1-based line of byte offset off of the text */
static int line_of(const mf *m, size_t off) {
  int line = 1;
  for (size_t i = 0; i < off && i < m->len; i++) line += m->text[i] == '\n';
  return line;
}

/* just after the last character of the text that is not white space (errors about what the
 * file lacks point there, on a line that exists) */
static size_t text_end(const mf *m) {
  size_t e = m->len;
  while (e > 0 && isspace((unsigned char)m->text[e - 1])) e--;
  return e;
}

/* ---- the cleaned copy --------------------------------------------------------------------- */

static int clean_text(mf *m) {
  m->clean = malloc(m->len + 1);
  if (!m->clean) return NH_ERR_NOMEM;
  memcpy(m->clean, m->text, m->len + 1);
  int in_comment = 0;
  for (size_t i = 0; i < m->len; i++) {
    char ch = m->clean[i];
    if (ch == '\n') in_comment = 0;
    else if (ch == '#') in_comment = 1;
    if (in_comment) m->clean[i] = ' ';
    if (ch == '\0') return mf_fail(m, i, "unexpected NUL byte in the text"), NH_ERR_PARSE;
  }
  return NH_OK;
}

static int is_keyword(const char *s, size_t n);

/* 1 when the line at offset j of the cleaned text reads like a statement: a keyword, white
 * space, then something other than a binary operator ("potential 0", not "gap * 2" where
 * gap is a parameter continuing an expression) */
static int starts_statement(const mf *m, size_t j) {
  const char *s = m->clean;
  while (j < m->len && (s[j] == ' ' || s[j] == '\t')) j++;
  size_t w = j;
  while (w < m->len && (isalnum((unsigned char)s[w]) || s[w] == '_')) w++;
  if (!is_keyword(s + j, w - j) || w >= m->len || (s[w] != ' ' && s[w] != '\t' && s[w] != '\r' && s[w] != '\n'))
    return 0;
  while (w < m->len && (s[w] == ' ' || s[w] == '\t' || s[w] == '\r')) w++;
  return w >= m->len || !strchr("+-*/^),=:'", s[w]);
}

/* end (exclusive) of the statement that starts at off: join lines as documented, except
 * that a following line that starts a statement (starts_statement) is never joined, so an
 * unbalanced '(' or a dangling operator is reported on its own statement */
static size_t statement_end(mf *m, size_t off) {
  const char *s = m->clean;
  int depth = 0;
  size_t i = off;
  for (;;) {
    char last = 0;
    size_t bs = (size_t)-1;
    while (i < m->len && s[i] != '\n') {
      char ch = s[i];
      if (ch == '(') depth++;
      else if (ch == ')') depth--;
      if (!isspace((unsigned char)ch)) last = ch, bs = ch == '\\' ? i : (size_t)-1;
      i++;
    }
    if (i >= m->len) return m->len;
    int joined = (last && strchr("+-*/^(,=:", last)) || bs != (size_t)-1 || depth > 0;
    if (bs != (size_t)-1) m->clean[bs] = ' ';
    if (!joined || starts_statement(m, i + 1)) return i;
    i++; /* continue on the next line */
  }
}

/* ---- tokens inside a statement: the cursor (cursor.c) ----------------------------------------- */

typedef mf_cursor cursor;
#define skip_ws mf_skip_ws
#define at_end mf_at_end
#define read_name mf_read_name
#define accept_char mf_accept_char
#define expect_fail mf_expect_fail
#define expr_at mf_expr_at
#define const_expr_at mf_const_expr_at

/* ---- symbols -------------------------------------------------------------------------------- */

static int find(const mf_item *items, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(items[i].name, name) == 0) return i;
  return -1;
}
static int find_coord(const mf *m, const char *name) {
  for (int i = 0; i < m->nq; i++)
    if (strcmp(m->coord[i], name) == 0) return i;
  return -1;
}

/* a name that a new symbol may take; fails with a located reason */
static int check_new_name(mf *m, size_t off, const char *name, const char *what) {
  int arity;
  if (nh_expr_func_find(name, strlen(name), &arity) >= 0 || strcmp(name, "pi") == 0 ||
      strcmp(name, "t") == 0)
    return mf_fail(m, off, "'%s' is reserved and cannot name a %s", name, what);
  int i;
  if (find_coord(m, name) >= 0)
    return mf_fail(m, off, "duplicate name '%s': already a coordinate (line %d)", name,
                   line_of(m, m->coord_off));
  if ((i = find(m->par, m->npar, name)) >= 0)
    return mf_fail(m, off, "duplicate name '%s': already a parameter (line %d)", name,
                   line_of(m, m->par[i].off));
  if ((i = find(m->let, m->nlet, name)) >= 0)
    return mf_fail(m, off, "duplicate name '%s': already a let (line %d)", name,
                   line_of(m, m->let[i].off));
  return 0;
}

static int override_of(mf *m, const char *name, int primed);

/* the expression parser's name lookup */
int mf_lookup(void *user, const char *name, int primed, int *out) {
  mf *m = user;
  if (strchr(name, '(')) return mf_lookup_call(m, name, out); /* lambda(C) */
  int i = find_coord(m, name);
  if (i >= 0) {
    *out = primed ? m->nq + i : i;
    return NH_SYM_VAR;
  }
  if (primed) return NH_SYM_NOT_COORD;
  if (strcmp(name, "t") == 0 && (!m->poisson || m->in_monitor)) {
    *out = 2 * m->nq;
    return NH_SYM_VAR;
  }
  if ((i = find(m->par, m->npar, name)) >= 0) {
    const int k = override_of(m, name, 0);
    if (k >= 0 && !m->set_read) m->set_read = k + 1; /* the value is an override's (mf_set_note) */
    *out = nh_expr_const(m->pool, m->par[i].value);
    return *out >= 0 ? NH_SYM_NODE : NH_SYM_UNKNOWN;
  }
  if ((i = find(m->let, m->nlet, name)) >= 0) {
    *out = m->let[i].node;
    return NH_SYM_NODE;
  }
  return NH_SYM_UNKNOWN;
}

/* which override names this symbol (name, or name' when primed), or -1 */
static int override_of(mf *m, const char *name, int primed) {
  const nh_load_opts *o = m->opts;
  for (int i = 0; o && i < o->nset; i++) {
    const char *s = o->set_names[i];
    size_t n = strlen(name);
    if (strncmp(s, name, n) == 0 && ((primed && strcmp(s + n, "'") == 0) || (!primed && s[n] == '\0'))) {
      m->set_used[i] = 1;
      return i;
    }
  }
  return -1;
}

/* an expression with no velocities and no time (potential, gap): checked by the caller */
static int uses(const mf *m, int node, int lo, int hi) { return nh_expr_uses_vars(m->pool, node, lo, hi); }

/* ---- statements ------------------------------------------------------------------------------ */

static int st_model(cursor *c, size_t off) {
  mf *m = c->m;
  if (m->name[0]) return mf_fail(m, off, "a second 'model' statement (the model is '%s')", m->name);
  if (!read_name(c, m->name)) return expect_fail(c, "a model name");
  if (!at_end(c)) return expect_fail(c, "the end of the statement after the model name");
  return 0;
}

/* coordinates NAMES   and   state NAMES (an almost-Poisson model) */
static int st_coordinates(cursor *c, size_t off, int state) {
  mf *m = c->m;
  if (m->nq)
    return mf_fail(m, off, "a second '%s' statement (the first is at line %d)",
                   m->poisson ? "state" : "coordinates", line_of(m, m->coord_off));
  m->coord_off = off;
  m->poisson = state;
  char name[NH_PARSE_NAME_MAX + 1];
  while (!at_end(c)) {
    size_t off = c->pos;
    const char *what = state ? "state variable" : "coordinate";
    if (!read_name(c, name)) return m->status ? -1 : expect_fail(c, state ? "a state variable name" : "a coordinate name");
    if (check_new_name(m, off, name, what)) return -1;
    if (m->nq >= NH_MF_MAX_Q) return mf_fail(m, off, "more than %d %ss", NH_MF_MAX_Q, what);
    snprintf(m->coord[m->nq++], sizeof m->coord[0], "%s", name);
    accept_char(c, ',');
  }
  if (!m->nq) return expect_fail(c, state ? "state variable names" : "coordinate names");
  for (int i = 0; i < m->nq; i++) m->force[i] = -1;
  return 0;
}

/* hamiltonian EXPR (almost-Poisson models) */
static int st_hamiltonian(cursor *c, size_t off) {
  mf *m = c->m;
  if (m->ham >= 0) return mf_fail(m, off, "a second 'hamiltonian' statement");
  m->ham_off = (skip_ws(c), c->pos);
  return expr_at(c, 0, &m->ham);
}

/* poisson A B: EXPR  sets Pi[A,B] = EXPR and Pi[B,A] = -EXPR */
static int st_poisson(cursor *c, size_t off) {
  mf *m = c->m;
  if (m->npi >= NH_MF_MAX_ITEMS) return mf_fail(m, off, "more than %d poisson entries", NH_MF_MAX_ITEMS);
  int ab[2];
  for (int k = 0; k < 2; k++) {
    char name[NH_PARSE_NAME_MAX + 1];
    size_t noff = (skip_ws(c), c->pos);
    if (!read_name(c, name)) return m->status ? -1 : expect_fail(c, "a state variable");
    if ((ab[k] = find_coord(m, name)) < 0) return mf_fail(m, noff, "'%s' is not a state variable", name);
    if (k == 1 && ab[1] == ab[0])
      return mf_fail(m, noff, "the diagonal of Pi is zero (Pi is skew-symmetric): name two different variables");
  }
  for (int i = 0; i < m->npi; i++)
    if ((m->pi_a[i] == ab[0] && m->pi_b[i] == ab[1]) || (m->pi_a[i] == ab[1] && m->pi_b[i] == ab[0]))
      return mf_fail(m, off, "Pi[%s,%s] is given twice (the first at line %d)", m->coord[ab[0]],
                     m->coord[ab[1]], line_of(m, m->pi_off[i]));
  if (!accept_char(c, ':')) return expect_fail(c, "':' after the two state variables");
  m->pi_a[m->npi] = ab[0], m->pi_b[m->npi] = ab[1];
  m->pi_off[m->npi] = (skip_ws(c), c->pos);
  if (expr_at(c, 0, &m->pi_node[m->npi])) return -1;
  m->npi++;
  return 0;
}

static int need_coordinates(cursor *c, size_t off) {
  if (c->m->nq) return 0;
  return mf_fail(c->m, off, "this statement needs the coordinates: declare them first "
                            "('coordinates x y ...')");
}

/* parameter NAME = EXPR   and   let NAME = EXPR */
static int st_binding(cursor *c, int is_let) {
  mf *m = c->m;
  char name[NH_PARSE_NAME_MAX + 1];
  size_t off = (skip_ws(c), c->pos);
  if (!read_name(c, name)) return m->status ? -1 : expect_fail(c, is_let ? "a name" : "a parameter name");
  if (check_new_name(m, off, name, is_let ? "let" : "parameter")) return -1;
  if (!accept_char(c, '=')) return expect_fail(c, "'='");
  mf_item *it = is_let ? &m->let[m->nlet] : &m->par[m->npar];
  if ((is_let ? m->nlet : m->npar) >= NH_MF_MAX_ITEMS)
    return mf_fail(m, off, "more than %d %s", NH_MF_MAX_ITEMS, is_let ? "lets" : "parameters");
  memset(it, 0, sizeof *it);
  snprintf(it->name, sizeof it->name, "%s", name);
  it->off = off;
  if (is_let) {
    if (expr_at(c, 0, &it->node)) return -1;
    m->nlet++;
    return 0;
  }
  char what[NH_PARSE_NAME_MAX + 20];
  snprintf(what, sizeof what, "parameter '%s'", name);
  if (const_expr_at(c, 0, what, &it->value)) return -1;
  int k = override_of(m, name, 0);
  if (k >= 0) it->value = m->opts->set_values[k];
  m->npar++;
  return 0;
}

/* kinetic EXPR   and   potential EXPR */
static int st_energy(cursor *c, int kinetic, size_t off) {
  mf *m = c->m;
  if (need_coordinates(c, off)) return -1;
  int *slot = kinetic ? &m->kinetic : &m->potential;
  if (*slot >= 0) return mf_fail(m, off, "a second '%s' statement", kinetic ? "kinetic" : "potential");
  (kinetic ? &m->kinetic_off : &m->potential_off)[0] = (skip_ws(c), c->pos);
  int node;
  if (expr_at(c, 0, &node)) return -1;
  *slot = node;
  return 0;
}

/* force COORD: EXPR (forces on one coordinate add up) */
static int st_force(cursor *c, size_t off) {
  mf *m = c->m;
  if (need_coordinates(c, off)) return -1;
  char name[NH_PARSE_NAME_MAX + 1];
  size_t noff = (skip_ws(c), c->pos);
  if (!read_name(c, name)) return m->status ? -1 : expect_fail(c, "a coordinate name");
  int i = find_coord(m, name);
  if (i < 0) return mf_fail(m, noff, "'%s' is not a coordinate (a force acts on a coordinate)", name);
  if (!accept_char(c, ':')) return expect_fail(c, "':' after the coordinate");
  int node;
  if (expr_at(c, 0, &node)) return -1;
  if (m->force[i] < 0) {
    m->force[i] = node;
    m->force_off[i] = off;
  } else if ((m->force[i] = nh_expr_add(m->pool, m->force[i], node)) < 0) {
    return mf_fail(m, off, "out of memory");
  }
  return 0;
}

/* constraint [NAME:] LHS = RHS   and   holonomic [NAME:] LHS = RHS (LHS, RHS of q only: the
 * constraint is then d(LHS - RHS)/dq q' = 0) */
static int st_constraint(cursor *c, size_t off, int holonomic) {
  mf *m = c->m;
  if (need_coordinates(c, off)) return -1;
  if (m->nc >= NH_MF_MAX_CON) return mf_fail(m, off, "more than %d constraints", NH_MF_MAX_CON);
  mf_item *it = &m->con[m->nc];
  memset(it, 0, sizeof *it);
  it->off = c->pos;
  /* an optional NAME: (a name followed by ':') */
  cursor save = *c;
  char name[NH_PARSE_NAME_MAX + 1];
  size_t noff = (skip_ws(c), c->pos);
  if (read_name(c, name) && accept_char(c, ':')) {
    int i = find(m->con, m->nc, name);
    if (i >= 0)
      return mf_fail(m, noff, "duplicate constraint name '%s' (the first is at line %d)", name,
                     line_of(m, m->con[i].off));
    snprintf(it->name, sizeof it->name, "%s", name);
  } else {
    if (m->status) return -1;
    *c = save;
    snprintf(it->name, sizeof it->name, "c%d", m->nc + 1);
  }
  it->off = (skip_ws(c), c->pos);
  int lhs, rhs;
  if (expr_at(c, 1, &lhs)) return -1;
  if (!accept_char(c, '=')) return expect_fail(c, "'=' (a constraint is written LHS = RHS)");
  if (expr_at(c, 0, &rhs)) return -1;
  if ((it->node = nh_expr_sub(m->pool, lhs, rhs)) < 0) return mf_fail(m, off, "out of memory");
  if (holonomic) {
    if (uses(m, it->node, m->nq, 2 * m->nq + 1) > 0)
      return mf_fail(m, it->off, "holonomic constraint '%s' depends on velocities or time (it is a "
                                 "function of the coordinates, phi(q) = 0)", it->name);
    /* the velocity form dphi/dq q' = 0 */
    int phi = it->node, rate = nh_expr_const(m->pool, 0.0);
    for (int j = 0; j < m->nq && rate >= 0; j++)
      rate = nh_expr_add(m->pool, rate, nh_expr_mul(m->pool, nh_expr_diff(m->pool, phi, j),
                                                    nh_expr_var(m->pool, m->nq + j)));
    if (rate < 0) return mf_fail(m, off, "out of memory");
    it->holonomic = 1, it->phi = phi, it->node = rate;
  }
  m->nc++;
  return 0;
}

/* group se2 THETA X Y: the coordinates of a planar pose; the others are shape variables */
static int st_group(cursor *c, size_t off) {
  mf *m = c->m;
  if (need_coordinates(c, off)) return -1;
  if (m->has_se2) return mf_fail(m, off, "a second 'group' statement");
  char name[NH_PARSE_NAME_MAX + 1];
  size_t noff = (skip_ws(c), c->pos);
  if (!read_name(c, name)) return m->status ? -1 : expect_fail(c, "a group name (se2)");
  if (strcmp(name, "se2") != 0)
    return mf_fail(m, noff, "unknown group '%s' (expected se2)", name);
  static const char *const role[3] = {"the heading (theta)", "the x position", "the y position"};
  for (int k = 0; k < 3; k++) {
    noff = (skip_ws(c), c->pos);
    if (!read_name(c, name)) return m->status ? -1 : expect_fail(c, role[k]);
    int i = find_coord(m, name);
    if (i < 0) return mf_fail(m, noff, "'%s' is not a coordinate (expected %s)", name, role[k]);
    for (int j = 0; j < k; j++)
      if (m->se2[j] == i) return mf_fail(m, noff, "'%s' is named twice in the group", name);
    m->se2[k] = i;
  }
  if (!at_end(c)) return expect_fail(c, "the end of the group statement");
  m->has_se2 = 1;
  return 0;
}

/* gap NAME: EXPR [impact elastic|plastic|restitution E] */
static int st_gap(cursor *c, size_t off) {
  mf *m = c->m;
  if (need_coordinates(c, off)) return -1;
  if (m->ngap >= NH_MF_MAX_ITEMS) return mf_fail(m, off, "more than %d gaps", NH_MF_MAX_ITEMS);
  mf_item *it = &m->gap[m->ngap];
  memset(it, 0, sizeof *it);
  char name[NH_PARSE_NAME_MAX + 1];
  size_t noff = (skip_ws(c), c->pos);
  if (!read_name(c, name)) return m->status ? -1 : expect_fail(c, "a gap name");
  int first = find(m->gap, m->ngap, name);
  if (first >= 0)
    return mf_fail(m, noff, "duplicate gap name '%s' (the first is at line %d)", name,
                   line_of(m, m->gap[first].off));
  snprintf(it->name, sizeof it->name, "%s", name);
  if (!accept_char(c, ':')) return expect_fail(c, "':' after the gap name");
  it->off = (skip_ws(c), c->pos);
  if (expr_at(c, 1, &it->node)) return -1;
  it->law = NH_IMPACT_ELASTIC;
  it->value = 1.0;
  if (at_end(c)) return m->ngap++, 0;
  char word[NH_PARSE_NAME_MAX + 1];
  size_t woff = c->pos;
  if (!read_name(c, word) || strcmp(word, "impact") != 0) {
    c->pos = woff;
    return expect_fail(c, "'impact' or the end of the gap");
  }
  woff = (skip_ws(c), c->pos);
  if (!read_name(c, word)) return m->status ? -1 : expect_fail(c, "an impact law (elastic, plastic or restitution E)");
  if (strcmp(word, "elastic") == 0) {
    it->law = NH_IMPACT_ELASTIC;
  } else if (strcmp(word, "plastic") == 0) {
    if (m->poisson)
      return mf_fail(m, woff, "the plastic law (Clark & Bloch) needs the unconstrained kinetic metric, which an "
                              "almost-Poisson model does not carry (use 'restitution 0': the gap's rate stops)");
    it->law = NH_IMPACT_PLASTIC;
  } else if (strcmp(word, "restitution") == 0) {
    it->law = NH_IMPACT_RESTITUTION;
    size_t eoff = (skip_ws(c), c->pos);
    if (at_end(c)) return expect_fail(c, "a coefficient of restitution after 'restitution'");
    if (const_expr_at(c, 0, "the coefficient of restitution", &it->value)) return -1;
    char note[NH_PARSE_NAME_MAX + 64];
    if (!(it->value >= 0.0 && it->value <= 1.0))
      return mf_fail(m, eoff, "coefficient of restitution %g is outside [0, 1]%s", it->value,
                     mf_set_note(m, note, sizeof note));
  } else {
    return mf_fail(m, woff, "unknown impact law '%s' (expected elastic, plastic or restitution E)", word);
  }
  if (!at_end(c)) return expect_fail(c, "the end of the gap statement");
  m->ngap++;
  return 0;
}

/* monitor NAME: EXPR [falling|rising|both] [stop|report] (EXPR of t, q, q'; defaults both,
 * report) */
static int st_monitor(cursor *c, size_t off) {
  mf *m = c->m;
  if (need_coordinates(c, off)) return -1;
  if (m->nmon >= NH_MF_MAX_ITEMS) return mf_fail(m, off, "more than %d monitors", NH_MF_MAX_ITEMS);
  mf_item *it = &m->mon[m->nmon];
  memset(it, 0, sizeof *it);
  char name[NH_PARSE_NAME_MAX + 1];
  size_t noff = (skip_ws(c), c->pos);
  if (!read_name(c, name)) return m->status ? -1 : expect_fail(c, "a monitor name");
  int first = find(m->mon, m->nmon, name);
  if (first >= 0)
    return mf_fail(m, noff, "duplicate monitor name '%s' (the first is at line %d)", name,
                   line_of(m, m->mon[first].off));
  snprintf(it->name, sizeof it->name, "%s", name);
  if (!accept_char(c, ':')) return expect_fail(c, "':' after the monitor name");
  it->off = (skip_ws(c), c->pos);
  m->in_monitor = 1; /* t is a variable here in almost-Poisson files too */
  int rc = expr_at(c, 1, &it->node);
  m->in_monitor = 0;
  if (rc) return -1;
  it->dir = NH_MONITOR_BOTH, it->action = NH_MONITOR_REPORT;
  /* an optional direction, then an optional action */
  static const char *const words[] = {"both", "falling", "rising", "report", "stop"};
  static const int values[] = {NH_MONITOR_BOTH, NH_MONITOR_FALLING, NH_MONITOR_RISING,
                               NH_MONITOR_REPORT, NH_MONITOR_STOP};
  int next = 0; /* 0: a direction or an action may come; 3: only an action */
  while (!at_end(c)) {
    char word[NH_PARSE_NAME_MAX + 1];
    size_t woff = c->pos;
    int k = -1;
    if (read_name(c, word))
      for (int i = next; i < 5; i++)
        if (strcmp(word, words[i]) == 0) k = i;
    if (m->status) return -1;
    if (k < 0) {
      c->pos = woff;
      return next == 5 ? expect_fail(c, "the end of the monitor statement")
             : next == 3 ? expect_fail(c, "an action (stop or report) or the end of the monitor")
                         : expect_fail(c, "a direction (falling, rising or both), an action (stop "
                                          "or report) or the end of the monitor");
    }
    if (k < 3) it->dir = values[k], next = 3;
    else it->action = values[k], next = 5;
  }
  m->nmon++;
  return 0;
}

/* initial NAME = EXPR, NAME' = EXPR, ... */
static int st_initial(cursor *c, size_t off) {
  mf *m = c->m;
  if (need_coordinates(c, off)) return -1;
  if (!m->has_initial) m->initial_off = off;
  m->has_initial = 1;
  do {
    char name[NH_PARSE_NAME_MAX + 1];
    size_t noff = (skip_ws(c), c->pos);
    if (!read_name(c, name)) return m->status ? -1 : expect_fail(c, "a coordinate or velocity (NAME or NAME')");
    int primed = accept_char(c, '\'');
    if (primed && m->poisson)
      return mf_fail(m, noff, "an almost-Poisson model has no velocities: give the state variables");
    int i = find_coord(m, name);
    if (i < 0) return mf_fail(m, noff, "'%s' is not a coordinate", name);
    int *set = primed ? &m->v0_set[i] : &m->q0_set[i];
    if (*set) return mf_fail(m, noff, "initial value of %s%s given twice", name, primed ? "'" : "");
    if (!accept_char(c, '=')) return expect_fail(c, "'='");
    double value;
    char what[NH_PARSE_NAME_MAX + 24];
    snprintf(what, sizeof what, "the initial value of %s%s", name, primed ? "'" : "");
    if (const_expr_at(c, 1, what, &value)) return -1;
    *set = 1;
    (primed ? m->v0 : m->q0)[i] = value;
  } while (accept_char(c, ','));
  if (!at_end(c)) return expect_fail(c, "',' or the end of the statement");
  return 0;
}

typedef struct statement {
  const char *keyword;
  int kind;
} statement;

enum { S_MODEL, S_COORDS, S_PARAM, S_LET, S_KINETIC, S_POTENTIAL, S_CONSTRAINT, S_FORCE, S_GAP, S_INITIAL,
       S_HOLONOMIC, S_GROUP, S_STATE, S_HAMILTONIAN, S_POISSON, S_MONITOR, S_CONTACT };

static const statement statements[] = {
    {"model", S_MODEL},         {"coordinates", S_COORDS}, {"parameter", S_PARAM},
    {"let", S_LET},             {"kinetic", S_KINETIC},    {"potential", S_POTENTIAL},
    {"constraint", S_CONSTRAINT}, {"force", S_FORCE},      {"gap", S_GAP},
    {"initial", S_INITIAL},     {"holonomic", S_HOLONOMIC}, {"group", S_GROUP},
    {"state", S_STATE},         {"hamiltonian", S_HAMILTONIAN}, {"poisson", S_POISSON},
    {"monitor", S_MONITOR},     {"contact", S_CONTACT},
};

static int is_keyword(const char *s, size_t n) {
  for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++)
    if (strlen(statements[i].keyword) == n && strncmp(s, statements[i].keyword, n) == 0) return 1;
  return 0;
}

static int statement_at(mf *m, size_t off, size_t end, int line, int col) {
  cursor c = {m, off, end, off, line, col};
  char word[NH_PARSE_NAME_MAX + 1];
  if (!read_name(&c, word)) {
    if (m->status) return -1;
    return expect_fail(&c, "a statement (model, coordinates, parameter, let, kinetic, potential, "
                           "constraint, holonomic, force, gap, monitor, contact, initial, group, state, hamiltonian, poisson)");
  }
  int kind = -1;
  for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++)
    if (strcmp(word, statements[i].keyword) == 0) kind = statements[i].kind;
  /* the two kinds of model take different statements */
  int mech_only = kind == S_KINETIC || kind == S_POTENTIAL || kind == S_CONSTRAINT || kind == S_FORCE ||
                  kind == S_HOLONOMIC || kind == S_GROUP;
  int poisson_only = kind == S_HAMILTONIAN || kind == S_POISSON;
  if (m->nq && m->poisson && mech_only)
    return mf_fail(m, off, "'%s' is not part of an almost-Poisson model (declared by 'state'; it "
                           "takes hamiltonian and poisson statements)", word);
  if (poisson_only && !m->nq)
    return mf_fail(m, off, "this statement needs the state variables: declare them first ('state x y ...')");
  if (poisson_only && !m->poisson)
    return mf_fail(m, off, "'%s' belongs to an almost-Poisson model: declare its variables with "
                           "'state' instead of 'coordinates'", word);
  switch (kind) {
  case S_MODEL: return st_model(&c, off);
  case S_COORDS: return st_coordinates(&c, off, 0);
  case S_STATE: return st_coordinates(&c, off, 1);
  case S_HAMILTONIAN: return st_hamiltonian(&c, off);
  case S_POISSON: return st_poisson(&c, off);
  case S_PARAM: return st_binding(&c, 0);
  case S_LET: return need_coordinates(&c, off) ? -1 : st_binding(&c, 1);
  case S_KINETIC: return st_energy(&c, 1, off);
  case S_POTENTIAL: return st_energy(&c, 0, off);
  case S_CONSTRAINT: return st_constraint(&c, off, 0);
  case S_HOLONOMIC: return st_constraint(&c, off, 1);
  case S_GROUP: return st_group(&c, off);
  case S_FORCE: return st_force(&c, off);
  case S_GAP: return st_gap(&c, off);
  case S_INITIAL: return st_initial(&c, off);
  case S_MONITOR: return st_monitor(&c, off);
  case S_CONTACT: return mf_st_contact(&c, off);
  default:
    if (strcmp(word, "body") == 0) /* a rigid body with internal masses (lang/body.h) */
      return mf_fail(m, off, "a body file ('body ball' or 'body disk'): 'nholo run' builds it with the rolling-ball "
                             "reader (nh_ball_file_load), not as a Lagrangian model");
    return mf_fail(m, off, "unknown statement '%s' (expected model, coordinates, parameter, let, "
                           "kinetic, potential, constraint, holonomic, force, gap, monitor, contact, initial, group, state, "
                           "hamiltonian or poisson)", word);
  }
}

int mf_read(mf *m) {
  m->kinetic = m->potential = m->ham = -1;
  m->pool = nh_expr_pool_create();
  m->set_used = calloc((size_t)(m->opts ? m->opts->nset : 0) + 1, sizeof(int));
  if (!m->pool || !m->set_used) return m->status = NH_ERR_NOMEM;
  if (clean_text(m)) return m->status;
  size_t off = 0, at = 0; /* the line and column of offset at, kept as the statements go */
  int line = 1, col = 1;
  while (off < m->len) {
    /* skip blank lines */
    size_t i = off;
    while (i < m->len && isspace((unsigned char)m->clean[i])) i++;
    if (i >= m->len) break;
    for (; at < i; at++) {
      if (m->text[at] == '\n')
        line++, col = 1;
      else
        col++;
    }
    size_t end = statement_end(m, i);
    if (statement_at(m, i, end, line, col)) return m->status;
    off = end;
  }
  /* what the file must have */
  if (!m->nq)
    return mf_fail(m, text_end(m), "the file ends without coordinates (expected a statement "
                                   "'coordinates x y ...')"), m->status;
  if (m->poisson && m->ham < 0)
    return mf_fail(m, text_end(m), "the file ends without a Hamiltonian (expected a statement "
                                   "'hamiltonian EXPR')"), m->status;
  if (!m->poisson && m->kinetic < 0)
    return mf_fail(m, text_end(m), "the file ends without a kinetic energy (expected a statement "
                                   "'kinetic EXPR')"), m->status;
  if (!m->has_initial) m->initial_off = m->len;
  if (!m->name[0]) snprintf(m->name, sizeof m->name, "model");
  /* initial-value overrides, and overrides that named nothing */
  for (int i = 0; i < m->nq; i++) {
    int k = override_of(m, m->coord[i], 0);
    if (k >= 0) m->q0[i] = m->opts->set_values[k];
    k = override_of(m, m->coord[i], 1);
    if (k >= 0) m->v0[i] = m->opts->set_values[k];
  }
  for (int i = 0; m->opts && i < m->opts->nset; i++)
    if (!m->set_used[i]) {
      m->status = NH_ERR_ARG;
      m->err.line = m->err.col = 0;
      snprintf(m->err.msg, sizeof m->err.msg,
               "--set %s: the model has no parameter, coordinate or velocity of that name",
               m->opts->set_names[i]);
      return m->status;
    }
  /* expressions that may not read velocities or time */
  if (m->potential >= 0) {
    if (uses(m, m->potential, m->nq, 2 * m->nq) > 0)
      return mf_fail(m, m->potential_off, "the potential depends on velocities (use a force)"), m->status;
    if (uses(m, m->potential, 2 * m->nq, 2 * m->nq + 1) > 0)
      return mf_fail(m, m->potential_off, "the potential depends on time t (use a force)"), m->status;
  }
  for (int k = 0; k < m->ngap; k++) {
    int vel = uses(m, m->gap[k].node, m->nq, 2 * m->nq) > 0;
    if (vel || uses(m, m->gap[k].node, 2 * m->nq, 2 * m->nq + 1) > 0)
      return mf_fail(m, m->gap[k].off, "gap '%s' depends on %s (a gap is a function of the "
                                       "coordinates only)", m->gap[k].name,
                     vel ? "velocities" : "time t"), m->status;
  }
  for (int k = 0; k < m->nc; k++) {
    if (uses(m, m->con[k].node, 2 * m->nq, 2 * m->nq + 1) > 0)
      return mf_fail(m, m->con[k].off, "constraint '%s' depends on time t (only A(q) q' = 0 is "
                                       "supported)", m->con[k].name), m->status;
  }
  if (uses(m, m->kinetic, 2 * m->nq, 2 * m->nq + 1) > 0)
    return mf_fail(m, m->kinetic_off, "the kinetic energy depends on time t"), m->status;
  if (m->nc >= m->nq)
    return mf_fail(m, m->con[m->nc - 1].off, "%d constraints on %d coordinates leave no motion "
                                             "(at most %d)", m->nc, m->nq, m->nq - 1), m->status;
  return NH_OK;
}

void mf_var_names(const mf *m, const char **names, char (*primed)[NH_PARSE_NAME_MAX + 2]) {
  for (int i = 0; i < m->nq; i++) {
    names[i] = m->coord[i];
    snprintf(primed[i], sizeof primed[i], "%s'", m->coord[i]);
    names[m->nq + i] = primed[i];
  }
  names[2 * m->nq] = "t";
}

void mf_free(mf *m) {
  if (!m) return;
  nh_expr_pool_destroy(m->pool);
  free(m->clean);
  free(m->set_used);
  free(m->ids);
  mf_derive_free(m);
}
