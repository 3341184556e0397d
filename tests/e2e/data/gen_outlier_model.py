#!/usr/bin/env python3
"""Write outlier_model.onnx: a small float model whose conv and dense weights each hold one outlier,
for tests/e2e/test_outlier.sh (per-channel weight exponents of ungrouped convs and dense layers,
compiler/passes/quantize.c q_per_channel). The weights are N(0, 0.02) like torch's trunc_normal_
initialization, with one weight set to 2.0: the bound trunc_normal_(std=0.02) clamps a sample to,
as in torchvision's ConvNeXt and Swin with seeded weights. With one exponent per tensor that weight
leaves the other channels a level or two of int8; with one per output channel only its own
channel loses precision.

    x [1,16,8,8] -> Conv 16->32 3x3 pad 1 (+ bias) -> Relu -> GlobalAveragePool -> Flatten
      -> Gemm 32->40 (transB, + bias) -> y [1,40]

Also outlier_calib.npy (8 calibration samples [8,16,8,8]) and outlier_x.npy (one input [1,16,8,8]),
float32, seeded. And outlier_wide.onnx, a dense layer as wide as ConvNeXt-T's MLP, whose bias and
per-channel shifts (2 x 3072/16 ACC elements) do not stay in the accelerator's ACC:

    x [1,16] -> Gemm 16->3072 (transB, + bias; one outlier weight) -> Relu -> Gemm 3072->16 -> y [1,16]

with outlier_wide_calib.npy ([8,16]) and outlier_wide_x.npy ([1,16]) (its own seed: the first
model's files stay as they were). Written with onnx.helper (Debian's python3-onnx). Run from the
repository root:
    /usr/bin/python3 tests/e2e/data/gen_outlier_model.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

D = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)
wc = rng.normal(0, 0.02, (32, 16, 3, 3)).astype(np.float32)
wc[5, 3, 1, 1] = 2.0
bc = rng.normal(0, 0.01, 32).astype(np.float32)
wd = rng.normal(0, 0.02, (40, 32)).astype(np.float32)
wd[17, 4] = -2.0
bd = rng.normal(0, 0.01, 40).astype(np.float32)
nodes = [
    helper.make_node("Conv", ["x", "wc", "bc"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c"], ["r"], name="relu"),
    helper.make_node("GlobalAveragePool", ["r"], ["g"], name="gap"),
    helper.make_node("Flatten", ["g"], ["f"], name="flat"),
    helper.make_node("Gemm", ["f", "wd", "bd"], ["y"], name="dense", transB=1),
]
g = helper.make_graph(nodes, "outlier", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 8, 8])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 40])],
                      [numpy_helper.from_array(a, n) for a, n in ((wc, "wc"), (bc, "bc"), (wd, "wd"), (bd, "bd"))])


def save(g, name):
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(D, name))


save(g, "outlier_model.onnx")
np.save(os.path.join(D, "outlier_calib.npy"), rng.normal(0, 1, (8, 16, 8, 8)).astype(np.float32))
np.save(os.path.join(D, "outlier_x.npy"), rng.normal(0, 1, (1, 16, 8, 8)).astype(np.float32))

rng = np.random.default_rng(11)
w1 = rng.normal(0, 0.02, (3072, 16)).astype(np.float32)
w1[1234, 9] = 2.0
b1 = rng.normal(0, 0.01, 3072).astype(np.float32)
w2 = rng.normal(0, 0.02, (16, 3072)).astype(np.float32)
b2 = rng.normal(0, 0.01, 16).astype(np.float32)
nodes = [
    helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1", transB=1),
    helper.make_node("Relu", ["h"], ["r"], name="relu"),
    helper.make_node("Gemm", ["r", "w2", "b2"], ["y"], name="fc2", transB=1),
]
g = helper.make_graph(nodes, "outlier_wide", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])],
                      [numpy_helper.from_array(a, n) for a, n in ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"))])
save(g, "outlier_wide.onnx")
np.save(os.path.join(D, "outlier_wide_calib.npy"), rng.normal(0, 1, (8, 16)).astype(np.float32))
np.save(os.path.join(D, "outlier_wide_x.npy"), rng.normal(0, 1, (1, 16)).astype(np.float32))
