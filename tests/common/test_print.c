/* test_print.c - nd_str, nd_repr, nd_str_indented and nd_print against
 * NumPy 1.24: the text NumPy 1.24 prints, with its default print
 * options, for str(a) and repr(a) of each array here, written into this
 * test (Debian's NumPy printed every expected text). */
#include <complex.h>
#include <math.h>
#include <unistd.h>

#include "nd_test.h"

/* Arrays from literal elements: F64(ND_SHAPE(2), 1.0, 2.5). */
#define BOOLS(shape, ...) \
    nd_from_buffer(ND_BOOL, shape, (const bool[]){__VA_ARGS__})
#define U8(shape, ...) \
    nd_from_buffer(ND_UINT8, shape, (const uint8_t[]){__VA_ARGS__})
#define I64(shape, ...) \
    nd_from_buffer(ND_INT64, shape, (const int64_t[]){__VA_ARGS__})
#define F32(shape, ...) \
    nd_from_buffer(ND_FLOAT32, shape, (const float[]){__VA_ARGS__})
#define F64(shape, ...) \
    nd_from_buffer(ND_FLOAT64, shape, (const double[]){__VA_ARGS__})
#define C64(shape, ...) \
    nd_from_buffer(ND_COMPLEX64, shape, (const float complex[]){__VA_ARGS__})
#define C128(shape, ...) \
    nd_from_buffer(ND_COMPLEX128, shape,                                  \
                   (const double complex[]){__VA_ARGS__})

/* 0, 1, 2, ... in the given shape: np.arange(n).reshape(shape). */
static NdArray *counting(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *a = nd_empty(dtype, ndim, shape);
    for (int64_t i = 0; i < a->size; i++)
        nd_set_flat(a, i, (double)i);
    return a;
}

/* Asserts str(a) and repr(a), then releases a. */
static void expect_str_repr(NdArray *a, const char *str, const char *repr)
{
    char *got_str = nd_str(a), *got_repr = nd_repr(a);
    assert_string_equal(got_str, str);
    assert_string_equal(got_repr, repr);
    free(got_str);
    free(got_repr);
    nd_release(a);
}

/* A reference case: str, repr and DeZero's "variable(...)", which
 * indents the lines after the first by 9 spaces. Releases a. */
static void expect_reference(NdArray *a, const char *str, const char *repr,
                             const char *variable)
{
    char *indented = nd_str_indented(a, 9);
    char got[4096];
    snprintf(got, sizeof got, "variable(%s)", indented);
    assert_string_equal(got, variable);
    free(indented);
    expect_str_repr(a, str, repr);
}

/* ------------------------------------------------ numpy_print.txt */

/* A 0-d str is the scalar's shortest repr; repr cuts to 8 digits. */
static void test_reference_0d(void **state)
{
    (void)state;
    // np.array(1.0)
    expect_reference(nd_scalar(1.0),
        "1.0",
        "array(1.)",
        "variable(1.0)");
    // np.array(0.5)
    expect_reference(nd_scalar(0.5),
        "0.5",
        "array(0.5)",
        "variable(0.5)");
    // np.array(4.000000000004)
    expect_reference(nd_scalar(4.000000000004),
        "4.000000000004",
        "array(4.)",
        "variable(4.000000000004)");
    // np.array(3.297442541400256)
    expect_reference(nd_scalar(3.297442541400256),
        "3.297442541400256",
        "array(3.29744254)",
        "variable(3.297442541400256)");
    // np.array(1e-10)
    expect_reference(nd_scalar(1e-10),
        "1e-10",
        "array(1.e-10)",
        "variable(1e-10)");
    // np.array(123456789.0)
    expect_reference(nd_scalar(123456789.0),
        "123456789.0",
        "array(1.23456789e+08)",
        "variable(123456789.0)");
    // np.array(-0.0)
    expect_reference(nd_scalar(-0.0),
        "-0.0",
        "array(-0.)",
        "variable(-0.0)");
    // np.array(np.nan)
    expect_reference(nd_scalar(NAN),
        "nan",
        "array(nan)",
        "variable(nan)");
    // np.array(np.inf)
    expect_reference(nd_scalar(INFINITY),
        "inf",
        "array(inf)",
        "variable(inf)");
    // np.array(2)
    expect_reference(nd_scalar_of(ND_INT64, 2),
        "2",
        "array(2)",
        "variable(2)");
}

/* Common padding, "1." and the switch to scientific. */
static void test_reference_1d(void **state)
{
    (void)state;
    // np.array([1.0, 2.0, 3.0])
    expect_reference(F64(ND_SHAPE(3), 1.0, 2.0, 3.0),
        "[1. 2. 3.]",
        "array([1., 2., 3.])",
        "variable([1. 2. 3.])");
    // np.array([1.0, 2.5])
    expect_reference(F64(ND_SHAPE(2), 1.0, 2.5),
        "[1.  2.5]",
        "array([1. , 2.5])",
        "variable([1.  2.5])");
    // np.array([0.1, 0.25, 100.0])
    expect_reference(F64(ND_SHAPE(3), 0.1, 0.25, 100.0),
        "[  0.1    0.25 100.  ]",
        "array([  0.1 ,   0.25, 100.  ])",
        "variable([  0.1    0.25 100.  ])");
    // np.array([1e-5, 1.0])
    expect_reference(F64(ND_SHAPE(2), 1e-5, 1.0),
        "[1.e-05 1.e+00]",
        "array([1.e-05, 1.e+00])",
        "variable([1.e-05 1.e+00])");
    // np.array([1e-9, 1.0])
    expect_reference(F64(ND_SHAPE(2), 1e-9, 1.0),
        "[1.e-09 1.e+00]",
        "array([1.e-09, 1.e+00])",
        "variable([1.e-09 1.e+00])");
    // np.array([1e8, 1.0])
    expect_reference(F64(ND_SHAPE(2), 1e8, 1.0),
        "[1.e+08 1.e+00]",
        "array([1.e+08, 1.e+00])",
        "variable([1.e+08 1.e+00])");
}

/* Rows, blocks with blank lines, the sign column. */
static void test_reference_nd(void **state)
{
    (void)state;
    // np.array([[1, 2, 3], [4, 5, 6]])
    expect_reference(I64(ND_SHAPE(2, 3), 1, 2, 3, 4, 5, 6),
        "[[1 2 3]\n"
        " [4 5 6]]",
        "array([[1, 2, 3],\n"
        "       [4, 5, 6]])",
        "variable([[1 2 3]\n"
        "          [4 5 6]])");
    // np.array([[1., 2., 3.], [4., 5., 6.]])
    expect_reference(F64(ND_SHAPE(2, 3), 1, 2, 3, 4, 5, 6),
        "[[1. 2. 3.]\n"
        " [4. 5. 6.]]",
        "array([[1., 2., 3.],\n"
        "       [4., 5., 6.]])",
        "variable([[1. 2. 3.]\n"
        "          [4. 5. 6.]])");
    // np.arange(24.).reshape(2,3,4)
    expect_reference(counting(ND_FLOAT64, ND_SHAPE(2, 3, 4)),
        "[[[ 0.  1.  2.  3.]\n"
        "  [ 4.  5.  6.  7.]\n"
        "  [ 8.  9. 10. 11.]]\n"
        "\n"
        " [[12. 13. 14. 15.]\n"
        "  [16. 17. 18. 19.]\n"
        "  [20. 21. 22. 23.]]]",
        "array([[[ 0.,  1.,  2.,  3.],\n"
        "        [ 4.,  5.,  6.,  7.],\n"
        "        [ 8.,  9., 10., 11.]],\n"
        "\n"
        "       [[12., 13., 14., 15.],\n"
        "        [16., 17., 18., 19.],\n"
        "        [20., 21., 22., 23.]]])",
        "variable([[[ 0.  1.  2.  3.]\n"
        "           [ 4.  5.  6.  7.]\n"
        "           [ 8.  9. 10. 11.]]\n"
        "         \n"
        "          [[12. 13. 14. 15.]\n"
        "           [16. 17. 18. 19.]\n"
        "           [20. 21. 22. 23.]]])");
    // np.array([[0.5488135, -0.71518937]]) float32
    expect_reference(F32(ND_SHAPE(1, 2), 0.5488135f, -0.71518937f),
        "[[ 0.5488135 -0.7151894]]",
        "array([[ 0.5488135, -0.7151894]], dtype=float32)",
        "variable([[ 0.5488135 -0.7151894]])");
    // np.random.seed(0); np.random.rand(3,2)
    expect_reference(F64(ND_SHAPE(3, 2), 0.5488135039273248,
                         0.7151893663724195, 0.6027633760716439,
                         0.5448831829968969, 0.4236547993389047,
                         0.6458941130666561),
        "[[0.5488135  0.71518937]\n"
        " [0.60276338 0.54488318]\n"
        " [0.4236548  0.64589411]]",
        "array([[0.5488135 , 0.71518937],\n"
        "       [0.60276338, 0.54488318],\n"
        "       [0.4236548 , 0.64589411]])",
        "variable([[0.5488135  0.71518937]\n"
        "          [0.60276338 0.54488318]\n"
        "          [0.4236548  0.64589411]])");
}

/* "...", bools and complexes. */
static void test_reference_summary_bool_complex(void **state)
{
    (void)state;
    // np.arange(1001.)
    expect_reference(counting(ND_FLOAT64, ND_SHAPE(1001)),
        "[   0.    1.    2. ...  998.  999. 1000.]",
        "array([   0.,    1.,    2., ...,  998.,  999., 1000.])",
        "variable([   0.    1.    2. ...  998.  999. 1000.])");
    // np.array([True, False])
    expect_reference(BOOLS(ND_SHAPE(2), true, false),
        "[ True False]",
        "array([ True, False])",
        "variable([ True False])");
    // np.array([1+2j, 3-4j])
    expect_reference(C128(ND_SHAPE(2), CMPLX(1, 2), CMPLX(3, -4)),
        "[1.+2.j 3.-4.j]",
        "array([1.+2.j, 3.-4.j])",
        "variable([1.+2.j 3.-4.j])");
    // np.fft.fftn(np.arange(4.).reshape(2,2))
    expect_reference(C128(ND_SHAPE(2, 2), CMPLX(6, 0), CMPLX(-2, 0),
                          CMPLX(-4, 0), CMPLX(0, 0)),
        "[[ 6.+0.j -2.+0.j]\n"
        " [-4.+0.j  0.+0.j]]",
        "array([[ 6.+0.j, -2.+0.j],\n"
        "       [-4.+0.j,  0.+0.j]])",
        "variable([[ 6.+0.j -2.+0.j]\n"
        "          [-4.+0.j  0.+0.j]])");
}

/* ------------------------------------------------ more NumPy cases */

/* 0-d arrays of every dtype: str is the scalar's str (float32 keeps its
 * own shortest digits, complex reads like Python's). */
static void test_scalars(void **state)
{
    (void)state;
    expect_str_repr(nd_scalar_of(ND_FLOAT32, 0.1), "0.1",
                    "array(0.1, dtype=float32)");
    expect_str_repr(nd_scalar_of(ND_FLOAT32, 16777217.0), "16777216.0",
                    "array(16777216., dtype=float32)");
    expect_str_repr(nd_scalar_of(ND_FLOAT32, 1e-4), "1e-04",
                    "array(1.e-04, dtype=float32)");
    // str keeps the shortest digits, repr prints every integer digit
    expect_str_repr(nd_scalar_of(ND_FLOAT32, 50667888.0), "50667890.0",
                    "array(50667888., dtype=float32)");
    expect_str_repr(nd_scalar(0.1 + 0.2), "0.30000000000000004",
                    "array(0.3)");
    expect_str_repr(nd_scalar(-INFINITY), "-inf", "array(-inf)");
    expect_str_repr(nd_scalar(1e16), "1e+16", "array(1.e+16)");
    expect_str_repr(nd_scalar(1e-4), "0.0001", "array(0.0001)");
    expect_str_repr(nd_scalar_of(ND_INT64, -7), "-7", "array(-7)");
    expect_str_repr(nd_scalar_of(ND_UINT8, 200), "200",
                    "array(200, dtype=uint8)");
    expect_str_repr(nd_scalar_of(ND_BOOL, 0), "False", "array(False)");
    expect_str_repr(nd_scalar_of(ND_BOOL, 1), "True", "array(True)");
    expect_str_repr(C128(ND_SCALAR_SHAPE, CMPLX(1, 2)), "(1+2j)",
                    "array(1.+2.j)");
    expect_str_repr(C128(ND_SCALAR_SHAPE, CMPLX(0, 2)), "2j",
                    "array(0.+2.j)");
    expect_str_repr(C128(ND_SCALAR_SHAPE, CMPLX(-0.0, 2)), "(-0+2j)",
                    "array(-0.+2.j)");
    expect_str_repr(C128(ND_SCALAR_SHAPE, CMPLX(NAN, INFINITY)),
                    "(nan+infj)", "array(nan+infj)");
    expect_str_repr(C64(ND_SCALAR_SHAPE, CMPLXF(1.5f, -0.5f)),
                    "(1.5-0.5j)", "array(1.5-0.5j, dtype=complex64)");
    expect_str_repr(C128(ND_SCALAR_SHAPE, CMPLX(1e20, 1e-10)),
                    "(1e+20+1e-10j)", "array(1.e+20+1.e-10j)");
}

/* float32 arrays use float32 shortest digits and print their dtype. */
static void test_float32(void **state)
{
    (void)state;
    expect_str_repr(F32(ND_SHAPE(3), 0.1f, 0.25f, 3.0f),
                    "[0.1  0.25 3.  ]",
                    "array([0.1 , 0.25, 3.  ], dtype=float32)");
    // np.linspace(-1, 1, 7).astype(np.float32)
    expect_str_repr(F32(ND_SHAPE(7), -1.0f, -0.6666667f, -0.33333334f, 0.0f,
                        0.33333334f, 0.6666667f, 1.0f),
        "[-1.         -0.6666667  -0.33333334  0.          0.33333334  "
        "0.6666667\n"
        "  1.        ]",
        "array([-1.        , -0.6666667 , -0.33333334,  0.        ,  "
        "0.33333334,\n"
        "        0.6666667 ,  1.        ], dtype=float32)");
    // (np.arange(6) + 0.5).astype(np.float32) * np.float32(1.1): the
    // dtype does not fit on the last line.
    expect_str_repr(F32(ND_SHAPE(6), 0.55f, 1.6500001f, 2.75f, 3.8500001f,
                        4.9500003f, 6.05f),
        "[0.55      1.6500001 2.75      3.8500001 4.9500003 6.05     ]",
        "array([0.55     , 1.6500001, 2.75     , 3.8500001, 4.9500003, "
        "6.05     ],\n"
        "      dtype=float32)");
    expect_str_repr(F32(ND_SHAPE(3), 1.5e-7f, -2.0f, 3.25f),
                    "[ 1.50e-07 -2.00e+00  3.25e+00]",
                    "array([ 1.50e-07, -2.00e+00,  3.25e+00], "
                    "dtype=float32)");
    // 0.5 takes exact digits (zeros) up to the widest fraction
    expect_str_repr(F32(ND_SHAPE(2), 50667888.0f, 0.5f),
                    "[5.066789e+07 5.000000e-01]",
                    "array([5.066789e+07, 5.000000e-01], dtype=float32)");
}

/* Integers right-aligned to the widest, negatives included. */
static void test_integers(void **state)
{
    (void)state;
    expect_str_repr(I64(ND_SHAPE(2, 2), -1, 2, 3, -400),
                    "[[  -1    2]\n"
                    " [   3 -400]]",
                    "array([[  -1,    2],\n"
                    "       [   3, -400]])");
    expect_str_repr(I64(ND_SHAPE(2, 2), 1, 1000000, -25, 7),
                    "[[      1 1000000]\n"
                    " [    -25       7]]",
                    "array([[      1, 1000000],\n"
                    "       [    -25,       7]])");
    expect_str_repr(I64(ND_SHAPE(2), INT64_C(4611686018427387904),
                        -INT64_MAX),
                    "[ 4611686018427387904 -9223372036854775807]",
                    "array([ 4611686018427387904, -9223372036854775807])");
    expect_str_repr(U8(ND_SHAPE(3), 1, 255, 0), "[  1 255   0]",
                    "array([  1, 255,   0], dtype=uint8)");
}

/* Wide columns: every float padded to the widest integer and fraction. */
static void test_wide_columns(void **state)
{
    (void)state;
    expect_str_repr(F64(ND_SHAPE(3), 123.456789, 0.5, -7.25),
                    "[123.456789   0.5       -7.25    ]",
                    "array([123.456789,   0.5     ,  -7.25    ])");
}

/* Rows longer than 75 columns wrap to the hanging indent. */
static void test_wrapping(void **state)
{
    (void)state;
    expect_str_repr(counting(ND_FLOAT64, ND_SHAPE(30)),
        "[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. "
        "16. 17.\n"
        " 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]",
        "array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., "
        "12.,\n"
        "       13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., "
        "25.,\n"
        "       26., 27., 28., 29.])");
    expect_str_repr(counting(ND_INT64, ND_SHAPE(40)),
        "[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 "
        "22 23\n"
        " 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39]",
        "array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, "
        "15, 16,\n"
        "       17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, "
        "32, 33,\n"
        "       34, 35, 36, 37, 38, 39])");
    // np.linspace(0, 1, 12)
    expect_str_repr(F64(ND_SHAPE(12), 0.0, 0.09090909090909091,
                        0.18181818181818182, 0.2727272727272727,
                        0.36363636363636365, 0.4545454545454546,
                        0.5454545454545454, 0.6363636363636364,
                        0.7272727272727273, 0.8181818181818182,
                        0.9090909090909092, 1.0),
        "[0.         0.09090909 0.18181818 0.27272727 0.36363636 "
        "0.45454545\n"
        " 0.54545455 0.63636364 0.72727273 0.81818182 0.90909091 1.        ]",
        "array([0.        , 0.09090909, 0.18181818, 0.27272727, "
        "0.36363636,\n"
        "       0.45454545, 0.54545455, 0.63636364, 0.72727273, "
        "0.81818182,\n"
        "       0.90909091, 1.        ])");
}

/* More than 1000 elements: 3 at each end of every long axis, and the
 * format fitted to those only. */
static void test_summaries(void **state)
{
    (void)state;
    // np.arange(3003.).reshape(1001, 3): 0 .. 3002 span > 1e3
    expect_str_repr(counting(ND_FLOAT64, ND_SHAPE(1001, 3)),
                    "[[0.000e+00 1.000e+00 2.000e+00]\n"
                    " [3.000e+00 4.000e+00 5.000e+00]\n"
                    " [6.000e+00 7.000e+00 8.000e+00]\n"
                    " ...\n"
                    " [2.994e+03 2.995e+03 2.996e+03]\n"
                    " [2.997e+03 2.998e+03 2.999e+03]\n"
                    " [3.000e+03 3.001e+03 3.002e+03]]",
                    "array([[0.000e+00, 1.000e+00, 2.000e+00],\n"
                    "       [3.000e+00, 4.000e+00, 5.000e+00],\n"
                    "       [6.000e+00, 7.000e+00, 8.000e+00],\n"
                    "       ...,\n"
                    "       [2.994e+03, 2.995e+03, 2.996e+03],\n"
                    "       [2.997e+03, 2.998e+03, 2.999e+03],\n"
                    "       [3.000e+03, 3.001e+03, 3.002e+03]])");
    expect_str_repr(nd_zeros(ND_FLOAT64, ND_SHAPE(1001, 3)),
                    "[[0. 0. 0.]\n"
                    " [0. 0. 0.]\n"
                    " [0. 0. 0.]\n"
                    " ...\n"
                    " [0. 0. 0.]\n"
                    " [0. 0. 0.]\n"
                    " [0. 0. 0.]]",
                    "array([[0., 0., 0.],\n"
                    "       [0., 0., 0.],\n"
                    "       [0., 0., 0.],\n"
                    "       ...,\n"
                    "       [0., 0., 0.],\n"
                    "       [0., 0., 0.],\n"
                    "       [0., 0., 0.]])");
    expect_str_repr(counting(ND_INT64, ND_SHAPE(2, 1001)),
                    "[[   0    1    2 ...  998  999 1000]\n"
                    " [1001 1002 1003 ... 1999 2000 2001]]",
                    "array([[   0,    1,    2, ...,  998,  999, 1000],\n"
                    "       [1001, 1002, 1003, ..., 1999, 2000, 2001]])");
    expect_str_repr(counting(ND_INT64, ND_SHAPE(110, 10)),
                    "[[   0    1    2 ...    7    8    9]\n"
                    " [  10   11   12 ...   17   18   19]\n"
                    " [  20   21   22 ...   27   28   29]\n"
                    " ...\n"
                    " [1070 1071 1072 ... 1077 1078 1079]\n"
                    " [1080 1081 1082 ... 1087 1088 1089]\n"
                    " [1090 1091 1092 ... 1097 1098 1099]]",
                    "array([[   0,    1,    2, ...,    7,    8,    9],\n"
                    "       [  10,   11,   12, ...,   17,   18,   19],\n"
                    "       [  20,   21,   22, ...,   27,   28,   29],\n"
                    "       ...,\n"
                    "       [1070, 1071, 1072, ..., 1077, 1078, 1079],\n"
                    "       [1080, 1081, 1082, ..., 1087, 1088, 1089],\n"
                    "       [1090, 1091, 1092, ..., 1097, 1098, 1099]])");
    expect_str_repr(counting(ND_FLOAT64, ND_SHAPE(1001, 1, 1)),
                    "[[[   0.]]\n\n [[   1.]]\n\n [[   2.]]\n\n ...\n\n"
                    " [[ 998.]]\n\n [[ 999.]]\n\n [[1000.]]]",
                    "array([[[   0.]],\n\n       [[   1.]],\n\n"
                    "       [[   2.]],\n\n       ...,\n\n"
                    "       [[ 998.]],\n\n       [[ 999.]],\n\n"
                    "       [[1000.]]])");
    // (np.arange(1001) % 256).astype(np.uint8): ends at 1000 % 256 = 232
    NdArray *bytes = nd_empty(ND_UINT8, ND_SHAPE(1001));
    for (int64_t i = 0; i < bytes->size; i++)
        nd_set_flat(bytes, i, (double)(i % 256));
    expect_str_repr(bytes, "[  0   1   2 ... 230 231 232]",
                    "array([  0,   1,   2, ..., 230, 231, 232], "
                    "dtype=uint8)");
    expect_str_repr(nd_ones(ND_BOOL, ND_SHAPE(1001)),
                    "[ True  True  True ...  True  True  True]",
                    "array([ True,  True,  True, ...,  True,  True,  "
                    "True])");
}

/* Empty arrays: "[]", and repr names the dtype (and a shape not (0,)). */
static void test_empty(void **state)
{
    (void)state;
    expect_str_repr(nd_zeros(ND_FLOAT64, ND_SHAPE(0)), "[]",
                    "array([], dtype=float64)");
    expect_str_repr(nd_zeros(ND_INT64, ND_SHAPE(0)), "[]",
                    "array([], dtype=int64)");
    expect_str_repr(nd_zeros(ND_FLOAT64, ND_SHAPE(0, 3)), "[]",
                    "array([], shape=(0, 3), dtype=float64)");
    expect_str_repr(nd_zeros(ND_FLOAT32, ND_SHAPE(2, 0)), "[]",
                    "array([], shape=(2, 0), dtype=float32)");
}

/* Scientific notation: a fraction shared by all, wider exponents. */
static void test_scientific(void **state)
{
    (void)state;
    expect_str_repr(F64(ND_SHAPE(3), 1e-5, 1e5, 1.5),
                    "[1.0e-05 1.0e+05 1.5e+00]",
                    "array([1.0e-05, 1.0e+05, 1.5e+00])");
    expect_str_repr(F64(ND_SHAPE(2), 1e100, 1.0), "[1.e+100 1.e+000]",
                    "array([1.e+100, 1.e+000])");
    expect_str_repr(F64(ND_SHAPE(2), 1e-100, 1.0), "[1.e-100 1.e+000]",
                    "array([1.e-100, 1.e+000])");
}

/* -0. keeps its sign; nan and inf are right-aligned in the column. */
static void test_signed_zero_and_non_finite(void **state)
{
    (void)state;
    expect_str_repr(F64(ND_SHAPE(2), -0.0, 1.0), "[-0.  1.]",
                    "array([-0.,  1.])");
    expect_str_repr(F64(ND_SHAPE(2), 0.0, -0.0), "[ 0. -0.]",
                    "array([ 0., -0.])");
    expect_str_repr(F64(ND_SHAPE(3), NAN, 1.0, -INFINITY),
                    "[ nan   1. -inf]", "array([ nan,   1., -inf])");
    expect_str_repr(F64(ND_SHAPE(2), NAN, INFINITY), "[nan inf]",
                    "array([nan, inf])");
    expect_str_repr(F32(ND_SHAPE(3), INFINITY, -INFINITY, NAN),
                    "[ inf -inf  nan]",
                    "array([ inf, -inf,  nan], dtype=float32)");
    expect_str_repr(F64(ND_SHAPE(2), NAN, 1e-7), "[   nan 1.e-07]",
                    "array([   nan, 1.e-07])");
}

/* Complex: the real and the imaginary parts each get their own format,
 * the "j" goes before the imaginary part's padding. */
static void test_complex(void **state)
{
    (void)state;
    expect_str_repr(C128(ND_SHAPE(3), CMPLX(1, 1), CMPLX(NAN, 1),
                         CMPLX(1, -INFINITY)),
                    "[ 1. +1.j nan +1.j  1.-infj]",
                    "array([ 1. +1.j, nan +1.j,  1.-infj])");
    expect_str_repr(C128(ND_SHAPE(2), CMPLX(1e-10, 1), CMPLX(3e5, -2)),
                    "[1.e-10+1.j 3.e+05-2.j]",
                    "array([1.e-10+1.j, 3.e+05-2.j])");
    expect_str_repr(C64(ND_SHAPE(2), CMPLXF(0.5f, -1.5f), CMPLXF(2, 0)),
                    "[0.5-1.5j 2. +0.j ]",
                    "array([0.5-1.5j, 2. +0.j ], dtype=complex64)");
}

/* Booleans and 4-d blocks (two blank lines between the outer ones). */
static void test_bool_and_4d(void **state)
{
    (void)state;
    expect_str_repr(BOOLS(ND_SHAPE(2, 3), true, false, true, false, false,
                          true),
                    "[[ True False  True]\n"
                    " [False False  True]]",
                    "array([[ True, False,  True],\n"
                    "       [False, False,  True]])");
    expect_str_repr(counting(ND_INT64, ND_SHAPE(2, 2, 2, 2)),
                    "[[[[ 0  1]\n"
                    "   [ 2  3]]\n"
                    "\n"
                    "  [[ 4  5]\n"
                    "   [ 6  7]]]\n"
                    "\n"
                    "\n"
                    " [[[ 8  9]\n"
                    "   [10 11]]\n"
                    "\n"
                    "  [[12 13]\n"
                    "   [14 15]]]]",
                    "array([[[[ 0,  1],\n"
                    "         [ 2,  3]],\n"
                    "\n"
                    "        [[ 4,  5],\n"
                    "         [ 6,  7]]],\n"
                    "\n"
                    "\n"
                    "       [[[ 8,  9],\n"
                    "         [10, 11]],\n"
                    "\n"
                    "        [[12, 13],\n"
                    "         [14, 15]]]])");
}

/* ------------------------------------------------ indent and print */

static void test_str_indented(void **state)
{
    (void)state;
    NdArray *a = counting(ND_INT64, ND_SHAPE(2, 2, 2, 2));
    char *text = nd_str_indented(a, 2);
    assert_string_equal(text,
                        "[[[[ 0  1]\n     [ 2  3]]\n  \n    [[ 4  5]\n"
                        "     [ 6  7]]]\n  \n  \n   [[[ 8  9]\n"
                        "     [10 11]]\n  \n    [[12 13]\n"
                        "     [14 15]]]]");
    free(text);
    text = nd_str_indented(a, 0);
    char *plain = nd_str(a);
    assert_string_equal(text, plain);
    free(text);
    free(plain);
    nd_release(a);
}

/* nd_print writes str and a newline to stdout. */
static void test_print(void **state)
{
    (void)state;
    FILE *capture = tmpfile();
    assert_non_null(capture);
    fflush(stdout);
    int saved_stdout = dup(STDOUT_FILENO);
    dup2(fileno(capture), STDOUT_FILENO);
    NdArray *a = F64(ND_SHAPE(2), 1.0, 2.5);
    nd_print(a);
    fflush(stdout);
    dup2(saved_stdout, STDOUT_FILENO);
    close(saved_stdout);
    char got[64] = {0};
    rewind(capture);
    size_t n = fread(got, 1, sizeof got - 1, capture);
    fclose(capture);
    assert_int_equal(n, strlen("[1.  2.5]\n"));
    assert_string_equal(got, "[1.  2.5]\n");
    nd_release(a);
}

/* ------------------------------------------------ misuse */

static void test_errors(void **state)
{
    (void)state;
    NdArray *a = nd_scalar(1.0);
    EXPECT_ND_ERROR(nd_str_indented(a, -1),
                    "nd_str_indented: indent must be >= 0, got -1");
    NdArray on_gpu = *a;             /* a look-alike that claims a device */
    on_gpu.device = ND_CUDA;
    if (!nd_gpu_available()) {       /* else it would be copied back */
        EXPECT_ND_ERROR(nd_str(&on_gpu),
                        "nd_str: the operands are on device cuda");
        EXPECT_ND_ERROR(nd_repr(&on_gpu), "nd_repr: the operands are on");
        EXPECT_ND_ERROR(nd_str_indented(&on_gpu, 9),
                        "nd_str_indented: the operands are on");
        EXPECT_ND_ERROR(nd_print(&on_gpu), "nd_print: the operands are on");
    }
    nd_release(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_0d),
        cmocka_unit_test(test_reference_1d),
        cmocka_unit_test(test_reference_nd),
        cmocka_unit_test(test_reference_summary_bool_complex),
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_float32),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_wide_columns),
        cmocka_unit_test(test_wrapping),
        cmocka_unit_test(test_summaries),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_scientific),
        cmocka_unit_test(test_signed_zero_and_non_finite),
        cmocka_unit_test(test_complex),
        cmocka_unit_test(test_bool_and_4d),
        cmocka_unit_test(test_str_indented),
        cmocka_unit_test(test_print),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests_name("common/print", tests, NULL, NULL);
}
