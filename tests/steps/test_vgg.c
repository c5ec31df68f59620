// FIRST_STEP: 58
/* test_vgg.c - step 58's VGG16 (models.c): its layers, named as
 * Python's attributes so that the keys of the pretrained file match,
 * their kinds and sizes; a forward pass on one small image, 3 x 32 x
 * 32, which the five poolings take down to 1 x 1, so that fc6 gets 512
 * inputs, against the same network computed layer by layer; dropout
 * only outside TEST_MODE; and a weights file that is not there. The
 * forward pass makes VGG16's 38 million weights (fc7 alone is 4096 x
 * 4096), about a second's work: the one test that calls it. Then
 * VGG16.preprocess on tiny pictures, compared with what Pillow and
 * NumPy made of them (tests/common/image_fixtures.h); and ImageNet's
 * class names read from the cache. */
#include "pool_fixture.h"
#include "scratch.h"

#include "class_names.h"
#include "common/image_fixtures.h"
#include "image.h"

static const char *const conv_names[13] = {
    "conv1_1", "conv1_2", "conv2_1", "conv2_2", "conv3_1", "conv3_2",
    "conv3_3", "conv4_1", "conv4_2", "conv4_3", "conv5_1", "conv5_2",
    "conv5_3",
};
static const int64_t conv_channels[13] = {
    64, 64, 128, 128, 256, 256, 256, 512, 512, 512, 512, 512, 512,
};

/* The sixteen layers in Python's order and names: thirteen 3 x 3
 * convolutions, stride 1, pad 1, then fc6, fc7, fc8; no weight made
 * before the first call, each bias made at once. */
static void test_layers(void **state)
{
    (void)state;
    Model *m = vgg16();
    assert_int_equal(m->nlayers, 16);
    assert_int_equal(m->nparams, 0);
    for (int i = 0; i < 13; i++) {
        assert_string_equal(m->layer_names[i], conv_names[i]);
        assert_string_equal(m->layers[i]->cls->name, "Conv2d");
        const Conv2dLayer *c = (const Conv2dLayer *)m->layers[i];
        assert_int_equal(c->out_channels, conv_channels[i]);
        assert_int_equal(c->kernel_size.h, 3);
        assert_int_equal(c->kernel_size.w, 3);
        assert_int_equal(c->stride.h, 1);
        assert_int_equal(c->stride.w, 1);
        assert_int_equal(c->pad.h, 1);
        assert_int_equal(c->pad.w, 1);
        assert_null(c->W->variable.data);
        assert_non_null(c->b);
        assert_int_equal(c->b->variable.data->shape[0], conv_channels[i]);
    }
    const char *fc_names[3] = {"fc6", "fc7", "fc8"};
    const int64_t fc_sizes[3] = {4096, 4096, 1000};
    for (int i = 0; i < 3; i++) {
        assert_string_equal(m->layer_names[13 + i], fc_names[i]);
        assert_string_equal(m->layers[13 + i]->cls->name, "Linear");
        const LinearLayer *l = (const LinearLayer *)m->layers[13 + i];
        assert_int_equal(l->out_size, fc_sizes[i]);
        assert_null(l->W->variable.data);
    }
}

/* The network by hand, from the model's own layers: the blocks of 2,
 * 2, 3, 3, 3 convolutions, each with ReLU, each block ended by a 2 x 2
 * pooling of stride 2; then fc6, fc7 with ReLU, fc8 (no dropout: the
 * model runs in TEST_MODE). */
static Variable *by_hand(Model *m, Variable *x)
{
    const int blocks[5] = {2, 2, 3, 3, 3};
    int next = 0;
    for (int b = 0; b < 5; b++) {
        for (int i = 0; i < blocks[b]; i++) {
            const Conv2dLayer *c = (const Conv2dLayer *)m->layers[next++];
            x = F_relu(F_conv2d(x, c->W, c->b, .pad = pair(1)));
        }
        x = F_pooling(x, pair(2), .stride = pair(2));
    }
    x = F_reshape(x, ND_SHAPE(1, -1));
    for (int i = 0; i < 3; i++) {
        const LinearLayer *l = (const LinearLayer *)m->layers[next++];
        x = F_linear(x, l->W, l->b);
        if (i < 2)
            x = F_relu(x);
    }
    return x;
}

/* One 3 x 32 x 32 image: (1, 1000) scores, as the layers compute them
 * one after the other; the weights made at the call, as Python's (W of
 * conv1_1 (64, 3, 3, 3), of fc6 (512, 4096): 512 channels of 1 x 1);
 * in TEST_MODE the same scores twice, in training dropout changes
 * them. */
static void test_forward(void **state)
{
    (void)state;
    nd_random_seed(0);
    Model *m = vgg16();
    NdArray *image = nd_random_rand(ND_SHAPE(1, 3, 32, 32));
    NdArray *x = nd_astype(image, ND_FLOAT32);
    Variable *y = NULL, *again = NULL;
    TEST_MODE {
        y = layer_call(m, x);
        again = layer_call(m, x);
    }
    const int64_t want_y[2] = {1, 1000};
    assert_int_equal(variable_ndim(y), 2);
    assert_memory_equal(variable_shape(y), want_y, sizeof want_y);
    assert_int_equal(variable_dtype(y), ND_FLOAT32);
    assert_true(nd_array_equal(y->data, again->data));

    const int64_t want_conv1[4] = {64, 3, 3, 3};
    const Conv2dLayer *c1 = (const Conv2dLayer *)m->layers[0];
    assert_memory_equal(c1->W->variable.data->shape, want_conv1,
                        sizeof want_conv1);
    const int64_t want_fc6[2] = {512, 4096};
    const LinearLayer *fc6 = (const LinearLayer *)m->layers[13];
    assert_memory_equal(fc6->W->variable.data->shape, want_fc6,
                        sizeof want_fc6);
    assert_int_equal(m->nparams, 0);            /* all in its layers */

    Variable *want = by_hand(m, as_variable(x));
    assert_true(nd_allclose(y->data, want->data, 1e-5, 1e-6));

    Variable *trained = layer_call(m, x);       /* dropout drops */
    assert_false(nd_array_equal(trained->data, y->data));
    nd_release(x);
    nd_release(image);
}

/* A weights file that is not there stops with an error naming it. */
static void test_missing_weights(void **state)
{
    (void)state;
    EXPECT_ND_ERROR(vgg16(.pretrained = "/nonexistent/vgg16.npz"),
                    "/nonexistent/vgg16.npz");
}

/* ---- VGG16.preprocess */

/* The picture of size bytes at data, written to name in the scratch
 * folder and read back: a new (H, W, 3) uint8 array. */
static NdArray *read_fixture(const char *name, const void *data,
                             size_t size)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    return nd_image_read(path);
}

/* Asserts that x is a (3, h, w) float32 array holding want's n values. */
static void expect_chw(const NdArray *x, int64_t h, int64_t w,
                       const float *want, size_t n)
{
    assert_int_equal(x->dtype, ND_FLOAT32);
    assert_int_equal(x->ndim, 3);
    assert_int_equal(x->shape[0], 3);
    assert_int_equal(x->shape[1], h);
    assert_int_equal(x->shape[2], w);
    assert_int_equal((size_t)x->size, n);
    const float *got = x->data;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("element %zu is %.9g, NumPy gives %.9g", i, got[i],
                     want[i]);
}

/* Python's VGG16.preprocess(Image.open(file), size) exactly: a JPEG
 * resized to 3 x 4, and a PNG kept at its size (size=None). */
static void test_preprocess(void **state)
{
    (void)state;
    NdArray *a = read_fixture("a.jpg", fixture_jpg, sizeof fixture_jpg);
    NdArray *x = vgg16_preprocess(a, 3, 4);         // (3, 4, 3)
    expect_chw(x, 4, 3, fixture_jpg_vgg, 36);
    nd_release(x);
    nd_release(a);
    a = read_fixture("a.png", fixture_png, sizeof fixture_png);
    x = vgg16_preprocess(a, 0, 0);                  // (3, 4, 5)
    expect_chw(x, 4, 5, fixture_png_vgg_unresized, 60);
    nd_release(x);
    nd_release(a);
}

/* Anything but an RGB picture is refused, with what it takes. */
static void test_preprocess_misuse(void **state)
{
    (void)state;
    NdArray *f = nd_zeros(ND_FLOAT32, ND_SHAPE(4, 5, 3));
    EXPECT_ND_ERROR(vgg16_preprocess(f, 2, 2), "vgg16_preprocess: takes "
                    "a (H, W, 3) uint8 host array");
    NdArray *grey = nd_zeros(ND_UINT8, ND_SHAPE(4, 5));
    EXPECT_ND_ERROR(vgg16_preprocess(grey, 0, 0), "vgg16_preprocess: "
                    "takes a (H, W, 3) uint8 host array");
    nd_release(grey);
    nd_release(f);
}

/* ---- ImageNet.labels() */

/* The class names from the cache, parsed; without the file and offline,
 * the error names it and where to save it. */
static void test_imagenet_labels(void **state)
{
    (void)state;
    setenv("DEZERO_CACHE_DIR", scratch, 1);
    setenv("DEZERO_OFFLINE", "1", 1);           /* never the network */
    EXPECT_ND_ERROR(imagenet_labels(&(int){0}),
                    "/imagenet1000_clsidx_to_labels.txt");
    char path[256];
    snprintf(path, sizeof path, "%s/imagenet1000_clsidx_to_labels.txt",
             scratch);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{0: 'tench, Tinca tinca',\n 1: \"carpenter's kit\",\n"
          " 2: 'zebra'}\n", f);
    assert_int_equal(fclose(f), 0);
    int count;
    char **names = imagenet_labels(&count);
    unsetenv("DEZERO_OFFLINE");
    unsetenv("DEZERO_CACHE_DIR");
    assert_int_equal(count, 3);
    assert_string_equal(names[0], "tench, Tinca tinca");
    assert_string_equal(names[1], "carpenter's kit");
    assert_string_equal(names[2], "zebra");
    nd_free_class_names(names, count);
    assert_int_equal(remove(path), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_layers),
        STEP_TEST(test_forward),
        STEP_TEST(test_missing_weights),
        STEP_TEST(test_preprocess),
        STEP_TEST(test_preprocess_misuse),
        STEP_TEST(test_imagenet_labels),
    };
    return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
