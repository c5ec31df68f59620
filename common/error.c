/* error.c - the one error path of the array library: every misuse and
 * every failed library call ends in nd_error(). Also the check, at exit,
 * that what a program printed reached its standard output. */
#define _GNU_SOURCE             /* program_invocation_short_name */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* A program whose output was lost must not exit with status 0. A full
 * disk (>/dev/full) or a pipe closed while SIGPIPE is ignored only sets
 * stdout's error flag, which exit() ignores. So when the program ends
 * (main returns or exit() is called), this flushes stdout and, if a write
 * failed, names the program and the reason and exits with status 1. It
 * is a destructor of the library, so every program linked with it, every
 * step, gets it; it runs after the program's own atexit() handlers. error.o
 * is always linked: every other file of the library calls nd_error. */
__attribute__((destructor))
static void check_stdout(void)
{
    errno = 0;
    if (fflush(stdout) != 0) {
        fprintf(stderr, "error: %s: cannot write to standard output: %s\n",
                program_invocation_short_name, strerror(errno));
        _exit(1);       /* exit() must not be called again while exiting */
    }
    if (ferror(stdout)) {
        fprintf(stderr, "error: %s: a write to standard output failed, so "
                "some of its output is lost\n", program_invocation_short_name);
        _exit(1);
    }
}
