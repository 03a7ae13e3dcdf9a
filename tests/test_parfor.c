/* test_parfor.c - nh_par_for (src/base/parfor.c): every index exactly once for loops of 0, 1,
 * grain-1, grain, grain+1 and many indices on 1 to 8 threads; thread 0 is the caller and the
 * only thread of a one-thread loop, which runs the indices in order; a body's nonzero value
 * stops the loop (one thread: no index after it; several: each thread at most one more call)
 * and is returned; threads that cannot be created leave the work to the others (pthread_create
 * wrapped to fail, when linked with --wrap); the default count reads OMP_NUM_THREADS. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "base/parfor.h"
#include "harness.h"

/* the most indices of a loop here */
#define PF_MAX_N 100000
/* the grain of the loops here */
#define PF_GRAIN 16

/* what the bodies record */
typedef struct visits {
  atomic_int count[PF_MAX_N]; /* the calls per index */
  atomic_long calls;          /* all calls */
  atomic_int bad_thread;      /* a thread index outside 0 .. threads-1, or thread 0 not the caller */
  atomic_int thread_used[8];  /* the threads that ran an index */
  int threads;
  pthread_t caller;
  int wait_for;               /* waiting_body: the threads each waits for */
  long stop_after;            /* a body returns stop_value once this many calls were made (0: never) */
  int stop_value;
  long last, out_of_order;    /* one thread: the previous index, and indices not after it */
} visits;

static visits V;

static void reset(int threads) {
  for (long i = 0; i < PF_MAX_N; i++) atomic_store(&V.count[i], 0);
  atomic_store(&V.calls, 0);
  atomic_store(&V.bad_thread, 0);
  for (int t = 0; t < 8; t++) atomic_store(&V.thread_used[t], 0);
  V.threads = threads, V.caller = pthread_self();
  V.wait_for = 0, V.stop_after = 0, V.stop_value = 0, V.last = -1, V.out_of_order = 0;
}

static int body(long i, int thread, void *user) {
  visits *v = user;
  const int limit = v->threads > 1 ? v->threads : 1;
  if (thread < 0 || thread >= limit || (thread == 0) != (pthread_equal(pthread_self(), v->caller) != 0))
    atomic_store(&v->bad_thread, 1);
  else
    atomic_store(&v->thread_used[thread], 1);
  if (i >= 0 && i < PF_MAX_N) atomic_fetch_add(&v->count[i], 1);
  if (limit == 1) v->out_of_order += i <= v->last, v->last = i;
  const long c = atomic_fetch_add(&v->calls, 1) + 1;
  return v->stop_after > 0 && c >= v->stop_after ? v->stop_value : 0;
}

/* every index of 0 .. n-1 exactly once, none beyond */
static int exactly_once(long n) {
  for (long i = 0; i < PF_MAX_N; i++)
    if (atomic_load(&V.count[i]) != (i < n)) return 0;
  return atomic_load(&V.calls) == n;
}

static int test_every_index_once(void) {
  const long ns[] = {0, 1, PF_GRAIN - 1, PF_GRAIN, PF_GRAIN + 1, 3 * PF_GRAIN + 5, PF_MAX_N};
  const int ts[] = {1, 2, 3, 8};
  for (size_t a = 0; a < sizeof ts / sizeof ts[0]; a++)
    for (size_t b = 0; b < sizeof ns / sizeof ns[0]; b++) {
      reset(ts[a]);
      ENSURE(nh_par_for(ns[b], ts[a], PF_GRAIN, body, &V) == 0);
      ENSURE(exactly_once(ns[b]));
      ENSURE(!atomic_load(&V.bad_thread));
      if (ts[a] == 1) ENSURE(V.out_of_order == 0);
    }
  // a grain below 1 is 1; no threads (0, negative) is the caller alone, in order
  reset(2);
  ENSURE(nh_par_for(1000, 2, 0, body, &V) == 0 && exactly_once(1000) && !atomic_load(&V.bad_thread));
  for (int t = 0; t >= -3; t -= 3) {
    reset(1);
    ENSURE(nh_par_for(1000, t, PF_GRAIN, body, &V) == 0 && exactly_once(1000));
    ENSURE(!atomic_load(&V.bad_thread) && V.out_of_order == 0);
  }
  return 0;
}

/* the longest a thread waits for the others to start (s): far longer than a thread's start */
#define PF_WAIT 10.0

/* on a thread's first call: mark it started and wait until threads 0 .. V.wait_for-1 all
 * started (at most PF_WAIT), so that each runs an index however late the machine starts it */
static void start_together(visits *v, int thread) {
  if (thread >= 0 && thread < 8 && !atomic_exchange(&v->thread_used[thread], 1)) {
    struct timespec ts = {0, 100000};
    for (double waited = 0.0; waited < PF_WAIT; waited += 1e-4) {
      int all = 1;
      for (int t = 0; t < v->wait_for; t++) all = all && atomic_load(&v->thread_used[t]);
      if (all) break;
      nanosleep(&ts, NULL);
    }
  }
}

static int waiting_body(long i, int thread, void *user) {
  start_together(user, thread);
  return body(i, thread, user);
}

static int test_threads_share(void) {
  reset(3);
  V.wait_for = 3;
  ENSURE(nh_par_for(3000, 3, 4, waiting_body, &V) == 0 && exactly_once(3000) && !atomic_load(&V.bad_thread));
  for (int t = 0; t < 3; t++) ENSURE(atomic_load(&V.thread_used[t]));
  return 0;
}

/* the longest a call after the stopping one takes (s) */
#define PF_SEEN 0.05

/* nonzero from the call that reaches V.stop_after only; the calls after it sleep PF_SEEN. The
 * threads start together, so each is inside its first grain then. */
static int stop_once_body(long i, int thread, void *user) {
  visits *v = user;
  (void)i;
  start_together(v, thread);
  const long c = atomic_fetch_add(&v->calls, 1) + 1;
  if (c == v->stop_after) return v->stop_value;
  if (c > v->stop_after) {
    struct timespec ts = {0, (long)(PF_SEEN * 1e9)};
    nanosleep(&ts, NULL);
  }
  return 0;
}

static int test_early_stop(void) {
  // one thread: the indices 0 .. k, in order, and no more; the body's value returned
  reset(1);
  V.stop_after = 38, V.stop_value = 5;
  ENSURE(nh_par_for(PF_MAX_N, 1, PF_GRAIN, body, &V) == 5);
  ENSURE(exactly_once(38) && V.out_of_order == 0);
  // several threads: once the calls reach the stop, every later call stops its thread, so at
  // most threads - 1 calls beyond it; no index twice; a negative status comes back as it is
  const int ts[] = {2, 3, 8};
  for (size_t a = 0; a < sizeof ts / sizeof ts[0]; a++) {
    reset(ts[a]);
    V.stop_after = 500, V.stop_value = -7;
    ENSURE(nh_par_for(PF_MAX_N, ts[a], PF_GRAIN, body, &V) == -7);
    const long calls = atomic_load(&V.calls);
    ENSURE(calls >= 500 && calls <= 500 + ts[a] - 1);
    for (long i = 0; i < PF_MAX_N; i++) ENSURE(atomic_load(&V.count[i]) <= 1);
  }
  // only the call that reaches the stop returns nonzero: the other threads, inside grains of
  // 1000, see the stop before their next index (a call after it sleeps PF_SEEN s, the stopping
  // thread's time to store it)
  for (int t = 2; t <= 3; t++) {
    reset(t);
    V.stop_after = 300, V.stop_value = 3, V.wait_for = t;
    ENSURE(nh_par_for(PF_MAX_N, t, 1000, stop_once_body, &V) == 3);
    const long calls = atomic_load(&V.calls);
    ENSURE(calls >= 300 && calls <= 300 + t - 1);
  }
  // a stop on the first call of a loop over LONG_MAX indices: the counter never passes n
  reset(2);
  V.stop_after = 1, V.stop_value = 1;
  ENSURE(nh_par_for(LONG_MAX, 2, LONG_MAX, body, &V) == 1 && atomic_load(&V.calls) == 1);
  return 0;
}

#ifdef NH_TEST_WRAP_PTHREAD
/* pthread_create of the library fails after pt_allow successes (-1: never fails) */
static int pt_allow = -1;
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg) {
  if (pt_allow == 0) return 11; /* EAGAIN */
  if (pt_allow > 0) pt_allow--;
  return __real_pthread_create(t, a, f, arg);
}
#endif

static int test_create_fails(void) {
#ifdef NH_TEST_WRAP_PTHREAD
  // no thread can be created: the caller runs everything; one of three: two threads share it
  const int allow[] = {0, 1};
  for (int k = 0; k < 2; k++) {
    reset(4);
    pt_allow = allow[k], V.wait_for = 1 + allow[k];
    const int rc = nh_par_for(3000, 4, 4, waiting_body, &V);
    pt_allow = -1;
    ENSURE(rc == 0 && exactly_once(3000) && !atomic_load(&V.bad_thread));
    ENSURE(atomic_load(&V.thread_used[0]) && atomic_load(&V.thread_used[1]) == (k == 1));
    ENSURE(!atomic_load(&V.thread_used[2]) && !atomic_load(&V.thread_used[3]));
  }
  return 0;
#else
  SKIP("not linked with --wrap=pthread_create");
#endif
}

static int test_default_threads(void) {
  unsetenv("OMP_NUM_THREADS");
  const int own = nh_par_default_threads();
  ENSURE(own >= 1 && own <= NH_PAR_MAX_THREADS && own <= sysconf(_SC_NPROCESSORS_CONF));
  const struct {
    const char *env;
    int want; /* 0: the count without the variable */
  } cases[] = {{"3", 3}, {"5,2", 5}, {" 2 ", 2}, {"1", 1}, {"100000", NH_PAR_MAX_THREADS},
               {"0", 0}, {"-4", 0}, {"abc", 0}, {"", 0}, {"4x", 0}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    setenv("OMP_NUM_THREADS", cases[k].env, 1);
    const int n = nh_par_default_threads();
    if (n != (cases[k].want ? cases[k].want : own)) printf("  OMP_NUM_THREADS='%s': %d\n", cases[k].env, n);
    ENSURE(n == (cases[k].want ? cases[k].want : own));
  }
  unsetenv("OMP_NUM_THREADS");
  return 0;
}

int main(int argc, char **argv) {
  nh_test_filter = argc > 1 ? argv[1] : NULL;
  RUN_TEST(test_every_index_once);
  RUN_TEST(test_threads_share);
  RUN_TEST(test_early_stop);
  RUN_TEST(test_create_fails);
  RUN_TEST(test_default_threads);
  return TEST_SUMMARY();
}
