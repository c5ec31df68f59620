/* options.c - the examples' settings from the environment (options.h),
 * and their clock. */
#include <stdlib.h>
#include <time.h>

#include "nd.h"
#include "options.h"

int64_t option_count(const char *name, int64_t fallback, int64_t lo,
                     int64_t hi)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return fallback;
    char *end;
    long long n = strtoll(text, &end, 10);
    if (*end || n < lo || n > hi)
        nd_error("option_count", "%s=%s: want a whole number from %lld "
                 "to %lld", name, text, (long long)lo, (long long)hi);
    return (int64_t)n;
}

double option_number(const char *name, double fallback, double lo,
                     double hi)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return fallback;
    char *end;
    double x = strtod(text, &end);
    if (*end || !(x >= lo && x <= hi))
        nd_error("option_number", "%s=%s: want a number from %g to %g",
                 name, text, lo, hi);
    return x;
}

double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}
