// FIRST_STEP: 26
/* test_whole_files.c - every file a step's program writes is written
 * whole or not at all (issue 28, cases 10 and 11): the DOT text
 * (write_text_file), the pictures of dot (plot_dot_graph, PNG and SVG),
 * from step 34 the CSV files (write_csv) and gnuplot's pictures
 * (plot_csv, SVG and PNG), and from step 53 a model's weights
 * (save_weights, .npz). On a full disk each write fails with a message
 * that names the file and the reason, the file it would have replaced
 * keeps its content, and no temporary file is left. A full disk is a
 * file size limit (RLIMIT_FSIZE, with SIGXFSZ ignored): write() then
 * fails with EFBIG, for this process and the programs it starts, with
 * no privilege and no file system to fill. The limit is set around the
 * one call and lies above the few hundred bytes of a message (stderr
 * goes to a file), below the file written. Also: a picture that gnuplot
 * fails to draw, or that has no program to draw it, leaves the earlier
 * one as it was. Step 25's program, whose write_text_file is its own,
 * has its test in test_hand_written_dot.c. */
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "pool_fixture.h"
#include "capture_stderr.h"
#include "scratch.h"

/* ---- helpers */

static void write_old(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs("old\n", f) >= 0);
    assert_int_equal(fclose(f), 0);
}

/* Fails the test unless the file at path holds "old\n", as write_old
 * left it. */
static void expect_old(const char *path)
{
    char *text = read_file(path, NULL);
    if (strcmp(text, "old\n") != 0)
        fail_msg("%s was replaced: it begins \"%.40s\"", path, text);
    free(text);
}

static struct rlimit saved_limit;

/* A disk that takes bytes more bytes of a file, until full_disk_end. */
static void full_disk(rlim_t bytes)
{
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved_limit), 0);
    limit = saved_limit;
    limit.rlim_cur = bytes;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &limit), 0);
}

static void full_disk_end(void)
{
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved_limit), 0);
    signal(SIGXFSZ, SIG_DFL);
}

#define EXPECT_SAYS(message, part)                                        \
    do {                                                                  \
        if (!strstr(message, part))                                       \
            fail_msg("\"%s\" does not contain \"%s\"", message, part);    \
    } while (0)

static void scratch_open(void)
{
    assert_int_equal(make_scratch(NULL), 0);
    setenv("DEZERO_CACHE_DIR", scratch, 1);
}

static void scratch_close(void)
{
    assert_int_equal(remove_scratch(NULL), 0);
    unsetenv("DEZERO_CACHE_DIR");
}

/* z = (x + y) * x, a small graph to draw. */
static Variable *small_graph(void)
{
    Variable *x = variable(nd_scalar(2.0));
    Variable *y = variable(nd_from_buffer(ND_FLOAT64, ND_SHAPE(3),
                                          (double[]){1, 2, 3}));
    x->name = "x";
    y->name = "y";
    return F_mul(F_add(x, y), x);
}

/* ---- the DOT text and dot's pictures */

static void test_text_file_on_a_full_disk(void **state)
{
    (void)state;
    scratch_open();
    const char *path = in_scratch("graph.dot");
    write_old(path);
    char *text = malloc(1 << 16);
    assert_non_null(text);
    memset(text, 'x', (1 << 16) - 1);
    text[(1 << 16) - 1] = '\0';
    capture_stderr(scratch);
    full_disk(4096);
    bool written = write_text_file(path, text);
    full_disk_end();
    const char *message = captured();
    assert_false(written);
    EXPECT_SAYS(message, "write_text_file: cannot write ");
    EXPECT_SAYS(message, path);
    EXPECT_SAYS(message, "File too large");
    expect_old(path);
    assert_int_equal(leftovers(), 0);
    assert_true(write_text_file(path, "new\n"));
    char *back = read_file(path, NULL);
    assert_string_equal(back, "new\n");
    free(back);
    free(text);
    scratch_close();
}

static void test_dot_picture_on_a_full_disk(void **state)
{
    (void)state;
    if (!program_installed("dot"))
        skip();
    scratch_open();
    const char *formats[] = {"graph.png", "graph.svg"};
    for (int i = 0; i < 2; i++) {
        const char *path = in_scratch(formats[i]);
        write_old(path);
        capture_stderr(scratch);
        /* the DOT text, some 500 bytes, fits; the picture does not */
        full_disk(1500);
        bool drawn = plot_dot_graph(small_graph(), false, path);
        full_disk_end();
        const char *message = captured();
        assert_false(drawn);
        EXPECT_SAYS(message, "plot_dot_graph: cannot write ");
        EXPECT_SAYS(message, path);
        EXPECT_SAYS(message, "File too large");
        expect_old(path);
        assert_int_equal(leftovers(), 0);
        assert_true(plot_dot_graph(small_graph(), false, path));
        assert_true(file_starts_with(path, i ? "<?xml" : "\x89PNG"));
    }
    scratch_close();
}

#if STEP >= 34
/* ---- CSV and gnuplot's pictures */

/* 2000 rows of x, sin x: some 70 kB of CSV. */
static bool write_wave(const char *path)
{
    NdArray *x = nd_linspace(0, 10, 2000);
    NdArray *y = nd_sin(x);
    bool written = write_csv(path, 2, (const char *[]){"x", "y"},
                             (const NdArray *[]){x, y});
    nd_release(y);
    nd_release(x);
    return written;
}

static void test_csv_on_a_full_disk(void **state)
{
    (void)state;
    scratch_open();
    const char *path = in_scratch("predict.csv");
    write_old(path);
    capture_stderr(scratch);
    full_disk(8192);
    bool written = write_wave(path);
    full_disk_end();
    const char *message = captured();
    assert_false(written);
    EXPECT_SAYS(message, "write_csv: cannot write ");
    EXPECT_SAYS(message, path);
    EXPECT_SAYS(message, "File too large");
    expect_old(path);
    assert_int_equal(leftovers(), 0);
    scratch_close();
}

static void test_gnuplot_picture_on_a_full_disk(void **state)
{
    (void)state;
    if (!program_installed("gnuplot"))
        skip();
    scratch_open();
    const char *csv = in_scratch("predict.csv");
    assert_true(write_wave(csv));
    const char *formats[] = {"predict.svg", "predict.png"};
    for (int i = 0; i < 2; i++) {
        const char *path = in_scratch(formats[i]);
        write_old(path);
        capture_stderr(scratch);
        full_disk(2048);
        bool drawn = plot_csv(csv, path, "bottom left");
        full_disk_end();
        const char *message = captured();
        assert_false(drawn);
        EXPECT_SAYS(message, "plot_csv: cannot write ");
        EXPECT_SAYS(message, path);
        EXPECT_SAYS(message, "File too large");
        expect_old(path);
        assert_int_equal(leftovers(), 0);
        assert_true(plot_csv(csv, path, "bottom left"));
        assert_true(file_starts_with(path, i ? "\x89PNG" : "<?xml"));
    }
    scratch_close();
}

/* gnuplot fails (a CSV file that is not there) or is not there: the
 * earlier picture stays. */
static void test_gnuplot_failure_keeps_the_picture(void **state)
{
    (void)state;
    scratch_open();
    const char *path = in_scratch("predict.svg");
    write_old(path);
    char *saved_path = path_to_scratch();   /* a folder without gnuplot */
    capture_stderr(scratch);
    bool drawn = plot_csv(in_scratch("missing.csv"), path, "bottom left");
    const char *message = captured();
    restore_path(saved_path);
    assert_false(drawn);
    EXPECT_SAYS(message, "not installed");
    expect_old(path);
    if (program_installed("gnuplot")) {
        capture_stderr(scratch);
        drawn = plot_csv(in_scratch("missing.csv"), path, "bottom left");
        message = captured();
        assert_false(drawn);
        EXPECT_SAYS(message, "gnuplot could not draw");
        expect_old(path);
    }
    assert_int_equal(leftovers(), 0);
    scratch_close();
}
#endif

#if STEP >= 53
/* ---- a model's weights */

/* nd_error in the child below: the message, then out at once, before
 * LeakSanitizer looks at what the cut-short save left allocated. */
static void error_exit(const char *message)
{
    fprintf(stderr, "error: %s\n", message);
    fflush(stderr);
    _exit(1);
}

static void test_weights_on_a_full_disk(void **state)
{
    (void)state;
    scratch_open();
    const char *path = in_scratch("weights.npz");
    write_old(path);
    Layer *layer = L_linear(300);
    layer_call(layer, variable(nd_random_rand(ND_SHAPE(2, 300))));
    capture_stderr(scratch);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {                     /* saves on a full disk */
        nd_set_error_handler(error_exit);
        full_disk(16384);               /* 90000 weights: 720 kB */
        layer_save_weights(layer, path);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    const char *message = captured();
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    EXPECT_SAYS(message, path);
    EXPECT_SAYS(message, "File too large");
    expect_old(path);
    assert_int_equal(leftovers(), 0);
    scratch_close();
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_text_file_on_a_full_disk),
        STEP_TEST(test_dot_picture_on_a_full_disk),
#if STEP >= 34
        STEP_TEST(test_csv_on_a_full_disk),
        STEP_TEST(test_gnuplot_picture_on_a_full_disk),
        STEP_TEST(test_gnuplot_failure_keeps_the_picture),
#endif
#if STEP >= 53
        STEP_TEST(test_weights_on_a_full_disk),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
