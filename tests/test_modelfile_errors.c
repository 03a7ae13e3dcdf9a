/* test_modelfile_errors.c BAD_DIR GOOD_DIR - the diagnostics of model files, one defect per
 * file of the corpus tests/modelfiles/bad/, and the edge cases of tests/modelfiles/good/.
 *
 * A bad file's first line is "# expect: LINE:COL: error: MESSAGE". Loading it (tape back end)
 * must fail with a diagnostic whose first line is "FILE:" followed by exactly that, whose
 * second line is line LINE of the file and whose third line puts the caret under column COL;
 * loading the same text from memory must give the same diagnostic.
 *
 * A good file's first line is "# expect: KEY=VALUE ..." with the keys nq, nc, ngap, energy
 * (at the initial state), f.COORD (the generalized force at t = 0 and the initial state) and
 * law.GAP (elastic, plastic or restitution:E); the file must load and match them. */
#define _DEFAULT_SOURCE /* mkstemps */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "nholo/systems/ball.h"
#include "nholo/modelfile.h"

/* the corpus must cover the error classes of issue 3 and more */
#define MIN_BAD_FILES 45
/* numbers in a good file's expectations are exact to this relative tolerance */
#define GOOD_REL_TOL 1e-12
#define MAX_FILES 256
#define MAX_TEXT (1 << 20)

static const char *bad_dir, *good_dir;

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the sorted names of the *.nh files of dir; returns the count (-1: cannot list) */
static int list_files(const char *dir, char **names) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < MAX_FILES) {
    size_t len = strlen(e->d_name);
    if (len > 3 && strcmp(e->d_name + len - 3, ".nh") == 0) names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], cmp_names);
  return n;
}

/* check each of the n files names[] of dir (the names freed): how many failed */
static int check_files(const char *dir, char **names, int n, int (*check)(const char *path)) {
  int failed = 0;
  for (int i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    failed += check(path);
    free(names[i]);
  }
  return failed;
}

/* the whole file (malloc'd, NUL-terminated), or NULL */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = malloc(MAX_TEXT + 1);
  size_t n = buf ? fread(buf, 1, MAX_TEXT, f) : 0;
  fclose(f);
  if (buf) buf[n] = '\0';
  return buf;
}

/* line k (1-based) of text into out without its newline (and a trailing '\r') */
static void nth_line(const char *text, int k, char *out, size_t size) {
  const char *l = text;
  for (int i = 1; i < k && l; i++) {
    l = strchr(l, '\n');
    if (l) l++;
  }
  size_t n = l ? strcspn(l, "\n") : 0;
  if (n && l[n - 1] == '\r') n--;
  snprintf(out, size, "%.*s", (int)n, l ? l : "");
}

/* check one bad file; prints why and returns 1 when it fails */
static int check_bad(const char *path) {
  char *text = slurp(path);
  if (!text) {
    printf("  %s: cannot read\n", path);
    return 1;
  }
  char expect[1024], msg[4096], msg2[4096], want_src[4096];
  int bad = 0;
  nth_line(text, 1, expect, sizeof expect);
  int line = 0, col = 0;
  if (strncmp(expect, "# expect: ", 10) != 0 || sscanf(expect + 10, "%d:%d:", &line, &col) != 2 ||
      line < 1 || col < 1) {
    printf("  %s: first line is not '# expect: LINE:COL: error: MESSAGE'\n", path);
    free(text);
    return 1;
  }
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  nh_model *model = nh_model_load(path, &lo, msg, sizeof msg);
  if (model) {
    printf("  %s: loaded, but must fail with: %s\n", path, expect + 10);
    nh_model_destroy(model);
    free(text);
    return 1;
  }
  /* line 1: FILE:LINE:COL: error: MESSAGE */
  char got[4096];
  nth_line(msg, 1, got, sizeof got);
  size_t plen = strlen(path);
  if (strncmp(got, path, plen) != 0 || got[plen] != ':' || strcmp(got + plen + 1, expect + 10) != 0) {
    printf("  %s:\n    expected: %s:%s\n    got:      %s\n", path, path, expect + 10, got);
    bad = 1;
  }
  /* line 2: the source line; line 3: the caret under the column */
  char src[4096], caret[4096];
  nth_line(msg, 2, src, sizeof src);
  nth_line(text, line, want_src, sizeof want_src);
  if (strcmp(src, want_src) != 0) {
    printf("  %s: second line of the diagnostic is not source line %d:\n    '%s'\n", path, line, src);
    bad = 1;
  }
  nth_line(msg, 3, caret, sizeof caret);
  int caret_ok = (int)strlen(caret) == col && caret[col - 1] == '^';
  for (int i = 0; caret_ok && i < col - 1; i++) caret_ok = caret[i] == ' ' || caret[i] == '\t';
  if (!caret_ok) {
    printf("  %s: third line of the diagnostic is not a caret at column %d:\n    '%s'\n", path, col, caret);
    bad = 1;
  }
  /* the same text from memory gives the same diagnostic */
  model = nh_model_parse(text, path, &lo, msg2, sizeof msg2);
  if (model || strcmp(msg, msg2) != 0) {
    printf("  %s: nh_model_parse disagrees with nh_model_load:\n%s\n", path, msg2);
    nh_model_destroy(model);
    bad = 1;
  }
  free(text);
  return bad;
}

static int test_bad_corpus(void) {
  char *names[MAX_FILES];
  int n = list_files(bad_dir, names);
  ENSURE(n >= MIN_BAD_FILES);
  int failed = check_files(bad_dir, names, n, check_bad);
  printf("  %d bad model files, %d with a wrong diagnostic\n", n, failed);
  ENSURE(failed == 0);
  return 0;
}

/* a NUL byte cannot reach nh_model_parse (the text is a C string): nh_model_load refuses
 * the file and names it */
static int test_nul_byte(void) {
  char path[] = "/tmp/nholo-nul-XXXXXX.nh";
  int fd = mkstemps(path, 3);
  ENSURE(fd >= 0);
  FILE *f = fdopen(fd, "wb");
  ENSURE(f != NULL);
  static const char text[] = "model a\ncoordinates x\nkinetic 1/2*x'^2\0 + 1\ninitial x = 0\n";
  fwrite(text, 1, sizeof text - 1, f);
  fclose(f);
  char msg[1024];
  nh_model *model = nh_model_load(path, NULL, msg, sizeof msg);
  remove(path);
  ENSURE(model == NULL);
  ENSURE(strncmp(msg, path, strlen(path)) == 0 && msg[strlen(path)] == ':');
  ENSURE(strstr(msg, "NUL") != NULL);
  return 0;
}

/* check one good file against its expectations */
static int check_good(const char *path) {
  char *text = slurp(path);
  if (!text) {
    printf("  %s: cannot read\n", path);
    return 1;
  }
  char expect[1024], msg[4096];
  nth_line(text, 1, expect, sizeof expect);
  free(text);
  if (strncmp(expect, "# expect: ", 10) != 0) {
    printf("  %s: first line is not '# expect: KEY=VALUE ...'\n", path);
    return 1;
  }
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  nh_model *m = nh_model_load(path, &lo, msg, sizeof msg);
  if (!m) {
    printf("  %s: does not load:\n%s\n", path, msg);
    return 1;
  }
  int bad = 0, nkeys = 0;
  double f[64] = {0};
  if (m->nq <= 64 && m->force) m->force(0.0, m->q0, m->v0, f, m->user);
  for (char *save = NULL, *tok = strtok_r(expect + 10, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) {
      printf("  %s: bad expectation '%s'\n", path, tok);
      bad = 1;
      continue;
    }
    *eq = '\0';
    const char *key = tok, *val = eq + 1;
    double want = strtod(val, NULL), have = NAN;
    nkeys++;
    if (strcmp(key, "nq") == 0) have = m->nq;
    else if (strcmp(key, "nc") == 0) have = m->nc;
    else if (strcmp(key, "ngap") == 0) have = m->ngap;
    else if (strcmp(key, "energy") == 0) nh_model_energy(m, m->q0, m->v0, &have);
    else if (strncmp(key, "f.", 2) == 0) {
      int i = nh_model_coord_index(m, key + 2);
      have = i >= 0 ? f[i] : NAN;
    } else if (strncmp(key, "law.", 4) == 0) {
      int k = nh_model_gap_index(m, key + 4);
      static const char *const kinds[] = {"elastic", "plastic", "restitution"};
      char law[64] = "?";
      if (k >= 0 && (unsigned)m->impact[k].kind < 3) {
        if (m->impact[k].kind == NH_IMPACT_RESTITUTION)
          snprintf(law, sizeof law, "restitution:%.15g", m->impact[k].e);
        else
          snprintf(law, sizeof law, "%s", kinds[m->impact[k].kind]);
      }
      if (strcmp(law, val) != 0) {
        printf("  %s: %s is %s, expected %s\n", path, key, law, val);
        bad = 1;
      }
      continue;
    } else {
      printf("  %s: unknown expectation key '%s'\n", path, key);
      bad = 1;
      continue;
    }
    double scale = fabs(want) > 1.0 ? fabs(want) : 1.0;
    if (!(fabs(have - want) <= GOOD_REL_TOL * scale)) {
      printf("  %s: %s = %.17g, expected %s\n", path, key, have, val);
      bad = 1;
    }
  }
  if (nkeys < 4) {
    printf("  %s: too few expectations (nq, nc, ngap, energy at least)\n", path);
    bad = 1;
  }
  nh_model_destroy(m);
  return bad;
}

static int test_good_corpus(void) {
  char *names[MAX_FILES];
  int n = list_files(good_dir, names);
  ENSURE(n >= 5);
  int failed = check_files(good_dir, names, n, check_good);
  printf("  %d good model files, %d failed\n", n, failed);
  ENSURE(failed == 0);
  return 0;
}

/* write text to a fresh file named like the template; 0 on failure */
static int write_temp(char *path, const char *text) {
  int fd = mkstemps(path, 3);
  if (fd < 0) return 0;
  FILE *f = fdopen(fd, "wb");
  if (!f) return 0;
  fputs(text, f);
  return fclose(f) == 0;
}

/* text of a model with n lets a_k = a_{k-1}*a_{k-1} + x: a DAG of O(n) nodes whose text as
 * a tree doubles with every let (malloc'd) */
static char *doubling_model(int n) {
  size_t cap = 256 + (size_t)n * 64, len = 0;
  char *t = malloc(cap);
  if (!t) return NULL;
  len += (size_t)snprintf(t + len, cap - len, "model blow\ncoordinates x\nlet a0 = 1 + x^2\n");
  for (int k = 1; k <= n; k++)
    len += (size_t)snprintf(t + len, cap - len, "let a%d = a%d*a%d + x\n", k, k - 1, k - 1);
  snprintf(t + len, cap - len, "kinetic 1/2*x'^2\npotential a%d/1e300\ninitial x = 0.1\n", n);
  return t;
}

/* nholo check on a model whose expressions print exponentially long as trees: the report is
 * cut (ends in "...") instead of running out of time and memory */
static int test_describe_cuts_long_expressions(void) {
  char path[] = "/tmp/nholo-blow-XXXXXX.nh";
  char *text = doubling_model(40);
  ENSURE(text && write_temp(path, text));
  free(text);
  char msg[1024];
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  char *report = nh_model_describe(path, &lo, msg, sizeof msg);
  remove(path);
  ENSURE(report != NULL);
  ENSURE(strstr(report, "potential V = ") && strstr(report, "...\n"));
  ENSURE(strlen(report) < (size_t)1 << 20);
  nh_free(report);
  return 0;
}

/* forces on one coordinate add up, however many statements there are (the reader keeps its
 * line count as it goes, so a long file reads in linear time) */
static int test_many_statements(void) {
  enum { N = 20000 };
  size_t cap = 128 + (size_t)N * 24, len = 0;
  char *t = malloc(cap);
  ENSURE(t != NULL);
  len += (size_t)snprintf(t + len, cap - len, "model many\ncoordinates x\nkinetic 1/2*x'^2\n");
  for (int k = 1; k <= N; k++) len += (size_t)snprintf(t + len, cap - len, "force x: %d*x\n", k % 7);
  snprintf(t + len, cap - len, "initial x = 0.5\n");
  char msg[1024];
  nh_load_opts lo = nh_load_opts_default();
  lo.backend = NH_BACKEND_TAPE;
  nh_model *m = nh_model_parse(t, "many.nh", &lo, msg, sizeof msg);
  free(t);
  ENSURE(m != NULL);
  double sum = 0.0, f = 0.0, v = 0.0;
  for (int k = 1; k <= N; k++) sum += k % 7;
  ENSURE(m->force(0.0, m->q0, &v, &f, m->user) == 0);
  ENSURE_REL(f, 0.5 * sum, 1e-12);
  nh_model_destroy(m);
  return 0;
}

/* a file that cannot be opened or read: the system's reason, from the model-file loader, the
 * report of `nholo check` and the .ball loader */
static int test_missing_files(void) {
  char path[1024], want[1200], msg[1024];
  nh_load_opts o = nh_load_opts_default();
  o.backend = NH_BACKEND_TAPE;
  snprintf(path, sizeof path, "%s/no-such-file.nh", bad_dir);
  snprintf(want, sizeof want, "%s: cannot open the model file: No such file or directory", path);
  ENSURE(nh_model_load(path, &o, msg, sizeof msg) == NULL);
  ENSURE(strcmp(msg, want) == 0);
  ENSURE(nh_model_describe(path, &o, msg, sizeof msg) == NULL);
  ENSURE(strcmp(msg, want) == 0);
  // a directory opens but does not read
  snprintf(want, sizeof want, "%s: read error: Is a directory", bad_dir);
  ENSURE(nh_model_load(bad_dir, &o, msg, sizeof msg) == NULL);
  ENSURE(strcmp(msg, want) == 0);
  snprintf(path, sizeof path, "%s/no-such-file.ball", bad_dir);
  snprintf(want, sizeof want, "cannot open '%s': No such file or directory", path);
  ENSURE(nh_ball_file_load(path, msg, sizeof msg) == NULL);
  ENSURE(strcmp(msg, want) == 0);
  snprintf(want, sizeof want, "cannot read '%s': Is a directory", bad_dir);
  ENSURE(nh_ball_file_load(bad_dir, msg, sizeof msg) == NULL);
  ENSURE(strcmp(msg, want) == 0);
  ENSURE(nh_ball_file_load(NULL, msg, sizeof msg) == NULL);
  ENSURE(strcmp(msg, "cannot open '(null)': no path given") == 0);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_modelfile_errors BAD_DIR GOOD_DIR [FILTER]\n");
    return 2;
  }
  bad_dir = argv[1], good_dir = argv[2];
  TEST_INIT(argc - 2, argv + 2);
  RUN_TEST(test_bad_corpus);
  RUN_TEST(test_nul_byte);
  RUN_TEST(test_good_corpus);
  RUN_TEST(test_describe_cuts_long_expressions);
  RUN_TEST(test_many_statements);
  RUN_TEST(test_missing_files);
  return TEST_SUMMARY();
}
