/* grad_cam - where VGG16 looks to name the class of a picture (Python:
 * examples/grad_cam.py, Grad-CAM, https://arxiv.org/pdf/1610.02391.pdf).
 *
 * The picture (the book's zebra) goes through VGG16; the score of the
 * class it ranks first is differentiated back to the output of the last
 * convolution, conv5_3 (512 maps of 14 x 14 for 224 x 224 pictures).
 * Each map is weighted by its gradient's mean, the weighted maps are
 * averaged, their negative part cut (ReLU) and the rest scaled to
 * [0, 1]: the heatmap, printed. Resized to the picture, coloured with
 * OpenCV's jet colour map and added at 0.4 over the picture, it is
 * drawn into grad_cam.png, as Python's cv2.imwrite draws it.
 *
 * VGG16's ImageNet weights come from the DeZero cache (step 58 puts
 * them there; without them the program says what to fetch and stops
 * with exit status 1); DEZERO_RANDOM_WEIGHTS=1 runs it on random
 * weights of the real shapes (DEZERO_SEED=N repeats them), whose
 * heatmap shows the method, not the zebra. DEZERO_IMAGE=path takes
 * another picture; DEZERO_SIZE=N gives it to VGG16 at N x N instead of
 * 224 x 224 (a multiple of 32; random weights only).
 *
 * Two departures from Python: the network runs in test mode, so that
 * dropout does not change the class from one run to the next; and a
 * heatmap whose every value is cut by the ReLU stays 0 where Python's
 * division by its maximum gives NaN. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"
#include "image.h"
#include "options.h"
#include "picture.h"
#include "vgg.h"

/* VGG16's scores for x, as vgg16's own forward computes them, with the
 * output of conv5_3, after its ReLU, in *last_conv (Python:
 * model.conv5_3.outputs[0](); a C layer keeps no outputs, so the
 * forward is written out here). */
static Variable *scores(Model *model, Variable *x, Variable **last_conv)
{
    static const int block_layers[5] = {2, 2, 3, 3, 3};
    int next = 0;
    for (int block = 0; block < 5; block++) {
        for (int i = 0; i < block_layers[block]; i++)
            x = F_relu(layer_call(model->layers[next++], x));
        if (block == 4)
            *last_conv = x;                     // (1, 512, H/16, W/16)
        x = F_pooling(x, pair(2), .stride = pair(2));
    }
    x = F_reshape(x, ND_SHAPE(variable_shape(x)[0], -1));   // (1, 512...)
    x = F_dropout(F_relu(layer_call(model->layers[next++], x)), 0.5);
    x = F_dropout(F_relu(layer_call(model->layers[next++], x)), 0.5);
    return layer_call(model->layers[next], x);              // (1, 1000)
}

/* Grad-CAM's map from the maps features and their gradients grads,
 * both (1, C, h, w): each map weighted by its gradient's mean, the
 * mean over the C maps, the ReLU, divided by the largest value. A new
 * (h, w) float64 array in [0, 1]. */
static NdArray *grad_cam_map(const NdArray *features, const NdArray *grads)
{
    int64_t c = features->shape[1], h = features->shape[2],
            w = features->shape[3];
    NdArray *f = nd_astype(features, ND_FLOAT64);  // (1, C, h, w)
    NdArray *g = nd_astype(grads, ND_FLOAT64);     // (1, C, h, w)
    NdArray *heatmap = nd_zeros(ND_FLOAT64, ND_SHAPE(h, w));
    const double *fd = ND_DATA(f, double), *gd = ND_DATA(g, double);
    double *m = ND_DATA(heatmap, double);
    for (int64_t k = 0; k < c; k++) {
        double pooled = 0;              /* F.average(grads, (0, 2, 3)) */
        for (int64_t i = 0; i < h * w; i++)
            pooled += gd[k * h * w + i];
        pooled /= (double)(h * w);
        for (int64_t i = 0; i < h * w; i++)
            m[i] += fd[k * h * w + i] * pooled / (double)c;
    }
    double top = 0;
    for (int64_t i = 0; i < h * w; i++) {
        m[i] = m[i] > 0 ? m[i] : 0;
        top = m[i] > top ? m[i] : top;
    }
    for (int64_t i = 0; i < h * w && top > 0; i++)
        m[i] /= top;
    nd_release(g);
    nd_release(f);
    return heatmap;
}

/* OpenCV's COLORMAP_JET for v in [0, 255]: blue, cyan, yellow, red. */
static void jet(int v, double rgb[3])
{
    double t = v / 255.0;
    for (int i = 0; i < 3; i++) {       /* red peaks at 3/4, blue at 1/4 */
        double c = 1.5 - fabs(4 * t - (3 - i));
        rgb[i] = 255 * (c < 0 ? 0 : c > 1 ? 1 : c);
    }
}

/* The heatmap (h, w) resized to the picture img (H, W, 3) uint8 as
 * cv2.resize does (bilinear, pixel centres aligned), made 8-bit
 * (np.uint8(255 * heatmap)), coloured by jet and added at 0.4 over the
 * picture, clipped to 255 as cv2.imwrite saturates: a new (H, W, 3)
 * uint8 array. */
static NdArray *heatmap_on_image(const NdArray *heatmap, const NdArray *img)
{
    int64_t h = heatmap->shape[0], w = heatmap->shape[1];
    int64_t H = img->shape[0], W = img->shape[1];
    const double *m = ND_DATA(heatmap, double);
    const uint8_t *src = ND_DATA(img, uint8_t);
    NdArray *out = nd_empty(ND_UINT8, ND_SHAPE(H, W, 3));
    uint8_t *dst = ND_DATA(out, uint8_t);
    for (int64_t y = 0; y < H; y++) {
        double fy = ((double)y + 0.5) * (double)h / (double)H - 0.5;
        fy = fy < 0 ? 0 : fy > (double)(h - 1) ? (double)(h - 1) : fy;
        int64_t y0 = (int64_t)fy, y1 = y0 + 1 < h ? y0 + 1 : y0;
        for (int64_t x = 0; x < W; x++) {
            double fx = ((double)x + 0.5) * (double)w / (double)W - 0.5;
            fx = fx < 0 ? 0 : fx > (double)(w - 1) ? (double)(w - 1) : fx;
            int64_t x0 = (int64_t)fx, x1 = x0 + 1 < w ? x0 + 1 : x0;
            double a = fy - (double)y0, b = fx - (double)x0;
            double v = (1 - a) * ((1 - b) * m[y0 * w + x0] +
                                  b * m[y0 * w + x1]) +
                       a * ((1 - b) * m[y1 * w + x0] + b * m[y1 * w + x1]);
            double rgb[3];
            jet((int)(255 * v), rgb);
            for (int c = 0; c < 3; c++) {
                double p = rgb[c] * 0.4 + src[(y * W + x) * 3 + c];
                dst[(y * W + x) * 3 + c] = (uint8_t)lround(p > 255 ? 255
                                                                   : p);
            }
        }
    }
    return out;
}

int main(void)
{
    Pool *pool = pool_new();
    nd_random_seed_from_env("DEZERO_SEED");
    int64_t size = option_count("DEZERO_SIZE", 224, 32, 1024);
    if (size % 32 != 0)
        nd_error("grad_cam", "DEZERO_SIZE=%lld: want a multiple of 32",
                 (long long)size);

    NdArray *img = example_picture("DEZERO_IMAGE", ZEBRA_URL);
    Model *model = example_vgg16("grad_cam", size);
    NdArray *image = vgg16_preprocess(img, size, size);  // (3, S, S)
    Variable *x = variable(nd_expand_dims(image, 0));     // (1, 3, S, S)
    nd_release(image);

    Variable *y, *last_conv_output = NULL;
    TEST_MODE {
        y = scores(model, x, &last_conv_output);         // (1, 1000)
    }
    NdArray *predict = nd_argmax(y->data, ND_NO_AXIS);   // () int64
    int64_t predict_id = (int64_t)nd_item(predict);
    nd_release(predict);
    Variable *predict_output = variable_getitem(y, ND_IDX_INT(0),
                                                ND_IDX_INT(predict_id));
    backward(predict_output, .retain_grad = true);

    NdArray *heatmap = grad_cam_map(last_conv_output->data,
                                    last_conv_output->grad->data);
    int64_t h = heatmap->shape[0], w = heatmap->shape[1];
    printf("class: %lld\nheatmap (%lld, %lld):\n", (long long)predict_id,
           (long long)h, (long long)w);
    for (int64_t i = 0; i < h; i++)
        for (int64_t j = 0; j < w; j++)
            printf("%.4f%c", ND_DATA(heatmap, double)[i * w + j],
                   j == w - 1 ? '\n' : ' ');

    NdArray *picture = heatmap_on_image(heatmap, img);   // (H, W, 3)
    bool drawn = write_rgb_png(picture, "grad_cam.png");
    nd_release(picture);
    nd_release(heatmap);
    nd_release(img);
    pool_drain(pool);
    return drawn ? EXIT_SUCCESS : EXIT_FAILURE;
}
