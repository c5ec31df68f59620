// FIRST_STEP: 40
/* test_broadcast.c - step 40: Add, Sub, Mul and Div broadcast their
 * operands, and backward sums each gradient down to its operand's
 * shape. Every op, for operand shapes (2,3)+(3,), (2,3)+(1,3),
 * (2,1)+(1,3), a 0-d operand on either side and a number, against
 * central differences taken one element at a time; the program's int64
 * case; a second derivative through a broadcast; and the rule that every
 * F_ function takes a Variable, an array or a number (as_variable),
 * while F_sin stays a function whose address can be taken. */
#include <math.h>

#include "grad_check.h"

typedef Variable *(*BinaryOp)(Variable *, Variable *);

static BinaryOp checked_op;     /* the op check_op is checking */

static Variable *call_checked_op(Variable *xs[])
{
    return checked_op(xs[0], xs[1]);
}

/* Backward of sum(w * op(a, b)) against central differences, for both
 * inputs; a has the shape (a_ndim, a_shape), b (b_ndim, b_shape). */
static void check_op(const char *name, BinaryOp op, int a_ndim,
                     const int64_t *a_shape, int b_ndim,
                     const int64_t *b_shape)
{
    NdArray *ab[2] = {
        ramp(a_ndim, a_shape, 0.5, 0.25),
        ramp(b_ndim, b_shape, 2, -0.25),        /* 2 .. 0.75: Div is
                                                 * smooth there */
    };
    char *sa = nd_shape_str(ab[0]), *sb = nd_shape_str(ab[1]);
    char what[96];
    snprintf(what, sizeof what, "%s %s %s", sa, name, sb);
    free(sa);
    free(sb);
    checked_op = op;
    check_gradients(what, call_checked_op, 2, ab, 1e-6);
    nd_release(ab[0]);
    nd_release(ab[1]);
}

static Variable *add(Variable *a, Variable *b) { return F_add(a, b); }
static Variable *sub(Variable *a, Variable *b) { return F_sub(a, b); }
static Variable *mul(Variable *a, Variable *b) { return F_mul(a, b); }
static Variable *divide(Variable *a, Variable *b) { return F_div(a, b); }

static const struct {
    const char *name;
    BinaryOp op;
} ops[] = {{"+", add}, {"-", sub}, {"*", mul}, {"/", divide}};

/* Every op on every pair of shapes, each way round. */
static void check_all_ops(int a_ndim, const int64_t *a_shape, int b_ndim,
                          const int64_t *b_shape)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        check_op(ops[i].name, ops[i].op, a_ndim, a_shape, b_ndim, b_shape);
        check_op(ops[i].name, ops[i].op, b_ndim, b_shape, a_ndim, a_shape);
    }
}

static void test_row_over_matrix(void **state)             /* (2,3) (3,) */
{
    (void)state;
    check_all_ops(ND_SHAPE(2, 3), ND_SHAPE(3));
}

static void test_size1_row_over_matrix(void **state)     /* (2,3) (1,3) */
{
    (void)state;
    check_all_ops(ND_SHAPE(2, 3), ND_SHAPE(1, 3));
}

static void test_column_and_row(void **state)            /* (2,1) (1,3) */
{
    (void)state;
    check_all_ops(ND_SHAPE(2, 1), ND_SHAPE(1, 3));
}

static void test_scalar_and_matrix(void **state)            /* () (2,3) */
{
    (void)state;
    check_all_ops(ND_SCALAR_SHAPE, ND_SHAPE(2, 3));
    check_all_ops(ND_SCALAR_SHAPE, ND_SHAPE(1));
}

static void test_same_shapes_unchanged(void **state)       /* (2,3) (2,3) */
{
    (void)state;
    check_all_ops(ND_SHAPE(2, 3), ND_SHAPE(2, 3));
    /* Nothing to sum: Add hands gy itself to both inputs, as before. */
    Variable *a = variable(nd_ones(ND_FLOAT64, ND_SHAPE(2, 3)));
    Variable *b = variable(nd_ones(ND_FLOAT64, ND_SHAPE(2, 3)));
    Variable *y = F_add(a, b);
    backward(y, .retain_grad = true);
    assert_ptr_equal(a->grad, y->grad);
    assert_ptr_equal(b->grad, y->grad);
}

/* A number operand becomes a 0-d Variable that gets a 0-d gradient:
 * 2 * x for x of (2, 3) gives the 2 the sum of x. (Python computes
 * 2 * x as mul(x, 2): the 2 is the second input.) */
static void test_number_operand(void **state)
{
    (void)state;
    Variable *x = variable(ramp(ND_SHAPE(2, 3), 1, 1));      /* 1 .. 6 */
    Variable *y = F_mul(2.0, x);
    Variable *two = y->creator->inputs[1];
    backward(y);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SHAPE(2, 3), 2, 2, 2, 2, 2,
                 2);
    EXPECT_ARRAY(grad_array(two), ND_FLOAT64, ND_SCALAR_SHAPE, 21);
    Variable *z = F_sub(1, x);                  /* 1 - x, int64 1 */
    Variable *one = z->creator->inputs[0];
    cleargrad(x);
    backward(z);
    EXPECT_ARRAY(grad_array(one), ND_FLOAT64, ND_SCALAR_SHAPE, 6);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SHAPE(2, 3), -1, -1, -1, -1,
                 -1, -1);
}

/* The program: int64 [1 2 3] + [10]; x1's gradient is [3], int64, of
 * x1's shape (1,), as Python prints it. */
static void test_program(void **state)
{
    (void)state;
    Variable *x0 = variable(nd_from_buffer(ND_INT64, ND_SHAPE(3),
                                           (int64_t[]){1, 2, 3}));
    Variable *x1 = variable(nd_from_buffer(ND_INT64, ND_SHAPE(1),
                                           (int64_t[]){10}));
    Variable *y = F_add(x0, x1);
    EXPECT_ARRAY(y->data, ND_INT64, ND_SHAPE(3), 11, 12, 13);
    backward(y);
    EXPECT_ARRAY(grad_array(x1), ND_INT64, ND_SHAPE(1), 3);
    EXPECT_ARRAY(grad_array(x0), ND_INT64, ND_SHAPE(3), 1, 1, 1);
    char *text = variable_repr(x1->grad);
    assert_string_equal(text, "variable([3])");
    free(text);
}

/* The sum in backward is recorded with create_graph: for
 * L = sum(x0 * x1), x0 (2, 3) and x1 (3,), dL/dx1 = sum over axis 0 of
 * x0, and the derivative of sum(dL/dx1) by x0 is 1 everywhere. */
static void test_second_order(void **state)
{
    (void)state;
    Variable *x0 = variable(ramp(ND_SHAPE(2, 3), 1, 1));
    Variable *x1 = variable(ramp(ND_SHAPE(3), -1, 0.5));
    Variable *L = F_sum(F_mul(x0, x1), ND_ALL_AXES, false);
    backward(L, .create_graph = true);
    Variable *g1 = x1->grad;
    EXPECT_ARRAY(g1->data, ND_FLOAT64, ND_SHAPE(3), 5, 7, 9);
    assert_non_null(g1->creator);
    cleargrad(x0);
    Variable *s = F_sum(g1, ND_ALL_AXES, false);
    cleargrad(x1);
    backward(s);
    EXPECT_ARRAY(grad_array(x0), ND_FLOAT64, ND_SHAPE(2, 3), 1, 1, 1, 1,
                 1, 1);
}

/* Every F_ function takes a Variable, an array or a number, as Python's
 * F.sin(0.5) does; called without parentheses F_sin is the function on
 * a Variable, whose address can be passed. */
static void test_every_function_takes_numbers_and_arrays(void **state)
{
    (void)state;
    /* NumPy's sin and cos (nd_sin's) may differ from libm's in the
     * last bit. */
    EXPECT_ARRAY_CLOSE(F_sin(0.5)->data, ND_FLOAT64, 1e-15, ND_SCALAR_SHAPE,
                       sin(0.5));
    EXPECT_ARRAY_CLOSE(F_cos(0.5)->data, ND_FLOAT64, 1e-15, ND_SCALAR_SHAPE,
                       cos(0.5));
    EXPECT_ARRAY_CLOSE(F_tanh(0.5)->data, ND_FLOAT64, 1e-15,
                       ND_SCALAR_SHAPE, tanh(0.5));
    EXPECT_ARRAY(F_exp(0)->data, ND_FLOAT64, ND_SCALAR_SHAPE, 1);
    EXPECT_ARRAY(F_square(3)->data, ND_INT64, ND_SCALAR_SHAPE, 9);
    EXPECT_ARRAY(F_pow(2, 3)->data, ND_INT64, ND_SCALAR_SHAPE, 8);
    EXPECT_ARRAY(F_neg(2.5)->data, ND_FLOAT64, ND_SCALAR_SHAPE, -2.5);

    NdArray *a = ramp(ND_SHAPE(2, 3), 1, 1);
    EXPECT_ARRAY(F_sum(a, ND_ALL_AXES, false)->data, ND_FLOAT64,
                 ND_SCALAR_SHAPE, 21);
    EXPECT_ARRAY(F_reshape(a, ND_SHAPE(3, 2))->data, ND_FLOAT64,
                 ND_SHAPE(3, 2), 1, 2, 3, 4, 5, 6);
    EXPECT_ARRAY(F_transpose(a, 0, NULL)->data, ND_FLOAT64, ND_SHAPE(3, 2),
                 1, 4, 2, 5, 3, 6);
    EXPECT_ARRAY(F_sum_to(a, ND_SHAPE(1, 3))->data, ND_FLOAT64,
                 ND_SHAPE(1, 3), 5, 7, 9);
    EXPECT_ARRAY(F_broadcast_to(2.0, ND_SHAPE(2))->data, ND_FLOAT64,
                 ND_SHAPE(2), 2, 2);
    const NdArray *ca = a;
    EXPECT_ARRAY_CLOSE(F_sin(ca)->data, ND_FLOAT64, 1e-15, ND_SHAPE(2, 3),
                       sin(1), sin(2), sin(3), sin(4), sin(5), sin(6));
    nd_release(a);

    Variable *(*f)(Variable *) = F_sin;         /* the function itself */
    Variable *x = variable(nd_scalar(0.5));
    Variable *y = f(x);
    assert_string_equal(y->creator->cls->name, "Sin");
    NdArray *num = numerical_diff(F_tanh, x, 1e-4);
    assert_true(fabs(nd_item(num) - (1 - tanh(0.5) * tanh(0.5))) < 1e-8);
    nd_release(num);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_row_over_matrix),
        STEP_TEST(test_size1_row_over_matrix),
        STEP_TEST(test_column_and_row),
        STEP_TEST(test_scalar_and_matrix),
        STEP_TEST(test_same_shapes_unchanged),
        STEP_TEST(test_number_operand),
        STEP_TEST(test_program),
        STEP_TEST(test_second_order),
        STEP_TEST(test_every_function_takes_numbers_and_arrays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
