/* nd_broadcast.h - broadcast index arithmetic, shared by the C library
 * and the CUDA kernels (both compilers include it), so the CPU tests
 * exercise the same code the GPU runs. */
#ifndef ND_BROADCAST_H
#define ND_BROADCAST_H

#include <stdint.h>

#include "nd_host_device.h"

enum { ND_BCAST_MAX_DIMS = 8 };

/* Element strides (in elements, C order) of an operand of shape
 * in_shape[in_ndim] read as if it had out_shape[out_ndim]: 0 along every
 * axis it is broadcast over. The shapes must be compatible. */
ND_HOST_DEVICE static inline void
nd_broadcast_strides(int out_ndim, const int64_t *out_shape, int in_ndim,
                     const int64_t *in_shape, int64_t *strides)
{
    int64_t stride = 1;
    for (int d = out_ndim - 1; d >= 0; d--) {
        int k = d - (out_ndim - in_ndim);       /* matching input axis */
        if (k < 0 || in_shape[k] == 1) {
            strides[d] = 0;
        } else {
            strides[d] = stride;
        }
        if (k >= 0)
            stride *= in_shape[k];
    }
    (void)out_shape;    /* implied by out_ndim: kept for readability */
}

/* NumPy's broadcast shape of a[a_ndim] and b[b_ndim], into out: returns
 * its ndim (the larger of the two), or -1 when an axis of one is
 * neither 1 nor the other's. */
ND_HOST_DEVICE static inline int
nd_broadcast_shape(int a_ndim, const int64_t *a, int b_ndim,
                   const int64_t *b, int64_t *out)
{
    int ndim = a_ndim > b_ndim ? a_ndim : b_ndim;
    for (int d = 0; d < ndim; d++) {
        int ka = d - (ndim - a_ndim), kb = d - (ndim - b_ndim);
        int64_t ea = ka >= 0 ? a[ka] : 1;
        int64_t eb = kb >= 0 ? b[kb] : 1;
        if (ea != eb && ea != 1 && eb != 1)
            return -1;
        out[d] = ea == 1 ? eb : ea;
    }
    return ndim;
}

/* Offset into an operand of the output element at flat index i. */
ND_HOST_DEVICE static inline int64_t
nd_broadcast_offset(int64_t i, int ndim, const int64_t *shape,
                    const int64_t *strides)
{
    int64_t offset = 0;
    for (int d = ndim - 1; d >= 0; d--) {
        int64_t coord = i % shape[d];
        i /= shape[d];
        offset += coord * strides[d];
    }
    return offset;
}

#endif /* ND_BROADCAST_H */
