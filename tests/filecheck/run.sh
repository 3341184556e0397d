#!/usr/bin/env bash
# FileCheck test runner (LLVM lit / QBE style): every tests/filecheck/*.json and *.test file
# holds its input, its "// RUN: ..." command lines and its "// CHECK..." lines. In RUN lines
#   %s         the test file          %ovta-opt  the build's ovta-opt
#   FileCheck  LLVM 15's FileCheck    not CMD    succeeds when CMD fails
# Each RUN line runs under bash with pipefail. Prints cmocka-style lines for tests/run.sh.
# Usage: run.sh BUILD_DIR [TEST_FILE...]   (run from the repository root)
set -u
. "$(dirname "$0")/../lib.sh"
b=${1:-build}; shift || true
fc=/usr/lib/llvm-15/bin/FileCheck
[ -x "$fc" ] || fc=$(command -v FileCheck-15 || command -v FileCheck || echo FileCheck)
files=("$@")
[ ${#files[@]} -eq 0 ] && files=($(ls tests/filecheck/*.json tests/filecheck/*.test 2>/dev/null))
for f in "${files[@]}"; do
  name=$(basename "$f")
  echo "[ RUN      ] $name"
  runs=$(sed -n 's|^[[:space:]]*//[[:space:]]*RUN:[[:space:]]*||p' "$f")
  if [ -z "$runs" ]; then echo "no RUN line in $f"; bad_run=1; else bad_run=0; fi
  while IFS= read -r cmd; do
    [ -z "$cmd" ] && continue
    cmd=${cmd//%ovta-opt/$b/ovta-opt}
    cmd=${cmd//%s/$f}
    out=$(bash -c "set -o pipefail; not() { ! \"\$@\"; }; FileCheck() { '$fc' \"\$@\"; }; $cmd" 2>&1) || {
      echo "RUN failed: $cmd"; echo "$out" | head -40; bad_run=1; }
  done <<< "$runs"
  if [ $bad_run -eq 0 ]; then ok "$name"
  else echo "[  FAILED  ] $name"; failed=$((failed + 1)); failed_names+=("$name"); fi
done
finish
