/* device.c - where an array lives. The GPU half of the library is filled
 * in by its own issue; until then a device array is refused with a
 * message that says where each operand is and what to call. */
#include "nd_internal.h"

static const char *device_name(NdDevice device)
{
    return device == ND_CPU ? "cpu" : "cuda";
}

bool nd_gpu_available(void)
{
    return false;
}

const char *nd_gpu_status(void)
{
    return "GPU library not built";
}

void nd_require_cpu(const char *op, const NdArray *a)
{
    if (a->device != ND_CPU)
        nd_error(op, "the array is on device %s but %s runs on the host; "
                 "convert it first with nd_to_device(a, ND_CPU)",
                 device_name(a->device), op);
}

NdDevice nd_same_device(const char *op, int n, const NdArray *const *arrays)
{
    for (int i = 1; i < n; i++)
        if (arrays[i]->device != arrays[0]->device)
            nd_error(op, "operands are on different devices: operand 1 "
                     "on %s, operand %d on %s; move one with "
                     "nd_to_device()", device_name(arrays[0]->device),
                     i + 1, device_name(arrays[i]->device));
    if (arrays[0]->device != ND_CPU)
        nd_error(op, "the operands are on device %s, but GPU support is "
                 "off (%s)", device_name(arrays[0]->device),
                 nd_gpu_status());
    return arrays[0]->device;
}

NdArray *nd_to_device(const NdArray *a, NdDevice device)
{
    if (device == a->device)
        return nd_retain((NdArray *)a);
    nd_error("nd_to_device", "cannot move a %s array to %s: GPU support "
             "is off (%s)", device_name(a->device), device_name(device),
             nd_gpu_status());
}

void nd_device_free(NdArray *a)
{
    (void)a;        /* no device memory can exist without the GPU half */
}
