/* nholo/systems/ball.h - a rolling ball (and disk) actuated by internal point masses.
 *
 * After V. Putkaradze, S. Rogers, "On the Normal Force and Static Friction Acting on a
 * Rolling Ball Actuated by Internal Point Masses" (spec 004). A rigid ball of radius r and
 * mass m0 (inertia I about its own centre of mass, body frame, full symmetric tensor; centre
 * of mass at chi0 from the geometric centre GC) rolls without slipping on a horizontal
 * plane under gravity g, driven by n point masses m_i on rails zeta_i(theta_i) fixed in
 * the body (body frame at the GC), with theta_i'' = u_i(t) prescribed, and an external
 * force F_e(t) at the GC.
 *
 * Ball (paper eq. 6.4): the state is
 *   x = [theta (n), theta' (n), q (4, unit quaternion, scalar first), Om (3), zxy (2)]
 *   theta'' = u(t),  q' = 1/2 q * [0; Om],  Om' = (3.2),  zxy' = r [om_2, -om_1], om = Lam Om
 * with Lam the rotation of q/|q| (no Euler angles). Normal force (3.3) and friction (3.4):
 *   N = M g + <Fsum, Gam> - F_e3,   fvec = (Lam Fsum - F_e)_12,   f_s = |fvec|
 *   Fsum = sum_i m_i [Om' x s_i + Om x (Om x zeta_i + 2 thd_i zeta_i') + thd_i^2 zeta_i''
 *                     + thdd_i zeta_i'],  s_i = r Gam + zeta_i,  Gam = Lam^T e3.
 * The model is in first-order ODE form (nholo/model.h) with the quaternion renormalised
 * after each accepted step (a projection method), its energy E (spec 2.10; not conserved
 * while masses move: dE/dt = actuator power) and two monitors:
 *   "normal_force"  N (falling zero = detachment),
 *   "slip"          mu N - f_s (falling zero = the friction limit mu is exceeded; only
 *                   declared when mu > 0).
 * Each stops the run or only reports, as the parameters say.
 *
 * Disk (paper sec. 4, eqs. 4.1-4.4): the planar special case, with its own equations;
 *   x = [theta (n), theta' (n), phi, phi'],  Lam = rotation by -phi about e2, Om = -phi' e2.
 * It needs planar data (E2 principal, chi0 and the rails in the E1-E3 plane, F_e in the
 * e1-e3 plane, q0 a rotation about e2) and then agrees with the ball code.
 *
 * Free flight (paper App. B, eqs. B.6 and B.15): after detachment,
 *   x = [theta (n), theta' (n), q (4), Om (3), z_GC (3), z_GC' (3)],
 * with a monitor "touchdown" on z_GC3 (falling) that stops the run; no landing law. */
#ifndef NHOLO_BALL_H
#define NHOLO_BALL_H

#include "nholo/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NH_BALL_MAX_MASSES 16

/* A rail: zeta(theta) and its first two derivatives in theta (body frame at the GC) for
 * mass i (0-based among the moving masses). */
typedef int (*nh_ball_rail_fn)(int i, double theta, double zeta[3], double dzeta[3],
                               double ddzeta[3], void *user);
/* The prescribed accelerations u_i(t) = theta_i'' of all n masses. */
typedef int (*nh_ball_input_fn)(double t, double *u, void *user);
/* The external force F_e(t) at the GC (spatial frame). */
typedef int (*nh_ball_force_fn)(double t, double F[3], void *user);

typedef struct nh_ball_params {
  char name[NH_MAX_NAME]; /* the model's name; "" gives "rolling-ball" / "rolling-disk" */
  int n;          /* moving point masses, 0 .. NH_BALL_MAX_MASSES */
  double r, g;    /* radius, gravity */
  double m0;      /* mass of the ball with its static structure */
  double I[9];    /* m0's inertia tensor about its centre of mass, body frame, row-major, SPD */
  double chi0[3]; /* centre of mass of m0 from the GC (body frame) */
  double m[NH_BALL_MAX_MASSES];

  /* rails: circles zeta_i = rail_radius[i] B_i [cos th, 0, sin th] (paper eq. 6.8) with
   * B_i = rail_basis[i] (row-major, a rotation; see nh_ball_rail_basis), unless `rail` is
   * given, which then describes every rail */
  double rail_radius[NH_BALL_MAX_MASSES];
  double rail_basis[NH_BALL_MAX_MASSES][9];
  nh_ball_rail_fn rail; /* Nullable */
  void *rail_user;

  /* inputs: u_i(t) = input_sign[i] p(t) with the paper's profile p (nh_ball_profile), unless
   * `input` is given */
  double input_sign[NH_BALL_MAX_MASSES];
  nh_ball_input_fn input; /* Nullable */
  void *input_user;

  /* external force: constant Fe, unless `force` is given */
  double Fe[3];
  nh_ball_force_fn force; /* Nullable */
  void *force_user;

  /* initial state */
  double theta0[NH_BALL_MAX_MASSES], thetad0[NH_BALL_MAX_MASSES];
  double q0[4];  /* unit quaternion (scalar first); body to space */
  double Om0[3]; /* body angular velocity */
  double zxy0[2];

  /* regime monitoring */
  double mu;          /* static friction coefficient for the slip monitor; 0: no slip monitor */
  int stop_on_detach; /* 1: the run stops where N falls to 0, else it is only reported */
  int stop_on_slip;   /* 1: the run stops where f_s exceeds mu N */
} nh_ball_params;

/* The paper's input profile: 1 on [0, .1], 2 - 10 t on [.1, .2], 0 elsewhere (spec 3.4). */
NH_API double nh_ball_profile(double t);

/* B(n) = [n, b2, -b1]: the rotation whose first column is the unit vector n and whose other
 * columns complete Frisvad's orthonormal basis (b1, b2, n) (spec 3.5). B: row-major. */
NH_API void nh_ball_rail_basis(const double n[3], double B[9]);

/* The paper's examples: the disk of sec. 5 (Table 5.1, 4 masses), the ball of sec. 6 (Table
 * 6.2, 3 masses) and its detachment variant (m0 = m1 = m2 = .1, m3 = 60). */
NH_API nh_ball_params nh_ball_params_disk_example(void);
NH_API nh_ball_params nh_ball_params_ball_example(void);
NH_API nh_ball_params nh_ball_params_detach_example(void);

/* Check the parameters: positive finite masses, radius and g; SPD inertia; unit q0; rails
 * inside the ball (|zeta| < r, checked on the circle or sampled on a callback rail);
 * n in range; mu >= 0. Returns NH_OK or NH_ERR_ARG with one line naming the field. */
NH_API int nh_ball_params_check(const nh_ball_params *p, char *msg, size_t msg_size);

/* Build the ball model (ODE form, 2n + 9 states). NULL with a reason on bad parameters. The
 * rail, input and force user pointers must outlive the model. */
NH_API nh_model *nh_ball_create(const nh_ball_params *p, char *msg, size_t msg_size);
/* Build the disk model (ODE form, 2n + 2 states) from planar parameters. */
NH_API nh_model *nh_disk_create(const nh_ball_params *p, char *msg, size_t msg_size);
/* Build the free-flight model (App. B; 2n + 13 states). nh_ball_flight_state maps a rolling
 * ball state at time t to the flight state (z_GC = [zxy, 0], z_GC' the rolling velocity) and
 * sets *z_acc (Nullable) to the GC's initial vertical acceleration in flight. With N = 0 but
 * f_s > 0 (perfect friction) the friction force vanishes too at lift-off; z_acc < 0 then
 * means the free ball is pressed back into the floor: it does not fly (the touchdown monitor,
 * starting at z_GC3 = 0, never fires), contact persists and it must slip instead. */
NH_API nh_model *nh_ball_flight_create(const nh_ball_params *p, char *msg, size_t msg_size);
NH_API int nh_ball_flight_state(const nh_model *ball, double t, const double *x_ball,
                                double *x_flight, double *z_acc);

/* Rolling, then free flight (CLI `--on-detach fly`). roll: a simulation of a ball (ODE or
 * DAE form) built with stop_on_detach = 1; fly: a simulation of nh_ball_flight_create with the
 * same parameters (any method). Runs roll like nh_ball_run to t_end; if it stops at a
 * detachment (N falls to 0), fly starts from nh_ball_flight_state of that state (same masses
 * and mass trajectories; theta, theta', q, Om continuous, z_GC = [zxy, 0], z_GC' the rolling
 * velocity) and runs to t_end or to touchdown (z_GC3 falls to 0), where the run ends: the
 * paper gives no landing law. If the flight's initial z_GC3'' is below -NH_BALL_LIFTOFF_TOL
 * the free ball would be pressed into the floor (f_s > 0 at N = 0: it must slip, which no
 * model here describes): no lift-off, the run ends at the detachment. The observer sees the
 * rolling samples (START ... EVENT), then the flight's (START at the switch, ..., END): the
 * phase of a sample is nh_ball_model_kind(nh_sim_model(sim)). Returns the last phase's
 * status: NH_OK at t_end, NH_EVENT_STOP at a stopping event (detachment without lift-off,
 * touchdown, slip with stop_on_slip), or a failure; info (Nullable) says what happened. */
#define NH_BALL_LIFTOFF_TOL 1e-9 /* z_GC3'' at the switch above -this lifts off (|.| ~ round-off of g) */
typedef struct nh_ball_flight_info {
  int detached;        /* the rolling phase stopped at a detachment */
  int flew;            /* the ball lifted off and the flight phase ran */
  int touchdown;       /* the flight ended at touchdown */
  double t_detach;     /* NAN without detachment */
  double z_acc;        /* the flight's initial z_GC3'' at the switch */
  double t_touchdown;  /* NAN without touchdown */
  double vz_touchdown; /* z_GC3' at touchdown (< 0) */
} nh_ball_flight_info;
NH_API int nh_ball_run_flight(nh_sim *roll, nh_sim *fly, double t_end, nh_observer_fn observer,
                              void *user, nh_ball_flight_info *info);

/* Is this a model built by nh_ball_create, nh_disk_create, nh_ball_flight_create? */
typedef enum nh_ball_kind {
  NH_BALL_NONE = 0,
  NH_BALL_ROLLING = 1,
  NH_BALL_DISK = 2,
  NH_BALL_FLIGHT = 3,
  NH_BALL_DAE = 4
} nh_ball_kind;
NH_API nh_ball_kind nh_ball_model_kind(const nh_model *model);
/* The parameters a ball/disk/flight model was built from (NULL for other models). */
NH_API const nh_ball_params *nh_ball_model_params(const nh_model *model);

/* Everything the paper computes at one state (t, x) of a ball, disk or flight model. */
typedef struct nh_ball_eval {
  double Omd[3];     /* body angular acceleration (disk: [0, -phi'', 0]) */
  double N;          /* normal force (flight: 0) */
  double fvec[2];    /* friction force, e1 and e2 components (disk: [f1, 0]) */
  double fs;         /* |fvec| */
  double ratio;      /* f_s / N (inf when N <= 0) */
  double energy;     /* E (spec 2.10) */
  double power;      /* dE/dt = sum_{i>=1} m_i <acc_i + g Gam, chid_i> (actuator power) */
  double q[4];       /* orientation (normalised; disk: from phi) */
  double Lam[9];     /* the rotation of q, body to space, row-major */
  double Om[3];      /* body angular velocity */
  double z_gc[3];    /* geometric centre (spatial; z_GC3 = 0 while rolling) */
  double z_cp[3];    /* contact point (spatial, z_CP3 = -r) */
  double cm_body[3]; /* total centre of mass from the GC, body frame */
  double cm_space[3];/* the same in the spatial frame translated to the GC */
  double chi[NH_BALL_MAX_MASSES][3]; /* mass positions from the GC, body frame */
} nh_ball_eval;

NH_API int nh_ball_evaluate(const nh_model *model, double t, const double *x, nh_ball_eval *out);

/* The DAE form (paper eqs. 6.5-6.6) of the ball: Mdae x' = G(t, x) with Mdae = diag(1 (2n),
 * 0, 1 (8)) (the scalar part of q is algebraic: its row is |q|^2 - 1). mdiag (Nullable):
 * the diagonal of Mdae (2n + 9). nh_ball_dae_rhs evaluates G (of a ball or DAE model).
 * nh_ball_dae_create builds the DAE as a runnable model in its state-space form: the same
 * state as the ball, q0 = sigma sqrt(1 - |q_vec|^2) solved from the constraint (sigma: the
 * branch of the last step), the other rows integrated. Its index-1 structure degenerates
 * where q0 = 0 (spec 7.8): the branch cannot change there and the DAE solution leaves the
 * ODE's (t = 9.2066 in the ball example), so the ODE form (nh_ball_create) is the reference. */
NH_API nh_model *nh_ball_dae_create(const nh_ball_params *p, char *msg, size_t msg_size);
NH_API int nh_ball_dae_rhs(const nh_model *ball, double t, const double *x, double *G,
                           double *mdiag);

/* The breakpoints of a ball, disk or flight model's input: the kinks of the built-in input
 * profile (t = .1, .2; spec 7.13), where theta''' jumps and no step may straddle one.
 * Returns their number (0 with an `input` callback or for another model). */
NH_API int nh_ball_breakpoints(const nh_model *model, double breaks[2]);

/* Run a simulation of a ball, disk or flight model to t_end like nh_sim_run, landing on its
 * breakpoints: nh_sim_run_breaks with nh_ball_breakpoints. The observer sees one START and
 * one END sample. */
NH_API int nh_ball_run(nh_sim *sim, double t_end, nh_observer_fn observer, void *user);

/* ---- balls described in a file (docs/rolling-ball.md) -------------------------------------
 * A line-oriented format in the style of the model language: `ball NAME` (or `disk NAME`),
 * `parameter`/`let`, `radius`, `gravity`, `mass m0 = ...`, `inertia = ...`, `center = ...`,
 * `mass m1 = ...`, `rail m1: x(s), y(s), z(s)`, `input m1: u(t)` or `trajectory m1: th(t)`,
 * `initial ...`, `force = ...`, `mu = ...`. Rails get exact derivatives in s, trajectories
 * exact second derivatives in t. The parameters' callbacks point into the file object, which
 * must outlive the models built from them (and is not thread-safe: one run at a time). */
typedef struct nh_ball_file nh_ball_file;

/* Parse text (file names the source in messages); NULL with "FILE:LINE:COL: error: ..." */
NH_API nh_ball_file *nh_ball_file_parse(const char *text, const char *file, char *msg,
                                        size_t msg_size);
NH_API nh_ball_file *nh_ball_file_load(const char *path, char *msg, size_t msg_size);
NH_API void nh_ball_file_destroy(nh_ball_file *f);
NH_API const nh_ball_params *nh_ball_file_params(const nh_ball_file *f);
NH_API int nh_ball_file_is_disk(const nh_ball_file *f); /* `disk NAME`: use nh_disk_create */
NH_API const char *nh_ball_file_name(const nh_ball_file *f);

/* Running regime statistics over samples of a run (feed every observer sample). */
typedef struct nh_ball_stats {
  long samples;
  double min_mu, t_min_mu; /* max over samples of f_s / N: the smallest mu that prevents slip */
  double min_N, t_min_N;
  double max_fs, t_max_fs;
  int detached; /* some sample had N <= 0 (min_mu is then meaningless) */
} nh_ball_stats;

NH_API void nh_ball_stats_init(nh_ball_stats *s);
NH_API int nh_ball_stats_update(nh_ball_stats *s, const nh_model *model, double t,
                                const double *x);

#ifdef __cplusplus
}
#endif
#endif
