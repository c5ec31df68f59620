/* dezero.h - DeZero in C, the framework's one public header (Python:
 * import dezero). What each file holds:
 *
 *   memory.c       reference counts and autorelease pools
 *   core.c         Config, Variable, Function, backward, and the
 *                  functions: Square, Exp, Add, Mul, Neg, Sub, Div, Pow,
 *                  the binary ones broadcasting their operands;
 *                  gradients are Variables, so backward can record a
 *                  graph of its own (create_graph); unchain and
 *                  unchain_backward, which cut a graph off
 *   functions.c    the functions beyond arithmetic: Sin, Cos, Tanh;
 *                  Reshape and Transpose, which change the shape;
 *                  GetItem and GetItemGrad, indexing; Sum, BroadcastTo
 *                  and SumTo; MatMul, the matrix product; the parts of a
 *                  neural network: Linear, Sigmoid, ReLU, Softmax, Clip,
 *                  Log, MeanSquaredError and SoftmaxCrossEntropy;
 *                  accuracy; dropout; Max and Min; and the rest of the
 *                  final package: expand_dims, flatten, average,
 *                  LogSoftmax, LeakyReLU, the binary cross-entropies,
 *                  BatchNorm, embed_id; concat, which SqueezeNet needs
 *   functions_conv.c
 *                  the functions of convolutional networks: im2col and
 *                  col2im, conv2d (simple, and as one matrix product),
 *                  deconv2d, max pooling (simple, and keeping where the
 *                  maxima are), average pooling
 *   cuda.c         whether the GPU can be used, and why not; the device
 *                  of an array or a Variable; arrays moved to the host
 *                  or to the GPU (Python: dezero/cuda.py)
 *   utils.c        numerical_diff; drawing the graph with Graphviz;
 *                  writing data as CSV and plotting it with gnuplot, a
 *                  classifier's decision regions, a learning curve, an
 *                  image; reshape_sum_backward, for Sum; logsumexp;
 *                  Pair, get_conv_outsize and get_deconv_outsize, the
 *                  sizes of convolutions
 *   layers.c       Layer, which holds parameters and other layers, and
 *                  saves their weights to a file and loads them back;
 *                  the Linear layer, the Conv2d and Deconv2d layers,
 *                  the RNN and LSTM layers; EmbedID and BatchNorm
 *   models.c       Model, a layer to be trained as a whole, which can
 *                  draw its graph; MLP; VGG16; ResNet; SqueezeNet;
 *                  Sequential
 *   optimizers.c   Optimizer, which updates a model's parameters: SGD,
 *                  MomentumSGD, AdaGrad, AdaDelta, Adam; and the hooks
 *                  WeightDecay, ClipGrad, FreezeParam
 *   transforms.c   preprocessing of items: Compose, Normalize, Flatten,
 *                  AsType and ToFloat
 *   datasets.c     the data to learn from: Dataset, get_spiral, Spiral,
 *                  MNIST, 70,000 handwritten digits; ImageNet's
 *                  class names; and SinCurve, a noisy sine wave
 *   dataloaders.c  DataLoader, which gives a dataset's mini-batches,
 *                  and SeqDataLoader, which gives them in order
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
    size_t size;                /* its bytes, for object_free */
};

/* An autorelease pool (its fields are memory.c's). */
typedef struct Pool Pool;

/* calloc that stops with an error naming who when memory runs out. */
void *allocate(size_t count, size_t size, const char *who);
/* allocate(1, size, who) for a block that block_free gives back, which
 * keeps it for the next block of that size: for the small blocks made
 * and freed by the thousand. */
void *block_new(size_t size, const char *who);
void block_free(void *block, size_t size);
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
 * Object, owned by the innermost pool; type->destroy frees it with
 * object_free. */
void *object_new(size_t size, const ObjectType *type, const char *who);
/* Gives back the memory of an object made by object_new. */
void object_free(Object *object);

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
    bool train;                 /* training, not testing: dropout drops,
                                 * batch_norm uses the batch's statistics
                                 * (TEST_MODE turns it off) */
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

/* TEST_MODE { ... }: the block runs the network as it is tested, or
 * used, rather than trained: dropout keeps every element, and
 * batch_norm uses the running statistics (Python: with test_mode()). */
#define TEST_MODE USING_CONFIG(train, false)

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

/* A Variable to be trained: a layer's weight or bias (Python: class
 * Parameter(Variable), which adds nothing but its type). Its Variable
 * comes first, so &p->variable, which as_variable takes, is p itself;
 * layers collect Parameter pointers, and the type says what they are.
 * Its data is NULL until the layer that owns it makes it. */
typedef struct Parameter {
    Variable variable;
} Parameter;

/* A new Variable holding data, owned by the innermost pool; it takes
 * over the caller's reference to data. */
Variable *variable(NdArray *data);
/* A new Parameter holding data (NULL: none yet), named name, owned by
 * the innermost pool; it takes over the caller's reference to data.
 * name is borrowed text that outlives it (a string literal). */
Parameter *parameter(NdArray *data, const char *name);
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
/* Moves v's data to the host or to the GPU (Python: v.to_cpu(),
 * v.to_gpu()): v holds a copy there from now on, and its computations
 * run there. Data not made yet (a layer's weight before its first call)
 * stays NULL, and the gradient stays where it is, as in Python.
 * variable_to_gpu stops with the reason when the GPU cannot be used. */
void variable_to_cpu(Variable *v);
void variable_to_gpu(Variable *v);

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
    /* Drops what a function of this class keeps besides its struct
     * (GetItem's index arrays), when the function is freed; NULL for a
     * class that keeps nothing of the kind. */
    void (*destroy)(Function *self);
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

/* The cases of as_variable: a Variable is itself, and so is a
 * Parameter, seen as its Variable; an array is shared
 * by a new Variable; a number becomes a 0-d float64 or int64 array. */
Variable *variable_itself(Variable *v);
Variable *variable_of_parameter(Parameter *p);
Variable *variable_of_array(const NdArray *a);
Variable *variable_of_double(double value);
Variable *variable_of_long(long value);

/* x as a Variable, whatever x is (Python: as_variable(as_array(x))).
 * The compiler picks the case by x's static type; a type not listed is
 * a compile-time error. x is evaluated once: _Generic does not
 * evaluate the expression it selects on.
 *
 * One rule for every F_ function, as Python's Function.__call__ passes
 * every input through as_variable: each operand may be a Variable, an
 * array or a number. Only a macro can choose by static type, so each
 * F_ name is a macro that converts its operands and calls the function
 * on Variables. For arithmetic (step 21) that function has a name of
 * its own, add_variables; for the others it has the macro's name, as
 * the C library's getc is both a macro and a function:
 *
 *     Variable *F_sin(Variable *x);
 *     #define F_sin(x) (F_sin)(as_variable(x))
 *
 * F_sin(0.5) is the macro. In its expansion, and wherever the name is
 * not followed by "(", as in (F_sin)(x) or numerical_diff(F_sin, ...),
 * F_sin is the function on a Variable, which has an address to pass:
 * a macro's name is not expanded again inside its own expansion. */
#define as_variable(x) _Generic((x),                                     \
    Variable *: variable_itself,                                         \
    Parameter *: variable_of_parameter,                                  \
    NdArray *: variable_of_array,                                        \
    const NdArray *: variable_of_array,                                  \
    double: variable_of_double,                                          \
    int: variable_of_long,                                               \
    long: variable_of_long)(x)

/* NULL, for an operand that may be absent (Python: None). */
static inline Variable *variable_none(void *null)
{
    (void)null;
    return NULL;
}

/* x as a Variable, or NULL for NULL: for an optional operand such as
 * F_linear's bias (Python: b=None). NULL is ((void *)0), a void *. */
#define as_optional_variable(x) _Generic((x),                            \
    void *: variable_none,                                               \
    Variable *: variable_itself,                                         \
    Parameter *: variable_of_parameter,                                  \
    NdArray *: variable_of_array,                                        \
    const NdArray *: variable_of_array,                                  \
    double: variable_of_double,                                          \
    int: variable_of_long,                                               \
    long: variable_of_long)(x)

/* Whether x is a Variable, by its static type (x is not evaluated). */
#define is_variable(x) _Generic((x), Variable *: true, default: false)

/* Whether x is a number, by its static type (x is not evaluated). */
#define is_number(x) \
    _Generic((x), double: true, int: true, long: true, default: false)

/* value as a 0-d array of dtype on device, where the array it meets
 * lives (Python: as_array(x, array_module) of a number x). A new
 * array. */
NdArray *as_array(double value, NdDtype dtype, NdDevice device);

/* The operands a and b of an arithmetic operator, as Python's add, mul,
 * sub and div take them: a number among them, made into a Variable by
 * as_variable for this call only, has its array moved to the device of
 * the other operand (Python: x1 = as_array(x1,
 * cuda.get_array_module(x0.data))), so that 2 * x runs where x is. */
void operands_on_one_device(Variable *a, bool a_is_number, Variable *b,
                            bool b_is_number);

/* ---- the functions: a constructor for each class (Python: Square()),
 * a function on Variables, and a macro that takes a Variable, an array
 * or a number for each operand */

Function *square_function(void);
Variable *F_square(Variable *x);                /* x^2 */
#define F_square(x) (F_square)(as_variable(x))
Function *exp_function(void);
Variable *F_exp(Variable *x);                   /* e^x */
#define F_exp(x) (F_exp)(as_variable(x))

Function *add_function(void);
Variable *add_variables(Variable *x0, Variable *x1);
/* a + b as Python's graph has it: when a is not a Variable, Python
 * calls b.__radd__(a), which is add(b, a), so b is the first input. */
static inline Variable *add_operands(Variable *a, Variable *b,
                                     bool a_is_variable, bool a_is_number,
                                     bool b_is_number)
{
    operands_on_one_device(a, a_is_number, b, b_is_number);
    return a_is_variable ? add_variables(a, b) : add_variables(b, a);
}
/* y = a + b (Python: a + b, through __add__ and __radd__). */
#define F_add(a, b) \
    add_operands(as_variable(a), as_variable(b), is_variable(a), \
                 is_number(a), is_number(b))

Function *mul_function(void);
Variable *mul_variables(Variable *x0, Variable *x1);
/* a * b as Python's graph has it: when a is not a Variable, Python
 * calls b.__rmul__(a), which is mul(b, a), so b is the first input. */
static inline Variable *mul_operands(Variable *a, Variable *b,
                                     bool a_is_variable, bool a_is_number,
                                     bool b_is_number)
{
    operands_on_one_device(a, a_is_number, b, b_is_number);
    return a_is_variable ? mul_variables(a, b) : mul_variables(b, a);
}
/* y = a * b (Python: a * b, through __mul__ and __rmul__). */
#define F_mul(a, b) \
    mul_operands(as_variable(a), as_variable(b), is_variable(a), \
                 is_number(a), is_number(b))

Function *neg_function(void);
Variable *neg_variable(Variable *x);
/* y = -a (Python: -a, through __neg__). */
#define F_neg(a) neg_variable(as_variable(a))

Function *sub_function(void);
Variable *sub_variables(Variable *x0, Variable *x1);
/* a - b, a number among them on the device of the other. */
static inline Variable *sub_operands(Variable *a, Variable *b,
                                     bool a_is_number, bool b_is_number)
{
    operands_on_one_device(a, a_is_number, b, b_is_number);
    return sub_variables(a, b);
}
/* y = a - b (Python: a - b, through __sub__ and __rsub__). */
#define F_sub(a, b) \
    sub_operands(as_variable(a), as_variable(b), is_number(a), is_number(b))

Function *div_function(void);
Variable *div_variables(Variable *x0, Variable *x1);
/* a / b, a number among them on the device of the other. */
static inline Variable *div_operands(Variable *a, Variable *b,
                                     bool a_is_number, bool b_is_number)
{
    operands_on_one_device(a, a_is_number, b, b_is_number);
    return div_variables(a, b);
}
/* y = a / b (Python: a / b, through __truediv__ and __rtruediv__). */
#define F_div(a, b) \
    div_operands(as_variable(a), as_variable(b), is_number(a), is_number(b))

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

/* ---- cutting the graph (step 59) */

/* Cuts v off from its creator, keeping v's data and gradient (Python:
 * v.unchain()): v releases its reference to the creator, which is freed
 * when nobody else holds it; a backward from v, or through v, stops at
 * v, as at an input. */
void variable_unchain(Variable *v);
/* Cuts every variable y depends on off from its creator (Python:
 * y.unchain_backward()), which frees the graph behind y, all but y's
 * own creator, unless something else holds its functions: what a
 * training loop does so that a graph it keeps across iterations (an
 * RNN's) stops growing. */
void variable_unchain_backward(Variable *y);

/* ================================================= cuda.c */

/* Whether the GPU can be used (Python: dezero.cuda.gpu_enable, whether
 * `import cupy` worked): common/'s GPU half (libnd_cuda.so, opened with
 * dlopen, so that nothing here links with CUDA) was built, it loads, a
 * CUDA driver answers and a device is there. Decided at the first ask,
 * once for the whole run. */
bool gpu_enable(void);
/* Why the GPU cannot be used, in one line ("no CUDA driver
 * (libcuda.so.1 not found)", "GPU library not built (...)"), or
 * "available". Borrowed static text. */
const char *gpu_status(void);
/* Stops with an error naming who and saying why, unless gpu_enable(). */
void require_gpu(const char *who);

/* The array of x, a Variable or an array (Python: if isinstance(x,
 * Variable): x = x.data). NULL for a Parameter not made yet. */
static inline const NdArray *variable_array(const Variable *v)
{
    return v->data;
}
static inline const NdArray *parameter_array(const Parameter *p)
{
    return p->variable.data;
}
static inline const NdArray *array_itself(const NdArray *a)
{
    return a;
}
#define array_of(x) _Generic((x),                                        \
    Variable *: variable_array,                                          \
    const Variable *: variable_array,                                    \
    Parameter *: parameter_array,                                        \
    NdArray *: array_itself,                                             \
    const NdArray *: array_itself)(x)

/* Where x computes, x a Variable or an array: the device of its array,
 * ND_CPU or ND_CUDA, and ND_CPU when it has none (Python:
 * get_array_module(x), which answers the module that computes on x,
 * numpy or cupy; here every nd_ function computes on its operands'
 * device, and the device is what code asks to make an array beside x:
 * nd_full_on(get_array_module(x), ...)). */
NdDevice get_array_module(const NdArray *x);
#define get_array_module(x) (get_array_module)(array_of(x))
/* x on the host, x a Variable or an array (Python: as_numpy(x)): a new
 * reference to x's array itself when it is there, else a copy. */
NdArray *as_numpy(const NdArray *x);
#define as_numpy(x) (as_numpy)(array_of(x))
/* x on the GPU, x a Variable or an array (Python: as_cupy(x)): a new
 * reference to x's array itself when it is there, else a copy. Stops
 * with an error that says why when the GPU cannot be used (Python
 * raises 'CuPy cannot be loaded. Install CuPy!'). */
NdArray *as_cupy(const NdArray *x);
#define as_cupy(x) (as_cupy)(array_of(x))

/* ================================================= functions.c */


/* Each function as in core.c: a constructor for its class (Python:
 * Sin()), the function on a Variable (Python: F.sin(x)), whose result
 * belongs to the innermost pool, and the macro of the same name that
 * takes a Variable, an array or a number (the rule above as_variable).
 * Arguments that are not operands (shapes, axes) pass unchanged. */

Function *sin_function(void);
Variable *F_sin(Variable *x);                   /* sin x */
#define F_sin(x) (F_sin)(as_variable(x))
Function *cos_function(void);
Variable *F_cos(Variable *x);                   /* cos x */
#define F_cos(x) (F_cos)(as_variable(x))
Function *tanh_function(void);
Variable *F_tanh(Variable *x);                  /* tanh x */
#define F_tanh(x) (F_tanh)(as_variable(x))

/* Shapes and axes are (count, pointer) pairs, as in nd.h: write them
 * with ND_SHAPE(2, 3) and ND_AXES(1, 0). */

Function *reshape_function(int ndim, const int64_t *shape);
/* x laid out in the ndim entries of shape, one of which may be -1 (the
 * rest of the size): F_reshape(x, ND_SHAPE(6)) (Python: F.reshape(x,
 * (6,))). Returns x itself, not a new Variable, when x has that shape
 * already, as Python does. */
Variable *F_reshape(Variable *x, int ndim, const int64_t *shape);
#define F_reshape(x, ...) (F_reshape)(as_variable(x), __VA_ARGS__)

Function *transpose_function(int naxes, const int *axes);
/* x with its axes permuted: axis axes[i] of x becomes axis i of the
 * result, F_transpose(x, ND_AXES(1, 0, 2)); naxes 0 and axes NULL
 * reverse the axes (Python: F.transpose(x, axes), axes=None). */
Variable *F_transpose(Variable *x, int naxes, const int *axes);
#define F_transpose(x, ...) (F_transpose)(as_variable(x), __VA_ARGS__)

/* The methods of Python's Variable that reshape: x.reshape(2, 3),
 * x.transpose(1, 0) and x.T, written variable_reshape(x, 2, 3),
 * variable_transpose(x, 1, 0) and variable_T(x). The list after x is
 * the shape or the permutation itself, without parentheses. */
#define variable_reshape(x, ...) F_reshape((x), ND_SHAPE(__VA_ARGS__))
#define variable_transpose(x, ...) F_transpose((x), ND_AXES(__VA_ARGS__))
Variable *variable_T(Variable *x);              /* axes reversed */

/* Index expressions are (count, pointer) pairs of nd.h's NdIndex
 * entries, one per axis indexed, written with its macros: ND_IDX_INT(1)
 * for 1, ND_IDX_ALL for :, ND_IDX_SLICE(0, 2, ND_NONE) for 0:2, and
 * ND_IDX_ARRAY(a) for an int64 array a of indices. */

/* A GetItem or a GetItemGrad: a Function, and the index it keeps. */
typedef struct GetItemFunction {
    Function function;          /* first: a GetItemFunction * is a
                                 * Function * */
    int n;                      /* entries in index */
    NdIndex index[ND_MAX_DIMS]; /* its arrays are references it holds */
    int x_ndim;                 /* GetItemGrad: the shape of the x */
    int64_t x_shape[ND_MAX_DIMS];   /* indexed, which gx takes */
} GetItemFunction;

/* A new GetItem by the n entries of index (Python: GetItem(slices)); it
 * keeps a reference to each index array. */
Function *get_item_function(int n, const NdIndex *index);
/* x[index] (Python: F.get_item(x, slices)), by NumPy's rules: an int
 * drops its axis, a slice keeps part of it, index arrays pick elements
 * (several broadcast together, so x[arange(N), t] picks x[i, t[i]]).
 * Borrows the index arrays. The gradient adds gy into zeros of x's
 * shape at the places picked, adding up where one is picked twice. */
Variable *F_get_item(Variable *x, int n, const NdIndex *index);
#define F_get_item(x, ...) (F_get_item)(as_variable(x), __VA_ARGS__)
/* A new GetItemGrad (Python: GetItemGrad(slices, in_shape)), which
 * makes zeros of in_shape and adds gy in at index (np.add.at). */
Function *get_item_grad_function(int n, const NdIndex *index,
                                 int in_ndim, const int64_t *in_shape);

/* x[...] as Python writes it (Variable.__getitem__), the entries listed
 * after x: x[1] is variable_getitem(x, ND_IDX_INT(1)), x[:, 2] is
 * variable_getitem(x, ND_IDX_ALL, ND_IDX_INT(2)), x[r, t] for arrays r
 * and t is variable_getitem(x, ND_IDX_ARRAY(r), ND_IDX_ARRAY(t)). */
#define variable_getitem(x, ...)                                          \
    F_get_item((x), (int)(sizeof((NdIndex[]){__VA_ARGS__}) /             \
                          sizeof(NdIndex)),                               \
               (const NdIndex[]){__VA_ARGS__})

Function *sum_function(int naxes, const int *axes, bool keepdims);
/* The sum of x's elements along the naxes entries of axes (negative
 * ones count from the end), or along every axis for ND_ALL_AXES; the
 * summed axes stay as size 1 when keepdims. Integers sum to int64, as
 * in NumPy. F_sum(x, ND_ALL_AXES, false) is Python's F.sum(x) and
 * x.sum(); F_sum(x, ND_AXES(0), false) is F.sum(x, axis=0); F_sum(x,
 * ND_ALL_AXES, true) is x.sum(keepdims=True). */
Variable *F_sum(Variable *x, int naxes, const int *axes, bool keepdims);
#define F_sum(x, ...) (F_sum)(as_variable(x), __VA_ARGS__)

Function *broadcast_to_function(int ndim, const int64_t *shape);
/* x repeated to the ndim entries of shape, by NumPy's broadcasting
 * rules: new leading axes, and size-1 axes stretched (Python:
 * F.broadcast_to(x, shape)). x itself when it has that shape. */
Variable *F_broadcast_to(Variable *x, int ndim, const int64_t *shape);
#define F_broadcast_to(x, ...) (F_broadcast_to)(as_variable(x), __VA_ARGS__)

Function *sum_to_function(int ndim, const int64_t *shape);
/* x summed down to the ndim entries of shape, over its leading axes and
 * the axes that shape has as size 1: the inverse of broadcast_to, and
 * its backward (Python: F.sum_to(x, shape)). x itself when it has that
 * shape. */
Variable *F_sum_to(Variable *x, int ndim, const int64_t *shape);
#define F_sum_to(x, ...) (F_sum_to)(as_variable(x), __VA_ARGS__)

Function *matmul_function(bool trans_x, bool trans_W);
/* The matrix product x W of 2-D x (N, K) and W (K, M), a Variable of
 * (N, M) (Python: F.matmul(x, W)). Floats are multiplied by BLAS, as
 * NumPy does; float32 with float64 gives float64. */
Variable *F_matmul(Variable *x, Variable *W);
#define F_matmul(x, W) (F_matmul)(as_variable(x), as_variable(W))
/* op(x) op(W), where op(a) is a's transpose when its flag is set and a
 * itself otherwise: F_matmul_t(x, true, gy, false) is Python's
 * matmul(x.T, gy). BLAS reads the transposed operand in place, where
 * F_transpose would copy it; MatMul's backward is made of these. */
Variable *F_matmul_t(Variable *x, bool trans_x, Variable *W,
                     bool trans_W);
#define F_matmul_t(x, trans_x, W, trans_W) \
    (F_matmul_t)(as_variable(x), (trans_x), as_variable(W), (trans_W))

/* The affine map x W + b of x (N, K), W (K, M) and b (M,), a Variable
 * of (N, M); b may be NULL, Python's None, for x W alone. */
Function *linear_function(bool has_bias);
/* In one function, Linear, whose backward is MatMul's and b's SumTo
 * (Python: F.linear(x, W, b)). */
Variable *F_linear(Variable *x, Variable *W, Variable *b);
#define F_linear(x, W, b) \
    (F_linear)(as_variable(x), as_variable(W), as_optional_variable(b))
/* As a MatMul followed by an Add, whose intermediate product's data is
 * freed at once (Python: F.linear_simple(x, W, b)). */
Variable *F_linear_simple(Variable *x, Variable *W, Variable *b);
#define F_linear_simple(x, W, b) \
    (F_linear_simple)(as_variable(x), as_variable(W), \
                      as_optional_variable(b))

/* The sigmoid 1 / (1 + e^-x), elementwise. */
Function *sigmoid_function(void);
/* In one function, Sigmoid, computed as tanh(x/2)/2 + 1/2 (Python:
 * F.sigmoid(x)). */
Variable *F_sigmoid(Variable *x);
#define F_sigmoid(x) (F_sigmoid)(as_variable(x))
/* Made of Neg, Exp, Add and Div (Python: F.sigmoid_simple(x)). */
Variable *F_sigmoid_simple(Variable *x);
#define F_sigmoid_simple(x) (F_sigmoid_simple)(as_variable(x))

/* The rectified linear unit max(x, 0), elementwise: the activation of
 * most networks since about 2011, whose gradient, 1 for x > 0, does not
 * vanish as the sigmoid's does. */
Function *relu_function(void);
/* In one function, ReLU (Python: F.relu(x)). */
Variable *F_relu(Variable *x);
#define F_relu(x) (F_relu)(as_variable(x))

/* The softmax along axis: e^x divided by the sum of e^x along it, so
 * that each row (for axis 1) is a probability distribution. Made of
 * Exp, Sum and Div (Python: F.softmax_simple(x, axis)). */
Variable *F_softmax_simple(Variable *x, int axis);
#define F_softmax_simple(x, axis) (F_softmax_simple)(as_variable(x), (axis))
Function *softmax_function(int axis);
/* In one function, Softmax, which subtracts the maximum along axis
 * first, so that e^x cannot overflow (Python: F.softmax(x, axis)). */
Variable *F_softmax(Variable *x, int axis);
#define F_softmax(x, axis) (F_softmax)(as_variable(x), (axis))

/* A Clip: a Function, and the range it keeps. */
typedef struct ClipFunction {
    Function function;          /* first: a ClipFunction * is a Function * */
    double x_min, x_max;
} ClipFunction;

Function *clip_function(double x_min, double x_max);
/* x clamped into [x_min, x_max], elementwise (Python: F.clip(x, x_min,
 * x_max)); the gradient passes where x is inside the range. */
Variable *F_clip(Variable *x, double x_min, double x_max);
#define F_clip(x, x_min, x_max) \
    (F_clip)(as_variable(x), (x_min), (x_max))

Function *log_function(void);
Variable *F_log(Variable *x);                   /* ln x */
#define F_log(x) (F_log)(as_variable(x))

Function *mean_squared_error_function(void);
/* The mean squared error of x0 and x1, sum((x0 - x1)^2) divided by the
 * length of their first axis (the number of samples), a 0-d Variable
 * (Python: F.mean_squared_error(x0, x1)). */
Variable *F_mean_squared_error(Variable *x0, Variable *x1);
#define F_mean_squared_error(x0, x1) \
    (F_mean_squared_error)(as_variable(x0), as_variable(x1))

/* The cross-entropy error of the scores x (N, C) for the labels t (N,),
 * integers in 0 .. C - 1: the mean over the N samples of -log p[i,
 * t[i]], where p = softmax(x) (Python: F.softmax_cross_entropy_simple
 * (x, t)). Made of Softmax, Clip (p kept above 1e-15, so that log p is
 * finite), Log, GetItem, Sum, Mul and Div. A 0-d Variable. */
Variable *F_softmax_cross_entropy_simple(Variable *x, Variable *t);
#define F_softmax_cross_entropy_simple(x, t) \
    (F_softmax_cross_entropy_simple)(as_variable(x), as_variable(t))
Function *softmax_cross_entropy_function(void);
/* The same in one function, SoftmaxCrossEntropy, whose log p is x -
 * logsumexp(x), finite for any scores, and whose gradient is (softmax(x)
 * - onehot(t)) gy / N (Python: F.softmax_cross_entropy(x, t)). t gets
 * no gradient. */
Variable *F_softmax_cross_entropy(Variable *x, Variable *t);
#define F_softmax_cross_entropy(x, t) \
    (F_softmax_cross_entropy)(as_variable(x), as_variable(t))

/* The share of rows of the scores y (N, C) whose highest score is at
 * the label t (N,), a 0-d float64 Variable of the innermost pool
 * (Python: F.accuracy(y, t)). Not differentiable: no graph is recorded,
 * as Python makes a new Variable of the number. */
Variable *F_accuracy(Variable *y, Variable *t);
#define F_accuracy(y, t) (F_accuracy)(as_variable(y), as_variable(t))

/* Dropout, in training (config.train): each element of x is dropped,
 * set to 0, with probability dropout_ratio, and those kept are divided
 * by 1 - dropout_ratio, so that the mean stays what it was (inverted
 * dropout); in TEST_MODE, x itself (Python: F.dropout(x, dropout_ratio),
 * whose default ratio is 0.5). The elements kept are those where
 * np.random.rand(*x.shape) > dropout_ratio, drawn by NumPy's generator
 * on the host and moved to x's device, so that a seeded run drops the
 * same elements as Python's, on either device. Made of Mul and Div: the
 * gradient is gy times the mask, divided by the same number. A ratio
 * outside [0, 1) stops with an error. */
Variable *F_dropout(Variable *x, double dropout_ratio);
#define F_dropout(x, dropout_ratio) \
    (F_dropout)(as_variable(x), (dropout_ratio))

/* ---- the rest of the final package, which no step's program calls */

/* x with a new axis of size 1 before axis, inserted as Python's
 * list.insert does (Python: F.expand_dims(x, axis)): F_expand_dims(x,
 * -1) of a (2, 3) x is (2, 1, 3), not NumPy's (2, 3, 1). An axis
 * outside -ndim .. ndim stops with an error. A Reshape. */
Variable *F_expand_dims(Variable *x, int axis);
#define F_expand_dims(x, axis) (F_expand_dims)(as_variable(x), (axis))
/* x (N, ...) as (N, -1), the samples kept (Python: F.flatten(x)). A
 * Reshape, even of a 2-D x, as in Python; a 0-d x stops with an
 * error. */
Variable *F_flatten(Variable *x);
#define F_flatten(x) (F_flatten)(as_variable(x))

/* The mean of x's elements along the naxes entries of axes, or every
 * axis for ND_ALL_AXES, keeping them as size 1 when keepdims (Python:
 * F.average(x, axis, keepdims), also named F.mean): a Sum times the
 * share of elements left, so that a float32 x stays float32. F_mean
 * is the same, as in Python. */
Variable *F_average(Variable *x, int naxes, const int *axes, bool keepdims);
#define F_average(x, ...) (F_average)(as_variable(x), __VA_ARGS__)
#define F_mean(x, ...) F_average((x), __VA_ARGS__)

/* The log of the softmax along axis, x - logsumexp(x), finite where
 * softmax underflows to 0 (Python: F.log_softmax(x, axis), whose
 * default axis is 1). */
Function *log_softmax_function(int axis);
Variable *F_log_softmax(Variable *x, int axis);
#define F_log_softmax(x, axis) (F_log_softmax)(as_variable(x), (axis))

/* x where x > 0 and slope x elsewhere, elementwise (Python:
 * F.leaky_relu(x, slope), whose default slope is 0.2). */
Function *leaky_relu_function(double slope);
Variable *F_leaky_relu(Variable *x, double slope);
#define F_leaky_relu(x, slope) (F_leaky_relu)(as_variable(x), (slope))

/* The binary cross-entropy of the scores x for the targets t, 0 or 1
 * (or any probability), -sum(t log p + (1 - t) log(1 - p)) / N with p =
 * sigmoid(x) kept in [1e-15, 1] and N = len(x); t is reshaped to x's
 * shape when its number of axes differs (Python:
 * F.sigmoid_cross_entropy(x, t)). A 0-d Variable, made of Sigmoid,
 * Clip, Log and arithmetic: both x and t get gradients. */
Variable *F_sigmoid_cross_entropy(Variable *x, Variable *t);
#define F_sigmoid_cross_entropy(x, t) \
    (F_sigmoid_cross_entropy)(as_variable(x), as_variable(t))
/* The same of probabilities p, kept in [1e-15, 0.999], with N = len(t)
 * (Python: F.binary_cross_entropy(p, t)). */
Variable *F_binary_cross_entropy(Variable *p, Variable *t);
#define F_binary_cross_entropy(p, t) \
    (F_binary_cross_entropy)(as_variable(p), as_variable(t))

/* Batch normalization of x (N, C), or (N, C, H, W) per channel over N
 * H W values: y = gamma (x - mean) / sqrt(var + eps) + beta, gamma and
 * beta (C,). In training (config.train) mean and var are the batch's,
 * and the running statistics, the arrays mean and var (C,), which the
 * function borrows and updates in place, become decay times
 * themselves plus (1 - decay) times the batch's mean and its unbiased
 * variance; in TEST_MODE the running statistics are used and left as
 * they are (Python: F.batch_nrom(x, gamma, beta, mean, var, decay,
 * eps), so spelt, with decay 0.9 and eps 2e-5 by default). The
 * gradient, of x, gamma and beta, is that of a training call: backward
 * after a test-mode call stops with an error, as Python's fails. */
Function *batch_norm_function(NdArray *mean, NdArray *var, double decay,
                              double eps);
Variable *F_batch_norm(Variable *x, Variable *gamma, Variable *beta,
                       NdArray *mean, NdArray *var, double decay,
                       double eps);
#define F_batch_norm(x, gamma, beta, mean, var, decay, eps) \
    (F_batch_norm)(as_variable(x), as_variable(gamma), as_variable(beta), \
                   (mean), (var), (decay), (eps))

/* The rows of W (in_size, out_size) picked by the integer ids of x, of
 * any shape: a Variable of x's shape plus (out_size,) (Python:
 * F.embed_id(x, W), W[x]). A GetItem: W's gradient adds gy into each
 * row picked, as often as it is picked; x gets none. Ids out of range
 * stop with an error; negative ones count from the end, as in NumPy. */
Variable *F_embed_id(Variable *x, Variable *W);
#define F_embed_id(x, W) (F_embed_id)(as_variable(x), as_variable(W))

/* The largest, or smallest, element of x along the naxes entries of
 * axes (negative ones count from the end), or every axis for
 * ND_ALL_AXES, keeping them as size 1 when keepdims (Python: F.max(x,
 * axis, keepdims), F.min). The gradient goes to the elements equal to
 * the result, to each of a tie in full. An axis out of range stops with
 * an error. */
Function *max_function(int naxes, const int *axes, bool keepdims);
Function *min_function(int naxes, const int *axes, bool keepdims);
Variable *F_max(Variable *x, int naxes, const int *axes, bool keepdims);
#define F_max(x, ...) (F_max)(as_variable(x), __VA_ARGS__)
Variable *F_min(Variable *x, int naxes, const int *axes, bool keepdims);
#define F_min(x, ...) (F_min)(as_variable(x), __VA_ARGS__)

/* The n pieces of xs joined along axis (negative counts from the end),
 * all of one dtype and one number of axes, of the same sizes but on
 * axis: the sizes there add up (Chainer: F.concat(xs, axis); Python's
 * DeZero has none, and SqueezeNet's Fire modules need it). The
 * gradient of each piece is its slice of gy, a GetItem. xs is
 * borrowed; its entries are Variables, since an array of operands has
 * no static type to convert by (wrap an array in variable_of_array).
 * Mismatched pieces or an axis out of range stop with an error naming
 * the piece. */
Function *concat_function(int n, int axis);
Variable *F_concat(int n, Variable *xs[], int axis);

/* ================================================= functions_conv.c */

/* Two sizes, along the height and along the width (Python: a (h, w)
 * tuple, which utils.pair makes of an int); utils.c's. */
typedef struct Pair {
    int64_t h, w;
} Pair;

/* (x, x) (Python: utils.pair(x) of an int). */
static inline Pair pair(int64_t x)
{
    return (Pair){x, x};
}

/* Images are (N, C, H, W): N images of C channels of H rows of W
 * pixels; filters (OC, C, KH, KW): OC filters of a KH x KW window over
 * the C channels. Each function takes its keyword arguments as an
 * options struct after the operands, written as designated
 * initializers, every field zero unless set; a zero stride is Python's
 * default 1, a zero pad its 0: F_conv2d(x, W, b, .stride = pair(2),
 * .pad = pair(1)) is Python's F.conv2d(x, W, b, stride=2, pad=1). */

/* What conv2d, conv2d_simple and the poolings take. */
typedef struct ConvOptions {
    Pair stride;                /* {0, 0}: (1, 1) */
    Pair pad;                   /* zeros around each side */
} ConvOptions;

/* What deconv2d takes. */
typedef struct DeconvOptions {
    Pair stride, pad;           /* as ConvOptions */
    Pair outsize;               /* the output's (H, W); {0, 0}: by
                                 * get_deconv_outsize */
} DeconvOptions;

/* What im2col and col2im take. */
typedef struct Im2colOptions {
    Pair stride, pad;           /* as ConvOptions */
    bool keep_6d;               /* the windows as (N, C, KH, KW, OH, OW)
                                 * (Python: to_matrix=False); false, the
                                 * default: a matrix (N*OH*OW, C*KH*KW) */
} Im2colOptions;

/* The kernel_size windows of x (N, C, H, W), moved by the stride over x
 * padded with zeros, a row each: (N*OH*OW, C*KH*KW), each row in (C,
 * KH, KW) order (Python: F.im2col(x, kernel_size, stride, pad,
 * to_matrix)). Its gradient is col2im. */
Variable *F_im2col(Variable *x, Pair kernel_size, Im2colOptions o);
#define F_im2col(x, kernel_size, ...) \
    (F_im2col)(as_variable(x), (kernel_size), (Im2colOptions){__VA_ARGS__})
/* The image of input_shape, its 4 entries (N, C, H, W), whose windows x
 * holds, in im2col's layout for the same options, each element the sum
 * of its copies (Python: F.col2im(x, input_shape, kernel_size, stride,
 * pad, to_matrix)). Borrows input_shape. Its gradient is im2col. */
Variable *F_col2im(Variable *x, const int64_t input_shape[4],
                   Pair kernel_size, Im2colOptions o);
#define F_col2im(x, input_shape, kernel_size, ...) \
    (F_col2im)(as_variable(x), (input_shape), (kernel_size), \
               (Im2colOptions){__VA_ARGS__})

/* The convolution of x (N, C, H, W) with the filters W (OC, C, KH, KW),
 * plus b (OC,) on every pixel of each output channel (b NULL: none), a
 * Variable (N, OC, OH, OW) (Python: F.conv2d(x, W, b, stride, pad)).
 * One function, Conv2d, whose forward is one matrix product over
 * im2col's matrix; a channel count that does not match, or an input
 * that is not 4-D, stops with an error. */
Variable *F_conv2d(Variable *x, Variable *W, Variable *b, ConvOptions o);
#define F_conv2d(x, W, b, ...) \
    (F_conv2d)(as_variable(x), as_variable(W), as_optional_variable(b), \
               (ConvOptions){__VA_ARGS__})
/* The same made of Im2col, Reshape, Transpose and Linear (Python:
 * F.conv2d_simple(x, W, b, stride, pad)). */
Variable *F_conv2d_simple(Variable *x, Variable *W, Variable *b,
                          ConvOptions o);
#define F_conv2d_simple(x, W, b, ...) \
    (F_conv2d_simple)(as_variable(x), as_variable(W), \
                      as_optional_variable(b), (ConvOptions){__VA_ARGS__})
/* The transposed convolution of x (N, C, H, W) with W (C, OC, KH, KW),
 * plus b (OC,) or NULL: a Variable (N, OC, OH, OW) of the size that a
 * convolution with these options takes back to (H, W): OH =
 * get_deconv_outsize(H, KH, SH, PH), or o.outsize (Python:
 * F.deconv2d(x, W, b, stride, pad, outsize)). Conv2d's gradient. */
Variable *F_deconv2d(Variable *x, Variable *W, Variable *b,
                     DeconvOptions o);
#define F_deconv2d(x, W, b, ...) \
    (F_deconv2d)(as_variable(x), as_variable(W), as_optional_variable(b), \
                 (DeconvOptions){__VA_ARGS__})

/* The maximum of each kernel_size window of each channel of x (N, C, H,
 * W), a Variable (N, C, OH, OW) (Python: F.pooling(x, kernel_size,
 * stride, pad), whose stride defaults to 1, as here). One function,
 * Pooling, which keeps where each maximum is for its gradient. */
Variable *F_pooling(Variable *x, Pair kernel_size, ConvOptions o);
#define F_pooling(x, kernel_size, ...) \
    (F_pooling)(as_variable(x), (kernel_size), (ConvOptions){__VA_ARGS__})
/* The same made of Im2col, Reshape, Max and Transpose (Python:
 * F.pooling_simple(x, kernel_size, stride, pad)). */
Variable *F_pooling_simple(Variable *x, Pair kernel_size, ConvOptions o);
#define F_pooling_simple(x, kernel_size, ...) \
    (F_pooling_simple)(as_variable(x), (kernel_size), \
                       (ConvOptions){__VA_ARGS__})
/* The mean of each kernel_size window (Python: F.average_pooling(x,
 * kernel_size, stride, pad)). */
Variable *F_average_pooling(Variable *x, Pair kernel_size, ConvOptions o);
#define F_average_pooling(x, kernel_size, ...) \
    (F_average_pooling)(as_variable(x), (kernel_size), \
                        (ConvOptions){__VA_ARGS__})

/* ================================================= layers.c */

typedef struct Layer Layer;

/* What all layers of one kind share (Python: a subclass of Layer): a
 * name and the forward computation. One constant table per kind. */
typedef struct LayerClass {
    const char *name;
    /* y = the layer applied to x: a Variable of the innermost pool.
     * Borrows x. */
    Variable *(*forward)(Layer *self, Variable *x);
    /* For a parameter p of self that has no data yet: stores the dtype
     * and the shape it will be made with (Linear's W, at the first
     * call), -1 for an axis the input decides, and returns the number
     * of axes; layer_load_weights checks an array against them before
     * p takes it. NULL for a kind of layer that makes every parameter
     * at once. */
    int (*unmade_param)(const Layer *self, const Parameter *p,
                        NdDtype *dtype, int64_t shape[ND_MAX_DIMS]);
    /* Calls visit(slot, arg) on each slot of the state self carries
     * from one call to the next (RNN's hidden state h, step 59): a
     * Variable self holds a reference to, or NULL before the first
     * call and after a reset. How the generic code resets the state,
     * frees it with the layer, and shows it to the collector. NULL for
     * a kind of layer without state. */
    void (*visit_state)(Layer *self,
                        void (*visit)(Variable **slot, void *arg),
                        void *arg);
} LayerClass;

/* A layer: the parameters and the layers registered with it, each in
 * the order they were registered, each one a reference the layer
 * holds. Python's Layer finds them itself, by intercepting every
 * attribute assignment (__setattr__); C has no such hook, so a layer's
 * constructor registers each one with layer_add_param or
 * layer_add_layer. A struct for a kind of layer starts with a Layer
 * and adds borrowed pointers to them by name (LinearLayer's W and b). */
struct Layer {
    Object object;              /* first: a Layer * is an Object * */
    const LayerClass *cls;
    int nparams;
    int capacity;
    Parameter **params;         /* owned array of references */
    int nlayers;
    int layers_capacity;
    Layer **layers;             /* owned array of references */
    char **layer_names;         /* owned: the name each layer has here
                                 * (Python: the attribute's), a copy;
                                 * NULL for a layer given none */
};

extern int layers_alive;        /* Layers made and not yet freed */

/* A new zeroed layer of class cls in a block of size bytes (a struct
 * that starts with a Layer), owned by the innermost pool. */
Layer *layer_new(const LayerClass *cls, size_t size);
/* Registers p with layer, which keeps a reference to it (Python:
 * self.W = p, for a Parameter p); returns p. p's name stands for the
 * attribute's: it is p's key in a saved file (W in l0/W). */
Parameter *layer_add_param(Layer *layer, Parameter *p);
/* What layer_add_layer takes besides the two layers. */
typedef struct AddLayerOptions {
    const char *name;           /* the attribute's name (Python: l1 in
                                 * self.l1 = child): the first part of
                                 * the keys of child's parameters in a
                                 * saved file, l1/W; borrowed, copied.
                                 * NULL: none, and the layer holding
                                 * child cannot be saved */
} AddLayerOptions;
/* Registers the layer child with layer, which keeps a reference to it
 * (Python: self.l1 = child, for a Layer child); returns child. */
Layer *layer_add_layer(Layer *layer, Layer *child, AddLayerOptions options);
/* layer_add_layer(self, child, .name = "l1"); the name may be left out
 * for a layer that is never saved. */
#define layer_add_layer(layer, child, ...) \
    (layer_add_layer)((layer), (child), (AddLayerOptions){__VA_ARGS__})
/* y = layer(x) (Python: layer(x)): the class's forward on x. */
Variable *layer_call(Layer *layer, Variable *x);
#define layer_call(layer, x) (layer_call)((layer), as_variable(x))
/* Clears the gradient of every parameter (Python: layer.cleargrads()). */
void layer_cleargrads(Layer *layer);
/* Forgets the state that layer, and every layer in it, down to the
 * last, carries from one call to the next (Python: reset_state(), which
 * a model such as step 59's SimpleRNN passes on to its RNN): the next
 * call starts a new sequence. */
void layer_reset_state(Layer *layer);
/* Moves every parameter of layer, and of the layers in it, down to the
 * last, to the host or to the GPU (Python: layer.to_cpu(),
 * layer.to_gpu()), as variable_to_cpu and variable_to_gpu move one. A
 * weight made later, at the first call, is made where its input is. */
void layer_to_cpu(Layer *layer);
void layer_to_gpu(Layer *layer);

/* Writes the data of every parameter of layer, and of the layers in
 * it, down to the last, into the .npz file at path, each under its key
 * (Python: layer.save_weights(path)): the parameter's name, after the
 * names of the layers that hold it, joined by '/': l0/W, l0/b, l1/W,
 * ... for an MLP. Written as np.savez_compressed writes (common/npz.h),
 * so that NumPy and Python's DeZero read it, from host copies of the
 * arrays: the model stays where it is (Python moves it to the host).
 * ".npz" is added to a path without it. Stops with an error, and
 * writes nothing, for a parameter not made yet, without a name, or
 * with the key of another; a file is written whole or not at all.
 * Borrows both. */
void layer_save_weights(Layer *layer, const char *path);
/* Sets the data of every parameter of layer, and of the layers in it,
 * from the array under its key in the .npz file at path, as
 * layer_save_weights writes it (Python: layer.load_weights(path)); the
 * array goes to the device of the parameter's data, or to the host for
 * a parameter not made yet. An array the model has no parameter for
 * is ignored, as in Python. A key that is missing, or an array whose
 * shape or dtype is not the parameter's, stops with an error that names
 * the file and the key, and no parameter is changed. Borrows both. */
void layer_load_weights(Layer *layer, const char *path);

/* How deep layers may nest in one another for a walk. */
enum { LAYER_MAX_DEPTH = 32 };

/* A walk over a layer's parameters: its own, in the order registered,
 * then those of each of its layers, in the order registered, and so on
 * down (Python: the generator layer.params(), with yield from for each
 * layer):
 *
 *     ParamIter it = layer_params(layer);
 *     for (Parameter *p; (p = param_next(&it));)
 *         ...
 *
 * The layers must not gain parameters or layers during the walk. */
typedef struct ParamFrame {
    Layer *layer;
    int next_param;             /* the index of its next parameter */
    int next_layer;             /* and of its next layer */
} ParamFrame;

typedef struct ParamIter {
    int depth;                  /* frames in use; 0 at the end */
    ParamFrame stack[LAYER_MAX_DEPTH];  /* the layers being walked,
                                         * outermost first */
} ParamIter;

ParamIter layer_params(Layer *layer);
/* The next parameter (borrowed from the layer), or NULL at the end. */
Parameter *param_next(ParamIter *it);

/* What L_linear takes besides the output size; every field is zero
 * unless set, as Python's keyword arguments have defaults. */
typedef struct LinearOptions {
    bool nobias;                /* no bias b (Python: nobias=True) */
    NdDtype dtype;              /* the parameters' dtype; 0 (ND_BOOL),
                                 * the default, means float32 */
    int64_t in_size;            /* 0: taken from the first input */
} LinearOptions;

/* The Linear layer: W (in_size, out_size) and b (out_size,), and y =
 * x W + b by F_linear. */
typedef struct LinearLayer {
    Layer layer;                /* first: a LinearLayer * is a Layer * */
    int64_t in_size, out_size;
    NdDtype dtype;
    Parameter *W;               /* borrowed from layer.params; its data
                                 * is NULL until in_size is known */
    Parameter *b;               /* likewise; NULL with nobias */
} LinearLayer;

/* A new Linear layer of out_size outputs, owned by the innermost pool
 * (Python: L.Linear(out_size, nobias, dtype, in_size)). W is drawn
 * from np.random.randn, scaled by sqrt(1 / in_size), when in_size is
 * known: at once if options.in_size is given, else at the first call,
 * from the width of x, as Python does, which decides when the random
 * numbers are drawn. They are drawn on the host, by NumPy's generator,
 * and the weight made at the first call is moved to x's device, so
 * that a run on the GPU starts from a CPU run's weights. */
Layer *linear_layer(int64_t out_size, LinearOptions options);
/* L_linear(10), L_linear(10, .nobias = true) (Python: L.Linear(10),
 * L.Linear(10, nobias=True)). */
#define L_linear(out_size, ...) \
    linear_layer((out_size), (LinearOptions){__VA_ARGS__})

/* What L_conv2d and L_deconv2d take besides the output channels and
 * the kernel size; every field is zero unless set, as Python's keyword
 * arguments have defaults. */
typedef struct Conv2dOptions {
    Pair stride;                /* {0, 0}: (1, 1) */
    Pair pad;                   /* zeros around each side */
    bool nobias;                /* no bias b (Python: nobias=True) */
    NdDtype dtype;              /* 0 (ND_BOOL), the default: float32 */
    int64_t in_channels;        /* 0: taken from the first input */
} Conv2dOptions;

/* The Conv2d layer: filters W (OC, C, KH, KW) and b (OC,), and y =
 * conv2d(x, W, b) by F_conv2d; also the Deconv2d layer, below. */
typedef struct Conv2dLayer {
    Layer layer;                /* first: a Conv2dLayer * is a Layer * */
    int64_t in_channels, out_channels;
    Pair kernel_size, stride, pad;
    NdDtype dtype;
    Parameter *W;               /* borrowed from layer.params; its data
                                 * is NULL until in_channels is known */
    Parameter *b;               /* likewise; NULL with nobias */
} Conv2dLayer;

/* A new Conv2d layer of out_channels filters of kernel_size, owned by
 * the innermost pool (Python: L.Conv2d(out_channels, kernel_size,
 * stride, pad, nobias, dtype, in_channels)). W is drawn from
 * np.random.randn, scaled by sqrt(1 / (C KH KW)), when the input
 * channels C are known: at once if options.in_channels is given, else
 * at the first call, from x's second axis, on the host, and moved to
 * x's device, as Linear's W. */
Layer *conv2d_layer(int64_t out_channels, Pair kernel_size,
                    Conv2dOptions options);
/* L_conv2d(64, pair(3), .pad = pair(1)) (Python: L.Conv2d(64, 3,
 * pad=1)). */
#define L_conv2d(out_channels, kernel_size, ...) \
    conv2d_layer((out_channels), (kernel_size), \
                 (Conv2dOptions){__VA_ARGS__})

/* The Deconv2d layer is a Conv2dLayer whose filters W are (C, OC, KH,
 * KW), as F_deconv2d takes them, and y = deconv2d(x, W, b); it takes
 * Conv2dOptions, as Python's Deconv2d takes Conv2d's arguments. */

/* A new Deconv2d layer of out_channels filters of kernel_size, owned
 * by the innermost pool (Python: L.Deconv2d(out_channels, kernel_size,
 * stride, pad, nobias, dtype, in_channels)). W is drawn from
 * np.random.randn(C, OC, KH, KW), scaled by sqrt(1 / (C KH KW)), when
 * the input channels C are known: at once if options.in_channels is
 * given, else at the first call, as Conv2d's. */
Layer *deconv2d_layer(int64_t out_channels, Pair kernel_size,
                      Conv2dOptions options);
/* L_deconv2d(3, pair(4), .stride = pair(2), .pad = pair(1)) (Python:
 * L.Deconv2d(3, 4, stride=2, pad=1)). */
#define L_deconv2d(out_channels, kernel_size, ...) \
    deconv2d_layer((out_channels), (kernel_size), \
                   (Conv2dOptions){__VA_ARGS__})

/* What L_rnn and L_lstm take besides the hidden size; zero unless
 * set. */
typedef struct RNNOptions {
    int64_t in_size;            /* 0: taken from the first input */
} RNNOptions;

/* The Elman RNN (step 59): h = tanh(x2h(x) + h2h(h_prev)), where x2h
 * is a Linear layer and h2h one without bias; the first call of a
 * sequence, with no h_prev, is tanh(x2h(x)). The layer keeps h, (N,
 * hidden_size), for its next call, until layer_reset_state. */
typedef struct RNNLayer {
    Layer layer;                /* first: an RNNLayer * is a Layer * */
    Layer *x2h, *h2h;           /* borrowed: layer holds the references */
    Variable *h;                /* a reference: the last output; NULL
                                 * before the first call, after a
                                 * reset */
} RNNLayer;

/* A new RNN layer of hidden_size features, owned by the innermost pool
 * (Python: L.RNN(hidden_size, in_size)). Its weights are float32,
 * drawn as Linear's are: with options.in_size, both at once, x2h's
 * (in_size, hidden_size) then h2h's (hidden_size, hidden_size); without
 * (the book's case), x2h's at the first call, from the width of x, and
 * h2h's at the second, from the width of h. (Python gives h2h in_size
 * as its input size, a slip that only an in_size of None or of
 * hidden_size survives; in both, C draws the same numbers.) */
Layer *rnn_layer(int64_t hidden_size, RNNOptions options);
/* L_rnn(100) (Python: L.RNN(100)). */
#define L_rnn(hidden_size, ...) \
    rnn_layer((hidden_size), (RNNOptions){__VA_ARGS__})

/* The LSTM (step 60): gates f, i and o, sigmoids of Linear layers of x
 * and of h_prev, and a candidate u, their tanh, make the memory cell
 * c = f c_prev + i u and the output h = o tanh(c); the first call of a
 * sequence, with no h_prev and no c_prev, leaves out their terms. The
 * layer keeps h and c, (N, hidden_size), for its next call, until
 * layer_reset_state. */
typedef struct LSTMLayer {
    Layer layer;                /* first: an LSTMLayer * is a Layer * */
    Layer *x2f, *x2i, *x2o, *x2u;   /* borrowed: layer holds the */
    Layer *h2f, *h2i, *h2o, *h2u;   /* references; h2* have no bias */
    Variable *h, *c;            /* references: the last output and the
                                 * last cell; NULL before the first
                                 * call, after a reset */
} LSTMLayer;

/* A new LSTM layer of hidden_size features, owned by the innermost
 * pool (Python: L.LSTM(hidden_size, in_size)). Its weights are float32,
 * drawn as Linear's are, in Python's order: x2f's, x2i's, x2o's and
 * x2u's at once when options.in_size is given, else at the first call,
 * from the width of x; h2f's, h2i's, h2o's and h2u's, (hidden_size,
 * hidden_size), at once. */
Layer *lstm_layer(int64_t hidden_size, RNNOptions options);
/* L_lstm(100) (Python: L.LSTM(100)). */
#define L_lstm(hidden_size, ...) \
    lstm_layer((hidden_size), (RNNOptions){__VA_ARGS__})

/* The EmbedID layer: W (in_size, out_size), a row per id, and y = W[x]
 * for the integer ids x by F_embed_id. */
typedef struct EmbedIDLayer {
    Layer layer;                /* first: an EmbedIDLayer * is a Layer * */
    Parameter *W;               /* borrowed from layer.params */
} EmbedIDLayer;

/* A new EmbedID layer of in_size ids and out_size values each, owned by
 * the innermost pool (Python: L.EmbedID(in_size, out_size)); W is drawn
 * at once from np.random.randn, float64 and unscaled, as in Python. */
Layer *embed_id_layer(int64_t in_size, int64_t out_size);
#define L_embed_id(in_size, out_size) embed_id_layer((in_size), (out_size))

/* The BatchNorm layer: y = F_batch_norm(x, gamma, beta, avg_mean,
 * avg_var, 0.9, 2e-5), training on the batch's statistics and updating
 * the running ones, avg_mean and avg_var, which TEST_MODE uses. All
 * four are (C,) Parameters of x's dtype, made at the first call on x's
 * device, C = x.shape[1]: avg_mean at zeros, avg_var and gamma at ones,
 * beta at zeros. avg_mean and avg_var are Parameters so that they are
 * saved with the weights, and get no gradient, so optimizers leave them
 * alone (Python's comment says the same). */
typedef struct BatchNormLayer {
    Layer layer;                /* first: a BatchNormLayer * is a Layer * */
    Parameter *avg_mean;        /* borrowed from layer.params, in this */
    Parameter *avg_var;         /* order; each one's data is NULL until */
    Parameter *gamma;           /* the first call */
    Parameter *beta;
} BatchNormLayer;

/* A new BatchNorm layer, owned by the innermost pool (Python:
 * L.BatchNorm()). */
Layer *batch_norm_layer(void);
#define L_batch_norm() batch_norm_layer()

/* ================================================= models.c */

/* A model is a layer that is trained as a whole: the network (Python:
 * class Model(Layer), which adds only plot). In C any layer can be
 * one, so the name is an alias that says what a pointer is for. */
typedef Layer Model;

/* Draws the graph of model's forward pass on x into to_file, with the
 * shapes and dtypes of the variables (Python: model.plot(x,
 * to_file=...), plot_dot_graph with verbose=True). The graph belongs
 * to the innermost pool. Returns plot_dot_graph's answer. */
bool model_plot(Model *model, Variable *x, const char *to_file);
#define model_plot(model, x, to_file) \
    (model_plot)((model), as_variable(x), (to_file))

/* A multi-layer perceptron: a Linear layer for each of the nsizes
 * output sizes, with the activation between them and not after the
 * last (Python: MLP(fc_output_sizes, activation)). activation NULL is
 * F_sigmoid, Python's default: mlp(ND_SHAPE(10, 1), NULL). Owned by
 * the innermost pool. */
typedef struct MLPModel {
    Layer layer;                /* first: an MLPModel * is a Layer *; its
                                 * layers are the Linears, in order */
    Variable *(*activation)(Variable *x);
} MLPModel;

Model *mlp(int nsizes, const int64_t *sizes,
           Variable *(*activation)(Variable *x));

/* Where VGG16's ImageNet weights are published, an .npz of 528 MB
 * whose keys are those of vgg16's layers (Python:
 * VGG16.WEIGHTS_PATH). */
#define VGG16_WEIGHTS_URL \
    "https://github.com/koki0702/dezero-models/releases/download/v0.1/" \
    "vgg16.npz"

/* What vgg16 takes; zero unless set. */
typedef struct VGG16Options {
    const char *pretrained;     /* the weights file to load, as
                                 * VGG16_WEIGHTS_URL's (borrowed); NULL:
                                 * random weights, made at the first
                                 * call (Python: pretrained=False) */
} VGG16Options;

/* VGG16, owned by the innermost pool (Python: VGG16(pretrained)):
 * thirteen 3 x 3 convolutions of stride 1 and padding 1, each followed
 * by ReLU, in five blocks of 2, 2, 3, 3 and 3 with 64, 128, 256, 512
 * and 512 channels, each block ended by a 2 x 2 max pooling of stride
 * 2; then three Linear layers of 4096, 4096 and 1000 outputs, the first
 * two followed by ReLU and dropout (0.5). Its layers are named as
 * Python's attributes, conv1_1 ... conv5_3, fc6, fc7, fc8, so that the
 * keys of a weights file are conv1_1/W, ..., fc8/b. It takes (N, 3, H,
 * W) images, H and W multiples of 32 (224 for the pretrained weights,
 * whose fc6 takes 512 * 7 * 7 inputs), and gives (N, 1000) scores.
 * A weights file that is missing or does not fit stops with an error
 * naming it (layer_load_weights). */
Model *vgg16(VGG16Options options);
/* vgg16(), vgg16(.pretrained = path). */
#define vgg16(...) (vgg16)((VGG16Options){__VA_ARGS__})

/* A picture as VGG16 takes it (Python: VGG16.preprocess(image, size)):
 * resized to width x height as PIL resizes (nd_image_resize; kept as
 * it is when both are 0, Python's size=None), float32, its channels
 * reversed to BGR, minus ImageNet's mean [103.939, 116.779, 123.68]
 * (B, G, R), channels first. Takes a (H, W, 3) uint8 RGB host array
 * (nd_image_read's), borrowed; returns a new (3, height, width) float32
 * array. */
NdArray *vgg16_preprocess(const NdArray *image, int64_t width,
                          int64_t height);

/* Where ResNet's ImageNet weights are published, one .npz for each
 * depth, %d the number of layers, 50, 101 or 152, whose keys are those
 * of resnet's layers (Python: ResNet.WEIGHTS_PATH). */
#define RESNET_WEIGHTS_URL_FORMAT \
    "https://github.com/koki0702/dezero-models/releases/download/v0.1/" \
    "resnet%d.npz"

/* What resnet takes; zero unless set. */
typedef struct ResNetOptions {
    const char *pretrained;     /* the weights file to load, as
                                 * RESNET_WEIGHTS_URL_FORMAT's for the
                                 * same depth (borrowed); NULL: random
                                 * weights, made at the first call
                                 * (Python: pretrained=False) */
} ResNetOptions;

/* ResNet of He et al. (2015), n_layers 50, 101 or 152 deep, owned by
 * the innermost pool (Python: ResNet(n_layers, pretrained), ResNet50,
 * ResNet101, ResNet152): conv1, a 7 x 7 convolution of 64 channels,
 * stride 2 and padding 3, with bn1 and ReLU; a 3 x 3 max pooling of
 * stride 2; four building blocks res2 ... res5 of 3, 4, 6 and 3
 * bottlenecks for 50 layers (3, 4, 23, 3 for 101; 3, 8, 36, 3 for
 * 152), giving 256, 512, 1024 and 2048 channels, res3 ... res5 halving
 * the size; a global average pooling; and fc6, a Linear layer of 1000
 * scores. Its layers are named as Python's attributes, conv1, bn1,
 * res2/a/conv1, res2/b1/bn3, ..., fc6, so that the keys of a weights
 * file match. It takes (N, 3, H, W) images, H and W at least 5, which
 * the pooling takes to 1 x 1 (224 for ImageNet), and gives (N, 1000)
 * scores. Another n_layers, or a
 * weights file that is missing or does not fit, stops with an error. */
Model *resnet(int n_layers, ResNetOptions options);
/* resnet(50), resnet(152, .pretrained = path). */
#define resnet(n_layers, ...) \
    (resnet)((n_layers), (ResNetOptions){__VA_ARGS__})
/* resnet50(), resnet101(.pretrained = path) (Python: ResNet50(),
 * ResNet101(pretrained=True)). */
#define resnet50(...) (resnet)(50, (ResNetOptions){__VA_ARGS__})
#define resnet101(...) (resnet)(101, (ResNetOptions){__VA_ARGS__})
#define resnet152(...) (resnet)(152, (ResNetOptions){__VA_ARGS__})

/* ResNet's bottleneck that changes the channels and the size (Python:
 * BottleneckA(in_channels, mid_channels, out_channels, stride,
 * downsample_fb)), owned by the innermost pool: conv1, 1 x 1 to
 * mid_channels, conv2, 3 x 3 of padding 1 to mid_channels, conv3, 1 x
 * 1 to out_channels, each with its BatchNorm bn1 ... bn3 and ReLU but
 * the last; and a shortcut, conv4, 1 x 1 of the stride to
 * out_channels, with bn4; y = relu(the sum). The stride is on conv1
 * (MSRA's ResNet), or on conv2 with downsample_fb (Facebook's). The
 * convolutions have no bias. Python's in_channels, which its
 * convolutions never use (they take it from the input), is left out. */
Layer *bottleneck_a(int64_t mid_channels, int64_t out_channels,
                    int64_t stride, bool downsample_fb);
/* ResNet's bottleneck that keeps the channels and the size (Python:
 * BottleneckB(in_channels, mid_channels)), owned by the innermost pool:
 * conv1 ... conv3 and bn1 ... bn3 as BottleneckA's, conv3 back to
 * in_channels, and y = relu(that + x). */
Layer *bottleneck_b(int64_t in_channels, int64_t mid_channels);
/* n_layers bottlenecks called in turn (Python: BuildingBlock(n_layers,
 * in_channels, mid_channels, out_channels, stride, downsample_fb)),
 * owned by the innermost pool: a, a BottleneckA, then b1, b2, ...,
 * BottleneckBs of out_channels. in_channels is left out as in
 * bottleneck_a. */
Layer *building_block(int n_layers, int64_t mid_channels,
                      int64_t out_channels, int64_t stride,
                      bool downsample_fb);

/* What squeezenet takes; zero unless set. No DeZero weights file for
 * SqueezeNet is published (Python's SqueezeNet is an empty stub), so
 * there is no SQUEEZENET_WEIGHTS_URL, as there is VGG16_WEIGHTS_URL:
 * a file to load is one's own, such as torchvision's squeezenet1_1
 * weights saved under these keys (its filters are laid out as
 * Conv2d's, (OC, C, KH, KW)). */
typedef struct SqueezeNetOptions {
    const char *pretrained;     /* the weights file to load, keyed as
                                 * the model's parameters, conv1/W,
                                 * fire2/squeeze/b, ... (borrowed);
                                 * NULL: the random weights drawn */
    int64_t num_classes;        /* conv10's channels, the scores; 0:
                                 * 1000, ImageNet's */
} SqueezeNetOptions;

/* SqueezeNet v1.1 of Iandola et al. (2016), as torchvision's
 * squeezenet1_1 (Python's DeZero has only a stub), owned by the
 * innermost pool: conv1, a 3 x 3 convolution of 64 channels and stride
 * 2, with ReLU; a 3 x 3 max pooling of stride 2; the Fire modules
 * fire2, fire3 (128 channels out); the pooling; fire4, fire5 (256);
 * the pooling; fire6 ... fire9 (384, 384, 512, 512); dropout (0.5);
 * conv10, a 1 x 1 convolution to num_classes channels, with ReLU; and
 * a global average pooling. Its layers are named conv1, fire2 ...
 * fire9 (each of squeeze, expand1x1, expand3x3), conv10, so that the
 * keys of a weights file are conv1/W, fire2/squeeze/W, ..., conv10/b;
 * its 1,235,496 weights (for 1000 classes) are drawn when it is made,
 * every input's channels being known. It takes (N, 3, H, W) images, H
 * and W at least 31, which the poolings take to 1 x 1 (224 for
 * ImageNet: 111, 55, 27 and 13 after conv1 and each pooling), and
 * gives (N, num_classes) scores. The poolings are DeZero's, which
 * round the size down, where torchvision's round up (ceil_mode): the
 * two agree whenever the sizes pooled are odd, as they are for 224;
 * for an even one torchvision's keeps one more row or column.
 * Another input, or a weights file that is missing or does not fit,
 * stops with an error. */
Model *squeezenet(SqueezeNetOptions options);
/* squeezenet(), squeezenet(.num_classes = 10, .pretrained = path). */
#define squeezenet(...) (squeezenet)((SqueezeNetOptions){__VA_ARGS__})

/* SqueezeNet's Fire module (torchvision: Fire(inplanes,
 * squeeze_planes, expand1x1_planes, expand3x3_planes)), owned by the
 * innermost pool: squeeze, a 1 x 1 convolution of in_channels to
 * squeeze_channels, with ReLU; then, both on its output, expand1x1, a
 * 1 x 1 convolution to expand1x1_channels, and expand3x3, a 3 x 3 of
 * padding 1 to expand3x3_channels, each with ReLU, joined along the
 * channels by F_concat: (N, in_channels, H, W) in, (N,
 * expand1x1_channels + expand3x3_channels, H, W) out. The weights are
 * drawn at once. An input of other channels stops with an error. */
Layer *fire_module(int64_t in_channels, int64_t squeeze_channels,
                   int64_t expand1x1_channels, int64_t expand3x3_channels);

/* A model of the n layers of layers, each called on the output of the
 * one before, registered as l0, l1, ... (Python: Sequential(*layers)).
 * Keeps a reference to each layer. Owned by the innermost pool. */
Model *sequential_model(int n, Layer *const layers[]);
/* sequential(L_linear(10), L_batch_norm(), L_linear(1)) (Python:
 * Sequential(L.Linear(10), L.BatchNorm(), L.Linear(1))). */
#define sequential(...)                                                  \
    sequential_model((int)(sizeof((Layer *[]){__VA_ARGS__}) /            \
                           sizeof(Layer *)),                             \
                     (Layer *[]){__VA_ARGS__})

/* ================================================= optimizers.c */

typedef struct Optimizer Optimizer;

/* What all optimizers of one kind share (Python: a subclass of
 * Optimizer): a name, how many arrays of state each parameter gets
 * (MomentumSGD's velocity: 1; Adam's two moments: 2), and the update
 * of one parameter. */
typedef struct OptimizerClass {
    const char *name;
    int nslots;
    /* Before the parameters of one update are visited (Adam counts its
     * steps); NULL for none. */
    void (*begin)(Optimizer *self);
    /* Updates p's data from p's gradient, which it has. */
    void (*update_one)(Optimizer *self, Parameter *p);
    /* Or, for an update that is one operation on every parameter (SGD's,
     * one kernel on the GPU), updates the n parameters, each with a
     * gradient, at once; NULL to visit them with update_one. */
    void (*update_all)(Optimizer *self, int n, Parameter *params[]);
} OptimizerClass;

/* A hook: runs on the parameters that have a gradient, before any of
 * them is updated (Python: a callable f(params) given to add_hook). */
typedef struct Hook {
    void (*run)(const struct Hook *self, int n, Parameter *params[]);
    double value;               /* WeightDecay's rate, ClipGrad's
                                 * max_norm */
    Object *frozen;             /* FreezeParam's layer or parameter: a
                                 * reference the optimizer holds */
} Hook;

/* What an optimizer keeps for one parameter (Python: the entries of
 * self.vs, self.ms, ... under the key id(param)). */
typedef struct ParamState {
    Parameter *param;           /* a reference: the key cannot be freed
                                 * and its address reused */
    NdArray *slots[2];          /* owned; zeros like the data at first */
} ParamState;

/* An optimizer: its target, its hooks, and the state of each parameter
 * it has updated. An object of the innermost pool, like a layer. */
struct Optimizer {
    Object object;              /* first: an Optimizer * is an Object * */
    const OptimizerClass *cls;
    Layer *target;              /* a reference; NULL before setup */
    int nhooks;
    Hook *hooks;                /* owned array */
    int nstates, states_capacity;
    ParamState *states;         /* owned array, in order of first use */
    int cursor;                 /* where the last lookup ended */
};

/* Sets the model whose parameters update changes; returns o, so that
 * the calls chain as Python's: optimizer_setup(sgd(0.2), model). */
Optimizer *optimizer_setup(Optimizer *o, Layer *target);
/* One step: the target's parameters that have a gradient go through
 * each hook, in the order added, then each is updated (Python:
 * optimizer.update()). Parameters without a gradient are skipped. */
void optimizer_update(Optimizer *o);
/* Adds a hook, run at every update (Python: optimizer.add_hook(f)). */
void optimizer_add_hook(Optimizer *o, Hook hook);
/* The state arrays of p, made as zeros like p's data the first time
 * (Python: self.vs[id(param)]); borrowed from the optimizer. */
NdArray **optimizer_state(Optimizer *o, Parameter *p);

/* The optimizers, each owned by the innermost pool, with Python's
 * defaults in brackets. */
/* p -= lr g (lr 0.01) */
Optimizer *sgd(double lr);
/* v = momentum v - lr g; p += v (lr 0.01, momentum 0.9) */
Optimizer *momentum_sgd(double lr, double momentum);
/* h += g^2; p -= lr g / (sqrt(h) + eps) (lr 0.001, eps 1e-8) */
Optimizer *adagrad(double lr, double eps);
/* Zeiler's AdaDelta, no learning rate (rho 0.95, eps 1e-6) */
Optimizer *adadelta(double rho, double eps);
/* Adam with the bias-corrected rate alpha sqrt(1 - beta2^t) /
 * (1 - beta1^t) (alpha 0.001, beta1 0.9, beta2 0.999, eps 1e-8) */
Optimizer *adam(double alpha, double beta1, double beta2, double eps);

/* The hooks (Python: WeightDecay(rate), ClipGrad(max_norm),
 * FreezeParam(layer_or_param)). */
/* g += rate p, for each parameter */
Hook weight_decay(double rate);
/* every g scaled by max_norm / (norm + 1e-6) when the norm of all the
 * gradients together exceeds max_norm */
Hook clip_grad(double max_norm);
/* the gradients of a layer's parameters, or of one parameter, removed,
 * so that update skips them */
Hook freeze_layer(Layer *layer);
Hook freeze_parameter(Parameter *p);
#define freeze_param(x) \
    _Generic((x), Layer *: freeze_layer, Parameter *: freeze_parameter)(x)

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
 * $DEZERO_CACHE_DIR or else ~/.dezero (nd_cache_dir, which stops with
 * an error where there is none), and Graphviz's dot program draws it.
 * Returns true when the picture is written; false, with a message on
 * stderr, when it is not: dot not installed, dot failing, no
 * extension. */
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

/* Draws a model fitted to data into to_file, whose extension names the
 * format, .svg or .png: the points of the CSV file points_csv as dots
 * and the curve of curve_csv as a red line, each file's second column
 * against its first, as write_csv writes them, with the axes named
 * xlabel and ylabel (Python: plt.scatter(x, y, s=10), then
 * plt.plot(t, y_pred, color='r'), plt.xlabel and plt.ylabel). The
 * gnuplot program draws it. Borrows the texts. Returns true when the
 * picture is written; false, with a message on stderr that names it,
 * when it is not: gnuplot not installed, gnuplot failing, an extension
 * it does not draw. */
bool plot_fit(const char *points_csv, const char *curve_csv,
              const char *to_file, const char *xlabel, const char *ylabel);

/* Draws the points of the CSV file points_csv (x, y, class, as
 * write_csv writes them; classes 0, 1 and 2) into to_file, whose
 * extension names the format, .svg or .png: a marker and a colour per
 * class, named in a legend (Python: plt.scatter of each point with
 * marker o, x or ^, in orange, blue or green). The gnuplot program draws
 * it. Borrows the texts. Returns true when the picture is written;
 * false, with a message on stderr that names it, when it is not:
 * gnuplot not installed, gnuplot failing, an extension it does not
 * draw. */
bool plot_classes(const char *points_csv, const char *to_file);

/* Draws a classifier's decision regions under its data into to_file
 * (.svg or .png): classes (rows, cols), integers 0, 1 or 2, the class
 * predicted at each point of a grid whose point (column c, row r) is
 * (x0 + c h, y0 + r h), as regions of three colours, and over them the
 * points of points_csv as plot_classes draws them (Python:
 * plt.contourf(xx, yy, Z), then the scatter). Borrows everything.
 * Returns as plot_classes does; a class other than 0, 1, 2 stops with
 * an error. */
bool plot_decision_regions(const NdArray *classes, double x0, double y0,
                           double h, const char *points_csv,
                           const char *to_file);

/* Draws a learning curve into to_file (.svg or .png) from the CSV file
 * at csv_path, as write_csv writes it, with the columns epoch, train
 * loss, test loss, train accuracy, test accuracy: the losses against
 * the left axis, the accuracies against the right one, a line for each
 * named in a legend. Borrows the texts. Returns as plot_classes does. */
bool plot_learning_curve(const char *csv_path, const char *to_file);

/* Draws image, a 2-D uint8 array (rows, cols), into to_file (.svg or
 * .png) as gray pixels, 0 black and 255 white, the first row at the
 * top, without axes (Python: plt.imshow(img, cmap='gray'), then
 * plt.axis('off')). Borrows everything. Returns as plot_classes does;
 * an array of another shape or dtype stops with an error. */
bool plot_image(const NdArray *image, const char *to_file);

/* The gradient gy of a sum along the naxes entries of axes (ND_ALL_AXES:
 * every axis) of an x of x_ndim axes, with the summed axes put back as
 * size 1 when the sum dropped them, so that it broadcasts to x's shape
 * (Python: utils.reshape_sum_backward, given x.ndim where Python takes
 * x's shape). A Variable of the innermost pool, or gy itself when no
 * axis needs putting back. Borrows gy. */
Variable *reshape_sum_backward(Variable *gy, int x_ndim, int naxes,
                               const int *axes, bool keepdims);

/* log(sum(e^x)) along axis, keeping it as size 1, computed as m +
 * log(sum(e^(x - m))) with m the maximum along axis, so that no e^x
 * overflows (Python: utils.logsumexp(x, axis)). A new array of x's
 * dtype; borrows x. */
NdArray *logsumexp(const NdArray *x, int axis);

/* The output size along one axis of a convolution: how many positions
 * a kernel of kernel_size takes on input_size padded with pad on both
 * sides, moving by stride (Python: utils.get_conv_outsize). */
int64_t get_conv_outsize(int64_t input_size, int64_t kernel_size,
                         int64_t stride, int64_t pad);
/* The output size of a transposed convolution: the input size that a
 * convolution takes to size (Python: utils.get_deconv_outsize). */
int64_t get_deconv_outsize(int64_t size, int64_t kernel_size,
                           int64_t stride, int64_t pad);

/* ================================================= transforms.c */

/* A transform of an array (Python: a callable object of transforms.py,
 * such as Normalize(0, 255)): its function and the numbers it needs,
 * by value, as a Hook is. A zero Transform, {0}, is the identity
 * (Python: lambda x: x). Make one with the T_ functions below. */
typedef struct Transform {
    /* y = self(x): borrows x, returns a new array; NULL: x itself */
    NdArray *(*call)(const struct Transform *self, const NdArray *x);
    /* The same on items stacked along a new first axis, xs (n, ...):
     * the stack of call's n results, in one call. NULL where a
     * transform has no such form: its items go through call. */
    NdArray *(*call_batch)(const struct Transform *self,
                           const NdArray *xs);
    double mean, std;           /* T_normalize's */
    NdDtype dtype;              /* T_as_type's */
    int n;                      /* T_compose's: how many transforms */
    const struct Transform *list;   /* and their array, borrowed: it
                                     * must outlive the transform */
} Transform;

/* t(x) (Python: t(x)): a new reference; x itself, with a reference
 * added, for the identity. Borrows x. */
NdArray *transform_apply(const Transform *t, const NdArray *x);
/* Whether t, and every transform it composes, has a batch form: all
 * the T_ functions' transforms and the identity have. */
bool transform_takes_batches(const Transform *t);
/* t on the items stacked in xs (n, ...), in one go: what stacking t's
 * result on each item gives. A new reference; borrows xs. For a t that
 * takes batches. */
NdArray *transform_apply_batch(const Transform *t, const NdArray *xs);

/* The n transforms of the array transforms, in order (Python:
 * Compose(transforms)). Borrows the array, which must outlive the
 * transform: a static array, or a compound literal of the block that
 * uses the transform. */
Transform T_compose(int n, const Transform *transforms);
/* (x - mean) / std (Python: Normalize(mean, std), scalar mean and
 * std); a float32 x stays float32. */
Transform T_normalize(double mean, double std);
/* x as a 1-D array (Python: Flatten()). */
Transform T_flatten(void);
/* x converted to dtype (Python: AsType(dtype)). */
Transform T_as_type(NdDtype dtype);
/* x converted to float32 (Python: ToFloat(), AsType's default). */
Transform T_to_float(void);

/* ================================================= datasets.c */

/* The spiral: 300 points in three arms of 100, one class per arm, in
 * shuffled order (Python: x, t = dezero.datasets.get_spiral(train)).
 * Stores new references in *x, (300, 2) float32, and *t, (300,) int64
 * labels 0, 1, 2. Reseeds the global generator as Python does: 1984 for
 * the training set, 2020 for the test set. */
void get_spiral(bool train, NdArray **x, NdArray **t);

typedef struct Dataset Dataset;

/* What all datasets of one kind share (Python: a subclass of Dataset):
 * a name, and how the data is made or loaded. */
typedef struct DatasetClass {
    const char *name;
    /* Sets self->data and self->label, arrays the dataset owns (Python:
     * prepare()); NULL: none, as Python's base class. */
    void (*prepare)(Dataset *self);
} DatasetClass;

/* What a dataset is made with besides its class; every field is zero
 * unless set, as Python's keyword arguments default to None. */
typedef struct DatasetOptions {
    Transform transform;        /* of each item's data; {0}: none */
    Transform target_transform; /* of each label; {0}: none */
} DatasetOptions;

/* A dataset: items along the first axis of data, their labels in label
 * (Python: class Dataset). An object of the innermost pool, like a
 * layer; a struct for a kind of dataset starts with a Dataset. */
struct Dataset {
    Object object;              /* first: a Dataset * is an Object * */
    const DatasetClass *cls;
    bool train;                 /* the training set, or the test set */
    Transform transform, target_transform;
    NdArray *data;              /* owned: (N, ...); set by prepare */
    NdArray *label;             /* owned: (N, ...); NULL: no labels */
};

/* A new dataset of class cls in a zeroed block of size bytes (a struct
 * that starts with a Dataset), owned by the innermost pool; calls the
 * class's prepare (Python: Dataset.__init__). */
Dataset *dataset_new(const DatasetClass *cls, size_t size, bool train,
                     DatasetOptions options);
/* How many items d holds (Python: len(dataset)). */
int64_t dataset_len(const Dataset *d);
/* Item index of d (negative: from the end): stores in *x its data, in
 * *t its label, each a new reference, transformed; *t is NULL for a
 * dataset without labels (Python: x, t = dataset[index]). An index out
 * of range stops with an error. */
void dataset_item(const Dataset *d, int64_t index, NdArray **x,
                  NdArray **t);
/* The items of d at index, a 1-D int64 array, stacked: *x (n, ...) and
 * *t (n, ...), new references (NULL: no labels) (Python: np.array of
 * [dataset[i][0] for i in index], and of the labels). */
void dataset_batch(const Dataset *d, const NdArray *index, NdArray **x,
                   NdArray **t);
/* The rows of a (one of a dataset's arrays) at index, on a's device,
 * transformed by t, which must have a batch form: a new (n, ...) array
 * (what dataset_batch makes of each; a DataLoader on the GPU makes its
 * batches so from its copies there). */
NdArray *dataset_rows(const NdArray *a, const NdArray *index,
                      const Transform *t);

/* The spiral as a dataset, owned by the innermost pool (Python:
 * dezero.datasets.Spiral(train, transform, target_transform)). */
Dataset *spiral_dataset(bool train, DatasetOptions options);
/* spiral(true), spiral(false, .transform = T_normalize(0, 2)). */
#define spiral(train, ...) \
    spiral_dataset((train), (DatasetOptions){__VA_ARGS__})

/* One period of a noisy sine, 999 items of one value each, (1,)
 * float64, whose label is the next value, (1,): a sequence to learn to
 * continue (Python: dezero.datasets.SinCurve(train, transform,
 * target_transform)). The training set is np.sin over
 * np.linspace(0, 2 pi, 1000) plus noise from np.random.uniform(-0.05,
 * 0.05), unseeded as in Python; the test set the cosine without it.
 * Owned by the innermost pool. */
Dataset *sin_curve_dataset(bool train, DatasetOptions options);
/* sin_curve(true) (Python: SinCurve(train=True)). */
#define sin_curve(train, ...) \
    sin_curve_dataset((train), (DatasetOptions){__VA_ARGS__})

/* MNIST, handwritten digits of 28 x 28 gray pixels, as a dataset: the
 * training set of 60,000 images or the test set of 10,000 (Python:
 * dezero.datasets.MNIST(train, transform, target_transform)). data
 * holds the images, (N, 1, 28, 28) uint8, 0 for the background to 255
 * for the ink; label their digits, (N,) uint8. A zero transform is
 * MNIST's default, as Python's default argument: flatten, to float32,
 * divide by 255, so that an item is (784,) float32 in [0, 1]. The files
 * are read from the DeZero cache ($DEZERO_CACHE_DIR, else ~/.dezero);
 * one that is not there is downloaded first (nd_get_file), and a
 * missing or corrupt file stops with an error that names it. Owned by
 * the innermost pool. */
Dataset *mnist_dataset(bool train, DatasetOptions options);
/* mnist(true), mnist(false, .target_transform = ...). */
#define mnist(train, ...) \
    mnist_dataset((train), (DatasetOptions){__VA_ARGS__})
/* The first rows x cols images of the MNIST-shaped dataset d (its data
 * (N, 1, 28, 28) uint8), tiled in a grid of rows by cols: a new array
 * (rows 28, cols 28) uint8. */
NdArray *mnist_tile(const Dataset *d, int rows, int cols);
/* Draws mnist_tile(d, rows, cols) into to_file, .svg or .png, as
 * plot_image does (Python: MNIST.show(row, col), which draws random
 * images; these are the first, the same every run). Borrows
 * everything; returns as plot_image does. */
bool mnist_show(const Dataset *d, int rows, int cols, const char *to_file);

/* Where ImageNet's 1000 class names are published, a Python dict
 * literal of class number to name (Python: the url of
 * ImageNet.labels()). */
#define IMAGENET_LABELS_URL \
    "https://gist.githubusercontent.com/yrevar/942d3a0ac09ec9e5eb3a/" \
    "raw/238f720ff059c1f82f368259d1ca4ffa5dd8f9f5/" \
    "imagenet1000_clsidx_to_labels.txt"

/* ImageNet's class names, names[k] for class k, their number (1000) in
 * *count (Python: ImageNet.labels()): IMAGENET_LABELS_URL's file, from
 * the DeZero cache, downloaded first when it is not there (nd_get_url),
 * read without running it (nd_read_class_names). Returns what the
 * caller frees with nd_free_class_names. */
char **imagenet_labels(int *count);

/* ================================================= dataloaders.c */

/* An iterator over the mini-batches of a dataset, epoch after epoch
 * (Python: DataLoader). An object of the innermost pool. Python's for
 * loop over a loader is
 *
 *     NdArray *x, *t;
 *     while (dataloader_next(loader, &x, &t)) {
 *         ...
 *         nd_release(t);
 *         nd_release(x);
 *     }
 */
typedef struct DataLoader {
    Object object;              /* first: a DataLoader * is an Object * */
    Dataset *dataset;           /* a reference */
    int64_t batch_size;
    bool shuffle;               /* a new random order every epoch */
    int64_t data_size;          /* len(dataset) */
    int64_t max_iter;           /* batches per epoch: the last may be
                                 * smaller */
    int64_t iteration;          /* batches given in this epoch */
    NdArray *index;             /* owned: this epoch's order, int64,
                                 * batch after batch */
    NdDevice device;            /* where its batches are handed out
                                 * (Python: self.gpu); ND_CPU at first */
    bool sequential;            /* a SeqDataLoader's (step 60): batch
                                 * row k holds item k * (data_size /
                                 * batch_size) + iteration (mod
                                 * data_size) */
    NdArray *data, *label;      /* owned: the dataset's data and labels
                                 * copied to the GPU once, to make each
                                 * batch there; NULL on the host */
    NdArray *device_index;      /* owned: index, copied there once an
                                 * epoch; NULL until needed */
} DataLoader;

/* A new loader of dataset's items in batches of batch_size, owned by
 * the innermost pool, which keeps a reference to dataset (Python:
 * DataLoader(dataset, batch_size, shuffle)). With shuffle, each epoch
 * takes the items in the order of an np.random.permutation, the first
 * drawn now; without, in the dataset's order. */
DataLoader *dataloader(Dataset *dataset, int64_t batch_size, bool shuffle);
/* A new loader of a sequence (Python: SeqDataLoader(dataset,
 * batch_size)): batch_size sequences read side by side, the first from
 * item 0, the next from item data_size / batch_size on, and so on, one
 * item of each per batch: batch n holds, in row k, the item (k *
 * (data_size / batch_size) + n) % data_size. An epoch has as many
 * batches as a DataLoader of that batch size, never shuffled. Owned by
 * the innermost pool, as dataloader's. */
DataLoader *seq_dataloader(Dataset *dataset, int64_t batch_size);
/* The epoch's next batch: stores new references in *x (n, ...) and *t
 * (n, ...; NULL for a dataset without labels), on the loader's device,
 * n = batch_size or, for
 * the last batch, what is left, and returns true. At the end of the
 * epoch it resets the loader for the next, drawing its order, and
 * returns false, storing nothing (Python: next(loader), and the
 * StopIteration that ends a for loop). */
bool dataloader_next(DataLoader *loader, NdArray **x, NdArray **t);
/* Starts a new epoch now, in a new order when the loader shuffles
 * (Python: loader.reset()). */
void dataloader_reset(DataLoader *loader);
/* Hands out the next batches on the host, or on the GPU (Python:
 * loader.to_cpu(), loader.to_gpu()). The dataset stays on the host;
 * where its transforms have a batch form, dataloader_to_gpu copies its
 * data and labels to the GPU once and each batch is picked and
 * transformed there (the batch forms must then work on the GPU, as the
 * T_ transforms do); otherwise each batch is made on the host and
 * moved. dataloader_to_gpu stops with the reason when the GPU cannot
 * be used. */
void dataloader_to_cpu(DataLoader *loader);
void dataloader_to_gpu(DataLoader *loader);

#endif /* DEZERO_H */
