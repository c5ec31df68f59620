/* models.c - models, as the book's models.py: drawing a model's graph
 * (Python: Model.plot); MLP, a stack of Linear layers with an
 * activation between them; VGG16, the convolutional network of
 * Simonyan and Zisserman (2014), whose ImageNet weights can be loaded,
 * and the preprocessing that turns a picture into its input; and
 * Sequential, layers called in turn. */
#include <stdio.h>

#include "dezero.h"
#include "image.h"

/* The graph of model's forward pass on x, drawn into to_file with each
 * variable's shape and dtype (Python: Model.plot, which calls
 * self.forward and plot_dot_graph(y, verbose=True)). */
bool (model_plot)(Model *model, Variable *x, const char *to_file)
{
    Variable *y = layer_call(model, x);
    return plot_dot_graph(y, true, to_file);
}

/* ---- MLP */

/* Each Linear but the last, followed by the activation; then the last
 * (Python: MLP.forward). */
static Variable *mlp_forward(Layer *self, Variable *x)
{
    const MLPModel *m = (const MLPModel *)self;
    for (int i = 0; i < self->nlayers - 1; i++)
        x = m->activation(layer_call(self->layers[i], x));
    return layer_call(self->layers[self->nlayers - 1], x);
}

static const LayerClass mlp_class = {
    .name = "MLP",
    .forward = mlp_forward,
};

/* A new MLP with a Linear layer for each of the nsizes output sizes,
 * registered in order as l0, l1, ... (Python: setattr(self, 'l' +
 * str(i), layer)), each making its weight at its first call. */
Model *mlp(int nsizes, const int64_t *sizes,
           Variable *(*activation)(Variable *x))
{
    if (nsizes < 1)
        nd_error("mlp", "an MLP needs at least one layer size");
    MLPModel *m = (MLPModel *)layer_new(&mlp_class, sizeof *m);
    m->activation = activation ? activation : F_sigmoid;
    for (int i = 0; i < nsizes; i++) {
        char name[16];
        snprintf(name, sizeof name, "l%d", i);
        layer_add_layer(&m->layer, L_linear(sizes[i]), .name = name);
    }
    return &m->layer;
}

/* ---- VGG16 */

/* The convolutions of each of VGG16's five blocks, and their output
 * channels; a 2 x 2 max pooling of stride 2 ends each block. */
static const int vgg16_block_layers[5] = {2, 2, 3, 3, 3};
static const int64_t vgg16_block_channels[5] = {64, 128, 256, 512, 512};

/* The 13 convolutions, each followed by ReLU, the blocks by pooling;
 * then the (N, 512, H/32, W/32) maps flattened, fc6 and fc7 each
 * followed by ReLU and dropout, and fc8's 1000 scores (Python:
 * VGG16.forward). */
static Variable *vgg16_forward(Layer *self, Variable *x)
{
    int next = 0;
    for (int block = 0; block < 5; block++) {
        for (int i = 0; i < vgg16_block_layers[block]; i++)
            x = F_relu(layer_call(self->layers[next++], x));
        x = F_pooling(x, pair(2), .stride = pair(2));
    }
    x = F_reshape(x, ND_SHAPE(variable_shape(x)[0], -1));   // (N, 512...)
    x = F_dropout(F_relu(layer_call(self->layers[next++], x)), 0.5);
    x = F_dropout(F_relu(layer_call(self->layers[next++], x)), 0.5);
    return layer_call(self->layers[next], x);               // (N, 1000)
}

static const LayerClass vgg16_class = {
    .name = "VGG16",
    .forward = vgg16_forward,
};

// region: vgg16
/* A new VGG16 (Python: VGG16(pretrained)): its layers registered under
 * Python's attribute names, conv1_1 ... conv5_3, fc6, fc7, fc8, which
 * are the keys of the pretrained file; each makes its weight at its
 * first call, unless options.pretrained names the file to load them
 * from. */
Model *(vgg16)(VGG16Options options)
{
    Layer *m = layer_new(&vgg16_class, sizeof *m);
    for (int block = 0; block < 5; block++)
        for (int i = 0; i < vgg16_block_layers[block]; i++) {
            char name[32];
            snprintf(name, sizeof name, "conv%d_%d", block + 1, i + 1);
            layer_add_layer(m, L_conv2d(vgg16_block_channels[block],
                                        pair(3), .stride = pair(1),
                                        .pad = pair(1)),
                            .name = name);
        }
    layer_add_layer(m, L_linear(4096), .name = "fc6");
    layer_add_layer(m, L_linear(4096), .name = "fc7");
    layer_add_layer(m, L_linear(1000), .name = "fc8");
    if (options.pretrained)
        layer_load_weights(m, options.pretrained);
    return m;
}

/* Resized, BGR, minus the mean, channels first (Python: the static
 * method VGG16.preprocess). */
NdArray *vgg16_preprocess(const NdArray *image, int64_t width,
                          int64_t height)
{
    if (image->dtype != ND_UINT8 || image->ndim != 3 ||
        image->shape[2] != 3 || image->device != ND_CPU)
        nd_error("vgg16_preprocess", "takes a (H, W, 3) uint8 host array "
                 "(an RGB picture, as nd_image_read gives it)");
    NdArray *rgb = width == 0 && height == 0
                       ? nd_retain((NdArray *)image)
                       : nd_image_resize(image, width, height);
    int64_t h = rgb->shape[0], w = rgb->shape[1];
    /* float32(value) - float32(mean), as NumPy's -= on float32 */
    const float mean_bgr[3] = {103.939f, 116.779f, 123.68f};
    NdArray *x = nd_empty(ND_FLOAT32, ND_SHAPE(3, h, w));   // (3, H, W)
    const unsigned char *src = rgb->data;                   // (H, W, 3)
    float *dst = x->data;
    for (int c = 0; c < 3; c++)         /* B, G, R: channel 2 - c of RGB */
        for (int64_t i = 0; i < h * w; i++)
            dst[c * h * w + i] = (float)src[i * 3 + 2 - c] - mean_bgr[c];
    nd_release(rgb);
    return x;
}
// endregion

/* ---- Sequential */

/* Each layer on the output of the one before (Python:
 * Sequential.forward). */
static Variable *sequential_forward(Layer *self, Variable *x)
{
    for (int i = 0; i < self->nlayers; i++)
        x = layer_call(self->layers[i], x);
    return x;
}

static const LayerClass sequential_class = {
    .name = "Sequential",
    .forward = sequential_forward,
};

/* A new Sequential of the n layers, registered in order as l0, l1, ...
 * (Python: setattr(self, 'l' + str(i), layer)). */
Model *sequential_model(int n, Layer *const layers[])
{
    if (n < 0 || (n > 0 && !layers))
        nd_error("sequential", "want a list of layers; got %d", n);
    Layer *m = layer_new(&sequential_class, sizeof *m);
    for (int i = 0; i < n; i++) {
        if (!layers[i])
            nd_error("sequential", "layer %d is NULL", i);
        char name[16];
        snprintf(name, sizeof name, "l%d", i);
        layer_add_layer(m, layers[i], .name = name);
    }
    return m;
}
