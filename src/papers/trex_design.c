/* trex_design.c - the design of Seghete & Murphey's Table I with NLopt: from a row whose tail
 * and left foot touch the floor together, the nearest row (in a scaled distance) where they
 * still touch and their normals are orthogonal in the kinetic metric, so that the impact's
 * outcome does not depend on the order of the reflections (Lemma 7). The paper used "a
 * classic root finding algorithm for underconstrained systems"; we minimise the distance
 * under the three equality constraints with NLopt's SLSQP (gradients by central
 * differences). Built only with NLopt's header (NHOLO_HAVE_NLOPT); the library is opened
 * when the design runs (dlopen, so no other command loads it); without it the function says
 * so. */
#include <math.h>
#include <string.h>

#include "nholo/status.h"
#include "base/msg.h"
#include "trex.h"

#ifdef NHOLO_HAVE_NLOPT
#include <dlfcn.h>
#include <nlopt.h>

/* NLopt's shared library (its soname on Debian, NLopt 2.x) and the functions used */
#define TREX_NLOPT_SONAME "libnlopt.so.0"
static struct {
  nlopt_opt (*create)(nlopt_algorithm, unsigned);
  nlopt_result (*set_min_objective)(nlopt_opt, nlopt_func, void *);
  nlopt_result (*add_equality_mconstraint)(nlopt_opt, unsigned, nlopt_mfunc, void *, const double *);
  nlopt_result (*set_lower_bounds)(nlopt_opt, const double *);
  nlopt_result (*set_upper_bounds)(nlopt_opt, const double *);
  nlopt_result (*set_xtol_rel)(nlopt_opt, double);
  nlopt_result (*set_maxeval)(nlopt_opt, int);
  nlopt_result (*optimize)(nlopt_opt, double *, double *);
  void (*destroy)(nlopt_opt);
} nl;
static int nl_state;     /* 0: not tried, 1: loaded, -1: unavailable */
static char nl_why[256]; /* why not */

static int nlopt_open(void) {
  if (nl_state) return nl_state > 0;
  void *h = dlopen(TREX_NLOPT_SONAME, RTLD_NOW | RTLD_LOCAL);
  static const char *const names[9] = {"nlopt_create", "nlopt_set_min_objective", "nlopt_add_equality_mconstraint",
                                       "nlopt_set_lower_bounds", "nlopt_set_upper_bounds", "nlopt_set_xtol_rel",
                                       "nlopt_set_maxeval", "nlopt_optimize", "nlopt_destroy"};
  void **slots[9] = {(void **)&nl.create, (void **)&nl.set_min_objective, (void **)&nl.add_equality_mconstraint,
                     (void **)&nl.set_lower_bounds, (void **)&nl.set_upper_bounds, (void **)&nl.set_xtol_rel,
                     (void **)&nl.set_maxeval, (void **)&nl.optimize, (void **)&nl.destroy};
  nl_state = h ? 1 : -1;
  for (int i = 0; h && i < 9; i++)
    if (!(*slots[i] = dlsym(h, names[i]))) nl_state = -1;
  if (nl_state < 0) {
    const char *e = dlerror();
    nh_set_msg(nl_why, sizeof nl_why, "%s", e ? e : TREX_NLOPT_SONAME " lacks a function");
  }
  return nl_state > 0;
}

/* the variables: y, th, pL, gL, pR, gR, pT (q[1..7]) and r1, r2, lu, ll */
#define NZ 11
/* scales of the distance: the table's own units, 1 cm for lengths and 1 rad for angles (the
 * minimum-norm step of a root solve in those units; docs/trex.md) */
#define TREX_SCALE_LEN 1.0
#define TREX_SCALE_ANG 1.0
/* difference step of the constraint gradients (in scaled units), tolerances, budget */
#define TREX_OPT_FD 1e-6
#define TREX_OPT_GAP_TOL 1e-12 /* cm */
#define TREX_OPT_C_TOL 1e-13
#define TREX_OPT_XTOL 1e-14
#define TREX_OPT_MAXEVAL 5000

typedef struct design_ctx {
  double z0[NZ], scale[NZ];
  trex_row base;
  int evals;
} design_ctx;

/* the row of scaled variables w (z = z0 + scale w) */
static void row_of(const design_ctx *cx, const double *w, trex_row *row) {
  *row = cx->base;
  double z[NZ];
  for (int i = 0; i < NZ; i++) z[i] = cx->z0[i] + cx->scale[i] * w[i];
  for (int i = 0; i < 7; i++) row->q[1 + i] = z[i];
  row->d = (trex_design){z[7], z[8], z[9], z[10]};
}

/* the three equalities: tail gap, footL gap (cm), cosine */
static void constraints(const design_ctx *cx, const double *w, double *h) {
  trex_row row;
  double gap[TREX_NGAP];
  row_of(cx, w, &row);
  trex_geometry(&row.d, row.q, NULL, gap, NULL);
  h[0] = gap[TREX_TAIL];
  h[1] = gap[TREX_FOOT_L];
  h[2] = trex_cosine(&row, NULL, 0) == NH_OK ? row.c : HUGE_VAL;
}

static double objective(unsigned n, const double *w, double *grad, void *user) {
  design_ctx *cx = user;
  cx->evals++;
  double f = 0.0;
  for (unsigned i = 0; i < n; i++) {
    f += w[i] * w[i];
    if (grad) grad[i] = 2.0 * w[i];
  }
  return f;
}

static void equalities(unsigned m, double *h, unsigned n, const double *w, double *grad, void *user) {
  const design_ctx *cx = user;
  constraints(cx, w, h);
  if (!grad) return;
  double wk[NZ], hp[3], hm[3];
  memcpy(wk, w, n * sizeof *w);
  for (unsigned j = 0; j < n; j++) {
    wk[j] = w[j] + TREX_OPT_FD;
    constraints(cx, wk, hp);
    wk[j] = w[j] - TREX_OPT_FD;
    constraints(cx, wk, hm);
    wk[j] = w[j];
    for (unsigned i = 0; i < m; i++) grad[i * n + j] = (hp[i] - hm[i]) / (2 * TREX_OPT_FD);
  }
}

int trex_have_nlopt(void) { return nlopt_open(); }

int trex_optimise(const trex_row *start, trex_row *out, int *evals, char *msg, size_t msg_size) {
  if (evals) *evals = 0;
  if (!nlopt_open()) {
    nh_set_msg(msg, msg_size, "trex-design needs NLopt's library, which could not be opened: %s", nl_why);
    return NH_ERR_UNSUPPORTED;
  }
  design_ctx cx;
  memset(&cx, 0, sizeof cx);
  cx.base = *start;
  for (int i = 0; i < 7; i++) {
    cx.z0[i] = start->q[1 + i];
    cx.scale[i] = i == 0 ? TREX_SCALE_LEN : TREX_SCALE_ANG;
  }
  const double len[4] = {start->d.r1, start->d.r2, start->d.lu, start->d.ll};
  for (int i = 0; i < 4; i++) cx.z0[7 + i] = len[i], cx.scale[7 + i] = TREX_SCALE_LEN;
  // bounds: lengths at least half and at most twice the start's, r1 > r2 kept by the box
  double lo[NZ], hi[NZ], w[NZ] = {0};
  for (int i = 0; i < NZ; i++) lo[i] = -HUGE_VAL, hi[i] = HUGE_VAL;
  for (int i = 7; i < NZ; i++) lo[i] = -0.5 * cx.z0[i], hi[i] = cx.z0[i];
  nlopt_opt opt = nl.create(NLOPT_LD_SLSQP, NZ);
  if (!opt) {
    nh_set_msg(msg, msg_size, "trex-design: NLopt could not create its optimiser");
    return NH_ERR_NOMEM;
  }
  const double tol[3] = {TREX_OPT_GAP_TOL, TREX_OPT_GAP_TOL, TREX_OPT_C_TOL};
  nl.set_min_objective(opt, objective, &cx);
  nl.add_equality_mconstraint(opt, 3, equalities, &cx, tol);
  nl.set_lower_bounds(opt, lo);
  nl.set_upper_bounds(opt, hi);
  nl.set_xtol_rel(opt, TREX_OPT_XTOL);
  nl.set_maxeval(opt, TREX_OPT_MAXEVAL);
  double f;
  nlopt_result r = nl.optimize(opt, w, &f);
  nl.destroy(opt);
  double h[3];
  constraints(&cx, w, h);
  if (evals) *evals = cx.evals;
  if (r < 0 || !(fabs(h[0]) <= 1e3 * TREX_OPT_GAP_TOL && fabs(h[1]) <= 1e3 * TREX_OPT_GAP_TOL &&
                 fabs(h[2]) <= 1e3 * TREX_OPT_C_TOL)) {
    nh_set_msg(msg, msg_size,
               "trex-design: NLopt SLSQP stopped (code %d) at gaps %.3g, %.3g cm and cosine %.3g",
               (int)r, h[0], h[1], h[2]);
    return NH_ERR_NO_CONVERGENCE;
  }
  row_of(&cx, w, out);
  trex_lift(&out->d, out->q);
  return trex_cosine(out, msg, msg_size);
}

#else

int trex_have_nlopt(void) { return 0; }

int trex_optimise(const trex_row *start, trex_row *out, int *evals, char *msg, size_t msg_size) {
  (void)start;
  (void)out;
  if (evals) *evals = 0;
  nh_set_msg(msg, msg_size, "trex-design needs NLopt, and this nholo was built without it "
                            "(install libnlopt-dev and configure again)");
  return NH_ERR_UNSUPPORTED;
}

#endif
