/* consumer.c - a tiny program built against the *installed* nholo (by pkg-config and by the
 * CMake package) in the test_install test. Exits 0 when the library answers as expected. */
#include <nholo/nholo.h>

#include <stdio.h>
#include <string.h>

/* argv[1] (optional): the install prefix, under which each component the build made
 * (argv[2...]) must be found and load */
int main(int argc, char **argv) {
  int failures = 0;
  char expected[32];
  const char *version = nh_version();
  const char *zeno = nh_status_string(NH_ZENO);

  snprintf(expected, sizeof expected, "%d.%d.%d", NHOLO_VERSION_MAJOR, NHOLO_VERSION_MINOR,
           NHOLO_VERSION_PATCH);
  printf("nholo %s\n", version ? version : "(null)");
  printf("NH_ZENO: %s\n", zeno ? zeno : "(null)");
  printf("methods: %d\n", nh_method_count());

  if (!version || strcmp(version, expected) != 0) {
    fprintf(stderr, "consumer: nh_version() is \"%s\", the installed headers say \"%s\"\n",
            version ? version : "(null)", expected);
    failures++;
  }
  if (!zeno || zeno[0] == '\0') {
    fprintf(stderr, "consumer: nh_status_string(NH_ZENO) is empty\n");
    failures++;
  }
  if (nh_method_find("rk4") == NULL) {
    fprintf(stderr, "consumer: nh_method_find(\"rk4\") is NULL\n");
    failures++;
  }
  if (nh_method_count() < 3) {
    fprintf(stderr, "consumer: nh_method_count() is %d, expected at least 3\n", nh_method_count());
    failures++;
  }
  for (int i = 2; i < argc; i++) {
    char info[1200];
    int ok = nh_component_load(argv[i], info, sizeof info);
    printf("component %s: %s\n", argv[i], info);
    if (ok != 1 || !strstr(info, argv[1])) {
      fprintf(stderr, "consumer: component %s is not loaded from under %s\n", argv[i], argv[1]);
      failures++;
    }
  }
  return failures == 0 ? 0 : 1;
}
