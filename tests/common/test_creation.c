/* test_creation.c - making arrays: scalars, buffers, filled arrays,
 * ranges, eye, copies and dtype conversions. Expected values come from
 * NumPy 1.24 (hex floats where the last bit matters). */
#include <complex.h>
#include <math.h>

#include "nd_test.h"

/* The imaginary part of element i of a complex array. */
static double imag_at(const NdArray *a, int64_t i)
{
    if (a->dtype == ND_COMPLEX64)
        return cimagf(ND_DATA(a, float complex)[i]);
    return cimag(ND_DATA(a, double complex)[i]);
}

/* ------------------------------------------------------------ scalars */

static void test_scalar_is_0d_float64(void **state)
{
    (void)state;
    NdArray *a = nd_scalar(1.5);       /* np.array(1.5) */
    EXPECT_ARRAY(a, ND_FLOAT64, ND_SCALAR_SHAPE, 1.5);
    assert_int_equal(a->size, 1);
    assert_int_equal(a->refcount, 1);
    assert_int_equal(a->device, ND_CPU);
    assert_null(a->base);
    nd_release(a);
}

static void test_scalar_of_each_dtype(void **state)
{
    (void)state;
    NdArray *i = nd_scalar_of(ND_INT64, 10);        /* np.array(10) */
    EXPECT_ARRAY(i, ND_INT64, ND_SCALAR_SHAPE, 10);
    assert_int_equal(ND_DATA(i, int64_t)[0], 10);
    NdArray *f = nd_scalar_of(ND_FLOAT32, 0.1);     /* np.float32(0.1) */
    EXPECT_ARRAY(f, ND_FLOAT32, ND_SCALAR_SHAPE, 0x1.99999ap-4);
    NdArray *b = nd_scalar_of(ND_BOOL, 2.0);        /* np.array(2, bool) */
    EXPECT_ARRAY(b, ND_BOOL, ND_SCALAR_SHAPE, 1);
    NdArray *u = nd_scalar_of(ND_UINT8, 255);
    EXPECT_ARRAY(u, ND_UINT8, ND_SCALAR_SHAPE, 255);
    NdArray *c = nd_scalar_of(ND_COMPLEX128, 2.5);
    EXPECT_ARRAY(c, ND_COMPLEX128, ND_SCALAR_SHAPE, 2.5);
    assert_true(imag_at(c, 0) == 0.0);
    nd_release(i);
    nd_release(f);
    nd_release(b);
    nd_release(u);
    nd_release(c);
}

/* ------------------------------------------------------------ buffers */

static void test_from_buffer_copies(void **state)
{
    (void)state;
    int64_t data[6] = {1, 2, 3, 4, 5, 6};
    NdArray *a = nd_from_buffer(ND_INT64, ND_SHAPE(2, 3), data);
    data[0] = 100;                      /* the array holds its own copy */
    EXPECT_ARRAY(a, ND_INT64, ND_SHAPE(2, 3), 1, 2, 3, 4, 5, 6);
    nd_release(a);

    float values[3] = {0.5f, -1.25f, 3.0f};
    NdArray *f = nd_from_buffer(ND_FLOAT32, ND_SHAPE(3), values);
    EXPECT_ARRAY(f, ND_FLOAT32, ND_SHAPE(3), 0.5, -1.25, 3.0);
    nd_release(f);

    double complex z[2] = {1 + 2 * I, -3};
    NdArray *c = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(2), z);
    EXPECT_ARRAY(c, ND_COMPLEX128, ND_SHAPE(2), 1, -3);
    assert_true(imag_at(c, 0) == 2.0 && imag_at(c, 1) == 0.0);
    nd_release(c);
}

static void test_from_buffer_empty_and_0d(void **state)
{
    (void)state;
    NdArray *e = nd_from_buffer(ND_FLOAT64, ND_SHAPE(0, 3), NULL);
    EXPECT_ARRAY(e, ND_FLOAT64, ND_SHAPE(0, 3), 0);
    assert_int_equal(e->size, 0);
    nd_release(e);
    double x = 7.25;
    NdArray *s = nd_from_buffer(ND_FLOAT64, ND_SCALAR_SHAPE, &x);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SCALAR_SHAPE, 7.25);
    nd_release(s);
}

/* ------------------------------------------------------------ filled */

static void test_empty_has_shape(void **state)
{
    (void)state;
    NdArray *a = nd_empty(ND_FLOAT32, ND_SHAPE(2, 0, 4));
    assert_int_equal(a->ndim, 3);
    assert_int_equal(a->size, 0);
    assert_int_equal(a->shape[2], 4);
    nd_release(a);
    NdArray *b = nd_empty(ND_UINT8, ND_SHAPE(3, 5));
    assert_int_equal(b->size, 15);
    assert_true((uintptr_t)b->data % 64 == 0);
    nd_release(b);
}

static void test_zeros_ones_full(void **state)
{
    (void)state;
    NdArray *z = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 2));
    EXPECT_ARRAY(z, ND_FLOAT64, ND_SHAPE(2, 2), 0, 0, 0, 0);
    NdArray *o = nd_ones(ND_INT64, ND_SHAPE(3));
    EXPECT_ARRAY(o, ND_INT64, ND_SHAPE(3), 1, 1, 1);
    NdArray *f32 = nd_full(ND_FLOAT32, ND_SHAPE(2), 0.1);
    EXPECT_ARRAY(f32, ND_FLOAT32, ND_SHAPE(2), 0x1.99999ap-4,
                 0x1.99999ap-4);
    NdArray *b = nd_full(ND_BOOL, ND_SHAPE(3), 0.5);   /* True: 0.5 != 0 */
    EXPECT_ARRAY(b, ND_BOOL, ND_SHAPE(3), 1, 1, 1);
    NdArray *u = nd_full(ND_UINT8, ND_SHAPE(2), 7);
    EXPECT_ARRAY(u, ND_UINT8, ND_SHAPE(2), 7, 7);
    NdArray *c = nd_ones(ND_COMPLEX64, ND_SHAPE(2));
    EXPECT_ARRAY(c, ND_COMPLEX64, ND_SHAPE(2), 1, 1);
    assert_true(imag_at(c, 1) == 0.0);
    NdArray *s = nd_zeros(ND_INT64, ND_SCALAR_SHAPE);
    EXPECT_ARRAY(s, ND_INT64, ND_SCALAR_SHAPE, 0);
    NdArray *none = nd_ones(ND_FLOAT64, ND_SHAPE(0));
    EXPECT_ARRAY(none, ND_FLOAT64, ND_SHAPE(0), 0);
    nd_release(z);
    nd_release(o);
    nd_release(f32);
    nd_release(b);
    nd_release(u);
    nd_release(c);
    nd_release(s);
    nd_release(none);
}

static void test_like_functions_copy_dtype_and_shape(void **state)
{
    (void)state;
    NdArray *proto = nd_full(ND_FLOAT32, ND_SHAPE(2, 3), 9);
    NdArray *z = nd_zeros_like(proto);
    EXPECT_ARRAY(z, ND_FLOAT32, ND_SHAPE(2, 3), 0, 0, 0, 0, 0, 0);
    NdArray *o = nd_ones_like(proto);
    EXPECT_ARRAY(o, ND_FLOAT32, ND_SHAPE(2, 3), 1, 1, 1, 1, 1, 1);
    NdArray *f = nd_full_like(proto, -2.5);
    EXPECT_ARRAY(f, ND_FLOAT32, ND_SHAPE(2, 3), -2.5, -2.5, -2.5, -2.5,
                 -2.5, -2.5);
    /* np.full_like(int array, 2.7) truncates to the int dtype */
    NdArray *ints = nd_zeros(ND_INT64, ND_SCALAR_SHAPE);
    NdArray *fi = nd_full_like(ints, 2.7);
    EXPECT_ARRAY(fi, ND_INT64, ND_SCALAR_SHAPE, 2);
    nd_release(proto);
    nd_release(z);
    nd_release(o);
    nd_release(f);
    nd_release(ints);
    nd_release(fi);
}

/* nd_full_on the host is nd_full; on the GPU see common/test_gpu.c. */
static void test_full_on_the_host(void **state)
{
    (void)state;
    NdArray *f = nd_full_on(ND_CPU, ND_FLOAT32, ND_SHAPE(2), 0.1);
    EXPECT_ARRAY(f, ND_FLOAT32, ND_SHAPE(2), 0x1.99999ap-4, 0x1.99999ap-4);
    assert_int_equal(f->device, ND_CPU);
    NdArray *s = nd_full_on(ND_CPU, ND_INT64, ND_SCALAR_SHAPE, 2.7);
    EXPECT_ARRAY(s, ND_INT64, ND_SCALAR_SHAPE, 2);
    EXPECT_ND_ERROR(nd_full_on(ND_CPU, ND_FLOAT64, ND_SHAPE(-1), 0),
                    "nd_full_on: negative dimensions are not allowed");
    nd_release(f);
    nd_release(s);
}

/* ------------------------------------------------------------ arange */

static void test_arange_int(void **state)
{
    (void)state;
    NdArray *a = nd_arange(0, 5, 1, ND_INT64);         /* np.arange(5) */
    EXPECT_ARRAY(a, ND_INT64, ND_SHAPE(5), 0, 1, 2, 3, 4);
    NdArray *b = nd_arange(0, 10, 3, ND_INT64);
    EXPECT_ARRAY(b, ND_INT64, ND_SHAPE(4), 0, 3, 6, 9);
    /* np.arange(0.5, 5, 1.5, dtype=int): 3 values, step int(2.0) - 0 */
    NdArray *c = nd_arange(0.5, 5, 1.5, ND_INT64);
    EXPECT_ARRAY(c, ND_INT64, ND_SHAPE(3), 0, 2, 4);
    /* np.arange(250, 260, dtype=np.uint8) wraps around */
    NdArray *u = nd_arange(250, 260, 1, ND_UINT8);
    EXPECT_ARRAY(u, ND_UINT8, ND_SHAPE(10), 250, 251, 252, 253, 254, 255,
                 0, 1, 2, 3);
    nd_release(a);
    nd_release(b);
    nd_release(c);
    nd_release(u);
}

static void test_arange_float_matches_numpy_bits(void **state)
{
    (void)state;
    NdArray *a = nd_arange(0, 1, 0.1, ND_FLOAT64);
    EXPECT_ARRAY(a, ND_FLOAT64, ND_SHAPE(10), 0x0p+0, 0x1.999999999999ap-4,
                 0x1.999999999999ap-3, 0x1.3333333333334p-2,
                 0x1.999999999999ap-2, 0x1.0000000000000p-1,
                 0x1.3333333333334p-1, 0x1.6666666666667p-1,
                 0x1.999999999999ap-1, 0x1.ccccccccccccdp-1);
    /* NumPy steps by (1 + 0.1) - 1, not 0.1: 1.3000000000000003 */
    NdArray *b = nd_arange(1, 2, 0.1, ND_FLOAT64);
    EXPECT_ARRAY(b, ND_FLOAT64, ND_SHAPE(10), 1.0, 1.1, 1.2000000000000002,
                 1.3000000000000003, 1.4000000000000004, 1.5000000000000004,
                 1.6000000000000005, 1.7000000000000006, 1.8000000000000007,
                 1.9000000000000008);
    NdArray *f = nd_arange(1, 2, 0.1, ND_FLOAT32);
    EXPECT_ARRAY(f, ND_FLOAT32, ND_SHAPE(10), 0x1p+0, 0x1.19999ap+0,
                 0x1.333334p+0, 0x1.4ccccep+0, 0x1.666668p+0, 0x1.800002p+0,
                 0x1.99999cp+0, 0x1.b33336p+0, 0x1.ccccd0p+0, 0x1.e6666ap+0);
    nd_release(a);
    nd_release(b);
    nd_release(f);
}

static void test_arange_negative_step(void **state)
{
    (void)state;
    NdArray *a = nd_arange(5, 0, -1, ND_INT64);
    EXPECT_ARRAY(a, ND_INT64, ND_SHAPE(5), 5, 4, 3, 2, 1);
    NdArray *b = nd_arange(1, -1, -0.5, ND_FLOAT64);
    EXPECT_ARRAY(b, ND_FLOAT64, ND_SHAPE(4), 1, 0.5, 0, -0.5);
    NdArray *c = nd_arange(0, -1, -0.25, ND_FLOAT32);
    EXPECT_ARRAY(c, ND_FLOAT32, ND_SHAPE(4), 0, -0.25, -0.5, -0.75);
    nd_release(a);
    nd_release(b);
    nd_release(c);
}

static void test_arange_empty(void **state)
{
    (void)state;
    NdArray *a = nd_arange(3, 1, 1, ND_INT64);          /* np.arange(3, 1) */
    EXPECT_ARRAY(a, ND_INT64, ND_SHAPE(0), 0);
    NdArray *b = nd_arange(0, 5, -1, ND_FLOAT64);
    EXPECT_ARRAY(b, ND_FLOAT64, ND_SHAPE(0), 0);
    NdArray *c = nd_arange(2, 2, 0.5, ND_FLOAT32);
    EXPECT_ARRAY(c, ND_FLOAT32, ND_SHAPE(0), 0);
    nd_release(a);
    nd_release(b);
    nd_release(c);
}

/* ------------------------------------------------------------ linspace */

static void test_linspace(void **state)
{
    (void)state;
    NdArray *a = nd_linspace(0, 1, 7);
    EXPECT_ARRAY(a, ND_FLOAT64, ND_SHAPE(7), 0.0, 0.16666666666666666,
                 0.3333333333333333, 0.5, 0.6666666666666666,
                 0.8333333333333333, 1.0);
    NdArray *b = nd_linspace(-1, 2.5, 6);
    EXPECT_ARRAY(b, ND_FLOAT64, ND_SHAPE(6), -0x1p+0, -0x1.3333333333334p-2,
                 0x1.9999999999998p-2, 0x1.1999999999998p+0,
                 0x1.cccccccccccccp+0, 0x1.4p+1);
    NdArray *c = nd_linspace(2, 2, 3);
    EXPECT_ARRAY(c, ND_FLOAT64, ND_SHAPE(3), 2, 2, 2);
    NdArray *one = nd_linspace(3, 4, 1);
    EXPECT_ARRAY(one, ND_FLOAT64, ND_SHAPE(1), 3);
    NdArray *none = nd_linspace(0, 1, 0);
    EXPECT_ARRAY(none, ND_FLOAT64, ND_SHAPE(0), 0);
    nd_release(a);
    nd_release(b);
    nd_release(c);
    nd_release(one);
    nd_release(none);
}

/* Where the endpoint matters: 0 + 49 * (1 / 49) is 0.9999999999999999,
 * and NumPy's last sample is stop itself. np.linspace(0, 1, 50): */
static void test_linspace_endpoint(void **state)
{
    (void)state;
    NdArray *a = nd_linspace(0, 1, 50);
    EXPECT_ARRAY(a, ND_FLOAT64, ND_SHAPE(50),
        0.0, 0.02040816326530612, 0.04081632653061224, 0.061224489795918366,
        0.08163265306122448, 0.1020408163265306, 0.12244897959183673,
        0.14285714285714285, 0.16326530612244897, 0.18367346938775508,
        0.2040816326530612, 0.22448979591836732, 0.24489795918367346,
        0.26530612244897955, 0.2857142857142857, 0.3061224489795918,
        0.32653061224489793, 0.3469387755102041, 0.36734693877551017,
        0.3877551020408163, 0.4081632653061224, 0.42857142857142855,
        0.44897959183673464, 0.4693877551020408, 0.4897959183673469,
        0.5102040816326531, 0.5306122448979591, 0.5510204081632653,
        0.5714285714285714, 0.5918367346938775, 0.6122448979591836,
        0.6326530612244897, 0.6530612244897959, 0.673469387755102,
        0.6938775510204082, 0.7142857142857142, 0.7346938775510203,
        0.7551020408163265, 0.7755102040816326, 0.7959183673469387,
        0.8163265306122448, 0.836734693877551, 0.8571428571428571,
        0.8775510204081632, 0.8979591836734693, 0.9183673469387754,
        0.9387755102040816, 0.9591836734693877, 0.9795918367346939, 1.0);
    /* float32 (NumPy computes in float64, then casts): with stop
     * 1 + 2^-24, a float32 tie that rounds to 1, the computed last
     * sample 1.000000059604645 would round up to 1.0000001.
     * np.linspace(0.1, 1 + 2**-24, 4, dtype=np.float32): */
    NdArray *b = nd_linspace(0.1, 1 + 0x1p-24, 4);
    NdArray *f = nd_astype(b, ND_FLOAT32);
    EXPECT_ARRAY(f, ND_FLOAT32, ND_SHAPE(4), 0x1.99999ap-4, 0x1.99999ap-2,
                 0x1.666668p-1, 1.0);
    nd_release(a);
    nd_release(b);
    nd_release(f);
}

/* ------------------------------------------------------------ eye */

static void test_eye(void **state)
{
    (void)state;
    NdArray *a = nd_eye(3, ND_FLOAT64);
    EXPECT_ARRAY(a, ND_FLOAT64, ND_SHAPE(3, 3), 1, 0, 0, 0, 1, 0, 0, 0, 1);
    NdArray *b = nd_eye(2, ND_INT64);
    EXPECT_ARRAY(b, ND_INT64, ND_SHAPE(2, 2), 1, 0, 0, 1);
    NdArray *c = nd_eye(0, ND_FLOAT32);
    EXPECT_ARRAY(c, ND_FLOAT32, ND_SHAPE(0, 0), 0);
    nd_release(a);
    nd_release(b);
    nd_release(c);
}

/* ------------------------------------------------------------ copies */

static void test_copy_is_independent(void **state)
{
    (void)state;
    NdArray *a = nd_arange(0, 6, 1, ND_FLOAT32);
    NdArray *b = nd_copy(a);
    assert_ptr_not_equal(a, b);
    assert_ptr_not_equal(a->data, b->data);
    assert_int_equal(b->refcount, 1);
    nd_set_flat(a, 0, 42);
    EXPECT_ARRAY(b, ND_FLOAT32, ND_SHAPE(6), 0, 1, 2, 3, 4, 5);
    nd_release(a);
    nd_release(b);
}

static void test_retain_release(void **state)
{
    (void)state;
    NdArray *a = nd_zeros(ND_FLOAT64, ND_SHAPE(2));
    assert_ptr_equal(nd_retain(a), a);
    assert_int_equal(a->refcount, 2);
    nd_release(a);
    assert_int_equal(a->refcount, 1);
    nd_release(a);
    nd_release(NULL);                   /* accepted, does nothing */
}

/* ------------------------------------------------------------ astype */

static void test_astype_float_to_int_truncates(void **state)
{
    (void)state;
    NdArray *x = nd_from_buffer(ND_FLOAT64, ND_SHAPE(5),
                                (double[]){-1.7, -0.5, 0.5, 1.9, 2.5});
    NdArray *i = nd_astype(x, ND_INT64);
    EXPECT_ARRAY(i, ND_INT64, ND_SHAPE(5), -1, 0, 0, 1, 2);
    NdArray *y = nd_from_buffer(ND_FLOAT64, ND_SHAPE(3),
                                (double[]){0, 1.9, 255.9});
    NdArray *u = nd_astype(y, ND_UINT8);
    EXPECT_ARRAY(u, ND_UINT8, ND_SHAPE(3), 0, 1, 255);
    nd_release(x);
    nd_release(i);
    nd_release(y);
    nd_release(u);
}

/* Floats that no int64 holds: C leaves their conversion undefined,
 * NumPy 1.24 on x86-64 gives INT64_MIN, and astype(uint8) the low byte
 * of that int64 (the values below are NumPy's). */
static void test_astype_float_out_of_range(void **state)
{
    (void)state;
    NdArray *x = nd_from_buffer(ND_FLOAT64, ND_SHAPE(10), (double[]){
        NAN, INFINITY, -INFINITY, 1e19, -1e19, 9.2e18, 3.7, -3.7, 300.0,
        -1.0});
    static const int64_t want_i64[10] = {
        INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN,
        9200000000000000000, 3, -3, 300, -1};
    static const uint8_t want_u8[10] = {0, 0, 0, 0, 0, 0, 3, 253, 44, 255};
    NdArray *i = nd_astype(x, ND_INT64), *u = nd_astype(x, ND_UINT8);
    for (int k = 0; k < 10; k++) {
        assert_true(ND_DATA(i, int64_t)[k] == want_i64[k]);
        assert_int_equal(ND_DATA(u, uint8_t)[k], want_u8[k]);
    }
    nd_release(x);
    nd_release(i);
    nd_release(u);
}

static void test_astype_complex_real(void **state)
{
    (void)state;
    double complex z[2] = {1 + 2 * I, -3.5 - 1 * I};
    NdArray *c = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(2), z);
    NdArray *r = nd_astype(c, ND_FLOAT64);      /* drops the imaginary part */
    EXPECT_ARRAY(r, ND_FLOAT64, ND_SHAPE(2), 1, -3.5);
    NdArray *c64 = nd_astype(c, ND_COMPLEX64);
    EXPECT_ARRAY(c64, ND_COMPLEX64, ND_SHAPE(2), 1, -3.5);
    assert_true(imag_at(c64, 0) == 2.0 && imag_at(c64, 1) == -1.0);

    NdArray *f = nd_from_buffer(ND_FLOAT32, ND_SHAPE(2),
                                (float[]){1.5f, -2.0f});
    NdArray *fc = nd_astype(f, ND_COMPLEX128);
    EXPECT_ARRAY(fc, ND_COMPLEX128, ND_SHAPE(2), 1.5, -2);
    assert_true(imag_at(fc, 0) == 0.0 && imag_at(fc, 1) == 0.0);

    /* np.array([1j, 0, 0.5]).astype(bool): 1j is true */
    double complex w[3] = {1 * I, 0, 0.5};
    NdArray *cw = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(3), w);
    NdArray *b = nd_astype(cw, ND_BOOL);
    EXPECT_ARRAY(b, ND_BOOL, ND_SHAPE(3), 1, 0, 1);
    nd_release(c);
    nd_release(r);
    nd_release(c64);
    nd_release(f);
    nd_release(fc);
    nd_release(cw);
    nd_release(b);
}

static void test_astype_uint8_and_bool(void **state)
{
    (void)state;
    NdArray *u = nd_from_buffer(ND_UINT8, ND_SHAPE(2, 2),
                                (uint8_t[]){200, 100, 0, 255});
    NdArray *f = nd_astype(u, ND_FLOAT32);
    EXPECT_ARRAY(f, ND_FLOAT32, ND_SHAPE(2, 2), 200, 100, 0, 255);
    NdArray *d = nd_astype(u, ND_FLOAT64);
    EXPECT_ARRAY(d, ND_FLOAT64, ND_SHAPE(2, 2), 200, 100, 0, 255);
    NdArray *i = nd_astype(u, ND_INT64);
    EXPECT_ARRAY(i, ND_INT64, ND_SHAPE(2, 2), 200, 100, 0, 255);
    NdArray *back = nd_astype(i, ND_UINT8);
    EXPECT_ARRAY(back, ND_UINT8, ND_SHAPE(2, 2), 200, 100, 0, 255);

    /* np.array([0, -0.0, nan, 2]).astype(bool) */
    NdArray *x = nd_from_buffer(ND_FLOAT64, ND_SHAPE(4),
                                (double[]){0, -0.0, NAN, 2});
    NdArray *b = nd_astype(x, ND_BOOL);
    EXPECT_ARRAY(b, ND_BOOL, ND_SHAPE(4), 0, 0, 1, 1);
    NdArray *bi = nd_astype(b, ND_INT64);
    EXPECT_ARRAY(bi, ND_INT64, ND_SHAPE(4), 0, 0, 1, 1);
    nd_release(u);
    nd_release(f);
    nd_release(d);
    nd_release(i);
    nd_release(back);
    nd_release(x);
    nd_release(b);
    nd_release(bi);
}

static void test_astype_rounds_once(void **state)
{
    (void)state;
    NdArray *x = nd_from_buffer(ND_FLOAT64, ND_SHAPE(2),
                                (double[]){0.1, 1e-50});
    NdArray *f = nd_astype(x, ND_FLOAT32);
    EXPECT_ARRAY(f, ND_FLOAT32, ND_SHAPE(2), 0x1.99999ap-4, 0);
    /* int64 to float32 rounds to nearest: 2**24 + 1 is 2**24 */
    NdArray *i = nd_from_buffer(ND_INT64, ND_SHAPE(3),
                                (int64_t[]){16777217, -3, 16777219});
    NdArray *g = nd_astype(i, ND_FLOAT32);
    EXPECT_ARRAY(g, ND_FLOAT32, ND_SHAPE(3), 16777216, -3, 16777220);
    nd_release(x);
    nd_release(f);
    nd_release(i);
    nd_release(g);
}

/* int64 to uint8 keeps the low byte, as a C cast does:
 * np.array([-2**63, 2**63 - 1, -9, 300, 2**53 + 1]).astype(np.uint8)
 * is [0, 255, 247, 44, 1]. Through double, 2**63 - 1 would round up
 * to 2**63 and 2**53 + 1 down to 2**53 (0 both). */
static void test_astype_int64_to_uint8_wraps(void **state)
{
    (void)state;
    NdArray *i = nd_from_buffer(ND_INT64, ND_SHAPE(5),
                                (int64_t[]){INT64_MIN, INT64_MAX, -9, 300,
                                            (1LL << 53) + 1});
    NdArray *u = nd_astype(i, ND_UINT8);
    EXPECT_ARRAY(u, ND_UINT8, ND_SHAPE(5), 0, 255, 247, 44, 1);
    nd_release(i);
    nd_release(u);
}

static void test_astype_same_dtype_is_a_new_array(void **state)
{
    (void)state;
    NdArray *a = nd_ones(ND_FLOAT64, ND_SHAPE(2, 1));
    NdArray *b = nd_astype(a, ND_FLOAT64);
    assert_ptr_not_equal(a, b);
    assert_ptr_not_equal(a->data, b->data);
    EXPECT_ARRAY(b, ND_FLOAT64, ND_SHAPE(2, 1), 1, 1);
    nd_release(a);
    nd_release(b);
}

/* ------------------------------------------------------------ misuse */

static void test_creation_misuse(void **state)
{
    (void)state;
    EXPECT_ND_ERROR(nd_arange(0, 1, 0, ND_FLOAT64),
                    "nd_arange: step must not be zero");
    EXPECT_ND_ERROR(nd_arange(0, NAN, 1, ND_FLOAT64),
                    "nd_arange: cannot compute length");
    EXPECT_ND_ERROR(nd_arange(0, 1e30, 1, ND_FLOAT64),
                    "nd_arange: maximum allowed size exceeded");
    EXPECT_ND_ERROR(nd_arange(0, 3, 1, ND_BOOL),
                    "nd_arange: no fill-function for data-type bool");
    EXPECT_ND_ERROR(nd_linspace(0, 1, -1),
                    "nd_linspace: number of samples, -1, must be "
                    "non-negative");
    EXPECT_ND_ERROR(nd_eye(-2, ND_FLOAT64),
                    "nd_eye: negative dimensions are not allowed");
    EXPECT_ND_ERROR(nd_zeros((NdDtype)7, ND_SHAPE(2)),
                    "nd_zeros: invalid dtype 7");
    EXPECT_ND_ERROR(nd_full(ND_FLOAT64, ND_SHAPE(1 << 30, 1 << 30, 1 << 30),
                            0),
                    "nd_full: array is too big; shape "
                    "(1073741824,1073741824,1073741824)");
    /* A 0 makes the size 0 but does not excuse the other extents:
     * NumPy's np.zeros((0, 2**63 - 1, 2**63 - 1)) raises "array is too
     * big", and the strides of such an array would overflow. */
    EXPECT_ND_ERROR(nd_zeros(ND_FLOAT64, ND_SHAPE(0, INT64_MAX, INT64_MAX)),
                    "nd_zeros: array is too big; shape "
                    "(0,9223372036854775807,9223372036854775807)");
    EXPECT_ND_ERROR(nd_empty(ND_UINT8, ND_SHAPE(INT64_C(1) << 40, 0,
                                               INT64_C(1) << 40)),
                    "nd_empty: array is too big");
    /* The largest that fit are still made: 2**58 elements. */
    NdArray *big = nd_zeros(ND_FLOAT64, ND_SHAPE(0, INT64_C(1) << 29,
                                                 INT64_C(1) << 29));
    assert_int_equal(big->size, 0);
    nd_release(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalar_is_0d_float64),
        cmocka_unit_test(test_scalar_of_each_dtype),
        cmocka_unit_test(test_from_buffer_copies),
        cmocka_unit_test(test_from_buffer_empty_and_0d),
        cmocka_unit_test(test_empty_has_shape),
        cmocka_unit_test(test_zeros_ones_full),
        cmocka_unit_test(test_like_functions_copy_dtype_and_shape),
        cmocka_unit_test(test_full_on_the_host),
        cmocka_unit_test(test_arange_int),
        cmocka_unit_test(test_arange_float_matches_numpy_bits),
        cmocka_unit_test(test_arange_negative_step),
        cmocka_unit_test(test_arange_empty),
        cmocka_unit_test(test_linspace),
        cmocka_unit_test(test_linspace_endpoint),
        cmocka_unit_test(test_eye),
        cmocka_unit_test(test_copy_is_independent),
        cmocka_unit_test(test_retain_release),
        cmocka_unit_test(test_astype_float_to_int_truncates),
        cmocka_unit_test(test_astype_float_out_of_range),
        cmocka_unit_test(test_astype_complex_real),
        cmocka_unit_test(test_astype_uint8_and_bool),
        cmocka_unit_test(test_astype_rounds_once),
        cmocka_unit_test(test_astype_int64_to_uint8_wraps),
        cmocka_unit_test(test_astype_same_dtype_is_a_new_array),
        cmocka_unit_test(test_creation_misuse),
    };
    return cmocka_run_group_tests_name("common/creation", tests, NULL, NULL);
}
