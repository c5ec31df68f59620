// FIRST_STEP: 08
// LAST_STEP: 10
/* test_backward_stack.c - backward driven by an explicit stack (step
 * 08): the stack itself, and a graph far deeper than a recursion over
 * the C call stack should be trusted with. */
#include <math.h>

#include "step_under_test.h"

enum { DEEP = 100000 };     /* functions in the deep chain */

static void test_stack_is_last_in_first_out(void **state)
{
    (void)state;
    FunctionStack stack = {0};
    Function *f = square_function(), *g = exp_function();
    stack_push(&stack, f);
    stack_push(&stack, g);
    assert_ptr_equal(stack_pop(&stack), g);
    assert_ptr_equal(stack_pop(&stack), f);
    assert_int_equal(stack.count, 0);
    free(stack.items);
}

/* It grows past any first capacity and keeps every item. */
static void test_stack_grows(void **state)
{
    (void)state;
    enum { N = 1000 };
    static Function functions[N];
    FunctionStack stack = {0};
    for (int i = 0; i < N; i++)
        stack_push(&stack, &functions[i]);
    assert_int_equal(stack.count, N);
    assert_true(stack.capacity >= N);
    for (int i = N - 1; i >= 0; i--)
        assert_ptr_equal(stack_pop(&stack), &functions[i]);
    free(stack.items);
}

/* y = x^(2^DEEP) through DEEP Squares, at x = 1: every value is 1 and
 * each Square doubles the gradient, so the variable k functions below y
 * has grad 2^k exactly (infinity once 2^k passes DBL_MAX). */
static void test_deep_chain(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(1.0));
    Variable *y = x;
    for (int i = 0; i < DEEP; i++)
        y = function_call(square_function(), y);
    y->grad = nd_scalar(1.0);
    backward(y);

    Variable *v = y;
    for (int k = 0; k <= DEEP; k++) {
        if (nd_item(v->grad) != ldexp(1.0, k))
            fail_msg("grad %d functions below y: got %g, want 2^%d", k,
                     nd_item(v->grad), k);
        v = v->creator ? v->creator->input : v;
    }
    assert_ptr_equal(v, x);
    EXPECT_DOUBLE(nd_item(x->grad), INFINITY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stack_is_last_in_first_out),
        cmocka_unit_test(test_stack_grows),
        cmocka_unit_test(test_deep_chain),
    };
    return cmocka_run_group_tests_name("backward_stack", tests, NULL, NULL);
}
