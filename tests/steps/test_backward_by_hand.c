// FIRST_STEP: 06
// LAST_STEP: 10
/* test_backward_by_hand.c - each class's backward (step 06): given
 * dL/dy it returns dL/dx, reading the input its Function remembered. */
#include <math.h>

#include "step_under_test.h"

static void test_a_new_variable_has_no_grad(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(1.0));
    assert_null(x->grad);
}

static void test_function_remembers_its_input(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(1.0));
    Function *f = square_function();
    function_call(f, x);
    assert_ptr_equal(f->input, x);
}

/* d(x^2)/dx = 2x, times the incoming gradient. */
static void test_square_backward(void **state)
{
    (void)state;
    Function *f = square_function();
    function_call(f, variable(nd_scalar(3.0)));
    NdArray *one = nd_scalar(1.0), *half = nd_scalar(0.5);
    NdArray *gx = function_backward(f, one);
    NdArray *gx_half = function_backward(f, half);
    EXPECT_ARRAY(gx, ND_FLOAT64, ND_SCALAR_SHAPE, 6.0);
    EXPECT_ARRAY(gx_half, ND_FLOAT64, ND_SCALAR_SHAPE, 3.0);
    nd_release(one);
    nd_release(half);
    nd_release(gx);
    nd_release(gx_half);
}

/* d(e^x)/dx = e^x. */
static void test_exp_backward(void **state)
{
    (void)state;
    Function *f = exp_function();
    function_call(f, variable(nd_scalar(0.5)));
    NdArray *two = nd_scalar(2.0);
    NdArray *gx = function_backward(f, two);
    EXPECT_ARRAY(gx, ND_FLOAT64, ND_SCALAR_SHAPE, 2 * exp(0.5));
    nd_release(two);
    nd_release(gx);
}

/* Step 06's program: the chain rule applied by hand, last function
 * first, gives 4x e^(2x^2) at 0.5 (NumPy's value, to the last bit). */
static void test_chain_by_hand(void **state)
{
    (void)state;
    Function *A = square_function(), *B = exp_function();
    Function *C = square_function();
    Variable *x = variable(nd_scalar(0.5));
    Variable *a = function_call(A, x);
    Variable *b = function_call(B, a);
    Variable *y = function_call(C, b);
    y->grad = nd_scalar(1.0);
    b->grad = function_backward(C, y->grad);
    a->grad = function_backward(B, b->grad);
    x->grad = function_backward(A, a->grad);
    EXPECT_ARRAY(x->grad, ND_FLOAT64, ND_SCALAR_SHAPE, 3.297442541400256);
}

/* Square's backward multiplies by the int 2, as Python's 2 * x * gy:
 * an int64 x with a float64 gradient gives float64. */
static void test_square_backward_dtype(void **state)
{
    (void)state;
    Function *f = square_function();
    function_call(f, variable(nd_scalar_of(ND_INT64, 10)));
    NdArray *one = nd_scalar(1.0);
    NdArray *gx = function_backward(f, one);
    EXPECT_ARRAY(gx, ND_FLOAT64, ND_SCALAR_SHAPE, 20.0);
    nd_release(one);
    nd_release(gx);
}

/* Elementwise; a gradient whose shape does not fit is refused by the
 * array library, which names the shapes. */
static void test_backward_of_arrays(void **state)
{
    (void)state;
    double values[] = {1.0, 2.0, 3.0};
    Function *f = square_function();
    function_call(f, variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3),
                                             values)));
    NdArray *gy = nd_ones(ND_FLOAT64, ND_SHAPE(3));
    NdArray *gx = function_backward(f, gy);
    EXPECT_ARRAY(gx, ND_FLOAT64, ND_SHAPE(3), 2.0, 4.0, 6.0);
    NdArray *bad = nd_ones(ND_FLOAT64, ND_SHAPE(2));
    EXPECT_ND_ERROR(function_backward(f, bad), "could not be broadcast");
    nd_release(gy);
    nd_release(gx);
    nd_release(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_new_variable_has_no_grad),
        cmocka_unit_test(test_function_remembers_its_input),
        cmocka_unit_test(test_square_backward),
        cmocka_unit_test(test_exp_backward),
        cmocka_unit_test(test_chain_by_hand),
        cmocka_unit_test(test_square_backward_dtype),
        cmocka_unit_test(test_backward_of_arrays),
    };
    return cmocka_run_group_tests_name("backward_by_hand", tests, NULL,
                                       NULL);
}
