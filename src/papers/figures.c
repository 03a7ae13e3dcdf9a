/* figures.c - the registry of the papers' figures, their default options, and the random
 * numbers they share. The order is that of `nholo figure all` and of the help. */
#include <string.h>

#include "papers.h"
#include "trex.h"

static const papers_figure registry[] = {
    /* Clark & Bloch, "The Bouncing Penny and Nonholonomic Impacts" (penny.c) */
    {"penny-fig1", "Clark & Bloch Fig. 1: first 20 impacts, elastic, circular table", papers_penny_run},
    {"penny-fig2", "Clark & Bloch Fig. 2: first 20 impacts, plastic, circular table", papers_penny_run},
    {"penny-fig3", "Clark & Bloch Fig. 3: first 20 impacts, elastic, elliptical table", papers_penny_run},
    {"penny-fig4", "Clark & Bloch Fig. 4: first 20 impacts, plastic, elliptical table", papers_penny_run},
    {"penny-fig5", "Clark & Bloch Fig. 5: 100 perturbed initial conditions at several times",
     papers_penny_ensemble},
    {"penny-lyapunov", "largest Lyapunov exponent of the penny: circle/ellipse, elastic/plastic (+ CSV)",
     papers_penny_lyapunov},
    /* Kobilarov, Martin de Diego, Ferraro, "Simulating Nonholonomic Dynamics" (gni.c) */
    {"sleigh-fig2", "Kobilarov et al. Fig. 2: sleigh heart curves and energy, GNI, RDP, RK2, exact",
     papers_sleigh2},
    {"snakeboard-fig4",
     "Kobilarov et al. Fig. 4: snakeboard, N = 128 over T = 10, RK2, GNI, RDP, true",
     papers_snakeboard4},
    /* Celledoni, Farre Puiggali, Hoiseth, Martin de Diego, "Energy-Preserving Integrators
     * Applied to Nonholonomic Systems" (dg.c) */
    {"dg-fig2", "Celledoni et al. Fig. 2: quartic system, order, constraint, energy, variance", papers_dg},
    {"dg-fig3", "Celledoni et al. Fig. 3: Chaplygin sleigh, method (23), rho1(0) = +-0.001", papers_dg},
    {"dg-fig4", "Celledoni et al. Fig. 4: gearbox, GONZALEZ-R/-F and SI-DLA to t = 50000", papers_dg},
    /* Putkaradze & Rogers, the rolling disk and ball with internal masses (ball.c) */
    {"ball-fig5.1", "Putkaradze & Rogers Fig. 5.1: the input profile |u_i(t)| = p(t)", papers_ball},
    {"ball-fig5.2", "Fig. 5.2: the disk of Table 5.1 at t = 0 (rails, masses)", papers_ball},
    {"ball-fig5.3", "Fig. 5.3: disk: mass and centre-of-mass paths (body, space), phi', GC/CP",
     papers_ball},
    {"ball-fig5.4", "Fig. 5.4: disk: N(t), friction f1(t), f_s/N (min mu .2951)", papers_ball},
    {"ball-fig6.1", "Fig. 6.1: the ball of Table 6.2 at t = 0 (rails, masses; three projections)",
     papers_ball},
    {"ball-fig6.2", "Fig. 6.2: ball: mass and centre-of-mass paths (body, space), Om(t), GC/CP path",
     papers_ball},
    {"ball-fig6.3", "Fig. 6.3: ball: N(t), f_s(t), f_s/N (min mu .19), friction along the path",
     papers_ball},
    {"ball-fig6.4",
     "Fig. 6.4: detachment (m3 = 60): N(t) to N = 0, f_s(t), Om(t), friction along the path",
     papers_ball},
    /* Seghete & Murphey, "A propagative model of simultaneous impact" (trex.c) */
    {"trex", "Seghete & Murphey Fig. 8: TREX gait (simultaneous impacts marked), xi(t), optimised vs initial gait",
     papers_trex},
    {"trex-design", "Seghete & Murphey Table I / Fig. 7: TREX design with c = 0 (NLopt) beside the paper's",
     papers_trex_design},
    /* Seghete & Murphey, "A propagative model of simultaneous impact" (simul.c) */
    {"cradle", "Seghete & Murphey Fig. 2: Newton's cradle against R, beside Newton-restitution LCP",
     papers_simul},
    {"billiards", "Seghete & Murphey Fig. 5: billiard break, indeterminacy xi against the angle",
     papers_simul},
};
#define NREGISTRY ((int)(sizeof registry / sizeof registry[0]))

const papers_figure *papers_figures(int *n) {
  *n = NREGISTRY;
  return registry;
}

const papers_figure *papers_figure_find(const char *name) {
  for (int i = 0; name && i < NREGISTRY; i++)
    if (strcmp(name, registry[i].name) == 0) return &registry[i];
  return NULL;
}

papers_opts papers_opts_default(void) {
  papers_opts o;
  memset(&o, 0, sizeof o);
  o.out = stdout;
  o.method = "exact";
  o.impacts = 20;
  o.seed = 2024;
  o.spread = 0.005;
  const double times[] = {5, 10, 20, 40};
  memcpy(o.times, times, sizeof times);
  o.ntimes = 4;
  o.elliptic = 1;
  return o;
}

double papers_urand(unsigned long long *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}
