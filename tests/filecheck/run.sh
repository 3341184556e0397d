#!/usr/bin/env bash
# FileCheck test runner (LLVM lit / QBE style): every tests/filecheck/*.json and *.test file
# holds its input, its "// RUN: ..." command lines and its "// CHECK..." lines. In RUN lines
#   %s         the test file          %ovta-opt  the build's ovta-opt
#   FileCheck  LLVM 15's FileCheck    not CMD    succeeds when CMD fails
# Each RUN line runs under bash with pipefail. Prints cmocka-style lines for tests/run.sh.
# Usage: run.sh BUILD_DIR [TEST_FILE...]   (run from the repository root)
set -u
b=${1:-build}; shift || true
fc=/usr/lib/llvm-15/bin/FileCheck
[ -x "$fc" ] || fc=$(command -v FileCheck-15 || command -v FileCheck || echo FileCheck)
files=("$@")
[ ${#files[@]} -eq 0 ] && files=($(ls tests/filecheck/*.json tests/filecheck/*.test 2>/dev/null))
pass=0; fail=0; failed=()
for f in "${files[@]}"; do
  name=$(basename "$f")
  echo "[ RUN      ] $name"
  runs=$(sed -n 's|^[[:space:]]*//[[:space:]]*RUN:[[:space:]]*||p' "$f")
  if [ -z "$runs" ]; then echo "no RUN line in $f"; ok=1; else ok=0; fi
  while IFS= read -r cmd; do
    [ -z "$cmd" ] && continue
    cmd=${cmd//%ovta-opt/$b/ovta-opt}
    cmd=${cmd//%s/$f}
    out=$(bash -c "set -o pipefail; not() { ! \"\$@\"; }; FileCheck() { '$fc' \"\$@\"; }; $cmd" 2>&1) || {
      echo "RUN failed: $cmd"; echo "$out" | head -40; ok=1; }
  done <<< "$runs"
  if [ $ok -eq 0 ]; then echo "[       OK ] $name"; pass=$((pass + 1))
  else echo "[  FAILED  ] $name"; fail=$((fail + 1)); failed+=("$name"); fi
done
echo "[==========] ${#files[@]} test(s) run."
echo "[  PASSED  ] $pass test(s)."
if [ $fail -gt 0 ]; then
  echo "[  FAILED  ] $fail test(s), listed below:"
  for n in "${failed[@]}"; do echo "[  FAILED  ] $n"; done
  exit 1
fi
