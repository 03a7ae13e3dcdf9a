/* test_modelfile.c - models from text: the penny file against the hand-written penny, every
 * derived quantity against finite differences, generated C against the tape, overrides and
 * the initial-velocity check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

#ifndef NHOLO_SOURCE_DIR
#define NHOLO_SOURCE_DIR "."
#endif
#ifndef NHOLO_TEST_CACHE
#define NHOLO_TEST_CACHE "nholo-test-cache"
#endif

/* the file and the hand-written penny: impact times agree to this (relative) */
#define PENNY_TIME_TOL 1e-13
/* ... and post-impact velocities to this, relative to max_i |v_i| */
#define PENNY_VEL_TOL 1e-13
/* on the elliptical table, where the impact map near grazing amplifies the differences */
#define PENNY_VEL_TOL_ELLIPSE 1e-12
/* central differences with step FD_H: truncation O(FD_H^2) ~ 1e-10 against the exact values */
#define FD_H 1e-5
#define FD_TOL 1e-7
/* generated C against the tape: the same operations in the same order */
#define CODEGEN_TOL 1e-15

static nh_load_opts opts(nh_backend backend) {
  nh_load_opts o = nh_load_opts_default();
  o.backend = backend;
  o.cache_dir = NHOLO_TEST_CACHE;
  return o;
}

/* ---- the penny from its file equals the hand-written penny ----------------------------- */

/* Impact after impact: the hand-written penny runs 20 impacts; from each of its post-impact
 * states the file model runs to its own next impact, which must agree with the hand-written
 * one in time and velocity. (Whole runs cannot be compared this way: the impact sequence
 * amplifies a 1e-15 change of the initial rolling rate to 2e-12 in the 5th impact time, for
 * either model, so 1-ulp differences of the evaluators grow the same way.) */
static nh_sim *penny_sim(nh_model *m) {
  nh_sim_def d = nh_sim_def_default();
  /* fixed steps: both models take the same steps, so only their evaluators differ */
  d.method = nh_method_find("rk4");
  d.h = 1e-3;
  d.event_tol = 1e-15; /* locate impacts to round-off, so the models' difference shows */
  char msg[256];
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  if (!s) printf("  %s\n", msg);
  return s;
}

static int penny_vs_file(nh_backend backend, double a, int n, double vel_tol) {
  /* the hand-written penny's inertias are the literals 1.25e-7 and 6.25e-8; the file computes
   * them (1/2 m R^2 = 1.2500000000000002e-07), so set them to the same numbers */
  const char *names[] = {"a", "I", "J"};
  double values[] = {a, 1.25e-7, 6.25e-8};
  nh_load_opts o = opts(backend);
  o.nset = 3, o.set_names = names, o.set_values = values;
  char msg[2048];
  nh_model *file = nh_model_load(NHOLO_SOURCE_DIR "/examples/penny.nh", &o, msg, sizeof msg);
  if (!file) printf("  %s\n", msg);
  ENSURE(file);
  ENSURE(strcmp(nh_model_backend(file), backend == NH_BACKEND_TAPE ? "tape" : "codegen") == 0);
  nh_penny_params p = nh_penny_params_default();
  p.a = a, p.b = 0.2;
  nh_model *hand = nh_penny_create(&p, msg, sizeof msg);
  ENSURE(hand);
  nh_sim *sh = penny_sim(hand), *sf = penny_sim(file);
  ENSURE(sh && sf);
  ENSURE(nh_sim_run(sh, 1e3, n, NULL, NULL) == NH_OK && nh_sim_impact_count(sh) == n);
  /* the first impact from the common initial state, then one segment per impact */
  double worst_t = 0.0, worst_v = 0.0;
  for (int k = 0; k < n; k++) {
    nh_impact_record rh, prev;
    nh_sim_impact_get(sh, k, &rh);
    if (k > 0) {
      nh_sim_impact_get(sh, k - 1, &prev);
      ENSURE(nh_sim_set_state(sf, prev.t, prev.q, prev.v_after) == NH_OK);
    }
    ENSURE(nh_sim_run(sf, 1e3, 1, NULL, NULL) == NH_OK);
    nh_impact_record rf;
    ENSURE(nh_sim_impact_count(sf) == 1 && nh_sim_impact_get(sf, 0, &rf) == NH_OK);
    ENSURE(rf.gap == rh.gap);
    ENSURE_REL(rf.t, rh.t, PENNY_TIME_TOL);
    worst_t = fmax(worst_t, fabs(rf.t - rh.t) / rh.t);
    double scale = 0.0; /* the size of the velocity vector */
    for (int i = 0; i < 4; i++) scale = fmax(scale, fabs(rh.v_after[i]));
    for (int i = 0; i < 4; i++) {
      ENSURE_NEAR(rf.v_after[i], rh.v_after[i], vel_tol * scale);
      worst_v = fmax(worst_v, fabs(rf.v_after[i] - rh.v_after[i]) / scale);
    }
  }
  printf("  %s, a = %g, %d impacts: times agree to %.2e, velocities to %.2e (relative)\n",
         nh_model_backend(file), a, n, worst_t, worst_v);
  nh_sim_destroy(sh);
  nh_sim_destroy(sf);
  nh_model_destroy(file);
  nh_model_destroy(hand);
  return 0;
}

static int test_penny_file_tape(void) { return penny_vs_file(NH_BACKEND_TAPE, 0.2, 20, PENNY_VEL_TOL); }
static int test_penny_file_codegen(void) {
  if (penny_vs_file(NH_BACKEND_CODEGEN, 0.2, 20, PENNY_VEL_TOL)) return 1;
  return penny_vs_file(NH_BACKEND_CODEGEN, 0.15, 20, PENNY_VEL_TOL_ELLIPSE);
}

/* ---- derived quantities against finite differences ------------------------------------- */

/* a model with everything nontrivial: configuration-dependent M, potential, a force of t, q
 * and v, a constraint with q-dependent coefficients, two gaps */
static const char *rich_model =
    "model rich\n"
    "coordinates a b c\n"
    "parameter k = 1.7\n"
    "let s = sin(a)*b\n"
    "kinetic 1/2*(2 + cos(b))*a'^2 + a'*b'*s + 1/2*(1 + a^2)*b'^2 + 1/2*exp(0.1*c)*c'^2 \\\n"
    "        + 0.3*b'*c'\n"
    "potential k*(a^2*b - cos(c)) + b^4/4\n"
    "constraint roll: cos(a)*a' + b*c' - sin(b)*b' = 0\n"
    "force a: -0.2*a'*abs(b') + sin(t)*c\n"
    "force c: 0.5*a*b' - t^2*c'\n"
    "gap wall: 2 - a^2 - b^2*exp(c/3)\n"
    "gap floor: c + 3 + a*b   impact plastic\n"
    "initial a = 0.3, b = -0.4, c = 0.2, a' = 0.1, b' = 0.2, c' = -(cos(0.3)*0.1 - sin(-0.4)*0.2)/(-0.4)\n";

static double rel_err(double a, double b, double scale) { return fabs(a - b) / fmax(scale, 1.0); }

static int test_derivatives_fd(void) {
  nh_load_opts o = opts(NH_BACKEND_TAPE);
  char msg[2048];
  nh_model *m = nh_model_parse(rich_model, "rich.nh", &o, msg, sizeof msg);
  if (!m) printf("%s\n", msg);
  ENSURE(m);
  ENSURE(m->exact_derivs == (NH_DERIV_MASS | NH_DERIV_MASS2 | NH_DERIV_POTENTIAL |
                             NH_DERIV_CONSTRAINT | NH_DERIV_FORCE));
  enum { N = 3, C = 1, G = 2 };
  unsigned long long seed = 11;
  double worst = 0.0;
  for (int trial = 0; trial < 25; trial++) {
    double q[N], v[N], t = nh_test_rand(&seed, -2, 2);
    for (int i = 0; i < N; i++) q[i] = nh_test_rand(&seed, -0.8, 0.8), v[i] = nh_test_rand(&seed, -1, 1);
    double M[N * N], dM[N * N * N], d2M[N * N * N * N], V, dV[N], H[N * N], c[N], f[N];
    double dfdq[N * N], dfdv[N * N], A[C * N], Adv[C], dA[N * C * N], g[G], dg[G * N];
    ENSURE(m->mass(q, M, m->user) == 0);
    ENSURE(m->mass_deriv(q, dM, m->user) == 0);
    ENSURE(m->mass_deriv2(q, d2M, m->user) == 0);
    ENSURE(m->potential(q, &V, dV, m->user) == 0);
    ENSURE(m->potential_hess(q, H, m->user) == 0);
    ENSURE(m->coriolis(q, v, c, m->user) == 0);
    ENSURE(m->force(t, q, v, f, m->user) == 0);
    ENSURE(m->force_jac(t, q, v, dfdq, dfdv, m->user) == 0);
    ENSURE(m->constraint(q, v, A, Adv, m->user) == 0);
    ENSURE(m->constraint_deriv(q, dA, m->user) == 0);
    ENSURE(m->gap(q, g, dg, m->user) == 0);
    /* M is the Hessian of the energy in v: central second differences are exact on quadratics */
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        double e[4], vv[N];
        int sg[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
        for (int s = 0; s < 4; s++) {
          memcpy(vv, v, sizeof vv);
          vv[i] += sg[s][0] * 1e-3, vv[j] += sg[s][1] * 1e-3;
          ENSURE(nh_model_energy(m, q, vv, &e[s]) == NH_OK);
        }
        double fd = (e[0] - e[1] - e[2] + e[3]) / 4e-6;
        worst = fmax(worst, rel_err(fd, M[i * N + j], fabs(M[i * N + j])));
        ENSURE_NEAR(fd, M[i * N + j], FD_TOL * fmax(1.0, fabs(M[i * N + j])));
      }
    /* first derivatives in q of M, dM, V, dV, A, g, f and in v of f */
    for (int k = 0; k < N; k++) {
      double qp[N], qm[N], Mp[N * N], Mm[N * N], dMp[N * N * N], dMm[N * N * N], Vp, Vm, dVp[N],
          dVm[N], Ap[C * N], Am[C * N], gp[G], gm[G], fp[N], fm[N], vp[N], vm[N];
      memcpy(qp, q, sizeof qp), memcpy(qm, q, sizeof qm);
      qp[k] += FD_H, qm[k] -= FD_H;
      m->mass(qp, Mp, m->user), m->mass(qm, Mm, m->user);
      m->mass_deriv(qp, dMp, m->user), m->mass_deriv(qm, dMm, m->user);
      m->potential(qp, &Vp, dVp, m->user), m->potential(qm, &Vm, dVm, m->user);
      m->constraint(qp, v, Ap, NULL, m->user), m->constraint(qm, v, Am, NULL, m->user);
      m->gap(qp, gp, NULL, m->user), m->gap(qm, gm, NULL, m->user);
      m->force(t, qp, v, fp, m->user), m->force(t, qm, v, fm, m->user);
#define FD(p, mm) (((p) - (mm)) / (2 * FD_H))
      for (int ij = 0; ij < N * N; ij++) ENSURE_NEAR(FD(Mp[ij], Mm[ij]), dM[k * N * N + ij], FD_TOL);
      for (int lij = 0; lij < N * N * N; lij++)
        ENSURE_NEAR(FD(dMp[lij], dMm[lij]), d2M[k * N * N * N + lij], FD_TOL);
      ENSURE_NEAR(FD(Vp, Vm), dV[k], FD_TOL);
      for (int i = 0; i < N; i++) ENSURE_NEAR(FD(dVp[i], dVm[i]), H[i * N + k], FD_TOL);
      for (int ij = 0; ij < C * N; ij++) ENSURE_NEAR(FD(Ap[ij], Am[ij]), dA[k * C * N + ij], FD_TOL);
      for (int i = 0; i < G; i++) ENSURE_NEAR(FD(gp[i], gm[i]), dg[i * N + k], FD_TOL);
      for (int i = 0; i < N; i++) ENSURE_NEAR(FD(fp[i], fm[i]), dfdq[i * N + k], FD_TOL);
      memcpy(vp, v, sizeof vp), memcpy(vm, v, sizeof vm);
      vp[k] += FD_H, vm[k] -= FD_H;
      m->force(t, q, vp, fp, m->user), m->force(t, q, vm, fm, m->user);
      for (int i = 0; i < N; i++) ENSURE_NEAR(FD(fp[i], fm[i]), dfdv[i * N + k], FD_TOL);
#undef FD
    }
    /* Coriolis from dM (checked above): c_i = sum_jk (dM_ij/dq_k - 1/2 dM_jk/dq_i) v_j v_k */
    for (int i = 0; i < N; i++) {
      double ci = 0.0;
      for (int j = 0; j < N; j++)
        for (int k = 0; k < N; k++)
          ci += (dM[(k * N + i) * N + j] - 0.5 * dM[(i * N + j) * N + k]) * v[j] * v[k];
      ENSURE_NEAR(c[i], ci, 1e-12 * fmax(1.0, fabs(ci)));
    }
    /* Adot v = sum_k dA/dq_k v_k v */
    for (int r = 0; r < C; r++) {
      double s = 0.0;
      for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++) s += dA[(k * C + r) * N + j] * v[k] * v[j];
      ENSURE_NEAR(Adv[r], s, 1e-12 * fmax(1.0, fabs(s)));
    }
  }
  printf("  M against second differences of the energy: worst %.2e\n", worst);
  nh_model_destroy(m);
  return 0;
}

/* ---- generated C against the tape ---------------------------------------------------------- */

static int compare(const char *what, int n, const double *a, const double *b, double *worst) {
  for (int i = 0; i < n; i++) {
    double e = fabs(a[i] - b[i]) / fmax(fabs(b[i]), 1e-300);
    if (a[i] != b[i] && !(e <= CODEGEN_TOL)) {
      printf("  %s[%d]: codegen %.17g, tape %.17g\n", what, i, a[i], b[i]);
      return 1;
    }
    if (a[i] != b[i] && e > *worst) *worst = e;
  }
  return 0;
}

static int codegen_vs_tape(const char *text, const char *name) {
  char msg[2048];
  nh_load_opts ot = opts(NH_BACKEND_TAPE), oc = opts(NH_BACKEND_CODEGEN);
  nh_model *t = nh_model_parse(text, name, &ot, msg, sizeof msg);
  nh_model *c = nh_model_parse(text, name, &oc, msg, sizeof msg);
  if (!c) printf("  %s\n", msg);
  ENSURE(t && c);
  ENSURE(strcmp(nh_model_backend(c), "codegen") == 0);
  const int n = t->nq, nc = t->nc, ng = t->ngap;
  enum { MAXN = 8 };
  ENSURE(n <= MAXN);
  unsigned long long seed = 5;
  double worst = 0.0;
  for (int trial = 0; trial < 50; trial++) {
    double q[MAXN], v[MAXN], tt = nh_test_rand(&seed, 0, 5);
    for (int i = 0; i < n; i++) q[i] = nh_test_rand(&seed, -1, 1), v[i] = nh_test_rand(&seed, -2, 2);
    double a1[MAXN * MAXN * MAXN * MAXN], a2[MAXN * MAXN * MAXN * MAXN], b1[MAXN * MAXN], b2[MAXN * MAXN];
    nh_model *ms[2] = {c, t};
    double *out[2] = {a1, a2}, *out2[2] = {b1, b2};
#define BOTH(call, size, what)                                                   \
  for (int w = 0; w < 2; w++) {                                                  \
    nh_model *m = ms[w];                                                         \
    double *o = out[w], *o2 = out2[w];                                           \
    (void)o2;                                                                    \
    ENSURE((call) == 0);                                                         \
  }                                                                              \
  if (compare(what, size, a1, a2, &worst)) return 1;
    BOTH(m->mass(q, o, m->user), n * n, "M");
    ENSURE(!t->coriolis == !c->coriolis && !t->force == !c->force && !t->potential == !c->potential);
    if (t->coriolis) {
      BOTH(m->coriolis(q, v, o, m->user), n, "c");
    }
    if (t->force) {
      BOTH(m->force(tt, q, v, o, m->user), n, "f");
      BOTH(m->force_jac(tt, q, v, o, o2, m->user), n * n, "dfdq");
      if (compare("dfdv", n * n, b1, b2, &worst)) return 1;
    }
    BOTH(m->mass_deriv(q, o, m->user), n * n * n, "dM");
    BOTH(m->mass_deriv2 ? m->mass_deriv2(q, o, m->user) : 0, t->mass_deriv2 ? n * n * n * n : 0, "d2M");
    BOTH(m->potential_hess(q, o, m->user), n * n, "H");
    if (t->potential) {
      BOTH(m->potential(q, o, o + 1, m->user), n + 1, "V,dV");
    }
    if (nc) {
      BOTH(m->constraint(q, v, o, o2, m->user), nc * n, "A");
      if (compare("Adot v", nc, b1, b2, &worst)) return 1;
      BOTH(m->constraint_deriv(q, o, m->user), n * nc * n, "dA");
    }
    if (ng) {
      BOTH(m->gap(q, o, o2, m->user), ng, "g");
      if (compare("dg", ng * n, b1, b2, &worst)) return 1;
    }
#undef BOTH
  }
  printf("  %s: codegen and tape agree (largest relative difference %.2e)\n", name, worst);
  nh_model_destroy(t);
  nh_model_destroy(c);
  return 0;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return buf;
}

static int test_codegen_matches_tape(void) {
  if (!nh_test_have_cc()) SKIP("no C compiler ($CC or cc on PATH) for the code generator");
  if (codegen_vs_tape(rich_model, "rich.nh")) return 1;
  const char *files[] = {"penny.nh", "chaplygin_sleigh.nh", "snakeboard.nh", "quartic2.nh",
                         "pendulum_wall.nh"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/examples/%s", NHOLO_SOURCE_DIR, files[i]);
    char *text = slurp(path);
    ENSURE(text);
    if (codegen_vs_tape(text, files[i])) return 1;
  }
  return 0;
}

/* ---- overrides, the initial-velocity check, the report ------------------------------------- */

static const char *sleigh_bad_v0 =
    "coordinates theta x y\n"
    "kinetic 1/2*theta'^2 + 1/2*(x'^2 + y'^2)\n"
    "constraint skate: theta' + sin(theta)*x' - cos(theta)*y' = 0\n"
    "initial theta' = 1, x' = 0.5\n";

static int test_overrides_and_initial(void) {
  char msg[2048];
  nh_load_opts o = opts(NH_BACKEND_TAPE);
  /* a parameter override reaches its dependants */
  const char *names[] = {"m", "phi'"};
  double values[] = {0.005, 0.5};
  o.nset = 2, o.set_names = names, o.set_values = values;
  nh_model *m = nh_model_load(NHOLO_SOURCE_DIR "/examples/penny.nh", &o, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  ENSURE(m);
  int iI = -1;
  for (int i = 0; i < m->npar; i++)
    if (strcmp(m->param_names[i], "I") == 0) iI = i;
  ENSURE(iI >= 0);
  ENSURE_REL(m->param_values[iI], 0.5 * 0.005 * 0.01 * 0.01, 1e-15);
  ENSURE(m->v0[3] == 0.5);
  nh_model_destroy(m);
  /* an override that names nothing */
  const char *bad[] = {"zz"};
  o.nset = 1, o.set_names = bad;
  ENSURE(!nh_model_load(NHOLO_SOURCE_DIR "/examples/penny.nh", &o, msg, sizeof msg));
  ENSURE(strstr(msg, "--set zz") != NULL);
  /* initial velocities off the constraints: an error with the residual, or projected */
  o = opts(NH_BACKEND_TAPE);
  ENSURE(!nh_model_parse(sleigh_bad_v0, "s.nh", &o, msg, sizeof msg));
  ENSURE(strstr(msg, "s.nh:4:1: error: the initial velocities violate constraint 'skate' (|A v| = 1 ") == msg);
  o.project_initial = 1;
  m = nh_model_parse(sleigh_bad_v0, "s.nh", &o, msg, sizeof msg);
  ENSURE(m);
  nh_sim_def d = nh_sim_def_default();
  d.project_initial = 1;
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  ENSURE(s);
  double res = 1.0;
  ENSURE(nh_model_constraint_residual(m, nh_sim_q(s), nh_sim_v(s), &res) == NH_OK);
  ENSURE(res < 1e-14);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

static int test_describe(void) {
  char msg[2048];
  nh_load_opts o = opts(NH_BACKEND_TAPE);
  char *r = nh_model_describe(NHOLO_SOURCE_DIR "/examples/chaplygin_sleigh.nh", &o, msg, sizeof msg);
  ENSURE(r);
  ENSURE(strstr(r, "M[theta,theta] = 1\n") != NULL);
  ENSURE(strstr(r, "constraint skate: A = [1, sin(theta), -cos(theta)]") != NULL);
  ENSURE(strstr(r, "energy E = 1.5\n") != NULL);
  ENSURE(strstr(r, "evaluation: tape\n") != NULL);
  nh_free(r);
  return 0;
}

/* ---- the group and holonomic statements ---------------------------------------------------- */

/* the snakeboard file (group se2, controls as forces of t) against the built-in snakeboard:
 * every structure-preserving method takes the same steps on the same equations */
static int test_snakeboard_file_vs_builtin(void) {
  char msg[2048];
  nh_load_opts o = opts(NH_BACKEND_CODEGEN);
  nh_model *file = nh_model_load(NHOLO_SOURCE_DIR "/examples/snakeboard.nh", &o, msg, sizeof msg);
  if (!file) printf("  %s\n", msg);
  ENSURE(file && file->has_se2 && file->se2[0] == 2 && file->se2[1] == 3 && file->se2[2] == 4);
  nh_snakeboard_params sp = nh_snakeboard_params_default();
  nh_model *hand = nh_snakeboard_create(&sp, msg, sizeof msg);
  ENSURE(hand);
  const char *methods[] = {"gni", "rdp", "rattle", "rk4"};
  for (int k = 0; k < 4; k++) {
    double qf[2][5];
    nh_model *ms[2] = {file, hand};
    for (int w = 0; w < 2; w++) {
      nh_sim_def d = nh_sim_def_default();
      d.method = nh_method_find(methods[k]);
      d.h = 10.0 / 128; /* Fig. 4: N = 128 steps over T = 10 */
      nh_sim *s = nh_sim_create(ms[w], &d, msg, sizeof msg);
      if (!s) printf("  %s: %s\n", methods[k], msg);
      ENSURE(s);
      ENSURE(nh_sim_run(s, 10.0, 0, NULL, NULL) == NH_OK);
      memcpy(qf[w], nh_sim_q(s), sizeof qf[w]);
      nh_sim_destroy(s);
    }
    double worst = 0.0;
    for (int i = 0; i < 5; i++) {
      ENSURE_NEAR(qf[0][i], qf[1][i], 1e-10 * fmax(1.0, fabs(qf[1][i])));
      worst = fmax(worst, fabs(qf[0][i] - qf[1][i]));
    }
    printf("  %s, T = 10: file and built-in final states agree to %.1e\n", methods[k], worst);
  }
  nh_model_destroy(file);
  nh_model_destroy(hand);
  return 0;
}

/* a Cartesian pendulum with a holonomic constraint: del keeps phi(q) = 0 at every node */
static const char *cart_pendulum =
    "coordinates x y\n"
    "parameter L = 1.5\n"
    "kinetic 1/2*(x'^2 + y'^2)\n"
    "potential 9.81*y\n"
    "holonomic rod: x^2 + y^2 = L^2\n"
    "initial x = L*sin(1), y = -L*cos(1)\n";

static int pendulum_obs(const nh_sim *sim, nh_sample_kind kind, double t, const double *q,
                        const double *v, void *user) {
  (void)sim, (void)kind, (void)t, (void)v;
  double *worst = user, phi = q[0] * q[0] + q[1] * q[1] - 1.5 * 1.5;
  if (fabs(phi) > *worst) *worst = fabs(phi);
  return 0;
}

static int test_holonomic(void) {
  char msg[2048];
  nh_load_opts o = opts(NH_BACKEND_TAPE);
  nh_model *m = nh_model_parse(cart_pendulum, "pend.nh", &o, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  ENSURE(m && m->nc == 1 && m->holonomic);
  double q[2] = {0.3, -0.7}, phi;
  ENSURE(m->holonomic(q, &phi, m->user) == 0);
  ENSURE_NEAR(phi, 0.09 + 0.49 - 2.25, 1e-15);
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("del");
  d.h = 0.01;
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  if (!s) printf("  %s\n", msg);
  ENSURE(s);
  double worst = 0.0;
  ENSURE(nh_sim_run(s, 20.0, 0, pendulum_obs, &worst) == NH_OK);
  printf("  del, h = 0.01, T = 20: max |phi(q_k)| = %.2e\n", worst);
  ENSURE(worst < 1e-12);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* ---- the evaluators a model file provides (the list of nholo/evaluators.h) ------------------ */

/* what a file implies about its evaluators */
typedef struct expect_ev {
  int poisson, V, coriolis, force, holonomic;
} expect_ev;

/* Both back ends give the same evaluators (generated C also the sparse-fill variants of an
 * almost-Poisson model, tapes none), which exist as the file implies: none that the language
 * cannot express, a potential only with V, a Coriolis term only with a non-constant M, forces
 * only when given, and an exact-derivative bit exactly for each derivative present. */
static int same_evaluators(const char *text, const char *name, expect_ev e) {
  char msg[2048];
  nh_load_opts ot = opts(NH_BACKEND_TAPE), oc = opts(NH_BACKEND_CODEGEN);
  nh_model *t = nh_model_parse(text, name, &ot, msg, sizeof msg);
  nh_model *c = nh_model_parse(text, name, &oc, msg, sizeof msg);
  if (!c) printf("  %s\n", msg);
  ENSURE(t && c && strcmp(nh_model_backend(c), "codegen") == 0);
  int n = 0;
#define X(name, type, exact)                                                                 \
  n++;                                                                                       \
  if (strstr(#name, "_sparse")) { /* generated C only (M and A: of the mechanical form) */  \
    int mech = strcmp(#name, "mass_sparse") == 0 || strcmp(#name, "constraint_sparse") == 0;  \
    int has = mech ? !e.poisson && (#name[0] == 'm' || c->nc > 0) : e.poisson != 0;         \
    ENSURE(!t->name && (c->name != NULL) == has);                                            \
  } else {                                                                                   \
    ENSURE((t->name != NULL) == (c->name != NULL));                                          \
  }                                                                                          \
  ENSURE(((t->exact_derivs & (unsigned)(exact)) != 0) == ((exact) != 0 && t->name != NULL)); \
  ENSURE(((c->exact_derivs & (unsigned)(exact)) != 0) == ((exact) != 0 && c->name != NULL));
  NH_EVALUATOR_LIST(X)
#undef X
  ENSURE(n == 28);
  ENSURE(t->exact_derivs == c->exact_derivs);
  ENSURE(!t->flow && !t->predict && !t->rhs && !t->energy && !t->project &&
         !t->angvel); /* not in the language */
  ENSURE((t->monitor != NULL) == (t->nmon > 0) && (c->monitor != NULL) == (c->nmon > 0));
  ENSURE((t->mass == NULL) == (e.poisson != 0) && (t->hamiltonian != NULL) == (e.poisson != 0));
  ENSURE((t->potential != NULL) == (e.V != 0) && (t->coriolis != NULL) == (e.coriolis != 0));
  ENSURE((t->force != NULL) == (e.force != 0) && (t->force_jac != NULL) == (e.force != 0));
  ENSURE((t->holonomic != NULL) == (e.holonomic != 0));
  ENSURE((t->constraint != NULL) == (t->nc > 0) && (t->gap != NULL) == (t->ngap > 0));
  nh_model_destroy(t);
  nh_model_destroy(c);
  return 0;
}

static int test_backends_same_evaluators(void) {
  if (!nh_test_have_cc()) SKIP("no C compiler ($CC or cc on PATH) for the code generator");
  const struct {
    const char *file;
    expect_ev e;
  } files[] = {{"penny.nh", {0, 0, 0, 0, 0}},        {"chaplygin_sleigh.nh", {0, 0, 0, 0, 0}},
               {"snakeboard.nh", {0, 0, 0, 1, 0}},   {"quartic2.nh", {0, 1, 0, 0, 0}},
               {"pendulum_wall.nh", {0, 1, 0, 0, 0}}, {"suslov.nh", {1, 0, 0, 0, 0}},
               {"quartic_ap.nh", {1, 0, 0, 0, 0}},   {"sleigh_dg.nh", {1, 0, 0, 0, 0}}};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/examples/%s", NHOLO_SOURCE_DIR, files[i].file);
    char *text = slurp(path);
    ENSURE(text);
    if (same_evaluators(text, files[i].file, files[i].e)) {
      printf("  in %s\n", files[i].file);
      return 1;
    }
  }
  expect_ev rich = {0, 1, 1, 1, 0}, pendulum = {0, 1, 0, 0, 1};
  if (same_evaluators(rich_model, "rich.nh", rich)) return 1;
  return same_evaluators(cart_pendulum, "pend.nh", pendulum);
}

/* ---- almost-Poisson model files ------------------------------------------------------------- */

/* the Suslov problem and the sleigh of Fig. 3 from files against the built-in models */
static int poisson_vs_builtin(const char *file, const char *builtin, const char *method, double h,
                              double T) {
  char msg[2048], path[512];
  snprintf(path, sizeof path, "%s/examples/%s", NHOLO_SOURCE_DIR, file);
  nh_load_opts o = opts(NH_BACKEND_CODEGEN);
  nh_model *mf = nh_model_load(path, &o, msg, sizeof msg);
  if (!mf) printf("  %s\n", msg);
  ENSURE(mf && mf->form == NH_FORM_ODE && mf->hamiltonian && mf->poisson && mf->hamiltonian_degree == 2);
  nh_model *mb = nh_builtin_create(builtin, msg, sizeof msg);
  ENSURE(mb && mb->nx == mf->nx);
  double xf[2][8];
  nh_model *ms[2] = {mf, mb};
  for (int w = 0; w < 2; w++) {
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find(method);
    d.h = h;
    nh_sim *s = nh_sim_create(ms[w], &d, msg, sizeof msg);
    if (!s) printf("  %s\n", msg);
    ENSURE(s);
    ENSURE(nh_sim_run(s, T, 0, NULL, NULL) == NH_OK);
    memcpy(xf[w], nh_sim_x(s), sizeof(double) * (size_t)mf->nx);
    nh_sim_destroy(s);
  }
  double worst = 0.0;
  for (int i = 0; i < mf->nx; i++) {
    ENSURE_NEAR(xf[0][i], xf[1][i], 1e-10 * fmax(1.0, fabs(xf[1][i])));
    worst = fmax(worst, fabs(xf[0][i] - xf[1][i]));
  }
  printf("  %s, %s h = %g to t = %g: file and built-in agree to %.1e\n", file, method, h, T, worst);
  nh_model_destroy(mf);
  nh_model_destroy(mb);
  return 0;
}

static int test_poisson_files(void) {
  if (poisson_vs_builtin("suslov.nh", "suslov", "gonzalez", 0.1, 50.0)) return 1;
  if (poisson_vs_builtin("suslov.nh", "suslov", "avf", 0.1, 50.0)) return 1;
  return poisson_vs_builtin("sleigh_dg.nh", "sleigh-dg", "gonzalez", 0.5, 300.0);
}

/* the derived Hessian of H and T = d(Pi g)/dx against differences, and tape against codegen */
static int test_poisson_derivatives(void) {
  char msg[2048];
  nh_load_opts ot = opts(NH_BACKEND_TAPE), oc = opts(NH_BACKEND_CODEGEN);
  const char *text =
      "state a b c\n"
      "parameter k = 0.7\n"
      "hamiltonian 1/2*(a^2 + 2*b^2) + k*c^4 + sin(a*b)\n"
      "poisson a b: c*cos(a)\n"
      "poisson b c: a*b - 1\n"
      "poisson a c: exp(0.1*b)\n"
      "initial a = 0.3, b = -0.2, c = 0.5\n";
  nh_model *t = nh_model_parse(text, "p.nh", &ot, msg, sizeof msg), *c = nh_model_parse(text, "p.nh", &oc, msg, sizeof msg);
  if (!c) printf("  %s\n", msg);
  ENSURE(t && c && t->hamiltonian_degree == 0); /* sin(a b): not a polynomial */
  unsigned long long seed = 3;
  for (int trial = 0; trial < 20; trial++) {
    double x[3], g[3], Hs[9], T[9], Pi[9], Pc[9], dH[3], dHc[3], H, Hc, Tc[9];
    for (int i = 0; i < 3; i++) x[i] = nh_test_rand(&seed, -1, 1), g[i] = nh_test_rand(&seed, -1, 1);
    ENSURE(t->hamiltonian(x, &H, dH, t->user) == 0 && c->hamiltonian(x, &Hc, dHc, c->user) == 0);
    ENSURE(t->poisson(x, Pi, t->user) == 0 && c->poisson(x, Pc, c->user) == 0);
    ENSURE(t->hamiltonian_hess(x, Hs, t->user) == 0 && t->poisson_jac(x, g, T, t->user) == 0);
    ENSURE(c->poisson_jac(x, g, Tc, c->user) == 0);
    ENSURE(H == Hc);
    for (int i = 0; i < 3; i++) ENSURE(dH[i] == dHc[i]);
    for (int i = 0; i < 9; i++) ENSURE(Pi[i] == Pc[i] && T[i] == Tc[i]);
    for (int i = 0; i < 3; i++) {
      ENSURE(Pi[i * 3 + i] == 0.0);
      for (int j = 0; j < 3; j++) ENSURE(Pi[i * 3 + j] == -Pi[j * 3 + i]);
    }
    for (int k = 0; k < 3; k++) {
      double xp[3], xm[3], dp[3], dm[3], Pp[9], Pm[9], Hp, Hm;
      memcpy(xp, x, sizeof xp), memcpy(xm, x, sizeof xm);
      xp[k] += FD_H, xm[k] -= FD_H;
      t->hamiltonian(xp, &Hp, dp, t->user), t->hamiltonian(xm, &Hm, dm, t->user);
      t->poisson(xp, Pp, t->user), t->poisson(xm, Pm, t->user);
      ENSURE_NEAR((Hp - Hm) / (2 * FD_H), dH[k], FD_TOL);
      for (int i = 0; i < 3; i++) {
        ENSURE_NEAR((dp[i] - dm[i]) / (2 * FD_H), Hs[i * 3 + k], FD_TOL);
        double fd = 0.0;
        for (int j = 0; j < 3; j++) fd += (Pp[i * 3 + j] - Pm[i * 3 + j]) / (2 * FD_H) * g[j];
        ENSURE_NEAR(fd, T[i * 3 + k], FD_TOL);
      }
    }
  }
  nh_model_destroy(t);
  nh_model_destroy(c);
  return 0;
}

/* ---- sparse-fill evaluators (codegen) ------------------------------------------------------ */

/* Evaluator e of m (0: Pi, 1: Hessian of H, 2: T) at (x, g) into o, dense or sparse-fill. */
static int has_sparse(const nh_model *m, int e) {
  return e == 0 ? m->poisson_sparse != NULL : e == 1 ? m->hamiltonian_hess_sparse != NULL : m->poisson_jac_sparse != NULL;
}
static int eval_matrix(const nh_model *m, int e, int sparse, const double *x, const double *g, double *o) {
  if (e == 0) return (sparse ? m->poisson_sparse : m->poisson)(x, o, m->user);
  if (e == 1) return (sparse ? m->hamiltonian_hess_sparse : m->hamiltonian_hess)(x, o, m->user);
  return (sparse ? m->poisson_jac_sparse : m->poisson_jac)(x, g, o, m->user);
}

/* At random (x, g) around the initial state: every entry a sparse-fill evaluator writes over
 * a NaN sentinel is bitwise the dense one, every entry it leaves is +0.0 in the dense output
 * (and structurally zero: the same entries at every state, outside the model's pattern for Pi
 * and T); the dense output is bitwise the tape model t's (t may be NULL). unwritten: the
 * entries left per evaluator, -1 where m has no sparse-fill variant. */
static int sparse_vs_dense(const nh_model *m, const nh_model *t, int *unwritten) {
  enum { MAXX = 16 };
  const int n = m->nx;
  const double zero = 0.0;
  const unsigned char *pat[3] = {m->poisson_pattern, NULL, m->poisson_jac_pattern};
  unsigned char left[3][MAXX * MAXX];
  ENSURE(n <= MAXX);
  unsigned long long seed = 11;
  for (int trial = 0; trial < 10; trial++) {
    double x[MAXX], g[MAXX], d[MAXX * MAXX], s[MAXX * MAXX], dt[MAXX * MAXX], sentinel = nan("");
    for (int i = 0; i < n; i++) x[i] = m->x0[i] + nh_test_rand(&seed, -1, 1), g[i] = nh_test_rand(&seed, -2, 2);
    for (int e = 0; e < 3; e++) {
      unwritten[e] = -1;
      if (!has_sparse(m, e)) continue;
      for (int ij = 0; ij < n * n; ij++) s[ij] = sentinel;
      ENSURE(eval_matrix(m, e, 0, x, g, d) == 0 && eval_matrix(m, e, 1, x, g, s) == 0);
      ENSURE(!t || (eval_matrix(t, e, 0, x, g, dt) == 0 && memcmp(d, dt, sizeof(double) * (size_t)(n * n)) == 0));
      int count = 0;
      for (int ij = 0; ij < n * n; ij++) {
        int is_left = memcmp(&s[ij], &sentinel, sizeof sentinel) == 0;
        ENSURE(memcmp(is_left ? &zero : &s[ij], &d[ij], sizeof zero) == 0);
        ENSURE(!is_left || !pat[e] || !pat[e][ij]);
        if (trial == 0) left[e][ij] = (unsigned char)is_left;
        ENSURE(left[e][ij] == is_left);
        count += is_left;
      }
      unwritten[e] = count;
    }
  }
  return 0;
}

static int test_poisson_sparse_fill(void) {
  if (!nh_test_have_cc()) SKIP("no C compiler ($CC or cc on PATH) for the code generator");
  const char *files[] = {"quartic_ap.nh", "suslov.nh", "sleigh_dg.nh"};
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    char msg[2048], path[512];
    snprintf(path, sizeof path, "%s/examples/%s", NHOLO_SOURCE_DIR, files[f]);
    nh_load_opts oc = opts(NH_BACKEND_CODEGEN), ot = opts(NH_BACKEND_TAPE);
    nh_model *c = nh_model_load(path, &oc, msg, sizeof msg), *t = nh_model_load(path, &ot, msg, sizeof msg);
    if (!c || !t) printf("  %s\n", msg);
    ENSURE(c && t);
    // tapes have no sparse-fill variants (callers use the dense evaluators)
    ENSURE(!t->poisson_sparse && !t->hamiltonian_hess_sparse && !t->poisson_jac_sparse);
    int left[3];
    if (sparse_vs_dense(c, t, left)) return 1;
    const int n2 = c->nx * c->nx;
    printf("  %s: entries left unwritten: Pi %d, Hessian %d, T %d of %d\n", files[f], left[0], left[1], left[2], n2);
    ENSURE(left[0] >= 0 && left[1] >= 0 && left[2] >= 0);
    // quartic_ap: Pi has 24 nonzeros of 169
    if (f == 0) ENSURE(2 * left[0] > n2 && 2 * left[1] > n2 && 2 * left[2] > n2);
    nh_model_destroy(c);
    nh_model_destroy(t);
  }
  // a constant -0.0 is not a structural zero: a zero-filled buffer would have the wrong sign
  const char *text = "state a b c\n"
                     "hamiltonian 1/2*(a^2 + b^2 + c^2)\n"
                     "poisson a b: -(0*a)\n"
                     "poisson b c: a*b\n";
  char msg[2048];
  nh_load_opts oc = opts(NH_BACKEND_CODEGEN), ot = opts(NH_BACKEND_TAPE);
  nh_model *c = nh_model_parse(text, "negzero.nh", &oc, msg, sizeof msg);
  nh_model *t = nh_model_parse(text, "negzero.nh", &ot, msg, sizeof msg);
  if (!c || !t) printf("  %s\n", msg);
  ENSURE(c && t);
  int left[3];
  if (sparse_vs_dense(c, t, left)) return 1;
  const double x[3] = {0.3, -0.2, 0.5};
  double P[9];
  for (int i = 0; i < 9; i++) P[i] = nan("");
  ENSURE(c->poisson_sparse(x, P, c->user) == 0);
  ENSURE(P[0 * 3 + 1] == 0.0 && signbit(P[0 * 3 + 1]) && left[0] == 6);
  nh_model_destroy(c);
  nh_model_destroy(t);
  // the built-in quartic-ap: sparse-fill Pi and T, writing only their patterns' entries
  nh_model *b = nh_quartic_ap_create(NULL, 0);
  ENSURE(b && b->poisson_sparse && !b->hamiltonian_hess_sparse && b->poisson_jac_sparse);
  if (sparse_vs_dense(b, NULL, left)) return 1;
  int zeros[2] = {0, 0};
  for (int ij = 0; ij < b->nx * b->nx; ij++) zeros[0] += !b->poisson_pattern[ij], zeros[1] += !b->poisson_jac_pattern[ij];
  ENSURE(left[0] == zeros[0] && left[2] == zeros[1] && left[0] == 169 - 24);
  nh_model_destroy(b);
  return 0;
}

/* the quartic system reduced to D* (quartic_ap.nh, Gonzalez) and on Q (quartic3.nh, DOPRI5)
 * are one system: positions at t = 2 differ at the method's O(h^2) */
static int final_x(const char *file, const char *method, double h, double *x) {
  char msg[2048], path[512];
  snprintf(path, sizeof path, "%s/examples/%s", NHOLO_SOURCE_DIR, file);
  nh_load_opts o = opts(NH_BACKEND_CODEGEN);
  nh_model *m = nh_model_load(path, &o, msg, sizeof msg);
  if (!m) return printf("  %s\n", msg), -1;
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  d.rtol = 1e-13, d.atol = 1e-15;
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  int rc = s ? nh_sim_run(s, 2.0, 0, NULL, NULL) : -1;
  if (rc == NH_OK) memcpy(x, nh_sim_x(s), 7 * sizeof(double)); /* (x, w, z) lead both states */
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return rc;
}

static int test_quartic_reduced(void) {
  double ref[7], a[7], b[7];
  ENSURE(final_x("quartic3.nh", "dopri5", 1e-3, ref) == NH_OK);
  ENSURE(final_x("quartic_ap.nh", "gonzalez", 0.02, a) == NH_OK);
  ENSURE(final_x("quartic_ap.nh", "gonzalez", 0.01, b) == NH_OK);
  double ea = 0.0, eb = 0.0;
  for (int i = 0; i < 7; i++) ea = fmax(ea, fabs(a[i] - ref[i])), eb = fmax(eb, fabs(b[i] - ref[i]));
  printf("  Gonzalez on D* against DOPRI5 on Q at t = 2: %.3e (h = 0.02), %.3e (h = 0.01), ratio %.2f\n", ea,
         eb, ea / eb);
  ENSURE(ea < 1e-2 && ea / eb > 3.5 && ea / eb < 4.5);
  return 0;
}

/* ---- monitors: located at their closed-form times, filtered by direction, stop or report ---- */

/* a dopri5 step is exact on a quadratic trajectory up to round-off; the crossing is located to
 * the driver's event_tol (1e-13 relative) */
#define MONITOR_TIME_TOL 1e-12
/* the almost-Poisson oscillator at rtol 1e-12: its trigonometric solution is integrated */
#define MONITOR_AP_TOL 1e-9

/* y = 2 + 3 t - g/2 t^2: apex at 3/g, y = 1 (falling) at (3 + sqrt(9 + 2g))/g, the ground at
 * (3 + sqrt(9 + 4g))/g; y - 1 never rises, t - 1/4 rises at 1/4 */
static const char *falling_particle =
    "model drop\ncoordinates x y\nparameter g = 9.81\nkinetic 1/2*(x'^2 + y'^2)\npotential g*y\n"
    "monitor ground: y falling %s\nmonitor apex: y'\nmonitor up: y - 1 rising\n"
    "monitor down: y - 1 both\nmonitor quarter: t - 1/4 rising report\n"
    "initial y = 2, y' = 3, x' = 1\n";

/* run text (ground's action given) on backend b to t = 2; the sim, or NULL */
static nh_sim *drop_run(const char *action, nh_backend b, nh_model **m, int *status) {
  char text[1024], msg[2048];
  snprintf(text, sizeof text, falling_particle, action);
  nh_load_opts o = opts(b);
  if (!(*m = nh_model_parse(text, "drop.nh", &o, msg, sizeof msg))) return printf("  %s\n", msg), NULL;
  nh_sim_def d = nh_sim_def_default();
  nh_sim *s = nh_sim_create(*m, &d, msg, sizeof msg);
  if (s) *status = nh_sim_run(s, 2.0, 0, NULL, NULL);
  return s;
}

static int test_monitors(void) {
  const double g = 9.81, t_apex = 3 / g, t_one = (3 + sqrt(9 + 2 * g)) / g, t_ground = (3 + sqrt(9 + 4 * g)) / g;
  nh_model *m, *mc;
  int st, stc;
  nh_sim *s = drop_run("stop", NH_BACKEND_TAPE, &m, &st);
  ENSURE(s && st == NH_EVENT_STOP && m->nmon == 5);
  ENSURE(m->monitors[0].direction == NH_MONITOR_FALLING && m->monitors[0].action == NH_MONITOR_STOP);
  ENSURE(m->monitors[1].direction == NH_MONITOR_BOTH && m->monitors[1].action == NH_MONITOR_REPORT);
  ENSURE(m->monitors[2].direction == NH_MONITOR_RISING && m->monitors[4].direction == NH_MONITOR_RISING);
  /* quarter, apex (falling y'), down (falling), ground (stops); up never fires */
  const int want[4] = {4, 1, 3, 0};
  const double at[4] = {0.25, t_apex, t_one, t_ground};
  ENSURE(nh_sim_event_count(s) == 4);
  for (int k = 0; k < 4; k++) {
    nh_event_record r;
    ENSURE(nh_sim_event_get(s, k, &r) == NH_OK && r.monitor == want[k]);
    ENSURE_NEAR(r.t, at[k], MONITOR_TIME_TOL);
    ENSURE(r.direction == (k == 0 ? 1 : -1) && r.stopped == (k == 3));
  }
  ENSURE_NEAR(nh_sim_time(s), t_ground, MONITOR_TIME_TOL);
  /* generated C: the same events, bit for bit, and the same monitor values */
  nh_sim *c = drop_run("stop", NH_BACKEND_CODEGEN, &mc, &stc);
  ENSURE(c && stc == st && strcmp(nh_model_backend(mc), "codegen") == 0 && nh_sim_event_count(c) == 4);
  for (int k = 0; k < 4; k++) {
    nh_event_record a, b;
    nh_sim_event_get(s, k, &a), nh_sim_event_get(c, k, &b);
    ENSURE(memcmp(&a.t, &b.t, sizeof a.t) == 0 && memcmp(a.x, b.x, sizeof(double) * 4) == 0);
  }
  const double x[4] = {0.3, -1.7, 2.5, -0.125};
  double vt[5], vc[5];
  ENSURE(m->monitor(0.75, x, vt, m->user) == 0 && mc->monitor(0.75, x, vc, mc->user) == 0);
  ENSURE(memcmp(vt, vc, sizeof vt) == 0 && vt[0] == -1.7 && vt[1] == -0.125 && vt[4] == 0.5);
  nh_sim_destroy(s), nh_sim_destroy(c), nh_model_destroy(m), nh_model_destroy(mc);
  /* report: the ground is logged and the run goes on to t = 2 */
  s = drop_run("report", NH_BACKEND_TAPE, &m, &st);
  ENSURE(s && st == NH_OK && nh_sim_event_count(s) == 4 && nh_sim_time(s) == 2.0);
  nh_event_record r;
  ENSURE(nh_sim_event_get(s, 3, &r) == NH_OK && r.monitor == 0 && !r.stopped);
  ENSURE_NEAR(r.t, t_ground, MONITOR_TIME_TOL);
  nh_sim_destroy(s), nh_model_destroy(m);
  return 0;
}

/* an almost-Poisson oscillator a' = b, b' = -a from (1, 0): a = cos t falls through 0 at pi/2,
 * rises at 3 pi/2 (where the run stops); t is a variable of its monitors */
static int test_monitors_poisson(void) {
  const char *text = "state a b\nhamiltonian 1/2*(a^2 + b^2)\npoisson a b: 1\n"
                     "monitor fall: a falling\nmonitor rise: a rising stop\nmonitor late: t - 10\n"
                     "initial a = 1\n";
  char msg[2048];
  for (int b = 0; b < 2; b++) {
    nh_load_opts o = opts(b ? NH_BACKEND_CODEGEN : NH_BACKEND_TAPE);
    nh_model *m = nh_model_parse(text, "osc.nh", &o, msg, sizeof msg);
    if (!m) printf("  %s\n", msg);
    ENSURE(m && m->form == NH_FORM_ODE && m->nmon == 3);
    nh_sim_def d = nh_sim_def_default();
    d.rtol = 1e-12, d.atol = 1e-14;
    nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
    ENSURE(s && nh_sim_run(s, 20.0, 0, NULL, NULL) == NH_EVENT_STOP && nh_sim_event_count(s) == 2);
    nh_event_record r0, r1;
    ENSURE(nh_sim_event_get(s, 0, &r0) == NH_OK && nh_sim_event_get(s, 1, &r1) == NH_OK);
    ENSURE(r0.monitor == 0 && r1.monitor == 1 && r1.stopped);
    ENSURE_NEAR(r0.t, acos(-1.0) / 2, MONITOR_AP_TOL);
    ENSURE_NEAR(r1.t, 3 * acos(-1.0) / 2, MONITOR_AP_TOL);
    double x[2] = {0.5, 2}, v[3];
    ENSURE(m->monitor(12.0, x, v, m->user) == 0 && v[0] == 0.5 && v[2] == 2.0);
    nh_sim_destroy(s), nh_model_destroy(m);
  }
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_penny_file_tape);
  RUN_TEST(test_penny_file_codegen);
  RUN_TEST(test_derivatives_fd);
  RUN_TEST(test_codegen_matches_tape);
  RUN_TEST(test_backends_same_evaluators);
  RUN_TEST(test_overrides_and_initial);
  RUN_TEST(test_describe);
  RUN_TEST(test_snakeboard_file_vs_builtin);
  RUN_TEST(test_holonomic);
  RUN_TEST(test_poisson_files);
  RUN_TEST(test_poisson_derivatives);
  RUN_TEST(test_poisson_sparse_fill);
  RUN_TEST(test_quartic_reduced);
  RUN_TEST(test_monitors);
  RUN_TEST(test_monitors_poisson);
  return TEST_SUMMARY();
}
