#!/usr/bin/env bash
# Run each fuzz target for a bounded time (and, with FUZZ_RUNS=N, until N executions, whichever
# comes first); print executions and crashes per target, one JSON line each (also appended, with
# the date, to B/campaign.jsonl: the record tests/fuzz/README.md's "Runs" table is written from).
set -u
b=$1; secs=$2; shift 2
total_fail=0
for t in "$@"; do
  mkdir -p "$b/corpus/$t" "$b/crashes/$t"
  log="$b/fuzz-$t.log"
  maxlen=65536
  [ "$t" = onnx ] && maxlen=131072 # the Fashion-MNIST seed model is 96 KiB
  "$b/fuzz/$t" -max_total_time="$secs" ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} -max_len=$maxlen -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$b/crashes/$t/" "$b/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  [ -z "$execs" ] && execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#') # progress lines, not stack frames
  # slow-unit-* files are reports, not failures (a pause of the process, e.g. SIGSTOP, makes one)
  crashes=$(ls "$b/crashes/$t" | grep -vc '^slow-unit-')
  line="{\"target\": \"$t\", \"seconds\": $secs, \"executions\": ${execs:-0}, \"crashes\": $crashes, \"exit\": $rc}"
  echo "$line"
  echo "{\"date\": \"$(date -u +%Y-%m-%dT%H:%M)\", ${line#\{}" >>"$b/campaign.jsonl"
  [ "$crashes" -gt 0 ] && total_fail=1
done
exit $total_fail
