/* Step 33: optimization with Newton's method (automatic).
 *
 * Newton's method finds the minimum of y = x^4 - 2x^2 from x = 2, as in
 * step 29, but the second derivative is no longer written by hand:
 * backward with .create_graph records how it computed the first
 * derivative, and a second backward, through that record, gives the
 * second. */
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

/* y = x^4 - 2x^2, lowest at x = -1 and x = 1. */
static Variable *f(Variable *x)
{
    return F_sub(F_pow(x, 4), F_mul(2, F_pow(x, 2)));
}

/* One Newton step: x -= f'(x) / f''(x), into x's own array (Python:
 * x.data -= gx.data / gx2.data). */
static void newton_step(Variable *x, const Variable *gx,
                        const Variable *gx2)
{
    NdArray *step = nd_div(gx->data, gx2->data);
    nd_isub(x->data, step);
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

        Pool *step_pool = pool_new();       /* this iteration's graphs */
        Variable *y = f(x);
        cleargrad(x);
        backward(y, .create_graph = true);  /* x->grad = f'(x), a graph */

        Variable *gx = x->grad;             /* the pool keeps it alive */
        cleargrad(x);                       /* start f'' from nothing */
        backward(gx);                       /* x->grad = f''(x) */
        Variable *gx2 = x->grad;

        newton_step(x, gx, gx2);
        pool_drain(step_pool);
    }
    pool_drain(pool);
    return 0;
}
