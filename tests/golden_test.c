/* golden_test.c - runs each step's program and compares what it prints
 * with the Python original's output in tests/golden/stepNN.txt.
 *
 *   golden_test VARIANT NN [NN ...]
 *
 * The output must equal the golden file character for character, so a
 * number must be printed in the same form (21 is not 21.0) with the same
 * digits, unless the step's row in tests/golden/steps.tsv names a
 * relative tolerance and the reason it needs one: then numbers agree
 * within it, in the same form (an integer stays an integer), the text
 * between them equal, with a run of spaces counted as one. The row also
 * gives the expected exit status (tests/golden/README.md).
 *
 * Each program runs in a scratch folder of its own, which is also its
 * DeZero cache (DEZERO_CACHE_DIR), so that the files it writes land
 * neither in the source tree nor in ~/.dezero. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nd_test.h"

static const char *variant;

typedef struct Expectation {
    bool exact;             /* character for character */
    double rtol;            /* otherwise: numbers within this */
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

/* The row of steps.tsv for step: "stepNN<TAB>exact<TAB>status", or
 * "stepNN<TAB>rtol<TAB>status<TAB>reason". A row with a tolerance and
 * no reason, or none for the step, fails the test with the fix. */
static Expectation expectation_for(int step)
{
    const char *table = "tests/golden/steps.tsv";
    FILE *f = fopen(table, "r");
    if (!f)
        fail_msg("cannot open %s", table);
    char line[1024];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        int n;
        if (line[0] == '#' || sscanf(line, "step%d", &n) != 1 || n != step)
            continue;
        fclose(f);
        line[strcspn(line, "\n")] = '\0';
        char *fields[4] = {0};
        int nf = 0;
        for (char *p = line; p && nf < 4; nf++) {
            fields[nf] = p;
            p = strchr(p, '\t');
            if (p)
                *p++ = '\0';
        }
        Expectation e = {true, 0.0, 0};
        char *end;
        if (nf < 3)
            fail_msg("%s:%d: step%02d: want stepNN<TAB>exact<TAB>exit "
                     "status", table, lineno, step);
        e.exit_status = (int)strtol(fields[2], &end, 10);
        if (*end || end == fields[2])
            fail_msg("%s:%d: step%02d: the exit status \"%s\" is not a "
                     "number", table, lineno, step, fields[2]);
        if (strcmp(fields[1], "exact") == 0)
            return e;
        e.exact = false;
        e.rtol = strtod(fields[1], &end);
        if (*end || end == fields[1] || !(e.rtol > 0))
            fail_msg("%s:%d: step%02d: the comparison \"%s\" is neither "
                     "\"exact\" nor a relative tolerance", table, lineno,
                     step, fields[1]);
        if (nf < 4 || strlen(fields[3]) < 10)
            fail_msg("%s:%d: step%02d compares numbers within rtol %s but "
                     "gives no reason in a 4th column: write \"exact\" in "
                     "the 2nd column if its output agrees character for "
                     "character, or say why it cannot (float32, BLAS "
                     "summation order, ...)", table, lineno, step,
                     fields[1]);
        return e;
    }
    fclose(f);
    fail_msg("%s has no row for step%02d (see tests/golden/README.md)",
             table, step);
    return (Expectation){true, 0.0, 0};
}

/* Prints line number `line` of text (1-based), at most 160 characters,
 * after a label. */
static void print_line(const char *label, const char *text, int line)
{
    const char *p = text;
    for (int l = 1; l < line && p; l++) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    if (!p || (!*p && line > 1 && p[-1] == '\n')) {
        printf("  %s (no line %d: the text ends before it)\n", label, line);
        return;
    }
    int len = (int)strcspn(p, "\n");
    printf("  %s %.*s%s\n", label, len > 160 ? 160 : len, p,
           len > 160 ? "..." : "");
    fflush(stdout);
}

/* Character for character: on a difference, writes where it is and
 * prints the two lines. */
static bool texts_equal(const char *got, const char *want, char *why,
                        size_t why_size)
{
    int line = 1, column = 1;
    const char *g = got, *w = want;
    while (*g && *g == *w) {
        if (*g == '\n')
            line++, column = 0;
        g++, w++, column++;
    }
    if (*g == *w)
        return true;
    snprintf(why, why_size, "line %d, column %d: got %s, want %s", line,
             column, *g ? "more text" : "the end of the output",
             *w ? "more text" : "the end");
    if (*g && *w) {
        /* the words that differ, from where the word starts */
        const char *delimiters = " \n,()[]";
        while (g > got && !strchr(delimiters, g[-1]))
            g--, w--, column--;
        int gl = (int)strcspn(g, delimiters);
        int wl = (int)strcspn(w, delimiters);
        snprintf(why, why_size, "line %d, column %d: got \"%.*s\", want "
                 "\"%.*s\"", line, column, gl ? gl : 1, g, wl ? wl : 1, w);
    }
    print_line("got: ", got, line);
    print_line("want:", want, line);
    return false;
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

/* Whether the number token s (len characters) is written as an integer:
 * NumPy prints 21 for an int64 and 21.0 or 2.1e+01 for a float. */
static bool integer_form(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (strchr(".eEni", s[i]))
            return false;
    return true;
}

/* Numbers within rtol, in the same form; the rest equal, a run of
 * spaces counted as one. */
static bool outputs_close(const char *got, const char *want, double rtol,
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
            if (integer_form(g, gl) != integer_form(w, wl)) {
                snprintf(why, why_size, "line %d: got %.*s, want %.*s (an "
                         "integer and a float)", line, (int)gl, g, (int)wl,
                         w);
                same = false;
            } else if (!same) {
                snprintf(why, why_size, "line %d: got %.*s, want %.*s "
                         "(beyond rtol %g)", line, (int)gl, g, (int)wl, w,
                         rtol);
            }
            if (!same) {
                print_line("got: ", got, line);
                print_line("want:", want, line);
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
            print_line("got: ", got, line);
            print_line("want:", want, line);
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
    Expectation e = expectation_for(step);
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

    char why[512];
    bool same = e.exact ? texts_equal(got, want, why, sizeof why)
                        : outputs_close(got, want, e.rtol, why, sizeof why);
    if (!same)
        fail_msg("step%02d's output differs from %s at %s", step, golden,
                 why);
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
