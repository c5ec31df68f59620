/* conv.c - the windows of a 2-D convolution gathered into one array
 * (im2col) and added back into an image (col2im), DeZero's im2col_array
 * and col2im_array. Each is written straight into its output's layout,
 * a block of images per thread for large batches; cuda/conv.cu does the
 * same on the device. */
#include <inttypes.h>
#include <string.h>

#include "nd_internal.h"

/* Kernel, stride and padding sizes from this up are refused, which keeps
 * the index arithmetic far from int64's limits. */
#define MAX_WINDOW_PARAM ((int64_t)1 << 31)

/* col arrays of at least this many elements (about a millisecond's
 * work) are made or read on one thread per CPU, a block of images each.
 * Measured on 2 cores that other work kept busy, 1000 calls on 100
 * images 1x28x28 with 5x5 windows (1.44M elements), whole process, the
 * best of 5 runs: im2col 1.50 s against 1.74 s on one thread, col2im
 * 3.14 s against 4.30 s; the medians were even. */
enum { THREADED_MIN_SIZE = 1 << 20 };

/* ------------------------------------------------------------ geometry */

/* The geometry of kh x kw windows moved by sh, sw over an image of shape
 * (ndim, shape) padded by ph, pw, or an error naming op. */
static NdConvGeometry geometry(const char *op, int ndim, const int64_t *shape,
                               int64_t kh, int64_t kw, int64_t sh,
                               int64_t sw, int64_t ph, int64_t pw,
                               bool to_matrix)
{
    char text[ND_SHAPE_TEXT];
    nd_check_shape(op, ndim, shape);
    if (ndim != 4)
        nd_error(op, "the image must be 4-D (N, C, H, W), got shape %s",
                 nd_format_shape(text, ndim, shape, false));
    if (kh < 1 || kw < 1)
        nd_error(op, "the kernel must be at least 1x1, got %" PRId64 "x%"
                 PRId64, kh, kw);
    if (sh < 1 || sw < 1)
        nd_error(op, "the stride must be positive, got %" PRId64 "x%" PRId64,
                 sh, sw);
    if (ph < 0 || pw < 0)
        nd_error(op, "the padding must not be negative, got %" PRId64 "x%"
                 PRId64, ph, pw);
    if (kh >= MAX_WINDOW_PARAM || kw >= MAX_WINDOW_PARAM ||
        sh >= MAX_WINDOW_PARAM || sw >= MAX_WINDOW_PARAM ||
        ph >= MAX_WINDOW_PARAM || pw >= MAX_WINDOW_PARAM)
        nd_error(op, "kernel %" PRId64 "x%" PRId64 ", stride %" PRId64 "x%"
                 PRId64 " or padding %" PRId64 "x%" PRId64 " is too large "
                 "(each must be below 2**31)", kh, kw, sh, sw, ph, pw);
    NdConvGeometry g = {
        .n = shape[0], .c = shape[1], .h = shape[2], .w = shape[3],
        .kh = kh, .kw = kw, .sh = sh, .sw = sw, .ph = ph, .pw = pw,
        .to_matrix = to_matrix,
    };
    if (kh > g.h + 2 * ph || kw > g.w + 2 * pw)
        nd_error(op, "the kernel %" PRId64 "x%" PRId64 " is larger than the "
                 "padded image %" PRId64 "x%" PRId64 " (%" PRId64 "x%" PRId64
                 " padded by %" PRId64 "x%" PRId64 ")", kh, kw, g.h + 2 * ph,
                 g.w + 2 * pw, g.h, g.w, ph, pw);
    g.oh = (g.h + 2 * ph - kh) / sh + 1;
    g.ow = (g.w + 2 * pw - kw) / sw + 1;
    nd_check_shape(op, 6, (const int64_t[]){g.n, g.c, kh, kw, g.oh, g.ow});
    return g;
}

/* The shape of col: returns its ndim. */
static int col_shape(const NdConvGeometry *g, int64_t shape[6])
{
    if (g->to_matrix) {
        shape[0] = g->n * g->oh * g->ow;
        shape[1] = g->c * g->kh * g->kw;
        return 2;
    }
    const int64_t six[6] = {g->n, g->c, g->kh, g->kw, g->oh, g->ow};
    memcpy(shape, six, sizeof six);
    return 6;
}

static void check_dtype(const char *op, NdDtype dtype)
{
    if (dtype != ND_FLOAT32 && dtype != ND_FLOAT64)
        nd_error(op, "not supported for the dtype %s (float32 and float64 "
                 "only)", nd_dtype_name(dtype));
}

/* The positions i in [0, n) for which i * stride + offset lies in
 * [0, size): [*lo, *hi), empty when none does. */
static void inside(int64_t offset, int64_t stride, int64_t size, int64_t n,
                   int64_t *lo, int64_t *hi)
{
    int64_t first = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
    int64_t end = size - 1 - offset < 0 ? 0 : (size - 1 - offset) / stride + 1;
    *lo = first < n ? first : n;
    *hi = end < *lo ? *lo : end < n ? end : n;
}

/* ------------------------------------------------------------ elements */

/* memcpy, with the short runs of a window's row (up to 32 bytes) made
 * of fixed-size moves that the compiler inlines: two that overlap where
 * the run lies between two sizes. */
static inline void copy_bytes(char *dst, const char *src, size_t n)
{
    if (n >= 16 && n <= 32) {
        memcpy(dst, src, 16);
        memcpy(dst + n - 16, src + n - 16, 16);
    } else if (n >= 8 && n < 16) {
        memcpy(dst, src, 8);
        memcpy(dst + n - 8, src + n - 8, 8);
    } else if (n == 4) {
        memcpy(dst, src, 4);
    } else {
        memcpy(dst, src, n);
    }
}

/* dst[i] = src[i * stride] for i < count, elements of es bytes. */
static inline void copy_elements(char *dst, const char *src, int64_t stride,
                                 int64_t count, size_t es)
{
    if (stride == 1) {
        copy_bytes(dst, src, (size_t)count * es);
    } else if (es == 8) {
        uint64_t *d = (uint64_t *)dst;
        const uint64_t *s = (const uint64_t *)src;
        for (int64_t i = 0; i < count; i++)
            d[i] = s[i * stride];
    } else {
        uint32_t *d = (uint32_t *)dst;
        const uint32_t *s = (const uint32_t *)src;
        for (int64_t i = 0; i < count; i++)
            d[i] = s[i * stride];
    }
}

/* dst[i * dst_stride] += src[i * src_stride] for i < count, as T: loops
 * that the compiler vectorises where the strides are 1. */
#define ADD_LOOP(T)                                                       \
    do {                                                                  \
        T *d = (T *)dst;                                                  \
        const T *s = (const T *)src;                                      \
        if (dst_stride == 1 && src_stride == 1)                           \
            for (int64_t i = 0; i < count; i++)                           \
                d[i] += s[i];                                             \
        else if (dst_stride == 1)                                         \
            for (int64_t i = 0; i < count; i++)                           \
                d[i] += s[i * src_stride];                                \
        else                                                              \
            for (int64_t i = 0; i < count; i++)                           \
                d[i * dst_stride] += s[i * src_stride];                   \
    } while (0)

/* The same for float32 or (f64) float64 elements. */
static inline void add_elements(char *dst, int64_t dst_stride,
                                const char *src, int64_t src_stride,
                                int64_t count, bool f64)
{
    if (f64)
        ADD_LOOP(double);
    else
        ADD_LOOP(float);
}

static inline void zero_elements(char *dst, int64_t count, size_t elsize)
{
    if (count > 0)
        memset(dst, 0, (size_t)count * elsize);    /* 0.0 in both dtypes */
}

/* ------------------------------------------------------------ one image */

/* The work on one image: img is its (C, H, W) elements, col its windows
 * (col + n * strides[0]); es is the element size. */
typedef struct Image {
    const NdConvGeometry *g;
    const int64_t *strides;         /* nd_conv_col_strides */
    size_t es;
    bool f64;
} Image;

/* The KW elements of a window's row that starts at column x0 of line,
 * an image row of W elements: those outside it are 0. */
static void copy_edge(char *dst, const char *line, int64_t x0,
                      const NdConvGeometry *g, size_t es)
{
    int64_t lo, hi;                 /* kx whose column is inside */
    inside(x0, 1, g->w, g->kw, &lo, &hi);
    zero_elements(dst, lo, es);
    if (hi > lo)
        copy_bytes(dst + lo * es, line + (x0 + lo) * es,
                   (size_t)(hi - lo) * es);
    zero_elements(dst + hi * es, g->kw - hi, es);
}

/* im2col into the matrix, a window row (oy, c, ky) at a time: its KW
 * elements in each window ox come from one row of the image, whole for
 * the windows inside it, in part at its edges. */
static void im2col_rows(const Image *m, char *col, const char *img)
{
    const NdConvGeometry *g = m->g;
    const int64_t *s = m->strides;
    size_t es = m->es, run = (size_t)g->kw * es;
    int64_t in_lo, in_hi;           /* ox whose window lies inside */
    inside(-g->pw, g->sw, g->w - g->kw + 1, g->ow, &in_lo, &in_hi);
    for (int64_t oy = 0; oy < g->oh; oy++) {
        for (int64_t c = 0; c < g->c; c++) {
            for (int64_t ky = 0; ky < g->kh; ky++) {
                /* (OW, KW) spaced s[5] apart */
                char *dst = col + (oy * s[4] + c * s[1] + ky * s[2]) * es;
                int64_t y = oy * g->sh - g->ph + ky, ox = 0;
                if (y < 0 || y >= g->h) {
                    for (; ox < g->ow; ox++)
                        zero_elements(dst + ox * s[5] * es, g->kw, es);
                    continue;
                }
                const char *line = img + (c * g->h + y) * g->w * es; // (W,)
                for (; ox < in_lo; ox++)
                    copy_edge(dst + ox * s[5] * es, line,
                              ox * g->sw - g->pw, g, es);
                for (; ox < in_hi; ox++)
                    copy_bytes(dst + ox * s[5] * es,
                               line + (ox * g->sw - g->pw) * es, run);
                for (; ox < g->ow; ox++)
                    copy_edge(dst + ox * s[5] * es, line,
                              ox * g->sw - g->pw, g, es);
            }
        }
    }
}

/* im2col into (C, KH, KW, OH, OW): for each (c, ky, kx, oy), a row of OW
 * elements read SW apart from one row of the image. */
static void im2col_planes(const Image *m, char *col, const char *img)
{
    const NdConvGeometry *g = m->g;
    const int64_t *s = m->strides;
    size_t es = m->es;
    for (int64_t c = 0; c < g->c; c++) {
        const char *plane = img + c * g->h * g->w * (int64_t)es;  // (H, W)
        for (int64_t ky = 0; ky < g->kh; ky++) {
            for (int64_t kx = 0; kx < g->kw; kx++) {
                int64_t lo, hi;             /* ox whose column is inside */
                inside(kx - g->pw, g->sw, g->w, g->ow, &lo, &hi);
                for (int64_t oy = 0; oy < g->oh; oy++) {
                    char *dst = col + (c * s[1] + ky * s[2] + kx * s[3] +
                                       oy * s[4]) * es;             // (OW,)
                    int64_t y = oy * g->sh - g->ph + ky;
                    if (y < 0 || y >= g->h) {
                        zero_elements(dst, g->ow, es);
                        continue;
                    }
                    int64_t x = lo * g->sw - g->pw + kx;
                    zero_elements(dst, lo, es);
                    if (hi > lo)
                        copy_elements(dst + lo * es,
                                      plane + (y * g->w + x) * es, g->sw,
                                      hi - lo, es);
                    zero_elements(dst + hi * es, g->ow - hi, es);
                }
            }
        }
    }
}

/* col2im from the matrix, one oy at a time from the last: for each kx
 * from the first, entry kx of every window ox added into the image rows
 * (c, oy*SH - PH + ky) the windows cover. So each image element receives
 * its entries in order of (ky, kx), as NumPy's DeZero adds them, the
 * matrix is read one oy at a time, and between two additions into an
 * image row come those into the others, so that its vector loads seldom
 * wait on the stores just made to it. */
static void col2im_rows(const Image *m, char *img, const char *col)
{
    const NdConvGeometry *g = m->g;
    const int64_t *s = m->strides;
    size_t es = m->es;
    for (int64_t oy = g->oh - 1; oy >= 0; oy--) {
        for (int64_t kx = 0; kx < g->kw; kx++) {
            int64_t lo, hi;             /* ox whose column is inside */
            inside(kx - g->pw, g->sw, g->w, g->ow, &lo, &hi);
            if (hi == lo)
                continue;
            int64_t x = lo * g->sw - g->pw + kx;
            for (int64_t c = 0; c < g->c; c++) {
                for (int64_t ky = 0; ky < g->kh; ky++) {
                    int64_t y = oy * g->sh - g->ph + ky;
                    if (y < 0 || y >= g->h)
                        continue;
                    /* entry kx of windows lo..hi, spaced s[5] apart */
                    const char *src = col + (c * s[1] + ky * s[2] +
                                             kx * s[3] + oy * s[4] +
                                             lo * s[5]) * es;
                    add_elements(img + ((c * g->h + y) * g->w + x) * es,
                                 g->sw, src, s[5], hi - lo, m->f64);
                }
            }
        }
    }
}

/* col2im from (C, KH, KW, OH, OW): DeZero's loop, each (ky, kx) slice
 * added in turn into the image, rows of OW entries SW apart. */
static void col2im_planes(const Image *m, char *img, const char *col)
{
    const NdConvGeometry *g = m->g;
    const int64_t *s = m->strides;
    size_t es = m->es;
    for (int64_t c = 0; c < g->c; c++) {
        char *plane = img + c * g->h * g->w * (int64_t)es;          // (H, W)
        for (int64_t ky = 0; ky < g->kh; ky++) {
            for (int64_t kx = 0; kx < g->kw; kx++) {
                int64_t lo, hi;
                inside(kx - g->pw, g->sw, g->w, g->ow, &lo, &hi);
                for (int64_t oy = 0; oy < g->oh; oy++) {
                    int64_t y = oy * g->sh - g->ph + ky;
                    if (y < 0 || y >= g->h || hi == lo)
                        continue;
                    const char *src = col + (c * s[1] + ky * s[2] +
                                             kx * s[3] + oy * s[4] +
                                             lo * s[5]) * es;
                    int64_t x = lo * g->sw - g->pw + kx;
                    add_elements(plane + (y * g->w + x) * es, g->sw, src,
                                 s[5], hi - lo, m->f64);
                }
            }
        }
    }
}

/* ------------------------------------------------------------ batches */

/* One call's images, shared out in blocks of `per_thread`. */
typedef struct Batch {
    Image image;
    bool backward;                  /* col2im, else im2col */
    char *out;                      /* col, or the image batch */
    const char *in;
    int64_t per_thread;
} Batch;

static void run_block(void *context, int thread)
{
    const Batch *b = context;
    const NdConvGeometry *g = b->image.g;
    size_t es = b->image.es;
    int64_t image_size = g->c * g->h * g->w;
    int64_t col_size = b->image.strides[0];
    int64_t first = thread * b->per_thread;
    int64_t end = first + b->per_thread < g->n ? first + b->per_thread : g->n;
    for (int64_t n = first; n < end; n++) {
        if (b->backward) {
            char *img = b->out + n * image_size * (int64_t)es;  // (C, H, W)
            zero_elements(img, image_size, es);
            const char *col = b->in + n * col_size * (int64_t)es;
            if (g->to_matrix)
                col2im_rows(&b->image, img, col);
            else
                col2im_planes(&b->image, img, col);
        } else {
            char *col = b->out + n * col_size * (int64_t)es;
            const char *img = b->in + n * image_size * (int64_t)es;
            if (g->to_matrix)
                im2col_rows(&b->image, col, img);
            else
                im2col_planes(&b->image, col, img);
        }
    }
}

/* im2col (into out, the col array) or col2im (into out, the image
 * batch) on the host, one block of images per thread when col is large. */
static void run_batch(const NdConvGeometry *g, bool backward, NdArray *out,
                      const NdArray *in, int64_t col_size)
{
    int64_t strides[6];
    nd_conv_col_strides(g, strides);
    int64_t threads = col_size >= THREADED_MIN_SIZE ? nd_usable_cpus() : 1;
    threads = threads < g->n ? threads : g->n;
    Batch b = {
        .image = {g, strides, nd_dtype_size(out->dtype),
                  out->dtype == ND_FLOAT64},
        .backward = backward, .out = out->data, .in = in->data,
        .per_thread = (g->n + threads - 1) / threads,
    };
    if (threads <= 1)
        run_block(&b, 0);
    else
        nd_parallel_run(run_block, &b, (int)threads);
}

/* im2col of in (an image batch) or, backward, col2im of in (a col
 * array), on device: a new array of shape (ndim, shape). */
static NdArray *transform(const char *op, const NdConvGeometry *g,
                          bool backward, const NdArray *in, NdDevice device,
                          int ndim, const int64_t *shape)
{
    NdArray *out = nd_empty_on(device, in->dtype, ndim, shape);
    if (out->size == 0)
        return out;
    const NdGpuBackend *kernels = nd_kernels(device);
    if (kernels)
        nd_device_check(op, device, backward ? kernels->col2im(out, in, g)
                                             : kernels->im2col(out, in, g));
    else
        run_batch(g, backward, out, in, backward ? in->size : out->size);
    return out;
}

/* ------------------------------------------------------------ public */

NdArray *nd_im2col(const NdArray *img, int64_t kh, int64_t kw, int64_t sh,
                   int64_t sw, int64_t ph, int64_t pw, bool to_matrix)
{
    const char *op = "nd_im2col";
    NdDevice device = nd_same_device(op, 1, &img);
    NdConvGeometry g = geometry(op, img->ndim, img->shape, kh, kw, sh, sw,
                                ph, pw, to_matrix);
    check_dtype(op, img->dtype);
    int64_t shape[6];       /* (N*OH*OW, C*KH*KW) or (N, C, KH, KW, OH, OW) */
    int ndim = col_shape(&g, shape);
    return transform(op, &g, false, img, device, ndim, shape);
}

NdArray *nd_col2im(const NdArray *col, int ndim, const int64_t *img_shape,
                   int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                   int64_t ph, int64_t pw, bool to_matrix)
{
    const char *op = "nd_col2im";
    NdDevice device = nd_same_device(op, 1, &col);
    NdConvGeometry g = geometry(op, ndim, img_shape, kh, kw, sh, sw, ph, pw,
                                to_matrix);
    check_dtype(op, col->dtype);
    int64_t shape[6];           /* what col's shape must be */
    int col_ndim = col_shape(&g, shape);
    bool same = col->ndim == col_ndim;
    for (int d = 0; same && d < col_ndim; d++)
        same = col->shape[d] == shape[d];
    if (!same) {
        char got[ND_SHAPE_TEXT], want[ND_SHAPE_TEXT], image[ND_SHAPE_TEXT];
        nd_error(op, "col has shape %s, but an image %s seen through %" PRId64
                 "x%" PRId64 " windows with stride %" PRId64 "x%" PRId64
                 " and padding %" PRId64 "x%" PRId64 " gives %s",
                 nd_shape_text(got, col),
                 nd_format_shape(image, ndim, img_shape, false), kh, kw, sh,
                 sw, ph, pw, nd_format_shape(want, col_ndim, shape, false));
    }
    return transform(op, &g, true, col, device, ndim, img_shape);
}
