/* test_nh_contact.c - the constraint multipliers in monitors and the contact statement of
 * the model language, against closed forms: a solid sphere rolling down an incline, pushed
 * along it and pulled off it (examples/sphere_incline.nh), and a disk rolling in a circular
 * bowl (examples/disk_bowl.nh); compiled code against the tape. */
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

/* the forces from the multipliers against the closed forms (relative to m g) */
#define FORCE_TOL 1e-12
/* located event times against the closed forms (dopri5 at 1e-12, location to 1e-13 t) */
#define EVENT_TOL 1e-9
/* the running max of |f|/N on the bowl against 1/3 tan(phi0) */
#define MU_TOL 1e-10

/* the parameters of both example files */
static const double G = 9.81, M_SPHERE = 2.0, ALPHA = 0.3, R_SPHERE = 0.5;

static nh_model *load(const char *file, nh_backend backend, int nset, const char *const *names,
                      const double *values) {
  char path[1024], msg[2048];
  snprintf(path, sizeof path, "%s/examples/%s", NHOLO_SOURCE_DIR, file);
  nh_load_opts o = nh_load_opts_default();
  o.backend = backend;
  o.cache_dir = NHOLO_TEST_CACHE;
  o.nset = nset, o.set_names = names, o.set_values = values;
  nh_model *m = nh_model_load(path, &o, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  return m;
}

/* N = m g cos(a) - c t and |f| = 2/7 (m g sin(a) + k t) at admissible states and several t;
 * the monitor lambda(height) - 10 is N - 10; codegen and tape agree bit for bit */
static int test_incline_forces(void) {
  const char *names[2] = {"k", "c"};
  const double values[2] = {1.5, 0.7};
  nh_model *mc = load("sphere_incline.nh", NH_BACKEND_CODEGEN, 2, names, values);
  nh_model *mt = load("sphere_incline.nh", NH_BACKEND_TAPE, 2, names, values);
  ENSURE(mc && mt && mc->nmon == 4);
  const int in = nh_model_monitor_index(mc, "floor.normal"), ifr = nh_model_monitor_index(mc, "floor.friction"),
            isl = nh_model_monitor_index(mc, "floor.slip"), ip = nh_model_monitor_index(mc, "pressed");
  ENSURE(in >= 0 && ifr >= 0 && isl >= 0 && ip >= 0);
  ENSURE(mc->monitors[ifr].direction == NH_MONITOR_NONE && mc->monitors[in].action == NH_MONITOR_STOP);
  double worst = 0.0;
  for (int s = 0; s < 20; s++) {
    const double t = 0.37 * s, w = 0.3 * s - 2.0;
    const double x[6] = {0.1 * s, R_SPHERE, 0.7 - 0.2 * s, R_SPHERE * w, 0.0, w}; /* z = r, x' = r th' */
    double vc[4], vt[4];
    ENSURE(mc->monitor(t, x, vc, mc->user) == 0 && mt->monitor(t, x, vt, mt->user) == 0);
    ENSURE(memcmp(vc, vt, sizeof vc) == 0);
    const double N = M_SPHERE * G * cos(ALPHA) - 0.7 * t, f = 2.0 / 7.0 * (M_SPHERE * G * sin(ALPHA) + 1.5 * t);
    worst = fmax(worst, fabs(vc[in] - N) + fabs(vc[ifr] - fabs(f)) + fabs(vc[isl] - (0.2 * N - fabs(f))) +
                            fabs(vc[ip] - (N - 10.0)));
  }
  printf("  incline: max error of N, |f|, slip and lambda(height) - 10: %.2e (m g = %g)\n", worst, M_SPHERE * G);
  ENSURE(worst <= FORCE_TOL * M_SPHERE * G);
  nh_model_destroy(mc);
  nh_model_destroy(mt);
  return 0;
}

/* the events at their closed-form times: slip where 0.2 N = |f|, the `pressed` monitor
 * where N = 10, detachment (stop) where N = 0 */
static int test_incline_events(void) {
  const char *names[1] = {"c"};
  const double values[1] = {2.0};
  nh_model *m = load("sphere_incline.nh", NH_BACKEND_AUTO, 1, names, values);
  ENSURE(m);
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("dopri5");
  d.rtol = d.atol = 1e-12;
  char msg[512];
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  ENSURE(s);
  ENSURE(nh_sim_run(s, 20.0, 0, NULL, NULL) == NH_EVENT_STOP);
  const double mg = M_SPHERE * G, k = 1.0, c = 2.0, mu = 0.2;
  const double t_slip = (mu * mg * cos(ALPHA) - 2.0 / 7.0 * mg * sin(ALPHA)) / (2.0 / 7.0 * k + mu * c);
  const double t_press = (mg * cos(ALPHA) - 10.0) / c, t_detach = mg * cos(ALPHA) / c;
  const char *kinds[3] = {"floor.slip", "pressed", "floor.normal"};
  const double times[3] = {t_slip, t_press, t_detach};
  ENSURE(nh_sim_event_count(s) == 3);
  for (int i = 0; i < 3; i++) {
    nh_event_record r;
    ENSURE(nh_sim_event_get(s, i, &r) == NH_OK);
    printf("  %-13s t = %.15g (closed form %.15g)\n", kinds[i], r.t, times[i]);
    ENSURE(strcmp(m->monitors[r.monitor].name, kinds[i]) == 0 && r.direction == -1);
    ENSURE_NEAR(r.t, times[i], EVENT_TOL);
    ENSURE(r.stopped == (i == 2));
  }
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

static int mu_observer(const nh_sim *sim, nh_sample_kind kind, double t, const double *q, const double *v, void *user) {
  (void)kind, (void)t;
  const nh_model *m = nh_sim_model(sim);
  double x[6], mv[2], *stats = user;
  memcpy(x, q, 3 * sizeof(double));
  memcpy(x + 3, v, 3 * sizeof(double));
  if (m->monitor(t, x, mv, m->user) != 0) return -1;
  stats[0] = fmax(stats[0], mv[1] / mv[0]);
  stats[1] = fmin(stats[1], mv[0]), stats[2] = fmax(stats[2], mv[0]);
  return 0;
}

/* the disk in the bowl over two swings: N in [m g cos(phi0), m g (7 - 4 cos(phi0))/3], the
 * running max of |f|/N = 1/3 tan(phi0) at the release point */
static int test_bowl(void) {
  nh_model *m = load("disk_bowl.nh", NH_BACKEND_AUTO, 0, NULL, NULL);
  ENSURE(m && m->nmon == 2);
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("dopri5");
  d.rtol = d.atol = 1e-12;
  d.out_dt = 1e-3;
  char msg[512];
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  ENSURE(s);
  double stats[3] = {0.0, INFINITY, -INFINITY};
  ENSURE(nh_sim_run(s, 4.0, 0, mu_observer, stats) == NH_OK);
  const double phi0 = 0.5, mg = 1.0 * G;
  printf("  bowl: mu-hat %.12f (1/3 tan phi0 = %.12f), N in [%.10f, %.10f] ([%.10f, %.10f])\n", stats[0],
         tan(phi0) / 3.0, stats[1], stats[2], mg * cos(phi0), mg * (7.0 - 4.0 * cos(phi0)) / 3.0);
  ENSURE_NEAR(stats[0], tan(phi0) / 3.0, MU_TOL);
  ENSURE_NEAR(stats[1], mg * cos(phi0), 1e-8);
  ENSURE_NEAR(stats[2], mg * (7.0 - 4.0 * cos(phi0)) / 3.0, 1e-5); /* the 1e-3 grid near the bottom */
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_incline_forces);
  RUN_TEST(test_incline_events);
  RUN_TEST(test_bowl);
  return TEST_SUMMARY();
}
