/* Step 30: higher-order derivatives (preparation).
 *
 * The code does not change: this is step 29's Newton's method, whose
 * second derivative is still written by hand. The chapter looks at what
 * a backward pass keeps of its own computations (nothing) and what it
 * would need to keep for the second derivative to come from backward
 * too. */
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

/* y = x^4 - 2x^2, lowest at x = -1 and x = 1. */
static Variable *f(Variable *x)
{
    return F_sub(F_pow(x, 4), F_mul(2, F_pow(x, 2)));
}

/* The second derivative of f, worked out by hand: 12x^2 - 4, computed
 * on the array x (Python: gx2(x.data)); a new array. */
static NdArray *gx2(const NdArray *x)
{
    NdArray *twelve = nd_scalar_of(ND_INT64, 12);   /* Python's int 12 */
    NdArray *four = nd_scalar_of(ND_INT64, 4);
    NdArray *x_squared = nd_mul(x, x);      /* x ** 2, as NumPy squares */
    NdArray *twelve_x_squared = nd_mul(twelve, x_squared);
    NdArray *result = nd_sub(twelve_x_squared, four);
    nd_release(twelve);
    nd_release(four);
    nd_release(x_squared);
    nd_release(twelve_x_squared);
    return result;
}

/* One Newton step: x -= f'(x) / f''(x), into x's own array (Python:
 * x.data -= x.grad / gx2(x.data)). */
static void newton_step(Variable *x)
{
    NdArray *curvature = gx2(x->data);
    NdArray *step = nd_div(x->grad, curvature);
    nd_isub(x->data, step);
    nd_release(curvature);
    nd_release(step);
}

int main(void)
{
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(2.0));
    int iters = 10;

    for (int i = 0; i < iters; i++) {
        char *text = variable_repr(x);
        printf("%d %s\n", i, text);         /* Python: print(i, x) */
        free(text);

        Pool *step_pool = pool_new();       /* this iteration's graph */
        Variable *y = f(x);
        cleargrad(x);
        backward(y);

        newton_step(x);
        pool_drain(step_pool);
    }
    pool_drain(pool);
    return 0;
}
