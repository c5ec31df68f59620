// FIRST_STEP: 36
/* test_gradient_in_expression.c - double backprop for its own sake
 * (step 36): a gradient recorded with create_graph enters a new
 * expression, which backward differentiates through the gradient's
 * graph. Step 36's z = (dy/dx)^3 + y at several points, a gradient
 * penalty through sin, (dy/dx)^2 + y with y = sin x, against the
 * formula and a central difference, and the memory rule: once x's
 * recorded gradient is cleared, a plain backward leaves no cycle. */

#include "pool_fixture.h"

/* z = (dy/dx)^3 + y for y = x^2: z = 8x^3 + x^2. */
static Variable *cube_of_gradient_plus_square(Variable *x)
{
    Variable *y = F_pow(x, 2);
    backward(y, .create_graph = true);
    Variable *gx = x->grad;
    cleargrad(x);
    return F_add(F_pow(gx, 3), y);
}

/* dz/dx = 24x^2 + 2x: 100 at 2 (step 36's program), and the formula's
 * exact values at -1.5 and 0.25. */
static void test_step36_expression(void **state)
{
    (void)state;
    const double at[] = {2.0, -1.5, 0.25};
    const double want[] = {100.0, 51.0, 2.0};
    for (int i = 0; i < 3; i++) {
        Variable *x = variable(nd_scalar(at[i]));
        Variable *z = cube_of_gradient_plus_square(x);
        EXPECT_ARRAY(z->data, ND_FLOAT64, ND_SCALAR_SHAPE,
                     8 * at[i] * at[i] * at[i] + at[i] * at[i]);
        backward(z);
        EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, want[i]);
        assert_null(x->grad->creator);
    }
}

/* z = (dy/dx)^2 + y for y = sin x: dz/dx = -2 cos x sin x + cos x,
 * which NumPy evaluates at 0.5 as 0.036111577082476254; the central
 * difference of z agrees. */
static Variable *gradient_penalty(Variable *x)
{
    Variable *y = F_sin(x);
    backward(y, .create_graph = true);
    Variable *gx = x->grad;
    cleargrad(x);
    return F_add(F_pow(gx, 2), y);
}

static void test_gradient_penalty(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(0.5));
    backward(gradient_penalty(x));
    EXPECT_ARRAY_CLOSE(grad_array(x), ND_FLOAT64, 1e-14, ND_SCALAR_SHAPE,
                       0.036111577082476254);
    Variable *probe = variable(nd_scalar(0.5));
    NdArray *num = numerical_diff(gradient_penalty, probe, 1e-4);
    EXPECT_ALLCLOSE(grad_array(x), num, 1e-5, 1e-8);
    nd_release(num);
}

/* Step 36's program leaves no cycle: its pool frees all it made. */
static void test_no_cycle_left(void **state)
{
    (void)state;
    int variables = variables_alive, functions = functions_alive;
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(2.0));
    backward(cube_of_gradient_plus_square(x));
    pool_drain(pool);
    assert_int_equal(variables_alive, variables);
    assert_int_equal(functions_alive, functions);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_step36_expression),
        STEP_TEST(test_gradient_penalty),
        STEP_TEST(test_no_cycle_left),
    };
    return cmocka_run_group_tests_name("gradient_in_expression", tests,
                                       NULL, NULL);
}
