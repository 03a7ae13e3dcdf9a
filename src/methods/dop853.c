/* dop853.c - the explicit Runge-Kutta pair 8(5,3) of Dormand and Prince with its dense output of
 * order 7 (Hairer, Norsett & Wanner, "Solving ODEs I", 2nd ed., sec. II.5, II.6 and II.10; the
 * coefficients are those of Hairer's Fortran code dop853.f).
 *
 *   k_i = F(t + c_i h, x0 + h sum_{j<i} a_ij k_j),  i = 1..12           (c_12 = 1)
 *   x1  = x0 + h sum_i b_i k_i                                          (order 8)
 *   e5  = h sum_i e_i k_i,   e3 = x1 - x0 - h (bh_1 k_1 + bh_9 k_9 + bh_12 k_12)
 *   err = |h| E5 / sqrt(nx (E5 + 0.01 E3)),  E5 = sum (e5_i / h sc_i)^2, E3 = sum (e3_i / h sc_i)^2,
 *         sc_i = atol + rtol max(|x0_i|, |x1_i|)     (dop853.f: a 5th- and a 3rd-order estimate
 *                                                    combined; it behaves like O(h^8))
 *   dense output, with k_13 = F(t + h, x1) and three more stages k_14, k_15, k_16 (rows 14-16 of a):
 *   x(t + s h) = r1 + s (r2 + s' (r3 + s (r4 + s' (r5 + s (r6 + s' (r7 + s r8)))))),  s' = 1 - s,
 *     r1 = x0, r2 = x1 - x0, r3 = h k1 - r2, r4 = r2 - h k13 - r3,
 *     r_{m+1} = h sum_i d_mi k_i  (m = 4..7, i = 1, 6..16)             (order 7)
 *
 * Evaluations: the first stage is F at the step's start, reused after a rejection and taken from
 * the dense output's k_13 when that was computed for the same state, so an accepted step costs 12
 * evaluations and a rejected one 11, as in dop853.f; the three dense stages are computed on the
 * first dense request of a step only. Step-size control is the driver's (sim), with the exponent
 * 1/8 of dop853.f (err_order 7). */
#include <math.h>
#include <string.h>

#include "methods/method_impl.h"

enum { NS = 16, MAXT = 12 };

/* a sparse coefficient row: its nonzero entries (stage index from 0, value) */
typedef struct {
  int n;
  int j[MAXT];
  double a[MAXT];
} dp_row;

// clang-format off
static const double dp_c[NS] = {
    0.0, 0.526001519587677318785587544488e-01, 0.789002279381515978178381316732e-01,
    0.118350341907227396726757197510e+00, 0.281649658092772603273242802490e+00,
    0.333333333333333333333333333333e+00, 0.25e+00, 0.307692307692307692307692307692e+00,
    0.651282051282051282051282051282e+00, 0.6e+00, 0.857142857142857142857142857142e+00, 1.0, 1.0,
    0.1e+00, 0.2e+00, 0.777777777777777777777777777778e+00};

/* rows 2..12 and 14..16 of a (row 13 is b); index i - 1 holds row i */
static const dp_row dp_a[NS] = {
    {0, {0}, {0}},
    {1, {0}, {5.26001519587677318785587544488e-2}},
    {2, {0, 1}, {1.97250569845378994544595329183e-2, 5.91751709536136983633785987549e-2}},
    {2, {0, 2}, {2.95875854768068491816892993775e-2, 8.87627564304205475450678981324e-2}},
    {3, {0, 2, 3}, {2.41365134159266685502369798665e-1, -8.84549479328286085344864962717e-1,
                    9.24834003261792003115737966543e-1}},
    {3, {0, 3, 4}, {3.7037037037037037037037037037e-2, 1.70828608729473871279604482173e-1,
                    1.25467687566822425016691814123e-1}},
    {4, {0, 3, 4, 5}, {3.7109375e-2, 1.70252211019544039314978060272e-1, 6.02165389804559606850219397283e-2,
                       -1.7578125e-2}},
    {5, {0, 3, 4, 5, 6}, {3.70920001185047927108779319836e-2, 1.70383925712239993810214054705e-1,
                          1.07262030446373284651809199168e-1, -1.53194377486244017527936158236e-2,
                          8.27378916381402288758473766002e-3}},
    {6, {0, 3, 4, 5, 6, 7}, {6.24110958716075717114429577812e-1, -3.36089262944694129406857109825e0,
                             -8.68219346841726006818189891453e-1, 2.75920996994467083049415600797e1,
                             2.01540675504778934086186788979e1, -4.34898841810699588477366255144e1}},
    {7, {0, 3, 4, 5, 6, 7, 8}, {4.77662536438264365890433908527e-1, -2.48811461997166764192642586468e0,
                                -5.90290826836842996371446475743e-1, 2.12300514481811942347288949897e1,
                                1.52792336328824235832596922938e1, -3.32882109689848629194453265587e1,
                                -2.03312017085086261358222928593e-2}},
    {8, {0, 3, 4, 5, 6, 7, 8, 9}, {-9.3714243008598732571704021658e-1, 5.18637242884406370830023853209e0,
                                   1.09143734899672957818500254654e0, -8.14978701074692612513997267357e0,
                                   -1.85200656599969598641566180701e1, 2.27394870993505042818970056734e1,
                                   2.49360555267965238987089396762e0, -3.0467644718982195003823669022e0}},
    {9, {0, 3, 4, 5, 6, 7, 8, 9, 10}, {2.27331014751653820792359768449e0, -1.05344954667372501984066689879e1,
                                       -2.00087205822486249909675718444e0, -1.79589318631187989172765950534e1,
                                       2.79488845294199600508499808837e1, -2.85899827713502369474065508674e0,
                                       -8.87285693353062954433549289258e0, 1.23605671757943030647266201528e1,
                                       6.43392746015763530355970484046e-1}},
    {0, {0}, {0}},
    {8, {0, 6, 7, 8, 9, 10, 11, 12}, {5.61675022830479523392909219681e-2, 2.53500210216624811088794765333e-1,
                                      -2.46239037470802489917441475441e-1, -1.24191423263816360469010140626e-1,
                                      1.5329179827876569731206322685e-1, 8.20105229563468988491666602057e-3,
                                      7.56789766054569976138603589584e-3, -8.298e-3}},
    {8, {0, 5, 6, 7, 10, 11, 12, 13}, {3.18346481635021405060768473261e-2, 2.83009096723667755288322961402e-2,
                                       5.35419883074385676223797384372e-2, -5.49237485713909884646569340306e-2,
                                       -1.08347328697249322858509316994e-4, 3.82571090835658412954920192323e-4,
                                       -3.40465008687404560802977114492e-4, 1.41312443674632500278074618366e-1}},
    {8, {0, 5, 6, 7, 8, 12, 13, 14}, {-4.28896301583791923408573538692e-1, -4.69762141536116384314449447206e0,
                                      7.68342119606259904184240953878e0, 4.06898981839711007970213554331e0,
                                      3.56727187455281109270669543021e-1, -1.39902416515901462129418009734e-3,
                                      2.9475147891527723389556272149e0, -9.15095847217987001081870187138e0}},
};

/* the weights b (stages 1, 6..12) and the 5th-order error weights e (the same stages) */
static const dp_row dp_b = {8, {0, 5, 6, 7, 8, 9, 10, 11},
    {5.42937341165687622380535766363e-2, 4.45031289275240888144113950566e0, 1.89151789931450038304281599044e0,
     -5.8012039600105847814672114227e0, 3.1116436695781989440891606237e-1, -1.52160949662516078556178806805e-1,
     2.01365400804030348374776537501e-1, 4.47106157277725905176885569043e-2}};
static const dp_row dp_e5 = {8, {0, 5, 6, 7, 8, 9, 10, 11},
    {0.1312004499419488073250102996e-01, -0.1225156446376204440720569753e+01, -0.4957589496572501915214079952e+00,
     0.1664377182454986536961530415e+01, -0.3503288487499736816886487290e+00, 0.3341791187130174790297318841e+00,
     0.8192320648511571246570742613e-01, -0.2235530786388629525884427845e-01}};
/* the 3rd-order weights bh (stages 1, 9, 12) */
static const dp_row dp_bh = {3, {0, 8, 11},
    {0.244094488188976377952755905512e+00, 0.733846688281611857341361741547e+00,
     0.220588235294117647058823529412e-01}};

/* the dense output's d_4 .. d_7 on stages 1, 6..16 */
static const dp_row dp_d[4] = {
    {12, {0, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
     {-0.84289382761090128651353491142e+01, 0.56671495351937776962531783590e+00, -0.30689499459498916912797304727e+01,
      0.23846676565120698287728149680e+01, 0.21170345824450282767155149946e+01, -0.87139158377797299206789907490e+00,
      0.22404374302607882758541771650e+01, 0.63157877876946881815570249290e+00, -0.88990336451333310820698117400e-01,
      0.18148505520854727256656404962e+02, -0.91946323924783554000451984436e+01, -0.44360363875948939664310572000e+01}},
    {12, {0, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
     {0.10427508642579134603413151009e+02, 0.24228349177525818288430175319e+03, 0.16520045171727028198505394887e+03,
      -0.37454675472269020279518312152e+03, -0.22113666853125306036270938578e+02, 0.77334326684722638389603898808e+01,
      -0.30674084731089398182061213626e+02, -0.93321305264302278729567221706e+01, 0.15697238121770843886131091075e+02,
      -0.31139403219565177677282850411e+02, -0.93529243588444783865713862664e+01, 0.35816841486394083752465898540e+02}},
    {12, {0, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
     {0.19985053242002433820987653617e+02, -0.38703730874935176555105901742e+03, -0.18917813819516756882830838328e+03,
      0.52780815920542364900561016686e+03, -0.11573902539959630126141871134e+02, 0.68812326946963000169666922661e+01,
      -0.10006050966910838403183860980e+01, 0.77771377980534432092869265740e+00, -0.27782057523535084065932004339e+01,
      -0.60196695231264120758267380846e+02, 0.84320405506677161018159903784e+02, 0.11992291136182789328035130030e+02}},
    {12, {0, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
     {-0.25693933462703749003312586129e+02, -0.15418974869023643374053993627e+03, -0.23152937917604549567536039109e+03,
      0.35763911791061412378285349910e+03, 0.93405324183624310003907691704e+02, -0.37458323136451633156875139351e+02,
      0.10409964950896230045147246184e+03, 0.29840293426660503123344363579e+02, -0.43533456590011143754432175058e+02,
      0.96324553959188282948394950600e+02, -0.39177261675615439165231486172e+02, -0.14972683625798562581422125276e+03}},
};
// clang-format on

/* the weight of the 3rd-order estimate in the combined error norm (dop853.f) */
#define DP_E3_WEIGHT 0.01

/* work layout (n = nx): k_1..k_16, xt, r5..r8 (the dense coefficients), then the slope cache
 * fsal (F at fsal_x, fsal_t: the dense output's k_13), k1_x (the state k_1 belongs to), then
 * the scalars fsal_t, k1_t and the flags fsal_ok, k1_ok, dense_ok. */
static size_t dop853_work_size(const nh_model *m) { return (NS + 1 + 4 + 3) * (size_t)m->nx + 5; }

typedef struct {
  double *k; /* k_{j+1} at k + j n */
  size_t n;
  double *xt, *r, *fsal, *fsal_x, *k1_x; /* r_{m+5} at r + m n */
  double *fsal_t, *k1_t, *fsal_ok, *k1_ok, *dense_ok;
} dp_work;

static dp_work carve(nh_stepper *s) {
  const size_t n = (size_t)s->nx;
  dp_work w;
  double *p = s->work;
  w.k = p, w.n = n, p += NS * n;
  w.xt = p, p += n;
  w.r = p, p += 4 * n;
  w.fsal = p, p += n;
  w.fsal_x = p, p += n;
  w.k1_x = p, p += n;
  w.fsal_t = p, w.k1_t = p + 1, w.fsal_ok = p + 2, w.k1_ok = p + 3, w.dense_ok = p + 4;
  return w;
}

static int same_state(int n, double t, const double *x, double ts, const double *xs) {
  return t == ts && memcmp(x, xs, sizeof(double) * (size_t)n) == 0;
}

/* fmax(|x|, |y|) without the call: the number when the other is a NaN */
static inline double max_abs(double x, double y) {
  const double ax = fabs(x), ay = fabs(y);
  return ay > ax || ax != ax ? ay : ax;
}

/* sum_m row.a_m k_{row.j_m}[I] for a row of the constant tables with its term count written
 * out: the sum (((0.0 + t_0) + t_1) + ...) unrolled, coefficients and stage indices folded by
 * the compiler (DP_T reads the caller's `k` and `kn`: k_{j+1} at k + j kn). */
#define DP_T(row, m, I) ((row).a[m] * k[(size_t)(row).j[m] * kn + (I)])
#define DP_S1(r, I) (0.0 + DP_T(r, 0, I))
#define DP_S2(r, I) (DP_S1(r, I) + DP_T(r, 1, I))
#define DP_S3(r, I) (DP_S2(r, I) + DP_T(r, 2, I))
#define DP_S4(r, I) (DP_S3(r, I) + DP_T(r, 3, I))
#define DP_S5(r, I) (DP_S4(r, I) + DP_T(r, 4, I))
#define DP_S6(r, I) (DP_S5(r, I) + DP_T(r, 5, I))
#define DP_S7(r, I) (DP_S6(r, I) + DP_T(r, 6, I))
#define DP_S8(r, I) (DP_S7(r, I) + DP_T(r, 7, I))
#define DP_S9(r, I) (DP_S8(r, I) + DP_T(r, 8, I))
#define DP_S12(r, I) (DP_S9(r, I) + DP_T(r, 9, I) + DP_T(r, 10, I) + DP_T(r, 11, I))

/* xt = x0 + h sum_j a_{st,j} k_j for stage st (from 0: rows 2..12 and 14..16 of a, of cnt
 * terms: a count that disagrees with the table's is an internal error the compiler folds
 * away), two components at a time (the compiler may pair them in one vector operation) */
#define DP_STAGE(st, cnt)                                                                                             \
  case st:                                                                                                            \
    if (dp_a[st].n != cnt) return NH_ERR_ARG;                                                                         \
    for (i = 0; i + 1 < n; i += 2) {                                                                                  \
      xt[i] = x0[i] + h * DP_S##cnt(dp_a[st], i);                                                                     \
      xt[i + 1] = x0[i + 1] + h * DP_S##cnt(dp_a[st], i + 1);                                                         \
    }                                                                                                                 \
    if (i < n) xt[i] = x0[i] + h * DP_S##cnt(dp_a[st], i);                                                            \
    return 0
static int stage_state(int st, const double *k, int n, const double *restrict x0, double h, double *restrict xt) {
  const size_t kn = (size_t)n;
  int i;
  switch (st) {
    DP_STAGE(1, 1);
    DP_STAGE(2, 2);
    DP_STAGE(3, 2);
    DP_STAGE(4, 3);
    DP_STAGE(5, 3);
    DP_STAGE(6, 4);
    DP_STAGE(7, 5);
    DP_STAGE(8, 6);
    DP_STAGE(9, 7);
    DP_STAGE(10, 8);
    DP_STAGE(11, 9);
    DP_STAGE(13, 8);
    DP_STAGE(14, 8);
    DP_STAGE(15, 8);
  default:
    return NH_ERR_ARG;
  }
}

/* k_i = F(t + c_i h, x0 + h sum_j a_ij k_j) for stages first..last (from 0) */
static int stages(nh_stepper *s, dp_work *w, double t, const double *x0, double h, int first, int last) {
  int rc;
  for (int st = first; st <= last; st++) {
    if ((rc = stage_state(st, w->k, s->nx, x0, h, w->xt))) return rc;
    if ((rc = nh_dyn_rhs(s->dyn, t + dp_c[st] * h, w->xt, w->k + (size_t)st * w->n))) return rc;
    s->evals++;
  }
  return 0;
}

/* x1 = x0 + h sum_i b_i k_i, ea = sum_i e_i k_i and eb = sum_i b_i k_i - sum_i bh_i k_i (the
 * estimates of order 5 and 3 over h), two components at a time */
#define DP_SOLUTION(I)                                                                                                \
  do {                                                                                                                \
    const double sb = DP_S8(dp_b, I);                                                                                 \
    x1[I] = x0[I] + h * sb;                                                                                           \
    ea[I] = DP_S8(dp_e5, I), eb[I] = sb - DP_S3(dp_bh, I);                                                            \
  } while (0)
static void solution(const double *restrict k, int n, const double *restrict x0, double h, double *restrict x1,
                     double *restrict ea, double *restrict eb) {
  const size_t kn = (size_t)n;
  int i;
  for (i = 0; i + 1 < n; i += 2) {
    DP_SOLUTION(i);
    DP_SOLUTION(i + 1);
  }
  if (i < n) DP_SOLUTION(i);
}

static int dop853_step(nh_stepper *s, double t, const double *x0, double h, double *x1, double *err) {
  const int n = s->nx;
  dp_work w = carve(s);
  int rc;
  *w.dense_ok = 0.0;

  // first stage: reuse k1, or the slope the dense output computed at the last step's end
  if (!(*w.k1_ok != 0.0 && same_state(n, t, x0, *w.k1_t, w.k1_x))) {
    if (*w.fsal_ok != 0.0 && same_state(n, t, x0, *w.fsal_t, w.fsal_x)) {
      memcpy(w.k, w.fsal, sizeof(double) * (size_t)n);
    } else {
      *w.k1_ok = 0.0;
      if ((rc = nh_dyn_rhs(s->dyn, t, x0, w.k))) return rc;
      s->evals++;
    }
    memcpy(w.k1_x, x0, sizeof(double) * (size_t)n);
    *w.k1_t = t;
    *w.k1_ok = 1.0;
  }

  // stages 2..12
  if ((rc = stages(s, &w, t, x0, h, 1, 11))) return rc;
  // the solution of order 8 and, into the dense coefficients' space (free until dense_prepare),
  // the 5th- and 3rd-order error estimates
  double *ea = w.r, *eb = w.r + w.n;
  solution(w.k, n, x0, h, x1, ea, eb);

  // the combined 5th/3rd-order error norm of dop853.f
  if (err) {
    double e5 = 0.0, e3 = 0.0;
    for (int i = 0; i < n; i++) {
      double sc = s->atol + s->rtol * max_abs(x0[i], x1[i]);
      double a = ea[i] / sc;
      double b = eb[i] / sc;
      e5 += a * a, e3 += b * b;
    }
    double deno = e5 + DP_E3_WEIGHT * e3;
    *err = deno > 0.0 ? fabs(h) * e5 / sqrt(n * deno) : deno == 0.0 ? 0.0 : INFINITY; /* NaN: +inf (nh_err_norm) */
  }
  return 0;
}

/* the dense coefficients r5..r8 of the last step: k_13 = F(t + h, x1) (kept as the next step's
 * first stage), the stages 14..16 */
static int dense_prepare(nh_stepper *s, dp_work *w, double t, const double *x0, double h, const double *x1) {
  const int n = s->nx;
  int rc;
  if ((rc = nh_dyn_rhs(s->dyn, t + h, x1, w->k + 12 * w->n))) return rc;
  s->evals++;
  memcpy(w->fsal, w->k + 12 * w->n, sizeof(double) * (size_t)n);
  memcpy(w->fsal_x, x1, sizeof(double) * (size_t)n);
  *w->fsal_t = t + h;
  *w->fsal_ok = 1.0;
  if ((rc = stages(s, w, t, x0, h, 13, 15))) return rc;
  const double *k = w->k;
  const size_t kn = w->n;
  double *r = w->r;
  for (int i = 0; i < n; i++) {
    r[i] = h * DP_S12(dp_d[0], i);
    r[kn + i] = h * DP_S12(dp_d[1], i);
    r[2 * kn + i] = h * DP_S12(dp_d[2], i);
    r[3 * kn + i] = h * DP_S12(dp_d[3], i);
  }
  *w->dense_ok = 1.0;
  return 0;
}

static int dop853_dense(nh_stepper *s, double t, const double *x0, double h, const double *x1, double theta,
                        double *x) {
  const int n = s->nx;
  dp_work w = carve(s);
  int rc;
  // once per step (and again if the caller changed x1)
  if (!(*w.dense_ok != 0.0 && same_state(n, t + h, x1, *w.fsal_t, w.fsal_x)) &&
      (rc = dense_prepare(s, &w, t, x0, h, x1)))
    return rc;
  const double th = theta, th1 = 1.0 - theta;
  for (int i = 0; i < n; i++) {
    double r2 = x1[i] - x0[i];
    double r3 = h * w.k[i] - r2;
    double r4 = r2 - h * w.k[12 * w.n + i] - r3;
    const double *r = w.r + i;
    double p = r[0] + th * (r[w.n] + th1 * (r[2 * w.n] + th * r[3 * w.n]));
    x[i] = x0[i] + th * (r2 + th1 * (r3 + th * (r4 + th1 * p)));
  }
  return 0;
}

const nh_method nh_method_dop853 = {
    .name = "dop853",
    .summary = "Dormand-Prince 8(5,3), adaptive, dense output of order 7 (high accuracy)",
    .preserves = "nothing exactly; errors controlled by rtol/atol",
    .order = 8,
    .err_order = 7,
    .flags = NH_METHOD_ADAPTIVE,
    .work_size = dop853_work_size,
    .supports = NULL,
    .step = dop853_step,
    .dense = dop853_dense,
    .contact = NH_HOLD_ROWS,
};
