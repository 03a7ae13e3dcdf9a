/* test_whipple.c - the Whipple bicycle of examples/whipple_bicycle.nh against the benchmark of
 * Meijaard, Papadopoulos, Ruina & Schwab (Proc. R. Soc. A 463 (2007) 1955-1982):
 *
 *  - the nonlinear model, linearised about the upright straight run at speed v by central
 *    differences of its accelerations (nh_model_accel) on the constraint manifold, has the
 *    eigenvalues of the benchmark's linear equations M q'' + v C1 q' + (g K0 + v^2 K2) q = 0
 *    (its eq. 5.4 matrices, computed here at each speed; at v = 5 they give Table 2's values),
 *    and its weave and capsize speeds are the paper's 4.292382536 and 6.024262015 m/s;
 *  - the file's default run (4.6 m/s, a lean-rate kick of 0.5 rad/s) by dop853 to T = 10: the
 *    lean and steer decay at the rate of the slowest linear mode, the energy is conserved, the
 *    constraints and the front wheel's ground contact hold. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "la/la.h"
#include "nholo/nholo.h"

/* after the library's headers, whose structs have members named I */
#include <complex.h>
#undef I
#define IM _Complex_I

#ifndef NHOLO_SOURCE_DIR
#define NHOLO_SOURCE_DIR "."
#endif
#ifndef NHOLO_TEST_CACHE
#define NHOLO_TEST_CACHE "nholo-test-cache"
#endif

/* The benchmark's linear matrices (Meijaard et al. 2007, eq. 5.4, 14 digits) */
static const double BM_M[4] = {80.81722, 2.31941332208709, 2.31941332208709, 0.29784188199686};
static const double BM_C1[4] = {0.0, 33.86641391492494, -0.85035641456978, 1.68540397397560};
static const double BM_K0[4] = {-80.95, -2.59951685249872, -2.59951685249872, -0.80329488458618};
static const double BM_K2[4] = {0.0, 76.59734589573222, 0.0, 2.65431523794604};
static const double BM_G = 9.81;
/* Table 2 at v = 5 m/s (castering, weave pair, capsize) and the paper's weave and capsize
 * speeds (sec. 5, 10 digits) */
static const double BM_T2_V5_RE[4] = {-14.07838969279822, -0.77534188219585, -0.77534188219585, -0.32286642900409};
static const double BM_T2_V5_IM[4] = {0.0, 4.46486771378823, -4.46486771378823, 0.0};
static const double BM_V_WEAVE = 4.292382536, BM_V_CAPSIZE = 6.024262015;

/* our eigenvalues of the benchmark matrices against Table 2 (root finding only: 1e-13
 * measured) */
#define WH_TABLE_TOL 1e-11
/* the linearised nonlinear model's eigenvalues against the benchmark matrices', relative to
 * max(1, |lambda|): central differences with step WH_FD_STEP have an error of about
 * h^2 |f'''| + eps |f| / h, some 1e-9 here (measured at most 2.8e-10 over v = 0 ... 10) */
#define WH_EIG_TOL 1e-8
/* the central-difference step in the lean, steer and their rates (rad, rad/s) */
#define WH_FD_STEP 1e-5
/* weave and capsize speeds of the linearised nonlinear model against the paper's 10 digits
 * (measured 1.2e-10 and 1.4e-10 m/s off) */
#define WH_SPEED_TOL 5e-9
/* the pitch that puts the front wheel on the ground: Newton to this height (m) */
#define WH_PITCH_TOL 1e-15
/* dop853's tolerances for the T = 10 run */
#define WH_DOP_RTOL 1e-11
#define WH_DOP_ATOL 1e-11
/* the run's relative energy error (measured 1.3e-12) */
#define WH_ENERGY_TOL 5e-11
/* the run's |A v| (measured 6.9e-12) and the drift of the front wheel's height above the
 * ground, which the velocity form of the holonomic constraint lets through (measured
 * 4.2e-13 m) */
#define WH_RESIDUAL_TOL 1e-10
#define WH_HEIGHT_TOL 1e-11
/* the lean's decay over the run: its largest |phi| for t >= 8 against that for t <= 2
 * (measured 0.033; the slowest linear mode at 4.6 m/s, exp(-0.378 * 8) = 0.049) */
#define WH_DECAY_MAX 0.05
/* the decay rate of the lean's envelope from [4, 5) s to [9, 10) s against the slowest
 * linear mode's real part (measured -0.3790 against -0.3780 1/s) */
#define WH_RATE_REL_TOL 0.02

/* ---- eigenvalues of a quartic and of a 4 x 4 matrix ---------------------------------- */

/* the roots of z^4 + c[3] z^3 + c[2] z^2 + c[1] z + c[0] (Durand-Kerner, then Newton) */
static void quartic_roots(const double *c, double complex *z) {
  const double complex seed = 0.4 + 0.9 * IM;
  double scale = 1.0;
  for (int i = 0; i < 4; i++) scale = fmax(scale, pow(fabs(c[i]), 1.0 / (4 - i)));
  for (int i = 0; i < 4; i++) z[i] = scale * cpow(seed, i);
  for (int it = 0; it < 500; it++) {
    double moved = 0.0;
    for (int i = 0; i < 4; i++) {
      double complex p = 1.0, den = 1.0;
      for (int k = 3; k >= 0; k--) p = p * z[i] + c[k];
      for (int j = 0; j < 4; j++)
        if (j != i) den *= z[i] - z[j];
      const double complex dz = p / den;
      z[i] -= dz;
      moved = fmax(moved, cabs(dz) / fmax(1.0, cabs(z[i])));
    }
    if (moved < 1e-16) break;
  }
  for (int i = 0; i < 4; i++) /* polish */
    for (int it = 0; it < 3; it++) {
      double complex p = 1.0, dp = 0.0;
      for (int k = 3; k >= 0; k--) dp = dp * z[i] + p, p = p * z[i] + c[k];
      if (cabs(dp) > 0.0) z[i] -= p / dp;
    }
}

/* the characteristic polynomial of a 4 x 4 matrix (Faddeev-LeVerrier), monic, and its roots */
static void eig4(const double *J, double complex *z) {
  double Mk[16] = {0}, AM[16], c[4];
  double ck = 1.0; /* c_4 */
  for (int k = 1; k <= 4; k++) {
    /* M_k = A M_{k-1} + c_{n-k+1} I */
    double next[16];
    if (k == 1) {
      memset(next, 0, sizeof next);
    } else {
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
          double s = 0.0;
          for (int l = 0; l < 4; l++) s += J[4 * i + l] * Mk[4 * l + j];
          next[4 * i + j] = s;
        }
    }
    for (int i = 0; i < 4; i++) next[5 * i] += ck;
    memcpy(Mk, next, sizeof Mk);
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) {
        double s = 0.0;
        for (int l = 0; l < 4; l++) s += J[4 * i + l] * Mk[4 * l + j];
        AM[4 * i + j] = s;
      }
    ck = -(AM[0] + AM[5] + AM[10] + AM[15]) / k;
    c[4 - k] = ck;
  }
  quartic_roots(c, z);
}

/* the eigenvalues of the benchmark's linear equations at speed v: the roots of
 * det(M s^2 + v C1 s + g K0 + v^2 K2) = 0 */
static void benchmark_eigs(double v, double complex *z) {
  double p[3][4]; /* the entries of the 2 x 2 matrix polynomial, coefficients of s^0, s^1, s^2 */
  for (int e = 0; e < 4; e++) {
    p[0][e] = BM_G * BM_K0[e] + v * v * BM_K2[e];
    p[1][e] = v * BM_C1[e];
    p[2][e] = BM_M[e];
  }
  double d[5] = {0}; /* det = a00 a11 - a01 a10 as a polynomial in s */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) d[i + j] += p[i][0] * p[j][3] - p[i][1] * p[j][2];
  double c[4];
  for (int k = 0; k < 4; k++) c[k] = d[k] / d[4];
  quartic_roots(c, z);
}

/* the largest distance from each of want to the nearest of got, relative to max(1, |want|) */
static double eig_distance(const double complex *got, const double complex *want) {
  double worst = 0.0;
  for (int i = 0; i < 4; i++) {
    double best = INFINITY;
    for (int j = 0; j < 4; j++) best = fmin(best, cabs(got[j] - want[i]));
    worst = fmax(worst, best / fmax(1.0, cabs(want[i])));
  }
  return worst;
}

static double max_real(const double complex *z) {
  double r = -INFINITY;
  for (int i = 0; i < 4; i++) r = fmax(r, creal(z[i]));
  return r;
}

/* ---- the model ------------------------------------------------------------------------- */

enum { QX, QY, QPSI, QPHI, QTHETA, QDELTA, QTHR, QTHF, NQ };

static nh_model *load_bike(void) {
  char path[1024], msg[2048];
  snprintf(path, sizeof path, "%s/examples/whipple_bicycle.nh", NHOLO_SOURCE_DIR);
  nh_load_opts o = nh_load_opts_default();
  o.cache_dir = NHOLO_TEST_CACHE;
  nh_model *m = nh_model_load(path, &o, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  return m;
}

static double param(const nh_model *m, const char *name) {
  for (int i = 0; i < m->npar; i++)
    if (strcmp(m->param_names[i], name) == 0) return m->param_values[i];
  return NAN;
}

/* the geometry the front wheel's ground contact needs */
typedef struct bike_geom {
  double w, c, lam, rR, rF;
} bike_geom;

static bike_geom geom_of(const nh_model *m) {
  bike_geom g = {param(m, "w"), param(m, "c"), param(m, "lam"), param(m, "rR"), param(m, "rF")};
  return g;
}

/* the height above the ground of the front wheel's lowest point (the file's holonomic
 * constraint, from the same geometry: the front wheel centre S + R(delta) (-c, 0, -rF) in the
 * rear frame's axes from the rear wheel centre, the axle R(delta) e_y) */
static double front_height(const bike_geom *g, const double *q) {
  const double sl = sin(g->lam), cl = cos(g->lam);
  const double cph = cos(q[QPHI]), sph = sin(q[QPHI]), cth = cos(q[QTHETA]), sth = sin(q[QTHETA]);
  const double cde = cos(q[QDELTA]), sde = sin(q[QDELTA]);
  const double R11 = cde + (1 - cde) * sl * sl, R13 = (1 - cde) * sl * cl, R21 = sde * cl, R23 = -sde * sl;
  const double R31 = (1 - cde) * sl * cl, R33 = cde + (1 - cde) * cl * cl;
  const double R12 = -sde * cl, R22 = cde, R32 = sde * sl;
  const double fx = -g->c, fz = -g->rF;
  const double p1 = g->w + g->c + R11 * fx + R13 * fz, p2 = R21 * fx + R23 * fz, p3 = g->rR + R31 * fx + R33 * fz;
  const double ez1 = -cph * sth, ez2 = sph, ez3 = cph * cth;
  const double az = ez1 * R12 + ez2 * R22 + ez3 * R32;
  return g->rR * cph - (ez1 * p1 + ez2 * p2 + ez3 * p3) - g->rF * sqrt(1.0 - az * az);
}

/* the pitch that puts the front wheel on the ground at q's lean and steer (Newton from q's) */
static int solve_pitch(const bike_geom *g, double *q) {
  for (int it = 0; it < 50; it++) {
    const double h = front_height(g, q);
    if (fabs(h) <= WH_PITCH_TOL) return 0;
    const double th = q[QTHETA], e = 1e-7;
    q[QTHETA] = th + e;
    const double hp = front_height(g, q);
    q[QTHETA] = th - e;
    const double hm = front_height(g, q);
    q[QTHETA] = th - h / ((hp - hm) / (2 * e));
  }
  return -1;
}

/* the velocities on the constraints with the given lean and steer rates and rear wheel rate:
 * the other five (x', y', psi', theta', thetaF') from the five rows A v = 0 */
static int solve_velocities(const nh_model *m, const double *q, double *v) {
  static const int free_[5] = {QX, QY, QPSI, QTHETA, QTHF};
  double A[5 * NQ], B[25], b[5];
  int piv[5];
  if (m->nc != 5 || m->constraint(q, v, A, NULL, m->user) != 0) return -1;
  for (int i = 0; i < 5; i++) {
    b[i] = -(A[i * NQ + QPHI] * v[QPHI] + A[i * NQ + QDELTA] * v[QDELTA] + A[i * NQ + QTHR] * v[QTHR]);
    for (int j = 0; j < 5; j++) B[5 * i + j] = A[i * NQ + free_[j]];
  }
  if (nh_la_lu(5, B, piv, 0.0) != 0) return -1;
  nh_la_lu_solve(5, B, piv, b);
  for (int j = 0; j < 5; j++) v[free_[j]] = b[j];
  return 0;
}

/* the state on the manifold at lean and steer z[0], z[1], their rates z[2], z[3], and the
 * speed vel (rear wheel rate -vel/rR), heading along x */
static int state_at(const nh_model *m, const bike_geom *g, const double *z, double vel, double *q, double *v) {
  memset(q, 0, NQ * sizeof *q);
  memset(v, 0, NQ * sizeof *v);
  q[QPHI] = z[0], q[QDELTA] = z[1];
  v[QPHI] = z[2], v[QDELTA] = z[3], v[QTHR] = -vel / g->rR;
  if (solve_pitch(g, q) != 0) return -1;
  return solve_velocities(m, q, v);
}

/* the lean and steer accelerations at the reduced state z */
static int lean_steer_accel(const nh_model *m, const bike_geom *g, const double *z, double vel, double *out) {
  double q[NQ], v[NQ], a[NQ], lam[5];
  if (state_at(m, g, z, vel, q, v) != 0) return -1;
  if (nh_model_accel(m, 0.0, q, v, a, lam, NULL) != NH_OK) return -1;
  out[0] = a[QPHI], out[1] = a[QDELTA];
  return 0;
}

/* the Jacobian of (phi, delta, phi', delta')' at the upright straight run, by central
 * differences, and its eigenvalues */
static int linear_eigs(const nh_model *m, const bike_geom *g, double vel, double complex *z) {
  double J[16] = {0};
  J[0 * 4 + 2] = 1.0, J[1 * 4 + 3] = 1.0;
  for (int k = 0; k < 4; k++) {
    double zp[4] = {0}, zm[4] = {0}, ap[2], am[2];
    zp[k] = WH_FD_STEP, zm[k] = -WH_FD_STEP;
    if (lean_steer_accel(m, g, zp, vel, ap) != 0 || lean_steer_accel(m, g, zm, vel, am) != 0) return -1;
    J[2 * 4 + k] = (ap[0] - am[0]) / (2 * WH_FD_STEP);
    J[3 * 4 + k] = (ap[1] - am[1]) / (2 * WH_FD_STEP);
  }
  eig4(J, z);
  return 0;
}

/* ---- tests ------------------------------------------------------------------------------- */

/* the reference itself: the benchmark matrices' eigenvalues at 5 m/s are Table 2's, and their
 * largest real part changes sign at the paper's weave and capsize speeds */
static int test_whipple_reference(void) {
  double complex z[4], want[4];
  benchmark_eigs(5.0, z);
  for (int i = 0; i < 4; i++) want[i] = BM_T2_V5_RE[i] + BM_T2_V5_IM[i] * IM;
  const double d = eig_distance(z, want);
  printf("  benchmark matrices at v = 5 against Table 2: %.2e\n", d);
  ENSURE(d <= WH_TABLE_TOL);
  benchmark_eigs(0.5 * (BM_V_WEAVE + BM_V_CAPSIZE), z);
  ENSURE(max_real(z) < 0.0);
  benchmark_eigs(BM_V_WEAVE - 1e-6, z);
  ENSURE(max_real(z) > 0.0);
  benchmark_eigs(BM_V_WEAVE + 1e-6, z);
  ENSURE(max_real(z) < 0.0);
  benchmark_eigs(BM_V_CAPSIZE + 1e-6, z);
  ENSURE(max_real(z) > 0.0);
  return 0;
}

/* the linearised nonlinear model's eigenvalues against the benchmark's from 0 to 10 m/s */
static int test_whipple_eigenvalues(void) {
  nh_model *m = load_bike();
  ENSURE(m && m->nq == NQ && m->nc == 5);
  const bike_geom g = geom_of(m);
  double worst = 0.0;
  for (int k = 0; k <= 20; k++) {
    const double vel = 0.5 * k;
    double complex got[4], want[4];
    ENSURE(linear_eigs(m, &g, vel, got) == 0);
    benchmark_eigs(vel, want);
    const double d = eig_distance(got, want);
    if (k == 8 || k == 10) {
      printf("  v = %.0f:", vel);
      for (int i = 0; i < 4; i++) printf(" %.10f%+.10fi", creal(got[i]), cimag(got[i]));
      printf("\n    benchmark");
      for (int i = 0; i < 4; i++) printf(" %.10f%+.10fi", creal(want[i]), cimag(want[i]));
      printf(" (%.1e)\n", d);
    }
    worst = fmax(worst, d);
  }
  printf("  largest eigenvalue difference over v = 0, 0.5, ..., 10: %.2e\n", worst);
  ENSURE(worst <= WH_EIG_TOL);
  nh_model_destroy(m);
  return 0;
}

/* where the largest real part of the linearised nonlinear model changes sign, by bisection */
static int crossing(const nh_model *m, const bike_geom *g, double a, double b, double *speed) {
  double complex z[4];
  if (linear_eigs(m, g, a, z) != 0) return -1;
  const int sa = max_real(z) > 0.0;
  if (linear_eigs(m, g, b, z) != 0 || (max_real(z) > 0.0) == sa) return -1;
  while (b - a > 1e-12) {
    const double c = 0.5 * (a + b);
    if (linear_eigs(m, g, c, z) != 0) return -1;
    if ((max_real(z) > 0.0) == sa) a = c;
    else b = c;
  }
  *speed = 0.5 * (a + b);
  return 0;
}

static int test_whipple_stable_speeds(void) {
  nh_model *m = load_bike();
  ENSURE(m);
  const bike_geom g = geom_of(m);
  double weave, capsize;
  ENSURE(crossing(m, &g, 4.0, 4.6, &weave) == 0);
  ENSURE(crossing(m, &g, 5.5, 6.5, &capsize) == 0);
  printf("  weave speed %.12f (paper %.9f), capsize speed %.12f (paper %.9f)\n", weave, BM_V_WEAVE, capsize,
         BM_V_CAPSIZE);
  ENSURE_NEAR(weave, BM_V_WEAVE, WH_SPEED_TOL);
  ENSURE_NEAR(capsize, BM_V_CAPSIZE, WH_SPEED_TOL);
  nh_model_destroy(m);
  return 0;
}

/* the run's record: the lean envelope in windows, the worst errors */
typedef struct bike_track {
  bike_geom g;
  double E0, energy, residual, height;
  double lean_early, lean_late, lean_t4, lean_t[64];
  long samples;
} bike_track;

static int track(const nh_sim *sim, nh_sample_kind kind, double t, const double *q, const double *v, void *user) {
  (void)kind;
  bike_track *b = user;
  const nh_model *m = nh_sim_model(sim);
  double E, res;
  if (nh_model_energy(m, q, v, &E) != NH_OK || nh_model_constraint_residual(m, q, v, &res) != NH_OK) return -1;
  b->energy = fmax(b->energy, fabs(E - b->E0) / b->E0);
  b->residual = fmax(b->residual, res);
  b->height = fmax(b->height, fabs(front_height(&b->g, q)));
  const double lean = fabs(q[QPHI]);
  if (t <= 2.0) b->lean_early = fmax(b->lean_early, lean);
  if (t >= 8.0) b->lean_late = fmax(b->lean_late, lean);
  const int w = (int)floor(t); /* the envelope per second */
  if (w >= 0 && w < 64) b->lean_t[w] = fmax(b->lean_t[w], lean);
  b->samples++;
  return 0;
}

/* the file's run: upright at 4.6 m/s with a lean-rate kick, dop853 to T = 10 */
static int test_whipple_run(void) {
  nh_model *m = load_bike();
  ENSURE(m);
  bike_track b = {0};
  b.g = geom_of(m);
  const double vel = param(m, "v0");
  ENSURE(vel == 4.6 && param(m, "phidot0") == 0.5);
  ENSURE(nh_model_energy(m, m->q0, m->v0, &b.E0) == NH_OK);
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("dop853");
  d.rtol = WH_DOP_RTOL, d.atol = WH_DOP_ATOL;
  d.out_dt = 1e-3;
  char msg[512];
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  ENSURE(s);
  ENSURE(nh_sim_run(s, 10.0, 0, track, &b) == NH_OK);
  ENSURE(nh_sim_time(s) == 10.0 && b.samples >= 10000);
  /* the slowest linear mode at this speed */
  double complex z[4];
  benchmark_eigs(vel, z);
  const double slowest = max_real(z);
  const double rate = log(b.lean_t[9] / b.lean_t[4]) / 5.0;
  printf("  E0 = %.6f J: max relative energy error %.2e, |A v| %.2e, front wheel height %.2e m\n", b.E0, b.energy,
         b.residual, b.height);
  printf("  lean envelope %.4f rad (t <= 2) -> %.6f rad (t >= 8), ratio %.4f (slowest mode exp(%.4f * 8) = %.4f)\n",
         b.lean_early, b.lean_late, b.lean_late / b.lean_early, slowest, exp(8.0 * slowest));
  printf("  envelope decay rate from [4, 5) to [9, 10): %.4f 1/s (slowest mode %.4f)\n", rate, slowest);
  ENSURE(b.energy <= WH_ENERGY_TOL);
  ENSURE(b.residual <= WH_RESIDUAL_TOL);
  ENSURE(b.height <= WH_HEIGHT_TOL);
  ENSURE(slowest < 0.0);
  ENSURE(b.lean_late <= WH_DECAY_MAX * b.lean_early);
  ENSURE(fabs(rate - slowest) <= WH_RATE_REL_TOL * fabs(slowest));
  /* the envelope falls second by second */
  for (int k = 1; k < 10; k++) ENSURE(b.lean_t[k] < b.lean_t[k - 1]);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_whipple_reference);
  RUN_TEST(test_whipple_eigenvalues);
  RUN_TEST(test_whipple_stable_speeds);
  RUN_TEST(test_whipple_run);
  return TEST_SUMMARY();
}
