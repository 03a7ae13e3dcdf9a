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
    /* exercise the evaluators at the initial state */
    double E = 0.0, r = 0.0;
    nh_model_energy(model, model->q0, model->v0, &E);
    nh_model_constraint_residual(model, model->q0, model->v0, &r);
    nh_model_destroy(model);
  } else if (!memchr(msg, '\0', sizeof msg)) {
    abort(); /* the diagnostic must be a terminated string */
  }
  free(text);
  return 0;
}
