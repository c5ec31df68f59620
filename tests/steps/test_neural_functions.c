// FIRST_STEP: 43
/* test_neural_functions.c - step 43's functions: Linear (with a bias and
 * without) and linear_simple, which gives the same numbers and frees
 * its intermediate product; Sigmoid and sigmoid_simple; MeanSquaredError.
 * Values against NumPy's formulas, gradients against central
 * differences, dtypes (float32 weights with float64 data), second
 * derivatives of Sigmoid, and Add and Sub working from the shapes they
 * kept when an input's data is gone. */
#include <math.h>

#include "grad_check.h"

static Variable *linear3(Variable *xs[])
{
    return F_linear(xs[0], xs[1], xs[2]);
}

static Variable *linear2(Variable *xs[])
{
    return F_linear(xs[0], xs[1], NULL);
}

static Variable *linear_simple3(Variable *xs[])
{
    return F_linear_simple(xs[0], xs[1], xs[2]);
}

static Variable *sigmoid1(Variable *xs[])
{
    return F_sigmoid(xs[0]);
}

static Variable *sigmoid_simple1(Variable *xs[])
{
    return F_sigmoid_simple(xs[0]);
}

static Variable *mse2(Variable *xs[])
{
    return F_mean_squared_error(xs[0], xs[1]);
}

/* x (4, 3), W (3, 2), b (2,) */
static void linear_operands(NdArray *arrays[3])
{
    arrays[0] = ramp(ND_SHAPE(4, 3), -1, 0.25);
    arrays[1] = ramp(ND_SHAPE(3, 2), 0.5, -0.2);
    arrays[2] = ramp(ND_SHAPE(2), 0.1, 0.3);
}

static void release_all(int n, NdArray *arrays[])
{
    for (int i = 0; i < n; i++)
        nd_release(arrays[i]);
}

/* y = x W + b: NumPy's values, one Linear node, and without a bias the
 * product alone. */
static void test_linear_forward(void **state)
{
    (void)state;
    Variable *x = variable(ramp(ND_SHAPE(2, 3), 1, 1));
    Variable *W = variable(ramp(ND_SHAPE(3, 2), 1, 1));
    Variable *b = variable(ramp(ND_SHAPE(2), 10, 10));
    Variable *y = F_linear(x, W, b);
    assert_string_equal(y->creator->cls->name, "Linear");
    assert_int_equal(y->creator->ninputs, 3);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SHAPE(2, 2), 32, 48, 59, 84);
    Variable *z = F_linear(x, W, NULL);
    assert_int_equal(z->creator->ninputs, 2);
    EXPECT_ARRAY(z->data, ND_FLOAT64, ND_SHAPE(2, 2), 22, 28, 49, 64);
    Variable *none = NULL;                      /* a Variable * that is
                                                 * NULL is no bias too */
    EXPECT_ARRAY(F_linear(x, W, none)->data, ND_FLOAT64, ND_SHAPE(2, 2),
                 22, 28, 49, 64);
}

static void test_linear_gradients(void **state)
{
    (void)state;
    NdArray *arrays[3];
    linear_operands(arrays);
    check_gradients("linear", linear3, 3, arrays, 1e-6);
    check_gradients("linear without b", linear2, 2, arrays, 1e-6);
    check_gradients("linear_simple", linear_simple3, 3, arrays, 1e-6);
    release_all(3, arrays);
}

/* linear_simple computes what Linear does, as a MatMul and an Add; the
 * product's data is freed, and backward still works. */
static void test_linear_simple(void **state)
{
    (void)state;
    NdArray *arrays[3];
    linear_operands(arrays);
    Variable *x = variable(nd_copy(arrays[0]));
    Variable *W = variable(nd_copy(arrays[1]));
    Variable *b = variable(nd_copy(arrays[2]));
    Variable *fused = F_linear(x, W, b);
    Variable *simple = F_linear_simple(x, W, b);
    assert_true(nd_array_equal(fused->data, simple->data));
    assert_string_equal(simple->creator->cls->name, "Add");
    Variable *t = simple->creator->inputs[0];
    assert_string_equal(t->creator->cls->name, "MatMul");
    assert_null(t->data);                       /* t.data = None */
    backward(simple);
    assert_non_null(grad_array(W));
    assert_true(nd_array_equal(F_linear_simple(x, W, NULL)->data,
                               F_linear(x, W, NULL)->data));
    release_all(3, arrays);
}

/* Sub keeps its shapes too: x0 - x1 with x1's data gone still gives
 * x1 a gradient of x1's shape. */
static void test_add_sub_keep_shapes(void **state)
{
    (void)state;
    Variable *a = variable(ramp(ND_SHAPE(2, 3), 1, 1));
    Variable *t = F_mul(a, 2.0);                    /* (2, 3) */
    Variable *b = variable(ramp(ND_SHAPE(3), 1, 1));
    Variable *y = F_sub(b, t);                      /* (2, 3) */
    nd_release(t->data);
    t->data = NULL;
    backward(y);
    EXPECT_ARRAY(grad_array(b), ND_FLOAT64, ND_SHAPE(3), 2, 2, 2);
    EXPECT_ARRAY(grad_array(a), ND_FLOAT64, ND_SHAPE(2, 3), -2, -2, -2, -2,
                 -2, -2);
}

/* Sigmoid is 1 / (1 + e^-x) within 1e-15, for small and large |x|
 * (the tanh form rounds a value below 1e-16 to 0: an absolute error),
 * and sigmoid_simple builds the same from four functions. */
static void test_sigmoid_values(void **state)
{
    (void)state;
    double xs[] = {-40, -5, -1, -0.5, 0, 0.25, 1, 3, 40};
    int n = sizeof xs / sizeof xs[0];
    Variable *x = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(n), xs));
    Variable *y = F_sigmoid(x);
    Variable *s = F_sigmoid_simple(x);
    assert_string_equal(y->creator->cls->name, "Sigmoid");
    for (int i = 0; i < n; i++) {
        double want = 1 / (1 + exp(-xs[i]));
        assert_true(fabs(nd_get_flat(y->data, i) - want) <= 1e-15);
        assert_true(fabs(nd_get_flat(s->data, i) - want) <= 1e-15);
    }
    EXPECT_ARRAY(F_sigmoid(0)->data, ND_FLOAT64, ND_SCALAR_SHAPE, 0.5);
}

static void test_sigmoid_gradients(void **state)
{
    (void)state;
    NdArray *x = ramp(ND_SHAPE(3, 4), -3, 0.5);
    check_gradients("sigmoid", sigmoid1, 1, &x, 1e-6);
    check_gradients("sigmoid_simple", sigmoid_simple1, 1, &x, 1e-6);
    nd_release(x);
}

/* s'(x) = s(1 - s), recorded with create_graph, differentiated again:
 * s''(x) = s(1 - s)(1 - 2s). */
static void test_sigmoid_second_derivative(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(0.7));
    backward(F_sigmoid(x), .create_graph = true);
    Variable *gx = x->grad;
    double s = 1 / (1 + exp(-0.7));
    assert_true(fabs(nd_item(gx->data) - s * (1 - s)) < 1e-14);
    cleargrad(x);
    backward(gx);
    double want = s * (1 - s) * (1 - 2 * s);
    assert_true(fabs(nd_item(grad_array(x)) - want) < 1e-14);
}

/* The gradient that flows into Sigmoid is differentiable too: for
 * f = sigmoid(x) w, f's gradient gx = w s(1 - s) has d/dw = s(1 - s)
 * and d/dx = w s(1 - s)(1 - 2s). */
static void test_sigmoid_gradient_of_its_input_gradient(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(0.7)), *w = variable(nd_scalar(3));
    backward(F_mul(F_sigmoid(x), w), .create_graph = true);
    Variable *gx = x->grad;
    double s = 1 / (1 + exp(-0.7));
    assert_true(fabs(nd_item(gx->data) - 3 * s * (1 - s)) < 1e-14);
    cleargrad(x);
    cleargrad(w);
    backward(gx);
    assert_true(fabs(nd_item(grad_array(w)) - s * (1 - s)) < 1e-14);
    assert_true(fabs(nd_item(grad_array(x)) -
                     3 * s * (1 - s) * (1 - 2 * s)) < 1e-14);
}

/* float32 stays float32 through Sigmoid (its 0.5s are 0-d); float32
 * weights with float64 data give float64, the bias added in float64. */
static void test_dtypes(void **state)
{
    (void)state;
    NdArray *x64 = ramp(ND_SHAPE(2, 2), -1, 0.5);
    NdArray *x32 = nd_astype(x64, ND_FLOAT32);
    assert_int_equal(F_sigmoid(x32)->data->dtype, ND_FLOAT32);
    NdArray *w64 = ramp(ND_SHAPE(2, 2), 0.1, 0.1);
    Variable *W = variable(nd_astype(w64, ND_FLOAT32));
    Variable *b = variable(nd_zeros(ND_FLOAT32, ND_SHAPE(2)));
    Variable *x = variable(ramp(ND_SHAPE(3, 2), 1, 1));
    Variable *y = F_linear(x, W, b);
    assert_int_equal(y->data->dtype, ND_FLOAT64);
    backward(y);
    assert_int_equal(grad_array(W)->dtype, ND_FLOAT64);
    assert_int_equal(grad_array(b)->dtype, ND_FLOAT64);
    nd_release(w64);
    nd_release(x32);
    nd_release(x64);
}

/* NumPy: ((x0 - x1) ** 2).sum() / len(x0 - x1). */
static void test_mse_value(void **state)
{
    (void)state;
    Variable *x0 = variable(ramp(ND_SHAPE(4, 1), 1, 1));     /* 1 2 3 4 */
    Variable *x1 = variable(ramp(ND_SHAPE(4, 1), 0, 0.5));   /* 0 .5 1 1.5 */
    Variable *y = F_mean_squared_error(x0, x1);
    assert_string_equal(y->creator->cls->name, "MeanSquaredError");
    /* (1 + 2.25 + 4 + 6.25) / 4 */
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 3.375);
    EXPECT_ND_ERROR(F_mean_squared_error(1.0, 2.0), "0-d");
}

static void test_mse_gradients(void **state)
{
    (void)state;
    NdArray *arrays[2] = {ramp(ND_SHAPE(5, 2), -1, 0.3),
                          ramp(ND_SHAPE(5, 2), 2, -0.45)};
    check_gradients("mean_squared_error", mse2, 2, arrays, 1e-6);
    release_all(2, arrays);
    /* 1-D operands: the length is 5 */
    NdArray *flat[2] = {ramp(ND_SHAPE(5), 0, 1), ramp(ND_SHAPE(5), 1, 0.5)};
    check_gradients("mean_squared_error (5,)", mse2, 2, flat, 1e-6);
    release_all(2, flat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_linear_forward),
        STEP_TEST(test_linear_gradients),
        STEP_TEST(test_linear_simple),
        STEP_TEST(test_add_sub_keep_shapes),
        STEP_TEST(test_sigmoid_values),
        STEP_TEST(test_sigmoid_gradients),
        STEP_TEST(test_sigmoid_second_derivative),
        STEP_TEST(test_sigmoid_gradient_of_its_input_gradient),
        STEP_TEST(test_dtypes),
        STEP_TEST(test_mse_value),
        STEP_TEST(test_mse_gradients),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
