/* test_im2col.c - nd_im2col and nd_col2im against DeZero's im2col_array
 * and col2im_array (dezero/functions_conv.py) run with NumPy 1.24: both
 * layouts of col, stride, padding and non-square windows, the order in
 * which overlapping windows add (bit for bit), step 57's shapes, the
 * adjoint identity, large batches (threaded), empty arrays and every
 * misuse. The device's results are compared with these in test_gpu.c. */
#include "nd_test.h"

/* A window: kernel, stride and padding, each (height, width). */
typedef struct Window {
    int64_t kh, kw, sh, sw, ph, pw;
} Window;
#define WINDOW(w) (w).kh, (w).kw, (w).sh, (w).sw, (w).ph, (w).pw

/* np.arange(1, size + 1).reshape(shape).astype(dtype). */
static NdArray *count_from_1(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *a = nd_empty(dtype, ndim, shape);
    for (int64_t i = 0; i < a->size; i++)
        nd_set_flat(a, i, (double)(i + 1));
    return a;
}

/* np.random.rand(shape).astype(dtype). */
static NdArray *rand_as(NdDtype dtype, int ndim, const int64_t *shape)
{
    NdArray *x64 = nd_random_rand(ndim, shape);
    NdArray *x = nd_astype(x64, dtype);
    nd_release(x64);
    return x;
}

/* The sum of a[i] * b[i] over the elements of two same-sized arrays. */
static double inner(const NdArray *a, const NdArray *b)
{
    assert_int_equal(a->size, b->size);
    double sum = 0;
    for (int64_t i = 0; i < a->size; i++)
        sum += nd_get_flat(a, i) * nd_get_flat(b, i);
    return sum;
}

/* ------------------------------------------------------------ layouts */

/* What DeZero gives for an image np.arange(1, size + 1) of shape img
 * seen through window: im2col_array with to_matrix True and False, and
 * col2im_array of a col np.arange(1, size + 1) in each layout. */
typedef struct Case {
    int64_t img[4];
    Window window;
    int64_t matrix[2], six[6];          /* the col shapes */
    const double *im2col_matrix, *im2col_six;
    const double *col2im_matrix, *col2im_six;
} Case;

/* The case in float32 and float64: every value is a small integer, so
 * both dtypes give DeZero's values exactly. */
static void check_case(const Case *c)
{
    static const NdDtype dtypes[] = {ND_FLOAT32, ND_FLOAT64};
    for (int k = 0; k < 2; k++) {
        NdDtype dtype = dtypes[k];
        NdArray *img = count_from_1(dtype, 4, c->img);
        NdArray *m = nd_im2col(img, WINDOW(c->window), true);
        nd_test_expect(__FILE__, __LINE__, "im2col (matrix)", m, dtype, 2,
                       c->matrix, c->im2col_matrix, 0);
        NdArray *s = nd_im2col(img, WINDOW(c->window), false);
        nd_test_expect(__FILE__, __LINE__, "im2col (6-d)", s, dtype, 6,
                       c->six, c->im2col_six, 0);
        NdArray *cm = count_from_1(dtype, 2, c->matrix);
        NdArray *bm = nd_col2im(cm, 4, c->img, WINDOW(c->window), true);
        nd_test_expect(__FILE__, __LINE__, "col2im (matrix)", bm, dtype, 4,
                       c->img, c->col2im_matrix, 0);
        NdArray *cs = count_from_1(dtype, 6, c->six);
        NdArray *bs = nd_col2im(cs, 4, c->img, WINDOW(c->window), false);
        nd_test_expect(__FILE__, __LINE__, "col2im (6-d)", bs, dtype, 4,
                       c->img, c->col2im_six, 0);
        nd_release(img);
        nd_release(m);
        nd_release(s);
        nd_release(cm);
        nd_release(bm);
        nd_release(cs);
        nd_release(bs);
    }
}

#define VALUES(...) ((const double[]){__VA_ARGS__})

/* Two images, 2x2 windows, stride 1, no padding: windows overlap. */
static void test_stride_1(void **state)
{
    (void)state;
    check_case(&(Case){
        .img = {2, 1, 3, 3}, .window = {2, 2, 1, 1, 0, 0},
        .matrix = {8, 4}, .six = {2, 1, 2, 2, 2, 2},
        .im2col_matrix = VALUES(1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8,
                                9, 10, 11, 13, 14, 11, 12, 14, 15, 13, 14,
                                16, 17, 14, 15, 17, 18),
        .im2col_six = VALUES(1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9,
                             10, 11, 13, 14, 11, 12, 14, 15, 13, 14, 16, 17,
                             14, 15, 17, 18),
        .col2im_matrix = VALUES(1, 7, 6, 12, 34, 22, 11, 27, 16, 17, 39, 22,
                                44, 98, 54, 27, 59, 32),
        .col2im_six = VALUES(1, 7, 6, 12, 34, 22, 11, 27, 16, 17, 39, 22,
                             44, 98, 54, 27, 59, 32),
    });
}

/* 3x3 windows, stride 2, padding 1: windows reach into the padding. */
static void test_stride_2_padding_1(void **state)
{
    (void)state;
    check_case(&(Case){
        .img = {1, 1, 4, 4}, .window = {3, 3, 2, 2, 1, 1},
        .matrix = {4, 9}, .six = {1, 1, 3, 3, 2, 2},
        .im2col_matrix = VALUES(0, 0, 0, 0, 1, 2, 0, 5, 6, 0, 0, 0, 2, 3, 4,
                                6, 7, 8, 0, 5, 6, 0, 9, 10, 0, 13, 14, 6, 7,
                                8, 10, 11, 12, 14, 15, 16),
        .im2col_six = VALUES(0, 0, 0, 6, 0, 0, 5, 7, 0, 0, 6, 8, 0, 2, 0, 10,
                             1, 3, 9, 11, 2, 4, 10, 12, 0, 6, 0, 14, 5, 7,
                             13, 15, 6, 8, 14, 16),
        .col2im_matrix = VALUES(5, 19, 14, 15, 28, 74, 46, 48, 23, 55, 32,
                                33, 26, 61, 35, 36),
        .col2im_six = VALUES(17, 35, 18, 22, 36, 74, 38, 46, 19, 39, 20, 24,
                             31, 63, 32, 36),
    });
}

/* Two channels, 2x3 windows, stride (1, 2), padding (0, 1). */
static void test_non_square(void **state)
{
    (void)state;
    check_case(&(Case){
        .img = {1, 2, 3, 4}, .window = {2, 3, 1, 2, 0, 1},
        .matrix = {4, 12}, .six = {1, 2, 2, 3, 2, 2},
        .im2col_matrix = VALUES(0, 1, 2, 0, 5, 6, 0, 13, 14, 0, 17, 18, 2, 3,
                                4, 6, 7, 8, 14, 15, 16, 18, 19, 20, 0, 5, 6,
                                0, 9, 10, 0, 17, 18, 0, 21, 22, 6, 7, 8, 10,
                                11, 12, 18, 19, 20, 22, 23, 24),
        .im2col_six = VALUES(0, 2, 0, 6, 1, 3, 5, 7, 2, 4, 6, 8, 0, 6, 0, 10,
                             5, 7, 9, 11, 6, 8, 10, 12, 0, 14, 0, 18, 13, 15,
                             17, 19, 14, 16, 18, 20, 0, 18, 0, 22, 17, 19, 21,
                             23, 18, 20, 22, 24),
        .col2im_matrix = VALUES(2, 16, 14, 15, 31, 86, 55, 57, 29, 70, 41,
                                42, 8, 28, 20, 21, 43, 110, 67, 69, 35, 82,
                                47, 48),
        .col2im_six = VALUES(5, 11, 6, 10, 24, 50, 26, 34, 19, 39, 20, 24, 29,
                             59, 30, 34, 72, 146, 74, 82, 43, 87, 44, 48),
    });
}

/* 1x2 windows, stride (3, 2) beyond the kernel, padding (1, 2) beyond it
 * too: windows that lie wholly in the padding, pixels no window sees. */
static void test_stride_beyond_kernel(void **state)
{
    (void)state;
    check_case(&(Case){
        .img = {1, 1, 5, 6}, .window = {1, 2, 3, 2, 1, 2},
        .matrix = {15, 2}, .six = {1, 1, 1, 2, 3, 5},
        .im2col_matrix = VALUES(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 13, 14,
                                15, 16, 17, 18, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                0, 0),
        .im2col_six = VALUES(0, 0, 0, 0, 0, 0, 13, 15, 17, 0, 0, 0, 0, 0, 0,
                             0, 0, 0, 0, 0, 0, 14, 16, 18, 0, 0, 0, 0, 0, 0),
        .col2im_matrix = VALUES(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 13, 14,
                                15, 16, 17, 18, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                0, 0),
        .col2im_six = VALUES(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 22, 8,
                             23, 9, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    });
}

/* ------------------------------------------------------------ sums */

/* col2im_array(np.random.rand(16, 18) after np.random.seed(0),
 * (1, 2, 4, 4), 3, 1, 1): up to nine windows add into each element. The
 * values are NumPy's to the last bit, in float64 and in float32 (which
 * NumPy adds in float32), so the order of the additions is NumPy's. The
 * same entries laid out as (N, C, KH, KW, OH, OW) give the same bits. */
static void test_col2im_adds_in_numpy_order(void **state)
{
    (void)state;
    static const double want64[] = {
        2.146227835751998, 3.4189493664256734, 2.497068751630734,
        1.6520429219478245, 3.4351257763567027, 4.688529674126159,
        3.1903256540454263, 2.704239450626236, 2.8662192653190566,
        4.178670293523401, 5.451784125434634, 3.9513283033880935,
        2.6906738877482317, 2.1034572121469193, 3.236172281872105,
        1.6135493564069916, 1.2589952229386194, 3.112259627358396,
        3.383470429302297, 1.9341548851382855, 1.7673938305597097,
        4.860651787548628, 3.974728239710166, 3.2124293060024662,
        3.3344586546789987, 4.015290619816056, 4.930509141498205,
        3.2212555201413, 2.9217871852388217, 2.755553918619183,
        2.0704532975258205, 0.5699744447489702};
    static const double want32[] = {
        2.1462278366088867, 3.4189493656158447, 2.4970688819885254,
        1.6520429849624634, 3.4351258277893066, 4.6885294914245605,
        3.1903254985809326, 2.7042393684387207, 2.8662190437316895,
        4.178670406341553, 5.451784133911133, 3.9513285160064697,
        2.690673828125, 2.10345721244812, 3.2361721992492676,
        1.6135493516921997, 1.2589952945709229, 3.11225962638855,
        3.383470296859741, 1.934154987335205, 1.7673938274383545,
        4.86065149307251, 3.9747281074523926, 3.2124292850494385,
        3.334458827972412, 4.0152907371521, 4.930509090423584,
        3.221255302429199, 2.9217870235443115, 2.755553960800171,
        2.070453405380249, 0.569974422454834};
    const int64_t img[4] = {1, 2, 4, 4};
    nd_random_seed(0);
    NdArray *col = nd_random_rand(ND_SHAPE(16, 18));    // (N*OH*OW, C*KH*KW)
    NdArray *col32 = nd_astype(col, ND_FLOAT32);
    for (int k = 0; k < 2; k++) {
        NdArray *c = k == 0 ? col : col32;
        NdDtype dtype = c->dtype;
        const double *want = k == 0 ? want64 : want32;
        NdArray *x = nd_col2im(c, 4, img, 3, 3, 1, 1, 1, 1, true);
        nd_test_expect(__FILE__, __LINE__, "col2im (matrix)", x, dtype, 4,
                       img, want, 0);
        /* col.reshape(N, OH, OW, C, KH, KW).transpose(0, 3, 4, 5, 1, 2) */
        NdArray *r = nd_reshape(c, ND_SHAPE(1, 4, 4, 2, 3, 3));
        NdArray *six = nd_transpose(r, ND_AXES(0, 3, 4, 5, 1, 2));
        NdArray *y = nd_col2im(six, 4, img, 3, 3, 1, 1, 1, 1, false);
        nd_test_expect(__FILE__, __LINE__, "col2im (6-d)", y, dtype, 4, img,
                       want, 0);
        nd_release(x);
        nd_release(r);
        nd_release(six);
        nd_release(y);
    }
    nd_release(col);
    nd_release(col32);
}

/* ------------------------------------------------------------ step 57 */

/* np.random.seed(0) then step 57's two calls: the shapes it prints, and
 * NumPy's sum and sum(col * (np.arange(col.size) % 97)) of each col,
 * which pin down where every value went. */
static void test_step57_shapes(void **state)
{
    (void)state;
    nd_random_seed(0);
    NdArray *x1 = nd_random_rand(ND_SHAPE(1, 3, 7, 7));
    NdArray *col1 = nd_im2col(x1, 5, 5, 1, 1, 0, 0, true);         // (9, 75)
    NdArray *x2 = nd_random_rand(ND_SHAPE(10, 3, 7, 7));
    NdArray *col2 = nd_im2col(x2, 5, 5, 1, 1, 0, 0, true);        // (90, 75)
    NdArray *cols[2] = {col1, col2};
    const int64_t rows[2] = {9, 90};
    const double sums[2] = {344.82551307344136, 3400.19836640582};
    const double weighted[2] = {16632.87550047332, 162781.73204965692};
    for (int k = 0; k < 2; k++) {
        NdArray *c = cols[k];
        assert_int_equal(c->ndim, 2);
        assert_int_equal(c->shape[0], rows[k]);
        assert_int_equal(c->shape[1], 75);
        double sum = 0, dot = 0;
        for (int64_t i = 0; i < c->size; i++) {
            sum += ND_DATA(c, double)[i];
            dot += ND_DATA(c, double)[i] * (double)(i % 97);
        }
        EXPECT_CLOSE(sum, sums[k], 1e-13);
        EXPECT_CLOSE(dot, weighted[k], 1e-13);
    }
    nd_release(x1);
    nd_release(x2);
    nd_release(col1);
    nd_release(col2);
}

/* ------------------------------------------------------------ adjoint */

/* col2im is im2col's adjoint: <im2col(x), y> == <x, col2im(y)> for any
 * x and y, whatever the window and layout. */
static void test_adjoint(void **state)
{
    (void)state;
    static const Window windows[] = {
        {3, 3, 1, 1, 0, 0}, {3, 3, 2, 2, 1, 1}, {3, 2, 2, 1, 1, 2},
        {1, 1, 1, 1, 0, 0}, {2, 4, 3, 1, 0, 3}, {7, 6, 1, 1, 0, 0},
        {5, 5, 4, 3, 2, 2},
    };
    const int64_t img_shape[4] = {2, 3, 7, 6};
    nd_random_seed(1);
    NdArray *x = nd_random_randn(4, img_shape);                // (2, 3, 7, 6)
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
        for (int to_matrix = 0; to_matrix < 2; to_matrix++) {
            NdArray *col = nd_im2col(x, WINDOW(windows[w]), to_matrix);
            NdArray *y = nd_random_randn(col->ndim, col->shape);
            NdArray *back = nd_col2im(y, 4, img_shape, WINDOW(windows[w]),
                                      to_matrix);
            EXPECT_CLOSE(inner(col, y), inner(x, back), 1e-12);
            nd_release(col);
            nd_release(y);
            nd_release(back);
        }
    }
    nd_release(x);
}

/* ------------------------------------------------------------ batches */

/* A batch large enough to be shared out among threads (41 images: not
 * a multiple of the CPUs) gives, image by image, what each image alone
 * gives on one thread. */
static void test_large_batch_matches_each_image(void **state)
{
    (void)state;
    const int64_t img_shape[4] = {41, 3, 28, 28};
    const int64_t one[4] = {1, 3, 28, 28};
    nd_random_seed(2);
    NdArray *x = rand_as(ND_FLOAT32, 4, img_shape);          // (41, 3, 28, 28)
    for (int to_matrix = 0; to_matrix < 2; to_matrix++) {
        NdArray *col = nd_im2col(x, 5, 5, 1, 1, 2, 2, to_matrix);
        NdArray *y = rand_as(ND_FLOAT32, col->ndim, col->shape);
        NdArray *back = nd_col2im(y, 4, img_shape, 5, 5, 1, 1, 2, 2,
                                  to_matrix);
        int64_t per_image = col->size / 41;
        for (int64_t n = 0; n < 41; n++) {
            NdIndex image = ND_IDX_SLICE(n, n + 1, 1);
            NdArray *xn = nd_getitem(x, 1, &image);         // (1, 3, 28, 28)
            NdArray *coln = nd_im2col(xn, 5, 5, 1, 1, 2, 2, to_matrix);
            assert_memory_equal(coln->data,
                                ND_DATA(col, float) + n * per_image,
                                (size_t)per_image * sizeof(float));
            NdArray *yn = nd_from_buffer(ND_FLOAT32, coln->ndim, coln->shape,
                                         ND_DATA(y, float) + n * per_image);
            NdArray *backn = nd_col2im(yn, 4, one, 5, 5, 1, 1, 2, 2,
                                       to_matrix);
            assert_memory_equal(backn->data,
                                ND_DATA(back, float) + n * backn->size,
                                (size_t)backn->size * sizeof(float));
            nd_release(xn);
            nd_release(coln);
            nd_release(yn);
            nd_release(backn);
        }
        nd_release(col);
        nd_release(y);
        nd_release(back);
    }
    nd_release(x);
}

/* No images (where DeZero's reshape((0, -1)) fails, the shape the
 * formula gives), or images of no pixels whose padding holds windows. */
static void test_empty(void **state)
{
    (void)state;
    NdArray *none = nd_zeros(ND_FLOAT64, ND_SHAPE(0, 3, 7, 7));
    NdArray *col = nd_im2col(none, 5, 5, 1, 1, 0, 0, true);
    nd_test_expect(__FILE__, __LINE__, "col", col, ND_FLOAT64,
                   ND_SHAPE(0, 75), NULL, 0);
    NdArray *back = nd_col2im(col, ND_SHAPE(0, 3, 7, 7), 5, 5, 1, 1, 0, 0,
                              true);
    nd_test_expect(__FILE__, __LINE__, "back", back, ND_FLOAT64,
                   ND_SHAPE(0, 3, 7, 7), NULL, 0);
    NdArray *blank = nd_zeros(ND_FLOAT32, ND_SHAPE(1, 1, 0, 0));
    NdArray *pad = nd_im2col(blank, 1, 2, 1, 1, 1, 1, false);
    EXPECT_ARRAY(pad, ND_FLOAT32, ND_SHAPE(1, 1, 1, 2, 2, 1), 0, 0, 0, 0);
    NdArray *gone = nd_col2im(pad, ND_SHAPE(1, 1, 0, 0), 1, 2, 1, 1, 1, 1,
                              false);
    nd_test_expect(__FILE__, __LINE__, "gone", gone, ND_FLOAT32,
                   ND_SHAPE(1, 1, 0, 0), NULL, 0);
    nd_release(none);
    nd_release(col);
    nd_release(back);
    nd_release(blank);
    nd_release(pad);
    nd_release(gone);
}

/* ------------------------------------------------------------ misuse */

static void test_errors(void **state)
{
    (void)state;
    NdArray *x = nd_zeros(ND_FLOAT64, ND_SHAPE(1, 1, 3, 3));
    NdArray *flat = nd_zeros(ND_FLOAT64, ND_SHAPE(3, 7, 7));
    NdArray *ints = nd_zeros(ND_INT64, ND_SHAPE(1, 1, 3, 3));
    EXPECT_ND_ERROR(nd_im2col(flat, 3, 3, 1, 1, 0, 0, true),
                    "nd_im2col: the image must be 4-D (N, C, H, W), got "
                    "shape (3,7,7)");
    EXPECT_ND_ERROR(nd_im2col(ints, 3, 3, 1, 1, 0, 0, true),
                    "nd_im2col: not supported for the dtype int64 (float32 "
                    "and float64 only)");
    EXPECT_ND_ERROR(nd_im2col(x, 0, 3, 1, 1, 0, 0, true),
                    "nd_im2col: the kernel must be at least 1x1, got 0x3");
    EXPECT_ND_ERROR(nd_im2col(x, 3, 3, 1, 0, 0, 0, true),
                    "nd_im2col: the stride must be positive, got 1x0");
    EXPECT_ND_ERROR(nd_im2col(x, 3, 3, -2, 1, 0, 0, true),
                    "the stride must be positive, got -2x1");
    EXPECT_ND_ERROR(nd_im2col(x, 3, 3, 1, 1, -1, 0, true),
                    "nd_im2col: the padding must not be negative, got -1x0");
    EXPECT_ND_ERROR(nd_im2col(x, 5, 5, 1, 1, 0, 0, true),
                    "nd_im2col: the kernel 5x5 is larger than the padded "
                    "image 3x3 (3x3 padded by 0x0)");
    EXPECT_ND_ERROR(nd_im2col(x, 3, 6, 1, 1, 1, 1, true),
                    "the kernel 3x6 is larger than the padded image 5x5");
    EXPECT_ND_ERROR(nd_im2col(x, 1, 1, 1, 1, (int64_t)1 << 40, 0, true),
                    "padding 1099511627776x0 is too large (each must be "
                    "below 2**31)");
    /* With padding the kernel may be larger than the image itself. */
    NdArray *fits = nd_im2col(x, 5, 5, 1, 1, 1, 1, true);
    EXPECT_ARRAY(fits, ND_FLOAT64, ND_SHAPE(1, 25), 0, 0, 0, 0, 0, 0, 0, 0,
                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    NdArray *col = nd_zeros(ND_FLOAT64, ND_SHAPE(9, 70));
    EXPECT_ND_ERROR(nd_col2im(col, ND_SHAPE(1, 3, 7, 7), 5, 5, 1, 1, 0, 0,
                              true),
                    "nd_col2im: col has shape (9,70), but an image (1,3,7,7) "
                    "seen through 5x5 windows with stride 1x1 and padding "
                    "0x0 gives (9,75)");
    EXPECT_ND_ERROR(nd_col2im(col, ND_SHAPE(1, 3, 7, 7), 5, 5, 1, 1, 0, 0,
                              false),
                    "gives (1,3,5,5,3,3)");
    EXPECT_ND_ERROR(nd_col2im(col, ND_SHAPE(3, 7, 7), 5, 5, 1, 1, 0, 0,
                              true),
                    "nd_col2im: the image must be 4-D (N, C, H, W), got "
                    "shape (3,7,7)");
    EXPECT_ND_ERROR(nd_col2im(col, ND_SHAPE(1, -3, 7, 7), 5, 5, 1, 1, 0, 0,
                              true),
                    "nd_col2im: negative dimensions are not allowed");
    NdArray *int_col = nd_zeros(ND_INT64, ND_SHAPE(9, 75));
    EXPECT_ND_ERROR(nd_col2im(int_col, ND_SHAPE(1, 3, 7, 7), 5, 5, 1, 1, 0,
                              0, true),
                    "nd_col2im: not supported for the dtype int64 (float32 "
                    "and float64 only)");
    EXPECT_ND_ERROR(nd_col2im(col, ND_SHAPE(1, 3, 7, 7), 9, 5, 1, 1, 0, 0,
                              true),
                    "nd_col2im: the kernel 9x5 is larger than the padded "
                    "image 7x7");

    /* A device array while GPU support is off: refused, saying why
     * (test_gpu.c runs real device arrays). */
    if (!nd_gpu_available()) {
        NdArray fake = *x;
        fake.device = ND_CUDA;
        EXPECT_ND_ERROR(nd_im2col(&fake, 3, 3, 1, 1, 0, 0, true),
                        "nd_im2col: the operands are on device cuda, but "
                        "GPU support is off");
    }
    nd_release(x);
    nd_release(flat);
    nd_release(ints);
    nd_release(fits);
    nd_release(col);
    nd_release(int_col);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stride_1),
        cmocka_unit_test(test_stride_2_padding_1),
        cmocka_unit_test(test_non_square),
        cmocka_unit_test(test_stride_beyond_kernel),
        cmocka_unit_test(test_col2im_adds_in_numpy_order),
        cmocka_unit_test(test_step57_shapes),
        cmocka_unit_test(test_adjoint),
        cmocka_unit_test(test_large_batch_matches_each_image),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests_name("common/im2col", tests, NULL, NULL);
}
