#!/usr/bin/env bash
# Faults from the command line and processes killed mid-run (hw/sim/README.md, "Faults"):
#   * `ovta sim --backend tsim --fault KIND@N` and $OVTA_TSIM_FAULT: one `ovta: error:` line naming
#     the instruction and unit, exit status non-zero; a stall past --timeout: the diagnosis;
#   * SIGKILL of a vboard client (`ovta sim --backend vboard`, and `--backend zynq` talking to an
#     ovta-vboard server) mid-run leaves nothing in the board folder's parent, and the server
#     still gives the right bytes to the next client;
#   * SIGKILL of the server leaves its folder (it cannot help it); the next server start removes
#     it, says so, and serves; SIGTERM leaves nothing.
# The boards live in a private folder ($OVTA_VBOARD_DIR), so other users of /dev/shm do not
# matter; /dev/shm itself is checked for ovta-vboard-* folders this test made.
# Usage: tests/tsim/test_faults_kill.sh BUILD_DIR. Prints cmocka-style lines.
set -u
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
export OVTA_TSIM_DIR=$B/tsim
echo "[==========] Running fault and kill tests."

# a program the small config runs for seconds on tsim (long enough to kill it mid-run):
# tests/cli/gemm.s with 80 GEMMs of 64,000 micro-ops each (into accumulators it resets later)
# after its loads
for _ in $(seq 80); do echo "GEMM uop_bgn=0 uop_end=1 iter_out=8000 iter_in=8"; done >"$T/gemms"
sed "/^LOAD memory_type=WGT/r $T/gemms" tests/cli/gemm.s >"$T/long.s"
want='out+0: 36 72 108 -112 -76 -40 -4 32'

# ---- faults from the command line and the environment
expect_error "cli: --fault rresp@2 names the instruction and unit" \
  "tsim: instruction 0 (LOAD, compute): AXI read error response SLVERR (burst at 0x*); the units stopped; device reset" \
  "$B/ovta" sim tests/cli/gemm.s --backend tsim --fault rresp@2
OVTA_TSIM_FAULT=bresp@1=decerr expect_error "env: OVTA_TSIM_FAULT=bresp@1=decerr" \
  "tsim: instruction 5 (STORE, store): AXI write error response DECERR*" \
  "$B/ovta" sim tests/cli/gemm.s --backend tsim
expect_error "cli: a stall past --timeout gives the diagnosis" \
  "tsim: timeout (wall-time limit) after * cycles: fetch: *retired*; load *; compute *; store *; AXI: * read bursts outstanding (oldest: * held back by the DRAM)*; device reset*" \
  "$B/ovta" sim tests/cli/gemm.s --backend tsim --fault stall@2:100000000 --timeout 300
expect_error "cli: a bad fault spec" "*fault 'rresp@0': bursts are counted from 1*" \
  "$B/ovta" sim tests/cli/gemm.s --backend tsim --fault rresp@0
expect_error "cli: fsim (no memory bus) refuses --fault" "*only the tsim model's DRAM injects faults*not backend fsim" \
  "$B/ovta" sim tests/cli/gemm.s --backend fsim --fault rresp@1
run "$B/ovta" sim tests/cli/gemm.s --backend tsim --fault stall@1:2000
if [ $rc -eq 0 ] && grep -qF "$want" "$T/out"; then ok "cli: a short stall only delays the run"
else bad "cli: a short stall only delays the run" "rc $rc"; fi

# ---- processes killed with SIGKILL
VB=$T/shm
mkdir -p "$VB"
export OVTA_VBOARD_DIR=$VB
shm_before=$(ls -d /dev/shm/ovta-vboard-* 2>/dev/null | sort)

# kill_mid NAME CMD...: start CMD, SIGKILL it once it has run 0.5 s (still running), wait for it
kill_mid() {
  local name=$1
  shift
  "$@" >"$T/k.out" 2>"$T/k.err" &
  local pid=$!
  sleep 0.5
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    return 0
  fi
  wait "$pid" 2>/dev/null
  bad "$name" "the run ended before it could be killed"
  return 1
}

# an in-process board (the vboard backend): its files go as soon as both sides opened them
if kill_mid "vboard client killed" "$B/ovta" sim "$T/long.s" --backend vboard --counters none; then
  left=$(ls -A "$VB")
  if [ -z "$left" ]; then ok "vboard backend killed mid-run: nothing left in the board folder's parent"
  else bad "vboard backend killed mid-run: nothing left" "left: $left"; fi
fi

# a board server and a zynq client
# start_server N: a server in the background; sets spidN (its pid) and dirN (its folder)
start_server() {
  "$B/ovta-vboard" --config small >"$T/vb$1.out" 2>"$T/vb$1.err" &
  eval "spid$1=$!"
  for _ in $(seq 100); do grep -qs serving "$T/vb$1.out" && break; sleep 0.1; done
  eval "dir$1=\$(sed -n 's/^ovta-vboard: config .* serving in //p' \"\$T/vb$1.out\")"
}
zynq_env() { echo "OVTA_ZYNQ_REGS=$1/regs OVTA_ZYNQ_DMA=$1/udmabuf0 OVTA_ZYNQ_DMA_SYSFS=$1/sysfs/udmabuf0"; }
start_server 1
if [ -z "$dir1" ] || [ ! -f "$dir1/regs" ]; then
  bad "server starts" "no board folder: $(cat "$T/vb1.out" "$T/vb1.err")"
else
  # shellcheck disable=SC2046
  if kill_mid "zynq client killed" env $(zynq_env "$dir1") "$B/ovta" sim "$T/long.s" --backend zynq --counters none; then
    # the next client on the same board: a soft reset at its start, then the right bytes
    # shellcheck disable=SC2046
    run env $(zynq_env "$dir1") "$B/ovta" sim tests/cli/gemm.s --backend zynq --counters none
    if [ $rc -eq 0 ] && grep -qF "$want" "$T/out"; then ok "zynq client killed mid-run: the next client gets the right bytes"
    else bad "zynq client killed mid-run: the next client gets the right bytes" "rc $rc"; fi
    # and a fault on the server's model reaches a client as one error line (server 2 below)
  fi
  # the server killed: its folder stays, the next start removes it and says so
  kill -KILL "$spid1"
  wait "$spid1" 2>/dev/null
  if [ -f "$dir1/lock" ]; then ok "server killed: its folder stays behind (${dir1##*/})"
  else bad "server killed: its folder stays behind" "$dir1 is gone"; fi
  start_server 2
  if [ ! -e "$dir1" ] && grep -qF "removed stale board files of killed servers: $dir1" "$T/vb2.out"; then
    ok "the next server start removes the stale folder and says so"
  else bad "the next server start removes the stale folder and says so" "$(cat "$T/vb2.out" "$T/vb2.err")"; fi
  # shellcheck disable=SC2046
  run env $(zynq_env "$dir2") "$B/ovta" sim tests/cli/gemm.s --backend zynq --counters none
  if [ $rc -eq 0 ] && grep -qF "$want" "$T/out"; then ok "the new server serves"; else bad "the new server serves" "rc $rc"; fi
  # a live server's folder is never taken for stale
  start_server 3
  if [ -d "$dir2" ] && [ -f "$dir2/regs" ] && ! grep -q "removed stale" "$T/vb3.out"; then
    ok "a live server's folder is left alone"
  else bad "a live server's folder is left alone" "$(cat "$T/vb3.out")"; fi
  # --dir on a live board is refused; on a killed one it is cleaned and reused
  run "$B/ovta-vboard" --config small --dir "$dir2"
  if [ $rc -ne 0 ] && grep -q "in use by another virtual board" "$T/err"; then ok "--dir of a live board is refused"
  else bad "--dir of a live board is refused" "rc $rc"; fi
  kill -TERM "$spid2" "$spid3"
  wait "$spid2" "$spid3" 2>/dev/null
  left=$(ls -A "$VB")
  if [ -z "$left" ]; then ok "SIGTERM: the servers remove their folders"
  else bad "SIGTERM: the servers remove their folders" "left: $left"; fi
  mkdir "$VB/mine"
  "$B/ovta-vboard" --config small --dir "$VB/mine" >"$T/vb4.out" 2>&1 &
  spid4=$!
  for _ in $(seq 100); do grep -qs serving "$T/vb4.out" && break; sleep 0.1; done
  kill -KILL "$spid4"
  wait "$spid4" 2>/dev/null
  "$B/ovta-vboard" --config small --dir "$VB/mine" >"$T/vb5.out" 2>&1 &
  spid5=$!
  for _ in $(seq 100); do grep -qs serving "$T/vb5.out" && break; sleep 0.1; done
  if grep -qF "removed stale board files of killed servers: $VB/mine" "$T/vb5.out"; then
    ok "--dir of a killed server's board: cleaned, said so, served"
  else bad "--dir of a killed server's board: cleaned, said so, served" "$(cat "$T/vb5.out")"; fi
  kill -TERM "$spid5"
  wait "$spid5" 2>/dev/null
  if [ -z "$(ls -A "$VB/mine")" ]; then ok "--dir: SIGTERM leaves the folder empty"
  else bad "--dir: SIGTERM leaves the folder empty" "left: $(ls -A "$VB/mine")"; fi
fi
shm_after=$(ls -d /dev/shm/ovta-vboard-* 2>/dev/null | sort)
if [ "$shm_before" = "$shm_after" ]; then ok "/dev/shm: no ovta-vboard-* folder left by this test"
else bad "/dev/shm: no ovta-vboard-* folder left by this test" "before: $shm_before; after: $shm_after"; fi

finish
