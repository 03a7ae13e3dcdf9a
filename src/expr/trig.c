/* trig.c - is a sum of products of expressions identically constant? A decision by normal
 * form, for the Gram matrix G = A M^-1 A^T of a model with constant M (the Chaplygin sleigh's
 * G = a^2/I + (sin^2 + cos^2)/m is constant; a method then factors it once per run).
 *
 * Each expression becomes a polynomial in atoms: + - * by constants, / by a constant and
 * integer powers 0..TRIG_MAX_POW are expanded; sin(u) and cos(u) are atoms keyed by u (the
 * same node id: hash-consing makes equal subexpressions one node); every other node (a
 * variable, tan(u), a quotient, ...) is an atom of its own. The normal form then replaces
 * cos(u)^2 by 1 - sin(u)^2 until no cos power above 1 is left (the identity sin^2 + cos^2 = 1;
 * with it the normal form of a polynomial in sin(u), cos(u) is unique) and collects equal
 * monomials. The sum is declared constant when every non-constant monomial's coefficient is
 * zero up to the round-off of the sum that formed it (TRIG_ZERO_TOL); then *value is the
 * constant term. The answer "not shown constant" (0) is always safe: the caller keeps the
 * general path. Work is bounded (TRIG_MAX_TERMS monomials). Private to the library. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"

#define TRIG_MAX_POW 8      /* largest integer power expanded (x^9: an atom) */
#define TRIG_MAX_FACTORS 8  /* atoms per monomial (more: not shown constant) */
#define TRIG_MAX_TERMS 4096 /* monomials of a polynomial, at any stage */
/* a coefficient is zero when |c| <= TRIG_ZERO_TOL * (sum of |contributions|): the rounding of
 * a sum of that many terms, not a property of the model */
#define TRIG_ZERO_TOL (64.0 * DBL_EPSILON)

typedef struct mono {
  double c, mag;               /* coefficient; sum of |contributions| (for the zero test) */
  int nf;                      /* factors, ascending by atom */
  int atom[TRIG_MAX_FACTORS];  /* atom key */
  int pow[TRIG_MAX_FACTORS];   /* its power >= 1 */
} mono;

typedef struct poly {
  int n, cap;
  mono *t;
} poly;

/* atom keys: sin(u) = 3u, cos(u) = 3u + 1, any other node e = 3e + 2 */
#define KEY_SIN(u) (3 * (u))
#define KEY_COS(u) (3 * (u) + 1)
#define KEY_NODE(e) (3 * (e) + 2)

static void poly_free(poly *p) {
  free(p->t);
  p->t = NULL, p->n = p->cap = 0;
}

/* append a monomial; 0, or -1 when over budget or out of memory */
static int poly_push(poly *p, const mono *m) {
  if (p->n >= TRIG_MAX_TERMS) return -1;
  if (p->n == p->cap) {
    int cap = p->cap ? 2 * p->cap : 8;
    mono *t = realloc(p->t, (size_t)cap * sizeof *t);
    if (!t) return -1;
    p->t = t, p->cap = cap;
  }
  p->t[p->n++] = *m;
  return 0;
}

static int poly_const(poly *p, double c) {
  mono m = {.c = c, .mag = fabs(c), .nf = 0};
  return poly_push(p, &m);
}

static int poly_atom(poly *p, int key) {
  mono m = {.c = 1.0, .mag = 1.0, .nf = 1};
  m.atom[0] = key, m.pow[0] = 1;
  return poly_push(p, &m);
}

/* a * b into out (factors merged in atom order); -1 when a product has too many factors */
static int mono_mul(const mono *a, const mono *b, mono *out) {
  int i = 0, j = 0, n = 0;
  out->c = a->c * b->c;
  out->mag = a->mag * b->mag;
  while (i < a->nf || j < b->nf) {
    if (n == TRIG_MAX_FACTORS) return -1;
    if (j == b->nf || (i < a->nf && a->atom[i] < b->atom[j])) {
      out->atom[n] = a->atom[i], out->pow[n++] = a->pow[i++];
    } else if (i == a->nf || b->atom[j] < a->atom[i]) {
      out->atom[n] = b->atom[j], out->pow[n++] = b->pow[j++];
    } else {
      out->atom[n] = a->atom[i], out->pow[n++] = a->pow[i++] + b->pow[j++];
    }
  }
  out->nf = n;
  return 0;
}

static int poly_mul(const poly *a, const poly *b, poly *out) {
  mono m;
  for (int i = 0; i < a->n; i++)
    for (int j = 0; j < b->n; j++)
      if (mono_mul(&a->t[i], &b->t[j], &m) || poly_push(out, &m)) return -1;
  return 0;
}

/* out += s * a */
static int poly_add_scaled(poly *out, const poly *a, double s) {
  for (int i = 0; i < a->n; i++) {
    mono m = a->t[i];
    m.c *= s, m.mag *= fabs(s);
    if (poly_push(out, &m)) return -1;
  }
  return 0;
}

/* the polynomial of node e (appended to out); recursion as deep as the expansion of e */
static int poly_of(const nh_expr_pool *pool, int e, poly *out, int depth) {
  const nh_expr_node *nd = nh_expr_get(pool, e);
  if (!nd || depth > 64) return -1;
  double c;
  switch (nd->kind) {
  case NH_EX_CONST: return poly_const(out, nd->c);
  case NH_EX_SIN: return poly_atom(out, KEY_SIN(nd->a));
  case NH_EX_COS: return poly_atom(out, KEY_COS(nd->a));
  case NH_EX_ADD:
  case NH_EX_SUB: {
    const int a = nd->a, b = nd->b, sub = nd->kind == NH_EX_SUB;
    poly pb = {0};
    int rc = poly_of(pool, a, out, depth + 1) || poly_of(pool, b, &pb, depth + 1) ||
             poly_add_scaled(out, &pb, sub ? -1.0 : 1.0);
    poly_free(&pb);
    return rc ? -1 : 0;
  }
  case NH_EX_NEG: {
    poly pa = {0};
    int rc = poly_of(pool, nd->a, &pa, depth + 1) || poly_add_scaled(out, &pa, -1.0);
    poly_free(&pa);
    return rc ? -1 : 0;
  }
  case NH_EX_MUL: {
    const int a = nd->a, b = nd->b;
    poly pa = {0}, pb = {0};
    int rc = poly_of(pool, a, &pa, depth + 1) || poly_of(pool, b, &pb, depth + 1) || poly_mul(&pa, &pb, out);
    poly_free(&pa), poly_free(&pb);
    return rc ? -1 : 0;
  }
  case NH_EX_DIV:
    if (nh_expr_is_const(pool, nd->b, &c) && c != 0.0) {
      poly pa = {0};
      int rc = poly_of(pool, nd->a, &pa, depth + 1) || poly_add_scaled(out, &pa, 1.0 / c);
      poly_free(&pa);
      return rc ? -1 : 0;
    }
    return poly_atom(out, KEY_NODE(e));
  case NH_EX_POWI:
    if (nd->k >= 0 && nd->k <= TRIG_MAX_POW) {
      const int a = nd->a, k = nd->k;
      poly acc = {0}, base = {0};
      int rc = poly_const(&acc, 1.0) || poly_of(pool, a, &base, depth + 1);
      for (int i = 0; i < k && !rc; i++) {
        poly next = {0};
        rc = poly_mul(&acc, &base, &next);
        poly_free(&acc);
        acc = next;
      }
      rc = rc || poly_add_scaled(out, &acc, 1.0);
      poly_free(&acc), poly_free(&base);
      return rc ? -1 : 0;
    }
    return poly_atom(out, KEY_NODE(e));
  default: return poly_atom(out, KEY_NODE(e));
  }
}

/* cos(u)^p, p >= 2 -> cos(u)^(p-2) (1 - sin(u)^2), until none is left */
static int poly_reduce(poly *p) {
  for (int i = 0; i < p->n; i++) {
    for (int f = 0; f < p->t[i].nf; f++) {
      mono *m = &p->t[i];
      if (m->atom[f] % 3 != 1 || m->pow[f] < 2) continue;
      const int u = m->atom[f] / 3;
      mono rest = *m;
      rest.pow[f] -= 2;
      if (rest.pow[f] == 0) { /* drop the factor */
        memmove(rest.atom + f, rest.atom + f + 1, (size_t)(rest.nf - f - 1) * sizeof(int));
        memmove(rest.pow + f, rest.pow + f + 1, (size_t)(rest.nf - f - 1) * sizeof(int));
        rest.nf--;
      }
      mono s2 = {.c = -1.0, .mag = 1.0, .nf = 1}, term;
      s2.atom[0] = KEY_SIN(u), s2.pow[0] = 2;
      if (mono_mul(&rest, &s2, &term) || poly_push(p, &term)) return -1;
      p->t[i] = rest; /* may still hold cos(u)^k: i is looked at again */
      f = -1;
    }
  }
  return 0;
}

static int mono_cmp(const void *x, const void *y) {
  const mono *a = x, *b = y;
  if (a->nf != b->nf) return a->nf < b->nf ? -1 : 1;
  for (int i = 0; i < a->nf; i++) {
    if (a->atom[i] != b->atom[i]) return a->atom[i] < b->atom[i] ? -1 : 1;
    if (a->pow[i] != b->pow[i]) return a->pow[i] < b->pow[i] ? -1 : 1;
  }
  return 0;
}

int nh_expr_sum_is_const(const nh_expr_pool *pool, int nterms, const double *coef, const int *a,
                         const int *b, double *value) {
  poly p = {0};
  int rc = 0;
  for (int t = 0; t < nterms && !rc; t++) {
    if (coef[t] == 0.0) continue;
    poly pa = {0}, pb = {0}, ab = {0};
    rc = poly_of(pool, a[t], &pa, 0) || poly_of(pool, b[t], &pb, 0) || poly_mul(&pa, &pb, &ab) ||
         poly_add_scaled(&p, &ab, coef[t]);
    poly_free(&pa), poly_free(&pb), poly_free(&ab);
  }
  rc = rc || poly_reduce(&p);
  int constant = 0;
  if (!rc) {
    // collect equal monomials; the constant monomial (no factor) sorts first (an empty sum,
    // p.t NULL, is the constant 0)
    if (p.n > 1) qsort(p.t, (size_t)p.n, sizeof *p.t, mono_cmp);
    double c0 = 0.0;
    constant = 1;
    for (int i = 0; i < p.n && constant;) {
      double c = 0.0, mag = 0.0;
      int j = i;
      for (; j < p.n && mono_cmp(&p.t[i], &p.t[j]) == 0; j++) c += p.t[j].c, mag += p.t[j].mag;
      if (p.t[i].nf == 0) c0 = c;
      else if (!(fabs(c) <= TRIG_ZERO_TOL * mag)) constant = 0;
      i = j;
    }
    if (constant && value) *value = c0;
  }
  poly_free(&p);
  return constant;
}
