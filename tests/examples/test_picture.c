/* test_picture.c - examples/picture.c, the examples' pictures: images
 * in [0, 1] tiled into a grid of uint8 pixels, values outside clipped
 * and NaN black, as NumPy computes it; the grid written as a gray PNG
 * that reads back (common/image.h) pixel for pixel, whole or not at
 * all; an RGB picture written and read back the same way; and the
 * errors, which name what is wrong. */
#include <math.h>

#include "nd_test.h"
#include "scratch.h"
#include "image.h"
#include "picture.h"

/* Two images (2, 1, 2, 3), tiled 1 x 2: (2, 6). The expected pixels
 * are NumPy's: g = np.concatenate([x[0, 0], x[1, 0]], axis=1), then
 * np.round(np.clip(np.nan_to_num(g.astype(np.float64)), 0, 1) * 255). */
static NdArray *two_images(void)
{
    static const float values[] = {0, .5f, 1, -1, 2, NAN,
                                   .25f, .75f, .1f, .9f, 0, 1};
    return nd_from_buffer(ND_FLOAT32, ND_SHAPE(2, 1, 2, 3), values);
}

static void test_tile_images_clips_and_rounds(void **state)
{
    (void)state;
    NdArray *images = two_images();
    NdArray *grid = tile_images(images, 1, 2);
    EXPECT_ARRAY(grid, ND_UINT8, ND_SHAPE(2, 6), 0, 128, 255, 64, 191, 26,
                 0, 255, 0, 229, 0, 255);
    nd_release(grid);
    grid = tile_images(images, 2, 1);           /* one above the other */
    EXPECT_ARRAY(grid, ND_UINT8, ND_SHAPE(4, 3), 0, 128, 255, 0, 255, 0,
                 64, 191, 26, 229, 0, 255);
    nd_release(grid);
    nd_release(images);
}

static void test_png_reads_back(void **state)
{
    (void)state;
    NdArray *images = two_images();
    NdArray *grid = tile_images(images, 1, 2);
    const char *path = in_scratch("grid.png");
    assert_true(write_gray_png(grid, path));
    assert_int_equal(leftovers(), 0);
    NdArray *rgb = nd_image_read(path);         // (2, 6, 3): grey thrice
    assert_int_equal(rgb->ndim, 3);
    assert_int_equal(rgb->shape[0], 2);
    assert_int_equal(rgb->shape[1], 6);
    for (int64_t i = 0; i < 12; i++)
        for (int c = 0; c < 3; c++)
            assert_int_equal(ND_DATA(rgb, uint8_t)[3 * i + c],
                             ND_DATA(grid, uint8_t)[i]);
    nd_release(rgb);
    nd_release(grid);
    nd_release(images);
}

/* A (2, 3, 3) RGB picture, every byte different, written and read
 * back byte for byte: red, green and blue in their places. */
static void test_rgb_png_reads_back(void **state)
{
    (void)state;
    NdArray *picture = nd_empty(ND_UINT8, ND_SHAPE(2, 3, 3));
    for (int64_t i = 0; i < 18; i++)
        ND_DATA(picture, uint8_t)[i] = (uint8_t)(i * 14 + 3);
    const char *path = in_scratch("picture.png");
    assert_true(write_rgb_png(picture, path));
    assert_int_equal(leftovers(), 0);
    NdArray *rgb = nd_image_read(path);
    EXPECT_ARRAY(rgb, ND_UINT8, ND_SHAPE(2, 3, 3), 3, 17, 31, 45, 59, 73,
                 87, 101, 115, 129, 143, 157, 171, 185, 199, 213, 227, 241);
    nd_release(rgb);
    nd_release(picture);
}

static void test_errors_name_the_problem(void **state)
{
    (void)state;
    NdArray *images = two_images();
    EXPECT_ND_ERROR(tile_images(images, 2, 2), "want (N >= 4, 1, H, W)");
    EXPECT_ND_ERROR(write_gray_png(images, in_scratch("x.png")),
                    "x.png: want an (H, W) uint8 image");
    NdArray *grid = tile_images(images, 1, 2);
    assert_false(write_gray_png(grid, in_scratch("no/such/grid.png")));
    EXPECT_ND_ERROR(write_rgb_png(grid, in_scratch("x.png")),
                    "x.png: want an (H, W, 3) uint8 image");
    assert_int_equal(leftovers(), 0);
    nd_release(grid);
    nd_release(images);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tile_images_clips_and_rounds),
        cmocka_unit_test(test_png_reads_back),
        cmocka_unit_test(test_rgb_png_reads_back),
        cmocka_unit_test(test_errors_name_the_problem),
    };
    return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
