/* nd_gpu.h - the seam between the array library (C, libnd.a) and its GPU
 * half (CUDA, libnd_cuda.so, opened with dlopen): one versioned table of
 * functions that the GPU library exports through nd_gpu_backend(), and
 * the index arithmetic that both compilers share. */
#ifndef ND_GPU_H
#define ND_GPU_H

#ifdef __cplusplus
/* nd.h is C11; in C++ (nvcc) its _Noreturn is spelled as an attribute. */
#define _Noreturn [[noreturn]]
extern "C" {
#endif

#include "nd.h"
#include "nd_broadcast.h"

/* Bumped whenever the table below changes: a GPU library built from
 * other sources is refused instead of called through the wrong slots. */
enum { ND_GPU_ABI_VERSION = 10 };

/* Why the GPU cannot be used, as the GPU library finds out. */
typedef enum NdGpuInit {
    ND_GPU_READY,
    ND_GPU_NO_DRIVER,       /* libcuda.so.1 missing (or only its stub) */
    ND_GPU_OLD_DRIVER,      /* the driver predates the CUDA runtime */
    ND_GPU_NO_DEVICE,
    ND_GPU_INIT_FAILED,     /* any other CUDA error; see the detail */
} NdGpuInit;

/* The operations, in the order of the CPU half's tables. */
typedef enum NdGpuBinary {
    ND_GPU_ADD, ND_GPU_SUB, ND_GPU_MUL, ND_GPU_DIV, ND_GPU_POW,
    ND_GPU_MAXIMUM, ND_GPU_MINIMUM,
    ND_GPU_EQ, ND_GPU_NE, ND_GPU_LT, ND_GPU_LE, ND_GPU_GT, ND_GPU_GE,
} NdGpuBinary;

typedef enum NdGpuUnary {
    ND_GPU_NEG, ND_GPU_EXP, ND_GPU_LOG, ND_GPU_SIN, ND_GPU_COS,
    ND_GPU_TANH, ND_GPU_SQRT, ND_GPU_ABS,
    ND_GPU_SIGMOID,         /* nd_sigmoid's chain, float32 and float64 */
} NdGpuUnary;

/* The longest row the softmax kernel takes: one thread folds a row. */
enum { ND_GPU_SOFTMAX_ROW = 4096 };

/* The most pairs one launch of scaled_sub_each updates: their pointers
 * travel in the kernel's parameters. */
enum { ND_GPU_EACH_PAIRS = 64 };

typedef enum NdGpuReduce {
    ND_GPU_SUM, ND_GPU_MEAN, ND_GPU_MAX, ND_GPU_MIN,
} NdGpuReduce;

typedef enum NdGpuFft {
    ND_GPU_FFT,             /* complex128 -> complex128, every axis */
    ND_GPU_IFFT,            /* the same, inverse, scaled by 1/size */
    ND_GPU_RFFT,            /* float64 -> complex128, last axis n/2+1 */
    ND_GPU_IRFFT,           /* complex128 -> float64, last axis n */
} NdGpuFft;

/* The caching pool's counters, as CuPy's MemoryPool reports them. */
typedef struct NdGpuPoolStats {
    size_t used_bytes;      /* held by live arrays */
    size_t cached_bytes;    /* freed, kept for reuse */
    int64_t device_mallocs; /* cudaMalloc calls so far */
    int64_t reuses;         /* allocations served from the cache */
} NdGpuPoolStats;

/* Where the elements of a[index] lie in a (NumPy's basic and advanced
 * indexing, planned on the host): element i of the selection, in C
 * order over shape, is at
 *     base + sum_d coord_d * strides[d]
 *          + sum_k arrays[k].data[sum_d coord_d * arrays[k].strides[d]]
 *                  * arrays[k].axis_stride
 * elements from a's start, an index entry counting from the end of its
 * axis when negative. */
typedef struct NdGpuIndexArray {
    const int64_t *data;            /* int64 indices, on the device */
    int64_t strides[ND_MAX_DIMS];   /* per selection dim; 0: not read */
    int64_t axis_size;              /* extent of the axis it indexes */
    int64_t axis_stride;            /* elements of a per step on it */
    int axis;                       /* that axis, for error messages */
} NdGpuIndexArray;

typedef struct NdGpuIndexPlan {
    int ndim;                       /* the selection's shape */
    int64_t shape[ND_MAX_DIMS];
    int64_t size;
    int64_t base;                   /* what ints and slice starts fix */
    int64_t strides[ND_MAX_DIMS];   /* elements of a per step; 0 for the
                                       dims of the index arrays */
    int narrays;
    NdGpuIndexArray arrays[ND_MAX_DIMS];
} NdGpuIndexPlan;

/* An index entry found out of range by a kernel. */
typedef struct NdGpuIndexError {
    int found;                      /* 0: every index was in range */
    int axis;
    int64_t index, axis_size;
} NdGpuIndexError;

/* What a check that did not make the host wait found: the first entry
 * out of range of the first such check since the record was last taken
 * (take_pending). A gather's check fills axis and limit (the axis's
 * size) and its position in the selection; check_range's, the position
 * in the array checked and its hi as limit, with axis -1. */
typedef struct NdGpuPending {
    int found;                      /* 0: nothing found */
    int tag;                        /* the caller's tag of the check */
    int axis;
    int64_t value;                  /* the entry out of range */
    int64_t position;
    int64_t limit;
} NdGpuPending;

/* The windows of a 2-D convolution (nd_im2col, nd_col2im): an image
 * batch (n, c, h, w) padded with ph, pw zeros on each side, seen through
 * kh x kw windows moved by sh, sw: oh x ow windows an image. Their
 * elements, the "col" array, lie as (n, c, kh, kw, oh, ow), or when
 * to_matrix as (n*oh*ow, c*kh*kw): the same axes in the order (n, oh,
 * ow, c, kh, kw), one row per window. */
typedef struct NdConvGeometry {
    int64_t n, c, h, w;
    int64_t kh, kw, sh, sw, ph, pw;
    int64_t oh, ow;
    bool to_matrix;
} NdConvGeometry;

/* The table. Every int-returning entry returns 0 on success and -1 on a
 * failed CUDA call or an operation it cannot do, with last_error()
 * saying which; alloc returns NULL then. The NdArray arguments are
 * device arrays whose shapes and dtypes the CPU half has checked;
 * outputs are allocated (with alloc) by the caller. */
typedef struct NdGpuBackend {
    int abi_version;                /* ND_GPU_ABI_VERSION */
    const char *(*last_error)(void);
    /* Finds the driver and device 0; writes a one-line detail. */
    NdGpuInit (*init)(char *detail, size_t size);

    /* Memory, through the caching pool. Copies run in order with the
     * kernels (the default stream); upload and download return once the
     * data has arrived, large ones staged through pinned memory. */
    void *(*alloc)(size_t bytes);
    void (*free)(void *ptr);
    int (*upload)(void *dst, const void *src, size_t bytes);
    int (*download)(void *dst, const void *src, size_t bytes);
    int (*copy)(void *dst, const void *src, size_t bytes);
    int (*synchronize)(void);
    void (*pool_stats)(NdGpuPoolStats *stats);
    int (*pool_trim)(void);         /* cudaFree what the pool caches */

    /* Elementwise. "Broadcast" operands are read as if they had out's
     * shape (nd_broadcast_strides). */
    int (*fill)(NdArray *out, double value);    /* cast as nd_store */
    /* out = in broadcast to out's shape, converted to out's dtype. */
    int (*cast)(NdArray *out, const NdArray *in);
    /* The general copy: ndim/shape walked in C order, elements of
     * elsize bytes read and written through element strides. */
    int (*copy_strided)(void *dst, const int64_t *dst_strides,
                        const void *src, const int64_t *src_strides,
                        int ndim, const int64_t *shape, size_t elsize);
    /* a and b broadcast, of one dtype; out has it, or bool. */
    int (*binary)(NdGpuBinary op, NdArray *out, const NdArray *a,
                  const NdArray *b);
    /* out has a's shape and dtype (abs of complex: the real dtype). */
    int (*unary)(NdGpuUnary op, NdArray *out, const NdArray *a);
    /* cond (bool), a and b (out's dtype) broadcast. */
    int (*where)(NdArray *out, const NdArray *cond, const NdArray *a,
                 const NdArray *b);
    /* out and a of one shape and real dtype; bounds as nd_clip. */
    int (*clip)(NdArray *out, const NdArray *a, double lo, double hi);
    /* np.allclose of a and b broadcast, any dtypes; *result is set. */
    int (*allclose)(const NdArray *a, const NdArray *b, double rtol,
                    double atol, bool *result);

    /* Reduces the axes d with bit d of axes set; a has out's dtype and
     * out its shape without those axes. MEAN divides by the count. */
    int (*reduce)(NdGpuReduce op, NdArray *out, const NdArray *a,
                  unsigned axes);
    /* out (int64): the first maximum along axis, or over the flattened
     * array when axis is -1; NaN counts as the maximum. */
    int (*argmax)(NdArray *out, const NdArray *a, int axis);

    /* c = op(a) @ op(b), 2-D, one dtype; row-major is handled by the
     * order of the operands, not by copies. */
    int (*gemm)(NdArray *c, const NdArray *a, bool trans_a,
                const NdArray *b, bool trans_b);

    /* out = a[plan] and a[plan] += values (broadcast to the plan's
     * shape, a's dtype; repeated indices add up). gather leaves its
     * check of the indices pending under tag (see take_pending), and
     * what it finds out of range is not read; scatter_add checks every
     * index before it adds and reports one out of range in *err (the
     * call still returns 0). */
    int (*gather)(NdArray *out, const NdArray *a,
                  const NdGpuIndexPlan *plan, int tag);
    int (*scatter_add)(NdArray *a, const NdArray *values,
                       const NdGpuIndexPlan *plan, NdGpuIndexError *err);

    /* The transforms of NdGpuFft over every axis; plans are cached. */
    int (*fft)(NdGpuFft kind, NdArray *out, const NdArray *in);

    /* col = the windows of img; img = for each element, the sum of the
     * col entries that hold it, added in order of (ky, kx) as the host
     * adds them. Both float32 or float64, shaped as g says. */
    int (*im2col)(NdArray *col, const NdArray *img, const NdConvGeometry *g);
    int (*col2im)(NdArray *img, const NdArray *col, const NdConvGeometry *g);

    /* Version 3 appends these two; the entries above are unchanged.
     * The best of repeat cudaMemcpy calls of bytes from or to pinned
     * (cudaMallocHost) memory, after one not counted, into *seconds:
     * the link's ceiling, which upload and download are measured
     * against (bench/bench_gpu.c). */
    int (*pinned_copy_time)(size_t bytes, bool to_device, int repeat,
                            double *seconds);
    /* One line saying how upload and download move their bytes. */
    const char *(*transfer_path)(void);

    /* Version 4 changes gather and appends these. dst -= a * v for
     * dst and v of one size and float dtype, a converted to it: SGD's
     * update in one kernel (nd_isub_scaled), a passed by value. */
    int (*scaled_sub)(NdArray *dst, double a, const NdArray *v);
    /* out (1-D) = np.arange(start, ..., step) in out's dtype, with
     * NumPy's roundings (nd_arange_on). */
    int (*arange)(NdArray *out, double start, double step);
    /* Checks that the host does not wait for: check_range queues a
     * check that every entry of a (int64 or uint8) lies in [lo, hi),
     * and keeps the first one that does not under tag, as gather does
     * for its indices, unless an earlier check still kept holds one.
     * take_pending waits for the queued work, copies the kept record
     * into *pending and clears it. */
    int (*check_range)(const NdArray *a, int64_t lo, int64_t hi, int tag);
    int (*take_pending)(NdGpuPending *pending);

    /* Version 5 adds ND_GPU_SIGMOID and this. out = nd_softmax(a, -1),
     * or nd_log_softmax(a, -1) when log, for a and out of one shape
     * and float dtype, rows of 1 to ND_GPU_SOFTMAX_ROW elements. */
    int (*softmax)(NdArray *out, const NdArray *a, bool log);
    /* Version 6 adds this. out = nd_sigmoid_grad(y, gy), for out, y
     * and gy of one shape and float dtype. */
    int (*sigmoid_grad)(NdArray *out, const NdArray *y, const NdArray *gy);
    /* Version 7 adds this. gx = nd_softmax_cross_entropy_grad(x, t, gy)
     * for float x (N, C), rows of 1 to ND_GPU_SOFTMAX_ROW, uint8 or int64
     * t (N values), a 0-d float gy, and gx of x's shape in the dtype of
     * x and t promoted. */
    int (*softmax_cross_entropy_grad)(NdArray *gx, const NdArray *x,
                                      const NdArray *t, const NdArray *gy);
    /* Version 8 adds this. loss (0-d, x's dtype) =
     * nd_softmax_cross_entropy(x, t) for float x (N, C), N and C of 1 to
     * ND_GPU_SOFTMAX_ROW, and uint8 or int64 t (N values); a label out
     * of range makes the loss NaN. */
    int (*softmax_cross_entropy)(NdArray *loss, const NdArray *x,
                                 const NdArray *t);
    /* Version 9 adds this. dsts[i] -= a * vs[i], as scaled_sub, for n
     * pairs (1 to ND_GPU_EACH_PAIRS) of one float dtype, each pair of
     * one size, not empty, and no two pairs sharing memory: SGD's update
     * of every parameter in one launch (nd_isub_scaled_each). */
    int (*scaled_sub_each)(int n, NdArray *const dsts[], double a,
                           const NdArray *const vs[]);
    /* Version 10 adds this. out = nd_normalize(a, mean, std), for out
     * and a of one size and float dtype. */
    int (*normalize)(NdArray *out, const NdArray *a, double mean,
                     double std);
} NdGpuBackend;

/* The one symbol libnd_cuda.so exports. */
typedef const NdGpuBackend *(*NdGpuBackendFn)(void);
#define ND_GPU_BACKEND_SYMBOL "nd_gpu_backend"

/* ------------------------------------------------------------ shared */

/* The offset in a of element i of an index plan (see NdGpuIndexPlan),
 * or -1 with *bad set to the plan's array k + 1 whose entry is out of
 * range and *bad_index to that entry. */
ND_HOST_DEVICE static inline int64_t
nd_index_offset(const NdGpuIndexPlan *plan, int64_t i, int *bad,
                int64_t *bad_index)
{
    int64_t coord[ND_MAX_DIMS];
    for (int d = plan->ndim - 1; d >= 0; d--) {
        coord[d] = i % plan->shape[d];
        i /= plan->shape[d];
    }
    int64_t offset = plan->base;
    for (int d = 0; d < plan->ndim; d++)
        offset += coord[d] * plan->strides[d];
    for (int k = 0; k < plan->narrays; k++) {
        const NdGpuIndexArray *ix = &plan->arrays[k];
        int64_t at = 0;
        for (int d = 0; d < plan->ndim; d++)
            at += coord[d] * ix->strides[d];
        int64_t index = ix->data[at];
        int64_t position = index < 0 ? index + ix->axis_size : index;
        if (position < 0 || position >= ix->axis_size) {
            *bad = k + 1;
            *bad_index = index;
            return -1;
        }
        offset += position * ix->axis_stride;
    }
    return offset;
}

/* The element strides in col of its axes (n, c, ky, kx, oy, ox). */
ND_HOST_DEVICE static inline void
nd_conv_col_strides(const NdConvGeometry *g, int64_t strides[6])
{
    int64_t window = g->c * g->kh * g->kw;      /* a row of the matrix */
    if (g->to_matrix) {
        strides[0] = g->oh * g->ow * window;
        strides[1] = g->kh * g->kw;
        strides[2] = g->kw;
        strides[3] = 1;
        strides[4] = g->ow * window;
        strides[5] = window;
    } else {
        strides[5] = 1;
        strides[4] = g->ow;
        strides[3] = g->oh * g->ow;
        strides[2] = g->kw * strides[3];
        strides[1] = g->kh * strides[2];
        strides[0] = g->c * strides[1];
    }
}

/* The windows that cover position x of an image axis padded by p, the
 * windows k wide, s apart, n of them: returns how many, and writes the
 * first one's offset into it, *k0, and its number, *o0; the j-th has
 * offset k0 + j*s and number o0 - j, so they come in order of offset. */
ND_HOST_DEVICE static inline int64_t
nd_conv_cover(int64_t x, int64_t k, int64_t s, int64_t p, int64_t n,
              int64_t *k0, int64_t *o0)
{
    int64_t t = x + p;                  /* x in the padded axis */
    int64_t last = t / s < n - 1 ? t / s : n - 1;   /* o with t - o*s >= 0 */
    *o0 = last;
    *k0 = t - last * s;
    if (*k0 >= k)
        return 0;
    int64_t count = (k - 1 - *k0) / s + 1;
    return count < last + 1 ? count : last + 1;
}

/* ------------------------------------------------------------ loader */

#ifndef __CUDACC__
/* What the CPU half uses (gpu.c): the loader and checked calls. The
 * GPU's device table, made from this one, is in nd_device.h. */

/* The GPU library's table once it is loaded and a device found, else
 * NULL. Loads it on the first call. */
const NdGpuBackend *nd_gpu(void);
/* "available", or the one-line reason the GPU half is off. */
const char *nd_gpu_reason(void);
/* The table; stops with op's name and the reason when the GPU is off. */
const NdGpuBackend *nd_gpu_require(const char *op);
/* Stops with op's name and the GPU library's message unless status
 * is 0 (the return value of a table entry). */
void nd_gpu_check(const char *op, int status);
#endif

#ifdef __cplusplus
}
#endif

#endif /* ND_GPU_H */
