/* Step 38: functions that change shape.
 *
 * Reshape and Transpose move elements without computing anything, so
 * their backward moves the gradient back: reshaped to x's shape, or
 * transposed by the inverse permutation. Each gradient printed has the
 * shape of its variable, (2, 3), though y is (6,) or (3, 2). */
#include "dezero.h"

int main(void)
{
    Pool *pool = pool_new();
    Variable *x = variable(nd_from_buffer(ND_INT64, ND_SHAPE(2, 3),
                                          (int64_t[]){0, 1, 2, 3, 4, 5}));
    Variable *y = F_reshape(x, ND_SHAPE(6));    /* y = x.reshape(6) */
    backward(y, .retain_grad = true);
    variable_print(x->grad);

    x = variable(nd_from_buffer(ND_INT64, ND_SHAPE(2, 3),
                                (int64_t[]){1, 2, 3, 4, 5, 6}));
    y = F_transpose(x, 0, NULL);                /* y = x.T, (3, 2) */
    backward(y);
    variable_print(x->grad);
    pool_drain(pool);
    return 0;
}
