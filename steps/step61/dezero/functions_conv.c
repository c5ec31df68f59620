/* functions_conv.c - the functions of convolutional networks, as the
 * book's functions_conv.py: im2col and col2im, as Functions; the
 * convolution, as conv2d_simple (made of im2col and Linear) and as one
 * function, Conv2d, whose forward is one matrix product over im2col's
 * matrix; its transpose Deconv2d; Conv2DGradW, the gradient of the
 * weights of both; max pooling, as pooling_simple (im2col and Max) and
 * as Pooling, which keeps where each maximum was for Pooling2DGrad and
 * Pooling2DWithIndexes; and average_pooling. The arrays are those of
 * common/ (nd_im2col and nd_col2im are DeZero's im2col_array and
 * col2im_array), which compute on their operands' device, so each
 * function runs where its input is. */
#include <string.h>

#include "dezero.h"

/* What a function of this file keeps of its call. */
typedef struct ConvFunction {
    Function function;          /* first: a ConvFunction * is a
                                 * Function * */
    Pair kernel, stride, pad;
    Pair outsize;               /* Deconv2d's output (H, W); 0: by
                                 * get_deconv_outsize */
    bool has_bias;              /* Conv2d, Deconv2d: a third input b */
    bool to_matrix;             /* Im2col, Col2im: the 2-D layout */
    int64_t image_shape[4];     /* the image's (N, C, H, W): Col2im's
                                 * output, the input of Im2col and of
                                 * the poolings */
    NdArray *indexes;           /* Pooling and its gradients: a
                                 * reference to where each maximum is
                                 * in its window, (N, C, OH, OW) int64 */
} ConvFunction;

/* Python's defaults: a stride of 0 (not given) is 1. */
static Pair stride_or_one(Pair stride)
{
    return (Pair){stride.h ? stride.h : 1, stride.w ? stride.w : 1};
}

static void conv_function_destroy(Function *self)
{
    nd_release(((ConvFunction *)self)->indexes);
}

/* A new function of class cls keeping the window's geometry. */
static ConvFunction *conv_function(const FunctionClass *cls, Pair kernel,
                                   Pair stride, Pair pad)
{
    ConvFunction *f = (ConvFunction *)function_new_sized(cls, sizeof *f);
    f->kernel = kernel;
    f->stride = stride_or_one(stride);
    f->pad = pad;
    return f;
}

/* Stops with an error naming op unless x is 4-D, (N, C, H, W). */
static void check_image(const char *op, const Variable *x)
{
    if (variable_ndim(x) != 4)
        nd_error(op, "an input of %d axes; it takes (N, C, H, W)",
                 variable_ndim(x));
}

/* Stops with an error naming op unless the window of kernel, moved by
 * stride over an image (N, C, H, W) padded by pad, fits at least once,
 * each number is valid, and the windows, (N, C, KH, KW, OH, OW), can be
 * counted in int64: so that no size computed from them overflows. */
static void check_window(const char *op, const int64_t *shape, Pair kernel,
                         Pair stride, Pair pad)
{
    if (kernel.h < 1 || kernel.w < 1 || stride.h < 1 || stride.w < 1 ||
        pad.h < 0 || pad.w < 0)
        nd_error(op, "kernel (%lld, %lld), stride (%lld, %lld), pad "
                 "(%lld, %lld): kernel and stride must be positive, pad "
                 "not negative", (long long)kernel.h, (long long)kernel.w,
                 (long long)stride.h, (long long)stride.w,
                 (long long)pad.h, (long long)pad.w);
    int64_t padded_h, padded_w;     /* H + 2 pad.h, W + 2 pad.w */
    if (__builtin_mul_overflow(pad.h, 2, &padded_h) ||
        __builtin_add_overflow(padded_h, shape[2], &padded_h) ||
        __builtin_mul_overflow(pad.w, 2, &padded_w) ||
        __builtin_add_overflow(padded_w, shape[3], &padded_w))
        nd_error(op, "a pad of (%lld, %lld) is too large: an image of "
                 "(%lld, %lld) padded by it has more than 2**63 rows or "
                 "columns", (long long)pad.h, (long long)pad.w,
                 (long long)shape[2], (long long)shape[3]);
    if (padded_h < kernel.h || padded_w < kernel.w)
        nd_error(op, "a kernel of (%lld, %lld) does not fit an image of "
                 "(%lld, %lld) padded by (%lld, %lld)",
                 (long long)kernel.h, (long long)kernel.w,
                 (long long)shape[2], (long long)shape[3],
                 (long long)pad.h, (long long)pad.w);
    const int64_t windows[6] = {
        shape[0], shape[1], kernel.h, kernel.w,
        get_conv_outsize(shape[2], kernel.h, stride.h, pad.h),
        get_conv_outsize(shape[3], kernel.w, stride.w, pad.w)};
    int64_t count = 1;
    for (int d = 0; d < 6; d++)
        if (__builtin_mul_overflow(count, windows[d], &count))
            nd_error(op, "kernel (%lld, %lld), stride (%lld, %lld) and pad "
                     "(%lld, %lld) make more windows of an image of "
                     "(%lld, %lld, %lld, %lld) than int64 can count",
                     (long long)kernel.h, (long long)kernel.w,
                     (long long)stride.h, (long long)stride.w,
                     (long long)pad.h, (long long)pad.w,
                     (long long)shape[0], (long long)shape[1],
                     (long long)shape[2], (long long)shape[3]);
}

/* get_deconv_outsize, stride (size - 1) + kernel - 2 pad, or an error
 * naming op when that overflows int64. */
static int64_t deconv_outsize(const char *op, int64_t size, int64_t kernel,
                              int64_t stride, int64_t pad)
{
    int64_t out, twice_pad;
    if (__builtin_mul_overflow(stride, size - 1, &out) ||
        __builtin_add_overflow(out, kernel, &out) ||
        __builtin_mul_overflow(pad, 2, &twice_pad) ||
        __builtin_sub_overflow(out, twice_pad, &out))
        nd_error(op, "stride %lld, kernel %lld and pad %lld make an output "
                 "size from %lld beyond int64", (long long)stride,
                 (long long)kernel, (long long)pad, (long long)size);
    return get_deconv_outsize(size, kernel, stride, pad);
}

/* The spatial size of im2col's windows over an image (N, C, H, W). */
static Pair conv_outsize(const int64_t *shape, Pair kernel, Pair stride,
                         Pair pad)
{
    return (Pair){get_conv_outsize(shape[2], kernel.h, stride.h, pad.h),
                  get_conv_outsize(shape[3], kernel.w, stride.w, pad.w)};
}

static NdArray *im2col_of(const NdArray *x, const ConvFunction *f,
                          bool to_matrix)
{
    return nd_im2col(x, f->kernel.h, f->kernel.w, f->stride.h,
                     f->stride.w, f->pad.h, f->pad.w, to_matrix);
}

/* x's windows (N, C*KH*KW, OH*OW), from im2col's 6-D layout: a matrix
 * per image, a column per window. */
static NdArray *columns_of(const NdArray *x, const ConvFunction *f)
{
    NdArray *col = im2col_of(x, f, false);      // (N, C, KH, KW, OH, OW)
    const int64_t *s = col->shape;
    NdArray *columns = nd_reshape(col, ND_SHAPE(s[0], s[1] * s[2] * s[3],
                                                s[4] * s[5]));
    nd_release(col);
    return columns;
}

static NdArray *col2im_of(const NdArray *col, const int64_t *image_shape,
                          const ConvFunction *f, bool to_matrix)
{
    return nd_col2im(col, 4, image_shape, f->kernel.h, f->kernel.w,
                     f->stride.h, f->stride.w, f->pad.h, f->pad.w,
                     to_matrix);
}

/* ---- Im2col and Col2im: each the other's gradient */

static void im2col_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    ConvFunction *f = (ConvFunction *)self;
    memcpy(f->image_shape, xs[0]->shape, sizeof f->image_shape);
    ys[0] = im2col_of(xs[0], f, f->to_matrix);
}

/* im2col copies; the gradient adds the copies back: col2im. */
static void im2col_backward(Function *self, Variable *gys[],
                            Variable *gxs[])
{
    const ConvFunction *f = (const ConvFunction *)self;
    gxs[0] = F_col2im(gys[0], f->image_shape, f->kernel,
                      .stride = f->stride, .pad = f->pad,
                      .keep_6d = !f->to_matrix);
}

static const FunctionClass im2col_class = {
    .name = "Im2col",
    .noutputs = 1,
    .forward = im2col_forward,
    .backward = im2col_backward,
};

/* x's kernel_size windows, a row each (Python: F.im2col(x, kernel_size,
 * stride, pad, to_matrix)): a new Im2col, called on x. */
Variable *(F_im2col)(Variable *x, Pair kernel_size, Im2colOptions o)
{
    check_image("im2col", x);
    ConvFunction *f = conv_function(&im2col_class, kernel_size, o.stride,
                                    o.pad);
    check_window("im2col", variable_shape(x), f->kernel, f->stride,
                 f->pad);
    f->to_matrix = !o.keep_6d;
    return function_call(&f->function, x);
}

static void col2im_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    const ConvFunction *f = (const ConvFunction *)self;
    ys[0] = col2im_of(xs[0], f->image_shape, f, f->to_matrix);
}

static void col2im_backward(Function *self, Variable *gys[],
                            Variable *gxs[])
{
    const ConvFunction *f = (const ConvFunction *)self;
    gxs[0] = F_im2col(gys[0], f->kernel, .stride = f->stride,
                      .pad = f->pad, .keep_6d = !f->to_matrix);
}

static const FunctionClass col2im_class = {
    .name = "Col2im",
    .noutputs = 1,
    .forward = col2im_forward,
    .backward = col2im_backward,
};

/* The image of input_shape whose windows x holds, overlaps added
 * (Python: F.col2im(x, input_shape, kernel_size, stride, pad,
 * to_matrix)): a new Col2im, called on x. */
Variable *(F_col2im)(Variable *x, const int64_t input_shape[4],
                     Pair kernel_size, Im2colOptions o)
{
    ConvFunction *f = conv_function(&col2im_class, kernel_size, o.stride,
                                    o.pad);
    check_window("col2im", input_shape, f->kernel, f->stride, f->pad);
    memcpy(f->image_shape, input_shape, sizeof f->image_shape);
    f->to_matrix = !o.keep_6d;
    Pair out = conv_outsize(input_shape, f->kernel, f->stride, f->pad);
    const int64_t *s = input_shape;
    int64_t rows = s[0] * out.h * out.w, cols = s[1] * f->kernel.h *
                                                f->kernel.w;
    bool fits = f->to_matrix
        ? variable_ndim(x) == 2 && variable_shape(x)[0] == rows &&
          variable_shape(x)[1] == cols
        : variable_size(x) == rows * cols && variable_ndim(x) == 6;
    if (!fits)
        nd_error("col2im", "an input of %d axes and %lld elements is not "
                 "the windows of an image (%lld, %lld, %lld, %lld)",
                 variable_ndim(x), (long long)variable_size(x),
                 (long long)s[0], (long long)s[1], (long long)s[2],
                 (long long)s[3]);
    return function_call(&f->function, x);
}

/* ---- conv2d_simple: im2col, then Linear */

/* Stops with an error naming op unless x (N, C, H, W), W (OC, C, KH,
 * KW) for conv2d or (C, OC, KH, KW) for deconv2d, and b (OC,) or NULL
 * fit together. */
static void check_conv(const char *op, const Variable *x, const Variable *W,
                       const Variable *b, bool deconv)
{
    check_image(op, x);
    if (variable_ndim(W) != 4)
        nd_error(op, "a weight of %d axes; it takes (%s, KH, KW)",
                 variable_ndim(W), deconv ? "C, OC" : "OC, C");
    int64_t C = variable_shape(W)[deconv ? 0 : 1];
    int64_t OC = variable_shape(W)[deconv ? 1 : 0];
    if (variable_shape(x)[1] != C)
        nd_error(op, "an input of %lld channels for a weight of %lld",
                 (long long)variable_shape(x)[1], (long long)C);
    if (b && (variable_ndim(b) != 1 || variable_shape(b)[0] != OC))
        nd_error(op, "a bias of %lld elements in %d axes for %lld output "
                 "channels; it takes (OC,)", (long long)variable_size(b),
                 variable_ndim(b), (long long)OC);
}

// region: conv2d_simple
/* The convolution as Python's conv2d_simple: the windows of x as the
 * rows of a matrix, times the filters as its columns, by Linear; the
 * rows (N*OH*OW) and the columns (OC) then made (N, OC, OH, OW). */
Variable *(F_conv2d_simple)(Variable *x, Variable *W, Variable *b,
                            ConvOptions o)
{
    check_conv("conv2d_simple", x, W, b, false);
    const int64_t *xs = variable_shape(x), *ws = variable_shape(W);
    int64_t N = xs[0], OC = ws[0];
    Pair kernel = {ws[2], ws[3]}, stride = stride_or_one(o.stride);
    check_window("conv2d_simple", xs, kernel, stride, o.pad);
    Pair out = conv_outsize(xs, kernel, stride, o.pad);

    Variable *col = F_im2col(x, kernel, .stride = stride, .pad = o.pad);
    // (N*OH*OW, C*KH*KW)
    Variable *Wt = F_transpose(F_reshape(W, ND_SHAPE(OC, -1)), 0, NULL);
    // (C*KH*KW, OC)
    Variable *t = F_linear(col, Wt, b);             // (N*OH*OW, OC)
    return F_transpose(F_reshape(t, ND_SHAPE(N, out.h, out.w, OC)),
                       ND_AXES(0, 3, 1, 2));        // (N, OC, OH, OW)
}
// endregion

/* ---- Conv2d, Deconv2d and Conv2DGradW: each a matrix product */

static Variable *conv2d_grad_W(Variable *x, Variable *gy, Pair kernel,
                               Pair stride, Pair pad);

/* y[n, oc] = sum over c, kh, kw of W[oc, c, kh, kw] times x's window,
 * for every window: with the filters as the rows of W (OC, C*KH*KW)
 * and image n's windows as the columns of its matrix (C*KH*KW, OH*OW)
 * (im2col's 6-D layout), y[n] is the product W col[n], one GEMM an
 * image. Python's np.tensordot of the 6-D col and W makes one product
 * col W^T (N*OH*OW, OC) and hands back its transpose, a view, which
 * the next operation copies; ours comes out (N, OC, OH*OW) already, so
 * no array of y's size is written twice, and BLAS reads W as it is. */
static void conv2d_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    const ConvFunction *f = (const ConvFunction *)self;
    const NdArray *x = xs[0], *W = xs[1];   // (N, C, H, W), (OC, C, KH, KW)
    int64_t N = x->shape[0], OC = W->shape[0];
    Pair out = conv_outsize(x->shape, f->kernel, f->stride, f->pad);
    NdArray *col = columns_of(x, f);                // (N, C*KH*KW, OH*OW)
    NdArray *W2 = nd_reshape(W, ND_SHAPE(OC, -1));  // (OC, C*KH*KW)
    NdArray *y = nd_matmul_t(W2, false, col, false);    // (N, OC, OH*OW)
    ys[0] = nd_reshape(y, ND_SHAPE(N, OC, out.h, out.w));
    if (f->has_bias) {
        NdArray *b4 = nd_reshape(xs[2], ND_SHAPE(1, OC, 1, 1));
        nd_iadd(ys[0], b4);
        nd_release(b4);
    }
    nd_release(y);
    nd_release(W2);
    nd_release(col);
}

/* x's gradient is the transposed convolution of gy by the same W, back
 * to x's size; W's is Conv2DGradW; b's is gy summed over all but the
 * channels. */
static void conv2d_backward(Function *self, Variable *gys[],
                            Variable *gxs[])
{
    const ConvFunction *f = (const ConvFunction *)self;
    Variable *x = self->inputs[0], *W = self->inputs[1], *gy = gys[0];
    const int64_t *xs = variable_shape(x);
    gxs[0] = F_deconv2d(gy, W, NULL, .stride = f->stride, .pad = f->pad,
                        .outsize = {xs[2], xs[3]});
    gxs[1] = conv2d_grad_W(x, gy, f->kernel, f->stride, f->pad);
    if (f->has_bias)
        gxs[2] = F_sum(gy, ND_AXES(0, 2, 3), false);
}

static const FunctionClass conv2d_class = {
    .name = "Conv2d",
    .noutputs = 1,
    .forward = conv2d_forward,
    .backward = conv2d_backward,
};

/* x convolved with the filters W, plus b (Python: F.conv2d(x, W, b,
 * stride, pad)): a new Conv2d, called on x, W and b, or on x and W. */
Variable *(F_conv2d)(Variable *x, Variable *W, Variable *b, ConvOptions o)
{
    check_conv("conv2d", x, W, b, false);
    const int64_t *ws = variable_shape(W);
    ConvFunction *f = conv_function(&conv2d_class, (Pair){ws[2], ws[3]},
                                    o.stride, o.pad);
    check_window("conv2d", variable_shape(x), f->kernel, f->stride,
                 f->pad);
    f->has_bias = b != NULL;
    return b ? function_call(&f->function, x, W, b)
             : function_call(&f->function, x, W);
}

/* The adjoint of Conv2d's forward in x: each element of x (N, C, H, W)
 * spreads over a window of the output through the filter W (C, OC, KH,
 * KW). The product W^T x[n] (OC*KH*KW, C) (C, H*W) gives every window's
 * contribution of image n, a GEMM an image, in the 6-D layout of
 * im2col for the output, and col2im adds the overlapping windows up
 * (Python: np.tensordot, then col2im_array). x is read as it is: no
 * copy of it turned (N*H*W, C). */
static void deconv2d_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    const ConvFunction *f = (const ConvFunction *)self;
    const NdArray *x = xs[0], *W = xs[1];   // (N, C, H, W), (C, OC, KH, KW)
    const int64_t *s = x->shape;
    int64_t N = s[0], C = s[1], OC = W->shape[1];
    Pair k = f->kernel;
    NdArray *x3 = nd_reshape(x, ND_SHAPE(N, C, -1));       // (N, C, H*W)
    NdArray *W2 = nd_reshape(W, ND_SHAPE(C, -1));     // (C, OC*KH*KW)
    NdArray *gcol = nd_matmul_t(W2, true, x3, false); // (N, OC*KH*KW, H*W)
    NdArray *gcol6 = nd_reshape(gcol, ND_SHAPE(N, OC, k.h, k.w, s[2],
                                               s[3]));
    int64_t image[4] = {N, OC, f->outsize.h, f->outsize.w};
    ys[0] = col2im_of(gcol6, image, f, false);        // (N, OC, OH, OW)
    if (f->has_bias) {
        NdArray *b4 = nd_reshape(xs[2], ND_SHAPE(1, OC, 1, 1));
        nd_iadd(ys[0], b4);
        nd_release(b4);
    }
    nd_release(gcol6);
    nd_release(gcol);
    nd_release(W2);
    nd_release(x3);
}

/* The transpose of a linear map has the map itself as its gradient:
 * x's is the convolution of gy by W; W's is Conv2DGradW with the roles
 * of x and gy exchanged; b's the sum of gy over all but the channels. */
static void deconv2d_backward(Function *self, Variable *gys[],
                              Variable *gxs[])
{
    const ConvFunction *f = (const ConvFunction *)self;
    Variable *x = self->inputs[0], *W = self->inputs[1], *gy = gys[0];
    gxs[0] = F_conv2d(gy, W, NULL, .stride = f->stride, .pad = f->pad);
    gxs[1] = conv2d_grad_W(gy, x, f->kernel, f->stride, f->pad);
    if (f->has_bias)
        gxs[2] = F_sum(gy, ND_AXES(0, 2, 3), false);
}

static const FunctionClass deconv2d_class = {
    .name = "Deconv2d",
    .noutputs = 1,
    .forward = deconv2d_forward,
    .backward = deconv2d_backward,
};

/* The transposed convolution of x by W, plus b (Python: F.deconv2d(x,
 * W, b, stride, pad, outsize)): a new Deconv2d, called on x, W and b,
 * or on x and W. */
Variable *(F_deconv2d)(Variable *x, Variable *W, Variable *b,
                       DeconvOptions o)
{
    check_conv("deconv2d", x, W, b, true);
    const int64_t *xs = variable_shape(x), *ws = variable_shape(W);
    ConvFunction *f = conv_function(&deconv2d_class, (Pair){ws[2], ws[3]},
                                    o.stride, o.pad);
    Pair out = o.outsize;
    if (!out.h)
        out.h = deconv_outsize("deconv2d", xs[2], f->kernel.h, f->stride.h,
                               f->pad.h);
    if (!out.w)
        out.w = deconv_outsize("deconv2d", xs[3], f->kernel.w, f->stride.w,
                               f->pad.w);
    int64_t image[4] = {xs[0], ws[1], out.h, out.w};
    check_window("deconv2d", image, f->kernel, f->stride, f->pad);
    Pair back = conv_outsize(image, f->kernel, f->stride, f->pad);
    if (back.h != xs[2] || back.w != xs[3])
        nd_error("deconv2d", "an output of (%lld, %lld) is not one that a "
                 "convolution takes to the input's (%lld, %lld)",
                 (long long)out.h, (long long)out.w, (long long)xs[2],
                 (long long)xs[3]);
    f->outsize = out;
    f->has_bias = b != NULL;
    return b ? function_call(&f->function, x, W, b)
             : function_call(&f->function, x, W);
}

/* Conv2DGradW's sum image by image: for image n the product gy[n]
 * col[n]^T of its channels (OC, P) and its windows (K, P), then the sum
 * of the N products. */
static NdArray *grad_W_by_image(const NdArray *x, const NdArray *gy,
                                const ConvFunction *f)
{
    int64_t N = gy->shape[0], OC = gy->shape[1];
    NdArray *col = columns_of(x, f);                // (N, K, P)
    NdArray *gy3 = nd_reshape(gy, ND_SHAPE(N, OC, -1)); // (N, OC, P)
    NdArray *gWs = nd_matmul_t(gy3, false, col, true);  // (N, OC, K)
    NdArray *gW = nd_sum(gWs, ND_AXES(0), false);       // (OC, K)
    nd_release(gWs);
    nd_release(gy3);
    nd_release(col);
    return gW;
}

/* Conv2DGradW's sum in one product: gy turned (OC, N*P) times
 * im2col's matrix (N*P, K). */
static NdArray *grad_W_in_one_product(const NdArray *x, const NdArray *gy,
                                      const ConvFunction *f)
{
    int64_t OC = gy->shape[1];
    NdArray *col = im2col_of(x, f, true);           // (N*P, K)
    const int channels_first[4] = {1, 0, 2, 3};
    NdArray *gyT = nd_transpose(gy, 4, channels_first); // (OC, N, OH, OW)
    NdArray *gy2 = nd_reshape(gyT, ND_SHAPE(OC, -1));   // (OC, N*P)
    NdArray *gW = nd_matmul(gy2, col);                  // (OC, K)
    nd_release(gy2);
    nd_release(gyT);
    nd_release(col);
    return gW;
}

/* gW[oc, c, kh, kw] = the sum over every window of gy[n, oc] times
 * x's element under (kh, kw), over the images n and their P = OH*OW
 * windows. Two ways to add it up; the function takes the one that
 * writes less. Image by image, a GEMM an image and then the sum of the
 * N products, writes N*OC*K numbers, K = C*KH*KW, and reads gy as it
 * is. In one product, as Python's np.tensordot(gy, col, ((0, 2, 3),
 * (0, 4, 5))), it copies gy turned (OC, N*P), N*OC*P numbers. So the
 * first is the cheaper when a window holds fewer numbers than an image
 * has windows (K <= P: MNIST's 5 x 5 filters, 25 against 576), the
 * second when it holds more (a GAN's 64 channels of 4 x 4 over 7 x 7,
 * 1024 against 49, where 128 images' products fill 128 MiB). */
static void conv2d_grad_W_forward(Function *self, NdArray *xs[],
                                  NdArray *ys[])
{
    const ConvFunction *f = (const ConvFunction *)self;
    const NdArray *x = xs[0], *gy = xs[1];  // (N, C, H, W), (N, OC, OH, OW)
    int64_t C = x->shape[1], OC = gy->shape[1];
    int64_t K = C * f->kernel.h * f->kernel.w;      // a window's numbers
    int64_t P = gy->shape[2] * gy->shape[3];        // windows an image
    NdArray *gW = K <= P ? grad_W_by_image(x, gy, f)    // (OC, K)
                         : grad_W_in_one_product(x, gy, f);
    ys[0] = nd_reshape(gW, ND_SHAPE(OC, C, f->kernel.h, f->kernel.w));
    nd_release(gW);
}

/* gW is linear in x and in gy: for the gradient ggW of gW, x's part is
 * the transposed convolution of gy by ggW, and gy's the convolution of
 * x by ggW. (Python's backward reads the output gW where ggW belongs;
 * this is the derivative.) */
static void conv2d_grad_W_backward(Function *self, Variable *gys[],
                                   Variable *gxs[])
{
    const ConvFunction *f = (const ConvFunction *)self;
    Variable *x = self->inputs[0], *gy = self->inputs[1], *ggW = gys[0];
    const int64_t *xs = variable_shape(x);
    gxs[0] = F_deconv2d(gy, ggW, NULL, .stride = f->stride, .pad = f->pad,
                        .outsize = {xs[2], xs[3]});
    gxs[1] = F_conv2d(x, ggW, NULL, .stride = f->stride, .pad = f->pad);
}

static const FunctionClass conv2d_grad_W_class = {
    .name = "Conv2DGradW",
    .noutputs = 1,
    .forward = conv2d_grad_W_forward,
    .backward = conv2d_grad_W_backward,
};

/* The gradient of a convolution's weights of kernel's size, from its
 * input x and its output's gradient gy (Python: Conv2DGradW(conv)(x,
 * gy), which reads the same three from the function conv). */
static Variable *conv2d_grad_W(Variable *x, Variable *gy, Pair kernel,
                               Pair stride, Pair pad)
{
    ConvFunction *f = conv_function(&conv2d_grad_W_class, kernel, stride,
                                    pad);
    return function_call(&f->function, x, gy);
}

/* ---- pooling_simple: im2col, then Max */

/* Max pooling as Python's pooling_simple: each window of each channel
 * a row of KH*KW, the maximum of each row, laid out (N, C, OH, OW). */
Variable *(F_pooling_simple)(Variable *x, Pair kernel_size, ConvOptions o)
{
    check_image("pooling_simple", x);
    const int64_t *xs = variable_shape(x);
    int64_t N = xs[0], C = xs[1];
    Pair stride = stride_or_one(o.stride);
    check_window("pooling_simple", xs, kernel_size, stride, o.pad);
    Pair out = conv_outsize(xs, kernel_size, stride, o.pad);
    Variable *col = F_im2col(x, kernel_size, .stride = stride,
                             .pad = o.pad);         // (N*OH*OW, C*KH*KW)
    col = F_reshape(col, ND_SHAPE(-1, kernel_size.h * kernel_size.w));
    Variable *y = F_max(col, ND_AXES(1), false);    // (N*OH*OW*C,)
    return F_transpose(F_reshape(y, ND_SHAPE(N, out.h, out.w, C)),
                       ND_AXES(0, 3, 1, 2));        // (N, C, OH, OW)
}

/* ---- Pooling, Pooling2DGrad and Pooling2DWithIndexes */

/* A bool mask (N, C, KH*KW, OH, OW) that is true where k is the
 * window's maximum: indexes[n, c, oh, ow] == k, on indexes' device. */
static NdArray *argmax_mask(const NdArray *indexes, int64_t window)
{
    const int64_t *s = indexes->shape;
    NdArray *at = nd_reshape(indexes, ND_SHAPE(s[0], s[1], 1, s[2], s[3]));
    NdArray *k = nd_arange(0, (double)window, 1, ND_INT64);  // (KH*KW,)
    NdArray *k5 = nd_reshape(k, ND_SHAPE(1, 1, window, 1, 1));
    NdArray *here = nd_to_device(k5, indexes->device);
    NdArray *mask = nd_equal(at, here);         // (N, C, KH*KW, OH, OW)
    nd_release(here);
    nd_release(k5);
    nd_release(k);
    nd_release(at);
    return mask;
}

/* x's windows (N, C, KH*KW, OH, OW), from im2col's 6-D layout. */
static NdArray *windows_of(const NdArray *x, const ConvFunction *f)
{
    NdArray *col = im2col_of(x, f, false);      // (N, C, KH, KW, OH, OW)
    const int64_t *s = col->shape;
    NdArray *windows = nd_reshape(col, ND_SHAPE(s[0], s[1], s[2] * s[3],
                                                s[4], s[5]));
    nd_release(col);
    return windows;
}

static Variable *pooling_2d_grad(const ConvFunction *pooling, Variable *gy);
static Variable *pooling_2d_with_indexes(const ConvFunction *pooling,
                                         Variable *x);

/* The maximum of each window, and where in the window it is (the first
 * one, as np.argmax), kept for backward. */
static void pooling_forward(Function *self, NdArray *xs[], NdArray *ys[])
{
    ConvFunction *f = (ConvFunction *)self;
    memcpy(f->image_shape, xs[0]->shape, sizeof f->image_shape);
    NdArray *windows = windows_of(xs[0], f);    // (N, C, KH*KW, OH, OW)
    nd_release(f->indexes);
    f->indexes = nd_argmax(windows, 2);         // (N, C, OH, OW)
    ys[0] = nd_max(windows, ND_AXES(2), false); // (N, C, OH, OW)
    nd_release(windows);
}

/* Only the maximum of each window reaches the output: gy goes back to
 * where it was, and 0 to the rest of the window. (Also the backward of
 * Pooling2DWithIndexes, which picks x's elements at those places: the
 * adjoint of picking is putting back.) */
static void pooling_backward(Function *self, Variable *gys[],
                             Variable *gxs[])
{
    gxs[0] = pooling_2d_grad((const ConvFunction *)self, gys[0]);
}

static const FunctionClass pooling_class = {
    .name = "Pooling",
    .noutputs = 1,
    .forward = pooling_forward,
    .backward = pooling_backward,
    .destroy = conv_function_destroy,
};

/* The maximum of each kernel_size window of x (Python: F.pooling(x,
 * kernel_size, stride, pad)): a new Pooling, called on x. */
Variable *(F_pooling)(Variable *x, Pair kernel_size, ConvOptions o)
{
    check_image("pooling", x);
    ConvFunction *f = conv_function(&pooling_class, kernel_size, o.stride,
                                    o.pad);
    check_window("pooling", variable_shape(x), f->kernel, f->stride,
                 f->pad);
    return function_call(&f->function, x);
}

/* gy (N, C, OH, OW) put at each window's maximum, 0 elsewhere, and the
 * windows added back into the image (Python: gcol[indexes] = gy, then
 * col2im_array). */
static void pooling_2d_grad_forward(Function *self, NdArray *xs[],
                                    NdArray *ys[])
{
    const ConvFunction *f = (const ConvFunction *)self;
    const NdArray *gy = xs[0];                  // (N, C, OH, OW)
    const int64_t *s = gy->shape;
    Pair k = f->kernel;
    NdArray *mask = argmax_mask(f->indexes, k.h * k.w);
    NdArray *gy5 = nd_reshape(gy, ND_SHAPE(s[0], s[1], 1, s[2], s[3]));
    NdArray *gcol = nd_mul(gy5, mask);          // (N, C, KH*KW, OH, OW)
    NdArray *gcol6 = nd_reshape(gcol, ND_SHAPE(s[0], s[1], k.h, k.w, s[2],
                                               s[3]));
    ys[0] = col2im_of(gcol6, f->image_shape, f, false); // (N, C, H, W)
    nd_release(gcol6);
    nd_release(gcol);
    nd_release(gy5);
    nd_release(mask);
}

/* Pooling2DGrad is linear in gy, and its adjoint picks each window's
 * element at the index: Pooling2DWithIndexes. */
static void pooling_2d_grad_backward(Function *self, Variable *gys[],
                                     Variable *gxs[])
{
    gxs[0] = pooling_2d_with_indexes((const ConvFunction *)self, gys[0]);
}

static const FunctionClass pooling_2d_grad_class = {
    .name = "Pooling2DGrad",
    .noutputs = 1,
    .forward = pooling_2d_grad_forward,
    .backward = pooling_2d_grad_backward,
    .destroy = conv_function_destroy,
};

/* A function of class cls with pooling's window and a reference to its
 * indexes. */
static ConvFunction *pooling_sibling(const FunctionClass *cls,
                                     const ConvFunction *pooling)
{
    ConvFunction *f = conv_function(cls, pooling->kernel, pooling->stride,
                                    pooling->pad);
    memcpy(f->image_shape, pooling->image_shape, sizeof f->image_shape);
    f->indexes = nd_retain(pooling->indexes);
    return f;
}

/* The gradient of pooling's input from gy (Python:
 * Pooling2DGrad(pooling)(gy)). */
static Variable *pooling_2d_grad(const ConvFunction *pooling, Variable *gy)
{
    ConvFunction *f = pooling_sibling(&pooling_2d_grad_class, pooling);
    return function_call(&f->function, gy);
}

/* Each window of x (N, C, H, W) at the place of the maximum that
 * pooling found in its own input: x's element there (Python:
 * col[np.arange(len(indexes)), indexes]). The mask has one true entry
 * per window, so the sum over the window is that element. */
static void pooling_2d_with_indexes_forward(Function *self, NdArray *xs[],
                                            NdArray *ys[])
{
    const ConvFunction *f = (const ConvFunction *)self;
    NdArray *windows = windows_of(xs[0], f);    // (N, C, KH*KW, OH, OW)
    NdArray *mask = argmax_mask(f->indexes, windows->shape[2]);
    NdArray *picked = nd_mul(windows, mask);
    ys[0] = nd_sum(picked, ND_AXES(2), false);  // (N, C, OH, OW)
    nd_release(picked);
    nd_release(mask);
    nd_release(windows);
}

static const FunctionClass pooling_2d_with_indexes_class = {
    .name = "Pooling2DWithIndexes",
    .noutputs = 1,
    .forward = pooling_2d_with_indexes_forward,
    .backward = pooling_backward,   /* Pooling2DGrad (Python's has none) */
    .destroy = conv_function_destroy,
};

/* x's elements where pooling found its maxima (Python:
 * Pooling2DWithIndexes(pooling)(x)). */
static Variable *pooling_2d_with_indexes(const ConvFunction *pooling,
                                         Variable *x)
{
    ConvFunction *f = pooling_sibling(&pooling_2d_with_indexes_class,
                                      pooling);
    return function_call(&f->function, x);
}

/* ---- AveragePooling */

static void average_pooling_forward(Function *self, NdArray *xs[],
                                    NdArray *ys[])
{
    ConvFunction *f = (ConvFunction *)self;
    memcpy(f->image_shape, xs[0]->shape, sizeof f->image_shape);
    NdArray *col = im2col_of(xs[0], f, false);  // (N, C, KH, KW, OH, OW)
    ys[0] = nd_mean(col, ND_AXES(2, 3), false); // (N, C, OH, OW)
    nd_release(col);
}

/* Every element of a window counts 1 / (KH*KW) towards its mean: gy
 * divided by that, copied over the window, and the windows added back
 * (Python: broadcast_to, then col2im). */
static void average_pooling_backward(Function *self, Variable *gys[],
                                     Variable *gxs[])
{
    const ConvFunction *f = (const ConvFunction *)self;
    const int64_t *s = variable_shape(gys[0]);  // (N, C, OH, OW)
    Pair k = f->kernel;
    Variable *g = F_div(gys[0], (double)(k.h * k.w));
    g = F_reshape(g, ND_SHAPE(s[0], s[1], 1, 1, s[2], s[3]));
    Variable *gcol = F_broadcast_to(g, ND_SHAPE(s[0], s[1], k.h, k.w, s[2],
                                                s[3]));
    gxs[0] = F_col2im(gcol, f->image_shape, k, .stride = f->stride,
                      .pad = f->pad, .keep_6d = true);
}

static const FunctionClass average_pooling_class = {
    .name = "AveragePooling",
    .noutputs = 1,
    .forward = average_pooling_forward,
    .backward = average_pooling_backward,
};

/* The mean of each kernel_size window of x (Python:
 * F.average_pooling(x, kernel_size, stride, pad)): a new
 * AveragePooling, called on x. */
Variable *(F_average_pooling)(Variable *x, Pair kernel_size, ConvOptions o)
{
    check_image("average_pooling", x);
    ConvFunction *f = conv_function(&average_pooling_class, kernel_size,
                                    o.stride, o.pad);
    check_window("average_pooling", variable_shape(x), f->kernel,
                 f->stride, f->pad);
    return function_call(&f->function, x);
}
