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
 * neither in the source tree nor in ~/.dezero. Every file it writes
 * there must be covered by a row of tests/golden/files.tsv, which says
 * how the file is checked against what the Python original writes or
 * computes (a DOT text line for line, Graphviz's drawing of it, CSV
 * values from NumPy, ...); a file no row covers fails the test, and so
 * does a file a row names that the program did not write.
 *
 * A program that reads data (step 51's MNIST) finds it in its scratch
 * folder: tests/golden/inputs.tsv names what to put there first, such
 * as the suite's tiny MNIST (mnist_tiny.h). Those files need no row,
 * but must still be there, unchanged, when the program ends. Nothing is
 * downloaded: every program runs with DEZERO_OFFLINE=1, so that one
 * missing a file stops with the message that gives the file's URL and
 * the path to save it at; the scratch folder's path, which changes from
 * run to run, is replaced by "$DEZERO_CACHE_DIR" in what a program
 * prints before it is compared.
 *
 * A program whose second run is not its first (step 53 goes on from the
 * weights its last run saved) runs as often as tests/golden/runs.tsv
 * says, one run after the other in the same scratch folder; the golden
 * file holds what the runs print, one after the other, and every run
 * must exit with the expected status.
 *
 * A program whose Python original is unseeded (step 54's dropout) is
 * compared with Python's unseeded output by its form, and also run
 * once more with DEZERO_SEED=N when tests/golden/seeded.tsv says so:
 * that run must print exactly what the original prints after
 * np.random.seed(N).
 *
 * Every program runs with GPU support off, as Python made the outputs
 * on the CPU: ND_GPU_LIBRARY names a library that is not there
 * (GPU_OFF), so that step 52 trains on the CPU and says why in the same
 * words on every machine, with a GPU or without, with nvcc or without.
 * (The GPU runs are tests/steps/test_device.c's.) */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

#include "idx.h"
#include "mnist_tiny.h"
#include "npz.h"

/* The GPU library of every golden run: none (see above). */
#define GPU_OFF "/nonexistent/libnd_cuda.so"
#include "steps/dot_text.h"
#include "nd_test.h"

static const char *variant;

typedef struct Expectation {
    bool exact;             /* character for character */
    bool form;              /* or the same text, the numbers free (see
                             * outputs_form) */
    bool choice;            /* with form: each number one of those on
                             * Python's line */
    char falling[32];       /* with form: the numbers after "WORD: "
                             * that must fall, or "" */
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

/* A table of tests/golden/ (steps.tsv, files.tsv, ...), read a row of
 * one step at a time. */
typedef struct Table {
    const char *path;
    FILE *file;
    int lineno;                 /* of the row last read */
} Table;

/* Opens the table at path; fails the test when it cannot. */
static Table open_table(const char *path)
{
    Table t = {.path = path, .file = fopen(path, "r")};
    if (!t.file)
        fail_msg("cannot open %s", path);
    return t;
}

/* The next row of t for step, into line (size bytes): comment lines
 * and the rows of other steps are skipped. False at the end. */
static bool next_row(Table *t, int step, char *line, int size)
{
    int s;
    while (fgets(line, size, t->file)) {
        t->lineno++;
        if (line[0] != '#' && sscanf(line, "step%d", &s) == 1 && s == step)
            return true;
    }
    return false;
}

/* The row of steps.tsv for step: "stepNN<TAB>exact<TAB>status", or
 * "stepNN<TAB>rtol<TAB>status<TAB>reason", or "stepNN<TAB>form[:WORD]
 * <TAB>status<TAB>reason", or "stepNN<TAB>choice<TAB>status<TAB>
 * reason". A row with a tolerance, a form or a choice and no reason, or
 * none for the step, fails the test with the fix. */
static Expectation expectation_for(int step)
{
    Table t = open_table("tests/golden/steps.tsv");
    const char *table = t.path;
    char line[1024];
    if (next_row(&t, step, line, sizeof line)) {
        int lineno = t.lineno;
        fclose(t.file);
        line[strcspn(line, "\n")] = '\0';
        char *fields[4] = {0};
        int nf = 0;
        for (char *p = line; p && nf < 4; nf++) {
            fields[nf] = p;
            p = strchr(p, '\t');
            if (p)
                *p++ = '\0';
        }
        Expectation e = {.exact = true};
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
        if (strcmp(fields[1], "choice") == 0) {
            e.form = e.choice = true;
        } else if (strncmp(fields[1], "form", 4) == 0 &&
            (fields[1][4] == '\0' || fields[1][4] == ':')) {
            e.form = true;
            if (fields[1][4] == ':')
                snprintf(e.falling, sizeof e.falling, "%s", fields[1] + 5);
        } else {
            e.rtol = strtod(fields[1], &end);
            if (*end || end == fields[1] || !(e.rtol > 0))
                fail_msg("%s:%d: step%02d: the comparison \"%s\" is "
                         "neither \"exact\", a relative tolerance, "
                         "\"form\" nor \"choice\"", table, lineno, step,
                         fields[1]);
        }
        if ((nf < 4 || strlen(fields[3]) < 10) && e.form)
            fail_msg("%s:%d: step%02d compares only the form of its output "
                     "but gives no reason in a 4th column: say why its "
                     "numbers cannot be Python's (unseeded, other data, "
                     "...)", table, lineno, step);
        if (nf < 4 || strlen(fields[3]) < 10)
            fail_msg("%s:%d: step%02d compares numbers within rtol %s but "
                     "gives no reason in a 4th column: write \"exact\" in "
                     "the 2nd column if its output agrees character for "
                     "character, or say why it cannot (float32, BLAS "
                     "summation order, ...)", table, lineno, step,
                     fields[1]);
        return e;
    }
    fclose(t.file);
    fail_msg("%s has no row for step%02d (see tests/golden/README.md)",
             table, step);
    return (Expectation){.exact = true};
}

/* How many times step's program runs in its scratch folder: the number
 * its row of runs.tsv gives ("stepNN<TAB>2"), else once. */
static int runs_for(int step)
{
    Table t = open_table("tests/golden/runs.tsv");
    char line[256];
    int runs = 1;
    while (next_row(&t, step, line, sizeof line))
        if (sscanf(line, "step%*d\t%d", &runs) != 1 || runs < 1 ||
            runs > 9)
            fail_msg("%s:%d: want stepNN<TAB>runs, 1 to 9", t.path,
                     t.lineno);
    fclose(t.file);
    return runs;
}

/* Whether seeded.tsv has a row for step, "stepNN<TAB>SEED<TAB>GOLDEN":
 * then stores the seed's text in seed and the golden file's path in
 * golden. */
static bool seeded_run_for(int step, char seed[16], char golden[256])
{
    Table t = open_table("tests/golden/seeded.tsv");
    char line[512], name[200];
    bool found = next_row(&t, step, line, sizeof line);
    if (found && sscanf(line, "step%*d\t%15[0-9]\t%199[^\t\n]", seed,
                        name) != 2)
        fail_msg("%s:%d: want stepNN<TAB>seed<TAB>golden file", t.path,
                 t.lineno);
    if (found)
        snprintf(golden, 256, "tests/golden/%s", name);
    fclose(t.file);
    return found;
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

/* The number token s (len characters) with each digit written as 9:
 * two numbers of the same form ("1.8982" and "2.3012") give the same
 * text, into form (size bytes). */
static void number_form(const char *s, size_t len, char *form, size_t size)
{
    size_t n = len < size - 1 ? len : size - 1;
    for (size_t i = 0; i < n; i++)
        form[i] = isdigit((unsigned char)s[i]) ? '9' : s[i];
    form[n] = '\0';
}

/* Whether value is one of the numbers on the line of text (whole text
 * from its start) that starts at line. */
static bool on_line(double value, const char *line, const char *text)
{
    for (const char *p = line; *p && *p != '\n';) {
        size_t n = number_length(p, text);
        if (n && strtod(p, NULL) == value)
            return true;
        p += n ? n : 1;
    }
    return false;
}

/* What Python prints, in the form Python prints it, for a program
 * whose numbers cannot be Python's (unseeded, trained on other data):
 * the text equal character for character, an integer equal (the epoch
 * in "epoch: 3"), every other number of the same form (sign, digits
 * before and after the point, as "%.4f" writes them). With falling
 * (e.g. "loss"), each number that follows "falling: " must also be
 * smaller than the one on the last line that had the same text before
 * it, its numbers of the same form ("train loss: " and "test loss: "
 * each fall from epoch to epoch); each such series must have two
 * numbers or more. With choice, each number must also be one of the
 * numbers on the same line of want: Python's random choice among a few
 * values (dropout's 0 and 2), which another run makes otherwise. */
static bool outputs_form(const char *got, const char *want,
                         const char *falling, bool choice, char *why,
                         size_t why_size)
{
    enum { MAX_SERIES = 16 };
    struct {
        char key[128];          /* the text before, its digits as 9s */
        double last;
        int line, count;
    } series[MAX_SERIES];
    int nseries = 0;
    char label[64];
    snprintf(label, sizeof label, "%s: ", falling);
    const char *g = got, *w = want, *line_start = got, *want_line = want;
    int line = 1;
    while (*g || *w) {
        size_t gl = number_length(g, got), wl = number_length(w, want);
        if (gl && wl) {
            char gf[64], wf[64];
            number_form(g, gl, gf, sizeof gf);
            number_form(w, wl, wf, sizeof wf);
            bool integer = integer_form(w, wl);
            if (integer ? gl != wl || strncmp(g, w, gl) != 0
                        : strcmp(gf, wf) != 0) {
                snprintf(why, why_size, "line %d: got %.*s, want %s", line,
                         (int)gl, g, integer ? "the same integer" :
                         "a number of the same form");
                print_line("got: ", got, line);
                print_line("want:", want, line);
                return false;
            }
            if (choice && !integer &&
                !on_line(strtod(g, NULL), want_line, want)) {
                snprintf(why, why_size, "line %d: got %.*s, want one of "
                         "the numbers on Python's line", line, (int)gl, g);
                print_line("got: ", got, line);
                print_line("want:", want, line);
                return false;
            }
            size_t before = (size_t)(g - line_start);
            size_t ll = strlen(label);
            if (*falling && !integer && before >= ll &&
                strncmp(g - ll, label, ll) == 0 && before < 128) {
                double value = strtod(g, NULL);
                char key[128];
                number_form(line_start, before, key, sizeof key);
                int k = 0;
                while (k < nseries && strcmp(series[k].key, key) != 0)
                    k++;
                if (k < nseries && !(value < series[k].last)) {
                    snprintf(why, why_size, "line %d: %.*s%.*s does not "
                             "fall below line %d's %.4f", line,
                             (int)before, line_start, (int)gl, g,
                             series[k].line, series[k].last);
                    print_line("got: ", got, line);
                    return false;
                }
                if (k == nseries && nseries < MAX_SERIES) {
                    snprintf(series[k].key, sizeof series[k].key, "%s",
                             key);
                    series[k].count = 0;
                    nseries++;
                }
                if (k < nseries) {
                    series[k].last = value;
                    series[k].line = line;
                    series[k].count++;
                }
            }
            g += gl;
            w += wl;
        } else if (*g && *g == *w) {
            if (*g == '\n') {
                line++;
                line_start = g + 1;
                want_line = w + 1;
            }
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
    if (*falling && nseries == 0) {
        snprintf(why, why_size, "no number follows \"%s\", so nothing can "
                 "be seen to fall (steps.tsv names another word?)", label);
        return false;
    }
    for (int k = 0; k < nseries; k++)
        if (series[k].count < 2) {
            snprintf(why, why_size, "one number only after \"%s\" (line "
                     "%d), so it cannot be seen to fall", series[k].key,
                     series[k].line);
            return false;
        }
    return true;
}

/* ---- the files a program writes */

/* The whole file (NULL when it cannot be read); the caller frees it. */
static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = read_stream(f);
    fclose(f);
    if (size)
        *size = strlen(text);
    return text;
}

/* Problems found in one step's files: each is printed as found; the
 * first is the test's failure message. */
static int problems;
static char first_problem[1024];

__attribute__((format(printf, 1, 2)))
static void problem(const char *format, ...)
{
    char text[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    printf("  %s\n", text);
    fflush(stdout);
    if (problems++ == 0)
        snprintf(first_problem, sizeof first_problem, "%s", text);
}

/* The first line where a and b differ (1-based), or 0. */
static int first_different_line(const char *a, const char *b)
{
    int line = 1;
    for (; *a && *a == *b; a++, b++)
        line += *a == '\n';
    return *a == *b ? 0 : line;
}

/* A text that must equal the reference; with ids renumbered for a DOT
 * text (node ids are addresses). */
static void check_text(const char *what, const char *got_text,
                       const char *want_text, const char *reference)
{
    int line = first_different_line(got_text, want_text);
    if (!line)
        return;
    const char *g = got_text, *w = want_text;
    for (int l = 1; l < line; l++) {
        g = *g ? strchr(g, '\n') + 1 : g;
        w = *w ? strchr(w, '\n') + 1 : w;
    }
    problem("%s differs from %s at line %d: got \"%.*s\", want \"%.*s\"",
            what, reference, line, (int)strcspn(g, "\n"), g,
            (int)strcspn(w, "\n"), w);
}

static void check_dot(const char *what, const char *got,
                      const char *want, const char *reference)
{
    char *g = renumbered(got), *w = renumbered(want);
    check_text(what, g, w, reference);
    free(g);
    free(w);
}

/* Has Graphviz draw the reference DOT text in format (png, svg) into
 * the temporary file drawn (a mkstemp template, filled in). Returns false,
 * with the problem reported, when it cannot. */
static bool draw_reference(const char *what, const char *reference_path,
                           const char *format, char *drawn)
{
    char command[PATH_MAX * 3];
    int fd = mkstemp(drawn);
    if (fd < 0) {
        problem("cannot make a temporary file: %s", strerror(errno));
        return false;
    }
    close(fd);
    snprintf(command, sizeof command, "dot -T%s '%s' -o '%s' 2>&1",
             format, reference_path, drawn);
    if (system(command) != 0) {
        problem("%s: dot could not draw %s (is Graphviz installed?)", what,
                reference_path);
        unlink(drawn);
        return false;
    }
    return true;
}

/* Graphviz's PNG of the reference DOT text, which Python's
 * plot_dot_graph would have written, byte for byte. */
static void check_png(const char *what, const char *path,
                      const char *reference_path)
{
    char drawn[] = "/tmp/golden_test_png.XXXXXX";
    if (!draw_reference(what, reference_path, "png", drawn))
        return;
    size_t got_size, want_size;
    FILE *g = fopen(path, "rb"), *w = fopen(drawn, "rb");
    bool same = g && w;
    if (same) {
        int a, b;
        do {
            a = getc(g);
            b = getc(w);
        } while (a == b && a != EOF);
        same = a == b;
    }
    got_size = g ? (size_t)(fseek(g, 0, SEEK_END), ftell(g)) : 0;
    want_size = w ? (size_t)(fseek(w, 0, SEEK_END), ftell(w)) : 0;
    if (g)
        fclose(g);
    if (w)
        fclose(w);
    unlink(drawn);
    if (!same)
        problem("%s (%zu bytes) is not the PNG dot draws from %s (%zu "
                "bytes)", what, got_size, reference_path, want_size);
}

/* The distance between a and b in units in the last place of b. */
static double ulps_apart(double a, double b)
{
    if (a == b)
        return 0;
    double ulp = nextafter(fabs(b), INFINITY) - fabs(b);
    return fabs(a - b) / ulp;
}

/* A CSV file: the header as the reference's, then the same rows of
 * numbers, each within max_ulps of NumPy's value. */
static void check_csv(const char *what, const char *got, const char *want,
                      const char *reference, double max_ulps)
{
    int line = 1;
    const char *g = got, *w = want;
    size_t header = strcspn(w, "\n");
    if (strncmp(g, w, header + 1) != 0) {
        problem("%s: the header differs from %s's", what, reference);
        print_line("got: ", got, 1);
        print_line("want:", want, 1);
        return;
    }
    g += header + 1;
    w += header + 1;
    while (*g || *w) {
        line++;
        for (int column = 1;; column++) {
            char *ge, *we;
            double a = strtod(g, &ge), b = strtod(w, &we);
            if (ge == g || we == w) {
                problem("%s, line %d, column %d: got \"%.20s\", want "
                        "\"%.20s\" (%s)", what, line, column, g, w,
                        reference);
                return;
            }
            if (!(ulps_apart(a, b) <= max_ulps)) {
                problem("%s, line %d, column %d: got %.17g, want %.17g "
                        "(%s), %.0f units in the last place apart; at "
                        "most %g", what, line, column, a, b, reference,
                        ulps_apart(a, b), max_ulps);
                print_line("got: ", got, line);
                print_line("want:", want, line);
                return;
            }
            g = ge;
            w = we;
            if (*g != *w) {
                problem("%s, line %d: %s columns than %s", what, line,
                        *g == ',' ? "more" : "fewer", reference);
                return;
            }
            if (*g != ',')
                break;
            g++;
            w++;
        }
        if (*g != '\n' || *w != '\n') {
            problem("%s, line %d: a line that does not end as %s's does",
                    what, line, reference);
            return;
        }
        g++;
        w++;
        if (!*g != !*w) {
            problem("%s has %s lines than %s", what, *g ? "more" : "fewer",
                    reference);
            return;
        }
    }
}

/* gnuplot's SVG of the CSV: an SVG whose legend names the plotted
 * columns, in order, as Python's plt.legend labels them (the CSV
 * header, after x). */
static void check_svg(const char *what, const char *svg, const char *csv,
                      const char *reference)
{
    if (strncmp(svg, "<?xml", 5) != 0 || !strstr(svg, "<svg")) {
        problem("%s is not an SVG file", what);
        return;
    }
    const char *at = svg;
    const char *name = strchr(csv, ',');
    while (name && *name == ',') {
        name++;
        size_t len = strcspn(name, ",\n");
        char label[256];
        snprintf(label, sizeof label, "<text>%.*s</text>", (int)len, name);
        const char *found = strstr(at, label);
        if (!found) {
            problem("%s: no legend entry %s after the ones before it (the "
                    "columns of %s)", what, label, reference);
            return;
        }
        at = found + strlen(label);
        name += len;
    }
}

/* A CSV file whose numbers cannot be the reference's (an unseeded run
 * on the suite's own data): the header equal to the reference's, then
 * as many rows of as many numbers, each an integer equal to the
 * reference's where that is an integer (the epoch), any number
 * elsewhere. */
static void check_csv_form(const char *what, const char *got,
                           const char *want, const char *reference)
{
    size_t header = strcspn(want, "\n");
    if (strncmp(got, want, header + 1) != 0) {
        problem("%s: the header differs from %s's", what, reference);
        print_line("got: ", got, 1);
        print_line("want:", want, 1);
        return;
    }
    const char *g = got + header + 1, *w = want + header + 1;
    for (int line = 2; *g || *w; line++) {
        for (int column = 1;; column++) {
            char *ge, *we;
            double a = strtod(g, &ge), b = strtod(w, &we);
            bool integer = we > w && integer_form(w, (size_t)(we - w));
            if (ge == g || we == w || (integer && a != b)) {
                problem("%s, line %d, column %d: got \"%.20s\", want %s "
                        "(%s)", what, line, column, g, integer ?
                        "the same integer" : "a number", reference);
                return;
            }
            g = ge;
            w = we;
            if (*g != *w) {
                problem("%s, line %d: not the columns of %s", what, line,
                        reference);
                return;
            }
            if (*g != ',')
                break;
            g++;
            w++;
        }
        if (*g != '\n' || *w != '\n') {
            problem("%s, line %d: a line that does not end as %s's does",
                    what, line, reference);
            return;
        }
        g++;
        w++;
        if (!*g != !*w) {
            problem("%s has %s lines than %s", what, *g ? "more" : "fewer",
                    reference);
            return;
        }
    }
}

/* The bytes of base64 text (up to the first character that is not
 * base64) into out (at most size); returns how many. */
static size_t base64_decode(const char *text, unsigned char *out,
                            size_t size)
{
    static const char digits[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = 0;
    uint32_t bits = 0;
    int nbits = 0;
    for (const char *c = text; *c && strchr(digits, *c) && n < size; c++) {
        bits = bits << 6 | (uint32_t)(strchr(digits, *c) - digits);
        nbits += 6;
        if (nbits >= 8) {
            nbits -= 8;
            out[n++] = (unsigned char)(bits >> nbits);
        }
    }
    return n;
}

static uint32_t big_endian(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | p[3];
}

/* The first channel of a PNG (8 bits, gray or RGB or either with alpha,
 * not interlaced: what gnuplot writes) into a new (height, width)
 * array; NULL with the reason in why when it is not such a PNG. */
static unsigned char *png_channel(const unsigned char *png, size_t n,
                                  uint32_t *width, uint32_t *height,
                                  char *why, size_t why_size)
{
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r',
                                               '\n', 0x1a, '\n'};
    if (n < 33 || memcmp(png, signature, 8) != 0 ||
        memcmp(png + 12, "IHDR", 4) != 0) {
        snprintf(why, why_size, "not a PNG");
        return NULL;
    }
    *width = big_endian(png + 16);
    *height = big_endian(png + 20);
    int depth = png[24], type = png[25], interlace = png[28];
    int channels = type == 0 ? 1 : type == 2 ? 3 : type == 4 ? 2 :
                   type == 6 ? 4 : 0;
    if (depth != 8 || !channels || interlace || *width == 0 ||
        *height == 0 || *width > 4096 || *height > 4096) {
        snprintf(why, why_size, "a PNG of %ux%u, depth %d, colour type %d, "
                 "interlace %d: not one this check reads", *width, *height,
                 depth, type, interlace);
        return NULL;
    }
    size_t stride = (size_t)*width * (size_t)channels;
    size_t raw_size = (1 + stride) * *height;
    unsigned char *idat = malloc(n), *raw = malloc(raw_size);
    size_t idat_len = 0;
    for (size_t at = 8; at + 12 <= n;) {
        size_t len = big_endian(png + at);
        if (len > n - at - 12)
            break;
        if (memcmp(png + at + 4, "IDAT", 4) == 0) {
            memcpy(idat + idat_len, png + at + 8, len);
            idat_len += len;
        }
        at += 12 + len;
    }
    uLongf got = (uLongf)raw_size;
    if (uncompress(raw, &got, idat, (uLong)idat_len) != Z_OK ||
        got != raw_size) {
        snprintf(why, why_size, "its image data does not inflate to "
                 "%ux%u pixels", *width, *height);
        free(raw);
        free(idat);
        return NULL;
    }
    free(idat);
    /* undo each row's filter (None, Sub, Up, Average, Paeth) in place */
    for (uint32_t y = 0; y < *height; y++) {
        unsigned char *row = raw + y * (1 + stride) + 1;
        const unsigned char *up = y ? row - (1 + stride) : NULL;
        int filter = row[-1];
        for (size_t i = 0; i < stride; i++) {
            int a = i >= (size_t)channels ? row[i - channels] : 0;
            int b = up ? up[i] : 0;
            int c = up && i >= (size_t)channels ? up[i - channels] : 0;
            int p = a + b - c, pa = abs(p - a), pb = abs(p - b),
                pc = abs(p - c);
            int predicted = filter == 1 ? a : filter == 2 ? b :
                            filter == 3 ? (a + b) / 2 :
                            filter == 4 ? (pa <= pb && pa <= pc ? a :
                                           pb <= pc ? b : c) : 0;
            row[i] = (unsigned char)(row[i] + predicted);
        }
    }
    unsigned char *pixels = malloc((size_t)*width * *height);
    for (uint32_t y = 0; y < *height; y++)
        for (uint32_t x = 0; x < *width; x++)
            pixels[(size_t)y * *width + x] =
                raw[y * (1 + stride) + 1 + (size_t)x * channels];
    free(raw);
    return pixels;
}

/* An SVG that shows images of the IDX file at idx_path (the program's
 * input), as gnuplot draws an array `with image`: one PNG in it whose
 * pixels are the file's first images, 28 x 28 each, tiled row by row,
 * every pixel within 1 of its gray level. */
static void check_svg_image(const char *what, const char *path,
                            const char *idx_path)
{
    char *svg = read_file(path, NULL);
    const char *marker = "data:image/png;base64,";
    const char *data = svg ? strstr(svg, marker) : NULL;
    if (!data) {
        problem("%s is not an SVG holding a PNG image", what);
        free(svg);
        return;
    }
    data += strlen(marker);
    size_t size = strlen(data);
    unsigned char *png = malloc(size);
    size_t n = base64_decode(data, png, size);
    free(svg);
    uint32_t width, height;
    char why[256];
    unsigned char *pixels = png_channel(png, n, &width, &height, why,
                                        sizeof why);
    free(png);
    if (!pixels) {
        problem("%s: its image is %s", what, why);
        return;
    }
    uint32_t cols = width / 28, rows = height / 28;
    NdArray *images = nd_load_idx(idx_path, ND_SHAPE(-1, 28, 28));
    if (width % 28 || height % 28 ||
        (int64_t)rows * cols > images->shape[0]) {
        problem("%s: an image of %ux%u pixels is no grid of the 28 x 28 "
                "images of %s", what, width, height, idx_path);
    } else {
        const uint8_t *want = ND_DATA(images, uint8_t);
        for (uint32_t y = 0; y < height; y++)
            for (uint32_t x = 0; x < width; x++) {
                size_t i = (size_t)(y / 28 * cols + x / 28);
                int w = want[i * 784 + y % 28 * 28 + x % 28];
                int g = pixels[(size_t)y * width + x];
                if (abs(g - w) > 1) {
                    problem("%s: pixel (%u, %u) is %d, but pixel (%u, %u) "
                            "of image %zu of %s is %d", what, x, y, g,
                            x % 28, y % 28, i, idx_path, w);
                    y = height;
                    break;
                }
            }
    }
    nd_release(images);
    free(pixels);
}

/* Sorts lines by strcmp, for qsort. */
static int compare_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The arrays of the .npz file at path, a line each, "key<TAB>shape<TAB>
 * dtype", as np.load shows them ("l0/W\t(784, 1000)\tfloat32"), sorted
 * by key: a text the caller frees. An unreadable file stops with
 * nd_error. (Not inlined into npz_listing_caught, whose setjmp would
 * make the compiler fear for its variables.) */
__attribute__((noinline))
static char *npz_listing(const char *path)
{
    NdNpz *npz = nd_npz_open(path);
    int count;
    const char *const *keys = nd_npz_keys(npz, &count);
    char **lines = calloc((size_t)count + 1, sizeof *lines);
    size_t total = 1;
    for (int i = 0; i < count; i++) {
        NdArray *a = nd_npz_get(npz, keys[i]);
        char *shape = nd_shape_str(a);
        size_t n = strlen(keys[i]) + strlen(shape) + 32;
        lines[i] = malloc(n);
        snprintf(lines[i], n, "%s\t%s\t%s\n", keys[i], shape,
                 nd_dtype_name(a->dtype));
        total += strlen(lines[i]);
        free(shape);
        nd_release(a);
    }
    nd_npz_close(npz);
    qsort(lines, (size_t)count, sizeof *lines, compare_lines);
    char *text = malloc(total);
    text[0] = '\0';
    for (int i = 0; i < count; i++) {
        strcat(text, lines[i]);
        free(lines[i]);
    }
    free(lines);
    return text;
}

/* npz_listing(path) of the file what names; NULL, and a problem that
 * says why, where NumPy could not read it. */
static char *npz_listing_caught(const char *what, const char *path)
{
    char *volatile got = NULL;
    NdErrorHandler old = nd_set_error_handler(nd_test_error_handler);
    if (setjmp(nd_test_jump) == 0)
        got = npz_listing(path);
    nd_set_error_handler(old);
    if (!got)
        problem("%s is not an .npz file NumPy could read: %s", what,
                nd_test_message);
    return got;
}

/* An .npz archive of the reference's arrays: the same keys, each of the
 * same shape and dtype (the reference lists them as npz_listing does;
 * the values, which training makes, are free). */
static void check_npz(const char *what, const char *path,
                      const char *reference)
{
    char *want = read_file(reference, NULL);
    if (!want)
        fail_msg("cannot read %s, the reference for %s", reference, what);
    char *got = npz_listing_caught(what, path);
    if (got)
        check_text(what, got, want, reference);
    free(got);
    free(want);
}

typedef struct FileRow {
    char file[128], check[32], reference[128];
    bool seen;
} FileRow;

/* The rows of files.tsv for step; returns how many. */
static int file_rows(int step, FileRow rows[], int max)
{
    Table t = open_table("tests/golden/files.tsv");
    char line[512];
    int n = 0;
    while (next_row(&t, step, line, sizeof line)) {
        if (n == max)
            fail_msg("%s: too many rows for step%02d", t.path, step);
        FileRow *r = &rows[n++];
        r->seen = false;
        if (sscanf(line, "step%*d\t%127[^\t]\t%31[^\t]\t%127[^\t\n]",
                   r->file, r->check, r->reference) != 3)
            fail_msg("%s:%d: want stepNN<TAB>file<TAB>check<TAB>reference",
                     t.path, t.lineno);
    }
    fclose(t.file);
    return n;
}

/* Graphviz's SVG of the reference DOT text, line for line once the node
 * ids (object addresses, which the SVG keeps in its titles) are
 * renumbered on both sides. */
static void check_svg_drawing(const char *what, const char *path,
                              const char *reference_path)
{
    char drawn[] = "/tmp/golden_test_svg.XXXXXX";
    if (!draw_reference(what, reference_path, "svg", drawn))
        return;
    char *got = read_file(path, NULL), *want = read_file(drawn, NULL);
    unlink(drawn);
    if (!got || !want)
        problem("%s: cannot read it or the SVG drawn from %s", what,
                reference_path);
    else
        check_dot(what, got, want, reference_path);
    free(got);
    free(want);
}

/* ---- the files a program reads: tests/golden/inputs.tsv */

/* The scratch folder of the step being checked. */
static char current_scratch[64];

/* What the suite put in the scratch folder for the program: each file
 * by name, and its size and time, which must not change. */
typedef struct Input {
    char name[128];
    off_t size;
    struct timespec mtime;
} Input;

static Input inputs[8];
static int ninputs;

/* The files of the input vgg16-inputs: tests/golden/files/FROM copied
 * into the scratch folder as TO (tests/run.sh's leak_check copies the
 * same). */
static const struct { const char *from, *to; } vgg16_inputs[] = {
    {"step58_zebra.jpg", "zebra.jpg"},
    {"step58_labels.txt", "imagenet1000_clsidx_to_labels.txt"},
};

/* Copies tests/golden/files/from to scratch/to, byte for byte. */
static void copy_input(const char *from, const char *scratch,
                       const char *to)
{
    char source[PATH_MAX], target[PATH_MAX];
    snprintf(source, sizeof source, "tests/golden/files/%s", from);
    snprintf(target, sizeof target, "%s/%s", scratch, to);
    FILE *in = fopen(source, "rb"), *out = fopen(target, "wb");
    if (!in || !out)
        fail_msg("cannot copy %s to %s: %s", source, target,
                 strerror(errno));
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, in)) > 0)
        if (fwrite(chunk, 1, n, out) != n)
            fail_msg("cannot write %s: %s", target, strerror(errno));
    if (ferror(in) || fclose(out) != 0)
        fail_msg("cannot copy %s to %s", source, target);
    fclose(in);
}

/* Writes into scratch what inputs.tsv gives step ("step51<TAB>mnist-
 * tiny": the suite's tiny MNIST; "step58<TAB>vgg16-inputs": a tiny
 * picture and class names) and records each file. */
static void prepare_inputs(int step, const char *scratch)
{
    Table t = open_table("tests/golden/inputs.tsv");
    char line[256], kind[64];
    ninputs = 0;
    while (next_row(&t, step, line, sizeof line)) {
        if (sscanf(line, "step%*d\t%63[^\t\n]", kind) != 1 ||
            (strcmp(kind, "mnist-tiny") != 0 &&
             strcmp(kind, "vgg16-inputs") != 0))
            fail_msg("%s:%d: want stepNN<TAB>mnist-tiny or vgg16-inputs",
                     t.path, t.lineno);
        if (strcmp(kind, "vgg16-inputs") == 0) {
            for (size_t i = 0; i < 2 && ninputs < 8; i++) {
                copy_input(vgg16_inputs[i].from, scratch,
                           vgg16_inputs[i].to);
                snprintf(inputs[ninputs++].name, sizeof inputs[0].name,
                         "%s", vgg16_inputs[i].to);
            }
            continue;
        }
        char why[512];
        if (!mnist_tiny_write(scratch, MNIST_TINY_TRAIN, MNIST_TINY_TEST,
                              why, sizeof why))
            fail_msg("step%02d's input: %s", step, why);
        for (int i = 0; i < 4 && ninputs < 8; i++)
            snprintf(inputs[ninputs++].name, sizeof inputs[0].name, "%s",
                     mnist_tiny_names[i]);
    }
    fclose(t.file);
    for (int i = 0; i < ninputs; i++) {
        char path[PATH_MAX];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", scratch, inputs[i].name);
        if (stat(path, &st) != 0)
            fail_msg("step%02d's input %s is missing", step, path);
        inputs[i].size = st.st_size;
        inputs[i].mtime = st.st_mtim;
    }
}

/* Whether name is one of the inputs; a changed one is a problem. */
static bool is_input(int step, const char *path, const char *name)
{
    for (int i = 0; i < ninputs; i++)
        if (strcmp(inputs[i].name, name) == 0) {
            struct stat st;
            if (stat(path, &st) != 0 || st.st_size != inputs[i].size ||
                st.st_mtim.tv_sec != inputs[i].mtime.tv_sec ||
                st.st_mtim.tv_nsec != inputs[i].mtime.tv_nsec)
                problem("step%02d changed its input %s", step, name);
            inputs[i].size = -1;            /* seen */
            return true;
        }
    return false;
}

/* Checks the file at path (named file, relative to the scratch folder)
 * as row says. */
static void check_file(int step, const char *path, const FileRow *row)
{
    char what[256], reference[256];
    snprintf(what, sizeof what, "step%02d's %s", step, row->file);
    snprintf(reference, sizeof reference, "tests/golden/files/%s",
             row->reference);
    if (strcmp(row->check, "png") == 0) {
        check_png(what, path, reference);
        return;
    }
    if (strcmp(row->check, "dot-svg") == 0) {
        check_svg_drawing(what, path, reference);
        return;
    }
    if (strcmp(row->check, "npz") == 0) {
        check_npz(what, path, reference);
        return;
    }
    if (strcmp(row->check, "svg-image") == 0) {
        /* the reference is an input in the scratch folder */
        snprintf(reference, sizeof reference, "%s/%s", current_scratch,
                 row->reference);
        check_svg_image(what, path, reference);
        return;
    }
    size_t size;
    char *got = read_file(path, &size), *want = read_file(reference, NULL);
    if (!want)
        fail_msg("cannot read %s, the reference for %s", reference, what);
    if (!got)
        problem("cannot read %s", what);
    else if (strlen(got) != size)
        problem("%s holds a NUL byte", what);
    else if (strcmp(row->check, "text") == 0)
        check_text(what, got, want, reference);
    else if (strcmp(row->check, "dot") == 0)
        check_dot(what, got, want, reference);
    else if (strcmp(row->check, "csv:form") == 0)
        check_csv_form(what, got, want, reference);
    else if (strncmp(row->check, "csv:", 4) == 0)
        check_csv(what, got, want, reference, atof(row->check + 4));
    else if (strcmp(row->check, "svg") == 0)
        check_svg(what, got, want, reference);
    else
        fail_msg("tests/golden/files.tsv: step%02d %s: no check \"%s\" "
                 "(text, dot, png, dot-svg, csv:ULPS, csv:form, svg, "
                 "svg-image, npz)", step, row->file, row->check);
    free(got);
    free(want);
}

/* Every file under folder (relative names under prefix) against the
 * rows: each must have one; marks the rows seen. */
static void check_folder(int step, const char *folder, const char *prefix,
                         FileRow rows[], int nrows)
{
    DIR *dir = opendir(folder);
    if (!dir) {
        problem("cannot read the scratch folder %s", folder);
        return;
    }
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[PATH_MAX], name[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        snprintf(name, sizeof name, "%s%s/", prefix, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            check_folder(step, path, name, rows, nrows);
            continue;
        }
        name[strlen(name) - 1] = '\0';         /* a file: no slash */
        if (is_input(step, path, name))
            continue;
        int r = 0;
        while (r < nrows && strcmp(rows[r].file, name) != 0)
            r++;
        if (r == nrows) {
            problem("step%02d wrote %s, which no check covers: add a row "
                    "to tests/golden/files.tsv", step, name);
            continue;
        }
        rows[r].seen = true;
        check_file(step, path, &rows[r]);
    }
    closedir(dir);
}

static void check_files(int step, const char *scratch)
{
    FileRow rows[32];
    int nrows = file_rows(step, rows, 32);
    check_folder(step, scratch, "", rows, nrows);
    for (int i = 0; i < ninputs; i++)
        if (inputs[i].size != -1)
            problem("step%02d removed its input %s", step, inputs[i].name);
    for (int r = 0; r < nrows; r++)
        if (!rows[r].seen)
            problem("step%02d did not write %s (tests/golden/files.tsv)",
                    step, rows[r].file);
}

/* Replaces each occurrence of the scratch folder's path in text, which
 * changes from run to run, by "$DEZERO_CACHE_DIR", in place (shorter:
 * the folder's name is longer than the placeholder). */
static void hide_scratch(char *text, const char *scratch)
{
    static const char placeholder[] = "$DEZERO_CACHE_DIR";
    size_t n = strlen(scratch), m = sizeof placeholder - 1;
    if (n < m)
        fail_msg("the scratch folder %s is shorter than %s", scratch,
                 placeholder);
    char *at;
    while ((at = strstr(text, scratch))) {
        memcpy(at, placeholder, m);
        memmove(at + m, at + n, strlen(at + n) + 1);
    }
}

/* What command prints in runs runs, one after the other (the caller
 * frees it); in *exit_status the first status other than expected,
 * else expected. */
static char *run_program(const char *command, int runs, int expected,
                         int *exit_status)
{
    char *got = NULL;
    size_t got_length = 0;
    *exit_status = expected;
    for (int run = 0; run < runs; run++) {
        FILE *pipe = popen(command, "r");
        if (!pipe)
            fail_msg("cannot run %s", command);
        char *output = read_stream(pipe);
        int status = pclose(pipe);
        int run_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (*exit_status == expected)
            *exit_status = run_status;
        size_t n = strlen(output);
        got = realloc(got, got_length + n + 1);
        if (!got)
            fail_msg("out of memory reading output");
        memcpy(got + got_length, output, n + 1);
        got_length += n;
        free(output);
    }
    return got;
}

/* With seeded.tsv's row for step, the program run once more in its
 * scratch folder with DEZERO_SEED set, against the row's golden file:
 * a problem where it differs, character for character. */
static void check_seeded_run(int step, const char *scratch,
                             const char *program_path, int expected)
{
    char seed[16], golden[256], command[PATH_MAX * 3 + 100], why[512];
    if (!seeded_run_for(step, seed, golden))
        return;
    snprintf(command, sizeof command, "cd '%s' && DEZERO_SEED=%s "
             "DEZERO_OFFLINE=1 DEZERO_CACHE_DIR='%s' ND_GPU_LIBRARY="
             GPU_OFF " '%s' 2>&1",
             scratch, seed, scratch, program_path);
    char *want = read_file(golden, NULL);
    if (!want)
        fail_msg("cannot read %s (tests/golden/seeded.tsv)", golden);
    int exit_status;
    char *got = run_program(command, 1, expected, &exit_status);
    hide_scratch(got, scratch);
    if (!texts_equal(got, want, why, sizeof why))
        problem("step%02d with DEZERO_SEED=%s differs from %s at %s", step,
                seed, golden, why);
    else if (exit_status != expected)
        problem("step%02d with DEZERO_SEED=%s exited with %d, expected %d",
                step, seed, exit_status, expected);
    free(got);
    free(want);
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
    snprintf(current_scratch, sizeof current_scratch, "%s", scratch);
    prepare_inputs(step, scratch);
    /* Steps before 17 leave their graphs to the OS (CONTRIBUTING.md 4). */
    snprintf(command, sizeof command, "cd '%s' && DEZERO_OFFLINE=1 "
             "DEZERO_CACHE_DIR='%s' ND_GPU_LIBRARY=" GPU_OFF " %s'%s' 2>&1",
             scratch, scratch,
             step < 17 ? "ASAN_OPTIONS=detect_leaks=0 " : "", program_path);

    char *want = read_file(golden, NULL);
    if (!want)
        fail_msg("cannot read %s", golden);

    int exit_status;
    char *got = run_program(command, runs_for(step), e.exit_status,
                            &exit_status);
    hide_scratch(got, scratch);

    char why[512];
    bool same = e.exact ? texts_equal(got, want, why, sizeof why)
                : e.form ? outputs_form(got, want, e.falling, e.choice, why,
                                        sizeof why)
                         : outputs_close(got, want, e.rtol, why, sizeof why);
    problems = 0;
    if (same && exit_status == e.exit_status) {
        check_seeded_run(step, scratch, program_path, e.exit_status);
        check_files(step, scratch);
    }
    snprintf(command, sizeof command, "rm -rf '%s'", scratch);
    if (system(command) != 0)
        fail_msg("cannot remove the scratch folder %s", scratch);
    if (!same)
        fail_msg("step%02d's output differs from %s at %s", step, golden,
                 why);
    if (exit_status != e.exit_status)
        fail_msg("step%02d exited with %d, expected %d", step, exit_status,
                 e.exit_status);
    if (problems)
        fail_msg("%s%s", first_problem, problems > 1 ?
                 " (and more above)" : "");
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
        snprintf(names[i], sizeof names[i], "step%02d output and files",
                 step);
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
