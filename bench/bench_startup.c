/* bench_startup.c - what a process costs before it does anything: whole processes timed side
 * by side, in alternation, against baselines run by this same program.
 *
 *   1. `nholo run MODEL --t-end 1e-3` (a model file: read, derived, evaluated) against a C
 *      hello-world linked with libm (bench_hello);
 *   2. the shared objects `nholo run` loads (LD_DEBUG=files: one "generating link map" line
 *      each; the program itself, the dynamic loader and the vDSO are not counted);
 *   3. `python3 -c "import nholo"` against `python3 -c "import numpy"` (nholo imports numpy),
 *      whole processes; and, less noisy, the time `import nholo` takes in a process that has
 *      imported numpy already (perf_counter around it, the median over the rounds).
 *
 * Usage: bench_startup [ROUNDS] (default 100; Python rounds are a fifth of it). The
 * programs' paths are fixed at build time (bench/CMakeLists.txt). Reported: the median wall
 * time and the median CPU time (user + system of the child) of each, the ratios and the
 * differences; targets: ratio <= 1.5, at most 8 shared objects, import within 2 ms. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 10000
#define STARTUP_RATIO_TARGET 1.5 /* nholo run / hello-world */
#define STARTUP_LIBS_TARGET 8    /* shared objects loaded by nholo run */
#define IMPORT_DIFF_TARGET 2e-3  /* s: import nholo - import numpy */

typedef struct sample {
  double wall, cpu;
} sample;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* run argv (stdout, stderr to /dev/null unless err_fd >= 0 takes stderr); wall and CPU time */
static int run(char *const argv[], char *const envp[], int err_fd, sample *s) {
  double t0 = now();
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(err_fd >= 0 ? err_fd : null, 2);
    execve(argv[0], argv, envp);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) return -1;
  s->wall = now() - t0;
  s->cpu = ru.ru_utime.tv_sec + 1e-6 * ru.ru_utime.tv_usec + ru.ru_stime.tv_sec + 1e-6 * ru.ru_stime.tv_usec;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* medians of a and b run alternately for n rounds (after one warm-up each) */
static int side_by_side(char *const a[], char *const b[], char *const envp[], int n, sample *ma, sample *mb) {
  static double wa[MAX_ROUNDS], ca[MAX_ROUNDS], wb[MAX_ROUNDS], cb[MAX_ROUNDS];
  sample s;
  if (run(a, envp, -1, &s) != 0 || run(b, envp, -1, &s) != 0) return -1;
  for (int k = 0; k < n; k++) {
    if (run(a, envp, -1, &s) != 0) return -1;
    wa[k] = s.wall, ca[k] = s.cpu;
    if (run(b, envp, -1, &s) != 0) return -1;
    wb[k] = s.wall, cb[k] = s.cpu;
  }
  ma->wall = median(wa, n), ma->cpu = median(ca, n), mb->wall = median(wb, n), mb->cpu = median(cb, n);
  return 0;
}

/* the shared objects argv loads (LD_DEBUG=files), printed; -1 on failure */
static int count_objects(char *const argv[]) {
  char path[] = "/tmp/nholo-bench-ld-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return -1;
  extern char **environ;
  static char *envp[1024];
  int ne = 0;
  envp[ne++] = "LD_DEBUG=files"; /* (with the rest of the environment: HOME locates the model cache) */
  for (char **e = environ; *e && ne < 1023; e++)
    if (strncmp(*e, "LD_DEBUG=", 9) != 0) envp[ne++] = *e;
  envp[ne] = NULL;
  sample s;
  int rc = run(argv, envp, fd, &s);
  close(fd);
  FILE *f = fopen(path, "r");
  int n = 0;
  char line[1024];
  while (rc == 0 && f && fgets(line, sizeof line, f)) {
    char *p = strstr(line, "file="), *e = strstr(line, "generating link map");
    if (!p || !e) continue;
    char *end = strpbrk(p + 5, " \t[");
    printf("%s%.*s", n ? " " : "  ", end ? (int)(end - p - 5) : 0, p + 5);
    n++;
  }
  printf("\n");
  if (f) fclose(f);
  unlink(path);
  return rc == 0 ? n : -1;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 100;
  if (rounds < 1 || rounds > MAX_ROUNDS) {
    fprintf(stderr, "bench_startup: ROUNDS must be in [1, %d]\n", MAX_ROUNDS);
    return 2;
  }
  extern char **environ;
  char *hello[] = {BENCH_HELLO, NULL};
  char *nholo[] = {NHOLO_CLI, "run", NHOLO_SOURCE_DIR "/examples/car.nh", "--t-end", "1e-3", NULL};
  sample mh, mn;
  printf("bench_startup: %d rounds, medians of whole processes run alternately\n", rounds);
  if (side_by_side(hello, nholo, environ, rounds, &mh, &mn) != 0) {
    fprintf(stderr, "bench_startup: a program failed (%s, %s)\n", hello[0], nholo[0]);
    return 1;
  }
  printf("hello-world (C, libm)          %8.3f ms wall %8.3f ms CPU\n", 1e3 * mh.wall, 1e3 * mh.cpu);
  printf("nholo run examples/car.nh      %8.3f ms wall %8.3f ms CPU\n", 1e3 * mn.wall, 1e3 * mn.cpu);
  printf("ratio nholo / hello            %8.2f wall     %8.2f CPU     (target <= %.1f)\n", mn.wall / mh.wall,
         mn.cpu / mh.cpu, STARTUP_RATIO_TARGET);
  printf("shared objects loaded by nholo run:\n");
  int nobj = count_objects(nholo);
  printf("  %d (target <= %d)\n", nobj, STARTUP_LIBS_TARGET);
#ifdef BENCH_PYTHON
  char pp[4096];
  snprintf(pp, sizeof pp, "PYTHONPATH=%s", BENCH_PYTHONPATH);
  char *penv[] = {pp, NULL}; /* (the warm-up run writes the package's bytecode, as an install has it) */
  char *numpy[] = {BENCH_PYTHON, "-c", "import numpy", NULL};
  char *imp[] = {BENCH_PYTHON, "-c", "import nholo", NULL};
  sample mp, mi;
  int pr = rounds / 5 > 0 ? rounds / 5 : 1;
  if (side_by_side(numpy, imp, penv, pr, &mp, &mi) != 0) {
    fprintf(stderr, "bench_startup: python3 -c 'import nholo' failed (PYTHONPATH=%s)\n", BENCH_PYTHONPATH);
    return 1;
  }
  printf("python3 -c 'import numpy'      %8.3f ms wall %8.3f ms CPU\n", 1e3 * mp.wall, 1e3 * mp.cpu);
  printf("python3 -c 'import nholo'      %8.3f ms wall %8.3f ms CPU\n", 1e3 * mi.wall, 1e3 * mi.cpu);
  printf("import nholo - import numpy    %8.3f ms wall %8.3f ms CPU (whole processes)\n", 1e3 * (mi.wall - mp.wall),
         1e3 * (mi.cpu - mp.cpu));
  // the import alone, after numpy's, timed inside the process
  static double dt[MAX_ROUNDS];
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "%s %s -c 'import numpy, time; t = time.perf_counter(); import nholo; print(time.perf_counter() - t)'", pp,
           BENCH_PYTHON);
  int got = 0;
  for (int k = 0; k < pr; k++) {
    FILE *p = popen(cmd, "r");
    if (p && fscanf(p, "%lf", &dt[got]) == 1) got++;
    if (p) pclose(p);
  }
  if (got == 0) {
    fprintf(stderr, "bench_startup: could not time import nholo in-process\n");
    return 1;
  }
  printf("import nholo after numpy        %8.3f ms (in-process, median of %d; target <= %.1f ms)\n",
         1e3 * median(dt, got), got, 1e3 * IMPORT_DIFF_TARGET);
#endif
  return 0;
}
