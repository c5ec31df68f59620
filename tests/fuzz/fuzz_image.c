/* fuzz_image.c - libFuzzer's target for the picture reader
 * (common/image.h): any bytes, read as a PNG or JPEG file, must give a
 * (H, W, 3) uint8 picture or an nd_error, never a crash, a sanitizer
 * report, a leak or a huge allocation. The limit on pixels is in force,
 * as in every program, set lower here (FUZZ_MAX_PIXELS): a picture of
 * up to twice as many pixels, 6 MB, is decoded, so that each input
 * stays within the 64 MB that `make fuzz` allows one allocation and is
 * read in milliseconds. `make fuzz` runs it after fuzz_npz. */
#define _GNU_SOURCE             /* memfd_create */
#include "fuzz.h"
#include "image.h"

enum { FUZZ_MAX_PIXELS = 1 << 20 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static MemoryFile file;
    if (!file.path[0]) {
        open_memory_file(&file, "image");
        nd_set_error_handler(back_to_the_fuzzer);
        nd_image_set_max_pixels(FUZZ_MAX_PIXELS);
    }
    fill(&file, data, size);
    NdArray *volatile image = NULL;
    if (setjmp(jump) == 0)
        image = nd_image_read(file.path);
    if (!image)
        return 0;
    if (image->dtype != ND_UINT8 || image->ndim != 3 ||
        image->shape[2] != 3 ||
        image->shape[0] * image->shape[1] > 2 * FUZZ_MAX_PIXELS) {
        fprintf(stderr, "fuzz_image: a picture of %d axes, not (H, W, 3) "
                "uint8 within the limit\n", image->ndim);
        abort();
    }
    nd_release(image);
    return 0;
}
