#!/usr/bin/env bash
# Run every test binary given, print each one's cmocka report, and close with one line
# "N passed, N failed" (N skipped when any) counted over all binaries. Exit 1 on any failure.
set -u
b=$1; shift
passed=0; failed=0; skipped=0; broken=()
for t in "$@"; do
  name=${t#$b/tests/}
  echo "=== $name"
  out=$(cd "$(dirname "$0")/.." && "$t" 2>&1); rc=$?
  echo "$out"
  p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
  f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
  s=$(echo "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); broken+=("$name (exit $rc)"); fi
done
[ ${#broken[@]} -gt 0 ] && printf 'crashed or failed outside a test: %s\n' "${broken[@]}"
if [ $skipped -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
else echo "$passed passed, $failed failed"; fi
[ $failed -eq 0 ]
