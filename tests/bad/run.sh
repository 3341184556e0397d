#!/usr/bin/env bash
# The catalogue of bad inputs: every file in tests/bad/cases/ (configs, assembler programs, raw
# binary streams; ONNX models and JSON graphs for `ovta compile`, .npy inputs of `ovta run` and
# `ovta eval`: the hostile ones are made by tests/bad/gen_compiler_cases.py) goes through `ovta`
# as its sidecar CASE.expect says:
#   cmd: SUBCOMMAND [OPTIONS]      run as `ovta SUBCOMMAND [OPTIONS] CASE` inside cases/; when the
#                                  line holds {}, the case's name goes there instead of at the end
#                                  (e.g. `cmd: run MODEL --input x={}`); {tmp} is a scratch path
#                                  (not yet existing, removed after each case) for output folders
#   exit: N                        the exit status it must give
#   error: MESSAGE                 the first stderr line must be "ovta: error: MESSAGE..." (a prefix)
# and stderr must hold exactly one "error:" line, no sanitizer report, and the command must end
# within 60 s (a hang fails). A case without an .expect fails too.
# Usage: tests/bad/run.sh [PATH/TO/ovta]. Prints cmocka-style lines.
set -u
cd "$(dirname "$0")/cases" || exit 1
. ../../lib.sh
OVTA=$(realpath "${1:-../../../build/ovta}")
echo "[==========] Running the bad-input catalogue ($(ls | grep -vc '\.expect$') cases)."
for f in *; do
  case $f in *.expect) continue ;; esac
  exp=$f.expect
  if [ ! -f "$exp" ]; then
    echo "[  FAILED  ] $f: no $exp"; failed=$((failed + 1)); failed_names+=("$f"); continue
  fi
  cmd=$(sed -n 's/^cmd: //p' "$exp"); want_rc=$(sed -n 's/^exit: //p' "$exp"); want=$(sed -n 's/^error: //p' "$exp")
  cmd=${cmd//\{tmp\}/$T/tmp}
  if [[ $cmd == *"{}"* ]]; then args=${cmd//\{\}/$f}; else args="$cmd $f"; fi
  rm -rf "$T/tmp"
  # shellcheck disable=SC2086
  timeout 60 "$OVTA" $args >"$T/out" 2>"$T/err"
  rc=$?
  first=$(head -n1 "$T/err")
  n=$(grep -c 'error:' "$T/err")
  why=""
  if [ $rc -eq 124 ]; then why="hung (killed after 60 s)"
  elif [ "$rc" != "$want_rc" ]; then why="exit $rc, expected $want_rc"
  elif grep -qE 'Sanitizer|runtime error:|LeakSanitizer' "$T/err"; then why="sanitizer report"
  elif [ "$n" -ne 1 ]; then why="$n error lines"
  elif [[ "$first" != "ovta: error: $want"* ]]; then why="got '$first'"
  fi
  if [ -z "$why" ]; then ok "$f"
  else
    echo "[  FAILED  ] $f: $why"; echo "  expected: ovta: error: $want"; head -c 600 "$T/err" | sed 's/^/  stderr: /'
    failed=$((failed + 1)); failed_names+=("$f")
  fi
done
finish
