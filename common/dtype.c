/* dtype.c - the dtypes: names, sizes, NumPy 1.x promotion (with
 * value-based casting of 0-d operands) and element conversion. */
#include <math.h>
#include <string.h>

#include "nd_convert.h"
#include "nd_internal.h"

static const struct {
    const char *name;
    size_t size;
} dtype_info[ND_NUM_DTYPES] = {
    [ND_BOOL] = {"bool", 1},
    [ND_UINT8] = {"uint8", 1},
    [ND_INT64] = {"int64", 8},
    [ND_FLOAT32] = {"float32", 4},
    [ND_FLOAT64] = {"float64", 8},
    [ND_COMPLEX64] = {"complex64", 8},
    [ND_COMPLEX128] = {"complex128", 16},
};

static bool valid(NdDtype dtype)
{
    return (unsigned)dtype < ND_NUM_DTYPES;
}

const char *nd_dtype_name(NdDtype dtype)
{
    return valid(dtype) ? dtype_info[dtype].name : "invalid dtype";
}

size_t nd_dtype_size(NdDtype dtype)
{
    return valid(dtype) ? dtype_info[dtype].size : 0;
}

bool nd_dtype_is_float(NdDtype dtype)
{
    return dtype == ND_FLOAT32 || dtype == ND_FLOAT64;
}

bool nd_dtype_is_complex(NdDtype dtype)
{
    return dtype == ND_COMPLEX64 || dtype == ND_COMPLEX128;
}

bool nd_dtype_is_integer(NdDtype dtype)
{
    return dtype == ND_UINT8 || dtype == ND_INT64;
}

/* NumPy 1.x's kind order for value-based casting: bool < integer <
 * inexact. Float and complex share a rank, so a 0-d complex operand
 * does not widen a float32 array past complex64. */
static int kind(NdDtype dtype)
{
    switch (dtype) {
    case ND_BOOL: return 0;
    case ND_UINT8: case ND_INT64: return 1;
    default: return 2;
    }
}

NdDtype nd_promote(NdDtype a, NdDtype b)
{
    if (a > b) {
        NdDtype t = a;
        a = b;
        b = t;
    }
    /* Along the ladder the larger wins, except where neither dtype can
     * hold the other's values: int64 with float32 needs float64, and
     * int64 or float64 with complex64 needs complex128. */
    if (a == ND_INT64 && b == ND_FLOAT32)
        return ND_FLOAT64;
    if ((a == ND_INT64 || a == ND_FLOAT64) && b == ND_COMPLEX64)
        return ND_COMPLEX128;
    return b;
}

/* Whether a double lies inside float32's range as NumPy's
 * min_scalar_type tests it (infinities and NaN count as inside). */
static bool fits_float32(double v)
{
    return !isfinite(v) || (v > -3.4e38 && v < 3.4e38);
}

/* Whether the value of a 0-d operand needs more than the array's own
 * precision. NumPy 1.x gives the scalar the smallest type that holds it
 * (np.min_scalar_type): 3 is uint8, 300 uint16, -40000 int32, 1e300
 * float64. A device scalar is judged by its dtype alone. */
static bool scalar_needs_wider(const NdArray *scalar, NdDtype array)
{
    if (scalar->device != ND_CPU)
        return false;
    double complex v = nd_load_complex(scalar->data, scalar->dtype, 0);
    switch (array) {
    case ND_UINT8:
        return scalar->dtype == ND_INT64 &&
               (creal(v) < 0 || creal(v) > 255);
    case ND_FLOAT32:
    case ND_COMPLEX64:
        if (scalar->dtype == ND_INT64)      /* beyond int16 and uint16 */
            return creal(v) < -32768 || creal(v) > 65535;
        if (scalar->dtype == ND_FLOAT64)
            return !fits_float32(creal(v));
        if (scalar->dtype == ND_COMPLEX128)  /* NaN parts do not fit */
            return !(fabs(creal(v)) < 3.4e38 && fabs(cimag(v)) < 3.4e38);
        return false;
    default:
        return false;
    }
}

/* The complex dtype with the precision of a real one. */
static NdDtype complex_of(NdDtype dtype)
{
    return dtype == ND_FLOAT32 ? ND_COMPLEX64 : ND_COMPLEX128;
}

NdDtype nd_result_dtype(const NdArray *a, const NdArray *b)
{
    bool a_scalar = a->ndim == 0, b_scalar = b->ndim == 0;
    if (a_scalar == b_scalar)
        return nd_promote(a->dtype, b->dtype);
    const NdArray *scalar = a_scalar ? a : b;
    const NdArray *array = a_scalar ? b : a;
    /* A scalar of a higher kind (float with an int array) promotes as
     * usual; otherwise its value decides. */
    if (kind(scalar->dtype) > kind(array->dtype) ||
        scalar_needs_wider(scalar, array->dtype))
        return nd_promote(array->dtype, scalar->dtype);
    if (nd_dtype_is_complex(scalar->dtype) && nd_dtype_is_float(array->dtype))
        return complex_of(array->dtype);    /* float32 * 1j is complex64 */
    return array->dtype;
}

double nd_load(const void *data, NdDtype dtype, int64_t i)
{
    switch (dtype) {
    case ND_BOOL: return ((const bool *)data)[i];
    case ND_UINT8: return ((const uint8_t *)data)[i];
    case ND_INT64: return (double)((const int64_t *)data)[i];
    case ND_FLOAT32: return ((const float *)data)[i];
    case ND_FLOAT64: return ((const double *)data)[i];
    case ND_COMPLEX64: return crealf(((const float complex *)data)[i]);
    case ND_COMPLEX128: return creal(((const double complex *)data)[i]);
    }
    return 0;
}

double complex nd_load_complex(const void *data, NdDtype dtype, int64_t i)
{
    switch (dtype) {
    case ND_COMPLEX64: return ((const float complex *)data)[i];
    case ND_COMPLEX128: return ((const double complex *)data)[i];
    default: return nd_load(data, dtype, i);
    }
}

void nd_store(void *data, NdDtype dtype, int64_t i, double value)
{
    switch (dtype) {
    case ND_BOOL: ((bool *)data)[i] = value != 0; break;
    case ND_UINT8: ((uint8_t *)data)[i] = nd_float_to_uint8(value); break;
    case ND_INT64: ((int64_t *)data)[i] = nd_float_to_int64(value); break;
    case ND_FLOAT32: ((float *)data)[i] = (float)value; break;
    case ND_FLOAT64: ((double *)data)[i] = value; break;
    case ND_COMPLEX64: ((float complex *)data)[i] = (float)value; break;
    case ND_COMPLEX128: ((double complex *)data)[i] = value; break;
    }
}

void nd_store_complex(void *data, NdDtype dtype, int64_t i,
                      double complex value)
{
    switch (dtype) {
    case ND_COMPLEX64: ((float complex *)data)[i] = (float complex)value;
        break;
    case ND_COMPLEX128: ((double complex *)data)[i] = value; break;
    case ND_BOOL: ((bool *)data)[i] = value != 0; break;    /* 1j is true */
    default: nd_store(data, dtype, i, creal(value)); break;
    }
}

/* One tight loop per common conversion; the rest go through double. */
#define CAST_LOOP(TO, FROM) do { \
        TO *d = dst; const FROM *s = src; \
        for (int64_t i = 0; i < n; i++) d[i] = (TO)s[i]; \
    } while (0)

void nd_cast_buffer(void *dst, NdDtype to, const void *src, NdDtype from,
                    int64_t n)
{
    if (to == from) {
        memcpy(dst, src, (size_t)n * nd_dtype_size(to));
    } else if (to == ND_FLOAT64 && from == ND_FLOAT32) {
        CAST_LOOP(double, float);
    } else if (to == ND_FLOAT32 && from == ND_FLOAT64) {
        CAST_LOOP(float, double);
    } else if (to == ND_FLOAT32 && from == ND_UINT8) {
        CAST_LOOP(float, uint8_t);
    } else if (to == ND_FLOAT64 && from == ND_INT64) {
        CAST_LOOP(double, int64_t);
    } else if (to == ND_FLOAT32 && from == ND_INT64) {
        CAST_LOOP(float, int64_t);      /* one rounding, not two */
    } else if (to == ND_FLOAT64 && from == ND_UINT8) {
        CAST_LOOP(double, uint8_t);
    } else if (to == ND_UINT8 && from == ND_INT64) {
        CAST_LOOP(uint8_t, int64_t);    /* the low byte, as NumPy: not */
                                        /* through double, which rounds */
    } else if (nd_dtype_is_complex(to) || nd_dtype_is_complex(from)) {
        for (int64_t i = 0; i < n; i++)
            nd_store_complex(dst, to, i, nd_load_complex(src, from, i));
    } else {
        for (int64_t i = 0; i < n; i++)
            nd_store(dst, to, i, nd_load(src, from, i));
    }
}
