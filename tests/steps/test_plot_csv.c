// FIRST_STEP: 34
/* test_plot_csv.c - plotting data (step 34, utils.c): write_csv's text,
 * digits that read back to the same doubles, its refusals (columns of
 * different sizes, a name that would break the line, a file it cannot
 * write), and plot_csv with gnuplot (an SVG and a PNG, a file name with
 * a quote in it) and without it (false, and a message that says what to
 * install). */
#include <unistd.h>

#include "pool_fixture.h"
#include "capture_stderr.h"
#include "scratch.h"

/* Writes x = (0.1, 2) and y = (-1.5, 1e-300) to path. */
static bool write_two_columns(const char *path)
{
    NdArray *x = nd_from_buffer(ND_FLOAT64, 1, (int64_t[]){2},
                                (double[]){0.1, 2.0});
    NdArray *y = nd_from_buffer(ND_FLOAT64, 1, (int64_t[]){2},
                                (double[]){-1.5, 1e-300});
    bool written = write_csv(path, 2, (const char *[]){"x", "y'"},
                             (const NdArray *[]){x, y});
    nd_release(x);
    nd_release(y);
    return written;
}

/* A header, then a line per element, each number with 17 significant
 * digits (Python's '%.17g' % v gives the same text). */
static void test_csv_text(void **state)
{
    (void)state;
    assert_int_equal(make_scratch(NULL), 0);
    const char *path = in_scratch("data.csv");
    assert_true(write_two_columns(path));
    char *text = read_file(path, NULL);
    assert_string_equal(text, "x,y'\n0.10000000000000001,-1.5\n"
                              "2,1e-300\n");
    free(text);
    assert_int_equal(remove_scratch(NULL), 0);
}

/* The digits read back to the very doubles written. */
static void test_csv_round_trip(void **state)
{
    (void)state;
    assert_int_equal(make_scratch(NULL), 0);
    const char *path = in_scratch("round.csv");
    NdArray *x = nd_linspace(-7, 7, 200);
    assert_true(write_csv(path, 1, (const char *[]){"x"},
                          (const NdArray *[]){x}));
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[64];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "x\n");
    for (int64_t i = 0; i < 200; i++) {
        assert_non_null(fgets(line, sizeof line, f));
        if (strtod(line, NULL) != nd_get_flat(x, i))
            fail_msg("line %lld: %s does not read back as %.17g",
                     (long long)i, line, nd_get_flat(x, i));
    }
    assert_null(fgets(line, sizeof line, f));
    fclose(f);
    nd_release(x);
    assert_int_equal(remove_scratch(NULL), 0);
}

static void test_csv_refusals(void **state)
{
    (void)state;
    NdArray *two = nd_zeros(ND_FLOAT64, ND_SHAPE(2));
    NdArray *three = nd_zeros(ND_FLOAT64, ND_SHAPE(3));
    EXPECT_ND_ERROR(write_csv("/tmp/never.csv", 2,
                              (const char *[]){"a", "b"},
                              (const NdArray *[]){two, three}),
                    "column b has 3 values");
    EXPECT_ND_ERROR(write_csv("/tmp/never.csv", 1,
                              (const char *[]){"a,b"},
                              (const NdArray *[]){two}),
                    "holds a comma");
    assert_int_equal(access("/tmp/never.csv", F_OK), -1);
    nd_release(two);
    nd_release(three);
    /* A folder that does not exist: false, and a message that names
     * the file and the reason. */
    assert_int_equal(make_scratch(NULL), 0);
    capture_stderr(scratch);
    bool written = write_two_columns("/nonexistent/folder/data.csv");
    const char *message = captured();
    assert_false(written);
    assert_string_equal(message, "write_csv: cannot open "
                        "/nonexistent/folder/data.csv: No such file or "
                        "directory\n");
    assert_int_equal(remove_scratch(NULL), 0);
}

/* ---- plot_csv */

/* With gnuplot: an SVG with the header's names in its legend, a PNG,
 * and names with a quote in them (gnuplot's strings double it). */
static void test_plot_draws(void **state)
{
    (void)state;
    if (!program_installed("gnuplot"))
        skip();
    assert_int_equal(make_scratch(NULL), 0);
    const char *csv = in_scratch("it's.csv"), *svg = in_scratch("it's.svg");
    const char *png = in_scratch("plot.png");
    assert_true(write_two_columns(csv));
    assert_true(plot_csv(csv, svg, "bottom right"));
    assert_true(file_starts_with(svg, "<?xml"));
    char *text = read_file(svg, NULL);
    assert_non_null(strstr(text, "<text>y'</text>"));
    free(text);
    assert_true(plot_csv(csv, png, "top left"));
    assert_true(file_starts_with(png, "\x89PNG"));
    assert_int_equal(remove_scratch(NULL), 0);
}

/* Without gnuplot on the PATH: false, and a message that says what to
 * install; no picture. */
static void test_plot_without_gnuplot(void **state)
{
    (void)state;
    assert_int_equal(make_scratch(NULL), 0);
    const char *csv = in_scratch("data.csv"), *svg = in_scratch("data.svg");
    assert_true(write_two_columns(csv));
    char *path = path_to_scratch();     /* a folder without gnuplot */
    capture_stderr(scratch);
    bool drawn = plot_csv(csv, svg, "bottom right");
    const char *message = captured();
    restore_path(path);
    assert_false(drawn);
    assert_non_null(strstr(message, "not installed"));
    assert_non_null(strstr(message, "gnuplot-nox"));
    assert_int_equal(access(svg, F_OK), -1);
    assert_int_equal(remove_scratch(NULL), 0);
}

/* A format it does not draw, a CSV file that is not there: false. */
static void test_plot_failures(void **state)
{
    (void)state;
    assert_int_equal(make_scratch(NULL), 0);
    const char *csv = in_scratch("data.csv"), *file = in_scratch("plot.gif");
    assert_true(write_two_columns(csv));
    capture_stderr(scratch);
    bool drawn = plot_csv(csv, file, "bottom right");
    const char *message = captured();
    assert_false(drawn);
    assert_non_null(strstr(message, ".svg or .png"));
    if (program_installed("gnuplot")) {
        csv = in_scratch("missing.csv");
        file = in_scratch("plot.svg");
        capture_stderr(scratch);
        drawn = plot_csv(csv, file, "bottom right");
        message = captured();
        assert_false(drawn);
        assert_non_null(strstr(message, "gnuplot could not draw"));
    }
    assert_int_equal(remove_scratch(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_csv_text),
        STEP_TEST(test_csv_round_trip),
        STEP_TEST(test_csv_refusals),
        STEP_TEST(test_plot_draws),
        STEP_TEST(test_plot_without_gnuplot),
        STEP_TEST(test_plot_failures),
    };
    return cmocka_run_group_tests_name("plot_csv", tests, NULL, NULL);
}
