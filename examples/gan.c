/* gan - a DCGAN on MNIST (Python: examples/gan.py).
 *
 * Two networks trained against each other: the generator turns 62
 * random numbers into a 28 x 28 picture (Linear, BatchNorm and ReLU,
 * then two transposed convolutions up from 7 x 7 to 14 x 14 to 28 x 28,
 * a sigmoid at the end); the discriminator, two convolutions and two
 * Linear layers with leaky ReLU, gives the probability that a picture
 * is a real digit. For each batch of 128 real digits the discriminator
 * learns to tell them from as many of the generator's (binary
 * cross-entropy against 1 and 0), then the generator learns to make
 * the discriminator answer 1; each has its Adam (alpha 0.0002, beta1
 * 0.5). Every 5th batch (100th on a GPU) prints the mean losses so far,
 * as Python does; at the end of each epoch the generator, in test mode,
 * draws 25 digits from the same 25 random inputs into gan_E.png, a
 * 5 x 5 grid (Python: plt.imshow in 25 subplots, on screen). The models
 * and the loader move to the GPU where one can be used, as in Python;
 * elsewhere the program says why and trains on the CPU.
 * DEZERO_EPOCHS (5), DEZERO_BATCH_SIZE (128) and DEZERO_INTERVAL (5,
 * or 100 on a GPU) change Python's constants, and DEZERO_FC_SIZE the
 * 1024 outputs of the first Linear layer of each network, 13 million
 * of the 14 million weights (the tests make them few); DEZERO_SEED=N
 * seeds the generator as np.random.seed(N) (unset: unseeded). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dezero.h"
#include "function_layer.h"
#include "options.h"
#include "picture.h"

enum { HIDDEN_SIZE = 62, FC_CHANNEL = 128, FC_HEIGHT = 7, FC_WIDTH = 7 };

/* Python: lambda x: F.reshape(x, (-1, fc_channel, fc_height, fc_width)) */
static Variable *to_feature_map(Variable *x)
{
    return F_reshape(x, ND_SHAPE(-1, FC_CHANNEL, FC_HEIGHT, FC_WIDTH));
}

/* Python: F.leaky_relu, with its default slope. */
static Variable *leaky_relu(Variable *x)
{
    return F_leaky_relu(x, 0.2);
}

/* Python: F.relu, F.sigmoid and F.flatten, as functions (their names
 * are macros that take a Variable or an array). */
static Variable *relu(Variable *x) { return F_relu(x); }
static Variable *sigmoid(Variable *x) { return F_sigmoid(x); }
static Variable *flatten(Variable *x) { return F_flatten(x); }

static Model *generator(int64_t fc_size)
{
    Conv2dOptions up = {.stride = pair(2), .pad = pair(1)};
    return sequential(
        L_linear(fc_size),
        L_batch_norm(),
        function_layer(relu),
        L_linear(FC_CHANNEL * FC_HEIGHT * FC_WIDTH),
        L_batch_norm(),
        function_layer(relu),
        function_layer(to_feature_map),         // (N, 128, 7, 7)
        deconv2d_layer(FC_CHANNEL / 2, pair(4), up),    // (N, 64, 14, 14)
        L_batch_norm(),
        function_layer(relu),
        deconv2d_layer(1, pair(4), up),         // (N, 1, 28, 28)
        function_layer(sigmoid));
}

static Model *discriminator(int64_t fc_size)
{
    Conv2dOptions down = {.stride = pair(2), .pad = pair(1)};
    return sequential(
        conv2d_layer(64, pair(4), down),        // (N, 64, 14, 14)
        function_layer(leaky_relu),
        conv2d_layer(128, pair(4), down),       // (N, 128, 7, 7)
        L_batch_norm(),
        function_layer(leaky_relu),
        function_layer(flatten),                // (N, 6272)
        L_linear(fc_size),
        L_batch_norm(),
        function_layer(leaky_relu),
        L_linear(1),
        function_layer(sigmoid));               // (N, 1)
}

/* The weight W of layer when it is a Linear, Conv2d or Deconv2d layer,
 * else NULL (Python: the class name test of init_weight). */
static Parameter *weight_of(Layer *layer)
{
    const char *name = layer->cls->name;
    if (strcmp(name, "Linear") == 0)
        return ((LinearLayer *)layer)->W;
    if (strcmp(name, "Conv2d") == 0 || strcmp(name, "Deconv2d") == 0)
        return ((Conv2dLayer *)layer)->W;
    return NULL;
}

/* Python's init_weight: a batch of one random input through both
 * networks makes their weights, then each W of the discriminator's
 * layers, then of the generator's, is drawn again as 0.02 times
 * np.random.randn of its shape. As in Python, that array is float64,
 * and the networks compute in float64 from then on (so do Python's). */
static void init_weight(Model *dis, Model *gen)
{
    Pool *pool = pool_new();
    NdArray *z = nd_random_rand(ND_SHAPE(1, HIDDEN_SIZE));
    Variable *fake_images = layer_call(gen, z);
    layer_call(dis, fake_images);
    nd_release(z);
    pool_drain(pool);

    Model *models[2] = {dis, gen};
    for (int m = 0; m < 2; m++)
        for (int i = 0; i < models[m]->nlayers; i++) {
            Parameter *W = weight_of(models[m]->layers[i]);
            if (!W)
                continue;
            Variable *w = &W->variable;
            NdArray *randn = nd_random_randn(w->data->ndim, w->data->shape);
            NdArray *scale = nd_scalar(0.02);
            nd_release(w->data);
            w->data = nd_mul(scale, randn);
            nd_release(scale);
            nd_release(randn);
        }
}

/* np.random.randn(rows, cols).astype(np.float32), on device. */
static NdArray *random_inputs(int64_t rows, int64_t cols, NdDevice device)
{
    NdArray *randn = nd_random_randn(ND_SHAPE(rows, cols));
    NdArray *z = nd_astype(randn, ND_FLOAT32);
    NdArray *moved = nd_to_device(z, device);
    nd_release(z);
    nd_release(randn);
    return moved;
}

/* Python's generate_image: the generator, in test mode, on test_z (25,
 * 62), its pictures tiled 5 x 5 into path. */
static bool generate_image(Model *gen, const NdArray *test_z,
                           const char *path)
{
    bool written;
    Pool *pool = pool_new();
    TEST_MODE NO_GRAD {
        Variable *fake_images = layer_call(gen, test_z);  // (25, 1, 28, 28)
        NdArray *img = as_numpy(fake_images->data);
        NdArray *grid = tile_images(img, 5, 5);             // (140, 140)
        written = write_gray_png(grid, path);
        nd_release(grid);
        nd_release(img);
    }
    pool_drain(pool);
    return written;
}

int main(void)
{
    nd_random_seed_from_env("DEZERO_SEED");
    Pool *pool = pool_new();
    bool use_gpu = gpu_enable();
    int max_epoch = (int)option_count("DEZERO_EPOCHS", 5, 1, 1000);
    int64_t batch_size = option_count("DEZERO_BATCH_SIZE", 128, 1, 60000);
    int64_t interval = option_count("DEZERO_INTERVAL", use_gpu ? 100 : 5,
                                    1, 1000000);
    int64_t fc_size = option_count("DEZERO_FC_SIZE", 1024, 1, 100000);

    Model *gen = generator(fc_size);
    Model *dis = discriminator(fc_size);
    init_weight(dis, gen);

    Optimizer *opt_g = optimizer_setup(adam(0.0002, 0.5, 0.999, 1e-8), gen);
    Optimizer *opt_d = optimizer_setup(adam(0.0002, 0.5, 0.999, 1e-8), dis);

    // Python: lambda x: (x / 255.0).astype(np.float32)
    Transform scale[] = {T_normalize(0, 255), T_to_float()};
    Dataset *train_set = mnist(true, .transform = T_compose(2, scale));
    DataLoader *train_loader = dataloader(train_set, batch_size, true);

    NdDevice device = ND_CPU;
    if (use_gpu) {
        layer_to_gpu(gen);
        layer_to_gpu(dis);
        dataloader_to_gpu(train_loader);
        device = ND_CUDA;
    } else {
        fprintf(stderr, "training on the CPU: %s\n", gpu_status());
    }

    NdArray *ones = nd_ones(ND_INT64, ND_SHAPE(batch_size));
    NdArray *zeros = nd_zeros(ND_INT64, ND_SHAPE(batch_size));
    NdArray *label_real = nd_to_device(ones, device);   // (128,)
    NdArray *label_fake = nd_to_device(zeros, device);  // (128,)
    nd_release(zeros);
    nd_release(ones);
    NdArray *test_z = random_inputs(25, HIDDEN_SIZE, device);   // (25, 62)

    bool drawn = true;
    for (int epoch = 0; epoch < max_epoch; epoch++) {
        double avg_loss_d = 0, avg_loss_g = 0;
        int64_t cnt = 0;
        NdArray *x, *t;             // (128, 1, 28, 28) float32, (128,)

        while (dataloader_next(train_loader, &x, &t)) {
            cnt++;
            if (t->shape[0] != batch_size) {
                nd_release(t);
                nd_release(x);
                continue;
            }
            Pool *iteration = pool_new();

            // (1) Update discriminator
            NdArray *z = random_inputs(batch_size, HIDDEN_SIZE, device);
            Variable *fake = layer_call(gen, z);
            Variable *y_real = layer_call(dis, x);          // (128, 1)
            Variable *y_fake = layer_call(dis, fake->data); // (128, 1)
            Variable *loss_d = F_add(
                F_binary_cross_entropy(y_real, label_real),
                F_binary_cross_entropy(y_fake, label_fake));
            layer_cleargrads(gen);
            layer_cleargrads(dis);
            backward(loss_d);
            optimizer_update(opt_d);

            // (2) Update generator
            y_fake = layer_call(dis, fake);
            Variable *loss_g = F_binary_cross_entropy(y_fake, label_real);
            layer_cleargrads(gen);
            layer_cleargrads(dis);
            backward(loss_g);
            optimizer_update(opt_g);

            // Print loss & visualize generator
            avg_loss_g += nd_item(loss_g->data);
            avg_loss_d += nd_item(loss_d->data);
            if (cnt % interval == 0) {
                double epoch_detail =
                    epoch + (double)cnt / (double)train_loader->max_iter;
                printf("epoch: %.2f, loss_g: %.4f, loss_d: %.4f\n",
                       epoch_detail, avg_loss_g / (double)cnt,
                       avg_loss_d / (double)cnt);
                fflush(stdout);
            }
            nd_release(z);
            pool_drain(iteration);
            nd_release(t);
            nd_release(x);
        }
        char path[32];
        snprintf(path, sizeof path, "gan_%d.png", epoch + 1);
        drawn = generate_image(gen, test_z, path) && drawn;
    }
    nd_release(test_z);
    nd_release(label_fake);
    nd_release(label_real);
    pool_drain(pool);
    return drawn ? EXIT_SUCCESS : EXIT_FAILURE;
}
