/* test_examples.c - the programs of examples/ (examples/Makefile, built
 * from step 60's framework), each run whole in a scratch folder as a
 * reader runs it, on small settings: tanh's graph and value against
 * Python's DeZero, spiral's seeded losses against Python's, mnist on the
 * suite's tiny MNIST (its losses falling, its accuracies fractions),
 * gan and vae on it too, seeded, their losses against Python's, and
 * their pictures; grad_cam and style_transfer on VGG16's random weights
 * and small pictures, their heatmap, their loss and their pictures.
 * Nothing is downloaded (DEZERO_OFFLINE) and the GPU library is not
 * opened. The SANITIZE=1 suite runs the sanitizer builds, under
 * LeakSanitizer; the plain suite also runs each program once under
 * valgrind: the examples are leak-free, as the steps are. */
#include <limits.h>
#include <sys/wait.h>

#include "nd_test.h"
#include "image.h"
#include "mnist_tiny.h"
#include "picture.h"
#include "scratch.h"

/* EXAMPLES_OUT, from tests/run.sh: the folder of the programs, examples/
 * or examples/build/asan/, from the top of the project. */
#define STRING_(x) #x
#define STRING(x) STRING_(x)
static char programs[PATH_MAX];

static int setup(void **state)
{
    if (!realpath(STRING(EXAMPLES_OUT), programs))
        return -1;
    return make_scratch(state);
}

/* Runs the example name in the scratch folder, its stdout into out.txt
 * and its stderr into err.txt, with the suite's environment and the
 * assignments env ("NAME=value ...", "" for none), under valgrind when
 * asked. Returns its exit status; -1 when a signal ended it. */
static int run_example(const char *name, const char *env, bool valgrind)
{
    char command[2 * PATH_MAX + 1024];
    int length = snprintf(command, sizeof command,
             "cd '%s' && env DEZERO_OFFLINE=1 DEZERO_CACHE_DIR='%s' "
             "ND_GPU_LIBRARY=/nonexistent/libnd_cuda.so %s %s '%s/%s' "
             "> out.txt 2> err.txt",
             scratch, scratch, env,
             valgrind ? "valgrind --leak-check=full --errors-for-leak-"
                        "kinds=definite,indirect --error-exitcode=99 "
                        "--quiet" : "",
             programs, name);
    assert_true(length > 0 && (size_t)length < sizeof command);
    int status = system(command);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Prints what the last run wrote to stderr, for a failing check. */
static void show_stderr(void)
{
    char *err = read_file(in_scratch("err.txt"), NULL);
    print_message("stderr: %s\n", err);
    free(err);
}

/* How many lines of text contain needle. */
static int lines_with(const char *text, const char *needle)
{
    int n = 0;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        char *copy = strndup(line, length);
        n += strstr(copy, needle) != NULL;
        free(copy);
        line = end ? end + 1 : NULL;
    }
    return n;
}

/* ------------------------------------------------------------ tanh */

/* The (iters + 1)-th derivative of tanh at 1, its value and its graph's
 * functions (boxes), variables and edges, from Python's DeZero
 * (examples/tanh.py's code, get_dot_graph(gx, verbose=False), counting
 * the lines with shape=box, with orange, with ->). */
static void check_tanh(const char *env, const char *name, double value,
                       int functions, int variables, int edges)
{
    int status = run_example("tanh", env, false);
    if (status != 0)
        show_stderr();
    assert_int_equal(status, 0);
    char *out = read_file(in_scratch("out.txt"), NULL);
    char printed[16];
    double got;
    assert_int_equal(sscanf(out, "%15[^:]: %lf", printed, &got), 2);
    assert_string_equal(printed, name);
    assert_true(fabs(got - value) <= 1e-12 * fabs(value));
    free(out);
    char *dot = read_file(in_scratch("tanh.dot"), NULL);
    assert_non_null(strstr(dot, "digraph g {"));
    assert_int_equal(lines_with(dot, "shape=box"), functions);
    assert_int_equal(lines_with(dot, "orange"), variables);
    assert_int_equal(lines_with(dot, "->"), edges);
    char label[32];
    snprintf(label, sizeof label, "[label=\"%s\"", name);
    assert_non_null(strstr(dot, label));
    free(dot);
    if (program_installed("dot"))
        assert_true(file_starts_with(in_scratch("tanh.png"), "\x89PNG"));
}

static void test_tanh_draws_the_fourth_derivative(void **state)
{
    (void)state;
    check_tanh("", "gx4", 0.6650910447505024, 51, 97, 147);
}

static void test_tanh_iters_from_the_environment(void **state)
{
    (void)state;
    check_tanh("DEZERO_ITERS=1", "gx2", -0.6397000084492246, 9, 17, 25);
    assert_int_equal(run_example("tanh", "DEZERO_ITERS=9", false), 1);
    char *err = read_file(in_scratch("err.txt"), NULL);
    assert_non_null(strstr(err, "DEZERO_ITERS=9"));
    free(err);
}

/* ------------------------------------------------------------ spiral */

/* Seeded with 0, the losses spiral prints at epochs 1, 11, 21 and 31
 * are Python's (examples/spiral.py after np.random.seed(0), DeZero's
 * float32 arithmetic; C's exp and sums round the last bit or two
 * elsewhere); the model then draws its regions. */
static void test_spiral_trains_as_python(void **state)
{
    (void)state;
    static const double python[] = {0.9848603, 0.7023468, 0.5429236,
                                    0.4090025};
    int status = run_example("spiral", "DEZERO_SEED=0 DEZERO_EPOCHS=31 "
                             "DEZERO_GRID_STEP=0.05", false);
    if (status != 0)
        show_stderr();
    assert_int_equal(status, 0);
    char *out = read_file(in_scratch("out.txt"), NULL);
    const char *line = out;
    for (size_t i = 0; i < sizeof python / sizeof *python; i++) {
        double loss;
        assert_non_null(line);
        assert_int_equal(sscanf(line, "loss: %lf", &loss), 1);
        assert_true(isfinite(loss));
        assert_true(fabs(loss - python[i]) <= 1e-6);
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    assert_true(line && *line == '\0');     /* four lines, no more */
    free(out);
    char *csv = read_file(in_scratch("spiral.csv"), NULL);
    assert_int_equal(lines_with(csv, ","), 301);    /* header, 300 points */
    free(csv);
    if (program_installed("gnuplot"))
        assert_true(file_starts_with(in_scratch("spiral.svg"), "<?xml"));
}

/* ------------------------------------------------------------ mnist */

static void test_mnist_learns_the_tiny_set(void **state)
{
    (void)state;
    char problem[256];
    assert_true(mnist_tiny_write(scratch, 300, 100, problem,
                                 sizeof problem));
    int status = run_example("mnist", "DEZERO_SEED=0 DEZERO_EPOCHS=2 "
                             "DEZERO_HIDDEN_SIZE=100", false);
    if (status != 0)
        show_stderr();
    assert_int_equal(status, 0);
    char *out = read_file(in_scratch("out.txt"), NULL);
    double loss[2][2], acc[2][2];           /* [epoch][train, test] */
    const char *at = out;
    for (int epoch = 0; epoch < 2; epoch++) {
        int number;
        assert_int_equal(sscanf(at, "epoch: %d\ntrain loss: %lf, "
                                "accuracy: %lf\ntest loss: %lf, "
                                "accuracy: %lf\n", &number,
                                &loss[epoch][0], &acc[epoch][0],
                                &loss[epoch][1], &acc[epoch][1]), 5);
        assert_int_equal(number, epoch + 1);
        for (int set = 0; set < 2; set++) {
            assert_true(isfinite(loss[epoch][set]));
            assert_true(acc[epoch][set] >= 0 && acc[epoch][set] <= 1);
        }
        for (int k = 0; k < 3; k++)
            at = strchr(at, '\n') + 1;
    }
    assert_true(*at == '\0');
    assert_true(loss[1][0] < loss[0][0]);
    assert_true(loss[1][1] < loss[0][1]);
    free(out);
    char *err = read_file(in_scratch("err.txt"), NULL);
    assert_non_null(strstr(err, "training on the CPU"));
    free(err);
}

/* ------------------------------------------------------------ gan */

/* The picture at path, read back: (140, 140) pixels, grey in all three
 * channels (image.h reads it as RGB); a new array (140, 140, 3). */
static NdArray *read_grid(const char *path)
{
    NdArray *rgb = nd_image_read(path);
    assert_int_equal(rgb->ndim, 3);
    assert_int_equal(rgb->shape[0], 140);
    assert_int_equal(rgb->shape[1], 140);
    return rgb;
}

/* Two epochs on 96 tiny digits in batches of 16, with Linear layers of
 * 32 outputs, seeded with 0: the mean losses printed at batches 3 and 6
 * of each epoch's 6 are Python's (examples/gan.py after
 * np.random.seed(0), with batch_size 16, max_epoch 2, L.Linear(32) for
 * L.Linear(1024), interval 3, on the same files: 0.6834864361,
 * 1.3886412751, ... printed to ten places; C's agree to all ten), which
 * the program prints to four. Each epoch writes its 5 x 5 grid, not
 * blank, and the second differs from the first. */
static void test_gan_trains_as_python(void **state)
{
    (void)state;
    static const double python[4][2] = {    /* loss_g, loss_d */
        {0.6834864361, 1.3886412751}, {0.6836288714, 1.3878845924},
        {0.6857005181, 1.3841942677}, {0.6865984091, 1.3836261709},
    };
    char problem[256];
    assert_true(mnist_tiny_write(scratch, 96, 10, problem, sizeof problem));
    int status = run_example("gan", "DEZERO_SEED=0 DEZERO_EPOCHS=2 "
                             "DEZERO_BATCH_SIZE=16 DEZERO_FC_SIZE=32 "
                             "DEZERO_INTERVAL=3", false);
    if (status != 0)
        show_stderr();
    assert_int_equal(status, 0);
    char *out = read_file(in_scratch("out.txt"), NULL);
    static const char *const epochs[] = {"0.50", "1.00", "1.50", "2.00"};
    const char *at = out;
    for (int i = 0; i < 4; i++) {
        char epoch[8];
        double loss_g, loss_d;
        assert_int_equal(sscanf(at, "epoch: %7[0-9.], loss_g: %lf, "
                                "loss_d: %lf\n", epoch, &loss_g, &loss_d),
                         3);
        assert_string_equal(epoch, epochs[i]);
        assert_true(fabs(loss_g - python[i][0]) <= 5.1e-5);
        assert_true(fabs(loss_d - python[i][1]) <= 5.1e-5);
        at = strchr(at, '\n') + 1;
    }
    assert_true(*at == '\0');
    free(out);
    char *err = read_file(in_scratch("err.txt"), NULL);
    assert_non_null(strstr(err, "training on the CPU"));
    free(err);

    NdArray *first = read_grid(in_scratch("gan_1.png"));
    NdArray *second = read_grid(in_scratch("gan_2.png"));
    NdArray *lo = nd_min(first, ND_ALL_AXES, false);
    NdArray *hi = nd_max(first, ND_ALL_AXES, false);
    assert_true(nd_item(lo) < nd_item(hi));
    int64_t changed = 0;
    for (int64_t i = 0; i < first->size; i++)
        changed += ND_DATA(first, uint8_t)[i] != ND_DATA(second, uint8_t)[i];
    assert_true(changed > first->size / 10);
    nd_release(hi);
    nd_release(lo);
    nd_release(second);
    nd_release(first);
    assert_int_equal(leftovers(), 0);
}

/* ------------------------------------------------------------ vae */

/* Two epochs on 64 tiny digits in batches of 16, seeded with 0: the
 * mean losses printed every 2nd batch are Python's (examples/vae.py
 * after np.random.seed(0), with max_epoch 2 and interval 2, on the same
 * files: 551.7415331619, ... printed to ten places; scipy's norm.ppf,
 * which only the pictures use, replaced by the standard library's
 * NormalDist().inv_cdf), which the program prints to four. Each epoch
 * draws the latent space, 15 x 15 digits of 28 x 28. */
static void test_vae_trains_as_python(void **state)
{
    (void)state;
    static const double python[4] = {551.7415331619, 516.1021289625,
                                     451.0398065284, 461.4668391806};
    char problem[256];
    assert_true(mnist_tiny_write(scratch, 64, 10, problem, sizeof problem));
    int status = run_example("vae", "DEZERO_SEED=0 DEZERO_EPOCHS=2 "
                             "DEZERO_INTERVAL=2", false);
    if (status != 0)
        show_stderr();
    assert_int_equal(status, 0);
    char *out = read_file(in_scratch("out.txt"), NULL);
    static const char *const epochs[] = {"0.50", "1.00", "1.50", "2.00"};
    const char *at = out;
    for (int i = 0; i < 4; i++) {
        char epoch[8];
        double loss;
        assert_int_equal(sscanf(at, "epoch: %7[0-9.], loss: %lf\n", epoch,
                                &loss), 2);
        assert_string_equal(epoch, epochs[i]);
        assert_true(fabs(loss - python[i]) <= 5.1e-5);
        at = strchr(at, '\n') + 1;
    }
    assert_true(*at == '\0');
    free(out);
    for (int epoch = 1; epoch <= 2; epoch++) {
        char name[16];
        snprintf(name, sizeof name, "vae_%d.png", epoch);
        NdArray *rgb = nd_image_read(in_scratch(name));
        assert_int_equal(rgb->ndim, 3);
        assert_int_equal(rgb->shape[0], 15 * 28);
        assert_int_equal(rgb->shape[1], 15 * 28);
        nd_release(rgb);
    }
    assert_int_equal(leftovers(), 0);
}

/* ------------------------------------------------------------ VGG16 */

/* The test's picture, the suite's 6 x 5 zebra (step 58's golden run),
 * as an absolute path, in path. */
static const char *zebra(char path[PATH_MAX])
{
    assert_non_null(realpath("tests/golden/files/step58_zebra.jpg", path));
    return path;
}

/* Grad-CAM on random weights, the zebra given to VGG16 at 64 x 64: a
 * class among ImageNet's 1000, a heatmap of conv5_3's 4 x 4 maps in
 * [0, 1] that reaches 1 (scaled by its maximum), and grad_cam.png, the
 * picture's 6 x 5 pixels, each the picture's or brighter (the jet
 * colours are added to it), some brighter. */
static void test_grad_cam_on_random_weights(void **state)
{
    (void)state;
    char path[PATH_MAX], env[PATH_MAX + 128];
    snprintf(env, sizeof env, "DEZERO_RANDOM_WEIGHTS=1 DEZERO_SEED=0 "
             "DEZERO_SIZE=64 DEZERO_IMAGE='%s'", zebra(path));
    int status = run_example("grad_cam", env, false);
    if (status != 0)
        show_stderr();
    assert_int_equal(status, 0);
    char *out = read_file(in_scratch("out.txt"), NULL);
    long long predict_id, h, w;
    int used;
    assert_int_equal(sscanf(out, "class: %lld\nheatmap (%lld, %lld):\n%n",
                            &predict_id, &h, &w, &used), 3);
    assert_true(predict_id >= 0 && predict_id < 1000);
    assert_int_equal(h, 4);
    assert_int_equal(w, 4);
    const char *at = out + used;
    double top = 0;
    for (int i = 0; i < 16; i++) {
        double v;
        int n;
        assert_int_equal(sscanf(at, "%lf%n", &v, &n), 1);
        assert_true(isfinite(v) && v >= 0 && v <= 1);
        top = v > top ? v : top;
        at += n;
    }
    assert_true(strspn(at, " \n") == strlen(at));   /* 16 values, no more */
    assert_true(top == 1);
    free(out);
    NdArray *picture = nd_image_read(path);          // (5, 6, 3)
    NdArray *drawn = nd_image_read(in_scratch("grad_cam.png"));
    assert_int_equal(drawn->ndim, 3);
    assert_int_equal(drawn->shape[0], 5);
    assert_int_equal(drawn->shape[1], 6);
    int brighter = 0;
    for (int64_t i = 0; i < 5 * 6 * 3; i++) {
        uint8_t p = ND_DATA(picture, uint8_t)[i];
        uint8_t d = ND_DATA(drawn, uint8_t)[i];
        assert_true(d >= p);
        brighter += d > p;
    }
    assert_true(brighter > 0);
    nd_release(drawn);
    nd_release(picture);
    assert_int_equal(leftovers(), 0);
}

/* Without the weights in the cache the program says what to fetch and
 * stops with 1, before any work; the real weights refuse pictures that
 * are not 224 x 224, and a size that is not a multiple of 32 is
 * refused. */
static void test_vgg_examples_want_the_weights(void **state)
{
    (void)state;
    char path[PATH_MAX], env[3 * PATH_MAX + 128];
    static const char *const programs_[] = {"grad_cam", "style_transfer"};
    for (int i = 0; i < 2; i++) {
        snprintf(env, sizeof env, "DEZERO_IMAGE='%s' DEZERO_CONTENT_IMAGE="
                 "'%s' DEZERO_STYLE_IMAGE='%s'", zebra(path), path, path);
        assert_int_equal(run_example(programs_[i], env, false), 1);
        char *err = read_file(in_scratch("err.txt"), NULL);
        assert_non_null(strstr(err, "vgg16.npz"));
        free(err);
        snprintf(env, sizeof env, "DEZERO_IMAGE='%s' DEZERO_CONTENT_IMAGE="
                 "'%s' DEZERO_STYLE_IMAGE='%s' DEZERO_SIZE=64", path, path,
                 path);
        assert_int_equal(run_example(programs_[i], env, false), 1);
        err = read_file(in_scratch("err.txt"), NULL);
        assert_non_null(strstr(err, "want 224 x 224 pictures"));
        free(err);
        assert_int_equal(run_example(programs_[i], "DEZERO_SIZE=48 "
                                     "DEZERO_RANDOM_WEIGHTS=1", false), 1);
        err = read_file(in_scratch("err.txt"), NULL);
        assert_non_null(strstr(err, "DEZERO_SIZE=48: want a multiple of 32"));
        free(err);
    }
}

/* Style transfer on random weights at 32 x 32, the zebra in the style
 * of a checkerboard the test draws: four iterations, each loss finite,
 * positive and below the one before, and style_transfer.png at the
 * zebra's 6 x 5 pixels. */
static void test_style_transfer_loss_falls(void **state)
{
    (void)state;
    NdArray *board = nd_empty(ND_UINT8, ND_SHAPE(32, 32, 3));
    for (int64_t i = 0; i < 32 * 32 * 3; i++)
        ND_DATA(board, uint8_t)[i] = (uint8_t)(((i / 3 % 32 / 4 + i / 96 / 4)
                                                % 2) ? 230 - i % 3 * 90
                                                     : 20 + i % 3 * 60);
    assert_true(write_rgb_png(board, in_scratch("style.png")));
    nd_release(board);
    char path[PATH_MAX], env[2 * PATH_MAX + 128];
    snprintf(env, sizeof env, "DEZERO_RANDOM_WEIGHTS=1 DEZERO_SEED=0 "
             "DEZERO_SIZE=32 DEZERO_ITERATIONS=4 DEZERO_CONTENT_IMAGE='%s' "
             "DEZERO_STYLE_IMAGE='%s'", zebra(path), in_scratch("style.png"));
    int status = run_example("style_transfer", env, false);
    if (status != 0)
        show_stderr();
    assert_int_equal(status, 0);
    char *out = read_file(in_scratch("out.txt"), NULL);
    const char *at = out;
    double before = INFINITY;
    for (int i = 0; i < 4; i++) {
        long long number;
        double loss;
        assert_int_equal(sscanf(at, "%lld loss: %lf\n", &number, &loss), 2);
        assert_int_equal(number, i);
        assert_true(isfinite(loss) && loss > 0);
        assert_true(loss < before);
        before = loss;
        at = strchr(at, '\n') + 1;
    }
    assert_true(*at == '\0');
    free(out);
    char *err = read_file(in_scratch("err.txt"), NULL);
    assert_non_null(strstr(err, "running on the CPU"));
    free(err);
    NdArray *drawn = nd_image_read(in_scratch("style_transfer.png"));
    assert_int_equal(drawn->ndim, 3);
    assert_int_equal(drawn->shape[0], 5);
    assert_int_equal(drawn->shape[1], 6);
    nd_release(drawn);
    assert_int_equal(leftovers(), 0);
}

/* ------------------------------------------------------------ leaks */

/* Each program once under valgrind, on the smallest settings: nothing
 * leaks, no memory is misused (the SANITIZE=1 suite has LeakSanitizer
 * and AddressSanitizer watch every run above instead). All but gan and
 * vae: their convolutions take valgrind a minute even for two batches
 * of four digits, so their leaks are LeakSanitizer's alone, in the
 * SANITIZE=1 suite, which CI runs as well; and grad_cam and
 * style_transfer likewise, whose VGG16 would take valgrind longer
 * still. */
static void test_examples_leak_free_under_valgrind(void **state)
{
    (void)state;
#ifdef EXAMPLES_SANITIZED
    skip();                     /* valgrind cannot run ASan's builds */
#endif
    if (!program_installed("valgrind"))
        fail_msg("valgrind is not installed (mk/deps.sh installs it)");
    char problem[256];
    assert_true(mnist_tiny_write(scratch, 100, 100, problem,
                                 sizeof problem));
    static const char *const runs[][2] = {
        {"tanh", "DEZERO_ITERS=2"},
        {"spiral", "DEZERO_EPOCHS=1 DEZERO_GRID_STEP=0.05"},
        {"mnist", "DEZERO_EPOCHS=1 DEZERO_HIDDEN_SIZE=20"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        int status = run_example(runs[i][0], runs[i][1], true);
        if (status != 0) {
            print_message("%s under valgrind:\n", runs[i][0]);
            show_stderr();
        }
        assert_int_equal(status, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tanh_draws_the_fourth_derivative),
        cmocka_unit_test(test_tanh_iters_from_the_environment),
        cmocka_unit_test(test_spiral_trains_as_python),
        cmocka_unit_test(test_mnist_learns_the_tiny_set),
        cmocka_unit_test(test_gan_trains_as_python),
        cmocka_unit_test(test_vae_trains_as_python),
        cmocka_unit_test(test_grad_cam_on_random_weights),
        cmocka_unit_test(test_vgg_examples_want_the_weights),
        cmocka_unit_test(test_style_transfer_loss_falls),
        cmocka_unit_test(test_examples_leak_free_under_valgrind),
    };
    return cmocka_run_group_tests(tests, setup, remove_scratch);
}
