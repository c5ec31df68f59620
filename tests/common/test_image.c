/* test_image.c - pictures (common/image.h): tiny PNG and JPEG files
 * read as PIL's convert('RGB') reads them, resized up and down as
 * PIL's resize does, all compared byte for byte with what Pillow made
 * of the same files (image_fixtures.h, written by image_fixtures.py);
 * then the files this refuses, each with its reason, a folder and the
 * pictures of more pixels than PIL's limit among them. (DeZero's
 * VGG16.preprocess, on the same files, is step 58's: test_vgg.c.) */
#define _GNU_SOURCE             /* memmem */
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "image.h"
#include "nd_test.h"
#include "scratch.h"
#include "capture_stderr.h"

#include "image_fixtures.h"

/* ------------------------------------------------------------ helpers */

/* Writes size bytes of data to name in the scratch folder; returns the
 * path (static, until the next call). */
static const char *scratch_file(const char *name, const void *data,
                                size_t size)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    return path;
}
#define FIXTURE(name, bytes) scratch_file(name, bytes, sizeof bytes)

/* Asserts that a is a (h, w, 3) uint8 array holding want's bytes. */
#define EXPECT_PICTURE(a, h, w, want)                                     \
    expect_picture(__FILE__, __LINE__, #a, a, h, w, want, sizeof want)
static void expect_picture(const char *file, int line, const char *expr,
                           const NdArray *a, int64_t h, int64_t w,
                           const unsigned char *want, size_t size)
{
    if (a->dtype != ND_UINT8 || a->ndim != 3 || a->shape[0] != h ||
        a->shape[1] != w || a->shape[2] != 3)
        nd_test_fail_at(file, line, "%s is a %s array of %d axes, want "
                        "(%lld, %lld, 3) uint8", expr,
                        nd_dtype_name(a->dtype), a->ndim, (long long)h,
                        (long long)w);
    assert_int_equal((size_t)a->size, size);
    const unsigned char *got = a->data;
    for (size_t i = 0; i < size; i++)
        if (got[i] != want[i])
            nd_test_fail_at(file, line, "%s[%zu, %zu, %zu] is %d, Pillow "
                            "gives %d", expr, i / 3 / (size_t)w,
                            i / 3 % (size_t)w, i % 3, got[i], want[i]);
}

/* ------------------------------------------------------------ reading */

static void test_read_png(void **state)
{
    (void)state;
    NdArray *a = nd_image_read(FIXTURE("a.png", fixture_png));
    EXPECT_PICTURE(a, 4, 5, fixture_png_rgb);
    nd_release(a);
}

/* libjpeg-turbo decodes for both, Pillow and this: the same bytes */
static void test_read_jpeg(void **state)
{
    (void)state;
    NdArray *a = nd_image_read(FIXTURE("a.jpg", fixture_jpg));
    EXPECT_PICTURE(a, 5, 6, fixture_jpg_rgb);
    nd_release(a);
}

/* A progressive JPEG, whose coefficients libjpeg keeps for the whole
 * picture before it decodes it: the limit on pixels is checked first. */
static void test_read_progressive_jpeg(void **state)
{
    (void)state;
    NdArray *a = nd_image_read(FIXTURE("p.jpg", fixture_progressive_jpg));
    EXPECT_PICTURE(a, 9, 11, fixture_progressive_rgb);
    nd_release(a);
}

/* convert('RGB'): grey repeated, palette looked up, alpha dropped, and
 * 16-bit grey clipped to 255 (Pillow reads it as 32-bit integers). */
static void test_read_converts_as_pil(void **state)
{
    (void)state;
    NdArray *a = nd_image_read(FIXTURE("grey.png", fixture_grey_png));
    EXPECT_PICTURE(a, 3, 2, fixture_grey_rgb);
    nd_release(a);
    a = nd_image_read(FIXTURE("palette.png", fixture_palette_png));
    EXPECT_PICTURE(a, 2, 3, fixture_palette_rgb);
    nd_release(a);
    a = nd_image_read(FIXTURE("rgba.png", fixture_rgba_png));
    EXPECT_PICTURE(a, 2, 2, fixture_rgba_rgb);
    nd_release(a);
    a = nd_image_read(FIXTURE("grey16.png", fixture_grey16_png));
    EXPECT_PICTURE(a, 1, 3, fixture_grey16_rgb);
    nd_release(a);
}

/* ------------------------------------------------------------ resize */

static void test_resize_up(void **state)
{
    (void)state;
    NdArray *a = nd_image_read(FIXTURE("a.png", fixture_png));
    NdArray *up = nd_image_resize(a, 9, 7);
    EXPECT_PICTURE(up, 7, 9, fixture_png_up);
    NdArray *wider = nd_image_resize(a, 8, 4);      /* one pass only */
    EXPECT_PICTURE(wider, 4, 8, fixture_png_wider);
    nd_release(wider);
    nd_release(up);
    nd_release(a);
}

static void test_resize_down(void **state)
{
    (void)state;
    NdArray *a = nd_image_read(FIXTURE("a.jpg", fixture_jpg));
    NdArray *down = nd_image_resize(a, 4, 2);
    EXPECT_PICTURE(down, 2, 4, fixture_jpg_down);
    NdArray *shorter = nd_image_resize(a, 6, 3);    /* one pass only */
    EXPECT_PICTURE(shorter, 3, 6, fixture_jpg_shorter);
    NdArray *same = nd_image_resize(a, 6, 5);       /* a copy */
    EXPECT_PICTURE(same, 5, 6, fixture_jpg_rgb);
    nd_release(same);
    nd_release(shorter);
    nd_release(down);
    nd_release(a);
}

/* ------------------------------------------------------------ refused */

static void test_missing_file(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/none.jpg", scratch);
    EXPECT_ND_ERROR(nd_image_read(path), "nd_image_read: cannot open ");
    EXPECT_MESSAGE_HAS("/none.jpg: No such file or directory");
}

static void test_not_a_picture(void **state)
{
    (void)state;
    const char text[] = "{0: 'tench, Tinca tinca'}";
    EXPECT_ND_ERROR(nd_image_read(FIXTURE("labels.txt", text)),
                    "/labels.txt: not a PNG or JPEG file; this reads PNG "
                    "and JPEG pictures");
    EXPECT_ND_ERROR(nd_image_read(scratch_file("empty.png", "", 0)),
                    "/empty.png: an empty file; this reads PNG and JPEG");
    EXPECT_ND_ERROR(nd_image_read(scratch), "nd_image_read: ");
    /* the read's error, not the "empty file" it used to be taken for */
    EXPECT_ND_ERROR(nd_image_read(scratch), "nd_image_read: cannot read ");
    EXPECT_MESSAGE_HAS(": Is a directory");
}

/* The first `keep` bytes of a file, read: the message must say so. */
static void expect_cut(const char *name, const unsigned char *bytes,
                       size_t keep, const char *want)
{
    const char *path = scratch_file(name, bytes, keep);
    EXPECT_ND_ERROR(nd_image_read(path), want);
}

/* Cut anywhere, in the header or in the pixels, each file says so: a
 * JPEG, even cut inside its header. */
static void test_truncated(void **state)
{
    (void)state;
    const size_t png_cuts[] = {8, 20, 40, sizeof fixture_png - 13};
    for (size_t i = 0; i < sizeof png_cuts / sizeof *png_cuts; i++)
        expect_cut("cut.png", fixture_png, png_cuts[i],
                   "/cut.png: a truncated PNG file (libpng: ");
    const size_t jpg_cuts[] = {3, 100, sizeof fixture_jpg / 2,
                               sizeof fixture_jpg - 2};
    for (size_t i = 0; i < sizeof jpg_cuts / sizeof *jpg_cuts; i++)
        expect_cut("cut.jpg", fixture_jpg, jpg_cuts[i], "/cut.jpg: a "
                   "truncated JPEG file: it ends before the picture does");
}

static void test_corrupt(void **state)
{
    (void)state;
    unsigned char png[sizeof fixture_png];
    memcpy(png, fixture_png, sizeof png);
    png[16 + 3] ^= 0x40;                    /* the width: the CRC fails */
    EXPECT_ND_ERROR(nd_image_read(FIXTURE("bad.png", png)),
                    "/bad.png: a corrupt PNG file (libpng: ");
    unsigned char jpg[sizeof fixture_jpg];
    memcpy(jpg, fixture_jpg, sizeof jpg);
    unsigned char *sof = memmem(jpg, sizeof jpg, "\xff\xc0", 2);
    assert_non_null(sof);
    sof[4] = 7;                             /* 7-bit samples: no such JPEG */
    EXPECT_ND_ERROR(nd_image_read(FIXTURE("bad.jpg", jpg)),
                    "/bad.jpg: a corrupt JPEG file (libjpeg: ");
}

/* ------------------------------------------------------------ bombs */

static void put_big_endian(unsigned char *at, int bytes, uint32_t value)
{
    for (int i = 0; i < bytes; i++)
        at[i] = (unsigned char)(value >> 8 * (bytes - 1 - i));
}

/* fixture_png with the width and height its header claims changed (and
 * the header's CRC with them), into png. */
static void png_claiming(unsigned char png[sizeof fixture_png],
                         uint32_t width, uint32_t height)
{
    memcpy(png, fixture_png, sizeof fixture_png);
    put_big_endian(png + 16, 4, width);
    put_big_endian(png + 20, 4, height);
    put_big_endian(png + 29, 4, (uint32_t)crc32(0, png + 12, 17));
}

/* The n bytes of a JPEG file with the size its frame header (baseline
 * or progressive) claims changed, into jpg. */
static void claiming(unsigned char *jpg, const unsigned char *bytes,
                     size_t n, uint16_t width, uint16_t height)
{
    memcpy(jpg, bytes, n);
    unsigned char *sof = memmem(jpg, n, "\xff\xc0", 2);
    if (!sof)
        sof = memmem(jpg, n, "\xff\xc2", 2);
    assert_non_null(sof);
    put_big_endian(sof + 5, 2, height);
    put_big_endian(sof + 7, 2, width);
}
#define jpg_claiming(jpg, width, height)                                  \
    claiming(jpg, fixture_jpg, sizeof fixture_jpg, width, height)

/* A small file whose header claims a huge picture is refused before it
 * is decoded, as PIL refuses it: more than twice PIL's
 * Image.MAX_IMAGE_PIXELS (89478485) is a DecompressionBombError. Not
 * refused, the 809-byte JPEG of 30000 x 30000 took 2.6 GB. */
static void test_decompression_bombs_are_refused(void **state)
{
    (void)state;
    unsigned char jpg[sizeof fixture_jpg];
    jpg_claiming(jpg, 30000, 30000);
    EXPECT_ND_ERROR(nd_image_read(FIXTURE("bomb.jpg", jpg)), "/bomb.jpg: "
                    "a picture of 30000 x 30000 = 900000000 pixels, more "
                    "than twice the limit of 89478485: a decompression "
                    "bomb? (PIL refuses it too, DecompressionBombError)");
    EXPECT_MESSAGE_HAS("raise the limit with ND_MAX_IMAGE_PIXELS=N (0 for "
                       "none) or nd_image_set_max_pixels()");
    unsigned char progressive[sizeof fixture_progressive_jpg];
    claiming(progressive, fixture_progressive_jpg, sizeof progressive,
             30000, 30000);
    EXPECT_ND_ERROR(nd_image_read(FIXTURE("bomb.jpg", progressive)),
                    "/bomb.jpg: a picture of 30000 x 30000 = 900000000 "
                    "pixels, more than twice the limit of 89478485");
    unsigned char png[sizeof fixture_png];
    png_claiming(png, 20000, 8948);         /* 2 * 89478485 + 30 */
    EXPECT_ND_ERROR(nd_image_read(FIXTURE("bomb.png", png)), "/bomb.png: "
                    "a picture of 20000 x 8948 = 178960000 pixels, more "
                    "than twice the limit of 89478485");
}

/* Reads path, which must give a (h, w, 3) picture. */
static void expect_size(const char *path, int64_t h, int64_t w)
{
    NdArray *a = nd_image_read(path);
    assert_int_equal(a->ndim, 3);
    assert_int_equal(a->shape[0], h);
    assert_int_equal(a->shape[1], w);
    nd_release(a);
}

/* The limit is PIL's MAX_IMAGE_PIXELS, to set: a picture of more pixels
 * than it is read with a warning (PIL's DecompressionBombWarning), of
 * more than twice as many refused; 0 is no limit (PIL's None); and
 * ND_MAX_IMAGE_PIXELS sets the default. */
static void test_the_pixel_limit_can_be_set(void **state)
{
    (void)state;
    char path[256], big[256];       /* FIXTURE's path is overwritten */
    snprintf(path, sizeof path, "%s", FIXTURE("a.png", fixture_png));
    assert_int_equal(nd_image_set_max_pixels(10), -1);
    capture_stderr(scratch);
    NdArray *a = nd_image_read(path);           /* 5 x 4 = 20 = 2 * 10 */
    const char *warned = captured();
    EXPECT_PICTURE(a, 4, 5, fixture_png_rgb);
    nd_release(a);
    assert_non_null(strstr(warned, "warning: nd_image_read: "));
    assert_non_null(strstr(warned, "/a.png: a picture of 5 x 4 = 20 "
                           "pixels, more than the limit of 10: a "
                           "decompression bomb? Read all the same, as PIL "
                           "reads it (DecompressionBombWarning)"));
    assert_int_equal(nd_image_set_max_pixels(9), 10);
    EXPECT_ND_ERROR(nd_image_read(path), "a.png: a picture of 5 x 4 = 20 "
                    "pixels, more than twice the limit of 9");
    unsigned char jpg[sizeof fixture_jpg];
    jpg_claiming(jpg, 60, 50);
    snprintf(big, sizeof big, "%s", FIXTURE("big.jpg", jpg));
    EXPECT_ND_ERROR(nd_image_read(big), "more than twice the limit of 9");
    /* no limit: read (libjpeg fills what the data lacks) */
    nd_image_set_max_pixels(0);
    expect_size(big, 50, 60);
    EXPECT_ND_ERROR(nd_image_set_max_pixels(-2), "nd_image_set_max_pixels: "
                    "-2 pixels; give a limit of 1 or more, 0 for none, or "
                    "-1 for the default");

    /* the default, from the environment */
    nd_image_set_max_pixels(-1);
    setenv("ND_MAX_IMAGE_PIXELS", "9", 1);
    EXPECT_ND_ERROR(nd_image_read(path), "more than twice the limit of 9");
    setenv("ND_MAX_IMAGE_PIXELS", "0", 1);
    expect_size(big, 50, 60);
    setenv("ND_MAX_IMAGE_PIXELS", "lots", 1);
    EXPECT_ND_ERROR(nd_image_read(path), "nd_image_read: "
                    "ND_MAX_IMAGE_PIXELS=lots is not a number of pixels: "
                    "set it to a whole number (0 for no limit), or unset "
                    "it for PIL's limit of 89478485");
    unsetenv("ND_MAX_IMAGE_PIXELS");
    a = nd_image_read(path);
    EXPECT_PICTURE(a, 4, 5, fixture_png_rgb);
    nd_release(a);
}

static void test_resize_misuse(void **state)
{
    (void)state;
    NdArray *grey = nd_zeros(ND_UINT8, ND_SHAPE(4, 5));
    EXPECT_ND_ERROR(nd_image_resize(grey, 2, 2), "nd_image_resize: takes "
                    "a (H, W, 3) uint8 host array (an RGB picture), not a "
                    "host uint8 array with 2 axes");
    NdArray *a = nd_zeros(ND_UINT8, ND_SHAPE(4, 5, 3));
    EXPECT_ND_ERROR(nd_image_resize(a, 0, 2), "nd_image_resize: a size of "
                    "0 x 2 pixels; it takes 1 to 65536 a side");
    nd_release(a);
    nd_release(grey);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_png),
        cmocka_unit_test(test_read_jpeg),
        cmocka_unit_test(test_read_progressive_jpeg),
        cmocka_unit_test(test_read_converts_as_pil),
        cmocka_unit_test(test_resize_up),
        cmocka_unit_test(test_resize_down),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_not_a_picture),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_decompression_bombs_are_refused),
        cmocka_unit_test(test_the_pixel_limit_can_be_set),
        cmocka_unit_test(test_resize_misuse),
    };
    return cmocka_run_group_tests_name("image", tests, make_scratch,
                                       remove_scratch);
}
