#!/usr/bin/python3
"""Make the RNN/GRU/LSTM conformance cases of tests/codegen/rnn/ (ONNX node-test layout: a folder
per case with model.onnx and test_data_set_0/input_N.pb, output_N.pb), for what the shipped ONNX
node tests leave out: reverse and bidirectional directions, sequence_lens shorter than the
sequence, layout 1 with initial states, all three outputs, clip, activations with their
alpha/beta, GRU linear_before_reset, LSTM input_forget, f64, constant (initializer) weights.

The inputs are random (fixed seed); the expected outputs come from onnxruntime (npm
onnxruntime-node through tools/ort-ref/ort-run.js), not from ovta; onnxruntime refuses layout 1
and f64 LSTM, so those run as their layout-0 / f32 twins (ort_run says how), the f64 inputs being
exact in f32. Run from the repository root
after tools/ort-ref/test-ort.sh (or `npm ci` in build/ort-ref) has installed onnxruntime-node:

    /usr/bin/python3 tests/codegen/rnn/gen.py [BUILD_DIR]

build/tests/codegen/conform_rnn runs the cases (build/tests/codegen/conform_onnx "" tests/codegen/rnn).
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}

# name, op, dtype, (seq, batch, input, hidden), attributes, optional inputs present
# (B, sequence_lens values, initial_h, initial_c, P), outputs present (Y, Y_h, Y_c), constants.
CASES = [
    ("rnn_bidirectional_seq_lens", "RNN", np.float32, (4, 3, 2, 5),
     dict(direction="bidirectional"), dict(B=1, lens=[4, 1, 3], h=1), "Y,Y_h", False),
    ("rnn_reverse_layout1_acts", "RNN", np.float32, (3, 2, 3, 4),
     dict(direction="reverse", layout=1, activations=["Relu"]), dict(B=1, h=1), "Y,Y_h", False),
    ("rnn_bidirectional_affine_scaledtanh", "RNN", np.float32, (3, 2, 3, 4),
     dict(direction="bidirectional", activations=["Affine", "ScaledTanh"], activation_alpha=[0.7, 1.3],
          activation_beta=[0.2, 0.6]), dict(B=1), "Y,Y_h", False),
    ("rnn_thresholdedrelu_clip", "RNN", np.float32, (3, 2, 3, 4),
     dict(activations=["ThresholdedRelu"], activation_alpha=[0.1], clip=0.5), dict(B=1), "Y,Y_h", False),
    ("lstm_bidirectional_all", "LSTM", np.float32, (4, 3, 3, 4),
     dict(direction="bidirectional"), dict(B=1, lens=[2, 4, 3], h=1, c=1, P=1), "Y,Y_h,Y_c", False),
    ("lstm_reverse_layout1_input_forget", "LSTM", np.float32, (3, 2, 3, 4),
     dict(direction="reverse", layout=1, input_forget=1), dict(B=1, lens=[3, 2], h=1, c=1, P=1), "Y,Y_h,Y_c", False),
    ("lstm_clip_acts", "LSTM", np.float32, (3, 2, 3, 4),
     dict(clip=0.4, activations=["HardSigmoid", "Elu", "Softsign"], activation_alpha=[0.3, 0.8],
          activation_beta=[0.4]), dict(B=1, h=1, c=1), "Y,Y_h,Y_c", False),
    ("lstm_f64_softplus", "LSTM", np.float64, (3, 2, 3, 4),
     dict(direction="bidirectional", activations=["Sigmoid", "Softplus", "Tanh", "Sigmoid", "Tanh", "LeakyRelu"],
          activation_alpha=[0.2]), dict(B=1, lens=[1, 3], h=1, c=1, P=1), "Y,Y_h,Y_c", False),
    ("lstm_constants_only_y_c", "LSTM", np.float32, (3, 2, 3, 4),
     dict(), dict(B=1, lens=[2, 3], h=1, c=1), ",,Y_c", True),
    ("gru_bidirectional_lbr_seq_lens", "GRU", np.float32, (4, 3, 2, 5),
     dict(direction="bidirectional", linear_before_reset=1), dict(B=1, lens=[3, 4, 1], h=1), "Y,Y_h", False),
    ("gru_reverse_layout1_acts_clip", "GRU", np.float32, (3, 2, 3, 4),
     dict(direction="reverse", layout=1, clip=0.6, activations=["HardSigmoid", "LeakyRelu"],
          activation_alpha=[0.25, 0.05], activation_beta=[0.45]), dict(B=1, lens=[2, 3], h=1), "Y,Y_h", False),
    ("gru_f64_seq_lens", "GRU", np.float64, (4, 2, 3, 3),
     dict(direction="forward"), dict(B=1, lens=[3, 4], h=1), "Y,Y_h", False),
]


def case(rng, name, op, dt, dims, attrs, opt, outs, const):
    seq, batch, inp, hid = dims
    g, nd = GATES[op], 2 if attrs.get("direction") == "bidirectional" else 1
    lay = attrs.get("layout", 0)
    state = [batch, nd, hid] if lay else [nd, batch, hid]
    vals = {
        "X": rng.uniform(-1, 1, [batch, seq, inp] if lay else [seq, batch, inp]),
        "W": rng.uniform(-0.6, 0.6, [nd, g * hid, inp]),
        "R": rng.uniform(-0.6, 0.6, [nd, g * hid, hid]),
    }
    if opt.get("B"): vals["B"] = rng.uniform(-0.3, 0.3, [nd, 2 * g * hid])
    if opt.get("lens"): vals["sequence_lens"] = np.array(opt["lens"], np.int32)
    if opt.get("h"): vals["initial_h"] = rng.uniform(-0.5, 0.5, state)
    if opt.get("c"): vals["initial_c"] = rng.uniform(-0.5, 0.5, state)
    if opt.get("P"): vals["P"] = rng.uniform(-0.4, 0.4, [nd, 3 * hid])
    for k, v in vals.items():
        if k != "sequence_lens": vals[k] = v.astype(np.float32).astype(dt)  # f64 cases: values exact in f32
    slots = ["X", "W", "R", "B", "sequence_lens", "initial_h"] + (["initial_c", "P"] if op == "LSTM" else [])
    node_in = [s if s in vals else "" for s in slots]
    while node_in[-1] == "": node_in.pop()
    node_out = outs.split(",")
    node = helper.make_node(op, node_in, node_out, name=op + "_0", hidden_size=hid, **attrs)
    et = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dt)]
    ydims = {"Y": [batch, seq, nd, hid] if lay else [seq, nd, batch, hid], "Y_h": state, "Y_c": state}
    graph_in, inits = [], []
    for s in slots:
        if s not in vals: continue
        if const and s != "X": inits.append(numpy_helper.from_array(vals[s], s))
        else: graph_in.append(helper.make_tensor_value_info(s, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[vals[s].dtype], vals[s].shape))
    graph_out = [helper.make_tensor_value_info(o, et, ydims[o]) for o in node_out if o]
    model = helper.make_model(helper.make_graph([node], "test_" + name, graph_in, graph_out, inits),
                              opset_imports=[helper.make_opsetid("", 14)], producer_name="ovta tests/codegen/rnn/gen.py")
    onnx.checker.check_model(model)
    return model, [(i.name, vals[i.name]) for i in graph_in], [o.name for o in graph_out]


def ort_run(d, model, ins, outs, env):
    """onnxruntime's outputs {name: array} for model fed ins. onnxruntime refuses layout 1, so a
    layout-1 model runs as its layout-0 twin: X [batch, seq, input] -> [seq, batch, input],
    initial states [batch, D, H] -> [D, batch, H]; the results back: Y [seq, D, batch, H] ->
    [batch, seq, D, H], Y_h/Y_c [D, batch, H] -> [batch, D, H] (the layout attribute's definition)."""
    node = model.graph.node[0]
    lay = [a for a in node.attribute if a.name == "layout" and a.i == 1]
    f64 = any(v.dtype == np.float64 for _, v in ins)
    model = onnx.ModelProto.FromString(model.SerializeToString())
    if f64:  # onnxruntime's LSTM has no f64 kernel: the f32 twin (inputs are exact in f32)
        for vi in list(model.graph.input) + list(model.graph.output):
            if vi.type.tensor_type.elem_type == onnx.TensorProto.DOUBLE: vi.type.tensor_type.elem_type = onnx.TensorProto.FLOAT
        ins = [(n, v.astype(np.float32) if v.dtype == np.float64 else v) for n, v in ins]
    if lay:
        node = model.graph.node[0]
        node.attribute.remove([a for a in node.attribute if a.name == "layout"][0])
        for vi in list(model.graph.input) + list(model.graph.output):
            dims = vi.type.tensor_type.shape.dim
            perm = {"X": [1, 0, 2], "initial_h": [1, 0, 2], "initial_c": [1, 0, 2], "Y_h": [1, 0, 2], "Y_c": [1, 0, 2],
                    "Y": [1, 2, 0, 3]}.get(vi.name)
            if perm:
                v = [dims[p].dim_value for p in perm]
                for k, x in enumerate(v): dims[k].dim_value = x
        ins = [(n, v.transpose(1, 0, 2) if n in ("X", "initial_h", "initial_c") else v) for n, v in ins]
    with tempfile.TemporaryDirectory() as t:
        args = []
        for n, v in ins:
            np.save(os.path.join(t, n + ".npy"), v)
            args.append(n + "=" + os.path.join(t, n + ".npy"))
        onnx.save(model, os.path.join(t, "model.onnx"))
        subprocess.run(["node", "tools/ort-ref/ort-run.js", "run", os.path.join(t, "model.onnx"), t] + args, env=env,
                       check=True, stdout=subprocess.DEVNULL)
        res = {n: np.load(os.path.join(t, n + ".npy")) for n in outs}
    if f64: res = {n: v.astype(np.float64) for n, v in res.items()}
    if lay:
        res = {n: v.transpose(2, 0, 1, 3) if n == "Y" else v.transpose(1, 0, 2) for n, v in res.items()}
    return res


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    env = dict(os.environ, NODE_PATH=os.path.abspath(os.path.join(build, "ort-ref", "node_modules")))
    rng = np.random.default_rng(20261125)
    for c in CASES:
        model, ins, outs = case(rng, *c)
        d = os.path.join(HERE, "test_" + c[0])
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(os.path.join(d, "test_data_set_0"))
        onnx.save(model, os.path.join(d, "model.onnx"))
        for k, (n, v) in enumerate(ins):
            onnx.save_tensor(numpy_helper.from_array(v, n), os.path.join(d, "test_data_set_0", "input_%d.pb" % k))
        res = ort_run(d, model, ins, outs, env)
        for k, n in enumerate(outs):
            onnx.save_tensor(numpy_helper.from_array(np.ascontiguousarray(res[n]), n),
                             os.path.join(d, "test_data_set_0", "output_%d.pb" % k))
        print("test_" + c[0], "ok")


if __name__ == "__main__":
    main()
