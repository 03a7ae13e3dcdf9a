/* sleigh_tree.h - the model text of a tree of Chaplygin sleighs: a hub sleigh towing k chains
 * of l trailers (3 (1 + k l) coordinates, a constant diagonal M), for the scale benchmark and
 * the sparse multiplier solve's test. Its constraint coupling is a tree, not a band: the hub's
 * k hitches share its coordinates, so in the coordinates' order the envelope of
 * G = A M^-1 A^T grows as k^2 l while a fill-reducing order keeps O(k l + k^2) entries.
 *
 * Body b (0: the hub; 1 + c l + j: trailer j of chain c) has heading th_b and centre
 * (x_b, y_b); its parent p is the hub for j = 0, else body b - 1. Constraints: every body's
 * skate, a th_b' + sin(th_b) x_b' - cos(th_b) y_b' = 0, then for a trailer its hitch,
 * cos(th_p) (x_b' - x_p') + sin(th_p) (y_b' - y_p') = 0 (no relative velocity along the
 * parent's heading). A spring of stiffness k0 (rest length 0) joins each trailer to its
 * parent. At t = 0 everything is at rest, chain c laid out along the angle 2 pi c / k with
 * the trailers R apart (slightly perturbed): the springs start the motion. */
#ifndef NH_SLEIGH_TREE_H
#define NH_SLEIGH_TREE_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tree_text {
  char *s;
  size_t len, cap;
  int bad;
} tree_text;

/* append printf-style text (bad set when out of memory) */
static void tree_put(tree_text *t, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (t->bad || n < 0) {
    t->bad = 1;
    return;
  }
  if (t->len + (size_t)n + 1 > t->cap) {
    size_t c = t->cap ? 2 * t->cap : 4096;
    while (c < t->len + (size_t)n + 1) c *= 2;
    char *r = realloc(t->s, c);
    if (!r) {
      t->bad = 1;
      return;
    }
    t->s = r, t->cap = c;
  }
  memcpy(t->s + t->len, line, (size_t)n + 1);
  t->len += (size_t)n;
}

/* the parent of body b >= 1 in a tree of chains of l trailers */
static inline int sleigh_tree_parent(int b, int l) { return (b - 1) % l == 0 ? 0 : b - 1; }

/* the model text of the hub with k >= 1 chains of l >= 1 trailers (malloc'd), or NULL */
static inline char *sleigh_tree_text(int k, int l) {
  tree_text t = {NULL, 0, 0, 0};
  const int nb = 1 + k * l;
  tree_put(&t, "model sleigh_tree_%d_%d\ncoordinates", k, l);
  for (int b = 0; b < nb; b++) tree_put(&t, " th%d x%d y%d", b, b, b);
  tree_put(&t, "\nparameter I = 1\nparameter m = 1\nparameter a = 1\nparameter k0 = 1\nkinetic");
  for (int b = 0; b < nb; b++) tree_put(&t, " 1/2*I*th%d'^2 + 1/2*m*(x%d'^2 + y%d'^2)%s\n", b, b, b, b + 1 < nb ? " +" : "");
  tree_put(&t, "potential");
  for (int b = 1; b < nb; b++) {
    int p = sleigh_tree_parent(b, l);
    tree_put(&t, " 1/2*k0*((x%d - x%d)^2 + (y%d - y%d)^2)%s\n", b, p, b, p, b + 1 < nb ? " +" : "");
  }
  for (int b = 0; b < nb; b++) {
    tree_put(&t, "constraint skate%d: a*th%d' + sin(th%d)*x%d' - cos(th%d)*y%d' = 0\n", b, b, b, b, b, b);
    if (b == 0) continue;
    int p = sleigh_tree_parent(b, l);
    tree_put(&t, "constraint hitch%d: cos(th%d)*(x%d' - x%d') + sin(th%d)*(y%d' - y%d') = 0\n", b, p, b, p, p, b, p);
  }
  const double R = 2.0, pi = 3.14159265358979323846;
  tree_put(&t, "initial th0 = 0, x0 = 0, y0 = 0\n");
  for (int b = 1; b < nb; b++) {
    int c = (b - 1) / l, j = (b - 1) % l;
    double phi = 2.0 * pi * c / k, r = R * (j + 1);
    tree_put(&t, "initial th%d = %.17g, x%d = %.17g, y%d = %.17g\n", b, phi + 0.1 * sin(b), b,
             r * cos(phi) + 0.3 * sin(1.7 * b), b, r * sin(phi) + 0.3 * cos(2.3 * b));
  }
  if (t.bad) {
    free(t.s);
    return NULL;
  }
  return t.s;
}

#endif
