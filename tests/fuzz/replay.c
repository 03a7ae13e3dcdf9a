/* replay.c - runs the model-file fuzz harness (fuzz_modelfile.c) once on every file given, or
 * on every file of every directory given: the corpus kept in tests/fuzz/corpus (inputs the
 * fuzzer found that reach new code) and the faulty and edge-case files. Built with the
 * project's compiler, so `make check` replays the corpus everywhere and the sanitizer build of
 * CI replays it under ASan and UBSan without clang's fuzzer runtime.
 *
 *   fuzz_replay DIR_OR_FILE...      prints "N passed, 0 failed"; a crash is the failure */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REPLAY_MAX_BYTES (1 << 20) /* larger inputs are a corpus mistake, not a test */

static long replayed;

static int replay_file(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    fprintf(stderr, "fuzz_replay: cannot open %s\n", path);
    return 1;
  }
  uint8_t *buf = malloc(REPLAY_MAX_BYTES);
  size_t n = buf ? fread(buf, 1, REPLAY_MAX_BYTES, fp) : 0;
  int big = buf && !feof(fp);
  fclose(fp);
  if (!buf || big) {
    fprintf(stderr, "fuzz_replay: %s: %s\n", path, buf ? "larger than 1 MiB" : "out of memory");
    free(buf);
    return 1;
  }
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  replayed++;
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the regular files of a directory, in name order (so a failure is reproducible) */
static int replay_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return replay_file(dir);
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 256;
      char **grown = realloc(names, cap * sizeof *names);
      if (!grown) { rc = 1; break; }
      names = grown;
    }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    if (!(names[n] = malloc(len))) { rc = 1; break; }
    snprintf(names[n++], len, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, by_name);
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) rc = replay_file(names[i]);
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  int rc = 0;
  for (int i = 1; i < argc && rc == 0; i++) rc = replay_dir(argv[i]);
  printf("fuzz_replay: %ld inputs\n", replayed);
  printf("%ld passed, %d failed\n", rc ? 0 : replayed, rc ? 1 : 0);
  return rc;
}
