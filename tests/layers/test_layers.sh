#!/usr/bin/env bash
# The layering rules, checked by compiling one-line files (`#include "HEADER"`, gcc -fsyntax-only):
#   1. compiler/: each layer of COMPILER_LAYERS, with the include flags its objects are built with
#      (compiler/compiler.mk), can include the header of every layer it may use
#      (COMPILER_USES_LAYER) and cannot include any other layer's header (not found); the same
#      for the hardware-side headers, allowed only when their folder is in the layer's flags
#      (COMPILER_HW_LAYER).
#   2. No source in compiler/ includes a header by a path (which would get around the flags).
#   4. plan/ (the plan runtime, below the compiler): with its flags (PLAN_FLAGS) every compiler
#      layer's header is out of reach, and every plan/*.c compiles.
#   3. hw/sim/ includes no driver header: its sources name none, and hw/sim/*.c compile with
#      isa/ and hw/sim/ only (HW_SIM_CPPFLAGS, tests/layers/layers.mk). SKIPPED while
#      hw/sim/fsim.c still includes driver_impl.h (its driver backend is moving to driver/); the
#      check turns on by itself once it no longer does.
# Run by build/tests/layers/test_layers (tests/layers/layers.mk), which sets CC, LAYERS,
# USES_LAYER, FLAGS_LAYER (make syntax: -DX=\"...\"), HW_SIM_FLAGS and PLAN_FLAGS; prints cmocka-style lines.
set -u
. tests/lib.sh

# The hardware-side headers a compiler layer may include only with their folder in its flags.
HW_HEADERS="driver/ovta_driver.h jit-runtime/ovta_runtime.h plan/ovta_plan.h hw/sim/fsim.h hw/sim/tsim.h"

# try HEADER FLAGS: compile `#include "HEADER"` with FLAGS (make syntax); $rc, $T/err
try() {
  local -a flags
  eval "flags=($2)"
  printf '#include "%s"\n' "$1" | "$CC" -std=c11 -fsyntax-only -x c - "${flags[@]}" >"$T/out" 2>"$T/err"
  rc=$?
}

# may NAME HEADER FLAGS / may_not NAME HEADER FLAGS
may() {
  try "$2" "$3"
  if [ $rc -eq 0 ]; then ok "$1"; else bad "$1" "does not compile: $(grep -m1 error "$T/err")"; fi
}
may_not() {
  try "$2" "$3"
  if [ $rc -eq 0 ]; then bad "$1" "compiles, but the layer may not include it"
  elif grep -q "fatal error: $2: No such file or directory" "$T/err"; then ok "$1"
  else bad "$1" "fails for another reason than a header out of reach: $(grep -m1 error "$T/err")"; fi
}

# ---------------------------------------------------------------- 1. compiler layers
for l in $LAYERS; do
  uses=USES_$l flags=FLAGS_$l
  for m in $LAYERS; do
    if [[ " ${!uses} " == *" $m "* ]]; then may "$l may include $m.h" "$m.h" "${!flags}"
    else may_not "$l cannot include $m.h" "$m.h" "${!flags}"; fi
  done
  for h in $HW_HEADERS; do
    if [[ " ${!flags} " == *" -I$(dirname "$h") "* ]]; then may "$l may include $h" "$(basename "$h")" "${!flags}"
    else may_not "$l cannot include $h" "$(basename "$h")" "${!flags}"; fi
  done
done

# ---------------------------------------------------------------- 2. no include by path
pathed=$(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*/' compiler/*/*.c compiler/*/*.h 2>/dev/null)
if [ -z "$pathed" ]; then ok "compiler/ includes no header by a path"
else echo "$pathed" >"$T/out"; : >"$T/err"; bad "compiler/ includes no header by a path" "$(echo "$pathed" | head -3)"; fi

# ---------------------------------------------------------------- 3. hw/sim without the driver
driver_headers=$(cd driver && ls *.h)
sim_sources=$(ls hw/sim/*.c hw/sim/*.h hw/sim/tsim/*.cpp hw/sim/tsim/*.h 2>/dev/null)
if grep -q '^[[:space:]]*#[[:space:]]*include[[:space:]]*"driver_impl.h"' hw/sim/fsim.c; then
  why="hw/sim/fsim.c still includes driver_impl.h (fsim's driver backend is moving to driver/)"
  skip "hw/sim includes no driver header" "$why"
  skip "hw/sim/*.c compile without driver/" "$why"
else
  named=""
  for h in $driver_headers; do
    named+=$(grep -n "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]$h[\">]" $sim_sources 2>/dev/null)
  done
  if [ -z "$named" ]; then ok "hw/sim includes no driver header"
  else : >"$T/out"; : >"$T/err"; bad "hw/sim includes no driver header" "$named"; fi
  bad_c=""
  for c in hw/sim/*.c; do
    eval "flags=($HW_SIM_FLAGS)"
    "$CC" -std=c11 -fsyntax-only "${flags[@]}" "$c" >"$T/out" 2>"$T/err" || bad_c+="$c: $(grep -m1 error "$T/err") "
  done
  if [ -z "$bad_c" ]; then ok "hw/sim/*.c compile without driver/"
  else bad "hw/sim/*.c compile without driver/" "$bad_c"; fi
fi

# ---------------------------------------------------------------- 4. plan/ below the compiler
for m in $LAYERS; do may_not "plan cannot include $m.h" "$m.h" "$PLAN_FLAGS"; done
may "plan may include ovta_plan.h" "ovta_plan.h" "$PLAN_FLAGS"
bad_c=""
for c in plan/*.c; do
  eval "flags=($PLAN_FLAGS)"
  "$CC" -std=c11 -fsyntax-only "${flags[@]}" "$c" >"$T/out" 2>"$T/err" || bad_c+="$c: $(grep -m1 error "$T/err") "
done
if [ -z "$bad_c" ]; then ok "plan/*.c compile without compiler/"
else bad "plan/*.c compile without compiler/" "$bad_c"; fi

finish
