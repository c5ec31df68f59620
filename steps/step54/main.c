/* Step 54: dropout and test mode.
 *
 * Python's step54.py: dropout on five ones, once as in training, where
 * each element is dropped with probability 0.5 and those kept are
 * doubled, and once in test mode, where dropout lets x through as it
 * is. DEZERO_SEED=N seeds the generator as np.random.seed(N) would, so
 * that the elements dropped can be repeated (unset: unseeded, as the
 * book is, and each run drops others). */
#include <stdlib.h>

#include "dezero.h"

int main(void)
{
    nd_random_seed_from_env("DEZERO_SEED");
    Pool *pool = pool_new();

    NdArray *x = nd_ones(ND_FLOAT64, ND_SHAPE(5));     // (5,)
    nd_print(x);

    // When training
    Variable *y = F_dropout(x, 0.5);
    variable_print(y);

    // When testing (predicting)
    TEST_MODE {
        y = F_dropout(x, 0.5);
        variable_print(y);
    }

    nd_release(x);
    pool_drain(pool);
    return EXIT_SUCCESS;
}
