/* Step 41: the matrix product.
 *
 * MatMul multiplies a (2, 3) matrix by a (3, 4) one; its backward gives
 * each operand a gradient of its own shape, gy W^T and x^T gy. The
 * numbers are unseeded random ones, as in Python, so the program
 * prints only the two shapes. */
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

/* Prints x's shape as Python prints a tuple: (2, 3). */
static void print_shape(const Variable *x)
{
    char *text = nd_shape_str(x->data);
    puts(text);
    free(text);
}

int main(void)
{
    Pool *pool = pool_new();
    Variable *x = variable(nd_random_randn(ND_SHAPE(2, 3)));
    Variable *w = variable(nd_random_randn(ND_SHAPE(3, 4)));
    Variable *y = F_matmul(x, w);                       // (2, 4)
    backward(y);

    print_shape(x->grad);                               // x.grad.shape
    print_shape(w->grad);
    pool_drain(pool);
    return 0;
}
