/* fuzz_idx.c - libFuzzer's target for the IDX reader (common/idx.h) and
 * the content checksum of common/download.h: any bytes, read as a file
 * (gzip or plain), must give an array or an nd_error, never a crash, a
 * sanitizer report, a leak or a huge allocation. `make fuzz` runs it. */
#define _GNU_SOURCE             /* memfd_create */
#include "download.h"
#include "fuzz.h"
#include "idx.h"

/* Each call in its own setjmp, so an error in one skips only it. */
static void load(const char *path, int ndim, const int64_t *shape)
{
    if (setjmp(jump) == 0)
        nd_release(nd_load_idx(path, ndim, shape));
}

static void load_pair(const char *images_path, const char *labels_path)
{
    NdArray *images = NULL, *labels = NULL;
    if (setjmp(jump) == 0) {
        nd_load_idx_labelled(images_path, labels_path, -1, -1, &images,
                             &labels);
        nd_release(images);
        nd_release(labels);
    }
}

static void hash(const char *path)
{
    if (setjmp(jump) == 0)
        free(nd_content_sha256(path));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static MemoryFile whole, first, second;
    if (!whole.path[0]) {
        open_memory_file(&whole, "whole");
        open_memory_file(&first, "first");
        open_memory_file(&second, "second");
        nd_set_error_handler(back_to_the_fuzzer);
    }
    fill(&whole, data, size);
    load(whole.path, ND_SHAPE(-1));
    load(whole.path, ND_SHAPE(-1, -1, -1));
    load(whole.path, ND_SHAPE(-1, 4, 4));
    load(whole.path, ND_SHAPE(2, 3));
    hash(whole.path);
    /* a pair: the first byte says where the images end */
    if (size > 1) {
        size_t cut = 1 + (size - 1) * data[0] / 255;
        fill(&first, data + 1, cut - 1);
        fill(&second, data + cut, size - cut);
        load_pair(first.path, second.path);
    }
    return 0;
}
