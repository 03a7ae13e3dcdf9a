/* text.c - a growing string (text.h). */
#include "expr/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void nh_text_printf(nh_text *b, const char *fmt, ...) {
  if (b->nomem) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (w < 0) return;
    if (b->s && (size_t)w < b->cap - b->n) {
      b->n += (size_t)w;
      return;
    }
    size_t cap = 2 * b->cap + (size_t)w + 4096;
    char *s = realloc(b->s, cap);
    if (!s) {
      b->nomem = 1;
      return;
    }
    b->s = s, b->cap = cap;
  }
}
