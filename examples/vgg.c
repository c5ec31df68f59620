/* vgg.c - VGG16 and the pictures for grad_cam and style_transfer
 * (vgg.h). */
#include <stdlib.h>
#include <string.h>

#include "download.h"
#include "image.h"
#include "vgg.h"

bool random_weights(void)
{
    const char *value = getenv("DEZERO_RANDOM_WEIGHTS");
    return value && *value && strcmp(value, "0") != 0;
}

Model *example_vgg16(const char *who, int64_t size)
{
    if (random_weights())
        return vgg16();
    if (size != 224)
        nd_error(who, "VGG16's ImageNet weights want 224 x 224 pictures, "
                 "not %lld x %lld (DEZERO_RANDOM_WEIGHTS=1 takes any "
                 "multiple of 32)", (long long)size, (long long)size);
    char *weights = nd_get_url(VGG16_WEIGHTS_URL);
    Model *model = vgg16(.pretrained = weights);
    free(weights);
    return model;
}

NdArray *example_picture(const char *name, const char *url)
{
    const char *path = getenv(name);
    if (path && *path)
        return nd_image_read(path);
    char *cached = nd_get_url(url);
    NdArray *picture = nd_image_read(cached);      // (H, W, 3) uint8
    free(cached);
    return picture;
}
