/* layers.c - layers, as the book's layers.py: Layer, an object that
 * holds the parameters and the layers it registered, moves them all to
 * the GPU and back, and saves their weights to an .npz file and loads
 * them back, and forgets the state a layer keeps between calls; the
 * Linear layer, whose weight is made at its first call, from the width
 * of the input, where the input is; the Conv2d and Deconv2d layers,
 * whose filters are made likewise from the input's channels; the RNN
 * and LSTM layers, which keep their state from one call to the next;
 * EmbedID, a row of weights per id; and BatchNorm, with its running
 * statistics. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dezero.h"
#include "npz.h"

/* ---- Layer */

int layers_alive;               /* Layers made and not yet freed */

/* visit_state's visit for a reset: lets go of the slot's Variable. */
static void drop_state(Variable **slot, void *unused)
{
    (void)unused;
    Variable *v = *slot;
    *slot = NULL;
    release(v);
}

/* Forgets layer's own state, not its layers' (Python: reset_state()). */
static void reset_own_state(Layer *layer)
{
    if (layer->cls->visit_state)
        layer->cls->visit_state(layer, drop_state, NULL);
}

/* What the collector's visit and its argument are, for visit_state. */
typedef struct StateVisit {
    void (*visit)(Object *, void *);
    void *arg;
} StateVisit;

/* visit_state's visit for the collector: shows it the slot's
 * Variable. */
static void show_state(Variable **slot, void *state_visit)
{
    const StateVisit *sv = state_visit;
    if (*slot)
        sv->visit(&(*slot)->object, sv->arg);
}

/* Drops the layer's references to its state, its parameters and its
 * layers (the collector's clear). */
static void layer_clear(Object *object)
{
    Layer *layer = (Layer *)object;
    reset_own_state(layer);
    Parameter **params = layer->params;
    int n = layer->nparams;
    layer->params = NULL;
    layer->nparams = layer->capacity = 0;
    Layer **layers = layer->layers;
    char **names = layer->layer_names;
    int m = layer->nlayers;
    layer->layers = NULL;
    layer->layer_names = NULL;
    layer->nlayers = layer->layers_capacity = 0;
    for (int i = 0; i < n; i++)
        release(params[i]);
    for (int i = 0; i < m; i++) {
        release(layers[i]);
        free(names[i]);
    }
    free(params);
    free(layers);
    free(names);
}

/* Frees a layer when nothing refers to it any more. */
static void layer_destroy(Object *object)
{
    layer_clear(object);
    object_free(object);
    layers_alive--;
}

/* Shows the collector the layer's references: its state, its
 * parameters and its layers. */
static void layer_traverse(Object *object,
                           void (*visit)(Object *, void *), void *arg)
{
    Layer *layer = (Layer *)object;
    if (layer->cls->visit_state)
        layer->cls->visit_state(layer, show_state,
                                &(StateVisit){visit, arg});
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
 * end of its list of layers, and a copy of its name (Python:
 * __setattr__ for a Layer value, which records the attribute's name).
 * Returns child. */
Layer *(layer_add_layer)(Layer *layer, Layer *child,
                        AddLayerOptions options)
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
        char **names = realloc(layer->layer_names,
                               capacity * sizeof *names);
        if (!names)
            nd_error("layer_add_layer", "out of memory");
        layer->layer_names = names;
        layer->layers_capacity = capacity;
    }
    char *name = options.name ? strdup(options.name) : NULL;
    if (options.name && !name)
        nd_error("layer_add_layer", "out of memory");
    layer->layer_names[layer->nlayers] = name;
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

/* Forgets the state of layer and of every layer in it, down to the
 * last (Python: reset_state(), which each model with an RNN in it
 * passes on by hand). */
void layer_reset_state(Layer *layer)
{
    reset_own_state(layer);
    for (int i = 0; i < layer->nlayers; i++)
        layer_reset_state(layer->layers[i]);
}

/* Calls move on every parameter of layer (Python: Layer.to_cpu and
 * to_gpu, each of self.params() moved). */
static void move_params(Layer *layer, void (*move)(Variable *v))
{
    ParamIter it = layer_params(layer);
    for (Parameter *p; (p = param_next(&it));)
        move(&p->variable);
}

void layer_to_cpu(Layer *layer)
{
    move_params(layer, variable_to_cpu);
}

void layer_to_gpu(Layer *layer)
{
    require_gpu("layer_to_gpu");
    move_params(layer, variable_to_gpu);
}

/* ---- saving and loading */

/* A parameter and its key in a saved file, l0/W. */
typedef struct KeyedParam {
    char *key;                  /* owned */
    Parameter *param;           /* borrowed from owner */
    const Layer *owner;         /* the layer that registered it */
} KeyedParam;

/* Every parameter of a model with its key (Python: the params_dict that
 * _flatten_params fills). */
typedef struct KeyedParams {
    int count;
    int capacity;
    KeyedParam *items;          /* owned array */
} KeyedParams;

static void keyed_params_free(KeyedParams *list)
{
    for (int i = 0; i < list->count; i++)
        free(list->items[i].key);
    free(list->items);
    *list = (KeyedParams){0};
}

/* Writes into problem (size bytes) and returns false: how the helpers
 * below report, so that their caller frees what it holds before it
 * stops with nd_error. */
__attribute__((format(printf, 3, 4)))
static bool keys_problem(char *problem, size_t size, const char *format,
                         ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(problem, size, format, args);
    va_end(args);
    return false;
}

/* parent/name, or name at the top (parent ""): a new string, or NULL
 * when memory runs out. */
static char *join_key(const char *parent, const char *name)
{
    size_t n = strlen(parent) + 1 + strlen(name) + 1;
    char *key = malloc(n);
    if (key)
        snprintf(key, n, "%s%s%s", parent, *parent ? "/" : "", name);
    return key;
}

/* Adds p, of the layer owner, under parent/name; false with the
 * problem when the key is another parameter's already. */
static bool add_keyed(KeyedParams *list, const char *parent,
                      const char *name, Parameter *p, const Layer *owner,
                      char *problem, size_t size)
{
    char *key = join_key(parent, name);
    if (!key)
        return keys_problem(problem, size, "out of memory");
    for (int i = 0; i < list->count; i++)
        if (strcmp(list->items[i].key, key) == 0) {
            keys_problem(problem, size, "two parameters have the key "
                         "'%s': give them names of their own", key);
            free(key);
            return false;
        }
    if (list->count == list->capacity) {
        int capacity = list->capacity ? 2 * list->capacity : 8;
        KeyedParam *items = realloc(list->items,
                                    capacity * sizeof *items);
        if (!items) {
            free(key);
            return keys_problem(problem, size, "out of memory");
        }
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = (KeyedParam){key, p, owner};
    return true;
}

/* Adds every parameter of layer, whose key is parent ("" for the
 * model), to list: its own under parent/name, then those of each of its
 * layers under parent/layer's name, and so on down (Python:
 * _flatten_params(params_dict, parent_key)). False, with the problem,
 * for a parameter or a layer without a name, or a key used twice. */
static bool flatten_params(const Layer *layer, const char *parent,
                           int depth, KeyedParams *list, char *problem,
                           size_t size)
{
    const char *where = *parent ? parent : "the model";
    if (depth == LAYER_MAX_DEPTH)
        return keys_problem(problem, size, "layers nested more than %d "
                            "deep", (int)LAYER_MAX_DEPTH);
    for (int i = 0; i < layer->nparams; i++) {
        Parameter *p = layer->params[i];
        if (!p->variable.name)
            return keys_problem(problem, size, "parameter %d of %s (a %s) "
                                "has no name, which its key needs", i,
                                where, layer->cls->name);
        if (!add_keyed(list, parent, p->variable.name, p, layer, problem,
                       size))
            return false;
    }
    for (int i = 0; i < layer->nlayers; i++) {
        const char *name = layer->layer_names[i];
        if (!name)
            return keys_problem(problem, size, "layer %d of %s (a %s) has "
                                "no name, which the keys of its parameters "
                                "need: register it with layer_add_layer(..., "
                                ".name = \"l%d\")", i, where,
                                layer->layers[i]->cls->name, i);
        char *key = join_key(parent, name);
        if (!key)
            return keys_problem(problem, size, "out of memory");
        bool ok = flatten_params(layer->layers[i], key, depth + 1, list,
                                 problem, size);
        free(key);
        if (!ok)
            return false;
    }
    return true;
}

/* Python: Layer.save_weights, which moves the model to the host first;
 * here each array is copied there, and the model stays. */
void layer_save_weights(Layer *layer, const char *path)
{
    const char *op = "layer_save_weights";
    if (!layer || !path)
        nd_error(op, "the layer and the path must not be NULL");
    KeyedParams list = {0};
    char problem[512];
    bool ok = flatten_params(layer, "", 0, &list, problem, sizeof problem);
    for (int i = 0; ok && i < list.count; i++)
        if (!list.items[i].param->variable.data)
            ok = keys_problem(problem, sizeof problem, "%s has no data "
                              "yet: its layer makes it at its first call, "
                              "so call the model once before saving it",
                              list.items[i].key);
    if (!ok) {
        keyed_params_free(&list);
        nd_error(op, "%s: %s", path, problem);
    }
    const char **keys = calloc((size_t)list.count + 1, sizeof *keys);
    NdArray **arrays = calloc((size_t)list.count + 1, sizeof *arrays);
    if (!keys || !arrays)
        nd_error(op, "%s: out of memory", path);
    for (int i = 0; i < list.count; i++) {
        keys[i] = list.items[i].key;
        arrays[i] = as_numpy(list.items[i].param);
    }
    nd_savez_compressed(path, list.count, keys, arrays);
    for (int i = 0; i < list.count; i++)
        nd_release(arrays[i]);
    free(arrays);
    free(keys);
    keyed_params_free(&list);
}

/* shape as Python writes a tuple, "(784, 1000)", "(10,)" or "()", with
 * ? for an axis of -1 (one the input decides), into text. */
static void shape_text(int ndim, const int64_t *shape, char *text,
                       size_t size)
{
    size_t n = (size_t)snprintf(text, size, "(");
    for (int i = 0; i < ndim && n < size; i++) {
        if (shape[i] < 0)
            n += (size_t)snprintf(text + n, size - n, "%s?", i ? ", " : "");
        else
            n += (size_t)snprintf(text + n, size - n, "%s%lld",
                                  i ? ", " : "", (long long)shape[i]);
    }
    if (n < size)
        snprintf(text + n, size - n, "%s)", ndim == 1 ? "," : "");
}

/* Whether a, the array under kp's key, fits kp's parameter: the dtype
 * and shape of its data, or, for one not made yet, those its layer
 * will make it with; one whose layer does not say is not checked, as
 * Python checks none. False with the problem, which names key. */
static bool array_fits(const KeyedParam *kp, const NdArray *a,
                       char *problem, size_t size)
{
    const NdArray *data = kp->param->variable.data;
    NdDtype dtype;
    int64_t shape[ND_MAX_DIMS];
    int ndim;
    if (data) {
        dtype = data->dtype;
        ndim = data->ndim;
        memcpy(shape, data->shape, sizeof shape);
    } else if (kp->owner->cls->unmade_param) {
        ndim = kp->owner->cls->unmade_param(kp->owner, kp->param, &dtype,
                                            shape);
    } else {
        return true;
    }
    bool same_shape = a->ndim == ndim;
    for (int i = 0; same_shape && i < ndim; i++)
        same_shape = shape[i] < 0 || a->shape[i] == shape[i];
    char got[128], want[128];
    shape_text(a->ndim, a->shape, got, sizeof got);
    shape_text(ndim, shape, want, sizeof want);
    if (!same_shape)
        return keys_problem(problem, size, "'%s' has the shape %s, but the "
                            "model's %s has %s%s", kp->key, got, kp->key,
                            want, strchr(want, '?') ? " (?: any size, which "
                            "its first input decides)" : "");
    if (a->dtype != dtype)
        return keys_problem(problem, size, "'%s' is %s, but the model's %s "
                            "is %s", kp->key, nd_dtype_name(a->dtype),
                            kp->key, nd_dtype_name(dtype));
    return true;
}

/* Whether npz holds an array named key. */
static bool npz_has(const NdNpz *npz, const char *key)
{
    int count;
    const char *const *keys = nd_npz_keys(npz, &count);
    for (int i = 0; i < count; i++)
        if (strcmp(keys[i], key) == 0)
            return true;
    return false;
}

/* Python: Layer.load_weights, param.data = npz[key] for each key. Every
 * array is read and checked before the first parameter takes its own,
 * so that a bad file changes nothing. */
void layer_load_weights(Layer *layer, const char *path)
{
    const char *op = "layer_load_weights";
    if (!layer || !path)
        nd_error(op, "the layer and the path must not be NULL");
    NdNpz *npz = nd_npz_open(path);
    KeyedParams list = {0};
    char problem[768];
    bool ok = flatten_params(layer, "", 0, &list, problem, sizeof problem);
    for (int i = 0; ok && i < list.count; i++)
        if (!npz_has(npz, list.items[i].key))
            ok = keys_problem(problem, sizeof problem, "no array named "
                              "'%s', which the model's parameter %s needs",
                              list.items[i].key, list.items[i].key);
    NdArray **arrays = ok ? calloc((size_t)list.count + 1, sizeof *arrays)
                          : NULL;
    if (ok && !arrays)
        ok = keys_problem(problem, sizeof problem, "out of memory");
    for (int i = 0; ok && i < list.count; i++) {
        arrays[i] = nd_npz_get(npz, list.items[i].key);
        ok = array_fits(&list.items[i], arrays[i], problem, sizeof problem);
    }
    for (int i = 0; ok && i < list.count; i++) {
        Variable *v = &list.items[i].param->variable;
        NdArray *moved = nd_to_device(arrays[i], get_array_module(v));
        nd_release(v->data);
        v->data = moved;
    }
    for (int i = 0; arrays && i < list.count; i++)
        nd_release(arrays[i]);
    free(arrays);
    keyed_params_free(&list);
    nd_npz_close(npz);
    if (!ok)
        nd_error(op, "%s: %s", path, problem);
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

/* W before the first call: (in_size, out_size) of the layer's dtype,
 * in_size to be taken from the input (-1); b is made at once. */
static int linear_unmade_param(const Layer *self, const Parameter *p,
                               NdDtype *dtype, int64_t shape[ND_MAX_DIMS])
{
    const LinearLayer *l = (const LinearLayer *)self;
    (void)p;                    /* only W is made late */
    *dtype = l->dtype;
    shape[0] = -1;
    shape[1] = l->out_size;
    return 2;
}

static const LayerClass linear_layer_class = {
    .name = "Linear",
    .forward = linear_layer_forward,
    .unmade_param = linear_unmade_param,
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

/* ---- Conv2d and Deconv2d */

static const LayerClass conv2d_layer_class, deconv2d_layer_class;

/* Whether l is a Deconv2d layer, whose W is (C, OC, KH, KW). */
static bool is_deconv(const Conv2dLayer *l)
{
    return l->layer.cls == &deconv2d_layer_class;
}

/* W's data on device: randn(OC, C, KH, KW), or randn(C, OC, KH, KW) for
 * Deconv2d, cast to the layer's dtype, times sqrt(1 / (C KH KW)), drawn
 * on the host and moved, as Linear's init_W (Python: _init_W(xp)). */
static void init_filters(Conv2dLayer *l, NdDevice device)
{
    Pair k = l->kernel_size;
    int64_t C = l->in_channels, OC = l->out_channels;
    NdArray *r = is_deconv(l) ? nd_random_randn(ND_SHAPE(C, OC, k.h, k.w))
                              : nd_random_randn(ND_SHAPE(OC, C, k.h, k.w));
    NdArray *cast = nd_astype(r, l->dtype);
    NdArray *scale = nd_scalar(sqrt(1.0 / (double)(C * k.h * k.w)));
    NdArray *W = nd_mul(cast, scale);   // (OC, C, KH, KW) or (C, OC, ...)
    l->W->variable.data = nd_to_device(W, device);
    nd_release(W);
    nd_release(scale);
    nd_release(cast);
    nd_release(r);
}

/* Makes W, on x's device, if it has no data yet: its input channels
 * are x's second axis (Python: self.in_channels = x.shape[1]). */
static void make_filters_once(Conv2dLayer *l, Variable *x)
{
    if (l->W->variable.data)
        return;
    if (variable_ndim(x) != 4)
        nd_error(l->layer.cls->name, "an input of %d axes; it takes (N, "
                 "C, H, W)", variable_ndim(x));
    l->in_channels = variable_shape(x)[1];
    init_filters(l, get_array_module(x));
}

/* y = conv2d(x, W, b), making W first if need be. */
static Variable *conv2d_layer_forward(Layer *self, Variable *x)
{
    Conv2dLayer *l = (Conv2dLayer *)self;
    make_filters_once(l, x);
    return F_conv2d(x, l->W, l->b, .stride = l->stride, .pad = l->pad);
}

/* y = deconv2d(x, W, b), making W first if need be (Python:
 * Deconv2d.forward). */
static Variable *deconv2d_layer_forward(Layer *self, Variable *x)
{
    Conv2dLayer *l = (Conv2dLayer *)self;
    make_filters_once(l, x);
    return F_deconv2d(x, l->W, l->b, .stride = l->stride, .pad = l->pad);
}

/* W before the first call: (OC, C, KH, KW), or (C, OC, KH, KW) for
 * Deconv2d, of the layer's dtype, C to be taken from the input (-1); b
 * is made at once. */
static int conv2d_unmade_param(const Layer *self, const Parameter *p,
                               NdDtype *dtype, int64_t shape[ND_MAX_DIMS])
{
    const Conv2dLayer *l = (const Conv2dLayer *)self;
    (void)p;                    /* only W is made late */
    *dtype = l->dtype;
    shape[is_deconv(l) ? 1 : 0] = l->out_channels;
    shape[is_deconv(l) ? 0 : 1] = -1;
    shape[2] = l->kernel_size.h;
    shape[3] = l->kernel_size.w;
    return 4;
}

static const LayerClass conv2d_layer_class = {
    .name = "Conv2d",
    .forward = conv2d_layer_forward,
    .unmade_param = conv2d_unmade_param,
};

static const LayerClass deconv2d_layer_class = {
    .name = "Deconv2d",
    .forward = deconv2d_layer_forward,
    .unmade_param = conv2d_unmade_param,
};

/* A new layer of class cls, Conv2d or Deconv2d (Python: their
 * __init__): b starts at zeros, W at once when the input channels are
 * given, else at the first call. */
static Layer *new_conv_layer(const LayerClass *cls, int64_t out_channels,
                             Pair kernel_size, Conv2dOptions options)
{
    if (out_channels < 1 || options.in_channels < 0 ||
        kernel_size.h < 1 || kernel_size.w < 1)
        nd_error(cls->name, "sizes must be positive: out_channels %lld, "
                 "kernel_size (%lld, %lld), in_channels %lld",
                 (long long)out_channels, (long long)kernel_size.h,
                 (long long)kernel_size.w, (long long)options.in_channels);
    Conv2dLayer *l = (Conv2dLayer *)layer_new(cls, sizeof *l);
    l->in_channels = options.in_channels;
    l->out_channels = out_channels;
    l->kernel_size = kernel_size;
    l->stride = options.stride;
    l->pad = options.pad;
    l->dtype = options.dtype == ND_BOOL ? ND_FLOAT32 : options.dtype;
    l->W = layer_add_param(&l->layer, parameter(NULL, "W"));
    if (l->in_channels > 0)
        init_filters(l, ND_CPU);
    if (!options.nobias)
        l->b = layer_add_param(&l->layer, parameter(
            nd_zeros(l->dtype, ND_SHAPE(out_channels)), "b"));
    return &l->layer;
}

/* A new Conv2d layer (Python: L.Conv2d(out_channels, kernel_size,
 * stride, pad, nobias, dtype, in_channels)). */
Layer *conv2d_layer(int64_t out_channels, Pair kernel_size,
                    Conv2dOptions options)
{
    return new_conv_layer(&conv2d_layer_class, out_channels, kernel_size,
                          options);
}

/* A new Deconv2d layer (Python: L.Deconv2d(out_channels, kernel_size,
 * stride, pad, nobias, dtype, in_channels)). */
Layer *deconv2d_layer(int64_t out_channels, Pair kernel_size,
                      Conv2dOptions options)
{
    return new_conv_layer(&deconv2d_layer_class, out_channels, kernel_size,
                          options);
}

/* ---- RNN (step 59) */

/* h = tanh(x2h(x) + h2h(h_prev)), or tanh(x2h(x)) when there is no
 * h_prev; the layer keeps h, in place of h_prev (Python: RNN.forward). */
static Variable *rnn_layer_forward(Layer *self, Variable *x)
{
    RNNLayer *r = (RNNLayer *)self;
    Variable *h_new;                                // (N, hidden_size)
    if (!r->h)
        h_new = F_tanh(layer_call(r->x2h, x));
    else
        h_new = F_tanh(F_add(layer_call(r->x2h, x),
                             layer_call(r->h2h, r->h)));
    retain(h_new);
    release(r->h);
    r->h = h_new;
    return h_new;
}

/* The RNN's state: h. */
static void rnn_visit_state(Layer *self,
                            void (*visit)(Variable **slot, void *arg),
                            void *arg)
{
    visit(&((RNNLayer *)self)->h, arg);
}

static const LayerClass rnn_layer_class = {
    .name = "RNN",
    .forward = rnn_layer_forward,
    .visit_state = rnn_visit_state,
};

/* A new RNN layer (Python: L.RNN(hidden_size, in_size)): x2h and h2h,
 * registered in that order, and no state yet. */
Layer *rnn_layer(int64_t hidden_size, RNNOptions options)
{
    RNNLayer *r = (RNNLayer *)layer_new(&rnn_layer_class, sizeof *r);
    int64_t h_size = options.in_size ? hidden_size : 0;
    r->x2h = layer_add_layer(&r->layer, L_linear(hidden_size,
                             .in_size = options.in_size), .name = "x2h");
    r->h2h = layer_add_layer(&r->layer, L_linear(hidden_size,
                             .in_size = h_size, .nobias = true),
                             .name = "h2h");
    return &r->layer;
}

/* ---- LSTM (step 60) */

/* sigmoid(x2g(x) + h2g(h_prev)) or, with no h_prev, sigmoid(x2g(x)):
 * one of the LSTM's gates (activation F_sigmoid), or its candidate
 * (F_tanh). */
static Variable *gate(Variable *(*activation)(Variable *), Layer *x2g,
                      Layer *h2g, Variable *x, Variable *h_prev)
{
    Variable *z = layer_call(x2g, x);               // (N, hidden_size)
    if (h_prev)
        z = F_add(z, layer_call(h2g, h_prev));
    return activation(z);
}

/* Python's LSTM.forward: the gates, the new cell and output, both kept
 * in place of the old ones. */
static Variable *lstm_layer_forward(Layer *self, Variable *x)
{
    LSTMLayer *l = (LSTMLayer *)self;
    Variable *f = gate(F_sigmoid, l->x2f, l->h2f, x, l->h);
    Variable *i = gate(F_sigmoid, l->x2i, l->h2i, x, l->h);
    Variable *o = gate(F_sigmoid, l->x2o, l->h2o, x, l->h);
    Variable *u = gate(F_tanh, l->x2u, l->h2u, x, l->h);
    Variable *c_new = l->c ? F_add(F_mul(f, l->c), F_mul(i, u))
                           : F_mul(i, u);           // (N, hidden_size)
    Variable *h_new = F_mul(o, F_tanh(c_new));      // (N, hidden_size)
    retain(h_new);
    retain(c_new);
    release(l->h);
    release(l->c);
    l->h = h_new;
    l->c = c_new;
    return h_new;
}

/* The LSTM's state: h and c. */
static void lstm_visit_state(Layer *self,
                             void (*visit)(Variable **slot, void *arg),
                             void *arg)
{
    LSTMLayer *l = (LSTMLayer *)self;
    visit(&l->h, arg);
    visit(&l->c, arg);
}

static const LayerClass lstm_layer_class = {
    .name = "LSTM",
    .forward = lstm_layer_forward,
    .visit_state = lstm_visit_state,
};

/* A new LSTM layer (Python: L.LSTM(hidden_size, in_size)): its eight
 * Linear layers, registered in Python's order, and no state yet. */
Layer *lstm_layer(int64_t hidden_size, RNNOptions options)
{
    LSTMLayer *l = (LSTMLayer *)layer_new(&lstm_layer_class, sizeof *l);
    Layer *self = &l->layer;
    int64_t H = hidden_size, I = options.in_size;
    l->x2f = layer_add_layer(self, L_linear(H, .in_size = I), .name = "x2f");
    l->x2i = layer_add_layer(self, L_linear(H, .in_size = I), .name = "x2i");
    l->x2o = layer_add_layer(self, L_linear(H, .in_size = I), .name = "x2o");
    l->x2u = layer_add_layer(self, L_linear(H, .in_size = I), .name = "x2u");
    l->h2f = layer_add_layer(self, L_linear(H, .in_size = H, .nobias = true),
                             .name = "h2f");
    l->h2i = layer_add_layer(self, L_linear(H, .in_size = H, .nobias = true),
                             .name = "h2i");
    l->h2o = layer_add_layer(self, L_linear(H, .in_size = H, .nobias = true),
                             .name = "h2o");
    l->h2u = layer_add_layer(self, L_linear(H, .in_size = H, .nobias = true),
                             .name = "h2u");
    return self;
}

/* ---- EmbedID */

/* y = W[x], the rows of W picked by the ids x (Python: EmbedID's
 * __call__). */
static Variable *embed_id_layer_forward(Layer *self, Variable *x)
{
    const EmbedIDLayer *l = (const EmbedIDLayer *)self;
    return F_embed_id(x, l->W);
}

static const LayerClass embed_id_layer_class = {
    .name = "EmbedID",
    .forward = embed_id_layer_forward,
};

/* A new EmbedID layer (Python: L.EmbedID(in_size, out_size)): W drawn
 * at once from np.random.randn(in_size, out_size), float64, as Python
 * draws it, unscaled. */
Layer *embed_id_layer(int64_t in_size, int64_t out_size)
{
    if (in_size < 1 || out_size < 1)
        nd_error("embed_id_layer", "sizes must be positive: in_size "
                 "%lld, out_size %lld", (long long)in_size,
                 (long long)out_size);
    EmbedIDLayer *l = (EmbedIDLayer *)layer_new(&embed_id_layer_class,
                                                sizeof *l);
    NdArray *W = nd_random_randn(ND_SHAPE(in_size, out_size));
    l->W = layer_add_param(&l->layer, parameter(W, "W"));
    return &l->layer;
}

/* ---- BatchNorm */

/* Each statistic and parameter not made yet, (D,) of x's dtype on x's
 * device, D = x.shape[1]: the running mean at zeros and variance at
 * ones, gamma at ones, beta at zeros (Python: _init_params). */
static void batch_norm_init_params(BatchNormLayer *l, const Variable *x)
{
    if (variable_ndim(x) < 2)
        nd_error("batch_norm_layer", "an input of %d axes; BatchNorm "
                 "takes (N, C) or (N, C, H, W)", variable_ndim(x));
    NdDevice device = get_array_module(x);
    NdDtype dtype = variable_dtype(x);
    int64_t D = variable_shape(x)[1];
    Parameter *params[] = {l->avg_mean, l->avg_var, l->gamma, l->beta};
    const double starts[] = {0, 1, 1, 0};
    for (int i = 0; i < 4; i++)
        if (!params[i]->variable.data)
            params[i]->variable.data = nd_full_on(device, dtype,
                                                  ND_SHAPE(D), starts[i]);
}

/* Python: BatchNorm's __call__, F.batch_nrom(x, gamma, beta, avg_mean,
 * avg_var) with the defaults decay 0.9 and eps 2e-5, the parameters
 * made first, at the first call. */
static Variable *batch_norm_layer_forward(Layer *self, Variable *x)
{
    BatchNormLayer *l = (BatchNormLayer *)self;
    if (!l->avg_mean->variable.data)
        batch_norm_init_params(l, x);
    return F_batch_norm(x, l->gamma, l->beta, l->avg_mean->variable.data,
                        l->avg_var->variable.data, 0.9, 2e-5);
}

static const LayerClass batch_norm_layer_class = {
    .name = "BatchNorm",
    .forward = batch_norm_layer_forward,
};

/* A new BatchNorm layer (Python: L.BatchNorm()): its four parameters
 * registered in Python's order, avg_mean, avg_var, gamma, beta, none
 * made yet. */
Layer *batch_norm_layer(void)
{
    BatchNormLayer *l = (BatchNormLayer *)layer_new(
        &batch_norm_layer_class, sizeof *l);
    l->avg_mean = layer_add_param(&l->layer, parameter(NULL, "avg_mean"));
    l->avg_var = layer_add_param(&l->layer, parameter(NULL, "avg_var"));
    l->gamma = layer_add_param(&l->layer, parameter(NULL, "gamma"));
    l->beta = layer_add_param(&l->layer, parameter(NULL, "beta"));
    return &l->layer;
}
