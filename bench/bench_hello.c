/* bench_hello.c - the baseline of bench_startup: a C hello-world linked with libm. */
#include <math.h>
#include <stdio.h>

int main(int argc, char **argv) {
  (void)argv;
  printf("hello %g\n", sqrt((double)argc));
  return 0;
}
