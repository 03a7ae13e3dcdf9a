/* test_gni_paths.c - what gni, rattle and shake carry and how they use it: the free-motion
 * kernel for every size it is compiled for against the general step, its run of steps
 * (nh_method.advance) against the steps one by one, including a run a failing or non-finite
 * step ends; the carried vector moved to a projected state, set from outside, or dropped;
 * a work block reused for another model; the gaps held as rows; the sizes past the kernel and
 * past del's dense bound; and the projector of a large model on its rows' extents against
 * the dense loops, bit for bit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_model.h"
#include "harness.h"
#include "la/la.h"
#include "tstep.h"
#include "paper_variant.h"

/* the paper's variant of gni, rattle and shake: this file covers its paths (paper_variant.h) */

/* ---- a model for every kernel: n coordinates, m rows, a constant M, no force or potential */

typedef struct free_par {
  int n, m, diag; /* sizes; diag: M diagonal */
  int forced;     /* a force evaluator that returns 0 (the general step, not the kernel) */
  int hol;        /* big models: 0 none, 1 a holonomic sphere */
} free_par;

/* M: diag(1 + i/10), or 2 on the diagonal and 0.3 beside it */
static int fr_mass(const double *q, double *M, void *u) {
  const free_par *p = u;
  (void)q;
  const int n = p->n;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      M[i * n + j] = p->diag ? (i == j ? 1.0 + 0.1 * i : 0.0) : (i == j ? 2.0 : abs(i - j) == 1 ? 0.3 : 0.0);
  return 0;
}
/* A_kj = cos(q_(j+k)%n + 0.3 j + 1.1 k) */
static int fr_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  const free_par *p = u;
  const int n = p->n;
  for (int k = 0; k < p->m; k++) {
    double s = 0.0;
    for (int j = 0; j < n; j++) {
      const int l = (j + k) % n;
      const double a = q[l] + 0.3 * j + 1.1 * k;
      if (A) A[k * n + j] = cos(a);
      s += -sin(a) * v[l] * v[j];
    }
    if (Adv) Adv[k] = s;
  }
  return 0;
}
static int fr_zero_force(double t, const double *q, const double *v, double *f, void *u) {
  const free_par *p = u;
  (void)t, (void)q, (void)v;
  for (int i = 0; i < p->n; i++) f[i] = 0.0;
  return 0;
}

static const char *const fr_names[] = {"q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"};

/* the model of p, its initial velocity projected onto ker A(q0) (Euclidean) */
static nh_model *free_create(free_par p) {
  double q0[8], v0[8], A[3 * 8];
  for (int i = 0; i < p.n; i++) q0[i] = 0.1 * i, v0[i] = 1.0 - 0.2 * i;
  fr_constraint(q0, v0, A, NULL, &p);
  for (int k = 0; k < p.m; k++) { /* the rows orthonormalized (Gram-Schmidt), v0 off them */
    double *ak = A + k * p.n, nn = 0.0;
    for (int l = 0; l < k; l++) {
      double d = 0.0;
      for (int j = 0; j < p.n; j++) d += ak[j] * A[l * p.n + j];
      for (int j = 0; j < p.n; j++) ak[j] -= d * A[l * p.n + j];
    }
    for (int j = 0; j < p.n; j++) nn += ak[j] * ak[j];
    for (int j = 0; j < p.n; j++) ak[j] /= sqrt(nn);
    double av = 0.0;
    for (int j = 0; j < p.n; j++) av += ak[j] * v0[j];
    for (int j = 0; j < p.n; j++) v0[j] -= av * ak[j];
  }
  nh_model_def d = nh_model_def_default();
  d.name = "free", d.nq = p.n, d.nc = p.m, d.coord_names = fr_names, d.q0 = q0, d.v0 = v0;
  d.mass = fr_mass, d.constraint = fr_constraint, d.force = p.forced ? fr_zero_force : NULL;
  d.user = &p, d.user_size = sizeof p;
  return nh_model_create(&d, NULL, 0);
}

/* the kernel and the general step (the zero force: the same map, the forced terms adding
 * zeros) agree to round-off over this many steps */
#define KERNEL_STEPS 30
#define KERNEL_TOL 1e-12
#define KERNEL_H 0.01

static double max_rel(int n, const double *a, const double *b) {
  double d = 0.0;
  for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]) / fmax(1.0, fabs(b[i])));
  return d;
}

/* every (n, m, diag) the kernel is compiled for (n = 2..6, m = 1, 2 < n): its steps are the
 * general step's to round-off; the half-step energy is constant to round-off; its run of
 * steps (advance) is the steps one by one, bit for bit; a partial step from a step's start
 * (event location) takes the general step from the carried vector */
static int test_free_kernels(void) {
  int cases = 0;
  for (int n = 2; n <= 6; n++)
    for (int m = 1; m <= 2 && m < n; m++)
      for (int diag = 0; diag <= 1; diag++) {
        nh_model *mk = free_create((free_par){n, m, diag, 0, 0}), *mg = free_create((free_par){n, m, diag, 1, 0});
        ENSURE(mk && mg);
        tstep tk, tg, ta;
        nh_method_opts o = paper_opts();
        ENSURE(ts_init(&tk, mk, &nh_method_gni, o) == 0 && ts_init(&tg, mg, &nh_method_gni, o) == 0);
        ENSURE(ts_init(&ta, mk, &nh_method_gni, o) == 0);
        const int nx = 2 * n;
        double xk[16], xg[16], y[16], err, C0 = 0.0, dC = 0.0;
        memcpy(xk, mk->x0, sizeof(double) * nx), memcpy(xg, mk->x0, sizeof(double) * nx);
        for (int s = 0; s < KERNEL_STEPS; s++) {
          ENSURE(nh_method_gni.step(&tk.st, s * KERNEL_H, xk, KERNEL_H, y, &err) == 0);
          memcpy(xk, y, sizeof(double) * nx);
          ENSURE(nh_method_gni.step(&tg.st, s * KERNEL_H, xg, KERNEL_H, y, &err) == 0);
          memcpy(xg, y, sizeof(double) * nx);
          ENSURE(max_rel(nx, xk, xg) <= KERNEL_TOL);
          if (s == 0) C0 = tk.st.end_C;
          dC = fmax(dC, fabs(tk.st.end_C - C0) / C0);
        }
        ENSURE(dC <= KERNEL_TOL);
        // the run: the first step, then advance over the rest
        double xa[16];
        ENSURE(nh_method_gni.step(&ta.st, 0.0, mk->x0, KERNEL_H, xa, &err) == 0);
        nh_advance ad = {.t = KERNEL_H, .t_end = 1e9, .far = 0.0, .h = KERNEL_H, .max = KERNEL_STEPS - 1};
        ad.E_seg = 0.0, ad.Cmax = -INFINITY, ad.Cmin = INFINITY;
        ENSURE(nh_method_gni.advance(&ta.st, xa, y, &ad) == 0 && ad.done == KERNEL_STEPS - 1);
        ENSURE(memcmp(y, xk, sizeof(double) * nx) == 0);
        ENSURE(ad.C == tk.st.end_C && ad.E == tk.st.end_E);
        // a partial step from the last step's start: the general step, the same to round-off
        double xp[16], xq[16];
        ENSURE(nh_method_gni.step(&tk.st, 0.0, xk, 0.5 * KERNEL_H, xp, &err) == 0);
        ENSURE(nh_method_gni.step(&tk.st, 0.0, xk, KERNEL_H, xp, &err) == 0);
        ENSURE(nh_method_gni.step(&tk.st, 0.0, xk, 0.5 * KERNEL_H, xp, &err) == 0);
        ENSURE(nh_method_gni.step(&tg.st, 0.0, xg, KERNEL_H, xq, &err) == 0);
        ENSURE(nh_method_gni.step(&tg.st, 0.0, xg, 0.5 * KERNEL_H, xq, &err) == 0);
        ENSURE(max_rel(nx, xp, xq) <= KERNEL_TOL);
        ts_free(&tk), ts_free(&tg), ts_free(&ta);
        nh_model_destroy(mk), nh_model_destroy(mg);
        cases++;
      }
  ENSURE(cases == 18);
  return 0;
}

/* For a constant M without forces or potential: shake conserves its half-step energy to
 * round-off; rattle's nodal energy changes by h^2/8 (|A_k^T lam_k|^2 - |A_k+1^T lam_k+1|^2)
 * in the M^-1 norm (p_k+1/2 = p_k - h/2 A_k^T lam_k with A_k M^-1 p_k = 0, and p_k+1 the
 * M^-1-orthogonal part of p_k+1/2), so E_k + h^2/8 |A_k^T lam_k|^2 is conserved to round-off
 * (lam_k: rattle's carried multipliers), M diagonal or not (the products: vi_mass_mul) */
#define RS_ENERGY_TOL 1e-12
static int test_rattle_shake_energy(void) {
  const nh_method *meths[2] = {&nh_method_rattle, &nh_method_shake};
  for (int diag = 0; diag <= 1; diag++) {
    nh_model *m = free_create((free_par){4, 2, diag, 0, 0});
    ENSURE(m);
    for (int i = 0; i < 2; i++) {
      tstep t;
      ENSURE(ts_init(&t, m, meths[i], paper_opts()) == 0);
      double x[8], y[8], err, E0 = 0.0, dE = 0.0;
      memcpy(x, m->x0, sizeof x);
      for (int k = 0; k < KERNEL_STEPS; k++) {
        ENSURE(meths[i]->step(&t.st, k * KERNEL_H, x, KERNEL_H, y, &err) == 0);
        memcpy(x, y, sizeof x);
        double E;
        if (i == 1) {
          E = t.st.end_C;
        } else { /* E + h^2/8 lam^T A M^-1 A^T lam at x */
          double lam[4], M[16], A[8], f[4], Mi[16];
          int piv[4];
          ENSURE(nh_model_energy(m, x, x + 4, &E) == 0);
          nh_vi_carried(&t.st, lam);
          ENSURE(m->mass(x, M, m->user) == 0 && m->constraint(x, x + 4, A, NULL, m->user) == 0);
          memcpy(Mi, M, sizeof M);
          ENSURE(nh_la_lu(4, Mi, piv, 0.0) == NH_OK);
          for (int j = 0; j < 4; j++) f[j] = lam[0] * A[j] + lam[1] * A[4 + j];
          double g[4];
          memcpy(g, f, sizeof f);
          nh_la_lu_solve(4, Mi, piv, g);
          E += KERNEL_H * KERNEL_H / 8.0 * nh_la_dot(4, f, g);
        }
        if (k == 0) E0 = E;
        dE = fmax(dE, fabs(E - E0) / E0);
      }
      if (!(dE <= RS_ENERGY_TOL)) printf("  %s diag %d: %.3e\n", meths[i]->name, diag, dE);
      ENSURE(dE <= RS_ENERGY_TOL);
      ts_free(&t);
    }
    nh_model_destroy(m);
  }
  return 0;
}

/* a fresh advance record for steps of h from t */
static nh_advance adv(double t, double h, long max) {
  nh_advance ad = {.t = t, .t_end = 1e9, .far = 0.0, .h = h, .max = max};
  ad.Cmax = -INFINITY, ad.Cmin = INFINITY;
  return ad;
}

/* the run does not start (0 steps, status 0) unless x0 is the end of the last step with its
 * projector kept and the same h: after a restart, after a partial step, for another h, from
 * another state; a model without a kernel has no run */
static int test_advance_refusals(void) {
  nh_model *m = free_create((free_par){3, 1, 1, 0, 0}), *g = free_create((free_par){3, 1, 1, 1, 0});
  ENSURE(m && g);
  tstep t;
  ENSURE(ts_init(&t, m, &nh_method_gni, paper_opts()) == 0);
  double x1[6], x2[6], y[6], err;
  ENSURE(nh_method_gni.step(&t.st, 0.0, m->x0, KERNEL_H, x1, &err) == 0);
  ENSURE(nh_method_gni.step(&t.st, KERNEL_H, x1, KERNEL_H, x2, &err) == 0);
  nh_advance ad = adv(2 * KERNEL_H, 2 * KERNEL_H, 5); /* another h */
  ENSURE(nh_method_gni.advance(&t.st, x2, y, &ad) == 0 && ad.done == 0);
  ad = adv(2 * KERNEL_H, KERNEL_H, 5); /* another state */
  ENSURE(nh_method_gni.advance(&t.st, x1, y, &ad) == 0 && ad.done == 0);
  t.st.restart = 1; /* set from outside */
  ENSURE(nh_method_gni.advance(&t.st, x2, y, &ad) == 0 && ad.done == 0);
  t.st.restart = 0;
  ENSURE(nh_method_gni.advance(&t.st, x2, y, &ad) == 0 && ad.done == 5);
  // a partial step from the run's end: its projector is not that of the end any more
  double xp[6];
  ENSURE(nh_method_gni.step(&t.st, ad.t, y, 0.5 * KERNEL_H, xp, &err) == 0);
  memcpy(x2, y, sizeof y);
  ad = adv(ad.t, KERNEL_H, 5);
  ENSURE(nh_method_gni.advance(&t.st, x2, y, &ad) == 0 && ad.done == 0);
  ts_free(&t);
  // no kernel (a force): no run
  ENSURE(ts_init(&t, g, &nh_method_gni, paper_opts()) == 0);
  ENSURE(nh_method_gni.step(&t.st, 0.0, g->x0, KERNEL_H, x1, &err) == 0);
  ad = adv(KERNEL_H, KERNEL_H, 5);
  ENSURE(nh_method_gni.advance(&t.st, x1, y, &ad) == 0 && ad.done == 0);
  ts_free(&t);
  nh_model_destroy(m), nh_model_destroy(g);
  return 0;
}

/* a run a step of which fails (its constraint call: -1, or NaN) stops before it: done counts
 * the steps taken, the state is theirs bit for bit (the steps one by one), and the driver's
 * next step from there is the clean step to round-off (the general step: the projector is
 * recomputed); the projector at the end failing too: the run's status is the failure */
static int test_advance_failures(void) {
  nh_model *in = free_create((free_par){4, 2, 0, 0, 0});
  ENSURE(in);
  fault f;
  memset(&f, 0, sizeof f);
  f.mask = 1u << FAULT_EV_CONSTRAINT;
  nh_model *m = fault_wrap(in, &f, NULL, 0);
  ENSURE(m);
  // the clean steps one by one
  double xs[12][8], err;
  tstep t;
  ENSURE(ts_init(&t, m, &nh_method_gni, paper_opts()) == 0);
  memcpy(xs[0], m->x0, sizeof xs[0]);
  for (int k = 0; k < 11; k++) ENSURE(nh_method_gni.step(&t.st, k * KERNEL_H, xs[k], KERNEL_H, xs[k + 1], &err) == 0);
  ts_free(&t);
  for (int mode = 0; mode < 3; mode++) {
    ENSURE(ts_init(&t, m, &nh_method_gni, paper_opts()) == 0);
    double y[8], z[8];
    ENSURE(nh_method_gni.step(&t.st, 0.0, xs[0], KERNEL_H, y, &err) == 0);
    // the run from xs[1]: its fourth step's constraint call fails (one call per kernel step)
    f.at = f.calls + 4, f.mode = mode == 1 ? FAULT_NAN : FAULT_NEG, f.persist = mode == 2;
    nh_advance ad = adv(KERNEL_H, KERNEL_H, 10);
    const int rc = nh_method_gni.advance(&t.st, y, z, &ad);
    f.at = 0, f.persist = 0;
    if (mode == 2) { /* the end's projector fails as well */
      ENSURE(rc == NH_ERR_CALLBACK);
      ts_free(&t);
      continue;
    }
    ENSURE(rc == 0 && ad.done == 3);
    ENSURE(memcmp(z, xs[4], sizeof(double) * 8) == 0 && ad.t == 4 * KERNEL_H);
    // the driver takes the next step itself
    ENSURE(nh_method_gni.step(&t.st, ad.t, z, KERNEL_H, y, &err) == 0);
    ENSURE(max_rel(8, y, xs[5]) <= KERNEL_TOL);
    ts_free(&t);
  }
  nh_model_destroy(m), nh_model_destroy(in);
  return 0;
}

/* ---- the carried vector ------------------------------------------------------------------ */

/* moved: the carried vector of the last step's end goes to the state the driver moved it to
 * (a step from there continues: the same as setting it there from outside); moved from a
 * state that is not that end changes nothing (a step from the new state restarts, as a fresh
 * stepper's) */
static int test_moved_and_set_carried(void) {
  nh_model *m = nh_model_kind_example(NH_KIND_CONSTRAINED, NH_KIND_FORCE, NULL, NULL, 0);
  ENSURE(m);
  const nh_method *meths[3] = {&nh_method_gni, &nh_method_rattle, &nh_method_shake};
  for (int i = 0; i < 3; i++) {
    const nh_method *me = meths[i];
    const double h = 0.02;
    tstep a, b, c;
    nh_method_opts o = paper_opts();
    ENSURE(ts_init(&a, m, me, o) == 0 && ts_init(&b, m, me, o) == 0 && ts_init(&c, m, me, o) == 0);
    double x1[6], x1p[6], ya[6], yb[6], yc[6], err, carried[6];
    ENSURE(me->step(&a.st, 0.0, m->x0, h, x1, &err) == 0);
    ENSURE(me->step(&b.st, 0.0, m->x0, h, x1, &err) == 0);
    // the driver's projection: the same state, the velocity scaled (still in ker A)
    memcpy(x1p, x1, sizeof x1);
    for (int k = 3; k < 6; k++) x1p[k] *= 1.0 - 1e-3;
    me->moved(&a.st, x1, x1p);
    nh_vi_carried(&b.st, carried);
    nh_vi_set_carried(&b.st, h, x1p, carried, h);
    ENSURE(me->step(&a.st, h, x1p, h, ya, &err) == 0);
    ENSURE(me->step(&b.st, h, x1p, h, yb, &err) == 0);
    ENSURE(memcmp(ya, yb, sizeof ya) == 0);
    // moved from a state that is not the last end: nothing carried; a fresh start
    ENSURE(me->step(&a.st, 0.0, m->x0, h, x1, &err) == 0);
    me->moved(&a.st, m->x0, x1p);
    ENSURE(me->step(&a.st, h, x1p, h, ya, &err) == 0);
    ENSURE(me->step(&c.st, h, x1p, h, yc, &err) == 0);
    ENSURE(memcmp(ya, yc, sizeof ya) == 0);
    // and differs from the continued step (the carried vector matters)
    ENSURE(memcmp(ya, yb, sizeof ya) != 0);
    ts_free(&a), ts_free(&b), ts_free(&c);
  }
  nh_model_destroy(m);
  return 0;
}

/* (q1 - q0) / h against the momentum q1 was formed from, at rounding (eps |q| / h) */
#define HALF_MOMENTUM_TOL 1e-12

/* the half-step momentum of gni, rattle and shake, M (q1 - q0) / h for a constant M (here I)
 * without forces; del's nodal momentum M v1; NULL for other methods */
static int test_half_momentum(void) {
  nh_model *m = nh_model_kind_example(NH_KIND_CONSTRAINED, 0, NULL, NULL, 0);
  ENSURE(m);
  const char *const names[5] = {"gni", "rattle", "shake", "del", "rk4"};
  for (int i = 0; i < 5; i++) {
    tstep t;
    const nh_method *me = nh_method_find(names[i]);
    ENSURE(ts_init(&t, m, me, paper_opts()) == 0);
    double x1[6], err;
    ENSURE(me->step(&t.st, 0.0, m->x0, 0.05, x1, &err) == 0);
    const double *p = nh_vi_half_momentum(&t.st);
    if (i == 4) {
      ENSURE(p == NULL);
    } else {
      ENSURE(p != NULL);
      for (int k = 0; k < 3; k++) ENSURE_NEAR(p[k], i == 3 ? x1[3 + k] : (x1[k] - m->x0[k]) / 0.05, HALF_MOMENTUM_TOL);
    }
    ts_free(&t);
  }
  nh_model_destroy(m);
  return 0;
}

/* a stepper whose work block is handed another model of the same sizes carves it again: its
 * steps are a fresh stepper's on that model */
static int test_work_reused(void) {
  nh_model *a = nh_model_kind_example(NH_KIND_CONSTRAINED, 0, NULL, NULL, 0);
  nh_model *b = nh_model_kind_example(NH_KIND_CONSTRAINED, NH_KIND_FORCE, NULL, NULL, 0);
  ENSURE(a && b && nh_method_gni.work_size(a) == nh_method_gni.work_size(b));
  tstep t, u;
  ENSURE(ts_init(&t, a, &nh_method_gni, paper_opts()) == 0);
  ENSURE(ts_init(&u, b, &nh_method_gni, paper_opts()) == 0);
  double x1[6], y1[6], err;
  ENSURE(nh_method_gni.step(&t.st, 0.0, a->x0, 0.05, x1, &err) == 0);
  t.st.model = b, t.st.restart = 1;
  nh_dyn_init(&t.dyn, b, t.dyn.mt.L); /* (the dynamics' block is the same size too) */
  ENSURE(nh_method_gni.step(&t.st, 0.0, b->x0, 0.05, x1, &err) == 0);
  ENSURE(nh_method_gni.step(&u.st, 0.0, b->x0, 0.05, y1, &err) == 0);
  ENSURE(memcmp(x1, y1, sizeof x1) == 0);
  ts_free(&t), ts_free(&u);
  nh_model_destroy(a), nh_model_destroy(b);
  return 0;
}

/* ---- held gaps, sizes ------------------------------------------------------------------- */

/* A v and dg v at the nodes, |v| ~ 1: the projection's rounding */
#define HELD_ROW_TOL 1e-14

/* with a gap held closed (the dynamics' active set) its gradient is a row of the step: no
 * free-motion kernel; the nodal velocity is in the kernel of the model's row and the gap's */
static int test_held_gap_rows(void) {
  nh_model *m = nh_model_kind_example(NH_KIND_CONSTRAINED, 0, NULL, NULL, 0);
  ENSURE(m && m->ngap == 1);
  const nh_method *meths[3] = {&nh_method_gni, &nh_method_rattle, &nh_method_shake};
  static const int act0 = 0;
  for (int i = 0; i < 3; i++) {
    tstep t;
    ENSURE(ts_init(&t, m, meths[i], paper_opts()) == 0);
    t.dyn.nact = 1, t.dyn.act = &act0;
    double x[6], y[6], err, A[3], g, dg[3];
    memcpy(x, m->x0, sizeof x);
    for (int k = 0; k < 4; k++) {
      ENSURE(meths[i]->step(&t.st, 0.05 * k, x, 0.05, y, &err) == 0);
      memcpy(x, y, sizeof x);
      ENSURE(m->constraint(x, x + 3, A, NULL, m->user) == 0 && m->gap(x, &g, dg, m->user) == 0);
      double av = 0.0, gv = 0.0;
      for (int j = 0; j < 3; j++) av += A[j] * x[3 + j], gv += dg[j] * x[3 + j];
      ENSURE(fabs(av) <= HELD_ROW_TOL && fabs(gv) <= HELD_ROW_TOL);
    }
    ts_free(&t);
  }
  // the gap's gradient cannot be evaluated: the step's status is the evaluator's
  fault f;
  memset(&f, 0, sizeof f);
  nh_model *w = fault_wrap(m, &f, NULL, 0);
  ENSURE(w);
  for (int i = 0; i < 3; i++) {
    tstep t;
    ENSURE(ts_init(&t, w, meths[i], paper_opts()) == 0);
    t.dyn.nact = 1, t.dyn.act = &act0;
    f.mask = 1u << FAULT_EV_GAP, f.at = f.calls + 1, f.mode = FAULT_NEG;
    double y[6], err;
    ENSURE(meths[i]->step(&t.st, 0.0, w->x0, 0.05, y, &err) == NH_ERR_CALLBACK && f.hits >= 1);
    f.at = 0, f.hits = 0;
    ts_free(&t);
  }
  nh_model_destroy(w);
  nh_model_destroy(m);
  return 0;
}

/* M = I, V = |q|^2 / 2 on n coordinates; one holonomic constraint |q|^2 = 1 (hol = 1), its
 * velocity form q . q' = 0 as a nonholonomic row (hol = 2), or none; SE(2) coordinates 0, 1,
 * 2 declared (se2) */
static int big_mass(const double *q, double *M, void *u) {
  const int n = *(const int *)u;
  (void)q;
  for (int i = 0; i < n * n; i++) M[i] = i % (n + 1) == 0 ? 1.0 : 0.0;
  return 0;
}
static int big_potential(const double *q, double *V, double *dV, void *u) {
  const int n = *(const int *)u;
  double s = 0.0;
  for (int i = 0; i < n; i++) s += q[i] * q[i], dV ? dV[i] = q[i] : 0.0;
  if (V) *V = 0.5 * s;
  return 0;
}
static int big_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  const int n = *(const int *)u;
  double s = 0.0;
  for (int i = 0; i < n; i++) s += v[i] * v[i], A ? A[i] = 2.0 * q[i] : 0.0;
  if (Adv) *Adv = 2.0 * s;
  return 0;
}
static int big_holonomic(const double *q, double *phi, void *u) {
  const int n = *(const int *)u;
  double s = -1.0;
  for (int i = 0; i < n; i++) s += q[i] * q[i];
  *phi = s;
  return 0;
}
static nh_model *big_create(int n, int hol, int se2) {
  char (*names)[12] = calloc((size_t)n, 12);
  const char **np = calloc((size_t)n, sizeof *np);
  double *q0 = calloc((size_t)n, sizeof(double)), *v0 = calloc((size_t)n, sizeof(double));
  if (!names || !np || !q0 || !v0) return NULL;
  for (int i = 0; i < n; i++) snprintf(names[i], 12, "q%d", i), np[i] = names[i], v0[i] = i == 1 ? 1.0 : 0.0;
  q0[0] = 1.0;
  nh_model_def d = nh_model_def_default();
  d.name = "big", d.nq = n, d.nc = hol > 0, d.coord_names = np, d.q0 = q0, d.v0 = v0;
  d.mass = big_mass, d.potential = big_potential;
  if (hol) d.constraint = big_constraint, d.holonomic = hol == 1 ? big_holonomic : NULL;
  if (se2) d.has_se2 = 1, d.se2[0] = 0, d.se2[1] = 1, d.se2[2] = 2;
  d.user = &n, d.user_size = sizeof n;
  nh_model *m = nh_model_create(&d, NULL, 0);
  free(names), free(np), free(q0), free(v0);
  return m;
}

/* the energy over 19 steps of 0.01 (O(h^2), no drift); q1 against q0 + h v0 (O(h^2)) */
#define SIZES_ENERGY_TOL 1e-3
#define SIZES_STEP_TOL 1e-6

/* past the sizes the steps are compiled for: gni on 7 coordinates (with a row or none) and on
 * 3 rows (no kernel), the general step (energy to O(h^2)); del past its dense bound of 64
 * unknowns: the trapezoidal step runs (the closed gaps projected by the driver), the
 * midpoint rule refuses (no dM buffers), constraints refuse; rdp refuses past 64 shapes */
static int test_sizes(void) {
  nh_model *b7 = big_create(7, 0, 0), *f3 = free_create((free_par){5, 3, 0, 0, 0}), *f7 = free_create((free_par){7, 1, 1, 0, 0});
  nh_model *b65 = big_create(65, 0, 0), *h64 = big_create(64, 1, 0), *s67 = big_create(67, 0, 1);
  nh_model *n64 = big_create(64, 2, 0);
  ENSURE(b7 && f3 && f7 && b65 && h64 && s67 && n64);
  const nh_model *run[3] = {b7, f3, f7};
  for (int j = 0; j < 3; j++) {
    tstep t;
    ENSURE(ts_init(&t, run[j], &nh_method_gni, paper_opts()) == 0);
    double x[16], y[16], err, E0, E1;
    const int n = run[j]->nq;
    memcpy(x, run[j]->x0, sizeof(double) * 2 * n);
    for (int k = 0; k < 20; k++) {
      ENSURE(nh_method_gni.step(&t.st, 0.01 * k, x, 0.01, y, &err) == 0);
      memcpy(x, y, sizeof(double) * 2 * n);
      if (k == 0) ENSURE(nh_model_energy(run[j], x, x + n, &E0) == 0); /* (v0 projected by the first step) */
    }
    ENSURE(nh_model_energy(run[j], x, x + n, &E1) == 0);
    if (!(fabs(E1 - E0) <= SIZES_ENERGY_TOL * fabs(E0))) printf("  %d: E %.17g -> %.17g\n", j, E0, E1);
    ENSURE(fabs(E1 - E0) <= SIZES_ENERGY_TOL * fabs(E0));
    ts_free(&t);
  }
  nh_method_opts o = paper_opts();
  ENSURE(nh_method_del.hold(b65, &o) == NH_HOLD_PROJECT && nh_method_del.hold(b7, &o) == NH_HOLD_CONSTRAINT);
  char msg[256];
  tstep t;
  ENSURE(ts_init(&t, b65, &nh_method_del, o) == 0);
  double *x1 = calloc(130, sizeof(double)), err;
  ENSURE(x1);
  ENSURE(nh_method_del.step(&t.st, 0.0, b65->x0, 0.01, x1, &err) == 0);
  ENSURE_NEAR(x1[1], 0.01, SIZES_STEP_TOL);
  t.st.opts.midpoint_ld = 1;
  ENSURE(nh_method_del.step(&t.st, 0.0, b65->x0, 0.01, x1, &err) == NH_ERR_UNSUPPORTED);
  ts_free(&t);
  free(x1);
  ENSURE(nh_method_check(&nh_method_del, h64, msg, sizeof msg) == NH_ERR_UNSUPPORTED);
  ENSURE(strstr(msg, "at most 64 coordinates and constraints together"));
  ENSURE(nh_method_check(&nh_method_del, n64, msg, sizeof msg) == NH_ERR_UNSUPPORTED);
  ENSURE(nh_method_check(&nh_method_rdp, s67, msg, sizeof msg) == NH_ERR_UNSUPPORTED);
  nh_model_destroy(b7), nh_model_destroy(f3), nh_model_destroy(f7), nh_model_destroy(b65), nh_model_destroy(h64);
  nh_model_destroy(s67), nh_model_destroy(n64);
  return 0;
}

/* ---- a large model's projector on its rows' extents -------------------------------------- */

/* a chain of CHAIN_N Chaplygin sleighs joined by springs (scripts/sleigh-chain.sh: a constant
 * diagonal M, one row per sleigh on its own three coordinates), its rows in the given order or
 * reversed, each row coupled to the next sleigh's angle (overlap: the extents overlap), M
 * coupled by a constant or a configuration-dependent cross term (coupled = 1, 2: no
 * projector on extents) */
#define CHAIN_N 6
/* the sparse factor of G against the dense one over ten steps */
#define CHAIN_SPARSE_TOL 1e-13
static nh_model *chain_create(int reversed, int overlap, int coupled) {
  char text[8192];
  size_t len = 0;
#define PUT(...) len += (size_t)snprintf(text + len, sizeof text - len, __VA_ARGS__)
  PUT("model chain\ncoordinates");
  for (int i = 1; i <= CHAIN_N; i++) PUT(" th%d x%d y%d", i, i, i);
  PUT("\nkinetic");
  for (int i = 1; i <= CHAIN_N; i++) PUT(" 1/2*th%d'^2 + 1/2*(x%d'^2 + y%d'^2) +", i, i, i);
  // M coupled: a constant (1) or a configuration-dependent (2) cross term; else diagonal
  PUT(" %s*th1'*x1'\n", coupled == 2 ? "0.1*cos(th1)" : coupled == 1 ? "0.1" : "0");
  PUT("potential");
  for (int i = 1; i < CHAIN_N; i++) PUT(" 1/2*((x%d - x%d - 2)^2 + (y%d - y%d)^2)%s", i + 1, i, i + 1, i, i + 1 < CHAIN_N ? " +" : "\n");
  for (int j = 1; j <= CHAIN_N; j++) {
    const int i = reversed ? CHAIN_N + 1 - j : j;
    PUT("constraint skate%d: th%d' + sin(th%d)*x%d' - cos(th%d)*y%d'", i, i, i, i, i, i);
    if (overlap && i < CHAIN_N) PUT(" + 0.1*th%d'", i + 1);
    PUT(" = 0\n");
  }
  for (int i = 1; i <= CHAIN_N; i++) PUT("initial th%d = 0.1*%d, x%d = %d, th%d' = 1, x%d' = -1, y%d' = 1\n", i, i, i, 2 * i, i, i, i);
#undef PUT
  char msg[1024];
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE, lo.project_initial = 1;
  nh_model *m = nh_model_parse(text, "chain", &lo, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  return m;
}

/* gni, rattle and shake on the chain with its patterns (the projector on the rows' extents,
 * rows by the sparse fill) and without (the dense loops): the same bits, rows in order or
 * not, extents apart or overlapping */
static int test_chain_extents(void) {
  const nh_method *meths[3] = {&nh_method_gni, &nh_method_rattle, &nh_method_shake};
  for (int var = 0; var < 6; var++) {
    nh_model *in = chain_create(var & 1, var >> 1 & 1, var >> 2 ? (var & 1) + 1 : 0);
    ENSURE(in && in->nq == 3 * CHAIN_N && in->constraint_pattern);
    fault fp, fd;
    memset(&fp, 0, sizeof fp), memset(&fd, 0, sizeof fd);
    fp.sparse = 1, fd.dense = 1;
    nh_model *mp = fault_wrap(in, &fp, NULL, 0), *md = fault_wrap(in, &fd, NULL, 0);
    ENSURE(mp && md && mp->constraint_sparse && !md->constraint_pattern);
    for (int i = 0; i < 3; i++) {
      tstep tp, td;
      ENSURE(ts_init(&tp, mp, meths[i], paper_opts()) == 0);
      ENSURE(ts_init(&td, md, meths[i], paper_opts()) == 0);
      double xp[36], xd[36], y[36], err;
      memcpy(xp, in->x0, sizeof xp), memcpy(xd, in->x0, sizeof xd);
      for (int k = 0; k < 10; k++) {
        ENSURE(meths[i]->step(&tp.st, 0.01 * k, xp, 0.01, y, &err) == 0);
        memcpy(xp, y, sizeof y);
        ENSURE(meths[i]->step(&td.st, 0.01 * k, xd, 0.01, y, &err) == 0);
        memcpy(xd, y, sizeof y);
        // (overlapping extents on a model with the sparse analysis of G: its factor, the same
        // to rounding; else the same bits)
        const double tol = var >> 1 & 1 && in->gram ? CHAIN_SPARSE_TOL : 0.0;
        if (!(max_rel(36, xp, xd) <= tol)) printf("  %s, variant %d, step %d: %.3e\n", meths[i]->name, var, k, max_rel(36, xp, xd));
        ENSURE(max_rel(36, xp, xd) <= tol);
      }
      ts_free(&tp), ts_free(&td);
    }
    // the sparse fill failing: the step's status is the evaluator's
    for (int i = 0; i < 3; i++) {
      tstep t;
      ENSURE(ts_init(&t, mp, meths[i], paper_opts()) == 0);
      fp.mask = 1u << FAULT_EV_CONSTRAINT_SPARSE, fp.at = fp.calls + 1, fp.mode = FAULT_NEG, fp.hits = 0;
      double y[36], err;
      const int rc = meths[i]->step(&t.st, 0.0, in->x0, 0.01, y, &err);
      ENSURE(rc == NH_ERR_CALLBACK && fp.hits == 1);
      fp.at = 0, fp.mask = 0;
      ts_free(&t);
    }
    // every row vanishing at q_k+1 (the last call): empty extents, G singular
    char msg[256];
    for (int i = 0; i < 3; i++)
      ENSURE(ts_fault_at(in, meths[i], paper_opts(), 1, FAULT_EV_CONSTRAINT, -1, FAULT_ZERO, msg,
                         sizeof msg) == NH_ERR_SINGULAR);
    nh_model_destroy(mp), nh_model_destroy(md), nh_model_destroy(in);
  }
  return 0;
}

/* a hub sleigh towing TREE_K chains of TREE_L trailers (scripts/sleigh-tree.sh: a constant
 * diagonal M, a tree of hitches): G's envelope fills, the dynamics and gni's projector take
 * the sparse factor of G in a fill-reducing order (when CHOLMOD orders it) */
#define TREE_K 8
#define TREE_L 4
#define TREE_NB (1 + TREE_K * TREE_L)
static nh_model *tree_create(void) {
  static char text[32768];
  size_t len = 0;
#define PUT(...) len += (size_t)snprintf(text + len, sizeof text - len, __VA_ARGS__)
  PUT("model tree\ncoordinates");
  for (int b = 0; b < TREE_NB; b++) PUT(" th%d x%d y%d", b, b, b);
  PUT("\nkinetic");
  for (int b = 0; b < TREE_NB; b++) PUT(" 1/2*th%d'^2 + 1/2*(x%d'^2 + y%d'^2)%s", b, b, b, b + 1 < TREE_NB ? " +" : "\n");
  PUT("potential");
  for (int b = 1; b < TREE_NB; b++) {
    const int p = (b - 1) % TREE_L == 0 ? 0 : b - 1;
    PUT(" 1/2*((x%d - x%d)^2 + (y%d - y%d)^2)%s", b, p, b, p, b + 1 < TREE_NB ? " +" : "\n");
  }
  for (int b = 0; b < TREE_NB; b++) {
    PUT("constraint skate%d: th%d' + sin(th%d)*x%d' - cos(th%d)*y%d' = 0\n", b, b, b, b, b, b);
    if (b == 0) continue;
    const int p = (b - 1) % TREE_L == 0 ? 0 : b - 1;
    PUT("constraint hitch%d: cos(th%d)*(x%d' - x%d') + sin(th%d)*(y%d' - y%d') = 0\n", b, p, b, p, p, b, p);
  }
  for (int b = 1; b < TREE_NB; b++) {
    const int c = (b - 1) / TREE_L, j = (b - 1) % TREE_L;
    const double phi = 2.0 * 3.141592653589793 * c / TREE_K, r = 2.0 * (j + 1);
    PUT("initial th%d = %.17g, x%d = %.17g, y%d = %.17g\n", b, phi + 0.1 * sin(b), b, r * cos(phi) + 0.3 * sin(1.7 * b),
        b, r * sin(phi) + 0.3 * cos(2.3 * b));
  }
#undef PUT
  char msg[1024];
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  nh_model *m = nh_model_parse(text, "tree", &lo, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  return m;
}

/* the tree's projector on the sparse factor of G: gni the same as with the dense loops to
 * rounding over a few steps; every row vanishing: the sparse factor fails, NH_ERR_SINGULAR */
#define TREE_TOL 1e-12
static int test_tree_sparse(void) {
  nh_model *in = tree_create();
  ENSURE(in);
  if (nh_model_multiplier_solver(in, NULL, NULL) != NH_SOLVE_SPARSE) {
    printf("  (no sparse factor: built without CHOLMOD)\n");
    nh_model_destroy(in);
    return 0;
  }
  fault fp, fd;
  memset(&fp, 0, sizeof fp), memset(&fd, 0, sizeof fd);
  fd.dense = 1;
  nh_model *mp = fault_wrap(in, &fp, NULL, 0), *md = fault_wrap(in, &fd, NULL, 0);
  ENSURE(mp && md);
  const int nx = in->nx;
  double *xp = calloc(4 * (size_t)nx, sizeof(double)), *xd = xp + nx, *y = xd + nx, err;
  ENSURE(xp);
  tstep tp, td;
  ENSURE(ts_init(&tp, mp, &nh_method_gni, paper_opts()) == 0);
  ENSURE(ts_init(&td, md, &nh_method_gni, paper_opts()) == 0);
  memcpy(xp, in->x0, sizeof(double) * nx), memcpy(xd, in->x0, sizeof(double) * nx);
  for (int k = 0; k < 5; k++) {
    ENSURE(nh_method_gni.step(&tp.st, 0.01 * k, xp, 0.01, y, &err) == 0);
    memcpy(xp, y, sizeof(double) * nx);
    ENSURE(nh_method_gni.step(&td.st, 0.01 * k, xd, 0.01, y, &err) == 0);
    memcpy(xd, y, sizeof(double) * nx);
    ENSURE(max_rel(nx, xp, xd) <= TREE_TOL);
  }
  ts_free(&tp), ts_free(&td);
  // every row vanishing at q_1: ts_fault_at steps at most TS_NXMAX, so by hand
  fp.mask = 1u << FAULT_EV_CONSTRAINT;
  ENSURE(ts_init(&tp, mp, &nh_method_gni, paper_opts()) == 0);
  fp.calls = 0;
  ENSURE(nh_method_gni.step(&tp.st, 0.0, in->x0, 0.01, y, &err) == 0);
  const long per_step = fp.calls; /* (the start's rows, the midpoint start's, the end's) */
  ts_free(&tp);
  ENSURE(ts_init(&tp, mp, &nh_method_gni, paper_opts()) == 0);
  fp.calls = 0, fp.at = per_step, fp.mode = FAULT_ZERO;
  ENSURE(nh_method_gni.step(&tp.st, 0.0, in->x0, 0.01, y, &err) == NH_ERR_SINGULAR);
  ts_free(&tp);
  free(xp);
  nh_model_destroy(mp), nh_model_destroy(md), nh_model_destroy(in);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_free_kernels);
  RUN_TEST(test_rattle_shake_energy);
  RUN_TEST(test_advance_refusals);
  RUN_TEST(test_advance_failures);
  RUN_TEST(test_moved_and_set_carried);
  RUN_TEST(test_half_momentum);
  RUN_TEST(test_work_reused);
  RUN_TEST(test_held_gap_rows);
  RUN_TEST(test_sizes);
  RUN_TEST(test_chain_extents);
  RUN_TEST(test_tree_sparse);
  return TEST_SUMMARY();
}
