/* test_vi_paths.c - the paths of the variational methods (gni, rattle, shake, del; rdp) that
 * guard a run: Newton's failures and their messages (no convergence, a singular matrix), the
 * acceptance of an iterate at round-off, a mass matrix or constraint rows that lose rank, the
 * midpoint start's failures, rdp's test of the model's invariance. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_model.h"
#include "harness.h"
#include "tstep.h"
#include "paper_variant.h"

/* the paper's variant of gni, rattle and shake: this file covers its paths (paper_variant.h) */

/* ---- models ----------------------------------------------------------------------------- */

/* q-dependent M (the sheared knife edge of the kinds), a potential, a force, a nonholonomic
 * constraint (%s: more statements) */
static const char *const rich_text =
    "model rich\n"
    "coordinates th x y\n"
    "kinetic 1/2*((1 + cos(th)^2)*th'^2 + 2*cos(th)*th'*x' + x'^2 + y'^2)\n"
    "potential 1/4*(x^2 + y^2) + 0.1*cos(th)\n"
    "constraint -sin(th)*(x' + cos(th)*th') + cos(th)*y' = 0\n"
    "%s"
    "force th: -0.05*th'\n"
    "initial th = 0, x = 0.2, y = 0.1, th' = 0.3, x' = 0.8\n";
/* a pendulum in Cartesian coordinates */
static const char *const pend_text = "model pend\n"
                                     "coordinates x y\n"
                                     "kinetic 1/2*(x'^2 + y'^2)\n"
                                     "potential 9.81*y\n"
                                     "holonomic rod: x^2 + y^2 = 1\n"
                                     "initial x = 0.6, y = -0.8, x' = 0.8, y' = 0.6\n";
/* the knife edge with its mass off the blade and a mass on a rail (shape r): SE(2) */
static const char *const sled_text = "model sled\n"
                                     "coordinates th x y r\n"
                                     "let u = cos(th)*x' + sin(th)*y'\n"
                                     "let s = -sin(th)*x' + cos(th)*y'\n"
                                     "kinetic 1/2*(u^2 + (s + 0.2*th')^2) + 1/4*th'^2 + 0.15*((u + r')^2 + (s + r*th')^2)%s\n"
                                     "potential 1/2*r^2\n"
                                     "constraint -sin(th)*x' + cos(th)*y' = 0\n"
                                     "group se2 th x y\n"
                                     "initial r = 0.1, th' = 0.5, x' = 1, r' = 0.2\n";

/* a point in the plane, M = I, with one constraint row A(q) that turns: with y linearly,
 * A = (1 - s, s), s = y / (h/2) for h = ROT_H (axis 1: from q = 0 with v = (0, 1) the row at
 * the midpoint of the first step, (0, 1), is exactly orthogonal to the row (1, 0) at the
 * start, and the midpoint start's matrix A(q_mid) M^-1 A(q_0)^T is 0); or with x + y by the
 * angle K (x + y) (axis 2) */
#define ROT_H 0.1
typedef struct rot_par {
  double K;
  int axis;
} rot_par;
static int rot_mass(const double *q, double *M, void *u) {
  (void)q, (void)u;
  M[0] = 1.0, M[1] = 0.0, M[2] = 0.0, M[3] = 1.0;
  return 0;
}
static int rot_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  const rot_par *p = u;
  if (p->axis == 1) {
    const double ym = 0.5 * ROT_H, s = q[1] / ym;
    if (A) A[0] = 1.0 - s, A[1] = s;
    if (Adv) Adv[0] = v[1] / ym * (v[1] - v[0]);
    return 0;
  }
  const double a = q[0] + q[1], c = cos(p->K * a), s = sin(p->K * a);
  if (A) A[0] = c, A[1] = s;
  if (Adv) Adv[0] = p->K * (v[0] + v[1]) * (-s * v[0] + c * v[1]);
  return 0;
}

/* polar coordinates (r, th) with M = diag(1, r^2) (singular at r = 0) and V = th: on a line
 * through the origin the midpoint discrete Lagrangian's Newton matrix loses its th row */
static int pol_mass(const double *q, double *M, void *u) {
  (void)u;
  M[0] = 1.0, M[1] = 0.0, M[2] = 0.0, M[3] = q[0] * q[0];
  return 0;
}
static int pol_coriolis(const double *q, const double *v, double *c, void *u) {
  (void)u;
  c[0] = -q[0] * v[1] * v[1], c[1] = 2.0 * q[0] * v[0] * v[1];
  return 0;
}
static int pol_potential(const double *q, double *V, double *dV, void *u) {
  (void)u;
  if (V) *V = q[1];
  if (dV) dV[0] = 0.0, dV[1] = 1.0;
  return 0;
}

/* M = diag(1, 1, 0), singular, with the constraint z' = 0 on its null direction: the
 * discrete Lagrange-d'Alembert KKT matrix is regular, M itself is not */
static int sm_mass(const double *q, double *M, void *u) {
  (void)q, (void)u;
  for (int i = 0; i < 9; i++) M[i] = i == 0 || i == 4 ? 1.0 : 0.0;
  return 0;
}
static int sm_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  (void)q, (void)v, (void)u;
  if (A) A[0] = 0.0, A[1] = 0.0, A[2] = 1.0;
  if (Adv) Adv[0] = 0.0;
  return 0;
}
static int sm_potential(const double *q, double *V, double *dV, void *u) {
  (void)u;
  if (V) *V = 0.5 * (q[0] * q[0] + q[1] * q[1]);
  if (dV) dV[0] = q[0], dV[1] = q[1], dV[2] = 0.0;
  return 0;
}

/* three coordinates, M = I, two copies of one constraint (dependent rows, which model files
 * refuse): holonomic (user 1: phi = |q|^2 - 1 and 2 phi, del's multiplier step) or the knife
 * edge's -sin(a) b' + cos(a) c' = 0 (user 0: del's discrete Lagrange-d'Alembert step) */
static int dup_mass(const double *q, double *M, void *u) {
  (void)q, (void)u;
  for (int i = 0; i < 9; i++) M[i] = i % 4 == 0 ? 1.0 : 0.0;
  return 0;
}
static int dup_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  const int hol = *(const int *)u;
  for (int k = 0; k < 2; k++) {
    const double f = hol ? 2.0 * (k + 1) : 1.0;
    if (A && hol) A[3 * k] = f * q[0], A[3 * k + 1] = f * q[1], A[3 * k + 2] = f * q[2];
    if (A && !hol) A[3 * k] = 0.0, A[3 * k + 1] = -sin(q[0]), A[3 * k + 2] = cos(q[0]);
    if (Adv) Adv[k] = hol ? f * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) : -v[0] * (cos(q[0]) * v[1] + sin(q[0]) * v[2]);
  }
  return 0;
}
static int dup_holonomic(const double *q, double *phi, void *u) {
  (void)u;
  phi[0] = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - 1.0, phi[1] = 2.0 * phi[0];
  return 0;
}

static const char *const names3[] = {"a", "b", "c"};

static nh_model *dup_create(int holonomic) {
  static const double qh[3] = {1.0, 0.0, 0.0}, vh[3] = {0.0, 1.0, 0.5}, qn[3] = {0.0, 0.0, 0.0}, vn[3] = {0.3, 1.0, 0.0};
  nh_model_def d = nh_model_def_default();
  d.name = "dup", d.nq = 3, d.nc = 2, d.coord_names = names3, d.q0 = holonomic ? qh : qn, d.v0 = holonomic ? vh : vn;
  d.mass = dup_mass, d.constraint = dup_constraint, d.holonomic = holonomic ? dup_holonomic : NULL;
  d.user = &holonomic, d.user_size = sizeof holonomic;
  return nh_model_create(&d, NULL, 0);
}

/* the row turning with y (axis 1) or with x + y at rate K (axis 2) */
static nh_model *rot_create(double K, int axis) {
  static const double v0[2] = {0.0, 1.0};
  const rot_par p = {K, axis};
  nh_model_def d = nh_model_def_default();
  d.name = "rot", d.nq = 2, d.nc = 1, d.coord_names = names3, d.v0 = v0;
  d.mass = rot_mass, d.constraint = rot_constraint, d.user = &p, d.user_size = sizeof p;
  return nh_model_create(&d, NULL, 0);
}
static nh_model *polar_line_create(void) {
  static const double q0[2] = {-0.05, 0.0}, v0[2] = {1.0, 0.0};
  nh_model_def d = nh_model_def_default();
  d.name = "polar-line", d.nq = 2, d.coord_names = names3, d.q0 = q0, d.v0 = v0;
  d.mass = pol_mass, d.coriolis = pol_coriolis, d.potential = pol_potential;
  return nh_model_create(&d, NULL, 0);
}
static nh_model *singular_mass_create(void) {
  static const double q0[3] = {0.3, -0.2, 0.0}, v0[3] = {0.5, 0.4, 0.0};
  nh_model_def d = nh_model_def_default();
  d.name = "singular-mass", d.nq = 3, d.nc = 1, d.coord_names = names3, d.q0 = q0, d.v0 = v0;
  d.mass = sm_mass, d.constraint = sm_constraint, d.potential = sm_potential;
  return nh_model_create(&d, NULL, 0);
}

/* one step of meth (options o) on m from its initial state, x1 out; the status */
static int one_step(const nh_model *m, const nh_method *meth, nh_method_opts o, double h, double *x1, char *msg,
                    size_t size) {
  tstep t;
  if (ts_init(&t, m, meth, o)) return NH_ERR_NOMEM;
  double err;
  int rc = meth->step(&t.st, 0.0, m->x0, h, x1, &err);
  snprintf(msg, size, "%s", t.st.msg);
  ts_free(&t);
  return rc;
}

/* ---- Newton ------------------------------------------------------------------------------ */

/* no iteration allowed: NH_ERR_NO_CONVERGENCE with the method's message, the solve counted;
 * with the default options the same step converges */
static int test_newton_no_convergence(void) {
  nh_model *rich = ts_parse(rich_text, ""), *pend = ts_parse(pend_text, ""), *sled = ts_parse(sled_text, "");
  ENSURE(rich && pend && sled);
  const struct {
    const nh_model *m;
    const char *method, *msg;
  } cases[] = {
      {rich, "gni", "Newton did not converge in 0 iterations (residual "},
      {rich, "del", "del: Newton did not converge in 0 iterations (residual "},
      {rich, "rattle", "rattle: Newton did not converge in 0 iterations (residual "},
      {rich, "shake", "shake: Newton did not converge in 0 iterations (residual "},
      {pend, "del", "del: Newton did not converge in 0 iterations (residual "},
      {sled, "rdp", "rdp: Newton did not converge in 0 iterations (residual "},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const nh_method *meth = nh_method_find(cases[i].method);
    nh_method_opts o = paper_opts();
    o.newton_max_iter = 0;
    tstep t;
    ENSURE(ts_init(&t, cases[i].m, meth, o) == 0);
    double x1[8], err;
    ENSURE(meth->step(&t.st, 0.0, cases[i].m->x0, 0.05, x1, &err) == NH_ERR_NO_CONVERGENCE);
    if (!strstr(t.st.msg, cases[i].msg)) printf("  %s: %s\n", cases[i].method, t.st.msg);
    ENSURE(strstr(t.st.msg, cases[i].msg));
    ENSURE(t.st.solves >= 1 && t.st.last_iters == 0 && t.st.last_res > o.newton_tol);
    // the same step with iterations: converged
    t.st.opts = paper_opts();
    ENSURE(meth->step(&t.st, 0.0, cases[i].m->x0, 0.05, x1, &err) == 0 && ts_all_finite(cases[i].m->nx, x1));
    ENSURE(t.st.last_res <= t.st.opts.newton_tol);
    ts_free(&t);
  }
  nh_model_destroy(rich), nh_model_destroy(pend), nh_model_destroy(sled);
  return 0;
}

/* a constraint row that turns by 4 rad over a step (with x + y, K = 40, h = 0.1): the
 * midpoint start's iteration (lam = -tan(K h (lam + 1) / 2) here) does not contract; gni,
 * rattle and shake end with NH_ERR_NO_CONVERGENCE and the start's message; the paper's start
 * (none) takes the step */
static int test_midpoint_start_no_convergence(void) {
  nh_model *turn = rot_create(40.0, 2);
  ENSURE(turn);
  const char *const vi[3] = {"gni", "rattle", "shake"};
  for (int i = 0; i < 3; i++) {
    nh_method_opts o = paper_opts();
    char msg[256], want[64];
    double x1[4];
    ENSURE(one_step(turn, nh_method_find(vi[i]), o, 0.1, x1, msg, sizeof msg) == NH_ERR_NO_CONVERGENCE);
    snprintf(want, sizeof want, "%s midpoint start did not converge (residual ", vi[i]);
    ENSURE(strstr(msg, want));
    o.start = NH_START_PAPER;
    ENSURE(one_step(turn, nh_method_find(vi[i]), o, 0.1, x1, msg, sizeof msg) == 0 && ts_all_finite(4, x1));
  }
  nh_model_destroy(turn);
  return 0;
}

/* how far the velocity moves over a step of 1e-13 s (the acceleration is O(1)) */
#define TINY_STEP_DV 1e-9

/* a step of 1e-13 s: the momentum residual's rounding floor (eps |q| / h relative) is far
 * above the tolerance; the iterate is accepted at round-off (last_res above newton_tol),
 * and the velocity handed back is that of the start to O(h) */
static int test_tiny_step_roundoff(void) {
  nh_model *rich = ts_parse(rich_text, ""), *pend = ts_parse(pend_text, "");
  ENSURE(rich && pend);
  const struct {
    const nh_model *m;
    const char *method;
    int midpoint;
  } cases[] = {{rich, "gni", 0}, {rich, "del", 0}, {rich, "del", 1}, {rich, "rattle", 0},
               {rich, "shake", 0}, {pend, "del", 0}, {pend, "del", 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const nh_model *m = cases[i].m;
    nh_method_opts o = paper_opts();
    o.midpoint_ld = cases[i].midpoint;
    tstep t;
    ENSURE(ts_init(&t, m, nh_method_find(cases[i].method), o) == 0);
    double x1[6], err;
    const int n = m->nq;
    int rc = t.st.method->step(&t.st, 0.0, m->x0, 1e-13, x1, &err);
    if (rc) printf("  %s: %s %s\n", cases[i].method, nh_status_name(rc), t.st.msg);
    ENSURE(rc == 0);
    ENSURE(t.st.max_res > o.newton_tol); /* accepted at round-off */
    double dv = 0.0;
    for (int k = 0; k < n; k++) dv = fmax(dv, fabs(x1[n + k] - m->x0[n + k]));
    if (!(dv <= TINY_STEP_DV)) printf("  %s on %s (midpoint %d): |v1 - v0| = %.3e\n", cases[i].method, m->name, cases[i].midpoint, dv);
    ENSURE(dv <= TINY_STEP_DV);
    ts_free(&t);
  }
  nh_model_destroy(rich), nh_model_destroy(pend);
  return 0;
}

/* Newton matrices that are singular: the midpoint discrete Lagrangian where M(q_mid) loses
 * rank; del's KKT matrix of two copies of a holonomic or a nonholonomic constraint */
static int test_singular_newton(void) {
  char msg[256];
  double x1[8];
  nh_model *pl = polar_line_create();
  ENSURE(pl);
  nh_method_opts o = paper_opts();
  o.midpoint_ld = 1;
  ENSURE(one_step(pl, &nh_method_del, o, 0.1, x1, msg, sizeof msg) == NH_ERR_SINGULAR);
  ENSURE(strstr(msg, "singular Newton matrix (discrete Lagrangian not regular)"));
  // the trapezoidal one has M(q_0) in it: regular
  o.midpoint_ld = 0;
  ENSURE(one_step(pl, &nh_method_del, o, 0.1, x1, msg, sizeof msg) == 0 && ts_all_finite(4, x1));
  nh_model_destroy(pl);
  nh_model *pend2 = dup_create(1), *rich2 = dup_create(0);
  ENSURE(pend2 && rich2);
  o = paper_opts();
  ENSURE(one_step(pend2, &nh_method_del, o, 0.05, x1, msg, sizeof msg) == NH_ERR_SINGULAR);
  ENSURE(strstr(msg, "del: singular Newton matrix (constraints dependent?)"));
  ENSURE(one_step(rich2, &nh_method_del, o, 0.05, x1, msg, sizeof msg) == NH_ERR_SINGULAR);
  ENSURE(strstr(msg, "del: singular Newton matrix (constraints dependent?)"));
  nh_model_destroy(pend2), nh_model_destroy(rich2);
  // the rod's row vanishing at q_k (A(q_k): the reactions' columns) or at the first iterate
  // (the rows): the KKT matrix's block is zero (its scale then 1), singular
  nh_model *pend = ts_parse(pend_text, "");
  ENSURE(pend);
  for (int occ = 1; occ <= 2; occ++) {
    ENSURE(ts_fault_at(pend, &nh_method_del, o, 0, FAULT_EV_CONSTRAINT, occ, FAULT_ZERO, msg, sizeof msg) ==
           NH_ERR_SINGULAR);
    ENSURE(strstr(msg, "del: singular Newton matrix (constraints dependent?)"));
  }
  nh_model_destroy(pend);
  return 0;
}

/* ---- rank lost: M, the constraint rows --------------------------------------------------- */

/* two knife edges side by side (a diagonal M, two constraint rows, G = A M^-1 A^T depending
 * on the angles: no gram_constant, which would keep G^-1 whatever A does) */
static const char *const knives_text =
    "model knives\n"
    "coordinates th1 x1 y1 th2 x2 y2\n"
    "kinetic 1/2*(th1'^2 + x1'^2 + 2*y1'^2 + th2'^2 + x2'^2 + 2*y2'^2)\n"
    "constraint -sin(th1)*x1' + cos(th1)*y1' = 0\n"
    "constraint -sin(th2)*x2' + cos(th2)*y2' = 0\n"
    "initial th1' = 0.3, x1' = 1, th2 = 0.5, th2' = -0.2, x2' = 0.5, y2' = 0.5*sin(0.5)/cos(0.5)\n";

/* M(q_k) not positive definite (zero): NH_ERR_NOT_SPD from the factor of every variational
 * step, at a start and when continuing */
static int test_mass_not_spd(void) {
  nh_model *knife = nh_model_kind_example(NH_KIND_CONSTRAINED, 0, NULL, NULL, 0), *rich = ts_parse(rich_text, "");
  nh_model *pend = ts_parse(pend_text, ""), *lag = nh_model_kind_example(NH_KIND_LAGRANGIAN, 0, NULL, NULL, 0);
  ENSURE(knife && rich && pend && lag);
  const nh_model *ms[4] = {knife, rich, pend, lag};
  const char *const vi[4] = {"gni", "rattle", "shake", "del"};
  char msg[256];
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 4; i++)
      for (int k = 0; k <= 2; k += 2) {
        // (shake continuing on a q-dependent M first evaluates M(q_k-1) and M(q_k) for the
        // carried momentum, D2 L_d(q_k-1, q_k); its factor of M(q_k) is the third call)
        const int occ = k > 0 && ms[j]->coriolis && strcmp(vi[i], "shake") == 0 ? 3 : 1;
        int rc = ts_fault_at(ms[j], nh_method_find(vi[i]), paper_opts(), k, FAULT_EV_MASS, occ, FAULT_ZERO, msg,
                          sizeof msg);
        if (rc == NH_ERR_ARG && k > 0 && !ms[j]->coriolis) continue; /* a constant M factored once: no call */
        if (rc != NH_ERR_NOT_SPD) printf("  %s on %s, step %d: %s\n", vi[i], ms[j]->name, k, nh_status_name(rc));
        ENSURE(rc == NH_ERR_NOT_SPD);
      }
  nh_model_destroy(knife), nh_model_destroy(rich), nh_model_destroy(pend), nh_model_destroy(lag);
  return 0;
}

/* the constraint rows at q_k+1 vanish (zero): G = A M^-1 A^T is singular, NH_ERR_SINGULAR, for
 * one row and for two, from a start and when continuing (gni: its free-motion kernel), and
 * the discrete Lagrange-d'Alembert steps' projection */
static int test_rows_lose_rank(void) {
  nh_model *knife = nh_model_kind_example(NH_KIND_CONSTRAINED, 0, NULL, NULL, 0), *rich = ts_parse(rich_text, "");
  nh_model *knives = ts_parse(knives_text, "");
  ENSURE(knife && rich && knives);
  const nh_model *ms[3] = {knife, knives, rich};
  const char *const meths[5] = {"gni", "rattle", "shake", "si-dla", "i-dla"};
  char msg[256];
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 5; i++)
      for (int k = 0; k <= 2; k += 2) {
        int rc = ts_fault_at(ms[j], nh_method_find(meths[i]), paper_opts(), k, FAULT_EV_CONSTRAINT, -1,
                          FAULT_ZERO, msg, sizeof msg);
        if (rc != NH_ERR_SINGULAR) printf("  %s on %s, step %d: %s\n", meths[i], ms[j]->name, k, nh_status_name(rc));
        ENSURE(rc == NH_ERR_SINGULAR);
      }
  nh_model_destroy(knife), nh_model_destroy(rich), nh_model_destroy(knives);
  return 0;
}

/* the midpoint start's matrix A(q_mid) M^-1 A(q_0)^T vanishes (the row turned by pi/2 at the
 * half step): NH_ERR_SINGULAR; M singular in a constrained direction: the discrete
 * Lagrange-d'Alembert KKT matrix is regular, the velocity's solve with M is not */
static int test_start_and_mass_singular(void) {
  nh_model *rot = rot_create(0.0, 1), *sm = singular_mass_create();
  ENSURE(rot && sm);
  const char *const vi[3] = {"gni", "rattle", "shake"};
  char msg[256];
  double x1[6];
  for (int i = 0; i < 3; i++) {
    int rc = one_step(rot, nh_method_find(vi[i]), paper_opts(), ROT_H, x1, msg, sizeof msg);
    if (rc != NH_ERR_SINGULAR) printf("  %s: %s %s\n", vi[i], nh_status_name(rc), msg);
    ENSURE(rc == NH_ERR_SINGULAR);
  }
  const char *const dla[3] = {"si-dla", "i-dla", "spark"};
  for (int i = 0; i < 3; i++) {
    int rc = one_step(sm, nh_method_find(dla[i]), paper_opts(), 0.05, x1, msg, sizeof msg);
    if (rc != NH_ERR_NOT_SPD) printf("  %s: %s\n", dla[i], nh_status_name(rc));
    ENSURE(rc == NH_ERR_NOT_SPD);
  }
  nh_model_destroy(rot), nh_model_destroy(sm);
  return 0;
}

/* ---- rdp ---------------------------------------------------------------------------------- */

/* a planar body with its centre of mass off the reference point, free (no constraint):
 * SE(2)-invariant, M depending on theta */
static const char *const slab_text = "model slab\n"
                                     "coordinates th x y\n"
                                     "let u = cos(th)*x' + sin(th)*y'\n"
                                     "let s = -sin(th)*x' + cos(th)*y'\n"
                                     "kinetic 1/2*(u^2 + (s + 0.3*th')^2) + 1/4*th'^2\n"
                                     "group se2 th x y\n"
                                     "initial th' = 0.7, x' = 1, y' = 0.2\n";

/* the state at T of m from its initial state: `steps` steps of meth */
static int run_to(const nh_model *m, const nh_method *meth, double T, int steps, double *x) {
  tstep t;
  if (ts_init(&t, m, meth, paper_opts())) return NH_ERR_NOMEM;
  double y[8], err;
  const double h = T / steps;
  memcpy(x, m->x0, sizeof(double) * (size_t)m->nx);
  int rc = 0;
  for (int k = 0; k < steps && !rc; k++) {
    rc = meth->step(&t.st, k * h, x, h, y, &err);
    memcpy(x, y, sizeof(double) * (size_t)m->nx);
  }
  ts_free(&t);
  return rc;
}

/* rdp on an SE(2) model without constraints (no multipliers, no projector): second order
 * against dop853 */
static int test_rdp_unconstrained(void) {
  nh_model *m = ts_parse(slab_text, NULL);
  ENSURE(m && m->nc == 0 && nh_method_supports(&nh_method_rdp, m) == NH_OK);
  double ref[6], a[6], b[6];
  ENSURE(run_to(m, &nh_method_dop853, 1.0, 200, ref) == 0);
  ENSURE(run_to(m, &nh_method_rdp, 1.0, 20, a) == 0 && run_to(m, &nh_method_rdp, 1.0, 40, b) == 0);
  double ea = 0.0, eb = 0.0;
  for (int i = 0; i < 6; i++) ea = fmax(ea, fabs(a[i] - ref[i])), eb = fmax(eb, fabs(b[i] - ref[i]));
  printf("  rdp, no constraint: error %.3e -> %.3e (order %.2f)\n", ea, eb, log2(ea / eb));
  ENSURE(ea / eb > 3.5 && ea / eb < 4.5);
  nh_model_destroy(m);
  return 0;
}

/* rdp's test of invariance refuses a mass or a constraint that depends on the pose, and a
 * model whose evaluators fail at the test (it cannot tell) */
static int test_rdp_refusals(void) {
  char msg[512];
  nh_model *mx = ts_parse(sled_text, " + 0.05*x^2*th'^2");
  nh_model *cx = ts_parse(sled_text, "\nconstraint (1 + x)*r' - 0.4*th' = 0");
  nh_model *ok = ts_parse(sled_text, "");
  ENSURE(mx && cx && ok);
  ENSURE(nh_method_check(&nh_method_rdp, mx, msg, sizeof msg) == NH_ERR_UNSUPPORTED);
  ENSURE(strstr(msg, "it needs an SE(2)-invariant model"));
  ENSURE(nh_method_check(&nh_method_rdp, cx, msg, sizeof msg) == NH_ERR_UNSUPPORTED);
  ENSURE(nh_method_supports(&nh_method_rdp, ok) == NH_OK);
  for (int ev = 0; ev < 2; ev++)
    for (long n = 1; n <= 2; n++) {
      fault f;
      memset(&f, 0, sizeof f);
      nh_model *w = fault_wrap(ok, &f, NULL, 0);
      ENSURE(w);
      f.mask = 1u << (ev ? FAULT_EV_CONSTRAINT : FAULT_EV_MASS), f.at = n, f.mode = FAULT_NEG;
      ENSURE(nh_method_supports(&nh_method_rdp, w) == NH_ERR_UNSUPPORTED && f.hits == 1);
      f.calls = 0, f.hits = 0, f.mode = FAULT_ZERO; /* a zero M or rows at the reference pose */
      ENSURE(nh_method_supports(&nh_method_rdp, w) == NH_ERR_UNSUPPORTED && f.hits == 1);
      nh_model_destroy(w);
    }
  nh_model_destroy(mx), nh_model_destroy(cx), nh_model_destroy(ok);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_newton_no_convergence);
  RUN_TEST(test_midpoint_start_no_convergence);
  RUN_TEST(test_tiny_step_roundoff);
  RUN_TEST(test_singular_newton);
  RUN_TEST(test_mass_not_spd);
  RUN_TEST(test_rows_lose_rank);
  RUN_TEST(test_start_and_mass_singular);
  RUN_TEST(test_rdp_unconstrained);
  RUN_TEST(test_rdp_refusals);
  return TEST_SUMMARY();
}
