/* test_index.c - nd_getitem and nd_add_at against values computed with
 * NumPy 1.24: ints, Python slices (negative steps, clamping), integer
 * index arrays and their broadcasting, where NumPy puts the indexed
 * dimensions, np.add.at's repeated indices and casts, and misuse. */
#include <complex.h>
#include <math.h>

#include "nd_test.h"

/* Index entries, shorter: x[1, ::-1, idx] is INDEX(INT(1),
 * SLICE(NONE, NONE, -1), ARR(idx)). */
#define INT(n) ND_IDX_INT(n)
#define SLICE(a, b, s) ND_IDX_SLICE(a, b, s)
#define ALL ND_IDX_ALL
#define ARR(arr) ND_IDX_ARRAY(arr)
#define NONE ND_NONE
#define INDEX(...) \
    (int)(sizeof((NdIndex[]){__VA_ARGS__}) / sizeof(NdIndex)), \
    (const NdIndex[]){__VA_ARGS__}

/* An array with no elements: only dtype and shape to check. */
#define EXPECT_EMPTY(a, dtype, ndim_shape) \
    nd_test_expect(__FILE__, __LINE__, #a, (a), (dtype), ndim_shape, NULL, \
                   0.0)

/* np.arange(size).reshape(shape) as dtype. */
static NdArray *arange_of(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *a = nd_empty(dtype, ndim, shape);
    for (int64_t i = 0; i < a->size; i++)
        nd_set_flat(a, i, (double)i);
    return a;
}

/* An int64 index array. */
#define IDX(ndim_shape, ...) \
    nd_from_buffer(ND_INT64, ndim_shape, (const int64_t[]){__VA_ARGS__})
#define F64(ndim_shape, ...) \
    nd_from_buffer(ND_FLOAT64, ndim_shape, (const double[]){__VA_ARGS__})

static void release_all(int n, NdArray **arrays)
{
    for (int i = 0; i < n; i++)
        nd_release(arrays[i]);
}
#define RELEASE(...) \
    release_all((int)(sizeof((NdArray *[]){__VA_ARGS__}) / \
                      sizeof(NdArray *)), (NdArray *[]){__VA_ARGS__})

/* ------------------------------------------------------------ getitem */

static void test_int_and_slice_rows(void **state)
{
    (void)state;
    NdArray *x = arange_of(ND_FLOAT64, ND_SHAPE(3, 4));
    NdArray *row = nd_getitem(x, INDEX(INT(1)));              /* x[1] */
    EXPECT_ARRAY(row, ND_FLOAT64, ND_SHAPE(4), 4, 5, 6, 7);
    NdArray *last = nd_getitem(x, INDEX(INT(-1)));            /* x[-1] */
    EXPECT_ARRAY(last, ND_FLOAT64, ND_SHAPE(4), 8, 9, 10, 11);
    NdArray *col = nd_getitem(x, INDEX(ALL, INT(2)));         /* x[:, 2] */
    EXPECT_ARRAY(col, ND_FLOAT64, ND_SHAPE(3), 2, 6, 10);
    NdArray *one = nd_getitem(x, INDEX(INT(1), INT(2)));        /* x[1, 2] */
    EXPECT_ARRAY(one, ND_FLOAT64, ND_SCALAR_SHAPE, 6);
    NdArray *copy = nd_getitem(x, 0, NULL);                 /* x[()] */
    EXPECT_ARRAY(copy, ND_FLOAT64, ND_SHAPE(3, 4),
                 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
    assert_ptr_not_equal(copy->data, x->data);
    RELEASE(x, row, last, col, one, copy);
}

static void test_slices(void **state)
{
    (void)state;
    NdArray *x = arange_of(ND_FLOAT64, ND_SHAPE(3, 4));
    NdArray *rev = nd_getitem(x, INDEX(SLICE(NONE, NONE, -1)));  /* x[::-1] */
    EXPECT_ARRAY(rev, ND_FLOAT64, ND_SHAPE(3, 4),
                 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    NdArray *r2 = nd_getitem(x, INDEX(SLICE(NONE, NONE, -2),
                                      SLICE(1, 3, NONE)));  /* [::-2, 1:3] */
    EXPECT_ARRAY(r2, ND_FLOAT64, ND_SHAPE(2, 2), 9, 10, 1, 2);
    /* x[-100:100:2] */
    NdArray *clamp = nd_getitem(x, INDEX(SLICE(-100, 100, 2)));
    EXPECT_ARRAY(clamp, ND_FLOAT64, ND_SHAPE(2, 4),
                 0, 1, 2, 3, 8, 9, 10, 11);
    NdArray *empty = nd_getitem(x, INDEX(SLICE(5, 1, NONE)));    /* x[5:1] */
    EXPECT_EMPTY(empty, ND_FLOAT64, ND_SHAPE(0, 4));
    /* x[:, 3:0:-2] */
    NdArray *back = nd_getitem(x, INDEX(ALL, SLICE(3, 0, -2)));
    EXPECT_ARRAY(back, ND_FLOAT64, ND_SHAPE(3, 2), 3, 1, 7, 5, 11, 9);
    /* x[:, -1:-5:-1] */
    NdArray *neg = nd_getitem(x, INDEX(ALL, SLICE(-1, -5, -1)));
    EXPECT_ARRAY(neg, ND_FLOAT64, ND_SHAPE(3, 4),
                 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8);
    NdArray *drop = nd_getitem(x, INDEX(ALL, SLICE(NONE, -1, NONE)));
    EXPECT_ARRAY(drop, ND_FLOAT64, ND_SHAPE(3, 3), 0, 1, 2, 4, 5, 6, 8, 9, 10);
    NdArray *v = arange_of(ND_INT64, ND_SHAPE(10));
    NdArray *v1 = nd_getitem(v, INDEX(SLICE(8, -100, -3)));  /* [8:-100:-3] */
    EXPECT_ARRAY(v1, ND_INT64, ND_SHAPE(3), 8, 5, 2);
    NdArray *v2 = nd_getitem(v, INDEX(SLICE(-100, 100, 3)));
    EXPECT_ARRAY(v2, ND_INT64, ND_SHAPE(4), 0, 3, 6, 9);
    RELEASE(x, rev, r2, clamp, empty, back, neg, drop, v, v1, v2);
}

static void test_index_arrays(void **state)
{
    (void)state;
    NdArray *x = arange_of(ND_FLOAT64, ND_SHAPE(3, 4));
    NdArray *rows = IDX(ND_SHAPE(3), 0, 0, 1);
    NdArray *picked = nd_getitem(x, INDEX(ARR(rows)));   /* x[[0, 0, 1]] */
    EXPECT_ARRAY(picked, ND_FLOAT64, ND_SHAPE(3, 4),
                 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7);
    /* x[np.arange(3), t]: one element per row, DeZero's hot path */
    NdArray *r = nd_arange(0, 3, 1, ND_INT64);
    NdArray *t = IDX(ND_SHAPE(3), 1, 3, 0);
    NdArray *xt = nd_getitem(x, INDEX(ARR(r), ARR(t)));
    EXPECT_ARRAY(xt, ND_FLOAT64, ND_SHAPE(3), 1, 7, 8);
    /* negative entries, a 2-D index array, uint8 indices */
    NdArray *v = arange_of(ND_INT64, ND_SHAPE(5));
    NdArray *i2 = IDX(ND_SHAPE(2, 2), 4, 0, 1, -4);
    NdArray *vi = nd_getitem(v, INDEX(ARR(i2)));
    EXPECT_ARRAY(vi, ND_INT64, ND_SHAPE(2, 2), 4, 0, 1, 1);
    NdArray *u = nd_from_buffer(ND_UINT8, ND_SHAPE(2),
                                (const uint8_t[]){2, 0});
    NdArray *xu = nd_getitem(x, INDEX(ARR(u)));
    EXPECT_ARRAY(xu, ND_FLOAT64, ND_SHAPE(2, 4),
                 8, 9, 10, 11, 0, 1, 2, 3);
    /* a 0-d index array acts like an int, but gives a copy too */
    NdArray *zero_d = nd_scalar_of(ND_INT64, 1);
    NdArray *x1 = nd_getitem(x, INDEX(ARR(zero_d)));
    EXPECT_ARRAY(x1, ND_FLOAT64, ND_SHAPE(4), 4, 5, 6, 7);
    RELEASE(x, rows, picked, r, t, xt, v, i2, vi, u, xu, zero_d, x1);
}

static void test_dtypes_kept(void **state)
{
    (void)state;
    NdArray *b = nd_from_buffer(ND_BOOL, ND_SHAPE(2, 2),
                                (const bool[]){true, false, false, true});
    NdArray *bt = nd_getitem(b, INDEX(ALL, INT(1)));
    EXPECT_ARRAY(bt, ND_BOOL, ND_SHAPE(2), 0, 1);
    NdArray *f = arange_of(ND_FLOAT32, ND_SHAPE(2, 3));
    NdArray *rows = IDX(ND_SHAPE(2), 1, 1);
    NdArray *ff = nd_getitem(f, INDEX(ARR(rows), SLICE(NONE, NONE, -1)));
    EXPECT_ARRAY(ff, ND_FLOAT32, ND_SHAPE(2, 3), 5, 4, 3, 5, 4, 3);
    NdArray *c = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(2),
                                (const double complex[]){CMPLX(1, 2), 3});
    NdArray *c0 = nd_getitem(c, INDEX(INT(0)));
    assert_int_equal(c0->dtype, ND_COMPLEX128);
    assert_true(ND_DATA(c0, double complex)[0] == CMPLX(1, 2));
    RELEASE(b, bt, f, rows, ff, c, c0);
}

/* Where the broadcast index dimensions go: in place when the advanced
 * entries (arrays, and ints beside them) are adjacent, else first. */
static void test_mixed_indices(void **state)
{
    (void)state;
    NdArray *y = arange_of(ND_INT64, ND_SHAPE(2, 3, 4));
    NdArray *c03 = IDX(ND_SHAPE(2), 0, 3);
    /* y[1, ::-1, [0, 3]]: split by a slice, so (2,) goes first */
    NdArray *a = nd_getitem(y, INDEX(INT(1), SLICE(NONE, NONE, -1), ARR(c03)));
    EXPECT_ARRAY(a, ND_INT64, ND_SHAPE(2, 3), 20, 16, 12, 23, 19, 15);
    /* y[:, [0, 2], 1]: adjacent, so (2,) stays in place */
    NdArray *r02 = IDX(ND_SHAPE(2), 0, 2);
    NdArray *b = nd_getitem(y, INDEX(ALL, ARR(r02), INT(1)));
    EXPECT_ARRAY(b, ND_INT64, ND_SHAPE(2, 2), 1, 9, 13, 21);
    /* y[[[1], [0]], :, [0, 3, 2]]: (2,1) and (3,) broadcast to (2,3) */
    NdArray *col = IDX(ND_SHAPE(2, 1), 1, 0);
    NdArray *c032 = IDX(ND_SHAPE(3), 0, 3, 2);
    NdArray *c = nd_getitem(y, INDEX(ARR(col), ALL, ARR(c032)));
    EXPECT_ARRAY(c, ND_INT64, ND_SHAPE(2, 3, 3),
                 12, 16, 20, 15, 19, 23, 14, 18, 22,
                 0, 4, 8, 3, 7, 11, 2, 6, 10);
    /* y[[0, 1], 0]: the rest of the axes are full slices */
    NdArray *r01 = IDX(ND_SHAPE(2), 0, 1);
    NdArray *d = nd_getitem(y, INDEX(ARR(r01), INT(0)));
    EXPECT_ARRAY(d, ND_INT64, ND_SHAPE(2, 4),
                 0, 1, 2, 3, 12, 13, 14, 15);
    /* y[[1, -2], [[0], [2]]]: broadcast (2,) with (2,1) */
    NdArray *e1 = IDX(ND_SHAPE(2), 1, -2), *e2 = IDX(ND_SHAPE(2, 1), 0, 2);
    NdArray *e = nd_getitem(y, INDEX(ARR(e1), ARR(e2)));
    EXPECT_ARRAY(e, ND_INT64, ND_SHAPE(2, 2, 4),
                 12, 13, 14, 15, 0, 1, 2, 3, 20, 21, 22, 23, 8, 9, 10, 11);
    /* y[:, 1:, [-1]] */
    NdArray *m1 = IDX(ND_SHAPE(1), -1);
    NdArray *g = nd_getitem(y, INDEX(ALL, SLICE(1, NONE, NONE), ARR(m1)));
    EXPECT_ARRAY(g, ND_INT64, ND_SHAPE(2, 2, 1), 7, 11, 19, 23);
    /* y[0, uint8 [2, 0]] */
    NdArray *u = nd_from_buffer(ND_UINT8, ND_SHAPE(2),
                                (const uint8_t[]){2, 0});
    NdArray *h = nd_getitem(y, INDEX(INT(0), ARR(u)));
    EXPECT_ARRAY(h, ND_INT64, ND_SHAPE(2, 4), 8, 9, 10, 11, 0, 1, 2, 3);
    RELEASE(y, c03, a, r02, b, col, c032, c, r01, d, e1, e2, e, m1, g, u,
            h);
}

static void test_zero_sizes(void **state)
{
    (void)state;
    NdArray *x = nd_zeros(ND_FLOAT64, ND_SHAPE(0, 3));
    NdArray *none = nd_zeros(ND_INT64, ND_SHAPE(0));
    NdArray *a = nd_getitem(x, INDEX(ARR(none)));
    EXPECT_EMPTY(a, ND_FLOAT64, ND_SHAPE(0, 3));
    NdArray *b = nd_getitem(x, INDEX(ALL, INT(-1)));
    EXPECT_EMPTY(b, ND_FLOAT64, ND_SHAPE(0));
    NdArray *y = arange_of(ND_FLOAT64, ND_SHAPE(2, 3));
    NdArray *c = nd_getitem(y, INDEX(ARR(none), SLICE(NONE, NONE, -1)));
    EXPECT_EMPTY(c, ND_FLOAT64, ND_SHAPE(0, 3));
    RELEASE(x, none, a, b, y, c);

    /* Huge extents beside a 0, the largest nd_check_shape lets through:
     * NumPy's a = np.zeros((0, 2**29, 2**29)); a[:, 5:, 3].shape is
     * (0, 536870907), a[:, ::-2].shape (0, 268435456, 536870912). */
    NdArray *huge = nd_zeros(ND_FLOAT64, ND_SHAPE(0, INT64_C(1) << 29,
                                                  INT64_C(1) << 29));
    NdArray *d = nd_getitem(huge, INDEX(ALL, SLICE(5, NONE, NONE), INT(3)));
    EXPECT_EMPTY(d, ND_FLOAT64, ND_SHAPE(0, 536870907));
    NdArray *e = nd_getitem(huge, INDEX(ALL, SLICE(NONE, NONE, -2)));
    EXPECT_EMPTY(e, ND_FLOAT64, ND_SHAPE(0, 268435456, 536870912));
    RELEASE(huge, d, e);
}

static void test_getitem_errors(void **state)
{
    (void)state;
    NdArray *x = arange_of(ND_FLOAT64, ND_SHAPE(3, 4));
    NdArray *five = IDX(ND_SHAPE(2), 0, 5);
    NdArray *floats = F64(ND_SHAPE(2), 0, 1);
    NdArray *mask = nd_from_buffer(ND_BOOL, ND_SHAPE(3),
                                   (const bool[]){true, false, true});
    NdArray *two = IDX(ND_SHAPE(2), 0, 1), *three = IDX(ND_SHAPE(3), 0, 1, 2);

    EXPECT_ND_ERROR(nd_getitem(x, INDEX(INT(5))), "nd_getitem: index 5 is "
                    "out of bounds for axis 0 with size 3");
    EXPECT_ND_ERROR(nd_getitem(x, INDEX(INT(-4))), "nd_getitem: index -4 is "
                    "out of bounds for axis 0 with size 3");
    EXPECT_ND_ERROR(nd_getitem(x, INDEX(ALL, INT(4))), "index 4 is out of "
                    "bounds for axis 1 with size 4");
    EXPECT_ND_ERROR(nd_getitem(x, INDEX(ALL, ARR(five))), "nd_getitem: index "
                    "5 is out of bounds for axis 1 with size 4");
    EXPECT_ND_ERROR(nd_getitem(x, INDEX(ARR(floats))), "nd_getitem: arrays "
                    "used as indices must be of integer type (the index "
                    "for axis 0 is float64)");
    EXPECT_ND_ERROR(nd_getitem(x, INDEX(ARR(mask))), "nd_getitem: boolean "
                    "index arrays (masks) are not supported");
    EXPECT_ND_ERROR(nd_getitem(x, INDEX(ARR(two), ARR(three))), "nd_getitem: "
                    "shape mismatch: indexing arrays could not be "
                    "broadcast together with shapes (2,) (3,)");
    EXPECT_ND_ERROR(nd_getitem(x, INDEX(INT(0), INT(0), INT(0))),
                    "nd_getitem: too many indices for array: array is "
                    "2-dimensional, but 3 were indexed");
    EXPECT_ND_ERROR(nd_getitem(x, INDEX(SLICE(NONE, NONE, 0))), "nd_getitem: "
                    "slice step cannot be zero (axis 0)");
    EXPECT_ND_ERROR(nd_getitem(x, INDEX(ND_IDX_ARRAY(NULL))), "nd_getitem: "
                    "the array index for axis 0 is NULL");
    NdIndex bad = {.kind = (NdIndexKind)7};
    EXPECT_ND_ERROR(nd_getitem(x, 1, &bad), "nd_getitem: index entry 0 has "
                    "an unknown kind 7");
    EXPECT_ND_ERROR(nd_getitem(x, -1, NULL), "nd_getitem: the number of "
                    "index entries, -1, is negative");
    EXPECT_ND_ERROR(nd_getitem(x, 1, NULL), "nd_getitem: the index is NULL "
                    "but has 1 entries");

    /* 8 dimensions indexed by an 8-D array would give 15. */
    int64_t ones[ND_MAX_DIMS] = {2, 1, 1, 1, 1, 1, 1, 1};
    NdArray *big = nd_zeros(ND_FLOAT64, ND_MAX_DIMS, ones);
    NdArray *deep = nd_zeros(ND_INT64, ND_MAX_DIMS, ones);
    EXPECT_ND_ERROR(nd_getitem(big, INDEX(ARR(deep))), "nd_getitem: the "
                    "result would have 15 dimensions; at most 8");

    NdArray gpu = *x;               /* headers that claim the GPU */
    gpu.device = ND_CUDA;
    if (!nd_gpu_available())        /* else it would reach a kernel */
        EXPECT_ND_ERROR(nd_getitem(&gpu, INDEX(INT(0))), "nd_getitem: the "
                        "operands are on device cuda");
    NdArray gpu_index = *two;
    gpu_index.device = ND_CUDA;
    EXPECT_ND_ERROR(nd_getitem(x, INDEX(ARR(&gpu_index))), "nd_getitem: "
                    "operands are on different devices: operand 1 on cpu, "
                    "operand 2 on cuda");
    RELEASE(x, five, floats, mask, two, three, big, deep);
}

/* ------------------------------------------------------------ add.at */

static void test_add_at_repeated_rows(void **state)
{
    (void)state;
    NdArray *x = nd_zeros(ND_FLOAT64, ND_SHAPE(3, 2));
    NdArray *rows = IDX(ND_SHAPE(3), 0, 0, 2);
    NdArray *v = F64(ND_SHAPE(3, 2), 1, 2, 3, 4, 5, 6);
    nd_add_at(x, INDEX(ARR(rows)), v);        /* repeated 0: adds up */
    EXPECT_ARRAY(x, ND_FLOAT64, ND_SHAPE(3, 2), 4, 6, 0, 0, 5, 6);
    /* values broadcast: a 0-d value, and a (1, 2) row */
    NdArray *y = nd_zeros(ND_FLOAT64, ND_SHAPE(3, 2));
    NdArray *r001 = IDX(ND_SHAPE(3), 0, 0, 1);
    NdArray *one = nd_scalar(1.0);
    nd_add_at(y, INDEX(ARR(r001)), one);
    EXPECT_ARRAY(y, ND_FLOAT64, ND_SHAPE(3, 2), 2, 2, 1, 1, 0, 0);
    NdArray *z = nd_zeros(ND_FLOAT64, ND_SHAPE(3, 2));
    NdArray *r00m = IDX(ND_SHAPE(3), 0, 0, -1);
    NdArray *row = F64(ND_SHAPE(1, 2), 1, 2);
    nd_add_at(z, INDEX(ARR(r00m)), row);
    EXPECT_ARRAY(z, ND_FLOAT64, ND_SHAPE(3, 2), 2, 4, 0, 0, 1, 2);
    RELEASE(x, rows, v, y, r001, one, z, r00m, row);
}

/* The adjoint of x[np.arange(N), t], with a repeated (row, col) pair. */
static void test_add_at_pairs(void **state)
{
    (void)state;
    NdArray *g = nd_zeros(ND_FLOAT32, ND_SHAPE(4, 3));
    NdArray *r = IDX(ND_SHAPE(4), 0, 1, 1, 3);
    NdArray *t = IDX(ND_SHAPE(4), 2, 0, 0, 1);
    NdArray *v = nd_from_buffer(ND_FLOAT32, ND_SHAPE(4),
                                (const float[]){0.5f, 1.5f, 2.5f, -1.0f});
    nd_add_at(g, INDEX(ARR(r), ARR(t)), v);
    EXPECT_ARRAY(g, ND_FLOAT32, ND_SHAPE(4, 3),
                 0, 0, 0.5, 4, 0, 0, 0, 0, 0, 0, -1, 0);
    RELEASE(g, r, t, v);
}

static void test_add_at_slices(void **state)
{
    (void)state;
    NdArray *x = nd_zeros(ND_FLOAT64, ND_SHAPE(3, 2));
    NdArray *v = F64(ND_SHAPE(3), 1, 2, 3);
    nd_add_at(x, INDEX(ALL, INT(1)), v);      /* np.add.at(x, (:, 1), v) */
    EXPECT_ARRAY(x, ND_FLOAT64, ND_SHAPE(3, 2), 0, 1, 0, 2, 0, 3);
    NdArray *w = nd_zeros(ND_FLOAT64, ND_SHAPE(5));
    nd_add_at(w, INDEX(SLICE(NONE, NONE, -2)), v);      /* w[::-2] */
    EXPECT_ARRAY(w, ND_FLOAT64, ND_SHAPE(5), 3, 0, 2, 0, 1);
    /* (1, ::-1, [0, 3, 0]): the (3,) index dims go first, col 0 twice */
    NdArray *y = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 3, 4));
    NdArray *cols = IDX(ND_SHAPE(3), 0, 3, 0);
    NdArray *vals = F64(ND_SHAPE(3, 3), 0, 1, 2, 3, 4, 5, 6, 7, 8);
    nd_add_at(y, INDEX(INT(1), SLICE(NONE, NONE, -1), ARR(cols)), vals);
    EXPECT_ARRAY(y, ND_FLOAT64, ND_SHAPE(2, 3, 4),
                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                 10, 0, 0, 5, 8, 0, 0, 4, 6, 0, 0, 3);
    /* no index at all: every element, values broadcast */
    NdArray *z = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 2));
    NdArray *row = F64(ND_SHAPE(2), 1, 2);
    nd_add_at(z, 0, NULL, row);
    EXPECT_ARRAY(z, ND_FLOAT64, ND_SHAPE(2, 2), 1, 2, 1, 2);
    RELEASE(x, v, w, y, cols, vals, z, row);
}

/* np.add.at adds in the dtype its ufunc picks for dst and values, then
 * casts back into dst, one element at a time. */
static void test_add_at_dtypes(void **state)
{
    (void)state;
    NdArray *zero = IDX(ND_SHAPE(1), 0), *zz = IDX(ND_SHAPE(2), 0, 0);

    /* int64 dst, float64 values: 0 + 1.5 -> 1, then 1 + 1.5 -> 2 */
    NdArray *i = nd_zeros(ND_INT64, ND_SHAPE(3));
    NdArray *halves = F64(ND_SHAPE(2), 1.5, 1.5);
    nd_add_at(i, INDEX(ARR(zz)), halves);
    EXPECT_ARRAY(i, ND_INT64, ND_SHAPE(3), 2, 0, 0);

    /* uint8 wraps: 200 + 100 = 44; int64 300 added in int64: 44 */
    NdArray *u = nd_zeros(ND_UINT8, ND_SHAPE(3));
    NdArray *uv = nd_from_buffer(ND_UINT8, ND_SHAPE(2),
                                 (const uint8_t[]){200, 100});
    nd_add_at(u, INDEX(ARR(zz)), uv);
    NdArray *one = IDX(ND_SHAPE(1), 1), *big = IDX(ND_SHAPE(1), 300);
    nd_add_at(u, INDEX(ARR(one)), big);
    EXPECT_ARRAY(u, ND_UINT8, ND_SHAPE(3), 44, 44, 0);

    /* bool adds as "or" */
    NdArray *b = nd_zeros(ND_BOOL, ND_SHAPE(3));
    NdArray *b02 = IDX(ND_SHAPE(3), 0, 0, 2);
    NdArray *bv = nd_from_buffer(ND_BOOL, ND_SHAPE(3),
                                 (const bool[]){true, true, false});
    nd_add_at(b, INDEX(ARR(b02)), bv);
    EXPECT_ARRAY(b, ND_BOOL, ND_SHAPE(3), 1, 0, 0);

    /* float32 dst: an n-d float64 value is added in float64 (1 + 2**-24
     * + 2**-50 rounds up to 1 + 2**-23), a 0-d one in float32 (ties to
     * 1.0). */
    double tiny = ldexp(1, -24) + ldexp(1, -50);
    NdArray *f = nd_ones(ND_FLOAT32, ND_SHAPE(2));
    NdArray *nd_tiny = F64(ND_SHAPE(1), tiny);
    NdArray *scalar_tiny = nd_scalar(tiny);
    nd_add_at(f, INDEX(ARR(zero)), nd_tiny);
    nd_add_at(f, INDEX(INT(1)), scalar_tiny);
    EXPECT_ARRAY(f, ND_FLOAT32, ND_SHAPE(2), 1 + ldexp(1, -23), 1.0);

    /* complex values into float32: added in complex, real part kept */
    NdArray *g = nd_ones(ND_FLOAT32, ND_SHAPE(2));
    NdArray *r01 = IDX(ND_SHAPE(2), 0, 1);
    NdArray *cv = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(2),
                                 (const double complex[]){CMPLX(1, 2),
                                                          CMPLX(-0.5, -1)});
    nd_add_at(g, INDEX(ARR(r01)), cv);
    EXPECT_ARRAY(g, ND_FLOAT32, ND_SHAPE(2), 2, 0.5);

    /* int64 0-d value into int64 */
    NdArray *k = nd_zeros(ND_INT64, ND_SHAPE(3));
    NdArray *twice2 = IDX(ND_SHAPE(2), 2, 2);
    NdArray *five = nd_scalar_of(ND_INT64, 5);
    nd_add_at(k, INDEX(ARR(twice2)), five);
    EXPECT_ARRAY(k, ND_INT64, ND_SHAPE(3), 0, 0, 10);

    RELEASE(zero, zz, i, halves, u, uv, one, big, b, b02, bv, f, nd_tiny,
            scalar_tiny, g, r01, cv, k, twice2, five);
}

static void test_add_at_errors(void **state)
{
    (void)state;
    NdArray *x = nd_zeros(ND_FLOAT64, ND_SHAPE(3, 2));
    NdArray *r0 = IDX(ND_SHAPE(1), 0), *r3 = IDX(ND_SHAPE(1), 3);
    NdArray *three = nd_ones(ND_FLOAT64, ND_SHAPE(3));
    NdArray *rows2 = nd_ones(ND_FLOAT64, ND_SHAPE(2, 2));
    NdArray *deep = nd_ones(ND_FLOAT64, ND_SHAPE(1, 1, 2));
    NdArray *one = nd_scalar(1.0);
    NdArray *floats = F64(ND_SHAPE(1), 0);

    EXPECT_ND_ERROR(nd_add_at(x, INDEX(ARR(r0)), three), "nd_add_at: values "
                    "of shape (3,) cannot be broadcast to the indexed shape "
                    "(1,2)");
    EXPECT_ND_ERROR(nd_add_at(x, INDEX(ARR(r0)), rows2), "nd_add_at: values "
                    "of shape (2,2) cannot be broadcast to the indexed "
                    "shape (1,2)");
    EXPECT_ND_ERROR(nd_add_at(x, INDEX(INT(0)), deep), "nd_add_at: values of "
                    "shape (1,1,2) cannot be broadcast to the indexed "
                    "shape (2,)");
    EXPECT_ND_ERROR(nd_add_at(x, INDEX(ARR(r3)), one), "nd_add_at: index 3 "
                    "is out of bounds for axis 0 with size 3");
    EXPECT_ND_ERROR(nd_add_at(x, INDEX(ARR(floats)), one), "nd_add_at: "
                    "arrays used as indices must be of integer type");
    EXPECT_ND_ERROR(nd_add_at(x, INDEX(INT(0), INT(0), INT(0)), one),
                    "nd_add_at: too many indices for array");
    NdArray gpu = *one;
    gpu.device = ND_CUDA;
    EXPECT_ND_ERROR(nd_add_at(x, INDEX(INT(0)), &gpu), "nd_add_at: operands "
                    "are on different devices");
    EXPECT_ARRAY(x, ND_FLOAT64, ND_SHAPE(3, 2), 0, 0, 0, 0, 0, 0);
    RELEASE(x, r0, r3, three, rows2, deep, one, floats);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_and_slice_rows),
        cmocka_unit_test(test_slices),
        cmocka_unit_test(test_index_arrays),
        cmocka_unit_test(test_dtypes_kept),
        cmocka_unit_test(test_mixed_indices),
        cmocka_unit_test(test_zero_sizes),
        cmocka_unit_test(test_getitem_errors),
        cmocka_unit_test(test_add_at_repeated_rows),
        cmocka_unit_test(test_add_at_pairs),
        cmocka_unit_test(test_add_at_slices),
        cmocka_unit_test(test_add_at_dtypes),
        cmocka_unit_test(test_add_at_errors),
    };
    return cmocka_run_group_tests_name("common/index", tests, NULL, NULL);
}
