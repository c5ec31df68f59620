// FIRST_STEP: 54
/* test_dropout.c - step 54: dropout (functions.c: F_dropout) and test
 * mode (Config.train, TEST_MODE). In training, dropout zeroes about
 * the ratio of a large array and divides the rest by 1 - ratio, so that
 * the mean stays; a seeded small case drops exactly the elements NumPy
 * drops; its gradient is the mask divided by 1 - ratio, and agrees with
 * central differences under a fixed mask. In TEST_MODE dropout is x
 * itself and draws no random number, and training mode is back after
 * the block, however it is left. A ratio outside [0, 1) is refused. */
#include "grad_check.h"

/* How many elements of a are 0. */
static int64_t zeros_in(const NdArray *a)
{
    int64_t n = 0;
    for (int64_t i = 0; i < a->size; i++)
        n += nd_get_flat(a, i) == 0;
    return n;
}

/* On 100,000 ones, ratio 0.3: about 30% zeros, every other element
 * exactly 1 / 0.7, and the mean within 1% of 1. */
static void test_drops_the_ratio_and_keeps_the_mean(void **state)
{
    (void)state;
    nd_random_seed(1);
    NdArray *x = nd_ones(ND_FLOAT64, ND_SHAPE(100000));
    Variable *y = F_dropout(x, 0.3);
    const NdArray *a = y->data;
    assert_int_equal(a->dtype, ND_FLOAT64);
    assert_int_equal(a->size, 100000);
    double dropped = (double)zeros_in(a) / 100000.0;
    /* the share is binomial: its standard deviation is 0.0014 */
    if (fabs(dropped - 0.3) > 0.01)
        fail_msg("dropped %.4f of the elements, want 0.3", dropped);
    double sum = 0;
    for (int64_t i = 0; i < a->size; i++) {
        double v = nd_get_flat(a, i);
        if (v != 0 && v != 1.0 / 0.7)
            fail_msg("element %lld is %.17g: neither 0 nor 1 / 0.7",
                     (long long)i, v);
        sum += v;
    }
    if (fabs(sum / 100000.0 - 1) > 0.01)
        fail_msg("the mean is %.4f, want 1", sum / 100000.0);
    nd_release(x);
}

/* np.random.seed(42); x = np.arange(1, 13.).reshape(3, 4);
 * x * (np.random.rand(3, 4) > 0.4) / np.array(0.6), by NumPy 1.24.2:
 * the mask is [[0 1 1 1] [0 0 0 1] [1 1 0 1]]. */
static const double numpy_float64[12] = {
    0.0, 3.3333333333333335, 5.0, 6.666666666666667,
    0.0, 0.0, 0.0, 13.333333333333334,
    15.0, 16.666666666666668, 0.0, 20.0,
};

/* The same with float32 x, ratio 0.1, scale np.array(0.9) as float32:
 * the result stays float32. */
static const double numpy_float32[12] = {
    1.1111111640930176, 2.222222328186035, 3.3333334922790527,
    4.44444465637207, 5.555555820465088, 6.6666669845581055,
    0.0, 8.88888931274414, 10.0,
    11.111111640930176, 0.0, 13.333333969116211,
};

/* A seeded small case is NumPy's to the bit, in float64 and float32. */
static void test_seeded_mask_is_numpys(void **state)
{
    (void)state;
    NdArray *r = nd_arange(1, 13, 1, ND_FLOAT64);
    NdArray *x = nd_reshape(r, ND_SHAPE(3, 4));
    nd_random_seed(42);
    Variable *y = F_dropout(x, 0.4);
    assert_int_equal(variable_dtype(y), ND_FLOAT64);
    assert_int_equal(variable_ndim(y), 2);
    for (int i = 0; i < 12; i++)
        assert_true(nd_get_flat(y->data, i) == numpy_float64[i]);

    NdArray *x32 = nd_astype(x, ND_FLOAT32);
    nd_random_seed(42);
    y = F_dropout(x32, 0.1);
    assert_int_equal(variable_dtype(y), ND_FLOAT32);
    for (int i = 0; i < 12; i++)
        assert_true(nd_get_flat(y->data, i) == numpy_float32[i]);
    nd_release(x32);
    nd_release(x);
    nd_release(r);
}

/* In TEST_MODE dropout is x itself and draws nothing (the generator's
 * next number is the one it would have been); config.train is back
 * after the block, whether it ends or is left by break. */
static void test_test_mode_is_the_identity(void **state)
{
    (void)state;
    Variable *x = variable(nd_ones(ND_FLOAT64, ND_SHAPE(4, 3)));
    assert_true(config.train);
    nd_random_seed(5);
    NdArray *want = nd_random_rand(ND_SHAPE(1));
    nd_random_seed(5);
    TEST_MODE {
        assert_false(config.train);
        assert_ptr_equal(F_dropout(x, 0.5), x);
        assert_true(config.enable_backprop);
    }
    assert_true(config.train);
    NdArray *got = nd_random_rand(ND_SHAPE(1));
    assert_true(nd_array_equal(got, want));
    for (int i = 0; i < 3; i++)
        TEST_MODE {
            if (i == 1)
                break;
            assert_false(config.train);
        }
    assert_true(config.train);
    nd_release(got);
    nd_release(want);
}

/* The gradient of sum(dropout(x)) is the mask divided by 1 - ratio:
 * the mask drawn again from the same seed. */
static void test_gradient_is_mask_over_scale(void **state)
{
    (void)state;
    nd_random_seed(7);
    NdArray *r = nd_random_rand(ND_SHAPE(6, 5));
    NdArray *ratio = nd_scalar(0.25);
    NdArray *mask = nd_greater(r, ratio);
    NdArray *scale = nd_scalar(0.75);
    NdArray *want = nd_div(mask, scale);
    Variable *x = variable(ramp(ND_SHAPE(6, 5), -2, 0.3));
    nd_random_seed(7);
    Variable *y = F_dropout(x, 0.25);
    backward(F_sum(y, ND_ALL_AXES, false));
    assert_non_null(x->grad);
    assert_int_equal(x->grad->data->dtype, ND_FLOAT64);
    assert_true(nd_array_equal(x->grad->data, want));
    nd_release(want);
    nd_release(scale);
    nd_release(mask);
    nd_release(ratio);
    nd_release(r);
}

/* Dropout with the mask fixed: the generator seeded the same before
 * every call, so that the numerical differences see one function. */
static Variable *fixed_dropout(Variable *xs[])
{
    nd_random_seed(11);
    return F_dropout(xs[0], 0.5);
}

static void test_numerical_gradient(void **state)
{
    (void)state;
    NdArray *x = ramp(ND_SHAPE(3, 4), -1.5, 0.25);
    check_gradients("dropout", fixed_dropout, 1, (NdArray *[]){x}, 1e-6);
    nd_release(x);
}

/* A ratio that is no share of the elements: an error naming it. */
static void test_bad_ratios(void **state)
{
    (void)state;
    Variable *x = variable(nd_ones(ND_FLOAT64, ND_SHAPE(3)));
    EXPECT_ND_ERROR(F_dropout(x, 1.0), "dropout_ratio is 1");
    EXPECT_ND_ERROR(F_dropout(x, -0.1), "dropout_ratio is -0.1");
    EXPECT_ND_ERROR(F_dropout(x, NAN), "dropout_ratio is nan");
    Variable *y = F_dropout(x, 0.0);                    /* keeps all */
    assert_true(nd_array_equal(y->data, x->data));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_drops_the_ratio_and_keeps_the_mean),
        STEP_TEST(test_seeded_mask_is_numpys),
        STEP_TEST(test_test_mode_is_the_identity),
        STEP_TEST(test_gradient_is_mask_over_scale),
        STEP_TEST(test_numerical_gradient),
        STEP_TEST(test_bad_ratios),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
