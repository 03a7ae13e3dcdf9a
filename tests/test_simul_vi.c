/* test_simul_vi.c - impacts inside del's variational step (spec 003 sec. 3, src/sim/vi_impact.c,
 * docs/simultaneous-impacts.md "Impacts inside the variational step"): the cradle with a gap
 * (T13), the rod dropped flat under gravity (T14), the pendulum against a wall (T15: impact
 * time, energy and trajectory converging at second order through the impact), two impacts in
 * one step, the chattering ball, rod and damped leg switched to plastic and then to a
 * persistent contact (T20), the nodes on the grid t_k + h, the discrete energy and momentum
 * across elastic impacts (a q-dependent M too), a particle between walls (every crossing
 * found), and the restart mode and the mode's refusals. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "nholo/nholo.h"
#include "contact_models.h" /* after nholo.h: parse */

#define G 9.81

static nh_sim *make(const nh_model *m, const char *method, double h, int mode, int order, int midpoint) {
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find(method);
  d.h = h;
  d.impact_step = mode;
  d.simul_order = order;
  d.opts.midpoint_ld = midpoint;
  char msg[512];
  nh_sim *s = nh_sim_create(m, &d, msg, sizeof msg);
  if (!s) printf("  %s\n", msg);
  return s;
}

/* what the observer records: the start, the step ends and the states after impacts (the end of a
 * step split at an impact is reported as the impact) */
#define MAX_NODES 4096
typedef struct trace {
  int n, nq;
  double t[MAX_NODES], q[MAX_NODES][3], v[MAX_NODES][3];
} trace;

static int record(const nh_sim *s, nh_sample_kind kind, double t, const double *q, const double *v, void *user) {
  trace *tr = user;
  (void)s;
  if ((kind != NH_SAMPLE_STEP && kind != NH_SAMPLE_START && kind != NH_SAMPLE_IMPACT_AFTER) || tr->n >= MAX_NODES)
    return 0;
  tr->t[tr->n] = t;
  for (int i = 0; i < tr->nq; i++) tr->q[tr->n][i] = q[i], tr->v[tr->n][i] = v[i];
  tr->n++;
  return 0;
}

/* 1 when t is a grid node k h (to rounding) or one of the nt times in ts */
static int on_grid(double t, double h, const double *ts, int nt) {
  if (fabs(t / h - nearbyint(t / h)) <= 1e-9) return 1;
  for (int i = 0; i < nt; i++)
    if (fabs(t - ts[i]) <= 1e-12) return 1;
  return 0;
}

/* the cradle of spec 003 T13: balls of radius 0.5 and mass 1, B and C touching at rest, A at
 * speed 1 arriving at t* = 0.0537 (xc0 = 1); xc0 = 1.003: C 0.003 away, hit 0.003 later in
 * the same step */
static nh_model *gap_cradle(double xc0) {
  char text[512];
  snprintf(text, sizeof text,
           "model gapcradle\ncoordinates xa xb xc\nkinetic 1/2*(xa'^2 + xb'^2 + xc'^2)\n"
           "gap ab: xb - xa - 1  impact elastic\ngap bc: xc - xb - 1  impact elastic\n"
           "initial xa = -1.0537, xb = 0, xc = %.17g, xa' = 1\n",
           xc0);
  return parse(text);
}

/* T13: one simultaneous event at t* = 0.0537 (ab, bc; sequence ab, bc), v+ = (0, 0, 1), energy
 * 0.5 before and after to 1e-14; q(0.2) = (-1, 0, 1.1463); every node on the grid k h except
 * the impact's; the total discrete momentum 1 at every node (translation symmetry) */
static int test_t13(void) {
  nh_model *m = gap_cradle(1.0);
  ENSURE(m);
  nh_sim *s = make(m, "del", 0.01, NH_IMPACT_STEP_AUTO, NH_SIMUL_MOST_INFEASIBLE, 1);
  ENSURE(s && nh_sim_impact_step(s) == NH_IMPACT_STEP_VARIATIONAL);
  static trace tr;
  tr.n = 0, tr.nq = 3;
  ENSURE(nh_sim_run(s, 0.2, 0, record, &tr) == NH_OK);
  nh_impact_record r;
  ENSURE(nh_sim_impact_count(s) == 1 && nh_sim_impact_get(s, 0, &r) == NH_OK);
  const double *q = nh_sim_q(s), *v = nh_sim_v(s);
  printf("  t* = %.15f, contacts %d, sequence %d %d, v+ = (%.3g, %.3g, %.17g), E %.17g -> %.17g\n", r.t, r.contacts,
         r.sequence[0], r.sequence[1], r.v_after[0], r.v_after[1], r.v_after[2], r.energy_before, r.energy_after);
  printf("  q(0.2) = (%.17g, %.17g, %.17g), %d nodes\n", q[0], q[1], q[2], tr.n);
  ENSURE_NEAR(r.t, 0.0537, 1e-13);
  ENSURE(r.contacts == 2 && r.contact_gap[0] == 0 && r.contact_gap[1] == 1);
  ENSURE(r.reflections == 2 && r.sequence[0] == 0 && r.sequence[1] == 1);
  ENSURE_NEAR(r.v_after[0], 0.0, 1e-14);
  ENSURE_NEAR(r.v_after[1], 0.0, 1e-14);
  ENSURE_NEAR(r.v_after[2], 1.0, 1e-14);
  ENSURE_NEAR(r.energy_before, 0.5, 1e-14);
  ENSURE_NEAR(r.energy_after, 0.5, 1e-14);
  ENSURE_NEAR(q[0], -1.0, 1e-13);
  ENSURE_NEAR(q[1], 0.0, 1e-13);
  ENSURE_NEAR(q[2], 1.1463, 1e-13);
  ENSURE_NEAR(v[2], 1.0, 1e-14);
  // the nodes: 0, 0.01, ..., 0.05, 0.0537, 0.06, ..., 0.2 (21 grid nodes, the impact's)
  ENSURE(tr.n == 22);
  for (int k = 0; k < tr.n; k++) {
    ENSURE(on_grid(tr.t[k], 0.01, &r.t, 1));
    ENSURE_NEAR(tr.v[k][0] + tr.v[k][1] + tr.v[k][2], 1.0, 1e-14); /* total momentum (M = I) */
  }
  ENSURE_NEAR(tr.t[6], 0.0537, 1e-13);
  nh_sim_destroy(s);
  // restart: the same event, then steps of h from it (nodes at t* + k h)
  s = make(m, "del", 0.01, NH_IMPACT_STEP_RESTART, NH_SIMUL_MOST_INFEASIBLE, 1);
  ENSURE(s && nh_sim_impact_step(s) == NH_IMPACT_STEP_RESTART);
  tr.n = 0;
  ENSURE(nh_sim_run(s, 0.2, 0, record, &tr) == NH_OK);
  ENSURE(nh_sim_impact_count(s) == 1);
  ENSURE_NEAR(tr.t[7], 0.0637, 1e-13);
  ENSURE_NEAR(nh_sim_q(s)[2], 1.1463, 1e-13);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* two impacts in one step: A hits B at 0.0537, B hits C at 0.0567, both inside [0.05, 0.06];
 * the step is split twice, its end stays at 0.06; v = (0, 0, 1), q(0.2) = (-1, 0.003, 1.1463) */
static int test_two_in_one_step(void) {
  nh_model *m = gap_cradle(1.003);
  ENSURE(m);
  nh_sim *s = make(m, "del", 0.01, NH_IMPACT_STEP_AUTO, NH_SIMUL_MOST_INFEASIBLE, 0);
  ENSURE(s);
  static trace tr;
  tr.n = 0, tr.nq = 3;
  ENSURE(nh_sim_run(s, 0.2, 0, record, &tr) == NH_OK);
  nh_impact_record r0, r1;
  ENSURE(nh_sim_impact_count(s) == 2 && nh_sim_impact_get(s, 0, &r0) == NH_OK && nh_sim_impact_get(s, 1, &r1) == NH_OK);
  const double *q = nh_sim_q(s), *v = nh_sim_v(s);
  printf("  impacts at %.15f (gap %d), %.15f (gap %d); nodes %.4f %.4f %.4f %.4f; q = (%.15g, %.15g, %.15g)\n", r0.t,
         r0.gap, r1.t, r1.gap, tr.t[5], tr.t[6], tr.t[7], tr.t[8], q[0], q[1], q[2]);
  ENSURE(r0.gap == 0 && r1.gap == 1 && r0.contacts == 0 && r1.contacts == 0); /* single impacts */
  ENSURE_NEAR(r0.t, 0.0537, 1e-13);
  ENSURE_NEAR(r1.t, 0.0567, 1e-13);
  ENSURE(r0.status == NH_OK && r1.status == NH_OK); /* elastic, not made plastic: different contacts */
  ENSURE_NEAR(r0.energy_after, r0.energy_before, 1e-14);
  ENSURE_NEAR(r1.energy_after, r1.energy_before, 1e-14);
  ENSURE(tr.n == 23);
  ENSURE_NEAR(tr.t[5], 0.05, 1e-15);
  ENSURE_NEAR(tr.t[6], 0.0537, 1e-13);
  ENSURE_NEAR(tr.t[7], 0.0567, 1e-13);
  ENSURE_NEAR(tr.t[8], 0.06, 1e-15);
  for (int k = 0; k < tr.n; k++) ENSURE_NEAR(tr.v[k][0] + tr.v[k][1] + tr.v[k][2], 1.0, 1e-14);
  ENSURE_NEAR(v[0], 0.0, 1e-14);
  ENSURE_NEAR(v[1], 0.0, 1e-14);
  ENSURE_NEAR(v[2], 1.0, 1e-14);
  ENSURE_NEAR(q[0], -1.0, 1e-13);
  ENSURE_NEAR(q[1], 0.003, 1e-13);
  ENSURE_NEAR(q[2], 1.1463, 1e-13);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* the rod of spec 003 T14: q = (x, y, th), m = l = 1, inertia I, ends at y -+ sin(th)/2 */
static nh_model *rod(double I) {
  char text[512];
  snprintf(text, sizeof text,
           "model rod\ncoordinates x y th\nparameter I = %.17g\nkinetic 1/2*(x'^2 + y'^2) + 1/2*I*th'^2\n"
           "potential 9.81*y\ngap left: y - sin(th)/2  impact elastic\ngap right: y + sin(th)/2  impact elastic\n"
           "initial y = 1\n",
           I);
  return parse(text);
}

/* T14: dropped flat from y = 1 at rest, h = 0.01 (the midpoint VI is exact for a constant M and
 * a linear V): t* = sqrt(2/g), V = sqrt(2 g); energy 9.81 before and after; the uniform rod
 * (I = 1/12, c = -1/2) leaves at (0, V, 0) for both orders and every node to T = 1.2 is on the
 * exact bouncing parabola (the apex 1 at 2 t* is between nodes: the highest node 0.99995);
 * I = 1/8 (c = -1/3): (0, 23V/27, +-40V/27), the sign the order's (to its first impact: it spins) */
static int test_t14(void) {
  const double ts = sqrt(2.0 / G), V = sqrt(2.0 * G);
  for (int c = 0; c < 3; c++) {
    const double I = c < 2 ? 1.0 / 12.0 : 1.0 / 8.0;
    const int order = c == 1 ? NH_SIMUL_LEAST_INFEASIBLE : NH_SIMUL_MOST_INFEASIBLE;
    nh_model *m = rod(I);
    ENSURE(m);
    for (int o = 0; o < (c == 2 ? 2 : 1); o++) {
      nh_sim *s = make(m, "del", 0.01, NH_IMPACT_STEP_VARIATIONAL, o ? NH_SIMUL_LEAST_INFEASIBLE : order, 1);
      ENSURE(s);
      static trace tr;
      tr.n = 0, tr.nq = 3;
      ENSURE(nh_sim_run(s, 1.2, c < 2 ? 0 : 1, record, &tr) == NH_OK); /* spinning: the first impact */
      nh_impact_record r;
      ENSURE(nh_sim_impact_count(s) == 1 && nh_sim_impact_get(s, 0, &r) == NH_OK);
      printf("  I = %.4f order %d: t* = %.10f, v+ = (%.3g, %.8f, %.8f), E %.15g -> %.15g\n", I, o ? 1 : order, r.t,
             r.v_after[0], r.v_after[1], r.v_after[2], r.energy_before, r.energy_after);
      ENSURE_NEAR(r.t, 0.4515236410, 1e-10);
      ENSURE(r.contacts == 2);
      ENSURE_REL(r.energy_before, 9.81, 1e-11);
      ENSURE_REL(r.energy_after, r.energy_before, 1e-12); /* the elastic map: the discrete energy */
      if (c < 2) {
        ENSURE(r.reflections == 3);
        ENSURE_NEAR(r.v_after[1], V, 1e-8);
        ENSURE_NEAR(r.v_after[2], 0.0, 1e-12);
        // the nodes: the exact parabola, bounced at t*
        double ymax = 0.0;
        for (int k = 0; k < tr.n; k++) {
          const double t = tr.t[k], y = t <= ts ? 1.0 - 0.5 * G * t * t : V * (t - ts) - 0.5 * G * (t - ts) * (t - ts);
          ENSURE_NEAR(tr.q[k][1], y, 1e-13);
          ENSURE(on_grid(t, 0.01, &r.t, 1));
          if (t > ts && tr.q[k][1] > ymax) ymax = tr.q[k][1];
        }
        printf("  highest node after the bounce %.7f\n", ymax);
        ENSURE_NEAR(ymax, 1.0 - 0.5 * G * (2.0 * ts - 0.9) * (2.0 * ts - 0.9), 1e-13);
        ENSURE_NEAR(ymax, 0.99995, 5e-6); /* the spec's figure, 5 digits */
      } else {
        const double sgn = o ? -1.0 : 1.0;
        ENSURE_NEAR(r.v_after[1], 23.0 * V / 27.0, 1e-8);
        ENSURE_NEAR(fabs(r.v_after[2]), 40.0 * V / 27.0, 1e-8);
        ENSURE_NEAR(r.v_after[1], 3.77323256, 5e-9);
        ENSURE_NEAR(fabs(r.v_after[2]), 6.56214358, 5e-9);
        static double first;
        if (o == 0) first = r.v_after[2];
        else ENSURE(r.v_after[2] == -first && sgn < 0.0);
      }
      nh_sim_destroy(s);
    }
    nh_model_destroy(m);
  }
  return 0;
}

/* T15: the pendulum q = th, M = 1, V = -g cos th against the wall th = 0, released at rest
 * from 0.5 (midpoint L_d): the impact time converges at second order to the quarter period
 * sqrt(l/g) K(sin^2 0.25) = 0.50946698; the energy error over [0, 2] at second order; the
 * energy across each impact kept to 1e-12; the angle at t = 1.5 (after the impact) converges
 * at second order against h/64 */
static const char *const pendulum_text = "model wallpendulum\ncoordinates th\nkinetic 1/2*th'^2\npotential -9.81*cos(th)\n"
                                         "gap wall: th  impact elastic\ninitial th = 0.5\n";

typedef struct energy_trace {
  double E0, dEmax;
} energy_trace;

static int energy_obs(const nh_sim *s, nh_sample_kind kind, double t, const double *q, const double *v, void *user) {
  energy_trace *e = user;
  (void)s, (void)t;
  if (kind != NH_SAMPLE_STEP) return 0;
  const double E = 0.5 * v[0] * v[0] - G * cos(q[0]);
  if (fabs(E - e->E0) > e->dEmax) e->dEmax = fabs(E - e->E0);
  return 0;
}

static int test_t15(void) {
  nh_model *m = parse(pendulum_text);
  ENSURE(m);
  const double t_exact = 0.50946698, hs[4] = {0.01, 0.005, 0.0025, 0.01 / 64.0};
  double err[3], dE[3], th[4];
  for (int k = 0; k < 4; k++) {
    nh_sim *s = make(m, "del", hs[k], NH_IMPACT_STEP_AUTO, NH_SIMUL_MOST_INFEASIBLE, 1);
    ENSURE(s);
    energy_trace e = {-G * cos(0.5), 0.0};
    ENSURE(nh_sim_run(s, 1.5, 0, k < 3 ? energy_obs : NULL, &e) == NH_OK);
    th[k] = nh_sim_q(s)[0];
    ENSURE(nh_sim_run(s, 2.0, 0, k < 3 ? energy_obs : NULL, &e) == NH_OK);
    ENSURE(nh_sim_impact_count(s) == 2); /* at t* and 3 t* */
    for (long i = 0; i < 2; i++) {
      nh_impact_record r;
      ENSURE(nh_sim_impact_get(s, i, &r) == NH_OK);
      ENSURE_REL(r.energy_after, r.energy_before, 1e-12);
      if (i == 0 && k < 3) err[k] = r.t - t_exact;
    }
    if (k < 3) {
      dE[k] = e.dEmax;
      printf("  h = %-9g t* error %.2e, max |E - E0| over [0, 2] %.2e, th(1.5) = %.12f\n", hs[k], err[k], dE[k], th[k]);
    }
    nh_sim_destroy(s);
  }
  ENSURE_NEAR(err[0], 3.8e-5, 2e-6); /* the spec's prototype: 3.8e-5, 9.6e-6, 2.4e-6 */
  ENSURE_NEAR(err[1], 9.6e-6, 5e-7);
  ENSURE_NEAR(err[2], 2.4e-6, 1e-7);
  for (int k = 0; k < 2; k++) {
    const double p = log2(err[k] / err[k + 1]), pe = log2(dE[k] / dE[k + 1]);
    const double pt = log2(fabs(th[k] - th[3]) / fabs(th[k + 1] - th[3]));
    printf("  orders: impact time %.3f, energy %.3f, angle after the impact %.3f\n", p, pe, pt);
    ENSURE(p > 1.9 && p < 2.1);
    ENSURE(pe > 1.9 && pe < 2.1);
    ENSURE(pt > 1.85 && pt < 2.15);
  }
  nh_model_destroy(m);
  return 0;
}

/* T20: a ball dropped from H = 1 on the floor with restitution 0.8, h = 0.01: flight n lasts
 * T_n = 2 0.8^n v1 / g (v1 = sqrt(2 g H)); the first impact after a flight shorter than h
 * (n = 21) is made plastic and the contact persists, bearing the weight m g; the ball then
 * rests at y = 0 */
static int test_t20(void) {
  nh_model *m = parse("model ball\ncoordinates y\nkinetic 1/2*y'^2\npotential 9.81*y\n"
                      "gap floor: y  impact restitution 0.8\ninitial y = 1\n");
  ENSURE(m);
  nh_sim *s = make(m, "del", 0.01, NH_IMPACT_STEP_AUTO, NH_SIMUL_MOST_INFEASIBLE, 0);
  ENSURE(s);
  int rc = nh_sim_run(s, 5.0, 0, NULL, NULL);
  for (long k = 0; k < nh_sim_contact_count(s); k++) {
    nh_contact_record cr;
    nh_sim_contact_get(s, k, &cr);
    printf("  contact %s %s at %.12f force %g\n", nh_contact_kind_name(cr.kind), nh_contact_reason_name(cr.reason), cr.t, cr.lambda);
  }
  ENSURE(rc == NH_OK);
  const double v1 = sqrt(2.0 * G), t1 = v1 / G;
  int n = 0; /* the first flight shorter than h */
  while (2.0 * pow(0.8, n) * v1 / G >= 0.01) n++;
  double t_plastic = t1;
  for (int j = 1; j <= n; j++) t_plastic += 2.0 * pow(0.8, j) * v1 / G;
  const long ni = nh_sim_impact_count(s);
  nh_impact_record r;
  ENSURE(nh_sim_impact_get(s, ni - 1, &r) == NH_OK);
  nh_contact_record c;
  ENSURE(nh_sim_contact_count(s) == 1 && nh_sim_contact_get(s, 0, &c) == NH_OK);
  printf("  n = %d: %ld impacts, the last at t = %.12f (expected %.12f), status %s; contact closed at %.12f (%s), "
         "force %.12g; y(5) = %.3g, v = %.3g\n",
         n, ni, r.t, t_plastic, nh_status_name(r.status), c.t, nh_contact_reason_name(c.reason), c.lambda,
         nh_sim_q(s)[0], nh_sim_v(s)[0]);
  ENSURE(n == 21);
  ENSURE(ni == n + 1); /* 21 bounces, then the plastic one */
  ENSURE_NEAR(r.t, t_plastic, 1e-9);
  ENSURE(r.status == NH_CONTACT && r.energy_after < 1e-20);
  for (long i = 0; i + 1 < ni; i++) { /* the bounces before: restitution 0.8 */
    nh_impact_record b;
    ENSURE(nh_sim_impact_get(s, i, &b) == NH_OK);
    ENSURE_NEAR(b.vn_after, -0.8 * b.vn_before, 1e-12 * fabs(b.vn_before));
  }
  ENSURE(c.kind == NH_CONTACT_CLOSE && c.reason == NH_CONTACT_ACCUMULATION && nh_sim_contact_closed(s, 0));
  ENSURE_NEAR(c.t, t_plastic, 1e-9);
  ENSURE_NEAR(c.lambda, G, 1e-9); /* the floor bears m g */
  ENSURE(fabs(nh_sim_q(s)[0]) < 1e-12 && fabs(nh_sim_v(s)[0]) < 1e-12);
  nh_sim_destroy(s);
  // restart mode: contact.c's accumulation rule only (the remaining geometric series below h)
  s = make(m, "del", 0.01, NH_IMPACT_STEP_RESTART, NH_SIMUL_MOST_INFEASIBLE, 0);
  ENSURE(s);
  ENSURE(nh_sim_run(s, 5.0, 0, NULL, NULL) == NH_OK);
  printf("  restart: %ld impacts\n", nh_sim_impact_count(s));
  ENSURE(nh_sim_impact_count(s) > n + 1);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* T20 with a simultaneous set: the uniform rod dropped flat with restitution 0.8 on both ends
 * bounces as the ball does (each landing one simultaneous impact, c = -1/2); the first landing
 * after a flight shorter than h is resolved by the plastic projection over both contacts,
 * which then persist, each bearing m g / 2, and the rod rests flat on the floor (the two
 * closed gaps projected jointly: contact.c's project_q) */
static int test_t20_rod(void) {
  nh_model *m = parse("model rod\ncoordinates x y th\nparameter I = 1/12\nkinetic 1/2*(x'^2 + y'^2) + 1/2*I*th'^2\n"
                      "potential 9.81*y\ngap left: y - sin(th)/2  impact restitution 0.8\n"
                      "gap right: y + sin(th)/2  impact restitution 0.8\ninitial y = 1\n");
  ENSURE(m);
  nh_sim *s = make(m, "del", 0.01, NH_IMPACT_STEP_AUTO, NH_SIMUL_MOST_INFEASIBLE, 0);
  ENSURE(s);
  ENSURE(nh_sim_run(s, 6.0, 0, NULL, NULL) == NH_OK);
  nh_impact_record r;
  const long ni = nh_sim_impact_count(s);
  ENSURE(nh_sim_impact_get(s, ni - 1, &r) == NH_OK);
  const double *q = nh_sim_q(s);
  printf("  %ld impacts, the last at %.12f: %d contacts, law %d, restitution %g; %ld contact records; q = (%.2g, %.2g, "
         "%.2g)\n",
         ni, r.t, r.contacts, r.law, r.restitution, nh_sim_contact_count(s), q[0], q[1], q[2]);
  ENSURE(ni == 22 && r.contacts == 2 && r.law == NH_SIMUL_PLASTIC && r.restitution == 0.0);
  ENSURE_NEAR(r.t, 4.030396204678, 1e-9); /* the ball's (T20) */
  for (long i = 0; i + 1 < ni; i++) {
    nh_impact_record b;
    ENSURE(nh_sim_impact_get(s, i, &b) == NH_OK);
    ENSURE(b.contacts == 2 && b.law == NH_SIMUL_INELASTIC && b.restitution == 0.8);
  }
  ENSURE(nh_sim_contact_count(s) == 2 && nh_sim_contact_closed(s, 0) && nh_sim_contact_closed(s, 1));
  nh_contact_record c;
  ENSURE(nh_sim_contact_get(s, 1, &c) == NH_OK);
  ENSURE_NEAR(c.lambda, G / 2.0, 1e-9); /* both closed: each bears half the weight */
  ENSURE(fabs(q[1]) < 1e-12 && fabs(q[2]) < 1e-12);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* T20's second case: a damped two-mass leg (foot 0.2, body 1 on a spring k = 1000 with a
 * damper c = 4) with an elastic foot: the damper makes the bounces shorter until one comes
 * less than h after the last; that impact is plastic and the foot stays on the floor. Every
 * impact before keeps the energy to 1e-12 and comes at least h after its predecessor. The
 * restart mode closes by the chatter rule (contact.c: intervals shrinking at a ratio >= 0.9, a
 * bounce that would fly less than one step) within a few bounces of it, at the same energy
 * (its accumulation rule alone, which needs a geometric series below h, took millions). */
static int test_t20_leg(void) {
  nh_model *m = parse("model leg\ncoordinates y1 y2\nkinetic 1/2*(0.2*y1'^2 + y2'^2)\n"
                      "potential 9.81*(0.2*y1 + y2) + 1/2*1000*(y2 - y1 - 0.5)^2\n"
                      "force y1: 4*(y2' - y1')\nforce y2: -4*(y2' - y1')\ngap foot: y1  impact elastic\n"
                      "initial y1 = 0.3, y2 = 0.8\n");
  ENSURE(m);
  const double h = 1e-3;
  nh_sim *s = make(m, "del", h, NH_IMPACT_STEP_AUTO, NH_SIMUL_MOST_INFEASIBLE, 0);
  ENSURE(s);
  ENSURE(nh_sim_run(s, 4.0, 0, NULL, NULL) == NH_OK);
  const long ni = nh_sim_impact_count(s);
  const double E_vi = nh_sim_get_stats(s)->energy;
  nh_impact_record r, p = {0};
  double t_prev = -1.0;
  for (long i = 0; i < ni; i++) {
    ENSURE(nh_sim_impact_get(s, i, &r) == NH_OK);
    if (i + 1 < ni) {
      ENSURE(r.status == NH_OK);
      ENSURE_REL(r.energy_after, r.energy_before, 1e-12);
      if (i > 0) ENSURE(r.t - t_prev >= h);
    }
    p = r;
    if (i + 1 < ni) t_prev = r.t;
  }
  nh_contact_record c;
  ENSURE(nh_sim_contact_count(s) == 1 && nh_sim_contact_get(s, 0, &c) == NH_OK);
  printf("  %ld impacts, the last at %.10f (%.3g after the one before), %s; contact force %.6g; foot at %.2g\n", ni, p.t,
         p.t - t_prev, nh_status_name(p.status), c.lambda, nh_sim_q(s)[0]);
  ENSURE(ni > 10 && p.status == NH_CONTACT && p.t - t_prev < h);
  ENSURE(c.reason == NH_CONTACT_ACCUMULATION && c.t == p.t && c.lambda > 0.0 && nh_sim_contact_closed(s, 0));
  ENSURE(fabs(nh_sim_q(s)[0]) < 1e-12);
  nh_sim_destroy(s);
  const double t_vi = c.t;
  s = make(m, "del", h, NH_IMPACT_STEP_RESTART, NH_SIMUL_MOST_INFEASIBLE, 0);
  ENSURE(s);
  ENSURE(nh_sim_run(s, 4.0, 10 * ni, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_contact_count(s) == 1 && nh_sim_contact_get(s, 0, &c) == NH_OK);
  printf("  restart: %ld impacts, closed at t = %.6f (%s, ratio %.4f), E(4) - E_vi(4) = %.2g\n", nh_sim_impact_count(s),
         c.t, nh_contact_reason_name(c.reason), c.ratio, nh_sim_get_stats(s)->energy - E_vi);
  ENSURE(nh_sim_time(s) == 4.0 && labs(nh_sim_impact_count(s) - ni) <= 5 && fabs(c.t - t_vi) < 5.0 * h);
  ENSURE(c.reason == NH_CONTACT_CHATTER && c.ratio >= NH_CONTACT_SLOW_RATIO && c.ratio < 1.0 && nh_sim_contact_closed(s, 0));
  ENSURE(fabs(nh_sim_q(s)[0]) < 1e-12 && fabs(nh_sim_get_stats(s)->energy - E_vi) < 1e-8 * E_vi);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* a q-dependent M: the ball in polar coordinates (r, th) on the floor r sin th = 0, elastic,
 * midpoint L_d: across each impact the discrete energy is kept to 1e-12 relative and the
 * momentum of the horizontal translation, J = p . xi(q) = r' cos th - r th' sin th (= x'), to
 * 1e-12 (the impulse along d(r sin th) has no component along xi) */
static int test_polar(void) {
  nh_model *m = parse("model polar_ball\ncoordinates r th\nkinetic 1/2*(r'^2+r^2*th'^2)\npotential 9.81*r*sin(th)\n"
                      "gap floor: r*sin(th)  impact elastic\ninitial r = 1.2, th = 1, r' = 0.3\n");
  ENSURE(m);
  nh_sim *s = make(m, "del", 0.01, NH_IMPACT_STEP_AUTO, 0, 1);
  ENSURE(s);
  ENSURE(nh_sim_run(s, 5.0, 0, NULL, NULL) == NH_OK);
  ENSURE(nh_sim_impact_count(s) == 5);
  for (long k = 0; k < nh_sim_impact_count(s); k++) {
    nh_impact_record r;
    ENSURE(nh_sim_impact_get(s, k, &r) == NH_OK);
    const double c = cos(r.q[1]), sn = sin(r.q[1]);
    const double Jb = r.v_before[0] * c - r.q[0] * r.v_before[1] * sn, Ja = r.v_after[0] * c - r.q[0] * r.v_after[1] * sn;
    printf("  impact %ld at %.10f: E %.17g -> %.17g, J %.17g -> %.17g\n", k, r.t, r.energy_before, r.energy_after, Jb, Ja);
    ENSURE_REL(r.energy_after, r.energy_before, 1e-12);
    ENSURE_NEAR(Ja, Jb, 1e-12 * fabs(Jb));
    ENSURE(r.vn_before < 0.0 && r.vn_after > 0.0);
  }
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

/* a particle between two elastic walls 0.1 apart on a weak spring, h = 0.01: an impact about
 * every 10 steps, each crossing found (locate.c: a chord can put a crossing near a sample on
 * the sample's other side; the method's partial steps then locate it before the interval) —
 * no graze, consecutive impacts on alternate walls 0.1 apart within 1%, the energy kept across
 * each to 1e-12, the same count in both modes */
static int test_walls(void) {
  nh_model *m = parse("model walls\ncoordinates x\nkinetic 1/2*x'^2\npotential 1/2*x^2\n"
                      "gap right: 0.05 - x  impact elastic\ngap left: x + 0.05  impact elastic\ninitial x' = 1\n");
  ENSURE(m);
  long count[2];
  for (int mode = 0; mode < 2; mode++) {
    nh_sim *s = make(m, "del", 0.01, mode ? NH_IMPACT_STEP_RESTART : NH_IMPACT_STEP_VARIATIONAL, 0, 0);
    ENSURE(s);
    ENSURE(nh_sim_run(s, 200.0, 0, NULL, NULL) == NH_OK);
    count[mode] = nh_sim_impact_count(s);
    nh_impact_record r, p;
    double dmin = 1.0, dmax = 0.0;
    for (long k = 0; k < count[mode]; k++, p = r) {
      ENSURE(nh_sim_impact_get(s, k, &r) == NH_OK);
      ENSURE_REL(r.energy_after, r.energy_before, 1e-12);
      if (k == 0) continue;
      ENSURE(r.gap != p.gap);
      dmin = fmin(dmin, r.t - p.t), dmax = fmax(dmax, r.t - p.t);
    }
    printf("  %s: %ld impacts, intervals %.6f to %.6f, %ld grazes\n", mode ? "restart" : "variational", count[mode], dmin,
           dmax, nh_sim_get_stats(s)->grazing);
    ENSURE(dmin > 0.099 && dmax < 0.101 && nh_sim_get_stats(s)->grazing == 0);
    nh_sim_destroy(s);
  }
  ENSURE(count[0] == count[1] && count[0] > 1990);
  nh_model_destroy(m);
  return 0;
}

/* the mode's bad input: variational with another method, an unknown mode */
static int test_bad_mode(void) {
  nh_model *m = gap_cradle(1.0);
  ENSURE(m);
  char buf[512];
  nh_sim_def d = nh_sim_def_default();
  d.method = nh_method_find("gni");
  d.impact_step = NH_IMPACT_STEP_VARIATIONAL;
  ENSURE(nh_sim_create(m, &d, buf, sizeof buf) == NULL);
  printf("  %s\n", buf);
  ENSURE(strcmp(buf, "the variational impact step is del's (spec 003 sec. 3: the discrete Euler-Lagrange integrator); "
                     "method 'gni' restarts at impacts (impact_step restart)") == 0);
  d.impact_step = 3;
  ENSURE(nh_sim_create(m, &d, buf, sizeof buf) == NULL);
  ENSURE(strcmp(buf, "impact_step 3 is not a mode (nh_impact_step: 0 auto, 1 restart, 2 variational)") == 0);
  d.impact_step = NH_IMPACT_STEP_AUTO;
  nh_sim *s = nh_sim_create(m, &d, buf, sizeof buf);
  ENSURE(s && nh_sim_impact_step(s) == NH_IMPACT_STEP_RESTART);
  nh_sim_destroy(s);
  nh_model_destroy(m);
  return 0;
}

int main(int argc, char **argv) {
  TEST_INIT(argc, argv);
  RUN_TEST(test_t13);
  RUN_TEST(test_two_in_one_step);
  RUN_TEST(test_t14);
  RUN_TEST(test_t15);
  RUN_TEST(test_t20);
  RUN_TEST(test_t20_rod);
  RUN_TEST(test_t20_leg);
  RUN_TEST(test_polar);
  RUN_TEST(test_walls);
  RUN_TEST(test_bad_mode);
  return TEST_SUMMARY();
}
