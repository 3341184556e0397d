#!/usr/bin/env bash
# boards/synth.sh BOARD REPORT.JSON: the utilisation of a board's synthesis (hw/rtl/rtl.mk's
# `make synth` with the board's config, family and part limits; its JSON report) against the
# part's capacity (boards/BOARD/board.json "capacity"), one line per resource.
# Exit 1 when anything exceeds the part. Called by `make synth-board BOARD=NAME`.
set -u
board=$1 rep=$2
json=boards/$board/board.json
[ -f "$rep" ] || { echo "synth: $board: no report $rep (did yosys fail? see its log)" >&2; exit 1; }
num() { tr ',{}' '\n\n\n' < "$rep" | sed -n "s/^ *\"$1\": *\([0-9.]*\) *$/\1/p" | head -1; }
cap() { sed -n "s/.*\"capacity\".*\"$1\": *\([0-9]*\).*/\1/p" "$json" | head -1; }
part=$(sed -n 's/.*"part": *"\([^"]*\)".*/\1/p' "$json" | head -1)
echo "$board ($part), Yosys synth_xilinx estimate:"
bad=0
for r in lut ff dsp bram36 uram; do
  used=$(num "$r") c=$(cap "$r")
  [ -n "$used" ] && [ -n "$c" ] || continue
  [ "$r" = uram ] && [ "$c" = 0 ] && [ "${used%.*}" = 0 ] && continue
  line=$(awk -v u="$used" -v c="$c" -v r="$r" 'BEGIN {
    p = c > 0 ? 100 * u / c : (u > 0 ? 999 : 0)
    printf("  %-7s %10s / %-9s %6.1f%%%s", toupper(r), u, c, p, (u + 0 > c + 0) ? "  DOES NOT FIT" : "") }')
  echo "$line"
  case $line in *"DOES NOT FIT"*) bad=1 ;; esac
done
if [ $bad = 1 ]; then echo "synth: $board: the design does not fit $part" >&2; exit 1; fi
