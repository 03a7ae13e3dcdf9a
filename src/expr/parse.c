/* parse.c - recursive-descent parser of model-file expressions (see parse.h).
 *
 * Grammar (^ is right-associative and binds tighter than unary minus: -x^2 = -(x^2),
 * 2^3^2 = 2^9; the exponent may carry its own sign: x^-2):
 *   expr   := term (('+' | '-') term)*
 *   term   := unary (('*' | '/') unary)*
 *   unary  := '-' unary | power
 *   power  := atom ('^' unary)?
 *   atom   := NUMBER | 'pi' | NAME | NAME "'" | FUNC '(' args ')' | '(' expr ')'
 *   args   := expr (',' expr)*
 *   NUMBER := DIGITS ['.' [DIGITS]] [EXP] | '.' DIGITS [EXP]     EXP := ('e'|'E') ['+'|'-'] DIGITS
 *   NAME   := [A-Za-z_][A-Za-z0-9_]*
 * A number token is the longest run of letters, digits, '_' and '.' (with a sign right after
 * an exponent letter), so "1.2.3", "1e" and "2x" are reported whole as bad numbers. '#'
 * starts a comment that ends the expression. Nodes are built (and simplified) while
 * parsing; the first error wins and stops the parse. */
#include "expr/parse.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nholo/status.h"

#define NH_PI 3.14159265358979323846
#define MAX_DEPTH 200   /* nesting of parentheses, unary minus and powers */
#define MAX_OPS 10000   /* binary operators in one expression */

typedef enum tok_type { T_END, T_NUM, T_NAME, T_CHAR } tok_type;

typedef struct token {
  tok_type type;
  size_t start, n; /* offset and length in src */
} token;

typedef struct parser {
  nh_expr_pool *pool;
  const char *src;
  size_t len, pos;
  int line, col0;
  nh_parse_lookup lookup;
  void *user;
  nh_parse_error *err;
  int status; /* NH_OK until the first error */
  int depth;
  int nops; /* binary operators so far */
} parser;

/* ---- errors ---------------------------------------------------------------------------- */

/* file line and column of offset off of src (a span may run over several lines) */
static void pos_of(const parser *P, size_t off, int *line, int *col) {
  int l = P->line, c = P->col0;
  for (size_t i = 0; i < off && i < P->len; i++) {
    if (P->src[i] == '\n')
      l++, c = 1;
    else
      c++;
  }
  *line = l, *col = c;
}

/* record the first error at offset off of src; returns -1 for chaining */
static int fail(parser *P, size_t off, const char *fmt, ...) {
  if (P->status) return -1;
  P->status = NH_ERR_PARSE;
  pos_of(P, off, &P->err->line, &P->err->col);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(P->err->msg, sizeof P->err->msg, fmt, ap);
  va_end(ap);
  return -1;
}

/* a builder returned id: -1 without a parse error means out of memory */
static int built(parser *P, int id) {
  if (id < 0 && !P->status) {
    P->status = NH_ERR_NOMEM;
    pos_of(P, P->pos, &P->err->line, &P->err->col);
    snprintf(P->err->msg, sizeof P->err->msg, "out of memory");
  }
  return id;
}

/* ---- lexer ----------------------------------------------------------------------------- */

static int is_name_start(int c) { return isalpha(c) || c == '_'; }
static int is_name_char(int c) { return isalnum(c) || c == '_'; }

/* the token at P->pos (not consumed) */
static token peek(parser *P) {
  const char *s = P->src;
  size_t i = P->pos;
  /* a span may continue over lines: newlines inside it are white space */
  while (i < P->len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) i++;
  token t = {T_END, i, 0};
  if (i >= P->len || s[i] == '#' || s[i] == '\0') return t;
  unsigned char c = (unsigned char)s[i];
  size_t j = i + 1;
  if (isdigit(c) || (c == '.')) {
    t.type = T_NUM;
    while (j < P->len) {
      unsigned char d = (unsigned char)s[j];
      if (is_name_char(d) || d == '.')
        j++;
      else if ((d == '+' || d == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E') && j + 1 < P->len &&
               isdigit((unsigned char)s[j + 1]))
        j++;
      else
        break;
    }
  } else if (is_name_start(c)) {
    t.type = T_NAME;
    while (j < P->len && is_name_char((unsigned char)s[j])) j++;
  } else {
    t.type = T_CHAR;
  }
  t.n = j - i;
  return t;
}

static void consume(parser *P, token t) { P->pos = t.start + t.n; }

/* consume a binary operator; -1 past MAX_OPS (bounds the depth of the DAG, hence of the
 * recursive walks over it) */
static int consume_op(parser *P, token t) {
  if (++P->nops > MAX_OPS)
    return fail(P, t.start, "expression too long (more than %d operators)", MAX_OPS);
  consume(P, t);
  return 0;
}
static int is_char(parser *P, token t, char c) { return t.type == T_CHAR && P->src[t.start] == c; }

/* 1 when s[0..n) is a well-formed NUMBER */
static int number_ok(const char *s, size_t n) {
  size_t i = 0, digits = 0;
  while (i < n && isdigit((unsigned char)s[i])) i++, digits++;
  if (i < n && s[i] == '.') {
    i++;
    while (i < n && isdigit((unsigned char)s[i])) i++, digits++;
  }
  if (!digits) return 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    size_t e = 0;
    while (i < n && isdigit((unsigned char)s[i])) i++, e++;
    if (!e) return 0;
  }
  return i == n;
}

/* the text of a token for messages */
static int tok_len(token t) { return t.n > 40 ? 40 : (int)t.n; }

/* "found X" errors for a token where an operand was expected */
static int fail_operand(parser *P, token t) {
  if (t.type == T_END) return fail(P, t.start, "unexpected end of expression");
  char c = P->src[t.start];
  if (c == ')') return fail(P, t.start, "unexpected ')'");
  if (c == '\'') return fail(P, t.start, "a prime ' must follow a coordinate name");
  if (strchr("+*/^,=:", c))
    return fail(P, t.start, "expected a number, a name or '(' before '%c'", c);
  if (isprint((unsigned char)c)) return fail(P, t.start, "unexpected character '%c'", c);
  return fail(P, t.start, "unexpected character (byte 0x%02x)", (unsigned)(unsigned char)c);
}

/* ---- grammar ----------------------------------------------------------------------------- */

static int parse_expr(parser *P);
static int parse_unary(parser *P);

/* expect ')' closing the '(' at offset open */
static int expect_close(parser *P, size_t open) {
  token t = peek(P);
  if (is_char(P, t, ')')) {
    consume(P, t);
    return 0;
  }
  return fail(P, t.start, "expected ')' to close '(' opened at column %d", P->col0 + (int)open);
}

static int parse_number(parser *P, token t) {
  const char *s = P->src + t.start;
  if (!number_ok(s, t.n)) return fail(P, t.start, "bad number '%.*s'", tok_len(t), s);
  char small[64], *buf = t.n < sizeof small ? small : malloc(t.n + 1);
  if (!buf) return built(P, -1);
  memcpy(buf, s, t.n);
  buf[t.n] = '\0';
  double v = strtod(buf, NULL);
  if (buf != small) free(buf);
  if (!isfinite(v)) return fail(P, t.start, "number '%.*s' is out of range", tok_len(t), s);
  consume(P, t);
  return built(P, nh_expr_const(P->pool, v));
}

/* FUNC '(' args ')' with the name token already consumed */
static int parse_call(parser *P, token name, int kind, int arity) {
  token open = peek(P);
  consume(P, open);
  int args[2] = {-1, -1}, count = 0;
  token t = peek(P);
  if (!is_char(P, t, ')')) {
    for (;;) {
      int a = parse_expr(P);
      if (a < 0) return -1;
      if (count < 2) args[count] = a;
      count++;
      t = peek(P);
      if (!is_char(P, t, ',')) break;
      consume(P, t);
    }
  }
  if (expect_close(P, open.start) < 0) return -1;
  if (count != arity)
    return fail(P, name.start, "function '%.*s' takes %d argument%s", tok_len(name),
                P->src + name.start, arity, arity == 1 ? "" : "s");
  return built(P, nh_expr_make(P->pool, kind, args[0], args[1], 0));
}

/* NAME(ARG) for a NAME that is not a function: the lookup resolves "NAME(ARG)" as one symbol
 * (a model file's lambda(CONSTRAINT)); anything else is an unknown function */
static int parse_name_call(parser *P, token t) {
  const char *s = P->src + t.start;
  token open = peek(P);
  consume(P, open);
  token arg = peek(P);
  size_t after = P->pos;
  if (arg.type == T_NAME && arg.n <= NH_PARSE_NAME_MAX && t.n <= NH_PARSE_NAME_MAX && P->lookup) {
    consume(P, arg);
    token close = peek(P);
    char name[2 * NH_PARSE_NAME_MAX + 3];
    snprintf(name, sizeof name, "%.*s(%.*s)", (int)t.n, s, (int)arg.n, P->src + arg.start);
    int out = -1, r = is_char(P, close, ')') ? P->lookup(P->user, name, 0, &out) : NH_SYM_UNKNOWN;
    if (r == NH_SYM_VAR && out >= 0) {
      consume(P, close);
      return built(P, nh_expr_var(P->pool, out));
    }
    if (r == NH_SYM_BAD_ARG)
      return fail(P, arg.start, "unknown name '%.*s' in %s", (int)arg.n, P->src + arg.start, name);
    if (r == NH_SYM_NOT_HERE) return fail(P, t.start, "%s cannot be used in this statement", name);
  }
  P->pos = after;
  return fail(P, t.start, "unknown function '%.*s'", (int)t.n, s);
}

/* NAME, NAME', pi or a function call */
static int parse_name(parser *P, token t) {
  const char *s = P->src + t.start;
  consume(P, t);
  int primed = P->pos < P->len && P->src[P->pos] == '\'';
  if (primed) P->pos++;
  if (t.n > NH_PARSE_NAME_MAX) return fail(P, t.start, "name '%.*s...' is too long", 40, s);
  int arity, kind = nh_expr_func_find(s, t.n, &arity);
  token next = peek(P);
  if (!primed && is_char(P, next, '(')) {
    if (kind < 0) return parse_name_call(P, t);
    return parse_call(P, t, kind, arity);
  }
  if (kind >= 0 && !primed)
    return fail(P, next.start, "expected '(' after function '%.*s'", (int)t.n, s);
  char name[NH_PARSE_NAME_MAX + 1];
  memcpy(name, s, t.n);
  name[t.n] = '\0';
  if (strcmp(name, "pi") == 0 && !primed) return built(P, nh_expr_const(P->pool, NH_PI));
  int out = -1;
  int r = (kind >= 0 || strcmp(name, "pi") == 0)
              ? NH_SYM_NOT_COORD
              : (P->lookup ? P->lookup(P->user, name, primed, &out) : NH_SYM_UNKNOWN);
  switch (r) {
  case NH_SYM_VAR:
    if (out < 0) break;
    return built(P, nh_expr_var(P->pool, out));
  case NH_SYM_NODE:
    if (!nh_expr_get(P->pool, out)) break;
    return out;
  case NH_SYM_NOT_COORD:
    if (primed) return fail(P, t.start, "prime on '%s', which is not a coordinate", name);
    break;
  default: break;
  }
  return fail(P, t.start, "unknown symbol '%s'", name);
}

static int parse_atom(parser *P) {
  token t = peek(P);
  if (t.type == T_NUM) return parse_number(P, t);
  if (t.type == T_NAME) return parse_name(P, t);
  if (is_char(P, t, '(')) {
    consume(P, t);
    int e = parse_expr(P);
    if (e < 0 || expect_close(P, t.start) < 0) return -1;
    return e;
  }
  return fail_operand(P, t);
}

static int parse_power(parser *P) {
  int base = parse_atom(P);
  if (base < 0) return -1;
  token t = peek(P);
  if (!is_char(P, t, '^')) return base;
  if (consume_op(P, t) < 0) return -1;
  int e = parse_unary(P); /* right-associative: 2^3^2 = 2^(3^2) */
  if (e < 0) return -1;
  return built(P, nh_expr_pow(P->pool, base, e));
}

static int parse_unary(parser *P) {
  token t = peek(P);
  if (++P->depth > MAX_DEPTH) return fail(P, t.start, "expression nested too deeply");
  int r;
  if (is_char(P, t, '-')) {
    consume(P, t);
    r = parse_unary(P);
    if (r >= 0) r = built(P, nh_expr_neg(P->pool, r));
  } else {
    r = parse_power(P);
  }
  P->depth--;
  return r;
}

static int parse_term(parser *P) {
  int l = parse_unary(P);
  while (l >= 0) {
    token t = peek(P);
    if (!is_char(P, t, '*') && !is_char(P, t, '/')) break;
    if (consume_op(P, t) < 0) return -1;
    int r = parse_unary(P);
    if (r < 0) return -1;
    l = built(P, P->src[t.start] == '*' ? nh_expr_mul(P->pool, l, r) : nh_expr_div(P->pool, l, r));
  }
  return l;
}

static int parse_expr(parser *P) {
  int l = parse_term(P);
  while (l >= 0) {
    token t = peek(P);
    if (!is_char(P, t, '+') && !is_char(P, t, '-')) break;
    if (consume_op(P, t) < 0) return -1;
    int r = parse_term(P);
    if (r < 0) return -1;
    l = built(P, P->src[t.start] == '+' ? nh_expr_add(P->pool, l, r) : nh_expr_sub(P->pool, l, r));
  }
  return l;
}

/* ---- entry points ------------------------------------------------------------------------ */

int nh_parse_expr(nh_expr_pool *pool, const char *src, size_t len, int line, int col,
                  nh_parse_lookup lookup, void *user, int *out, size_t *end,
                  nh_parse_error *err) {
  nh_parse_error dummy;
  parser P = {pool, src, len, 0, line, col, lookup, user, err ? err : &dummy, NH_OK, 0, 0};
  P.err->line = P.err->col = 0;
  P.err->msg[0] = '\0';
  *out = -1;
  int e = parse_expr(&P);
  if (e >= 0) {
    /* what follows a complete expression */
    token t = peek(&P);
    char c = t.type == T_CHAR ? src[t.start] : 0;
    if (t.type == T_END) {
      if (end) *end = t.start;
    } else if (c == ')') {
      fail(&P, t.start, "unexpected ')'");
    } else if (c == '\'') {
      fail(&P, t.start, "a prime ' must follow a coordinate name");
    } else if (end && (t.type != T_CHAR || strchr("=,:;<>", c))) {
      *end = t.start; /* the caller reads on from here */
    } else if (c && strchr("=,:;<>", c)) {
      fail(&P, t.start, "unexpected '%c'", c);
    } else if (t.type != T_CHAR || c == '(') {
      fail(&P, t.start, "expected an operator before '%.*s'", tok_len(t), src + t.start);
    } else if (isprint((unsigned char)c)) {
      fail(&P, t.start, "unexpected character '%c'", c);
    } else {
      fail(&P, t.start, "unexpected character (byte 0x%02x)", (unsigned)(unsigned char)c);
    }
  }
  if (P.status) return P.status;
  *out = e;
  return NH_OK;
}

size_t nh_parse_error_format(char *buf, size_t size, const char *file, const char *text,
                             const nh_parse_error *err) {
  /* find the line */
  const char *l = text ? text : "";
  for (int k = 1; k < err->line && *l; k++) {
    const char *nl = strchr(l, '\n');
    l = nl ? nl + 1 : l + strlen(l);
  }
  size_t n = strcspn(l, "\n");
  if (n && l[n - 1] == '\r') n--;
  /* header and source line */
  size_t total = 0;
  int w = snprintf(buf, size, "%s:%d:%d: error: %s\n%.*s\n", file ? file : "<input>", err->line,
                   err->col, err->msg, (int)n, l);
  if (w < 0) return 0;
  total = (size_t)w;
  /* caret line: tabs copied so the caret lines up */
  int col = err->col > 0 ? err->col : 1;
  for (int i = 0; i < col; i++) {
    char c = i == col - 1 ? '^' : ((size_t)i < n && l[i] == '\t' ? '\t' : ' ');
    if (total + 1 < size) buf[total] = c;
    total++;
  }
  if (total + 1 < size) buf[total] = '\n';
  total++;
  if (size) buf[total < size ? total : size - 1] = '\0';
  return total;
}
