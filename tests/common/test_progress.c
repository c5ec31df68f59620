/* test_progress.c - the progress line (common/progress.h) writes nothing
 * when stderr is a file or a pipe, and draws its bar, counts, time and
 * note on a terminal (a pseudo-terminal the test opens), redrawing at
 * most ten times a second. */
#define _GNU_SOURCE             /* posix_openpt, ptsname */
#include <fcntl.h>
#include <unistd.h>

#include "nd_test.h"
#include "progress.h"

/* Runs work with stderr going to fd; restores stderr after. */
static void with_stderr_on(int fd, void (*work)(void))
{
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fd, STDERR_FILENO) >= 0);
    work();
    fflush(stderr);
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
}

static void an_epoch(void)
{
    NdProgress *bar = nd_progress_start("epoch 1", 600, "batches");
    for (int i = 0; i < 600; i++)
        nd_progress_update(bar, i + 1, "loss %.4f", 0.5);
    nd_progress_end(bar);
}

static void test_nothing_written_to_a_file(void **state)
{
    (void)state;
    char path[] = "/tmp/test_progress.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    with_stderr_on(fd, an_epoch);
    assert_int_equal(lseek(fd, 0, SEEK_END), 0);
    close(fd);
}

static void test_nothing_written_to_a_pipe(void **state)
{
    (void)state;
    int ends[2];
    assert_int_equal(pipe(ends), 0);
    with_stderr_on(ends[1], an_epoch);
    close(ends[1]);
    char byte;
    assert_int_equal(read(ends[0], &byte, 1), 0);     /* end of file */
    close(ends[0]);
}

/* A pseudo-terminal: *slave for stderr, the master end returned, to
 * read what was drawn. */
static int open_terminal(int *slave)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    assert_true(master >= 0);
    assert_int_equal(grantpt(master), 0);
    assert_int_equal(unlockpt(master), 0);
    *slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    assert_true(*slave >= 0);
    return master;
}

/* What the terminal received, as text (at most size - 1 bytes). */
static void read_terminal(int master, char *text, size_t size)
{
    fcntl(master, F_SETFL, O_NONBLOCK);
    size_t n = 0;
    ssize_t got;
    while (n + 1 < size && (got = read(master, text + n, size - 1 - n)) > 0)
        n += (size_t)got;
    text[n] = '\0';
}

static int count_of(const char *text, char c)
{
    int n = 0;
    for (; *text; text++)
        n += *text == c;
    return n;
}

static void test_drawn_on_a_terminal(void **state)
{
    (void)state;
    int slave, master = open_terminal(&slave);
    with_stderr_on(slave, an_epoch);
    close(slave);
    char text[16384];
    read_terminal(master, text, sizeof text);
    close(master);
    /* the first draw, at 1 of 600, and the last, full */
    if (!strstr(text, "\repoch 1 [....................] 1/600 batches "))
        fail_msg("no first line in \"%s\"", text);
    if (!strstr(text, "\repoch 1 [####################] 600/600 batches "))
        fail_msg("no full bar in \"%s\"", text);
    assert_non_null(strstr(text, "s loss 0.5000"));
    /* 600 updates in far less than a second: drawn at the first, at the
     * last (full) and at the end, and not 600 times */
    assert_true(count_of(text, '\r') >= 3);
    assert_true(count_of(text, '\r') < 20);
    size_t len = strlen(text);
    assert_true(len >= 2 && text[len - 1] == '\n');  /* the line ends */
}

/* Without a total: no bar, the count alone; a shorter line is padded
 * over the longer one before it. */
static void unknown_total(void)
{
    NdProgress *p = nd_progress_start("file.gz", 0, "kB");
    nd_progress_update(p, 12345, "a long note to be covered");
    nd_progress_update(p, 12346, "short");      /* too soon to draw */
    nd_progress_end(p);                          /* draws, padded */
    p = nd_progress_start("x", 0, "kB");
    nd_progress_update(p, 1, NULL);
    nd_progress_end(p);
    nd_progress_end(NULL);
}

static void test_unknown_total(void **state)
{
    (void)state;
    int slave, master = open_terminal(&slave);
    with_stderr_on(slave, unknown_total);
    close(slave);
    char text[4096];
    read_terminal(master, text, sizeof text);
    close(master);
    assert_non_null(strstr(text, "\rfile.gz 12345 kB "));
    assert_non_null(strstr(text, "s a long note to be covered"));
    /* "a long note to be covered" is 25 characters, "short" 5 */
    const char *last = strstr(text, "\rfile.gz 12346 kB ");
    assert_non_null(last);
    const char *note = strstr(last, "s short");
    assert_non_null(note);
    assert_true(strncmp(note + 7, "                    \r", 21) == 0 ||
                strncmp(note + 7, "                    \n", 21) == 0);
    assert_null(strstr(text, "["));
    assert_non_null(strstr(text, "\rx 1 kB 0.0s"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nothing_written_to_a_file),
        cmocka_unit_test(test_nothing_written_to_a_pipe),
        cmocka_unit_test(test_drawn_on_a_terminal),
        cmocka_unit_test(test_unknown_total),
    };
    return cmocka_run_group_tests_name("progress", tests, NULL, NULL);
}
