// FIRST_STEP: 25
// LAST_STEP: 25
/* test_hand_written_dot.c - step 25's program writes hand_written.dot
 * whole or not at all (issue 28, deliverable 2): on a full disk it says
 * so, naming the file and the reason, exits 1, and an earlier
 * hand_written.dot keeps its content, with no temporary file beside it;
 * on a disk with room it writes the DOT text and exits 0. The full disk
 * is a file size limit of 0 (the shell's ulimit -f 0, with SIGXFSZ
 * ignored): write() fails with EFBIG, with no privilege needed. The
 * program is steps/step25/step25, or build/asan/step25 in the
 * sanitizer build, run in a scratch folder. Later steps write through
 * dezero/utils.c's write_text_file, which test_whole_files.c covers. */

#include "nd_test.h"
#include "run_command.h"
#include "scratch.h"
#include "variant.h"

/* Runs the program in the scratch folder with a file size limit of
 * blocks (1024 bytes each; "unlimited" for none), stdout and stderr
 * together into out; returns its exit status. */
static int run_step25(const char *blocks, char *out, size_t out_size)
{
    char root[512], command[1400];
    assert_non_null(getcwd(root, sizeof root));
    snprintf(command, sizeof command,
             "cd '%s' && trap '' XFSZ && ulimit -f %s && "
             "'%s/steps/step25/" VARIANT_FOLDER "step25' 2>&1",
             scratch, blocks, root);
    return run_command(command, out, out_size);
}

static void test_a_full_disk_keeps_the_old_file(void **state)
{
    (void)state;
    const char *path = in_scratch("hand_written.dot");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs("old\n", f) >= 0);
    assert_int_equal(fclose(f), 0);
    char out[4096];
    int status = run_step25("0", out, sizeof out);
    if (status != 1 || !strstr(out, "write_text_file: cannot write "
                                    "hand_written.dot: File too large"))
        fail_msg("exit status %d, output:\n%s", status, out);
    char *text = read_file(path, NULL);
    assert_string_equal(text, "old\n");
    free(text);
    assert_int_equal(leftovers(), 0);

    status = run_step25("unlimited", out, sizeof out);
    if (status != 0)
        fail_msg("exit status %d, output:\n%s", status, out);
    assert_true(file_starts_with(path, "digraph g {\n"));
    assert_int_equal(leftovers(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_full_disk_keeps_the_old_file),
    };
    return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
