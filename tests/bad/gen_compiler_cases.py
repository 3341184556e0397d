#!/usr/bin/python3
"""Generate the hostile compiler inputs of the bad-input catalogue (tests/bad/cases/onnx-*.onnx,
npy-*.npy). Plain Python, no onnx/numpy: the protobuf wire format is written by hand (field
numbers from onnx.proto), so a case can hold what no exporter would write. Run from this folder
(offline); the outputs are committed. The .expect files are written by hand."""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")


# ---------------------------------------------------------------- protobuf wire format
def varint(v):
    v &= (1 << 64) - 1  # negative int64 -> two's complement, 10 bytes
    b = bytearray()
    while True:
        x = v & 0x7F
        v >>= 7
        if v:
            b.append(x | 0x80)
        else:
            b.append(x)
            return bytes(b)


def f_varint(num, v):
    return varint(num << 3 | 0) + varint(v)


def f_bytes(num, data):
    if isinstance(data, str):
        data = data.encode()
    return varint(num << 3 | 2) + varint(len(data)) + data


def f_float(num, v):
    return varint(num << 3 | 5) + struct.pack("<f", v)


# ---------------------------------------------------------------- ONNX messages
FLOAT, INT64 = 1, 7


def tensor(name, dims, dtype=FLOAT, raw=None, floats=None, ext=False, ext_kv=()):
    b = b"".join(f_varint(1, d) for d in dims) + f_varint(2, dtype) + f_bytes(8, name)
    if floats is not None:
        b += f_bytes(4, b"".join(struct.pack("<f", x) for x in floats))
    if raw is not None:
        b += f_bytes(9, raw)
    # external_data: StringStringEntryProto (key 1, value 2) entries
    b += b"".join(f_bytes(13, f_bytes(1, k) + f_bytes(2, v)) for k, v in ext_kv)
    if ext:
        b += f_varint(14, 1)  # data_location EXTERNAL
    return b


def value_info(name, dims, dtype=FLOAT):
    shape = b"".join(f_bytes(1, f_varint(1, d) if isinstance(d, int) else f_bytes(2, d)) for d in dims)
    ttype = f_varint(1, dtype) + f_bytes(2, shape)
    return f_bytes(1, name) + f_bytes(2, f_bytes(1, ttype))


def attr_ints(name, vals):
    return f_bytes(1, name) + b"".join(f_varint(8, v) for v in vals) + f_varint(20, 7)


def attr_int(name, v):
    return f_bytes(1, name) + f_varint(3, v) + f_varint(20, 2)


def attr_str(name, v):
    return f_bytes(1, name) + f_bytes(4, v) + f_varint(20, 3)


def attr_float(name, v):
    return f_bytes(1, name) + f_float(2, v) + f_varint(20, 1)


def node(op, ins, outs, name="", attrs=()):
    b = b"".join(f_bytes(1, i) for i in ins) + b"".join(f_bytes(2, o) for o in outs)
    if name:
        b += f_bytes(3, name)
    b += f_bytes(4, op) + b"".join(f_bytes(5, a) for a in attrs)
    return b


def model(nodes, inputs, outputs, inits=(), opset=13):
    g = b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, "g")
    g += b"".join(f_bytes(5, t) for t in inits)
    g += b"".join(f_bytes(11, v) for v in inputs) + b"".join(f_bytes(12, v) for v in outputs)
    return f_varint(1, 7) + f_bytes(7, g) + f_bytes(8, f_bytes(1, "") + f_varint(2, opset))


def save(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


X = value_info("x", [1, 4])
Y = value_info("y", [1, 4])

# truncated: the first 600 bytes of the Fashion-MNIST model
with open(os.path.join(OUT, "..", "..", "..", "models", "fmnist", "fmnist_cnn.onnx"), "rb") as f:
    save("onnx-truncated.onnx", f.read()[:600])
# garbage: text that is not protobuf
save("onnx-garbage.onnx", b"this is not an ONNX model, just text\n" * 4)
# a valid protobuf with no graph
save("onnx-no-graph.onnx", f_varint(1, 7) + f_bytes(8, f_bytes(1, "") + f_varint(2, 13)))
# opset beyond what the importer knows
save("onnx-opset-99.onnx", model([node("Relu", ["x"], ["y"])], [X], [Y], opset=99))
# huge dims in a graph input: 2^40 x 2^40 elements overflow the element count
save("onnx-huge-dims.onnx", model([node("Relu", ["x"], ["y"], "r")], [value_info("x", [1 << 40, 1 << 40])], [Y]))
# negative dim in a graph input
save("onnx-negative-dim.onnx", model([node("Relu", ["x"], ["y"], "r")], [value_info("x", [1, -7])], [Y]))
# negative dim in an initializer
save("onnx-negative-init-dim.onnx",
     model([node("Add", ["x", "w"], ["y"], "a")], [X], [Y], [tensor("w", [-3, 4], floats=[0.0] * 12)]))
# initializer whose shape's element count overflows (2^31 * 2^31 * 4)
save("onnx-overflow-init.onnx",
     model([node("Add", ["x", "w"], ["y"], "a")], [X], [Y], [tensor("w", [1 << 31, 1 << 31, 4], raw=b"\0" * 16)]))
# initializer claiming 1M floats with 16 bytes of raw data
save("onnx-short-raw-data.onnx",
     model([node("Add", ["x", "w"], ["y"], "a")], [X], [Y], [tensor("w", [1024, 1024], raw=b"\0" * 16)]))
# initializer with rank 9
save("onnx-rank-9.onnx",
     model([node("Add", ["x", "w"], ["y"], "a")], [X], [Y], [tensor("w", [1] * 9, floats=[1.0])]))
# external data without a location
save("onnx-external-data.onnx",
     model([node("Add", ["x", "w"], ["y"], "a")], [X], [Y], [tensor("w", [4], ext=True)]))


# external data: hostile locations and ranges (the file they name is the model itself when it
# must exist: no data file beside the cases)
def ext_case(name, kv):
    save(name, model([node("Add", ["x", "w"], ["y"], "a")], [X], [Y], [tensor("w", [4], ext=True, ext_kv=kv)]))


ext_case("onnx-ext-dotdot.onnx", [("location", "../bad.mk")])
ext_case("onnx-ext-dotdot-inner.onnx", [("location", "sub/../../run.sh")])
ext_case("onnx-ext-absolute.onnx", [("location", "/etc/passwd")])
ext_case("onnx-ext-missing.onnx", [("location", "no-such-weights.bin")])
ext_case("onnx-ext-offset.onnx", [("location", "onnx-ext-offset.onnx"), ("offset", "100000")])
ext_case("onnx-ext-offset-huge.onnx",
         [("location", "onnx-ext-offset-huge.onnx"), ("offset", "9223372036854775807"), ("length", "16")])
ext_case("onnx-ext-length-beyond.onnx", [("location", "onnx-ext-length-beyond.onnx"), ("offset", "16"),
                                         ("length", "9223372036854775800")])
ext_case("onnx-ext-length-short.onnx", [("location", "onnx-ext-length-short.onnx"), ("length", "8")])
ext_case("onnx-ext-offset-negative.onnx", [("location", "onnx-ext-offset-negative.onnx"), ("offset", "-1")])
ext_case("onnx-ext-offset-overflow.onnx",
         [("location", "onnx-ext-offset-overflow.onnx"), ("offset", "18446744073709551632")])
ext_case("onnx-ext-location-twice.onnx", [("location", "a.bin"), ("location", "b.bin")])
# external and raw_data at once
save("onnx-ext-and-raw.onnx", model([node("Add", ["x", "w"], ["y"], "a")], [X], [Y],
                                    [tensor("w", [4], raw=b"\0" * 16, ext=True, ext_kv=[("location", "w.bin")])]))
# a cycle: a = Relu(b), b = Relu(a)
save("onnx-cycle.onnx", model([node("Relu", ["b"], ["a"], "r1"), node("Relu", ["a"], ["b"], "r2"),
                               node("Add", ["x", "a"], ["y"], "add")], [X], [Y]))
# an input nothing produces
save("onnx-missing-input.onnx", model([node("Add", ["x", "nowhere"], ["y"], "add")], [X], [Y]))
# an operator nobody knows
save("onnx-unknown-op.onnx", model([node("FrobnicateTensor", ["x"], ["y"], "frob")], [X], [Y]))
# two nodes writing the same tensor
save("onnx-two-producers.onnx", model([node("Relu", ["x"], ["y"], "r1"), node("Sigmoid", ["x"], ["y"], "r2")], [X], [Y]))
# bad attributes: Conv with a negative stride
W = tensor("w", [2, 1, 3, 3], floats=[0.5] * 18)
XI = value_info("x", [1, 1, 8, 8])
save("onnx-bad-stride.onnx", model([node("Conv", ["x", "w"], ["y"], "conv", [attr_ints("strides", [-1, 1])])],
                                   [XI], [value_info("y", [1, 2, 8, 8])], [W]))
# Conv kernel_shape that disagrees with the weight
save("onnx-bad-kernel-shape.onnx",
     model([node("Conv", ["x", "w"], ["y"], "conv", [attr_ints("kernel_shape", [5, 5])])],
           [XI], [value_info("y", [1, 2, 4, 4])], [W]))
# an attribute the operator does not have
save("onnx-unknown-attr.onnx", model([node("Relu", ["x"], ["y"], "r", [attr_float("gain", 2.0)])], [X], [Y]))
# Reshape to a shape whose element count overflows
save("onnx-reshape-overflow.onnx",
     model([node("Reshape", ["x", "s"], ["y"], "reshape")], [X], [Y],
           [tensor("s", [3], INT64, raw=struct.pack("<3q", 1 << 40, 1 << 40, 1 << 40))]))
# Pad to 2^20 x 2^20 elements: a 4 TiB tensor, refused (the executor tried to allocate it)
save("onnx-pad-huge.onnx",
     model([node("Pad", ["x", "p"], ["y"], "pad")], [X], [Y],
           [tensor("p", [4], INT64, raw=struct.pack("<4q", 1 << 20, 1 << 20, 0, 0))]))
# Pad to 2^40 x 2^40 elements: the element count overflows
save("onnx-pad-overflow.onnx",
     model([node("Pad", ["x", "p"], ["y"], "pad")], [X], [Y],
           [tensor("p", [4], INT64, raw=struct.pack("<4q", 1 << 39, 1 << 39, 0, 0))]))
# not an error case: a Relu whose declared output (value_info) is 250000 times larger than its
# input; the declared type must not be trusted (the lowering read past the input): `ovta run`
# gives the inferred 1x4 output (tests/cli/test_cli.sh)
save("../../cli/declared_shape_lie.onnx",
     model([node("Relu", ["x"], ["y"], "r")], [X], [value_info("y", [1, 1000000])]))


# ---------------------------------------------------------------- the newer CPU-path operators:
# attribute and input validation, each refused with one message naming the node
def i64(name, vals):
    return tensor(name, [len(vals)], INT64, raw=struct.pack("<%dq" % len(vals), *vals))


X4 = value_info("x", [1, 1, 2, 2])
# Slice with a step of 0
save("onnx-slice-step-zero.onnx",
     model([node("Slice", ["x", "st", "en", "ax", "sp"], ["y"], "slice")], [X], [Y],
           [i64("st", [0]), i64("en", [4]), i64("ax", [1]), i64("sp", [0])]))
# Gather with float indices
save("onnx-gather-float-indices.onnx",
     model([node("Gather", ["x", "i"], ["y"], "gather", [attr_int("axis", 1)])], [X], [Y],
           [tensor("i", [2], floats=[0.0, 1.0])]))
# Resize given both scales and sizes
save("onnx-resize-scales-and-sizes.onnx",
     model([node("Resize", ["x", "", "sc", "sz"], ["y"], "resize")], [X4], [value_info("y", [1, 1, 4, 4])],
           [tensor("sc", [4], floats=[1.0, 1.0, 2.0, 2.0]), i64("sz", [1, 1, 4, 4])]))
# Einsum: an output label that no input has
save("onnx-einsum-bad-label.onnx",
     model([node("Einsum", ["x"], ["y"], "einsum", [attr_str("equation", "ij->ik")])], [X], [Y]))
# Einsum: two operands in the equation, one input
save("onnx-einsum-operands.onnx",
     model([node("Einsum", ["x"], ["y"], "einsum", [attr_str("equation", "ij,jk->ik")])], [X], [Y]))
# TopK with k = -1
save("onnx-topk-negative-k.onnx",
     model([node("TopK", ["x", "k"], ["y", "yi"], "topk")], [X], [Y, value_info("yi", [1, 4], INT64)],
           [i64("k", [-1])]))
# Split whose parts (1 + 2) do not add up to the axis (4)
save("onnx-split-sum.onnx",
     model([node("Split", ["x", "s"], ["y", "y2"], "split", [attr_int("axis", 1)])], [X],
           [Y, value_info("y2", [1, 2])], [i64("s", [1, 2])]))
# ConvTranspose: group 2 does not divide 3 input channels
save("onnx-convtranspose-group.onnx",
     model([node("ConvTranspose", ["x", "w"], ["y"], "deconv", [attr_int("group", 2)])],
           [value_info("x", [1, 3, 4, 4])], [value_info("y", [1, 2, 6, 6])],
           [tensor("w", [3, 1, 3, 3], floats=[0.5] * 27)]))
# OneHot with depth 0
save("onnx-onehot-depth-zero.onnx",
     model([node("OneHot", ["i", "d", "v"], ["y"], "onehot")], [value_info("i", [4], INT64)], [Y],
           [tensor("d", [], floats=[0.0]), tensor("v", [2], floats=[0.0, 1.0])]))
# ReduceSum (opset 13: axes an input) over axis 5 of a rank-2 tensor
save("onnx-reducesum-axis.onnx",
     model([node("ReduceSum", ["x", "a"], ["y"], "rsum")], [X], [Y], [i64("a", [5])]))
# ReduceMax (axes an attribute) over axis -3 of a rank-2 tensor
save("onnx-reducemax-axis.onnx",
     model([node("ReduceMax", ["x"], ["y"], "rmax", [attr_ints("axes", [-3])])], [X], [Y]))
# Cast to data type 99
save("onnx-cast-unknown-type.onnx", model([node("Cast", ["x"], ["y"], "cast", [attr_int("to", 99)])], [X], [Y]))
# CumSum over axis 2 of a rank-2 tensor
save("onnx-cumsum-axis.onnx",
     model([node("CumSum", ["x", "a"], ["y"], "cumsum")], [X], [Y], [tensor("a", [], INT64, raw=struct.pack("<q", 2))]))
# DepthToSpace with blocksize 0
save("onnx-depthtospace-blocksize.onnx",
     model([node("DepthToSpace", ["x"], ["y"], "d2s", [attr_int("blocksize", 0)])], [X4], [X4]))
# Transpose with a perm that is not a permutation
save("onnx-transpose-perm.onnx",
     model([node("Transpose", ["x"], ["y"], "tr", [attr_ints("perm", [0, 0])])], [X], [Y]))
# Range with delta 0 (an endless range)
save("onnx-range-delta-zero.onnx",
     model([node("Range", ["s", "l", "d"], ["y"], "range")], [X], [value_info("y", [4])],
           [tensor("s", [], floats=[0.0]), tensor("l", [], floats=[4.0]), tensor("d", [], floats=[0.0])]))
# GatherElements with indices of another rank
save("onnx-gatherelements-rank.onnx",
     model([node("GatherElements", ["x", "i"], ["y"], "ge")], [X], [Y], [i64("i", [0, 1])]))
# Tile with a negative repeat
save("onnx-tile-negative.onnx",
     model([node("Tile", ["x", "r"], ["y"], "tile")], [X], [Y], [i64("r", [1, -2])]))


# ---------------------------------------------------------------- recurrent, signal and sampling
# operators, and the shape folding: each refused with one message naming the node
def attr_strs(name, vals):
    return f_bytes(1, name) + b"".join(f_bytes(9, v) for v in vals) + f_varint(20, 8)


XS = value_info("x", [5, 2, 3])  # [seq, batch, input]
# LSTM whose W is [1, 4*4, 3] but hidden_size says 5
save("onnx-lstm-hidden-size.onnx",
     model([node("LSTM", ["x", "w", "r"], ["y"], "lstm", [attr_int("hidden_size", 5)])], [XS],
           [value_info("y", [5, 1, 2, 5])],
           [tensor("w", [1, 16, 3], floats=[0.1] * 48), tensor("r", [1, 16, 4], floats=[0.1] * 64)]))
# GRU with an activation ONNX does not list
save("onnx-gru-activation.onnx",
     model([node("GRU", ["x", "w", "r"], ["y"], "gru", [attr_int("hidden_size", 4), attr_strs("activations", ["Gelu", "Tanh"])])],
           [XS], [value_info("y", [5, 1, 2, 4])],
           [tensor("w", [1, 12, 3], floats=[0.1] * 36), tensor("r", [1, 12, 4], floats=[0.1] * 48)]))
# RNN with direction "sideways"
save("onnx-rnn-direction.onnx",
     model([node("RNN", ["x", "w", "r"], ["y"], "rnn", [attr_int("hidden_size", 4), attr_str("direction", "sideways")])],
           [XS], [value_info("y", [5, 1, 2, 4])],
           [tensor("w", [1, 4, 3], floats=[0.1] * 12), tensor("r", [1, 4, 4], floats=[0.1] * 16)]))
# HannWindow of size 2^40 (a constant size: the output would be 4 TiB)
save("onnx-hannwindow-huge.onnx",
     model([node("HannWindow", ["n"], ["y"], "hann")], [], [value_info("y", ["len"])], [i64("n", [1 << 40])], opset=17))
# GridSample with an unknown mode
save("onnx-gridsample-mode.onnx",
     model([node("GridSample", ["x", "g"], ["y"], "gs", [attr_str("mode", "sideways")])],
           [value_info("x", [1, 1, 4, 4]), value_info("g", [1, 2, 2, 2])], [value_info("y", [1, 1, 2, 2])], opset=16))
# Det of a non-square matrix
save("onnx-det-nonsquare.onnx",
     model([node("Det", ["x"], ["y"], "det")], [value_info("x", [2, 3, 4])], [value_info("y", [2])]))
# shape folding: Shape -> Mul by 2^61 -> Reshape: the folded shape overflows the element count
save("onnx-shape-fold-overflow.onnx",
     model([node("Shape", ["x"], ["s"], "shape"), node("Mul", ["s", "k"], ["s2"], "mul"),
            node("Reshape", ["x", "s2"], ["y"], "reshape")],
           [X], [Y], [i64("k", [1 << 61, 1 << 61])]))

# TfIdfVectorizer whose attributes disagree: ngram_indexes shorter than the pool's n-grams, a
# 2-gram run of 3 items, weights of another count, a 2-gram twice in the pool; and pool_strings
# (string tensors: refused)
TOK = value_info("x", [2, 6], INT64)


def tfidf(name, counts, pool, idx, extra=()):
    attrs = [attr_str("mode", "TF"), attr_int("min_gram_length", 1), attr_int("max_gram_length", 2),
             attr_int("max_skip_count", 0), attr_ints("ngram_counts", counts), attr_ints("ngram_indexes", idx)]
    attrs += [attr_ints("pool_int64s", pool)] if pool else []
    save(name, model([node("TfIdfVectorizer", ["x"], ["y"], "tfidf", attrs + list(extra))], [TOK],
                     [value_info("y", [2, 5])], opset=9))


tfidf("onnx-tfidf-indexes-count.onnx", [0, 2], [1, 2, 3, 4, 5, 6], [0, 1, 2])
tfidf("onnx-tfidf-counts-split.onnx", [0, 3], [1, 2, 3, 4, 5, 6], [0, 1, 2, 3])
tfidf("onnx-tfidf-weights-count.onnx", [0, 2], [1, 2, 3, 4, 5, 6], [0, 1, 2, 3],
      [f_bytes(1, "weights") + b"".join(f_float(7, v) for v in (1.0, 2.0)) + f_varint(20, 6)])
tfidf("onnx-tfidf-duplicate.onnx", [0, 2], [1, 2, 3, 4, 3, 4], [0, 1, 2, 3])
tfidf("onnx-tfidf-pool-strings.onnx", [0, 2], None, [0, 1, 2], [attr_strs("pool_strings", ["a", "b", "c", "d"])])

# ---------------------------------------------------------------- .npy files
def npy(descr, shape, data, fortran=False, version=1, header=None):
    sh = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    h = header if header is not None else "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", sh)
    pre = 10 if version == 1 else 12
    pad = (64 - (pre + len(h) + 1) % 64) % 64
    h = h + " " * pad + "\n"
    hl = struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes([version, 0]) + hl + h.encode() + data


IMG = struct.pack("<f", 0.5) * 784
save("npy-run-wrong-dtype.npy", npy("<i4", (1, 1, 28, 28), b"\0" * 784 * 4))
save("npy-run-wrong-shape.npy", npy("<f4", (1, 1, 28, 27), struct.pack("<f", 0.5) * 756))
save("npy-run-truncated.npy", npy("<f4", (1, 1, 28, 28), IMG)[:2000])
save("npy-run-bad-magic.npy", b"\x93NUMPZ" + npy("<f4", (1, 1, 28, 28), IMG)[6:])
save("npy-run-huge-header.npy", b"\x93NUMPY\x02\x00\xff\xff\xff\x7f" + b"{'descr': '<f4', " + b" " * 100)
save("npy-run-huge-shape.npy", npy("<f4", (1 << 40, 1 << 40, 28, 28), IMG))
save("npy-run-big-endian.npy", npy(">f4", (1, 1, 28, 28), IMG))
save("npy-run-fortran.npy", npy("<f4", (1, 1, 28, 28), IMG, fortran=True))
save("npy-run-complex.npy", npy("<c8", (1, 1, 28, 28), IMG * 2))
save("npy-run-no-shape.npy", npy("", (), IMG, header="{'descr': '<f4', 'fortran_order': False, }"))
save("npy-run-bad-shape-text.npy", npy("", (), IMG, header="{'descr': '<f4', 'fortran_order': False, 'shape': (1, x, 28, 28), }"))
save("npy-run-version-9.npy", b"\x93NUMPY\x09\x00" + npy("<f4", (1, 1, 28, 28), IMG)[8:])
# ovta eval: images and labels
save("npy-eval-images-complex.npy", npy("<c16", (4, 28, 28), b"\0" * 4 * 784 * 16))
save("npy-eval-images-rank2.npy", npy("|u1", (4, 784), b"\1" * 4 * 784))
save("npy-eval-images-28x27.npy", npy("|u1", (4, 28, 27), b"\1" * 4 * 756))
save("npy-eval-labels-float.npy", npy("<f4", (10,), struct.pack("<10f", *range(10))))
save("npy-eval-images-truncated.npy", npy("|u1", (100, 28, 28), b"\1" * 784 * 10))
save("npy-eval-labels-short.npy", npy("|u1", (3,), b"\1\2\3"))
save("npy-eval-labels-out-of-range.npy", npy("<i8", (10,), struct.pack("<10q", 0, 1, 2, 3, 4, 5, 6, 7, 8, 10)))
