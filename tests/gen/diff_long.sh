#!/usr/bin/env bash
# diff_long.sh: many random programs per config on a list of backends (build/ovta-randprog --diff),
# in parallel jobs, with progress and a summary; the engine of `make test-diff-long` (tests/gen/gen.mk,
# hw/sim/tsim.mk, hw/rtl/netlist.mk).
#
#   tests/gen/diff_long.sh --configs "small default" --seeds A:B [--jobs J] [--chunk C]
#       [--backends LIST] [--shapes all|plain] [--log FILE] [--randprog PATH] [--fail-dir DIR]
#
# The rule: every seed of [A, B] runs once per config in the plain shape; with --shapes all
# (the default) every fourth seed also runs in the long-loop shape (--uops 24 --iters 96
# --tiles 3) and another fourth non-hermetic (DRAM reused across programs), as the serial
# test-diff-long did. The work is cut in chunks of C seeds; chunks are handed to J parallel
# jobs (niced) in the order chunk 1 of every config, chunk 2 of every config, ..., so a run
# stopped early has about as many programs in every config. After each chunk one progress line;
# at the end one summary line per config (programs, mismatches) and a total. Each chunk's JSON
# result line is appended to --log (if given). Exit 1 on any mismatch or failed chunk. SIGTERM
# stops early: the running chunks finish and the summary counts what ran.
set -u

configs="small" seeds="1:1000" jobs=2 chunk=500 backends="" shapes=all log="" fail_dir="build/randprog-fail"
randprog="build/ovta-randprog"
usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --configs) configs=$2; shift ;;
    --seeds) seeds=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --chunk) chunk=$2; shift ;;
    --backends) backends=$2; shift ;;
    --shapes) shapes=$2; shift ;;
    --log) log=$2; shift ;;
    --fail-dir) fail_dir=$2; shift ;;
    --randprog) randprog=$2; shift ;;
    -h|--help) usage 0 ;;
    *) echo "diff_long.sh: error: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
s0=${seeds%%:*} s1=${seeds##*:}
case "$s0$s1$jobs$chunk" in *[!0-9]*|'') echo "diff_long.sh: error: --seeds A:B, --jobs, --chunk take numbers" >&2; exit 2 ;; esac
[ "$s1" -ge "$s0" ] && [ "$jobs" -ge 1 ] && [ "$chunk" -ge 1 ] || { echo "diff_long.sh: error: bad range or counts" >&2; exit 2; }
case "$shapes" in all|plain) ;; *) echo "diff_long.sh: error: --shapes all|plain" >&2; exit 2 ;; esac
[ -x "$randprog" ] || { echo "diff_long.sh: error: $randprog not built" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one work item: config, first seed, last seed -> $tmp/N.json (the result lines of its shapes)
run_item() {
  local n=$1 c=$2 a=$3 b=$4 out="$tmp/$1.json" args=(--diff --config "$2" --fail-dir "$fail_dir")
  [ -n "$backends" ] && args+=(--backends "$backends")
  {
    nice "$randprog" "${args[@]}" --seeds "$a:$b"
    local rc=$?
    if [ "$shapes" = all ]; then
      # seeds a..b scaled to a quarter: seed s runs in the extra shapes if s % 4 == 0, as s / 4
      local qa=$(((a + 3) / 4)) qb=$((b / 4))
      if [ "$qb" -ge "$qa" ]; then
        nice "$randprog" "${args[@]}" --seeds "$qa:$qb" --uops 24 --iters 96 --tiles 3 || rc=1
        nice "$randprog" "${args[@]}" --seeds "$qa:$qb" --no-hermetic || rc=1
      fi
    fi
    echo "rc $rc"
  } > "$out" 2>&1
}

items=()
for ((a = s0; a <= s1; a += chunk)); do
  b=$((a + chunk - 1)); [ "$b" -gt "$s1" ] && b=$s1
  for c in $configs; do items+=("$c $a $b"); done
done
total=${#items[@]} done_n=0 t0=$(date +%s) failed=0
declare -A progs bad
for c in $configs; do progs[$c]=0 bad[$c]=0; done
echo "diff_long: configs [$configs], seeds $s0:$s1, shapes $shapes, backends ${backends:-${OVTA_DIFF_BACKENDS:-fsim,fsim-interleaved}}, $total chunks on $jobs jobs"

# collect one finished item: add its counts, print progress, keep the result lines
collect() {
  local n=$1 c a b; read -r c a b <<< "${items[$n]}"
  local f="$tmp/$n.json" p m
  p=$(sed -n 's/.*"programs": \([0-9]*\).*/\1/p' "$f" | awk '{ s += $1 } END { print s + 0 }')
  m=$(sed -n 's/.*"mismatches": \([0-9]*\).*/\1/p' "$f" | awk '{ s += $1 } END { print s + 0 }')
  progs[$c]=$((progs[$c] + p)) bad[$c]=$((bad[$c] + m))
  done_n=$((done_n + 1))
  if ! grep -q '^rc 0$' "$f"; then failed=1; grep -v '^rc ' "$f" | grep -v '^{' | sed 's/^/  /'; fi
  [ -n "$log" ] && grep '^{' "$f" | sed "s/}\$/, \"chunk\": \"$a:$b\", \"date\": \"$(date -u +%FT%TZ)\"}/" >> "$log"
  printf 'diff_long: [%d/%d] %s seeds %d:%d: %d programs, %d mismatches (%s: %d programs so far), %ds\n' \
    "$done_n" "$total" "$c" "$a" "$b" "$p" "$m" "$c" "${progs[$c]}" $(($(date +%s) - t0))
}

# SIGTERM/SIGINT: start no more chunks, finish the running ones, print the summary
stop=0
trap 'stop=1' TERM INT
declare -A running=()  # pid -> item index
next=0 nrun=0
while [ "$next" -lt "$total" ] || [ "$nrun" -gt 0 ]; do
  [ "$stop" = 1 ] && [ "$next" -lt "$total" ] && { echo "diff_long: stopped, $((total - next)) chunks not run"; next=$total; failed=1; }
  while [ "$next" -lt "$total" ] && [ "$nrun" -lt "$jobs" ]; do
    read -r c a b <<< "${items[$next]}"
    run_item "$next" "$c" "$a" "$b" &
    running[$!]=$next
    next=$((next + 1)) nrun=$((nrun + 1))
  done
  wait -n
  for pid in "${!running[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid"; collect "${running[$pid]}"; unset "running[$pid]"; nrun=$((nrun - 1))
    fi
  done
done

total_p=0 total_m=0
for c in $configs; do
  printf '{"config": "%s", "programs": %d, "mismatches": %d}\n' "$c" "${progs[$c]}" "${bad[$c]}"
  total_p=$((total_p + progs[$c])) total_m=$((total_m + bad[$c]))
done
echo "diff_long: $total_p programs, $total_m mismatches, $(($(date +%s) - t0)) s ($(date -u +%F))"
[ "$total_m" -eq 0 ] && [ "$failed" -eq 0 ]
