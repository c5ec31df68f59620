// FIRST_STEP: 42
/* test_plot_fit.c - the picture of a fitted model (step 42, utils.c):
 * plot_fit with gnuplot draws an SVG with the points, the line and the
 * axis names, and a PNG; without gnuplot, or for an extension it does
 * not draw, it returns false with a message that names the picture and
 * writes none. */
#include <unistd.h>

#include "pool_fixture.h"
#include "capture_stderr.h"
#include "scratch.h"

/* Writes points.csv (five points) and curve.csv (a line of two) into
 * the scratch folder; their paths go to points and curve. */
static void write_data(char *points, char *curve, size_t size)
{
    snprintf(points, size, "%s/points.csv", scratch);
    snprintf(curve, size, "%s/curve.csv", scratch);
    NdArray *x = nd_linspace(0, 1, 5);
    NdArray *y = nd_from_buffer(ND_FLOAT64, ND_SHAPE(5),
                                (double[]){5.1, 5.6, 6.2, 6.4, 7.1});
    NdArray *t = nd_linspace(0, 1, 2);
    NdArray *fit = nd_from_buffer(ND_FLOAT64, ND_SHAPE(2),
                                  (double[]){5.0, 7.0});
    const char *names[] = {"x", "y"};
    assert_true(write_csv(points, 2, names, (const NdArray *[]){x, y}));
    assert_true(write_csv(curve, 2, names, (const NdArray *[]){t, fit}));
    nd_release(x);
    nd_release(y);
    nd_release(t);
    nd_release(fit);
}

/* With gnuplot: an SVG with five point marks, a line and the axis
 * names, and a PNG. */
static void test_plot_fit_draws(void **state)
{
    (void)state;
    if (!program_installed("gnuplot"))
        skip();
    assert_int_equal(make_scratch(NULL), 0);
    char points[96], curve[96];
    write_data(points, curve, sizeof points);
    const char *svg = in_scratch("fit.svg"), *png = in_scratch("fit.png");
    assert_true(plot_fit(points, curve, svg, "x", "y axis"));
    assert_true(file_starts_with(svg, "<?xml"));
    char *text = read_file(svg, NULL);
    int marks = 0;
    for (const char *p = text; (p = strstr(p, "xlink:href='#gpPt6'"));
         p++)
        marks++;
    assert_int_equal(marks, 5);                 /* one per point */
    assert_non_null(strstr(text, "<text>y axis</text>"));
    assert_non_null(strstr(text, "stroke='rgb(255,   0,   0)'"));
    free(text);
    assert_true(plot_fit(points, curve, png, "x", "y"));
    assert_true(file_starts_with(png, "\x89PNG"));
    assert_int_equal(remove_scratch(NULL), 0);
}

/* Without gnuplot on the PATH: false, and a message that names the
 * picture and what to install; no picture. */
static void test_plot_fit_without_gnuplot(void **state)
{
    (void)state;
    assert_int_equal(make_scratch(NULL), 0);
    char points[96], curve[96];
    write_data(points, curve, sizeof points);
    const char *svg = in_scratch("fit.svg");
    char *path = path_to_scratch();     /* a folder without gnuplot */
    capture_stderr(scratch);
    bool drawn = plot_fit(points, curve, svg, "x", "y");
    const char *message = captured();
    restore_path(path);
    assert_false(drawn);
    assert_non_null(strstr(message, "fit.svg"));
    assert_non_null(strstr(message, "not installed"));
    assert_non_null(strstr(message, "gnuplot-nox"));
    assert_int_equal(access(svg, F_OK), -1);
    assert_int_equal(remove_scratch(NULL), 0);
}

/* An extension gnuplot is not asked to draw: false, and a message. */
static void test_plot_fit_bad_extension(void **state)
{
    (void)state;
    assert_int_equal(make_scratch(NULL), 0);
    char points[96], curve[96];
    write_data(points, curve, sizeof points);
    const char *gif = in_scratch("fit.gif");
    capture_stderr(scratch);
    bool drawn = plot_fit(points, curve, gif, "x", "y");
    const char *message = captured();
    assert_false(drawn);
    assert_non_null(strstr(message, "fit.gif"));
    assert_non_null(strstr(message, ".svg or .png"));
    assert_int_equal(remove_scratch(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_plot_fit_draws),
        STEP_TEST(test_plot_fit_without_gnuplot),
        STEP_TEST(test_plot_fit_bad_extension),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
