/* nd_internal.h - what the files of common/ share and nothing outside
 * them uses: allocation, checks that report through nd_error, element
 * conversion between dtypes, the broadcast of two shapes, files written
 * under a temporary name, file text escaped for messages, threads for
 * large operations, and (from nd_device.h) each device's table, whose
 * kernels operations on device arrays call. */
#ifndef ND_INTERNAL_H
#define ND_INTERNAL_H

#include <complex.h>

#include "nd.h"
#include "nd_broadcast.h"
#include "nd_device.h"
#include "nd_gpu.h"

/* NumPy's words for an index out of range, with the index and the
 * axis's size as long longs and the axis as an int: said at once by
 * index.c, and by gpu.c for a check the GPU made without waiting. */
#define ND_OUT_OF_BOUNDS \
    "index %lld is out of bounds for axis %d with size %lld"

/* Room for a shape written as "(2,3)" or "(2, 3)". */
enum { ND_SHAPE_TEXT = ND_MAX_DIMS * 22 + 8 };

/* Writes "(2,3)" and "(4,)" (NumPy's error style) or, when spaced,
 * "(2, 3)" and "(3,)" (Python's tuple style) into buf; returns buf. */
char *nd_format_shape(char buf[ND_SHAPE_TEXT], int ndim,
                      const int64_t *shape, bool spaced);
/* a's shape in NumPy's error style, for messages. */
static inline char *nd_shape_text(char buf[ND_SHAPE_TEXT], const NdArray *a)
{
    return nd_format_shape(buf, a->ndim, a->shape, false);
}

/* The most elements an array may have: its bytes, at up to 16 per
 * element, must fit in an int64_t (and so in a size_t). */
#define ND_MAX_ELEMENTS (INT64_MAX / 16)

/* Stops with an error unless ndim and every extent are valid. */
void nd_check_shape(const char *op, int ndim, const int64_t *shape);
/* A negative axis counted from the end, checked against ndim. */
int nd_normalize_axis(const char *op, int axis, int ndim);

/* Devices: every public operation on arrays starts with one of these.
 * nd_require_cpu refuses a device array with a message that names the
 * conversion (for routines that run only on the host); nd_same_device
 * refuses operands on different devices, or on the GPU while GPU
 * support is off, and returns their common device. */
void nd_require_cpu(const char *op, const NdArray *a);
NdDevice nd_same_device(const char *op, int n, const NdArray *const *arrays);
/* A new header over a's data with another shape of the same size (the
 * views of shape.c). The view keeps the owner of the data alive (a
 * itself, or a's own base). */
NdArray *nd_view(const char *op, const NdArray *a, int ndim,
                 const int64_t *shape);
/* "cpu" or "cuda", as messages name a device. */
const char *nd_device_name(NdDevice device);

/* Elements as double / double complex, whatever the dtype. */
double nd_load(const void *data, NdDtype dtype, int64_t i);
double complex nd_load_complex(const void *data, NdDtype dtype, int64_t i);
void nd_store(void *data, NdDtype dtype, int64_t i, double value);
void nd_store_complex(void *data, NdDtype dtype, int64_t i,
                      double complex value);
/* Converts n elements from src (dtype from) into dst (dtype to). */
void nd_cast_buffer(void *dst, NdDtype to, const void *src, NdDtype from,
                    int64_t n);
/* a itself (a new reference) when it already has dtype, else a cast. */
NdArray *nd_as_dtype(const NdArray *a, NdDtype dtype);

/* The broadcast shape of a and b, or an error naming op and both shapes.
 * Writes out_shape (ND_MAX_DIMS entries) and returns its ndim. */
int nd_broadcast_shapes(const char *op, const NdArray *a, const NdArray *b,
                        int64_t *out_shape);

/* Files written whole or not at all (tempfile.c), as tempfile.h, which
 * the steps' programs include, declares and explains them: creates an
 * empty file named path.part-PID-XXXXXX next to the file path leads
 * to, to be renamed to it once complete. Returns its descriptor and
 * stores its malloc'd name in *temporary, or returns -1 with errno set
 * and *temporary NULL. */
int nd_open_temporary(const char *path, char **temporary);

/* Ends a file written under a temporary name (nd_open_temporary's, or
 * the downloader's), all of it written: when ok, renames
 * temporary to path, and a failed rename writes the problem and makes
 * the result false; when the result is false, the file is removed.
 * Frees temporary either way. Returns whether path now holds the file. */
bool nd_finish_temporary(char *temporary, const char *path, bool ok,
                         char *problem, size_t size);

/* Text read from a file, for a message (escape.c): the n bytes of text
 * written into out (size bytes with its '\0'), each byte that is not
 * printable ASCII as \xNN and a backslash as \\, so that a hostile
 * file cannot send escape sequences to the terminal. Text too long for
 * out is cut after a whole byte and ends in "...". Returns out. */
const char *nd_escape(char *out, size_t size, const void *text, size_t n);

/* Threads (parallel.c). nd_parallel_run calls work(context, t) for every
 * t < threads, each on its own thread (t = 0 on the caller's), and
 * returns when all are done; a thread that cannot start runs on the
 * caller's afterwards, so work must not wait for another thread. */
typedef void (*NdWork)(void *context, int thread);
void nd_parallel_run(NdWork work, void *context, int threads);
/* The CPUs this process may run on, at least 1. */
int nd_usable_cpus(void);

#endif /* ND_INTERNAL_H */
