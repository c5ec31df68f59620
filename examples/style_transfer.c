/* style_transfer - a picture painted in the style of another (Python:
 * examples/style_transfer.py, Gatys et al.'s neural style transfer).
 *
 * VGG16's feature maps, with average pooling in place of max pooling
 * (Python: VGG16.extract), describe a picture: conv5_2's maps its
 * content, the Gram matrices (channel by channel products) of conv1_1,
 * conv2_1, conv3_1, conv4_1 and conv5_1 its style. The generated image
 * starts as the content picture (the zebra) and is itself the one
 * parameter AdaGrad (lr 5) updates, 2001 times, to lower a loss that
 * adds the content's (weight 1e-4), the style's (of Van Gogh's Starry
 * Night, weight 1) and the total variation's (1e-6, which keeps
 * neighbouring pixels alike). Each iteration prints the loss (each
 * 100th on a GPU); every 100th, and the last, draws the image, at the
 * content picture's size, into style_transfer.png (Python shows it
 * with plt.show). The model and the images move to the GPU where one
 * can be used, as in Python; elsewhere stderr says why not.
 *
 * VGG16's ImageNet weights come from the DeZero cache, as grad_cam's
 * do; DEZERO_RANDOM_WEIGHTS=1 runs on random weights of the real shapes
 * (DEZERO_SEED=N repeats them). DEZERO_CONTENT_IMAGE and
 * DEZERO_STYLE_IMAGE name other pictures; DEZERO_ITERATIONS (2001),
 * DEZERO_LR (5), DEZERO_INTERVAL (1, or 100 on a GPU) change Python's
 * constants, and DEZERO_SIZE (224) the side of model_input_size (a
 * multiple of 32; random weights only).
 *
 * Departures from Python: its loss loops over every layer its extract
 * returns, for the content and again for the style, where its
 * content_layers and style_layers name the ones meant; here only those
 * count (and conv5_3, which none of them is, is not computed). The loss
 * is printed as %.6g, not as a whole number, so that the small losses
 * of random weights show their fall. */
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"
#include "image.h"
#include "options.h"
#include "picture.h"
#include "vgg.h"

#define STYLE_URL \
    "https://raw.githubusercontent.com/jcjohnson/neural-style/master/" \
    "examples/inputs/starry_night_google.jpg"

enum { STYLE_LAYERS = 5, FEATURES = STYLE_LAYERS + 1 };
static const double content_weight = 1e-4, style_weight = 1.0,
                    total_variation_weight = 1e-6;

/* The outputs, after ReLU, of conv1_1, conv2_1, conv3_1, conv4_1,
 * conv5_1 (the style layers) and conv5_2 (the content layer) for x,
 * into features (Python: VGG16.extract, which returns them all). */
static void extract(Model *model, Variable *x, Variable *features[FEATURES])
{
    static const int block_layers[5] = {2, 2, 3, 3, 3};
    int next = 0;
    for (int block = 0; block < 5; block++) {
        for (int i = 0; i < block_layers[block]; i++) {
            x = F_relu(layer_call(model->layers[next++], x));
            if (i == 0)
                features[block] = x;            // (1, C, H, W)
            if (block == 4 && i == 1) {
                features[STYLE_LAYERS] = x;     // conv5_2
                return;
            }
        }
        x = F_average_pooling(x, pair(2), .stride = pair(2));
    }
}

/* The (1, C, C) products of x's C maps, x (1, C, H, W) (Python:
 * gram_mat). */
static Variable *gram_mat(Variable *x)
{
    const int64_t *s = variable_shape(x);
    Variable *features = F_reshape(x, ND_SHAPE(s[1], -1));  // (C, H W)
    Variable *gram = F_matmul_t(features, false, features, true);
    return F_reshape(gram, ND_SHAPE(1, s[1], s[1]));
}

static Variable *style_loss(Variable *style, Variable *comb)
{
    const int64_t *s = variable_shape(style);
    double chw = (double)(s[1] * s[2] * s[3]);
    return F_div(F_mean_squared_error(gram_mat(style), gram_mat(comb)),
                 4 * chw * chw);
}

static Variable *content_loss(Variable *base, Variable *comb)
{
    return F_div(F_mean_squared_error(base, comb), 2.0);
}

/* The squared differences of each pixel with the one below and the one
 * to the right (Python: total_varitaion_loss). */
static Variable *total_variation_loss(Variable *x)
{
    NdIndex all = ND_IDX_ALL, head = ND_IDX_SLICE(ND_NONE, -1, ND_NONE),
            tail = ND_IDX_SLICE(1, ND_NONE, ND_NONE);
    Variable *corner = variable_getitem(x, all, all, head, head);
    Variable *a = F_pow(F_sub(corner, variable_getitem(x, all, all, tail,
                                                       head)), 2);
    Variable *b = F_pow(F_sub(corner, variable_getitem(x, all, all, head,
                                                       tail)), 2);
    return F_sum(F_add(a, b), ND_ALL_AXES, false);
}

static Variable *loss_func(Variable *gen[FEATURES],
                           Variable *content[FEATURES],
                           Variable *style[FEATURES], Variable *gen_img)
{
    Variable *loss = F_mul(content_loss(content[STYLE_LAYERS],
                                        gen[STYLE_LAYERS]),
                           content_weight);
    for (int i = 0; i < STYLE_LAYERS; i++)
        loss = F_add(loss, F_mul(style_loss(style[i], gen[i]),
                                 style_weight / STYLE_LAYERS));
    return F_add(loss, F_mul(total_variation_loss(gen_img),
                             total_variation_weight));
}

/* x (1, 3, S, S), BGR minus ImageNet's mean, back to a picture: the
 * mean added, RGB, clipped to [0, 255], resized to width x height
 * (Python: deprocess_image). A new (height, width, 3) uint8 array. */
static NdArray *deprocess_image(const NdArray *x, int64_t width,
                                int64_t height)
{
    static const double mean_bgr[3] = {103.939, 116.779, 123.68};
    NdArray *host = nd_to_device(x, ND_CPU);
    NdArray *v = nd_astype(host, ND_FLOAT64);       // (1, 3, S, S)
    nd_release(host);
    int64_t h = x->shape[2], w = x->shape[3];
    NdArray *rgb = nd_empty(ND_UINT8, ND_SHAPE(h, w, 3));
    const double *src = ND_DATA(v, double);
    uint8_t *dst = ND_DATA(rgb, uint8_t);
    for (int c = 0; c < 3; c++)         /* B, G, R: channel 2 - c of RGB */
        for (int64_t i = 0; i < h * w; i++) {
            double p = src[c * h * w + i] + mean_bgr[c];
            dst[i * 3 + 2 - c] = (uint8_t)(p < 0 ? 0 : p > 255 ? 255 : p);
        }
    nd_release(v);
    NdArray *resized = nd_image_resize(rgb, width, height);
    nd_release(rgb);
    return resized;
}

/* A model whose one parameter is the image (Python: gen_model.param =
 * gen_img), for the optimizer. */
static const LayerClass image_class = {.name = "Model"};

int main(void)
{
    Pool *pool = pool_new();
    nd_random_seed_from_env("DEZERO_SEED");
    bool use_gpu = gpu_enable();
    int64_t size = option_count("DEZERO_SIZE", 224, 32, 1024);
    if (size % 32 != 0)
        nd_error("style_transfer", "DEZERO_SIZE=%lld: want a multiple of "
                 "32", (long long)size);
    int64_t iterations = option_count("DEZERO_ITERATIONS", 2001, 1,
                                      1000000);
    double lr = option_number("DEZERO_LR", 5.0, 0, 1e6);
    int64_t print_interval = option_count("DEZERO_INTERVAL",
                                          use_gpu ? 100 : 1, 1, 1000000);

    NdArray *content_pic = example_picture("DEZERO_CONTENT_IMAGE",
                                           ZEBRA_URL);   // (H, W, 3)
    NdArray *style_pic = example_picture("DEZERO_STYLE_IMAGE", STYLE_URL);
    int64_t content_h = content_pic->shape[0],
            content_w = content_pic->shape[1];
    NdArray *content_data = vgg16_preprocess(content_pic, size, size);
    NdArray *style_data = vgg16_preprocess(style_pic, size, size);
    nd_release(style_pic);
    nd_release(content_pic);
    Variable *content_img = variable(nd_expand_dims(content_data, 0));
    Variable *style_img = variable(nd_expand_dims(style_data, 0));
    nd_release(style_data);

    Model *model = example_vgg16("style_transfer", size);
    Parameter *gen_img = parameter(nd_expand_dims(content_data, 0),
                                   "param");         // (1, 3, S, S)
    nd_release(content_data);
    Model *gen_model = layer_new(&image_class, sizeof *gen_model);
    layer_add_param(gen_model, gen_img);
    Optimizer *optimizer = optimizer_setup(adagrad(lr, 1e-8), gen_model);

    if (use_gpu) {
        layer_to_gpu(model);
        layer_to_gpu(gen_model);
        variable_to_gpu(content_img);
        variable_to_gpu(style_img);
    } else {
        fprintf(stderr, "running on the CPU: %s\n", gpu_status());
    }

    Variable *content_features[FEATURES], *style_features[FEATURES];
    NO_GRAD {
        extract(model, content_img, content_features);
        extract(model, style_img, style_features);
    }

    bool drawn = true;
    for (int64_t i = 0; i < iterations; i++) {
        Pool *iteration = pool_new();
        layer_cleargrads(model);
        cleargrad(&gen_img->variable);

        Variable *gen_features[FEATURES];
        extract(model, &gen_img->variable, gen_features);
        Variable *loss = loss_func(gen_features, content_features,
                                   style_features, &gen_img->variable);
        backward(loss);
        optimizer_update(optimizer);

        if (i % print_interval == 0) {
            printf("%lld loss: %.6g\n", (long long)i, nd_item(loss->data));
            fflush(stdout);
        }
        if (i % 100 == 0 || i == iterations - 1) {
            NdArray *img = deprocess_image(gen_img->variable.data,
                                           content_w, content_h);
            drawn = write_rgb_png(img, "style_transfer.png") && drawn;
            nd_release(img);
        }
        pool_drain(iteration);
    }
    pool_drain(pool);
    return drawn ? EXIT_SUCCESS : EXIT_FAILURE;
}
