#!/usr/bin/env bash
# tests/fuzz/run.sh's campaign record, with a stand-in fuzz target (a script that prints
# libFuzzer's progress and final lines for FAKE_N executions and shows the -runs it was given):
# a campaign of N executions spread over runs, one killed before writing its line, and a plain
# run in between that must not count.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
echo "[==========] Running tests/fuzz/run.sh's campaign record."
S=$(pwd)/tests/fuzz/run.sh
mkdir -p "$T/b/fuzz" "$T/tests/fuzz/corpus/x"
cat >"$T/b/fuzz/x" <<'EOS'
#!/usr/bin/env bash
r=none
for a in "$@"; do case $a in -runs=*) r=${a#-runs=} ;; esac; done
echo "INFO: runs $r"
echo "#${FAKE_N}	pulse  cov: 1"
[ -n "${FAKE_KILL:-}" ] && kill -9 "$PPID"
echo "stat::number_of_executed_units: ${FAKE_N}"
EOS
chmod +x "$T/b/fuzz/x"
cd "$T" || exit 1
field() { grep -oE "\"$1\": [^,}]+" | sed 's/.*: //'; } # field NAME < JSON line: its value

run env FUZZ_RUNS=1000 FAKE_N=300 bash "$S" b 5 x
if [ "$(echo "$out" | field cumulative)" = 300 ] && [ "$(echo "$out" | field stopped)" = true ] &&
  grep -q 'runs 1000' b/fuzz-x.log; then ok "a short run of a campaign is recorded as stopped, 300 of 1000"
else bad "a short run of a campaign is recorded as stopped, 300 of 1000" "$out"; fi

{ run env FUZZ_RUNS=1000 FAKE_N=250 FAKE_KILL=1 bash "$S" b 5 x; } 2>/dev/null # no "Killed" notice
if [ "$rc" -ne 0 ] && [ -f b/fuzz-x.running ] && [ "$(wc -l <b/campaign.jsonl)" -eq 1 ]; then ok "a killed run writes no line"
else bad "a killed run writes no line" "rc $rc"; fi

run env FAKE_N=60 bash "$S" b 5 x
last2=$(tail -2 b/campaign.jsonl)
if [ "$(echo "$last2" | head -1 | field exit)" = '"killed"' ] && [ "$(echo "$last2" | head -1 | field cumulative)" = 550 ] &&
  [ -z "$(echo "$last2" | tail -1 | field campaign)" ] && grep -q 'runs none' b/fuzz-x.log && [ ! -f b/fuzz-x.running ]
then ok "the killed run is recovered from its log at the next start (550); a plain run is no campaign's"
else bad "the killed run is recovered from its log at the next start (550); a plain run is no campaign's" "$last2"; fi

run env FUZZ_RUNS=1000 FAKE_N=450 bash "$S" b 5 x
if grep -q 'runs 450' b/fuzz-x.log && [ "$(echo "$out" | field cumulative)" = 1000 ] && [ -z "$(echo "$out" | field stopped)" ]
then ok "the next run goes on with the 450 executions missing and ends the campaign"
else bad "the next run goes on with the 450 executions missing and ends the campaign" "$out"; fi

run env FUZZ_RUNS=1000 FAKE_N=7 bash "$S" b 5 x
if grep -q 'runs 1000' b/fuzz-x.log && [ "$(echo "$out" | field cumulative)" = 7 ]; then ok "a finished campaign is not continued"
else bad "a finished campaign is not continued" "$out"; fi
finish
