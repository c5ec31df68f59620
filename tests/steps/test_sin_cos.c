// FIRST_STEP: 34
/* test_sin_cos.c - Sin and Cos (step 34, functions.c): their values and
 * gradients against NumPy's sin and cos (Debian's NumPy 1.24), the
 * gradients against a central difference, the second derivatives,
 * recorded with create_graph, against NumPy and against the central
 * difference of the first, the graph a recorded gradient has, and step
 * 34's program: four rounds of differentiation cycle sin, cos, -sin,
 * -cos, and the pool's drain collects the cycles the rounds leave. */
#include "pool_fixture.h"

/* The points, and NumPy's np.sin and np.cos of them. */
static const double at[4] = {-2.5, 0.3, 1.0, 4.0};
static const double sin_at[4] = {
    -0.5984721441039564, 0.2955202066613396, 0.8414709848078965,
    -0.7568024953079284,
};
static const double cos_at[4] = {
    -0.8011436155469338, 0.9553364891256061, 0.5403023058681397,
    -0.6536436208636119,
};

/* Within one or two units in the last place: NumPy computes sin and cos
 * with SIMD routines, which may round differently from libm's. */
#define RTOL 1e-15

static Variable *points(void)
{
    return variable(nd_from_buffer(ND_FLOAT64, 1, (int64_t[]){4}, at));
}

/* values[i] * sign, as an array of the points' shape. */
#define expect_values(a, values, sign)                                    \
    EXPECT_ARRAY_CLOSE(a, ND_FLOAT64, RTOL, ND_SHAPE(4), (sign) *         \
                       (values)[0], (sign) * (values)[1], (sign) *        \
                       (values)[2], (sign) * (values)[3])

static void test_forward(void **state)
{
    (void)state;
    Variable *x = points();
    Variable *s = F_sin(x), *c = F_cos(x);
    expect_values(s->data, sin_at, 1);
    expect_values(c->data, cos_at, 1);
    assert_string_equal(s->creator->cls->name, "Sin");
    assert_string_equal(c->creator->cls->name, "Cos");
}

/* ---- first derivatives */

/* The gradient of f at the points agrees with the central difference
 * (np.allclose's tolerances, as Python's gradient_check uses). */
static void check_numerical_gradient(Variable *(*f)(Variable *))
{
    Variable *x = points();
    backward(f(x));
    NdArray *num = numerical_diff(f, x, 1e-4);
    EXPECT_ALLCLOSE(grad_array(x), num, 1e-5, 1e-8);
    nd_release(num);
}

static void test_sin_gradient(void **state)
{
    (void)state;
    Variable *x = points();
    backward(F_sin(x));
    expect_values(grad_array(x), cos_at, 1);            /* cos x */
    check_numerical_gradient(F_sin);
}

static void test_cos_gradient(void **state)
{
    (void)state;
    Variable *x = points();
    backward(F_cos(x));
    expect_values(grad_array(x), sin_at, -1);           /* -sin x */
    check_numerical_gradient(F_cos);
}

/* ---- second derivatives, through the recorded backward */

static Variable *(*f_under_test)(Variable *);

/* f_under_test'(x), computed without a graph: x lets go of it. */
static Variable *first_derivative(Variable *x)
{
    backward(f_under_test(x));
    Variable *gx = x->grad;
    cleargrad(x);
    return gx;
}

/* f''(x) from the graph of f'(x), which gradient_creator made: equal
 * to sign * values, and to the central difference of f'. */
static void check_second_derivative(Variable *(*f)(Variable *),
                                    const double values[4], double sign,
                                    const char *gradient_creator)
{
    f_under_test = f;
    Variable *x = points();
    backward(f(x), .create_graph = true);
    Variable *gx = x->grad;
    assert_non_null(gx->creator);
    assert_string_equal(gx->creator->cls->name, gradient_creator);
    cleargrad(x);
    backward(gx);
    expect_values(grad_array(x), values, sign);
    NdArray *num = numerical_diff(first_derivative, x, 1e-4);
    EXPECT_ALLCLOSE(grad_array(x), num, 1e-5, 1e-8);
    nd_release(num);
    cleargrad(x);
}

static void test_sin_second_derivative(void **state)
{
    (void)state;
    check_second_derivative(F_sin, sin_at, -1, "Mul");  /* -sin x */
}

static void test_cos_second_derivative(void **state)
{
    (void)state;
    check_second_derivative(F_cos, cos_at, -1, "Mul");  /* -cos x */
}

/* The recorded gradients are Python's graphs: gy * cos(x) for Sin,
 * gy * -sin(x) for Cos. */
static void test_recorded_graphs(void **state)
{
    (void)state;
    Variable *x = points();
    backward(F_sin(x), .create_graph = true);
    Function *mul = x->grad->creator;
    assert_int_equal(mul->ninputs, 2);
    assert_string_equal(mul->inputs[1]->creator->cls->name, "Cos");
    assert_ptr_equal(mul->inputs[1]->creator->inputs[0], x);
    cleargrad(x);

    backward(F_cos(x), .create_graph = true);
    mul = x->grad->creator;
    Function *neg = mul->inputs[1]->creator;
    assert_string_equal(neg->cls->name, "Neg");
    assert_string_equal(neg->inputs[0]->creator->cls->name, "Sin");
    assert_ptr_equal(neg->inputs[0]->creator->inputs[0], x);
    cleargrad(x);
}

/* ---- step 34's program */

/* Differentiating sin again and again gives cos, -sin, -cos, sin: each
 * exactly, since the factors the graph adds are ones and negations.
 * The seeds of the passes hold gradients that lead to one another:
 * cycles that no variable the program names is part of, which the
 * drain of the pool collects with every other object the rounds made. */
static void test_derivatives_cycle(void **state)
{
    (void)state;
    int variables = variables_alive, functions = functions_alive;
    Pool *pool = pool_new();
    Variable *x = variable(nd_linspace(-7, 7, 200));
    NdArray *s = nd_sin(x->data), *c = nd_cos(x->data);
    NdArray *minus_s = nd_neg(s), *minus_c = nd_neg(c);
    const NdArray *want[] = {c, minus_s, minus_c, s};

    backward(F_sin(x), .create_graph = true);
    for (int n = 0; n < 4; n++) {
        if (!nd_array_equal(grad_array(x), want[n]))
            fail_msg("derivative %d of sin is not what NumPy gives",
                     n + 1);
        Variable *gx = x->grad;
        cleargrad(x);
        backward(gx, .create_graph = true);
    }
    nd_release(s);
    nd_release(c);
    nd_release(minus_s);
    nd_release(minus_c);
    pool_drain(pool);
    assert_int_equal(variables_alive, variables);
    assert_int_equal(functions_alive, functions);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_forward),
        STEP_TEST(test_sin_gradient),
        STEP_TEST(test_cos_gradient),
        STEP_TEST(test_sin_second_derivative),
        STEP_TEST(test_cos_second_derivative),
        STEP_TEST(test_recorded_graphs),
        STEP_TEST(test_derivatives_cycle),
    };
    return cmocka_run_group_tests_name("sin_cos", tests, NULL, NULL);
}
