/* Step 58: a representative CNN, VGG16.
 *
 * Python's step58.py: downloads a picture of a zebra, preprocesses it
 * for VGG16 (VGG16.preprocess), builds VGG16 with its ImageNet weights
 * (a download of 528 MB), classifies the picture in test mode, draws
 * the model's graph into vgg.pdf and prints the name of the ImageNet
 * class predicted.
 *
 * TODO(image): the picture, its preprocessing, the downloads and the
 * class names come from common/'s image support (branch image:
 * nd_image_read, nd_vgg16_preprocess, nd_get_url, the ImageNet class
 * names), not connected yet. Until then the program builds VGG16, loads
 * the weights when the DeZero cache holds them, and says on stderr what
 * it cannot do yet, with exit status 1. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dezero.h"
#include "download.h"

int main(void)
{
    Pool *pool = pool_new();
    char *cache = nd_cache_dir();
    char weights[4096];
    snprintf(weights, sizeof weights, "%s/vgg16.npz", cache);

    if (access(weights, R_OK) != 0) {
        fprintf(stderr, "step58: vgg16.npz, VGG16's pretrained weights, "
                "is not in the DeZero cache ($DEZERO_CACHE_DIR, else "
                "~/.dezero); download it from %s\n", VGG16_WEIGHTS_URL);
    } else {
        Model *model = vgg16(.pretrained = weights);
        printf("VGG16: %d layers, weights loaded\n", model->nlayers);
        // TODO(image): x = VGG16.preprocess(zebra.jpg)[np.newaxis];
        // TEST_MODE { y = model(x) }; print labels[argmax(y)].
        fprintf(stderr, "step58: reading the picture and the ImageNet "
                "class names is not connected yet (common/image.h)\n");
    }
    free(cache);
    pool_drain(pool);
    return EXIT_FAILURE;
}
