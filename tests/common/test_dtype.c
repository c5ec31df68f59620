/* test_dtype.c - dtype names and sizes, NumPy 1.x promotion of two
 * arrays, and value-based casting of 0-d operands. Every expected dtype
 * is np.result_type from NumPy 1.24. */
#include <complex.h>
#include <math.h>

#include "nd_test.h"

static const NdDtype all_dtypes[ND_NUM_DTYPES] = {
    ND_BOOL, ND_UINT8, ND_INT64, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64,
    ND_COMPLEX128,
};

/* A 0-d array of dtype holding re + im*j (im only for complex). */
static NdArray *scalar(NdDtype dtype, double re, double im)
{
    if (dtype == ND_COMPLEX128) {
        double complex z = CMPLX(re, im);
        return nd_from_buffer(dtype, ND_SCALAR_SHAPE, &z);
    }
    if (dtype == ND_COMPLEX64) {
        float complex z = CMPLXF((float)re, (float)im);
        return nd_from_buffer(dtype, ND_SCALAR_SHAPE, &z);
    }
    return nd_scalar_of(dtype, re);
}

static void expect_dtype(NdDtype got, NdDtype want)
{
    assert_string_equal(nd_dtype_name(got), nd_dtype_name(want));
}

/* ------------------------------------------------------------ names */

static void test_names_and_sizes(void **state)
{
    (void)state;
    static const char *names[ND_NUM_DTYPES] = {
        "bool", "uint8", "int64", "float32", "float64", "complex64",
        "complex128",
    };
    static const size_t sizes[ND_NUM_DTYPES] = {1, 1, 8, 4, 8, 8, 16};
    for (int i = 0; i < ND_NUM_DTYPES; i++) {
        assert_string_equal(nd_dtype_name(all_dtypes[i]), names[i]);
        assert_int_equal(nd_dtype_size(all_dtypes[i]), sizes[i]);
    }
}

static void test_kind_predicates(void **state)
{
    (void)state;
    /*                        b  u8 i64 f32 f64 c64 c128 */
    static const bool is_float[] = {0, 0, 0, 1, 1, 0, 0};
    static const bool is_complex[] = {0, 0, 0, 0, 0, 1, 1};
    static const bool is_integer[] = {0, 1, 1, 0, 0, 0, 0};
    for (int i = 0; i < ND_NUM_DTYPES; i++) {
        assert_int_equal(nd_dtype_is_float(all_dtypes[i]), is_float[i]);
        assert_int_equal(nd_dtype_is_complex(all_dtypes[i]), is_complex[i]);
        assert_int_equal(nd_dtype_is_integer(all_dtypes[i]), is_integer[i]);
    }
}

static void test_invalid_dtype(void **state)
{
    (void)state;
    assert_string_equal(nd_dtype_name((NdDtype)99), "invalid dtype");
    assert_int_equal(nd_dtype_size((NdDtype)-1), 0);
    EXPECT_ND_ERROR(nd_empty((NdDtype)99, ND_SHAPE(2)),
                    "nd_empty: invalid dtype 99");
    EXPECT_ND_ERROR(nd_scalar_of((NdDtype)-1, 0),
                    "nd_scalar_of: invalid dtype -1");
}

/* ------------------------------------------------------------ promotion */

/* np.result_type(np.ones(2, a), np.ones(2, b)) for every pair. */
static const NdDtype promotion[ND_NUM_DTYPES][ND_NUM_DTYPES] = {
    {ND_BOOL, ND_UINT8, ND_INT64, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64,
     ND_COMPLEX128},
    {ND_UINT8, ND_UINT8, ND_INT64, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64,
     ND_COMPLEX128},
    {ND_INT64, ND_INT64, ND_INT64, ND_FLOAT64, ND_FLOAT64, ND_COMPLEX128,
     ND_COMPLEX128},
    {ND_FLOAT32, ND_FLOAT32, ND_FLOAT64, ND_FLOAT32, ND_FLOAT64,
     ND_COMPLEX64, ND_COMPLEX128},
    {ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64,
     ND_COMPLEX128, ND_COMPLEX128},
    {ND_COMPLEX64, ND_COMPLEX64, ND_COMPLEX128, ND_COMPLEX64, ND_COMPLEX128,
     ND_COMPLEX64, ND_COMPLEX128},
    {ND_COMPLEX128, ND_COMPLEX128, ND_COMPLEX128, ND_COMPLEX128,
     ND_COMPLEX128, ND_COMPLEX128, ND_COMPLEX128},
};

static void test_promote_table(void **state)
{
    (void)state;
    for (int i = 0; i < ND_NUM_DTYPES; i++)
        for (int j = 0; j < ND_NUM_DTYPES; j++)
            expect_dtype(nd_promote(all_dtypes[i], all_dtypes[j]),
                         promotion[i][j]);
}

/* Arrays of one or more dimensions promote by dtype alone, whatever
 * their values. */
static void test_result_dtype_of_arrays_is_promotion(void **state)
{
    (void)state;
    for (int i = 0; i < ND_NUM_DTYPES; i++) {
        for (int j = 0; j < ND_NUM_DTYPES; j++) {
            NdArray *a = nd_full(all_dtypes[i], ND_SHAPE(2), 70000);
            NdArray *b = nd_full(all_dtypes[j], ND_SHAPE(3, 1), 3);
            expect_dtype(nd_result_dtype(a, b), promotion[i][j]);
            expect_dtype(nd_result_dtype(b, a), promotion[i][j]);
            nd_release(a);
            nd_release(b);
        }
    }
}

/* ------------------------------------------------------------ value-based */

static void test_float32_array_times_0d_float64_is_float32(void **state)
{
    (void)state;
    NdArray *w = nd_full(ND_FLOAT32, ND_SHAPE(3), 0.5);
    NdArray *lr = nd_scalar(0.1);                   /* np.array(0.1) */
    expect_dtype(nd_result_dtype(w, lr), ND_FLOAT32);
    expect_dtype(nd_result_dtype(lr, w), ND_FLOAT32);
    NdArray *y = nd_mul(w, lr);
    /* np.float32(0.5) * np.float32(0.1) */
    EXPECT_ARRAY(y, ND_FLOAT32, ND_SHAPE(3), 0x1.99999ap-5, 0x1.99999ap-5,
                 0x1.99999ap-5);
    nd_release(w);
    nd_release(lr);
    nd_release(y);
}

static void test_float32_with_float64_array_is_float64(void **state)
{
    (void)state;
    NdArray *w = nd_ones(ND_FLOAT32, ND_SHAPE(3));
    NdArray *x = nd_ones(ND_FLOAT64, ND_SHAPE(3));
    NdArray *one = nd_ones(ND_FLOAT64, ND_SHAPE(1));  /* (1,) is no scalar */
    expect_dtype(nd_result_dtype(w, x), ND_FLOAT64);
    expect_dtype(nd_result_dtype(w, one), ND_FLOAT64);
    NdArray *y = nd_add(w, one);
    EXPECT_ARRAY(y, ND_FLOAT64, ND_SHAPE(3), 2, 2, 2);
    nd_release(w);
    nd_release(x);
    nd_release(one);
    nd_release(y);
}

static void test_float32_with_uint8_is_float32(void **state)
{
    (void)state;
    NdArray *w = nd_ones(ND_FLOAT32, ND_SHAPE(2));
    NdArray *u = nd_ones(ND_UINT8, ND_SHAPE(2));
    expect_dtype(nd_result_dtype(w, u), ND_FLOAT32);
    expect_dtype(nd_result_dtype(u, w), ND_FLOAT32);
    nd_release(w);
    nd_release(u);
}

static void test_int64_array_times_0d_float_is_float64(void **state)
{
    (void)state;
    NdArray *t = nd_arange(0, 3, 1, ND_INT64);
    NdArray *half = nd_scalar(0.5);
    NdArray *y = nd_mul(t, half);
    EXPECT_ARRAY(y, ND_FLOAT64, ND_SHAPE(3), 0, 0.5, 1);
    nd_release(t);
    nd_release(half);
    nd_release(y);
}

static void test_uint8_plus_small_int_stays_uint8(void **state)
{
    (void)state;
    NdArray *u = nd_from_buffer(ND_UINT8, ND_SHAPE(2), (uint8_t[]){1, 254});
    NdArray *three = nd_scalar_of(ND_INT64, 3);
    NdArray *y = nd_add(u, three);      /* wraps as uint8: 254 + 3 = 1 */
    EXPECT_ARRAY(y, ND_UINT8, ND_SHAPE(2), 4, 1);
    nd_release(u);
    nd_release(three);
    nd_release(y);
}

static void test_uint8_plus_300_is_not_uint8(void **state)
{
    (void)state;
    NdArray *u = nd_from_buffer(ND_UINT8, ND_SHAPE(2), (uint8_t[]){1, 254});
    NdArray *big = nd_scalar_of(ND_INT64, 300);
    NdArray *y = nd_add(u, big);        /* NumPy: uint16 [301, 554] */
    assert_int_not_equal(y->dtype, ND_UINT8);
    EXPECT_ARRAY(y, ND_INT64, ND_SHAPE(2), 301, 554);
    nd_release(u);
    nd_release(big);
    nd_release(y);
}

static void test_bool_array_plus_int_scalar_is_int64(void **state)
{
    (void)state;
    NdArray *b = nd_from_buffer(ND_BOOL, ND_SHAPE(2), (bool[]){true, false});
    NdArray *one = nd_scalar_of(ND_INT64, 1);
    NdArray *y = nd_add(b, one);
    EXPECT_ARRAY(y, ND_INT64, ND_SHAPE(2), 2, 1);
    nd_release(b);
    nd_release(one);
    nd_release(y);
}

static void test_two_0d_operands_promote_plainly(void **state)
{
    (void)state;
    NdArray *f = nd_scalar_of(ND_FLOAT32, 1);
    NdArray *d = nd_scalar(2);
    NdArray *u = nd_scalar_of(ND_UINT8, 1);
    NdArray *i = nd_scalar_of(ND_INT64, 3);
    expect_dtype(nd_result_dtype(f, d), ND_FLOAT64);
    expect_dtype(nd_result_dtype(u, i), ND_INT64);
    NdArray *y = nd_mul(f, d);
    EXPECT_ARRAY(y, ND_FLOAT64, ND_SCALAR_SHAPE, 2);
    nd_release(f);
    nd_release(d);
    nd_release(u);
    nd_release(i);
    nd_release(y);
}

/* An n-d array of dtype array with a 0-d of dtype scalar holding re+im*j
 * gives want, on either side. */
typedef struct ValueCase {
    NdDtype array, scalar;
    double re, im;
    NdDtype want;
} ValueCase;

static const ValueCase value_cases[] = {
    {ND_FLOAT32, ND_FLOAT64, 2, 0, ND_FLOAT32},
    {ND_INT64, ND_FLOAT64, 0.5, 0, ND_FLOAT64},
    {ND_UINT8, ND_INT64, 3, 0, ND_UINT8},
    {ND_UINT8, ND_INT64, 300, 0, ND_INT64},  /* NumPy: uint16 */
    {ND_BOOL, ND_INT64, 1, 0, ND_INT64},
    {ND_UINT8, ND_INT64, -1, 0, ND_INT64},  /* NumPy: int16 */
    {ND_UINT8, ND_FLOAT64, 1.5, 0, ND_FLOAT64},
    {ND_UINT8, ND_BOOL, 1, 0, ND_UINT8},
    {ND_UINT8, ND_FLOAT32, 1.5, 0, ND_FLOAT32},
    {ND_INT64, ND_FLOAT32, 1.5, 0, ND_FLOAT64},
    {ND_INT64, ND_UINT8, 7, 0, ND_INT64},
    {ND_BOOL, ND_BOOL, 1, 0, ND_BOOL},
    {ND_BOOL, ND_FLOAT32, 1, 0, ND_FLOAT32},
    {ND_BOOL, ND_FLOAT64, 1, 0, ND_FLOAT64},
    {ND_FLOAT32, ND_INT64, 40000, 0, ND_FLOAT32},
    {ND_FLOAT32, ND_INT64, 70000, 0, ND_FLOAT64},
    {ND_FLOAT32, ND_INT64, -32768, 0, ND_FLOAT32},
    {ND_FLOAT32, ND_INT64, -32769, 0, ND_FLOAT64},
    {ND_FLOAT32, ND_INT64, 65535, 0, ND_FLOAT32},
    {ND_FLOAT32, ND_INT64, 65536, 0, ND_FLOAT64},
    {ND_FLOAT32, ND_UINT8, 255, 0, ND_FLOAT32},
    {ND_FLOAT32, ND_BOOL, 1, 0, ND_FLOAT32},
    {ND_FLOAT32, ND_FLOAT32, 3e38, 0, ND_FLOAT32},
    {ND_FLOAT32, ND_FLOAT64, 1e300, 0, ND_FLOAT64},
    {ND_FLOAT32, ND_FLOAT64, 3.4e38, 0, ND_FLOAT64},
    {ND_FLOAT32, ND_FLOAT64, 0x1.ff933c78cdfacp+127, 0, ND_FLOAT32},
    {ND_FLOAT32, ND_FLOAT64, -3.4e38, 0, ND_FLOAT64},
    {ND_FLOAT32, ND_FLOAT64, NAN, 0, ND_FLOAT32},
    {ND_FLOAT32, ND_FLOAT64, INFINITY, 0, ND_FLOAT32},
    {ND_FLOAT32, ND_COMPLEX128, 0, 1, ND_COMPLEX64},
    {ND_FLOAT32, ND_COMPLEX128, 1e300, 1, ND_COMPLEX128},
    {ND_FLOAT32, ND_COMPLEX128, 0, NAN, ND_COMPLEX128},
    {ND_FLOAT32, ND_COMPLEX64, 0, 1, ND_COMPLEX64},
    {ND_FLOAT64, ND_COMPLEX128, 0, 1, ND_COMPLEX128},
    {ND_FLOAT64, ND_COMPLEX64, 0, 1, ND_COMPLEX128},
    {ND_COMPLEX64, ND_FLOAT64, 1e300, 0, ND_COMPLEX128},
    {ND_COMPLEX64, ND_FLOAT64, 2, 0, ND_COMPLEX64},
    {ND_COMPLEX64, ND_INT64, 70000, 0, ND_COMPLEX128},
    {ND_COMPLEX64, ND_INT64, 3, 0, ND_COMPLEX64},
    {ND_COMPLEX64, ND_COMPLEX128, 1, 1, ND_COMPLEX64},
    {ND_COMPLEX128, ND_FLOAT32, 1, 0, ND_COMPLEX128},
    {ND_INT64, ND_COMPLEX128, 0, 1, ND_COMPLEX128},
    {ND_UINT8, ND_COMPLEX64, 0, 1, ND_COMPLEX64},
};

static void test_value_based_casting_table(void **state)
{
    (void)state;
    int n = (int)(sizeof value_cases / sizeof value_cases[0]);
    for (int k = 0; k < n; k++) {
        const ValueCase *c = &value_cases[k];
        NdArray *a = nd_ones(c->array, ND_SHAPE(3));
        NdArray *s = scalar(c->scalar, c->re, c->im);
        NdDtype left = nd_result_dtype(a, s), right = nd_result_dtype(s, a);
        if (left != c->want || right != c->want)
            fail_msg("%s array with 0-d %s %g%+gj: got %s and %s, want %s",
                     nd_dtype_name(c->array), nd_dtype_name(c->scalar), c->re,
                     c->im, nd_dtype_name(left), nd_dtype_name(right),
                     nd_dtype_name(c->want));
        nd_release(a);
        nd_release(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_sizes),
        cmocka_unit_test(test_kind_predicates),
        cmocka_unit_test(test_invalid_dtype),
        cmocka_unit_test(test_promote_table),
        cmocka_unit_test(test_result_dtype_of_arrays_is_promotion),
        cmocka_unit_test(test_float32_array_times_0d_float64_is_float32),
        cmocka_unit_test(test_float32_with_float64_array_is_float64),
        cmocka_unit_test(test_float32_with_uint8_is_float32),
        cmocka_unit_test(test_int64_array_times_0d_float_is_float64),
        cmocka_unit_test(test_uint8_plus_small_int_stays_uint8),
        cmocka_unit_test(test_uint8_plus_300_is_not_uint8),
        cmocka_unit_test(test_bool_array_plus_int_scalar_is_int64),
        cmocka_unit_test(test_two_0d_operands_promote_plainly),
        cmocka_unit_test(test_value_based_casting_table),
    };
    return cmocka_run_group_tests_name("common/dtype", tests, NULL, NULL);
}
