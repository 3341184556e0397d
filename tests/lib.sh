# tests/lib.sh: helpers shared by the shell test scripts (tests/cli, tests/e2e, tests/profile).
# Source it after `cd` to the repository root; it makes the scratch folder $T (removed on exit)
# and keeps the pass/fail tally that `finish` prints in cmocka's style, which tests/run.sh counts.
#   run CMD...                      $rc = exit status; $T/out, $T/err = stdout, stderr
#                                   ($out, $err hold them too)
#   ok NAME / bad NAME WHY          record a pass / a failure (with the last command's output)
#   skip NAME WHY                   record a test that cannot run here (cmocka's SKIPPED lines)
#   expect_error NAME MESSAGE CMD... pass when CMD exits non-zero and writes exactly one line with
#                                   "error:", the first stderr line being "ovta: error: MESSAGE"
#                                   (MESSAGE may contain * wildcards; ERR_TOOL=ovta-rt: "ovta-rt: error:")
#   pycheck NAME SCRIPT ARGS...     pass when `$PY -c SCRIPT ARGS` prints exactly "ok"
#   plan_reseal DIR                 rewrite DIR/plan.json's own digest after a test edited it
#                                   (FNV-1a 64, computed here independently of plan/digest.c)
#   finish                          print the tally, exit 1 when anything failed
# shellcheck shell=bash

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=${PY:-/usr/bin/python3}   # Debian's python (numpy, onnx), not the first on PATH
passed=0
failed=0
skipped=0
failed_names=()
skipped_names=()

run() {
  "$@" >"$T/out" 2>"$T/err"
  rc=$?
  out=$(cat "$T/out")
  err=$(cat "$T/err")
}

ok() { echo "[       OK ] $1"; passed=$((passed + 1)); }

skip() {
  echo "[  SKIPPED ] $1: $2"
  skipped=$((skipped + 1))
  skipped_names+=("$1")
}

# device_backends TAG PLAN ARGS...: the array `backends`: fsim, and tsim when `$OVTA run PLAN
# --backend tsim ARGS` runs here (else one skip line "TAG: tsim"; TAG may be empty). ARGS: the
# run's --input options.
device_backends() {
  local tag=${1:+$1: } plan=$2
  shift 2
  backends=(fsim)
  if "$OVTA" run "$plan" --backend tsim "$@" --output-dir "$T/probe" >/dev/null 2>&1; then backends+=(tsim)
  else skip "${tag}tsim" "the tsim backend does not run here"; fi
}

bad() {
  echo "[  FAILED  ] $1: $2"
  echo "  stdout: $(head -c 800 "$T/out" 2>/dev/null)"
  echo "  stderr: $(head -c 800 "$T/err" 2>/dev/null)"
  failed=$((failed + 1))
  failed_names+=("$1")
}

expect_error() {
  local name=$1 msg=$2
  shift 2
  run "$@"
  local first n
  first=$(head -n1 "$T/err")
  n=$(grep -c 'error:' "$T/err")
  if [ $rc -eq 0 ]; then bad "$name" "exit status 0"
  elif [ "$n" -ne 1 ]; then bad "$name" "$n error lines"
  elif [[ "$first" != "${ERR_TOOL:-ovta}: error: "$msg ]]; then
    bad "$name" "first line '$first', expected '${ERR_TOOL:-ovta}: error: $msg'"
  else ok "$name"; fi
}

pycheck() {
  local name=$1 script=$2 res
  shift 2
  res=$("$PY" -c "$script" "$@" 2>&1)
  if [ "$res" = ok ]; then ok "$name"; else bad "$name" "$res"; fi
}

# FNV-1a 64 in Python, the tests' own implementation (plan/digest.c has the format).
FNV_PY='
def fnv(b):
    h = 0xcbf29ce484222325
    for c in b: h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    return h
'

plan_reseal() {
  "$PY" -c "$FNV_PY"'
import re, sys
p = sys.argv[1] + "/plan.json"
t = open(p, "rb").read()
m = list(re.finditer(rb"\"plan_fnv1a64\"\s*:\s*\"([0-9a-f]{16})\"", t))[-1]
t = t[:m.start(1)] + b"0" * 16 + t[m.end(1):]
t = t[:m.start(1)] + b"%016x" % fnv(t) + t[m.end(1):]
open(p, "wb").write(t)' "$1"
}

finish() {
  echo "[==========] $((passed + failed + skipped)) test(s) run."
  echo "[  PASSED  ] $passed test(s)."
  if [ $skipped -gt 0 ]; then
    echo "[  SKIPPED ] $skipped test(s), listed below:"
    for n in "${skipped_names[@]}"; do echo "[  SKIPPED ] $n"; done
  fi
  if [ $failed -gt 0 ]; then
    echo "[  FAILED  ] $failed test(s), listed below:"
    for n in "${failed_names[@]}"; do echo "[  FAILED  ] $n"; done
    exit 1
  fi
  exit 0
}
