#!/usr/bin/env bash
# Tests of build/ovta-rt, the runtime alone (tools/ovta-rt/main.c, plan/): the shipped
# Fashion-MNIST model compiled by `ovta compile` for the cpu and for the accelerator, run by
# `ovta-rt run` (kernels.so through dlopen) and by `ovta run` (kernels.o through LLVM's JIT):
# the outputs are byte-identical, on fsim and tsim (when its model is built) too; the fp32 logits
# also match torch's own (models/fmnist/torch_logits.npy, shipped). ovta-rt links no LLVM and no
# protobuf (ldd, nm); bad plan folders give one `ovta-rt: error:` line.
# Usage: tests/cli/test_ovta_rt.sh [PATH/TO/ovta-rt] [PATH/TO/ovta]. Prints cmocka-style lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
RT=${1:-build/ovta-rt}
OVTA=${2:-build/ovta}
M=models/fmnist
ERR_TOOL=ovta-rt

echo "[==========] Running ovta-rt tests."

# ---- help
run "$RT" run --help
if [ $rc -eq 0 ] && grep -q '^usage: ovta-rt run' "$T/out" && [ -z "$err" ]; then ok "help"; else bad "help" "no usage"; fi

# ---- no compiler inside: neither the dynamic libraries nor the symbols of LLVM or protobuf-c
run ldd "$RT"
if [ $rc -eq 0 ] && ! grep -qiE 'llvm|protobuf' "$T/out"; then ok "ldd: no LLVM, no protobuf"
else bad "ldd: no LLVM, no protobuf" "$(grep -iE 'llvm|protobuf' "$T/out" | head -2)"; fi
run nm "$RT"
n_all=$(grep -c . "$T/out")
n_bad=$(grep -cE ' (LLVM[A-Z]|protobuf_c_|onnx__|ovta_exec_|lir_|vta_compile)' "$T/out")
if [ $rc -eq 0 ] && [ "$n_all" -gt 100 ] && [ "$n_bad" -eq 0 ] && grep -q ' T ovta_plan_run$' "$T/out"; then
  ok "nm: no LLVM, protobuf or compiler symbols"
else bad "nm: no LLVM, protobuf or compiler symbols" "$n_bad of $n_all symbols"; fi

# ---- the model compiled both ways; image 0 as the input
run "$OVTA" compile $M/fmnist_cnn.onnx --input-shape image=1x1x28x28 -o "$T/cpu.ovta"
rc_cpu=$rc
run "$OVTA" compile $M/fmnist_cnn.onnx --target accel --calib $M/calib_images.npy -o "$T/acc.ovta"
rc_acc=$rc
"$PY" -c "
import numpy as np
x = np.load('$M/test_images.npy')[:1].astype(np.float32) / 255.0
np.save('$T/img0.npy', x.reshape(1, 1, 28, 28))"
if [ $rc_cpu -eq 0 ] && [ $rc_acc -eq 0 ] && [ -s "$T/cpu.ovta/kernels.so" ] && [ -s "$T/acc.ovta/kernels.so" ] &&
  [ -s "$T/img0.npy" ]; then ok "ovta compile writes kernels.so"
else bad "ovta compile writes kernels.so" "rc $rc_cpu/$rc_acc"; fi

# same NAME PLAN BACKEND: ovta-rt and ovta run give the same bytes for every output
same() {
  local name=$1 plan=$2 be=$3 a b
  a=(); b=()
  [ "$be" != cpu ] && a=(--backend "$be") && b=(--backend "$be")
  run "$OVTA" run "$plan" "${b[@]}" --input image="$T/img0.npy" --output-dir "$T/$name.ovta-out"
  local rc1=$rc
  run "$RT" run "$plan" "${a[@]}" --input image="$T/img0.npy" --output-dir "$T/$name.rt-out"
  if [ $rc1 -eq 0 ] && [ $rc -eq 0 ] && [ -s "$T/$name.rt-out/logits.npy" ] &&
    cmp -s "$T/$name.ovta-out/logits.npy" "$T/$name.rt-out/logits.npy"; then ok "$name: ovta-rt = ovta run"
  else bad "$name: ovta-rt = ovta run" "rc $rc1/$rc, outputs differ or missing"; fi
}
same "cpu" "$T/cpu.ovta" cpu
# kernels.so calls the thread pool (ovta_par_for) that ovta-rt itself defines and exports
run "$RT" run "$T/cpu.ovta" --threads 2 --input image="$T/img0.npy" --output-dir "$T/cpu2.rt-out"
if [ $rc -eq 0 ] && cmp -s "$T/cpu.ovta-out/logits.npy" "$T/cpu2.rt-out/logits.npy"; then ok "cpu: ovta-rt --threads 2 = ovta run"
else bad "cpu: ovta-rt --threads 2 = ovta run" "rc $rc or outputs differ"; fi
same "accel on fsim" "$T/acc.ovta" fsim
if [ -f build/tsim/default/libovta_tsim.so ]; then same "accel on tsim" "$T/acc.ovta" tsim
else skip "accel on tsim: ovta-rt = ovta run" "the default config's Verilator model is not built (make tsim-default)"; fi

# kernels.so calling libm (expf): ovta-rt keeps libm loaded for it (tools/tools.mk), and the
# values match ONNX's own expected output
N=/usr/share/libonnx-testdata/data/node/test_exp/test_data_set_0
"$PY" -c "
import numpy as np, onnx, sys
from onnx import numpy_helper
for pb, f in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    t = onnx.TensorProto(); t.ParseFromString(open(pb, 'rb').read()); np.save(f, numpy_helper.to_array(t))
" $N/input_0.pb "$T/exp_x.npy" $N/output_0.pb "$T/exp_y.npy"
run "$OVTA" compile $N/../model.onnx -o "$T/exp.ovta"
run "$RT" run "$T/exp.ovta" --input x="$T/exp_x.npy" --output-dir "$T/exp-out"
if [ $rc -eq 0 ] && llvm-nm-15 -D --undefined-only "$T/exp.ovta/kernels.so" | grep -q ' expf$'; then
  pycheck "libm in kernels.so (expf): = ONNX's output" "
import numpy as np, sys
a = np.load(sys.argv[1]); r = np.load(sys.argv[2])
print('ok' if a.shape == r.shape and np.allclose(a, r, rtol=1e-5, atol=1e-6) else 'differs')" "$T/exp-out/y.npy" "$T/exp_y.npy"
else bad "libm in kernels.so (expf): = ONNX's output" "rc $rc, or kernels.so calls no expf"; fi

# the fp32 plan's logits against torch's for the same image (independent reference)
pycheck "cpu: logits match torch" "
import numpy as np, sys
a = np.load(sys.argv[1]); r = np.load(sys.argv[2])[:1]
d = float(np.abs(a - r).max())
print('ok' if a.shape == r.shape and d < 1e-4 else 'max |diff| %g' % d)" "$T/cpu.rt-out/logits.npy" $M/torch_logits.npy

# --stats: one line per step, the accelerator ones with device counts; on the cpu: quantize, pack,
# unpack, dequantize, and the first conv's im2col (pass im2col: Pad, 9 Slices, Concat)
run "$RT" run "$T/acc.ovta" --backend fsim --stats --input image="$T/img0.npy" --output-dir "$T/stats"
if [ $rc -eq 0 ] && [ "$(grep -c '^node .*: accel, runs 1, insns [1-9]' "$T/out")" -eq 7 ] &&
  [ "$(grep -c '^node .*: cpu, runs 1$' "$T/out")" -eq 15 ] &&
  [ "$(grep -c '^node im2col_[0-9]*: cpu, runs 1$' "$T/out")" -eq 11 ]; then ok "--stats"
else bad "--stats" "rc $rc"; fi

# ---- bad inputs: one error line each
expect_error "missing folder" "$T/nosuch/plan.json: *" "$RT" run "$T/nosuch" --input image="$T/img0.npy" --output-dir "$T/x"
cp -r "$T/cpu.ovta" "$T/trunc.ovta"
head -c 200 "$T/cpu.ovta/plan.json" >"$T/trunc.ovta/plan.json"
expect_error "truncated plan.json" "$T/trunc.ovta/plan.json: not valid JSON" \
  "$RT" run "$T/trunc.ovta" --input image="$T/img0.npy" --output-dir "$T/x"
cp -r "$T/cpu.ovta" "$T/noso.ovta"
rm "$T/noso.ovta/kernels.so"
expect_error "kernels.so missing" "$T/noso.ovta/kernels.so: *" \
  "$RT" run "$T/noso.ovta" --input image="$T/img0.npy" --output-dir "$T/x"
expect_error "input missing" "graph input image has no --input image=FILE.npy" \
  "$RT" run "$T/cpu.ovta" --output-dir "$T/x"
expect_error "input file missing" "$T/none.npy: *" "$RT" run "$T/cpu.ovta" --input image="$T/none.npy"
expect_error "accel plan on cpu" "*runs 7 node(s) on the accelerator*" \
  "$RT" run "$T/acc.ovta" --backend cpu --input image="$T/img0.npy" --output-dir "$T/x"
# a plan compiled for a board's ARM cores is refused here with one line naming both machines
if [ "$(uname -m)" = x86_64 ]; then
  run "$OVTA" compile $M/fmnist_cnn.onnx --target accel --calib $M/calib_images.npy --triple aarch64-linux-gnu -o "$T/a64.ovta"
  expect_error "plan for another machine" "$T/a64.ovta/kernels.so: code for aarch64-unknown-linux-gnu (ELF machine 183), this machine is x86_64*" \
    "$RT" run "$T/a64.ovta" --input image="$T/img0.npy" --output-dir "$T/x"
fi
expect_error "unknown option" "unknown option --nosuch*" "$RT" run "$T/cpu.ovta" --nosuch
expect_error "no command" "expected a command: run*" "$RT"

finish
