// FIRST_STEP: 41
/* test_matmul.c - step 41: MatMul. The product against NumPy's, its
 * gradients against central differences for the shapes whose products
 * take different BLAS routines (gemm, gemv, dot, outer), with every
 * combination of transposed operands (F_matmul_t), gradients built of
 * MatMuls only (no Transpose copies), a second derivative, a plain
 * array operand, the program's shapes, and the error for shapes that do
 * not line up. */
#include "grad_check.h"

static bool flag_x, flag_W;     /* the flags the checked product uses */

static Variable *product(Variable *xs[])
{
    return F_matmul_t(xs[0], flag_x, xs[1], flag_W);
}

/* op(x) is (n, k) and op(W) is (k, m); the arrays are stored
 * transposed where the flags say so. */
static void check_product(int64_t n, int64_t k, int64_t m, bool tx,
                          bool tW)
{
    NdArray *arrays[2] = {
        tx ? ramp(ND_SHAPE(k, n), 0.5, 0.25) : ramp(ND_SHAPE(n, k), 0.5,
                                                     0.25),
        tW ? ramp(ND_SHAPE(m, k), -1, 0.125) : ramp(ND_SHAPE(k, m), -1,
                                                    0.125),
    };
    char what[96];
    snprintf(what, sizeof what, "(%lld,%lld)%s @ (%lld,%lld)%s",
             (long long)n, (long long)k, tx ? " from .T" : "",
             (long long)k, (long long)m, tW ? " from .T" : "");
    flag_x = tx;
    flag_W = tW;
    check_gradients(what, product, 2, arrays, 1e-6);
    nd_release(arrays[0]);
    nd_release(arrays[1]);
}

/* NumPy: [[1 2 3] [4 5 6]] @ [[1 2] [3 4] [5 6]] = [[22 28] [49 64]]. */
static void test_forward(void **state)
{
    (void)state;
    Variable *x = variable(ramp(ND_SHAPE(2, 3), 1, 1));
    Variable *W = variable(ramp(ND_SHAPE(3, 2), 1, 1));
    Variable *y = F_matmul(x, W);
    assert_string_equal(y->creator->cls->name, "MatMul");
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SHAPE(2, 2), 22, 28, 49, 64);
    /* x^T x: (3, 3) = [[17 22 27] [22 29 36] [27 36 45]] */
    EXPECT_ARRAY(F_matmul_t(x, true, x, false)->data, ND_FLOAT64,
                 ND_SHAPE(3, 3), 17, 22, 27, 22, 29, 36, 27, 36, 45);
    /* an array operand, as Python's F.matmul(x, W) for an ndarray x */
    NdArray *a = ramp(ND_SHAPE(1, 2), 1, 1);
    EXPECT_ARRAY(F_matmul(a, y)->data, ND_FLOAT64, ND_SHAPE(1, 2), 120,
                 156);
    nd_release(a);
}

/* Every shape class and every combination of flags. */
static void test_gradients(void **state)
{
    (void)state;
    static const int64_t shapes[][3] = {
        {2, 3, 4},      /* gemm */
        {4, 3, 1},      /* a column: gemv */
        {1, 3, 4},      /* a row: gemv */
        {1, 3, 1},      /* dot */
        {3, 1, 4},      /* outer product */
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int tx = 0; tx < 2; tx++)
            for (int tW = 0; tW < 2; tW++)
                check_product(shapes[s][0], shapes[s][1], shapes[s][2],
                              tx, tW);
}

/* The gradients are MatMuls with flags, not MatMuls of Transposes:
 * recorded with create_graph, gx and gW come straight from a MatMul
 * whose inputs are gy and the other operand itself. */
static void test_no_transpose_copies(void **state)
{
    (void)state;
    Variable *x = variable(ramp(ND_SHAPE(2, 3), 1, 1));
    Variable *W = variable(ramp(ND_SHAPE(3, 4), 1, 1));
    Variable *y = F_matmul(x, W);
    backward(y, .create_graph = true);
    Function *fx = x->grad->creator, *fW = W->grad->creator;
    assert_string_equal(fx->cls->name, "MatMul");
    assert_string_equal(fW->cls->name, "MatMul");
    assert_ptr_equal(fx->inputs[1], W);
    assert_ptr_equal(fW->inputs[0], x);
    EXPECT_ARRAY(x->grad->data, ND_FLOAT64, ND_SHAPE(2, 3), 10, 26, 42, 10,
                 26, 42);
    EXPECT_ARRAY(W->grad->data, ND_FLOAT64, ND_SHAPE(3, 4), 5, 5, 5, 5, 7,
                 7, 7, 7, 9, 9, 9, 9);
}

/* L = sum(x W) for x (2, 3): gx = ones W^T, and the derivative of
 * sum(gx) by W is 2 (the rows of x) everywhere. */
static void test_second_derivative(void **state)
{
    (void)state;
    Variable *x = variable(ramp(ND_SHAPE(2, 3), 1, 1));
    Variable *W = variable(ramp(ND_SHAPE(3, 4), -1, 0.5));
    backward(F_sum(F_matmul(x, W), ND_ALL_AXES, false),
             .create_graph = true);
    Variable *gx = x->grad;
    cleargrad(W);
    backward(F_sum(gx, ND_ALL_AXES, false));
    EXPECT_ARRAY(grad_array(W), ND_FLOAT64, ND_SHAPE(3, 4), 2, 2, 2, 2, 2,
                 2, 2, 2, 2, 2, 2, 2);
}

/* Python's program: the gradients have the operands' shapes. */
static void test_program(void **state)
{
    (void)state;
    Variable *x = variable(nd_random_randn(ND_SHAPE(2, 3)));
    Variable *w = variable(nd_random_randn(ND_SHAPE(3, 4)));
    backward(F_matmul(x, w));
    char *sx = nd_shape_str(grad_array(x)), *sw = nd_shape_str(grad_array(w));
    assert_string_equal(sx, "(2, 3)");
    assert_string_equal(sw, "(3, 4)");
    free(sx);
    free(sw);
}

/* float32 by float64 is float64, as NumPy's dot gives. */
static void test_mixed_dtypes(void **state)
{
    (void)state;
    NdArray *w64 = ramp(ND_SHAPE(3, 2), 1, 1);
    Variable *W = variable(nd_astype(w64, ND_FLOAT32));
    nd_release(w64);
    Variable *x = variable(ramp(ND_SHAPE(2, 3), 1, 1));
    Variable *y = F_matmul(x, W);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SHAPE(2, 2), 22, 28, 49, 64);
    backward(y);
    assert_int_equal(grad_array(W)->dtype, ND_FLOAT64);
}

static void test_misaligned(void **state)
{
    (void)state;
    Variable *x = variable(ramp(ND_SHAPE(2, 3), 1, 1));
    EXPECT_ND_ERROR(F_matmul(x, x), "not aligned");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_forward),
        STEP_TEST(test_gradients),
        STEP_TEST(test_no_transpose_copies),
        STEP_TEST(test_second_derivative),
        STEP_TEST(test_program),
        STEP_TEST(test_mixed_dtypes),
        STEP_TEST(test_misaligned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
