/* Step 36: uses of double backprop beyond higher-order derivatives.
 *
 * A gradient recorded with create_graph is a Variable like any other,
 * so it can enter a new expression: here z = (dy/dx)^3 + y with
 * y = x^2, differentiated at x = 2: z = 8x^3 + x^2, so dz/dx =
 * 24x^2 + 2x = 100. */
#include "dezero.h"

int main(void)
{
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(2.0));
    Variable *y = F_pow(x, 2);
    backward(y, .create_graph = true);
    Variable *gx = x->grad;             /* 2x, with its graph */
    cleargrad(x);

    Variable *z = F_add(F_pow(gx, 3), y);
    backward(z);
    variable_print(x->grad);
    pool_drain(pool);
    return 0;
}
