/* utils.c - helpers beside the core: numerical differentiation, which
 * checks the gradients backpropagation computes, drawing the
 * computational graph with Graphviz, writing data as CSV for gnuplot to
 * plot, drawing a classifier's decision regions, a learning curve and
 * an image, the reshape that Sum's backward starts with,
 * logsumexp, and the output sizes of convolutions. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dezero.h"
#include "tempfile.h"
#include "download.h"

extern char **environ;          /* the environment dot inherits */

/* The derivative of f at x, estimated by a central difference:
 * (f(x + eps) - f(x - eps)) / (2 eps), elementwise, on x's device.
 * Borrows x; returns a new array. The Variables it makes belong to the
 * innermost pool. */
NdArray *numerical_diff(Variable *(*f)(Variable *), const Variable *x,
                        double eps)
{
    NdDevice device = get_array_module(x);
    NdArray *h = as_array(eps, ND_FLOAT64, device);
    Variable *x0 = variable(nd_sub(x->data, h));
    Variable *x1 = variable(nd_add(x->data, h));
    Variable *y0 = f(x0);
    Variable *y1 = f(x1);

    NdArray *rise = nd_sub(y1->data, y0->data);
    NdArray *run = as_array(2 * eps, ND_FLOAT64, device);
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

/* Closes both ends of a pipe that are open. */
static void close_pipe(int fds[2])
{
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* Copies what a program writes on out, its standard output, into the
 * stream picture until it closes it, while feeding it the size bytes
 * of input on in, then closed (in is -1 when there is none): both at
 * once (poll), so that neither side waits for the other. A reader that
 * exits early makes the feeding fail (EPIPE) instead of ending this
 * program: SIGPIPE is ignored meanwhile. Closes in and out. Returns
 * false when not every byte of input was taken; a failed write to
 * picture shows in its error flag. */
static bool pump(int in, const void *input, size_t size, int out,
                 FILE *picture)
{
    struct sigaction ignore = {.sa_handler = SIG_IGN}, saved;
    sigaction(SIGPIPE, &ignore, &saved);
    const char *p = input;
    if (in >= 0)
        fcntl(in, F_SETFL, O_NONBLOCK);
    char buffer[1 << 16];
    while (in >= 0 || out >= 0) {
        if (in >= 0 && size == 0) {
            close(in);
            in = -1;
            continue;
        }
        struct pollfd fds[2] = {{.fd = in, .events = POLLOUT},
                                {.fd = out, .events = POLLIN}};
        if (poll(fds, 2, -1) < 0 && errno != EINTR)
            break;
        if (in >= 0 && fds[0].revents) {
            ssize_t n = write(in, p, size);
            if (n > 0) {
                p += n;
                size -= (size_t)n;
            } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                close(in);              /* the program stopped reading */
                in = -1;
            }
        }
        if (out >= 0 && fds[1].revents) {
            ssize_t n = read(out, buffer, sizeof buffer);
            if (n > 0) {
                fwrite(buffer, 1, (size_t)n, picture);
            } else if (n == 0 || errno != EINTR) {
                close(out);
                out = -1;
            }
        }
    }
    int fds[2] = {in, out};
    close_pipe(fds);
    sigaction(SIGPIPE, &saved, NULL);
    return size == 0;
}

/* Runs the program argv[0], found on the PATH, with the arguments argv
 * (a NULL-terminated list), without a shell, and waits for it; the
 * input_size bytes of input, unless it is NULL, are its standard input,
 * through a pipe. Its standard output, through another pipe, becomes
 * the file to_file, whole or not at all (common/tempfile.h): this
 * program writes it and checks every write, as gnuplot does not report
 * a full disk, and an earlier to_file is kept when anything fails. job
 * says what it is run for ("draw g.png from tmp_graph.dot"), package
 * what to install where it is missing. Returns true when the program
 * ran, read its input and exited with status 0, and to_file is whole;
 * false, with a message from who, when it is not installed, cannot be
 * run or fails, or to_file cannot be written. */
static bool run_program(char *const argv[], const void *input,
                        size_t input_size, const char *to_file,
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
    int in_fds[2] = {-1, -1}, out_fds[2] = {-1, -1};
    if ((input && pipe(in_fds) != 0) || pipe(out_fds) != 0) {
        fprintf(stderr, "%s: cannot make a pipe to %s: %s\n", who,
                argv[0], strerror(errno));
        close_pipe(in_fds);
        nd_close_file(picture, temporary, to_file, false, NULL, 0);
        return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (input) {
        posix_spawn_file_actions_adddup2(&actions, in_fds[0], 0);
        posix_spawn_file_actions_addclose(&actions, in_fds[0]);
        posix_spawn_file_actions_addclose(&actions, in_fds[1]);
    }
    posix_spawn_file_actions_adddup2(&actions, out_fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, out_fds[0]);
    posix_spawn_file_actions_addclose(&actions, out_fds[1]);
    pid_t pid;
    int error = posix_spawnp(&pid, argv[0], &actions, NULL, argv,
                             environ);
    posix_spawn_file_actions_destroy(&actions);
    if (input)
        close(in_fds[0]);
    close(out_fds[1]);
    if (error) {
        if (input)
            close(in_fds[1]);
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
    bool fed = pump(input ? in_fds[1] : -1, input, input_size, out_fds[0],
                    picture);
    int status;
    if (waitpid(pid, &status, 0) < 0) {
        fprintf(stderr, "%s: waiting for %s: %s\n", who, argv[0],
                strerror(errno));
        nd_close_file(picture, temporary, to_file, false, NULL, 0);
        return false;
    }
    bool ran = fed && WIFEXITED(status) && WEXITSTATUS(status) == 0;
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
    bool drawn = run_program(argv, NULL, 0, to_file, "plot_dot_graph", job,
                             "graphviz");
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
    char *dir = nd_cache_dir();
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
    bool drawn = run_program(argv, NULL, 0, to_file, "plot_csv", job,
                             "gnuplot-nox");
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
    bool drawn = run_program(argv, NULL, 0, to_file, "plot_fit", job,
                             "gnuplot-nox");
    free(job);
    free(script);
    free(x);
    free(y);
    free(curve);
    free(points);
    return drawn;
}

/* The points of points_csv (x, y, class) as gnuplot's plot elements: a
 * marker and a colour per class, named in a legend, as Python's
 * scatter of step 48 has them: markers o, x and ^ (gnuplot's pt 7, 2
 * and 9) in orange, blue and green. Text the caller frees. */
static char *class_points(const char *points_csv)
{
    char *points = gnuplot_quoted(points_csv);
    char *elements = format_text(
        "for [k=0:2] %s using 1:($3 == k ? $2 : NaN) skip 1 "
        "with points pt marker[k + 1] ps 1 lc rgb colour[k + 1] "
        "title sprintf('class %%d', k)", points);
    free(points);
    return elements;
}

/* gnuplot's settings for a picture of classes: the CSV's separator, the
 * legend, the markers and colours of class_points, and a colour per
 * region, a light tint of its points' colour, so that a point on the
 * wrong side shows. */
static const char class_settings[] =
    "set datafile separator ','; set key outside right top; "
    "array marker[3] = [7, 2, 9]; "
    "array colour[3] = ['orange', 'blue', '#008000']; "
    "unset colorbox; set cbrange [0:2]; "
    "set palette defined (0 '#ffe4b8', 1 '#cdd6ff', 2 '#c6ecc6'); ";

/* gnuplot's terminal for to_file, or NULL with a message from who when
 * its extension names no format gnuplot is asked to draw. */
static const char *picture_terminal(const char *to_file, const char *who)
{
    const char *extension = strrchr(to_file, '.');
    const char *terminal = extension ? gnuplot_terminal(extension) : NULL;
    if (!terminal)
        fprintf(stderr, "%s: cannot draw %s: name it .svg or .png to "
                "choose the picture's format\n", who, to_file);
    return terminal;
}

/* Draws the points of points_csv, a marker and a colour per class,
 * into to_file (.svg or .png). Returns true when the picture is
 * written; false, with a message on stderr, when it is not. */
bool plot_classes(const char *points_csv, const char *to_file)
{
    const char *terminal = picture_terminal(to_file, "plot_classes");
    if (!terminal)
        return false;
    char *elements = class_points(points_csv);
    char *script = format_text("%sset terminal %s; plot %s",
                               class_settings, terminal, elements);
    char *argv[] = {"gnuplot", "-e", script, NULL};
    char *job = format_text("draw %s from %s", to_file, points_csv);
    bool drawn = run_program(argv, NULL, 0, to_file, "plot_classes", job,
                             "gnuplot-nox");
    free(job);
    free(script);
    free(elements);
    return drawn;
}

/* The grid of classes as bytes, row by row, for gnuplot; stops with an
 * error for a class that has no colour. The caller frees them. */
static unsigned char *class_bytes(const NdArray *classes)
{
    if (classes->ndim != 2 || !nd_dtype_is_integer(classes->dtype))
        nd_error("plot_decision_regions", "the classes must be a 2-D "
                 "integer array (rows, columns); got %d axes of %s",
                 classes->ndim, nd_dtype_name(classes->dtype));
    unsigned char *bytes = allocate((size_t)classes->size, 1,
                                    "plot_decision_regions");
    for (int64_t i = 0; i < classes->size; i++) {
        double k = nd_get_flat(classes, i);
        if (k < 0 || k > 2) {
            free(bytes);
            nd_error("plot_decision_regions", "class %g at row %lld, "
                     "column %lld; there are markers for classes 0, 1 "
                     "and 2", k, (long long)(i / classes->shape[1]),
                     (long long)(i % classes->shape[1]));
        }
        bytes[i] = (unsigned char)k;
    }
    return bytes;
}

/* Draws a classifier's decision regions under the data it learned
 * from, into to_file (.svg or .png): the grid of classes as an image,
 * its pixel (c, r) at (x0 + c h, y0 + r h), and over it the points of
 * points_csv as plot_classes draws them (Python: plt.contourf(xx, yy,
 * Z), then plt.scatter for each point). The classes go to gnuplot's
 * standard input, a byte each, so that no file of millions of numbers
 * is written. Borrows everything. Returns true when the picture is
 * written; false, with a message on stderr, when it is not. */
bool plot_decision_regions(const NdArray *classes, double x0, double y0,
                           double h, const char *points_csv,
                           const char *to_file)
{
    unsigned char *bytes = class_bytes(classes);
    const char *terminal = picture_terminal(to_file,
                                            "plot_decision_regions");
    if (!terminal) {
        free(bytes);
        return false;
    }
    int64_t rows = classes->shape[0], cols = classes->shape[1];
    char *elements = class_points(points_csv);
    char *script = format_text(
        "%sset xrange [%.17g:%.17g]; set yrange [%.17g:%.17g]; "
        "set terminal %s; "
        "plot '-' binary array=(%lld,%lld) format='%%uchar' "
        "origin=(%.17g,%.17g) dx=%.17g dy=%.17g with image notitle, %s",
        class_settings, x0 - h / 2, x0 + ((double)cols - 0.5) * h,
        y0 - h / 2, y0 + ((double)rows - 0.5) * h, terminal,
        (long long)cols, (long long)rows, x0, y0, h, h, elements);
    char *argv[] = {"gnuplot", "-e", script, NULL};
    char *job = format_text("draw %s from %s and a grid of %lld points",
                            to_file, points_csv,
                            (long long)classes->size);
    bool drawn = run_program(argv, bytes, (size_t)classes->size,
                             to_file, "plot_decision_regions", job,
                             "gnuplot-nox");
    free(job);
    free(script);
    free(elements);
    free(bytes);
    return drawn;
}

/* Draws the learning curve of the CSV file at csv_path, whose columns
 * are epoch, train loss, test loss, train accuracy and test accuracy,
 * into to_file (.svg or .png): the losses against the left axis, the
 * accuracies against the right one, from 0 to 1, each named in a
 * legend. Returns true when the picture is written; false, with a
 * message on stderr, when it is not. */
bool plot_learning_curve(const char *csv_path, const char *to_file)
{
    const char *terminal = picture_terminal(to_file, "plot_learning_curve");
    if (!terminal)
        return false;
    char *data = gnuplot_quoted(csv_path);
    /* from epoch 0.5, so that a run of one epoch has an x range */
    char *script = format_text(
        "set datafile separator ','; "
        "set key autotitle columnhead noenhanced opaque box left bottom; "
        "set xlabel 'epoch'; set xrange [0.5:*]; set xtics 1; "
        "set ylabel 'loss'; set yrange [0:*]; set ytics nomirror; "
        "set y2label 'accuracy'; set y2range [0:1]; set y2tics; "
        "set terminal %s; "
        "plot for [i=2:3] %s using 1:i with linespoints pt 7 dt 1, "
        "for [i=4:5] %s using 1:i axes x1y2 with linespoints pt 7 dt 2",
        terminal, data, data);
    char *argv[] = {"gnuplot", "-e", script, NULL};
    char *job = format_text("draw %s from %s", to_file, csv_path);
    bool drawn = run_program(argv, NULL, 0, to_file,
                             "plot_learning_curve", job, "gnuplot-nox");
    free(job);
    free(script);
    free(data);
    return drawn;
}

/* Draws image, a 2-D uint8 array (rows, cols), into to_file (.svg or
 * .png) as gray pixels, 0 black and 255 white, the first row at the
 * top, without axes (Python: plt.imshow(img, cmap='gray',
 * interpolation='nearest'), then plt.axis('off')). The pixels go to
 * gnuplot's standard input, a byte each, as plot_decision_regions's
 * classes do, from a host copy when the image is on the GPU. Borrows
 * everything. Returns true when the picture is written; false, with a
 * message on stderr, when it is not. */
bool plot_image(const NdArray *image, const char *to_file)
{
    if (image->ndim != 2 || image->dtype != ND_UINT8)
        nd_error("plot_image", "want a 2-D uint8 array (rows, cols) of "
                 "pixels; got %d axes of %s", image->ndim,
                 nd_dtype_name(image->dtype));
    const char *terminal = picture_terminal(to_file, "plot_image");
    if (!terminal)
        return false;
    long long rows = image->shape[0], cols = image->shape[1];
    char *script = format_text(
        "set terminal %s; "
        "unset key; unset border; unset tics; unset colorbox; "
        "set size ratio -1; set palette gray gamma 1; set cbrange [0:255]; "
        "set xrange [-0.5:%lld]; set yrange [-0.5:%lld]; "
        "plot '-' binary array=(%lld,%lld) format='%%uchar' flipy "
        "with image",
        terminal, cols - 1, rows - 1, cols, rows);
    char *argv[] = {"gnuplot", "-e", script, NULL};
    char *job = format_text("draw %s from an image of %lld x %lld pixels",
                            to_file, cols, rows);
    NdArray *pixels = as_numpy(image);      /* gnuplot reads the host */
    bool drawn = run_program(argv, pixels->data, (size_t)pixels->size,
                             to_file, "plot_image", job, "gnuplot-nox");
    nd_release(pixels);
    free(job);
    free(script);
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

/* ---- logsumexp */

/* log(sum(e^x)) along axis, kept as size 1: m + log(sum(e^(x - m)))
 * with m the maximum along axis, in Python's order (y = x - m; exp;
 * s = sum; log; m += s), so that the largest term is e^0 = 1 and none
 * overflows (Python: utils.logsumexp(x, axis)). Borrows x. */
NdArray *logsumexp(const NdArray *x, int axis)
{
    NdArray *m = nd_max(x, ND_AXES(axis), true);
    NdArray *y = nd_sub(x, m);
    NdArray *e = nd_exp(y);
    NdArray *s = nd_sum(e, ND_AXES(axis), true);
    NdArray *log_s = nd_log(s);
    nd_iadd(m, log_s);
    nd_release(log_s);
    nd_release(s);
    nd_release(e);
    nd_release(y);
    return m;
}

/* ---- the sizes of convolutions */

/* (input_size + 2 pad - kernel_size) // stride + 1: the positions of
 * the kernel's first row, 0, stride, ..., while the kernel fits. C's /
 * rounds towards zero, Python's // down: the same for a kernel that
 * fits, and the callers check that it does. */
int64_t get_conv_outsize(int64_t input_size, int64_t kernel_size,
                         int64_t stride, int64_t pad)
{
    return (input_size + pad * 2 - kernel_size) / stride + 1;
}

/* stride (size - 1) + kernel_size - 2 pad: the input size that a
 * convolution with these numbers takes to size. */
int64_t get_deconv_outsize(int64_t size, int64_t kernel_size,
                           int64_t stride, int64_t pad)
{
    return stride * (size - 1) + kernel_size - 2 * pad;
}
