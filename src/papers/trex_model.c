/* trex_model.c - TREX's kinematics and mass matrix (the same bodies as examples/trex.nh),
 * the double-contact solve, the paper's Table I and our rows (docs/trex.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nholo/impact.h"
#include "nholo/status.h"
#include "base/msg.h"
#include "trex.h"

/* materials (the paper): water for the spheres, 2 g/cm^3 x 1.25 cm^2 for the limbs */
#define TREX_PI 3.14159265358979323846
#define TREX_RHO 1.0
#define TREX_LAMBDA 2.5
/* Newton of the double-contact solve: gap tolerance (cm), iterations, difference step */
#define TREX_TOUCH_TOL 1e-13
#define TREX_TOUCH_ITER 100
#define TREX_TOUCH_FD 1e-7
#define TREX_TOUCH_STEP 0.2
/* a double-contact row is lifted so that both gaps are in [TREX_CLEARANCE, 2 TREX_CLEARANCE]
 * (cm): never negative, so the model file accepts it as an initial state */
#define TREX_CLEARANCE 1e-13

double trex_tail_length(double r1, double r2) {
  return (r1 * r1 * r1 + r1 * r1 * r2 + sqrt(2.0) * sqrt(pow(r1, 4) * r2 * r2 + pow(r1 * r2, 3))) /
             (r1 * r1 - r2 * r2) -
         (r1 + r2);
}

void trex_masses(const trex_design *d, double *mu, double *ml, double *mt, double *m1, double *m2) {
  if (mu) *mu = TREX_LAMBDA * d->lu;
  if (ml) *ml = TREX_LAMBDA * d->ll;
  if (mt) *mt = TREX_LAMBDA * trex_tail_length(d->r1, d->r2);
  if (m1) *m1 = 4.0 / 3.0 * TREX_PI * pow(d->r1, 3) * TREX_RHO;
  if (m2) *m2 = 4.0 / 3.0 * TREX_PI * pow(d->r2, 3) * TREX_RHO;
}

/* A point (x, y) + sum_k a_k e(angle_k), each angle a sum of coordinates (mask bits over q):
 * its position and Jacobian (2 x 8). */
typedef struct arm {
  int n;
  double a[2];
  unsigned mask[2];
} arm;

static double angle_of(unsigned mask, const double *q) {
  double s = 0.0;
  for (int j = 0; j < TREX_NQ; j++)
    if (mask & (1u << j)) s += q[j];
  return s;
}

static void arm_eval(const arm *r, const double *q, double *p, double *J) {
  p[0] = q[0];
  p[1] = q[1];
  memset(J, 0, 2 * TREX_NQ * sizeof *J);
  J[0] = 1.0;
  J[TREX_NQ + 1] = 1.0;
  for (int k = 0; k < r->n; k++) {
    double b = angle_of(r->mask[k], q), cb = cos(b), sb = sin(b);
    p[0] += r->a[k] * cb;
    p[1] += r->a[k] * sb;
    for (int j = 0; j < TREX_NQ; j++)
      if (r->mask[k] & (1u << j)) {
        J[j] -= r->a[k] * sb;
        J[TREX_NQ + j] += r->a[k] * cb;
      }
  }
}

/* angle masks: th, th + pT, th + pL (+ gL), th + pR (+ gR) */
#define A_TH (1u << 2)
#define A_P (A_TH | (1u << 7))
#define A_UL (A_TH | (1u << 3))
#define A_LL (A_UL | (1u << 4))
#define A_UR (A_TH | (1u << 5))
#define A_LR (A_UR | (1u << 6))

void trex_geometry(const trex_design *d, const double *q, double *M, double *gap, double *dg) {
  double Lt = trex_tail_length(d->r1, d->r2), mu, ml, mt, m1, m2;
  trex_masses(d, &mu, &ml, &mt, &m1, &m2);
  // the bodies: centre of mass arm, mass, central inertia, angle
  struct {
    arm r;
    double m, I;
    unsigned ang;
  } body[7] = {
      {{0, {0, 0}, {0, 0}}, m1, 0.4 * m1 * d->r1 * d->r1, A_TH},
      {{2, {d->r1, d->r2}, {A_TH, A_P}}, m2, 0.4 * m2 * d->r2 * d->r2, A_P},
      {{2, {d->r1, d->r2 + Lt / 2}, {A_TH, A_P}}, mt, mt * Lt * Lt / 12, A_P},
      {{1, {d->lu / 2, 0}, {A_UL, 0}}, mu, mu * d->lu * d->lu / 12, A_UL},
      {{2, {d->lu, d->ll / 2}, {A_UL, A_LL}}, ml, ml * d->ll * d->ll / 12, A_LL},
      {{1, {d->lu / 2, 0}, {A_UR, 0}}, mu, mu * d->lu * d->lu / 12, A_UR},
      {{2, {d->lu, d->ll / 2}, {A_UR, A_LR}}, ml, ml * d->ll * d->ll / 12, A_LR},
  };
  double p[2], J[2 * TREX_NQ];
  if (M) {
    memset(M, 0, TREX_NQ * TREX_NQ * sizeof *M);
    for (int b = 0; b < 7; b++) {
      arm_eval(&body[b].r, q, p, J);
      for (int i = 0; i < TREX_NQ; i++)
        for (int j = 0; j < TREX_NQ; j++) {
          double w = ((body[b].ang >> i) & 1u) && ((body[b].ang >> j) & 1u) ? body[b].I : 0.0;
          M[i * TREX_NQ + j] += body[b].m * (J[i] * J[j] + J[TREX_NQ + i] * J[TREX_NQ + j]) + w;
        }
    }
  }
  // the contact points: tail tip, feet, sphere bottoms (the height of a centre less its radius)
  const arm pt[TREX_NGAP] = {
      {2, {d->r1, d->r2 + Lt}, {A_TH, A_P}}, {2, {d->lu, d->ll}, {A_UL, A_LL}},
      {2, {d->lu, d->ll}, {A_UR, A_LR}},    {0, {0, 0}, {0, 0}},
      {2, {d->r1, d->r2}, {A_TH, A_P}}};
  const double drop[TREX_NGAP] = {0, 0, 0, d->r1, d->r2};
  for (int k = 0; k < TREX_NGAP; k++) {
    arm_eval(&pt[k], q, p, J);
    if (gap) gap[k] = p[1] - drop[k];
    if (dg) memcpy(dg + k * TREX_NQ, J + TREX_NQ, TREX_NQ * sizeof *dg);
  }
}

int trex_cosine(trex_row *row, char *msg, size_t msg_size) {
  double M[TREX_NQ * TREX_NQ], dg[TREX_NGAP * TREX_NQ], G[4], C[4];
  trex_geometry(&row->d, row->q, M, NULL, dg);
  nh_simul_problem pb = {TREX_NQ, 0, 2, M, NULL, dg};
  void *work = malloc(nh_simul_work_size(TREX_NQ, 0, 2, NULL));
  if (!work) {
    nh_set_msg(msg, msg_size, "trex: out of memory");
    return NH_ERR_NOMEM;
  }
  int st = nh_simul_cosines(&pb, NULL, G, C, work, msg, msg_size);
  free(work);
  if (st != NH_OK) return st;
  row->c = C[1];
  row->raw = G[1];
  return NH_OK;
}

void trex_lift(const trex_design *d, double *q) {
  double gap[TREX_NGAP];
  trex_geometry(d, q, NULL, gap, NULL);
  q[1] += fmax(0.0, -fmin(gap[TREX_TAIL], gap[TREX_FOOT_L])) + TREX_CLEARANCE;
}

int trex_touch(const trex_design *d, double *q, int ia, int ib, char *msg, size_t msg_size) {
  const int idx[2] = {ia, ib};
  double gap[TREX_NGAP];
  for (int it = 0; it < TREX_TOUCH_ITER; it++) {
    trex_geometry(d, q, NULL, gap, NULL);
    double F[2] = {gap[TREX_TAIL], gap[TREX_FOOT_L]};
    if (fabs(F[0]) <= TREX_TOUCH_TOL && fabs(F[1]) <= TREX_TOUCH_TOL) {
      trex_lift(d, q);
      return NH_OK;
    }
    // Jacobian by central differences (the gaps are trigonometric polynomials)
    double Jm[4];
    for (int c = 0; c < 2; c++) {
      double keep = q[idx[c]], gp[TREX_NGAP], gm[TREX_NGAP];
      q[idx[c]] = keep + TREX_TOUCH_FD;
      trex_geometry(d, q, NULL, gp, NULL);
      q[idx[c]] = keep - TREX_TOUCH_FD;
      trex_geometry(d, q, NULL, gm, NULL);
      q[idx[c]] = keep;
      Jm[c] = (gp[TREX_TAIL] - gm[TREX_TAIL]) / (2 * TREX_TOUCH_FD);
      Jm[2 + c] = (gp[TREX_FOOT_L] - gm[TREX_FOOT_L]) / (2 * TREX_TOUCH_FD);
    }
    double det = Jm[0] * Jm[3] - Jm[1] * Jm[2];
    if (!(fabs(det) > 0.0)) break;
    // damped: no step longer than TREX_TOUCH_STEP (cm or rad), so the nearest root is found
    double da = (Jm[3] * F[0] - Jm[1] * F[1]) / det, db = (-Jm[2] * F[0] + Jm[0] * F[1]) / det;
    double big = fmax(fabs(da), fabs(db)), s = big > TREX_TOUCH_STEP ? TREX_TOUCH_STEP / big : 1.0;
    q[ia] -= s * da;
    q[ib] -= s * db;
  }
  nh_set_msg(msg, msg_size, "trex: the double-contact solve did not converge (tail %.3g, footL %.3g cm)",
             gap[TREX_TAIL], gap[TREX_FOOT_L]);
  return NH_ERR_NO_CONVERGENCE;
}

void trex_paper_rows(trex_row *initial, trex_row *optimised) {
  // Table I: x, y, th, pL, pR, gL, gR, pT, r1, r2, lu, ll, <u,v>_g (loaded into q's order)
  *initial = (trex_row){{7, 4, 8, 10}, {0, 12.38, 5.78, 5.13, 5.24, 1.99, 5.24, 0}, 1.65e-3, NAN};
  *optimised = (trex_row){{6.69, 4.22, 7.81, 9.86}, {0, 13.69, 5.92, 4.79, 5.71, 2.85, 5.67, -0.19},
                          -2.28e-7, NAN};
}

int trex_initial_row(trex_row *row, char *msg, size_t msg_size) {
  trex_row opt;
  trex_paper_rows(row, &opt);
  int st = trex_touch(&row->d, row->q, 1, 7, msg, msg_size);
  return st == NH_OK ? trex_cosine(row, msg, msg_size) : st;
}

void trex_optimised_row(trex_row *row) {
  // `nholo figure trex-design` (NLopt) from our initial row; also in examples/trex.nh
  *row = (trex_row){{7.049821573718039, 3.7064439356283878, 7.975894602410067, 9.9977217175346613},
                    {0, 12.313319267513874, 6.0002909980719066, 5.4569129449900284,
                     4.7945057947337943, 1.9822382273882735, 5.2400448756082207,
                     -0.38221903014402203},
                    NAN, NAN};
  (void)trex_cosine(row, NULL, 0);
}

int trex_initial_gait(const trex_row *row, trex_row *gait, char *msg, size_t msg_size) {
  *gait = *row;
  gait->q[4] = gait->q[6] = 0.0;        // knees straight
  gait->q[5] = gait->q[3] + TREX_PI;       // hips pi apart
  int st = trex_touch(&gait->d, gait->q, 1, 3, msg, msg_size);
  if (st != NH_OK) return st;
  gait->q[5] = fmod(gait->q[3] + TREX_PI, 2 * TREX_PI);
  return trex_cosine(gait, msg, msg_size);
}
