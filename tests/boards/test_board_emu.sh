#!/usr/bin/env bash
# The boards' runtime without a board: build-armv7/ovta-rt and build-aarch64/ovta-rt (`make cross`,
# boards/cross.mk) run under qemu-user (qemu-arm, qemu-aarch64) on the shipped Fashion-MNIST
# model compiled here for pynq-z2 (--triple armv7a-linux-gnueabihf --mcpu cortex-a9) and
# ultra96-v2 (--triple aarch64-linux-gnu --mcpu cortex-a53):
#   * --backend zynq against the virtual board (build/ovta-vboard, a host process serving the
#     board's Verilator model through files in a folder, as /dev/uio0 and u-dma-buf would), so
#     the zynq backend's register and DMA code runs as ARM code, 32- and 64-bit;
#   * --backend fsim (the simulator compiled for ARM) and the cpu-only plan;
# every output byte-identical to the host's `ovta run` of the same model compiled for this
# machine (same config), whose params.bin the ARM plan must share; --stats prints the cycles.
# Usage: tests/boards/test_board_emu.sh BUILD_DIR [--verbose]. Prints cmocka-style lines.
set -u
B=${1:-build}
VERBOSE=${2:-}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
M=models/fmnist
export OVTA_TSIM_DIR=$B/tsim

echo "[==========] Running board emulation tests."

"$PY" -c "
import numpy as np
x = np.load('$M/test_images.npy')[:1].astype(np.float32) / 255.0
np.save('$T/img.npy', x.reshape(1, 1, 28, 28))" || exit 1

# the host references: the same model and config compiled for this machine, run by `ovta run`
host_ref() {
  local cfg=$1
  run "$B/ovta" compile $M/fmnist_cnn.onnx --target accel --calib $M/calib_images.npy --config "$cfg" -o "$T/host-$cfg.ovta"
  [ $rc -eq 0 ] && run "$B/ovta" run "$T/host-$cfg.ovta" --backend fsim --input image="$T/img.npy" --output-dir "$T/ref-$cfg"
  [ $rc -eq 0 ] && [ -s "$T/ref-$cfg/logits.npy" ]
}
run "$B/ovta" compile $M/fmnist_cnn.onnx --input-shape image=1x1x28x28 -o "$T/host-cpu.ovta"
[ $rc -eq 0 ] && run "$B/ovta" run "$T/host-cpu.ovta" --input image="$T/img.npy" --output-dir "$T/ref-cpu"
if [ $rc -eq 0 ] && [ -s "$T/ref-cpu/logits.npy" ]; then ok "host: cpu reference"; else bad "host: cpu reference" "rc $rc"; fi

# show TEXT: with --verbose (make test-board-emu) the lines go to the terminal too
show() { [ -n "$VERBOSE" ] && sed 's/^/    /' "$@"; return 0; }

# elf_machine FILE: e_machine of an ELF file (40 ARM, 183 AArch64, 62 x86-64)
elf_machine() { od -An -tu2 -j18 -N2 "$1" | tr -d ' '; }

# same NAME OUT REF: OUT/logits.npy is byte-identical to REF/logits.npy
same() {
  if [ $rc -eq 0 ] && [ -s "$2/logits.npy" ] && cmp -s "$2/logits.npy" "$3/logits.npy"; then ok "$1"
  else bad "$1" "rc $rc, logits differ from the host's or missing"; fi
}

# close NAME OUT_DIR REF_DIR: fp32 logits byte for byte, else within 1e-5 of the largest |logit|:
# the CPU kernels' multiply-adds (llvm.fmuladd) are fused where the target has FMA (x86-64 with
# FMA, aarch64) and rounded twice where it has none (Cortex-A9), so float sums may differ in the
# last bits; int8 plans stay byte for byte ("same").
close() {
  local how
  if [ $rc -eq 0 ] && [ -s "$2/logits.npy" ] && how=$("$PY" -c '
import sys, numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
if a.shape != b.shape: sys.exit("shapes %s %s" % (a.shape, b.shape))
d = float(np.abs(a.astype(np.float64) - b).max() / max(np.abs(b).max(), 1e-30))
print("byte for byte" if a.tobytes() == b.tobytes() else "within %.1e of the largest logit" % d)
sys.exit(0 if d <= 1e-5 else "differs by %.1e of the largest logit" % d)' "$2/logits.npy" "$3/logits.npy" 2>&1); then
    ok "$1 ($how)"
  else bad "$1" "rc $rc: ${how:-logits missing}"; fi
}

# one_arch ARCH CONFIG TRIPLE MCPU QEMU SYSROOT ELF_MACHINE
one_arch() {
  local arch=$1 cfg=$2 triple=$3 mcpu=$4 qemu=$5 sysroot=$6 em=$7
  local rt=build-$arch/ovta-rt acc=$T/$arch-acc.ovta cpu=$T/$arch-cpu.ovta
  local why=""
  [ -x "$rt" ] || why="$rt is not built (no ${sysroot##*/}-gcc? bash tools/install-deps.sh, then make cross ARCH=$arch)"
  [ -z "$why" ] && ! command -v "$qemu" >/dev/null && why="$qemu is not installed (qemu-user: bash tools/install-deps.sh)"
  [ -z "$why" ] && [ ! -d "$sysroot/lib" ] && why="$sysroot/lib is missing (the cross C library)"
  [ -z "$why" ] && [ ! -f "$B/tsim/$cfg/libovta_tsim.so" ] && why="the $cfg Verilator model is not built (make $B/tsim/$cfg/libovta_tsim.so)"
  if [ -n "$why" ]; then
    skip "$arch: ovta-rt under $qemu" "$why"
    return
  fi
  # --threads 1: bookworm's qemu-user 7.2 hangs (aarch64) or crashes (armv7) in pthread_create of a
  # dynamically linked ARM program (a five-line pthread program does the same here), so the
  # emulated board runs the CPU kernels on one thread; the thread pool is tested natively
  # (tests/isa/test_parallel.c, tests/cli: --threads 1 and 2 give the same bytes).
  local q=("$qemu" -L "$sysroot") t1=(--threads 1)

  # the plans: ARM code, the same constants as the host's
  host_ref "$cfg" || { bad "$arch: host reference ($cfg)" "rc $rc"; return; }
  run "$B/ovta" compile $M/fmnist_cnn.onnx --target accel --calib $M/calib_images.npy --config "$cfg" \
    --triple "$triple" --mcpu "$mcpu" -o "$acc"
  local rc1=$rc
  run "$B/ovta" compile $M/fmnist_cnn.onnx --input-shape image=1x1x28x28 --triple "$triple" --mcpu "$mcpu" -o "$cpu"
  if [ $rc1 -eq 0 ] && [ $rc -eq 0 ] && [ "$(elf_machine "$acc/kernels.so")" = "$em" ] &&
    [ "$(elf_machine "$cpu/kernels.so")" = "$em" ] && [ "$(elf_machine "$rt")" = "$em" ] &&
    cmp -s "$acc/params.bin" "$T/host-$cfg.ovta/params.bin"; then
    ok "$arch: plans for $triple are ARM code with the host's constants"
  else bad "$arch: plans for $triple are ARM code with the host's constants" "rc $rc1/$rc"; fi

  # the cpu-only plan
  run "${q[@]}" "$rt" run "${t1[@]}" "$cpu" --input image="$T/img.npy" --output-dir "$T/$arch-cpu-out"
  close "$arch: cpu plan = host" "$T/$arch-cpu-out" "$T/ref-cpu"

  # the accelerator on fsim, compiled for ARM
  run "${q[@]}" "$rt" run "${t1[@]}" "$acc" --backend fsim --stats --input image="$T/img.npy" --output-dir "$T/$arch-fsim-out"
  show "$T/out"
  same "$arch: accel on fsim = host" "$T/$arch-fsim-out" "$T/ref-$cfg"

  # the accelerator on the virtual board (its files in a fresh folder in /dev/shm) through the
  # zynq backend
  local vb pid
  "$B/ovta-vboard" --config "$cfg" >"$T/vb.out" 2>"$T/vb.err" &
  pid=$!
  for _ in $(seq 100); do grep -q serving "$T/vb.out" && break; sleep 0.1; done
  vb=$(sed -n 's/^ovta-vboard: config .* serving in //p' "$T/vb.out")
  OVTA_ZYNQ_REGS=$vb/regs OVTA_ZYNQ_DMA=$vb/udmabuf0 OVTA_ZYNQ_DMA_SYSFS=$vb/sysfs/udmabuf0 \
    run "${q[@]}" "$rt" run "${t1[@]}" "$acc" --backend zynq --stats --input image="$T/img.npy" --output-dir "$T/$arch-zynq-out"
  local rc_run=$rc
  cp "$T/out" "$T/zynq.out"
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  show "$T/zynq.out" "$T/vb.out"
  rc=$rc_run
  same "$arch: accel on the virtual board (zynq backend) = host" "$T/$arch-zynq-out" "$T/ref-$cfg"
  # every accelerator node ran on the board, with cycles counted by the RTL
  local n_acc n_cyc
  n_acc=$(grep -c '^node .*: accel, runs 1, ' "$T/zynq.out")
  n_cyc=$(grep -cE '^node .*: accel, .*cycles [1-9]' "$T/zynq.out")
  if [ "$n_acc" -eq 7 ] && [ "$n_cyc" -eq 7 ] && grep -q 'stopped after 7 runs' "$T/vb.out"; then
    ok "$arch: 7 accelerator runs on the virtual board, cycles in --stats"
  else bad "$arch: 7 accelerator runs on the virtual board, cycles in --stats" \
    "$n_acc accel lines, $n_cyc with cycles; board: $(tail -1 "$T/vb.out")"; fi

  # and the host's own ovta-rt refuses the ARM plan with one line
  ERR_TOOL=ovta-rt expect_error "$arch: the host's ovta-rt refuses the plan" "$acc/kernels.so: code for ${triple%%-*}-*" \
    "$B/ovta-rt" run "$acc" --input image="$T/img.npy" --output-dir "$T/x"
}

one_arch armv7 pynq-z2 armv7a-linux-gnueabihf cortex-a9 qemu-arm /usr/arm-linux-gnueabihf 40
one_arch aarch64 ultra96-v2 aarch64-linux-gnu cortex-a53 qemu-aarch64 /usr/aarch64-linux-gnu 183

finish
