// FIRST_STEP: 16
/* test_generations.c - generations and the order of backward (step 16):
 * the pending function of the highest generation runs next, among equals
 * the one pushed last (Python's stable sort), and each runs once per
 * pass. The order decides in which order gradients are summed. */
#include <math.h>

#include "pool_fixture.h"

/* Step 16's program: the diamond of step 15, now right. */
static void test_diamond(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    Variable *a = F_square(x);
    Variable *y = F_add(F_square(a), F_square(a));
    backward(y);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 32.0);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 64.0);
}

static void test_generation_numbers(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    Variable *a = F_square(x);
    Variable *b = F_square(a);
    Variable *c = F_add(b, x);      /* inputs of generations 2 and 0 */
    assert_int_equal(x->generation, 0);
    assert_int_equal(a->creator->generation, 0);
    assert_int_equal(a->generation, 1);
    assert_int_equal(b->generation, 2);
    assert_int_equal(c->creator->generation, 2);
    assert_int_equal(c->generation, 3);
}

/* Python's demonstration: generations 2, 0, 1, 4, 2 pushed in this order
 * come out 4, then the second 2, the first 2, 1, 0. */
static void test_stack_order(void **state)
{
    (void)state;
    int generations[] = {2, 0, 1, 4, 2};
    Function functions[5] = {0};
    FunctionStack stack = {0};
    for (int i = 0; i < 5; i++) {
        functions[i].generation = generations[i];
        stack_push(&stack, &functions[i]);
    }
    int order[] = {3, 4, 0, 2, 1};
    for (int i = 0; i < 5; i++)
        assert_ptr_equal(stack_pop(&stack), &functions[order[i]]);
    assert_int_equal(stack.count, 0);
    free(stack.items);
}

/* A class that counts its backward calls: y = x. */
static int identity_backward_calls;

static void identity_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_copy(xs[0]);
}

/* It passes gy on: an array until step 31, a Variable from step 32. */
#if STEP < 32
static void identity_backward(Function *self, NdArray *gys[],
                              NdArray *gxs[])
{
    (void)self;
    identity_backward_calls++;
    gxs[0] = nd_retain(gys[0]);
}
#else
static void identity_backward(Function *self, Variable *gys[],
                              Variable *gxs[])
{
    (void)self;
    identity_backward_calls++;
    gxs[0] = gys[0];
}
#endif

static const FunctionClass identity_class = {
    .name = "Identity",
    .noutputs = 1,
    .forward = identity_forward,
    .backward = identity_backward,
};

/* In the diamond, a's creator runs once per backward pass, also when
 * the same graph is walked again. */
static void test_each_function_runs_once_per_pass(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    Variable *a = function_call(function_new(&identity_class), x);
    Variable *b = F_square(a), *c = F_square(a);
    Variable *y = F_add(b, c);
    identity_backward_calls = 0;
    backward(y);
    assert_int_equal(identity_backward_calls, 1);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 8.0);
    Variable *all[] = {x, a, b, c, y};
    for (int i = 0; i < 5; i++)
        cleargrad(all[i]);
    backward(y);
    assert_int_equal(identity_backward_calls, 2);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 8.0);
}

/* v receives three gradients: 1 from the outer Add, then e^v and 2v from
 * Exp and Square, which have the same generation. The one pushed last
 * runs first, so the sum is (1 + e^v) + 2v or (1 + 2v) + e^v depending
 * on the order of Add's inputs, and at v = 1.1 the two differ in the
 * last bit. The values are the Python original's. */
static void test_ties_go_to_the_last_pushed(void **state)
{
    (void)state;
    Variable *v = variable(nd_scalar(1.1));
    Variable *sq = F_square(v), *ex = F_exp(v);
    backward(F_add(F_add(sq, ex), v));
    EXPECT_DOUBLE(nd_item(grad_array(v)), 6.204166023946434);

    Variable *w = variable(nd_scalar(1.1));
    Variable *ex2 = F_exp(w), *sq2 = F_square(w);
    backward(F_add(F_add(ex2, sq2), w));
    EXPECT_DOUBLE(nd_item(grad_array(w)), 6.204166023946433);
}

/* A chain deeper than recursion should be trusted with: y = x + 0 + 0
 * ... through DEEP Adds. Every gradient is 1; zero collects DEEP. */
enum { DEEP = 100000 };

static void test_deep_chain(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(1.0));
    Variable *zero = variable(nd_scalar(0.0));
    Variable *y = x;
    for (int i = 0; i < DEEP; i++)
        y = F_add(y, zero);
    assert_int_equal(y->generation, DEEP);
    backward(y);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
    EXPECT_ARRAY(grad_array(zero), ND_FLOAT64, ND_SCALAR_SHAPE, (double)DEEP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_diamond),
        STEP_TEST(test_generation_numbers),
        STEP_TEST(test_stack_order),
        STEP_TEST(test_each_function_runs_once_per_pass),
        STEP_TEST(test_ties_go_to_the_last_pushed),
        STEP_TEST(test_deep_chain),
    };
    return cmocka_run_group_tests_name("generations", tests, NULL, NULL);
}
