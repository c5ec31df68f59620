/* scratch.h - a scratch folder for the files a test program writes:
 * made by the group setup (make_scratch), removed with all it holds by
 * the group teardown (remove_scratch, or remove_folder for any
 * folder).
 *
 *     cmocka_run_group_tests(tests, make_scratch, remove_scratch);
 *     FILE *f = fopen(in_scratch("labels.idx"), "wb");
 */
#ifndef SCRATCH_H
#define SCRATCH_H

#include <dirent.h>
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

#endif /* SCRATCH_H */
