/* simul_internal.h - the workspace of the simultaneous-impact resolution shared by
 * simultaneous.c (set-up, rates, single reflections) and simul_resolve.c (the laws,
 * enumeration, uniqueness). Private to the impact layer. */
#ifndef NH_SIMUL_INTERNAL_H
#define NH_SIMUL_INTERNAL_H

#include <stddef.h>

#include "nholo/impact.h"

typedef struct simul_ws {
  int nq, nc, k, cap, ocap, diag;
  int nopp;        /* contacts that belong to an opposing pair (opposing_plastic) */
  long seq_room;   /* ints of out_seq */
  double *L;       /* (nq x nq) Cholesky factor of M */
  double *W;       /* (nc x nq) rows M^-1 A_j^T */
  double *GA;      /* (nc x nc) factor of A M^-1 A^T */
  double *U;       /* (k x nq) rows u_i = Pi M^-1 dg_i^T */
  double *Y;       /* (k x nc) rows y_i */
  double *G;       /* (k x k) Gram matrix dg_i u_j */
  double *Gf;      /* (k x k) factor of the cosine matrix (dependence check) */
  double *C;       /* (k x k) cosines */
  double *gn;      /* (k) sqrt(G_ii) */
  double *s;       /* (k) rates dg_i v */
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
double nh_simul_rates(const nh_simul_problem *pb, const simul_ws *w, const double *v);
int nh_simul_pick(const simul_ws *w, nh_simul_policy policy, double vnorm, double feas_tol);
void nh_simul_reflect_ws(const simul_ws *w, int i, double *v, double *lam);

#endif
