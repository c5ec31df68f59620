/* nd_test.h - what every test program includes: cmocka, the array
 * library, a way to expect an nd_error, and array assertions. */
#ifndef ND_TEST_H
#define ND_TEST_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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

/* After EXPECT_ND_ERROR: asserts that the message also contains text,
 * for a message checked piece by piece. */
#define EXPECT_MESSAGE_HAS(text)                                          \
    do {                                                                  \
        if (!strstr(nd_test_message, text))                               \
            fail_msg("error \"%s\" does not contain \"%s\"",              \
                     nd_test_message, text);                              \
    } while (0)

/* ---- failures that name the test's own file and line
 *
 * The EXPECT_ macros below pass __FILE__ and __LINE__ of the test that
 * uses them, so that a failure points at the test, not at this header,
 * and each says what it computed and what it wanted. */

/* Fails the running test at file:line with a printf-style message. */
__attribute__((format(printf, 3, 4)))
static inline void nd_test_fail_at(const char *file, int line,
                                   const char *format, ...)
{
    char message[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    print_error("ERROR: %s\n", message);
    _fail(file, line);
}

/* got == want, or within rtol of |want| (rtol 0: exactly; NaN matches
 * NaN). */
static inline bool nd_test_close(double got, double want, double rtol)
{
    double diff = got > want ? got - want : want - got;
    double scale = want < 0 ? -want : want;
    return got == want || (got != got && want != want) ||
           diff <= rtol * scale;
}

/* "(2, 3)" into text. */
static inline const char *nd_test_shape_text(char *text, size_t size,
                                             int ndim, const int64_t *shape)
{
    size_t n = (size_t)snprintf(text, size, "(");
    for (int d = 0; d < ndim && n < size; d++)
        n += (size_t)snprintf(text + n, size - n, "%s%lld", d ? ", " : "",
                              (long long)shape[d]);
    if (n < size)
        snprintf(text + n, size - n, ndim == 1 ? ",)" : ")");
    return text;
}

/* Asserts a's dtype and shape, and that its elements equal values
 * (within rtol relative; 0 for exact; NaN matches NaN). */
static inline void nd_test_expect(const char *file, int line,
                                  const char *expr, const NdArray *a,
                                  NdDtype dtype, int ndim,
                                  const int64_t *shape, const double *values,
                                  double rtol)
{
    char got_shape[128], want_shape[128];
    if (!a)
        nd_test_fail_at(file, line, "%s is NULL, want a %s array", expr,
                        nd_dtype_name(dtype));
    if (a->dtype != dtype)
        nd_test_fail_at(file, line, "%s has dtype %s, want %s", expr,
                        nd_dtype_name(a->dtype), nd_dtype_name(dtype));
    bool same_shape = a->ndim == ndim;
    for (int d = 0; same_shape && d < ndim; d++)
        same_shape = a->shape[d] == shape[d];
    if (!same_shape)
        nd_test_fail_at(file, line, "%s has shape %s, want %s", expr,
                        nd_test_shape_text(got_shape, sizeof got_shape,
                                           a->ndim, a->shape),
                        nd_test_shape_text(want_shape, sizeof want_shape,
                                           ndim, shape));
    for (int64_t i = 0; i < a->size; i++) {
        double got = nd_get_flat(a, i), want = values[i];
        if (!nd_test_close(got, want, rtol))
            nd_test_fail_at(file, line, "%s, element %lld: got %.17g, "
                            "want %.17g%s", expr, (long long)i, got, want,
                            rtol ? " (beyond the rtol)" : "");
    }
}

/* EXPECT_ARRAY(a, ND_FLOAT64, ND_SHAPE(2, 2), 1, 2, 3, 4): exact. */
#define EXPECT_ARRAY(a, dtype, ndim_shape, ...)                           \
    nd_test_expect(__FILE__, __LINE__, #a, (a), (dtype), ndim_shape,      \
                   (const double[]){__VA_ARGS__}, 0.0)
#define EXPECT_ARRAY_CLOSE(a, dtype, rtol, ndim_shape, ...)               \
    nd_test_expect(__FILE__, __LINE__, #a, (a), (dtype), ndim_shape,      \
                   (const double[]){__VA_ARGS__}, (rtol))

static inline void nd_test_expect_double(const char *file, int line,
                                         const char *expr, double got,
                                         double want, double rtol)
{
    if (!nd_test_close(got, want, rtol))
        nd_test_fail_at(file, line, "%s is %.17g, want %.17g%s", expr, got,
                        want, rtol ? " (beyond the rtol)" : "");
}

/* A number: EXPECT_DOUBLE(nd_item(y), 2.5) exactly (NaN matches NaN),
 * EXPECT_CLOSE(x, want, rtol) within rtol of |want|. Both print the
 * value computed. */
#define EXPECT_DOUBLE(got, want)                                          \
    nd_test_expect_double(__FILE__, __LINE__, #got, (got), (want), 0.0)
#define EXPECT_CLOSE(got, want, rtol)                                     \
    nd_test_expect_double(__FILE__, __LINE__, #got, (got), (want), (rtol))

/* |got - want| <= atol, printing the value computed. */
static inline void nd_test_expect_near(const char *file, int line,
                                       const char *expr, double got,
                                       double want, double atol)
{
    double diff = got > want ? got - want : want - got;
    if (!(diff <= atol))
        nd_test_fail_at(file, line, "%s is %.17g, want %.17g within %g",
                        expr, got, want, atol);
}
#define EXPECT_NEAR(got, want, atol)                                      \
    nd_test_expect_near(__FILE__, __LINE__, #got, (got), (want), (atol))

/* nd_allclose(a, b, rtol, atol), and when not, the first element that
 * differs, with both values. */
static inline void nd_test_expect_allclose(const char *file, int line,
                                           const char *a_expr,
                                           const char *b_expr,
                                           const NdArray *a,
                                           const NdArray *b, double rtol,
                                           double atol)
{
    if (nd_allclose(a, b, rtol, atol))
        return;
    if (a->size == b->size) {
        for (int64_t i = 0; i < a->size; i++) {
            double x = nd_get_flat(a, i), y = nd_get_flat(b, i);
            double diff = x > y ? x - y : y - x;
            if (!(diff <= atol + rtol * (y < 0 ? -y : y)))
                nd_test_fail_at(file, line, "%s and %s differ at element "
                                "%lld: %.17g and %.17g (rtol %g, atol %g)",
                                a_expr, b_expr, (long long)i, x, y, rtol,
                                atol);
        }
    }
    char a_shape[128], b_shape[128];
    nd_test_fail_at(file, line, "%s %s and %s %s are not close (rtol %g, "
                    "atol %g)", a_expr,
                    nd_test_shape_text(a_shape, sizeof a_shape, a->ndim,
                                       a->shape),
                    b_expr,
                    nd_test_shape_text(b_shape, sizeof b_shape, b->ndim,
                                       b->shape),
                    rtol, atol);
}

#define EXPECT_ALLCLOSE(a, b, rtol, atol)                                 \
    nd_test_expect_allclose(__FILE__, __LINE__, #a, #b, (a), (b), (rtol), \
                            (atol))

#endif /* ND_TEST_H */
