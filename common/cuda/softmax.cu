/* softmax.cu - nd_softmax and nd_log_softmax along the last axis, and
 * nd_softmax_cross_entropy and its gradient, in one kernel each, where
 * the chains of fused.c take five, seven, nine and twelve: each thread
 * folds one row (elements.cuh's softmax_row, picked_log_softmax and
 * cross_entropy_grad_row). A classifier's rows are short (10 classes
 * for MNIST, 1000 for ImageNet), so a thread a row keeps the kernels
 * plain; the CPU half gives rows longer than ND_GPU_SOFTMAX_ROW to the
 * chain instead. */
#include "elements.cuh"

namespace ndg {

/* out and a: rows rows of n elements, one after another. */
template <class T>
__global__ void softmax_kernel(T *out, const T *a, int64_t rows, int64_t n,
                               bool take_log)
{
    ND_GPU_FOR(r, rows)
        softmax_row(out + r * n, a + r * n, n, take_log);
}

int softmax(NdArray *out, const NdArray *a, bool take_log)
{
    int64_t n = a->shape[a->ndim - 1], rows = a->size / n;
    return visit_dtype(a->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_float<T>) {
            return launch_kernel("softmax", blocks_for(rows), kThreads,
                                 softmax_kernel<T>, (T *)out->data,
                                 (const T *)a->data, rows, n, take_log);
        } else {
            return fail("softmax: not supported for the dtype %s",
                        dtype_name(a->dtype));
        }
    });
}

/* One block: its threads pick each row's log-softmax into picked, then
 * one thread adds them, in the order nd_sum adds, into *loss. */
template <class T, class L>
__global__ void cross_entropy_kernel(T *loss, T *picked, const T *x,
                                     const L *t, int64_t rows, int64_t n)
{
    for (int64_t r = threadIdx.x; r < rows; r += blockDim.x)
        picked[r] = picked_log_softmax(x + r * n, n, int64_t(t[r]));
    __syncthreads();
    if (threadIdx.x == 0)
        *loss = cross_entropy_of(picked, rows);
}

/* The picked log-softmaxes wait in a (rows,) block of the pool's. */
int softmax_cross_entropy(NdArray *loss, const NdArray *x, const NdArray *t)
{
    int64_t rows = x->shape[0], n = x->shape[1];
    return visit_dtype(x->dtype, [&](auto x_tag) {
        return visit_dtype(t->dtype, [&](auto t_tag) {
            using T = typename decltype(x_tag)::type;
            using L = typename decltype(t_tag)::type;
            if constexpr (is_float<T> && is_integer<L>) {
                T *picked = (T *)pool_alloc((size_t)rows * sizeof(T));
                if (!picked)
                    return -1;
                int status = launch_kernel(
                    "softmax_cross_entropy", 1, kThreads,
                    cross_entropy_kernel<T, L>, (T *)loss->data, picked,
                    (const T *)x->data, (const L *)t->data, rows, n);
                pool_free(picked);          /* reused only by later kernels */
                return status;
            } else {
                return fail("softmax_cross_entropy: not supported for "
                            "scores %s and labels %s", dtype_name(x->dtype),
                            dtype_name(t->dtype));
            }
        });
    });
}

/* gx and x: rows rows of n elements; t: a label per row; gy: one
 * value, the loss's gradient, scaled by inv_n = 1/N in double as the
 * chain's float64 product does, then taken to Out. */
template <class T, class L, class G, class Out>
__global__ void cross_entropy_grad_kernel(Out *gx, const T *x, const L *t,
                                          const G *gy, double inv_n,
                                          int64_t rows, int64_t n)
{
    Out g = Out(double(*gy) * inv_n);
    ND_GPU_FOR(r, rows)
        cross_entropy_grad_row(gx + r * n, x + r * n, n, int64_t(t[r]), g);
}

/* gx's dtype is x's and t's promoted: x's, but float64 for float32
 * scores with int64 labels. */
template <class T, class L, class G>
int launch_cross_entropy_grad(NdArray *gx, const NdArray *x,
                              const NdArray *t, const NdArray *gy)
{
    using Out = CrossEntropyGrad<T, L>;
    NdDtype want = float_dtype(std::is_same<Out, double>::value);
    if (gx->dtype != want)
        return fail("softmax_cross_entropy_grad: gx must be %s, not %s",
                    dtype_name(want), dtype_name(gx->dtype));
    int64_t rows = x->shape[0], n = x->shape[1];
    return launch_kernel("softmax_cross_entropy_grad", blocks_for(rows),
                         kThreads, cross_entropy_grad_kernel<T, L, G, Out>,
                         (Out *)gx->data, (const T *)x->data,
                         (const L *)t->data, (const G *)gy->data,
                         1.0 / double(rows), rows, n);
}

int softmax_cross_entropy_grad(NdArray *gx, const NdArray *x,
                               const NdArray *t, const NdArray *gy)
{
    return visit_dtype(x->dtype, [&](auto x_tag) {
        return visit_dtype(t->dtype, [&](auto t_tag) {
            return visit_dtype(gy->dtype, [&](auto gy_tag) {
                using T = typename decltype(x_tag)::type;
                using L = typename decltype(t_tag)::type;
                using G = typename decltype(gy_tag)::type;
                if constexpr (is_float<T> && is_integer<L> && is_float<G>) {
                    return launch_cross_entropy_grad<T, L, G>(gx, x, t, gy);
                } else {
                    return fail("softmax_cross_entropy_grad: not supported "
                                "for scores %s, labels %s and gy %s",
                                dtype_name(x->dtype), dtype_name(t->dtype),
                                dtype_name(gy->dtype));
                }
            });
        });
    });
}

} // namespace ndg
