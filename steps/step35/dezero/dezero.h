/* dezero.h - DeZero in C, the framework's one public header (Python:
 * import dezero). What each file holds:
 *
 *   memory.c       reference counts and autorelease pools
 *   core.c         Config, Variable, Function, backward, and the
 *                  functions: Square, Exp, Add, Mul, Neg, Sub, Div, Pow;
 *                  gradients are Variables, so backward can record a
 *                  graph of its own (create_graph)
 *   functions.c    the functions beyond arithmetic: Sin, Cos, Tanh
 *   utils.c        numerical_diff; drawing the graph with Graphviz;
 *                  writing data as CSV and plotting it with gnuplot
 *
 * Ownership: every Variable and Function belongs to the innermost
 * autorelease pool (open one with pool_new, free its objects with
 * pool_drain); retain keeps one beyond its pool, until a release.
 * Arrays follow nd.h's rule: arguments are borrowed, and an NdArray *
 * returned is a new reference, except where a comment says otherwise
 * (variable() takes over its data). */
#ifndef DEZERO_H
#define DEZERO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nd.h"

/* ================================================= memory.c */

typedef struct Object Object;

/* What all objects of one kind share (Python: the type every object
 * points to): how to free one, and what the cycle collector (step 32)
 * needs to know of it. */
typedef struct ObjectType {
    /* Frees self, at count 0: drops its references, frees its memory. */
    void (*destroy)(Object *self);
    /* Calls visit(referent, arg) for each reference self holds to
     * another object, once per reference. */
    void (*traverse)(Object *self,
                     void (*visit)(Object *referent, void *arg),
                     void *arg);
    /* Drops every reference self holds to other objects, leaving it
     * fit only to be destroyed: how the collector breaks a cycle. */
    void (*clear)(Object *self);
} ObjectType;

/* What every Variable and Function starts with: how many references to
 * it exist, and its type. (Every Python object starts with the same two
 * things.) */
struct Object {
    int refcount;
    const ObjectType *type;
    Object *next_doomed;        /* release()'s list of objects to free */
    Object *prev, *next;        /* the list of every object alive */
    int gc_refs;                /* for gc_collect: references from
                                 * outside the objects, then 0 for the
                                 * unreachable */
    Object *gc_work;            /* gc_collect's lists */
};

/* An autorelease pool (its fields are memory.c's). */
typedef struct Pool Pool;

/* calloc that stops with an error naming who when memory runs out. */
void *allocate(size_t count, size_t size, const char *who);
/* Adds a reference to object, a Variable or a Function; returns it. */
void *retain(void *object);
/* Drops a reference; frees the object at zero. Accepts NULL. */
void release(void *object);
/* Opens a pool, which becomes the innermost one. */
Pool *pool_new(void);
/* Hands the caller's reference to object over to the innermost pool. */
void *autorelease(void *object);
/* Releases every reference the pool holds and closes it. Only the
 * innermost pool can be drained. */
void pool_drain(Pool *pool);
/* A new zeroed object of size bytes, a struct that starts with an
 * Object, owned by the innermost pool; type->destroy frees it. */
void *object_new(size_t size, const ObjectType *type, const char *who);

/* Frees every group of objects that refer to one another and to which
 * nothing else refers: cycles, which reference counts never free
 * (Python: gc.collect()). Returns how many objects it freed. A pool
 * drain calls it when gc_request was called since the last one, and
 * the drain of the outermost pool always does. */
size_t gc_collect(void);
/* Asks for a gc_collect at the next pool_drain: called by what may
 * make cycles (backward with create_graph). */
void gc_request(void);

/* ================================================= core.c */

/* ---- configuration */

/* Settings that change how functions run (Python: class Config). */
typedef struct Config {
    bool enable_backprop;       /* record the graph, for backward */
} Config;

extern Config config;

/* Puts back the configuration saved in *saved (see USING_CONFIG). */
static inline void config_restore(Config *saved)
{
    config = *saved;
}

/* USING_CONFIG(enable_backprop, false) { ... } runs the block with a
 * setting changed, and restores the whole configuration when the block
 * is left: at its end, or by break, continue, return or goto, through
 * GCC's cleanup attribute. Not by longjmp. break and continue leave the
 * block itself (it is a loop that runs once), not an enclosing loop. */
#define USING_CONFIG(name, value)                                         \
    for (Config saved_config_ __attribute__((cleanup(config_restore))) = \
             config,                                                      \
         *once_ = (config.name = (value), &saved_config_);                \
         once_; once_ = NULL)

/* NO_GRAD { ... }: the block records no graph (Python: with no_grad()). */
#define NO_GRAD USING_CONFIG(enable_backprop, false)

/* ---- Variable */

typedef struct Function Function;

typedef struct Variable {
    Object object;              /* first: a Variable * is an Object * */
    NdArray *data;
    const char *name;           /* NULL, or borrowed text that outlives
                                 * the variable (a string literal) */
    struct Variable *grad;      /* dL/d(this variable), a reference;
                                 * NULL until set */
    Function *creator;          /* a reference to the function that made
                                 * it, which keeps the graph alive */
    int generation;             /* 0 for an input, creator's + 1 */
} Variable;

extern int variables_alive;     /* Variables made and not yet freed */

/* A new Variable holding data, owned by the innermost pool; it takes
 * over the caller's reference to data. */
Variable *variable(NdArray *data);
/* The properties of v's data (Python: v.shape, v.ndim, v.size, v.dtype,
 * len(v)). The shape has variable_ndim(v) entries. */
const int64_t *variable_shape(const Variable *v);
int variable_ndim(const Variable *v);
int64_t variable_size(const Variable *v);
NdDtype variable_dtype(const Variable *v);
int64_t variable_len(const Variable *v);
/* DeZero's repr(v), "variable(...)", as text the caller frees. */
char *variable_repr(const Variable *v);
/* Prints v and a newline, as Python's print(v). */
void variable_print(const Variable *v);
/* Forgets v's gradient: releases v's reference to it. */
void cleargrad(Variable *v);

/* ---- Function */

/* What all functions of one kind share: a name, how many outputs they
 * make, and the code of forward and backward. One constant table per
 * kind (Square, Add, ...) plays the role of a class. */
typedef struct FunctionClass {
    const char *name;
    int noutputs;               /* arrays forward makes: 1 for most */
    /* ys = f(xs): borrows the input arrays xs (one per input) and
     * stores a new array in each of ys[0 .. noutputs - 1]. */
    void (*forward)(Function *self, NdArray *xs[], NdArray *ys[]);
    /* gxs = dL/dxs from gys = dL/dys, computed with the functions
     * of this file (F_mul, ...), never on raw arrays, so that it can
     * be recorded as a graph: borrows gys (one per output) and stores
     * in gxs[i], for each input i that has a gradient (all of them,
     * for most functions), a Variable of the innermost pool or one of
     * gys. NULL: not written yet. */
    void (*backward)(Function *self, Variable *gys[], Variable *gxs[]);
} FunctionClass;

/* One function object: its class, and what it remembers of its call. */
struct Function {
    Object object;              /* first: a Function * is an Object * */
    const FunctionClass *cls;
    int ninputs;
    Variable **inputs;          /* owned array of references */
    int noutputs;
    Variable **outputs;         /* owned array of weak pointers: each
                                 * output sets its own to NULL when it
                                 * is freed */
    int generation;             /* the highest of its inputs' */
    unsigned long seen_in;      /* the last backward pass that met it */
};

extern int functions_alive;     /* Functions made and not yet freed */

/* A new Function of class cls, owned by the innermost pool. */
Function *function_new(const FunctionClass *cls);
/* The same in a zeroed block of size bytes: a struct that starts with a
 * Function and adds what its class keeps (PowFunction). */
Function *function_new_sized(const FunctionClass *cls, size_t size);
/* Records that f made v, one generation after f; v keeps f alive. */
void set_creator(Variable *v, Function *f);
/* Calls f on the n Variables of inputs (Python: f(*inputs)) and
 * returns the first output; f->outputs holds them all when the call is
 * recorded (config.enable_backprop). */
Variable *function_apply(Function *f, int n, Variable *inputs[]);

/* How many Variables a list holds: VARIABLE_COUNT(a, b) is 2. sizeof
 * only looks at the type of the array literal; nothing is evaluated. */
#define VARIABLE_COUNT(...) \
    ((int)(sizeof((Variable *[]){__VA_ARGS__}) / sizeof(Variable *)))

/* Calls f on the Variables listed: function_call(f, x0, x1) is Python's
 * f(x0, x1). The list becomes an array literal and its count. */
#define function_call(f, ...) \
    function_apply((f), VARIABLE_COUNT(__VA_ARGS__), \
                   (Variable *[]){__VA_ARGS__})

/* The gradients of f's inputs in its last call, gxs (Variables owned
 * by the innermost pool, or some of gys; NULL for an input that gets
 * none), from those of its outputs, gys (borrowed). Recorded as a
 * graph when config.enable_backprop is set. */
void function_backward(Function *f, Variable *gys[], Variable *gxs[]);

/* ---- operands: Variables, arrays and numbers */

/* The cases of as_variable: a Variable is itself; an array is shared
 * by a new Variable; a number becomes a 0-d float64 or int64 array. */
Variable *variable_itself(Variable *v);
Variable *variable_of_array(const NdArray *a);
Variable *variable_of_double(double value);
Variable *variable_of_long(long value);

/* x as a Variable, whatever x is (Python: as_variable(as_array(x))).
 * The compiler picks the case by x's static type; a type not listed is
 * a compile-time error. x is evaluated once: _Generic does not
 * evaluate the expression it selects on. */
#define as_variable(x) _Generic((x),                                     \
    Variable *: variable_itself,                                         \
    NdArray *: variable_of_array,                                        \
    const NdArray *: variable_of_array,                                  \
    double: variable_of_double,                                          \
    int: variable_of_long,                                               \
    long: variable_of_long)(x)

/* Whether x is a Variable, by its static type (x is not evaluated). */
#define is_variable(x) _Generic((x), Variable *: true, default: false)

/* ---- the functions: a constructor for each class (Python: Square()),
 * a function on Variables, and for arithmetic a macro that takes a
 * Variable, an array or a number for each operand */

Function *square_function(void);
Variable *F_square(Variable *x);                /* x^2 */
Function *exp_function(void);
Variable *F_exp(Variable *x);                   /* e^x */

Function *add_function(void);
Variable *add_variables(Variable *x0, Variable *x1);
/* a + b as Python's graph has it: when a is not a Variable, Python
 * calls b.__radd__(a), which is add(b, a), so b is the first input. */
static inline Variable *add_operands(Variable *a, Variable *b,
                                     bool a_is_variable)
{
    return a_is_variable ? add_variables(a, b) : add_variables(b, a);
}
/* y = a + b (Python: a + b, through __add__ and __radd__). */
#define F_add(a, b) \
    add_operands(as_variable(a), as_variable(b), is_variable(a))

Function *mul_function(void);
Variable *mul_variables(Variable *x0, Variable *x1);
/* a * b as Python's graph has it: when a is not a Variable, Python
 * calls b.__rmul__(a), which is mul(b, a), so b is the first input. */
static inline Variable *mul_operands(Variable *a, Variable *b,
                                     bool a_is_variable)
{
    return a_is_variable ? mul_variables(a, b) : mul_variables(b, a);
}
/* y = a * b (Python: a * b, through __mul__ and __rmul__). */
#define F_mul(a, b) \
    mul_operands(as_variable(a), as_variable(b), is_variable(a))

Function *neg_function(void);
Variable *neg_variable(Variable *x);
/* y = -a (Python: -a, through __neg__). */
#define F_neg(a) neg_variable(as_variable(a))

Function *sub_function(void);
Variable *sub_variables(Variable *x0, Variable *x1);
/* y = a - b (Python: a - b, through __sub__ and __rsub__). */
#define F_sub(a, b) sub_variables(as_variable(a), as_variable(b))

Function *div_function(void);
Variable *div_variables(Variable *x0, Variable *x1);
/* y = a / b (Python: a / b, through __truediv__ and __rtruediv__). */
#define F_div(a, b) div_variables(as_variable(a), as_variable(b))

/* A Pow function: a Function, and the exponent it keeps. */
typedef struct PowFunction {
    Function function;          /* first: a PowFunction * is a Function * */
    double c;                   /* the exponent */
    NdDtype c_dtype;            /* NumPy's dtype for it: int64 for x ** 3,
                                 * float64 for x ** 0.5 */
} PowFunction;

Function *pow_function(double c, NdDtype c_dtype);
Variable *pow_variable(Variable *x, double c, NdDtype c_dtype);

/* The dtype NumPy gives the exponent c: int64 for an integer, float64
 * for a double. Another type does not compile. */
#define exponent_dtype(c) \
    _Generic((c), int: ND_INT64, long: ND_INT64, double: ND_FLOAT64)

/* y = a ** c, where a may be a Variable, an array or a number, and c is
 * an integer or a double constant (Python: a ** c, through __pow__). */
#define F_pow(a, c) pow_variable(as_variable(a), (c), exponent_dtype(c))

/* ---- backpropagation */

/* The functions still to visit: an array that doubles when full, kept
 * sorted by generation. The top, at the end, is the highest generation
 * and, among equal generations, the function pushed last: the order
 * that Python's stable sort of the list after each append gives. */
typedef struct FunctionStack {
    Function **items;           /* owned array of borrowed functions */
    size_t count;
    size_t capacity;
} FunctionStack;

/* Puts f above every function of a lower or equal generation. */
void stack_push(FunctionStack *stack, Function *f);
/* Pushes f unless the backward pass number pass has pushed it before. */
void push_unseen(FunctionStack *stack, Function *f, unsigned long pass);
/* The function of the highest generation (of those, the one pushed
 * last); the stack must not be empty. */
Function *stack_pop(FunctionStack *stack);
/* Adds gx to x's gradient (x->grad + gx, a new Variable, by F_add);
 * borrows gx, and x keeps a reference to its new gradient. */
void accumulate_grad(Variable *x, Variable *gx);

/* How backward runs. Every field is false unless set, as Python's
 * keyword arguments of backward default to False. */
typedef struct BackwardOptions {
    bool retain_grad;           /* keep intermediate variables' grads */
    bool create_graph;          /* record backward's own computations,
                                 * so that the gradients can be
                                 * differentiated in turn */
} BackwardOptions;

/* Fills in the grad of every variable y depends on (Python:
 * y.backward(...)). The gradients left in the variables at the end
 * are held by the innermost pool too, and each variable keeps a
 * reference to its own; the others are freed as they are used up, as
 * Python frees them. With create_graph a gradient's graph leads back
 * to the variables it was computed from, often to the very variable
 * that holds it: a cycle of references, which the next pool drain
 * collects (gc_collect) once nothing outside it refers to it. */
void variable_backward(Variable *y, BackwardOptions options);

/* backward(y), or with options: backward(y, .retain_grad = true,
 * .create_graph = true), as Python's y.backward(retain_grad=True,
 * create_graph=True). */
#define backward(y, ...) \
    variable_backward((y), (BackwardOptions){__VA_ARGS__})

/* ================================================= functions.c */

/* Each function as in core.c: a constructor for its class (Python:
 * Sin()) and the function on a Variable (Python: F.sin(x)), whose
 * result belongs to the innermost pool. */

Function *sin_function(void);
Variable *F_sin(Variable *x);                   /* sin x */
Function *cos_function(void);
Variable *F_cos(Variable *x);                   /* cos x */
Function *tanh_function(void);
Variable *F_tanh(Variable *x);                  /* tanh x */

/* ================================================= utils.c */

/* The derivative of f at x by a central difference, (f(x + eps) -
 * f(x - eps)) / (2 eps), elementwise; a new array. */
NdArray *numerical_diff(Variable *(*f)(Variable *), const Variable *x,
                        double eps);

/* The graph behind output as DOT text, Graphviz's language (Python:
 * get_dot_graph): a node per variable and function it comes from,
 * labelled with the variable's name (verbose: also its shape and dtype)
 * or the function's class, and an edge along each input and output;
 * node ids are the objects' addresses. Borrows output; returns text
 * that the caller frees. */
char *get_dot_graph(const Variable *output, bool verbose);

/* Draws the graph behind output into to_file, in the format its
 * extension names, .png, .svg or .pdf (Python: plot_dot_graph): the DOT
 * text goes to tmp_graph.dot in the DeZero cache folder,
 * $DEZERO_CACHE_DIR or else ~/.dezero, and Graphviz's dot program draws
 * it. Returns true when the picture is written; false, with a message
 * on stderr, when it is not: dot not installed, dot failing, no cache
 * folder, no extension. */
bool plot_dot_graph(const Variable *output, bool verbose,
                    const char *to_file);

/* Writes text into the file at path, replacing it. Returns false, with
 * a message naming the file, when it cannot. Borrows both. */
bool write_text_file(const char *path, const char *text);

/* Writes ncolumns arrays of the same size into the file at path as CSV,
 * a column each, replacing the file: a header line of the names, then
 * a line per element, each value with 17 significant digits, enough to
 * read it back exactly (Python: what plt.plot is given). A name must
 * not hold a comma, a quote or a line break. Borrows everything.
 * Returns false, with a message naming the file, when it cannot write
 * it. */
bool write_csv(const char *path, int ncolumns, const char *const names[],
               const NdArray *const columns[]);

/* Draws the CSV file at csv_path, as write_csv writes it, into to_file,
 * whose extension names the format, .svg or .png: a line for each
 * column after the first, against the first, named in a legend by the
 * header (Python: plt.plot for each, then plt.legend and plt.savefig).
 * legend_at places the legend, in gnuplot's words: "bottom right"
 * (Python: loc='lower right'). The gnuplot program draws it. Borrows
 * the texts. Returns true when the picture is written; false, with a
 * message on stderr, when it is not: gnuplot not installed, gnuplot
 * failing, an extension it does not draw. */
bool plot_csv(const char *csv_path, const char *to_file,
              const char *legend_at);

#endif /* DEZERO_H */
