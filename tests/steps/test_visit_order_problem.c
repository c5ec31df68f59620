// FIRST_STEP: 15
// LAST_STEP: 15
/* test_visit_order_problem.c - what step 15 shows: with functions taken
 * from a plain stack, a function can run before all of its output's
 * gradient has arrived, and then run again. The wrong value is the
 * point of the step, and step 16's test checks the right one. */
#include "pool_fixture.h"

static void test_diamond_gives_96(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    Variable *a = F_square(x);
    Variable *b = F_square(a), *c = F_square(a);
    Variable *y = F_add(b, c);
    backward(y);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 32.0);
    /* a's own gradient is complete: 2a from each branch */
    EXPECT_ARRAY(a->grad, ND_FLOAT64, ND_SCALAR_SHAPE, 16.0);
    /* but a's creator ran twice, first with half of it:
     * 2x * 8 + 2x * 16 = 32 + 64 */
    EXPECT_ARRAY(x->grad, ND_FLOAT64, ND_SCALAR_SHAPE, 96.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_diamond_gives_96),
    };
    return cmocka_run_group_tests_name("visit_order_problem", tests, NULL,
                                       NULL);
}
