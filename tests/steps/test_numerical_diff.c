// FIRST_STEP: 04
// LAST_STEP: 10
/* test_numerical_diff.c - the central difference of step 04:
 * (f(x + eps) - f(x - eps)) / (2 eps), for any function given as a
 * pointer, and how its error shrinks with eps. */
#include <math.h>

#include "step_under_test.h"

static Variable *apply_square_fn(Variable *x)
{
    return function_call(square_function(), x);
}

static Variable *apply_exp_fn(Variable *x)
{
    return function_call(exp_function(), x);
}

/* (e^(x^2))^2, whose derivative is 4x e^(2x^2): 2 e^0.5 at x = 0.5. */
static Variable *square_exp_square_fn(Variable *x)
{
    Variable *a = function_call(square_function(), x);
    Variable *b = function_call(exp_function(), a);
    return function_call(square_function(), b);
}

static double diff_at(Variable *(*f)(Variable *), double x, double eps)
{
    NdArray *dy = numerical_diff(f, variable(nd_scalar(x)), eps);
    double value = nd_item(dy);
    nd_release(dy);
    return value;
}

/* Step 04's two numbers, as NumPy prints them. */
static void test_step04_values(void **state)
{
    (void)state;
    EXPECT_DOUBLE(diff_at(apply_square_fn, 2.0, 1e-4), 4.000000000004);
    EXPECT_DOUBLE(diff_at(square_exp_square_fn, 0.5, 1e-4),
                  3.2974426293330694);
}

/* For a quadratic the central difference has no truncation error: only
 * rounding is left, even with a large eps. */
static void test_exact_for_a_quadratic(void **state)
{
    (void)state;
    double d = diff_at(apply_square_fn, 3.0, 0.1);
    EXPECT_NEAR(d, 6.0, 1e-13);
}

/* The error is about eps^2 f'''(x) / 6: ten times smaller eps, a
 * hundred times smaller error (until rounding takes over). */
static void test_error_shrinks_as_eps_squared(void **state)
{
    (void)state;
    double exact = exp(0.5);
    double e1 = diff_at(apply_exp_fn, 0.5, 1e-2) - exact;
    double e2 = diff_at(apply_exp_fn, 0.5, 1e-3) - exact;
    EXPECT_NEAR(e1, 1e-4 * exact / 6, 1e-9);
    double ratio = e1 / e2;
    EXPECT_NEAR(ratio, 100.0, 1.0);
}

/* Arrays are differentiated elementwise, and the shape is kept. */
static void test_elementwise(void **state)
{
    (void)state;
    double values[] = {-1.0, 0.0, 2.5};
    Variable *x = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3), values));
    NdArray *dy = numerical_diff(apply_square_fn, x, 1e-4);
    EXPECT_ARRAY_CLOSE(dy, ND_FLOAT64, 1e-10, ND_SHAPE(3), -2.0, 0.0, 5.0);
    nd_release(dy);
}

/* x itself is left as it was. */
static void test_input_unchanged(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(0.5));
    NdArray *dy = numerical_diff(apply_exp_fn, x, 1e-4);
    EXPECT_ARRAY(x->data, ND_FLOAT64, ND_SCALAR_SHAPE, 0.5);
    nd_release(dy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step04_values),
        cmocka_unit_test(test_exact_for_a_quadratic),
        cmocka_unit_test(test_error_shrinks_as_eps_squared),
        cmocka_unit_test(test_elementwise),
        cmocka_unit_test(test_input_unchanged),
    };
    return cmocka_run_group_tests_name("numerical_diff", tests, NULL, NULL);
}
