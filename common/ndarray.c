/* ndarray.c - the array object: creation, on any device, through that
 * device's table (nd_device.h), reference counting, element access,
 * copies and casts, moves between devices, and copyto. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Freed NdArray headers wait here for the next array, on any device
 * (the data blocks have their device's own cache, cpu.c's for the
 * host). Per thread, and nothing is cached under AddressSanitizer, so
 * that a use of an array after its release is still caught. */
#ifdef __SANITIZE_ADDRESS__
enum { HEADER_CACHE = 0 };
#else
enum { HEADER_CACHE = 1 };
#endif

enum { HEADER_CACHE_MAX = 4096 };

static _Thread_local struct {
    NdArray *headers[HEADER_CACHE_MAX];
    int nheaders;
} cache;

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
    if (HEADER_CACHE && cache.nheaders < HEADER_CACHE_MAX)
        cache.headers[cache.nheaders++] = a;
    else
        free(a);
}

/* The table of device; stops naming op when the device is off. */
static const NdDeviceOps *device_ops(const char *op, NdDevice device)
{
    const NdDeviceOps *ops = nd_device_ops(device);
    if (!ops)
        nd_error(op, "GPU support is off (%s)", nd_gpu_status());
    return ops;
}

/* A new array of shape on device, its elements left unset: the one
 * place where an array header is made. Errors name op, the public
 * function that asked for it. */
static NdArray *new_array(const char *op, NdDevice device, NdDtype dtype,
                          int ndim, const int64_t *shape)
{
    const NdDeviceOps *ops = device_ops(op, device);
    if ((unsigned)dtype >= ND_NUM_DTYPES)
        nd_error(op, "invalid dtype %d", (int)dtype);
    nd_check_shape(op, ndim, shape);
    int64_t size = 1;
    for (int d = 0; d < ndim; d++)
        size *= shape[d];
    size_t bytes = (size_t)size * nd_dtype_size(dtype);
    void *data = ops->alloc(bytes);
    if (!data)
        ops->check(op, -1);
    NdArray *a = new_header();
    if (!a) {
        ops->free(data, bytes);
        nd_error(op, "out of memory allocating %zu bytes", bytes);
    }
    a->dtype = dtype;
    a->device = device;
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

NdArray *nd_view(const char *op, const NdArray *a, int ndim,
                 const int64_t *shape)
{
    NdArray *view = new_header();
    if (!view)
        nd_error(op, "out of memory");
    *view = (NdArray){
        .dtype = a->dtype,
        .device = a->device,
        .ndim = ndim,
        .size = a->size,
        .data = a->data,
        .base = nd_retain(a->base ? a->base : (NdArray *)a),
        .refcount = 1,
    };
    for (int d = 0; d < ndim; d++)
        view->shape[d] = shape[d];
    return view;
}

/* A new array on device with every element set to value. */
static NdArray *new_filled(const char *op, NdDevice device, NdDtype dtype,
                           int ndim, const int64_t *shape, double value)
{
    NdArray *a = new_array(op, device, dtype, ndim, shape);
    const NdDeviceOps *ops = nd_device_ops(device);
    nd_device_status(ops, op, ops->fill(a, value));
    return a;
}

NdArray *nd_empty(NdDtype dtype, int ndim, const int64_t *shape)
{
    return new_array("nd_empty", ND_CPU, dtype, ndim, shape);
}

NdArray *nd_zeros(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *a = new_array("nd_zeros", ND_CPU, dtype, ndim, shape);
    memset(a->data, 0, (size_t)a->size * nd_dtype_size(dtype));
    return a;
}

NdArray *nd_full(NdDtype dtype, int ndim, const int64_t *shape,
                 double value)
{
    return new_filled("nd_full", ND_CPU, dtype, ndim, shape, value);
}

NdArray *nd_ones(NdDtype dtype, int ndim, const int64_t *shape)
{
    return new_filled("nd_ones", ND_CPU, dtype, ndim, shape, 1.0);
}

/* An array of a's dtype and shape, on a's device, filled with value. */
static NdArray *filled_like(const char *op, const NdArray *a, double value)
{
    NdDevice device = nd_same_device(op, 1, &a);
    return new_filled(op, device, a->dtype, a->ndim, a->shape, value);
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
    return new_array("nd_empty_on", device, dtype, ndim, shape);
}

NdArray *nd_full_on(NdDevice device, NdDtype dtype, int ndim,
                    const int64_t *shape, double value)
{
    return new_filled("nd_full_on", device, dtype, ndim, shape, value);
}

NdArray *nd_scalar(double value)
{
    return new_filled("nd_scalar", ND_CPU, ND_FLOAT64, 0, NULL, value);
}

NdArray *nd_scalar_of(NdDtype dtype, double value)
{
    return new_filled("nd_scalar_of", ND_CPU, dtype, 0, NULL, value);
}

NdArray *nd_from_buffer(NdDtype dtype, int ndim, const int64_t *shape,
                        const void *data)
{
    NdArray *a = new_array("nd_from_buffer", ND_CPU, dtype, ndim, shape);
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
    return nd_arange_on(ND_CPU, start, stop, step, dtype);
}

NdArray *nd_arange_on(NdDevice device, double start, double stop,
                      double step, NdDtype dtype)
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
    NdArray *a = new_array(op, device, dtype, 1, &n);
    const NdGpuBackend *kernels = nd_kernels(device);
    if (kernels && n > 0)
        nd_device_check(op, device, kernels->arange(a, start, step));
    else if (!kernels)
        fill_arange(a, start, step);
    return a;
}

NdArray *nd_linspace(double start, double stop, int64_t num)
{
    if (num < 0)
        nd_error("nd_linspace", "number of samples, %" PRId64
                 ", must be non-negative", num);
    NdArray *a = new_array("nd_linspace", ND_CPU, ND_FLOAT64, 1, &num);
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
    NdArray *a = new_array("nd_eye", ND_CPU, dtype,
                           ND_SHAPE(n, n));                 /* (n, n) */
    memset(a->data, 0, (size_t)a->size * nd_dtype_size(dtype));
    for (int64_t i = 0; i < n; i++)
        nd_store(a->data, dtype, i * n + i, 1.0);
    return a;
}

/* A new array holding a's elements converted to dtype. */
static NdArray *converted(const char *op, const NdArray *a, NdDtype dtype)
{
    NdDevice device = nd_same_device(op, 1, &a);
    NdArray *out = new_array(op, device, dtype, a->ndim, a->shape);
    const NdDeviceOps *ops = nd_device_ops(device);
    nd_device_status(ops, op, ops->cast(out, a));
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

/* Whether a, going from the host to another device, can go as its
 * value, into *value: one element that a double holds exactly (not a
 * complex, not an int64 beyond 2^53), which the device's fill stores
 * as nd_store would. A copy from the host's memory waits first for the
 * work queued on the device, as CUDA's does from pageable memory; a
 * fill is queued behind it, and the host goes on. So a number moved to
 * the GPU (an operand such as the 1 of 1 - y) costs no wait. */
static bool moves_by_value(const NdArray *a, NdDevice device,
                           double *value)
{
    if (a->device != ND_CPU || device == ND_CPU || a->size != 1 ||
        nd_dtype_is_complex(a->dtype))
        return false;
    *value = nd_load(a->data, a->dtype, 0);
    if (a->dtype != ND_INT64)
        return true;
    int64_t n = *(const int64_t *)a->data;  /* not the rounded double */
    return n >= -(INT64_C(1) << 53) && n <= INT64_C(1) << 53;
}

/* cp.asarray(a) for ND_CUDA, cp.asnumpy(a) for ND_CPU: a copy on the
 * other device, or a itself when it is already there. Of the two
 * devices, one is the host; the other one's table makes the copy. */
NdArray *nd_to_device(const NdArray *a, NdDevice device)
{
    const char *op = "nd_to_device";
    if (device == a->device)
        return nd_retain((NdArray *)a);
    const NdDeviceOps *from = nd_device_ops(a->device);
    const NdDeviceOps *to = nd_device_ops(device);
    if (!from || !to)
        nd_error(op, "cannot move a %s array to %s: GPU support is off "
                 "(%s)", nd_device_name(a->device), nd_device_name(device),
                 nd_gpu_status());
    double value;
    if (moves_by_value(a, device, &value))
        return new_filled(op, device, a->dtype, a->ndim, a->shape, value);
    nd_device_settle(from);
    NdArray *out = new_array(op, device, a->dtype, a->ndim, a->shape);
    const NdDeviceOps *ops = device == ND_CPU ? from : to;
    int status = device == ND_CPU
                     ? ops->download(out->data, a->data, nd_nbytes(a))
                     : ops->upload(out->data, a->data, nd_nbytes(a));
    if (status != 0)
        nd_release(out);
    nd_device_status(ops, op, status);
    return out;
}

void nd_synchronize(NdDevice device)
{
    const NdDeviceOps *ops = nd_device_ops(device);
    if (!ops)
        nd_error("nd_synchronize", "cannot reach %s: GPU support is off "
                 "(%s)", nd_device_name(device), nd_gpu_status());
    nd_device_settle(ops);
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
    else
        nd_device_ops(a->device)->free(a->data, nd_nbytes(a));
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
    const char *op = "nd_get_flat";
    const NdDeviceOps *ops = nd_device_ops(nd_same_device(op, 1, &a));
    check_flat_index(op, a, i);
    nd_device_settle(ops);
    double value;
    nd_device_status(ops, op, ops->get(a, i, &value));
    return value;
}

void nd_set_flat(NdArray *a, int64_t i, double value)
{
    const char *op = "nd_set_flat";
    const NdDeviceOps *ops = nd_device_ops(
        nd_same_device(op, 1, (const NdArray *const[]){a}));
    check_flat_index(op, a, i);
    nd_device_status(ops, op, ops->set(a, i, value));
}

double nd_item(const NdArray *a)
{
    const char *op = "nd_item";
    const NdDeviceOps *ops = nd_device_ops(nd_same_device(op, 1, &a));
    if (a->size != 1)
        nd_error(op, "can only convert an array of size 1 to a "
                 "number (this one has %" PRId64 " elements)", a->size);
    nd_device_settle(ops);
    double value;
    nd_device_status(ops, op, ops->get(a, 0, &value));
    return value;
}

size_t nd_nbytes(const NdArray *a)
{
    return (size_t)a->size * nd_dtype_size(a->dtype);
}

bool nd_array_equal(const NdArray *a, const NdArray *b)
{
    const char *op = "nd_array_equal";
    const NdDeviceOps *ops = nd_device_ops(
        nd_same_device(op, 2, (const NdArray *const[]){a, b}));
    if (a->ndim != b->ndim)
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d])
            return false;
    bool equal;                         /* equal: close within 0 */
    nd_device_status(ops, op, ops->allclose(a, b, 0, 0, &equal));
    return equal;
}

bool nd_allclose(const NdArray *a, const NdArray *b, double rtol,
                 double atol)
{
    const char *op = "nd_allclose";
    const NdDeviceOps *ops = nd_device_ops(
        nd_same_device(op, 2, (const NdArray *const[]){a, b}));
    int64_t shape[ND_MAX_DIMS];
    nd_broadcast_shapes(op, a, b, shape);
    nd_device_settle(ops);
    bool close;
    nd_device_status(ops, op, ops->allclose(a, b, rtol, atol, &close));
    return close;
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
    const char *op = "nd_copyto";
    const NdDeviceOps *ops = nd_device_ops(
        nd_same_device(op, 2, (const NdArray *const[]){dst, src}));
    check_broadcasts_into(op, dst, src);
    nd_device_status(ops, op, ops->cast(dst, src));
}

/* ------------------------------------------------------------ broadcast */

int nd_broadcast_shapes(const char *op, const NdArray *a, const NdArray *b,
                        int64_t *out_shape)
{
    int ndim = nd_broadcast_shape(a->ndim, a->shape, b->ndim, b->shape,
                                  out_shape);
    if (ndim < 0) {
        char sa[ND_SHAPE_TEXT], sb[ND_SHAPE_TEXT];
        nd_error(op, "operands could not be broadcast together with "
                 "shapes %s %s", nd_shape_text(sa, a),
                 nd_shape_text(sb, b));
    }
    return ndim;
}
