/* ball_system.c - the rolling ball and disk of Putkaradze & Rogers as a system (nholo/systems.h):
 * the built-ins rolling-disk, rolling-ball, rolling-ball-detach and the body files (`body ball`
 * in a .nh file, or the former .ball format). Its own options choose the form (--form ode|dae),
 * the friction coefficient of the slip monitor (--mu) and what detachment and slip do
 * (--on-detach stop|report|fly, --on-slip stop|report); its run is a chain of phases for the
 * common driver: rolling (6.4, or its DAE form, or the disk's equations), then with
 * --on-detach fly the free flight (App. B) after a lift-off (ball_phases.c), both landing on the
 * input's breakpoints. What it records of a run is in src/io/ball_out.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/msg.h"
#include "nholo/systems/ball.h"
#include "systems/ball_impl.h"
#include "systems/system_impl.h"

/* the reference runs: the paper's horizon and tolerance (spec 004 sec. 3.3, 8), the defaults */
#define BALL_T_END 20.0
#define BALL_TOL 1e-12

/* its own options: values of the state's fields */
enum { ON_MODEL = 0, ON_REPORT = 1, ON_STOP = 2, ON_FLY = 3 };

typedef struct ball_sys {
  int dae;                   /* --form dae */
  int mu_set;                /* --mu */
  double mu;
  int on_detach, on_slip;    /* ON_*: ON_MODEL the model's (detachment stops, slip reports) */
  nh_ball_file *file;        /* a body file's (its callbacks' data: outlives the models) */
  nh_ball_flight_info info;  /* the chain's reset map's record */
} ball_sys;

static const nh_system_option ball_options[] = {
    {"--t-end", "T", NH_SYSOPT_COMMON, "final time (default 20)"},
    {"--method", "NAME", NH_SYSOPT_COMMON,
     "dopri5 (adaptive, default) or rk4 (fixed step; both renormalise the quaternion after every step), or rkmk4 "
     "(fixed step, a Lie-group method: the quaternion is updated by exponentials, |q| = 1 without projection; not for "
     "the disk or --form dae)"},
    {"--form", "ode|dae", NH_SYSOPT_KEYWORD,
     "the paper's ODE form (6.4, default) or its DAE form (6.5, q0 solved from |q| = 1; it cannot pass q0 = 0, see "
     "docs/rolling-ball.md)"},
    {"--dt", "H", NH_SYSOPT_COMMON, "rk4 step, first dopri5 trial step (default 1e-3)"},
    {"--rtol", "R", NH_SYSOPT_COMMON, "dopri5 relative tolerance (default 1e-12)"},
    {"--atol", "A", NH_SYSOPT_COMMON, "dopri5 absolute tolerance (default 1e-12)"},
    {"--sample", "DT", NH_SYSOPT_COMMON,
     "CSV output interval (default 0.01; 0: every 0.001, the grid on which N and f_s/N are tracked)"},
    {"--mu", "MU", NH_SYSOPT_NUMBER, "friction coefficient: report where f_s exceeds MU N (slip)"},
    {"--on-detach", "stop|report|fly", NH_SYSOPT_KEYWORD,
     "at N = 0 (default stop); fly: continue in free flight (App. B) to t-end or touchdown (where the run stops; no "
     "lift-off when the free ball would be pressed into the floor)"},
    {"--on-slip", "stop|report", NH_SYSOPT_KEYWORD, "at f_s = MU N (default report)"},
    {"--set", "NAME=VALUE", NH_SYSOPT_COMMON, "override r, g, m0, m1.., theta1.., theta1_dot.., mu; repeatable"},
    {"--out", "FILE", NH_SYSOPT_COMMON,
     "CSV: t, state, N, friction_x, friction_y, friction, friction_over_N, min_mu_so_far (running max of f_s/N), "
     "energy, power, contact point x_cp, y_cp, centre of mass cm_x, cm_y, cm_z"},
    {"--events", "FILE", NH_SYSOPT_COMMON, "CSV of the detachment/slip events"},
    {"--plot", "FILE", NH_SYSOPT_COMMON, "N, f_s and f_s/N against t (.png, .svg, .pdf)"},
    {"--json", NULL, NH_SYSOPT_COMMON,
     "JSON summary: min_mu_static, t_min_mu_static, min_normal_force, events, ... (with --on-detach fly: flight, "
     "phases; the CSVs get a phase column and the flight's state layout)"},
};
#define NBALL_OPTIONS ((int)(sizeof ball_options / sizeof ball_options[0]))

static const char *const ball_methods[] = {"dopri5", "rk4", "rkmk4", NULL};

static int ball_option(void *user, int index, int keyword, double value) {
  ball_sys *b = user;
  const char *name = ball_options[index].name;
  if (!strcmp(name, "--form")) b->dae = keyword == 1;
  else if (!strcmp(name, "--mu")) b->mu_set = 1, b->mu = value;
  else if (!strcmp(name, "--on-detach")) b->on_detach = keyword == 0 ? ON_STOP : keyword == 1 ? ON_REPORT : ON_FLY;
  else if (!strcmp(name, "--on-slip")) b->on_slip = keyword == 0 ? ON_STOP : ON_REPORT;
  else return NH_ERR_ARG;
  return NH_OK;
}

/* an override by name: r, g, m0, mu, m1.., theta1.., theta1_dot..; 0 for an unknown name */
static int set_value(nh_ball_params *p, const char *name, double v) {
  int i;
  char tail[32];
  if (!strcmp(name, "r")) p->r = v;
  else if (!strcmp(name, "g")) p->g = v;
  else if (!strcmp(name, "m0")) p->m0 = v;
  else if (!strcmp(name, "mu")) p->mu = v;
  else if (sscanf(name, "m%d%31s", &i, tail) == 1 && i >= 1 && i <= p->n) p->m[i - 1] = v;
  else if (sscanf(name, "theta%d%31s", &i, tail) == 2 && i >= 1 && i <= p->n && !strcmp(tail, "_dot")) p->thetad0[i - 1] = v;
  else if (sscanf(name, "theta%d%31s", &i, tail) == 1 && i >= 1 && i <= p->n) p->theta0[i - 1] = v;
  else return 0;
  return 1;
}

/* the parameters of a built-in or a body file (kept in b); *disk: the disk's equations */
static int ball_params_for(ball_sys *b, const char *model, nh_ball_params *p, int *disk, char *msg, size_t size) {
  *disk = 0;
  if (!strcmp(model, "rolling-disk")) *p = nh_ball_params_disk_example(), *disk = 1;
  else if (!strcmp(model, "rolling-ball")) *p = nh_ball_params_ball_example();
  else if (!strcmp(model, "rolling-ball-detach")) *p = nh_ball_params_detach_example();
  else {
    if (!(b->file = nh_ball_file_load(model, msg, size))) return NH_ERR_ARG;
    *p = *nh_ball_file_params(b->file);
    *disk = nh_ball_file_is_disk(b->file);
  }
  return NH_OK;
}

static int ball_build(void *user, const char *model, const nh_load_opts *lo, const char *table, nh_system_run *run,
                      char *msg, size_t size) {
  ball_sys *b = user;
  nh_ball_params p;
  int disk;
  (void)table; /* not among its options */
  if (ball_params_for(b, model, &p, &disk, msg, size) != NH_OK) return NH_ERR_ARG;
  for (int k = 0; k < lo->nset; k++)
    if (!set_value(&p, lo->set_names[k], lo->set_values[k]))
      return nh_set_msg(msg, size, "--set: model '%s' has no parameter or initial value '%s'", model, lo->set_names[k]),
             NH_ERR_ARG;
  if (b->mu_set) p.mu = b->mu;
  p.stop_on_detach = b->on_detach != ON_REPORT; /* stop (default) and fly stop the rolling phase */
  if (b->on_slip != ON_MODEL) p.stop_on_slip = b->on_slip == ON_STOP;
  if (disk && b->dae) return nh_set_msg(msg, size, "--form dae: the disk has no DAE form (it has no quaternion)"), NH_ERR_ARG;
  if (disk && b->on_detach == ON_FLY)
    return nh_set_msg(msg, size, "--on-detach fly: the disk has no free-flight model (use a ball)"), NH_ERR_ARG;
  // the phases: rolling, then with --on-detach fly the flight after a lift-off
  char why[768];
  nh_model *roll = disk ? nh_disk_create(&p, why, sizeof why)
                 : b->dae ? nh_ball_dae_create(&p, why, sizeof why) : nh_ball_create(&p, why, sizeof why);
  nh_model *fly = roll && b->on_detach == ON_FLY ? nh_ball_flight_create(&p, why, sizeof why) : NULL;
  if (!roll || (b->on_detach == ON_FLY && !fly)) {
    nh_model_destroy(roll);
    return nh_set_msg(msg, size, "%s: %s", model, why), NH_ERR_ARG;
  }
  run->models[0] = roll, run->phase_names[0] = "rolling";
  run->nphases = 1;
  if (fly) {
    run->models[1] = fly, run->phase_names[1] = "flight";
    run->nphases = 2;
    run->reset = ball_liftoff, run->reset_user = &b->info, run->max_switches = 1;
  }
  run->nbreaks = nh_ball_breakpoints(roll, run->breaks);
  b->info = (nh_ball_flight_info){0, 0, 0, NAN, NAN, NAN, NAN};
  return NH_OK;
}

static void ball_finish(void *user, nh_system_run *run, nh_sim *const *sims, int last) {
  ball_sys *b = user;
  if (run->nphases == 2) ball_flight_finish(&b->info, sims[1], last);
}

static void ball_release(void *user) {
  ball_sys *b = user;
  nh_ball_file_destroy(b->file);
  b->file = NULL;
}

const nh_system_class nh_system_ball = {
    .name = "ball",
    .noun = "a ball",
    .usage = "rolling-disk|rolling-ball|rolling-ball-detach|FILE.nh|FILE.ball",
    .about = "A ball (or disk) rolling without slipping, driven by internal point masses (Putkaradze &\n"
             "Rogers). Reports the normal force N, the static friction and the minimum friction\n"
             "coefficient max f_s/N; detachment (N = 0) and slip (f_s = mu N) are located as events.\n"
             "A body file FILE.nh (model NAME, body ball, ...; FILE.ball: the former format) describes your\n"
             "own ball: see docs/rolling-ball.md.",
    .options = ball_options,
    .noptions = NBALL_OPTIONS,
    .methods = ball_methods,
    .t_end = BALL_T_END,
    .dt = 1e-3,
    .rtol = BALL_TOL,
    .atol = BALL_TOL,
    .sample = 0.01,
    .method = "dopri5",
    .size = sizeof(ball_sys),
    .option = ball_option,
    .build = ball_build,
    .finish = ball_finish,
    .release = ball_release,
};
