/* utils.c - helpers beside the core: numerical differentiation, which
 * checks the gradients backpropagation computes, and drawing the
 * computational graph with Graphviz. */
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

/* Runs `dot graph_path -T format` and waits for it, copying the picture
 * it writes on its standard output, through a pipe, into picture;
 * to_file names the picture in messages. Returns true when dot drew
 * it; false, with a message, when dot is not installed or failed. */
static bool draw_with_dot(const char *graph_path, const char *format,
                          FILE *picture, const char *to_file)
{
    char *argv[] = {"dot", (char *)graph_path, "-T", (char *)format,
                    NULL};
    int out_fds[2];
    if (pipe(out_fds) != 0) {
        fprintf(stderr, "plot_dot_graph: cannot make a pipe to dot: %s\n",
                strerror(errno));
        return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out_fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, out_fds[0]);
    posix_spawn_file_actions_addclose(&actions, out_fds[1]);
    pid_t pid;
    int error = posix_spawnp(&pid, "dot", &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out_fds[1]);
    if (error)
        close(out_fds[0]);
    if (error == ENOENT) {
        fprintf(stderr, "plot_dot_graph: cannot draw %s: the dot program "
                "of Graphviz is not installed (sudo apt-get install "
                "graphviz); the graph's DOT text is in %s\n", to_file,
                graph_path);
        return false;
    }
    if (error) {
        fprintf(stderr, "plot_dot_graph: cannot run dot: %s\n",
                strerror(error));
        return false;
    }
    char buffer[1 << 16];
    ssize_t n;
    while ((n = read(out_fds[0], buffer, sizeof buffer)) != 0)
        if (n > 0)
            fwrite(buffer, 1, (size_t)n, picture);
        else if (errno != EINTR)
            break;
    close(out_fds[0]);
    int status;
    if (waitpid(pid, &status, 0) < 0) {
        fprintf(stderr, "plot_dot_graph: waiting for dot: %s\n",
                strerror(errno));
        return false;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "plot_dot_graph: dot could not draw %s from %s "
                "(-T %s)\n", to_file, graph_path, format);
        return false;
    }
    return true;
}

/* Draws the graph of graph_path into to_file with dot, whole or not at
 * all (common/tempfile.h): this program writes the file, under a
 * temporary name renamed to to_file once whole, and checks every write,
 * as dot does not check all of its own (a full disk can leave its SVG
 * cut short, exit status 0). An earlier to_file is kept when anything
 * fails. Returns true when the picture is written; false, with a
 * message, when it is not. */
static bool run_dot(const char *graph_path, const char *format,
                    const char *to_file)
{
    char *temporary;
    FILE *picture = nd_create_file(to_file, &temporary);
    if (!picture) {
        fprintf(stderr, "plot_dot_graph: cannot write %s: %s\n", to_file,
                strerror(errno));
        return false;
    }
    bool drawn = draw_with_dot(graph_path, format, picture, to_file);
    char problem[512];
    if (!nd_close_file(picture, temporary, to_file, drawn, problem,
                       sizeof problem)) {
        if (drawn)
            fprintf(stderr, "plot_dot_graph: %s\n", problem);
        return false;
    }
    return true;
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
