/* capture_stderr.h - what a test's calls write to stderr, caught in a
 * file so that the test can check it: capture_stderr(folder) before the
 * calls, captured() after them. For the tests of code that reports on
 * stderr (downloads, datasets, plots). Include it after nd_test.h
 * (cmocka). */
#ifndef CAPTURE_STDERR_H
#define CAPTURE_STDERR_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int saved_stderr = -1;
static char captured_path[256];

/* Sends stderr into folder/stderr.log until captured(). */
static inline void capture_stderr(const char *folder)
{
    fflush(stderr);
    snprintf(captured_path, sizeof captured_path, "%s/stderr.log", folder);
    int fd = open(captured_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    saved_stderr = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
}

/* Restores stderr; returns what was written to it (static text, kept
 * until the next call), and removes the file. */
static inline const char *captured(void)
{
    static char text[8192];
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    FILE *f = fopen(captured_path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    unlink(captured_path);
    return text;
}

/* Fails the test unless text contains part. */
#define EXPECT_TEXT_HAS(text, part)                                       \
    do {                                                                  \
        if (!strstr(text, part))                                          \
            fail_msg("\"%s\" does not contain \"%s\"", text, part);       \
    } while (0)

#endif /* CAPTURE_STDERR_H */
