/* functions.c - the differentiable functions beyond arithmetic, as the
 * book's functions.py: Sin, Cos and Tanh. Each backward is written with
 * the framework's functions, like core.c's, so that it can be recorded
 * and differentiated again. */
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
Variable *F_sin(Variable *x)
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
Variable *F_cos(Variable *x)
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
Variable *F_tanh(Variable *x)
{
    return function_call(tanh_function(), x);
}
