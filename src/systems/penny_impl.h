/* penny_impl.h - the penny's count of closed-form flow evaluations (private: the benchmarks). */
#ifndef NH_PENNY_IMPL_H
#define NH_PENNY_IMPL_H

/* Evaluations of the penny's closed-form flow made on the calling thread so far, over every
 * penny model: each call of its flow (a step of the exact method) and each point of the flow
 * the event predictor evaluates (gaps and their time derivatives at one time; the start of a
 * flight included). A count of work that does not depend on the machine: the difference over
 * a run, divided by its impacts, is the flow evaluations per impact. */
long nh_penny_flow_evals(void);

#endif
