/* tape.h - compiled evaluation of expression DAGs: a set of outputs (the entries of M(q),
 * A(q), gradients, ...) becomes one linear tape of instructions over a slot array. Each
 * node reachable from the outputs is computed once, in topological order, so a subexpression
 * shared in the DAG (hash-consing makes every repeated subexpression shared) is one slot:
 * this is the common-subexpression elimination. Evaluation allocates nothing and gives the
 * same bits as nh_expr_eval (both use nh_expr_op). Private to the library. */
#ifndef NH_EXPR_TAPE_H
#define NH_EXPR_TAPE_H

#include "expr/expr.h"

typedef struct nh_tape nh_tape;

/* Compile outputs[0..nout) (node ids of pool). The tape is independent of the pool
 * afterwards. NULL when out of memory or an id is invalid. */
nh_tape *nh_tape_create(const nh_expr_pool *pool, int nout, const int *outputs);
void nh_tape_destroy(nh_tape *tape);

int nh_tape_nslots(const nh_tape *tape);   /* doubles needed in slots */
int nh_tape_noutputs(const nh_tape *tape); /* nout */
int nh_tape_nvars(const nh_tape *tape);    /* 1 + largest variable index read (0: none) */
/* Arithmetic and function operations per evaluation (loads of constants and variables
 * excluded). */
int nh_tape_op_count(const nh_tape *tape);

/* Instruction i (0 <= i < nh_tape_nslots): its kind, operand slots a and b (unary kinds
 * repeat a), variable index or exponent k, constant c; and the slot of output i. For
 * emitting code from a tape. */
void nh_tape_ins(const nh_tape *tape, int i, int *kind, int *a, int *b, int *k, double *c);
int nh_tape_out_slot(const nh_tape *tape, int i);

/* outputs[i] = value of outputs[i] of nh_tape_create at vars (nh_tape_nvars entries);
 * slots is caller scratch of nh_tape_nslots doubles. No allocation. */
void nh_tape_eval(const nh_tape *tape, const double *vars, double *slots, double *outputs);

#endif
