/* Step 05: the theory of backpropagation.
 *
 * This step adds no code: its chapter is the chain rule and how it runs
 * backwards. The program is step 04's, whose numbers the theory explains. */
#include <stdio.h>
#include <stdlib.h>

#include "nd.h"

typedef struct Variable {
    NdArray *data;
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
    return v;
}

/* Frees v and its array. Accepts NULL. */
void variable_free(Variable *v)
{
    if (!v)
        return;
    nd_release(v->data);
    free(v);
}

typedef struct Function Function;

/* What all functions of one kind share: a name and the code of forward.
 * One constant table per kind (Square, ...) plays the role of a class. */
typedef struct FunctionClass {
    const char *name;
    /* y = f(x): borrows x, returns a new array. */
    NdArray *(*forward)(Function *self, const NdArray *x);
} FunctionClass;

/* One function object: its class, and (from later steps) its state. */
struct Function {
    const FunctionClass *cls;
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
    return output;
}

/* ---- Square: y = x^2 */

static NdArray *square_forward(Function *self, const NdArray *x)
{
    (void)self;
    return nd_mul(x, x);        /* x ** 2, which NumPy computes as x*x */
}

static const FunctionClass square_class = {
    .name = "Square",
    .forward = square_forward,
};

/* A new Square function (Python: Square()). */
Function *square_function(void)
{
    return function_new(&square_class);
}

/* ---- Exp: y = e^x */

static NdArray *exp_forward(Function *self, const NdArray *x)
{
    (void)self;
    return nd_exp(x);
}

static const FunctionClass exp_class = {
    .name = "Exp",
    .forward = exp_forward,
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

/* ---- the program */

/* y = x^2 as a C function. numerical_diff takes a pointer to code, and
 * a Function is data, so a small wrapper makes one Square and calls it. */
Variable *apply_square(Variable *x)
{
    return function_call(square_function(), x);
}

/* y = (e^(x^2))^2, the chain of step 03 as one C function. */
Variable *composite(Variable *x)
{
    Function *A = square_function();
    Function *B = exp_function();
    Function *C = square_function();
    return function_call(C, function_call(B, function_call(A, x)));
}

/* Until step 17 the program leaves its objects to the operating system,
 * which takes back all the memory when the program ends. */
int main(void)
{
    Variable *x = variable(nd_scalar(2.0));
    NdArray *dy = numerical_diff(apply_square, x, 1e-4);
    nd_print(dy);                               /* d(x^2)/dx = 2x = 4 */

    x = variable(nd_scalar(0.5));
    dy = numerical_diff(composite, x, 1e-4);
    nd_print(dy);
    return 0;
}
