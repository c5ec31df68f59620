/* distributed.h - data-parallel training over the processes (ranks)
 * that mpirun starts (step 61): each rank learns from its share of every
 * batch, and the ranks add up their gradients with Open MPI's
 * MPI_Allreduce, so that every rank makes the same update. Run without
 * mpirun, the program is one rank of one, and nothing here touches MPI.
 *
 *     dist_init();                        // before anything random
 *     dist_seed_from_env("DEZERO_SEED");  // the same on every rank
 *     ...
 *     dist_share(t->size, &start, &stop); // this rank's rows
 *     ...backward on them...
 *     dist_allreduce_grads(model, share); // the whole batch's gradient
 *     ...
 *     dist_finalize();
 *
 * Open MPI is opened at run time (dlopen), as common/gpu.c opens the
 * GPU library, and only under mpirun: a program that is not started by
 * it never needs the library, and one that is, on a machine without
 * it, stops with a message saying what to install. */
#ifndef DISTRIBUTED_H
#define DISTRIBUTED_H

#include <stdint.h>

#include "dezero.h"

/* Joins the ranks when the program was started by mpirun (Open MPI's
 * OMPI_COMM_WORLD_SIZE is set): opens libmpi.so.40, or the library
 * $DEZERO_MPI_LIBRARY names, and calls MPI_Init. Otherwise the program
 * is rank 0 of 1. Stops with an error when MPI is wanted and cannot be
 * loaded. Call it once, first. */
void dist_init(void);
/* This process's rank, from 0, and how many there are (1 without
 * mpirun). */
int dist_rank(void);
int dist_size(void);
/* Leaves MPI (MPI_Finalize); nothing without mpirun. */
void dist_finalize(void);

/* Seeds the generator of every rank alike: with $name's value where it
 * is set on rank 0 (nd_random_seed_from_env), else with a seed rank 0
 * draws, sent to the others (MPI_Bcast). So every rank draws the same
 * weights and the same order of the data. One rank: exactly
 * nd_random_seed_from_env(name). */
void dist_seed_from_env(const char *name);

/* This rank's rows of a batch of n: [*start, *stop), the n rows cut in
 * dist_size() runs of n / size or one more. Stops with an error when n
 * is smaller than the number of ranks (a rank would get no rows). */
void dist_share(int64_t n, int64_t *start, int64_t *stop);
/* The same for any rank of any count, for the tests: the error names
 * who ("mpirun -np 101"). */
void dist_share_of(int rank, int size, int64_t n, int64_t *start,
                   int64_t *stop);

/* Turns each parameter's gradient of model, the gradient of the mean
 * loss over this rank's rows, into the gradient of the whole batch's
 * mean loss: multiplied by weight (this rank's rows / the batch's) and
 * summed over the ranks with one MPI_Allreduce of every gradient,
 * packed as float32. A gradient on the GPU goes through host memory.
 * Every rank then holds the same gradients. Nothing with one rank. */
void dist_allreduce_grads(Layer *model, double weight);

/* x summed over the ranks (x itself with one rank). */
double dist_sum(double x);

/* Seconds spent in MPI_Allreduce so far, on this rank. */
double dist_allreduce_seconds(void);

#endif /* DISTRIBUTED_H */
