/* tempfile.h - files written whole or not at all (tempfile.c), for the
 * array library and for the programs of the steps: a file is written
 * under a temporary name next to it, path.part-PID-XXXXXX, and renamed
 * to path only once complete, every write, fclose and fsync checked.
 * A full disk, a failed plotting program or a kill leaves any earlier
 * file at path as it was, never a file cut short.
 *
 *     char *temporary;
 *     FILE *f = nd_create_file("predict.csv", &temporary);
 *     if (!f) ... errno says why
 *     fprintf(f, "x,y\n");
 *     char problem[512];
 *     if (!nd_close_file(f, temporary, "predict.csv", true, problem,
 *                        sizeof problem))
 *         fprintf(stderr, "%s\n", problem);
 *
 * As NumPy's open(path, 'wb') would: a symbolic link is written through
 * to its target; an existing file is replaced only where this process
 * may write it (a read-only file is refused with EACCES, as open()
 * refuses it; root may write any), and the new one keeps its
 * permissions; a path that is a device or a FIFO (/dev/null) is written
 * to directly, as there is nothing to rename over.
 *
 * Ownership: the temporary names are malloc'd here and freed by the
 * finishing call; the paths are borrowed. */
#ifndef ND_TEMPFILE_H
#define ND_TEMPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Creates an empty file named path.part-PID-XXXXXX next to the file
 * path names (through its symbolic links), with the permissions of the
 * file it will replace, or those open() gives a new file (0666 less the
 * umask); or, where path is a device or a FIFO, opens it. Returns its
 * descriptor and stores its malloc'd name in *temporary, or returns -1
 * with errno set and *temporary NULL. Temporary files of an earlier
 * writer of the same path whose process is gone are removed first. */
int nd_open_temporary(const char *path, char **temporary);

/* Ends a file written under a temporary name (nd_open_temporary's, or
 * the downloader's), all of it written: when ok, renames temporary to
 * path (to the file path's links lead to), and a failed rename writes
 * the problem and makes the result false; when the result is false,
 * the file is removed. Frees temporary either way. Returns whether path
 * now holds the file. */
bool nd_finish_temporary(char *temporary, const char *path, bool ok,
                         char *problem, size_t size);

/* fopen(path, "w") for a file written whole or not at all: a stream on
 * nd_open_temporary's file. Returns NULL with errno set, and
 * *temporary NULL, when it cannot be made. */
FILE *nd_create_file(const char *path, char **temporary);

/* Ends nd_create_file's stream f: flushes it, syncs it to the disk and
 * closes it, checking each step and every earlier write, then renames
 * the file to path when ok and all went well; else removes it, leaving
 * any earlier file at path as it was. Returns whether path holds the
 * whole file; when not, problem says why in a line that names path
 * ("cannot write predict.csv: No space left on device"), unless ok was
 * false already (the caller knows why). Frees temporary. */
bool nd_close_file(FILE *f, char *temporary, const char *path, bool ok,
                   char *problem, size_t size);

#endif /* ND_TEMPFILE_H */
