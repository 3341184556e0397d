#!/usr/bin/env python3
"""Write dw_model.onnx: a small MobileNetV2-like float model with depthwise and grouped convs, for
tests/e2e/test_dwconv.sh (int8 on the CPU path vs on the accelerator, compiler/accel/README.md
"Grouped convolution"). Also dw_calib.npy (8 calibration samples [8, 16, 12, 12]) and dw_x.npy
(one input [1, 16, 12, 12]), float32.

    x [1,16,12,12] -> Conv 16->32 3x3 pad 1 -> Relu
      -> Conv 32->32 3x3 pad 1, group 32 (depthwise) -> Relu
      -> Conv 32->32 3x3 pad 1 stride 2, group 32 (depthwise, no activation)
      -> Conv 32->32 3x3 pad 1, group 2 (16 channels a group) -> Relu
      -> Conv 32->16 1x1 (pointwise) -> y [1,16,6,6]

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
conv("pw", "r3", "y", 32, 16, 1)
graph = helper.make_graph(nodes, "dw_model", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 12, 12])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 6, 6])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="gen_dw_model.py")
onnx.checker.check_model(model)
onnx.save(model, os.path.join(here, "dw_model.onnx"))
np.save(os.path.join(here, "dw_calib.npy"), rng.standard_normal((8, 16, 12, 12)).astype(np.float32))
np.save(os.path.join(here, "dw_x.npy"), rng.standard_normal((1, 16, 12, 12)).astype(np.float32))
