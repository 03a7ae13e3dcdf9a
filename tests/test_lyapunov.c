/* test_lyapunov.c - the largest Lyapunov exponent of hybrid flows (nholo/lyapunov.h):
 * the tangent against central differences of the flow (smooth, across elastic, restitution
 * and plastic impacts, with and without constraints), an integrable flow (lambda -> 0), a
 * periodic billiard orbit with a closed-form exponent, the Sinai billiard against its
 * published small-scatterer asymptotics, and bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "harness.h"
#include "nholo/lyapunov.h"
#include "nholo/modelfile.h"
#include "nholo/sim.h"

#ifndef NHOLO_SOURCE_DIR
#define NHOLO_SOURCE_DIR "."
#endif

/* the closed-form exponent, the difference checks and the published value: tolerances */
#define PI 3.14159265358979323846
#define FD_EPS 1e-6      /* perturbation of the flow's central differences */
#define FD_REL 2e-6      /* their agreement with the tangent, relative to |dx| */
#define SINAI_H_MAX 0.02 /* a largest step in the Sinai table below its disk's radius 0.05 */

static const char *sinai_text(void) { return NHOLO_SOURCE_DIR "/examples/sinai.nh"; }

static nh_model *load(const char *path, int nset, const char *const *names, const double *values,
                      const nh_impact_law *law) {
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  lo.nset = nset;
  lo.set_names = names;
  lo.set_values = values;
  if (law) lo.impact_override = 1, lo.impact = *law;
  char msg[2048];
  nh_model *m = nh_model_load(path, &lo, msg, sizeof msg);
  if (!m) printf("  load %s: %s\n", path, msg);
  return m;
}

static nh_model *parse(const char *text) {
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  char msg[2048];
  nh_model *m = nh_model_parse(text, "test", &lo, msg, sizeof msg);
  if (!m) printf("  parse: %s\n", msg);
  return m;
}

/* the flow of the model itself (the ordinary hybrid driver, dop853 at tight tolerances, its
 * persistent contacts as in the tangent run) */
static int flow(const nh_model *m, const double *x0, double t, double h_max, double *x, long *impacts) {
  nh_sim_def sd = nh_sim_def_default();
  sd.method = nh_method_find("dop853");
  sd.rtol = 1e-13;
  sd.atol = 1e-15;
  sd.h = 0.0;
  sd.h_max = h_max;
  nh_sim *s = nh_sim_create(m, &sd, NULL, 0);
  if (!s) return -1;
  int rc = nh_sim_set_state_x(s, 0.0, x0);
  if (rc == NH_OK) rc = nh_sim_run(s, t, 0, NULL, NULL);
  memcpy(x, nh_sim_x(s), sizeof(double) * (size_t)m->nx);
  if (impacts) *impacts = nh_sim_get_stats(s)->impacts;
  nh_sim_destroy(s);
  return rc;
}

/* the tangent after t against (flow(x0 + eps dx0) - flow(x0 - eps dx0)) / (2 eps), dx0 a
 * random admissible direction; at least min_impacts impacts on the way */
static int check_fd(nh_model *m, double t, double h_max, long min_impacts, unsigned long long seed) {
  const int nx = m->nx;
  double x0[16], dx0[16], x[16], dx[16], xp[16], xm[16], xf[16];
  ENSURE(nx <= 16);
  memcpy(x0, m->x0, sizeof(double) * (size_t)nx);
  for (int i = 0; i < nx; i++) dx0[i] = nh_test_rand(&seed, -1.0, 1.0);
  nh_tan T;
  ENSURE(nh_tan_init(&T, m, NULL, NULL, 0) == NH_OK);
  ENSURE(nh_tan_admissible(&T, x0, dx0) == NH_OK);
  nh_tan_free(&T);
  nh_lyap_def d = nh_lyap_def_default();
  d.rtol = 1e-13;
  d.atol = 1e-15;
  d.h_max = h_max;
  long imp = 0, imp_flow = 0;
  char msg[512];
  int rc = nh_lyap_propagate(m, &d, x0, dx0, t, x, dx, &imp, msg, sizeof msg);
  if (rc) printf("  propagate: %s\n", msg);
  ENSURE(rc == NH_OK);
  ENSURE(imp >= min_impacts);
  for (int i = 0; i < nx; i++) xp[i] = x0[i] + FD_EPS * dx0[i], xm[i] = x0[i] - FD_EPS * dx0[i];
  ENSURE(flow(m, x0, t, h_max, xf, &imp_flow) == NH_OK);
  if (imp_flow != imp) printf("  impacts: tangent run %ld, flow %ld\n", imp, imp_flow);
  ENSURE(imp_flow == imp);
  ENSURE(flow(m, xp, t, h_max, xp, NULL) == NH_OK);
  ENSURE(flow(m, xm, t, h_max, xm, NULL) == NH_OK);
  double nd = 0.0, err = 0.0;
  for (int i = 0; i < nx; i++) {
    double fd = (xp[i] - xm[i]) / (2.0 * FD_EPS);
    nd = fmax(nd, fabs(dx[i]));
    err = fmax(err, fabs(fd - dx[i]));
    ENSURE_NEAR(x[i], xf[i], 1e-9 * fmax(1.0, fabs(xf[i])));
  }
  printf("  %s: %ld impacts to t = %g, |dx| %.3g, |tangent - difference| / |dx| = %.2e\n", m->name, imp, t, nd,
         err / nd);
  ENSURE(err <= FD_REL * nd);
  return 0;
}

/* the Sinai billiard: free flight, flat walls and the disk (curvature) */
static int test_fd_sinai(void) {
  const char *n[] = {"x", "y", "x'", "y'"};
  const double v[] = {0.3, 0.1, -0.95393920141694566, -0.3}; /* heading for the disk */
  nh_model *m = load(sinai_text(), 4, n, v, NULL);
  ENSURE(m);
  int r = check_fd(m, 2.5, SINAI_H_MAX, 4, 11);
  nh_model_destroy(m);
  return r;
}

/* the penny on the elliptical table: constraints, elastic impacts of both ends */
static int test_fd_penny(void) {
  nh_model *m = load(NHOLO_SOURCE_DIR "/examples/penny.nh", 0, NULL, NULL, NULL);
  ENSURE(m);
  int r = check_fd(m, 4.5, 0.0, 2, 12);
  nh_model_destroy(m);
  if (r) return r;
  const nh_impact_law plastic = {NH_IMPACT_PLASTIC, 1.0};
  ENSURE((m = load(NHOLO_SOURCE_DIR "/examples/penny.nh", 0, NULL, NULL, &plastic)));
  r = check_fd(m, 4.5, 0.0, 2, 13);
  nh_model_destroy(m);
  return r;
}

/* restitution under gravity: f+ differs from D_x R f- (the saltation's event term) */
static int test_fd_bouncing(void) {
  nh_model *m = load(NHOLO_SOURCE_DIR "/examples/bouncing_ball.nh", 0, NULL, NULL, NULL);
  ENSURE(m);
  int r = check_fd(m, 1.2, 0.0, 3, 14);
  nh_model_destroy(m);
  return r;
}

/* a velocity-dependent Coriolis term (M depends on q) and a potential: the exact d2M terms */
static int test_fd_smooth(void) {
  nh_model *m = parse("model pend2\ncoordinates a b\n"
                      "kinetic 1/2*(2*a'^2 + b'^2 + 2*cos(a - b)*a'*b')\n"
                      "potential -2*cos(a) - cos(b)\n"
                      "initial a = 1, b = -0.5, a' = 0.3, b' = 1.1\n");
  ENSURE(m);
  int r = check_fd(m, 3.0, 0.0, 0, 15);
  nh_model_destroy(m);
  return r;
}

/* a particle dropped on a dome (e = 0): the contact closes at the impact (the plastic closing's
 * saltation, the constrained vector field after it), the particle slides held on the curved
 * gap (the constrained flow's variational equation, its gap Hessian terms by differences),
 * the contact opens where the normal force vanishes (the tangent crosses unchanged), then free
 * flight; the tangent against differences of the ordinary run, which closes and opens too */
static int test_fd_dome(void) {
  nh_model *m = parse("model dome_drop\ncoordinates x y\nkinetic 1/2*(x'^2 + y'^2)\npotential 9.81*y\n"
                      "gap dome: sqrt(x^2 + y^2) - 1  impact restitution 0\ninitial x = 0.3, y = 1.5, x' = 0.2\n");
  ENSURE(m);
  int r = check_fd(m, 1.0, 0.0, 1, 16);
  // the run closed and opened the contact on the way
  nh_sim_def sd = nh_sim_def_default();
  nh_sim *s = nh_sim_create(m, &sd, NULL, 0);
  ENSURE(s && nh_sim_run(s, 1.0, 0, NULL, NULL) == NH_OK);
  nh_contact_record c0, c1;
  ENSURE(nh_sim_contact_count(s) == 2 && nh_sim_contact_get(s, 0, &c0) == NH_OK && nh_sim_contact_get(s, 1, &c1) == NH_OK);
  ENSURE(c0.kind == NH_CONTACT_CLOSE && c1.kind == NH_CONTACT_OPEN && c1.t - c0.t > 0.2);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return r;
}

/* an integrable linear flow (frequencies 1 and w): the tangent is the flow itself, its norm
 * stays within [1/w, w] of the start, so |lambda t| <= log w; the interval holds 0 */
static int test_integrable(void) {
  const double w = 1.6180339887498949;
  nh_model *m = parse("model osc\ncoordinates x y\nparameter w = 1.6180339887498949\n"
                      "kinetic 1/2*(x'^2 + y'^2)\npotential 1/2*x^2 + 1/2*w^2*y^2\n"
                      "initial x = 1, y = 0.5, x' = 0.3, y' = -0.2\n");
  ENSURE(m);
  nh_lyap_def d = nh_lyap_def_default();
  d.t_end = 1000.0;
  nh_lyap_result r;
  char msg[512];
  ENSURE(nh_lyapunov(m, &d, NULL, NULL, NULL, &r, msg, sizeof msg) == NH_OK);
  printf("  oscillator: lambda = %.3g +- %.3g over %g s\n", r.last.lambda, r.last.half_width, r.last.t);
  ENSURE(fabs(r.last.lambda) * r.last.t <= log(w));
  ENSURE(fabs(r.last.lambda) <= r.last.half_width);
  ENSURE(r.last.windows == 1000 && r.last.impacts == 0);
  nh_model_destroy(m);
  return 0;
}

/* the period-2 orbit on the x-axis of the Sinai table (disk radius R, wall at 1/2): unfolded,
 * a bounce between two disks a free path l = 2 (1/2 - R) apart; the transverse monodromy per
 * bounce has trace -(2 + 2 l / R), so lambda = log(|tr|/2 + sqrt(tr^2/4 - 1)) / l at unit
 * speed. y = y' = 0 stay exactly 0, so the orbit is followed for as long as we like. */
static int test_periodic_orbit(void) {
  const double R = 0.25, l = 2.0 * (0.5 - R), tr = 2.0 + 2.0 * l / R;
  const double exact = log(tr / 2.0 + sqrt(tr * tr / 4.0 - 1.0)) / l;
  const char *n[] = {"R", "x", "y", "x'", "y'"};
  const double v[] = {R, 0.4, 0.0, -1.0, 0.0};
  nh_model *m = load(sinai_text(), 5, n, v, NULL);
  ENSURE(m);
  nh_lyap_def d = nh_lyap_def_default();
  d.t_end = 50.0;
  d.window = 0.5;
  d.h_max = SINAI_H_MAX;
  d.transient = 5.0;
  nh_lyap_result r;
  char msg[512];
  ENSURE(nh_lyapunov(m, &d, NULL, NULL, NULL, &r, msg, sizeof msg) == NH_OK);
  printf("  period-2 orbit: lambda = %.12g +- %.2g, closed form %.12g, %ld impacts\n", r.last.lambda,
         r.last.half_width, exact, r.last.impacts);
  ENSURE_REL(r.last.lambda, exact, 1e-8);
  ENSURE(fabs(r.last.lambda - exact) <= r.last.half_width + 1e-8 * exact);
  ENSURE(r.last.impacts == 2 * 110);
  nh_model_destroy(m);
  return 0;
}

/* The Sinai billiard (unit square, disk R at its centre) against Dahlqvist (Nonlinearity 10
 * (1997) 159): the disk-to-disk map's exponent -2 log R + C + O(R log^2 R), C = 1 - 4 log 2 +
 * 27 zeta(3) / (2 pi^2), over the mean free time (1 - pi R^2) / (2 R) (Abramov). The
 * O(R log^2 R) remainder is taken as its size, once. */
static int test_sinai_published(void) {
  const double R = 0.05, zeta3 = 1.2020569031595943;
  const double C = 1.0 - 4.0 * log(2.0) + 27.0 / (2.0 * PI * PI) * zeta3;
  const double tau = (1.0 - PI * R * R) / (2.0 * R);
  const double pub = (-2.0 * log(R) + C) / tau, rem = R * log(R) * log(R) / tau;
  nh_model *m = load(sinai_text(), 0, NULL, NULL, NULL);
  ENSURE(m);
  // with steps below R, and free (the graze search finds a step's jump over the disk's edge)
  for (int k = 0; k < 2; k++) {
    nh_lyap_def d = nh_lyap_def_default();
    d.t_end = 5000.0;
    d.h_max = k == 0 ? SINAI_H_MAX : 0.0;
    nh_lyap_result r;
    char msg[512];
    ENSURE(nh_lyapunov(m, &d, NULL, NULL, NULL, &r, msg, sizeof msg) == NH_OK);
    printf("  Sinai R = %g, h_max %g: lambda = %.4g +- %.2g, published %.4g (remainder %.2g), %ld impacts\n", R,
           d.h_max, r.last.lambda, r.last.half_width, pub, rem, r.last.impacts);
    ENSURE(fabs(r.last.lambda - pub) <= r.last.half_width + rem);
    ENSURE(r.last.lambda > 0.3);
  }
  nh_model_destroy(m);
  return 0;
}

/* bad input: one message, NH_ERR_ARG, nothing run */
static int test_bad_input(void) {
  nh_model *m = load(sinai_text(), 0, NULL, NULL, NULL);
  ENSURE(m);
  nh_lyap_def d = nh_lyap_def_default();
  nh_lyap_result r;
  char msg[512];
  d.window = 0.0;
  ENSURE(nh_lyapunov(m, &d, NULL, NULL, NULL, &r, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(strstr(msg, "window > 0") != NULL);
  d = nh_lyap_def_default();
  d.batches = 1;
  ENSURE(nh_lyapunov(m, &d, NULL, NULL, NULL, &r, msg, sizeof msg) == NH_ERR_ARG);
  nh_lyap_def raw;
  memset(&raw, 0, sizeof raw);
  ENSURE(nh_lyapunov(m, &raw, NULL, NULL, NULL, &r, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(strcmp(msg, "no model, or options not from nh_lyap_def_default") == 0);
  d = nh_lyap_def_default();
  const double zero[4] = {0, 0, 0, 0};
  d.dx0 = zero;
  ENSURE(nh_lyapunov(m, &d, NULL, NULL, NULL, &r, msg, sizeof msg) == NH_ERR_ARG);
  ENSURE(strcmp(msg, "the initial tangent is zero or not finite") == 0);
  ENSURE_NEAR(nh_lyap_student_t975(9), 2.262, 1e-12);
  ENSURE(fabs(nh_lyap_student_t975(40) - 2.021) < 1e-3);
  nh_model_destroy(m);
  return 0;
}

/* The bouncing ball (e = 0.5) closes its floor contact where its impacts accumulate and slides
 * on (issue 27: the tangent run used to bounce on, 27 impacts to t = 100 against 21). The
 * tangent run goes through the driver's rules: with the ordinary run's method and tolerances
 * its impacts (21, the accumulation's included), its one closing and its state are the
 * run's. Its tangent has a closed form: x = x0 + vx t whatever the bounces, and the closing
 * removes dy, dvy (every nearby orbit closes too; the held flow keeps them 0), so from dx0 at
 * t = 0, dx(T) = (dx0 + T dvx0, 0, dvx0, 0), and lambda(T) = log |dx(T)| / T (the windows'
 * renormalisations telescope) for a unit dx0. */
#define CONTACT_TAN_TOL 1e-12 /* the tangent's closed form: rounding of the saltations */
static int test_contact_ball(void) {
  nh_model *m = load(NHOLO_SOURCE_DIR "/examples/bouncing_ball.nh", 0, NULL, NULL, NULL);
  ENSURE(m);
  nh_lyap_def d = nh_lyap_def_default();
  const double dx0[4] = {0.5, 0.5, 0.5, 0.5}, T = 10.0;
  double x[4], dx[4];
  long imp = 0;
  char msg[512];
  int rc = nh_lyap_propagate(m, &d, NULL, dx0, T, x, dx, &imp, msg, sizeof msg);
  if (rc) printf("  propagate: %s\n", msg);
  ENSURE(rc == NH_OK);
  // the ordinary run, same method and tolerances
  nh_sim_def sd = nh_sim_def_default();
  sd.method = nh_method_find("dop853");
  sd.rtol = d.rtol, sd.atol = d.atol, sd.h = 0.0;
  nh_sim *s = nh_sim_create(m, &sd, NULL, 0);
  ENSURE(s && nh_sim_run(s, T, 0, NULL, NULL) == NH_OK);
  nh_contact_record c;
  ENSURE(nh_sim_contact_count(s) == 1 && nh_sim_contact_get(s, 0, &c) == NH_OK && c.kind == NH_CONTACT_CLOSE);
  printf("  bouncing ball to t = %g: tangent run %ld impacts, run %ld (closed at %.12g); x %.17g, y %.3g; dx "
         "(%.17g, %.3g, %.17g, %.3g)\n", T, imp, nh_sim_get_stats(s)->impacts, c.t, x[0], x[1], dx[0], dx[1], dx[2], dx[3]);
  ENSURE(imp == nh_sim_get_stats(s)->impacts && imp == 21);
  for (int i = 0; i < 4; i++) ENSURE_NEAR(x[i], nh_sim_x(s)[i], 1e-9);
  ENSURE_NEAR(dx[0], dx0[0] + T * dx0[2], CONTACT_TAN_TOL * T);
  ENSURE_NEAR(dx[2], dx0[2], CONTACT_TAN_TOL);
  ENSURE(fabs(dx[1]) <= CONTACT_TAN_TOL && fabs(dx[3]) <= CONTACT_TAN_TOL);
  nh_sim_destroy(s);
  // the estimate over 100 windows of 1 s: the closed form, one closing, 21 impacts
  d.t_end = 100.0;
  d.dx0 = dx0;
  nh_lyap_result r;
  ENSURE(nh_lyapunov(m, &d, NULL, NULL, NULL, &r, msg, sizeof msg) == NH_OK);
  const double exact = log(0.5 * sqrt((1.0 + d.t_end) * (1.0 + d.t_end) + 1.0)) / d.t_end;
  printf("  lambda(100) = %.15g, closed form %.15g; %ld impacts, %ld contacts closed\n", r.last.lambda, exact,
         r.last.impacts, r.contacts);
  ENSURE_REL(r.last.lambda, exact, 1e-10);
  ENSURE(r.last.impacts == 21 && r.contacts == 1);
  // without contacts the impacts accumulate: the run stalls at the Zeno point, as the driver's
  d.contact = 0;
  rc = nh_lyapunov(m, &d, NULL, NULL, NULL, &r, msg, sizeof msg);
  printf("  no contacts: %s at t = %.15g (%s)\n", nh_status_name(rc), r.t_stop, msg);
  ENSURE(rc != NH_OK && fabs(r.t_stop - 1.3545709229572) < 1e-9 && r.contacts == 0);
  nh_model_destroy(m);
  return 0;
}

/* Two ends of the closing map. The ball started on the floor (y = 0, x' = 0.3) closes at a
 * graze (no impact, nh_tan_close_graze): its tangent is the sliding ball's closed form,
 * dx(T) = (dx0 + T dvx0, 0, dvx0, 0). The pendulum resting against its wall (d = -0.3: gravity
 * presses it on the wall) has one coordinate and one held contact: no free direction, the
 * tangent collapses to 0 where the contact closes (every nearby orbit comes to this rest);
 * nh_lyap_propagate carries dx = 0 on, nh_lyapunov ends with NH_CONTACT and the estimate over
 * the windows before the closing. */
static int test_contact_rest(void) {
  const char *yn[] = {"y"};
  const double y0[] = {0.0}, dx0[4] = {0.5, 0.5, 0.5, 0.5}, T = 10.0;
  nh_model *m = load(NHOLO_SOURCE_DIR "/examples/bouncing_ball.nh", 1, yn, y0, NULL);
  ENSURE(m);
  nh_lyap_def d = nh_lyap_def_default();
  double x[4], dx[4];
  long imp = 0;
  char msg[512];
  ENSURE(nh_lyap_propagate(m, &d, NULL, dx0, T, x, dx, &imp, msg, sizeof msg) == NH_OK);
  printf("  ball on the floor: %ld impacts, x %.17g, dx (%.17g, %.3g, %.17g, %.3g)\n", imp, x[0], dx[0], dx[1], dx[2], dx[3]);
  ENSURE(imp == 0 && fabs(x[1]) <= CONTACT_TAN_TOL);
  ENSURE_NEAR(dx[0], dx0[0] + T * dx0[2], CONTACT_TAN_TOL * T);
  ENSURE_NEAR(dx[2], dx0[2], CONTACT_TAN_TOL);
  ENSURE(fabs(dx[1]) <= CONTACT_TAN_TOL && fabs(dx[3]) <= CONTACT_TAN_TOL);
  nh_model_destroy(m);
  const char *dn[] = {"d"};
  const double dv[] = {-0.3}, one[2] = {1.0, 0.0};
  ENSURE((m = load(NHOLO_SOURCE_DIR "/examples/pendulum_wall.nh", 1, dn, dv, NULL)));
  ENSURE(nh_lyap_propagate(m, &d, NULL, one, 20.0, x, dx, &imp, msg, sizeof msg) == NH_OK);
  ENSURE(dx[0] == 0.0 && dx[1] == 0.0 && fabs(x[0] - asin(0.3)) < 1e-12);
  nh_lyap_result r;
  d.t_end = 100.0;
  ENSURE(nh_lyapunov(m, &d, NULL, NULL, NULL, &r, msg, sizeof msg) == NH_CONTACT);
  printf("  pendulum at rest on its wall (%ld impacts): %s\n", r.last.impacts, msg);
  ENSURE(r.contacts == 1 && r.last.windows == 6 && strstr(msg, "the tangent collapsed at t = 6.05") != NULL);
  nh_model_destroy(m);
  return 0;
}

/* two gaps closing at once (Newton's cradle at its start): refused, with the gaps named */
static int test_simultaneous(void) {
  nh_model *m = load(NHOLO_SOURCE_DIR "/examples/cradle3.nh", 0, NULL, NULL, NULL);
  ENSURE(m);
  nh_lyap_def d = nh_lyap_def_default();
  nh_lyap_result r;
  char msg[512];
  ENSURE(nh_lyapunov(m, &d, NULL, NULL, NULL, &r, msg, sizeof msg) == NH_ERR_UNSUPPORTED);
  ENSURE(strcmp(msg, "simultaneous impact on gaps 'left' and 'right' at t = 0: the tangent map is not defined there") == 0);
  ENSURE(r.last.windows == 0 && r.status == NH_ERR_UNSUPPORTED);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_fd_smooth);
  RUN_TEST(test_fd_sinai);
  RUN_TEST(test_fd_bouncing);
  RUN_TEST(test_fd_penny);
  RUN_TEST(test_fd_dome);
  RUN_TEST(test_integrable);
  RUN_TEST(test_periodic_orbit);
  RUN_TEST(test_sinai_published);
  RUN_TEST(test_bad_input);
  RUN_TEST(test_simultaneous);
  RUN_TEST(test_contact_ball);
  RUN_TEST(test_contact_rest);
  return TEST_SUMMARY();
}
