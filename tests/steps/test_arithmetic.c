// FIRST_STEP: 22
/* test_arithmetic.c - Neg, Sub, Div and Pow (step 22): their values and
 * dtypes as NumPy gives them, their gradients (also with a number on
 * the left), and checks against the central difference. */
#include <math.h>

#include "pool_fixture.h"

/* Step 22's program. */
static void test_step22_program(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    EXPECT_ARRAY(F_neg(x)->data, ND_FLOAT64, ND_SCALAR_SHAPE, -2.0);
    EXPECT_ARRAY(F_sub(2.0, x)->data, ND_FLOAT64, ND_SCALAR_SHAPE, 0.0);
    EXPECT_ARRAY(F_sub(x, 1.0)->data, ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
    EXPECT_ARRAY(F_div(3.0, x)->data, ND_FLOAT64, ND_SCALAR_SHAPE, 1.5);
    Variable *y = F_pow(x, 3);
    backward(y);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 8.0);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 12.0);
}

static void test_gradients(void **state)
{
    (void)state;
    Variable *a = variable(nd_scalar(3.0)), *b = variable(nd_scalar(2.0));
    backward(F_neg(a));
    EXPECT_ARRAY(grad_array(a), ND_FLOAT64, ND_SCALAR_SHAPE, -1.0);
    cleargrad(a);
    backward(F_sub(a, b));
    EXPECT_ARRAY(grad_array(a), ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
    EXPECT_ARRAY(grad_array(b), ND_FLOAT64, ND_SCALAR_SHAPE, -1.0);
    cleargrad(a);
    cleargrad(b);
    backward(F_div(a, b));
    EXPECT_ARRAY(grad_array(a), ND_FLOAT64, ND_SCALAR_SHAPE, 0.5); /* 1/b */
    EXPECT_ARRAY(grad_array(b), ND_FLOAT64, ND_SCALAR_SHAPE,
                 -0.75);                                     /* -a/b^2 */
}

/* A number on the left is Python's reflected operator: 2.0 - x is
 * sub(2.0, x), 3.0 / x is div(3.0, x). */
static void test_number_on_the_left(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    Variable *y = F_sub(2.0, x);
    assert_string_equal(y->creator->cls->name, "Sub");
    assert_ptr_equal(y->creator->inputs[1], x);
    backward(y);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, -1.0);
    cleargrad(x);
    backward(F_div(3.0, x));
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, -0.75);
}

/* The exponent stays in the function, with NumPy's dtype for it. */
static void test_pow_keeps_its_exponent(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    const PowFunction *f = (const PowFunction *)F_pow(x, 3)->creator;
    assert_string_equal(f->function.cls->name, "Pow");
    assert_true(f->c == 3.0);
    assert_int_equal(f->c_dtype, ND_INT64);
    f = (const PowFunction *)F_pow(x, 0.5)->creator;
    assert_int_equal(f->c_dtype, ND_FLOAT64);
    assert_int_equal(f->function.ninputs, 1);
}

/* Dtypes as NumPy gives them. */
static void test_dtypes(void **state)
{
    (void)state;
    Variable *i = variable(nd_scalar_of(ND_INT64, 4));
    EXPECT_ARRAY(F_pow(i, 2)->data, ND_INT64, ND_SCALAR_SHAPE, 16);
    EXPECT_ARRAY(F_pow(i, 0.5)->data, ND_FLOAT64, ND_SCALAR_SHAPE, 2.0);
    EXPECT_ARRAY(F_div(i, 2)->data, ND_FLOAT64, ND_SCALAR_SHAPE, 2.0);
    EXPECT_ARRAY(F_neg(i)->data, ND_INT64, ND_SCALAR_SHAPE, -4);
    EXPECT_ARRAY(F_sub(i, 1)->data, ND_INT64, ND_SCALAR_SHAPE, 3);
    float f[] = {1.5f, 4.0f};
    Variable *x = variable(nd_from_buffer(ND_FLOAT32, ND_SHAPE(2), f));
    EXPECT_ARRAY(F_pow(x, 2)->data, ND_FLOAT32, ND_SHAPE(2), 2.25, 16.0);
    EXPECT_ARRAY(F_div(x, 2.0)->data, ND_FLOAT32, ND_SHAPE(2), 0.75, 2.0);
    Variable *y = F_pow(x, 3);
    backward(y);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT32, ND_SHAPE(2), 6.75, 48.0);
}

/* NumPy's x ** 0.5 is sqrt(x), which differs from pow(x, 0.5) in the
 * last bit for this x (NumPy: ** gives ...668, np.power ...666). */
static void test_half_power_is_sqrt(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(1.0000000788495349));
    Variable *y = F_pow(x, 0.5);
    EXPECT_DOUBLE(nd_item(y->data), 1.0000000394247668);
    /* and x ** 1.5's backward, 1.5 * x ** 0.5, uses it too */
    Variable *z = F_pow(x, 1.5);
    backward(z);
    EXPECT_DOUBLE(nd_item(grad_array(x)), 1.5 * 1.0000000394247668);
}

/* Each function agrees with the central difference. */
static Variable *neg_of(Variable *x) { return F_neg(x); }
static Variable *two_minus(Variable *x) { return F_sub(2.0, x); }
static Variable *minus_two(Variable *x) { return F_sub(x, 2.0); }
static Variable *three_over(Variable *x) { return F_div(3.0, x); }
static Variable *over_three(Variable *x) { return F_div(x, 3.0); }
static Variable *cube(Variable *x) { return F_pow(x, 3); }
static Variable *root(Variable *x) { return F_pow(x, 0.5); }
static Variable *inverse_square(Variable *x) { return F_pow(x, -2.0); }

static void test_gradient_checks(void **state)
{
    (void)state;
    Variable *(*functions[])(Variable *) = {
        neg_of, two_minus, minus_two, three_over, over_three, cube, root,
        inverse_square,
    };
    double values[] = {0.5, 1.25, 3.0};
    for (size_t k = 0; k < sizeof functions / sizeof *functions; k++) {
        Variable *x = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3),
                                              values));
        backward(functions[k](x));
        NdArray *num = numerical_diff(functions[k], x, 1e-4);
        if (!nd_allclose(grad_array(x), num, 1e-5, 1e-8))
            fail_msg("function %zu disagrees with numerical_diff", k);
        nd_release(num);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_step22_program),
        STEP_TEST(test_gradients),
        STEP_TEST(test_number_on_the_left),
        STEP_TEST(test_pow_keeps_its_exponent),
        STEP_TEST(test_dtypes),
        STEP_TEST(test_half_power_is_sqrt),
        STEP_TEST(test_gradient_checks),
    };
    return cmocka_run_group_tests_name("arithmetic", tests, NULL, NULL);
}
