#!/usr/bin/python3
"""Generate tests/codegen/node_extra/: ONNX node tests (the backend test layout: CASE/model.onnx,
CASE/test_data_set_0/input_N.pb, output_N.pb) for operator paths the shipped node tests do not
reach (DFT lengths, inverse and axes, STFT on complex signals, the windows' output types,
MelWeightMatrix, GridSample's mode/padding/align_corners pairs, RoiAlign max and adaptive
sampling, Det of larger matrices, MaxUnpool, DynamicQuantizeLinear, bfloat16 Cast rounding,
TfIdfVectorizer's modes, weights, skips and gram lengths). The expected outputs are
onnxruntime's (npm onnxruntime-node, tools/ort-ref), an independent reference.

    NODE_PATH=build/ort-ref/node_modules /usr/bin/python3 tests/codegen/node_extra/gen.py [PREFIX]

(offline after tools/ort-ref/test-ort.sh has installed onnxruntime-node; needs Debian's
python3-onnx). With PREFIX only the cases whose name starts with it are written (the random
inputs of the others are still drawn, so every case keeps its data). build/tests/codegen/conform_extra runs the folder with the conformance runner.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
rng = np.random.default_rng(17)
ONLY = sys.argv[1] if len(sys.argv) > 1 else ""  # write only the cases whose name starts with it
NP2ONNX = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE, np.int64: TensorProto.INT64,
           np.int32: TensorProto.INT32, np.uint8: TensorProto.UINT8}


def case(name, op, inputs, outputs, consts=None, **attrs):
    """inputs: [(name, array)] fed at run time; consts: [(name, array)] initializers; outputs:
    [(name, dtype)]; node inputs are the inputs then the constants, in the order given by
    `order` (a list of names, "" for an omitted one) when present."""
    if ONLY and not name.startswith(ONLY):
        return
    consts = consts or []
    order = attrs.pop("order", [n for n, _ in inputs] + [n for n, _ in consts])
    back = attrs.pop("chain_back", False)
    nodes = [helper.make_node(op, order, [n for n, _ in outputs], **attrs)]
    if back:  # then cast the one output back to float32 (bfloat16 has no numpy type)
        (yn, _), = outputs
        nodes = [helper.make_node(op, order, ["mid"], **attrs), helper.make_node("Cast", ["mid"], [yn], to=TensorProto.FLOAT)]
    vin = [helper.make_tensor_value_info(n, NP2ONNX[a.dtype.type], a.shape) for n, a in inputs]
    vout = [helper.make_tensor_value_info(n, NP2ONNX[t], None) for n, t in outputs]
    inits = [numpy_helper.from_array(a, n) for n, a in consts]
    g = helper.make_graph(nodes, name, vin, vout, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], producer_name="ovta-gen")
    m.ir_version = 8
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    save(m, os.path.join(d, "model.onnx"))
    tmp = tempfile.mkdtemp()
    feeds = []
    for i, (n, a) in enumerate(inputs):
        with open(os.path.join(d, "test_data_set_0", "input_%d.pb" % i), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
        np.save(os.path.join(tmp, "%d.npy" % i), a)
        feeds.append("%s=%s" % (n, os.path.join(tmp, "%d.npy" % i)))
    subprocess.run(["node", os.path.join(ROOT, "tools/ort-ref/ort-run.js"), "run", os.path.join(d, "model.onnx"), tmp] + feeds,
                   check=True)
    for k, (n, _) in enumerate(outputs):
        y = np.load(os.path.join(tmp, n + ".npy"))
        with open(os.path.join(d, "test_data_set_0", "output_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(y, n).SerializeToString())
    shutil.rmtree(tmp)


def f32(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


def i64(v):
    return np.array(v, dtype=np.int64)


F = np.float32
# DFT: dft_length longer than the signal (zero padding), shorter and onesided, inverse of a
# complex signal along axis 2
case("test_x_dft_pad16", "DFT", [("x", f32(2, 10, 3, 1))], [("y", F)], [("n", i64(16))], axis=1)
case("test_x_dft_cut7_onesided", "DFT", [("x", f32(2, 10, 1))], [("y", F)], [("n", i64(7))], axis=1, onesided=1)
case("test_x_dft_inverse_axis2", "DFT", [("x", f32(1, 8, 5, 2))], [("y", F)], axis=2, inverse=1)
# STFT: complex signal, frame_length without a window, two-sided; real signal, odd window
case("test_x_stft_complex", "STFT", [("s", f32(1, 64, 2))], [("y", F)], [("step", i64(6)), ("len", i64(16))],
     order=["s", "step", "", "len"], onesided=0)
win = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(9) / 9)).astype(np.float32)
case("test_x_stft_window9", "STFT", [("s", f32(2, 50, 1)), ("w", win)], [("y", F)], [("step", i64(5))],
     order=["s", "step", "w"])
# windows: symmetric in double, periodic of even size
case("test_x_hammingwindow_sym_f64", "HammingWindow", [], [("y", np.float64)], [("size", np.array(7, np.int64))],
     periodic=0, output_datatype=TensorProto.DOUBLE)
case("test_x_blackmanwindow_12", "BlackmanWindow", [], [("y", F)], [("size", np.array(12, np.int32))])
case("test_x_hannwindow_1", "HannWindow", [], [("y", F)], [("size", np.array(5, np.int64))])
# MelWeightMatrix with 20 bins of a 64-point DFT at 16 kHz
case("test_x_melweightmatrix_20", "MelWeightMatrix", [], [("y", F)],
     [("bins", np.array(20, np.int64)), ("len", np.array(64, np.int64)), ("rate", np.array(16000, np.int64)),
      ("lo", np.array(20, np.float32)), ("hi", np.array(8000, np.float32))])
# GridSample: every padding mode with each mode, both align_corners, sample points past the borders
for mode, pad, ac in [("bilinear", "zeros", 0), ("nearest", "border", 1), ("bicubic", "reflection", 0),
                      ("bilinear", "reflection", 1), ("bicubic", "border", 1), ("nearest", "reflection", 0),
                      ("bicubic", "zeros", 1), ("bilinear", "border", 0)]:
    case("test_x_gridsample_%s_%s_%d" % (mode, pad, ac), "GridSample", [("X", f32(2, 3, 5, 6)), ("G", f32(2, 4, 7, 2, lo=-1.7, hi=1.7))],
         [("Y", F)], mode=mode, padding_mode=pad, align_corners=ac)
# RoiAlign: max and avg, adaptive sampling, rois partly outside X, spatial_scale 0.5
rois = np.array([[1, 2, 14, 17], [-3, -2, 6, 5], [10, 0, 22, 26], [4, 4, 4.5, 5]], np.float32)
for mode, ct in [("max", "output_half_pixel"), ("avg", "half_pixel"), ("max", "half_pixel")]:
    case("test_x_roialign_%s_%s" % (mode, ct), "RoiAlign", [("X", f32(2, 3, 12, 10)), ("rois", rois), ("b", i64([1, 0, 1, 0]))],
         [("Y", F)], mode=mode, coordinate_transformation_mode=ct, output_height=3, output_width=4, sampling_ratio=0,
         spatial_scale=0.5)
# Det: 5x5 matrices, one needing a row swap at the first pivot
m = f32(3, 5, 5, lo=-2, hi=2)
m[1, 0, 0] = 0
case("test_x_det_5x5", "Det", [("x", m)], [("y", F)])
# MaxUnpool: 2-D with strides and pads (indices as MaxPool gives them, flat over N, C, H, W)
xu = f32(2, 2, 3, 3)
idx = np.stack([rng.choice(25, 9, replace=False) + 25 * k for k in range(4)]).reshape(2, 2, 3, 3).astype(np.int64)
case("test_x_maxunpool_pads", "MaxUnpool", [("x", xu), ("i", idx)], [("y", F)], kernel_shape=[2, 2], strides=[2, 2], pads=[0, 1, 1, 0])
# DynamicQuantizeLinear: mixed signs, and positive values only (min clipped to 0)
case("test_x_dynquant_mixed", "DynamicQuantizeLinear", [("x", f32(3, 7, lo=-2, hi=5))],
     [("y", np.uint8), ("s", F), ("z", np.uint8)])
case("test_x_dynquant_positive", "DynamicQuantizeLinear", [("x", f32(10, lo=0.5, hi=3))],
     [("y", np.uint8), ("s", F), ("z", np.uint8)])
# bfloat16: float32 -> bfloat16 -> float32 (two Casts), round to nearest even on ties, NaN, inf,
# overflow to inf, subnormals
bf = np.array([1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), 1 + 2**-8 + 2**-20, np.nan, np.inf, -np.inf, 3.4e38, -0.0,
               1e-40, 0.1, -2.5e-3, 65504, 1.00390625, 123456.789, 7e-39], np.float32).reshape(4, 4)
case("test_x_cast_bfloat16_round", "Cast", [("x", bf)], [("y", F)], to=TensorProto.BFLOAT16, chain_back=True)
# TfIdfVectorizer: IDF and TFIDF with weights (and without), 2-D int32 rows with skips, n-grams of
# 2 and 3 only (the pool's 1-grams not counted), coordinates permuted and with gaps; onnxruntime
# reads weights by output coordinate
pool = [0, 2, 4, 1, 3, 3, 0, 2, 2, 1, 4, 0, 3, 1, 2, 0, 2, 1]  # 4 1-grams, 4 2-grams, 2 3-grams
tf = dict(ngram_counts=[0, 4, 12], pool_int64s=pool)
wts = [0.5, 1.25, 2.0, 0.75, 1.5, 3.0, 0.25, 1.0, 2.5, 4.0]
ints5 = lambda *shape, dt=np.int64: rng.integers(0, 5, shape).astype(dt)
case("test_x_tfidf_idf_weights", "TfIdfVectorizer", [("x", ints5(20))], [("y", F)], mode="IDF", min_gram_length=1,
     max_gram_length=3, max_skip_count=2, ngram_indexes=list(range(10)), weights=wts, **tf)
case("test_x_tfidf_tfidf_weights_2d_skip3", "TfIdfVectorizer", [("x", ints5(3, 12, dt=np.int32))], [("y", F)], mode="TFIDF",
     min_gram_length=1, max_gram_length=3, max_skip_count=3, ngram_indexes=list(range(10)), weights=wts, **tf)
case("test_x_tfidf_min2_max3_2d", "TfIdfVectorizer", [("x", ints5(4, 15))], [("y", F)], mode="TF", min_gram_length=2,
     max_gram_length=3, max_skip_count=1, ngram_indexes=list(range(10)), **tf)
case("test_x_tfidf_idf_noweights", "TfIdfVectorizer", [("x", ints5(2, 16, dt=np.int32))], [("y", F)], mode="IDF",
     min_gram_length=1, max_gram_length=2, max_skip_count=2, ngram_indexes=list(range(10)), **tf)
case("test_x_tfidf_tfidf_noweights", "TfIdfVectorizer", [("x", ints5(16))], [("y", F)], mode="TFIDF", min_gram_length=2,
     max_gram_length=2, max_skip_count=4, ngram_indexes=list(range(10)), **tf)
case("test_x_tfidf_permuted_weights", "TfIdfVectorizer", [("x", ints5(2, 14))], [("y", F)], mode="TFIDF", min_gram_length=1,
     max_gram_length=3, max_skip_count=1, ngram_indexes=[9, 3, 0, 7, 1, 8, 2, 6, 4, 5], weights=wts, **tf)
case("test_x_tfidf_gaps", "TfIdfVectorizer", [("x", ints5(18))], [("y", F)], mode="TF", min_gram_length=1, max_gram_length=2,
     max_skip_count=0, ngram_counts=[0, 3], pool_int64s=[1, 3, 4, 0, 2, 3, 1], ngram_indexes=[7, 1, 12, 4, 0])
# n-grams sharing output coordinates: their values add up (TFIDF; IDF is left out: onnxruntime
# keeps the weight of the last n-gram its scan finds there)
case("test_x_tfidf_tfidf_shared_coords", "TfIdfVectorizer", [("x", ints5(2, 15))], [("y", F)], mode="TFIDF", min_gram_length=1,
     max_gram_length=3, max_skip_count=2, ngram_indexes=[0, 1, 0, 2, 1, 3, 3, 2, 4, 4], weights=wts, **tf)
# negative tokens and one no int32 can equal, int32 rows, max_skip_count past the row's length
neg = rng.choice(np.array([-3, -1, 0, 7, 2**31 - 1], np.int32), (3, 9)).astype(np.int32)
case("test_x_tfidf_negative_int32", "TfIdfVectorizer", [("x", neg)], [("y", F)], mode="TF", min_gram_length=1,
     max_gram_length=2, max_skip_count=12, ngram_counts=[0, 4], ngram_indexes=[0, 1, 2, 3, 4, 5, 6],
     pool_int64s=[-3, 2**31 - 1, 2**40, -1, -3, -1, 7, 2**31 - 1, -1, 2**40])
print("wrote", HERE, file=sys.stderr)
