/* simul_internal.h - the workspace of the simultaneous-impact resolution shared by
 * simultaneous.c (set-up, rates, single reflections) and simul_resolve.c (the laws,
 * enumeration, uniqueness). Private to the impact layer. */
#ifndef NH_SIMUL_INTERNAL_H
#define NH_SIMUL_INTERNAL_H

#include <stddef.h>

#include "model/metric.h"
#include "nholo/impact.h"

typedef struct simul_ws {
  int nq, nc, k, cap, ocap, diag;
  /* the structure (simul_struct.c; not with dense_reference): the zeros of M and of the gap
   * gradients, so that a reflection costs O(nonzeros), not O(nq k) */
  int structured;  /* 1: rates and M products over the patterns below */
  int mlower;      /* 1: M has a nonzero below its diagonal */
  int sparse_gram; /* 1: G over the pairs of contacts sharing a coordinate (L diagonal, nc = 0),
                      and a reflection changes only the rates of such a pair */
  int env;         /* 1: Gf is an envelope factor (efirst, elast), on those pairs */
  int *mrow, *mcol; /* (nq + 1), (nq x nq) M's nonzeros by rows, columns ascending */
  int *grow, *gcol; /* (k + 1), (k x nq) the gradients' nonzeros by rows */
  int *crow, *ccon; /* (nq + 1), (k x nq) per coordinate, the contacts touching it, ascending */
  int *arow, *acon; /* (k + 1), (k x k) per contact, the others sharing a coordinate, ascending */
  int *mark;        /* (k) scratch of the pairs */
  int *efirst, *elast; /* (k) the envelope of Gf: first column of each row, last row of each column */
  int *sfirst, *slast; /* (k) the envelope of Gs (the plastic map's block) */
  int nopp;        /* contacts that belong to an opposing pair (opposing_plastic) */
  long seq_room;   /* ints of out_seq */
  double *L;       /* (nq x nq) Cholesky factor of M */
  nh_metric mt;    /* M's factor in L (model/metric.h) */
  double *W;       /* (nc x nq) rows M^-1 A_j^T */
  double *GA;      /* (nc x nc) factor of A M^-1 A^T */
  double *U;       /* (k x nq) rows u_i = Pi M^-1 dg_i^T */
  double *Y;       /* (k x nc) rows y_i */
  double *G;       /* (k x k) Gram matrix dg_i u_j */
  double *Gf;      /* (k x k) factor of the cosine matrix (dependence check) */
  double *C;       /* (k x k) cosines */
  double *gn;      /* (k) sqrt(G_ii) */
  double *s;       /* (k) rates dg_i v */
  double *rn;      /* (k) normalised rates s_i / gn_i */
  double *dgn;     /* (k) |dg_i|^2_{M^-1} */
  double *v;       /* (nq) v- (projected) */
  double *vp;      /* (nq) the plastic outcome */
  double *tmp;     /* (nq) scratch (M v) */
  double *x;       /* (nq) the elastic outcome / scratch */
  double *lam;     /* (k) elastic impulses */
  double *lamp;    /* (k) plastic impulses */
  double *mu;      /* (nc) projection impulse of v- */
  double *Gs;      /* (k x k) plastic: the factor of the cosine block of the contacts at rest */
  double *lr;      /* (k) plastic: its right-hand side */
  double *nx;      /* (k) plastic with opposing contacts (Lawson-Hanson): the iterate */
  double *nz;      /* (k) its least-squares trial */
  int *in;         /* (k) plastic: 1 for a contact at rest after the impact (the active set) */
  int *lidx;       /* (k) plastic: the active set's indices */
  double *stack_v; /* ((cap + 1) x nq) velocities along a path */
  double *stack_l; /* ((cap + 1) x k) impulses along a path */
  double *out_v;   /* (ocap x nq) distinct outcomes */
  double *out_l;   /* (ocap x k) their impulses */
  int *seq;        /* (cap) the sequence */
  int *next;       /* (cap + 1) enumerate: the next choice at each depth */
  int *out_seq;    /* (seq_room) the outcomes' sequences, one after another */
  int *out_start;  /* (ocap) where each starts */
  int *out_len;    /* (ocap) their lengths */
  int *opp;        /* (k) 1 + the contact opposing contact i, 0 for none */
} simul_ws;

/* enumerate: room for the outcomes' sequences, this many reflections per outcome on average
 * (at most max_reflections each) plus one whole sequence of max_reflections: a few outcomes may
 * be long without the room growing as max_outcomes x max_reflections */
#define SIMUL_SEQ_PER_OUTCOME 256

/* the longest message of a resolution, and of a contact's label in it */
#define SIMUL_MSG_MAX 400
#define SIMUL_LABEL_MAX 80

void nh_simul_label(const nh_simul_opts *o, int i, char *buf, size_t size);
int nh_simul_fail(nh_simul_result *res, int detail, int contact, int other, int status,
                  char *msg, size_t msg_size, const char *text);
int nh_simul_prepare(const nh_simul_problem *pb, const double *v, const nh_simul_opts *o,
                     simul_ws *w, void *work, nh_simul_result *res, char *msg, size_t ms);
/* s_i = dg_i v and rn_i; returns |v|_M */
double nh_simul_rates(const nh_simul_problem *pb, const simul_ws *w, const double *v);
int nh_simul_pick(const simul_ws *w, nh_simul_policy policy, double vnorm, double feas_tol);
/* one reflection across i (rates current): v -= 2 s_i / G_ii u_i, lam_i += -2 s_i / G_ii */
void nh_simul_reflect_ws(const simul_ws *w, int i, double *v, double *lam);

/* ---- the structured solve (simul_struct.c): the dense routines' results bit for bit ---- */

/* the fewest coordinates for the structured solve: below, its bookkeeping costs more than the
 * products it skips (a 3-ball chain: 317 against 280 ns a resolution; even at 7, 8 faster) */
#define SIMUL_STRUCT_MIN_NQ 8

/* dg_i x over the nonzeros of dg_i (nh_la_dot's sum) */
static inline double nh_simul_row_dot(const nh_simul_problem *pb, const simul_ws *w, int i,
                                      const double *x) {
  const double *gi = pb->dg + (size_t)i * pb->nq;
  double s = 0.0;
  for (int q = w->grow[i]; q < w->grow[i + 1]; q++) s += gi[w->gcol[q]] * x[w->gcol[q]];
  return s;
}
/* the patterns of M and of the gradients (w->structured: no dense_reference, nq at least
 * SIMUL_STRUCT_MIN_NQ); 1 when every entry of M and of the gradients is finite, 0 when not, -1
 * when not structured (not looked) */
int nh_simul_structure_scan(const nh_simul_problem *pb, const nh_simul_opts *o, simul_ws *w);
/* nh_la_chol's diagonal path for an M whose strict lower triangle is zero (!w->mlower): the
 * diagonal of w->L only (the diagonal solve reads no more); NH_OK or NH_ERR_NOT_SPD */
int nh_simul_factor_diag(const nh_simul_problem *pb, simul_ws *w);
/* u <- M^-1 u for u = dg_i with L diagonal: nh_la_diag_solve over dg_i's nonzeros */
void nh_simul_solve_row(const nh_simul_problem *pb, const simul_ws *w, int i, double *u);
/* |x|_M^2, y (nq) scratch */
double nh_simul_dist2_M(const nh_simul_problem *pb, const simul_ws *w, const double *x, double *y);
/* nh_simul_rates after nh_simul_reflect_ws across i: the rates that changed, |v|_M */
double nh_simul_rates_after(const nh_simul_problem *pb, const simul_ws *w, const double *v, int i);
/* G over the pairs of contacts sharing a coordinate (w->U set, L diagonal, nc = 0); 0 (nothing
 * done) when some u_i is not finite */
int nh_simul_gram_sparse(const nh_simul_problem *pb, simul_ws *w);
/* the cosines over those pairs (w->gn set, every gn_i gn_j > 0); 1 when all are finite */
int nh_simul_cosines_sparse(simul_ws *w);
/* F (r x r) = the factor of the cosines of the contacts idx[0 .. r) (ascending) on its envelope
 * (those pairs; first, last (r) receive it): status and rank of nh_la_chol_env, the bits of
 * nh_la_chol */
int nh_simul_cosines_factor_env(simul_ws *w, const int *idx, int r, double *F, int *first, int *last,
                                double tol, int *rank);
/* s + sum_j C_ij x_j in the order of j; with pairs (w->env, x finite) over the pairs of i */
double nh_simul_cos_row(const simul_ws *w, int i, const double *x, double s, int pairs);
/* b <- C^-1 b with Gf, the factor of all k cosines (no opposing pair) */
void nh_simul_cos_solve(const simul_ws *w, double *b);

#endif
