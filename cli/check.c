/* check.c - `nholo check FILE.nh`: the diagnostics of a model file, or its derived quantities. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_is_model_file(const char *model) {
  size_t n = strlen(model);
  return strchr(model, '/') != NULL || (n > 3 && strcmp(model + n - 3, ".nh") == 0);
}

static void check_help(void) {
  printf("usage: nholo check FILE.nh [--set NAME=VALUE ...] [--project-initial] [--backend auto|tape|codegen]\n\n"
         "Read and check a model file (docs/model-language.md). A sound model prints its derived\n"
         "quantities symbolically (mass matrix, potential gradient, Coriolis terms, forces,\n"
         "constraint one-forms and Adot v, gaps and gradients) and evaluated at the initial state;\n"
         "a faulty one prints one diagnostic (FILE:LINE:COL, the line, a caret) and exits with 2.\n");
}

int cmd_check(int argc, char **argv) {
  const char *file = NULL;
  nh_load_opts lo = nh_load_opts_default();
  char names[CLI_MAX_SET][NH_MAX_NAME];
  const char *set_names[CLI_MAX_SET];
  double set_values[CLI_MAX_SET];
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      check_help();
      return CLI_OK;
    }
    if (strcmp(a, "--project-initial") == 0) {
      lo.project_initial = 1;
    } else if (strcmp(a, "--set") == 0 || strcmp(a, "--backend") == 0) {
      if (i + 1 >= argc) return cli_usage_error("option %s needs a value", a);
      const char *val = argv[++i];
      if (strcmp(a, "--backend") == 0) {
        if (strcmp(val, "auto") == 0) lo.backend = NH_BACKEND_AUTO;
        else if (strcmp(val, "tape") == 0) lo.backend = NH_BACKEND_TAPE;
        else if (strcmp(val, "codegen") == 0) lo.backend = NH_BACKEND_CODEGEN;
        else return cli_usage_error("--backend: unknown back end '%s' (expected auto, tape or codegen)", val);
        continue;
      }
      const char *eq = strchr(val, '=');
      if (!eq || eq == val || (size_t)(eq - val) >= NH_MAX_NAME)
        return cli_usage_error("--set: expected NAME=VALUE, got '%s'", val);
      if (lo.nset >= CLI_MAX_SET) return cli_usage_error("--set: more than %d overrides", CLI_MAX_SET);
      memcpy(names[lo.nset], val, (size_t)(eq - val));
      names[lo.nset][eq - val] = '\0';
      if (!cli_parse_double("--set", eq + 1, &set_values[lo.nset])) return CLI_USAGE;
      set_names[lo.nset] = names[lo.nset];
      lo.nset++;
    } else if (a[0] == '-') {
      return cli_usage_error("unknown option '%s' (see 'nholo check --help')", a);
    } else if (file) {
      return cli_usage_error("check: unexpected argument '%s' (one model file at a time)", a);
    } else {
      file = a;
    }
  }
  if (!file) return cli_usage_error("check: no model file given");
  lo.set_names = set_names;
  lo.set_values = set_values;
  char msg[2048];
  char *report = nh_model_describe(file, &lo, msg, sizeof msg);
  if (!report) {
    fprintf(stderr, "%s%s", msg, msg[0] && msg[strlen(msg) - 1] == '\n' ? "" : "\n");
    return CLI_USAGE;
  }
  fputs(report, stdout);
  nh_free(report);
  return CLI_OK;
}
