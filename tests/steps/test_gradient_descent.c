// FIRST_STEP: 28
/* test_gradient_descent.c - minimizing a function with its gradient
 * (step 28): the gradient of the Rosenbrock function, the in-place
 * update x.data -= lr * x.grad, and the path of gradient descent, which
 * must be the Python original's to the last bit (DeZero's simple core,
 * NumPy 1.24) after 1, 2, 999 and 10000 steps, with each iteration's
 * graph freed as it goes. */
#include <math.h>

#include "pool_fixture.h"

/* As step 28's program writes it. */
static Variable *rosenbrock(Variable *x0, Variable *x1)
{
    return F_add(F_mul(100, F_pow(F_sub(x1, F_pow(x0, 2)), 2)),
                 F_pow(F_sub(x0, 1), 2));
}

/* The gradient against its formula: (-400 x0 (x1 - x0^2) + 2 (x0 - 1),
 * 200 (x1 - x0^2)), at the start (0, 2) exactly. */
static void test_rosenbrock_gradient(void **state)
{
    (void)state;
    Variable *x0 = variable(nd_scalar(0.0)), *x1 = variable(nd_scalar(2.0));
    backward(rosenbrock(x0, x1));
    EXPECT_DOUBLE(nd_item(grad_array(x0)), -2.0);
    EXPECT_DOUBLE(nd_item(grad_array(x1)), 400.0);

    double a = 0.37, b = -1.3;
    x0 = variable(nd_scalar(a));
    x1 = variable(nd_scalar(b));
    backward(rosenbrock(x0, x1));
    double g0 = -400 * a * (b - a * a) + 2 * (a - 1), g1 = 200 * (b - a * a);
    EXPECT_CLOSE(nd_item(grad_array(x0)), g0, 1e-12);
    EXPECT_CLOSE(nd_item(grad_array(x1)), g1, 1e-12);
}

/* x.data -= lr * x.grad, into the variable's own array. */
static void descend(Variable *x, double lr)
{
    NdArray *rate = nd_scalar(lr);
    NdArray *step = nd_mul(rate, grad_array(x));
    nd_isub(x->data, step);
    nd_release(rate);
    nd_release(step);
}

/* Runs iters steps from (0, 2) with lr 0.001, each in a pool of its own
 * that frees its graph; the objects alive stay the same. */
static void run_descent(Variable *x0, Variable *x1, int iters)
{
    int variables = variables_alive, functions = functions_alive;
    for (int i = 0; i < iters; i++) {
        Pool *pool = pool_new();
        Variable *y = rosenbrock(x0, x1);
        cleargrad(x0);
        cleargrad(x1);
        backward(y);
        descend(x0, 0.001);
        descend(x1, 0.001);
        pool_drain(pool);
        /* From step 32 the gradients are Variables that x0 and x1 keep
         * beyond the pool; without them nothing is left over. */
        cleargrad(x0);
        cleargrad(x1);
        assert_int_equal(variables_alive, variables);
        assert_int_equal(functions_alive, functions);
    }
}

static void expect_after(int iters, double x0_want, double x1_want)
{
    Variable *x0 = variable(nd_scalar(0.0)), *x1 = variable(nd_scalar(2.0));
    NdArray *data0 = x0->data;
    run_descent(x0, x1, iters);
    assert_ptr_equal(x0->data, data0);          /* updated in place */
    if (nd_item(x0->data) != x0_want || nd_item(x1->data) != x1_want)
        fail_msg("after %d steps: (%.17g, %.17g), want (%.17g, %.17g)",
                 iters, nd_item(x0->data), nd_item(x1->data), x0_want,
                 x1_want);
}

/* Python's positions: the second, third and last lines of step 28's
 * output (each line is printed before a step, so the last comes after
 * 999), and where 10000 steps get. */
static void test_descent_as_python(void **state)
{
    (void)state;
    expect_after(1, 0.002, 1.6);
    expect_after(2, 0.0052759968, 1.2800008);
    expect_after(999, 0.6834917840420289, 0.46565059996514135);
    expect_after(10000, 0.9944984367782456, 0.9890050527419593);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_rosenbrock_gradient),
        STEP_TEST(test_descent_as_python),
    };
    return cmocka_run_group_tests_name("gradient_descent", tests, NULL,
                                       NULL);
}
