// FIRST_STEP: 24
/* test_complex_functions.c - differentiating long formulas (step 24):
 * the sphere, Matyas and Goldstein-Price functions, written here as
 * step 24's program writes them. Their values and gradients must be the
 * Python original's to the last bit (computed with DeZero's simple core
 * and NumPy 1.24), at (1, 1) and at a point where rounding shows. */
#include "pool_fixture.h"

static Variable *sphere(Variable *x, Variable *y)
{
    return F_add(F_pow(x, 2), F_pow(y, 2));
}

static Variable *matyas(Variable *x, Variable *y)
{
    return F_sub(F_mul(0.26, F_add(F_pow(x, 2), F_pow(y, 2))),
                 F_mul(F_mul(0.48, x), y));
}

/* Term by term, as step 24's program has it. */
static Variable *goldstein(Variable *x, Variable *y)
{
    Variable *p = F_sub(19, F_mul(14, x));
    p = F_add(p, F_mul(3, F_pow(x, 2)));
    p = F_sub(p, F_mul(14, y));
    p = F_add(p, F_mul(F_mul(6, x), y));
    p = F_add(p, F_mul(3, F_pow(y, 2)));
    Variable *a = F_pow(F_add(F_add(x, y), 1), 2);
    Variable *left = F_add(1, F_mul(a, p));
    Variable *q = F_sub(18, F_mul(32, x));
    q = F_add(q, F_mul(12, F_pow(x, 2)));
    q = F_add(q, F_mul(48, y));
    q = F_sub(q, F_mul(F_mul(36, x), y));
    q = F_add(q, F_mul(27, F_pow(y, 2)));
    Variable *b = F_pow(F_sub(F_mul(2, x), F_mul(3, y)), 2);
    Variable *right = F_add(30, F_mul(b, q));
    return F_mul(left, right);
}

/* The same as one expression, as Python writes it: the same graph. */
static Variable *goldstein_in_one(Variable *x, Variable *y)
{
    return F_mul(
        F_add(1, F_mul(F_pow(F_add(F_add(x, y), 1), 2),
                       F_add(F_add(F_sub(F_add(F_sub(19, F_mul(14, x)),
                                                F_mul(3, F_pow(x, 2))),
                                         F_mul(14, y)),
                                   F_mul(F_mul(6, x), y)),
                             F_mul(3, F_pow(y, 2))))),
        F_add(30, F_mul(F_pow(F_sub(F_mul(2, x), F_mul(3, y)), 2),
                        F_add(F_sub(F_add(F_add(F_sub(18, F_mul(32, x)),
                                                F_mul(12, F_pow(x, 2))),
                                          F_mul(48, y)),
                                    F_mul(F_mul(36, x), y)),
                              F_mul(27, F_pow(y, 2))))));
}

typedef Variable *(*Function2)(Variable *, Variable *);

/* f at (a, b): the value and both gradients, exactly. */
static void expect_exact(Function2 f, double a, double b, double z_want,
                         double gx_want, double gy_want)
{
    Variable *x = variable(nd_scalar(a)), *y = variable(nd_scalar(b));
    Variable *z = f(x, y);
    backward(z);
    if (nd_item(z->data) != z_want || nd_item(grad_array(x)) != gx_want ||
        nd_item(grad_array(y)) != gy_want)
        fail_msg("at (%g, %g): got %.17g, %.17g, %.17g; want %.17g, "
                 "%.17g, %.17g", a, b, nd_item(z->data),
                 nd_item(grad_array(x)), nd_item(grad_array(y)), z_want,
                 gx_want, gy_want);
}

static void test_sphere(void **state)
{
    (void)state;
    expect_exact(sphere, 1.0, 1.0, 2.0, 2.0, 2.0);
    expect_exact(sphere, 0.3, -1.7, 2.9799999999999995, 0.6, -3.4);
}

static void test_matyas(void **state)
{
    (void)state;
    expect_exact(matyas, 1.0, 1.0, 0.040000000000000036,
                 0.040000000000000036, 0.040000000000000036);
    expect_exact(matyas, 0.3, -1.7, 1.0195999999999998, 0.972, -1.028);
}

/* Step 24's program, and a point where every rounding shows. */
static void test_goldstein(void **state)
{
    (void)state;
    expect_exact(goldstein, 1.0, 1.0, 1876.0, -5376.0, 8064.0);
    expect_exact(goldstein, 0.3, -1.7, 6643.862972639996,
                 -17969.573260799993, -53196.32292479997);
    expect_exact(goldstein_in_one, 0.3, -1.7, 6643.862972639996,
                 -17969.573260799993, -53196.32292479997);
}

/* Against the central difference, one variable at a time. */
static double fixed_y;

static Variable *goldstein_of_x(Variable *x)
{
    return goldstein(x, variable(nd_scalar(fixed_y)));
}

static void test_goldstein_gradient_check(void **state)
{
    (void)state;
    fixed_y = -0.6;
    Variable *x = variable(nd_scalar(0.2));
    backward(goldstein_of_x(x));
    NdArray *num = numerical_diff(goldstein_of_x, x, 1e-6);
    EXPECT_ALLCLOSE(grad_array(x), num, 1e-5, 1e-8);
    nd_release(num);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_sphere),
        STEP_TEST(test_matyas),
        STEP_TEST(test_goldstein),
        STEP_TEST(test_goldstein_gradient_check),
    };
    return cmocka_run_group_tests_name("complex_functions", tests, NULL,
                                       NULL);
}
