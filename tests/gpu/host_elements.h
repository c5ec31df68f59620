/* host_elements.h - the GPU kernels' element functions
 * (common/cuda/elements.cuh, and convert in gpu.cuh) run on the host,
 * over host arrays, by host_elements.cu: nvcc compiles them for the CPU
 * as well as for the GPU, so a machine without a GPU can check every
 * operation and dtype the kernels compute against the CPU half.
 *
 * Each call writes out (a host array of a's shape and the operation's
 * output dtype) from a, and b of the same shape; it borrows every array.
 * It returns 0, or -1 where the kernels refuse the operation for the
 * dtype, or out has the wrong dtype or size; host_elements_error() then
 * says why. */
#ifndef HOST_ELEMENTS_H
#define HOST_ELEMENTS_H

#include "nd_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

int host_unary(NdGpuUnary op, NdArray *out, const NdArray *a);
int host_binary(NdGpuBinary op, NdArray *out, const NdArray *a,
                const NdArray *b);
int host_cast(NdArray *out, const NdArray *a);
/* dst -= a * v in place, for dst and v of one size and float dtype. */
int host_scaled_sub(NdArray *dst, double a, const NdArray *v);
/* The same for n pairs (1 to ND_GPU_EACH_PAIRS) of one float dtype, as
 * the kernel for many pairs walks their elements taken together. */
int host_scaled_sub_each(int n, NdArray *const dsts[], double a,
                         const NdArray *const vs[]);
/* out = nd_sigmoid_grad(y, gy), for out, y and gy of one size and
 * float dtype. */
int host_sigmoid_grad(NdArray *out, const NdArray *y, const NdArray *gy);
/* out = nd_normalize(a, mean, std), for out and a of one size and float
 * dtype. */
int host_normalize(NdArray *out, const NdArray *a, double mean, double std);
/* out (1-D) = np.arange(start, ..., step) in out's dtype. */
int host_arange(NdArray *out, double start, double step);
/* out = nd_softmax(a, -1), or nd_log_softmax(a, -1) when take_log, row
 * by row as softmax.cu's threads fold them; a float, not empty. */
int host_softmax(NdArray *out, const NdArray *a, bool take_log);
/* loss (0-d) = nd_softmax_cross_entropy(x, t), as softmax.cu's kernel
 * computes it: x float (N, C), N and C >= 1, t uint8 or int64, loss of
 * x's dtype. */
int host_softmax_cross_entropy(NdArray *loss, const NdArray *x,
                               const NdArray *t);
/* gx = nd_softmax_cross_entropy_grad(x, t, gy), row by row as
 * softmax.cu's threads fold them: x float (N, C), C >= 1, t uint8 or
 * int64, gy a float of one element, gx of the promoted dtype. */
int host_softmax_cross_entropy_grad(NdArray *gx, const NdArray *x,
                                    const NdArray *t, const NdArray *gy);
const char *host_elements_error(void);

#ifdef __cplusplus
}
#endif

#endif /* HOST_ELEMENTS_H */
