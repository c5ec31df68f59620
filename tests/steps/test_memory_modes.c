// FIRST_STEP: 18
/* test_memory_modes.c - the modes of step 18: backward drops the
 * gradients of intermediate variables unless asked to retain them, and
 * USING_CONFIG / NO_GRAD run a block without recording the graph,
 * restoring the setting on every way out of the block. */
#include "pool_fixture.h"

/* Step 18's program. */
static void test_intermediate_grads_are_dropped(void **state)
{
    (void)state;
    Variable *x0 = variable(nd_scalar(1.0));
    Variable *x1 = variable(nd_scalar(1.0));
    Variable *t = F_add(x0, x1);
    Variable *y = F_add(x0, t);
    backward(y);
    assert_null(grad_array(y));
    assert_null(grad_array(t));
    EXPECT_ARRAY(grad_array(x0), ND_FLOAT64, ND_SCALAR_SHAPE, 2.0);
    EXPECT_ARRAY(grad_array(x1), ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
}

static void test_retain_grad_keeps_them(void **state)
{
    (void)state;
    Variable *x0 = variable(nd_scalar(1.0));
    Variable *x1 = variable(nd_scalar(1.0));
    Variable *t = F_add(x0, x1);
    Variable *y = F_add(x0, t);
    backward(y, .retain_grad = true);
    EXPECT_ARRAY(grad_array(y), ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
    EXPECT_ARRAY(grad_array(t), ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
    EXPECT_ARRAY(grad_array(x0), ND_FLOAT64, ND_SCALAR_SHAPE, 2.0);
}

/* Dropping a gradient another variable shares leaves the other's. */
static void test_dropping_keeps_shared_arrays(void **state)
{
    (void)state;
    Variable *a = variable(nd_scalar(1.0)), *b = variable(nd_scalar(2.0));
    Variable *y = F_add(F_square(a), b);   /* grad_array(b) is y's gradient */
    backward(y);
    EXPECT_ARRAY(grad_array(b), ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
    EXPECT_ARRAY(grad_array(a), ND_FLOAT64, ND_SCALAR_SHAPE, 2.0);
}

static void test_default_records_the_graph(void **state)
{
    (void)state;
    assert_true(config.enable_backprop);
    Variable *x = variable(nd_scalar(2.0));
    Variable *y = F_square(x);
    assert_non_null(y->creator);
    assert_int_equal(x->object.refcount, 2);    /* pool, Square */
}

/* Without backprop the output is a plain variable and the function
 * holds nothing: no creator, no inputs kept. */
static void test_no_grad_records_nothing(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    Function *f = square_function();
    Variable *y = NULL;
    NO_GRAD {
        assert_false(config.enable_backprop);
        y = function_call(f, x);
    }
    assert_true(config.enable_backprop);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 4.0);
    assert_null(y->creator);
    assert_int_equal(y->generation, 0);
    assert_int_equal(f->ninputs, 0);
    assert_int_equal(f->noutputs, 0);
    assert_int_equal(x->object.refcount, 1);
    assert_int_equal(f->object.refcount, 1);    /* the pool only */
}

/* A result retained beyond its pool keeps its whole graph alive; made
 * under NO_GRAD, it is alone. */
static void test_no_grad_result_is_alone(void **state)
{
    (void)state;
    int variables = variables_alive, functions = functions_alive;
    Pool *pool = pool_new();
    Variable *y = retain(F_square(F_square(variable(nd_scalar(3.0)))));
    pool_drain(pool);
    assert_int_equal(variables_alive, variables + 3);   /* x, x^2, y */
    assert_int_equal(functions_alive, functions + 2);
    release(y);

    pool = pool_new();
    NO_GRAD {
        y = retain(F_square(F_square(variable(nd_scalar(3.0)))));
    }
    pool_drain(pool);
    assert_int_equal(variables_alive, variables + 1);   /* y alone */
    assert_int_equal(functions_alive, functions);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SCALAR_SHAPE, 81.0);
    release(y);
    assert_int_equal(variables_alive, variables);
}

static void test_using_config(void **state)
{
    (void)state;
    USING_CONFIG(enable_backprop, false) {
        assert_false(config.enable_backprop);
        USING_CONFIG(enable_backprop, true) {
            assert_true(config.enable_backprop);
        }
        assert_false(config.enable_backprop);
    }
    assert_true(config.enable_backprop);
}

/* Every way out of the block restores the setting. */
static bool seen_inside;

static int leave_by_return(void)
{
    NO_GRAD {
        seen_inside = config.enable_backprop;
        return 1;
    }
    return 0;
}

static void test_restored_on_every_exit(void **state)
{
    (void)state;
    NO_GRAD {
        break;
    }
    assert_true(config.enable_backprop);
    NO_GRAD {
        continue;
    }
    assert_true(config.enable_backprop);
    assert_int_equal(leave_by_return(), 1);
    assert_false(seen_inside);
    assert_true(config.enable_backprop);
    NO_GRAD {
        goto out;
    }
out:
    assert_true(config.enable_backprop);
}

/* break belongs to the block, not to an enclosing loop. */
static void test_break_leaves_the_block_only(void **state)
{
    (void)state;
    int iterations = 0;
    for (int i = 0; i < 3; i++) {
        NO_GRAD {
            break;
        }
        iterations++;
    }
    assert_int_equal(iterations, 3);
}

/* What the macro cannot do: an error that longjmps out of the block
 * (as the tests' error handler does) skips the restore. */
static void test_longjmp_is_not_covered(void **state)
{
    (void)state;
    Variable *a = variable(nd_zeros(ND_FLOAT64, ND_SHAPE(2)));
    Variable *b = variable(nd_zeros(ND_FLOAT64, ND_SHAPE(3)));
    NO_GRAD {
        EXPECT_ND_ERROR(F_add(a, b), "could not be broadcast");
    }
    assert_true(config.enable_backprop);       /* inside: restored */
    EXPECT_ND_ERROR(({ NO_GRAD { F_add(a, b); } }),
                    "could not be broadcast");
    assert_false(config.enable_backprop);      /* jumped out: not */
    config.enable_backprop = true;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_intermediate_grads_are_dropped),
        STEP_TEST(test_retain_grad_keeps_them),
        STEP_TEST(test_dropping_keeps_shared_arrays),
        STEP_TEST(test_default_records_the_graph),
        STEP_TEST(test_no_grad_records_nothing),
        STEP_TEST(test_no_grad_result_is_alone),
        STEP_TEST(test_using_config),
        STEP_TEST(test_restored_on_every_exit),
        STEP_TEST(test_break_leaves_the_block_only),
        STEP_TEST(test_longjmp_is_not_covered),
    };
    return cmocka_run_group_tests_name("memory_modes", tests, NULL, NULL);
}
