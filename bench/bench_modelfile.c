/* bench_modelfile.c - evaluation speed of models read from files (tape and generated C)
 * against the same evaluators written by hand in C, measured in the same process:
 * ns per call of M(q), A(q), dA/dq and dV(q) for the penny, the Chaplygin sleigh and the quartic
 * system (which, unlike the other two, has a potential), and of
 * one right-hand side of the dynamics (M, Coriolis, dV, f, A, Adot v and the solve).
 * Targets (issue 3): codegen within 1.3x of hand-written C, tape within 5x.
 * Usage: bench_modelfile [calls]  (default 5000000) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/dynamics.h"
#include "bench.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

static volatile double sink;

/* ---- hand-written evaluators, as a user would write them ------------------------------- */

typedef struct penny_p {
  double m, R, I, J;
} penny_p;
static int hp_mass(const double *q, double *M, void *u) {
  const penny_p *p = u;
  (void)q;
  memset(M, 0, 16 * sizeof(double));
  M[0] = M[5] = p->m, M[10] = p->I, M[15] = p->J;
  return 0;
}
static int hp_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  const penny_p *p = u;
  double c = cos(q[3]), s = sin(q[3]);
  if (A) {
    A[0] = 1, A[1] = 0, A[2] = -p->R * c, A[3] = 0;
    A[4] = 0, A[5] = 1, A[6] = -p->R * s, A[7] = 0;
  }
  if (Adv) Adv[0] = p->R * s * v[3] * v[2], Adv[1] = -p->R * c * v[3] * v[2];
  return 0;
}
static int hp_dA(const double *q, double *dA, void *u) {
  const penny_p *p = u;
  memset(dA, 0, 32 * sizeof(double));
  dA[(3 * 2 + 0) * 4 + 2] = p->R * sin(q[3]);
  dA[(3 * 2 + 1) * 4 + 2] = -p->R * cos(q[3]);
  return 0;
}
static int hp_potential(const double *q, double *V, double *dV, void *u) {
  (void)q, (void)u;
  if (V) *V = 0;
  if (dV) memset(dV, 0, 4 * sizeof(double));
  return 0;
}

typedef struct sleigh_p {
  double I, m, a;
} sleigh_p;
static int hs_mass(const double *q, double *M, void *u) {
  const sleigh_p *p = u;
  (void)q;
  memset(M, 0, 9 * sizeof(double));
  M[0] = p->I, M[4] = p->m, M[8] = p->m;
  return 0;
}
static int hs_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  const sleigh_p *p = u;
  double c = cos(q[0]), s = sin(q[0]);
  if (A) A[0] = p->a, A[1] = s, A[2] = -c;
  if (Adv) Adv[0] = v[0] * (c * v[1] + s * v[2]);
  return 0;
}
static int hs_dA(const double *q, double *dA, void *u) {
  (void)u;
  memset(dA, 0, 9 * sizeof(double));
  dA[1] = cos(q[0]), dA[2] = sin(q[0]);
  return 0;
}

/* the quartic system with nc = 2: q = (x, w1, w2, z1, z2), M = I, one constraint
 * x' + w1 z1' + w2 z2' = 0, V = (|q|^2 + z1^2 z2^2 + w1^2 z1^2 + w2^2 z2^2) / 2 */
static int hq_mass(const double *q, double *M, void *u) {
  (void)q, (void)u;
  memset(M, 0, 25 * sizeof(double));
  for (int i = 0; i < 5; i++) M[i * 6] = 1.0;
  return 0;
}
static int hq_constraint(const double *q, const double *v, double *A, double *Adv, void *u) {
  (void)u;
  if (A) A[0] = 1, A[1] = 0, A[2] = 0, A[3] = q[1], A[4] = q[2];
  if (Adv) Adv[0] = v[1] * v[3] + v[2] * v[4];
  return 0;
}
static int hq_dA(const double *q, double *dA, void *u) {
  (void)q, (void)u;
  memset(dA, 0, 25 * sizeof(double));
  dA[1 * 5 + 3] = 1.0, dA[2 * 5 + 4] = 1.0;
  return 0;
}
static int hq_potential(const double *q, double *V, double *dV, void *u) {
  (void)u;
  double x = q[0], w1 = q[1], w2 = q[2], z1 = q[3], z2 = q[4];
  if (V)
    *V = 0.5 * (x * x + w1 * w1 + w2 * w2 + z1 * z1 + z2 * z2 + z1 * z1 * z2 * z2 + w1 * w1 * z1 * z1 +
                w2 * w2 * z2 * z2);
  if (dV) {
    dV[0] = x;
    dV[1] = w1 + w1 * z1 * z1;
    dV[2] = w2 + w2 * z2 * z2;
    dV[3] = z1 + z1 * z2 * z2 + w1 * w1 * z1;
    dV[4] = z2 + z1 * z1 * z2 + w2 * w2 * z2;
  }
  return 0;
}

/* ---- timing ------------------------------------------------------------------------------ */

enum { EV_M, EV_A, EV_DA, EV_DV, EV_RHS, EV_COUNT };
static const char *ev_names[EV_COUNT] = {"M(q)", "A(q)", "dA/dq", "dV(q)", "rhs"};

static double time_once(const nh_model *m, int ev, long calls);

/* the best of three runs (the machine may be busy) */
static double time_ev(const nh_model *m, int ev, long calls) {
  if ((ev == EV_DV && !m->potential) || ((ev == EV_A || ev == EV_DA) && !m->nc)) return NAN;
  double best = INFINITY;
  for (int r = 0; r < 3; r++) best = fmin(best, time_once(m, ev, calls));
  return best;
}

static double time_once(const nh_model *m, int ev, long calls) {
  double q[8] = {0}, v[8] = {0}, out[512], x[16], xd[16];
  for (int i = 0; i < m->nq; i++) q[i] = m->q0[i], v[i] = m->v0[i];
  nh_dyn dyn;
  double *work = malloc(sizeof(double) * nh_dyn_work_size(m));
  nh_dyn_init(&dyn, m, work);
  for (int i = 0; i < m->nq; i++) x[i] = q[i], x[m->nq + i] = v[i];
  double acc = 0.0, t0 = bench_now();
  for (long k = 0; k < calls; k++) {
    q[m->nq - 1] += 1e-9; /* a changing angle defeats any caching */
    x[m->nq - 1] = q[m->nq - 1];
    switch (ev) {
    case EV_M: m->mass(q, out, m->user); break;
    case EV_A: m->constraint(q, v, out, NULL, m->user); break;
    case EV_DA: m->constraint_deriv(q, out, m->user); break;
    case EV_DV: m->potential(q, NULL, out, m->user); break;
    default: nh_dyn_rhs(&dyn, 0.0, x, xd), out[0] = xd[m->nq]; break;
    }
    acc += out[0];
  }
  double dt = bench_now() - t0;
  sink = acc;
  free(work);
  return 1e9 * dt / (double)calls;
}


static void report(const char *name, nh_model *hand, nh_model *tape, nh_model *cg, long calls) {
  printf("\n%s (%ld calls each)\n%-8s %12s %12s %12s %10s %10s\n", name, calls, "", "hand C ns",
         "codegen ns", "tape ns", "codegen/C", "tape/C");
  for (int ev = 0; ev < EV_COUNT; ev++) {
    double h = time_ev(hand, ev, calls), c = time_ev(cg, ev, calls), t = time_ev(tape, ev, calls);
    if (isnan(h)) {
      printf("%-8s %12s (the model has none)\n", ev_names[ev], "-");
      continue;
    }
    if (isnan(c)) { /* V = 0 in the file: the library needs no evaluator at all */
      printf("%-8s %12.2f %12s %12s   (V = 0: the model file has no potential evaluator)\n",
             ev_names[ev], h, "-", "-");
      continue;
    }
    printf("%-8s %12.2f %12.2f %12.2f %10.2f %10.2f\n", ev_names[ev], h, c, t, c / h, t / h);
  }
}

/* CPU seconds of one run of method to T (best of INTEG_REPS timings of INTEG_BATCH runs) and
 * its evaluations */
#define INTEG_REPS 7
#define INTEG_BATCH 20
static double integ_time(const nh_model *m, const char *method, double T, double h, long *evals) {
  double best = 1e300;
  for (int r = 0; r < INTEG_REPS; r++) {
    double t0 = bench_now();
    for (int b = 0; b < INTEG_BATCH; b++) {
      nh_sim_def d = nh_sim_def_default();
      d.method = nh_method_find(method);
      d.rtol = 1e-10, d.atol = 1e-12, d.h = h;
      nh_sim *s = nh_sim_create(m, &d, NULL, 0);
      if (!s || nh_sim_run(s, T, 0, NULL, NULL) != NH_OK) return -1.0;
      *evals = nh_sim_get_stats(s)->evals;
      nh_sim_destroy(s);
    }
    double dt = (bench_now() - t0) / INTEG_BATCH;
    if (dt < best) best = dt;
  }
  return best;
}

/* whole integrations of the sleigh: the model file (generated C) against the built-in, the
 * same method and steps (issue 30: within 1.1x for dopri5 and rk4) */
static void report_integrations(void) {
  nh_sleigh_params p = nh_sleigh_params_default();
  nh_model *b = nh_sleigh_create(&p, NULL, 0);
  nh_model *f = bench_load_example("chaplygin_sleigh.nh", NH_BACKEND_CODEGEN, NULL, NULL, 0);
  const char *meth[3] = {"dopri5", "rk4", "dop853"};
  const double hs[3] = {0.0, 1e-3, 0.0};
  printf("\nsleigh to T = 10, built-in against examples/chaplygin_sleigh.nh (generated C); target <= 1.1x\n");
  printf("%-7s %12s %12s %8s %8s %9s\n", "method", "built-in us", "file us", "evals", "evals", "file/b-in");
  for (int k = 0; b && f && k < 3; k++) {
    long eb = 0, ef = 0;
    double tb = integ_time(b, meth[k], 10.0, hs[k], &eb), tf = integ_time(f, meth[k], 10.0, hs[k], &ef);
    printf("%-7s %12.1f %12.1f %8ld %8ld %9.2f\n", meth[k], 1e6 * tb, 1e6 * tf, eb, ef, tf / tb);
  }
  nh_model_destroy(b), nh_model_destroy(f);
}

int main(int argc, char **argv) {
  long calls = argc > 1 ? atol(argv[1]) : 5000000;
  if (calls < 1) calls = 5000000;
  /* penny (elliptical table: the example's default) */
  penny_p pp = {0.0025, 0.01, 0.5 * 0.0025 * 1e-4, 0.25 * 0.0025 * 1e-4};
  nh_penny_params par = nh_penny_params_default();
  par.a = 0.15;
  nh_model *penny_builtin = nh_penny_create(&par, NULL, 0);
  nh_model_def d = nh_model_def_default();
  static const char *pn[] = {"x", "y", "theta", "phi"};
  d.name = "penny-hand";
  d.nq = 4, d.nc = 2;
  d.coord_names = pn;
  d.q0 = penny_builtin->q0, d.v0 = penny_builtin->v0;
  d.mass = hp_mass, d.constraint = hp_constraint, d.constraint_deriv = hp_dA, d.potential = hp_potential;
  d.user = &pp, d.user_size = sizeof pp;
  d.mass_constant = 1; /* as the model file's (its M does not depend on q) */
  nh_model *ph = nh_model_create(&d, NULL, 0);
  nh_model *pt = bench_load_example("penny.nh", NH_BACKEND_TAPE, NULL, NULL, 0);
  nh_model *pc = bench_load_example("penny.nh", NH_BACKEND_CODEGEN, NULL, NULL, 0);
  /* sleigh */
  sleigh_p sp = {1, 1, 1};
  static const char *sn[] = {"theta", "x", "y"};
  double sq0[3] = {0, 0, 0}, sv0[3] = {1, -1, 1};
  nh_model_def e = nh_model_def_default();
  e.name = "sleigh-hand";
  e.nq = 3, e.nc = 1;
  e.coord_names = sn;
  e.q0 = sq0, e.v0 = sv0;
  e.mass = hs_mass, e.constraint = hs_constraint, e.constraint_deriv = hs_dA;
  e.user = &sp, e.user_size = sizeof sp;
  e.mass_constant = 1; /* as the model file's (its M does not depend on q) */
  nh_model *sh = nh_model_create(&e, NULL, 0);
  nh_model *st = bench_load_example("chaplygin_sleigh.nh", NH_BACKEND_TAPE, NULL, NULL, 0);
  nh_model *sc = bench_load_example("chaplygin_sleigh.nh", NH_BACKEND_CODEGEN, NULL, NULL, 0);
  /* quartic, nc = 2 */
  nh_model *qt = bench_load_example("quartic2.nh", NH_BACKEND_TAPE, NULL, NULL, 0);
  nh_model *qc = bench_load_example("quartic2.nh", NH_BACKEND_CODEGEN, NULL, NULL, 0);
  if (!qt || !qc) return 1;
  nh_model_def f = nh_model_def_default();
  f.name = "quartic2-hand";
  f.nq = 5, f.nc = 1;
  f.coord_names = qt->coord_names;
  f.q0 = qt->q0, f.v0 = qt->v0;
  f.mass = hq_mass, f.constraint = hq_constraint, f.constraint_deriv = hq_dA, f.potential = hq_potential;
  f.mass_constant = 1; /* as the model file's (its M does not depend on q) */
  nh_model *qh = nh_model_create(&f, NULL, 0);
  if (!ph || !pt || !pc || !sh || !st || !sc || !qh) return 1;
  printf("model-file evaluation against hand-written C (same process); targets: codegen <= 1.3x, tape <= 5x\n");
  report("penny", ph, pt, pc, calls);
  report("chaplygin sleigh", sh, st, sc, calls);
  report("quartic system, nc = 2", qh, qt, qc, calls);
  report_integrations();
  nh_model_destroy(penny_builtin);
  nh_model_destroy(ph), nh_model_destroy(pt), nh_model_destroy(pc);
  nh_model_destroy(sh), nh_model_destroy(st), nh_model_destroy(sc);
  nh_model_destroy(qh), nh_model_destroy(qt), nh_model_destroy(qc);
  return 0;
}
