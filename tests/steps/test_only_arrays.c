// FIRST_STEP: 09
// LAST_STEP: 10
/* test_only_arrays.c - "only arrays are accepted" (step 09) is the
 * compiler's job in C: variable(1.0) must not compile. The test hands
 * the compiler a few lines that use the step's code that way. */
#include <unistd.h>

#include "step_under_test.h"
#include "run_command.h"

/* Compiles source (types only, no object file) against the step's
 * main.c, with extra flags; returns the exit status and puts the
 * compiler's messages in out. */
static int compile(const char *source, const char *flags, char *out,
                   size_t size)
{
    char path[] = "/tmp/only_arraysXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_true(write(fd, source, strlen(source)) ==
                (ssize_t)strlen(source));
    close(fd);

    const char *cc = getenv("CC") ? getenv("CC") : "cc";
    char command[512];
    snprintf(command, sizeof command,
             "LC_ALL=C %s -std=gnu11 -fsyntax-only -Icommon "
             "-Isteps/step%02d %s -x c %s 2>&1", cc, STEP, flags, path);
    int status = run_command(command, out, size);
    unlink(path);
    return status;
}

static const char with_an_array[] =
    "#define main step_main\n"
    "#include \"main.c\"\n"
    "Variable *make(void) { return variable(nd_scalar(1.0)); }\n";

static const char with_a_double[] =
    "#define main step_main\n"
    "#include \"main.c\"\n"
    "Variable *make(void) { return variable(1.0); }\n";

/* The control: the same lines with an array compile. */
static void test_an_array_compiles(void **state)
{
    (void)state;
    char messages[4096];
    if (compile(with_an_array, "", messages, sizeof messages) != 0)
        fail_msg("variable(nd_scalar(1.0)) does not compile:\n%s",
                 messages);
}

/* The compiler stops at variable(1.0), naming both types (GCC and
 * Clang word it differently; both name them). */
static void test_a_double_is_refused(void **state)
{
    (void)state;
    char messages[4096];
    int status = compile(with_a_double, "", messages, sizeof messages);
    assert_int_not_equal(status, 0);
    assert_non_null(strstr(messages, "variable(1.0)"));
    assert_non_null(strstr(messages, "'double'"));
    assert_non_null(strstr(messages, "NdArray *"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_an_array_compiles),
        cmocka_unit_test(test_a_double_is_refused),
    };
    return cmocka_run_group_tests_name("only_arrays", tests, NULL, NULL);
}
