/* Step 57: conv2d and pooling functions.
 *
 * Python's step57.py: im2col on one image of 3 channels of 7 x 7, then
 * on a batch of 10, with a 5 x 5 kernel, and the shapes of the matrices
 * it makes; then conv2d_simple on an image of 5 channels of 15 x 15 with
 * 8 filters of 3 x 3, stride 1 and padding 1, backward, and the shapes
 * of the output and of the input's gradient. The inputs are random and
 * unseeded, as Python's; the shapes do not depend on them. */
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

/* Prints the shape of v's data as Python prints v.shape: (9, 75). */
static void print_shape(const Variable *v)
{
    char *text = nd_shape_str(v->data);
    puts(text);
    free(text);
}

int main(void)
{
    nd_random_seed_from_env("DEZERO_SEED");
    Pool *pool = pool_new();

    // im2col
    NdArray *x1 = nd_random_rand(ND_SHAPE(1, 3, 7, 7));
    Variable *col1 = F_im2col(x1, pair(5), .stride = pair(1),
                              .pad = pair(0));
    print_shape(col1);  // (9, 75)

    NdArray *x2 = nd_random_rand(ND_SHAPE(10, 3, 7, 7));  // 10 images
    Pair kernel_size = {5, 5};
    Pair stride = {1, 1};
    Pair pad = {0, 0};
    Variable *col2 = F_im2col(x2, kernel_size, .stride = stride,
                              .pad = pad);
    print_shape(col2);  // (90, 75)

    // conv2d
    int64_t N = 1, C = 5, H = 15, W = 15;
    int64_t OC = 8, KH = 3, KW = 3;
    Variable *x = variable(nd_random_randn(ND_SHAPE(N, C, H, W)));
    NdArray *Weight = nd_random_randn(ND_SHAPE(OC, C, KH, KW));
    Variable *y = F_conv2d_simple(x, Weight, NULL, .stride = pair(1),
                                  .pad = pair(1));
    backward(y);
    print_shape(y);  // (1, 8, 15, 15)
    print_shape(x->grad);       // (1, 5, 15, 15)

    nd_release(Weight);
    nd_release(x2);
    nd_release(x1);
    pool_drain(pool);
    return EXIT_SUCCESS;
}
