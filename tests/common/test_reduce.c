/* test_reduce.c - sum, mean, max, min and argmax: axes, keepdims, dtypes,
 * NumPy's exact float summation order, and every misuse. Expected values
 * come from NumPy 1.24 (Debian's python3-numpy). */
#include <complex.h>
#include <math.h>

#include "nd_test.h"

/* ------------------------------------------------------------ test data */

/* Deterministic values that NumPy rebuilds bit for bit:
 *   h = (i * 2654435761) mod 2**32
 *   x = (h / 2**32 - 0.5) * 2**(i % 5) * 1.1   (in float64)
 * A complex element i of an array of size n is x(i) + x(i + n) j. */
static double test_value(uint64_t i)
{
    uint32_t h = (uint32_t)(i * 2654435761u);
    return ((double)h / 4294967296.0 - 0.5) * (double)(1u << (i % 5)) * 1.1;
}

static NdArray *test_array(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *a = nd_empty(dtype, ndim, shape);
    uint64_t n = (uint64_t)a->size;
    for (uint64_t i = 0; i < n; i++) {
        if (dtype == ND_COMPLEX64)
            ND_DATA(a, float complex)[i] =
                (float complex)(test_value(i) + I * test_value(i + n));
        else if (dtype == ND_COMPLEX128)
            ND_DATA(a, double complex)[i] = test_value(i) +
                                            I * test_value(i + n);
        else
            nd_set_flat(a, (int64_t)i, test_value(i));
    }
    return a;
}

/* FNV-1a over the bytes of a's elements: one number that pins every bit
 * of a large result (NumPy side: the same over result.tobytes()). */
static uint64_t fnv1a(const NdArray *a)
{
    const unsigned char *p = a->data;
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < (size_t)a->size * nd_dtype_size(a->dtype); i++) {
        h ^= p[i];
        h *= 0x100000001b3u;
    }
    return h;
}

/* Checks the float dtype, the shape, the first values bit for bit and
 * the hash of all of them. */
static void expect_exact(const NdArray *s, NdDtype dtype, int ndim,
                         const int64_t *shape, uint64_t hash, int nfirst,
                         const double *first)
{
    assert_string_equal(nd_dtype_name(s->dtype), nd_dtype_name(dtype));
    assert_int_equal(s->ndim, ndim);
    for (int d = 0; d < ndim; d++)
        assert_int_equal(s->shape[d], shape[d]);
    for (int i = 0; i < nfirst; i++)
        if (nd_get_flat(s, i) != first[i])
            fail_msg("element %d: got %a, want %a", i, nd_get_flat(s, i),
                     first[i]);
    assert_int_equal(fnv1a(s), hash);
}
#define EXPECT_EXACT(s, dtype, ndim_shape, hash, ...)                     \
    expect_exact((s), (dtype), ndim_shape, (hash),                        \
                 (int)(sizeof((double[]){__VA_ARGS__}) / sizeof(double)), \
                 (const double[]){__VA_ARGS__})

/* Runs a reduction of a fresh test array and checks it exactly. */
static NdArray *sum_of_test_array(NdDtype dtype, int ndim,
                                  const int64_t *shape, int naxes,
                                  const int *axes)
{
    NdArray *a = test_array(dtype, ndim, shape);
    NdArray *s = nd_sum(a, naxes, axes, false);
    nd_release(a);
    return s;
}

static NdArray *arange_2x3(void)         /* [[0 1 2] [3 4 5]] float64 */
{
    NdArray *r = nd_arange(0, 6, 1, ND_FLOAT64);
    NdArray *a = nd_reshape(r, ND_SHAPE(2, 3));
    nd_release(r);
    return a;
}

/* An array header that claims to live on the GPU: while GPU support is
 * off, every reduction must refuse it before touching its data. (With a
 * GPU it would reach a real kernel; test_gpu.c tests real ones.) */
static NdArray on_gpu(const NdArray *a)
{
    NdArray fake = *a;
    fake.device = ND_CUDA;
    return fake;
}

/* ------------------------------------------------------------ sum */

static void test_sum_axes(void **state)
{
    (void)state;
    NdArray *a = arange_2x3();
    NdArray *s = nd_sum(a, ND_ALL_AXES, false);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SCALAR_SHAPE, 15);
    nd_release(s);
    s = nd_sum(a, ND_ALL_AXES, true);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(1, 1), 15);
    nd_release(s);
    s = nd_sum(a, ND_AXES(0), false);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(3), 3, 5, 7);
    nd_release(s);
    s = nd_sum(a, ND_AXES(0), true);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(1, 3), 3, 5, 7);
    nd_release(s);
    s = nd_sum(a, ND_AXES(1), false);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(2), 3, 12);
    nd_release(s);
    s = nd_sum(a, ND_AXES(-1), true);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(2, 1), 3, 12);
    nd_release(s);
    s = nd_sum(a, ND_AXES(1, 0), false);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SCALAR_SHAPE, 15);
    nd_release(s);
    s = nd_sum(a, 0, NULL, false);          /* axis=(): a copy */
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(2, 3), 0, 1, 2, 3, 4, 5);
    assert_ptr_not_equal(s->data, a->data);
    nd_release(s);
    nd_release(a);

    NdArray *r = nd_arange(0, 24, 1, ND_FLOAT64);
    NdArray *b = nd_reshape(r, ND_SHAPE(2, 3, 4));
    s = nd_sum(b, ND_AXES(0, 2), false);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(3), 60, 92, 124);
    nd_release(s);
    s = nd_sum(b, ND_AXES(-1), true);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(2, 3, 1), 6, 22, 38, 54, 70, 86);
    nd_release(s);
    nd_release(b);
    nd_release(r);
}

static void test_sum_dtypes(void **state)
{
    (void)state;
    NdArray *i = nd_arange(0, 6, 1, ND_INT64);
    NdArray *s = nd_sum(i, ND_ALL_AXES, false);
    EXPECT_ARRAY(s, ND_INT64, ND_SCALAR_SHAPE, 15);
    nd_release(s);
    nd_release(i);

    NdArray *b = nd_from_buffer(ND_BOOL, ND_SHAPE(4),
                                (bool[]){true, true, false, true});
    s = nd_sum(b, ND_ALL_AXES, false);      /* bools count as int64 */
    EXPECT_ARRAY(s, ND_INT64, ND_SCALAR_SHAPE, 3);
    nd_release(s);
    nd_release(b);

    NdArray *u = nd_from_buffer(ND_UINT8, ND_SHAPE(2), (uint8_t[]){250, 10});
    s = nd_sum(u, ND_ALL_AXES, false);      /* no uint8 wrap-around */
    EXPECT_ARRAY(s, ND_INT64, ND_SCALAR_SHAPE, 260);
    nd_release(s);
    nd_release(u);

    NdArray *big = nd_from_buffer(ND_INT64, ND_SHAPE(2),
                                  (int64_t[]){INT64_MAX, 1});
    s = nd_sum(big, ND_ALL_AXES, false);    /* wraps, as NumPy's */
    assert_true(ND_DATA(s, int64_t)[0] == INT64_MIN);
    nd_release(s);
    nd_release(big);

    NdArray *f = nd_from_buffer(ND_FLOAT32, ND_SHAPE(3),
                                (float[]){0.5f, 0.25f, 1});
    s = nd_sum(f, ND_ALL_AXES, false);
    EXPECT_ARRAY(s, ND_FLOAT32, ND_SCALAR_SHAPE, 1.75);
    nd_release(s);
    nd_release(f);

    NdArray *z = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(2),
                                (double complex[]){1 + 2 * I, 3 - 1 * I});
    s = nd_sum(z, ND_ALL_AXES, false);
    assert_string_equal(nd_dtype_name(s->dtype), "complex128");
    assert_true(ND_DATA(s, double complex)[0] == 4 + 1 * I);
    nd_release(s);
    nd_release(z);
}

static void test_sum_empty_and_scalar(void **state)
{
    (void)state;
    NdArray *e = nd_zeros(ND_FLOAT64, ND_SHAPE(0));
    NdArray *s = nd_sum(e, ND_ALL_AXES, false);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SCALAR_SHAPE, 0);
    nd_release(s);
    nd_release(e);

    e = nd_zeros(ND_FLOAT32, ND_SHAPE(0, 3));
    s = nd_sum(e, ND_AXES(0), false);
    EXPECT_ARRAY(s, ND_FLOAT32, ND_SHAPE(3), 0, 0, 0);
    nd_release(s);
    s = nd_sum(e, ND_AXES(1), false);
    EXPECT_ARRAY(s, ND_FLOAT32, ND_SHAPE(0), 0);
    nd_release(s);
    nd_release(e);

    NdArray *x = nd_scalar(2.5);
    s = nd_sum(x, ND_ALL_AXES, false);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SCALAR_SHAPE, 2.5);
    nd_release(s);
    nd_release(x);
}

/* np.sum(x) of float32 vectors: blocks of 8192 elements, each summed
 * pairwise. A plain loop gives other last bits for every size >= 100. */
static void test_sum_float32_pairwise(void **state)
{
    (void)state;
    struct { int64_t n; double sum; } cases[] = {
        {7, 0x1.2e69ap+0},
        {100, -0x1.503f4cp+3},
        {1000, 0x1.7500a4p+2},
        {100000, 0x1.16f7cep+4},      /* 13 blocks of 8192 */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        NdArray *s = sum_of_test_array(ND_FLOAT32, 1, &cases[k].n,
                                       ND_ALL_AXES);
        assert_string_equal(nd_dtype_name(s->dtype), "float32");
        assert_int_equal(s->ndim, 0);
        if (nd_item(s) != cases[k].sum)
            fail_msg("n=%lld: got %a, want %a", (long long)cases[k].n,
                     nd_item(s), cases[k].sum);
        nd_release(s);
    }
}

/* A (300, 784) float32 batch, as MNIST gives: axis None is pairwise over
 * all, axis 1 pairwise per row, axis 0 adds the rows one by one. */
static void test_sum_float32_batch(void **state)
{
    (void)state;
    NdArray *s = sum_of_test_array(ND_FLOAT32, ND_SHAPE(300, 784),
                                   ND_ALL_AXES);
    EXPECT_EXACT(s, ND_FLOAT32, ND_SCALAR_SHAPE, 0xae75f59dbb9d17c2u,
                 0x1.048d88p+4);
    nd_release(s);
    s = sum_of_test_array(ND_FLOAT32, ND_SHAPE(300, 784), ND_AXES(0));
    EXPECT_EXACT(s, ND_FLOAT32, ND_SHAPE(784), 0xd7c7e2c578e8672eu,
                 -0x1.5ff414p+4, -0x1.c12cd6p+3, -0x1.9213b4p+2);
    nd_release(s);
    s = sum_of_test_array(ND_FLOAT32, ND_SHAPE(300, 784), ND_AXES(1));
    EXPECT_EXACT(s, ND_FLOAT32, ND_SHAPE(300), 0x7e425bdc424851aeu,
                 -0x1.2767c6p+2, 0x1.28adacp+4, 0x1.8e60b8p+3);
    nd_release(s);
    s = sum_of_test_array(ND_FLOAT32, ND_SHAPE(300, 784), ND_AXES(-1));
    assert_int_equal(fnv1a(s), 0x7e425bdc424851aeu);
    nd_release(s);
}

/* How NumPy's iterator sees the axes: long rows go in 8192-element
 * blocks, size-1 axes vanish (so (300, 1) over axis 0 is pairwise), and
 * neighbouring reduced axes merge. */
static void test_sum_float32_iteration_order(void **state)
{
    (void)state;
    NdArray *s = sum_of_test_array(ND_FLOAT32, ND_SHAPE(3, 20000),
                                   ND_AXES(1));
    EXPECT_EXACT(s, ND_FLOAT32, ND_SHAPE(3), 0xb317f37512e6b930u,
                 0x1.4a4d1cp+3, -0x1.054b42p+3, 0x1.34b4d6p+3);
    nd_release(s);
    s = sum_of_test_array(ND_FLOAT32, ND_SHAPE(300, 1), ND_AXES(0));
    EXPECT_EXACT(s, ND_FLOAT32, ND_SHAPE(1), 0x093458625d740363u,
                 0x1.01f408p+2);
    nd_release(s);
    s = sum_of_test_array(ND_FLOAT32, ND_SHAPE(40, 50, 60), ND_AXES(0, 2));
    EXPECT_EXACT(s, ND_FLOAT32, ND_SHAPE(50), 0x321cc6b57e24efe1u,
                 0x1.530298p+3, 0x1.db1c4cp+1, -0x1.57b62p+2);
    nd_release(s);
}

static void test_sum_float64_and_complex_exact(void **state)
{
    (void)state;
    NdArray *s = sum_of_test_array(ND_FLOAT64, ND_SHAPE(100000),
                                   ND_ALL_AXES);
    EXPECT_EXACT(s, ND_FLOAT64, ND_SCALAR_SHAPE, 0x4d0c47f3f1a761fau,
                 0x1.16f7b606b3271p+4);
    nd_release(s);
    s = sum_of_test_array(ND_FLOAT64, ND_SHAPE(300, 784), ND_AXES(1));
    EXPECT_EXACT(s, ND_FLOAT64, ND_SHAPE(300), 0x8e655993b6926e73u,
                 -0x1.2767c6857fff2p+2, 0x1.28ad9ef22199ep+4,
                 0x1.8e60b74ec6669p+3);
    nd_release(s);

    /* Complex sums: NumPy's pairwise over the interleaved (re, im). */
    s = sum_of_test_array(ND_COMPLEX64, ND_SHAPE(9000), ND_ALL_AXES);
    assert_string_equal(nd_dtype_name(s->dtype), "complex64");
    assert_true(ND_DATA(s, float complex)[0] ==
                0x1.695eecp+4f - 0x1.47be9cp+3f * I);
    nd_release(s);
    s = sum_of_test_array(ND_COMPLEX128, ND_SHAPE(50, 37), ND_AXES(0));
    EXPECT_EXACT(s, ND_COMPLEX128, ND_SHAPE(37), 0x3836fc681ea631c3u,
                 -0x1.ae065632acccep+2);
    nd_release(s);
    s = sum_of_test_array(ND_COMPLEX128, ND_SHAPE(50, 37), ND_AXES(1));
    EXPECT_EXACT(s, ND_COMPLEX128, ND_SHAPE(50), 0x6edb1dbd09b17f8fu,
                 0x1.986e5e12cccccp+2);
    nd_release(s);
}

static void test_sum_errors(void **state)
{
    (void)state;
    NdArray *a = arange_2x3();
    EXPECT_ND_ERROR(nd_sum(a, ND_AXES(2), false),
                    "nd_sum: axis 2 is out of bounds for array of "
                    "dimension 2");
    EXPECT_ND_ERROR(nd_sum(a, ND_AXES(-3), false),
                    "nd_sum: axis -3 is out of bounds");
    EXPECT_ND_ERROR(nd_sum(a, ND_AXES(0, 0), false),
                    "nd_sum: duplicate value in 'axis'");
    EXPECT_ND_ERROR(nd_sum(a, ND_AXES(0, -2), false),
                    "nd_sum: duplicate value in 'axis'");
    EXPECT_ND_ERROR(nd_sum(a, -2, NULL, false), "nd_sum: invalid axes");
    EXPECT_ND_ERROR(nd_sum(a, 1, NULL, false), "nd_sum: invalid axes");
    NdArray gpu = on_gpu(a);
    if (!nd_gpu_available()) {
        EXPECT_ND_ERROR(nd_sum(&gpu, ND_ALL_AXES, false),
                        "nd_sum: the operands are on device cuda");
        EXPECT_ND_ERROR(nd_mean(&gpu, ND_ALL_AXES, false), "nd_mean");
        EXPECT_ND_ERROR(nd_max(&gpu, ND_ALL_AXES, false), "nd_max");
        EXPECT_ND_ERROR(nd_min(&gpu, ND_ALL_AXES, false), "nd_min");
        EXPECT_ND_ERROR(nd_argmax(&gpu, ND_NO_AXIS), "nd_argmax");
    }
    nd_release(a);
    NdArray *x = nd_scalar(1);
    EXPECT_ND_ERROR(nd_sum(x, ND_AXES(0), false),
                    "nd_sum: axis 0 is out of bounds for array of "
                    "dimension 0");
    nd_release(x);
}

/* ------------------------------------------------------------ mean */

static void test_mean(void **state)
{
    (void)state;
    NdArray *a = arange_2x3();
    NdArray *m = nd_mean(a, ND_ALL_AXES, false);
    EXPECT_ARRAY(m, ND_FLOAT64, ND_SCALAR_SHAPE, 2.5);
    nd_release(m);
    m = nd_mean(a, ND_AXES(0), true);
    EXPECT_ARRAY(m, ND_FLOAT64, ND_SHAPE(1, 3), 1.5, 2.5, 3.5);
    nd_release(m);
    m = nd_mean(a, ND_AXES(-1), false);
    EXPECT_ARRAY(m, ND_FLOAT64, ND_SHAPE(2), 1, 4);
    nd_release(m);
    nd_release(a);

    NdArray *i = nd_arange(0, 6, 1, ND_INT64);
    m = nd_mean(i, ND_ALL_AXES, false);     /* integers: float64 */
    EXPECT_ARRAY(m, ND_FLOAT64, ND_SCALAR_SHAPE, 2.5);
    nd_release(m);
    nd_release(i);
    NdArray *b = nd_from_buffer(ND_BOOL, ND_SHAPE(3),
                                (bool[]){true, false, false});
    m = nd_mean(b, ND_ALL_AXES, false);
    EXPECT_ARRAY(m, ND_FLOAT64, ND_SCALAR_SHAPE, 0.3333333333333333);
    nd_release(m);
    nd_release(b);

    NdArray *e = nd_zeros(ND_FLOAT64, ND_SHAPE(0, 3));
    m = nd_mean(e, ND_AXES(0), false);      /* 0 / 0 */
    assert_int_equal(m->size, 3);
    EXPECT_DOUBLE(nd_get_flat(m, 0), NAN);
    nd_release(m);
    nd_release(e);

    a = arange_2x3();
    EXPECT_ND_ERROR(nd_mean(a, ND_AXES(5), false),
                    "nd_mean: axis 5 is out of bounds");
    EXPECT_ND_ERROR(nd_mean(a, ND_AXES(1, 1), false),
                    "nd_mean: duplicate value in 'axis'");
    nd_release(a);
}

static void test_mean_exact(void **state)
{
    (void)state;
    /* float32 stays float32: the float32 sum / float32(count). */
    NdArray *x = test_array(ND_FLOAT32, ND_SHAPE(300, 784));
    NdArray *m = nd_mean(x, ND_AXES(0), false);
    EXPECT_EXACT(m, ND_FLOAT32, ND_SHAPE(784), 0x96db77627a32e5e7u,
                 -0x1.2c5566p-4, -0x1.7f4bcep-5, -0x1.571b0ep-6);
    nd_release(m);
    m = nd_mean(x, ND_ALL_AXES, false);
    assert_string_equal(nd_dtype_name(m->dtype), "float32");
    EXPECT_DOUBLE(nd_item(m), 0x1.2266b6p-14);
    nd_release(m);
    nd_release(x);

    /* Complex: NumPy divides by count + 0j, i.e. multiplies by 1/count. */
    x = test_array(ND_COMPLEX64, ND_SHAPE(9000));
    m = nd_mean(x, ND_ALL_AXES, false);
    assert_string_equal(nd_dtype_name(m->dtype), "complex64");
    assert_true(ND_DATA(m, float complex)[0] ==
                0x1.48ed8p-9f - 0x1.2a5206p-10f * I);
    nd_release(m);
    nd_release(x);
    x = test_array(ND_COMPLEX128, ND_SHAPE(50, 37));
    m = nd_mean(x, ND_AXES(0), false);
    EXPECT_EXACT(m, ND_COMPLEX128, ND_SHAPE(37), 0xc3ee7b650c4dcd68u,
                 -0x1.133741681cac1p-3);
    nd_release(m);
    nd_release(x);
}

/* ------------------------------------------------------------ max, min */

static void test_max_min(void **state)
{
    (void)state;
    NdArray *a = nd_from_buffer(ND_FLOAT64, ND_SHAPE(2, 3),
                                (double[]){1, 5, 2, 7, 0, 3});
    NdArray *r = nd_max(a, ND_ALL_AXES, false);
    EXPECT_ARRAY(r, ND_FLOAT64, ND_SCALAR_SHAPE, 7);
    nd_release(r);
    r = nd_max(a, ND_AXES(0), false);
    EXPECT_ARRAY(r, ND_FLOAT64, ND_SHAPE(3), 7, 5, 3);
    nd_release(r);
    r = nd_max(a, ND_AXES(1), true);
    EXPECT_ARRAY(r, ND_FLOAT64, ND_SHAPE(2, 1), 5, 7);
    nd_release(r);
    r = nd_min(a, ND_ALL_AXES, true);
    EXPECT_ARRAY(r, ND_FLOAT64, ND_SHAPE(1, 1), 0);
    nd_release(r);
    r = nd_min(a, ND_AXES(0), false);
    EXPECT_ARRAY(r, ND_FLOAT64, ND_SHAPE(3), 1, 0, 2);
    nd_release(r);
    r = nd_min(a, ND_AXES(-1), false);
    EXPECT_ARRAY(r, ND_FLOAT64, ND_SHAPE(2), 1, 0);
    nd_release(r);
    nd_release(a);

    NdArray *neg = nd_full(ND_FLOAT32, ND_SHAPE(2), -INFINITY);
    r = nd_max(neg, ND_ALL_AXES, false);
    EXPECT_ARRAY(r, ND_FLOAT32, ND_SCALAR_SHAPE, -INFINITY);
    nd_release(r);
    nd_release(neg);
}

static void test_max_min_dtypes(void **state)
{
    (void)state;
    NdArray *u = nd_from_buffer(ND_UINT8, ND_SHAPE(2), (uint8_t[]){250, 10});
    NdArray *r = nd_max(u, ND_ALL_AXES, false);
    EXPECT_ARRAY(r, ND_UINT8, ND_SCALAR_SHAPE, 250);
    nd_release(r);
    r = nd_min(u, ND_ALL_AXES, false);
    EXPECT_ARRAY(r, ND_UINT8, ND_SCALAR_SHAPE, 10);
    nd_release(r);
    nd_release(u);

    NdArray *b = nd_from_buffer(ND_BOOL, ND_SHAPE(2), (bool[]){false, true});
    r = nd_max(b, ND_ALL_AXES, false);
    EXPECT_ARRAY(r, ND_BOOL, ND_SCALAR_SHAPE, 1);
    nd_release(r);
    r = nd_min(b, ND_ALL_AXES, false);
    EXPECT_ARRAY(r, ND_BOOL, ND_SCALAR_SHAPE, 0);
    nd_release(r);
    nd_release(b);

    NdArray *i = nd_from_buffer(ND_INT64, ND_SHAPE(3),
                                (int64_t[]){INT64_MIN, -5, INT64_MAX});
    r = nd_max(i, ND_ALL_AXES, false);
    assert_true(ND_DATA(r, int64_t)[0] == INT64_MAX);
    nd_release(r);
    r = nd_min(i, ND_ALL_AXES, false);
    assert_true(ND_DATA(r, int64_t)[0] == INT64_MIN);
    nd_release(r);
    nd_release(i);
}

static void test_max_min_nan(void **state)
{
    (void)state;
    NdArray *v = nd_from_buffer(ND_FLOAT64, ND_SHAPE(3),
                                (double[]){1, NAN, 3});
    NdArray *r = nd_max(v, ND_ALL_AXES, false);
    EXPECT_DOUBLE(nd_item(r), NAN);
    nd_release(r);
    r = nd_min(v, ND_ALL_AXES, false);
    EXPECT_DOUBLE(nd_item(r), NAN);
    nd_release(r);
    nd_release(v);

    /* [[1 nan] [2 0] [-1 5]]: max(0) [2 nan], min(1) [nan 0 -1] */
    NdArray *c = nd_from_buffer(ND_FLOAT32, ND_SHAPE(3, 2),
                                (float[]){1, NAN, 2, 0, -1, 5});
    r = nd_max(c, ND_AXES(0), false);
    EXPECT_DOUBLE(nd_get_flat(r, 0), 2);
    EXPECT_DOUBLE(nd_get_flat(r, 1), NAN);
    nd_release(r);
    r = nd_min(c, ND_AXES(1), false);
    EXPECT_DOUBLE(nd_get_flat(r, 0), NAN);
    EXPECT_DOUBLE(nd_get_flat(r, 1), 0);
    EXPECT_DOUBLE(nd_get_flat(r, 2), -1);
    nd_release(r);
    nd_release(c);
}

static void test_max_min_errors(void **state)
{
    (void)state;
    NdArray *empty = nd_zeros(ND_FLOAT64, ND_SHAPE(0));
    EXPECT_ND_ERROR(nd_max(empty, ND_ALL_AXES, false),
                    "nd_max: zero-size array to reduction operation "
                    "maximum which has no identity");
    EXPECT_ND_ERROR(nd_min(empty, ND_ALL_AXES, false),
                    "nd_min: zero-size array to reduction operation "
                    "minimum which has no identity");
    nd_release(empty);

    NdArray *no_rows = nd_zeros(ND_FLOAT64, ND_SHAPE(0, 3));
    NdArray *r = nd_max(no_rows, ND_AXES(1), false);  /* 3 per row */
    EXPECT_ARRAY(r, ND_FLOAT64, ND_SHAPE(0), 0);
    nd_release(r);
    EXPECT_ND_ERROR(nd_max(no_rows, ND_AXES(0), false),
                    "zero-size array to reduction operation maximum");
    nd_release(no_rows);

    NdArray *z = nd_zeros(ND_COMPLEX128, ND_SHAPE(2));
    EXPECT_ND_ERROR(nd_max(z, ND_ALL_AXES, false),
                    "nd_max: not supported for the dtype complex128");
    EXPECT_ND_ERROR(nd_min(z, ND_ALL_AXES, false),
                    "nd_min: not supported for the dtype complex128");
    nd_release(z);

    NdArray *a = arange_2x3();
    EXPECT_ND_ERROR(nd_max(a, ND_AXES(2), false),
                    "nd_max: axis 2 is out of bounds");
    EXPECT_ND_ERROR(nd_min(a, ND_AXES(-1, 1), false),
                    "nd_min: duplicate value in 'axis'");
    nd_release(a);
}

/* ------------------------------------------------------------ argmax */

static void test_argmax(void **state)
{
    (void)state;
    /* [[1 nan] [2 0] [-1 5]] */
    NdArray *c = nd_from_buffer(ND_FLOAT64, ND_SHAPE(3, 2),
                                (double[]){1, NAN, 2, 0, -1, 5});
    NdArray *r = nd_argmax(c, 0);
    EXPECT_ARRAY(r, ND_INT64, ND_SHAPE(2), 1, 0);
    nd_release(r);
    r = nd_argmax(c, -1);
    EXPECT_ARRAY(r, ND_INT64, ND_SHAPE(3), 1, 0, 1);
    nd_release(r);
    r = nd_argmax(c, ND_NO_AXIS);           /* the first NaN */
    EXPECT_ARRAY(r, ND_INT64, ND_SCALAR_SHAPE, 1);
    nd_release(r);
    nd_release(c);

    NdArray *ties = nd_from_buffer(ND_INT64, ND_SHAPE(4),
                                   (int64_t[]){3, 7, 7, 1});
    r = nd_argmax(ties, ND_NO_AXIS);        /* the first maximum */
    EXPECT_ARRAY(r, ND_INT64, ND_SCALAR_SHAPE, 1);
    nd_release(r);
    nd_release(ties);

    /* np.arange(24).reshape(2, 3, 4) % 5 */
    NdArray *t = nd_empty(ND_INT64, ND_SHAPE(2, 3, 4));
    for (int64_t i = 0; i < 24; i++)
        ND_DATA(t, int64_t)[i] = i % 5;
    r = nd_argmax(t, 1);
    EXPECT_ARRAY(r, ND_INT64, ND_SHAPE(2, 4), 1, 2, 0, 0, 0, 0, 0, 1);
    nd_release(r);
    r = nd_argmax(t, 0);
    EXPECT_ARRAY(r, ND_INT64, ND_SHAPE(3, 4), 1, 1, 1, 0, 0, 1, 1, 1,
                 0, 0, 1, 1);
    nd_release(r);
    r = nd_argmax(t, 2);
    EXPECT_ARRAY(r, ND_INT64, ND_SHAPE(2, 3), 3, 0, 1, 2, 3, 3);
    nd_release(r);
    r = nd_argmax(t, ND_NO_AXIS);
    EXPECT_ARRAY(r, ND_INT64, ND_SCALAR_SHAPE, 4);
    nd_release(r);
    nd_release(t);

    /* int64 compared exactly, not through double: 2**53 + 1 wins. */
    NdArray *big = nd_from_buffer(ND_INT64, ND_SHAPE(3),
        (int64_t[]){INT64_C(1) << 53, (INT64_C(1) << 53) + 1,
                    INT64_C(1) << 53});
    r = nd_argmax(big, 0);
    EXPECT_ARRAY(r, ND_INT64, ND_SCALAR_SHAPE, 1);
    nd_release(r);
    nd_release(big);

    NdArray *b = nd_from_buffer(ND_BOOL, ND_SHAPE(3),
                                (bool[]){false, true, true});
    r = nd_argmax(b, ND_NO_AXIS);
    EXPECT_ARRAY(r, ND_INT64, ND_SCALAR_SHAPE, 1);
    nd_release(r);
    nd_release(b);

    NdArray *f = nd_from_buffer(ND_FLOAT32, ND_SHAPE(2, 2),
                                (float[]){-3, -2, -1, -4});
    r = nd_argmax(f, 1);
    EXPECT_ARRAY(r, ND_INT64, ND_SHAPE(2), 1, 0);
    nd_release(r);
    nd_release(f);
}

static void test_argmax_errors(void **state)
{
    (void)state;
    NdArray *a = arange_2x3();
    EXPECT_ND_ERROR(nd_argmax(a, 2),
                    "nd_argmax: axis 2 is out of bounds for array of "
                    "dimension 2");
    EXPECT_ND_ERROR(nd_argmax(a, -3), "nd_argmax: axis -3 is out of bounds");
    nd_release(a);
    NdArray *empty = nd_zeros(ND_FLOAT64, ND_SHAPE(0));
    EXPECT_ND_ERROR(nd_argmax(empty, ND_NO_AXIS),
                    "nd_argmax: attempt to get argmax of an empty sequence");
    nd_release(empty);
    NdArray *no_columns = nd_zeros(ND_FLOAT64, ND_SHAPE(3, 0));
    EXPECT_ND_ERROR(nd_argmax(no_columns, 1),
                    "nd_argmax: attempt to get argmax of an empty sequence");
    NdArray *r = nd_argmax(no_columns, 0);  /* 3 candidates, no lines */
    EXPECT_ARRAY(r, ND_INT64, ND_SHAPE(0), 0);
    nd_release(r);
    nd_release(no_columns);
    NdArray *z = nd_zeros(ND_COMPLEX64, ND_SHAPE(2));
    EXPECT_ND_ERROR(nd_argmax(z, 0),
                    "nd_argmax: not supported for the dtype complex64");
    nd_release(z);
    NdArray *x = nd_scalar(1);
    EXPECT_ND_ERROR(nd_argmax(x, 0), "nd_argmax: axis 0 is out of bounds");
    r = nd_argmax(x, ND_NO_AXIS);
    EXPECT_ARRAY(r, ND_INT64, ND_SCALAR_SHAPE, 0);
    nd_release(r);
    nd_release(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sum_axes),
        cmocka_unit_test(test_sum_dtypes),
        cmocka_unit_test(test_sum_empty_and_scalar),
        cmocka_unit_test(test_sum_float32_pairwise),
        cmocka_unit_test(test_sum_float32_batch),
        cmocka_unit_test(test_sum_float32_iteration_order),
        cmocka_unit_test(test_sum_float64_and_complex_exact),
        cmocka_unit_test(test_sum_errors),
        cmocka_unit_test(test_mean),
        cmocka_unit_test(test_mean_exact),
        cmocka_unit_test(test_max_min),
        cmocka_unit_test(test_max_min_dtypes),
        cmocka_unit_test(test_max_min_nan),
        cmocka_unit_test(test_max_min_errors),
        cmocka_unit_test(test_argmax),
        cmocka_unit_test(test_argmax_errors),
    };
    return cmocka_run_group_tests_name("common/reduce", tests, NULL, NULL);
}
