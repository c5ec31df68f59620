/* shape.c - operations on the shape of an array: views that share its
 * data (reshape, expand_dims, squeeze) and copies that move elements
 * (transpose, broadcast_to, sum_to, flatten, concatenate, stack). The
 * views work alike on every device; a device's kernels do its arrays'
 * copies. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "nd_internal.h"

/* ------------------------------------------------------------ helpers */

/* dst[i] = src[i * stride] for i < n, elements of elsize bytes (a stride
 * of 0 repeats one element). */
static void copy_strided(void *dst, const void *src, int64_t n,
                         int64_t stride, size_t elsize)
{
#define COPY(T) do { \
        T *d = dst; const T *s = src; \
        for (int64_t i = 0; i < n; i++) d[i] = s[i * stride]; \
    } while (0)
    typedef struct { uint64_t lo, hi; } Bytes16;    /* complex128 */
    switch (elsize) {
    case 1: COPY(uint8_t); break;
    case 4: COPY(uint32_t); break;
    case 8: COPY(uint64_t); break;
    default: COPY(Bytes16); break;
    }
#undef COPY
}

/* Fills out (C order) from in, where strides[d] is the element stride in
 * in of out's axis d: one copy_strided per row of out's last axis. */
static void gather(NdArray *out, const NdArray *in, const int64_t *strides)
{
    size_t elsize = nd_dtype_size(out->dtype);
    if (out->ndim == 0) {
        memcpy(out->data, in->data, elsize);
        return;
    }
    int last = out->ndim - 1;
    int64_t n = out->shape[last];
    int64_t index[ND_MAX_DIMS] = {0};   /* over the axes before last */
    int64_t offset = 0;                 /* of the row's first element */
    for (int64_t start = 0; start < out->size; start += n) {
        copy_strided((char *)out->data + start * elsize,
                     (const char *)in->data + offset * elsize, n,
                     strides[last], elsize);
        for (int d = last - 1; d >= 0; d--) {
            offset += strides[d];
            if (++index[d] < out->shape[d])
                break;
            offset -= strides[d] * out->shape[d];
            index[d] = 0;
        }
    }
}

/* ------------------------------------------------------------ on a device */

/* The element strides of a C-order array of shape. */
static void contiguous_strides(int ndim, const int64_t *shape,
                               int64_t *strides)
{
    int64_t stride = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = stride;
        stride *= shape[d];
    }
}

/* gather of device arrays, by the device's kernels. */
static void device_gather(const char *op, const NdGpuBackend *kernels,
                          NdArray *out, const NdArray *in,
                          const int64_t *strides)
{
    int64_t out_strides[ND_MAX_DIMS];
    contiguous_strides(out->ndim, out->shape, out_strides);
    nd_device_ops(out->device)->check(
        op, kernels->copy_strided(out->data, out_strides, in->data, strides,
                                  out->ndim, out->shape,
                                  nd_dtype_size(out->dtype)));
}

/* out, read as (outer, rest), = the arrays side by side, each read as
 * (outer, its size / outer) and cast to out's dtype (concatenate and
 * stack), by the device's kernels. */
static void device_join(const char *op, const NdGpuBackend *kernels,
                        NdArray *out, int n, NdArray *const *arrays,
                        int64_t outer)
{
    const NdDeviceOps *ops = nd_device_ops(out->device);
    size_t elsize = nd_dtype_size(out->dtype);
    int64_t row = out->size / outer, at = 0;    /* out as (outer, row) */
    for (int i = 0; i < n; i++) {
        NdArray *a = nd_as_dtype(arrays[i], out->dtype);
        int64_t chunk = a->size / outer;        /* a as (outer, chunk) */
        const int64_t shape[2] = {outer, chunk};
        const int64_t dst_strides[2] = {row, 1}, src_strides[2] = {chunk, 1};
        int status = kernels->copy_strided((char *)out->data + at * elsize,
                                           dst_strides, a->data, src_strides,
                                           2, shape, elsize);
        nd_release(a);
        nd_device_status(ops, op, status);
        at += chunk;
    }
}

/* Marks axes[0..naxes) in marked[], refusing duplicates. */
static void mark_axes(const char *op, int ndim, int naxes, const int *axes,
                      bool marked[ND_MAX_DIMS])
{
    if (naxes < 0 || (naxes > 0 && !axes))
        nd_error(op, "invalid axes: naxes is %d and axes is %s", naxes,
                 axes ? "set" : "NULL");
    for (int i = 0; i < naxes; i++) {
        int d = nd_normalize_axis(op, axes[i], ndim);
        if (marked[d])
            nd_error(op, "duplicate value in 'axis' (axis %d)", axes[i]);
        marked[d] = true;
    }
}

static void check_ndim(const char *op, int ndim)
{
    if (ndim < 0 || ndim > ND_MAX_DIMS)
        nd_error(op, "%d dimensions requested; at most %d are supported",
                 ndim, ND_MAX_DIMS);
}

/* ------------------------------------------------------------ views */

NdArray *nd_reshape(const NdArray *a, int ndim, const int64_t *shape)
{
    const char *op = "nd_reshape";
    nd_same_device(op, 1, &a);
    check_ndim(op, ndim);
    char text[ND_SHAPE_TEXT];
    /* known: the product of the given extents other than 0, kept within
     * ND_MAX_ELEMENTS as nd_check_shape does, so that it cannot wrap
     * around to a's size; as in NumPy, a 0 does not excuse the rest. */
    int64_t resolved[ND_MAX_DIMS], known = 1;
    int unknown = -1;                   /* the axis given as -1 */
    bool zero = false;                  /* an extent is 0 */
    for (int d = 0; d < ndim; d++) {
        resolved[d] = shape[d];
        if (shape[d] == -1) {
            if (unknown >= 0)
                nd_error(op, "can only specify one unknown dimension");
            unknown = d;
        } else if (shape[d] < 0) {
            nd_error(op, "negative dimensions are not allowed (axis %d is "
                     "%" PRId64 ")", d, shape[d]);
        } else if (shape[d] == 0) {
            zero = true;
        } else if (shape[d] > ND_MAX_ELEMENTS / known) {
            nd_error(op, "cannot reshape array of size %" PRId64 " into "
                     "shape %s: an array holds at most %" PRId64
                     " elements", a->size,
                     nd_format_shape(text, ndim, shape, false),
                     (int64_t)ND_MAX_ELEMENTS);
        } else {
            known *= shape[d];
        }
    }
    if (zero)
        known = 0;
    if (unknown >= 0 && known > 0 && a->size % known == 0)
        resolved[unknown] = a->size / known;
    else if (unknown >= 0 || known != a->size)
        nd_error(op, "cannot reshape array of size %" PRId64 " into shape "
                 "%s", a->size, nd_format_shape(text, ndim, shape, false));
    return nd_view(op, a, ndim, resolved);
}

NdArray *nd_expand_dims(const NdArray *a, int axis)
{
    const char *op = "nd_expand_dims";
    nd_same_device(op, 1, &a);
    if (a->ndim == ND_MAX_DIMS)
        nd_error(op, "the array has %d dimensions already, the most "
                 "supported", ND_MAX_DIMS);
    int ax = nd_normalize_axis(op, axis, a->ndim + 1);
    int64_t shape[ND_MAX_DIMS];
    for (int d = 0, k = 0; d <= a->ndim; d++)
        shape[d] = d == ax ? 1 : a->shape[k++];
    return nd_view(op, a, a->ndim + 1, shape);
}

NdArray *nd_squeeze(const NdArray *a, int naxes, const int *axes)
{
    const char *op = "nd_squeeze";
    nd_same_device(op, 1, &a);
    bool drop[ND_MAX_DIMS] = {false};
    if (naxes == -1 && !axes) {         /* ND_ALL_AXES */
        for (int d = 0; d < a->ndim; d++)
            drop[d] = a->shape[d] == 1;
    } else {
        mark_axes(op, a->ndim, naxes, axes, drop);
    }
    int64_t shape[ND_MAX_DIMS];
    int ndim = 0;
    for (int d = 0; d < a->ndim; d++) {
        if (!drop[d])
            shape[ndim++] = a->shape[d];
        else if (a->shape[d] != 1)
            nd_error(op, "cannot select an axis to squeeze out which has "
                     "size not equal to one (axis %d has size %" PRId64
                     ")", d, a->shape[d]);
    }
    return nd_view(op, a, ndim, shape);
}

/* ------------------------------------------------------------ copies */

NdArray *nd_flatten(const NdArray *a)
{
    nd_same_device("nd_flatten", 1, &a);
    NdArray flat = *a;                  /* a's header, shape (size,) */
    flat.ndim = 1;
    flat.shape[0] = a->size;
    return nd_copy(&flat);
}

/* Square tiles keep both the rows read and the rows written in cache. */
enum { TILE = 32 };

/* out (cols, rows) = the transpose of in (rows, cols), tile by tile. */
static void transpose_2d(NdArray *out, const NdArray *in)
{
    int64_t rows = in->shape[0], cols = in->shape[1];
    size_t elsize = nd_dtype_size(in->dtype);
    char *dst = out->data;
    const char *src = in->data;
    for (int64_t i0 = 0; i0 < cols; i0 += TILE)
        for (int64_t j0 = 0; j0 < rows; j0 += TILE) {
            int64_t i_end = i0 + TILE < cols ? i0 + TILE : cols;
            int64_t n = j0 + TILE < rows ? TILE : rows - j0;
            for (int64_t i = i0; i < i_end; i++)    /* out[i, j0:j0+n] */
                copy_strided(dst + (i * rows + j0) * elsize,
                             src + (j0 * cols + i) * elsize, n, cols,
                             elsize);
        }
}

NdArray *nd_transpose(const NdArray *a, int naxes, const int *axes)
{
    const char *op = "nd_transpose";
    NdDevice device = nd_same_device(op, 1, &a);
    int perm[ND_MAX_DIMS];              /* out axis d is a's perm[d] */
    if (naxes == 0 && !axes) {
        for (int d = 0; d < a->ndim; d++)
            perm[d] = a->ndim - 1 - d;
    } else {
        if (naxes != a->ndim || !axes)
            nd_error(op, "axes don't match array: %d axes given for an "
                     "array of dimension %d", naxes, a->ndim);
        bool seen[ND_MAX_DIMS] = {false};
        for (int d = 0; d < naxes; d++) {
            perm[d] = nd_normalize_axis(op, axes[d], a->ndim);
            if (seen[perm[d]])
                nd_error(op, "repeated axis in transpose (axis %d)",
                         axes[d]);
            seen[perm[d]] = true;
        }
    }
    int64_t shape[ND_MAX_DIMS], a_strides[ND_MAX_DIMS], strides[ND_MAX_DIMS];
    int64_t stride = 1;     /* within int64: nd_check_shape bounds the
                             * product of a's extents other than 0 */
    for (int d = a->ndim - 1; d >= 0; d--) {
        a_strides[d] = stride;
        stride *= a->shape[d];
    }
    for (int d = 0; d < a->ndim; d++) {
        shape[d] = a->shape[perm[d]];
        strides[d] = a_strides[perm[d]];
    }
    NdArray *out = nd_empty_on(device, a->dtype, a->ndim, shape);
    if (out->size == 0)
        return out;
    const NdGpuBackend *kernels = nd_kernels(device);
    if (kernels)
        device_gather(op, kernels, out, a, strides);
    else if (a->ndim == 2 && perm[0] == 1)
        transpose_2d(out, a);
    else
        gather(out, a, strides);
    return out;
}

NdArray *nd_broadcast_to(const NdArray *a, int ndim, const int64_t *shape)
{
    const char *op = "nd_broadcast_to";
    NdDevice device = nd_same_device(op, 1, &a);
    check_ndim(op, ndim);
    for (int d = 0; d < ndim; d++)
        if (shape[d] < 0)
            nd_error(op, "all elements of broadcast shape must be "
                     "non-negative (axis %d is %" PRId64 ")", d, shape[d]);
    char from[ND_SHAPE_TEXT], to[ND_SHAPE_TEXT];
    if (a->ndim > ndim)
        nd_error(op, "input operand has more dimensions than allowed by "
                 "the axis remapping: cannot broadcast %s to %s",
                 nd_shape_text(from, a),
                 nd_format_shape(to, ndim, shape, false));
    for (int d = 0; d < a->ndim; d++) {
        int64_t want = shape[d + ndim - a->ndim];
        if (a->shape[d] != 1 && a->shape[d] != want)
            nd_error(op, "operands could not be broadcast together with "
                     "remapped shapes [original->remapped]: %s and "
                     "requested shape %s",
                     nd_shape_text(from, a),
                     nd_format_shape(to, ndim, shape, false));
    }
    NdArray *out = nd_empty_on(device, a->dtype, ndim, shape);
    int64_t strides[ND_MAX_DIMS];       /* 0 along broadcast axes */
    nd_broadcast_strides(ndim, shape, a->ndim, a->shape, strides);
    const NdGpuBackend *kernels = nd_kernels(device);
    if (out->size > 0 && kernels)
        device_gather(op, kernels, out, a, strides);
    else if (out->size > 0)
        gather(out, a, strides);
    return out;
}

/* DeZero's utils.sum_to: one nd_sum over the leading axes a has beyond
 * shape and the axes where shape is 1 (keepdims), then the leading axes
 * dropped. */
NdArray *nd_sum_to(const NdArray *a, int ndim, const int64_t *shape)
{
    const char *op = "nd_sum_to";
    nd_same_device(op, 1, &a);
    nd_check_shape(op, ndim, shape);
    int lead = a->ndim - ndim;
    bool reachable = lead >= 0;
    int axes[ND_MAX_DIMS], naxes = 0;
    for (int d = 0; d < lead; d++)
        axes[naxes++] = d;
    for (int d = 0; reachable && d < ndim; d++) {
        if (shape[d] == 1)
            axes[naxes++] = lead + d;
        else
            reachable = shape[d] == a->shape[lead + d];
    }
    if (!reachable) {
        char from[ND_SHAPE_TEXT], to[ND_SHAPE_TEXT];
        nd_error(op, "cannot sum an array of shape %s to shape %s",
                 nd_shape_text(from, a),
                 nd_format_shape(to, ndim, shape, false));
    }
    NdArray *sum = nd_sum(a, naxes, axes, true);
    NdArray *out = nd_reshape(sum, ndim, shape);
    nd_release(sum);
    return out;
}

/* ------------------------------------------------------------ joining */

/* Fills out, the arrays joined: for each of outer blocks, the next chunk
 * of each array in turn (an array's chunk is its size / outer), cast to
 * out's dtype. */
static void join_chunks(const char *op, NdArray *out, int n,
                        NdArray *const *arrays, int64_t outer)
{
    const NdGpuBackend *kernels = nd_kernels(out->device);
    if (kernels) {
        device_join(op, kernels, out, n, arrays, outer);
        return;
    }
    size_t out_elsize = nd_dtype_size(out->dtype);
    char *dst = out->data;
    for (int64_t o = 0; o < outer; o++)
        for (int i = 0; i < n; i++) {
            const NdArray *a = arrays[i];
            int64_t chunk = a->size / outer;
            const char *src = (const char *)a->data +
                              (size_t)(o * chunk) * nd_dtype_size(a->dtype);
            nd_cast_buffer(dst, out->dtype, src, a->dtype, chunk);
            dst += (size_t)chunk * out_elsize;
        }
}

/* The checks both joins start with; returns the promoted dtype. */
static NdDtype check_join(const char *op, int n, NdArray *const *arrays)
{
    if (n <= 0 || !arrays)
        nd_error(op, "need at least one array to %s",
                 strcmp(op, "nd_stack") == 0 ? "stack" : "concatenate");
    nd_same_device(op, n, (const NdArray *const *)arrays);
    NdDtype dtype = arrays[0]->dtype;
    for (int i = 1; i < n; i++)
        dtype = nd_promote(dtype, arrays[i]->dtype);
    return dtype;
}

NdArray *nd_concatenate(int n, NdArray *const *arrays, int axis)
{
    const char *op = "nd_concatenate";
    NdDtype dtype = check_join(op, n, arrays);
    const NdArray *first = arrays[0];
    if (first->ndim == 0)
        nd_error(op, "zero-dimensional arrays cannot be concatenated");
    int ax = nd_normalize_axis(op, axis, first->ndim);
    int64_t shape[ND_MAX_DIMS];
    memcpy(shape, first->shape, sizeof shape);
    shape[ax] = 0;
    for (int i = 0; i < n; i++) {
        const NdArray *a = arrays[i];
        if (a->ndim != first->ndim)
            nd_error(op, "all the input arrays must have same number of "
                     "dimensions, but the array at index 0 has %d "
                     "dimension(s) and the array at index %d has %d "
                     "dimension(s)", first->ndim, i, a->ndim);
        for (int d = 0; d < a->ndim; d++)
            if (d != ax && a->shape[d] != first->shape[d])
                nd_error(op, "all the input array dimensions except for "
                         "the concatenation axis must match exactly, but "
                         "along dimension %d, the array at index 0 has "
                         "size %" PRId64 " and the array at index %d has "
                         "size %" PRId64, d, first->shape[d], i,
                         a->shape[d]);
        shape[ax] += a->shape[ax];
    }
    NdArray *out = nd_empty_on(first->device, dtype, first->ndim, shape);
    int64_t outer = 1;                  /* the axes before ax */
    for (int d = 0; d < ax; d++)
        outer *= shape[d];
    if (out->size > 0)
        join_chunks(op, out, n, arrays, outer);
    return out;
}

NdArray *nd_stack(int n, NdArray *const *arrays, int axis)
{
    const char *op = "nd_stack";
    NdDtype dtype = check_join(op, n, arrays);
    const NdArray *first = arrays[0];
    for (int i = 1; i < n; i++) {
        const NdArray *a = arrays[i];
        bool same = a->ndim == first->ndim;
        for (int d = 0; same && d < a->ndim; d++)
            same = a->shape[d] == first->shape[d];
        if (!same) {
            char s0[ND_SHAPE_TEXT], si[ND_SHAPE_TEXT];
            nd_error(op, "all input arrays must have the same shape (the "
                     "array at index 0 has shape %s and the array at "
                     "index %d has shape %s)",
                     nd_shape_text(s0, first), i,
                     nd_shape_text(si, a));
        }
    }
    if (first->ndim == ND_MAX_DIMS)
        nd_error(op, "the arrays have %d dimensions already, the most "
                 "supported", ND_MAX_DIMS);
    int ax = nd_normalize_axis(op, axis, first->ndim + 1);
    int64_t shape[ND_MAX_DIMS], outer = 1;
    for (int d = 0, k = 0; d <= first->ndim; d++) {
        shape[d] = d == ax ? n : first->shape[k++];
        if (d < ax)
            outer *= shape[d];
    }
    NdArray *out = nd_empty_on(first->device, dtype, first->ndim + 1,
                               shape);
    if (out->size > 0)
        join_chunks(op, out, n, arrays, outer);
    return out;
}
