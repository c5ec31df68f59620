/* mnist_tiny.c - writes the test suite's tiny MNIST (mnist_tiny.h) into
 * a folder: for the runs tests/run.sh makes by hand (valgrind's, on 100
 * images of each set), and for a reader who wants to run step 51
 * without the network:
 *
 *     tests/build/default/mnist_tiny DIR [TRAIN TEST]
 *     DEZERO_CACHE_DIR=DIR steps/step51/step51 */
#include "mnist_tiny.h"

int main(int argc, char **argv)
{
    int counts[2] = {MNIST_TINY_TRAIN, MNIST_TINY_TEST};
    for (int i = 0; argc == 4 && i < 2; i++) {
        char *end;
        long n = strtol(argv[2 + i], &end, 10);
        counts[i] = *end || n < 1 || n > 60000 ? -1 : (int)n;
    }
    if ((argc != 2 && argc != 4) || counts[0] < 0 || counts[1] < 0) {
        fprintf(stderr, "usage: mnist_tiny DIR [TRAIN TEST]   (counts of "
                "images, from 1 to 60000)\n");
        return 2;
    }
    char problem[512];
    if (!mnist_tiny_write(argv[1], counts[0], counts[1], problem,
                          sizeof problem)) {
        fprintf(stderr, "mnist_tiny: %s\n", problem);
        return 1;
    }
    return 0;
}
