#!/usr/bin/env bash
# CLI tests of build/ovta: --help for every subcommand, asm -> disasm -> asm round trip, bad input
# gives exactly one "ovta: error:" line and a non-zero exit, and `ovta sim` on small programs
# whose dumped DRAM is compared with results computed by hand (in the comments below).
# Usage: tests/cli/test_cli.sh [PATH/TO/ovta]   (default build/ovta). Prints cmocka-style lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
OVTA=${1:-build/ovta}
D=tests/cli

echo "[==========] Running ovta CLI tests."

# ---- help and version
run "$OVTA" --help
if [ $rc -eq 0 ] && grep -q '^usage: ovta' "$T/out" && grep -q '^  sim ' "$T/out"; then ok "help"; else bad "help" "no usage"; fi
run "$OVTA" --version
if [ $rc -eq 0 ] && [[ "$out" =~ ^ovta\ [0-9]+\.[0-9]+\.[0-9]+$ ]]; then ok "version"; else bad "version" "'$out'"; fi
for c in asm disasm sim config; do
  run "$OVTA" "$c" --help
  if [ $rc -eq 0 ] && grep -q "^usage: ovta $c" "$T/out" && [ -z "$err" ]; then ok "help $c"; else bad "help $c" "no usage"; fi
done

# ---- asm -> disasm -> asm round trip (bit-exact), and the line form
run "$OVTA" asm $D/gemm.s -o "$T/g.bin"
size=$(stat -c %s "$T/g.bin" 2>/dev/null || echo 0)
if [ $rc -eq 0 ] && [ "$size" -eq 112 ]; then ok "asm writes 7 instructions"; else bad "asm writes 7 instructions" "rc $rc, $size bytes"; fi
run "$OVTA" disasm --config small "$T/g.bin"
echo "$out" >"$T/g.s"
if [ $rc -eq 0 ] && [ "$(head -n1 "$T/g.s")" = ".config small" ] && [ "$(grep -c '^[A-Z]' "$T/g.s")" -eq 7 ] &&
  grep -qx 'FINISH pop_prev=0 pop_next=1 push_prev=0 push_next=0' "$T/g.s" &&
  grep -qx 'GEMM pop_prev=0 pop_next=0 push_prev=0 push_next=0 reset=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 dst_factor_out=0 dst_factor_in=0 src_factor_out=0 src_factor_in=0 wgt_factor_out=0 wgt_factor_in=0' "$T/g.s"; then
  ok "disasm binary"
else bad "disasm binary" "unexpected text"; fi
# buffers are laid out from 0 at multiples of 4096: inp is the 2nd buffer, INP elements of 8 bytes
if grep -q 'memory_type=INP sram_base=0 dram_base=512 ' "$T/g.s"; then ok "asm resolves @inp"; else bad "asm resolves @inp" "dram_base"; fi
run "$OVTA" asm "$T/g.s" -o "$T/g2.bin"
if [ $rc -eq 0 ] && cmp -s "$T/g.bin" "$T/g2.bin"; then ok "disasm | asm round trip"; else bad "disasm | asm round trip" "binaries differ"; fi
# a text program prints in canonical form, which prints the same again
run "$OVTA" disasm $D/alu.s
echo "$out" >"$T/a1.s"
run "$OVTA" disasm "$T/a1.s"
if [ $rc -eq 0 ] && [ "$out" = "$(cat "$T/a1.s")" ] && grep -qx '.int32 acc+0 100 -100 7 -7 1000 -1000 255 -256' "$T/a1.s" &&
  grep -q '^ALU .* alu_opcode=SHR use_imm=1 imm=1$' "$T/a1.s"; then
  ok "disasm text is stable"
else bad "disasm text is stable" "differs"; fi

# ---- bad input: one error line, non-zero exit
expect_error "asm bad field" "$D/bad_field.s:3:6: unknown field 'x_sise' for LOAD" "$OVTA" asm $D/bad_field.s -o "$T/x.bin"
if [ "$(sed -n 2p "$T/err")" = "    3 | LOAD x_sise=1" ] && [ "$(sed -n 3p "$T/err")" = "      |      ^~~~~~" ]; then
  ok "asm error caret"
else bad "asm error caret" "context lines"; fi
[ -e "$T/x.bin" ] && bad "asm error writes nothing" "x.bin exists" || ok "asm error writes nothing"
expect_error "unknown command" "unknown command 'frobnicate'*" "$OVTA" frobnicate
expect_error "unknown option" "unknown option '--nope'*" "$OVTA" asm --nope $D/gemm.s
expect_error "missing file" "$T/none.s: cannot open*" "$OVTA" disasm "$T/none.s"
head -c 40 "$T/g.bin" >"$T/short.bin" 2>/dev/null
expect_error "binary length" "$T/short.bin: 40 bytes is not a whole number of 16-byte instructions*" "$OVTA" disasm "$T/short.bin"
printf '\x13\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00' >"$T/rsv.bin"
expect_error "binary reserved bit" "$T/rsv.bin: instruction 1 (byte offset 16): FINISH: reserved bit 64 is set" "$OVTA" disasm "$T/rsv.bin"
expect_error "config mismatch" "$D/gemm.s: the program is for config 'small' (.config) but --config says 'default'" \
  "$OVTA" asm $D/gemm.s --config default -o "$T/x.bin"
expect_error "unknown config" "no hardware config named 'nosuch'*" "$OVTA" config nosuch

# ---- config
run "$OVTA" config small
if [ $rc -eq 0 ] && grep -q '^  BLOCK_IN  *8$' "$T/out" && grep -q 'uop_bgn\[14:8\]' "$T/out"; then ok "config small"; else bad "config small" "values"; fi
run "$OVTA" config batch2 --json
if [ $rc -eq 0 ] && /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["LOG_BATCH"]==1 and d["derived"]["ACC_BYTES"]==128' <"$T/out" 2>/dev/null; then
  ok "config --json"
else bad "config --json" "json"; fi
run "$OVTA" config --list
if [ $rc -eq 0 ] && grep -q '^default ' "$T/out" && grep -q '^small ' "$T/out" && grep -q '^batch2 ' "$T/out"; then
  ok "config --list"
else bad "config --list" "names"; fi

# ---- sim (needs the fsim backend)
run "$OVTA" sim $D/gemm.s
if grep -q 'not built yet' "$T/err"; then
  echo "[  SKIPPED ] sim: ovta sim is not built yet"
else
  # x = 1..8, row o of w is all o+1: y[o] = 36*(o+1) -> 36 72 108 144 180 216 252 288, low 8 bits signed
  if [ $rc -eq 0 ] && grep -qx 'out+0: 36 72 108 -112 -76 -40 -4 32' "$T/out" && grep -qx '  gemm_uops: 2' "$T/out"; then
    ok "sim gemm"
  else bad "sim gemm" "dump"; fi
  # acc0 + acc1 = 101 -98 10 -3 1005 -994 262 -248; >>1 = 50 -49 5 -2 502 -497 131 -124;
  # max(., -50) = 50 -49 5 -2 502 -50 131 -50; low 8 bits: 50 -49 5 -2 -10 -50 -125 -50
  run "$OVTA" sim $D/alu.s --seed 7 --dump out+4:4:hex --counters json
  if [ $rc -eq 0 ] && grep -qx 'out+0: 50 -49 5 -2 -10 -50 -125 -50' "$T/out" && grep -qx 'out+4: f6 ce 83 ce' "$T/out" &&
    grep -q '"alu_uops":3' "$T/out"; then
    ok "sim alu"
  else bad "sim alu" "dump"; fi
  # the stream inside a program buffer (.insns) and data in hex give the same result
  { sed -n '1,/^\.int8 wgt+48/p' $D/gemm.s | grep -v '^\.int8 inp'; echo '.hex inp 0102030405060708';
    echo '.buffer code 160'; echo '.insns code+32'; sed -n '/^LOAD memory_type=UOP/,$p' $D/gemm.s; } >"$T/insns.s"
  run "$OVTA" sim "$T/insns.s" --counters none
  if [ $rc -eq 0 ] && grep -qx 'out+0: 36 72 108 -112 -76 -40 -4 32' "$T/out" && ! grep -q counters "$T/out"; then
    ok "sim .insns buffer"
  else bad "sim .insns buffer" "dump"; fi
  expect_error "sim deadlock" "*" "$OVTA" sim $D/deadlock.s --config small
  if grep -qi 'deadlock' "$T/err"; then ok "sim deadlock message"; else bad "sim deadlock message" "no 'deadlock'"; fi
  expect_error "sim bad backend" "unknown backend 'nope'*" "$OVTA" sim $D/gemm.s --backend nope
  expect_error "sim bad dump" "--dump 'out:9': bytes [0, 9) are outside buffer 'out' of 8 bytes" "$OVTA" sim $D/gemm.s --dump out:9
  expect_error "sim bad dump buffer" "--dump 'zz:1': the program has no buffer 'zz'" "$OVTA" sim $D/gemm.s --dump zz:1
fi

# A model file whose declared output type (ONNX value_info) is larger than what its Relu makes:
# the executor infers the types itself, so the output is the real 1x4, relu([1,-2,3,-4]).
python3 -c "
import struct
h=\"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 4), }\"
h+=' '*((64-(10+len(h)+1)%64)%64)+'\\n'
open('$T/x4.npy','wb').write(b'\\x93NUMPY\\x01\\x00'+struct.pack('<H',len(h))+h.encode()+struct.pack('<4f',1,-2,3,-4))"
run "$OVTA" run $D/declared_shape_lie.onnx --input x="$T/x4.npy" --output-dir "$T/lie"
if [ $rc -eq 0 ] && python3 -c "
import struct,sys
d=open('$T/lie/y.npy','rb').read()
hl=struct.unpack('<H',d[8:10])[0]; h=d[10:10+hl].decode()
sys.exit(0 if \"'shape': (1, 4)\" in h and d[10+hl:]==struct.pack('<4f',1,0,3,0) else 1)"; then
  ok "run: declared output type not trusted"
else
  bad "run: declared output type not trusted" "exit $rc or y.npy is not [[1, 0, 3, 0]]"
fi

# compile --print-after on tests/filecheck/fold-bn.json (a Conv followed by one
# BatchNormalization): the dump after infer still has the BatchNormalization, after fold-bn not.
run "$OVTA" compile tests/filecheck/fold-bn.json -o "$T/pa.ovta" --print-after=infer,fold-bn
dump_infer=$(sed -n '/^\/\/ after infer/,/^\/\/ after fold-bn/p' "$T/err")
dump_fold=$(sed -n '/^\/\/ after fold-bn/,$p' "$T/err")
if [ $rc -eq 0 ] && echo "$dump_infer" | grep -q 'BatchNormalization(' && [ -n "$dump_fold" ] \
   && ! echo "$dump_fold" | grep -q 'BatchNormalization(' && echo "$dump_fold" | grep -q ' = Conv('; then
  ok "compile --print-after=infer,fold-bn"
else bad "compile --print-after=infer,fold-bn" "exit $rc or the dumps do not show the folding"; fi
run "$OVTA" compile tests/filecheck/fold-bn.json -o "$T/pa2.ovta" --print-after-all
if [ $rc -eq 0 ] && grep -q '^// after dce' "$T/err" && grep -q '^// after fuse' "$T/err"; then ok "compile --print-after-all"
else bad "compile --print-after-all" "exit $rc or a pass dump is missing"; fi
expect_error "compile --print-after unknown pass" "*" "$OVTA" compile models/fmnist/fmnist_cnn.onnx -o "$T/pa3.ovta" --print-after=nosuchpass

# ---- PNG inputs (tools/ovta/image.c): test image 0 of models/fmnist/test_images.npy written as an
# 8-bit gray PNG (zlib + struct) and as a float32 .npy [1,1,28,28] = pixel/255 (the division in
# double rounded once to float32 equals the float32 division). `ovta run` must give bit-identical
# logits from both; a truncated PNG and a non-PNG file are one clean error each.
if /usr/bin/python3 - "$T" <<'PYEOF'
import struct, sys, zlib
t = sys.argv[1]
d = open('models/fmnist/test_images.npy', 'rb').read()
hl = struct.unpack('<H', d[8:10])[0] if d[6] == 1 else struct.unpack('<I', d[8:12])[0]
off = (10 if d[6] == 1 else 12) + hl
hdr = d[off - hl:off].decode('latin1')
assert "'<u1'" in hdr or "'|u1'" in hdr, hdr
px = d[off:off + 28 * 28]
def chunk(k, b):
    return struct.pack('>I', len(b)) + k + b + struct.pack('>I', zlib.crc32(k + b) & 0xffffffff)
raw = b''.join(b'\x00' + px[y * 28:(y + 1) * 28] for y in range(28))
png = (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 28, 28, 8, 0, 0, 0, 0))
       + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
open(t + '/img0.png', 'wb').write(png)
open(t + '/trunc.png', 'wb').write(png[:len(png) // 2])
open(t + '/garbage.png', 'wb').write(b'this is not a PNG image at all\n' * 4)
h = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 28, 28), }"
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
open(t + '/img0.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode()
                                  + struct.pack('<784f', *[p / 255 for p in px]))
PYEOF
then
  run "$OVTA" run models/fmnist/fmnist_cnn.onnx --input image="$T/img0.png" --output-dir "$T/png_out"
  rc_png=$rc
  run "$OVTA" run models/fmnist/fmnist_cnn.onnx --input image="$T/img0.npy" --output-dir "$T/npy_out"
  png_logits=$(ls "$T/png_out"/*.npy 2>/dev/null | head -n1)
  npy_logits=$(ls "$T/npy_out"/*.npy 2>/dev/null | head -n1)
  if [ "$rc_png" -eq 0 ] && [ $rc -eq 0 ] && [ -n "$png_logits" ] && [ -n "$npy_logits" ] \
     && cmp -s "$png_logits" "$npy_logits"; then
    ok "run: --input FILE.png = the same image as float .npy (bit-identical logits)"
  else bad "run: --input FILE.png = the same image as float .npy (bit-identical logits)" "exit $rc_png/$rc or logits differ"; fi
  expect_error "run: truncated PNG" "$T/trunc.png: bad PNG: *" \
    "$OVTA" run models/fmnist/fmnist_cnn.onnx --input image="$T/trunc.png" --output-dir "$T/bad_out"
  expect_error "run: non-PNG file named .png" "$T/garbage.png: not a PNG file*" \
    "$OVTA" run models/fmnist/fmnist_cnn.onnx --input image="$T/garbage.png" --output-dir "$T/bad_out"
  # the CPU kernels' parallel loops: every output computed by one thread in the same order, so
  # the outputs are bit-identical for any --threads (the CNN, and MobileNetV2's depthwise and
  # pointwise convs); --repeat prints the timings
  for m in fmnist/fmnist_cnn fmnist_mbv2/fmnist_mbv2; do
    run "$OVTA" run models/$m.onnx --input image="$T/img0.npy" --output-dir "$T/t1" --threads 1; rc1=$rc
    run "$OVTA" run models/$m.onnx --input image="$T/img0.npy" --output-dir "$T/t2" --threads 2 --repeat 3; rc2=$rc
    t1=$(ls "$T/t1"/*.npy 2>/dev/null | head -n1) t2=$(ls "$T/t2"/*.npy 2>/dev/null | head -n1)
    if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ -n "$t1" ] && [ -n "$t2" ] && cmp -s "$t1" "$t2" &&
       grep -q '^time per run: .* (3 runs, 2 threads); median .* us, CPU time median .* us$' "$T/out"; then
      ok "run $m: --threads 1 and 2 give bit-identical outputs"
    else bad "run $m: --threads 1 and 2 give bit-identical outputs" "exit $rc1/$rc2 or outputs differ"; fi
    rm -rf "$T/t1" "$T/t2"
  done
  expect_error "run --threads 0" "--threads needs 1..64*" "$OVTA" run models/fmnist/fmnist_cnn.onnx --input image="$T/img0.npy" --threads 0
else
  bad "PNG inputs" "could not write the test PNG with /usr/bin/python3"
fi

# -vv dumps the runtime's instruction streams in the assembler's text form: the shipped model on
# fsim runs 3 convs and a dense layer as GEMMs, so GEMM lines appear, and none without -vv.
run "$OVTA" compile models/fmnist/fmnist_cnn.onnx --target accel --calib models/fmnist/calib_images.npy -o "$T/vv.ovta"
/usr/bin/python3 -c "
import numpy as np
x=np.load('models/fmnist/test_images.npy')[:1].astype(np.float32)/255.0
np.save('$T/img1.npy', x.reshape(1,1,28,28))" 2>/dev/null
run "$OVTA" -vv run "$T/vv.ovta" --backend fsim --input image="$T/img1.npy" --output-dir "$T/vv"
n_gemm=$(grep -c '^GEMM ' "$T/err")
run "$OVTA" run "$T/vv.ovta" --backend fsim --input image="$T/img1.npy" --output-dir "$T/vv0"
if [ "$n_gemm" -ge 4 ] && ! grep -q '^GEMM ' "$T/err" && cmp -s "$T/vv/logits.npy" "$T/vv0/logits.npy"; then
  ok "-vv dumps instruction streams, same result"
else bad "-vv dumps instruction streams, same result" "$n_gemm GEMM lines with -vv"; fi

# ---- compile for another machine (a board's ARM cores): the object file is that machine's (ELF
# e_machine, offset 18: 183 AArch64, 40 ARM, 62 x86-64, from the ELF specification), the plan records
# the target, and running it here is refused with one line naming both machines.
elf_machine() { od -An -tu2 -j18 -N2 "$1" 2>/dev/null | tr -d ' '; }
run "$OVTA" compile models/fmnist/fmnist_cnn.onnx --target accel --calib models/fmnist/calib_images.npy --config pynq-z2 \
  --triple aarch64-linux-gnu --mcpu cortex-a53 -o "$T/a64.ovta"
if [ $rc -eq 0 ] && [ "$(elf_machine "$T/a64.ovta/kernels.o")" = 183 ] && [ "$(elf_machine "$T/a64.ovta/kernels.so")" = 183 ] && grep -q '"triple":.*"aarch64-unknown-linux-gnu"' "$T/a64.ovta/plan.json" &&
  grep -q 'cortex-a53' "$T/a64.ovta/plan.json"; then ok "compile --triple aarch64: AArch64 object and kernels.so, target recorded"
else bad "compile --triple aarch64: AArch64 object and kernels.so, target recorded" "rc $rc, e_machine $(elf_machine "$T/a64.ovta/kernels.o")"; fi
run "$OVTA" compile models/fmnist/fmnist_cnn.onnx --target accel --calib models/fmnist/calib_images.npy --config pynq-z2 \
  --triple armv7a-linux-gnueabihf --mcpu cortex-a9 -o "$T/a32.ovta"
if [ $rc -eq 0 ] && [ "$(elf_machine "$T/a32.ovta/kernels.o")" = 40 ] && [ "$(elf_machine "$T/a32.ovta/kernels.so")" = 40 ]; then
  ok "compile --triple armv7a: ARM object and kernels.so"
else bad "compile --triple armv7a: ARM object and kernels.so" "rc $rc, e_machine $(elf_machine "$T/a32.ovta/kernels.o")"; fi
if [ "$(elf_machine "$T/vv.ovta/kernels.o")" = "$(case "$(uname -m)" in x86_64) echo 62;; aarch64) echo 183;; *) echo "?";; esac)" ]; then
  ok "compile without --triple: this machine's object"
else bad "compile without --triple: this machine's object" "e_machine $(elf_machine "$T/vv.ovta/kernels.o")"; fi
if [ "$(uname -m)" = x86_64 ]; then
  expect_error "run a plan for another machine" "*compiled for aarch64-unknown-linux-gnu, this machine is x86_64*" \
    "$OVTA" run "$T/a64.ovta" --backend fsim --input image="$T/img1.npy" --output-dir "$T/a64out"
fi
expect_error "compile --triple unknown" "*no target for nosuch-unknown-linux*" "$OVTA" compile models/fmnist/fmnist_cnn.onnx --target accel \
  --calib models/fmnist/calib_images.npy --triple nosuch-unknown-linux -o "$T/x.ovta"
# a plan compiled for a CPU feature this machine lacks is refused at load, not run into SIGILL
cp -r "$T/vv.ovta" "$T/feat.ovta"
sed -i 's/"features":[[:space:]]*"/&+ovtanosuchfeature,/' "$T/feat.ovta/plan.json"
plan_reseal "$T/feat.ovta"
expect_error "run a plan needing a CPU feature this machine lacks" "*compiled for a CPU with ovtanosuchfeature, which this machine lacks" \
  "$OVTA" run "$T/feat.ovta" --backend fsim --input image="$T/img1.npy" --output-dir "$T/featout"

# ---- symbolic input dims (tests/compiler/data/shape_dyn.onnx: x is [batch,3,height,width], the
# model computes its Reshape's shape with Shape -> Gather -> Unsqueeze -> Concat; made by
# tests/compiler/data/gen_shape_model.py, which also wrote the input and numpy's output).
S=tests/compiler/data
expect_error "compile: symbolic dims not given" "*node 'Reshape_7' (Reshape): input 1 'shape' must be a constant (the graph inputs have symbolic dims*" \
  "$OVTA" compile $S/shape_dyn.onnx -o "$T/dyn0.ovta"
run "$OVTA" compile $S/shape_dyn.onnx --input-shape x=1x3x8x8 -o "$T/dyn.ovta"
if [ $rc -eq 0 ] && grep -q '"shape":[[:space:]]*\[1, 3, 8, 8\]' "$T/dyn.ovta/plan.json"; then
  ok "compile --input-shape binds the symbolic dims (plan.json records 1x3x8x8)"
else bad "compile --input-shape binds the symbolic dims (plan.json records 1x3x8x8)" "exit $rc"; fi
run "$OVTA" run "$T/dyn.ovta" --input x=$S/shape_dyn_x.npy --output-dir "$T/dynout"
run2_rc=$rc
run "$OVTA" run $S/shape_dyn.onnx --input x=$S/shape_dyn_x.npy --output-dir "$T/dynout2"
pycheck "run: a model with symbolic dims and a shape subgraph = numpy (compiled folder and model file)" "
import sys, numpy as np
ok = $run2_rc == 0 and $rc == 0
if ok:
    want = np.load('$S/shape_dyn_y.npy')
    for d in ('$T/dynout', '$T/dynout2'):
        got = np.load(d + '/y.npy')
        ok = ok and got.shape == (1, 5) and np.abs(got - want).max() <= 1e-5
print('ok' if ok else 'outputs differ or a run failed')"
expect_error "compile --input-shape contradicting a static dim" \
  "--input-shape x=1x4x8x8: input x of the model has shape ?x3x?x? (only its symbolic dims can be set)" \
  "$OVTA" compile $S/shape_dyn.onnx --input-shape x=1x4x8x8 -o "$T/dyn2.ovta"
expect_error "compile --input-shape of no input" "--input-shape y=1x5: the model has no input named y" \
  "$OVTA" compile $S/shape_dyn.onnx --input-shape y=1x5 -o "$T/dyn2.ovta"
expect_error "compile --input-shape malformed" "--input-shape x=1x3xx8: the shape must be dims separated by 'x'*" \
  "$OVTA" compile $S/shape_dyn.onnx --input-shape x=1x3xx8 -o "$T/dyn2.ovta"
"$PY" -c "import numpy as np; np.save('$T/x98.npy', np.zeros((1, 3, 9, 8), np.float32))" 2>/dev/null
expect_error "run: an input of another shape than compiled" \
  "$T/x98.npy: input x: shape 1x3x9x8 given, the model was compiled for 1x3x8x8" \
  "$OVTA" run "$T/dyn.ovta" --input x="$T/x98.npy" --output-dir "$T/dynout3"
"$PY" -c "import numpy as np; np.save('$T/x48.npy', np.zeros((1, 4, 8, 8), np.float32))" 2>/dev/null
expect_error "run: a model file with an array contradicting a static dim" "*shape 1x4x8x8 does not match input x of*" \
  "$OVTA" run $S/shape_dyn.onnx --input x="$T/x48.npy" --output-dir "$T/dynout4"

# ovta eval binds the symbolic dims from the images (and quantizes through the folded shape subgraph)
"$PY" -c "
import numpy as np
np.save('$T/dimgs.npy', (np.random.default_rng(2).random((4, 3, 8, 8)) * 255).astype(np.uint8))
np.save('$T/dlab.npy', np.array([0, 1, 2, 3], np.int64))" 2>/dev/null
run "$OVTA" eval $S/shape_dyn.onnx --images "$T/dimgs.npy" --labels "$T/dlab.npy" --backend cpu --quiet
if [ $rc -eq 0 ] && grep -q 'input x \[1x3x8x8\] f32' "$T/out" && grep -q '2 of 2 conv/dense layers int8' "$T/out"; then
  ok "eval: a model with symbolic dims takes them from the images"
else bad "eval: a model with symbolic dims takes them from the images" "exit $rc"; fi

# Softmax-11 (axis 1) on [N,3,4] with N symbolic (tests/compiler/data/softmax_opset11_dyn.onnx):
# imported as Flatten -> Softmax -> Reshape(Shape(x)), the Shape folding once N is bound.
"$PY" -c "import numpy as np; np.save('$T/sm.npy', np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32))" 2>/dev/null
run "$OVTA" compile $S/softmax_opset11_dyn.onnx --input-shape x=2x3x4 -o "$T/sm.ovta"
sm1=$rc
run "$OVTA" run "$T/sm.ovta" --input x="$T/sm.npy" --output-dir "$T/smout"
pycheck "run: Softmax-11 with a symbolic dim (compile --input-shape) = numpy" "
import numpy as np
ok = $sm1 == 0 and $rc == 0
if ok:
    x = np.load('$T/sm.npy').reshape(2, 12).astype(np.float64)
    e = np.exp(x - x.max(1, keepdims=True))
    ok = np.abs(np.load('$T/smout/y.npy') - (e / e.sum(1, keepdims=True)).reshape(2, 3, 4)).max() <= 1e-6
print('ok' if ok else 'outputs differ or a step failed')"

# ---- the DRAM model's timing from the command line (tsim): the semantics are tested in
# tests/tsim/test_tsim.c (test_dram_model); here the options reach the model and bad values are refused
cyc() { grep -o '"cycles":[0-9]*' "$T/out" | head -n1 | cut -d: -f2; }
run "$OVTA" sim $D/gemm.s --backend tsim --counters json; c0=$(cyc)
run "$OVTA" sim $D/gemm.s --backend tsim --counters json --dram-latency 132,116; c1=$(cyc)
run "$OVTA" sim $D/gemm.s --backend tsim --counters json --dram-bw 1/16; c2=$(cyc)
if [ -n "$c0" ] && [ -n "$c1" ] && [ -n "$c2" ] && [ "$c1" -ge $((c0 + 300)) ] && [ "$c2" -gt "$c0" ]; then
  ok "sim --dram-latency / --dram-bw change tsim's cycles"
else bad "sim --dram-latency / --dram-bw change tsim's cycles" "cycles $c0, $c1, $c2"; fi
expect_error "sim --dram-bw above one beat per cycle" "--dram-bw '2'*" "$OVTA" sim $D/gemm.s --backend tsim --dram-bw 2
expect_error "sim --dram-latency 0" "--dram-latency '0'*" "$OVTA" sim $D/gemm.s --backend tsim --dram-latency 0

finish
