/* pool_fixture.h - STEP_TEST(f) declares a cmocka test that runs inside
 * an autorelease pool of its own from step 17 on, drained after the test,
 * so that LeakSanitizer sees each test leave nothing behind. Before step
 * 17 a step leaves its objects to the OS, and the test runs bare. */
#ifndef POOL_FIXTURE_H
#define POOL_FIXTURE_H

#include "step_under_test.h"

#if STEP >= 17
static int pool_fixture_open(void **state)
{
    *state = pool_new();
    return 0;
}

static int pool_fixture_drain(void **state)
{
    pool_drain(*state);
    return 0;
}

#define STEP_TEST(f) \
    cmocka_unit_test_setup_teardown(f, pool_fixture_open, pool_fixture_drain)
#else
#define STEP_TEST(f) cmocka_unit_test(f)
#endif

#endif /* POOL_FIXTURE_H */
