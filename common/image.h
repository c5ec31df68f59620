/* image.h - pictures as arrays, as PIL gives them to DeZero: PNG and
 * JPEG files read with libpng and libjpeg (libjpeg-turbo, the library
 * Pillow decodes with), PIL's resize with its default filter, and
 * VGG16.preprocess, which turns a picture into the network's input.
 *
 *     NdArray *rgb = nd_image_read("zebra.jpg");       // (H, W, 3) uint8
 *     NdArray *x = nd_vgg16_preprocess(rgb, 224, 224); // (3, 224, 224)
 *
 * Ownership as in nd.h: arrays returned are new host arrays, new
 * references the caller releases; everything passed in is borrowed.
 * Every problem (a missing file, a file that is neither PNG nor JPEG,
 * a truncated or corrupt one, a JPEG in CMYK) goes to nd_error() with
 * a message naming the file.
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

/* PIL's image.resize((width, height)) with Pillow's default filter for
 * RGB pictures, bicubic (a = -0.5), computed as Pillow computes it, so
 * that the bytes are Pillow's: a horizontal pass, rounded to uint8,
 * then a vertical one, each with the filter widened by the reduction
 * factor when shrinking and 22-bit fixed-point weights. Takes a
 * (H, W, 3) uint8 host array; returns a new (height, width, 3) one. */
NdArray *nd_image_resize(const NdArray *image, int64_t width,
                         int64_t height);

/* DeZero's VGG16.preprocess(image, size=(width, height)): resized as
 * above (not when width and height are both 0, Python's size=None),
 * float32, channels reversed to BGR, minus ImageNet's mean
 * [103.939, 116.779, 123.68] (B, G, R), channels first. Takes a
 * (H, W, 3) uint8 RGB host array; returns a new (3, height, width)
 * float32 array. */
NdArray *nd_vgg16_preprocess(const NdArray *image, int64_t width,
                             int64_t height);

#endif /* ND_IMAGE_H */
