/* harness.h - a dependency-free test harness (after Box2D's test_macros.h).
 *
 *   static int test_something(void) { ENSURE(x > 0); ENSURE_NEAR(a, b, 1e-12); return 0; }
 *   int main(int argc, char **argv) { RUN_TEST(test_something); return TEST_SUMMARY(); }
 *
 * A test returns 0 on success; ENSURE* print the failing condition and return 1. A test that
 * cannot run here (a prerequisite missing: a C compiler for the code generator, NLopt, /proc)
 * returns SKIP("why"): it is reported skipped, and the program exits NH_TEST_SKIP_CODE when no
 * test failed, which CTest (SKIP_RETURN_CODE, tests/CMakeLists.txt) reports as skipped, not
 * passed. A name given on the command line runs only the tests whose names contain it. */
#ifndef NH_TEST_HARNESS_H
#define NH_TEST_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int nh_test_passed, nh_test_failed, nh_test_skipped;
static const char *nh_test_filter;

#define ENSURE(cond)                                                                   \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      printf("  %s:%d: condition false: %s\n", __FILE__, __LINE__, #cond);           \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)

/* |a - b| <= tol (absolute) */
#define ENSURE_NEAR(a, b, tol)                                                         \
  do {                                                                                 \
    double nh_a_ = (a), nh_b_ = (b), nh_t_ = (tol);                                    \
    if (!(fabs(nh_a_ - nh_b_) <= nh_t_)) {                                             \
      printf("  %s:%d: |%s - %s| = %.3e > %.3e (%.17g vs %.17g)\n", __FILE__, __LINE__, \
             #a, #b, fabs(nh_a_ - nh_b_), nh_t_, nh_a_, nh_b_);                         \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)

/* |a - b| <= tol * max(|b|, tiny) (relative) */
#define ENSURE_REL(a, b, tol)                                                          \
  do {                                                                                 \
    double nh_a_ = (a), nh_b_ = (b), nh_t_ = (tol);                                    \
    double nh_s_ = fabs(nh_b_) > 1e-300 ? fabs(nh_b_) : 1e-300;                       \
    if (!(fabs(nh_a_ - nh_b_) <= nh_t_ * nh_s_)) {                                     \
      printf("  %s:%d: rel|%s - %s| = %.3e > %.3e (%.17g vs %.17g)\n", __FILE__,        \
             __LINE__, #a, #b, fabs(nh_a_ - nh_b_) / nh_s_, nh_t_, nh_a_, nh_b_);       \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)

/* the exit status of a program whose tests skipped (and none failed): CTest's SKIP_RETURN_CODE */
#define NH_TEST_SKIP_CODE 77

/* the test cannot run here: say why (a printf format and its arguments) and report it skipped */
#define SKIP(...)                                                                      \
  do {                                                                                 \
    printf("  skipped: ");                                                             \
    printf(__VA_ARGS__);                                                               \
    printf("\n");                                                                      \
    return NH_TEST_SKIP_CODE;                                                          \
  } while (0)

#define RUN_TEST(fn)                                                                   \
  do {                                                                                 \
    if (nh_test_filter && !strstr(#fn, nh_test_filter)) break;                         \
    int nh_rc_ = (fn)();                                                               \
    if (nh_rc_ == 0) {                                                                 \
      nh_test_passed++;                                                                \
      printf("ok   %s\n", #fn);                                                        \
    } else if (nh_rc_ == NH_TEST_SKIP_CODE) {                                          \
      nh_test_skipped++;                                                               \
      printf("skip %s\n", #fn);                                                        \
    } else {                                                                           \
      nh_test_failed++;                                                                \
      printf("FAIL %s\n", #fn);                                                        \
    }                                                                                  \
  } while (0)

#define TEST_INIT(argc, argv) (nh_test_filter = (argc) > 1 ? (argv)[1] : NULL)

/* 1 when a test failed, else NH_TEST_SKIP_CODE when one skipped, else 0 */
#define TEST_SUMMARY()                                                                 \
  (printf("%d passed, %d failed, %d skipped\n", nh_test_passed, nh_test_failed, nh_test_skipped), \
   nh_test_failed ? 1 : nh_test_skipped ? NH_TEST_SKIP_CODE : 0)

/* Whether the code generator has a C compiler: $CC when set (a path, or a name on PATH), else
 * cc on PATH (as src/lang/codegen.c chooses it) */
static inline int nh_test_have_cc(void) {
  const char *cc = getenv("CC"), *path = getenv("PATH");
  char buf[4096];
  if (!cc || !*cc) cc = "cc";
  if (strchr(cc, '/')) return access(cc, X_OK) == 0;
  while (path && *path) {
    const char *end = strchr(path, ':');
    size_t len = end ? (size_t)(end - path) : strlen(path);
    if (len > 0 && len + strlen(cc) + 2 < sizeof buf) {
      memcpy(buf, path, len);
      buf[len] = '/';
      strcpy(buf + len + 1, cc);
      if (access(buf, X_OK) == 0) return 1;
    }
    path = end ? end + 1 : NULL;
  }
  return 0;
}

/* Deterministic pseudo-random numbers (xorshift64*), uniform in [lo, hi). */
static inline double nh_test_rand(unsigned long long *s, double lo, double hi) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  unsigned long long r = *s * 2685821657736338717ULL;
  return lo + (hi - lo) * ((double)(r >> 11) * (1.0 / 9007199254740992.0));
}

#endif
