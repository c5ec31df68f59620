// FIRST_STEP: 03
// LAST_STEP: 10
/* test_exp_forward.c - Exp's forward, and functions chained (step 03):
 * one function's output Variable is the next one's input. */
#include "step_under_test.h"

static void test_exp_values(void **state)
{
    (void)state;
    double values[] = {0.0, 1.0, -1.0};
    Variable *x = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3), values));
    Variable *y = function_call(exp_function(), x);
    /* np.exp([0., 1., -1.]); libm and NumPy may differ in the last bit */
    EXPECT_ARRAY_CLOSE(y->data, ND_FLOAT64, 1e-15, ND_SHAPE(3), 1.0,
                       2.718281828459045, 0.3678794411714424);
}

/* np.exp of an integer array is float64. */
static void test_exp_of_an_int64_is_float64(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar_of(ND_INT64, 0));
    Variable *y = function_call(exp_function(), x);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
}

/* Step 03's program: (e^(0.5^2))^2, as NumPy computes it. */
static void test_square_exp_square_chain(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(0.5));
    Variable *a = function_call(square_function(), x);
    Variable *b = function_call(exp_function(), a);
    Variable *y = function_call(square_function(), b);
    EXPECT_ARRAY(a->data, ND_FLOAT64, ND_SCALAR_SHAPE, 0.25);
    EXPECT_ARRAY(b->data, ND_FLOAT64, ND_SCALAR_SHAPE, 1.2840254166877414);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 1.648721270700128);
}

static void test_exp_class_name(void **state)
{
    (void)state;
    assert_string_equal(exp_function()->cls->name, "Exp");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exp_values),
        cmocka_unit_test(test_exp_of_an_int64_is_float64),
        cmocka_unit_test(test_square_exp_square_chain),
        cmocka_unit_test(test_exp_class_name),
    };
    return cmocka_run_group_tests_name("exp_forward", tests, NULL, NULL);
}
