/* utils.c - helpers beside the core: numerical differentiation, which
 * checks the gradients backpropagation computes, drawing the
 * computational graph with Graphviz, writing data as CSV for gnuplot to
 * plot, and the reshape that Sum's backward starts with. */
#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dezero.h"
#include "tempfile.h"

extern char **environ;          /* the environment dot inherits */

/* The derivative of f at x, estimated by a central difference:
 * (f(x + eps) - f(x - eps)) / (2 eps), elementwise. Borrows x; returns
 * a new array. The Variables it makes belong to the innermost pool. */
NdArray *numerical_diff(Variable *(*f)(Variable *), const Variable *x,
                        double eps)
{
    NdArray *h = nd_scalar(eps);
    Variable *x0 = variable(nd_sub(x->data, h));
    Variable *x1 = variable(nd_add(x->data, h));
    Variable *y0 = f(x0);
    Variable *y1 = f(x1);

    NdArray *rise = nd_sub(y1->data, y0->data);
    NdArray *run = nd_scalar(2 * eps);
    NdArray *slope = nd_div(rise, run);
    nd_release(h);
    nd_release(rise);
    nd_release(run);
    return slope;
}

/* ---- the graph in DOT */

/* A node's id: the object's address, unique while it lives (Python:
 * id(obj)). */
static uintptr_t node_id(const void *object)
{
    return (uintptr_t)object;
}

/* v's node (Python: _dot_var): an orange oval labelled with its name,
 * and with verbose its shape and dtype, "x: (2, 3) float64". */
static void dot_var(FILE *text, const Variable *v, bool verbose)
{
    fprintf(text, "%" PRIuPTR " [label=\"%s", node_id(v),
                v->name ? v->name : "");
    if (verbose && v->data) {
        char *shape = nd_shape_str(v->data);
        fprintf(text, "%s%s %s", v->name ? ": " : "", shape,
                    nd_dtype_name(v->data->dtype));
        free(shape);
    }
    fprintf(text, "\", color=orange, style=filled]\n");
}

/* f's node, a light blue box with its class's name, and its edges:
 * from each input to f, and from f to each output still alive (Python:
 * _dot_func). */
static void dot_func(FILE *text, const Function *f)
{
    fprintf(text, "%" PRIuPTR " [label=\"%s\", color=lightblue, "
                "style=filled, shape=box]\n", node_id(f), f->cls->name);
    for (int i = 0; i < f->ninputs; i++)
        fprintf(text, "%" PRIuPTR " -> %" PRIuPTR "\n",
                    node_id(f->inputs[i]), node_id(f));
    for (int i = 0; i < f->noutputs; i++)
        if (f->outputs[i])      /* a weak pointer: NULL once freed */
            fprintf(text, "%" PRIuPTR " -> %" PRIuPTR "\n",
                        node_id(f), node_id(f->outputs[i]));
}

/* A list of functions that doubles when full, in the order added. */
typedef struct FunctionList {
    const Function **items;     /* owned array of borrowed functions */
    size_t count;
    size_t capacity;
} FunctionList;

static void list_append(FunctionList *list, const Function *f)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 16;
        const Function **items = realloc(list->items,
                                         capacity * sizeof *items);
        if (!items)
            nd_error("get_dot_graph", "out of memory for a list of %zu "
                     "functions", capacity);
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = f;
}

static bool list_contains(const FunctionList *list, const Function *f)
{
    for (size_t i = 0; i < list->count; i++)
        if (list->items[i] == f)
            return true;
    return false;
}

/* The DOT text of the graph behind output (Python: get_dot_graph):
 * output's node, then, for each function it comes from, the function's
 * node, its edges and its inputs' nodes. Functions are visited last in,
 * first out, each once; a variable used twice gets its node statement
 * twice, which DOT allows. Borrows output; returns text the caller
 * frees. */
char *get_dot_graph(const Variable *output, bool verbose)
{
    /* The text grows by an unknown amount: open_memstream gives a
     * FILE whose buffer grows as it is written (Python's txt += ...). */
    char *chars = NULL;
    size_t length = 0;
    FILE *text = open_memstream(&chars, &length);
    if (!text)
        nd_error("get_dot_graph", "out of memory for the DOT text");
    FunctionList funcs = {0};   /* still to visit: a stack */
    FunctionList seen = {0};    /* ever pushed (Python: seen_set) */
    fprintf(text, "digraph g {\n");
    dot_var(text, output, verbose);
    if (output->creator) {
        list_append(&funcs, output->creator);
        list_append(&seen, output->creator);
    }
    while (funcs.count > 0) {
        const Function *f = funcs.items[--funcs.count];
        dot_func(text, f);
        for (int i = 0; i < f->ninputs; i++) {
            const Variable *x = f->inputs[i];
            dot_var(text, x, verbose);
            if (x->creator && !list_contains(&seen, x->creator)) {
                list_append(&funcs, x->creator);
                list_append(&seen, x->creator);
            }
        }
    }
    fprintf(text, "}");
    free(funcs.items);
    free(seen.items);
    if (fclose(text) != 0)      /* writes out the buffer, and its '\0' */
        nd_error("get_dot_graph", "out of memory for the DOT text");
    return chars;
}

/* ---- files and the dot program */

/* Writes text into the file at path (replacing it), whole or not at
 * all: under a temporary name, renamed to path once every byte is
 * written and on the disk (common/tempfile.h), so that a full disk
 * leaves an earlier file as it was. Returns false, with a message that
 * names the file, when it cannot. */
bool write_text_file(const char *path, const char *text)
{
    char *temporary;
    FILE *f = nd_create_file(path, &temporary);
    if (!f) {
        fprintf(stderr, "write_text_file: cannot open %s: %s\n", path,
                strerror(errno));
        return false;
    }
    fputs(text, f);
    char problem[512];
    if (!nd_close_file(f, temporary, path, true, problem, sizeof problem)) {
        fprintf(stderr, "write_text_file: %s\n", problem);
        return false;
    }
    return true;
}

/* Text made by printf-style formatting; the caller frees it. */
static char *format_text(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char *chars = allocate((size_t)n + 1, 1, "format_text");
    va_start(args, format);
    vsnprintf(chars, (size_t)n + 1, format, args);
    va_end(args);
    return chars;
}

/* The DeZero cache folder, made if it is missing: $DEZERO_CACHE_DIR
 * when set, else ~/.dezero as in Python. Returns its path, which the
 * caller frees, or NULL with a message when there is none. */
static char *cache_dir(void)
{
    const char *override = getenv("DEZERO_CACHE_DIR");
    const char *home = getenv("HOME");
    char *dir;
    if (override && *override)
        dir = format_text("%s", override);
    else if (home && *home)
        dir = format_text("%s/.dezero", home);
    else {
        fprintf(stderr, "cache_dir: neither DEZERO_CACHE_DIR nor HOME is "
                "set, so there is no folder for DeZero's files\n");
        return NULL;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "cache_dir: cannot make %s: %s\n", dir,
                strerror(errno));
        free(dir);
        return NULL;
    }
    return dir;
}

/* Runs the program argv[0], found on the PATH, with the arguments argv
 * (a NULL-terminated list), without a shell, and waits for it. Its
 * standard output, through a pipe, becomes the file to_file, whole or
 * not at all (common/tempfile.h): this program writes it and checks
 * every write, as gnuplot does not report a full disk, and an earlier
 * to_file is kept when anything fails. job says what it is run for
 * ("draw g.png from tmp_graph.dot"), package what to install where it
 * is missing. Returns true when the program ran and exited with status
 * 0, and to_file is whole; false, with a message from who, when it is
 * not installed, cannot be run or fails, or to_file cannot be
 * written. */
static bool run_program(char *const argv[], const char *to_file,
                        const char *who, const char *job,
                        const char *package)
{
    char *temporary;
    FILE *picture = nd_create_file(to_file, &temporary);
    if (!picture) {
        fprintf(stderr, "%s: cannot write %s: %s\n", who, to_file,
                strerror(errno));
        return false;
    }
    int out_fds[2];
    if (pipe(out_fds) != 0) {
        fprintf(stderr, "%s: cannot make a pipe to %s: %s\n", who,
                argv[0], strerror(errno));
        nd_close_file(picture, temporary, to_file, false, NULL, 0);
        return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out_fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, out_fds[0]);
    posix_spawn_file_actions_addclose(&actions, out_fds[1]);
    pid_t pid;
    int error = posix_spawnp(&pid, argv[0], &actions, NULL, argv,
                             environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out_fds[1]);
    if (error) {
        close(out_fds[0]);
        nd_close_file(picture, temporary, to_file, false, NULL, 0);
        if (error == ENOENT)
            fprintf(stderr, "%s: cannot %s: the %s program is not "
                    "installed (sudo apt-get install %s)\n", who, job,
                    argv[0], package);
        else
            fprintf(stderr, "%s: cannot run %s: %s\n", who, argv[0],
                    strerror(error));
        return false;
    }
    char buffer[1 << 16];       /* the picture, as the program draws it */
    ssize_t n;
    while ((n = read(out_fds[0], buffer, sizeof buffer)) != 0)
        if (n > 0)
            fwrite(buffer, 1, (size_t)n, picture);
        else if (errno != EINTR)
            break;
    close(out_fds[0]);
    int status;
    if (waitpid(pid, &status, 0) < 0) {
        fprintf(stderr, "%s: waiting for %s: %s\n", who, argv[0],
                strerror(errno));
        nd_close_file(picture, temporary, to_file, false, NULL, 0);
        return false;
    }
    bool ran = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ran)
        fprintf(stderr, "%s: %s could not %s\n", who, argv[0], job);
    char problem[512];
    if (!nd_close_file(picture, temporary, to_file, ran, problem,
                       sizeof problem)) {
        if (ran)
            fprintf(stderr, "%s: %s\n", who, problem);
        return false;
    }
    return true;
}

/* Runs `dot graph_path -T format`, its picture into to_file, and waits
 * for it. Returns true when dot drew the picture; false, with a
 * message, when dot is not installed or failed. */
static bool run_dot(const char *graph_path, const char *format,
                    const char *to_file)
{
    char *argv[] = {"dot", (char *)graph_path, "-T", (char *)format,
                    NULL};
    char *job = format_text("draw %s from %s (-T %s)", to_file,
                            graph_path, format);
    bool drawn = run_program(argv, to_file, "plot_dot_graph", job, "graphviz");
    free(job);
    return drawn;
}

/* Draws the graph behind output into to_file, in the format its
 * extension names (Python: plot_dot_graph): writes the DOT text to
 * tmp_graph.dot in the DeZero cache folder, then has Graphviz's dot draw
 * it. Returns true when the picture is written; false, with a message
 * on stderr, when it is not. */
bool plot_dot_graph(const Variable *output, bool verbose,
                    const char *to_file)
{
    const char *dot = strrchr(to_file, '.');
    if (!dot || dot[1] == '\0' || strchr(dot, '/')) {
        fprintf(stderr, "plot_dot_graph: %s has no extension to name the "
                "picture's format (.png, .svg, .pdf)\n", to_file);
        return false;
    }
    char *dir = cache_dir();
    if (!dir)
        return false;
    char *graph_path = format_text("%s/tmp_graph.dot", dir);
    char *graph = get_dot_graph(output, verbose);
    bool drawn = write_text_file(graph_path, graph) &&
                 run_dot(graph_path, dot + 1, to_file);
    free(graph);
    free(graph_path);
    free(dir);
    return drawn;
}

/* ---- data as CSV, plotted with gnuplot */

/* Stops with an error when a column name would break the CSV line. */
static void check_csv_name(const char *name)
{
    if (strpbrk(name, ",\"\n\r"))
        nd_error("write_csv", "column name \"%s\" holds a comma, a quote "
                 "or a line break", name);
}

/* Writes the columns into the file at path as CSV: the names, then a
 * line per element, whole or not at all (common/tempfile.h). Stops
 * with an error when the columns differ in size; returns false, with a
 * message, when the file cannot be written, and an earlier file at
 * path is then as it was. Borrows everything. */
bool write_csv(const char *path, int ncolumns, const char *const names[],
               const NdArray *const columns[])
{
    if (ncolumns < 1)
        nd_error("write_csv", "%s: no columns to write", path);
    for (int j = 0; j < ncolumns; j++) {
        check_csv_name(names[j]);
        if (columns[j]->size != columns[0]->size)
            nd_error("write_csv", "column %s has %lld values, column %s "
                     "%lld", names[j], (long long)columns[j]->size,
                     names[0], (long long)columns[0]->size);
    }
    char *temporary;
    FILE *f = nd_create_file(path, &temporary);
    if (!f) {
        fprintf(stderr, "write_csv: cannot open %s: %s\n", path,
                strerror(errno));
        return false;
    }
    for (int j = 0; j < ncolumns; j++)
        fprintf(f, "%s%s", j ? "," : "", names[j]);
    fputc('\n', f);
    for (int64_t i = 0; i < columns[0]->size; i++) {
        for (int j = 0; j < ncolumns; j++)
            fprintf(f, "%s%.17g", j ? "," : "",
                    nd_get_flat(columns[j], i));
        fputc('\n', f);
    }
    char problem[512];
    if (!nd_close_file(f, temporary, path, true, problem, sizeof problem)) {
        fprintf(stderr, "write_csv: %s\n", problem);
        return false;
    }
    return true;
}

/* text as a gnuplot string in single quotes, where a quote is written
 * twice; the caller frees it. */
static char *gnuplot_quoted(const char *text)
{
    size_t size = 3;
    for (const char *p = text; *p; p++)
        size += *p == '\'' ? 2 : 1;
    char *quoted = allocate(size, 1, "gnuplot_quoted"), *q = quoted;
    *q++ = '\'';
    for (const char *p = text; *p; p++) {
        *q++ = *p;
        if (*p == '\'')
            *q++ = '\'';
    }
    *q++ = '\'';
    *q = '\0';
    return quoted;
}

/* gnuplot's terminal for the picture format the extension names, at
 * Matplotlib's default size, 640 by 480; NULL for another format. */
static const char *gnuplot_terminal(const char *extension)
{
    if (strcmp(extension, ".svg") == 0)
        return "svg size 640,480 noenhanced";
    if (strcmp(extension, ".png") == 0)
        return "png size 640,480 noenhanced";
    return NULL;
}

/* Draws the columns of the CSV file at csv_path against its first into
 * to_file, with gnuplot given the whole script on its command line
 * (-e), so that nothing but the picture is written. Returns true when
 * the picture is written; false, with a message on stderr, when it is
 * not. */
bool plot_csv(const char *csv_path, const char *to_file,
              const char *legend_at)
{
    const char *extension = strrchr(to_file, '.');
    const char *terminal = extension ? gnuplot_terminal(extension) : NULL;
    if (!terminal) {
        fprintf(stderr, "plot_csv: cannot draw %s: name it .svg or .png "
                "to choose the picture's format\n", to_file);
        return false;
    }
    char *data = gnuplot_quoted(csv_path);
    char *script = format_text(
        "set datafile separator ','; "
        "set key autotitle columnhead noenhanced opaque box %s; "
        "set terminal %s; "
        "plot for [i=2:*] %s using 1:i with lines",
        legend_at, terminal, data);
    char *argv[] = {"gnuplot", "-e", script, NULL};
    char *job = format_text("draw %s from %s", to_file, csv_path);
    bool drawn = run_program(argv, to_file, "plot_csv", job, "gnuplot-nox");
    free(job);
    free(script);
    free(data);
    return drawn;
}

/* Draws the points of the CSV file points_csv as dots and the curve of
 * curve_csv as a red line over them, each file's second column against
 * its first, into to_file (.svg or .png), with the axes named xlabel
 * and ylabel: the picture of a model fitted to data (Python:
 * plt.scatter(x, y, s=10), plt.plot(t, y_pred, color='r'), plt.xlabel,
 * plt.ylabel). gnuplot draws it. Borrows the texts. Returns true when
 * the picture is written; false, with a message on stderr, when it is
 * not. */
bool plot_fit(const char *points_csv, const char *curve_csv,
              const char *to_file, const char *xlabel, const char *ylabel)
{
    const char *extension = strrchr(to_file, '.');
    const char *terminal = extension ? gnuplot_terminal(extension) : NULL;
    if (!terminal) {
        fprintf(stderr, "plot_fit: cannot draw %s: name it .svg or .png "
                "to choose the picture's format\n", to_file);
        return false;
    }
    char *points = gnuplot_quoted(points_csv);
    char *curve = gnuplot_quoted(curve_csv);
    char *x = gnuplot_quoted(xlabel), *y = gnuplot_quoted(ylabel);
    /* skip 1: the header line; pt 7: a filled circle, in Matplotlib's
     * first colour */
    char *script = format_text(
        "set datafile separator ','; set key off; "
        "set xlabel %s; set ylabel %s; "
        "set terminal %s; "
        "plot %s using 1:2 skip 1 with points pt 7 ps 0.5 "
        "lc rgb '#1f77b4', "
        "%s using 1:2 skip 1 with lines lw 1.5 lc rgb 'red'",
        x, y, terminal, points, curve);
    char *argv[] = {"gnuplot", "-e", script, NULL};
    char *job = format_text("draw %s from %s and %s", to_file, points_csv,
                            curve_csv);
    bool drawn = run_program(argv, to_file, "plot_fit", job, "gnuplot-nox");
    free(job);
    free(script);
    free(x);
    free(y);
    free(curve);
    free(points);
    return drawn;
}

/* ---- Sum's backward */

/* Sorts the n axes, each in 0 .. ndim - 1 (insertion: n is at most
 * ND_MAX_DIMS). */
static void sort_axes(int n, int axes[])
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && axes[j - 1] > axes[j]; j--) {
            int swap = axes[j];
            axes[j] = axes[j - 1];
            axes[j - 1] = swap;
        }
}

/* gy, the gradient of a sum of an x of x_ndim axes along the naxes
 * entries of axes (naxes < 0: all of them), reshaped so that it
 * broadcasts over x: each summed axis is put back as size 1. Nothing
 * to do when the sum kept its axes (keepdims), summed them all (a 0-d
 * gy broadcasts as it is) or x is 0-d; then gy itself is returned
 * (Python: utils.reshape_sum_backward). Borrows gy. */
Variable *reshape_sum_backward(Variable *gy, int x_ndim, int naxes,
                               const int *axes, bool keepdims)
{
    if (x_ndim == 0 || naxes < 0 || keepdims)
        return F_reshape(gy, variable_ndim(gy), variable_shape(gy));
    int actual[ND_MAX_DIMS];
    for (int i = 0; i < naxes; i++)
        actual[i] = axes[i] < 0 ? axes[i] + x_ndim : axes[i];
    sort_axes(naxes, actual);
    int64_t shape[ND_MAX_DIMS];
    int ndim = variable_ndim(gy);
    memcpy(shape, variable_shape(gy), ndim * sizeof *shape);
    for (int i = 0; i < naxes; i++) {       /* shape.insert(a, 1) */
        int a = actual[i];
        if (a < 0 || a > ndim || ndim == ND_MAX_DIMS)
            nd_error("reshape_sum_backward", "axis %d does not fit a "
                     "gradient of %d axes", axes[i], ndim);
        memmove(shape + a + 1, shape + a, (ndim - a) * sizeof *shape);
        shape[a] = 1;
        ndim++;
    }
    return F_reshape(gy, ndim, shape);
}
