// FIRST_STEP: 61
/* test_distributed.c - step 61: data-parallel training with Open MPI.
 * On the suite's tiny MNIST (mnist_tiny.h), seeded (DEZERO_SEED=0),
 * `mpirun -np 2 --oversubscribe` prints the losses of the one-process
 * run and ends with the parameters of that run, to float32's rounding,
 * with the two ranks' parameters identical bit for bit. A batch cannot
 * be shared by more ranks than it has rows; a rank that dies makes the
 * whole run stop with a non-zero status (under a timeout, so that a
 * hang fails the test instead of the suite); a missing Open MPI is
 * named; and without mpirun the program needs no MPI at all.
 * Every run has `timeout` around it. The program is steps/step61/step61,
 * or build/asan/step61 in the sanitizer build, whose LeakSanitizer is
 * told what Open MPI leaks by design (tests/openmpi.supp). */
#include <sys/stat.h>

#include "step_under_test.h"
#include "distributed.h"
#include "mnist_tiny.h"
#include "npz.h"
#include "run_command.h"
#include "scratch.h"
#include "variant.h"

enum { EPOCHS = 2, MAX_LINES = 8 };

/* What every run is given: the tiny MNIST in the scratch folder and
 * nothing from the network, seed 0, the CPU, two epochs; Open MPI
 * allowed to run as root (CI does), its ranks talking through shared
 * memory alone (btl self,vader) and its control messages kept on the
 * loopback, so that nothing leaves the machine, and without vader's
 * single copy across processes (CMA, which needs ptrace rights that
 * containers often withhold); and LeakSanitizer's list of Open MPI's
 * own leaks, with the full stacks that list needs (the variables of
 * the sanitizers do nothing in the plain build). */
static char environment[2048];

static int setup(void **state)
{
    if (make_scratch(state))
        return -1;
    char problem[256];
    if (!mnist_tiny_write(scratch, MNIST_TINY_TRAIN, MNIST_TINY_TEST,
                          problem, sizeof problem)) {
        fprintf(stderr, "tiny MNIST: %s\n", problem);
        return -1;
    }
    char cwd[512];
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    snprintf(environment, sizeof environment,
             "DEZERO_CACHE_DIR=%s DEZERO_OFFLINE=1 DEZERO_SEED=0 "
             "DEZERO_EPOCHS=%d ND_GPU_LIBRARY=/nonexistent/libnd_cuda.so "
             "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
             "OMPI_MCA_btl=self,vader OMPI_MCA_oob_tcp_if_include=lo "
             "OMPI_MCA_btl_vader_single_copy_mechanism=none "
             "ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 "
             "LSAN_OPTIONS=suppressions=%s/tests/openmpi.supp",
             scratch, EPOCHS, cwd);
    return 0;
}

#define PROGRAM "steps/step61/" VARIANT_FOLDER "step61"
#define MPIRUN "mpirun --oversubscribe "

/* Runs `timeout 120 env <environment> <extra> <command>`, stdout and
 * stderr together into out; returns its exit status. A run that
 * timeout stopped fails the test: something hung. */
static int run(const char *extra, const char *command, char *out,
               size_t size)
{
    char line[8192];
    snprintf(line, sizeof line, "timeout 120 env %s %s %s 2>&1",
             environment, extra, command);
    int code = run_command(line, out, size);
    if (code == 124)
        fail_msg("%s hung: timeout stopped it after 120 s:\n%s", command,
                 out);
    return code;
}

/* The losses of the lines "epoch: N, loss: L, time: T[sec]", in order;
 * returns how many there are. */
static int losses(const char *out, double *loss)
{
    int n = 0;
    for (const char *p = strstr(out, "epoch: "); p && n < MAX_LINES;
         p = strstr(p + 1, "\nepoch: ")) {
        int epoch;
        if (*p == '\n')
            p++;
        if (sscanf(p, "epoch: %d, loss: %lf,", &epoch, &loss[n]) != 2 ||
            epoch != n + 1)
            fail_msg("not an epoch line of epoch %d: %.60s", n + 1, p);
        n++;
    }
    return n;
}

/* The largest |a - b| over the parameters of two saved models (same
 * keys, shapes and float32 dtype); 0 exactly when they are equal bit
 * for bit. */
static double largest_difference(const char *path_a, const char *path_b)
{
    NdNpz *a = nd_npz_open(path_a), *b = nd_npz_open(path_b);
    int count_a, count_b;
    const char *const *keys = nd_npz_keys(a, &count_a);
    nd_npz_keys(b, &count_b);
    assert_int_equal(count_a, 4);       // l0/W, l0/b, l1/W, l1/b
    assert_int_equal(count_b, count_a);
    double largest = 0;
    for (int k = 0; k < count_a; k++) {
        NdArray *x = nd_npz_get(a, keys[k]), *y = nd_npz_get(b, keys[k]);
        assert_int_equal(x->dtype, ND_FLOAT32);
        assert_int_equal(y->dtype, ND_FLOAT32);
        assert_int_equal(x->size, y->size);
        for (int64_t i = 0; i < x->size; i++) {
            double d = fabs((double)ND_DATA(x, float)[i] -
                            (double)ND_DATA(y, float)[i]);
            if (d > largest || isnan(d))
                largest = isnan(d) ? INFINITY : d;
        }
        nd_release(x);
        nd_release(y);
    }
    nd_npz_close(a);
    nd_npz_close(b);
    return largest;
}

/* One process and two print the same losses, the rounding of the sums
 * aside, and end with the same parameters; the two ranks exactly so.
 * The gradient of a batch is a float32 sum over its 100 rows: two
 * ranks sum 50 rows each and MPI adds the two sums, another order of
 * the same additions, so each update may differ in the last bits
 * (float32's epsilon is 1.2e-7), and the printed losses (4 decimals)
 * by at most one unit of the last digit, where a loss lies on the
 * edge of a rounding. Measured after two epochs: parameters of up to
 * 0.18 differed by at most 1.5e-8, so 1e-6 is the tolerance. Checked
 * by hand: with the share left at 1 (an update twice as large) or the
 * sum left out, the first epoch's loss is already 2.3358 or 2.3742
 * against 2.3484, and the test fails. */
static void test_two_ranks_train_as_one(void **state)
{
    (void)state;
    static char one[16384], two[16384];
    char extra[512];
    // Without mpirun the program never opens Open MPI.
    snprintf(extra, sizeof extra, "DEZERO_MPI_LIBRARY=/nonexistent/libmpi "
             "DEZERO_SAVE_WEIGHTS=%s/one", scratch);
    int status = run(extra, PROGRAM, one, sizeof one);
    if (status != 0)
        fail_msg("one process exited with %d:\n%s", status, one);
    snprintf(extra, sizeof extra, "DEZERO_SAVE_WEIGHTS=%s/two", scratch);
    status = run(extra, MPIRUN "-np 2 " PROGRAM, two, sizeof two);
    if (status != 0)
        fail_msg("mpirun -np 2 exited with %d:\n%s", status, two);

    double loss_one[MAX_LINES], loss_two[MAX_LINES];
    int n_one = losses(one, loss_one), n_two = losses(two, loss_two);
    if (n_one != EPOCHS || n_two != EPOCHS)
        fail_msg("want %d epoch lines from each (rank 0's alone); one "
                 "process printed:\n%s\nmpirun -np 2 printed:\n%s",
                 EPOCHS, one, two);
    for (int i = 0; i < EPOCHS; i++)
        if (fabs(loss_one[i] - loss_two[i]) > 1e-4 + 1e-12)
            fail_msg("epoch %d: loss %.4f with one process, %.4f with "
                     "two", i + 1, loss_one[i], loss_two[i]);
    if (!(loss_one[EPOCHS - 1] < loss_one[0]))
        fail_msg("the loss did not fall:\n%s", one);

    char a[300], b[300], c[300];
    snprintf(a, sizeof a, "%s/one-rank0.npz", scratch);
    snprintf(b, sizeof b, "%s/two-rank0.npz", scratch);
    snprintf(c, sizeof c, "%s/two-rank1.npz", scratch);
    double ranks = largest_difference(b, c);
    if (ranks != 0)
        fail_msg("the two ranks' parameters differ, by up to %g", ranks);
    double processes = largest_difference(a, b);
    if (processes > 1e-6)
        fail_msg("one process and two end with parameters %g apart "
                 "(at most 1e-6)", processes);
}

/* A batch of 100 rows shared by 3 ranks: 33, 33 and 34 rows, in order;
 * by 101 ranks: refused, saying how many it takes. */
static void test_shares_of_a_batch(void **state)
{
    (void)state;
    int64_t start, stop;
    const int64_t want[4] = {0, 33, 66, 100};
    for (int r = 0; r < 3; r++) {
        dist_share_of(r, 3, 100, &start, &stop);
        assert_int_equal(start, want[r]);
        assert_int_equal(stop, want[r + 1]);
    }
    dist_share_of(1, 100, 100, &start, &stop);
    assert_int_equal(start, 1);
    assert_int_equal(stop, 2);
    EXPECT_ND_ERROR(dist_share_of(0, 101, 100, &start, &stop),
                    "mpirun -np 101: a batch of 100 rows cannot be shared "
                    "by 101 ranks; run at most 100");
    // Without mpirun the program is rank 0 of 1, holding the batch.
    assert_int_equal(dist_rank(), 0);
    assert_int_equal(dist_size(), 1);
    dist_share(100, &start, &stop);
    assert_int_equal(start, 0);
    assert_int_equal(stop, 100);
}

/* Rank 1 finds no MNIST (an empty cache, and no network) and stops
 * with its error; rank 0, already waiting for rank 1's gradients, is
 * stopped by mpirun, and the run ends with a non-zero status. */
static void test_a_rank_that_dies_stops_the_run(void **state)
{
    (void)state;
    static char out[16384];
    char empty[300], command[1024];
    snprintf(empty, sizeof empty, "%s/empty", scratch);
    assert_int_equal(mkdir(empty, 0700), 0);
    snprintf(command, sizeof command,
             MPIRUN "-np 1 " PROGRAM " : -np 1 env DEZERO_CACHE_DIR=%s "
             PROGRAM, empty);
    int status = run("", command, out, sizeof out);
    if (status == 0)
        fail_msg("a rank died and mpirun exited with 0:\n%s", out);
    if (!strstr(out, "train-images-idx3-ubyte"))
        fail_msg("rank 1's error, naming the file it lacks, is not in "
                 "the output:\n%s", out);
    remove_folder(empty);
}

/* Under mpirun, an Open MPI that cannot be loaded is named, with what
 * to install, and the run stops with a non-zero status. */
static void test_missing_mpi_is_named(void **state)
{
    (void)state;
    static char out[16384];
    int status = run("DEZERO_MPI_LIBRARY=/nonexistent/libmpi.so.40",
                     MPIRUN "-np 1 " PROGRAM, out, sizeof out);
    if (status == 0)
        fail_msg("exited with 0 without its MPI library:\n%s", out);
    if (!strstr(out, "error: dist_init: started by mpirun, but Open MPI's "
                     "library cannot be loaded (/nonexistent/libmpi.so.40"))
        fail_msg("the message does not name the library:\n%s", out);
    if (!strstr(out, "sudo apt-get install openmpi-bin libopenmpi-dev"))
        fail_msg("the message does not say what to install:\n%s", out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_ranks_train_as_one),
        cmocka_unit_test(test_shares_of_a_batch),
        cmocka_unit_test(test_a_rank_that_dies_stops_the_run),
        cmocka_unit_test(test_missing_mpi_is_named),
    };
    return cmocka_run_group_tests(tests, setup, remove_scratch);
}
