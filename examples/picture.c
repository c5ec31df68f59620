/* picture.c - images tiled into a grid and written as a gray or an RGB
 * PNG with libpng, through common/tempfile.h (picture.h). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "picture.h"
#include "tempfile.h"

/* a's shape as text, "(2, 3)", in text: nd_error's operand, which
 * must not leak when a test's handler takes over at the error. */
static const char *shape_text(const NdArray *a, char *text, size_t size)
{
    char *shape = nd_shape_str(a);
    snprintf(text, size, "%s", shape);
    free(shape);
    return text;
}

NdArray *tile_images(const NdArray *images, int rows, int cols)
{
    char text[128];
    if (images->ndim != 4 || images->shape[1] != 1 ||
        images->shape[0] < (int64_t)rows * cols)
        nd_error("tile_images", "want (N >= %d, 1, H, W) images, not %s",
                 rows * cols, shape_text(images, text, sizeof text));
    int64_t h = images->shape[2], w = images->shape[3];
    NdArray *values = nd_astype(images, ND_FLOAT64);   // (N, 1, H, W)
    NdArray *grid = nd_empty(ND_UINT8, ND_SHAPE(rows * h, cols * w));
    const double *v = ND_DATA(values, double);
    uint8_t *g = ND_DATA(grid, uint8_t);
    for (int64_t k = 0; k < (int64_t)rows * cols; k++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                double p = v[(k * h + y) * w + x];
                p = isnan(p) ? 0 : p < 0 ? 0 : p > 1 ? 1 : p;
                g[((k / cols) * h + y) * cols * w + (k % cols) * w + x] =
                    (uint8_t)lround(p * 255);
            }
    nd_release(values);
    return grid;
}

/* libpng's error handler: back to write_gray_png's setjmp. */
static void png_failed(png_structp png, png_const_charp message)
{
    fprintf(stderr, "libpng: %s\n", message);
    png_longjmp(png, 1);
}

/* Writes image, (H, W) or (H, W, 3) uint8, as write_gray_png and
 * write_rgb_png say; who names the caller in an error. */
static bool write_png(const NdArray *image, const char *path,
                      const char *who, int channels)
{
    char text[128];
    if (image->dtype != ND_UINT8 || image->device != ND_CPU ||
        image->ndim != (channels == 1 ? 2 : 3) ||
        (channels == 3 && image->shape[2] != 3))
        nd_error(who, "%s: want an (H, W%s) uint8 image on the host, "
                 "not %s", path, channels == 1 ? "" : ", 3",
                 shape_text(image, text, sizeof text));
    char *temporary;
    FILE *f = nd_create_file(path, &temporary);
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        return false;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
                                              png_failed, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    volatile bool ok = png && info;
    if (ok && setjmp(png_jmpbuf(png)) == 0) {
        png_init_io(png, f);
        png_set_IHDR(png, info, (png_uint_32)image->shape[1],
                     (png_uint_32)image->shape[0], 8,
                     channels == 1 ? PNG_COLOR_TYPE_GRAY
                                   : PNG_COLOR_TYPE_RGB,
                     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                     PNG_FILTER_TYPE_DEFAULT);
        png_write_info(png, info);
        const uint8_t *rows = ND_DATA(image, uint8_t);
        int64_t row = image->shape[1] * channels;
        for (int64_t y = 0; y < image->shape[0]; y++)
            png_write_row(png, rows + y * row);
        png_write_end(png, NULL);
    } else {
        ok = false;
    }
    png_destroy_write_struct(&png, &info);
    char problem[512];
    bool written = nd_close_file(f, temporary, path, ok, problem,
                                 sizeof problem);
    if (!ok)
        fprintf(stderr, "cannot write %s: libpng failed\n", path);
    else if (!written)
        fprintf(stderr, "%s\n", problem);
    return written;
}

bool write_gray_png(const NdArray *image, const char *path)
{
    return write_png(image, path, "write_gray_png", 1);
}

bool write_rgb_png(const NdArray *image, const char *path)
{
    return write_png(image, path, "write_rgb_png", 3);
}
