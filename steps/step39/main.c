/* Step 39: the sum function.
 *
 * Sum adds the elements of x, all of them or along some axes; its
 * backward hands every element of x the gradient of the element of y
 * it went into, by broadcasting gy back to x's shape. The last lines
 * sum random numbers and print only the shape of the result, as the
 * Python script does (its numbers are unseeded). */
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

/* Prints x's shape as Python prints a tuple: (1, 1, 1, 1). */
static void print_shape(const Variable *x)
{
    char *text = nd_shape_str(x->data);
    puts(text);
    free(text);
}

int main(void)
{
    Pool *pool = pool_new();
    Variable *x = variable(nd_from_buffer(ND_INT64, ND_SHAPE(6),
                                          (int64_t[]){1, 2, 3, 4, 5, 6}));
    Variable *y = F_sum(x, ND_ALL_AXES, false);         /* F.sum(x) */
    backward(y);
    variable_print(y);
    variable_print(x->grad);

    x = variable(nd_from_buffer(ND_INT64, ND_SHAPE(2, 3),
                                (int64_t[]){1, 2, 3, 4, 5, 6}));
    y = F_sum(x, ND_ALL_AXES, false);
    backward(y);
    variable_print(y);
    variable_print(x->grad);

    x = variable(nd_from_buffer(ND_INT64, ND_SHAPE(2, 3),
                                (int64_t[]){1, 2, 3, 4, 5, 6}));
    y = F_sum(x, ND_AXES(0), false);                    /* axis=0 */
    backward(y);
    variable_print(y);
    variable_print(x->grad);

    x = variable(nd_random_randn(ND_SHAPE(2, 3, 4, 5)));
    y = F_sum(x, ND_ALL_AXES, true);            /* x.sum(keepdims=True) */
    print_shape(y);
    pool_drain(pool);
    return 0;
}
