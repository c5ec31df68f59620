/* cuda.c - the GPU, as the book's cuda.py: whether it can be used, and
 * why not; where an array or a Variable computes (Python:
 * get_array_module); and arrays moved to the host or to the GPU
 * (as_numpy, as_cupy). Python imports CuPy and falls back to NumPy
 * when that fails; here common/ is both, one array type whose device
 * field says where its elements are, and it opens its GPU half with
 * dlopen on the first ask, so that the program runs, and says why it
 * stays on the CPU, on a machine without CUDA. */
#include "dezero.h"

/* Python: gpu_enable, set once by the try around `import cupy`. */
bool gpu_enable(void)
{
    return nd_gpu_available();
}

const char *gpu_status(void)
{
    return nd_gpu_status();
}

/* What Python's as_cupy raises as 'CuPy cannot be loaded. Install
 * CuPy!', with the reason the GPU half gives. */
void require_gpu(const char *who)
{
    if (!gpu_enable())
        nd_error(who, "the GPU cannot be used: %s; check gpu_enable() "
                 "first, and train on the CPU without it", gpu_status());
}

/* Python: cp.get_array_module(x), numpy for anything not on the GPU,
 * None included. */
NdDevice (get_array_module)(const NdArray *x)
{
    return x ? x->device : ND_CPU;
}

/* Python: cp.asnumpy(x), or x itself when it is a NumPy array. */
NdArray *(as_numpy)(const NdArray *x)
{
    if (!x)
        nd_error("as_numpy", "no array: the variable's data is not made "
                 "yet");
    return nd_to_device(x, ND_CPU);
}

/* Python: cp.asarray(x), after the check of gpu_enable. */
NdArray *(as_cupy)(const NdArray *x)
{
    require_gpu("as_cupy");
    if (!x)
        nd_error("as_cupy", "no array: the variable's data is not made "
                 "yet");
    return nd_to_device(x, ND_CUDA);
}
