#!/usr/bin/env bash
# Runs every command of README.md's walkthrough (the "$ " lines between the markers
# <!-- walkthrough:begin --> and <!-- walkthrough:end -->) from the repository root, in order, and
# checks each exits 0; then checks the files the walkthrough says it writes. So the README's
# walkthrough cannot go stale. Prints cmocka-style result lines for tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
pass=0; fail=0; failed=()
mapfile -t cmds < <(sed -n '/<!-- walkthrough:begin -->/,/<!-- walkthrough:end -->/p' README.md | sed -n 's/^\$ //p')
if [ ${#cmds[@]} -lt 5 ]; then
  echo "[  FAILED  ] 1 test(s), listed below:"; echo "[  FAILED  ] README walkthrough: only ${#cmds[@]} commands found"; exit 1
fi
rm -rf build/walkthrough && mkdir -p build/walkthrough  # nothing stale counts
log=$(mktemp)
for c in "${cmds[@]}"; do
  echo "[ RUN      ] $c"
  if bash -c "$c" >"$log" 2>&1 </dev/null; then
    pass=$((pass + 1)); echo "[       OK ] $c"
  else
    fail=$((fail + 1)); failed+=("$c"); echo "[  FAILED  ] $c"; tail -5 "$log"
  fi
done
# what the walkthrough promises to write
for f in build/walkthrough/trace.json build/walkthrough/plots/roofline.png build/walkthrough/plots/utilization.png \
         build/walkthrough/gemm.fst; do
  if [ -s "$f" ]; then pass=$((pass + 1)); echo "[       OK ] $f written"
  else fail=$((fail + 1)); failed+=("$f not written"); echo "[  FAILED  ] $f not written"; fi
done
rm -f "$log"
if [ $fail -gt 0 ]; then
  echo "[  PASSED  ] $pass test(s)."
  echo "[  FAILED  ] $fail test(s), listed below:"
  for f in "${failed[@]}"; do echo "[  FAILED  ] $f"; done
  exit 1
fi
echo "[  PASSED  ] $pass test(s)."
