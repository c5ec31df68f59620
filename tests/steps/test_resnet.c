// FIRST_STEP: 60
/* test_resnet.c - the final package's Deconv2d layer (layers.c): its
 * filters, (C, OC, KH, KW), made at the first call from NumPy's draws
 * for a seed, its output against Python's, its gradients, and a save
 * and load; and ResNet (models.c): ResNet50's layers, named as Python's
 * attributes, one forward pass on a 3 x 32 x 32 image against Python's
 * scores for a seed (its 25.6 million weights: about a second, the one
 * test that makes them), its keys and shapes, the other depths, and
 * the bottlenecks and a building block of few channels. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "grad_check.h"
#include "layer_keys.h"
#include "scratch.h"

/* ---- Deconv2d */

/* (1, 2, 3, 3) float32: i / 10 (Python: np.arange(18, dtype=np.float32)
 * / 10). */
static NdArray *tenths(void)
{
    NdArray *x = nd_empty(ND_FLOAT32, ND_SHAPE(1, 2, 3, 3));
    for (int64_t i = 0; i < x->size; i++)
        nd_set_flat(x, i, (double)(float)i / 10.0f);
    return x;
}

/* NumPy's DeZero: np.random.seed(0); l = L.Deconv2d(3, 2, stride=2,
 * pad=1); y = l(tenths()): W (2, 3, 2, 2) float32, its first four and
 * last values; y (1, 3, 4, 4), its sum and first three values. */
static const double py_W_head[4] = {
    0.623686671257019, 0.14147694408893585, 0.3460361361503601,
    0.7922753691673279,
};
static const double py_W_last = -0.2623949646949768;
static const double py_y_sum = 6.042329788208008;
static const double py_y_head[3] = {
    0.1061745211482048, 0.19153296947479248, 0.19719922542572021,
};

/* No W before the first call, b at once; then W (C, OC, KH, KW) drawn
 * as Python draws it, and y = deconv2d(x, W, b) of Python's values. */
static void test_deconv2d_layer_lazy_W(void **state)
{
    (void)state;
    nd_random_seed(0);
    Layer *l = L_deconv2d(3, pair(2), .stride = pair(2), .pad = pair(1));
    Conv2dLayer *d = (Conv2dLayer *)l;
    assert_string_equal(l->cls->name, "Deconv2d");
    assert_null(d->W->variable.data);
    assert_non_null(d->b);
    assert_int_equal(d->b->variable.data->shape[0], 3);

    NdArray *x = tenths();                          // (1, 2, 3, 3)
    Variable *y = layer_call(l, x);                 // (1, 3, 4, 4)
    const NdArray *W = d->W->variable.data;         // (2, 3, 2, 2)
    assert_int_equal(d->in_channels, 2);
    assert_int_equal(W->dtype, ND_FLOAT32);
    const int64_t W_shape[4] = {2, 3, 2, 2};
    assert_int_equal(W->ndim, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(W->shape[i], W_shape[i]);
    for (int i = 0; i < 4; i++)
        assert_true(nd_get_flat(W, i) == (double)(float)py_W_head[i]);
    assert_true(nd_get_flat(W, W->size - 1) == (double)(float)py_W_last);

    const int64_t y_shape[4] = {1, 3, 4, 4};
    assert_int_equal(y->data->ndim, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(y->data->shape[i], y_shape[i]);
    assert_int_equal(y->data->dtype, ND_FLOAT32);
    double sum = 0;
    for (int64_t i = 0; i < y->data->size; i++)
        sum += nd_get_flat(y->data, i);
    assert_true(fabs(sum - py_y_sum) < 1e-5);
    for (int i = 0; i < 3; i++)
        assert_true(fabs(nd_get_flat(y->data, i) - py_y_head[i]) < 1e-6);
    nd_release(x);
}

/* With in_channels, W is made at once; the output size follows
 * get_deconv_outsize: (3 - 1) * 2 + 3 - 2 * 0 = 7. */
static void test_deconv2d_layer_in_channels(void **state)
{
    (void)state;
    Layer *l = L_deconv2d(4, pair(3), .stride = pair(2), .nobias = true,
                          .in_channels = 2);
    Conv2dLayer *d = (Conv2dLayer *)l;
    assert_non_null(d->W->variable.data);
    assert_null(d->b);
    assert_int_equal(l->nparams, 1);
    assert_int_equal(d->W->variable.data->shape[0], 2);
    assert_int_equal(d->W->variable.data->shape[1], 4);
    NdArray *x = nd_ones(ND_FLOAT32, ND_SHAPE(2, 2, 3, 3));
    Variable *y = layer_call(l, x);                 // (2, 4, 7, 7)
    const int64_t y_shape[4] = {2, 4, 7, 7};
    for (int i = 0; i < 4; i++)
        assert_int_equal(y->data->shape[i], y_shape[i]);
    nd_release(x);
}

/* The layer the gradient check calls: float64, its W made at once. */
static Layer *grad_layer;

static Variable *through_grad_layer(Variable *xs[])
{
    return layer_call(grad_layer, xs[0]);
}

/* dy/dx through the layer agrees with central differences; W and b get
 * the gradients F_deconv2d gives them on the same arrays. */
static void test_deconv2d_layer_gradients(void **state)
{
    (void)state;
    nd_random_seed(1);
    grad_layer = L_deconv2d(2, pair(3), .stride = pair(2), .pad = pair(1),
                            .dtype = ND_FLOAT64, .in_channels = 2);
    Conv2dLayer *d = (Conv2dLayer *)grad_layer;
    nd_set_flat(d->b->variable.data, 0, 0.5);        /* b (2,) */
    nd_set_flat(d->b->variable.data, 1, -0.25);
    NdArray *x = ramp(ND_SHAPE(1, 2, 2, 3), -0.6, 0.1);     // (1, 2, 2, 3)
    check_gradients("deconv2d layer", through_grad_layer, 1,
                    (NdArray *[]){x}, 1e-6);

    layer_cleargrads(grad_layer);
    Variable *y = layer_call(grad_layer, x);
    backward(F_sum(y, ND_ALL_AXES, false));
    Variable *W = variable(nd_copy(d->W->variable.data));
    Variable *b = variable(nd_copy(d->b->variable.data));
    Variable *want = F_deconv2d(x, W, b, .stride = pair(2), .pad = pair(1));
    backward(F_sum(want, ND_ALL_AXES, false));
    assert_true(nd_allclose(grad_array(&d->W->variable), grad_array(W),
                            1e-12, 1e-12));
    assert_true(nd_allclose(grad_array(&d->b->variable), grad_array(b),
                            1e-12, 1e-12));
    nd_release(x);
}

/* saved, after a call on x, written to file and read into fresh, not
 * yet called: every parameter the same, bit for bit, in the same
 * order, and the same output on x. */
static void expect_round_trip(Layer *saved, Layer *fresh, NdArray *x,
                              const char *file)
{
    Variable *want = layer_call(saved, x);
    const char *path = in_scratch(file);
    layer_save_weights(saved, path);
    layer_load_weights(fresh, path);
    expect_same_params(saved, fresh);
    assert_true(nd_array_equal(layer_call(fresh, x)->data, want->data));
}

/* Saved after its first call, loaded into a layer not yet called; a
 * file of Conv2d's filters, (OC, C, KH, KW), is refused, naming the
 * key. */
static void test_deconv2d_layer_save_load(void **state)
{
    (void)state;
    NdArray *x = tenths();                          // (1, 2, 3, 3)
    expect_round_trip(L_deconv2d(3, pair(2), .stride = pair(2)),
                      L_deconv2d(3, pair(2), .stride = pair(2)), x,
                      "deconv.npz");
    Layer *conv = L_conv2d(3, pair(2));
    layer_call(conv, x);                            /* W (3, 2, 2, 2) */
    const char *conv_path = in_scratch("conv_layout.npz");
    layer_save_weights(conv, conv_path);
    EXPECT_ND_ERROR(layer_load_weights(L_deconv2d(3, pair(2)), conv_path),
                    "W");
    nd_release(x);
}

/* Bad sizes and inputs stop with a message naming the layer. */
static void test_deconv2d_layer_bad_input(void **state)
{
    (void)state;
    EXPECT_ND_ERROR(L_deconv2d(0, pair(2)), "Deconv2d");
    EXPECT_ND_ERROR(L_deconv2d(2, pair(0)), "Deconv2d");
    NdArray *x3 = nd_zeros(ND_FLOAT32, ND_SHAPE(2, 3, 3));
    EXPECT_ND_ERROR(layer_call(L_deconv2d(2, pair(2)), x3), "Deconv2d");
    nd_release(x3);
}

/* ---- ResNet */

/* ResNet50's layers before the first call: conv1, bn1, res2 ... res5,
 * fc6, as Python's attributes; res4 of a and b1 ... b5; conv1 with a
 * bias, the bottlenecks' convolutions without; no weight made yet. */
static void test_resnet50_layers(void **state)
{
    (void)state;
    Model *m = resnet50();
    const char *names[7] = {"conv1", "bn1", "res2", "res3", "res4", "res5",
                            "fc6"};
    const int bottlenecks[4] = {3, 4, 6, 3};
    assert_string_equal(m->cls->name, "ResNet");
    assert_int_equal(m->nlayers, 7);
    for (int i = 0; i < 7; i++)
        assert_string_equal(m->layer_names[i], names[i]);
    const Conv2dLayer *conv1 = (const Conv2dLayer *)m->layers[0];
    assert_int_equal(conv1->out_channels, 64);
    assert_int_equal(conv1->kernel_size.h, 7);
    assert_int_equal(conv1->stride.h, 2);
    assert_int_equal(conv1->pad.h, 3);
    assert_non_null(conv1->b);
    assert_null(conv1->W->variable.data);
    for (int i = 0; i < 4; i++) {
        const Layer *block = m->layers[2 + i];
        assert_string_equal(block->cls->name, "BuildingBlock");
        assert_int_equal(block->nlayers, bottlenecks[i]);
        assert_string_equal(block->layer_names[0], "a");
        assert_string_equal(block->layers[0]->cls->name, "BottleneckA");
        assert_int_equal(block->layers[0]->nlayers, 8);
        for (int k = 1; k < bottlenecks[i]; k++) {
            char name[16];
            snprintf(name, sizeof name, "b%d", k);
            assert_string_equal(block->layer_names[k], name);
            assert_string_equal(block->layers[k]->cls->name,
                                "BottleneckB");
            assert_int_equal(block->layers[k]->nlayers, 6);
        }
    }
    /* res3/a: the stride 2 on conv1 (1 x 1) and conv4, MSRA's way */
    const Layer *res3a = m->layers[3]->layers[0];
    const char *in_a[8] = {"conv1", "bn1", "conv2", "bn2", "conv3", "bn3",
                           "conv4", "bn4"};
    const int64_t strides[4] = {2, 1, 1, 2}, kernels[4] = {1, 3, 1, 1};
    const int64_t channels[4] = {128, 128, 512, 512};
    for (int k = 0; k < 8; k++)
        assert_string_equal(res3a->layer_names[k], in_a[k]);
    for (int k = 0; k < 4; k++) {
        const Conv2dLayer *c = (const Conv2dLayer *)res3a->layers[2 * k];
        assert_int_equal(c->stride.h, strides[k]);
        assert_int_equal(c->kernel_size.h, kernels[k]);
        assert_int_equal(c->out_channels, channels[k]);
        assert_null(c->b);
        assert_string_equal(res3a->layers[2 * k + 1]->cls->name,
                            "BatchNorm");
    }
    /* 1 bias (conv1/b) and 1 (fc6/b) made at once; the rest later */
    KeyWalk w = {0};
    walk_keys(m, "", &w);
    assert_int_equal(w.nvalues, 64 + 1000);
}

/* NumPy's DeZero: np.random.seed(0); m = ResNet50(); x = np.sin(0.01 *
 * np.arange(3072) + 0.2).reshape(1, 3, 32, 32).astype(np.float32);
 * with test_mode(): y = m(x). y (1, 1000) float32: its sum, its first
 * four values and its last; 268 parameters of 25,610,216 values. */
static const double py_resnet_sum = 2.061094045639038;
static const double py_resnet_head[4] = {
    0.258940726518631, 0.4487386643886566, -0.005331516265869141,
    0.13284006714820862,
};
static const double py_resnet_last = 0.008357297629117966;

/* One forward pass of ResNet50 on a 3 x 32 x 32 image, which the
 * strides take down to 1 x 1 before the global pooling: its 25.6 million
 * weights drawn in Python's order, and Python's scores; then the
 * parameters' keys and shapes, as a pretrained file has them. */
static void test_resnet50_forward(void **state)
{
    (void)state;
    nd_random_seed(0);
    Model *m = resnet50();
    NdArray *x = nd_empty(ND_FLOAT32, ND_SHAPE(1, 3, 32, 32));
    for (int64_t i = 0; i < x->size; i++)
        nd_set_flat(x, i, (double)(float)sin(0.01 * (double)i + 0.2));
    Variable *y;
    TEST_MODE {
        y = layer_call(m, x);                       // (1, 1000)
    }
    assert_int_equal(y->data->dtype, ND_FLOAT32);
    assert_int_equal(y->data->ndim, 2);
    assert_int_equal(y->data->shape[0], 1);
    assert_int_equal(y->data->shape[1], 1000);
    double sum = 0;
    for (int64_t i = 0; i < y->data->size; i++)
        sum += nd_get_flat(y->data, i);
    assert_true(fabs(sum - py_resnet_sum) < 1e-3);
    for (int i = 0; i < 4; i++)
        assert_true(fabs(nd_get_flat(y->data, i) - py_resnet_head[i]) <
                    1e-4);
    assert_true(fabs(nd_get_flat(y->data, 999) - py_resnet_last) < 1e-4);

    KeyWalk w = {0};
    walk_keys(m, "", &w);
    assert_int_equal(w.nkeys, 268);
    assert_int_equal(w.nvalues, 25610216);
    expect_key_shape(m, "conv1/W", 4, 64, 3, 7, 7);
    expect_key_shape(m, "conv1/b", 1, 64);
    expect_key_shape(m, "bn1/gamma", 1, 64);
    expect_key_shape(m, "res2/a/conv4/W", 4, 256, 64, 1, 1);
    expect_key_shape(m, "res3/b3/conv2/W", 4, 128, 128, 3, 3);
    expect_key_shape(m, "res4/b5/bn3/avg_var", 1, 1024);
    expect_key_shape(m, "res5/b2/conv3/W", 4, 2048, 512, 1, 1);
    expect_key_shape(m, "fc6/W", 2, 2048, 1000);
    expect_key_shape(m, "fc6/b", 1, 1000);
    nd_release(x);
}

/* ResNet101 and ResNet152 differ in res3 and res4 only; another depth
 * and a weights file that is not there stop with an error. */
static void test_resnet_depths(void **state)
{
    (void)state;
    Model *m101 = resnet101(), *m152 = resnet152();
    const int want101[4] = {3, 4, 23, 3}, want152[4] = {3, 8, 36, 3};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(m101->layers[2 + i]->nlayers, want101[i]);
        assert_int_equal(m152->layers[2 + i]->nlayers, want152[i]);
    }
    EXPECT_ND_ERROR(resnet(34), "50, 101 or 152");
    EXPECT_ND_ERROR(resnet50(.pretrained = "/nonexistent/resnet50.npz"),
                    "/nonexistent/resnet50.npz");
}

/* Bottlenecks of few channels: BottleneckA's shape, with the stride on
 * conv1 or, with downsample_fb, on conv2; BottleneckB keeps x's; a
 * BuildingBlock of three saved and loaded into a fresh one, under the
 * keys a/conv1/W, ..., b2/bn3/gamma. */
static void test_bottlenecks(void **state)
{
    (void)state;
    NdArray *x = nd_empty(ND_FLOAT32, ND_SHAPE(2, 3, 5, 5));
    for (int64_t i = 0; i < x->size; i++)
        nd_set_flat(x, i, (double)(float)sin(0.3 * (double)i));
    for (int fb = 0; fb < 2; fb++) {
        Layer *a = bottleneck_a(2, 6, 2, fb);
        Variable *y = layer_call(a, x);             // (2, 6, 3, 3)
        const int64_t want[4] = {2, 6, 3, 3};
        for (int i = 0; i < 4; i++)
            assert_int_equal(y->data->shape[i], want[i]);
        const Conv2dLayer *conv1 = (const Conv2dLayer *)a->layers[0];
        const Conv2dLayer *conv2 = (const Conv2dLayer *)a->layers[2];
        assert_int_equal(conv1->stride.h, fb ? 1 : 2);
        assert_int_equal(conv2->stride.h, fb ? 2 : 1);
        for (int64_t i = 0; i < y->data->size; i++)
            assert_true(nd_get_flat(y->data, i) >= 0);     /* ReLU */
    }
    Layer *b = bottleneck_b(3, 2);
    Variable *yb = layer_call(b, x);                // (2, 3, 5, 5)
    for (int i = 0; i < 4; i++)
        assert_int_equal(yb->data->shape[i], x->shape[i]);

    Layer *block = building_block(3, 2, 4, 2, false);
    Variable *yblock = layer_call(block, x);        // (2, 4, 3, 3)
    assert_int_equal(yblock->data->shape[1], 4);
    Layer *fresh = building_block(3, 2, 4, 2, false);
    expect_round_trip(block, fresh, x, "block.npz");
    expect_key_shape(fresh, "a/conv4/W", 4, 4, 3, 1, 1);
    expect_key_shape(fresh, "b2/conv2/W", 4, 2, 2, 3, 3);
    expect_key_shape(fresh, "b2/bn3/gamma", 1, 4);
    EXPECT_ND_ERROR(building_block(0, 2, 4, 2, false), "building_block");
    EXPECT_ND_ERROR(bottleneck_b(3, 0), "bottleneck_b");
    nd_release(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_deconv2d_layer_lazy_W),
        STEP_TEST(test_deconv2d_layer_in_channels),
        STEP_TEST(test_deconv2d_layer_gradients),
        STEP_TEST(test_deconv2d_layer_save_load),
        STEP_TEST(test_deconv2d_layer_bad_input),
        STEP_TEST(test_resnet50_layers),
        STEP_TEST(test_resnet50_forward),
        STEP_TEST(test_resnet_depths),
        STEP_TEST(test_bottlenecks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
