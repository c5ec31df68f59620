/* vgg.h - what grad_cam and style_transfer share: VGG16 with its
 * ImageNet weights from the DeZero cache, or random ones of the same
 * shapes, and their pictures from the environment or the cache. */
#ifndef EXAMPLES_VGG_H
#define EXAMPLES_VGG_H

#include <stdbool.h>

#include "dezero.h"

/* Where Python's scripts download the book's zebra. */
#define ZEBRA_URL \
    "https://github.com/oreilly-japan/deep-learning-from-scratch-3/" \
    "raw/images/zebra.jpg"

/* Whether DEZERO_RANDOM_WEIGHTS is set, not empty and not "0" (the rule
 * DEZERO_OFFLINE follows, and step 58's). */
bool random_weights(void);

/* VGG16 (Python: VGG16(pretrained=True)), owned by the innermost pool:
 * with the weights of the DeZero cache, downloaded there first as step
 * 58 does (528 MB) unless DEZERO_OFFLINE forbids it, in which case the
 * program stops with exit status 1 and the URL to fetch and the path to
 * save it at; with DEZERO_RANDOM_WEIGHTS, random weights of the real
 * shapes, made at the first call. The real weights want pictures of
 * 224 x 224 (fc6 takes 512 x 7 x 7 values): size, the side of the
 * pictures the program gives the model, must then be 224; who names
 * the program in the error. */
Model *example_vgg16(const char *who, int64_t size);

/* The picture named by the environment variable name, a path, when set
 * and not empty; else the file at url in the DeZero cache, downloaded
 * there first (Python: dezero.utils.get_file(url)). A new (H, W, 3)
 * uint8 array, as nd_image_read gives it. */
NdArray *example_picture(const char *name, const char *url);

#endif /* EXAMPLES_VGG_H */
