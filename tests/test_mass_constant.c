/* test_mass_constant.c - a constant mass matrix (nh_model_def.mass_constant) is evaluated and
 * factored once per simulation workspace, a q-dependent one at every right-hand side, and the
 * two paths give the same trajectories to the bit; model files and built-ins set the flag
 * where M does not depend on q. A constant Gram matrix (gram_constant): model files set it
 * where sin^2 + cos^2 = 1 shows G = A M^-1 A^T constant, and gni's kernel then keeping G^-1
 * gives the run of forming G per step, to round-off. */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "model/dynamics.h"
#include "nholo/modelfile.h"
#include "nholo/nholo.h"
#include "nholo/systems/all.h"

/* ---- a Chaplygin sleigh whose evaluators count the mass calls ---------------------------- */

typedef struct counted {
  double I, m, a;
  double off; /* skate offset in M (0: M = diag(I, m, m), constant; else M depends on theta) */
  long calls; /* mass evaluations */
} counted;

static int c_mass(const double *q, double *M, void *user) {
  counted *c = user;
  double s = sin(q[0]), co = cos(q[0]), ma = c->m * c->off;
  c->calls++;
  M[0] = c->I + c->m * c->off * c->off, M[1] = -ma * s, M[2] = ma * co;
  M[3] = -ma * s, M[4] = c->m, M[5] = 0.0;
  M[6] = ma * co, M[7] = 0.0, M[8] = c->m;
  return 0;
}

static int c_constraint(const double *q, const double *v, double *A, double *Adv, void *user) {
  const counted *c = user;
  double s = sin(q[0]), co = cos(q[0]);
  if (A) A[0] = c->a, A[1] = s, A[2] = -co;
  if (Adv) *Adv = v[0] * (co * v[1] + s * v[2]);
  return 0;
}

/* the model on *c (kept by the caller: the counter is read back), flags as given */
static nh_model *counted_model_g(counted *c, int mass_constant, int gram_constant) {
  static const char *const names[] = {"theta", "x", "y"};
  static const double q0[3] = {0.0, 0.0, 0.0}, v0[3] = {1.0, -1.0, 1.0};
  nh_model_def d = nh_model_def_default();
  d.name = "counted";
  d.nq = 3, d.nc = 1;
  d.coord_names = names;
  d.q0 = q0, d.v0 = v0;
  d.mass = c_mass;
  d.constraint = c_constraint;
  d.mass_constant = mass_constant;
  d.gram_constant = gram_constant;
  d.user = c; /* user_size 0: the model passes this pointer */
  return nh_model_create(&d, NULL, 0);
}
static nh_model *counted_model(counted *c, int mass_constant) { return counted_model_g(c, mass_constant, 0); }

/* ---- the dynamics: one factorisation for a constant M, one per call otherwise ------------ */

#define N_RHS 50

static int test_dyn_factor_count(void) {
  counted cc = {2.0, 3.0, 1.0, 0.0, 0}, cv = cc;
  nh_model *mc = counted_model(&cc, 1), *mv = counted_model(&cv, 0);
  ENSURE(mc && mv);
  ENSURE(mc->mass_constant == 1 && mv->mass_constant == 0);
  double wc[64], wv[64];
  ENSURE(nh_dyn_work_size(mc) <= 64);
  nh_dyn dc, dv;
  nh_dyn_init(&dc, mc, wc);
  nh_dyn_init(&dv, mv, wv);
  unsigned long long seed = 7;
  int same = 1;
  for (int k = 0; k < N_RHS; k++) {
    double x[6], fc[6], fv[6];
    for (int i = 0; i < 6; i++) x[i] = nh_test_rand(&seed, -2.0, 2.0);
    ENSURE(nh_dyn_rhs(&dc, 0.0, x, fc) == 0);
    ENSURE(nh_dyn_rhs(&dv, 0.0, x, fv) == 0);
    same = same && memcmp(fc, fv, sizeof fc) == 0;
  }
  ENSURE(same); /* the kept factor is the factor: results to the bit */
  ENSURE(cc.calls == 1);
  ENSURE(cv.calls == N_RHS);
  ENSURE(dc.mt.diag == 1);
  /* a new workspace factors again */
  nh_dyn_init(&dc, mc, wc);
  double x[6] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, f[6];
  ENSURE(nh_dyn_rhs(&dc, 0.0, x, f) == 0 && nh_dyn_rhs(&dc, 0.0, x, f) == 0);
  ENSURE(cc.calls == 2);
  nh_model_destroy(mc);
  nh_model_destroy(mv);
  return 0;
}

/* a full (non-diagonal) constant M: the general factor is kept, not the diagonal path */
static int test_dyn_full_constant(void) {
  counted cc = {2.0, 3.0, 1.0, 0.5, 0}, cv = cc;
  nh_model *mc = counted_model(&cc, 1), *mv = counted_model(&cv, 0);
  ENSURE(mc && mv);
  double wc[64], wv[64], x[6] = {0.0, 0.0, 0.0, 1.0, -1.0, 1.0}, fc[6], fv[6];
  nh_dyn dc, dv;
  nh_dyn_init(&dc, mc, wc);
  nh_dyn_init(&dv, mv, wv);
  /* at theta = 0 both evaluate M(0); the constant path then keeps it */
  for (int k = 0; k < 5; k++) {
    ENSURE(nh_dyn_rhs(&dc, 0.0, x, fc) == 0 && nh_dyn_rhs(&dv, 0.0, x, fv) == 0);
    ENSURE(memcmp(fc, fv, sizeof fc) == 0);
    x[3] += 0.25, x[4] -= 0.125;
  }
  ENSURE(dc.mt.diag == 0);
  ENSURE(cc.calls == 1 && cv.calls == 5);
  nh_model_destroy(mc);
  nh_model_destroy(mv);
  return 0;
}

/* ---- whole runs: the same trajectory, one dynamics mass call for a constant M ----------- */

/* final state and mass calls of a run to t_end with method name */
static int run_counted(int mass_constant, const char *method, double t_end, double *x, long *calls, long *evals) {
  counted c = {2.0, 3.0, 1.0, 0.0, 0};
  nh_model *m = counted_model(&c, mass_constant);
  if (!m) return -1;
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = 1e-2;
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  int rc = s ? nh_sim_run(s, t_end, 0, NULL, NULL) : -1;
  if (s) {
    memcpy(x, nh_sim_x(s), sizeof(double) * 6);
    *evals = nh_sim_get_stats(s)->evals;
    nh_sim_destroy(s);
  }
  *calls = c.calls;
  nh_model_destroy(m);
  return rc;
}

static int test_run_same(void) {
  static const char *const methods[] = {"dopri5", "rk4"};
  for (int i = 0; i < 2; i++) {
    double xc[6], xv[6];
    long cc, cv, ec, ev;
    ENSURE(run_counted(1, methods[i], 5.0, xc, &cc, &ec) == NH_OK);
    ENSURE(run_counted(0, methods[i], 5.0, xv, &cv, &ev) == NH_OK);
    ENSURE(memcmp(xc, xv, sizeof xc) == 0 && ec == ev && ev > 100);
    /* the driver's own mass calls (energy, projections) are the same on the same
     * trajectory; the dynamics add one per right-hand side for the q-dependent flag and one
     * in all for the constant one */
    ENSURE(cv - cc == ev - 1);
  }
  return 0;
}

/* ---- who sets the flag --------------------------------------------------------------- */

static const char *const q_dep =
    "model offset_sleigh\n"
    "coordinates theta x y\n"
    "parameter a = 0.5\n"
    "kinetic 1/2*theta'^2 + 1/2*((x' - a*sin(theta)*theta')^2 + (y' + a*cos(theta)*theta')^2)\n"
    "constraint skate: theta' + sin(theta)*x' - cos(theta)*y' = 0\n"
    "initial theta' = 1, x' = -1, y' = 1\n";

static int test_flag_set(void) {
  char msg[512];
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  nh_model *m = nh_model_load(NHOLO_SOURCE_DIR "/examples/chaplygin_sleigh.nh", &o, msg, sizeof msg);
  ENSURE(m && m->mass_constant == 1);
  nh_model_destroy(m);
  m = nh_model_load(NHOLO_SOURCE_DIR "/examples/penny.nh", &o, msg, sizeof msg);
  ENSURE(m && m->mass_constant == 1);
  nh_model_destroy(m);
  m = nh_model_parse(q_dep, "offset.nh", &o, msg, sizeof msg);
  ENSURE(m && m->mass_constant == 0);
  nh_model_destroy(m);

  nh_sleigh_params sp = nh_sleigh_params_default();
  m = nh_sleigh_create(&sp, msg, sizeof msg);
  ENSURE(m && m->mass_constant == 1 && m->gram_constant == 1);
  nh_model_destroy(m);
  nh_penny_params pp = nh_penny_params_default();
  m = nh_penny_create(&pp, msg, sizeof msg);
  ENSURE(m && m->mass_constant == 1 && m->gram_constant == 0);
  nh_model_destroy(m);
  nh_snakeboard_params bp = nh_snakeboard_params_default();
  m = nh_snakeboard_create(&bp, msg, sizeof msg);
  ENSURE(m && m->mass_constant == 1);
  nh_model_destroy(m);
  return 0;
}

/* ---- a constant Gram matrix (nh_model_def.gram_constant) --------------------------------- */

/* model files: G = A M^-1 A^T shown constant where sin^2 + cos^2 = 1 makes it so */
static int test_gram_flag(void) {
  static const struct {
    const char *file;
    int gram;
  } files[] = {{"chaplygin_sleigh.nh", 1}, {"knife_edge.nh", 1}, {"sphere_incline.nh", 1},
               {"gearbox.nh", 0} /* 1 + sin^2 */, {"penny.nh", 0} /* 1/m + R^2 cos^2/I */,
               {"snakeboard.nh", 0}, {"cradle3.nh", 0} /* no constraint */};
  char msg[512], path[512];
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(path, sizeof path, NHOLO_SOURCE_DIR "/examples/%s", files[i].file);
    nh_model *m = nh_model_load(path, &o, msg, sizeof msg);
    ENSURE(m);
    if (m->gram_constant != files[i].gram) printf("  %s: gram_constant %d\n", files[i].file, m->gram_constant);
    ENSURE(m->gram_constant == files[i].gram);
    nh_model_destroy(m);
  }
  nh_model *m = nh_model_parse(q_dep, "offset.nh", &o, msg, sizeof msg); /* M depends on q */
  ENSURE(m && m->gram_constant == 0);
  nh_model_destroy(m);
  /* the C API: the flag needs a constant M and a constraint */
  counted c = {2.0, 3.0, 1.0, 0.0, 0};
  ENSURE(counted_model_g(&c, 0, 1) == NULL);
  m = counted_model_g(&c, 1, 1);
  ENSURE(m && m->gram_constant == 1);
  nh_model_destroy(m);
  return 0;
}

/* gni's kernel keeps G^-1 for a constant G: the same run as forming G per step, to
 * round-off (the sleigh's G = a^2/I + (sin^2 + cos^2)/m = 1/2 + 1/3 here), with one call of
 * the constraint per step either way */
#define GRAM_STEPS 10000
/* state at t = 10: round-off accumulated over the run (measured 4.4e-14). Later the sleigh,
 * sliding backwards, turns round (unstable): a 1-ulp change of v0 alone grows to 6e-8 by
 * t = 20, so a longer run would compare the dynamics' sensitivity, not the kernel */
#define GRAM_TOL 1e-12
static int test_gram_gni(void) {
  double x[2][6], E[2];
  long calls[2];
  for (int g = 0; g < 2; g++) {
    counted c = {2.0, 3.0, 1.0, 0.0, 0};
    nh_model *m = counted_model_g(&c, 1, g);
    ENSURE(m);
    nh_sim_def d = nh_sim_def_default();
    d.method = nh_method_find("gni");
    d.opts.variant = NH_VARIANT_PAPER; /* the kernel is the paper form's */
    d.h = 1e-3;
    nh_sim *s = nh_sim_create(m, &d, NULL, 0);
    ENSURE(s);
    int rc = nh_sim_run(s, GRAM_STEPS * 1e-3, 0, NULL, NULL);
    ENSURE(rc == NH_OK || rc == NH_DRIFT);
    ENSURE(nh_sim_get_stats(s)->steps == GRAM_STEPS);
    memcpy(x[g], nh_sim_x(s), sizeof x[g]);
    ENSURE(nh_model_energy(m, x[g], x[g] + 3, &E[g]) == 0);
    calls[g] = nh_sim_get_stats(s)->evals;
    nh_sim_destroy(s);
    nh_model_destroy(m);
  }
  for (int i = 0; i < 6; i++) ENSURE(fabs(x[1][i] - x[0][i]) <= GRAM_TOL * (1.0 + fabs(x[0][i])));
  ENSURE_REL(E[1], E[0], 1e-12);
  ENSURE(calls[0] == calls[1]);
  return 0;
}

/* ---- gni's kernel compiled with a model file (src/lang/codegen_gni.c) ------------------ */
/* The kernel has one source (src/lang/gni_kernel.h), compiled into the library and written
 * into a model file's C; what is checked here is what the runs give. */

/* the compiled kernel, counted: its calls and the steps it took */
static nh_gni_kernel_fn kernel_orig;
static long kernel_calls, kernel_steps;
static long counted_kernel(const double *Gi, const double *run, long kmax, double *q, double *v, double *c,
                           double *A, double *acc, int *fail) {
  kernel_calls++;
  const long k = kernel_orig(Gi, run, kmax, q, v, c, A, acc, fail);
  kernel_steps += k;
  return k;
}

typedef struct run_out {
  int rc;
  double x[12];
  nh_sim_stats st;
} run_out;

/* two skates, one on a lifting axis: n = 4, m = 2, G = diag(sin^2 + cos^2, 2) */
static const char *const two_skates =
    "model two_skates\n"
    "coordinates theta x y z\n"
    "kinetic 1/2*(theta'^2 + x'^2 + y'^2 + z'^2)\n"
    "constraint skate: sin(theta)*x' - cos(theta)*y' = 0\n"
    "constraint lift: z' - theta' = 0\n"
    "initial theta' = 1, x' = 0.5, z' = 1\n";

/* gni on a model (model text, an example file "*.nh", or else the built-in sleigh) with backend
 * (the compiled kernel: counted, or removed when strip) from its initial state with v
 * scaled, to t_end; *has_kernel: the model brought a compiled kernel */
static int kernel_run(const char *model, nh_backend be, int strip, double v_scale, double t_end, run_out *o,
                      int *has_kernel) {
  char msg[512], path[512];
  snprintf(path, sizeof path, NHOLO_SOURCE_DIR "/examples/%s", model);
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = be;
  const nh_sleigh_params sp = nh_sleigh_params_default();
  nh_model *m = strstr(model, "\n")     ? nh_model_parse(model, "two_skates.nh", &lo, msg, sizeof msg)
                : strstr(model, ".nh") ? nh_model_load(path, &lo, msg, sizeof msg)
                                       : nh_sleigh_create(&sp, msg, sizeof msg);
  if (!m || m->nq > 6) return -1;
  if (has_kernel) *has_kernel = m->gni_kernel != NULL;
  if (m->gni_kernel) kernel_orig = m->gni_kernel, m->gni_kernel = strip ? NULL : counted_kernel;
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("gni");
  d.opts.variant = NH_VARIANT_PAPER; /* the free-motion kernel is the paper form's */
  d.h = 1e-3;
  nh_sim *s = nh_sim_create(m, &d, NULL, 0);
  if (!s) return -1;
  double x[12];
  memcpy(x, nh_sim_x(s), sizeof(double) * 2 * (size_t)m->nq);
  for (int i = 0; i < m->nq; i++) x[m->nq + i] *= v_scale;
  if (nh_sim_set_state_x(s, 0.0, x) != NH_OK) return -1;
  memset(o, 0, sizeof *o);
  o->rc = nh_sim_run(s, t_end, 0, NULL, NULL);
  memcpy(o->x, nh_sim_x(s), sizeof(double) * 2 * (size_t)m->nq);
  o->st = *nh_sim_get_stats(s);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

static int same_run(const run_out *a, const run_out *b) {
  return a->rc == b->rc && memcmp(a->x, b->x, sizeof a->x) == 0 && a->st.steps == b->st.steps &&
         a->st.evals == b->st.evals && a->st.max_energy_rel_error == b->st.max_energy_rel_error &&
         a->st.max_constraint_residual == b->st.max_constraint_residual && a->st.conserved == b->st.conserved &&
         a->st.max_conserved_rel_error == b->st.max_conserved_rel_error && a->st.energy == b->st.energy;
}

/* the sleigh read from its model file runs gni's kernel compiled with its C (called), and
 * gives the bits of the built-in sleigh (hand-written C, the library's kernel) at the same
 * parameters and start, and of the same file on tapes: the state at t = 5, the steps, the
 * evaluations and the invariants the run reports */
static int test_gni_kernel_sleigh(void) {
  run_out file, builtin, tape;
  int has;
  kernel_calls = 0;
  ENSURE(kernel_run("chaplygin_sleigh.nh", NH_BACKEND_CODEGEN, 0, 1.0, 5.0, &file, &has) == 0);
  ENSURE(has && kernel_calls >= 1);
  ENSURE(kernel_run("built-in", NH_BACKEND_CODEGEN, 0, 1.0, 5.0, &builtin, &has) == 0);
  ENSURE(!has);
  ENSURE(kernel_run("chaplygin_sleigh.nh", NH_BACKEND_TAPE, 0, 1.0, 5.0, &tape, &has) == 0);
  ENSURE(!has);
  if (!same_run(&file, &builtin) || !same_run(&file, &tape))
    printf("  x0 %.17g (file) %.17g (built-in) %.17g (tape)\n", file.x[0], builtin.x[0], tape.x[0]);
  ENSURE((file.rc == NH_OK || file.rc == NH_DRIFT) && file.st.steps == 5000);
  ENSURE(same_run(&file, &builtin) && same_run(&file, &tape));
  return 0;
}

/* two constraints (two skates) and runs that overflow: the compiled kernel gives the run of
 * the library's on the same file's tapes. At v x 1e160 the energy overflows at every step:
 * the compiled kernel takes none of them (its untested run ends non-finite and is redone
 * tested, which stops at the first step), the driver takes them, and the run says it left
 * the regime (NH_DRIFT, a non-finite energy: no silent NH_OK); the sleigh's overflowing start
 * fails before any run. A model with a potential (the knife edge on a slope) has no compiled
 * kernel. */
static int test_gni_kernel_models(void) {
  static const char *const files[] = {"chaplygin_sleigh.nh", NULL, "knife_edge.nh"};
  static const int kernel[] = {1, 1, 0};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    const char *model = files[i] ? files[i] : two_skates;
    for (int big = 0; big < 2; big++) {
      const double scale = big ? 1e160 : 1.0;
      run_out k, tape;
      int has;
      kernel_calls = kernel_steps = 0;
      ENSURE(kernel_run(model, NH_BACKEND_CODEGEN, 0, scale, 5.0, &k, &has) == 0);
      ENSURE(has == kernel[i]);
      if (!big || i == 1) ENSURE((kernel_calls >= 1) == kernel[i]);
      if (big && i == 1) ENSURE(kernel_steps == 0); /* each call's first step overflows: not taken */
      ENSURE(kernel_run(model, NH_BACKEND_TAPE, 0, scale, 5.0, &tape, NULL) == 0);
      if (!same_run(&k, &tape))
        printf("  %s (v x %g): rc %d %d, x0 %.17g %.17g, kernel calls %ld\n", files[i] ? files[i] : "two skates",
               scale, k.rc, tape.rc, k.x[0], tape.x[0], kernel_calls);
      ENSURE(same_run(&k, &tape));
      if (!big) ENSURE((k.rc == NH_OK || k.rc == NH_DRIFT) && k.st.steps == 5000);
      if (big && i == 1) ENSURE(k.rc == NH_DRIFT && !isfinite(k.st.energy));
    }
  }
  return 0;
}

/* an ODE-form model has no mass: the flag is refused there */
static int ode_rhs(double t, const double *x, double *xdot, void *user) {
  (void)t, (void)user;
  xdot[0] = -x[0];
  return 0;
}

static int test_ode_refused(void) {
  nh_model_def d = nh_model_def_default();
  char msg[256];
  d.name = "decay";
  d.form = NH_FORM_ODE;
  d.nx = 1;
  d.rhs = ode_rhs;
  d.mass_constant = 1;
  ENSURE(nh_model_create(&d, msg, sizeof msg) == NULL);
  ENSURE(strcmp(msg, "an ODE-form model has no coordinates, constraints, mass or flow") == 0);
  d.mass_constant = 0;
  nh_model *m = nh_model_create(&d, msg, sizeof msg);
  ENSURE(m && m->mass_constant == 0);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_dyn_factor_count);
  RUN_TEST(test_dyn_full_constant);
  RUN_TEST(test_run_same);
  RUN_TEST(test_flag_set);
  RUN_TEST(test_gram_flag);
  RUN_TEST(test_gram_gni);
  RUN_TEST(test_gni_kernel_sleigh);
  RUN_TEST(test_gni_kernel_models);
  RUN_TEST(test_ode_refused);
  return TEST_SUMMARY();
}
