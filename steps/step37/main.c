/* Step 37: handling tensors.
 *
 * Every function so far works element by element, so it takes arrays
 * of any shape as it takes 0-d ones, and backward, seeded with "ones
 * like y", gives each variable a gradient of its own shape and dtype:
 * here int64 matrices, as the inputs are. The Python script adds up
 * t = x + c with F.sum, which the book writes only in step 39; this
 * program defines a sum of its own, as step 27 defined its own Sin. */
#include "dezero.h"

/* ---- SumAll: y = the sum of every element of x, dy/dx = ones */

static void sum_all_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_sum(xs[0], ND_ALL_AXES, false);  /* () */
}

/* Each element of x adds once to y, so each gets gy: gy times ones of
 * x's shape and dtype (Mul broadcasts the 0-d gy over them). */
static void sum_all_backward(Function *self, Variable *gys[],
                             Variable *gxs[])
{
    Variable *x = self->inputs[0];
    gxs[0] = F_mul(gys[0], variable(nd_ones_like(x->data)));
}

static const FunctionClass sum_all_class = {
    .name = "SumAll",
    .noutputs = 1,
    .forward = sum_all_forward,
    .backward = sum_all_backward,
};

/* y = the sum of x's elements, a 0-d Variable (Python: F.sum(x)). */
static Variable *sum_all(Variable *x)
{
    return function_call(function_new(&sum_all_class), x);
}

int main(void)
{
    Pool *pool = pool_new();
    Variable *x = variable(nd_from_buffer(ND_INT64, ND_SHAPE(2, 3),
                                          (int64_t[]){1, 2, 3, 4, 5, 6}));
    Variable *c = variable(nd_from_buffer(ND_INT64, ND_SHAPE(2, 3),
                                          (int64_t[]){10, 20, 30,
                                                      40, 50, 60}));
    Variable *t = F_add(x, c);                  /* (2, 3) */
    Variable *y = sum_all(t);                   /* () */

    backward(y, .retain_grad = true);
    variable_print(y->grad);
    variable_print(t->grad);
    variable_print(x->grad);
    variable_print(c->grad);
    pool_drain(pool);
    return 0;
}
