/* host_elements.cu - the element functions of the GPU kernels, applied
 * on the host (host_elements.h): the loops of elementwise.cu's kernels
 * without the grid. Only the host pass of nvcc matters here; this file
 * holds no kernel. */
#include <cstdarg>
#include <cstdio>
#include <vector>

#include "../../common/cuda/elements.cuh"
#include "host_elements.h"

namespace ndg {

/* The library's fail and last_error, which visit_dtype reports with. */
static char error_text[256];

int fail(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(error_text, sizeof error_text, fmt, args);
    va_end(args);
    return -1;
}

const char *last_error()
{
    return error_text;
}

/* The dtype of a C++ element type. */
template <class T> constexpr NdDtype dtype_of();
template <> constexpr NdDtype dtype_of<bool>() { return ND_BOOL; }
template <> constexpr NdDtype dtype_of<uint8_t>() { return ND_UINT8; }
template <> constexpr NdDtype dtype_of<int64_t>() { return ND_INT64; }
template <> constexpr NdDtype dtype_of<float>() { return ND_FLOAT32; }
template <> constexpr NdDtype dtype_of<double>() { return ND_FLOAT64; }
template <> constexpr NdDtype dtype_of<c64>() { return ND_COMPLEX64; }
template <> constexpr NdDtype dtype_of<c128>() { return ND_COMPLEX128; }

/* 0 when out can hold n elements of Out, else -1 saying why. */
template <class Out>
static int check_out(const NdArray *out, int64_t n)
{
    if (out->dtype != dtype_of<Out>())
        return fail("out has the dtype %s, the operation gives %s",
                    dtype_name(out->dtype), dtype_name(dtype_of<Out>()));
    if (out->size != n)
        return fail("out has %lld elements, the operands %lld",
                    (long long)out->size, (long long)n);
    return 0;
}

template <int OP>
static int unary_on_host(NdArray *out, const NdArray *a)
{
    return visit_dtype(a->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (unary_supported<OP, T>()) {
            using Out = UnaryOut<OP, T>;
            if (check_out<Out>(out, a->size) != 0)
                return -1;
            for (int64_t i = 0; i < a->size; i++)
                ((Out *)out->data)[i] =
                    unary_element<OP, T>(((const T *)a->data)[i]);
            return 0;
        } else {
            return fail("unary operation %d: not supported for the "
                        "dtype %s", OP, dtype_name(a->dtype));
        }
    });
}

template <int OP>
static int binary_on_host(NdArray *out, const NdArray *a, const NdArray *b)
{
    if (b->dtype != a->dtype || b->size != a->size)
        return fail("the operands differ in dtype or size");
    return visit_dtype(a->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (binary_supported<OP, T>()) {
            using Out = BinaryOut<OP, T>;
            if (check_out<Out>(out, a->size) != 0)
                return -1;
            for (int64_t i = 0; i < a->size; i++)
                ((Out *)out->data)[i] = binary_element<OP, T>(
                    ((const T *)a->data)[i], ((const T *)b->data)[i]);
            return 0;
        } else {
            return fail("binary operation %d: not supported for the "
                        "dtype %s", OP, dtype_name(a->dtype));
        }
    });
}

} // namespace ndg

using namespace ndg;

extern "C" int host_unary(NdGpuUnary op, NdArray *out, const NdArray *a)
{
    switch (op) {
    case ND_GPU_NEG: return unary_on_host<ND_GPU_NEG>(out, a);
    case ND_GPU_EXP: return unary_on_host<ND_GPU_EXP>(out, a);
    case ND_GPU_LOG: return unary_on_host<ND_GPU_LOG>(out, a);
    case ND_GPU_SIN: return unary_on_host<ND_GPU_SIN>(out, a);
    case ND_GPU_COS: return unary_on_host<ND_GPU_COS>(out, a);
    case ND_GPU_TANH: return unary_on_host<ND_GPU_TANH>(out, a);
    case ND_GPU_SQRT: return unary_on_host<ND_GPU_SQRT>(out, a);
    case ND_GPU_ABS: return unary_on_host<ND_GPU_ABS>(out, a);
    case ND_GPU_SIGMOID: return unary_on_host<ND_GPU_SIGMOID>(out, a);
    }
    return fail("unknown unary operation %d", (int)op);
}

extern "C" int host_binary(NdGpuBinary op, NdArray *out, const NdArray *a,
                           const NdArray *b)
{
    switch (op) {
    case ND_GPU_ADD: return binary_on_host<ND_GPU_ADD>(out, a, b);
    case ND_GPU_SUB: return binary_on_host<ND_GPU_SUB>(out, a, b);
    case ND_GPU_MUL: return binary_on_host<ND_GPU_MUL>(out, a, b);
    case ND_GPU_DIV: return binary_on_host<ND_GPU_DIV>(out, a, b);
    case ND_GPU_POW: return binary_on_host<ND_GPU_POW>(out, a, b);
    case ND_GPU_MAXIMUM: return binary_on_host<ND_GPU_MAXIMUM>(out, a, b);
    case ND_GPU_MINIMUM: return binary_on_host<ND_GPU_MINIMUM>(out, a, b);
    case ND_GPU_EQ: return binary_on_host<ND_GPU_EQ>(out, a, b);
    case ND_GPU_NE: return binary_on_host<ND_GPU_NE>(out, a, b);
    case ND_GPU_LT: return binary_on_host<ND_GPU_LT>(out, a, b);
    case ND_GPU_LE: return binary_on_host<ND_GPU_LE>(out, a, b);
    case ND_GPU_GT: return binary_on_host<ND_GPU_GT>(out, a, b);
    case ND_GPU_GE: return binary_on_host<ND_GPU_GE>(out, a, b);
    }
    return fail("unknown binary operation %d", (int)op);
}

extern "C" int host_cast(NdArray *out, const NdArray *a)
{
    if (out->size != a->size)
        return fail("out has %lld elements, a %lld", (long long)out->size,
                    (long long)a->size);
    return visit_dtype(out->dtype, [&](auto to) {
        using To = typename decltype(to)::type;
        return visit_dtype(a->dtype, [&](auto from) {
            using From = typename decltype(from)::type;
            for (int64_t i = 0; i < a->size; i++)
                ((To *)out->data)[i] =
                    convert<To>(((const From *)a->data)[i]);
            return 0;
        });
    });
}

extern "C" int host_scaled_sub(NdArray *dst, double a, const NdArray *v)
{
    if (v->dtype != dst->dtype || v->size != dst->size)
        return fail("dst and v differ in dtype or size");
    return visit_dtype(dst->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_float<T>) {
            for (int64_t i = 0; i < dst->size; i++)
                ((T *)dst->data)[i] = scaled_sub_element<T>(
                    ((T *)dst->data)[i], (T)a, ((const T *)v->data)[i]);
            return 0;
        } else {
            return fail("scaled_sub: not supported for the dtype %s",
                        dtype_name(dst->dtype));
        }
    });
}

template <class T>
static int scaled_sub_each_on_host(int n, NdArray *const dsts[], double a,
                                   const NdArray *const vs[])
{
    for (int k = 0; k < n; k++)
        if (dsts[k]->dtype != dsts[0]->dtype ||
            vs[k]->dtype != dsts[0]->dtype || vs[k]->size != dsts[k]->size)
            return fail("the pairs differ in dtype or size");
    ScaledSubPairs<T> pairs = scaled_sub_pairs<T>(n, dsts, a, vs);
    for (int64_t i = 0; i < pairs.end[n - 1]; i++)
        scaled_sub_at(pairs, i);
    return 0;
}

extern "C" int host_scaled_sub_each(int n, NdArray *const dsts[], double a,
                                    const NdArray *const vs[])
{
    if (n < 1 || n > ND_GPU_EACH_PAIRS)
        return fail("%d pairs", n);
    return visit_dtype(dsts[0]->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_float<T>) {
            return scaled_sub_each_on_host<T>(n, dsts, a, vs);
        } else {
            return fail("scaled_sub_each: not supported for the dtype %s",
                        dtype_name(dsts[0]->dtype));
        }
    });
}

extern "C" int host_sigmoid_grad(NdArray *out, const NdArray *y,
                                 const NdArray *gy)
{
    if (gy->dtype != y->dtype || out->dtype != y->dtype ||
        gy->size != y->size || out->size != y->size)
        return fail("out, y and gy differ in dtype or size");
    return visit_dtype(y->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_float<T>) {
            for (int64_t i = 0; i < y->size; i++)
                ((T *)out->data)[i] = sigmoid_grad_element<T>(
                    ((const T *)y->data)[i], ((const T *)gy->data)[i]);
            return 0;
        } else {
            return fail("sigmoid_grad: not supported for the dtype %s",
                        dtype_name(y->dtype));
        }
    });
}

extern "C" int host_normalize(NdArray *out, const NdArray *a, double mean,
                              double std)
{
    if (out->dtype != a->dtype || out->size != a->size)
        return fail("out and a differ in dtype or size");
    return visit_dtype(a->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_float<T>) {
            for (int64_t i = 0; i < a->size; i++)
                ((T *)out->data)[i] = normalize_element<T>(
                    ((const T *)a->data)[i], T(mean), T(std));
            return 0;
        } else {
            return fail("normalize: not supported for the dtype %s",
                        dtype_name(a->dtype));
        }
    });
}

extern "C" int host_arange(NdArray *out, double start, double step)
{
    return visit_dtype(out->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        for (int64_t i = 0; i < out->size; i++)
            ((T *)out->data)[i] = arange_element<T>(start, step, i);
        return 0;
    });
}

extern "C" int host_softmax(NdArray *out, const NdArray *a, bool take_log)
{
    if (out->dtype != a->dtype || out->size != a->size || a->size == 0)
        return fail("out and a differ in dtype or size, or a is empty");
    int64_t n = a->shape[a->ndim - 1], rows = a->size / n;
    return visit_dtype(a->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_float<T>) {
            for (int64_t r = 0; r < rows; r++)
                softmax_row((T *)out->data + r * n,
                            (const T *)a->data + r * n, n, take_log);
            return 0;
        } else {
            return fail("softmax: not supported for the dtype %s",
                        dtype_name(a->dtype));
        }
    });
}

/* The kernel's two stages for scores T and labels L: the picked
 * log-softmax of each row, then the loss of them. */
template <class T, class L>
static int cross_entropy_on_host(NdArray *loss, const NdArray *x,
                                 const NdArray *t)
{
    int64_t rows = x->shape[0], n = x->shape[1];
    std::vector<T> picked(rows);
    for (int64_t r = 0; r < rows; r++)
        picked[r] = picked_log_softmax((const T *)x->data + r * n, n,
                                       int64_t(((const L *)t->data)[r]));
    *(T *)loss->data = cross_entropy_of(picked.data(), rows);
    return 0;
}

extern "C" int host_softmax_cross_entropy(NdArray *loss, const NdArray *x,
                                          const NdArray *t)
{
    if (x->ndim != 2 || x->size == 0 || t->size != x->shape[0] ||
        loss->size != 1 || loss->dtype != x->dtype)
        return fail("x, t or loss has the wrong size or dtype");
    return visit_dtype(x->dtype, [&](auto x_tag) {
        return visit_dtype(t->dtype, [&](auto t_tag) {
            using T = typename decltype(x_tag)::type;
            using L = typename decltype(t_tag)::type;
            if constexpr (is_float<T> && is_integer<L>) {
                return cross_entropy_on_host<T, L>(loss, x, t);
            } else {
                return fail("softmax_cross_entropy: not supported for "
                            "scores %s and labels %s", dtype_name(x->dtype),
                            dtype_name(t->dtype));
            }
        });
    });
}

extern "C" int host_softmax_cross_entropy_grad(NdArray *gx, const NdArray *x,
                                               const NdArray *t,
                                               const NdArray *gy)
{
    if (x->ndim != 2 || x->size == 0 || t->size != x->shape[0] ||
        gy->size != 1 || gx->size != x->size)
        return fail("x, t, gy or gx has the wrong size");
    int64_t rows = x->shape[0], n = x->shape[1];
    return visit_dtype(x->dtype, [&](auto x_tag) {
        return visit_dtype(t->dtype, [&](auto t_tag) {
            using T = typename decltype(x_tag)::type;
            using L = typename decltype(t_tag)::type;
            if constexpr (is_float<T> && is_integer<L>) {
                using Out = CrossEntropyGrad<T, L>;
                if (gx->dtype != dtype_of<Out>())
                    return fail("gx has the wrong dtype");
                double g = gy->dtype == ND_FLOAT32
                               ? double(*(const float *)gy->data)
                               : *(const double *)gy->data;
                for (int64_t r = 0; r < rows; r++)
                    cross_entropy_grad_row(
                        (Out *)gx->data + r * n, (const T *)x->data + r * n,
                        n, int64_t(((const L *)t->data)[r]),
                        Out(g * (1.0 / double(rows))));
                return 0;
            } else {
                return fail("softmax_cross_entropy_grad: not supported for "
                            "scores %s and labels %s", dtype_name(x->dtype),
                            dtype_name(t->dtype));
            }
        });
    });
}

extern "C" const char *host_elements_error(void)
{
    return last_error();
}
