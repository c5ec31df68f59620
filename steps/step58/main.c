/* Step 58: a representative CNN, VGG16.
 *
 * Python's step58.py: downloads a picture of a zebra, preprocesses it
 * for VGG16 (224 x 224, BGR, minus ImageNet's mean, channels first),
 * builds VGG16 with its ImageNet weights (a download of 528 MB),
 * classifies the picture in test mode, draws the model's graph into
 * vgg.pdf with Graphviz and prints the name of the ImageNet class
 * predicted ("zebra").
 *
 * The three files come from the DeZero cache ($DEZERO_CACHE_DIR, else
 * ~/.dezero) and are downloaded there first when missing. Without the
 * network (or with DEZERO_OFFLINE set) a missing file stops the program
 * with exit status 1 and a message giving its URL and the path to save
 * it at by hand. Without Graphviz the class is still printed, vgg.pdf
 * is not drawn (stderr says why), and the exit status is 1.
 *
 * DEZERO_RANDOM_WEIGHTS=1 builds VGG16 with random weights of the real
 * shapes instead of downloading the 528 MB file: the whole program runs,
 * and the class it prints is a random pick. DEZERO_SEED=N seeds those
 * weights as np.random.seed(N) would, so that the pick can be repeated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "class_names.h"
#include "dezero.h"
#include "download.h"
#include "image.h"

#define ZEBRA_URL \
    "https://github.com/oreilly-japan/deep-learning-from-scratch-3/" \
    "raw/images/zebra.jpg"

/* Whether DEZERO_RANDOM_WEIGHTS is set, not empty and not "0" (the rule
 * DEZERO_OFFLINE follows). */
static bool random_weights(void)
{
    const char *value = getenv("DEZERO_RANDOM_WEIGHTS");
    return value && *value && strcmp(value, "0") != 0;
}

int main(void)
{
    Pool *pool = pool_new();
    nd_random_seed_from_env("DEZERO_SEED");

    char *img_path = nd_get_url(ZEBRA_URL);
    NdArray *img = nd_image_read(img_path);             // (H, W, 3) uint8
    free(img_path);

    NdArray *image = vgg16_preprocess(img, 224, 224);   // (3, 224, 224)
    NdArray *x = nd_expand_dims(image, 0);            // (1, 3, 224, 224)

    char *weights = random_weights() ? NULL
                                     : nd_get_url(VGG16_WEIGHTS_URL);
    Model *model = vgg16(.pretrained = weights);
    free(weights);
    Variable *y;
    TEST_MODE {
        y = layer_call(model, x);                       // (1, 1000)
    }
    NdArray *predict = nd_argmax(y->data, ND_NO_AXIS);  // () int64
    int64_t predict_id = (int64_t)nd_item(predict);

    bool drawn = model_plot(model, x, "vgg.pdf");
    int count;
    char **labels = imagenet_labels(&count);
    if (predict_id < count)
        puts(labels[predict_id]);
    else
        fprintf(stderr, "step58: class %lld has no name: the labels "
                "file names %d classes\n", (long long)predict_id, count);

    nd_free_class_names(labels, count);
    nd_release(predict);
    nd_release(x);
    nd_release(image);
    nd_release(img);
    pool_drain(pool);
    return drawn && predict_id < count ? EXIT_SUCCESS : EXIT_FAILURE;
}
