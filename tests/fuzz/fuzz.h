/* fuzz.h - what the fuzz targets share: an error handler that jumps
 * back to the target, and a file held in memory (memfd) that a target
 * fills with each input, for the readers under test to open by its
 * path, /proc/self/fd/N, as they would open a file on disk. */
#ifndef FUZZ_H
#define FUZZ_H

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nd.h"

/* Where an nd_error returns to: each call under test runs in its own
 * setjmp(jump), so that an error skips only that call. */
static jmp_buf jump;

static inline void back_to_the_fuzzer(const char *message)
{
    (void)message;
    longjmp(jump, 1);
}

/* A file in memory holding bytes; its path is /proc/self/fd/N. */
typedef struct MemoryFile {
    int fd;
    char path[64];
} MemoryFile;

static inline void open_memory_file(MemoryFile *f, const char *name)
{
    f->fd = memfd_create(name, 0);
    if (f->fd < 0) {
        perror("memfd_create");
        abort();
    }
    snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
}

/* Makes the file hold exactly the size bytes of data. */
static inline void fill(MemoryFile *f, const uint8_t *data, size_t size)
{
    if (ftruncate(f->fd, 0) != 0 ||
        pwrite(f->fd, data, size, 0) != (ssize_t)size) {
        perror("fill a memory file");
        abort();
    }
}

#endif /* FUZZ_H */
