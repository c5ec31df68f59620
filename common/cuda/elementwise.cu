/* elementwise.cu - the kernels that compute each output element from
 * the elements at the same broadcast position: fill, cast and copies,
 * binary and unary operations, where, clip and allclose. Each follows
 * the element rule of the CPU half's loop for the same operation; the
 * binary and unary rules are elements.cuh's. */
#include "elements.cuh"

namespace ndg {

/* How an operand is read at output element i: the same element (it has
 * the output's size), its only element, or through broadcast strides. */
enum ReadKind { kSame, kScalar, kStrided };

struct Reader {
    ReadKind kind;
    Walk walk;

    __device__ int64_t at(int64_t i) const
    {
        if (kind == kSame)
            return i;
        if (kind == kScalar)
            return 0;
        return walk_offset(i, walk);
    }
};

static Reader reader_for(const NdArray *out, const NdArray *a)
{
    Reader r;
    r.kind = a->size == out->size ? kSame : a->size == 1 ? kScalar
                                                         : kStrided;
    r.walk = broadcast_walk(out, a);
    return r;
}

/* Runs kernel over n elements, a grid-stride loop's worth of blocks. */
template <class... Params, class... Args>
static int launch(const char *name, void (*kernel)(Params...), int64_t n,
                  Args... args)
{
    if (n == 0)
        return 0;
    return launch_kernel(name, blocks_for(n), kThreads, kernel, args...);
}

/* ------------------------------------------------------------ fill, cast */

template <class T>
__global__ void fill_kernel(T *out, T value, int64_t n)
{
    ND_GPU_FOR(i, n)
        out[i] = value;
}

int fill(NdArray *out, double value)
{
    return visit_dtype(out->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return launch("fill", fill_kernel<T>, out->size, (T *)out->data,
                      convert<T>(value), out->size);
    });
}

template <class To, class From>
__global__ void cast_kernel(To *out, const From *in, Reader r, int64_t n)
{
    ND_GPU_FOR(i, n)
        out[i] = convert<To>(in[r.at(i)]);
}

int cast(NdArray *out, const NdArray *in)
{
    Reader r = reader_for(out, in);
    if (out->dtype == in->dtype && r.kind == kSame)
        return copy(out->data, in->data,
                    (size_t)out->size * dtype_size(out->dtype));
    return visit_dtype(out->dtype, [&](auto to) {
        using To = typename decltype(to)::type;
        return visit_dtype(in->dtype, [&](auto from) {
            using From = typename decltype(from)::type;
            return launch("cast", cast_kernel<To, From>, out->size,
                          (To *)out->data, (const From *)in->data, r,
                          out->size);
        });
    });
}

template <class T>
__global__ void arange_kernel(T *out, double start, double step, int64_t n)
{
    ND_GPU_FOR(i, n)
        out[i] = arange_element<T>(start, step, i);
}

int arange(NdArray *out, double start, double step)
{
    return visit_dtype(out->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return launch("arange", arange_kernel<T>, out->size, (T *)out->data,
                      start, step, out->size);
    });
}

/* ------------------------------------------------------------ copies */

/* Elements moved as raw bytes of their size. */
struct alignas(16) Bytes16 {
    uint64_t lo, hi;
};

template <class E>
__global__ void copy_strided_kernel(E *dst, Walk dst_walk, const E *src,
                                    Walk src_walk, int64_t n)
{
    ND_GPU_FOR(i, n)
        dst[walk_offset(i, dst_walk)] = src[walk_offset(i, src_walk)];
}

int copy_strided(void *dst, const int64_t *dst_strides, const void *src,
                 const int64_t *src_strides, int ndim, const int64_t *shape,
                 size_t elsize)
{
    Walk dw = {}, sw = {};
    int64_t n = 1;
    dw.ndim = sw.ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        dw.shape[d] = sw.shape[d] = shape[d];
        dw.strides[d] = dst_strides[d];
        sw.strides[d] = src_strides[d];
        n *= shape[d];
    }
    switch (elsize) {
    case 1:
        return launch("copy_strided", copy_strided_kernel<uint8_t>, n,
                      (uint8_t *)dst, dw, (const uint8_t *)src, sw, n);
    case 4:
        return launch("copy_strided", copy_strided_kernel<uint32_t>, n,
                      (uint32_t *)dst, dw, (const uint32_t *)src, sw, n);
    case 8:
        return launch("copy_strided", copy_strided_kernel<uint64_t>, n,
                      (uint64_t *)dst, dw, (const uint64_t *)src, sw, n);
    case 16:
        return launch("copy_strided", copy_strided_kernel<Bytes16>, n,
                      (Bytes16 *)dst, dw, (const Bytes16 *)src, sw, n);
    }
    return fail("copy_strided: no copy for elements of %zu bytes", elsize);
}

/* ------------------------------------------------------------ binary */

template <int OP, class T, class Out>
__global__ void binary_kernel(Out *out, const T *a, Reader ra, const T *b,
                              Reader rb, int64_t n)
{
    ND_GPU_FOR(i, n)
        out[i] = binary_element<OP, T>(a[ra.at(i)], b[rb.at(i)]);
}

template <int OP>
static int binary_op(NdArray *out, const NdArray *a, const NdArray *b)
{
    Reader ra = reader_for(out, a), rb = reader_for(out, b);
    return visit_dtype(a->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (binary_supported<OP, T>()) {
            using Out = BinaryOut<OP, T>;
            return launch("binary", binary_kernel<OP, T, Out>, out->size,
                          (Out *)out->data, (const T *)a->data, ra,
                          (const T *)b->data, rb, out->size);
        } else {
            return fail("binary operation %d: not supported for the "
                        "dtype %s", OP, dtype_name(a->dtype));
        }
    });
}

int binary(NdGpuBinary op, NdArray *out, const NdArray *a, const NdArray *b)
{
    switch (op) {
    case ND_GPU_ADD: return binary_op<ND_GPU_ADD>(out, a, b);
    case ND_GPU_SUB: return binary_op<ND_GPU_SUB>(out, a, b);
    case ND_GPU_MUL: return binary_op<ND_GPU_MUL>(out, a, b);
    case ND_GPU_DIV: return binary_op<ND_GPU_DIV>(out, a, b);
    case ND_GPU_POW: return binary_op<ND_GPU_POW>(out, a, b);
    case ND_GPU_MAXIMUM: return binary_op<ND_GPU_MAXIMUM>(out, a, b);
    case ND_GPU_MINIMUM: return binary_op<ND_GPU_MINIMUM>(out, a, b);
    case ND_GPU_EQ: return binary_op<ND_GPU_EQ>(out, a, b);
    case ND_GPU_NE: return binary_op<ND_GPU_NE>(out, a, b);
    case ND_GPU_LT: return binary_op<ND_GPU_LT>(out, a, b);
    case ND_GPU_LE: return binary_op<ND_GPU_LE>(out, a, b);
    case ND_GPU_GT: return binary_op<ND_GPU_GT>(out, a, b);
    case ND_GPU_GE: return binary_op<ND_GPU_GE>(out, a, b);
    }
    return fail("unknown binary operation %d", (int)op);
}

/* dst -= a * v over equal-sized float arrays, a converted to their type
 * once, on the host, and passed by value: SGD's update of a parameter in
 * one kernel, with no 0-d array uploaded for a. v may be dst itself. */
template <class T>
__global__ void scaled_sub_kernel(T *dst, T a, const T *v, int64_t n)
{
    ND_GPU_FOR(i, n)
        dst[i] = scaled_sub_element<T>(dst[i], a, v[i]);
}

int scaled_sub(NdArray *dst, double a, const NdArray *v)
{
    if (dst->dtype == ND_FLOAT32)
        return launch("scaled_sub", scaled_sub_kernel<float>, dst->size,
                      (float *)dst->data, (float)a, (const float *)v->data,
                      dst->size);
    if (dst->dtype == ND_FLOAT64)
        return launch("scaled_sub", scaled_sub_kernel<double>, dst->size,
                      (double *)dst->data, a, (const double *)v->data,
                      dst->size);
    return fail("scaled_sub: not supported for the dtype %s",
                dtype_name(dst->dtype));
}

/* dst -= a * v over the pairs' elements taken together: SGD's update of
 * every parameter in one launch. */
template <class T>
__global__ void
scaled_sub_each_kernel(const __grid_constant__ ScaledSubPairs<T> pairs)
{
    ND_GPU_FOR(i, pairs.end[pairs.n - 1])
        scaled_sub_at(pairs, i);
}

template <class T>
static int launch_scaled_sub_each(int n, NdArray *const dsts[], double a,
                                  const NdArray *const vs[])
{
    ScaledSubPairs<T> pairs = scaled_sub_pairs<T>(n, dsts, a, vs);
    return launch("scaled_sub_each", scaled_sub_each_kernel<T>,
                  pairs.end[n - 1], pairs);
}

int scaled_sub_each(int n, NdArray *const dsts[], double a,
                    const NdArray *const vs[])
{
    if (n < 1 || n > ND_GPU_EACH_PAIRS)
        return fail("scaled_sub_each: %d pairs, not 1 to %d", n,
                    (int)ND_GPU_EACH_PAIRS);
    if (dsts[0]->dtype == ND_FLOAT32)
        return launch_scaled_sub_each<float>(n, dsts, a, vs);
    if (dsts[0]->dtype == ND_FLOAT64)
        return launch_scaled_sub_each<double>(n, dsts, a, vs);
    return fail("scaled_sub_each: not supported for the dtype %s",
                dtype_name(dsts[0]->dtype));
}

/* out = (a - mean) / std over equal-sized float arrays: Normalize in one
 * kernel, where its chain takes four. */
template <class T>
__global__ void normalize_kernel(T *out, const T *a, T mean, T std,
                                 int64_t n)
{
    ND_GPU_FOR(i, n)
        out[i] = normalize_element<T>(a[i], mean, std);
}

int normalize(NdArray *out, const NdArray *a, double mean, double std)
{
    return visit_dtype(a->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_float<T>) {
            return launch("normalize", normalize_kernel<T>, out->size,
                          (T *)out->data, (const T *)a->data, T(mean),
                          T(std), out->size);
        } else {
            return fail("normalize: not supported for the dtype %s",
                        dtype_name(a->dtype));
        }
    });
}

/* out = (gy * y) * (1 - y) over equal-sized float arrays: Sigmoid's
 * gradient in one kernel, where its chain takes five. */
template <class T>
__global__ void sigmoid_grad_kernel(T *out, const T *y, const T *gy,
                                    int64_t n)
{
    ND_GPU_FOR(i, n)
        out[i] = sigmoid_grad_element<T>(y[i], gy[i]);
}

int sigmoid_grad(NdArray *out, const NdArray *y, const NdArray *gy)
{
    return visit_dtype(y->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_float<T>) {
            return launch("sigmoid_grad", sigmoid_grad_kernel<T>, out->size,
                          (T *)out->data, (const T *)y->data,
                          (const T *)gy->data, out->size);
        } else {
            return fail("sigmoid_grad: not supported for the dtype %s",
                        dtype_name(y->dtype));
        }
    });
}

/* ------------------------------------------------------------ unary */

template <int OP, class T, class Out>
__global__ void unary_kernel(Out *out, const T *a, int64_t n)
{
    ND_GPU_FOR(i, n)
        out[i] = unary_element<OP, T>(a[i]);
}

template <int OP>
static int unary_op(NdArray *out, const NdArray *a)
{
    return visit_dtype(a->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (unary_supported<OP, T>()) {
            using Out = UnaryOut<OP, T>;
            return launch("unary", unary_kernel<OP, T, Out>, out->size,
                          (Out *)out->data, (const T *)a->data, out->size);
        } else {
            return fail("unary operation %d: not supported for the "
                        "dtype %s", OP, dtype_name(a->dtype));
        }
    });
}

int unary(NdGpuUnary op, NdArray *out, const NdArray *a)
{
    switch (op) {
    case ND_GPU_NEG: return unary_op<ND_GPU_NEG>(out, a);
    case ND_GPU_EXP: return unary_op<ND_GPU_EXP>(out, a);
    case ND_GPU_LOG: return unary_op<ND_GPU_LOG>(out, a);
    case ND_GPU_SIN: return unary_op<ND_GPU_SIN>(out, a);
    case ND_GPU_COS: return unary_op<ND_GPU_COS>(out, a);
    case ND_GPU_TANH: return unary_op<ND_GPU_TANH>(out, a);
    case ND_GPU_SQRT: return unary_op<ND_GPU_SQRT>(out, a);
    case ND_GPU_ABS: return unary_op<ND_GPU_ABS>(out, a);
    case ND_GPU_SIGMOID: return unary_op<ND_GPU_SIGMOID>(out, a);
    }
    return fail("unknown unary operation %d", (int)op);
}

/* ------------------------------------------------------------ where, clip */

template <class E>
__global__ void where_kernel(E *out, const bool *cond, Reader rc,
                             const E *a, Reader ra, const E *b, Reader rb,
                             int64_t n)
{
    ND_GPU_FOR(i, n)
        out[i] = cond[rc.at(i)] ? a[ra.at(i)] : b[rb.at(i)];
}

template <class E>
static int where_as(NdArray *out, const NdArray *cond, const NdArray *a,
                    const NdArray *b)
{
    return launch("where", where_kernel<E>, out->size, (E *)out->data,
                  (const bool *)cond->data, reader_for(out, cond),
                  (const E *)a->data, reader_for(out, a),
                  (const E *)b->data, reader_for(out, b), out->size);
}

int where(NdArray *out, const NdArray *cond, const NdArray *a,
          const NdArray *b)
{
    switch (dtype_size(out->dtype)) {
    case 1: return where_as<uint8_t>(out, cond, a, b);
    case 4: return where_as<uint32_t>(out, cond, a, b);
    case 8: return where_as<uint64_t>(out, cond, a, b);
    default: return where_as<Bytes16>(out, cond, a, b);
    }
}

/* Floats: min(max(x, lo), hi) with the bounds in x's type. Integers and
 * bools: compared as doubles, so a bound such as 0.5 is not truncated
 * first; an element in range is copied as it is. */
template <class T>
__global__ void clip_kernel(T *out, const T *a, double lo, double hi,
                            int64_t n)
{
    ND_GPU_FOR(i, n) {
        if constexpr (is_float<T>) {
            T low = (T)lo, high = (T)hi, v = a[i] < low ? low : a[i];
            out[i] = v > high ? high : v;
        } else {
            double x = (double)a[i], v = x < lo ? lo : x;
            v = v > hi ? hi : v;
            out[i] = v != x ? convert<T>(v) : a[i];
        }
    }
}

int clip(NdArray *out, const NdArray *a, double lo, double hi)
{
    return visit_dtype(a->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_complex<T>) {
            return fail("clip: not supported for the dtype %s",
                        dtype_name(a->dtype));
        } else {
            return launch("clip", clip_kernel<T>, out->size, (T *)out->data,
                          (const T *)a->data, lo, hi, out->size);
        }
    });
}

/* ------------------------------------------------------------ allclose */

__device__ inline bool finite(c128 z)
{
    return isfinite(z.real()) && isfinite(z.imag());
}

/* Sets *mismatch where |x - y| > atol + rtol * |y|, or where x and y
 * differ and either is not finite; equal values (infinities too) match,
 * as in the CPU half's nd_allclose. */
template <class A, class B>
__global__ void allclose_kernel(int *mismatch, const A *a, Reader ra,
                                const B *b, Reader rb, double rtol,
                                double atol, int64_t n)
{
    ND_GPU_FOR(i, n) {
        c128 x = convert<c128>(a[ra.at(i)]), y = convert<c128>(b[rb.at(i)]);
        if (x == y)
            continue;
        if (!finite(x) || !finite(y) ||
            !(cuda::std::abs(x - y) <= atol + rtol * cuda::std::abs(y)))
            *mismatch = 1;
    }
}

int allclose(const NdArray *a, const NdArray *b, double rtol, double atol,
             bool *result)
{
    NdArray shape = {};     /* the broadcast shape; only that is read */
    shape.ndim = a->ndim > b->ndim ? a->ndim : b->ndim;
    shape.size = 1;
    for (int d = 0; d < shape.ndim; d++) {
        int ka = d - (shape.ndim - a->ndim), kb = d - (shape.ndim - b->ndim);
        int64_t ea = ka >= 0 ? a->shape[ka] : 1;
        int64_t eb = kb >= 0 ? b->shape[kb] : 1;
        shape.shape[d] = ea == 1 ? eb : ea;
        shape.size *= shape.shape[d];
    }
    int *mismatch = (int *)pool_alloc(sizeof(int));
    if (!mismatch)
        return -1;
    int found = 0;
    int status = upload(mismatch, &found, sizeof found);
    if (status == 0)
        status = visit_dtype(a->dtype, [&](auto ta) {
            using A = typename decltype(ta)::type;
            return visit_dtype(b->dtype, [&](auto tb) {
                using B = typename decltype(tb)::type;
                return launch("allclose", allclose_kernel<A, B>, shape.size,
                              mismatch, (const A *)a->data,
                              reader_for(&shape, a), (const B *)b->data,
                              reader_for(&shape, b), rtol, atol,
                              shape.size);
            });
        });
    if (status == 0)
        status = download(&found, mismatch, sizeof found);
    pool_free(mismatch);
    *result = found == 0;
    return status;
}

} // namespace ndg
