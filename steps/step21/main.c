/* Step 21: arithmetic on variables (2).
 *
 * F_add and F_mul take a Variable, an array or a number on either side:
 * C11's _Generic picks, by the operand's type, how to turn it into a
 * Variable. F_mul(3.0, x) is Python's 3.0 * x. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd.h"

/* calloc that stops the program when memory runs out, as every
 * constructor here does: count zeroed elements of size bytes. */
void *allocate(size_t count, size_t size, const char *who)
{
    void *p = calloc(count, size);
    if (!p)
        nd_error(who, "out of memory");
    return p;
}

/* ---- objects: reference counts and autorelease pools */

/* What every Variable and Function starts with: how many references to
 * it exist, and how to free it when none is left. (Every Python object
 * starts with the same two things.) */
typedef struct Object {
    int refcount;
    void (*destroy)(struct Object *self);   /* frees it, at count 0 */
    struct Object *next_doomed; /* release()'s list of objects to free */
} Object;

/* Adds a reference to object, a Variable or a Function; returns it. */
void *retain(void *object)
{
    ((Object *)object)->refcount++;
    return object;
}

/* Objects whose count has fallen to zero, waiting to be destroyed. */
static Object *doomed;

/* Drops a reference to object; at zero the object is destroyed, which
 * drops its own references and may free more objects. Those wait in a
 * list rather than being destroyed by a call inside this one, so a long
 * chain is freed by a loop, not by a recursion as deep as the chain.
 * Accepts NULL. */
void release(void *object)
{
    static bool destroying;     /* the loop below is running */
    Object *o = object;
    if (!o || --o->refcount > 0)
        return;
    o->next_doomed = doomed;
    doomed = o;
    if (destroying)
        return;                 /* the running loop will get to it */
    destroying = true;
    while (doomed) {
        Object *d = doomed;
        doomed = d->next_doomed;
        d->destroy(d);
    }
    destroying = false;
}

/* An autorelease pool holds one reference to each object made while it
 * is the innermost pool, and releases them all when drained. */
typedef struct Pool {
    Object **objects;           /* owned array; a reference to each */
    size_t count;
    size_t capacity;
    struct Pool *outer;         /* the pool that was innermost before */
} Pool;

static Pool *innermost_pool;

/* Opens a new pool, which becomes the innermost one. Close it with
 * pool_drain(). */
Pool *pool_new(void)
{
    Pool *pool = allocate(1, sizeof *pool, "pool_new");
    pool->outer = innermost_pool;
    innermost_pool = pool;
    return pool;
}

/* Hands the caller's reference to object over to the innermost pool.
 * Returns object. */
void *autorelease(void *object)
{
    Pool *pool = innermost_pool;
    if (!pool)
        nd_error("autorelease", "no pool is open; call pool_new() first");
    if (pool->count == pool->capacity) {
        size_t capacity = pool->capacity ? 2 * pool->capacity : 64;
        Object **objects = realloc(pool->objects,
                                   capacity * sizeof *objects);
        if (!objects)
            nd_error("autorelease", "out of memory");
        pool->objects = objects;
        pool->capacity = capacity;
    }
    pool->objects[pool->count++] = object;
    return object;
}

/* Releases every reference the pool holds, newest first, and closes
 * it; the pool that was innermost before it is innermost again. Only
 * the innermost pool can be drained. */
void pool_drain(Pool *pool)
{
    if (pool != innermost_pool)
        nd_error("pool_drain", "the pool is not the innermost one; drain "
                 "the pools opened after it first");
    while (pool->count > 0)
        release(pool->objects[--pool->count]);
    innermost_pool = pool->outer;
    free(pool->objects);
    free(pool);
}

/* A new zeroed object of size bytes (a struct that starts with an
 * Object), whose one reference belongs to the innermost pool; destroy
 * frees it when its count falls to zero. who names the caller in
 * errors. */
void *object_new(size_t size, void (*destroy)(Object *), const char *who)
{
    if (!innermost_pool)
        nd_error(who, "no autorelease pool is open; call pool_new() "
                 "first");
    Object *o = allocate(1, size, who);
    o->refcount = 1;
    o->destroy = destroy;
    return autorelease(o);
}

/* ---- configuration */

/* Settings that change how functions run (Python: class Config). */
typedef struct Config {
    bool enable_backprop;       /* record the graph, for backward */
} Config;

Config config = {.enable_backprop = true};

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
    NdArray *grad;              /* dL/d(this variable), NULL until set */
    Function *creator;          /* a reference to the function that made
                                 * it, which keeps the graph alive */
    int generation;             /* 0 for an input, creator's + 1 */
} Variable;

int variables_alive;            /* Variables made and not yet freed */

static void variable_destroy(Object *object);

/* A new Variable holding data, owned by the innermost pool. It takes
 * over the caller's reference to data, so variable(nd_scalar(1.0))
 * leaks nothing. The parameter's type keeps out anything but an array;
 * NULL, which it lets in, stops here. */
Variable *variable(NdArray *data)
{
    if (!data)
        nd_error("variable", "NULL is not supported; data must point to "
                 "an NdArray");
    Variable *v = object_new(sizeof *v, variable_destroy, "variable");
    variables_alive++;
    v->data = data;
    v->name = NULL;
    v->grad = NULL;
    v->creator = NULL;          /* none: an input the user made */
    v->generation = 0;
    return v;
}

/* The properties of v's data, asked of v (Python: v.shape, v.ndim,
 * v.size, v.dtype). The shape has variable_ndim(v) entries. */
const int64_t *variable_shape(const Variable *v)
{
    return v->data->shape;
}

int variable_ndim(const Variable *v)
{
    return v->data->ndim;
}

int64_t variable_size(const Variable *v)
{
    return v->data->size;
}

NdDtype variable_dtype(const Variable *v)
{
    return v->data->dtype;
}

/* The length of v's first axis (Python: len(v)); a 0-d variable has
 * none. */
int64_t variable_len(const Variable *v)
{
    if (v->data->ndim == 0)
        nd_error("variable_len", "len() of a 0-d variable");
    return v->data->shape[0];
}

/* DeZero's repr(v): "variable(" + NumPy's str of the data + ")", the
 * lines after the first indented by 9, the length of "variable(", so
 * that the rows of a matrix line up. Returns text the caller frees. */
char *variable_repr(const Variable *v)
{
    char *data = nd_str_indented(v->data, 9);
    size_t size = strlen(data) + sizeof "variable()";
    char *text = allocate(size, 1, "variable_repr");
    snprintf(text, size, "variable(%s)", data);
    free(data);
    return text;
}

/* Prints v and a newline, as Python's print(v). */
void variable_print(const Variable *v)
{
    char *text = variable_repr(v);
    puts(text);
    free(text);
}

/* Forgets v's gradient, so that the next backward starts it afresh. */
void cleargrad(Variable *v)
{
    nd_release(v->grad);
    v->grad = NULL;
}

/* What all functions of one kind share: a name, how many outputs they
 * make, and the code of forward and backward. One constant table per
 * kind (Square, Add, ...) plays the role of a class. */
typedef struct FunctionClass {
    const char *name;
    int noutputs;               /* arrays forward makes: 1 for most */
    /* ys = f(xs): borrows the input arrays xs (one per input) and
     * stores a new array in each of ys[0 .. noutputs - 1]. */
    void (*forward)(Function *self, NdArray *xs[], NdArray *ys[]);
    /* gxs = dL/dxs from gys = dL/dys: borrows gys (one per output)
     * and stores a new array in gxs[i] for each input i that has a
     * gradient (all of them, for most functions). NULL: not written
     * yet. */
    void (*backward)(Function *self, NdArray *gys[], NdArray *gxs[]);
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

int functions_alive;            /* Functions made and not yet freed */

/* Frees f when nothing refers to it any more: drops its references to
 * its inputs. (Its outputs are gone: each held a reference to f.) */
static void function_destroy(Object *object)
{
    Function *f = (Function *)object;
    for (int i = 0; i < f->ninputs; i++)
        release(f->inputs[i]);
    free(f->inputs);
    free(f->outputs);
    free(f);
    functions_alive--;
}

/* A new Function of class cls, owned by the innermost pool. */
Function *function_new(const FunctionClass *cls)
{
    Function *f = object_new(sizeof *f, function_destroy, "function_new");
    functions_alive++;
    f->cls = cls;
    return f;
}

/* Frees v when nothing refers to it any more: clears the weak pointer
 * its creator has to it, and drops its references to its arrays and
 * to its creator. */
static void variable_destroy(Object *object)
{
    Variable *v = (Variable *)object;
    Function *f = v->creator;
    for (int i = 0; f && i < f->noutputs; i++)
        if (f->outputs[i] == v)
            f->outputs[i] = NULL;
    release(f);
    nd_release(v->data);
    nd_release(v->grad);
    free(v);
    variables_alive--;
}

/* Records that f made v, one generation after f; v keeps f alive. */
void set_creator(Variable *v, Function *f)
{
    v->creator = retain(f);
    v->generation = f->generation + 1;
}

/* Calls f on the n Variables of inputs (Python: f(*inputs)). Borrows
 * inputs. Returns the first output, the only one for most functions.
 * With config.enable_backprop f records the call: it keeps a reference
 * to each input, f->outputs holds all the outputs, and they know f. */
Variable *function_apply(Function *f, int n, Variable *inputs[])
{
    int m = f->cls->noutputs;
    if (n < 1 || m < 1)
        nd_error("function_apply", "%s needs at least one input and one "
                 "output, got %d and %d", f->cls->name, n, m);
    NdArray *xs[n], *ys[m];     /* arrays whose length is known now */
    for (int i = 0; i < n; i++)
        xs[i] = inputs[i]->data;
    f->cls->forward(f, xs, ys);

    Variable **outputs = allocate(m, sizeof *outputs, "function_apply");
    for (int i = 0; i < m; i++)
        outputs[i] = variable(ys[i]);
    Variable *output = outputs[0];
    if (!config.enable_backprop) {      /* no graph to record */
        free(outputs);
        return output;
    }

    f->generation = inputs[0]->generation;
    for (int i = 1; i < n; i++)
        if (inputs[i]->generation > f->generation)
            f->generation = inputs[i]->generation;
    for (int i = 0; i < m; i++)
        set_creator(outputs[i], f);
    f->ninputs = n;
    f->inputs = allocate(n, sizeof *f->inputs, "function_apply");
    for (int i = 0; i < n; i++)
        f->inputs[i] = retain(inputs[i]);
    f->noutputs = m;
    f->outputs = outputs;
    return output;
}

/* How many Variables a list holds: VARIABLE_COUNT(a, b) is 2. sizeof
 * only looks at the type of the array literal; nothing is evaluated. */
#define VARIABLE_COUNT(...) \
    ((int)(sizeof((Variable *[]){__VA_ARGS__}) / sizeof(Variable *)))

/* Calls f on the Variables listed: function_call(f, x0, x1) is Python's
 * f(x0, x1). The list becomes an array literal and its count. */
#define function_call(f, ...) \
    function_apply((f), VARIABLE_COUNT(__VA_ARGS__), \
                   (Variable *[]){__VA_ARGS__})

/* The gradients of f's inputs in its last call, gxs (new arrays, one
 * per input; NULL for an input that gets none), from those of its
 * outputs, gys (borrowed). */
void function_backward(Function *f, NdArray *gys[], NdArray *gxs[])
{
    if (!f->cls->backward)
        nd_error("function_backward", "%s has no backward",
                 f->cls->name);
    for (int i = 0; i < f->ninputs; i++)
        gxs[i] = NULL;
    f->cls->backward(f, gys, gxs);
}

/* ---- operands: Variables, arrays and numbers */

/* The cases of as_variable. A Variable is itself. An array is wrapped
 * in a new Variable that shares it (its count, not its values, changes:
 * hence the cast). A number becomes a 0-d array of the dtype NumPy
 * gives a Python number: float64 for a double, int64 for an integer. */
Variable *variable_itself(Variable *v)
{
    return v;
}

Variable *variable_of_array(const NdArray *a)
{
    return variable(nd_retain((NdArray *)a));
}

Variable *variable_of_double(double value)
{
    return variable(nd_scalar(value));
}

Variable *variable_of_long(long value)
{
    return variable(nd_scalar_of(ND_INT64, (double)value));
}

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

/* ---- Square: y = x^2, dy/dx = 2x */

static void square_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_mul(xs[0], xs[0]);   /* x ** 2, computed by NumPy as x*x */
}

static void square_backward(Function *self, NdArray *gys[],
                            NdArray *gxs[])
{
    const NdArray *x = self->inputs[0]->data;
    NdArray *two = nd_scalar_of(ND_INT64, 2);   /* Python's int 2 */
    NdArray *two_x = nd_mul(two, x);
    gxs[0] = nd_mul(two_x, gys[0]);             /* 2 * x * gy */
    nd_release(two);
    nd_release(two_x);
}

static const FunctionClass square_class = {
    .name = "Square",
    .noutputs = 1,
    .forward = square_forward,
    .backward = square_backward,
};

/* A new Square function (Python: Square()). */
Function *square_function(void)
{
    return function_new(&square_class);
}

/* y = x^2 (Python: square(x)): a new Square, called on x. */
Variable *F_square(Variable *x)
{
    return function_call(square_function(), x);
}

/* ---- Exp: y = e^x, dy/dx = e^x */

static void exp_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_exp(xs[0]);
}

static void exp_backward(Function *self, NdArray *gys[], NdArray *gxs[])
{
    const NdArray *x = self->inputs[0]->data;
    NdArray *exp_x = nd_exp(x);
    gxs[0] = nd_mul(exp_x, gys[0]);             /* e^x * gy */
    nd_release(exp_x);
}

static const FunctionClass exp_class = {
    .name = "Exp",
    .noutputs = 1,
    .forward = exp_forward,
    .backward = exp_backward,
};

/* A new Exp function (Python: Exp()). */
Function *exp_function(void)
{
    return function_new(&exp_class);
}

/* y = e^x (Python: exp(x)): a new Exp, called on x. */
Variable *F_exp(Variable *x)
{
    return function_call(exp_function(), x);
}

/* ---- Add: y = x0 + x1, dy/dx0 = dy/dx1 = 1 */

static void add_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_add(xs[0], xs[1]);
}

/* Both inputs get gy itself: one array, shared by two references. */
static void add_backward(Function *self, NdArray *gys[], NdArray *gxs[])
{
    (void)self;
    gxs[0] = nd_retain(gys[0]);
    gxs[1] = nd_retain(gys[0]);
}

static const FunctionClass add_class = {
    .name = "Add",
    .noutputs = 1,
    .forward = add_forward,
    .backward = add_backward,
};

/* A new Add function (Python: Add()). */
Function *add_function(void)
{
    return function_new(&add_class);
}

/* y = x0 + x1 for two Variables: a new Add, called on both. */
Variable *add_variables(Variable *x0, Variable *x1)
{
    return function_call(add_function(), x0, x1);
}

/* a + b as Python's graph has it: when a is not a Variable, Python
 * calls b.__radd__(a), which is add(b, a), so b is the first input. */
static inline Variable *add_operands(Variable *a, Variable *b,
                                     bool a_is_variable)
{
    return a_is_variable ? add_variables(a, b) : add_variables(b, a);
}

/* y = a + b, where a and b may each be a Variable, an array or a number
 * (Python: a + b, through Variable's __add__ and __radd__). */
#define F_add(a, b) \
    add_operands(as_variable(a), as_variable(b), is_variable(a))

/* ---- Mul: y = x0 * x1, dy/dx0 = x1, dy/dx1 = x0 */

static void mul_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_mul(xs[0], xs[1]);
}

/* Each input's gradient is gy times the other input. */
static void mul_backward(Function *self, NdArray *gys[], NdArray *gxs[])
{
    const NdArray *x0 = self->inputs[0]->data;
    const NdArray *x1 = self->inputs[1]->data;
    gxs[0] = nd_mul(gys[0], x1);
    gxs[1] = nd_mul(gys[0], x0);
}

static const FunctionClass mul_class = {
    .name = "Mul",
    .noutputs = 1,
    .forward = mul_forward,
    .backward = mul_backward,
};

/* A new Mul function (Python: Mul()). */
Function *mul_function(void)
{
    return function_new(&mul_class);
}

/* y = x0 * x1 for two Variables: a new Mul, called on both. */
Variable *mul_variables(Variable *x0, Variable *x1)
{
    return function_call(mul_function(), x0, x1);
}

/* a * b as Python's graph has it: when a is not a Variable, Python
 * calls b.__rmul__(a), which is mul(b, a), so b is the first input. */
static inline Variable *mul_operands(Variable *a, Variable *b,
                                     bool a_is_variable)
{
    return a_is_variable ? mul_variables(a, b) : mul_variables(b, a);
}

/* y = a * b, where a and b may each be a Variable, an array or a number
 * (Python: a * b, through Variable's __mul__ and __rmul__). */
#define F_mul(a, b) \
    mul_operands(as_variable(a), as_variable(b), is_variable(a))

/* ---- numerical differentiation */

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
void stack_push(FunctionStack *stack, Function *f)
{
    if (stack->count == stack->capacity) {
        size_t capacity = stack->capacity ? 2 * stack->capacity : 16;
        Function **items = realloc(stack->items, capacity * sizeof *items);
        if (!items) {
            fprintf(stderr, "stack_push: out of memory\n");
            exit(1);
        }
        stack->items = items;
        stack->capacity = capacity;
    }
    size_t i = stack->count++;
    while (i > 0 && stack->items[i - 1]->generation > f->generation) {
        stack->items[i] = stack->items[i - 1];      /* make room below */
        i--;
    }
    stack->items[i] = f;
}

/* Pushes f unless this backward pass has pushed it before (Python's
 * seen_set, kept in the functions: f->seen_in is the last pass). */
void push_unseen(FunctionStack *stack, Function *f, unsigned long pass)
{
    if (f->seen_in == pass)
        return;
    f->seen_in = pass;
    stack_push(stack, f);
}

/* The function of the highest generation (of those, the one pushed
 * last); the stack must not be empty. */
Function *stack_pop(FunctionStack *stack)
{
    return stack->items[--stack->count];
}

/* Adds gx to x's gradient, taking over the reference to gx. The sum is
 * a new array: x->grad may be the very array of another variable's
 * gradient (Add passes gy on as it is), so it is never added to in
 * place. */
void accumulate_grad(Variable *x, NdArray *gx)
{
    if (!x->grad) {
        x->grad = gx;
        return;
    }
    NdArray *sum = nd_add(x->grad, gx);
    nd_release(x->grad);
    nd_release(gx);
    x->grad = sum;
}

/* How backward runs. Every field is false unless set, as Python's
 * keyword arguments of backward default to False. */
typedef struct BackwardOptions {
    bool retain_grad;           /* keep intermediate variables' grads */
} BackwardOptions;

/* Fills in the grad of every variable that y depends on, from y->grad
 * (ones of y's shape and dtype when it is NULL): each function, taken
 * from the stack in order of generation, turns its outputs' grads into
 * its inputs' grads, which are added to what the inputs already have,
 * and each input's creator is pushed to be visited, once. Then, unless
 * options.retain_grad, the function's outputs forget their grads: only
 * the variables no function made (the inputs) keep theirs. */
void variable_backward(Variable *y, BackwardOptions options)
{
    static unsigned long passes;    /* backward passes so far */
    unsigned long pass = ++passes;
    if (!y->grad)
        y->grad = nd_ones_like(y->data);        /* dy/dy = 1 */
    FunctionStack funcs = {0};
    if (y->creator)
        push_unseen(&funcs, y->creator, pass);
    while (funcs.count > 0) {
        Function *f = stack_pop(&funcs);
        NdArray *gys[f->noutputs], *gxs[f->ninputs];
        for (int i = 0; i < f->noutputs; i++) {
            Variable *y = f->outputs[i];        /* NULL once freed */
            gys[i] = y ? y->grad : NULL;
        }
        function_backward(f, gys, gxs);
        for (int i = 0; i < f->ninputs; i++) {
            Variable *x = f->inputs[i];
            if (!gxs[i])
                continue;       /* an input without a gradient */
            accumulate_grad(x, gxs[i]);
            if (x->creator)
                push_unseen(&funcs, x->creator, pass);
        }
        if (!options.retain_grad)
            for (int i = 0; i < f->noutputs; i++)
                if (f->outputs[i])
                    cleargrad(f->outputs[i]);
    }
    free(funcs.items);
}

/* backward(y), or with options: backward(y, .retain_grad = true), as
 * Python's y.backward(retain_grad=True). */
#define backward(y, ...) \
    variable_backward((y), (BackwardOptions){__VA_ARGS__})

/* ---- the program */

/* The Python program adds an array, a float, and computes 3.0 * x + 1.0
 * (Variable's __rmul__ and __radd__, and NumPy deferring to Variable).
 * In C each operand just goes through as_variable. */
int main(void)
{
    Pool *pool = pool_new();
    Variable *x = variable(nd_scalar(2.0));
    NdArray *three = nd_scalar(3.0);
    Variable *y = F_add(x, three);          /* x + np.array(3.0) */
    nd_release(three);                      /* its Variable holds one */
    variable_print(y);

    y = F_add(x, 3.0);                      /* x + 3.0 */
    variable_print(y);

    y = F_add(F_mul(3.0, x), 1.0);          /* 3.0 * x + 1.0 */
    variable_print(y);

    /* A float is not one of the types F_add takes: the compiler refuses
     * it (build with -DSHOW_FLOAT_OPERAND to see it). */
#ifdef SHOW_FLOAT_OPERAND
    y = F_add(x, 2.0f);
#endif
    pool_drain(pool);
    return 0;
}
