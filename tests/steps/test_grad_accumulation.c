// FIRST_STEP: 14
// LAST_STEP: 31
/* test_grad_accumulation.c - a variable used more than once (step 14):
 * its gradients add up, into a new array rather than into one another
 * variable shares, and cleargrad forgets them.
 * Until step 31, where gradients are arrays; from step 32 see
 * test_grad_variables.c. */
#include "pool_fixture.h"

/* Step 14's program. */
static void test_x_plus_x_and_x_plus_x_plus_x(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    backward(F_add(x, x));
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 2.0);
    cleargrad(x);
    backward(F_add(F_add(x, x), x));
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 3.0);
}

/* Add hands y's gradient itself to x, twice. Adding the second into the
 * first in place would change y's gradient too; the sum must be a new
 * array. */
static void test_sum_is_a_new_array(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    Variable *y = F_add(x, x);
    NdArray *seed = nd_scalar(1.0);
    y->grad = nd_retain(seed);
    backward(y);
    EXPECT_ARRAY(seed, ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 2.0);
    assert_ptr_not_equal(grad_array(x), seed);
    nd_release(seed);
}

/* Used once, a variable may share its gradient: nothing is copied. */
static void test_single_use_shares(void **state)
{
    (void)state;
    Variable *a = variable(nd_scalar(1.0)), *b = variable(nd_scalar(2.0));
    Variable *y = F_add(a, b);
    NdArray *seed = nd_scalar(1.0);
    y->grad = nd_retain(seed);
    backward(y);
    assert_ptr_equal(grad_array(a), seed);
    assert_ptr_equal(grad_array(b), seed);
    nd_release(seed);
}

/* Without cleargrad a second backward adds to the first. */
static void test_backward_twice_accumulates(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    Variable *y = F_add(x, x);
    backward(y);
    backward(y);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 4.0);
}

/* x used in two different functions: x^2 + x has gradient 2x + 1. */
static void test_two_paths(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    backward(F_add(F_square(x), x));
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 7.0);
}

static void test_cleargrad(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    cleargrad(x);               /* no gradient yet: nothing to do */
    assert_null(grad_array(x));
    backward(F_square(x));
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 6.0);
    cleargrad(x);
    assert_null(grad_array(x));
    /* after cleargrad a backward starts from nothing: 6, not 12 */
    backward(F_square(x));
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 6.0);
}

/* Gradients add with NumPy's promotion: int64 + int64 stays int64. */
static void test_integer_gradients_stay_integer(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar_of(ND_INT64, 3));
    backward(F_add(F_add(x, x), x));
    EXPECT_ARRAY(grad_array(x), ND_INT64, ND_SCALAR_SHAPE, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_x_plus_x_and_x_plus_x_plus_x),
        STEP_TEST(test_sum_is_a_new_array),
        STEP_TEST(test_single_use_shares),
        STEP_TEST(test_backward_twice_accumulates),
        STEP_TEST(test_two_paths),
        STEP_TEST(test_cleargrad),
        STEP_TEST(test_integer_gradients_stay_integer),
    };
    return cmocka_run_group_tests_name("grad_accumulation", tests, NULL,
                                       NULL);
}
