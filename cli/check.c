/* check.c - `nholo check FILE.nh`: the diagnostics of a model file, or its derived quantities. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  char msg[1200];
  if (nh_model_file_check(path, msg, sizeof msg) == NH_OK) return 1;
  cli_usage_error("%s", msg);
  return 0;
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
  // --backend codegen without compiled evaluation (no compiler, its budget passed): not bad
  // input but the computation's failure, exit status 1
  if (strstr(msg, ": compiled evaluation is not available: ")) return cli_usage_error("%s", msg), CLI_FAILED;
  if (!located(msg)) return cli_usage_error("%s", msg);
  fprintf(stderr, "%s%s", msg, msg[0] && msg[strlen(msg) - 1] == '\n' ? "" : "\n");
  return CLI_USAGE;
}

static void check_help(void) {
  printf("usage: nholo check FILE.nh [--set NAME=VALUE ...] [--project-initial] [--backend auto|tape|codegen]\n"
         "                   [--compile-limit SECONDS] [--compile-memory MIB]\n\n"
         "Read and check a model file (docs/model-language.md). A sound model prints its derived\n"
         "quantities symbolically (mass matrix, potential gradient, Coriolis terms, forces,\n"
         "constraint one-forms and Adot v, gaps and gradients) and evaluated at the initial state;\n"
         "a faulty one prints one diagnostic (FILE:LINE:COL, the line, a caret) and exits with 2.\n");
}

/* A gap is closed at the initial configuration when |g_i(q0)| <= this (model units): the
 * contacts that can be active together in one simultaneous impact. */
#define CHECK_CONTACT_TOL 1e-9

/* The gaps closed at q0, and when there are two or more, what decides their simultaneous
 * impact (spec 003 secs. 2.7-2.8, docs/simultaneous-impacts.md): the cosines of the contact
 * normals in the kinetic metric, the reflection bound and the uniqueness verdict, with the
 * elastic outcomes from v0. A model without gaps prints nothing. */
static int print_contacts(const nh_model *m) {
  if (m->form != NH_FORM_MECHANICAL || m->ngap < 1) return CLI_OK;
  const int nq = m->nq, nc = m->nc, ng = m->ngap;
  double *buf = calloc((size_t)(nq * nq + nc * nq + nc + 2 * ng + 2 * ng * nq + ng * ng), sizeof(double));
  int *closed = calloc((size_t)ng, sizeof(int));
  const char **names = calloc((size_t)ng, sizeof *names);
  void *work = NULL;
  int rc = NH_ERR_NOMEM, k = 0;
  char msg[512] = "";
  if (!buf || !closed || !names) goto done;
  double *M = buf, *A = M + nq * nq, *Adv = A + nc * nq, *g = Adv + nc, *dg = g + ng, *dgk = dg + ng * nq, *C = dgk + ng * nq;
  if ((rc = m->mass(m->q0, M, m->user)) || (nc > 0 && (rc = m->constraint(m->q0, m->v0, A, Adv, m->user))) ||
      (rc = m->gap(m->q0, g, dg, m->user))) {
    snprintf(msg, sizeof msg, "an evaluator failed at the initial state (%d)", rc);
    rc = NH_ERR_CALLBACK;
    goto done;
  }
  printf("\nsimultaneous contacts at the initial configuration (|g| <= %g):", CHECK_CONTACT_TOL);
  for (int i = 0; i < ng; i++)
    if (fabs(g[i]) <= CHECK_CONTACT_TOL) {
      closed[k] = i;
      memcpy(dgk + (size_t)k * nq, dg + (size_t)i * nq, sizeof(double) * (size_t)nq);
      printf(" %s", m->gap_names[i]);
      k++;
    }
  if (k < 2) {
    printf("%s (fewer than two: no simultaneous impact here)\n", k ? "" : " none");
    rc = NH_OK;
    goto done;
  }
  printf("\n");
  for (int i = 0; i < k; i++) names[i] = m->gap_names[closed[i]]; /* for the messages */
  nh_simul_problem pb = {nq, nc, k, M, nc > 0 ? A : NULL, dgk};
  nh_simul_opts so = nh_simul_opts_default();
  so.names = names;
  nh_simul_verdict vd;
  if (!(work = malloc(nh_simul_work_size(nq, nc, k, &so))) ||
      (rc = nh_simul_cosines(&pb, &so, NULL, C, work, msg, sizeof msg)) ||
      (rc = nh_simul_verdict_of(&pb, m->v0, &so, &vd, work, msg, sizeof msg)))
    goto done;
  printf("  cosines c_ij of the contact normals in the kinetic metric:\n");
  for (int i = 0; i < k; i++) {
    printf("    %-12s", m->gap_names[closed[i]]);
    for (int j = 0; j < k; j++) printf(" %10.6f", C[i * k + j]);
    printf("\n");
  }
  static const char *const verdicts[] = {"unique (one contact)", "unique (pairwise orthogonal normals)",
                                         "unique (c = -1/2)", "unique (c = -cos(pi/m), a derived extension)",
                                         "indeterminate: the outcome may depend on the order of the reflections",
                                         ("opposing contacts (c = -1): an elastic propagation that reflects across "
                                          "one of them falls back to the plastic map")};
  if (vd.bound) printf("  reflection bound: %d (derived tighter bound %d)", vd.bound, vd.observed);
  else printf("  reflection bound: none (no theorem for these contacts)");
  printf("; verdict: %s\n", verdicts[vd.kind]);
  printf("  elastic outcomes from the initial velocity: %d%s, indeterminacy xi = %.6g\n", vd.outcomes,
         vd.fallback ? " (the plastic map's: the propagation would reflect across an opposing contact)" : "", vd.xi);
done:
  if (rc != NH_OK) fprintf(stderr, "nholo: simultaneous contacts: %s\n", msg[0] ? msg : nh_status_string(rc));
  free(work);
  free((void *)names);
  free(closed);
  free(buf);
  return rc == NH_OK ? CLI_OK : nh_status_exit_code(rc) == CLI_USAGE ? CLI_USAGE : CLI_FAILED;
}

/* The multiplier solve chosen from the patterns of a large model (docs/architecture.md,
 * "Large models"); the dense loops of a small one print nothing. */
static void print_solver(const nh_model *m) {
  long entries = 0, env = 0;
  const nh_multiplier_solver s = nh_model_multiplier_solver(m, &entries, &env);
  if (s == NH_SOLVE_SPARSE)
    printf("multiplier solve: sparse Cholesky in a fill-reducing order (%ld entries; the envelope would hold %ld)\n",
           entries, env);
  else if (s == NH_SOLVE_ENVELOPE)
    printf("multiplier solve: envelope Cholesky in the constraints' order (%ld entries)\n", entries);
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
    } else if (strcmp(name, "--compile-limit") == 0 || strcmp(name, "--compile-memory") == 0) {
      const char *val = cli_opt_value(name, inl, argc, argv, &i, NULL);
      if (!val || !cli_parse_compile_limit(name, val, &lo)) return CLI_USAGE;
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
  cli_signals_install(); /* SIGINT, SIGTERM: the compiler stopped, its files removed */
  lo.cancel = &cli_signal;
  lo.nset = sets.n;
  lo.set_names = sets.names;
  lo.set_values = sets.values;
  if (!cli_model_file_ok(file)) return CLI_USAGE;
  if (nh_model_file_is_body(file))
    return cli_usage_error("%s: a body file (body ball or body disk): 'nholo check' describes Lagrangian and "
                           "almost-Poisson models; run it with 'nholo run %s'", file, file);
  char msg[2048];
  char *report = nh_model_describe(file, &lo, msg, sizeof msg);
  if (!report) return cli_signal ? cli_interrupted("while the model was compiled (its files removed)") : cli_model_error(msg);
  fputs(report, stdout);
  nh_free(report);
  nh_model *model = nh_model_load(file, &lo, msg, sizeof msg);
  if (!model) return cli_signal ? cli_interrupted("while the model was compiled (its files removed)") : cli_model_error(msg);
  cli_backend_note(model);
  print_solver(model);
  const int rc = print_contacts(model);
  nh_model_destroy(model);
  return cli_signal ? cli_interrupted("after the report was printed (a signal stops only the compiler)") : rc;
}
