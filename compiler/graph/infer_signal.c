/* infer_signal.c: inference of the signal operators (opset 17): HannWindow, HammingWindow,
 * BlackmanWindow, DFT, STFT, MelWeightMatrix.
 * The ONNX rule of each operator stands above its function; infer.c says what inference
 * guarantees. Sizes, lengths and steps decide output shapes: they must be constants
 * (initializers, or graph inputs bound before inference). */

#include "infer_internal.h"

#define SIG_MAX ((int64_t)1 << 31) /* largest size, length or bin count accepted */

/* Constant integer scalar input i (int32/int64) into *v, within [lo, SIG_MAX]. */
static int const_scalar(ctx *c, int i, const char *what, int64_t lo, int64_t *v) {
  ovta_tensor *t;
  if (ix_need(c, i, &t)) return c->err->code;
  if (!t->data) return ix_bad(c, OVTA_EUNSUPPORTED, "input %d '%s' (%s) must be a constant (the output shape depends on it)", i, t->name, what);
  if ((t->dtype != OVTA_DT_I32 && t->dtype != OVTA_DT_I64) || ovta_tensor_numel(t) != 1)
    return ix_bad(c, OVTA_EINVAL, "%s must be an int32 or int64 scalar", what);
  *v = ovta_tensor_get_i(t, 0);
  if (*v < lo || *v > SIG_MAX) return ix_bad(c, OVTA_EINVAL, "%s %lld is out of range", what, (long long)*v);
  return OVTA_OK;
}

/* The output_datatype attribute (default float): a numeric type the CPU path computes. */
static int out_dtype(ctx *c, ovta_dtype *dt) {
  int64_t d = ovta_node_attr_i(c->n, "output_datatype", OVTA_DT_F32);
  if (d < 1 || d > 13 || d == OVTA_DT_STRING || d == OVTA_DT_BOOL || d == OVTA_DT_F16)
    return ix_bad(c, OVTA_EUNSUPPORTED, "output_datatype %lld is not supported", (long long)d);
  *dt = (ovta_dtype)d;
  return OVTA_OK;
}

/* HannWindow / HammingWindow / BlackmanWindow (17): size, an int32/int64 scalar; Y [size] of
 * output_datatype (default float); periodic (default 1) picks N = size, else N = size - 1:
 * y[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N) (the constants in compiler/cpu/signal.c). */
static int infer_window(ctx *c) {
  int64_t size;
  ovta_dtype dt;
  if (ix_allow(c, "output_datatype,periodic") || ix_count_io(c, 1, 1, 1, 1) || ix_attr_type(c, "periodic", OVTA_ATTR_INT) ||
      const_scalar(c, 0, "size", 0, &size) || out_dtype(c, &dt))
    return c->err->code;
  return ix_set_out(c, 0, dt, 1, &size);
}

/* DFT (17; 20 takes axis as input 2): X [batch, d1 .. dk, 1 or 2] (real or complex), rank >= 3;
 * axis (default 1; 20: -2) names one of the signal dims; dft_length (input 1, optional) n,
 * default X's axis dim (shorter signals are zero-padded, longer ones cut); onesided (default 0)
 * keeps bins 0 .. n/2; inverse (default 0). Y: X's shape with the axis dim n (onesided n/2 + 1)
 * and the last dim 2. Onesided with inverse is refused. */
static int infer_dft(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "axis,inverse,onesided") || ix_count_io(c, 1, 3, 1, 1) || ix_need(c, 0, &x)) return c->err->code;
  int r = x->rank;
  if (r < 3) return ix_bad(c, OVTA_EINVAL, "input rank %d is below 3", r);
  if (!ix_is_float(x->dtype)) return ix_bad(c, OVTA_EINVAL, "input must be float");
  if (x->shape[r - 1] != 1 && x->shape[r - 1] != 2) return ix_bad(c, OVTA_EINVAL, "the last dim must be 1 (real) or 2 (complex)");
  int64_t axis = ovta_node_attr_i(c->n, "axis", 1);
  if (c->g->opset >= 20) {
    axis = -2;
    if (ix_in(c, 2) && const_scalar(c, 2, "axis", -r, &axis)) return c->err->code;
  } else if (ix_in(c, 2)) return ix_bad(c, OVTA_EINVAL, "needs 1..2 inputs before opset 20");
  if (ix_norm_axis(c, &axis, r, false, "axis")) return c->err->code;
  if (axis == r - 1) return ix_bad(c, OVTA_EINVAL, "axis %lld is the complex dim", (long long)axis);
  int64_t n = x->shape[axis];
  if (ix_in(c, 1) && const_scalar(c, 1, "dft_length", 1, &n)) return c->err->code;
  if (n < 1) return ix_bad(c, OVTA_EINVAL, "the dft length is 0");
  bool one = ovta_node_attr_i(c->n, "onesided", 0) != 0, inv = ovta_node_attr_i(c->n, "inverse", 0) != 0;
  if (one && inv) return ix_bad(c, OVTA_EUNSUPPORTED, "onesided with inverse is not supported");
  int64_t s[OVTA_MAX_RANK];
  memcpy(s, x->shape, sizeof(int64_t) * (size_t)r);
  s[axis] = one ? n / 2 + 1 : n;
  s[r - 1] = 2;
  return ix_set_out(c, 0, x->dtype, r, s);
}

/* STFT (17): signal [batch, length, 1 or 2]; frame_step (input 1) > 0; window (input 2,
 * optional) [frame_length]; frame_length (input 3, optional; else the window's length);
 * onesided (default 1; real signals only). frames = (length - frame_length) / frame_step + 1;
 * Y [batch, frames, onesided ? frame_length/2 + 1 : frame_length, 2]. */
static int infer_stft(ctx *c) {
  ovta_tensor *x, *w = ix_in(c, 2);
  int64_t step, fl = -1;
  if (ix_allow(c, "onesided") || ix_count_io(c, 2, 4, 1, 1) || ix_need(c, 0, &x) || const_scalar(c, 1, "frame_step", 1, &step))
    return c->err->code;
  if (x->rank != 3 || (x->shape[2] != 1 && x->shape[2] != 2)) return ix_bad(c, OVTA_EINVAL, "signal must be [batch, length, 1 or 2]");
  if (!ix_is_float(x->dtype)) return ix_bad(c, OVTA_EINVAL, "signal must be float");
  if (ix_in(c, 3) && const_scalar(c, 3, "frame_length", 1, &fl)) return c->err->code;
  if (w) {
    if (ix_need(c, 2, &w)) return c->err->code;
    if (w->rank != 1 || w->dtype != x->dtype) return ix_bad(c, OVTA_EINVAL, "window must be 1-D of the signal's type");
    if (fl >= 0 && w->shape[0] != fl) return ix_bad(c, OVTA_EINVAL, "window length %lld is not frame_length %lld", (long long)w->shape[0], (long long)fl);
    fl = w->shape[0];
  }
  if (fl < 1) return ix_bad(c, OVTA_EINVAL, "needs frame_length or a window");
  bool one = ovta_node_attr_i(c->n, "onesided", 1) != 0;
  if (one && x->shape[2] == 2) return ix_bad(c, OVTA_EINVAL, "onesided needs a real signal");
  if (x->shape[1] < fl) return ix_bad(c, OVTA_EINVAL, "the signal is shorter than one frame");
  int64_t s[4] = {x->shape[0], (x->shape[1] - fl) / step + 1, one ? fl / 2 + 1 : fl, 2};
  return ix_set_out(c, 0, x->dtype, 4, s);
}

/* MelWeightMatrix (17): num_mel_bins, dft_length, sample_rate (int32/int64 scalars),
 * lower_edge_hertz, upper_edge_hertz (float scalars), all constants; Y [dft_length/2 + 1,
 * num_mel_bins] of output_datatype (default float). */
static int infer_mel(ctx *c) {
  int64_t bins, len, rate;
  ovta_dtype dt;
  if (ix_allow(c, "output_datatype") || ix_count_io(c, 5, 5, 1, 1) || const_scalar(c, 0, "num_mel_bins", 1, &bins) ||
      const_scalar(c, 1, "dft_length", 1, &len) || const_scalar(c, 2, "sample_rate", 1, &rate) || out_dtype(c, &dt))
    return c->err->code;
  for (int i = 3; i < 5; i++) {
    ovta_tensor *t;
    if (ix_need(c, i, &t)) return c->err->code;
    if (!t->data) return ix_bad(c, OVTA_EUNSUPPORTED, "input %d '%s' must be a constant", i, t->name);
    if (!ix_is_float(t->dtype) || ovta_tensor_numel(t) != 1) return ix_bad(c, OVTA_EINVAL, "input %d must be a float scalar", i);
  }
  if (bins > 65536) return ix_bad(c, OVTA_EUNSUPPORTED, "num_mel_bins %lld is above 65536", (long long)bins);
  int64_t s[2] = {len / 2 + 1, bins};
  return ix_set_out(c, 0, dt, 2, s);
}

const infer_rule infer_rules_signal[] = {
    {"HannWindow", infer_window},
    {"HammingWindow", infer_window},
    {"BlackmanWindow", infer_window},
    {"DFT", infer_dft},
    {"STFT", infer_stft},
    {"MelWeightMatrix", infer_mel},
    {NULL, NULL},
};
