/* scratch.h - a scratch folder for the files a test program writes:
 * made by the group setup (make_scratch), removed with all it holds by
 * the group teardown (remove_scratch, or remove_folder for any
 * folder); a test that wants a folder of its own calls the two itself.
 * And the files read back: read_file, file_starts_with; the temporary
 * files a write left behind, leftovers; and PATH
 * pointed at the folder, where no program is found (path_to_scratch,
 * restore_path), for the tests of what happens without gnuplot or dot
 * (program_installed tells whether they are there).
 * Include it after nd_test.h (cmocka).
 *
 *     cmocka_run_group_tests(tests, make_scratch, remove_scratch);
 *     FILE *f = fopen(in_scratch("labels.idx"), "wb");
 */
#ifndef SCRATCH_H
#define SCRATCH_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch[64];

static inline int make_scratch(void **state)
{
    (void)state;
    strcpy(scratch, "/tmp/nd_test.XXXXXX");
    return mkdtemp(scratch) ? 0 : -1;
}

/* Removes what folder holds, files and folders, then folder. */
static inline int remove_folder(const char *folder)
{
    DIR *dir = opendir(folder);
    if (!dir)
        return -1;
    struct dirent *entry;
    char path[512];
    while ((entry = readdir(dir)))
        if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..") &&
            snprintf(path, sizeof path, "%s/%s", folder, entry->d_name) <
                (int)sizeof path &&
            unlink(path) != 0)
            remove_folder(path);
    closedir(dir);
    return rmdir(folder);
}

static inline int remove_scratch(void **state)
{
    (void)state;
    return remove_folder(scratch);
}

/* The path of name in the scratch folder (a static buffer per call
 * site's slot: up to four paths live at once). */
static inline const char *in_scratch(const char *name)
{
    static char paths[4][512];
    static int next;
    char *path = paths[next++ % 4];
    snprintf(path, 512, "%s/%s", scratch, name);
    return path;
}

/* How many temporary files (name.part-...) a write left behind in the
 * scratch folder: 0 after any write, whole or failed (tempfile.h). */
static inline int leftovers(void)
{
    DIR *dir = opendir(scratch);
    assert_non_null(dir);
    int found = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)))
        found += strstr(entry->d_name, ".part-") != NULL;
    closedir(dir);
    return found;
}

/* The bytes of the file at path with a '\0' after them, so that a text
 * file reads as a string; their count in *size unless size is NULL. The
 * test fails if the file cannot be read. The caller frees them. */
static inline void *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long length = ftell(f);
    assert_true(length >= 0);
    rewind(f);
    char *bytes = malloc((size_t)length + 1);
    assert_non_null(bytes);
    assert_int_equal(fread(bytes, 1, (size_t)length, f), (size_t)length);
    bytes[length] = '\0';
    fclose(f);
    if (size)
        *size = (size_t)length;
    return bytes;
}

/* Whether the file at path opens and begins with the bytes of start (16
 * at most); it closes the file again. */
static inline bool file_starts_with(const char *path, const char *start)
{
    char head[16];
    size_t length = strlen(start);
    assert_true(length <= sizeof head);
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t n = fread(head, 1, length, f);
    fclose(f);
    return n == length && memcmp(head, start, length) == 0;
}

/* Whether the shell finds the program name on PATH (command -v). */
static inline bool program_installed(const char *name)
{
    char command[128];
    snprintf(command, sizeof command, "command -v '%s' >/dev/null 2>&1",
             name);
    return system(command) == 0;
}

/* Points PATH at the scratch folder alone, so that no program is found
 * on it; returns the PATH it replaced, which the caller hands back to
 * restore_path. */
static inline char *path_to_scratch(void)
{
    const char *path = getenv("PATH");
    char *saved = strdup(path ? path : "");
    assert_non_null(saved);
    setenv("PATH", scratch, 1);
    return saved;
}

/* Sets PATH back to saved (from path_to_scratch), and frees saved. */
static inline void restore_path(char *saved)
{
    setenv("PATH", saved, 1);
    free(saved);
}

#endif /* SCRATCH_H */
