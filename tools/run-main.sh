#!/usr/bin/env bash
# The main job of `make run`. Until the end-to-end model lands this runs the ISA self-check.
set -eu
b=$1
"$b/tests/isa/test_encoding"
