/* device.c - where an array lives: every public operation checks its
 * operands' devices here first, and then asks their device's table
 * (nd_device.h) for memory and kernels. Operands on different devices,
 * and device arrays given to a routine that runs only on the host, are
 * refused with a message that says where each one is and what to
 * call. */
#include "nd_internal.h"

const char *nd_device_name(NdDevice device)
{
    static const char *const names[] = {
        [ND_CPU] = "cpu",
        [ND_CUDA] = "cuda",
    };
    return names[device];
}

bool nd_gpu_available(void)
{
    return nd_gpu() != NULL;
}

const char *nd_gpu_status(void)
{
    return nd_gpu_reason();
}

void nd_require_cpu(const char *op, const NdArray *a)
{
    if (a->device != ND_CPU)
        nd_error(op, "the array is on device %s but %s runs on the host; "
                 "convert it first with nd_to_device(a, ND_CPU)",
                 nd_device_name(a->device), op);
}

NdDevice nd_same_device(const char *op, int n, const NdArray *const *arrays)
{
    for (int i = 1; i < n; i++)
        if (arrays[i]->device != arrays[0]->device)
            nd_error(op, "operands are on different devices: operand 1 "
                     "on %s, operand %d on %s; move one with "
                     "nd_to_device()", nd_device_name(arrays[0]->device),
                     i + 1, nd_device_name(arrays[i]->device));
    if (!nd_device_ops(arrays[0]->device))
        nd_error(op, "the operands are on device %s, but GPU support is "
                 "off (%s)", nd_device_name(arrays[0]->device),
                 nd_gpu_status());
    return arrays[0]->device;
}
