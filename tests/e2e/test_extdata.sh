#!/usr/bin/env bash
# End-to-end: ONNX external data (compiler/graph/onnx_extdata.c). Models are made here, at test
# time, by Debian's python3-onnx 1.12 (`onnx.save_model(..., save_as_external_data=True,
# all_tensors_to_one_file=True, size_threshold=0)`), nothing is committed:
#   - an MLP built with onnx.helper (MatMul 64->256, Add, Relu, Mul by a Constant node's tensor,
#     Reshape by an int64 initializer, Gemm 256->10; every initializer and the Constant's tensor in
#     one weights.bin at onnx's offsets): `ovta run` matches numpy's own computation of it, and the
#     same model with its weights inside gives the same bytes;
#   - with each tensor in its own file (all_tensors_to_one_file=False) and from a symlinked folder;
#   - a torch CNN (Conv, BatchNorm, Relu, pooling, Linear) exported by torch.onnx.export, then
#     converted: `ovta run` matches torch (skipped when python3-torch is missing);
#   - hostile edits of the MLP's external_data (the catalogue tests/bad/cases/onnx-ext-* covers
#     the ones that need no file beside them): a symlink in the folder that leads out of it, a
#     symlinked subfolder leading out, a length that is not the tensor's, offset + length beyond
#     the file, a missing data file, a model read from a pipe. Each: one error line naming the
#     model, the tensor and the reason.
# Usage: tests/e2e/test_extdata.sh [PATH/TO/ovta]   (default build/ovta).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
OVTA=$(realpath "${1:-build/ovta}")
echo "[==========] Running ONNX external data tests."

D=$T/m
mkdir -p "$D" "$T/split" "$T/outside"
if ! "$PY" - "$D" "$T/split" <<'EOF' >"$T/gen.log" 2>&1; then
import sys, numpy as np, onnx
from onnx import helper as h, numpy_helper as nh, TensorProto as TP
d, split = sys.argv[1], sys.argv[2]
r = np.random.default_rng(7)
w1 = r.normal(0, 0.1, (64, 256)).astype(np.float32)
b1 = r.normal(0, 0.1, (256,)).astype(np.float32)
sc = r.uniform(0.5, 1.5, (256,)).astype(np.float32)
w2 = r.normal(0, 0.1, (10, 256)).astype(np.float32)
b2 = r.normal(0, 0.1, (10,)).astype(np.float32)
shp = np.array([2, 256], dtype=np.int64)
x = r.normal(0, 1, (2, 64)).astype(np.float32)
nodes = [h.make_node("MatMul", ["x", "w1"], ["m"], "mm"), h.make_node("Add", ["m", "b1"], ["a"], "add"),
         h.make_node("Relu", ["a"], ["rl"], "relu"),
         h.make_node("Constant", [], ["sc"], "const", value=nh.from_array(sc, "sc")),
         h.make_node("Mul", ["rl", "sc"], ["s"], "mul"), h.make_node("Reshape", ["s", "shp"], ["rs"], "reshape"),
         h.make_node("Gemm", ["rs", "w2", "b2"], ["y"], "gemm", transB=1)]
inits = [nh.from_array(w1, "w1"), nh.from_array(b1, "b1"), nh.from_array(w2, "w2"), nh.from_array(b2, "b2"),
         nh.from_array(shp, "shp")]
g = h.make_graph(nodes, "mlp", [h.make_tensor_value_info("x", TP.FLOAT, [2, 64])],
                 [h.make_tensor_value_info("y", TP.FLOAT, [2, 10])], inits)
m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)])
onnx.checker.check_model(m)
onnx.save_model(m, d + "/inline.onnx")
onnx.save_model(onnx.load(d + "/inline.onnx"), d + "/model.onnx", save_as_external_data=True,
                all_tensors_to_one_file=True, location="weights.bin", size_threshold=0,
                convert_attribute=True)
onnx.save_model(onnx.load(d + "/inline.onnx"), split + "/model.onnx", save_as_external_data=True,
                all_tensors_to_one_file=False, size_threshold=0, convert_attribute=True)
np.save(d + "/x.npy", x)
y = (np.maximum(x @ w1 + b1, 0) * sc).reshape(2, 256) @ w2.T + b2  # numpy's own, float32
np.save(d + "/want.npy", y.astype(np.float32))
# the converted model really keeps every tensor outside, the Constant's too
e = onnx.load(d + "/model.onnx", load_external_data=False)
ts = list(e.graph.initializer) + [a.t for n in e.graph.node for a in n.attribute if a.name == "value"]
assert len(ts) == 6 and all(t.data_location == TP.EXTERNAL and not t.raw_data for t in ts), "not external"
EOF
  bad "generate the models (python3-onnx)" "$(tail -3 "$T/gen.log")"
  finish
fi

close() { # close NAME DIR: $DIR/y.npy equals $D/want.npy within float32 rounding
  pycheck "$1" "
import sys, numpy as np
if $rc != 0: print('exit status $rc: ' + open('$T/err').read()[:300]); sys.exit()
g, w = np.load('$2/y.npy'), np.load('$D/want.npy')
err = float(np.abs(g - w).max() / np.abs(w).max())
print('ok' if g.shape == w.shape and err <= 1e-5 else 'shape %r, max rel. difference %g' % (g.shape, err))"
}

run "$OVTA" run "$D/model.onnx" --input x="$D/x.npy" --output-dir "$T/ext"
close "external data in one file: equals numpy" "$T/ext"
run "$OVTA" run "$D/inline.onnx" --input x="$D/x.npy" --output-dir "$T/inl"
pycheck "the same model with its weights inside: the same bytes" "
import numpy as np
a, b = np.load('$T/ext/y.npy'), np.load('$T/inl/y.npy')
print('ok' if $rc == 0 and a.tobytes() == b.tobytes() else 'rc $rc, differs')"
run "$OVTA" run "$T/split/model.onnx" --input x="$D/x.npy" --output-dir "$T/spl"
close "one file per tensor: equals numpy" "$T/spl"
ln -s "$T/split" "$T/linked"
(cd "$T" && "$OVTA" run linked/model.onnx --input x="$D/x.npy" --output-dir "$T/lnk" >"$T/out" 2>"$T/err")
rc=$?
close "from a symlinked folder, relative model path: equals numpy" "$T/lnk"

# torch: a small CNN exported as usual, then converted; ovta against torch's own output
if "$PY" -c "import torch" 2>/dev/null; then
  if "$PY" - "$T/cnn" <<'EOF' >"$T/gen.log" 2>&1; then
import os, sys, numpy as np, onnx, torch
d = sys.argv[1]
os.makedirs(d)
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                          torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 16, 3, stride=2), torch.nn.ReLU(),
                          torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 5))
with torch.no_grad():
    net[1].running_mean.uniform_(-0.1, 0.1); net[1].running_var.uniform_(0.5, 1.5)
net.eval()
x = torch.randn(1, 3, 16, 16)
with torch.no_grad():
    y = net(x)
torch.onnx.export(net, x, d + "/plain.onnx", opset_version=13, input_names=["image"], output_names=["y"])
onnx.save_model(onnx.load(d + "/plain.onnx"), d + "/model.onnx", save_as_external_data=True,
                all_tensors_to_one_file=True, location="model.onnx.data", size_threshold=0)
os.remove(d + "/plain.onnx")
np.save(d + "/x.npy", x.numpy())
np.save(d + "/torch.npy", y.numpy())
EOF
    run "$OVTA" run "$T/cnn/model.onnx" --input image="$T/cnn/x.npy" --output-dir "$T/cnn/out"
    pycheck "torch CNN with external data: equals torch" "
import sys, numpy as np
if $rc != 0: print('exit status $rc: ' + open('$T/err').read()[:300]); sys.exit()
g, w = np.load('$T/cnn/out/y.npy'), np.load('$T/cnn/torch.npy')
err = float(np.abs(g - w).max() / np.abs(w).max())
print('ok' if g.shape == w.shape and err <= 1e-4 else 'shape %r, max rel. difference %g' % (g.shape, err))"
  else bad "torch CNN export" "$(tail -3 "$T/gen.log")"; fi
else skip "torch CNN with external data" "python3-torch is not installed"; fi

# hostile: MODEL.onnx = the MLP with w1's external_data entries replaced by KEY=VALUE pairs
edit() { # edit NAME KEY=VALUE...: $D/NAME.onnx
  local n=$1
  shift
  "$PY" - "$D/model.onnx" "$D/$n.onnx" "$@" <<'EOF'
import sys, onnx
m = onnx.load(sys.argv[1], load_external_data=False)
t = [t for t in m.graph.initializer if t.name == "w1"][0]
del t.external_data[:]
for kv in sys.argv[3:]:
    e = t.external_data.add()
    e.key, e.value = kv.split("=", 1)
onnx.save_model(m, sys.argv[2])
EOF
}
echo "secret" >"$T/outside/w.bin"
head -c 65536 /dev/zero >"$T/outside/big.bin"
ln -s "$T/outside/big.bin" "$D/link-out.bin"
ln -s "$T/outside" "$D/linkdir"
cp "$D/weights.bin" "$D/inside.bin"
ln -s inside.bin "$D/link-in.bin"
W="$D/%s.onnx: initializer 'w1': external data '%s'"
edit link-out location=link-out.bin offset=0 length=65536
expect_error "a symlink leading out of the folder" "$(printf "$W" link-out link-out.bin): it resolves to */outside/big.bin, outside the model's directory*" \
  "$OVTA" run "$D/link-out.onnx" --input x="$D/x.npy" --output-dir "$T/o"
edit linkdir location=linkdir/big.bin length=65536
expect_error "a symlinked subfolder leading out" "$(printf "$W" linkdir linkdir/big.bin): it resolves to */outside/big.bin, outside*" \
  "$OVTA" run "$D/linkdir.onnx" --input x="$D/x.npy" --output-dir "$T/o"
edit dotdot location=../outside/w.bin
expect_error "a '..' location" "$(printf "$W" dotdot ../outside/w.bin): a '..' component is refused*" \
  "$OVTA" run "$D/dotdot.onnx" --input x="$D/x.npy" --output-dir "$T/o"
edit abs location="$T/outside/big.bin"
expect_error "an absolute location" "$(printf "$W" abs "$T/outside/big.bin"): an absolute location is refused*" \
  "$OVTA" run "$D/abs.onnx" --input x="$D/x.npy" --output-dir "$T/o"
edit len location=weights.bin offset=0 length=4096
expect_error "a length that is not the tensor's" "$(printf "$W" len weights.bin): length is 4096 bytes, the shape needs 65536" \
  "$OVTA" run "$D/len.onnx" --input x="$D/x.npy" --output-dir "$T/o"
wsize=$(stat -c %s "$D/weights.bin")
edit beyond location=weights.bin offset=$((wsize - 100)) length=65536
expect_error "offset + length beyond the file" "$(printf "$W" beyond weights.bin): offset $((wsize - 100)) + length 65536 is beyond the file's $wsize bytes" \
  "$OVTA" run "$D/beyond.onnx" --input x="$D/x.npy" --output-dir "$T/o"
edit nolen location=weights.bin offset=4096
expect_error "no length, the rest of the file is not the tensor" "$(printf "$W" nolen weights.bin): the file holds $((wsize - 4096)) bytes, the shape needs 65536" \
  "$OVTA" run "$D/nolen.onnx" --input x="$D/x.npy" --output-dir "$T/o"
edit missing location=missing.bin
expect_error "a missing data file" "$(printf "$W" missing missing.bin): cannot open *missing.bin: No such file or directory" \
  "$OVTA" run "$D/missing.onnx" --input x="$D/x.npy" --output-dir "$T/o"
# a symlink that stays inside is fine: w1 read through link-in.bin (its offset in weights.bin)
off=$("$PY" -c "import onnx,sys; t=[t for t in onnx.load(sys.argv[1], load_external_data=False).graph.initializer if t.name=='w1'][0]; print(dict((e.key,e.value) for e in t.external_data).get('offset','0'))" "$D/model.onnx")
edit link-in location=link-in.bin offset="$off" length=65536
run "$OVTA" run "$D/link-in.onnx" --input x="$D/x.npy" --output-dir "$T/lin"
close "a symlink inside the folder: equals numpy" "$T/lin"
# a model read from a pipe has no folder
mkfifo "$T/pipe.onnx"
cat "$D/model.onnx" >"$T/pipe.onnx" &
expect_error "a model from a pipe: external data refused" \
  "$T/pipe.onnx: initializer 'w1': external data 'weights.bin': the model was not read from a file in a directory*" \
  "$OVTA" run "$T/pipe.onnx" --input x="$D/x.npy" --output-dir "$T/o"
wait
finish
