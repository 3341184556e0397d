#!/usr/bin/env bash
# End-to-end: pass im2col (compiler/passes/im2col.c) on two stems.
#   stem: tests/e2e/data/stem_model.onnx (torch export by gen_stem_model.py: Conv 3->16 7x7 stride 2
#         pad 3, Relu, MaxPool 3x3/2, Conv 16->16 3x3; stem_ref.npy torch's fp32 output). The im2col
#         (147 channels, 10 blocks of 16) beats s2d's 16 taps: the accelerator pipeline takes it.
#   s1:   a JSON model made here with numpy: Conv 1->16 3x3 stride 1 pad 1 + bias, Relu, Conv 16->8
#         3x3 pad 1 (9 channels, one block, against 9 taps).
# For each:
#   - fp32: the graph after im2col (Pad + 49 / 9 strided Slices + Concat + a 1x1 conv) on the CPU
#     path equals the model without the rewrite on the CPU path (float rounding only: the sums run
#     in another order), and the stem model's torch's output;
#   - int8 (ovta-opt through quantize, calibrated on 8 random samples): the int8 graph with im2col
#     is byte for byte the one without and the one with s2d (same products, same exponents);
#   - on the accelerator (compile --target accel: the report puts both convs on the accelerator, the
#     first as a 1x1 conv) fsim gives the CPU path's int8 bytes;
#   - the default accelerator pipeline (compile --target accel --calib) picks im2col for both.
# Usage: tests/e2e/test_im2col.sh [PATH/TO/ovta]   (default build/ovta; ovta-opt beside it).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
OVTA=${1:-build/ovta}
OPT=$(dirname "$OVTA")/ovta-opt
D=tests/e2e/data
FRONT=infer,fold,dce,fold-bn,fuse,split-groups
echo "[==========] Running im2col end-to-end tests."

# the s1 model and its inputs (seeded), written by numpy
"$PY" - "$T" <<'EOF'
import json, sys
import numpy as np
t = sys.argv[1]
rng = np.random.default_rng(27)
def const(name, a):
    return {"name": name, "dtype": "f32", "shape": list(a.shape), "data": [float(v) for v in a.ravel()]}
w1 = rng.standard_normal((16, 1, 3, 3)).astype(np.float32)
b1 = rng.standard_normal(16).astype(np.float32) * 0.1
w2 = rng.standard_normal((8, 16, 3, 3)).astype(np.float32) * 0.2
g = {"name": "s1", "opset": 17, "inputs": ["x"], "outputs": ["y"],
     "tensors": [{"name": "x", "kind": "input", "dtype": "f32", "shape": [1, 1, 12, 12]},
                 const("w1", w1), const("b1", b1), const("w2", w2)],
     "nodes": [{"name": "conv1", "op": "Conv", "inputs": ["x", "w1", "b1"], "outputs": ["c"], "attrs": {"pads": [1, 1, 1, 1]}},
               {"name": "relu", "op": "Relu", "inputs": ["c"], "outputs": ["r"]},
               {"name": "conv2", "op": "Conv", "inputs": ["r", "w2"], "outputs": ["y"], "attrs": {"pads": [1, 1, 1, 1]}}]}
json.dump(g, open(t + "/s1.json", "w"))
np.save(t + "/s1_x.npy", rng.standard_normal((1, 1, 12, 12)).astype(np.float32))
np.save(t + "/s1_calib.npy", rng.standard_normal((8, 1, 12, 12)).astype(np.float32))
EOF

# same_f32 TAG A B: A/y.npy equals B/y.npy up to float rounding (both non-trivial)
same_f32() {
  pycheck "$1" "
import sys, numpy as np
if $rc != 0: print('exit status $rc'); sys.exit()
a, b = np.load('$2/y.npy'), np.load('$3/y.npy')
if a.shape != b.shape: print('shape %r, %r' % (a.shape, b.shape)); sys.exit()
if np.abs(b).max() == 0: print('trivial output'); sys.exit()
d = np.abs(a - b).max()
print('ok' if d < 1e-5 * max(1, np.abs(b).max()) else 'max |difference| = %g' % d)"
}

# check NAME MODEL X CALIB FIRST K TAPS: the tests above on one model; FIRST the first conv's node
# name, K its input channels after the rewrite (C*KH*KW), TAPS its kernel's taps
check() {
  local m=$1 model=$2 x=$3 calib=$4 first=$5 k=$6 taps=$7
  run "$OVTA" run "$model" --input x="$x" --output-dir "$T/$m-f32"
  [ -n "${8:-}" ] && pycheck "$m: fp32 model on the cpu path = torch" "
import sys, numpy as np
if $rc != 0: print('exit status $rc'); sys.exit()
y, r = np.load('$T/$m-f32/y.npy'), np.load('$8')
print('ok' if y.shape == r.shape and np.abs(y - r).max() < 1e-4 * max(1, np.abs(r).max()) else 'differs')"
  run "$OPT" --passes=$FRONT,im2col,infer,verify --emit=json "$model"
  cp "$T/out" "$T/$m-i.json"
  if [ $rc -eq 0 ] && [ "$(grep -cP '"op":\s*"Slice"' "$T/$m-i.json")" = "$taps" ] &&
     grep -qP '"op":\s*"Concat"' "$T/$m-i.json" && grep -qP "\"shape\":\s*\[\s*[0-9]+,\s*$k,\s*1,\s*1\s*\]" "$T/$m-i.json"; then
    ok "$m: im2col: $taps Slices, a Concat, a 1x1 conv on $k channels"
  else bad "$m: im2col: $taps Slices, a Concat, a 1x1 conv on $k channels" "rc $rc"; fi
  run "$OVTA" run "$T/$m-i.json" --input x="$x" --output-dir "$T/$m-i32"
  same_f32 "$m: fp32 graph after im2col on the cpu path = the model's" "$T/$m-i32" "$T/$m-f32"

  local qs=""
  for v in none im2col s2d; do
    local p=$FRONT
    [ $v != none ] && p=$p,$v
    run "$OPT" --passes=$p,infer,fold,dce,quantize,verify --calib-random=8 --emit=json "$model"
    cp "$T/out" "$T/$m-q-$v.json"
    run "$OVTA" run "$T/$m-q-$v.json" --input x="$x" --output-dir "$T/$m-cpu-$v"
    qs="$qs $v"
  done
  pycheck "$m: int8 cpu path: with im2col = without = with s2d, byte for byte" "
import sys, numpy as np
if $rc != 0: print('exit status $rc'); sys.exit()
a = np.load('$T/$m-cpu-im2col/y.npy')
for v in ('none', 's2d'):
    b = np.load('$T/$m-cpu-%s/y.npy' % v)
    if a.shape != b.shape or a.tobytes() != b.tobytes(): print('differs from', v); sys.exit()
if (a != 0).mean() < 0.3 or len(np.unique(a)) < 20: print('trivial output'); sys.exit()
r = np.load('$T/$m-f32/y.npy').ravel()
c = np.dot(a.ravel().astype(np.float64), r) / np.linalg.norm(a) / np.linalg.norm(r)
print('ok' if c > 0.99 else 'cosine to fp32 %.4f' % c)"

  run "$OVTA" compile "$T/$m-q-im2col.json" --target accel --report -o "$T/$m-q.ovta"
  if [ $rc -eq 0 ] && grep -qP "^node $first op ovta.QConv: accel: tile" "$T/out" &&
     grep -qP 'MACs on the accelerator (\d+) of \1 \(100.0%\)' "$T/out"; then
    ok "$m: compile --target accel: both convs and every MAC on the accelerator"
  else bad "$m: compile --target accel: both convs and every MAC on the accelerator" "rc $rc"; fi
  run "$OVTA" run "$T/$m-q.ovta" --backend fsim --input x="$x" --output-dir "$T/$m-fsim"
  pycheck "$m: fsim int8 = cpu int8, byte for byte" "
import sys, numpy as np
if $rc != 0: print('exit status $rc'); sys.exit()
c, a = np.load('$T/$m-cpu-none/y.npy'), np.load('$T/$m-fsim/y.npy')
print('ok' if c.shape == a.shape and c.tobytes() == a.tobytes() else '%d of %d outputs differ' % ((c != a).sum(), c.size))"

  run "$OPT" --pipeline=accel --calib-random=4 --print-after=im2col --emit=none "$model"
  if [ $rc -eq 0 ] && grep -qP "^\s*node $first = ovta.Conv\(x_[0-9]+, .*kernel_shape=\[1,1\]" "$T/out" &&
     [ "$(grep -cP '= Slice\(' "$T/out")" = "$taps" ]; then
    ok "$m: the accelerator pipeline takes im2col"
  else bad "$m: the accelerator pipeline takes im2col" "rc $rc"; fi
}

check stem "$D/stem_model.onnx" "$D/stem_x.npy" "$D/stem_calib.npy" /conv1/Conv 147 49 "$D/stem_ref.npy"
check s1 "$T/s1.json" "$T/s1_x.npy" "$T/s1_calib.npy" conv1 9 9
finish
