/* check.c - `nholo check FILE.nh`: the diagnostics of a model file, or its derived quantities. */
#define _POSIX_C_SOURCE 200809L /* open, O_NONBLOCK */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int cli_parse_set(const char *opt, const char *text, cli_sets *sets) {
  const char *eq = strchr(text, '=');
  size_t len = eq ? (size_t)(eq - text) : 0;
  if (!eq || len == 0) {
    cli_usage_error("%s: expected NAME=VALUE, got '%s'", opt, text);
    return 0;
  }
  if (len >= NH_MAX_NAME) {
    cli_usage_error("%s: name too long in '%s'", opt, text);
    return 0;
  }
  if (sets->n >= CLI_MAX_SET) {
    cli_usage_error("%s: more than %d overrides", opt, CLI_MAX_SET);
    return 0;
  }
  double v;
  if (!cli_parse_double(opt, eq + 1, &v)) return 0;
  memcpy(sets->name[sets->n], text, len);
  sets->name[sets->n][len] = '\0';
  sets->names[sets->n] = sets->name[sets->n];
  sets->values[sets->n++] = v;
  return 1;
}

int cli_parse_backend(const char *opt, const char *text, nh_backend *out) {
  if (strcmp(text, "auto") == 0) *out = NH_BACKEND_AUTO;
  else if (strcmp(text, "tape") == 0) *out = NH_BACKEND_TAPE;
  else if (strcmp(text, "codegen") == 0) *out = NH_BACKEND_CODEGEN;
  else {
    cli_usage_error("%s: unknown back end '%s' (expected auto, tape or codegen)", opt, text);
    return 0;
  }
  return 1;
}

int cli_is_model_file(const char *model) {
  size_t n = strlen(model);
  return strchr(model, '/') != NULL || (n > 3 && strcmp(model + n - 3, ".nh") == 0);
}

int cli_model_file_ok(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    cli_usage_error("cannot read '%s': %s", path, strerror(errno));
    return 0;
  }
  if (!S_ISREG(st.st_mode)) {
    cli_usage_error("cannot read '%s': %s", path, S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file");
    return 0;
  }
  int fd = open(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0) {
    cli_usage_error("cannot read '%s': %s", path, strerror(errno));
    return 0;
  }
  close(fd);
  return 1;
}

/* 1 when msg starts "FILE:LINE:COL: error: " */
static int located(const char *msg) {
  const char *e = strstr(msg, ": error: ");
  const char *nl = strchr(msg, '\n');
  if (!e || (nl && nl < e)) return 0;
  const char *p = e;
  for (int k = 0; k < 2; k++) { /* COL, then LINE, each after a ':' */
    const char *d = p;
    while (d > msg && isdigit((unsigned char)d[-1])) d--;
    if (d == p || d == msg || d[-1] != ':') return 0;
    p = d - 1;
  }
  return p > msg;
}

int cli_model_error(const char *msg) {
  if (!located(msg)) return cli_usage_error("%s", msg);
  fprintf(stderr, "%s%s", msg, msg[0] && msg[strlen(msg) - 1] == '\n' ? "" : "\n");
  return CLI_USAGE;
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
  static cli_sets sets; /* large: not on the stack */
  sets.n = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      check_help();
      return CLI_OK;
    }
    char nbuf[64];
    const char *inl;
    const char *name = cli_opt_name(a, nbuf, sizeof nbuf, &inl);
    if (strcmp(name, "--project-initial") == 0) {
      if (!cli_opt_flag(name, inl)) return CLI_USAGE;
      lo.project_initial = 1;
    } else if (strcmp(name, "--set") == 0 || strcmp(name, "--backend") == 0) {
      a = name;
      const char *val = cli_opt_value(a, inl, argc, argv, &i, NULL);
      if (!val) return CLI_USAGE;
      int ok = strcmp(a, "--backend") == 0 ? cli_parse_backend(a, val, &lo.backend) : cli_parse_set(a, val, &sets);
      if (!ok) return CLI_USAGE;
    } else if (a[0] == '-') {
      return cli_usage_error("unknown option '%s' (see 'nholo check --help')", a);
    } else if (file) {
      return cli_usage_error("check: unexpected argument '%s' (one model file at a time)", a);
    } else {
      file = a;
    }
  }
  if (!file) return cli_usage_error("check: no model file given");
  lo.nset = sets.n;
  lo.set_names = sets.names;
  lo.set_values = sets.values;
  if (!cli_model_file_ok(file)) return CLI_USAGE;
  char msg[2048];
  char *report = nh_model_describe(file, &lo, msg, sizeof msg);
  if (!report) return cli_model_error(msg);
  fputs(report, stdout);
  nh_free(report);
  return CLI_OK;
}
