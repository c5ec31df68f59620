// FIRST_STEP: 17
/* test_memory.c - reference counts, weak output links and autorelease
 * pools (step 17): a drained pool frees the whole graph, an object that
 * is retained outlives its pool, and freeing never recurses. */
#include "pool_fixture.h"

/* Step 17's program: each iteration's pool frees all it made. */
static void test_loop_stays_flat(void **state)
{
    (void)state;
    int variables = variables_alive, functions = functions_alive;
    for (int i = 0; i < 3; i++) {
        Pool *pool = pool_new();
        Variable *x = variable(nd_random_randn(ND_SHAPE(100)));
        F_square(F_square(F_square(x)));
        assert_int_equal(variables_alive, variables + 4);
        assert_int_equal(functions_alive, functions + 3);
        pool_drain(pool);
        assert_int_equal(variables_alive, variables);
        assert_int_equal(functions_alive, functions);
    }
}

/* Who holds whom: the pool holds everything once; a function holds its
 * inputs; an output holds its creator; a function's hold on its outputs
 * is weak (no count). */
static void test_reference_counts(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    assert_int_equal(x->object.refcount, 1);
    Variable *y = F_square(x);
    Function *f = y->creator;
    assert_int_equal(x->object.refcount, 2);    /* pool, f */
    assert_int_equal(f->object.refcount, 2);    /* pool, y */
    assert_int_equal(y->object.refcount, 1);    /* pool only */
    assert_ptr_equal(f->outputs[0], y);
}

/* A function that outlives its output sees the weak pointer cleared. */
static void test_weak_output_is_cleared(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(2.0));
    Pool *pool = pool_new();
    Function *f = retain(square_function());
    function_call(f, x);
    assert_non_null(f->outputs[0]);
    pool_drain(pool);
    assert_null(f->outputs[0]);
    assert_int_equal(f->object.refcount, 1);    /* ours */
    assert_int_equal(x->object.refcount, 2);    /* fixture's pool, f */
    release(f);
    assert_int_equal(x->object.refcount, 1);
}

/* A retained result keeps its graph alive after its pool is drained,
 * and frees it when released. */
static void test_retained_result_keeps_its_graph(void **state)
{
    (void)state;
    int variables = variables_alive, functions = functions_alive;
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(3.0));
    Variable *y = retain(F_add(F_square(x), x));
    pool_drain(pool);
    assert_int_equal(variables_alive, variables + 3);  /* x, x^2, y */
    assert_int_equal(functions_alive, functions + 2);
    pool = pool_new();          /* for what backward makes: from step
                                 * 32 the gradients are Variables */
    backward(y);                /* the graph is whole: 2x + 1 */
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 7.0);
    pool_drain(pool);
    release(y);
    assert_int_equal(variables_alive, variables);
    assert_int_equal(functions_alive, functions);
}

/* autorelease hands a reference to the innermost pool. */
static void test_autorelease(void **state)
{
    (void)state;
    Variable *x = variable(nd_scalar(1.0));
    Pool *pool = pool_new();
    assert_ptr_equal(autorelease(retain(x)), x);
    assert_int_equal(x->object.refcount, 2);
    pool_drain(pool);
    assert_int_equal(x->object.refcount, 1);
}

/* Objects go to the innermost pool; pools drain innermost first. */
static void test_nested_pools(void **state)
{
    (void)state;
    int variables = variables_alive;
    Pool *outer = pool_new();
    Variable *a = variable(nd_scalar(1.0));
    Pool *inner = pool_new();
    variable(nd_scalar(2.0));
    EXPECT_ND_ERROR(pool_drain(outer), "pool_drain: the pool is not the "
                    "innermost one; drain the pools opened after it first");
    pool_drain(inner);
    assert_int_equal(variables_alive, variables + 1);
    assert_int_equal(a->object.refcount, 1);
    pool_drain(outer);
    assert_int_equal(variables_alive, variables);
}

/* A chain of 100,000 functions held by its last variable alone: the
 * release of that variable frees 200,000 objects, each freeing the
 * next, without a recursion that deep (which would overflow the C
 * stack). */
enum { DEEP = 100000 };

static void test_long_chain_is_freed_by_a_loop(void **state)
{
    (void)state;
    int variables = variables_alive, functions = functions_alive;
    Pool *pool = pool_new();
    Variable *y = variable(nd_scalar(1.0));
    for (int i = 0; i < DEEP; i++)
        y = F_square(y);
    retain(y);
    pool_drain(pool);
    assert_int_equal(variables_alive, variables + DEEP + 1);
    assert_int_equal(y->object.refcount, 1);
    release(y);
    assert_int_equal(variables_alive, variables);
    assert_int_equal(functions_alive, functions);
}

/* Gradients are arrays the variables own: backward in a pool leaks
 * nothing (LeakSanitizer and valgrind watch this test). */
static void test_backward_in_a_pool(void **state)
{
    (void)state;
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(2.0));
    Variable *a = F_square(x);
    backward(F_add(F_square(a), F_square(a)));
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 64.0);
    pool_drain(pool);
}

/* Without a pool nothing can be made; the array stays the caller's. */
static void test_no_pool(void **state)
{
    (void)state;
    NdArray *a = nd_scalar(1.0);
    EXPECT_ND_ERROR(variable(a), "variable: no autorelease pool is open; "
                    "call pool_new() first");
    EXPECT_ND_ERROR(square_function(), "function_new: no autorelease pool");
    EXPECT_ND_ERROR(autorelease(NULL), "autorelease: no pool is open");
    nd_release(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_loop_stays_flat),
        STEP_TEST(test_reference_counts),
        STEP_TEST(test_weak_output_is_cleared),
        STEP_TEST(test_retained_result_keeps_its_graph),
        STEP_TEST(test_autorelease),
        STEP_TEST(test_nested_pools),
        STEP_TEST(test_long_chain_is_freed_by_a_loop),
        STEP_TEST(test_backward_in_a_pool),
        cmocka_unit_test(test_no_pool),
    };
    return cmocka_run_group_tests_name("memory", tests, NULL, NULL);
}
