/* dg.h - discrete gradients and the discrete-gradient step for skew-gradient systems
 * x' = Pi(x) grad H(x), Pi skew (private; used by the methods avf, gonzalez, itoh-abe and
 * gonzalez-r). Celledoni, Farre Puiggali, Hoiseth, Martin de Diego, "Energy-Preserving
 * Integrators Applied to Nonholonomic Systems", sec. 3.1-3.2; spec 002 M1-M2.
 *
 * A system is given by one evaluator of H, grad H and Pi at a point (any output Nullable)
 * and, optionally, the exact derivatives Newton needs: the Hessian of H and the Jacobian of
 * Pi(x) g at fixed g. Without them Newton uses a forward-difference Jacobian, formed once
 * per step (chord iteration). */
#ifndef NH_DG_H
#define NH_DG_H

#include <stddef.h>

/* H(x) (scalar), dH (n), Pi (n x n, row-major, skew); any output may be NULL. Returns 0, a
 * positive value (infeasible point), or a negative value (fatal). */
typedef int (*nh_dg_eval_fn)(const double *x, double *H, double *dH, double *Pi, void *user);
/* Hs (n x n) = d^2 H / dx^2. */
typedef int (*nh_dg_hess_fn)(const double *x, double *Hs, void *user);
/* T (n x n), T[i*n + k] = sum_j dPi_ij/dx_k g_j: the Jacobian of Pi(x) g at fixed g. */
typedef int (*nh_dg_pijac_fn)(const double *x, const double *g, double *T, void *user);

typedef struct nh_dg_sys {
  int n;
  nh_dg_eval_fn eval;   /* required */
  nh_dg_hess_fn hess;   /* Nullable (then pijac is ignored and Newton uses differences) */
  nh_dg_pijac_fn pijac; /* Nullable: Pi constant */
  int degree;           /* polynomial degree of H (AVF quadrature exact), 0: not polynomial */
  void *user;
  /* Nullable (dense): the entries of Pi that may be nonzero in row order, three ints each
   * (row i, offset i*n + k, column k), row i's from pi_ent[3 pi_row[i]] to pi_ent[3 pi_row[i+1]]
   * (columns increasing); and the entries i*n + k of T that may be nonzero (t_nnz of them).
   * The step skips the others, which must be exactly 0. */
  const int *pi_row, *pi_ent;
  const int *t_idx;
  int t_nnz;
} nh_dg_sys;

/* Ints of the pattern lists for n variables; nh_dg_sys_patterns fills them (at idx) from
 * byte masks (n x n, Nullable: dense) and points sys at them. */
size_t nh_dg_pattern_size(int n);
void nh_dg_sys_patterns(nh_dg_sys *sys, const unsigned char *pi_mask, const unsigned char *t_mask,
                        int *idx);

typedef enum nh_dg_kind {
  NH_DG_AVF = 0,      /* mean value / averaged vector field, eq. (11) */
  NH_DG_GONZALEZ = 1, /* midpoint (Gonzalez), eq. (12) */
  NH_DG_ITOH_ABE = 2  /* coordinate increment (Itoh-Abe), eq. (13) */
} nh_dg_kind;

/* Newton for (14): stop when every |dx_i| <= NH_DG_NEWTON_TOL (1 + |x'_i|) (or when the
 * update stagnates below NH_DG_STALL_TOL, the round-off floor), fail after NH_DG_MAXIT. */
#define NH_DG_NEWTON_TOL 1e-14
#define NH_DG_STALL_TOL 1e-11
#define NH_DG_MAXIT 50
/* A simplified-Newton iteration (the same factors as the previous update) also stops when
 * the estimated remaining error theta/(1 - theta) |dx_i|, theta = |dx_k| / |dx_{k-1}| (max
 * norms; Hairer-Wanner IV.8), is below NH_NEWTON_EST_TOL (1 + |x'_i|), with theta below
 * NH_NEWTON_THETA_MAX: the update that would only confirm convergence is skipped. The bound
 * is far below round-off on purpose: the error a solve leaves is smooth along a trajectory,
 * so it adds up in the energy from step to step instead of averaging out like round-off;
 * 1e-20 is the size the update test leaves in the examples (theta ~ 1e-6 times an update
 * <= 1e-14). */
#define NH_NEWTON_EST_TOL 1e-20
#define NH_NEWTON_THETA_MAX 0.5
/* Newton keeps its (exact) Jacobian while each update shrinks by at least this factor, and
 * re-evaluates it otherwise (simplified Newton; one Jacobian per step in the examples). */
#define NH_NEWTON_REFRESH 0.05
/* Chord iteration with reused difference factors: new differences when an update shrinks by
 * less than this factor. */
#define NH_NEWTON_CHORD_RATIO 0.1
/* Divergence: with factors formed in this solve, an update above the round-off floor
 * (NH_DG_STALL_TOL) larger than NH_NEWTON_DIVERGE times the smallest update made with them
 * ends the solve with NH_ERR_NO_CONVERGENCE (the caller takes a shorter step) instead of
 * iterating on to overflow and a NaN. A converging iteration's updates shrink; the chord
 * iteration of itoh-abe on the snakeboard next to its singular configuration grew by 1.7 per
 * update from 6e-7 to 1e252 and ended NH_ERR_NONFINITE before this. */
#define NH_NEWTON_DIVERGE 10.0
/* AVF for a non-polynomial H: Gauss-Legendre with 8, 16, 32 nodes until two successive
 * rules agree to NH_DG_AVF_TOL relative (max norm). */
#define NH_DG_AVF_TOL 2e-16
/* Gonzalez: the correction term of (12) is dropped when its numerator H(x') - H(x) - g.d
 * (of true size O(|d|^3)) is below NH_DG_GZ_NOISE eps (|H(x)| + |H(x')| + sum |g_i d_i|), its
 * rounding noise; (10a) then holds to that noise. Otherwise the quotient by |d|^2 would turn
 * the noise into an O(eps |H| / |d|) error in G that Newton cannot converge through. */
#define NH_DG_GZ_NOISE 8.0
/* Itoh-Abe: components with |x'_i - x_i| <= NH_DG_IA_DELTA (1 + |x_i|) compute the mean value
 * of dH/dx_i along the increment by quadrature instead of the difference quotient. */
#define NH_DG_IA_DELTA 1e-3

/* What one solve did. */
typedef struct nh_dg_newton {
  int iters;       /* Newton iterations (linear solves) */
  double residual; /* max |x' - x - h Pi gradbar H| at the returned x' */
  int nodes;       /* AVF: quadrature nodes of the last evaluation */
} nh_dg_newton;

/* ---- Newton on a square system F(z) = 0 (shared by the implicit methods) ------------ */

/* R = F(z) (n); when J is not NULL also J = dF/dz (n x n, row-major). */
typedef int (*nh_newton_fn)(const double *z, double *R, double *J, void *user);

/* Doubles of work for nh_newton on n unknowns. */
size_t nh_newton_work_size(int n);
/* Solve F(z) = 0 from the initial guess z (in place). exact: F gives J, evaluated at the
 * initial guess and again whenever an update shrinks by less than refresh_ratio (0: at every
 * iteration, full Newton; NH_NEWTON_REFRESH: simplified Newton); else a forward-difference
 * Jacobian (chord iteration). jac_kept (Nullable, chord only): on entry nonzero when work
 * still holds the factors of an earlier solve of a nearby system, to be reused until an
 * update shrinks by less than NH_NEWTON_CHORD_RATIO; on return nonzero when it holds factors. Stops as described at
 * NH_DG_NEWTON_TOL and NH_NEWTON_EST_TOL, gives up at NH_NEWTON_DIVERGE; st->residual is max |F| at the returned z. Returns 0, a positive value
 * from F, NH_ERR_NO_CONVERGENCE or NH_ERR_SINGULAR. */
int nh_newton(int n, nh_newton_fn F, void *user, int exact, double refresh_ratio, double *z,
              nh_dg_newton *st, double *work, int *jac_kept);

/* Predictor history carried across the steps of one trajectory (Nullable in nh_dg_step).
 * The explicit midpoint predictor misses the solution of (14) by c = O(h^3), which varies
 * smoothly along a trajectory of constant h: the step adds the extrapolation of the last
 * corrections (c_n, or 2 c_n - c_{n-1}: error O(h^5)), so that Newton starts closer. Only
 * the start of the iteration changes; the solution and its tolerance do not. Used when x is
 * bitwise the x1 of the previous step and h is the same; else the history restarts. */
typedef struct nh_dg_pc {
  int count; /* valid corrections stored (0, 1, 2); set 0 to restart */
  double h;  /* their step */
  double *c; /* 2 n: the last correction, then the one before */
  double *xend; /* n: x1 of the last step */
  double *xs;    /* Nullable: NH_DG_PC_HIST n, the last states x1, a ring: newest in slot head */
  int head;      /* the ring slot of the newest state in xs */
  int nhist;     /* valid states in xs; set 0 with count to restart */
  int extrap_ok; /* the extrapolation of xs met NH_DG_PC_EXTRAP_TOL at the last step */
  double Hend;   /* Gonzalez: H(xend) from the solve's last evaluation (H(x) of the next step) */
} nh_dg_pc;

/* With a state history (xs) of NH_DG_PC_HIST states, the predictor is their polynomial
 * extrapolation (degree NH_DG_PC_HIST - 1, error O(h^NH_DG_PC_HIST)) instead of the explicit
 * midpoint step, which saves its two evaluations of grad H and Pi (and, for Gonzalez, H(x)
 * is the last evaluation's H(x')): as long as the extrapolation of the last step came within
 * NH_DG_PC_EXTRAP_TOL (1 + |x'_i|) of the solution, else the midpoint predictor is used. On
 * the quartic system at h = 0.05 it misses by 1.2e-6 on average (the midpoint with
 * corrections by 2e-6) and Newton still takes two iterations; the start of the iteration
 * moves, the solution and its tolerance do not. */
#define NH_DG_PC_HIST 7
#define NH_DG_PC_EXTRAP_TOL 1e-5

/* Doubles of work for nh_dg_grad and nh_dg_step on n variables. */
size_t nh_dg_work_size(int n);
/* Zeroes the matrix buffers of nh_dg_step's work (Pi, the Hessian, T): the step writes them
 * only through sys's callbacks, so callbacks that leave structural zeros unwritten (the
 * models' sparse-fill evaluators) see zeros there for as long as the work is kept. */
void nh_dg_work_clear(int n, double *work);

/* The discrete gradient G = gradbar H(x, x1) (n) and, when dG (Nullable, n x n) is given,
 * its Jacobian dG/dx1 (needs sys->hess except for Itoh-Abe). *nodes (Nullable): AVF nodes. */
int nh_dg_grad(const nh_dg_sys *sys, nh_dg_kind kind, const double *x, const double *x1,
               double *G, double *dG, int *nodes, double *work);

/* One step of (14), (x1 - x)/h = Pi((x + x1)/2) gradbar H(x, x1), by Newton from the explicit
 * midpoint predictor (plus the corrections pc, Nullable) or the extrapolation of pc->xs;
 * jac_kept as for nh_newton (systems without derivatives). Returns 0, a positive value from an evaluator, NH_ERR_NO_CONVERGENCE or
 * NH_ERR_SINGULAR. x1 must not alias x. */
int nh_dg_step(const nh_dg_sys *sys, nh_dg_kind kind, const double *x, double h, double *x1,
               nh_dg_newton *st, double *work, int *jac_kept, nh_dg_pc *pc);

#endif
