/* contact_models.h - the persistent-contact tests' models and helpers (test_contact,
 * test_contact_methods): model files parsed with the tape backend, a simulation at a fixed
 * step, the first contact record of a kind, and K(k) for the bowl's period. Static
 * definitions, included by one test file each, after nholo.h. */
#ifndef NH_TEST_CONTACT_MODELS_H
#define NH_TEST_CONTACT_MODELS_H

#include <math.h>
#include <stdio.h>

/* a model file's text (tape backend); NULL, with the reader's message printed, when it fails */
static inline nh_model *parse(const char *text) {
  char msg[1024];
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  nh_model *m = nh_model_parse(text, "test.nh", &o, msg, sizeof msg);
  if (!m) printf("  %s\n", msg);
  return m;
}

/* a simulation of m with method at step h ("gni:paper": gni, rattle or shake in the paper's
 * variant); NULL, with the reason printed, when it cannot start */
static inline nh_sim *make_sim(const nh_model *m, const char *method, double h) {
  nh_sim_def d = nh_sim_def_default();
  char name[32];
  snprintf(name, sizeof name, "%s", method);
  char *colon = strchr(name, ':');
  if (colon) *colon = '\0', d.opts.variant = nh_variant_find(colon + 1) == NH_VARIANT_PAPER ? NH_VARIANT_PAPER : d.opts.variant;
  d.method = nh_method_find(name);
  d.h = h;
  char msg[512];
  nh_sim *s = d.method ? nh_sim_create(m, &d, msg, sizeof msg) : NULL;
  if (!s) printf("  %s: %s\n", method, d.method ? msg : "no such method");
  return s;
}

/* the first contact record of a kind, or -1 */
static inline long find_contact(const nh_sim *s, int kind, nh_contact_record *r) {
  for (long k = 0; k < nh_sim_contact_count(s); k++)
    if (nh_sim_contact_get(s, k, r) == NH_OK && r->kind == kind) return k;
  return -1;
}

/* the complete elliptic integral of the first kind K(k) by the arithmetic-geometric mean */
static inline double ellip_k(double k) {
  double a = 1.0, b = sqrt(1.0 - k * k);
  for (int i = 0; i < 40; i++) {
    double an = 0.5 * (a + b);
    b = sqrt(a * b), a = an;
  }
  return 3.14159265358979323846 / (2.0 * a);
}

/* a unit particle in the (x, y) plane under gravity 9.81: model `name` with the lines `params`
 * (parameter lines, or ""), then the gap line `gap` and the initial line `init` */
static inline nh_model *particle_model(const char *name, const char *params, const char *gap, const char *init) {
  char text[768];
  snprintf(text, sizeof text, "model %s\ncoordinates x y\n%skinetic 1/2*(x'^2+y'^2)\npotential 9.81*y\n%s\n%s\n", name,
           params, gap, init);
  return parse(text);
}

/* the particle's systems: a ball dropped from y = 1 with x' = 0.3 onto a floor of restitution
 * e; at rest on the line through the origin at angle a; on top of the unit circle with
 * x' = v0; at rest inside the unit circle (a bowl) at angle th0 from its bottom */
static inline nh_model *ball_model(double e) {
  char gap[128];
  snprintf(gap, sizeof gap, "gap floor: y  impact restitution %.17g", e);
  return particle_model("ball", "", gap, "initial y = 1, x' = 0.3");
}

static inline nh_model *slope_model(double a) {
  char params[64];
  snprintf(params, sizeof params, "parameter a = %.17g\n", a);
  return particle_model("slope", params, "gap line: y*cos(a) - x*sin(a)  impact restitution 0.5", "initial x = 0, y = 0");
}

static inline nh_model *dome_model(double v0) {
  char init[64];
  snprintf(init, sizeof init, "initial y = 1, x' = %.17g", v0);
  return particle_model("dome", "", "gap dome: sqrt(x^2 + y^2) - 1  impact restitution 0.5", init);
}

static inline nh_model *bowl_model(double th0) {
  char init[96];
  snprintf(init, sizeof init, "initial x = %.17g, y = %.17g", sin(th0), -cos(th0));
  return particle_model("bowl", "", "gap wall: 1 - sqrt(x^2 + y^2)  impact restitution 0", init);
}

#endif
