#!/usr/bin/env python3
"""Write shape_dyn.onnx: a model with symbolic input dims [batch, 3, height, width] that computes
a shape inside the graph the way torch.onnx.export writes `x.view(x.size(0), -1)`:
Shape -> Gather(0) -> Unsqueeze -> Concat([n, -1]) -> Reshape. Also shape_dyn_x.npy (one input,
1x3x8x8) and shape_dyn_y.npy (its output [1, 5], computed here with numpy).

    Conv(3->4, 3x3, pad 1) -> Relu -> GlobalAveragePool -> Reshape(Shape subgraph) -> MatMul -> Add

Written with onnx.helper (Debian's python3-onnx) because python3-torch was not installed on the
machine this was made on; the graph is the one torch 1.13 exports for
    nn.Sequential(Conv2d(3, 4, 3, padding=1), ReLU(), AdaptiveAvgPool2d(1)), then
    y = fc(h.view(h.size(0), -1)) with dynamic_axes={'x': {0: 'batch', 2: 'height', 3: 'width'}}.
Run from the repository root:  /usr/bin/python3 tests/compiler/data/gen_shape_model.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)
w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.3
b = rng.standard_normal(4).astype(np.float32) * 0.1
fw = rng.standard_normal((4, 5)).astype(np.float32)
fb = rng.standard_normal(5).astype(np.float32)

inits = [numpy_helper.from_array(w, "conv.weight"), numpy_helper.from_array(b, "conv.bias"),
         numpy_helper.from_array(fw, "fc.weight_t"), numpy_helper.from_array(fb, "fc.bias"),
         numpy_helper.from_array(np.array(0, np.int64), "idx0"),
         numpy_helper.from_array(np.array([0], np.int64), "axes0"),
         numpy_helper.from_array(np.array([-1], np.int64), "minus1")]
nodes = [
    helper.make_node("Conv", ["x", "conv.weight", "conv.bias"], ["c"], name="Conv_0", pads=[1, 1, 1, 1],
                     kernel_shape=[3, 3]),
    helper.make_node("Relu", ["c"], ["r"], name="Relu_1"),
    helper.make_node("GlobalAveragePool", ["r"], ["h"], name="GlobalAveragePool_2"),
    helper.make_node("Shape", ["h"], ["s"], name="Shape_3"),
    helper.make_node("Gather", ["s", "idx0"], ["n"], name="Gather_4", axis=0),
    helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"], name="Unsqueeze_5"),
    helper.make_node("Concat", ["n1", "minus1"], ["shape"], name="Concat_6", axis=0),
    helper.make_node("Reshape", ["h", "shape"], ["flat"], name="Reshape_7"),
    helper.make_node("MatMul", ["flat", "fc.weight_t"], ["m"], name="MatMul_8"),
    helper.make_node("Add", ["m", "fc.bias"], ["y"], name="Add_9"),
]
graph = helper.make_graph(
    nodes, "shape_dyn",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, "height", "width"])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 5])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="gen_shape_model.py")
onnx.checker.check_model(model)
onnx.save(model, os.path.join(here, "shape_dyn.onnx"))

# the reference output in float64, then float32
x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
c = np.zeros((1, 4, 8, 8))
for m in range(4):
    for i in range(8):
        for j in range(8):
            c[0, m, i, j] = (xp[0, :, i:i + 3, j:j + 3] * w[m]).sum() + b[m]
h = np.maximum(c, 0).mean(axis=(2, 3))
y = (h @ fw.astype(np.float64) + fb).astype(np.float32)
np.save(os.path.join(here, "shape_dyn_x.npy"), x)
np.save(os.path.join(here, "shape_dyn_y.npy"), y)
print("wrote shape_dyn.onnx, shape_dyn_x.npy, shape_dyn_y.npy; y =", y)
