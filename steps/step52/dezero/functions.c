/* functions.c - the differentiable functions beyond arithmetic, as the
 * book's functions.py: Sin, Cos and Tanh; the functions that change
 * shape, Reshape and Transpose; GetItem and GetItemGrad, indexing; Sum,
 * and the pair BroadcastTo and SumTo that its backward is made of;
 * MatMul; Linear, Sigmoid (with SigmoidGrad, its gradient), ReLU,
 * Softmax, Clip and Log; the losses MeanSquaredError and
 * SoftmaxCrossEntropy (with SoftmaxCrossEntropyGrad); and accuracy, a
 * measure without a gradient. Each backward is written
 * with the framework's functions, like core.c's, so that it can be
 * recorded and differentiated again. Each runs on its inputs' device:
 * the arrays common/ computes follow their operands, and the few made
 * here (constants, zeros, index arrays) are made on that device. */
#include <string.h>

#include "dezero.h"

/* ---- Sin: y = sin(x), dy/dx = cos(x) */

static void sin_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_sin(xs[0]);
}

static void sin_backward(Function *self, Variable *gys[],
                         Variable *gxs[])
{
    Variable *x = self->inputs[0];
    gxs[0] = F_mul(gys[0], F_cos(x));           /* gy * cos(x) */
}

static const FunctionClass sin_class = {
    .name = "Sin",
    .noutputs = 1,
    .forward = sin_forward,
    .backward = sin_backward,
};

/* A new Sin function (Python: Sin()). */
Function *sin_function(void)
{
    return function_new(&sin_class);
}

/* y = sin(x) (Python: F.sin(x)): a new Sin, called on x. */
Variable *(F_sin)(Variable *x)
{
    return function_call(sin_function(), x);
}

/* ---- Cos: y = cos(x), dy/dx = -sin(x) */

static void cos_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_cos(xs[0]);
}

static void cos_backward(Function *self, Variable *gys[],
                         Variable *gxs[])
{
    Variable *x = self->inputs[0];
    gxs[0] = F_mul(gys[0], F_neg(F_sin(x)));    /* gy * -sin(x) */
}

static const FunctionClass cos_class = {
    .name = "Cos",
    .noutputs = 1,
    .forward = cos_forward,
    .backward = cos_backward,
};

/* A new Cos function (Python: Cos()). */
Function *cos_function(void)
{
    return function_new(&cos_class);
}

/* y = cos(x) (Python: F.cos(x)): a new Cos, called on x. */
Variable *(F_cos)(Variable *x)
{
    return function_call(cos_function(), x);
}

/* ---- Tanh: y = tanh(x), dy/dx = 1 - y^2 */

static void tanh_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_tanh(xs[0]);
}

/* The derivative is made of the output, y = tanh(x), which the function
 * reaches through its weak link (Python: self.outputs[0]()). backward
 * reaches a function through its output, so the output is alive then;
 * a direct call after the output was freed finds NULL, and stops. */
static void tanh_backward(Function *self, Variable *gys[],
                          Variable *gxs[])
{
    Variable *y = self->outputs[0];
    if (!y)
        nd_error("tanh_backward", "the output of Tanh was freed, and the "
                 "gradient 1 - y^2 needs it; keep y alive until backward");
    gxs[0] = F_mul(gys[0], F_sub(1, F_mul(y, y)));     /* gy (1 - y^2) */
}

static const FunctionClass tanh_class = {
    .name = "Tanh",
    .noutputs = 1,
    .forward = tanh_forward,
    .backward = tanh_backward,
};

/* A new Tanh function (Python: Tanh()). */
Function *tanh_function(void)
{
    return function_new(&tanh_class);
}

/* y = tanh(x) (Python: F.tanh(x)): a new Tanh, called on x. */
Variable *(F_tanh)(Variable *x)
{
    return function_call(tanh_function(), x);
}

/* ---- Reshape: y = x with the shape shape; dy/dx reshapes gy back */

/* What a Reshape keeps: the shape it makes and the one it was given. */
typedef struct ReshapeFunction {
    Function function;          /* first: a ReshapeFunction * is a
                                 * Function * */
    int ndim;
    int64_t shape[ND_MAX_DIMS]; /* as asked: one entry may be -1 */
    int x_ndim;
    int64_t x_shape[ND_MAX_DIMS];   /* x's, set by forward */
} ReshapeFunction;

static void reshape_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    ReshapeFunction *f = (ReshapeFunction *)self;
    f->x_ndim = xs[0]->ndim;
    memcpy(f->x_shape, xs[0]->shape, sizeof f->x_shape);
    ys[0] = nd_reshape(xs[0], f->ndim, f->shape);
}

/* Reshaping moves no element, so the gradient is gy laid out in x's
 * shape again. */
static void reshape_backward(Function *self, Variable *gys[],
                             Variable *gxs[])
{
    const ReshapeFunction *f = (const ReshapeFunction *)self;
    gxs[0] = F_reshape(gys[0], f->x_ndim, f->x_shape);
}

static const FunctionClass reshape_class = {
    .name = "Reshape",
    .noutputs = 1,
    .forward = reshape_forward,
    .backward = reshape_backward,
};

/* A new Reshape to the ndim entries of shape (Python: Reshape(shape)). */
Function *reshape_function(int ndim, const int64_t *shape)
{
    if (ndim < 0 || ndim > ND_MAX_DIMS)
        nd_error("reshape_function", "a shape of %d dimensions; at most "
                 "%d are supported", ndim, (int)ND_MAX_DIMS);
    ReshapeFunction *f = (ReshapeFunction *)function_new_sized(
        &reshape_class, sizeof *f);
    f->ndim = ndim;
    if (ndim > 0)
        memcpy(f->shape, shape, ndim * sizeof *shape);
    return &f->function;
}

/* True when x has exactly the ndim entries of shape. */
static bool has_shape(const Variable *x, int ndim, const int64_t *shape)
{
    if (variable_ndim(x) != ndim)
        return false;
    for (int i = 0; i < ndim; i++)
        if (variable_shape(x)[i] != shape[i])
            return false;
    return true;
}

/* x in the shape shape (Python: F.reshape(x, shape)): x itself when it
 * has that shape already, else a new Reshape, called on x. */
Variable *(F_reshape)(Variable *x, int ndim, const int64_t *shape)
{
    if (has_shape(x, ndim, shape))
        return x;
    return function_call(reshape_function(ndim, shape), x);
}

/* ---- Transpose: y = x with its axes permuted; dy/dx permutes back */

/* What a Transpose keeps: the permutation, or none (reverse them). */
typedef struct TransposeFunction {
    Function function;          /* first: a TransposeFunction * is a
                                 * Function * */
    int naxes;                  /* 0: reverse the axes (axes=None) */
    int axes[ND_MAX_DIMS];
} TransposeFunction;

static void transpose_forward(Function *self, NdArray *xs[],
                              NdArray *ys[])
{
    const TransposeFunction *f = (const TransposeFunction *)self;
    ys[0] = nd_transpose(xs[0], f->naxes, f->naxes ? f->axes : NULL);
}

/* Reversing the axes undoes itself. A permutation p sends axis p[i] of
 * x to axis i of y, so the inverse sends axis i back to p[i]: inv[p[i]]
 * = i (Python: np.argsort of the axes, taken modulo their count). */
static void transpose_backward(Function *self, Variable *gys[],
                               Variable *gxs[])
{
    const TransposeFunction *f = (const TransposeFunction *)self;
    if (f->naxes == 0) {
        gxs[0] = F_transpose(gys[0], 0, NULL);
        return;
    }
    int inverse[ND_MAX_DIMS];
    for (int i = 0; i < f->naxes; i++) {
        int axis = ((f->axes[i] % f->naxes) + f->naxes) % f->naxes;
        inverse[axis] = i;
    }
    gxs[0] = F_transpose(gys[0], f->naxes, inverse);
}

static const FunctionClass transpose_class = {
    .name = "Transpose",
    .noutputs = 1,
    .forward = transpose_forward,
    .backward = transpose_backward,
};

/* A new Transpose by the naxes entries of axes; naxes 0 (axes NULL)
 * reverses the axes (Python: Transpose(axes), Transpose()). */
Function *transpose_function(int naxes, const int *axes)
{
    if (naxes < 0 || naxes > ND_MAX_DIMS)
        nd_error("transpose_function", "%d axes; at most %d are "
                 "supported", naxes, (int)ND_MAX_DIMS);
    TransposeFunction *f = (TransposeFunction *)function_new_sized(
        &transpose_class, sizeof *f);
    f->naxes = naxes;
    if (naxes > 0)
        memcpy(f->axes, axes, naxes * sizeof *axes);
    return &f->function;
}

/* x with its axes permuted (Python: F.transpose(x, axes)): a new
 * Transpose, called on x. */
Variable *(F_transpose)(Variable *x, int naxes, const int *axes)
{
    return function_call(transpose_function(naxes, axes), x);
}

/* x with its axes reversed (Python: x.T). */
Variable *variable_T(Variable *x)
{
    return F_transpose(x, 0, NULL);
}

/* ---- GetItem: y = x[index]; GetItemGrad: gx = zeros, gx[index] += gy */

/* A new function of class cls that keeps the n entries of index, with
 * a reference to each index array. */
static GetItemFunction *index_function(const FunctionClass *cls, int n,
                                       const NdIndex *index,
                                       const char *who)
{
    if (n < 0 || n > ND_MAX_DIMS)
        nd_error(who, "an index of %d entries; at most %d are supported",
                 n, (int)ND_MAX_DIMS);
    GetItemFunction *f = (GetItemFunction *)function_new_sized(
        cls, sizeof *f);
    f->n = n;
    if (n > 0)
        memcpy(f->index, index, n * sizeof *index);
    for (int i = 0; i < n; i++)
        if (index[i].kind == ND_INDEX_ARRAY)
            nd_retain((NdArray *)index[i].array);
    return f;
}

/* Drops the references to the index arrays (the classes' destroy). */
static void index_function_destroy(Function *self)
{
    GetItemFunction *f = (GetItemFunction *)self;
    for (int i = 0; i < f->n; i++)
        if (f->index[i].kind == ND_INDEX_ARRAY)
            nd_release((NdArray *)f->index[i].array);
}

static void get_item_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    const GetItemFunction *f = (const GetItemFunction *)self;
    ys[0] = nd_getitem(xs[0], f->n, f->index);
}

/* Each element of y is one element of x: x gets gy at the places
 * indexed, and zero elsewhere. */
static void get_item_backward(Function *self, Variable *gys[],
                              Variable *gxs[])
{
    const GetItemFunction *f = (const GetItemFunction *)self;
    Variable *x = self->inputs[0];
    Function *grad = get_item_grad_function(f->n, f->index,
                                            variable_ndim(x),
                                            variable_shape(x));
    gxs[0] = function_call(grad, gys[0]);
}

static const FunctionClass get_item_class = {
    .name = "GetItem",
    .noutputs = 1,
    .forward = get_item_forward,
    .backward = get_item_backward,
    .destroy = index_function_destroy,
};

/* A new GetItem by index (Python: GetItem(slices)). */
Function *get_item_function(int n, const NdIndex *index)
{
    return &index_function(&get_item_class, n, index,
                           "get_item_function")->function;
}

/* x[index] (Python: F.get_item(x, slices)): a new GetItem, called on
 * x. */
Variable *(F_get_item)(Variable *x, int n, const NdIndex *index)
{
    return function_call(get_item_function(n, index), x);
}

/* gx = zeros of x's shape and gy's dtype on gy's device, then gy added
 * at the index, np.add.at: an element picked twice gets both
 * gradients. */
static void get_item_grad_forward(Function *self, NdArray *xs[],
                                  NdArray *ys[])
{
    const GetItemFunction *f = (const GetItemFunction *)self;
    ys[0] = nd_full_on(get_array_module(xs[0]), xs[0]->dtype, f->x_ndim,
                       f->x_shape, 0);
    nd_add_at(ys[0], f->n, f->index, xs[0]);
}

/* GetItemGrad is linear in gy, and its adjoint is GetItem: ggy =
 * ggx[index]. */
static void get_item_grad_backward(Function *self, Variable *gys[],
                                   Variable *gxs[])
{
    const GetItemFunction *f = (const GetItemFunction *)self;
    gxs[0] = F_get_item(gys[0], f->n, f->index);
}

static const FunctionClass get_item_grad_class = {
    .name = "GetItemGrad",
    .noutputs = 1,
    .forward = get_item_grad_forward,
    .backward = get_item_grad_backward,
    .destroy = index_function_destroy,
};

/* A new GetItemGrad by index, into zeros of in_shape (Python:
 * GetItemGrad(slices, in_shape)). */
Function *get_item_grad_function(int n, const NdIndex *index,
                                 int in_ndim, const int64_t *in_shape)
{
    if (in_ndim < 0 || in_ndim > ND_MAX_DIMS)
        nd_error("get_item_grad_function", "a shape of %d dimensions; at "
                 "most %d are supported", in_ndim, (int)ND_MAX_DIMS);
    GetItemFunction *f = index_function(&get_item_grad_class, n, index,
                                        "get_item_grad_function");
    f->x_ndim = in_ndim;
    if (in_ndim > 0)
        memcpy(f->x_shape, in_shape, in_ndim * sizeof *in_shape);
    return &f->function;
}

/* ---- Sum: y = the sum of x along some axes; dy/dx spreads gy back */

/* What a Sum keeps: the axes it adds along and whether it keeps them
 * as size 1, and x's shape, which the gradient must take again. */
typedef struct SumFunction {
    Function function;          /* first: a SumFunction * is a Function * */
    int naxes;                  /* -1: every axis (axis=None) */
    int axes[ND_MAX_DIMS];
    bool keepdims;
    int x_ndim;
    int64_t x_shape[ND_MAX_DIMS];   /* x's, set by forward */
} SumFunction;

static void sum_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    SumFunction *f = (SumFunction *)self;
    f->x_ndim = xs[0]->ndim;
    memcpy(f->x_shape, xs[0]->shape, sizeof f->x_shape);
    ys[0] = nd_sum(xs[0], f->naxes, f->naxes < 0 ? NULL : f->axes,
                   f->keepdims);
}

/* Every element of x adds once into one element of y, so it gets that
 * element's gradient: gy, given back the summed axes as size 1, then
 * broadcast over them to x's shape. */
static void sum_backward(Function *self, Variable *gys[], Variable *gxs[])
{
    const SumFunction *f = (const SumFunction *)self;
    Variable *gy = reshape_sum_backward(gys[0], f->x_ndim, f->naxes,
                                        f->axes, f->keepdims);
    gxs[0] = F_broadcast_to(gy, f->x_ndim, f->x_shape);
}

static const FunctionClass sum_class = {
    .name = "Sum",
    .noutputs = 1,
    .forward = sum_forward,
    .backward = sum_backward,
};

/* A new Sum along the naxes entries of axes, or every axis for
 * ND_ALL_AXES (Python: Sum(axis, keepdims)). */
Function *sum_function(int naxes, const int *axes, bool keepdims)
{
    if (naxes > ND_MAX_DIMS)
        nd_error("sum_function", "%d axes; at most %d are supported",
                 naxes, (int)ND_MAX_DIMS);
    SumFunction *f = (SumFunction *)function_new_sized(&sum_class,
                                                       sizeof *f);
    f->naxes = naxes < 0 ? -1 : naxes;
    if (naxes > 0)
        memcpy(f->axes, axes, naxes * sizeof *axes);
    f->keepdims = keepdims;
    return &f->function;
}

/* The sum of x along axes (Python: F.sum(x, axis, keepdims) and
 * x.sum(axis, keepdims)): a new Sum, called on x. */
Variable *(F_sum)(Variable *x, int naxes, const int *axes, bool keepdims)
{
    return function_call(sum_function(naxes, axes, keepdims), x);
}

/* ---- BroadcastTo and SumTo: each one's backward is the other */

/* What BroadcastTo and SumTo keep: the shape they make, and x's. */
typedef struct ShapeFunction {
    Function function;          /* first: a ShapeFunction * is a
                                 * Function * */
    int ndim;
    int64_t shape[ND_MAX_DIMS];
    int x_ndim;
    int64_t x_shape[ND_MAX_DIMS];   /* x's, set by forward */
} ShapeFunction;

/* A new function of class cls that keeps the ndim entries of shape. */
static Function *shape_function(const FunctionClass *cls, int ndim,
                                const int64_t *shape, const char *who)
{
    if (ndim < 0 || ndim > ND_MAX_DIMS)
        nd_error(who, "a shape of %d dimensions; at most %d are "
                 "supported", ndim, (int)ND_MAX_DIMS);
    ShapeFunction *f = (ShapeFunction *)function_new_sized(cls,
                                                           sizeof *f);
    f->ndim = ndim;
    if (ndim > 0)
        memcpy(f->shape, shape, ndim * sizeof *shape);
    return &f->function;
}

/* Remembers x's shape in the function f. */
static void keep_input_shape(Function *self, const NdArray *x)
{
    ShapeFunction *f = (ShapeFunction *)self;
    f->x_ndim = x->ndim;
    memcpy(f->x_shape, x->shape, sizeof f->x_shape);
}

static void broadcast_to_forward(Function *self, NdArray *xs[],
                                 NdArray *ys[])
{
    const ShapeFunction *f = (const ShapeFunction *)self;
    keep_input_shape(self, xs[0]);
    ys[0] = nd_broadcast_to(xs[0], f->ndim, f->shape);
}

/* An element of x copied to many places of y gets the sum of their
 * gradients: gy summed down to x's shape. */
static void broadcast_to_backward(Function *self, Variable *gys[],
                                  Variable *gxs[])
{
    const ShapeFunction *f = (const ShapeFunction *)self;
    gxs[0] = F_sum_to(gys[0], f->x_ndim, f->x_shape);
}

static const FunctionClass broadcast_to_class = {
    .name = "BroadcastTo",
    .noutputs = 1,
    .forward = broadcast_to_forward,
    .backward = broadcast_to_backward,
};

/* A new BroadcastTo the shape (Python: BroadcastTo(shape)). */
Function *broadcast_to_function(int ndim, const int64_t *shape)
{
    return shape_function(&broadcast_to_class, ndim, shape,
                          "broadcast_to_function");
}

/* x repeated along new leading axes and along its size-1 axes to the
 * shape (Python: F.broadcast_to(x, shape)): x itself when it has that
 * shape, else a new BroadcastTo, called on x. */
Variable *(F_broadcast_to)(Variable *x, int ndim, const int64_t *shape)
{
    if (has_shape(x, ndim, shape))
        return x;
    return function_call(broadcast_to_function(ndim, shape), x);
}

static void sum_to_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    const ShapeFunction *f = (const ShapeFunction *)self;
    keep_input_shape(self, xs[0]);
    ys[0] = nd_sum_to(xs[0], f->ndim, f->shape);
}

/* Every element of x adds into one element of y, and gets its
 * gradient: gy broadcast back to x's shape. */
static void sum_to_backward(Function *self, Variable *gys[],
                            Variable *gxs[])
{
    const ShapeFunction *f = (const ShapeFunction *)self;
    gxs[0] = F_broadcast_to(gys[0], f->x_ndim, f->x_shape);
}

static const FunctionClass sum_to_class = {
    .name = "SumTo",
    .noutputs = 1,
    .forward = sum_to_forward,
    .backward = sum_to_backward,
};

/* A new SumTo the shape (Python: SumTo(shape)). */
Function *sum_to_function(int ndim, const int64_t *shape)
{
    return shape_function(&sum_to_class, ndim, shape, "sum_to_function");
}

/* x summed down to the shape, over leading axes and over the axes the
 * shape has as size 1 (Python: F.sum_to(x, shape)): x itself when it
 * has that shape, else a new SumTo, called on x. */
Variable *(F_sum_to)(Variable *x, int ndim, const int64_t *shape)
{
    if (has_shape(x, ndim, shape))
        return x;
    return function_call(sum_to_function(ndim, shape), x);
}

/* ---- MatMul: y = x W, dy/dx = gy W^T, dy/dW = x^T gy */

/* What a MatMul keeps: whether it transposes each operand. F_matmul
 * transposes neither; its backward needs W^T and x^T, and asks BLAS to
 * read them transposed (a flag) rather than have them copied. */
typedef struct MatMulFunction {
    Function function;          /* first: a MatMulFunction * is a
                                 * Function * */
    bool trans_x, trans_W;
} MatMulFunction;

static void matmul_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    const MatMulFunction *f = (const MatMulFunction *)self;
    ys[0] = nd_matmul_t(xs[0], f->trans_x, xs[1], f->trans_W);
}

/* With op(a) for a transposed when its flag says so, y = op(x) op(W)
 * gives d/d op(x) = gy op(W)^T and d/d op(W) = op(x)^T gy. An operand
 * that was transposed gets the transpose of that, and (A B)^T = B^T
 * A^T turns it into another product of flagged operands: every
 * gradient is one more MatMul, which backward can differentiate in
 * turn, and no transpose is ever copied. */
static void matmul_backward(Function *self, Variable *gys[],
                            Variable *gxs[])
{
    const MatMulFunction *f = (const MatMulFunction *)self;
    Variable *x = self->inputs[0], *W = self->inputs[1], *gy = gys[0];
    bool tx = f->trans_x, tW = f->trans_W;
    gxs[0] = tx ? F_matmul_t(W, tW, gy, true)       /* op(W) gy^T */
                : F_matmul_t(gy, false, W, !tW);    /* gy op(W)^T */
    gxs[1] = tW ? F_matmul_t(gy, true, x, tx)       /* gy^T op(x) */
                : F_matmul_t(x, !tx, gy, false);    /* op(x)^T gy */
}

static const FunctionClass matmul_class = {
    .name = "MatMul",
    .noutputs = 1,
    .forward = matmul_forward,
    .backward = matmul_backward,
};

/* A new MatMul that transposes x when trans_x and W when trans_W
 * (Python: MatMul(), which transposes neither). */
Function *matmul_function(bool trans_x, bool trans_W)
{
    MatMulFunction *f = (MatMulFunction *)function_new_sized(
        &matmul_class, sizeof *f);
    f->trans_x = trans_x;
    f->trans_W = trans_W;
    return &f->function;
}

/* op(x) op(W), where op transposes an operand whose flag is set: a new
 * MatMul, called on x and W. F_matmul_t(x, true, gy, false) is Python's
 * matmul(x.T, gy), without the copy x.T would make here. */
Variable *(F_matmul_t)(Variable *x, bool trans_x, Variable *W,
                       bool trans_W)
{
    return function_call(matmul_function(trans_x, trans_W), x, W);
}

/* The matrix product x W of two 2-D variables (Python: F.matmul(x,
 * W)): a new MatMul, called on x and W. */
Variable *(F_matmul)(Variable *x, Variable *W)
{
    return F_matmul_t(x, false, W, false);
}

/* ---- linear_simple and Linear: y = x W + b */

// region: linear_simple
/* x W + b made of MatMul and Add (Python: F.linear_simple(x, W, b)),
 * without b when it is NULL (Python: None). The product t is only the
 * Add's input: once the sum is computed, its data is dropped, as
 * Python's t.data = None; t stays in the graph, and the backward of
 * Add (which keeps the shapes it needs) and of MatMul never read it. */
Variable *(F_linear_simple)(Variable *x, Variable *W, Variable *b)
{
    Variable *t = F_matmul(x, W);
    if (!b)
        return t;
    Variable *y = F_add(t, b);
    nd_release(t->data);
    t->data = NULL;
    return y;
}
// endregion

/* What a Linear keeps: whether it was given a bias, its third input. */
typedef struct LinearFunction {
    Function function;          /* first: a LinearFunction * is a
                                 * Function * */
    bool has_bias;
} LinearFunction;

/* y = x.dot(W), then y += b in place, as Python's forward: the bias is
 * added in y's dtype, whatever b's. */
static void linear_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    const LinearFunction *f = (const LinearFunction *)self;
    ys[0] = nd_matmul(xs[0], xs[1]);                // (N, M)
    if (f->has_bias)
        nd_iadd(ys[0], xs[2]);                      // b: (M,)
}

/* MatMul's gradients, and for b the sum of gy over the rows it was
 * broadcast to. */
static void linear_backward(Function *self, Variable *gys[],
                            Variable *gxs[])
{
    const LinearFunction *f = (const LinearFunction *)self;
    Variable *x = self->inputs[0], *W = self->inputs[1], *gy = gys[0];
    if (f->has_bias) {
        Variable *b = self->inputs[2];
        gxs[2] = F_sum_to(gy, variable_ndim(b), variable_shape(b));
    }
    gxs[0] = F_matmul_t(gy, false, W, true);        /* gy W^T */
    gxs[1] = F_matmul_t(x, true, gy, false);        /* x^T gy */
}

static const FunctionClass linear_class = {
    .name = "Linear",
    .noutputs = 1,
    .forward = linear_forward,
    .backward = linear_backward,
};

/* A new Linear, with a bias input or without (Python: Linear()). */
Function *linear_function(bool has_bias)
{
    LinearFunction *f = (LinearFunction *)function_new_sized(
        &linear_class, sizeof *f);
    f->has_bias = has_bias;
    return &f->function;
}

/* x W + b in one function (Python: F.linear(x, W, b)): a new Linear,
 * called on x, W and b, or on x and W when b is NULL. */
Variable *(F_linear)(Variable *x, Variable *W, Variable *b)
{
    Function *f = linear_function(b != NULL);
    return b ? function_call(f, x, W, b) : function_call(f, x, W);
}

/* ---- SigmoidGrad: gx = gy y (1 - y), Sigmoid's gradient */

/* Python's Sigmoid.backward computes gy * y * (1 - y) with three
 * Functions (five kernels on the GPU); here one Function does it, with
 * nd_sigmoid_grad, whose chain gives the same numbers, in one kernel.
 * It has a backward of its own, so that the gradient can be
 * differentiated again (double backprop). */
static void sigmoid_grad_forward(Function *self, NdArray *xs[],
                                 NdArray *ys[])
{
    (void)self;
    ys[0] = nd_sigmoid_grad(xs[0], xs[1]);           /* y, gy */
}

static Variable *sigmoid_grad(Variable *y, Variable *gy);

/* gx = gy y (1 - y) is a product: d/dy = gy (1 - 2y), d/dgy = y (1 - y),
 * each times the gradient ggx that comes back. */
static void sigmoid_grad_backward(Function *self, Variable *gys[],
                                  Variable *gxs[])
{
    Variable *y = self->inputs[0], *gy = self->inputs[1];
    gxs[0] = F_mul(F_mul(gys[0], gy), F_sub(1, F_mul(2, y)));
    gxs[1] = sigmoid_grad(y, gys[0]);                  /* ggx y (1 - y) */
}

static const FunctionClass sigmoid_grad_class = {
    .name = "SigmoidGrad",
    .noutputs = 1,
    .forward = sigmoid_grad_forward,
    .backward = sigmoid_grad_backward,
};

/* gy y (1 - y) for Sigmoid's output y: a new SigmoidGrad, called on
 * both. */
static Variable *sigmoid_grad(Variable *y, Variable *gy)
{
    return function_call(function_new(&sigmoid_grad_class), y, gy);
}

/* ---- sigmoid_simple and Sigmoid: y = 1 / (1 + e^-x) */

// region: sigmoid_simple
/* The sigmoid made of Neg, Exp, Add and Div (Python:
 * F.sigmoid_simple(x)). */
Variable *(F_sigmoid_simple)(Variable *x)
{
    return F_div(1, F_add(1, F_exp(F_neg(x))));
}
// endregion

/* tanh(x/2)/2 + 1/2, which equals 1 / (1 + e^-x) and is how Python's
 * Sigmoid computes it: no overflow of e^-x for a very negative x, and
 * the same last bits as Python. nd_sigmoid is that chain of four
 * ufuncs, its 0.5s in x's float dtype (a float32 x stays float32);
 * on the GPU, one kernel does the four. */
static void sigmoid_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_sigmoid(xs[0]);
}

/* dy/dx = y (1 - y), made of the output, which the function reaches
 * through its weak link as Tanh does. */
static void sigmoid_backward(Function *self, Variable *gys[],
                             Variable *gxs[])
{
    Variable *y = self->outputs[0];
    if (!y)
        nd_error("sigmoid_backward", "the output of Sigmoid was freed, "
                 "and the gradient y (1 - y) needs it; keep y alive "
                 "until backward");
    gxs[0] = sigmoid_grad(y, gys[0]);                 /* gy y (1 - y) */
}

static const FunctionClass sigmoid_class = {
    .name = "Sigmoid",
    .noutputs = 1,
    .forward = sigmoid_forward,
    .backward = sigmoid_backward,
};

/* A new Sigmoid function (Python: Sigmoid()). */
Function *sigmoid_function(void)
{
    return function_new(&sigmoid_class);
}

/* y = 1 / (1 + e^-x) (Python: F.sigmoid(x)): a new Sigmoid, called on
 * x. */
Variable *(F_sigmoid)(Variable *x)
{
    return function_call(sigmoid_function(), x);
}

/* ---- ReLU: y = max(x, 0) */

/* The 0 is 0-d, so a float32 x stays float32. */
static void relu_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    NdArray *zero = as_array(0.0, ND_FLOAT64, get_array_module(xs[0]));
    ys[0] = nd_maximum(xs[0], zero);
    nd_release(zero);
}

/* y follows x where x > 0 and is 0 elsewhere: gy passes where x > 0 (a
 * bool mask, which keeps gy's dtype), and 0 elsewhere, at 0 too. */
static void relu_backward(Function *self, Variable *gys[],
                          Variable *gxs[])
{
    const NdArray *x = self->inputs[0]->data;
    NdArray *zero = as_array(0.0, ND_FLOAT64, get_array_module(x));
    Variable *mask = variable(nd_greater(x, zero));
    gxs[0] = F_mul(gys[0], mask);
    nd_release(zero);
}

static const FunctionClass relu_class = {
    .name = "ReLU",
    .noutputs = 1,
    .forward = relu_forward,
    .backward = relu_backward,
};

/* A new ReLU function (Python: ReLU()). */
Function *relu_function(void)
{
    return function_new(&relu_class);
}

/* y = max(x, 0) (Python: F.relu(x)): a new ReLU, called on x. */
Variable *(F_relu)(Variable *x)
{
    return function_call(relu_function(), x);
}

/* ---- softmax_simple and Softmax: y = e^x / sum(e^x) along an axis */

// region: softmax_simple
/* The softmax made of Exp, Sum and Div (Python: F.softmax_simple(x,
 * axis)): the sum keeps its axis as size 1, so that it divides every
 * element of its row. */
Variable *(F_softmax_simple)(Variable *x, int axis)
{
    Variable *y = F_exp(x);
    Variable *sum_y = F_sum(y, ND_AXES(axis), true);
    return F_div(y, sum_y);
}
// endregion

/* What a Softmax keeps: the axis it normalises along. */
typedef struct SoftmaxFunction {
    Function function;          /* first: a SoftmaxFunction * is a
                                 * Function * */
    int axis;
} SoftmaxFunction;

/* e^(x - max) / sum(e^(x - max)): the same value as e^x / sum(e^x),
 * since the factor e^-max cancels, but no e^x can overflow. nd_softmax
 * is that chain; on the GPU, one kernel does its five steps. */
static void softmax_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    const SoftmaxFunction *f = (const SoftmaxFunction *)self;
    ys[0] = nd_softmax(xs[0], f->axis);
}

/* dy_i/dx_j = y_i (delta_ij - y_j), so gx = y gy - y sum(y gy) along
 * the axis, made of the output, which the function reaches through its
 * weak link as Sigmoid does. */
static void softmax_backward(Function *self, Variable *gys[],
                             Variable *gxs[])
{
    const SoftmaxFunction *f = (const SoftmaxFunction *)self;
    Variable *y = self->outputs[0];
    if (!y)
        nd_error("softmax_backward", "the output of Softmax was freed, "
                 "and the gradient needs it; keep y alive until "
                 "backward");
    Variable *gx = F_mul(y, gys[0]);
    Variable *sumdx = F_sum(gx, ND_AXES(f->axis), true);
    gxs[0] = F_sub(gx, F_mul(y, sumdx));
}

static const FunctionClass softmax_class = {
    .name = "Softmax",
    .noutputs = 1,
    .forward = softmax_forward,
    .backward = softmax_backward,
};

/* A new Softmax along axis (Python: Softmax(axis)). */
Function *softmax_function(int axis)
{
    SoftmaxFunction *f = (SoftmaxFunction *)function_new_sized(
        &softmax_class, sizeof *f);
    f->axis = axis;
    return &f->function;
}

/* The softmax of x along axis (Python: F.softmax(x, axis)): a new
 * Softmax, called on x. */
Variable *(F_softmax)(Variable *x, int axis)
{
    return function_call(softmax_function(axis), x);
}

/* ---- Clip: y = x clamped into [x_min, x_max] */

static void clip_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    const ClipFunction *f = (const ClipFunction *)self;
    ys[0] = nd_clip(xs[0], f->x_min, f->x_max);
}

/* y follows x inside the range and is constant outside it: gy passes
 * where x_min <= x <= x_max (a bool mask), and 0 elsewhere. */
static void clip_backward(Function *self, Variable *gys[],
                          Variable *gxs[])
{
    const ClipFunction *f = (const ClipFunction *)self;
    const NdArray *x = self->inputs[0]->data;
    NdDevice device = get_array_module(x);
    NdArray *lo = as_array(f->x_min, ND_FLOAT64, device);
    NdArray *hi = as_array(f->x_max, ND_FLOAT64, device);
    NdArray *above = nd_greater_equal(x, lo);
    NdArray *below = nd_less_equal(x, hi);
    Variable *mask = variable(nd_mul(above, below));
    gxs[0] = F_mul(gys[0], mask);
    nd_release(below);
    nd_release(above);
    nd_release(hi);
    nd_release(lo);
}

static const FunctionClass clip_class = {
    .name = "Clip",
    .noutputs = 1,
    .forward = clip_forward,
    .backward = clip_backward,
};

/* A new Clip to [x_min, x_max] (Python: Clip(x_min, x_max)). */
Function *clip_function(double x_min, double x_max)
{
    ClipFunction *f = (ClipFunction *)function_new_sized(&clip_class,
                                                         sizeof *f);
    f->x_min = x_min;
    f->x_max = x_max;
    return &f->function;
}

/* x clamped into [x_min, x_max] (Python: F.clip(x, x_min, x_max)): a
 * new Clip, called on x. */
Variable *(F_clip)(Variable *x, double x_min, double x_max)
{
    return function_call(clip_function(x_min, x_max), x);
}

/* ---- Log: y = ln x, dy/dx = 1/x */

static void log_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_log(xs[0]);
}

static void log_backward(Function *self, Variable *gys[], Variable *gxs[])
{
    Variable *x = self->inputs[0];
    gxs[0] = F_div(gys[0], x);                  /* gy / x */
}

static const FunctionClass log_class = {
    .name = "Log",
    .noutputs = 1,
    .forward = log_forward,
    .backward = log_backward,
};

/* A new Log function (Python: Log()). */
Function *log_function(void)
{
    return function_new(&log_class);
}

/* y = ln x (Python: F.log(x)): a new Log, called on x. */
Variable *(F_log)(Variable *x)
{
    return function_call(log_function(), x);
}

/* ---- MeanSquaredError: y = sum((x0 - x1)^2) / len(x0 - x1) */

/* The squared differences summed (NumPy's pairwise sum), divided by
 * the length of the first axis, as Python's forward. */
static void mean_squared_error_forward(Function *self, NdArray *xs[],
                                       NdArray *ys[])
{
    (void)self;
    if (xs[0]->ndim == 0 && xs[1]->ndim == 0)
        nd_error("mean_squared_error", "len() of a 0-d difference: the "
                 "operands need a first axis, the samples");
    NdArray *diff = nd_sub(xs[0], xs[1]);
    NdArray *squares = nd_mul(diff, diff);          /* diff ** 2 */
    NdArray *sum = nd_sum(squares, ND_ALL_AXES, false);
    NdArray *n = as_array((double)diff->shape[0], ND_INT64,
                          get_array_module(diff));
    ys[0] = nd_div(sum, n);
    nd_release(n);
    nd_release(sum);
    nd_release(squares);
    nd_release(diff);
}

/* d/dx0 = gy (x0 - x1) 2/N, and the opposite for x1. */
static void mean_squared_error_backward(Function *self, Variable *gys[],
                                        Variable *gxs[])
{
    Variable *x0 = self->inputs[0], *x1 = self->inputs[1];
    Variable *diff = F_sub(x0, x1);
    double scale = 2.0 / (double)variable_len(diff);
    gxs[0] = F_mul(F_mul(gys[0], diff), scale);
    gxs[1] = F_neg(gxs[0]);
}

static const FunctionClass mean_squared_error_class = {
    .name = "MeanSquaredError",
    .noutputs = 1,
    .forward = mean_squared_error_forward,
    .backward = mean_squared_error_backward,
};

/* A new MeanSquaredError function (Python: MeanSquaredError()). */
Function *mean_squared_error_function(void)
{
    return function_new(&mean_squared_error_class);
}

/* The mean over the first axis of the squared differences of x0 and x1
 * (Python: F.mean_squared_error(x0, x1)): a new MeanSquaredError,
 * called on both. */
Variable *(F_mean_squared_error)(Variable *x0, Variable *x1)
{
    return function_call(mean_squared_error_function(), x0, x1);
}

/* ---- softmax_cross_entropy_simple and SoftmaxCrossEntropy */

/* Checks that t holds one integer label per row of the scores x (N,
 * C), each in 0 .. C - 1. On the GPU the check runs there, and a label
 * out of range is told at the next read from the device
 * (nd_check_range): nothing is copied back for it. who names the
 * caller in an error. */
static void check_labels(const NdArray *x, const NdArray *t,
                         const char *who)
{
    if (x->ndim != 2)
        nd_error(who, "the scores must be 2-D (samples, classes), got "
                 "%d axes", x->ndim);
    if (!nd_dtype_is_integer(t->dtype) || t->size != x->shape[0])
        nd_error(who, "want %lld integer labels, one per row of the "
                 "scores; got %lld of dtype %s", (long long)x->shape[0],
                 (long long)t->size, nd_dtype_name(t->dtype));
    nd_check_range(who, t, 0, x->shape[1], "label %lld of sample %lld "
                   "is not a class of 0 .. %lld");
}

/* The labels of t (N,), checked, as the int64 array of indices that
 * pick one score per row of x (N, C); a new reference, on t's device. */
static NdArray *label_indices(const NdArray *x, const NdArray *t,
                              const char *who)
{
    check_labels(x, t, who);
    NdArray *labels = nd_reshape(t, ND_SHAPE(-1));      // t.ravel()
    NdArray *indices = nd_astype(labels, ND_INT64);
    nd_release(labels);
    return indices;
}

/* xp.arange(N): the rows of scores (N, C), to pick one score of each
 * row by index arrays on the scores' device, made there (on the GPU by
 * a kernel, with nothing copied from the host). */
static NdArray *row_indices(int64_t N, NdDevice device)
{
    return nd_arange_on(device, 0, (double)N, 1, ND_INT64);   // (N,)
}

// region: softmax_cross_entropy_simple
/* -1 * sum(log p[i, t[i]]) / N with p = softmax(x), clipped so that
 * log p stays finite (Python: F.softmax_cross_entropy_simple(x, t)). */
Variable *(F_softmax_cross_entropy_simple)(Variable *x, Variable *t)
{
    int64_t N = variable_len(x);
    NdArray *labels = label_indices(x->data, t->data,
                                    "softmax_cross_entropy_simple");
    NdArray *rows = row_indices(N, get_array_module(x));    // (N,)
    Variable *p = F_softmax(x, 1);
    p = F_clip(p, 1e-15, 1.0);
    Variable *log_p = F_log(p);
    Variable *tlog_p = variable_getitem(log_p, ND_IDX_ARRAY(rows),
                                        ND_IDX_ARRAY(labels));   // (N,)
    Variable *y = F_div(F_mul(-1, F_sum(tlog_p, ND_ALL_AXES, false)), N);
    nd_release(rows);
    nd_release(labels);
    return y;
}
// endregion

/* -sum(log p[i, t[i]]) / N with log p = x - logsumexp(x): no softmax is
 * taken, so no p underflows to 0. nd_softmax_cross_entropy is Python's
 * forward on arrays, N divided as a float32, as Python does, so float32
 * scores give a float32 loss; one kernel on the GPU, where its chain
 * takes nine. The labels are checked first. */
static void softmax_cross_entropy_forward(Function *self, NdArray *xs[],
                                          NdArray *ys[])
{
    (void)self;
    check_labels(xs[0], xs[1], "softmax_cross_entropy");
    ys[0] = nd_softmax_cross_entropy(xs[0], xs[1]);       /* x, t */
}

/* ---- SoftmaxCrossEntropyGrad: gx = (softmax(x) - onehot(t)) gy / N */

/* Python's SoftmaxCrossEntropy.backward computes its gradient with
 * Functions, twelve kernels on the GPU; here one Function does it, as
 * SigmoidGrad does Sigmoid's, with nd_softmax_cross_entropy_grad, whose
 * chain is Python's on arrays: onehot(t) is row t[i] of the identity in
 * t's dtype (int64 labels make the gradient float64, as NumPy's
 * float32 - int64 does), made as t[i] == j for every class j, so
 * nothing is read out of range; the forward has checked t. */
static void softmax_cross_entropy_grad_forward(Function *self,
                                               NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_softmax_cross_entropy_grad(xs[0], xs[1], xs[2]); /* x, t, gy */
}

/* onehot(t) for C classes, a Variable of t's dtype on t's device. */
static Variable *one_hot(Variable *t, int64_t C)
{
    NdArray *column = nd_reshape(t->data, ND_SHAPE(-1, 1));     // (N, 1)
    NdArray *classes = nd_arange_on(get_array_module(t), 0, (double)C, 1,
                                    ND_INT64);                  // (C,)
    NdArray *is_label = nd_equal(column, classes);              // (N, C)
    Variable *onehot = variable(nd_astype(is_label, variable_dtype(t)));
    nd_release(is_label);
    nd_release(classes);
    nd_release(column);
    return onehot;
}

/* gx = (p - onehot(t)) g with p = softmax(x) and g = gy / N, so, for
 * the gradient ggx that comes back: d/dx is Softmax's backward of
 * ggx g, p u - p sum(p u) with u = ggx g, and d/dgy = sum(ggx (p -
 * onehot(t))) / N, as Python's chain differentiates. t gets none. */
static void softmax_cross_entropy_grad_backward(Function *self,
                                                Variable *gys[],
                                                Variable *gxs[])
{
    Variable *x = self->inputs[0], *t = self->inputs[1];
    Variable *gy = self->inputs[2], *ggx = gys[0];
    int64_t N = variable_shape(x)[0], C = variable_shape(x)[1];
    Variable *p = F_softmax(x, 1);
    Variable *pu = F_mul(p, F_mul(ggx, F_mul(gy, 1.0 / (double)N)));
    gxs[0] = F_sub(pu, F_mul(p, F_sum(pu, ND_AXES(1), true)));
    Variable *diff = F_sub(p, one_hot(t, C));
    gxs[2] = F_mul(F_sum(F_mul(ggx, diff), ND_ALL_AXES, false),
                   1.0 / (double)N);
}

static const FunctionClass softmax_cross_entropy_grad_class = {
    .name = "SoftmaxCrossEntropyGrad",
    .noutputs = 1,
    .forward = softmax_cross_entropy_grad_forward,
    .backward = softmax_cross_entropy_grad_backward,
};

/* The gradient of softmax cross-entropy: a new SoftmaxCrossEntropyGrad,
 * called on x, t and gy. */
static Variable *softmax_cross_entropy_grad(Variable *x, Variable *t,
                                            Variable *gy)
{
    return function_call(function_new(&softmax_cross_entropy_grad_class),
                         x, t, gy);
}

/* gx = (softmax(x) - onehot(t)) gy / N, one SoftmaxCrossEntropyGrad;
 * t gets no gradient. */
static void softmax_cross_entropy_backward(Function *self, Variable *gys[],
                                           Variable *gxs[])
{
    gxs[0] = softmax_cross_entropy_grad(self->inputs[0], self->inputs[1],
                                        gys[0]);
}

static const FunctionClass softmax_cross_entropy_class = {
    .name = "SoftmaxCrossEntropy",
    .noutputs = 1,
    .forward = softmax_cross_entropy_forward,
    .backward = softmax_cross_entropy_backward,
};

/* A new SoftmaxCrossEntropy (Python: SoftmaxCrossEntropy()). */
Function *softmax_cross_entropy_function(void)
{
    return function_new(&softmax_cross_entropy_class);
}

/* The cross-entropy error of the scores x for the labels t (Python:
 * F.softmax_cross_entropy(x, t)): a new SoftmaxCrossEntropy, called on
 * both. */
Variable *(F_softmax_cross_entropy)(Variable *x, Variable *t)
{
    return function_call(softmax_cross_entropy_function(), x, t);
}

/* ---- accuracy */

/* The mean of argmax(y, axis 1) == t: the bools averaged in float64, as
 * NumPy's mean of a bool array. A new Variable, made of the number
 * alone: nothing to differentiate (Python: F.accuracy(y, t)). */
Variable *(F_accuracy)(Variable *y, Variable *t)
{
    const NdArray *scores = y->data, *labels = t->data;
    if (scores->ndim != 2 || labels->size != scores->shape[0])
        nd_error("accuracy", "want scores (N, C) and N labels; got %d "
                 "axes and %lld labels", scores->ndim,
                 (long long)labels->size);
    NdArray *argmax = nd_argmax(scores, 1);                 // (N,)
    NdArray *pred = nd_reshape(argmax, labels->ndim, labels->shape);
    NdArray *result = nd_equal(pred, labels);
    Variable *acc = variable(nd_mean(result, ND_ALL_AXES, false));
    nd_release(result);
    nd_release(pred);
    nd_release(argmax);
    return acc;
}
