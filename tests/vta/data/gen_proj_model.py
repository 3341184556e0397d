#!/usr/bin/env python3
"""Write proj.onnx: two transformer-style projections on a [1, 8, 32] sequence, the form
torch.onnx.export writes for nn.Linear on a 3-D input (MatMul with a constant [K, N], then Add):

    x [1,8,32] -> MatMul(W1 [32,48]) -> Add(b1) -> Relu -> MatMul(W2 [48,16]) -> y [1,8,16]

Also proj_calib.npy (8 seeded samples [8,1,8,32]), proj_x.npy (one input) and proj_y.npy (its
fp32 output computed here with numpy: the independent reference). Seeded; run from the
repository root:  /usr/bin/python3 tests/vta/data/gen_proj_model.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

D = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2026)
w1 = (rng.standard_normal((32, 48)) * 0.2).astype(np.float32)
b1 = (rng.standard_normal(48) * 0.1).astype(np.float32)
w2 = (rng.standard_normal((48, 16)) * 0.2).astype(np.float32)
nodes = [
    helper.make_node("MatMul", ["x", "w1"], ["h"], name="proj1"),
    helper.make_node("Add", ["h", "b1"], ["hb"], name="bias1"),
    helper.make_node("Relu", ["hb"], ["r"], name="relu1"),
    helper.make_node("MatMul", ["r", "w2"], ["y"], name="proj2"),
]
g = helper.make_graph(nodes, "proj", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 32])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 16])],
                      [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"),
                       numpy_helper.from_array(w2, "w2")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="gen_proj_model.py")
m.ir_version = 8
onnx.checker.check_model(m)
onnx.save(m, os.path.join(D, "proj.onnx"))
x = rng.standard_normal((1, 8, 32)).astype(np.float32)
np.save(os.path.join(D, "proj_x.npy"), x)
np.save(os.path.join(D, "proj_calib.npy"), rng.standard_normal((8, 1, 8, 32)).astype(np.float32))
np.save(os.path.join(D, "proj_y.npy"), (np.maximum(x @ w1 + b1, 0) @ w2).astype(np.float32))
