/* cpu.c - the CPU as a device (nd_device.h): host memory, from a cache
 * of aligned blocks, and the host's fill, cast, element access and
 * allclose, which ndarray.c asks for as it asks the GPU's table. */
#include <complex.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nd_internal.h"

/* ------------------------------------------------------------ memory */

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

/* ---- a cache of data blocks
 *
 * A training loop makes and frees arrays of the same few sizes in every
 * iteration, and malloc's aligned path, with the freeing, merging and
 * handing of memory back to the system behind it, costs more than the
 * arithmetic on a (100, 10) array. So a freed block of up to
 * BLOCK_CACHE_MAX_BYTES waits here for the next array of its size
 * (NumPy keeps a cache of small blocks too; ndarray.c keeps the freed
 * headers). Blocks are kept by size: a bin holds the blocks
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
};

typedef struct BlockBin {
    size_t bytes;                   /* each block's size; 0: never used */
    int count, capacity;
    void **blocks;                  /* owned, as are the blocks */
} BlockBin;

static _Thread_local struct {
    BlockBin bins[CACHE_BINS];      /* open addressing by size */
    size_t total;                   /* the bytes of all the blocks */
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

/* The size of the data block for an array's bytes: a multiple of 64
 * (64-byte alignment suits AVX-512 loads and BLAS), at least 64. */
static size_t block_size(size_t bytes)
{
    return bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
}

/* The bytes of the allocation that failed last on this thread, for
 * cpu_check's message. */
static _Thread_local size_t failed_bytes;

static void *cpu_alloc(size_t bytes)
{
    size_t rounded = block_size(bytes);
    void *block = cached_block(rounded);
    if (block)
        return block;
    block = aligned_alloc(64, rounded);
    if (block)
        advise_huge_pages(block, bytes);
    else
        failed_bytes = bytes;
    return block;
}

static void cpu_free(void *data, size_t bytes)
{
    free_block(data, block_size(bytes));
}

/* Only alloc fails on the host. */
static void cpu_check(const char *op, int status)
{
    if (status != 0)
        nd_error(op, "out of memory allocating %zu bytes", failed_bytes);
}

/* The host's memory is the host's: a copy either way is memcpy. */
static int cpu_copy(void *dst, const void *src, size_t bytes)
{
    if (bytes > 0)
        memcpy(dst, src, bytes);
    return 0;
}

/* ------------------------------------------------------------ elements */

static int cpu_fill(NdArray *a, double value)
{
    if (a->dtype == ND_FLOAT64) {
        for (int64_t i = 0; i < a->size; i++)
            ND_DATA(a, double)[i] = value;
    } else if (a->dtype == ND_FLOAT32) {
        for (int64_t i = 0; i < a->size; i++)
            ND_DATA(a, float)[i] = (float)value;
    } else {
        for (int64_t i = 0; i < a->size; i++)
            nd_store(a->data, a->dtype, i, value);
    }
    return 0;
}

static int cpu_cast(NdArray *dst, const NdArray *src)
{
    if (src->size == dst->size) {
        nd_cast_buffer(dst->data, dst->dtype, src->data, src->dtype,
                       dst->size);
        return 0;
    }
    int64_t strides[ND_MAX_DIMS];
    nd_broadcast_strides(dst->ndim, dst->shape, src->ndim, src->shape,
                         strides);
    for (int64_t i = 0; i < dst->size; i++) {
        int64_t j = nd_broadcast_offset(i, dst->ndim, dst->shape, strides);
        nd_store_complex(dst->data, dst->dtype, i,
                         nd_load_complex(src->data, src->dtype, j));
    }
    return 0;
}

static int cpu_get(const NdArray *a, int64_t i, double *value)
{
    *value = nd_load(a->data, a->dtype, i);
    return 0;
}

static int cpu_set(NdArray *a, int64_t i, double value)
{
    nd_store(a->data, a->dtype, i, value);
    return 0;
}

static bool is_finite(double complex z)
{
    return isfinite(creal(z)) && isfinite(cimag(z));
}

static int cpu_allclose(const NdArray *a, const NdArray *b, double rtol,
                        double atol, bool *result)
{
    int64_t shape[ND_MAX_DIMS];
    int ndim = nd_broadcast_shape(a->ndim, a->shape, b->ndim, b->shape,
                                  shape);
    int64_t sa[ND_MAX_DIMS], sb[ND_MAX_DIMS], size = 1;
    nd_broadcast_strides(ndim, shape, a->ndim, a->shape, sa);
    nd_broadcast_strides(ndim, shape, b->ndim, b->shape, sb);
    for (int d = 0; d < ndim; d++)
        size *= shape[d];
    bool same = a->size == size && b->size == size;   /* no broadcast */
    *result = false;
    for (int64_t i = 0; i < size; i++) {
        double complex x = nd_load_complex(
            a->data, a->dtype,
            same ? i : nd_broadcast_offset(i, ndim, shape, sa));
        double complex y = nd_load_complex(
            b->data, b->dtype,
            same ? i : nd_broadcast_offset(i, ndim, shape, sb));
        if (x == y)
            continue;               /* equal infinities too */
        if (!is_finite(x) || !is_finite(y))
            return 0;               /* NaN, or unequal infinities */
        if (!(cabs(x - y) <= atol + rtol * cabs(y)))
            return 0;
    }
    *result = true;
    return 0;
}

const NdDeviceOps nd_cpu_device = {
    .alloc = cpu_alloc,
    .free = cpu_free,
    .upload = cpu_copy,
    .download = cpu_copy,
    .fill = cpu_fill,
    .cast = cpu_cast,
    .get = cpu_get,
    .set = cpu_set,
    .allclose = cpu_allclose,
    .check = cpu_check,
    .kernels = NULL,
};
