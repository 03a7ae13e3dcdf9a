/* codegen_cc.c - the C compiler of codegen.c, run under a budget.
 *
 * The compiler runs in a process group of its own under a small supervisor, a forked copy of
 * this process that does nothing but start the compiler and wait for it:
 *
 *   this process --fork--> supervisor (leader of a new process group) --fork, exec--> cc
 *                                                                     (cc1, as, ld: same group)
 *
 * - the time limit: this process waits with a deadline and kills the whole group (SIGKILL)
 *   past it; the cancellation flag (a signal handler's) is read between waits and does the same;
 * - the memory limit: RLIMIT_AS of the compiler, inherited by its children (cc1 fails to
 *   allocate; its message says so in the log);
 * - the death of this process (SIGKILL included): the supervisor gets SIGTERM (Linux:
 *   PR_SET_PDEATHSIG) and kills its group, so no compiler runs on as an orphan; RLIMIT_CPU at
 *   twice the time limit is the backstop elsewhere;
 * - the compiler's temporaries go to TMPDIR = the private work directory of the compile, which
 *   the caller removes whatever happened.
 * Between fork and exec only async-signal-safe calls are made (this process may have threads).
 * Nothing here prints. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "lang/mf.h"
#include "base/msg.h"
#include "nholo/status.h"

extern char **environ;

/* how often the wait for the compiler looks at the clock and the cancellation flag */
#define MF_CC_POLL_NS 5000000L /* 5 ms */
/* the compiler's CPU time limit (RLIMIT_CPU, the backstop of an orphan) in time limits */
#define MF_CC_CPU_FACTOR 2.0
/* the exit status of a supervisor whose compiler could not be started */
#define MF_CC_NO_EXEC 127

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the full path of program (as the shell would find it on PATH) into buf; 0, or -1 */
static int find_program(const char *prog, char *buf, size_t size) {
  if (strchr(prog, '/')) return snprintf(buf, size, "%s", prog) < (int)size && access(buf, X_OK) == 0 ? 0 : -1;
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
  for (const char *p = path;; p++) {
    const char *end = strchr(p, ':');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    if (snprintf(buf, size, "%.*s%s%s", (int)len, p, len ? "/" : "", prog) < (int)size && access(buf, X_OK) == 0) {
      struct stat sb;
      if (stat(buf, &sb) == 0 && S_ISREG(sb.st_mode)) return 0;
    }
    if (!end) return -1;
    p = end;
  }
}

/* the environment of the compiler: this one with TMPDIR=tmpdir (malloc'd array; the
 * TMPDIR string in var) */
static char **child_env(const char *tmpdir, char *var, size_t var_size) {
  size_t n = 0;
  while (environ && environ[n]) n++;
  char **env = malloc(sizeof(char *) * (n + 2));
  if (!env) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "TMPDIR=", 7) != 0) env[k++] = environ[i];
  snprintf(var, var_size, "TMPDIR=%s", tmpdir);
  env[k++] = var;
  env[k] = NULL;
  return env;
}

/* the supervisor's SIGTERM (its parent died, or the group is to go): the whole group, itself too */
static void supervisor_term(int sig) {
  (void)sig;
  kill(0, SIGKILL);
  _exit(MF_CC_NO_EXEC);
}

/* in the compiler's process, before exec: the limits, the log as stdout and stderr */
static void compiler_exec(const mf_cc_job *job, const char *path, char *const argv[], char *const env[]) {
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGTERM, &dfl, NULL);
  if (job->mib > 0.0) {
    const double bytes = job->mib * 1048576.0;
    struct rlimit rl = {(rlim_t)bytes, (rlim_t)bytes};
    setrlimit(RLIMIT_AS, &rl);
  }
  if (job->seconds > 0.0) {
    const rlim_t cpu = (rlim_t)ceil(MF_CC_CPU_FACTOR * job->seconds) + 1;
    struct rlimit rl = {cpu, cpu + 1};
    setrlimit(RLIMIT_CPU, &rl);
  }
  int in = open("/dev/null", O_RDONLY), out = open(job->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) _exit(MF_CC_NO_EXEC);
  execve(path, argv, env);
  _exit(MF_CC_NO_EXEC);
}

/* the supervisor (a forked copy of the caller): a group of its own, killed with its parent;
 * starts the compiler and exits with its status */
static void supervisor(const mf_cc_job *job, pid_t parent, const char *path, char *const argv[], char *const env[]) {
  setpgid(0, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = supervisor_term;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
  if (getppid() != parent) supervisor_term(0); /* the parent died before prctl */
  pid_t c = fork();
  if (c == 0) compiler_exec(job, path, argv, env);
  if (c < 0) _exit(MF_CC_NO_EXEC);
  int st = 0;
  while (waitpid(c, &st, 0) < 0)
    if (errno != EINTR) _exit(MF_CC_NO_EXEC);
  _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

/* the compiler ran out of memory: its log says so (gcc's "out of memory allocating", "virtual
 * memory exhausted", clang's "LLVM ERROR: out of memory", a failed allocation's strerror), or
 * that a compiler pass died of a signal (under RLIMIT_AS a stack or mapping that cannot grow
 * is a SIGSEGV: "Segmentation fault signal terminated program cc1") */
static int log_says_memory(const char *log) {
  static const char *const words[] = {"out of memory", "memory exhausted", "Cannot allocate memory", "bad_alloc",
                                      "signal terminated program", "Segmentation fault"};
  FILE *f = fopen(log, "r");
  char line[1024];
  int hit = 0;
  while (f && !hit && fgets(line, sizeof line, f))
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) hit |= strstr(line, words[i]) != NULL;
  if (f) fclose(f);
  return hit;
}

/* kill the compiler's group and reap the supervisor */
static void kill_group(pid_t pid) {
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
  }
}

int mf_cc_run(const mf_cc_job *job, char *why, size_t why_size) {
  const char *argv[MF_CC_MAX_ARGS + 8];
  size_t n = 0;
  argv[n++] = job->cc;
  for (int i = 0; i < job->nflags && i < MF_CC_MAX_ARGS; i++) argv[n++] = job->flags[i];
  argv[n++] = "-o";
  argv[n++] = job->so;
  argv[n++] = job->src;
  argv[n++] = "-lm";
  argv[n] = NULL;
  char path[4096], var[4200];
  if (find_program(job->cc, path, sizeof path) != 0) {
    nh_set_msg(why, why_size, "cannot run the C compiler '%s' (not found)", job->cc);
    return NH_ERR_UNSUPPORTED;
  }
  char **env = child_env(job->tmpdir, var, sizeof var);
  if (!env) {
    nh_set_msg(why, why_size, "out of memory starting the C compiler");
    return NH_ERR_UNSUPPORTED;
  }
  const pid_t parent = getpid();
  const double t0 = now_s();
  pid_t pid = fork();
  if (pid == 0) supervisor(job, parent, path, (char *const *)argv, env);
  free(env);
  if (pid < 0) {
    nh_set_msg(why, why_size, "cannot run the C compiler '%s' (%s)", job->cc, strerror(errno));
    return NH_ERR_UNSUPPORTED;
  }
  setpgid(pid, pid); /* (also done by the supervisor: whichever comes first) */
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) {
      kill_group(pid);
      nh_set_msg(why, why_size, "waiting for the C compiler failed (%s)", strerror(errno));
      return NH_ERR_UNSUPPORTED;
    }
    if (job->cancel && *job->cancel) {
      kill_group(pid);
      nh_set_msg(why, why_size, "interrupted while the C compiler ran");
      return NH_INTERRUPTED;
    }
    if (job->seconds > 0.0 && now_s() - t0 > job->seconds) {
      kill_group(pid);
      nh_set_msg(why, why_size, "the C compiler exceeded its time limit (%g s)", job->seconds);
      return MF_CC_OVER_TIME;
    }
    struct timespec ts = {0, MF_CC_POLL_NS};
    nanosleep(&ts, NULL);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return NH_OK;
  if (job->mib > 0.0 && log_says_memory(job->log)) {
    nh_set_msg(why, why_size, "the C compiler exceeded its memory limit (%g MiB)", job->mib);
    return MF_CC_OVER_MEMORY;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == MF_CC_NO_EXEC)
    nh_set_msg(why, why_size, "cannot run the C compiler '%s' (see %s)", job->cc, job->log);
  else
    nh_set_msg(why, why_size, "the C compiler '%s' failed (see %s)", job->cc, job->log);
  return NH_ERR_UNSUPPORTED;
}
