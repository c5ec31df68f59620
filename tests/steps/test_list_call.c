// FIRST_STEP: 11
// LAST_STEP: 11
/* test_list_call.c - step 11's Function: an array of inputs in, an
 * array of outputs back (Python's f(inputs) with lists), and Add. */
#include "step_under_test.h"

/* Step 11's program: np.array(2) + np.array(3) is the int64 5. */
static void test_add_of_two_int64(void **state)
{
    (void)state;
    Variable *xs[] = {variable(nd_scalar_of(ND_INT64, 2)),
                      variable(nd_scalar_of(ND_INT64, 3))};
    Variable **ys = function_call(add_function(), 2, xs);
    EXPECT_ARRAY(ys[0]->data, ND_INT64, ND_SCALAR_SHAPE, 5);
}

/* Add broadcasts as np.add does. */
static void test_add_broadcasts(void **state)
{
    (void)state;
    double row[] = {1.0, 2.0, 3.0};
    Variable *xs[] = {variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3), row)),
                      variable(nd_scalar(10.0))};
    Variable **ys = function_call(add_function(), 2, xs);
    EXPECT_ARRAY(ys[0]->data, ND_FLOAT64, ND_SHAPE(3), 11.0, 12.0, 13.0);
}

/* The call links everything: f keeps its inputs (a copy of the array,
 * so the caller's array may change or go) and owns its outputs. */
static void test_links_of_a_call(void **state)
{
    (void)state;
    Variable *x0 = variable(nd_scalar(1.0)), *x1 = variable(nd_scalar(2.0));
    Variable *xs[] = {x0, x1};
    Function *f = add_function();
    Variable **ys = function_call(f, 2, xs);
    xs[0] = xs[1] = NULL;
    assert_int_equal(f->ninputs, 2);
    assert_ptr_equal(f->inputs[0], x0);
    assert_ptr_equal(f->inputs[1], x1);
    assert_int_equal(f->noutputs, 1);
    assert_ptr_equal(f->outputs, ys);
    assert_ptr_equal(ys[0]->creator, f);
}

/* A class with two outputs, written here: y0 = x + x, y1 = x * x. */
static void twice_and_square_forward(Function *self, NdArray *xs[],
                                     NdArray *ys[])
{
    (void)self;
    ys[0] = nd_add(xs[0], xs[0]);
    ys[1] = nd_mul(xs[0], xs[0]);
}

static const FunctionClass twice_and_square_class = {
    .name = "TwiceAndSquare",
    .noutputs = 2,
    .forward = twice_and_square_forward,
};

static void test_two_outputs(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    Function *f = function_new(&twice_and_square_class);
    Variable **ys = function_call(f, 1, &x);
    assert_int_equal(f->noutputs, 2);
    EXPECT_ARRAY(ys[0]->data, ND_FLOAT64, ND_SCALAR_SHAPE, 6.0);
    EXPECT_ARRAY(ys[1]->data, ND_FLOAT64, ND_SCALAR_SHAPE, 9.0);
    assert_ptr_equal(ys[0]->creator, f);
    assert_ptr_equal(ys[1]->creator, f);
}

/* One-input functions still chain and backpropagate: step 09's value. */
static void test_chain_still_backpropagates(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(0.5));
    Variable *y = F_square(F_exp(F_square(x)));
    backward(y);
    EXPECT_ARRAY(x->grad, ND_FLOAT64, ND_SCALAR_SHAPE, 3.297442541400256);
}

static void test_misuse(void **state)
{
    (void)state;
    EXPECT_ND_ERROR(function_call(add_function(), 0, NULL),
                    "function_call: Add needs at least one input and one "
                    "output, got 0 and 1");
    static const FunctionClass no_outputs = {.name = "Broken"};
    Variable *x = variable(nd_scalar(1.0));
    EXPECT_ND_ERROR(function_call(function_new(&no_outputs), 1, &x),
                    "got 1 and 0");
    /* Add's backward is step 13's */
    EXPECT_ND_ERROR(function_backward(add_function(), x->data),
                    "function_backward: Add has no backward");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_of_two_int64),
        cmocka_unit_test(test_add_broadcasts),
        cmocka_unit_test(test_links_of_a_call),
        cmocka_unit_test(test_two_outputs),
        cmocka_unit_test(test_chain_still_backpropagates),
        cmocka_unit_test(test_misuse),
    };
    return cmocka_run_group_tests_name("list_call", tests, NULL, NULL);
}
