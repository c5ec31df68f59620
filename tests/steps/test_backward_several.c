// FIRST_STEP: 13
// LAST_STEP: 31
/* test_backward_several.c - backward with several inputs and outputs
 * (step 13): a class's backward maps all output gradients to all input
 * gradients, and backward(y) gives each input its own.
 * Until step 31, where gradients are arrays; from step 32 see
 * test_backward_variables.c. */
#include "pool_fixture.h"

/* Step 13's program: z = x^2 + y^2 at (2, 3). */
static void test_sum_of_squares(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    Variable *y = variable(nd_scalar(3.0));
    Variable *z = F_add(F_square(x), F_square(y));
    backward(z);
    EXPECT_ARRAY(z->data, ND_FLOAT64, ND_SCALAR_SHAPE, 13.0);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 4.0);
    EXPECT_ARRAY(grad_array(y), ND_FLOAT64, ND_SCALAR_SHAPE, 6.0);
}

/* Add passes gy on to both inputs: the very same array, twice. */
static void test_add_backward_shares_gy(void **state)
{
    (void)state;
    Function *f = add_function();
    function_call(f, variable(nd_scalar(1.0)), variable(nd_scalar(2.0)));
    NdArray *gy = nd_scalar(0.5);
    NdArray *gxs[2];
    function_backward(f, (NdArray *[]){gy}, gxs);
    assert_ptr_equal(gxs[0], gy);
    assert_ptr_equal(gxs[1], gy);
    assert_int_equal(gy->refcount, 3);
    nd_release(gxs[0]);
    nd_release(gxs[1]);
    nd_release(gy);
}

/* A two-input class written here, y = x0 * x1: each input gets the
 * gradient that belongs to it, in order. */
static void product_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_mul(xs[0], xs[1]);
}

static void product_backward(Function *self, NdArray *gys[],
                             NdArray *gxs[])
{
    gxs[0] = nd_mul(gys[0], self->inputs[1]->data);
    gxs[1] = nd_mul(gys[0], self->inputs[0]->data);
}

static const FunctionClass product_class = {
    .name = "Product",
    .noutputs = 1,
    .forward = product_forward,
    .backward = product_backward,
};

static void test_each_input_gets_its_gradient(void **state)
{
    (void)state;
    Variable *a = variable(nd_scalar(3.0)), *b = variable(nd_scalar(2.0));
    Variable *y = function_call(function_new(&product_class),
                                F_square(a), b);     /* a^2 b */
    backward(y);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 18.0);
    EXPECT_ARRAY(grad_array(a), ND_FLOAT64, ND_SCALAR_SHAPE, 12.0);  /* 2ab */
    EXPECT_ARRAY(grad_array(b), ND_FLOAT64, ND_SCALAR_SHAPE, 9.0);   /* a^2 */
}

/* A class with two outputs, y0 = x + x and y1 = x * x: its backward
 * gets both output gradients, 2 gy0 + 2x gy1. */
static void double_and_square_forward(Function *self, NdArray *xs[],
                                      NdArray *ys[])
{
    (void)self;
    ys[0] = nd_add(xs[0], xs[0]);
    ys[1] = nd_mul(xs[0], xs[0]);
}

static void double_and_square_backward(Function *self, NdArray *gys[],
                                       NdArray *gxs[])
{
    NdArray *two = nd_scalar(2.0);
    NdArray *two_x = nd_mul(two, self->inputs[0]->data);
    NdArray *from_y0 = nd_mul(two, gys[0]);
    NdArray *from_y1 = nd_mul(two_x, gys[1]);
    gxs[0] = nd_add(from_y0, from_y1);
    nd_release(two);
    nd_release(two_x);
    nd_release(from_y0);
    nd_release(from_y1);
}

static const FunctionClass double_and_square_class = {
    .name = "DoubleAndSquare",
    .noutputs = 2,
    .forward = double_and_square_forward,
    .backward = double_and_square_backward,
};

static void test_gradients_of_two_outputs(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(3.0));
    Function *f = function_new(&double_and_square_class);
    Variable *y0 = function_call(f, x);
    Variable *y1 = f->outputs[1];
    y0->grad = nd_scalar(1.0);
    y1->grad = nd_scalar(10.0);
    backward(y0);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 62.0);
}

/* A class may give some inputs no gradient (DeZero's softmax cross
 * entropy gives none to its labels): y = x0 + x1, gradient to x0 only. */
static void sum_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_add(xs[0], xs[1]);
}

static void first_only_backward(Function *self, NdArray *gys[],
                                NdArray *gxs[])
{
    (void)self;
    gxs[0] = nd_retain(gys[0]);
}

static const FunctionClass first_only_class = {
    .name = "FirstOnly",
    .noutputs = 1,
    .forward = sum_forward,
    .backward = first_only_backward,
};

static void test_an_input_without_gradient(void **state)
{
    (void)state;
    Variable *a = variable(nd_scalar(1.0)), *b = variable(nd_scalar(2.0));
    Variable *sb = F_square(b);
    Variable *y = function_call(function_new(&first_only_class), a, sb);
    backward(y);
    EXPECT_ARRAY(grad_array(a), ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
    assert_null(grad_array(sb));
    assert_null(grad_array(b));       /* sb's creator was never visited */
}

/* Add's gradient agrees with the central difference (y = x + 3). */
static Variable *plus_three(Variable *x)
{
    return F_add(x, variable(nd_scalar(3.0)));
}

static void test_add_gradient_check(void **state)
{
    (void)state;
    double values[] = {0.25, -1.5, 4.0};
    Variable *x = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3), values));
    backward(plus_three(x));
    NdArray *num = numerical_diff(plus_three, x, 1e-4);
    EXPECT_ALLCLOSE(grad_array(x), num, 1e-5, 1e-8);
    nd_release(num);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_sum_of_squares),
        STEP_TEST(test_add_backward_shares_gy),
        STEP_TEST(test_each_input_gets_its_gradient),
        STEP_TEST(test_gradients_of_two_outputs),
        STEP_TEST(test_an_input_without_gradient),
        STEP_TEST(test_add_gradient_check),
    };
    return cmocka_run_group_tests_name("backward_several", tests, NULL,
                                       NULL);
}
