/* pool_fixture.h - STEP_TEST(f) declares a cmocka test with a setup and
 * a teardown that keep one test's failure from spoiling the others:
 *
 * - From step 17 the test runs inside an autorelease pool of its own,
 *   drained after the test, so that LeakSanitizer sees each test leave
 *   nothing behind. A test that fails while pools it opened are still
 *   open (cmocka jumps out of it) leaves them to the teardown, which
 *   drains them innermost first, then the test's own. (Before step 17 a
 *   step leaves its objects to the OS, and there is no pool.)
 * - An nd_error the test did not expect fails the test with its message
 *   instead of ending the program, and the handler the test found is
 *   back for the next test.
 * - From step 18 the configuration (enable_backprop) is restored, so a
 *   failure inside NO_GRAD does not switch backprop off for the rest. */
#ifndef POOL_FIXTURE_H
#define POOL_FIXTURE_H

#include "step_under_test.h"

static NdErrorHandler fixture_saved_handler;

/* An nd_error outside EXPECT_ND_ERROR: the test fails, with the message;
 * cmocka jumps to the teardown. */
static void fixture_unexpected_error(const char *message)
{
    fail_msg("unexpected error: %s", message);
}

#if STEP >= 18
static Config fixture_saved_config;
#endif

#if STEP >= 17
/* The pools open now, outermost first, as the test code opened them
 * (pool_new and pool_drain below are macros over the step's own). */
enum { FIXTURE_MAX_POOLS = 64 };
static Pool *fixture_pools[FIXTURE_MAX_POOLS];
static int fixture_npools;

static Pool *fixture_pool_new(void)
{
    Pool *pool = (pool_new)();
    if (fixture_npools < FIXTURE_MAX_POOLS)
        fixture_pools[fixture_npools++] = pool;
    return pool;
}

static void fixture_pool_drain(Pool *pool)
{
    (pool_drain)(pool);
    for (int i = fixture_npools - 1; i >= 0; i--)
        if (fixture_pools[i] == pool) {
            fixture_npools = i;
            break;
        }
}

#define pool_new() fixture_pool_new()
#define pool_drain(pool) fixture_pool_drain(pool)
#endif

static int pool_fixture_open(void **state)
{
    fixture_saved_handler = nd_set_error_handler(fixture_unexpected_error);
#if STEP >= 18
    fixture_saved_config = config;
#endif
#if STEP >= 17
    fixture_npools = 0;
    *state = pool_new();
#else
    (void)state;
#endif
    return 0;
}

static int pool_fixture_drain(void **state)
{
#if STEP >= 17
    /* What a failing test left open, innermost first, then its own. */
    while (fixture_npools > 0 && fixture_pools[fixture_npools - 1] != *state)
        pool_drain(fixture_pools[fixture_npools - 1]);
    pool_drain(*state);
#else
    (void)state;
#endif
#if STEP >= 18
    config = fixture_saved_config;
#endif
    nd_set_error_handler(fixture_saved_handler);
    return 0;
}

#define STEP_TEST(f) \
    cmocka_unit_test_setup_teardown(f, pool_fixture_open, pool_fixture_drain)

#endif /* POOL_FIXTURE_H */
