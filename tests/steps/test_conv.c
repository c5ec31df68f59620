// FIRST_STEP: 57
/* test_conv.c - step 57's functions of convolutional networks
 * (functions_conv.c) and the Conv2d layer: values against NumPy's
 * DeZero, computed once by /tmp/dezero-py's functions_conv.py on the
 * inputs below (wave()) and written here; the gradient of every
 * function, and of the functions their backward is made of (Conv2DGradW,
 * Pooling2DGrad, Pooling2DWithIndexes, through double backprop), against
 * central differences; strides, padding, no bias; the layer's shapes,
 * its late weight and a save/load round trip; and the errors that bad
 * input gets. Tiny shapes: the suite runs it for every later step. */
#include <math.h>

#include "grad_check.h"
#include "scratch.h"

/* A float64 array of shape holding sin(a i + b), i = 0, 1, ...: values
 * without ties, as NumPy's np.sin(a * np.arange(n) + b).reshape(shape)
 * makes them for the references. */
static NdArray *wave(int ndim, const int64_t *shape, double a, double b)
{
    NdArray *w = nd_empty(ND_FLOAT64, ndim, shape);
    for (int64_t i = 0; i < w->size; i++)
        nd_set_flat(w, i, sin(a * (double)i + b));
    return w;
}

static void release_all(int n, NdArray *arrays[])
{
    for (int i = 0; i < n; i++)
        nd_release(arrays[i]);
}

/* ---- NumPy's DeZero on these inputs:
 * x = wave((1, 2, 4, 4), 0.7, 0.3), W = wave((3, 2, 3, 3), 1.3, 0.1),
 * b = [0.5, -0.25, 1.0]; F.conv2d(x, W, b, stride=1, pad=1),
 * F.conv2d(x, W, None, stride=2, pad=1), F.conv2d(x, W, b);
 * F.deconv2d(wave((1, 2, 2, 2), 1.1, 0.4), wave((2, 3, 3, 3), 0.9,
 * 0.2), b, stride=2, pad=1);
 * xp = wave((1, 2, 4, 4), 2.3, 0.5): F.pooling(xp, 2, stride=2),
 * F.pooling(xp, 3, stride=1, pad=1), F.average_pooling(xp, 2, stride=2);
 * F.im2col(np.arange(18.).reshape(2, 1, 3, 3), 2). */

/* conv_s1p1 (1, 3, 4, 4) */
#define CONV_S1P1_SHAPE ND_SHAPE(1, 3, 4, 4)
#define CONV_S1P1 \
    2.8330754543265475, 2.064639973456967, -0.9872367302259402, \
    -3.3701276168969385, -2.204556926511803, -0.34615960736142504, \
    3.0908083576589513, 4.704221793986092, 3.9083280762124177, \
    2.9809983171189076, -0.4707257171091396, -3.0143090214898276, \
    -2.965369538520708, -0.9452545942865418, 2.146256384050844, \
    3.275056638711056, -0.6831638830453616, -4.392827607524876, \
    -4.095756620627672, 0.009960125616385207, 0.31213820771554535, \
    4.4393234150318275, 3.3867177324314546, -1.8964953050449735, \
    0.34536871413955395, -4.642320492484324, -4.668642047641255, \
    0.2875865973270031, 0.2848371326897291, 3.9927432781901784, \
    3.3437936019366337, -0.9866064458423673, -1.1933905288845672, \
    0.7713222065097403, 3.7274006678184883, 4.786296733977249, \
    3.5232808859500118, 0.33396568436647356, -2.763562285656803, \
    -2.67326669147654, -2.6003201551927706, -0.06458068738374978, \
    3.39563141478701, 4.340950284287897, 4.292897437480962, \
    1.0770720156355342, -1.8051683132059355, -1.5375187910396648

/* conv_s2p1 (1, 3, 2, 2) */
#define CONV_S2P1_SHAPE ND_SHAPE(1, 3, 2, 2)
#define CONV_S2P1 \
    2.3330754543265475, -1.4872367302259402, 3.4083280762124177, \
    -0.9707257171091396, -0.4331638830453616, -3.845756620627672, \
    0.595368714139554, -4.418642047641255, -2.193390528884567, \
    2.7274006678184883, -3.6003201551927706, 2.39563141478701

/* conv_s1p0 (1, 3, 2, 2) */
#define CONV_S1P0_SHAPE ND_SHAPE(1, 3, 2, 2)
#define CONV_S1P0 \
    -0.34615960736142504, 3.0908083576589513, 2.9809983171189076, \
    -0.4707257171091396, 4.4393234150318275, 3.3867177324314546, \
    -4.642320492484324, -4.668642047641255, 0.33396568436647356, \
    -2.763562285656803, -0.06458068738374978, 3.39563141478701

/* deconv_s2p1 (1, 3, 3, 3) */
#define DECONV_S2P1_SHAPE ND_SHAPE(1, 3, 3, 3)
#define DECONV_S2P1 \
    0.08894441599836161, 0.6816104579550291, -0.17517489204044323, \
    1.7921921865415888, 0.7085549948878932, 0.7145181813232859, \
    0.29854215937468254, 0.27457466276582054, 0.9924139017636109, \
    0.5028922968991025, -0.3427999532432351, -0.493672207879051, \
    -0.1431091242850131, -0.03507336354945845, 1.0207765338877048, \
    -1.223949833685392, -0.6270660176274756, -0.8898875261665082, \
    1.0443305493966593, 0.8635913142036588, 1.7938647753541128, \
    -0.344257482277754, 0.6867567535328525, 0.1665014276107457, \
    1.6758574166773665, 1.4090897855654005, 0.8192678303290145

/* pool_k2s2 (1, 2, 2, 2) */
#define POOL_K2S2_SHAPE ND_SHAPE(1, 2, 2, 2)
#define POOL_K2S2 \
    0.479425538604203, 0.9867719642746137, 0.7111612229059824, \
    0.9591758329530784, 0.9460125826269105, 0.7409726108017148, \
    0.9928726480845362, 0.440926821601849

/* pool_k3s1p1 (1, 2, 4, 4) */
#define POOL_K3S1P1_SHAPE ND_SHAPE(1, 2, 4, 4)
#define POOL_K3S1P1 \
    0.479425538604203, 0.9867719642746137, 0.9867719642746137, \
    0.9867719642746137, 0.7111612229059824, 0.9867719642746137, \
    0.9867719642746137, 0.9867719642746137, 0.7111612229059824, \
    0.9867719642746137, 0.9867719642746137, 0.9867719642746137, \
    0.7111612229059824, 0.9591758329530784, 0.9591758329530784, \
    0.9591758329530784, 0.9460125826269105, 0.9460125826269105, \
    0.9460125826269105, 0.7409726108017148, 0.9928726480845362, \
    0.9928726480845362, 0.9928726480845362, 0.7409726108017148, \
    0.9928726480845362, 0.9928726480845362, 0.9928726480845362, \
    0.7409726108017148, 0.9928726480845362, 0.9928726480845362, \
    0.9928726480845362, 0.440926821601849

/* avg_k2s2 (1, 2, 2, 2) */
#define AVG_K2S2_SHAPE ND_SHAPE(1, 2, 2, 2)
#define AVG_K2S2 \
    0.0015200360871826801, 0.045328324806052867, 0.021266755019840294, \
    0.0379365393993919, 0.03678735172708428, 0.023006017962647306, \
    0.044997578582282066, 0.0035037485681412434

/* im2col_k2 (8, 4) */
#define IM2COL_K2_SHAPE ND_SHAPE(8, 4)
#define IM2COL_K2 \
    0.0, 1.0, 3.0, 4.0, 1.0, 2.0, 4.0, 5.0, 3.0, 4.0, 6.0, 7.0, 4.0, \
    5.0, 7.0, 8.0, 9.0, 10.0, 12.0, 13.0, 10.0, 11.0, 13.0, 14.0, \
    12.0, 13.0, 15.0, 16.0, 13.0, 14.0, 16.0, 17.0

static const double bias3[] = {0.5, -0.25, 1.0};

static Variable *bias_variable(void)
{
    return variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3), bias3));
}

/* Conv2d against NumPy with and without padding, stride and bias:
 * one Conv2d node; conv2d_simple gives the same numbers. */
static void test_conv2d_values(void **state)
{
    (void)state;
    Variable *x = variable(wave(ND_SHAPE(1, 2, 4, 4), 0.7, 0.3));
    Variable *W = variable(wave(ND_SHAPE(3, 2, 3, 3), 1.3, 0.1));
    Variable *b = bias_variable();

    Variable *y = F_conv2d(x, W, b, .stride = pair(1), .pad = pair(1));
    assert_string_equal(y->creator->cls->name, "Conv2d");
    EXPECT_ARRAY_CLOSE(y->data, ND_FLOAT64, 1e-12, CONV_S1P1_SHAPE,
                       CONV_S1P1);
    EXPECT_ARRAY_CLOSE(F_conv2d_simple(x, W, b, .pad = pair(1))->data,
                       ND_FLOAT64, 1e-12, CONV_S1P1_SHAPE, CONV_S1P1);

    Variable *s2 = F_conv2d(x, W, NULL, .stride = pair(2), .pad = pair(1));
    assert_int_equal(s2->creator->ninputs, 2);
    EXPECT_ARRAY_CLOSE(s2->data, ND_FLOAT64, 1e-12, CONV_S2P1_SHAPE,
                       CONV_S2P1);
    EXPECT_ARRAY_CLOSE(F_conv2d_simple(x, W, NULL, .stride = pair(2),
                                       .pad = pair(1))->data,
                       ND_FLOAT64, 1e-12, CONV_S2P1_SHAPE, CONV_S2P1);

    EXPECT_ARRAY_CLOSE(F_conv2d(x, W, b)->data, ND_FLOAT64, 1e-12,
                       CONV_S1P0_SHAPE, CONV_S1P0);
    EXPECT_ARRAY_CLOSE(F_conv2d_simple(x, W, b)->data, ND_FLOAT64, 1e-12,
                       CONV_S1P0_SHAPE, CONV_S1P0);
}

/* float32 filters on float32 images stay float32. */
static void test_conv2d_float32(void **state)
{
    (void)state;
    NdArray *x64 = wave(ND_SHAPE(1, 2, 4, 4), 0.7, 0.3);
    NdArray *W64 = wave(ND_SHAPE(3, 2, 3, 3), 1.3, 0.1);
    NdArray *x = nd_astype(x64, ND_FLOAT32), *W = nd_astype(W64, ND_FLOAT32);
    Variable *y = F_conv2d(x, W, NULL, .pad = pair(1));
    assert_int_equal(variable_dtype(y), ND_FLOAT32);
    backward(y);
    nd_release(W);
    nd_release(x);
    nd_release(W64);
    nd_release(x64);
}

static void test_deconv2d_values(void **state)
{
    (void)state;
    Variable *x = variable(wave(ND_SHAPE(1, 2, 2, 2), 1.1, 0.4));
    Variable *W = variable(wave(ND_SHAPE(2, 3, 3, 3), 0.9, 0.2));
    Variable *y = F_deconv2d(x, W, bias_variable(), .stride = pair(2),
                             .pad = pair(1));
    assert_string_equal(y->creator->cls->name, "Deconv2d");
    EXPECT_ARRAY_CLOSE(y->data, ND_FLOAT64, 1e-12, DECONV_S2P1_SHAPE,
                       DECONV_S2P1);
    /* an outsize that the convolution takes back to (2, 2) as well */
    Variable *wide = F_deconv2d(x, W, NULL, .stride = pair(2),
                                .pad = pair(1), .outsize = {4, 4});
    assert_int_equal(variable_shape(wide)[2], 4);
}

/* Max pooling against NumPy; pooling_simple agrees; average pooling. */
static void test_pooling_values(void **state)
{
    (void)state;
    Variable *x = variable(wave(ND_SHAPE(1, 2, 4, 4), 2.3, 0.5));
    Variable *y = F_pooling(x, pair(2), .stride = pair(2));
    assert_string_equal(y->creator->cls->name, "Pooling");
    EXPECT_ARRAY(y->data, ND_FLOAT64, POOL_K2S2_SHAPE, POOL_K2S2);
    EXPECT_ARRAY(F_pooling_simple(x, pair(2), .stride = pair(2))->data,
                 ND_FLOAT64, POOL_K2S2_SHAPE, POOL_K2S2);
    EXPECT_ARRAY(F_pooling(x, pair(3), .pad = pair(1))->data, ND_FLOAT64,
                 POOL_K3S1P1_SHAPE, POOL_K3S1P1);
    EXPECT_ARRAY(F_pooling_simple(x, pair(3), .pad = pair(1))->data,
                 ND_FLOAT64, POOL_K3S1P1_SHAPE, POOL_K3S1P1);
    EXPECT_ARRAY_CLOSE(F_average_pooling(x, pair(2),
                                         .stride = pair(2))->data,
                       ND_FLOAT64, 1e-12, AVG_K2S2_SHAPE, AVG_K2S2);
}

/* im2col's matrix against NumPy, its 6-D layout, and col2im adding the
 * copies back: each pixel counted as often as windows cover it. */
static void test_im2col_col2im(void **state)
{
    (void)state;
    NdArray *image = ramp(ND_SHAPE(2, 1, 3, 3), 0, 1);
    Variable *col = F_im2col(image, pair(2));
    EXPECT_ARRAY(col->data, ND_FLOAT64, IM2COL_K2_SHAPE, IM2COL_K2);
    Variable *col6 = F_im2col(image, pair(2), .keep_6d = true);
    const int64_t want6[] = {2, 1, 2, 2, 2, 2};
    assert_int_equal(variable_ndim(col6), 6);
    assert_memory_equal(variable_shape(col6), want6, sizeof want6);

    NdArray *ones = nd_ones(ND_FLOAT64, ND_SHAPE(8, 4));
    const int64_t shape[4] = {2, 1, 3, 3};
    Variable *counts = F_col2im(ones, shape, pair(2));
    EXPECT_ARRAY(counts->data, ND_FLOAT64, ND_SHAPE(2, 1, 3, 3),
                 1, 2, 1, 2, 4, 2, 1, 2, 1, 1, 2, 1, 2, 4, 2, 1, 2, 1);
    nd_release(ones);
    nd_release(image);
}

/* ---- gradients against central differences */

static Variable *conv_s1p1(Variable *xs[])
{
    return F_conv2d(xs[0], xs[1], xs[2], .pad = pair(1));
}

static Variable *conv_s2p1_nobias(Variable *xs[])
{
    return F_conv2d(xs[0], xs[1], NULL, .stride = pair(2), .pad = pair(1));
}

static Variable *conv_simple_s1p1(Variable *xs[])
{
    return F_conv2d_simple(xs[0], xs[1], xs[2], .pad = pair(1));
}

static Variable *conv_simple_s2_nobias(Variable *xs[])
{
    return F_conv2d_simple(xs[0], xs[1], NULL, .stride = pair(2));
}

static Variable *deconv_s2p1(Variable *xs[])
{
    return F_deconv2d(xs[0], xs[1], xs[2], .stride = pair(2),
                      .pad = pair(1));
}

static Variable *deconv_nobias(Variable *xs[])
{
    return F_deconv2d(xs[0], xs[1], NULL);
}

/* x (1, 2, 5, 5), W (3, 2, 3, 3), b (3,): odd sizes, so that a stride
 * of 2 leaves no pixel out at one pad and some at another. */
static void conv_operands(NdArray *arrays[3])
{
    arrays[0] = wave(ND_SHAPE(1, 2, 5, 5), 0.7, 0.3);
    arrays[1] = wave(ND_SHAPE(3, 2, 3, 3), 1.3, 0.1);
    arrays[2] = nd_from_buffer(ND_FLOAT64, ND_SHAPE(3), bias3);
}

static void test_conv2d_gradients(void **state)
{
    (void)state;
    NdArray *arrays[3];
    conv_operands(arrays);
    check_gradients("conv2d stride 1 pad 1", conv_s1p1, 3, arrays, 1e-6);
    check_gradients("conv2d stride 2 pad 1, no bias", conv_s2p1_nobias, 2,
                    arrays, 1e-6);
    check_gradients("conv2d_simple pad 1", conv_simple_s1p1, 3, arrays,
                    1e-6);
    check_gradients("conv2d_simple stride 2, no bias",
                    conv_simple_s2_nobias, 2, arrays, 1e-6);
    /* Two images: W's gradient sums over both, image by image at
     * stride 1 (18 numbers a window, 25 windows an image) and in one
     * product at stride 2 (18 against 9). */
    NdArray *two[3] = {wave(ND_SHAPE(2, 2, 5, 5), 0.7, 0.3),
                       nd_retain(arrays[1]), nd_retain(arrays[2])};
    check_gradients("conv2d stride 1 pad 1, two images", conv_s1p1, 3, two,
                    1e-6);
    check_gradients("conv2d stride 2 pad 1, two images", conv_s2p1_nobias,
                    2, two, 1e-6);
    release_all(3, two);
    release_all(3, arrays);
}

static void test_deconv2d_gradients(void **state)
{
    (void)state;
    NdArray *arrays[3] = {wave(ND_SHAPE(2, 2, 2, 3), 1.1, 0.4),
                          wave(ND_SHAPE(2, 3, 3, 3), 0.9, 0.2),
                          nd_from_buffer(ND_FLOAT64, ND_SHAPE(3), bias3)};
    check_gradients("deconv2d stride 2 pad 1", deconv_s2p1, 3, arrays,
                    1e-6);
    check_gradients("deconv2d, no bias", deconv_nobias, 2, arrays, 1e-6);
    release_all(3, arrays);
}

static Variable *pool_k2s2(Variable *xs[])
{
    return F_pooling(xs[0], pair(2), .stride = pair(2));
}

static Variable *pool_k3s2p1(Variable *xs[])
{
    return F_pooling(xs[0], pair(3), .stride = pair(2), .pad = pair(1));
}

static Variable *pool_simple_k2s2(Variable *xs[])
{
    return F_pooling_simple(xs[0], pair(2), .stride = pair(2));
}

static Variable *pool_simple_k3p1(Variable *xs[])
{
    return F_pooling_simple(xs[0], pair(3), .pad = pair(1));
}

static Variable *average_k2s2(Variable *xs[])
{
    return F_average_pooling(xs[0], pair(2), .stride = pair(2));
}

static Variable *average_k3s2p1(Variable *xs[])
{
    return F_average_pooling(xs[0], pair(3), .stride = pair(2),
                             .pad = pair(1));
}

static void test_pooling_gradients(void **state)
{
    (void)state;
    NdArray *x = wave(ND_SHAPE(2, 2, 5, 5), 2.3, 0.5);
    check_gradients("pooling 2 stride 2", pool_k2s2, 1, &x, 1e-6);
    check_gradients("pooling 3 stride 2 pad 1", pool_k3s2p1, 1, &x, 1e-6);
    check_gradients("pooling_simple 2 stride 2", pool_simple_k2s2, 1, &x,
                    1e-6);
    check_gradients("pooling_simple 3 pad 1", pool_simple_k3p1, 1, &x,
                    1e-6);
    check_gradients("average_pooling 2 stride 2", average_k2s2, 1, &x,
                    1e-6);
    check_gradients("average_pooling 3 stride 2 pad 1", average_k3s2p1, 1,
                    &x, 1e-6);
    nd_release(x);
}

/* A kernel of 2 rows and 3 columns. (A compound literal (Pair){2, 3}
 * would hold a comma the F_ macros take as an argument's end.) */
static const Pair kernel23 = {2, 3};

static Variable *im2col_matrix(Variable *xs[])
{
    return F_im2col(xs[0], kernel23, .stride = pair(2), .pad = pair(1));
}

static Variable *im2col_6d(Variable *xs[])
{
    return F_im2col(xs[0], pair(3), .pad = pair(1), .keep_6d = true);
}

static const int64_t col2im_image[4] = {1, 2, 4, 5};

/* col is the windows (2, 3) of a (1, 2, 4, 5) image, stride 2, pad 1:
 * (1*3*3, 2*2*3). */
static Variable *col2im_matrix(Variable *xs[])
{
    return F_col2im(xs[0], col2im_image, kernel23, .stride = pair(2),
                    .pad = pair(1));
}

static void test_im2col_col2im_gradients(void **state)
{
    (void)state;
    NdArray *x = wave(ND_SHAPE(1, 2, 4, 5), 0.6, 0.1);
    check_gradients("im2col (2, 3) stride 2 pad 1", im2col_matrix, 1, &x,
                    1e-6);
    check_gradients("im2col 3 pad 1, 6-D", im2col_6d, 1, &x, 1e-6);
    NdArray *col = wave(ND_SHAPE(9, 12), 0.8, 0.7);
    check_gradients("col2im (2, 3) stride 2 pad 1", col2im_matrix, 1, &col,
                    1e-6);
    nd_release(col);
    nd_release(x);
}

/* ---- the functions backward is made of, through double backprop */

static NdArray *fixed_filters;      /* (3, 2, 3, 3), for conv_grad_W */
static NdArray *fixed_image;        /* (1, 2, 5, 5), for the poolings */

/* W's gradient of sum(conv2d(x, W) * g): Conv2DGradW(x, g), a function
 * of x and g whose own backward is a deconv2d and a conv2d. */
static Variable *conv_grad_W(Variable *xs[])
{
    Variable *W = variable(nd_copy(fixed_filters));
    /* the graph is recorded even where the check computes its loss */
    USING_CONFIG(enable_backprop, true) {
        Variable *y = F_conv2d(xs[0], W, NULL, .stride = pair(2),
                               .pad = pair(1));
        backward(F_sum(F_mul(y, xs[1]), ND_ALL_AXES, false),
                 .create_graph = true);
    }
    cleargrad(xs[0]);           /* the check's backward starts afresh */
    cleargrad(xs[1]);
    return W->grad;
}

static void test_conv2d_grad_W_gradients(void **state)
{
    (void)state;
    fixed_filters = wave(ND_SHAPE(3, 2, 3, 3), 1.3, 0.1);
    NdArray *arrays[2] = {wave(ND_SHAPE(1, 2, 5, 5), 0.7, 0.3),
                          wave(ND_SHAPE(1, 3, 3, 3), 0.5, 0.9)};
    check_gradients("Conv2DGradW", conv_grad_W, 2, arrays, 1e-6);
    release_all(2, arrays);
    nd_release(fixed_filters);
}

/* x's gradient of sum(pooling(x) * g): Pooling2DGrad(g). */
static Variable *pooling_grad(Variable *xs[])
{
    Variable *x = variable(nd_copy(fixed_image));
    USING_CONFIG(enable_backprop, true) {
        Variable *y = F_pooling(x, pair(3), .stride = pair(2),
                                .pad = pair(1));
        backward(F_sum(F_mul(y, xs[0]), ND_ALL_AXES, false),
                 .create_graph = true);
    }
    cleargrad(xs[0]);           /* the check's backward starts afresh */
    return x->grad;
}

/* g's gradient of sum(Pooling2DGrad(g) * h): Pooling2DWithIndexes(h).
 * Each backward starts from a gradient given (g, then h), so that the
 * two functions are the last of their graphs. */
static Variable *pooling_with_indexes(Variable *xs[])
{
    Variable *x = variable(nd_copy(fixed_image));
    Variable *g = variable(nd_ones(ND_FLOAT64, ND_SHAPE(1, 2, 3, 3)));
    USING_CONFIG(enable_backprop, true) {
        Variable *y = F_pooling(x, pair(3), .stride = pair(2),
                                .pad = pair(1));
        y->grad = retain(g);    /* backward from y with g as its grad */
        backward(y, .create_graph = true);
        Variable *gx = x->grad;
        assert_string_equal(gx->creator->cls->name, "Pooling2DGrad");
        cleargrad(g);
        gx->grad = retain(xs[0]);
        backward(gx, .create_graph = true);
    }
    assert_string_equal(g->grad->creator->cls->name,
                        "Pooling2DWithIndexes");
    cleargrad(xs[0]);           /* the check's backward starts afresh */
    return g->grad;
}

static void test_pooling_grad_gradients(void **state)
{
    (void)state;
    fixed_image = wave(ND_SHAPE(1, 2, 5, 5), 2.3, 0.5);
    NdArray *g = wave(ND_SHAPE(1, 2, 3, 3), 0.5, 0.9);
    check_gradients("Pooling2DGrad", pooling_grad, 1, &g, 1e-6);
    NdArray *h = wave(ND_SHAPE(1, 2, 5, 5), 0.4, 0.2);
    check_gradients("Pooling2DWithIndexes", pooling_with_indexes, 1, &h,
                    1e-6);
    nd_release(h);
    nd_release(g);
    nd_release(fixed_image);
}

/* ---- the Conv2d layer */

/* W is made at the first call from x's channels, (OC, C, KH, KW)
 * float32 drawn as Python draws it; b zeros (OC,); y (N, OC, OH, OW);
 * before the call, unmade_param says what W will be. */
static void test_conv2d_layer(void **state)
{
    (void)state;
    Pair kernel = {3, 2};
    Layer *layer = L_conv2d(4, kernel, .stride = pair(2), .pad = pair(1));
    Conv2dLayer *l = (Conv2dLayer *)layer;
    assert_null(l->W->variable.data);
    NdDtype dtype;
    int64_t shape[ND_MAX_DIMS];
    int ndim = layer->cls->unmade_param(layer, l->W, &dtype, shape);
    assert_int_equal(ndim, 4);
    assert_int_equal(dtype, ND_FLOAT32);
    const int64_t want_unmade[4] = {4, -1, 3, 2};
    assert_memory_equal(shape, want_unmade, sizeof want_unmade);

    nd_random_seed(0);
    NdArray *x = wave(ND_SHAPE(2, 3, 5, 6), 0.7, 0.3);
    Variable *y = layer_call(layer, x);
    const int64_t want_y[4] = {2, 4, 3, 4};
    assert_memory_equal(variable_shape(y), want_y, sizeof want_y);
    EXPECT_ARRAY(l->b->variable.data, ND_FLOAT32, ND_SHAPE(4), 0, 0, 0, 0);

    /* np.random.seed(0); randn(4, 3, 3, 2).astype(float32) * sqrt(1/18) */
    nd_random_seed(0);
    NdArray *r = nd_random_randn(ND_SHAPE(4, 3, 3, 2));
    NdArray *r32 = nd_astype(r, ND_FLOAT32);
    NdArray *scale = nd_scalar(sqrt(1.0 / 18));
    NdArray *want_W = nd_mul(r32, scale);
    assert_true(nd_array_equal(l->W->variable.data, want_W));
    nd_release(want_W);
    nd_release(scale);
    nd_release(r32);
    nd_release(r);

    Layer *given = L_conv2d(2, pair(1), .in_channels = 3, .nobias = true,
                            .dtype = ND_FLOAT64);
    const int64_t want_W1[4] = {2, 3, 1, 1};
    Conv2dLayer *g = (Conv2dLayer *)given;
    assert_non_null(g->W->variable.data);
    assert_memory_equal(g->W->variable.data->shape, want_W1, sizeof want_W1);
    assert_null(g->b);
    assert_int_equal(given->nparams, 1);
    nd_release(x);
}

/* Saved after its first call, loaded into a layer not yet called: the
 * same filters and bias, and the same output. */
static void test_conv2d_layer_save_load(void **state)
{
    (void)state;
    NdArray *x = wave(ND_SHAPE(1, 2, 4, 4), 0.7, 0.3);
    Layer *saved = L_conv2d(3, pair(3), .pad = pair(1));
    Variable *want = layer_call(saved, x);
    const char *path = in_scratch("conv.npz");
    layer_save_weights(saved, path);

    Layer *fresh = L_conv2d(3, pair(3), .pad = pair(1));
    layer_load_weights(fresh, path);
    Conv2dLayer *a = (Conv2dLayer *)saved, *b = (Conv2dLayer *)fresh;
    assert_true(nd_array_equal(a->W->variable.data, b->W->variable.data));
    assert_true(nd_array_equal(a->b->variable.data, b->b->variable.data));
    Variable *got = layer_call(fresh, x);
    assert_true(nd_array_equal(got->data, want->data));

    /* filters of another kernel size are refused, naming the key */
    Layer *other = L_conv2d(3, pair(2));
    EXPECT_ND_ERROR(layer_load_weights(other, path), "W");
    nd_release(x);
}

/* ---- bad input */

static void test_bad_input(void **state)
{
    (void)state;
    NdArray *x3 = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 4, 4));
    NdArray *x = nd_zeros(ND_FLOAT64, ND_SHAPE(1, 2, 4, 4));
    NdArray *W = nd_zeros(ND_FLOAT64, ND_SHAPE(3, 5, 3, 3));
    NdArray *W2 = nd_zeros(ND_FLOAT64, ND_SHAPE(3, 2, 3, 3));
    NdArray *b = nd_zeros(ND_FLOAT64, ND_SHAPE(4));
    EXPECT_ND_ERROR(F_conv2d(x3, W2, NULL), "(N, C, H, W)");
    EXPECT_ND_ERROR(F_conv2d(x, W, NULL), "2 channels for a weight of 5");
    EXPECT_ND_ERROR(F_conv2d_simple(x, W, NULL), "channels");
    EXPECT_ND_ERROR(F_conv2d(x, W2, b), "a bias of 4 elements");
    EXPECT_ND_ERROR(F_conv2d(x, x3, NULL), "a weight of 3 axes");
    EXPECT_ND_ERROR(F_deconv2d(x, W, NULL), "2 channels for a weight of 3");
    NdArray *Wd = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 3, 3, 3));
    EXPECT_ND_ERROR(F_deconv2d(x, Wd, NULL, .outsize = {7, 7}),
                    "an output of (7, 7)");
    nd_release(Wd);
    EXPECT_ND_ERROR(F_pooling(x3, pair(2)), "(N, C, H, W)");
    EXPECT_ND_ERROR(F_pooling(x, pair(5)), "does not fit");
    EXPECT_ND_ERROR(F_average_pooling(x, pair(2), .pad = pair(-1)),
                    "pad not negative");
    EXPECT_ND_ERROR(F_im2col(x, pair(0)), "must be positive");
    const int64_t shape[4] = {1, 2, 4, 4};
    EXPECT_ND_ERROR(F_col2im(W2, shape, pair(3)), "not the windows");
    /* Sizes beyond int64: a clear error naming the pad or the stride,
     * not an overflow (Python's DeZero runs out of memory in np.pad). */
    EXPECT_ND_ERROR(F_conv2d(x, W2, NULL, .pad = pair(INT64_C(1) << 62)),
                    "conv2d: a pad of (4611686018427387904, "
                    "4611686018427387904) is too large");
    EXPECT_ND_ERROR(F_conv2d(x, W2, NULL, .pad = pair(INT64_C(1) << 40)),
                    "pad (1099511627776, 1099511627776) make more windows");
    EXPECT_ND_ERROR(F_pooling(x, pair(2), .pad = pair(INT64_MAX)),
                    "pooling: a pad of");
    EXPECT_ND_ERROR(F_col2im(W2, shape, pair(3), .pad = pair(INT64_C(1)
                                                             << 40)),
                    "col2im: kernel (3, 3), stride (1, 1) and pad "
                    "(1099511627776, 1099511627776) make more windows of "
                    "an image of (1, 2, 4, 4) than int64 can count");
    Wd = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 3, 3, 3));
    EXPECT_ND_ERROR(F_deconv2d(x, Wd, NULL, .stride = pair(INT64_C(1) << 62)),
                    "deconv2d: stride 4611686018427387904, kernel 3 and "
                    "pad 0 make an output size from 4 beyond int64");
    EXPECT_ND_ERROR(F_deconv2d(x, Wd, NULL, .pad = pair(INT64_MIN / 2)),
                    "beyond int64");
    nd_release(Wd);
    EXPECT_ND_ERROR(layer_call(L_conv2d(2, pair(3)), x3), "(N, C, H, W)");
    EXPECT_ND_ERROR(L_conv2d(0, pair(3)), "must be positive");
    nd_release(b);
    nd_release(W2);
    nd_release(W);
    nd_release(x);
    nd_release(x3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_conv2d_values),
        STEP_TEST(test_conv2d_float32),
        STEP_TEST(test_deconv2d_values),
        STEP_TEST(test_pooling_values),
        STEP_TEST(test_im2col_col2im),
        STEP_TEST(test_conv2d_gradients),
        STEP_TEST(test_deconv2d_gradients),
        STEP_TEST(test_pooling_gradients),
        STEP_TEST(test_im2col_col2im_gradients),
        STEP_TEST(test_conv2d_grad_W_gradients),
        STEP_TEST(test_pooling_grad_gradients),
        STEP_TEST(test_conv2d_layer),
        STEP_TEST(test_conv2d_layer_save_load),
        STEP_TEST(test_bad_input),
    };
    return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
