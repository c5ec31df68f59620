/* fused.c - operations that DeZero writes as a chain of NumPy ufuncs
 * and reductions, given one name here so that the GPU can do each in
 * one kernel: the sigmoid and its gradient, softmax and log-softmax,
 * a batch's normalisation, and softmax cross-entropy and its gradient.
 * On the CPU each is that chain itself, call for call (so the numbers
 * are NumPy's, and the chain is the oracle the kernels are tested
 * against); on the GPU one launch does what took four to twelve, where
 * the kernel takes the operands (float32 or float64; the softmaxes
 * along the last axis), and the chain runs there otherwise. Each
 * returns a new array; the operands are borrowed. */
#include "nd_internal.h"

/* The dtype of a number that meets a, made a 0-d array (the sigmoid's
 * 0.5s, Normalize's mean and std): a's float dtype, as NumPy takes the
 * Python float, else float64 (an integer a is then float64 once
 * combined). */
static NdDtype number_dtype(const NdArray *a)
{
    return nd_dtype_is_float(a->dtype) ? a->dtype : ND_FLOAT64;
}

/* ------------------------------------------------------------ sigmoid */

/* tanh(a * 0.5) * 0.5 + 0.5, NumPy's four ufuncs; the last two in
 * tanh's array, as "y *= 0.5; y += 0.5" would do. */
static NdArray *sigmoid_chain(const NdArray *a)
{
    NdArray *half = nd_full_on(a->device, number_dtype(a), ND_SCALAR_SHAPE,
                               0.5);
    NdArray *scaled = nd_mul(a, half);
    NdArray *y = nd_tanh(scaled);
    nd_imul(y, half);
    nd_iadd(y, half);
    nd_release(scaled);
    nd_release(half);
    return y;
}

NdArray *nd_sigmoid(const NdArray *a)
{
    NdDevice device = nd_same_device("nd_sigmoid", 1, &a);
    const NdGpuBackend *kernels = nd_kernels(device);
    if (!kernels || !nd_dtype_is_float(a->dtype))
        return sigmoid_chain(a);
    NdArray *y = nd_empty_on(device, a->dtype, a->ndim, a->shape);
    if (y->size > 0)
        nd_device_check("nd_sigmoid", device,
                        kernels->unary(ND_GPU_SIGMOID, y, a));
    return y;
}

/* (gy * y) * (1 - y), as DeZero's Sigmoid.backward: three ufuncs, and
 * the 1 made an array. */
static NdArray *sigmoid_grad_chain(const NdArray *y, const NdArray *gy)
{
    NdArray *one = nd_full_on(y->device, ND_INT64, ND_SCALAR_SHAPE, 1);
    NdArray *gy_y = nd_mul(gy, y);
    NdArray *rest = nd_sub(one, y);
    NdArray *gx = nd_mul(gy_y, rest);
    nd_release(rest);
    nd_release(gy_y);
    nd_release(one);
    return gx;
}

/* One kernel for float arrays of one dtype and shape; the chain else. */
NdArray *nd_sigmoid_grad(const NdArray *y, const NdArray *gy)
{
    const char *name = "nd_sigmoid_grad";
    NdDevice device = nd_same_device(name, 2, (const NdArray *const[]){
                                                  y, gy});
    const NdGpuBackend *kernels = nd_kernels(device);
    bool same = y->dtype == gy->dtype && y->ndim == gy->ndim;
    for (int d = 0; same && d < y->ndim; d++)
        same = y->shape[d] == gy->shape[d];
    if (!kernels || !same || !nd_dtype_is_float(y->dtype))
        return sigmoid_grad_chain(y, gy);
    NdArray *gx = nd_empty_on(device, y->dtype, y->ndim, y->shape);
    if (gx->size > 0)
        nd_device_check(name, device, kernels->sigmoid_grad(gx, y, gy));
    return gx;
}

/* ------------------------------------------------------------ softmax */

/* What the two softmaxes share along axis, each a new array kept as
 * size 1 on axis but e: m, the max; e = e^(a - m), so that none
 * overflows; s, the sum of e. */
static void shifted_exp(const NdArray *a, int axis, NdArray **m,
                        NdArray **e, NdArray **s)
{
    *m = nd_max(a, ND_AXES(axis), true);
    NdArray *shifted = nd_sub(a, *m);
    *e = nd_exp(shifted);
    nd_release(shifted);
    *s = nd_sum(*e, ND_AXES(axis), true);
}

/* e / s (DeZero's Softmax.forward). */
static NdArray *softmax_chain(const NdArray *a, int axis)
{
    NdArray *m, *e, *s;
    shifted_exp(a, axis, &m, &e, &s);
    NdArray *y = nd_div(e, s);
    nd_release(s);
    nd_release(e);
    nd_release(m);
    return y;
}

/* a - logsumexp(a), logsumexp in DeZero's order, m + log(s) (DeZero's
 * SoftmaxCrossEntropy.forward). An integer a gives float64, as
 * np.exp(a) does (DeZero's "m += log(s)" would refuse to store it). */
static NdArray *log_softmax_chain(const NdArray *a, int axis)
{
    NdArray *m, *e, *s;
    shifted_exp(a, axis, &m, &e, &s);
    NdArray *log_s = nd_log(s);
    NdArray *log_z = nd_add(m, log_s);
    NdArray *y = nd_sub(a, log_z);
    nd_release(log_z);
    nd_release(log_s);
    nd_release(s);
    nd_release(e);
    nd_release(m);
    return y;
}

/* Whether the GPU's softmax kernel takes a along axis (counted from
 * 0): a float array on the GPU, along its last axis, rows of 1 to
 * ND_GPU_SOFTMAX_ROW elements (an empty row is the chain's error: a
 * max of nothing). */
static bool softmax_in_one_kernel(const NdArray *a, int axis)
{
    return nd_kernels(a->device) && nd_dtype_is_float(a->dtype) &&
           a->size > 0 && axis == a->ndim - 1 &&
           a->shape[axis] <= ND_GPU_SOFTMAX_ROW;
}

/* nd_softmax, or nd_log_softmax when log: one kernel where the GPU
 * takes a, else the chain. */
static NdArray *softmax(const char *name, const NdArray *a, int axis,
                        bool log)
{
    NdDevice device = nd_same_device(name, 1, &a);
    axis = nd_normalize_axis(name, axis, a->ndim);
    if (!softmax_in_one_kernel(a, axis))
        return log ? log_softmax_chain(a, axis) : softmax_chain(a, axis);
    NdArray *y = nd_empty_on(device, a->dtype, a->ndim, a->shape);
    nd_device_check(name, device, nd_kernels(device)->softmax(y, a, log));
    return y;
}

NdArray *nd_softmax(const NdArray *a, int axis)
{
    return softmax("nd_softmax", a, axis, false);
}

NdArray *nd_log_softmax(const NdArray *a, int axis)
{
    return softmax("nd_log_softmax", a, axis, true);
}

/* ------------------------------------------------------------ normalize */

/* The two numbers made 0-d arrays on a's device, then a subtraction
 * and a division: four launches on the GPU, two of them fills. */
static NdArray *normalize_chain(const NdArray *a, double mean, double std)
{
    NdArray *m = nd_full_on(a->device, number_dtype(a), ND_SCALAR_SHAPE,
                            mean);
    NdArray *s = nd_full_on(a->device, number_dtype(a), ND_SCALAR_SHAPE,
                            std);
    NdArray *centred = nd_sub(a, m);
    NdArray *y = nd_div(centred, s);
    nd_release(centred);
    nd_release(s);
    nd_release(m);
    return y;
}

/* One kernel for a float a, the numbers passed by value in its dtype. */
NdArray *nd_normalize(const NdArray *a, double mean, double std)
{
    NdDevice device = nd_same_device("nd_normalize", 1, &a);
    const NdGpuBackend *kernels = nd_kernels(device);
    if (!kernels || !nd_dtype_is_float(a->dtype))
        return normalize_chain(a, mean, std);
    NdArray *y = nd_empty_on(device, a->dtype, a->ndim, a->shape);
    if (y->size > 0)
        nd_device_check("nd_normalize", device,
                        kernels->normalize(y, a, mean, std));
    return y;
}

/* ------------------------------------------------ softmax cross-entropy */

/* The checks both cross-entropy operations make of their operands. */
static void check_scores_and_labels(const char *name, const NdArray *x,
                                    const NdArray *t)
{
    if (x->ndim != 2)
        nd_error(name, "the scores must be 2-D (samples, classes), got "
                 "%d axes", x->ndim);
    if (!nd_dtype_is_integer(t->dtype) || t->size != x->shape[0])
        nd_error(name, "want %lld integer labels, one per row of the "
                 "scores; got %lld of dtype %s", (long long)x->shape[0],
                 (long long)t->size, nd_dtype_name(t->dtype));
}

/* DeZero's SoftmaxCrossEntropy.forward on arrays: log p = x -
 * logsumexp(x) (nd_log_softmax), log p[arange(N), t.ravel()], then
 * -sum / np.float32(N). */
static NdArray *cross_entropy_chain(const NdArray *x, const NdArray *t)
{
    int64_t N = x->shape[0];
    NdArray *log_p = nd_log_softmax(x, 1);                      // (N, C)
    NdArray *labels = nd_reshape(t, ND_SHAPE(-1));              // (N,)
    NdArray *columns = nd_astype(labels, ND_INT64);
    NdArray *rows = nd_arange_on(x->device, 0, (double)N, 1, ND_INT64);
    NdArray *picked = nd_getitem(log_p, 2, (NdIndex[]){
        ND_IDX_ARRAY(rows), ND_IDX_ARRAY(columns)});            // (N,)
    NdArray *sum = nd_sum(picked, ND_ALL_AXES, false);
    NdArray *minus = nd_neg(sum);
    NdArray *n = nd_full_on(x->device, ND_FLOAT32, ND_SCALAR_SHAPE,
                            (double)N);
    NdArray *loss = nd_div(minus, n);
    nd_release(n);
    nd_release(minus);
    nd_release(sum);
    nd_release(picked);
    nd_release(rows);
    nd_release(columns);
    nd_release(labels);
    nd_release(log_p);
    return loss;
}

/* Whether the GPU's kernels take scores x and labels t: float scores on
 * the GPU, rows of 1 to ND_GPU_SOFTMAX_ROW classes, as the softmax
 * kernel takes them, and uint8 or int64 labels. */
static bool cross_entropy_in_one_kernel(const NdArray *x, const NdArray *t)
{
    return nd_kernels(x->device) && nd_dtype_is_float(x->dtype) &&
           x->size > 0 && x->shape[1] <= ND_GPU_SOFTMAX_ROW &&
           nd_dtype_is_integer(t->dtype);
}

NdArray *nd_softmax_cross_entropy(const NdArray *x, const NdArray *t)
{
    const char *name = "nd_softmax_cross_entropy";
    NdDevice device = nd_same_device(name, 2, (const NdArray *const[]){
                                                  x, t});
    check_scores_and_labels(name, x, t);
    /* One thread adds the rows' terms: as many rows as a row's terms. */
    if (!cross_entropy_in_one_kernel(x, t) ||
        x->shape[0] > ND_GPU_SOFTMAX_ROW)
        return cross_entropy_chain(x, t);
    NdArray *loss = nd_empty_on(device, x->dtype, ND_SCALAR_SHAPE);
    const NdGpuBackend *kernels = nd_kernels(device);
    nd_device_check(name, device, kernels->softmax_cross_entropy(loss, x, t));
    return loss;
}

/* ---- its gradient */

/* DeZero's SoftmaxCrossEntropy.backward on arrays: gy *= 1/N (a 0-d
 * float64, so a float64 product), the softmax, the one-hot rows made
 * as t[i] == j for every class j and cast to t's dtype, then (p -
 * onehot) * gy, where the 0-d gy takes the difference's dtype. */
static NdArray *cross_entropy_grad_chain(const NdArray *x, const NdArray *t,
                                         const NdArray *gy)
{
    int64_t N = x->shape[0], C = x->shape[1];
    NdArray *inv_n = nd_full_on(x->device, ND_FLOAT64, ND_SCALAR_SHAPE,
                                1.0 / (double)N);
    NdArray *g = nd_mul(gy, inv_n);
    NdArray *p = nd_softmax(x, 1);                              // (N, C)
    NdArray *column = nd_reshape(t, ND_SHAPE(N, 1));            // (N, 1)
    NdArray *classes = nd_arange_on(t->device, 0, (double)C, 1,
                                    ND_INT64);                  // (C,)
    NdArray *is_label = nd_equal(column, classes);              // (N, C)
    NdArray *onehot = nd_astype(is_label, t->dtype);
    NdArray *diff = nd_sub(p, onehot);
    NdArray *gx = nd_mul(diff, g);
    nd_release(diff);
    nd_release(onehot);
    nd_release(is_label);
    nd_release(classes);
    nd_release(column);
    nd_release(p);
    nd_release(g);
    nd_release(inv_n);
    return gx;
}

NdArray *nd_softmax_cross_entropy_grad(const NdArray *x, const NdArray *t,
                                       const NdArray *gy)
{
    const char *name = "nd_softmax_cross_entropy_grad";
    NdDevice device = nd_same_device(name, 3, (const NdArray *const[]){
                                                  x, t, gy});
    check_scores_and_labels(name, x, t);
    /* gy must be a 0-d float: one of another shape would not be 0-d in
     * the product, and would change its dtype. */
    if (!cross_entropy_in_one_kernel(x, t) || gy->ndim != 0 ||
        !nd_dtype_is_float(gy->dtype))
        return cross_entropy_grad_chain(x, t, gy);
    NdArray *gx = nd_empty_on(device, nd_promote(x->dtype, t->dtype),
                              x->ndim, x->shape);                // (N, C)
    const NdGpuBackend *kernels = nd_kernels(device);
    nd_device_check(name, device,
                    kernels->softmax_cross_entropy_grad(gx, x, t, gy));
    return gx;
}
