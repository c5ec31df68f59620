/* elementwise.c - binary operations with NumPy broadcasting and their
 * in-place forms (+=, -=, *=), unary math, where and clip. Each
 * operation is one kernel per dtype, applied to contiguous runs of the
 * output; broadcasting only decides the runs. On device arrays, the
 * same checks and casts, then the GPU's kernel. */
#include <math.h>
#include <string.h>

#include "nd_internal.h"
#include "nd_integer.h"

/* ------------------------------------------------------------ binary */

typedef enum BinaryOp {
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW, OP_MAXIMUM, OP_MINIMUM,
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
} BinaryOp;
/* Numbered as the GPU half's operations, so an op passes straight on. */
_Static_assert(OP_ADD == (int)ND_GPU_ADD && OP_GE == (int)ND_GPU_GE,
               "BinaryOp and NdGpuBinary must match");

/* out[i] = a[i*sa] OP b[i*sb] for i < n, where sa and sb are 0 (an
 * operand held fixed) or 1, never both 0 unless n is 1. */
typedef void (*BinaryKernel)(void *out, const void *a, int64_t sa,
                             const void *b, int64_t sb, int64_t n);

/* One kernel: each of the three stride patterns gets its own loop, with
 * the strides known, so the compiler can vectorise it; compiled once
 * per instruction set, the loader picking the widest the CPU has (each
 * element's result is the same in every width). */
#define BINARY_KERNEL(NAME, T, OUT_T, EXPR)                               \
    __attribute__((target_clones("avx512f", "avx2", "default")))          \
    static void NAME(void *out_, const void *a_, int64_t sa,              \
                     const void *b_, int64_t sb, int64_t n)               \
    {                                                                     \
        OUT_T *out = out_;                                                \
        const T *a = a_, *b = b_;                                         \
        if (sa == 1 && sb == 1) {                                         \
            for (int64_t i = 0; i < n; i++) {                             \
                T x = a[i], y = b[i];                                     \
                out[i] = (EXPR);                                          \
            }                                                             \
        } else if (sb == 0) {               /* and sa == 1 */             \
            T y = b[0];                                                   \
            for (int64_t i = 0; i < n; i++) {                             \
                T x = a[i];                                               \
                out[i] = (EXPR);                                          \
            }                                                             \
        } else {                                                          \
            T x = a[0];                                                   \
            for (int64_t i = 0; i < n; i++) {                             \
                T y = b[i];                                               \
                out[i] = (EXPR);                                          \
            }                                                             \
        }                                                                 \
    }

/* The element expressions, shared by every dtype that allows them. */
#define E_ADD (x + y)
#define E_SUB (x - y)
#define E_MUL (x * y)
#define E_DIV (x / y)
#define E_MAX ((x > y || x != x) ? x : y)    /* NaN propagates */
#define E_MIN ((x < y || x != x) ? x : y)
#define E_EQ (x == y)
#define E_NE (x != y)
#define E_LT (x < y)
#define E_LE (x <= y)
#define E_GT (x > y)
#define E_GE (x >= y)

/* int64 arithmetic wraps around, as NumPy's does; C leaves signed
 * overflow undefined, so it is done in uint64_t. */
#define WRAP(OP) ((int64_t)((uint64_t)x OP (uint64_t)y))

#define REAL_KERNELS(SUFFIX, T, ADD, SUB, MUL)                            \
    BINARY_KERNEL(add_##SUFFIX, T, T, ADD)                                \
    BINARY_KERNEL(sub_##SUFFIX, T, T, SUB)                                \
    BINARY_KERNEL(mul_##SUFFIX, T, T, MUL)                                \
    BINARY_KERNEL(max_##SUFFIX, T, T, E_MAX)                              \
    BINARY_KERNEL(min_##SUFFIX, T, T, E_MIN)                              \
    BINARY_KERNEL(eq_##SUFFIX, T, bool, E_EQ)                             \
    BINARY_KERNEL(ne_##SUFFIX, T, bool, E_NE)                             \
    BINARY_KERNEL(lt_##SUFFIX, T, bool, E_LT)                             \
    BINARY_KERNEL(le_##SUFFIX, T, bool, E_LE)                             \
    BINARY_KERNEL(gt_##SUFFIX, T, bool, E_GT)                             \
    BINARY_KERNEL(ge_##SUFFIX, T, bool, E_GE)

REAL_KERNELS(f64, double, E_ADD, E_SUB, E_MUL)
REAL_KERNELS(f32, float, E_ADD, E_SUB, E_MUL)
REAL_KERNELS(i64, int64_t, WRAP(+), WRAP(-), WRAP(*))
REAL_KERNELS(u8, uint8_t, E_ADD, E_SUB, E_MUL)
BINARY_KERNEL(div_f64, double, double, E_DIV)
BINARY_KERNEL(div_f32, float, float, E_DIV)
BINARY_KERNEL(pow_f64, double, double, pow(x, y))
BINARY_KERNEL(pow_f32, float, float, powf(x, y))

/* Integer powers: nd_integer.h's, which the GPU kernels share. */
BINARY_KERNEL(pow_i64, int64_t, int64_t, nd_ipow(x, y))
BINARY_KERNEL(pow_u8, uint8_t, uint8_t, (uint8_t)nd_ipow(x, y))

/* bool: + is "or", * is "and", as in NumPy. */
BINARY_KERNEL(add_b, bool, bool, x || y)
BINARY_KERNEL(mul_b, bool, bool, x && y)
BINARY_KERNEL(max_b, bool, bool, x || y)
BINARY_KERNEL(min_b, bool, bool, x && y)
BINARY_KERNEL(eq_b, bool, bool, E_EQ)
BINARY_KERNEL(ne_b, bool, bool, E_NE)
BINARY_KERNEL(lt_b, bool, bool, E_LT)
BINARY_KERNEL(le_b, bool, bool, E_LE)
BINARY_KERNEL(gt_b, bool, bool, E_GT)
BINARY_KERNEL(ge_b, bool, bool, E_GE)

#define COMPLEX_KERNELS(SUFFIX, T, POW)                                   \
    BINARY_KERNEL(add_##SUFFIX, T, T, E_ADD)                              \
    BINARY_KERNEL(sub_##SUFFIX, T, T, E_SUB)                              \
    BINARY_KERNEL(mul_##SUFFIX, T, T, E_MUL)                              \
    BINARY_KERNEL(div_##SUFFIX, T, T, E_DIV)                              \
    BINARY_KERNEL(pow_##SUFFIX, T, T, POW(x, y))                          \
    BINARY_KERNEL(eq_##SUFFIX, T, bool, E_EQ)                             \
    BINARY_KERNEL(ne_##SUFFIX, T, bool, E_NE)

COMPLEX_KERNELS(c128, double complex, cpow)
COMPLEX_KERNELS(c64, float complex, cpowf)

/* kernels[op][dtype]; NULL where NumPy refuses (or we do). */
static const BinaryKernel binary_kernels[][ND_NUM_DTYPES] = {
#define ROW(K) {K##_b, K##_u8, K##_i64, K##_f32, K##_f64, NULL, NULL}
#define ROWC(K) {K##_b, K##_u8, K##_i64, K##_f32, K##_f64, K##_c64, K##_c128}
    [OP_ADD] = {add_b, add_u8, add_i64, add_f32, add_f64, add_c64, add_c128},
    [OP_SUB] = {NULL, sub_u8, sub_i64, sub_f32, sub_f64, sub_c64, sub_c128},
    [OP_MUL] = {mul_b, mul_u8, mul_i64, mul_f32, mul_f64, mul_c64, mul_c128},
    [OP_DIV] = {NULL, NULL, NULL, div_f32, div_f64, div_c64, div_c128},
    [OP_POW] = {NULL, pow_u8, pow_i64, pow_f32, pow_f64, pow_c64, pow_c128},
    [OP_MAXIMUM] = ROW(max),
    [OP_MINIMUM] = ROW(min),
    [OP_EQ] = ROWC(eq),
    [OP_NE] = ROWC(ne),
    [OP_LT] = ROW(lt),
    [OP_LE] = ROW(le),
    [OP_GT] = ROW(gt),
    [OP_GE] = ROW(ge),
#undef ROW
#undef ROWC
};

static bool is_comparison(BinaryOp op) { return op >= OP_EQ; }

/* The loop over a broadcast, in its simplest form: the output's axes
 * with the element strides of a and b, axes of extent 1 dropped and
 * neighbours merged where both operands run on contiguously, so
 * (1000,1,1)+(1,1000,1) is a (1000,1000) loop with long rows. */
typedef struct BroadcastLoop {
    int ndim;
    int64_t shape[ND_MAX_DIMS];
    int64_t sa[ND_MAX_DIMS], sb[ND_MAX_DIMS];
} BroadcastLoop;

static BroadcastLoop simplify_loop(const NdArray *out, const NdArray *a,
                                   const NdArray *b)
{
    int64_t sa[ND_MAX_DIMS], sb[ND_MAX_DIMS];
    nd_broadcast_strides(out->ndim, out->shape, a->ndim, a->shape, sa);
    nd_broadcast_strides(out->ndim, out->shape, b->ndim, b->shape, sb);
    BroadcastLoop loop = {.ndim = 0};
    for (int d = 0; d < out->ndim; d++) {
        int64_t n = out->shape[d];
        int k = loop.ndim - 1;          /* the axis before, if any */
        if (n == 1)
            continue;
        if (k >= 0 && loop.sa[k] == sa[d] * n && loop.sb[k] == sb[d] * n) {
            loop.shape[k] *= n;
        } else {
            k = loop.ndim++;
            loop.shape[k] = n;
        }
        loop.sa[k] = sa[d];
        loop.sb[k] = sb[d];
    }
    return loop;
}

/* Room for the copies of a repeated row, below. */
enum { REPEAT_BYTES = 8192 };

/* When one operand is a single row of run elements repeated over the
 * other, which has out's size (a bias added to each of 100 rows of
 * 10), a kernel call per row costs more than the row's arithmetic. The
 * row is copied into a scratch block as many times as fit, and each
 * call covers that many rows: every element is computed as before.
 * Returns false, having done nothing, for other operands, or for rows
 * too long to gain from it. */
static bool run_repeated_row(BinaryKernel kernel, NdArray *out,
                             const NdArray *a, const NdArray *b,
                             int64_t run, int64_t sa, int64_t sb)
{
    bool a_row = a->size == run && sa == 1 && b->size == out->size;
    bool b_row = b->size == run && sb == 1 && a->size == out->size;
    size_t in_size = nd_dtype_size(a->dtype);
    size_t out_size = nd_dtype_size(out->dtype);
    size_t row_bytes = (size_t)run * in_size;
    int64_t rows = out->size / run;
    int64_t per_call = (int64_t)(REPEAT_BYTES / row_bytes);
    if (!(a_row || b_row) || per_call < 2 || rows < 2)
        return false;
    if (per_call > rows)
        per_call = rows;
    _Alignas(64) char repeated[REPEAT_BYTES];
    size_t filled = row_bytes, total = (size_t)per_call * row_bytes;
    memcpy(repeated, (a_row ? a : b)->data, row_bytes);
    while (filled < total) {            /* doubling what is there */
        size_t n = total - filled < filled ? total - filled : filled;
        memcpy(repeated + filled, repeated, n);
        filled += n;
    }
    const char *full = (a_row ? b : a)->data;
    for (int64_t r = 0; r < rows; r += per_call) {
        int64_t n = (rows - r < per_call ? rows - r : per_call) * run;
        char *o = (char *)out->data + (size_t)(r * run) * out_size;
        const char *f = full + (size_t)(r * run) * in_size;
        if (a_row)
            kernel(o, repeated, 1, f, 1, n);
        else
            kernel(o, f, 1, repeated, 1, n);
    }
    return true;
}

/* Runs kernel over the broadcast of a and b (both of the kernel's input
 * dtype) into out: one call when the operands have out's size or one is
 * a single value, a call per block of rows when one is a repeated short
 * row, else one call per row of the simplified loop. */
static void run_broadcast(BinaryKernel kernel, NdArray *out,
                          const NdArray *a, const NdArray *b)
{
    if (a->size == out->size && b->size == out->size) {
        kernel(out->data, a->data, 1, b->data, 1, out->size);
        return;
    }
    if (b->size == 1 || a->size == 1) {
        kernel(out->data, a->data, a->size == 1 ? 0 : 1,
               b->data, b->size == 1 ? 0 : 1, out->size);
        return;
    }
    BroadcastLoop loop = simplify_loop(out, a, b);
    int last = loop.ndim - 1;
    int64_t run = loop.shape[last];
    if (run_repeated_row(kernel, out, a, b, run, loop.sa[last],
                         loop.sb[last]))
        return;
    /* Along a row the strides are 0 or 1, never both 0 (that axis
     * would have extent 1 and been dropped). */
    size_t in_size = nd_dtype_size(a->dtype);
    size_t out_size = nd_dtype_size(out->dtype);
    const char *ad = a->data, *bd = b->data;
    char *od = out->data;
    int64_t index[ND_MAX_DIMS] = {0};   /* position over the outer axes */
    int64_t ia = 0, ib = 0;             /* offsets of the row's start */
    for (int64_t start = 0; start < out->size; start += run) {
        kernel(od + (size_t)start * out_size, ad + (size_t)ia * in_size,
               loop.sa[last], bd + (size_t)ib * in_size, loop.sb[last],
               run);
        for (int d = last - 1; d >= 0; d--) {   /* the next row */
            ia += loop.sa[d];
            ib += loop.sb[d];
            if (++index[d] < loop.shape[d])
                break;
            ia -= loop.sa[d] * loop.shape[d];
            ib -= loop.sb[d] * loop.shape[d];
            index[d] = 0;
        }
    }
}

/* Whether an integer array holds a negative value; on the GPU, its
 * minimum is brought back. */
static bool has_negative(const NdArray *b)
{
    if (b->device != ND_CPU) {
        if (b->dtype != ND_INT64 || b->size == 0)
            return false;
        NdArray *least = nd_min(b, ND_ALL_AXES, false);
        bool negative = nd_item(least) < 0;
        nd_release(least);
        return negative;
    }
    for (int64_t i = 0; i < b->size; i++)
        if (nd_load(b->data, b->dtype, i) < 0)
            return true;
    return false;
}

/* out = a OP b, a and b of one dtype broadcast to out's shape, on
 * their device: its kernel where it has one, else the CPU's loop. out
 * may be a itself, as an in-place update has it (each element is read
 * before it is written). */
static void run_binary(const char *name, NdGpuBinary op,
                       BinaryKernel kernel, NdArray *out, const NdArray *a,
                       const NdArray *b)
{
    const NdGpuBackend *kernels = nd_kernels(out->device);
    if (kernels)
        nd_device_check(name, out->device, kernels->binary(op, out, a, b));
    else
        run_broadcast(kernel, out, a, b);
}

static NdArray *binary(const char *name, BinaryOp op, const NdArray *a,
                       const NdArray *b)
{
    NdDevice device = nd_same_device(name, 2, (const NdArray *const[]){a, b});
    int64_t shape[ND_MAX_DIMS];
    int ndim = nd_broadcast_shapes(name, a, b, shape);
    NdDtype dtype = nd_result_dtype(a, b);
    /* True division of integers and bools is done in float64. */
    if (op == OP_DIV && !nd_dtype_is_float(dtype) &&
        !nd_dtype_is_complex(dtype))
        dtype = ND_FLOAT64;
    BinaryKernel kernel = binary_kernels[op][dtype];
    if (!kernel)
        nd_error(name, "not supported for the dtypes %s and %s",
                 nd_dtype_name(a->dtype), nd_dtype_name(b->dtype));
    if (op == OP_POW && nd_dtype_is_integer(dtype) && has_negative(b))
        nd_error(name, "integers to negative integer powers are not "
                 "allowed");
    NdArray *ca = nd_as_dtype(a, dtype);
    NdArray *cb = nd_as_dtype(b, dtype);
    NdArray *out = nd_empty_on(device, is_comparison(op) ? ND_BOOL : dtype,
                               ndim, shape);
    if (out->size > 0)
        run_binary(name, (NdGpuBinary)op, kernel, out, ca, cb);
    nd_release(ca);
    nd_release(cb);
    return out;
}

#define BINARY_API(FN, OP)                                                \
    NdArray *FN(const NdArray *a, const NdArray *b)                       \
    {                                                                     \
        return binary(#FN, OP, a, b);                                     \
    }

BINARY_API(nd_add, OP_ADD)
BINARY_API(nd_sub, OP_SUB)
BINARY_API(nd_mul, OP_MUL)
BINARY_API(nd_div, OP_DIV)
BINARY_API(nd_pow, OP_POW)
BINARY_API(nd_maximum, OP_MAXIMUM)
BINARY_API(nd_minimum, OP_MINIMUM)
BINARY_API(nd_equal, OP_EQ)
BINARY_API(nd_not_equal, OP_NE)
BINARY_API(nd_less, OP_LT)
BINARY_API(nd_less_equal, OP_LE)
BINARY_API(nd_greater, OP_GT)
BINARY_API(nd_greater_equal, OP_GE)

/* ------------------------------------------------------------ in place */

/* bool < integer < float < complex: NumPy's same_kind casting may
 * narrow within a kind (float64 to float32) but never go down one. */
static int kind_rank(NdDtype dtype)
{
    if (dtype == ND_BOOL)
        return 0;
    if (nd_dtype_is_integer(dtype))
        return 1;
    return nd_dtype_is_float(dtype) ? 2 : 3;
}

/* Whether v, of dst's dtype, shares memory with dst other than element
 * for element (v is dst itself, or a view of all of it): a kernel
 * writing into dst would then change elements of v before reading
 * them. */
static bool overlaps(const NdArray *dst, const NdArray *v)
{
    const char *d = dst->data, *s = v->data;
    size_t dn = nd_nbytes(dst), sn = nd_nbytes(v);
    if (s == d && sn == dn)
        return false;
    return s < d + dn && d < s + sn;
}

typedef NdArray *(*BinaryFn)(const NdArray *, const NdArray *);

/* dst = dst OP v, computed with NumPy's promotion and cast back into
 * dst's storage, as the ufunc's out= does for "dst op= v". When the
 * result has dst's dtype, the kernel writes it straight into dst;
 * otherwise fn (nd_add for OP_ADD...) computes it aside first. */
/* Stops with NumPy's error unless dst and v are on one device and v
 * broadcasts to dst's shape, which an in-place update keeps. */
static void check_update_shape(const char *name, const NdArray *dst,
                               const NdArray *v)
{
    nd_same_device(name, 2, (const NdArray *const[]){dst, v});
    int64_t shape[ND_MAX_DIMS];
    int ndim = nd_broadcast_shapes(name, dst, v, shape);
    bool same = ndim == dst->ndim;
    for (int d = 0; same && d < ndim; d++)
        same = shape[d] == dst->shape[d];
    if (!same) {
        char d[ND_SHAPE_TEXT], b[ND_SHAPE_TEXT];
        nd_error(name, "non-broadcastable output operand with shape %s "
                 "doesn't match the broadcast shape %s", nd_shape_text(d, dst),
                 nd_format_shape(b, ndim, shape, false));
    }
}

/* Whether a result of dtype may be stored into dst: not into a lower
 * kind, by NumPy's same_kind rule. */
static bool same_kind_allows(NdDtype dtype, const NdArray *dst)
{
    return kind_rank(dtype) <= kind_rank(dst->dtype);
}

static _Noreturn void same_kind_error(const char *name, NdDtype dtype,
                                      const NdArray *dst)
{
    nd_error(name, "cannot cast the result from %s to %s with casting "
             "rule 'same_kind'", nd_dtype_name(dtype),
             nd_dtype_name(dst->dtype));
}

static void update_in_place(const char *name, BinaryOp op, BinaryFn fn,
                            NdArray *dst, const NdArray *v)
{
    check_update_shape(name, dst, v);
    NdDtype dtype = nd_result_dtype(dst, v);
    if (!same_kind_allows(dtype, dst))
        same_kind_error(name, dtype, dst);
    BinaryKernel kernel = binary_kernels[op][dtype];
    if (dtype == dst->dtype && kernel) {
        NdArray *cv = nd_as_dtype(v, dtype);
        bool in_place = !overlaps(dst, cv);
        if (in_place && dst->size > 0)
            run_binary(name, (NdGpuBinary)op, kernel, dst, dst, cv);
        nd_release(cv);
        if (in_place)
            return;
    }
    NdArray *result = fn(dst, v);      /* dst's shape */
    const NdDeviceOps *ops = nd_device_ops(dst->device);
    nd_device_status(ops, name, ops->cast(dst, result));
    nd_release(result);
}

void nd_iadd(NdArray *dst, const NdArray *v)
{
    update_in_place("nd_iadd", OP_ADD, nd_add, dst, v);
}

void nd_isub(NdArray *dst, const NdArray *v)
{
    update_in_place("nd_isub", OP_SUB, nd_sub, dst, v);
}

void nd_imul(NdArray *dst, const NdArray *v)
{
    update_in_place("nd_imul", OP_MUL, nd_mul, dst, v);
}

/* dst[i] -= a * v[i] in one pass over equal-sized arrays of T, the
 * product rounded to T before the subtraction, as NumPy rounds the
 * result of each of its two ufuncs. v may be dst itself. */
#define SCALED_SUB_KERNEL(NAME, T)                                        \
    __attribute__((target_clones("avx512f", "avx2", "default")))          \
    static void NAME(T *dst, const T *v, T a, int64_t n)                  \
    {                                                                     \
        for (int64_t i = 0; i < n; i++) {                                 \
            T step = a * v[i];                                            \
            dst[i] = dst[i] - step;                                       \
        }                                                                 \
    }

SCALED_SUB_KERNEL(scaled_sub_f32, float)
SCALED_SUB_KERNEL(scaled_sub_f64, double)

/* Whether dst -= a * v can skip the product's array: arrays of one
 * float dtype and one shape, which the product a * v keeps (a 0-d a
 * takes v's float dtype), and v all of dst or apart from it. (The
 * caller has checked that they are on one device.) */
static bool scaled_sub_in_one_pass(const NdArray *dst, const NdArray *a,
                                   const NdArray *v)
{
    if (dst->dtype != v->dtype || nd_result_dtype(a, v) != v->dtype ||
        (v->dtype != ND_FLOAT32 && v->dtype != ND_FLOAT64) ||
        dst->ndim != v->ndim || overlaps(dst, v))
        return false;
    for (int d = 0; d < dst->ndim; d++)
        if (dst->shape[d] != v->shape[d])
            return false;
    return true;
}

/* The checks come before anything is allocated, or before what was is
 * released, so that an error leaves nothing behind. On the GPU, one
 * kernel with a passed by value, or else the two operations, with a
 * moved there. */
void nd_isub_scaled(NdArray *dst, double a, const NdArray *v)
{
    const char *name = "nd_isub_scaled";
    check_update_shape(name, dst, v);       /* a * v has v's shape */
    /* a as NumPy takes it, a 0-d float64 array: only read, here */
    NdArray scale = {.dtype = ND_FLOAT64, .device = ND_CPU, .ndim = 0,
                     .size = 1, .data = &a, .refcount = 1};
    if (scaled_sub_in_one_pass(dst, &scale, v)) {
        const NdGpuBackend *kernels = nd_kernels(dst->device);
        if (kernels && dst->size > 0)
            nd_device_check(name, dst->device,
                            kernels->scaled_sub(dst, a, v));
        else if (!kernels && v->dtype == ND_FLOAT32)
            scaled_sub_f32(dst->data, v->data, (float)a, v->size);
        else if (!kernels)
            scaled_sub_f64(dst->data, v->data, a, v->size);
        return;
    }
    NdArray *a_there = nd_to_device(&scale, v->device);    /* a 0-d */
    NdArray *step = nd_mul(a_there, v);
    nd_release(a_there);
    NdDtype dtype = nd_result_dtype(dst, step);
    if (!same_kind_allows(dtype, dst)) {
        nd_release(step);
        same_kind_error(name, dtype, dst);
    }
    update_in_place(name, OP_SUB, nd_sub, dst, step);
    nd_release(step);
}

/* Whether arrays a and b share any byte. */
static bool share_memory(const NdArray *a, const NdArray *b)
{
    const char *p = a->data, *q = b->data;
    return a->size > 0 && b->size > 0 && p < q + nd_nbytes(b) &&
           q < p + nd_nbytes(a);
}

/* Whether no pair of nd_isub_scaled_each shares memory with another:
 * then the order of the updates cannot matter, and one launch may do
 * them all at once. (A pair's dst and v may be one array.) */
static bool pairs_apart(int n, NdArray *const dsts[],
                        const NdArray *const vs[])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (share_memory(dsts[i], dsts[j]) ||
                share_memory(dsts[i], vs[j]) || share_memory(vs[i], dsts[j]))
                return false;
    return true;
}

/* Whether nd_isub_scaled_each gives pair (dst, v) to the GPU's kernel
 * for many pairs: a pair on device that the one-pass kernel takes. */
static bool to_each_kernel(const NdArray *dst, const NdArray *v,
                           NdDevice device, const NdArray *scale)
{
    return dst->device == device && scaled_sub_in_one_pass(dst, scale, v);
}

/* The shapes and devices of every pair are checked before any is
 * updated. On the GPU, the pairs that the one-pass kernel takes go to
 * one launch for each float dtype (for each ND_GPU_EACH_PAIRS of them);
 * the rest through nd_isub_scaled, where a pair refused for its dtypes
 * stops the ones after it. */
void nd_isub_scaled_each(int n, NdArray *const dsts[], double a,
                         const NdArray *const vs[])
{
    const char *name = "nd_isub_scaled_each";
    if (n < 0 || (n > 0 && (!dsts || !vs)))
        nd_error(name, "%d pairs at %p and %p", n, (const void *)dsts,
                 (const void *)vs);
    for (int i = 0; i < n; i++)
        check_update_shape(name, dsts[i], vs[i]);
    NdDevice device = n > 0 ? dsts[0]->device : ND_CPU;
    const NdGpuBackend *kernels = nd_kernels(device);
    bool together = kernels && pairs_apart(n, dsts, vs);
    NdArray scale = {.dtype = ND_FLOAT64, .device = ND_CPU, .ndim = 0,
                     .size = 1, .data = &a, .refcount = 1};
    static const NdDtype floats[] = {ND_FLOAT32, ND_FLOAT64};
    for (int f = 0; together && f < 2; f++) {
        NdArray *group_dsts[ND_GPU_EACH_PAIRS];
        const NdArray *group_vs[ND_GPU_EACH_PAIRS];
        int count = 0;
        for (int i = 0; i < n; i++) {
            if (dsts[i]->dtype == floats[f] && dsts[i]->size > 0 &&
                to_each_kernel(dsts[i], vs[i], device, &scale)) {
                group_dsts[count] = dsts[i];
                group_vs[count++] = vs[i];
            }
            if (count > 0 && (count == ND_GPU_EACH_PAIRS || i == n - 1)) {
                nd_device_check(name, device, kernels->scaled_sub_each(
                                                  count, group_dsts, a,
                                                  group_vs));
                count = 0;
            }
        }
    }
    for (int i = 0; i < n; i++)
        if (!together || !to_each_kernel(dsts[i], vs[i], device, &scale))
            nd_isub_scaled(dsts[i], a, vs[i]);
}

/* ------------------------------------------------------------ unary */

typedef void (*UnaryKernel)(void *out, const void *a, int64_t n);

/* Vector math: over long arrays, exp, log, sin, cos and tanh go through
 * glibc's libmvec, which computes 2, 4 or 8 doubles at once (SSE2,
 * AVX2, AVX-512) within a few ulp of the scalar functions, as NumPy's
 * own SIMD loops are. GCC calls it from a plain loop when
 * - the function is declared "simd" (glibc's <math.h> does so only
 *   under -ffast-math, so we do it here), and
 * - math functions are known not to set errno (-fno-math-errno, in
 *   mk/flags.mk).
 * VECTOR_CLONES compiles a kernel once per instruction set and the
 * loader picks the widest the CPU has: one binary runs everywhere. */
#define SIMD_MATH __attribute__((simd("notinbranch")))
#define VECTOR_CLONES \
    __attribute__((target_clones("avx512f", "avx2", "default"))) \
    NO_SANITIZE_VECTOR_MATH
/* Under SANITIZE=1 the sanitizers' checks on each load and store keep
 * GCC from vectorising these loops, and sin, log... would come from the
 * scalar functions, whose last bits differ (step 27 printed
 * 0.7071067811865475 for NumPy's 0.7071067811865476). The kernels only
 * index within [0, n), so they go unchecked and give the same numbers
 * in every build. */
#if defined(__SANITIZE_ADDRESS__)
#define NO_SANITIZE_VECTOR_MATH \
    __attribute__((no_sanitize("address", "undefined")))
#else
#define NO_SANITIZE_VECTOR_MATH
#endif

double exp(double) SIMD_MATH;
double log(double) SIMD_MATH;
double sin(double) SIMD_MATH;
double cos(double) SIMD_MATH;
double tanh(double) SIMD_MATH;
float expf(float) SIMD_MATH;
float logf(float) SIMD_MATH;
float sinf(float) SIMD_MATH;
float cosf(float) SIMD_MATH;
float tanhf(float) SIMD_MATH;

#define UNARY_KERNEL(NAME, T, OUT_T, EXPR)                                \
    static void NAME(void *out_, const void *a_, int64_t n)               \
    {                                                                     \
        OUT_T *out = out_;                                                \
        const T *a = a_;                                                  \
        for (int64_t i = 0; i < n; i++) {                                 \
            T x = a[i];                                                   \
            out[i] = (EXPR);                                              \
        }                                                                 \
    }

/* A vector kernel runs every element through the same vector code, in
 * blocks of VECTOR_BLOCK with the last partial block padded, never
 * through the scalar function: an element's result does not depend on
 * where it sits in the array, and small arrays get the SIMD results
 * that NumPy gives them too (its loops finish with masked vectors).
 * Measured against NumPy 1.24 on 4096 float64 values: libmvec's vector
 * log, sin, cos and tanh agree with it to the bit on 91-100% of them,
 * glibc's scalar ones on 36-75%. exp is the exception: NumPy's is its
 * own, nearly correctly rounded, and glibc's scalar exp agrees with it
 * more often (78%) than the vector one (53%). So exp keeps the plain
 * loop: vector code for its bulk, the scalar exp for the last few
 * elements, and so for every array of a few elements. */
enum { VECTOR_BLOCK = 16 };

#define VECTOR_KERNEL(NAME, T, F)                                         \
    VECTOR_CLONES static void NAME(void *out_, const void *a_, int64_t n) \
    {                                                                     \
        T *restrict out = out_;         /* restrict: no scalar loop */    \
        const T *restrict a = a_;       /* for overlapping arrays */      \
        int64_t body = n - n % VECTOR_BLOCK;                              \
        for (int64_t i = 0; i < body; i += VECTOR_BLOCK)                  \
            for (int j = 0; j < VECTOR_BLOCK; j++)                        \
                out[i + j] = F(a[i + j]);                                 \
        if (body < n) {                                                   \
            T in[VECTOR_BLOCK] = {0}, result[VECTOR_BLOCK];               \
            memcpy(in, a + body, (size_t)(n - body) * sizeof(T));         \
            for (int j = 0; j < VECTOR_BLOCK; j++)                        \
                result[j] = F(in[j]);                                     \
            memcpy(out + body, result, (size_t)(n - body) * sizeof(T));   \
        }                                                                 \
    }

#define COMPLEX_MATH_KERNELS(NAME, C128, C64)                             \
    UNARY_KERNEL(NAME##_c128, double complex, double complex, C128(x))    \
    UNARY_KERNEL(NAME##_c64, float complex, float complex, C64(x))

#define MATH_KERNELS(NAME, F64, F32, C128, C64)                           \
    VECTOR_KERNEL(NAME##_f64, double, F64)                                \
    VECTOR_KERNEL(NAME##_f32, float, F32)                                 \
    COMPLEX_MATH_KERNELS(NAME, C128, C64)

VECTOR_CLONES UNARY_KERNEL(exp_f64, double, double, exp(x))
VECTOR_CLONES UNARY_KERNEL(exp_f32, float, float, expf(x))
COMPLEX_MATH_KERNELS(exp, cexp, cexpf)
MATH_KERNELS(log, log, logf, clog, clogf)
MATH_KERNELS(sin, sin, sinf, csin, csinf)
MATH_KERNELS(cos, cos, cosf, ccos, ccosf)
MATH_KERNELS(tanh, tanh, tanhf, ctanh, ctanhf)
MATH_KERNELS(sqrt, sqrt, sqrtf, csqrt, csqrtf)

#define NEGATE(x) (-(x))
MATH_KERNELS(neg, NEGATE, NEGATE, NEGATE, NEGATE)
UNARY_KERNEL(neg_i64, int64_t, int64_t, (int64_t)(0 - (uint64_t)x))
UNARY_KERNEL(neg_u8, uint8_t, uint8_t, (uint8_t)-x)
UNARY_KERNEL(abs_f64, double, double, fabs(x))
UNARY_KERNEL(abs_f32, float, float, fabsf(x))
UNARY_KERNEL(abs_i64, int64_t, int64_t,
             x < 0 ? (int64_t)(0 - (uint64_t)x) : x)
UNARY_KERNEL(abs_u8, uint8_t, uint8_t, x)
UNARY_KERNEL(abs_b, bool, bool, x)
UNARY_KERNEL(abs_c128, double complex, double, cabs(x))
UNARY_KERNEL(abs_c64, float complex, float, cabsf(x))

typedef struct UnarySpec {
    const char *name;
    UnaryKernel kernels[ND_NUM_DTYPES];
    bool keeps_integers;        /* neg, abs: no conversion to float64 */
    bool threaded;              /* worth sharing among CPUs when large */
    NdGpuUnary gpu_op;          /* the same on the GPU */
} UnarySpec;

#define MATH_SPEC(NAME, THREADED, GPU_OP) \
    {"nd_" #NAME, {[ND_FLOAT32] = NAME##_f32, [ND_FLOAT64] = NAME##_f64, \
                   [ND_COMPLEX64] = NAME##_c64, \
                   [ND_COMPLEX128] = NAME##_c128}, false, THREADED, GPU_OP}

/* exp, log, sin, cos and tanh cost a few cycles an element, so that on
 * large arrays one thread per CPU pays for its start; sqrt, neg and abs
 * are limited by memory, which more threads do not widen. */
static const UnarySpec spec_exp = MATH_SPEC(exp, true, ND_GPU_EXP),
    spec_log = MATH_SPEC(log, true, ND_GPU_LOG),
    spec_sin = MATH_SPEC(sin, true, ND_GPU_SIN),
    spec_cos = MATH_SPEC(cos, true, ND_GPU_COS),
    spec_tanh = MATH_SPEC(tanh, true, ND_GPU_TANH),
    spec_sqrt = MATH_SPEC(sqrt, false, ND_GPU_SQRT),
    spec_neg = {"nd_neg", {NULL, neg_u8, neg_i64, neg_f32, neg_f64,
                           neg_c64, neg_c128}, true, false, ND_GPU_NEG},
    spec_abs = {"nd_abs", {abs_b, abs_u8, abs_i64, abs_f32, abs_f64,
                           abs_c64, abs_c128}, true, false, ND_GPU_ABS};

/* Arrays of at least THREADED_MIN_SIZE elements are cut into one piece
 * per CPU (measured on 2 cores: exp of 2^20 doubles takes 0.55 ms on one
 * thread, 0.34 ms on two; a thread's start costs about 0.04 ms). Pieces
 * start at multiples of PIECE_ALIGN elements, so each begins on a cache
 * line and the vector loop treats every element as it would unsplit. */
enum { THREADED_MIN_SIZE = 1 << 19, PIECE_ALIGN = 64 };

typedef struct UnaryPieces {
    UnaryKernel kernel;
    char *out;
    const char *in;
    size_t out_item, in_item;   /* bytes per element */
    int64_t size, piece;        /* elements in all, and per piece */
} UnaryPieces;

static void unary_piece(void *context, int thread)
{
    const UnaryPieces *p = context;
    int64_t first = thread * p->piece;
    int64_t count = p->size - first < p->piece ? p->size - first : p->piece;
    if (count > 0)
        p->kernel(p->out + (size_t)first * p->out_item,
                  p->in + (size_t)first * p->in_item, count);
}

/* out = kernel(in), element by element, on one thread per CPU when spec
 * is worth it and in is large. */
static void run_unary(const UnarySpec *spec, UnaryKernel kernel,
                      NdArray *out, const NdArray *in)
{
    int threads = spec->threaded && in->size >= THREADED_MIN_SIZE
                      ? nd_usable_cpus() : 1;
    if (threads == 1) {
        kernel(out->data, in->data, in->size);
        return;
    }
    int64_t piece = (in->size + threads - 1) / threads;
    piece = (piece + PIECE_ALIGN - 1) / PIECE_ALIGN * PIECE_ALIGN;
    UnaryPieces p = {kernel, out->data, in->data,
                     nd_dtype_size(out->dtype), nd_dtype_size(in->dtype),
                     in->size, piece};
    nd_parallel_run(unary_piece, &p, threads);
}

static NdDtype unary_out_dtype(const UnarySpec *spec, NdDtype in)
{
    if (spec == &spec_abs && in == ND_COMPLEX64)
        return ND_FLOAT32;
    if (spec == &spec_abs && in == ND_COMPLEX128)
        return ND_FLOAT64;
    return in;
}

static NdArray *unary(const UnarySpec *spec, const NdArray *a)
{
    NdDevice device = nd_same_device(spec->name, 1, &a);
    NdDtype dtype = a->dtype;
    if (!spec->keeps_integers && !nd_dtype_is_float(dtype) &&
        !nd_dtype_is_complex(dtype))
        dtype = ND_FLOAT64;        /* np.exp(int) is float64 */
    UnaryKernel kernel = spec->kernels[dtype];
    if (!kernel)
        nd_error(spec->name, "not supported for the dtype %s",
                 nd_dtype_name(a->dtype));
    NdArray *in = nd_as_dtype(a, dtype);
    NdArray *out = nd_empty_on(device, unary_out_dtype(spec, dtype), a->ndim,
                               a->shape);
    const NdGpuBackend *kernels = nd_kernels(device);
    if (kernels)
        nd_device_check(spec->name, device,
                        kernels->unary(spec->gpu_op, out, in));
    else
        run_unary(spec, kernel, out, in);
    nd_release(in);
    return out;
}

NdArray *nd_neg(const NdArray *a) { return unary(&spec_neg, a); }
NdArray *nd_exp(const NdArray *a) { return unary(&spec_exp, a); }
NdArray *nd_log(const NdArray *a) { return unary(&spec_log, a); }
NdArray *nd_sin(const NdArray *a) { return unary(&spec_sin, a); }
NdArray *nd_cos(const NdArray *a) { return unary(&spec_cos, a); }
NdArray *nd_tanh(const NdArray *a) { return unary(&spec_tanh, a); }
NdArray *nd_sqrt(const NdArray *a) { return unary(&spec_sqrt, a); }
NdArray *nd_abs(const NdArray *a) { return unary(&spec_abs, a); }

/* ------------------------------------------------------------ where, clip */

/* out[i] = cond[i] ? a[i] : b[i] where each operand has out's size
 * (stride 1) or is a single value (stride 0), copying elements as T (an
 * unsigned type of the dtype's size). */
#define SELECT_LOOP(T)                                                    \
    do {                                                                  \
        T *o = out->data;                                                 \
        const T *x = a->data, *y = b->data;                               \
        for (int64_t i = 0; i < out->size; i++)                           \
            o[i] = cond[i * sc] ? x[i * sa] : y[i * sb];                  \
    } while (0)

static void select_flat(NdArray *out, const NdArray *c, const NdArray *a,
                        const NdArray *b)
{
    const bool *cond = c->data;
    int64_t sc = c->size > 1, sa = a->size > 1, sb = b->size > 1;
    switch (nd_dtype_size(out->dtype)) {
    case 1: SELECT_LOOP(uint8_t); break;
    case 4: SELECT_LOOP(uint32_t); break;
    case 8: SELECT_LOOP(uint64_t); break;
    default: SELECT_LOOP(double complex); break;
    }
}

/* Whether operand is read without broadcasting or as one value. */
static bool flat_operand(const NdArray *operand, const NdArray *out)
{
    return operand->size == out->size || operand->size == 1;
}

/* The same with broadcasting: element offsets computed per element. */
static void select_broadcast(NdArray *out, const NdArray *c,
                             const NdArray *a, const NdArray *b)
{
    int ndim = out->ndim;
    const int64_t *shape = out->shape;
    int64_t sc[ND_MAX_DIMS], sa[ND_MAX_DIMS], sb[ND_MAX_DIMS];
    nd_broadcast_strides(ndim, shape, c->ndim, c->shape, sc);
    nd_broadcast_strides(ndim, shape, a->ndim, a->shape, sa);
    nd_broadcast_strides(ndim, shape, b->ndim, b->shape, sb);
    size_t size = nd_dtype_size(out->dtype);
    for (int64_t i = 0; i < out->size; i++) {
        int64_t k = nd_broadcast_offset(i, ndim, shape, sc);
        bool pick_a = ND_DATA(c, bool)[k];
        const NdArray *src = pick_a ? a : b;
        int64_t j = nd_broadcast_offset(i, ndim, shape, pick_a ? sa : sb);
        memcpy((char *)out->data + (size_t)i * size,
               (const char *)src->data + (size_t)j * size, size);
    }
}

NdArray *nd_where(const NdArray *cond, const NdArray *a, const NdArray *b)
{
    const char *name = "nd_where";
    NdDevice device = nd_same_device(name, 3,
                                     (const NdArray *const[]){cond, a, b});
    int64_t ab_shape[ND_MAX_DIMS], shape[ND_MAX_DIMS];
    int ab_ndim = nd_broadcast_shapes(name, a, b, ab_shape);
    NdArray ab = {.ndim = ab_ndim};      /* only its shape is read */
    memcpy(ab.shape, ab_shape, sizeof ab_shape);
    int ndim = nd_broadcast_shapes(name, cond, &ab, shape);
    NdDtype dtype = nd_result_dtype(a, b);
    NdArray *c = nd_as_dtype(cond, ND_BOOL);
    NdArray *ca = nd_as_dtype(a, dtype), *cb = nd_as_dtype(b, dtype);
    NdArray *out = nd_empty_on(device, dtype, ndim, shape);
    const NdGpuBackend *kernels = nd_kernels(device);
    if (kernels)
        nd_device_check(name, device, kernels->where(out, c, ca, cb));
    else if (flat_operand(c, out) && flat_operand(ca, out) &&
             flat_operand(cb, out))
        select_flat(out, c, ca, cb);
    else
        select_broadcast(out, c, ca, cb);
    nd_release(c);
    nd_release(ca);
    nd_release(cb);
    return out;
}

/* min(max(x, lo), hi) with the bounds in x's type T; NaN passes. */
#define CLIP_LOOP(T)                                                      \
    do {                                                                  \
        T *o = out->data, low = (T)lo, high = (T)hi;                      \
        const T *x = a->data;                                             \
        for (int64_t i = 0; i < a->size; i++) {                           \
            T v = x[i] < low ? low : x[i];                                \
            o[i] = v > high ? high : v;                                   \
        }                                                                 \
    } while (0)

NdArray *nd_clip(const NdArray *a, double lo, double hi)
{
    NdDevice device = nd_same_device("nd_clip", 1, &a);
    if (nd_dtype_is_complex(a->dtype))
        nd_error("nd_clip", "not supported for the dtype %s",
                 nd_dtype_name(a->dtype));
    NdArray *out = nd_empty_on(device, a->dtype, a->ndim, a->shape);
    const NdGpuBackend *kernels = nd_kernels(device);
    if (kernels) {
        nd_device_check("nd_clip", device, kernels->clip(out, a, lo, hi));
    } else if (a->dtype == ND_FLOAT64) {
        CLIP_LOOP(double);
    } else if (a->dtype == ND_FLOAT32) {
        CLIP_LOOP(float);
    } else {
        /* Integers and bools: compared as doubles, so a bound such as
         * 0.5 is not truncated first; elements in range are copied. */
        size_t size = nd_dtype_size(a->dtype);
        for (int64_t i = 0; i < a->size; i++) {
            double x = nd_load(a->data, a->dtype, i);
            double v = x < lo ? lo : x;
            v = v > hi ? hi : v;
            if (v != x)
                nd_store(out->data, a->dtype, i, v);
            else
                memcpy((char *)out->data + (size_t)i * size,
                       (const char *)a->data + (size_t)i * size, size);
        }
    }
    return out;
}
