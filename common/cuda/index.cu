/* index.cu - a[index] (gather) and np.add.at (scatter-add with atomics)
 * for a plan made on the host; nd_index_offset in nd_gpu.h, shared with
 * the CPU tests, finds each element. An index out of range is reported,
 * not wrapped: scatter-add reads its record back before it adds;
 * gather, and check_range, keep theirs in the pending record, which
 * the host takes when it next reads from the device (take_pending), so
 * that a batch's checks make it wait for nothing. */
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

/* ------------------------------------------------------------ pending */

/* The pending record, and the first failing position of the check in
 * flight: each checking kernel lowers first with atomicMin, and a
 * one-thread kernel queued after it writes the record (unless it holds
 * one already) and sets first back. In device memory, made at the
 * first check. */
struct Pending {
    NdGpuPending record;
    unsigned long long first;
};
static Pending *pending;
static const unsigned long long kNone = ~0ull;

static int open_pending()
{
    if (pending)
        return 0;
    Pending *p = (Pending *)pool_alloc(sizeof *p);
    if (!p)
        return -1;
    Pending empty = {};
    empty.first = kNone;
    if (upload(p, &empty, sizeof empty) != 0) {     /* once a process */
        pool_free(p);
        return -1;
    }
    pending = p;
    return 0;
}

void release_pending()
{
    if (pending)
        pool_free(pending);
    pending = nullptr;
}

__device__ inline void note_first(Pending *p, int64_t i)
{
    atomicMin(&p->first, (unsigned long long)i);
}

/* gather's record: the plan's element p->first, found again. */
__global__ void gather_report(Pending *p, NdGpuIndexPlan plan, int tag)
{
    if (p->first == kNone)
        return;
    if (!p->record.found) {
        int k = 0;
        int64_t index = 0;
        nd_index_offset(&plan, (int64_t)p->first, &k, &index);
        p->record = {1, tag, plan.arrays[k - 1].axis, index,
                     (int64_t)p->first, plan.arrays[k - 1].axis_size};
    }
    p->first = kNone;
}

int take_pending(NdGpuPending *out)
{
    *out = NdGpuPending{};
    if (!pending)
        return 0;
    int status = download(out, &pending->record, sizeof *out);
    if (status == 0 && out->found)
        status = check(cudaMemsetAsync(&pending->record, 0,
                                       sizeof pending->record, 0),
                       "cudaMemsetAsync");
    return status;
}

/* ------------------------------------------------------------ checks */

template <class T>
__global__ void range_kernel(const T *a, int64_t n, int64_t lo, int64_t hi,
                             Pending *p)
{
    ND_GPU_FOR(i, n)
        if ((int64_t)a[i] < lo || (int64_t)a[i] >= hi)
            note_first(p, i);
}

template <class T>
__global__ void range_report(const T *a, int64_t hi, int tag, Pending *p)
{
    if (p->first == kNone)
        return;
    if (!p->record.found)
        p->record = {1, tag, -1, (int64_t)a[p->first], (int64_t)p->first,
                     hi};
    p->first = kNone;
}

template <class T>
static int check_range_as(const NdArray *a, int64_t lo, int64_t hi, int tag)
{
    int status = launch_kernel("check_range", blocks_for(a->size),
                               kThreads, range_kernel<T>,
                               (const T *)a->data, a->size, lo, hi,
                               pending);
    if (status == 0)
        status = launch_kernel("check_range report", 1, 1, range_report<T>,
                               (const T *)a->data, hi, tag, pending);
    return status;
}

int check_range(const NdArray *a, int64_t lo, int64_t hi, int tag)
{
    if (a->dtype != ND_INT64 && a->dtype != ND_UINT8)
        return fail("check_range: int64 or uint8 entries only, not %s",
                    dtype_name(a->dtype));
    if (a->size == 0)
        return 0;
    if (open_pending() != 0)
        return -1;
    return a->dtype == ND_UINT8
               ? check_range_as<uint8_t>(a, lo, hi, tag)
               : check_range_as<int64_t>(a, lo, hi, tag);
}

/* ------------------------------------------------------------ gather */

template <class E>
__global__ void gather_kernel(E *out, const E *a, NdGpuIndexPlan plan,
                              Pending *p)
{
    ND_GPU_FOR(i, plan.size) {
        int k = 0;
        int64_t index = 0;
        int64_t offset = nd_index_offset(&plan, i, &k, &index);
        if (offset < 0)
            note_first(p, i);
        else
            out[i] = a[offset];
    }
}

struct alignas(16) Element16 {
    uint64_t lo, hi;
};

template <class E>
static int gather_as(NdArray *out, const NdArray *a,
                     const NdGpuIndexPlan *plan)
{
    return launch_kernel("gather", blocks_for(plan->size), kThreads,
                         gather_kernel<E>, (E *)out->data,
                         (const E *)a->data, *plan, pending);
}

int gather(NdArray *out, const NdArray *a, const NdGpuIndexPlan *plan,
           int tag)
{
    if (plan->size == 0)
        return 0;
    if (open_pending() != 0)
        return -1;
    int status;
    switch (dtype_size(a->dtype)) {
    case 1: status = gather_as<uint8_t>(out, a, plan); break;
    case 4: status = gather_as<uint32_t>(out, a, plan); break;
    case 8: status = gather_as<uint64_t>(out, a, plan); break;
    default: status = gather_as<Element16>(out, a, plan); break;
    }
    if (status == 0 && plan->narrays > 0)
        status = launch_kernel("gather report", 1, 1, gather_report,
                               pending, *plan, tag);
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
