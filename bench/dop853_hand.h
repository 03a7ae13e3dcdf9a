/* dop853_hand.h - the baseline of bench_dop853: DOP853 written by hand for the Chaplygin sleigh,
 * as a user would write it without nholo: the sleigh's multiplier form worked out on paper
 * (M = diag(I, m, m), A = [a, sin th, -cos th]; lambda = -(Adot v) / (A M^-1 A^T), a = M^-1 A^T
 * lambda), the coefficients and the step-size control of Hairer's dop853.f (the 5th/3rd-order
 * error norm, safety 0.9, factors 1/6..1/0.333 with the exponent 1/8, FSAL, the initial step of
 * its hinit), fixed size 6, no dense output, no events. */
#ifndef NH_BENCH_DOP853_HAND_H
#define NH_BENCH_DOP853_HAND_H

#include <math.h>

// clang-format off
static const double hd_c[12] = {0.0, 0.526001519587677318785587544488e-01, 0.789002279381515978178381316732e-01, 0.118350341907227396726757197510e+00, 0.281649658092772603273242802490e+00, 0.333333333333333333333333333333e+00, 0.25e+00, 0.307692307692307692307692307692e+00, 0.651282051282051282051282051282e+00, 0.6e+00, 0.857142857142857142857142857142e+00, 1.0};
static const double hd_a[12][12] = {
    {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
    {5.26001519587677318785587544488e-2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
    {1.97250569845378994544595329183e-2, 5.91751709536136983633785987549e-2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
    {2.95875854768068491816892993775e-2, 0.0, 8.87627564304205475450678981324e-2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
    {2.41365134159266685502369798665e-1, 0.0, -8.84549479328286085344864962717e-1, 9.24834003261792003115737966543e-1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
    {3.7037037037037037037037037037e-2, 0.0, 0.0, 1.70828608729473871279604482173e-1, 1.25467687566822425016691814123e-1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
    {3.7109375e-2, 0.0, 0.0, 1.70252211019544039314978060272e-1, 6.02165389804559606850219397283e-2, -1.7578125e-2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
    {3.70920001185047927108779319836e-2, 0.0, 0.0, 1.70383925712239993810214054705e-1, 1.07262030446373284651809199168e-1, -1.53194377486244017527936158236e-2, 8.27378916381402288758473766002e-3, 0.0, 0.0, 0.0, 0.0, 0.0},
    {6.24110958716075717114429577812e-1, 0.0, 0.0, -3.36089262944694129406857109825e0, -8.68219346841726006818189891453e-1, 2.75920996994467083049415600797e1, 2.01540675504778934086186788979e1, -4.34898841810699588477366255144e1, 0.0, 0.0, 0.0, 0.0},
    {4.77662536438264365890433908527e-1, 0.0, 0.0, -2.48811461997166764192642586468e0, -5.90290826836842996371446475743e-1, 2.12300514481811942347288949897e1, 1.52792336328824235832596922938e1, -3.32882109689848629194453265587e1, -2.03312017085086261358222928593e-2, 0.0, 0.0, 0.0},
    {-9.3714243008598732571704021658e-1, 0.0, 0.0, 5.18637242884406370830023853209e0, 1.09143734899672957818500254654e0, -8.14978701074692612513997267357e0, -1.85200656599969598641566180701e1, 2.27394870993505042818970056734e1, 2.49360555267965238987089396762e0, -3.0467644718982195003823669022e0, 0.0, 0.0},
    {2.27331014751653820792359768449e0, 0.0, 0.0, -1.05344954667372501984066689879e1, -2.00087205822486249909675718444e0, -1.79589318631187989172765950534e1, 2.79488845294199600508499808837e1, -2.85899827713502369474065508674e0, -8.87285693353062954433549289258e0, 1.23605671757943030647266201528e1, 6.43392746015763530355970484046e-1, 0.0},
};
static const double hd_b[12] = {5.42937341165687622380535766363e-2, 0.0, 0.0, 0.0, 0.0, 4.45031289275240888144113950566e0, 1.89151789931450038304281599044e0, -5.8012039600105847814672114227e0, 3.1116436695781989440891606237e-1, -1.52160949662516078556178806805e-1, 2.01365400804030348374776537501e-1, 4.47106157277725905176885569043e-2};
static const double hd_e5[12] = {0.1312004499419488073250102996e-01, 0.0, 0.0, 0.0, 0.0, -0.1225156446376204440720569753e+01, -0.4957589496572501915214079952e+00, 0.1664377182454986536961530415e+01, -0.3503288487499736816886487290e+00, 0.3341791187130174790297318841e+00, 0.8192320648511571246570742613e-01, -0.2235530786388629525884427845e-01};
static const double hd_bh1 = 0.244094488188976377952755905512e+00, hd_bh2 = 0.733846688281611857341361741547e+00, hd_bh3 = 0.220588235294117647058823529412e-01;
// clang-format on

typedef struct {
  double I, m, a;
} hand_sleigh;

/* x' = F(x), x = (theta, x, y, theta', x', y') */
static void hand_rhs(const hand_sleigh *p, const double *x, double *f) {
  const double s = sin(x[0]), c = cos(x[0]);
  const double b = x[3] * (x[4] * c + x[5] * s);        /* Adot v */
  const double G = p->a * p->a / p->I + (s * s + c * c) / p->m; /* A M^-1 A^T */
  const double lam = -b / G;
  f[0] = x[3], f[1] = x[4], f[2] = x[5];
  f[3] = lam * p->a / p->I, f[4] = lam * s / p->m, f[5] = -lam * c / p->m;
}

/* DOP853 from t = 0 to T with tolerances rtol, atol on x (6); the evaluations and steps */
static int hand_dop853(const hand_sleigh *p, double T, double *x, double rtol, double atol, long *nfcn, long *nstep) {
  enum { N = 6 };
  double k[12][N], y1[N], xt[N], sk, h, t = 0.0;
  long evals = 0, steps = 0;
  int reject = 0, last = 0;
  hand_rhs(p, x, k[0]), evals++;
  { /* hinit of dop853.f (order 8) */
    double dnf = 0.0, dny = 0.0;
    for (int i = 0; i < N; i++) {
      sk = atol + rtol * fabs(x[i]);
      dnf += (k[0][i] / sk) * (k[0][i] / sk), dny += (x[i] / sk) * (x[i] / sk);
    }
    h = dnf <= 1e-10 || dny <= 1e-10 ? 1e-6 : sqrt(dny / dnf) * 0.01;
    if (h > T) h = T;
    for (int i = 0; i < N; i++) xt[i] = x[i] + h * k[0][i];
    hand_rhs(p, xt, k[1]), evals++;
    double der2 = 0.0;
    for (int i = 0; i < N; i++) {
      sk = atol + rtol * fabs(x[i]);
      der2 += ((k[1][i] - k[0][i]) / sk) * ((k[1][i] - k[0][i]) / sk);
    }
    der2 = sqrt(der2) / h;
    const double der12 = fmax(fabs(der2), sqrt(dnf));
    const double h1 = der12 <= 1e-15 ? fmax(1e-6, fabs(h) * 1e-3) : pow(0.01 / der12, 1.0 / 8.0);
    h = fmin(fmin(100.0 * fabs(h), h1), T);
  }
  for (long guard = 0; guard < 1000000; guard++) {
    if (t + 1.01 * h - T > 0.0) h = T - t, last = 1;
    for (int s = 1; s < 12; s++) { /* the stages */
      for (int i = 0; i < N; i++) {
        double acc = 0.0;
        for (int j = 0; j < s; j++) acc += hd_a[s][j] * k[j][i];
        xt[i] = x[i] + h * acc;
      }
      hand_rhs(p, xt, k[s]), evals++;
    }
    double err = 0.0, err2 = 0.0;
    for (int i = 0; i < N; i++) {
      double inc = 0.0, e5 = 0.0;
      for (int j = 0; j < 12; j++) inc += hd_b[j] * k[j][i], e5 += hd_e5[j] * k[j][i];
      y1[i] = x[i] + h * inc;
      sk = atol + rtol * fmax(fabs(x[i]), fabs(y1[i]));
      const double e3 = inc - hd_bh1 * k[0][i] - hd_bh2 * k[8][i] - hd_bh3 * k[11][i];
      err += (e5 / sk) * (e5 / sk), err2 += (e3 / sk) * (e3 / sk);
    }
    double deno = err + 0.01 * err2;
    if (deno <= 0.0) deno = 1.0;
    err = fabs(h) * err * sqrt(1.0 / (N * deno));
    const double fac11 = pow(err, 0.125);
    double fac = fmax(1.0 / 6.0, fmin(1.0 / 0.333, fac11 / 0.9));
    double hnew = h / fac;
    if (err <= 1.0) { /* accepted: FSAL */
      steps++;
      hand_rhs(p, y1, k[0]), evals++;
      for (int i = 0; i < N; i++) x[i] = y1[i];
      t += h;
      if (last) break;
      if (reject) hnew = fmin(fabs(hnew), fabs(h));
      reject = 0;
    } else {
      hnew = h / fmin(1.0 / 0.333, fac11 / 0.9);
      reject = 1, last = 0;
    }
    h = hnew;
  }
  *nfcn = evals, *nstep = steps;
  return last ? 0 : -1;
}

#endif
