/* Step 32: higher-order derivatives (implementation).
 *
 * Newton's method finds the minimum of y = x^4 - 2x^2 from x = 2 in a
 * few steps, where gradient descent takes hundreds: each step divides
 * the first derivative, which backward computes, by the second, which
 * is written here by hand (step 33 will compute it too). From this
 * step on the gradient is a Variable: the update reads its array. */
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
 * x.data -= x.grad.data / gx2(x.data)); the gradient is a Variable. */
static void newton_step(Variable *x)
{
    NdArray *curvature = gx2(x->data);
    NdArray *step = nd_div(x->grad->data, curvature);
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
