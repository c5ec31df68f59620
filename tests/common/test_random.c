/* test_random.c - nd_random_* against NumPy 1.24's legacy np.random:
 * the values NumPy 1.24's np.random.seed, rand, randn, permutation,
 * randint and shuffle return, printed by Debian's NumPy and written into
 * this test. Floats are Python reprs, which round-trip the double
 * exactly, so EXPECT_ARRAY compares to the last bit. */
#include <math.h>

#include "nd_test.h"

/* EXPECT_ARRAY on a fresh result, which is then released; a failure
 * names the test's line. */
static void expect_and_release(const char *file, int line, const char *expr,
                               NdArray *a, NdDtype dtype, int ndim,
                               const int64_t *shape, const double *values)
{
    nd_test_expect(file, line, expr, a, dtype, ndim, shape, values, 0.0);
    nd_release(a);
}
#define EXPECT_AND_RELEASE(a, dtype, ndim_shape, ...)                     \
    expect_and_release(__FILE__, __LINE__, #a, (a), (dtype), ndim_shape,  \
                       (const double[]){__VA_ARGS__})

/* ------------------------------------------------------------ unseeded */

/* Must run first: before any seed the generator seeds itself from the
 * OS, so its first draws are not those of seed(0). */
static void test_unseeded_draws_differ_from_seed_0(void **state)
{
    (void)state;
    NdArray *a = nd_random_rand(ND_SHAPE(4));
    bool same_as_seed_0 = nd_get_flat(a, 0) == 0.5488135039273248 &&
                           nd_get_flat(a, 1) == 0.7151893663724195;
    assert_false(same_as_seed_0);
    for (int64_t i = 0; i < a->size; i++) {
        assert_true(nd_get_flat(a, i) >= 0.0);
        assert_true(nd_get_flat(a, i) < 1.0);
    }
    nd_release(a);
}

/* ------------------------------------------------------------ reference */

static void test_rand_seed_0(void **state)
{
    (void)state;
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_rand(ND_SHAPE(8)), ND_FLOAT64, ND_SHAPE(8),
                       0.5488135039273248, 0.7151893663724195,
                       0.6027633760716439, 0.5448831829968969,
                       0.4236547993389047, 0.6458941130666561,
                       0.4375872112626925, 0.8917730007820798);
}

static void test_randn_seed_0(void **state)
{
    (void)state;
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_randn(ND_SHAPE(8)), ND_FLOAT64, ND_SHAPE(8),
                       1.764052345967664, 0.4001572083672233,
                       0.9787379841057392, 2.240893199201458,
                       1.8675579901499675, -0.977277879876411,
                       0.9500884175255894, -0.1513572082976979);
}

/* randn(7) leaves the 8th normal cached; the next randn returns it. */
static void test_randn_odd_count_caches_a_value(void **state)
{
    (void)state;
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_randn(ND_SHAPE(7)), ND_FLOAT64, ND_SHAPE(7),
                       1.764052345967664, 0.4001572083672233,
                       0.9787379841057392, 2.240893199201458,
                       1.8675579901499675, -0.977277879876411,
                       0.9500884175255894);
    EXPECT_AND_RELEASE(nd_random_randn(ND_SHAPE(1)), ND_FLOAT64, ND_SHAPE(1),
                       -0.1513572082976979);
}

/* rand between two randn calls does not touch the cached normal. */
static void test_randn_rand_randn_interleaved(void **state)
{
    (void)state;
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_randn(ND_SHAPE(3)), ND_FLOAT64, ND_SHAPE(3),
                       1.764052345967664, 0.4001572083672233,
                       0.9787379841057392);
    EXPECT_AND_RELEASE(nd_random_rand(ND_SHAPE(2)), ND_FLOAT64, ND_SHAPE(2),
                       0.4236547993389047, 0.6458941130666561);
    EXPECT_AND_RELEASE(nd_random_randn(ND_SHAPE(3)), ND_FLOAT64, ND_SHAPE(3),
                       2.240893199201458, 0.9500884175255894,
                       -0.1513572082976979);
}

static void test_permutation_10(void **state)
{
    (void)state;
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_permutation(10), ND_INT64, ND_SHAPE(10),
                       2, 8, 4, 9, 1, 6, 7, 3, 0, 5);
}

static void test_permutation_100(void **state)
{
    (void)state;
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_permutation(100), ND_INT64, ND_SHAPE(100),
        26, 86, 2, 55, 75, 93, 16, 73, 54, 95, 53, 92, 78, 13, 7, 30, 22,
        24, 33, 8, 43, 62, 3, 71, 45, 48, 6, 99, 82, 76, 60, 80, 90, 68,
        51, 27, 18, 56, 63, 74, 1, 61, 42, 41, 4, 15, 17, 40, 38, 5, 91,
        59, 0, 34, 28, 50, 11, 35, 23, 52, 10, 31, 66, 57, 79, 85, 32, 84,
        14, 89, 19, 29, 49, 97, 98, 69, 20, 94, 72, 77, 25, 37, 81, 46, 39,
        65, 58, 12, 88, 70, 87, 36, 21, 83, 9, 96, 67, 64, 47, 44);
}

static void test_rand_seed_1984(void **state)
{
    (void)state;
    nd_random_seed(1984);
    EXPECT_AND_RELEASE(nd_random_rand(ND_SHAPE(5)), ND_FLOAT64, ND_SHAPE(5),
                       0.00875572949604042, 0.2987455681607146,
                       0.0564140738326363, 0.4826869218234786,
                       0.2818432190329727);
}

static void test_randn_seed_2020(void **state)
{
    (void)state;
    nd_random_seed(2020);
    EXPECT_AND_RELEASE(nd_random_randn(ND_SHAPE(5)), ND_FLOAT64, ND_SHAPE(5),
                       -1.7688457055759508, 0.07555227120810952,
                       -1.1306297028053423, -0.6514301669047348,
                       -0.8931156263199002);
}

static void test_randint_reference(void **state)
{
    (void)state;
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_randint(0, 10, ND_SHAPE(10)), ND_INT64,
                       ND_SHAPE(10), 5, 0, 3, 3, 7, 9, 3, 5, 2, 4);
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_randint(0, 255, ND_SHAPE(8)), ND_INT64,
                       ND_SHAPE(8), 172, 47, 117, 192, 67, 251, 195, 103);
}

static void test_rand_2d_is_row_major(void **state)
{
    (void)state;
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_rand(ND_SHAPE(2, 3)), ND_FLOAT64,
                       ND_SHAPE(2, 3),
                       0.5488135039273248, 0.7151893663724195,
                       0.6027633760716439, 0.5448831829968969,
                       0.4236547993389047, 0.6458941130666561);
}

/* np.random.randn(2, 3).astype(np.float32) */
static void test_randn_cast_to_float32(void **state)
{
    (void)state;
    nd_random_seed(0);
    NdArray *x = nd_random_randn(ND_SHAPE(2, 3));
    EXPECT_AND_RELEASE(nd_astype(x, ND_FLOAT32), ND_FLOAT32, ND_SHAPE(2, 3),
                       1.764052391052246, 0.40015721321105957,
                       0.978738009929657, 2.2408931255340576,
                       1.8675580024719238, -0.9772778749465942);
    nd_release(x);
}

static void test_shuffle_arange_10(void **state)
{
    (void)state;
    nd_random_seed(0);
    NdArray *x = nd_arange(0, 10, 1, ND_INT64);
    nd_random_shuffle(x);
    EXPECT_AND_RELEASE(x, ND_INT64, ND_SHAPE(10),
                       2, 8, 4, 9, 1, 6, 7, 3, 0, 5);
}

static void test_rand_largest_seed(void **state)
{
    (void)state;
    nd_random_seed(UINT32_MAX);
    EXPECT_AND_RELEASE(nd_random_rand(ND_SHAPE(3)), ND_FLOAT64, ND_SHAPE(3),
                       0.0976320289940138, 0.9123828453026218,
                       0.78903530185164);
}

/* 1000 doubles take 2000 words: the state twists more than once. */
static void test_rand_after_1000_draws(void **state)
{
    (void)state;
    nd_random_seed(0);
    nd_release(nd_random_rand(ND_SHAPE(1000)));
    EXPECT_AND_RELEASE(nd_random_rand(ND_SHAPE(3)), ND_FLOAT64, ND_SHAPE(3),
                       0.5928802707811576, 0.01006369565609333,
                       0.47582619585722274);
}

/* ------------------------------------------------------------ randint */

static void test_randint_other_ranges(void **state)
{
    (void)state;
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_randint(0, 1000, ND_SHAPE(8)), ND_INT64,
                       ND_SHAPE(8), 684, 559, 629, 192, 835, 763, 707, 359);
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_randint(-5, 5, ND_SHAPE(2, 5)), ND_INT64,
                       ND_SHAPE(2, 5), 0, -5, -2, -2, 2, 4, -2, 0, -3, -1);
}

/* Integers written as int64 and compared after nd_get_flat's double:
 * check them through the data instead, exactly. */
static void expect_int64(NdArray *a, int n, const int64_t *want)
{
    assert_int_equal(a->dtype, ND_INT64);
    assert_int_equal(a->size, n);
    for (int i = 0; i < n; i++)
        assert_true(ND_DATA(a, int64_t)[i] == want[i]);
    nd_release(a);
}

/* Ranges wider than 32 bits draw 64 bits (two words, high first). */
static void test_randint_large_ranges(void **state)
{
    (void)state;
    int64_t two62 = INT64_C(1) << 62, two32 = INT64_C(1) << 32;
    nd_random_seed(0);
    expect_int64(nd_random_randint(-two62, two62, ND_SHAPE(4)), 4,
                 (const int64_t[]){INT64_C(-3711235831533098449),
                                   INT64_C(-642142871786238784),
                                   INT64_C(-2716036421228801285),
                                   INT64_C(-3783737528391729817)});
    nd_random_seed(0);
    expect_int64(nd_random_randint(INT64_MIN, INT64_MAX, ND_SHAPE(3)), 3,
                 (const int64_t[]){INT64_C(900450186894289455),
                                   INT64_C(3969543146641149120),
                                   INT64_C(1895649597198586619)});
    /* [0, 2**32): the last range drawn with 32 bits; one more: 64. */
    nd_random_seed(0);
    expect_int64(nd_random_randint(0, two32, ND_SHAPE(3)), 3,
                 (const int64_t[]){2357136044, 2546248239, 3071714933});
    nd_random_seed(0);
    expect_int64(nd_random_randint(0, two32 + 1, ND_SHAPE(3)), 3,
                 (const int64_t[]){2546248239, 1277901399, 243580376});
}

/* A range of one value draws nothing from the generator. */
static void test_randint_single_value(void **state)
{
    (void)state;
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_randint(7, 8, ND_SHAPE(3)), ND_INT64,
                       ND_SHAPE(3), 7, 7, 7);
    EXPECT_AND_RELEASE(nd_random_rand(ND_SHAPE(1)), ND_FLOAT64, ND_SHAPE(1),
                       0.5488135039273248);
}

/* ------------------------------------------------------------ uniform */

static void test_uniform(void **state)
{
    (void)state;
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_uniform(-0.05, 0.05, ND_SHAPE(5)),
                       ND_FLOAT64, ND_SHAPE(5),
                       0.004881350392732478, 0.021518936637241942,
                       0.010276337607164385, 0.004488318299689688,
                       -0.007634520066109526);
    /* high < low is allowed: low + (high - low) * u */
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_uniform(3, 1, ND_SHAPE(3)), ND_FLOAT64,
                       ND_SHAPE(3), 1.9023729921453505, 1.569621267255161,
                       1.7944732478567123);
}

/* ------------------------------------------------------------ shuffle */

/* Rows move together: np.arange(12.0).reshape(4, 3) * 0.5 */
static void test_shuffle_2d_float_rows(void **state)
{
    (void)state;
    nd_random_seed(0);
    NdArray *rows = nd_from_buffer(ND_FLOAT64, ND_SHAPE(4, 3),   // (4, 3)
        (const double[]){0.0, 0.5, 1.0, 1.5, 2.0, 2.5,
                         3.0, 3.5, 4.0, 4.5, 5.0, 5.5});
    nd_random_shuffle(rows);
    EXPECT_AND_RELEASE(rows, ND_FLOAT64, ND_SHAPE(4, 3),
                       3.0, 3.5, 4.0, 4.5, 5.0, 5.5,
                       1.5, 2.0, 2.5, 0.0, 0.5, 1.0);
}

/* np.arange(24, dtype=np.uint8).reshape(4, 3, 2) after seed(7) */
static void test_shuffle_3d_uint8(void **state)
{
    (void)state;
    nd_random_seed(7);
    uint8_t bytes[24];
    for (int i = 0; i < 24; i++)
        bytes[i] = (uint8_t)i;
    NdArray *blocks = nd_from_buffer(ND_UINT8, ND_SHAPE(4, 3, 2), bytes);
    nd_random_shuffle(blocks);
    EXPECT_AND_RELEASE(blocks, ND_UINT8, ND_SHAPE(4, 3, 2),
                       12, 13, 14, 15, 16, 17, 6, 7, 8, 9, 10, 11,
                       0, 1, 2, 3, 4, 5, 18, 19, 20, 21, 22, 23);
}

static void test_shuffle_empty_and_permutation_1(void **state)
{
    (void)state;
    NdArray *empty = nd_zeros(ND_FLOAT64, ND_SHAPE(0, 3));
    nd_random_shuffle(empty);
    nd_release(empty);
    nd_random_seed(12345);
    EXPECT_AND_RELEASE(nd_random_permutation(0), ND_INT64, ND_SHAPE(0), 0);
    EXPECT_AND_RELEASE(nd_random_permutation(1), ND_INT64, ND_SHAPE(1), 0);
    /* neither drew anything */
    EXPECT_AND_RELEASE(nd_random_rand(ND_SHAPE(1)), ND_FLOAT64, ND_SHAPE(1),
                       0.9296160928171479);
}

/* ------------------------------------------------------------ state */

/* seed(0); randn(1) caches the 2nd normal; rand(2) goes on from the
 * stream and randn(1) then returns the cached value. */
static void test_rand_keeps_gauss_cache(void **state)
{
    (void)state;
    nd_random_seed(0);
    nd_release(nd_random_randn(ND_SHAPE(1)));
    EXPECT_AND_RELEASE(nd_random_rand(ND_SHAPE(2)), ND_FLOAT64, ND_SHAPE(2),
                       0.6027633760716439, 0.5448831829968969);
    EXPECT_AND_RELEASE(nd_random_randn(ND_SHAPE(1)), ND_FLOAT64, ND_SHAPE(1),
                       0.4001572083672233);
}

static void test_seed_drops_gauss_cache(void **state)
{
    (void)state;
    nd_random_seed(0);
    nd_release(nd_random_randn(ND_SHAPE(1)));
    nd_random_seed(0);
    EXPECT_AND_RELEASE(nd_random_randn(ND_SHAPE(2)), ND_FLOAT64, ND_SHAPE(2),
                       1.764052345967664, 0.4001572083672233);
}

static void test_scalar_and_empty_shapes(void **state)
{
    (void)state;
    nd_random_seed(0);
    nd_release(nd_random_rand(ND_SHAPE(0)));            /* draws nothing */
    EXPECT_AND_RELEASE(nd_random_rand(ND_SCALAR_SHAPE), ND_FLOAT64,
                       ND_SCALAR_SHAPE, 0.5488135039273248);
}

/* ------------------------------------------------------------ misuse */

static void test_misuse(void **state)
{
    (void)state;
    EXPECT_ND_ERROR(nd_random_randint(5, 5, ND_SHAPE(2)),
                    "nd_random_randint: low >= high (low=5, high=5)");
    EXPECT_ND_ERROR(nd_random_randint(5, 3, ND_SHAPE(2)),
                    "low >= high (low=5, high=3)");
    EXPECT_ND_ERROR(nd_random_rand(ND_SHAPE(2, -1)),
                    "nd_random_rand: negative dimensions are not allowed");
    EXPECT_ND_ERROR(nd_random_randn(ND_SHAPE(-3)),
                    "nd_random_randn: negative dimensions are not allowed");
    EXPECT_ND_ERROR(nd_random_randint(0, 10, ND_SHAPE(-2)),
                    "nd_random_randint: negative dimensions are not allowed");
    EXPECT_ND_ERROR(nd_random_uniform(0, 1, ND_SHAPE(-1)),
                    "nd_random_uniform: negative dimensions are not allowed");
    EXPECT_ND_ERROR(nd_random_uniform(0, INFINITY, ND_SHAPE(2)),
                    "nd_random_uniform: range exceeds valid bounds");
    EXPECT_ND_ERROR(nd_random_uniform(NAN, 1, ND_SHAPE(2)),
                    "range exceeds valid bounds");
    EXPECT_ND_ERROR(nd_random_permutation(-1),
                    "nd_random_permutation: n must be non-negative, got -1");
    NdArray *scalar = nd_scalar(3.0);
    EXPECT_ND_ERROR(nd_random_shuffle(scalar),
                    "nd_random_shuffle: cannot shuffle a 0-d array");
    nd_release(scalar);
}

/* ------------------------------------------------------------ seeding */

/* DEZERO_SEED=N seeds as np.random.seed(N); unset or empty, nothing
 * happens. (A variable of the test's own, so that a DEZERO_SEED of the
 * caller's changes nothing here.) */
static void test_seed_from_env(void **state)
{
    (void)state;
    const char *name = "TEST_RANDOM_SEED";
    setenv(name, "0", 1);
    assert_true(nd_random_seed_from_env(name));
    EXPECT_AND_RELEASE(nd_random_rand(ND_SHAPE(2)), ND_FLOAT64,
                       ND_SHAPE(2), 0.5488135039273248, 0.7151893663724195);

    setenv(name, "4294967295", 1);      /* 2**32 - 1, the largest seed */
    assert_true(nd_random_seed_from_env(name));
    NdArray *from_env = nd_random_rand(ND_SHAPE(3));
    nd_random_seed(4294967295u);
    NdArray *seeded = nd_random_rand(ND_SHAPE(3));
    assert_true(nd_array_equal(from_env, seeded));
    nd_release(from_env);
    nd_release(seeded);

    /* unset or empty: the stream goes on from where it was */
    nd_random_seed(0);
    NdArray *first = nd_random_rand(ND_SHAPE(1));
    unsetenv(name);
    assert_false(nd_random_seed_from_env(name));
    setenv(name, "", 1);
    assert_false(nd_random_seed_from_env(name));
    NdArray *second = nd_random_rand(ND_SHAPE(1));
    EXPECT_ARRAY(first, ND_FLOAT64, ND_SHAPE(1), 0.5488135039273248);
    EXPECT_ARRAY(second, ND_FLOAT64, ND_SHAPE(1), 0.7151893663724195);
    nd_release(first);
    nd_release(second);
    unsetenv(name);
}

/* What np.random.seed refuses is an error naming the variable. */
static void expect_refused(const char *value)
{
    setenv("TEST_RANDOM_SEED", value, 1);
    char want[256];
    snprintf(want, sizeof want, "nd_random_seed_from_env: "
             "TEST_RANDOM_SEED=%s is not a seed: np.random.seed takes an "
             "integer from 0 to 4294967295 (2**32 - 1); set "
             "TEST_RANDOM_SEED to one, or unset it", value);
    EXPECT_ND_ERROR(nd_random_seed_from_env("TEST_RANDOM_SEED"), want);
}

static void test_seed_from_env_refuses(void **state)
{
    (void)state;
    const char *bad[] = {"abc", "-1", "1.5", "4294967296", " 3", "3 ",
                         "0x10", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        expect_refused(bad[i]);
    unsetenv("TEST_RANDOM_SEED");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unseeded_draws_differ_from_seed_0),
        cmocka_unit_test(test_rand_seed_0),
        cmocka_unit_test(test_randn_seed_0),
        cmocka_unit_test(test_randn_odd_count_caches_a_value),
        cmocka_unit_test(test_randn_rand_randn_interleaved),
        cmocka_unit_test(test_permutation_10),
        cmocka_unit_test(test_permutation_100),
        cmocka_unit_test(test_rand_seed_1984),
        cmocka_unit_test(test_randn_seed_2020),
        cmocka_unit_test(test_randint_reference),
        cmocka_unit_test(test_rand_2d_is_row_major),
        cmocka_unit_test(test_randn_cast_to_float32),
        cmocka_unit_test(test_shuffle_arange_10),
        cmocka_unit_test(test_rand_largest_seed),
        cmocka_unit_test(test_rand_after_1000_draws),
        cmocka_unit_test(test_randint_other_ranges),
        cmocka_unit_test(test_randint_large_ranges),
        cmocka_unit_test(test_randint_single_value),
        cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_shuffle_2d_float_rows),
        cmocka_unit_test(test_shuffle_3d_uint8),
        cmocka_unit_test(test_shuffle_empty_and_permutation_1),
        cmocka_unit_test(test_rand_keeps_gauss_cache),
        cmocka_unit_test(test_seed_drops_gauss_cache),
        cmocka_unit_test(test_scalar_and_empty_shapes),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_seed_from_env),
        cmocka_unit_test(test_seed_from_env_refuses),
    };
    return cmocka_run_group_tests_name("common/random", tests, NULL, NULL);
}
