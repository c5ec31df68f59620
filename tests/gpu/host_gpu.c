/* host_gpu.c - a stand-in for the GPU library, for the suite: the table
 * of nd_gpu.h with "device" memory that is host memory and operations
 * that are the CPU half's own, built as libhost_gpu.so and loaded in
 * place of libnd_cuda.so (host_gpu.h). With it, a machine without a GPU
 * runs the C side of every GPU path: the dispatch through the device
 * table, the checks made before and after each kernel, the framework's
 * device code (labels, index arrays, numbers moved to the device), and
 * the test bodies of test_gpu and test_device. It counts the launches
 * and host waits a real device would see (host_gpu_counts).
 *
 * It proves nothing about the kernels: test_gpu_elements checks their
 * element functions on the host, and a real GPU the rest. It links
 * with the suite's libnd.so, so that the CPU half it calls is the one
 * the test program uses. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd_gpu.h"
#include "gpu/host_gpu.h"

static char error_text[256];
static HostGpuCounts counts;

static int fail(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(error_text, sizeof error_text, fmt, args);
    va_end(args);
    return -1;
}

static const char *last_error(void)
{
    return error_text;
}

void host_gpu_counts(HostGpuCounts *out)
    __attribute__((visibility("default")));
void host_gpu_counts(HostGpuCounts *out)
{
    *out = counts;
}

/* ------------------------------------------------------------ memory */

/* A block: its header (size and the next cached block) before the
 * bytes handed out, 16 bytes, which keep malloc's alignment. Freed
 * blocks are kept, all of them, for a later alloc of the same size, as
 * the real pool keeps them until pool_trim, so that its counters mean
 * the same. */
typedef struct Header {
    size_t bytes;
    struct Header *next;
} Header;
static Header *cached;              /* the cached blocks, newest first */
static NdGpuPoolStats stats;

static Header *header_of(void *ptr)
{
    return (Header *)ptr - 1;
}

static void *pool_alloc(size_t bytes)
{
    for (Header **at = &cached; *at; at = &(*at)->next) {
        if ((*at)->bytes == bytes) {
            Header *block = *at;
            *at = block->next;
            stats.cached_bytes -= bytes;
            stats.used_bytes += bytes;
            stats.reuses++;
            return block + 1;
        }
    }
    Header *block = malloc(sizeof(Header) + (bytes ? bytes : 1));
    if (!block) {
        fail("out of memory for %zu bytes", bytes);
        return NULL;
    }
    block->bytes = bytes;
    stats.used_bytes += bytes;
    stats.device_mallocs++;
    return block + 1;
}

static void pool_free(void *ptr)
{
    if (!ptr)
        return;
    Header *block = header_of(ptr);
    stats.used_bytes -= block->bytes;
    stats.cached_bytes += block->bytes;
    block->next = cached;
    cached = block;
}

static int pool_trim(void)
{
    while (cached) {
        Header *next = cached->next;
        free(cached);
        cached = next;
    }
    stats.cached_bytes = 0;
    return 0;
}

static void pool_stats(NdGpuPoolStats *out)
{
    *out = stats;
}

static void release_at_exit(void)
{
    pool_trim();
}

static NdGpuInit init(char *detail, size_t size)
{
    atexit(release_at_exit);
    snprintf(detail, size, "a stand-in in host memory (tests/gpu/host_gpu.c)");
    return ND_GPU_READY;
}

static int upload(void *dst, const void *src, size_t bytes)
{
    counts.waits++;
    memcpy(dst, src, bytes);
    return 0;
}

static int download(void *dst, const void *src, size_t bytes)
{
    counts.waits++;
    memcpy(dst, src, bytes);
    return 0;
}

static int copy(void *dst, const void *src, size_t bytes)
{
    counts.launches++;
    memmove(dst, src, bytes);
    return 0;
}

static int synchronize(void)
{
    counts.waits++;
    return 0;
}

/* ------------------------------------------------------------ helpers */

/* A CPU header over a device array's memory, for the CPU half to read
 * (never released: it owns nothing). */
static NdArray host_view(const NdArray *a)
{
    NdArray v = *a;
    v.device = ND_CPU;
    v.base = NULL;
    v.refcount = 1;
    return v;
}

/* Copies result, a new CPU array of out's size and dtype, into out and
 * releases it; counts one launch. */
static int store(NdArray *out, NdArray *result)
{
    counts.launches++;
    if (result->size != out->size || result->dtype != out->dtype) {
        nd_release(result);
        return fail("the CPU half's result does not fit the output");
    }
    memcpy(out->data, result->data, nd_nbytes(out));
    nd_release(result);
    return 0;
}

/* ------------------------------------------------------------ elementwise */

static int fill(NdArray *out, double value)
{
    return store(out, nd_full(out->dtype, out->ndim, out->shape, value));
}

static int cast(NdArray *out, const NdArray *in)
{
    NdArray v = host_view(in);
    NdArray *wide = nd_broadcast_to(&v, out->ndim, out->shape);
    NdArray *result = nd_astype(wide, out->dtype);
    nd_release(wide);
    return store(out, result);
}

static int copy_strided(void *dst, const int64_t *dst_strides,
                        const void *src, const int64_t *src_strides,
                        int ndim, const int64_t *shape, size_t elsize)
{
    counts.launches++;
    int64_t n = 1, coord[ND_MAX_DIMS] = {0};
    for (int d = 0; d < ndim; d++)
        n *= shape[d];
    for (int64_t i = 0; i < n; i++) {
        int64_t to = 0, from = 0;
        for (int d = 0; d < ndim; d++) {
            to += coord[d] * dst_strides[d];
            from += coord[d] * src_strides[d];
        }
        memcpy((char *)dst + to * (int64_t)elsize,
               (const char *)src + from * (int64_t)elsize, elsize);
        for (int d = ndim - 1; d >= 0 && ++coord[d] == shape[d]; d--)
            coord[d] = 0;
    }
    return 0;
}

typedef NdArray *(*BinaryFn)(const NdArray *, const NdArray *);
static const BinaryFn binary_fns[] = {
    [ND_GPU_ADD] = nd_add, [ND_GPU_SUB] = nd_sub, [ND_GPU_MUL] = nd_mul,
    [ND_GPU_DIV] = nd_div, [ND_GPU_POW] = nd_pow,
    [ND_GPU_MAXIMUM] = nd_maximum, [ND_GPU_MINIMUM] = nd_minimum,
    [ND_GPU_EQ] = nd_equal, [ND_GPU_NE] = nd_not_equal,
    [ND_GPU_LT] = nd_less, [ND_GPU_LE] = nd_less_equal,
    [ND_GPU_GT] = nd_greater, [ND_GPU_GE] = nd_greater_equal,
};

static int binary(NdGpuBinary op, NdArray *out, const NdArray *a,
                  const NdArray *b)
{
    NdArray va = host_view(a), vb = host_view(b);
    return store(out, binary_fns[op](&va, &vb));
}

typedef NdArray *(*UnaryFn)(const NdArray *);
static const UnaryFn unary_fns[] = {
    [ND_GPU_NEG] = nd_neg, [ND_GPU_EXP] = nd_exp, [ND_GPU_LOG] = nd_log,
    [ND_GPU_SIN] = nd_sin, [ND_GPU_COS] = nd_cos, [ND_GPU_TANH] = nd_tanh,
    [ND_GPU_SQRT] = nd_sqrt, [ND_GPU_ABS] = nd_abs,
    [ND_GPU_SIGMOID] = nd_sigmoid,
};

static int unary(NdGpuUnary op, NdArray *out, const NdArray *a)
{
    NdArray va = host_view(a);
    return store(out, unary_fns[op](&va));
}

static int where(NdArray *out, const NdArray *cond, const NdArray *a,
                 const NdArray *b)
{
    NdArray vc = host_view(cond), va = host_view(a), vb = host_view(b);
    return store(out, nd_where(&vc, &va, &vb));
}

static int clip(NdArray *out, const NdArray *a, double lo, double hi)
{
    NdArray va = host_view(a);
    return store(out, nd_clip(&va, lo, hi));
}

static int allclose(const NdArray *a, const NdArray *b, double rtol,
                    double atol, bool *result)
{
    counts.launches++;
    counts.waits++;                 /* the answer is read back */
    NdArray va = host_view(a), vb = host_view(b);
    *result = nd_allclose(&va, &vb, rtol, atol);
    return 0;
}

static int scaled_sub(NdArray *dst, double a, const NdArray *v)
{
    counts.launches++;
    NdArray vd = host_view(dst), vv = host_view(v);
    nd_isub_scaled(&vd, a, &vv);
    return 0;
}

/* One launch for every pair, as the kernel's. */
static int scaled_sub_each(int n, NdArray *const dsts[], double a,
                           const NdArray *const vs[])
{
    counts.launches++;
    for (int i = 0; i < n; i++) {
        NdArray vd = host_view(dsts[i]), vv = host_view(vs[i]);
        nd_isub_scaled(&vd, a, &vv);
    }
    return 0;
}

/* stop half a step past the last element: nd_arange's count is then
 * out's size, whatever the rounding of (stop - start) / step */
static int arange(NdArray *out, double start, double step)
{
    double stop = start + step * ((double)out->size - 0.5);
    return store(out, nd_arange(start, stop, step, out->dtype));
}

/* ------------------------------------------------------------ reductions */

static int reduce(NdGpuReduce op, NdArray *out, const NdArray *a,
                  unsigned axes)
{
    int list[ND_MAX_DIMS], n = 0;
    for (int d = 0; d < a->ndim; d++)
        if (axes & (1u << d))
            list[n++] = d;
    NdArray va = host_view(a);
    NdArray *result = op == ND_GPU_SUM    ? nd_sum(&va, n, list, false)
                      : op == ND_GPU_MEAN ? nd_mean(&va, n, list, false)
                      : op == ND_GPU_MAX  ? nd_max(&va, n, list, false)
                                          : nd_min(&va, n, list, false);
    return store(out, result);
}

static int argmax(NdArray *out, const NdArray *a, int axis)
{
    NdArray va = host_view(a);
    return store(out, nd_argmax(&va, axis < 0 ? ND_NO_AXIS : axis));
}

static int gemm(NdArray *c, const NdArray *a, bool trans_a,
                const NdArray *b, bool trans_b)
{
    NdArray va = host_view(a), vb = host_view(b);
    NdArray *ta = trans_a ? nd_transpose(&va, 0, NULL) : &va;
    NdArray *tb = trans_b ? nd_transpose(&vb, 0, NULL) : &vb;
    NdArray *result = nd_matmul(ta, tb);
    if (trans_a)
        nd_release(ta);
    if (trans_b)
        nd_release(tb);
    return store(c, result);
}

/* The CPU half's chains: the stand-in's "kernels" are the oracles. */
static int sigmoid_grad(NdArray *out, const NdArray *y, const NdArray *gy)
{
    NdArray vy = host_view(y), vgy = host_view(gy);
    return store(out, nd_sigmoid_grad(&vy, &vgy));
}

static int normalize(NdArray *out, const NdArray *a, double mean,
                     double std)
{
    NdArray va = host_view(a);
    return store(out, nd_normalize(&va, mean, std));
}

static int softmax(NdArray *out, const NdArray *a, bool log)
{
    NdArray va = host_view(a);
    return store(out, log ? nd_log_softmax(&va, -1) : nd_softmax(&va, -1));
}

/* As the kernel, a label out of range makes the loss NaN (the caller's
 * check tells of it) where the CPU half's chain refuses the index. */
static int softmax_cross_entropy(NdArray *loss, const NdArray *x,
                                 const NdArray *t)
{
    NdArray vx = host_view(x), vt = host_view(t);
    for (int64_t i = 0; i < vt.size; i++) {
        double label = nd_get_flat(&vt, i);
        if (label < 0 || label >= (double)x->shape[1])
            return store(loss, nd_full(loss->dtype, ND_SCALAR_SHAPE, NAN));
    }
    return store(loss, nd_softmax_cross_entropy(&vx, &vt));
}

static int softmax_cross_entropy_grad(NdArray *gx, const NdArray *x,
                                      const NdArray *t, const NdArray *gy)
{
    NdArray vx = host_view(x), vt = host_view(t), vgy = host_view(gy);
    return store(gx, nd_softmax_cross_entropy_grad(&vx, &vt, &vgy));
}

/* ------------------------------------------------------------ indexing */

/* The checks that do not wait keep what they find here, as index.cu
 * keeps it in device memory: the first failure of the first failing
 * check, until it is taken. */
static NdGpuPending pending;

static void keep(int tag, int axis, int64_t value, int64_t position,
                 int64_t limit)
{
    if (!pending.found)
        pending = (NdGpuPending){1, tag, axis, value, position, limit};
}

static int take_pending(NdGpuPending *out)
{
    counts.waits++;
    *out = pending;
    pending = (NdGpuPending){0};
    return 0;
}

static int check_range(const NdArray *a, int64_t lo, int64_t hi, int tag)
{
    if (a->dtype != ND_INT64 && a->dtype != ND_UINT8)
        return fail("check_range: int64 or uint8 entries only");
    counts.launches += 2;           /* the check and its report */
    for (int64_t i = 0; i < a->size; i++) {
        int64_t v = a->dtype == ND_UINT8 ? ((const uint8_t *)a->data)[i]
                                         : ((const int64_t *)a->data)[i];
        if (v < lo || v >= hi) {
            keep(tag, -1, v, i, hi);
            break;
        }
    }
    return 0;
}

/* The record of scatter_add's first index out of range. */
static void report(const NdGpuIndexPlan *plan, int bad, int64_t index,
                   NdGpuIndexError *err)
{
    *err = (NdGpuIndexError){0};
    if (bad) {
        err->found = 1;
        err->axis = plan->arrays[bad - 1].axis;
        err->index = index;
        err->axis_size = plan->arrays[bad - 1].axis_size;
    }
}

static int gather(NdArray *out, const NdArray *a,
                  const NdGpuIndexPlan *plan, int tag)
{
    if (plan->size == 0)
        return 0;
    counts.launches += plan->narrays > 0 ? 2 : 1;   /* and its report */
    size_t size = nd_dtype_size(a->dtype);
    for (int64_t i = 0; i < plan->size; i++) {
        int bad = 0;
        int64_t bad_index = 0;
        int64_t offset = nd_index_offset(plan, i, &bad, &bad_index);
        if (offset >= 0) {
            memcpy((char *)out->data + i * (int64_t)size,
                   (const char *)a->data + offset * (int64_t)size, size);
        } else if (!pending.found) {
            keep(tag, plan->arrays[bad - 1].axis, bad_index, i,
                 plan->arrays[bad - 1].axis_size);
        }
    }
    return 0;
}

/* *to += *from for one element of dtype, as the CPU half adds. */
static void add_element(NdDtype dtype, void *to, const void *from)
{
    NdArray t = {.dtype = dtype, .ndim = 0, .size = 1, .data = to,
                 .refcount = 1};
    NdArray f = t;
    f.data = (void *)from;
    NdArray *sum = nd_add(&t, &f);
    memcpy(to, sum->data, nd_dtype_size(dtype));
    nd_release(sum);
}

static int scatter_add(NdArray *a, const NdArray *values,
                       const NdGpuIndexPlan *plan, NdGpuIndexError *err)
{
    counts.launches++;
    counts.waits++;                 /* the record is read back */
    NdArray vv = host_view(values);
    NdArray *wide = nd_broadcast_to(&vv, plan->ndim, plan->shape);
    size_t size = nd_dtype_size(a->dtype);
    int bad = 0;
    int64_t bad_index = 0;
    for (int64_t i = 0; i < plan->size && !bad; i++) {
        int64_t offset = nd_index_offset(plan, i, &bad, &bad_index);
        if (offset >= 0)
            add_element(a->dtype, (char *)a->data + offset * (int64_t)size,
                        (const char *)wide->data + i * (int64_t)size);
    }
    nd_release(wide);
    report(plan, bad, bad_index, err);
    return 0;
}

/* ------------------------------------------------------------ fft, conv */

static int fft(NdGpuFft kind, NdArray *out, const NdArray *in)
{
    NdArray v = host_view(in);
    NdArray *result = kind == ND_GPU_FFT    ? nd_fftn(&v)
                      : kind == ND_GPU_IFFT ? nd_ifftn(&v)
                      : kind == ND_GPU_RFFT
                          ? nd_rfftn(&v)
                          : nd_irfftn(&v, out->shape[out->ndim - 1]);
    return store(out, result);
}

static int im2col(NdArray *col, const NdArray *img, const NdConvGeometry *g)
{
    NdArray v = host_view(img);
    return store(col, nd_im2col(&v, g->kh, g->kw, g->sh, g->sw, g->ph,
                                g->pw, g->to_matrix));
}

static int col2im(NdArray *img, const NdArray *col, const NdConvGeometry *g)
{
    NdArray v = host_view(col);
    return store(img, nd_col2im(&v, ND_SHAPE(g->n, g->c, g->h, g->w), g->kh,
                                g->kw, g->sh, g->sw, g->ph, g->pw,
                                g->to_matrix));
}

/* ------------------------------------------------------------ transfers */

static int pinned_copy_time(size_t bytes, bool to_device, int repeat,
                            double *seconds)
{
    (void)to_device;
    (void)repeat;
    *seconds = (double)bytes / 1e10 + 1e-9;
    return 0;
}

static const char *transfer_path(void)
{
    return "memcpy in host memory (the suite's stand-in for a GPU)";
}

static const NdGpuBackend table = {
    .abi_version = ND_GPU_ABI_VERSION,
    .last_error = last_error,
    .init = init,
    .alloc = pool_alloc,
    .free = pool_free,
    .upload = upload,
    .download = download,
    .copy = copy,
    .synchronize = synchronize,
    .pool_stats = pool_stats,
    .pool_trim = pool_trim,
    .fill = fill,
    .cast = cast,
    .copy_strided = copy_strided,
    .binary = binary,
    .unary = unary,
    .where = where,
    .clip = clip,
    .allclose = allclose,
    .reduce = reduce,
    .argmax = argmax,
    .gemm = gemm,
    .gather = gather,
    .scatter_add = scatter_add,
    .fft = fft,
    .im2col = im2col,
    .col2im = col2im,
    .pinned_copy_time = pinned_copy_time,
    .transfer_path = transfer_path,
    .scaled_sub = scaled_sub,
    .arange = arange,
    .check_range = check_range,
    .take_pending = take_pending,
    .softmax = softmax,
    .sigmoid_grad = sigmoid_grad,
    .softmax_cross_entropy_grad = softmax_cross_entropy_grad,
    .softmax_cross_entropy = softmax_cross_entropy,
    .scaled_sub_each = scaled_sub_each,
    .normalize = normalize,
};

const NdGpuBackend *nd_gpu_backend(void)
    __attribute__((visibility("default")));
const NdGpuBackend *nd_gpu_backend(void)
{
    return &table;
}
