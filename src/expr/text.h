/* text.h - a growing string, for generated code and reports (private). */
#ifndef NH_EXPR_TEXT_H
#define NH_EXPR_TEXT_H

#include <stddef.h>

typedef struct nh_text {
  char *s;    /* NUL-terminated once anything was written; free() it */
  size_t n, cap;
  int nomem;  /* set when an append ran out of memory (later appends do nothing) */
} nh_text;

/* Append printf-style. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void nh_text_printf(nh_text *b, const char *fmt, ...);

#endif
