// FIRST_STEP: 60
/* test_extras.c - the rest of the final package, which no step's
 * program calls (Python: the functions of dezero/functions.py beyond
 * the steps', L.EmbedID, L.BatchNorm and Sequential): expand_dims,
 * flatten, average, log_softmax, leaky_relu, max and min, the binary
 * cross-entropies, batch_norm in training and in test mode, embed_id,
 * and the layers and the model. Values against Python DeZero's, the
 * numbers written here (computed once with NumPy); every gradient
 * against central differences; bad input against its message. */
#include <math.h>

#include "grad_check.h"
#include "npz.h"
#include "scratch.h"

static void release_all(int n, NdArray *arrays[])
{
    for (int i = 0; i < n; i++)
        nd_release(arrays[i]);
}

/* sin(1.3 i + 0.5) 2 + 0.1 i for the i-th element: values without the
 * regular steps of a ramp, so that every column has a spread of its
 * own (the Python references use the same formula). */
static NdArray *wave(int ndim, const int64_t *shape)
{
    NdArray *a = nd_empty(ND_FLOAT64, ndim, shape);
    for (int64_t i = 0; i < a->size; i++)
        nd_set_flat(a, i, sin(1.3 * (double)i + 0.5) * 2 + 0.1 * (double)i);
    return a;
}

/* ---- expand_dims and flatten */

static Variable *expand_dims1(Variable *xs[])
{
    return F_expand_dims(xs[0], -1);
}

static Variable *flatten1(Variable *xs[])
{
    return F_flatten(xs[0]);
}

/* Python: F.expand_dims(x, 1) and F.expand_dims(x, -1) of a (2, 3) x
 * are both (2, 1, 3), by list.insert; F.flatten of (2, 1, 3) is (2, 3). */
static void test_expand_dims_flatten(void **state)
{
    (void)state;
    NdArray *x = ramp(ND_SHAPE(2, 3), -1, 0.4);
    Variable *y1 = F_expand_dims(x, 1), *y2 = F_expand_dims(x, -1);
    EXPECT_ARRAY(y1->data, ND_FLOAT64, ND_SHAPE(2, 1, 3), -1, -0.6,
                 -0.19999999999999996, 0.20000000000000018,
                 0.6000000000000001, 1);
    assert_int_equal(y2->data->ndim, 3);
    assert_int_equal(y2->data->shape[1], 1);
    assert_int_equal(F_expand_dims(x, 2)->data->shape[2], 1);
    assert_int_equal(F_expand_dims(x, -2)->data->shape[0], 1);
    Variable *flat = F_flatten(y1);
    assert_string_equal(flat->creator->cls->name, "Reshape");
    assert_true(nd_array_equal(flat->data, x));
    EXPECT_ND_ERROR(F_expand_dims(x, 3), "axis 3 is out of range");
    EXPECT_ND_ERROR(F_expand_dims(x, -3), "axis -3 is out of range");
    EXPECT_ND_ERROR(F_flatten(2.0), "0-d");
    check_gradients("expand_dims", expand_dims1, 1, &x, 1e-6);
    NdArray *x3 = ramp(ND_SHAPE(2, 2, 2), 0.5, 0.5);
    check_gradients("flatten", flatten1, 1, &x3, 1e-6);
    nd_release(x3);
    nd_release(x);
}

/* ---- average */

static Variable *average_axis0(Variable *xs[])
{
    return F_average(xs[0], ND_AXES(0), false);
}

static Variable *mean_all_keep(Variable *xs[])
{
    return F_mean(xs[0], ND_ALL_AXES, true);
}

static void test_average(void **state)
{
    (void)state;
    NdArray *x = ramp(ND_SHAPE(2, 3), -1, 0.4);
    EXPECT_ARRAY_CLOSE(F_average(x, ND_AXES(0), false)->data, ND_FLOAT64,
                       1e-12, ND_SHAPE(3), -0.3999999999999999,
                       5.551115123125783e-17, 0.4);
    EXPECT_NEAR(nd_item(F_mean(x, ND_ALL_AXES, true)->data),
                3.700743415417188e-17, 1e-16);
    assert_int_equal(F_mean(x, ND_ALL_AXES, true)->data->ndim, 2);
    NdArray *x32 = nd_astype(x, ND_FLOAT32);
    assert_int_equal(F_average(x32, ND_AXES(1), false)->data->dtype,
                     ND_FLOAT32);
    EXPECT_ND_ERROR(F_average(x, ND_AXES(2), false), "axis 2 is out of "
                    "range for an input of 2 axes");
    check_gradients("average axis 0", average_axis0, 1, &x, 1e-6);
    check_gradients("mean keepdims", mean_all_keep, 1, &x, 1e-6);
    nd_release(x32);
    nd_release(x);
}

/* ---- log_softmax */

static Variable *log_softmax1(Variable *xs[])
{
    return F_log_softmax(xs[0], 1);
}

static Variable *log_softmax0(Variable *xs[])
{
    return F_log_softmax(xs[0], 0);
}

static void test_log_softmax(void **state)
{
    (void)state;
    NdArray *x = ramp(ND_SHAPE(2, 3), -1, 0.4);
    Variable *y = F_log_softmax(x, 1);
    assert_string_equal(y->creator->cls->name, "LogSoftmax");
    EXPECT_ARRAY_CLOSE(y->data, ND_FLOAT64, 1e-14, ND_SHAPE(2, 3),
                       -1.551250513728494, -1.151250513728494,
                       -0.751250513728494, -1.551250513728494,
                       -1.151250513728494, -0.7512505137284942);
    EXPECT_ARRAY_CLOSE(F_log_softmax(x, 0)->data, ND_FLOAT64, 1e-14,
                       ND_SHAPE(2, 3), -1.4632824673380314,
                       -1.4632824673380311, -1.4632824673380311,
                       -0.26328246733803107, -0.26328246733803107,
                       -0.2632824673380312);
    /* finite where the softmax underflows: log p of -1000 beside 0 */
    Variable *far = F_log_softmax(variable(ramp(ND_SHAPE(1, 2), -1000,
                                                1000)), 1);
    EXPECT_ARRAY(far->data, ND_FLOAT64, ND_SHAPE(1, 2), -1000, 0);
    EXPECT_ND_ERROR(F_log_softmax(x, 2), "axis 2 is out of range");
    check_gradients("log_softmax axis 1", log_softmax1, 1, &x, 1e-6);
    check_gradients("log_softmax axis 0", log_softmax0, 1, &x, 1e-6);
    nd_release(x);
}

/* ---- leaky_relu */

static Variable *leaky_relu1(Variable *xs[])
{
    return F_leaky_relu(xs[0], 0.2);
}

static void test_leaky_relu(void **state)
{
    (void)state;
    NdArray *x = ramp(ND_SHAPE(2, 3), -1, 0.4);
    Variable *y = F_leaky_relu(x, 0.2);
    assert_string_equal(y->creator->cls->name, "LeakyReLU");
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SHAPE(2, 3), -0.2, -0.12,
                 -0.039999999999999994, 0.20000000000000018,
                 0.6000000000000001, 1);
    EXPECT_ARRAY(F_leaky_relu(x, 0.1)->data, ND_FLOAT64, ND_SHAPE(2, 3),
                 -0.1, -0.06, -0.019999999999999997, 0.20000000000000018,
                 0.6000000000000001, 1);
    NdArray *x32 = nd_astype(x, ND_FLOAT32);
    EXPECT_ARRAY(F_leaky_relu(x32, 0.2)->data, ND_FLOAT32, ND_SHAPE(2, 3),
                 -0.20000000298023224, -0.12000000476837158,
                 -0.04000000283122063, 0.20000000298023224,
                 0.6000000238418579, 1);
    /* the gradient's mask: 1 above 0, the slope at 0 and below */
    Variable *v = variable(ramp(ND_SHAPE(3), -1, 1));
    backward(F_leaky_relu(v, 0.2));
    EXPECT_ARRAY(grad_array(v), ND_FLOAT64, ND_SHAPE(3), 0.2, 0.2, 1);
    check_gradients("leaky_relu", leaky_relu1, 1, &x, 1e-6);
    nd_release(x32);
    nd_release(x);
}

/* ---- max and min */

static Variable *max_axis1(Variable *xs[])
{
    return F_max(xs[0], ND_AXES(1), false);
}

static Variable *max_last_keep(Variable *xs[])
{
    return F_max(xs[0], ND_AXES(-1), true);
}

static Variable *min_all(Variable *xs[])
{
    return F_min(xs[0], ND_ALL_AXES, false);
}

static Variable *min_axis0_keep(Variable *xs[])
{
    return F_min(xs[0], ND_AXES(0), true);
}

static void test_max_min(void **state)
{
    (void)state;
    NdArray *x = ramp(ND_SHAPE(2, 3), -1, 0.4);
    Variable *m = F_max(x, ND_AXES(1), false);
    assert_string_equal(m->creator->cls->name, "Max");
    EXPECT_ARRAY(m->data, ND_FLOAT64, ND_SHAPE(2), -0.19999999999999996, 1);
    Variable *n = F_min(x, ND_AXES(0), true);
    assert_string_equal(n->creator->cls->name, "Min");
    EXPECT_ARRAY(n->data, ND_FLOAT64, ND_SHAPE(1, 3), -1, -0.6,
                 -0.19999999999999996);
    /* ties: each of them gets the whole gradient, as in Python */
    Variable *t = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(2, 3),
        (const double[]){1, 3, 3, 2, 0, 2}));
    backward(F_max(t, ND_AXES(1), false));
    EXPECT_ARRAY(grad_array(t), ND_FLOAT64, ND_SHAPE(2, 3), 0, 1, 1, 1, 0,
                 1);
    cleargrad(t);
    backward(F_min(t, ND_ALL_AXES, false));
    EXPECT_ARRAY(grad_array(t), ND_FLOAT64, ND_SHAPE(2, 3), 0, 0, 0, 0, 1,
                 0);
    EXPECT_ND_ERROR(F_max(x, ND_AXES(2), false), "axis 2 is out of bounds");
    EXPECT_ND_ERROR(F_min(x, ND_AXES(-3), false), "axis -3 is out of "
                    "bounds");
    check_gradients("max axis 1", max_axis1, 1, &x, 1e-6);
    check_gradients("max axis -1 keepdims", max_last_keep, 1, &x, 1e-6);
    check_gradients("min", min_all, 1, &x, 1e-6);
    check_gradients("min axis 0 keepdims", min_axis0_keep, 1, &x, 1e-6);
    nd_release(x);
}

/* ---- sigmoid_cross_entropy and binary_cross_entropy */

static Variable *sce2(Variable *xs[])
{
    return F_sigmoid_cross_entropy(xs[0], xs[1]);
}

static Variable *bce2(Variable *xs[])
{
    return F_binary_cross_entropy(xs[0], xs[1]);
}

static void test_binary_cross_entropies(void **state)
{
    (void)state;
    /* x (3, 1) and int labels (3,), reshaped to x's shape */
    NdArray *x = ramp(ND_SHAPE(3, 1), -1, 0.8);
    NdArray *labels = nd_from_buffer(ND_INT64, ND_SHAPE(3),
                                     (const int64_t[]){0, 1, 1});
    Variable *sce = F_sigmoid_cross_entropy(x, labels);
    EXPECT_ARRAY_CLOSE(sce->data, ND_FLOAT64, 1e-14, ND_SCALAR_SHAPE,
                       0.5162961691285667);
    NdArray *p = ramp(ND_SHAPE(3), 0.2, 0.3);
    NdArray *t = ramp(ND_SHAPE(3), 0, 1);
    nd_set_flat(t, 2, 1);                               // 0, 1, 1
    EXPECT_ARRAY_CLOSE(F_binary_cross_entropy(p, t)->data, ND_FLOAT64,
                       1e-14, ND_SCALAR_SHAPE, 0.3798114277294549);
    /* p of exactly 0 and 1, wrong: clipped to 1e-15 and 0.999 */
    NdArray *ends = ramp(ND_SHAPE(2), 0, 1), *wrong = ramp(ND_SHAPE(2), 1,
                                                           -1);
    EXPECT_ARRAY_CLOSE(F_binary_cross_entropy(ends, wrong)->data,
                       ND_FLOAT64, 1e-12, ND_SCALAR_SHAPE,
                       20.72326583694641);
    /* both operands get gradients: float targets, to differentiate */
    NdArray *x_t[2] = {nd_copy(x), ramp(ND_SHAPE(3, 1), 0.1, 0.4)};
    check_gradients("sigmoid_cross_entropy", sce2, 2, x_t, 1e-6);
    NdArray *p_t[2] = {ramp(ND_SHAPE(2, 2), 0.1, 0.25),
                       ramp(ND_SHAPE(2, 2), 0.9, -0.3)};
    check_gradients("binary_cross_entropy", bce2, 2, p_t, 1e-6);
    release_all(2, p_t);
    release_all(2, x_t);
    nd_release(wrong);
    nd_release(ends);
    nd_release(t);
    nd_release(p);
    nd_release(labels);
    nd_release(x);
}

/* ---- batch_norm */

static NdArray *bn_mean, *bn_var;   /* the running statistics of the
                                     * gradient checks */

static Variable *batch_norm3(Variable *xs[])
{
    return F_batch_norm(xs[0], xs[1], xs[2], bn_mean, bn_var, 0.9, 2e-5);
}

/* Python: F.batch_nrom twice in training, the second with decay 0.5
 * and eps 1e-3 on 2 x, then in test mode: the outputs and the running
 * statistics after each. */
static void test_batch_norm_2d(void **state)
{
    (void)state;
    NdArray *x = wave(ND_SHAPE(4, 3));                  // (4, 3)
    NdArray *gamma = ramp(ND_SHAPE(3), 0.5, 0.25);
    NdArray *beta = ramp(ND_SHAPE(3), -0.1, 0.1);
    NdArray *mean = nd_zeros(ND_FLOAT64, ND_SHAPE(3));
    NdArray *var = nd_ones(ND_FLOAT64, ND_SHAPE(3));
    Variable *y = F_batch_norm(x, gamma, beta, mean, var, 0.9, 2e-5);
    assert_string_equal(y->creator->cls->name, "BatchNorm");
    EXPECT_ARRAY_CLOSE(y->data, ND_FLOAT64, 1e-12, ND_SHAPE(4, 3),
                       0.06357976306051136, 0.551743639973135,
                       -0.31429856185503213, -0.8225273846303882,
                       -1.0097168068045703, 0.7211004177899266,
                       0.5635148556809476, -0.41177679156063585,
                       -1.3112944386328755, -0.20456723411107075,
                       0.8697499583920711, 1.3044925826979807);
    EXPECT_ARRAY_CLOSE(mean, ND_FLOAT64, 1e-12, ND_SHAPE(3),
                       0.04858830081170765, 0.10763098668045991,
                       0.0895691537610509);
    EXPECT_ARRAY_CLOSE(var, ND_FLOAT64, 1e-12, ND_SHAPE(3),
                       1.1786628555824987, 1.1324688403166634,
                       1.1914492495025724);
    Variable *y2 = F_batch_norm(F_mul(x, 2), gamma, beta, mean, var, 0.5,
                                1e-3);
    EXPECT_ARRAY_CLOSE(y2->data, ND_FLOAT64, 1e-12, ND_SHAPE(4, 3),
                       0.0635707629660143, 0.5517072517192134,
                       -0.3142767672593382, -0.822487631456666,
                       -1.009650214588742, 0.7210677441730295,
                       0.5634783493534558, -0.4117496343133841,
                       -1.3112201960587344, -0.20456148086280404,
                       0.869692597182913, 1.3044292191450428);
    EXPECT_ARRAY_CLOSE(mean, ND_FLOAT64, 1e-12, ND_SHAPE(3),
                       0.5101771585229304, 1.1301253601448293,
                       0.9404761144910347);
    EXPECT_ARRAY_CLOSE(var, ND_FLOAT64, 1e-12, ND_SHAPE(3),
                       6.162588539441224, 5.215611226491601,
                       6.424709614802735);
    TEST_MODE {
        Variable *yt = F_batch_norm(x, gamma, beta, mean, var, 0.9, 2e-5);
        EXPECT_ARRAY_CLOSE(yt->data, ND_FLOAT64, 1e-12, ND_SHAPE(4, 3),
                           -0.009631195192377859, 0.30133320046108236,
                           -0.15932594938275815, -0.5256626801772288,
                           -0.6014699093094968, 0.4446148845176616,
                           0.28150994830616727, -0.25575375214874974,
                           -0.7408665275113572, -0.16578871350747498,
                           0.4851976677216999, 0.7849033699152017);
        /* test mode leaves the running statistics as they are */
        EXPECT_ARRAY_CLOSE(mean, ND_FLOAT64, 1e-12, ND_SHAPE(3),
                           0.5101771585229304, 1.1301253601448293,
                           0.9404761144910347);
        /* Python's backward fails on the inv_std of no training call;
         * this one says so. Called on the function alone: an error in
         * the middle of backward() would leave its work list behind. */
        Variable *gy = variable(nd_ones_like(yt->data)), *gxs[3] = {0};
        EXPECT_ND_ERROR(function_backward(yt->creator, &gy, gxs),
                        "test mode");
    }
    nd_release(var);
    nd_release(mean);
    nd_release(beta);
    nd_release(gamma);
    nd_release(x);
}

/* (N, C, H, W) is normalised per channel over N H W values. */
static void test_batch_norm_4d(void **state)
{
    (void)state;
    NdArray *x = wave(ND_SHAPE(2, 2, 1, 2));
    NdArray *mean = nd_zeros(ND_FLOAT64, ND_SHAPE(2));
    NdArray *var = nd_ones(ND_FLOAT64, ND_SHAPE(2));
    NdArray *gamma = ramp(ND_SHAPE(2), 1, 0.5), *beta = ramp(ND_SHAPE(2),
                                                             0, 0.2);
    Variable *y = F_batch_norm(x, gamma, beta, mean, var, 0.9, 2e-5);
    EXPECT_ARRAY_CLOSE(y->data, ND_FLOAT64, 1e-12, ND_SHAPE(2, 2, 1, 2),
                       -0.065769639592959, 0.9437721115294386,
                       0.11985241618508222, -1.8760108911541618,
                       -1.6050749073903123, 0.7270724354538328,
                       2.364163005651865, 0.19199546931721465);
    EXPECT_ARRAY_CLOSE(mean, ND_FLOAT64, 1e-12, ND_SHAPE(2),
                       0.10297871128017747, 0.035891182053854394);
    EXPECT_ARRAY_CLOSE(var, ND_FLOAT64, 1e-12, ND_SHAPE(2),
                       1.0551008480894246, 1.167982862878557);
    nd_release(beta);
    nd_release(gamma);
    nd_release(var);
    nd_release(mean);
    nd_release(x);
}

static void test_batch_norm_gradients(void **state)
{
    (void)state;
    bn_mean = nd_zeros(ND_FLOAT64, ND_SHAPE(3));
    bn_var = nd_ones(ND_FLOAT64, ND_SHAPE(3));
    NdArray *a2[3] = {wave(ND_SHAPE(4, 3)), ramp(ND_SHAPE(3), 0.5, 0.25),
                      ramp(ND_SHAPE(3), -0.1, 0.1)};
    check_gradients("batch_norm (4, 3)", batch_norm3, 3, a2, 1e-5);
    NdArray *a4[3] = {wave(ND_SHAPE(2, 3, 2, 1)),
                      ramp(ND_SHAPE(3), 1, -0.3), ramp(ND_SHAPE(3), 0, 1)};
    check_gradients("batch_norm (2, 3, 2, 1)", batch_norm3, 3, a4, 1e-5);
    release_all(3, a4);
    release_all(3, a2);
    nd_release(bn_var);
    nd_release(bn_mean);
}

static void test_batch_norm_errors(void **state)
{
    (void)state;
    NdArray *c3 = nd_ones(ND_FLOAT64, ND_SHAPE(3));
    NdArray *c2 = nd_ones(ND_FLOAT64, ND_SHAPE(2));
    NdArray *x3d = wave(ND_SHAPE(2, 3, 2)), *x = wave(ND_SHAPE(2, 3));
    EXPECT_ND_ERROR(F_batch_norm(x3d, c3, c3, c3, c3, 0.9, 2e-5),
                    "x has 3 axes");
    EXPECT_ND_ERROR(F_batch_norm(x, c2, c3, c3, c3, 0.9, 2e-5),
                    "gamma must be (3,)");
    EXPECT_ND_ERROR(F_batch_norm(x, c3, c3, c3, c2, 0.9, 2e-5),
                    "var must be (3,)");
    EXPECT_ND_ERROR(F_batch_norm(x, c3, c3, NULL, c3, 0.9, 2e-5),
                    "not NULL");
    EXPECT_ND_ERROR(layer_call(L_batch_norm(), c3), "BatchNorm takes");
    nd_release(x);
    nd_release(x3d);
    nd_release(c2);
    nd_release(c3);
}

/* L.BatchNorm on float32: its statistics made as float32 at the first
 * call, updated in training, used in test mode; saved with the
 * weights, never given a gradient, so an optimizer leaves them. */
static void test_batch_norm_layer(void **state)
{
    (void)state;
    NdArray *x64 = wave(ND_SHAPE(3, 2));
    NdArray *x = nd_astype(x64, ND_FLOAT32);            // (3, 2)
    Layer *layer = L_batch_norm();
    BatchNormLayer *bn = (BatchNormLayer *)layer;
    assert_int_equal(layer->nparams, 4);
    assert_string_equal(layer->params[0]->variable.name, "avg_mean");
    assert_string_equal(layer->params[3]->variable.name, "beta");
    assert_null(bn->gamma->variable.data);
    Variable *y = layer_call(layer, x);
    EXPECT_ARRAY_CLOSE(y->data, ND_FLOAT32, 1e-6, ND_SHAPE(3, 2),
                       1.1422070264816284, 0.7759785056114197,
                       0.15101692080497742, -1.411894679069519,
                       -1.2932238578796387, 0.635915994644165);
    EXPECT_ARRAY_CLOSE(bn->avg_mean->variable.data, ND_FLOAT32, 1e-6,
                       ND_SHAPE(2), 0.01802137680351734,
                       0.07528214901685715);
    EXPECT_ARRAY_CLOSE(bn->avg_var->variable.data, ND_FLOAT32, 1e-6,
                       ND_SHAPE(2), 0.9697032570838928,
                       1.3176798820495605);
    backward(F_sum(y, ND_ALL_AXES, false));
    assert_null(bn->avg_mean->variable.grad);
    assert_non_null(bn->gamma->variable.grad);
    NdArray *before = nd_copy(bn->avg_var->variable.data);
    optimizer_update(optimizer_setup(sgd(0.1), layer));
    assert_true(nd_array_equal(bn->avg_var->variable.data, before));
    TEST_MODE {
        Variable *yt = layer_call(layer, x);
        /* after the SGD step: beta -0.3 (its gradient is N = 3),
         * gamma still 1 (the sum of xc is 0) */
        EXPECT_ARRAY_CLOSE(yt->data, ND_FLOAT32, 1e-5, ND_SHAPE(3, 2),
                           0.6554040908813477, 1.4182629585266113,
                           -0.03075277805328369, -1.762209415435791,
                           -1.0305366516113281, 1.2146565914154053);
    }
    nd_release(before);
    nd_release(x);
    nd_release(x64);
}

/* ---- embed_id */

static NdArray *embed_ids;          /* the ids of the gradient check */

static Variable *embed_id1(Variable *xs[])
{
    return F_embed_id(embed_ids, xs[0]);
}

static void test_embed_id(void **state)
{
    (void)state;
    Variable *W = variable(ramp(ND_SHAPE(4, 3), 0, 1));
    NdArray *ids = nd_from_buffer(ND_INT64, ND_SHAPE(2, 2),
                                  (const int64_t[]){0, 2, 2, 3});
    Variable *y = F_embed_id(ids, W);
    EXPECT_ARRAY(y->data, ND_FLOAT64, ND_SHAPE(2, 2, 3), 0, 1, 2, 6, 7, 8,
                 6, 7, 8, 9, 10, 11);
    backward(y);
    /* row 2 picked twice gets the gradient twice, row 1 none */
    EXPECT_ARRAY(grad_array(W), ND_FLOAT64, ND_SHAPE(4, 3), 1, 1, 1, 0, 0,
                 0, 2, 2, 2, 1, 1, 1);
    EXPECT_ARRAY(F_embed_id(3, W)->data, ND_FLOAT64, ND_SHAPE(3), 9, 10,
                 11);
    EXPECT_ND_ERROR(F_embed_id(4, W), "out of bounds");
    EXPECT_ND_ERROR(F_embed_id(1.0, W), "the ids must be integers");
    EXPECT_ND_ERROR(F_embed_id(ids, 1.0), "W is 0-d");
    embed_ids = nd_from_buffer(ND_INT64, ND_SHAPE(3),
                               (const int64_t[]){1, 3, 1});
    NdArray *w = ramp(ND_SHAPE(4, 2), -1, 0.3);
    check_gradients("embed_id", embed_id1, 1, &w, 1e-6);
    nd_release(w);
    nd_release(embed_ids);
    nd_release(ids);
}

/* L.EmbedID(4, 3) after np.random.seed(0): W is randn(4, 3), float64. */
static void test_embed_id_layer(void **state)
{
    (void)state;
    nd_random_seed(0);
    Layer *layer = L_embed_id(4, 3);
    const NdArray *W = ((EmbedIDLayer *)layer)->W->variable.data;
    EXPECT_ARRAY(W, ND_FLOAT64, ND_SHAPE(4, 3), 1.764052345967664,
                 0.4001572083672233, 0.9787379841057392, 2.240893199201458,
                 1.8675579901499675, -0.977277879876411, 0.9500884175255894,
                 -0.1513572082976979, -0.10321885179355784,
                 0.41059850193837233, 0.144043571160878, 1.454273506962975);
    NdArray *ids = nd_from_buffer(ND_INT64, ND_SHAPE(3),
                                  (const int64_t[]){3, 1, 3});
    EXPECT_ARRAY(layer_call(layer, ids)->data, ND_FLOAT64, ND_SHAPE(3, 3),
                 0.41059850193837233, 0.144043571160878, 1.454273506962975,
                 2.240893199201458, 1.8675579901499675, -0.977277879876411,
                 0.41059850193837233, 0.144043571160878, 1.454273506962975);
    EXPECT_ND_ERROR(L_embed_id(0, 3), "sizes must be positive");
    nd_release(ids);
}

/* ---- Sequential */

/* Python, after np.random.seed(0): Sequential(L.Linear(3),
 * L.BatchNorm(), L.Linear(2)) on a (4, 2) x. */
static void test_sequential(void **state)
{
    (void)state;
    nd_random_seed(0);
    Model *model = sequential(L_linear(3), L_batch_norm(), L_linear(2));
    assert_int_equal(model->nlayers, 3);
    assert_string_equal(model->layer_names[0], "l0");
    assert_string_equal(model->layer_names[2], "l2");
    NdArray *x = wave(ND_SHAPE(4, 2));
    Variable *y = layer_call(model, x);
    EXPECT_ARRAY_CLOSE(y->data, ND_FLOAT64, 1e-6, ND_SHAPE(4, 2),
                       0.42702292721737123, -0.35237771359918246,
                       -0.7185685231020255, 0.5302912180738311,
                       -0.13572250257093205, -0.9792264245085415,
                       0.4272680984555866, 0.8013129200338928);
    const BatchNormLayer *bn = (const BatchNormLayer *)model->layers[1];
    EXPECT_ARRAY_CLOSE(bn->avg_mean->variable.data, ND_FLOAT64, 1e-6,
                       ND_SHAPE(3), 0.1952218328206896,
                       0.10699285890775136, 0.0058664837588498706);
    backward(y);
    int with_grad = 0;
    ParamIter it = layer_params(model);
    for (Parameter *p; (p = param_next(&it));)
        with_grad += p->variable.grad != NULL;
    assert_int_equal(with_grad, 6);     /* W, b of each Linear, gamma,
                                         * beta */
    /* no layers: x itself */
    Variable *v = variable(nd_copy(x));
    assert_ptr_equal(layer_call(sequential_model(0, NULL), v), v);
    EXPECT_ND_ERROR(sequential_model(1, (Layer *[]){NULL}), "layer 0 is "
                    "NULL");
    nd_release(x);
}

/* The running statistics are Parameters, so they are saved with the
 * weights, under l1/avg_mean and l1/avg_var as in Python, and a model
 * that loads them tests as the one that saved them. */
static void test_sequential_save_load(void **state)
{
    (void)state;
    nd_random_seed(0);
    Model *model = sequential(L_linear(3), L_batch_norm(), L_linear(2));
    NdArray *x = wave(ND_SHAPE(4, 2));
    layer_call(model, x);
    const char *path = in_scratch("sequential.npz");
    layer_save_weights(model, path);
    NdNpz *npz = nd_npz_open(path);
    int count;
    const char *const *keys = nd_npz_keys(npz, &count);
    assert_int_equal(count, 8);
    bool found = false;
    for (int i = 0; i < count; i++)
        found = found || strcmp(keys[i], "l1/avg_var") == 0;
    assert_true(found);
    nd_npz_close(npz);
    nd_random_seed(1);
    Model *copy = sequential(L_linear(3), L_batch_norm(), L_linear(2));
    layer_load_weights(copy, path);
    TEST_MODE {
        Variable *want = layer_call(model, x), *got = layer_call(copy, x);
        assert_true(nd_array_equal(got->data, want->data));
    }
    nd_release(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_expand_dims_flatten),
        STEP_TEST(test_average),
        STEP_TEST(test_log_softmax),
        STEP_TEST(test_leaky_relu),
        STEP_TEST(test_max_min),
        STEP_TEST(test_binary_cross_entropies),
        STEP_TEST(test_batch_norm_2d),
        STEP_TEST(test_batch_norm_4d),
        STEP_TEST(test_batch_norm_gradients),
        STEP_TEST(test_batch_norm_errors),
        STEP_TEST(test_batch_norm_layer),
        STEP_TEST(test_embed_id),
        STEP_TEST(test_embed_id_layer),
        STEP_TEST(test_sequential),
        STEP_TEST(test_sequential_save_load),
    };
    return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
