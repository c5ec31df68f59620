/* tempfile.c - files written under a temporary name next to their
 * final one, and renamed only once complete (tempfile.h): a write cut
 * short, by a failure or by the user, never leaves a file that looks
 * whole. The .npz writer (npz.c) and the steps' programs (CSV, DOT,
 * and the pictures of gnuplot and dot) make their files so; the
 * downloader (download.c) writes to a name of its own, which it can go
 * on from after a cut, and finishes it the same way.
 *
 * A killed writer (SIGKILL, or a SIGTERM the program does not catch)
 * cannot clean up after itself. Rather than install signal handlers
 * behind the program's back, a temporary name holds its writer's
 * process id, path.part-PID-XXXXXX (libzip adds .YYYYYY to it for its
 * own), and the next writer of the same path removes the temporary
 * files whose process is gone (kill(PID, 0) fails with ESRCH). A file
 * of a live process, another writer's, is left alone; so is the
 * downloader's path.part-HHHHHHHH, which has no second dash. */
#define _GNU_SOURCE             /* mkostemp */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nd_internal.h"
#include "tempfile.h"

/* Symbolic links followed, at most, as the kernel's own limit (40). */
enum { MAX_LINKS = 40 };

/* The file path leads to through its symbolic links, malloc'd: path
 * itself when it is not a link, the link's target otherwise (relative
 * to the link's folder), which need not exist yet, as open() creates a
 * dangling link's target. NULL with errno set (ELOOP, ENOMEM). */
static char *final_path(const char *path)
{
    char *current = strdup(path);
    for (int hops = 0; current; hops++) {
        struct stat st;
        if (lstat(current, &st) != 0 || !S_ISLNK(st.st_mode))
            return current;
        if (hops == MAX_LINKS) {
            free(current);
            errno = ELOOP;
            return NULL;
        }
        char target[PATH_MAX];
        ssize_t n = readlink(current, target, sizeof target - 1);
        if (n < 0) {
            int error = errno;
            free(current);
            errno = error;
            return NULL;
        }
        target[n] = '\0';
        const char *slash = strrchr(current, '/');
        size_t dir = target[0] == '/' || !slash
                         ? 0 : (size_t)(slash - current) + 1;
        char *next = malloc(dir + (size_t)n + 1);
        if (next) {
            memcpy(next, current, dir);
            strcpy(next + dir, target);
        }
        free(current);
        current = next;
    }
    errno = ENOMEM;
    return NULL;
}

/* Whether a file at path exists that is a device, a FIFO or a socket:
 * written to in place, with nothing to rename over it. */
static bool written_in_place(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
           !S_ISDIR(st.st_mode);
}

/* Removes final's temporary files, final.part-PID-XXXXXX and
 * final.part-PID-XXXXXX.YYYYYY, whose process PID is gone: what a
 * writer killed before it finished left. */
static void remove_stale(const char *final)
{
    const char *slash = strrchr(final, '/');
    const char *base = slash ? slash + 1 : final;
    size_t dir_length = slash ? (size_t)(slash - final) + 1 : 0;
    char dir[PATH_MAX], prefix[NAME_MAX + 8];
    if (dir_length >= sizeof dir ||
        snprintf(prefix, sizeof prefix, "%s.part-", base) >=
            (int)sizeof prefix)
        return;
    memcpy(dir, final, dir_length);
    strcpy(dir + dir_length, dir_length ? "" : "./");
    DIR *folder = opendir(dir);
    if (!folder)
        return;
    size_t prefix_length = strlen(prefix);
    struct dirent *entry;
    while ((entry = readdir(folder))) {
        const char *name = entry->d_name;
        if (strncmp(name, prefix, prefix_length) != 0)
            continue;
        char *end;
        errno = 0;
        long pid = strtol(name + prefix_length, &end, 10);
        if (errno || end == name + prefix_length || *end != '-' ||
            pid <= 0 || pid > INT_MAX || pid == (long)getpid() ||
            kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char stale[PATH_MAX];
        if (snprintf(stale, sizeof stale, "%s%s", dir, name) <
            (int)sizeof stale)
            unlink(stale);
    }
    closedir(folder);
}

int nd_open_temporary(const char *path, char **temporary)
{
    *temporary = NULL;
    char *final = final_path(path);
    if (!final)
        return -1;
    int error, fd;
    if (written_in_place(final)) {
        fd = open(final, O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd < 0)
            goto fail;
        *temporary = final;
        return fd;
    }
    /* An existing file: refused where open() would refuse it, and its
     * permissions (and, for root, its owner) kept. */
    struct stat st;
    bool exists = stat(final, &st) == 0 && S_ISREG(st.st_mode);
    if (exists) {
        int probe = open(final, O_WRONLY | O_CLOEXEC);
        if (probe < 0)
            goto fail;
        close(probe);
    }
    remove_stale(final);
    char *name = malloc(strlen(final) + 64);
    if (!name) {
        errno = ENOMEM;
        goto fail;
    }
    sprintf(name, "%s.part-%ld-XXXXXX", final, (long)getpid());
    fd = mkostemp(name, O_CLOEXEC);
    mode_t mask = umask(0);             /* mkstemp's 0600, made 0666 less */
    umask(mask);                        /* the umask, as open() would */
    mode_t mode = exists ? st.st_mode & 07777 : 0666 & ~mask;
    if (fd >= 0 && exists && geteuid() == 0 &&
        fchown(fd, st.st_uid, st.st_gid) != 0) {
        /* root keeps the owner where it can; where not, the file is
         * root's, as a new one would be */
    }
    if (fd >= 0 && fchmod(fd, mode) != 0) {
        error = errno;
        close(fd);
        unlink(name);
        fd = -1;
        errno = error;
    }
    if (fd < 0) {
        error = errno;
        free(name);
        errno = error;
        goto fail;
    }
    free(final);
    *temporary = name;
    return fd;
fail:
    error = errno;
    free(final);
    errno = error;
    return -1;
}

bool nd_finish_temporary(char *temporary, const char *path, bool ok,
                         char *problem, size_t size)
{
    char *final = final_path(path);
    if (final && strcmp(final, temporary) == 0) {   /* written in place */
        free(final);
        free(temporary);
        return ok;
    }
    if (ok && !final) {
        snprintf(problem, size, "cannot follow the links of %s: %s", path,
                 strerror(errno));
        ok = false;
    }
    if (ok && rename(temporary, final) != 0) {
        snprintf(problem, size, "cannot rename %s to %s: %s", temporary,
                 final, strerror(errno));
        ok = false;
    }
    if (!ok)
        unlink(temporary);
    free(final);
    free(temporary);
    return ok;
}

FILE *nd_create_file(const char *path, char **temporary)
{
    int fd = nd_open_temporary(path, temporary);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int error = errno;
        close(fd);
        nd_finish_temporary(*temporary, path, false, NULL, 0);
        *temporary = NULL;
        errno = error;
    }
    return f;
}

/* Why a write to f failed earlier: stdio keeps no errno with its error
 * flag, so one byte more is written where the file ends, into a file
 * that is removed anyway, to have the reason again (ENOSPC, EFBIG). */
static int stream_error(FILE *f)
{
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
        pwrite(fileno(f), "", 1, st.st_size) < 0)
        return errno;
    return EIO;
}

bool nd_close_file(FILE *f, char *temporary, const char *path, bool ok,
                   char *problem, size_t size)
{
    int error = 0;
    if (ferror(f))
        error = stream_error(f);
    else if (fflush(f) != 0)
        error = errno;
    struct stat st;
    if (!error && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
        fsync(fileno(f)) != 0)
        error = errno;
    if (fclose(f) != 0 && !error)
        error = errno;
    if (ok && error) {
        snprintf(problem, size, "cannot write %s: %s", path,
                 strerror(error));
        ok = false;
    }
    return nd_finish_temporary(temporary, path, ok && !error, problem,
                               size);
}
