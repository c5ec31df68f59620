/* parallel.c - runs the pieces of one large operation on one thread per
 * usable CPU. Threads are started for each call and joined before it
 * returns, so nothing is left running between operations (and nothing
 * for a leak checker to report). Starting one costs about 40 us here,
 * so callers use this only for work of a millisecond or so.
 * OpenBLAS keeps the one thread pool (CONTRIBUTING.md 9): ours never wait by
 * spinning, so they do not fight its workers for the CPUs. Measured on
 * 2 cores, a loop of a (100,784)@(784,1000) matmul then exp of 1M
 * doubles: threaded exp 0.64-0.69 ms a pass against 0.65-0.70 ms on
 * one thread, the matmul unchanged. Training batches (100x1000) stay
 * below every threshold that starts threads. */
#define _GNU_SOURCE             /* sched_getaffinity */
#include <pthread.h>
#include <sched.h>

#include "nd_internal.h"

enum { MAX_THREADS = 64 };

typedef struct Worker {
    NdWork work;
    void *context;
    int thread;
} Worker;

static void *run_worker(void *worker)
{
    Worker *w = worker;
    w->work(w->context, w->thread);
    return NULL;
}

void nd_parallel_run(NdWork work, void *context, int threads)
{
    pthread_t ids[MAX_THREADS];
    Worker workers[MAX_THREADS];
    bool started[MAX_THREADS] = {false};
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    for (int t = 1; t < threads; t++) {
        workers[t] = (Worker){work, context, t};
        started[t] = pthread_create(&ids[t], NULL, run_worker,
                                    &workers[t]) == 0;
    }
    work(context, 0);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(ids[t], NULL);
        else
            work(context, t);
    }
}

int nd_usable_cpus(void)
{
    cpu_set_t cpus;                 /* the CPUs this process may run on */
    if (sched_getaffinity(0, sizeof cpus, &cpus) != 0)
        return 1;
    int n = CPU_COUNT(&cpus);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
}
