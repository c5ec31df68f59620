// FIRST_STEP: 52
// LAST_STEP: 52
/* test_tour.c - step 52's second program, the tour of device arrays
 * (steps/step52/tour, or build/asan/tour in the sanitizer build; the
 * tour belongs to chapter 52 alone, so later steps do not carry it): it
 * makes its arrays, times fftn on the host, and then either runs the
 * device half or says why that half is skipped, within 80 columns, and
 * exits 0. The arrays are shrunk (DEZERO_TOUR_SIZE=200) so that the run
 * under ASan stays short, and at that size the seed's figures are not
 * compared; the plain build runs it once at the seed's sizes too, where
 * they are. A size that is not a number is refused with a message
 * naming the variable. */

#include "nd_test.h"
#include "run_command.h"
#include "variant.h"

enum { SIDE = 200 };

/* Runs the tour with DEZERO_TOUR_SIZE=size, stdout and stderr together
 * into out; returns its exit status. */
static int run_tour(const char *size, char *out, size_t out_size)
{
    char command[256];
    snprintf(command, sizeof command,
             "DEZERO_TOUR_SIZE='%s' steps/step%02d/" VARIANT_FOLDER
             "tour 2>&1", size, STEP);
    return run_command(command, out, out_size);
}

static void expect_line(const char *out, const char *line)
{
    if (!strstr(out, line))
        fail_msg("the tour did not print \"%s\"; it printed:\n%s", line,
                 out);
}

static void test_runs_its_half_and_exits_0(void **state)
{
    (void)state;
    static char out[16384];
    int status = run_tour("200", out, sizeof out);
    if (status != 0)
        fail_msg("the tour exited with %d:\n%s", status, out);
    char line[128];
    snprintf(line, sizeof line, "x1  shape (%d, %d)", SIDE, SIDE);
    expect_line(out, line);
    snprintf(line, sizeof line, "x2  shape (%d, %d)", 2 * SIDE, 2 * SIDE);
    expect_line(out, line);
    snprintf(line, sizeof line, "int64  nbytes %10zu\n",
             (size_t)SIDE * SIDE * sizeof(int64_t));
    expect_line(out, line);
    expect_line(out, "fftn on the host, by FFTW");
    if (nd_gpu_available()) {
        expect_line(out, "allclose to the host's: yes");
        expect_line(out, "runs on the host; convert it first with");
        expect_line(out, "shuffled, on the host");
        expect_line(out, "int64, on cuda\n");
    } else {
        snprintf(line, sizeof line, "No GPU here: %s.\n", nd_gpu_status());
        expect_line(out, line);
        expect_line(out, "The device half of the tour is skipped");
    }
    expect_line(out, "The seed's figures are for sides 2000 and 4000; at "
                "side 200 they are not\ncompared.");
    for (const char *p = out; *p;) {
        size_t len = strcspn(p, "\n");
        if (len > 80)
            fail_msg("a line of %zu columns: %.*s", len, (int)len, p);
        p += len + (p[len] == '\n');
    }
}

/* At the seed's sizes (2000 and 4000, a few seconds of FFTs), the tour
 * sets its times beside the seed's, ours over its: the host's fftn of
 * x2 always, the copies and cuFFT's fftn with a GPU. Not under ASan,
 * where those FFTs take too long. */
static void test_compares_with_the_seed_at_its_sizes(void **state)
{
    (void)state;
    if (VARIANT_FOLDER[0])
        skip();
    static char out[16384];
    int status = run_tour("", out, sizeof out);
    if (status != 0)
        fail_msg("the tour exited with %d:\n%s", status, out);
    expect_line(out, "Beside the seed's figures");
    expect_line(out, "  scipy fftn(x2)    430.000 ms   ours ");
    if (nd_gpu_available()) {
        expect_line(out, "  cp.asarray(x1)      7.540 ms   ours ");
        expect_line(out, "  cp.asarray(x2)     17.700 ms   ours ");
        expect_line(out, "  cupyx fftn(x2)      0.344 ms   ours ");
    } else {
        expect_line(out, "(the copies and cuFFT's fftn need the device "
                    "half)");
    }
    /* The ratio is ours over the seed's: x2's host time over 430 ms. */
    const char *row = strstr(out, "scipy fftn(x2)");
    const char *host = strstr(out, "fftn on the host");
    const char *x2 = host ? strstr(host, "\n  x2 ") : NULL;
    double ours_ms, ratio, host_ms;
    assert_non_null(row);
    assert_non_null(x2);
    assert_int_equal(sscanf(row, "scipy fftn(x2) %*f ms ours %lf ms %lfx",
                            &ours_ms, &ratio), 2);
    assert_int_equal(sscanf(x2, " x2 %lf ms", &host_ms), 1);
    EXPECT_DOUBLE(ours_ms, host_ms);
    EXPECT_NEAR(ratio, ours_ms / 430.0, 0.006);
}

static void test_refuses_a_size_that_is_not_a_number(void **state)
{
    (void)state;
    char out[1024];
    assert_int_equal(run_tour("big", out, sizeof out), 1);
    expect_line(out, "DEZERO_TOUR_SIZE=big: want a side from 1 to 8000");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_its_half_and_exits_0),
        cmocka_unit_test(test_compares_with_the_seed_at_its_sizes),
        cmocka_unit_test(test_refuses_a_size_that_is_not_a_number),
    };
    return cmocka_run_group_tests_name("tour", tests, NULL, NULL);
}
