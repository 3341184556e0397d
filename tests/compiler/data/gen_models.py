#!/usr/bin/python3
"""Generate the small ONNX models the compiler tests import (run offline with Debian's
/usr/bin/python3, which has python3-onnx; the outputs are committed next to this script).
Each model exercises one operator form that changed between opsets, or one way of storing
tensor data."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(name, nodes, inputs, outputs, opset, inits=()):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 6
    onnx.save(m, name + ".onnx")


def vi(name, shape, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, shape)


# Clip before 11: min/max attributes
save("clip_opset10", [helper.make_node("Clip", ["x"], ["y"], min=0.0, max=6.0)],
     [vi("x", [2, 3])], [vi("y", [2, 3])], 10)
# Squeeze/Unsqueeze before 13: axes attribute
save("squeeze_opset11", [helper.make_node("Squeeze", ["x"], ["s"], axes=[1]),
                         helper.make_node("Unsqueeze", ["s"], ["y"], axes=[0, 3])],
     [vi("x", [2, 1, 4])], [vi("y", [1, 2, 4, 1])], 11)
# Pad before 11: pads/value attributes
save("pad_opset10", [helper.make_node("Pad", ["x"], ["y"], pads=[0, 1, 0, 2], value=1.5)],
     [vi("x", [2, 3])], [vi("y", [2, 6])], 10)
# Softmax before 13: coerced to 2-D at axis 1
save("softmax_opset11", [helper.make_node("Softmax", ["x"], ["y"], axis=1)],
     [vi("x", [2, 3, 4])], [vi("y", [2, 3, 4])], 11)
# Softmax before 13 with a symbolic dim (the shape is not known at import)
save("softmax_opset11_dyn", [helper.make_node("Softmax", ["x"], ["y"], axis=1)],
     [vi("x", ["N", 3, 4])], [vi("y", ["N", 3, 4])], 11)
# TopK before 10: k attribute
save("topk_opset9", [helper.make_node("TopK", ["x"], ["v", "i"], axis=1, k=2)],
     [vi("x", [2, 5])], [vi("v", [2, 2]), vi("i", [2, 2], TensorProto.INT64)], 9)
# Initializers in typed fields (float_data, int64_data) and raw_data; a Constant node
w_typed = helper.make_tensor("w_typed", TensorProto.FLOAT, [2, 3], [1, -2, 3, -4, 5, -6])
w_raw = numpy_helper.from_array(np.array([[0.5, 0.25], [-1, 2], [3, -0.125]], np.float32), "w_raw")
shape = helper.make_tensor("shape", TensorProto.INT64, [2], [3, 2])
save("initializers", [
    helper.make_node("Constant", [], ["k"], value=helper.make_tensor("kv", TensorProto.FLOAT, [1], [10])),
    helper.make_node("Reshape", ["w_typed", "shape"], ["w2"]),
    helper.make_node("Add", ["w2", "w_raw"], ["s"]),
    helper.make_node("MatMul", ["x", "s"], ["m"]),
    helper.make_node("Add", ["m", "k"], ["y"])],
    [vi("x", ["N", 3])], [vi("y", ["N", 2])], 13, [w_typed, w_raw, shape])
