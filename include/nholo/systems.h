/* nholo/systems.h - built-in models written in C.
 *
 * The penny (Clark & Bloch, "The Bouncing Penny and Nonholonomic Impacts", sec. V-VI):
 * a vertical disk of mass m, radius R, inertia I about its axle and J about a vertical
 * diameter, rolling without slipping inside the elliptical wall X^2/a^2 + Y^2/b^2 = 1.
 *   q = (x, y, theta, phi): contact point, rolling angle, heading.
 *   constraints  roll_x: x' - R cos(phi) theta' = 0,   roll_y: y' - R sin(phi) theta' = 0
 *   gaps         front: 1 - h(x + R cos phi, y + R sin phi),  back: 1 - ... (x - R cos phi, ...)
 *                with h(X, Y) = X^2/a^2 + Y^2/b^2 (admissible where the gap is >= 0)
 * The model carries the closed-form flow (paper eq. 26, in the regular sinc form) and an
 * exact event predictor (both ends move on circles, or lines when phi' = 0, and the first
 * crossing with the ellipse is found by root isolation on a trigonometric polynomial). */
#ifndef NHOLO_SYSTEMS_H
#define NHOLO_SYSTEMS_H

#include "nholo/model.h"
#include "nholo/modelfile.h"
#include "nholo/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nh_penny_params {
  double m, R, I, J; /* mass (kg), radius (m), inertias about the axle and a diameter (kg m^2) */
  double a, b;       /* semi-axes of the table along x and y (m) */
  nh_impact_law law; /* impact law at both ends */
  double theta_dot0, phi_dot0; /* initial rolling and turning rates (rad/s) */
  double x0, y0, theta0, phi0; /* initial configuration */
} nh_penny_params;

/* The paper's Table I on the circular table (a = b = 0.2), elastic, with the initial
 * conditions of Figs. 1-4: x = y = theta = 0, phi = pi/2, theta' = 10, phi' = 0.2. */
NH_API nh_penny_params nh_penny_params_default(void);

/* Check the parameters (positive, finite, initial point inside the table, e in [0,1]);
 * returns NH_OK or NH_ERR_ARG with a reason naming the parameter in msg. */
NH_API int nh_penny_params_check(const nh_penny_params *p, char *msg, size_t msg_size);

/* Build the penny model. NULL with a reason in msg on bad parameters. */
NH_API nh_model *nh_penny_create(const nh_penny_params *p, char *msg, size_t msg_size);
/* Set a parameter or initial value by name (m R I J a b x y theta phi theta' phi', also
 * theta_dot phi_dot); 0 if the name is unknown. */
NH_API int nh_penny_set(nh_penny_params *p, const char *name, double value);

/* The Chaplygin sleigh (Kobilarov, Martin de Diego, Ferraro, "Simulating Nonholonomic
 * Dynamics", sec. 6.1; spec 001 sec. 5.1): a planar rigid body of mass m and inertia I about
 * its centre of mass, on a knife edge (skate) at distance a behind the centre of mass.
 *   q = (theta, x, y), (x, y) the centre of mass; M = diag(I, m, m); no potential.
 *   constraint skate:  a theta' + sin(theta) x' - cos(theta) y' = 0
 * Initial data by the heading rate omega0 and the forward speed v0 of the centre of mass:
 *   q'(0) = (omega0, v0 cos th0 - a omega0 sin th0, v0 sin th0 + a omega0 cos th0).
 * SE(2) structure: se2 = (0, 1, 2), no shape. */
typedef struct nh_sleigh_params {
  double I, m, a;              /* inertia about the centre of mass, mass, skate offset */
  double theta0, x0, y0;       /* initial configuration */
  double omega0, v0;           /* initial heading rate and forward speed */
} nh_sleigh_params;

/* Spec 001 sec. 5.1 defaults: I = m = a = 1, q(0) = 0, omega0 = 1, v0 = -1 (E = 1.5). */
NH_API nh_sleigh_params nh_sleigh_params_default(void);
NH_API int nh_sleigh_params_check(const nh_sleigh_params *p, char *msg, size_t msg_size);
NH_API nh_model *nh_sleigh_create(const nh_sleigh_params *p, char *msg, size_t msg_size);
/* Set a parameter or initial value by name (I m a theta x y omega v); 0 if the name is unknown. */
NH_API int nh_sleigh_set(nh_sleigh_params *p, const char *name, double value);

/* The closed-form sleigh solution at time t (spec 001 sec. 5.1):
 *   v = V tanh(k (t - t_c)),  omega = sgn(omega0) w_max sech(k (t - t_c)),
 *   theta = theta0 + sgn(omega0) (w_max / k) [gd(k (t - t_c)) - gd(-k t_c)],
 * V = sqrt(2E/m), w_max = sqrt(2E/I'), I' = I + a^2 m, k = a m V / I', t_c = -atanh(v0/V)/k;
 * the skate point (x_s, y_s) = (x - a cos th, y - a sin th) moves with speed v along the heading,
 * integrated by composite 8-point Gauss-Legendre quadrature (accurate to round-off for
 * t k <= 1e3). Outputs q = (theta, x, y) and qdot (either Nullable), and omega, v (Nullable). */
NH_API int nh_sleigh_exact(const nh_sleigh_params *p, double t, double *q, double *qdot,
                           double *omega, double *v);

/* The snakeboard (paper sec. 6.2; spec 001 sec. 5.2): board of mass m with wheel axles at
 * distance l from the centre, steered by phi (front +phi, back -phi), with a rotor of
 * inertia I driven by a torque u_psi and a steering torque u_phi (inertia J per axle).
 *   q = (psi, phi, theta, x, y);  L = 1/2 q'^T M q',
 *   M = [[I,0,I,0,0],[0,2J,0,0,0],[I,0,m l^2,0,0],[0,0,0,m,0],[0,0,0,0,m]]
 *   constraints (paper eq. 34)  front: -l cos(phi) theta' - sin(theta+phi) x' + cos(theta+phi) y' = 0
 *                               back:   l cos(phi) theta' - sin(theta-phi) x' + cos(theta-phi) y' = 0
 *   controls (generalized forces on psi and phi): u_psi = A_psi cos(2 pi f_psi t),
 *                                                 u_phi = A_phi sin(2 pi f_phi t)
 * Initial data as in the paper's Fig. 4: psi, phi, theta, x, y, the nonholonomic momentum
 * p1 = <d_xi l, e_1(phi)> with e_1 = (sin 2phi, -2 l cos^2 phi, 0), psi' and phi'.
 * SE(2) structure: se2 = (2, 3, 4), shape (psi, phi). Singular at phi = +-pi/2. */
typedef struct nh_snakeboard_params {
  double m, l, I, J;
  double A_psi, f_psi, A_phi, f_phi;   /* control amplitudes (N m) and frequencies (Hz) */
  double psi0, phi0, theta0, x0, y0;   /* initial configuration */
  double p1_0, psi_dot0, phi_dot0;     /* initial momentum p1 and joint rates */
} nh_snakeboard_params;

/* Spec 001 sec. 5.2/7 defaults: m = l = 1, I = 0.5, J = 1.5, controls cos(20 pi t), sin(2 pi t),
 * psi = pi/2, phi = pi/3, theta = x = y = 0, p1 = -1, psi' = 2.5, phi' = -0.02. */
NH_API nh_snakeboard_params nh_snakeboard_params_default(void);
NH_API int nh_snakeboard_params_check(const nh_snakeboard_params *p, char *msg, size_t msg_size);
NH_API nh_model *nh_snakeboard_create(const nh_snakeboard_params *p, char *msg, size_t msg_size);
/* Set by name (m l I J Apsi fpsi Aphi fphi psi phi theta x y p1 psi' phi'); 0 if unknown. */
NH_API int nh_snakeboard_set(nh_snakeboard_params *p, const char *name, double value);
/* The initial velocity q'(0) the parameters define (spec 001 sec. 5.2). */
NH_API void nh_snakeboard_initial_velocity(const nh_snakeboard_params *p, double qdot[5]);
/* ---- examples of Celledoni, Farre Puiggali, Hoiseth, Martin de Diego, "Energy-Preserving
 * Integrators Applied to Nonholonomic Systems" (spec 002), in configuration form -------- */

/* The fully chaotic quartic system (sec. 4.1, n = 3): q = (x, w1..w3, z1..z3) in R^7, M = I,
 * V = 1/2 (|q|^2 + z1^2 z2^2 + sum_i w_i^2 z_i^2), constraint x' + w . z' = 0. Initial state:
 * spec 002 A.1 (q0 given, rho along a fixed direction) at the paper's energy H = 3.06. */
NH_API nh_model *nh_quartic_create(char *msg, size_t msg_size);
/* The velocity v = X gD^-1 rho of the quartic system at q for the reduced momenta
 * rho = (xi (3), eta (3)) (spec 002 S1), scaled so that the energy is H (H = NAN: unscaled).
 * NH_ERR_ARG when V(q) >= H. */
NH_API int nh_quartic_velocity(const double *q, const double *rho, double H, double *v);

/* The continuous gearbox driven by an asymmetric pendulum (sec. 4.4, with + V: erratum E7):
 * q = (q1, q2, q3), M = I, V = 1/2 (q1^2 + q2^2) + cos q3 - 1/5 sin 2 q3, constraint
 * q1' + sin(q3) q2' = 0. Initial state spec 002 A.5: q = (0.5, -0.3, 0.2), p2 = 0.4,
 * p3 = 1.6 (rotating pendulum) or 0.3 (librating), p1 = -sin(q3) p2. */
NH_API nh_model *nh_gearbox_create(int rotating, char *msg, size_t msg_size);
/* The pendulum energy 1/2 q3'^2 + cos q3 - 1/5 sin 2 q3 (rotates above 1.0686883). */
NH_API double nh_gearbox_pendulum_energy(const double *q, const double *v);

/* The Chaplygin sleigh in the paper's coordinates (sec. 4.2): blade point (x1, x2), heading
 * theta; the initial velocity is given by the reduced momenta (rho1, rho2) of the paper's
 * orthonormal frame. Defaults: Fig. 3 (J = 8, a = m = 1, x1 = -5, x2 = 0, theta = 0.1,
 * rho1 = 0.001, rho2 = -0.6). */
typedef struct nh_sleigh_dg_params {
  double J, a, m;           /* inertia about the centre of mass, blade-to-centre distance, mass */
  double x1, x2, theta;     /* initial configuration */
  double rho1, rho2;        /* initial reduced momenta */
} nh_sleigh_dg_params;

NH_API nh_sleigh_dg_params nh_sleigh_dg_params_default(void);
/* Configuration form: q = (x1, x2, theta), M(theta), V = 0, -sin(th) x1' + cos(th) x2' = 0. */
NH_API nh_model *nh_sleigh_dg_q_create(const nh_sleigh_dg_params *p, char *msg, size_t msg_size);

/* ---- the same examples in almost-Poisson form x' = Pi(x) grad H(x) (nholo/model.h), for
 * the discrete-gradient methods avf, gonzalez, itoh-abe ---------------------------------- */

/* Quartic system, reduced (eq. (21)): x = (x, w1..w3, z1..z3, xi1..xi3, eta1..eta3), the same
 * initial state as nh_quartic_create. */
NH_API nh_model *nh_quartic_ap_create(char *msg, size_t msg_size);
/* The reduced state (q (7), rho (6)) of the quartic system with rho scaled so that H is the
 * energy (H = NAN: unscaled); x (13). NH_ERR_ARG when V(q) >= H. */
NH_API int nh_quartic_reduced_state(const double *q, const double *rho, double H, double *x);
/* Chaplygin sleigh, reduced (eq. (22)-(23)): x = (x1, x2, theta, rho1, rho2). */
NH_API nh_model *nh_sleigh_dg_create(const nh_sleigh_dg_params *p, char *msg, size_t msg_size);

/* Gearbox, reduced in the frame X1 = (-sin q3, 1, 0), X2 = (0, 0, 1) (spec 002 S4):
 * x = (q1, q2, q3, rho1, rho2), the same initial state as nh_gearbox_create(rotating).
 * Without Hessian or Pi-Jacobian (the library differences them). */
NH_API nh_model *nh_gearbox_ap_create(int rotating, char *msg, size_t msg_size);

/* Euler-Poincare-Suslov problem on so(3) (sec. 4.3), frame with I12 = 0 and constraint
 * omega3 = 0: x = (rho1, rho2), omega = (rho1/I11, rho2/I22, 0). Defaults (the paper gives no
 * values): spec 002 A.4, I11 = 2, I22 = 3, I13 = 0.5, I23 = 0.4, rho = (1, 0.5). */
typedef struct nh_suslov_params {
  double I11, I22, I13, I23; /* inertia entries (I33 does not enter the reduced dynamics) */
  double rho1, rho2;         /* initial momenta */
} nh_suslov_params;

NH_API nh_suslov_params nh_suslov_params_default(void);
NH_API nh_model *nh_suslov_create(const nh_suslov_params *p, char *msg, size_t msg_size);

struct nh_system_class;

/* A built-in's parameters by name (its nh_*_params struct behind void *): overridden, varied
 * member by member in an ensemble, and built into its model. */
typedef struct nh_builtin_params {
  size_t size;                                       /* bytes of the block */
  void (*defaults)(void *p);                         /* the block at its defaults */
  int (*set)(void *p, const char *name, double value); /* 1, or 0 for a name it has not */
  /* the penny's table by name (Nullable: no table): NH_OK, or NH_ERR_ARG with the message */
  int (*table)(void *p, const char *table, char *msg, size_t msg_size);
  void (*law)(void *p, nh_impact_law law);           /* every gap's law (Nullable: no impacts) */
  nh_model *(*create)(const void *p, char *msg, size_t msg_size);
} nh_builtin_params;

/* Built-in models by name, for command-line front ends. */
typedef struct nh_builtin {
  const char *name;
  const char *summary;
  /* builds the model with its default parameters (NULL: the front end builds it itself) */
  nh_model *(*create)(char *msg, size_t msg_size);
  /* the system that runs it (nh_system_open); NULL: a built-in model (nh_builtin_load) */
  const struct nh_system_class *system;
  /* its parameters by name (NULL: it takes no overrides) */
  const nh_builtin_params *params;
} nh_builtin;

NH_API int nh_builtin_count(void);
NH_API const nh_builtin *nh_builtin_at(int i);
/* The built-in named name, or NULL. */
NH_API const nh_builtin *nh_builtin_find(const char *name);
/* The built-in model with this name at its defaults; NULL with a reason in msg when the name
 * is unknown or has no default constructor. */
NH_API nh_model *nh_builtin_create(const char *name, char *msg, size_t msg_size);

/* What a front end may change in a built-in (every field Nullable or 0 for "as built"). */
typedef struct nh_builtin_opts {
  int nset;                      /* overrides of parameters and initial values, by name */
  const char *const *set_names;  /* (the names each system's nh_*_set takes) */
  const double *set_values;
  int law_set;                   /* 1: every gap gets `law` */
  nh_impact_law law;
  const char *table;             /* the penny: "circle" (a = b = 0.2) or "ellipse" (a = 0.15,
                                    b = 0.2), applied before the overrides; NULL: as built */
} nh_builtin_opts;

/* The built-in model NAME with the options applied (opts Nullable: the defaults). NULL with
 * a one-line reason in msg: an unknown name, an override the model does not take, an impact
 * law or table for a model without them, or parameters its create function refuses. */
NH_API nh_model *nh_builtin_load(const char *name, const nh_builtin_opts *opts, char *msg, size_t msg_size);
/* The options applied to p, a parameter block of b (b->params: its defaults, or more): the
 * table, the overrides, the impact law, in nh_builtin_load's order and with its messages.
 * NH_OK, or NH_ERR_ARG with the reason in msg. */
NH_API int nh_builtin_params_apply(const nh_builtin *b, void *p, const nh_builtin_opts *opts, char *msg,
                                   size_t msg_size);

/* ---- systems: what a run needs beyond its model (src/systems/system.c) ---------------------
 * A front end (`nholo run`) opens its MODEL argument, a built-in's name or a model file, as a
 * system: a class (a table of callbacks) and its state (void *user). The class says which
 * options the run takes (the front end's common ones, and options of its own: the rolling
 * ball's --form, --mu, --on-slip, --on-detach), their defaults and the help, and builds the
 * run: the models of its phases and the chain that runs them with the common driver
 * (nh_chain_run: one phase for a model file or a built-in; the rolling ball rolls, then may
 * fly). The front end parses every option; a system gets its own checked, as a number >= 0 or
 * the index of a keyword. A system may record its run its own way too (nholo/io.h,
 * nh_system_outputs_find: the rolling ball's normal force and friction). */

#define NH_SYSTEM_MAX_PHASES 4
#define NH_SYSTEM_MAX_BREAKS 8

typedef enum nh_system_opt_kind {
  NH_SYSOPT_COMMON = 0,  /* an option of the front end's, listed for the help with this text */
  NH_SYSOPT_NUMBER = 1,  /* the system's own: a number >= 0 */
  NH_SYSOPT_KEYWORD = 2  /* the system's own: one of the words of arg, "stop|report" */
} nh_system_opt_kind;

typedef struct nh_system_option {
  const char *name; /* "--form" */
  const char *arg;  /* "ode|dae", "MU"; NULL: a flag */
  nh_system_opt_kind kind;
  const char *help;
} nh_system_option;

/* The run a system builds: its phases' models (the caller's after the build; nh_system_run_free
 * destroys them), their names in the summary (NULL: unnamed), the breakpoints every phase lands
 * on, and the chain's reset map and switch limit (nh_chain). */
typedef struct nh_system_run {
  int nphases;
  nh_model *models[NH_SYSTEM_MAX_PHASES];
  const char *phase_names[NH_SYSTEM_MAX_PHASES];
  double breaks[NH_SYSTEM_MAX_BREAKS];
  int nbreaks;
  nh_reset_fn reset; /* Nullable */
  void *reset_user;  /* the class's record of the switches (the ball: nh_ball_flight_info) */
  long max_switches;
} nh_system_run;

typedef struct nh_system_class {
  const char *name;  /* "model file", "built-in", "penny", "ball" */
  const char *noun;  /* the system in messages: "a ball" */
  const char *usage; /* the help's MODEL ("rolling-disk|...|FILE.ball"); NULL: the common help */
  const char *about; /* the help's paragraph (Nullable) */
  const nh_system_option *options; /* (noptions) every option it takes, in the help's order;
                                      NULL: every common option and none of its own */
  int noptions;
  const char *const *methods; /* NULL-terminated: the methods that run it; NULL: any that fits */
  double t_end, dt, rtol, atol, sample; /* the common options' defaults; 0: the front end's */
  const char *method; /* the default method; NULL: chosen for the run */
  size_t size;        /* bytes of its state, zeroed at nh_system_open */
  /* its own option `index` (of options) with a keyword's index or a number: NH_OK, or
   * NH_ERR_ARG (Nullable without own options) */
  int (*option)(void *user, int index, int keyword, double value);
  /* the run's phases from the MODEL argument, the front end's load options (overrides, impact
   * law, a model file's back end and contacts) and the penny's table (Nullable): NH_OK, or
   * NH_ERR_ARG with a one-line message, NH_ERR_PARSE with a model file's diagnostic */
  int (*build)(void *user, const char *model, const nh_load_opts *lo, const char *table, nh_system_run *run,
               char *msg, size_t msg_size);
  /* after the run (last: the phase that ended it): complete the switches' record (Nullable) */
  void (*finish)(void *user, nh_system_run *run, nh_sim *const *sims, int last);
  /* release its state's resources, after the run's models are destroyed (Nullable) */
  void (*release)(void *user);
} nh_system_class;

typedef struct nh_system {
  const nh_system_class *cls;
  const char *model; /* the MODEL argument (borrowed) */
  void *user;        /* cls->size bytes */
} nh_system;

/* The system of a MODEL argument: a body file (`body ball`, `.ball`) or a rolling ball's name is
 * the ball's; another built-in's name its own (nh_builtin.system) or a built-in model; a path
 * (a '/' or ending in .nh) a model file; any other name a built-in whose build says it is
 * unknown. model Nullable (no model yet: the common options). NULL only when out of memory. */
NH_API nh_system *nh_system_open(const char *model);
NH_API void nh_system_close(nh_system *s);
/* The index of option name among the class's options, or -1. */
NH_API int nh_system_option_find(const nh_system *s, const char *name);
/* cls->build, then each phase's model checked present; on failure nothing is left in run. */
NH_API int nh_system_build(nh_system *s, const nh_load_opts *lo, const char *table, nh_system_run *run,
                           char *msg, size_t msg_size);
/* Destroy the run's models. */
NH_API void nh_system_run_free(nh_system_run *run);

#ifdef __cplusplus
}
#endif
#endif
