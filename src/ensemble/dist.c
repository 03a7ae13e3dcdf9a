/* dist.c - ensemble variables: their distributions, the counter-based random stream and the
 * grid product (nholo/ensemble.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/msg.h"
#include "nholo/ensemble.h"

/* ---- the counter-based stream -------------------------------------------------------- */

/* splitmix64 (Steele, Lea, Flood 2014): the finaliser of z + golden gamma, a bijection */
static uint64_t splitmix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t nh_ensemble_bits(uint64_t seed, uint64_t member, uint64_t draw) {
  return splitmix(splitmix(splitmix(seed) ^ member) ^ draw);
}

double nh_ensemble_uniform(uint64_t seed, uint64_t member, uint64_t draw) {
  return (double)(nh_ensemble_bits(seed, member, draw) >> 11) * 0x1p-53;
}

/* ---- parsing ------------------------------------------------------------------------- */

/* the next ':'-separated number of s (advanced past it and its ':'); 0 when it does not parse */
static int next_number(const char **s, double *out) {
  char *end;
  errno = 0;
  *out = strtod(*s, &end);
  if (end == *s || errno == ERANGE || !isfinite(*out) || (*end != ':' && *end != '\0')) return 0;
  *s = *end == ':' ? end + 1 : end;
  return 1;
}

int nh_ensemble_parse_var(const char *text, nh_ensemble_var *var, char *msg, size_t msg_size) {
  static const char *const kinds[] = {"uniform", "normal", "grid"};
  memset(var, 0, sizeof *var);
  const char *eq = text ? strchr(text, '=') : NULL;
  if (!eq || eq == text || (size_t)(eq - text) >= sizeof var->name) {
    nh_set_msg(msg, msg_size, "'%s': expected NAME=uniform:A:B, NAME=normal:MU:SIGMA or NAME=grid:A:B:K",
               text ? text : "");
    return NH_ERR_ARG;
  }
  memcpy(var->name, text, (size_t)(eq - text));
  const char *spec = eq + 1, *colon = strchr(spec, ':');
  int kind = -1;
  for (int i = 0; i < 3 && colon; i++)
    if ((size_t)(colon - spec) == strlen(kinds[i]) && strncmp(spec, kinds[i], strlen(kinds[i])) == 0) kind = i;
  if (kind < 0) {
    nh_set_msg(msg, msg_size, "'%s': unknown distribution (expected uniform:A:B, normal:MU:SIGMA or grid:A:B:K)", text);
    return NH_ERR_ARG;
  }
  var->kind = (nh_dist_kind)kind;
  const char *s = colon + 1;
  double k = 1.0;
  const int nnum = kind == NH_DIST_GRID ? 3 : 2;
  int ok = next_number(&s, &var->a) && next_number(&s, &var->b) && (nnum == 2 || next_number(&s, &k));
  if (!ok || *s != '\0' || s[-1] == ':') {
    nh_set_msg(msg, msg_size, "'%s': %s takes %s (finite numbers separated by ':')", text, kinds[kind],
               kind == NH_DIST_UNIFORM ? "A:B" : kind == NH_DIST_NORMAL ? "MU:SIGMA" : "A:B:K");
    return NH_ERR_ARG;
  }
  if (kind == NH_DIST_UNIFORM && !(var->b > var->a)) {
    nh_set_msg(msg, msg_size, "'%s': uniform:A:B needs B > A", text);
    return NH_ERR_ARG;
  }
  if (kind == NH_DIST_NORMAL && !(var->b >= 0.0)) {
    nh_set_msg(msg, msg_size, "'%s': normal:MU:SIGMA needs SIGMA >= 0", text);
    return NH_ERR_ARG;
  }
  if (kind == NH_DIST_GRID && !(k >= 1.0 && k <= (double)NH_ENSEMBLE_MAX_GRID && k == floor(k))) {
    nh_set_msg(msg, msg_size, "'%s': grid:A:B:K needs a whole K from 1 to %ld", text, NH_ENSEMBLE_MAX_GRID);
    return NH_ERR_ARG;
  }
  var->k = (long)k;
  return NH_OK;
}

/* ---- members and values -------------------------------------------------------------- */

long nh_ensemble_count(const nh_ensemble_var *vars, int nvar, long replicas) {
  if (replicas < 1) return -1;
  double n = (double)replicas;
  for (int j = 0; j < nvar; j++)
    if (vars[j].kind == NH_DIST_GRID) n *= (double)vars[j].k;
  return n > (double)NH_ENSEMBLE_MAX_MEMBERS ? -1 : (long)n;
}

/* grid point i of k from a to b: the ends exact, i/(k-1) weights */
static double grid_point(double a, double b, long i, long k) {
  if (k <= 1 || i == 0) return a;
  if (i == k - 1) return b;
  return ((double)(k - 1 - i) * a + (double)i * b) / (double)(k - 1);
}

double nh_ensemble_value(const nh_ensemble_var *vars, int nvar, int j, long replicas, uint64_t seed, long m) {
  const nh_ensemble_var *v = &vars[j];
  if (v->kind == NH_DIST_GRID) {
    long point = m / (replicas > 0 ? replicas : 1);
    for (int i = nvar - 1; i > j; i--) /* the last grid varies fastest */
      if (vars[i].kind == NH_DIST_GRID) point /= vars[i].k;
    return grid_point(v->a, v->b, point % v->k, v->k);
  }
  const double u = nh_ensemble_uniform(seed, (uint64_t)m, 2u * (uint64_t)j);
  if (v->kind == NH_DIST_UNIFORM) return v->a + (v->b - v->a) * u;
  const double u2 = nh_ensemble_uniform(seed, (uint64_t)m, 2u * (uint64_t)j + 1u);
  const double two_pi = 6.283185307179586476925286766559;
  return v->a + v->b * sqrt(-2.0 * log(1.0 - u)) * cos(two_pi * u2);
}
