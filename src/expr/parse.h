/* parse.h - recursive-descent parser of the expression language of model files (issue 3)
 * into an nh_expr_pool, with diagnostics that name the line and column and say what was
 * expected. Private to the library.
 *
 * Names are resolved by the caller: the parser knows the functions (sin ... abs, atan2)
 * and `pi`; every other identifier, primed (x') or not, goes to an nh_parse_lookup
 * callback, which maps it to a node (a variable for a coordinate, a velocity, t or a
 * parameter; a previously built node for a `let` name) or reports it unknown. */
#ifndef NH_EXPR_PARSE_H
#define NH_EXPR_PARSE_H

#include <stddef.h>

#include "expr/expr.h"

/* What a lookup callback found. */
typedef enum nh_sym_result {
  NH_SYM_UNKNOWN = 0,   /* "unknown symbol 'zz'" */
  NH_SYM_VAR = 1,       /* *out is a variable index */
  NH_SYM_NODE = 2,      /* *out is a node id of the pool */
  NH_SYM_NOT_COORD = 3, /* primed, but the name is not a coordinate */
  /* for a call-like symbol "F(ARG)" (a name F that is not a function, one name ARG): */
  NH_SYM_BAD_ARG = 4,   /* "unknown name 'ARG' in F(ARG)" */
  NH_SYM_NOT_HERE = 5,  /* "F(ARG) cannot be used in this statement" */
} nh_sym_result;

/* Resolve name (NUL-terminated); primed is 1 for name'. Besides names, the callback is asked
 * about F(ARG) (passed as the text "F(ARG)") when F is not a known function and its one
 * argument is a name: NH_SYM_VAR makes it a variable, NH_SYM_UNKNOWN an unknown function. Returns an nh_sym_result. */
typedef int (*nh_parse_lookup)(void *user, const char *name, int primed, int *out);

/* A parse error: 1-based line and column of the offending token and the message. */
typedef struct nh_parse_error {
  int line, col;
  char msg[200];
} nh_parse_error;

/* Longest identifier accepted. */
#define NH_PARSE_NAME_MAX 63

/* Parse the expression in src[0..len) into *out. line and col (1-based) are the position of
 * src[0] in its file, so that errors are reported in file coordinates. '#' ends the text
 * (a comment); newlines inside src[0..len) are white space and error positions count them,
 * so a span may cover a statement continued over several lines. When end is NULL the whole text must be one expression; otherwise parsing
 * stops before the first token that cannot continue the expression ("=", ",", a name after
 * a complete expression, ...) and *end receives its offset in src. Returns 0 (NH_OK),
 * NH_ERR_PARSE with *err filled, or NH_ERR_NOMEM. Limits: nesting (parentheses, unary
 * minus, powers) 200 deep, 10000 binary operators, names of NH_PARSE_NAME_MAX bytes. */
int nh_parse_expr(nh_expr_pool *pool, const char *src, size_t len, int line, int col,
                  nh_parse_lookup lookup, void *user, int *out, size_t *end,
                  nh_parse_error *err);

/* Format err as "FILE:LINE:COL: error: MESSAGE\n" followed by line err->line of text (the
 * whole source) and a caret line under the column ("    ^"; tabs of the source line are
 * kept so the caret lines up). file may be NULL ("<input>"). Like snprintf: returns the
 * full length, writes at most size bytes including the NUL. */
size_t nh_parse_error_format(char *buf, size_t size, const char *file, const char *text,
                             const nh_parse_error *err);

#endif
