/* walls.c - which gaps are walls, decided from the expression tree (docs/model-language.md,
 * "Which gaps are walls"). A gap stops a body where it crosses zero with a gradient: the
 * impact's normal. A gap whose gradient vanishes where it is zero has none there, and the
 * driver would let the body rest on it or pass through it (y^2 never goes negative; y^3
 * crosses with dg = 0, so every approach looks like a graze). Refused, each at the gap:
 *
 *   a constant gap, or one whose gradient is identically zero;
 *   a factor f^p of the gap with p > 1 (y^2, y^3, (x - 1)^2 (y - 2), y*y, sqrt(y)^3) whose f
 *     is not shown never zero: where f = 0 the gap and its gradient are both zero;
 *   a gap never negative (y^2 + x^2, abs(y), exp(y), cosh(y) - 1) or never positive: it is
 *     never crossed, or no configuration is strictly inside it;
 *   a factor (p = 1) that never changes sign and is not shown never zero (x*abs(y),
 *     (y - 1)*(x^2 + y^2)): where it is zero the gap touches zero without crossing, dg = 0.
 *
 * The factors are those of the top product (through *, the numerator of /, unary -, integer
 * and constant powers); a factor's sign and whether it can be zero come from interval bounds
 * over the tree (every variable unbounded), each node once in id order. What this does not see
 * ((x - 1)*(1 - x), (x - 1)^2 expanded) the initial-state check and the driver catch where
 * they meet it (nholo/model.h, NH_GAP_DEGEN_REL). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/mf.h"
#include "nholo/status.h"

/* bounds of a node over all values of the variables: [lo, hi] (infinities for unbounded), nz
 * when the node is shown never zero where it is defined */
typedef struct mf_iv {
  double lo, hi;
  int nz;
} mf_iv;

#define MF_WALL_MAX_FACTORS 64 /* factors of a gap's top product examined (more: not decided) */
#define MF_WALL_FACTOR_TEXT 40 /* characters of a factor quoted in a diagnostic */
#define MF_PI 3.14159265358979323846

static mf_iv iv_full(void) { return (mf_iv){-INFINITY, INFINITY, 0}; }

/* [lo, hi] (nz: never zero by construction, or by its bounds); a NaN bound: unbounded */
static mf_iv iv_make(double lo, double hi, int nz) {
  if (isnan(lo) || isnan(hi)) return iv_full();
  return (mf_iv){lo, hi, nz || lo > 0.0 || hi < 0.0};
}

/* a product of bounds, 0 times an infinite bound being 0 (the values are finite) */
static double mulb(double a, double b) { return a == 0.0 || b == 0.0 ? 0.0 : a * b; }

static mf_iv iv_mul(mf_iv a, mf_iv b) {
  double p[4] = {mulb(a.lo, b.lo), mulb(a.lo, b.hi), mulb(a.hi, b.lo), mulb(a.hi, b.hi)};
  double lo = p[0], hi = p[0];
  for (int i = 1; i < 4; i++) lo = fmin(lo, p[i]), hi = fmax(hi, p[i]);
  return iv_make(lo, hi, a.nz && b.nz);
}

/* 1/b: never zero where defined */
static mf_iv iv_recip(mf_iv b) {
  if (b.lo > 0.0 || b.hi < 0.0) return iv_make(1.0 / b.hi, 1.0 / b.lo, 1);
  if (b.lo == 0.0) return iv_make(1.0 / b.hi, INFINITY, 1);
  if (b.hi == 0.0) return iv_make(-INFINITY, 1.0 / b.lo, 1);
  return (mf_iv){-INFINITY, INFINITY, 1};
}

/* a + b: never zero also when both sides have one sign and one of them is never zero */
static mf_iv iv_add(mf_iv a, mf_iv b) {
  int nz = (a.lo >= 0.0 && b.lo >= 0.0 && (a.nz || b.nz)) || (a.hi <= 0.0 && b.hi <= 0.0 && (a.nz || b.nz));
  return iv_make(a.lo + b.lo, a.hi + b.hi, nz);
}

static mf_iv iv_neg(mf_iv a) { return (mf_iv){-a.hi, -a.lo, a.nz}; }

/* a^k, k a non-zero integer */
static mf_iv iv_powi(mf_iv a, int k) {
  if (k < 0) return iv_recip(iv_powi(a, -k));
  double pl = nh_expr_powi_eval(a.lo, k), ph = nh_expr_powi_eval(a.hi, k);
  if (k % 2) return iv_make(pl, ph, a.nz);
  if (a.lo >= 0.0) return iv_make(pl, ph, a.nz);
  if (a.hi <= 0.0) return iv_make(ph, pl, a.nz);
  return iv_make(0.0, fmax(pl, ph), a.nz);
}

/* bounds of a unary function of a */
static mf_iv iv_unary(int kind, mf_iv a) {
  const double hp = 0.5 * MF_PI;
  switch (kind) {
  case NH_EX_NEG: return iv_neg(a);
  case NH_EX_EXP: return iv_make(exp(a.lo), exp(a.hi), 1);
  case NH_EX_COSH: return iv_make(1.0, INFINITY, 1);
  case NH_EX_SINH: return iv_make(sinh(a.lo), sinh(a.hi), a.nz);
  case NH_EX_TANH: return iv_make(tanh(a.lo), tanh(a.hi), a.nz);
  case NH_EX_ATAN: return iv_make(atan(a.lo), atan(a.hi), a.nz);
  case NH_EX_ASIN: return iv_make(-hp, hp, a.nz);
  case NH_EX_ACOS: return iv_make(0.0, MF_PI, 0);
  case NH_EX_SIN:
  case NH_EX_COS: return iv_make(-1.0, 1.0, 0);
  case NH_EX_SIGN: return iv_make(-1.0, 1.0, a.nz);
  case NH_EX_SQRT: return a.hi < 0.0 ? iv_full() : iv_make(sqrt(fmax(a.lo, 0.0)), sqrt(a.hi), a.nz);
  case NH_EX_LOG: return a.lo >= 0.0 ? iv_make(log(a.lo), log(a.hi), 0) : iv_full();
  case NH_EX_ABS:
    if (a.lo >= 0.0) return a;
    if (a.hi <= 0.0) return iv_neg(a);
    return iv_make(0.0, fmax(-a.lo, a.hi), a.nz);
  default: return iv_full(); /* tan */
  }
}

/* the bounds of nodes 0..last into iv (children have smaller ids than their parents) */
static void bounds(const nh_expr_pool *P, int last, mf_iv *iv) {
  for (int id = 0; id <= last; id++) {
    const nh_expr_node n = *nh_expr_get(P, id);
    mf_iv a = n.a >= 0 ? iv[n.a] : iv_full(), b = n.b >= 0 ? iv[n.b] : iv_full();
    switch (n.kind) {
    case NH_EX_CONST: iv[id] = iv_make(n.c, n.c, n.c != 0.0); break;
    case NH_EX_VAR: iv[id] = iv_full(); break;
    case NH_EX_ADD: iv[id] = iv_add(a, b); break;
    case NH_EX_SUB: iv[id] = iv_add(a, iv_neg(b)); break;
    case NH_EX_MUL: iv[id] = iv_mul(a, b); break;
    case NH_EX_DIV: {
      mf_iv r = iv_mul(a, iv_recip(b));
      r.nz = a.nz;
      iv[id] = r;
      break;
    }
    case NH_EX_POWI: iv[id] = iv_powi(a, n.k); break;
    case NH_EX_POW: /* a^b: > 0 for a > 0, >= 0 for a >= 0 */
      iv[id] = a.lo >= 0.0 ? iv_make(0.0, INFINITY, a.nz) : iv_full();
      break;
    case NH_EX_ATAN2: iv[id] = iv_make(-MF_PI, MF_PI, 0); break;
    default: iv[id] = iv_unary(n.kind, a); break;
    }
  }
}

typedef struct mf_factor {
  int id;
  double p; /* the power it carries */
} mf_factor;

/* the factors of e's top product with their powers into f (at most MF_WALL_MAX_FACTORS, equal
 * factors merged); their count, or -1 when there are more (not decided) */
static int factors(const nh_expr_pool *P, int e, mf_factor *f) {
  mf_factor stack[MF_WALL_MAX_FACTORS];
  int ns = 0, nf = 0;
  stack[ns++] = (mf_factor){e, 1.0};
  while (ns > 0) {
    const mf_factor t = stack[--ns];
    const nh_expr_node n = *nh_expr_get(P, t.id);
    double c;
    mf_factor kids[2];
    int nk = 0;
    if (n.kind == NH_EX_MUL) kids[nk++] = (mf_factor){n.a, t.p}, kids[nk++] = (mf_factor){n.b, t.p};
    else if (n.kind == NH_EX_DIV || n.kind == NH_EX_NEG) kids[nk++] = (mf_factor){n.a, t.p}; /* (1/b is never 0) */
    else if (n.kind == NH_EX_POWI) {
      if (n.k > 0) kids[nk++] = (mf_factor){n.a, t.p * n.k};
    } else if (n.kind == NH_EX_POW && nh_expr_is_const(P, n.b, &c) && c > 0.0) {
      kids[nk++] = (mf_factor){n.a, t.p * c};
    } else if (n.kind != NH_EX_CONST) {
      int i = 0;
      while (i < nf && f[i].id != t.id) i++;
      if (i == nf) {
        if (nf == MF_WALL_MAX_FACTORS) return -1;
        f[nf++] = (mf_factor){t.id, 0.0};
      }
      f[i].p += t.p;
    }
    for (int k = 0; k < nk; k++) {
      if (ns == MF_WALL_MAX_FACTORS) return -1;
      stack[ns++] = kids[k];
    }
  }
  return nf;
}

/* factor e as text, cut to MF_WALL_FACTOR_TEXT characters */
static void factor_text(const mf *m, int e, char *buf, size_t size) {
  const char **names = malloc(sizeof *names * (size_t)m->nq);
  if (!names) {
    snprintf(buf, size, "(a factor)");
    return;
  }
  for (int i = 0; i < m->nq; i++) names[i] = m->coord[i];
  char text[MF_WALL_FACTOR_TEXT + 1];
  size_t len = nh_expr_print(m->pool, e, names, text, sizeof text);
  snprintf(buf, size, "'%s%s'", text, len >= sizeof text ? "..." : "");
  free(names);
}

/* gap k against the rules at the top of this file, iv the bounds of its nodes */
static int check_wall(mf *m, int k, const mf_iv *iv) {
  const mf_item *it = &m->gap[k];
  const int e = it->node, n = m->nq;
  double c;
  char text[MF_WALL_FACTOR_TEXT + 8];
  if (nh_expr_is_const(m->pool, e, &c) || !nh_expr_uses_vars(m->pool, e, 0, n))
    return mf_fail(m, it->off, "gap '%s' is a constant (g = %g): it depends on no coordinate, so it is no wall",
                   it->name, nh_expr_is_const(m->pool, e, &c) ? c : nh_expr_eval(m->pool, e, m->q0));
  if (mf_all_zero(m, m->dg + (size_t)k * n, n))
    return mf_fail(m, it->off, "gap '%s' has a gradient that is identically zero: it does not change with the "
                               "coordinates, so it is no wall", it->name);
  mf_factor f[MF_WALL_MAX_FACTORS];
  const int nf = factors(m->pool, e, f);
  for (int i = 0; i < nf; i++) /* powers */
    if (f[i].p > 1.0 && !iv[f[i].id].nz && nh_expr_uses_vars(m->pool, f[i].id, 0, n) > 0) {
      factor_text(m, f[i].id, text, sizeof text);
      return mf_fail(m, it->off, "gap '%s' has the factor %s to the power %g: where it is zero the gap's gradient "
                                 "is zero too, and an impact has no normal", it->name, text, f[i].p);
    }
  if (iv[e].lo >= 0.0 && iv[e].nz) {
    char bound[48] = "g > 0";
    if (iv[e].lo > 0.0) snprintf(bound, sizeof bound, "g >= %g", iv[e].lo);
    return mf_fail(m, it->off, "gap '%s' is always positive (%s everywhere): it never reaches zero, so it is no "
                               "wall", it->name, bound);
  }
  if (iv[e].lo >= 0.0)
    return mf_fail(m, it->off, "gap '%s' is never negative (g >= %g everywhere): it is never crossed, so it stops "
                               "nothing (a square or a sum of squares is no wall)", it->name, iv[e].lo);
  if (iv[e].hi <= 0.0)
    return mf_fail(m, it->off, "gap '%s' is never positive (g <= %g everywhere): no configuration is strictly "
                               "inside it", it->name, iv[e].hi);
  for (int i = 0; i < nf; i++) /* factors of one sign */
    if ((iv[f[i].id].lo >= 0.0 || iv[f[i].id].hi <= 0.0) && !iv[f[i].id].nz &&
        nh_expr_uses_vars(m->pool, f[i].id, 0, n) > 0) {
      factor_text(m, f[i].id, text, sizeof text);
      return mf_fail(m, it->off, "gap '%s' has the factor %s, which never changes sign: where it is zero the gap's "
                                 "gradient is zero too, and an impact has no normal", it->name, text);
    }
  return NH_OK;
}

int mf_check_walls(mf *m) {
  int last = -1;
  for (int k = 0; k < m->ngap; k++) last = m->gap[k].node > last ? m->gap[k].node : last;
  if (last < 0) return NH_OK;
  mf_iv *iv = malloc(sizeof *iv * (size_t)(last + 1));
  if (!iv) return m->status = NH_ERR_NOMEM;
  bounds(m->pool, last, iv);
  for (int k = 0; k < m->ngap && !m->status; k++) check_wall(m, k, iv);
  free(iv);
  return m->status;
}
