/* test_tempfile.c - files written whole or not at all (common/
 * tempfile.h), through the stream helpers and through the .npz writer:
 * a read-only file is refused as np.savez refuses it (PermissionError)
 * and keeps its content and permissions, also for root, who may write
 * it; a symbolic link is written through to its target, as np.savez
 * writes; a device is written in place; a full disk (/dev/full, or a
 * file size limit, RLIMIT_FSIZE, which makes write() fail with EFBIG
 * and needs no privilege) fails with a clear error and leaves the
 * earlier file as it was and no temporary file; and the temporary files
 * of a killed writer are gone once the same file is written again. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "nd_test.h"
#include "npz.h"
#include "scratch.h"
#include "tempfile.h"

/* ------------------------------------------------------------ helpers */

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

static void expect_text(const char *path, const char *want)
{
    char *text = read_file(path, NULL);
    assert_string_equal(text, want);
    free(text);
}

/* Writes text to path with nd_create_file and nd_close_file; returns
 * whether it was written, the problem in problem. */
static bool create_file(const char *path, const char *text, char *problem,
                        size_t size)
{
    char *temporary;
    FILE *f = nd_create_file(path, &temporary);
    if (!f) {
        snprintf(problem, size, "cannot make %s: %s", path,
                 strerror(errno));
        return false;
    }
    fputs(text, f);
    return nd_close_file(f, temporary, path, true, problem, size);
}

/* Saves the array a, under the key "a", to path. */
static void save_one(const char *path, NdArray *a)
{
    nd_savez_compressed(path, 1, (const char *[]){"a"}, &a);
}

static double load_one(const char *path)
{
    NdNpz *npz = nd_npz_open(path);
    NdArray *a = nd_npz_get(npz, "a");
    double value = nd_get_flat(a, 0);
    nd_release(a);
    nd_npz_close(npz);
    return value;
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_mode & 07777;
}

/* The uid of user nobody (65534 on Debian). */
enum { NOBODY = 65534 };

/* Runs save_one(path, [value]) in a child process as user nobody, its
 * stderr into log; returns its exit status (1: nd_error's exit). */
static int save_as_nobody(const char *path, double value, const char *log)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd < 0 || dup2(fd, STDERR_FILENO) < 0 ||
            setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
            _exit(99);
        NdArray *a = nd_scalar(value);
        save_one(path, a);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* ------------------------------------------------------------ tests */

/* Issue 28, case 7: np.savez over a file of mode 0444 raises
 * PermissionError ([Errno 13] Permission denied) for anyone but root,
 * and the file is as it was. Root, whom open() lets write it, replaces
 * its content, and the file stays 0444 (NumPy writes into it). As root
 * the test also saves as user nobody, to see the refusal. */
static void test_a_read_only_file_is_refused(void **state)
{
    (void)state;
    const char *path = in_scratch("read_only.npz");
    NdArray *one = nd_scalar(1), *two = nd_scalar(2);
    save_one(path, one);
    assert_int_equal(chmod(path, 0444), 0);
    if (geteuid() != 0) {
        EXPECT_ND_ERROR(save_one(path, two), "nd_savez_compressed: ");
        EXPECT_MESSAGE_HAS(path);
        EXPECT_MESSAGE_HAS("Permission denied");
        EXPECT_DOUBLE(load_one(path), 1);
        assert_int_equal(mode_of(path), 0444);
        char problem[512];
        assert_false(create_file(path, "text", problem, sizeof problem));
        assert_non_null(strstr(problem, "Permission denied"));
    } else {
        assert_int_equal(chmod(scratch, 0777), 0);
        const char *log = in_scratch("nobody.log");
        int status = save_as_nobody(path, 2, log);
        if (status == 99) {
            print_message("no user nobody to drop to: skipping that half\n");
        } else {
            assert_int_equal(status, 1);
            char *text = read_file(log, NULL);
            if (!strstr(text, "Permission denied") || !strstr(text, path))
                fail_msg("\"%s\" does not say Permission denied", text);
            free(text);
            EXPECT_DOUBLE(load_one(path), 1);
            assert_int_equal(mode_of(path), 0444);
        }
        unlink(log);
        assert_int_equal(chmod(scratch, 0700), 0);
        save_one(path, two);                /* root writes it */
        EXPECT_DOUBLE(load_one(path), 2);
        assert_int_equal(mode_of(path), 0444);
    }
    assert_int_equal(leftovers(), 0);
    unlink(path);
    nd_release(two);
    nd_release(one);
}

/* A file keeps its permissions when it is written again, as a file
 * NumPy writes into keeps them; a new one gets 0666 less the umask. */
static void test_permissions_are_kept(void **state)
{
    (void)state;
    const char *path = in_scratch("mode.csv");
    char problem[512];
    mode_t mask = umask(022);
    assert_true(create_file(path, "a\n", problem, sizeof problem));
    assert_int_equal(mode_of(path), 0644);
    assert_int_equal(chmod(path, 0600), 0);
    assert_true(create_file(path, "b\n", problem, sizeof problem));
    assert_int_equal(mode_of(path), 0600);
    expect_text(path, "b\n");
    umask(mask);
    unlink(path);
}

/* Issue 28, case 8: np.savez to a symbolic link writes the file it
 * points at, and the link stays a link; a link whose target does not
 * exist makes the target; a chain of links is followed to its end. */
static void test_a_link_is_written_through(void **state)
{
    (void)state;
    const char *target = in_scratch("target.npz");
    const char *link = in_scratch("link.npz");
    const char *chain = in_scratch("chain.npz");
    NdArray *one = nd_scalar(1), *two = nd_scalar(2);
    save_one(target, one);
    assert_int_equal(symlink("target.npz", link), 0);  /* relative */
    assert_int_equal(symlink(link, chain), 0);          /* absolute */
    save_one(link, two);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    EXPECT_DOUBLE(load_one(target), 2);
    save_one(chain, one);
    assert_int_equal(lstat(chain, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    EXPECT_DOUBLE(load_one(target), 1);

    /* a dangling link: its target is made */
    assert_int_equal(unlink(target), 0);
    char problem[512];
    assert_true(create_file(chain, "through\n", problem, sizeof problem));
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    expect_text(target, "through\n");
    assert_int_equal(leftovers(), 0);
    unlink(chain);
    unlink(link);
    unlink(target);
    nd_release(two);
    nd_release(one);
}

/* A device is written in place, as open() writes it: /dev/null takes
 * the text, /dev/full says the disk is full, and neither is replaced
 * by a file. An .npz archive, which libzip renames into place, is
 * refused on a device by name. */
static void test_a_device_is_written_in_place(void **state)
{
    (void)state;
    char problem[512];
    assert_true(create_file("/dev/null", "nothing\n", problem,
                            sizeof problem));
    if (access("/dev/full", W_OK) == 0) {
        assert_false(create_file("/dev/full", "too much\n", problem,
                                 sizeof problem));
        assert_string_equal(problem, "cannot write /dev/full: No space "
                                     "left on device");
    }
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    const char *link = in_scratch("null.npz");    /* to /dev/null */
    assert_int_equal(symlink("/dev/null", link), 0);
    NdArray *a = nd_scalar(1);
    EXPECT_ND_ERROR(save_one(link, a), "null.npz: not a regular file");
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(leftovers(), 0);
    unlink(link);
    nd_release(a);
}

/* A full disk, made by a file size limit: write() then fails with
 * EFBIG (SIGXFSZ ignored), without privileges or a file system to
 * fill. Sets the limit to bytes; returns the one to restore. */
static struct rlimit limit_file_size(rlim_t bytes)
{
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit saved, limit;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
    limit = saved;
    limit.rlim_cur = bytes;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &limit), 0);
    return saved;
}

/* Issue 28, cases 10 and 11: on a full disk the write fails with a
 * clear error, the file it would have replaced is as it was, and no
 * temporary file is left; the same for the .npz writer. */
static void test_a_full_disk_keeps_the_old_file(void **state)
{
    (void)state;
    const char *path = in_scratch("old.csv");
    write_text(path, "old\n");
    char *big = malloc(1 << 16);
    assert_non_null(big);
    memset(big, 'x', (1 << 16) - 1);
    big[(1 << 16) - 1] = '\0';
    char problem[512];
    struct rlimit saved = limit_file_size(4096);
    bool written = create_file(path, big, problem, sizeof problem);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
    assert_false(written);
    if (!strstr(problem, path) || !strstr(problem, "File too large"))
        fail_msg("\"%s\" does not say File too large", problem);
    expect_text(path, "old\n");
    assert_int_equal(leftovers(), 0);

    /* and the caller's own failure (ok false) also keeps it */
    char *temporary;
    FILE *f = nd_create_file(path, &temporary);
    assert_non_null(f);
    fputs("half", f);
    assert_false(nd_close_file(f, temporary, path, false, problem,
                               sizeof problem));
    expect_text(path, "old\n");
    assert_int_equal(leftovers(), 0);
    free(big);
    unlink(path);

    const char *npz = in_scratch("old.npz");
    NdArray *one = nd_scalar(1);
    save_one(npz, one);
    NdArray *noise = nd_random_rand(ND_SHAPE(100000));   /* 800 kB */
    saved = limit_file_size(65536);
    EXPECT_ND_ERROR(save_one(npz, noise), "nd_savez_compressed: ");
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
    EXPECT_MESSAGE_HAS(npz);
    EXPECT_DOUBLE(load_one(npz), 1);
    assert_int_equal(leftovers(), 0);
    unlink(npz);
    nd_release(noise);
    nd_release(one);
}

/* The pid of a process that has come and gone. */
static pid_t gone_pid(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    return pid;
}

/* Issue 28, case 9: a writer killed before it finished left its
 * temporary files (and libzip's); the next write of the same file
 * removes those whose process is gone, and keeps another live
 * writer's and the downloader's (path.part-HHHHHHHH). */
static void test_a_killed_writer_leaves_nothing_behind(void **state)
{
    (void)state;
    const char *path = in_scratch("weights.npz");
    char name[600];
    pid_t gone = gone_pid();
    snprintf(name, sizeof name, "%s.part-%d-AbC123", path, (int)gone);
    write_text(name, "cut short");
    snprintf(name, sizeof name, "%s.part-%d-AbC123.XyZ789", path,
             (int)gone);
    write_text(name, "libzip's, cut short");
    char live[600], download[600];
    snprintf(live, sizeof live, "%s.part-1-QwE456", path);   /* init's */
    write_text(live, "a live writer's");
    snprintf(download, sizeof download, "%s.part-0123abcd", path);
    write_text(download, "a download's");
    assert_int_equal(leftovers(), 4);
    NdArray *a = nd_scalar(3);
    save_one(path, a);
    assert_int_equal(leftovers(), 2);
    assert_int_equal(access(live, F_OK), 0);
    assert_int_equal(access(download, F_OK), 0);
    unlink(live);
    unlink(download);
    EXPECT_DOUBLE(load_one(path), 3);

    /* a real kill: a child saving over and over, ended by SIGTERM */
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        NdArray *noise = nd_random_rand(ND_SHAPE(200000));
        for (;;)
            save_one(path, noise);
    }
    usleep(300000);
    assert_int_equal(kill(pid, SIGTERM), 0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    save_one(path, a);
    assert_int_equal(leftovers(), 0);
    EXPECT_DOUBLE(load_one(path), 3);
    unlink(path);
    nd_release(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_read_only_file_is_refused),
        cmocka_unit_test(test_permissions_are_kept),
        cmocka_unit_test(test_a_link_is_written_through),
        cmocka_unit_test(test_a_device_is_written_in_place),
        cmocka_unit_test(test_a_full_disk_keeps_the_old_file),
        cmocka_unit_test(test_a_killed_writer_leaves_nothing_behind),
    };
    return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
