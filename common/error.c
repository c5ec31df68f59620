/* error.c - the one error path of the array library: every misuse and
 * every failed library call ends in nd_error(). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "nd.h"

static void default_handler(const char *message)
{
    fprintf(stderr, "error: %s\n", message);
    exit(1);
}

static NdErrorHandler current_handler = default_handler;

NdErrorHandler nd_set_error_handler(NdErrorHandler handler)
{
    NdErrorHandler old = current_handler;
    current_handler = handler ? handler : default_handler;
    return old;
}

void nd_error(const char *op, const char *fmt, ...)
{
    char message[1024];
    int len = snprintf(message, sizeof message, "%s: ", op);
    if (len < 0 || (size_t)len >= sizeof message)
        len = (int)sizeof message - 1;      /* op alone filled it */
    va_list args;
    va_start(args, fmt);
    vsnprintf(message + len, sizeof message - (size_t)len, fmt, args);
    va_end(args);
    current_handler(message);
    abort();        /* a handler that returns breaks the contract */
}
