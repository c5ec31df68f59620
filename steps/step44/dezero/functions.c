/* functions.c - the differentiable functions beyond arithmetic, as the
 * book's functions.py: Sin, Cos and Tanh; the functions that change
 * shape, Reshape and Transpose; Sum, and the pair BroadcastTo and SumTo
 * that its backward is made of; MatMul. Each backward is written with the
 * framework's functions, like core.c's, so that it can be recorded and
 * differentiated again. */
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
 * the same last bits as Python. The 0.5s are 0-d, so a float32 x stays
 * float32. */
static void sigmoid_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    NdArray *half = nd_scalar(0.5);
    NdArray *scaled = nd_mul(xs[0], half);
    NdArray *y = nd_tanh(scaled);
    nd_imul(y, half);           /* * 0.5 and + 0.5 as NumPy rounds */
    nd_iadd(y, half);           /* them, in tanh's array: no copies */
    ys[0] = y;
    nd_release(scaled);
    nd_release(half);
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
    gxs[0] = F_mul(F_mul(gys[0], y), F_sub(1, y));     /* gy y (1 - y) */
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
    NdArray *n = nd_scalar_of(ND_INT64, (double)diff->shape[0]);
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
