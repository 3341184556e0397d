#!/usr/bin/env bash
# Damaged plan folders (plan/digest.c): a small model (the shipped Fashion-MNIST CNN, int8 with
# its accelerator nodes) compiled once; its manifest's digests checked against the tests' own
# FNV-1a 64 (tests/lib.sh); then every file of the folder damaged in turn: cut to 0 bytes, cut
# to half, one byte flipped (in the middle), garbage appended, deleted. `ovta run` (reads
# plan.json, params.bin, kernels.o) and `ovta-rt run` (plan.json, params.bin, kernels.so) must
# each refuse a damage to a file it reads with exit status 1..127 (no signal), exactly one error
# line naming that file, and no sanitizer report; a damage to the file it does not read
# (kernels.so for ovta run, kernels.o for ovta-rt) must not change its outputs. A plan written
# before the manifest (no digests) is refused with a line asking to recompile.
# Usage: tests/bad/test_plan_corrupt.sh [PATH/TO/ovta] [PATH/TO/ovta-rt]. Prints cmocka-style lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
OVTA=${1:-build/ovta}
RT=${2:-build/ovta-rt}
M=models/fmnist
FILES="plan.json params.bin kernels.o kernels.so"

echo "[==========] Running damaged-plan tests."

run "$OVTA" compile $M/fmnist_cnn.onnx --target accel --calib $M/calib_images.npy -o "$T/good.ovta"
"$PY" -c "
import numpy as np
x = np.load('$M/test_images.npy')[:1].astype(np.float32) / 255.0
np.save('$T/img0.npy', x.reshape(1, 1, 28, 28))"
if [ $rc -eq 0 ] && [ -s "$T/img0.npy" ]; then ok "compile"
else bad "compile" "rc $rc"; finish; fi

# the manifest: every file with its size and FNV-1a 64, and plan.json's own digest
pycheck "manifest digests match the tests' FNV-1a 64" "$FNV_PY"'
import json, re, sys, os
d = sys.argv[1]
t = open(d + "/plan.json", "rb").read()
j = json.loads(t)
bad = []
for f in ["params.bin", "kernels.o", "kernels.so"]:
    e = j["files"].get(f)
    b = open(d + "/" + f, "rb").read()
    if not e or e["bytes"] != len(b) or e["fnv1a64"] != "%016x" % fnv(b): bad.append(f)
m = list(re.finditer(rb"\"plan_fnv1a64\"\s*:\s*\"([0-9a-f]{16})\"", t))[-1]
z = t[:m.start(1)] + b"0" * 16 + t[m.end(1):]
if m.group(1).decode() != "%016x" % fnv(z): bad.append("plan.json")
print("ok" if not bad else "wrong: " + " ".join(bad))' "$T/good.ovta"

# the undamaged plan's outputs, from each command
run "$OVTA" run "$T/good.ovta" --backend fsim --input image="$T/img0.npy" --output-dir "$T/ref-ovta"
rc1=$rc
run "$RT" run "$T/good.ovta" --backend fsim --input image="$T/img0.npy" --output-dir "$T/ref-rt"
if [ $rc1 -eq 0 ] && [ $rc -eq 0 ] && cmp -s "$T/ref-ovta/logits.npy" "$T/ref-rt/logits.npy"; then ok "undamaged plan runs"
else bad "undamaged plan runs" "rc $rc1/$rc"; finish; fi

# damage FILE HOW: a copy of the plan with FILE damaged as HOW, in $T/d.ovta
damage() {
  local f=$T/d.ovta/$1 n
  rm -rf "$T/d.ovta" && cp -r "$T/good.ovta" "$T/d.ovta"
  n=$(stat -c %s "$f")
  case $2 in
  empty) : >"$f" ;;
  half) truncate -s $((n / 2)) "$f" ;;
  flip) "$PY" -c "
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[len(b) // 2] ^= 0x20
open(p, 'wb').write(b)" "$f" ;;
  append) printf 'garbage\0\377' >>"$f" ;;
  delete) rm "$f" ;;
  esac
}

# refused TOOL NAME FILE CMD...: CMD exits 1..127 with one error line that names FILE, no sanitizer report
refused() {
  local tool=$1 name=$2 file=$3
  shift 3
  run "$@"
  local n
  n=$(grep -c 'error:' "$T/err")
  if [ $rc -eq 0 ] || [ $rc -gt 127 ]; then bad "$name" "exit status $rc"
  elif grep -qE 'Sanitizer|runtime error:' "$T/err"; then bad "$name" "sanitizer report"
  elif [ "$n" -ne 1 ] || [ "$(grep -c . "$T/err")" -ne 1 ]; then bad "$name" "$n error lines, $(grep -c . "$T/err") lines"
  elif ! grep -q "^$tool: error: .*$T/d.ovta/$file" "$T/err"; then bad "$name" "the line does not name $file"
  else ok "$name"; fi
}

# unaffected NAME REF CMD...: CMD runs and writes the same logits as REF
unaffected() {
  local name=$1 ref=$2
  shift 2
  rm -rf "$T/o"
  run "$@" --output-dir "$T/o"
  if [ $rc -eq 0 ] && cmp -s "$ref/logits.npy" "$T/o/logits.npy"; then ok "$name"
  else bad "$name" "exit status $rc or other logits"; fi
}

for f in $FILES; do
  for how in empty half flip append delete; do
    damage "$f" "$how"
    if [ "$f" = kernels.so ]; then
      unaffected "ovta run, kernels.so $how: not read, same logits" "$T/ref-ovta" \
        "$OVTA" run "$T/d.ovta" --backend fsim --input image="$T/img0.npy"
    else
      refused ovta "ovta run, $f $how" "$f" \
        "$OVTA" run "$T/d.ovta" --backend fsim --input image="$T/img0.npy" --output-dir "$T/o"
    fi
    if [ "$f" = kernels.o ]; then
      unaffected "ovta-rt run, kernels.o $how: not read, same logits" "$T/ref-rt" \
        "$RT" run "$T/d.ovta" --backend fsim --input image="$T/img0.npy"
    else
      refused ovta-rt "ovta-rt run, $f $how" "$f" \
        "$RT" run "$T/d.ovta" --backend fsim --input image="$T/img0.npy" --output-dir "$T/o"
    fi
  done
done

# a byte flipped at every 16th position of plan.json: each refused (a JSON that still parses is
# caught by its digest), never a crash
rm -rf "$T/d.ovta" && cp -r "$T/good.ovta" "$T/d.ovta"
n=$(stat -c %s "$T/good.ovta/plan.json")
fails=0 checked=0
for ((k = 0; k < n; k += n / 16 + 1)); do
  "$PY" -c "
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[int(sys.argv[2])] ^= 0x01
open(sys.argv[3], 'wb').write(b)" "$T/good.ovta/plan.json" $k "$T/d.ovta/plan.json"
  for tool in ovta ovta-rt; do
    exe=$OVTA; [ $tool = ovta-rt ] && exe=$RT
    run "$exe" run "$T/d.ovta" --backend fsim --input image="$T/img0.npy" --output-dir "$T/o"
    checked=$((checked + 1))
    if [ $rc -eq 0 ] || [ $rc -gt 127 ] || [ "$(grep -c . "$T/err")" -ne 1 ] ||
      ! grep -q "^$tool: error: .*plan.json" "$T/err"; then fails=$((fails + 1)); echo "  byte $k, $tool: rc $rc: $err"; fi
  done
done
if [ $fails -eq 0 ]; then ok "plan.json with one byte flipped, $checked runs: each refused naming plan.json"
else bad "plan.json with one byte flipped" "$fails of $checked not refused in one line"; fi

# a plan written before the manifest: refused, asking to recompile
rm -rf "$T/d.ovta" && cp -r "$T/good.ovta" "$T/d.ovta"
"$PY" -c "
import json, sys
p = sys.argv[1]; j = json.load(open(p)); del j['files']; del j['plan_fnv1a64']
open(p, 'w').write(json.dumps(j, indent=1))" "$T/d.ovta/plan.json"
expect_error "ovta run, plan without digests" "$T/d.ovta/plan.json: no digests of the plan's files*recompile it with ovta compile" \
  "$OVTA" run "$T/d.ovta" --backend fsim --input image="$T/img0.npy" --output-dir "$T/o"
ERR_TOOL=ovta-rt expect_error "ovta-rt run, plan without digests" "$T/d.ovta/plan.json: no digests of the plan's files*recompile it with ovta compile" \
  "$RT" run "$T/d.ovta" --backend fsim --input image="$T/img0.npy" --output-dir "$T/o"

# the manifest's own digest of another length (the JSON still valid): refused as malformed
rm -rf "$T/d.ovta" && cp -r "$T/good.ovta" "$T/d.ovta"
sed -i 's/\("plan_fnv1a64":[[:space:]]*"[0-9a-f]\{15\}\)[0-9a-f]"/\1"/' "$T/d.ovta/plan.json"
expect_error "ovta run, plan_fnv1a64 of 15 digits" "$T/d.ovta/plan.json: malformed manifest*" \
  "$OVTA" run "$T/d.ovta" --backend fsim --input image="$T/img0.npy" --output-dir "$T/o"
ERR_TOOL=ovta-rt expect_error "ovta-rt run, plan_fnv1a64 of 15 digits" "$T/d.ovta/plan.json: malformed manifest*" \
  "$RT" run "$T/d.ovta" --backend fsim --input image="$T/img0.npy" --output-dir "$T/o"

finish
