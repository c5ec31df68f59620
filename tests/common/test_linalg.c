/* test_linalg.c - nd_matmul, nd_matmul_t and nd_dot against values
 * computed with NumPy 1.24: shapes, result dtypes, 1-D operands, zero
 * sizes, the BLAS paths (gemm, gemv, dot, syrk), OpenBLAS's threads
 * left as they were, and every misuse. */
#include <cblas.h>
#include <complex.h>
#include <math.h>

#include "nd_test.h"

/* A float64 array of the given shape holding values. */
#define F64(ndim_shape, ...) \
    nd_from_buffer(ND_FLOAT64, ndim_shape, (const double[]){__VA_ARGS__})
#define F32(ndim_shape, ...) \
    nd_from_buffer(ND_FLOAT32, ndim_shape, (const float[]){__VA_ARGS__})

/* An array with no elements: only dtype and shape to check. */
#define EXPECT_EMPTY(a, dtype, ndim_shape) \
    nd_test_expect(__FILE__, __LINE__, #a, (a), (dtype), ndim_shape, NULL, \
                   0.0)

/* np.arange(n).reshape(shape) + offset, as float64. */
static NdArray *arange_f64(double offset, int ndim, const int64_t *shape)
{
    NdArray *a = nd_empty(ND_FLOAT64, ndim, shape);
    for (int64_t i = 0; i < a->size; i++)
        ND_DATA(a, double)[i] = (double)i + offset;
    return a;
}

static void test_matmul_2d(void **state)
{
    (void)state;
    NdArray *a = arange_f64(0, ND_SHAPE(2, 3));
    NdArray *b = arange_f64(0, ND_SHAPE(3, 4));
    NdArray *c = nd_matmul(a, b);
    EXPECT_ARRAY(c, ND_FLOAT64, ND_SHAPE(2, 4),
                 20, 23, 26, 29, 56, 68, 80, 92);
    nd_release(a);
    nd_release(b);
    nd_release(c);
}

static void test_matmul_float32_and_float64(void **state)
{
    (void)state;
    NdArray *a = F32(ND_SHAPE(2, 3), 0.5f, -1.25f, 2.0f, 3.0f, 0.1f, -0.7f);
    NdArray *b = F32(ND_SHAPE(3, 2), 1.5f, 2.0f, -0.3f, 0.25f, 4.0f, -1.0f);
    NdArray *c = nd_matmul(a, b);           /* sgemm */
    EXPECT_ARRAY_CLOSE(c, ND_FLOAT32, 1e-6, ND_SHAPE(2, 2),
                       9.125, -1.3125, 1.6699998378753662,
                       6.724999904632568);
    /* float32 @ float64: b is cast, the product is float64 (dgemm). */
    NdArray *b64 = nd_astype(b, ND_FLOAT64);
    NdArray *d = nd_matmul(a, b64);
    EXPECT_ARRAY_CLOSE(d, ND_FLOAT64, 1e-14, ND_SHAPE(2, 2),
                       9.125000014901161, -1.3125, 1.6700000460445885,
                       6.7249999884516);
    nd_release(a);
    nd_release(b);
    nd_release(b64);
    nd_release(c);
    nd_release(d);
}

static void test_matmul_1d_operands(void **state)
{
    (void)state;
    NdArray *v = arange_f64(0, ND_SHAPE(3));
    NdArray *m34 = arange_f64(0, ND_SHAPE(3, 4));
    NdArray *m23 = arange_f64(0, ND_SHAPE(2, 3));
    NdArray *vm = nd_matmul(v, m34);        /* (3,) @ (3,4): gemv */
    EXPECT_ARRAY(vm, ND_FLOAT64, ND_SHAPE(4), 20, 23, 26, 29);
    NdArray *mv = nd_matmul(m23, v);        /* (2,3) @ (3,): gemv */
    EXPECT_ARRAY(mv, ND_FLOAT64, ND_SHAPE(2), 5, 14);
    NdArray *vv = nd_matmul(v, v);          /* (3,) @ (3,): dot, 0-d */
    EXPECT_ARRAY(vv, ND_FLOAT64, ND_SCALAR_SHAPE, 5);
    NdArray *vf = F32(ND_SHAPE(3), 0.5f, 0.25f, 2.0f);
    NdArray *vvf = nd_matmul(vf, vf);
    EXPECT_ARRAY(vvf, ND_FLOAT32, ND_SCALAR_SHAPE, 4.3125);
    nd_release(v);
    nd_release(m34);
    nd_release(m23);
    nd_release(vm);
    nd_release(mv);
    nd_release(vv);
    nd_release(vf);
    nd_release(vvf);
}

/* Products of length 1 are added to 0 as NumPy's loops do: -0.0 comes
 * out as +0.0 (np.matmul([-0.0], [1.0]) is 0.0). */
static void test_matmul_negative_zero(void **state)
{
    (void)state;
    NdArray *a = F64(ND_SHAPE(1), -0.0);
    NdArray *b = F64(ND_SHAPE(1), 1.0);
    NdArray *c = nd_matmul(a, b);
    assert_false(signbit(ND_DATA(c, double)[0]));
    NdArray *col = F64(ND_SHAPE(2, 1), -0.0, 1.0);
    NdArray *row = F64(ND_SHAPE(1, 2), 1.0, 2.0);
    NdArray *outer = nd_matmul(col, row);   /* k == 1 */
    EXPECT_ARRAY(outer, ND_FLOAT64, ND_SHAPE(2, 2), 0, 0, 1, 2);
    assert_false(signbit(ND_DATA(outer, double)[0]));
    /* taller than wide, (3, 1) @ (1, 2): computed column by column */
    NdArray *tall = F64(ND_SHAPE(3, 1), -0.0, 0.5, 3.0);
    NdArray *tall_outer = nd_matmul(tall, row);
    EXPECT_ARRAY(tall_outer, ND_FLOAT64, ND_SHAPE(3, 2), 0, 0, 0.5, 1, 3, 6);
    assert_false(signbit(ND_DATA(tall_outer, double)[1]));
    NdArray *f = nd_matmul_t(row, true, tall, true);    /* (2, 3) */
    EXPECT_ARRAY(f, ND_FLOAT64, ND_SHAPE(2, 3), 0, 0.5, 3, 0, 1, 6);
    nd_release(a);
    nd_release(b);
    nd_release(c);
    nd_release(col);
    nd_release(row);
    nd_release(outer);
    nd_release(tall);
    nd_release(tall_outer);
    nd_release(f);
}

static void test_matmul_dtypes(void **state)
{
    (void)state;
    NdArray *i = nd_from_buffer(ND_INT64, ND_SHAPE(2, 2),
                                (const int64_t[]){1, 2, 3, 4});
    NdArray *ii = nd_matmul(i, i);
    EXPECT_ARRAY(ii, ND_INT64, ND_SHAPE(2, 2), 7, 10, 15, 22);

    NdArray *mask = nd_from_buffer(ND_BOOL, ND_SHAPE(2),
                                   (const bool[]){true, false});
    NdArray *bi = nd_matmul(mask, i);       /* bool @ int64: int64 */
    EXPECT_ARRAY(bi, ND_INT64, ND_SHAPE(2), 1, 2);

    NdArray *bm = nd_from_buffer(ND_BOOL, ND_SHAPE(2, 2),
                                 (const bool[]){true, false, false, false});
    NdArray *bb = nd_matmul(bm, bm);        /* bool @ bool: bool */
    EXPECT_ARRAY(bb, ND_BOOL, ND_SHAPE(2, 2), 1, 0, 0, 0);

    /* uint8 stays uint8 and wraps: 200*200*2 = 80000 = 128 mod 256. */
    NdArray *u = nd_full(ND_UINT8, ND_SHAPE(2, 2), 200);
    NdArray *uu = nd_matmul(u, u);
    EXPECT_ARRAY(uu, ND_UINT8, ND_SHAPE(2, 2), 128, 128, 128, 128);

    /* int64 wraps too: 2**62 * 4 = 0 mod 2**64. */
    NdArray *big = nd_from_buffer(ND_INT64, ND_SHAPE(1, 1),
                                  (const int64_t[]){INT64_C(1) << 62});
    NdArray *four = nd_from_buffer(ND_INT64, ND_SHAPE(1, 1),
                                   (const int64_t[]){4});
    NdArray *wrapped = nd_matmul(big, four);
    EXPECT_ARRAY(wrapped, ND_INT64, ND_SHAPE(1, 1), 0);

    /* Promotion of the two dtypes, not value-based. */
    NdArray *u2 = nd_from_buffer(ND_UINT8, ND_SHAPE(2),
                                 (const uint8_t[]){1, 2});
    NdArray *f2 = F32(ND_SHAPE(2), 0.5f, 0.25f);
    NdArray *i2 = nd_from_buffer(ND_INT64, ND_SHAPE(2),
                                 (const int64_t[]){1, 2});
    NdArray *uf = nd_matmul(u2, f2);
    EXPECT_ARRAY(uf, ND_FLOAT32, ND_SCALAR_SHAPE, 1);
    NdArray *if_ = nd_matmul(i2, f2);
    EXPECT_ARRAY(if_, ND_FLOAT64, ND_SCALAR_SHAPE, 1);

    NdArray *all[] = {i, ii, mask, bi, bm, bb, u, uu, big, four, wrapped,
                      u2, f2, i2, uf, if_};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        nd_release(all[k]);
}

static void test_matmul_complex(void **state)
{
    (void)state;
    NdArray *c = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(2, 2),
                                (const double complex[]){
                                    CMPLX(1, 2), CMPLX(3, -1),
                                    CMPLX(0, 0.5), CMPLX(2, 0)});
    NdArray *d = nd_from_buffer(ND_COMPLEX128, ND_SHAPE(2, 1),
                                (const double complex[]){
                                    CMPLX(2, -1), CMPLX(1, 1)});
    NdArray *cd = nd_matmul(c, d);          /* zgemv */
    assert_int_equal(cd->dtype, ND_COMPLEX128);
    assert_true(ND_DATA(cd, double complex)[0] == CMPLX(8, 5));
    assert_true(ND_DATA(cd, double complex)[1] == CMPLX(2.5, 3));

    NdArray *c64 = nd_astype(c, ND_COMPLEX64);
    NdArray *cc = nd_matmul(c64, c64);      /* cgemm */
    assert_int_equal(cc->dtype, ND_COMPLEX64);
    /* np.array([[1+2j, 3-1j], [0.5j, 2]]) squared */
    const float complex want[] = {CMPLXF(-2.5, 5.5), CMPLXF(11, 3),
                                  CMPLXF(-1, 1.5), CMPLXF(4.5, 1.5)};
    for (int k = 0; k < 4; k++)
        assert_true(ND_DATA(cc, float complex)[k] == want[k]);

    /* float64 @ complex64 is complex128. */
    NdArray *f = F64(ND_SHAPE(1, 2), 1, 2);
    NdArray *fc = nd_matmul(f, c64);
    assert_int_equal(fc->dtype, ND_COMPLEX128);
    assert_true(ND_DATA(fc, double complex)[0] == CMPLX(1, 3));
    assert_true(ND_DATA(fc, double complex)[1] == CMPLX(7, -1));

    NdArray *all[] = {c, d, cd, c64, cc, f, fc};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        nd_release(all[k]);
}

static void test_matmul_zero_sizes(void **state)
{
    (void)state;
    NdArray *a = nd_zeros(ND_FLOAT32, ND_SHAPE(2, 0));
    NdArray *b = nd_zeros(ND_FLOAT32, ND_SHAPE(0, 3));
    NdArray *c = nd_matmul(a, b);           /* k == 0: zeros */
    EXPECT_ARRAY(c, ND_FLOAT32, ND_SHAPE(2, 3), 0, 0, 0, 0, 0, 0);
    NdArray *d = nd_matmul_t(b, false, c, true);    /* m == 0 */
    EXPECT_EMPTY(d, ND_FLOAT32, ND_SHAPE(0, 2));
    NdArray *e = nd_zeros(ND_FLOAT64, ND_SHAPE(0));
    NdArray *ee = nd_matmul(e, e);
    EXPECT_ARRAY(ee, ND_FLOAT64, ND_SCALAR_SHAPE, 0);
    NdArray *m = arange_f64(0, ND_SHAPE(2, 3));
    NdArray *none = nd_zeros(ND_FLOAT64, ND_SHAPE(3, 0));
    NdArray *mn = nd_matmul(m, none);
    EXPECT_EMPTY(mn, ND_FLOAT64, ND_SHAPE(2, 0));
    NdArray *ti = nd_matmul_t(none, true, m, true);
    EXPECT_EMPTY(ti, ND_FLOAT64, ND_SHAPE(0, 2));
    NdArray *ia = nd_zeros(ND_INT64, ND_SHAPE(0, 3));
    NdArray *ib = nd_ones(ND_INT64, ND_SHAPE(3, 2));
    NdArray *ic = nd_matmul(ia, ib);
    EXPECT_EMPTY(ic, ND_INT64, ND_SHAPE(0, 2));
    NdArray *all[] = {a, b, c, d, e, ee, m, none, mn, ti, ia, ib, ic};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        nd_release(all[k]);
}

static void test_matmul_t(void **state)
{
    (void)state;
    NdArray *a32 = arange_f64(-2, ND_SHAPE(3, 2));  /* a.T is (2,3) */
    NdArray *b34 = arange_f64(0, ND_SHAPE(3, 4));
    NdArray *b43 = arange_f64(0, ND_SHAPE(4, 3));
    NdArray *a23 = arange_f64(0, ND_SHAPE(2, 3));
    NdArray *tn = nd_matmul_t(a32, true, b34, false);
    EXPECT_ARRAY(tn, ND_FLOAT64, ND_SHAPE(2, 4),
                 16, 16, 16, 16, 28, 31, 34, 37);
    NdArray *nt = nd_matmul_t(a23, false, b43, true);
    EXPECT_ARRAY(nt, ND_FLOAT64, ND_SHAPE(2, 4),
                 5, 14, 23, 32, 14, 50, 86, 122);
    NdArray *tt = nd_matmul_t(a32, true, b43, true);
    EXPECT_ARRAY(tt, ND_FLOAT64, ND_SHAPE(2, 4),
                 4, 4, 4, 4, 7, 16, 25, 34);
    NdArray *nn = nd_matmul_t(a23, false, b34, false);
    EXPECT_ARRAY(nn, ND_FLOAT64, ND_SHAPE(2, 4),
                 20, 23, 26, 29, 56, 68, 80, 92);
    /* A (1, k) result row through gemv, transposed: x.T @ gy. */
    NdArray *x = arange_f64(0, ND_SHAPE(3, 1));
    NdArray *xt = nd_matmul_t(x, true, b34, false);
    EXPECT_ARRAY(xt, ND_FLOAT64, ND_SHAPE(1, 4), 20, 23, 26, 29);
    NdArray *all[] = {a32, b34, b43, a23, tn, nt, tt, nn, x, xt};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        nd_release(all[k]);
}

/* x @ x.T and x.T @ x go through syrk, as in NumPy; the lower triangle
 * is mirrored from the upper one. */
/* Stacks of matrices, as np.matmul: a 2-D operand is used for every
 * matrix of the other's stack; op transposes each matrix. */
static void test_matmul_t_stacks(void **state)
{
    (void)state;
    NdArray *a = arange_f64(0, ND_SHAPE(2, 2, 3));
    NdArray *b = arange_f64(0, ND_SHAPE(3, 2));
    NdArray *c = arange_f64(0, ND_SHAPE(2, 3, 2));
    NdArray *w = arange_f64(1, ND_SHAPE(2, 3));
    NdArray *ab = nd_matmul_t(a, false, b, false);      /* a @ b */
    EXPECT_ARRAY(ab, ND_FLOAT64, ND_SHAPE(2, 2, 2),
                 10, 13, 28, 40, 46, 67, 64, 94);
    NdArray *tt = nd_matmul_t(a, true, c, true);    /* a^T @ c^T, each */
    EXPECT_ARRAY(tt, ND_FLOAT64, ND_SHAPE(2, 3, 3),
                 3, 9, 15, 4, 14, 24, 5, 19, 33,
                 99, 129, 159, 112, 146, 180, 125, 163, 201);
    NdArray *wa = nd_matmul_t(w, false, a, true);   /* w @ a[s]^T */
    EXPECT_ARRAY(wa, ND_FLOAT64, ND_SHAPE(2, 2, 2),
                 8, 26, 17, 62, 44, 62, 107, 152);
    /* float32 stacks give float32; uint8 ones wrap as NumPy's do. */
    NdArray *a32 = nd_astype(a, ND_FLOAT32), *b32 = nd_astype(b, ND_FLOAT32);
    NdArray *ab32 = nd_matmul_t(a32, false, b32, false);
    EXPECT_ARRAY(ab32, ND_FLOAT32, ND_SHAPE(2, 2, 2),
                 10, 13, 28, 40, 46, 67, 64, 94);
    NdArray *a8 = nd_astype(a, ND_UINT8);
    NdArray *forty = nd_scalar(40.0);
    NdArray *b40 = nd_mul(b, forty);
    NdArray *b8 = nd_astype(b40, ND_UINT8);
    NdArray *ab8 = nd_matmul_t(a8, false, b8, false);
    EXPECT_ARRAY(ab8, ND_UINT8, ND_SHAPE(2, 2, 2),
                 144, 8, 96, 64, 48, 120, 0, 176);
    NdArray *all[] = {a, b, c, w, ab, tt, wa, a32, b32, ab32, a8, forty,
                      b40, b8, ab8};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        nd_release(all[k]);
}

static void test_matmul_gram(void **state)
{
    (void)state;
    NdArray *x = arange_f64(1, ND_SHAPE(2, 3));
    NdArray *xxt = nd_matmul_t(x, false, x, true);
    EXPECT_ARRAY(xxt, ND_FLOAT64, ND_SHAPE(2, 2), 14, 32, 32, 77);
    NdArray *xtx = nd_matmul_t(x, true, x, false);
    EXPECT_ARRAY(xtx, ND_FLOAT64, ND_SHAPE(3, 3),
                 17, 22, 27, 22, 29, 36, 27, 36, 45);
    NdArray *x32 = nd_astype(x, ND_FLOAT32);
    NdArray *g32 = nd_matmul_t(x32, true, x32, false);
    EXPECT_ARRAY(g32, ND_FLOAT32, ND_SHAPE(3, 3),
                 17, 22, 27, 22, 29, 36, 27, 36, 45);
    NdArray *all[] = {x, xxt, xtx, x32, g32};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        nd_release(all[k]);
}

static void test_dot(void **state)
{
    (void)state;
    NdArray *v = arange_f64(0, ND_SHAPE(3));
    NdArray *m = arange_f64(0, ND_SHAPE(3, 4));
    NdArray *vv = nd_dot(v, v);
    EXPECT_ARRAY(vv, ND_FLOAT64, ND_SCALAR_SHAPE, 5);
    NdArray *vm = nd_dot(v, m);
    EXPECT_ARRAY(vm, ND_FLOAT64, ND_SHAPE(4), 20, 23, 26, 29);
    NdArray *a = arange_f64(0, ND_SHAPE(2, 3));
    NdArray *am = nd_dot(a, m);
    EXPECT_ARRAY(am, ND_FLOAT64, ND_SHAPE(2, 4),
                 20, 23, 26, 29, 56, 68, 80, 92);
    /* A 0-d operand scales, in the promoted dtype (np.dot of a 0-d
     * float64 and a float32 vector is float64). */
    NdArray *two = nd_scalar(2.0);
    NdArray *ones32 = nd_ones(ND_FLOAT32, ND_SHAPE(3));
    NdArray *s = nd_dot(two, ones32);
    EXPECT_ARRAY(s, ND_FLOAT64, ND_SHAPE(3), 2, 2, 2);
    NdArray *i = nd_from_buffer(ND_INT64, ND_SHAPE(2, 2),
                                (const int64_t[]){1, 2, 3, 4});
    NdArray *three = nd_scalar_of(ND_INT64, 3);
    NdArray *i3 = nd_dot(i, three);
    EXPECT_ARRAY(i3, ND_INT64, ND_SHAPE(2, 2), 3, 6, 9, 12);
    NdArray *all[] = {v, m, vv, vm, a, am, two, ones32, s, i, three, i3};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        nd_release(all[k]);
}

static void test_shape_errors(void **state)
{
    (void)state;
    NdArray *a23 = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 3));
    NdArray *a45 = nd_zeros(ND_FLOAT64, ND_SHAPE(4, 5));
    NdArray *v3 = nd_zeros(ND_FLOAT64, ND_SHAPE(3));
    NdArray *v4 = nd_zeros(ND_FLOAT64, ND_SHAPE(4));
    NdArray *s = nd_scalar(1.0);
    NdArray *cube = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 3, 4));

    EXPECT_ND_ERROR(nd_matmul(a23, a45), "nd_matmul: shapes (2,3) and "
                    "(4,5) not aligned: 3 (dim 1) != 4 (dim 0)");
    EXPECT_ND_ERROR(nd_matmul(v3, v4), "nd_matmul: shapes (3,) and (4,) "
                    "not aligned: 3 (dim 0) != 4 (dim 0)");
    EXPECT_ND_ERROR(nd_matmul(a23, v4), "shapes (2,3) and (4,) not "
                    "aligned: 3 (dim 1) != 4 (dim 0)");
    EXPECT_ND_ERROR(nd_matmul(v4, a23), "shapes (4,) and (2,3) not "
                    "aligned: 4 (dim 0) != 2 (dim 0)");
    EXPECT_ND_ERROR(nd_matmul(s, a23), "nd_matmul: operands of shapes () "
                    "and (2,3): only 1-D and 2-D operands are supported "
                    "(scale by a 0-d array with nd_mul)");
    EXPECT_ND_ERROR(nd_matmul(cube, v4), "nd_matmul: operands of shapes "
                    "(2,3,4) and (4,): only 1-D and 2-D");

    EXPECT_ND_ERROR(nd_matmul_t(a23, true, a45, false), "nd_matmul_t: "
                    "shapes (2,3).T and (4,5) not aligned: 2 (dim 0) != "
                    "4 (dim 0)");
    EXPECT_ND_ERROR(nd_matmul_t(a23, false, a45, true), "nd_matmul_t: "
                    "shapes (2,3) and (4,5).T not aligned: 3 (dim 1) != "
                    "5 (dim 1)");
    EXPECT_ND_ERROR(nd_matmul_t(v3, false, a23, true), "nd_matmul_t: "
                    "operands must be 2-D, or 3-D stacks of one length, "
                    "got shapes (3,) and (2,3)");
    NdArray *other = nd_zeros(ND_FLOAT64, ND_SHAPE(3, 4, 5));
    EXPECT_ND_ERROR(nd_matmul_t(cube, false, other, false), "nd_matmul_t: "
                    "operands must be 2-D, or 3-D stacks of one length, "
                    "got shapes (2,3,4) and (3,4,5)");
    EXPECT_ND_ERROR(nd_matmul_t(cube, true, a45, false), "nd_matmul_t: "
                    "shapes (2,3,4).T and (4,5) not aligned: 3 (dim 1) != "
                    "4 (dim 0)");
    nd_release(other);

    EXPECT_ND_ERROR(nd_dot(a23, a45), "nd_dot: shapes (2,3) and (4,5) "
                    "not aligned: 3 (dim 1) != 4 (dim 0)");
    EXPECT_ND_ERROR(nd_dot(cube, a45), "nd_dot: operands of shapes "
                    "(2,3,4) and (4,5): only 1-D and 2-D");

    NdArray *all[] = {a23, a45, v3, v4, s, cube};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        nd_release(all[k]);
}

/* An operand marked as living on the GPU is refused. */
static void test_device_errors(void **state)
{
    (void)state;
    NdArray *a = nd_zeros(ND_FLOAT32, ND_SHAPE(2, 2));
    NdArray gpu = *a;
    gpu.device = ND_CUDA;
    EXPECT_ND_ERROR(nd_matmul(a, &gpu), "nd_matmul: operands are on "
                    "different devices");
    EXPECT_ND_ERROR(nd_matmul_t(&gpu, true, a, false), "nd_matmul_t: ");
    if (!nd_gpu_available())        /* else it would reach cuBLAS */
        EXPECT_ND_ERROR(nd_dot(&gpu, &gpu), "nd_dot: ");
    nd_release(a);
}

/* A product too small for OpenBLAS's threads runs on one, and leaves
 * the pool as it found it: two threads before, two after. */
static void test_small_products_keep_the_threads(void **state)
{
    (void)state;
    int threads = openblas_get_num_threads();
    openblas_set_num_threads(2);
    NdArray *x = nd_ones(ND_FLOAT64, ND_SHAPE(1, 100));
    NdArray *W = nd_full(ND_FLOAT64, ND_SHAPE(100, 100), 0.5);
    NdArray *y = nd_matmul(x, W);                       /* gemv */
    assert_int_equal(openblas_get_num_threads(), 2);
    for (int i = 0; i < 100; i++)
        assert_true(nd_get_flat(y, i) == 50.0);
    NdArray *X = nd_ones(ND_FLOAT64, ND_SHAPE(30, 100));
    NdArray *Y = nd_matmul(X, W);                       /* gemm */
    assert_int_equal(openblas_get_num_threads(), 2);
    assert_true(nd_get_flat(Y, 2999) == 50.0);
    openblas_set_num_threads(threads);
    nd_release(Y);
    nd_release(X);
    nd_release(y);
    nd_release(W);
    nd_release(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_2d),
        cmocka_unit_test(test_matmul_float32_and_float64),
        cmocka_unit_test(test_matmul_1d_operands),
        cmocka_unit_test(test_matmul_negative_zero),
        cmocka_unit_test(test_matmul_dtypes),
        cmocka_unit_test(test_matmul_complex),
        cmocka_unit_test(test_matmul_zero_sizes),
        cmocka_unit_test(test_matmul_t),
        cmocka_unit_test(test_matmul_t_stacks),
        cmocka_unit_test(test_matmul_gram),
        cmocka_unit_test(test_dot),
        cmocka_unit_test(test_shape_errors),
        cmocka_unit_test(test_device_errors),
        cmocka_unit_test(test_small_products_keep_the_threads),
    };
    return cmocka_run_group_tests_name("common/linalg", tests, NULL, NULL);
}
