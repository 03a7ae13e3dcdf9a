/* fuzz_modelfile.c - libFuzzer harness of the model-file reader (issue 3): any bytes, read as
 * the text of a model file, must give a model or a diagnostic, never a crash, a leak or
 * undefined behaviour. Built with clang -fsanitize=fuzzer,address,undefined by
 * tests/fuzz/CMakeLists.txt; evaluation always on the tape (never compiled C while fuzzing).
 *
 *   fuzz_modelfile -max_total_time=30 CORPUS_DIR SEED_DIR */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nholo/modelfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* every evaluator and derivative query once at the initial state, into arrays of exactly
 * the documented sizes (so that ASan sees any write past them) */
static void exercise_poisson(const nh_model *m) {
  const size_t n = (size_t)m->nx;
  const double *x = m->x0;
  double H, *dH = malloc(sizeof(double) * n), *P = malloc(sizeof(double) * n * n);
  double *Hs = malloc(sizeof(double) * n * n), *T = malloc(sizeof(double) * n * n);
  if (dH && P && Hs && T) {
    m->hamiltonian(x, &H, dH, m->user);
    m->poisson(x, P, m->user);
    nh_model_hamiltonian_hess(m, x, Hs, NULL);
    nh_model_poisson_jac(m, x, dH, T, NULL);
  }
  free(dH), free(P), free(Hs), free(T);
}

static void exercise(const nh_model *m) {
  if (m->form == NH_FORM_ODE) {
    exercise_poisson(m);
    return;
  }
  const size_t nq = (size_t)m->nq, nc = (size_t)m->nc, ng = (size_t)m->ngap;
  const double *q = m->q0, *v = m->v0;
  void *u = m->user;
  double E, r, V;
  nh_model_energy(m, q, v, &E);
  nh_model_constraint_residual(m, q, v, &r);
  double *M = malloc(sizeof(double) * nq * nq), *dV = malloc(sizeof(double) * nq);
  double *c = malloc(sizeof(double) * nq), *f = malloc(sizeof(double) * nq);
  double *A = malloc(sizeof(double) * (nc * nq + 1)), *Adv = malloc(sizeof(double) * (nc + 1));
  double *g = malloc(sizeof(double) * (ng + 1)), *dg = malloc(sizeof(double) * (ng * nq + 1));
  double *dM = malloc(sizeof(double) * nq * nq * nq), *H = malloc(sizeof(double) * nq * nq);
  double *dA = malloc(sizeof(double) * (nq * nc * nq + 1));
  double *dfdq = malloc(sizeof(double) * nq * nq), *dfdv = malloc(sizeof(double) * nq * nq);
  /* d2M has nq^4 entries: only for small models */
  double *d2M = nq <= 8 ? malloc(sizeof(double) * nq * nq * nq * nq) : NULL;
  if (M && dV && c && f && A && Adv && g && dg && dM && H && dA && dfdq && dfdv) {
    m->mass(q, M, u);
    if (m->potential) m->potential(q, &V, dV, u);
    if (m->coriolis) m->coriolis(q, v, c, u);
    if (m->force) m->force(0.5, q, v, f, u);
    if (m->constraint) m->constraint(q, v, A, Adv, u);
    if (m->gap) m->gap(q, g, dg, u);
    nh_model_mass_deriv(m, q, dM, NULL);
    if (d2M) nh_model_mass_deriv2(m, q, d2M, NULL);
    nh_model_potential_hess(m, q, H, NULL);
    if (nc) nh_model_constraint_deriv(m, q, dA, NULL);
    nh_model_force_jac(m, 0.5, q, v, dfdq, dfdv, NULL);
  }
  free(M), free(dV), free(c), free(f), free(A), free(Adv), free(g), free(dg);
  free(dM), free(H), free(dA), free(dfdq), free(dfdv), free(d2M);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* the text as a C string (a NUL inside ends it early, as it would for a caller) */
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  char msg[1024];
  nh_model *model = nh_model_parse(text, "fuzz.nh", &lo, msg, sizeof msg);
  if (model) {
    exercise(model);
    nh_model_destroy(model);
  } else if (!memchr(msg, '\0', sizeof msg)) {
    abort(); /* the diagnostic must be a terminated string */
  }
  free(text);
  return 0;
}
