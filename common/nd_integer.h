/* nd_integer.h - integer arithmetic as NumPy does it, shared by the C
 * library and the CUDA kernels (both compilers include it, see
 * nd_host_device.h), so that the two halves agree to the bit. */
#ifndef ND_INTEGER_H
#define ND_INTEGER_H

#include <stdint.h>

#include "nd_host_device.h"

/* base ** exp by squaring, wrapping around as NumPy's int64 power does;
 * a negative exponent must be refused before (NumPy refuses it). */
ND_HOST_DEVICE static inline int64_t nd_ipow(int64_t base, int64_t exp)
{
    uint64_t result = 1, factor = (uint64_t)base;
    while (exp > 0) {
        if (exp & 1)
            result *= factor;
        factor *= factor;
        exp >>= 1;
    }
    return (int64_t)result;
}

#endif /* ND_INTEGER_H */
