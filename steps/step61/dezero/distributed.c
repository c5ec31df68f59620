/* distributed.c - data parallelism over MPI ranks (distributed.h):
 * Open MPI opened with dlopen under mpirun, a batch cut into the ranks'
 * shares, and the gradients summed over the ranks with MPI_Allreduce. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "distributed.h"

/* Open MPI's handles are pointers to its predefined objects (mpi.h:
 * MPI_COMM_WORLD is &ompi_mpi_comm_world), so an object's address, from
 * dlsym, is its handle; MPI_IN_PLACE is (void *)1 and MPI_SUCCESS 0.
 * This is Open MPI's ABI, not MPICH's, whose handles are integers. */
typedef void *MpiHandle;
#define MPI_IN_PLACE ((void *)1)

static struct {
    int (*Init)(int *argc, char ***argv);
    int (*Finalize)(void);
    int (*Comm_rank)(MpiHandle comm, int *rank);
    int (*Comm_size)(MpiHandle comm, int *size);
    int (*Bcast)(void *buffer, int count, MpiHandle type, int root,
                 MpiHandle comm);
    int (*Allreduce)(const void *send, void *receive, int count,
                     MpiHandle type, MpiHandle op, MpiHandle comm);
    MpiHandle world, float32, float64, uint32, sum;
} mpi;

static int rank, size = 1;
static bool joined;
static double reduce_seconds;

/* The symbol name of library, or an error saying which is missing. */
static void *symbol(void *library, const char *path, const char *name)
{
    void *p = dlsym(library, name);
    if (!p)
        nd_error("dist_init", "%s has no %s: is it Open MPI's libmpi?",
                 path, name);
    return p;
}

static void check(int status, const char *call)
{
    if (status != 0)
        nd_error("dist", "%s failed with MPI error %d", call, status);
}

static void load_mpi(void)
{
    const char *path = getenv("DEZERO_MPI_LIBRARY");
    if (!path || !*path)
        path = "libmpi.so.40";
    // RTLD_GLOBAL: the plugins Open MPI opens in turn look its symbols
    // up in the program.
    void *library = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!library)
        nd_error("dist_init", "started by mpirun, but Open MPI's library "
                 "cannot be loaded (%s); install it with: sudo apt-get "
                 "install openmpi-bin libopenmpi-dev", dlerror());
    *(void **)&mpi.Init = symbol(library, path, "MPI_Init");
    *(void **)&mpi.Finalize = symbol(library, path, "MPI_Finalize");
    *(void **)&mpi.Comm_rank = symbol(library, path, "MPI_Comm_rank");
    *(void **)&mpi.Comm_size = symbol(library, path, "MPI_Comm_size");
    *(void **)&mpi.Bcast = symbol(library, path, "MPI_Bcast");
    *(void **)&mpi.Allreduce = symbol(library, path, "MPI_Allreduce");
    mpi.world = symbol(library, path, "ompi_mpi_comm_world");
    mpi.float32 = symbol(library, path, "ompi_mpi_float");
    mpi.float64 = symbol(library, path, "ompi_mpi_double");
    mpi.uint32 = symbol(library, path, "ompi_mpi_uint32_t");
    mpi.sum = symbol(library, path, "ompi_mpi_op_sum");
}

void dist_init(void)
{
    const char *launched = getenv("OMPI_COMM_WORLD_SIZE");
    if (!launched || !*launched || joined)
        return;
    load_mpi();
    check(mpi.Init(NULL, NULL), "MPI_Init");
    joined = true;
    check(mpi.Comm_rank(mpi.world, &rank), "MPI_Comm_rank");
    check(mpi.Comm_size(mpi.world, &size), "MPI_Comm_size");
}

int dist_rank(void) { return rank; }
int dist_size(void) { return size; }

void dist_finalize(void)
{
    if (joined)
        check(mpi.Finalize(), "MPI_Finalize");
    joined = false;
}

void dist_seed_from_env(const char *name)
{
    bool seeded = rank == 0 && nd_random_seed_from_env(name);
    if (size == 1)
        return;
    uint32_t seed = 0;
    if (seeded) {
        seed = (uint32_t)strtoul(getenv(name), NULL, 10);
    } else if (rank == 0 &&
               getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
        seed = (uint32_t)time(NULL);
    }
    check(mpi.Bcast(&seed, 1, mpi.uint32, 0, mpi.world), "MPI_Bcast");
    if (!seeded)
        nd_random_seed(seed);
}

void dist_share_of(int r, int n_ranks, int64_t n, int64_t *start,
                   int64_t *stop)
{
    if (n < n_ranks)
        nd_error("dist_share", "mpirun -np %d: a batch of %lld rows "
                 "cannot be shared by %d ranks; run at most %lld",
                 n_ranks, (long long)n, n_ranks, (long long)n);
    *start = n * r / n_ranks;
    *stop = n * (r + 1) / n_ranks;
}

void dist_share(int64_t n, int64_t *start, int64_t *stop)
{
    dist_share_of(rank, size, n, start, stop);
}

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static void allreduce(void *buffer, int64_t count, MpiHandle type)
{
    double start = seconds_now();
    if (count > INT32_MAX)
        nd_error("dist_allreduce", "%lld values: more than one "
                 "MPI_Allreduce takes", (long long)count);
    check(mpi.Allreduce(MPI_IN_PLACE, buffer, (int)count, type, mpi.sum,
                        mpi.world), "MPI_Allreduce");
    reduce_seconds += seconds_now() - start;
}

/* A parameter's gradient, borrowed, once checked: it must be there, and
 * float32, the type that is sent. */
static NdArray *grad_of(Parameter *p)
{
    Variable *grad = p->variable.grad;
    if (!grad)
        nd_error("dist_allreduce_grads", "a parameter has no gradient: "
                 "call backward first");
    if (grad->data->dtype != ND_FLOAT32)
        nd_error("dist_allreduce_grads", "gradients of %s: only float32 "
                 "is sent", nd_dtype_name(grad->data->dtype));
    return grad->data;
}

void dist_allreduce_grads(Layer *model, double weight)
{
    if (size == 1)
        return;
    int64_t total = 0;
    ParamIter it = layer_params(model);
    for (Parameter *p; (p = param_next(&it));)
        total += grad_of(p)->size;
    float *packed = malloc((size_t)(total ? total : 1) * sizeof *packed);
    if (!packed)
        nd_error("dist_allreduce_grads", "out of memory for %lld "
                 "gradients", (long long)total);
    int64_t at = 0;
    it = layer_params(model);
    for (Parameter *p; (p = param_next(&it));) {
        NdArray *g = nd_to_device(grad_of(p), ND_CPU);
        for (int64_t i = 0; i < g->size; i++)
            packed[at + i] = (float)(ND_DATA(g, float)[i] * weight);
        at += g->size;
        nd_release(g);
    }
    allreduce(packed, total, mpi.float32);
    at = 0;
    it = layer_params(model);
    for (Parameter *p; (p = param_next(&it));) {
        NdArray *old = p->variable.grad->data;
        NdArray *sum = nd_empty(ND_FLOAT32, old->ndim, old->shape);
        memcpy(sum->data, packed + at, (size_t)sum->size * sizeof *packed);
        at += sum->size;
        // A new array: the old one may be shared with another variable.
        p->variable.grad->data = nd_to_device(sum, old->device);
        nd_release(sum);
        nd_release(old);
    }
    free(packed);
}

double dist_sum(double x)
{
    if (size > 1)
        allreduce(&x, 1, mpi.float64);
    return x;
}

double dist_allreduce_seconds(void) { return reduce_seconds; }
