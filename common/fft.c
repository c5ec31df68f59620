/* fft.c - np.fft.fftn, ifftn, rfftn and irfftn through FFTW3. A transform
 * over every axis runs as 1-D FFTs along the rows (the last axis), then
 * FFTs over the other axes on a few columns at a time, gathered into a
 * small buffer. FFTW plans for both are made once and cached. Device
 * arrays go to cuFFT, through the GPU half, after the same checks. */
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nd_internal.h"      /* includes <complex.h> before fftw3.h, */
#include <fftw3.h>            /* so fftw_complex is double complex */

/* Why this way, measured on a 2-core machine at 1000^2 to 4096^2:
 *  - FFTW_ESTIMATE plans in milliseconds; FFTW_MEASURE spends 0.4 s to
 *    16 s planning each such shape. But ESTIMATE's own n-D plans walk
 *    columns with large strides: 1.5x slower than MEASURE's at 4000^2,
 *    8x at power-of-two sizes. On contiguous batches, as here, its plans
 *    are good, and the whole transform beats its n-D plan 1.6x.
 *  - Transforms of at least THREADED_MIN_SIZE points share out their
 *    blocks of rows and of columns among one thread per CPU, started for
 *    each pass and joined at its end: nothing is left running. With a
 *    core to spare that is 1.3x-1.45x faster at 2000^2 and 4000^2; for
 *    smaller transforms a thread's start, and on a busy machine its wait
 *    for a CPU, cost more than it saves. */
#define PLANNER_FLAGS (FFTW_ESTIMATE | FFTW_DESTROY_INPUT)
enum {
    THREADED_MIN_SIZE = 1 << 21,
    ROW_BLOCK_BYTES = 1 << 18,      /* rows loaded and transformed at once */
    COLUMN_BLOCK_BYTES = 1 << 19,   /* columns gathered at once */
    MAX_COLUMN_BLOCK = 16,
};

/* ------------------------------------------------------------ plans */

typedef enum PlanKind { PLAN_R2C, PLAN_C2C, PLAN_C2R } PlanKind;

/* howmany transforms of shape dims (the real side for r2c and c2r), each
 * in_dist input and out_dist output elements after the one before, in
 * place or not: FFTW runs a plan only on arrays placed as those it was
 * made for, and the rows' pass of a square complex array asks for the
 * same transforms as its columns' pass, out of place where the other is
 * in place. All ints, so that keys compare with memcmp. */
typedef struct PlanKey {
    PlanKind kind;
    int sign;                       /* FFTW_FORWARD or FFTW_BACKWARD */
    int rank;
    int dims[ND_MAX_DIMS];
    int howmany, in_dist, out_dist;
    int in_place;                   /* 1: out is in */
} PlanKey;

typedef struct CachedPlan {
    PlanKey key;
    fftw_plan plan;
    unsigned long last_use;
} CachedPlan;

/* A transform uses up to four plans; when the cache is full, the least
 * recently used plan makes room. FFTW's planner is not thread-safe, so
 * plans are only made on the calling thread. */
enum { PLAN_CACHE_SIZE = 32 };
static CachedPlan plan_cache[PLAN_CACHE_SIZE];
static int plans_cached;
static unsigned long plan_clock;

/* Registered with atexit: leaves nothing for a leak checker to report. */
static void free_cached_plans(void)
{
    for (int i = 0; i < plans_cached; i++)
        fftw_destroy_plan(plan_cache[i].plan);
    plans_cached = 0;
    fftw_cleanup();
}

static fftw_plan make_plan(const PlanKey *k, void *in, void *out)
{
    switch (k->kind) {
    case PLAN_R2C:
        return fftw_plan_many_dft_r2c(k->rank, k->dims, k->howmany, in, NULL,
                                      1, k->in_dist, out, NULL, 1,
                                      k->out_dist, PLANNER_FLAGS);
    case PLAN_C2C:
        return fftw_plan_many_dft(k->rank, k->dims, k->howmany, in, NULL, 1,
                                  k->in_dist, out, NULL, 1, k->out_dist,
                                  k->sign, PLANNER_FLAGS);
    case PLAN_C2R:
        return fftw_plan_many_dft_c2r(k->rank, k->dims, k->howmany, in, NULL,
                                      1, k->in_dist, out, NULL, 1,
                                      k->out_dist, PLANNER_FLAGS);
    }
    return NULL;
}

static CachedPlan *slot_for_new_plan(void)
{
    static bool registered;
    if (!registered) {
        registered = true;
        atexit(free_cached_plans);
    }
    if (plans_cached < PLAN_CACHE_SIZE)
        return &plan_cache[plans_cached++];
    CachedPlan *oldest = &plan_cache[0];
    for (int i = 1; i < PLAN_CACHE_SIZE; i++)
        if (plan_cache[i].last_use < oldest->last_use)
            oldest = &plan_cache[i];
    fftw_destroy_plan(oldest->plan);
    return oldest;
}

/* The plan for key, made on first use with in and out (64-byte aligned,
 * as every array later run through it). */
static fftw_plan cached_plan(const char *op, const PlanKey *key, void *in,
                             void *out)
{
    for (int i = 0; i < plans_cached; i++) {
        if (memcmp(&plan_cache[i].key, key, sizeof *key) == 0) {
            plan_cache[i].last_use = ++plan_clock;
            return plan_cache[i].plan;
        }
    }
    fftw_plan plan = make_plan(key, in, out);
    if (!plan)
        nd_error(op, "FFTW could not plan %d transforms of %d points: out "
                 "of memory?", key->howmany, key->dims[key->rank - 1]);
    CachedPlan *c = slot_for_new_plan();
    *c = (CachedPlan){.key = *key, .plan = plan, .last_use = ++plan_clock};
    return plan;
}

static void execute(PlanKind kind, fftw_plan plan, void *in, void *out)
{
    if (kind == PLAN_R2C)
        fftw_execute_dft_r2c(plan, in, out);
    else if (kind == PLAN_C2C)
        fftw_execute_dft(plan, in, out);
    else
        fftw_execute_dft_c2r(plan, in, out);
}

/* ------------------------------------------------------------ passes */

/* Threads for a pass over blocks of a transform of size points. */
static int threads_for(int64_t size, int64_t blocks)
{
    if (size < THREADED_MIN_SIZE)
        return 1;
    int64_t cpus = nd_usable_cpus();
    return (int)(blocks < cpus ? blocks : cpus);
}

/* Items per block: about `bytes` worth of item_bytes each, a multiple of
 * 8 (so that every block starts 64-byte aligned, as the plans assume)
 * unless one block holds them all, and at most `most`. */
static int64_t block_size(int64_t items, int64_t item_bytes, int64_t bytes,
                          int64_t most)
{
    int64_t block = bytes / item_bytes / 8 * 8;
    block = block < 8 ? 8 : block > most ? most : block;
    return block >= items ? items : block;
}

/* The next block of `block` items out of total for the calling thread:
 * its first item, with *count set, or -1 when every block is taken. */
static int64_t take_block(atomic_long *next_block, int64_t block,
                          int64_t total, int64_t *count)
{
    int64_t first = atomic_fetch_add(next_block, 1) * block;
    if (first >= total)
        return -1;
    *count = total - first < block ? total - first : block;
    return first;
}

/* 1-D transforms along rows: each block of rows of src is loaded (cast
 * to load_dtype) into a buffer, then transformed into dst. */
typedef struct RowPass {
    atomic_long next_block;
    PlanKind kind;
    const NdArray *src;
    NdDtype load_dtype;         /* float64 for r2c, complex128 otherwise */
    int64_t rows, src_len;      /* values per row of src */
    char *dst;
    size_t dst_row_bytes;
    int64_t block;
    fftw_plan full, tail;       /* for block rows, and the rows left */
    char *buffers;              /* one of buffer_bytes per thread */
    size_t buffer_bytes;
} RowPass;

static void rows_work(void *context, int thread)
{
    RowPass *p = context;
    size_t src_bytes = nd_dtype_size(p->src->dtype);
    void *buffer = p->buffers + (size_t)thread * p->buffer_bytes;
    int64_t first, count;
    while ((first = take_block(&p->next_block, p->block, p->rows,
                               &count)) >= 0) {
        const char *src = (const char *)p->src->data +
                          (size_t)(first * p->src_len) * src_bytes;
        nd_cast_buffer(buffer, p->load_dtype, src, p->src->dtype,
                       count * p->src_len);
        execute(p->kind, count == p->block ? p->full : p->tail, buffer,
                p->dst + (size_t)first * p->dst_row_bytes);
    }
}

/* The transform of kind (sign for c2c) of length n along every row of
 * src into dst, whose rows lie dst_stride elements apart. */
static void transform_rows(const char *op, PlanKind kind, int sign,
                           const NdArray *src, int64_t n, void *dst,
                           int64_t dst_stride)
{
    int64_t src_len = src->shape[src->ndim - 1];
    bool real_in = kind == PLAN_R2C, real_out = kind == PLAN_C2R;
    RowPass p = {
        .kind = kind, .src = src, .src_len = src_len,
        .load_dtype = real_in ? ND_FLOAT64 : ND_COMPLEX128,
        .rows = src->size / src_len, .dst = dst,
        .dst_row_bytes = (size_t)dst_stride * (real_out ? sizeof(double)
                                               : sizeof(double complex)),
    };
    size_t load_bytes = nd_dtype_size(p.load_dtype);
    p.block = block_size(p.rows, src_len * (int64_t)load_bytes,
                         ROW_BLOCK_BYTES, INT_MAX);
    int64_t blocks = (p.rows + p.block - 1) / p.block;
    int threads = threads_for(src->size, blocks);
    p.buffer_bytes = ((size_t)(p.block * src_len) * load_bytes + 63) / 64
                     * 64;
    NdArray *buffers = nd_empty(ND_UINT8, 1, (int64_t[]){
                                     (int64_t)p.buffer_bytes * threads});
    p.buffers = buffers->data;
    PlanKey key = {.kind = kind, .sign = sign, .rank = 1, .dims = {(int)n},
                   .howmany = (int)p.block, .in_dist = (int)src_len,
                   .out_dist = (int)dst_stride};
    p.full = cached_plan(op, &key, p.buffers, p.dst);
    int64_t tail = p.rows % p.block;
    if (tail) {
        key.howmany = (int)tail;
        p.tail = cached_plan(op, &key, p.buffers,
                             p.dst + (size_t)(p.rows - tail) *
                                         p.dst_row_bytes);
    }
    nd_parallel_run(rows_work, &p, threads);
    nd_release(buffers);
}

/* Transforms over every axis but the last, in place: the first `width`
 * columns of data (rows, stride) are gathered a block at a time into a
 * buffer, each column contiguous, transformed, and put back. */
typedef struct ColumnPass {
    atomic_long next_block;
    double complex *data;
    int64_t rows, stride, width, block;
    fftw_plan full, tail;
    double complex *buffers;        /* block * rows values per thread */
} ColumnPass;

static void columns_work(void *context, int thread)
{
    ColumnPass *p = context;
    int64_t rows = p->rows;
    double complex *buffer = p->buffers + thread * p->block * rows;
    int64_t first, count;
    while ((first = take_block(&p->next_block, p->block, p->width,
                               &count)) >= 0) {
        for (int64_t r = 0; r < rows; r++)
            for (int64_t j = 0; j < count; j++)
                buffer[j * rows + r] = p->data[r * p->stride + first + j];
        fftw_execute_dft(count == p->block ? p->full : p->tail, buffer,
                         buffer);
        for (int64_t r = 0; r < rows; r++)
            for (int64_t j = 0; j < count; j++)
                p->data[r * p->stride + first + j] = buffer[j * rows + r];
    }
}

/* The c2c transform (sign) over every axis of shape but the last, in
 * place, for the first width columns of data, whose rows lie stride
 * values apart. */
static void transform_columns(const char *op, int sign, double complex *data,
                              int ndim, const int64_t *shape, int64_t stride,
                              int64_t width)
{
    ColumnPass p = {.data = data, .rows = 1, .stride = stride,
                    .width = width};
    PlanKey key = {.kind = PLAN_C2C, .sign = sign, .rank = ndim - 1,
                   .in_place = 1};
    for (int d = 0; d < ndim - 1; d++) {
        p.rows *= shape[d];
        key.dims[d] = (int)shape[d];
    }
    if (p.rows == 1)
        return;                     /* one point per column: nothing to do */
    p.block = block_size(width, p.rows * (int64_t)sizeof(double complex),
                         COLUMN_BLOCK_BYTES, MAX_COLUMN_BLOCK);
    int64_t blocks = (width + p.block - 1) / p.block;
    int threads = threads_for(p.rows * width, blocks);
    NdArray *buffers = nd_empty(ND_COMPLEX128, 1, (int64_t[]){
                                     p.block * p.rows * threads});
    p.buffers = buffers->data;
    key.howmany = (int)p.block;
    key.in_dist = key.out_dist = (int)p.rows;
    p.full = cached_plan(op, &key, p.buffers, p.buffers);
    if (width % p.block) {
        key.howmany = (int)(width % p.block);
        p.tail = cached_plan(op, &key, p.buffers, p.buffers);
    }
    nd_parallel_run(columns_work, &p, threads);
    nd_release(buffers);
}

/* ------------------------------------------------------------ checks */

/* Every axis is transformed, so each needs at least one point, and FFTW
 * counts points in an int. */
static void check_axes(const char *op, int ndim, const int64_t *shape)
{
    char text[ND_SHAPE_TEXT];
    if (ndim == 0)
        nd_error(op, "a 0-d array has no axis to transform");
    int64_t size = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 1)
            nd_error(op, "invalid number of FFT data points (%lld) along "
                     "axis %d of shape %s", (long long)shape[d], d,
                     nd_format_shape(text, ndim, shape, false));
        size = shape[d] > INT_MAX / size ? (int64_t)INT_MAX + 1
                                          : size * shape[d];
    }
    if (size > INT_MAX)
        nd_error(op, "shape %s has more than %d points, the most FFTW "
                 "takes", nd_format_shape(text, ndim, shape, false),
                 INT_MAX);
}

/* ------------------------------------------------------------ kernels */

static void scale_in_place(double *data, int64_t count, double factor)
{
    for (int64_t i = 0; i < count; i++)
        data[i] *= factor;
}

/* The row (flat index over every axis but the last) holding X[-k] when
 * index is the row of X[k]: each index negated modulo its extent. */
static int64_t mirrored_row(int ndim, const int64_t *shape,
                            const int64_t *index)
{
    int64_t row = 0;
    for (int d = 0; d < ndim - 1; d++)
        row = row * shape[d] + (shape[d] - index[d]) % shape[d];
    return row;
}

static void next_row_index(int ndim, const int64_t *shape, int64_t *index)
{
    for (int d = ndim - 2; d >= 0; d--) {
        if (++index[d] < shape[d])
            return;
        index[d] = 0;
    }
}

/* Completes the spectrum of a real array whose rows hold their first
 * n/2 + 1 values: X[k] = conj(X[-k]), every index negated modulo its
 * extent. Reads only first halves, writes only second halves. */
static void fill_by_symmetry(NdArray *full)
{
    int ndim = full->ndim;
    int64_t n = full->shape[ndim - 1], h = n / 2 + 1;
    double complex *data = ND_DATA(full, double complex);
    int64_t index[ND_MAX_DIMS] = {0};     /* of the row, last axis aside */
    for (int64_t r = 0; r < full->size / n; r++) {
        double complex *row = data + r * n;
        const double complex *mirror =
            data + mirrored_row(ndim, full->shape, index) * n;
        for (int64_t k = h; k < n; k++)
            row[k] = conj(mirror[n - k]);
        next_row_index(ndim, full->shape, index);
    }
}

/* ------------------------------------------------------------ transforms */

/* The transform of a device array by cuFFT: a cast to in_dtype, then
 * the GPU half's transform into a new out_dtype array of shape. */
static NdArray *gpu_transform(const char *op, NdGpuFft kind,
                              const NdArray *a, NdDtype in_dtype,
                              NdDtype out_dtype, const int64_t *shape)
{
    NdArray *in = nd_as_dtype(a, in_dtype);
    NdArray *out = nd_empty_on(a->device, out_dtype, a->ndim, shape);
    int status = nd_kernels(a->device)->fft(kind, out, in);
    nd_release(in);
    nd_device_check(op, a->device, status);
    return out;
}

/* rfftn of a real array whose axes are checked: complex128 (..., n/2+1). */
static NdArray *half_spectrum(const char *op, const NdArray *a)
{
    int64_t shape[ND_MAX_DIMS];
    for (int d = 0; d < a->ndim; d++)
        shape[d] = a->shape[d];
    int64_t n = a->shape[a->ndim - 1], h = n / 2 + 1;
    shape[a->ndim - 1] = h;
    if (nd_kernels(a->device))
        return gpu_transform(op, ND_GPU_RFFT, a, ND_FLOAT64, ND_COMPLEX128,
                             shape);
    NdArray *out = nd_empty(ND_COMPLEX128, a->ndim, shape);
    transform_rows(op, PLAN_R2C, 0, a, n, out->data, h);
    transform_columns(op, FFTW_FORWARD, out->data, a->ndim, shape, h, h);
    return out;
}

/* fftn of a real array: the first n/2 + 1 values of each row by r2c, the
 * rest by symmetry; about twice as fast as c2c. With inverse, ifftn:
 * the conjugate divided by N. */
static NdArray *real_transform(const char *op, const NdArray *a,
                               bool inverse)
{
    int64_t n = a->shape[a->ndim - 1], h = n / 2 + 1;
    NdArray *out = nd_empty(ND_COMPLEX128, a->ndim, a->shape);
    transform_rows(op, PLAN_R2C, 0, a, n, out->data, n);
    transform_columns(op, FFTW_FORWARD, out->data, a->ndim, a->shape, n, h);
    fill_by_symmetry(out);
    if (inverse) {
        double complex *data = ND_DATA(out, double complex);
        double scale = 1.0 / (double)out->size;
        for (int64_t i = 0; i < out->size; i++)
            data[i] = conj(data[i]) * scale;
    }
    return out;
}

static NdArray *complex_transform(const char *op, const NdArray *a,
                                  bool inverse)
{
    int sign = inverse ? FFTW_BACKWARD : FFTW_FORWARD;
    int64_t n = a->shape[a->ndim - 1];
    NdArray *out = nd_empty(ND_COMPLEX128, a->ndim, a->shape);
    transform_rows(op, PLAN_C2C, sign, a, n, out->data, n);
    transform_columns(op, sign, out->data, a->ndim, a->shape, n, n);
    if (inverse)
        scale_in_place(out->data, 2 * out->size, 1.0 / (double)out->size);
    return out;
}

static NdArray *any_transform(const char *op, const NdArray *a,
                              bool inverse)
{
    nd_same_device(op, 1, &a);
    if (a->ndim == 0)       /* no axis to transform: the value itself */
        return nd_astype(a, ND_COMPLEX128);
    check_axes(op, a->ndim, a->shape);
    if (nd_kernels(a->device))
        return gpu_transform(op, inverse ? ND_GPU_IFFT : ND_GPU_FFT, a,
                             ND_COMPLEX128, ND_COMPLEX128, a->shape);
    if (nd_dtype_is_complex(a->dtype))
        return complex_transform(op, a, inverse);
    return real_transform(op, a, inverse);
}

/* ------------------------------------------------------------ public */

NdArray *nd_fftn(const NdArray *a)
{
    return any_transform("nd_fftn", a, false);
}

NdArray *nd_ifftn(const NdArray *a)
{
    return any_transform("nd_ifftn", a, true);
}

NdArray *nd_rfftn(const NdArray *a)
{
    nd_same_device("nd_rfftn", 1, &a);
    check_axes("nd_rfftn", a->ndim, a->shape);
    if (nd_dtype_is_complex(a->dtype))
        nd_error("nd_rfftn", "expects a real array, got %s; use nd_fftn "
                 "for complex input", nd_dtype_name(a->dtype));
    return half_spectrum("nd_rfftn", a);
}

/* As np.fft.irfftn: the inverse c2c over every axis but the last, then
 * c2r along the rows, which ignores the imaginary parts of X[0] and (n
 * even) X[n/2], all divided by N. */
NdArray *nd_irfftn(const NdArray *a, int64_t n)
{
    nd_same_device("nd_irfftn", 1, &a);
    check_axes("nd_irfftn", a->ndim, a->shape);
    int last = a->ndim - 1;
    char text[ND_SHAPE_TEXT];
    if (n < 1)
        nd_error("nd_irfftn", "invalid number of FFT data points (%lld) "
                 "specified", (long long)n);
    if (n / 2 + 1 != a->shape[last])
        nd_error("nd_irfftn", "n=%lld needs a last axis of n/2 + 1 = %lld "
                 "values, but the array has shape %s", (long long)n,
                 (long long)(n / 2 + 1),
                 nd_format_shape(text, a->ndim, a->shape, false));
    int64_t shape[ND_MAX_DIMS];     /* (..., n) */
    for (int d = 0; d < a->ndim; d++)
        shape[d] = a->shape[d];
    shape[last] = n;
    check_axes("nd_irfftn", a->ndim, shape);
    if (nd_kernels(a->device))
        return gpu_transform("nd_irfftn", ND_GPU_IRFFT, a, ND_COMPLEX128,
                             ND_FLOAT64, shape);
    int64_t h = a->shape[last];
    NdArray *half = nd_empty(ND_COMPLEX128, a->ndim, a->shape);
    nd_cast_buffer(half->data, ND_COMPLEX128, a->data, a->dtype, a->size);
    transform_columns("nd_irfftn", FFTW_BACKWARD, half->data, a->ndim,
                      a->shape, h, h);
    NdArray *out = nd_empty(ND_FLOAT64, a->ndim, shape);
    transform_rows("nd_irfftn", PLAN_C2R, 0, half, n, out->data, n);
    scale_in_place(out->data, out->size, 1.0 / (double)out->size);
    nd_release(half);
    return out;
}
