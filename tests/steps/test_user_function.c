// FIRST_STEP: 27
/* test_user_function.c - functions a program defines itself (step 27):
 * a Sin made from the public FunctionClass API, as step 27's program
 * makes it, differentiates like any built-in function (checked against
 * the numerical derivative); and sin as a Taylor series built from
 * arithmetic, whose values and gradients must be the Python original's
 * to the last bit (DeZero's simple core, NumPy 1.24). */
#include <math.h>

#include "pool_fixture.h"

static void sin_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_sin(xs[0]);
}

#if STEP < 32
static void sin_backward(Function *self, NdArray *gys[], NdArray *gxs[])
{
    NdArray *cos_x = nd_cos(self->inputs[0]->data);
    gxs[0] = nd_mul(gys[0], cos_x);
    nd_release(cos_x);
}
#else
/* From step 32 a backward works on Variables. cos is not a function of
 * the framework before step 34, so cos(x) enters as a constant. */
static void sin_backward(Function *self, Variable *gys[], Variable *gxs[])
{
    NdArray *cos_x = nd_cos(self->inputs[0]->data);
    gxs[0] = F_mul(gys[0], cos_x);
    nd_release(cos_x);
}
#endif

static const FunctionClass sin_class = {
    .name = "Sin",
    .noutputs = 1,
    .forward = sin_forward,
    .backward = sin_backward,
};

static Variable *user_sin(Variable *x)
{
    return function_call(function_new(&sin_class), x);
}

/* A user's class takes part in the graph as the framework's own do. */
static void test_user_function_in_the_graph(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(0.5));
    Variable *y = user_sin(F_mul(x, 2.0));
    assert_ptr_equal(y->creator->cls, &sin_class);
    assert_int_equal(y->generation, 2);
    EXPECT_NEAR(nd_item(y->data), sin(1.0), 1e-15);
    backward(y);
    EXPECT_NEAR(nd_item(grad_array(x)), cos(1.0) * 2.0, 1e-15);
}

/* sin' = cos, against the central difference, on an array. */
static void test_user_sin_gradient_check(void **state)
{
    (void)state;
    int64_t shape[] = {5};
    double values[] = {-3.0, -1.2, 0.0, 0.7, 2.5};
    Variable *x = variable(nd_from_buffer(ND_FLOAT64, 1, shape, values));
    backward(user_sin(x));
    NdArray *num = numerical_diff(user_sin, x, 1e-6);
    EXPECT_ALLCLOSE(grad_array(x), num, 1e-6, 1e-8);
    nd_release(num);
}

/* As step 27's program computes it: c = (-1)^i / (2i + 1)! as a
 * double, the sum started from the integer 0. */
static Variable *my_sin(Variable *x, double threshold, int *terms)
{
    Variable *y = as_variable(0);
    for (int i = 0; i < 100000; i++) {
        double factorial = 1.0;
        for (int k = 2; k <= 2 * i + 1; k++)
            factorial *= k;
        double c = (i % 2 ? -1.0 : 1.0) / factorial;
        Variable *t = F_mul(c, F_pow(x, 2 * i + 1));
        y = F_add(y, t);
        *terms = i + 1;
        if (fabs(nd_item(t->data)) < threshold)
            break;
    }
    return y;
}

static void expect_my_sin(double at, double threshold, int terms_want,
                          double y_want, double gx_want)
{
    Variable *x = variable(nd_scalar(at));
    int terms;
    Variable *y = my_sin(x, threshold, &terms);
    backward(y);
    if (terms != terms_want || nd_item(y->data) != y_want ||
        nd_item(grad_array(x)) != gx_want)
        fail_msg("my_sin(%g, %g): %d terms, %.17g, grad %.17g; want %d, "
                 "%.17g, %.17g", at, threshold, terms, nd_item(y->data),
                 nd_item(grad_array(x)), terms_want, y_want, gx_want);
    assert_string_equal(nd_dtype_name(y->data->dtype), "float64");
}

/* Python's numbers for the same calls. Step 27's program is the first
 * line; with 47 terms (the threshold 1e-150) the factorials go past
 * 22!, where a double is no longer exact, and the sum still agrees. */
static void test_my_sin_as_python(void **state)
{
    (void)state;
    expect_my_sin(M_PI / 4, 1e-4, 4, 0.7071064695751781,
                  0.7071032148228457);
    expect_my_sin(M_PI / 4, 1e-150, 47, 0.7071067811865475,
                  0.7071067811865475);
    expect_my_sin(2.0, 1e-4, 6, 0.9092961359628027, -0.4161552028218696);
    expect_my_sin(-3.0, 1e-8, 10, -0.14112000785871492,
                  -0.9899924980061545);
}

/* The series' graph: a Pow, a Mul and an Add per term. */
static void test_my_sin_graph(void **state)
{
    (void)state;
    int functions = functions_alive, terms;
    Variable *x = variable(nd_scalar(M_PI / 4));
    Variable *y = my_sin(x, 1e-4, &terms);
    assert_int_equal(functions_alive - functions, 3 * terms);
    assert_string_equal(y->creator->cls->name, "Add");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_user_function_in_the_graph),
        STEP_TEST(test_user_sin_gradient_check),
        STEP_TEST(test_my_sin_as_python),
        STEP_TEST(test_my_sin_graph),
    };
    return cmocka_run_group_tests_name("user_function", tests, NULL, NULL);
}
