/* Step 55: how CNNs work (1).
 *
 * Python's step55.py: the output size of a convolution, from the input
 * size, the kernel size, the stride and the padding, computed by a
 * function of the script's own (step 57 puts the same formula in
 * dezero/utils.c). A 4 x 4 input, a 3 x 3 kernel, stride 1 and padding
 * 1 give a 4 x 4 output. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "dezero.h"

/* The output size along one axis: how many positions a kernel of
 * kernel_size takes on an input of input_size padded by pad on each
 * side, moving by stride. The division rounds down, as Python's // does
 * for these non-negative sizes. */
static int64_t get_conv_outsize(int64_t input_size, int64_t kernel_size,
                                int64_t stride, int64_t pad)
{
    return (input_size + pad * 2 - kernel_size) / stride + 1;
}

int main(void)
{
    int64_t H = 4, W = 4;      // Input size
    int64_t KH = 3, KW = 3;    // Kernel size
    int64_t SH = 1, SW = 1;    // Kernel stride
    int64_t PH = 1, PW = 1;    // Padding size

    int64_t OH = get_conv_outsize(H, KH, SH, PH);
    int64_t OW = get_conv_outsize(W, KW, SW, PW);
    printf("%" PRId64 " %" PRId64 "\n", OH, OW);
    return EXIT_SUCCESS;
}
