/* body.h - a rigid body with internal point masses on rails, as a model file describes it (the
 * rolling ball and disk of Putkaradze & Rogers, docs/rolling-ball.md): the neutral description
 * that the reader of the model language makes and the systems layer builds (ball_file.c).
 *
 *   model NAME                      (the model's name)
 *   body ball                       (or: body disk - the planar equations); then, as in the
 *                                   former .ball format (`ball NAME` / `disk NAME` still read):
 *   parameter NAME = EXPR, let NAME = EXPR, radius = EXPR, gravity = EXPR, mass m0 = EXPR,
 *   inertia = D1, D2, D3 (or six entries), center = X, Y, Z, mass NAME = EXPR,
 *   rail NAME: X(s), Y(s), Z(s), input NAME: U(t), trajectory NAME: TH(t),
 *   initial NAME = TH0, THD0, initial q = ..., initial Om = ..., initial position = X, Y,
 *   force = FX(t), FY(t), FZ(t), mu = EXPR
 *
 * Rails are expressions of the variable s, inputs, trajectories and the force of t: each is
 * a node of the description's pool with that variable at index 0. Private to the library. */
#ifndef NH_LANG_BODY_H
#define NH_LANG_BODY_H

#include <stddef.h>

#include "expr/expr.h"
#include "expr/parse.h"

#define NH_BODY_MAX_MASSES 16
#define NH_BODY_MAX_NAME 64

typedef struct nh_body_mass {
  char name[NH_PARSE_NAME_MAX + 1];
  double m, theta0, thetad0;
  int has_rail, drive; /* drive: 0 none, 1 input, 2 trajectory */
  int rail[3], drv;    /* nodes: zeta(s); u(t) or theta(t) */
} nh_body_mass;

typedef struct nh_body_desc {
  char name[NH_BODY_MAX_NAME];
  int disk; /* the planar equations */
  double r, g, mu, m0, I[9], chi0[3], q0[4], Om0[3], zxy0[2];
  int nmass;
  nh_body_mass mass[NH_BODY_MAX_MASSES];
  int has_force, force[3];
  nh_expr_pool *pool; /* owns the nodes */
} nh_body_desc;

/* 1 when text is a body file: a `body` statement (model language) or a `ball`/`disk` header
 * (the former .ball format) begins one of its lines. */
int nh_body_text_is_body(const char *text);
/* Read text into *d (defaults r = g = 1, q0 = (1, 0, 0, 0), the rest 0). On failure returns
 * a status with "FILE:LINE:COL: error: what" (one line) in msg and *d freed. */
int nh_body_parse(const char *text, const char *file, nh_body_desc *d, char *msg, size_t msg_size);
void nh_body_free(nh_body_desc *d);

#endif
