/* fuzz_npz.c - libFuzzer's target for the .npz reader (common/npz.h):
 * any bytes, read as an .npz file, must give its keys and arrays or an
 * nd_error, never a crash, a sanitizer report, a leak or a huge
 * allocation. `make fuzz` runs it after fuzz_idx. */
#define _GNU_SOURCE             /* memfd_create */
#include "fuzz.h"
#include "npz.h"

/* The archive at path, or NULL after an error. */
static NdNpz *open_npz(const char *path)
{
    NdNpz *volatile npz = NULL;
    if (setjmp(jump) == 0)
        npz = nd_npz_open(path);
    return npz;
}

/* A bool array is summed too: each of its bytes must be 0 or 1, which
 * UBSan checks as the sum loads them. */
static void get(NdNpz *npz, const char *key)
{
    if (setjmp(jump) == 0) {
        NdArray *a = nd_npz_get(npz, key);
        if (a->dtype == ND_BOOL)
            nd_release(nd_sum(a, ND_ALL_AXES, false));
        nd_release(a);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static MemoryFile file;
    if (!file.path[0]) {
        open_memory_file(&file, "npz");
        nd_set_error_handler(back_to_the_fuzzer);
    }
    fill(&file, data, size);
    NdNpz *npz = open_npz(file.path);
    if (!npz)
        return 0;
    int count;
    const char *const *keys = nd_npz_keys(npz, &count);
    for (int i = 0; i < count; i++)
        get(npz, keys[i]);
    get(npz, "absent");
    nd_npz_close(npz);
    return 0;
}
