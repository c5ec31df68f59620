/* index.cu - a[index] (gather) and np.add.at (scatter-add with atomics)
 * for a plan made on the host; nd_index_offset in nd_gpu.h, shared with
 * the CPU tests, finds each element. An index out of range is reported,
 * not wrapped: the first one a thread meets is recorded. */
#include "gpu.cuh"

namespace ndg {

/* What a kernel writes back about a bad index. */
struct BadIndex {
    int found;          /* the plan's array k + 1, or 0 */
    int64_t index;
};

__device__ inline void record(BadIndex *bad, int k, int64_t index)
{
    if (atomicCAS(&bad->found, 0, k) == 0)
        bad->index = index;
}

/* Copies the device record into err, with the axis it concerns. */
static int report(const BadIndex *device_bad, const NdGpuIndexPlan *plan,
                  NdGpuIndexError *err)
{
    BadIndex bad;
    int status = download(&bad, device_bad, sizeof bad);
    *err = NdGpuIndexError{};
    if (status == 0 && bad.found) {
        const NdGpuIndexArray *ix = &plan->arrays[bad.found - 1];
        err->found = 1;
        err->axis = ix->axis;
        err->index = bad.index;
        err->axis_size = ix->axis_size;
    }
    return status;
}

static BadIndex *new_record(int *status)
{
    BadIndex *bad = (BadIndex *)pool_alloc(sizeof(BadIndex));
    if (!bad) {
        *status = -1;
        return nullptr;
    }
    /* zeroed in order with the kernels, without the wait for the
     * queued work that a copy from the host's memory would make */
    *status = check(cudaMemsetAsync(bad, 0, sizeof *bad, 0),
                    "cudaMemsetAsync");
    return bad;
}

/* ------------------------------------------------------------ gather */

template <class E>
__global__ void gather_kernel(E *out, const E *a, NdGpuIndexPlan plan,
                              BadIndex *bad)
{
    ND_GPU_FOR(i, plan.size) {
        int k = 0;
        int64_t index = 0;
        int64_t offset = nd_index_offset(&plan, i, &k, &index);
        if (offset < 0)
            record(bad, k, index);
        else
            out[i] = a[offset];
    }
}

struct alignas(16) Element16 {
    uint64_t lo, hi;
};

template <class E>
static int gather_as(NdArray *out, const NdArray *a,
                     const NdGpuIndexPlan *plan, BadIndex *bad)
{
    if (plan->size == 0)
        return 0;
    return launch_kernel("gather", blocks_for(plan->size), kThreads,
                         gather_kernel<E>, (E *)out->data,
                         (const E *)a->data, *plan, bad);
}

int gather(NdArray *out, const NdArray *a, const NdGpuIndexPlan *plan,
           NdGpuIndexError *err)
{
    int status = 0;
    BadIndex *bad = new_record(&status);
    if (status == 0) {
        switch (dtype_size(a->dtype)) {
        case 1: status = gather_as<uint8_t>(out, a, plan, bad); break;
        case 4: status = gather_as<uint32_t>(out, a, plan, bad); break;
        case 8: status = gather_as<uint64_t>(out, a, plan, bad); break;
        default: status = gather_as<Element16>(out, a, plan, bad); break;
        }
    }
    if (status == 0)
        status = report(bad, plan, err);
    if (bad)
        pool_free(bad);
    return status;
}

/* ------------------------------------------------------------ add.at */

/* *p += v, atomically. Bytes (uint8, and bool whose "+" is "or") are
 * updated through the aligned 32-bit word that holds them. */
__device__ inline void atomic_add(float *p, float v) { atomicAdd(p, v); }
__device__ inline void atomic_add(double *p, double v) { atomicAdd(p, v); }

__device__ inline void atomic_add(int64_t *p, int64_t v)
{
    atomicAdd((unsigned long long *)p, (unsigned long long)v);
}

__device__ inline void atomic_add(c64 *p, c64 v)
{
    atomicAdd((float *)p, v.real());
    atomicAdd((float *)p + 1, v.imag());
}

__device__ inline void atomic_add(c128 *p, c128 v)
{
    atomicAdd((double *)p, v.real());
    atomicAdd((double *)p + 1, v.imag());
}

__device__ inline void atomic_add(uint8_t *p, uint8_t v)
{
    unsigned *word = (unsigned *)((uintptr_t)p & ~(uintptr_t)3);
    unsigned shift = ((uintptr_t)p & 3) * 8;
    unsigned old = *word, seen;
    do {
        seen = old;
        unsigned byte = ((seen >> shift) + v) & 0xffu;
        old = atomicCAS(word, seen, (seen & ~(0xffu << shift)) |
                                        (byte << shift));
    } while (old != seen);
}

__device__ inline void atomic_add(bool *p, bool v)
{
    if (!v)
        return;
    unsigned *word = (unsigned *)((uintptr_t)p & ~(uintptr_t)3);
    atomicOr(word, 1u << (((uintptr_t)p & 3) * 8));
}

/* The first pass checks every index (nothing is added when one is out
 * of range, as in NumPy); the second adds. */
template <class T, bool kAdd>
__global__ void scatter_kernel(T *a, const T *values, Walk values_walk,
                               NdGpuIndexPlan plan, BadIndex *bad)
{
    ND_GPU_FOR(i, plan.size) {
        int k = 0;
        int64_t index = 0;
        int64_t offset = nd_index_offset(&plan, i, &k, &index);
        if (offset < 0)
            record(bad, k, index);
        else if (kAdd)
            atomic_add(a + offset, values[walk_offset(i, values_walk)]);
    }
}

int scatter_add(NdArray *a, const NdArray *values,
                const NdGpuIndexPlan *plan, NdGpuIndexError *err)
{
    NdArray selection = {};     /* the plan's shape; only that is read */
    selection.ndim = plan->ndim;
    for (int d = 0; d < plan->ndim; d++)
        selection.shape[d] = plan->shape[d];
    Walk vw = broadcast_walk(&selection, values);
    int status = 0;
    BadIndex *bad = new_record(&status);
    if (status == 0 && plan->size > 0)
        status = visit_dtype(a->dtype, [&](auto tag) {
            using T = typename decltype(tag)::type;
            unsigned blocks = blocks_for(plan->size);
            int s = launch_kernel("scatter check", blocks, kThreads,
                                  scatter_kernel<T, false>, (T *)a->data,
                                  (const T *)values->data, vw, *plan, bad);
            if (s == 0)
                s = report(bad, plan, err);
            if (s == 0 && !err->found)
                s = launch_kernel("scatter_add", blocks, kThreads,
                                  scatter_kernel<T, true>, (T *)a->data,
                                  (const T *)values->data, vw, *plan, bad);
            return s;
        });
    else if (status == 0)
        *err = NdGpuIndexError{};
    if (bad)
        pool_free(bad);
    return status;
}

} // namespace ndg
