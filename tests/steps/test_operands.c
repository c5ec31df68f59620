// FIRST_STEP: 21
/* test_operands.c - operands of any kind (step 21): as_variable turns a
 * Variable, an array or a number into a Variable, chosen by _Generic on
 * the operand's type, so F_add and F_mul take them on either side; and
 * numbers follow NumPy's value-based casting. */
#include "pool_fixture.h"

/* Step 21's program. */
static void test_step21_program(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    NdArray *three = nd_scalar(3.0);
    Variable *y = F_add(x, three);
    nd_release(three);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 5.0);
    EXPECT_ARRAY(F_add(x, 3.0)->data, ND_FLOAT64, ND_SCALAR_SHAPE, 5.0);
    y = F_add(F_mul(3.0, x), 1.0);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 7.0);
    backward(y);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 3.0);
}

static void test_as_variable_cases(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    assert_ptr_equal(as_variable(x), x);

    NdArray *a = nd_scalar(1.5);
    Variable *va = as_variable(a);
    assert_ptr_equal(va->data, a);              /* shared, not copied */
    assert_int_equal(a->refcount, 2);
    const NdArray *ca = a;
    assert_ptr_equal(as_variable(ca)->data, a);
    nd_release(a);

    EXPECT_ARRAY(as_variable(2.5)->data, ND_FLOAT64, ND_SCALAR_SHAPE, 2.5);
    EXPECT_ARRAY(as_variable(7)->data, ND_INT64, ND_SCALAR_SHAPE, 7);
    EXPECT_ARRAY(as_variable(-7L)->data, ND_INT64, ND_SCALAR_SHAPE, -7);
    int64_t big = 1LL << 40;
    EXPECT_ARRAY(as_variable(big)->data, ND_INT64, ND_SCALAR_SHAPE,
                 1099511627776.0);
}

/* A number on the left is as good as on the right. */
static void test_numbers_on_either_side(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    EXPECT_ARRAY(F_add(1.0, x)->data, ND_FLOAT64, ND_SCALAR_SHAPE, 3.0);
    EXPECT_ARRAY(F_mul(x, 4)->data, ND_FLOAT64, ND_SCALAR_SHAPE, 8.0);
    Variable *y = F_mul(F_add(x, 1), F_add(2, x));    /* (x+1)(x+2) */
    backward(y);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 12.0);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 7.0);  /* 2x+3 */
}

/* Each operand is evaluated once. */
static int calls;

static Variable *counted(double value)
{
    calls++;
    return variable(nd_scalar(value));
}

/* The inputs in Python's order: 3.0 * x is x.__rmul__(3.0), that is
 * mul(x, 3.0), and 1 + x is add(x, 1), so x is the first input; with a
 * Variable on the left, or for Sub and Div (whose reflected methods keep
 * the order), the left operand is. */
static void test_inputs_in_python_order(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    NdArray *a = nd_scalar(4.0);
    Variable *ys[] = {F_mul(3.0, x), F_mul(a, x), F_add(1, x), F_add(a, x)};
    const double others[] = {3.0, 4.0, 1.0, 4.0};
    for (int k = 0; k < 4; k++) {
        assert_ptr_equal(ys[k]->creator->inputs[0], x);
        EXPECT_DOUBLE(nd_item(ys[k]->creator->inputs[1]->data), others[k]);
    }
#if STEP >= 22
    assert_ptr_equal(F_sub(1.0, x)->creator->inputs[1], x);
    assert_ptr_equal(F_div(1.0, x)->creator->inputs[1], x);
#endif
    Variable *y = variable(nd_scalar(5.0));
    assert_ptr_equal(F_mul(x, y)->creator->inputs[0], x);
    assert_ptr_equal(F_mul(y, x)->creator->inputs[0], y);
    assert_ptr_equal(F_add(x, 1.0)->creator->inputs[0], x);
    nd_release(a);
}

static void test_operands_evaluated_once(void **state)
{
    (void)state;
    calls = 0;
    Variable *y = F_mul(F_add(counted(1.0), 2.0), counted(3.0));
    assert_int_equal(calls, 2);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 9.0);
}

/* NumPy 1.x's value-based casting: a number does not widen an array of
 * its kind (float32 + 2.0 stays float32), an array does. */
static void test_value_based_casting(void **state)
{
    (void)state;
    float f[] = {1.5f, 2.5f};
    Variable *x32 = variable(nd_from_buffer(ND_FLOAT32, ND_SHAPE(2), f));
    EXPECT_ARRAY(F_add(x32, 2.0)->data, ND_FLOAT32, ND_SHAPE(2), 3.5, 4.5);
    EXPECT_ARRAY(F_mul(2, x32)->data, ND_FLOAT32, ND_SHAPE(2), 3.0, 5.0);
    NdArray *d0 = nd_scalar(2.0);               /* a 0-d array: weak too */
    EXPECT_ARRAY(F_add(x32, d0)->data, ND_FLOAT32, ND_SHAPE(2), 3.5, 4.5);
    nd_release(d0);
    NdArray *d1 = nd_full(ND_FLOAT64, ND_SHAPE(2), 2.0);
    EXPECT_ARRAY(F_add(x32, d1)->data, ND_FLOAT64, ND_SHAPE(2), 3.5, 4.5);
    nd_release(d1);

    Variable *i = variable(nd_scalar_of(ND_INT64, 3));
    EXPECT_ARRAY(F_add(i, 2)->data, ND_INT64, ND_SCALAR_SHAPE, 5);
    EXPECT_ARRAY(F_add(i, 2.5)->data, ND_FLOAT64, ND_SCALAR_SHAPE, 5.5);

    /* and the gradient of a float32 variable stays float32 */
    Variable *y = F_mul(x32, 3.0);
    backward(y);
    EXPECT_ARRAY(grad_array(x32), ND_FLOAT32, ND_SHAPE(2), 3.0, 3.0);
}

/* The functions behind the macros, for where a function is needed. */
static void test_plain_functions(void **state)
{
    (void)state;
    Variable *(*add)(Variable *, Variable *) = add_variables;
    Variable *(*mul)(Variable *, Variable *) = mul_variables;
    Variable *a = variable(nd_scalar(2.0)), *b = variable(nd_scalar(5.0));
    EXPECT_ARRAY(add(a, b)->data, ND_FLOAT64, ND_SCALAR_SHAPE, 7.0);
    EXPECT_ARRAY(mul(a, b)->data, ND_FLOAT64, ND_SCALAR_SHAPE, 10.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_step21_program),
        STEP_TEST(test_as_variable_cases),
        STEP_TEST(test_numbers_on_either_side),
        STEP_TEST(test_inputs_in_python_order),
        STEP_TEST(test_operands_evaluated_once),
        STEP_TEST(test_value_based_casting),
        STEP_TEST(test_plain_functions),
    };
    return cmocka_run_group_tests_name("operands", tests, NULL, NULL);
}
