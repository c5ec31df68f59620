/* device.c - where an array lives, and the seam between the two halves
 * of the library: every public operation checks its operands' devices
 * here first. Operands on the GPU go to the GPU half (gpu.c and
 * common/cuda/); operands on different devices, and device arrays given
 * to a routine that runs only on the host, are refused with a message
 * that says where each one is and what to call. */
#include "nd_internal.h"

static const char *device_name(NdDevice device)
{
    return device == ND_CPU ? "cpu" : "cuda";
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
    if (arrays[0]->device != ND_CPU && !nd_gpu())
        nd_error(op, "the operands are on device %s, but GPU support is "
                 "off (%s)", device_name(arrays[0]->device),
                 nd_gpu_status());
    return arrays[0]->device;
}

/* cp.asarray(a) for ND_CUDA, cp.asnumpy(a) for ND_CPU: a copy on the
 * other device, or a itself when it is already there. */
NdArray *nd_to_device(const NdArray *a, NdDevice device)
{
    if (device == a->device)
        return nd_retain((NdArray *)a);
    if (!nd_gpu())
        nd_error("nd_to_device", "cannot move a %s array to %s: GPU "
                 "support is off (%s)", device_name(a->device),
                 device_name(device), nd_gpu_status());
    if (device == ND_CUDA)
        return nd_gpu_upload("nd_to_device", a);
    return nd_gpu_download("nd_to_device", a);
}

void nd_device_free(NdArray *a)
{
    nd_gpu_free(a);
}
