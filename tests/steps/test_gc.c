// FIRST_STEP: 32
/* test_gc.c - the cycle collector (step 32, memory.c): draining a pool
 * frees the cycles that backward with create_graph makes, with no call
 * to break them: step 33's Newton loop, and 60 random expressions over
 * every function the step has, each computed as the Python original
 * computes (value, gradients with a graph, the second derivative), leave
 * no Variable and no Function alive. gc_collect frees exactly the
 * unreachable objects and nothing else: a gradient graph the program
 * holds survives a collection and gives the right derivative after it.
 * A drain after a plain backward does not collect. */
#include "pool_fixture.h"

/* Live objects now, less those alive when the test began. */
static int variables_at_start, functions_at_start;

static void note_start(void)
{
    variables_at_start = variables_alive;
    functions_at_start = functions_alive;
}

static int objects_made_since_start(void)
{
    return variables_alive - variables_at_start +
           functions_alive - functions_at_start;
}

static void expect_nothing_left(void)
{
    assert_int_equal(variables_alive, variables_at_start);
    assert_int_equal(functions_alive, functions_at_start);
}

/* Step 33's f: x^4 - 2x^2. */
static Variable *quartic(Variable *x)
{
    return F_sub(F_pow(x, 4), F_mul(2, F_pow(x, 2)));
}

/* The cycle of a gradient with a graph, set free by a release after the
 * last collection: an inner drain after a plain backward leaves it (no
 * collection was asked for), and gc_collect frees exactly its objects. */
static void test_collect_counts_what_it_frees(void **state)
{
    (void)state;
    note_start();
    Pool *pool = pool_new();
    Variable *x = retain(variable(nd_scalar(2.0)));
    backward(F_pow(x, 3), .create_graph = true);
    pool_drain(pool);           /* collects; x is held, and so kept */
    assert_non_null(x->grad->creator);
    int cycle = objects_made_since_start();
    assert_true(cycle > 2);
    release(x);                 /* x <-> its gradient's graph: garbage */
    assert_int_equal(objects_made_since_start(), cycle);

    pool = pool_new();
    backward(F_exp(variable(nd_scalar(1.0))));
    pool_drain(pool);           /* nothing asked for a collection */
    assert_int_equal(objects_made_since_start(), cycle);

    assert_int_equal(gc_collect(), cycle);
    expect_nothing_left();
    assert_int_equal(gc_collect(), 0);
}

/* What the program still holds survives a collection, whether a pool
 * or a retain holds it, with its gradient's graph intact: the second
 * derivative taken after the collection is right. */
static void test_reachable_objects_survive(void **state)
{
    (void)state;
    note_start();
    Pool *pool = pool_new();
    Variable *x = retain(variable(nd_scalar(2.0)));
    Variable *y = quartic(x);
    backward(y, .create_graph = true);
    Variable *gx = x->grad;     /* 4x^3 - 4x, held by the pool and x */
    assert_int_equal(gc_collect(), 0);
    pool_drain(pool);           /* collects; x, retained, stays, and so
                                 * does its gradient with its graph */
    assert_ptr_equal(x->grad, gx);
    assert_int_equal(gc_collect(), 0);
    EXPECT_ARRAY(gx->data, ND_FLOAT64, ND_SCALAR_SHAPE, 24.0);

    pool = pool_new();
    retain(gx);
    cleargrad(x);
    backward(gx);               /* 12x^2 - 4 */
    EXPECT_ARRAY(grad_array(x), ND_FLOAT64, ND_SCALAR_SHAPE, 44.0);
    release(gx);
    pool_drain(pool);
    release(x);
    gc_collect();
    expect_nothing_left();
}

/* Step 33's program as Python writes it: each iteration's pool is
 * drained, x's gradients are cleared where Python clears them, and
 * nothing else frees memory. x reaches 1 and nothing is left. */
static void test_newton_loop(void **state)
{
    (void)state;
    note_start();
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(2.0));
    for (int i = 0; i < 10; i++) {
        Pool *step_pool = pool_new();
        Variable *y = quartic(x);
        cleargrad(x);
        backward(y, .create_graph = true);
        Variable *gx = x->grad;
        cleargrad(x);
        backward(gx);
        Variable *gx2 = x->grad;
        NdArray *step = nd_div(gx->data, gx2->data);
        nd_isub(x->data, step);
        nd_release(step);
        pool_drain(step_pool);
    }
    EXPECT_ARRAY(x->data, ND_FLOAT64, ND_SCALAR_SHAPE, 1.0);
    pool_drain(pool);
    expect_nothing_left();
}

/* ---- random expressions over the step's functions */

static unsigned long long random_state;

/* A number in [0, n): a 64-bit linear congruential generator (Knuth's
 * MMIX constants), its high bits; the same expressions every run. */
static int random_below(int n)
{
    random_state = random_state * 6364136223846793005ULL +
                   1442695040888963407ULL;
    return (int)((random_state >> 33) % (unsigned long long)n);
}

/* The functions of one argument that the step has; those that change
 * the shape take a (2, 3) variable, and leave a 0-d one to Neg. */
static Variable *unary(int which, Variable *a)
{
    if (which >= 8 && variable_ndim(a) != 2)
        which = 2;
    switch (which) {
    case 0: return F_square(a);
    case 1: return F_exp(F_mul(a, 0.25));
    case 2: return F_neg(a);
    case 3: return F_pow(a, 3);
    case 4: return F_pow(a, 0.5);
#if STEP >= 34
    case 5: return F_sin(a);
    case 6: return F_cos(a);
#endif
#if STEP >= 35
    case 7: return F_tanh(a);
#endif
#if STEP >= 38
    case 8: return variable_reshape(variable_T(variable_T(
                       variable_reshape(a, 6))), 2, 3);
#endif
#if STEP >= 39
    case 9: return F_broadcast_to(F_sum(a, ND_AXES(1), true),
                                  ND_SHAPE(2, 3));
#endif
    }
    return a;
}

static const int unary_count = STEP >= 39 ? 10 : STEP >= 38 ? 9 :
                               STEP >= 35 ? 8 : STEP >= 34 ? 7 : 5;

/* A random expression in x and y, depth levels deep at most. */
static Variable *expression(Variable *x, Variable *y, int depth)
{
    int kind = depth == 0 ? random_below(3) : random_below(8);
    if (kind == 0)
        return x;
    if (kind == 1)
        return y;
    if (kind == 2)
        return variable(nd_scalar(0.5 + random_below(4)));
    if (kind < 5)
        return unary(random_below(unary_count),
                     expression(x, y, depth - 1));
    Variable *a = expression(x, y, depth - 1);
    Variable *b = expression(x, y, depth - 1);
    switch (random_below(4)) {
    case 0: return F_add(a, b);
    case 1: return F_sub(a, b);
    case 2: return F_mul(a, b);
    default: return F_div(a, F_add(F_square(b), 1));
    }
}

/* A (2, 3) variable of values in [0.5, 2). */
static Variable *operand(void)
{
    NdArray *a = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 3));
    double *values = a->data;
    for (int i = 0; i < 6; i++)
        values[i] = 0.5 + random_below(1500) / 1000.0;
    return variable(a);
}

/* Each expression as a Python program computes it: z, its gradients
 * with create_graph, the grads cleared, then the gradients of x's
 * gradient, again with a graph; then only the pool's drain. */
static void test_random_expressions(void **state)
{
    (void)state;
    random_state = 20261201;
    for (int n = 0; n < 60; n++) {
        note_start();
        Pool *pool = pool_new();
        Variable *x = operand(), *y = operand();
        Variable *z = expression(x, y, 4);
        backward(z, .create_graph = true);
        Variable *gx = x->grad;
        cleargrad(x);
        cleargrad(y);
        if (gx)
            backward(gx, .create_graph = true);
        pool_drain(pool);
        if (objects_made_since_start() != 0)
            fail_msg("expression %d left %d Variables and %d Functions",
                     n, variables_alive - variables_at_start,
                     functions_alive - functions_at_start);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_collect_counts_what_it_frees),
        STEP_TEST(test_reachable_objects_survive),
        STEP_TEST(test_newton_loop),
        STEP_TEST(test_random_expressions),
    };
    return cmocka_run_group_tests_name("gc", tests, NULL, NULL);
}
