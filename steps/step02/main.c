/* Step 02: a Function turns one Variable into another.
 *
 * A Function is data plus behaviour: its behaviour lives in a
 * FunctionClass, a table of function pointers (C's vtable), and
 * function_call() unwraps the input, runs forward and wraps the result. */
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

/* ---- the program */

/* The static type of an expression, as text: C's types exist only for
 * the compiler, and _Generic is how a program can ask it. */
#define TYPE_NAME(x) _Generic((x), \
    Variable *: "Variable *",      \
    Function *: "Function *",      \
    NdArray *: "NdArray *")

/* Until step 17 the program leaves its objects to the operating system,
 * which takes back all the memory when the program ends. */
int main(void)
{
    Variable *x = variable(nd_scalar_of(ND_INT64, 10));  /* np.array(10) */
    Function *f = square_function();
    Variable *y = function_call(f, x);
    printf("%s\n", TYPE_NAME(y));
    nd_print(y->data);
    return 0;
}
