#!/usr/bin/env bash
# End-to-end: residual blocks with their adds on the accelerator (ovta.QAdd, compiler/accel/alu.c:
# both inputs into one ACC region, the first through the identity times 2^(hi-lo) or with a left
# shift after it). tests/e2e/data/residual_model.onnx (torch export by gen_residual_model.py next
# to it: two ResNet basic blocks, the second with a 1x1 stride-2 downsample; residual_ref.npy is
# torch's fp32 output for residual_x.npy):
#   - int8 (ovta-opt through quantize, calibrated on 8 random samples, uniform in [-1, 1] while the
#     input is normal: cosine ~0.989): two ovta.QAdd, the graph on the CPU path (the reference)
#     close to torch;
#   - on the accelerator (compile --target accel --report: every conv and both adds there, the adds
#     fused into a conv, and with OVTA_FUSE_ADD=0 their own steps) fsim and tsim give the CPU
#     path's bytes;
#   - the same on add shifts picked to take each form of the lowering: the int8 graph with the adds'
#     shift_a / shift_b / shift rewritten (scaled identity block, a and b first; shifts 9 apart:
#     the left shift between the copies; the rounding constant as fill and as an ADD; fused where
#     the fused epilogue takes the shifts), the CPU path and fsim byte for byte;
#   - `ovta tune` on fsim tunes the two convs with their adds (res_form); the tuning file keeps them fused.
# Usage: tests/e2e/test_residual.sh [PATH/TO/ovta]   (default build/ovta; ovta-opt beside it).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
OVTA=${1:-build/ovta}
OPT=$(dirname "$OVTA")/ovta-opt
D=tests/e2e/data
echo "[==========] Running residual add end-to-end tests."

run "$OPT" --passes=infer,fold,dce,fold-bn,fuse,infer,fold,dce,quantize,verify --calib-random=8 --emit=json \
  "$D/residual_model.onnx"
cp "$T/out" "$T/q.json"
if [ $rc -eq 0 ] && [ "$(grep -cP '"op":\s*"ovta.QAdd"' "$T/q.json")" = 2 ] &&
   [ "$(grep -cP '"op":\s*"ovta.QConv"' "$T/q.json")" = 5 ]; then
  ok "int8 graph: five ovta.QConv and two ovta.QAdd"
else bad "int8 graph: five ovta.QConv and two ovta.QAdd" "rc $rc"; fi
run "$OVTA" run "$T/q.json" --input x="$D/residual_x.npy" --output-dir "$T/cpu"
pycheck "int8 cpu path close to torch" "
import sys, numpy as np
if $rc != 0: print('exit status $rc'); sys.exit()
a, r = np.load('$T/cpu/y.npy').astype(np.float64), np.load('$D/residual_ref.npy').astype(np.float64)
if a.shape != r.shape: print('shape %r, torch %r' % (a.shape, r.shape)); sys.exit()
if (a != 0).mean() < 0.3 or len(np.unique(a)) < 20: print('trivial output'); sys.exit()
c = np.dot(a.ravel(), r.ravel()) / np.linalg.norm(a) / np.linalg.norm(r)
print('ok' if c > 0.98 else 'cosine to torch %.4f' % c)"

# same_bytes TAG DIR REF: DIR/y.npy is REF/y.npy byte for byte
same_bytes() {
  pycheck "$1" "
import sys, numpy as np
if $rc != 0: print('exit status $rc'); sys.exit()
c, a = np.load('$3/y.npy'), np.load('$2/y.npy')
print('ok' if c.shape == a.shape and c.tobytes() == a.tobytes() else '%d of %d outputs differ' % ((c != a).sum(), c.size))"
}

# Both adds fused into the conv producing one of their inputs (the block's second conv; the
# downsample block's 1x1 conv, which runs after it: compiler/accel/README.md "Fused residual add"),
# and, with OVTA_FUSE_ADD=0, each its own step (accel/alu.c): the same bytes as the CPU path.
run "$OVTA" compile "$T/q.json" --target accel --report -o "$T/q.ovta"
if [ $rc -eq 0 ] && [ "$(grep -cP '^node \S+ op ovta.QAdd: accel: fused into node /b1/conv2/Conv$|^node \S+ op ovta.QAdd: accel: fused into node /b2/down\S*/Conv$' "$T/out")" = 2 ] &&
   grep -qP 'MACs on the accelerator (\d+) of \1 \(100.0%\)' "$T/out"; then
  ok "compile --target accel: both adds fused, every MAC on the accelerator"
else bad "compile --target accel: both adds fused, every MAC on the accelerator" "rc $rc"; fi
OVTA_FUSE_ADD=0 run "$OVTA" compile "$T/q.json" --target accel --report -o "$T/u.ovta"
if [ $rc -eq 0 ] && [ "$(grep -cP '^node \S+ op ovta.QAdd: accel: tile' "$T/out")" = 2 ]; then
  ok "compile --target accel, OVTA_FUSE_ADD=0: both adds on the accelerator as their own steps"
else bad "compile --target accel, OVTA_FUSE_ADD=0: both adds on the accelerator as their own steps" "rc $rc"; fi
device_backends "" "$T/q.ovta" --input x="$D/residual_x.npy"
for be in "${backends[@]}"; do
  run "$OVTA" run "$T/q.ovta" --backend "$be" --input x="$D/residual_x.npy" --output-dir "$T/$be"
  same_bytes "$be int8 (adds fused) = cpu int8, byte for byte" "$T/$be" "$T/cpu"
  run "$OVTA" run "$T/u.ovta" --backend "$be" --input x="$D/residual_x.npy" --output-dir "$T/u$be"
  same_bytes "$be int8 (adds unfused) = cpu int8, byte for byte" "$T/u$be" "$T/cpu"
done

# `ovta tune` tunes the two convs with their fused adds (compiler/tune: the add's forms in the
# space, res_form in the log and the tuning file), and the tuning file keeps both adds fused; on
# fsim each trial is checked against the plain-C reference of the fused op (its estimate as cycles).
run "$OVTA" tune "$T/q.json" --backend fsim --trials 3 -o "$T/tune.json"
pycheck "tune: the two fused layers with res_form, the others without" "
import json, sys
if $rc != 0: print('exit status $rc'); sys.exit()
L = [json.loads(l) for l in open('$T/tune.json.log')]
t = json.load(open('$T/tune.json'))['ops']
fused = sorted(k for k, v in t.items() if 'res_form' in v)
want = ['/b1/conv2/Conv', '/b2/down/down.0/Conv']
bad = []
if fused != want: bad.append('fused layers %r' % fused)
if len(L) != 15 or any('cycles' not in r for r in L): bad.append('%d records or a failed trial' % len(L))
if any(('res_form' in r['knobs']) != (r['layer'] in want) for r in L): bad.append('res_form on the wrong records')
print('; '.join(bad) or 'ok')"
run "$OVTA" compile "$T/q.json" --target accel --report --tuning "$T/tune.json" -o "$T/t.ovta"
if [ $rc -eq 0 ] && [ "$(grep -cP '^node \S+ op ovta.QAdd: accel: fused into node ' "$T/out")" = 2 ]; then
  ok "compile --tuning (tuned with the adds): both adds still fused"
else bad "compile --tuning (tuned with the adds): both adds still fused" "rc $rc"; fi
run "$OVTA" run "$T/t.ovta" --backend fsim --input x="$D/residual_x.npy" --output-dir "$T/tfsim"
same_bytes "tuned, fsim int8 = cpu int8, byte for byte" "$T/tfsim" "$T/cpu"

# The adds' shifts rewritten (shift_a shift_b shift for the first and the second add): each form
# of the lowering, checked on the CPU path against fsim (the graph's semantics is the rule):
# scaled block with a first (1 0 1, 3 0 2, 0 6 3: b first) or b first (0 2 3), the rounding
# constant as the fill; shifts 9 apart (0 9 12, 9 0 10): the left shift between the copies;
# scaled, the smaller shift at least the shift (2 4 1) and equal shifts (2 2 1): an ADD.
for sh in "1,0,1:0,2,3" "3,0,2:0,9,12" "9,0,10:2,4,1" "0,6,3:2,2,1"; do
  run "$PY" -c "
import json, sys
g = json.load(open('$T/q.json'))
adds = [n for n in g['nodes'] if n['op'] == 'ovta.QAdd']
for n, s in zip(adds, '$sh'.split(':')):
    a, b, y = (int(v) for v in s.split(','))
    n['attrs'].update({'shift_a': a, 'shift_b': b, 'shift': y})
json.dump(g, open('$T/s.json', 'w'))"
  if [ $rc -ne 0 ]; then bad "shifts $sh: graph rewritten" "rc $rc"; continue; fi
  run "$OVTA" run "$T/s.json" --input x="$D/residual_x.npy" --output-dir "$T/scpu"
  run "$OVTA" compile "$T/s.json" --target accel --report -o "$T/s.ovta"
  if [ $rc -ne 0 ] || [ "$(grep -cP '^node \S+ op ovta.QAdd: accel: (tile|fused into)' "$T/out")" != 2 ]; then
    bad "shifts $sh: both adds on the accelerator" "rc $rc"
    continue
  fi
  run "$OVTA" run "$T/s.ovta" --backend fsim --input x="$D/residual_x.npy" --output-dir "$T/sfsim"
  same_bytes "shifts $sh: fsim int8 = cpu int8, byte for byte" "$T/sfsim" "$T/scpu"
done
finish
