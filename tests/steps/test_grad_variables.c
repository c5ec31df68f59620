// FIRST_STEP: 32
/* test_grad_variables.c - gradients are Variables (step 32; until step
 * 31 see test_grad_accumulation.c): a variable holds a reference to its
 * gradient, gradients of a variable used more than once add up into a
 * new Variable rather than into one another variable shares, and
 * cleargrad releases them. */
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

/* The gradient is a Variable of its own (a plain one: no graph was
 * asked for), and the seed of backward is one of ones. */
static void test_gradient_is_a_variable(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    Variable *y = F_square(x);
    backward(y, .retain_grad = true);
    assert_non_null(x->grad);
    assert_null(x->grad->creator);
    assert_null(x->grad->grad);
    EXPECT_ARRAY(x->grad->data, ND_FLOAT64, ND_SCALAR_SHAPE, 6.0);
    EXPECT_ARRAY(y->grad->data, ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
    char *text = variable_repr(x->grad);
    assert_string_equal(text, "variable(6.0)");
    free(text);
}

/* Add hands y's gradient itself to x, twice. Adding the second into the
 * first in place would change y's gradient too; the sum must be a new
 * Variable. */
static void test_sum_is_a_new_variable(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    Variable *y = F_add(x, x);
    Variable *seed = variable(nd_scalar(1.0));
    y->grad = retain(seed);
    backward(y);
    EXPECT_ARRAY(seed->data, ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 2.0);
    assert_ptr_not_equal(x->grad, seed);
    assert_int_equal(seed->object.refcount, 1);     /* the pool's */
}

/* Used once, a variable may share its gradient: nothing is copied, and
 * each holder has a reference; so has the pool, once for the test's
 * variable and once for each input that keeps the gradient at the end
 * of the pass. */
static void test_single_use_shares(void **state)
{
    (void)state;
    Variable *a = variable(nd_scalar(1.0)), *b = variable(nd_scalar(2.0));
    Variable *y = F_add(a, b);
    Variable *seed = variable(nd_scalar(1.0));
    y->grad = retain(seed);
    backward(y);
    assert_ptr_equal(a->grad, seed);
    assert_ptr_equal(b->grad, seed);
    assert_null(y->grad);               /* dropped: not retained */
    assert_int_equal(seed->object.refcount, 5);     /* pool 3, a, b */
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

/* cleargrad drops x's reference: the gradient lives on while its pool
 * holds it, and is freed with the pool. */
static void test_cleargrad_releases(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    cleargrad(x);               /* no gradient yet: nothing to do */
    assert_null(x->grad);
    int variables = variables_alive;
    Pool *pool = pool_new();
    backward(F_square(x));
    Variable *gx = x->grad;
    assert_non_null(gx);
    assert_int_equal(gx->object.refcount, 2);       /* pool, x */
    cleargrad(x);
    assert_null(x->grad);
    assert_int_equal(gx->object.refcount, 1);       /* pool */
    pool_drain(pool);
    assert_int_equal(variables_alive, variables);
}

/* A gradient made in an inner pool outlives it: x holds it. */
static void test_gradient_outlives_its_pool(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    Pool *pool = pool_new();
    backward(F_square(x));
    pool_drain(pool);
    assert_int_equal(x->grad->object.refcount, 1);  /* x */
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
        STEP_TEST(test_gradient_is_a_variable),
        STEP_TEST(test_sum_is_a_new_variable),
        STEP_TEST(test_single_use_shares),
        STEP_TEST(test_backward_twice_accumulates),
        STEP_TEST(test_two_paths),
        STEP_TEST(test_cleargrad_releases),
        STEP_TEST(test_gradient_outlives_its_pool),
        STEP_TEST(test_integer_gradients_stay_integer),
    };
    return cmocka_run_group_tests_name("grad_variables", tests, NULL,
                                       NULL);
}
