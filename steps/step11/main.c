/* Step 11: functions with several inputs and outputs.
 *
 * A Function now takes an array of input Variables and makes an array of
 * outputs, so Add(x0, x1) fits; backward still handles one input and one
 * output (step 13 generalizes it). */
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

typedef struct Function Function;

typedef struct Variable {
    NdArray *data;
    NdArray *grad;              /* dL/d(this variable), NULL until set */
    Function *creator;          /* borrowed: the function that made it */
} Variable;

/* A new Variable holding data. It takes over the caller's reference to
 * data, so variable(nd_scalar(1.0)) leaks nothing. The parameter's type
 * keeps out anything but an array; NULL, which it lets in, stops here. */
Variable *variable(NdArray *data)
{
    if (!data)
        nd_error("variable", "NULL is not supported; data must point to "
                 "an NdArray");
    Variable *v = allocate(1, sizeof *v, "variable");
    v->data = data;
    v->grad = NULL;
    v->creator = NULL;          /* none: an input the user made */
    return v;
}

/* Frees v and its arrays. Accepts NULL. */
void variable_free(Variable *v)
{
    if (!v)
        return;
    nd_release(v->data);
    nd_release(v->grad);
    free(v);
}

/* Records that f made v. */
void set_creator(Variable *v, Function *f)
{
    v->creator = f;
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
    /* dL/dx from gy = dL/dy, for one input and one output (for now):
     * borrows gy, returns a new array. NULL: not written yet. */
    NdArray *(*backward)(Function *self, const NdArray *gy);
} FunctionClass;

/* One function object: its class, and what it remembers of its call. */
struct Function {
    const FunctionClass *cls;
    int ninputs;
    Variable **inputs;          /* owned array of borrowed Variables */
    int noutputs;
    Variable **outputs;         /* owned array of borrowed Variables */
};

/* A new Function of class cls. The caller owns it. */
Function *function_new(const FunctionClass *cls)
{
    Function *f = allocate(1, sizeof *f, "function_new");
    *f = (Function){.cls = cls};
    return f;
}

/* Calls f on the n Variables of inputs: Python's f(inputs), a list in
 * and a list out. Borrows inputs (f keeps a copy of the array). Returns
 * f->outputs, f's own array of its cls->noutputs new Variables. */
Variable **function_call(Function *f, int n, Variable *inputs[])
{
    int m = f->cls->noutputs;
    if (n < 1 || m < 1)
        nd_error("function_call", "%s needs at least one input and one "
                 "output, got %d and %d", f->cls->name, n, m);
    NdArray *xs[n], *ys[m];     /* arrays whose length is known now */
    for (int i = 0; i < n; i++)
        xs[i] = inputs[i]->data;
    f->cls->forward(f, xs, ys);

    Variable **outputs = allocate(m, sizeof *outputs, "function_call");
    for (int i = 0; i < m; i++) {
        outputs[i] = variable(ys[i]);
        set_creator(outputs[i], f);
    }
    f->ninputs = n;
    f->inputs = allocate(n, sizeof *f->inputs, "function_call");
    memcpy(f->inputs, inputs, n * sizeof *inputs);
    f->noutputs = m;
    f->outputs = outputs;
    return outputs;
}

/* dL/dx of f's last call, given gy = dL/dy. Returns a new array. */
NdArray *function_backward(Function *f, const NdArray *gy)
{
    if (!f->cls->backward)
        nd_error("function_backward", "%s has no backward",
                 f->cls->name);
    return f->cls->backward(f, gy);
}

/* ---- Square: y = x^2, dy/dx = 2x */

static void square_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_mul(xs[0], xs[0]);   /* x ** 2, computed by NumPy as x*x */
}

static NdArray *square_backward(Function *self, const NdArray *gy)
{
    const NdArray *x = self->inputs[0]->data;
    NdArray *two = nd_scalar_of(ND_INT64, 2);   /* Python's int 2 */
    NdArray *two_x = nd_mul(two, x);
    NdArray *gx = nd_mul(two_x, gy);            /* 2 * x * gy */
    nd_release(two);
    nd_release(two_x);
    return gx;
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
    return function_call(square_function(), 1, &x)[0];
}

/* ---- Exp: y = e^x, dy/dx = e^x */

static void exp_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_exp(xs[0]);
}

static NdArray *exp_backward(Function *self, const NdArray *gy)
{
    const NdArray *x = self->inputs[0]->data;
    NdArray *exp_x = nd_exp(x);
    NdArray *gx = nd_mul(exp_x, gy);            /* e^x * gy */
    nd_release(exp_x);
    return gx;
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
    return function_call(exp_function(), 1, &x)[0];
}

/* ---- Add: y = x0 + x1 (its backward comes in step 13) */

static void add_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    (void)self;
    ys[0] = nd_add(xs[0], xs[1]);
}

static const FunctionClass add_class = {
    .name = "Add",
    .noutputs = 1,
    .forward = add_forward,
};

/* A new Add function (Python: Add()). */
Function *add_function(void)
{
    return function_new(&add_class);
}

/* ---- numerical differentiation */

/* The derivative of f at x, estimated by a central difference:
 * (f(x + eps) - f(x - eps)) / (2 eps), elementwise. Borrows x; returns
 * a new array. The Variables it makes are left to the OS (step 17). */
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

/* The functions still to visit: an array that doubles when full. */
typedef struct FunctionStack {
    Function **items;           /* owned array of borrowed functions */
    size_t count;
    size_t capacity;
} FunctionStack;

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
    stack->items[stack->count++] = f;
}

/* The function pushed last; the stack must not be empty. */
Function *stack_pop(FunctionStack *stack)
{
    return stack->items[--stack->count];
}

/* Fills in the grad of every variable that y depends on, from y->grad
 * (ones of y's shape and dtype when it is NULL): each function, taken
 * from the stack, turns its output's grad into its input's grad, and
 * the input's creator is pushed to be visited next. Functions with one
 * input and one output only, until step 13. */
void backward(Variable *y)
{
    if (!y->grad)
        y->grad = nd_ones_like(y->data);        /* dy/dy = 1 */
    FunctionStack funcs = {0};
    if (y->creator)
        stack_push(&funcs, y->creator);
    while (funcs.count > 0) {
        Function *f = stack_pop(&funcs);
        Variable *x = f->inputs[0], *out = f->outputs[0];
        x->grad = function_backward(f, out->grad);
        if (x->creator)
            stack_push(&funcs, x->creator);
    }
    free(funcs.items);
}

/* ---- the program */

/* Until step 17 the program leaves its objects to the operating system,
 * which takes back all the memory when the program ends. */
int main(void)
{
    Variable *xs[] = {variable(nd_scalar_of(ND_INT64, 2)),
                      variable(nd_scalar_of(ND_INT64, 3))};
    Function *f = add_function();
    Variable **ys = function_call(f, 2, xs);
    Variable *y = ys[0];
    nd_print(y->data);
    return 0;
}
