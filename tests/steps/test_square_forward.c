// FIRST_STEP: 02
// LAST_STEP: 10
/* test_square_forward.c - Square's forward, called through a Function
 * (step 02): the array is unwrapped, squared, and wrapped again. */
#include "step_under_test.h"

/* np.array(10) ** 2 is the int64 100, as step 02 prints. */
static void test_square_of_an_int64(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar_of(ND_INT64, 10));
    Variable *y = function_call(square_function(), x);
    EXPECT_ARRAY(y->data, ND_INT64, ND_SCALAR_SHAPE, 100);
}

static void test_square_of_a_float64(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(0.5));
    Variable *y = function_call(square_function(), x);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 0.25);
}

/* Elementwise, shape kept. */
static void test_square_of_an_array(void **state)
{
    (void)state;
    double values[] = {1.0, -2.0, 3.0};
    Variable *x = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3), values));
    Variable *y = function_call(square_function(), x);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SHAPE(3), 1.0, 4.0, 9.0);
}

/* The call makes a new Variable and a new array; the input is intact. */
static void test_call_wraps_a_new_variable(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    Function *f = square_function();
    Variable *y = function_call(f, x);
    assert_ptr_not_equal(y, x);
    assert_ptr_not_equal(y->data, x->data);
    EXPECT_ARRAY(x->data, ND_FLOAT64, ND_SCALAR_SHAPE, 3.0);
    assert_string_equal(f->cls->name, "Square");
}

/* One Function object can be called again, on another input. */
static void test_function_is_reusable(void **state)
{
    (void)state;
    Function *f = square_function();
    Variable *y1 = function_call(f, variable(nd_scalar(2.0)));
    Variable *y2 = function_call(f, variable(nd_scalar(5.0)));
    EXPECT_ARRAY(y1->data, ND_FLOAT64, ND_SCALAR_SHAPE, 4.0);
    EXPECT_ARRAY(y2->data, ND_FLOAT64, ND_SCALAR_SHAPE, 25.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_square_of_an_int64),
        cmocka_unit_test(test_square_of_a_float64),
        cmocka_unit_test(test_square_of_an_array),
        cmocka_unit_test(test_call_wraps_a_new_variable),
        cmocka_unit_test(test_function_is_reusable),
    };
    return cmocka_run_group_tests_name("square_forward", tests, NULL, NULL);
}
