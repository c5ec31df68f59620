// FIRST_STEP: 60
/* test_resnet.c - the final package's Deconv2d layer (layers.c): its
 * filters, (C, OC, KH, KW), made at the first call from NumPy's draws
 * for a seed, its output against Python's, its gradients, and a save
 * and load; and ResNet (models.c). */
#include <math.h>

#include "grad_check.h"
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

/* Saved after its first call, loaded into a layer not yet called: the
 * same filters and bias, and the same output; filters of Conv2d's
 * layout, (OC, C, KH, KW), are refused, naming the key. */
static void test_deconv2d_layer_save_load(void **state)
{
    (void)state;
    NdArray *x = tenths();                          // (1, 2, 3, 3)
    Layer *saved = L_deconv2d(3, pair(2), .stride = pair(2));
    Variable *want = layer_call(saved, x);
    const char *path = in_scratch("deconv.npz");
    layer_save_weights(saved, path);

    Layer *fresh = L_deconv2d(3, pair(2), .stride = pair(2));
    layer_load_weights(fresh, path);
    Conv2dLayer *a = (Conv2dLayer *)saved, *b = (Conv2dLayer *)fresh;
    assert_true(nd_array_equal(a->W->variable.data, b->W->variable.data));
    assert_true(nd_array_equal(a->b->variable.data, b->b->variable.data));
    Variable *got = layer_call(fresh, x);
    assert_true(nd_array_equal(got->data, want->data));

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_deconv2d_layer_lazy_W),
        STEP_TEST(test_deconv2d_layer_in_channels),
        STEP_TEST(test_deconv2d_layer_gradients),
        STEP_TEST(test_deconv2d_layer_save_load),
        STEP_TEST(test_deconv2d_layer_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
