/* index.c - a[index] and np.add.at(a, index, values) for ints, Python
 * slices and integer index arrays, with NumPy's rules for where the
 * broadcast index dimensions go. Both follow one plan: the runs of
 * contiguous elements of a that the index selects. On the GPU the same
 * checks run, and the plan goes to the gather and scatter kernels. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "nd_internal.h"

/* One index array, checked and ready to read: entries as int64 in
 * [0, size of its axis). */
typedef struct IndexArray {
    const NdArray *source;          /* the index array given */
    int axis;                       /* the axis of a it indexes */
    int64_t axis_size;              /* size of the axis it indexes */
    NdArray *positions;             /* source as int64 in [0, axis_size) */
    int64_t stride;                 /* elements of a per step on its axis */
    bool full;                      /* already has the broadcast shape */
    int64_t strides[ND_MAX_DIMS];   /* its strides read as broadcast */
} IndexArray;

/* Where the selection a[index] (in C order) lies in a: one run of inner
 * contiguous elements of a for each position in the selection's first
 * outer_ndim dimensions. */
typedef struct IndexPlan {
    int ndim;                       /* the selection's shape */
    int64_t shape[ND_MAX_DIMS];
    int64_t size;
    int outer_ndim;
    int64_t inner;
    int64_t base;                   /* offset of what ints and starts fix */
    bool advanced[ND_MAX_DIMS];     /* dim of the broadcast index arrays */
    int64_t step[ND_MAX_DIMS];      /* else: elements of a per step */
    int bcast_ndim;                 /* the index arrays broadcast */
    int64_t bcast_shape[ND_MAX_DIMS];
    int narrays;
    IndexArray arrays[ND_MAX_DIMS];
} IndexPlan;

/* Entry d of the index; axes past its end take a full slice. */
static NdIndex entry(int n, const NdIndex *index, int d)
{
    return d < n ? index[d] : ND_IDX_ALL;
}

/* ------------------------------------------------------------ slices */

/* The positions a slice picks on an axis: start, start + step, ... */
typedef struct Range {
    int64_t start, step, length;
} Range;

/* A start or stop as Python's slice.indices() settles it. */
static int64_t slice_bound(int64_t value, int64_t size, int64_t lower,
                           int64_t upper, int64_t omitted)
{
    if (value == ND_NONE)
        return omitted;
    if (value < 0) {
        value += size;
        return value < lower ? lower : value;
    }
    return value > upper ? upper : value;
}

/* Python's rules: negative bounds count from the end, bounds past the
 * ends are clamped, a negative step walks backwards. */
static Range slice_range(NdIndex slice, int64_t size)
{
    Range r = {.step = slice.step == ND_NONE ? 1 : slice.step};
    bool back = r.step < 0;
    int64_t lower = back ? -1 : 0, upper = back ? size - 1 : size;
    r.start = slice_bound(slice.start, size, lower, upper,
                          back ? upper : lower);
    int64_t stop = slice_bound(slice.stop, size, lower, upper,
                               back ? lower : upper);
    if (!back && stop > r.start)
        r.length = (stop - r.start - 1) / r.step + 1;
    else if (back && r.start > stop)
        r.length = (r.start - stop - 1) / -r.step + 1;
    return r;
}

static bool is_full_slice(NdIndex e, int64_t size)
{
    if (e.kind != ND_INDEX_SLICE)
        return false;
    Range r = slice_range(e, size);
    return r.step == 1 && r.length == size;
}

/* ------------------------------------------------------------ checks */

/* Element i of bool, uint8 or int64 data, exactly. */
static int64_t load_integer(const void *data, NdDtype dtype, int64_t i)
{
    switch (dtype) {
    case ND_BOOL: return ((const bool *)data)[i];
    case ND_UINT8: return ((const uint8_t *)data)[i];
    default: return ((const int64_t *)data)[i];
    }
}

static void check_in_bounds(const char *op, int64_t i, int axis,
                            int64_t size)
{
    if (i < -size || i >= size)
        nd_error(op, ND_OUT_OF_BOUNDS, (long long)i, axis,
                 (long long)size);
}

/* The smallest and largest entry of a uint8 or int64 index array, by
 * loops the compiler can vectorise (index checks are on the hot path). */
static void index_range(const NdArray *x, int64_t *lowest, int64_t *highest)
{
    if (x->device != ND_CPU && x->size > 0) {   /* two values back */
        NdArray *least = nd_min(x, ND_ALL_AXES, false);
        NdArray *most = nd_max(x, ND_ALL_AXES, false);
        *lowest = (int64_t)nd_item(least);
        *highest = (int64_t)nd_item(most);
        nd_release(least);
        nd_release(most);
        return;
    }
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    if (x->dtype == ND_UINT8) {
        for (int64_t i = 0; i < x->size; i++) {
            int64_t v = ND_DATA(x, uint8_t)[i];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    } else {
        for (int64_t i = 0; i < x->size; i++) {
            int64_t v = ND_DATA(x, int64_t)[i];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    }
    *lowest = lo;
    *highest = hi;
}

/* Stops naming the first entry of x out of range for an axis of size,
 * as NumPy does; for a device array, from two values read back and, only
 * when one is out of range, a host copy. */
static void check_index_range(const char *op, const NdArray *x, int axis,
                              int64_t size)
{
    int64_t lowest, highest;
    index_range(x, &lowest, &highest);
    if (lowest >= -size && highest < size)
        return;
    /* Name the first culprit, read from a host copy of a device array. */
    NdArray *host = x->device != ND_CPU ? nd_to_device(x, ND_CPU) : NULL;
    const void *data = host ? host->data : x->data;
    int64_t culprit = 0;
    for (int64_t i = 0; i < x->size; i++) {
        culprit = load_integer(data, x->dtype, i);
        if (culprit < -size || culprit >= size)
            break;
    }
    nd_release(host);
    check_in_bounds(op, culprit, axis, size);
}

/* An index array must hold integers, and with check_range, entries in
 * range (a gather kernel checks them itself, see nd_getitem). */
static void check_index_array(const char *op, const NdArray *x, int axis,
                              int64_t size, bool check_range)
{
    if (x->dtype == ND_BOOL)
        nd_error(op, "boolean index arrays (masks) are not supported "
                 "(the index for axis %d is a bool array)", axis);
    if (!nd_dtype_is_integer(x->dtype))
        nd_error(op, "arrays used as indices must be of integer type "
                 "(the index for axis %d is %s)", axis,
                 nd_dtype_name(x->dtype));
    if (check_range)
        check_index_range(op, x, axis, size);
}

/* a, values (or NULL) and the index arrays must share a device. */
static NdDevice check_devices(const char *op, const NdArray *a,
                              const NdArray *values, int n,
                              const NdIndex *index)
{
    const NdArray *operands[ND_MAX_DIMS + 2] = {a};
    int count = 1;
    if (values)
        operands[count++] = values;
    for (int d = 0; index && d < n && d < ND_MAX_DIMS; d++)
        if (index[d].kind == ND_INDEX_ARRAY && index[d].array)
            operands[count++] = index[d].array;
    return nd_same_device(op, count, operands);
}

void nd_check_range(const char *op, const NdArray *a, int64_t lo,
                    int64_t hi, const char *format)
{
    if (!nd_dtype_is_integer(a->dtype))
        nd_error(op, "want integer entries to check, not %s",
                 nd_dtype_name(a->dtype));
    const NdDeviceOps *ops = nd_device_ops(a->device);
    if (ops->kernels) {
        NdArray *ints = nd_as_dtype(a, a->dtype == ND_UINT8 ? ND_UINT8
                                                            : ND_INT64);
        int status = ops->kernels->check_range(ints, lo, hi,
                                               ops->defer(op, format));
        nd_release(ints);
        nd_device_check(op, a->device, status);
        return;
    }
    for (int64_t i = 0; i < a->size; i++) {
        int64_t v = load_integer(a->data, a->dtype, i);
        if (v < lo || v >= hi)
            nd_error(op, format, (long long)v, (long long)i,
                     (long long)hi - 1);
    }
}

/* Every misuse is reported here, before anything is allocated; with
 * kernel_checks_range, indices out of range are left to the kernel. */
static void check_index(const char *op, const NdArray *a, int n,
                        const NdIndex *index, bool kernel_checks_range)
{
    if (n < 0)
        nd_error(op, "the number of index entries, %d, is negative", n);
    if (n > 0 && !index)
        nd_error(op, "the index is NULL but has %d entries", n);
    if (n > a->ndim)
        nd_error(op, "too many indices for array: array is "
                 "%d-dimensional, but %d were indexed", a->ndim, n);
    for (int d = 0; d < n; d++) {
        NdIndex e = index[d];
        switch (e.kind) {
        case ND_INDEX_INT:
            check_in_bounds(op, e.i, d, a->shape[d]);
            break;
        case ND_INDEX_SLICE:
            if (e.step == 0)
                nd_error(op, "slice step cannot be zero (axis %d)", d);
            break;
        case ND_INDEX_ARRAY:
            if (!e.array)
                nd_error(op, "the array index for axis %d is NULL", d);
            check_index_array(op, e.array, d, a->shape[d],
                              !kernel_checks_range);
            break;
        default:
            nd_error(op, "index entry %d has an unknown kind %d", d,
                     (int)e.kind);
        }
    }
}

/* NumPy's "shape mismatch" error, naming every index array's shape. */
static _Noreturn void mismatch_error(const char *op, int n,
                                     const NdIndex *index)
{
    char shapes[ND_MAX_DIMS * (ND_SHAPE_TEXT + 1)] = "", buf[ND_SHAPE_TEXT];
    for (int d = 0; d < n; d++) {
        if (index[d].kind != ND_INDEX_ARRAY)
            continue;
        const NdArray *x = index[d].array;
        if (shapes[0])
            strcat(shapes, " ");
        strcat(shapes, nd_shape_text(buf, x));
    }
    nd_error(op, "shape mismatch: indexing arrays could not be broadcast "
             "together with shapes %s", shapes);
}

/* ------------------------------------------------------------ the plan */

/* The index arrays' broadcast shape into plan (NumPy's rules; ints are
 * 0-d index arrays and change nothing). */
static void broadcast_index_arrays(const char *op, int n,
                                   const NdIndex *index, IndexPlan *plan)
{
    int ndim = 0;
    for (int d = 0; d < n; d++)
        if (index[d].kind == ND_INDEX_ARRAY && index[d].array->ndim > ndim)
            ndim = index[d].array->ndim;
    for (int k = 0; k < ndim; k++)
        plan->bcast_shape[k] = 1;
    for (int d = 0; d < n; d++) {
        if (index[d].kind != ND_INDEX_ARRAY)
            continue;
        const NdArray *x = index[d].array;
        for (int k = 0; k < x->ndim; k++) {
            int64_t *extent = &plan->bcast_shape[k + ndim - x->ndim];
            if (x->shape[k] == *extent || x->shape[k] == 1)
                continue;
            if (*extent != 1)
                mismatch_error(op, n, index);
            *extent = x->shape[k];
        }
    }
    plan->bcast_ndim = ndim;
}

/* x's entries as int64 in [0, size): x itself when it already is. */
static NdArray *positions_of(const NdArray *x, int64_t size)
{
    int64_t lowest, highest;
    index_range(x, &lowest, &highest);
    if (x->dtype == ND_INT64 && lowest >= 0)
        return nd_retain((NdArray *)x);
    NdArray *p = nd_empty(ND_INT64, x->ndim, x->shape);
    for (int64_t i = 0; i < x->size; i++) {
        int64_t v = load_integer(x->data, x->dtype, i);
        ND_DATA(p, int64_t)[i] = v < 0 ? v + size : v;
    }
    return p;
}

static void add_index_array(IndexPlan *plan, const NdArray *x, int axis,
                            int64_t size, int64_t stride)
{
    IndexArray *ix = &plan->arrays[plan->narrays++];
    ix->source = x;
    ix->axis = axis;
    ix->axis_size = size;
    ix->stride = stride;
    ix->full = x->ndim == plan->bcast_ndim;
    for (int k = 0; ix->full && k < x->ndim; k++)
        ix->full = x->shape[k] == plan->bcast_shape[k];
    nd_broadcast_strides(plan->bcast_ndim, plan->bcast_shape, x->ndim,
                         x->shape, ix->strides);
}

static void add_dim(IndexPlan *plan, int64_t extent, bool advanced,
                    int64_t step)
{
    plan->shape[plan->ndim] = extent;
    plan->advanced[plan->ndim] = advanced;
    plan->step[plan->ndim] = step;
    plan->ndim++;
}

static void add_broadcast_dims(IndexPlan *plan)
{
    for (int k = 0; k < plan->bcast_ndim; k++)
        add_dim(plan, plan->bcast_shape[k], true, 0);
}

/* Which entries are "advanced" (arrays, and ints once there is an
 * array): NumPy puts the broadcast dims where they stand when these
 * entries are adjacent, and first otherwise. Returns the entry to put
 * them at, or -1 for first. */
static int broadcast_position(int n, const NdIndex *index)
{
    int first = -1, last = -1, count = 0, arrays = 0;
    for (int d = 0; d < n; d++) {
        if (index[d].kind == ND_INDEX_SLICE)
            continue;
        arrays += index[d].kind == ND_INDEX_ARRAY;
        if (first < 0)
            first = d;
        last = d;
        count++;
    }
    return arrays > 0 && last - first + 1 == count ? first : -1;
}

/* The selection's rank, checked against ND_MAX_DIMS. */
static void check_result_ndim(const char *op, const NdArray *a, int n,
                              const NdIndex *index, const IndexPlan *plan)
{
    int ndim = plan->bcast_ndim;
    for (int d = 0; d < a->ndim; d++)
        ndim += entry(n, index, d).kind == ND_INDEX_SLICE;
    if (ndim > ND_MAX_DIMS)
        nd_error(op, "the result would have %d dimensions; at most %d are "
                 "supported", ndim, ND_MAX_DIMS);
}

/* Checks the index and works out where a[index] lies in a. Allocates
 * nothing: load_positions() does, once every check has passed. */
static void make_plan(const char *op, const NdArray *a, int n,
                      const NdIndex *index, bool kernel_checks_range,
                      IndexPlan *plan)
{
    memset(plan, 0, sizeof *plan);
    check_index(op, a, n, index, kernel_checks_range);
    broadcast_index_arrays(op, n, index, plan);
    check_result_ndim(op, a, n, index, plan);

    /* a's strides, in elements: within int64, as nd_check_shape bounds
     * the product of a's extents other than 0 */
    int64_t strides[ND_MAX_DIMS], stride = 1;
    for (int d = a->ndim - 1; d >= 0; d--) {
        strides[d] = stride;
        stride *= a->shape[d];
    }
    bool has_arrays = false;
    for (int d = 0; d < n; d++)
        has_arrays |= index[d].kind == ND_INDEX_ARRAY;
    int at = broadcast_position(n, index);
    if (has_arrays && at < 0)
        add_broadcast_dims(plan);
    for (int d = 0; d < a->ndim; d++) {
        NdIndex e = entry(n, index, d);
        if (d == at)
            add_broadcast_dims(plan);
        if (e.kind == ND_INDEX_INT) {
            int64_t i = e.i < 0 ? e.i + a->shape[d] : e.i;
            plan->base += i * strides[d];
        } else if (e.kind == ND_INDEX_SLICE) {
            Range r = slice_range(e, a->shape[d]);
            plan->base += r.start * strides[d];
            add_dim(plan, r.length, false, r.step * strides[d]);
        } else {
            add_index_array(plan, e.array, d, a->shape[d], strides[d]);
        }
    }

    plan->size = 1;
    for (int k = 0; k < plan->ndim; k++)
        plan->size *= plan->shape[k];
    /* Trailing full slices make up the contiguous run. */
    plan->inner = 1;
    plan->outer_ndim = plan->ndim;
    for (int d = a->ndim - 1;
         d >= 0 && is_full_slice(entry(n, index, d), a->shape[d]); d--) {
        plan->inner *= a->shape[d];
        plan->outer_ndim--;
    }
}

static void load_positions(IndexPlan *plan)
{
    for (int k = 0; k < plan->narrays; k++) {
        IndexArray *ix = &plan->arrays[k];
        ix->positions = positions_of(ix->source, ix->axis_size);
    }
}

static void release_plan(IndexPlan *plan)
{
    for (int k = 0; k < plan->narrays; k++)
        nd_release(plan->arrays[k].positions);
}

/* The offset in a of the run at outer position coord. */
static int64_t run_offset(const IndexPlan *plan, const int64_t *coord)
{
    int64_t offset = plan->base, b = 0;     /* b: flat broadcast index */
    for (int k = 0; k < plan->outer_ndim; k++) {
        if (plan->advanced[k])
            b = b * plan->shape[k] + coord[k];
        else
            offset += coord[k] * plan->step[k];
    }
    for (int j = 0; j < plan->narrays; j++) {
        const IndexArray *ix = &plan->arrays[j];
        int64_t at = ix->full ? b
                              : nd_broadcast_offset(b, plan->bcast_ndim,
                                                    plan->bcast_shape,
                                                    ix->strides);
        offset += ND_DATA(ix->positions, int64_t)[at] * ix->stride;
    }
    return offset;
}

/* Steps coord to the next outer position, in C order. */
static void next_position(const IndexPlan *plan, int64_t *coord)
{
    for (int k = plan->outer_ndim - 1; k >= 0; k--) {
        if (++coord[k] < plan->shape[k])
            return;
        coord[k] = 0;
    }
}

/* The number of runs: one per outer position. */
static int64_t run_count(const IndexPlan *plan)
{
    return plan->size == 0 ? 0 : plan->size / plan->inner;
}

/* True when the outer dims are the index arrays' own and no array is
 * broadcast (x[idx], x[arange(N), t]): run i then sits at base plus
 * each array's entry i times its stride. */
static bool runs_follow_arrays(const IndexPlan *plan)
{
    if (plan->outer_ndim != plan->bcast_ndim)
        return false;
    for (int j = 0; j < plan->narrays; j++)
        if (!plan->arrays[j].full)
            return false;
    return true;
}

/* The offset in a of every run, in the selection's order (malloc'd). */
static int64_t *run_offsets(const char *op, const IndexPlan *plan)
{
    int64_t count = run_count(plan);
    int64_t *offsets = malloc((size_t)(count > 0 ? count : 1) *
                              sizeof *offsets);
    if (!offsets)
        nd_error(op, "out of memory for %" PRId64 " offsets",
                 count);
    if (runs_follow_arrays(plan)) {
        for (int64_t i = 0; i < count; i++)
            offsets[i] = plan->base;
        for (int j = 0; j < plan->narrays; j++) {
            const int64_t *p = ND_DATA(plan->arrays[j].positions, int64_t);
            int64_t stride = plan->arrays[j].stride;
            for (int64_t i = 0; i < count; i++)
                offsets[i] += p[i] * stride;
        }
    } else {
        int64_t coord[ND_MAX_DIMS] = {0};
        for (int64_t i = 0; i < count; i++) {
            offsets[i] = run_offset(plan, coord);
            next_position(plan, coord);
        }
    }
    return offsets;
}

/* ------------------------------------------------------------ GPU */

/* The plan as the GPU's kernels walk it (nd_gpu.h), its index arrays as
 * int64 device arrays, which ints[] keeps for release_ints(). */
static NdGpuIndexPlan gpu_plan(const IndexPlan *plan, NdArray **ints)
{
    NdGpuIndexPlan g = {.ndim = plan->ndim, .size = plan->size,
                        .base = plan->base, .narrays = plan->narrays};
    int advanced[ND_MAX_DIMS], nadvanced = 0;  /* the broadcast's dims */
    for (int d = 0; d < plan->ndim; d++) {
        g.shape[d] = plan->shape[d];
        g.strides[d] = plan->advanced[d] ? 0 : plan->step[d];
        if (plan->advanced[d])
            advanced[nadvanced++] = d;
    }
    for (int k = 0; k < plan->narrays; k++) {
        const IndexArray *ix = &plan->arrays[k];
        NdGpuIndexArray *gx = &g.arrays[k];
        ints[k] = nd_as_dtype(ix->source, ND_INT64);
        gx->data = ints[k]->data;
        gx->axis = ix->axis;
        gx->axis_size = ix->axis_size;
        gx->axis_stride = ix->stride;
        for (int j = 0; j < nadvanced; j++)
            gx->strides[advanced[j]] = ix->strides[j];
    }
    return g;
}

static void release_ints(const IndexPlan *plan, NdArray **ints)
{
    for (int k = 0; k < plan->narrays; k++)
        nd_release(ints[k]);
}

/* scatter_add's report of an index out of range reads as the host's. */
static void check_gpu_indices(const char *op, const NdGpuIndexError *err)
{
    if (err->found)
        check_in_bounds(op, err->index, err->axis, err->axis_size);
}

/* out = a[plan] on the GPU, its check of the indices queued with it. */
static void gpu_gather(const char *op, NdArray *out, const NdArray *a,
                       const IndexPlan *plan)
{
    NdArray *ints[ND_MAX_DIMS];
    NdGpuIndexPlan g = gpu_plan(plan, ints);
    const NdDeviceOps *ops = nd_device_ops(a->device);
    int status = ops->kernels->gather(out, a, &g, ops->defer(op, NULL));
    release_ints(plan, ints);
    nd_device_check(op, a->device, status);
}

/* ------------------------------------------------------------ getitem */

/* Copies count runs of inner elements from src (at offsets) to dst, one
 * after the other; single elements of 4 and 8 bytes by a typed loop. */
#define GATHER(T)                                                         \
    do {                                                                  \
        T *d = (T *)dst;                                                  \
        const T *s = (const T *)src;                                      \
        for (int64_t i = 0; i < count; i++)                               \
            d[i] = s[offsets[i]];                                         \
    } while (0)

static void gather(char *dst, const char *src, const int64_t *offsets,
                   int64_t count, int64_t inner, size_t size)
{
    if (inner == 1 && size == 4) {
        GATHER(uint32_t);
    } else if (inner == 1 && size == 8) {
        GATHER(uint64_t);
    } else {
        size_t run = (size_t)inner * size;
        for (int64_t i = 0; i < count; i++)
            memcpy(dst + (size_t)i * run, src + (size_t)offsets[i] * size,
                   run);
    }
}

NdArray *nd_getitem(const NdArray *a, int n, const NdIndex *index)
{
    NdDevice device = check_devices("nd_getitem", a, NULL, n, index);
    IndexPlan plan;
    /* On a device the gather kernel checks every index as it reads it,
     * and the host hears of one out of range at its next read from the
     * device (nd_synchronize): checking the ranges first would read two
     * values back per index array, each a wait for the device. */
    bool on_device = nd_kernels(device) != NULL;
    make_plan("nd_getitem", a, n, index, on_device, &plan);
    if (on_device) {
        NdArray *out = nd_empty_on(device, a->dtype, plan.ndim, plan.shape);
        gpu_gather("nd_getitem", out, a, &plan);
        return out;
    }
    load_positions(&plan);
    NdArray *out = nd_empty(a->dtype, plan.ndim, plan.shape);
    int64_t *offsets = run_offsets("nd_getitem", &plan);
    gather(out->data, a->data, offsets, run_count(&plan), plan.inner,
           nd_dtype_size(a->dtype));
    free(offsets);
    release_plan(&plan);
    return out;
}

/* ------------------------------------------------------------ add.at */

/* For each run r: dst[offsets[r] + i] += values[r * inner + i], all of
 * one dtype, wrapping as NumPy does; bools add as "or". */
#define ADD_RUNS(T, EXPR)                                                 \
    do {                                                                  \
        const T *v = values;                                              \
        for (int64_t r = 0; r < count; r++) {                             \
            T *d = (T *)dst + offsets[r];                                 \
            for (int64_t i = 0; i < inner; i++, v++)                      \
                d[i] = (EXPR);                                            \
        }                                                                 \
    } while (0)

static void add_same(void *dst, const int64_t *offsets, int64_t count,
                     int64_t inner, const void *values, NdDtype dtype)
{
    switch (dtype) {
    case ND_BOOL: ADD_RUNS(bool, d[i] || *v); break;
    case ND_UINT8: ADD_RUNS(uint8_t, (uint8_t)(d[i] + *v)); break;
    case ND_INT64:
        ADD_RUNS(int64_t, (int64_t)((uint64_t)d[i] + (uint64_t)*v));
        break;
    case ND_FLOAT32: ADD_RUNS(float, d[i] + *v); break;
    case ND_FLOAT64: ADD_RUNS(double, d[i] + *v); break;
    case ND_COMPLEX64: ADD_RUNS(float complex, d[i] + *v); break;
    case ND_COMPLEX128: ADD_RUNS(double complex, d[i] + *v); break;
    }
}

/* Stores an integer sum into an integer or bool dst, wrapping. */
static void store_int(void *dst, NdDtype dtype, int64_t i, uint64_t sum)
{
    if (dtype == ND_BOOL)
        ((bool *)dst)[i] = sum != 0;
    else if (dtype == ND_UINT8)
        ((uint8_t *)dst)[i] = (uint8_t)sum;
    else
        ((int64_t *)dst)[i] = (int64_t)sum;
}

/* dst[i] = dst[i] + v[i] computed in the values' wider dtype (the
 * ufunc's loop), then cast back into dst's, as np.add.at does. */
static void add_widened(void *dst, NdDtype dst_dtype, const void *values,
                        NdDtype dtype, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        double complex x = nd_load_complex(dst, dst_dtype, i);
        switch (dtype) {
        case ND_UINT8:
        case ND_INT64:              /* so dst is bool or uint8 */
            store_int(dst, dst_dtype, i,
                      (uint64_t)load_integer(dst, dst_dtype, i) +
                      (uint64_t)load_integer(values, dtype, i));
            break;
        case ND_FLOAT32:
            nd_store(dst, dst_dtype, i,
                     (float)creal(x) + ((const float *)values)[i]);
            break;
        case ND_FLOAT64:
            nd_store(dst, dst_dtype, i,
                     creal(x) + ((const double *)values)[i]);
            break;
        case ND_COMPLEX64:
            nd_store_complex(dst, dst_dtype, i, (float complex)x +
                             ((const float complex *)values)[i]);
            break;
        default:
            nd_store_complex(dst, dst_dtype, i,
                             x + ((const double complex *)values)[i]);
            break;
        }
    }
}

/* values must broadcast to the selection's shape, and no further. */
static void check_values(const NdArray *values, const IndexPlan *plan)
{
    bool fits = values->ndim <= plan->ndim;
    for (int k = 0; fits && k < values->ndim; k++) {
        int64_t extent = values->shape[k];
        fits = extent == 1 ||
               extent == plan->shape[k + plan->ndim - values->ndim];
    }
    if (!fits) {
        char sv[ND_SHAPE_TEXT], ss[ND_SHAPE_TEXT];
        nd_error("nd_add_at", "values of shape %s cannot be broadcast to "
                 "the indexed shape %s",
                 nd_shape_text(sv, values),
                 nd_format_shape(ss, plan->ndim, plan->shape, false));
    }
}

/* values broadcast to the selection's shape, in the dtype the addition
 * runs in: values itself when it already is that. */
static NdArray *values_for(const NdArray *values, const IndexPlan *plan,
                           NdDtype dtype)
{
    if (values->dtype == dtype && values->size == plan->size)
        return nd_retain((NdArray *)values);
    NdArray *v = nd_empty(dtype, plan->ndim, plan->shape);
    nd_copyto(v, values);
    return v;
}

/* np.add.at on the GPU: atomic adds when the addition runs in dst's
 * dtype. A wider one (int64 values into uint8, float64 into float32)
 * casts back after every single addition, which atomics cannot do: that
 * rare case runs on host copies, which then replace dst's elements. */
static void gpu_add_at(NdArray *dst, int n, const NdIndex *index,
                       const NdArray *values, const IndexPlan *plan,
                       NdDtype dtype)
{
    const char *op = "nd_add_at";
    if (dtype == dst->dtype) {
        NdArray *ints[ND_MAX_DIMS], *v = nd_as_dtype(values, dtype);
        NdGpuIndexPlan g = gpu_plan(plan, ints);
        NdGpuIndexError err;
        int status = nd_kernels(dst->device)->scatter_add(dst, v, &g, &err);
        release_ints(plan, ints);
        nd_release(v);
        nd_device_check(op, dst->device, status);
        check_gpu_indices(op, &err);
        return;
    }
    NdIndex on_host[ND_MAX_DIMS];
    for (int d = 0; d < n; d++) {
        on_host[d] = index[d];
        if (index[d].kind == ND_INDEX_ARRAY)
            on_host[d].array = nd_to_device(index[d].array, ND_CPU);
    }
    NdArray *h = nd_to_device(dst, ND_CPU);
    NdArray *hv = nd_to_device(values, ND_CPU);
    nd_add_at(h, n, on_host, hv);
    const NdDeviceOps *ops = nd_device_ops(dst->device);
    nd_device_status(ops, op, ops->upload(dst->data, h->data, nd_nbytes(h)));
    for (int d = 0; d < n; d++)
        if (index[d].kind == ND_INDEX_ARRAY)
            nd_release((NdArray *)on_host[d].array);
    nd_release(h);
    nd_release(hv);
}

void nd_add_at(NdArray *dst, int n, const NdIndex *index,
               const NdArray *values)
{
    NdDevice device = check_devices("nd_add_at", dst, values, n, index);
    IndexPlan plan;
    /* the ranges first: a scatter kernel would add before it found one */
    make_plan("nd_add_at", dst, n, index, false, &plan);
    check_values(values, &plan);
    /* The addition runs in the dtype NumPy's ufunc picks for dst and
     * values (value-based for a 0-d values), then casts back. */
    NdDtype dtype = nd_result_dtype(dst, values);
    if (nd_kernels(device)) {
        gpu_add_at(dst, n, index, values, &plan, dtype);
        return;
    }
    load_positions(&plan);
    NdArray *v = values_for(values, &plan, dtype);
    int64_t *offsets = run_offsets("nd_add_at", &plan);
    if (dtype == dst->dtype) {
        add_same(dst->data, offsets, run_count(&plan), plan.inner, v->data,
                 dtype);
    } else {
        size_t dst_size = nd_dtype_size(dst->dtype);
        size_t run = (size_t)plan.inner * nd_dtype_size(dtype);
        for (int64_t r = 0; r < run_count(&plan); r++)
            add_widened((char *)dst->data + offsets[r] * dst_size,
                        dst->dtype, (const char *)v->data + r * run, dtype,
                        plan.inner);
    }
    free(offsets);
    nd_release(v);
    release_plan(&plan);
}
