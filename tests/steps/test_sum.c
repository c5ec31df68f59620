// FIRST_STEP: 39
/* test_sum.c - Sum, BroadcastTo and SumTo (step 39, functions.c) and
 * utils' reshape_sum_backward: the sums against NumPy's (every axis,
 * one axis, a negative axis, several axes, keepdims), int64 sums, the
 * shapes reshape_sum_backward gives gy, F_broadcast_to and F_sum_to
 * against NumPy and returning x for its own shape, every gradient
 * against central differences of a weighted sum, and Sum's backward
 * recorded with create_graph and differentiated again. */
#include "grad_check.h"

/* A (2, 3, 4) float64 array of 0 .. 23, as np.arange(24).reshape. */
static Variable *cube(void)
{
    return variable(ramp(ND_SHAPE(2, 3, 4), 0, 1));
}

/* backward's gradient of f at the cube against central differences. */
#define CHECK_AT_CUBE(f) check_gradient(#f, f, cube()->data, 1e-5)

static Variable *sum_all(Variable *x)
{
    return F_sum(x, ND_ALL_AXES, false);
}

static Variable *sum_0_2(Variable *x)
{
    return F_sum(x, ND_AXES(0, 2), false);
}

static Variable *sum_last(Variable *x)
{
    return F_sum(x, ND_AXES(-1), false);
}

static Variable *sum_2_0_keepdims(Variable *x)
{
    return F_sum(x, ND_AXES(2, 0), true);
}

static Variable *broadcast_2_2_3_4(Variable *x)
{
    return F_broadcast_to(x, ND_SHAPE(2, 2, 3, 4));
}

static Variable *broadcast_to_cube(Variable *x)     /* from (3, 1) */
{
    return F_broadcast_to(x, ND_SHAPE(2, 3, 4));
}

static Variable *sum_to_3_1(Variable *x)
{
    return F_sum_to(x, ND_SHAPE(3, 1));
}

/* NumPy: a.sum() = 276, a.sum(axis=(0, 2)) = [60, 92, 124], a.sum(-1),
 * and the keepdims shapes. */
static void test_sum_forward(void **state)
{
    (void)state;
    Variable *x = cube();
    Variable *y = sum_all(x);
    assert_string_equal(y->creator->cls->name, "Sum");
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 276);
    EXPECT_ARRAY(sum_0_2(x)->data, ND_FLOAT64, ND_SHAPE(3), 60, 92, 124);
    EXPECT_ARRAY(sum_last(x)->data, ND_FLOAT64, ND_SHAPE(2, 3), 6, 22, 38,
                 54, 70, 86);
    EXPECT_ARRAY(sum_2_0_keepdims(x)->data, ND_FLOAT64, ND_SHAPE(1, 3, 1),
                 60, 92, 124);
    EXPECT_ARRAY(F_sum(x, ND_ALL_AXES, true)->data, ND_FLOAT64,
                 ND_SHAPE(1, 1, 1), 276);
}

/* Python's program: int64 sums, and int64 gradients of ones. */
static void test_int_sums(void **state)
{
    (void)state;
    Variable *x = variable(nd_from_buffer(ND_INT64, ND_SHAPE(2, 3),
                                          (int64_t[]){1, 2, 3, 4, 5, 6}));
    Variable *y = F_sum(x, ND_AXES(0), false);
    backward(y);
    EXPECT_ARRAY(y->data, ND_INT64, ND_SHAPE(3), 5, 7, 9);
    EXPECT_ARRAY(grad_array(x), ND_INT64, ND_SHAPE(2, 3), 1, 1, 1, 1, 1, 1);
    char *text = variable_repr(y);
    assert_string_equal(text, "variable([5 7 9])");
    free(text);
}

/* The shape gy takes before it is broadcast: the summed axes back as
 * size 1, in order, whatever order the axes were given in; gy itself
 * when there is nothing to put back. */
static void test_reshape_sum_backward(void **state)
{
    (void)state;
    Variable *gy = variable(nd_ones(ND_FLOAT64, ND_SHAPE(3)));
    Variable *g = reshape_sum_backward(gy, 3, ND_AXES(2, 0), false);
    assert_int_equal(variable_ndim(g), 3);
    assert_int_equal(variable_shape(g)[0], 1);
    assert_int_equal(variable_shape(g)[1], 3);
    assert_int_equal(variable_shape(g)[2], 1);
    assert_string_equal(g->creator->cls->name, "Reshape");
    g = reshape_sum_backward(gy, 2, ND_AXES(-1), false);        /* (3, 1) */
    assert_int_equal(variable_shape(g)[1], 1);
    assert_ptr_equal(reshape_sum_backward(gy, 3, ND_AXES(0, 2), true), gy);
    Variable *g0 = variable(nd_scalar(1.0));
    assert_ptr_equal(reshape_sum_backward(g0, 3, ND_ALL_AXES, false), g0);
}

/* Sum spreads gy over the elements it added. */
static void test_sum_gradients(void **state)
{
    (void)state;
    CHECK_AT_CUBE(sum_all);
    CHECK_AT_CUBE(sum_0_2);
    CHECK_AT_CUBE(sum_last);
    CHECK_AT_CUBE(sum_2_0_keepdims);
}

/* NumPy's broadcast_to([1, 2, 3], (2, 2, 3)) and its adjoint, sum_to. */
static void test_broadcast_and_sum_to(void **state)
{
    (void)state;
    Variable *v = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3),
                                          (double[]){1, 2, 3}));
    Variable *b = F_broadcast_to(v, ND_SHAPE(2, 2, 3));
    assert_string_equal(b->creator->cls->name, "BroadcastTo");
    EXPECT_ARRAY(b->data, ND_FLOAT64, ND_SHAPE(2, 2, 3), 1, 2, 3, 1, 2, 3,
                 1, 2, 3, 1, 2, 3);
    Variable *s = F_sum_to(b, ND_SHAPE(1, 3));
    assert_string_equal(s->creator->cls->name, "SumTo");
    EXPECT_ARRAY(s->data, ND_FLOAT64, ND_SHAPE(1, 3), 4, 8, 12);
    assert_ptr_equal(F_broadcast_to(v, ND_SHAPE(3)), v);
    assert_ptr_equal(F_sum_to(v, ND_SHAPE(3)), v);
    CHECK_AT_CUBE(broadcast_2_2_3_4);
    Variable *column = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3, 1),
                                               (double[]){1, -2, 0.5}));
    check_gradient("broadcast_to_cube", broadcast_to_cube, column->data,
                   1e-5);
    CHECK_AT_CUBE(sum_to_3_1);
}

/* y = sum over axis 1 of x^3: the recorded gradient 3x^2 comes from
 * BroadcastTo, and differentiated again gives 6x. */
static void test_second_derivative(void **state)
{
    (void)state;
    Variable *x = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(2, 3),
                                          (double[]){1, -2, 3, 0.5, 4, -1}));
    backward(F_sum(F_pow(x, 3), ND_AXES(1), false), .create_graph = true);
    Variable *gx = x->grad;
    EXPECT_ARRAY(gx->data, ND_FLOAT64, ND_SHAPE(2, 3), 3, 12, 27, 0.75, 48,
                 3);
    cleargrad(x);
    Variable *total = F_sum(gx, ND_ALL_AXES, false);
    backward(total, .create_graph = true);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SHAPE(2, 3), 6, -12, 18, 3,
                 24, -6);
}

static void test_errors(void **state)
{
    (void)state;
    Variable *x = cube();
    EXPECT_ND_ERROR(F_broadcast_to(x, ND_SHAPE(3, 4)), "broadcast");
    EXPECT_ND_ERROR(sum_function(ND_AXES(0, 1, 2, 3, 4, 5, 6, 7, 8), false),
                    "at most 8");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_sum_forward),
        STEP_TEST(test_int_sums),
        STEP_TEST(test_reshape_sum_backward),
        STEP_TEST(test_sum_gradients),
        STEP_TEST(test_broadcast_and_sum_to),
        STEP_TEST(test_second_derivative),
        STEP_TEST(test_errors),
    };
    return cmocka_run_group_tests_name("sum", tests, NULL, NULL);
}
