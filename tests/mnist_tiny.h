/* mnist_tiny.h - a tiny MNIST of the test suite's own, so that the
 * programs and tests of step 51 on train on something without the
 * network: MNIST's four files, under MNIST's names, holding 1000
 * training and 200 test images of 28 x 28 pixels, each a seven-segment
 * digit of random size, place, stroke and ink on a faintly noisy
 * background, labelled with its digit: 0, 1, ..., 9, 0, 1, ... so that
 * every digit is as frequent. The files are IDX, as MNIST's:
 * the training pair gzip-compressed (train-images-idx3-ubyte.gz, ...),
 * the test pair plain under the names without .gz, the two forms a
 * DeZero cache may hold. The same bytes every time: a fixed generator
 * draws them.
 *
 *     char problem[256];
 *     if (!mnist_tiny_write(dir, MNIST_TINY_TRAIN, MNIST_TINY_TEST,
 *                           problem, sizeof problem)) ...
 *
 * Used by tests/golden_test.c (the program's scratch folder), by
 * tests/mnist_tiny.c (the valgrind run of tests/run.sh) and by the
 * capability tests. Everything is static: include it once per program. */
#ifndef MNIST_TINY_H
#define MNIST_TINY_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

/* How many images each set holds unless told otherwise: enough for the
 * loss of step 51's network to fall clearly from every epoch to the
 * next (by 0.01 or more, the test loss too), in a second. */
enum {
    MNIST_TINY_TRAIN = 1000,
    MNIST_TINY_TEST = 200,
    MNIST_TINY_SIDE = 28,
};

/* The four names, as MNIST's, in the order training images, training
 * labels, test images, test labels. */
static const char *const mnist_tiny_names[4] = {
    "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte",
};

/* xorshift32: the same numbers on every machine. */
static uint32_t mnist_tiny_next(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

/* An integer in [lo, hi]. */
static int mnist_tiny_between(uint32_t *state, int lo, int hi)
{
    return lo + (int)(mnist_tiny_next(state) % (uint32_t)(hi - lo + 1));
}

/* Fills the rectangle [x0, x1) x [y0, y1) of the image with ink. */
static void mnist_tiny_fill(uint8_t *image, int x0, int y0, int x1, int y1,
                            uint8_t ink)
{
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            image[y * MNIST_TINY_SIDE + x] = ink;
}

/* Draws digit as seven segments, a to g clockwise from the top and the
 * middle last, into image (28 x 28), with a faint noise behind it. */
static void mnist_tiny_digit(uint8_t *image, int digit, uint32_t *state)
{
    /* bit s of segments[digit]: segment 'a' + s is lit */
    static const uint8_t segments[10] = {0x3f, 0x06, 0x5b, 0x4f, 0x66,
                                         0x6d, 0x7d, 0x07, 0x7f, 0x6f};
    for (int i = 0; i < MNIST_TINY_SIDE * MNIST_TINY_SIDE; i++)
        image[i] = mnist_tiny_next(state) % 16 == 0
                       ? (uint8_t)mnist_tiny_between(state, 1, 60) : 0;
    int w = mnist_tiny_between(state, 14, 17);
    int h = mnist_tiny_between(state, 20, 23);
    int x0 = mnist_tiny_between(state, 4, 24 - w);
    int y0 = mnist_tiny_between(state, 2, 26 - h);
    int t = mnist_tiny_between(state, 3, 4);
    uint8_t ink = (uint8_t)mnist_tiny_between(state, 200, 255);
    int x1 = x0 + w, y1 = y0 + h, ym = y0 + h / 2;
    int rect[7][4] = {
        {x0, y0, x1, y0 + t},                   /* a: top */
        {x1 - t, y0, x1, ym + 1},               /* b: upper right */
        {x1 - t, ym, x1, y1},                   /* c: lower right */
        {x0, y1 - t, x1, y1},                   /* d: bottom */
        {x0, ym, x0 + t, y1},                   /* e: lower left */
        {x0, y0, x0 + t, ym + 1},               /* f: upper left */
        {x0, ym - t / 2, x1, ym - t / 2 + t},   /* g: middle */
    };
    for (int s = 0; s < 7; s++)
        if (segments[digit] >> s & 1)
            mnist_tiny_fill(image, rect[s][0], rect[s][1], rect[s][2],
                            rect[s][3], ink);
}

/* The IDX header of unsigned bytes of shape (ndim, shape) into header;
 * returns its length. */
static size_t mnist_tiny_header(uint8_t *header, int ndim,
                                const uint32_t *shape)
{
    size_t n = 0;
    header[n++] = 0;
    header[n++] = 0;
    header[n++] = 0x08;                         /* unsigned byte */
    header[n++] = (uint8_t)ndim;
    for (int d = 0; d < ndim; d++)
        for (int shift = 24; shift >= 0; shift -= 8)
            header[n++] = (uint8_t)(shape[d] >> shift);
    return n;
}

/* Writes the IDX file dir/name, gzip-compressed when name ends in .gz:
 * a header for (ndim, shape), then the bytes. False, with the reason in
 * problem, when it cannot. */
static bool mnist_tiny_file(const char *dir, const char *name, int ndim,
                            const uint32_t *shape, const uint8_t *bytes,
                            size_t n, char *problem, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    uint8_t header[16];
    size_t header_len = mnist_tiny_header(header, ndim, shape);
    size_t len = strlen(name);
    bool ok;
    errno = 0;
    if (len > 3 && strcmp(name + len - 3, ".gz") == 0) {
        gzFile f = gzopen(path, "wb9");
        ok = f && gzwrite(f, header, (unsigned)header_len) ==
                      (int)header_len &&
             gzwrite(f, bytes, (unsigned)n) == (int)n;
        ok = f && gzclose(f) == Z_OK && ok;
    } else {
        FILE *f = fopen(path, "wb");
        ok = f && fwrite(header, 1, header_len, f) == header_len &&
             fwrite(bytes, 1, n, f) == n;
        ok = f && fclose(f) == 0 && ok;
    }
    if (!ok)
        snprintf(problem, size, "cannot write %.400s: %s", path,
                 errno ? strerror(errno) : "zlib failed");
    return ok;
}

/* Writes the four files into the folder dir, replacing any there:
 * ntrain training images and ntest test images (MNIST_TINY_TRAIN and
 * MNIST_TINY_TEST, or fewer for a slow run such as valgrind's; the
 * first images are the same whatever the counts). Returns true; false,
 * with the reason in problem, when it cannot. */
static bool mnist_tiny_write(const char *dir, int ntrain, int ntest,
                             char *problem, size_t size)
{
    const int side = MNIST_TINY_SIDE, counts[2] = {ntrain, ntest};
    for (int set = 0; set < 2; set++) {
        uint32_t n = (uint32_t)counts[set];
        uint32_t state = set == 0 ? 20240551 : 20241051;
        uint8_t *images = malloc((size_t)n * side * side);
        uint8_t *labels = malloc(n);
        if (!images || !labels) {
            free(labels);
            free(images);
            snprintf(problem, size, "out of memory");
            return false;
        }
        for (uint32_t i = 0; i < n; i++) {
            labels[i] = (uint8_t)(i % 10);
            mnist_tiny_digit(images + (size_t)i * side * side, labels[i],
                             &state);
        }
        uint32_t image_shape[3] = {n, (uint32_t)side, (uint32_t)side};
        bool ok = mnist_tiny_file(dir, mnist_tiny_names[2 * set], 3,
                                  image_shape, images,
                                  (size_t)n * side * side, problem, size) &&
                  mnist_tiny_file(dir, mnist_tiny_names[2 * set + 1], 1, &n,
                                  labels, n, problem, size);
        free(labels);
        free(images);
        if (!ok)
            return false;
    }
    return true;
}

#endif /* MNIST_TINY_H */
