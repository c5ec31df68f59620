/* reduce.cu - sum, mean, max, min and argmax over any set of axes. The
 * axes are merged as NumPy's iterator merges them (size-1 axes dropped,
 * neighbours both reduced or both kept joined), then each result is
 * folded by one thread, or, for long reductions, by many blocks whose
 * partial results a second kernel folds (blocks of neighbouring results
 * when the innermost axis is kept, so that a warp's reads coalesce). */
#include <cuda/std/limits>

#include "gpu.cuh"

namespace ndg {

/* ------------------------------------------------------------ operations */

/* Each reduction: the dtypes it takes (the CPU half sums integers and
 * bools as int64, and averages them as float64), its accumulator, where
 * that starts, how an element (at reduced position r) enters it, how
 * two combine (in any order and grouping) and the result written for
 * count elements. */
template <class T> struct Sum {
    static constexpr bool takes = is_float<T> || is_complex<T> ||
                                  std::is_same<T, int64_t>::value;
    using Acc = T;
    using Out = T;
    __device__ static Acc identity() { return T(0); }
    __device__ static Acc load(T x, int64_t) { return x; }
    __device__ static Acc combine(Acc a, Acc b)
    {
        if constexpr (std::is_same<T, int64_t>::value)
            return (int64_t)((uint64_t)a + (uint64_t)b);   /* wraps */
        else
            return a + b;
    }
    __device__ static Out finish(Acc a, int64_t) { return a; }
};

/* np.mean: floats by a true division; complex numbers multiplied by the
 * reciprocal 1/count, as NumPy's complex division by count + 0j does. */
template <class T> struct Mean : Sum<T> {
    static constexpr bool takes = is_float<T> || is_complex<T>;
    __device__ static T finish(T a, int64_t count)
    {
        using R = typename RealOf<T>::type;
        R c = (R)count;
        if constexpr (is_complex<T>) {
            if (count == 0)
                return T(a.real() / c, a.imag() / c);
            return T(a.real() * (R(1) / c), a.imag() * (R(1) / c));
        } else {
            return a / c;
        }
    }
};

/* Where max and min start: the infinities, or the integer extremes. */
template <class T> using Limits = cuda::std::numeric_limits<T>;

template <class T> __device__ inline T lowest()
{
    if constexpr (is_float<T>) return -Limits<T>::infinity();
    else return Limits<T>::lowest();
}

template <class T> __device__ inline T highest()
{
    if constexpr (is_float<T>) return Limits<T>::infinity();
    else return Limits<T>::max();
}

/* A NaN wins, as in np.max. */
template <class T> struct Max {
    static constexpr bool takes = !is_complex<T>;
    using Acc = T;
    using Out = T;
    __device__ static Acc identity() { return lowest<T>(); }
    __device__ static Acc load(T x, int64_t) { return x; }
    __device__ static Acc combine(Acc a, Acc b)
    {
        return (b > a || b != b) ? b : a;
    }
    __device__ static Out finish(Acc a, int64_t) { return a; }
};

template <class T> struct Min {
    static constexpr bool takes = !is_complex<T>;
    using Acc = T;
    using Out = T;
    __device__ static Acc identity() { return highest<T>(); }
    __device__ static Acc load(T x, int64_t) { return x; }
    __device__ static Acc combine(Acc a, Acc b)
    {
        return (b < a || b != b) ? b : a;
    }
    __device__ static Out finish(Acc a, int64_t) { return a; }
};

/* The first maximum, or the first NaN: (value, position) pairs where
 * the larger value wins, a NaN beats any number, and ties go to the
 * smaller position. */
template <class T> struct ValueAt {
    T value;
    int64_t at;
};

template <class T> struct Argmax {
    static constexpr bool takes = !is_complex<T>;
    using Acc = ValueAt<T>;
    using Out = int64_t;
    __device__ static Acc identity() { return {lowest<T>(), INT64_MAX}; }
    __device__ static Acc load(T x, int64_t r) { return {x, r}; }
    __device__ static Acc combine(Acc a, Acc b)
    {
        bool a_nan = a.value != a.value, b_nan = b.value != b.value;
        if (a_nan != b_nan)
            return a_nan ? a : b;
        if (!a_nan && a.value != b.value)
            return b.value > a.value ? b : a;
        return b.at < a.at ? b : a;
    }
    __device__ static Out finish(Acc a, int64_t) { return a.at; }
};

/* ------------------------------------------------------------ plan */

/* The kept axes (walked by output index) and the reduced ones (walked
 * by reduced position), with a's element strides. */
struct Plan {
    Walk kept, reduced;
    int64_t nout, nreduced;
    bool last_kept;         /* a's innermost axis is kept: coalesced */
};

static Plan make_plan(const NdArray *a, unsigned axes)
{
    Plan p = {};
    int64_t strides[ND_MAX_DIMS], stride = 1;
    for (int d = a->ndim - 1; d >= 0; d--) {
        strides[d] = stride;
        stride *= a->shape[d];
    }
    int last = -1;          /* 1: the previous axis kept, 0: reduced */
    for (int d = 0; d < a->ndim; d++) {
        if (a->shape[d] == 1)
            continue;
        int keep = !(axes >> d & 1u);
        Walk &w = keep ? p.kept : p.reduced;
        if (last == keep) {             /* contiguous: join the axes */
            w.shape[w.ndim - 1] *= a->shape[d];
            w.strides[w.ndim - 1] = strides[d];
        } else {
            w.shape[w.ndim] = a->shape[d];
            w.strides[w.ndim++] = strides[d];
        }
        last = keep;
    }
    p.last_kept = last == 1;
    p.nout = p.nreduced = 1;
    for (int d = 0; d < p.kept.ndim; d++)
        p.nout *= p.kept.shape[d];
    for (int d = 0; d < p.reduced.ndim; d++)
        p.nreduced *= p.reduced.shape[d];
    return p;
}

__device__ inline int64_t reduced_offset(int64_t r, const Walk &w)
{
    return w.ndim == 1 ? r * w.strides[0] : walk_offset(r, w);
}

/* ------------------------------------------------------------ kernels */

/* The elements of the result at base whose reduced positions run from
 * first (included) to end (excluded) by step, folded. */
template <class Op, class T>
__device__ inline typename Op::Acc fold(const T *base, const Plan &p,
                                        int64_t first, int64_t end,
                                        int64_t step)
{
    typename Op::Acc acc = Op::identity();
    for (int64_t r = first; r < end; r += step)
        acc = Op::combine(acc, Op::load(base[reduced_offset(r, p.reduced)],
                                        r));
    return acc;
}

/* One thread per result. */
template <class Op, class T>
__global__ void reduce_threads(typename Op::Out *out, const T *in,
                               Plan p, int64_t count)
{
    ND_GPU_FOR(o, p.nout) {
        const T *base = in + walk_offset(o, p.kept);
        out[o] = Op::finish(fold<Op>(base, p, 0, p.nreduced, 1), count);
    }
}

/* split blocks per result, each folding one chunk of the reduced
 * positions into partial[o * split + chunk] (a tree in shared memory). */
template <class Op, class T>
__global__ void reduce_blocks(typename Op::Acc *partial, const T *in,
                              Plan p, int64_t split)
{
    using Acc = typename Op::Acc;
    __shared__ alignas(16) unsigned char bytes[kThreads * sizeof(Acc)];
    Acc *tree = reinterpret_cast<Acc *>(bytes);
    int64_t chunk = (p.nreduced + split - 1) / split;
    for (int64_t b = blockIdx.x; b < p.nout * split; b += gridDim.x) {
        int64_t o = b / split, first = b % split * chunk;
        int64_t end = first + chunk < p.nreduced ? first + chunk
                                                 : p.nreduced;
        const T *base = in + walk_offset(o, p.kept);
        tree[threadIdx.x] = fold<Op>(base, p, first + threadIdx.x, end,
                                     blockDim.x);
        __syncthreads();
        for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
            if (threadIdx.x < half)
                tree[threadIdx.x] = Op::combine(tree[threadIdx.x],
                                                tree[threadIdx.x + half]);
            __syncthreads();
        }
        if (threadIdx.x == 0)
            partial[b] = tree[0];
        __syncthreads();
    }
}

/* Reductions that keep the innermost axis, where neighbouring results
 * sit in neighbouring elements (a column sum): a block of kColumns x
 * kRowGroups threads takes kColumns neighbouring results, each thread
 * folding every kRowGroups-th reduced position of its chunk, so a warp
 * reads a row of kColumns elements at once; the row groups are folded
 * in shared memory into partial[o * split + chunk], chunk = blockIdx.y. */
constexpr int kColumns = 32, kRowGroups = kThreads / kColumns;

template <class Op, class T>
__global__ void reduce_columns(typename Op::Acc *partial, const T *in,
                               Plan p, int64_t split)
{
    using Acc = typename Op::Acc;
    __shared__ alignas(16) unsigned char bytes[kThreads * sizeof(Acc)];
    Acc *tree = reinterpret_cast<Acc *>(bytes);
    int64_t o = (int64_t)blockIdx.x * kColumns + threadIdx.x;
    int64_t chunk = (p.nreduced + split - 1) / split;
    int64_t first = blockIdx.y * chunk;
    int64_t end = first + chunk < p.nreduced ? first + chunk : p.nreduced;
    Acc acc = o < p.nout ? fold<Op>(in + walk_offset(o, p.kept), p,
                                    first + threadIdx.y, end, kRowGroups)
                         : Op::identity();
    tree[threadIdx.y * kColumns + threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && o < p.nout) {
        for (int g = 1; g < kRowGroups; g++)
            acc = Op::combine(acc, tree[g * kColumns + threadIdx.x]);
        partial[o * split + blockIdx.y] = acc;
    }
}

template <class Op>
__global__ void finish_partials(typename Op::Out *out,
                                const typename Op::Acc *partial,
                                int64_t nout, int64_t split, int64_t count)
{
    ND_GPU_FOR(o, nout) {
        typename Op::Acc acc = partial[o * split];
        for (int64_t c = 1; c < split; c++)
            acc = Op::combine(acc, partial[o * split + c]);
        out[o] = Op::finish(acc, count);
    }
}

/* Folds the partial results, (nout, split) of them, into out. */
template <class Op>
static int finish(typename Op::Out *out, typename Op::Acc *partial,
                  const Plan &p, int64_t split, int64_t count)
{
    return launch_kernel("finish_partials", blocks_for(p.nout), kThreads,
                         finish_partials<Op>, out, partial, p.nout, split,
                         count);
}

/* Short reductions go one thread per result. Those that keep the
 * innermost axis go kColumns results per block, their reduced positions
 * split in chunks over about 1024 blocks in all; the rest split each
 * result over blocks, about 1024 blocks in all too. */
template <class Op, class T>
static int run(typename Op::Out *out, const T *in, const Plan &p,
               int64_t count)
{
    if (p.nout == 0)
        return 0;
    if (p.nreduced <= 32) {
        return launch_kernel("reduce_threads", blocks_for(p.nout),
                             kThreads, reduce_threads<Op, T>, out, in, p,
                             count);
    }
    using Acc = typename Op::Acc;
    int64_t column_blocks = (p.nout + kColumns - 1) / kColumns;
    int64_t split;
    if (p.last_kept) {
        split = 1024 / column_blocks;
        int64_t most = p.nreduced / (4 * kRowGroups);
        split = split < most ? split : most;
        split = split < 65535 ? split : 65535;      /* grid.y's limit */
    } else {
        split = 1024 / p.nout;
        int64_t most = p.nreduced / 4096;
        split = split < most ? split : most;
    }
    split = split < 1 ? 1 : split;
    Acc *partial = (Acc *)pool_alloc((size_t)(p.nout * split) * sizeof(Acc));
    if (!partial)
        return -1;
    int status;
    if (p.last_kept) {
        dim3 threads(kColumns, kRowGroups);
        dim3 blocks((unsigned)column_blocks, (unsigned)split);
        status = launch_kernel("reduce_columns", blocks, threads,
                               reduce_columns<Op, T>, partial, in, p, split);
    } else {
        int64_t blocks = p.nout * split < 65536 ? p.nout * split : 65536;
        status = launch_kernel("reduce_blocks", (unsigned)blocks, kThreads,
                               reduce_blocks<Op, T>, partial, in, p, split);
    }
    if (status == 0)
        status = finish<Op>(out, partial, p, split, count);
    pool_free(partial);         /* reused only by later kernels */
    return status;
}

/* ------------------------------------------------------------ entries */

template <template <class> class Op>
static int reduce_as(const char *name, NdArray *out, const NdArray *a,
                     const Plan &p, int64_t count)
{
    return visit_dtype(a->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (Op<T>::takes)
            return run<Op<T>, T>((typename Op<T>::Out *)out->data,
                                 (const T *)a->data, p, count);
        else
            return fail("%s: not supported for the dtype %s", name,
                        dtype_name(a->dtype));
    });
}

int reduce(NdGpuReduce op, NdArray *out, const NdArray *a, unsigned axes)
{
    Plan p = make_plan(a, axes);
    int64_t count = 1;          /* elements folded into each result */
    for (int d = 0; d < a->ndim; d++)
        if (axes >> d & 1u)
            count *= a->shape[d];
    switch (op) {
    case ND_GPU_SUM: return reduce_as<Sum>("sum", out, a, p, count);
    case ND_GPU_MEAN: return reduce_as<Mean>("mean", out, a, p, count);
    case ND_GPU_MAX: return reduce_as<Max>("max", out, a, p, count);
    case ND_GPU_MIN: return reduce_as<Min>("min", out, a, p, count);
    }
    return fail("unknown reduction %d", (int)op);
}

int argmax(NdArray *out, const NdArray *a, int axis)
{
    unsigned axes = axis < 0 ? (1u << a->ndim) - 1 : 1u << axis;
    return reduce_as<Argmax>("argmax", out, a, make_plan(a, axes), 0);
}

} // namespace ndg
