// FIRST_STEP: 32
/* test_create_graph.c - higher-order derivatives (step 32): backward
 * with .create_graph records its own computations, so that a gradient
 * has a creator and can itself be differentiated; without it a gradient
 * is a plain Variable. Every function's backward is recorded: the second
 * derivative through each of Square, Exp, Add, Mul, Neg, Sub, Div, Pow
 * agrees with the Python original and with the central difference of
 * the first derivative. Also the programs of steps 33 and 36, and the
 * memory rule: a gradient's graph that leads back to its variable is a
 * cycle, which the drain of its pool collects (test_gc.c tests the
 * collector itself). */
#include <string.h>

#include "pool_fixture.h"

/* Without create_graph the gradient has no graph: no creator. */
static void test_no_graph_by_default(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    backward(F_pow(x, 3));
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 27.0);
    assert_null(x->grad->creator);
    assert_int_equal(x->grad->generation, 0);
    assert_true(config.enable_backprop);
}

/* With create_graph it has one: 3 * x**2 * gy, a Mul of generation
 * above x's, whose inputs lead back to x. */
static void test_create_graph_records(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    backward(F_pow(x, 3), .create_graph = true);
    Variable *gx = x->grad;
    EXPECT_ARRAY(gx->data, ND_FLOAT64, ND_SCALAR_SHAPE, 27.0);
    assert_non_null(gx->creator);
    assert_string_equal(gx->creator->cls->name, "Mul");
    assert_true(gx->generation > x->generation);
    assert_true(config.enable_backprop);        /* restored */
}

/* The setting is the option alone: inside NO_GRAD create_graph still
 * records, and the block's setting comes back afterwards. */
static void test_create_graph_inside_no_grad(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    Variable *y = F_square(x);
    NO_GRAD {
        backward(y, .create_graph = true);
        assert_false(config.enable_backprop);
    }
    Variable *gx = x->grad;                         /* 2x = 6 */
    EXPECT_ARRAY(gx->data, ND_FLOAT64, ND_SCALAR_SHAPE, 6.0);
    assert_string_equal(gx->creator->cls->name, "Mul");
    cleargrad(x);
    backward(gx);                                   /* d(2x)/dx = 2 */
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 2.0);
    cleargrad(x);
}

/* ---- the second derivative through each function */

static Variable *(*f_under_test)(Variable *);

/* f_under_test'(x): x's gradient, which x then lets go of (the pool
 * keeps it), so that no cycle outlives the test. */
static Variable *gradient_of(Variable *x, bool create_graph)
{
    backward(f_under_test(x), .create_graph = create_graph);
    Variable *gx = x->grad;
    cleargrad(x);
    return gx;
}

static Variable *first_derivative(Variable *x)
{
    return gradient_of(x, false);
}

/* f'(at) and f''(at), within rtol of the Python original's d1 and d2;
 * f'' also within 1e-5 of the central difference of f'. */
static void check_second_derivative(Variable *(*f)(Variable *), double at,
                                    double d1, double d2, double rtol)
{
    f_under_test = f;
    Variable *x = variable(nd_scalar(at));
    Variable *gx = gradient_of(x, true);
    /* the gradient was computed by a function on the graph, after x */
    assert_true(gx->creator != NULL &&
                gx->creator->generation >= x->generation);
    assert_true(gx->generation > x->generation);
    EXPECT_ARRAY_CLOSE(gx->data, ND_FLOAT64, rtol, ND_SCALAR_SHAPE, d1);
    backward(gx);
    EXPECT_ARRAY_CLOSE(grad_array(x), ND_FLOAT64, rtol, ND_SCALAR_SHAPE,
                       d2);
    NdArray *num = numerical_diff(first_derivative, x, 1e-4);
    if (!nd_allclose(grad_array(x), num, 1e-5, 1e-8))
        fail_msg("f''(%g) = %.17g, central difference %.17g", at,
                 nd_item(grad_array(x)), nd_item(num));
    nd_release(num);
    cleargrad(x);
}

static Variable *square_of_square(Variable *x)
{
    return F_square(F_square(x));                   /* x^4 */
}

static void test_square(void **state)
{
    (void)state;
    check_second_derivative(square_of_square, 1.5, 13.5, 27.0, 0);
}

static Variable *exp_of_x(Variable *x)
{
    return F_exp(x);
}

static Variable *exp_of_square(Variable *x)
{
    return F_exp(F_square(x));
}

static void test_exp(void **state)
{
    (void)state;
    check_second_derivative(exp_of_x, 0.5, 1.6487212707001282,
                            1.6487212707001282, 0);
    check_second_derivative(exp_of_square, 0.5, 1.2840254166877414,
                            3.852076250063224, 1e-15);
}

static Variable *cube_by_mul(Variable *x)
{
    return F_mul(F_mul(x, x), x);                   /* x^3 */
}

static void test_mul(void **state)
{
    (void)state;
    check_second_derivative(cube_by_mul, 2.0, 12.0, 12.0, 0);
}

static Variable *square_over_next(Variable *x)
{
    return F_div(F_square(x), F_add(x, 1));         /* x^2 / (x + 1) */
}

static void test_div(void **state)
{
    (void)state;
    check_second_derivative(square_over_next, 1.0, 0.75, 0.25, 0);
    check_second_derivative(square_over_next, 0.3, 0.408284023668639,
                            0.9103322712790167, 1e-15);
}

/* Step 33's function: x^4 - 2x^2. */
static Variable *quartic(Variable *x)
{
    return F_sub(F_pow(x, 4), F_mul(2, F_pow(x, 2)));
}

static void test_pow(void **state)
{
    (void)state;
    check_second_derivative(quartic, 2.0, 24.0, 44.0, 0);
}

/* Both of Sub's gradients: (3 - x)(x - 1). */
static Variable *sub_both_ways(Variable *x)
{
    return F_mul(F_sub(3, x), F_sub(x, 1));
}

static void test_sub(void **state)
{
    (void)state;
    check_second_derivative(sub_both_ways, 0.5, 3.0, -2.0, 0);
}

static Variable *minus_square(Variable *x)
{
    return F_mul(F_neg(x), x);                      /* -x^2 */
}

static void test_neg(void **state)
{
    (void)state;
    check_second_derivative(minus_square, 1.5, -3.0, -2.0, 0);
}

/* Add passes gy on, and x's two gradients are added up, both on the
 * graph: (x + 1)(x + x). */
static Variable *add_twice(Variable *x)
{
    return F_mul(F_add(x, 1), F_add(x, x));
}

static void test_add(void **state)
{
    (void)state;
    check_second_derivative(add_twice, 1.5, 8.0, 4.0, 0);
}

/* ---- programs */

/* Step 33: Newton's method with the second derivative from backward.
 * The grad is cleared between the passes; the values are Python's. */
static void test_newton(void **state)
{
    (void)state;
    const double want[10] = {
        2.0, 1.4545454545454546, 1.1510467893775467, 1.0253259289766978,
        1.0009084519430513, 1.0000012353089454, 1.000000000002289, 1.0,
        1.0, 1.0,
    };
    Variable *x = variable(nd_scalar(2.0));
    for (int i = 0; i < 10; i++) {
        if (nd_item(x->data) != want[i])
            fail_msg("iteration %d: x = %.17g, want %.17g", i,
                     nd_item(x->data), want[i]);
        Pool *pool = pool_new();
        Variable *y = quartic(x);
        cleargrad(x);
        backward(y, .create_graph = true);
        Variable *gx = x->grad;
        cleargrad(x);
        backward(gx);
        Variable *gx2 = x->grad;
        NdArray *step = nd_div(gx->data, gx2->data);
        NdArray *next = nd_sub(x->data, step);
        nd_release(step);
        nd_release(x->data);
        x->data = next;
        pool_drain(pool);
    }
    cleargrad(x);
}

/* Step 36: z = (dy/dx)^3 + y for y = x^2, at x = 2: dz/dx = 100. */
static void test_double_backprop(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    Variable *y = F_pow(x, 2);
    backward(y, .create_graph = true);
    Variable *gx = x->grad;
    cleargrad(x);
    Variable *z = F_add(F_pow(gx, 3), y);
    backward(z);
    char *text = variable_repr(x->grad);
    assert_string_equal(text, "variable(100.0)");
    free(text);
}

/* Again and again: the derivatives of x^4 at 2 are 32, 48, 48, 24. */
static void test_higher_derivatives(void **state)
{
    (void)state;
    const double want[] = {32.0, 48.0, 48.0, 24.0};
    Variable *x = variable(nd_scalar(2.0));
    backward(F_pow(x, 4), .create_graph = true);
    for (int n = 0; n < 4; n++) {
        Variable *gx = x->grad;
        EXPECT_ARRAY(gx->data, ND_FLOAT64, ND_SCALAR_SHAPE, want[n]);
        cleargrad(x);
        if (n < 3)
            backward(gx, .create_graph = true);
    }
}

/* ---- memory */

/* With create_graph, x's gradient leads back to x: a cycle, which
 * reference counts alone would keep alive; the drain of the pool
 * collects it, with no cleargrad. */
static void test_cycle_collected_at_drain(void **state)
{
    (void)state;
    int variables = variables_alive, functions = functions_alive;
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(2.0));
    backward(F_pow(x, 3), .create_graph = true);
    assert_non_null(x->grad->creator);
    pool_drain(pool);
    assert_int_equal(variables_alive, variables);
    assert_int_equal(functions_alive, functions);
}

/* Without create_graph there is no cycle: the pool frees it all. */
static void test_no_cycle_without_graph(void **state)
{
    (void)state;
    int variables = variables_alive, functions = functions_alive;
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(2.0));
    backward(F_pow(x, 3));
    pool_drain(pool);
    assert_int_equal(variables_alive, variables);
    assert_int_equal(functions_alive, functions);
}

/* The gradient's graph made in an inner pool outlives the pool: x
 * holds the gradient, which holds its creators. */
static void test_graph_outlives_inner_pool(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    Pool *pool = pool_new();
    backward(F_pow(x, 3), .create_graph = true);
    pool_drain(pool);
    Variable *gx = retain(x->grad);
    cleargrad(x);
    backward(gx);                                   /* 6x */
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 12.0);
    release(gx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_no_graph_by_default),
        STEP_TEST(test_create_graph_records),
        STEP_TEST(test_create_graph_inside_no_grad),
        STEP_TEST(test_square),
        STEP_TEST(test_exp),
        STEP_TEST(test_mul),
        STEP_TEST(test_div),
        STEP_TEST(test_pow),
        STEP_TEST(test_sub),
        STEP_TEST(test_neg),
        STEP_TEST(test_add),
        STEP_TEST(test_newton),
        STEP_TEST(test_double_backprop),
        STEP_TEST(test_higher_derivatives),
        STEP_TEST(test_cycle_collected_at_drain),
        STEP_TEST(test_no_cycle_without_graph),
        STEP_TEST(test_graph_outlives_inner_pool),
    };
    return cmocka_run_group_tests_name("create_graph", tests, NULL, NULL);
}
