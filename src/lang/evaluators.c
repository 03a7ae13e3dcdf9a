/* evaluators.c - the evaluators of a model file on tapes, and the user data block behind a
 * model file's evaluators (tapes, or the shared object of generated C).
 *
 * The tape back end has one tape per group (mf.h), run by the evaluators below, with their
 * slots in a per-thread buffer that grows once (the model stays shareable between threads).
 * Generated C brings its own evaluators (codegen.c), which the model calls directly. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/mf.h"
#include "expr/tape.h"
#include "base/msg.h"
#include "nholo/status.h"

typedef struct mf_eval {
  int nq, nc, ng;
  int poisson; /* the first-order state is x (nq), else (q, v) */
  nh_tape *t[MF_EV_COUNT];
  int *idx[MF_EV_COUNT]; /* sparse groups: the dense places of the outputs (else NULL) */
  long dense[MF_EV_COUNT]; /* their dense sizes */
  void *dl; /* the loaded shared object (codegen) */
  nh_gni_kernel_fn gni; /* its gni free-motion kernel (codegen_gni.c), or NULL */
  int gni_code;
  const double *gni_M;
  /* monitors that read the multipliers: the model (set once it is built) computes them, and
   * the monitors run compiled (mon, lambda passed as its user pointer) or on the tape */
  const nh_model *model;
  nh_monitor_fn mon;
  char note[1200]; /* why the tape although the compiler was tried (nh_model_backend_note) */
} mf_eval;

/* per-thread scratch: tape slots and the split outputs of pair groups, grown once. Two
 * words of initial-exec TLS: no __tls_get_addr call per evaluation in position-independent
 * code. */
#if defined(__GNUC__)
#define MF_TLS _Thread_local __attribute__((tls_model("initial-exec")))
#else
#define MF_TLS _Thread_local
#endif
static MF_TLS double *tls_buf, *tls_x;
static MF_TLS size_t tls_size, tls_xsize;
static MF_TLS double *tls_accel; /* nh_model_accel's work (monitors that read lambda) */
static MF_TLS size_t tls_accel_size;

/* the scratch freed when its thread exits (the ensembles' threads live for one chunk): a key
 * whose value, set on the thread's first growth, only marks it; its destructor runs on the
 * exiting thread, whose thread-local variables are still there. The main thread's scratch
 * lives to the end of the process, reachable. */
static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static int tls_key_made;

static void tls_free(void *mark) {
  (void)mark;
  free(tls_buf), free(tls_x), free(tls_accel);
  tls_buf = tls_x = tls_accel = NULL;
  tls_size = tls_xsize = tls_accel_size = 0;
}
static void tls_key_make(void) { tls_key_made = pthread_key_create(&tls_key, tls_free) == 0; }
static void tls_mark(void) {
  pthread_once(&tls_once, tls_key_make);
  if (tls_key_made && !pthread_getspecific(tls_key)) pthread_setspecific(tls_key, &tls_key);
}
#if defined(__GNUC__)
/* no destructor left in a library that is unloaded while threads that used it live on */
__attribute__((destructor)) static void tls_key_drop(void) {
  if (tls_key_made) pthread_key_delete(tls_key);
}
#endif

static double *grow(double **buf, size_t *size, size_t n) {
  if (n > *size) {
    if (!*buf) tls_mark();
    double *b = realloc(*buf, sizeof(double) * n);
    if (!b) return NULL;
    *buf = b, *size = n;
  }
  return *buf;
}
static double *scratch(size_t n) { return grow(&tls_buf, &tls_size, n); }
/* the packed variables (q, v, t) of an evaluation: 2 nq + 1 doubles */
static double *xbuf(int nq) { return grow(&tls_x, &tls_xsize, 2 * (size_t)nq + 1); }

/* tape ev at vars into out; extra doubles of scratch are kept free before the slots */
static int run_at(const mf_eval *u, int ev, const double *vars, double *out, size_t extra) {
  const nh_tape *t = u->t[ev];
  double *b = scratch(extra + (size_t)nh_tape_nslots(t));
  if (!b) return -1;
  nh_tape_eval(t, vars, b + extra, out);
  return 0;
}
/* a sparse group: zeros, then its structural non-zeros at their places */
static int run_sparse(const mf_eval *u, int ev, const double *vars, double *out) {
  memset(out, 0, sizeof(double) * (size_t)u->dense[ev]);
  if (!u->t[ev]) return 0; /* no non-zero at all (the derivative of a constant M) */
  int n = nh_tape_noutputs(u->t[ev]);
  double *b = scratch((size_t)n + (size_t)nh_tape_nslots(u->t[ev]));
  if (!b) return -1;
  nh_tape_eval(u->t[ev], vars, b + n, b);
  for (int i = 0; i < n; i++) out[u->idx[ev][i]] = b[i];
  return 0;
}
static int run(const mf_eval *u, int ev, const double *vars, double *out) {
  return u->idx[ev] || !u->t[ev] ? run_sparse(u, ev, vars, out) : run_at(u, ev, vars, out, 0);
}

/* [q, v, t] for the groups that read velocities or time */
static void pack(int nq, const double *q, const double *v, double t, double *x) {
  memcpy(x, q, sizeof(double) * (size_t)nq);
  if (v) memcpy(x + nq, v, sizeof(double) * (size_t)nq);
  else memset(x + nq, 0, sizeof(double) * (size_t)nq);
  x[2 * nq] = t;
}

/* run a two-part group into a and b (either Nullable) */
static int run_pair(const mf_eval *u, int ev_a, int ev_b, int ev_ab, int na, int nb,
                    const double *vars, double *a, double *b) {
  if (a && b) {
    size_t n = (size_t)(na + nb);
    double *tmp = scratch(n + (size_t)nh_tape_nslots(u->t[ev_ab]));
    if (!tmp) return -1;
    int rc = run_at(u, ev_ab, vars, tmp, n); /* the slots follow the n outputs */
    memcpy(a, tmp, sizeof(double) * (size_t)na);
    memcpy(b, tmp + na, sizeof(double) * (size_t)nb);
    return rc;
  }
  if (a) return run(u, ev_a, vars, a);
  if (b) return run(u, ev_b, vars, b);
  return 0;
}

static int ev_mass(const double *q, double *M, void *user) { return run(user, MF_EV_MASS, q, M); }
static int ev_potential(const double *q, double *V, double *dV, void *user) {
  const mf_eval *u = user;
  return run_pair(u, MF_EV_V, MF_EV_DV, MF_EV_VDV, 1, u->nq, q, V, dV);
}
static int ev_coriolis(const double *q, const double *v, double *c, void *user) {
  const mf_eval *u = user;
  double *x = xbuf(u->nq);
  if (!x) return -1;
  pack(u->nq, q, v, 0.0, x);
  return run(u, MF_EV_COR, x, c);
}
static int ev_force(double t, const double *q, const double *v, double *f, void *user) {
  const mf_eval *u = user;
  double *x = xbuf(u->nq);
  if (!x) return -1;
  pack(u->nq, q, v, t, x);
  return run(u, MF_EV_FORCE, x, f);
}
static int ev_constraint(const double *q, const double *v, double *A, double *Adv, void *user) {
  const mf_eval *u = user;
  if (!Adv) return A ? run(u, MF_EV_A, q, A) : 0; /* A reads q only */
  double *x = xbuf(u->nq);
  if (!x) return -1;
  pack(u->nq, q, v, 0.0, x);
  return run_pair(u, MF_EV_A, MF_EV_ADV, MF_EV_AADV, u->nc * u->nq, u->nc, x, A, Adv);
}
static int ev_gap(const double *q, double *g, double *dg, void *user) {
  const mf_eval *u = user;
  return run_pair(u, MF_EV_G, MF_EV_DG, MF_EV_GDG, u->ng, u->ng * u->nq, q, g, dg);
}
static int ev_dmass(const double *q, double *dM, void *user) { return run(user, MF_EV_DM, q, dM); }
static int ev_d2mass(const double *q, double *d2M, void *user) { return run(user, MF_EV_D2M, q, d2M); }
static int ev_hess(const double *q, double *H, void *user) { return run(user, MF_EV_H, q, H); }
static int ev_dA(const double *q, double *dA, void *user) { return run(user, MF_EV_DA, q, dA); }
static int ev_phi(const double *q, double *phi, void *user) { return run(user, MF_EV_PHI, q, phi); }
static int ev_ham(const double *x, double *H, double *dH, void *user) {
  const mf_eval *u = user;
  return run_pair(u, MF_EV_HAM, MF_EV_DH, MF_EV_HDH, 1, u->nq, x, H, dH);
}
static int ev_pi(const double *x, double *Pi, void *user) { return run(user, MF_EV_PI, x, Pi); }
static int ev_hs(const double *x, double *Hs, void *user) { return run(user, MF_EV_HS, x, Hs); }
static int ev_pt(const double *x, const double *g, double *T, void *user) {
  const mf_eval *u = user;
  double *xg = xbuf(u->nq);
  if (!xg) return -1;
  pack(u->nq, x, g, 0.0, xg);
  return run(u, MF_EV_PT, xg, T);
}
static int ev_fjac(double t, const double *q, const double *v, double *dfdq, double *dfdv, void *user) {
  const mf_eval *u = user;
  double *x = xbuf(u->nq);
  if (!x) return -1;
  pack(u->nq, q, v, t, x);
  int rc = dfdq ? run(u, MF_EV_DFDQ, x, dfdq) : 0;
  return rc ? rc : dfdv ? run(u, MF_EV_DFDV, x, dfdv) : 0;
}

/* the monitors at (t, x): x = (q, v), or the state of an almost-Poisson model */
static int ev_monitor(double t, const double *x, double *mon, void *user) {
  const mf_eval *u = user;
  double *xt = xbuf(u->nq);
  if (!xt) return -1;
  pack(u->nq, x, u->poisson ? NULL : x + u->nq, t, xt);
  return run(u, MF_EV_MON, xt, mon);
}

/* the monitors that read the multipliers: lambda from the model's dynamics at (t, q, v), then
 * the monitors at (q, v, t, lambda) */
static int ev_monitor_lambda(double t, const double *x, double *mon, void *user) {
  const mf_eval *u = user;
  size_t need = nh_model_accel_work_size(u->model);
  if (need > tls_accel_size && !grow(&tls_accel, &tls_accel_size, need)) return -1;
  double lam[NH_MF_MAX_ITEMS], xt[2 * NH_MF_MAX_Q + 1 + NH_MF_MAX_ITEMS];
  int rc = nh_model_accel(u->model, t, x, x + u->nq, NULL, lam, tls_accel);
  if (rc != NH_OK) return rc == NH_ERR_NOMEM || rc == NH_ERR_CALLBACK ? -1 : 1;
  if (u->mon) return u->mon(t, x, mon, lam);
  pack(u->nq, x, x + u->nq, t, xt);
  memcpy(xt + 2 * u->nq + 1, lam, sizeof(double) * (size_t)u->nc);
  return run(u, MF_EV_MON, xt, mon);
}

void mf_eval_set_model(void *user, const nh_model *model) {
  if (user) ((mf_eval *)user)->model = model;
}

void mf_eval_free(void *user) {
  mf_eval *u = user;
  if (!u) return;
  for (int i = 0; i < MF_EV_COUNT; i++) nh_tape_destroy(u->t[i]), free(u->idx[i]);
  mf_codegen_unload(u->dl);
  free(u);
}

/* the tape evaluators, by the fields of nh_model_def they fill */
static const mf_fns tape_fns = {
    .mass = ev_mass,
    .potential = ev_potential,
    .coriolis = ev_coriolis,
    .force = ev_force,
    .constraint = ev_constraint,
    .gap = ev_gap,
    .mass_deriv = ev_dmass,
    .mass_deriv2 = ev_d2mass,
    .potential_hess = ev_hess,
    .constraint_deriv = ev_dA,
    .force_jac = ev_fjac,
    .holonomic = ev_phi,
    .hamiltonian = ev_ham,
    .poisson = ev_pi,
    .hamiltonian_hess = ev_hs,
    .poisson_jac = ev_pt,
    .monitor = ev_monitor,
};

static mf_eval *eval_new(const mf *m) {
  mf_eval *u = calloc(1, sizeof *u);
  if (u) u->nq = m->nq, u->nc = m->nc, u->ng = m->ngap, u->poisson = m->poisson;
  return u;
}

int mf_eval_tapes(const mf *m, mf_fns *fns, void **user) {
  *user = NULL;
  mf_eval *u = eval_new(m);
  if (!u) return NH_ERR_NOMEM;
  int cap = 1;
  for (int ev = 0; ev < MF_EV_COUNT; ev++)
    if (mf_group_size(m, ev) > cap) cap = mf_group_size(m, ev);
  int *ids = malloc(sizeof(int) * (size_t)cap);
  int rc = ids ? NH_OK : NH_ERR_NOMEM;
  for (int ev = 0; ev < MF_EV_COUNT && rc == NH_OK; ev++) { /* one tape per nonempty group read */
    int n = mf_group_size(m, ev);
    const int *idx = mf_group_index(m, ev);
    u->dense[ev] = mf_group_dense(m, ev);
    if (idx && mf_group_used(m, ev) && !(u->idx[ev] = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)))) rc = NH_ERR_NOMEM;
    if (u->idx[ev]) memcpy(u->idx[ev], idx, sizeof(int) * (size_t)n);
    if (n == 0 || !mf_group_used(m, ev) || rc) continue;
    mf_group_outputs(m, ev, ids);
    if (!(u->t[ev] = nh_tape_create(m->pool, n, ids))) rc = NH_ERR_NOMEM;
  }
  free(ids);
  if (rc != NH_OK) {
    mf_eval_free(u);
    return rc;
  }
  *fns = tape_fns;
  if (m->mon_lambda) fns->monitor = ev_monitor_lambda;
  *user = u;
  return NH_OK;
}

int mf_eval_compiled(const mf *m, mf_fns *fns, void **user, char *why, size_t why_size) {
  *user = NULL;
  mf_eval *u = eval_new(m);
  if (!u) {
    nh_set_msg(why, why_size, "out of memory");
    return NH_ERR_UNSUPPORTED;
  }
  int rc = mf_codegen_load(m, fns, &u->dl, why, why_size);
  if (rc != NH_OK) {
    mf_eval_free(u);
    return rc;
  }
  if (m->mon_lambda) u->mon = fns->monitor, fns->monitor = ev_monitor_lambda;
  // the kernel, when the source has one (dlsym's object pointer converts to the function)
  void *k = mf_gni_kernel_code(m) ? dlsym(u->dl, "nh_mf_gni_free") : NULL;
  const int *code = k ? dlsym(u->dl, "nh_mf_gni_free_code") : NULL;
  const double *M = k ? dlsym(u->dl, "nh_mf_gni_M") : NULL;
  if (k && code && M) memcpy(&u->gni, &k, sizeof k), u->gni_code = *code, u->gni_M = M;
  *user = u;
  return NH_OK;
}

void mf_eval_set_note(void *user, const char *file, const char *why) {
  mf_eval *u = user;
  if (u) snprintf(u->note, sizeof u->note, "%s: %s", file, why);
}

const char *mf_eval_note(const void *user) {
  const mf_eval *u = user;
  return u ? u->note : "";
}

nh_gni_kernel_fn mf_eval_gni_kernel(void *user, int *code, const double **M) {
  const mf_eval *u = user;
  *code = u ? u->gni_code : 0;
  *M = u ? u->gni_M : NULL;
  return u ? u->gni : NULL;
}
