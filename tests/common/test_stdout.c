/* test_stdout.c - a program linked with the array library exits with
 * status 1, naming itself and the reason, when what it printed did not
 * reach its standard output (a full disk, a closed pipe), and with its own
 * status when it did (common/error.c, check_stdout). */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nd_test.h"

/* How the child's stdout is set up before it prints. */
typedef enum {
    TO_DEV_FULL,            /* writes fail with ENOSPC, as on a full disk */
    TO_DEV_FULL_UNBUFFERED, /* the same, but each printf fails at once */
    TO_DEV_NULL,            /* writes succeed */
    TO_CLOSED_PIPE,         /* EPIPE, with SIGPIPE ignored */
} Target;

/* Runs a child that points stdout at target, prints text with printf (if
 * any), prints an array with nd_print (if print_array) and calls
 * exit(status); stderr goes to a pipe. Returns the child's
 * exit status and writes what it said on stderr into said. */
static int print_in_child(Target target, const char *text,
                          bool print_array, int status, char *said,
                          size_t size)
{
    int err[2];
    assert_int_equal(pipe(err), 0);
    fflush(stdout);                 /* or the child prints it again */
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(err[1], STDERR_FILENO);
        close(err[0]);
        if (target == TO_CLOSED_PIPE) {
            int out[2];
            if (pipe(out) != 0)
                _exit(100);
            close(out[0]);          /* nobody will read */
            signal(SIGPIPE, SIG_IGN);
            dup2(out[1], STDOUT_FILENO);
        } else {
            int fd = open(target == TO_DEV_NULL ? "/dev/null" : "/dev/full",
                          O_WRONLY);
            if (fd < 0)
                _exit(100);
            dup2(fd, STDOUT_FILENO);
        }
        if (target == TO_DEV_FULL_UNBUFFERED)
            setvbuf(stdout, NULL, _IONBF, 0);
        if (text)
            printf("%s", text);
        if (print_array) {
            NdArray *a = nd_scalar(1.0);
            nd_print(a);
            nd_release(a);
        }
        exit(status);
    }
    close(err[1]);
    size_t len = 0;
    ssize_t n;
    while (len + 1 < size && (n = read(err[0], said + len,
                                       size - 1 - len)) > 0)
        len += (size_t)n;
    said[len] = '\0';
    close(err[0]);
    int wstatus;
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus));
    assert_int_not_equal(WEXITSTATUS(wstatus), 100);   /* set-up failed */
    return WEXITSTATUS(wstatus);
}

static void test_full_disk_is_an_error(void **state)
{
    (void)state;
    char said[512];
    assert_int_equal(print_in_child(TO_DEV_FULL, NULL, true, 0, said,
                                    sizeof said), 1);
    assert_string_equal(said, "error: test_stdout: cannot write to "
                        "standard output: No space left on device\n");
}

/* More than a buffer's worth: some writes fail while the program runs. */
static void test_long_output_to_a_full_disk(void **state)
{
    (void)state;
    static char text[100000];
    memset(text, '7', sizeof text - 1);
    char said[512];
    assert_int_equal(print_in_child(TO_DEV_FULL, text, false, 0, said,
                                    sizeof said), 1);
    assert_non_null(strstr(said, "error: test_stdout: "));
}

/* Nothing left to flush at exit, but a write failed on the way. */
static void test_an_earlier_failed_write_is_an_error(void **state)
{
    (void)state;
    char said[512];
    assert_int_equal(print_in_child(TO_DEV_FULL_UNBUFFERED, NULL, true, 0,
                                    said, sizeof said), 1);
    assert_string_equal(said, "error: test_stdout: a write to standard "
                        "output failed, so some of its output is lost\n");
}

static void test_closed_pipe_is_an_error(void **state)
{
    (void)state;
    char said[512];
    assert_int_equal(print_in_child(TO_CLOSED_PIPE, "variable(", true, 0,
                                    said, sizeof said), 1);
    assert_string_equal(said, "error: test_stdout: cannot write to "
                        "standard output: Broken pipe\n");
}

/* Output that arrives, or none at all, leaves the status alone. */
static void test_output_that_arrives_keeps_the_status(void **state)
{
    (void)state;
    char said[512];
    assert_int_equal(print_in_child(TO_DEV_NULL, "variable(", true, 0,
                                    said, sizeof said), 0);
    assert_string_equal(said, "");
    assert_int_equal(print_in_child(TO_DEV_NULL, "variable(", true, 3,
                                    said, sizeof said), 3);
    assert_string_equal(said, "");
    assert_int_equal(print_in_child(TO_DEV_FULL, NULL, false, 0, said,
                                    sizeof said), 0);
    assert_string_equal(said, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_disk_is_an_error),
        cmocka_unit_test(test_long_output_to_a_full_disk),
        cmocka_unit_test(test_an_earlier_failed_write_is_an_error),
        cmocka_unit_test(test_closed_pipe_is_an_error),
        cmocka_unit_test(test_output_that_arrives_keeps_the_status),
    };
    return cmocka_run_group_tests_name("common/stdout", tests, NULL, NULL);
}
