#!/usr/bin/env python3
"""Write dw_model.onnx: a small MobileNetV2-like float model with depthwise and grouped convs, for
tests/e2e/test_dwconv.sh (int8 on the CPU path vs on the accelerator, compiler/accel/README.md
"Grouped convolution"). Also dw_calib.npy (8 calibration samples [8, 16, 12, 12]) and dw_x.npy
(one input [1, 16, 12, 12]), float32.

    x [1,16,12,12] -> Conv 16->32 3x3 pad 1 -> Relu
      -> Conv 32->32 3x3 pad 1, group 32 (depthwise) -> Relu
      -> Conv 32->32 3x3 pad 1 stride 2, group 32 (depthwise, no activation)
      -> Conv 32->32 3x3 pad 1, group 2 (16 channels a group) -> Relu
      -> Conv 32->72 1x1 (expansion) -> Relu
      -> Conv 72->72 3x3 pad 1, group 72 (depthwise on channels not a multiple of the block 16:
         padded to 80 with 8 all-zero groups) -> Relu
      -> Conv 72->16 1x1 (pointwise) -> y [1,16,6,6]

Then group_model.onnx (same input, group_x.npy / group_calib.npy alike): grouped convs whose
groups do not fall on the 16-channel blocks (pass split-groups, compiler/passes/README.md):

    x [1,16,12,12] -> Conv 16->72 3x3 -> Relu
      -> Conv 72->72 3x3, group 3 (24 a group: split into 2 groups | 1 group) -> Relu
      -> Conv 72->64 1x1 -> Relu
      -> Conv 64->64 3x3 stride 2, group 2 (32 a group: split in two) -> Relu
      -> Conv 64->48 1x1 -> Relu
      -> Conv 48->48 3x3, group 2 (24 a group, both together one block run: kept whole) -> Relu
      -> Conv 48->96 3x3, group 48 (channel multiplier 2: split into 3 runs of 16 groups) -> Relu
      -> Conv 96->16 1x1 -> y [1,16,6,6]

Written with onnx.helper (Debian's python3-onnx). Run from the repository root:
    /usr/bin/python3 tests/e2e/data/gen_dw_model.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(14)


def conv(name, x, y, cin, cout, k, group=1, stride=1):
    """A Conv node with He-scaled random weights [cout, cin/group, k, k] and a bias."""
    w = rng.standard_normal((cout, cin // group, k, k)).astype(np.float32) * np.sqrt(2.0 / (cin // group * k * k))
    b = rng.standard_normal(cout).astype(np.float32) * 0.1
    inits.append(numpy_helper.from_array(w, name + ".weight"))
    inits.append(numpy_helper.from_array(b, name + ".bias"))
    pad = k // 2
    nodes.append(helper.make_node("Conv", [x, name + ".weight", name + ".bias"], [y], name=name, kernel_shape=[k, k],
                                  pads=[pad] * 4, strides=[stride, stride], group=group))


inits, nodes = [], []
conv("conv0", "x", "c0", 16, 32, 3)
nodes.append(helper.make_node("Relu", ["c0"], ["r0"], name="relu0"))
conv("dw1", "r0", "c1", 32, 32, 3, group=32)
nodes.append(helper.make_node("Relu", ["c1"], ["r1"], name="relu1"))
conv("dw2", "r1", "c2", 32, 32, 3, group=32, stride=2)
conv("g2", "c2", "c3", 32, 32, 3, group=2)
nodes.append(helper.make_node("Relu", ["c3"], ["r3"], name="relu3"))
conv("ex", "r3", "c4", 32, 72, 1)
nodes.append(helper.make_node("Relu", ["c4"], ["r4"], name="relu4"))
conv("dw3", "r4", "c5", 72, 72, 3, group=72)
nodes.append(helper.make_node("Relu", ["c5"], ["r5"], name="relu5"))
conv("pw", "r5", "y", 72, 16, 1)


def save(name, tag):
    """The model of `nodes` as NAME.onnx, TAG_calib.npy and TAG_x.npy."""
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 12, 12])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 6, 6])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="gen_dw_model.py")
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(here, name + ".onnx"))
    np.save(os.path.join(here, tag + "_calib.npy"), rng.standard_normal((8, 16, 12, 12)).astype(np.float32))
    np.save(os.path.join(here, tag + "_x.npy"), rng.standard_normal((1, 16, 12, 12)).astype(np.float32))


save("dw_model", "dw")

inits, nodes = [], []
conv("conv0", "x", "c0", 16, 72, 3)
nodes.append(helper.make_node("Relu", ["c0"], ["r0"], name="relu0"))
conv("g3", "r0", "c1", 72, 72, 3, group=3)
nodes.append(helper.make_node("Relu", ["c1"], ["r1"], name="relu1"))
conv("p1", "r1", "c2", 72, 64, 1)
nodes.append(helper.make_node("Relu", ["c2"], ["r2"], name="relu2"))
conv("g2s", "r2", "c3", 64, 64, 3, group=2, stride=2)
nodes.append(helper.make_node("Relu", ["c3"], ["r3"], name="relu3"))
conv("p2", "r3", "c4", 64, 48, 1)
nodes.append(helper.make_node("Relu", ["c4"], ["r4"], name="relu4"))
conv("g2w", "r4", "c5", 48, 48, 3, group=2)
nodes.append(helper.make_node("Relu", ["c5"], ["r5"], name="relu5"))
conv("mult", "r5", "c6", 48, 96, 3, group=48)
nodes.append(helper.make_node("Relu", ["c6"], ["r6"], name="relu6"))
conv("pw", "r6", "y", 96, 16, 1)
save("group_model", "group")
