/* vi.h - what the variational integrators share (gni.c: gni and del; rattle_shake.c): the
 * workspace carved from the stepper's work block, the carried vector keyed by the state it
 * belongs to, and the building blocks (mass factor, projector, Q^T, forces). The methods and
 * their equations are described at the top of gni.c. Helpers forced inline take n (= w->n) as
 * an argument: a step is compiled for a few fixed small n, where the compiler unrolls their
 * loops. */
#ifndef NH_METHODS_VI_H
#define NH_METHODS_VI_H

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "la/la.h"
#include "methods/method_impl.h"
#include "model/metric.h"
#include "model/model_impl.h"

/* the symmetric systems of these methods are well conditioned; singular below this pivot */
#define VI_PIVOT_TOL 1e-14
/* Newton's iterate is at round-off when its last correction was below VI_NEWTON_DQ_ULPS ulps
 * of q (with a small step the momentum residual cannot get below ~ eps |M| |q| / h, which may
 * exceed the tolerance); it is then accepted when its residual is within VI_NEWTON_RES_SLACK
 * times the tolerance or within that rounding floor (vi_res_floor: a partial step of event
 * location can be 1e-14 s long, where the floor is 1e-2 of the terms) (gni, del, rattle, shake
 * and the DLA steps alike) */
#define VI_NEWTON_DQ_ULPS 8.0
#define VI_NEWTON_RES_SLACK 1e3
/* Newton's residuals are relative to the magnitudes of their own terms at the iterate, so that
 * a change of units changes neither the iterations nor the acceptance (del, rattle, shake,
 * gni and the DLA steps with a q-dependent M): the momentum residual -D1 L_d - pm to
 * max(|pm|, |M v|, h/2 |1/2 v^T dM v|, h/2 |dV|) (pm holds p_k, h/2 f_k and the reactions;
 * inf-norms), a constraint row to |row of A| times the coordinates' scale (holonomic, phi(q))
 * or the velocities' (the midpoint discrete constraint), and a correction of q to |q|. The
 * scales are floored by VI_RES_SCALE_FLOOR only to stay positive when every term is 0 (the
 * residual is 0 then as well) */
#define VI_RES_SCALE_FLOOR DBL_MIN
/* midpoint start of gni: fixed-point iterations on the constraint at the half point */
#define VI_START_MAX_ITER 50
/* del's dense Newton matrix: coordinates plus constraint (and held contact) rows, at most */
#define DEL_MAX_UNKNOWNS 64

enum { VI_GNI, VI_DEL }; /* the two users of vi_step */
/* forced inline when optimizing (the n-specialized copies of gni.c); at -O0 (Debug, the
 * coverage build) an ordinary inline function, so that a branch is counted once and not once
 * per inlined copy, where a compile-time constant excludes it */
#if defined(__GNUC__) && defined(__OPTIMIZE__)
#define VI_INLINE static inline __attribute__((always_inline))
#else
#define VI_INLINE static inline
#endif


/* ---- workspace ---------------------------------------------------------------------- */

typedef struct vi_ws {
  int n, m;                    /* m = mc + the closed contacts (vi_active), at most mmax */
  int mc, mmax;                /* the model's constraint rows; room for mc + its gaps */
  const int *act;              /* the closed gaps (the dynamics' active set), m - mc of them */
  double *gv, *gd;             /* gap values and gradients (ngap, ngap x n) */
  int free;                    /* gni: the free-motion kernel for this model (free_code), 0: none */
  double *M0, *L0, *M1, *L1;   /* mass matrices and Cholesky factors at q_k, q_k+1 */
  double *A, *W, *G, *Gi;      /* constraint rows, M^-1 A^T (by column), factor of A M^-1 A^T
                                  and its inverse */
  double *dM0, *dM1, *d2M, *H; /* derivatives (Newton) */
  double *J, *dwork;           /* Newton Jacobian; model derivative scratch */
  int *piv;
  double *p, *pm, *f, *g, *r, *v, *tmp, *tmp2, *z, *zz; /* (n) / (m) vectors */
  double *kin, *kout;          /* keys (t, q, v) of the carried state: input and output */
  double *cin, *cout;          /* carried vector for kin / kout (3 n + 2; gni: p+, then Q^T p+,
                                  v_k+1/2 and c of its kernel's velocity form, see zvalid) */
  double *hin, *hout;          /* the step length the carried vector belongs to */
  double *phalf;               /* last step's half-step momentum */
  double *mfact;               /* 1 when M0/L0 hold the (constant) factored mass matrix */
  double *Minv;                /* M^-1 (constant M, with mfact) */
  double *mdiag;               /* 1 when that M and M^-1 are diagonal (off-diagonal entries 0) */
  double *pvalid;              /* 1 when A, W, G hold the projector at the q of kout */
  double *zvalid;              /* 1 when the last carried buffer holds beyond p+ the free-motion
                                  kernel's Q^T p+, v_k+1/2 and c (gni_carry) */
  double *K, *A0, *rz;         /* del with holonomic constraints: KKT Newton matrix, A(q_k), residual */
  int *kpiv;
  int *elo, *ehi;              /* the extents of the rows of A in W (proj_env), mmax each */
  double *wclean;              /* 1 when W is +0 outside those extents */
  double *aclean;              /* 1 when the model's rows of A are +0 outside its constraint pattern */
  double *gdiag;               /* m when G, Gi hold proj_env's diagonal form for m rows (off-diagonal +0) */
  int *qcnt;                   /* (n) scratch of qt_env */
  const int *crows, *ccols;    /* the model's constraint pattern by rows (nholo/model.h), or NULL */
  const struct nh_gram *gram;  /* the sparse analysis of G's pattern (model->gram), or NULL */
  double *gsv, *gswork;        /* G's values on its pattern and the sparse factor (with gram) */
  double *gsp;                 /* m when G is in that sparse form for the m model rows (proj_sparse) */
  double *gsclean;             /* 1 once W was zeroed for proj_sparse (it writes A's pattern only) */
} vi_ws;

/* The carved workspace is cached at the head of s->work (carving costs as much as a small
 * step): valid while it records this work block and this model. */
typedef struct vi_hdr {
  const double *self;
  const nh_model *model;
  vi_ws w;
} vi_hdr;
#define VI_HDR_DOUBLES ((sizeof(vi_hdr) + sizeof(double) - 1) / sizeof(double))

/* the gaps a method may hold closed as constraint rows (mechanical models) */
static inline size_t vi_ngap(const nh_model *mo) { return mo->form == NH_FORM_MECHANICAL ? (size_t)mo->ngap : 0; }
/* its Newton matrix J (n x n) also holds the midpoint start's A0 and B (m x n, m x m) */
static inline size_t vi_jsize(size_t n, size_t m) { return n * n > m * n + m * m ? n * n : m * n + m * m; }
static inline size_t vi_zsize(size_t n, size_t m) { return n > m ? n : m; }

/* Above this many coordinates a constant M (no Coriolis term) gets no dM, d2M buffers (n^3,
 * n^4 doubles): its steps never evaluate them, except del's midpoint rule, which then refuses */
#define VI_DENSE_DM_MAX 64
static inline int vi_dense_dM(const nh_model *mo) { return mo->coriolis != NULL || mo->nq <= VI_DENSE_DM_MAX; }
/* doubles of dM (n^3) and d2M (n^4) buffers, and of the model-derivative scratch */
static inline size_t vi_dm_size(const nh_model *mo, int order) {
  size_t n = (size_t)mo->nq;
  return vi_dense_dM(mo) ? (order == 1 ? n * n * n : n * n * n * n) : 0;
}
static inline size_t vi_dwork_size(const nh_model *mo) {
  return vi_dense_dM(mo) ? nh_model_deriv_work_size(mo) : 4 * (size_t)mo->nq + 8; /* Hessians of V only */
}

/* the sparse analysis of G's pattern of a large model (src/model/gram.c), and its doubles */
static inline const struct nh_gram *vi_gram(const nh_model *mo) {
  return mo->gram && mo->gram->an && mo->nc > 0 ? mo->gram : NULL;
}
static inline size_t vi_gram_size(const nh_model *mo) {
  const struct nh_gram *g = vi_gram(mo);
  return g ? (size_t)g->rows[mo->nc] + nh_la_spchol_work_size(g->an) + 1 : 0;
}

/* sized for the model's rows and all its gaps closed (mm = nc + ngap rows) */
static inline size_t vi_work_size(const nh_model *mo) {
  size_t n = (size_t)mo->nq, g = vi_ngap(mo), m = (size_t)mo->nc + g, nx = 2 * n;
  return VI_HDR_DOUBLES + vi_gram_size(mo) + 1 + 4 * n * n + 2 * m * n + 2 * m * m + 2 * vi_dm_size(mo, 1) + vi_dm_size(mo, 2) + n * n +
         vi_jsize(n, m) + vi_dwork_size(mo) + n + 8 * n + 2 * vi_zsize(n, m) + 2 * m + 2 * (1 + nx) +
         2 * (3 * n + 2) + 2 + n + 1 + n * n + 1 + (n + m) * (n + m) + m * n + 2 * (n + m) + 1 + 8 + 2 * n + 1 + g + g * n +
         ((2 * m + n) * sizeof(int) + sizeof(double) - 1) / sizeof(double) + 1 + 2;
}

static inline vi_ws vi_carve(nh_stepper *s) {
  const nh_model *mo = s->model;
  vi_ws w;
  size_t n = (size_t)mo->nq, g = vi_ngap(mo), m = (size_t)mo->nc + g, nx = 2 * n;
  double *p = s->work + VI_HDR_DOUBLES;
  w.n = (int)n, w.m = mo->nc, w.mc = mo->nc, w.mmax = (int)m;
  w.act = NULL;
  w.free = 0; /* set by the first general gni step */
  w.M0 = p, p += n * n;
  w.L0 = p, p += n * n;
  w.M1 = p, p += n * n;
  w.L1 = p, p += n * n;
  w.A = p, p += m * n;
  w.W = p, p += m * n;
  w.G = p, p += m * m;
  w.Gi = p, p += m * m;
  w.dM0 = p, p += vi_dm_size(mo, 1);
  w.dM1 = p, p += vi_dm_size(mo, 1);
  w.d2M = p, p += vi_dm_size(mo, 2);
  w.H = p, p += n * n;
  w.J = p, p += vi_jsize(n, m);
  w.dwork = p, p += vi_dwork_size(mo);
  w.piv = (int *)p, p += n;
  w.p = p, p += n;
  w.pm = p, p += n;
  w.f = p, p += n;
  w.g = p, p += n;
  w.r = p, p += n;
  w.v = p, p += n;
  w.tmp = p, p += n;
  w.tmp2 = p, p += n;
  w.z = p, p += vi_zsize(n, m);
  w.zz = p, p += vi_zsize(n, m);
  w.kin = p, p += 1 + nx;
  w.kout = p, p += 1 + nx;
  w.cin = p, p += 3 * n + 2;
  w.cout = p, p += 3 * n + 2;
  w.hin = p, p += 1;
  w.hout = p, p += 1;
  w.phalf = p, p += n;
  w.mfact = p, p += 1;
  w.Minv = p, p += n * n;
  w.mdiag = p, p += 1;
  w.pvalid = p, p += 1;
  w.zvalid = p, p += 1;
  *w.zvalid = 0.0;
  w.K = p, p += (n + m) * (n + m);
  w.A0 = p, p += m * n;
  w.rz = p, p += n + m;
  w.kpiv = (int *)p, p += n + m;
  w.gv = p, p += g;
  w.gd = p, p += g * n;
  w.wclean = p, p += 1;
  *w.wclean = 0.0;
  w.aclean = p, p += 1;
  *w.aclean = 0.0;
  w.gdiag = p, p += 1;
  *w.gdiag = 0.0;
  w.crows = mo->constraint_rows, w.ccols = mo->constraint_cols;
  w.gram = vi_gram(mo);
  w.gsp = p, p += 1;
  *w.gsp = 0.0;
  w.gsv = w.gram ? p : NULL, p += w.gram ? (size_t)w.gram->rows[mo->nc] : 0;
  w.gswork = w.gram ? p : NULL, p += w.gram ? nh_la_spchol_work_size(w.gram->an) : 0;
  w.gsclean = w.gram ? p : NULL, p += w.gram ? 1 : 0;
  if (w.gram) *w.gsclean = 0.0;
  w.elo = (int *)(void *)p, w.ehi = w.elo + m;
  w.qcnt = w.ehi + m;
  return w;
}

/* the workspace of s, carved on first use */
static inline vi_ws *vi_get(const nh_stepper *s) {
  vi_hdr *hd = (vi_hdr *)(void *)s->work;
  if (hd->self != s->work || hd->model != s->model) {
    hd->w = vi_carve((nh_stepper *)s);
    hd->self = s->work;
    hd->model = s->model;
  }
  return &hd->w;
}

/* The rows of this step: the model's, then the gradients of the gaps the driver holds closed
 * (persistent contacts, docs/contact.md: the dynamics' active set, which the driver changes
 * only together with a restart of the method). gni (not del), rattle and shake. */
static inline void vi_active(const nh_stepper *s, vi_ws *w) {
  const int na = s->dyn && w->mmax > w->mc ? s->dyn->nact : 0;
  w->m = w->mc + na;
  w->act = na > 0 ? s->dyn->act : NULL;
}

/* the closed gaps' gradients at q into rows mc .. m-1 of A */
static inline int vi_contact_rows(const nh_model *mo, vi_ws *w, const double *q, double *A) {
  const int n = w->n;
  int rc = nh_cb(mo->gap(q, w->gv, w->gd, mo->user));
  if (rc) return rc;
  for (int k = 0; k < w->m - w->mc; k++)
    memcpy(A + (size_t)(w->mc + k) * n, w->gd + (size_t)w->act[k] * n, sizeof(double) * (size_t)n);
  return 0;
}

/* A(q): the model's rows and the closed contacts' (m of them); into w->A of a large model by
 * the sparse fill (A zeroed once: every writer of w->A writes whole rows of A(q)) */
static inline int vi_rows(const nh_model *mo, vi_ws *w, const double *q, double *A) {
  int rc;
  if (A == w->A && mo->constraint_sparse && w->n >= NH_MODEL_SPARSE_MIN && w->mc > 0) {
    if (*w->aclean != 1.0) memset(w->A, 0, sizeof(double) * (size_t)w->mmax * (size_t)w->n), *w->aclean = 1.0;
    if ((rc = nh_cb(mo->constraint_sparse(q, w->tmp2, A, NULL, mo->user)))) return rc;
  } else if (w->mc > 0 && (rc = nh_cb(mo->constraint(q, w->tmp2, A, NULL, mo->user)))) {
    return rc;
  }
  return w->m > w->mc ? vi_contact_rows(mo, w, q, A) : 0;
}

/* hand the driver M(q1) and A(q1) (w->A: every step ends with proj_setup at q1) */
static inline void vi_end(nh_stepper *s, const vi_ws *w, const double *M1, const double *x1) {
  s->end_M = M1;
  s->end_A = w->A;
  s->end_x = x1;
  s->end_EA = 0; /* E and the residual: only from the free-motion kernel */
}

/* ---- building blocks ---------------------------------------------------------------- */

/* x = 0 (inline: the vectors are short) */
static inline void vzero(int n, double *x) {
  for (int i = 0; i < n; i++) x[i] = 0.0;
}

VI_INLINE void set_key(double *key, double t, const double *x, int nx) {
  key[0] = t;
  nh_la_copy_fixed(nx, x, key + 1);
}
/* the time is not compared: the driver may land the last step exactly on t_max (t + h rounded
 * differently), and the same (q, v) at two different times does not happen in practice */
VI_INLINE int key_eq(const double *key, double t, const double *x, int nx) {
  (void)t;
#if defined(__GNUC__)
  if (nx % 2 == 0 && nx <= 12) { /* the same == compares, two at a time (nx fixed after inlining) */
    typedef double v2d __attribute__((vector_size(16)));
    typedef long long v2l __attribute__((vector_size(16)));
    v2l eq = {-1, -1};
    for (int i = 0; i < nx; i += 2) {
      v2d a, b;
      memcpy(&a, key + 1 + i, sizeof a);
      memcpy(&b, x + i, sizeof b);
      eq &= (v2l)(a == b);
    }
    return (eq[0] & eq[1]) != 0;
  }
#endif
  int eq = 1;
  NH_LA_UNROLL_FULL
  for (int i = 0; i < nx; i++) eq &= key[1 + i] == x[i];
  return eq;
}

/* Decide where the carried vector comes from. Returns 1 when the method must restart; *cont
 * is set when x0 is the end of the last step (the projector there is still in A, W, G). */
VI_INLINE int vi_resolve(nh_stepper *s, vi_ws *w, int n, double t, const double *x0, int *cont) {
  const int nx = 2 * n;
  *cont = 0;
  if (s->restart) {
    s->restart = 0;
    return 1;
  }
  if (key_eq(w->kout, t, x0, nx)) {
    *cont = *w->pvalid == 1.0;
    // the output becomes the input: swap the buffers (the old input is overwritten next)
    double *k = w->kin, *c = w->cin, *hh = w->hin;
    w->kin = w->kout, w->cin = w->cout, w->hin = w->hout;
    w->kout = k, w->cout = c, w->hout = hh;
    return 0;
  }
  return key_eq(w->kin, t, x0, nx) ? 0 : 1;
}

/* M(q) into M and its Cholesky factor into L (once, for a constant M) */
static inline int mass_factor(const nh_model *mo, const double *q, double *M, double *L, int constant,
                       double *flag, double *Minv, double *diag) {
  const int n = mo->nq;
  if (constant && flag && *flag == 1.0) return 0;
  int rc = nh_cb(mo->mass(q, M, mo->user));
  if (rc) return rc;
  nh_metric mt;
  nh_metric_init(&mt, n, 0, L, NULL);
  if (nh_metric_factor(&mt, M) != NH_OK) return NH_ERR_NOT_SPD;
  if (constant && flag) {
    // M^-1 once: a step then needs no triangular solves (their divisions dominated the cost)
    nh_metric_inverse(&mt, Minv);
    *diag = 1.0;
    for (int i = 0; i < n * n; i++)
      if (i % (n + 1) != 0 && (Minv[i] != 0.0 || M[i] != 0.0)) *diag = 0.0;
    *flag = 1.0;
  }
  return 0;
}


/* y = B x for B = w->Minv or w->M0 (n compile-time constant); for a diagonal B (diag) the product
 * 0.0 + d_i x_i, which for finite x is bitwise the full row product (the added zeros change
 * nothing, and the leading 0.0 turns -0 into +0 as the row's first term does) */
VI_INLINE void mat_fixed(int n, int diag, const double *Mi, const double *x, double *y) {
  NH_LA_UNROLL_FULL
  for (int i = 0; i < n; i++) y[i] = diag ? 0.0 + Mi[(size_t)i * (n + 1)] * x[i] : nh_la_dot_fixed(n, Mi + (size_t)i * n, x);
}

/* y = M^-1 x: with the factor L, or with M^-1 (w->Minv, diagonal when w->mdiag) for the
 * constant factor w->L0 */
VI_INLINE void msolve_n(const vi_ws *w, int n, const double *L, const double *x, double *y) {
  if (L == w->L0 && *w->mfact == 1.0) {
    mat_fixed(n, *w->mdiag == 1.0, w->Minv, x, y);
    return;
  }
  nh_la_copy_fixed(n, x, y);
  nh_la_chol_solve(n, L, y);
}
static inline void msolve_w(const vi_ws *w, const double *L, const double *x, double *y) { msolve_n(w, w->n, L, x, y); }

/* G (m x m, SPD) <- its Cholesky factor and Gi <- G^-1 (the metric's, model/metric.h) */
VI_INLINE int chol_inverse(int m, double *G, double *Gi) { return nh_metric_gram_inverse(m, G, Gi, VI_PIVOT_TOL); }

/* Models with this many coordinates or more, a diagonal constant M and two or more rows whose
 * extents (first to last non-zero) do not overlap build the projector on those extents. */
#define VI_ENV_MIN 16

/* W = M^-1 A^T on the extents of the rows of A (diagonal M^-1: 0.0 + d_j A_kj, mat_fixed's row
 * product), +0 elsewhere (the cells of the last extents cleared); then, when the extents are
 * pairwise disjoint, G = A W is diagonal: G, its factor and Gi = G^-1 are formed as
 * chol_inverse forms them (the skipped terms are products with +0, which change no sum
 * started at +0; the off-diagonal entries are +0 as there). 1 when done, 0 when the extents
 * overlap (W is then complete, G is left to the dense loops), negative when G is singular. */
static inline int proj_env(vi_ws *w, int n, int m) {
  if (*w->wclean != 1.0) {
    vzero(w->mmax * n, w->W);
    for (int k = 0; k < w->mmax; k++) w->elo[k] = w->ehi[k] = 0;
    *w->wclean = 1.0;
  }
  const int *rows = m == w->mc ? w->crows : NULL, *cols = w->ccols; /* (contact rows: no pattern) */
  for (int k = 0; k < m; k++) {
    const double *Ak = w->A + (size_t)k * n;
    double *Wk = w->W + (size_t)k * n;
    for (int j = w->elo[k]; j < w->ehi[k]; j++) Wk[j] = 0.0;
    int l = 0, h = n; /* scanned inside the row's pattern, when known: the rest is +0 */
    if (rows && rows[k] < rows[k + 1]) l = cols[rows[k]], h = cols[rows[k + 1] - 1] + 1;
    else if (rows) h = 0;
    while (l < h && Ak[l] == 0.0) l++;
    while (h > l && Ak[h - 1] == 0.0) h--;
    if (l == h) l = h = n; /* an empty row: the extent the full scan finds */
    w->elo[k] = l, w->ehi[k] = h;
    for (int j = l; j < h; j++) Wk[j] = 0.0 + w->Minv[(size_t)j * (n + 1)] * Ak[j];
  }
  // the extents overlap? (rows in ascending order of extent: one pass; else every pair)
  int sorted = 1, plo = -1, phi = 0;
  for (int i = 0; i < m && sorted; i++) {
    if (w->elo[i] == w->ehi[i]) continue; /* empty: overlaps nothing */
    if (w->elo[i] < plo) sorted = 0;
    else if (w->elo[i] < phi) return 0;
    else plo = w->elo[i], phi = w->ehi[i];
  }
  for (int i = 0; i < m && !sorted; i++)
    for (int k = 0; k < i; k++)
      if (w->elo[i] < w->ehi[k] && w->elo[k] < w->ehi[i]) return 0;
  if (*w->gdiag != (double)m) { /* G and Gi off the diagonal: +0 from here on */
    vzero(m * m, w->G), vzero(m * m, w->Gi);
    *w->gdiag = (double)m;
  }
  double dmax = 0.0;
  for (int i = 0; i < m; i++) {
    double s = 0.0;
    for (int j = w->elo[i]; j < w->ehi[i]; j++) s += w->A[(size_t)i * n + j] * w->W[(size_t)i * n + j];
    w->G[(size_t)i * m + i] = s;
    if (s > dmax) dmax = s;
  }
  const double thr = VI_PIVOT_TOL * dmax;
  for (int j = 0; j < m; j++) {
    double d = w->G[(size_t)j * m + j] - 0.0, ljj;
    if (!(d > thr) || !(d > 0.0)) return NH_ERR_SINGULAR;
    w->G[(size_t)j * m + j] = ljj = sqrt(d);
    w->Gi[(size_t)j * m + j] = (1.0 - 0.0) / ljj / ljj;
  }
  return 1;
}

/* The projector of a large model's own rows with a constant diagonal M on the sparse analysis
 * of G = A M^-1 A^T (model->gram): W = M^-1 A^T on A's pattern (0.0 + d_j A_kj, mat_fixed's row
 * product; withW = 0: proj_env has formed it on the rows' extents), G's values on its pattern
 * (the columns two rows share, merged) and its sparse Cholesky factor in the analysed order; no
 * G^-1 is formed (the products with it are solves: qt_k, vi_gsolve). O(entries of A and of the
 * factor). Taken when the dynamics take the sparse solve (a tree of bodies, not a band), and
 * when the rows' extents overlap (where the dense G and G^-1 cost m^3). */
static inline int proj_sparse(vi_ws *w, int n, int m, int withW) {
  const int *rows = w->crows, *cols = w->ccols, *gr = w->gram->rows, *gc = w->gram->cols;
  // W outside A's pattern: +0 once (every other writer of W then writes 0.0 + d_j A_kj = +0
  // there, A being +0 outside its pattern: vi_rows)
  if (withW && *w->gsclean != 1.0) vzero(w->mmax * n, w->W), *w->gsclean = 1.0;
  for (int k = 0; k < m && withW; k++)
    for (int e = rows[k]; e < rows[k + 1]; e++) {
      const int j = cols[e];
      w->W[(size_t)k * n + j] = 0.0 + w->Minv[(size_t)j * (n + 1)] * w->A[(size_t)k * n + j];
    }
  for (int i = 0; i < m; i++)
    for (int e = gr[i]; e < gr[i + 1]; e++) {
      const int k = gc[e];
      const double *Ai = w->A + (size_t)i * n, *Wk = w->W + (size_t)k * n;
      double v = 0.0;
      for (int a = rows[i], b = rows[k]; a < rows[i + 1] && b < rows[k + 1];) {
        if (cols[a] < cols[b]) a++;
        else if (cols[a] > cols[b]) b++;
        else v += Ai[cols[a]] * Wk[cols[a]], a++, b++;
      }
      w->gsv[e] = v;
    }
  *w->gdiag = 0.0;
  if (nh_la_spchol_factor(w->gram->an, w->gsv, VI_PIVOT_TOL, NULL, w->gswork) != NH_OK) return NH_ERR_SINGULAR;
  *w->gsp = (double)m;
  return 0;
}
/* G is in proj_sparse's form for these m rows */
static inline int vi_on_sparse(const vi_ws *w, int m) { return m > 0 && *w->gsp == (double)m; }

/* A(q), W = M^-1 A^T (column k at W + k n), G = chol(A W) and Gi = (A W)^-1 (applied two or
 * three times per step). Nothing when m = 0. (The free-motion kernel forms its own, on local
 * vectors: gk_step, src/lang/gni_kernel.h.) */
VI_INLINE int proj_setup_k(const nh_model *mo, vi_ws *w, int n, int m, const double *q, const double *L) {
  if (m == 0) return 0;
  int rc;
  if ((rc = vi_rows(mo, w, q, w->A))) return rc;
  *w->gsp = 0.0;
  const int sparse = w->gram && m == w->mc && n >= VI_ENV_MIN && L == w->L0 && *w->mfact == 1.0 && *w->mdiag == 1.0;
  if (sparse && w->gram->chol) return proj_sparse(w, n, m, 1); /* the dynamics' choice */
  if (n >= VI_ENV_MIN && m >= 2 && L == w->L0 && *w->mfact == 1.0 && *w->mdiag == 1.0) {
    if ((rc = proj_env(w, n, m)) != 0) return rc < 0 ? rc : 0; /* else W is complete: G below */
    if (sparse) return proj_sparse(w, n, m, 0);                 /* overlapping extents */
  } else {
    *w->wclean = 0.0;
    for (int k = 0; k < m; k++) msolve_n(w, n, L, w->A + (size_t)k * n, w->W + (size_t)k * n);
  }
  *w->gdiag = 0.0; /* the dense G and Gi below */
  nh_metric_gram_form(n, m, w->A, w->W, w->G);
  return chol_inverse(m, w->G, w->Gi);
}
static inline int proj_setup(const nh_model *mo, vi_ws *w, const double *q, const double *L) {
  return proj_setup_k(mo, w, w->n, w->m, q, L);
}

/* qt_k for proj_env's projector (disjoint extents, G diagonal) by the constraint pattern, with
 * qt_k's bits: z_k = W_k p over the extent (W is +0 outside it), c_k = Gi_k z = 0.0 + Gi_kk z_k,
 * and out_j = c_0 A_0j + ... + c_m-1 A_m-1,j: at most one term is non-zero (the row whose extent
 * holds j), and a sum of zeros only is +0 when one of them is +0, else -0. A term of a row
 * whose pattern does not hold j is c_k (+0): +0 when c_k has no sign bit; qcnt counts, per
 * column, the rows of the pattern that have none, so that such a term exists when pos (all the
 * rows that have none) exceeds it. 0 when it cannot apply (qt_k's loops then). */
static inline int qt_env(const vi_ws *w, int n, int m, const double *p, double *out) {
  if (m != w->mc || !w->crows) return 0;
  const int *rows = w->crows, *cols = w->ccols;
  double *c = w->zz;
  int pos = 0;
  for (int k = 0; k < m; k++) {
    const double *Wk = w->W + (size_t)k * n;
    double z = 0.0;
    for (int j = w->elo[k]; j < w->ehi[k]; j++) z += Wk[j] * p[j];
    c[k] = 0.0 + w->Gi[(size_t)k * m + k] * z;
    pos += !signbit(c[k]);
  }
  for (int k = 0; k < m; k++)
    for (int e = rows[k]; e < rows[k + 1]; e++) w->qcnt[cols[e]] = 0;
  for (int k = 0; k < m; k++)
    if (!signbit(c[k]))
      for (int e = rows[k]; e < rows[k + 1]; e++) w->qcnt[cols[e]]++;
  const double outside = pos > 0 ? 0.0 : -0.0; /* the sum of the zeros of a column no row's pattern holds */
  for (int j = 0; j < n; j++) out[j] = outside;
  for (int k = 0; k < m; k++)
    for (int e = rows[k]; e < rows[k + 1]; e++) out[cols[e]] = pos > w->qcnt[cols[e]] ? 0.0 : -0.0;
  for (int k = 0; k < m; k++) {
    const double *Ak = w->A + (size_t)k * n;
    for (int e = rows[k]; e < rows[k + 1]; e++) {
      const int j = cols[e];
      const double t = c[k] * Ak[j];
      if (t != 0.0) out[j] = t;
      else if (!signbit(t) && out[j] == 0.0) out[j] = 0.0;
    }
  }
  return 1;
}

/* out = Q^T p = A^T G^-1 A M^-1 p (momenta), with proj_setup's A, W and Gi (w->Gi or a copy of
 * it); local: m <= 2 (the kernel), the intermediate in registers */
VI_INLINE void qt_k(const vi_ws *w, int n, int m, const double *Gi, const double *p, double *out, const int local) {
  if (m == 0) {
    for (int i = 0; i < n; i++) out[i] = 0.0;
    return;
  }
  double zl[2], *z = local ? zl : w->zz;
  if (!local && Gi == w->Gi && *w->gdiag == (double)m && qt_env(w, n, m, p, out)) return;
  if (!local && Gi == w->Gi && vi_on_sparse(w, m)) { /* A^T G^-1 (W p), on A's pattern */
    const int *rows = w->crows, *cols = w->ccols;
    for (int k = 0; k < m; k++) {
      double d = 0.0;
      for (int e = rows[k]; e < rows[k + 1]; e++) d += w->W[(size_t)k * n + cols[e]] * p[cols[e]];
      z[k] = d;
    }
    nh_la_spchol_solve(w->gram->an, w->gswork, z);
    for (int i = 0; i < n; i++) out[i] = 0.0;
    for (int k = 0; k < m; k++)
      for (int e = rows[k]; e < rows[k + 1]; e++) out[cols[e]] += z[k] * w->A[(size_t)k * n + cols[e]];
    return;
  }
  for (int k = 0; k < m; k++) z[k] = nh_la_dot_fixed(n, w->W + (size_t)k * n, p); /* A M^-1 p */
  const double c0 = nh_la_dot(m, Gi, z);
  NH_LA_UNROLL_FULL
  for (int i = 0; i < n; i++) out[i] = c0 * w->A[i];
  for (int k = 1; k < m; k++) nh_la_axpy_fixed(n, nh_la_dot(m, Gi + (size_t)k * m, z), w->A + (size_t)k * n, out);
}
VI_INLINE void qt_apply_n(const vi_ws *w, int n, const double *p, double *out) { qt_k(w, n, w->m, w->Gi, p, out, 0); }
static inline void qt_apply(const vi_ws *w, const double *p, double *out) { qt_apply_n(w, w->n, p, out); }

/* f = f(t, q, v) (+ -dV(q) when with_potential) */
static inline int force(const nh_model *mo, double t, const double *q, const double *v, int with_potential,
                 double *f, double *tmp) {
  const int n = mo->nq;
  int rc;
  vzero(n, f);
  if (mo->force && (rc = nh_cb(mo->force(t, q, v, f, mo->user)))) return rc;
  if (with_potential && mo->potential) {
    if ((rc = nh_cb(mo->potential(q, NULL, tmp, mo->user)))) return rc;
    nh_la_axpy(n, -1.0, tmp, f);
  }
  return 0;
}

/* ---- products of the step with M and the rows (rattle), the dense loops' bits ---- */

/* y = M0 x (nh_la_gemv); for a diagonal constant M 0.0 + M_ii x_i (mat_fixed's argument) */
static inline void vi_mass_mul(const vi_ws *w, const double *x, double *y) {
  const int n = w->n;
  if (*w->mfact == 1.0 && *w->mdiag == 1.0) {
    for (int i = 0; i < n; i++) y[i] = 0.0 + w->M0[(size_t)i * (n + 1)] * x[i];
    return;
  }
  nh_la_gemv(n, n, w->M0, x, y);
}

/* proj_env's extents describe the rows of w->A and W (+0 outside them) */
static inline int vi_on_extents(const vi_ws *w, int m) { return m >= 2 && *w->gdiag == (double)m; }

/* out_k = W_k x, k < m (a sum started at +0 is unchanged by the +0 products outside) */
static inline void vi_dot_rows(const vi_ws *w, int m, const double *x, double *out) {
  const int n = w->n;
  if (vi_on_sparse(w, m)) { /* on A's pattern (W +0 outside it, as A) */
    for (int k = 0; k < m; k++) {
      double d = 0.0;
      for (int e = w->crows[k]; e < w->crows[k + 1]; e++) d += w->W[(size_t)k * n + w->ccols[e]] * x[w->ccols[e]];
      out[k] = d;
    }
    return;
  }
  for (int k = 0; k < m; k++) {
    const double *Wk = w->W + (size_t)k * n;
    if (!vi_on_extents(w, m)) {
      out[k] = nh_la_dot(n, Wk, x);
      continue;
    }
    double d = 0.0;
    for (int j = w->elo[k]; j < w->ehi[k]; j++) d += Wk[j] * x[j];
    out[k] = d;
  }
}

/* y += (s c_k) A_k, k < m. On the extents when no y_j is -0: adding a zero changes only a -0,
 * and a y_j that is not -0 never becomes one (a sum is -0 only of two -0) */
static inline void vi_axpy_rows(const vi_ws *w, int m, double s, const double *c, double *y) {
  const int n = w->n;
  if (vi_on_sparse(w, m)) { /* on A's pattern */
    for (int k = 0; k < m; k++)
      for (int e = w->crows[k]; e < w->crows[k + 1]; e++) y[w->ccols[e]] += (s * c[k]) * w->A[(size_t)k * n + w->ccols[e]];
    return;
  }
  int ext = vi_on_extents(w, m);
  for (int j = 0; j < n && ext; j++)
    if (y[j] == 0.0 && signbit(y[j])) ext = 0;
  for (int k = 0; k < m; k++) {
    const double a = s * c[k], *Ak = w->A + (size_t)k * n;
    if (!ext) {
      nh_la_axpy(n, a, Ak, y);
      continue;
    }
    for (int j = w->elo[k]; j < w->ehi[k]; j++) y[j] += a * Ak[j];
  }
}

/* b <- G^-1 b with proj_setup's factor (diagonal on the extents: nh_la_chol_solve's own path) */
static inline void vi_gsolve(const vi_ws *w, int m, double *b) {
  if (m == 0) return;
  if (vi_on_sparse(w, m)) nh_la_spchol_solve(w->gram->an, w->gswork, b);
  else if (vi_on_extents(w, m)) nh_la_diag_solve(m, w->G, b);
  else nh_la_chol_solve(m, w->G, b);
}

/* P^T x in place (x -= Q^T x), tmp scratch */
static inline void pt_inplace(const vi_ws *w, double *x, double *tmp) {
  qt_apply(w, x, tmp);
  nh_la_axpy(w->n, -1.0, tmp, x);
}

/* the tolerance of an iterate at round-off (vi.h): VI_NEWTON_RES_SLACK times tol, or the
 * rounding floor of the momentum residual relative to its terms mag, VI_NEWTON_DQ_ULPS eps
 * |M| |q| / (h mag) (v = (q1 - q0)/h carries eps |q| / h; |M| the largest row sum of M) */
static inline double vi_roundoff_tol(int n, const double *M, const double *q, double h, double mag, double tol) {
  const double mr = nh_la_mat_norm_inf(n, n, M);
  return fmax(VI_NEWTON_RES_SLACK * tol, VI_NEWTON_DQ_ULPS * DBL_EPSILON * mr * nh_la_norm_inf(n, q) / (h * mag));
}

/* The residual of the last solve (w->r) when it was accepted on its rounding floor, past
 * VI_NEWTON_RES_SLACK times the tolerance (a partial step of event location of 1e-14 s), else
 * NULL: the step's momentum D2 L_d(q_k, q_k+1) is then taken less it, which is the momentum
 * the solve was for plus D1 L_d + D2 L_d, the difference quotient (q_k+1 - q_k)/h there only
 * times h (D2 L_d alone carries eps |q| / h, a velocity error of 1e-2 at such a step) */
static inline const double *vi_floor_r(const nh_stepper *s, const vi_ws *w) {
  return s->last_res > VI_NEWTON_RES_SLACK * s->opts.newton_tol ? w->r : NULL;
}

/* max_a |e_a| / (|A_a| u): the residuals e of m constraint rows relative to the magnitude
 * |row a of A| times u, the scale of the coordinates or velocities they act on (vi.h) */
static inline double vi_rows_rel(int m, int n, const double *e, const double *A, double u) {
  double res = 0.0;
  for (int a = 0; a < m; a++)
    res = fmax(res, fabs(e[a]) / fmax(nh_la_norm_inf(n, A + (size_t)a * n) * u, VI_RES_SCALE_FLOOR));
  return res;
}

/* ---- discrete Lagrangians ------------------------------------------------------------- */

/* The midpoint start (gni, rattle, shake): c = A(q0)^T lam with mu(q_mid) M^-1 (pm + c) = 0,
 * q_mid = q0 + h/2 M^-1 (pm + c), so that the first half-step momentum pm + c meets the
 * constraint at the half point. On entry w->A, W, G hold the projector at q0; pm the paper's
 * p_1/2; result in c, and lam left in w->z. The residual A(q_mid) y, y = M^-1 (pm + c), is
 * relative to |A_a| times the magnitude of y's terms, max(|y|, |M^-1 pm|) (within a factor 2
 * of max(|M^-1 pm|, |M^-1 c|)), not |y| alone: where the rows leave the body no motion (a
 * stack resting on a floor, every contact closed: y = 0 exactly) the iterate's y is the
 * rounding of the cancellation pm + c, and its residual relative to |y| stays 1 (gni ended
 * with NH_ERR_NO_CONVERGENCE at every resting contact of the stack). */
static inline int vi_midpoint_start(nh_stepper *s, vi_ws *w, const double *q0, double h, const double *pm,
                              double *c) {
  const nh_model *mo = s->model;
  const int n = w->n, m = w->m;
  double *A0 = w->J;               /* (m x n) copy of A(q0); J is free here */
  double *B = w->J + (size_t)m * n; /* (m x m) */
  double *lam = w->z, *ph = w->tmp, *y = w->r, *qm = w->v;
  int rc, it;
  double res = INFINITY;
  memcpy(A0, w->A, sizeof(double) * (size_t)m * n);
  vzero(m, lam);
  msolve_w(w, w->L0, pm, y);
  const double ypm = nh_la_norm_inf(n, y); /* |M^-1 pm|, the scale of y's terms */
  for (it = 0; it < VI_START_MAX_ITER; it++) {
    nh_la_copy(n, pm, ph);
    for (int k = 0; k < m; k++) nh_la_axpy(n, lam[k], A0 + (size_t)k * n, ph);
    msolve_w(w, w->L0, ph, y);
    for (int i = 0; i < n; i++) qm[i] = q0[i] + 0.5 * h * y[i];
    if ((rc = vi_rows(mo, w, qm, w->A))) return rc;
    // residual A(qm) y and matrix A(qm) M^-1 A0^T (the W of q0 is still in w->W)
    double *e = w->zz;
    for (int i = 0; i < m; i++) e[i] = nh_la_dot(n, w->A + (size_t)i * n, y);
    res = vi_rows_rel(m, n, e, w->A, fmax(nh_la_norm_inf(n, y), ypm)); /* relative to its terms (VI_RES_SCALE_FLOOR) */
    if (res <= s->opts.newton_tol) break;
    if (*w->gdiag == (double)m) { /* W on proj_env's extents (+0 elsewhere): the dots over them */
      for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
          double b = 0.0;
          for (int l = w->elo[j]; l < w->ehi[j]; l++) b += w->A[(size_t)i * n + l] * w->W[(size_t)j * n + l];
          B[i * m + j] = b;
        }
    } else {
      for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) B[i * m + j] = nh_la_dot(n, w->A + (size_t)i * n, w->W + (size_t)j * n);
    }
    if (nh_la_lu(m, B, w->piv, VI_PIVOT_TOL) != NH_OK) return NH_ERR_SINGULAR;
    nh_la_lu_solve(m, B, w->piv, e);
    nh_la_axpy(m, -1.0, e, lam);
  }
  nh_stepper_solved(s, it, res);
  if (!(res <= s->opts.newton_tol)) {
    snprintf(s->msg, sizeof s->msg, "%s midpoint start did not converge (residual %.3e)", s->method->name, res);
    return NH_ERR_NO_CONVERGENCE;
  }
  vzero(n, c);
  for (int k = 0; k < m; k++) nh_la_axpy(n, lam[k], A0 + (size_t)k * n, c);
  // restore A(q0)
  memcpy(w->A, A0, sizeof(double) * (size_t)m * n);
  return 0;
}

/* all four methods need a mechanical model (an ODE-form model has no M, V or A) */
static inline int vi_mechanical(const nh_model *mo) { return mo->form == NH_FORM_MECHANICAL ? NH_OK : NH_ERR_UNSUPPORTED; }

#endif
