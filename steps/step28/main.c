/* Step 28: function optimization.
 *
 * Gradient descent: the program looks for the minimum of the Rosenbrock
 * function by stepping from (0, 2) against the gradient, a thousand
 * times, updating the inputs' data in place, and prints where it is
 * before each step. */
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

/* Rosenbrock: y = 100 (x1 - x0^2)^2 + (x0 - 1)^2, a long, narrow, curved
 * valley whose lowest point is (1, 1). */
static Variable *rosenbrock(Variable *x0, Variable *x1)
{
    return F_add(F_mul(100, F_pow(F_sub(x1, F_pow(x0, 2)), 2)),
                 F_pow(F_sub(x0, 1), 2));
}

/* One step downhill: x -= lr * dy/dx, into x's own array (Python:
 * x.data -= lr * x.grad). */
static void descend(Variable *x, double lr)
{
    NdArray *rate = nd_scalar(lr);
    NdArray *step = nd_mul(rate, x->grad);
    nd_isub(x->data, step);
    nd_release(rate);
    nd_release(step);
}

/* Prints two variables on a line (Python: print(x0, x1)). */
static void print_pair(const Variable *x0, const Variable *x1)
{
    char *text0 = variable_repr(x0), *text1 = variable_repr(x1);
    printf("%s %s\n", text0, text1);
    free(text0);
    free(text1);
}

int main(void)
{
    Pool *pool = pool_new();
    Variable *x0 = variable(nd_scalar(0.0));
    Variable *x1 = variable(nd_scalar(2.0));
    int iters = 1000;
    double lr = 0.001;

    for (int i = 0; i < iters; i++) {
        print_pair(x0, x1);

        Pool *step_pool = pool_new();   /* this iteration's graph */
        Variable *y = rosenbrock(x0, x1);
        cleargrad(x0);
        cleargrad(x1);
        backward(y);

        descend(x0, lr);
        descend(x1, lr);
        pool_drain(step_pool);
    }
    pool_drain(pool);
    return 0;
}
