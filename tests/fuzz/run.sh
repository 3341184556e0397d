#!/usr/bin/env bash
# Run each fuzz target for a bounded time (and, with FUZZ_RUNS=N, until N executions, whichever
# comes first); print executions and crashes per target, one JSON line each (also appended, with
# the date, to B/campaign.jsonl: the record tests/fuzz/README.md's "Runs" table is written from).
#
# A campaign (FUZZ_RUNS set) may span several runs on the same corpus (B/corpus/NAME): a run that
# ends before N executions (the time bound, or killed with the session) leaves its count in the
# record ("stopped": true, "cumulative": the campaign's executions so far), and the next run of the
# target goes on with the executions still missing. A run killed before it could write its line
# (SIGKILL) is recovered at the next start from its log's last progress line (the marker file
# B/fuzz-NAME.running says that the log belongs to a run with no line yet).
set -u
b=$1; secs=$2; shift 2
total_fail=0

# execs LOG: the executions a libFuzzer log reports (final stats, else the last progress line)
execs() {
  local n
  n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$1" 2>/dev/null | grep -o '[0-9]*$' | tail -1)
  [ -z "$n" ] && n=$(grep -oE '^#[0-9]+' "$1" 2>/dev/null | tail -1 | tr -d '#') # progress lines, not stack frames
  echo "${n:-0}"
}

# cumulative NAME: the executions of the target's unfinished campaign (0 if its last campaign
# record finished one; records of runs without FUZZ_RUNS, as `make fuzz`'s, do not count)
cumulative() {
  local last
  last=$(grep "\"target\": \"$1\"" "$b/campaign.jsonl" 2>/dev/null | grep '"campaign": true' | tail -1)
  case "$last" in
  *'"stopped": true'*) echo "$last" | grep -oE '"cumulative": [0-9]+' | grep -oE '[0-9]+$' || echo 0 ;;
  *) echo 0 ;;
  esac
}

# record NAME SECONDS EXECS CRASHES EXIT DATE: one line on stdout and in campaign.jsonl
record() {
  local t=$1 prev total stopped="" line
  prev=$(cumulative "$t")
  total=$((prev + $3))
  if [ -n "${FUZZ_RUNS:-}" ]; then
    stopped=", \"campaign\": true, \"cumulative\": $total"
    [ "$total" -lt "$FUZZ_RUNS" ] && stopped="$stopped, \"stopped\": true"
  fi
  line="{\"target\": \"$t\", \"seconds\": $2, \"executions\": $3, \"crashes\": $4, \"exit\": $5$stopped}"
  echo "$line"
  echo "{\"date\": \"$6\", ${line#\{}" >>"$b/campaign.jsonl"
}

for t in "$@"; do
  mkdir -p "$b/corpus/$t" "$b/crashes/$t"
  log="$b/fuzz-$t.log"
  mark="$b/fuzz-$t.running"
  if [ -f "$mark" ]; then # the last run was killed before its line: recover its count
    read -r ksecs kruns <"$mark"
    FUZZ_RUNS=$kruns record "$t" "$ksecs" "$(execs "$log")" "$(ls "$b/crashes/$t" | grep -vc '^slow-unit-')" \
      '"killed"' "$(date -u -r "$log" +%Y-%m-%dT%H:%M)" >/dev/null
    cp "$log" "$log.killed"
  fi
  runs=${FUZZ_RUNS:-}
  [ -n "$runs" ] && runs=$((runs - $(cumulative "$t")))
  maxlen=65536
  [ "$t" = onnx ] && maxlen=131072 # the Fashion-MNIST seed model is 96 KiB
  echo "$secs ${FUZZ_RUNS:-}" >"$mark"
  "$b/fuzz/$t" -max_total_time="$secs" ${runs:+-runs=$runs} -max_len=$maxlen -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$b/crashes/$t/" "$b/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  # slow-unit-* files are reports, not failures (a pause of the process, e.g. SIGSTOP, makes one)
  crashes=$(ls "$b/crashes/$t" | grep -vc '^slow-unit-')
  record "$t" "$secs" "$(execs "$log")" "$crashes" "$rc" "$(date -u +%Y-%m-%dT%H:%M)"
  rm -f "$mark"
  [ "$crashes" -gt 0 ] && total_fail=1
done
exit $total_fail
