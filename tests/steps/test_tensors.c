// FIRST_STEP: 37
/* test_tensors.c - the functions on n-d arrays (step 37): sin, tanh and
 * the arithmetic work element by element on a (2, 3) matrix, against
 * NumPy (Debian's NumPy 1.24); backward seeds a matrix output with ones
 * of its shape and dtype, so every gradient has its variable's shape,
 * and int64 inputs get int64 gradients, as in Python; the gradients
 * agree with a central difference, and the second derivative of sin,
 * recorded with create_graph, is -sin element by element. */
#include "pool_fixture.h"

/* The matrix, and NumPy's sin, cos, -sin and 1 - tanh**2 of it. */
static const double at[6] = {0.5, -1.0, 2.0, 3.0, -0.25, 1.5};
static const double sin_at[6] = {
    0.47942553860420295, -0.8414709848078965, 0.9092974268256816,
    0.1411200080598672, -0.24740395925452296, 0.9974949866040544,
};
static const double cos_at[6] = {
    0.8775825618903725, 0.5403023058681397, -0.4161468365471424,
    -0.9899924966004454, 0.968912421710645, 0.0707372016677029,
};
static const double tanh_d1_at[6] = {
    0.7864477329659274, 0.41997434161402614, 0.07065082485316443,
    0.009866037165440211, 0.940014848806378, 0.18070663892364836,
};

/* Within a unit or two in the last place: NumPy computes sin with SIMD
 * routines, which may round differently from one build to another. */
#define RTOL 1e-15

static Variable *matrix(void)
{
    return variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(2, 3), at));
}

/* a == values, a (2, 3) float64 array, within rtol. */
#define expect_matrix(a, values, rtol)                                    \
    EXPECT_ARRAY_CLOSE(a, ND_FLOAT64, rtol, ND_SHAPE(2, 3), (values)[0],  \
                       (values)[1], (values)[2], (values)[3], (values)[4], \
                       (values)[5])

/* sin of a matrix is the matrix of sines, and its gradient is the
 * matrix of cosines, of the same shape; the central difference (which
 * moves every element at once: right for elementwise functions) agrees. */
static void test_sin_elementwise(void **state)
{
    (void)state;
    Variable *x = matrix();
    Variable *y = F_sin(x);
    expect_matrix(y->data, sin_at, RTOL);
    backward(y);
    expect_matrix(grad_array(x), cos_at, RTOL);
    NdArray *num = numerical_diff(F_sin, x, 1e-4);
    EXPECT_ALLCLOSE(grad_array(x), num, 1e-5, 1e-8);
    nd_release(num);
}

/* tanh's gradient, 1 - y^2, from a matrix output. */
static void test_tanh_elementwise(void **state)
{
    (void)state;
    Variable *x = matrix();
    backward(F_tanh(x));
    expect_matrix(grad_array(x), tanh_d1_at, 1e-12);
    NdArray *num = numerical_diff(F_tanh, x, 1e-4);
    EXPECT_ALLCLOSE(grad_array(x), num, 1e-5, 1e-8);
    nd_release(num);
}

/* The seed of a matrix output is ones of its shape and dtype: int64
 * inputs give int64 gradients, printed as Python prints them. */
static void test_int_gradients(void **state)
{
    (void)state;
    Variable *x = variable(nd_from_buffer(ND_INT64, ND_SHAPE(2, 3),
                                          (int64_t[]){1, 2, 3, 4, 5, 6}));
    Variable *c = variable(nd_arange(10, 70, 10, ND_INT64));   /* (6,) */
    Variable *t = F_add(x, F_mul(x, 2));        /* 3x, (2, 3) */
    backward(t, .retain_grad = true);
    EXPECT_ARRAY(grad_array(t), ND_INT64, ND_SHAPE(2, 3), 1, 1, 1, 1, 1, 1);
    EXPECT_ARRAY(grad_array(x), ND_INT64, ND_SHAPE(2, 3), 3, 3, 3, 3, 3, 3);
    char *text = variable_repr(x->grad);
    assert_string_equal(text, "variable([[3 3 3]\n"
                              "          [3 3 3]])");
    free(text);
    Variable *u = F_sub(c, F_neg(c));           /* 2c, (6,) */
    backward(u);
    EXPECT_ARRAY(grad_array(c), ND_INT64, ND_SHAPE(6), 2, 2, 2, 2, 2, 2);
}

/* The first derivative of sin, recorded, differentiated again: -sin,
 * element by element. */
static void test_second_derivative(void **state)
{
    (void)state;
    Variable *x = matrix();
    backward(F_sin(x), .create_graph = true);
    Variable *gx = x->grad;
    cleargrad(x);
    backward(gx, .create_graph = true);
    const double *s = sin_at;
    EXPECT_ARRAY_CLOSE(grad_array(x), ND_FLOAT64, RTOL, ND_SHAPE(2, 3),
                       -s[0], -s[1], -s[2], -s[3], -s[4], -s[5]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_sin_elementwise),
        STEP_TEST(test_tanh_elementwise),
        STEP_TEST(test_int_gradients),
        STEP_TEST(test_second_derivative),
    };
    return cmocka_run_group_tests_name("tensors", tests, NULL, NULL);
}
