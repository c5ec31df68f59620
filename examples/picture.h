/* picture.h - the examples' pictures: images tiled into a grid and
 * written as a gray PNG, whole or not at all (common/tempfile.h), where
 * Python's scripts draw them with plt.imshow(img, 'gray'); and colour
 * pictures written the same way (Python: cv2.imwrite, PIL's save). */
#ifndef EXAMPLES_PICTURE_H
#define EXAMPLES_PICTURE_H

#include <stdbool.h>

#include "nd.h"

/* The first rows x cols images of images (N, 1, H, W), any float dtype,
 * values in [0, 1], tiled in a grid of rows by cols (Python: one
 * plt.subplot(rows, cols, i + 1) each): a new array (rows H, cols W)
 * uint8, 0 black and 255 white. Borrows images, which must be on the
 * host and hold rows x cols images at least. */
NdArray *tile_images(const NdArray *images, int rows, int cols);

/* Writes image, (H, W) uint8, into the PNG file at path as 8-bit gray,
 * under a temporary name renamed to path once complete. Returns true;
 * false, with a message on stderr naming path, when it cannot. Borrows
 * both. */
bool write_gray_png(const NdArray *image, const char *path);
/* Writes image, (H, W, 3) uint8, red, green, blue (as nd_image_read
 * gives a picture), into the PNG file at path as 8-bit RGB, as
 * write_gray_png writes a gray one. Borrows both. */
bool write_rgb_png(const NdArray *image, const char *path);

#endif /* EXAMPLES_PICTURE_H */
