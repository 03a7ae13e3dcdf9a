/* parfor.h - a parallel for over the indices 0 .. n-1 on POSIX threads (private). */
#ifndef NH_PARFOR_H
#define NH_PARFOR_H

/* most threads of one nh_par_for, and of the default count (nh_par_default_threads) */
#define NH_PAR_MAX_THREADS 4096

/* the work of index i on thread `thread` (0 .. threads-1; 0 is the caller's); nonzero stops
 * the loop (that value is nh_par_for's) */
typedef int (*nh_par_body)(long i, int thread, void *user);

/* body(i, thread, user) for every i in 0 .. n-1, each exactly once, on at most `threads`
 * threads: the caller is thread 0 and threads-1 others are created (none for threads <= 1)
 * and joined before the return. Dynamic schedule: a thread takes the next `grain` indices not
 * yet taken (a shared counter, so the indices are taken in increasing order), runs them in
 * order, and takes more. A body that returns nonzero stops the loop: no index starts after it
 * on its thread, nor on another once that thread sees the stop (before each index); the calls
 * under way finish. Returns 0 when every index ran, else the first nonzero value a body
 * returned. A thread that cannot be created leaves the work to the others (at worst to the
 * caller alone): the loop never fails for want of threads. Nothing is shared between the
 * calls of the body but `user`; what they write at their index is seen by the caller on
 * return. */
int nh_par_for(long n, int threads, long grain, nh_par_body body, void *user);

/* the default thread count: OMP_NUM_THREADS when it is set to a count (its first entry, as
 * OpenMP reads "4,2"), else the processors this thread may run on (its CPU affinity: a rank
 * that mpirun bound to cores gets those cores), else the online processors; 1 .. NH_PAR_MAX_THREADS */
int nh_par_default_threads(void);

#endif
