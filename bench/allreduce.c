/* allreduce.c - the cost of step 61's MPI_Allreduce alone, for
 * bench/mpi.sh: the sum of 795,010 float32 (3.2 MB, step 52's MLP's
 * gradients) over the ranks, in place, as dist_allreduce_grads makes
 * it, ROUNDS times, each after an MPI_Barrier so that no rank waits for
 * another's compute. Run under mpirun; rank 0 prints the median and the
 * smallest time of a call, in milliseconds:
 *
 *     allreduce 3.2 MB, 2 ranks: median 1.234 ms, min 1.100 ms
 *
 * Built with mpicc (Open MPI's compiler wrapper). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { COUNT = 795010, ROUNDS = 200 };

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    float *gradients = malloc(COUNT * sizeof *gradients);   // (795010,)
    static double seconds[ROUNDS];
    if (!gradients)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < COUNT; i++)
        gradients[i] = 1e-6f * (float)(i % 1000);
    for (int r = -5; r < ROUNDS; r++) {     // 5 rounds to warm up
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        MPI_Allreduce(MPI_IN_PLACE, gradients, COUNT, MPI_FLOAT, MPI_SUM,
                      MPI_COMM_WORLD);
        if (r >= 0)
            seconds[r] = MPI_Wtime() - start;
        for (int i = 0; i < COUNT; i++)   // keep the values small
            gradients[i] *= 1.0f / (float)size;
    }
    if (rank == 0) {
        qsort(seconds, ROUNDS, sizeof *seconds, by_value);
        printf("allreduce %.1f MB, %d ranks: median %.3f ms, min %.3f ms\n",
               COUNT * 4.0 / 1e6, size, seconds[ROUNDS / 2] * 1e3,
               seconds[0] * 1e3);
    }
    free(gradients);
    MPI_Finalize();
    return 0;
}
