#!/usr/bin/env bash
# The FileCheck test runner (LLVM lit style) for every FileCheck test of the repository:
#   tests/filecheck/*.json, *.test         graph passes, inference, ONNX import (ovta-opt)
#   tests/codegen/filecheck/*.json         graph operators -> loop IR (ovta compile --dump-lir)
#   tests/vta/*.test                       accelerator lowering stages, schedules (ovta-vta)
# A test file holds its input, its "// RUN: ..." command lines and its "// CHECK..." lines (or
# other --check-prefix lines). In RUN lines (one substitution set for every tool):
#   %ovta       the build's ovta               %s   the test file
#   %ovta-opt   the build's ovta-opt           %S   the test file's folder
#   %ovta-vta   the build's ovta-vta           %t   a scratch path of this test (not created; its
#   %%          a literal %                         folder exists and is removed at the end)
#   FileCheck   LLVM 15's FileCheck ($FILECHECK)    not CMD   succeeds when CMD fails
# Any other %NAME is an error. Each RUN line runs under bash with pipefail from the repository
# root; a file passes when all its RUN lines do. Prints cmocka-style lines for tests/run.sh.
# Usage: run.sh BUILD_DIR [FILE|FOLDER...]   (a FOLDER means its *.json and *.test files;
#        default tests/filecheck). `make test` runs it through build/tests/AREA/run-filecheck,
#        one wrapper per area (tests/tests.mk), which also takes FILEs.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
b=${1:-build}; shift || true
case $b in /*) ;; *) b=$PWD/$b ;; esac
fc=${FILECHECK:-/usr/lib/llvm-15/bin/FileCheck}
[ -x "$fc" ] || fc=$(command -v FileCheck-15 || command -v FileCheck || echo FileCheck)
[ $# -eq 0 ] && set -- tests/filecheck
files=()
for a in "$@"; do
  if [ -d "$a" ]; then
    for f in "$a"/*.json "$a"/*.test; do [ -f "$f" ] && files+=("$f"); done
  else files+=("$a"); fi
done
# subst LINE FILE TMP: LINE with its substitutions made; a % word that is no substitution is an
# error (a tool name %NAME is the longest run of [A-Za-z0-9-]; %s, %S and %t take one letter).
subst() {
  local in=$1 out="" w
  while [[ $in == *%* ]]; do
    out+=${in%%\%*}; in=${in#*%}
    [[ $in =~ ^[A-Za-z0-9-]* ]]; w=${BASH_REMATCH[0]}
    case $w in
      ovta|ovta-opt|ovta-vta) out+=$b/$w; in=${in#"$w"} ;;
      *) case $in in
           %*) out+=%; in=${in#%} ;;
           s*) out+=$2; in=${in#s} ;;
           S*) out+=$(dirname "$2"); in=${in#S} ;;
           t*) out+=$3; in=${in#t} ;;
           *) echo "an unknown substitution %$w: $1"; return 1 ;;
         esac ;;
    esac
  done
  printf '%s\n' "$out$in"
}

n=0
for f in "${files[@]}"; do
  name=$(basename "$f")
  n=$((n + 1))
  tmp=$T/$n.$name.tmp
  echo "[ RUN      ] $name"
  runs=$(sed -n 's|^[[:space:]]*//[[:space:]]*RUN:[[:space:]]*||p' "$f" 2>/dev/null)
  if [ -z "$runs" ]; then echo "no RUN line in $f"; bad_run=1; else bad_run=0; fi
  while IFS= read -r cmd; do
    [ -z "$cmd" ] && continue
    cmd=$(subst "$cmd" "$f" "$tmp") || { echo "RUN line with $cmd"; bad_run=1; continue; }
    out=$(bash -c "set -o pipefail; not() { ! \"\$@\"; }; FileCheck() { '$fc' \"\$@\"; }; $cmd" 2>&1) || {
      echo "RUN failed: $cmd"; echo "$out" | head -40; bad_run=1; }
  done <<< "$runs"
  if [ $bad_run -eq 0 ]; then ok "$name"
  else echo "[  FAILED  ] $name"; failed=$((failed + 1)); failed_names+=("$name"); fi
done
finish
