// FIRST_STEP: 48
/* test_decision_regions.c - step 48's plot_classes and
 * plot_decision_regions (utils.c), the pictures of a classifier: with
 * gnuplot an SVG holding a marker per point and a legend entry per
 * class, under which plot_decision_regions puts the grid as an image,
 * and a PNG;
 * classes it has no marker for, or a grid that is not 2-D integers,
 * stop with an error; an extension gnuplot is not asked to draw returns
 * false with a message. */
#include <unistd.h>

#include "pool_fixture.h"
#include "capture_stderr.h"
#include "scratch.h"

static char points[96];

/* A fresh scratch folder holding points.csv: four points, of classes 0,
 * 1, 2 and 2. The test removes it (remove_scratch). */
static void scratch_with_points(void)
{
    assert_int_equal(make_scratch(NULL), 0);
    snprintf(points, sizeof points, "%s/points.csv", scratch);
    NdArray *x0 = nd_from_buffer(ND_FLOAT64, ND_SHAPE(4),
                                 (double[]){-0.5, 0.4, 0.2, -0.1});
    NdArray *x1 = nd_from_buffer(ND_FLOAT64, ND_SHAPE(4),
                                 (double[]){0.3, -0.3, 0.1, 0.0});
    NdArray *t = nd_from_buffer(ND_INT64, ND_SHAPE(4),
                                (int64_t[]){0, 1, 2, 2});
    const char *names[] = {"x0", "x1", "t"};
    assert_true(write_csv(points, 3, names,
                          (const NdArray *[]){x0, x1, t}));
    nd_release(t);
    nd_release(x1);
    nd_release(x0);
}

/* A 3 x 4 grid: class 0 left, 1 in the middle, 2 right. */
static NdArray *grid(void)
{
    return nd_from_buffer(ND_INT64, ND_SHAPE(3, 4), (int64_t[]){
        0, 1, 1, 2, 0, 1, 2, 2, 0, 0, 1, 2});
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p++)
        n++;
    return n;
}

static void test_draws(void **state)
{
    (void)state;
    if (!program_installed("gnuplot"))
        skip();
    scratch_with_points();
    const char *svg = in_scratch("regions.svg");
    const char *png = in_scratch("regions.png");
    NdArray *classes = grid();
    assert_true(plot_decision_regions(classes, -0.6, -0.4, 0.3, points,
                                      svg));
    char *text = read_file(svg, NULL);
    assert_int_equal(count(text, "<image "), 1);
    assert_non_null(strstr(text, "data:image/png;base64,"));
    /* a mark per point (pt 7, 2, 9 are gpPt6, gpPt1, gpPt8), and one
     * per legend entry */
    assert_int_equal(count(text, "xlink:href='#gpPt6'"), 1 + 1);
    assert_int_equal(count(text, "xlink:href='#gpPt1'"), 1 + 1);
    assert_int_equal(count(text, "xlink:href='#gpPt8'"), 2 + 1);
    assert_non_null(strstr(text, "<text>class 0</text>"));
    assert_non_null(strstr(text, "<text>class 1</text>"));
    assert_non_null(strstr(text, "<text>class 2</text>"));
    free(text);
    assert_true(plot_decision_regions(classes, -0.6, -0.4, 0.3, points,
                                      png));
    assert_true(file_starts_with(png, "\x89PNG"));
    nd_release(classes);
    assert_int_equal(remove_scratch(NULL), 0);
}

/* The points alone: the same marks and legend, no image. */
static void test_points_alone(void **state)
{
    (void)state;
    if (!program_installed("gnuplot"))
        skip();
    scratch_with_points();
    const char *svg = in_scratch("points.svg");
    assert_true(plot_classes(points, svg));
    char *text = read_file(svg, NULL);
    assert_int_equal(count(text, "<image "), 0);
    assert_int_equal(count(text, "xlink:href='#gpPt6'"), 1 + 1);
    assert_int_equal(count(text, "xlink:href='#gpPt1'"), 1 + 1);
    assert_int_equal(count(text, "xlink:href='#gpPt8'"), 2 + 1);
    assert_non_null(strstr(text, "<text>class 2</text>"));
    free(text);
    assert_int_equal(remove_scratch(NULL), 0);
}

static void test_bad_classes(void **state)
{
    (void)state;
    NdArray *three = nd_full(ND_INT64, ND_SHAPE(2, 2), 3);
    EXPECT_ND_ERROR(plot_decision_regions(three, 0, 0, 1, "p.csv",
                                          "r.svg"),
                    "class 3 at row 0, column 0; there are markers for "
                    "classes 0, 1 and 2");
    NdArray *flat = nd_zeros(ND_INT64, ND_SHAPE(4));
    EXPECT_ND_ERROR(plot_decision_regions(flat, 0, 0, 1, "p.csv",
                                          "r.svg"),
                    "a 2-D integer array");
    NdArray *floats = nd_zeros(ND_FLOAT64, ND_SHAPE(2, 2));
    EXPECT_ND_ERROR(plot_decision_regions(floats, 0, 0, 1, "p.csv",
                                          "r.svg"),
                    "got 2 axes of float64");
    nd_release(floats);
    nd_release(flat);
    nd_release(three);
}

/* An extension gnuplot is not asked to draw: false, a message naming
 * the picture, and no file. */
static void test_bad_extension(void **state)
{
    (void)state;
    scratch_with_points();
    const char *gif = in_scratch("regions.gif");
    NdArray *classes = grid();
    capture_stderr(scratch);
    bool drawn = plot_decision_regions(classes, 0, 0, 1, points, gif);
    const char *message = captured();
    assert_false(drawn);
    assert_non_null(strstr(message, "regions.gif"));
    assert_non_null(strstr(message, ".svg or .png"));
    assert_int_equal(access(gif, F_OK), -1);
    nd_release(classes);
    assert_int_equal(remove_scratch(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_draws),
        STEP_TEST(test_points_alone),
        STEP_TEST(test_bad_classes),
        STEP_TEST(test_bad_extension),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
