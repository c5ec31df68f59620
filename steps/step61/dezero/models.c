/* models.c - models, as the book's models.py: drawing a model's graph
 * (Python: Model.plot); MLP, a stack of Linear layers with an
 * activation between them; VGG16, the convolutional network of
 * Simonyan and Zisserman (2014), whose ImageNet weights can be loaded,
 * and the preprocessing that turns a picture into its input;
 * Sequential, layers called in turn; ResNet, the residual network of
 * He et al. (2015), with its bottlenecks and building blocks; and
 * SqueezeNet v1.1 (Iandola et al. 2016), with its Fire modules, built
 * from the paper and torchvision's squeezenet1_1, since Python's
 * SqueezeNet is an empty stub (pass). */
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

/* ---- ResNet */

/* The mean of each channel of x (N, C, H, W): (N, C) (Python:
 * _global_average_pooling_2d). */
static Variable *global_average_pooling_2d(Variable *x)
{
    const int64_t *s = variable_shape(x);
    int64_t N = s[0], C = s[1];
    Variable *h = F_average_pooling(x, ((Pair){s[2], s[3]}),
                                    .stride = pair(1));  // (N, C, 1, 1)
    return F_reshape(h, ND_SHAPE(N, C));
}

/* relu(bn(conv(x))): the first two stages of a bottleneck, from its
 * layers conv, bn at index i, i + 1. */
static Variable *conv_bn_relu(Layer *self, int i, Variable *x)
{
    return F_relu(layer_call(self->layers[i + 1],
                             layer_call(self->layers[i], x)));
}

/* h1 = bn3(conv3(relu(bn2(conv2(relu(bn1(conv1(x)))))))), h2 =
 * bn4(conv4(x)), y = relu(h1 + h2) (Python: BottleneckA.forward). Its
 * layers are conv1, bn1, ..., conv4, bn4, in that order. */
static Variable *bottleneck_a_forward(Layer *self, Variable *x)
{
    Variable *h1 = conv_bn_relu(self, 2, conv_bn_relu(self, 0, x));
    h1 = layer_call(self->layers[5], layer_call(self->layers[4], h1));
    Variable *h2 = layer_call(self->layers[7], layer_call(self->layers[6],
                                                          x));
    return F_relu(F_add(h1, h2));
}

/* As BottleneckA's, with x itself for h2 (Python: BottleneckB.forward).
 * Its layers are conv1, bn1, ..., conv3, bn3. */
static Variable *bottleneck_b_forward(Layer *self, Variable *x)
{
    Variable *h = conv_bn_relu(self, 2, conv_bn_relu(self, 0, x));
    h = layer_call(self->layers[5], layer_call(self->layers[4], h));
    return F_relu(F_add(h, x));
}

static const LayerClass bottleneck_a_class = {
    .name = "BottleneckA",
    .forward = bottleneck_a_forward,
};

static const LayerClass bottleneck_b_class = {
    .name = "BottleneckB",
    .forward = bottleneck_b_forward,
};

/* A BuildingBlock calls its bottlenecks in turn, as Sequential its
 * layers (Python: BuildingBlock.forward). */
static const LayerClass building_block_class = {
    .name = "BuildingBlock",
    .forward = sequential_forward,
};

/* Registers convN, a convolution without bias of out_channels,
 * kernel_size square, the stride and the padding, and bnN after it. */
static void add_conv_bn(Layer *self, int n, int64_t out_channels,
                        int64_t kernel_size, int64_t stride, int64_t pad)
{
    char name[16];
    snprintf(name, sizeof name, "conv%d", n);
    layer_add_layer(self, L_conv2d(out_channels, pair(kernel_size),
                                   .stride = pair(stride),
                                   .pad = pair(pad), .nobias = true),
                    .name = name);
    snprintf(name, sizeof name, "bn%d", n);
    layer_add_layer(self, L_batch_norm(), .name = name);
}

/* A new BottleneckA (Python: BottleneckA.__init__). */
Layer *bottleneck_a(int64_t mid_channels, int64_t out_channels,
                    int64_t stride, bool downsample_fb)
{
    if (mid_channels < 1 || out_channels < 1 || stride < 1)
        nd_error("bottleneck_a", "sizes must be positive: mid_channels "
                 "%lld, out_channels %lld, stride %lld",
                 (long long)mid_channels, (long long)out_channels,
                 (long long)stride);
    Layer *self = layer_new(&bottleneck_a_class, sizeof *self);
    int64_t stride_1x1 = downsample_fb ? 1 : stride;
    int64_t stride_3x3 = downsample_fb ? stride : 1;
    add_conv_bn(self, 1, mid_channels, 1, stride_1x1, 0);
    add_conv_bn(self, 2, mid_channels, 3, stride_3x3, 1);
    add_conv_bn(self, 3, out_channels, 1, 1, 0);
    add_conv_bn(self, 4, out_channels, 1, stride, 0);
    return self;
}

/* A new BottleneckB (Python: BottleneckB.__init__). */
Layer *bottleneck_b(int64_t in_channels, int64_t mid_channels)
{
    if (in_channels < 1 || mid_channels < 1)
        nd_error("bottleneck_b", "sizes must be positive: in_channels "
                 "%lld, mid_channels %lld", (long long)in_channels,
                 (long long)mid_channels);
    Layer *self = layer_new(&bottleneck_b_class, sizeof *self);
    add_conv_bn(self, 1, mid_channels, 1, 1, 0);
    add_conv_bn(self, 2, mid_channels, 3, 1, 1);
    add_conv_bn(self, 3, in_channels, 1, 1, 0);
    return self;
}

/* A new BuildingBlock (Python: BuildingBlock.__init__): a, then b1,
 * b2, ... */
Layer *building_block(int n_layers, int64_t mid_channels,
                      int64_t out_channels, int64_t stride,
                      bool downsample_fb)
{
    if (n_layers < 1)
        nd_error("building_block", "a building block needs at least one "
                 "bottleneck; got %d", n_layers);
    Layer *self = layer_new(&building_block_class, sizeof *self);
    layer_add_layer(self, bottleneck_a(mid_channels, out_channels, stride,
                                       downsample_fb), .name = "a");
    for (int i = 1; i < n_layers; i++) {
        char name[16];
        snprintf(name, sizeof name, "b%d", i);
        layer_add_layer(self, bottleneck_b(out_channels, mid_channels),
                        .name = name);
    }
    return self;
}

/* relu(bn1(conv1(x))), a 3 x 3 max pooling of stride 2, res2 ... res5,
 * the global average pooling and fc6 (Python: ResNet.forward). Its
 * layers are conv1, bn1, res2, res3, res4, res5, fc6. */
static Variable *resnet_forward(Layer *self, Variable *x)
{
    x = conv_bn_relu(self, 0, x);                   // (N, 64, H/2, W/2)
    x = F_pooling(x, pair(3), .stride = pair(2));
    for (int i = 2; i < 6; i++)
        x = layer_call(self->layers[i], x);         // (N, 2048, h, w)
    x = global_average_pooling_2d(x);               // (N, 2048)
    return layer_call(self->layers[6], x);          // (N, 1000)
}

static const LayerClass resnet_class = {
    .name = "ResNet",
    .forward = resnet_forward,
};

/* A new ResNet (Python: ResNet.__init__): the bottlenecks of each of
 * res2 ... res5 for the depth, their middle and output channels and
 * their strides; every weight made at its first call, unless
 * options.pretrained names the file to load them from. */
Model *(resnet)(int n_layers, ResNetOptions options)
{
    int blocks[4] = {3, 4, 0, 3};
    if (n_layers == 50)
        blocks[2] = 6;
    else if (n_layers == 101)
        blocks[2] = 23;
    else if (n_layers == 152)
        blocks[1] = 8, blocks[2] = 36;
    else
        nd_error("resnet", "n_layers should be 50, 101 or 152; got %d",
                 n_layers);
    Layer *m = layer_new(&resnet_class, sizeof *m);
    layer_add_layer(m, L_conv2d(64, pair(7), .stride = pair(2),
                                .pad = pair(3)), .name = "conv1");
    layer_add_layer(m, L_batch_norm(), .name = "bn1");
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "res%d", i + 2);
        int64_t mid = (int64_t)64 << i;             /* 64 ... 512 */
        layer_add_layer(m, building_block(blocks[i], mid, 4 * mid,
                                          i == 0 ? 1 : 2, false),
                        .name = name);
    }
    layer_add_layer(m, L_linear(1000), .name = "fc6");
    if (options.pretrained)
        layer_load_weights(m, options.pretrained);
    return m;
}

/* ---- SqueezeNet */

/* Stops with an error naming who unless x is (N, channels, H, W). */
static void check_images(const char *who, const Variable *x,
                         int64_t channels)
{
    if (variable_ndim(x) != 4)
        nd_error(who, "takes (N, %lld, H, W) images; got an input of %d "
                 "axes", (long long)channels, variable_ndim(x));
    if (variable_shape(x)[1] != channels)
        nd_error(who, "takes (N, %lld, H, W) images; got %lld channels",
                 (long long)channels, (long long)variable_shape(x)[1]);
}

/* s = relu(squeeze(x)), then relu(expand1x1(s)) and relu(expand3x3(s))
 * joined along the channels (torchvision: Fire.forward). Its layers
 * are squeeze, expand1x1, expand3x3, in that order. */
static Variable *fire_module_forward(Layer *self, Variable *x)
{
    const Conv2dLayer *squeeze = (const Conv2dLayer *)self->layers[0];
    check_images("Fire", x, squeeze->in_channels);     // (N, C, H, W)
    Variable *s = F_relu(layer_call(self->layers[0], x));  // (N, S, H, W)
    Variable *e[2] = {
        F_relu(layer_call(self->layers[1], s)),         // (N, E1, H, W)
        F_relu(layer_call(self->layers[2], s)),         // (N, E3, H, W)
    };
    return F_concat(2, e, 1);                       // (N, E1 + E3, H, W)
}

static const LayerClass fire_module_class = {
    .name = "Fire",
    .forward = fire_module_forward,
};

/* A new Fire module (torchvision: Fire(inplanes, squeeze_planes,
 * expand1x1_planes, expand3x3_planes)): three convolutions, their
 * input channels known, so their weights are drawn at once. */
Layer *fire_module(int64_t in_channels, int64_t squeeze_channels,
                   int64_t expand1x1_channels, int64_t expand3x3_channels)
{
    if (in_channels < 1 || squeeze_channels < 1 ||
        expand1x1_channels < 1 || expand3x3_channels < 1)
        nd_error("fire_module", "sizes must be positive: in_channels "
                 "%lld, squeeze %lld, expand1x1 %lld, expand3x3 %lld",
                 (long long)in_channels, (long long)squeeze_channels,
                 (long long)expand1x1_channels,
                 (long long)expand3x3_channels);
    Layer *self = layer_new(&fire_module_class, sizeof *self);
    layer_add_layer(self, L_conv2d(squeeze_channels, pair(1),
                                   .stride = pair(1),
                                   .in_channels = in_channels),
                    .name = "squeeze");
    layer_add_layer(self, L_conv2d(expand1x1_channels, pair(1),
                                   .stride = pair(1),
                                   .in_channels = squeeze_channels),
                    .name = "expand1x1");
    layer_add_layer(self, L_conv2d(expand3x3_channels, pair(3),
                                   .stride = pair(1), .pad = pair(1),
                                   .in_channels = squeeze_channels),
                    .name = "expand3x3");
    return self;
}

/* The smallest height and width that the three poolings leave at
 * least 1 x 1: 31 -> conv1 15 -> 7 -> 3 -> 1. */
enum { SQUEEZENET_MIN_SIZE = 31 };

/* The Fire modules fire2 ... fire9 of SqueezeNet v1.1: the input, the
 * squeeze, the 1 x 1 and the 3 x 3 expansion channels of each. */
static const int64_t squeezenet_fires[8][4] = {
    {64, 16, 64, 64},     {128, 16, 64, 64},   /* fire2, fire3 */
    {128, 32, 128, 128},  {256, 32, 128, 128}, /* fire4, fire5 */
    {256, 48, 192, 192},  {384, 48, 192, 192}, /* fire6, fire7 */
    {384, 64, 256, 256},  {512, 64, 256, 256}, /* fire8, fire9 */
};

/* A 3 x 3 max pooling of stride 2 and no padding, DeZero's, which
 * rounds the output size down: (H - 3) / 2 + 1. torchvision pools with
 * ceil_mode=True, which rounds up, keeping a last window that runs off
 * the edge. The two agree when H is odd, as every pooled size is for a
 * 224 x 224 input (111, 55, 27); for an even H the floor drops the last
 * row (and column), where torchvision's would keep one more. */
static Variable *squeezenet_pool(Variable *x)
{
    return F_pooling(x, pair(3), .stride = pair(2));
}

/* relu(conv1(x)), pooled; fire2, fire3, pooled; fire4, fire5, pooled;
 * fire6 ... fire9; dropout (0.5); relu(conv10(...)); and the global
 * average pooling (torchvision: SqueezeNet.forward, version 1.1). The
 * shapes are those of a 224 x 224 input. Its layers are conv1,
 * fire2 ... fire9, conv10. */
static Variable *squeezenet_forward(Layer *self, Variable *x)
{
    check_images("SqueezeNet", x, 3);
    const int64_t *s = variable_shape(x);
    if (s[2] < SQUEEZENET_MIN_SIZE || s[3] < SQUEEZENET_MIN_SIZE)
        nd_error("SqueezeNet", "takes images of at least %d x %d, which "
                 "its poolings leave 1 x 1; got %lld x %lld",
                 SQUEEZENET_MIN_SIZE, SQUEEZENET_MIN_SIZE,
                 (long long)s[2], (long long)s[3]);
    x = F_relu(layer_call(self->layers[0], x));     // (N, 64, 111, 111)
    x = squeezenet_pool(x);                         // (N, 64, 55, 55)
    for (int i = 1; i <= 8; i++) {
        if (i == 3 || i == 5)       /* before fire4 and fire6 */
            x = squeezenet_pool(x); // (N, 128, 27, 27), (N, 256, 13, 13)
        x = layer_call(self->layers[i], x);         // (N, 512, 13, 13)
    }
    x = F_dropout(x, 0.5);
    x = F_relu(layer_call(self->layers[9], x));     // (N, 1000, 13, 13)
    return global_average_pooling_2d(x);            // (N, 1000)
}

static const LayerClass squeezenet_class = {
    .name = "SqueezeNet",
    .forward = squeezenet_forward,
};

/* A new SqueezeNet v1.1 (torchvision: squeezenet1_1(num_classes)):
 * conv1, the Fire modules, conv10; every weight drawn at once, as
 * every input's channels are known, then replaced by those of the file
 * options.pretrained names, if any. */
Model *(squeezenet)(SqueezeNetOptions options)
{
    int64_t num_classes = options.num_classes ? options.num_classes
                                              : 1000;
    if (num_classes < 1)
        nd_error("squeezenet", "num_classes must be positive; got %lld",
                 (long long)num_classes);
    Layer *m = layer_new(&squeezenet_class, sizeof *m);
    layer_add_layer(m, L_conv2d(64, pair(3), .stride = pair(2),
                                .in_channels = 3), .name = "conv1");
    for (int i = 0; i < 8; i++) {
        const int64_t *f = squeezenet_fires[i];
        char name[16];
        snprintf(name, sizeof name, "fire%d", i + 2);
        layer_add_layer(m, fire_module(f[0], f[1], f[2], f[3]),
                        .name = name);
    }
    layer_add_layer(m, L_conv2d(num_classes, pair(1), .stride = pair(1),
                                .in_channels = 512), .name = "conv10");
    if (options.pretrained)
        layer_load_weights(m, options.pretrained);
    return m;
}
