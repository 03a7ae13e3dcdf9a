/* test_expr.c - the expression engine of src/expr: hash-consing, simplification, parsing
 * (precedence, names, diagnostics), symbolic derivatives against finite differences, the
 * mass matrix of a kinetic energy, printing round trips and tapes.
 *
 * Finite differences are central differences with one Richardson extrapolation
 * (D = (4 D(h/2) - D(h)) / 3, error O(h^4)), h = 1e-3 * max(1, |x|): the comparison
 * tolerance 1e-7 relative (to max(1, |exact|)) is far above the FD error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "expr/parse.h"
#include "expr/tape.h"
#include "expr/text.h"
#include "harness.h"
#include "nholo/status.h"

/* ---- symbols: coordinates, velocities, t, parameters and let names ----------------- */

/* variable layout: q_i = i, q'_i = NQ + i, t = 2 NQ, parameter j = 2 NQ + 1 + j */
#define TEST_PI 3.14159265358979323846

#define NQ 4
#define NP 2
#define NVARS (2 * NQ + 1 + NP)
static const char *coord_names[NQ] = {"x", "y", "theta", "phi"};
static const char *param_names[NP] = {"m", "R"};
static const char *var_names[NVARS] = {"x",  "y", "theta", "phi", "x'", "y'",
                                       "theta'", "phi'", "t", "m", "R"};

typedef struct syms {
  const char *let_name[4];
  int let_node[4];
  int nlet;
} syms;

static int lookup(void *user, const char *name, int primed, int *out) {
  syms *s = user;
  for (int i = 0; i < NQ; i++)
    if (strcmp(name, coord_names[i]) == 0) {
      *out = primed ? NQ + i : i;
      return NH_SYM_VAR;
    }
  int known = strcmp(name, "t") == 0;
  for (int j = 0; j < NP; j++) known |= strcmp(name, param_names[j]) == 0;
  for (int j = 0; s && j < s->nlet; j++) known |= strcmp(name, s->let_name[j]) == 0;
  if (!known) return NH_SYM_UNKNOWN;
  if (primed) return NH_SYM_NOT_COORD;
  if (strcmp(name, "t") == 0) {
    *out = 2 * NQ;
    return NH_SYM_VAR;
  }
  for (int j = 0; j < NP; j++)
    if (strcmp(name, param_names[j]) == 0) {
      *out = 2 * NQ + 1 + j;
      return NH_SYM_VAR;
    }
  for (int j = 0; j < s->nlet; j++)
    if (strcmp(name, s->let_name[j]) == 0) {
      *out = s->let_node[j];
      return NH_SYM_NODE;
    }
  return NH_SYM_UNKNOWN;
}

/* parse src (must succeed), -1 on failure with the message printed */
static int P(nh_expr_pool *pool, syms *s, const char *src) {
  int e;
  nh_parse_error err;
  int st = nh_parse_expr(pool, src, strlen(src), 1, 1, lookup, s, &e, NULL, &err);
  if (st != NH_OK) {
    printf("  parse of \"%s\" failed: %d:%d: %s\n", src, err.line, err.col, err.msg);
    return -1;
  }
  return e;
}

/* evaluate src at vars */
static double V(nh_expr_pool *pool, const char *src, const double *vars) {
  int e = P(pool, NULL, src);
  return e < 0 ? NAN : nh_expr_eval(pool, e, vars);
}

static void random_vars(unsigned long long *seed, double *v) {
  for (int i = 0; i < NVARS; i++) v[i] = nh_test_rand(seed, 0.5, 1.5);
}

/* ---- hash-consing and simplification ----------------------------------------------- */

static int test_hash_consing(void) {
  nh_expr_pool *p = nh_expr_pool_create();
  ENSURE(p);
  int x = nh_expr_var(p, 0), y = nh_expr_var(p, 1);
  ENSURE(x >= 0 && y >= 0 && x != y);
  ENSURE(nh_expr_var(p, 0) == x);
  ENSURE(nh_expr_const(p, 2.5) == nh_expr_const(p, 2.5));
  ENSURE(nh_expr_add(p, x, y) == nh_expr_add(p, y, x));
  ENSURE(nh_expr_mul(p, x, y) == nh_expr_mul(p, y, x));
  ENSURE(nh_expr_sub(p, x, y) != nh_expr_sub(p, y, x));
  ENSURE(nh_expr_div(p, x, y) != nh_expr_div(p, y, x));
  ENSURE(nh_expr_unary(p, NH_EX_SIN, x) == nh_expr_unary(p, NH_EX_SIN, x));
  ENSURE(nh_expr_unary(p, NH_EX_SIN, x) != nh_expr_unary(p, NH_EX_COS, x));
  ENSURE(nh_expr_pow(p, x, nh_expr_const(p, 3.0)) == nh_expr_powi(p, x, 3));
  /* the same text parsed twice, and with commuted operands, is the same node */
  int count = nh_expr_count(p);
  int a = P(p, NULL, "sin(x)*cos(y) + x*y");
  ENSURE(a >= 0);
  int grown = nh_expr_count(p);
  ENSURE(P(p, NULL, "sin(x)*cos(y) + x*y") == a);
  ENSURE(P(p, NULL, "y*x + cos(y)*sin(x)") == a);
  ENSURE(nh_expr_count(p) == grown && grown > count);
  /* +0.0 and -0.0 are different constants (1/x tells them apart) */
  ENSURE(nh_expr_const(p, 0.0) != nh_expr_const(p, -0.0));
  /* invalid children propagate -1 */
  ENSURE(nh_expr_add(p, x, -1) == -1 && nh_expr_unary(p, NH_EX_SIN, 99999) == -1);
  ENSURE(nh_expr_var(p, -1) == -1);
  nh_expr_pool_destroy(p);
  return 0;
}

static int test_simplify(void) {
  nh_expr_pool *p = nh_expr_pool_create();
  ENSURE(p);
  int x = nh_expr_var(p, 0), y = nh_expr_var(p, 1);
  int zero = nh_expr_const(p, 0.0), one = nh_expr_const(p, 1.0), m1 = nh_expr_const(p, -1.0);
  double c;
  ENSURE(nh_expr_add(p, x, zero) == x && nh_expr_add(p, zero, x) == x);
  ENSURE(nh_expr_sub(p, x, zero) == x);
  ENSURE(nh_expr_sub(p, zero, x) == nh_expr_neg(p, x));
  ENSURE(nh_expr_mul(p, x, one) == x && nh_expr_mul(p, one, x) == x);
  ENSURE(nh_expr_mul(p, x, zero) == zero && nh_expr_mul(p, zero, y) == zero);
  ENSURE(nh_expr_mul(p, x, m1) == nh_expr_neg(p, x));
  ENSURE(nh_expr_div(p, x, one) == x);
  ENSURE(nh_expr_div(p, zero, x) == zero);
  ENSURE(nh_expr_pow(p, x, one) == x);
  ENSURE(nh_expr_pow(p, x, zero) == one);
  ENSURE(nh_expr_pow(p, one, y) == one);
  ENSURE(nh_expr_neg(p, nh_expr_neg(p, x)) == x);
  ENSURE(nh_expr_sub(p, nh_expr_mul(p, x, y), nh_expr_mul(p, y, x)) == zero);
  ENSURE(nh_expr_add(p, x, nh_expr_neg(p, y)) == nh_expr_sub(p, x, y));
  ENSURE(nh_expr_sub(p, x, nh_expr_neg(p, y)) == nh_expr_add(p, x, y));
  /* constant folding, every kind */
  ENSURE(nh_expr_is_const(p, nh_expr_add(p, nh_expr_const(p, 2), nh_expr_const(p, 3)), &c) &&
         c == 5.0);
  ENSURE(nh_expr_is_const(p, P(p, NULL, "2^10 - 1000"), &c) && c == 24.0);
  ENSURE(nh_expr_is_const(p, P(p, NULL, "2^0.5"), &c) && c == sqrt(2.0));
  ENSURE(nh_expr_is_const(p, P(p, NULL, "sin(pi/6)"), &c) && c == sin(TEST_PI / 6));
  ENSURE(nh_expr_is_const(p, P(p, NULL, "atan2(1, -1)"), &c) && c == atan2(1.0, -1.0));
  ENSURE(nh_expr_is_const(p, P(p, NULL, "-(3)"), &c) && c == -3.0);
  ENSURE(nh_expr_is_const(p, P(p, NULL, "1/2*0.0025*0.01^2"), &c) &&
         c == 1.0 / 2 * 0.0025 * (0.01 * 0.01));
  /* simplification inside parsed text */
  ENSURE(P(p, NULL, "x*1 + 0*y - (x - x)") == x);
  ENSURE(P(p, NULL, "--x") == x);
  ENSURE(P(p, NULL, "x^1") == x);
  ENSURE(P(p, NULL, "(y + 2)^0") == one);
  ENSURE(P(p, NULL, "0/(x+y)") == zero);
  ENSURE(P(p, NULL, "x^2") == nh_expr_powi(p, x, 2));
  ENSURE(nh_expr_get(p, P(p, NULL, "x^2.5"))->kind == NH_EX_POW);
  ENSURE(nh_expr_get(p, P(p, NULL, "x^-3"))->kind == NH_EX_POWI);
  nh_expr_pool_destroy(p);
  return 0;
}

/* ---- parsing ------------------------------------------------------------------------ */

static int test_parse_precedence(void) {
  nh_expr_pool *p = nh_expr_pool_create();
  ENSURE(p);
  double v[NVARS] = {3.0, 2.0};
  ENSURE(V(p, "2^3^2", v) == 512.0);
  ENSURE(V(p, "-2^2", v) == -4.0);
  ENSURE(V(p, "(-2)^2", v) == 4.0);
  ENSURE(V(p, "1-2-3", v) == -4.0);
  ENSURE(V(p, "8/4/2", v) == 1.0);
  ENSURE(V(p, "2*3+4", v) == 10.0);
  ENSURE(V(p, "2+3*4", v) == 14.0);
  ENSURE(V(p, "(2+3)*4", v) == 20.0);
  ENSURE(V(p, "2^-1", v) == 0.5);
  ENSURE(V(p, "-x^2", v) == -9.0);
  ENSURE(V(p, "2*-x", v) == -6.0);
  ENSURE(V(p, "- - x", v) == 3.0);
  ENSURE(V(p, "x^y^2", v) == 81.0);
  ENSURE(V(p, "-x^-y", v) == -1.0 / 9.0);
  ENSURE(V(p, "x*y^2/4", v) == 3.0);
  ENSURE(V(p, "1.5e1 + .5 + 2. + 1E-1", v) == 15.0 + 0.5 + 2.0 + 0.1);
  ENSURE(V(p, "pi", v) == TEST_PI);
  ENSURE(V(p, "atan2(y, x)", v) == atan2(2.0, 3.0));
  ENSURE(V(p, "  sqrt ( x*x ) # a comment", v) == 3.0);
  ENSURE(V(p, "abs(-x) + exp(0) + log(1)", v) == 4.0);
  nh_expr_pool_destroy(p);
  return 0;
}

static int test_parse_names(void) {
  nh_expr_pool *p = nh_expr_pool_create();
  ENSURE(p);
  syms s = {{"Xf"}, {-1}, 1};
  s.let_node[0] = P(p, &s, "x + R*cos(phi)");
  ENSURE(s.let_node[0] >= 0);
  int e = P(p, &s, "Xf^2 + x' - theta'*t + m");
  ENSURE(e >= 0);
  double v[NVARS];
  unsigned long long seed = 7;
  random_vars(&seed, v);
  double xf = v[0] + v[10] * cos(v[3]);
  ENSURE_REL(nh_expr_eval(p, e, v), xf * xf + v[4] - v[6] * v[8] + v[9], 1e-15);
  /* a let name is the very node it names */
  ENSURE(P(p, &s, "Xf") == s.let_node[0]);
  ENSURE(P(p, &s, "x + R*cos(phi)") == s.let_node[0]);
  /* stop mode: the caller reads on after the expression */
  const char *gap = "1 - Xf^2   impact elastic";
  size_t end = 0;
  nh_parse_error err;
  ENSURE(nh_parse_expr(p, gap, strlen(gap), 1, 1, lookup, &s, &e, &end, &err) == NH_OK);
  ENSURE(end == 11 && strncmp(gap + end, "impact", 6) == 0);
  const char *init = "pi/2, theta' = 10";
  ENSURE(nh_parse_expr(p, init, strlen(init), 1, 1, lookup, &s, &e, &end, &err) == NH_OK);
  ENSURE(end == 4 && init[end] == ',');
  ENSURE(nh_parse_expr(p, "x # c", 5, 1, 1, lookup, &s, &e, &end, &err) == NH_OK && end == 2);
  /* length bounds the text: no NUL needed */
  ENSURE(nh_parse_expr(p, "x+y*junk", 3, 1, 1, lookup, &s, &e, NULL, &err) == NH_OK);
  ENSURE(e == P(p, &s, "x+y"));
  nh_expr_pool_destroy(p);
  return 0;
}

/* ---- diagnostics --------------------------------------------------------------------- */

static const struct bad_case {
  const char *src;
  int col;
  const char *msg;
} bad[] = {
    {"(x + 1", 7, "expected ')' to close '(' opened at column 1"},
    {"sin(x", 6, "expected ')' to close '(' opened at column 4"},
    {"2*(x+(y-1)", 11, "expected ')' to close '(' opened at column 3"},
    {"(x y)", 4, "expected ')' to close '(' opened at column 1"},
    {"sine(x)", 1, "unknown function 'sine'"},
    {"zz + 1", 1, "unknown symbol 'zz'"},
    {"x + zz'", 5, "unknown symbol 'zz'"},
    {"x + 1.2.3", 5, "bad number '1.2.3'"},
    {"1e", 1, "bad number '1e'"},
    {"2*1e+", 3, "bad number '1e'"},
    {"2x", 1, "bad number '2x'"},
    {".", 1, "bad number '.'"},
    {"1e999", 1, "number '1e999' is out of range"},
    {"m'", 1, "prime on 'm', which is not a coordinate"},
    {"x + t'", 5, "prime on 't', which is not a coordinate"},
    {"pi'", 1, "prime on 'pi', which is not a coordinate"},
    {"3'", 2, "a prime ' must follow a coordinate name"},
    {"x''", 3, "a prime ' must follow a coordinate name"},
    {"atan2(x)", 1, "function 'atan2' takes 2 arguments"},
    {"1 + sin(x, y)", 5, "function 'sin' takes 1 argument"},
    {"sin()", 1, "function 'sin' takes 1 argument"},
    {"atan2(x,)", 9, "unexpected ')'"},
    {"sin x", 5, "expected '(' after function 'sin'"},
    {"x +", 4, "unexpected end of expression"},
    {"", 1, "unexpected end of expression"},
    {"   # only a comment", 4, "unexpected end of expression"},
    {"x^", 3, "unexpected end of expression"},
    {"-", 2, "unexpected end of expression"},
    {"x + 1)", 6, "unexpected ')'"},
    {"()", 2, "unexpected ')'"},
    {"x * * y", 5, "expected a number, a name or '(' before '*'"},
    {"+x", 1, "expected a number, a name or '(' before '+'"},
    {"x y", 3, "expected an operator before 'y'"},
    {"2 (x)", 3, "expected an operator before '('"},
    {"x $ y", 3, "unexpected character '$'"},
    {"x = 1", 3, "unexpected '='"},
    {"sin'(x)", 1, "prime on 'sin', which is not a coordinate"},
};

static int test_parse_errors(void) {
  nh_expr_pool *p = nh_expr_pool_create();
  ENSURE(p);
  int n = (int)(sizeof bad / sizeof bad[0]);
  ENSURE(n >= 20);
  for (int i = 0; i < n; i++) {
    int e = 0;
    nh_parse_error err;
    int st = nh_parse_expr(p, bad[i].src, strlen(bad[i].src), 1, 1, lookup, NULL, &e, NULL, &err);
    if (st != NH_ERR_PARSE || e != -1 || err.line != 1 || err.col != bad[i].col ||
        strcmp(err.msg, bad[i].msg) != 0) {
      printf("  \"%s\": status %d, %d:%d: %s\n  expected 1:%d: %s\n", bad[i].src, st, err.line,
             err.col, err.msg, bad[i].col, bad[i].msg);
      return 1;
    }
  }
  /* nesting deeper than the limit is an error, not a stack overflow */
  char deep[1002];
  memset(deep, '(', 1000);
  deep[1000] = 'x';
  deep[1001] = '\0';
  int e;
  nh_parse_error err;
  ENSURE(nh_parse_expr(p, deep, strlen(deep), 1, 1, lookup, NULL, &e, NULL, &err) ==
         NH_ERR_PARSE);
  ENSURE(strcmp(err.msg, "expression nested too deeply") == 0);
  /* errors are reported in file coordinates: the fragment starts at line 7, column 12 */
  ENSURE(nh_parse_expr(p, "1 + (x", 6, 7, 12, lookup, NULL, &e, NULL, &err) == NH_ERR_PARSE);
  ENSURE(err.line == 7 && err.col == 18);
  ENSURE(strcmp(err.msg, "expected ')' to close '(' opened at column 16") == 0);
  /* stop mode still rejects a stray ')' */
  size_t end;
  ENSURE(nh_parse_expr(p, "x)", 2, 1, 1, lookup, NULL, &e, &end, &err) == NH_ERR_PARSE);
  nh_expr_pool_destroy(p);
  return 0;
}

static int test_error_format(void) {
  const char *text = "model m\ncoordinates x\n\tkinetic x'^2 + (x\n";
  nh_parse_error err = {3, 18, "expected ')' to close '(' opened at column 16"};
  char buf[256];
  size_t n = nh_parse_error_format(buf, sizeof buf, "m.nh", text, &err);
  const char *want = "m.nh:3:18: error: expected ')' to close '(' opened at column 16\n"
                     "\tkinetic x'^2 + (x\n"
                     "\t                ^\n";
  if (strcmp(buf, want) != 0) printf("  got:\n%s", buf);
  ENSURE(strcmp(buf, want) == 0 && n == strlen(want));
  /* truncation behaves like snprintf */
  char small[10];
  ENSURE(nh_parse_error_format(small, sizeof small, "m.nh", text, &err) == n);
  ENSURE(strlen(small) == 9 && strncmp(small, want, 9) == 0);
  /* a column past the end of the line, no file name */
  nh_parse_error e2 = {1, 4, "unexpected end of expression"};
  nh_parse_error_format(buf, sizeof buf, NULL, "x +", &e2);
  ENSURE(strcmp(buf, "<input>:1:4: error: unexpected end of expression\nx +\n   ^\n") == 0);
  return 0;
}

/* ---- derivatives --------------------------------------------------------------------- */

/* Richardson-extrapolated central difference of e along variable k at v */
static double fd(const nh_expr_pool *p, int e, int k, const double *v0) {
  double v[NVARS], h = 1e-3 * fmax(1.0, fabs(v0[k])), d[2];
  for (int r = 0; r < 2; r++, h /= 2) {
    memcpy(v, v0, sizeof v);
    v[k] = v0[k] + h;
    double fp = nh_expr_eval(p, e, v);
    v[k] = v0[k] - h;
    double fm = nh_expr_eval(p, e, v);
    d[r] = (fp - fm) / (2 * h);
  }
  return (4 * d[1] - d[0]) / 3;
}

/* every function and operator, composed with inner functions of two variables; the
 * points x, y in [0.5, 1.5) keep every argument inside its domain */
static const char *funcs[] = {
    "sin(x*y)",         "cos(x^2 + y)",    "tan(0.3*x*y)",      "asin(0.4*sin(x*y))",
    "acos(0.4*cos(x+y))", "atan(x*y - 1)", "atan2(y, x)",       "atan2(x*y, x - 3)",
    "sinh(x*y/3)",      "cosh(x - y)",     "tanh(x*y)",         "exp(x*y/2)",
    "log(2 + x^2 + y)", "sqrt(1 + x^2*y^2)", "abs(x + y)",      "abs(x - 3*y - 1)",
    "x^y",              "x^2.5*y",         "(x + y)^-3",        "x^3*y^2 - x*y",
    "x/y",              "(x - y)/(x + y)", "sqrt(x)*log(y)",    "-x^2*cos(y)",
    "(x*y)^(x - y)",    "2^x*3^-y",        "sin(x)*sin(x) + sin(x)", "exp(-x*y)*sin(x/y)",
};

static int test_diff_functions(void) {
  nh_expr_pool *p = nh_expr_pool_create();
  ENSURE(p);
  unsigned long long seed = 11;
  int nf = (int)(sizeof funcs / sizeof funcs[0]);
  for (int i = 0; i < nf; i++) {
    int f = P(p, NULL, funcs[i]);
    ENSURE(f >= 0);
    int d[2], dd[2][2];
    for (int a = 0; a < 2; a++) d[a] = nh_expr_diff(p, f, a);
    for (int a = 0; a < 2; a++)
      for (int b = 0; b < 2; b++) dd[a][b] = nh_expr_diff(p, d[a], b);
    ENSURE(d[0] >= 0 && d[1] >= 0 && dd[0][0] >= 0 && dd[1][1] >= 0);
    for (int k = 0; k < 20; k++) {
      double v[NVARS];
      random_vars(&seed, v);
      for (int a = 0; a < 2; a++) {
        double exact = nh_expr_eval(p, d[a], v), approx = fd(p, f, a, v);
        if (!(fabs(exact - approx) <= 1e-7 * fmax(1.0, fabs(exact)))) {
          printf("  d/d%s %s at (%.17g, %.17g): %.17g vs FD %.17g\n", var_names[a], funcs[i],
                 v[0], v[1], exact, approx);
          return 1;
        }
        for (int b = 0; b < 2; b++) {
          double exact2 = nh_expr_eval(p, dd[a][b], v), approx2 = fd(p, d[a], b, v);
          if (!(fabs(exact2 - approx2) <= 1e-7 * fmax(1.0, fabs(exact2)))) {
            printf("  d2/d%sd%s %s: %.17g vs FD %.17g\n", var_names[a], var_names[b], funcs[i],
                   exact2, approx2);
            return 1;
          }
        }
      }
    }
    /* symmetry of second derivatives (exact values, evaluated) */
    double v[NVARS] = {0.8, 1.2};
    ENSURE_REL(nh_expr_eval(p, dd[0][1], v), nh_expr_eval(p, dd[1][0], v), 1e-12);
    /* a variable that does not appear differentiates to the constant 0 */
    double c;
    ENSURE(nh_expr_is_const(p, nh_expr_diff(p, f, 5), &c) && c == 0.0);
  }
  nh_expr_pool_destroy(p);
  return 0;
}

static int test_diff_rules(void) {
  nh_expr_pool *p = nh_expr_pool_create();
  ENSURE(p);
  int x = nh_expr_var(p, 0);
  /* exact symbolic forms after simplification */
  ENSURE(nh_expr_diff(p, x, 0) == nh_expr_const(p, 1.0));
  ENSURE(nh_expr_diff(p, P(p, NULL, "x^2"), 0) == P(p, NULL, "2*x"));
  ENSURE(nh_expr_diff(p, P(p, NULL, "sin(x)"), 0) == P(p, NULL, "cos(x)"));
  ENSURE(nh_expr_diff(p, P(p, NULL, "exp(x)"), 0) == P(p, NULL, "exp(x)"));
  ENSURE(nh_expr_diff(p, P(p, NULL, "3*x + y"), 0) == P(p, NULL, "3"));
  ENSURE(nh_expr_diff(p, P(p, NULL, "abs(x)"), 0) == nh_expr_unary(p, NH_EX_SIGN, x));
  /* memoised: asking again builds nothing */
  int f = P(p, NULL, "sin(x*y)^3/(1 + x^2)");
  int d1 = nh_expr_diff(p, f, 0);
  int count = nh_expr_count(p);
  ENSURE(nh_expr_diff(p, f, 0) == d1 && nh_expr_count(p) == count);
  /* derivatives of any order stay exact: d^4/dx^4 sin(x) = sin(x) */
  int s = P(p, NULL, "sin(x)"), d = s;
  for (int k = 0; k < 4; k++) d = nh_expr_diff(p, d, 0);
  ENSURE(d == s);
  nh_expr_pool_destroy(p);
  return 0;
}

/* M = d^2 T / dq'^2 for the penny and for a coupled kinetic energy */
static int test_mass_matrix(void) {
  nh_expr_pool *p = nh_expr_pool_create();
  ENSURE(p);
  syms s = {{"I", "J"}, {-1, -1}, 2};
  s.let_node[0] = P(p, &s, "1/2*m*R^2");
  s.let_node[1] = P(p, &s, "1/4*m*R^2");
  int T = P(p, &s, "1/2*m*(x'^2 + y'^2) + 1/2*I*theta'^2 + 1/2*J*phi'^2");
  ENSURE(T >= 0);
  int M[NQ][NQ];
  for (int i = 0; i < NQ; i++)
    for (int j = 0; j < NQ; j++) M[i][j] = nh_expr_diff(p, nh_expr_diff(p, T, NQ + i), NQ + j);
  double v[NVARS];
  unsigned long long seed = 5;
  random_vars(&seed, v);
  double m = v[9], R = v[10], want[NQ] = {m, m, m * R * R / 2, m * R * R / 4};
  for (int i = 0; i < NQ; i++)
    for (int j = 0; j < NQ; j++) {
      double c;
      if (i != j) {
        ENSURE(nh_expr_is_const(p, M[i][j], &c) && c == 0.0); /* structurally zero */
      } else {
        ENSURE_REL(nh_expr_eval(p, M[i][j], v), want[i], 1e-15);
        ENSURE(!nh_expr_is_const(p, nh_expr_diff(p, M[i][j], 9), &c) || c != 0.0);
      }
    }
  /* a kinetic energy with configuration-dependent coupling */
  int T2 = P(p, &s, "1/2*x'^2 + cos(x)*x'*y' + y'^2 + m*sin(phi)*x'*phi'");
  int x_ = NQ, y_ = NQ + 1, phi_ = NQ + 3;
  int M01 = nh_expr_diff(p, nh_expr_diff(p, T2, x_), y_);
  int M10 = nh_expr_diff(p, nh_expr_diff(p, T2, y_), x_);
  ENSURE(M01 == M10 && M01 == P(p, &s, "cos(x)"));
  ENSURE(nh_expr_diff(p, nh_expr_diff(p, T2, x_), x_) == nh_expr_const(p, 1.0));
  ENSURE(nh_expr_diff(p, nh_expr_diff(p, T2, y_), y_) == nh_expr_const(p, 2.0));
  ENSURE(nh_expr_diff(p, nh_expr_diff(p, T2, x_), phi_) == P(p, &s, "m*sin(phi)"));
  /* its q-derivative, as the Christoffel terms need */
  ENSURE(nh_expr_diff(p, M01, 0) == P(p, &s, "-sin(x)"));
  nh_expr_pool_destroy(p);
  return 0;
}

/* ---- printing ------------------------------------------------------------------------ */

static int test_print(void) {
  nh_expr_pool *p = nh_expr_pool_create();
  ENSURE(p);
  static const char *const same[] = {
      "-x^2",          "(x + y)*theta", "x - (y - theta)", "x - y - theta", "x/(y*theta)",
      "(-x)^y",        "x^y^theta",     "(x^y)^theta",     "atan2(y, x - 1)", "-(x*y)",
      "x^-2",          "0.1 + x",       "sin(cos(x))/3",   "x'*phi' - t",     "-x*y",
      "2^(-x)",        "(x + 1)^2.5",   "x*-2",
  };
  char buf[256];
  for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
    int e = P(p, NULL, same[i]);
    ENSURE(e >= 0);
    nh_expr_print(p, e, var_names, buf, sizeof buf);
    /* the printed text parses back to the very same node */
    if (P(p, NULL, buf) != e) {
      printf("  \"%s\" printed as \"%s\"\n", same[i], buf);
      return 1;
    }
  }
  nh_expr_print(p, P(p, NULL, "-x^2"), var_names, buf, sizeof buf);
  ENSURE(strcmp(buf, "-x^2") == 0);
  nh_expr_print(p, P(p, NULL, "x - (y - theta)"), var_names, buf, sizeof buf);
  ENSURE(strcmp(buf, "x - (y - theta)") == 0);
  nh_expr_print(p, P(p, NULL, "sin(x)/0.1"), NULL, buf, sizeof buf);
  ENSURE(strcmp(buf, "sin(v0)/0.1") == 0);
  /* derivatives (except of abs: sign is not in the language) print and read back */
  int nf = (int)(sizeof funcs / sizeof funcs[0]);
  for (int i = 0; i < nf; i++) {
    if (strstr(funcs[i], "abs")) continue;
    int d = nh_expr_diff(p, nh_expr_diff(p, P(p, NULL, funcs[i]), 0), 1);
    size_t n = nh_expr_print(p, d, var_names, buf, sizeof buf);
    char *big = malloc(n + 1);
    ENSURE(big);
    nh_expr_print(p, d, var_names, big, n + 1);
    int back = P(p, NULL, big);
    if (back != d) printf("  %s\n", big);
    free(big);
    ENSURE(back == d);
  }
  /* snprintf-like truncation */
  size_t n = nh_expr_print(p, P(p, NULL, "x + y"), var_names, buf, 3);
  ENSURE(n == 5 && strcmp(buf, "x ") == 0);
  nh_expr_pool_destroy(p);
  return 0;
}

/* ---- tapes ------------------------------------------------------------------------------ */

static int test_tape(void) {
  nh_expr_pool *p = nh_expr_pool_create();
  ENSURE(p);
  /* all functions, their gradients and Hessians as the outputs of one tape */
  int nf = (int)(sizeof funcs / sizeof funcs[0]);
  int *outs = malloc((size_t)nf * 7 * sizeof *outs);
  ENSURE(outs);
  int nout = 0;
  long tree = 0;
  for (int i = 0; i < nf; i++) {
    int f = P(p, NULL, funcs[i]);
    int fx = nh_expr_diff(p, f, 0), fy = nh_expr_diff(p, f, 1);
    int list[7] = {f, fx, fy, nh_expr_diff(p, fx, 0), nh_expr_diff(p, fx, 1),
                   nh_expr_diff(p, fy, 1), nh_expr_const(p, 1.5)};
    for (int k = 0; k < 7; k++) {
      ENSURE(list[k] >= 0);
      outs[nout++] = list[k];
      tree += nh_expr_tree_ops(p, list[k]);
    }
  }
  nh_tape *t = nh_tape_create(p, nout, outs);
  ENSURE(t);
  ENSURE(nh_tape_noutputs(t) == nout && nh_tape_nvars(t) == 2);
  ENSURE(nh_tape_op_count(t) < tree); /* shared subexpressions are computed once */
  double *slots = malloc((size_t)nh_tape_nslots(t) * sizeof *slots);
  double *res = malloc((size_t)nout * sizeof *res);
  ENSURE(slots && res);
  unsigned long long seed = 3;
  for (int k = 0; k < 50; k++) {
    double v[NVARS];
    random_vars(&seed, v);
    nh_tape_eval(t, v, slots, res);
    for (int i = 0; i < nout; i++) ENSURE_REL(res[i], nh_expr_eval(p, outs[i], v), 1e-15);
  }
  printf("  %d outputs: %d tape operations, %ld as trees, %d slots\n", nout,
         nh_tape_op_count(t), tree, nh_tape_nslots(t));
  nh_tape_destroy(t);
  free(slots);
  free(res);
  free(outs);

  /* sin(x)*sin(x) + sin(x): one sin, one product, one sum */
  int e = P(p, NULL, "sin(x)*sin(x) + sin(x)");
  ENSURE(nh_expr_tree_ops(p, e) == 5);
  t = nh_tape_create(p, 1, &e);
  ENSURE(t && nh_tape_op_count(t) == 3 && nh_tape_nslots(t) == 4);
  double v[NVARS] = {0.7}, sl[4], out;
  nh_tape_eval(t, v, sl, &out);
  ENSURE(out == sin(0.7) * sin(0.7) + sin(0.7));
  nh_tape_destroy(t);
  /* constant and variable outputs, the same node twice, no outputs */
  int cv[3] = {nh_expr_const(p, 2.0), nh_expr_var(p, 1), nh_expr_var(p, 1)};
  t = nh_tape_create(p, 3, cv);
  ENSURE(t && nh_tape_op_count(t) == 0 && nh_tape_nslots(t) == 2);
  double v2[2] = {0, 9}, r3[3];
  nh_tape_eval(t, v2, sl, r3);
  ENSURE(r3[0] == 2.0 && r3[1] == 9.0 && r3[2] == 9.0);
  nh_tape_destroy(t);
  t = nh_tape_create(p, 0, NULL);
  ENSURE(t && nh_tape_nslots(t) == 0 && nh_tape_nvars(t) == 0);
  nh_tape_destroy(t);
  int badid = 1 << 30;
  ENSURE(nh_tape_create(p, 1, &badid) == NULL);
  nh_expr_pool_destroy(p);
  return 0;
}

/* ---- growth ------------------------------------------------------------------------------ */

/* many nodes: the arena and both hash tables grow; ids stay valid and unique */
static int test_growth(void) {
  nh_expr_pool *p = nh_expr_pool_create();
  ENSURE(p);
  int x = nh_expr_var(p, 0), sum = nh_expr_const(p, 0.0);
  for (int k = 1; k <= 5000; k++)
    sum = nh_expr_add(p, sum, nh_expr_mul(p, nh_expr_const(p, k), nh_expr_powi(p, x, k % 7 + 1)));
  ENSURE(sum >= 0 && nh_expr_count(p) > 10000);
  int again = nh_expr_const(p, 0.0);
  for (int k = 1; k <= 5000; k++)
    again =
        nh_expr_add(p, again, nh_expr_mul(p, nh_expr_powi(p, x, k % 7 + 1), nh_expr_const(p, k)));
  ENSURE(again == sum);
  int d = nh_expr_diff(p, sum, 0);
  ENSURE(d >= 0);
  double v[1] = {0.5}, want = 0.0;
  for (int k = 1; k <= 5000; k++) want += k * (k % 7 + 1) * pow(0.5, k % 7);
  /* the tape handles a 10^4-node DAG; the recursive reference would too */
  nh_tape *t = nh_tape_create(p, 1, &d);
  ENSURE(t);
  double *slots = malloc((size_t)nh_tape_nslots(t) * sizeof *slots), out;
  ENSURE(slots);
  nh_tape_eval(t, v, slots, &out);
  ENSURE_REL(out, want, 1e-12);
  free(slots);
  nh_tape_destroy(t);
  nh_expr_pool_destroy(p);
  return 0;
}

/* nh_expr_sum_is_const: sums of products decided constant by the sin^2 + cos^2 = 1 normal
 * form; a shown constant has that value at random points, the rest are not shown */
static int sum1_const(nh_expr_pool *p, const char *src, double *value) {
  int e = P(p, NULL, src), one = nh_expr_const(p, 1.0);
  double c = 1.0;
  return e < 0 || one < 0 ? -1 : nh_expr_sum_is_const(p, 1, &c, &e, &one, value);
}

static int test_trig_constant(void) {
  nh_expr_pool *p = nh_expr_pool_create();
  ENSURE(p);
  static const struct {
    const char *src;
    int constant;
    double value;
  } cases[] = {
      {"sin(theta)^2 + cos(theta)^2", 1, 1.0},
      {"2 + m*0 + 3*sin(x*y)^2 + 3*cos(x*y)^2", 1, 5.0},
      {"1/2 + sin(phi)*sin(phi)/4 + (-cos(phi))*(-cos(phi))/4", 1, 0.75},
      {"cos(x)^4 + 2*sin(x)^2*cos(x)^2 + sin(x)^4", 1, 1.0},  /* (s^2 + c^2)^2 */
      {"(cos(x)^2 - sin(y)^2)*7 + 7*sin(x)^2 - 7*cos(y)^2", 1, 0.0},
      {"cos(x)^6 + 3*cos(x)^4*sin(x)^2 + 3*cos(x)^2*sin(x)^4 + sin(x)^6 - 1", 1, 0.0},
      {"1 + sin(theta)^2", 0, 0.0},                            /* the gearbox's G */
      {"sin(x)*cos(x)", 0, 0.0},
      {"cos(x)^2 - cos(y)^2", 0, 0.0},
      {"sin(2*x) - 2*sin(x)*cos(x)", 0, 0.0},                  /* true, not shown: safe */
      {"x^2/(x^2 + y^2) + y^2/(x^2 + y^2)", 0, 0.0},           /* quotients are atoms */
      {"tan(x)^2 - sin(x)^2/cos(x)^2", 0, 0.0},
  };
  unsigned long long seed = 11;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    double value = NAN;
    int got = sum1_const(p, cases[i].src, &value);
    if (got != cases[i].constant) printf("  %s: %d, expected %d\n", cases[i].src, got, cases[i].constant);
    ENSURE(got == cases[i].constant);
    if (!got) continue;
    ENSURE_REL(value, cases[i].value, 1e-15);
    for (int k = 0; k < 20; k++) { /* the claim holds at random points */
      double v[NVARS];
      random_vars(&seed, v);
      for (int j = 0; j < NVARS; j++) v[j] = 10.0 * v[j] - 7.0;
      ENSURE(fabs(V(p, cases[i].src, v) - value) <= 1e-13 * (1.0 + fabs(value)));
    }
  }
  /* the sum over several products: G of the sleigh, a^2/I + (sin^2 + cos^2)/m */
  int th = nh_expr_var(p, 2), sn = nh_expr_unary(p, NH_EX_SIN, th), cs = nh_expr_unary(p, NH_EX_COS, th);
  int ncs = nh_expr_neg(p, cs), a = nh_expr_const(p, 0.5);
  int A[3] = {a, sn, ncs};
  double coef[3] = {1.0 / 3.0, 0.25, 0.25}, g = NAN;
  ENSURE(nh_expr_sum_is_const(p, 3, coef, A, A, &g) == 1);
  ENSURE_REL(g, 0.25 / 3.0 + 0.25, 1e-15);
  coef[2] = 0.5; /* unequal masses in x and y: G depends on theta */
  ENSURE(nh_expr_sum_is_const(p, 3, coef, A, A, &g) == 0);
  /* an empty sum (no term, or only zero coefficients: a constraint row orthogonal to the
   * others, as the sphere on an incline has) is the constant 0, with no polynomial formed */
  g = NAN;
  ENSURE(nh_expr_sum_is_const(p, 0, coef, A, A, &g) == 1 && g == 0.0);
  double zero[3] = {0.0, 0.0, 0.0};
  g = NAN;
  ENSURE(nh_expr_sum_is_const(p, 3, zero, A, A, &g) == 1 && g == 0.0);
  /* past the work bound: not shown (and no failure) */
  int big = nh_expr_const(p, 0.0);
  for (int k = 0; k < 8; k++) big = nh_expr_add(p, big, nh_expr_var(p, k));
  int b12 = nh_expr_powi(p, big, 8);
  double one = 1.0;
  ENSURE(nh_expr_sum_is_const(p, 1, &one, &b12, &b12, &g) == 0);
  nh_expr_pool_destroy(p);
  return 0;
}

/* limits that protect the recursive walks, large exponents, non-finite constants */
static int test_limits(void) {
  nh_expr_pool *p = nh_expr_pool_create();
  ENSURE(p);
  /* 10001 operators: rejected at the one past the limit */
  size_t n = 2 * 10001 + 1;
  char *s = malloc(n + 1);
  ENSURE(s);
  for (size_t i = 0; i < n; i++) s[i] = i % 2 ? '+' : 'x';
  s[n] = '\0';
  int e;
  nh_parse_error err;
  int st = nh_parse_expr(p, s, n, 1, 1, lookup, NULL, &e, NULL, &err);
  ENSURE(st == NH_ERR_PARSE && err.col == 2 * 10001);
  ENSURE(strcmp(err.msg, "expression too long (more than 10000 operators)") == 0);
  s[n - 2] = '\0'; /* 10000 operators are fine */
  ENSURE(nh_parse_expr(p, s, n - 2, 1, 1, lookup, NULL, &e, NULL, &err) == NH_OK);
  ENSURE(nh_expr_eval(p, e, (double[NVARS]){1.0}) == 10001.0);
  free(s);
  /* differentiation is iterative: a chain 200000 deep, evaluated by a tape */
  int x = nh_expr_var(p, 0), c = x;
  for (int k = 0; k < 200000; k++) c = nh_expr_unary(p, NH_EX_SIN, c);
  int d = nh_expr_diff(p, c, 0);
  ENSURE(c >= 0 && d >= 0);
  nh_tape *t = nh_tape_create(p, 1, &d);
  ENSURE(t);
  double *slots = malloc((size_t)nh_tape_nslots(t) * sizeof *slots), out, v = 0.3, dv = 1.0;
  ENSURE(slots);
  nh_tape_eval(t, &v, slots, &out);
  for (int k = 0; k < 200000; k++) dv *= cos(v), v = sin(v);
  ENSURE_REL(out, dv, 1e-12);
  free(slots);
  nh_tape_destroy(t);
  /* dependence on a range of variables, through a deep DAG */
  ENSURE(nh_expr_uses_vars(p, c, 0, 1) == 1 && nh_expr_uses_vars(p, c, 1, NVARS) == 0);
  int pe = P(p, NULL, "sin(x)*m + y'^2");
  ENSURE(nh_expr_uses_vars(p, pe, NQ, 2 * NQ) == 1); /* velocities */
  ENSURE(nh_expr_uses_vars(p, pe, 2, NQ) == 0 && nh_expr_uses_vars(p, pe, 9, 10) == 1);
  ENSURE(nh_expr_uses_vars(p, nh_expr_const(p, 1), 0, NVARS) == 0);
  ENSURE(nh_expr_uses_vars(p, -1, 0, NVARS) == -1);
  /* exponents beyond NH_EXPR_POWI_MAX are general powers */
  ENSURE(nh_expr_get(p, nh_expr_powi(p, x, 1000))->kind == NH_EX_POW);
  ENSURE(nh_expr_get(p, nh_expr_powi(p, x, -2147483647 - 1))->kind == NH_EX_POW);
  ENSURE(nh_expr_get(p, nh_expr_powi(p, x, 64))->kind == NH_EX_POWI);
  /* non-finite constants print as quotients that fold back to them */
  char buf[64];
  int inf = P(p, NULL, "1/0");
  nh_expr_print(p, nh_expr_mul(p, x, inf), var_names, buf, sizeof buf);
  ENSURE(P(p, NULL, buf) == nh_expr_mul(p, x, inf));
  nh_expr_print(p, nh_expr_neg(p, inf), var_names, buf, sizeof buf);
  ENSURE(strcmp(buf, "(-1/0)") == 0);
  nh_expr_pool_destroy(p);
  return 0;
}

/* nh_text_printf: its own %d, %ld, %s and %% agree with snprintf, other conversions go to
 * vsnprintf, and the text grows past its first buffer */
static int test_text_printf(void) {
  nh_text b = {0};
  char want[256];
  const long big = -9223372036854775807L - 1;
  nh_text_printf(&b, "s%d = s%d * %s;%% %ld|%d|%d\n", 12, -7, "x[3]", big, 0, 2147483647);
  snprintf(want, sizeof want, "s%d = s%d * %s;%% %ld|%d|%d\n", 12, -7, "x[3]", big, 0, 2147483647);
  ENSURE(b.s && strcmp(b.s, want) == 0 && b.n == strlen(want));
  size_t n0 = b.n;
  nh_text_printf(&b, "%a, %g", 0.1, 2.5);
  snprintf(want, sizeof want, "%a, %g", 0.1, 2.5);
  ENSURE(strcmp(b.s + n0, want) == 0);
  nh_text_printf(&b, "plain");
  ENSURE(strcmp(b.s + n0 + strlen(want), "plain") == 0);
  for (int i = 0; i < 20000; i++) nh_text_printf(&b, "o[%d] = s%d;\n", i, i);
  ENSURE(!b.nomem && b.n == strlen(b.s) && strstr(b.s, "o[19999] = s19999;\n"));
  free(b.s);
  nh_text e = {0};
  nh_text_printf(&e, "%s", "");
  ENSURE(e.s && e.s[0] == '\0' && e.n == 0);
  free(e.s);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_text_printf);
  RUN_TEST(test_hash_consing);
  RUN_TEST(test_simplify);
  RUN_TEST(test_parse_precedence);
  RUN_TEST(test_parse_names);
  RUN_TEST(test_parse_errors);
  RUN_TEST(test_error_format);
  RUN_TEST(test_diff_functions);
  RUN_TEST(test_diff_rules);
  RUN_TEST(test_mass_matrix);
  RUN_TEST(test_print);
  RUN_TEST(test_tape);
  RUN_TEST(test_growth);
  RUN_TEST(test_trig_constant);
  RUN_TEST(test_limits);
  return TEST_SUMMARY();
}
