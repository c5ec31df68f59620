/* test_shape.c - reshape, expand_dims and squeeze (views), transpose,
 * broadcast_to, sum_to, flatten, concatenate and stack, and every misuse.
 * Expected values come from NumPy 1.24 and DeZero's utils.sum_to. */
#include <complex.h>

#include "nd_test.h"

static NdArray *arange_shaped(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *a = nd_empty(dtype, ndim, shape);
    for (int64_t i = 0; i < a->size; i++)
        nd_set_flat(a, i, (double)i);
    return a;
}

/* An array header that claims to live on the GPU. Without GPU support
 * it is refused; with it, it would reach a real kernel, so the checks
 * that pass it alone run only while the GPU is off (test_gpu.c tests
 * real device arrays). */
static NdArray on_gpu(const NdArray *a)
{
    NdArray fake = *a;
    fake.device = ND_CUDA;
    return fake;
}

/* ------------------------------------------------------------ reshape */

static void test_reshape_is_a_view(void **state)
{
    (void)state;
    NdArray *a = arange_shaped(ND_FLOAT64, ND_SHAPE(6));
    NdArray *v = nd_reshape(a, ND_SHAPE(2, 3));
    EXPECT_ARRAY(v, ND_FLOAT64, ND_SHAPE(2, 3), 0, 1, 2, 3, 4, 5);
    assert_ptr_equal(v->data, a->data);
    assert_ptr_equal(v->base, a);
    assert_int_equal(a->refcount, 2);

    /* A view of a view keeps the owner, not the intermediate view. */
    NdArray *w = nd_reshape(v, ND_SHAPE(3, -1));
    EXPECT_ARRAY(w, ND_FLOAT64, ND_SHAPE(3, 2), 0, 1, 2, 3, 4, 5);
    assert_ptr_equal(w->base, a);
    assert_int_equal(v->refcount, 1);

    nd_set_flat(w, 5, 42);                  /* writes through to a */
    EXPECT_DOUBLE(nd_get_flat(a, 5), 42);

    nd_release(a);                          /* the views keep it alive */
    nd_release(v);
    EXPECT_ARRAY(w, ND_FLOAT64, ND_SHAPE(3, 2), 0, 1, 2, 3, 4, 42);
    nd_release(w);
}

static void test_reshape_shapes(void **state)
{
    (void)state;
    NdArray *a = arange_shaped(ND_INT64, ND_SHAPE(2, 3));
    NdArray *r = nd_reshape(a, ND_SHAPE(-1));
    EXPECT_ARRAY(r, ND_INT64, ND_SHAPE(6), 0, 1, 2, 3, 4, 5);
    nd_release(r);
    r = nd_reshape(a, ND_SHAPE(3, 1, -1));
    EXPECT_ARRAY(r, ND_INT64, ND_SHAPE(3, 1, 2), 0, 1, 2, 3, 4, 5);
    nd_release(r);
    nd_release(a);

    NdArray *one = nd_ones(ND_FLOAT32, ND_SHAPE(1));
    NdArray *s = nd_reshape(one, ND_SCALAR_SHAPE);
    EXPECT_ARRAY(s, ND_FLOAT32, ND_SCALAR_SHAPE, 1);
    NdArray *back = nd_reshape(s, ND_SHAPE(1, 1));
    EXPECT_ARRAY(back, ND_FLOAT32, ND_SHAPE(1, 1), 1);
    nd_release(back);
    nd_release(s);
    nd_release(one);

    NdArray *e = nd_zeros(ND_FLOAT64, ND_SHAPE(0, 3));
    r = nd_reshape(e, ND_SHAPE(3, -1));
    EXPECT_ARRAY(r, ND_FLOAT64, ND_SHAPE(3, 0), 0);
    nd_release(r);
    nd_release(e);
}

static void test_reshape_errors(void **state)
{
    (void)state;
    NdArray *a = arange_shaped(ND_FLOAT64, ND_SHAPE(6));
    EXPECT_ND_ERROR(nd_reshape(a, ND_SHAPE(4)),
                    "nd_reshape: cannot reshape array of size 6 into shape "
                    "(4,)");
    EXPECT_ND_ERROR(nd_reshape(a, ND_SHAPE(4, -1)),
                    "nd_reshape: cannot reshape array of size 6 into shape "
                    "(4,-1)");
    EXPECT_ND_ERROR(nd_reshape(a, ND_SHAPE(0, -1)),
                    "cannot reshape array of size 6 into shape (0,-1)");
    EXPECT_ND_ERROR(nd_reshape(a, ND_SHAPE(-1, -1)),
                    "nd_reshape: can only specify one unknown dimension");
    EXPECT_ND_ERROR(nd_reshape(a, ND_SHAPE(-2, 3)),
                    "nd_reshape: negative dimensions are not allowed");
    EXPECT_ND_ERROR(nd_reshape(a, ND_SHAPE(1, 1, 1, 1, 1, 1, 1, 1, 6)),
                    "nd_reshape: 9 dimensions requested; at most 8");
    EXPECT_ND_ERROR(nd_reshape(a, ND_SCALAR_SHAPE),
                    "cannot reshape array of size 6 into shape ()");
    NdArray gpu = on_gpu(a);
    if (!nd_gpu_available())
        EXPECT_ND_ERROR(nd_reshape(&gpu, ND_SHAPE(2, 3)), "nd_reshape");
    nd_release(a);
}

/* A shape whose product wraps around to the array's size must not pass:
 * 7 * 0x6DB6DB6DB6DB6DB7 is 1 modulo 2^64, and 2^32 * 2^32 is 0. NumPy
 * refuses both, and so does nd_reshape, with nd_check_shape's bound. */
static void test_reshape_overflow(void **state)
{
    (void)state;
    NdArray *one = nd_scalar(3.0);
    EXPECT_ND_ERROR(nd_reshape(one, ND_SHAPE(7, 0x6DB6DB6DB6DB6DB7)),
                    "nd_reshape: cannot reshape array of size 1 into shape "
                    "(7,7905747460161236407): an array holds at most");
    EXPECT_ND_ERROR(nd_reshape(one, ND_SHAPE(0x6DB6DB6DB6DB6DB7, -1)),
                    "cannot reshape array of size 1 into shape");
    nd_release(one);

    NdArray *empty = nd_zeros(ND_FLOAT64, ND_SHAPE(0));
    EXPECT_ND_ERROR(nd_reshape(empty, ND_SHAPE(INT64_C(1) << 32,
                                               INT64_C(1) << 32)),
                    "nd_reshape: cannot reshape array of size 0 into shape "
                    "(4294967296,4294967296)");
    /* A 0 makes the size 0, but not the other extents small enough. */
    EXPECT_ND_ERROR(nd_reshape(empty, ND_SHAPE(0, INT64_C(1) << 62)),
                    "cannot reshape array of size 0 into shape "
                    "(0,4611686018427387904)");
    /* The largest extents that fit are still accepted. */
    NdArray *r = nd_reshape(empty, ND_SHAPE(0, INT64_MAX / 16));
    assert_int_equal(r->size, 0);
    assert_int_equal(r->shape[1], INT64_MAX / 16);
    nd_release(r);
    nd_release(empty);
}

/* ------------------------------------------------------ expand, squeeze */

static void test_expand_dims(void **state)
{
    (void)state;
    NdArray *a = arange_shaped(ND_FLOAT64, ND_SHAPE(2, 3));
    struct { int axis; int64_t shape[3]; } cases[] = {
        {0, {1, 2, 3}}, {1, {2, 1, 3}}, {2, {2, 3, 1}},
        {-1, {2, 3, 1}}, {-3, {1, 2, 3}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        NdArray *e = nd_expand_dims(a, cases[k].axis);
        nd_test_expect(__FILE__, __LINE__, "e", e, ND_FLOAT64, 3,
                       cases[k].shape, (const double[]){0, 1, 2, 3, 4, 5},
                       0);
        assert_ptr_equal(e->data, a->data);
        assert_ptr_equal(e->base, a);
        nd_release(e);
    }
    EXPECT_ND_ERROR(nd_expand_dims(a, 3),
                    "nd_expand_dims: axis 3 is out of bounds for array of "
                    "dimension 3");
    EXPECT_ND_ERROR(nd_expand_dims(a, -4),
                    "nd_expand_dims: axis -4 is out of bounds");
    NdArray gpu = on_gpu(a);
    if (!nd_gpu_available())
        EXPECT_ND_ERROR(nd_expand_dims(&gpu, 0), "nd_expand_dims");
    nd_release(a);

    NdArray *full = nd_zeros(ND_FLOAT64, ND_SHAPE(1, 1, 1, 1, 1, 1, 1, 1));
    EXPECT_ND_ERROR(nd_expand_dims(full, 0),
                    "nd_expand_dims: the array has 8 dimensions already");
    nd_release(full);
}

static void test_squeeze(void **state)
{
    (void)state;
    NdArray *a = arange_shaped(ND_FLOAT32, ND_SHAPE(1, 3, 1));
    NdArray *s = nd_squeeze(a, ND_ALL_AXES);
    EXPECT_ARRAY(s, ND_FLOAT32, ND_SHAPE(3), 0, 1, 2);
    assert_ptr_equal(s->data, a->data);
    assert_ptr_equal(s->base, a);
    nd_release(s);
    s = nd_squeeze(a, ND_AXES(0));
    EXPECT_ARRAY(s, ND_FLOAT32, ND_SHAPE(3, 1), 0, 1, 2);
    nd_release(s);
    s = nd_squeeze(a, ND_AXES(-1));
    EXPECT_ARRAY(s, ND_FLOAT32, ND_SHAPE(1, 3), 0, 1, 2);
    nd_release(s);
    s = nd_squeeze(a, ND_AXES(0, -1));
    EXPECT_ARRAY(s, ND_FLOAT32, ND_SHAPE(3), 0, 1, 2);
    nd_release(s);
    s = nd_squeeze(a, 0, NULL);             /* no axes: same shape */
    EXPECT_ARRAY(s, ND_FLOAT32, ND_SHAPE(1, 3, 1), 0, 1, 2);
    nd_release(s);

    EXPECT_ND_ERROR(nd_squeeze(a, ND_AXES(1)),
                    "nd_squeeze: cannot select an axis to squeeze out "
                    "which has size not equal to one");
    EXPECT_ND_ERROR(nd_squeeze(a, ND_AXES(0, 0)),
                    "nd_squeeze: duplicate value in 'axis'");
    EXPECT_ND_ERROR(nd_squeeze(a, ND_AXES(3)),
                    "nd_squeeze: axis 3 is out of bounds for array of "
                    "dimension 3");
    EXPECT_ND_ERROR(nd_squeeze(a, 2, NULL), "nd_squeeze: invalid axes");
    NdArray gpu = on_gpu(a);
    if (!nd_gpu_available())
        EXPECT_ND_ERROR(nd_squeeze(&gpu, ND_ALL_AXES), "nd_squeeze");
    nd_release(a);

    NdArray *x = nd_scalar(3);
    s = nd_squeeze(x, ND_ALL_AXES);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SCALAR_SHAPE, 3);
    nd_release(s);
    nd_release(x);
}

/* ------------------------------------------------------------ flatten */

static void test_flatten(void **state)
{
    (void)state;
    NdArray *a = arange_shaped(ND_INT64, ND_SHAPE(2, 3));
    NdArray *f = nd_flatten(a);
    EXPECT_ARRAY(f, ND_INT64, ND_SHAPE(6), 0, 1, 2, 3, 4, 5);
    assert_ptr_not_equal(f->data, a->data);     /* a copy */
    assert_null(f->base);
    nd_set_flat(f, 0, 9);
    EXPECT_DOUBLE(nd_get_flat(a, 0), 0);
    nd_release(f);
    NdArray gpu = on_gpu(a);
    if (!nd_gpu_available())
        EXPECT_ND_ERROR(nd_flatten(&gpu), "nd_flatten");
    nd_release(a);

    NdArray *x = nd_scalar(7);
    f = nd_flatten(x);
    EXPECT_ARRAY(f, ND_FLOAT64, ND_SHAPE(1), 7);
    nd_release(f);
    nd_release(x);
}

/* ------------------------------------------------------------ transpose */

static void test_transpose(void **state)
{
    (void)state;
    /* Huge extents beside a 0, the largest nd_check_shape lets through:
     * NumPy's np.zeros((0, 2**29, 2**29)).T.shape is (536870912,
     * 536870912, 0); with axes (1, 0, 2), (536870912, 0, 536870912). */
    NdArray *huge = nd_zeros(ND_FLOAT64, ND_SHAPE(0, INT64_C(1) << 29,
                                                  INT64_C(1) << 29));
    NdArray *ht = nd_transpose(huge, 0, NULL);
    assert_int_equal(ht->size, 0);
    assert_int_equal(ht->shape[0], INT64_C(1) << 29);
    assert_int_equal(ht->shape[2], 0);
    nd_release(ht);
    ht = nd_transpose(huge, ND_AXES(1, 0, 2));
    assert_int_equal(ht->shape[1], 0);
    assert_int_equal(ht->shape[2], INT64_C(1) << 29);
    nd_release(ht);
    nd_release(huge);

    NdArray *a = arange_shaped(ND_FLOAT64, ND_SHAPE(2, 3));
    NdArray *t = nd_transpose(a, 0, NULL);
    EXPECT_ARRAY(t, ND_FLOAT64, ND_SHAPE(3, 2), 0, 3, 1, 4, 2, 5);
    assert_null(t->base);
    nd_release(t);
    t = nd_transpose(a, ND_AXES(0, 1));
    EXPECT_ARRAY(t, ND_FLOAT64, ND_SHAPE(2, 3), 0, 1, 2, 3, 4, 5);
    nd_release(t);
    nd_release(a);

    NdArray *b = arange_shaped(ND_INT64, ND_SHAPE(2, 3, 4));
    t = nd_transpose(b, 0, NULL);
    EXPECT_ARRAY(t, ND_INT64, ND_SHAPE(4, 3, 2), 0, 12, 4, 16, 8, 20, 1, 13,
                 5, 17, 9, 21, 2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23);
    nd_release(t);
    t = nd_transpose(b, ND_AXES(1, 0, 2));
    EXPECT_ARRAY(t, ND_INT64, ND_SHAPE(3, 2, 4), 0, 1, 2, 3, 12, 13, 14, 15,
                 4, 5, 6, 7, 16, 17, 18, 19, 8, 9, 10, 11, 20, 21, 22, 23);
    nd_release(t);
    t = nd_transpose(b, ND_AXES(-1, 0, 1));
    EXPECT_ARRAY(t, ND_INT64, ND_SHAPE(4, 2, 3), 0, 4, 8, 12, 16, 20, 1, 5,
                 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23);
    nd_release(t);
    nd_release(b);

    NdArray *v = arange_shaped(ND_FLOAT32, ND_SHAPE(3));
    t = nd_transpose(v, 0, NULL);
    EXPECT_ARRAY(t, ND_FLOAT32, ND_SHAPE(3), 0, 1, 2);
    nd_release(t);
    nd_release(v);
    NdArray *x = nd_scalar(5);
    t = nd_transpose(x, 0, NULL);
    EXPECT_ARRAY(t, ND_FLOAT64, ND_SCALAR_SHAPE, 5);
    nd_release(t);
    nd_release(x);
    NdArray *e = nd_zeros(ND_FLOAT64, ND_SHAPE(0, 3));
    t = nd_transpose(e, 0, NULL);
    EXPECT_ARRAY(t, ND_FLOAT64, ND_SHAPE(3, 0), 0);
    nd_release(t);
    nd_release(e);
}

/* Every element of t (cols, rows) against a (rows, cols), by bytes. */
static void expect_transposed(const NdArray *a, const NdArray *t)
{
    int64_t rows = a->shape[0], cols = a->shape[1];
    size_t size = nd_dtype_size(a->dtype);
    assert_int_equal(t->shape[0], cols);
    assert_int_equal(t->shape[1], rows);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            if (memcmp((char *)t->data + (j * rows + i) * size,
                       (char *)a->data + (i * cols + j) * size, size))
                fail_msg("(%lld, %lld) differs", (long long)i,
                         (long long)j);
}

/* The tiled 2-D path: every dtype size, edges that are not whole tiles,
 * and a 2000 x 2000 matrix. */
static void test_transpose_2d_tiles(void **state)
{
    (void)state;
    NdDtype dtypes[] = {ND_BOOL, ND_UINT8, ND_INT64, ND_FLOAT32,
                        ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128};
    for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
        NdArray *a = nd_empty(dtypes[k], ND_SHAPE(33, 70));
        unsigned char *bytes = a->data;
        size_t n = (size_t)a->size * nd_dtype_size(a->dtype);
        for (size_t i = 0; i < n; i++)
            bytes[i] = (unsigned char)(i * 7 + i / 13);
        if (dtypes[k] == ND_BOOL)
            for (size_t i = 0; i < n; i++)
                bytes[i] &= 1;
        NdArray *t = nd_transpose(a, 0, NULL);
        assert_string_equal(nd_dtype_name(t->dtype),
                            nd_dtype_name(dtypes[k]));
        expect_transposed(a, t);
        nd_release(t);
        nd_release(a);
    }
    NdArray *big = arange_shaped(ND_FLOAT64, ND_SHAPE(2000, 2000));
    NdArray *t = nd_transpose(big, ND_AXES(1, 0));
    expect_transposed(big, t);
    nd_release(t);
    nd_release(big);
}

static void test_transpose_errors(void **state)
{
    (void)state;
    NdArray *a = arange_shaped(ND_FLOAT64, ND_SHAPE(2, 3));
    EXPECT_ND_ERROR(nd_transpose(a, ND_AXES(0)),
                    "nd_transpose: axes don't match array");
    EXPECT_ND_ERROR(nd_transpose(a, ND_AXES(0, 1, 2)),
                    "nd_transpose: axes don't match array");
    EXPECT_ND_ERROR(nd_transpose(a, 2, NULL),
                    "nd_transpose: axes don't match array");
    EXPECT_ND_ERROR(nd_transpose(a, ND_AXES(0, 0)),
                    "nd_transpose: repeated axis in transpose");
    EXPECT_ND_ERROR(nd_transpose(a, ND_AXES(1, -1)),
                    "nd_transpose: repeated axis in transpose");
    EXPECT_ND_ERROR(nd_transpose(a, ND_AXES(0, 2)),
                    "nd_transpose: axis 2 is out of bounds for array of "
                    "dimension 2");
    NdArray gpu = on_gpu(a);
    if (!nd_gpu_available())
        EXPECT_ND_ERROR(nd_transpose(&gpu, 0, NULL),
                        "nd_transpose: the operands are on device cuda");
    nd_release(a);
}

/* ------------------------------------------------------------ broadcast_to */

static void test_broadcast_to(void **state)
{
    (void)state;
    NdArray *row = arange_shaped(ND_FLOAT64, ND_SHAPE(3));
    NdArray *b = nd_broadcast_to(row, ND_SHAPE(2, 3));
    EXPECT_ARRAY(b, ND_FLOAT64, ND_SHAPE(2, 3), 0, 1, 2, 0, 1, 2);
    nd_release(b);
    b = nd_broadcast_to(row, ND_SHAPE(3));
    EXPECT_ARRAY(b, ND_FLOAT64, ND_SHAPE(3), 0, 1, 2);
    assert_ptr_not_equal(b->data, row->data);
    nd_release(b);
    nd_release(row);

    NdArray *col = arange_shaped(ND_INT64, ND_SHAPE(2, 1));
    b = nd_broadcast_to(col, ND_SHAPE(2, 3));
    EXPECT_ARRAY(b, ND_INT64, ND_SHAPE(2, 3), 0, 0, 0, 1, 1, 1);
    nd_release(b);
    nd_release(col);

    NdArray *r13 = arange_shaped(ND_FLOAT32, ND_SHAPE(1, 3));
    b = nd_broadcast_to(r13, ND_SHAPE(2, 2, 3));
    EXPECT_ARRAY(b, ND_FLOAT32, ND_SHAPE(2, 2, 3), 0, 1, 2, 0, 1, 2, 0, 1,
                 2, 0, 1, 2);
    nd_release(b);
    nd_release(r13);

    NdArray *x = nd_scalar(2.5);
    b = nd_broadcast_to(x, ND_SHAPE(2, 2));
    EXPECT_ARRAY(b, ND_FLOAT64, ND_SHAPE(2, 2), 2.5, 2.5, 2.5, 2.5);
    nd_release(b);
    b = nd_broadcast_to(x, ND_SCALAR_SHAPE);
    EXPECT_ARRAY(b, ND_FLOAT64, ND_SCALAR_SHAPE, 2.5);
    nd_release(b);
    b = nd_broadcast_to(x, ND_SHAPE(0, 4));
    EXPECT_ARRAY(b, ND_FLOAT64, ND_SHAPE(0, 4), 0);
    nd_release(b);
    nd_release(x);

    NdArray *z = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(1),
                                (double complex[]){1 - 2 * I});
    b = nd_broadcast_to(z, ND_SHAPE(3));
    assert_true(ND_DATA(b, double complex)[2] == 1 - 2 * I);
    nd_release(b);
    nd_release(z);
}

static void test_broadcast_to_errors(void **state)
{
    (void)state;
    NdArray *row = arange_shaped(ND_FLOAT64, ND_SHAPE(3));
    EXPECT_ND_ERROR(nd_broadcast_to(row, ND_SHAPE(2)),
                    "nd_broadcast_to: operands could not be broadcast "
                    "together with remapped shapes [original->remapped]: "
                    "(3,) and requested shape (2,)");
    EXPECT_ND_ERROR(nd_broadcast_to(row, ND_SHAPE(3, 2)),
                    "(3,) and requested shape (3,2)");
    EXPECT_ND_ERROR(nd_broadcast_to(row, ND_SCALAR_SHAPE),
                    "nd_broadcast_to: input operand has more dimensions "
                    "than allowed by the axis remapping");
    EXPECT_ND_ERROR(nd_broadcast_to(row, ND_SHAPE(-1, 3)),
                    "nd_broadcast_to: all elements of broadcast shape must "
                    "be non-negative");
    EXPECT_ND_ERROR(nd_broadcast_to(row, ND_SHAPE(1, 1, 1, 1, 1, 1, 1, 1,
                                                  3)),
                    "nd_broadcast_to: 9 dimensions requested");
    NdArray gpu = on_gpu(row);
    if (!nd_gpu_available())
        EXPECT_ND_ERROR(nd_broadcast_to(&gpu, ND_SHAPE(2, 3)),
                        "nd_broadcast_to: the operands are on device cuda");
    nd_release(row);
}

/* ------------------------------------------------------------ sum_to */

static void test_sum_to(void **state)
{
    (void)state;
    NdArray *a = arange_shaped(ND_FLOAT64, ND_SHAPE(2, 3));
    NdArray *s = nd_sum_to(a, ND_SHAPE(3));
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(3), 3, 5, 7);
    nd_release(s);
    s = nd_sum_to(a, ND_SHAPE(1, 3));
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(1, 3), 3, 5, 7);
    nd_release(s);
    s = nd_sum_to(a, ND_SHAPE(2, 1));
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(2, 1), 3, 12);
    nd_release(s);
    s = nd_sum_to(a, ND_SHAPE(1, 1));
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(1, 1), 15);
    nd_release(s);
    s = nd_sum_to(a, ND_SCALAR_SHAPE);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SCALAR_SHAPE, 15);
    nd_release(s);
    s = nd_sum_to(a, ND_SHAPE(2, 3));       /* a new array all the same */
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(2, 3), 0, 1, 2, 3, 4, 5);
    assert_ptr_not_equal(s->data, a->data);
    nd_release(s);
    nd_release(a);

    NdArray *c = arange_shaped(ND_FLOAT64, ND_SHAPE(2, 3, 4));
    s = nd_sum_to(c, ND_SHAPE(3, 1));
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(3, 1), 60, 92, 124);
    nd_release(s);
    nd_release(c);

    /* Integers and bools sum to int64 (NumPy gives uint64 for uint8). */
    NdArray *b = nd_from_buffer(ND_BOOL, ND_SHAPE(2, 3),
        (bool[]){true, false, true, true, true, false});
    s = nd_sum_to(b, ND_SHAPE(3));
    EXPECT_ARRAY(s, ND_INT64, ND_SHAPE(3), 2, 1, 1);
    nd_release(s);
    nd_release(b);
    NdArray *u = nd_from_buffer(ND_UINT8, ND_SHAPE(2, 2),
                                (uint8_t[]){200, 100, 200, 1});
    s = nd_sum_to(u, ND_SHAPE(2));
    EXPECT_ARRAY(s, ND_INT64, ND_SHAPE(2), 400, 101);
    nd_release(s);
    nd_release(u);
}

/* FNV-1a over a's bytes (NumPy side: the same over result.tobytes()). */
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

/* sum_to is one np.sum, so float32 gradients add up in NumPy's order:
 * (300, 784) -> (784,) adds the rows one by one, -> (300, 1) is pairwise
 * per row. The data is test_reduce.c's: h = (i * 2654435761) mod 2**32,
 * x = (h / 2**32 - 0.5) * 2**(i % 5) * 1.1. */
static void test_sum_to_float32_exact(void **state)
{
    (void)state;
    NdArray *x = nd_empty(ND_FLOAT32, ND_SHAPE(300, 784));
    for (uint64_t i = 0; i < (uint64_t)x->size; i++) {
        uint32_t h = (uint32_t)(i * 2654435761u);
        ND_DATA(x, float)[i] = (float)(((double)h / 4294967296.0 - 0.5) *
                                       (double)(1u << (i % 5)) * 1.1);
    }
    NdArray *s = nd_sum_to(x, ND_SHAPE(784));
    assert_string_equal(nd_dtype_name(s->dtype), "float32");
    assert_int_equal(fnv1a(s), 0xd7c7e2c578e8672eu);
    nd_release(s);
    s = nd_sum_to(x, ND_SHAPE(1, 784));
    assert_int_equal(s->ndim, 2);
    assert_int_equal(fnv1a(s), 0xd7c7e2c578e8672eu);
    nd_release(s);
    s = nd_sum_to(x, ND_SHAPE(300, 1));
    assert_int_equal(fnv1a(s), 0x7e425bdc424851aeu);
    nd_release(s);
    nd_release(x);
}

static void test_sum_to_errors(void **state)
{
    (void)state;
    NdArray *a = arange_shaped(ND_FLOAT64, ND_SHAPE(2, 3));
    EXPECT_ND_ERROR(nd_sum_to(a, ND_SHAPE(4)),
                    "nd_sum_to: cannot sum an array of shape (2,3) to "
                    "shape (4,)");
    EXPECT_ND_ERROR(nd_sum_to(a, ND_SHAPE(2, 2)),
                    "nd_sum_to: cannot sum an array of shape (2,3) to "
                    "shape (2,2)");
    EXPECT_ND_ERROR(nd_sum_to(a, ND_SHAPE(1, 2, 3)),
                    "nd_sum_to: cannot sum an array of shape (2,3) to "
                    "shape (1,2,3)");
    EXPECT_ND_ERROR(nd_sum_to(a, ND_SHAPE(-1, 3)),
                    "nd_sum_to: negative dimensions are not allowed");
    NdArray gpu = on_gpu(a);
    if (!nd_gpu_available())
        EXPECT_ND_ERROR(nd_sum_to(&gpu, ND_SHAPE(3)),
                        "nd_sum_to: the operands are on device cuda");
    nd_release(a);
}

/* ------------------------------------------------------------ joining */

static void test_concatenate(void **state)
{
    (void)state;
    NdArray *a = arange_shaped(ND_FLOAT64, ND_SHAPE(2, 3));
    NdArray *b = nd_from_buffer(ND_INT64, ND_SHAPE(1, 3),
                                (int64_t[]){6, 7, 8});
    NdArray *c = nd_concatenate(2, (NdArray *[]){a, b}, 0);
    EXPECT_ARRAY(c, ND_FLOAT64, ND_SHAPE(3, 3), 0, 1, 2, 3, 4, 5, 6, 7, 8);
    nd_release(c);

    NdArray *d = nd_from_buffer(ND_FLOAT32, ND_SHAPE(2, 2),
                                (float[]){10, 11, 12, 13});
    c = nd_concatenate(2, (NdArray *[]){a, d}, -1);
    EXPECT_ARRAY(c, ND_FLOAT64, ND_SHAPE(2, 5), 0, 1, 2, 10, 11, 3, 4, 5,
                 12, 13);
    nd_release(c);
    c = nd_concatenate(3, (NdArray *[]){d, a, d}, 1);
    EXPECT_ARRAY(c, ND_FLOAT64, ND_SHAPE(2, 7), 10, 11, 0, 1, 2, 10, 11,
                 12, 13, 3, 4, 5, 12, 13);
    nd_release(c);
    c = nd_concatenate(1, (NdArray *[]){d}, 0);
    EXPECT_ARRAY(c, ND_FLOAT32, ND_SHAPE(2, 2), 10, 11, 12, 13);
    assert_ptr_not_equal(c->data, d->data);
    nd_release(c);

    NdArray *e = nd_zeros(ND_FLOAT64, ND_SHAPE(0, 3));
    c = nd_concatenate(2, (NdArray *[]){e, a}, 0);
    EXPECT_ARRAY(c, ND_FLOAT64, ND_SHAPE(2, 3), 0, 1, 2, 3, 4, 5);
    nd_release(c);
    nd_release(e);

    /* float32 with float32 and bool stays float32; with int64 it is
     * float64, as np.concatenate promotes. */
    NdArray *f = nd_from_buffer(ND_FLOAT32, ND_SHAPE(2), (float[]){1, 2});
    NdArray *t = nd_from_buffer(ND_BOOL, ND_SHAPE(1), (bool[]){true});
    NdArray *i = nd_from_buffer(ND_INT64, ND_SHAPE(1), (int64_t[]){3});
    c = nd_concatenate(3, (NdArray *[]){f, f, t}, 0);
    EXPECT_ARRAY(c, ND_FLOAT32, ND_SHAPE(5), 1, 2, 1, 2, 1);
    nd_release(c);
    c = nd_concatenate(2, (NdArray *[]){f, i}, 0);
    EXPECT_ARRAY(c, ND_FLOAT64, ND_SHAPE(3), 1, 2, 3);
    nd_release(c);
    nd_release(f);
    nd_release(t);
    nd_release(i);
    nd_release(a);
    nd_release(b);
    nd_release(d);
}

static void test_concatenate_errors(void **state)
{
    (void)state;
    NdArray *a = arange_shaped(ND_FLOAT64, ND_SHAPE(2, 3));
    NdArray *v = nd_zeros(ND_FLOAT64, ND_SHAPE(3));
    NdArray *w = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 2));
    NdArray *x = nd_scalar(1);
    EXPECT_ND_ERROR(nd_concatenate(0, NULL, 0),
                    "nd_concatenate: need at least one array to "
                    "concatenate");
    EXPECT_ND_ERROR(nd_concatenate(2, (NdArray *[]){x, x}, 0),
                    "nd_concatenate: zero-dimensional arrays cannot be "
                    "concatenated");
    EXPECT_ND_ERROR(nd_concatenate(2, (NdArray *[]){a, v}, 0),
                    "nd_concatenate: all the input arrays must have same "
                    "number of dimensions, but the array at index 0 has 2 "
                    "dimension(s) and the array at index 1 has 1 "
                    "dimension(s)");
    EXPECT_ND_ERROR(nd_concatenate(2, (NdArray *[]){a, w}, 0),
                    "nd_concatenate: all the input array dimensions except "
                    "for the concatenation axis must match exactly, but "
                    "along dimension 1, the array at index 0 has size 3 "
                    "and the array at index 1 has size 2");
    EXPECT_ND_ERROR(nd_concatenate(2, (NdArray *[]){a, a}, 2),
                    "nd_concatenate: axis 2 is out of bounds for array of "
                    "dimension 2");
    NdArray gpu = on_gpu(a);
    EXPECT_ND_ERROR(nd_concatenate(2, (NdArray *[]){a, &gpu}, 0),
                    "nd_concatenate: operands are on different devices");
    if (!nd_gpu_available())
        EXPECT_ND_ERROR(nd_concatenate(1, (NdArray *[]){&gpu}, 0),
                        "nd_concatenate");
    nd_release(a);
    nd_release(v);
    nd_release(w);
    nd_release(x);
}

static void test_stack(void **state)
{
    (void)state;
    NdArray *a = arange_shaped(ND_FLOAT64, ND_SHAPE(2, 3));
    NdArray *b = nd_from_buffer(ND_FLOAT64, ND_SHAPE(2, 3),
                                (double[]){6, 7, 8, 9, 10, 11});
    NdArray *s = nd_stack(2, (NdArray *[]){a, b}, 0);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(2, 2, 3), 0, 1, 2, 3, 4, 5, 6, 7,
                 8, 9, 10, 11);
    nd_release(s);
    s = nd_stack(2, (NdArray *[]){a, b}, 1);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(2, 2, 3), 0, 1, 2, 6, 7, 8, 3, 4,
                 5, 9, 10, 11);
    nd_release(s);
    s = nd_stack(2, (NdArray *[]){a, b}, -1);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(2, 3, 2), 0, 6, 1, 7, 2, 8, 3, 9,
                 4, 10, 5, 11);
    nd_release(s);
    nd_release(a);
    nd_release(b);

    NdArray *x = nd_scalar_of(ND_INT64, 1), *y = nd_scalar_of(ND_INT64, 2);
    s = nd_stack(3, (NdArray *[]){x, y, x}, 0);
    EXPECT_ARRAY(s, ND_INT64, ND_SHAPE(3), 1, 2, 1);
    nd_release(s);
    nd_release(x);
    nd_release(y);

    NdArray *t = nd_from_buffer(ND_BOOL, ND_SHAPE(1), (bool[]){true});
    NdArray *i = nd_from_buffer(ND_INT64, ND_SHAPE(1), (int64_t[]){5});
    s = nd_stack(2, (NdArray *[]){t, i}, 0);
    EXPECT_ARRAY(s, ND_INT64, ND_SHAPE(2, 1), 1, 5);
    nd_release(s);
    nd_release(t);
    nd_release(i);
}

static void test_stack_errors(void **state)
{
    (void)state;
    NdArray *a = arange_shaped(ND_FLOAT64, ND_SHAPE(2, 3));
    NdArray *w = nd_zeros(ND_FLOAT64, ND_SHAPE(3, 2));
    EXPECT_ND_ERROR(nd_stack(0, NULL, 0),
                    "nd_stack: need at least one array to stack");
    EXPECT_ND_ERROR(nd_stack(2, (NdArray *[]){a, w}, 0),
                    "nd_stack: all input arrays must have the same shape");
    EXPECT_ND_ERROR(nd_stack(2, (NdArray *[]){a, a}, 3),
                    "nd_stack: axis 3 is out of bounds for array of "
                    "dimension 3");
    EXPECT_ND_ERROR(nd_stack(2, (NdArray *[]){a, a}, -4),
                    "nd_stack: axis -4 is out of bounds");
    NdArray gpu = on_gpu(a);
    EXPECT_ND_ERROR(nd_stack(2, (NdArray *[]){&gpu, a}, 0),
                    "nd_stack: operands are on different devices");
    nd_release(a);
    nd_release(w);
    NdArray *full = nd_zeros(ND_FLOAT64, ND_SHAPE(1, 1, 1, 1, 1, 1, 1, 1));
    EXPECT_ND_ERROR(nd_stack(1, (NdArray *[]){full}, 0),
                    "nd_stack: the arrays have 8 dimensions already");
    nd_release(full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reshape_is_a_view),
        cmocka_unit_test(test_reshape_shapes),
        cmocka_unit_test(test_reshape_errors),
        cmocka_unit_test(test_reshape_overflow),
        cmocka_unit_test(test_expand_dims),
        cmocka_unit_test(test_squeeze),
        cmocka_unit_test(test_flatten),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_transpose_2d_tiles),
        cmocka_unit_test(test_transpose_errors),
        cmocka_unit_test(test_broadcast_to),
        cmocka_unit_test(test_broadcast_to_errors),
        cmocka_unit_test(test_sum_to),
        cmocka_unit_test(test_sum_to_float32_exact),
        cmocka_unit_test(test_sum_to_errors),
        cmocka_unit_test(test_concatenate),
        cmocka_unit_test(test_concatenate_errors),
        cmocka_unit_test(test_stack),
        cmocka_unit_test(test_stack_errors),
    };
    return cmocka_run_group_tests_name("common/shape", tests, NULL, NULL);
}
