/* text.c - a growing string (text.h). */
#include "expr/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NH_TEXT_FIRST_CAP 16384 /* bytes of the first buffer (a small model's generated C) */

/* room for `more` bytes and the NUL after n; 0 when out of memory */
static int reserve(nh_text *b, size_t more) {
  if (b->nomem) return 0;
  if (b->s && b->n + more < b->cap) return 1;
  size_t cap = b->cap ? 2 * b->cap : NH_TEXT_FIRST_CAP;
  while (cap <= b->n + more) cap *= 2;
  char *s = realloc(b->s, cap);
  if (!s) {
    b->nomem = 1;
    return 0;
  }
  b->s = s, b->cap = cap;
  return 1;
}

static void put(nh_text *b, const char *s, size_t len) {
  if (!reserve(b, len)) return;
  memcpy(b->s + b->n, s, len);
  b->n += len;
  b->s[b->n] = '\0';
}

/* whether fmt uses only the conversions the fast path writes itself: %d, %ld, %s, %% */
static int simple_format(const char *fmt) {
  for (const char *p = strchr(fmt, '%'); p; p = strchr(p, '%')) {
    p++;
    if (*p == 'l') p++;
    if (*p != 'd' && *p != 's' && *p != '%') return 0;
    p++;
  }
  return 1;
}

/* the generated code prints a great many short pieces: integers and strings are written here,
 * without vsnprintf's set-up per call (a third of a model file's load was spent in it); any
 * other conversion goes to vsnprintf */
void nh_text_printf(nh_text *b, const char *fmt, ...) {
  if (b->nomem) return;
  va_list ap;
  if (simple_format(fmt)) {
    va_start(ap, fmt);
    for (const char *p = fmt; *p;) {
      const char *q = strchr(p, '%');
      if (!q) {
        put(b, p, strlen(p));
        break;
      }
      put(b, p, (size_t)(q - p));
      q++;
      int is_long = *q == 'l';
      q += is_long;
      if (*q == '%') {
        put(b, "%", 1);
      } else if (*q == 's') {
        const char *s = va_arg(ap, const char *);
        put(b, s, strlen(s));
      } else { /* d, ld */
        long v = is_long ? va_arg(ap, long) : (long)va_arg(ap, int);
        char digits[24];
        int k = (int)sizeof digits;
        unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
        do digits[--k] = (char)('0' + u % 10); while (u /= 10);
        if (v < 0) digits[--k] = '-';
        put(b, digits + k, sizeof digits - (size_t)k);
      }
      p = q + 1;
    }
    va_end(ap);
    if (!b->s) put(b, "", 0);
    return;
  }
  for (;;) {
    va_start(ap, fmt);
    int w = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (w < 0) return;
    if (b->s && (size_t)w < b->cap - b->n) {
      b->n += (size_t)w;
      return;
    }
    if (!reserve(b, (size_t)w)) return;
  }
}
