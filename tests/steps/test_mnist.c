// FIRST_STEP: 51
/* test_mnist.c - step 51: MNIST, ReLU, and SGD on MNIST-shaped data.
 * The dataset reads the suite's tiny MNIST (mnist_tiny.h) from a
 * scratch cache: images (N, 1, 28, 28) and labels (N,) uint8, the
 * training files or the test files, gzip or plain; an item through
 * the default transform is (784,) float32, the pixels divided by 255 in
 * float32. A file in the cache is taken without any connection; a
 * missing one is asked of the mirrors, DeZero's first, and when none
 * gives it the error names the file and says where to put it; a corrupt
 * one stops with an error naming it. Every connection goes to a proxy
 * of the test's own on 127.0.0.1, which records it and refuses it, so
 * that nothing leaves the machine. Then ReLU against numerical
 * differentiation, and a few epochs of step 51's SGD on the tiny set,
 * with the loss falling. */
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grad_check.h"
#include "capture_stderr.h"
#include "mnist_tiny.h"
#include "scratch.h"

/* ------------------------------------------------------------ proxy */

static char cache[128], proxy_log[128];
static pid_t proxy = -1;

/* Records the request line of each connection (GET http://... or
 * CONNECT host:443) in proxy_log, and refuses it with 403. */
static void serve_proxy(int listener)
{
    for (;;) {
        int client = accept(listener, NULL, NULL);
        if (client < 0)
            continue;
        char request[2048];
        size_t n = 0;
        ssize_t got;
        while (n < sizeof request - 1 &&
               (got = read(client, request + n, sizeof request - 1 - n)) >
                   0) {
            n += (size_t)got;
            request[n] = '\0';
            if (strstr(request, "\r\n\r\n"))
                break;
        }
        request[n] = '\0';
        request[strcspn(request, "\r\n")] = '\0';
        FILE *log = fopen(proxy_log, "a");
        if (log) {
            fprintf(log, "%s\n", request);
            fclose(log);
        }
        const char *answer = "HTTP/1.1 403 Forbidden\r\n"
                             "Content-Length: 0\r\nConnection: close\r\n\r\n";
        if (write(client, answer, strlen(answer)) < 0)
            _exit(1);
        close(client);
    }
}

/* Starts the proxy and points every proxy variable libcurl reads at
 * it. */
static int start_proxy(void)
{
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (listener < 0 || bind(listener, (struct sockaddr *)&a, sizeof a) ||
        listen(listener, 16) ||
        getsockname(listener, (struct sockaddr *)&a, &len))
        return -1;
    fflush(NULL);
    proxy = fork();
    if (proxy < 0)
        return -1;
    if (proxy == 0) {
        serve_proxy(listener);
        _exit(0);
    }
    close(listener);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(a.sin_port));
    const char *names[] = {"http_proxy", "HTTP_PROXY", "https_proxy",
                           "HTTPS_PROXY", "all_proxy", "ALL_PROXY"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        setenv(names[i], url, 1);
    unsetenv("no_proxy");
    unsetenv("NO_PROXY");
    return 0;
}

/* What the proxy was asked since the last call (static text), and a
 * fresh log. */
static const char *proxy_requests(void)
{
    static char text[4096];
    FILE *f = fopen(proxy_log, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    unlink(proxy_log);
    return text;
}

/* ------------------------------------------------------------ cache */

/* Writes the tiny MNIST into the cache, replacing what is there. */
static void write_tiny(void)
{
    char problem[512];
    if (!mnist_tiny_write(cache, MNIST_TINY_TRAIN, MNIST_TINY_TEST, problem,
                          sizeof problem))
        fail_msg("%s", problem);
}

static int set_up(void **state)
{
    if (make_scratch(state) != 0)
        return -1;
    snprintf(cache, sizeof cache, "%s/cache", scratch);
    snprintf(proxy_log, sizeof proxy_log, "%s/proxy.log", scratch);
    if (mkdir(cache, 0777) != 0)
        return -1;
    setenv("DEZERO_CACHE_DIR", cache, 1);
    char problem[512];
    if (!mnist_tiny_write(cache, MNIST_TINY_TRAIN, MNIST_TINY_TEST, problem,
                          sizeof problem))
        return -1;
    return start_proxy();
}

static int tear_down(void **state)
{
    (void)state;
    if (proxy > 0) {
        kill(proxy, SIGKILL);
        waitpid(proxy, NULL, 0);
    }
    remove_folder(scratch);
    unsetenv("DEZERO_CACHE_DIR");
    return 0;
}

/* The names in the cache, sorted, space-separated (static text). */
static const char *cache_listing(void)
{
    static char text[1024];
    struct dirent **entries;
    int n = scandir(cache, &entries, NULL, alphasort);
    text[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t len = strlen(text);
        if (entries[i]->d_name[0] != '.')
            snprintf(text + len, sizeof text - len, "%s%s", len ? " " : "",
                     entries[i]->d_name);
        free(entries[i]);
    }
    free(n >= 0 ? entries : NULL);
    return text;
}

/* ------------------------------------------------------------ dataset */

static void expect_shape(const NdArray *a, NdDtype dtype, int ndim,
                         const int64_t *shape)
{
    assert_int_equal(a->dtype, dtype);
    assert_int_equal(a->ndim, ndim);
    for (int d = 0; d < ndim; d++)
        assert_int_equal(a->shape[d], shape[d]);
}

/* The training files give (1000, 1, 28, 28) and (1000,), the test
 * files (stored plain) (200, 1, 28, 28) and (200,), all uint8, labelled
 * 0, 1, ..., 9, 0, ... as written; reading them asks the proxy nothing
 * and prints nothing. */
static void test_train_and_test_sets(void **state)
{
    (void)state;
    proxy_requests();
    capture_stderr(scratch);
    Dataset *train = mnist(true);
    Dataset *test = mnist(false);
    const char *printed = captured();
    assert_string_equal(printed, "");
    assert_string_equal(proxy_requests(), "");
    expect_shape(train->data, ND_UINT8, ND_SHAPE(1000, 1, 28, 28));
    expect_shape(train->label, ND_UINT8, ND_SHAPE(1000));
    expect_shape(test->data, ND_UINT8, ND_SHAPE(200, 1, 28, 28));
    expect_shape(test->label, ND_UINT8, ND_SHAPE(200));
    assert_int_equal(dataset_len(train), 1000);
    assert_int_equal(dataset_len(test), 200);
    for (int i = 0; i < 200; i++) {
        assert_int_equal(ND_DATA(train->label, uint8_t)[i], i % 10);
        assert_int_equal(ND_DATA(test->label, uint8_t)[i], i % 10);
    }
    /* two sets, not one read twice */
    assert_memory_not_equal(train->data->data, test->data->data, 784);
    assert_string_equal(train->cls->name, "MNIST");
}

/* An item through the default transform: (784,) float32, each pixel
 * divided by 255 in float32, as NumPy's uint8 -> float32 -> / 255.; the
 * label as it is, uint8. A transform given replaces the default. */
static void test_item_transform(void **state)
{
    (void)state;
    Dataset *train = mnist(true);
    NdArray *x, *t;
    dataset_item(train, 7, &x, &t);
    expect_shape(x, ND_FLOAT32, ND_SHAPE(784));
    expect_shape(t, ND_UINT8, ND_SCALAR_SHAPE);
    assert_int_equal(ND_DATA(t, uint8_t)[0], 7);
    const uint8_t *pixels = ND_DATA(train->data, uint8_t) + 7 * 784;
    int inked = 0;
    for (int i = 0; i < 784; i++) {
        float want = (float)pixels[i] / 255.0f;
        if (ND_DATA(x, float)[i] != want)
            fail_msg("pixel %d: %.9g, want %.9g", i, ND_DATA(x, float)[i],
                     want);
        inked += pixels[i] > 128;
    }
    assert_true(inked > 50);                    /* a digit, not noise */
    nd_release(t);
    nd_release(x);

    Dataset *raw = mnist(true, .transform = T_to_float());
    dataset_item(raw, 7, &x, &t);
    expect_shape(x, ND_FLOAT32, ND_SHAPE(1, 28, 28));
    assert_true(ND_DATA(x, float)[300] == (float)pixels[300]);
    nd_release(t);
    nd_release(x);
}

/* The batches of step 51: (100, 784) float32 and (100,) uint8. */
static void test_batches(void **state)
{
    (void)state;
    DataLoader *loader = dataloader(mnist(false), 100, false);
    NdArray *x, *t;
    int batches = 0;
    while (dataloader_next(loader, &x, &t)) {
        expect_shape(x, ND_FLOAT32, ND_SHAPE(100, 784));
        expect_shape(t, ND_UINT8, ND_SHAPE(100));
        batches++;
        nd_release(t);
        nd_release(x);
    }
    assert_int_equal(batches, 2);
}

/* A file missing from the cache is asked of the mirrors in order,
 * DeZero's first; when none gives it, the error names it and the
 * folder to put MNIST in, and the cache holds no part of a download. */
static void test_missing_file(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/%s", cache, mnist_tiny_names[2]);
    assert_int_equal(unlink(path), 0);          /* t10k-images-idx3-ubyte */
    proxy_requests();
    capture_stderr(scratch);
    EXPECT_ND_ERROR(mnist(false), "no mirror gave t10k-images-idx3-ubyte.gz");
    const char *printed = captured();
    EXPECT_TEXT_HAS(nd_test_message, cache);
    EXPECT_TEXT_HAS(nd_test_message, "Put the 4 MNIST files in");
    EXPECT_TEXT_HAS(printed, "Downloading t10k-images-idx3-ubyte.gz (MNIST)");
    EXPECT_TEXT_HAS(printed, "from https://ossci-datasets.s3.amazonaws.com/"
                             "mnist/:");
    assert_string_equal(proxy_requests(),
        "CONNECT ossci-datasets.s3.amazonaws.com:443 HTTP/1.1\n"
        "CONNECT storage.googleapis.com:443 HTTP/1.1\n"
        "GET http://yann.lecun.com/exdb/mnist/t10k-images-idx3-ubyte.gz "
        "HTTP/1.1\n");
    assert_string_equal(cache_listing(),
                        "t10k-labels-idx1-ubyte train-images-idx3-ubyte.gz "
                        "train-labels-idx1-ubyte.gz");
    write_tiny();
}

/* A corrupt file stops with an error that names it and says what is
 * wrong, and asks nothing of the network. */
static void test_corrupt_file(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/%s", cache, mnist_tiny_names[1]);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("not a gzip file, nor IDX", f);
    fclose(f);
    proxy_requests();
    EXPECT_ND_ERROR(mnist(true), "train-labels-idx1-ubyte.gz: ");
    EXPECT_TEXT_HAS(nd_test_message, cache);
    assert_string_equal(proxy_requests(), "");
    write_tiny();
}

/* mnist_tile puts image r * cols + c at row r, column c of the grid. */
static void test_tile(void **state)
{
    (void)state;
    Dataset *train = mnist(true);
    NdArray *img = mnist_tile(train, 2, 3);
    expect_shape(img, ND_UINT8, ND_SHAPE(56, 84));
    const uint8_t *pixels = ND_DATA(train->data, uint8_t);
    for (int y = 0; y < 56; y++)
        for (int x = 0; x < 84; x++) {
            int i = y / 28 * 3 + x / 28;
            assert_int_equal(ND_DATA(img, uint8_t)[y * 84 + x],
                             pixels[i * 784 + y % 28 * 28 + x % 28]);
        }
    nd_release(img);
    EXPECT_ND_ERROR(mnist_tile(mnist(false), 20, 20),
                    "mnist_tile: 20 x 20 images; the MNIST dataset has 200");
}

/* ------------------------------------------------------------ ReLU */

static Variable *relu1(Variable *xs[])
{
    return F_relu(xs[0]);
}

/* max(x, 0), float32 kept float32, and a gradient that passes where
 * x > 0 only (0 at 0, as Python's mask x > 0 gives). */
static void test_relu_values(void **state)
{
    (void)state;
    Variable *x = variable(nd_from_buffer(ND_FLOAT32, ND_SHAPE(5),
        (float[]){-2.0f, -0.5f, 0.0f, 0.5f, 2.0f}));
    Variable *y = F_relu(x);
    EXPECT_ARRAY(y->data, ND_FLOAT32, ND_SHAPE(5), 0, 0, 0, 0.5, 2);
    assert_string_equal(y->creator->cls->name, "ReLU");
    backward(y);
    EXPECT_ARRAY(grad_array(x), ND_FLOAT32, ND_SHAPE(5), 0, 0, 0, 1, 1);
}

/* Against central differences, away from the kink at 0. */
static void test_relu_gradient(void **state)
{
    (void)state;
    NdArray *x = ramp(ND_SHAPE(3, 4), -1.05, 0.2);
    check_gradients("relu", relu1, 1, (NdArray *[]){x}, 1e-7);
    nd_release(x);
}

/* ------------------------------------------------------------ training */

/* The mean loss of model over every item of set, without a graph. */
static double mean_loss(Model *model, Dataset *set)
{
    DataLoader *loader = dataloader(set, 100, false);
    double sum = 0;
    NdArray *x, *t;
    NO_GRAD {
        while (dataloader_next(loader, &x, &t)) {
            Pool *pool = pool_new();
            Variable *loss = F_softmax_cross_entropy(layer_call(model, x), t);
            sum += nd_item(loss->data) * (double)t->size;
            pool_drain(pool);
            nd_release(t);
            nd_release(x);
        }
    }
    return sum / (double)dataset_len(set);
}

/* Step 51's network and SGD on the tiny set: after each of three epochs
 * the loss on the training set and on the test set is lower than
 * before it; the logits and the loss are float32. */
static void test_sgd_loss_falls(void **state)
{
    (void)state;
    nd_random_seed(0);
    Dataset *train = mnist(true), *test = mnist(false);
    DataLoader *loader = dataloader(train, 100, true);
    Model *model = mlp(ND_SHAPE(1000, 10), NULL);
    Optimizer *optimizer = optimizer_setup(sgd(0.01), model);
    double last_train = INFINITY, last_test = INFINITY;
    for (int epoch = 0; epoch < 3; epoch++) {
        NdArray *x, *t;
        while (dataloader_next(loader, &x, &t)) {
            Pool *pool = pool_new();
            Variable *y = layer_call(model, x);
            Variable *loss = F_softmax_cross_entropy(y, t);
            assert_int_equal(y->data->dtype, ND_FLOAT32);
            assert_int_equal(loss->data->dtype, ND_FLOAT32);
            layer_cleargrads(model);
            backward(loss);
            optimizer_update(optimizer);
            pool_drain(pool);
            nd_release(t);
            nd_release(x);
        }
        double train_loss = mean_loss(model, train);
        double test_loss = mean_loss(model, test);
        if (!(train_loss < last_train) || !(test_loss < last_test))
            fail_msg("epoch %d: train loss %.6f after %.6f, test loss %.6f "
                     "after %.6f: not falling", epoch + 1, train_loss,
                     last_train, test_loss, last_test);
        last_train = train_loss;
        last_test = test_loss;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STEP_TEST(test_train_and_test_sets),
        STEP_TEST(test_item_transform),
        STEP_TEST(test_batches),
        STEP_TEST(test_missing_file),
        STEP_TEST(test_corrupt_file),
        STEP_TEST(test_tile),
        STEP_TEST(test_relu_values),
        STEP_TEST(test_relu_gradient),
        STEP_TEST(test_sgd_loss_falls),
    };
    return cmocka_run_group_tests(tests, set_up, tear_down);
}
