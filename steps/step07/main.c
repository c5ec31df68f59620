/* Step 07: backpropagation, automated.
 *
 * Each Variable remembers its creator, the Function that made it, and
 * each Function its output: the graph can now be walked backwards.
 * backward(y) follows the creators from y to the input, recursively. */
#include <stdio.h>
#include <stdlib.h>

#include "nd.h"

typedef struct Function Function;

typedef struct Variable {
    NdArray *data;
    NdArray *grad;              /* dL/d(this variable), NULL until set */
    Function *creator;          /* borrowed: the function that made it */
} Variable;

/* A new Variable holding data. It takes over the caller's reference to
 * data, so variable(nd_scalar(1.0)) leaks nothing. */
Variable *variable(NdArray *data)
{
    Variable *v = malloc(sizeof *v);
    if (!v) {
        fprintf(stderr, "variable: out of memory\n");
        exit(1);
    }
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

/* What all functions of one kind share: a name and the code of forward
 * and backward. One constant table per kind (Square, ...) plays the role
 * of a class. */
typedef struct FunctionClass {
    const char *name;
    /* y = f(x): borrows x, returns a new array. */
    NdArray *(*forward)(Function *self, const NdArray *x);
    /* dL/dx from gy = dL/dy: borrows gy, returns a new array. */
    NdArray *(*backward)(Function *self, const NdArray *gy);
} FunctionClass;

/* One function object: its class, and what it remembers of its call. */
struct Function {
    const FunctionClass *cls;
    Variable *input;            /* borrowed: backward reads input->data */
    Variable *output;           /* borrowed: the variable it made */
};

/* A new Function of class cls. The caller owns it. */
Function *function_new(const FunctionClass *cls)
{
    Function *f = malloc(sizeof *f);
    if (!f) {
        fprintf(stderr, "function_new: out of memory\n");
        exit(1);
    }
    *f = (Function){.cls = cls};
    return f;
}

/* y = f(input): unwraps the array, runs the class's forward and wraps
 * the result in a new Variable, which the caller owns. Borrows input. */
Variable *function_call(Function *f, Variable *input)
{
    NdArray *x = input->data;
    NdArray *y = f->cls->forward(f, x);
    Variable *output = variable(y);
    set_creator(output, f);     /* the output remembers its parent */
    f->input = input;           /* remembered for backward */
    f->output = output;
    return output;
}

/* dL/dx of f's last call, given gy = dL/dy. Returns a new array. */
NdArray *function_backward(Function *f, const NdArray *gy)
{
    return f->cls->backward(f, gy);
}

/* ---- Square: y = x^2, dy/dx = 2x */

static NdArray *square_forward(Function *self, const NdArray *x)
{
    (void)self;
    return nd_mul(x, x);        /* x ** 2, which NumPy computes as x*x */
}

static NdArray *square_backward(Function *self, const NdArray *gy)
{
    const NdArray *x = self->input->data;
    NdArray *two = nd_scalar_of(ND_INT64, 2);   /* Python's int 2 */
    NdArray *two_x = nd_mul(two, x);
    NdArray *gx = nd_mul(two_x, gy);            /* 2 * x * gy */
    nd_release(two);
    nd_release(two_x);
    return gx;
}

static const FunctionClass square_class = {
    .name = "Square",
    .forward = square_forward,
    .backward = square_backward,
};

/* A new Square function (Python: Square()). */
Function *square_function(void)
{
    return function_new(&square_class);
}

/* ---- Exp: y = e^x, dy/dx = e^x */

static NdArray *exp_forward(Function *self, const NdArray *x)
{
    (void)self;
    return nd_exp(x);
}

static NdArray *exp_backward(Function *self, const NdArray *gy)
{
    const NdArray *x = self->input->data;
    NdArray *exp_x = nd_exp(x);
    NdArray *gx = nd_mul(exp_x, gy);            /* e^x * gy */
    nd_release(exp_x);
    return gx;
}

static const FunctionClass exp_class = {
    .name = "Exp",
    .forward = exp_forward,
    .backward = exp_backward,
};

/* A new Exp function (Python: Exp()). */
Function *exp_function(void)
{
    return function_new(&exp_class);
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

/* Fills in the grad of every variable that y depends on, from y->grad
 * (which the caller sets): y's creator turns y->grad into its input's
 * grad, and the same is done for that input, recursively. */
void backward(Variable *y)
{
    Function *f = y->creator;
    if (f) {
        Variable *x = f->input;
        x->grad = function_backward(f, y->grad);
        backward(x);
    }
}

/* ---- the program */

/* Until step 17 the program leaves its objects to the operating system,
 * which takes back all the memory when the program ends. */
int main(void)
{
    Function *A = square_function();
    Function *B = exp_function();
    Function *C = square_function();

    Variable *x = variable(nd_scalar(0.5));
    Variable *a = function_call(A, x);
    Variable *b = function_call(B, a);
    Variable *y = function_call(C, b);          /* y = (e^(x^2))^2 */

    /* Backward, automated: dy/dy = 1, then follow the creators. */
    y->grad = nd_scalar(1.0);
    backward(y);
    nd_print(x->grad);
    return 0;
}
