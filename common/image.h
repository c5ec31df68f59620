/* image.h - pictures as arrays, as PIL gives them to DeZero: PNG and
 * JPEG files read with libpng and libjpeg (libjpeg-turbo, the library
 * Pillow decodes with), and PIL's resize with its default filter.
 *
 *     NdArray *rgb = nd_image_read("zebra.jpg");       // (H, W, 3) uint8
 *     NdArray *small = nd_image_resize(rgb, 224, 224); // (224, 224, 3)
 *
 * Ownership as in nd.h: arrays returned are new host arrays, new
 * references the caller releases; everything passed in is borrowed.
 * Every problem (a missing file, a file that is neither PNG nor JPEG,
 * a truncated or corrupt one, a JPEG in CMYK, a picture of more pixels
 * than the limit allows) goes to nd_error() with a message naming the
 * file.
 */
#ifndef ND_IMAGE_H
#define ND_IMAGE_H

#include "nd.h"

/* PIL's Image.open(path).convert('RGB') as np.asarray gives it: a new
 * (H, W, 3) uint8 array, red, green, blue. As PIL converts: grey is
 * repeated in the three channels, a palette is looked up, an alpha
 * channel is dropped (not blended), 16-bit channels keep their high
 * byte, except 16-bit grey, whose values PIL clips to 255. A JPEG file
 * that ends early is an error, as in PIL. */
NdArray *nd_image_read(const char *path);

/* PIL's Image.MAX_IMAGE_PIXELS, 1024 * 1024 * 1024 // 4 // 3: a picture
 * of more pixels than the limit is read with a warning on stderr (PIL's
 * DecompressionBombWarning), one of more than twice the limit is
 * refused (DecompressionBombError), both before it is decoded, so that
 * a small file whose header claims 30000 x 30000 pixels cannot take
 * gigabytes. The environment variable ND_MAX_IMAGE_PIXELS, a whole
 * number (0 for no limit), replaces the default limit. */
#define ND_IMAGE_MAX_PIXELS 89478485

/* Sets the limit on pixels nd_image_read applies, as setting PIL's
 * Image.MAX_IMAGE_PIXELS does: 1 or more for a limit, 0 for none (PIL's
 * None), -1 for the default ($ND_MAX_IMAGE_PIXELS when set, else
 * ND_IMAGE_MAX_PIXELS). Returns the setting it replaces, to restore. */
int64_t nd_image_set_max_pixels(int64_t pixels);

/* PIL's image.resize((width, height)) with Pillow's default filter for
 * RGB pictures, bicubic (a = -0.5), computed as Pillow computes it, so
 * that the bytes are Pillow's: a horizontal pass, rounded to uint8,
 * then a vertical one, each with the filter widened by the reduction
 * factor when shrinking and 22-bit fixed-point weights. Takes a
 * (H, W, 3) uint8 host array; returns a new (height, width, 3) one. */
NdArray *nd_image_resize(const NdArray *image, int64_t width,
                         int64_t height);

#endif /* ND_IMAGE_H */
