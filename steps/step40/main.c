/* Step 40: functions that broadcast.
 *
 * Add, Sub, Mul and Div compute with NumPy's broadcasting: [1 2 3] +
 * [10] adds 10 to each element. Their backward now gives each input a
 * gradient of its own shape, summed over the places broadcasting copied
 * it to: x1, used three times, gets 3. */
#include <stdint.h>

#include "dezero.h"

int main(void)
{
    Pool *pool = pool_new();
    Variable *x0 = variable(nd_from_buffer(ND_INT64, ND_SHAPE(3),
                                           (int64_t[]){1, 2, 3}));
    Variable *x1 = variable(nd_from_buffer(ND_INT64, ND_SHAPE(1),
                                           (int64_t[]){10}));
    Variable *y = F_add(x0, x1);        // (3,): x1 broadcast
    variable_print(y);

    backward(y);
    variable_print(x1->grad);           // (1,): x1's own shape
    pool_drain(pool);
    return 0;
}
