// FIRST_STEP: 07
// LAST_STEP: 10
/* test_backward_creator.c - the graph links of step 07 (a Variable's
 * creator, a Function's input and output) and backward(y), which
 * follows them from y back to the inputs. */
#include <math.h>

#include "step_under_test.h"

/* x -A-> a -B-> b -C-> y, with x = 0.5: the graph of steps 06-08. */
typedef struct Chain {
    Function *A, *B, *C;
    Variable *x, *a, *b, *y;
} Chain;

static Chain make_chain(void)
{
    Chain g = {square_function(), exp_function(), square_function(),
               variable(nd_scalar(0.5)), NULL, NULL, NULL};
    g.a = function_call(g.A, g.x);
    g.b = function_call(g.B, g.a);
    g.y = function_call(g.C, g.b);
    return g;
}

static void test_links(void **state)
{
    (void)state;
    Chain g = make_chain();
    assert_null(g.x->creator);
    assert_ptr_equal(g.a->creator, g.A);
    assert_ptr_equal(g.y->creator, g.C);
    assert_ptr_equal(g.B->input, g.a);
    assert_ptr_equal(g.B->output, g.b);
    /* from y back to x through the links alone */
    assert_ptr_equal(g.y->creator->input->creator->input->creator->input,
                     g.x);
}

/* Step 07's program, and every gradient on the way. */
static void test_backward_fills_every_grad(void **state)
{
    (void)state;
    Chain g = make_chain();
    g.y->grad = nd_scalar(1.0);
    backward(g.y);
    double b = nd_item(g.b->data);
    EXPECT_ARRAY(g.b->grad, ND_FLOAT64, ND_SCALAR_SHAPE, 2 * b);
    EXPECT_ARRAY(g.a->grad, ND_FLOAT64, ND_SCALAR_SHAPE,
                 exp(0.25) * (2 * b));
    EXPECT_ARRAY(g.x->grad, ND_FLOAT64, ND_SCALAR_SHAPE, 3.297442541400256);
}

/* Backward from the middle reaches only what lies before it. */
static void test_backward_from_the_middle(void **state)
{
    (void)state;
    Chain g = make_chain();
    g.b->grad = nd_scalar(1.0);
    backward(g.b);
    assert_null(g.y->grad);
    EXPECT_ARRAY(g.a->grad, ND_FLOAT64, ND_SCALAR_SHAPE, exp(0.25));
    EXPECT_ARRAY(g.x->grad, ND_FLOAT64, ND_SCALAR_SHAPE, exp(0.25) * 1.0);
}

/* A variable nobody created has no graph behind it: nothing to do. */
static void test_backward_of_an_input(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    x->grad = nd_scalar(1.0);
    backward(x);
    EXPECT_ARRAY(x->grad, ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
    assert_null(x->creator);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_links),
        cmocka_unit_test(test_backward_fills_every_grad),
        cmocka_unit_test(test_backward_from_the_middle),
        cmocka_unit_test(test_backward_of_an_input),
    };
    return cmocka_run_group_tests_name("backward_creator", tests, NULL,
                                       NULL);
}
