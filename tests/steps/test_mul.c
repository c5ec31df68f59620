// FIRST_STEP: 20
/* test_mul.c - Mul (step 20): forward as np.multiply, backward giving
 * each input gy times the other, and expressions written as nested
 * calls, F_add(F_mul(a, b), c) for a * b + c. */
#include "pool_fixture.h"

/* Step 20's program. */
static void test_a_times_b_plus_c(void **state)
{
    (void)state;
    Variable *a = variable(nd_scalar(3.0));
    Variable *b = variable(nd_scalar(2.0));
    Variable *c = variable(nd_scalar(1.0));
    Variable *y = F_add(F_mul(a, b), c);
    backward(y);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 7.0);
    EXPECT_ARRAY(grad_array(a), ND_FLOAT64, ND_SCALAR_SHAPE, 2.0);
    EXPECT_ARRAY(grad_array(b), ND_FLOAT64, ND_SCALAR_SHAPE, 3.0);
    EXPECT_ARRAY(grad_array(c), ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
    assert_string_equal(y->creator->inputs[0]->creator->cls->name, "Mul");
}

static void test_elementwise(void **state)
{
    (void)state;
    double u[] = {1.0, 2.0, 3.0}, v[] = {4.0, 5.0, 6.0};
    Variable *a = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3), u));
    Variable *b = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3), v));
    Variable *y = F_mul(a, b);
    backward(y);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SHAPE(3), 4.0, 10.0, 18.0);
    EXPECT_ARRAY(grad_array(a), ND_FLOAT64, ND_SHAPE(3), 4.0, 5.0, 6.0);
    EXPECT_ARRAY(grad_array(b), ND_FLOAT64, ND_SHAPE(3), 1.0, 2.0, 3.0);
}

/* x * x: both gradients go to x and add up, 2x. */
static void test_square_by_mul(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(5.0));
    backward(F_mul(x, x));
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 10.0);
}

static void test_integers_stay_integers(void **state)
{
    (void)state;
    Variable *a = variable(nd_scalar_of(ND_INT64, 3));
    Variable *b = variable(nd_scalar_of(ND_INT64, 4));
    Variable *y = F_mul(a, b);
    backward(y);
    EXPECT_ARRAY(y->data, ND_INT64, ND_SCALAR_SHAPE, 12);
    EXPECT_ARRAY(grad_array(a), ND_INT64, ND_SCALAR_SHAPE, 4);
}

/* y = x * (x + 1) agrees with the central difference: 2x + 1. */
static Variable *x_times_x_plus_one(Variable *x)
{
    return F_mul(x, F_add(x, variable(nd_scalar(1.0))));
}

static void test_gradient_check(void **state)
{
    (void)state;
    double values[] = {0.5, -2.0, 3.25};
    Variable *x = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3), values));
    backward(x_times_x_plus_one(x));
    NdArray *num = numerical_diff(x_times_x_plus_one, x, 1e-4);
    EXPECT_ALLCLOSE(grad_array(x), num, 1e-5, 1e-8);
    EXPECT_ARRAY_CLOSE(grad_array(x), ND_FLOAT64, 1e-15, ND_SHAPE(3), 2.0, -3.0,
                       7.5);
    nd_release(num);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_a_times_b_plus_c),
        STEP_TEST(test_elementwise),
        STEP_TEST(test_square_by_mul),
        STEP_TEST(test_integers_stay_integers),
        STEP_TEST(test_gradient_check),
    };
    return cmocka_run_group_tests_name("mul", tests, NULL, NULL);
}
