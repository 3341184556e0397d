#!/usr/bin/env bash
# Remote runs over loopback (plan/ovta_remote.h): `ovta-rt serve` and `ovta run|profile
# --remote`. The shipped Fashion-MNIST model compiled for the cpu (fp32) and the accelerator
# (int8): remote outputs byte-identical to local `ovta run` (cpu and fsim backends), --stats and
# the profile the same as local, a plan sent once (the server's log and the client's note), the
# token required (bad token, missing or group-readable token file), hostile frames answered with
# an error while the server keeps serving (bad magic, unknown type, broken JSON, oversized
# frames, a path escape, a lying hash), a client dropping mid-upload or stalling, two concurrent
# clients queued; and the cross-built aarch64 ovta-rt serving under qemu-user.
# Usage: tests/remote/test_remote.sh BUILD_DIR. Prints cmocka-style lines.
set -u
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
OVTA=$B/ovta
RT=$B/ovta-rt
M=models/fmnist
RAW=tests/remote/rawclient.py
export OVTA_TSIM_DIR=$B/tsim
SERVERS=()
trap 'for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT

echo "[==========] Running remote-run tests."

printf 'token-%s-%s\n' "$RANDOM" "$$" >"$T/token"
chmod 600 "$T/token"
"$PY" -c "
import numpy as np
x = np.load('$M/test_images.npy')[:2].astype(np.float32) / 255.0
np.save('$T/img0.npy', x[:1].reshape(1, 1, 28, 28)); np.save('$T/img1.npy', x[1:2].reshape(1, 1, 28, 28))"
run "$OVTA" compile $M/fmnist_cnn.onnx --input-shape image=1x1x28x28 -o "$T/cpu.ovta"
rc1=$rc
run "$OVTA" compile $M/fmnist_cnn.onnx --target accel --calib $M/calib_images.npy -o "$T/acc.ovta"
rc2=$rc
run "$OVTA" run "$T/cpu.ovta" --input image="$T/img0.npy" --output-dir "$T/ref-cpu"
rc3=$rc
run "$OVTA" run "$T/acc.ovta" --backend fsim --stats --input image="$T/img0.npy" --output-dir "$T/ref-acc"
grep '^node ' "$T/out" >"$T/ref-acc.stats"
if [ $rc1$rc2$rc3$rc = 0000 ] && [ -s "$T/ref-cpu/logits.npy" ] && [ -s "$T/ref-acc/logits.npy" ]; then
  ok "local references (cpu fp32, accelerator int8 on fsim)"
else bad "local references (cpu fp32, accelerator int8 on fsim)" "rc $rc1/$rc2/$rc3/$rc"; fi

# start_server NAME ARGS...: ovta-rt serve on a free loopback port; $ADDR, $SPID, log $T/NAME.log
start_server() {
  local name=$1
  shift
  "$@" --listen 127.0.0.1:0 --token-file "$T/token" --work-dir "$T/work-$name" 2>"$T/$name.log" &
  SPID=$!
  SERVERS+=("$SPID")
  ADDR=""
  for _ in $(seq 300); do
    ADDR=$(sed -n 's/^ovta-rt serve: listening on \([^ ]*\) .*/\1/p' "$T/$name.log")
    [ -n "$ADDR" ] && break
    kill -0 "$SPID" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$ADDR" ]
}
# same NAME OUT REF: OUT/logits.npy byte-identical to REF/logits.npy
same() {
  if [ $rc -eq 0 ] && [ -s "$2/logits.npy" ] && cmp -s "$2/logits.npy" "$3/logits.npy"; then ok "$1"
  else bad "$1" "rc $rc, logits differ from the local run's or missing"; fi
}
alive() { # alive NAME: the server still runs and serves a run
  run "$OVTA" run "$T/cpu.ovta" --remote "$ADDR" --token-file "$T/token" --input image="$T/img0.npy" --output-dir "$T/alive"
  same "$1" "$T/alive" "$T/ref-cpu"
  rm -rf "$T/alive"
}

# ---- the token file
cp "$T/token" "$T/token644" && chmod 644 "$T/token644"
ERR_TOOL=ovta-rt expect_error "serve: a token file readable by others is refused" \
  "--token-file $T/token644: readable or writable by others (mode 644): chmod 600 it" \
  "$RT" serve --token-file "$T/token644" --work-dir "$T/w0" --max-sessions 1
run "$RT" serve --work-dir "$T/w0"
if [ $rc -eq 2 ] && grep -q 'error: --token-file FILE is required' "$T/err"; then ok "serve: no token file is refused"
else bad "serve: no token file is refused" "rc $rc"; fi

# without --listen: loopback only (127.0.0.1:9091; if the port is taken here, the error names it)
"$RT" serve --token-file "$T/token" --work-dir "$T/w-default" 2>"$T/default.log" &
dpid=$!
for _ in $(seq 50); do grep -q 'listening on\|error:' "$T/default.log" && break; sleep 0.1; done
kill "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null
if grep -q '^ovta-rt serve: listening on 127.0.0.1:9091 \|^ovta-rt: error: --listen 127.0.0.1:9091: ' "$T/default.log"; then
  ok "listens on loopback by default"
else bad "listens on loopback by default" "$(cat "$T/default.log")"; fi

if ! start_server main "$RT" serve --timeout 1 --max-session-bytes 40000000; then
  bad "server starts" "$(cat "$T/main.log")"
  finish
fi
ok "server listens on loopback ($ADDR)"

# ---- runs: remote = local, byte for byte; the plan sent once
run "$OVTA" run "$T/cpu.ovta" --remote "$ADDR" --token-file "$T/token" --input image="$T/img0.npy" --output-dir "$T/r-cpu"
same "cpu plan (fp32): remote = local" "$T/r-cpu" "$T/ref-cpu"
grep -q 'plan sent' "$T/err" && ok "first run sends the plan" || bad "first run sends the plan" "no note"
run "$OVTA" run "$T/cpu.ovta" --remote "$ADDR" --token-file "$T/token" --input image="$T/img0.npy" --output-dir "$T/r-cpu2"
same "cpu plan again: remote = local" "$T/r-cpu2" "$T/ref-cpu"
n_recv=$(grep -c 'received (' "$T/main.log")
n_cached=$(grep -c 'cached: not sent again' "$T/main.log")
if grep -q 'plan already there, not sent' "$T/err" && [ "$n_recv" -eq 1 ] && [ "$n_cached" -eq 1 ]; then
  ok "second run does not send the plan again (server: 1 received, 1 cached)"
else bad "second run does not send the plan again" "received $n_recv, cached $n_cached"; fi

# a kept plan damaged on the server: refused once and dropped, then sent again
kept=$(ls -d "$T"/work-main/plans/*/ | head -1)
printf 'x' >>"$kept/params.bin"
run "$OVTA" run "$T/cpu.ovta" --remote "$ADDR" --token-file "$T/token" --input image="$T/img0.npy" --output-dir "$T/x"
if [ $rc -eq 1 ] && grep -q "error: $ADDR: .*params.bin: damaged" "$T/err" && [ ! -d "$kept" ]; then
  ok "a plan damaged on the server is refused and dropped"
else bad "a plan damaged on the server is refused and dropped" "rc $rc"; fi
run "$OVTA" run "$T/cpu.ovta" --remote "$ADDR" --token-file "$T/token" --input image="$T/img0.npy" --output-dir "$T/r-cpu3"
same "then it is sent again and runs" "$T/r-cpu3" "$T/ref-cpu"

run "$OVTA" run "$T/acc.ovta" --remote "$ADDR" --token-file "$T/token" --backend fsim --stats --input image="$T/img0.npy" \
  --output-dir "$T/r-acc"
grep '^node ' "$T/out" >"$T/r-acc.stats"
same "accelerator plan (int8) on fsim: remote = local" "$T/r-acc" "$T/ref-acc"
if [ -s "$T/r-acc.stats" ] && cmp -s "$T/r-acc.stats" "$T/ref-acc.stats" && [ "$(grep -c ': accel,' "$T/r-acc.stats")" -eq 7 ]; then
  ok "--stats: the same counters as local (7 accelerator nodes)"
else bad "--stats: the same counters as local" "$(diff "$T/r-acc.stats" "$T/ref-acc.stats" | head -4)"; fi

expect_error "a run error comes back as one line" "$ADDR: the plan runs 7 node(s) on the accelerator: --backend cpu cannot run it" \
  "$OVTA" run "$T/acc.ovta" --remote "$ADDR" --token-file "$T/token" --backend cpu --input image="$T/img0.npy" --output-dir "$T/x"

# profile: the same JSON as local but the times
run "$OVTA" profile "$T/acc.ovta" --backend fsim --input image="$T/img1.npy" --json
cp "$T/out" "$T/prof-local.json"
run "$OVTA" profile "$T/acc.ovta" --remote "$ADDR" --token-file "$T/token" --backend fsim --input image="$T/img1.npy" --json
cp "$T/out" "$T/prof-remote.json"
pycheck "profile --remote: the same layers and counters as local" '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def strip(o):
    if isinstance(o, dict): return {k: strip(v) for k, v in o.items() if k not in ("time_us", "model")}
    if isinstance(o, list): return [strip(v) for v in o]
    return o
n = len(a["layers"])
print("ok" if n > 7 and a["accel_layers"] == 7 and strip(a) == strip(b) else "differ: %d layers" % n)' \
  "$T/prof-local.json" "$T/prof-remote.json"
run "$OVTA" profile "$T/acc.ovta" --remote "$ADDR" --token-file "$T/token" --backend fsim --input image="$T/img1.npy"
if [ $rc -eq 0 ] && grep -q '^ovta profile: .* on fsim (config' "$T/out" && grep -q '^accelerator: 7 layer(s)' "$T/out"; then
  ok "profile --remote prints the table"
else bad "profile --remote prints the table" "rc $rc"; fi

# eval: the int8 model compiled here, run there image by image: the same scores as local
ev=(eval $M/fmnist_cnn.onnx --images $M/test_images.npy --labels $M/test_labels.npy --count 20 --backend fsim --json --quiet)
run "$OVTA" "${ev[@]}"
cp "$T/out" "$T/eval-local.json"
run "$OVTA" "${ev[@]}" --remote "$ADDR" --token-file "$T/token"
cp "$T/out" "$T/eval-remote.json"
pycheck "eval --remote: the int8 model on the server scores as local (20 images)" '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
keys = lambda d: (d["int8"]["correct"], d["int8"]["accel_nodes"], d["int8"]["accel_macs_per_image"], d["fp32"]["correct"],
                  d["int8_vs_fp32"])
print("ok" if a["count"] == 20 and a["int8"]["accel_nodes"] == 7 and keys(a) == keys(b) else "differ: %s %s" % (keys(a), keys(b)))' \
  "$T/eval-local.json" "$T/eval-remote.json"

# the tsim timeline: recorded by the server's tsim, brought back: the same as a local profile's
if [ -f "$B/tsim/default/libovta_tsim.so" ]; then
  run "$OVTA" profile "$T/acc.ovta" --backend tsim --input image="$T/img1.npy" --json --trace-json "$T/tl-local.json"
  cp "$T/out" "$T/prof-tsim-local.json"
  run "$OVTA" profile "$T/acc.ovta" --remote "$ADDR" --token-file "$T/token" --backend tsim --input image="$T/img1.npy" --json \
    --trace-json "$T/tl-remote.json"
  cp "$T/out" "$T/prof-tsim-remote.json"
  pycheck "profile --remote --backend tsim: the same cycles and the same timeline as local" '
import json, sys
a, b, ta, tb = (json.load(open(f)) for f in sys.argv[1:5])
ev = lambda t: t["traceEvents"] if isinstance(t, dict) else t
cyc = lambda p: [l["cycles"] for l in p["layers"]]
ok = a["totals"]["cycles"] and cyc(a) == cyc(b) and len(ev(ta)) > 100 and ev(ta) == ev(tb)
print("ok" if ok else "differ: cycles %s / %s, %d / %d events" % (a["totals"]["cycles"], b["totals"]["cycles"], len(ev(ta)), len(ev(tb))))' \
    "$T/prof-tsim-local.json" "$T/prof-tsim-remote.json" "$T/tl-local.json" "$T/tl-remote.json"
else skip "profile --remote --backend tsim" "$B/tsim/default/libovta_tsim.so is not built"; fi

# ---- the token
printf 'not-the-token\n' >"$T/badtok" && chmod 600 "$T/badtok"
expect_error "a wrong token is refused" "$ADDR: refused: bad token" \
  "$OVTA" run "$T/cpu.ovta" --remote "$ADDR" --token-file "$T/badtok" --input image="$T/img0.npy" --output-dir "$T/x"
expect_error "a client without a token file" "--remote needs --token-file FILE*" \
  "$OVTA" run "$T/cpu.ovta" --remote "$ADDR" --input image="$T/img0.npy" --output-dir "$T/x"
expect_error "a client's token file readable by others" "--token-file $T/token644: readable or writable by others*" \
  "$OVTA" run "$T/cpu.ovta" --remote "$ADDR" --token-file "$T/token644" --input image="$T/img0.npy" --output-dir "$T/x"
expect_error "a missing token file" "--token-file $T/nope: No such file or directory" \
  "$OVTA" run "$T/cpu.ovta" --remote "$ADDR" --token-file "$T/nope" --input image="$T/img0.npy" --output-dir "$T/x"

# ---- hostile and broken frames: an error reply each, the server serves on
port=${ADDR##*:}
raw() { # raw NAME CASE EXPECTED_PREFIX [PLAN]
  local got
  got=$("$PY" "$RAW" "$port" "$T/token" "$2" ${4:+"$4"} 2>&1)
  if [[ "$got" == "$3"* ]]; then ok "$1"; else bad "$1" "reply '$got', expected '$3...'"; fi
}
raw "bad magic" bad-magic "ERR not an ovta remote frame (bad magic)"
raw "unknown frame type" unknown-type "ERR unknown frame type 'EVIL'"
raw "broken JSON" bad-json "ERR HELO frame: not a JSON object"
raw "a request before HELO" no-hello "ERR refused: HELO with the token first"
raw "a data frame before HELO is refused by its size" file-before-hello "ERR frame FILE of 104857600 bytes is over its limit of 0"
raw "a wrong token (raw)" wrong-token "ERR refused: bad token"
raw "an oversized control frame" oversized-json "ERR frame PLAN of 1048576 bytes is over its limit of 65536"
raw "an oversized file frame (4 GiB declared)" oversized-file "ERR frame FILE of 4294967295 bytes is over its limit"
raw "a path escape in a file name" path-escape "ERR FILE frame: '../../escaped.json' is not a plain file name"
if [ ! -e "$T/escaped.json" ] && [ ! -e "$T/work-main/escaped.json" ]; then ok "nothing written outside the session folder"
else bad "nothing written outside the session folder" "escaped.json exists"; fi
raw "a file name not of a plan" absolute-name "ERR PLAN: '/tmp/x' is not a plan file"
raw "a tensor whose bytes do not fit its shape" bad-tensor "ERR tensor x: 15 data bytes for its shape"
raw "a plan whose hash lies" wrong-hash "ERR plan.json's hash is" "$T/cpu.ovta"
if [ ! -d "$T/work-main/plans/00000000000000ff" ]; then ok "the lying plan is not kept"; else bad "the lying plan is not kept" "kept"; fi
raw "plan files over the session's byte limit" session-files "ERR PLAN: 50331648 bytes of files, over the session limit of 40000000 (--max-session-bytes)"
raw "inputs over the session's byte limit (a resent input replaces its value)" session-inputs "ERR INPT y: 48000000 bytes held with it, over the session limit of 40000000" "$T/cpu.ovta"
alive "the server serves on after the hostile frames"

# ---- dropped and stalled clients
raw "a client dropping mid-upload" drop-mid-file "sent"
alive "then another client runs"
"$PY" "$RAW" "$port" "$T/token" stall >"$T/stall.out" 2>&1 &
stall=$!
sleep 0.3
run "$OVTA" run "$T/cpu.ovta" --remote "$ADDR" --token-file "$T/token" --input image="$T/img0.npy" --output-dir "$T/r-after-stall"
wait $stall
same "a client queued behind a stalled one runs once the stalled one times out" "$T/r-after-stall" "$T/ref-cpu"
if grep -q '^closed after' "$T/stall.out" && grep -q 'ended: receive: timed out' "$T/main.log"; then ok "the stalled session ends at the timeout"
else bad "the stalled session ends at the timeout" "$(cat "$T/stall.out")"; fi

# ---- two clients at once: both queued on the device, both right
"$OVTA" run "$T/acc.ovta" --remote "$ADDR" --token-file "$T/token" --input image="$T/img0.npy" --output-dir "$T/c1" >"$T/c1.out" 2>&1 &
c1=$!
"$OVTA" run "$T/cpu.ovta" --remote "$ADDR" --token-file "$T/token" --input image="$T/img1.npy" --output-dir "$T/c2" >"$T/c2.out" 2>&1 &
c2=$!
wait $c1; r1=$?
wait $c2; r2=$?
run "$OVTA" run "$T/cpu.ovta" --input image="$T/img1.npy" --output-dir "$T/ref-cpu1"
rc=$((r1 + r2))
same "two concurrent clients: the first right" "$T/c1" "$T/ref-acc"
same "two concurrent clients: the second right" "$T/c2" "$T/ref-cpu1"
# one session at a time: each session's log lines come before the next session starts
pycheck "sessions one at a time on the device (the log never interleaves)" '
import re, sys
cur, seen, bad = None, set(), []
for line in open(sys.argv[1]):
    m = re.match(r"ovta-rt serve: session (\d+): (.*)", line)
    if not m: continue
    n = int(m.group(1))
    if m.group(2).startswith("from "):
        seen.add(cur); cur = n
    elif n != cur or n in seen: bad.append(line.strip())
print("ok" if not bad and len(seen) >= 20 else "interleaved: %s (%d sessions)" % (bad[:2], len(seen)))' "$T/main.log"
if ! ls "$T/work-main/sessions" | grep -q .; then ok "no session folder left behind"
else bad "no session folder left behind" "$(ls "$T/work-main/sessions")"; fi
kill "$SPID" 2>/dev/null

# ---- the server under qemu-user: the cross-built aarch64 ovta-rt (--threads 1: bookworm's
# qemu-user cannot create threads or fork in dynamically linked ARM programs, boards/README.md)
QRT=build-aarch64/ovta-rt
why=""
[ -x "$QRT" ] || why="$QRT is not built (make cross ARCH=aarch64)"
[ -z "$why" ] && ! command -v qemu-aarch64 >/dev/null && why="qemu-aarch64 is not installed (qemu-user)"
[ -z "$why" ] && [ ! -d /usr/aarch64-linux-gnu/lib ] && why="/usr/aarch64-linux-gnu/lib is missing"
if [ -n "$why" ]; then
  skip "aarch64 server under qemu-user" "$why"
else
  run "$OVTA" compile $M/fmnist_cnn.onnx --input-shape image=1x1x28x28 --triple aarch64-linux-gnu --mcpu cortex-a53 -o "$T/a64.ovta"
  # --in-process: fork, like pthread_create, hangs in dynamically linked ARM programs under
  # bookworm's qemu-user 7.2
  if start_server qemu qemu-aarch64 -L /usr/aarch64-linux-gnu "$QRT" serve --in-process --threads 1 --max-sessions 1; then
    run "$OVTA" run "$T/a64.ovta" --remote "$ADDR" --token-file "$T/token" --input image="$T/img0.npy" --output-dir "$T/r-a64"
    same "aarch64 ovta-rt under qemu serves the host's client (fp32 plan = host)" "$T/r-a64" "$T/ref-cpu"
    wait "$SPID" 2>/dev/null
  else bad "aarch64 server under qemu starts" "$(cat "$T/qemu.log")"; fi
fi

finish
