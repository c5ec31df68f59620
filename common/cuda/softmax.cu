/* softmax.cu - nd_softmax and nd_log_softmax along the last axis in one
 * kernel, where the chain of fused.c takes five and seven: each thread
 * folds one row (elements.cuh's softmax_row). A classifier's rows are
 * short (10 classes for MNIST, 1000 for ImageNet), so a thread a row
 * keeps the kernel plain; the CPU half gives rows longer than
 * ND_GPU_SOFTMAX_ROW to the chain instead. */
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

} // namespace ndg
