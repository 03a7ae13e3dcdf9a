/* sleigh_chain.h - the model text of a chain of n Chaplygin sleighs joined by springs
 * (3n coordinates, n rolling constraints, a constant diagonal M, a banded coupling), for the
 * scale benchmark and test; scripts/sleigh-chain.sh writes the same text.
 *
 * Sleigh i (1-based): heading th_i, centre (x_i, y_i), its skate a behind the centre; a spring
 * of stiffness k and rest length L joins the centres of sleighs i and i + 1. At t = 0 the
 * sleighs stand on the x axis L apart, heading along it, with angular velocities
 * omega0 (1 + (i - 1)/n) and forward speed v0 (admissible: y_i' = a th_i'). */
#ifndef NH_SLEIGH_CHAIN_H
#define NH_SLEIGH_CHAIN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* append printf-style text to *s (length *len, capacity *cap); 0, or -1 when out of memory */
static int chain_put(char **s, size_t *len, size_t *cap, const char *fmt, int i, int j) {
  char line[512];
  int n = snprintf(line, sizeof line, fmt, i, i, i, i, i, i, j, j);
  if (n < 0) return -1;
  if (*len + (size_t)n + 1 > *cap) {
    size_t c = *cap ? 2 * *cap : 4096;
    while (c < *len + (size_t)n + 1) c *= 2;
    char *t = realloc(*s, c);
    if (!t) return -1;
    *s = t, *cap = c;
  }
  memcpy(*s + *len, line, (size_t)n + 1);
  *len += (size_t)n;
  return 0;
}

/* the model text of n >= 1 sleighs (malloc'd), or NULL when out of memory */
static inline char *sleigh_chain_text(int n) {
  char *s = NULL;
  size_t len = 0, cap = 0;
  int bad = chain_put(&s, &len, &cap, "model sleigh_chain_%d\ncoordinates", n, 0);
  for (int i = 1; i <= n; i++) bad |= chain_put(&s, &len, &cap, " th%d x%d y%d", i, 0);
  bad |= chain_put(&s, &len, &cap, "\nparameter I = 1\nparameter m = 1\nparameter a = 1\n"
                                   "parameter k = 1\nparameter L = 2\nparameter omega0 = 1\n"
                                   "parameter v0 = -1\nkinetic", 0, 0);
  for (int i = 1; i <= n; i++)
    bad |= chain_put(&s, &len, &cap, i < n ? " 1/2*I*th%d'^2 + 1/2*m*(x%d'^2 + y%d'^2) +\n"
                                           : " 1/2*I*th%d'^2 + 1/2*m*(x%d'^2 + y%d'^2)\n", i, 0);
  if (n > 1) bad |= chain_put(&s, &len, &cap, "potential", 0, 0);
  for (int i = 1; i < n; i++) {
    char fmt[160];
    snprintf(fmt, sizeof fmt, " 1/2*k*((x%d - x%%d - L)^2 + (y%d - y%%d)^2)%s\n", i + 1, i + 1,
             i + 1 < n ? " +" : "");
    bad |= chain_put(&s, &len, &cap, fmt, i, 0);
  }
  for (int i = 1; i <= n; i++)
    bad |= chain_put(&s, &len, &cap, "constraint skate%d: a*th%d' + sin(th%d)*x%d' - cos(th%d)*y%d' = 0\n", i, 0);
  for (int i = 1; i <= n; i++) {
    bad |= chain_put(&s, &len, &cap, "initial th%d = 0, x%d = %d*L, y%d = 0\n", i, 0);
    char fmt[200];
    snprintf(fmt, sizeof fmt, "initial th%%d' = omega0*(1 + %d/%d), x%%d' = v0, y%%d' = a*omega0*(1 + %d/%d)\n",
             i - 1, n, i - 1, n);
    bad |= chain_put(&s, &len, &cap, fmt, i, 0);
  }
  if (bad) {
    free(s);
    return NULL;
  }
  return s;
}

#endif
