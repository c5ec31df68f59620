/* golden_test.c - runs each step's program and compares what it prints,
 * number by number, with the Python original's output in tests/golden/.
 *
 *   golden_test VARIANT NN [NN ...]
 *
 * Numbers must agree within the step's relative tolerance (listed in
 * tests/golden/steps.tsv with the expected exit status); the text between
 * numbers must match, with runs of spaces counted as one. Each program
 * runs in a scratch folder of its own, which is also its DeZero cache
 * (DEZERO_CACHE_DIR), so that the files it writes (step 26's picture,
 * for one) land neither in the source tree nor in ~/.dezero. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nd_test.h"

static const char *variant;

typedef struct Expectation {
    double rtol;
    int exit_status;
} Expectation;

static char *read_stream(FILE *f)
{
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    size_t n;
    while (text && (n = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap)
            text = realloc(text, cap *= 2);
    }
    if (!text)
        fail_msg("out of memory reading output");
    text[len] = '\0';
    return text;
}

static Expectation expectation_for(int step)
{
    Expectation e = {1e-12, 0};
    FILE *f = fopen("tests/golden/steps.tsv", "r");
    if (!f)
        fail_msg("cannot open tests/golden/steps.tsv");
    char line[256];
    while (fgets(line, sizeof line, f)) {
        int n, status;
        double rtol;
        if (line[0] != '#' &&
            sscanf(line, "step%d %lf %d", &n, &rtol, &status) == 3 &&
            n == step) {
            e.rtol = rtol;
            e.exit_status = status;
        }
    }
    fclose(f);
    return e;
}

/* Length of the number starting at s (as strtod reads it, plus nan and
 * inf), or 0 when s does not start a number token. */
static size_t number_length(const char *s, const char *start)
{
    if (s > start && (isalnum((unsigned char)s[-1]) || s[-1] == '_'))
        return 0;                   /* inside a word such as "step1" */
    if (!(isdigit((unsigned char)*s) || *s == '-' || *s == '.' ||
          *s == 'n' || *s == 'i'))
        return 0;
    char *end;
    strtod(s, &end);
    size_t len = (size_t)(end - s);
    if (len == 0 || isalpha((unsigned char)*end) || *end == '_')
        return 0;
    if (*s == 'n' || *s == 'i')
        return len;                 /* "nan", "inf" */
    return strpbrk(s, "0123456789") && strpbrk(s, "0123456789") < end ?
           len : 0;
}

/* Compares got with want; on a mismatch writes a description. */
static bool outputs_match(const char *got, const char *want, double rtol,
                          char *why, size_t why_size)
{
    const char *g = got, *w = want;
    int line = 1;
    while (*g || *w) {
        size_t gl = number_length(g, got), wl = number_length(w, want);
        if (gl && wl) {
            double a = strtod(g, NULL), b = strtod(w, NULL);
            bool same = a == b || (isnan(a) && isnan(b)) ||
                        fabs(a - b) <= rtol * fmax(fabs(a), fabs(b));
            if (!same) {
                snprintf(why, why_size, "line %d: got %.*s, want %.*s "
                         "(rtol %g)", line, (int)gl, g, (int)wl, w, rtol);
                return false;
            }
            g += gl;
            w += wl;
        } else if (*g == ' ' && *w == ' ') {
            while (*g == ' ') g++;
            while (*w == ' ') w++;
        } else if (*g && *g == *w) {
            line += *g == '\n';
            g++;
            w++;
        } else {
            snprintf(why, why_size, "line %d: got \"%.40s\", want \"%.40s\"",
                     line, g, w);
            return false;
        }
    }
    return true;
}

static void check_step(void **state)
{
    int step = (int)(intptr_t)*state;
    char program[256], golden[256], command[PATH_MAX * 3 + 100];
    if (strcmp(variant, "default") == 0)
        snprintf(program, sizeof program, "steps/step%02d/step%02d", step,
                 step);
    else
        snprintf(program, sizeof program, "steps/step%02d/build/%s/step%02d",
                 step, variant, step);
    snprintf(golden, sizeof golden, "tests/golden/step%02d.txt", step);
    char program_path[PATH_MAX], scratch[] = "/tmp/golden_test.XXXXXX";
    if (!realpath(program, program_path))
        fail_msg("cannot find %s: %s", program, strerror(errno));
    if (!mkdtemp(scratch))
        fail_msg("cannot make a scratch folder: %s", strerror(errno));
    /* Steps before 17 leave their graphs to the OS (DESIGN.md, 4). */
    snprintf(command, sizeof command, "cd '%s' && DEZERO_CACHE_DIR='%s' "
             "%s'%s' 2>&1", scratch, scratch,
             step < 17 ? "ASAN_OPTIONS=detect_leaks=0 " : "", program_path);

    FILE *want_file = fopen(golden, "r");
    if (!want_file)
        fail_msg("cannot open %s", golden);
    char *want = read_stream(want_file);
    fclose(want_file);

    FILE *pipe = popen(command, "r");
    if (!pipe)
        fail_msg("cannot run %s", program);
    char *got = read_stream(pipe);
    int status = pclose(pipe);
    int exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    snprintf(command, sizeof command, "rm -rf '%s'", scratch);
    if (system(command) != 0)
        fail_msg("cannot remove the scratch folder %s", scratch);

    Expectation e = expectation_for(step);
    char why[512];
    if (!outputs_match(got, want, e.rtol, why, sizeof why)) {
        printf("%s printed:\n%s", program, got);
        fail_msg("step%02d differs from %s: %s", step, golden, why);
    }
    if (exit_status != e.exit_status)
        fail_msg("step%02d exited with %d, expected %d", step, exit_status,
                 e.exit_status);
    free(got);
    free(want);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: golden_test VARIANT NN [NN ...]\n");
        return 2;
    }
    variant = argv[1];
    int n = argc - 2;
    struct CMUnitTest *tests = calloc((size_t)n, sizeof *tests);
    char (*names)[32] = calloc((size_t)n, sizeof *names);
    for (int i = 0; i < n; i++) {
        int step = atoi(argv[i + 2]);
        snprintf(names[i], sizeof names[i], "step%02d output", step);
        tests[i].name = names[i];
        tests[i].test_func = check_step;
        tests[i].initial_state = (void *)(intptr_t)step;
    }
    int failures = _cmocka_run_group_tests("golden", tests, (size_t)n,
                                           NULL, NULL);
    free(tests);
    free(names);
    return failures;
}
