// FIRST_STEP: 38
/* test_reshape_transpose.c - Reshape and Transpose (step 38,
 * functions.c): the elements they give against NumPy's reshape and
 * transpose, -1 in a shape, F_reshape returning x itself for its own
 * shape, the Variable helpers (x.reshape, x.transpose, x.T), the
 * gradients against central differences of a weighted sum (weights
 * that differ, so that a wrong permutation shows), negative axes, and
 * the backward recorded with create_graph and differentiated again. */
#include "grad_check.h"

/* A (2, 3, 4) float64 array of 0 .. 23, as np.arange(24).reshape. */
static Variable *cube(void)
{
    return variable(ramp(ND_SHAPE(2, 3, 4), 0, 1));
}

/* backward's gradient of f at the cube against central differences. */
#define CHECK_AT_CUBE(f) check_gradient(#f, f, cube()->data, 1e-5)

static Variable *reshape_6_4(Variable *x)
{
    return F_reshape(x, ND_SHAPE(6, -1));
}

static Variable *transpose_1_0_2(Variable *x)
{
    return F_transpose(x, ND_AXES(1, 0, 2));
}

static Variable *transpose_negative(Variable *x)
{
    return F_transpose(x, ND_AXES(-1, 0, 1));
}

static Variable *transpose_reversed(Variable *x)
{
    return variable_T(x);
}

static void test_reshape_forward(void **state)
{
    (void)state;
    Variable *x = cube();
    Variable *y = F_reshape(x, ND_SHAPE(4, -1));
    assert_string_equal(y->creator->cls->name, "Reshape");
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SHAPE(4, 6), 0, 1, 2, 3, 4, 5, 6,
                 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                 22, 23);
    assert_ptr_equal(F_reshape(x, ND_SHAPE(2, 3, 4)), x);
    Variable *z = variable_reshape(x, 24);      /* x.reshape(24) */
    assert_int_equal(variable_ndim(z), 1);
    assert_int_equal(variable_shape(z)[0], 24);
}

/* Python's program: the gradient of y = x.reshape(6) is ones in x's
 * shape, int64 as x. */
static void test_reshape_backward(void **state)
{
    (void)state;
    Variable *x = variable(nd_from_buffer(ND_INT64, ND_SHAPE(2, 3),
                                          (int64_t[]){0, 1, 2, 3, 4, 5}));
    backward(variable_reshape(x, 6));
    EXPECT_ARRAY(grad_array(x), ND_INT64, ND_SHAPE(2, 3), 1, 1, 1, 1, 1, 1);
    CHECK_AT_CUBE(reshape_6_4);
}

/* NumPy's a.transpose(1, 0, 2), a.transpose(-1, 0, 1) and a.T. */
static void test_transpose_forward(void **state)
{
    (void)state;
    Variable *x = cube();
    EXPECT_ARRAY(variable_transpose(x, 1, 0, 2)->data, ND_FLOAT64,
                 ND_SHAPE(3, 2, 4), 0, 1, 2, 3, 12, 13, 14, 15, 4, 5, 6,
                 7, 16, 17, 18, 19, 8, 9, 10, 11, 20, 21, 22, 23);
    EXPECT_ARRAY(transpose_negative(x)->data, ND_FLOAT64,
                 ND_SHAPE(4, 2, 3), 0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17,
                 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23);
    Variable *t = variable_T(x);
    assert_string_equal(t->creator->cls->name, "Transpose");
    assert_int_equal(variable_shape(t)[0], 4);
    assert_int_equal(variable_shape(t)[1], 3);
    assert_int_equal(variable_shape(t)[2], 2);
    assert_int_equal(nd_get_flat(t->data, 1), 12);
}

/* Each gradient is gy moved back by the inverse permutation. */
static void test_transpose_backward(void **state)
{
    (void)state;
    CHECK_AT_CUBE(transpose_1_0_2);
    CHECK_AT_CUBE(transpose_negative);
    CHECK_AT_CUBE(transpose_reversed);
    Variable *x = variable(nd_from_buffer(ND_INT64, ND_SHAPE(2, 3),
                                          (int64_t[]){1, 2, 3, 4, 5, 6}));
    backward(F_transpose(x, 0, NULL));
    EXPECT_ARRAY(grad_array(x), ND_INT64, ND_SHAPE(2, 3), 1, 1, 1, 1, 1, 1);
}

/* sin through a reshape and a transpose, differentiated twice with
 * create_graph: the recorded gradient is made by Reshape and Transpose,
 * and the second derivative is -sin(x) in x's shape. */
static void test_second_derivative(void **state)
{
    (void)state;
    Variable *x = cube();
    Variable *y = F_sin(variable_T(variable_reshape(x, 4, 6)));
    backward(y, .create_graph = true);
    Variable *gx = x->grad;
    assert_string_equal(gx->creator->cls->name, "Reshape");
    cleargrad(x);
    backward(gx, .create_graph = true);
    NdArray *minus_sin = nd_sin(x->data);
    NdArray *want = nd_neg(minus_sin);
    assert_int_equal(grad_array(x)->ndim, 3);
    EXPECT_ALLCLOSE(grad_array(x), want, 1e-15, 0);
    nd_release(want);
    nd_release(minus_sin);
}

static void test_too_many_dimensions(void **state)
{
    (void)state;
    EXPECT_ND_ERROR(reshape_function(ND_SHAPE(1, 1, 1, 1, 1, 1, 1, 1, 1)),
                    "reshape_function");
    EXPECT_ND_ERROR(transpose_function(ND_AXES(0, 1, 2, 3, 4, 5, 6, 7, 8)),
                    "at most 8");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_reshape_forward),
        STEP_TEST(test_reshape_backward),
        STEP_TEST(test_transpose_forward),
        STEP_TEST(test_transpose_backward),
        STEP_TEST(test_second_derivative),
        STEP_TEST(test_too_many_dimensions),
    };
    return cmocka_run_group_tests_name("reshape_transpose", tests, NULL,
                                       NULL);
}
