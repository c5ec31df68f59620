// FIRST_STEP: 12
/* test_function_call.c - calling a Function (step 12): function_call
 * lists its inputs, function_apply takes them as an array, and both give
 * back the first output; F_add. */
#include "pool_fixture.h"

/* Step 12's program: np.array(2) + np.array(3) is the int64 5. */
static void test_F_add_of_two_int64(void **state)
{
    (void)state;
    Variable *x0 = variable(nd_scalar_of(ND_INT64, 2));
    Variable *x1 = variable(nd_scalar_of(ND_INT64, 3));
    Variable *y = F_add(x0, x1);
    EXPECT_ARRAY(y->data, ND_INT64, ND_SCALAR_SHAPE, 5);
}

static void test_call_records_its_inputs_and_output(void **state)
{
    (void)state;
    Variable *x0 = variable(nd_scalar(1.0)), *x1 = variable(nd_scalar(2.0));
    Function *f = add_function();
    Variable *y = function_call(f, x0, x1);
    assert_int_equal(f->ninputs, 2);
    assert_ptr_equal(f->inputs[0], x0);
    assert_ptr_equal(f->inputs[1], x1);
    assert_int_equal(f->noutputs, 1);
    assert_ptr_equal(f->outputs[0], y);
    assert_ptr_equal(y->creator, f);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 3.0);
}

/* The array form, for inputs that are already in an array. */
static void test_apply_takes_an_array(void **state)
{
    (void)state;
    Variable *xs[] = {variable(nd_scalar(1.5)), variable(nd_scalar(2.0))};
    Function *f = add_function();
    Variable *y = function_apply(f, 2, xs);
    xs[0] = xs[1] = NULL;       /* f kept a copy */
    assert_non_null(f->inputs[0]);
    assert_non_null(f->inputs[1]);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 3.5);
}

/* The macro names each argument twice, once inside sizeof, where it is
 * not evaluated: a call with side effects happens once. */
static int calls;

static Variable *counted_variable(double value)
{
    calls++;
    return variable(nd_scalar(value));
}

static void test_arguments_are_evaluated_once(void **state)
{
    (void)state;
    calls = 0;
    Variable *y = function_call(add_function(), counted_variable(1.0),
                                counted_variable(2.0));
    assert_int_equal(calls, 2);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 3.0);
    assert_int_equal(VARIABLE_COUNT(y, y, y), 3);
}

/* The same Variable may be both inputs. */
static void test_same_variable_twice(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    Variable *y = F_add(x, x);
    assert_ptr_equal(y->creator->inputs[0], x);
    assert_ptr_equal(y->creator->inputs[1], x);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 6.0);
}

/* A class with two outputs: the call returns the first; f->outputs
 * has both. */
static void sum_and_product_forward(Function *self, NdArray *xs[],
                                    NdArray *ys[])
{
    (void)self;
    ys[0] = nd_add(xs[0], xs[1]);
    ys[1] = nd_mul(xs[0], xs[1]);
}

static const FunctionClass sum_and_product_class = {
    .name = "SumAndProduct",
    .noutputs = 2,
    .forward = sum_and_product_forward,
};

static void test_two_outputs(void **state)
{
    (void)state;
    Function *f = function_new(&sum_and_product_class);
    Variable *y = function_call(f, variable(nd_scalar(3.0)),
                                variable(nd_scalar(4.0)));
    assert_int_equal(f->noutputs, 2);
    assert_ptr_equal(f->outputs[0], y);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 7.0);
    EXPECT_ARRAY(f->outputs[1]->data, ND_FLOAT64, ND_SCALAR_SHAPE, 12.0);
    assert_ptr_equal(f->outputs[1]->creator, f);
}

/* Add broadcasts, and promotes as NumPy does. */
static void test_add_broadcasts_and_promotes(void **state)
{
    (void)state;
    float row[] = {1.0f, 2.0f};
    Variable *a = variable(nd_from_buffer(ND_FLOAT32, ND_SHAPE(2), row));
    Variable *b = variable(nd_ones(ND_INT64, ND_SHAPE(3, 1)));
    Variable *y = F_add(a, b);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SHAPE(3, 2), 2, 3, 2, 3, 2, 3);
}

static void test_misuse(void **state)
{
    (void)state;
    EXPECT_ND_ERROR(function_apply(add_function(), 0, NULL),
                    "function_apply: Add needs at least one input and one "
                    "output, got 0 and 1");
    static const FunctionClass no_outputs = {.name = "Broken"};
    Variable *x = variable(nd_scalar(1.0));
    EXPECT_ND_ERROR(function_call(function_new(&no_outputs), x),
                    "function_apply: Broken needs at least one input and "
                    "one output, got 1 and 0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_F_add_of_two_int64),
        STEP_TEST(test_call_records_its_inputs_and_output),
        STEP_TEST(test_apply_takes_an_array),
        STEP_TEST(test_arguments_are_evaluated_once),
        STEP_TEST(test_same_variable_twice),
        STEP_TEST(test_two_outputs),
        STEP_TEST(test_add_broadcasts_and_promotes),
        STEP_TEST(test_misuse),
    };
    return cmocka_run_group_tests_name("function_call", tests, NULL, NULL);
}
