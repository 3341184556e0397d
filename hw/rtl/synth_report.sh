#!/usr/bin/env bash
# synth_report.sh STAT.TXT NAME FAMILY OUT.JSON [LUT FF DSP BRAM36]
# Sums the cell counts of a Yosys `stat` report (synth_xilinx) into LUTs (logic + LUT RAM),
# FFs, DSPs and block RAM (36 Kb equivalents: RAMB36 + RAMB18 / 2), writes them as JSON to
# OUT.JSON, prints them, and with the four part limits given, the utilization and whether it fits.
set -eu
stat=$1 name=$2 family=$3 out=$4
shift 4
limits="${*:-}"
awk -v name="$name" -v family="$family" -v limits="$limits" '
  $1 ~ /^(LUT[1-6])$/ { lut += $2 }
  $1 ~ /^RAM(32|64)M$/ || $1 ~ /^RAM(128X1D|256X1S|64M8|32M16)$/ { lutram += 4 * $2 }
  $1 ~ /^RAM(32|64)X1D$/ { lutram += 2 * $2 }
  $1 ~ /^RAM(32|64)X1S$/ || $1 ~ /^SRL(16E|C32E)$/ { lutram += $2 }
  $1 ~ /^FD[CPRSE]+$/ { ff += $2 }
  $1 ~ /^DSP48/ { dsp += $2 }
  $1 ~ /^RAMB36/ { b36 += $2 }
  $1 ~ /^RAMB18/ { b18 += $2 }
  $1 ~ /^URAM288/ { uram += $2 }
  $1 == "CARRY4" || $1 == "CARRY8" { carry += $2 }
  END {
    luts = lut + lutram; bram = b36 + b18 / 2
    printf "{\"config\": \"%s\", \"family\": \"%s\", \"lut\": %d, \"lut_logic\": %d, \"lut_ram\": %d, \"ff\": %d, \"dsp\": %d, \"bram36\": %.1f, \"ramb36\": %d, \"ramb18\": %d, \"uram\": %d, \"carry\": %d", name, family, luts, lut, lutram, ff + 0, dsp + 0, bram, b36 + 0, b18 + 0, uram + 0, carry + 0
    if (limits != "") {
      split(limits, l, " ")
      fits = (luts <= l[1] && ff <= l[2] && dsp <= l[3] && bram <= l[4]) ? "true" : "false"
      printf ", \"limits\": {\"lut\": %d, \"ff\": %d, \"dsp\": %d, \"bram36\": %d}, \"utilization\": {\"lut\": %.3f, \"ff\": %.3f, \"dsp\": %.3f, \"bram36\": %.3f}, \"fits\": %s", l[1], l[2], l[3], l[4], luts / l[1], ff / l[2], dsp / l[3], bram / l[4], fits
    }
    printf "}\n"
  }' "$stat" > "$out"
cat "$out"
