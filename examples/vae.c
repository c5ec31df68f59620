/* vae - a convolutional variational autoencoder on MNIST (Python:
 * examples/vae.py).
 *
 * The encoder, four convolutions and a Linear layer, maps a digit to
 * the mean and the log-variance of a normal distribution over a 2-D
 * latent space; a point z is drawn from it by the reparameterisation
 * trick, z = mean + exp(log_var) * epsilon (Python's formula, which
 * takes exp(log_var) where the textbook takes exp(log_var / 2)), and
 * the decoder, a Linear layer, a transposed convolution and a
 * convolution, draws a digit back from z. The loss is the reconstruction
 * error, a binary cross-entropy, plus the KL divergence of the encoder's
 * distribution from N(0, I): minus the ELBO. Adam learns it on shuffled
 * batches of 16 for 10 epochs; every 10th batch (100th on a GPU) prints
 * the mean loss so far, as Python does. At the end of each epoch the
 * decoder draws the latent space: 15 x 15 digits decoded from a grid of
 * points spread as the normal distribution's quantiles from 5% to 95%,
 * into vae_E.png (Python: plt.imshow, on screen). The model and the
 * loader move to the GPU where one can be used; elsewhere the program
 * says why. DEZERO_EPOCHS (10), DEZERO_BATCH_SIZE (16) and
 * DEZERO_INTERVAL (10, or 100 on a GPU) change Python's constants;
 * DEZERO_SEED=N seeds the generator as np.random.seed(N) (unset:
 * unseeded, as Python's script). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"
#include "options.h"
#include "picture.h"

enum { LATENT_SIZE = 2, DIGIT_SIZE = 28, GRID = 15 };

/* Python: class Encoder(Model). Its forward gives two Variables, which
 * C's layer_call cannot return: encode() is called instead. */
typedef struct Encoder {
    Layer layer;                /* first: an Encoder * is a Layer * */
    int64_t latent_size;
    Layer *conv1, *conv2, *conv3, *conv4;   /* borrowed: layer holds */
    Layer *linear1, *linear2, *linear3;     /* the references */
} Encoder;

static const LayerClass encoder_class = {.name = "Encoder"};

static Encoder *encoder(int64_t latent_size)
{
    Encoder *e = (Encoder *)layer_new(&encoder_class, sizeof *e);
    Layer *self = &e->layer;
    Conv2dOptions same = {.stride = pair(1), .pad = pair(1)};
    e->latent_size = latent_size;
    e->conv1 = layer_add_layer(self, conv2d_layer(32, pair(3), same),
                               .name = "conv1");
    e->conv2 = layer_add_layer(self, conv2d_layer(64, pair(3),
                               (Conv2dOptions){.stride = pair(2),
                                               .pad = pair(1)}),
                               .name = "conv2");
    e->conv3 = layer_add_layer(self, conv2d_layer(64, pair(3), same),
                               .name = "conv3");
    e->conv4 = layer_add_layer(self, conv2d_layer(64, pair(3), same),
                               .name = "conv4");
    e->linear1 = layer_add_layer(self, L_linear(32), .name = "linear1");
    e->linear2 = layer_add_layer(self, L_linear(latent_size),
                                 .name = "linear2");
    e->linear3 = layer_add_layer(self, L_linear(latent_size),
                                 .name = "linear3");
    return e;
}

/* Python: z_mean, z_log_var = encoder(x), each (N, latent_size). */
static void encode(Encoder *e, Variable *x, Variable **z_mean,
                   Variable **z_log_var)
{
    x = F_relu(layer_call(e->conv1, x));            // (N, 32, 28, 28)
    x = F_relu(layer_call(e->conv2, x));            // (N, 64, 14, 14)
    x = F_relu(layer_call(e->conv3, x));
    x = F_relu(layer_call(e->conv4, x));
    x = F_flatten(x);                               // (N, 12544)
    x = F_relu(layer_call(e->linear1, x));          // (N, 32)
    *z_mean = layer_call(e->linear2, x);
    *z_log_var = layer_call(e->linear3, x);
}

/* Python: encoder.sampling(z_mean, z_log_var), epsilon drawn by
 * np.random.randn, float64, on the host and moved to z_mean's device. */
static Variable *sampling(Encoder *e, Variable *z_mean, Variable *z_log_var)
{
    int64_t batch_size = variable_len(z_mean);
    NdArray *randn = nd_random_randn(ND_SHAPE(batch_size, e->latent_size));
    NdArray *epsilon = nd_to_device(randn, get_array_module(z_mean->data));
    Variable *z = F_add(z_mean, F_mul(F_exp(z_log_var), epsilon));
    nd_release(epsilon);
    nd_release(randn);
    return z;
}

/* Python: class Decoder(Model). */
typedef struct Decoder {
    Layer layer;                /* first: a Decoder * is a Layer * */
    Layer *linear, *deconv, *conv;  /* borrowed: layer holds them */
} Decoder;

static Variable *decoder_forward(Layer *self, Variable *x)
{
    Decoder *d = (Decoder *)self;
    x = F_relu(layer_call(d->linear, x));           // (N, 12544)
    x = F_reshape(x, ND_SHAPE(-1, 64, 14, 14));     // to_shape (C, H, W)
    x = F_relu(layer_call(d->deconv, x));           // (N, 32, 28, 28)
    x = layer_call(d->conv, x);                     // (N, 1, 28, 28)
    return F_sigmoid(x);
}

static const LayerClass decoder_class = {
    .name = "Decoder",
    .forward = decoder_forward,
};

static Layer *decoder(void)
{
    Decoder *d = (Decoder *)layer_new(&decoder_class, sizeof *d);
    d->linear = layer_add_layer(&d->layer, L_linear(64 * 14 * 14),
                                .name = "linear");
    d->deconv = layer_add_layer(&d->layer, L_deconv2d(32, pair(4),
                                .stride = pair(2), .pad = pair(1)),
                                .name = "deconv");
    d->conv = layer_add_layer(&d->layer, L_conv2d(1, pair(3),
                              .stride = pair(1), .pad = pair(1)),
                              .name = "conv");
    return &d->layer;
}

/* Python: class VAE(Model), whose forward is the loss. */
typedef struct VAE {
    Layer layer;                /* first: a VAE * is a Layer * */
    Encoder *encoder;           /* borrowed: layer holds the references */
    Layer *decoder;
} VAE;

static const LayerClass vae_class = {.name = "VAE"};

static VAE *vae_new(int64_t latent_size)
{
    VAE *v = (VAE *)layer_new(&vae_class, sizeof *v);
    v->encoder = (Encoder *)layer_add_layer(&v->layer,
                                            &encoder(latent_size)->layer,
                                            .name = "encoder");
    v->decoder = layer_add_layer(&v->layer, decoder(), .name = "decoder");
    return v;
}

/* The loss of the VAE on x, minus the ELBO (Python: vae(x, C, k)): the
 * reconstruction's binary cross-entropy, averaged over k samples of z,
 * plus C times the KL divergence, per digit. Written as Python's
 * expression, so that its graph and its dtypes are Python's. */
static Variable *vae_loss(VAE *v, Variable *x, double C, long k)
{
    Variable *z_mean, *z_log_var;
    encode(v->encoder, x, &z_mean, &z_log_var);

    Variable *rec_loss = NULL;
    for (long l = 0; l < k; l++) {
        Variable *z = sampling(v->encoder, z_mean, z_log_var);
        Variable *y = layer_call(v->decoder, z);
        Variable *term = F_div(F_binary_cross_entropy(F_flatten(y),
                                                      F_flatten(x)), k);
        rec_loss = rec_loss ? F_add(rec_loss, term) : F_add(0L, term);
    }

    Variable *kl_loss = F_mul(
        F_mul(C, F_sub(F_sub(F_add(F_pow(z_mean, 2), F_exp(z_log_var)),
                             z_log_var), 1L)), 0.5);
    kl_loss = F_div(F_sum(kl_loss, ND_ALL_AXES, false),
                    (long)variable_len(x));
    return F_add(rec_loss, kl_loss);
}

/* The standard normal's quantile at p in (0, 1) (Python:
 * scipy.stats.norm.ppf(p)): the x where 0.5 erfc(-x / sqrt 2) = p, by
 * bisection, to the last bit. */
static double norm_ppf(double p)
{
    double lo = -40, hi = 40;
    for (int i = 0; i < 200 && lo < hi; i++) {
        double mid = (lo + hi) / 2;
        if (mid == lo || mid == hi)
            break;
        if (0.5 * erfc(-mid / sqrt(2)) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* Python's show_digits: the decoder, without a graph, on the points
 * (grid[j], grid[i]) of the latent space, grid the quantiles of
 * np.linspace(0.05, 0.95, 15); digit (i, j) at row i, column j of a
 * 15 x 15 grid, into path. The points are moved to device, the
 * model's. They go through the decoder a row of the grid at a time
 * (Python: one at a time; nothing in the decoder depends on the
 * batch): all 225 at once made the last convolution's windows (225 x
 * 784, 288) in float64, 406 MB, four times the rest of the program. */
static bool show_digits(VAE *v, NdDevice device, const char *path)
{
    double grid[GRID];
    for (int i = 0; i < GRID; i++)
        grid[i] = norm_ppf(0.05 + 0.9 * i / (GRID - 1));
    NdArray *rows[GRID];                        // each (15, 1, 28, 28)
    for (int i = 0; i < GRID; i++) {
        NdArray *z_sample = nd_empty(ND_FLOAT64, ND_SHAPE(GRID, 2));
        for (int j = 0; j < GRID; j++) {
            ND_DATA(z_sample, double)[2 * j] = grid[j];
            ND_DATA(z_sample, double)[2 * j + 1] = grid[i];
        }
        Pool *pool = pool_new();
        NO_GRAD {
            NdArray *z = nd_to_device(z_sample, device);   // (15, 2)
            Variable *x_decoded = layer_call(v->decoder, z);
            rows[i] = as_numpy(x_decoded->data);
            nd_release(z);
        }
        pool_drain(pool);
        nd_release(z_sample);
    }
    NdArray *digits = nd_concatenate(GRID, rows, 0);    // (225, 1, 28, 28)
    NdArray *figure = tile_images(digits, GRID, GRID);  // (420, 420)
    bool written = write_gray_png(figure, path);
    nd_release(figure);
    nd_release(digits);
    for (int i = 0; i < GRID; i++)
        nd_release(rows[i]);
    return written;
}

int main(void)
{
    nd_random_seed_from_env("DEZERO_SEED");
    Pool *pool = pool_new();
    bool use_gpu = gpu_enable();
    int max_epoch = (int)option_count("DEZERO_EPOCHS", 10, 1, 1000);
    int64_t batch_size = option_count("DEZERO_BATCH_SIZE", 16, 1, 60000);
    int64_t interval = option_count("DEZERO_INTERVAL", use_gpu ? 100 : 10,
                                    1, 1000000);

    VAE *vae = vae_new(LATENT_SIZE);
    Optimizer *optimizer = optimizer_setup(adam(0.001, 0.9, 0.999, 1e-8),
                                           &vae->layer);

    // Python: lambda x: (x / 255.0).astype(np.float32)
    Transform scale[] = {T_normalize(0, 255), T_to_float()};
    Dataset *train_set = mnist(true, .transform = T_compose(2, scale));
    DataLoader *train_loader = dataloader(train_set, batch_size, true);

    NdDevice device = ND_CPU;
    if (use_gpu) {
        layer_to_gpu(&vae->layer);
        dataloader_to_gpu(train_loader);
        device = ND_CUDA;
    } else {
        fprintf(stderr, "training on the CPU: %s\n", gpu_status());
    }

    bool drawn = true;
    for (int epoch = 0; epoch < max_epoch; epoch++) {
        double avg_loss = 0;
        int64_t cnt = 0;
        NdArray *x, *t;             // (16, 1, 28, 28) float32, (16,)

        while (dataloader_next(train_loader, &x, &t)) {
            cnt++;
            Pool *iteration = pool_new();
            Variable *loss = vae_loss(vae, as_variable(x), 1.0, 1);
            layer_cleargrads(&vae->layer);
            backward(loss);
            optimizer_update(optimizer);

            avg_loss += nd_item(loss->data);
            if (cnt % interval == 0) {
                double epoch_detail =
                    epoch + (double)cnt / (double)train_loader->max_iter;
                printf("epoch: %.2f, loss: %.4f\n", epoch_detail,
                       avg_loss / (double)cnt);
                fflush(stdout);
            }
            pool_drain(iteration);
            nd_release(t);
            nd_release(x);
        }
        char path[32];
        snprintf(path, sizeof path, "vae_%d.png", epoch + 1);
        drawn = show_digits(vae, device, path) && drawn;
    }
    pool_drain(pool);
    return drawn ? EXIT_SUCCESS : EXIT_FAILURE;
}
