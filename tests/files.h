/* files.h - what the tests that write files share: a scratch directory (g_dir), paths in it,
 * and checks of the atomic write (no temporary left) and of a file's signature. Included by
 * one test file each (static definitions). */
#ifndef NH_TEST_FILES_H
#define NH_TEST_FILES_H

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* In AddressSanitizer builds (NHOLO_SANITIZE): fontconfig, which PLplot's cairo drivers use
 * through pango, keeps its font cache until exit; LeakSanitizer would report it. */
#if defined(__SANITIZE_ADDRESS__)
#define NH_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NH_TEST_ASAN 1
#endif
#endif
#ifdef NH_TEST_ASAN
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
  return "leak:libfontconfig\nleak:libpango\nleak:libcairo\nleak:libglib\n";
}
#endif

static char g_dir[512];

static const char *out_path(const char *name) {
  static char buf[8][1024];
  static int slot;
  char *p = buf[slot++ % 8];
  snprintf(p, sizeof buf[0], "%s/%s", g_dir, name);
  return p;
}

/* the path of stem.png, stem.svg or stem.pdf (i = 0, 1, 2) in the scratch directory */
static const char *format_path(const char *stem, int i) {
  static const char *const exts[] = {"png", "svg", "pdf"};
  char name[64];
  snprintf(name, sizeof name, "%s.%s", stem, exts[i]);
  return out_path(name);
}

static int file_exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

static int tmp_exists(const char *path) {
  char tmp[1100];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  return file_exists(tmp);
}

/* Number of entries of g_dir whose name contains ".tmp." */
static int count_temporaries(void) {
  DIR *d = opendir(g_dir);
  if (!d) return -1;
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (strstr(e->d_name, ".tmp.")) count++;
  closedir(d);
  return count;
}

/* whether the file begins with the len bytes of sig */
static int starts_with(const char *path, const char *sig, size_t len) {
  char buf[64];
  FILE *fp = fopen(path, "rb");
  if (!fp) return 0;
  size_t n = fread(buf, 1, sizeof buf, fp);
  fclose(fp);
  return n >= len && memcmp(buf, sig, len) == 0;
}

/* a written plot: in place, no temporary left, with its format's signature (needs harness.h) */
static int check_plot_file(const char *path) {
  const char *ext = strrchr(path, '.');
  ENSURE(ext != NULL);
  ENSURE(file_exists(path) && !tmp_exists(path));
  if (strcmp(ext, ".png") == 0) ENSURE(starts_with(path, "\x89PNG\r\n\x1a\n", 8));
  if (strcmp(ext, ".svg") == 0)
    ENSURE(starts_with(path, "<?xml", 5) || starts_with(path, "<svg", 4));
  if (strcmp(ext, ".pdf") == 0) ENSURE(starts_with(path, "%PDF-", 5));
  return 0;
}

/* make the scratch directory $TMPDIR/nholo_<name>_XXXXXX (or under /tmp); 0 on success */
static int files_init(const char *name) {
  const char *base = getenv("TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s/nholo_%s_XXXXXX", base && base[0] ? base : "/tmp", name);
  if (mkdtemp(g_dir)) return 0;
  printf("cannot create a temporary directory: %s\n", strerror(errno));
  return -1;
}

/* remove the scratch directory and what is in it */
static void cleanup_dir(void) {
  DIR *d = opendir(g_dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char p[1100];
    snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
    if (remove(p) != 0) rmdir(p);
  }
  closedir(d);
  rmdir(g_dir);
}

/* at the end: keep the scratch directory when NH_TEST_KEEP is set (and say where), else
 * remove it */
static void files_finish(void) {
  const char *keep = getenv("NH_TEST_KEEP");
  if (keep && keep[0] && strcmp(keep, "0") != 0)
    printf("outputs kept in %s\n", g_dir);
  else
    cleanup_dir();
}

#endif
