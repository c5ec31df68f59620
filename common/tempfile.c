/* tempfile.c - files written under a temporary name next to their
 * final one, and renamed only once complete (nd_internal.h): a write
 * cut short, by a failure or by the user, never leaves a file that
 * looks whole. The .npz writer (npz.c) makes its files so; the
 * downloader (download.c) writes to a name of its own, which it can go
 * on from after a cut, and finishes it the same way. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nd_internal.h"

int nd_open_temporary(const char *path, char **temporary)
{
    static const char suffix[] = ".part-XXXXXX";
    *temporary = malloc(strlen(path) + sizeof suffix);
    if (!*temporary) {
        errno = ENOMEM;
        return -1;
    }
    strcpy(stpcpy(*temporary, path), suffix);
    int fd = mkstemp(*temporary);
    mode_t mask = umask(0);             /* mkstemp's 0600, made 0666 less */
    umask(mask);                        /* the umask, as open() would */
    if (fd >= 0 && fchmod(fd, 0666 & ~mask) != 0) {
        int error = errno;
        close(fd);
        unlink(*temporary);
        fd = -1;
        errno = error;
    }
    if (fd < 0) {
        int error = errno;
        free(*temporary);
        *temporary = NULL;
        errno = error;
    }
    return fd;
}

bool nd_finish_temporary(char *temporary, const char *path, bool ok,
                         char *problem, size_t size)
{
    if (ok && rename(temporary, path) != 0) {
        snprintf(problem, size, "cannot rename %s to %s: %s", temporary,
                 path, strerror(errno));
        ok = false;
    }
    if (!ok)
        unlink(temporary);
    free(temporary);
    return ok;
}
