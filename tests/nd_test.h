/* nd_test.h - what every test program includes: cmocka, the array
 * library, a way to expect an nd_error, and array assertions. */
#ifndef ND_TEST_H
#define ND_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nd.h"

/* The last error message, and where the test handler jumps back to. */
static char nd_test_message[1024];
static jmp_buf nd_test_jump;

static inline void nd_test_error_handler(const char *message)
{
    snprintf(nd_test_message, sizeof nd_test_message, "%s", message);
    longjmp(nd_test_jump, 1);
}

/* Runs stmt and asserts that it stops with an error whose message
 * contains substring. (What stmt allocated before failing leaks.) */
#define EXPECT_ND_ERROR(stmt, substring)                                  \
    do {                                                                  \
        NdErrorHandler old_ = nd_set_error_handler(nd_test_error_handler);\
        nd_test_message[0] = '\0';                                        \
        if (setjmp(nd_test_jump) == 0) {                                  \
            stmt;                                                         \
            nd_set_error_handler(old_);                                   \
            fail_msg("expected an error containing \"%s\" from: %s",      \
                     substring, #stmt);                                   \
        }                                                                 \
        nd_set_error_handler(old_);                                       \
        if (!strstr(nd_test_message, substring))                          \
            fail_msg("error \"%s\" does not contain \"%s\"",              \
                     nd_test_message, substring);                         \
    } while (0)

/* Asserts a's dtype and shape, and that its elements equal values
 * (within rtol relative; 0 for exact; NaN matches NaN). */
static inline void nd_test_expect(const NdArray *a, NdDtype dtype, int ndim,
                                  const int64_t *shape, const double *values,
                                  double rtol)
{
    assert_string_equal(nd_dtype_name(a->dtype), nd_dtype_name(dtype));
    assert_int_equal(a->ndim, ndim);
    for (int d = 0; d < ndim; d++)
        assert_int_equal(a->shape[d], shape[d]);
    for (int64_t i = 0; i < a->size; i++) {
        double got = nd_get_flat(a, i), want = values[i];
        double diff = got > want ? got - want : want - got;
        double scale = want < 0 ? -want : want;
        bool both_nan = got != got && want != want;
        if (!(got == want || both_nan || diff <= rtol * scale))
            fail_msg("element %lld: got %.17g, want %.17g", (long long)i,
                     got, want);
    }
}

/* EXPECT_ARRAY(a, ND_FLOAT64, ND_SHAPE(2, 2), 1, 2, 3, 4): exact. */
#define EXPECT_ARRAY(a, dtype, ndim_shape, ...)                           \
    nd_test_expect((a), (dtype), ndim_shape, (const double[]){__VA_ARGS__},\
                   0.0)
#define EXPECT_ARRAY_CLOSE(a, dtype, rtol, ndim_shape, ...)               \
    nd_test_expect((a), (dtype), ndim_shape, (const double[]){__VA_ARGS__},\
                   (rtol))

#endif /* ND_TEST_H */
