// FIRST_STEP: 60
/* test_squeezenet.c - the final package's F_concat (functions.c), which
 * Python's DeZero lacks: its values against nd_concatenate, its
 * gradients against central differences, bad pieces against their
 * messages; the Fire module (models.c): its layers, its output against
 * its three convolutions run one by one and joined, its gradients; and
 * SqueezeNet v1.1: its layers and 1,235,496 weights under their keys,
 * the shape after every stage of a 224 x 224 image, the smallest
 * image, a weights file saved and loaded back through .pretrained, bad
 * input, and a run on the GPU against the host's (skipped without
 * one). No published scores to compare with (Python's SqueezeNet is an
 * empty stub): the stages are checked against the model's own layers
 * run one by one. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "grad_check.h"
#include "layer_keys.h"
#include "scratch.h"

/* A float32 array of the shape holding sin(0.7 i + 0.3) / 2, values
 * of both signs without a ramp's regular steps. */
static NdArray *wave32(int ndim, const int64_t *shape)
{
    NdArray *a = nd_empty(ND_FLOAT32, ndim, shape);
    for (int64_t i = 0; i < a->size; i++)
        nd_set_flat(a, i, sin(0.7 * (double)i + 0.3) / 2);
    return a;
}

/* ---- concat */

/* Pieces (2, 1, 3), (2, 2, 3) and (2, 3, 3) joined along axis 1, and
 * as -2, are nd_concatenate's (2, 6, 3); one piece is itself; along
 * the last axis, (2, 3) and (2, 1) make (2, 4). */
static void test_concat_values(void **state)
{
    (void)state;
    NdArray *a = ramp(ND_SHAPE(2, 1, 3), 0, 1);
    NdArray *b = ramp(ND_SHAPE(2, 2, 3), 10, 1);
    NdArray *c = ramp(ND_SHAPE(2, 3, 3), 100, 1);
    NdArray *want = nd_concatenate(3, (NdArray *[]){a, b, c}, 1);
    Variable *xs[3] = {variable_of_array(a), variable_of_array(b),
                       variable_of_array(c)};
    Variable *y = F_concat(3, xs, 1);               // (2, 6, 3)
    assert_string_equal(y->creator->cls->name, "Concat");
    expect_shape(y->data, 3, 2, 6, 3);
    assert_true(nd_array_equal(y->data, want));
    assert_true(nd_array_equal(F_concat(3, xs, -2)->data, want));
    assert_true(nd_array_equal(F_concat(1, xs, 0)->data, a));

    NdArray *p = ramp(ND_SHAPE(2, 3), 0, 1), *q = ramp(ND_SHAPE(2, 1), 9, 1);
    Variable *pq = F_concat(2, (Variable *[]){variable_of_array(p),
                                              variable_of_array(q)}, -1);
    EXPECT_ARRAY(pq->data, ND_FLOAT64, ND_SHAPE(2, 4), 0, 1, 2, 9, 3, 4,
                 5, 10);
    nd_release(q);
    nd_release(p);
    nd_release(want);
    nd_release(c);
    nd_release(b);
    nd_release(a);
}

static Variable *concat_axis1(Variable *xs[])
{
    return F_concat(3, xs, 1);
}

static Variable *concat_last(Variable *xs[])
{
    return F_concat(2, xs, -1);
}

/* The square of the join, so that each piece's gradient depends on
 * where its values went. */
static Variable *concat_squared(Variable *xs[])
{
    Variable *y = F_concat(2, xs, 0);
    return F_mul(y, y);
}

/* Each piece's gradient, its slice of gy, against central differences,
 * along a middle axis, the last, and under a product; and a second
 * derivative through the GetItem of concat's backward. */
static void test_concat_gradients(void **state)
{
    (void)state;
    NdArray *three[3] = {ramp(ND_SHAPE(2, 1, 3), -1, 0.2),
                         ramp(ND_SHAPE(2, 2, 3), 0.5, -0.1),
                         ramp(ND_SHAPE(2, 3, 3), 0.3, 0.05)};
    check_gradients("concat axis 1", concat_axis1, 3, three, 1e-6);
    NdArray *two[2] = {ramp(ND_SHAPE(3, 2), -0.4, 0.3),
                       ramp(ND_SHAPE(3, 4), 0.2, -0.1)};
    check_gradients("concat axis -1", concat_last, 2, two, 1e-6);
    NdArray *rows[2] = {ramp(ND_SHAPE(1, 3), -0.4, 0.3),
                        ramp(ND_SHAPE(2, 3), 0.2, -0.1)};
    check_gradients("concat squared", concat_squared, 2, rows, 1e-6);

    /* d/dx of sum(concat(x, x)^3 ... ) = 6 x^2 per x; d2/dx2 = 12 x */
    Variable *x = variable(ramp(ND_SHAPE(2, 2), -1, 0.5));
    Variable *y = F_concat(2, (Variable *[]){x, x}, 1);   // (2, 4)
    y = F_sum(F_mul(F_mul(y, y), y), ND_ALL_AXES, false);
    backward(y, .create_graph = true);
    Variable *gx = x->grad;
    cleargrad(x);
    backward(F_sum(gx, ND_ALL_AXES, false));
    for (int64_t i = 0; i < 4; i++) {
        double v = nd_get_flat(x->data, i);
        assert_true(fabs(nd_get_flat(gx->data, i) - 6 * v * v) < 1e-12);
        assert_true(fabs(nd_get_flat(grad_array(x), i) - 12 * v) < 1e-12);
    }
    for (int i = 0; i < 3; i++)
        nd_release(three[i]);
    for (int i = 0; i < 2; i++) {
        nd_release(two[i]);
        nd_release(rows[i]);
    }
}

/* No pieces, a NULL one, 0-d pieces, an axis out of range, and pieces
 * that differ in axes, dtype or a size off the axis: an error naming
 * concat and what is wrong. */
static void test_concat_bad_input(void **state)
{
    (void)state;
    Variable *a = variable(nd_zeros(ND_FLOAT32, ND_SHAPE(2, 3)));
    Variable *b = variable(nd_zeros(ND_FLOAT32, ND_SHAPE(3, 3)));
    Variable *c = variable(nd_zeros(ND_FLOAT32, ND_SHAPE(2, 3, 1)));
    Variable *d = variable(nd_zeros(ND_FLOAT64, ND_SHAPE(2, 3)));
    Variable *scalar = variable_of_double(1.0);
    EXPECT_ND_ERROR(F_concat(0, (Variable *[]){a}, 0),
                    "concat: want at least one piece");
    EXPECT_ND_ERROR(F_concat(2, (Variable *[]){a, NULL}, 0),
                    "concat: piece 1 is NULL");
    EXPECT_ND_ERROR(F_concat(1, &scalar, 0), "concat: 0-d pieces");
    EXPECT_ND_ERROR(F_concat(2, (Variable *[]){a, a}, 2),
                    "concat: axis 2 is out of range");
    EXPECT_ND_ERROR(F_concat(2, (Variable *[]){a, a}, -3),
                    "concat: axis -3 is out of range");
    EXPECT_ND_ERROR(F_concat(2, (Variable *[]){a, c}, 0),
                    "concat: piece 1 has 3 axes, piece 0 has 2");
    EXPECT_ND_ERROR(F_concat(2, (Variable *[]){a, d}, 0),
                    "concat: piece 1 is float64, piece 0 is float32");
    EXPECT_ND_ERROR(F_concat(2, (Variable *[]){a, b}, 1),
                    "concat: piece 1 has 3 on axis 0, piece 0 has 2: only "
                    "axis 1 may differ");
    assert_int_equal(variable_shape(F_concat(2, (Variable *[]){a, b},
                                             0))[0], 5);
}

/* ---- the Fire module */

/* relu(conv2d(x, W, b)) of a Conv2d layer l's weights, pad as given,
 * without the layer, as an array of the innermost pool's Variable. */
static const NdArray *conv_relu(const Layer *l, const NdArray *x,
                                int64_t pad)
{
    const Conv2dLayer *c = (const Conv2dLayer *)l;
    return F_relu(F_conv2d(x, c->W, c->b, .pad = pair(pad)))->data;
}

/* Fire(6, 3, 4, 5): its layers squeeze, expand1x1, expand3x3 with
 * their shapes, drawn at once; on a (2, 6, 5, 4) x, an output (2, 9,
 * 5, 4) whose first 4 channels are relu(expand1x1(s)) and last 5
 * relu(expand3x3(s)), s = relu(squeeze(x)), each convolution run on
 * its own; all of it non-negative, some of it positive. */
static void test_fire_module_values(void **state)
{
    (void)state;
    nd_random_seed(3);
    Layer *fire = fire_module(6, 3, 4, 5);
    assert_string_equal(fire->cls->name, "Fire");
    const char *names[3] = {"squeeze", "expand1x1", "expand3x3"};
    const int64_t out[3] = {3, 4, 5}, in[3] = {6, 3, 3}, k[3] = {1, 1, 3};
    assert_int_equal(fire->nlayers, 3);
    for (int i = 0; i < 3; i++) {
        assert_string_equal(fire->layer_names[i], names[i]);
        const Conv2dLayer *c = (const Conv2dLayer *)fire->layers[i];
        expect_shape(c->W->variable.data, 4, out[i], in[i], k[i], k[i]);
        assert_int_equal(c->pad.h, i == 2 ? 1 : 0);
        assert_int_equal(c->stride.h, 1);
        /* a bias not zero, so that it shows in the output */
        for (int64_t j = 0; j < out[i]; j++)
            nd_set_flat(c->b->variable.data, j, 0.1 * (double)j - 0.15);
    }
    NdArray *x = wave32(ND_SHAPE(2, 6, 5, 4));
    Variable *y = layer_call(fire, x);              // (2, 9, 5, 4)
    expect_shape(y->data, 4, 2, 9, 5, 4);

    const NdArray *s = conv_relu(fire->layers[0], x, 0);    // (2, 3, 5, 4)
    NdArray *e[2] = {(NdArray *)conv_relu(fire->layers[1], s, 0),
                     (NdArray *)conv_relu(fire->layers[2], s, 1)};
    NdArray *want = nd_concatenate(2, e, 1);        // (2, 9, 5, 4)
    assert_true(nd_allclose(y->data, want, 1e-6, 1e-7));
    int positive = 0;
    for (int64_t i = 0; i < y->data->size; i++) {
        assert_true(nd_get_flat(y->data, i) >= 0);
        positive += nd_get_flat(y->data, i) > 0;
    }
    assert_true(positive > y->data->size / 4);
    nd_release(want);
    nd_release(x);
}

/* The layer the gradient check calls. */
static Layer *grad_fire;

static Variable *through_grad_fire(Variable *xs[])
{
    return layer_call(grad_fire, xs[0]);
}

/* Each parameter of layer as float64, for a gradient check. */
static void to_float64(Layer *layer)
{
    ParamIter it = layer_params(layer);
    for (Parameter *p; (p = param_next(&it));) {
        NdArray *d = nd_astype(p->variable.data, ND_FLOAT64);
        nd_release(p->variable.data);
        p->variable.data = d;
    }
}

/* A tiny Fire(2, 2, 2, 3) in float64: dy/dx against central
 * differences; and, for the loss sum(w y), each weight's gradient that
 * of a graph made by hand of copies of the weights, in which the join
 * is left out: sum(w y) = sum(w[:, :2] e1) + sum(w[:, 2:] e3). */
static void test_fire_module_gradients(void **state)
{
    (void)state;
    nd_random_seed(5);
    grad_fire = fire_module(2, 2, 2, 3);
    to_float64(grad_fire);
    /* biases of 0.4, so that most units are past ReLU's kink */
    ParamIter it = layer_params(grad_fire);
    for (Parameter *p; (p = param_next(&it));)
        if (strcmp(p->variable.name, "b") == 0)
            for (int64_t i = 0; i < p->variable.data->size; i++)
                nd_set_flat(p->variable.data, i, 0.4);
    NdArray *x = ramp(ND_SHAPE(1, 2, 3, 3), -0.8, 0.09);    // (1, 2, 3, 3)
    int positive = 0;
    NO_GRAD {
        const NdArray *y = layer_call(grad_fire, x)->data;  // (1, 5, 3, 3)
        for (int64_t i = 0; i < y->size; i++)
            positive += nd_get_flat(y, i) > 0;
    }
    assert_true(positive >= 40);
    check_gradients("fire module", through_grad_fire, 1, &x, 1e-6);

    layer_cleargrads(grad_fire);
    Variable *y = layer_call(grad_fire, x);         // (1, 5, 3, 3)
    NdArray *w = weights_like(y->data);
    backward(F_sum(F_mul(y, w), ND_ALL_AXES, false));
    Variable *W[3], *b[3];
    for (int i = 0; i < 3; i++) {
        const Conv2dLayer *c = (const Conv2dLayer *)grad_fire->layers[i];
        W[i] = variable(nd_copy(c->W->variable.data));
        b[i] = variable(nd_copy(c->b->variable.data));
    }
    Variable *s = F_relu(F_conv2d(x, W[0], b[0]));
    Variable *e1 = F_relu(F_conv2d(s, W[1], b[1]));
    Variable *e3 = F_relu(F_conv2d(s, W[2], b[2], .pad = pair(1)));
    NdArray *w1 = nd_getitem(w, 2, (NdIndex[]){ND_IDX_ALL,
                                               ND_IDX_SLICE(0, 2, 1)});
    NdArray *w3 = nd_getitem(w, 2, (NdIndex[]){ND_IDX_ALL,
                                               ND_IDX_SLICE(2, 5, 1)});
    backward(F_add(F_sum(F_mul(e1, w1), ND_ALL_AXES, false),
                   F_sum(F_mul(e3, w3), ND_ALL_AXES, false)));
    for (int i = 0; i < 3; i++) {
        const Conv2dLayer *c = (const Conv2dLayer *)grad_fire->layers[i];
        assert_true(nd_allclose(grad_array(&c->W->variable),
                                grad_array(W[i]), 1e-12, 1e-12));
        assert_true(nd_allclose(grad_array(&c->b->variable),
                                grad_array(b[i]), 1e-12, 1e-12));
    }
    nd_release(w3);
    nd_release(w1);
    nd_release(w);
    nd_release(x);
}

/* Bad sizes, and inputs of other channels or axes: an error naming
 * fire_module or Fire. */
static void test_fire_module_bad_input(void **state)
{
    (void)state;
    EXPECT_ND_ERROR(fire_module(0, 2, 2, 2), "fire_module: sizes must be "
                    "positive");
    EXPECT_ND_ERROR(fire_module(4, 2, 2, -1), "fire_module");
    Layer *fire = fire_module(4, 2, 2, 2);
    NdArray *x3 = nd_zeros(ND_FLOAT32, ND_SHAPE(3, 3, 3, 3));
    EXPECT_ND_ERROR(layer_call(fire, x3), "Fire: takes (N, 4, H, W) "
                    "images; got 3 channels");
    NdArray *flat = nd_zeros(ND_FLOAT32, ND_SHAPE(4, 9));
    EXPECT_ND_ERROR(layer_call(fire, flat), "Fire: takes (N, 4, H, W) "
                    "images; got an input of 2 axes");
    nd_release(flat);
    nd_release(x3);
}

/* ---- SqueezeNet */

/* SqueezeNet's layers: conv1, fire2 ... fire9, conv10; conv1 3 x 3 of
 * stride 2 and no padding; each Fire's squeeze taking the channels the
 * one before gives; 52 parameters of 1,235,496 values, torchvision's
 * squeezenet1_1's count, all drawn at once; another num_classes
 * changes conv10 only. */
static void test_squeezenet_layers(void **state)
{
    (void)state;
    Model *m = squeezenet();
    assert_string_equal(m->cls->name, "SqueezeNet");
    assert_int_equal(m->nlayers, 10);
    assert_string_equal(m->layer_names[0], "conv1");
    assert_string_equal(m->layer_names[9], "conv10");
    const Conv2dLayer *conv1 = (const Conv2dLayer *)m->layers[0];
    assert_int_equal(conv1->kernel_size.h, 3);
    assert_int_equal(conv1->stride.h, 2);
    assert_int_equal(conv1->pad.h, 0);
    int64_t channels = 64;              /* what the layer before gives */
    for (int i = 1; i <= 8; i++) {
        char name[16];
        snprintf(name, sizeof name, "fire%d", i + 1);
        assert_string_equal(m->layer_names[i], name);
        const Layer *fire = m->layers[i];
        assert_string_equal(fire->cls->name, "Fire");
        const NdArray *squeeze =
            ((const Conv2dLayer *)fire->layers[0])->W->variable.data;
        assert_int_equal(squeeze->shape[1], channels);
        channels = ((const Conv2dLayer *)fire->layers[1])->out_channels +
                   ((const Conv2dLayer *)fire->layers[2])->out_channels;
    }
    assert_int_equal(channels, 512);
    KeyWalk w = {0};
    walk_keys(m, "", &w);
    assert_int_equal(w.nkeys, 52);
    assert_int_equal(w.nvalues, 1235496);
    expect_key_shape(m, "conv1/W", 4, 64, 3, 3, 3);
    expect_key_shape(m, "conv1/b", 1, 64);
    expect_key_shape(m, "fire2/squeeze/W", 4, 16, 64, 1, 1);
    expect_key_shape(m, "fire3/squeeze/W", 4, 16, 128, 1, 1);
    expect_key_shape(m, "fire5/expand1x1/W", 4, 128, 32, 1, 1);
    expect_key_shape(m, "fire7/expand3x3/W", 4, 192, 48, 3, 3);
    expect_key_shape(m, "fire9/expand3x3/W", 4, 256, 64, 3, 3);
    expect_key_shape(m, "fire9/expand3x3/b", 1, 256);
    expect_key_shape(m, "conv10/W", 4, 1000, 512, 1, 1);
    Model *ten = squeezenet(.num_classes = 10);
    expect_key_shape(ten, "conv10/W", 4, 10, 512, 1, 1);
    expect_key_shape(ten, "conv10/b", 1, 10);
    EXPECT_ND_ERROR(squeezenet(.num_classes = -1),
                    "squeezenet: num_classes must be positive");
}

/* One stage of SqueezeNet as the test runs it: the model's layer at
 * index layer (relu after conv1 and conv10), or a 3 x 3 max pooling of
 * stride 2 (POOL); and the (1, channels, size, size) it gives for a
 * 224 x 224 image, torchvision's. */
enum { POOL = -1 };
static const struct {
    int layer, channels, size;
} squeezenet_stages[] = {
    {0, 64, 111},   {POOL, 64, 55},  {1, 128, 55},  {2, 128, 55},
    {POOL, 128, 27}, {3, 256, 27},   {4, 256, 27},  {POOL, 256, 13},
    {5, 384, 13},   {6, 384, 13},    {7, 512, 13},  {8, 512, 13},
    {9, 1000, 13},
};

/* A 224 x 224 image through the model's own layers one by one: conv1
 * (N, 64, 111, 111), pooled 55, fire2, fire3 (128), pooled 27, fire4,
 * fire5 (256), pooled 13, fire6 ... fire9 (384, 384, 512, 512), conv10
 * (1000, 13, 13); and its mean over each map the model's scores (1,
 * 1000) in test mode, all of them >= 0 (a ReLU comes before the mean),
 * and not all 0. */
static void test_squeezenet_stages_224(void **state)
{
    (void)state;
    nd_random_seed(0);
    Model *m = squeezenet();
    NdArray *x = wave32(ND_SHAPE(1, 3, 224, 224));
    Variable *y, *h = variable_of_array(x);
    TEST_MODE NO_GRAD {
        y = layer_call(m, x);                       // (1, 1000)
        for (size_t i = 0; i < sizeof squeezenet_stages /
                                   sizeof squeezenet_stages[0]; i++) {
            int layer = squeezenet_stages[i].layer;
            if (layer == POOL)
                h = F_pooling(h, pair(3), .stride = pair(2));
            else if (layer == 0 || layer == 9)
                h = F_relu(layer_call(m->layers[layer], h));
            else
                h = layer_call(m->layers[layer], h);
            expect_shape(h->data, 4, 1, squeezenet_stages[i].channels,
                         squeezenet_stages[i].size,
                         squeezenet_stages[i].size);
        }
    }
    expect_shape(y->data, 2, 1, 1000);
    NdArray *want = nd_mean(h->data, ND_AXES(2, 3), false);  // (1, 1000)
    assert_true(nd_allclose(y->data, want, 1e-5, 1e-7));
    int positive = 0;
    for (int64_t i = 0; i < y->data->size; i++) {
        assert_true(nd_get_flat(y->data, i) >= 0);
        positive += nd_get_flat(y->data, i) > 0;
    }
    assert_true(positive > 0);
    nd_release(want);
    nd_release(x);
}

/* The smallest image, 31 x 31, gives (N, 1000), in test mode and, with
 * its dropout, other scores in training; 30 x 31, or images of other
 * channels or axes, stop with an error naming SqueezeNet. */
static void test_squeezenet_smallest_and_bad_input(void **state)
{
    (void)state;
    nd_random_seed(1);
    Model *m = squeezenet();
    NdArray *x = wave32(ND_SHAPE(2, 3, 31, 31));
    Variable *test, *train;
    TEST_MODE {
        test = layer_call(m, x);                    // (2, 1000)
    }
    train = layer_call(m, x);
    expect_shape(test->data, 2, 2, 1000);
    expect_shape(train->data, 2, 2, 1000);
    assert_false(nd_array_equal(train->data, test->data));

    NdArray *small = nd_zeros(ND_FLOAT32, ND_SHAPE(1, 3, 30, 31));
    EXPECT_ND_ERROR(layer_call(m, small), "SqueezeNet: takes images of "
                    "at least 31 x 31, which its poolings leave 1 x 1; "
                    "got 30 x 31");
    NdArray *gray = nd_zeros(ND_FLOAT32, ND_SHAPE(1, 1, 31, 31));
    EXPECT_ND_ERROR(layer_call(m, gray), "SqueezeNet: takes (N, 3, H, W) "
                    "images; got 1 channels");
    NdArray *one = nd_zeros(ND_FLOAT32, ND_SHAPE(3, 31, 31));
    EXPECT_ND_ERROR(layer_call(m, one), "SqueezeNet: takes (N, 3, H, W) "
                    "images; got an input of 3 axes");
    nd_release(one);
    nd_release(gray);
    nd_release(small);
    nd_release(x);
}

/* A model's weights saved and loaded into a new one by .pretrained:
 * every parameter the same, bit for bit, and the same scores; a file
 * of 10 classes refused by a model of 1000, naming conv10's key; a
 * file that is not there refused, naming it. */
static void test_squeezenet_pretrained(void **state)
{
    (void)state;
    nd_random_seed(2);
    Model *saved = squeezenet(.num_classes = 10);
    const char *path = in_scratch("squeezenet10.npz");
    layer_save_weights(saved, path);
    nd_random_seed(7);
    Model *loaded = squeezenet(.num_classes = 10, .pretrained = path);
    expect_same_params(saved, loaded);
    NdArray *x = wave32(ND_SHAPE(1, 3, 33, 35));
    TEST_MODE NO_GRAD {
        Variable *want = layer_call(saved, x), *got = layer_call(loaded, x);
        expect_shape(got->data, 2, 1, 10);
        assert_true(nd_array_equal(got->data, want->data));
    }
    EXPECT_ND_ERROR(squeezenet(.pretrained = path), "conv10/W");
    EXPECT_ND_ERROR(squeezenet(.pretrained = "/nonexistent/squeeze.npz"),
                    "/nonexistent/squeeze.npz");
    nd_release(x);
}

/* a, moved to the host, against want, a host array of its shape: each
 * element within 1e-4 of want's largest in size, float32's roundings
 * summed in another order (cuBLAS), where a relative error of elements
 * near 0 would mean nothing. */
static void expect_close_on_host(const NdArray *a, const NdArray *want)
{
    NdArray *host = nd_to_device(a, ND_CPU);
    assert_int_equal(host->size, want->size);
    double largest = 0;
    for (int64_t i = 0; i < want->size; i++)
        largest = fmax(largest, fabs(nd_get_flat(want, i)));
    for (int64_t i = 0; i < want->size; i++)
        assert_true(fabs(nd_get_flat(host, i) - nd_get_flat(want, i)) <=
                    1e-4 * largest);
    nd_release(host);
}

/* On the GPU: the same weights (saved by a host model, loaded by one
 * moved to the GPU) give the host's scores for two 31 x 31 images, and
 * the same gradients of the images and of every weight, through
 * Concat's forward and its slices on the device. Skipped, saying why,
 * where the GPU cannot be used. */
static void test_on_the_gpu(void **state)
{
    (void)state;
    if (!gpu_enable()) {
        print_message("skipped: no GPU: %s\n", gpu_status());
        skip();
    }
    nd_random_seed(4);
    Model *host = squeezenet(.num_classes = 10);
    const char *path = in_scratch("squeezenet_gpu.npz");
    layer_save_weights(host, path);
    Model *gpu = squeezenet(.num_classes = 10, .pretrained = path);
    layer_to_gpu(gpu);
    NdArray *x = wave32(ND_SHAPE(2, 3, 31, 31));
    Variable *xh = variable(nd_copy(x));
    Variable *xg = variable(nd_to_device(x, ND_CUDA));
    TEST_MODE {
        Variable *yh = layer_call(host, xh), *yg = layer_call(gpu, xg);
        assert_int_equal(yg->data->device, ND_CUDA);
        expect_close_on_host(yg->data, yh->data);
        backward(F_sum(F_mul(yh, yh), ND_ALL_AXES, false));
        backward(F_sum(F_mul(yg, yg), ND_ALL_AXES, false));
    }
    expect_close_on_host(grad_array(xg), grad_array(xh));
    ParamIter ih = layer_params(host), ig = layer_params(gpu);
    for (Parameter *ph; (ph = param_next(&ih));) {
        Parameter *pg = param_next(&ig);
        expect_close_on_host(grad_array(&pg->variable),
                             grad_array(&ph->variable));
    }
    nd_release(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_concat_values),
        STEP_TEST(test_concat_gradients),
        STEP_TEST(test_concat_bad_input),
        STEP_TEST(test_fire_module_values),
        STEP_TEST(test_fire_module_gradients),
        STEP_TEST(test_fire_module_bad_input),
        STEP_TEST(test_squeezenet_layers),
        STEP_TEST(test_squeezenet_stages_224),
        STEP_TEST(test_squeezenet_smallest_and_bad_input),
        STEP_TEST(test_squeezenet_pretrained),
        STEP_TEST(test_on_the_gpu),
    };
    return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
