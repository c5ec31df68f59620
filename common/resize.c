/* resize.c - nd_image_resize of image.h: PIL's resize with its default
 * filter, bicubic, as Pillow's Resample.c computes it for 8-bit
 * pictures, so that the bytes match.
 *
 * Pillow resamples in two passes, each a 1-D convolution: along rows
 * into a (H_in, width, 3) uint8 picture, rounded and clipped to 0..255,
 * then along columns into (height, width, 3). Output pixel i of a pass
 * is centred at (i + 0.5) * scale in the input, scale = in / out; the
 * filter reaches support = 2 * max(scale, 1) input pixels either side
 * (wider when shrinking, so that every input pixel counts) and its
 * weights, normalised to sum 1, become integers with 22 fraction bits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"

enum { PRECISION_BITS = 32 - 8 - 2 };   /* Pillow's, for 8-bit pictures */

/* Pillow's bicubic_filter: Keys' cubic with a = -0.5, support 2. */
static double bicubic(double x)
{
    const double a = -0.5;
    if (x < 0.0)
        x = -x;
    if (x < 1.0)
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    if (x < 2.0)
        return (((x - 5) * x + 8) * x - 4) * a;
    return 0.0;
}

/* The weights of one pass from in_size pixels to out_size (Pillow's
 * precompute_coeffs then normalize_coeffs_8bpc): output pixel i sums
 * count[i] input pixels from first[i], weighted by
 * weights[i * taps .. i * taps + count[i]). */
typedef struct Pass {
    int64_t taps;                   /* the most input pixels per output */
    int64_t *first, *count;         /* (out_size,), (out_size,) */
    int32_t *weights;               /* (out_size, taps) */
} Pass;

static Pass plan_pass(int64_t in_size, int64_t out_size)
{
    double scale = (double)in_size / (double)out_size;
    double filter_scale = scale < 1.0 ? 1.0 : scale;
    double support = 2.0 * filter_scale;
    Pass p = {.taps = (int64_t)ceil(support) * 2 + 1};
    p.first = malloc((size_t)out_size * sizeof *p.first);
    p.count = malloc((size_t)out_size * sizeof *p.count);
    p.weights = calloc((size_t)(out_size * p.taps), sizeof *p.weights);
    double *w = malloc((size_t)p.taps * sizeof *w);
    if (!p.first || !p.count || !p.weights || !w)
        nd_error("nd_image_resize", "out of memory");
    for (int64_t i = 0; i < out_size; i++) {
        double center = ((double)i + 0.5) * scale;
        /* Pillow rounds with a cast, which truncates towards zero */
        int64_t lo = (int64_t)(center - support + 0.5);
        int64_t hi = (int64_t)(center + support + 0.5);
        lo = lo < 0 ? 0 : lo;
        hi = hi > in_size ? in_size : hi;
        double sum = 0.0, shrink = 1.0 / filter_scale;
        for (int64_t k = 0; k < hi - lo; k++) {
            w[k] = bicubic(((double)(k + lo) - center + 0.5) * shrink);
            sum += w[k];
        }
        for (int64_t k = 0; k < hi - lo; k++) {
            double v = sum != 0.0 ? w[k] / sum : w[k];
            v *= 1 << PRECISION_BITS;
            p.weights[i * p.taps + k] = (int32_t)(v < 0 ? v - 0.5 : v + 0.5);
        }
        p.first[i] = lo;
        p.count[i] = hi - lo;
    }
    free(w);
    return p;
}

static void free_pass(Pass p)
{
    free(p.first);
    free(p.count);
    free(p.weights);
}

/* Pillow's clip8: the fixed-point sum back to 0..255. */
static unsigned char to_uint8(int32_t sum)
{
    int32_t v = sum >> PRECISION_BITS;      /* arithmetic, as in Pillow */
    return v < 0 ? 0 : v > 255 ? 255 : (unsigned char)v;
}

/* One pass over n lines of in, each `length` samples of 3 channels
 * apart by `step` bytes, into out's lines of p's output length, laid
 * out the same way (out_step bytes between samples). Lines themselves
 * are line_in / line_out bytes apart. */
static void run_pass(const Pass *p, int64_t out_size, int64_t lines,
                     const unsigned char *in, int64_t line_in,
                     int64_t step_in, unsigned char *out,
                     int64_t line_out, int64_t step_out)
{
    for (int64_t l = 0; l < lines; l++)
        for (int64_t i = 0; i < out_size; i++) {
            const int32_t *w = p->weights + i * p->taps;
            const unsigned char *src = in + l * line_in +
                                       p->first[i] * step_in;
            for (int c = 0; c < 3; c++) {
                int32_t sum = 1 << (PRECISION_BITS - 1);
                for (int64_t k = 0; k < p->count[i]; k++)
                    sum += (int32_t)src[k * step_in + c] * w[k];
                out[l * line_out + i * step_out + c] = to_uint8(sum);
            }
        }
}

static void check_picture(const char *op, const NdArray *image)
{
    if (image->device != ND_CPU || image->dtype != ND_UINT8 ||
        image->ndim != 3 || image->shape[2] != 3 || image->size == 0)
        nd_error(op, "takes a (H, W, 3) uint8 host array (an RGB "
                 "picture), not a %s %s array with %d axes",
                 image->device == ND_CPU ? "host" : "device",
                 nd_dtype_name(image->dtype), image->ndim);
}

NdArray *nd_image_resize(const NdArray *image, int64_t width,
                         int64_t height)
{
    const char *op = "nd_image_resize";
    check_picture(op, image);
    if (width < 1 || height < 1 || width > 1 << 16 || height > 1 << 16)
        nd_error(op, "a size of %lld x %lld pixels; it takes 1 to %d a "
                 "side", (long long)width, (long long)height, 1 << 16);
    int64_t in_h = image->shape[0], in_w = image->shape[1];
    const unsigned char *in = image->data;
    NdArray *out = nd_empty(ND_UINT8, ND_SHAPE(height, width, 3));
    /* Pillow skips a pass that keeps its size (and copies when both do) */
    unsigned char *across = NULL;           /* (in_h, width, 3) */
    if (width != in_w) {
        Pass p = plan_pass(in_w, width);
        across = height != in_h ? malloc((size_t)(in_h * width * 3))
                                : out->data;
        if (!across)
            nd_error(op, "out of memory");
        run_pass(&p, width, in_h, in, in_w * 3, 3, across, width * 3, 3);
        free_pass(p);
        in = across;
    }
    if (height != in_h) {
        Pass p = plan_pass(in_h, height);
        /* columns: lines 3 bytes apart, samples a row apart */
        run_pass(&p, height, width, in, 3, width * 3, out->data, 3,
                 width * 3);
        free_pass(p);
    } else if (width == in_w) {
        memcpy(out->data, in, (size_t)image->size);
    }
    if (across != out->data)
        free(across);
    return out;
}
