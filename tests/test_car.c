/* test_car.c - the car-like robot of examples/car.nh (issue 28) against its closed form: with
 * delta' = 0 the rear axle runs on the circle of radius L / tan(delta0) at the constant speed
 * u0, theta = w t with w = u0 tan(delta0) / L, and the energy is conserved. dop853 at tight
 * tolerance follows it to T = 20 at every accepted step, for the file's defaults and for a
 * second set of parameters (another M, a right turn, another speed). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "nholo/nholo.h"

#ifndef NHOLO_SOURCE_DIR
#define NHOLO_SOURCE_DIR "."
#endif
#ifndef NHOLO_TEST_CACHE
#define NHOLO_TEST_CACHE "nholo-test-cache"
#endif

/* dop853 tolerances of the runs (rtol = atol), and a looser one to see the error converge */
#define CAR_DOP_TOL 1e-13
#define CAR_DOP_TOL_LOOSE 1e-11
/* the horizon of issue 28's car */
#define CAR_T_END 20.0
/* position error |(x, y) - circle(t)| / |R| at every step to T = 20 (measured 1.15e-10 and
 * 1.0e-12 with the two parameter sets at CAR_DOP_TOL: dop853's global error over 5 laps) */
#define CAR_POS_REL_TOL 1e-9
/* heading error |theta - w t| / max(1, |w t|) at every step (measured 3.7e-12, 1.2e-13) */
#define CAR_HEADING_REL_TOL 3e-11
/* relative energy error at every step (measured 2.3e-11, 1.0e-12) */
#define CAR_ENERGY_REL_TOL 2e-10
/* largest |A v| at every step (measured 3.8e-12, 2.9e-13) */
#define CAR_RESIDUAL_TOL 3e-11
/* the position error shrinks at least this much from CAR_DOP_TOL_LOOSE to CAR_DOP_TOL, a
 * factor 100 in the tolerance (measured 96.5 and 96.7): the runs converge to the closed form */
#define CAR_CONVERGENCE_FACTOR 30.0
/* how far the states sampled for the structure checks may be from exact (rounding) */
#define CAR_STRUCT_TOL 1e-14

static nh_model *load_car(int nset, const char *const *names, const double *values) {
  char path[1024], msg[2048];
  snprintf(path, sizeof path, "%s/examples/car.nh", NHOLO_SOURCE_DIR);
  nh_load_opts o = nh_load_opts_default();
  o.cache_dir = NHOLO_TEST_CACHE;
  o.nset = nset, o.set_names = names, o.set_values = values;
  nh_model *m = nh_model_load(path, &o, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  return m;
}

/* a model parameter's value by name (NaN when absent) */
static double param(const nh_model *m, const char *name) {
  for (int i = 0; i < m->npar; i++)
    if (strcmp(m->param_names[i], name) == 0) return m->param_values[i];
  return NAN;
}

/* the closed form and the worst errors seen along the run */
typedef struct car_track {
  double R, w, u0, delta0, E0;
  double pos, heading, energy, residual, delta;
  long samples;
} car_track;

static int track(const nh_sim *sim, nh_sample_kind kind, double t, const double *q, const double *v, void *user) {
  (void)kind;
  car_track *c = user;
  const nh_model *m = nh_sim_model(sim);
  const double wt = c->w * t, xs = c->R * sin(wt), ys = c->R * (1.0 - cos(wt));
  double E, res;
  if (nh_model_energy(m, q, v, &E) != NH_OK || nh_model_constraint_residual(m, q, v, &res) != NH_OK) return -1;
  c->pos = fmax(c->pos, hypot(q[0] - xs, q[1] - ys) / fabs(c->R));
  c->heading = fmax(c->heading, fabs(q[2] - wt) / fmax(1.0, fabs(wt)));
  c->energy = fmax(c->energy, fabs(E - c->E0) / c->E0);
  c->residual = fmax(c->residual, res);
  c->delta = fmax(c->delta, fabs(q[3] - c->delta0) + fabs(v[3]));
  c->samples++;
  return 0;
}

/* one run of dop853 at tolerance tol to T = 20, every step against the circle: the worst
 * errors in *c */
static int run_once(int nset, const char *const *names, const double *values, double tol, car_track *out) {
  nh_model *m = load_car(nset, names, values);
  ENSURE(m && m->nq == 4 && m->nc == 2 && m->mass_constant);
  car_track c = {0};
  const double L = param(m, "L"), mass = param(m, "m"), I = param(m, "I");
  c.delta0 = param(m, "delta0"), c.u0 = param(m, "u0");
  c.R = L / tan(c.delta0), c.w = c.u0 * tan(c.delta0) / L;
  /* the energy of the closed form, 1/2 (m u0^2 + I w^2), is the file's initial energy */
  c.E0 = 0.5 * (mass * c.u0 * c.u0 + I * c.w * c.w);
  double E;
  ENSURE(nh_model_energy(m, m->q0, m->v0, &E) == NH_OK);
  ENSURE_REL(E, c.E0, 1e-15);
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("dop853");
  d.rtol = d.atol = tol;
  char msg[512];
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  ENSURE(s);
  ENSURE(nh_sim_run(s, CAR_T_END, 0, track, &c) == NH_OK);
  ENSURE(nh_sim_time(s) == CAR_T_END && c.samples > 20);
  printf("  tol %.0e: R = %.6f m, w = %.6f rad/s, E = %.9g: %ld steps, max |pos - circle|/R %.2e, "
         "heading %.2e, energy %.2e, |A v| %.2e, delta %.1e\n",
         tol, c.R, c.w, c.E0, c.samples, c.pos, c.heading, c.energy, c.residual, c.delta);
  *out = c;
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* the runs at both tolerances: the tight one within the bounds, the error converging */
static int run_circle(int nset, const char *const *names, const double *values) {
  car_track c, loose;
  ENSURE(run_once(nset, names, values, CAR_DOP_TOL_LOOSE, &loose) == 0);
  ENSURE(run_once(nset, names, values, CAR_DOP_TOL, &c) == 0);
  ENSURE(c.pos <= CAR_POS_REL_TOL);
  ENSURE(c.heading <= CAR_HEADING_REL_TOL);
  ENSURE(c.energy <= CAR_ENERGY_REL_TOL);
  ENSURE(c.residual <= CAR_RESIDUAL_TOL);
  ENSURE(loose.pos >= CAR_CONVERGENCE_FACTOR * c.pos);
  /* delta'' = 0 exactly: the steering angle never moves */
  ENSURE(c.delta == 0.0 && loose.delta == 0.0);
  return 0;
}

/* issue 28's car: delta = 0.3, x' = 5 (the file's defaults) */
static int test_car_circle_defaults(void) { return run_circle(0, NULL, NULL); }

/* another M (m = 3, I = 2.5, J = 0.4), a longer wheelbase, a right turn, a slower speed */
static int test_car_circle_other(void) {
  const char *names[6] = {"m", "I", "J", "L", "delta0", "u0"};
  const double values[6] = {3.0, 2.5, 0.4, 2.7, -0.45, 2.0};
  return run_circle(6, names, values);
}

/* What makes the circle a solution: neither constraint row reads delta' (A's delta column is
 * zero) and M is constant and diagonal, so the steering equation is J delta'' = 0; and the
 * accelerations at a state of the circle are those of the circle (x'' = -w^2 R sin,
 * y'' = w^2 R cos, theta'' = delta'' = 0), at several points of it. */
static int test_car_structure(void) {
  nh_model *m = load_car(0, NULL, NULL);
  ENSURE(m);
  const double L = param(m, "L"), delta0 = param(m, "delta0"), u0 = param(m, "u0");
  const double R = L / tan(delta0), w = u0 * tan(delta0) / L;
  double M[16], A[8], a[4], lam[2];
  ENSURE(m->mass(m->q0, M, m->user) == 0);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      if (i != j) ENSURE(M[4 * i + j] == 0.0);
  unsigned long long seed = 28;
  double worst = 0.0;
  for (int k = 0; k < 16; k++) {
    const double th = nh_test_rand(&seed, -10.0, 10.0), t = th / w;
    const double q[4] = {R * sin(th), R * (1.0 - cos(th)), th, delta0};
    const double v[4] = {u0 * cos(th), u0 * sin(th), w, 0.0};
    ENSURE(m->constraint(q, v, A, NULL, m->user) == 0);
    ENSURE(A[3] == 0.0 && A[7] == 0.0);
    ENSURE(nh_model_accel(m, t, q, v, a, lam, NULL) == NH_OK);
    const double want[4] = {-w * u0 * sin(th), w * u0 * cos(th), 0.0, 0.0};
    for (int i = 0; i < 4; i++) worst = fmax(worst, fabs(a[i] - want[i]) / (w * u0));
    ENSURE(a[3] == 0.0);
  }
  printf("  accelerations on the circle against the closed form: %.2e of w u0\n", worst);
  ENSURE(worst <= CAR_STRUCT_TOL * 16);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_car_structure);
  RUN_TEST(test_car_circle_defaults);
  RUN_TEST(test_car_circle_other);
  return TEST_SUMMARY();
}
