// FIRST_STEP: 34
/* test_plot_csv.c - plotting data (step 34, utils.c): write_csv's text,
 * digits that read back to the same doubles, its refusals (columns of
 * different sizes, a name that would break the line, a file it cannot
 * write), and plot_csv with gnuplot (an SVG and a PNG, a file name with
 * a quote in it) and without it (false, and a message that says what to
 * install). */
#include <unistd.h>

#include "pool_fixture.h"

static char scratch[64];

static void scratch_open(void)
{
    snprintf(scratch, sizeof scratch, "/tmp/test_plot_csv.XXXXXX");
    assert_non_null(mkdtemp(scratch));
}

static void scratch_close(void)
{
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", scratch);
    assert_int_equal(system(command), 0);
}

/* The file's text, which the caller frees. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *text = calloc(1 << 16, 1);
    assert_non_null(text);
    size_t n = fread(text, 1, (1 << 16) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static bool file_starts_with(const char *path, const char *start)
{
    char head[16] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t n = fread(head, 1, strlen(start), f);
    fclose(f);
    return n == strlen(start) && memcmp(head, start, n) == 0;
}

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
    scratch_open();
    char path[96];
    snprintf(path, sizeof path, "%s/data.csv", scratch);
    assert_true(write_two_columns(path));
    char *text = read_file(path);
    assert_string_equal(text, "x,y'\n0.10000000000000001,-1.5\n"
                              "2,1e-300\n");
    free(text);
    scratch_close();
}

/* The digits read back to the very doubles written. */
static void test_csv_round_trip(void **state)
{
    (void)state;
    scratch_open();
    char path[96];
    snprintf(path, sizeof path, "%s/round.csv", scratch);
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
    scratch_close();
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
    fflush(stderr);
    int saved = dup(2);
    FILE *capture = tmpfile();
    assert_non_null(capture);
    dup2(fileno(capture), 2);
    bool written = write_two_columns("/nonexistent/folder/data.csv");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(capture);
    char message[1024];
    message[fread(message, 1, sizeof message - 1, capture)] = '\0';
    fclose(capture);
    assert_false(written);
    assert_string_equal(message, "write_csv: cannot open "
                        "/nonexistent/folder/data.csv: No such file or "
                        "directory\n");
}

/* ---- plot_csv */

static bool gnuplot_installed(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* plot_csv's result, with what it wrote to stderr in message. */
static bool plot_capturing_stderr(const char *csv, const char *to_file,
                                  char *message, size_t size)
{
    char path[96];
    snprintf(path, sizeof path, "%s/stderr.txt", scratch);
    fflush(stderr);
    int saved = dup(2);
    FILE *capture = fopen(path, "w+");
    assert_non_null(capture);
    dup2(fileno(capture), 2);
    bool drawn = plot_csv(csv, to_file, "bottom right");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(capture);
    size_t n = fread(message, 1, size - 1, capture);
    message[n] = '\0';
    fclose(capture);
    return drawn;
}

/* With gnuplot: an SVG with the header's names in its legend, a PNG,
 * and names with a quote in them (gnuplot's strings double it). */
static void test_plot_draws(void **state)
{
    (void)state;
    if (!gnuplot_installed())
        skip();
    scratch_open();
    char csv[96], svg[96], png[96];
    snprintf(csv, sizeof csv, "%s/it's.csv", scratch);
    snprintf(svg, sizeof svg, "%s/it's.svg", scratch);
    snprintf(png, sizeof png, "%s/plot.png", scratch);
    assert_true(write_two_columns(csv));
    assert_true(plot_csv(csv, svg, "bottom right"));
    assert_true(file_starts_with(svg, "<?xml"));
    char *text = read_file(svg);
    assert_non_null(strstr(text, "<text>y'</text>"));
    free(text);
    assert_true(plot_csv(csv, png, "top left"));
    assert_true(file_starts_with(png, "\x89PNG"));
    scratch_close();
}

/* Without gnuplot on the PATH: false, and a message that says what to
 * install; no picture. */
static void test_plot_without_gnuplot(void **state)
{
    (void)state;
    scratch_open();
    char csv[96], svg[96], message[1024];
    snprintf(csv, sizeof csv, "%s/data.csv", scratch);
    snprintf(svg, sizeof svg, "%s/data.svg", scratch);
    assert_true(write_two_columns(csv));
    char *path = strdup(getenv("PATH") ? getenv("PATH") : "");
    setenv("PATH", scratch, 1);         /* a folder without gnuplot */
    bool drawn = plot_capturing_stderr(csv, svg, message, sizeof message);
    setenv("PATH", path, 1);
    free(path);
    assert_false(drawn);
    assert_non_null(strstr(message, "not installed"));
    assert_non_null(strstr(message, "gnuplot-nox"));
    assert_int_equal(access(svg, F_OK), -1);
    scratch_close();
}

/* A format it does not draw, a CSV file that is not there: false. */
static void test_plot_failures(void **state)
{
    (void)state;
    scratch_open();
    char csv[96], file[96], message[1024];
    snprintf(csv, sizeof csv, "%s/data.csv", scratch);
    assert_true(write_two_columns(csv));
    snprintf(file, sizeof file, "%s/plot.gif", scratch);
    assert_false(plot_capturing_stderr(csv, file, message,
                                       sizeof message));
    assert_non_null(strstr(message, ".svg or .png"));
    if (gnuplot_installed()) {
        snprintf(csv, sizeof csv, "%s/missing.csv", scratch);
        snprintf(file, sizeof file, "%s/plot.svg", scratch);
        assert_false(plot_capturing_stderr(csv, file, message,
                                           sizeof message));
        assert_non_null(strstr(message, "gnuplot could not draw"));
    }
    scratch_close();
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
