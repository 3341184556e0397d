#!/usr/bin/python3
"""Convert one ONNX conformance test (MODEL_DIR/model.onnx + test_data_set_0/*.pb) to .npy files.

    /usr/bin/python3 tools/ort-ref/pb2npy.py MODEL_DIR OUT_DIR

Writes OUT_DIR/in/NAME.npy per graph input (initializers excluded) and OUT_DIR/expected/NAME.npy
per output (names sanitized like `ovta run`), and prints one line NAME=PATH per input.
Needs Debian's python3-onnx (a dependency of the build).
"""
import os
import re
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def safe(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def main():
    src, out = sys.argv[1], sys.argv[2]
    m = onnx.load(os.path.join(src, "model.onnx"))
    inits = {i.name for i in m.graph.initializer}
    ins = [i.name for i in m.graph.input if i.name not in inits]
    outs = [o.name for o in m.graph.output]
    data = os.path.join(src, "test_data_set_0")
    os.makedirs(os.path.join(out, "in"), exist_ok=True)
    os.makedirs(os.path.join(out, "expected"), exist_ok=True)
    for kind, names, sub in (("input", ins, "in"), ("output", outs, "expected")):
        for k, name in enumerate(names):
            t = onnx.TensorProto()
            with open(os.path.join(data, "%s_%d.pb" % (kind, k)), "rb") as f:
                t.ParseFromString(f.read())
            p = os.path.join(out, sub, safe(name) + ".npy")
            np.save(p, np.ascontiguousarray(numpy_helper.to_array(t)))
            if kind == "input":
                print("%s=%s" % (name, p))


if __name__ == "__main__":
    main()
