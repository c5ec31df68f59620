/* conv.cu - im2col and col2im (nd_im2col, nd_col2im) on the device, as
 * the Chainer kernels that DeZero runs through CuPy: one thread per col
 * element for im2col; for col2im one thread per image element, adding
 * the entries of its windows in order of (ky, kx), the host's order, so
 * that the two agree bit for bit without atomics. nd_gpu.h's shared
 * arithmetic places every entry (nd_conv_col_strides, which the host
 * uses too) and finds the windows of an element (nd_conv_cover). */
#include "gpu.cuh"

namespace ndg {

/* Strides reach a kernel by value in this. */
struct ColStrides {
    int64_t s[6];                   /* of (n, c, ky, kx, oy, ox) in col */
};

/* col[i] = the image element that entry i of col holds, or 0 in the
 * padding. i is taken apart in col's order of axes: (n, oy, ox, c, ky,
 * kx) for the matrix, else (n, c, ky, kx, oy, ox). */
template <class T, bool kMatrix>
__global__ void im2col_kernel(T *col, const T *img, NdConvGeometry g,
                              int64_t size)
{
    ND_GPU_FOR(i, size) {
        int64_t n, c, ky, kx, oy, ox, t = i;
        if (kMatrix) {
            kx = t % g.kw; t /= g.kw;
            ky = t % g.kh; t /= g.kh;
            c = t % g.c; t /= g.c;
            ox = t % g.ow; t /= g.ow;
            oy = t % g.oh; n = t / g.oh;
        } else {
            ox = t % g.ow; t /= g.ow;
            oy = t % g.oh; t /= g.oh;
            kx = t % g.kw; t /= g.kw;
            ky = t % g.kh; t /= g.kh;
            c = t % g.c; n = t / g.c;
        }
        int64_t y = oy * g.sh - g.ph + ky, x = ox * g.sw - g.pw + kx;
        col[i] = y >= 0 && y < g.h && x >= 0 && x < g.w
                     ? img[((n * g.c + c) * g.h + y) * g.w + x]
                     : T(0);
    }
}

/* img[i] = the sum of the col entries that hold image element i: those
 * of the windows that cover its row and its column (nd_conv_cover), in
 * order of (ky, kx). */
template <class T>
__global__ void col2im_kernel(T *img, const T *col, NdConvGeometry g,
                              ColStrides cs, int64_t size)
{
    const int64_t *s = cs.s;
    ND_GPU_FOR(i, size) {
        int64_t x = i % g.w, t = i / g.w;
        int64_t y = t % g.h;
        t /= g.h;
        int64_t c = t % g.c, n = t / g.c;
        int64_t ky, oy, kx, ox;
        int64_t rows = nd_conv_cover(y, g.kh, g.sh, g.ph, g.oh, &ky, &oy);
        int64_t cols = nd_conv_cover(x, g.kw, g.sw, g.pw, g.ow, &kx, &ox);
        /* entry (ky, kx) of window (oy, ox); the next window along an
         * axis is one back and s further into it */
        const T *first = col + n * s[0] + c * s[1] + ky * s[2] + kx * s[3] +
                         oy * s[4] + ox * s[5];
        int64_t down = g.sh * s[2] - s[4], across = g.sw * s[3] - s[5];
        T sum = T(0);
        for (int64_t r = 0; r < rows; r++)
            for (int64_t q = 0; q < cols; q++)
                sum += first[r * down + q * across];
        img[i] = sum;
    }
}

int im2col(NdArray *col, const NdArray *img, const NdConvGeometry *g)
{
    return visit_dtype(col->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_float<T>) {
            unsigned blocks = blocks_for(col->size);
            return launch_kernel("im2col", blocks, kThreads,
                                 g->to_matrix ? im2col_kernel<T, true>
                                              : im2col_kernel<T, false>,
                                 (T *)col->data, (const T *)img->data, *g,
                                 col->size);
        } else {
            return fail("im2col: not supported for the dtype %s",
                        dtype_name(col->dtype));
        }
    });
}

int col2im(NdArray *img, const NdArray *col, const NdConvGeometry *g)
{
    ColStrides cs;
    nd_conv_col_strides(g, cs.s);
    return visit_dtype(img->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_float<T>) {
            return launch_kernel("col2im", blocks_for(img->size), kThreads,
                                 col2im_kernel<T>, (T *)img->data,
                                 (const T *)col->data, *g, cs, img->size);
        } else {
            return fail("col2im: not supported for the dtype %s",
                        dtype_name(img->dtype));
        }
    });
}

} // namespace ndg
