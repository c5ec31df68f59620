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
 * does a file a row names that the program did not write. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "steps/dot_text.h"
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

typedef struct FileRow {
    char file[128], check[32], reference[128];
    bool seen;
} FileRow;

/* The rows of files.tsv for step; returns how many. */
static int file_rows(int step, FileRow rows[], int max)
{
    const char *table = "tests/golden/files.tsv";
    FILE *f = fopen(table, "r");
    if (!f)
        fail_msg("cannot open %s", table);
    char line[512];
    int n = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        int s;
        if (line[0] == '#' || sscanf(line, "step%d", &s) != 1 || s != step)
            continue;
        if (n == max)
            fail_msg("%s: too many rows for step%02d", table, step);
        FileRow *r = &rows[n++];
        r->seen = false;
        if (sscanf(line, "step%*d\t%127[^\t]\t%31[^\t]\t%127[^\t\n]",
                   r->file, r->check, r->reference) != 3)
            fail_msg("%s:%d: want stepNN<TAB>file<TAB>check<TAB>reference",
                     table, lineno);
    }
    fclose(f);
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
    else if (strncmp(row->check, "csv:", 4) == 0)
        check_csv(what, got, want, reference, atof(row->check + 4));
    else if (strcmp(row->check, "svg") == 0)
        check_svg(what, got, want, reference);
    else
        fail_msg("tests/golden/files.tsv: step%02d %s: no check \"%s\" "
                 "(text, dot, png, dot-svg, csv:ULPS, svg)", step, row->file,
                 row->check);
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
    for (int r = 0; r < nrows; r++)
        if (!rows[r].seen)
            problem("step%02d did not write %s (tests/golden/files.tsv)",
                    step, rows[r].file);
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

    char why[512];
    bool same = e.exact ? texts_equal(got, want, why, sizeof why)
                        : outputs_close(got, want, e.rtol, why, sizeof why);
    problems = 0;
    if (same && exit_status == e.exit_status)
        check_files(step, scratch);
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
