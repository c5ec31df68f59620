/* reduce.c - reductions over any set of axes: sum and mean (adding in
 * exactly NumPy's order, so float results agree bit for bit), max and
 * min, and argmax. Device arrays are reduced by the GPU half. */
#include <math.h>
#include <string.h>

#include "nd_internal.h"

/* ------------------------------------------------------------ NumPy's order
 *
 * A float sum depends on the order of its additions. NumPy 1.24 adds:
 * - along a contiguous run of reduced elements (the last axis, or every
 *   axis at once): blocks of 8192 elements (its buffer size), one after
 *   another, each block by pairwise_sum (umath/loops_utils.h.src);
 * - when the last axis is kept (axis 0 of a 2-D array): whole rows into
 *   the result, elementwise, one row after another.
 * Before that its iterator drops axes of size 1 and merges neighbouring
 * axes that are both reduced or both kept; a Plan below does the same.
 * The result starts at 0 (the identity of add), as NumPy's does.
 */
enum { NUMPY_BUFSIZE = 8192, PW_BLOCKSIZE = 128 };

/* The float sum kernels are compiled once per instruction set and the
 * loader picks the widest the CPU has. The order of the additions is
 * the same in each: the eight accumulators of pairwise_sum become the
 * lanes of one vector, so results stay bit-identical, only faster. */
#define VECTOR_CLONES \
    __attribute__((target_clones("avx512f", "avx2", "default")))

/* pairwise_sum: under 8 elements a plain loop; up to PW_BLOCKSIZE eight
 * accumulators; above, two halves (split at a multiple of 8). */
#define PAIRWISE_SUM(NAME, T)                                             \
    VECTOR_CLONES static T NAME(const T *a, int64_t n)                    \
    {                                                                     \
        if (n < 8) {                                                      \
            T sum = 0;                                                    \
            for (int64_t i = 0; i < n; i++)                               \
                sum += a[i];                                              \
            return sum;                                                   \
        }                                                                 \
        if (n <= PW_BLOCKSIZE) {                                          \
            T r[8];                                                       \
            for (int j = 0; j < 8; j++)                                   \
                r[j] = a[j];                                              \
            int64_t i;                                                    \
            for (i = 8; i < n - n % 8; i += 8)                            \
                for (int j = 0; j < 8; j++)                               \
                    r[j] += a[i + j];                                     \
            T sum = ((r[0] + r[1]) + (r[2] + r[3])) +                     \
                    ((r[4] + r[5]) + (r[6] + r[7]));                      \
            for (; i < n; i++)                                            \
                sum += a[i];                                              \
            return sum;                                                   \
        }                                                                 \
        int64_t half = n / 2;                                             \
        half -= half % 8;                                                 \
        return NAME(a, half) + NAME(a + half, n - half);                  \
    }

PAIRWISE_SUM(pairwise_f32, float)
PAIRWISE_SUM(pairwise_f64, double)

/* NumPy's complex pairwise_sum runs over the interleaved (re, im)
 * scalars: n counts scalars and the eight accumulators hold four
 * complex partial sums. Writes the sum to s[0] (re) and s[1] (im). */
#define PAIRWISE_SUM_COMPLEX(NAME, T)                                     \
    static void NAME(const T *a, int64_t n, T s[2])                       \
    {                                                                     \
        if (n < 8) {                                                      \
            s[0] = 0;                                                     \
            s[1] = 0;                                                     \
            for (int64_t i = 0; i < n; i += 2) {                          \
                s[0] += a[i];                                             \
                s[1] += a[i + 1];                                         \
            }                                                             \
            return;                                                       \
        }                                                                 \
        if (n <= PW_BLOCKSIZE) {                                          \
            T r[8];                                                       \
            for (int j = 0; j < 8; j++)                                   \
                r[j] = a[j];                                              \
            int64_t i;                                                    \
            for (i = 8; i < n - n % 8; i += 8)                            \
                for (int j = 0; j < 8; j++)                               \
                    r[j] += a[i + j];                                     \
            s[0] = (r[0] + r[2]) + (r[4] + r[6]);                         \
            s[1] = (r[1] + r[3]) + (r[5] + r[7]);                         \
            for (; i < n; i += 2) {                                       \
                s[0] += a[i];                                             \
                s[1] += a[i + 1];                                         \
            }                                                             \
            return;                                                       \
        }                                                                 \
        int64_t half = n / 2;                                             \
        half -= half % 8;                                                 \
        T lo[2], hi[2];                                                   \
        NAME(a, half, lo);                                                \
        NAME(a + half, n - half, hi);                                     \
        s[0] = lo[0] + hi[0];                                             \
        s[1] = lo[1] + hi[1];                                             \
    }

PAIRWISE_SUM_COMPLEX(pairwise_c64, float)
PAIRWISE_SUM_COMPLEX(pairwise_c128, double)

static int64_t min_i64(int64_t a, int64_t b) { return a < b ? a : b; }

/* ------------------------------------------------------------ row kernels */

/* A reduction is two kernels per dtype:
 *   along:  *acc = *acc (+) every element of row[0..n), in order;
 *   across: acc[i] = acc[i] (+) row[i] for i < n, for each of nrows
 *           consecutive rows of n elements in turn. */
typedef void (*RowKernel)(void *acc, const void *row, int64_t n);
typedef void (*RowsKernel)(void *acc, const void *rows, int64_t nrows,
                           int64_t n);

#define SUM_ALONG(NAME, T, PAIRWISE)                                      \
    static void NAME(void *acc_, const void *row_, int64_t n)             \
    {                                                                     \
        T *acc = acc_;                                                    \
        const T *row = row_;                                              \
        for (int64_t start = 0; start < n; start += NUMPY_BUFSIZE)        \
            *acc += PAIRWISE(row + start,                                 \
                             min_i64(n - start, NUMPY_BUFSIZE));          \
    }

SUM_ALONG(sum_along_f32, float, pairwise_f32)
SUM_ALONG(sum_along_f64, double, pairwise_f64)

#define SUM_ALONG_COMPLEX(NAME, T, PAIRWISE)                              \
    static void NAME(void *acc_, const void *row_, int64_t n)             \
    {                                                                     \
        T *acc = acc_;                  /* (re, im) */                    \
        const T *row = row_;            /* (n, 2) */                      \
        for (int64_t start = 0; start < n; start += NUMPY_BUFSIZE) {      \
            T block[2];                                                   \
            PAIRWISE(row + 2 * start,                                     \
                     2 * min_i64(n - start, NUMPY_BUFSIZE), block);       \
            acc[0] += block[0];                                           \
            acc[1] += block[1];                                           \
        }                                                                 \
    }

SUM_ALONG_COMPLEX(sum_along_c64, float, pairwise_c64)
SUM_ALONG_COMPLEX(sum_along_c128, double, pairwise_c128)

/* Integers wrap on overflow as NumPy's do (unsigned arithmetic: signed
 * overflow is undefined in C). */
static int64_t wrapping_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

static void sum_along_i64(void *acc_, const void *row_, int64_t n)
{
    int64_t *acc = acc_;
    const int64_t *row = row_;
    for (int64_t i = 0; i < n; i++)
        *acc = wrapping_add(*acc, row[i]);
}

static void sum_across_i64(void *acc_, const void *rows, int64_t nrows,
                           int64_t n)
{
    int64_t *acc = acc_;
    const int64_t *row = rows;
    for (int64_t r = 0; r < nrows; r++, row += n)
        for (int64_t i = 0; i < n; i++)
            acc[i] = wrapping_add(acc[i], row[i]);
}

#define ACROSS(NAME, T, COMBINE)                                          \
    VECTOR_CLONES static void NAME(void *acc_, const void *rows,          \
                                   int64_t nrows, int64_t n)              \
    {                                                                     \
        T *acc = acc_;                                                    \
        const T *row = rows;                                              \
        for (int64_t r = 0; r < nrows; r++, row += n)                     \
            for (int64_t i = 0; i < n; i++)                               \
                acc[i] = COMBINE(acc[i], row[i]);                         \
    }

#define ALONG(NAME, T, COMBINE)                                           \
    static void NAME(void *acc_, const void *row_, int64_t n)             \
    {                                                                     \
        T *acc = acc_;                                                    \
        const T *row = row_;                                              \
        for (int64_t i = 0; i < n; i++)                                   \
            *acc = COMBINE(*acc, row[i]);                                 \
    }

#define ADD(x, y) ((x) + (y))
/* NaN propagates: once acc is NaN it stays; a NaN x replaces acc. */
#define MAX_OF(acc, x) (((acc) >= (x) || (acc) != (acc)) ? (acc) : (x))
#define MIN_OF(acc, x) (((acc) <= (x) || (acc) != (acc)) ? (acc) : (x))

ACROSS(sum_across_f32, float, ADD)
ACROSS(sum_across_f64, double, ADD)
ACROSS(sum_across_c64, float complex, ADD)
ACROSS(sum_across_c128, double complex, ADD)

#define MINMAX_KERNELS(SUFFIX, T)                                         \
    ALONG(max_along_##SUFFIX, T, MAX_OF)                                     \
    ACROSS(max_across_##SUFFIX, T, MAX_OF)                                   \
    ALONG(min_along_##SUFFIX, T, MIN_OF)                                     \
    ACROSS(min_across_##SUFFIX, T, MIN_OF)

MINMAX_KERNELS(b, bool)
MINMAX_KERNELS(u8, uint8_t)
MINMAX_KERNELS(i64, int64_t)
MINMAX_KERNELS(f32, float)
MINMAX_KERNELS(f64, double)

/* ------------------------------------------------------------ reductions */

typedef enum Identity { ZERO, LOWEST, HIGHEST } Identity;

typedef struct Reduction {
    const char *numpy_name;     /* "maximum", for the empty-array error */
    Identity identity;          /* where each result starts */
    RowKernel along[ND_NUM_DTYPES];
    RowsKernel across[ND_NUM_DTYPES];
} Reduction;

/* NULL kernels: dtypes the reduction refuses. nd_sum casts integers and
 * bools to int64 before it reduces, so it needs no kernels for them. */
static const Reduction sum_reduction = {
    "add", ZERO,
    {[ND_INT64] = sum_along_i64, [ND_FLOAT32] = sum_along_f32,
     [ND_FLOAT64] = sum_along_f64, [ND_COMPLEX64] = sum_along_c64,
     [ND_COMPLEX128] = sum_along_c128},
    {[ND_INT64] = sum_across_i64, [ND_FLOAT32] = sum_across_f32,
     [ND_FLOAT64] = sum_across_f64, [ND_COMPLEX64] = sum_across_c64,
     [ND_COMPLEX128] = sum_across_c128},
};

static const Reduction max_reduction = {
    "maximum", LOWEST,
    {max_along_b, max_along_u8, max_along_i64, max_along_f32,
     max_along_f64, NULL, NULL},
    {max_across_b, max_across_u8, max_across_i64, max_across_f32,
     max_across_f64, NULL, NULL},
};

static const Reduction min_reduction = {
    "minimum", HIGHEST,
    {min_along_b, min_along_u8, min_along_i64, min_along_f32,
     min_along_f64, NULL, NULL},
    {min_across_b, min_across_u8, min_across_i64, min_across_f32,
     min_across_f64, NULL, NULL},
};

/* Fills out with the value every result starts from. */
static void fill_identity(NdArray *out, Identity identity)
{
    if (identity == ZERO) {
        memset(out->data, 0, (size_t)out->size * nd_dtype_size(out->dtype));
        return;
    }
    bool low = identity == LOWEST;
    for (int64_t i = 0; i < out->size; i++) {
        switch (out->dtype) {
        case ND_INT64:
            ND_DATA(out, int64_t)[i] = low ? INT64_MIN : INT64_MAX;
            break;
        case ND_UINT8:
            ND_DATA(out, uint8_t)[i] = low ? 0 : UINT8_MAX;
            break;
        case ND_BOOL:
            ND_DATA(out, bool)[i] = !low;
            break;
        default:        /* the floats */
            nd_store(out->data, out->dtype, i, low ? -INFINITY : INFINITY);
            break;
        }
    }
}

/* Marks the axes to reduce in reduced[]; ND_ALL_AXES marks every one. */
static void parse_axes(const char *op, const NdArray *a, int naxes,
                       const int *axes, bool reduced[ND_MAX_DIMS])
{
    for (int d = 0; d < ND_MAX_DIMS; d++)
        reduced[d] = naxes == -1 && !axes && d < a->ndim;
    if (naxes == -1 && !axes)
        return;
    if (naxes < 0 || (naxes > 0 && !axes))
        nd_error(op, "invalid axes: naxes is %d and axes is %s; pass "
                 "ND_AXES(...) or ND_ALL_AXES", naxes, axes ? "set" : "NULL");
    for (int i = 0; i < naxes; i++) {
        int d = nd_normalize_axis(op, axes[i], a->ndim);
        if (reduced[d])
            nd_error(op, "duplicate value in 'axis' (axis %d)", axes[i]);
        reduced[d] = true;
    }
}

/* The reduction as NumPy's iterator walks it: axes of size 1 dropped,
 * neighbouring axes that are both reduced or both kept merged. */
typedef struct Plan {
    int ndim;
    int64_t extent[ND_MAX_DIMS];
    bool reduced[ND_MAX_DIMS];
    int64_t out_stride[ND_MAX_DIMS];    /* 0 along reduced axes */
} Plan;

static Plan make_plan(const NdArray *a, const bool reduced[ND_MAX_DIMS])
{
    Plan p = {0};
    for (int d = 0; d < a->ndim; d++) {
        if (a->shape[d] == 1)
            continue;
        if (p.ndim > 0 && p.reduced[p.ndim - 1] == reduced[d]) {
            p.extent[p.ndim - 1] *= a->shape[d];
        } else {
            p.extent[p.ndim] = a->shape[d];
            p.reduced[p.ndim++] = reduced[d];
        }
    }
    if (p.ndim == 0) {                  /* a single element */
        p.extent[0] = 1;
        p.reduced[0] = true;
        p.ndim = 1;
    }
    int64_t stride = 1;
    for (int d = p.ndim - 1; d >= 0; d--) {
        p.out_stride[d] = p.reduced[d] ? 0 : stride;
        if (!p.reduced[d])
            stride *= p.extent[d];
    }
    return p;
}

/* Walks the input one row of the plan's last axis at a time (in C
 * order) and folds each row into the result. When the last axis is
 * kept and the one before it reduced, the rows of that one fold into
 * the same results one after another: one across call takes them all
 * (the sum over axis 0 of a (100, 10) array is one call, not 100). */
static void run_plan(const Plan *p, const Reduction *r, NdArray *out,
                     const NdArray *in)
{
    int last = p->ndim - 1;
    int64_t n = p->extent[last];
    bool along = p->reduced[last];
    int outer = last;                   /* the axes walked one by one */
    int64_t nrows = 1;                  /* rows per call */
    if (!along && last > 0 && p->reduced[last - 1]) {
        outer = last - 1;
        nrows = p->extent[outer];
    }
    size_t elsize = nd_dtype_size(in->dtype);
    int64_t index[ND_MAX_DIMS] = {0};   /* over the outer axes */
    int64_t offset = 0;                 /* of the row's result */
    for (int64_t start = 0; start < in->size; start += nrows * n) {
        char *acc = (char *)out->data + offset * elsize;
        const char *row = (const char *)in->data + start * elsize;
        if (along)
            r->along[in->dtype](acc, row, n);
        else
            r->across[in->dtype](acc, row, nrows, n);
        for (int d = outer - 1; d >= 0; d--) {
            offset += p->out_stride[d];
            if (++index[d] < p->extent[d])
                break;
            offset -= p->out_stride[d] * p->extent[d];
            index[d] = 0;
        }
    }
}

/* The reduced axes as the GPU half takes them: bit d for axis d. */
static unsigned axis_bits(const bool reduced[ND_MAX_DIMS])
{
    unsigned bits = 0;
    for (int d = 0; d < ND_MAX_DIMS; d++)
        bits |= (unsigned)reduced[d] << d;
    return bits;
}

/* Reduces a (cast to dtype) over the given axes; *count receives the
 * number of elements folded into each result. A device array goes to
 * the GPU's gpu_op, which for ND_GPU_MEAN also divides by the count. */
static NdArray *reduce(const char *op, const Reduction *r, NdGpuReduce gpu_op,
                       NdDtype dtype, const NdArray *a, int naxes,
                       const int *axes, bool keepdims, int64_t *count)
{
    NdDevice device = nd_same_device(op, 1, &a);
    bool reduced[ND_MAX_DIMS];
    parse_axes(op, a, naxes, axes, reduced);
    if (!r->along[dtype])
        nd_error(op, "not supported for the dtype %s",
                 nd_dtype_name(a->dtype));
    int64_t shape[ND_MAX_DIMS];         /* the result, kept dims */
    int ndim = 0;
    *count = 1;
    for (int d = 0; d < a->ndim; d++) {
        if (reduced[d])
            *count *= a->shape[d];
        if (!reduced[d] || keepdims)
            shape[ndim++] = reduced[d] ? 1 : a->shape[d];
    }
    if (*count == 0 && r->identity != ZERO)
        nd_error(op, "zero-size array to reduction operation %s which has "
                 "no identity", r->numpy_name);
    NdArray *in = nd_as_dtype(a, dtype);
    NdArray *out = nd_empty_on(device, dtype, ndim, shape);
    const NdGpuBackend *kernels = nd_kernels(device);
    if (kernels) {
        nd_device_check(op, device, kernels->reduce(gpu_op, out, in,
                                                    axis_bits(reduced)));
        nd_release(in);
        return out;
    }
    fill_identity(out, r->identity);
    if (in->size > 0) {
        Plan plan = make_plan(in, reduced);
        run_plan(&plan, r, out, in);
    }
    nd_release(in);
    return out;
}

/* The dtype NumPy sums in: integers and bools widen to int64. */
static NdDtype sum_dtype(NdDtype dtype)
{
    if (nd_dtype_is_float(dtype) || nd_dtype_is_complex(dtype))
        return dtype;
    return ND_INT64;
}

NdArray *nd_sum(const NdArray *a, int naxes, const int *axes, bool keepdims)
{
    int64_t count;
    return reduce("nd_sum", &sum_reduction, ND_GPU_SUM, sum_dtype(a->dtype),
                  a, naxes, axes, keepdims, &count);
}

NdArray *nd_max(const NdArray *a, int naxes, const int *axes, bool keepdims)
{
    int64_t count;
    return reduce("nd_max", &max_reduction, ND_GPU_MAX, a->dtype, a, naxes,
                  axes, keepdims, &count);
}

NdArray *nd_min(const NdArray *a, int naxes, const int *axes, bool keepdims)
{
    int64_t count;
    return reduce("nd_min", &min_reduction, ND_GPU_MIN, a->dtype, a, naxes,
                  axes, keepdims, &count);
}

/* ------------------------------------------------------------ mean */

/* Divides every element by count as np.mean does: floats by a true
 * division; complex numbers by NumPy's complex division by count + 0j,
 * which multiplies by the reciprocal 1/count. */
static void divide_by_count(NdArray *out, int64_t count)
{
    int64_t n = out->size;
    switch (out->dtype) {
    case ND_FLOAT32:
        for (int64_t i = 0; i < n; i++)
            ND_DATA(out, float)[i] /= (float)count;
        break;
    case ND_FLOAT64:
        for (int64_t i = 0; i < n; i++)
            ND_DATA(out, double)[i] /= (double)count;
        break;
    case ND_COMPLEX64: {
        float *z = out->data, c = (float)count;     /* (n, 2) */
        for (int64_t i = 0; i < 2 * n; i++)
            z[i] = count == 0 ? z[i] / c : z[i] * (1.0f / c);
        break;
    }
    default: {                                      /* complex128 */
        double *z = out->data, c = (double)count;   /* (n, 2) */
        for (int64_t i = 0; i < 2 * n; i++)
            z[i] = count == 0 ? z[i] / c : z[i] * (1.0 / c);
        break;
    }
    }
}

NdArray *nd_mean(const NdArray *a, int naxes, const int *axes,
                 bool keepdims)
{
    /* np.mean sums integers and bools as float64 (not int64). */
    NdDtype dtype = sum_dtype(a->dtype) == ND_INT64 ? ND_FLOAT64 : a->dtype;
    int64_t count;
    NdArray *out = reduce("nd_mean", &sum_reduction, ND_GPU_MEAN, dtype, a,
                          naxes, axes, keepdims, &count);
    if (out->device == ND_CPU)          /* the GPU divided already */
        divide_by_count(out, count);
    return out;
}

/* ------------------------------------------------------------ argmax */

/* For each of outer * inner lines of n elements spaced inner apart: the
 * index of the first maximum, or of the first NaN. */
#define ARGMAX_KERNEL(NAME, T)                                            \
    static void NAME(int64_t *out, const void *data, int64_t outer,      \
                     int64_t n, int64_t inner)                            \
    {                                                                     \
        for (int64_t o = 0; o < outer; o++) {                             \
            for (int64_t j = 0; j < inner; j++) {                         \
                const T *line = (const T *)data + o * n * inner + j;      \
                T best = line[0];                                         \
                int64_t at = 0;                                           \
                for (int64_t k = 1; k < n && best == best; k++) {         \
                    T x = line[k * inner];                                \
                    if (x > best || x != x) {                             \
                        best = x;                                         \
                        at = k;                                           \
                    }                                                     \
                }                                                         \
                out[o * inner + j] = at;                                  \
            }                                                             \
        }                                                                 \
    }

ARGMAX_KERNEL(argmax_b, bool)
ARGMAX_KERNEL(argmax_u8, uint8_t)
ARGMAX_KERNEL(argmax_i64, int64_t)
ARGMAX_KERNEL(argmax_f32, float)
ARGMAX_KERNEL(argmax_f64, double)

typedef void (*ArgmaxKernel)(int64_t *out, const void *data, int64_t outer,
                             int64_t n, int64_t inner);
static const ArgmaxKernel argmax_kernels[ND_NUM_DTYPES] = {
    argmax_b, argmax_u8, argmax_i64, argmax_f32, argmax_f64, NULL, NULL,
};

NdArray *nd_argmax(const NdArray *a, int axis)
{
    const char *op = "nd_argmax";
    NdDevice device = nd_same_device(op, 1, &a);
    ArgmaxKernel kernel = argmax_kernels[a->dtype];
    if (!kernel)
        nd_error(op, "not supported for the dtype %s",
                 nd_dtype_name(a->dtype));
    if (axis == ND_NO_AXIS) {           /* the flattened array */
        if (a->size == 0)
            nd_error(op, "attempt to get argmax of an empty sequence");
        NdArray *out = nd_empty_on(device, ND_INT64, 0, NULL);
        const NdGpuBackend *kernels = nd_kernels(device);
        if (kernels)
            nd_device_check(op, device, kernels->argmax(out, a, -1));
        else
            kernel(out->data, a->data, 1, a->size, 1);
        return out;
    }
    int ax = nd_normalize_axis(op, axis, a->ndim);
    int64_t n = a->shape[ax], outer = 1, inner = 1;
    int64_t shape[ND_MAX_DIMS];         /* a's shape without axis */
    int ndim = 0;
    for (int d = 0; d < a->ndim; d++) {
        if (d < ax)
            outer *= a->shape[d];
        if (d > ax)
            inner *= a->shape[d];
        if (d != ax)
            shape[ndim++] = a->shape[d];
    }
    if (n == 0)
        nd_error(op, "attempt to get argmax of an empty sequence "
                 "(axis %d has size 0)", axis);
    NdArray *out = nd_empty_on(device, ND_INT64, ndim, shape);
    const NdGpuBackend *kernels = nd_kernels(device);
    if (kernels)
        nd_device_check(op, device, kernels->argmax(out, a, ax));
    else
        kernel(out->data, a->data, outer, n, inner);
    return out;
}
