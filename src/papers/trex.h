/* trex.h - TREX, the tailed planar runner of Seghete & Murphey (Sec. VII-B, Figs. 1, 6-8,
 * Table I): its kinematics and mass matrix in C (the same as examples/trex.nh, which the
 * tests check), the double-contact solve, the design of Table I (NLopt, optional) and the
 * figures `trex` and `trex-design`. Conventions, units and every decided constant:
 * docs/trex.md. */
#ifndef NH_PAPERS_TREX_H
#define NH_PAPERS_TREX_H

#include <stddef.h>

/* q = (x, y, th, pL, gL, pR, gR, pT): the paper's order */
#define TREX_NQ 8
/* the floor contacts, in the model file's order */
enum { TREX_TAIL = 0, TREX_FOOT_L = 1, TREX_FOOT_R = 2, TREX_BELLY = 3, TREX_RUMP = 4, TREX_NGAP = 5 };

/* the design variables of Table I (cm) */
typedef struct trex_design {
  double r1, r2, lu, ll;
} trex_design;

/* A design and its double-contact configuration (the rows of Table I). */
typedef struct trex_row {
  trex_design d;
  double q[TREX_NQ];
  double c;   /* normalised cosine of the tail and footL normals in the kinetic metric */
  double raw; /* the raw inner product <Dphi_tail, Dphi_footL>_g (1/g) */
} trex_row;

/* the paper's tail length L_tail(r1, r2) (requires r1 > r2 > 0) */
double trex_tail_length(double r1, double r2);

/* the masses (g) of the upper leg, lower leg and tail (2.5 g/cm) and the spheres (1 g/cm^3) */
void trex_masses(const trex_design *d, double *mu, double *ml, double *mt, double *m1, double *m2);

/* M(q) (8 x 8, row-major), the gaps (TREX_NGAP, NULL allowed) and their gradients
 * (TREX_NGAP x 8, NULL allowed). */
void trex_geometry(const trex_design *d, const double *q, double *M, double *gap, double *dg);

/* c and raw of a row (from nh_simul_cosines on tail and footL); NH_OK or its failure. */
int trex_cosine(trex_row *row, char *msg, size_t msg_size);

/* raise y so that the tail and footL gaps are >= 0 (by at most 2e-13 cm above the lower) */
void trex_lift(const trex_design *d, double *q);

/* Newton on two coordinates (indices ia, ib of q) so that the tail and footL gaps are 0;
 * NH_OK, or NH_ERR_NO_CONVERGENCE with a message. */
int trex_touch(const trex_design *d, double *q, int ia, int ib, char *msg, size_t msg_size);

/* Table I's rows as printed by the paper (column order of q here, not of the table). */
void trex_paper_rows(trex_row *initial, trex_row *optimised);

/* Our initial row: the paper's initial design and angles, with y and pT solved for the double
 * contact. */
int trex_initial_row(trex_row *row, char *msg, size_t msg_size);

/* Our optimised design (the values in examples/trex.nh; `trex-design` recomputes them). */
void trex_optimised_row(trex_row *row);

/* The design optimisation: the nearest row (scaled distance) to `start` with both contacts
 * closed and c = 0 (NLopt SLQP on 11 variables, 3 equality constraints). *evals (Nullable)
 * the objective evaluations. NH_ERR_UNSUPPORTED when nholo was built without NLopt. */
int trex_optimise(const trex_row *start, trex_row *out, int *evals, char *msg, size_t msg_size);
int trex_have_nlopt(void);

/* the initial gait (the paper's Fig. 8): the design of `row`, both knees straight, the hips
 * pi apart, th and pT kept, y and pL solved for the double contact */
int trex_initial_gait(const trex_row *row, trex_row *gait, char *msg, size_t msg_size);

/* the figures */
typedef struct papers_opts papers_opts;
int papers_trex(const char *name, const char *path, const papers_opts *o, char *msg, size_t msg_size);
int papers_trex_design(const char *name, const char *path, const papers_opts *o, char *msg,
                       size_t msg_size);

#endif
