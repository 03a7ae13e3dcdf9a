/* mf.h - a model file on its way to an nh_model (private to src/lang).
 *
 *   text --mf_read (read.c)--> mf (symbols, statement expressions, initial state; errors located)
 *        --mf_derive (derive.c)--> derived expressions (M, dV, c, A, Adot v, gaps, derivatives)
 *        --mf_check (check.c; walls.c)--> model-level checks at the initial state (located at the
 *                                         statement), and which gaps are walls
 *        --mf_eval_tapes (evaluators.c) or mf_codegen_load (codegen.c)--> the evaluators
 *        --mf_build (build.c)--> the nh_model_def, then the nh_model
 * describe.c reports on the result (`nholo check`). Calls go one way, down this list:
 * codegen.c uses only the derived groups, never the builder.
 *
 * Expression variables are numbered q_0..q_{nq-1}, then the velocities v_0..v_{nq-1}, then
 * the time t (index 2 nq): M(q) reads the caller's q array directly. Parameters are
 * constants folded into the expressions as the file is read. */
#ifndef NH_LANG_MF_H
#define NH_LANG_MF_H

#include <stddef.h>

#include "expr/expr.h"
#include "expr/parse.h"
#include "nholo/evaluators.h"
#include "nholo/model.h"
#include "nholo/modelfile.h"

/* Largest model a file may declare. Coordinates: a bound on memory (the dense n x n arrays
 * of the derived expressions and of the methods), not on the evaluators' code, which grows
 * with the structural non-zeros. */
#define NH_MF_MAX_Q 2048    /* coordinates */
#define NH_MF_MAX_ITEMS 256 /* parameters, lets, gaps, monitors, Poisson entries, each */
#define NH_MF_MAX_CON NH_MF_MAX_Q /* constraints (at most one per coordinate is useful) */
/* rank decisions (Cholesky pivots) at the initial state */
#define MF_RANK_TOL 1e-10

typedef struct mf_item {
  char name[NH_PARSE_NAME_MAX + 1];
  int node;      /* expression (constraint: lhs - rhs) */
  double value;  /* parameter value; restitution coefficient of a gap */
  int law;       /* gap: nh_impact_kind */
  int holonomic; /* constraint: 1 when given as phi(q) = 0 (node is then dphi/dq q') */
  int phi;       /* holonomic constraint: phi = LHS - RHS */
  int dir, action; /* monitor: nh_monitor_dir, nh_monitor_action */
  size_t off;    /* where its statement starts (for diagnostics) */
} mf_item;

/* A derivative tensor by its structural non-zeros: entry e is node[e] at the dense index
 * idx[e] (every other entry is identically zero), in the order derived. */
typedef struct mf_sparse {
  int n, cap;
  int *idx, *node;
  int too_large; /* an entry was refused: more than MF_MAX_SPARSE, or a dense index past INT_MAX */
} mf_sparse;
/* Most structural non-zeros of one derivative tensor (a bound on memory: 8 bytes each, and
 * their expressions) */
#define MF_MAX_SPARSE (1 << 24)

typedef struct mf {
  /* source */
  const char *file;
  const char *text; /* the original text (diagnostics quote it) */
  char *clean;      /* the text with comments and line continuations blanked */
  size_t len;
  const nh_load_opts *opts;
  int *set_used;    /* (opts->nset) which overrides named something */
  int set_read;     /* 1 + the first override a constant expression read (mf_const_expr_at), or 0 */

  nh_expr_pool *pool;
  char name[NH_PARSE_NAME_MAX + 1];
  int nq;
  char coord[NH_MF_MAX_Q][NH_PARSE_NAME_MAX + 1];
  size_t coord_off;
  int npar, nlet, nc, ngap;
  mf_item par[NH_MF_MAX_ITEMS], let[NH_MF_MAX_ITEMS], con[NH_MF_MAX_CON], gap[NH_MF_MAX_ITEMS];
  int kinetic, potential;        /* nodes, -1 when absent */
  size_t kinetic_off, potential_off;
  int force[NH_MF_MAX_Q];        /* summed generalized force per coordinate, -1: none */
  size_t force_off[NH_MF_MAX_Q];
  double q0[NH_MF_MAX_Q], v0[NH_MF_MAX_Q];
  int q0_set[NH_MF_MAX_Q], v0_set[NH_MF_MAX_Q];
  size_t initial_off; /* first `initial` statement, or the end of the text */
  int has_se2, se2[3]; /* `group se2 THETA X Y` */
  /* an almost-Poisson model (`state` instead of `coordinates`): x' = Pi(x) grad H(x). Its
   * state variables use the coordinate slots (nq = nx), and the velocity variable slots carry
   * the vector g of the Pi-Jacobian T = d(Pi g)/dx. */
  int poisson;
  int ham;        /* H, -1 until given */
  size_t ham_off;
  int npi;
  int pi_a[NH_MF_MAX_ITEMS], pi_b[NH_MF_MAX_ITEMS], pi_node[NH_MF_MAX_ITEMS];
  size_t pi_off[NH_MF_MAX_ITEMS];
  int has_initial;
  /* monitors m_j(t, q, q') (either kind of model): `monitor NAME: EXPR [DIRECTION] [ACTION]` */
  int nmon;
  mf_item mon[NH_MF_MAX_ITEMS];
  int in_monitor; /* reading a monitor's expression (t is then a variable in either form) */
  int mon_lambda; /* some monitor reads a multiplier lambda(C) (variables MF_LAMBDA_VAR) */
  int ncontact;   /* contact statements (each adds its monitors NAME.normal, ...) */

  /* derived (mf_derive): node ids, -1 where zero is implied by absence */
  int *M;      /* nq x nq */
  int *c;      /* nq: Coriolis */
  int V;       /* potential (0 node when absent) */
  int *dV;     /* nq */
  int *H;      /* nq x nq */
  mf_sparse dM;  /* nq x nq x nq: dM[k nq^2 + i nq + j] = dM_ij/dq_k */
  mf_sparse d2M; /* nq^4: d2M[l nq^3 + (dM index)] = d(dM entry)/dq_l */
  int has_d2M;   /* d2M derived (small models; larger ones difference dM) */
  int *f;      /* nq */
  int *dfdq, *dfdv; /* nq x nq */
  int *A;      /* nc x nq */
  int *Adv;    /* nc */
  mf_sparse dA; /* nq x nc x nq: dA[(i nc + k) nq + j] = dA_kj/dq_i */
  int *g;      /* ngap */
  int *dg;     /* ngap x nq */
  int *phi;    /* nc: phi_k when every constraint is holonomic, else NULL */
  /* almost-Poisson form */
  int *dH;     /* nx */
  int *Hs;     /* nx x nx */
  int *Pi;     /* nx x nx */
  int *PT;     /* nx x nx: T[i*nx + k] = sum_j dPi_ij/dx_k g_j */
  int hdeg;    /* polynomial degree of H, 0 when not a polynomial */
  int *mexpr;  /* nmon: the monitor expressions (either form) */
  int *ids;    /* one block holding all of the above */

  /* the first error */
  int status;
  nh_parse_error err;
} mf;

/* ---- statements (read.c; the cursor in cursor.c, the contact statement in contact.c) --------- */

/* A statement being read: the span [pos, end) of the cleaned text; start, line and col are
 * where the statement begins (positions are counted from there). */
typedef struct mf_cursor {
  struct mf *m;
  size_t pos, end;
  size_t start;
  int line, col;
} mf_cursor;

void mf_skip_ws(mf_cursor *c);
int mf_at_end(mf_cursor *c);                 /* skips white space */
int mf_read_name(mf_cursor *c, char *out);   /* a NAME into out; 0 when there is none */
int mf_accept_char(mf_cursor *c, char ch);   /* 1 when ch is next (and taken) */
int mf_expect_fail(mf_cursor *c, const char *what); /* "expected WHAT, found ..." there; -1 */
/* an expression at the cursor: up to '=', ',', ':' or a name after a complete expression
 * when stop is set, else to the end of the statement */
int mf_expr_at(mf_cursor *c, int stop, int *node);
/* a constant expression (numbers, pi, parameters): its value, named `what` in errors */
int mf_const_expr_at(mf_cursor *c, int stop, const char *what, double *value);
/* " (from --set NAME=VALUE)" when the constant expression read last took an override's value
 * (the command line's --set, Python's set=), else "": a bad value is the override's, the
 * statement only where it went */
const char *mf_set_note(const mf *m, char *buf, size_t size);
/* the expression parser's name lookup (read.c); F(ARG) symbols go to mf_lookup_call */
int mf_lookup(void *user, const char *name, int primed, int *out);
/* lambda(CONSTRAINT) in a monitor: the multiplier's variable (contact.c) */
int mf_lookup_call(struct mf *m, const char *name, int *out);
/* contact NAME: normal C [friction C1 [C2]] [at Q ...] [mu E] [on-slip A] [on-detach A] */
int mf_st_contact(mf_cursor *c, size_t off);
/* the variable of constraint k's multiplier lambda_k: after q, v and t */
#define MF_LAMBDA_VAR(m, k) (2 * (m)->nq + 1 + (k))

/* Record the first error at byte offset off of the text (printf-style); returns -1. */
int mf_fail(mf *m, size_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Read the statements of text into m (m zeroed by the caller except the source fields). */
int mf_read(mf *m);
/* Build the derived expressions. */
int mf_derive(mf *m);
/* Model-level checks: quadratic T, linear homogeneous constraints, no velocities in V or
 * gaps, M positive definite and constraints independent at the initial state, initial
 * velocities admissible (unless opts->project_initial), initial state inside the gaps. */
int mf_check(mf *m);
/* The gaps that are no walls, decided from their expressions (walls.c): constant, a gradient
 * identically zero, a factor f^p (p > 1) or one of one sign whose zero has dg = 0, never
 * negative or never positive; each an error at the gap. */
int mf_check_walls(mf *m);
void mf_free(mf *m);
/* Release the derived sparse tensors (mf_free calls it). */
void mf_derive_free(mf *m);

/* Variable names for printing: q names, then NAME', then t. */
void mf_var_names(const mf *m, const char **names, char (*primed)[NH_PARSE_NAME_MAX + 2]);

/* ---- evaluators ------------------------------------------------------------------------- */

/* One evaluator group: the outputs compiled together. */
enum {
  MF_EV_MASS,      /* M */
  MF_EV_V,         /* V */
  MF_EV_DV,        /* dV */
  MF_EV_VDV,       /* V, dV */
  MF_EV_COR,       /* c */
  MF_EV_FORCE,     /* f */
  MF_EV_A,         /* A */
  MF_EV_ADV,       /* Adot v */
  MF_EV_AADV,      /* A, Adot v */
  MF_EV_G,         /* g */
  MF_EV_DG,        /* dg */
  MF_EV_GDG,       /* g, dg */
  MF_EV_DM,        /* dM */
  MF_EV_D2M,       /* d2M */
  MF_EV_H,         /* Hessian of V */
  MF_EV_DA,        /* dA */
  MF_EV_DFDQ,      /* df/dq */
  MF_EV_DFDV,      /* df/dv */
  MF_EV_PHI,       /* holonomic constraints phi(q) (all constraints holonomic) */
  MF_EV_HAM,       /* almost-Poisson: H */
  MF_EV_DH,        /* grad H */
  MF_EV_HDH,       /* H, grad H */
  MF_EV_PI,        /* Pi */
  MF_EV_HS,        /* Hessian of H */
  MF_EV_PT,        /* d(Pi g)/dx */
  MF_EV_MON,       /* the monitors (either form) */
  MF_EV_COUNT
};

/* The outputs of group ev: *n node ids into ids (caller array of mf_group_size). A sparse
 * group (the derivative tensors dM, d2M, dA) has only its structural non-zeros as outputs:
 * mf_group_index gives their places in the dense result of mf_group_dense entries (NULL for
 * the other groups, whose outputs are the dense result). */
int mf_group_size(const mf *m, int ev);
void mf_group_outputs(const mf *m, int ev, int *ids);
const int *mf_group_index(const mf *m, int ev);
long mf_group_dense(const mf *m, int ev);
/* Whether group ev is read by an evaluator m provides (the others are not built). */
int mf_group_used(const mf *m, int ev);
/* The generated symbol name of group ev ("nh_mf_mass", ...). */
const char *mf_group_symbol(int ev);

/* ---- the evaluators of a model file ------------------------------------------------------ */

/* One field per evaluator of nholo/evaluators.h, named as in nh_model_def; NULL where absent. */
typedef struct mf_fns {
  NH_EVALUATOR_LIST(NH_EVALUATOR_FIELD)
} mf_fns;

/* The evaluators by index, in the list's order: MF_FN_mass, MF_FN_potential, ... */
enum {
#define X(name, type, exact) MF_FN_##name,
  NH_EVALUATOR_LIST(X)
#undef X
  MF_FN_COUNT
};

/* The symbol of evaluator NAME in generated C. */
#define MF_SYMBOL(name) "nh_mf_e_" #name

/* Whether model file m has evaluator fn (MF_FN_*). Terms that vanish identically (Coriolis
 * for a constant M, no forces, V = 0) have none, so the dynamics skip them as they do for
 * hand-written models. The sparse-fill variants only compiled code provides. */
int mf_provides(const mf *m, int fn);
/* e is the constant 0; all n expressions ids are */
int mf_is_zero(const mf *m, int e);
/* e is the constant +0 (what the patterns of M and A leave out) */
int mf_is_pluszero(const mf *m, int e);
int mf_all_zero(const mf *m, const int *ids, int n);
/* 1 when G = A M^-1 A^T is shown constant (nholo/model.h, gram_constant) */
int mf_gram_constant(const mf *m);

/* The tape evaluators of m into *fns (the sparse-fill variants stay NULL), their data into
 * *user (free with mf_eval_free). NH_OK or NH_ERR_NOMEM. */
int mf_eval_tapes(const mf *m, mf_fns *fns, void **user);
/* The evaluators of m compiled to C (mf_codegen_load) into *fns, the loaded object into *user
 * (free with mf_eval_free). NH_OK, or NH_ERR_UNSUPPORTED with the reason in why. */
int mf_eval_compiled(const mf *m, mf_fns *fns, void **user, char *why, size_t why_size);
/* Release the user data of either (NULL allowed). */
void mf_eval_free(void *user);
/* The note of a model that runs on the tape because the compiler passed its budget: "FILE:
 * WHY" into the user data of the tapes; the note, or "" */
void mf_eval_set_note(void *user, const char *file, const char *why);
const char *mf_eval_note(const void *user);
/* Give the user data of either its model, once built (monitors that read the multipliers
 * compute them with nh_model_accel). */
void mf_eval_set_model(void *user, const nh_model *model);

/* Generate C for the evaluators of m, compile it with the system compiler into a shared
 * object in the cache (named by a hash of the code and the compiler) unless it is there
 * already, load it and fill in *fns the evaluators m provides (mf_provides); *dl receives
 * the handle. Returns NH_OK, or NH_ERR_UNSUPPORTED with the reason in why (the caller may
 * fall back to tapes). */
int mf_codegen_load(const mf *m, mf_fns *fns, void **dl, char *why, size_t why_size);
/* mf_codegen_load's outcomes besides NH_OK, NH_ERR_UNSUPPORTED and NH_INTERRUPTED (the
 * load's cancellation flag): the compiler passed its time or memory limit (why says which) */
#define MF_CC_OVER_TIME 101
#define MF_CC_OVER_MEMORY 102
/* The C compiler's run (codegen_cc.c): cc flags... -o so src -lm, its output to log, its
 * temporaries in tmpdir, within seconds of wall time and mib MiB of address space (0: no
 * limit), stopped when *cancel (Nullable) is set. NH_OK; NH_ERR_UNSUPPORTED (it could not run
 * or failed), MF_CC_OVER_TIME, MF_CC_OVER_MEMORY or NH_INTERRUPTED, the compiler and its
 * children killed, with the reason in why. */
#define MF_CC_MAX_ARGS 16
typedef struct mf_cc_job {
  const char *cc;
  const char *const *flags;
  int nflags;
  const char *src, *so, *log, *tmpdir;
  double seconds, mib;
  const volatile sig_atomic_t *cancel;
} mf_cc_job;
int mf_cc_run(const mf_cc_job *job, char *why, size_t why_size);
/* Unload a handle of mf_codegen_load (NULL allowed). */
void mf_codegen_unload(void *dl);
/* The C source of m's evaluators (malloc'd), or NULL when out of memory. */
char *mf_codegen_source(const mf *m);
/* gni's free-motion kernel in m's generated C (codegen_gni.c, the text of gni_kernel.h): its
 * code (the key of gni.c's free_code: sizes and a diagonal M), 0 when m has none; the C
 * appended to b. */
struct nh_text;
int mf_gni_kernel_code(const mf *m);
void mf_codegen_gni(struct nh_text *b, const mf *m);
/* The compiled kernel of a model file's evaluator data (mf_eval_compiled), or NULL; its key
 * and its M, M^-1 into *code and *M. */
nh_gni_kernel_fn mf_eval_gni_kernel(void *user, int *code, const double **M);

/* ---- the public entry points (build.c), shared with describe.c ------------------------------ */

/* Read, derive and check text into m (zeroed); on failure the diagnostic is in msg. */
int mf_prepare(mf *m, const char *text, const char *filename, const nh_load_opts *opts,
               char *msg, size_t msg_size);
/* The model of a prepared m, or NULL with the reason in msg. */
nh_model *mf_build(mf *m, char *msg, size_t msg_size);
/* The whole file as a NUL-terminated string (malloc'd), or NULL with a reason in msg. */
char *mf_read_file(const char *path, char *msg, size_t msg_size);

#endif
