/* Step 23: the framework as a package.
 *
 * DeZero now lives in dezero/, a small library with one public header;
 * this program only uses it: y = (x + 3)^2 and its gradient at x = 1. */
#include "dezero.h"

int main(void)
{
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(1.0));
    Variable *y = F_pow(F_add(x, 3), 2);    /* Python: (x + 3) ** 2 */
    backward(y);
    variable_print(y);
    nd_print(x->grad);
    pool_drain(pool);
    return 0;
}
