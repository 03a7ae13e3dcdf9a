/* parfor.c - nh_par_for: a parallel for on POSIX threads (in libc with glibc >= 2.34, so the
 * library needs nothing beyond libc and libm for it); the default thread count. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "base/parfor.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/* one loop: the next index to hand out and the stop value, shared by its threads */
typedef struct par_loop {
  long n, grain;
  nh_par_body body;
  void *user;
  atomic_long next; /* the first index not taken yet */
  atomic_int stop;  /* the first nonzero value a body returned, 0 while none did */
} par_loop;

/* a created thread's arguments */
typedef struct par_worker {
  par_loop *loop;
  int thread;
  pthread_t id;
} par_worker;

/* take [lo, hi) of at most grain indices; 0 when none is left. A compare-and-swap never moves
 * the counter past n, so n up to LONG_MAX is safe. */
static int take(par_loop *p, long *lo, long *hi) {
  long i = atomic_load_explicit(&p->next, memory_order_relaxed);
  for (;;) {
    if (i >= p->n) return 0;
    const long j = p->n - i > p->grain ? i + p->grain : p->n;
    if (atomic_compare_exchange_weak_explicit(&p->next, &i, j, memory_order_relaxed, memory_order_relaxed)) {
      *lo = i, *hi = j;
      return 1;
    }
  }
}

/* a thread's share: grains until none is left or a body stopped the loop */
static void work(par_loop *p, int thread) {
  long lo, hi;
  while (!atomic_load_explicit(&p->stop, memory_order_relaxed) && take(p, &lo, &hi)) {
    for (long i = lo; i < hi; i++) {
      if (atomic_load_explicit(&p->stop, memory_order_relaxed)) return;
      const int rc = p->body(i, thread, p->user);
      if (rc) {
        int none = 0;
        atomic_compare_exchange_strong_explicit(&p->stop, &none, rc, memory_order_relaxed, memory_order_relaxed);
        return;
      }
    }
  }
}

static void *worker_main(void *arg) {
  par_worker *w = arg;
  work(w->loop, w->thread);
  return NULL;
}

int nh_par_for(long n, int threads, long grain, nh_par_body body, void *user) {
  if (n <= 0 || !body) return 0;
  if (grain < 1) grain = 1;
  if (threads > NH_PAR_MAX_THREADS) threads = NH_PAR_MAX_THREADS;
  // no more threads than grains: the others would find nothing to take
  const long grains = (n - 1) / grain + 1;
  if (threads > grains) threads = (int)grains;
  par_loop p = {.n = n, .grain = grain, .body = body, .user = user};
  atomic_init(&p.next, 0);
  atomic_init(&p.stop, 0);
  par_worker *w = threads > 1 ? malloc(sizeof(par_worker) * (size_t)(threads - 1)) : NULL;
  int created = 0;
  // the other threads; one that cannot be created (EAGAIN: a limit on threads or memory) ends
  // the creation, and the threads that exist share the indices
  for (int t = 1; w && t < threads; t++) {
    w[created].loop = &p, w[created].thread = t;
    if (pthread_create(&w[created].id, NULL, worker_main, &w[created]) != 0) break;
    created++;
  }
  work(&p, 0);
  for (int t = 0; t < created; t++) pthread_join(w[t].id, NULL);
  free(w);
  return atomic_load_explicit(&p.stop, memory_order_relaxed);
}

/* a positive count at the start of OMP_NUM_THREADS ("8", "8,2": its first entry), else 0 */
static int env_threads(void) {
  const char *s = getenv("OMP_NUM_THREADS");
  if (!s) return 0;
  char *end;
  errno = 0;
  const long v = strtol(s, &end, 10);
  while (*end == ' ' || *end == '\t') end++;
  if (errno || end == s || (*end && *end != ',') || v < 1) return 0;
  return v > NH_PAR_MAX_THREADS ? NH_PAR_MAX_THREADS : (int)v;
}

int nh_par_default_threads(void) {
  long n = env_threads();
  cpu_set_t set;
  if (n < 1 && sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
  if (n < 1) n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  return n > NH_PAR_MAX_THREADS ? NH_PAR_MAX_THREADS : (int)n;
}
