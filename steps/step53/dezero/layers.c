/* layers.c - layers, as the book's layers.py: Layer, an object that
 * holds the parameters and the layers it registered, and moves them all
 * to the GPU and back, and the Linear layer, whose weight is made at
 * its first call, from the width of the input, where the input is. */
#include <math.h>
#include <stdlib.h>

#include "dezero.h"

/* ---- Layer */

int layers_alive;               /* Layers made and not yet freed */

/* Drops the layer's references to its parameters and its layers (the
 * collector's clear). */
static void layer_clear(Object *object)
{
    Layer *layer = (Layer *)object;
    Parameter **params = layer->params;
    int n = layer->nparams;
    layer->params = NULL;
    layer->nparams = layer->capacity = 0;
    Layer **layers = layer->layers;
    int m = layer->nlayers;
    layer->layers = NULL;
    layer->nlayers = layer->layers_capacity = 0;
    for (int i = 0; i < n; i++)
        release(params[i]);
    for (int i = 0; i < m; i++)
        release(layers[i]);
    free(params);
    free(layers);
}

/* Frees a layer when nothing refers to it any more. */
static void layer_destroy(Object *object)
{
    layer_clear(object);
    object_free(object);
    layers_alive--;
}

/* Shows the collector the layer's references: its parameters and its
 * layers. */
static void layer_traverse(Object *object,
                           void (*visit)(Object *, void *), void *arg)
{
    Layer *layer = (Layer *)object;
    for (int i = 0; i < layer->nparams; i++)
        visit(&layer->params[i]->variable.object, arg);
    for (int i = 0; i < layer->nlayers; i++)
        visit(&layer->layers[i]->object, arg);
}

static const ObjectType layer_type = {
    .destroy = layer_destroy,
    .traverse = layer_traverse,
    .clear = layer_clear,
};

/* A new zeroed layer of class cls in a block of size bytes, owned by
 * the innermost pool. */
Layer *layer_new(const LayerClass *cls, size_t size)
{
    Layer *layer = object_new(size, &layer_type, "layer_new");
    layers_alive++;
    layer->cls = cls;
    return layer;
}

/* Registers p: the layer keeps a reference to it, at the end of its
 * list. What Python's __setattr__ does when a Parameter is assigned to
 * an attribute. Returns p. */
Parameter *layer_add_param(Layer *layer, Parameter *p)
{
    if (layer->nparams == layer->capacity) {
        int capacity = layer->capacity ? 2 * layer->capacity : 4;
        Parameter **params = realloc(layer->params,
                                     capacity * sizeof *params);
        if (!params)
            nd_error("layer_add_param", "out of memory");
        layer->params = params;
        layer->capacity = capacity;
    }
    layer->params[layer->nparams++] = retain(p);
    return p;
}

/* Registers the layer child: the layer keeps a reference to it, at the
 * end of its list of layers (Python: __setattr__ for a Layer value).
 * Returns child. */
Layer *layer_add_layer(Layer *layer, Layer *child)
{
    if (child == layer)
        nd_error("layer_add_layer", "a layer cannot contain itself");
    if (layer->nlayers == layer->layers_capacity) {
        int capacity = layer->layers_capacity ? 2 * layer->layers_capacity
                                              : 4;
        Layer **layers = realloc(layer->layers, capacity * sizeof *layers);
        if (!layers)
            nd_error("layer_add_layer", "out of memory");
        layer->layers = layers;
        layer->layers_capacity = capacity;
    }
    layer->layers[layer->nlayers++] = retain(child);
    return child;
}

/* y = layer(x): the class's forward (Python: Layer.__call__, which also
 * keeps weak references to the inputs and outputs; nothing here uses
 * them, so C keeps none). */
Variable *(layer_call)(Layer *layer, Variable *x)
{
    if (!layer->cls->forward)
        nd_error("layer_call", "%s has no forward", layer->cls->name);
    return layer->cls->forward(layer, x);
}

/* A walk over the layer's parameters from the first: one frame, the
 * layer's own. */
ParamIter layer_params(Layer *layer)
{
    ParamIter it = {.depth = 1};
    it.stack[0].layer = layer;
    return it;
}

/* The next parameter of the walk, or NULL when there is none: the top
 * frame's next parameter; when it has none left, its next layer, as a
 * new frame (Python's yield from); when it has none of those either,
 * back to the frame below. A stack of frames instead of a generator's
 * suspended calls. */
Parameter *param_next(ParamIter *it)
{
    while (it->depth > 0) {
        ParamFrame *top = &it->stack[it->depth - 1];
        if (top->next_param < top->layer->nparams)
            return top->layer->params[top->next_param++];
        if (top->next_layer < top->layer->nlayers) {
            if (it->depth == LAYER_MAX_DEPTH)
                nd_error("param_next", "layers nested more than %d deep",
                         (int)LAYER_MAX_DEPTH);
            Layer *child = top->layer->layers[top->next_layer++];
            it->stack[it->depth++] = (ParamFrame){.layer = child};
            continue;
        }
        it->depth--;            /* this layer is done */
    }
    return NULL;
}

/* Clears the gradient of every parameter (Python: layer.cleargrads()). */
void layer_cleargrads(Layer *layer)
{
    ParamIter it = layer_params(layer);
    for (Parameter *p; (p = param_next(&it));)
        cleargrad(&p->variable);
}

/* Python: Layer.to_cpu and to_gpu, each parameter of self.params()
 * moved. */
void layer_to_cpu(Layer *layer)
{
    ParamIter it = layer_params(layer);
    for (Parameter *p; (p = param_next(&it));)
        variable_to_cpu(&p->variable);
}

void layer_to_gpu(Layer *layer)
{
    require_gpu("layer_to_gpu");
    ParamIter it = layer_params(layer);
    for (Parameter *p; (p = param_next(&it));)
        variable_to_gpu(&p->variable);
}

/* ---- Linear */

/* W's data on device: randn(in_size, out_size) cast to the layer's
 * dtype, times sqrt(1 / in_size), computed on the host, where NumPy's
 * generator is, and moved (Python: _init_W(xp), which draws with xp's
 * own generator, so that Python's GPU run starts from other weights
 * than its CPU run; this one starts from the same). NumPy multiplies a
 * float32 array by that float64 number in float32 (a 0-d operand does
 * not widen it), and so does nd_mul. */
static void init_W(LinearLayer *l, NdDevice device)
{
    NdArray *r = nd_random_randn(ND_SHAPE(l->in_size, l->out_size));
    NdArray *cast = nd_astype(r, l->dtype);
    NdArray *scale = nd_scalar(sqrt(1.0 / (double)l->in_size));
    NdArray *W = nd_mul(cast, scale);               // (in, out)
    l->W->variable.data = nd_to_device(W, device);
    nd_release(W);
    nd_release(scale);
    nd_release(cast);
    nd_release(r);
}

/* y = x W + b, making W first, on x's device, if it has no data yet:
 * its input size is x's second axis (Python: self.in_size =
 * x.shape[1]). */
static Variable *linear_layer_forward(Layer *self, Variable *x)
{
    LinearLayer *l = (LinearLayer *)self;
    if (!l->W->variable.data) {
        if (variable_ndim(x) < 2)
            nd_error("linear_layer", "an input of %d axes; Linear takes "
                     "(N, in_size)", variable_ndim(x));
        l->in_size = variable_shape(x)[1];
        init_W(l, get_array_module(x));
    }
    return F_linear(x, l->W, l->b);
}

static const LayerClass linear_layer_class = {
    .name = "Linear",
    .forward = linear_layer_forward,
};

/* A new Linear layer (Python: L.Linear(out_size, nobias, dtype,
 * in_size)): b starts at zeros, W at once when the input size is
 * given, else at the first call. */
Layer *linear_layer(int64_t out_size, LinearOptions options)
{
    if (out_size < 1 || options.in_size < 0)
        nd_error("linear_layer", "sizes must be positive: out_size %lld, "
                 "in_size %lld", (long long)out_size,
                 (long long)options.in_size);
    LinearLayer *l = (LinearLayer *)layer_new(&linear_layer_class,
                                              sizeof *l);
    l->in_size = options.in_size;
    l->out_size = out_size;
    l->dtype = options.dtype == ND_BOOL ? ND_FLOAT32 : options.dtype;
    l->W = layer_add_param(&l->layer, parameter(NULL, "W"));
    if (l->in_size > 0)
        init_W(l, ND_CPU);
    if (!options.nobias)
        l->b = layer_add_param(&l->layer, parameter(
            nd_zeros(l->dtype, ND_SHAPE(out_size)), "b"));
    return &l->layer;
}
