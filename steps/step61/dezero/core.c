/* core.c - the core of DeZero, as the book's core.py: Config,
 * Variable, Function and backward, with gradients as Variables whose
 * computation backward can record (create_graph), and the functions of
 * the first steps (Square, Exp) and of arithmetic (Add, Mul, Neg, Sub,
 * Div, Pow), each backward written with these same functions; those of
 * two operands broadcast them, and sum each gradient back to its
 * operand's shape. A Variable moves to the GPU and back, and the
 * numbers in its arithmetic are made on its device. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dezero.h"

/* ---- configuration */

Config config = {.enable_backprop = true, .train = true};

/* ---- Variable */

int variables_alive;            /* Variables made and not yet freed */

static const ObjectType variable_type;

/* A new Variable holding data, owned by the innermost pool. It takes
 * over the caller's reference to data, so variable(nd_scalar(1.0))
 * leaks nothing. The parameter's type keeps out anything but an array;
 * NULL, which it lets in, stops here. */
Variable *variable(NdArray *data)
{
    if (!data)
        nd_error("variable", "NULL is not supported; data must point to "
                 "an NdArray");
    Variable *v = object_new(sizeof *v, &variable_type, "variable");
    variables_alive++;
    v->data = data;
    v->name = NULL;
    v->grad = NULL;
    v->creator = NULL;          /* none: an input the user made */
    v->generation = 0;
    return v;
}

/* A new Parameter holding data, named name, owned by the innermost
 * pool (Python: Parameter(data, name=name)): a Variable whose type says
 * it is to be trained. It takes over the caller's reference to data,
 * which may be NULL for a parameter whose array is made later, as a
 * layer's weight is at its first call. */
Parameter *parameter(NdArray *data, const char *name)
{
    Parameter *p = object_new(sizeof *p, &variable_type, "parameter");
    variables_alive++;
    p->variable.data = data;
    p->variable.name = name;
    return p;
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

/* Forgets v's gradient, so that the next backward starts it afresh:
 * releases v's reference to it. v->grad is NULL before the release,
 * which may free a graph that leads back to v itself. */
void cleargrad(Variable *v)
{
    Variable *grad = v->grad;
    v->grad = NULL;
    release(grad);
}

/* v's data replaced by a copy on device, unless it is there already
 * or v has none. */
static void move_data(Variable *v, NdDevice device)
{
    if (!v->data)
        return;
    NdArray *data = nd_to_device(v->data, device);
    nd_release(v->data);
    v->data = data;
}

/* Python: Variable.to_cpu and to_gpu, self.data = as_numpy(self.data)
 * and as_cupy(self.data) when there is data. */
void variable_to_cpu(Variable *v)
{
    move_data(v, ND_CPU);
}

void variable_to_gpu(Variable *v)
{
    require_gpu("variable_to_gpu");
    move_data(v, ND_CUDA);
}

int functions_alive;            /* Functions made and not yet freed */

/* Drops f's references to its inputs (the collector's clear). */
static void function_clear(Object *object)
{
    Function *f = (Function *)object;
    Variable **inputs = f->inputs;
    int n = f->ninputs;
    f->inputs = NULL;
    f->ninputs = 0;
    for (int i = 0; i < n; i++)
        release(inputs[i]);
    block_free(inputs, n * sizeof *inputs);
}

/* Frees f when nothing refers to it any more: drops its references to
 * its inputs, and what its class keeps (its destroy hook). (Its outputs
 * are gone: each held a reference to f.) */
static void function_destroy(Object *object)
{
    Function *f = (Function *)object;
    function_clear(object);
    if (f->cls->destroy)
        f->cls->destroy(f);
    block_free(f->outputs, f->noutputs * sizeof *f->outputs);
    object_free(object);
    functions_alive--;
}

/* Shows the collector f's references: its inputs. */
static void function_traverse(Object *object,
                              void (*visit)(Object *, void *), void *arg)
{
    Function *f = (Function *)object;
    for (int i = 0; i < f->ninputs; i++)
        visit(&f->inputs[i]->object, arg);
}

static const ObjectType function_type = {
    .destroy = function_destroy,
    .traverse = function_traverse,
    .clear = function_clear,
};

/* A new Function of class cls in a zeroed block of size bytes: a struct
 * that starts with a Function and adds what its class keeps, such as
 * Pow's exponent. Owned by the innermost pool. */
Function *function_new_sized(const FunctionClass *cls, size_t size)
{
    Function *f = object_new(size, &function_type, "function_new");
    functions_alive++;
    f->cls = cls;
    return f;
}

/* A new Function of class cls, owned by the innermost pool. */
Function *function_new(const FunctionClass *cls)
{
    return function_new_sized(cls, sizeof(Function));
}

/* Cuts v off from the function that made it, keeping v's data and
 * gradient (Python: v.unchain()): the creator's weak pointer to v is
 * cleared, and v's reference to it released, which frees the creator,
 * and what only it kept alive, when nobody else holds it. */
void variable_unchain(Variable *v)
{
    Function *f = v->creator;
    for (int i = 0; f && i < f->noutputs; i++)
        if (f->outputs[i] == v)
            f->outputs[i] = NULL;
    v->creator = NULL;
    release(f);
}

/* Drops v's references to other objects, its creator and its gradient
 * (the collector's clear). */
static void variable_clear(Object *object)
{
    Variable *v = (Variable *)object;
    variable_unchain(v);
    cleargrad(v);
}

/* Frees v when nothing refers to it any more: drops its references to
 * its creator and its gradient, and to its data. */
static void variable_destroy(Object *object)
{
    Variable *v = (Variable *)object;
    variable_clear(object);
    nd_release(v->data);
    object_free(object);
    variables_alive--;
}

/* Shows the collector v's references: its gradient and its creator. */
static void variable_traverse(Object *object,
                              void (*visit)(Object *, void *), void *arg)
{
    Variable *v = (Variable *)object;
    if (v->grad)
        visit(&v->grad->object, arg);
    if (v->creator)
        visit(&v->creator->object, arg);
}

static const ObjectType variable_type = {
    .destroy = variable_destroy,
    .traverse = variable_traverse,
    .clear = variable_clear,
};

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

    Variable **outputs = block_new(m * sizeof *outputs, "function_apply");
    for (int i = 0; i < m; i++)
        outputs[i] = variable(ys[i]);
    Variable *output = outputs[0];
    if (!config.enable_backprop) {      /* no graph to record */
        block_free(outputs, m * sizeof *outputs);
        return output;
    }

    f->generation = inputs[0]->generation;
    for (int i = 1; i < n; i++)
        if (inputs[i]->generation > f->generation)
            f->generation = inputs[i]->generation;
    for (int i = 0; i < m; i++)
        set_creator(outputs[i], f);
    f->ninputs = n;
    f->inputs = block_new(n * sizeof *f->inputs, "function_apply");
    for (int i = 0; i < n; i++)
        f->inputs[i] = retain(inputs[i]);
    f->noutputs = m;
    f->outputs = outputs;
    return output;
}

/* The gradients of f's inputs in its last call, gxs (one per input:
 * Variables of the innermost pool, or some of gys; NULL for an input
 * that gets none), from those of its outputs, gys (borrowed). The
 * backward is made of functions: with config.enable_backprop they are
 * recorded, as any other call. */
void function_backward(Function *f, Variable *gys[], Variable *gxs[])
{
    if (!f->cls->backward)
        nd_error("function_backward", "%s has no backward",
                 f->cls->name);
    for (int i = 0; i < f->ninputs; i++)
        gxs[i] = NULL;
    (f->cls->backward)(f, gys, gxs);    /* (): backward is a macro */
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

Variable *variable_of_parameter(Parameter *p)
{
    return p ? &p->variable : NULL;     /* NULL: an absent bias */
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

/* Python: as_array(x, array_module), for a number x: xp.array(x). */
NdArray *as_array(double value, NdDtype dtype, NdDevice device)
{
    return nd_full_on(device, dtype, ND_SCALAR_SHAPE, value);
}

/* The number's Variable is the operator's own, made by as_variable for
 * this call, so nothing else sees its array move. */
void operands_on_one_device(Variable *a, bool a_is_number, Variable *b,
                            bool b_is_number)
{
    if (a_is_number && !b_is_number)
        move_data(a, get_array_module(b));
    else if (b_is_number && !a_is_number)
        move_data(b, get_array_module(a));
}

/* ---- Square: y = x^2, dy/dx = 2x */

static void square_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_mul(xs[0], xs[0]);   /* x ** 2, computed by NumPy as x*x */
}

static void square_backward(Function *self, Variable *gys[],
                            Variable *gxs[])
{
    Variable *x = self->inputs[0];
    gxs[0] = F_mul(F_mul(2, x), gys[0]);        /* 2 * x * gy */
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
Variable *(F_square)(Variable *x)
{
    return function_call(square_function(), x);
}

/* ---- Exp: y = e^x, dy/dx = e^x */

static void exp_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_exp(xs[0]);
}

static void exp_backward(Function *self, Variable *gys[],
                         Variable *gxs[])
{
    Variable *x = self->inputs[0];
    gxs[0] = F_mul(F_exp(x), gys[0]);           /* e^x * gy */
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
Variable *(F_exp)(Variable *x)
{
    return function_call(exp_function(), x);
}

/* ---- Add: y = x0 + x1, dy/dx0 = dy/dx1 = 1 */

/* The gradient gx of an input x that a binary function broadcast:
 * summed down to x's shape over the axes broadcasting added or
 * stretched, since each element of x went into every element of y
 * along them. gx itself when x was not broadcast (F_sum_to returns it
 * for its own shape). */
static Variable *unbroadcast(Variable *gx, const Variable *x)
{
    return F_sum_to(gx, variable_ndim(x), variable_shape(x));
}

/* What Add and Sub keep: their inputs' shapes, taken in forward, so
 * that their backward reads no input's data (Python: self.x0_shape and
 * self.x1_shape). F_linear_simple frees the data of a sum's input as
 * soon as the sum is computed. */
typedef struct ShapesFunction {
    Function function;          /* first: a ShapesFunction * is a
                                 * Function * */
    int ndim[2];
    int64_t shape[2][ND_MAX_DIMS];
} ShapesFunction;

/* Remembers the shapes of the two inputs xs in self. */
static void keep_shapes(Function *self, NdArray *xs[])
{
    ShapesFunction *f = (ShapesFunction *)self;
    for (int i = 0; i < 2; i++) {
        f->ndim[i] = xs[i]->ndim;
        memcpy(f->shape[i], xs[i]->shape, sizeof f->shape[i]);
    }
}

/* unbroadcast to the shape input i had in forward. */
static Variable *unbroadcast_kept(Variable *gx, const Function *self,
                                  int i)
{
    const ShapesFunction *f = (const ShapesFunction *)self;
    return F_sum_to(gx, f->ndim[i], f->shape[i]);
}

static void add_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    keep_shapes(self, xs);
    ys[0] = nd_add(xs[0], xs[1]);
}

/* Both inputs get gy itself, one Variable that both will hold, summed
 * down to the input's shape where the input was broadcast. */
static void add_backward(Function *self, Variable *gys[],
                         Variable *gxs[])
{
    gxs[0] = unbroadcast_kept(gys[0], self, 0);
    gxs[1] = unbroadcast_kept(gys[0], self, 1);
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
    return function_new_sized(&add_class, sizeof(ShapesFunction));
}

/* y = x0 + x1 for two Variables: a new Add, called on both. */
Variable *add_variables(Variable *x0, Variable *x1)
{
    return function_call(add_function(), x0, x1);
}

/* ---- Mul: y = x0 * x1, dy/dx0 = x1, dy/dx1 = x0 */

static void mul_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_mul(xs[0], xs[1]);
}

/* Each input's gradient is gy times the other input, summed down to
 * the input's shape where the input was broadcast. */
static void mul_backward(Function *self, Variable *gys[],
                         Variable *gxs[])
{
    Variable *x0 = self->inputs[0], *x1 = self->inputs[1];
    gxs[0] = unbroadcast(F_mul(gys[0], x1), x0);
    gxs[1] = unbroadcast(F_mul(gys[0], x0), x1);
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

/* ---- Neg: y = -x, dy/dx = -1 */

static void neg_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_neg(xs[0]);
}

static void neg_backward(Function *self, Variable *gys[],
                         Variable *gxs[])
{
    (void)self;
    gxs[0] = F_neg(gys[0]);
}

static const FunctionClass neg_class = {
    .name = "Neg",
    .noutputs = 1,
    .forward = neg_forward,
    .backward = neg_backward,
};

/* A new Neg function (Python: Neg()). */
Function *neg_function(void)
{
    return function_new(&neg_class);
}

/* y = -x for a Variable: a new Neg, called on it. */
Variable *neg_variable(Variable *x)
{
    return function_call(neg_function(), x);
}

/* ---- Sub: y = x0 - x1, dy/dx0 = 1, dy/dx1 = -1 */

static void sub_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    keep_shapes(self, xs);
    ys[0] = nd_sub(xs[0], xs[1]);
}

static void sub_backward(Function *self, Variable *gys[],
                         Variable *gxs[])
{
    gxs[0] = unbroadcast_kept(gys[0], self, 0);
    gxs[1] = unbroadcast_kept(F_neg(gys[0]), self, 1);
}

static const FunctionClass sub_class = {
    .name = "Sub",
    .noutputs = 1,
    .forward = sub_forward,
    .backward = sub_backward,
};

/* A new Sub function (Python: Sub()). */
Function *sub_function(void)
{
    return function_new_sized(&sub_class, sizeof(ShapesFunction));
}

/* y = x0 - x1 for two Variables: a new Sub, called on both. */
Variable *sub_variables(Variable *x0, Variable *x1)
{
    return function_call(sub_function(), x0, x1);
}

/* ---- Div: y = x0 / x1, dy/dx0 = 1 / x1, dy/dx1 = -x0 / x1^2 */

static void div_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_div(xs[0], xs[1]);
}

static void div_backward(Function *self, Variable *gys[],
                         Variable *gxs[])
{
    Variable *x0 = self->inputs[0], *x1 = self->inputs[1];
    gxs[0] = unbroadcast(F_div(gys[0], x1), x0);        /* gy / x1 */
    Variable *ratio = F_div(F_neg(x0), F_pow(x1, 2));   /* -x0 / x1**2 */
    gxs[1] = unbroadcast(F_mul(gys[0], ratio), x1);
}

static const FunctionClass div_class = {
    .name = "Div",
    .noutputs = 1,
    .forward = div_forward,
    .backward = div_backward,
};

/* A new Div function (Python: Div()). */
Function *div_function(void)
{
    return function_new(&div_class);
}

/* y = x0 / x1 for two Variables: a new Div, called on both. */
Variable *div_variables(Variable *x0, Variable *x1)
{
    return function_call(div_function(), x0, x1);
}

/* ---- Pow: y = x^c for a constant c, dy/dx = c x^(c-1) */

/* x ** c as NumPy's ** computes it for an array and a number: with
 * pow(), except that a float array takes sqrt() for the exponent 0.5,
 * which pow() does not always match to the last bit. (NumPy's other
 * shortcuts, x * x for 2 and 1 / x for -1, agree with pow().) The
 * exponent is made on x's device. */
static NdArray *array_power(const NdArray *x, double c, NdDtype c_dtype)
{
    if (c == 0.5 && nd_dtype_is_float(x->dtype))
        return nd_sqrt(x);
    NdArray *exponent = as_array(c, c_dtype, get_array_module(x));
    NdArray *y = nd_pow(x, exponent);
    nd_release(exponent);
    return y;
}

static void pow_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    const PowFunction *f = (const PowFunction *)self;
    ys[0] = array_power(xs[0], f->c, f->c_dtype);
}

/* The exponent is a constant: a new Variable holds it, of the dtype
 * the call gave it, on x's device, as Python's c becomes an array when
 * multiplied. */
static void pow_backward(Function *self, Variable *gys[],
                         Variable *gxs[])
{
    const PowFunction *f = (const PowFunction *)self;
    Variable *x = self->inputs[0];
    Variable *c = variable(as_array(f->c, f->c_dtype,
                                    get_array_module(x)));
    Variable *x_c1 = pow_variable(x, f->c - 1, f->c_dtype);
    gxs[0] = F_mul(F_mul(c, x_c1), gys[0]);     /* c * x**(c-1) * gy */
}

static const FunctionClass pow_class = {
    .name = "Pow",
    .noutputs = 1,
    .forward = pow_forward,
    .backward = pow_backward,
};

/* A new Pow function with the exponent c of dtype c_dtype (Python:
 * Pow(c)). */
Function *pow_function(double c, NdDtype c_dtype)
{
    PowFunction *f = (PowFunction *)function_new_sized(&pow_class,
                                                       sizeof *f);
    f->c = c;
    f->c_dtype = c_dtype;
    return &f->function;
}

/* y = x ** c for a Variable: a new Pow(c), called on it. */
Variable *pow_variable(Variable *x, double c, NdDtype c_dtype)
{
    return function_call(pow_function(c, c_dtype), x);
}

/* ---- backpropagation */

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

/* Adds gx (borrowed) to x's gradient. The first gradient is gx itself,
 * which x retains; the next ones make a new Variable, x->grad + gx, by
 * F_add (recorded when backward records its graph), never an addition
 * in place: x->grad may be another variable's gradient too (Add passes
 * gy on as it is). */
void accumulate_grad(Variable *x, Variable *gx)
{
    Variable *sum = x->grad ? F_add(x->grad, gx) : gx;
    retain(sum);
    cleargrad(x);
    x->grad = sum;
}

/* Turns f's outputs' grads into its inputs' grads, which are added to
 * what the inputs already have, and pushes each input's creator to be
 * visited in this pass. */
static void backward_step(Function *f, FunctionStack *funcs,
                          unsigned long pass)
{
    Variable *gys[f->noutputs], *gxs[f->ninputs];
    for (int i = 0; i < f->noutputs; i++) {
        Variable *y = f->outputs[i];            /* NULL once freed */
        gys[i] = y ? y->grad : NULL;
    }
    function_backward(f, gys, gxs);
    for (int i = 0; i < f->ninputs; i++) {
        Variable *x = f->inputs[i];
        if (!gxs[i])
            continue;           /* an input without a gradient */
        accumulate_grad(x, gxs[i]);
        if (x->creator)
            push_unseen(funcs, x->creator, pass);
    }
}

/* The variables whose gradients a backward pass hands to the caller's
 * pool, as the pass finds them (one may come more than once). */
typedef struct VariableList {
    Variable **items;           /* owned array of borrowed variables */
    size_t count;
    size_t capacity;
} VariableList;

static void list_push(VariableList *list, Variable *v)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 16;
        Variable **items = realloc(list->items, capacity * sizeof *items);
        if (!items)
            nd_error("variable_backward", "out of memory");
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = v;
}

/* Fills in the grad of every variable that y depends on, from y->grad
 * (a Variable of ones of y's shape and dtype when it is NULL): each
 * function, taken from the stack in order of generation, makes its
 * step. The steps run with config.enable_backprop set to
 * options.create_graph: only then do the functions they call record a
 * graph of the gradients. Then, unless options.retain_grad, the
 * function's outputs forget their grads: only the variables no
 * function made (the inputs) keep theirs. Each step runs in a pool of
 * its own, drained once its gradients are added to their variables:
 * what only the step used is freed there, and a gradient that its
 * variable lets go of later is freed then, as Python frees it. The
 * gradients kept at the end get a reference of the innermost pool,
 * one for each time a step added to them, as the seed has one. */
void variable_backward(Variable *y, BackwardOptions options)
{
    static unsigned long passes;    /* backward passes so far */
    unsigned long pass = ++passes;
    if (!y->grad)           /* dy/dy = 1 */
        y->grad = retain(variable(nd_ones_like(y->data)));
    FunctionStack funcs = {0};
    VariableList kept = {0};        /* whose grads outlive the pass */
    if (y->creator)
        push_unseen(&funcs, y->creator, pass);
    while (funcs.count > 0) {
        Function *f = stack_pop(&funcs);
        Pool *step = pool_new();
        USING_CONFIG(enable_backprop, options.create_graph) {
            backward_step(f, &funcs, pass);
        }
        pool_drain(step);
        for (int i = 0; i < f->ninputs; i++) {
            Variable *x = f->inputs[i];
            if (x->grad && (options.retain_grad || !x->creator))
                list_push(&kept, x);
        }
        if (!options.retain_grad)
            for (int i = 0; i < f->noutputs; i++)
                if (f->outputs[i])
                    cleargrad(f->outputs[i]);
    }
    for (size_t i = 0; i < kept.count; i++)
        autorelease(retain(kept.items[i]->grad));
    free(kept.items);
    free(funcs.items);
    if (options.create_graph)
        gc_request();       /* the gradients may hold their variables */
}

/* ---- cutting the graph (step 59) */

/* Cuts every variable that y depends on off from its creator, as
 * variable_unchain does, keeping their data (Python:
 * y.unchain_backward()); y keeps its own creator, as in Python, whose
 * inputs are cut. The functions of the graph behind y are then freed,
 * unless something else holds them. Each function waits on the stack
 * with a reference of its own, since cutting the variable that held it
 * may drop its last one; letting go of it once its inputs are cut frees
 * it. */
void variable_unchain_backward(Variable *y)
{
    if (!y->creator)
        return;
    FunctionStack funcs = {0};
    stack_push(&funcs, retain(y->creator));
    while (funcs.count > 0) {
        Function *f = stack_pop(&funcs);
        for (int i = 0; i < f->ninputs; i++) {
            Variable *x = f->inputs[i];
            if (x->creator) {
                stack_push(&funcs, retain(x->creator));
                variable_unchain(x);
            }
        }
        release(f);
    }
    free(funcs.items);
}
