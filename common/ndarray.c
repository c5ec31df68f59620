/* ndarray.c - the array object: creation, reference counting, element
 * access, copies and casts, and copyto. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nd_internal.h"

char *nd_format_shape(char buf[ND_SHAPE_TEXT], int ndim,
                      const int64_t *shape, bool spaced)
{
    int len = sprintf(buf, "(");
    for (int d = 0; d < ndim; d++)
        len += sprintf(buf + len, "%s%" PRId64,
                       d == 0 ? "" : (spaced ? ", " : ","), shape[d]);
    sprintf(buf + len, "%s)", ndim == 1 ? "," : "");
    return buf;
}

char *nd_shape_str(const NdArray *a)
{
    char buf[ND_SHAPE_TEXT];
    nd_format_shape(buf, a->ndim, a->shape, true);
    char *text = strdup(buf);
    if (!text)
        nd_error("nd_shape_str", "out of memory");
    return text;
}

void nd_check_shape(const char *op, int ndim, const int64_t *shape)
{
    if (ndim < 0 || ndim > ND_MAX_DIMS)
        nd_error(op, "%d dimensions requested; at most %d are supported",
                 ndim, ND_MAX_DIMS);
    for (int d = 0; d < ndim; d++)
        if (shape[d] < 0)
            nd_error(op, "negative dimensions are not allowed "
                     "(axis %d is %" PRId64 ")", d, shape[d]);
    /* The product of the extents other than 0, as NumPy checks it: a 0
     * makes the size 0 but not the other extents small enough, and the
     * strides that transpose and indexing work out stay within int64. */
    int64_t size = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] == 0)
            continue;
        if (__builtin_mul_overflow(size, shape[d], &size) ||
            size > ND_MAX_ELEMENTS) {
            char text[ND_SHAPE_TEXT];
            nd_error(op, "array is too big; shape %s has more elements "
                     "than memory can hold",
                     nd_format_shape(text, ndim, shape, false));
        }
    }
}

int nd_normalize_axis(const char *op, int axis, int ndim)
{
    if (axis < -ndim || axis >= ndim)
        nd_error(op, "axis %d is out of bounds for array of dimension %d",
                 axis, ndim);
    return axis < 0 ? axis + ndim : axis;
}

/* ------------------------------------------------------------ creation */

/* NumPy advises arrays of 4 MiB and more onto transparent huge pages, and
 * so do we: on virtual machines the first touch of each 4 KiB page can
 * cost more than the operation that fills it (an FFT, a cast). */
enum { HUGE_PAGE_MIN_BYTES = 1 << 22 };

static void advise_huge_pages(void *data, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (bytes < HUGE_PAGE_MIN_BYTES)
        return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = ((uintptr_t)data + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)data + bytes) & ~(page - 1);
    if (end > start)                /* advice only: a refusal is harmless */
        madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)data;
    (void)bytes;
#endif
}

/* ---- a cache of data blocks and array headers
 *
 * A training loop makes and frees arrays of the same few sizes in every
 * iteration, and malloc's aligned path, with the freeing, merging and
 * handing of memory back to the system behind it, costs more than the
 * arithmetic on a (100, 10) array. So a freed block of up to
 * BLOCK_CACHE_MAX_BYTES waits here for the next array of its size
 * (NumPy keeps a cache of small blocks too), and a freed NdArray header
 * for the next array. Blocks are kept by size: a bin holds the blocks
 * of one size, newest last, and grows to hold as many as a graph frees
 * at once (an LSTM's 30 steps free hundreds of one size), within
 * BLOCK_CACHE_MAX_TOTAL bytes in all. Per thread: no lock, and what a
 * thread caches is its own. What is still cached at exit stays
 * reachable from here, which leak checkers do not count as leaked.
 * Under AddressSanitizer nothing is cached, so that a use of an array
 * after its release is still caught. */
#ifdef __SANITIZE_ADDRESS__
enum { ARRAY_CACHE = 0 };
#else
enum { ARRAY_CACHE = 1 };
#endif

enum {
    CACHE_BINS = 64,                        /* sizes cached at once */
    BLOCK_CACHE_MAX_BYTES = 1 << 22,        /* 4 MiB a block */
    BLOCK_CACHE_MAX_TOTAL = 1 << 25,        /* 32 MiB in all */
    HEADER_CACHE_MAX = 4096,
};

typedef struct BlockBin {
    size_t bytes;                   /* each block's size; 0: never used */
    int count, capacity;
    void **blocks;                  /* owned, as are the blocks */
} BlockBin;

static _Thread_local struct {
    BlockBin bins[CACHE_BINS];      /* open addressing by size */
    size_t total;                   /* the bytes of all the blocks */
    NdArray *headers[HEADER_CACHE_MAX];
    int nheaders;
} cache;

/* The bin for blocks of bytes (a multiple of 64): the one that has them,
 * else, when make is true, an empty bin given to that size; NULL when
 * there is none. A bin keeps its size while it has blocks, so each size
 * has at most one bin. */
static BlockBin *block_bin(size_t bytes, bool make)
{
    BlockBin *vacant = NULL;
    for (int i = 0; i < CACHE_BINS; i++) {
        BlockBin *bin = &cache.bins[(bytes / 64 + i) % CACHE_BINS];
        if (bin->bytes == bytes)
            return bin;
        if (!vacant && bin->count == 0)
            vacant = bin;
        if (bin->bytes == 0)
            break;                  /* no bin further on has this size */
    }
    if (!make || !vacant)
        return NULL;
    vacant->bytes = bytes;
    return vacant;
}

/* A cached block of bytes (a multiple of 64), taken out of the cache;
 * NULL when none is there. */
static void *cached_block(size_t bytes)
{
    if (!ARRAY_CACHE)
        return NULL;
    BlockBin *bin = block_bin(bytes, false);
    if (!bin || bin->count == 0)
        return NULL;
    cache.total -= bytes;
    return bin->blocks[--bin->count];
}

/* Frees a data block of bytes, or keeps it for a later array. */
static void free_block(void *data, size_t bytes)
{
    BlockBin *bin = NULL;
    if (ARRAY_CACHE && bytes <= BLOCK_CACHE_MAX_BYTES &&
        cache.total + bytes <= BLOCK_CACHE_MAX_TOTAL)
        bin = block_bin(bytes, true);
    if (bin && bin->count == bin->capacity) {
        int capacity = bin->capacity ? 2 * bin->capacity : 16;
        void **grown = realloc(bin->blocks, capacity * sizeof *grown);
        if (grown) {
            bin->blocks = grown;
            bin->capacity = capacity;
        }
    }
    if (!bin || bin->count == bin->capacity) {
        free(data);
        return;
    }
    bin->blocks[bin->count++] = data;
    cache.total += bytes;
}

/* The size of the data block for size elements of dtype: a multiple of
 * 64 (64-byte alignment suits AVX-512 loads and BLAS), at least 64. */
static size_t block_size(int64_t size, NdDtype dtype)
{
    size_t bytes = (size_t)size * nd_dtype_size(dtype);
    return bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
}

/* An NdArray header, from the cache or malloc, its fields unset; NULL
 * when memory runs out. */
static NdArray *new_header(void)
{
    if (cache.nheaders > 0)
        return cache.headers[--cache.nheaders];
    return malloc(sizeof(NdArray));
}

static void free_header(NdArray *a)
{
    if (ARRAY_CACHE && cache.nheaders < HEADER_CACHE_MAX)
        cache.headers[cache.nheaders++] = a;
    else
        free(a);
}

/* A new CPU array of shape, its elements left unset. Errors name op,
 * the public function that asked for it. */
static NdArray *new_array(const char *op, NdDtype dtype, int ndim,
                          const int64_t *shape)
{
    if ((unsigned)dtype >= ND_NUM_DTYPES)
        nd_error(op, "invalid dtype %d", (int)dtype);
    nd_check_shape(op, ndim, shape);
    int64_t size = 1;
    for (int d = 0; d < ndim; d++)
        size *= shape[d];
    size_t bytes = (size_t)size * nd_dtype_size(dtype);
    size_t rounded = block_size(size, dtype);
    void *data = cached_block(rounded);
    if (!data) {
        data = aligned_alloc(64, rounded);
        if (data)
            advise_huge_pages(data, bytes);
    }
    NdArray *a = data ? new_header() : NULL;
    if (!a) {
        free(data);
        nd_error(op, "out of memory allocating %zu bytes", bytes);
    }
    a->dtype = dtype;
    a->device = ND_CPU;
    a->ndim = ndim;
    for (int d = 0; d < ndim; d++)
        a->shape[d] = shape[d];
    for (int d = ndim; d < ND_MAX_DIMS; d++)
        a->shape[d] = 0;
    a->size = size;
    a->data = data;
    a->base = NULL;
    a->refcount = 1;
    return a;
}

/* A new array with every element set to value. */
static NdArray *new_filled(const char *op, NdDtype dtype, int ndim,
                           const int64_t *shape, double value)
{
    NdArray *a = new_array(op, dtype, ndim, shape);
    if (dtype == ND_FLOAT64) {
        for (int64_t i = 0; i < a->size; i++)
            ND_DATA(a, double)[i] = value;
    } else if (dtype == ND_FLOAT32) {
        for (int64_t i = 0; i < a->size; i++)
            ND_DATA(a, float)[i] = (float)value;
    } else {
        for (int64_t i = 0; i < a->size; i++)
            nd_store(a->data, dtype, i, value);
    }
    return a;
}

NdArray *nd_empty(NdDtype dtype, int ndim, const int64_t *shape)
{
    return new_array("nd_empty", dtype, ndim, shape);
}

NdArray *nd_zeros(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *a = new_array("nd_zeros", dtype, ndim, shape);
    memset(a->data, 0, (size_t)a->size * nd_dtype_size(dtype));
    return a;
}

NdArray *nd_full(NdDtype dtype, int ndim, const int64_t *shape,
                 double value)
{
    return new_filled("nd_full", dtype, ndim, shape, value);
}

NdArray *nd_ones(NdDtype dtype, int ndim, const int64_t *shape)
{
    return new_filled("nd_ones", dtype, ndim, shape, 1.0);
}

/* An array of a's dtype and shape, on a's device, filled with value. */
static NdArray *filled_like(const char *op, const NdArray *a, double value)
{
    if (nd_same_device(op, 1, &a) == ND_CUDA)
        return nd_gpu_full(op, a->dtype, a->ndim, a->shape, value);
    return new_filled(op, a->dtype, a->ndim, a->shape, value);
}

NdArray *nd_zeros_like(const NdArray *a)
{
    return filled_like("nd_zeros_like", a, 0.0);
}

NdArray *nd_ones_like(const NdArray *a)
{
    return filled_like("nd_ones_like", a, 1.0);
}

NdArray *nd_full_like(const NdArray *a, double value)
{
    return filled_like("nd_full_like", a, value);
}

NdArray *nd_empty_on(NdDevice device, NdDtype dtype, int ndim,
                     const int64_t *shape)
{
    if (device == ND_CUDA)
        return nd_gpu_empty("nd_empty_on", dtype, ndim, shape);
    return new_array("nd_empty_on", dtype, ndim, shape);
}

NdArray *nd_full_on(NdDevice device, NdDtype dtype, int ndim,
                    const int64_t *shape, double value)
{
    if (device == ND_CUDA)
        return nd_gpu_full("nd_full_on", dtype, ndim, shape, value);
    return new_filled("nd_full_on", dtype, ndim, shape, value);
}

NdArray *nd_scalar(double value)
{
    return new_filled("nd_scalar", ND_FLOAT64, 0, NULL, value);
}

NdArray *nd_scalar_of(NdDtype dtype, double value)
{
    return new_filled("nd_scalar_of", dtype, 0, NULL, value);
}

NdArray *nd_from_buffer(NdDtype dtype, int ndim, const int64_t *shape,
                        const void *data)
{
    NdArray *a = new_array("nd_from_buffer", dtype, ndim, shape);
    if (a->size > 0)
        memcpy(a->data, data, (size_t)a->size * nd_dtype_size(dtype));
    return a;
}

/* NumPy's arange fill: the first two values are start and start + step
 * stored in the array's dtype; the others are first + i * (second -
 * first) computed in that dtype. So np.arange(1, 2, 0.1)[3] is
 * 1.3000000000000003, not 1 + 3 * 0.1. */
static void fill_arange(NdArray *a, double start, double step)
{
    int64_t n = a->size;
    if (n > 0)
        nd_store(a->data, a->dtype, 0, start);
    if (n > 1)
        nd_store(a->data, a->dtype, 1, start + step);
    if (n <= 2)
        return;
    if (a->dtype == ND_FLOAT32) {
        float *x = a->data, delta = x[1] - x[0];
        for (int64_t i = 2; i < n; i++)
            x[i] = x[0] + (float)i * delta;
    } else {
        double first = nd_load(a->data, a->dtype, 0);
        double delta = nd_load(a->data, a->dtype, 1) - first;
        for (int64_t i = 2; i < n; i++)
            nd_store(a->data, a->dtype, i, first + (double)i * delta);
    }
}

NdArray *nd_arange(double start, double stop, double step, NdDtype dtype)
{
    const char *op = "nd_arange";
    if (step == 0)
        nd_error(op, "step must not be zero");
    double count = ceil((stop - start) / step);
    if (isnan(count))
        nd_error(op, "cannot compute length of arange(%g, %g, %g)", start,
                 stop, step);
    if (count > (double)ND_MAX_ELEMENTS)
        nd_error(op, "maximum allowed size exceeded: arange(%g, %g, %g) "
                 "has %g elements", start, stop, step, count);
    int64_t n = count > 0 ? (int64_t)count : 0;
    if (dtype == ND_BOOL && n > 2)
        nd_error(op, "no fill-function for data-type bool (arange of "
                 "%" PRId64 " elements; at most 2 are possible)", n);
    NdArray *a = new_array(op, dtype, 1, &n);
    fill_arange(a, start, step);
    return a;
}

NdArray *nd_linspace(double start, double stop, int64_t num)
{
    if (num < 0)
        nd_error("nd_linspace", "number of samples, %" PRId64
                 ", must be non-negative", num);
    NdArray *a = new_array("nd_linspace", ND_FLOAT64, 1, &num);
    double *x = a->data;        /* (num,) */
    /* NumPy: start + i * step with step = (stop - start) / (num - 1),
     * and the last sample set to stop exactly. */
    double step = num > 1 ? (stop - start) / (double)(num - 1) : 0;
    for (int64_t i = 0; i < num; i++)
        x[i] = start + (double)i * step;
    if (num > 1)
        x[num - 1] = stop;
    return a;
}

NdArray *nd_eye(int64_t n, NdDtype dtype)
{
    NdArray *a = new_array("nd_eye", dtype, ND_SHAPE(n, n));  /* (n, n) */
    memset(a->data, 0, (size_t)a->size * nd_dtype_size(dtype));
    for (int64_t i = 0; i < n; i++)
        nd_store(a->data, dtype, i * n + i, 1.0);
    return a;
}

/* A new array holding a's elements converted to dtype. */
static NdArray *converted(const char *op, const NdArray *a, NdDtype dtype)
{
    if (nd_same_device(op, 1, &a) == ND_CUDA)
        return nd_gpu_astype(op, a, dtype);
    NdArray *out = new_array(op, dtype, a->ndim, a->shape);
    nd_cast_buffer(out->data, dtype, a->data, a->dtype, a->size);
    return out;
}

NdArray *nd_copy(const NdArray *a)
{
    return converted("nd_copy", a, a->dtype);
}

NdArray *nd_astype(const NdArray *a, NdDtype dtype)
{
    return converted("nd_astype", a, dtype);
}

NdArray *nd_as_dtype(const NdArray *a, NdDtype dtype)
{
    if (a->dtype == dtype)
        return nd_retain((NdArray *)a);
    return nd_astype(a, dtype);
}

/* ------------------------------------------------------------ lifetime */

NdArray *nd_retain(NdArray *a)
{
    a->refcount++;
    return a;
}

void nd_release(NdArray *a)
{
    if (!a || --a->refcount > 0)
        return;
    if (a->base)
        nd_release(a->base);
    else if (a->device == ND_CPU)
        free_block(a->data, block_size(a->size, a->dtype));
    else
        nd_device_free(a);
    free_header(a);
}

/* ------------------------------------------------------------ elements */

static void check_flat_index(const char *op, const NdArray *a, int64_t i)
{
    if (i < 0 || i >= a->size)
        nd_error(op, "index %" PRId64 " is out of bounds for size %" PRId64,
                 i, a->size);
}

double nd_get_flat(const NdArray *a, int64_t i)
{
    NdDevice device = nd_same_device("nd_get_flat", 1, &a);
    check_flat_index("nd_get_flat", a, i);
    if (device == ND_CUDA)
        return nd_gpu_get("nd_get_flat", a, i);
    return nd_load(a->data, a->dtype, i);
}

void nd_set_flat(NdArray *a, int64_t i, double value)
{
    NdDevice device = nd_same_device("nd_set_flat", 1,
                                     (const NdArray *const[]){a});
    check_flat_index("nd_set_flat", a, i);
    if (device == ND_CUDA)
        nd_gpu_set("nd_set_flat", a, i, value);
    else
        nd_store(a->data, a->dtype, i, value);
}

double nd_item(const NdArray *a)
{
    NdDevice device = nd_same_device("nd_item", 1, &a);
    if (a->size != 1)
        nd_error("nd_item", "can only convert an array of size 1 to a "
                 "number (this one has %" PRId64 " elements)", a->size);
    if (device == ND_CUDA)
        return nd_gpu_get("nd_item", a, 0);
    return nd_load(a->data, a->dtype, 0);
}

size_t nd_nbytes(const NdArray *a)
{
    return (size_t)a->size * nd_dtype_size(a->dtype);
}

bool nd_array_equal(const NdArray *a, const NdArray *b)
{
    NdDevice device = nd_same_device("nd_array_equal", 2,
                                     (const NdArray *const[]){a, b});
    if (a->ndim != b->ndim)
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d])
            return false;
    if (device == ND_CUDA)              /* equal: close within 0 */
        return nd_gpu_allclose("nd_array_equal", a, b, 0, 0);
    for (int64_t i = 0; i < a->size; i++)
        if (nd_load_complex(a->data, a->dtype, i) !=
            nd_load_complex(b->data, b->dtype, i))
            return false;
    return true;
}

static bool is_finite(double complex z)
{
    return isfinite(creal(z)) && isfinite(cimag(z));
}

bool nd_allclose(const NdArray *a, const NdArray *b, double rtol,
                 double atol)
{
    NdDevice device = nd_same_device("nd_allclose", 2,
                                     (const NdArray *const[]){a, b});
    int64_t shape[ND_MAX_DIMS];
    int ndim = nd_broadcast_shapes("nd_allclose", a, b, shape);
    if (device == ND_CUDA)
        return nd_gpu_allclose("nd_allclose", a, b, rtol, atol);
    int64_t sa[ND_MAX_DIMS], sb[ND_MAX_DIMS], size = 1;
    nd_broadcast_strides(ndim, shape, a->ndim, a->shape, sa);
    nd_broadcast_strides(ndim, shape, b->ndim, b->shape, sb);
    for (int d = 0; d < ndim; d++)
        size *= shape[d];
    for (int64_t i = 0; i < size; i++) {
        double complex x = nd_load_complex(
            a->data, a->dtype, nd_broadcast_offset(i, ndim, shape, sa));
        double complex y = nd_load_complex(
            b->data, b->dtype, nd_broadcast_offset(i, ndim, shape, sb));
        if (x == y)
            continue;               /* equal infinities too */
        if (!is_finite(x) || !is_finite(y))
            return false;           /* NaN, or unequal infinities */
        if (!(cabs(x - y) <= atol + rtol * cabs(y)))
            return false;
    }
    return true;
}

/* ------------------------------------------------------------ in place */

/* Stops unless src broadcasts to dst's shape as it is (np.copyto). */
static void check_broadcasts_into(const char *op, const NdArray *dst,
                                  const NdArray *src)
{
    bool fits = src->ndim <= dst->ndim;
    for (int d = 1; fits && d <= src->ndim; d++) {
        int64_t from = src->shape[src->ndim - d];
        fits = from == 1 || from == dst->shape[dst->ndim - d];
    }
    if (!fits) {
        char d[ND_SHAPE_TEXT], s[ND_SHAPE_TEXT];
        nd_error(op, "could not broadcast input array from shape %s into "
                 "shape %s", nd_shape_text(s, src), nd_shape_text(d, dst));
    }
}

void nd_copyto(NdArray *dst, const NdArray *src)
{
    nd_same_device("nd_copyto", 2, (const NdArray *const[]){dst, src});
    check_broadcasts_into("nd_copyto", dst, src);
    if (dst->device == ND_CUDA) {
        nd_gpu_copyto("nd_copyto", dst, src);
        return;
    }
    if (src->size == dst->size) {
        nd_cast_buffer(dst->data, dst->dtype, src->data, src->dtype,
                       dst->size);
        return;
    }
    int64_t strides[ND_MAX_DIMS];
    nd_broadcast_strides(dst->ndim, dst->shape, src->ndim, src->shape,
                         strides);
    for (int64_t i = 0; i < dst->size; i++) {
        int64_t j = nd_broadcast_offset(i, dst->ndim, dst->shape, strides);
        nd_store_complex(dst->data, dst->dtype, i,
                         nd_load_complex(src->data, src->dtype, j));
    }
}

/* ------------------------------------------------------------ broadcast */

int nd_broadcast_shapes(const char *op, const NdArray *a, const NdArray *b,
                        int64_t *out_shape)
{
    int ndim = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (int d = 0; d < ndim; d++) {
        int ka = d - (ndim - a->ndim), kb = d - (ndim - b->ndim);
        int64_t ea = ka >= 0 ? a->shape[ka] : 1;
        int64_t eb = kb >= 0 ? b->shape[kb] : 1;
        if (ea != eb && ea != 1 && eb != 1) {
            char sa[ND_SHAPE_TEXT], sb[ND_SHAPE_TEXT];
            nd_error(op, "operands could not be broadcast together with "
                     "shapes %s %s", nd_shape_text(sa, a),
                     nd_shape_text(sb, b));
        }
        out_shape[d] = ea == 1 ? eb : ea;
    }
    return ndim;
}
