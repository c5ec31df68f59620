/* optimizers.c - optimizers, as the book's optimizers.py: Optimizer,
 * which updates the parameters of a model that have a gradient after
 * running its hooks on them; SGD, MomentumSGD, AdaGrad, AdaDelta and
 * Adam; and the hooks WeightDecay, ClipGrad and FreezeParam. Updates
 * work on the arrays, in place, as NumPy's in-place operators do: in
 * the dtype of the promotion, stored back into the parameter's; on the
 * parameter's device, where its state is made too. */
#include <math.h>
#include <stdlib.h>

#include "dezero.h"

/* ---- Optimizer */

/* Drops the optimizer's references: its target, its parameters, the
 * objects its hooks freeze (the collector's clear). */
static void optimizer_clear(Object *object)
{
    Optimizer *o = (Optimizer *)object;
    Layer *target = o->target;
    o->target = NULL;
    release(target);
    for (int i = 0; i < o->nhooks; i++) {
        Object *frozen = o->hooks[i].frozen;
        o->hooks[i].frozen = NULL;
        release(frozen);
    }
    ParamState *states = o->states;
    int n = o->nstates;
    o->states = NULL;
    o->nstates = o->states_capacity = o->cursor = 0;
    for (int i = 0; i < n; i++) {
        nd_release(states[i].slots[0]);
        nd_release(states[i].slots[1]);
        release(states[i].param);
    }
    free(states);
}

static void optimizer_destroy(Object *object)
{
    Optimizer *o = (Optimizer *)object;
    optimizer_clear(object);
    free(o->hooks);
    object_free(object);
}

/* Shows the collector the optimizer's references. */
static void optimizer_traverse(Object *object,
                               void (*visit)(Object *, void *), void *arg)
{
    Optimizer *o = (Optimizer *)object;
    if (o->target)
        visit(&o->target->object, arg);
    for (int i = 0; i < o->nhooks; i++)
        if (o->hooks[i].frozen)
            visit(o->hooks[i].frozen, arg);
    for (int i = 0; i < o->nstates; i++)
        visit(&o->states[i].param->variable.object, arg);
}

static const ObjectType optimizer_type = {
    .destroy = optimizer_destroy,
    .traverse = optimizer_traverse,
    .clear = optimizer_clear,
};

/* A new optimizer of class cls in a zeroed block of size bytes (a
 * struct that starts with an Optimizer), owned by the innermost pool. */
static Optimizer *optimizer_new(const OptimizerClass *cls, size_t size)
{
    Optimizer *o = object_new(size, &optimizer_type, "optimizer_new");
    o->cls = cls;
    return o;
}

/* Sets the target, keeping a reference to it; returns o. */
Optimizer *optimizer_setup(Optimizer *o, Layer *target)
{
    retain(target);
    release(o->target);
    o->target = target;
    return o;
}

/* Adds hook to the list, keeping a reference to what it freezes. */
void optimizer_add_hook(Optimizer *o, Hook hook)
{
    Hook *hooks = realloc(o->hooks, (o->nhooks + 1) * sizeof *hooks);
    if (!hooks)
        nd_error("optimizer_add_hook", "out of memory");
    if (hook.frozen)
        retain(hook.frozen);
    hooks[o->nhooks++] = hook;
    o->hooks = hooks;
}

/* p's state: Python's dict keyed by id(param) becomes a list of
 * (parameter, arrays) pairs. The walk visits the parameters in the
 * same order at every update, so the search starts where the last one
 * ended and finds the next parameter at once; a parameter not there
 * yet gets zeros like its data, on its device, one array per slot
 * (Python: xp.zeros_like(param.data)). */
NdArray **optimizer_state(Optimizer *o, Parameter *p)
{
    for (int k = 0; k < o->nstates; k++) {
        int i = (o->cursor + k) % o->nstates;
        if (o->states[i].param == p) {
            o->cursor = (i + 1) % o->nstates;
            return o->states[i].slots;
        }
    }
    if (o->nstates == o->states_capacity) {
        int capacity = o->states_capacity ? 2 * o->states_capacity : 8;
        ParamState *states = realloc(o->states,
                                     capacity * sizeof *states);
        if (!states)
            nd_error("optimizer_state", "out of memory");
        o->states = states;
        o->states_capacity = capacity;
    }
    ParamState *state = &o->states[o->nstates++];
    *state = (ParamState){.param = retain(p)};
    for (int s = 0; s < o->cls->nslots; s++)
        state->slots[s] = nd_zeros_like(p->variable.data);
    o->cursor = 0;
    return state->slots;
}

/* The target's parameters that have a gradient, through every hook,
 * then each through update_one, or all through update_all. */
void optimizer_update(Optimizer *o)
{
    if (!o->target)
        nd_error("optimizer_update", "%s has no target; call "
                 "optimizer_setup first", o->cls->name);
    int n = 0;                  /* the parameters with a gradient */
    ParamIter it = layer_params(o->target);
    for (Parameter *p; (p = param_next(&it));)
        n += p->variable.grad != NULL;
    Parameter **params = allocate(n ? n : 1, sizeof *params,
                                  "optimizer_update");
    n = 0;
    it = layer_params(o->target);
    for (Parameter *p; (p = param_next(&it));)
        if (p->variable.grad)
            params[n++] = p;
    for (int i = 0; i < o->nhooks; i++)
        o->hooks[i].run(&o->hooks[i], n, params);
    if (o->cls->begin)
        o->cls->begin(o);
    int kept = 0;                       /* a hook may have removed a */
    for (int i = 0; i < n; i++)         /* gradient (FreezeParam) */
        if (params[i]->variable.grad)
            params[kept++] = params[i];
    if (o->cls->update_all)
        o->cls->update_all(o, kept, params);
    else
        for (int i = 0; i < kept; i++)
            o->cls->update_one(o, params[i]);
    free(params);
}

/* ---- helpers for the updates, on arrays */

/* a * b as NumPy computes it for a number a; a new array. The numbers
 * here are made on the device of the array they meet. */
static NdArray *scaled(double a, const NdArray *b)
{
    NdArray *s = as_array(a, ND_FLOAT64, get_array_module(b));
    NdArray *y = nd_mul(s, b);
    nd_release(s);
    return y;
}

/* dst -= v, dst += v, dst *= a, each in dst's dtype; v is released. */
static void sub_into(NdArray *dst, NdArray *v)
{
    nd_isub(dst, v);
    nd_release(v);
}

static void add_into(NdArray *dst, NdArray *v)
{
    nd_iadd(dst, v);
    nd_release(v);
}

static void scale_into(NdArray *dst, double a)
{
    NdArray *s = as_array(a, ND_FLOAT64, get_array_module(dst));
    nd_imul(dst, s);
    nd_release(s);
}

/* a + eps for a number eps; a new array. */
static NdArray *plus(const NdArray *a, double eps)
{
    NdArray *e = as_array(eps, ND_FLOAT64, get_array_module(a));
    NdArray *y = nd_add(a, e);
    nd_release(e);
    return y;
}

/* The data and the gradient's data of p, borrowed. */
#define DATA(p) ((p)->variable.data)
#define GRAD(p) ((p)->variable.grad->data)

/* ---- SGD: p -= lr g */

typedef struct SGD {
    Optimizer optimizer;        /* first: an SGD * is an Optimizer * */
    double lr;
} SGD;

/* p -= lr g for every parameter p at once: nd_isub_scaled_each is
 * nd_isub_scaled for each pair (Python's update_one, with its numbers),
 * and on the GPU one kernel for them all, as PyTorch's "foreach"
 * updates are. */
static void sgd_update_all(Optimizer *self, int n, Parameter *params[])
{
    const SGD *o = (const SGD *)self;
    NdArray **data = allocate(n ? n : 1, sizeof *data, "sgd_update_all");
    const NdArray **grads = allocate(n ? n : 1, sizeof *grads,
                                     "sgd_update_all");
    for (int i = 0; i < n; i++) {
        data[i] = DATA(params[i]);
        grads[i] = GRAD(params[i]);
    }
    nd_isub_scaled_each(n, data, o->lr, grads);     /* p -= lr * g */
    free(grads);
    free(data);
}

static const OptimizerClass sgd_class = {
    .name = "SGD",
    .update_all = sgd_update_all,
};

/* A new SGD (Python: SGD(lr)). */
Optimizer *sgd(double lr)
{
    SGD *o = (SGD *)optimizer_new(&sgd_class, sizeof *o);
    o->lr = lr;
    return &o->optimizer;
}

/* ---- MomentumSGD: v = momentum v - lr g; p += v */

typedef struct MomentumSGD {
    Optimizer optimizer;
    double lr, momentum;
} MomentumSGD;

static void momentum_sgd_update_one(Optimizer *self, Parameter *p)
{
    const MomentumSGD *o = (const MomentumSGD *)self;
    NdArray *v = optimizer_state(self, p)[0];
    scale_into(v, o->momentum);                 /* v *= momentum */
    nd_isub_scaled(v, o->lr, GRAD(p));          /* v -= lr * g */
    nd_iadd(DATA(p), v);                        /* p += v */
}

static const OptimizerClass momentum_sgd_class = {
    .name = "MomentumSGD",
    .nslots = 1,
    .update_one = momentum_sgd_update_one,
};

/* A new MomentumSGD (Python: MomentumSGD(lr, momentum)). */
Optimizer *momentum_sgd(double lr, double momentum)
{
    MomentumSGD *o = (MomentumSGD *)optimizer_new(&momentum_sgd_class,
                                                  sizeof *o);
    o->lr = lr;
    o->momentum = momentum;
    return &o->optimizer;
}

/* ---- AdaGrad: h += g^2; p -= lr g / (sqrt(h) + eps) */

typedef struct AdaGrad {
    Optimizer optimizer;
    double lr, eps;
} AdaGrad;

static void adagrad_update_one(Optimizer *self, Parameter *p)
{
    const AdaGrad *o = (const AdaGrad *)self;
    NdArray *h = optimizer_state(self, p)[0];
    const NdArray *g = GRAD(p);
    add_into(h, nd_mul(g, g));                  /* h += g * g */
    NdArray *step = scaled(o->lr, g);           /* lr * g */
    NdArray *root = nd_sqrt(h);
    NdArray *denominator = plus(root, o->eps);  /* sqrt(h) + eps */
    sub_into(DATA(p), nd_div(step, denominator));
    nd_release(denominator);
    nd_release(root);
    nd_release(step);
}

static const OptimizerClass adagrad_class = {
    .name = "AdaGrad",
    .nslots = 1,
    .update_one = adagrad_update_one,
};

/* A new AdaGrad (Python: AdaGrad(lr, eps)). */
Optimizer *adagrad(double lr, double eps)
{
    AdaGrad *o = (AdaGrad *)optimizer_new(&adagrad_class, sizeof *o);
    o->lr = lr;
    o->eps = eps;
    return &o->optimizer;
}

/* ---- AdaDelta: running means of g^2 (msg) and of the steps (msdx) */

typedef struct AdaDelta {
    Optimizer optimizer;
    double rho, eps;
} AdaDelta;

static void adadelta_update_one(Optimizer *self, Parameter *p)
{
    const AdaDelta *o = (const AdaDelta *)self;
    NdArray **state = optimizer_state(self, p);
    NdArray *msg = state[0], *msdx = state[1];
    const NdArray *g = GRAD(p);
    scale_into(msg, o->rho);                    /* msg *= rho */
    NdArray *scaled_g = scaled(1 - o->rho, g);
    add_into(msg, nd_mul(scaled_g, g));         /* += (1-rho) * g * g */
    nd_release(scaled_g);
    NdArray *num = plus(msdx, o->eps), *den = plus(msg, o->eps);
    NdArray *ratio = nd_div(num, den);
    NdArray *root = nd_sqrt(ratio);
    NdArray *dx = nd_mul(root, g);      /* sqrt((msdx+eps)/(msg+eps)) g */
    scale_into(msdx, o->rho);                   /* msdx *= rho */
    NdArray *scaled_dx = scaled(1 - o->rho, dx);
    add_into(msdx, nd_mul(scaled_dx, dx));      /* += (1-rho) dx dx */
    sub_into(DATA(p), dx);                      /* p -= dx */
    nd_release(scaled_dx);
    nd_release(root);
    nd_release(ratio);
    nd_release(den);
    nd_release(num);
}

static const OptimizerClass adadelta_class = {
    .name = "AdaDelta",
    .nslots = 2,
    .update_one = adadelta_update_one,
};

/* A new AdaDelta (Python: AdaDelta(rho, eps)). */
Optimizer *adadelta(double rho, double eps)
{
    AdaDelta *o = (AdaDelta *)optimizer_new(&adadelta_class, sizeof *o);
    o->rho = rho;
    o->eps = eps;
    return &o->optimizer;
}

/* ---- Adam: moments m and v, and a step size that corrects their bias
 * towards 0 in the first steps */

typedef struct Adam {
    Optimizer optimizer;
    double alpha, beta1, beta2, eps;
    int t;                      /* updates so far */
} Adam;

/* One more step (Python: Adam.update, before Optimizer.update). */
static void adam_begin(Optimizer *self)
{
    ((Adam *)self)->t++;
}

/* alpha sqrt(1 - beta2^t) / (1 - beta1^t) (Python: the property lr). */
static double adam_lr(const Adam *o)
{
    double fix1 = 1. - pow(o->beta1, o->t);
    double fix2 = 1. - pow(o->beta2, o->t);
    return o->alpha * sqrt(fix2) / fix1;
}

static void adam_update_one(Optimizer *self, Parameter *p)
{
    const Adam *o = (const Adam *)self;
    NdArray **state = optimizer_state(self, p);
    NdArray *m = state[0], *v = state[1];
    const NdArray *g = GRAD(p);
    /* Each temporary goes as soon as it is used: no more than three of
     * the parameter's size live at once (a GAN's are 51 MB each). */
    NdArray *g_m = nd_sub(g, m);
    add_into(m, scaled(1 - o->beta1, g_m));     /* m += (1-b1)(g - m) */
    nd_release(g_m);
    NdArray *g2 = nd_mul(g, g);
    NdArray *g2_v = nd_sub(g2, v);
    nd_release(g2);
    add_into(v, scaled(1 - o->beta2, g2_v));    /* v += (1-b2)(g^2 - v) */
    nd_release(g2_v);
    NdArray *root = nd_sqrt(v);
    NdArray *den = plus(root, o->eps);          /* sqrt(v) + eps */
    nd_release(root);
    NdArray *step = scaled(adam_lr(o), m);      /* lr * m */
    sub_into(DATA(p), nd_div(step, den));       /* p -= step / den */
    nd_release(step);
    nd_release(den);
}

static const OptimizerClass adam_class = {
    .name = "Adam",
    .nslots = 2,
    .begin = adam_begin,
    .update_one = adam_update_one,
};

/* A new Adam (Python: Adam(alpha, beta1, beta2, eps)). */
Optimizer *adam(double alpha, double beta1, double beta2, double eps)
{
    Adam *o = (Adam *)optimizer_new(&adam_class, sizeof *o);
    o->alpha = alpha;
    o->beta1 = beta1;
    o->beta2 = beta2;
    o->eps = eps;
    return &o->optimizer;
}

/* ---- hooks */

/* g += rate p, in g's dtype (Python: WeightDecay). */
static void weight_decay_run(const Hook *self, int n, Parameter *params[])
{
    for (int i = 0; i < n; i++)
        add_into(GRAD(params[i]), scaled(self->value, DATA(params[i])));
}

Hook weight_decay(double rate)
{
    return (Hook){.run = weight_decay_run, .value = rate};
}

/* The norm of all the gradients together, sqrt(sum of every g^2); when
 * it exceeds max_norm, every g is scaled by max_norm / (norm + 1e-6)
 * (Python: ClipGrad). */
static void clip_grad_run(const Hook *self, int n, Parameter *params[])
{
    double total = 0;
    for (int i = 0; i < n; i++) {
        const NdArray *g = GRAD(params[i]);
        NdArray *g2 = nd_mul(g, g);
        NdArray *sum = nd_sum(g2, ND_ALL_AXES, false);
        total += nd_item(sum);
        nd_release(sum);
        nd_release(g2);
    }
    double rate = self->value / (sqrt(total) + 1e-6);
    if (rate < 1)
        for (int i = 0; i < n; i++)
            scale_into(GRAD(params[i]), rate);
}

Hook clip_grad(double max_norm)
{
    return (Hook){.run = clip_grad_run, .value = max_norm};
}

/* Removes the gradients of the frozen parameters (Python: FreezeParam,
 * p.grad = None), which update then skips. */
static void freeze_layer_run(const Hook *self, int n, Parameter *params[])
{
    (void)n;
    (void)params;
    ParamIter it = layer_params((Layer *)self->frozen);
    for (Parameter *p; (p = param_next(&it));)
        cleargrad(&p->variable);
}

static void freeze_parameter_run(const Hook *self, int n,
                                 Parameter *params[])
{
    (void)n;
    (void)params;
    cleargrad(&((Parameter *)self->frozen)->variable);
}

Hook freeze_layer(Layer *layer)
{
    return (Hook){.run = freeze_layer_run, .frozen = &layer->object};
}

Hook freeze_parameter(Parameter *p)
{
    return (Hook){.run = freeze_parameter_run,
                  .frozen = &p->variable.object};
}
