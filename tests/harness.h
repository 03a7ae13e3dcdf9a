/* harness.h - a dependency-free test harness (after Box2D's test_macros.h).
 *
 *   static int test_something(void) { ENSURE(x > 0); ENSURE_NEAR(a, b, 1e-12); return 0; }
 *   int main(int argc, char **argv) { RUN_TEST(test_something); return TEST_SUMMARY(); }
 *
 * A test returns 0 on success; ENSURE* print the failing condition and return 1. A name
 * given on the command line runs only the tests whose names contain it. */
#ifndef NH_TEST_HARNESS_H
#define NH_TEST_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int nh_test_passed, nh_test_failed;
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

#define RUN_TEST(fn)                                                                   \
  do {                                                                                 \
    if (nh_test_filter && !strstr(#fn, nh_test_filter)) break;                         \
    if ((fn)() == 0) {                                                                 \
      nh_test_passed++;                                                                \
      printf("ok   %s\n", #fn);                                                        \
    } else {                                                                           \
      nh_test_failed++;                                                                \
      printf("FAIL %s\n", #fn);                                                        \
    }                                                                                  \
  } while (0)

#define TEST_INIT(argc, argv) (nh_test_filter = (argc) > 1 ? (argv)[1] : NULL)

#define TEST_SUMMARY()                                                                 \
  (printf("%d passed, %d failed\n", nh_test_passed, nh_test_failed), nh_test_failed ? 1 : 0)

/* Deterministic pseudo-random numbers (xorshift64*), uniform in [lo, hi). */
static inline double nh_test_rand(unsigned long long *s, double lo, double hi) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  unsigned long long r = *s * 2685821657736338717ULL;
  return lo + (hi - lo) * ((double)(r >> 11) * (1.0 / 9007199254740992.0));
}

#endif
